"""Diagnose runs: rules + the exported classifier + the frozen template set -> verdict JSON.

Serves `logml predict` (one file, cold process: no scikit-learn, no mlflow) and the nightly
classification of every new run (the same code, so both agree).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline.combine import Combiner
from pipeline.features import ERRORISH, RELEVANT, exit_code, run_features
from pipeline.lean import LeanModel
from pipeline.mining import Template, TemplateMiner, mask
from pipeline.paste import Unpaster
from pipeline.rules import RuleSet, RuleVerdict, describe_meta, load_rules, run_failed
from pipeline.taxonomy import UNKNOWN, load_taxonomy

MODES = ("rules_only", "model_only", "combined")
CONFIDENT = 0.8             # the confidence at and above which verdicts must be >= 97% right (#11)
EVIDENCE_CANDIDATES = 200   # lines scored for a model-decided verdict's evidence
META_EVIDENCE = 1.0         # the exit-code / OOMKilled tokens' pull above which they are cited
MIN_LINE_PULL = 0.1         # a line's own pull towards the verdict below which it is not cited ...
RELATIVE_LINE_PULL = 0.25   # ... nor below this share of the strongest line's


# a job's setting as it prints them ("elastic_timeout: 30", "gloo_port=6767"), and the source line
# Python echoes under a warning ("  warnings.warn(msg)"): they say nothing of the cause
# (a C++ class's member dump is a setting too: "ProcessGroupNCCL pg_timeout_ 1800000")
_SETTING_OR_ECHO = re.compile(r"^\s*(?:[\w.-]+\s*[:=]\s*[\w./:+-]*|(?:[\w.:]+\s+)?[a-z]\w*_\s+[\w./:+-]+|"
                              r"warnings\.warn\(.*)\s*$")


# a metric whose name holds a failure word, with its value ("loss_error: 0.02", "error_rate=0.1")
_FAILURE_METRIC = re.compile(r"(?<![\w.])(?:[a-z]+_[a-z_]*(?:error|err|fail\w*)|(?:error|err|fail\w*)_[a-z_]+)"
                             r"\s*[:=]\s*-?\d[\d.eE+-]*%?")


def _line_in_block(block: str, sentence: str) -> int:
    """Where ``sentence`` is in a multi-line event (0: its first line, or not found). The last
    occurrence: a traceback's message is its final exception, which its context may quote."""
    want = sentence.strip()
    lines = [line.strip() for line in block.split("\n")]
    for k in range(len(lines) - 1, -1, -1):
        if want and lines[k] == want:
            return k
    # an Error Message Summary's message joins its error name with the sentence after it
    for k in range(len(lines) - 1, -1, -1):
        if len(lines[k]) >= 6 and want.startswith(lines[k]):
            return k
    return 0


# failure words (not RELEVANT's environment nouns: "device: 0, cuDNN Version: 8.6." says nothing failed)
_FAILURE_WORDS = re.compile(ERRORISH.pattern + r"|out of memory|no attribute|no module|mismatch|incompatible|"
                            r"not registered|errno|exit code|\bsig[a-z]{2,4}\b|bus error")


def _speaks_of_failure(events) -> bool:
    """Any event an error could be in: an error level, a traceback, failure words (not a setting's)."""
    levels, kinds = events["level"], events["kind"]
    return any(level in ("ERROR", "FATAL") or kind != "line" or (_FAILURE_WORDS.search(message or "")
                                                                   and not _not_evidence(message or ""))
               for level, kind, message in zip(levels, kinds, events["message"]))


# an exception's name and nothing else ("MemoryError:"): Paddle prints it above the message that says what
_BARE_EXCEPTION = re.compile(r"^\s*[\w.]*(?:Error|Exception|Warning)\s*:?\s*$")


def _not_evidence(text: str) -> bool:
    """A line that cannot support a cause whatever the model's weights: a setting, a warning's
    source echo, an exception's bare name, a separator around a word or two ("----- ERROR LOG DETAIL -----"),
    or a progress line whose only failure words are metric names ("epoch: 0, loss: 2.28, loss_error: 0.02")."""
    if _SETTING_OR_ECHO.match(text) or _BARE_EXCEPTION.match(text):
        return True
    if _FAILURE_METRIC.search(text) and not RELEVANT.search(_FAILURE_METRIC.sub("", text)):
        return True
    alnum = sum(ch.isalnum() for ch in text)
    return alnum < 0.5 * len(text.strip()) and len(text.split()) <= 8


@dataclass
class Verdict:
    category: str
    confidence: float
    source: str                       # rule | model | hybrid
    rule_id: str | None = None
    model_category: str | None = None
    model_confidence: float | None = None
    alternatives: list[dict] = field(default_factory=list)
    evidence_lines: list[int] = field(default_factory=list)   # failure-relevant lines, log order
    rule_evidence: list[dict] = field(default_factory=list)   # the deciding rule's matches
    focus_lines: list[int] = field(default_factory=list)      # the run's last error
    expert: str = "rules"             # which model's probabilities decided: rules (with rule tokens) | text
    # (remedy, event index) of a fault outside the taxonomy a line states (rules.yaml remedies `decides`),
    # set by Predictor.explain
    fault: tuple | None = None
    # why an `unknown` is unknown: learned (the classifier's own class) | below_floor | foreign (no sign of an
    # ML job) | failed_but_reads_healthy | no_evidence (a failure guess no line supports) | nothing_to_read |
    # fault (a fault outside the taxonomy)
    reason: str | None = None


def ranked(classes: list[str], proba) -> list[tuple[str, float]]:
    order = sorted(range(len(classes)), key=lambda i: -float(proba[i]))
    return [(classes[i], float(proba[i])) for i in order]


def combine(verdict: RuleVerdict | None, classes: list[str] | None, proba, mode: str = "combined",
            combiner: Combiner | None = None, failed: bool = True, rule_confidence: float = 0.9,
            foreign: bool = False, proba_text=None, known_failed: bool = False, ended_well: bool = False,
            exited_clean: bool = False) -> Verdict:
    """One decision from the rule verdict and the model's probabilities.

    rules_only: the winning rule, else ``no_failure`` for a run that did not fail and ``unknown``
                for one that did.
    model_only: the model's top class (its raw probability as the confidence).
    combined:   the calibrated ``Combiner`` over both; where no rule fired, the text expert's
                probabilities (``proba_text``, the model without rule tokens) decide. Below the floor
                the verdict is ``unknown``, and so is the model's verdict on a ``foreign`` log (no sign
                of an ML job and no rule fired, RunFeatures.foreign): the model only knows ML jobs,
                its guess there means nothing; only ``no_failure`` of a run that said it ``ended_well``
                (its exit status, its last lines) stands. A run ``known_failed`` (a non-zero exit, OOMKilled) is
                never called healthy: where ``no_failure`` wins, the verdict is ``unknown``. A run that
                ``exited_clean`` (exit status 0: it went on from whatever error it printed), or whose
                last lines say it ``ended_well`` after its last error (a caught OOM retried, a batch
                finished with "0 failed"), with no rule against it did not fail: the model's
                probabilities are conditioned on that (the environment causes and code_error taken out).
    """
    rule_cat = verdict.category if verdict else None
    rule_id = verdict.rule_id if verdict else None
    if mode == "rules_only" or classes is None:
        top = [(rule_cat, rule_confidence)] if rule_cat else []
        base = dict(rule_id=rule_id, model_category=None, model_confidence=None,
                    alternatives=[{"category": c, "confidence": p} for c, p in top])
        if rule_cat:
            return Verdict(rule_cat, rule_confidence, "rule", **base)
        return Verdict(UNKNOWN if failed else "no_failure", 0.5, "rule", **base)
    model_top = ranked(classes, proba)
    model_cat, model_conf = model_top[0]
    if mode == "model_only":
        alts = [{"category": c, "confidence": round(p, 4)} for c, p in model_top[:4]]
        return Verdict(model_cat, model_conf, "model", rule_id, model_cat, model_conf, alts)
    if mode != "combined":
        raise ValueError(f"unknown mode {mode!r}")
    combiner = combiner or Combiner(list(classes))
    if combiner.uses_text(rule_cat, proba_text):
        model_cat, model_conf = ranked(classes, proba_text)[0]
    combined = combiner.proba(proba, rule_cat, verdict.priority if verdict else None, proba_text)
    if (exited_clean or ended_well) and rule_cat is None:
        tax = load_taxonomy()
        kept = [0.0 if c != UNKNOWN and (tax.is_environment(c) or c == "code_error") else float(p)
                for c, p in zip(classes, combined)]
        total = sum(kept)
        if total > 0:
            combined = [p / total for p in kept]
    final = ranked(classes, combined)
    cat, conf = final[0]
    alts = [{"category": c, "confidence": round(p, 4)} for c, p in final[:4]]
    source = "hybrid" if rule_cat == cat == model_cat else ("rule" if rule_cat == cat else "model")
    if known_failed and cat == "no_failure":
        # the container said it failed; a log that reads healthy does not overrule that
        alts = [a for a in alts if a["category"] not in (UNKNOWN, "no_failure")][:3]
        return Verdict(UNKNOWN, alts[0]["confidence"] if alts else 0.0, source, None, model_cat, model_conf, alts,
                       reason="failed_but_reads_healthy")
    if conf < combiner.floor or cat == UNKNOWN or (foreign and not (cat == "no_failure" and ended_well)):
        # open set: unsure is `unknown`, never a default class; the alternatives say what it may be
        alts = [a for a in alts if a["category"] != UNKNOWN][:3]
        # learned: the classifier's own verdict (the run reads like the failures labeled unknown), its number
        # the confidence in that; else the number is the closest known cause's
        reason = "learned" if cat == UNKNOWN else \
            "foreign" if foreign and conf >= combiner.floor else "below_floor"
        return Verdict(UNKNOWN, conf, source, rule_id if rule_cat == cat else None, model_cat, model_conf, alts,
                       reason=reason)
    return Verdict(cat, conf, source, rule_id if rule_cat == cat else None, model_cat, model_conf, alts)


class Predictor:
    """Everything `predict` needs, loaded once from a models folder."""

    def __init__(self, models_dir: str | Path, rules: RuleSet | None = None):
        self.models_dir = Path(models_dir)
        self.model = LeanModel.load(self.models_dir)
        meta = self.model.meta
        self.combiner = Combiner.from_dict(self.model.classes, meta.get("combiner"))
        self.model_version = meta.get("model_version", "unversioned")
        self.rules = rules or load_rules()   # the cached packaged rules: the features read their vars too
        rows = json.loads((self.models_dir / "templates.json").read_text())
        self.miner = TemplateMiner([Template(**row) for row in rows["templates"]], **rows.get("settings", {}),
                                   match_only=True)
        # template -> the categories it may be cited for (pipeline.model.healthy_templates)
        self.healthy: dict[str, set[str]] = {k: set(v) for k, v in (rows.get("healthy") or {}).items()}
        self.taxonomy = load_taxonomy()

    def diagnose(self, events, meta: dict | None = None) -> Verdict:
        rule_verdict = self.rules.match(events, meta) if len(events) or meta else None
        if not len(events) and rule_verdict is None and exit_code(meta) is None:
            # nothing to read and no exit status (an empty file, a binary one): the model's guess on no
            # text is its prior, not a verdict (a silent container that exited 0 is still healthy)
            return Verdict(UNKNOWN, 0.0, "model", reason="nothing_to_read")
        feats = run_features(events, meta, rule_verdict.tokens() if rule_verdict else ())
        record = feats.record()
        proba = self.model.predict_proba(record)
        # no rule fired: the text expert decides (pipeline.combine)
        text = rule_verdict is None and self.model.has_text_expert and self.combiner.alpha_text is not None
        proba_text = self.model.predict_proba(record, expert="text") if text else None
        verdict = combine(rule_verdict, self.model.classes, proba, "combined", self.combiner,
                          failed=run_failed(events, meta), foreign=feats.foreign and rule_verdict is None,
                          proba_text=proba_text, known_failed=feats.known_failed, ended_well=feats.ended_well,
                          exited_clean=feats.exited_clean)
        verdict.expert = "text" if text else "rules"
        verdict.evidence_lines = feats.evidence_lines
        verdict.focus_lines = feats.focus_lines
        if rule_verdict is not None and verdict.rule_id == rule_verdict.rule_id:
            verdict.rule_evidence = rule_verdict.evidence
        elif meta and verdict.category not in (UNKNOWN, "no_failure") and \
                self.model.line_scores([feats.meta], verdict.category, columns=("meta",),
                                       expert=verdict.expert)[0] > META_EVIDENCE:
            # the exit status or OOMKilled flag is what the model went by: say so
            verdict.rule_evidence = [{"line": None, "text": f"container metadata: {describe_meta(meta)}", "rule": None}]
        return verdict

    def explain(self, events, verdict: Verdict) -> tuple[Verdict, list[dict]]:
        """The verdict and its evidence. A failure verdict with nothing to show for it (not one line
        that speaks of a failure, no container metadata: an endpoints list, a healthy run's progress
        lines) is a guess, not a verdict: ``unknown``, with that guess first among the alternatives."""
        decided = self.rules.deciding_line(events["message"]) \
            if len(events) and verdict.category != "no_failure" else None
        if decided is not None and verdict.category != UNKNOWN and decided[0].overrides \
                and verdict.category not in decided[0].overrides \
                and list(events["line_no"])[decided[1]] not in verdict.focus_lines[-2:]:
            # beyond its consequences, a fault decides only where the run's last error is its own line
            # (CUDA error 214 read as an old driver's error)
            decided = None
        if decided is not None and verdict.category != UNKNOWN:
            # a fault outside the taxonomy (the GPU failed): the errors after it are its consequences
            guess = [{"category": verdict.category, "confidence": round(float(verdict.confidence), 4)}]
            others = [a for a in verdict.alternatives if a["category"] not in (verdict.category, UNKNOWN)]
            verdict = replace(verdict, category=UNKNOWN, rule_id=None, alternatives=(guess + others)[:3])
        if decided is not None:
            verdict = replace(verdict, fault=decided, reason="fault")
        lines = self.evidence(events, verdict)
        if lines or verdict.category in (UNKNOWN, "no_failure") or _speaks_of_failure(events):
            return verdict, lines
        guess = [{"category": verdict.category, "confidence": round(float(verdict.confidence), 4)}]
        others = [a for a in verdict.alternatives if a["category"] not in (verdict.category, UNKNOWN)]
        unsure = replace(verdict, category=UNKNOWN, rule_id=None, alternatives=(guess + others)[:3], reason="no_evidence")
        return unsure, self.evidence(events, unsure)

    def evidence(self, events, verdict: Verdict, limit: int = 5) -> list[dict]:
        """The lines that support the verdict, with their template ids: the deciding rule's matches
        (or the container metadata it read), then, for a verdict the model decided or backed, the
        failure-relevant lines that push the model hardest towards that category. Never filler:
        a line that argues for another cause is not evidence, nor is a warning or banner that
        healthy runs print as often (``healthy``, learned from the labeled runs at training)."""
        chosen: list[tuple[int | None, str]] = [(e["line"], e["text"]) for e in verdict.rule_evidence]
        if len(chosen) < limit and verdict.category not in (UNKNOWN, "no_failure") and len(events):
            line_nos = list(events["line_no"])
            messages = list(events["message"])
            pos = {ln: i for i, ln in enumerate(line_nos)}
            cand = [pos[ln] for ln in dict.fromkeys([*verdict.focus_lines, *reversed(verdict.evidence_lines)])
                    if ln in pos][:EVIDENCE_CANDIDATES]
            # a line can support a cause only if it speaks of a failure (an error event, or failure
            # words): a config printout, a progress line or a banner that the model happens to weigh
            # is not evidence
            levels, kinds = list(events["level"]), list(events["kind"])
            # after the container metadata (exit 137, OOMKilled) only an error can add to it: a
            # warning the model happens to weigh ("No ccache found") is not why the kernel killed the job
            by_meta = any(line is None for line, _ in chosen)
            # a line its program printed at INFO (NCCL's "Init COMPLETE", "NET/IB : Using mlx5_0") says what
            # went right unless it says otherwise in so many words
            cand = [i for i in cand if (kinds[i] != "line" or levels[i] in ("ERROR", "FATAL")
                                        or (not by_meta and RELEVANT.search(messages[i] or "")
                                            and (levels[i] not in ("INFO", "DEBUG") or ERRORISH.search(messages[i] or ""))
                                            and not self._routine(messages[i] or "", verdict.category)))
                    and not _not_evidence(messages[i] or "")]
            # a traceback's block event carries its exception line as its message: the same sentence
            # twice is one piece of evidence
            said = {text.strip() for _, text in chosen}
            cand = [i for i in cand if (messages[i] or "").strip() not in said]
            texts = [messages[i] or "" for i in cand]
            scores = self.model.line_scores(texts, verdict.category, expert=verdict.expert)
            floor = max(MIN_LINE_PULL, RELATIVE_LINE_PULL * float(scores.max())) if len(cand) else 0.0
            taken = {c[0] for c in chosen}
            for j in sorted(range(len(cand)), key=lambda j: -scores[j]):
                if scores[j] < floor or len(chosen) >= limit:
                    break
                ln, sentence = line_nos[cand[j]], texts[j].strip()
                if ln not in taken and sentence and sentence not in said:
                    chosen.append((ln, texts[j]))
                    taken.add(ln)
                    said.add(sentence)
        elif len(chosen) < limit and verdict.category == UNKNOWN and verdict.focus_lines:
            # unsure: show the error the run died of, so a person can triage it (a healthy run's last
            # progress lines are no error)
            line_nos = list(events["line_no"])
            messages = list(events["message"])
            levels, kinds = list(events["level"]), list(events["kind"])
            pos = {ln: i for i, ln in enumerate(line_nos)}
            for ln in verdict.focus_lines[-2:]:
                i = pos.get(ln)
                if i is not None and ln not in {c[0] for c in chosen} and _speaks_of_failure(
                        {"level": [levels[i]], "kind": [kinds[i]], "message": [messages[i]]}):
                    chosen.append((ln, messages[i]))
        out = []
        file_lines = getattr(events, "file_lines", None) or {}
        blocks = {ln: b for ln, b in zip(events["line_no"], events["text"]) if b} if len(events) else {}
        for line, text in chosen[:limit]:
            first = text.splitlines()[0] if text else ""
            if line in blocks:   # a block is numbered by its first line: cite the line that says it
                line += _line_in_block(blocks[line], first)
            line = file_lines.get(line, line)
            if len(chosen) > 1 and _BARE_EXCEPTION.match(first):   # "MemoryError:" above the message that says what
                continue
            if any(o["text"].strip() == text.strip() for o in out):   # a summary repeating the exception line
                continue
            same = [o for o in out if line is not None and o["line"] == line]
            if same:   # two matches on one line ("ResourceExhaustedError:" and its message): the fuller one
                if len(text) > len(same[0]["text"]):
                    same[0].update(text=text[:2000], template_id=self.miner.match(mask(first)))
                continue
            out.append({"line": line, "text": text[:2000], "template_id": self.miner.match(mask(first))})
        return out

    def _routine(self, message: str, category: str) -> bool:
        """A line healthy runs print as often as runs of ``category`` do: not evidence of it."""
        if not self.healthy:
            return False
        key = self.miner.match(mask(message.splitlines()[0] if message else ""))
        return key in self.healthy and category not in self.healthy[key]

    def remedy(self, events, verdict: Verdict, lines: list[dict]) -> tuple[str, str | None]:
        """(remedy, its id in rules.yaml's ``remedies``, None for the category's own). The evidence
        lines choose a narrower remedy; for ``unknown``, whose evidence is only the last error, any
        line of the log may (a GPU's Xid in the kernel log, an ECC error before the crash), and that
        line joins ``lines``."""
        # the log's lines as the rules read them: a traceback's frames are in its block's text
        messages = [t or m for t, m in zip(events["text"], events["message"])] if len(events) else []
        found = self.rules.remedy_for(verdict.category, [e["text"] for e in lines], messages)
        said = None
        if verdict.category == UNKNOWN:
            said = verdict.fault or (self.rules.first_said(messages, UNKNOWN) if found is None else None)
        if found is None and said is not None:
            found, i = said
            line_no, message = list(events["line_no"])[i], list(events["message"])[i] or messages[i]
            if len(lines) < 5 and all(e["text"] != message for e in lines):   # the line that names the fault
                lines.insert(0, {"line": (getattr(events, "file_lines", None) or {}).get(line_no, line_no),
                              "text": message[:2000], "template_id": self.miner.match(mask(message.splitlines()[0]))})
        if found is None:
            return self.taxonomy.remedy(verdict.category), None
        return found.remedy, found.id

    def to_json(self, path: str, events, verdict: Verdict) -> dict:
        verdict, lines = self.explain(events, verdict)
        remedy, remedy_id = self.remedy(events, verdict, lines)
        return {
            "path": path, "category": verdict.category, "confidence": round(float(verdict.confidence), 4),
            "source": verdict.source, "alternatives": verdict.alternatives,
            "evidence": lines, "remedy": remedy, "remedy_id": remedy_id,
            "model_version": self.model_version, "rule_id": verdict.rule_id,
            "reason": verdict.reason if verdict.category == UNKNOWN else None,
        }


# ----------------------------------------------------------------------------- reading one log


def read_log_events(path: str, rules: RuleSet | None = None, keep_all: int = 200_000, keep_relevant: int = 50_000,
                    skim_bytes: int = 8 << 20, skim_window: int = 16):
    """Events of one log given by hand (plain, docker-json, CRI, .gz; format sniffed), as plain
    columns: no pandas on this path, it would double `logml predict`'s start-up.

    A log bigger than `skim_bytes` is skimmed: one RE2 pass over its raw lines finds the lines a
    rule or the features could use, and only those, `skim_window` lines around them and the last
    lines of each chunk are normalized (most of a big log is progress output that cannot change
    the verdict). Memory stays bounded whatever the log's size: past `keep_all` events only the
    events that can matter are kept (the newest `keep_relevant` of them) plus the tail."""
    from collections import deque

    from pipeline import sources
    from pipeline.features import TAIL_EVENTS
    from pipeline.normalize import Events, Normalizer
    from pipeline.textops import re2_search_any
    logfile = sources.logfile_for_path(path)
    normalizer = Normalizer()
    rows: list[tuple] = []
    relevant: deque = deque(maxlen=keep_relevant)
    tail: deque = deque(maxlen=TAIL_EVENTS)
    problems = []
    prefilter = tuple(p for p in (RELEVANT.pattern, *(rules.prefilter if rules else ())) if p)

    def keep(events: list[tuple]) -> None:
        if len(rows) + len(events) <= keep_all and not relevant:
            rows.extend(events)
            return
        if not relevant:  # first overflow: from now on keep only what can matter
            relevant.extend(r for r in rows if _matters(r, None))
            rows.clear()
        texts = [r[9] or r[8] for r in events]
        hits = re2_search_any(texts, prefilter, ignore_case=True)
        for r, hit in zip(events, hits):
            if _matters(r, hit):
                relevant.append(r)
            tail.append(r)

    import os
    size = os.path.getsize(path)
    skim = size * (5 if logfile.compressed else 1) > skim_bytes  # gzip: ~5x smaller than the log
    unpaster = Unpaster() if logfile.fmt == "plain" and not skim else None   # a big log is no paste
    for chunk in sources.read_chunks(logfile):
        problems.extend(chunk.problems)
        if unpaster:
            chunk = unpaster.feed(chunk)
        if not skim:
            events, _ = normalizer.feed_rows(chunk)
            keep(events)
            continue
        for segment in _skim(chunk, prefilter, skim_window, TAIL_EVENTS):
            seg_normalizer = Normalizer()  # blocks never span a skipped stretch
            events, _ = seg_normalizer.feed_rows(segment)
            keep(events + seg_normalizer.flush_rows())
    keep(normalizer.flush_rows())
    if any(p.reason == "binary" for p in problems):
        # no text to read (a core dump, an archive named .log): nothing_to_read, as the nightly says of it
        return Events.from_rows([]), problems
    fatal = [p for p in problems if p.reason == "unreadable"]
    if fatal:
        raise OSError(f"{fatal[0].reason}: {fatal[0].detail or path}")
    if relevant:
        merged = {r[2]: r for r in list(relevant) + list(tail)}  # r[2]: the event's first line
        rows = [merged[k] for k in sorted(merged)]
    events = Events.from_rows(rows)
    # an export's lines are numbered in printed order: the evidence maps them back to the file's
    events.file_lines = unpaster.export.file_lines if unpaster and unpaster.export else None
    return events, problems


def _skim(chunk, prefilter: tuple[str, ...], window: int, tail: int):
    """Runs of consecutive lines worth normalizing: around prefilter hits, and the chunk's tail."""
    from pipeline.normalize import LineChunk
    from pipeline.textops import re2_search_any
    n = len(chunk.lines)
    wanted = bytearray(n)
    for i, hit in enumerate(re2_search_any(chunk.lines, prefilter, ignore_case=True)):
        if hit:
            wanted[max(0, i - window):i + window + 1] = b"\x01" * (min(n, i + window + 1) - max(0, i - window))
    wanted[max(0, n - tail):] = b"\x01" * (n - max(0, n - tail))
    start = None
    for i in range(n + 1):
        if i < n and wanted[i]:
            if start is None:
                start = i
        elif start is not None:
            yield LineChunk(chunk.lines[start:i], chunk.line_nos[start:i], chunk.ts[start:i], chunk.streams[start:i])
            start = None


def _matters(row: tuple, prefilter_hit: bool | None) -> bool:
    """An event worth keeping in a big log (prefilter_hit None: decide with RELEVANT here)."""
    if row[6] in ("WARNING", "ERROR", "FATAL") or row[7] != "line":
        return True
    if prefilter_hit is None:
        return RELEVANT.search(row[8] or "") is not None
    return prefilter_hit


def predict_paths(paths: list[str], models_dir: str | Path):
    """Yield one contract object per input path (with an "error" key when it cannot be read)."""
    import os
    import shutil
    import sys
    import tempfile

    from pipeline import sources
    predictor = Predictor(models_dir)
    for path in paths:
        tmp = None
        try:
            if path == "-":
                fd, tmp = tempfile.mkstemp(prefix="logml-stdin-")
                with os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(sys.stdin.buffer, out)
                real = tmp
            else:
                real = path
                if Path(real).is_dir():
                    raise OSError(f"a directory, not a log file: {path} (logml ingest reads a folder)")
                if not Path(real).is_file():
                    raise OSError(f"no such file: {path}")
            events, _ = read_log_events(real, predictor.rules)
            verdict = predictor.diagnose(events, sources.outcome_of(real) if path != "-" else {})
            yield predictor.to_json(path, events, verdict)
        except OSError as exc:
            yield {"path": path, "error": str(exc)}
        finally:
            if tmp:
                os.unlink(tmp)


# ----------------------------------------------------------------------------- the warehouse


def classify_runs(con, models_dir: str | Path, scope: str = "pending", batch: int = 500) -> int:
    """Store a verdict for runs: "pending" = runs with new events or no verdict from this model;
    "all" = every run (a new model version re-classifies on demand)."""
    import pandas as pd

    from pipeline import store
    predictor = Predictor(models_dir)
    if scope == "all":
        sql = "SELECT run_id FROM runs ORDER BY run_id"
        params: list = []
    else:
        sql = """SELECT r.run_id FROM runs r LEFT JOIN predictions p USING (run_id)
                 WHERE p.run_id IS NULL OR p.model_version IS DISTINCT FROM ?
                    OR r.last_ingest > coalesce(p.ingest_seen, -1) ORDER BY r.run_id"""
        params = [predictor.model_version]
    run_ids = [r for (r,) in con.execute(sql, params).fetchall()]
    # a verdict made when the whole log was there stands: retention left only part of it
    judged = [r for (r,) in con.execute("SELECT run_id FROM predictions WHERE list_contains(?, run_id)",
                                        [run_ids]).fetchall()]
    kept = store.runs_missing_events(con, judged)
    run_ids = [r for r in run_ids if r not in kept]
    done = 0
    for start in range(0, len(run_ids), batch):
        ids = run_ids[start:start + batch]
        events = store.load_run_events(con, ids)
        metas = store.run_meta(con, ids)
        seen = dict(con.execute(f"SELECT run_id, last_ingest FROM runs WHERE run_id IN ({','.join('?' * len(ids))})",
                                ids).fetchall())
        rows = []
        for run_id in ids:
            ev = events.get(run_id)
            if ev is None:
                ev = pd.DataFrame(columns=["line_no", "level", "kind", "message", "text"])
            verdict, lines = predictor.explain(ev, predictor.diagnose(ev, metas.get(run_id, {})))
            # the line that names an unknown's fault joins its evidence
            _, remedy_id = predictor.remedy(ev, verdict, lines)
            rows.append({
                "run_id": run_id, "category": verdict.category, "confidence": float(verdict.confidence),
                "source": verdict.source, "rule_id": verdict.rule_id, "model_category": verdict.model_category,
                "model_confidence": verdict.model_confidence, "model_version": predictor.model_version,
                "evidence": json.dumps(lines, ensure_ascii=False),
                "alternatives": json.dumps(verdict.alternatives), "ingest_seen": seen.get(run_id),
                "remedy_id": remedy_id or ""})
        con.register("new_predictions", pd.DataFrame(rows))
        con.execute("""INSERT OR REPLACE INTO predictions
                       SELECT run_id, category, confidence, source, rule_id, model_category, model_confidence,
                              model_version, evidence::JSON, alternatives::JSON, now(), ingest_seen, remedy_id
                       FROM new_predictions""")
        con.unregister("new_predictions")
        done += len(ids)
    return done
