"""Timestamps by position, with numpy: what DuckDB's TRY_CAST(... AS TIMESTAMP) gives for the
usual forms, as microseconds since the epoch, and `ok` False wherever a string is not exactly one
of them (the caller casts those with DuckDB, so every other form keeps DuckDB's own reading).

    YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z]      (docker/CRI envelopes; fraction truncated to us)
    a header's date (YYYY-MM-DD, YYYY/MM/DD, YYYYMMDD, or MM/DD, MMDD with a given year) and time
"""
from __future__ import annotations

import numpy as np

_US_PER_DAY = 86_400_000_000


def _at(data: np.ndarray, pos: np.ndarray) -> np.ndarray:
    return data[np.clip(pos, 0, len(data) - 1)].astype(np.int64)


def _num(data: np.ndarray, pos: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    value = np.zeros(len(pos), np.int64)
    ok = np.ones(len(pos), bool)
    for k in range(width):
        c = _at(data, pos + k) - 48
        ok &= (c >= 0) & (c <= 9)
        value = value * 10 + c
    return value, ok


def digits(data: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """The number written with `width` ASCII digits at pos, -1 where they are not all digits."""
    value, ok = _num(data, pos, width)
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


def _time(data, t0, t1, comma: np.ndarray | bool):
    """HH:MM:SS[.f{1,9}] (or ',' where comma) filling t0..t1 exactly -> us in the day, ok."""
    h, ok = _num(data, t0, 2)
    mi, ok2 = _num(data, t0 + 3, 2)
    s, ok3 = _num(data, t0 + 6, 2)
    ok &= ok2 & ok3 & (_at(data, t0 + 2) == 58) & (_at(data, t0 + 5) == 58)
    ok &= (h <= 23) & (mi <= 59) & (s <= 59)
    rest = t1 - t0 - 8
    sep = _at(data, t0 + 8)
    ok &= (rest == 0) | ((rest >= 2) & (rest <= 10) & ((sep == 46) | ((sep == 44) & comma)))
    frac = np.zeros(len(t0), np.int64)
    digits = rest - 1
    for k in range(9):
        has = k < digits
        c = _at(data, t0 + 9 + k) - 48
        ok &= ~has | ((c >= 0) & (c <= 9))
        if k < 6:
            frac += np.where(has, c, 0) * 10 ** (5 - k)
    return ((h * 60 + mi) * 60 + s) * 1_000_000 + frac, ok


def _assemble(y, m, d, day_us, ok):
    ok = ok & (y >= 1) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= _month_days(y, m))
    return np.where(ok, _days_from_civil(y, m, d) * _US_PER_DAY + day_us, 0), ok


def iso(data: np.ndarray, start: np.ndarray, length: np.ndarray):
    """YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z] filling data[start:start+length]."""
    y, ok = _num(data, start, 4)
    m, ok2 = _num(data, start + 5, 2)
    d, ok3 = _num(data, start + 8, 2)
    sep = _at(data, start + 10)
    ok &= ok2 & ok3 & (_at(data, start + 4) == 45) & (_at(data, start + 7) == 45) & ((sep == 84) | (sep == 32))
    end = start + length
    zulu = (length > 19) & (_at(data, end - 1) == 90)
    day_us, ok4 = _time(data, start + 11, end - zulu, False)
    return _assemble(y, m, d, day_us, ok & ok4 & (length >= 19))


def header(data: np.ndarray, d0: np.ndarray, dlen: np.ndarray, t0: np.ndarray, t1: np.ndarray,
           comma: np.ndarray, year: np.ndarray | None = None):
    """A header's date (10 chars "YYYY-MM-DD"/"YYYY/MM/DD", 8 "YYYYMMDD", or 4 "MMDD"/5 "MM/DD" with
    `year`) and its time at t0..t1, all byte offsets into data."""
    ten, eight = dlen == 10, dlen == 8
    y, ok = _num(data, d0, 4)
    m_at = np.where(ten, d0 + 5, np.where(eight, d0 + 4, d0))
    d_at = np.where(ten, d0 + 8, np.where(eight, d0 + 6, d0 + dlen - 2))
    m, ok2 = _num(data, m_at, 2)
    d, ok3 = _num(data, d_at, 2)
    ok = np.where(ten | eight, ok, True) & ok2 & ok3
    s1, s2 = _at(data, d0 + 4), _at(data, d0 + 7)
    ok &= ~ten | (((s1 == 45) | (s1 == 47)) & ((s2 == 45) | (s2 == 47)))
    ok &= ten | eight | (dlen == 4) | (dlen == 5)
    if year is not None:   # 4-digit years only: DuckDB's reading of others is left to DuckDB
        y = np.where(ten | eight, y, year)
        ok &= ten | eight | ((year >= 1000) & (year <= 9999))
    else:
        ok &= ten | eight
    day_us, ok4 = _time(data, t0, t1, comma)
    return _assemble(y, m, d, day_us, ok & ok4)
