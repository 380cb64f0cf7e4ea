"""Ordered signature rules (``pipeline/rules.yaml``): events of one run -> root cause + evidence.

Contract:
  RuleSet.load(path=None) -> RuleSet              # default: the packaged rules.yaml
  RuleSet.match(events, meta=None) -> RuleVerdict | None
  RuleSet.hits(events, meta=None) -> dict[rule_id, count]   # classifier features
  RuleSet.remedy_for(category, texts) -> Remedy | None       # a remedy narrower than the category's
  check(path=None) -> list[str]                   # validation errors; [] = OK (`logml rules check`)
  load_rules() -> RuleSet                         # the packaged rules, cached for the process

``events`` is a DataFrame with the columns of ``pipeline.normalize.EVENT_COLUMNS`` (missing
columns are tolerated: ``text`` falls back to ``message``, ``line_no`` to the row number).
``meta`` may carry ``exit_code`` and ``oom_killed`` (and any other key a rule's ``meta`` names). Facts
read from the log itself join it: the exit status a shell printed (``with_shell_status``), and the
``LOG_FACTS`` a rule names (``gpu_memory_full``: nvidia-smi shows a GPU taken; ``gpu_memory_grew``; ``loss_stayed_nan``).

Verdict (documented in rules.yaml too): every (rule, event) pair that fires is a hit; the winner
is the hit with the lowest ``priority``. Ties go to the LATER event of the log: a run stops at
its last error, and an earlier error of the same strength was by definition survived (caught,
retried, logged as a warning) while the last one is what the run died of; cascades between
causes (an NCCL error caused by a GPU OOM, a segfault after a missing-library warning) are
resolved by the priorities, not by position. Same event: the rule listed first in the file.
A rule marked ``needs_failure`` (latent causes printed as warnings in healthy runs too) counts
only when the run failed: a hit of a rule without ``needs_failure``, OOMKilled or a nonzero exit
code in ``meta``; without an exit code in ``meta``, a traceback / C++ dump / FATAL event.

Speed: every pattern has a set of required literals (``required_literals``: one of them occurs
in any match; ``check`` insists each is selective). RE2 alternations of all literals (run by
pyarrow, vectorised, linear time; in chunks small enough for RE2's DFA) pick the candidate
events of the whole frame in ~40-80 ms per 100k lines; a candidate is then routed by the literals
it contains to the few rules that can fire, and only those run their Python ``re`` patterns.
Results per distinct (text, message) are cached on the RuleSet, so repeated lines cost one match.
No level / kind shortcut is needed: a rule cannot fire on an event that lacks its literal, whatever
the event's level. Without pyarrow the same literals run as one Python ``re`` alternation (same
results, slower).
"""
from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

if TYPE_CHECKING:  # pandas costs ~0.5 s to import; `logml predict` passes normalize.Events instead
    import pandas as pd

try:  # Python >= 3.11
    from re import _constants as _sre_c
    from re import _parser as _sre_p
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_p  # type: ignore[no-redef]

log = logging.getLogger(__name__)

FAILURE_KINDS = frozenset({"py_traceback", "cpp_traceback", "error_summary"})
FAILURE_LEVELS = frozenset({"FATAL"})
TAIL_FOR_FAILURE = 3
SUCCESS_TAIL = 5
# a training step on its way ("epoch 1 iter 820/1455 loss 0.89 acc 0.79"): its accuracy is no final metric, and
# a log that stops there stopped mid-run; an evaluation's or a finished loop's line ("step 157/157", "Test Acc") is one
_ACCURACY_TEXT = r"\bacc(?:uracy)?\s*[:=]?\s*0?\.(?!0+\b)\d"
_ACCURACY = re.compile("(?i)" + _ACCURACY_TEXT)
_TRAINING_LOSS = re.compile(r"(?i)loss\s*[:=]?\s*-?\d")
_STEP_COUNTER = re.compile(r"(?i)\b(?:epoch|step|iter(?:ation)?|batch|global_step)\b")
_EVALUATION = re.compile(r"(?i)\b(?:test|eval\w*|val(?:id\w*)?|dev|best|final)\b|\b(\d+)\s*/\s*\1\b")


# the last lines say the run did its work (a result, a saved model, a finished loop, the job's own "exit 0",
# a trainer's final metrics block, a classifier's top-k, a predictor's timing): the end of a paste with no
# exit status (rules' unless_succeeded, and the model's ended_well token)
ENDED_WELL = re.compile(
    r"(?i)installed successfully|works well on \d+ [CG]PUs?|(?:training|train|evaluation|eval|inference|predict\w*|export) "
    r"(?:is )?(?:finished|completed|done)|训练(?:完成|结束)|推理完成|预测完成|Exit code:? 0\b|Pod completed|"
    r"^\S+\s+(?-i:Complete)\s+\d+/\d+\s+\d+[smhd]|"   # `kubectl get job`: NAME STATUS COMPLETIONS DURATION
    r"Successfully (?:saved|exported|installed|tagged)|done, time cost|Predict time of|predict total time|"
    r"(?:visualized|result|inference model)[\w ]{0,20} (?:is )?saved|"
    r"\b(?:figure|plot|model|results?|output|checkpoint|predictions?|weights) (?:is |was |were )?saved\s*(?::|to\b)|save(?:d)? (?:model|checkpoint|the model)|"
    r"Saving model checkpoint|Save checkpoint:|\bsaved (?:to|in|at) |Average Precision|average FPS|"
    r"Total sample number|'rec_texts'|" + _ACCURACY_TEXT + r"|\bSucc (?:predict|post process)|"
    r"onRun\w*Succe|trainingEnd|Best test|\bexit(?: code| status)?\s*[=:]?\s*0\s*[=*#\-)\]]*\s*$|"
    r"\b(?:train|eval|test|predict)_(?:runtime|samples_per_second|steps_per_second)\s*=|\btop-?[1-5]\s*[:=]\s*\S|"
    r"\binference (?:cost|time)\s*[:=]?\s*[\d.]+\s*ms\b|\b(?:state|status|phase)\s*[=:]\s*(?:succeeded|completed)\b|"
    r"\b(?:0|zero) (?:failed|failures|errors)\b|\b(?:errors|err|failed)[:=]?\s*0\b(?!\.\d)|"
    # "no errors" as a job's summary says it, not inside a note on a check ("nvlink -s: all links up, no errors")
    r"\b(?:with|had|found|reported) no (?:failures|errors)\b|\bno (?:failures|errors) (?:found|reported|occurred)\b|"
    r"\b(?:done|finished|completed)[:,]\s*\d[\d,]* (?:images|files|samples|records|items|pages|requests)\b|"
    # a batch's tally with every unit through ("12/12 trials ok", "40/40 shards done")
    r"\b(?P<units>[1-9]\d*)/(?P=units) (?:\w+ )?(?:ok|succeeded|passed|done|completed|finished)\b|"
    r"\b(?:job|pod|run) (?:completed|succeeded) (?P<completions>[1-9]\d*)/(?P=completions)\b|"   # a Job's completions
    r"\b(?:wrote|written|saved) \d[\d,]* (?:records|rows|results|images|files|predictions|vectors|embeddings|docs|documents|crops)\b|"
    r"\b(?:job|run|task|training|pipeline|batch) (?:finished|completed|succeeded|ended) (?:OK|successfully)\b|"
    r"\b(?:finished|completed|exited|ended|returned) with (?:exit )?(?:status|code|return code|exit code)\s*[=:]?\s*0\b|"
    r"\b(?:finished|completed|done) in \d+(?:(?::\d\d)+\b|(?:\.\d+)?\s*(?:s|sec|seconds|min|minutes|h|hours)\b)|"
    # a test or benchmark tool's summary of a clean pass (ctest, pytest with nothing failed, perf_analyzer)
    r"\b100% tests passed\b|^=*\s*\d+ passed(?:, \d+ (?:warnings?|skipped|deselected|xfailed|xpassed|reruns?))* in [\d.]+s|"
    r"^(?-i:OK)(?: \((?:skipped|expected failures)=\d+\))?\s*$|"   # unittest's verdict after "Ran 5 tests in 3.4s"
    r"\bFinished processing dependencies for \S|"   # the last line of a `setup.py install` that built and installed
    r"\bRun Success, Exit\b|"   # PaddleRec's trainers' and servers' last line
    r"\bExitCode[= ]0:0\b|\bCOMPLETED\s+0:0\b|"   # Slurm's verdict on the job (scontrol, sacct, an epilog)
    r"^(?-i:Finished: SUCCESS|Job succeeded)\s*$|"   # Jenkins' and GitLab CI's verdict on the whole job
    r"\bthroughput: [\d.]+ infer/sec\b|^&&&& PASSED TensorRT\.trtexec\b|"
    # a check's or a benchmark's verdict closing its line ("[nightly-bench] PASS", "accuracy check: PASS")
    r"(?:\]|:)\s*(?-i:PASS(?:ED)?)\s*$|"
    # a server stopped on purpose and cleanly (uvicorn's own lines, a service's): its errors before were survived
    r"\bApplication shutdown complete\b|\bFinished server process\b|\bshutdown complete\b|\bgraceful(?:ly)? (?:shut ?down|stop)")
# what a check run after a failure says of the installation, not of the job: a paste that goes on from
# the traceback to `paddle.utils.run_check()` or to a `pip install` of the fix
CHECK_PASSED = re.compile(r"(?i)installed successfully|works well on \d+ [CG]PUs?|Successfully installed")
# the same line naming a nonzero exit ("done in 216.8s, exit 3")
_NONZERO_EXIT = re.compile(r"(?i)\bexit(?:ed)?(?: with)?(?: code| status)?\s*[=:]?\s*-?[1-9]\d*\b|Exited \([1-9]\d*\)")


# a line typed at a shell prompt (a command, the user's comment on another run), not the run's output
_PROMPT_LINE = re.compile(r"^\s*(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+[^\s$#]*\s*[$#]|\$)\s|^\s*(?:PS )?[A-Z]:\\[^>\n]{0,200}>")


# a command typed after the run to look at its machine (a config, a listing, the GPUs, a pod's state), or a
# comment: what it prints is not the run's end (`cat train.log`, `tail nohup.out` show the run itself: no such command)
_DIAGNOSTIC_COMMAND = re.compile(
    r"[$#>]\s*(?:sudo\s+)?(?:(?:docker(?:\s+compose)?|podman|kubectl)\s+exec\s+(?:-{1,2}[\w-]+(?:[= ]\S+)?\s+)*\S+\s+(?:--\s+)?)?"
    r"(?:\S*/)?(?:#|python[\d.]*\s+-c\s+[\"'][^\"'\n]*(?:run_check|__version__|version\.\w+\(|is_compiled_with_\w+|device_count)|(?:cat|grep|egrep|ls|ll|nvidia-smi|df|du|free|echo|head|tail|nvcc|ldd|mount|findmnt|env|"
    r"uname|which|lsb_release|ps|dmesg|ldconfig|sed|awk|wc|stat|readlink|find|tree|md5sum|sha256sum|nproc|"
    r"lscpu|lspci|ulimit|whoami|date|uptime|kubectl\s+(?:get|describe|top)|docker\s+(?:inspect|ps|images|stats)|"
    r"pip3?\s+(?:list|show|freeze)|conda\s+list|systemctl\s+status|git\s+(?:log|status|diff|show))\b)")
# a CI runner's steps after the job's own script (uploading, caching, cleaning up): what they print is not the run's
# end, as a command typed after it to look at the machine is not (GitHub Actions', GitLab's, Jenkins' words)
_CI_AFTER_THE_JOB = re.compile(
    r"^\s*(?:##\[group\])?(?:Post job cleanup\.|Post Run \S|Run actions/(?:upload-artifact|download-artifact|cache)@|"
    r"(?:Uploading artifacts|Saving cache) for (?:successful|failed) job|Cleaning up project directory|"
    r"\[Pipeline\] End of Pipeline|Archiving artifacts\s*$|Recording test results\s*$)")
_SHOWS_THE_RUN = re.compile(r"\b(?:cat|tail|head|less|more|grep)\b[^|;]*(?:\.log|\.out|\.txt|nohup|stdout|stderr)\b")
RUN_END_LOOK = 40


def run_tail(messages, size: int) -> list[int]:
    """The last ``size`` lines of the log, and the last ``size`` lines of the run's own output: before the
    commands a paste appends to look at the machine afterwards (`$ cat config.pbtxt`, `$ nvidia-smi`, within
    the last RUN_END_LOOK lines; what they print may say how the run ended too: a describe's "Pod completed"),
    before a CI runner's steps after the job's script (an artifact upload, "Post job cleanup."),
    and after the prompt of the last command that ran something else (its output is the run that ended)."""
    n = len(messages)
    start, end = 0, n
    for i in range(n - 1, max(-1, n - 1 - RUN_END_LOOK), -1):
        m = messages[i]
        prompt = _PROMPT_LINE.match(m) if isinstance(m, str) else None
        if prompt is not None:
            command = m[prompt.end() - 2:]
            if not _DIAGNOSTIC_COMMAND.search(command) or _SHOWS_THE_RUN.search(command):
                start = i + 1 if end < n else start   # the command before diagnostics is the run's own
                break
            end = i
        elif isinstance(m, str) and _CI_AFTER_THE_JOB.match(m):
            end = i
    return sorted(set(range(max(start, end - size), end)) | set(range(max(0, n - size), n)))


# the user's note on another run beside this one ("same code, official image on the same node: acc 0.84")
_OTHER_RUN = re.compile(r"(?i)\b(?:same|another|other|official|previous)\s+(?:code|job|script|config|image|node|host|"
                        r"machine|env(?:ironment)?|container|wheel|card|GPU)\b|同样的代码|同一份代码|另一台")


# the job's source pasted after its log: a print or logging call, a format template ("saved to {path}")
_SOURCE_LINE = re.compile(r"\b(?:print|info|warning|write)\s*\(\s*[fFrRbB]?['\"]|\{[A-Za-z_][\w.]*(?::[^{}\s]*)?\}")


def _training_step(message: str) -> bool:
    return _TRAINING_LOSS.search(message) is not None and _STEP_COUNTER.search(message) is not None \
        and _EVALUATION.search(message) is None


def ended_well(message: str, after_failure: bool = False) -> bool:
    """The line says the run did its work; after a failure, a passed installation check does not."""
    text = CHECK_PASSED.sub("", message) if after_failure else message
    hit = ENDED_WELL.search(text)
    if hit is not None and _ACCURACY.fullmatch(hit.group(0)) and _training_step(message):
        hit = ENDED_WELL.search(_ACCURACY.sub("", text))   # the step's accuracy says nothing; another phrase may
    return hit is not None \
        and not _NONZERO_EXIT.search(message) and not _PROMPT_LINE.match(message) \
        and not _OTHER_RUN.search(message) and not _SOURCE_LINE.search(message)


# the job going on as it says so itself (a step or epoch line, a request served): after a connection error it
# means the connection was retried and the job went on (rules' progress_survives)
PROGRESS = re.compile(
    r"(?i)\b(?:epoch|step|iter(?:ation)?|batch)\s*[:=\[(]?\s*\[?\d+|\bloss\s*[:=]\s*-?\d|\bloss\s+-?\d+\.\d|"
    r"\bSucc (?:request|predict|process)|\" 200\b|"   # a server's access line ("POST /predict HTTP/1.1" 200), not a client's
    r"\b(?:Successful request|Inference) count:\s*[1-9]|"   # Triton's statistics of requests served (perf_analyzer)
    r"\bStarted (?:GRPCInferenceService|HTTPService|Metrics Service) at\b|"   # Triton up with every model loaded
    r"^\s*\[\s*\d+\s*/\s*\d+\s*\]")                # a work counter opening the line ("[120/240] tile_0120.tif")
MIN_PROGRESS_AFTER = 3
# a Python traceback frame's file; numpy's dispatch ("<__array_function__ internals>") is no frame of its own:
# the error is the caller's line's
PY_FRAME = re.compile(r'^\s*File "(?!<__array_function__)([^"]+)", line \d+', re.M)
# an exception line, a process killed or crashed (a shell's "<pid> Killed <command>"), an error said in so many words
_ENDS_FAILED = re.compile(
    r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|NotMet)\b|^\s*(?:Error|ERROR|FATAL|Fatal)\b|\bKilled\s*$|"
    r"core dumped|Segmentation fault|\bAborted\b|Fatal signal|Check failed|错误|失败|\d\s+(?:Killed|已杀死)\s|"
    r"\b(?:failed|cannot|can't|could not|unable to|not found|does not exist|no such file|not supported|"
    r"not (?:been )?registered|refused)\b", re.IGNORECASE)
NON_RULE_CATEGORIES = frozenset({"no_failure", "unknown"})
MAX_EVIDENCE = 5
EVIDENCE_CHARS = 400
FIELDS = ("text", "message")
_RULE_KEYS = {
    "id", "category", "priority", "patterns", "field", "require", "exclude", "context", "context_all", "unless",
    "tail", "needs_failure", "unless_succeeded", "unless_succeeded_with", "consequence", "progress_survives",
    "frame", "fact", "meta",
    "case_sensitive", "examples", "counter_examples", "description", "weaker",
}
FRAME_LOCATIONS = ("user", "paddle", "thirdparty", "stdlib", "none")
_VAR_RE = re.compile(r"\$\{(\w+)\}")
_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_CACHE_MAX = 20_000
_CACHE_KEY_CHARS = 4_096
MIN_KEYWORD_WEIGHT = 4   # a pattern's rarest required literal must weigh this much (CJK chars 3)


# ------------------------------------------------------------------------------------- types


@dataclass
class RuleVerdict:
    category: str
    rule_id: str
    priority: int
    evidence: list[dict] = dc_field(default_factory=list)   # [{"line", "text", "rule"}], best first
    hits: list[str] = dc_field(default_factory=list)         # fired rule ids, strongest first
    hit_categories: list[str] = dc_field(default_factory=list)   # their categories, same order
    hit_priorities: list[int] = dc_field(default_factory=list)   # their priorities as they fired, same order

    def tokens(self) -> list[str]:
        """Classifier tokens: the fired rules, the categories they name (shared by every rule of a
        category, so a rule new to the training data still counts) and the winning category."""
        cats = list(dict.fromkeys(self.hit_categories))
        # the band goes with the winning category: how firmly that category is said, not a prior of its own
        return [*self.hits, *(f"cat_{c}" for c in cats), f"win_{self.category}",
                f"winband_{band_of(self.priority)}_{self.category}"]

    @property
    def remedy(self) -> str:
        from pipeline.taxonomy import load_taxonomy

        return load_taxonomy().remedy(self.category)

    def to_dict(self) -> dict:
        return {
            "category": self.category, "rule_id": self.rule_id, "priority": self.priority,
            "evidence": list(self.evidence), "hits": list(self.hits),
        }


@dataclass(frozen=True)
class Remedy:
    """What to do about one family inside a category (rules.yaml ``remedies``): a CPU without AVX
    among native crashes, an InfiniBand fault among communication failures, a predictor's OOM among
    GPU OOMs. It replaces the category's remedy when its verdict's evidence says ``when``."""
    id: str
    category: str
    when: tuple[str, ...]
    remedy: str
    description: str = ""
    # a line of the log that says `when` makes the verdict `unknown` with this remedy, whatever the rest
    # says: a fault outside the taxonomy (a GPU that failed) that the later errors only follow from
    decides: bool = False
    context: tuple[str, ...] = ()     # one must match some line of the log too (the run is a deployment's)
    overrides: tuple[str, ...] = ()   # the verdicts it decides over: the fault's consequences (all when empty)
    unless: tuple[str, ...] = ()      # it decides nothing in a log one of these matches
    rx: re.Pattern | None = dc_field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    priority: int
    order: int
    patterns: tuple[str, ...] = ()
    field: str = "text"
    require: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    # each of these must match some event of the log (two facts on two lines: an NCCL built for CUDA 11
    # AND a Paddle built for CUDA 12)
    context_all: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    tail: int | None = None
    needs_failure: bool = False
    unless_succeeded: bool = False
    # does not fire in a run known to have ended well whose log also says one of these (a GPU
    # warning in a job that asked for the CPU and did its work; the same warning in a GPU job is its cause)
    unless_succeeded_with: tuple[str, ...] = ()
    # what a peer's failure leaves on the others (a closed socket, a SIGTERM in a collective, NCCL waiting):
    # yields to any rule of another category the log fires, which states what that peer died of
    consequence: bool = False
    # a hit after which the job went on (MIN_PROGRESS_AFTER lines of PROGRESS, no failure event) was survived:
    # a connection refused while the peers or the server started, then retried
    progress_survives: bool = False
    frame: tuple[str, ...] = ()
    fact: tuple[str, ...] = ()   # names in FACTS: what a regex cannot tell of the matched event (compare numbers)
    meta: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    case_sensitive: bool = False
    examples: tuple[Any, ...] = ()
    counter_examples: tuple[Any, ...] = ()
    description: str = ""
    weak_when: tuple[str, ...] = ()   # on a matched line these patterns also match, the verdict is said at weak_priority
    weak_priority: int | None = None
    # compiled (Python re)
    rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)
    req_rx: tuple[_LazyRegex, ...] = dc_field(default=(), repr=False, compare=False)
    exc_rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)
    ctx_rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)
    unless_rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)
    ctx_all_rx: tuple[_LazyRegex, ...] = dc_field(default=(), repr=False, compare=False)
    succeeded_with_rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)
    weak_rx: _LazyRegex | None = dc_field(default=None, repr=False, compare=False)

    def priority_on(self, line: str) -> int:
        """The priority a verdict of this rule is said at (its band) on its matched ``line``."""
        if self.weak_rx is not None and self.weak_rx.search(line):
            return self.weak_priority
        return self.priority

    @property
    def flags(self) -> int:
        return re.MULTILINE | (0 if self.case_sensitive else re.IGNORECASE)

    @property
    def re2_flags(self) -> str:
        return "m" if self.case_sensitive else "im"

    def re2(self, patterns: Sequence[str]) -> str:
        return "|".join(f"(?{self.re2_flags}:{p})" for p in patterns)

    def match_value(self, value: str) -> re.Match | None:
        """The first pattern match in ``value`` if the rule fires on it (require/exclude applied)."""
        if self.rx is None:
            return None
        m = self.rx.search(value)
        if m is None:
            return None
        if self.exc_rx is not None and self.exc_rx.search(value):
            return None
        for r in self.req_rx:
            if not r.search(value):
                return None
        if self.frame and innermost_frame(value) not in self.frame:
            return None
        if any(not FACTS[f](value) for f in self.fact):
            return None
        return m

    def meta_ok(self, meta: Mapping[str, Any] | None) -> bool:
        if not self.meta:
            return True
        if not meta:
            return False
        for key, wanted in self.meta:
            have = _norm_meta(key, meta.get(key))
            if have is None or have not in wanted:
                return False
        return True


@dataclass
class _Hit:
    rule: Rule
    pos: int                 # row position in the frame; -1 for a metadata-only hit
    line: int | None
    text: str
    priority: int            # the priority the hit's verdict is said at (the rule's, or its weaker one)


# ------------------------------------------------------------------------------------- helpers


def band_of(priority: int) -> int:
    from pipeline.combine import band_of as band
    return band(priority)


def _norm_meta(key: str, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "yes"):
            return True
        if v in ("false", "no"):
            return False
        if v in ("", "none", "null", "nan"):
            return None
        try:
            return int(v)
        except ValueError:
            return v
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return value


def _as_list(v: Any) -> list:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


def _expand(pattern: str, variables: Mapping[str, str]) -> str:
    def sub(m: re.Match) -> str:
        if m.group(1) not in variables:
            raise KeyError(m.group(1))
        return variables[m.group(1)]

    return _VAR_RE.sub(sub, pattern)


class _LazyRegex:
    """Compiled on first use: most rules never see a candidate line in a given log, and compiling
    all of them up front is a third of `logml predict`'s start-up."""

    __slots__ = ("pattern", "flags", "_rx")

    def __init__(self, pattern: str, flags: int):
        self.pattern, self.flags, self._rx = pattern, flags, None

    def _compiled(self) -> re.Pattern:
        if self._rx is None:
            self._rx = re.compile(self.pattern, self.flags)
        return self._rx

    def search(self, *args):
        return self._compiled().search(*args)


def _any_rx(patterns: Sequence[str], flags: int) -> _LazyRegex | None:
    if not patterns:
        return None
    return _LazyRegex("|".join(f"(?:{p})" for p in patterns), flags)


def _clip(s: str) -> str:
    s = s.strip()
    return s if len(s) <= EVIDENCE_CHARS else s[: EVIDENCE_CHARS - 1] + "…"


def _line_of(value: str, start: int) -> tuple[int, str]:
    """(0-based line index within value, that line) for a match starting at ``start``."""
    a = value.rfind("\n", 0, start) + 1
    b = value.find("\n", start)
    return value.count("\n", 0, a), value[a: b if b >= 0 else len(value)]


def _arrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is a hard dependency
        return None, None
    return pa, pc


def _to_arrow(values):
    pa, _ = _arrow()
    try:
        if isinstance(values, list):  # no pa.array(list): it imports pandas (predict start-up)
            from pipeline.textops import arrow_strings
            return arrow_strings(values)
        return pa.array(values, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        fixed = [None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in values]
        return pa.array(fixed, type=pa.large_string())


def _re2_mask(arr, patterns: str | Sequence[str]) -> np.ndarray | None:
    """Vectorised RE2 search for a pattern (or any of several); None when pyarrow is missing or RE2
    rejects a pattern."""
    pa, _ = _arrow()
    if pa is None or arr is None:
        return None
    from pipeline.textops import re2_search_any
    try:
        hits = re2_search_any(arr, (patterns,) if isinstance(patterns, str) else patterns)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        log.debug("RE2 rejected a prefilter pattern (%s); using Python re", exc)
        return None
    return np.fromiter(hits, dtype=bool, count=len(arr))


def re2_error(pattern: str) -> str | None:
    """Why RE2 (pyarrow) cannot compile ``pattern``, or None when it can."""
    pa, pc = _arrow()
    if pa is None:  # pragma: no cover
        return None
    try:
        pc.match_substring_regex(pa.array([""], type=pa.large_string()), pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        return str(exc)
    return None


def _weight(lit: str) -> int:
    """Selectivity proxy of a literal: its length, a CJK (or other non-Latin) char counting 3."""
    return sum(3 if ord(c) > 0x2E7F else 1 for c in lit)


_EXACT_MAX = 64  # cap on the size of a cross product of alternatives


def _exact(items: Sequence) -> set[str] | None:
    """The finite set of strings the parsed sequence matches exactly, or None."""
    out = {""}
    for op, av in items:
        if op == _sre_c.LITERAL:
            alts = {chr(av)}
        elif op == _sre_c.IN and len(av) == 1 and av[0][0] == _sre_c.LITERAL:
            alts = {chr(av[0][1])}
        elif op == _sre_c.SUBPATTERN:
            alts = _exact(av[-1])
        elif op == _sre_c.BRANCH:
            subs = [_exact(b) for b in av[1]]
            alts = set().union(*subs) if all(s is not None for s in subs) else None
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT) and av[0] == 0 and av[1] == 1:
            sub = _exact(av[2])
            alts = None if sub is None else sub | {""}
        else:
            alts = None
        if alts is None:
            return None
        out = {a + b for a in out for b in alts}
        if len(out) > _EXACT_MAX:
            return None
    return out


def _required(items: Sequence, ci: bool) -> set[str] | None:
    """A set of literals one of which occurs in every match of the parsed sequence, or None.

    Consecutive items that match a finite set of strings are multiplied out ("lib" followed by
    "(?:GL|SM)" gives {"libGL", "libSM"}); other items contribute their own required sets; the
    most selective candidate wins.
    """
    cands: list[set[str]] = []
    run: set[str] = {""}

    def flush() -> None:
        nonlocal run
        if any(run):
            cands.append({x for x in run if x} if all(run) else set())
        run = {""}

    for item in items:
        op, av = item
        ex = _exact([item])
        if ex is not None:
            prod = {a + b for a in run for b in ex}
            if len(prod) <= _EXACT_MAX:
                run = prod
                continue
            flush()
            run = ex
            continue
        flush()
        if op == _sre_c.SUBPATTERN:
            sub = _required(av[-1], ci)
        elif op == _sre_c.BRANCH:
            subs = [_required(b, ci) for b in av[1]]
            sub = set().union(*subs) if subs and all(subs) else None
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT) and av[0] >= 1:
            sub = _required(av[2], ci)
        else:
            sub = None
        if sub:
            cands.append(sub)
    flush()
    cands = [c for c in cands if c]
    if not cands:
        return None
    return max(cands, key=lambda c: (min(_weight(x) for x in c), -len(c)))


def required_literals(pattern: str, case_sensitive: bool = False) -> frozenset[str] | None:
    """Literals one of which every match of ``pattern`` contains (lower-cased unless case
    sensitive); None when no such literal exists. Used to build the cheap keyword prefilter."""
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        parsed = _sre_p.parse(pattern, flags)
    except re.error:
        return None
    found = _required(list(parsed), not case_sensitive)
    if not found:
        return None
    return frozenset(found if case_sensitive else {x.lower() for x in found})


def _fold_words(words: Mapping[str, set[int]]) -> tuple[tuple[str, frozenset[int]], ...]:
    """Drop a literal that contains a shorter kept literal, moving its rules onto that one (the
    shorter literal is present whenever the longer is: routing stays a superset)."""
    kept: dict[str, set[int]] = {}
    for w in sorted(words, key=lambda x: (len(x), x)):
        host = next((o for o in kept if o in w), None)
        if host is None:
            kept[w] = set(words[w])
        else:
            kept[host] |= words[w]
    return tuple((w, frozenset(v)) for w, v in sorted(kept.items()))


# RE2 runs an alternation through its DFA within a memory budget; past it the search falls back to a
# far slower engine. The shipped literals as one alternation crossed that line at about 24,500
# characters (40 ms -> 2.3 s over 100k events), so they are searched in chunks of this size.
PREFILTER_CHUNK_CHARS = 16_000


def _keyword_regex(ci: set[str], cs: set[str]) -> tuple[str, ...]:
    """RE2 alternations of literals (substrings of another literal dropped: same matches), each
    below PREFILTER_CHUNK_CHARS; an event is a candidate when any of them matches."""
    def minimal(words: set[str]) -> list[str]:
        out: list[str] = []
        for w in sorted(words, key=len):
            if not any(o in w for o in out):
                out.append(w)
        return sorted(out)

    parts = []
    for words, group in ((ci, "(?i:"), (cs, "(?:")):
        chunk: list[str] = []
        size = 0
        for w in minimal(words) if words else ():
            chunk.append(re.escape(w))
            size += len(chunk[-1]) + 1
            if size > PREFILTER_CHUNK_CHARS:
                parts.append(group + "|".join(chunk) + ")")
                chunk, size = [], 0
        if chunk:
            parts.append(group + "|".join(chunk) + ")")
    return tuple(parts)


class _Frame:
    """Column access for one ``match`` call (arrow arrays built once, lazily).

    Takes a pandas DataFrame or a pandas-free ``normalize.Events`` (columns as lists)."""

    def __init__(self, events):
        self.df = events
        self.n = len(events)
        self._arr: dict[str, Any] = {}
        self._plain = not hasattr(events, "iloc")

    def series(self, name: str):
        df = self.df
        if self._plain:
            cols = df.columns
            if name == "text":
                if "text" in cols:
                    msgs = df["message"] if "message" in cols else [None] * self.n
                    return [t if isinstance(t, str) else m for t, m in zip(df["text"], msgs)]
                return list(df["message"]) if "message" in cols else [""] * self.n
            if name == "message" and "message" not in cols:
                return self.series("text")
            return list(df[name]) if name in cols else [None] * self.n
        import pandas as pd
        if name == "text":
            if "text" in df.columns:
                s = df["text"]
                if "message" in df.columns and s.isna().any():
                    s = s.where(s.notna(), df["message"])
                return s
            return df["message"] if "message" in df.columns else pd.Series([""] * self.n)
        if name == "message":
            if "message" in df.columns:
                return df["message"]
            return self.series("text")
        return df[name] if name in df.columns else pd.Series([None] * self.n)

    def arrow(self, name: str):
        if name not in self._arr:
            pa, _ = _arrow()
            self._arr[name] = None if pa is None else _to_arrow(self.series(name))
        return self._arr[name]

    def values_at(self, name: str, idx: np.ndarray) -> list[str]:
        arr = None if self._plain else self.arrow(name)  # take() would import pandas
        if arr is not None:
            out = arr.take(idx).to_pylist()
        else:
            values = self.series(name)
            out = [values[i] for i in idx] if isinstance(values, list) else values.iloc[idx].tolist()
        return ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in out]

    def all_values(self, name: str) -> list[str]:
        return self.values_at(name, np.arange(self.n))

    def _ints(self, name: str) -> np.ndarray | None:
        if name not in self._arr:
            arr = None
            if name in self.df.columns:
                try:
                    if self._plain:
                        arr = np.array([np.nan if v is None else v for v in self.df[name]], dtype=float)
                    else:
                        import pandas as pd
                        arr = pd.to_numeric(self.df[name], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
                except (TypeError, ValueError):
                    arr = None
            self._arr[name] = arr
        return self._arr[name]

    def line_no(self, pos: int) -> int:
        arr = self._ints("line_no")
        if arr is not None and not np.isnan(arr[pos]):
            return int(arr[pos])
        return pos + 1

    def n_lines(self, pos: int) -> int | None:
        arr = self._ints("n_lines")
        if arr is not None and not np.isnan(arr[pos]):
            return int(arr[pos])
        return None


# ------------------------------------------------------------------------------------- RuleSet


def _build_prefilter(pattern_rules: Sequence[Rule]):
    """(rules without literals, case-insensitive and case-sensitive literal routes, RE2 alternations)."""
    ci_words: dict[str, set[int]] = {}
    cs_words: dict[str, set[int]] = {}
    always: list[int] = []          # rules with a pattern without literals
    for ri, r in enumerate(pattern_rules):
        for p in r.patterns:
            lits = required_literals(p, r.case_sensitive)
            if lits is None:
                always.append(ri)
                continue
            for w in lits:
                (cs_words if r.case_sensitive else ci_words).setdefault(w, set()).add(ri)
    prefilter = _keyword_regex(set(ci_words), set(cs_words))
    return always, _fold_words(ci_words), _fold_words(cs_words), prefilter


def prefilter_cache_dir() -> Path:
    """Where the prefilter of a rule set is kept between processes (XDG's cache, or LOGML_CACHE_DIR)."""
    import os
    if os.environ.get("LOGML_CACHE_DIR"):
        return Path(os.environ["LOGML_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "logml"


@lru_cache(maxsize=1)
def _code_digest() -> bytes:
    """This module's source, hashed once per process: the prefilter's derivation lives here."""
    import hashlib
    return hashlib.sha256(Path(__file__).read_bytes()).digest()


def _cached_prefilter(pattern_rules: Sequence[Rule]):
    """The prefilter, from a cache file keyed by the patterns and by this module's code.

    Deriving the literals parses every pattern again (about 0.15 s for the shipped rules, a sixth
    of a cold `logml predict`); the result depends on nothing else, so it is kept on disk. A cache
    that cannot be read or written is recomputed and the run goes on."""
    import hashlib
    import json
    import os
    h = hashlib.sha256(_code_digest())
    for r in pattern_rules:
        h.update(repr((r.case_sensitive, tuple(r.patterns))).encode())
    path = prefilter_cache_dir() / f"prefilter-{h.hexdigest()[:32]}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return (list(data["always"]), tuple((w, frozenset(ids)) for w, ids in data["ci"]),
                tuple((w, frozenset(ids)) for w, ids in data["cs"]), tuple(data["prefilter"]))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    always, ci, cs, prefilter = _build_prefilter(pattern_rules)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"always": always, "ci": [[w, sorted(ids)] for w, ids in ci],
                                   "cs": [[w, sorted(ids)] for w, ids in cs], "prefilter": prefilter},
                                  ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("prefilter cache not written (%s): %s", path, exc)
    return always, ci, cs, prefilter


class RuleSet:
    def __init__(self, rules: Sequence[Rule], version: str = "", source: str = "", remedies: Sequence[Remedy] = (),
                 variables: Mapping[str, str] | None = None):
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.remedies: tuple[Remedy, ...] = tuple(remedies)
        self.vars: dict[str, str] = dict(variables or {})   # rules.yaml's vars: facts the features read too
        self.version = version
        self.source = source
        self.by_id = {r.id: r for r in self.rules}
        self._pattern_rules = [r for r in self.rules if r.rx is not None]
        self._meta_rules = [r for r in self.rules if r.rx is None and r.meta]
        # Keyword prefilter: every pattern has a set of required literals (one of them occurs in
        # any match). RE2 alternations of them select candidate events over the whole frame; per
        # candidate, the literals present route it to the few rules that can fire.
        self._always, self._ci_words, self._cs_words, self._prefilter = _cached_prefilter(self._pattern_rules)
        self._cache: dict[tuple[str, str], tuple[tuple[int, int, str], ...]] = {}

    @property
    def prefilter(self) -> tuple[str, ...]:
        """RE2 alternations of the literals any rule needs, to be or-ed (empty when there is none)."""
        return self._prefilter

    # -- loading ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path | None = None) -> RuleSet:
        data, source = _read(path)
        # The packaged rules are validated by `logml rules check` and the tests; a file given by
        # hand is validated here, before any log is matched against it.
        rules, errors, version = _build(data, validate=path is not None)
        remedies, remedy_errors = _build_remedies(data)
        if errors or remedy_errors:
            raise ValueError(f"invalid rules file {source}:\n  " + "\n  ".join(errors + remedy_errors))
        return cls(rules, version=version, source=source, remedies=remedies, variables=_variables(data))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        rules, errors, version = _build(data)
        remedies, remedy_errors = _build_remedies(data)
        if errors or remedy_errors:
            raise ValueError("invalid rules:\n  " + "\n  ".join(errors + remedy_errors))
        return cls(rules, version=version, source="<dict>", remedies=remedies, variables=_variables(data))

    def remedy_for(self, category: str, texts: Iterable[str], messages: Sequence[str | None] = ()) -> Remedy | None:
        """The first of ``remedies`` for ``category`` whose ``when`` one of ``texts`` (the verdict's
        evidence lines) says, and whose ``context`` (if any) some line of ``messages`` (the log) says,
        else None: the category's own remedy stands."""
        texts = [t for t in texts if t]
        log = _Lines(messages)
        for r in self.remedies:
            if r.category == category and r.rx is not None and any(r.rx.search(t) for t in texts) \
                    and (not r.context or log.first(r.context) is not None):
                return r
        return None

    def first_said(self, messages: Sequence[str | None], category: str) -> tuple[Remedy, int] | None:
        """(remedy, index of the first message that says it) for the first remedy of ``category`` any
        line of the log says: an ``unknown`` verdict's evidence is only its last error, and the line
        that names the fault (a scheduler's time limit) may be elsewhere."""
        log = _Lines(messages)
        for r in self.remedies:
            if r.category == category and r.rx is not None:
                index = log.first(r.when)
                if index is not None and (not r.context or log.first(r.context) is not None):
                    return r, index
        return None

    def deciding_line(self, messages: Sequence[str | None], category: str | None = None) -> tuple[Remedy, int] | None:
        """(remedy, index of the first message that says it) for a ``decides`` remedy that may decide
        over ``category`` (its ``overrides``; any when None) and whose ``unless`` no message says, else
        None. In RE2 over all messages at once (4 ms on a 100k-line log; Python ``re`` took 60 ms)."""
        found = []
        log = _Lines(messages)
        for r in self.remedies:
            if not r.decides or r.rx is None or (category is not None and r.overrides and category not in r.overrides):
                continue
            index = log.first(r.when)
            if index is not None and (not r.unless or log.first(r.unless) is None):
                found.append((index, r))
        if not found:
            return None
        index, remedy = min(found, key=lambda x: x[0])
        return remedy, index

    def __len__(self) -> int:
        return len(self.rules)

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules, version={self.version!r}, source={self.source!r})"

    # -- matching ----------------------------------------------------------------------------

    def match(self, events: pd.DataFrame | None, meta: Mapping[str, Any] | None = None) -> RuleVerdict | None:
        fired = self._fire(events, meta)
        if not fired:
            return None
        fired.sort(key=_strength)
        best = fired[0]
        hits: list[str] = []
        cats: list[str] = []
        prios: list[int] = []
        for h in fired:
            if h.rule.id not in hits:
                hits.append(h.rule.id)
                cats.append(h.rule.category)
                prios.append(h.priority)
        return RuleVerdict(
            category=best.rule.category,
            rule_id=best.rule.id,
            priority=best.priority,
            evidence=self._evidence(fired, events),
            hits=hits,
            hit_categories=cats,
            hit_priorities=prios,
        )

    def hits(self, events: pd.DataFrame | None, meta: Mapping[str, Any] | None = None) -> dict[str, int]:
        """Fired rule id -> number of events that fired it (1 for a metadata rule), strongest first."""
        fired = self._fire(events, meta)
        fired.sort(key=_strength)
        counts: dict[str, int] = {}
        for h in fired:
            counts[h.rule.id] = counts.get(h.rule.id, 0) + 1
        return counts

    # -- internals ---------------------------------------------------------------------------

    def _fire(self, events: pd.DataFrame | None, meta: Mapping[str, Any] | None) -> list[_Hit]:
        if events is None:
            from pipeline.normalize import Events
            events = Events({"line_no": [], "message": [], "text": []})
        meta = with_shell_status(events, meta)
        fr = _Frame(events)
        raw = self._event_hits(fr) if fr.n else []
        wanted = {key for h in raw for key, _ in h.rule.meta if key in LOG_FACTS}
        if wanted:
            meta = {**(meta or {}), **{key: LOG_FACTS[key](fr.series("message")) for key in wanted}}

        ctx_memo: dict[str, bool] = {}

        def log_has(rx: re.Pattern | None, patterns: Sequence[str], rule: Rule, key: str) -> bool:
            if rx is None:
                return False
            if key not in ctx_memo:
                mask = _re2_mask(fr.arrow("text"), rule.re2(patterns)) if fr.n else None
                if mask is not None:
                    ctx_memo[key] = bool(mask.any())
                else:
                    ctx_memo[key] = any(rx.search(v) for v in fr.all_values("text"))
            return ctx_memo[key]

        fired: list[_Hit] = []
        ignored = ignored_exception_rows(fr.series("message"), fr.series("kind")) if raw else frozenset()
        for h in raw:
            r = h.rule
            if h.pos in ignored:   # what Python printed and went on from (a destructor's exception)
                continue
            if r.tail is not None and h.pos < fr.n - r.tail:
                continue
            if not r.meta_ok(meta):
                continue
            if r.context and not log_has(r.ctx_rx, r.context, r, "c:" + r.id):
                continue
            if r.context_all and not all(log_has(rx, (p,), r, f"a{i}:{r.id}")
                                         for i, (rx, p) in enumerate(zip(r.ctx_all_rx, r.context_all))):
                continue
            if r.unless and log_has(r.unless_rx, r.unless, r, "u:" + r.id):
                continue
            if r.progress_survives and _went_on_after(fr, h.pos):
                continue
            fired.append(h)
        for r in self._meta_rules:
            if r.meta_ok(meta) and not (r.unless and log_has(r.unless_rx, r.unless, r, "u:" + r.id)):
                fired.append(_Hit(r, -1, None, f"container metadata: {describe_meta(meta)}", r.priority))

        spared = [h for h in fired if h.rule.unless_succeeded_with and log_has(
            h.rule.succeeded_with_rx, h.rule.unless_succeeded_with, h.rule, "s:" + h.rule.id)]
        if spared:   # the run ended well, or (a server never ends) went on with its work after the hit
            if not run_succeeded(events, meta):
                spared = [h for h in spared if h.pos >= 0 and _went_on_after(fr, h.pos)]
            fired = [h for h in fired if h not in spared]
        if any(h.rule.needs_failure for h in fired):
            # a hit is failure evidence unless its rule is for latent causes itself
            failed = any(not (h.rule.needs_failure or h.rule.unless_succeeded) for h in fired) \
                or run_failed(events, meta)
            if not failed:
                fired = [h for h in fired if not h.rule.needs_failure]
        if any(h.rule.unless_succeeded for h in fired) and run_succeeded(events, meta):
            fired = [h for h in fired if not h.rule.unless_succeeded]
        causes = {h.rule.category for h in fired if not h.rule.consequence}
        if causes - {h.rule.category for h in fired if h.rule.consequence}:
            fired = [h for h in fired if not h.rule.consequence]
        return fired

    def _candidates(self, fr: _Frame) -> np.ndarray:
        """Row positions whose text contains a required literal of some pattern.

        Only ``text`` is scanned: ``message`` is the summary line of ``text`` (normalize's
        contract), and ``text`` falls back to ``message`` where it is missing.
        """
        if self._always:
            return np.arange(fr.n)
        if not self._prefilter:
            return np.zeros(0, dtype=np.int64)
        m = _re2_mask(fr.arrow("text"), self._prefilter)
        if m is None:  # pure-Python fallback (no pyarrow)
            rx = re.compile("|".join(self._prefilter))
            m = np.fromiter((rx.search(v) is not None for v in fr.all_values("text")), dtype=bool, count=fr.n)
        return np.flatnonzero(m)

    def _route(self, text: str, msg: str) -> list[int]:
        """Indices of the rules whose required literals occur in the event (in file order)."""
        low = text.lower()
        groups = [r for w, r in self._ci_words if w in low]
        groups += [r for w, r in self._cs_words if w in text]
        if msg and msg not in text:  # message-field rules when the summary is not in the text
            low_m = msg.lower()
            groups += [r for w, r in self._ci_words if w in low_m]
            groups += [r for w, r in self._cs_words if w in msg]
        if self._always:
            groups.append(frozenset(self._always))
        return sorted(frozenset().union(*groups)) if groups else []

    def _event_hits(self, fr: _Frame) -> list[_Hit]:
        idx = self._candidates(fr)
        if idx.size == 0:
            return []
        texts = fr.values_at("text", idx)
        msgs = fr.values_at("message", idx)
        distinct: dict[tuple[str, str], list[int]] = {}
        for i, key in enumerate(zip(texts, msgs)):
            distinct.setdefault(key, []).append(int(idx[i]))

        cache = self._cache
        rules = self._pattern_rules
        hits: list[_Hit] = []
        for key, positions in distinct.items():
            res = cache.get(key)
            if res is None:
                out = []
                for ri in self._route(*key):
                    rule = rules[ri]
                    value = key[0] if rule.field == "text" else key[1]
                    m = rule.match_value(value)
                    if m is None:
                        continue
                    off, line = _line_of(value, m.start())
                    text, msg = key
                    if rule.field == "text" and msg and msg != text and rule.rx.search(msg):
                        at = text.rfind(msg)   # a block: the summary line is the best evidence
                        if at >= 0:
                            off, line = _line_of(text, at)
                    out.append((ri, off, _clip(line), rule.priority_on(line)))
                res = tuple(out)
                if len(key[0]) + len(key[1]) <= _CACHE_KEY_CHARS:   # big blocks are rare: not kept
                    if len(cache) >= _CACHE_MAX:
                        cache.clear()
                    cache[key] = res
            for ri, off, line, prio in res:
                rule = rules[ri]
                for pos in positions:
                    hits.append(_Hit(rule, pos, self._event_line(fr, pos, rule, key, off), line, prio))
        return hits

    @staticmethod
    def _event_line(fr: _Frame, pos: int, rule: Rule, key: tuple[str, str], off: int) -> int:
        line_no = fr.line_no(pos)
        text, msg = key
        n_text = text.count("\n") + 1
        n_lines = fr.n_lines(pos)
        if n_lines is not None and n_lines != n_text:
            return line_no   # physical and logical lines differ: point at the event
        if rule.field == "message":
            if n_text == 1 or not msg:
                return line_no + off
            at = text.find(msg)
            return line_no + (text.count("\n", 0, at) if at >= 0 else 0) + off
        return line_no + off

    def _evidence(self, fired: list[_Hit], events: pd.DataFrame | None) -> list[dict]:
        best = fired[0]
        chosen: list[_Hit] = [best]
        seen = {best.text}
        for h in fired[1:]:
            if h.rule.category == best.rule.category and h.text not in seen:
                # a retry the job went on from ("Waiting peer start..." and then its steps) fired only because a
                # later failure followed: it supports nothing, and citing it sends a reader to the wrong line
                if h.rule.progress_survives and h.pos >= 0 and events is not None \
                        and progressed_after(events["message"], h.pos):
                    continue
                chosen.append(h)
                seen.add(h.text)
        out = [{"line": h.line, "text": h.text, "rule": h.rule.id} for h in chosen[:MAX_EVIDENCE]]
        contexts = ([(best.rule.ctx_rx, best.rule.context)] if best.rule.context else []) + \
            [(rx, (p,)) for rx, p in zip(best.rule.ctx_all_rx, best.rule.context_all)]
        for rx, patterns in contexts if events is not None and len(events) else ():
            if len(out) >= MAX_EVIDENCE:
                break
            ctx = _context_line(best, events, rx, patterns)
            if ctx is not None and ctx["text"] not in seen:
                out.insert(1, ctx)
                seen.add(ctx["text"])
        return out[:MAX_EVIDENCE]


def _strength(h: _Hit) -> tuple[int, int, int]:
    # the rule's own priority picks the winner; a weakened hit still beats latent warnings (it is
    # what the run died of), it only says its cause less firmly (the verdict's priority, its band)
    return (h.rule.priority, -h.pos, h.rule.order)


def _context_line(best: _Hit, events: pd.DataFrame, rx: _LazyRegex, patterns: Sequence[str]) -> dict | None:
    """The event matching a context pattern nearest before the winning event (else the first one after it)."""
    fr = _Frame(events)
    mask = _re2_mask(fr.arrow("text"), best.rule.re2(patterns))
    if mask is None:
        mask = np.array([rx.search(v) is not None for v in fr.all_values("text")], dtype=bool)
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return None
    before = idx[idx < best.pos]
    pos = int(before[-1]) if before.size else int(idx[0])
    value = fr.values_at("text", np.array([pos]))[0]
    m = rx.search(value)
    off, line = _line_of(value, m.start()) if m else (0, value)
    return {"line": fr.line_no(pos) + off, "text": _clip(line), "rule": best.rule.id}


def describe_meta(meta: Mapping[str, Any] | None) -> str:
    """The container facts a verdict may rest on, as a person reads them: "exit code 137, OOMKilled=true"."""
    meta = meta or {}
    code, oom = _norm_meta("exit_code", meta.get("exit_code")), _norm_meta("oom_killed", meta.get("oom_killed"))
    parts = [f"exit code {code}" if code is not None else "exit code unknown"]
    if oom is not None:
        parts.append(f"OOMKilled={'true' if oom else 'false'}")
    return ", ".join(parts)


_GPU_ALLOC = re.compile(r"Cannot allocate ([\d.]+)\s*([KMGT]?)i?B memory on GPU \d+, ([\d.]+)\s*([KMGT]?)i?B memory has "
                        r"been allocated and available memory is only ([\d.]+)\s*([KMGT]?)i?B")
_UNIT = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def request_beyond_device(text: str) -> bool:
    """Paddle's GPU allocator was asked, in one allocation, for more than twice what the device holds at all
    (allocated + available): no batch size makes that fit (a batch-size OOM asks for a fraction of it)."""
    m = _GPU_ALLOC.search(text)
    if m is None:
        return False
    req, held, free = (float(m.group(i)) * _UNIT[m.group(i + 1).upper()] for i in (1, 3, 5))
    return req > 2 * (held + free)


_TENSOR_VERSION = re.compile(r"but (\d+) found|received version:\s*(\d+)")


def pickle_read_as_tensor(text: str) -> bool:
    """The "version" a tensor reader found is a pickle's header (0x80, protocol 2-5: paddle.save's .pdparams
    read where a tensor stream, an inference .pdiparams, was expected)."""
    m = _TENSOR_VERSION.search(text)
    if m is None:
        return False
    head = int(m.group(1) or m.group(2)) & 0xFFFFFFFF
    return head & 0xFF == 0x80 and 2 <= (head >> 8) & 0xFF <= 5


# facts a rule may require of its matched event (`fact:` in rules.yaml)
FACTS = {"request_beyond_device": request_beyond_device, "pickle_read_as_tensor": pickle_read_as_tensor}


def innermost_frame(text: str) -> str:
    """Where the innermost Python traceback frame of an event lives: user | paddle | thirdparty |
    stdlib, or none when the event shows no frame."""
    frames = PY_FRAME.findall(text)
    if not frames:
        return "none"
    from pipeline.features import frame_location
    return frame_location(frames[-1])


# a paste that shows the shell's word on how the run ended: `echo $?` (or `echo "exit=$?"`, Windows cmd's
# `echo %errorlevel%`, PowerShell's `echo $LASTEXITCODE`), then the status
_STATUS_ASKED = re.compile(r'\becho\s+["\']?[\w ]{0,20}[=:]?\s*(?:\$\?|%errorlevel%|\$LASTEXITCODE)["\']?\s*$|'
                          r'^PS [^>\n]{1,200}>\s*\$LASTEXITCODE\s*$', re.I)   # PowerShell prints a variable typed alone
_STATUS_SAID = re.compile(r"^\s*(?:[\w ]{0,20}[=:]\s*)?(\d{1,3})\s*$")
SHELL_STATUS_EVENTS = 60   # the last events searched: the status closes the run it speaks of
_SHELL_KILLED = re.compile(r"^\s*(?:Killed|已杀死)\s*$")
# `$ ldconfig -p | grep nccl ; echo rc=$?`: the status of a look around (a listing, a search, a probe of a
# port), typed after the run to diagnose it, is not the run's. The command the status is of is the last of
# its pipe, seen through the wrappers that run it elsewhere (sudo, kubectl/docker exec, timeout, sh -c).
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_ECHO_STATUS = re.compile(r"(?:;|&&|\|\|)\s*echo\b[^;]*$")
_WRAPPER = re.compile(r"^(?:sudo\s+(?:-\S+\s+)*|time\s+|env\s+(?:\w+=\S*\s+)*|timeout\s+(?:-\S+\s+)*\d+\w?\s+|"
                      r"(?:kubectl|oc)\s.*?\bexec\b.*?\s--\s+|docker\s+exec\s+(?:-\S+\s+)*\S+\s+|"
                      r"(?:ba)?sh\s+-c\s+[\"']?)")
_PROBE_COMMAND = re.compile(r"^(?:ldconfig|grep|egrep|ls|ll|find|findmnt|mount|df|du|stat|test|\[|which|whereis|"
                            r"type|command|jobs|dpkg|rpm|apt|cat|head|tail|curl|wget|nc|ncat|ping|telnet|ss|"
                            r"netstat|nslookup|dig|getent|host|id|printenv|lsmod|modinfo|ldd|file|readlink|"
                            r"(?:echo\s*)?[<>]\s*/dev/tcp/|pip3? (?:list|show|freeze)|conda list)\b")   # bash's port probe


def _status_of_a_probe(line: str) -> bool:
    """The `echo $?` on this line reports a diagnostic command typed on the same line, not the run."""
    tail = _ECHO_STATUS.search(line)
    if not tail:
        return False
    command = re.split(r"[$#%>]\s", line[:tail.start()], maxsplit=1)[-1]
    quoted = _QUOTED.sub(lambda m: "_" * len(m.group()), command)    # a | inside a quoted pattern is no pipe
    command = command[quoted.rfind("|") + 1:].strip()
    for _ in range(4):
        command, n = _WRAPPER.subn("", command, count=1)
        if not n:
            break
    return bool(_PROBE_COMMAND.match(command.lstrip("\"'")))


# Slurm's word on a job: sacct's row of the job itself (State, ExitCode "code:signal") or srun's line
_SACCT_JOB = re.compile(r"^\s*\d+\s.*?\b(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_ME\+?|OUT_OF_MEMORY|NODE_FAIL|"
                        r"PREEMPTED)\b.*?\s(\d+):(\d+)(?=\s|$)")   # code:signal, not an Elapsed HH:MM:SS
_SRUN_EXITED = re.compile(r"srun: error: \S+: tasks? [\d,-]+: Exited with exit code (\d+)")
# the other tools' word on how the process ended: Kubernetes (kubectl describe's "Exit Code:", a container
# status' "exitCode"), paddle.distributed.launch's footer (behind a node's "[host] " or "host: " tag when
# pdsh or srun --label run it on several), and "<x> exited / finished with code|status N" (an
# IDE's "Process finished with exit code", an entrypoint script's, docker compose's, kubectl exec's,
# ModelArts' "Training end with return code: 1"), and
# `docker ps -a`'s status column ("Exited (137) 2 minutes ago"), a docker build's failed step (the classic
# builder's "returned a non-zero code: 1", BuildKit's "did not complete successfully: exit code: 1")
_TOOL_EXITED = re.compile(r'^\s*Exit Code:\s+(\d+)\s*$|"exitCode"\s*:\s*(\d+)|^(?:\[[\w.:-]+\]\s*|[\w.-]+:\s+)?(?:LAUNCH INFO\b.*?)?\bExit code (-?\d+)\s*$|'
                          r"\b(?:exited|terminated|finished|ended|end) with (?:exit |return )?(?:status|code)\s*[:=]?\s*(-?\d+)\b|"
                          r"\b(?:exited|terminated|finished|ended) with (-?\d+)\s*[.)]?\s*$|"   # a wrapper's "trainer exited with 0"
                          r"\bExited \((\d+)\) [\w ]{1,30}? ago\b|"
                          r"^The command .{1,400}. returned a non-zero code: (\d+)\s*$|did not complete successfully: exit code: (\d+)\s*$|"
                          # a CI runner's word on the job's script: GitLab's "Job failed: exit code 1", GitHub Actions'
                          r"\bJob failed: exit code (\d+)\s*$|\bProcess completed with exit code (\d+)\.?\s*$|"
                          # a wrapper script's banner: "==== batch_eval.sh finished <date>, exit code 0 ===="
                          r"^\s*(?:={3,}|-{3,}|#{3,}|\*{3,}).{0,160}\bexit (?:code|status)\s*[:=]?\s*(-?\d+)\s*(?:={3,}|-{3,}|#{3,}|\*{3,})\s*$|"
                          r"退出码\s*[:：=]?\s*(-?\d+)\s*$")   # a wrapper's or the job's own word, in Chinese
_CI_JOB_SUCCEEDED = re.compile(r"^\s*Job succeeded\s*$")   # GitLab's last line of a job whose script exited 0
# a wrapper script's own line on the status, alone on its line ("exit code: 0", "[attempt 2/3] exit code 0",
# "EXIT_CODE=1", "return code 0"); pip's "│ exit code: 1" of a build subprocess has its box in front, and
# /usr/bin/time's "Exit status: 0" is mostly a rerun's, timed to show its memory
_STATUS_LINE = re.compile(r"^\s*(?:\[[^\]\n]{1,30}\]\s*)?(?:exit|return)[ _-]?code\s*[:=]?\s*(-?\d+)\s*$", re.I)
# a wrapper's last word on what it ran: "[run.sh] done rc=0", "job finished, rc: 1" (a bare "rc=1" after a
# look-around's `echo rc=$?` is not the job's: a word of ending must come first)
_WRAPPER_RC = re.compile(r"\b(?:done|finished|exited|completed|ended)\b[^\n]{0,40}?\b(?:rc|returncode)\s*[:=]\s*(-?\d+)\s*$",
                         re.I)


# nvidia-smi's memory use of a GPU: its table's "23790MiB / 24576MiB", --query-gpu's CSV "24121 MiB, 24576 MiB"
_GPU_MEMORY_USE = re.compile(r"\b(\d+)\s?MiB\s*[/,]\s*(\d+)\s?MiB\b")
GPU_FULL_SHARE = 0.9


def gpu_memory_full(messages) -> bool:
    """nvidia-smi in the log shows a GPU with at least 90% of its memory in use: pasted beside an error
    at start-up (a library that cannot create its handle), another process holds that GPU."""
    for m in messages:
        if isinstance(m, str) and "MiB" in m:
            for used, total in _GPU_MEMORY_USE.findall(m):
                if int(total) >= 1024 and int(used) >= GPU_FULL_SHARE * int(total):
                    return True
    return False


# a progress line's figure of the device memory the job holds ("mem alloc 3.71G", "mem_alloc 7.90GB",
# "gpu mem allocated 2.54 GiB", "max_mem_allocated: 9120 MB"); not the host's (RSS, RAM, cpu mem), whose growth is a host-memory story
_JOB_MEMORY = re.compile(r"(?i)\b(?:max_mem_(?:allocated|reserved)|(?:gpu[ _]|device[ _]|cuda[ _])?mem(?:ory)?(?:[ _]alloc(?:ated)?"
                         r"|[ _]reserved|[ _]used|[ _]usage)?|allocated|reserved)\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(GiB|GB|G|MiB|MB|M)\b")
_HOST_MEMORY = re.compile(r"(?i)\b(?:rss|ram|host|cpu mem|system mem|virtual)\b")
MEMORY_GROWTH_LINES, MEMORY_GROWTH_FACTOR = 5, 2.0


def gpu_memory_grew(messages) -> bool:
    """The job's progress lines show the memory it holds growing at every report, at least MEMORY_GROWTH_LINES
    reports in a row, to MEMORY_GROWTH_FACTOR times or more: a fixed model and batch reach their level in the
    first steps and stay; steady growth is tensors the job keeps alive (a list it appends to every step)."""
    values = []
    for m in messages:
        if isinstance(m, str) and ("mem" in m or "alloc" in m or "reserved" in m) and not _HOST_MEMORY.search(m):
            hit = _JOB_MEMORY.search(m)
            if hit:
                values.append(float(hit.group(1)) * (1024 if hit.group(2)[0] == "G" else 1))
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] <= values[i - 1]:
            if i - start >= MEMORY_GROWTH_LINES and values[i - 1] >= MEMORY_GROWTH_FACTOR * values[start]:
                return True
            start = i
    return False


# a progress line's loss value ("loss: nan", "loss=0.4312", "loss: [inf]"); a count of such batches is no loss
_LOSS_VALUE = re.compile(r"(?i)\bloss\s*[:=]\s*\[?\s*(nan|[+-]?inf|[+-]?\d)")
NAN_LOSS_LINES = 3


def loss_stayed_nan(messages) -> bool:
    """The job's last NAN_LOSS_LINES progress lines that print a loss all print it as nan / inf: training
    diverged and never came back (loss scaling's skipped steps come back to a number)."""
    last = []
    for m in messages:
        if isinstance(m, str) and ("loss" in m or "Loss" in m or "LOSS" in m):
            hit = _LOSS_VALUE.search(m)
            if hit and PROGRESS.search(m):
                last = (last + [hit.group(1)[-3:].lower() in ("nan", "inf")])[-NAN_LOSS_LINES:]
    return len(last) == NAN_LOSS_LINES and all(last)


# the NVIDIA driver a log shows: nvidia-smi's table ("Driver Version: 470.82.01", "NVIDIA-SMI 470.82.01"), its
# --query-gpu CSV row after a GPU's name, a user's or a tool's "driver version: 470.x"
_DRIVER = re.compile(r"(?i)(?:Driver Version\s*[:=]?\s*|NVIDIA-SMI\s+|nvidia driver(?: version)?\s*[:=]?\s*"
                     r"|\b(?:NVIDIA|Tesla|Quadro|GeForce)\b[^,\n]*,\s*)(\d{3})\.\d+")
# the CUDA the Paddle build or image was made for: the image tag (cuda12.6-cudnn9.5, nvidia/cuda:12.0.1), the wheel's
# post126 / cu126, Paddle's device note's runtime, the image's toolkit path, "compiled with CUDA 12.0", the CUDA_VERSION
# the nvidia/cuda base images set; never nvidia-smi's "CUDA Version", the newest CUDA the driver supports
_BUILD_CUDA = re.compile(r"cuda(\d{1,2})\.(\d)-cudnn|nvidia/cuda:(\d{1,2})\.(\d)|\bpost(1[0-2]|[89])(\d)\b|\bcu(1[0-2])(\d)\b"
                         r"|Runtime API Version:\s*(\d{1,2})\.(\d)|/usr/local/cuda-(\d{1,2})\.(\d)"
                         r"|(?i:compiled with cuda)\s*[:=]?\s*(\d{1,2})\.(\d)|\bCUDA_VERSION[= ](\d{1,2})\.(\d)")
_FRAMEWORK = re.compile(r"(?i)(paddle)|\b(?:torch|pytorch|tensorflow|jax|jaxlib|cupy|mxnet|onnxruntime)\b")


def _other_frameworks(line: str, pos: int) -> bool:
    """The build named at ``pos`` is another framework's: the last framework the line names before it is not
    Paddle ("torch 1.12 cu113 works too" beside a Paddle question)."""
    last = None
    for m in _FRAMEWORK.finditer(line, 0, pos):
        last = m
    return last is not None and last.group(1) is None


# the oldest Linux driver each CUDA needs (NVIDIA's compatibility table, without the forward-compat package)
_MIN_DRIVER = {(12, None): 525, (11, None): 450, (10, 2): 440, (10, 1): 418, (10, 0): 410, (9, None): 384}


def driver_older_than_the_build(messages) -> bool:
    """The log shows an NVIDIA driver older than the CUDA of the Paddle build or image needs: driver 470 under a
    CUDA 12 image (525 at least), 418 under CUDA 11 (450). With several of either shown (a log from two
    machines, two images tried), the oldest driver against the oldest CUDA: the least the log says."""
    from pipeline.textops import re2_search
    texts = [m if isinstance(m, str) else "" for m in messages]
    drivers, builds = [], []
    # RE2 finds the few lines that say either over the whole log (Python's re scans these alternations at
    # every position: a second per 100k lines); Python's re then reads their numbers
    for m, driver, build in zip(texts, re2_search(texts, _DRIVER.pattern), re2_search(texts, _BUILD_CUDA.pattern)):
        if driver:
            drivers.extend(int(d) for d in _DRIVER.findall(m))
        if build:   # each hit fills the one pair of groups its form has
            builds.extend(next((int(a), int(b)) for a, b in zip(hit.groups()[0::2], hit.groups()[1::2]) if a)
                          for hit in _BUILD_CUDA.finditer(m) if not _other_frameworks(m, hit.start()))
    if not drivers or not builds:
        return False
    major, minor = min(builds)
    need = _MIN_DRIVER.get((major, minor), _MIN_DRIVER.get((major, None)))
    return need is not None and min(drivers) < need


# facts read from the whole log that a rule's ``meta`` may name
LOG_FACTS = {"gpu_memory_full": gpu_memory_full, "gpu_memory_grew": gpu_memory_grew, "loss_stayed_nan": loss_stayed_nan,
             "driver_older_than_the_build": driver_older_than_the_build}


def shell_status(messages) -> int | None:
    """The exit status a shell or Slurm printed for the run, the last one shown: `$ echo $?` then
    `0`, sacct's row of the job (COMPLETED 0:0; a signal N is 128+N, as a shell says it), srun's
    "Exited with exit code N", Kubernetes' exit code of the container, the launcher's footer or an IDE's,
    docker's (`docker ps -a`, a build's failed step), a CI runner's, a wrapper script's (also in Chinese)."""
    msgs = [m if isinstance(m, str) else "" for m in list(messages)[-SHELL_STATUS_EVENTS:]]
    for i in range(len(msgs) - 1, -1, -1):
        line = msgs[i]
        if ("$" in line or "%" in line) and i + 1 < len(msgs) and _STATUS_ASKED.search(line) \
                and not _status_of_a_probe(line):
            said = _STATUS_SAID.match(msgs[i + 1])
            if said:
                # the shell's "Killed" just before: the run died of SIGKILL, and a 0 is a pipe's last
                # command's (`python train.py | tee log`)
                if int(said.group(1)) == 0 and any(_SHELL_KILLED.match(m) for m in msgs[max(0, i - 3):i]):
                    return 137
                return int(said.group(1))
        if ":" in line:
            job = _SACCT_JOB.match(line)
            if job:
                state, code, sig = job.group(1), int(job.group(2)), int(job.group(3))
                if state.startswith("OUT_OF_ME"):
                    return 137     # the cgroup's OOM killer
                return 128 + sig if sig else code if code or state == "COMPLETED" else 1
            srun = _SRUN_EXITED.search(line)
            if srun:
                return int(srun.group(1))
        if _CI_JOB_SUCCEEDED.match(line):
            return 0
        low = line.lower()
        if "xit" in low or " with " in line or "return" in low or "退出码" in line or "rc" in low:
            tool = _TOOL_EXITED.search(line) or _STATUS_LINE.match(line) or _WRAPPER_RC.search(line)
            if tool and not _in_last_state(msgs, i):
                code = int(next(g for g in tool.groups() if g is not None))
                return 128 - code if code < 0 else code   # the launcher's -9 is a SIGKILL: 137
    return None


def _in_last_state(msgs: list[str], i: int) -> bool:
    """kubectl describe's "Exit Code:" at row i belongs to the "Last State:" block, a previous attempt (an
    OOMKilled restart, say), and the current "State:" block above it has an exit code of its own: the run
    ended as that says. (A waiting or running container's last termination is its latest end.)"""
    for j in range(i - 1, max(-1, i - 8), -1):
        head = msgs[j].lstrip()
        if head.startswith("State:"):
            return False
        if head.startswith("Last State:"):
            return any(m.lstrip().startswith("Exit Code:") for m in msgs[max(0, j - 6):j])
    return False


def with_shell_status(events, meta: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The run's metadata, with the exit status its shell or Slurm printed when the container gave none
    (a paste): what rules and features read as the run's exit code, at training and at prediction."""
    if meta and _norm_meta("exit_code", meta.get("exit_code")) is not None:
        return meta
    if events is None or "message" not in getattr(events, "columns", events) or not len(events["message"]):
        return meta
    code = shell_status(events["message"])
    return meta if code is None else {**(meta or {}), "exit_code": code}


def ignored_exception_rows(messages, kinds) -> frozenset[int]:
    """Rows of the exceptions Python ignored: "Exception ignored in: <function X.__del__>" or
    "--- Logging error ---", and the traceback after it. Raised in a destructor, at interpreter exit
    or inside a logging handler (a full /tmp under a FileHandler, a console that cannot encode the
    message), they are printed and never end a run: the logging module swallows its own errors."""
    msgs, kinds = list(messages), list(kinds)
    rows: set[int] = set()
    for i, m in enumerate(msgs):
        if isinstance(m, str) and ("Exception ignored" in m and m.lstrip().startswith("Exception ignored in")
                                   or m.strip() == "--- Logging error ---"):
            rows.add(i)
            kind = kinds[i + 1] if i + 1 < len(msgs) else None
            if kind in FAILURE_KINDS:
                rows.add(i + 1)
    return frozenset(rows)


def without_ignored(messages, kinds, levels=None) -> tuple[list, list | None]:
    """``kinds`` (and ``levels``) with Python's ignored exceptions read as plain warning lines."""
    kinds = list(kinds)
    rows = ignored_exception_rows(messages, kinds)
    if not rows:
        return kinds, None if levels is None else list(levels)
    levels = None if levels is None else list(levels)
    for i in rows:
        kinds[i] = "line"
        if levels is not None:
            levels[i] = "WARNING"
    return kinds, levels


def progressed_after(messages, pos: int) -> bool:
    """After the event at ``pos`` the job printed its progress, MIN_PROGRESS_AFTER times."""
    seen = 0
    for m in list(messages)[pos + 1:]:
        if isinstance(m, str) and PROGRESS.search(m):
            seen += 1
            if seen >= MIN_PROGRESS_AFTER:
                return True
    return False


def _went_on_after(fr: "_Frame", pos: int) -> bool:
    """After event ``pos``, and after every failure event that followed it, the job printed its progress: a
    second optional import's traceback at start-up is survived like the first when the service then serves."""
    kinds, _ = without_ignored(fr.series("message"), fr.series("kind"))
    last = next((i for i in range(len(kinds) - 1, pos, -1) if kinds[i] in FAILURE_KINDS), pos)
    return progressed_after(fr.series("message"), last)


def run_succeeded(events: pd.DataFrame | None, meta: Mapping[str, Any] | None) -> bool:
    """The run is known to have ended well: exit status 0, or (no status known) its last lines say
    so and no error follows."""
    meta = with_shell_status(events, meta)
    if meta:
        if _norm_meta("oom_killed", meta.get("oom_killed")) is True:
            return False
        code = _norm_meta("exit_code", meta.get("exit_code"))
        if isinstance(code, int):
            return code == 0
    if events is None or not len(events):
        return False
    msgs = list(events["message"]) if "message" in events.columns else []
    kinds = list(events["kind"]) if "kind" in events.columns else [None] * len(msgs)
    ignored = ignored_exception_rows(msgs, kinds)   # a destructor's exception at exit is no end of the run
    kept = [i for i in range(len(msgs)) if i not in ignored]
    first_failure = next((i for i in kept if kinds[i] in FAILURE_KINDS), len(msgs))
    for i in reversed([kept[j] for j in run_tail([msgs[i] for i in kept], SUCCESS_TAIL)]):
        m, kind = msgs[i], kinds[i]
        if kind in FAILURE_KINDS:   # a traceback after the last good word (its exception line maybe cut)
            return False
        if not isinstance(m, str):
            continue
        if ended_well(m, after_failure=i > first_failure):
            return True
        if _ENDS_FAILED.search(m):
            return False
    return False


def run_failed(events: pd.DataFrame | None, meta: Mapping[str, Any] | None) -> bool:
    meta = with_shell_status(events, meta)
    if meta:
        if _norm_meta("oom_killed", meta.get("oom_killed")) is True:
            return True
        code = _norm_meta("exit_code", meta.get("exit_code"))
        if isinstance(code, int):
            # the exit status is authoritative: a traceback in a run that exited 0 was survived
            return code != 0
    if events is None or not len(events):
        return False
    if run_succeeded(events, meta):   # its last lines say it did its work: an error before was survived
        return False
    msgs = list(events["message"]) if "message" in events.columns else []
    ignored = ignored_exception_rows(msgs, events["kind"]) if "kind" in events.columns else frozenset()
    if "kind" in events.columns and any(k in FAILURE_KINDS for i, k in enumerate(events["kind"]) if i not in ignored):
        return True
    if "level" in events.columns and any(v in FAILURE_LEVELS for v in events["level"]):
        return True
    # No exit status (a log handed over by hand, a paste): the log ending on an error says it
    # failed; a pasted error is often all the user kept of the run.
    kept = [msgs[i] for i in range(len(msgs)) if i not in ignored]
    tail = [m for m in kept[-TAIL_FOR_FAILURE:] if isinstance(m, str) and m.strip()]
    return any(_ENDS_FAILED.search(m) for m in tail)


# ------------------------------------------------------------------------------------- building


# libyaml's loader when present: the pure-Python one costs most of `logml predict`'s start-up.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(path: str | Path | None, loader: type = _YAML_LOADER) -> tuple[Any, str]:
    if path is None:
        from pipeline.taxonomy import package_text

        return yaml.load(package_text("rules.yaml"), Loader=loader), "pipeline/rules.yaml"
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=loader), str(path)


def _read_noting_duplicates(path: str | Path | None) -> tuple[Any, list[str]]:
    """The rules file as `_read` gives it, and the keys one of its mappings sets twice (YAML keeps the last
    silently), with their line. Pure-Python loading: for `check`, never on the prediction path."""
    found: list[str] = []

    class _Loader(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
        seen = set()
        for key_node, _value in node.value:
            key = loader.construct_object(key_node)
            if key in seen:
                found.append(f"{key!r} at line {key_node.start_mark.line + 1}")
            seen.add(key)
        return loader.construct_mapping(node)

    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    data, _source = _read(path, _Loader)
    return data, found


def _build(data: Any, validate: bool = True) -> tuple[list[Rule], list[str], str]:
    """Parse + compile; returns (rules, errors, version). Rules with errors are left out."""
    from pipeline.taxonomy import load_taxonomy

    errors: list[str] = []
    if not isinstance(data, Mapping) or not isinstance(data.get("rules"), list):
        return [], ["expected a mapping with a 'rules' list"], ""
    variables = _variables(data)
    taxonomy = load_taxonomy()
    rules: list[Rule] = []
    seen: set[str] = set()
    for order, spec in enumerate(data["rules"]):
        entry = _entry("rule", order, spec, _RULE_KEYS, errors)
        if entry is None:
            continue
        rid, where, errs = entry
        if not _ID_RE.match(rid):
            errs.append("id must be snake_case")
        if rid in seen:
            errs.append("duplicate id")
        seen.add(rid)
        cat = spec.get("category")
        if cat not in taxonomy:
            errs.append(f"unknown category {cat!r}")
        elif cat in NON_RULE_CATEGORIES:
            errs.append(f"category {cat!r} cannot be a rule's verdict")
        prio = spec.get("priority")
        if not isinstance(prio, int) or isinstance(prio, bool):
            errs.append("priority must be an integer")
        fld = spec.get("field", "text")
        if fld not in FIELDS:
            errs.append(f"field must be one of {FIELDS}")
        tail = spec.get("tail")
        if tail is not None and (not isinstance(tail, int) or tail < 1):
            errs.append("tail must be a positive integer")
        frame_spec = tuple(str(f) for f in _as_list(spec.get("frame")))
        bad_frames = [f for f in frame_spec if f not in FRAME_LOCATIONS]
        if bad_frames:
            errs.append(f"frame must be among {FRAME_LOCATIONS}, not {bad_frames}")
        fact_spec = tuple(str(f) for f in _as_list(spec.get("fact")))
        bad_facts = [f for f in fact_spec if f not in FACTS]
        if bad_facts:
            errs.append(f"fact must be among {sorted(FACTS)}, not {bad_facts}")
        meta_spec = spec.get("meta") or {}
        if not isinstance(meta_spec, Mapping):
            errs.append("meta must be a mapping")
            meta_spec = {}
        meta = tuple(
            (str(k), tuple(_norm_meta(str(k), v) for v in _as_list(val))) for k, val in meta_spec.items()
        )

        lists: dict[str, tuple[str, ...]] = {}
        for key in ("patterns", "require", "exclude", "context", "context_all", "unless", "unless_succeeded_with"):
            lists[key] = _patterns(key, spec.get(key), variables, errs)
        if not lists["patterns"] and not meta:
            errs.append("needs patterns or meta")
        weak_when, weak_priority = _weaker(spec.get("weaker"), prio, variables, errs)
        lists["weaker"] = weak_when
        case_sensitive = bool(spec.get("case_sensitive", False))
        flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
        compiled: dict[str, Any] = {}
        for key, patterns in lists.items() if validate else ():
            for p in patterns:
                try:
                    re.compile(p, flags)
                except re.error as exc:
                    errs.append(f"{key}: bad regex {p!r}: {exc}")
        if errs:
            errors.extend(f"{where}: {e}" for e in errs)
            continue
        compiled["rx"] = _any_rx(lists["patterns"], flags)
        compiled["exc_rx"] = _any_rx(lists["exclude"], flags)
        compiled["ctx_rx"] = _any_rx(lists["context"], flags)
        compiled["ctx_all_rx"] = tuple(_any_rx([p], flags) for p in lists["context_all"])
        compiled["unless_rx"] = _any_rx(lists["unless"], flags)
        compiled["succeeded_with_rx"] = _any_rx(lists["unless_succeeded_with"], flags)
        compiled["req_rx"] = tuple(_LazyRegex(p, flags) for p in lists["require"])
        compiled["weak_rx"] = _any_rx(weak_when, flags)
        rules.append(
            Rule(
                id=rid, category=str(cat), priority=int(prio), order=order,
                patterns=lists["patterns"], field=fld, require=lists["require"],
                exclude=lists["exclude"], context=lists["context"], context_all=lists["context_all"],
                unless=lists["unless"],
                tail=tail, needs_failure=bool(spec.get("needs_failure", False)),
                unless_succeeded=bool(spec.get("unless_succeeded", False)),
                consequence=bool(spec.get("consequence", False)),
                progress_survives=bool(spec.get("progress_survives", False)),
                unless_succeeded_with=lists["unless_succeeded_with"], frame=frame_spec, fact=fact_spec, meta=meta,
                case_sensitive=case_sensitive,
                examples=tuple(_as_list(spec.get("examples"))),
                counter_examples=tuple(_as_list(spec.get("counter_examples"))),
                description=str(spec.get("description", "")),
                weak_when=weak_when, weak_priority=weak_priority,
                **compiled,
            )
        )
    return rules, errors, str(data.get("version", ""))


def _entry(kind: str, n: int, spec: Any, keys: set[str], errors: list[str]) -> tuple[str, str, list[str]] | None:
    """(id, where to say an error is, the entry's errors so far) of the n-th rule or remedy of rules.yaml;
    None (its error appended) when it is not a mapping."""
    if not isinstance(spec, Mapping):
        errors.append(f"{kind} #{n}: not a mapping")
        return None
    rid = str(spec.get("id", ""))
    errs = [f"unknown keys {sorted(set(spec) - keys)}"] if set(spec) - keys else []
    return rid, f"{kind} {rid or '#' + str(n)}", errs


class _Lines:
    """A log's messages for the remedies' searches: made an Arrow string array once (on the first
    search), however many remedies look at it."""

    def __init__(self, messages: Sequence[str | None]) -> None:
        self.messages, self._arrow = messages, None

    def first(self, patterns: Sequence[str]) -> int | None:
        """Index of the first message one of ``patterns`` matches (case-insensitive), in RE2 over all
        of them at once; Python ``re`` where pyarrow or RE2 cannot."""
        if not len(self.messages) or not patterns:
            return None
        pattern = "|".join(f"(?:{p})" for p in patterns)
        try:
            import pyarrow.compute as pc

            from pipeline.textops import arrow_strings
            if self._arrow is None:
                self._arrow = arrow_strings(self.messages)
            # (pc.index would import pandas: half a second of a cold predict)
            hits = pc.indices_nonzero(pc.match_substring_regex(self._arrow, pattern, ignore_case=True))
            return hits[0].as_py() if len(hits) else None
        except (ImportError, ValueError, NotImplementedError):
            rx = re.compile(pattern, re.IGNORECASE)
            return next((i for i, m in enumerate(self.messages) if m and rx.search(m)), None)


def _variables(data: Any) -> dict[str, str]:
    """rules.yaml's ``vars``, each expanded: a var may use the vars defined above it."""
    out: dict[str, str] = {}
    for k, v in ((data.get("vars") or {}) if isinstance(data, Mapping) else {}).items():
        try:
            out[str(k)] = _expand(str(v), out)
        except KeyError as e:
            raise ValueError(f"invalid rules: var {k} uses ${{{e.args[0]}}}, which is not defined above it") from None
    return out


_REMEDY_KEYS = {"id", "category", "when", "remedy", "description", "decides", "overrides", "unless", "context"}


def _build_remedies(data: Any) -> tuple[list[Remedy], list[str]]:
    """rules.yaml's ``remedies``: (remedies, errors). Any taxonomy id may have them, ``unknown``
    too (a GPU that failed under the job has no cause in the taxonomy, but a remedy)."""
    from pipeline.taxonomy import load_taxonomy

    if not isinstance(data, Mapping):
        return [], []
    variables = _variables(data)
    taxonomy = load_taxonomy()
    out: list[Remedy] = []
    errors: list[str] = []
    seen: set[str] = set()
    for n, spec in enumerate(_as_list(data.get("remedies"))):
        entry = _entry("remedy", n, spec, _REMEDY_KEYS, errors)
        if entry is None:
            continue
        rid, where, errs = entry
        if not _ID_RE.match(rid) or rid in seen:
            errs.append("id must be snake_case and unique")
        seen.add(rid)
        if spec.get("category") not in taxonomy:
            errs.append(f"unknown category {spec.get('category')!r}")
        text = " ".join(str(spec.get("remedy") or "").split())
        if not text:
            errs.append("needs a remedy")
        when = _patterns("when", spec.get("when"), variables, errs)
        if not when:
            errs.append("needs when (patterns)")
        rx = None
        try:
            rx = re.compile("|".join(f"(?:{p})" for p in when), re.IGNORECASE | re.MULTILINE) if when else None
        except re.error as exc:
            errs.append(f"when: bad regex: {exc}")
        decides = bool(spec.get("decides", False))
        if decides and spec.get("category") != "unknown":
            errs.append("only a remedy of unknown decides the verdict (a category's are the rules' work)")
        overrides = tuple(str(c) for c in _as_list(spec.get("overrides")))
        if [c for c in overrides if c not in taxonomy or c in NON_RULE_CATEGORIES]:
            errs.append(f"overrides must be failure categories, not {overrides}")
        unless = _patterns("unless", spec.get("unless"), variables, errs)
        context = _patterns("context", spec.get("context"), variables, errs)
        if (overrides or unless) and not decides:
            errs.append("overrides and unless are for a remedy that decides")
        try:   # searched in RE2, or in Python re where RE2 cannot (rules.check insists on both)
            re.compile("|".join(f"(?:{p})" for p in unless), re.IGNORECASE)
        except re.error as exc:
            errs.append(f"unless: bad regex: {exc}")
        if errs:
            errors.extend(f"{where}: {e}" for e in errs)
            continue
        out.append(Remedy(id=rid, category=str(spec["category"]), when=when, remedy=text,
                          description=str(spec.get("description", "")), decides=decides, overrides=overrides,
                          unless=unless, context=context, rx=rx))
    return out, errors


def _weaker(spec: Any, priority: Any, variables: Mapping[str, str], errs: list[str]) -> tuple[tuple[str, ...], int | None]:
    """``weaker: {when: [patterns], priority: N}``: (the patterns, N), errors appended to ``errs``."""
    if spec is None:
        return (), None
    if not isinstance(spec, Mapping) or set(spec) != {"when", "priority"}:
        errs.append("weaker must be a mapping of 'when' (patterns) and 'priority'")
        return (), None
    weak = spec["priority"]
    if not isinstance(weak, int) or isinstance(weak, bool) or (isinstance(priority, int) and weak <= priority):
        errs.append("weaker.priority must be an integer above the rule's priority")
        return (), None
    when = _patterns("weaker.when", spec["when"], variables, errs)
    if not when:
        errs.append("weaker.when needs patterns")
    return when, weak


def _patterns(key: str, raw: Any, variables: Mapping[str, str], errs: list[str]) -> tuple[str, ...]:
    """A rule's list of regexes under ``key``, its ``${VAR}``s expanded (errors appended to ``errs``)."""
    out = []
    for p in _as_list(raw):
        if not isinstance(p, str) or not p:
            errs.append(f"{key}: not a non-empty string: {p!r}")
            continue
        try:
            out.append(_expand(p, variables))
        except KeyError as exc:
            errs.append(f"{key}: unknown var ${{{exc.args[0]}}} in {p!r}")
    return tuple(out)


# ------------------------------------------------------------------------------------- check


def events_from_lines(lines: Iterable[str]) -> pd.DataFrame:
    """A minimal event frame, one event per string (a multi-line string is one block event).

    Independent of ``pipeline.normalize`` on purpose: examples are checked as the rules see them
    (no level, kind guessed from the block's shape), so a rule cannot lean on the normaliser.
    """
    rows = []
    line_no = 1
    for s in lines:
        s = str(s)
        parts = s.split("\n")
        if "Traceback (most recent call last)" in s:
            kind = "py_traceback"
        elif "C++ Traceback" in s or "C++ Call Stacks" in s:
            kind = "cpp_traceback"
        elif "Error Message Summary" in s:
            kind = "error_summary"
        else:
            kind = "line"
        if kind == "py_traceback":
            message = next((p for p in reversed(parts) if p.strip()), parts[0])
        else:
            message = parts[0]
        rows.append({
            "line_no": line_no, "n_lines": len(parts), "ts": None, "stream": None, "level": None,
            "kind": kind, "message": message, "text": s,
        })
        line_no += len(parts)
    import pandas as pd
    return pd.DataFrame(rows, columns=["line_no", "n_lines", "ts", "stream", "level", "kind", "message", "text"])


def _example_lines(example: Any) -> list[str]:
    return [str(x) for x in example] if isinstance(example, (list, tuple)) else [str(example)]


_NUMBERED_BACKREF = re.compile(r"(?<!\\)(?:\\\\)*\\[1-9]")


def check(path: str | Path | None = None) -> list[str]:
    """Validate a rules file; returns human-readable errors ([] when the file is fine).

    Checks: structure, ids (snake_case, unique), categories vs the taxonomy, regexes (Python and
    RE2), vars; every example, matched alone as the log of a failed run (exit code 1), gives the
    rule's category as the verdict and fires the rule; no counter-example fires the rule;
    the combined prefilter compiles in RE2.
    """
    try:
        data, duplicates = _read_noting_duplicates(path)
    except (OSError, yaml.YAMLError) as exc:
        return [f"cannot read rules: {exc}"]
    rules, errors, _version = _build(data)
    remedies, remedy_errors = _build_remedies(data)
    errors += remedy_errors
    for r in remedies:   # a deciding remedy is searched over the whole log with RE2
        for key in ("when", "unless", "context"):
            patterns = getattr(r, key)
            searched = r.decides or r.category == "unknown" or key == "context"   # over the whole log, in RE2
            err = re2_error("(?i:" + "|".join(f"(?:{p})" for p in patterns) + ")") if searched and patterns else None
            if err:
                errors.append(f"remedy {r.id}: {key}: not RE2-compatible: {err}")
    errors += [f"a key set twice in one mapping (YAML keeps the last silently): {d}" for d in duplicates]
    if errors and not rules:
        return errors
    rs = RuleSet(rules)
    for r in rules:
        for key in ("patterns", "exclude", "context", "unless", "unless_succeeded_with"):   # `require`: one by one
            if len(getattr(r, key)) > 1 and any(_NUMBERED_BACKREF.search(p) for p in getattr(r, key)):
                # these lists are joined into one regex: \1 would name the first pattern's group
                errors.append(f"rule {r.id}: {key}: a numbered backreference in a list of patterns; "
                              "use a named group, (?P<name>...) and (?P=name)")
        for p in r.patterns:
            lits = required_literals(p, r.case_sensitive)
            if lits is None or min(_weight(x) for x in lits) < MIN_KEYWORD_WEIGHT:
                errors.append(
                    f"rule {r.id}: pattern {p!r} has no selective required literal "
                    f"(found {sorted(lits) if lits else None}); the keyword prefilter needs one"
                )
        for key in ("context", "context_all", "unless", "unless_succeeded_with"):  # searched over the whole log with RE2
            for p in getattr(r, key):
                err = re2_error(f"(?{r.re2_flags}:{p})")
                if err:
                    errors.append(f"rule {r.id}: {key}: not RE2-compatible {p!r}: {err}")
    for chunk in rs._prefilter:
        err = re2_error(chunk)
        if err:
            errors.append(f"keyword prefilter does not compile in RE2: {err}")
    failed = {"exit_code": 1}
    for r in rules:
        if r.rx is not None and not r.examples:
            errors.append(f"rule {r.id}: has no examples")
        for ex in r.examples:
            v = rs.match(events_from_lines(_example_lines(ex)), failed)
            shown = _example_lines(ex)[-1][:100]
            if v is None:
                errors.append(f"rule {r.id}: example gives no verdict: {shown!r}")
            elif v.category != r.category:
                errors.append(f"rule {r.id}: example gives {v.category} (rule {v.rule_id}), not {r.category}: {shown!r}")
            elif r.id not in v.hits:
                errors.append(f"rule {r.id}: example does not fire the rule (verdict by {v.rule_id}): {shown!r}")
        for ex in r.counter_examples:
            hits = rs.hits(events_from_lines(_example_lines(ex)), failed)
            if r.id in hits:
                errors.append(f"rule {r.id}: counter-example fires it: {_example_lines(ex)[-1][:100]!r}")
    return errors


@lru_cache(maxsize=1)
def load_rules() -> RuleSet:
    """The packaged rules, loaded once per process."""
    return RuleSet.load()
