"""Timestamps by position, with numpy: what DuckDB's TRY_CAST(... AS TIMESTAMP) gives for the
usual forms, as microseconds since the epoch, and `ok` False wherever a string is not exactly one
of them (the caller casts those with DuckDB, so every other form keeps DuckDB's own reading).

    YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z]      (docker/CRI envelopes; fraction truncated to us)
    a header's date (YYYY-MM-DD, YYYY/MM/DD, YYYYMMDD, or MM/DD, MMDD with a given year) and time

Bytes are read eight at a time (unaligned words over the buffer): a date or a time costs a few
word operations per line, not a gather per character.
"""
from __future__ import annotations

import numpy as np

_US_PER_DAY = 86_400_000_000
_U8 = np.uint64(8)
_FF = np.uint64(0xFF)


class _Words:
    """Unaligned little-endian 8-byte words of a buffer, readable at any offset: the buffer must
    have 16 readable bytes after every position read (envelope.Batch pads its buffers)."""

    def __init__(self, data: np.ndarray):
        self.words = np.ndarray((max(len(data) - 7, 1),), "<u8", data, 0, (1,))

    def at(self, pos: np.ndarray) -> np.ndarray:
        return self.words[np.clip(pos, 0, len(self.words) - 1)]


def _byte(word: np.ndarray, k: int) -> np.ndarray:
    return ((word >> np.uint64(8 * k)) & _FF).astype(np.int64)


def _digits(word: np.ndarray, ks) -> tuple[np.ndarray, np.ndarray]:
    value = np.zeros(len(word), np.int64)
    ok = np.ones(len(word), bool)
    for k in ks:
        c = _byte(word, k) - 48
        ok &= (c >= 0) & (c <= 9)
        value = value * 10 + c
    return value, ok


def digits(data: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """The number written with `width` (<= 8) ASCII digits at pos, -1 where they are not all digits."""
    value, ok = _digits(_Words(data).at(pos), range(width))
    return np.where(ok, value, -1)


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _month_days(y, m):
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    days = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)[np.clip(m, 0, 12)]
    return days + ((m == 2) & leap)


def _time(w: _Words, t0, t1, comma):
    """HH:MM:SS[.f{1,9}] (or ',' where comma) filling t0..t1 exactly -> us in the day, ok."""
    hms = w.at(t0)
    h, ok = _digits(hms, (0, 1))
    mi, ok2 = _digits(hms, (3, 4))
    s, ok3 = _digits(hms, (6, 7))
    ok &= ok2 & ok3 & (_byte(hms, 2) == 58) & (_byte(hms, 5) == 58) & (h <= 23) & (mi <= 59) & (s <= 59)
    rest = t1 - t0 - 8
    frac_word = w.at(t0 + 8)           # the separator and up to 7 digits
    more = w.at(t0 + 16)               # digits 8 and 9
    sep = _byte(frac_word, 0)
    ok &= (rest == 0) | ((rest >= 2) & (rest <= 10) & ((sep == 46) | ((sep == 44) & comma)))
    count = rest - 1
    frac = np.zeros(len(t0), np.int64)
    for k in range(9):
        c = (_byte(frac_word, k + 1) if k < 7 else _byte(more, k - 7)) - 48
        has = k < count
        ok &= ~has | ((c >= 0) & (c <= 9))
        if k < 6:
            frac += np.where(has, c, 0) * 10 ** (5 - k)
    return ((h * 60 + mi) * 60 + s) * 1_000_000 + frac, ok


def _assemble(y, m, d, day_us, ok):
    ok = ok & (y >= 1) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= _month_days(y, m))
    return np.where(ok, _days_from_civil(y, m, d) * _US_PER_DAY + day_us, 0), ok


def iso(data: np.ndarray, start: np.ndarray, length: np.ndarray):
    """YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z] filling data[start:start+length]."""
    w = _Words(data)
    date = w.at(start)                 # "YYYY-MM-"
    tail = w.at(start + 8)             # "DDTHH:MM"
    y, ok = _digits(date, range(4))
    m, ok2 = _digits(date, (5, 6))
    d, ok3 = _digits(tail, (0, 1))
    sep = _byte(tail, 2)
    ok &= ok2 & ok3 & (_byte(date, 4) == 45) & (_byte(date, 7) == 45) & ((sep == 84) | (sep == 32))
    end = start + length
    last = _byte(w.at(np.maximum(end - 8, 0)), 7)
    zulu = (length > 19) & (last == 90)
    day_us, ok4 = _time(w, start + 11, end - zulu, False)
    return _assemble(y, m, d, day_us, ok & ok4 & (length >= 19))


def header(data: np.ndarray, d0: np.ndarray, dlen: np.ndarray, t0: np.ndarray, t1: np.ndarray,
           comma: np.ndarray, year: np.ndarray | None = None):
    """A header's date (10 chars "YYYY-MM-DD"/"YYYY/MM/DD", 8 "YYYYMMDD", or 4 "MMDD"/5 "MM/DD" with
    `year`) and its time at t0..t1, all byte offsets into data."""
    w = _Words(data)
    ten, eight = dlen == 10, dlen == 8
    date, tail = w.at(d0), w.at(d0 + 8)
    y, ok = _digits(date, range(4))
    m10, ok10 = _digits(date, (5, 6))
    d10, ok10b = _digits(tail, (0, 1))
    s1, s2 = _byte(date, 4), _byte(date, 7)
    ok10 &= ok10b & ((s1 == 45) | (s1 == 47)) & ((s2 == 45) | (s2 == 47))
    m8, ok8 = _digits(date, (4, 5))
    d8, ok8b = _digits(date, (6, 7))
    m_md, ok_m = _digits(date, (0, 1))
    d_md, ok_d = _digits(w.at(d0 + dlen - 2), (0, 1))
    m = np.where(ten, m10, np.where(eight, m8, m_md))
    d = np.where(ten, d10, np.where(eight, d8, d_md))
    ok = np.where(ten, ok & ok10, np.where(eight, ok & ok8 & ok8b, ok_m & ok_d & ((dlen == 4) | (dlen == 5))))
    if year is not None:   # 4-digit years only: DuckDB's reading of others is left to DuckDB
        y = np.where(ten | eight, y, year)
        ok &= ten | eight | ((year >= 1000) & (year <= 9999))
    else:
        ok &= ten | eight
    day_us, ok4 = _time(w, t0, t1, comma)
    return _assemble(y, m, d, day_us, ok & ok4)
