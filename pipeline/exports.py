"""A log exported from a log platform, back to the lines the container printed.

Platform teams rarely have the container's own file: they export its lines from where the fleet
ships them. ``journalctl -o json``, Loki and Elasticsearch/Kibana give one JSON object per line
with the text under ``MESSAGE``, ``line`` or ``message``; Kibana's, Splunk's and Aliyun SLS's CSV
exports put it in one column of a quoted CSV (a multi-line message stays one quoted field). Read
as text, a rule anchored at a line's start never sees its line, a traceback is one escaped string,
and the run's end is wherever the export put it: web consoles list the newest line first.

``Export.detect`` recognises such a file from its first lines; ``Export.unwrap`` gives the
messages as lines in the order they were printed (records whose timestamps run backwards are put
back in order), numbered afresh; ``Export.file_lines`` maps those numbers back to the file's lines,
so evidence cites the file as given.
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field, replace

# where each platform puts the printed text, most specific first
MESSAGE_KEYS = ("MESSAGE", "message", "log", "line", "msg", "_msg", "_raw", "content", "textPayload", "body",
                "@message", "Line", "Message", "Content", "log.message", "_source.message", "_source.log",
                "jsonPayload.message", "fields.message")
# where a structured logger puts the rest of a record's text (python-json-logger's exc_info, structlog's exception,
# zap's error and stacktrace, pino's err.stack): printed after the message, as a plain logger prints it
DETAIL_KEYS = ("exc_info", "exc_text", "exception", "error", "err", "stack", "stacktrace", "stack_trace", "traceback",
               "err.stack", "error.stack_trace", "error.message")
TIME_KEYS = ("__REALTIME_TIMESTAMP", "@timestamp", "timestamp", "time", "_time", "__time__", "ts", "Time",
             "Timestamp", "Date", "date", "_source.@timestamp")
STREAM_KEYS = ("stream", "_STREAM", "log.stream")
SNIFF_LINES = 20
MIN_RECORDS = 2


@dataclass
class Export:
    kind: str                 # "jsonl" | "csv" | "text" (stamped lines)
    message: str              # the key or column holding the text
    time: str | None = None
    stream: str | None = None
    reverse: bool | None = None   # newest first: decided on the first chunk's timestamps
    header: list[str] | None = None   # csv: the columns
    drop_stamp: bool = False          # text: the timestamp is the console's column (a tab after it), not the log's
    # the unwrapped lines are numbered 1, 2, ... in printed order (a multi-line event's evidence is
    # its first line plus an offset); file_lines maps each number to the file line holding it
    file_lines: dict[int, int] = field(default_factory=dict)

    @classmethod
    def detect(cls, lines: list[str]) -> Export | None:
        """The export a file's first lines show, or None for anything else (a plain log, a paste)."""
        head = [ln for ln in lines[:SNIFF_LINES * 5] if ln.strip()][:SNIFF_LINES]
        if len(head) < MIN_RECORDS:
            return None
        if all(ln.lstrip().startswith("{") for ln in head):
            records = [_object(ln) for ln in head]
            if sum(r is not None for r in records) < max(MIN_RECORDS, 0.9 * len(head)):
                return None
            for key in MESSAGE_KEYS:
                if sum(isinstance(_get(r, key), str) for r in records if r) >= 0.9 * len(head):
                    return cls("jsonl", key, _first(records, TIME_KEYS), _first(records, STREAM_KEYS))
            return None
        try:
            names = [h.strip() for h in next(csv.reader([head[0]]))]
        except csv.Error:
            names = []
        if len(names) >= 2 and len(set(names)) == len(names):
            for key in MESSAGE_KEYS:
                if key in names:
                    return cls("csv", key, next((k for k in TIME_KEYS if k in names), None),
                               next((k for k in STREAM_KEYS if k in names), None), header=names)
        return cls._stamped_text(lines)

    @classmethod
    def _stamped_text(cls, lines: list[str]) -> Export | None:
        """Text whose lines start with a timestamp, copied from a web console: an export only if it lists
        the newest line first, or puts its timestamp in a column of its own (a tab after it); a log in
        printed order is left alone."""
        written = [ln for ln in lines[:SNIFF_LINES * 100] if ln.strip()]
        stamps = [m for m in map(_LEADING_STAMP.match, written) if m]
        if len(stamps) < MIN_RECORDS or len(stamps) < 0.5 * len(written):
            return None
        column = all(m.group(0).endswith("\t") for m in stamps)
        # the commonest form's stamps only (a program's glog lines have no year beside ISO ones), and more
        # than one step back: one is a clock's hiccup or a second run pasted after the first
        forms = [m.lastindex for m in stamps]
        form = max(set(forms), key=forms.count)
        keys = [_stamp_of(m) for m in stamps if m.lastindex == form]
        newest_first = sum(a > b for a, b in zip(keys, keys[1:])) >= 2 and _newest_first(keys)
        if not (column or newest_first):
            return None
        return cls("text", "", reverse=newest_first, drop_stamp=column)

    def unwrap(self, chunk):
        """The chunk's records as printed lines (see the module's docstring)."""
        records = self._records(chunk)
        if self.reverse is None:
            self.reverse = _newest_first([t for _, _, _, t, _ in records])
        if self.reverse:
            records.reverse()
        lines, line_nos, ts, streams, ends, end_lines = [], [], [], [], [], []
        for at, end, text, stamp, stream in records:
            for k, part in enumerate(text.splitlines() or [""]):
                lines.append(part)
                number = len(self.file_lines) + 1
                self.file_lines[number] = chunk.line_nos[min(at + k, end - 1)]   # a CSV record's k-th line is the file's
                line_nos.append(number)
                ts.append(stamp if isinstance(stamp, str) and _RFC3339.match(stamp) else chunk.ts[at])
                streams.append(stream if stream in ("stdout", "stderr") else chunk.streams[at])
                if chunk.end_offsets:
                    ends.append(chunk.end_offsets[at])
                if chunk.end_lines:
                    end_lines.append(chunk.end_lines[at])
        return replace(chunk, lines=lines, line_nos=line_nos, ts=ts, streams=streams,
                       end_offsets=ends if chunk.end_offsets else chunk.end_offsets,
                       end_lines=end_lines if chunk.end_lines else chunk.end_lines)

    def _records(self, chunk) -> list[tuple[int, int, str, object, object]]:
        """(indexes of the record's first line in the chunk and past its last, message, timestamp, stream)
        per record; a line that is no record (a header, a blank, a note) is kept as printed."""
        out = []
        if self.kind == "text":   # a stamped line and the unstamped lines after it (a traceback's) are a record
            for i, line in enumerate(chunk.lines):
                m = _LEADING_STAMP.match(line)
                if m or not out:
                    text = line[m.end():] if m and self.drop_stamp else line
                    out.append((i, i + 1, text, _stamp_of(m) if m else None, None))
                else:
                    at, _, text, stamp, stream = out[-1]
                    out[-1] = (at, i + 1, text + "\n" + line, stamp, stream)
            return out
        if self.kind == "jsonl":
            for i, line in enumerate(chunk.lines):
                obj = _object(line) if line.lstrip().startswith("{") else None
                text = _get(obj, self.message) if obj else None
                if isinstance(text, str):
                    details = [d for d in (_get(obj, k) for k in DETAIL_KEYS) if isinstance(d, str) and d.strip()]
                    out.append((i, i + 1, "\n".join([text.rstrip("\n"), *(d.rstrip("\n") for d in details)]),
                                _get(obj, self.time), _get(obj, self.stream)))
                elif line.strip():
                    out.append((i, i + 1, line, None, None))
            return out
        # csv: a quoted field may span lines; the reader's line count gives each record's first line
        reader = csv.reader(line + "\n" for line in chunk.lines)
        at = 0
        try:
            for row in reader:
                end = reader.line_num
                if row and [c.strip() for c in row] != self.header:
                    record = dict(zip(self.header, row))
                    if len(row) == len(self.header):
                        out.append((at, end, record[self.message].rstrip("\n"), record.get(self.time or ""),
                                    record.get(self.stream or "")))
                    else:
                        out.append((at, end, "\n".join(chunk.lines[at:end]), None, None))
                at = end
        except csv.Error:   # a quote never closed (an export cut short): the rest as printed
            out.extend((i, i + 1, chunk.lines[i], None, None) for i in range(at, len(chunk.lines)))
        return out


def _object(line: str) -> dict | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _get(obj: dict | None, key: str | None):
    """obj[key], or for a dotted key ("_source.message", "err.stack") the nested object's field."""
    if obj is None or key is None:
        return None
    if key in obj:
        return obj[key]
    if "." in key:
        outer, inner = key.split(".", 1)
        nested = obj.get(outer)
        return nested.get(inner) if isinstance(nested, dict) else None
    return None


def _first(records: list[dict | None], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if any(r is not None and _get(r, k) is not None for r in records)), None)


_RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
_NUMBER = re.compile(r"^\d{9,19}(?:\.\d+)?$")


def _order_key(stamp) -> str | float | None:
    """A timestamp as something that sorts: epoch numbers (journald's microseconds, Splunk's seconds)
    as numbers, ISO 8601 text as text (it sorts as written)."""
    if isinstance(stamp, (int, float)):
        return float(stamp)
    if not isinstance(stamp, str) or not stamp.strip():
        return None
    stamp = stamp.strip()
    if _NUMBER.match(stamp):
        return float(stamp)
    if re.match(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d", stamp):
        return stamp
    m = _KIBANA.match(stamp)   # Kibana's "Nov 3, 2026 @ 10:12:01.123"
    if m:
        from datetime import datetime
        try:
            return datetime.strptime(" ".join(m.groups()[:4]), "%b %d %Y %H:%M:%S").isoformat() + (m.group(5) or "")
        except ValueError:
            return None
    return None


# a timestamp opening a line: ISO 8601 (also 2024/03/05, a comma before the fraction, in brackets), Kibana's
# "Nov 3, 2026 @ 10:12:01.123", glog's "I0304 17:20:41.902117" (no year: it sorts within one)
_LEADING_STAMP = re.compile(r"\[?(\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\]?\t?"
                            r"|([A-Z][a-z]{2} \d\d?, \d{4} @ \d\d:\d\d:\d\d(?:\.\d+)?)\t?"
                            r"|[IWEF](\d{4} \d\d:\d\d:\d\d\.\d+)")


def _stamp_of(m: re.Match) -> str | None:
    iso, kibana, glog = m.groups()
    if iso:
        return iso.replace("/", "-").replace(",", ".").replace("T", " ")
    if kibana:
        key = _order_key(kibana)
        return key.replace("T", " ") if isinstance(key, str) else None
    return f"0000-{glog[:2]}-{glog[2:]}"   # glog's MMDD: any year sorts the same


_KIBANA = re.compile(r"([A-Z][a-z]{2}) (\d\d?), (\d{4}) @ (\d\d:\d\d:\d\d)(\.\d+)?")


def _newest_first(stamps: list) -> bool:
    """The records' timestamps run backwards: most steps go down, few go up."""
    keys = [k for k in map(_order_key, stamps) if k is not None]
    keys = [k for k in keys if type(k) is type(keys[0])] if keys else []
    down = sum(a > b for a, b in zip(keys, keys[1:]))
    up = sum(a < b for a, b in zip(keys, keys[1:]))
    return down >= 1 and up <= 0.1 * (down + up)
