"""`logml parse`: mine any log with a Loghub-style header format into the Loghub structured CSV.

    logml parse FILE --format '<Date> <Time> <Level> <Component>: <Content>' --out structured.csv

The header format is turned into a regex the standard Loghub way (`<Field>` -> a non-greedy named
group, each run of spaces -> `\\s+`, everything else is a regex fragment, e.g. `\\[<Pid>\\]` or
`(\\[<PID>\\])?`). `Content` is mined with the product path: mask (pipeline.mining.mask) -> dedupe ->
TemplateMiner over the distinct masked contents in sorted order -> every line gets its content's
(final) template. Lines that do not match the format are kept, with Content = the whole line.

Output columns: LineId, the header fields, Content, EventId, EventTemplate. Generic post-processing
(the same for every log; none of it changes what the product stores):
- a cluster whose template a more general cluster of the same length covers joins that cluster;
- the template is written back over the content's own text (delimiters such as "=" and "," kept),
  with `<*>` for every variable: Drain wildcards and mask tokens (`<NUM>`, `<IP>` ...) alike;
- it is then corrected with the published rules behind the corrected Loghub ground truth
  (correct_template; `correct=False` skips this);
- EventId = md5 of the final template (as LogPAI's Drain), so clusters whose templates end up
  identical are one event.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from pipeline.mining import DEFAULT_MASKS, WILDCARD, MaskCache, TemplateMiner
from pipeline.mining import MASK_TOKEN as _MASK_TOKEN

_RUNS_OF_WILDCARDS = re.compile(r"(?:<\*>){2,}")


def format_regex(log_format: str) -> tuple[re.Pattern[str], list[str]]:
    """Loghub's generate_logformat_regex: `<Field>` -> (?P<Field>.*?), spaces -> \\s+, anchored."""
    headers: list[str] = []
    regex = ""
    for k, part in enumerate(re.split(r"(<[^<>]+>)", log_format)):
        if k % 2 == 0:
            regex += re.sub(" +", r"\\s+", part)
        else:
            header = part.strip("<>")
            regex += f"(?P<{header}>.*?)"
            headers.append(header)
    if "Content" not in headers:
        raise ValueError(f"log format has no <Content> field: {log_format!r}")
    return re.compile("^" + regex + "$"), headers


def read_lines(path: str | Path) -> list[str]:
    """Physical lines (universal newlines: LF, CRLF, CR), stripped; undecodable bytes replaced."""
    with open(path, encoding="utf-8", errors="replace", newline=None) as fh:
        return [line.strip() for line in fh]


def split_headers(lines: Sequence[str], log_format: str) -> tuple[pd.DataFrame, int]:
    """Header fields + Content per line; non-matching lines keep Content = the whole line."""
    regex, headers = format_regex(log_format)
    rows = []
    unmatched = 0
    for line in lines:
        m = regex.match(line)
        if m is None:
            unmatched += 1
            row = dict.fromkeys(headers, "")
            row["Content"] = line
        else:
            row = {h: (m.group(h) or "") for h in headers}
        rows.append(row)
    frame = pd.DataFrame(rows, columns=headers)
    frame.insert(0, "LineId", range(1, len(frame) + 1))
    return frame, unmatched


def _token_spans(text: str, delimiters: Iterable[str]) -> list[tuple[int, int]]:
    """Character spans of Drain's tokens (Drain: strip, each delimiter -> " ", split())."""
    blanked = text
    for d in delimiters:
        if d:
            blanked = blanked.replace(d, " " * len(d))  # same length: offsets stay valid
    return [m.span() for m in re.finditer(r"\S+", blanked)]


def render_template(template: str, masked: str, delimiters: Iterable[str]) -> str:
    """Write a Drain template back over one masked message: wildcard tokens -> <*>, masks -> <*>.

    Drain splits on the extra delimiters, so its template has lost them ("lock=<*>, flags=<*>"
    would read "lock <*> flags <*>"); rendering over the message keeps the message's own text.
    """
    tokens = template.split()
    spans = _token_spans(masked, delimiters)
    if len(spans) == len(tokens):
        out, last = [], 0
        for tok, (start, end) in zip(tokens, spans):
            out.append(masked[last:start])
            out.append(WILDCARD if tok == WILDCARD else masked[start:end])
            last = end
        out.append(masked[last:])
        text = "".join(out)
    else:  # cannot happen for a message of this cluster; be safe anyway
        text = template
    text = _MASK_TOKEN.sub(WILDCARD, text)
    text = _RUNS_OF_WILDCARDS.sub(WILDCARD, text)
    return " ".join(text.split())


# Template correction rules of Khan et al., "Guidelines for Assessing the Accuracy of Log Message
# Template Identification Techniques" (ICSE 2022) -- the rules behind the corrected Loghub ground
# truth, as implemented by LogPAI (logparser / Loghub-2.0 `correct_single_template`): DS double
# spaces, PS path-like strings, BL booleans, US default user strings, DG digit-only tokens, WV word
# concatenated with a variable, DV dot-separated variables, CV consecutive variables.
_BOOL_AND_USER = {"true", "false", "null", "root"}
_PATH_DELIMS = r"(\s|,|!|;|:|=|\||\"|'|\[|\]|\(|\)|\{|\})"
_TOKEN_DELIMS = r"(\s|,|!|;|:|=|\||\"|'|\[|\]|\(|\)|\{|\}|\.|-|\+|@|#|\$|%|&)"
_PATH_LIKE = re.compile(r"^(/[^/]+)+$")
_DIGITS_ONLY = re.compile(r"^\d+$")
_WORD_WITH_VAR = re.compile(r"^[^\s/]*<\*>[^\s/]*$")
_JOINED_VARS = ("<*>.<*>", "<*><*>", "#<*>#", "<*>:<*>", "<*>#<*>", "<*>/<*>", "<*>@<*>")


def correct_template(template: str) -> str:
    """Apply the DS, PS, BL, US, DG, WV, DV and CV rules to one template (see above)."""
    template = re.sub(r"\s+", " ", template.strip())                                        # DS
    template = "".join(WILDCARD if _PATH_LIKE.match(t) else t for t in re.split(_PATH_DELIMS, template))  # PS
    tokens = []
    for tok in re.split(_TOKEN_DELIMS, template):
        if tok.lower() in _BOOL_AND_USER or _DIGITS_ONLY.match(tok):                          # BL, US, DG
            tok = WILDCARD
        elif tok != "<*>/<*>" and _WORD_WITH_VAR.match(tok):                                  # WV
            tok = WILDCARD
        tokens.append(tok)
    template = "".join(tokens)
    changed = True
    while changed:                                                                            # DV, CV
        before = template
        for joined in _JOINED_VARS:
            while joined in template:
                template = template.replace(joined, WILDCARD)
        while " #<*> " in template:
            template = template.replace(" #<*> ", " <*> ")
        changed = template != before
    return template


def _merge_subsumed(final: dict[str, str]) -> dict[str, str]:
    """Template key -> the key it is merged into (itself unless a more general template covers it).

    A covers B when they have as many tokens and every token of A is <*> or equals B's (mask tokens
    count as <*>): every message of B would match A. Drain leaves such pairs when the specific
    cluster was created before the general one had generalised. The most general cover wins.
    With C(T) = {(position, token)} of T's non-wildcard tokens, A covers B iff C(A) < C(B); an index
    on one constant of each template keeps this near-linear.
    """
    norm = {k: tuple(_MASK_TOKEN.sub(WILDCARD, tok) for tok in t.split()) for k, t in final.items()}
    consts = {k: frozenset((i, t) for i, t in enumerate(toks) if t != WILDCARD) for k, toks in norm.items()}
    # most general first (most wildcards, then key): a cover is always registered before what it covers
    order = sorted(final, key=lambda k: (len(norm[k]), len(consts[k]), k))
    rank = {k: i for i, k in enumerate(order)}
    index: dict[tuple, list[str]] = defaultdict(list)   # (length, one constant or None) -> keys
    root: dict[str, str] = {}
    for b in order:
        n, cb = len(norm[b]), consts[b]
        best = None
        for probe in [None, *cb]:
            for a in index.get((n, probe), ()):
                if consts[a] < cb and (best is None or rank[a] < rank[best]):
                    best = a
        root[b] = b if best is None else root[best]
        index[(n, min(cb) if cb else None)].append(b)
    return root


def event_id(template: str) -> str:
    return hashlib.md5(template.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def mine_contents(contents: Sequence[str], params: dict | None = None,
                  correct: bool = True, masks: tuple = DEFAULT_MASKS) -> tuple[list[str], list[str]]:
    """Product mining path over contents; returns (EventId, EventTemplate) per content.

    correct: apply correct_template to every rendered template (the event is then the corrected
    template, so clusters that differ only by, e.g., a boolean or a digit-only token are one event).
    masks: mining.compile_masks(...) (the product's masks; bench/loghub.py tries subsets).
    """
    if params is None:
        from pipeline.config import load_params
        params = load_params()
    keys, masked_of = MaskCache(masks=masks).lookup(contents)
    # Distinct masked messages in a deterministic order (as ingest: ORDER BY masked, message_key).
    distinct = sorted(masked_of.items(), key=lambda kv: (kv[1], kv[0]))
    miner = TemplateMiner.from_params([], params)
    tkeys = miner.learn(masked for _, masked in distinct)
    final = {t.template_key: t.template for t in miner.templates()}
    delimiters = list(params.get("mining", {}).get("extra_delimiters", ("=", ",")))

    root = _merge_subsumed(final)
    tkeys = [root[k] for k in tkeys]
    line_count = Counter(keys)
    votes: dict[str, Counter] = defaultdict(Counter)  # template key -> rendered text -> lines
    for (mkey, masked), tkey in zip(distinct, tkeys):
        text = render_template(final[tkey], masked, delimiters)
        if correct:
            text = correct_template(text)
        votes[tkey][text] += line_count[mkey]
    # One EventTemplate per cluster: the rendering most of its lines share (ties: smallest text).
    cluster_text = {tkey: min(v.items(), key=lambda kv: (-kv[1], kv[0]))[0] for tkey, v in votes.items()}
    template_of_msg = {mkey: cluster_text[tkey] for (mkey, _), tkey in zip(distinct, tkeys)}
    templates = [template_of_msg[k] for k in keys]
    ids_of = {t: event_id(t) for t in set(templates)}
    return [ids_of[t] for t in templates], templates


def parse_lines(lines: Sequence[str], log_format: str, params: dict | None = None,
                correct: bool = True, masks: tuple = DEFAULT_MASKS) -> tuple[pd.DataFrame, int]:
    frame, unmatched = split_headers(lines, log_format)
    event_ids, templates = mine_contents(frame["Content"].tolist(), params, correct, masks)
    frame["EventId"] = event_ids
    frame["EventTemplate"] = templates
    return frame, unmatched


def parse_file(path: str | Path, log_format: str, out_csv: str | Path | None,
               params: dict | None = None, correct: bool = True) -> pd.DataFrame:
    """Structured DataFrame (LineId, header fields, Content, EventId, EventTemplate); CSV written when out_csv.

    `frame.attrs["unmatched"]` counts the lines that did not match the header format.
    """
    frame, unmatched = parse_lines(read_lines(path), log_format, params, correct)
    frame.attrs["unmatched"] = unmatched
    if out_csv is not None:
        out = Path(out_csv)
        out.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(out, index=False)
    return frame


def parse_command(file: str | Path, fmt: str, out: str | Path) -> dict:
    """What `logml parse FILE --format FMT --out CSV` runs; returns a one-line summary."""
    frame = parse_file(file, fmt, out)
    return {
        "file": str(file),
        "out": str(out),
        "lines": int(len(frame)),
        "unmatched": int(frame.attrs.get("unmatched", 0)),
        "events": int(frame["EventId"].nunique()),
    }
