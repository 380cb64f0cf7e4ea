"""Columnar ingest: many whole, well-formed log files per batch, normalized in DuckDB.

The line-by-line path (sources.read_chunks -> Normalizer -> MaskCache) costs ~20 us a line in
Python. Here a batch of files becomes one Arrow table of raw lines, and DuckDB does the per-line
work in C++ on every core: envelope decoding (docker JSON, CRI), header stripping, timestamps,
message keys, events. Python only sees what is rare:

- *Shapes.* Two lines that differ only in their digit values are parsed at the same positions
  (normalize.line_shape). Digits are collapsed on the Arrow buffer and DuckDB hashes each line's
  shape; Python parses one representative per new shape (~1.5% of lines on a fleet, fewer as the
  cache warms) into positions and a level, and DuckDB applies them to every line of the shape.
- *Blocks.* A line that may open a multi-line block (a traceback, a Paddle error dump, a GLOG
  fatal), or that needs cleaning (ANSI escapes, carriage returns), starts a *segment*: it and the
  following lines of its stream up to the next line with a log header (which always closes a
  block). Segments go through the Normalizer itself, so blocks are grouped exactly as there.
- *Message keys* are looked up in log order, over shape representatives and segment events
  together, as the line-by-line path meets them (the mask cache keeps a message's first raw form).

Only files this path reads exactly like sources.read_chunks come here: uncompressed or whole
gzip, newline-terminated, valid UTF-8 without NUL bytes, no line over the cap, docker entries
complete (no 16 KB partials), CRI lines all `F`. Anything else (and any file DuckDB finds
malformed) goes back to the line-by-line path, which reports problems; tests check that both
paths build identical warehouses.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import sources
from pipeline.mining import MaskAhead, MaskCache
from pipeline.normalize import DATE_MD, SHAPE_FIELDS, LineChunk, Normalizer, line_shape

FMT_CODES = {"docker": 0, "cri": 1, "plain": 2}
MAX_FILE_BYTES = 64 << 20   # bigger files stream through the line-by-line path (bounded memory)
BATCH_BYTES = 64 << 20      # raw bytes per batch: bounds memory, amortises the per-query cost


@dataclass
class Planned:
    """One file to read from `offset` to its end (ingest decides this from the manifest)."""
    run: sources.Run
    logfile: sources.LogFile
    offset: int
    lines_read: int
    file_id: str | None = None   # None: a new file, named from its head once read
    state: dict | None = None    # the manifest fields of ingest.plan_file
    data: bytes = b""            # what is new (dropped once decoded)
    new_bytes: int = 0
    new_lines: int = 0


def eligible(logfile: sources.LogFile) -> bool:
    return logfile.fmt in FMT_CODES and (logfile.size is None or logfile.size <= MAX_FILE_BYTES)


def _gunzip(data: bytes) -> bytes | None:
    """A whole single-member gzip file, or None (truncated, multi-member, too big: line by line)."""
    d = zlib.decompressobj(wbits=31)
    try:
        out = d.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error:
        return None
    if not d.eof or d.unused_data or len(out) > MAX_FILE_BYTES:
        return None
    return out


def _open(path: str):
    if "://" not in path or path.startswith("file://"):
        return open(path.removeprefix("file://"), "rb")
    import fsspec
    return fsspec.open(path, "rb").open()


def load(planned: Planned, cap: int) -> bool:
    """Read what is new in a file into planned.data; False if it needs the line-by-line path."""
    compressed = planned.logfile.compressed
    try:
        with _open(planned.logfile.path) as f:
            if planned.offset and not compressed:
                f.seek(planned.offset)
            data = f.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError):
        return False
    if data[:2] == b"\x1f\x8b" and (compressed or not planned.offset):
        # gzip is told by content, as sources does, whatever the name; offsets are decompressed
        data = _gunzip(data)
        if data is None:
            return False
        data = data[planned.offset:]
    elif compressed and planned.offset:
        return False
    if len(data) > MAX_FILE_BYTES or (data and not data.endswith(b"\n")) or b"\x00" in data:
        return False
    if planned.offset == 0 and sources._is_binary(data[:sources.BINARY_SAMPLE]):
        return False
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    if planned.logfile.fmt == "docker" and (b"\\u0000" in data or b"\\ud" in data or b"\\uD" in data):
        return False
    if len(data) > cap and max(map(len, data.split(b"\n"))) > cap:
        return False
    planned.data, planned.new_bytes, planned.new_lines = data, len(data), data.count(b"\n")
    return True


def raw_lines(files: list[Planned]) -> pa.Table:
    """All lines of the batch as one Arrow table, the strings pointing into one buffer (no copy per
    line). Each value keeps its newline (Arrow strings are contiguous); SQL drops it."""
    sizes = np.fromiter((len(p.data) for p in files), np.int64, len(files))
    buf = b"".join(p.data for p in files)
    newlines = np.flatnonzero(np.frombuffer(buf, np.uint8) == 10)
    n = len(newlines)
    offsets = np.empty(n + 1, np.int64 if len(buf) >= 1 << 31 else np.int32)
    offsets[0] = 0
    offsets[1:] = newlines + 1
    starts = np.zeros(len(files) + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    first = np.searchsorted(newlines, starts)
    per_file = np.diff(first)
    file_idx = np.repeat(np.arange(len(files), dtype=np.int32), per_file)
    base = np.array([p.lines_read for p in files], np.int64) - first[:-1]
    line_no = np.arange(n, dtype=np.int64) + np.repeat(base, per_file) + 1
    fmt = np.array([FMT_CODES[p.logfile.fmt] for p in files], np.int8)[file_idx]
    string_type = pa.large_string() if offsets.dtype == np.int64 else pa.string()
    lines = pa.Array.from_buffers(string_type, n, [None, pa.py_buffer(offsets), pa.py_buffer(buf)])
    return pa.table({"file_idx": file_idx, "line_no": line_no, "fmt": fmt, "line": lines})


# Envelope per format; `body` is the logical line as sources.read_chunks gives it.
_ENVELOPE_SQL = """
WITH dec AS (
    SELECT file_idx, line_no, fmt, left(line, -1) AS line,
           CASE WHEN fmt = 0 THEN try(json_transform(line, '{"log":"VARCHAR","stream":"VARCHAR","time":"VARCHAR"}')) END AS j,
           -- CRI "<ts> <stream> <tag> <text>", split at the first three spaces like str.split(" ", 3)
           CASE WHEN fmt = 1 THEN regexp_extract(line, '^([^ ]*) ([^ ]*) ([^ ]*) ', ['ts', 'stream', 'tag']) END AS c
    FROM cl_raw
), env AS (
    SELECT file_idx, line_no,
        CASE fmt WHEN 0 THEN j.log WHEN 1 THEN substr(line, length(c.ts) + length(c.stream) + length(c.tag) + 4)
                 ELSE line END AS text,
        CASE fmt WHEN 0 THEN j.stream WHEN 1 THEN c.stream END AS stream,
        CASE fmt WHEN 0 THEN j.time WHEN 1 THEN c.ts END AS env_ts,
        -- what the fast path cannot take as sources.read_chunks would: the file goes line by line
        coalesce(CASE fmt
            WHEN 0 THEN j.log IS NULL OR NOT suffix(j.log, chr(10)) OR NOT (contains(line, '"log":"') OR contains(line, '"log": "'))
                        OR j.stream NOT IN ('stdout', 'stderr')
            WHEN 1 THEN c.tag <> 'F' OR c.stream NOT IN ('stdout', 'stderr') OR length(c.ts) < 10
                        OR NOT (line[1] BETWEEN '0' AND '9')
            ELSE false END, true) AS bad
    FROM dec
), unwrapped AS (  -- docker keeps the newline in "log"
    SELECT *, CASE WHEN suffix(text, chr(10)) THEN left(text, -1) ELSE text END AS t FROM env
)
SELECT file_idx, line_no, stream, env_ts, bad, CASE WHEN suffix(t, chr(13)) THEN left(t, -1) ELSE t END AS body
FROM unwrapped
"""

_DIGITS_TO_ONE = bytes.maketrans(b"0123456789", b"1111111111")


def collapse_digits(strings: pa.Array) -> pa.Array:
    """Every ASCII digit -> "1", on the string buffer itself (DuckDB's translate() costs ~2 us a
    row; this is one C-level bytes.translate over the batch)."""
    strings = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    validity, offsets, data = strings.buffers()
    collapsed = pa.py_buffer(data.to_pybytes().translate(_DIGITS_TO_ONE)) if data is not None else data
    return pa.Array.from_buffers(strings.type, len(strings), [validity, offsets, collapsed], strings.null_count,
                                 strings.offset)


class ShapeCache:
    """shape hash -> shape row (SHAPE_COLUMNS), and -> (message key, masked) once the mask cache
    holds the shape's message (from then on every lookup of it returns that key). Bounded like
    MaskCache, and its keys are dropped whenever the mask cache is cleared."""

    def __init__(self, max_size: int = 500_000):
        self.max_size = max_size
        self.rows: dict[int, tuple] = {}
        self.keys: dict[int, tuple[str, str]] = {}
        self.generation = 0

    def resolve(self, reps: list[tuple[int, str]]) -> list[tuple]:
        if len(self.rows) > self.max_size:
            self.rows.clear()
            self.keys.clear()
        out = []
        for shape_id, rep in reps:
            row = self.rows.get(shape_id)
            if row is None:
                shape = line_shape(rep)
                if shape is None:   # the Normalizer's: a segment starts here
                    row = (shape_id, True, False, False, *([None] * len(SHAPE_FIELDS)))
                else:
                    row = (shape_id, False, shape[0] != 0, shape[3] > shape[2], *shape)
                self.rows[shape_id] = row
            out.append(row)
        return out


SHAPE_COLUMNS = ("shape_id", "is_start", "is_closer", "emits", *SHAPE_FIELDS)
_SHAPE_SCHEMA = pa.schema([
    ("shape_id", pa.uint64()), ("is_start", pa.bool_()), ("is_closer", pa.bool_()), ("emits", pa.bool_()),
    ("fam", pa.int8()), ("level", pa.string()), ("t0", pa.int32()), ("t1", pa.int32()), ("m0", pa.int32()),
    ("opens", pa.bool_()), ("date_kind", pa.int8()), ("d0", pa.int32()), ("dlen", pa.int32()),
    ("tm0", pa.int32()), ("tm1", pa.int32()), ("comma", pa.bool_()),
])
assert tuple(_SHAPE_SCHEMA.names) == SHAPE_COLUMNS

# Year of a year-less header date (GLOG "1129", "[11/29 ...]"), from the reference envelope ts of
# the line's chunk: normalize._years_by_month in SQL.
_YEAR_SQL = """CASE WHEN r.ref IS NULL OR length(r.ref) < 7 OR NOT regexp_full_match(r.ref[1:4], '[0-9]{4}')
                      OR mon NOT IN ('01','02','03','04','05','06','07','08','09','10','11','12') THEN NULL
                    WHEN r.ref[6:7] = '01' AND mon = '12' THEN CAST(CAST(r.ref[1:4] AS INTEGER) - 1 AS VARCHAR)
                    WHEN r.ref[6:7] = '12' AND mon = '01' THEN CAST(CAST(r.ref[1:4] AS INTEGER) + 1 AS VARCHAR)
                    ELSE CAST(CAST(r.ref[1:4] AS INTEGER) AS VARCHAR) END"""

_EVENTS_SQL = f"""
WITH j AS (
    SELECT l.file_idx, l.line_no, l.stream, l.env_ts, l.body, s.*, k.message_key,
           CASE WHEN s.comma THEN replace(substr(l.body, s.tm0 + 1, s.tm1 - s.tm0), ',', '.')
                ELSE substr(l.body, s.tm0 + 1, s.tm1 - s.tm0) END AS tm,
           substr(l.body, s.d0 + 1, 2) AS mon,
           r.ref
    FROM cl_lines l ANTI JOIN cl_segment_lines g ON g.file_idx = l.file_idx AND g.line_no = l.line_no
    JOIN cl_shapes s USING (shape_id) JOIN cl_shape_keys k USING (shape_id)
    LEFT JOIN cl_refs r ON s.date_kind = {DATE_MD} AND r.file_idx = l.file_idx
                          AND r.chunk = (l.line_no - 1 - r.start_line) // r.chunk_lines
    WHERE s.emits
), y AS (
    SELECT *, {_YEAR_SQL.replace('r.ref', 'ref')} AS year FROM j
)
SELECT f.run_id, f.file_id, line_no, 1 AS n_lines, TRY_CAST(CASE date_kind
           WHEN 0 THEN env_ts
           WHEN 1 THEN replace(substr(body, d0 + 1, 10), '/', '-') || 'T' || tm
           WHEN 2 THEN substr(body, d0 + 1, 4) || '-' || substr(body, d0 + 5, 2) || '-' || substr(body, d0 + 7, 2)
                       || 'T' || tm
           ELSE CASE WHEN year IS NOT NULL AND coalesce(env_ts, '') <> ''
                     THEN year || '-' || mon || '-' || substr(body, d0 + dlen - 1, 2) || 'T' || tm
                     ELSE env_ts END
       END AS TIMESTAMP) AS ts,
       stream, level, 'line' AS kind, message_key,
       substr(body, m0 + 1, t1 - m0) AS message,
       CASE WHEN m0 > t0 THEN substr(body, t0 + 1, t1 - t0) END AS text,
       CAST($ingest_id AS INTEGER) AS ingest_id, (CAST(file_idx AS BIGINT) << 32) + line_no AS seq
FROM y JOIN cl_files f USING (file_idx)
"""


def decode(files: list[Planned]) -> pa.Table:
    """Raw lines of a batch -> Arrow (file_idx, line_no, stream, env_ts, bad, body, shape): the
    envelope decoded by DuckDB on a private in-memory connection (safe in a reader thread)."""
    import duckdb
    with duckdb.connect(config={"memory_limit": "512MB"}) as con:
        con.register("cl_raw", raw_lines(files))
        lines = con.sql(_ENVELOPE_SQL).to_arrow_table()
    for p in files:  # decoded: the raw bytes are not needed any more (memory stays bounded)
        p.data = b""
    # shape of a line: its body with every digit collapsed (see normalize.line_shape)
    return lines.append_column("shape", collapse_digits(lines.column("body")))


def normalize_batch(con, files: list[Planned], lines: pa.Table, chunk_lines: int, masks: MaskCache,
                    shapes: ShapeCache, ingest_id: int, ahead: MaskAhead | None = None):
    """Lines of `files` -> (events, {message_key: masked}, bad file indexes); events is an Arrow
    table with ingest.write_batch's `batch` columns (the events columns + seq). Bad files (malformed for the
    fast path) have no events in `batch`: the caller reads them again line by line."""
    bad = pc.unique(pc.filter(lines.column("file_idx"), lines.column("bad"))).to_pylist()
    if bad:
        lines = lines.filter(pc.invert(pc.is_in(lines.column("file_idx"), pa.array(bad, pa.int32()))))
    con.register("cl_lines_arrow", lines)
    try:  # same row order as `lines` (insertion order is kept): _segments relies on it
        con.execute("""CREATE OR REPLACE TEMP TABLE cl_lines AS
                       SELECT * EXCLUDE (shape, bad), hash(shape) AS shape_id FROM cl_lines_arrow""")
    finally:
        con.unregister("cl_lines_arrow")
    lines = lines.select(["file_idx", "stream", "line_no", "env_ts", "body"])  # frees the shapes
    # one representative per shape: its first line, so that message keys are looked up in log
    # order, as the line-by-line path does (the mask cache keeps the first raw form it sees)
    reps = con.execute("""
        SELECT shape_id, arg_min(body, pos), min(pos) FROM (
            SELECT shape_id, body, (CAST(file_idx AS BIGINT) << 32) + line_no AS pos FROM cl_lines)
        GROUP BY shape_id""").fetchall()
    rows = shapes.resolve([r[:2] for r in reps])
    if shapes.generation != masks.generation:
        shapes.keys.clear()
        shapes.generation = masks.generation
    known = shapes.keys
    # shapes whose message key is not known yet: looked up below, in log order
    unkeyed = [(pos, rep[row[8]:row[7]], row[0]) for (_, rep, pos), row in zip(reps, rows)
               if row[3] and row[0] not in known]
    masked_ahead = (ahead or MaskAhead(min_batch=1 << 62)).submit(masks.missing(m for _, m, _ in sorted(unkeyed)))
    columns = list(zip(*rows)) if rows else [()] * len(SHAPE_COLUMNS)
    shape_table = pa.table([pa.array(c, f.type) for c, f in zip(columns, _SHAPE_SCHEMA)], schema=_SHAPE_SCHEMA)
    file_table = pa.table({
        "file_idx": np.arange(len(files), dtype=np.int32),
        "start_line": np.array([p.lines_read for p in files], np.int64),
        "run_id": pa.array([p.run.run_id for p in files], pa.string()),
        "file_id": pa.array([p.file_id for p in files], pa.string()),
    })
    con.register("cl_shapes_arrow", shape_table)
    con.register("cl_files_arrow", file_table)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE cl_shapes AS SELECT * FROM cl_shapes_arrow")
        con.execute("CREATE OR REPLACE TEMP TABLE cl_files AS SELECT * FROM cl_files_arrow")
        # first truthy envelope ts of each file chunk (Normalizer's reference for year-less dates)
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE cl_refs AS
            SELECT l.file_idx, f.start_line, {int(chunk_lines)} AS chunk_lines,
                   (l.line_no - 1 - f.start_line) // {int(chunk_lines)} AS chunk,
                   arg_min(l.env_ts, l.line_no) FILTER (WHERE coalesce(l.env_ts, '') <> '') AS ref
            FROM cl_lines l JOIN cl_files f USING (file_idx)
            GROUP BY ALL""")
    finally:
        con.unregister("cl_shapes_arrow")
        con.unregister("cl_files_arrow")
    segment_rows = _normalize_segments(con, _segments(con, lines, rows))
    # message keys, in log order over shape representatives and segment events together
    lookups = [(pos, message, 0, shape_id) for pos, message, shape_id in unkeyed]
    lookups += [((r[0] << 32) + r[1], r[7], 1, k) for k, r in enumerate(segment_rows)]
    lookups.sort(key=_first)
    keys, masked_of = masks.lookup([m for _, m, _, _ in lookups], masked_ahead())
    event_keys = [None] * len(segment_rows)
    for (_, _, kind, ref), key in zip(lookups, keys):
        if kind == 1:
            event_keys[ref] = key
        else:
            known[ref] = (key, masked_of[key])
    shape_keys = {}
    for row in rows:
        if row[3]:
            key, masked = known[row[0]]
            shape_keys[row[0]] = key
            masked_of[key] = masked
    con.register("cl_shape_keys", pa.table({"shape_id": pa.array(list(shape_keys), pa.uint64()),
                                            "message_key": pa.array(list(shape_keys.values()), pa.string())}))
    try:
        # kept as Arrow, not a DuckDB table: materialising it compressed every row group once more
        events = con.sql(_EVENTS_SQL, params={"ingest_id": ingest_id}).to_arrow_table()
    finally:
        con.unregister("cl_shape_keys")
    if segment_rows:
        events = pa.concat_tables([events, _segment_events(con, segment_rows, event_keys, ingest_id, events.schema)])
    return events, masked_of, bad


def _first(item):
    return item[0]


def _segments(con, lines: pa.Table, shape_rows: list[tuple]) -> list[tuple]:
    """Lines from a line that may open a block (or needs cleaning) up to the next line with a
    header, per file and stream: (file_idx, stream, segment, line_no, env_ts, body) in order, and
    their (file_idx, line_no) as temp table cl_segment_lines. Everything between two closers that
    follows a start is one stretch of Normalizer input (numpy: a window in SQL sorted every line)."""
    cols = con.execute("""SELECT file_idx, CASE stream WHEN 'stdout' THEN 1 WHEN 'stderr' THEN 2 ELSE 0 END AS s,
                                 shape_id FROM cl_lines""").fetchnumpy()
    file_idx, stream, shape_id = (np.asarray(cols[k]) for k in ("file_idx", "s", "shape_id"))
    ids = np.array([r[0] for r in shape_rows], np.uint64)
    order = np.argsort(ids)
    k = order[np.searchsorted(ids, shape_id, sorter=order)]
    start = np.array([r[1] for r in shape_rows], bool)[k]
    closer = np.array([r[2] for r in shape_rows], bool)[k]
    selected = np.flatnonzero(np.isin(file_idx, np.unique(file_idx[start])))
    if len(selected):
        group = file_idx[selected].astype(np.int64) * 4 + stream[selected]
        o = selected[np.argsort(group, kind="stable")]      # by file and stream, in line order
        g = group[np.argsort(group, kind="stable")]
        pos = np.arange(len(o))
        group_start = np.maximum.accumulate(np.where(np.r_[True, g[1:] != g[:-1]], pos, 0))
        last_start = np.maximum.accumulate(np.where(start[o], pos, -1))
        last_close = np.maximum.accumulate(np.where(closer[o], pos, -1))
        last_close = np.where(last_close >= group_start, last_close, group_start - 1)
        inside = (last_start >= group_start) & (last_start > last_close)
        rows, segment = o[inside], last_close[inside]
    else:
        rows, segment = selected, selected
    picked = lines.take(pa.array(rows, pa.int64())).select(["file_idx", "stream", "line_no", "env_ts", "body"])
    con.register("cl_segment_lines_arrow", picked.select(["file_idx", "line_no"]))
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE cl_segment_lines AS SELECT * FROM cl_segment_lines_arrow")
    finally:
        con.unregister("cl_segment_lines_arrow")
    f, st, ln, env, body = (picked.column(c).to_pylist() for c in ("file_idx", "stream", "line_no", "env_ts", "body"))
    return list(zip(f, st, segment.tolist(), ln, env, body))


def _normalize_segments(con, segments: list[tuple]) -> list[tuple]:
    """Each segment through a fresh Normalizer: rows (file_idx, line_no, n_lines, ts, stream, level,
    kind, message, text), as the line-by-line path makes them."""
    refs: dict[int, tuple[int, int, dict]] = {}
    for f, start_line, size, chunk, ref in con.execute(
            "SELECT file_idx, start_line, chunk_lines, chunk, ref FROM cl_refs").fetchall():
        refs.setdefault(f, (start_line, size, {}))[2][chunk] = ref
    rows: list[tuple] = []
    i, n = 0, len(segments)
    while i < n:
        file_idx, stream, segment = segments[i][:3]
        j = i
        while j < n and segments[j][2] == segment and segments[j][0] == file_idx and segments[j][1] == stream:
            j += 1
        seg = segments[i:j]
        start_line, size, by_chunk = refs[file_idx]
        ref = by_chunk.get((seg[0][3] - 1 - start_line) // size)
        norm = Normalizer()
        chunk = LineChunk([s[5] for s in seg], [s[3] for s in seg], [s[4] for s in seg], [stream] * len(seg))
        events, _ = norm.feed_rows(chunk, ref_ts=ref)
        for ev in events + norm.flush_rows():
            rows.append((file_idx, *ev[2:]))
        i = j
    return rows


def _segment_events(con, rows: list[tuple], keys: list[str], ingest_id: int, schema: pa.Schema) -> pa.Table:
    cols = list(zip(*rows))
    table = pa.table({
        "file_idx": pa.array(cols[0], pa.int32()), "line_no": pa.array(cols[1], pa.int64()),
        "n_lines": pa.array(cols[2], pa.int32()), "ts": pa.array(cols[3], pa.string()),
        "stream": pa.array(cols[4], pa.string()), "level": pa.array(cols[5], pa.string()),
        "kind": pa.array(cols[6], pa.string()), "message_key": pa.array(keys, pa.string()),
        "message": pa.array(cols[7], pa.string()),
        "text": pa.array([t if t != m else None for t, m in zip(cols[8], cols[7])], pa.string()),
    })
    con.register("cl_segment_events", table)
    try:
        return con.sql("""
            SELECT f.run_id, f.file_id, e.line_no, e.n_lines, TRY_CAST(e.ts AS TIMESTAMP) AS ts, e.stream,
                   e.level, e.kind, e.message_key, e.message, e.text, CAST(? AS INTEGER) AS ingest_id,
                   (CAST(e.file_idx AS BIGINT) << 32) + e.line_no AS seq
            FROM cl_segment_events e JOIN cl_files f USING (file_idx)""", params=[ingest_id]).to_arrow_table().cast(schema)
    finally:
        con.unregister("cl_segment_events")


def drop_temp(con) -> None:
    """Free the batch's intermediate tables (they hold every line of the batch)."""
    for name in ("cl_lines", "cl_shapes", "cl_files", "cl_refs", "cl_segment_lines"):
        con.execute(f"DROP TABLE IF EXISTS {name}")
