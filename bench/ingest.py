"""Ingest throughput vs plain Drain3, in one run, on a simulated corpus; the Dask engine beside it.

    .venv/bin/python bench/ingest.py [--lines 1000000] [--keep]
    .venv/bin/python bench/ingest.py --lines 1000000,10000000,30000000     # the scaling curve
    .venv/bin/python bench/ingest.py --lines 10000000 --engines local --repeat 3 --floor

Per size:
1. simulates a fleet big enough for --lines physical lines (cached under bench/out/),
2. runs `logml ingest` on it in a child process (fresh warehouse) per engine: local, and dask on a
   2-worker LocalCluster; reads its peak RSS and CPU seconds per stage (best of --repeat runs;
   this 2-core machine is shared, so every run's figure is printed too),
3. runs plain Drain3 (`TemplateMiner.add_log_message` per message, no masking, default
   settings) over the same header-stripped messages the ingest stored, in the same run,
4. prints bytes on disk per line of the new store (DuckDB catalog + Parquet event files), and for
   sizes up to --row-store-max the row store's (events as DuckDB rows, as before schema 2),
5. with --floor, the floor: the same files read and decoded (envelope.load/decode) and their
   bodies, timestamps and streams written to Parquet (zstd), nothing parsed, masked or mined.
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


def _fresh(db: Path) -> None:
    for suffix in ("", ".wal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(db.with_suffix(".events"), ignore_errors=True)


def _peak_rss_mb(usage) -> float:
    """This process's own peak RSS. Not ru_maxrss: Linux carries it across exec, so a child forked
    from this bench (which holds a corpus' Drain3 state by the larger sizes) inherits the parent's
    size. VmHWM belongs to the address space exec made."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return usage.ru_maxrss / 1024


def child(args) -> None:
    """In the child process: one ingest (or the floor), a JSON line of figures."""
    import resource
    sys.path.insert(0, str(ROOT))
    if args.child == "floor":
        out = floor(Path(args.source), Path(args.db))
    else:
        from pipeline.config import load_params
        from pipeline.ingest import ingest
        params = load_params()
        if args.child == "rows":
            params["paths"]["events"] = "duckdb"
        summary = ingest(args.source, args.db, params, engine="dask" if args.child == "dask" else "local")
        out = summary.as_dict()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["peak_rss_mb"] = _peak_rss_mb(usage)
    out["cpu_s"] = usage.ru_utime + usage.ru_stime
    out["helper_cpu_s"] = kids.ru_utime + kids.ru_stime   # mask helper / Dask workers
    print(json.dumps(out, default=str))


def floor(source: Path, db: Path) -> dict:
    """The unavoidable part: discover, read and decode every file the columnar path reads, write
    bodies, envelope timestamps and streams as Parquet (zstd), reading ahead in a thread as ingest
    does. No header parsing, no shapes, no masks, no mining, no DuckDB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline import envelope, sources
    from pipeline.ingest import _prefetched
    started = time.perf_counter()
    runs, _ = sources.discover(str(source))
    out_dir = db.with_suffix(".floor")
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)

    def batches():
        batch, size = [], 0
        for run in runs:
            for lf in run.files:
                p = envelope.Planned(run, lf, 0, 0)
                if envelope.eligible(lf) and envelope.load(p):
                    batch.append(p)
                    size += p.new_bytes
                if size >= 32 << 20:
                    yield envelope.decode(batch)
                    batch, size = [], 0
        if batch:
            yield envelope.decode(batch)

    lines = 0
    for k, b in enumerate(_prefetched(batches())):
        table = pa.table({"message": b.strings("body"), "env": b.strings("env"), "stream": b.stream})
        pq.write_table(table, out_dir / f"part-{k:05d}.parquet", compression="zstd", store_schema=False)
        lines += len(b)
    seconds = time.perf_counter() - started
    shutil.rmtree(out_dir, ignore_errors=True)
    return {"lines": lines, "seconds": seconds}


def run_child(kind: str, source: Path, db: Path) -> dict:
    _fresh(db)
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--source", str(source), "--db", str(db)],
                         check=True, capture_output=True, text=True, cwd=ROOT)
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


def disk_bytes(db: Path) -> int:
    files = [Path(f"{db}{s}") for s in ("", ".wal")] + list(db.with_suffix(".events").rglob("*"))
    return sum(f.stat().st_size for f in files if f.is_file())


def _cpu(s: dict) -> str:
    stages = ", ".join(f"{k} {v:.1f}" for k, v in s.get("cpu", {}).items() if k != "total")
    return f"CPU {s['cpu_s']:.1f} s ({stages})"


def bench(lines: int, engines: list[str], repeat: int, row_store: bool, with_floor: bool, keep: bool) -> list[dict]:
    t0 = time.perf_counter()
    source = corpus(lines)
    gen_s = time.perf_counter() - t0
    logs_mb = sum(f.stat().st_size for f in source.rglob("*") if f.is_file()) / 1e6
    db = OUT / "bench.duckdb"
    results = []
    drain = None
    for engine in engines:
        runs = [run_child(engine, source, db) for _ in range(repeat)]
        best = min(runs, key=lambda r: r["seconds"])
        per_line = None
        if engine == "local":   # Drain3 over what the (last) local run stored, and its size on disk
            per_line = disk_bytes(db) / best["lines"]
            drain = plain_drain3(db)
        rates = ", ".join(f"{r['lines'] / r['seconds']:,.0f}" for r in runs)
        results.append({"engine": engine, "best": best, "rates": rates, "bytes_per_line": per_line})
    print(f"corpus: {results[0]['best']['runs']} runs, {results[0]['best']['lines']:,} lines, {logs_mb:,.0f} MB of logs "
          f"({gen_s:.1f} s to simulate or load)")
    n_messages, drain_s = drain if drain else (0, 0.0)
    drain_rate = n_messages / drain_s if drain_s else 0.0
    rows_out = []
    for r in results:
        s = r["best"]
        rate = s["lines"] / s["seconds"]
        extra = f", {s['files_distributed']} by workers" if r["engine"] == "dask" else ""
        print(f"logml ingest {r['engine']:<5}: {s['lines']:>12,} lines in {s['seconds']:7.2f} s = {rate:>11,.0f} lines/s "
              f"(runs: {r['rates']}; {s['files_columnar']}/{s['files_read']} files columnar{extra}; "
              f"peak RSS {s['peak_rss_mb']:.0f} MB; {_cpu(s)}, helpers {s['helper_cpu_s']:.1f} s)")
        rows_out.append({"lines": s["lines"], "engine": r["engine"], "seconds": s["seconds"], "lines_per_s": rate,
                         "ratio": rate / drain_rate if drain_rate else None, "peak_rss_mb": s["peak_rss_mb"],
                         "cpu_s": s["cpu_s"], "bytes_per_line": r["bytes_per_line"]})
    if drain_rate:
        print(f"plain Drain3      : {n_messages:>12,} msgs  in {drain_s:7.2f} s = {drain_rate:>11,.0f} msgs/s "
              f"(add_log_message per message, no masking)")
        for r in rows_out:
            print(f"ratio {r['engine']:<11}: {r['ratio']:.2f}x  (ingest lines/s over Drain3 messages/s)")
    local = next((r for r in rows_out if r["engine"] == "local"), None)
    if local:
        print(f"bytes on disk     : {local['bytes_per_line']:.1f} per line (DuckDB catalog + Parquet events; "
              f"the logs: {logs_mb * 1e6 / local['lines']:.0f})")
    if row_store:
        rows = run_child("rows", source, db)
        per_line = disk_bytes(db) / rows["lines"]
        print(f"row store         : {per_line:.1f} bytes per line on disk (events as DuckDB rows); "
              f"{rows['lines'] / rows['seconds']:,.0f} lines/s, peak RSS {rows['peak_rss_mb']:.0f} MB")
        if local:
            local["row_store_bytes_per_line"] = per_line
    if with_floor:
        f = run_child("floor", source, db)
        rate = f["lines"] / f["seconds"]
        print(f"floor             : {f['lines']:,} lines in {f['seconds']:.2f} s = {rate:,.0f} lines/s (read, decode, "
              f"write bodies as Parquet; nothing parsed); CPU {f['cpu_s']:.1f} s; ingest is at "
              f"{local['lines_per_s'] / rate:.0%} of it" if local else "")
        if local:
            local["floor_lines_per_s"] = rate
    if not keep:
        _fresh(db)
    return rows_out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", default="1000000",
                        help="corpus size in lines; a comma-separated list gives a scaling curve (1000000,10000000,30000000)")
    parser.add_argument("--engines", default="local,dask", help="local and/or dask (a 2-worker LocalCluster)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per engine and size (the best is kept)")
    parser.add_argument("--row-store-max", type=int, default=1_000_000,
                        help="measure the row store (events as DuckDB rows) up to this many lines")
    parser.add_argument("--floor", action="store_true", help="also measure the floor (read, decode, write)")
    parser.add_argument("--keep", action="store_true", help="keep the warehouse of the last size")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(ROOT))
    OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(x) for x in args.lines.split(",")]
    engines = [e for e in args.engines.split(",") if e]
    results = [r for n in sizes for r in bench(n, engines, args.repeat, n <= args.row_store_max, args.floor,
                                               args.keep)]
    if len(results) > 1:
        print("\nscaling curve:")
        print(f"{'lines':>12} {'engine':>6} {'seconds':>8} {'lines/s':>10} {'ratio':>6} {'peak RSS MB':>11} "
              f"{'CPU s':>6} {'bytes/line':>10}")
        for r in results:
            ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
            per_line = f"{r['bytes_per_line']:.1f}" if r["bytes_per_line"] else "-"
            print(f"{r['lines']:>12,} {r['engine']:>6} {r['seconds']:>8.1f} {r['lines_per_s']:>10,.0f} {ratio:>6} "
                  f"{r['peak_rss_mb']:>11.0f} {r['cpu_s']:>6.1f} {per_line:>10}")


if __name__ == "__main__":
    main()
