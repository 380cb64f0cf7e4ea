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
from operator import eq

from drain3.drain import Drain, LogCluster

# Ordered: earlier masks protect their match from later, more general ones. Each mask has a cheap
# substring guard so most messages skip most regexes. Digit runs are matched with \d+, never a
# fixed count, so that masking cannot tell two messages apart that differ only in their numbers:
# that is what makes the digit-collapsed dedupe key (collapse_digits) exact.
# [^\S\n] rather than \s: masks never cross lines.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# Duration units, longest spelling first; "m" only counts inside a duration ("1m30s", "1 min 2 s").
_UNIT = r"(?:ns|us|µs|ms|msecs?|millis(?:econds?)?|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?)"
_DUR_PART = r"(?:\d+:\d+(?::\d+)?(?:\.\d+)?\b|\d+(?:\.\d+)?[^\S\n]?" + _UNIT + r"(?![A-Za-z]))"
MASKS: list[tuple[str, str, tuple[str, ...]]] = [
    ("UUID", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", ("-",)),
    # MAC addresses (one separator throughout), before TS and DUR would take their digit pairs apart
    ("MAC", r"\b[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2}){4}\b", (":", "-")),
    # PCI bus addresses ("0000:3b:00.0", "PCI:0000:86:00"): after a word that says so, or carrying a hex
    # letter, so that clock times ("12:30:45.1") stay durations and the digit-collapse key stays exact.
    # The leading lookahead (a hex run and a colon) fails fast where no address starts: the lookbehinds
    # alone, tried at every position, made masking 35% slower.
    ("PCI", r"\b(?=[0-9a-fA-F]+:[0-9a-fA-F])(?:(?:(?<=PCI:)|(?<=Bus Id )|(?<=Bus-Id )|(?<=Bus ID )|(?<=GPU )|(?<=pci )"
            r"|(?<=nvidia ))[0-9a-fA-F]+:[0-9a-fA-F]+(?::[0-9a-fA-F]+)?(?:\.\d+)?"
            r"|(?=[0-9a-fA-F:.]*[a-fA-F])(?=[0-9a-fA-F:.]*\d)[0-9a-fA-F]+:[0-9a-fA-F]+:[0-9a-fA-F]+(?:\.\d+)?)\b", (":",)),
    ("TS", r"\b\d+[-/]\d+[-/]\d+(?:[T ]\d+:\d+:\d+(?:[.,]\d+)?(?:Z|[+-]\d+(?::\d+)?)?)?\b", ("-", "/")),
    # ctime / syslog dates: "Mon Jun 20 03:40:59 2005", "Jun 14 15:16:01", "June 3, 2005 10:05:25"
    ("TS", r"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?[^\S\n]+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
           r"[^\S\n]+\d+,?(?:[^\S\n]+\d+)?[^\S\n]+\d+:\d+:\d+(?:[.,]\d+)?(?:[^\S\n]+\d+\b)?", _MONTHS),
    ("URL", r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", ("://",)),
    ("IP", r"\b\d+(?:\.\d+){3}(?::\d+)?\b", (".",)),
    ("HEX", r"\b0x[0-9a-fA-F]+\b", ("0x",)),
    ("PATH", r"(?<![\w.<>])(?:~|\.{1,2})?(?:/[\w.+@%-]+){2,}/?|(?<![\w.<>/])[A-Za-z]:\\[^\s'\"]+", ("/", ":\\")),
    # a tensor shape or number list, one element or many: "[32]" and "[32, 3, 224, 224]" are one event
    ("SHAPE", r"(?<!\w)\[[^\S\n]*-?\d+(?:[^\S\n]*,[^\S\n]*-?\d+)*[^\S\n]*,?[^\S\n]*\]", ("[",)),
    ("SIZE", r"\b\d+(?:\.\d+)?(?:[^\S\n]?(?:[KMGTP]i?B|bytes|[KMGT]b)|[^\S\n]B)\b", ("B", "b")),
    # one duration however many parts it is printed with ("3s", "1 min 2 s", "1h2m3s", "<1 sec", "00:01",
    # "1 day, 9:08:29")
    ("DUR", r"(?:(?<![\w<>])[<>~]|\b)(?=\d)" + _DUR_PART + r"(?:,?[^\S\n]*(?=\d)" + _DUR_PART + ")*",
     ("s", ":", "m", "h", "d")),
    ("VER", r"\bv?\d+\.\d+\.\d+(?:[.-][\w]+)*\b", (".",)),
    ("NUM", r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w])", ()),
    # Hex ids without 0x, told apart from words by the shape of their digit runs (never by a length,
    # which the dedupe key cannot see): two or more digit runs ("0244c1dc", "3f2a9c0d1e4b"), or a
    # leading digit run and two or more letters ("0245ccfc"). "bf16", "a100", "7b", "deadbeef" stay.
    ("HEX", r"\b(?:[0-9a-fA-F]*\d[a-fA-F]+\d[0-9a-fA-F]*|\d+[a-fA-F]{2,})\b", ()),
    # Compound ids with a numeric field between underscores: attempt_1445144423722_0020_m_000000_0,
    # container_..._01_000005, broadcast_0_piece0, or digit runs joined by "_" (30546173_4261722401);
    # "sm_90", "conv2d_0.w_0", "blk_123" stay.
    ("ID", r"\b\w*_-?\d+_\w*|\b\d+(?:_\d+)+\b", ("_-",) + tuple(f"_{d}" for d in range(10))),
]
MASK_NAMES = tuple(dict.fromkeys(name for name, _, _ in MASKS))
# A token that is one mask placeholder, and a placeholder anywhere in a token ("host:<NUM>").
MASK_TOKEN = re.compile("<(?:" + "|".join(MASK_NAMES) + ")>")
_MASK_TOKENS = frozenset(f"<{name}>" for name in MASK_NAMES)


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


def compile_masks(drop: Iterable[str] = ()) -> tuple:
    """The masks in order as (token, substitute, guard), less the named ones (bench/loghub.py tries
    each mask's removal)."""
    drop = set(drop)
    return tuple((f"<{name}>", re.compile(pattern).sub, _guard(guards))
                 for name, pattern, guards in MASKS if name not in drop)


DEFAULT_MASKS = compile_masks()
_DIGIT_BYTES = bytes.maketrans(b"0123456789", b"1111111111")
_HAS_DIGIT = re.compile(r"\d").search


def collapse_digits(message: str) -> bytes:
    """Dedupe key: every digit becomes "1" (masks never look at digit values). Bytes, because
    bytes.translate is one C table lookup, ten times faster than str.translate; run lengths are
    kept, since collapsing them costs more than the few extra distinct keys it saves."""
    return message.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES)


def mask(message: str, masks: tuple = DEFAULT_MASKS) -> str:
    if _HAS_DIGIT(message) or "/" in message:
        for token, sub, guard in masks:
            if guard is None or guard(message):
                message = sub(token, message)
    return " ".join(message.split())


def message_key(masked: str) -> str:
    return hashlib.sha1(masked.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def template_key(initial_template: str) -> str:
    return "T" + hashlib.sha1(initial_template.encode("utf-8", "surrogatepass")).hexdigest()[:11]


_DIGIT_RUNS = re.compile(rb"1+")
_ASCII_DIGIT = re.compile(r"[0-9]").search
# what makes a mask see digit-run lengths or values: a UUID's fixed group lengths, a MAC's pairs, the "0x" of HEX
_RUN_SENSITIVE = re.compile(rb"[0-9a-fA-F]+(?:-[0-9a-fA-F]+){4}|[0-9a-fA-F]+(?::[0-9a-fA-F]+){5}|1x").search


def collapse_runs(collapsed: bytes) -> bytes:
    """Every digit run of a digit-collapsed message -> one "1"."""
    return _DIGIT_RUNS.sub(b"1", collapsed)


def run_safe(collapsed: bytes, masked: str) -> bool:
    """Whether every message with the same digit-run-collapsed form masks to `masked`: the masks took
    every digit (no digit survives to differ), and none of them counts digits or reads a digit's
    value (every digit atom of MASKS is \\d+ or next to a class with + or *, and a match never starts
    or ends inside a digit run; the UUID and MAC counts and "0x" are the exceptions, excluded here)."""
    return _ASCII_DIGIT(masked) is None and _RUN_SENSITIVE(collapsed) is None


class MaskCache:
    """raw message -> (message_key, masked), memoised on the digit-collapsed form, and on the
    digit-run-collapsed form when that is exact (run_safe): "step 9 of 10" and "step 120 of 1000"
    mask to the same text, so a fleet's ever-new digit lengths cost one mask, not one each.

    Bounded: it is cleared when it grows past max_size, which only costs recomputation.
    """

    def __init__(self, max_size: int = 500_000, masks: tuple = DEFAULT_MASKS) -> None:
        self.max_size = max_size
        self.masks = masks
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
                        masked = mask(msg, self.masks)
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


WILDCARD = "<*>"
# letters, then an inner "." "@" or "/" followed by letters: a host, an address, a dotted name
_NAME_LIKE = re.compile(r"\w[.@/]\w").search


def is_variable(token: str) -> bool:
    """A token that stands for a value: Drain's wildcard or a whole mask placeholder."""
    return token == WILDCARD or token in _MASK_TOKENS


def variable_runs_shape(tokens: Sequence[str]) -> tuple[str, ...]:
    """Tokens with every placeholder (whole or inside a token) as <*> and each run of variable
    tokens as one: "took <NUM> <NUM> s" and "took <NUM> s" have one shape (a value printed as one
    token or as several)."""
    out: list[str] = []
    for tok in tokens:
        tok = MASK_TOKEN.sub(WILDCARD, tok)
        if tok == WILDCARD and out and out[-1] == WILDCARD:
            continue
        out.append(tok)
    return tuple(out)


class LogmlDrain(Drain):
    """Drain3's Drain with generic fixes of its prefix tree and similarity, each a setting
    (bench/loghub.py chooses them leave-one-system-out):

    - route_masked: a token that mixes a mask placeholder with other text ("www.host.com:<NUM>",
      "[<NUM>]", "node-<NUM>") is a parameter for the prefix tree, as a token with digits is in
      Drain. Masking removes the digits Drain relies on, so otherwise every host name before a
      masked port grows its own subtree (Drain3 issue #53, XDrain). A token that is one placeholder
      ("<NUM>") already stands for all its values and keeps its own branch.
    - route_names: so is a token shaped like a name rather than a word: letters joined by an inner
      ".", "@" or "/" ("db.internal.lan", "ann@host", "ns/pod"). A host name first is the case of
      Drain3 issue #53; a verb first ("Accepted", "Failed") stays a constant branch.
    - fallback_search: when the tree path of a message holds no cluster similar enough, every
      cluster of the same length is tried before a new one is made.
    - similarity: "drain3" counts equal tokens, equal placeholders included, over all tokens;
      "constants" counts only the template's constant tokens, over the constants; "logpai" counts
      equal constants over all tokens (LogPAI's Drain, where masked values are <*>). With many masked
      values, "GET <PATH> <NUM> <NUM>" and "POST <PATH> <NUM> <NUM>" are 3/4 alike to Drain3 alone.
    """

    SIMILARITIES = ("drain3", "constants", "logpai")

    def __init__(self, *, route_masked: bool = False, route_names: bool = False, fallback_search: bool = False,
                 similarity: str = "drain3", **kwargs) -> None:
        super().__init__(**kwargs)
        self.route_names = route_names
        if similarity not in self.SIMILARITIES:
            raise ValueError(f"mining.similarity must be one of {self.SIMILARITIES}, not {similarity!r}")
        self.route_masked = route_masked
        self.fallback_search = fallback_search
        self.similarity = similarity
        self.searched: tuple | None = None   # (tokens, root, sim_th, include_params, cluster): an answer to reuse once

    def fast_match(self, cluster_ids, tokens, sim_th, include_params):
        """Drain3's fast_match with its get_seq_distance inlined: the same sums (counted in C), the same
        floats, the same choice among equals. Mining spent most of its time in those two calls, once per
        cluster of a leaf (hundreds in a leaf of a large corpus)."""
        n = len(tokens)
        if self.similarity != "drain3" or n == 0:
            return super().fast_match(cluster_ids, tokens, sim_th, include_params)
        param = self.param_str
        param_in_message = param in tokens
        get = self.id_to_cluster.get
        max_sim, max_params, best = -1, -1, None
        for cluster_id in cluster_ids:
            cluster = get(cluster_id)
            if cluster is None:
                continue
            template = cluster.log_template_tokens
            params = template.count(param)
            same = sum(map(eq, template, tokens))
            if params and param_in_message:   # a "<*>" of the message under a parameter counts as a parameter
                same -= sum(1 for a, b in zip(template, tokens) if a == param and b == param)
            sim = float(same + params if include_params else same) / n
            if sim > max_sim or (sim == max_sim and params > max_params):
                max_sim, max_params, best = sim, params, cluster
        return best if max_sim >= sim_th else None

    def has_numbers(self, token: str) -> bool:  # Drain: "parametrize tokens with digits" in the tree
        if _HAS_DIGIT(token) is not None:
            return True
        if self.route_names and _NAME_LIKE(token) is not None:
            return True
        return self.route_masked and token not in _MASK_TOKENS and MASK_TOKEN.search(token) is not None

    def tree_search(self, root_node, tokens, sim_th, include_params):
        searched, self.searched = self.searched, None
        if searched is not None and searched[:4] == (tokens, root_node, sim_th, include_params):
            return searched[4]   # the search TemplateMiner just made for the same message, the tree unchanged since
        cluster = super().tree_search(root_node, tokens, sim_th, include_params)
        if cluster is None and self.fallback_search and tokens:
            cluster = self.fast_match(self.get_clusters_ids_for_seq_len(len(tokens)), tokens, sim_th,
                                      include_params)
        return cluster

    def get_seq_distance(self, seq1, seq2, include_params):
        if self.similarity == "drain3":
            return super().get_seq_distance(seq1, seq2, include_params)
        constants = similar = params = 0
        for template_token, token in zip(seq1, seq2):
            if is_variable(template_token):
                params += 1
                continue
            constants += 1
            similar += template_token == token
        if include_params:  # match(): every variable matches
            similar += params
            constants += params
        elif self.similarity == "logpai":
            constants += params
        return (similar / constants if constants else 1.0), params


class TemplateMiner:
    """Drain3 with state kept as plain Template rows (see module docstring).

    join_variable_runs: a message that matches no cluster joins the oldest cluster of the same
    variable_runs_shape whatever its length (a parameter printed as one token or as several:
    Drain3 issue #66), instead of making a new one. Decided from the current templates only, so a
    miner rebuilt from its rows decides the same.
    """

    SETTINGS = ("sim_th", "depth", "max_children", "extra_delimiters", "route_masked", "route_names", "fallback_search",
                "similarity", "join_variable_runs")

    def __init__(self, templates: Sequence[Template] = (), sim_th: float = 0.4, depth: int = 4,
                 max_children: int = 100, extra_delimiters: Sequence[str] = ("=", ","),
                 route_masked: bool = False, route_names: bool = False, fallback_search: bool = False,
                 similarity: str = "drain3", join_variable_runs: bool = False, match_only: bool = False) -> None:
        self.drain = LogmlDrain(depth=depth, sim_th=sim_th, max_children=max_children,
                                extra_delimiters=tuple(extra_delimiters), route_masked=route_masked,
                                route_names=route_names,
                                fallback_search=fallback_search, similarity=similarity)
        self.join_variable_runs = join_variable_runs
        self._key_of: dict[int, str] = {}
        self._keys: set[str] = set()   # the values of _key_of
        self._initial: dict[int, str] = {}
        self._by_shape: dict[tuple[str, ...], set[int]] = {}
        self._shape_of: dict[int, tuple[str, ...]] = {}
        # match_only (predict): Drain looks a message up among the templates of its token count only, so
        # each count's part of the tree is built the first time a message of that count is matched, in the
        # same cluster order, hence the same as a whole tree's (building all ~9k cost a cold predict 0.15 s)
        self._unbuilt: dict[int, list[Template]] = {}
        for tpl in sorted(templates, key=lambda t: t.cluster_id):
            self._register(tpl)
            if match_only:
                self._unbuilt.setdefault(len(self.drain.get_content_as_tokens(tpl.initial_template)), []).append(tpl)
            else:
                self._build(tpl)

    @staticmethod
    def settings(params: dict) -> dict:
        """The `mining:` params TemplateMiner takes (also what models/templates.json records)."""
        m = params.get("mining", {})
        out = {k: m[k] for k in TemplateMiner.SETTINGS if k in m}
        if "extra_delimiters" in out:
            out["extra_delimiters"] = list(out["extra_delimiters"])
        return out

    @classmethod
    def from_params(cls, templates: Sequence[Template], params: dict) -> TemplateMiner:
        return cls(templates, **cls.settings(params))

    def _register(self, tpl: Template) -> None:
        """What the miner knows of a template without its place in Drain's tree."""
        self.drain.clusters_counter = max(self.drain.clusters_counter, tpl.cluster_id)
        self._key_of[tpl.cluster_id] = tpl.template_key
        self._keys.add(tpl.template_key)
        self._initial[tpl.cluster_id] = tpl.initial_template
        self._reshape(tpl.cluster_id, tuple(tpl.template.split(" ")) if tpl.template else ())

    def _build(self, tpl: Template) -> None:
        # The tree path is built from the initial tokens, exactly as Drain3 built it when the
        # cluster was created; the cluster then carries its current (generalised) tokens.
        cluster = LogCluster(self.drain.get_content_as_tokens(tpl.initial_template), tpl.cluster_id)
        self.drain.id_to_cluster[tpl.cluster_id] = cluster
        self.drain.add_seq_to_prefix_tree(self.drain.root_node, cluster)
        cluster.log_template_tokens = tuple(tpl.template.split(" ")) if tpl.template else ()

    def _reshape(self, cid: int, tokens: Sequence[str]) -> None:
        """Keep the shape index in step with the cluster's current template."""
        if not self.join_variable_runs:
            return
        shape = variable_runs_shape(tuple(tokens))
        old = self._shape_of.get(cid)
        if old == shape:
            return
        if old is not None:
            self._by_shape[old].discard(cid)
        self._shape_of[cid] = shape
        self._by_shape.setdefault(shape, set()).add(cid)

    def _join_by_shape(self, masked: str) -> int | None:
        drain = self.drain
        tokens = drain.get_content_as_tokens(masked)
        found = drain.tree_search(drain.root_node, tokens, drain.sim_th, False)
        # add_log_message searches again for the same tokens first thing: it gets this answer
        drain.searched = (tokens, drain.root_node, drain.sim_th, False, found)
        if found is not None:
            return None   # Drain places it itself
        same = self._by_shape.get(variable_runs_shape(tokens))
        return min(same) if same else None

    def learn(self, masked_messages: Iterable[str]) -> list[str]:
        """Add messages (callers pass distinct messages in sorted order); return their template keys."""
        if self._unbuilt:
            raise RuntimeError("a match_only miner cannot learn")
        keys = []
        for masked in masked_messages:
            if self.join_variable_runs:
                joined = self._join_by_shape(masked)
                if joined is not None:
                    self.drain.searched = None
                    self.drain.id_to_cluster[joined].size += 1
                    keys.append(self._key_of[joined])
                    continue
            cluster, change = self.drain.add_log_message(masked)
            cid = cluster.cluster_id
            if change == "cluster_created":
                initial = cluster.get_template()
                key = template_key(initial)
                if key in self._keys:  # same initial text reborn after an LRU eviction
                    key = template_key(f"{initial}#{cid}")
                self._key_of[cid] = key
                self._keys.add(key)
                self._initial[cid] = initial
            if change != "none":
                self._reshape(cid, cluster.log_template_tokens)
            keys.append(self._key_of[cid])
        return keys

    def match(self, masked: str) -> str | None:
        """Match-only (predict): never creates or changes a template."""
        if self._unbuilt:
            for tpl in self._unbuilt.pop(len(self.drain.get_content_as_tokens(masked)), ()):
                self._build(tpl)
        cluster = self.drain.match(masked, full_search_strategy="fallback")
        if cluster is None and self.join_variable_runs:
            same = self._by_shape.get(variable_runs_shape(self.drain.get_content_as_tokens(masked)))
            return self._key_of[min(same)] if same else None
        return self._key_of.get(cluster.cluster_id) if cluster else None

    def templates(self) -> list[Template]:
        if self._unbuilt:
            raise RuntimeError("a match_only miner holds templates it has not built")
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
        try:
            future = self.pool.submit(mask_all, messages)
        except RuntimeError:  # BrokenProcessPool: a helper died (an unguarded __main__): mask inline from now on
            self.min_batch = 1 << 62
            return dict

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
