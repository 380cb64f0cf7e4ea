"""Ingest: sources -> normalize -> mask/dedupe -> DuckDB, then Drain3 over new distinct messages.

Safety model (why the order is what it is):
- Phase 1 reads files chunk by chunk. Each chunk's events, message counts, problems, run stats and
  the file's new byte offset commit in ONE transaction, so a kill -9 loses at most the chunk in
  flight and a rerun resumes at the committed offset: nothing lost, nothing duplicated.
- Phase 2 mines only messages that have no template yet, distinct and sorted, in one transaction.
  Mining therefore sees the same input in the same order whether the ingest ran through or was
  interrupted and rerun, so the warehouse ends up identical.
- A file is recognised by the hash of its first bytes, not its name: a rotated `x-json.log` that
  became `x-json.log.1` (or `.1.gz`) resumes where it was, and only new lines are added.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import duckdb
import fsspec
import pandas as pd

from pipeline import columnar, envelope, eventstore, sources, store
from pipeline.config import load_params
from pipeline.mining import MaskAhead, MaskCache, Template, TemplateMiner
from pipeline.normalize import Normalizer

HEAD_BYTES = 1024

# Facts Paddle prints about itself; first match per run wins.
FACTS = {
    "driver_api": ("Driver API Version", re.compile(r"Driver API Version:\s*([\d.]+)")),
    "runtime_api": ("Runtime API Version", re.compile(r"Runtime API Version:\s*([\d.]+)")),
    "compute_capability": ("Compute Capability", re.compile(r"Compute Capability:\s*([\d.]+)")),
    # "paddle version: 2.6.2", "paddle.__version__ 2.6.2", "paddlepaddle-gpu==2.6.2", pip's
    # "paddlepaddle-gpu-2.6.2", "PaddlePaddle 3.0.0", an image "paddlepaddle/paddle:2.6.1-gpu"; not x2paddle's
    "paddle_version": ("addle", re.compile(
        r"(?i)(?:^|[^\w-])paddle(?:paddle)?(?:[-_]gpu)?(?:\s+inference)?(?:\s+version|\.__version__|==|-|\s*:|\s+)"
        r"\s*[:=]?\s*v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d*)?)")),
}


@dataclass
class IngestSummary:
    ingest_id: int
    source: str
    runs: int = 0
    new_runs: int = 0
    grown_runs: int = 0          # runs known before whose logs grew
    files_read: int = 0
    files_skipped: int = 0
    files_columnar: int = 0      # of files_read: read by the columnar path (the rest line by line)
    files_distributed: int = 0   # of files_columnar: read, normalized and written by Dask workers
    lines: int = 0
    events: int = 0
    templates: int = 0
    new_templates: int = 0
    problems: int = 0
    seconds: float = 0.0
    problem_reasons: dict = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)   # CPU seconds per stage (each stage's own thread)

    def line(self, db: str) -> str:
        rate = self.lines / self.seconds if self.seconds else 0.0
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(self.problem_reasons.items()))
        problems = f"{self.problems} problems{f' ({reasons})' if reasons else ''}"
        if not self.files_read and not self.new_runs:  # a rerun should say so, not "ingested 20 runs"
            return (f"nothing new: {self.runs} runs known, {self.files_skipped} files unchanged, "
                    f"{self.templates} templates, {problems} in {self.seconds:.1f} s; warehouse {db}")
        return (f"ingested {self.runs} runs ({self.new_runs} new, {self.grown_runs} grown), {self.files_read} files read "
                f"({self.files_columnar} columnar, {self.files_skipped} unchanged), "
                f"{self.lines:,} lines -> {self.events:,} events, {self.templates} templates "
                f"({self.new_templates} new), {problems} in {self.seconds:.1f} s ({rate:,.0f} lines/s); "
                f"warehouse {db}")

    def as_dict(self) -> dict:
        return asdict(self)


class _Clock:
    """CPU seconds of each stage, measured in the thread that runs it (time.thread_time)."""

    def __init__(self, cpu: dict):
        self.cpu = cpu

    def __call__(self, stage: str):
        return _Timed(self.cpu, stage)

    def generator(self, stage: str, items):
        """Time a generator run in its own thread (the reader)."""
        spent = 0.0
        it = iter(items)
        while True:
            t = time.thread_time()
            try:
                item = next(it)
            except StopIteration:
                self.cpu[stage] = self.cpu.get(stage, 0.0) + spent + time.thread_time() - t
                return
            spent += time.thread_time() - t
            yield item


class _Timed:
    __slots__ = ("cpu", "stage", "t")

    def __init__(self, cpu, stage):
        self.cpu, self.stage = cpu, stage

    def __enter__(self):
        self.t = time.thread_time()

    def __exit__(self, *exc):
        self.cpu[self.stage] = self.cpu.get(self.stage, 0.0) + time.thread_time() - self.t


def size_of(logfile: sources.LogFile) -> int | None:
    if logfile.size is not None:  # stat-ed by discovery a moment ago
        return logfile.size
    try:
        fs, path = fsspec.core.url_to_fs(logfile.path)
        return fs.size(path)
    except (OSError, ValueError):
        return None


def _file_id(run_id: str, head_hash: str) -> str:
    return hashlib.sha1(f"{run_id}\0{head_hash}".encode()).hexdigest()[:16]


def _load_manifest(con) -> dict[str, list[dict]]:
    manifest: dict[str, list[dict]] = {}
    for file_id, run_id, head_hash, head_len, offset, lines_read, status, size in con.execute(
            "SELECT file_id, run_id, head_hash, head_len, offset_bytes, lines_read, status, size_bytes "
            "FROM files").fetchall():
        manifest.setdefault(run_id, []).append({
            "file_id": file_id, "head_hash": head_hash, "head_len": head_len, "offset": offset,
            "lines_read": lines_read, "status": status, "size": size})
    return manifest


def _find_manifest_row(rows, head: bytes):
    """The manifest row whose recorded head is a prefix of this file's head, if any."""
    for row in rows:
        if row["head_len"] <= len(head) and hashlib.sha1(head[:row["head_len"]]).hexdigest() == row["head_hash"]:
            return row
    return None


def _upsert_runs(con, runs: list[sources.Run], ingest_id: int) -> tuple[int, list[str]]:
    """Insert or refresh the runs found: (how many are new, the ids of those only registered before).
    A run an interrupted ingest registered and killed before any of its files was committed is new
    to this one: nothing of it was there (a summary after kill -9 must not say "0 new, 42 grown")."""
    if not runs:
        return 0, []
    frame = pd.DataFrame([{
        "run_id": r.run_id, "host": r.host, "kind": r.kind, "container_id": r.container_id,
        "name": r.name, "namespace": r.namespace, "pod": r.pod, "image": r.image,
        "image_tag": r.image_tag, "exit_code": r.exit_code, "oom_killed": r.oom_killed,
        "started_at": r.started_at, "finished_at": r.finished_at,
        "labels": json.dumps(r.labels or {}, sort_keys=True),
    } for r in runs])
    known = store.scalar(con, "SELECT count(*) FROM runs")
    con.register("new_runs", frame)
    registered_only = [r[0] for r in con.execute("""
        SELECT r.run_id FROM runs r JOIN new_runs n USING (run_id)
        WHERE r.first_ingest IN (SELECT ingest_id FROM ingests WHERE status IS DISTINCT FROM 'done')
          AND NOT EXISTS (SELECT 1 FROM files f WHERE f.run_id = r.run_id)""").fetchall()]
    con.execute("""
        INSERT INTO runs (run_id, host, kind, container_id, name, namespace, pod, image, image_tag,
                          exit_code, oom_killed, started_at, finished_at, labels, n_events,
                          first_ingest, last_ingest)
        SELECT run_id, host, kind, container_id, name, namespace, pod, image, image_tag,
               TRY_CAST(exit_code AS INTEGER), TRY_CAST(oom_killed AS BOOLEAN),
               TRY_CAST(started_at AS TIMESTAMP), TRY_CAST(finished_at AS TIMESTAMP),
               labels::JSON, 0, ?, ?
        FROM new_runs
        ON CONFLICT (run_id) DO UPDATE SET
            host = excluded.host, image = excluded.image, image_tag = excluded.image_tag,
            exit_code = excluded.exit_code, oom_killed = excluded.oom_killed,
            started_at = excluded.started_at, finished_at = excluded.finished_at,
            labels = excluded.labels, name = excluded.name
    """, [ingest_id, ingest_id])
    con.unregister("new_runs")
    return store.scalar(con, "SELECT count(*) FROM runs") - known + len(registered_only), registered_only


def _lighten(runs: list[sources.Run]) -> None:
    """The runs table has their metadata now: what reading needs is the run id, kind and end (a
    fleet's labels, images and names were a sixth of the ingest's memory at 30M lines)."""
    for run in runs:
        run.labels = {}
        run.image = run.image_tag = run.name = run.namespace = run.pod = run.pod_uid = None
        run.started_at = run.created_at = None


def _facts_sql(relation: str = "batch", flagged: bool = False) -> str:
    """Per run, the first value (in log order) of each fact Paddle printed, from the events relation:
    one scan picks the candidate lines (or the relation's `facts` flags do: the columnar path knows
    them per shape), a regex per fact runs on those only. One row per run, a column per fact."""
    needles = "facts" if flagged else " OR ".join(f"contains(message, '{needle}')" for needle, _ in FACTS.values())
    values = ", ".join(
        f"CASE WHEN contains(message, '{needle}') THEN rtrim(regexp_extract(message, '{pattern.pattern}', 1), '.') "
        f"END AS {name}" for name, (needle, pattern) in FACTS.items())
    firsts = ", ".join(f"arg_min({name}, seq) FILTER (WHERE {name} <> '') AS {name}" for name in FACTS)
    # old Paddle prints a compute capability "61" for 6.1
    return f"""
        WITH candidates AS (SELECT run_id, seq, {values} FROM {relation} WHERE {needles}),
             firsts AS (SELECT run_id, {firsts} FROM candidates GROUP BY run_id)
        SELECT * REPLACE (CASE WHEN length(compute_capability) = 2 AND NOT contains(compute_capability, '.')
                               THEN compute_capability[1] || '.' || compute_capability[2]
                               ELSE compute_capability END AS compute_capability)
        FROM firsts"""


def aggregate(con, relation: str = "batch", events=None) -> dict:
    """What a batch's commit needs from its events, as small Arrow tables: one row per run, file,
    message, level and kind (counts, lines, times, the smallest raw message), and the facts. Made
    where the events are (this process, or a Dask worker next to the file it wrote). A columnar
    batch (`events`, its Arrow table) is grouped by its dictionary codes, names joined after."""
    sums = ("count(*) AS n, min(line_no) AS first_line, max(line_no) AS last_line, min(ts) AS first_ts, "
            "max(ts) AS last_ts, min(message) AS example")
    if events is not None and "_k" in events.column_names:
        import pyarrow as pa
        codes = con.sql(f"SELECT _f, _k, _l, _kd, {sums} FROM {relation} GROUP BY ALL").to_arrow_table()
        names = {c: events.column(c).chunk(0).dictionary for c in ("run_id", "file_id", "message_key", "kind")}
        fine = pa.table({
            "run_id": names["run_id"].take(codes.column("_f")), "file_id": names["file_id"].take(codes.column("_f")),
            "message_key": names["message_key"].take(codes.column("_k")),
            "level": pa.array(columnar.LEVELS, pa.string()).take(codes.column("_l")),   # code 0: no level
            "kind": names["kind"].take(codes.column("_kd")),
            **{c: codes.column(c) for c in ("n", "first_line", "last_line", "first_ts", "last_ts", "example")}})
    else:
        fine = con.sql(f"SELECT run_id, file_id, message_key, level, kind, {sums} FROM {relation} GROUP BY ALL"
                       ).to_arrow_table()
    flagged = "facts" in [c for (c, *_) in con.sql(f"DESCRIBE {relation}").fetchall()]
    return {"fine": fine, "facts": con.sql(_facts_sql(relation, flagged)).to_arrow_table()}


FILE_COLUMNS = ["file_id", "run_id", "path", "fmt", "rotation", "head_hash", "head_len", "offset_bytes",
                "lines_read", "events", "status", "first_ingest", "last_ingest", "size_bytes", "mtime"]


def upsert_files(con, rows: list[dict], ingest_id: int) -> None:
    if not rows:
        return
    files = pd.DataFrame(rows).assign(first_ingest=ingest_id, last_ingest=ingest_id)
    files["mtime"] = pd.to_datetime(files.get("mtime"), unit="s", errors="coerce")
    files = files[FILE_COLUMNS]
    con.register("batch_files", files)
    try:
        con.execute("""
            INSERT INTO files SELECT * FROM batch_files
            ON CONFLICT (file_id) DO UPDATE SET
                path = excluded.path, rotation = excluded.rotation, head_hash = excluded.head_hash,
                head_len = excluded.head_len, offset_bytes = excluded.offset_bytes,
                lines_read = excluded.lines_read, events = files.events + excluded.events,
                status = excluded.status, last_ingest = excluded.last_ingest,
                size_bytes = excluded.size_bytes,
                -- as first seen: a log that grows later (an append) must not move its run to a later week
                mtime = coalesce(files.mtime, excluded.mtime)""")
    finally:
        con.unregister("batch_files")


def write_batch(con, ingest_id: int, masked_of: dict[str, str], sink: eventstore.Sink,
                written=None, agg: dict | None = None) -> dict[str, int]:
    """A batch -> its event file (or rows), message counts, messages, runs, inside the caller's
    transaction; returns its events per file. The events are relation `batch` (events columns +
    seq, in log order), or were written already (`written`, what sink.write made of them) and
    summed up (`agg`, what aggregate() made of them). Both ingest paths and both engines end here."""
    import pyarrow as pa
    if agg is None:
        agg = aggregate(con)
    if written is None:
        written = sink.write(con.sql("SELECT * FROM batch").to_arrow_table())
    masked = pa.table({"message_key": pa.array(list(masked_of), pa.string()),
                       "masked": pa.array(list(masked_of.values()), pa.string())})
    con.register("batch_masked", masked)
    con.register("batch_agg", agg["fine"])
    con.register("batch_facts", agg["facts"])
    try:
        sink.register(con, written)
        eventstore.add_counts(con, """(SELECT run_id, message_key, level, kind, sum(n) AS n, min(first_line) AS first_line,
                                              max(last_line) AS last_line FROM batch_agg GROUP BY ALL)""")
        con.execute("""
            INSERT INTO messages
            SELECT b.message_key, any_value(m.masked), NULL, sum(b.n), min(b.first_ts), max(b.last_ts),
                   min(b.example), ?
            FROM batch_agg b JOIN batch_masked m USING (message_key) GROUP BY b.message_key
            ON CONFLICT (message_key) DO UPDATE SET
                count = messages.count + excluded.count,
                first_seen = least(messages.first_seen, excluded.first_seen),
                last_seen = greatest(messages.last_seen, excluded.last_seen),
                example = least(messages.example, excluded.example)
        """, [ingest_id])
        con.execute("""
            UPDATE runs SET n_events = n_events + s.n, first_ts = least(runs.first_ts, s.first_ts),
                            last_ts = greatest(runs.last_ts, s.last_ts), last_ingest = ?
            FROM (SELECT run_id, sum(n) n, min(first_ts) first_ts, max(last_ts) last_ts FROM batch_agg
                  GROUP BY run_id) s
            WHERE runs.run_id = s.run_id""", [ingest_id])
        con.execute(f"""
            UPDATE runs SET {', '.join(f'{k} = coalesce(runs.{k}, f.{k})' for k in FACTS)}
            FROM batch_facts f WHERE runs.run_id = f.run_id""")
        return {f: int(n) for f, n in con.execute("SELECT file_id, sum(n) FROM batch_agg GROUP BY file_id").fetchall()}
    finally:
        for name in ("batch_masked", "batch_agg", "batch_facts"):
            # an aborted transaction refuses this too: the error that aborted it is the one to raise
            with contextlib.suppress(duckdb.Error):
                con.unregister(name)


class BatchWriter:
    """Buffers events, file offsets and problems of many files; commits them in ONE transaction.

    A transaction per file would cost more than reading the file for the typical small container
    log; a batch bounded by line count keeps memory bounded and the work lost on a crash small.
    """

    def __init__(self, con, ingest_id: int, flush_events: int, sink: eventstore.Sink):
        self.con, self.ingest_id, self.flush_events, self.sink = con, ingest_id, flush_events, sink
        self.parts: list[FilePart] = []
        self.masked: dict[str, str] = {}
        self.files: dict[str, dict] = {}
        self.problems: list[list] = []
        self.buffered = 0

    def add(self, part: FilePart) -> None:
        """Events are Normalizer rows (no per-file DataFrame: small runs dominate fleets)."""
        if part.events:
            self.parts.append(part)
            self.buffered += len(part.events)
            self.masked.update(part.masked_of)
        state = self.files.get(part.file_id)
        added = len(part.events) + (state["events"] if state else 0)
        self.files[part.file_id] = {**part.state, "file_id": part.file_id, "run_id": part.run_id, "events": added}
        self.problems.extend([self.ingest_id, part.run_id, p.path, p.line, p.reason, p.detail[:500]]
                             for p in part.problems)
        if self.buffered >= self.flush_events:
            self.flush()

    def flush(self) -> None:
        if not (self.parts or self.files or self.problems):
            return
        with store.transaction(self.con) as con:
            if self.parts:
                self._stage(self._columns())
                write_batch(con, self.ingest_id, self.masked, self.sink)
            if self.problems:
                con.executemany("INSERT INTO problems VALUES (?, ?, ?, ?, ?, ?)", self.problems)
            upsert_files(con, list(self.files.values()), self.ingest_id)
        self.parts, self.files, self.problems, self.masked, self.buffered = [], {}, [], {}, 0

    def _columns(self) -> dict[str, list]:
        cols: dict[str, list] = {k: [] for k in ("run_id", "file_id", "line_no", "n_lines", "ts", "stream",
                                                  "level", "kind", "message", "text", "message_key")}
        for part in self.parts:
            rows = part.events
            cols["run_id"].extend([part.run_id] * len(rows))
            cols["file_id"].extend([part.file_id] * len(rows))
            cols["message_key"].extend(part.keys)
            fields = list(zip(*rows))
            for i, name in enumerate(("line_no", "n_lines", "ts", "stream", "level", "kind", "message", "text"),
                                     start=2):
                cols[name].extend(fields[i])
        # a single-line event's text is its message: store it once
        cols["text"] = [t if t != m else None for t, m in zip(cols["text"], cols["message"])]
        return cols

    def _stage(self, cols: dict[str, list]) -> None:
        import pyarrow as pa
        frame = pa.table(cols)
        self.con.register("batch_events", frame)
        try:
            self.con.execute("""
                CREATE OR REPLACE TEMP TABLE batch AS
                SELECT run_id, file_id, line_no, n_lines, TRY_CAST(ts AS TIMESTAMP) AS ts, stream, level,
                       kind, message_key, message, text, ? AS ingest_id, row_number() OVER () AS seq
                FROM batch_events""", [self.ingest_id])
        finally:
            self.con.unregister("batch_events")


@dataclass
class FilePart:
    """What reading one chunk of one file produced: everything the writer commits together."""
    run_id: str
    file_id: str
    events: list[tuple]          # Normalizer rows
    keys: list[str]              # message key of each event
    masked_of: dict[str, str]    # message key -> masked message, for the keys in `keys`
    state: dict                  # the file's manifest row after this part
    problems: list[sources.Problem]
    lines: int = 0               # physical lines this part consumed
    skipped: bool = False        # the file was unchanged: nothing to commit


def plan_file(run: sources.Run, logfile: sources.LogFile, manifest_rows, head: bytes):
    """What is new in a file: (file_id, offset, lines_read, state, size), or the file_id of an
    unchanged file (nothing to read). `head` is the file's first HEAD_BYTES (decompressed)."""
    row = _find_manifest_row(manifest_rows, head)
    size = size_of(logfile)
    if row and (row["status"] == "complete" or (size is not None and size == row["size"])):
        return row["file_id"]
    head = head[:HEAD_BYTES]
    head_hash = hashlib.sha1(head).hexdigest()
    if row:
        file_id, offset, lines_read = row["file_id"], row["offset"], row["lines_read"]
    else:
        file_id, offset, lines_read = _file_id(run.run_id, head_hash), 0, 0
    state = {"path": logfile.path, "fmt": logfile.fmt, "rotation": logfile.rotation,
             "head_hash": head_hash, "head_len": len(head), "size_bytes": None, "mtime": logfile.mtime}
    return file_id, offset, lines_read, state, size


def read_file(run: sources.Run, logfile: sources.LogFile, manifest_rows, chunk_lines: int,
              masks: MaskCache):
    """Read what is new in one file as FileParts. Pure: no warehouse access, so the same code runs
    in this process (local engine) or on a Dask worker."""
    plan = plan_file(run, logfile, manifest_rows, sources.read_head(logfile, HEAD_BYTES))
    if isinstance(plan, str):
        yield FilePart(run.run_id, plan, [], [], {}, {}, [], skipped=True)
        return  # fully read before, or unchanged since the last attempt
    file_id, offset, lines_read, state, size = plan
    normalizer = Normalizer()
    pending_problems: list[sources.Problem] = []
    committed_offset, committed_lines = offset, lines_read
    resume_offset, resume_lines = offset, lines_read
    reported_lines = lines_read

    def part(events, file_state, problems, lines_now):
        nonlocal reported_lines
        keys, masked_of = masks.lookup([e[8] for e in events])
        added, reported_lines = max(0, lines_now - reported_lines), max(reported_lines, lines_now)
        return FilePart(run.run_id, file_id, events, keys, masked_of, file_state, problems, added)

    # A live file of a container that is still running may end in a line being written: leave it.
    still_running = logfile.rotation == 0 and run.kind == "docker" and run.finished_at is None
    for chunk in sources.read_chunks(logfile, start_offset=offset, start_line=lines_read,
                                     chunk_lines=chunk_lines, emit_unterminated=not still_running):
        resume_offset, resume_lines = chunk.resume_offset, chunk.resume_line
        events, n_pending = normalizer.feed_rows(chunk)
        pending_problems.extend(chunk.problems)
        done = len(chunk.lines) - n_pending
        if done > 0:
            committed_offset, committed_lines = chunk.end_offsets[done - 1], chunk.end_lines[done - 1]
        # Problems of lines still carried wait for the commit that includes those lines.
        ready = [p for p in pending_problems if p.line is not None and p.line <= committed_lines]
        pending_problems = [p for p in pending_problems if not (p.line is not None and p.line <= committed_lines)]
        yield part(events, {**state, "offset_bytes": committed_offset, "lines_read": committed_lines,
                            "status": "partial"}, ready, committed_lines)
    # End of the file as it is now: flush the open block, record file-level problems.
    tail = normalizer.flush_rows()
    # resume_* of the last chunk also steps past trailing malformed lines, so they are reported once.
    final_offset, final_lines = max(committed_offset, resume_offset), max(committed_lines, resume_lines)
    # Rotated and compressed files never grow again; a truncated one is retried when it changes.
    truncated = any(p.reason.startswith("truncated") for p in pending_problems)
    status = "complete" if (logfile.compressed or logfile.rotation > 0) and not truncated else "open"
    # The size marks the file as fully read, so only this final state records it.
    yield part(tail, {**state, "offset_bytes": final_offset, "lines_read": final_lines, "status": status,
                      "size_bytes": size}, pending_problems, final_lines)


def _commit_part(writer: BatchWriter, part: FilePart, summary: IngestSummary) -> None:
    if part.skipped:
        summary.files_skipped += 1
        return
    writer.add(part)
    summary.events += len(part.events)
    summary.lines += part.lines
    _count_problems(summary, part.problems)
    if part.state.get("status") != "partial":
        summary.files_read += 1


def _ingest_on_dask(files, manifest, params, con, writer: BatchWriter, summary: IngestSummary, on_file,
                    scheduler: str | None) -> None:
    """The Dask engine (pipeline/distributed.py): workers read, normalize and write event files;
    this process keys messages with the one mask cache and commits in file order."""
    from dask.distributed import Client, LocalCluster

    from pipeline import distributed
    cluster = None if scheduler else LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                                  dashboard_address=None)
    masks, _ = caches(params)

    def seen(run, logfile):
        if on_file:
            on_file(run, logfile)

    def on_prepared(files_):
        for p in files_:
            seen(p.run, p.logfile)

    def on_parts(run, logfile, parts):
        seen(run, logfile)
        for part in parts:
            _commit_part(writer, part, summary)

    def on_skip(run, logfile):
        seen(run, logfile)
        summary.files_skipped += 1

    def commit(files_, bad, written, agg, masked_of, bad_parts):
        _commit_columnar(con, summary.ingest_id, files_, None, masked_of, bad, written, summary, writer.sink, agg)
        summary.files_distributed += len(files_) - len(bad)
        for part in bad_parts:
            _commit_part(writer, part, summary)

    with Client(scheduler or cluster) as client:
        try:
            distributed.run(files, manifest, params, client, masks, writer.sink, on_prepared, on_parts, on_skip,
                            commit)
        finally:
            if cluster is not None:
                cluster.close()


def _work_items(files, manifest, params):
    """In file order: ("skip", run, logfile) for an unchanged file, ("file", run, logfile) for one to
    read line by line, ("batch", Batch) for well-formed files read and decoded together.
    Order is kept (a batch is cut before a line-by-line file): the mask cache keeps the first raw
    form of each message, so both paths must meet messages in log order."""
    cap = int(params["ingest"].get("max_line_bytes", sources.MAX_LINE_BYTES))
    use_columnar = bool(params["ingest"].get("columnar", True))
    batch_bytes = int(params["ingest"].get("batch_bytes", columnar.BATCH_BYTES))
    batch: list[envelope.Planned] = []
    buffer = bytearray()   # the batch's bytes, each file's appended as it is read (no second copy)
    for run, logfile in files:
        planned = None
        if use_columnar and envelope.eligible(logfile):
            rows = manifest.get(run.run_id, ())
            planned = envelope.Planned(run, logfile, 0, 0)
            if rows:  # a known run: is this file new, grown or unchanged?
                plan = plan_file(run, logfile, rows, sources.read_head(logfile, HEAD_BYTES))
                if isinstance(plan, str):
                    yield "skip", run, logfile
                    continue
                planned.file_id, planned.offset, planned.lines_read, planned.state, _ = plan
            if not envelope.load(planned):
                planned = None
            elif planned.file_id is None:
                planned.file_id, _, _, planned.state, _ = plan_file(run, logfile, (), planned.data[:HEAD_BYTES])
        if planned is None:
            if batch:
                yield "batch", envelope.decode(batch, cap, buffer)
                batch, buffer = [], bytearray()
            yield "file", run, logfile
            continue
        batch.append(planned)
        buffer += planned.data
        planned.data = b""
        if len(buffer) >= batch_bytes:
            yield "batch", envelope.decode(batch, cap, buffer)
            batch, buffer = [], bytearray()
    if batch:
        yield "batch", envelope.decode(batch, cap, buffer)


def _prefetched(items):
    """Run a generator in a thread, one item ahead: files are read and decoded (I/O, numpy, DuckDB
    on its own connection: little GIL) while this thread normalizes the batch before. The next
    item is made only once this one is taken: two batches, not three, are in memory here."""
    import queue
    import threading
    q: queue.Queue = queue.Queue(maxsize=1)
    taken = threading.Semaphore(0)
    done = object()
    stop = threading.Event()

    def run():
        try:
            for item in items:
                if stop.is_set():
                    return
                q.put(item)
                taken.acquire()
            q.put(done)
        except BaseException as exc:  # handed to the consumer, raised there
            q.put(exc)

    thread = threading.Thread(target=run, name="logml-read", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            taken.release()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting to hand an item over
            taken.release()
            try:
                q.get_nowait()
            except queue.Empty:
                pass
            thread.join(0.05)


def _consumer(con, manifest, params, writer: BatchWriter, summary: IngestSummary, on_file, clock=None):
    """Takes work items (see _work_items) in file order: normalizes here, and hands every warehouse
    write, in the same order, to the committer thread."""
    import duckdb
    chunk_lines = int(params["ingest"]["chunk_lines"])
    masks, shapes = caches(params)
    ahead = MaskAhead(min_batch=int(params["ingest"].get("mask_ahead_min", 10000)))
    clock = clock or _Clock({})
    committer = _Committer()
    # the normalizer's own DuckDB (casts only): the warehouse connection is the committer's
    private = duckdb.connect(config={"threads": 1, "memory_limit": "256MB"})

    def commit_part(part):
        committer.submit(lambda: _commit_part(writer, part, summary))

    def line_by_line(run, logfile):
        for part in _timed(clock, "line_by_line", read_file(run, logfile, manifest.get(run.run_id, ()), chunk_lines,
                                                              masks)):
            commit_part(part)

    def columnar_batch(batch: envelope.Batch) -> None:
        with clock("normalize"):
            events, masked_of, bad = columnar.normalize_batch(private, batch, chunk_lines, masks, shapes,
                                                              summary.ingest_id, ahead)
        # bad files are read line by line now, before the next batch meets the mask cache, and
        # committed right after this batch: messages are met, and transactions made, in file order
        with clock("line_by_line"):
            parts = [part for i in bad for part in read_file(batch.files[i].run, batch.files[i].logfile,
                                                             manifest.get(batch.files[i].run.run_id, ()),
                                                             chunk_lines, masks)]

        def job():
            written = writer.sink.write(events)
            with clock("commit"):
                _commit_columnar(con, summary.ingest_id, batch.files, events, masked_of, set(bad), written,
                                 summary, writer.sink)
                for part in parts:
                    _commit_part(writer, part, summary)
        committer.submit(job)

    def consume(items) -> None:
        try:
            for kind, *item in items:
                if kind == "batch":
                    batch = item[0]
                    if on_file:
                        for p in batch.files:
                            on_file(p.run, p.logfile)
                    columnar_batch(batch)
                    continue
                run, logfile = item[:2]
                if on_file:
                    on_file(run, logfile)
                if kind == "skip":
                    summary.files_skipped += 1
                elif kind == "parts":
                    for part in item[2]:
                        commit_part(part)
                else:
                    line_by_line(run, logfile)
            committer.submit(writer.flush)
            committer.drain()
        finally:
            committer.close()
            ahead.close()
            private.close()
    return consume


def caches(params) -> tuple[MaskCache, columnar.ShapeCache]:
    """The mask and shape caches, bounded: at 30M lines (200k raw forms, 200k shapes) they were a
    fifth of the peak RSS, and they keep growing with a fleet; what they forget costs recomputation,
    never a different result."""
    ingest = params["ingest"]
    return (MaskCache(max_size=int(ingest.get("mask_cache", 120_000))),
            columnar.ShapeCache(max_size=int(ingest.get("shape_cache", 100_000))))


def _timed(clock, stage: str, items):
    """A generator's work timed in this thread (its consumer's work is not)."""
    it = iter(items)
    while True:
        with clock(stage):
            item = next(it, _DONE)
        if item is _DONE:
            return
        yield item


_DONE = object()


class _Committer:
    """Every warehouse write of the local engine, in one thread, in the order submitted: while it
    writes batch n's event file and commits it, this thread normalizes batch n+1 (DuckDB and
    pyarrow's writer leave the GIL). A bounded queue keeps memory bounded; an error stops the
    writes that follow and is raised in the submitting thread (as a kill would: nothing partial)."""

    def __init__(self):
        import queue
        import threading
        self.q: queue.Queue = queue.Queue()
        self.free = threading.Semaphore(1)   # one job at a time in here: one batch in memory
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="logml-commit", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            job = self.q.get()
            try:
                if job is None:
                    return
                if self.error is None:
                    job()
            except BaseException as exc:  # handed to the submitter
                self.error = exc
            finally:
                self.free.release()
                self.q.task_done()

    def _check(self) -> None:
        if self.error is not None:
            raise self.error

    def submit(self, job) -> None:
        self.free.acquire()
        if self.error is not None:
            self.free.release()   # or close() would wait forever for it, and the error would never be seen
            raise self.error
        self.q.put(job)

    def drain(self) -> None:
        self.q.join()
        self._check()

    def close(self) -> None:
        self.free.acquire()
        self.q.put(None)
        self.thread.join()


def _commit_columnar(con, ingest_id: int, files: list[envelope.Planned], events, masked_of: dict, bad: set,
                     written, summary: IngestSummary, sink: eventstore.Sink, agg: dict | None = None) -> None:
    """A normalized batch, its file written, in one transaction (its events as Arrow, or summed up
    already in `agg` where they were made)."""
    good = [p for i, p in enumerate(files) if i not in bad]
    con.execute("DROP TABLE IF EXISTS batch")
    if events is not None:
        con.register("batch", events)
    try:
        if agg is None and events is not None:
            agg = aggregate(con, "batch", events)
        with store.transaction(con):
            counts = write_batch(con, ingest_id, masked_of, sink, written, agg)
            rows = []
            for p in good:
                status = "complete" if p.logfile.compressed or p.logfile.rotation > 0 else "open"
                rows.append({**p.state, "file_id": p.file_id, "run_id": p.run.run_id,
                             "offset_bytes": p.offset + p.new_bytes, "lines_read": p.lines_read + p.new_lines,
                             "events": counts.get(p.file_id, 0), "status": status,
                             "size_bytes": size_of(p.logfile)})
            upsert_files(con, rows, ingest_id)
        summary.lines += sum(p.new_lines for p in good)
        summary.files_read += len(good)
        summary.files_columnar += len(good)
        summary.events += sum(counts.values())
    finally:
        if events is not None:
            con.unregister("batch")
        _trim_memory()


def _few_arenas() -> None:
    """Keep glibc from holding freed batch memory: every thread got its own malloc arena, and the
    threshold above which a block is mmap-ed (so handed back when freed) grew with each big free,
    so later batches were carved out of a heap that never shrank (peak RSS grew with the corpus)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-8, 2)            # M_ARENA_MAX
        libc.mallopt(-3, 1 << 20)      # M_MMAP_THRESHOLD: fixed, 1 MB
    except (OSError, AttributeError):  # not glibc
        pass


def _trim_memory() -> None:
    """Hand freed batch memory back to the OS (Arrow's mimalloc and glibc keep it otherwise, and
    the peak RSS crept up with the corpus size: 2.8 GB at 30M lines)."""
    import pyarrow as pa
    pa.default_memory_pool().release_unused()
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _count_problems(summary: IngestSummary, problems: list[sources.Problem]) -> None:
    summary.problems += len(problems)
    for p in problems:
        summary.problem_reasons[p.reason] = summary.problem_reasons.get(p.reason, 0) + 1


def _load_templates(con) -> list[Template]:
    rows = con.execute(
        "SELECT template_key, cluster_id, template, initial_template FROM templates ORDER BY cluster_id"
    ).fetchall()
    return [Template(*row) for row in rows]


def mine_new_messages(con, ingest_id: int, params: dict) -> int:
    """Phase 2: Drain3 over messages without a template, distinct and sorted; one transaction."""
    new = con.execute(
        "SELECT message_key, masked FROM messages WHERE template_key IS NULL ORDER BY masked, message_key"
    ).fetchall()
    known = {t.template_key for t in _load_templates(con)}
    miner = TemplateMiner.from_params(_load_templates(con), params)
    keys = miner.learn(masked for _, masked in new)
    templates = pd.DataFrame([asdict(t) for t in miner.templates()],
                             columns=["template_key", "cluster_id", "template", "initial_template"])
    assigned = pd.DataFrame({"message_key": [k for k, _ in new], "template_key": keys})
    con.register("assigned", assigned)
    con.register("mined", templates)
    try:
        with store.transaction(con):
            con.execute("""UPDATE messages SET template_key = a.template_key FROM assigned a
                           WHERE messages.message_key = a.message_key""")
            con.execute("""
                INSERT INTO templates (template_key, cluster_id, template, initial_template, first_ingest)
                SELECT template_key, cluster_id, template, initial_template, ? FROM mined
                ON CONFLICT (template_key) DO UPDATE SET template = excluded.template""", [ingest_id])
            con.execute("""
                UPDATE templates SET count = s.count, n_messages = s.n_messages, first_seen = s.first_seen,
                                     last_seen = s.last_seen, example = s.example
                FROM (SELECT template_key, sum(count) AS count, count(*) AS n_messages,
                             min(first_seen) AS first_seen, max(last_seen) AS last_seen,
                             min(example) AS example
                      FROM messages GROUP BY template_key) s
                WHERE templates.template_key = s.template_key""")
    finally:
        con.unregister("assigned")
        con.unregister("mined")
    return len(set(keys) - known)


def ingest(source: str, db: str, params: dict | None = None,
           on_file: Callable[[sources.Run, sources.LogFile], None] | None = None,
           con: duckdb.DuckDBPyConnection | None = None, engine: str = "local",
           scheduler: str | None = None) -> IngestSummary:
    """Ingest everything new under `source` into the warehouse at `db` (caller holds the lock).

    engine="dask" reads, normalizes and masks files on a Dask cluster (`scheduler` address, or a
    LocalCluster); this process stays the one writer and the one miner, and commits the parts in
    the same order as the local engine, so both build the same warehouse."""
    params = params or load_params()
    started = time.perf_counter()
    _few_arenas()
    # Millions of small tuples and no reference cycles: the default GC thresholds would rescan
    # them over and over (10-25% of ingest time). Restored on the way out.
    gc_thresholds = gc.get_threshold()
    gc.set_threshold(200_000, 50, 100)
    own = con is None
    con = con or store.connect(db, events=params["paths"].get("events"))
    try:
        es = eventstore.store_of(con)
        if es is not None:  # files of a batch killed before its commit
            eventstore.remove_orphans(con, es)
        ingest_id = store.scalar(con, "SELECT coalesce(max(ingest_id), 0) + 1 FROM ingests")
        # a local root as the file system knows it: "data/raw", "./data/raw/" and its absolute path are one
        # source (which problems are still true is judged per source: tester 19's stale rows); a URL as given
        con.execute("INSERT INTO ingests (ingest_id, source, started_at, status) VALUES (?, ?, now(), 'running')",
                    [ingest_id, source if "://" in source else os.path.realpath(source)])
        summary = IngestSummary(ingest_id=ingest_id, source=source)
        clock = _Clock(summary.cpu)
        cpu_started = time.process_time()
        with clock("discover"):
            gc.disable()   # hundreds of thousands of long-lived objects, no cycles: nothing to collect
            try:
                runs, problems = sources.discover(source)
            finally:
                gc.enable()
            gc.freeze()    # and later collections need not look at them again
        summary.runs = len(runs)
        summary.new_runs, registered_only = _upsert_runs(con, runs, ingest_id)
        _lighten(runs)
        if problems:
            con.executemany("INSERT INTO problems VALUES (?, NULL, ?, ?, ?, ?)",
                            [[ingest_id, p.path, p.line, p.reason, p.detail[:500]] for p in problems])
            _count_problems(summary, problems)
        chunk_lines = int(params["ingest"]["chunk_lines"])
        # Checkpoint every few batches, not every time the WAL passes DuckDB's 16 MB (that rewrote
        # row groups over and over: a third of the ingest time on a fleet).
        con.execute(f"SET checkpoint_threshold = '{params['ingest'].get('checkpoint_every', '256MB')}'")
        # DuckDB would otherwise cache up to 80% of RAM in written pages: bound the process instead
        con.execute(f"SET memory_limit = '{params['ingest'].get('duckdb_memory', '512MB')}'")
        # line-by-line events wait in the writer for a commit of their own: at 30M lines up to
        # 200k of them (~70 MB of tuples) were held beside three columnar batches
        flush_events = min(chunk_lines, int(params["ingest"].get("buffer_events", chunk_lines)))
        writer = BatchWriter(con, ingest_id, flush_events=flush_events, sink=eventstore.Sink(es, ingest_id))
        manifest = _load_manifest(con)
        files = [(run, logfile) for run in runs for logfile in run.files]
        if engine == "dask":
            _ingest_on_dask(files, manifest, params, con, writer, summary, on_file, scheduler)
        else:  # well-formed files are read and decoded one batch ahead, in a thread
            consume = _consumer(con, manifest, params, writer, summary, on_file, clock)
            consume(_prefetched(clock.generator("read", _work_items(files, manifest, params))))
        with clock("commit"):
            writer.flush()   # the Dask engine's line-by-line parts (the local engine flushed already)
        with clock("mine"):
            summary.new_templates = mine_new_messages(con, ingest_id, params)
        with clock("commit"):
            con.execute("CHECKPOINT")
        summary.cpu["write"] = writer.sink.cpu
        summary.cpu["total"] = time.process_time() - cpu_started
        summary.templates = store.scalar(con, "SELECT count(*) FROM templates")
        summary.grown_runs = store.scalar(
            con, "SELECT count(*) FROM runs WHERE last_ingest = ? AND first_ingest < ? AND NOT list_contains(?, run_id)",
            [ingest_id, ingest_id, registered_only])
        summary.seconds = time.perf_counter() - started
        con.execute("""UPDATE ingests SET finished_at = now(), status = 'done', files_read = ?, lines = ?,
                       events = ?, new_templates = ?, problems = ? WHERE ingest_id = ?""",
                    [summary.files_read, summary.lines, summary.events, summary.new_templates,
                     summary.problems, ingest_id])
        return summary
    finally:
        gc.unfreeze()
        gc.set_threshold(*gc_thresholds)
        if own:
            con.close()
