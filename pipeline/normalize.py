"""Split headers from messages and group multi-line blocks into events.

Contract:
  Normalizer().feed(chunk) -> (events, n_pending)   # events: pandas.DataFrame with EVENT_COLUMNS
  Normalizer().flush() -> events                     # emit whatever block is still open (end of run)
A block still open at the end of a chunk is carried to the next feed(); n_pending says how many
of the chunk's trailing lines are carried, so the caller commits the byte offset before them.
"""
from __future__ import annotations

EVENT_COLUMNS = [
    "line_no",   # int: 1-based physical line of the event's first line in its file
    "n_lines",   # int: logical lines grouped into this event
    "ts",        # str | None: header timestamp (ISO 8601) if present, else the envelope timestamp
    "stream",    # str | None
    "level",     # "DEBUG" | "INFO" | "WARNING" | "ERROR" | "FATAL" | None
    "kind",      # "line" | "py_traceback" | "cpp_traceback" | "error_summary"
    "message",   # free text for mining: header stripped; for a block its summary line
    "text",      # the whole event (header stripped), lines joined with "\n"
]
