"""Per-run features: the failure-relevant text of a run, its last error, its context, its rule hits.

A run becomes one small record (`RunFeatures`):
  doc      the lines that can explain a failure (errors, tracebacks, summary blocks, warnings that
           name a cause, and the last lines before the run ended)
  focus    the error the run died of: the last error event (its exception line, its innermost
           frames) and the log's last lines, so the final error weighs more than earlier warnings
  context  tokens for what disambiguates look-alike errors: the Paddle generation, the deployment
           kind (training, Paddle Inference, Paddle-Lite, serving, a source build), whether a GPU or a
           driver was seen at all, the shape of the failure, where the failing frame lives (the job's
           own files, Paddle, a third-party package), the exception class
  rules    ids of the rules that fired
  meta     exit code / OOMKilled tokens
The model turns these into TF-IDF n-grams and one-hot tokens; keeping the record plain (no pandas)
lets `logml predict` build it without importing pandas or scikit-learn.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pipeline.rules import (
    FAILURE_KINDS,
    PY_FRAME,
    ended_well,
    load_rules,
    progressed_after,
    run_tail,
    with_shell_status,
    without_ignored,
)

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

# Signs that a log comes from an ML job at all: the framework, its devices, Python, model files.
# A log of some length with none of them (a web server, a database, a node's syslog, another
# system's daemon) is outside what logml's categories describe, whatever its words resemble.
ML_STACK = re.compile(
    r"(?i)paddle|fluid|\bcuda|cudnn|cublas|nccl|\bgpu|nvidia|python|\.py\b|traceback|tensor|numpy|\bpip\b|conda|"
    r"\bimport\b|torch|predictor|\.pd(?:model|params|iparams)\b|\binference\b|dataloader|\bepoch\b|phi::|"
    r"lib\w+\.so|\.so\.\d|\bdll\b|site-packages|onnx|tensorrt|\bmodel\b|\btrain(?:ing|er)?\b|\bloss\b|batch_size|"
    r"learning.rate|\bckpt\b|optimi[sz]er|\bbackward\b|\baccuracy\b|Average (?:Precision|Recall)|\bmAP\b|飞桨|模型|训练"
)
FOREIGN_MIN_EVENTS = 16   # a short paste may be an ML job's last lines: only a longer log is judged foreign
HEAD_EVENTS = 200         # and its first events, where banners and the command line are

# What the classifier reads is the log's *shape*: the variable parts a user's machine puts in a line
# (paths up to site-packages, other directories, long numbers, addresses, times) are masked the way
# the real issue-thread cases were collected, so a rendered case, a captured run and a user's raw paste
# look alike, and the model learns the constant text (error classes, Paddle's messages, module paths)
# instead of one machine's numbers. Short numbers stay: error codes and versions carry the signal.
_SHAPE_RULES = tuple((re.compile(p), r) for p, r in (
    # a notebook cell is the job's own file whatever IPython calls it ("<ipython-input-4-9c1f..>", "Cell In[4]");
    # its words ("input") must not read like an error about an op's Input
    (r"<ipython-input-\d+-[0-9a-fA-F]+>|\bCell In\s*\[\d*\]", "<CELL>"),
    (r"\b(?:https?|ftp)://\S+", "<URL>"),
    (r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b", "<EMAIL>"),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<UUID>"),
    (r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b", "<IP>"),
    (r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{12,}\b", "<HEX>"),
    (r"\b\d{4}[-/]\d{1,2}[-/]\d{1,2}\b", "<DATE>"),
    (r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b", "<TIME>"),
    (r"(?:[A-Za-z]:)?[\w.~-]*(?:[\\/][\w.~ -]+?)*[\\/](?:site|dist)-packages[\\/]", "<SITE>/"),
    (r"(?<![\w<>])(?:[A-Za-z]:|\.{1,2}|~)?(?:[\\/][\w.~-]+)+[\\/](?=[\w.-]+)", "<DIR>/"),
    (r"\b\d{4,}\b", "<N>"),
))


def shape_text(text: str) -> str:
    """The text with its machine-specific parts masked (see _SHAPE_RULES)."""
    for rx, repl in _SHAPE_RULES:
        text = rx.sub(repl, text)
    return text


@dataclass
class RunFeatures:
    doc: str                # failure-relevant text, in log order, newest kept when capped
    rules: str              # ids of the rules that fired, space-separated ("" when none)
    meta: str               # exit/OOM tokens, e.g. "exit_137 oom_killed"
    evidence_lines: list[int]
    focus: str = ""         # the last error event and the last lines
    context: str = ""       # context tokens, e.g. "gen_fluid deploy_infer gpu_seen frame_user exc_keyerror"
    focus_lines: list[int] = field(default_factory=list)   # line numbers of the focus events
    foreign: bool = False   # a log of some length with no sign of an ML job (ML_STACK): not a model input
    known_failed: bool = False   # its metadata or last lines say it failed (said_failed): never `no_failure`

    @property
    def ended_well(self) -> bool:
        """Its exit status (exit_0) or its last lines (the ended_well token) say it ended well."""
        return "ended_well" in self.context.split() or "exit_0" in self.meta.split()

    @property
    def exited_clean(self) -> bool:
        """Its exit status is 0 (exit_0): whatever error it printed, it went on from (error_survived)."""
        return "exit_0" in self.meta.split()

    def record(self) -> dict[str, str]:
        """The text columns the classifier reads (model.frame builds the same for training)."""
        return {"doc": self.doc, "focus": self.focus, "context": self.context, "rules": self.rules, "meta": self.meta}


def meta_tokens(meta: Mapping | None) -> str:
    meta = meta or {}
    tokens = []
    code = exit_code(meta)
    if code is None:
        tokens.append("exit_unknown")
    else:
        tokens.append(f"exit_{code}" if code in (0, 1, 2, 134, 137, 139, 143) else "exit_other")
    if meta.get("oom_killed") is True:
        tokens.append("oom_killed")
    return " ".join(tokens)


def exit_code(meta: Mapping | None) -> int | None:
    code = (meta or {}).get("exit_code")
    return int(code) if code is not None and code == code else None   # NaN: unknown


def said_failed(messages: Sequence[str], meta: Mapping | None) -> bool:
    """The container's metadata (a non-zero exit, OOMKilled) or the log's last lines (a launcher's
    "exit code 1") say the run failed, whatever its text looks like."""
    code = exit_code(meta)
    n = len(messages)
    return (meta or {}).get("oom_killed") is True or (code is not None and code != 0) \
        or any(_FAILED_EXIT.search(messages[i] or "") for i in range(max(0, n - 2), n))


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
    messages = [m if isinstance(m, str) else "" for m in events["message"]]
    texts = [t if isinstance(t, str) else m for t, m in zip(list(events["text"]), messages)]
    meta = with_shell_status(events, meta)
    keep = relevant_indices(list(events["level"]), list(events["kind"]), messages)
    parts, size = [], 0
    for i in reversed(keep):  # newest first so the cap drops the oldest lines
        text = texts[i] or ""
        if size + len(text) > MAX_CHARS:
            break
        parts.append(text)
        size += len(text) + 1
    line_nos = list(events["line_no"])
    levels, kinds = list(events["level"]), list(events["kind"])
    known_failed = said_failed(messages, meta)
    focus, context, focus_lines = focus_and_context(levels, kinds, messages, texts, line_nos, keep, meta, known_failed)
    doc = "\n".join(reversed(parts))
    foreign = (len(messages) >= FOREIGN_MIN_EVENTS and not ML_STACK.search(doc) and not ML_STACK.search(focus)
               and not ML_STACK.search("\n".join(texts[:HEAD_EVENTS])))
    return RunFeatures(doc=shape_text(doc), rules=" ".join(rule_hits), meta=meta_tokens(meta),
                       evidence_lines=[int(line_nos[i]) for i in keep], focus=shape_text(focus), context=context,
                       focus_lines=focus_lines, foreign=foreign, known_failed=known_failed)


# ----------------------------------------------------------------------------- context and focus

# Context facts: (token, pattern searched over the run's relevant text). Families, not cases: each
# names a kind of environment or failure shape that changes what an error line means.
CONTEXT_PATTERNS: tuple[tuple[str, str], ...] = (
    # Paddle generation
    ("gen_v1", r"Util\.cpp:\d+\] commandline|GradientMachine|paddle_trainer|paddle_pserver|hl_\w+\.(?:cc|cuh)|"
               r"LightNetwork\.cpp|paddle\.v2\b"),
    ("gen_fluid", r"paddle\.fluid|paddle/fluid/|EnforceNotMet|PaddlePaddle Call Stacks|Enforce failed|"
                  r"PaddleCheckError|core_avx|\bfluid\.|C\+\+ Call Stacks"),
    ("gen_2x", r"Error Message Summary|\[Hint: |phi::|paddle/phi/|C\+\+ Traceback|\((?:InvalidArgument|NotFound|"
               r"PreconditionNotMet|ResourceExhausted|External|Unavailable|Unimplemented|Fatal|OutOfRange|"
               r"AlreadyExists|PermissionDenied)\)"),
    # (paddle/base/ is 2.6 as much as 3.x: fluid was renamed base in 2.6)
    ("gen_3x", r"pir_interpreter|\bpir\b|\bPIR\b|(?:inference|model)\.json\b|_pir_ops|paddlex|paddleocr/_pipelines"),
    # deployment kind
    ("deploy_lite", r"Paddle-?Lite|paddle_lite|naive_buffer|\.nb\b|MobileConfig|paddle_light_api|"
                    r"version of opt|cxx_api\.cc|light_api|model_parser\.cc|RuntimeProgram|NDK|android|"
                    r"arm(?:v7|v8|64)|\bA/libc"),
    ("deploy_infer", r"analysis_predictor|AnalysisConfig|AnalysisPredictor|paddle_infer|create_predictor|"
                     r"CreatePaddlePredictor|NativePaddlePredictor|paddle_inference|inference\.pdmodel|"
                     r"EnableGpu|ZeroCopy|zero_copy|fastdeploy|Paddle2ONNX|TensorRT|predict_system|"
                     r"predictor\.run|infer\.py|load_inference_model"),
    ("deploy_serving", r"paddle_serving|web_service|PipelineServer|uvicorn|gunicorn|HTTP/1\.[01]\"|"
                       r"POST /|serving_server"),
    ("deploy_build", r"Building CXX object|\bcmake\b|\[\s*\d+%\] (?:Building|Linking|Built)|cc1plus|"
                     r"make\[\d+\]|setup\.py (?:build|install)|gcc: |g\+\+: "),
    ("deploy_distributed", r"paddle\.distributed|fleet|launch_utils|LAUNCH INFO|init_parallel_env|"
                           r"NCCL|nccl|gloo|BKCL|pserver|trainer_id|PADDLE_TRAINER|workerlog|brpc|grpc"),
    # (no notebook token: where a job runs from does not cause its failure, and the few real notebook
    # pastes, mostly GPU faults, taught it a bias: 0.06 of confidence moved by IPython's framing alone)
    ("os_windows", r"[A-Z]:\\\\|\.dll\b|\.pyd\b|Windows|Anaconda3\\\\|\\\\site-packages"),
    ("os_mac", r"Mac OS|darwin|DYLD_|\bM1\b|arm64-apple"),
    # devices the run saw
    ("gpu_seen", r"GPU Compute Capability|CUDA Capability|cuDNN Version|Place\(gpu|CUDAPlace\(\d|NVIDIA-SMI|"
                 r"GPU \d+: |gpu:\d|Found \d+ GPUs?|works well on \d+ GPU|"
                 r"nvidia\.com/gpu\.(?:present=true|count=[1-9])"),   # a node's GPU feature discovery labels
    ("driver_seen", r"Driver API Version|Driver Version|CUDA Version|Nvidia driver version|nvidia\.com/cuda\.driver"),
    ("no_gpu", r"no CUDA-capable device|no GPU found|not compiled with CUDA|CPU device will be used|"
               r"compiled without CUDA|GPU count is: 0|GetCUDADeviceCount\(\):0|no NVIDIA driver|"
               r"NVIDIA Driver was not detected|is_compiled_with_cuda\(\)\s*(?:False|->\s*False)|"
               r"cpu version|paddlepaddle cpu|Please compile with gpu"),
    ("cpu_run", r"use_gpu\s*[=:]\s*(?:0|False|false)|--device[= ]cpu|device\s*[=:]\s*'?cpu|CPUPlace|"
                r"set_device\('cpu'\)|on CPU|CPU only|only CPU"),
    ("xpu_npu", r"\bXPU\b|\bxpu\b|BKCL|Kunlun|\bNPU\b|\bnpu\b|Ascend|custom_device|\bMLU\b|\bDCU\b|ROCm|\bHIP\b|\bhip[A-Z]\w*"),
    # failure shape
    ("signal_seen", r"SIGSEGV|SIGABRT|SIGBUS|SIGFPE|SIGILL|Segmentation fault|Aborted|core dumped|"
                    r"Illegal instruction|Bus error|Fatal signal|signal \d+"),
    ("glog_fatal", r"^F\d{4} |Check failed|\*\*\* Check failure stack trace"),
    ("warn_only", r"^W\d{4} |WARNING|UserWarning|DeprecationWarning"),
    ("dataloader", r"DataLoader|dataloader|reader thread|use_shared_memory|num_workers|worker \(pid"),
    ("loading_model", r"load_inference_model|paddle\.load|jit\.load|set_state_dict|set_dict|load_params|"
                      r"from_pretrained|pretrained|\.pdparams|\.pdmodel|__model__|model_dir|\.pdiparams"),
    ("saving_model", r"paddle\.save|jit\.save|save_inference_model|save_model|save_checkpoint|fluid\.save"),
    # (not a bare "in <module>": every script's top frame says it)
    ("import_time", r"^\s*import |^\s*from [\w.]+ import |__init__\.py\", line \d+, in <module>"),
    ("install_check", r"run_check|install_check|Running verify|Running Verify"),
    ("cjk", r"[\u4e00-\u9fff]"),
    # a native crash pasted as its debugger backtrace or memory map: no error word, the dump says it
    ("native_dump", r"^#\d+\s+(?:0x[0-9a-f]+ in |<HEX>)|^\s*at [^\s]+\.(?:cpp|cc|h|c):\d+|^[0-9a-f]{6,}-[0-9a-f]{6,} r[w-][x-]p |"
                    r"\.so[.\d]*\(\+0x[0-9a-f]+\)\[0x"),
)
_FAILED_EXIT = re.compile(r"(?i)exit(?:ed)? (?:with )?(?:code|status):? *-?[1-9]\d*\b|Exited \([1-9]\d*\)")
_CONTEXT_RX = tuple((tok, re.compile(pat, re.M)) for tok, pat in CONTEXT_PATTERNS)
# facts that rules.yaml's vars define, read by the rules and as context tokens here: a GPU that failed under
# the job (its errors after it are consequences), a job the scheduler or the platform ended (a job that was
# working when it came is no bug of its own; a hang it ended is)
VAR_TOKENS = (("gpu_failed", "GPU_LOST"), ("sched_ended", "SCHEDULER_DEADLINE"))


@lru_cache(maxsize=1)
def _var_rx() -> tuple:
    found = load_rules().vars
    return tuple((tok, re.compile(found[name], re.M | re.I)) for tok, name in VAR_TOKENS if name in found)
_IPY_FRAME = re.compile(r"^(\S+\.py) in \S+\(", re.M)
_SITE = re.compile(r"(?:site|dist)-packages[\\/]+([\w.-]+)")
_EXC = re.compile(r"^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|NotMet|Warning|Exit|Interrupt)|MemoryError|KeyError|"
                  r"StopIteration)\b(?=[:\s]|$)", re.M)
_PADDLE_ERR = re.compile(r"\((InvalidArgument|NotFound|PreconditionNotMet|ResourceExhausted|External|Unavailable|"
                         r"Unimplemented|Fatal|OutOfRange|AlreadyExists|PermissionDenied|ExecutionTimeout|"
                         r"Unauthenticated)\)|\b(InvalidArgument|NotFound|PreconditionNotMet|ResourceExhausted|"
                         r"External|Unavailable|Unimplemented|Fatal|OutOfRange|PermissionDenied)Error\b")
_STDLIB = ("/lib/python", "\\lib\\", "threading.py", "multiprocessing", "<frozen", "runpy.py", "socket.py",
           "subprocess.py", "<string>", "<stdin>")
ERRORISH = re.compile(r"(?i)error|exception|traceback|fatal|failed|failure|killed|abort|segmentation|core dumped|"
                      r"cannot|can't|could not|unable|not found|no such|does not exist|refused|timed? ?out|"
                      r"not supported|insufficient|错误|失败|异常|无法")
FOCUS_CHARS = 1500
CONTEXT_SCAN = 200       # the first events of a run: banners, device lines, the command line
CONTEXT_RELEVANT = 400   # and its last failure-relevant events (bounded: a 1 GB log stays fast)


_API_VERSIONS = re.compile(r"Driver API Version: (\d+)\.(\d+), Runtime API Version: (\d+)\.(\d+)")
_CC = re.compile(r"(?:GPU Compute Capability|CUDA Capability): (\d+)\.?(\d)?")
_SMI_MEMORY = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")


def version_facts(blob: str) -> list[str]:
    """Facts Paddle prints at device init that regexes cannot compare: the host driver older than
    the CUDA runtime Paddle was built with (then CUDA errors mean cuda_driver_too_old), and the GPU's
    generation (a very old compute capability is where dropped architectures live; a new one is
    a mismatch only beside a CUDA runtime older than the GPU: a healthy H100 must not read as one), and a GPU
    whose memory nvidia-smi shows all but used."""
    out = []
    runtime = None
    m = _API_VERSIONS.search(blob)
    if m:
        driver, runtime = (int(m.group(1)), int(m.group(2))), (int(m.group(3)), int(m.group(4)))
        out.append("driver_older_than_runtime" if driver < runtime else "driver_covers_runtime")
    c = _CC.search(blob)
    if c:   # "GPU Compute Capability: 8.6" (2.x) or "CUDA Capability: 75" (1.x)
        cc = int(c.group(1)) if c.group(2) is None else int(c.group(1)) * 10 + int(c.group(2))
        if cc < 60:
            out.append("cc_old")
        elif runtime is None:
            out.append("cc_new" if cc >= 90 else "cc_mid")
        else:   # the first CUDA that builds for Ampere (11.0), Hopper (11.8), Blackwell (12.8)
            first = (12, 8) if cc >= 100 else (11, 8) if cc >= 90 else (11, 0) if cc >= 80 else (0, 0)
            out.append("cc_beyond_runtime" if runtime < first else "cc_within_runtime")
    # nvidia-smi shows a GPU's memory all but used: other tenants of a shared GPU (their processes are not
    # visible from the container), the reason a job's first allocations fail in words that name no memory
    if any(int(total) >= 1024 and int(used) >= 0.9 * int(total) for used, total in _SMI_MEMORY.findall(blob)):
        out.append("gpu_mem_full")
    return out


def frame_location(path: str) -> str:
    """Where a traceback frame lives: paddle | thirdparty | stdlib | user."""
    p = path.replace("\\", "/")
    m = _SITE.search(path)
    if m:
        return "paddle" if m.group(1).split(".")[0].lower() in ("paddle", "paddlepaddle") else "thirdparty"
    if "/paddle/" in p and ("/fluid/" in p or "/base/" in p or "/phi/" in p or "/framework/" in p):
        return "paddle"
    if any(s in p for s in _STDLIB):
        return "stdlib"
    return "user"


def _frames(text: str) -> list[str]:
    frames = PY_FRAME.findall(text)
    return frames if frames else _IPY_FRAME.findall(text)


_FRAME_ONLY = re.compile(r"\s*(?:\d+\s+(?:0x[0-9a-f]+p?\s+)?[\w:~<>]|@\s+0x)")


# a summary that counts no failures ("1200 images, 0 failed") says the opposite of its error word
_ZERO_FAILURES = re.compile(r"(?i)\b(?:0|no|zero) (?:failed|failures|errors?)\b|\b(?:errors|failed)[:=]?\s*0\b")


_SAYS_EXIT_0 = re.compile(r"(?i)\bexit(?:ed)?(?: with)?(?: code| status)?\s*[=:]?\s*0\b")


def _is_error_event(level, kind, message: str) -> bool:
    if kind != "line" or level in ("ERROR", "FATAL"):
        return True
    # a job's closing summary that counts a few failed items and says it exited 0 ("processed 1,562,000,
    # failed 4, exit 0") is its good end, not its last error ("done: 1200 images, 3 failed" alone stays one)
    return level != "WARNING" and ERRORISH.search(_ZERO_FAILURES.sub("", message or "")) is not None \
        and not (_SAYS_EXIT_0.search(message or "") and ended_well(message or ""))


def _went_on_from(messages: Sequence[str], tail: Sequence[int], pos: int, after_failure: bool) -> bool:
    """After the error at ``pos`` the run printed its progress and then said it finished: it went on from
    that error (a batch-size probe's OOM retried smaller, a download retried), like a rule's progress_survives."""
    return any(ended_well(messages[i] or "", after_failure) for i in tail if i > pos) \
        and progressed_after(messages, pos)


def focus_and_context(levels: Sequence, kinds: Sequence, messages: Sequence[str], texts: Sequence[str],
                      line_nos: Sequence, keep: Sequence[int], meta: Mapping | None = None,
                      known_failed: bool = False) -> tuple[str, str, list[int]]:
    """The run's last error (focus text, its line numbers) and its context tokens."""
    n = len(messages)
    kinds, levels = without_ignored(messages, kinds, levels)   # a destructor's exception is no error of the run
    last_err = next((i for i in reversed(keep) if _is_error_event(levels[i], kinds[i], messages[i])), None)
    # a traceback, not an error line: what a check after it says passed is not the job's end
    after_failure = last_err is not None and kinds[last_err] in FAILURE_KINDS
    tail = run_tail(messages, 5)   # the run's last lines, and its own before a pasted look at the machine
    survived = last_err is not None and not known_failed and _went_on_from(messages, tail, last_err, after_failure)
    if survived:   # the run's focus is how it ended, as for a run without errors
        last_err = None
    # the last error and what the run printed after it (a shutdown line, a launcher's summary); with
    # no error at all, the last lines
    if last_err is None:
        focus_idx = list(range(max(0, n - 3), n))
    else:
        focus_idx = [last_err, *range(max(last_err + 1, n - 2), n)]
        # a call-stack dump whose "message" is one of its frames (Fluid 1.5's "PaddlePaddle Call
        # Stacks:" after the exception it belongs to) says nothing of the error: the exception before does
        at = keep.index(last_err) if kinds[last_err] == "cpp_traceback" and _FRAME_ONLY.match(messages[last_err] or "") \
            else 0
        if at and kinds[keep[at - 1]] == "py_traceback":
            focus_idx.insert(0, keep[at - 1])
    parts = []
    for i in focus_idx:
        text = texts[i] or messages[i] or ""
        if kinds[i] == "py_traceback":   # the exception and the innermost frames say most
            frames = _frames(text)
            text = "\n".join([*frames[-3:], messages[i] or ""])
        parts.append(text[-FOCUS_CHARS:])
    focus = "\n".join(parts)[-2 * FOCUS_CHARS:]

    scan = sorted(set(keep[-CONTEXT_RELEVANT:]) | set(range(min(n, CONTEXT_SCAN))))
    blob = "\n".join((texts[i] or messages[i] or "")[:4000] for i in scan)
    tokens = [tok for tok, rx in (*_CONTEXT_RX, *_var_rx()) if rx.search(blob)]
    tokens.extend(version_facts(blob))
    tokens.append("error_survived" if survived else "no_error" if last_err is None else f"last_{kinds[last_err]}")
    # (never in a run its exit status or its last line says failed)
    if not known_failed and any(ended_well(messages[i] or "", after_failure)
                                for i in tail if last_err is None or i > last_err):
        tokens.append("ended_well")
    if n <= 3:
        tokens.append("tiny_log")
    elif n <= 15:
        tokens.append("short_log")
    # the failing frame: the innermost frame of the last traceback
    tb = next((i for i in reversed(keep) if kinds[i] == "py_traceback" or _frames(texts[i] or "")), None)
    if tb is not None:
        frames = _frames(texts[tb] or "")
        if frames:
            where = [frame_location(f) for f in frames]
            tokens.append(f"frame_{where[-1]}")
            if "paddle" not in where:
                tokens.append("no_paddle_frame")
            pkg = _SITE.search(frames[-1])
            if pkg and where[-1] == "thirdparty":
                tokens.append("framepkg_" + re.sub(r"\W", "_", pkg.group(1).split("-")[0].lower()))
        tail = (texts[n - 1] or messages[n - 1] or "").rstrip().splitlines()
        last_line = tail[-1] if tail else ""
        if re.match(r'\s*File "', last_line) or (kinds[n - 1] == "py_traceback" and not _EXC.search(messages[n - 1] or "")):
            tokens.append("tb_truncated")   # the paste stops inside the traceback
    if last_err is not None:
        m = _EXC.search(texts[last_err] or messages[last_err] or "")
        msg = messages[last_err] or ""
        m = _EXC.search(msg) or m
        if m:
            tokens.append("exc_" + m.group(1).lower())
        pe = _PADDLE_ERR.search(texts[last_err] or msg)
        if pe:
            tokens.append("perr_" + (pe.group(1) or pe.group(2)).lower())
    if (meta or {}).get("oom_killed") is True:
        tokens.append("ctx_oom_killed")
    if exit_code(meta) == 0 and last_err is not None:
        tokens.append("error_survived")
    return focus, " ".join(tokens), [int(line_nos[i]) for i in focus_idx]
