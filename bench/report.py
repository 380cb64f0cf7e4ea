"""Benchmark the weekly report on a synthetic warehouse of a big week (default 50,000 runs) + the week before.

    .venv/bin/python bench/report.py [--runs 50000] [--events-per-run 12] [--db PATH] [--out DIR] [--keep]

This benchmarks the report, not the classifier or the ingest: the warehouse tables (runs, events, messages,
templates, predictions, plus an inventory table) are filled directly with generated rows by DuckDB SQL
(hash-based pseudo-random, deterministic). The fleet: 400 hosts with an inventory (a driver-470 cohort),
20 images, 17 categories with a planted cuda_driver_too_old cause (driver-470 hosts x cuda11.8/12.x
images), ~12 events per run (a few failure-relevant ones per failed run from a pool of 600 templates,
some first seen this week, some gone), predictions with evidence JSON, model disagreements and low
confidence. It prints the time to generate the warehouse and, separately, the time to build + write the
report (goal: under 10 s on a 2-core machine).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline import eventstore, store  # noqa: E402
from pipeline.report import build_report, write_report  # noqa: E402

CATS = ["no_failure"] * 30 + ["cuda_driver_too_old", "gpu_not_visible", "cuda_lib_missing", "gpu_arch_unsupported",
                              "system_lib_missing", "shm_exhausted", "gpu_oom", "host_oom", "model_version_incompatible",
                              "api_incompatible", "python_dependency_conflict", "distributed_comm_failure",
                              "native_crash", "disk_full", "file_not_found", "unknown"]
TAGS = ["2.6.0-gpu-cuda11.2-cudnn8", "2.6.0-gpu-cuda11.8-cudnn8", "2.6.2-gpu-cuda12.0-cudnn8.9-trt8.6",
        "3.0.0-gpu-cuda11.8-cudnn8.9", "3.0.0-gpu-cuda12.6-cudnn9.5", "latest-gpu", "2.1.2-gpu-cuda11.2-cudnn8",
        "2.4.2-gpu-cuda11.7-cudnn8.4-trt8.4", "v4", "v5-slim", "3.0", "2.7", "2.8-rc", "1.2", "1.3", "3.0b2",
        "2.8-pb4", "conda", "2.6-cpuwheel", "2.6-sm70-86"]


def generate(db: Path, runs: int, events_per_run: int, hosts: int = 400, week_start: str = "2026-11-23") -> None:
    con = store.connect(db)
    cats = "[" + ", ".join(f"'{c}'" for c in CATS) + "]"
    tags = "[" + ", ".join(f"'{t}'" for t in TAGS) + "]"
    con.execute(f"""
        CREATE TABLE inventory AS
        SELECT printf('h%03d', i) AS host, 'NVIDIA A10' AS gpu_model,
               CASE WHEN i % 7 = 0 THEN '470.239.06' WHEN i % 3 = 0 THEN '535.183.01' ELSE '570.124.06' END
                   AS driver_version,
               CASE WHEN i % 7 = 0 THEN '11.4' WHEN i % 3 = 0 THEN '12.2' ELSE '12.8' END AS cuda_driver_max,
               'pool-' || (i % 5) AS node_pool
        FROM range(1, {hosts + 1}) t(i)""")
    # this week: `runs` runs; previous week: 90% of that
    con.execute(f"""
        CREATE TEMP TABLE g AS
        WITH base AS (
            SELECT i, CASE WHEN i < {runs} THEN 0 ELSE 1 END AS wk, (hash(i, 'h') % 2147483647)::BIGINT AS hh,
                   (hash(i, 'c') % 2147483647)::BIGINT AS hc,
                   (hash(i, 't') % 2147483647)::BIGINT AS ht, (hash(i, 'd') % 2147483647)::BIGINT AS hd
            FROM range(0, {runs + int(runs * 0.9)}) t(i)),
        b AS (
            SELECT i, wk, 1 + hh % {hosts} AS hi,
                   {tags}[1 + ht % {len(TAGS)}] AS tag,
                   TIMESTAMP '{week_start}' - INTERVAL (7 * wk) DAY + INTERVAL (hd % 604800) SECOND AS t0,
                   hc FROM base)
        SELECT i, wk, printf('h%03d', hi) AS host, tag,
               CASE WHEN hi % 7 = 0 AND (tag LIKE '%cuda11.8%' OR tag LIKE '%cuda12%') AND hc % 10 < 8
                         THEN 'cuda_driver_too_old'
                    ELSE {cats}[1 + hc % {len(CATS)}] END AS category,
               t0, hc FROM b""")
    con.execute(f"""
        INSERT INTO runs (run_id, host, kind, image, image_tag, exit_code, oom_killed, started_at, finished_at,
                          labels, runtime_api, driver_api, first_ts, last_ts, n_events)
        SELECT printf('%s/docker/containers/%016x', host, i), host, 'docker',
               'paddlepaddle/paddle:' || tag, tag, CASE WHEN category = 'no_failure' THEN 0 ELSE 1 END,
               category = 'host_oom', t0,
               t0 + INTERVAL (CASE WHEN category = 'no_failure' THEN 3600 + hc % 30000
                                   WHEN category IN ('gpu_oom', 'host_oom', 'distributed_comm_failure', 'disk_full')
                                   THEN 600 + hc % 20000 ELSE 5 + hc % 120 END) SECOND,
               ('{{"gpu_count": "' || (1 + hc % 8) || '", "team": "t' || (hc % 9) || '"}}')::JSON,
               nullif(regexp_extract(tag, 'cuda(\\d+\\.\\d+)', 1), ''), NULL, t0, t0, {events_per_run}
        FROM g""")
    n_tpl = 600
    con.execute(f"""
        INSERT INTO templates
        SELECT printf('T%05d', k), k, 'Error template ' || k || ': <*> failed with <NUM> <b>&amp;</b>',
               'Error template ' || k, 100, 1,
               TIMESTAMP '{week_start}' - INTERVAL (CASE WHEN k % 50 = 0 THEN 0 ELSE 30 END) DAY
                   + INTERVAL (k) MINUTE,
               TIMESTAMP '{week_start}', 'Error template ' || k || ': example', 1
        FROM range(0, {n_tpl}) t(k)""")
    con.execute("""INSERT INTO templates SELECT 'Tinfo', -1, 'epoch <NUM> loss <NUM>', 'epoch', 1, 1,
                   TIMESTAMP '2026-01-01', TIMESTAMP '2026-01-01', 'epoch 1 loss 0.5', 1""")
    con.execute("""INSERT INTO messages SELECT 'M' || substr(template_key, 2), template, template_key, count,
                   first_seen, last_seen, example, 1 FROM templates""")
    # events: failure-relevant ones (3 per failed run) + INFO lines; templates by category, some only in one week
    eventstore.append(con, f"""
        SELECT printf('%s/docker/containers/%016x', g.host, g.i) AS run_id, 'f' AS file_id, j AS line_no, 1 AS n_lines,
               g.t0 + INTERVAL (j) SECOND AS ts, 'stderr' AS stream,
               CASE WHEN fail THEN 'ERROR' ELSE 'INFO' END AS level,
               CASE WHEN fail AND j = {events_per_run - 2} THEN 'py_traceback' ELSE 'line' END AS kind,
               CASE WHEN fail THEN 'M' || printf('%05d', (list_position({cats}, g.category) * 20
                                          + (g.hc >> 8) % 12 + (CASE WHEN g.wk = 0 THEN 6 ELSE 0 END)) % {n_tpl})
                    ELSE 'Minfo' END AS message_key,
               CASE WHEN fail THEN 'Error ' || g.category || ' <script>x</script> \x1b[31m' || j ELSE 'epoch 1 loss 0.5' END
                   AS message,
               NULL AS text, 1 AS ingest_id
        FROM g, range(0, {events_per_run}) r(j),
             LATERAL (SELECT g.category <> 'no_failure' AND j >= {events_per_run - 3} AS fail)""", 1)
    con.execute(f"""
        INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category, model_confidence, model_version, evidence, alternatives, predicted_at)
        SELECT printf('%s/docker/containers/%016x', host, i), category,
               CASE WHEN hc % 11 = 0 THEN 0.35 ELSE 0.6 + (hc % 40) / 100.0 END,
               CASE WHEN hc % 3 = 0 THEN 'rule' WHEN hc % 3 = 1 THEN 'model' ELSE 'hybrid' END, NULL,
               CASE WHEN hc % 23 = 0 THEN {cats}[1 + (hc >> 4) % {len(CATS)}] ELSE category END,
               0.7, 'bench',
               CASE WHEN category = 'no_failure' THEN '[]'::JSON ELSE
                 ('[{{"line": {events_per_run - 1}, "text": "Error ' || category || ' <script>x</script>", '
                  || '"template_id": "T' || printf('%05d', (list_position({cats}, category) * 20 + (hc >> 8) % 12
                  + (CASE WHEN wk = 0 THEN 6 ELSE 0 END)) % {n_tpl}) || '"}}]')::JSON END,
               '[]'::JSON, now()
        FROM g""")
    con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50_000, help="runs in the reported week (>= 50,000 for the goal)")
    ap.add_argument("--events-per-run", type=int, default=12)
    ap.add_argument("--db", type=Path, default=None, help="reuse/keep the warehouse here")
    ap.add_argument("--out", type=Path, default=None, help="report folder (default: a temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="logml-bench-report-"))
    try:
        db = args.db or tmp / "bench.duckdb"
        if not db.exists():
            t = time.perf_counter()
            generate(db, args.runs, args.events_per_run)
            print(f"generated warehouse in {time.perf_counter() - t:.1f} s: {db}")
        con = store.connect(db, read_only=True)
        n = store.table_counts(con)
        t = time.perf_counter()
        rep = build_report(con, "2026-W48")
        built = time.perf_counter() - t
        con.close()
        paths = write_report(rep, args.out or tmp / "report")
        total = time.perf_counter() - t
        print(f"runs in warehouse: {n['runs']:,} (week 2026-W48: {rep['headline']['runs']['this']:,}), "
              f"events: {n['events']:,}")
        print(f"report: build {built:.2f} s + write {total - built:.2f} s = {total:.2f} s (goal < 10 s) -> {paths['html']}")
        fix = next((f["fix"] for c in rep["concentration"] for f in c.get("fixes", [])), None)
        print(f"top: {rep['ranking'][0]['category']} ({rep['ranking'][0]['runs']:,} runs); fix: {fix}")
        return 0 if total < 10 else 1
    finally:
        if not args.keep and args.db is None and args.out is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
