"""Per-run features: the failure-relevant text of a run, its rule hits and its exit facts.

A run becomes one small record (`RunFeatures`): the lines that can explain a failure (errors,
tracebacks, summary blocks, warnings that name a cause, and the last lines before the run
ended), the ids of the rules that fired, and tokens for exit code / OOMKilled. The model turns
these into TF-IDF n-grams; keeping the record plain (no pandas) lets `logml predict` build it
without importing pandas or scikit-learn.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Words that make a line worth keeping even when it has no level (1.x dumps, raw stderr, Chinese hints).
RELEVANT = re.compile(
    r"(?i)error|exception|traceback|fatal|fail|killed|abort|segmentation|sig[a-z]{2,4}\b|bus error|"
    r"cannot|can't|could not|unable|not found|no such|does not exist|refused|timed? ?out|timeout|"
    r"out of memory|insufficient|not supported|not registered|no attribute|no module|mismatch|"
    r"incompatible|deprecated|warn|core dumped|exit code|errno|cuda|cudnn|nccl|shm|\.so\b|"
    r"错误|失败|异常|无法|不支持|未找到|请检查|内存|显存"
)
TAIL_EVENTS = 30
MAX_CHARS = 12_000


@dataclass
class RunFeatures:
    doc: str                # failure-relevant text, in log order, newest kept when capped
    rules: str              # ids of the rules that fired, space-separated ("" when none)
    meta: str               # exit/OOM tokens, e.g. "exit_137 oom_killed"
    evidence_lines: list[int]


def meta_tokens(meta: Mapping | None) -> str:
    meta = meta or {}
    tokens = []
    code = meta.get("exit_code")
    if code is None or code != code:  # None or NaN
        tokens.append("exit_unknown")
    else:
        code = int(code)
        tokens.append(f"exit_{code}" if code in (0, 1, 2, 134, 137, 139, 143) else "exit_other")
    if meta.get("oom_killed") is True:
        tokens.append("oom_killed")
    return " ".join(tokens)


def _relevant_mask(messages: Sequence[str]) -> list[bool]:
    """RELEVANT over all messages at once: RE2 through pyarrow (vectorised), Python re otherwise."""
    from pipeline.textops import re2_search
    try:
        return re2_search(messages, RELEVANT.pattern[4:], ignore_case=True)
    except (ImportError, NotImplementedError, ValueError):  # RE2 missing or rejecting the pattern
        return [RELEVANT.search(m or "") is not None for m in messages]


def relevant_indices(levels: Sequence, kinds: Sequence, messages: Sequence[str], tail: int = TAIL_EVENTS) -> list[int]:
    n = len(messages)
    keep = set(range(max(0, n - tail), n))
    hits = _relevant_mask(messages)
    for i in range(n):
        if levels[i] in ("ERROR", "FATAL", "WARNING") or kinds[i] != "line" or hits[i]:
            keep.add(i)
    return sorted(keep)


def run_features(events: Mapping, meta: Mapping | None = None, rule_hits: Sequence[str] = ()) -> RunFeatures:
    """events: a DataFrame or a mapping of column -> sequence with line_no, level, kind, message, text."""
    messages = list(events["message"])
    texts = [t if isinstance(t, str) else m for t, m in zip(list(events["text"]), messages)]
    keep = relevant_indices(list(events["level"]), list(events["kind"]), messages)
    parts, size = [], 0
    for i in reversed(keep):  # newest first so the cap drops the oldest lines
        text = texts[i] or ""
        if size + len(text) > MAX_CHARS:
            break
        parts.append(text)
        size += len(text) + 1
    line_nos = list(events["line_no"])
    return RunFeatures(doc="\n".join(reversed(parts)), rules=" ".join(rule_hits), meta=meta_tokens(meta),
                       evidence_lines=[int(line_nos[i]) for i in keep])
