"""Template mining: mask variable tokens, dedupe, Drain3 over distinct messages only.

Why it is shaped like this:
- Most container log lines repeat once their numbers are gone, so a line is first reduced to a
  *digit-collapsed* key (each digit -> "1", one C-level bytes.translate) and only distinct keys are
  masked; only distinct masked messages ever reach Drain3, in sorted order, so the result does not
  depend on how input was chunked or interrupted.
- Template keys are stable: a cluster's key is derived from the template it had when it was created
  and never changes when Drain3 later generalises the template. Messages point to template keys,
  so rows whose template generalised later follow it automatically.
- Drain3's own jsonpickle snapshots are never used: the miner state is the templates table
  (cluster id, initial tokens, current tokens), rebuilt here into a fresh Drain tree.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from drain3.drain import Drain, LogCluster

# Ordered: earlier masks protect their match from later, more general ones. Each mask has a cheap
# substring guard so most messages skip most regexes. Digit runs are matched with \d+, never a
# fixed count, so that masking cannot tell two messages apart that differ only in their numbers:
# that is what makes the digit-collapsed dedupe key (collapse_digits) exact.
# [^\S\n] rather than \s: masks never cross lines.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MASKS: list[tuple[str, str, tuple[str, ...]]] = [
    ("UUID", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", ("-",)),
    ("TS", r"\b\d+[-/]\d+[-/]\d+(?:[T ]\d+:\d+:\d+(?:[.,]\d+)?(?:Z|[+-]\d+(?::\d+)?)?)?\b", ("-", "/")),
    # ctime / syslog dates: "Mon Jun 20 03:40:59 2005", "Jun 14 15:16:01", "June 3, 2005 10:05:25"
    ("TS", r"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?[^\S\n]+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
           r"[^\S\n]+\d+,?(?:[^\S\n]+\d+)?[^\S\n]+\d+:\d+:\d+(?:[.,]\d+)?(?:[^\S\n]+\d+\b)?", _MONTHS),
    ("URL", r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", ("://",)),
    ("IP", r"\b\d+(?:\.\d+){3}(?::\d+)?\b", (".",)),
    ("HEX", r"\b0x[0-9a-fA-F]+\b", ("0x",)),
    ("PATH", r"(?<![\w.<>])(?:~|\.{1,2})?(?:/[\w.+@%-]+){2,}/?|(?<![\w.<>/])[A-Za-z]:\\[^\s'\"]+", ("/", ":\\")),
    ("SHAPE", r"\[[^\S\n]*-?\d+(?:[^\S\n]*,[^\S\n]*-?\d+)+[^\S\n]*,?[^\S\n]*\]", ("[",)),
    ("SIZE", r"\b\d+(?:\.\d+)?(?:[^\S\n]?(?:[KMGTP]i?B|bytes|[KMGT]b)|[^\S\n]B)\b", ("B", "b")),
    ("DUR", r"\b\d+:\d+:\d+(?:\.\d+)?\b|\b\d+(?:\.\d+)?[^\S\n]?(?:ms|us|ns|sec|secs|seconds|s|min|mins|h)\b",
     ("s", ":", "min", "h")),
    ("VER", r"\bv?\d+\.\d+\.\d+(?:[.-][\w]+)*\b", (".",)),
    ("NUM", r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w])", ()),
    # Hex ids without 0x, told apart from words by the shape of their digit runs (never by a length,
    # which the dedupe key cannot see): two or more digit runs ("0244c1dc", "3f2a9c0d1e4b"), or a
    # leading digit run and two or more letters ("0245ccfc"). "bf16", "a100", "7b", "deadbeef" stay.
    ("HEX", r"\b(?:[0-9a-fA-F]*\d[a-fA-F]+\d[0-9a-fA-F]*|\d+[a-fA-F]{2,})\b", ()),
    # Compound ids with a numeric field between underscores: attempt_1445144423722_0020_m_000000_0,
    # container_..._01_000005, broadcast_0_piece0 ("sm_90", "conv2d_0.w_0", "blk_123" stay).
    ("ID", r"\b\w*_-?\d+_\w*", ("_-",) + tuple(f"_{d}" for d in range(10))),
]
def _guard(guards: tuple[str, ...]):
    """message -> whether a mask can match (its cheap substring guard); None: always try."""
    if not guards:
        return None
    if len(guards) == 1:
        g = guards[0]
        return lambda m: g in m
    if len(guards) == 2:
        g0, g1 = guards
        return lambda m: g0 in m or g1 in m
    return lambda m: any(g in m for g in guards)


_MASK_RES = [(f"<{name}>", re.compile(pattern), guards) for name, pattern, guards in MASKS]
_MASK_STEPS = [(token, pattern.sub, _guard(guards)) for token, pattern, guards in _MASK_RES]
_DIGIT_BYTES = bytes.maketrans(b"0123456789", b"1111111111")
_HAS_DIGIT = re.compile(r"\d").search


def collapse_digits(message: str) -> bytes:
    """Dedupe key: every digit becomes "1" (masks never look at digit values). Bytes, because
    bytes.translate is one C table lookup, ten times faster than str.translate; run lengths are
    kept, since collapsing them costs more than the few extra distinct keys it saves."""
    return message.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES)


def mask(message: str) -> str:
    if _HAS_DIGIT(message) or "/" in message:
        for token, sub, guard in _MASK_STEPS:
            if guard is None or guard(message):
                message = sub(token, message)
    return " ".join(message.split())


def message_key(masked: str) -> str:
    return hashlib.sha1(masked.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def template_key(initial_template: str) -> str:
    return "T" + hashlib.sha1(initial_template.encode("utf-8", "surrogatepass")).hexdigest()[:11]


_DIGIT_RUNS = re.compile(rb"1+")
_ASCII_DIGIT = re.compile(r"[0-9]").search
# what makes a mask see digit-run lengths or values: a UUID's fixed group lengths, the "0x" of HEX
_RUN_SENSITIVE = re.compile(rb"[0-9a-fA-F]+(?:-[0-9a-fA-F]+){4}|1x").search


def collapse_runs(collapsed: bytes) -> bytes:
    """Every digit run of a digit-collapsed message -> one "1"."""
    return _DIGIT_RUNS.sub(b"1", collapsed)


def run_safe(collapsed: bytes, masked: str) -> bool:
    """Whether every message with the same digit-run-collapsed form masks to `masked`: the masks took
    every digit (no digit survives to differ), and none of them counts digits or reads a digit's
    value (every digit atom of MASKS is \\d+ or next to a class with + or *, and a match never starts
    or ends inside a digit run; the UUID counts and "0x" are the exceptions, excluded here)."""
    return _ASCII_DIGIT(masked) is None and _RUN_SENSITIVE(collapsed) is None


class MaskCache:
    """raw message -> (message_key, masked), memoised on the digit-collapsed form, and on the
    digit-run-collapsed form when that is exact (run_safe): "step 9 of 10" and "step 120 of 1000"
    mask to the same text, so a fleet's ever-new digit lengths cost one mask, not one each.

    Bounded: it is cleared when it grows past max_size, which only costs recomputation.
    """

    def __init__(self, max_size: int = 500_000) -> None:
        self.max_size = max_size
        self._by_collapsed: dict[bytes, tuple[str, str]] = {}
        self._by_runs: dict[bytes, tuple[str, str]] = {}
        self.generation = 0   # bumped when cleared: keys remembered elsewhere are stale then

    def missing(self, messages: Iterable[str]) -> list[str]:
        """Messages whose digit-collapsed form is not cached yet (to mask ahead, e.g. elsewhere)."""
        cache, runs, seen, out = self._by_collapsed, self._by_runs, set(), []
        for msg in messages:
            collapsed = collapse_digits(msg)
            if collapsed in cache or collapsed in seen:
                continue
            run = collapse_runs(collapsed)
            if run not in runs and run not in seen:
                seen.add(collapsed)
                seen.add(run)
                out.append(msg)
        return out

    def lookup(self, messages: Iterable[str], masked_ahead: dict[str, str] | None = None
               ) -> tuple[list[str], dict[str, str]]:
        """Return the message key of each message and {key: masked} of the keys seen.
        masked_ahead: {message: mask(message)} computed beforehand (mask is pure)."""
        ahead = masked_ahead or {}
        cache, runs = self._by_collapsed, self._by_runs
        if len(cache) > self.max_size:
            cache.clear()
            runs.clear()
            self.generation += 1
        keys: list[str] = []
        masked_of: dict[str, str] = {}
        for msg in messages:
            collapsed = collapse_digits(msg)
            hit = cache.get(collapsed)
            if hit is None:
                run = collapse_runs(collapsed)
                hit = runs.get(run)
                if hit is None:
                    masked = ahead.get(msg)
                    if masked is None:
                        masked = mask(msg)
                    hit = (message_key(masked), masked)
                    if run_safe(collapsed, masked):
                        runs[run] = hit
                cache[collapsed] = hit
            keys.append(hit[0])
            masked_of[hit[0]] = hit[1]
        return keys, masked_of


@dataclass
class Template:
    template_key: str
    cluster_id: int
    template: str           # current (possibly generalised) template
    initial_template: str   # the template at creation: fixes the key and the prefix-tree path


class TemplateMiner:
    """Drain3 with state kept as plain Template rows (see module docstring)."""

    def __init__(self, templates: Sequence[Template] = (), sim_th: float = 0.4, depth: int = 4,
                 max_children: int = 100, extra_delimiters: Sequence[str] = ("=", ",")) -> None:
        self.drain = Drain(depth=depth, sim_th=sim_th, max_children=max_children,
                           extra_delimiters=tuple(extra_delimiters))
        self._key_of: dict[int, str] = {}
        self._initial: dict[int, str] = {}
        for tpl in sorted(templates, key=lambda t: t.cluster_id):
            self._restore(tpl)

    @classmethod
    def from_params(cls, templates: Sequence[Template], params: dict) -> TemplateMiner:
        m = params.get("mining", {})
        return cls(templates, sim_th=m.get("sim_th", 0.4), depth=m.get("depth", 4),
                   max_children=m.get("max_children", 100),
                   extra_delimiters=m.get("extra_delimiters", ("=", ",")))

    def _restore(self, tpl: Template) -> None:
        # The tree path is built from the initial tokens, exactly as Drain3 built it when the
        # cluster was created; the cluster then carries its current (generalised) tokens.
        cluster = LogCluster(self.drain.get_content_as_tokens(tpl.initial_template), tpl.cluster_id)
        self.drain.id_to_cluster[tpl.cluster_id] = cluster
        self.drain.add_seq_to_prefix_tree(self.drain.root_node, cluster)
        cluster.log_template_tokens = tuple(tpl.template.split(" ")) if tpl.template else ()
        self.drain.clusters_counter = max(self.drain.clusters_counter, tpl.cluster_id)
        self._key_of[tpl.cluster_id] = tpl.template_key
        self._initial[tpl.cluster_id] = tpl.initial_template

    def learn(self, masked_messages: Iterable[str]) -> list[str]:
        """Add messages (callers pass distinct messages in sorted order); return their template keys."""
        keys = []
        for masked in masked_messages:
            cluster, change = self.drain.add_log_message(masked)
            cid = cluster.cluster_id
            if change == "cluster_created":
                initial = cluster.get_template()
                key = template_key(initial)
                if key in self._key_of.values():  # same initial text reborn after an LRU eviction
                    key = template_key(f"{initial}#{cid}")
                self._key_of[cid] = key
                self._initial[cid] = initial
            keys.append(self._key_of[cid])
        return keys

    def match(self, masked: str) -> str | None:
        """Match-only (predict): never creates or changes a template."""
        cluster = self.drain.match(masked, full_search_strategy="fallback")
        return self._key_of.get(cluster.cluster_id) if cluster else None

    def templates(self) -> list[Template]:
        return [
            Template(self._key_of[c.cluster_id], c.cluster_id, c.get_template(), self._initial[c.cluster_id])
            for c in sorted(self.drain.clusters, key=lambda c: c.cluster_id)
        ]


def template_params(template: str, masked_or_raw: str) -> list[str]:
    """Values standing where the template has <*> (token-aligned; empty when lengths differ)."""
    t_tokens, m_tokens = template.split(), masked_or_raw.split()
    if len(t_tokens) != len(m_tokens):
        return []
    return [m for t, m in zip(t_tokens, m_tokens) if t == "<*>"]


def mask_all(messages: list[str]) -> list[str]:
    """mask() over a list: the unit of work sent to a helper process."""
    return [mask(m) for m in messages]


class MaskAhead:
    """Masks messages in a helper process while the caller goes on (DuckDB work, no GIL): the first
    sight of ~15k distinct messages per million lines costs more than a second of regexes."""

    def __init__(self, min_batch: int = 10000) -> None:
        self.min_batch = min_batch
        self.pool = None

    def submit(self, messages: list[str]):
        """A callable returning {message: masked}: empty for few messages (not worth a process)."""
        if len(messages) < self.min_batch:
            return dict
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        future = self.pool.submit(mask_all, messages)

        def result() -> dict[str, str]:
            try:
                return dict(zip(messages, future.result()))
            except Exception:  # a helper that could not start (e.g. an unguarded __main__): mask inline
                return {}
        return result

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None
