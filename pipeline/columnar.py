"""Columnar ingest: the lines of a decoded batch (pipeline/envelope.py) -> events, by columns.

The line-by-line path (sources.read_chunks -> Normalizer -> MaskCache) costs ~20 us a line in
Python. Here Python only sees what is rare:

- *Shapes.* Two lines that differ only in their digit values are parsed at the same positions
  (normalize.line_shape). The bodies, digit-collapsed, are dictionary-encoded by Arrow (one hash
  table over string views into the batch buffer); Python parses one representative per shape it
  has never seen (~1% of lines on a fleet, fewer as the cache warms) into positions and a
  level, and numpy applies them to every line of the shape: the message of a line is a view
  into the batch buffer at its shape's offsets, its level, key and flags are the shape's.
- *Blocks.* A line that may open a multi-line block (a traceback, a Paddle error dump, a GLOG
  fatal), or that needs cleaning (ANSI escapes, carriage returns), starts a *segment*: it and the
  following lines of its stream up to the next line with a log header (which always closes a
  block). Segments go through the Normalizer itself, so blocks are grouped exactly as there.
- *Message keys* are looked up in log order, over shape representatives and segment events
  together, as the line-by-line path meets them (the mask cache keeps a message's first raw form).
- *Timestamps* are cast by DuckDB from views of the envelope or the header (the year of a
  year-less header from its chunk's first envelope timestamp, as the Normalizer does).

Only files envelope.decode reads exactly like sources.read_chunks come here; anything else goes
back to the line-by-line path, which reports problems; tests check both build identical warehouses.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import envelope, tsparse
from pipeline.envelope import MAX_FILE_BYTES, Planned, eligible  # noqa: F401  (ingest's names)
from pipeline.mining import MaskAhead, MaskCache
from pipeline.normalize import DATE_MD, LineChunk, Normalizer, line_shape

BATCH_BYTES = 32 << 20      # raw bytes per batch: bounds memory, amortises the per-batch cost
LEVELS = [None, "DEBUG", "INFO", "WARNING", "ERROR", "FATAL"]
_LEVEL_CODE = {v: i for i, v in enumerate(LEVELS)}
KINDS = ["line", "py_traceback", "cpp_traceback", "error_summary"]
_KIND_CODE = {v: i for i, v in enumerate(KINDS)}
_DIGITS_TO_ONE = bytes.maketrans(b"0123456789", b"1111111111")


def collapse_digits(strings: pa.Array) -> pa.Array:
    """Every ASCII digit -> "1", on the string buffer itself (one C-level bytes.translate)."""
    strings = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    validity, offsets, data = strings.buffers()
    collapsed = pa.py_buffer(data.to_pybytes().translate(_DIGITS_TO_ONE)) if data is not None else data
    return pa.Array.from_buffers(strings.type, len(strings), [validity, offsets, collapsed], strings.null_count,
                                 strings.offset)


# A shape, as the columns need it: flags, level code, the header/message offsets in bytes (for the
# views and the timestamp), then the offsets in characters (for Python and DuckDB's substr).
(_S_START, _S_CLOSER, _S_EMITS, _S_LEVEL, _S_T0, _S_T1, _S_M0, _S_KIND, _S_D0, _S_DLEN, _S_TM0, _S_TM1, _S_COMMA,
 _S_FACT, _S_CHARS) = range(15)
_C_T0, _C_T1, _C_M0, _C_D0, _C_DLEN, _C_TM0, _C_TM1, _C_COMMA = range(_S_CHARS, _S_CHARS + 8)
_S_WIDTH = _S_CHARS + 8
_ROW = struct.Struct(f"<{_S_WIDTH}i")   # a shape row, packed: 88 bytes a shape in the cache


_NEEDLES: tuple[str, ...] = ()


def _fact_needles() -> tuple[str, ...]:
    global _NEEDLES
    if not _NEEDLES:
        from pipeline.ingest import FACTS
        _NEEDLES = tuple(needle for needle, _ in FACTS.values())
    return _NEEDLES


class ShapeCache:
    """digit-collapsed body -> shape row, and -> message key once the mask cache holds the shape's
    message (from then on every lookup of it returns that key; `masked` has each key's text).
    Bounded: past max_size the older half is forgotten (it costs a re-parse if it comes back); the
    keys are dropped whenever the mask cache is cleared."""

    def __init__(self, max_size: int = 200_000):
        self.max_size = max_size
        self.rows: dict[str, tuple] = {}
        self.keys: dict[str, str] = {}
        self.masked: dict[str, str] = {}
        self.generation = 0

    def forget_older(self) -> None:
        from itertools import islice
        keep = self.max_size // 2
        self.rows = dict(islice(self.rows.items(), len(self.rows) - keep, None))
        self.keys = {s: k for s, k in self.keys.items() if s in self.rows}
        self.masked = {k: self.masked[k] for k in set(self.keys.values())}

    def row(self, shape: str, rep: str) -> tuple:
        """The shape row of a shape never seen, from one line of it (parsed by normalize.line_shape)."""
        parsed = line_shape(rep)
        if parsed is None:   # the Normalizer's: a segment starts here
            row = (True, False, False, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, False, (0,) * 8)
        else:
            fam, level, t0, t1, m0, _opens, kind, d0, dlen, tm0, tm1, comma = parsed
            chars = (t0, t1, m0, d0, dlen, tm0, tm1, comma)
            if rep.isascii():
                b = (t0, t1, m0, d0, tm0, tm1)
            else:  # same bytes for every line of the shape: the non-digit characters are the same
                b = tuple(len(rep[:p].encode("utf-8", "surrogatepass")) for p in (t0, t1, m0, d0, tm0, tm1))
            # may its message hold a fact Paddle prints about itself (ingest.FACTS)? The needles have
            # no digits, so this holds for every line of the shape
            fact = any(needle in rep[m0:t1] for needle in _fact_needles())
            row = (False, fam != 0, t1 > t0, _LEVEL_CODE[level], *b[:3], kind, b[3], dlen, *b[4:], comma, fact, chars)
        packed = _ROW.pack(*row[:_S_CHARS], *row[_S_CHARS])
        self.rows[shape] = packed
        return packed


def normalize_batch(con, batch: envelope.Batch, chunk_lines: int, masks: MaskCache, shapes: ShapeCache,
                    ingest_id: int, ahead: MaskAhead | None = None):
    """Lines of a decoded batch -> (events, {message_key: masked}, bad file indexes); events is an
    Arrow table with ingest.write_batch's `batch` columns (the events columns + seq). Bad files
    (malformed for this path) have no events: the caller reads them again line by line."""
    ahead = ahead or MaskAhead(min_batch=1 << 62)
    prep = prepare(batch, chunk_lines, shapes, masks.generation,
                   lambda messages: ahead.submit(masks.missing(messages)))
    keys, masked_of = masks.lookup(prep.messages(), prep.masked_ahead())
    return finish(con, prep, keys, masked_of, shapes, ingest_id)


@dataclass
class Prepared:
    """A batch read by shape and segment, waiting for its message keys (prepare -> keys -> finish:
    the keys come from the one mask cache, in log order, wherever the batch was prepared)."""
    batch: envelope.Batch
    rows: np.ndarray                 # the batch's lines that are read here (bad files' are not)
    codes: np.ndarray                # shape of each of those lines
    distinct: list[str]              # the shapes
    table: np.ndarray                # their shape rows (ShapeCache), one row each
    refs: "_Refs"
    in_segment: np.ndarray
    segment_rows: list[tuple]
    lookups: list[tuple]             # (position, message, 0 shape / 1 segment event, index), in log order
    known: dict                      # shape index -> (key, masked) of the shapes keyed before
    masked_ahead: object = dict

    def messages(self) -> list[str]:
        return [m for _, m, _, _ in self.lookups]


def prepare(batch: envelope.Batch, chunk_lines: int, shapes: ShapeCache, generation: int,
            submit=None) -> Prepared:
    """Everything of normalize_batch that needs no message key. `submit(messages)`, if given, gets
    the messages of shapes without a key as soon as they are known (to mask them ahead)."""
    rows = np.arange(len(batch), dtype=np.int64)
    if batch.bad_files:
        rows = rows[~np.isin(batch.file_idx, np.array(batch.bad_files, np.int32))]
    # shapes: a dictionary over the digit-collapsed bodies; codes follow first appearance
    encoded = pc.dictionary_encode(batch.strings("body", rows, collapsed=True))
    codes = encoded.indices.to_numpy()
    distinct = encoded.dictionary.cast(pa.string()).to_pylist()
    del encoded
    batch.collapsed = None   # only the shapes needed it (memory stays bounded)
    first = np.empty(len(distinct), np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    if shapes.generation != generation:
        shapes.keys.clear()
        shapes.masked.clear()
        shapes.generation = generation
    if len(shapes.rows) > shapes.max_size:
        shapes.forget_older()
    info = [shapes.rows.get(s) for s in distinct]
    known = shapes.keys
    is_known = np.fromiter((s in known for s in distinct), bool, len(distinct))
    new = [i for i, r in enumerate(info) if r is None]
    reps = dict(zip(new, batch.strings("body", rows[first[new]]).cast(pa.string()).to_pylist())) if new else {}
    for i in new:
        info[i] = shapes.row(distinct[i], reps[i])
    table = np.frombuffer(b"".join(info), np.int32).reshape(len(info), _S_WIDTH).astype(np.int64)
    # shapes whose message key is not known yet: looked up in log order with the segments
    unkeyed_at = np.flatnonzero(table[:, _S_EMITS].astype(bool) & ~is_known).tolist()
    missing = [i for i in unkeyed_at if i not in reps]
    if missing:
        reps.update(zip(missing, batch.strings("body", rows[first[missing]]).cast(pa.string()).to_pylist()))
    unkeyed = [(int(first[i]), reps[i][table[i, _C_M0]:table[i, _C_T1]], i) for i in unkeyed_at]
    masked_ahead = submit([m for _, m, _ in sorted(unkeyed)]) if submit else dict
    start, closer = (table[codes, c].astype(bool) for c in (_S_START, _S_CLOSER))
    refs = _Refs(batch, rows, chunk_lines)
    in_segment, segments = _segments(batch, rows, start, closer)
    segment_rows, handed_back = _normalize_segments(batch, segments, refs)
    in_segment[handed_back] = False
    position = batch.file_idx[rows].astype(np.int64) << 32 | batch.line_no[rows]
    lookups = [(int(position[pos]), message, 0, i) for pos, message, i in unkeyed]
    lookups += [((r[0] << 32) + r[1], r[7], 1, k) for k, r in enumerate(segment_rows)]
    lookups.sort(key=_first)
    keyed = {i: (known[distinct[i]], shapes.masked[known[distinct[i]]])
             for i in np.flatnonzero(table[:, _S_EMITS].astype(bool) & is_known).tolist()}
    return Prepared(batch, rows, codes, distinct, table, refs, in_segment, segment_rows, lookups, keyed,
                    masked_ahead)


def finish(con, prep: Prepared, keys: list[str], masked_of: dict[str, str], shapes: ShapeCache, ingest_id: int):
    """A prepared batch and the keys of its lookups -> (events, {message_key: masked}, bad files)."""
    batch, distinct = prep.batch, prep.distinct
    masked_of = dict(masked_of)
    keyed = dict(prep.known)   # the shapes keyed before this batch, then those keyed by its lookups
    event_keys = [None] * len(prep.segment_rows)
    for (_, _, kind, ref), key in zip(prep.lookups, keys):
        if kind == 1:
            event_keys[ref] = key
        else:
            keyed[ref] = (key, masked_of[key])
            shapes.keys[distinct[ref]] = key
            shapes.masked[key] = masked_of[key]
    key_names: dict[str, int] = {}
    key_of_shape = np.full(len(distinct), -1, np.int32)
    for i, (key, masked) in keyed.items():
        key_of_shape[i] = key_names.setdefault(key, len(key_names))
        masked_of[key] = masked
    segment_keys = np.array([key_names.setdefault(k, len(key_names)) for k in event_keys], np.int32)
    # one dictionary per column for the whole batch: codes mean the same in both tables
    names = list(key_names)
    emits = prep.table[prep.codes, _S_EMITS].astype(bool)
    picked = np.flatnonzero(emits & ~prep.in_segment)
    events = _line_events(con, batch, prep.rows[picked], prep.codes[picked], prep.table, key_of_shape,
                          names, prep.refs, ingest_id)
    if prep.segment_rows:
        events = pa.concat_tables([events, _segment_events(con, batch, prep.segment_rows, segment_keys, names,
                                                           ingest_id, events.schema)])
    return events, masked_of, list(batch.bad_files)


def _first(item):
    return item[0]


def _dictionary(indices: np.ndarray, values: list, valid: np.ndarray | None = None) -> pa.DictionaryArray:
    """A dictionary column; nulls are null indices (Parquet takes no null inside a dictionary)."""
    mask = None if valid is None else ~valid
    values = ["" if v is None else v for v in values]
    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32(), mask=mask), pa.array(values, pa.string()))


def _line_events(con, batch, rows, codes, table, key_of_shape, key_names, refs, ingest_id) -> pa.Table:
    """The events of single lines: views into the batch buffer at their shapes' offsets."""
    n = len(rows)
    t0, t1, m0 = (table[codes, c] for c in (_S_T0, _S_T1, _S_M0))
    file_idx = batch.file_idx[rows]
    line_no = batch.line_no[rows]
    message = batch.strings("body", rows, start_shift=m0, lens=t1 - m0)
    has_text = m0 > t0   # an indented line: the text keeps the indent, the message not
    text = batch.strings("body", rows, start_shift=t0, lens=t1 - t0, valid=has_text)
    level = table[codes, _S_LEVEL]
    stream = batch.stream[rows]
    files = batch.files
    keys = key_of_shape[codes]
    return pa.table({
        "run_id": _dictionary(file_idx, [p.run.run_id for p in files]),
        "file_id": _dictionary(file_idx, [p.file_id for p in files]),
        "line_no": line_no,
        "n_lines": np.ones(n, np.int32),
        "ts": _timestamps(con, batch, rows, codes, table, refs),
        "stream": _dictionary(stream, list(envelope.STREAMS), stream > 0),
        "level": _dictionary(level, LEVELS, level > 0),
        "kind": _dictionary(np.zeros(n, np.int32), KINDS),
        "message_key": _dictionary(keys, key_names),
        "message": message,
        "text": text,
        "ingest_id": np.full(n, ingest_id, np.int32),
        "seq": file_idx.astype(np.int64) << 32 | line_no,
        # not stored: candidates for ingest's facts, and the dictionary codes aggregate() groups by
        "facts": table[codes, _S_FACT].astype(bool),
        **_codes(file_idx, keys, level, np.zeros(n, np.int32)),
    })


def _codes(file_idx, keys, level, kind) -> dict:
    return {"_f": file_idx.astype(np.int32), "_k": keys.astype(np.int32), "_l": level.astype(np.int32),
            "_kd": kind.astype(np.int32)}


# Year of a year-less header date (GLOG "1129", "[11/29 ...]"), from the reference envelope ts of
# the line's chunk: normalize._years_by_month in SQL.
_YEAR_SQL = """CASE WHEN ref IS NULL OR length(ref) < 7 OR NOT regexp_full_match(ref[1:4], '[0-9]{4}')
                      OR mon NOT IN ('01','02','03','04','05','06','07','08','09','10','11','12') THEN NULL
                    WHEN ref[6:7] = '01' AND mon = '12' THEN CAST(CAST(ref[1:4] AS INTEGER) - 1 AS VARCHAR)
                    WHEN ref[6:7] = '12' AND mon = '01' THEN CAST(CAST(ref[1:4] AS INTEGER) + 1 AS VARCHAR)
                    ELSE CAST(CAST(ref[1:4] AS INTEGER) AS VARCHAR) END"""

_TS_SQL = f"""
WITH h AS (
    SELECT i, date_kind, env, head, d0, dlen, ref,
           CASE WHEN comma THEN replace(substr(head, tm0 + 1, tm1 - tm0), ',', '.')
                ELSE substr(head, tm0 + 1, tm1 - tm0) END AS tm,
           substr(head, d0 + 1, 2) AS mon
    FROM ts_lines
), y AS (SELECT *, {_YEAR_SQL} AS year FROM h)
SELECT TRY_CAST(CASE date_kind
           WHEN 0 THEN env
           WHEN 1 THEN replace(substr(head, d0 + 1, 10), '/', '-') || 'T' || tm
           WHEN 2 THEN substr(head, d0 + 1, 4) || '-' || substr(head, d0 + 5, 2) || '-' || substr(head, d0 + 7, 2)
                       || 'T' || tm
           ELSE CASE WHEN year IS NOT NULL AND coalesce(env, '') <> ''
                     THEN year || '-' || mon || '-' || substr(head, d0 + dlen - 1, 2) || 'T' || tm
                     ELSE env END
       END AS TIMESTAMP) AS ts
FROM y ORDER BY i
"""


def _timestamps(con, batch, rows, codes, table, refs) -> pa.Array:
    """Event ts: the envelope's, or the header's (what normalize.shape_ts computes): by position for
    the usual forms (tsparse), cast by DuckDB for the others."""
    n = len(rows)
    kind = table[codes, _S_KIND]
    us, ok = np.zeros(n, np.int64), np.zeros(n, bool)
    header = (kind != 0) & (batch.env_len[rows] <= 0)   # the envelope's clock first (normalize.shape_ts); -1: none
    use_env = ~header
    if header.any():
        h = np.flatnonzero(header)
        c = codes[h]
        d0, dlen, tm0, tm1, comma = (table[c, k] for k in (_S_D0, _S_DLEN, _S_TM0, _S_TM1, _S_COMMA))
        year = np.zeros(len(h), np.int64)
        md = kind[h] == DATE_MD
        if md.any():  # the chunk's reference year, as normalize._years_by_month gives it
            mon = batch.digits("body", rows[h], d0, 2)
            year = refs.year(batch, rows[h], mon)
            env_at = batch.env_len[rows[h]] > 0
            to_env = md & ((year <= 0) | ~env_at)
            use_env[h[to_env]] = True
            year = np.where(to_env, 0, year)
        hu, hok = batch.parse("body", rows[h], tsparse.header, d0, dlen, tm0, tm1, comma.astype(bool), year)
        keep = ~use_env[h]
        us[h[keep]], ok[h[keep]] = hu[keep], hok[keep]
    if use_env.any():
        e = np.flatnonzero(use_env)
        eu, eok = batch.parse("env", rows[e], tsparse.iso)
        us[e], ok[e] = eu, eok
    rest = np.flatnonzero(~ok)
    if len(rest):   # DuckDB reads what tsparse does not take: its result, whatever it is
        us[rest], ok[rest] = _timestamps_sql(con, batch, rows[rest], codes[rest], table, refs, use_env[rest])
    return pa.Array.from_buffers(pa.timestamp("us"), n, [pa.py_buffer(np.packbits(ok, bitorder="little"))
                                                         if not ok.all() else None, pa.py_buffer(us)])


def _timestamps_sql(con, batch, rows, codes, table, refs, env_only):
    kind = np.where(env_only, 0, table[codes, _S_KIND])
    d0, dlen, tm0, tm1, comma = (table[codes, k] for k in (_C_D0, _C_DLEN, _C_TM0, _C_TM1, _C_COMMA))
    ref_line = refs.line_of(batch, rows)
    lines = pa.table({
        "i": np.arange(len(rows), dtype=np.int64), "date_kind": kind.astype(np.int8),
        "env": batch.strings("env", rows), "head": batch.strings("body", rows, lens=table[codes, _S_T1]),
        "d0": d0, "dlen": dlen, "tm0": tm0, "tm1": tm1, "comma": comma.astype(bool),
        "ref": batch.strings("env", np.maximum(ref_line, 0), valid=ref_line >= 0)})
    con.register("ts_lines", lines)
    try:
        ts = con.sql(_TS_SQL).to_arrow_table().column(0).combine_chunks().cast(pa.timestamp("us"))
    finally:
        con.unregister("ts_lines")
    return ts.cast(pa.int64()).fill_null(0).to_numpy(), np.asarray(ts.is_valid())


def _take_views(arr: pa.Array, idx: np.ndarray) -> pa.Array:
    """string_view rows by index (Arrow's take has no kernel for views): the 16-byte structs."""
    buffers = arr.buffers()
    views = np.frombuffer(buffers[1], np.uint8).reshape(-1, 16)[arr.offset:arr.offset + len(arr)]
    valid = np.asarray(arr.is_valid())[idx] if arr.null_count else None
    return envelope.view_array(views[idx], buffers[2:], valid)


class _Refs:
    """Per file chunk (chunk_lines lines from the file's first new line, as read_chunks cuts them):
    the line holding its first non-empty envelope timestamp, the Normalizer's reference for
    year-less header dates."""

    def __init__(self, batch, rows, chunk_lines: int):
        self.chunk_lines = int(chunk_lines)
        self.start_line = np.array([p.lines_read for p in batch.files], np.int64)
        has_env = rows[batch.env_len[rows] > 0]   # truthy: not NULL, not empty
        keys = self.key(batch, has_env)
        # lines are in file and line order, so a key's first occurrence is its chunk's first timestamp
        self.keys, first = np.unique(keys, return_index=True)
        self.lines = has_env[first]
        self.text = batch.strings("env", self.lines).cast(pa.string()).to_pylist()
        # normalize._years_by_month: the reference's year, and its month ("01"/"12" move New Year)
        self.ref_year = np.array([int(t[:4]) if len(t) >= 7 and t[:4].isascii() and t[:4].isdigit() else 0
                                  for t in self.text], np.int64)
        self.ref_month = np.array([{"01": 1, "12": 12}.get(t[5:7], 0) for t in self.text], np.int64)

    def key(self, batch, rows) -> np.ndarray:
        f = batch.file_idx[rows].astype(np.int64)
        return f << 32 | (batch.line_no[rows] - 1 - self.start_line[f]) // self.chunk_lines

    def _find(self, k: np.ndarray) -> np.ndarray:
        if not len(self.keys):
            return np.full(len(k), -1, np.int64)
        i = np.minimum(np.searchsorted(self.keys, k), len(self.keys) - 1)
        return np.where(self.keys[i] == k, i, -1)

    def line_of(self, batch, rows) -> np.ndarray:
        """The reference line of each row's chunk, or -1 (no envelope timestamp in the chunk)."""
        i = self._find(self.key(batch, rows))
        if not len(self.lines):
            return i
        return np.where(i >= 0, self.lines[np.maximum(i, 0)], -1)

    def year(self, batch, rows, month: np.ndarray) -> np.ndarray:
        """The year a header month gets from the row's chunk reference; 0 where there is none."""
        i = self._find(self.key(batch, rows))
        if not len(self.keys):
            return np.zeros(len(rows), np.int64)
        y, rm = self.ref_year[np.maximum(i, 0)], self.ref_month[np.maximum(i, 0)]
        valid = (i >= 0) & (y > 0) & (month >= 1) & (month <= 12)
        y = y - ((rm == 1) & (month == 12)) + ((rm == 12) & (month == 1))
        return np.where(valid, y, 0)

    def ref(self, batch, file_idx: int, line_no: int) -> str | None:
        """The reference timestamp of the chunk of one line (for a segment's Normalizer)."""
        k = (file_idx << 32) | ((line_no - 1 - int(self.start_line[file_idx])) // self.chunk_lines)
        i = int(np.searchsorted(self.keys, k))
        return self.text[i] if i < len(self.keys) and self.keys[i] == k else None


def _segments(batch, rows, start: np.ndarray, closer: np.ndarray):
    """Lines from a line that may open a block (or needs cleaning) up to the next line with a
    header, per file and stream. Returns a mask over `rows` and the segments' lines as
    (file_idx, stream, segment, line_no, env_ts, body) in order. Everything between two closers
    that follows a start is one stretch of Normalizer input."""
    file_idx, stream = batch.file_idx[rows], batch.stream[rows]
    in_segment = np.zeros(len(rows), bool)
    if not start.any():
        return in_segment, []
    selected = np.flatnonzero(np.isin(file_idx, np.unique(file_idx[start])))
    group = file_idx[selected].astype(np.int64) * 4 + stream[selected]
    order = np.argsort(group, kind="stable")
    o, g = selected[order], group[order]       # by file and stream, in line order
    pos = np.arange(len(o))
    group_start = np.maximum.accumulate(np.where(np.r_[True, g[1:] != g[:-1]], pos, 0))
    last_start = np.maximum.accumulate(np.where(start[o], pos, -1))
    last_close = np.maximum.accumulate(np.where(closer[o], pos, -1))
    last_close = np.where(last_close >= group_start, last_close, group_start - 1)
    inside = (last_start >= group_start) & (last_start > last_close)
    picked, segment = o[inside], last_close[inside]
    in_segment[picked] = True
    r = rows[picked]
    body = batch.strings("raw", r).cast(pa.string()).to_pylist()   # the Normalizer cleans them itself
    env = batch.strings("env", r).cast(pa.string()).to_pylist()
    streams = [envelope.STREAMS[s] for s in batch.stream[r].tolist()]
    return in_segment, list(zip(batch.file_idx[r].tolist(), streams, segment.tolist(), batch.line_no[r].tolist(),
                                env, body, picked.tolist(), start[picked].tolist()))


def _normalize_segments(batch, segments: list[tuple], refs: _Refs) -> tuple[list[tuple], list[int]]:
    """The segments through the Normalizer: rows (file_idx, line_no, n_lines, ts, stream, level,
    kind, message, text), as the line-by-line path makes them, and the positions (in `rows`) of
    the segment lines handed back to the columns: once the Normalizer is idle again (no block
    open) every line up to the next start is a plain line, read by its shape exactly as the
    Normalizer reads it (that is what line_shape checks), so a segment costs Python only for the
    lines of its blocks (a progress bar's \r line is one line, not the lines up to the next header)."""
    rows: list[tuple] = []
    back: list[int] = []
    i, n = 0, len(segments)
    while i < n:
        file_idx, stream, segment = segments[i][:3]
        j = i
        while j < n and segments[j][2] == segment and segments[j][0] == file_idx and segments[j][1] == stream:
            j += 1
        seg = segments[i:j]
        ref = refs.ref(batch, file_idx, seg[0][3])
        k = 0
        while k < len(seg):   # seg[k] is a start: alone first (most starts are one line), then the rest
            norm = Normalizer()
            events, _ = norm.feed_rows(LineChunk([seg[k][5]], [seg[k][3]], [seg[k][4]], [stream]), ref_ts=ref)
            k += 1
            if not norm.idle:
                rest = seg[k:]
                more, _ = norm.feed_rows(LineChunk([s[5] for s in rest], [s[3] for s in rest], [s[4] for s in rest],
                                                   [stream] * len(rest)), ref_ts=ref)
                events += more
                k = len(seg)
            for ev in events + norm.flush_rows():
                rows.append((file_idx, *ev[2:]))
            while k < len(seg) and not seg[k][7]:
                back.append(seg[k][6])
                k += 1
        i = j
    return rows, back

def _segment_events(con, batch, rows: list[tuple], keys: np.ndarray, key_names: list[str], ingest_id: int,
                    schema: pa.Schema) -> pa.Table:
    cols = list(zip(*rows))
    file_idx = np.array(cols[0], np.int32)
    line_no = np.array(cols[1], np.int64)
    files = batch.files
    level_code = np.array([_LEVEL_CODE[v] for v in cols[5]], np.int32)
    stream = np.array([envelope.STREAMS.index(s) for s in cols[4]], np.int32)
    kind = np.array([_KIND_CODE[k] for k in cols[6]], np.int32)
    con.register("segment_ts", pa.table({"ts": pa.array(cols[3], pa.string())}))
    try:
        ts = con.sql("SELECT TRY_CAST(ts AS TIMESTAMP) AS ts FROM segment_ts").to_arrow_table().column(0)
    finally:
        con.unregister("segment_ts")
    table = pa.table({
        "run_id": _dictionary(file_idx, [p.run.run_id for p in files]),
        "file_id": _dictionary(file_idx, [p.file_id for p in files]),
        "line_no": line_no,
        "n_lines": pa.array(cols[2], pa.int32()),
        "ts": ts.combine_chunks(),
        "stream": _dictionary(stream, [None, "stdout", "stderr"], stream > 0),
        "level": _dictionary(level_code, LEVELS, level_code > 0),
        "kind": _dictionary(kind, KINDS),
        "message_key": _dictionary(keys, key_names),
        "message": pa.array(cols[7], pa.string()).cast(pa.string_view()),
        "text": pa.array([t if t != m else None for t, m in zip(cols[8], cols[7])], pa.string()).cast(pa.string_view()),
        "ingest_id": np.full(len(rows), ingest_id, np.int32),
        "seq": file_idx.astype(np.int64) << 32 | line_no,
        "facts": np.array([any(n in m for n in _fact_needles()) for m in cols[7]], bool),
        **_codes(file_idx, keys, level_code, kind),
    })
    return table.cast(schema)


def drop_temp(con) -> None:
    """Nothing is kept between batches in DuckDB any more (kept for the callers)."""
