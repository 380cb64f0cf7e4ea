"""Timestamps by position, with numpy: what DuckDB's TRY_CAST(... AS TIMESTAMP) gives for the
usual forms, as microseconds since the epoch, and `ok` False wherever a string is not exactly one
of them (the caller casts those with DuckDB, so every other form keeps DuckDB's own reading).

    YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z]      (docker/CRI envelopes; fraction truncated to us)
    a header's date (YYYY-MM-DD, YYYY/MM/DD, YYYYMMDD, or MM/DD, MMDD with a given year) and time

Bytes are read eight at a time (unaligned words) and digits checked and combined eight lanes at
once (SWAR); a date-and-minute prefix is parsed only where it differs from the line before (log
lines come in time order, so that is rarely). The buffer must have 16 readable bytes after every
position read (envelope.Batch pads its buffers).
"""
from __future__ import annotations

import numpy as np

_US_PER_DAY = 86_400_000_000
U = np.uint64
_LANES = [U(0xFF << (8 * k)) for k in range(8)]
_ZEROS = U(0x3030303030303030)
_HIGH = U(0xF0F0F0F0F0F0F0F0)
_LOW = U(0x0F0F0F0F0F0F0F0F)
_SIX = U(0x0606060606060606)
_CARRY = U(0x1010101010101010)


class _Words:
    """Unaligned little-endian 8-byte words of a buffer, readable at any offset."""

    def __init__(self, data: np.ndarray):
        self.words = np.ndarray((max(len(data) - 7, 1),), "<u8", data, 0, (1,))

    def at(self, pos: np.ndarray) -> np.ndarray:
        return self.words[np.clip(pos, 0, len(self.words) - 1)]


def _mask(lanes) -> np.uint64:
    m = 0
    for k in lanes:
        m |= 0xFF << (8 * k)
    return U(m)


def _are_digits(word: np.ndarray, mask) -> np.ndarray:
    """Whether the bytes of `word` in `mask` (a constant or an array of lane masks) are ASCII digits."""
    w = word & mask
    return ((w & _HIGH) == (_ZEROS & mask)) & ((((w & _LOW) + (_SIX & mask)) & _CARRY & mask) == 0)


def _digit_lanes(word: np.ndarray, mask) -> np.ndarray:
    """The digit values in the lanes of `mask` (0 elsewhere)."""
    return ((word & mask) - (_ZEROS & mask)) & _LOW


def _value(d: np.ndarray, first: int, width: int) -> np.ndarray:
    """The number in digit lanes first..first+width-1 of d (most significant first)."""
    v = np.zeros(len(d), np.int64)
    for k in range(first, first + width):
        v = v * 10 + ((d >> U(8 * k)) & U(0xF)).astype(np.int64)
    return v


def _byte(word: np.ndarray, k: int) -> np.ndarray:
    return (word >> U(8 * k)) & U(0xFF)


def digits(data: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """The number written with `width` (<= 8) ASCII digits at pos, -1 where they are not all digits."""
    word = _Words(data).at(pos)
    m = _mask(range(width))
    return np.where(_are_digits(word, m), _value(_digit_lanes(word, m), 0, width), -1)


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


def _date_us(y, m, d, ok):
    ok = ok & (y >= 1) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= _month_days(y, m))
    return np.where(ok, _days_from_civil(y, m, d) * _US_PER_DAY, 0), ok


def _fraction(frac_lo: np.ndarray, frac_hi: np.ndarray, count: np.ndarray):
    """us from 1..9 fraction digits: the first 8 in frac_lo's lanes, the 9th in frac_hi's lane 0."""
    count = np.clip(count, 0, 9)
    shift = np.minimum(count, 7).astype(U) * U(8)
    mask = np.where(count >= 8, U(0xFFFFFFFFFFFFFFFF), (U(1) << shift) - U(1))
    ok = _are_digits(frac_lo, mask) & ((count < 9) | _are_digits(frac_hi, _LANES[0]))
    # the 8 digit lanes as one number (zeros past `count`), three multiply-adds for all lanes
    x = _digit_lanes(frac_lo, mask)
    x = (x * U(10) + (x >> U(8))) & U(0x00FF00FF00FF00FF)
    x = (x * U(100) + (x >> U(16))) & U(0x0000FFFF0000FFFF)
    x = (x * U(10000) + (x >> U(32))) & U(0xFFFFFFFF)
    return (x // U(100)).astype(np.int64), ok   # 6 digits: microseconds, the rest truncated


def _hour_minute(hm: np.ndarray):
    """HH:MM in the low 5 bytes of hm -> (minutes in the day, ok)."""
    ok = _are_digits(hm, _mask((0, 1, 3, 4))) & (_byte(hm, 2) == 58)
    d = _digit_lanes(hm, _mask((0, 1, 3, 4)))
    h, mi = _value(d, 0, 2), _value(d, 3, 2)
    return h * 60 + mi, ok & (h <= 23) & (mi <= 59)


def _seconds(w: _Words, t0, t1, comma):
    """The ":SS[.f{1,9}]" (or ',' where comma) of a clock at t0 filling t0..t1 -> (us, ok)."""
    ss = w.at(t0 + 5)
    ok = (_byte(ss, 0) == 58) & _are_digits(ss, _mask((1, 2)))
    s = _value(_digit_lanes(ss, _mask((1, 2))), 1, 2)
    ok &= s <= 59
    rest = t1 - t0 - 8
    tail, more = w.at(t0 + 8), w.at(t0 + 16)    # the separator and digits 1-7, digits 8 and 9
    sep = _byte(tail, 0)
    ok &= (rest == 0) | ((rest >= 2) & (rest <= 10) & ((sep == 46) | ((sep == 44) & comma)))
    frac, fok = _fraction((tail >> U(8)) | (more << U(56)), more >> U(8), rest - 1)
    ok &= (rest == 0) | fok
    return s * 1_000_000 + np.where(rest > 0, frac, 0), ok


def _changes(*keys) -> np.ndarray:
    """Where any key differs from the row before (and the first row)."""
    change = np.ones(len(keys[0]), bool)
    if len(change) > 1:
        change[1:] = np.logical_or.reduce([k[1:] != k[:-1] for k in keys])
    return change


def iso(data: np.ndarray, start: np.ndarray, length: np.ndarray):
    """YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z] filling data[start:start+length]."""
    n = len(start)
    w = _Words(data)
    w0, w1 = w.at(start), w.at(start + 8)   # "YYYY-MM-", "DDTHH:MM"
    # the date and minute, where they change from the line before
    change = np.ones(n, bool)
    change[1:] = (w0[1:] != w0[:-1]) | (w1[1:] != w1[:-1])
    at = np.flatnonzero(change)
    a, b = w0[at], w1[at]
    ok = _are_digits(a, _mask((0, 1, 2, 3, 5, 6))) & _are_digits(b, _mask((0, 1, 3, 4, 6, 7)))
    ok &= (_byte(a, 4) == 45) & (_byte(a, 7) == 45) & ((_byte(b, 2) == 84) | (_byte(b, 2) == 32))
    ok &= _byte(b, 5) == 58
    da, db = _digit_lanes(a, _mask((0, 1, 2, 3, 5, 6))), _digit_lanes(b, _mask((0, 1, 3, 4, 6, 7)))
    hour, minute = _value(db, 3, 2), _value(db, 6, 2)
    ok &= (hour <= 23) & (minute <= 59)
    day_us, ok = _date_us(_value(da, 0, 4), _value(da, 5, 2), _value(db, 0, 2), ok)
    prefix = day_us + (hour * 60 + minute) * 60_000_000
    run = np.cumsum(change) - 1
    prefix, ok = prefix[run], ok[run]
    # seconds and fraction: ":SS" at 16, then nothing, "Z", or "." and 1-9 digits (and "Z")
    w2, w3 = w.at(start + 16), w.at(start + 24)
    end = start + length
    zulu = (length > 19) & (_byte(w.at(end - 1), 0) == 90)
    digits_n = length - zulu - 20
    ok &= (_byte(w2, 0) == 58) & _are_digits(w2, _mask((1, 2))) & (length >= 19)
    ok &= (length - zulu == 19) | ((_byte(w2, 3) == 46) & (digits_n >= 1) & (digits_n <= 9))
    sec = _value(_digit_lanes(w2, _mask((1, 2))), 1, 2)
    ok &= sec <= 59
    frac, fok = _fraction((w2 >> U(32)) | (w3 << U(32)), w3 >> U(32), digits_n)
    ok &= (digits_n <= 0) | fok
    us = prefix + sec * 1_000_000 + np.where(digits_n > 0, frac, 0)
    return np.where(ok, us, 0), ok


def header(data: np.ndarray, d0: np.ndarray, dlen: np.ndarray, t0: np.ndarray, t1: np.ndarray,
           comma: np.ndarray, year: np.ndarray | None = None):
    """A header's date (10 chars "YYYY-MM-DD"/"YYYY/MM/DD", 8 "YYYYMMDD", or 4 "MMDD"/5 "MM/DD" with
    `year`) and its time at t0..t1, all byte offsets into data. The date, hour and minute are read
    where they change from the row before; the seconds on every row."""
    w = _Words(data)
    year = np.zeros(len(d0), np.int64) if year is None else year
    date, tail, hm = w.at(d0), w.at(d0 + 8), w.at(t0) & _mask(range(5))
    ten = dlen == 10
    date = date & np.where(dlen >= 8, U(0xFFFFFFFFFFFFFFFF), (U(1) << (np.minimum(dlen, 7).astype(U) * U(8))) - U(1))
    tail = np.where(ten, tail & _mask((0, 1)), U(0))
    at = np.flatnonzero(_changes(date, tail, hm, dlen, year))
    day_us, ok = _header_date(date[at], tail[at], dlen[at], year[at])
    minutes, ok2 = _hour_minute(hm[at])
    run = np.cumsum(_changes(date, tail, hm, dlen, year)) - 1
    prefix, ok = (day_us + minutes * 60_000_000)[run], (ok & ok2)[run]
    sec_us, ok3 = _seconds(w, t0, t1, comma)
    ok &= ok3
    return np.where(ok, prefix + sec_us, 0), ok


def _header_date(date, tail, dlen, year):
    ten, eight = dlen == 10, dlen == 8
    m10 = _mask((0, 1, 2, 3, 5, 6))
    s1, s2 = _byte(date, 4), _byte(date, 7)
    ok10 = _are_digits(date, m10) & _are_digits(tail, _mask((0, 1))) & ((s1 == 45) | (s1 == 47)) \
        & ((s2 == 45) | (s2 == 47))
    d10 = _digit_lanes(date, m10)
    ok8 = _are_digits(date, _mask(range(8)))
    d8 = _digit_lanes(date, _mask(range(8)))
    # MMDD / MM?DD with the given year (4-digit years only: DuckDB's reading of others is its own)
    day_lanes = np.where(dlen == 5, U(3), U(2))
    md_day = date >> (day_lanes * U(8))
    ok_md = _are_digits(date, _mask((0, 1))) & _are_digits(md_day, _mask((0, 1))) & ((dlen == 4) | (dlen == 5)) \
        & (year >= 1000) & (year <= 9999)
    y = np.where(ten, _value(d10, 0, 4), np.where(eight, _value(d8, 0, 4), year))
    m = np.where(ten, _value(d10, 5, 2),
                 np.where(eight, _value(d8, 4, 2), _value(_digit_lanes(date, _mask((0, 1))), 0, 2)))
    d = np.where(ten, _value(_digit_lanes(tail, _mask((0, 1))), 0, 2),
                 np.where(eight, _value(d8, 6, 2), _value(_digit_lanes(md_day, _mask((0, 1))), 0, 2)))
    return _date_us(y, m, d, np.where(ten, ok10, np.where(eight, ok8, ok_md)))
