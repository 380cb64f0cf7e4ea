"""The event store: events as Parquet files (zstd) beside the warehouse; DuckDB keeps their manifest.

Layout (the root is a folder beside the warehouse, `data/logml.events/` for `data/logml.duckdb`,
or any fsspec URL):

    <root>/ingest-000012/part-00003.parquet     one file per committed batch of ingest 12
    <root>/compacted-000004/part-00000.parquet  small files merged by `logml compact`

DuckDB table `event_files` names the committed files (paths relative to the root, which is in
`meta`), and `events` is a VIEW over exactly those files, redefined in the transaction that
changes the manifest: every query reads the same rows it read when events were DuckDB rows.

Why it is safe: a file is written under a temporary name, fsync-ed and renamed, and only then
registered, in the same DuckDB transaction that advances the log files' offsets. A kill -9
before the commit leaves a file no manifest row names; `remove_orphans` deletes such files at
the start of the next writer, which then re-reads the same lines from the committed offsets.
A file dropped from the manifest (compaction, retention) is deleted after the commit, so a
kill in between only leaves an orphan.

A warehouse created with events "duckdb" keeps events as rows in a DuckDB table (the row store
of schema 1): the reference the equality tests compare the Parquet store with.
"""
from __future__ import annotations

import os
import posixpath
import uuid
from dataclasses import dataclass

import pyarrow as pa

COLUMNS = ("run_id", "file_id", "line_no", "n_lines", "ts", "stream", "level", "kind", "message_key",
           "message", "text", "ingest_id")
SCHEMA = pa.schema([
    ("run_id", pa.string()), ("file_id", pa.string()), ("line_no", pa.int64()), ("n_lines", pa.int32()),
    ("ts", pa.timestamp("us")), ("stream", pa.string()), ("level", pa.string()), ("kind", pa.string()),
    ("message_key", pa.string()), ("message", pa.string()), ("text", pa.string()), ("ingest_id", pa.int32()),
])
ROWS = "duckdb"                 # events root value of a row-store warehouse
ROW_GROUP = 128 * 1024          # rows per row group: min/max of run_id prune a per-run query to a few
# dictionary pages for the columns with few values per file (the message not: zstd finds its
# repeats as well, and hashing every message cost a fifth of the write)
DICTIONARY = ["run_id", "file_id", "stream", "level", "kind", "message_key", "ingest_id"]
# min/max statistics where queries prune row groups with them (a run's events, a time range)
STATISTICS = ["run_id", "file_id", "line_no", "ts", "ingest_id"]

_EMPTY = ("SELECT " + ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in zip(COLUMNS, (
    "VARCHAR", "VARCHAR", "BIGINT", "INTEGER", "TIMESTAMP", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR",
    "VARCHAR", "VARCHAR", "INTEGER"))) + " WHERE false")


def default_root(db: str) -> str:
    """`data/logml.duckdb` -> `data/logml.events` (absolute)."""
    base = os.path.abspath(str(db))
    stem = base[:-len(".duckdb")] if base.endswith(".duckdb") else base
    return stem + ".events"


@dataclass
class Written:
    path: str        # relative to the root
    rows: int
    bytes: int
    min_ts: object
    max_ts: object


class EventStore:
    """Where a warehouse's event files live, and how a file gets there (temporary name, fsync, rename)."""

    def __init__(self, root: str):
        import fsspec.core
        self.root = root.rstrip("/")
        self.fs, self.base = fsspec.core.url_to_fs(self.root)
        protocols = self.fs.protocol if isinstance(self.fs.protocol, (tuple, list)) else (self.fs.protocol,)
        self.local = "file" in protocols or "local" in protocols
        if self.local:
            self.root = self.base = os.path.abspath(self.base)

    def url(self, rel: str) -> str:
        """What DuckDB reads: a local path, or a URL of a filesystem registered with the connection."""
        return posixpath.join(self.root, rel)

    def _path(self, rel: str) -> str:
        return posixpath.join(self.base, rel)

    def write(self, table: pa.Table | pa.RecordBatchReader, rel: str) -> Written:
        """Write events (SCHEMA) to `rel` atomically: a reader never sees a half-written file."""
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
        final = self._path(rel)
        tmp = f"{final}.{uuid.uuid4().hex[:8]}.tmp"
        self.fs.makedirs(posixpath.dirname(final), exist_ok=True)
        rows, lo, hi = 0, None, None
        batches = table.to_batches() if isinstance(table, pa.Table) else table
        schema = _schema(table.schema)
        with self.fs.open(tmp, "wb") as fh:
            # no Arrow schema in the footer: dictionary and view columns are plain strings to readers
            with pq.ParquetWriter(fh, schema, compression="zstd", use_dictionary=DICTIONARY,
                                  write_statistics=STATISTICS, store_schema=False) as writer:
                for batch in batches:
                    if not batch.num_rows:
                        continue
                    batch = _conform(batch, schema)
                    writer.write_batch(batch, row_group_size=ROW_GROUP)
                    rows += batch.num_rows
                    bounds = pc.min_max(batch.column("ts"))
                    lo = _least(lo, bounds["min"].as_py())
                    hi = _greatest(hi, bounds["max"].as_py())
            fh.flush()
            if self.local:
                os.fsync(fh.fileno())
        if self.local:
            os.replace(tmp, final)
            _fsync_dir(posixpath.dirname(final))
        else:
            self.fs.mv(tmp, final)
        return Written(rel, rows, self.fs.size(final), lo, hi)

    def delete(self, rels) -> None:
        for rel in rels:
            try:
                self.fs.rm(self._path(rel))
            except FileNotFoundError:
                pass

    def listing(self) -> list[str]:
        """Our files under the root (parts and temporaries), relative; nothing else is ever touched."""
        if not self.fs.exists(self.base):
            return []
        out = []
        for path in self.fs.find(self.base):
            rel = posixpath.relpath(self.fs._strip_protocol(path), self._strip(self.base))
            top = rel.split("/", 1)[0]
            if top.startswith(("ingest-", "compacted-")) and (rel.endswith(".parquet") or rel.endswith(".tmp")):
                out.append(rel)
        return sorted(out)

    def _strip(self, path: str) -> str:
        return self.fs._strip_protocol(path)

    def register_with(self, con) -> None:
        """Let DuckDB read the files through fsspec when the root is not a local folder."""
        if not self.local:
            name = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
            if not con.filesystem_is_registered(name):  # once per database instance
                con.register_filesystem(self.fs)


def _stringish(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _schema(given: pa.Schema) -> pa.Schema:
    """SCHEMA, keeping the given string encodings (dictionary, view): the file stores strings either
    way, and casting a dictionary or view column would copy it for nothing."""
    return pa.schema([pa.field(c, given.field(c).type if _stringish(given.field(c).type) else SCHEMA.field(c).type)
                      if c in given.names and SCHEMA.field(c).type == pa.string() else SCHEMA.field(c)
                      for c in COLUMNS])


def _conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    if batch.schema.equals(schema):
        return batch
    return pa.RecordBatch.from_arrays([batch.column(c).cast(schema.field(c).type) for c in COLUMNS], schema=schema)


def _least(a, b):
    return b if a is None else a if b is None else min(a, b)


def _greatest(a, b):
    return b if a is None else a if b is None else max(a, b)


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- the manifest

def store_of(con) -> EventStore | None:
    """The warehouse's event store, or None for a row-store warehouse.

    The root is stored absolute. A warehouse moved or copied together with the events folder beside it reads
    that folder, not the one it was made with (which may be gone, or another warehouse's to rewrite); a folder
    that is missing altogether is a clear error here, not a Parquet read failing later."""
    rows = con.execute("SELECT value FROM meta WHERE key = 'events_root'").fetchall()
    if not rows or rows[0][0] in (None, ROWS):
        return None
    root = rows[0][0]
    if "://" not in root:
        here = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
        beside = default_root(here[0][0]) if here and here[0][0] else None
        if beside and beside != root and os.path.basename(beside) == os.path.basename(root) and os.path.isdir(beside):
            root = beside
        elif not os.path.isdir(root) and con.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'event_files'").fetchall()[0][0] \
                and con.execute("SELECT count(*) FROM event_files").fetchall()[0][0]:
            raise FileNotFoundError(f"the warehouse's events folder {root} is missing: copy or move it with the "
                                    f"warehouse, beside it{f' as {beside}' if beside else ''}")
    return EventStore(root)


def follow_move(con, es: EventStore, read_only: bool) -> None:
    """A warehouse moved with its events folder (``store_of`` found it beside it): the `events` view names
    the old files. A writer records the new root and view; a reader shadows the view for this connection."""
    stored = con.execute("SELECT value FROM meta WHERE key = 'events_root'").fetchall()[0][0]
    if stored.rstrip("/") == es.root:
        return
    paths = [p for (p,) in con.execute("SELECT path FROM event_files ORDER BY path").fetchall()]
    if read_only:
        con.execute(f"CREATE OR REPLACE TEMP VIEW events AS {view_sql(es, paths)}")
        return
    con.execute("BEGIN")
    try:
        con.execute("UPDATE meta SET value = ? WHERE key = 'events_root'", [es.root])
        con.execute(f"CREATE OR REPLACE VIEW events AS {view_sql(es, paths)}")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def view_sql(es: EventStore, paths: list[str]) -> str:
    if not paths:
        return _EMPTY
    files = ", ".join("'" + es.url(p).replace("'", "''") + "'" for p in paths)
    return f"SELECT {', '.join(COLUMNS)} FROM read_parquet([{files}], hive_partitioning = false)"


def refresh_view(con, es: EventStore) -> None:
    """`events` = the committed files (inside the caller's transaction, with the manifest change)."""
    paths = [p for (p,) in con.execute("SELECT path FROM event_files ORDER BY path").fetchall()]
    con.execute(f"CREATE OR REPLACE VIEW events AS {view_sql(es, paths)}")


def register(con, es: EventStore, written: list[Written], ingest_id: int | None, kind: str = "batch") -> None:
    """Name new files in the manifest and the view (inside the caller's transaction)."""
    written = [w for w in written if w.rows]
    if not written:
        return
    con.executemany("INSERT INTO event_files VALUES (?, ?, ?, ?, ?, ?, ?, now())",
                    [[w.path, kind, ingest_id, w.rows, w.bytes, w.min_ts, w.max_ts] for w in written])
    refresh_view(con, es)


def remove_orphans(con, es: EventStore) -> list[str]:
    """Delete the files no committed manifest row names (a batch killed before its commit, or a
    file dropped by compaction/retention whose deletion was interrupted). Writers only."""
    known = {p for (p,) in con.execute("SELECT path FROM event_files").fetchall()}
    orphans = [p for p in es.listing() if p not in known]
    es.delete(orphans)
    return orphans


def next_name(con, es: EventStore, folder: str) -> str:
    """A part name in `folder` not used by a committed file (orphans are gone by then)."""
    n = con.execute("SELECT count(*) FROM event_files WHERE starts_with(path, ?)", [folder + "/"]).fetchall()[0][0]
    taken = {p for (p,) in con.execute("SELECT path FROM event_files WHERE starts_with(path, ?)",
                                       [folder + "/"]).fetchall()}
    while True:
        rel = f"{folder}/part-{n:05d}.parquet"
        if rel not in taken:
            return rel
        n += 1


class Sink:
    """Where one ingest puts its batches' events: a new file each (or rows of a row store). The
    file can be written by another thread or process (`write`); it joins `events` when `register`
    runs in the batch's transaction."""

    def __init__(self, es: EventStore | None, ingest_id: int):
        self.es, self.ingest_id, self.parts = es, ingest_id, 0
        self.cpu = 0.0   # seconds spent writing files (in whichever thread)

    def next_name(self) -> str:
        """The name of the ingest's next file (also for files other processes write)."""
        rel = f"ingest-{self.ingest_id:06d}/part-{self.parts:05d}.parquet"
        self.parts += 1
        return rel

    def write(self, events: pa.Table):
        """The file of a batch (Written), or for a row store the events themselves."""
        import time
        if self.es is None or not events.num_rows:
            return events
        rel = self.next_name()
        t = time.thread_time()
        try:
            return self.es.write(events.select(list(COLUMNS)), rel)
        finally:
            self.cpu += time.thread_time() - t

    def register(self, con, written) -> None:
        """Inside the caller's transaction: the commit makes the batch part of `events`."""
        if isinstance(written, Written):
            register(con, self.es, [written], self.ingest_id)
        elif written.num_rows:   # a row store
            con.register("_sink_events", written)
            try:
                con.execute(f"INSERT INTO events SELECT {', '.join(COLUMNS)} FROM _sink_events")
            finally:
                con.unregister("_sink_events")


# ----------------------------------------------------------------------------- per-run message counts

def add_counts(con, counts: str) -> None:
    """Per-run message counts into message_counts (inside the caller's transaction): `counts` is a
    relation of (run_id, message_key, level, kind, n, first_line, last_line), one row per key."""
    # typed as message_counts: a batch whose events all lack a level has a NULL-typed level column,
    # which the merge below could not fill from message_counts
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _batch_counts AS
                    SELECT run_id::VARCHAR AS run_id, message_key::VARCHAR AS message_key, level::VARCHAR AS level,
                           kind::VARCHAR AS kind, count::BIGINT AS count, first_line::BIGINT AS first_line,
                           last_line::BIGINT AS last_line
                    FROM {counts} AS c(run_id, message_key, level, kind, count, first_line, last_line)""")
    # runs that already have counts (a file of theirs was read in an earlier batch) are merged; runs
    # come in sorted order, so the batch's min/max run_id pushed into the scan skips most row groups
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _merge_runs AS
        SELECT DISTINCT c.run_id FROM message_counts c SEMI JOIN _batch_counts b USING (run_id)""")
    if con.execute("SELECT count(*) FROM _merge_runs").fetchall()[0][0]:
        con.execute("""
            INSERT INTO _batch_counts
            SELECT * FROM message_counts WHERE run_id IN (SELECT run_id FROM _merge_runs)""")
        con.execute("DELETE FROM message_counts WHERE run_id IN (SELECT run_id FROM _merge_runs)")
        con.execute("""
            INSERT INTO message_counts
            SELECT run_id, message_key, level, kind, sum(count), min(first_line), max(last_line)
            FROM _batch_counts WHERE run_id IN (SELECT run_id FROM _merge_runs) GROUP BY ALL""")
        con.execute("DELETE FROM _batch_counts WHERE run_id IN (SELECT run_id FROM _merge_runs)")
    con.execute("INSERT INTO message_counts SELECT * FROM _batch_counts")
    con.execute("DROP TABLE _batch_counts")
    con.execute("DROP TABLE _merge_runs")


def append(con, sql: str, ingest_id: int = 0) -> int:
    """Add events (a query with the events columns) as one more file, with their message counts,
    in one transaction: for fixtures and benches that build a warehouse without logs."""
    from pipeline import store
    es = store_of(con)
    with store.transaction(con):
        con.execute(f"CREATE OR REPLACE TEMP TABLE _append AS SELECT {', '.join(COLUMNS)} FROM ({sql})")
        add_counts(con, """(SELECT run_id, message_key, level, kind, count(*), min(line_no), max(line_no)
                            FROM _append GROUP BY ALL)""")
        if es is None:
            con.execute("INSERT INTO events SELECT * FROM _append")
        else:
            rel = next_name(con, es, f"ingest-{ingest_id:06d}")
            register(con, es, [es.write(con.sql("SELECT * FROM _append").to_arrow_table(), rel)], ingest_id)
        n = con.execute("SELECT count(*) FROM _append").fetchall()[0][0]
        con.execute("DROP TABLE _append")
    return n


# ----------------------------------------------------------------------------- compaction and retention

def _swap(con, es: EventStore, old: list[str], new: list[Written]) -> None:
    """Replace manifest rows in one transaction; the old files are deleted after the commit (a kill in
    between leaves orphans for remove_orphans, never a manifest row without its file)."""
    from pipeline import store
    with store.transaction(con):
        if old:
            con.execute("DELETE FROM event_files WHERE list_contains(?, path)", [old])
        written = [w for w in new if w.rows]
        if written:
            con.executemany("INSERT INTO event_files VALUES (?, 'compacted', NULL, ?, ?, ?, ?, now())",
                            [[w.path, w.rows, w.bytes, w.min_ts, w.max_ts] for w in written])
        refresh_view(con, es)
    es.delete(old)
    es.delete([w.path for w in new if not w.rows])


def _folder(con, prefix: str) -> str:
    n = con.execute("""SELECT coalesce(max(TRY_CAST(regexp_extract(path, '^' || ? || '-(\\d+)/', 1) AS INTEGER)), 0)
                       FROM event_files""", [prefix]).fetchall()[0][0]
    return f"{prefix}-{n + 1:06d}"


def _copy(con, es: EventStore, paths: list[str], rel: str, where: str = "true", params=None) -> Written:
    """Rows of `paths` (in file and row order) matching `where` into one new file `rel`."""
    reader = con.sql(f"SELECT {', '.join(COLUMNS)} FROM ({view_sql(es, paths)}) WHERE {where}",
                     params=params or []).to_arrow_reader(ROW_GROUP)
    return es.write(reader, rel)


def compact(con, small_rows: int = 1 << 20, target_rows: int = 1 << 22) -> dict:
    """Merge files of fewer than `small_rows` events (nightly increments) into files of about
    `target_rows`, oldest first. Rows, and so every query, stay the same."""
    es = store_of(con)
    if es is None:
        raise ValueError("this warehouse keeps its events as DuckDB rows: nothing to compact")
    remove_orphans(con, es)
    small = con.execute("""SELECT path, rows FROM event_files WHERE rows < ?
                           ORDER BY coalesce(ingest_id, 0), path""", [small_rows]).fetchall()
    groups, group, n = [], [], 0
    for path, rows in small:
        group.append(path)
        n += rows
        if n >= target_rows:
            groups.append(group)
            group, n = [], 0
    if len(group) > 1:
        groups.append(group)
    groups = [g for g in groups if len(g) > 1]
    if not groups:
        return {"merged": 0, "files": 0}
    folder = _folder(con, "compacted")
    new = [_copy(con, es, g, f"{folder}/part-{k:05d}.parquet") for k, g in enumerate(groups)]
    _swap(con, es, [p for g in groups for p in g], new)
    return {"merged": sum(len(g) for g in groups), "files": len(new)}


def retain(con, keep_days: float, now=None) -> dict:
    """Drop the events logged more than `keep_days` before `now`: files entirely older go, files
    that straddle the cutoff are rewritten with their newer rows (and those without a timestamp).
    Runs, messages, templates, message counts and predictions stay."""
    import datetime as dt
    es = store_of(con)
    if es is None:
        raise ValueError("this warehouse keeps its events as DuckDB rows: retention needs the Parquet store")
    remove_orphans(con, es)
    cutoff = (now or dt.datetime.now()) - dt.timedelta(days=float(keep_days))
    old = [p for (p,) in con.execute("SELECT path FROM event_files WHERE coalesce(max_ts, created_at) < ?",
                                     [cutoff]).fetchall()]
    straddle = [p for (p,) in con.execute("SELECT path FROM event_files WHERE min_ts < ? AND max_ts >= ?",
                                          [cutoff, cutoff]).fetchall()]
    new = []
    if straddle:
        folder = _folder(con, "compacted")
        new = [_copy(con, es, [p], f"{folder}/part-{k:05d}.parquet", "ts >= ? OR ts IS NULL", [cutoff])
               for k, p in enumerate(straddle)]
    if old or straddle:
        _swap(con, es, old + straddle, new)
    return {"dropped_files": len(old), "rewritten_files": len(straddle), "cutoff": cutoff}
