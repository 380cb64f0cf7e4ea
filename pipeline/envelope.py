"""The reader stage of the columnar ingest: a batch of whole log files -> one byte buffer and, per
line, where its body, envelope timestamp and stream are. No Python object per line.

- The files are read into one buffer; newlines, backslashes and control bytes are found with
  numpy over it; checks that sources.read_chunks makes per line (NUL bytes, UTF-8, the line cap)
  are made once per batch and only the files that fail them are looked at one by one.
- docker json-file lines of the usual form, `{"log":"<text>\\n","stream":"stdout","time":"..."}`
  with no other escape in the text, are decoded by position: fixed byte patterns compared as
  machine words at computed offsets. Any other docker line (escapes, other key order, odd
  bytes) and CRI lines whose first three fields are not in their first bytes are decoded by
  DuckDB's JSON/regex SQL, exactly as before, into a second buffer.
- Strings are Arrow string_view arrays pointing into those buffers (`views`): a body, a
  message or a timestamp is never copied to become a column.
"""
from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import sources

FMT_CODES = {"docker": 0, "cri": 1, "plain": 2}
MAX_FILE_BYTES = 64 << 20   # bigger files stream through the line-by-line path (bounded memory)
STREAMS = (None, "stdout", "stderr")
# docker's RFC 3339 time lengths, the usual ones first (nanoseconds, trailing zeros dropped)
_TIME_LENGTHS = (30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, *range(10, 20), *range(31, 36))


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


def _read(path: str, size: int | None) -> bytes:
    """Up to MAX_FILE_BYTES + 1 bytes. The size discovery saw is read first: read() of "up to 64 MB"
    allocates 64 MB for every small file."""
    if "://" not in path or path.startswith("file://"):
        with open(path.removeprefix("file://"), "rb", buffering=0) as f:
            if size is None or size >= MAX_FILE_BYTES:
                return f.read(MAX_FILE_BYTES + 1)
            data = f.read(size + 1)
            if len(data) <= size:
                return data
            return data + f.read(MAX_FILE_BYTES + 1 - len(data))  # it grew since discovery
    import fsspec
    with fsspec.open(path, "rb") as f:
        return f.read(MAX_FILE_BYTES + 1)


def load(planned: Planned) -> bool:
    """Read what is new in a file into planned.data; False if it needs the line-by-line path. Only
    the cheap per-file checks are made here; `Batch` makes the others over the whole batch."""
    compressed = planned.logfile.compressed
    try:
        data = _read(planned.logfile.path, planned.logfile.size)
    except (OSError, ValueError):
        return False
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False  # UTF-16: sources transcodes it
    if data[:2] == b"\x1f\x8b" and (compressed or not planned.offset):
        # gzip is told by content, as sources does, whatever the name; offsets are decompressed
        data = _gunzip(data)
        if data is None:
            return False
        data = data[planned.offset:]
    elif compressed and planned.offset:
        return False
    elif planned.offset:
        data = data[planned.offset:]
    if len(data) > MAX_FILE_BYTES or (data and data[-1] != 10):
        return False
    planned.data, planned.new_bytes = data, len(data)
    return True


# ----------------------------------------------------------------------------- string views

_INLINE = 12
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _low_bytes(n: np.ndarray) -> np.ndarray:
    """Masks keeping the n (0..8) low bytes of a little-endian word."""
    n = np.clip(n, 0, 8).astype(np.uint64)
    return np.where(n >= 8, _ONES, (np.uint64(1) << (n * np.uint64(8))) - np.uint64(1))


def views(data: np.ndarray, starts: np.ndarray, lens: np.ndarray, buffer_index: int) -> np.ndarray:
    """Arrow string_view structs (16 bytes each) for the strings data[starts:starts+lens], as the
    rows of a (n, 16) uint8 array: length, then up to 12 bytes inline, else a 4-byte prefix, the
    buffer index and the offset. Two unaligned word reads per string, no per-byte work."""
    n = len(starts)
    out = np.zeros((n, 2), np.uint64)
    if not n or not len(data):
        return out.view(np.uint8).reshape(n, 16)
    lens = lens.astype(np.int64, copy=False)
    starts = starts.astype(np.int64, copy=False)
    # words that would read past the buffer's end: from a padded copy of its tail
    tail = len(data) - 16
    near = starts > tail
    w = _u64(data)
    safe = np.where(near, 0, starts)
    w0, w1 = w[safe], w[safe + 8]
    if near.any():
        pad = np.zeros(32, np.uint8)
        base = max(tail, 0)
        pad[:len(data) - base] = data[base:]
        pw = _u64(pad)
        off = starts[near] - base
        w0[near], w1[near] = pw[off], pw[off + 8]
    w0 &= _low_bytes(lens)
    w1 &= _low_bytes(lens - 8) & np.uint64(0xFFFFFFFF)
    out[:, 0] = lens.astype(np.uint64) | ((w0 & np.uint64(0xFFFFFFFF)) << np.uint64(32))
    inline = lens <= _INLINE
    out[:, 1] = np.where(inline, (w0 >> np.uint64(32)) | (w1 << np.uint64(32)),
                         np.uint64(buffer_index) | (starts.astype(np.uint64) << np.uint64(32)))
    return out.view(np.uint8).reshape(n, 16)


def view_array(rows: np.ndarray, buffers: list, valid: np.ndarray | None = None) -> pa.Array:
    """A string_view array over `buffers` from the view rows; `valid` False = null."""
    n = len(rows)
    bitmap = None
    if valid is not None and not valid.all():
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string_view(), n, [bitmap, pa.py_buffer(np.ascontiguousarray(rows)),
                                                       *buffers])


# ----------------------------------------------------------------------------- the batch

_DIGITS_TO_ONE = bytes.maketrans(b"0123456789", b"1111111111")
PAD = 32   # zero bytes after every batch buffer: a word read at any string's end stays inside it


def _word(pattern: bytes, dtype) -> int:
    return int(np.frombuffer(pattern, dtype)[0])


_LOG_KEY = _word(b'{"log":"', "<u8")
_STREAM_KEY = (_word(b'","strea', "<u8"), _word(b'm":"', "<u4"))   # '","stream":"'
_TIME_KEY = (_word(b'","time"', "<u8"), _word(b':"', "<u2"))         # '","time":"'
_STDOUT, _STDERR = _word(b"stdout\0\0", "<u8"), _word(b"stderr\0\0", "<u8")


@dataclass
class Batch:
    """A batch of files decoded: per line (numpy, in file and line order) the file, the line number,
    the body and envelope timestamp as (buffer, start, length), the stream code and `bad` (the
    line cannot be read here as sources.read_chunks reads it: its file goes line by line)."""
    files: list[Planned]
    buffers: list[bytes]          # 0: the raw bytes; 1: bodies/timestamps decoded by SQL
    # the same with every ASCII digit turned into "1": made when first asked for (by the thread
    # that normalizes, so a batch waiting in the reader's queue holds one copy of its bytes, not two)
    collapsed: list[bytes] | None
    file_idx: np.ndarray
    line_no: np.ndarray
    body_buf: np.ndarray
    body_start: np.ndarray
    body_len: np.ndarray
    env_buf: np.ndarray
    env_start: np.ndarray
    env_len: np.ndarray           # -1: no envelope timestamp
    stream: np.ndarray            # index into STREAMS
    bad_files: list[int] = field(default_factory=list)
    slow_lines: int = 0           # lines decoded by SQL
    # the body as read, where it differs from `body` (a line cleaned of ANSI escapes and \r
    # overwrites, as the Normalizer cleans it: the cleaned text in buffer 2): what a segment reads
    raw_buf: np.ndarray | None = None
    raw_start: np.ndarray | None = None
    raw_len: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.file_idx)

    def _where(self, which: str, rows):
        if which == "body":
            return self.body_buf[rows], self.body_start[rows], self.body_len[rows]
        if which == "raw":
            return self.raw_buf[rows], self.raw_start[rows], self.raw_len[rows]
        return self.env_buf[rows], self.env_start[rows], self.env_len[rows]

    def parse(self, which: str, rows, parser, *offsets):
        """parser(data, start, length), or with offsets parser(data, d0, dlen, t0, t1, *rest): the
        date and time offsets relative to each row's start, arrays aligned with rows."""
        buf, start, length = self._where(which, rows)
        value, ok = np.zeros(len(buf), np.int64), np.zeros(len(buf), bool)
        used = np.bincount(buf, minlength=len(self.buffers))
        for b, data in enumerate(self.buffers):
            if not used[b]:
                continue
            sel = slice(None) if used[b] == len(buf) else buf == b
            arr = np.frombuffer(data, np.uint8)
            if offsets:
                d0, dlen, t0, t1, *rest = (o[sel] for o in offsets)
                v, k = parser(arr, start[sel] + d0, dlen, start[sel] + t0, start[sel] + t1, *rest)
            else:
                v, k = parser(arr, start[sel], length[sel])
            value[sel], ok[sel] = v, k & (length[sel] >= 0)
        return value, ok

    def digits(self, which: str, rows, offset: np.ndarray, width: int) -> np.ndarray:
        """The number written with `width` ASCII digits at `offset` in each row's string (-1: not digits)."""
        from pipeline.tsparse import digits
        buf, start, _ = self._where(which, rows)
        out = np.full(len(buf), -1, np.int64)
        for b, data in enumerate(self.buffers):
            sel = buf == b
            arr = np.frombuffer(data, np.uint8)
            if len(arr) and sel.any():
                out[sel] = digits(arr, start[sel] + offset[sel], width)
        return out

    def strings(self, which: str, rows: np.ndarray | slice | None = None, collapsed: bool = False,
                start_shift: np.ndarray | None = None, lens: np.ndarray | None = None,
                valid: np.ndarray | None = None) -> pa.Array:
        """A string_view array of the bodies ("body") or envelope timestamps ("env") of `rows`
        (all lines by default); start_shift/lens cut a part of each body (a message, a text)."""
        rows = slice(None) if rows is None else rows
        buf, start, length = self._where(which, rows)
        if start_shift is not None:
            start = start + start_shift
        if lens is not None:
            length = lens
        if which == "env" and valid is None:
            valid = length >= 0
        length = np.maximum(length, 0)
        if collapsed and self.collapsed is None:
            self.collapsed = [b.translate(_DIGITS_TO_ONE) for b in self.buffers]
        src = self.collapsed if collapsed else self.buffers
        only = None if valid is None or valid.all() else valid   # null rows need no view
        used = np.bincount(buf if only is None else buf[only], minlength=len(src))
        if used[0] == used.sum():   # the usual case: every string in the raw buffer
            if only is None:
                out = views(np.frombuffer(src[0], np.uint8), start, length, 0)
            else:
                out = np.zeros((len(start), 16), np.uint8)
                out[only] = views(np.frombuffer(src[0], np.uint8), start[only], length[only], 0)
        else:
            out = np.zeros((len(start), 16), np.uint8)
            for b, data in enumerate(src):
                sel = buf == b if only is None else (buf == b) & only
                if used[b]:
                    out[sel] = views(np.frombuffer(data, np.uint8), start[sel], length[sel], b)
        return view_array(out, [pa.py_buffer(d) for d in src], valid)


def decode(files: list[Planned], cap: int = sources.MAX_LINE_BYTES, buffer: bytearray | None = None) -> Batch:
    """Raw bytes of the files -> Batch (safe in a reader thread: numpy and a private DuckDB).
    `buffer`: the files' bytes already in one buffer, in order (their .data emptied)."""
    if buffer is None:
        buf = b"".join([*(p.data for p in files), bytes(PAD)])
    else:
        buffer += bytes(PAD)
        buf = buffer
    for p in files:  # the buffer holds them now (memory stays bounded)
        p.data = b""
    full = np.frombuffer(buf, np.uint8)            # word reads may run into the padding
    raw = full[:len(buf) - PAD]
    # two scans of the buffer find what every later step needs: control bytes (newlines among
    # them) and backslashes (docker escapes)
    ctrl = _where_bytes(raw, np.less, 32)
    nl = ctrl[raw[ctrl] == 10]
    ctrl = ctrl[raw[ctrl] != 10]
    backslash = _where_bytes(raw, np.equal, 92)
    n = len(nl)
    starts = np.empty(n, np.int64)
    if n:
        starts[0] = 0
        starts[1:] = nl[:-1] + 1
    sizes = np.fromiter((p.new_bytes for p in files), np.int64, len(files))
    file_start = np.zeros(len(files) + 1, np.int64)
    np.cumsum(sizes, out=file_start[1:])
    first = np.searchsorted(nl, file_start)
    per_file = np.diff(first)
    for p, k in zip(files, per_file.tolist()):
        p.new_lines = k
    file_idx = np.repeat(np.arange(len(files), dtype=np.int32), per_file)
    line_no = np.arange(n, dtype=np.int64) + np.repeat(
        np.array([p.lines_read for p in files], np.int64) - first[:-1], per_file) + 1
    fmt = np.array([FMT_CODES[p.logfile.fmt] for p in files], np.int8)[file_idx]
    bad_files = _bad_files(files, buf, raw, nl, starts, file_start, file_idx, fmt, ctrl, backslash, cap)

    body_start, body_end = starts.copy(), nl.copy()
    # one trailing \r goes, as read_chunks drops it (docker's is an escape: those lines take SQL)
    cr = (body_end > body_start) & (raw[np.maximum(body_end - 1, 0)] == 13)
    body_end[cr] -= 1
    env_start, env_len = np.zeros(n, np.int64), np.full(n, -1, np.int64)
    stream = np.zeros(n, np.int8)
    bad = np.zeros(n, bool)
    slow = np.zeros(n, bool)
    _docker(full, starts, nl, fmt == 0, (ctrl, backslash), body_start, body_end, env_start, env_len, stream, slow)
    _cri(full, starts, nl, fmt == 1, body_start, env_start, env_len, stream, bad, slow)

    buffers, body_buf, env_buf = [buf], np.zeros(n, np.int8), np.zeros(n, np.int8)
    body_len = body_end - body_start
    if slow.any():  # the rest: DuckDB's JSON and regex, into a second buffer
        rows = np.flatnonzero(slow)
        aux, (b_start, b_len, e_start, e_len, s, b) = _decode_sql(raw, starts[rows], nl[rows], fmt[rows])
        buffers.append(aux)
        body_buf[rows], body_start[rows], body_len[rows] = 1, b_start, b_len
        env_buf[rows], env_start[rows], env_len[rows] = 1, e_start, e_len
        stream[rows], bad[rows] = s, b
    if bad.any():
        bad_files = sorted(set(bad_files) | set(np.unique(file_idx[bad]).tolist()))
    if len(buffers) == 1:
        buffers.append(bytes(PAD))
    raw_body = (body_buf.copy(), body_start.copy(), body_len.copy())
    # a bad file's lines are read line by line (which reports them): not cleaned here, where an
    # invalid UTF-8 byte beside an ANSI escape would stop the whole batch
    in_bad = np.isin(file_idx, np.array(bad_files, np.int32)) if bad_files else np.zeros(n, bool)
    cleaned = _clean(buffers, ctrl, nl, body_buf, body_start, body_len, in_bad)
    buffers.append(cleaned)
    return Batch(files, buffers, None, file_idx, line_no, body_buf, body_start, body_len, env_buf,
                 env_start, env_len, stream, bad_files, int(slow.sum()), *raw_body)


def _where_bytes(raw: np.ndarray, op, value: int, step: int = 4 << 20) -> np.ndarray:
    """np.flatnonzero(op(raw, value)) a slice at a time: a mask of the whole batch would be a
    temporary as big as its bytes, at the moment two other batches are in memory."""
    if len(raw) <= step:
        return np.flatnonzero(op(raw, value))
    out = np.empty(step, bool)
    parts = []
    for at in range(0, len(raw), step):
        piece = raw[at:at + step]
        hit = op(piece, value, out=out[:len(piece)])
        parts.append(np.flatnonzero(hit) + at)
    return np.concatenate(parts)


def _clean(buffers, ctrl, nl, body_buf, body_start, body_len, skip: np.ndarray) -> bytes:
    """Lines with ANSI escapes or carriage returns, cleaned as the Normalizer cleans them first
    (normalize.clean_line, in Python: a few lines a batch), into a new buffer; their bodies point
    there from now on, so their shapes are the cleaned lines' shapes."""
    from pipeline.normalize import clean_line
    rows = []
    main = ctrl[(np.frombuffer(buffers[0], np.uint8)[ctrl] == 27) | (np.frombuffer(buffers[0], np.uint8)[ctrl] == 13)]
    if len(main):
        line = np.searchsorted(nl, main)
        inside = (body_buf[line] == 0) & (main >= body_start[line]) & (main < body_start[line] + body_len[line])
        rows.append(np.unique(line[inside]))
    aux = np.frombuffer(buffers[1], np.uint8)
    special = np.flatnonzero((aux == 27) | (aux == 13))
    if len(special):
        slow = np.flatnonzero(body_buf == 1)
        order = np.argsort(body_start[slow], kind="stable")
        starts = body_start[slow][order]
        owner = slow[order][np.maximum(np.searchsorted(starts, special, side="right") - 1, 0)]
        inside = (special >= body_start[owner]) & (special < body_start[owner] + body_len[owner])
        rows.append(np.unique(owner[inside]))
    relayed = _relayed(buffers, body_buf, body_start, body_len, skip)
    if len(relayed):
        rows.append(relayed)
    if not rows:
        return bytes(PAD)
    rows = np.unique(np.concatenate(rows))
    rows = rows[~skip[rows]]
    out, pos = [], 0
    for r in rows.tolist():
        data = buffers[body_buf[r]]
        text = data[body_start[r]:body_start[r] + body_len[r]].decode("utf-8", "surrogatepass")
        clean = clean_line(text)
        if clean == text:
            continue
        encoded = clean.encode("utf-8", "surrogatepass")
        out.append(encoded)
        body_buf[r], body_start[r], body_len[r] = 2, pos, len(encoded)
        pos += len(encoded)
    return b"".join([*out, bytes(PAD)])


def _relayed(buffers, body_buf, body_start, body_len, skip: np.ndarray) -> np.ndarray:
    """Lines whose body starts with a relay prefix (normalize.RELAY_PREFIX: "[1,0]<stderr>:",
    "(pid=12) "...): normalize.may_be_relayed on the first bytes of all lines (a "[2026/11/29"
    header is no candidate: no "," among bytes 2-6, no "r", "d" or "p" second; a "[2024-07-22"
    one is, for Airflow's prefix), the pattern
    (RE2) over the few that pass. Compose's "name-1  | " is not looked for here: such lines go to the Normalizer
    (line_shape refuses them), right but slower."""
    from pipeline.normalize import RELAY_PREFIX
    # the first 8 bytes of every body in one word read (every buffer ends in PAD zero bytes)
    head = np.zeros(len(body_start), np.uint64)
    for b, data in enumerate(buffers[:2]):
        sel = np.flatnonzero((body_buf == b) & (body_len > 0))
        if len(sel):
            head[sel] = _u64(np.frombuffer(data, np.uint8))[body_start[sel]]
    byte = [((head >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8) for k in range(7)]
    second = byte[1]
    comma = np.logical_or.reduce([b == ord(",") for b in byte[2:7]])
    year = np.logical_and.reduce([(b >= ord("0")) & (b <= ord("9")) for b in byte[1:5]]) & (byte[5] == ord("-"))
    square = (byte[0] == ord("[")) & ((second == ord("r")) | (second == ord("d")) | (second == ord("p"))
                                      | ((second >= ord("0")) & (second <= ord("9")) & comma) | year)
    candidates = np.flatnonzero((square | (byte[0] == ord("(")) | (byte[0] == ord(">"))) & ~skip)
    if not len(candidates):
        return candidates
    out = np.zeros((len(candidates), 16), np.uint8)
    for b, data in enumerate(buffers[:2]):
        sel = body_buf[candidates] == b
        if sel.any():
            c = candidates[sel]
            out[sel] = views(np.frombuffer(data, np.uint8), body_start[c], body_len[c], b)
    strings = view_array(out, [pa.py_buffer(d) for d in buffers[:2]])
    hit = pc.match_substring_regex(strings.cast(pa.string()), "^" + RELAY_PREFIX)
    return candidates[np.asarray(hit.fill_null(False))]


def _bad_files(files, buf: bytes, raw, nl, starts, file_start, file_idx, fmt, ctrl, backslash, cap: int
               ) -> list[int]:
    """Files that break what read_chunks would read as is: NUL bytes, invalid UTF-8, a line over the
    cap, docker's escaped NUL or lone surrogates. Checked over the whole buffer, then per file."""
    bad: set[int] = set()
    last = len(file_idx) - 1
    if last >= 0:
        nul = np.minimum(np.searchsorted(nl, ctrl[raw[ctrl] == 0]), last)
        escaped = np.minimum(np.searchsorted(nl, _escapes(raw, backslash)), last)
        escaped = escaped[fmt[escaped] == 0]
        bad.update(np.unique(file_idx[np.concatenate([nul, escaped])]).tolist())
    if not buf.isascii():
        try:
            pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(np.array([0, len(buf)], np.int64)
                                                                     .astype(np.int32 if len(buf) < 1 << 31
                                                                             else np.int64)),
                                                    pa.py_buffer(buf)]).validate(full=True)
        except pa.ArrowInvalid:
            for i in range(len(files)):
                if not _valid_utf8(buf[file_start[i]:file_start[i + 1]]):
                    bad.add(i)
    if len(nl):
        long_ = np.flatnonzero(nl - starts > cap)
        bad.update(np.unique(file_idx[long_]).tolist())
    bad.update(i for i in _binary(files, buf, raw, ctrl, file_start) if i not in bad)
    return sorted(bad)


_NOT_COUNTED = np.zeros(256, bool)
_NOT_COUNTED[list(b"\t\n\r\x0b\x0c\x08\x1b")] = True


def _binary(files, buf: bytes, raw, ctrl, file_start) -> list[int]:
    """sources._is_binary of each new file's first BINARY_SAMPLE bytes, by counting: a file that gets
    here has no NUL and valid UTF-8, so what _is_binary counts is its control bytes (and DEL)."""
    if not len(files):
        return []
    counted = ctrl[~_NOT_COUNTED[raw[ctrl]]]
    if buf.find(b"\x7f", 0, len(raw)) >= 0:
        counted = np.sort(np.concatenate([counted, np.flatnonzero(raw == 0x7F)]))
    ends = np.minimum(file_start[1:], file_start[:-1] + sources.BINARY_SAMPLE)
    n = np.searchsorted(counted, ends) - np.searchsorted(counted, file_start[:-1])
    size = ends - file_start[:-1]
    new = np.array([p.offset == 0 for p in files], bool)
    return np.flatnonzero(new & (n > sources.BINARY_RATIO * size)).tolist()


def _escapes(raw, backslash) -> np.ndarray:
    """Positions of the escapes read_chunks refuses in docker text: \\u0000 and \\ud/\\uD (a
    lone surrogate)."""
    b = backslash[backslash + 2 < len(raw)]
    u = b[raw[b + 1] == ord("u")]
    if not len(u):
        return u
    third = raw[np.minimum(u + 2, len(raw) - 1)]
    hit = (third == ord("d")) | (third == ord("D"))
    zero = u[(third == ord("0")) & (u + 5 < len(raw))]
    zero = zero[(raw[zero + 3] == ord("0")) & (raw[zero + 4] == ord("0")) & (raw[zero + 5] == ord("0"))]
    return np.union1d(u[hit], zero)


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _u64(raw: np.ndarray) -> np.ndarray:
    """Every unaligned 8-byte word of the buffer (a strided view, no copy)."""
    return np.ndarray((max(len(raw) - 7, 0),), "<u8", raw, 0, (1,))


def _docker(raw, starts, nl, rows, special, body_start, body_end, env_start, env_len, stream, slow) -> None:
    """`{"log":"<text>\\n","stream":"<s>","time":"<t>"}` by position; other lines -> slow."""
    d = np.flatnonzero(rows)
    if not len(d):
        return
    s, e = starts[d], nl[d]
    w64 = _u64(raw)
    long_enough = e - s >= 48   # the shortest such line, with room for every word read below
    s_ok = np.where(long_enough, s, 0)
    e_ok = np.where(long_enough, e, 48)
    ok = long_enough & (w64[s_ok] == _LOG_KEY) & (raw[e_ok - 1] == ord("}")) & (raw[e_ok - 2] == ord('"'))
    # the time value: its opening quote is the first quote before the closing one (no quote in a time)
    t_open = np.full(len(d), -1, np.int64)
    todo = np.flatnonzero(ok)
    for length in _TIME_LENGTHS:
        q = e_ok[todo] - 3 - length
        hit = raw[q] == ord('"')
        t_open[todo[hit]] = q[hit]
        todo = todo[~hit]
        if not len(todo):
            break
    ok &= t_open > s_ok + 30
    t_open = np.where(ok, t_open, s_ok + 40)
    ok &= (w64[t_open - 9] == _TIME_KEY[0]) & ((w64[t_open - 1] & 0xFFFF) == _TIME_KEY[1])
    s_open = t_open - 16                       # the stream value's opening quote
    value = w64[s_open + 1] & 0xFFFFFFFFFFFF
    is_out, is_err = value == _STDOUT, value == _STDERR
    ok &= (is_out | is_err) & (raw[s_open + 7] == ord('"'))
    ok &= (w64[s_open - 11] == _STREAM_KEY[0]) & ((w64[s_open - 3] & 0xFFFFFFFF) == _STREAM_KEY[1])
    v_end = s_open - 11                        # the log value's closing quote
    ok &= (raw[v_end - 1] == ord("n")) & (raw[v_end - 2] == ord("\\"))
    # no other escape and no raw control byte in the line (JSON needs SQL then)
    count = sum(np.searchsorted(positions, e) - np.searchsorted(positions, s) for positions in special)
    ok &= count == 1
    good = d[ok]
    body_start[good], body_end[good] = s[ok] + 8, v_end[ok] - 2
    env_start[good], env_len[good] = t_open[ok] + 1, e[ok] - 2 - (t_open[ok] + 1)
    stream[good] = np.where(is_out[ok], 1, 2)
    slow[d[~ok]] = True


def _cri(raw, starts, nl, rows, body_start, env_start, env_len, stream, bad, slow) -> None:
    """`<ts> <stream> <tag> <text>` split at the first three spaces, as str.split(" ", 3): the
    timestamp is 10-35 ASCII bytes, then "stdout "/"stderr " and "F " (a "P " partial is bad)."""
    c = np.flatnonzero(rows)
    if not len(c):
        return
    s, e = starts[c], nl[c]
    w64 = _u64(raw)
    room = e - s >= 46                     # every word read below lies inside the line
    s = np.where(room, s, 0)
    first = np.full(len(c), -1, np.int64)
    todo = np.flatnonzero(room)
    for length in _TIME_LENGTHS:
        hit = raw[s[todo] + length] == 32
        first[todo[hit]] = length
        todo = todo[~hit]
        if not len(todo):
            break
    ok = first > 0
    f = np.where(ok, first, 10)
    # no space and no byte >= 0x80 before the first space found: it is the first, the ts is ASCII
    for k in range(0, 40, 8):
        word = w64[s + np.minimum(k, f - 8)]
        ok &= (word & 0x8080808080808080) == 0
        ok &= ~_has_byte(word, 32) | (k >= f)
    looks_ts = (raw[s] >= ord("0")) & (raw[s] <= ord("9"))
    value = w64[s + f + 1] & 0xFFFFFFFFFFFF
    is_out, is_err = value == _STDOUT, value == _STDERR
    spaced = (raw[s + f + 7] == 32) & (raw[s + f + 9] == 32)
    tag = raw[s + f + 8]
    fine = ok & looks_ts & (is_out | is_err) & spaced & (tag == ord("F"))
    g = c[fine]
    body_start[g] = s[fine] + f[fine] + 10
    env_start[g], env_len[g] = s[fine], f[fine]
    stream[g] = np.where(is_out[fine], 1, 2)
    partial = ok & looks_ts & (is_out | is_err) & spaced & (tag == ord("P"))
    bad[c[partial]] = True      # a P partial: the file goes line by line
    slow[c[~(fine | partial)]] = True


def _has_byte(words: np.ndarray, byte: int) -> np.ndarray:
    """Whether any of the 8 bytes of each word is `byte` (the classic SWAR zero-byte test)."""
    x = words ^ np.uint64(0x0101010101010101 * byte)
    return ((x - np.uint64(0x0101010101010101)) & ~x & np.uint64(0x8080808080808080)) != 0


# The envelope of the lines the fast paths do not take; `body` is the logical line as
# sources.read_chunks gives it.
_ENVELOPE_SQL = """
WITH dec AS (
    SELECT i, fmt, line,
           CASE WHEN fmt = 0 THEN try(json_transform(line, '{"log":"VARCHAR","stream":"VARCHAR","time":"VARCHAR"}')) END AS j,
           -- CRI "<ts> <stream> <tag> <text>", split at the first three spaces like str.split(" ", 3)
           CASE WHEN fmt = 1 THEN regexp_extract(line, '^([^ ]*) ([^ ]*) ([^ ]*) ', ['ts', 'stream', 'tag']) END AS c
    FROM slow_lines
), env AS (
    SELECT i,
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
SELECT i, CASE stream WHEN 'stdout' THEN 1 WHEN 'stderr' THEN 2 ELSE 0 END AS stream, env_ts, bad,
       coalesce(CASE WHEN suffix(t, chr(13)) THEN left(t, -1) ELSE t END, '') AS body
FROM unwrapped ORDER BY i
"""


_LOCAL = threading.local()


def _private_duckdb():
    """An in-memory DuckDB for this thread (opening one costs ~20 ms: once per thread, not per batch)."""
    con = getattr(_LOCAL, "con", None)
    if con is None:
        import duckdb
        con = _LOCAL.con = duckdb.connect(config={"memory_limit": "256MB", "threads": 1})
    return con


def _decode_sql(raw, starts, ends, fmt):
    """DuckDB decodes these lines; their bodies and timestamps go to a new buffer."""
    lens = ends - starts
    line_views = views(raw, starts, lens, 0)
    lines = view_array(line_views, [pa.py_buffer(raw)])
    table = pa.table({"i": np.arange(len(starts), dtype=np.int64), "fmt": fmt, "line": lines.cast(pa.string())})
    con = _private_duckdb()
    con.register("slow_lines", table)
    try:
        out = con.sql(_ENVELOPE_SQL).to_arrow_table()
    finally:
        con.unregister("slow_lines")
    body = out.column("body").combine_chunks().cast(pa.large_string())
    env = out.column("env_ts").combine_chunks().cast(pa.large_string())
    b_off = np.frombuffer(body.buffers()[1], np.int64)[body.offset:body.offset + len(body) + 1]
    e_off = np.frombuffer(env.buffers()[1], np.int64)[env.offset:env.offset + len(env) + 1]
    b_data = body.buffers()[2].to_pybytes() if body.buffers()[2] is not None else b""
    e_data = env.buffers()[2].to_pybytes() if env.buffers()[2] is not None else b""
    aux = b_data[:b_off[-1]] + e_data[:e_off[-1]] + bytes(PAD)
    e_len = np.diff(e_off)
    e_valid = np.asarray(env.is_valid())
    return aux, (b_off[:-1].copy(), np.diff(b_off), e_off[:-1] + int(b_off[-1]), np.where(e_valid, e_len, -1),
                 out.column("stream").to_numpy().astype(np.int8), out.column("bad").to_numpy(zero_copy_only=False))
