"""Ingest throughput vs plain Drain3, in one run, on a simulated corpus.

    .venv/bin/python bench/ingest.py [--lines 1000000] [--keep]
    .venv/bin/python bench/ingest.py --lines 1000000,10000000,30000000     # the scaling curve

1. simulates a fleet big enough for --lines physical lines (cached under bench/out/),
2. runs `logml ingest` on it in a child process (fresh warehouse) and reads its peak RSS,
3. runs plain Drain3 (`TemplateMiner.add_log_message` per message, no masking, default
   settings) over the same header-stripped messages the ingest stored,
and prints lines/s for both, their ratio and the ingest's peak RSS (per size: a scaling curve).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"


def corpus(lines: int) -> Path:
    from pipeline.simulate import simulate
    target = OUT / f"corpus-{lines}"
    marker = target / ".done"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    # ~1,000 lines a run at scale 4: pick the host count that yields the requested lines.
    probe = simulate(OUT / "probe", hosts=4, days=2, seed=11, scale_lines=4.0)
    shutil.rmtree(OUT / "probe")
    per_host = probe.lines / 4
    hosts = max(4, int(lines / per_host) + 1)
    summary = simulate(target, hosts=hosts, days=2, seed=11, scale_lines=4.0)
    while summary.lines < lines:  # host mixes differ: grow until the corpus is big enough
        hosts = int(hosts * lines / summary.lines) + 1
        summary = simulate(target, hosts=hosts, days=2, seed=11, scale_lines=4.0)
    marker.write_text(json.dumps({"runs": summary.runs, "lines": summary.lines}))
    return target


def ingest_child(source: Path, db: Path) -> dict:
    code = (
        "import json,resource,sys;from pipeline.ingest import ingest;"
        f"s=ingest({str(source)!r},{str(db)!r});"
        "d=s.as_dict();d['peak_rss_mb']=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024;"
        "print(json.dumps(d))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def plain_drain3(db: Path) -> tuple[int, float]:
    """Plain Drain3 (default config, no masking, add_log_message per message) over the messages the
    ingest stored, in log order, streamed from the warehouse (memory stays flat at 30M lines)."""
    import duckdb
    from drain3 import TemplateMiner
    from drain3.template_miner_config import TemplateMinerConfig
    config = TemplateMinerConfig()
    config.profiling_enabled = False
    miner = TemplateMiner(config=config)
    n, spent = 0, 0.0
    with duckdb.connect(str(db), read_only=True) as con:
        result = con.execute("SELECT message FROM events ORDER BY file_id, line_no")
        while rows := result.fetchmany(100_000):
            started = time.perf_counter()
            for (msg,) in rows:
                miner.add_log_message(msg)
            spent += time.perf_counter() - started
            n += len(rows)
    return n, spent


def bench(lines: int, keep: bool) -> dict:
    t0 = time.perf_counter()
    source = corpus(lines)
    gen_s = time.perf_counter() - t0
    db = OUT / "bench.duckdb"
    for suffix in ("", ".wal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    summary = ingest_child(source, db)
    n_messages, drain_s = plain_drain3(db)
    ingest_rate = summary["lines"] / summary["seconds"]
    drain_rate = n_messages / drain_s
    print(f"corpus: {summary['runs']} runs, {summary['lines']:,} lines, "
          f"{sum(f.stat().st_size for f in source.rglob('*') if f.is_file()) / 1e6:,.0f} MB "
          f"({gen_s:.1f} s to simulate or load)")
    print(f"logml ingest : {summary['lines']:>12,} lines in {summary['seconds']:7.2f} s = {ingest_rate:>11,.0f} lines/s "
          f"(events {summary['events']:,}, templates {summary['templates']}, "
          f"{summary['files_columnar']}/{summary['files_read']} files columnar, peak RSS {summary['peak_rss_mb']:.0f} MB)")
    print(f"plain Drain3 : {n_messages:>12,} msgs  in {drain_s:7.2f} s = {drain_rate:>11,.0f} msgs/s "
          f"(add_log_message per message, no masking)")
    print(f"ratio        : {ingest_rate / drain_rate:.2f}x  (ingest lines/s over Drain3 messages/s)")
    if not keep:
        for suffix in ("", ".wal"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    return {"lines": summary["lines"], "seconds": summary["seconds"], "lines_per_s": ingest_rate,
            "drain3_msgs_per_s": drain_rate, "ratio": ingest_rate / drain_rate, "peak_rss_mb": summary["peak_rss_mb"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", default="1000000",
                        help="corpus size in lines; a comma-separated list gives a scaling curve (1000000,10000000,30000000)")
    parser.add_argument("--keep", action="store_true", help="keep the warehouse of the last size")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(x) for x in args.lines.split(",")]
    results = [bench(n, args.keep) for n in sizes]
    if len(results) > 1:
        print("\nscaling curve:")
        print(f"{'lines':>12} {'seconds':>8} {'lines/s':>10} {'Drain3 msg/s':>12} {'ratio':>6} {'peak RSS MB':>11}")
        for r in results:
            print(f"{r['lines']:>12,} {r['seconds']:>8.1f} {r['lines_per_s']:>10,.0f} {r['drain3_msgs_per_s']:>12,.0f} "
                  f"{r['ratio']:>6.2f} {r['peak_rss_mb']:>11.0f}")


if __name__ == "__main__":
    main()
