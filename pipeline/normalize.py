"""Split headers from messages and group multi-line blocks into events.

Contract:
  Normalizer().feed(chunk) -> (events, n_pending)   # events: pandas.DataFrame with EVENT_COLUMNS
  Normalizer().flush() -> events                     # emit whatever block is still open (end of run)
A block still open at the end of a chunk is carried to the next feed(); n_pending says how many
of the chunk's trailing lines are carried, so the caller commits the byte offset before them:
  n_pending <  len(chunk.lines): commit chunk.end_offsets[len(chunk.lines) - n_pending - 1]
  n_pending == len(chunk.lines): keep the previous commit (feed() then returns no event)
Every event returned lies entirely before the commit point, so a restart from it (fresh
Normalizer) reproduces exactly the events not yet returned: nothing lost, nothing duplicated.

Also:
  normalize_lines(lines, ts=None, streams=None) -> events   # one run of plain lines: feed + flush
  parse_line(line, env_ts=None) -> (ts, level, message, family)

Headers.  One precompiled regex per family, chosen by a first-character dispatch, most frequent
first: GLOG ("I1129 20:06:47.123456 12345 file.cc:42] "), bracketed Python logging (ppocr,
ppdet, paddlenlp, fleet), ISO/RFC 3339 timestamps with optional Python-logging level, launch
("LAUNCH INFO 2026-..."/"INFO 2026-... launch.py:1] "), "[INFO] ", "INFO:root:", Python warnings
("/x.py:12: UserWarning: msg" -> WARNING, message "UserWarning: msg").  A header-less line gets
a level only from its first word (Error:, ERROR, FatalError, Traceback, ValueError:, ...).
An event's ``ts`` is the envelope timestamp (docker's or CRI's: the runtime's clock, in UTC) when
the line has one, else the header timestamp as ISO 8601 ("2026-11-29T20:06:47.123456", a zone
suffix only if the header has one).  A header's time is the container's local time with no zone
(a job in Asia/Shanghai prints UTC+8): beside the envelope it would move a run across days and
weeks, and a run whose lines mix the two would last hours longer than it did.  ``parse_line``
returns the header's own timestamp: headers without a year (GLOG, "[11/29 ...]") take the year of
the envelope timestamp (December/January rollover handled), and give None without one.  ANSI escapes are removed; a line with carriage returns
keeps its last overwrite (progress bars).  Blank lines outside blocks produce no event.

Blocks (grouped per stream: a line of the other stream inside a traceback is its own event):
  py_traceback   "Traceback (most recent call last):", indented frames, the exception line and
                 its indented continuation ("  [Hint: ...] (at /paddle/...)", "  Suggestions:",
                 "  [operator < conv2d > error]"); chained tracebacks ("During handling of the
                 above exception..." / "The above exception was the direct cause...") are one
                 event.  message = the final exception line; when its body is empty or
                 "In user code:", the last indented "XxxError: ..." line inside it.
  cpp_traceback  a Paddle error dump with a C++ stack -- "C++ Traceback (most recent call
                 last):" (2.x/3.x), "C++ Call Stacks (More useful to developers):" + "Python Call
                 Stacks (More useful to users):" (1.6-1.8), "Python Call stacks:" / "C++ Call
                 stacks:" / "PaddlePaddle Call Stacks:" (1.5) -- together with the "Error Message
                 Summary:" that follows.  message = the summary's error line ("FatalError:
                 `Segmentation fault` is detected by the operating system.", "Error: ... at
                 (/paddle/...)"); an empty-bodied one ("ResourceExhaustedError: ") is joined with
                 its first body line; 1.5 dumps use the first "C++ Call stacks:" line.
                 Also GLOG "F... Check failed: ..." + "*** Check failure stack trace: ***" +
                 "@ 0x..." frames, and "*** Aborted at ..." / "PC: @" / "*** SIGSEGV ..." signal
                 dumps (message: the Check failed line, else the SIGxxx line).
  error_summary  an "Error Message Summary:" block with no C++ stack before it.
The dump Paddle appends to a Python exception after a blank line ("RuntimeError: " + blank +
"-----" + "C++ Traceback ...") is its own cpp_traceback event: the traceback ends at its
exception line, so both the Python exception class and the Paddle summary are evidence.
Blocks are closed at MAX_BLOCK_LINES lines / MAX_BLOCK_CHARS characters; a line with a log header
always closes the open block of its stream.  Events come out ordered by first line, identical
for any chunking.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import count
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas costs ~0.5 s to import: `logml predict` never needs it
    import pandas as pd

# Internal event tuples (feed_rows/flush_rows): two bookkeeping fields, then EVENT_COLUMNS in order.
ROW_FIELDS = ("seq", "last_seq", "line_no", "n_lines", "ts", "stream", "level", "kind", "message", "text")

EVENT_COLUMNS = [
    "line_no",   # int: 1-based physical line of the event's first line in its file
    "n_lines",   # int: logical lines grouped into this event
    "ts",        # str | None: the envelope timestamp if the line has one, else the header's (ISO 8601)
    "stream",    # str | None
    "level",     # "DEBUG" | "INFO" | "WARNING" | "ERROR" | "FATAL" | None
    "kind",      # "line" | "py_traceback" | "cpp_traceback" | "error_summary"
    "message",   # free text for mining: header stripped; for a block its summary line
    "text",      # the whole event (header stripped), lines joined with "\n"
]

MAX_BLOCK_LINES = 500
MAX_BLOCK_CHARS = 64 * 1024

# --------------------------------------------------------------------------------------------
# Header parsing
# --------------------------------------------------------------------------------------------

FAM_NONE = 0    # no header recognised (level may still come from a leading word)
FAM_GLOG = 1    # GLOG "I1129 20:06:47.123456 12345 file.cc:42] "
FAM_OTHER = 2   # Python logging / ISO timestamp / Python warnings

_LVL = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
_LEVEL_MAP = {
    "DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARNING", "WARN": "WARNING",
    "ERROR": "ERROR", "CRITICAL": "FATAL", "FATAL": "FATAL",
    "I": "INFO", "W": "WARNING", "E": "ERROR", "F": "FATAL",
}

_ANSI_RE = re.compile(r"\x1b(?:\[[0-9;:?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

# One regex per header family, tried after a first-character dispatch, most frequent first.
# Each captures the raw date ("1129", "2026/11/29", "11/29", "2026-11-29") and the raw time as
# single groups, so the ISO date prefix is cached per distinct raw date and a line costs one
# match, a dict lookup and a concatenation.  Negated single-character classes ([^ ], [^\]]) are
# used where possible: Python's re runs them much faster than \S or multi-character classes.
#
# GLOG "I1129 20:06:47.123456 12345 file.cc:42] " (thread id optional)
_GLOG_RE = re.compile(r"([IWEF]\d{4}) (\d\d:\d\d:\d\d[^ ]*) [^\]]*:\d+\] ?")
# "[2026/11/29 10:00:00] ppocr INFO: ", "[11/29 20:15:39] ppdet.engine INFO: ",
# "[2026-11-29 20:15:39,853] [ WARNING] x.py:733 - ", "[2026-11-29 20:15:39,853] [    INFO] - ",
# "[2026-11-29 20:15:39] [INFO] ", "[2026-11-29 20:15:39] INFO: ", "[2026-11-29 20:15:39] "
_BRACKET_RE = re.compile(
    r"\[(\d{4}[-/]\d\d[-/]\d\d|\d\d[-/]\d\d)[ T](\d\d:\d\d:\d\d[.,\d]*)\] *"
    rf"(?:\[ *({_LVL}) *\] *(?:[^ ]+:\d+ +)?(?:- )?|[^ \[]+ +({_LVL}):? ?|({_LVL})(?::? |:$|$))?"
)
# "2026-11-29 20:15:39,853 - INFO - ", "2026-11-29 20:15:39,853 - name - INFO - ",
# "2026-11-29 20:15:39.123 | INFO | mod:fn:12 - " (loguru), "2026-11-29 20:15:39,853 INFO ",
# "2026-11-29T20:06:47.123Z ", "2026-11-29 20:06:47 "
_ISO_RE = re.compile(
    r"(\d{4}[-/]\d\d[-/]\d\d)[ T](\d\d:\d\d:\d\d[.,\d]*(?:Z|[+-]\d\d:?\d\d)?)"
    rf"(?: - (?:[^ ]+ - )?({_LVL}) +-(?: |$)| *\| *({_LVL}) *\| *(?:[^ ]+ - )?"
    rf"| +\[?({_LVL})\]?:?(?: |$)| +|$)"
)
# paddle.distributed.launch "LAUNCH INFO 2026-11-29 20:15:39,853 ",
# fleet launch "INFO 2026-11-29 20:15:39,853 launch.py:123] "
_LAUNCH_RE = re.compile(
    rf"(?:LAUNCH +)?({_LVL}) +(\d{{4}}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d[.,\d]*) +(?:[^ ]+:\d+\] ?)?"
)
# GLOG, rarer shapes: leading "[", glog>=0.7's 4-digit year "I20261129 ..."
_GLOG_ANY_RE = re.compile(r"\[?([IWEF])(\d{8}|\d{4}) (\d\d:\d\d:\d\d[^ ]*) [^\]]*:\d+\] ?")
# "[INFO] ", "[ WARNING ] "
_BRACKET_LVL_RE = re.compile(rf"\[ *({_LVL}) *\]:? *")
# logging.basicConfig default "INFO:root:", "WARNING:paddle.utils.download:"
_LVLCOLON_RE = re.compile(rf"({_LVL}):[\w.\-]+:")
# Python warnings: "/opt/venv/lib/python3.10/site-packages/paddle/x.py:12: UserWarning: msg"
_PYWARN_RE = re.compile(r"[^:\s]*\.py:\d+: (?=[A-Z]\w*Warning\b)")
# Level from the first word of a line without header.
_BARE_RE = re.compile(
    r"(FatalError\b|FATAL\b|Fatal\b|Segmentation fault|terminate called|Aborted \(core dumped\))"
    r"|(Traceback \(|ERROR\b|Error\b|error:|Exception\b|[A-Za-z_][\w.]*(?:Error|Exception|EnforceNotMet)\b)"
    r"|(WARNING\b|WARN\b|Warning\b|warning:|[A-Za-z_]\w*Warning\b)"
    r"|(INFO\b)|(DEBUG\b)|(CRITICAL\b)"
)
_BARE_LEVELS = (None, "FATAL", "ERROR", "WARNING", "INFO", "DEBUG", "FATAL")
# NCCL's own lines "host:pid:tid [dev] NCCL INFO ...": their INFO says a line is no error even when it
# reads like one ("dlerror=libnccl-net.so: cannot open shared object file"). The prefix stays in the
# message (rules match "NCCL WARN ..."), and a WARN line keeps no level: it is how NCCL reports errors.
_NCCL_INFO_RE = re.compile(r"[^ ]+:\d+:\d+ \[\d+\] NCCL (?:INFO|TRACE) ")

_GLOG_CHARS = frozenset("IWEF")
_LAUNCH_CHARS = frozenset("LDIWECF")   # LAUNCH / DEBUG INFO WARNING ERROR CRITICAL FATAL
_SLOW_CHARS = _LAUNCH_CHARS | {"["}     # first characters of the rarer header families
# a header-less line can get a level from _BARE_RE only if it starts with one of these, or
# contains ":" (lower-case exception paths "paddle.base.core.EnforceNotMet: ...", "error: ...")
_BARE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ_t")
_DIGITS = frozenset("0123456789")
_MISSING = object()


def _years_by_month(env_ts: str | None) -> dict | None:
    """Year to give a header date without year, per header month, from an envelope timestamp:
    the envelope's year, moved across New Year (header December + envelope January -> year-1)."""
    if not env_ts or len(env_ts) < 7 or not env_ts[:4].isdigit():
        return None
    year = int(env_ts[:4])
    env_month = env_ts[5:7]
    out = {f"{m:02d}": str(year) for m in range(1, 13)}
    if env_month == "01":
        out["12"] = str(year - 1)
    elif env_month == "12":
        out["01"] = str(year + 1)
    return out


def _date_prefix(raw: str, ybm: dict | None) -> str | None:
    """ "2026/11/29" | "2026-11-29" | "20261129" | "1129" | "11/29" -> "2026-11-29T" (None: no year)."""
    n = len(raw)
    if n == 10:
        return raw.replace("/", "-") + "T"
    if n == 8:
        return f"{raw[:4]}-{raw[4:6]}-{raw[6:]}T"
    month, day = raw[:2], raw[-2:]
    year = ybm.get(month) if ybm else None
    return f"{year}-{month}-{day}T" if year else None


# The tag a process multiplexer puts before every line it relays: mpirun --tag-output
# "[1,0]<stderr>:", torchrun "[rank0]:", Ray "(RayTrainWorker pid=123, ip=10.0.0.3) ", kubectl logs
# --prefix "[pod/name/container] ", docker compose "trainer-1  | ", Airflow's task log
# "[2024-07-22, 03:10:49 UTC] {process_utils.py:190} INFO - " (its subprocess's output, tracebacks
# included, is relayed line by line), Slurm's srun --label "0: " (right-aligned, " 3: ", past 10
# tasks) and a quoted paste's "> ". It hides the header and the
# traceback shapes behind it, so it goes like an envelope. ASCII classes only: ingest's columnar
# path runs the same pattern in RE2.
RELAY_PREFIX = (r"(?:\[[0-9]+,[0-9]+\]<(?:stdout|stderr|stddiag)>:|\[(?:rank|default)[0-9]+\]:"
                r"|(?:\((?:[A-Za-z_][A-Za-z0-9_.]* )?pid=[0-9]+(?:, ip=[0-9.]+)?\)|\[pod/[^\]/ ]+/[^\] ]+\]) "
                r"|\[[0-9]{4}-[0-9]{2}-[0-9]{2}[^\]\[]{0,40}\] \{[A-Za-z0-9_.-]+\.py:[0-9]+\} [A-Z]+ - "
                r"|[A-Za-z0-9][A-Za-z0-9_.-]*[-_][0-9]+ +\| | {0,3}[0-9]{1,4}: |(?:> )+)")
_RELAY_RE = re.compile(RELAY_PREFIX)
def may_be_relayed(line: str) -> bool:
    """A cheap test that passes every line with a relay prefix, and few others: a "[2026/11/29 ...]"
    header fails it (no "r", "d" or "p" second, no "," among the next characters), a
    "[2024-07-22 03:10:49,123] [ INFO]" header goes no further than a look for Airflow's "} ", and a
    "2024-07-22 03:10:49" or an indented line no further than a look for ": " in its first 8 characters."""
    c = line[:1]
    if c == "[":
        d = line[1:2]
        return d in ("r", "d", "p") or (d.isdigit() and ("," in line[2:7] or (line[5:6] == "-" and "} " in line[20:100])))
    if c == "(" or c == ">":
        return True
    if c.isdigit() or c == " ":   # srun --label's task number: digits (after a pad) up to ": "
        i = line.find(": ", 1, 8)
        if i > 0 and line[:i].lstrip(" ").isdigit() and line[:i].isascii():
            return True
    return c.isalnum() and "| " in line[:80]


def clean_line(line: str) -> str:
    """Remove ANSI escapes, trailing newlines, carriage-return overwrites (progress bars) and a
    relay prefix."""
    if "\x1b" in line:
        line = _ANSI_RE.sub("", line)
    if "\r" in line or "\n" in line:
        line = line.rstrip("\r\n")
        if "\r" in line:
            # what a terminal shows: the last non-empty overwrite
            parts = [p for p in line.split("\r") if p.strip()]
            line = parts[-1] if parts else ""
    if may_be_relayed(line):
        m = _RELAY_RE.match(line)
        if m is not None:
            line = line[m.end():]
    return line


class _Ctx:
    """Per-chunk parsing context: envelope year per month and the date-prefix cache."""

    __slots__ = ("ybm", "dates", "glog_keys")

    def __init__(self, env_ts: str | None):
        self.ybm = _years_by_month(env_ts)
        self.dates: dict = {}
        self.glog_keys: dict = {}   # "I1129" -> ("INFO", "2026-11-29T")

    def glog(self, key: str):
        lp = self.glog_keys.get(key)
        if lp is None:
            lp = self.glog_keys[key] = (_LEVEL_MAP[key[0]], self.prefix(key[1:]))
        return lp

    def prefix(self, raw: str) -> str | None:
        dp = self.dates.get(raw, _MISSING)
        if dp is _MISSING:
            dp = self.dates[raw] = _date_prefix(raw, self.ybm)
        return dp


_CTX_CACHE: dict = {}


def _ctx(env_ts: str | None) -> _Ctx:
    """A chunk's context, shared by the chunks whose reference has the same year and month (all a
    context depends on: _years_by_month reads env_ts[:7] only)."""
    key = env_ts[:7] if env_ts and len(env_ts) >= 7 else env_ts
    ctx = _CTX_CACHE.get(key)
    if ctx is None:
        if len(_CTX_CACHE) > 256:
            _CTX_CACHE.clear()
        ctx = _CTX_CACHE[key] = _Ctx(env_ts)
    return ctx


def _parse_fast(line: str, env_ts, ctx: _Ctx):
    """The three frequent families, or None.  Normalizer._run has an inlined copy of this
    function (kept in sync by tests)."""
    c = line[:1]
    if c in _GLOG_CHARS:
        m = _GLOG_RE.match(line)
        if m is not None:
            key, tm = m.groups()
            level, dp = ctx.glog(key)
            return (dp + tm if dp and env_ts else None), level, line[m.end():], FAM_GLOG
    elif c == "[":
        m = _BRACKET_RE.match(line)
        if m is not None:
            raw, tm, l1, l2, l3 = m.groups()
            dp = ctx.prefix(raw)
            ts = dp + tm.replace(",", ".") if dp and (env_ts or len(raw) == 10) else None
            lvl = l1 or l2 or l3
            return ts, (_LEVEL_MAP[lvl] if lvl else None), line[m.end():], FAM_OTHER
    elif c in _DIGITS:
        m = _ISO_RE.match(line)
        if m is not None:
            raw, tm, l1, l2, l3 = m.groups()
            lvl = l1 or l2 or l3
            return (ctx.prefix(raw) + tm.replace(",", "."), (_LEVEL_MAP[lvl] if lvl else None),
                    line[m.end():], FAM_OTHER)
    return None


def _parse_slow(line: str, env_ts, ctx: _Ctx):
    """The rarer families, then Python warnings, then a level from the first word."""
    c = line[:1]
    if c in _SLOW_CHARS:
        if c in _GLOG_CHARS or c == "[":
            m = _GLOG_ANY_RE.match(line)
            if m is not None:
                lvl, raw, tm = m.groups()
                dp = ctx.prefix(raw)
                ts = dp + tm if dp and (env_ts or len(raw) == 8) else None
                return ts, _LEVEL_MAP[lvl], line[m.end():], FAM_GLOG
        if c == "[":
            m = _BRACKET_LVL_RE.match(line)
            if m is not None:
                return None, _LEVEL_MAP[m.group(1)], line[m.end():], FAM_OTHER
        else:
            m = _LAUNCH_RE.match(line)
            if m is not None:
                lvl, raw, tm = m.groups()
                return ctx.prefix(raw) + tm.replace(",", "."), _LEVEL_MAP[lvl], line[m.end():], FAM_OTHER
            m = _LVLCOLON_RE.match(line)
            if m is not None:
                return None, _LEVEL_MAP[m.group(1)], line[m.end():], FAM_OTHER
    if "Warning: " in line:
        m = _PYWARN_RE.match(line)
        if m is not None:
            return None, "WARNING", line[m.end():], FAM_OTHER
    if c in _BARE_CHARS or ":" in line:
        m = _BARE_RE.match(line)
        if m is not None:
            return None, _BARE_LEVELS[m.lastindex], line, FAM_NONE
    if " NCCL " in line and _NCCL_INFO_RE.match(line):
        return None, "INFO", line, FAM_NONE
    return None, None, line, FAM_NONE


def parse_line(line: str, env_ts: str | None = None):
    """Split one logical line into (ts, level, message, family).

    ``ts`` is the header timestamp as ISO 8601, None without one; a header without a year (GLOG,
    "[11/29 ...]") takes the envelope's year, and gives None when there is no envelope.
    ``message`` is the line with ANSI escapes and the header removed; ``family`` is FAM_NONE,
    FAM_GLOG or FAM_OTHER.  Normalizer does the same per line, with one reference year per chunk
    (from the chunk's first envelope timestamp).
    """
    line = clean_line(line)
    key = env_ts[:7] if env_ts else None
    ctx = _PARSE_CTX.get(key)
    if ctx is None:
        if len(_PARSE_CTX) > 64:
            _PARSE_CTX.clear()
        ctx = _PARSE_CTX[key] = _Ctx(env_ts)
    return _parse_fast(line, env_ts, ctx) or _parse_slow(line, env_ts, ctx)


_PARSE_CTX: dict = {}   # parse_line's contexts by envelope year-month


# --------------------------------------------------------------------------------------------
# Line shapes (the columnar ingest path)
# --------------------------------------------------------------------------------------------

# Date kinds of a shape's header timestamp: where the ISO date of its ts comes from.
DATE_ENV, DATE_YMD10, DATE_YMD8, DATE_MD = 0, 1, 2, 3

SHAPE_FIELDS = ("fam", "level", "t0", "t1", "m0", "opens", "date_kind", "d0", "dlen", "tm0", "tm1", "comma")


def _header_spans(line: str):
    """_parse_fast + _parse_slow as positions: (fam, level, header_end, date_kind, d0, dlen, tm0, tm1,
    comma).  Positions, not strings, so they apply to every line of the same digit-collapsed shape."""
    c = line[:1]
    if c in _GLOG_CHARS:
        m = _GLOG_RE.match(line)
        if m is not None:
            return FAM_GLOG, _LEVEL_MAP[c], m.end(), DATE_MD, 1, 4, *m.span(2), False
    elif c == "[":
        m = _BRACKET_RE.match(line)
        if m is not None:
            (d0, d1), lvl = m.span(1), m.group(3) or m.group(4) or m.group(5)
            kind = DATE_YMD10 if d1 - d0 == 10 else DATE_MD
            return FAM_OTHER, (_LEVEL_MAP[lvl] if lvl else None), m.end(), kind, d0, d1 - d0, *m.span(2), True
    elif c in _DIGITS:
        m = _ISO_RE.match(line)
        if m is not None:
            lvl = m.group(3) or m.group(4) or m.group(5)
            return FAM_OTHER, (_LEVEL_MAP[lvl] if lvl else None), m.end(), DATE_YMD10, m.start(1), 10, *m.span(2), True
    if c in _SLOW_CHARS:
        if c in _GLOG_CHARS or c == "[":
            m = _GLOG_ANY_RE.match(line)
            if m is not None:
                d0, d1 = m.span(2)
                kind = DATE_YMD8 if d1 - d0 == 8 else DATE_MD
                return FAM_GLOG, _LEVEL_MAP[m.group(1)], m.end(), kind, d0, d1 - d0, *m.span(3), False
        if c == "[":
            m = _BRACKET_LVL_RE.match(line)
            if m is not None:
                return FAM_OTHER, _LEVEL_MAP[m.group(1)], m.end(), DATE_ENV, 0, 0, 0, 0, False
        else:
            m = _LAUNCH_RE.match(line)
            if m is not None:
                return FAM_OTHER, _LEVEL_MAP[m.group(1)], m.end(), DATE_YMD10, m.start(2), 10, *m.span(3), True
            m = _LVLCOLON_RE.match(line)
            if m is not None:
                return FAM_OTHER, _LEVEL_MAP[m.group(1)], m.end(), DATE_ENV, 0, 0, 0, 0, False
    if "Warning: " in line:
        m = _PYWARN_RE.match(line)
        if m is not None:
            return FAM_OTHER, "WARNING", m.end(), DATE_ENV, 0, 0, 0, 0, False
    level = None
    if c in _BARE_CHARS or ":" in line:
        m = _BARE_RE.match(line)
        if m is not None:
            level = _BARE_LEVELS[m.lastindex]
    if level is None and " NCCL " in line and _NCCL_INFO_RE.match(line):
        level = "INFO"
    return FAM_NONE, level, 0, DATE_ENV, 0, 0, 0, 0, False


def _opens_block(text: str, fam: int, level: str | None) -> bool:
    """Whether Normalizer would open a block on this line (mirrors _run's routing and _start)."""
    if not (text[:3] in _START_PREFIXES or (level == "FATAL" and fam == FAM_GLOG)):
        return False
    s = text.strip()
    if s.startswith(_TRACEBACK) or s in _SECTIONS:
        return True
    if s[:1] == "-":
        return _DASHES_RE.match(s) is not None
    if s.startswith("*** "):
        return s.startswith(("*** Aborted at ", "*** SIG", "*** Check failure stack trace"))
    return fam == FAM_GLOG and level == "FATAL"


def shape_ts(line: str, shape: tuple, env_ts: str | None, ref_ts: str | None) -> str | None:
    """The event ts of a line of this shape: what ingest's SQL computes (kept identical by tests):
    the envelope's when there is one, else the header's."""
    return env_ts if env_ts else _shape_header_ts(line, shape, env_ts, ref_ts)


def _shape_header_ts(line: str, shape: tuple, env_ts: str | None, ref_ts: str | None) -> str | None:
    """What the header of a line of this shape says (``parse_line``'s ts), by position."""
    kind, d0, dlen, tm0, tm1, comma = shape[6:]
    if kind == DATE_ENV:
        return env_ts
    tm = line[tm0:tm1].replace(",", ".") if comma else line[tm0:tm1]
    raw = line[d0:d0 + dlen]
    if kind == DATE_YMD10:
        return raw.replace("/", "-") + "T" + tm
    if kind == DATE_YMD8:
        return f"{raw[:4]}-{raw[4:6]}-{raw[6:]}T{tm}"
    ybm = _years_by_month(ref_ts)
    year = ybm.get(raw[:2]) if ybm else None
    return f"{year}-{raw[:2]}-{raw[-2:]}T{tm}" if year and env_ts else env_ts


_SHAPE_CHECK_ENV = "2026-11-29T20:06:47.123456789Z"
_SHAPE_CHECK_CTX = _Ctx(_SHAPE_CHECK_ENV)


def line_shape(line: str) -> tuple | None:
    """How Normalizer treats every line equal to `line` up to its digit values, as positions
    (SHAPE_FIELDS), or None when such a line needs the Normalizer itself (ANSI escapes, carriage
    returns) or would open a block.

    Every header regex here sees digits only as \\d (never a value), and everything after the
    header is stripped by position, so two lines with the same digit-collapsed form are parsed at
    the same positions: parsing one representative line per shape is parsing them all.  The
    positions are checked against the line-by-line parser on that representative; a shape that
    does not reproduce it exactly is sent to the Normalizer."""
    if "\x1b" in line or "\r" in line or "\n" in line or (may_be_relayed(line) and _RELAY_RE.match(line)):
        return None
    fam, level, end, *date = _header_spans(line)
    text = line[end:].rstrip()
    t1 = end + len(text)
    # the Normalizer strips a message's indent only after a space or tab ("\u2028x" keeps its U+2028)
    m0 = t1 - len(text.lstrip()) if text[:1] in (" ", "\t") else end
    shape = (fam, level, end, t1, m0, bool(text) and _opens_block(text, fam, level), *date)
    if shape[5]:
        return None
    # the representative must come out of the positions exactly as the line-by-line parser has it
    ctx = _SHAPE_CHECK_CTX
    ts, lvl, msg, fam2 = _parse_fast(line, _SHAPE_CHECK_ENV, ctx) or _parse_slow(line, _SHAPE_CHECK_ENV, ctx)
    if (ts or _SHAPE_CHECK_ENV) != _shape_header_ts(line, shape, _SHAPE_CHECK_ENV, _SHAPE_CHECK_ENV) \
            or lvl != level or msg.rstrip() != text or fam2 != fam:
        return None
    return shape


# --------------------------------------------------------------------------------------------
# Block grouping
# --------------------------------------------------------------------------------------------

# first three characters of the messages that can open a block (cheap test before _start)
_START_PREFIXES = frozenset(("Tra", "C++", "Err", "Pyt", "Pad", "---", "***"))
_TRACEBACK = "Traceback (most recent call last):"
_CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# Paddle error-dump section titles -> section kind
_SECTIONS = {
    "C++ Traceback (most recent call last):": "cpp",           # 2.x / 3.x
    "C++ Call Stacks (More useful to developers):": "cpp",     # 1.6 - 1.8
    "PaddlePaddle Call Stacks:": "cpp",                        # 1.5
    "Python Call Stacks (More useful to users):": "pyst",      # 1.6 - 1.8
    "Python Call stacks:": "pyst",                             # 1.5
    "C++ Call stacks:": "cppmsg",                              # 1.5: the enforce message follows
    "Error Message Summary:": "sum",
}
_DASHES_RE = re.compile(r"\s*-{5,}\s*$")
_FRAME_RE = re.compile(r"\d+\s+\S")
_EXC_RE = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception|EnforceNotMet)\b:")
_INDENT = (" ", "\t")

K_PY, K_DUMP, K_GLOG = 1, 2, 3
_KIND_NAMES = {K_PY: "py_traceback", K_DUMP: "error_summary", K_GLOG: "cpp_traceback"}


def _has_location(s: str) -> bool:
    """Paddle's source location that ends an error message: "(at /paddle/x.cc:66)" (2.x/3.x),
    "at (/paddle/x.cc:66)" / "at [/paddle/x.cc:85]" (1.x)."""
    return "(at " in s or " at (" in s or " at [" in s


def _has_blank(tent) -> bool:
    for t in tent:
        if not t[5].strip():
            return True
    return False


def _first_seq(ev):
    return ev[0]


class _Block:
    __slots__ = (
        "type", "stream", "seq", "last", "line_no", "ts", "level", "lines", "nchars", "tent",
        "state", "confirmed", "cpp", "summary", "body_empty", "body_joined", "terminated",
        "seen_indent", "sec_n", "inner", "prio",
    )

    def __init__(self, type_, p, state):
        seq, line_no, stream, ts, level, msg, _fam = p
        self.type = type_
        self.stream = stream
        self.seq = seq
        self.last = seq
        self.line_no = line_no
        self.ts = ts
        self.level = level
        self.lines = [msg]
        self.nchars = len(msg) + 1
        self.tent = []          # blank / dash lines whose membership is not decided yet
        self.state = state
        self.confirmed = type_ == K_PY
        self.cpp = False
        self.summary = None     # chosen summary line (py: exception line; dump: error line)
        self.body_empty = False
        self.body_joined = False
        self.terminated = False
        self.seen_indent = False
        self.sec_n = 0
        self.inner = None
        self.prio = 0

    def add(self, p):
        if self.tent:
            for t in self.tent:
                self.lines.append(t[5])
                self.nchars += len(t[5]) + 1
            self.tent = []
        msg = p[5]
        self.lines.append(msg)
        self.nchars += len(msg) + 1
        self.last = p[0]

    def event(self):
        lines = self.lines
        if not self.confirmed:
            kind = "line"
        elif self.type == K_DUMP and self.cpp:
            kind = "cpp_traceback"
        else:
            kind = _KIND_NAMES[self.type]
        msg = self.summary
        if self.type == K_PY and msg is not None and self.inner is not None:
            # "RuntimeError:" / "ValueError: In user code:" -> the inner Paddle error is the evidence
            body = msg.split(":", 1)[1].strip() if ":" in msg else ""
            if not body or body == "In user code:":
                msg = self.inner
        if not self.confirmed:
            msg = lines[0].strip()
        elif msg is None:
            msg = ""
            for line in reversed(lines):
                s = line.strip()
                if s and not _DASHES_RE.match(s):
                    msg = s
                    break
        level = self.level
        if self.confirmed:
            if self.type == K_DUMP and msg.startswith("FatalError"):
                level = "FATAL"
            elif self.type == K_GLOG:
                level = "FATAL"
            elif level is None or level in ("DEBUG", "INFO", "WARNING"):
                level = "ERROR"
        text = "\n".join(lines) if len(lines) > 1 else lines[0]
        return (self.seq, self.last, self.line_no, len(lines), self.ts, self.stream, level, kind,
                msg, text)


class Normalizer:
    """Stateful normalizer for one run (one log stream of one container); use a fresh one per
    run, and a fresh one when resuming a run from a committed offset."""

    def __init__(self, max_block_lines: int = MAX_BLOCK_LINES, max_block_chars: int = MAX_BLOCK_CHARS):
        self.max_block_lines = max_block_lines
        self.max_block_chars = max_block_chars
        self._open: dict = {}     # stream -> open _Block
        self._held: list = []     # finished events (internal tuples) waiting behind an open block
        self._out: list = []      # released events, same internal tuples (see _frame)
        self._seq = 0             # logical lines fed so far

    # ---- public API ------------------------------------------------------------------------

    def feed(self, chunk) -> tuple[pd.DataFrame, int]:
        """Normalize one chunk of a run.  Returns the events that are complete, and the number
        of trailing lines of this chunk that are still carried (open block, or events waiting
        behind one).  Every returned event lies entirely before those lines, so committing the
        offset before them and restarting there reproduces the remaining events exactly.  When
        n_pending == len(chunk.lines) nothing new is committable (and no event is returned)."""
        rows, n_pending = self.feed_rows(chunk)
        return _frame(rows), n_pending

    def flush(self) -> pd.DataFrame:
        """End of the run: close the open blocks and return every event not yet returned."""
        return _frame(self.flush_rows())

    def feed_rows(self, chunk, ref_ts: str | None = None) -> tuple[list[tuple], int]:
        """feed() without building a DataFrame: events as ROW_FIELDS tuples (the ingest hot path).
        ref_ts: the envelope timestamp that dates year-less headers (default: the chunk's first)."""
        lines = chunk.lines
        n = len(lines)
        line_nos = chunk.line_nos
        env = chunk.ts if chunk.ts is not None else [None] * n
        streams = chunk.streams if chunk.streams is not None else [None] * n
        chunk_start = self._seq
        self._run(lines, line_nos, env, streams, ref_ts)
        n_pending = 0
        if self._open:
            n_pending = self._release_before_commit(chunk_start)
        out, self._out = self._out, []
        return out, n_pending

    @property
    def idle(self) -> bool:
        """No block open and no event held: the next line is read as if by a fresh Normalizer."""
        return not self._open and not self._held

    def flush_rows(self) -> list[tuple]:
        while self._open:
            blk = min(self._open.values(), key=lambda b: b.seq)
            self._close(blk)
        self._release_all()
        out, self._out = self._out, []
        return out

    # ---- line loop -------------------------------------------------------------------------

    def _run(self, lines, line_nos, env, streams, ref_ts=None):
        """Header-parse every line and route it: straight to the output when no block is open
        and the line cannot open one, else through the block state machine (_process)."""
        open_ = self._open
        append = self._out.append
        process = self._process
        ctx = _ctx(ref_ts or next((t for t in env if t), None))
        dates = ctx.dates
        prefix = ctx.prefix
        glog_keys = ctx.glog_keys
        glog_key = ctx.glog
        start_prefixes = _START_PREFIXES
        glog_chars = _GLOG_CHARS
        digits = _DIGITS
        glog_match = _GLOG_RE.match
        bracket_match = _BRACKET_RE.match
        iso_match = _ISO_RE.match
        level_map = _LEVEL_MAP
        missing = _MISSING
        fam_glog = FAM_GLOG
        fam_other = FAM_OTHER
        fam_none = FAM_NONE
        slow_chars = _SLOW_CHARS
        bare_chars = _BARE_CHARS
        bare_match = _BARE_RE.match
        bare_levels = _BARE_LEVELS
        may_relay = may_be_relayed
        for seq, line, line_no, env_ts, stream in zip(count(self._seq), lines, line_nos, env, streams):
            if "\x1b" in line or "\r" in line or may_relay(line):
                line = clean_line(line)
            # ---- header: inlined copy of _parse_fast ----
            c = line[:1]
            m = None
            if c in glog_chars:
                m = glog_match(line)
                if m is not None:
                    key, tm = m.groups()
                    lp = glog_keys.get(key)
                    if lp is None:
                        lp = glog_key(key)
                    level, dp = lp
                    ts = dp + tm if dp and env_ts else env_ts
                    fam = fam_glog
            elif c == "[":
                m = bracket_match(line)
                if m is not None:
                    raw, tm, l1, l2, l3 = m.groups()
                    dp = dates.get(raw, missing)
                    if dp is missing:
                        dp = prefix(raw)
                    ts = dp + tm.replace(",", ".") if dp and (env_ts or len(raw) == 10) else env_ts
                    lvl = l1 or l2 or l3
                    level = level_map[lvl] if lvl else None
                    fam = fam_other
            elif c in digits:
                m = iso_match(line)
                if m is not None:
                    raw, tm, l1, l2, l3 = m.groups()
                    dp = dates.get(raw, missing)
                    if dp is missing:
                        dp = prefix(raw)
                    ts = dp + tm.replace(",", ".")
                    lvl = l1 or l2 or l3
                    level = level_map[lvl] if lvl else None
                    fam = fam_other
            if m is None:
                if c in slow_chars or "Warning: " in line:
                    ts, level, text, fam = _parse_slow(line, env_ts, ctx)
                    text = text.rstrip()
                    if ts is None:
                        ts = env_ts
                else:
                    # inlined tail of _parse_slow: a level from the first word, if any
                    level = None
                    if c in bare_chars or ":" in line:
                        mb = bare_match(line)
                        if mb is not None:
                            level = bare_levels[mb.lastindex]
                        elif " NCCL " in line and _NCCL_INFO_RE.match(line):
                            level = "INFO"
                    ts = env_ts
                    text = line.rstrip()
                    fam = fam_none
            else:
                text = line[m.end():].rstrip()
            if env_ts:   # the runtime's clock (UTC) over a header's naive local time: see `ts`
                ts = env_ts
            # ---- routing ----
            if open_:
                process((seq, line_no, stream, ts, level, text, fam))
                continue
            if not text:
                continue
            if text[:3] in start_prefixes or (level == "FATAL" and fam == fam_glog):
                process((seq, line_no, stream, ts, level, text, fam))
            elif text[0] in " \t":
                append((seq, seq, line_no, 1, ts, stream, level, "line", text.lstrip(), text))
            else:
                append((seq, seq, line_no, 1, ts, stream, level, "line", text, text))
        self._seq += len(lines)

    # ---- block state machine ---------------------------------------------------------------

    def _process(self, p):
        blk = self._open.get(p[2])
        if blk is not None:
            if self._continue(blk, p):
                return
            self._close(blk)
            self._process(p)
            return
        msg = p[5]
        if not msg or msg.isspace():
            return
        if msg[:3] in _START_PREFIXES or (p[6] == FAM_GLOG and p[4] == "FATAL"):
            blk = self._start(p)
            if blk is not None:
                self._open[p[2]] = blk
                return
        self._emit((p[0], p[0], p[1], 1, p[3], p[2], p[4], "line", msg.strip(), msg))

    def _emit(self, ev):
        if self._open or self._held:
            self._held.append(ev)
        else:
            self._out.append(ev)

    def _start(self, p):
        msg = p[5]
        s = msg.strip()
        if s.startswith(_TRACEBACK):
            return _Block(K_PY, p, "frames")
        sec = _SECTIONS.get(s)
        if sec is not None:
            blk = _Block(K_DUMP, p, sec)
            blk.confirmed = True
            blk.cpp = sec != "sum"
            return blk
        if s[0] == "-":
            if _DASHES_RE.match(s):
                return _Block(K_DUMP, p, "pre")
            return None
        if s.startswith("*** "):
            if s.startswith("*** Aborted at "):
                blk = _Block(K_GLOG, p, "glog")
                blk.summary, blk.prio = s, 1
            elif s.startswith("*** SIG"):
                blk = _Block(K_GLOG, p, "glog")
                blk.summary, blk.prio = s, 2
            elif s.startswith("*** Check failure stack trace"):
                blk = _Block(K_GLOG, p, "glog")
            else:
                return None
            blk.confirmed = True
            return blk
        if p[6] == FAM_GLOG and p[4] == "FATAL":
            blk = _Block(K_GLOG, p, "glog")
            blk.summary, blk.prio = s, 3
            return blk
        return None

    def _close(self, blk):
        del self._open[blk.stream]
        self._emit(blk.event())
        tent = blk.tent
        blk.tent = []
        for t in tent:
            self._process(t)
        if not self._open and self._held:
            self._release_all()

    def _release_all(self):
        """Move all held events to the output in first-line order (no block is open)."""
        held = self._held
        if held:
            held.sort(key=_first_seq)
            self._out.extend(held)
            self._held = []

    def _release_before_commit(self, chunk_start: int) -> int:
        """End of a feed with blocks still open: release the longest first-line-ordered prefix of
        held events that ends before the commit point (the first line of whatever is not
        released), and return the number of this chunk's lines after the commit point."""
        min_open = min(b.seq for b in self._open.values())
        held = self._held
        held.sort(key=_first_seq)
        k = 0
        for e in held:
            if e[0] >= min_open or e[1] >= min_open:
                break
            k += 1
        # shrink k until the events before it all end before the first one not released
        # (only matters when blocks of two streams interleave)
        last_before = [-1]
        for e in held[:k]:
            last_before.append(max(last_before[-1], e[1]))
        while k and last_before[k] >= min(min_open, held[k][0] if k < len(held) else min_open):
            k -= 1
        commit = min(min_open, held[k][0]) if k < len(held) else min_open
        n = self._seq - chunk_start
        if commit <= chunk_start:
            # nothing of this chunk is committable: return no event at all (any released while
            # the chunk was fed go back), so that keeping the previous commit stays exact
            if self._out:
                held.extend(self._out)
                self._out = []
            return n
        if k:
            self._out.extend(held[:k])
            del held[:k]
        return self._seq - commit

    def _continue(self, blk, p) -> bool:
        """Try to add line p to the open block; False closes the block."""
        if p[6] != FAM_NONE:              # a line with its own log header never continues a block
            return False
        if len(blk.lines) + len(blk.tent) >= self.max_block_lines or blk.nchars >= self.max_block_chars:
            return False
        msg = p[5]
        s = msg.strip()
        if not s:
            blk.tent.append(p)
            return True
        t = blk.type
        if t == K_PY:
            return self._continue_py(blk, p, msg, s)
        if t == K_DUMP:
            return self._continue_dump(blk, p, msg, s)
        return self._continue_glog(blk, p, s)

    @staticmethod
    def _continue_py(blk, p, msg, s):
        state = blk.state
        indented = msg[0] in _INDENT
        if state == "frames":
            if not indented and blk.tent:
                return False             # a blank line, then something else: the traceback was cut
            blk.add(p)
            if not indented:
                blk.summary = s          # the exception line
                blk.inner = None
                blk.state = "exc"
            return True
        if state == "exc":
            if indented or s.startswith(("[Hint:", "(at ", "[operator <")):
                blk.add(p)
                if _EXC_RE.match(s):
                    blk.inner = s
                return True
            if s in _CHAIN_MARKERS:
                blk.add(p)
                blk.state = "chain"
                return True
            return False
        # chain: waiting for the next "Traceback (most recent call last):"
        if s.startswith(_TRACEBACK):
            blk.add(p)
            blk.state = "frames"
            return True
        return False

    @staticmethod
    def _continue_dump(blk, p, msg, s):
        if s[0] == "-" and _DASHES_RE.match(s):
            blk.tent.append(p)
            return True
        sec = _SECTIONS.get(s)
        if sec is not None:
            blk.add(p)
            blk.state = sec
            blk.confirmed = True
            blk.sec_n = 0
            if sec != "sum":
                blk.cpp = True
            return True
        state = blk.state
        if state == "cpp":
            if (s[0] in _DIGITS and _FRAME_RE.match(s)) or s.startswith("No stack trace in paddle"):
                blk.add(p)
                return True
            return False
        if state == "pyst":
            if msg[0] in _INDENT and not _has_blank(blk.tent):
                blk.add(p)
                return True
            return False
        if state == "cppmsg":
            if blk.sec_n < 20 and not _has_blank(blk.tent):
                blk.add(p)
                if blk.sec_n == 0 and blk.summary is None:
                    blk.summary = s
                blk.sec_n += 1
                return True
            return False
        if state == "sum":
            if blk.summary is None or blk.sec_n == 0:
                # first line after "Error Message Summary:" is the error itself
                blk.add(p)
                blk.summary = s
                blk.sec_n = 1
                body = s.split(":", 1)[1].strip() if ":" in s else s
                blk.body_empty = not body
                blk.terminated = _has_location(s)
                return True
            if msg[0] in _INDENT:
                blk.add(p)
                blk.seen_indent = True
                blk.sec_n += 1
                if _has_location(s):
                    blk.terminated = True
                return True
            if blk.terminated or blk.seen_indent or blk.sec_n >= 40:
                return False
            if blk.tent and not blk.body_empty:
                return False
            blk.add(p)
            blk.sec_n += 1
            if blk.body_empty and not blk.body_joined:
                # "ResourceExhaustedError: " + blank + "Out of memory error on GPU 0. ..."
                blk.summary = f"{blk.summary} {s}"
                blk.body_joined = True
            if _has_location(s):
                blk.terminated = True
            return True
        return False    # "pre": a dashes line not followed by a section title

    @staticmethod
    def _continue_glog(blk, p, s):
        if blk.tent:
            return False
        if s.startswith(("@ ", "*** ", "PC: @")):
            blk.add(p)
            blk.confirmed = True
            if s.startswith("*** SIG") and blk.prio < 2:
                blk.summary, blk.prio = s, 2
            elif s.startswith("*** Aborted at ") and blk.prio < 1:
                blk.summary, blk.prio = s, 1
            return True
        return False


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

def _obj(values: list) -> pd.Series:
    import pandas as pd
    # explicit object dtype: pandas >= 3 would otherwise infer its "str" dtype and turn None into NaN
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return pd.Series(arr, dtype=object, copy=False)


def _object_array_builder():
    """pandas' C helper: list of tuples -> 2-D object array (about 4x faster than per-column lists)."""
    try:
        from pandas._libs.lib import to_object_array_tuples
    except ImportError:  # pragma: no cover - private API; fall back to plain Python
        return None
    return to_object_array_tuples


class Events:
    """Events as plain columns (no pandas): what `logml predict` builds, read like a DataFrame
    by the rules and the features (`events["message"]`, `len(events)`, `events.columns`)."""

    def __init__(self, columns: dict[str, list]):
        self._columns = columns
        self.columns = list(columns)

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> Events:
        fields = list(zip(*rows)) if rows else [()] * len(ROW_FIELDS)
        return cls({name: list(fields[i]) for i, name in enumerate(ROW_FIELDS) if name in EVENT_COLUMNS})

    def __len__(self) -> int:
        return len(self._columns["message"])

    def __getitem__(self, name: str) -> list:
        return self._columns[name]


def _frame(rows: list) -> pd.DataFrame:
    import pandas as pd
    # rows are internal event tuples: (seq, last_seq, line_no, n_lines, ts, stream, level, kind,
    # message, text)
    if not rows:
        return empty_events()
    to_object_array = _object_array_builder()
    if to_object_array is not None:
        arr = to_object_array(rows)
        cols = {
            "line_no": arr[:, 2].astype(np.int64),
            "n_lines": arr[:, 3].astype(np.int64),
        }
        for k, name in enumerate(EVENT_COLUMNS[2:], start=4):
            cols[name] = pd.Series(arr[:, k].copy(), dtype=object, copy=False)
        return pd.DataFrame(cols, columns=EVENT_COLUMNS, copy=False)
    return pd.DataFrame(
        {
            "line_no": np.array([r[2] for r in rows], dtype=np.int64),
            "n_lines": np.array([r[3] for r in rows], dtype=np.int64),
            "ts": _obj([r[4] for r in rows]),
            "stream": _obj([r[5] for r in rows]),
            "level": _obj([r[6] for r in rows]),
            "kind": _obj([r[7] for r in rows]),
            "message": _obj([r[8] for r in rows]),
            "text": _obj([r[9] for r in rows]),
        },
        columns=EVENT_COLUMNS,
        copy=False,
    )


def empty_events() -> pd.DataFrame:
    import pandas as pd
    """An events frame with no rows and the contract's dtypes."""
    return pd.DataFrame(
        {
            "line_no": np.array([], dtype=np.int64),
            "n_lines": np.array([], dtype=np.int64),
            **{c: pd.Series([], dtype=object) for c in EVENT_COLUMNS[2:]},
        },
        columns=EVENT_COLUMNS,
    )


class LineChunk:
    """Minimal stand-in for sources.Chunk (same fields): normalize_lines, predict's skimming."""

    __slots__ = ("lines", "line_nos", "ts", "streams", "end_offsets", "problems")

    def __init__(self, lines, line_nos, ts, streams):
        self.lines = lines
        self.line_nos = line_nos
        self.ts = ts
        self.streams = streams
        self.end_offsets = []
        self.problems = []


def normalize_lines(
    lines: Iterable[str],
    ts: Sequence[str | None] | None = None,
    streams: Sequence[str | None] | None = None,
    first_line_no: int = 1,
) -> pd.DataFrame:
    """Normalize plain lines (one run) in one go: line numbers start at ``first_line_no``."""
    lines = list(lines)
    n = len(lines)
    chunk = LineChunk(
        lines,
        list(range(first_line_no, first_line_no + n)),
        list(ts) if ts is not None else [None] * n,
        list(streams) if streams is not None else [None] * n,
    )
    norm = Normalizer()
    rows, _ = norm.feed_rows(chunk)
    return _frame(rows + norm.flush_rows())
