"""DuckDB warehouse: schema, migrations, the nightly lock, and small typed accessors.

Tables
  meta       key/value (schema_version)
  ingests    one row per ingest attempt (status running|done)
  files      manifest: one row per physical log file ever read (identity = run + head fingerprint)
  runs       one row per container run, metadata + facts Paddle printed about itself
  events     one row per normalized event (a line or a grouped block): a VIEW over the Parquet files
             named by event_files (pipeline/eventstore.py), or a table in a row-store warehouse
  event_files  manifest of the committed event files (path relative to meta.events_root)
  messages   distinct masked messages -> template_key, exact counts
  message_counts  per run, message, level and kind: count, first and last line (what features,
             the report and template counts read instead of scanning events)
  templates  mined templates with stable keys
  problems   every bad input met: file, line, reason
  predictions  the current root-cause verdict of each run (category, confidence, source, evidence)
  labels     labeled runs known to the warehouse (loaded from data/labeled/)
"""
from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb

SCHEMA_VERSION = 3

# Each entry migrates from version i to i+1 (SQL, or a function of the connection and the events
# root); index 0 creates the schema of version 1.
MIGRATIONS: list = [
    """
    CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
    CREATE TABLE IF NOT EXISTS ingests (
        ingest_id INTEGER PRIMARY KEY, source VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP,
        status VARCHAR, files_read INTEGER, lines BIGINT, events BIGINT, new_templates INTEGER,
        problems INTEGER);
    CREATE TABLE IF NOT EXISTS files (
        file_id VARCHAR PRIMARY KEY, run_id VARCHAR, path VARCHAR, fmt VARCHAR, rotation INTEGER,
        head_hash VARCHAR, head_len INTEGER, offset_bytes BIGINT, lines_read BIGINT, events BIGINT,
        status VARCHAR, first_ingest INTEGER, last_ingest INTEGER, size_bytes BIGINT);
    CREATE TABLE IF NOT EXISTS runs (
        run_id VARCHAR PRIMARY KEY, host VARCHAR, kind VARCHAR, container_id VARCHAR, name VARCHAR,
        namespace VARCHAR, pod VARCHAR, image VARCHAR, image_tag VARCHAR, exit_code INTEGER,
        oom_killed BOOLEAN, started_at TIMESTAMP, finished_at TIMESTAMP, labels JSON,
        paddle_version VARCHAR, driver_api VARCHAR, runtime_api VARCHAR, compute_capability VARCHAR,
        first_ts TIMESTAMP, last_ts TIMESTAMP, n_events BIGINT, first_ingest INTEGER, last_ingest INTEGER);
    CREATE TABLE IF NOT EXISTS events (
        run_id VARCHAR, file_id VARCHAR, line_no BIGINT, n_lines INTEGER, ts TIMESTAMP,
        stream VARCHAR, level VARCHAR, kind VARCHAR, message_key VARCHAR, message VARCHAR,
        text VARCHAR, ingest_id INTEGER);
    CREATE TABLE IF NOT EXISTS messages (
        message_key VARCHAR PRIMARY KEY, masked VARCHAR, template_key VARCHAR, count BIGINT,
        first_seen TIMESTAMP, last_seen TIMESTAMP, example VARCHAR, first_ingest INTEGER);
    CREATE TABLE IF NOT EXISTS templates (
        template_key VARCHAR PRIMARY KEY, cluster_id INTEGER, template VARCHAR,
        initial_template VARCHAR, count BIGINT, n_messages BIGINT, first_seen TIMESTAMP,
        last_seen TIMESTAMP, example VARCHAR, first_ingest INTEGER);
    CREATE TABLE IF NOT EXISTS problems (
        ingest_id INTEGER, run_id VARCHAR, path VARCHAR, line BIGINT, reason VARCHAR, detail VARCHAR);
    CREATE TABLE IF NOT EXISTS predictions (
        run_id VARCHAR PRIMARY KEY, category VARCHAR, confidence DOUBLE, source VARCHAR,
        rule_id VARCHAR, model_category VARCHAR, model_confidence DOUBLE, model_version VARCHAR,
        evidence JSON, alternatives JSON, predicted_at TIMESTAMP, ingest_seen INTEGER);
    CREATE TABLE IF NOT EXISTS labels (
        run_id VARCHAR PRIMARY KEY, category VARCHAR, source VARCHAR, scenario VARCHAR, note VARCHAR,
        labeled_at TIMESTAMP);
    """,
    lambda con, events: _events_to_parquet(con, events),
    # 3: a log file's modification time (dates a run whose log carries no timestamp); the narrower
    # remedy a verdict's evidence and log chose ('' for the category's own; NULL: predicted before 3)
    """
    ALTER TABLE files ADD COLUMN IF NOT EXISTS mtime TIMESTAMP;
    ALTER TABLE predictions ADD COLUMN IF NOT EXISTS remedy_id VARCHAR;
    """,
]

COPY_ROWS = 1 << 22   # events per Parquet file when a v1 warehouse's events are copied out


def _events_to_parquet(con: duckdb.DuckDBPyConnection, events: str) -> None:
    """Schema 2: events leave DuckDB for Parquet files under `events` (or stay rows when it is
    eventstore.ROWS), with the event_files manifest and per-run message counts. A v1 warehouse's
    events are copied out as they are, one partition per ingest: no log is read again."""
    from pipeline import eventstore
    con.execute("""
        CREATE TABLE IF NOT EXISTS event_files (
            path VARCHAR PRIMARY KEY, kind VARCHAR, ingest_id INTEGER, rows BIGINT, bytes BIGINT,
            min_ts TIMESTAMP, max_ts TIMESTAMP, created_at TIMESTAMP);
        CREATE TABLE IF NOT EXISTS message_counts (
            run_id VARCHAR, message_key VARCHAR, level VARCHAR, kind VARCHAR, count BIGINT,
            first_line BIGINT, last_line BIGINT);
        INSERT INTO message_counts
        SELECT run_id, message_key, level, kind, count(*), min(line_no), max(line_no) FROM events GROUP BY ALL;
    """)
    con.execute("INSERT OR REPLACE INTO meta VALUES ('events_root', ?)", [events])
    es = eventstore.store_of(con)
    if es is None:
        return
    es.register_with(con)
    written = []
    for (ingest_id,) in con.execute("SELECT DISTINCT coalesce(ingest_id, 0) FROM events ORDER BY 1").fetchall():
        reader = con.sql(f"SELECT {', '.join(eventstore.COLUMNS)} FROM events WHERE coalesce(ingest_id, 0) = ?",
                         params=[ingest_id]).to_arrow_reader(COPY_ROWS)
        part = 0
        while True:  # one file per COPY_ROWS events: memory stays bounded at any warehouse size
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            written.append((ingest_id, es.write(_table(batch), f"ingest-{ingest_id:06d}/part-{part:05d}.parquet")))
            part += 1
    con.execute("DROP TABLE events")
    for ingest_id, w in written:
        con.execute("INSERT INTO event_files VALUES (?, 'batch', ?, ?, ?, ?, ?, now())",
                    [w.path, ingest_id, w.rows, w.bytes, w.min_ts, w.max_ts])
    eventstore.refresh_view(con, es)


def _table(batch):
    import pyarrow as pa
    return pa.Table.from_batches([batch])


class WarehouseLocked(RuntimeError):
    pass


def connect(db_path: str | Path, read_only: bool = False, events: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse, creating or migrating it (writers only). `events`: where a new (or a
    schema-1) warehouse keeps its events: a folder or fsspec URL, "duckdb" for DuckDB rows, None
    for the folder beside the warehouse (`data/logml.events` for `data/logml.duckdb`)."""
    from pipeline import eventstore
    db_path = str(db_path)
    if read_only:
        if not Path(db_path).exists():
            raise FileNotFoundError(f"no warehouse at {db_path}: run `logml ingest SOURCE` first")
        con = duckdb.connect(db_path, read_only=True)
        version = schema_version(con)
        if 0 < version < SCHEMA_VERSION:   # a reader cannot migrate; what it queries may not exist yet
            con.close()
            raise ValueError(f"warehouse {db_path} has schema {version}, this logml reads {SCHEMA_VERSION}: "
                             f"migrate it once with `logml compact --db {db_path}` (or the next ingest or nightly)")
    else:
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(db_path)
        migrate(con, events or eventstore.default_root(db_path))
    if schema_version(con) >= 2:
        es = eventstore.store_of(con)
        if es is not None:
            es.register_with(con)
            eventstore.follow_move(con, es, read_only)
    return con


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    """First value of a query. fetchall, not fetchone: DuckDB 2 keeps a result open until it is drained."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0][0] if rows else None


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    has_meta = scalar(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'")
    if not has_meta:
        return 0
    rows = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    return int(rows[0][0]) if rows else 0


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection):
    """BEGIN ... COMMIT, or ROLLBACK on any error (a kill -9 leaves the last commit)."""
    con.execute("BEGIN")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def migrate(con: duckdb.DuckDBPyConnection, events: str = "duckdb") -> int:
    """Bring the schema to SCHEMA_VERSION, one transaction per step (a kill -9 mid-way leaves the
    previous version; files a killed step wrote are orphans, removed by the next writer)."""
    current = schema_version(con)
    if current > SCHEMA_VERSION:
        raise RuntimeError(f"warehouse schema {current} is newer than this logml ({SCHEMA_VERSION})")
    for version in range(current, SCHEMA_VERSION):
        with transaction(con):
            step = MIGRATIONS[version]
            if callable(step):
                step(con, events)
            else:
                con.execute(step)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(version + 1)])
    return SCHEMA_VERSION


@contextmanager
def warehouse_lock(db_path: str | Path, wait: bool = False, poll: float = 0.5):
    """An advisory lock beside the DuckDB file: one writer (nightly/ingest) at a time.

    flock is released by the kernel when the holder dies, so a kill -9 never leaves a stale lock.
    """
    lock_path = Path(f"{db_path}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait:
                    holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
                    raise WarehouseLocked(
                        f"warehouse {db_path} is locked by {holder}; "
                        "another logml ingest/nightly is running (use --wait to wait for it)") from None
                time.sleep(poll)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    names = ["runs", "files", "events", "messages", "templates", "problems", "message_counts", "event_files"]
    return {n: scalar(con, f"SELECT count(*) FROM {n}") for n in names}


def list_templates(con: duckdb.DuckDBPyConnection, top: int | None = None,
                   new_since: str | None = None):
    """Templates by frequency; new_since keeps those first seen (log time) on or after a date."""
    sql = """SELECT template_key, count, n_messages, first_seen, last_seen, template, example
             FROM templates WHERE (? IS NULL OR first_seen >= CAST(? AS TIMESTAMP))
             ORDER BY count DESC, template_key"""
    if top:
        sql += f" LIMIT {int(top)}"
    return con.execute(sql, [new_since, new_since]).df()


def list_runs(con: duckdb.DuckDBPyConnection, host: str | None = None, image: str | None = None,
              limit: int | None = None):
    # with its verdict: a platform engineer lists runs to see what became of them
    # (first_ts / last_ts: the first and last timestamps its lines carry, where no metadata gives start and end)
    # (a run on Paddle's own image that never printed its version: the image's tag says it)
    sql = """SELECT r.run_id, r.host, r.kind, r.image, r.exit_code, r.oom_killed, r.started_at, r.finished_at,
                    r.first_ts, r.last_ts, r.n_events, p.category, round(p.confidence, 2) AS confidence,
                    lb.category AS label,
                    coalesce(r.paddle_version, nullif(regexp_extract(coalesce(r.image, '') || ':' || coalesce(r.image_tag, ''),
                             'paddlepaddle/paddle(?:[-_][a-z]+)?:v?([0-9]+[.][0-9]+[.][0-9]+)', 1), '')) AS paddle_version,
                    r.driver_api, r.runtime_api, r.compute_capability
             FROM runs r LEFT JOIN predictions p USING (run_id) LEFT JOIN labels lb USING (run_id)
             WHERE (? IS NULL OR r.host = ?) AND (? IS NULL OR r.image LIKE '%' || ? || '%')
             ORDER BY r.run_id"""
    if limit:
        sql += f" LIMIT {int(limit)}"
    return con.execute(sql, [host, host, image, image]).df()


def list_problems(con: duckdb.DuckDBPyConnection, ingest_id: int | None = None, history: bool = False):
    """Bad input met while ingesting. By default what is still true, once each: discovery re-reports a
    misplaced or unreadable path at every ingest of its source, so such a row counts while the latest
    ingest of that source met it (`ingest_id` is the last that did, `seen` how many did); problems met
    while reading lines are recorded once, when the lines were read. `ingest_id` or `history` list
    the rows as each ingest recorded them."""
    if ingest_id is not None or history:
        return con.execute("""SELECT ingest_id, run_id, path, line, reason, detail FROM problems
                              WHERE (? IS NULL OR ingest_id = ?) ORDER BY ingest_id, path, line""",
                           [ingest_id, ingest_id]).df()
    return con.execute("""
        WITH latest AS (SELECT source, max(ingest_id) AS last_of_source FROM ingests GROUP BY source)
        SELECT max(p.ingest_id) AS ingest_id, count(*) AS seen, p.run_id, p.path, p.line, p.reason, p.detail
        FROM problems p LEFT JOIN ingests i USING (ingest_id) LEFT JOIN latest l USING (source)
        GROUP BY p.run_id, p.path, p.line, p.reason, p.detail, l.last_of_source
        HAVING p.run_id IS NOT NULL OR l.last_of_source IS NULL OR max(p.ingest_id) = l.last_of_source
        ORDER BY ingest_id, p.path, p.line""").df()


def runs_missing_events(con: duckdb.DuckDBPyConnection, run_ids: list[str] | None = None) -> set[str]:
    """Runs (of ``run_ids``, else all) some of whose events retention dropped (message_counts keeps every
    event's count): what is left of their logs cannot be judged again as a whole."""
    if run_ids is not None and not run_ids:
        return set()
    among = "" if run_ids is None else "WHERE list_contains($ids, run_id)"
    return {r for (r,) in con.execute(f"""
        SELECT mc.run_id FROM (SELECT run_id, sum(count) AS n FROM message_counts {among} GROUP BY run_id) mc
        LEFT JOIN (SELECT run_id, count(*) AS n FROM events {among} GROUP BY run_id) ev USING (run_id)
        WHERE coalesce(ev.n, 0) < mc.n""", {} if run_ids is None else {"ids": run_ids}).fetchall()}


def load_run_events(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict:
    """Events of the given runs in log order (oldest rotated file first), one DataFrame per run."""
    import pandas as pd
    if not run_ids:
        return {}
    con.register("wanted_runs", pd.DataFrame({"run_id": run_ids}))
    frame = con.execute("""
        SELECT e.run_id, e.line_no, e.level, e.kind, e.message, coalesce(e.text, e.message) AS text
        FROM events e JOIN wanted_runs USING (run_id) JOIN files f USING (file_id)
        ORDER BY e.run_id, f.rotation DESC, e.line_no""").df()
    con.unregister("wanted_runs")
    return {run_id: part.reset_index(drop=True) for run_id, part in frame.groupby("run_id", sort=False)}


def run_meta(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, dict]:
    import pandas as pd
    con.register("wanted_runs", pd.DataFrame({"run_id": run_ids}))
    rows = con.execute("SELECT run_id, exit_code, oom_killed FROM runs JOIN wanted_runs USING (run_id)").fetchall()
    con.unregister("wanted_runs")
    return {r: {"exit_code": e, "oom_killed": o} for r, e, o in rows}


def labeling_queue(con: duckdb.DuckDBPyConnection, limit: int = 20):
    """Runs worth labeling, most valuable first: unknown, low-confidence, rule/model disagreements and
    never-seen failure templates; a run whose top evidence template many runs share comes first
    (one label teaches the model about all of them), then the GPU-hours it cost."""
    return con.execute("""
        WITH p AS (
            SELECT p.run_id, p.category, p.confidence, p.rule_id, p.model_category,
                   json_extract_string(p.evidence, '$[0].template_id') AS top_template,
                   json_extract_string(p.evidence, '$[0].text') AS top_text,
                   CASE WHEN p.category = 'unknown' THEN 'unknown'
                        WHEN p.confidence < 0.5 THEN 'low confidence'
                        WHEN p.rule_id IS NOT NULL AND p.model_category IS DISTINCT FROM p.category
                             THEN 'rule/model disagree'
                        WHEN p.category <> 'no_failure' AND json_array_length(p.evidence) > 0
                             AND json_extract_string(p.evidence, '$[0].template_id') IS NULL
                             THEN 'never-seen template'
                   END AS reason
            FROM predictions p LEFT JOIN labels l USING (run_id)
            WHERE l.run_id IS NULL)
        SELECT p.run_id, p.reason, p.category, round(p.confidence, 3) AS confidence, p.model_category,
               count(*) OVER (PARTITION BY coalesce(p.top_template, p.run_id)) AS similar_runs,
               -- a pod or a plain file has no container start and finish: its first and last lines say how long it ran
               round(coalesce(date_diff('second', r.started_at, r.finished_at),
                              date_diff('second', r.first_ts, r.last_ts), 0) / 3600.0, 2) AS hours,
               left(p.top_text, 160) AS evidence
        FROM p JOIN runs r USING (run_id)
        WHERE p.reason IS NOT NULL
        ORDER BY similar_runs DESC, hours DESC, p.run_id
        LIMIT ?""", [int(limit)]).df()


def add_label(con: duckdb.DuckDBPyConnection, run_id: str, category: str, source: str = "hand",
              note: str = "", scenario: str = "hand") -> None:
    con.execute("INSERT OR REPLACE INTO labels VALUES (?, ?, ?, ?, ?, now())", [run_id, category, source, scenario, note])


def find_runs(con: duckdb.DuckDBPyConnection, given: str) -> list[str]:
    """The run ``given`` names: its whole id, or the start of one as `logml runs` shows it (a container id cut
    to 12 characters); every run it could be when it is ambiguous."""
    exact = con.execute("SELECT run_id FROM runs WHERE run_id = ?", [given]).fetchall()
    if exact:
        return [exact[0][0]]
    return [r for (r,) in con.execute("SELECT run_id FROM runs WHERE starts_with(run_id, ?) ORDER BY run_id LIMIT 20",
                                      [given]).fetchall()]


def export_parquet(con: duckdb.DuckDBPyConnection, out: str) -> list[str]:
    """Every table as Parquet (events partitioned by ingest) under a folder or any fsspec URL."""
    import fsspec
    fs, root = fsspec.core.url_to_fs(out)
    if "://" in out and not out.startswith("file://"):
        con.register_filesystem(fs)
    else:
        fs.makedirs(root, exist_ok=True)
        out = root
    written = []
    for table in ("runs", "files", "messages", "templates", "predictions", "labels", "problems"):
        con.execute(f"COPY {table} TO '{out}/{table}.parquet' (FORMAT parquet)")
        written.append(f"{out}/{table}.parquet")
    con.execute(f"COPY events TO '{out}/events' (FORMAT parquet, PARTITION_BY (ingest_id), OVERWRITE_OR_IGNORE)")
    written.append(f"{out}/events/")
    return written
