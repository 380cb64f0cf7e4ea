"""Text of simulated Paddle container runs: normal output, harmless noise and failure surface forms.

Used by ``pipeline.simulate``. Everything here is a pure function of a ``random.Random`` and the run's
context (``Ctx``): no global random state, no wall clock, so the simulator stays byte-for-byte
deterministic.

Lines are produced through an ``Emitter`` that stamps each line with a simulated clock (int ns since
the epoch) and a stream (stdout/stderr) and hands batches of lines to a sink (the format writer), so a
run is never held in memory as a whole.

Surface forms follow the Paddle generation of the image:
  "1x"  Paddle 1.x: ``paddle.fluid.core_avx.EnforceNotMet``, "C++ Call Stacks (More useful to developers):",
        "Error: ... at (/paddle/paddle/fluid/...)"
  "20"  Paddle 2.0-2.2: "(External) Cuda error(35) ... [Advise: ...]", "Error Message Summary:"
  "2x"  Paddle 2.3-2.6: "C++ Traceback (most recent call last):", "[Hint: ...] (at /paddle/...)"
  "3x"  Paddle 3.x: phi paths, PIR/json models, some Chinese hints
(a Fluid 1.5 image still prints 1.x's older 'EnforceNotMet ... at [...]' + 'PaddlePaddle Call Stacks:' form).

Each category has its own forms (``e_<category>``) and, beside them, families seen in real logs (``FAMILIES``:
Paddle Inference/Lite deployments, Fluid GLOG checks, parameter servers, launches that wait forever,
third-party pins, Windows and Chinese messages, signatures that point to another cause). ``code_error``
renders the job bug the fleet model planted (``CODE_BUGS``, keyed by ``ctx.extra["job_bug"]``) from the
job's own files, never with an environment signature.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable

NS = 1_000_000_000
_DAY_CACHE: dict = {}
HMS = tuple(f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60))  # "HH:MM:SS" by second of day

# --------------------------------------------------------------------------------------------------
# Clock + emitter


class Emitter:
    """Collects (t_ns, stream, text) lines of one run and flushes them to ``sink`` in batches."""

    __slots__ = ("t", "rng", "buf", "sink", "flush_every", "count", "_sec", "_parts", "tid", "pid", "record", "cap",
                 "_rnd", "_slow", "_mute_cap")

    def __init__(self, t0_ns: int, rng: random.Random, sink: Callable[[list], None] | None = None,
                 flush_every: int = 4096, pid: int = 1, tid: int = 1):
        self.t = t0_ns
        self.rng = rng
        self.buf: list = []
        self.sink = sink
        self.flush_every = flush_every
        self.count = 0
        self._sec = -1
        self._parts: tuple = ()
        self.pid = pid
        self.tid = tid
        self.record: list | None = None   # when a list: texts are also appended to it
        self.cap = 1 << 62                # lines beyond this count are dropped (a log cut short)
        self._rnd = rng.random
        self._slow = False                # record or cap in use

    def start_record(self, into: list, cap_after: int | None = None, mute: bool = False) -> None:
        """Also collect texts into `into`; keep at most `cap_after` more lines; mute: collect only."""
        self.record = into
        if cap_after is not None:
            self.cap = self.n() + cap_after
        if mute:
            self._mute_cap = self.cap
            self.cap = -1
        self._slow = True

    def stop_record(self) -> None:
        self.record = None
        if self.cap == -1:
            self.cap = self._mute_cap
        self._slow = self.cap < (1 << 62)

    # -- clock
    def adv(self, seconds: float) -> None:
        """Advance the clock by about ``seconds`` (+ jitter)."""
        if seconds > 0:
            self.t += int(seconds * NS) + 1 + int(self.rng.random() * 999_983)

    def _tm(self) -> tuple:
        """("2026/11/16", "11/16", "2026-11-16", "1116", "HH:MM:SS") of the current second (cached)."""
        sec = self.t // NS
        if sec != self._sec:
            self._sec = sec
            day, rem = divmod(sec, 86400)
            ymd = _DAY_CACHE.get(day)
            if ymd is None:
                tm = time.gmtime(day * 86400)
                y, m, d = f"{tm.tm_year:04d}", f"{tm.tm_mon:02d}", f"{tm.tm_mday:02d}"
                ymd = _DAY_CACHE[day] = (f"{y}/{m}/{d}", f"{m}/{d}", f"{y}-{m}-{d}", f"{m}{d}")
            self._parts = ymd + (HMS[rem],)
        return self._parts

    def micros(self) -> int:
        return (self.t // 1000) % 1_000_000

    def millis(self) -> int:
        return (self.t // 1_000_000) % 1000

    # timestamp styles used by Paddle tools
    def ts_glog(self) -> str:        # "1116 10:00:01.123456"
        p = self._tm()
        return f"{p[3]} {p[4]}.{(self.t // 1000) % 1_000_000:06d}"

    def ts_slash(self) -> str:       # "2026/11/16 10:00:05" (ppocr)
        p = self._tm()
        return f"{p[0]} {p[4]}"

    def ts_short(self) -> str:       # "11/16 10:00:05" (ppdet)
        p = self._tm()
        return f"{p[1]} {p[4]}"

    def ts_comma(self) -> str:       # "2026-11-16 10:00:05,123" (python logging: paddlenlp, LAUNCH)
        p = self._tm()
        return f"{p[2]} {p[4]},{(self.t // 1_000_000) % 1000:03d}"

    def ts_iso(self) -> str:         # "2026-11-16 10:00:05"
        p = self._tm()
        return f"{p[2]} {p[4]}"

    def unix(self) -> int:
        return self.t // NS

    # -- lines
    def n(self) -> int:
        return self.count + len(self.buf)

    def line(self, text: str, stream: str = "stdout") -> None:
        self.t = t = self.t + 3_000 + int(self._rnd() * 397_000)
        if self._slow:
            if self.record is not None:
                self.record.append(text)
            if self.count + len(self.buf) >= self.cap:
                return
        buf = self.buf
        buf.append((t, stream, text))
        if len(buf) >= self.flush_every:
            self.flush()

    def out(self, *texts: str) -> None:
        for t in texts:
            self.line(t, "stdout")

    def err(self, *texts: str) -> None:
        for t in texts:
            self.line(t, "stderr")

    def block(self, texts, stream: str = "stderr") -> None:
        """A multi-line block printed at once (one write): lines a few microseconds apart."""
        rnd = self.rng.random
        for t in texts:
            self.t += 1_000 + int(rnd() * 39_000)
            if self.record is not None:
                self.record.append(t)
            if self.count + len(self.buf) >= self.cap:
                continue
            self.buf.append((self.t, stream, t))
        if len(self.buf) >= self.flush_every:
            self.flush()

    def glog(self, level: str, loc: str, msg: str, stream: str = "stderr", tid: int | None = None) -> None:
        self.line(f"{level}{self.ts_glog()} {tid or self.tid:5d} {loc}] {msg}", stream)

    def flush(self) -> None:
        if self.buf:
            self.count += len(self.buf)
            if self.sink is not None:
                self.sink(self.buf)
            self.buf = []


# --------------------------------------------------------------------------------------------------
# Run context


@dataclass
class Ctx:
    """Everything the text of one run depends on (filled by pipeline.simulate)."""

    rng: random.Random
    em: Emitter
    job: str                    # ocr | det | nlp | infer | serving | paddlex
    paddle: str                 # "2.6.0"
    gen: str                    # 1x | 20 | 2x | 3x
    cuda: str                   # image CUDA runtime "11.8"
    cudnn: str                  # "8.9"
    site: str                   # ".../dist-packages" or ".../site-packages"
    python: str                 # "3.10"
    gpu_name: str               # "NVIDIA A10"
    cc: str                     # "8.6"
    gpu_mem_gb: float
    driver_api: str             # host's max CUDA "12.2"
    driver_version: str         # "535.183.01"
    n_gpus: int = 1
    nnodes: int = 1
    batch_size: int = 16
    num_workers: int = 4
    epochs: int = 10
    n_progress: int = 50        # progress lines of a full run
    duration_s: float = 3600.0  # wall time of a full run
    launch: bool = False        # started through python -m paddle.distributed.launch
    workdir: str = "/workspace"
    model_dir: str = "/workspace/inference"
    legacy_code: bool = False   # user code written for paddle.fluid
    amp: bool = False
    chinese: bool = False       # team scripts print Chinese
    rank_ips: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def pkg(self) -> str:
        return f"{self.site}/paddle"

    @property
    def major(self) -> int:
        return int(self.paddle.split(".")[0])

    @property
    def fw(self) -> str:
        """Package of Paddle's framework internals: 'fluid' until 2.5, 'base' from 2.6 on."""
        return "base" if self.major >= 3 or self.paddle >= "2.6" else "fluid"

    def hexaddr(self) -> str:
        return f"0x7f{self.rng.randrange(16**10):010x}"


def pick(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


def wpick(rng: random.Random, pairs):
    """Weighted pick from [(weight, value), ...]."""
    total = sum(w for w, _ in pairs)
    x = rng.random() * total
    for w, v in pairs:
        x -= w
        if x < 0:
            return v
    return pairs[-1][1]


def fmt_eta(seconds: float) -> str:
    s = int(max(0, seconds))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    core = f"{h}:{m:02d}:{s:02d}"
    return f"{d} day{'s' if d != 1 else ''}, {core}" if d else core


ESC = "\x1b"
_PY_WORKDIRS = ("/workspace", "/home/aistudio", "/paddle", "/root/work", "/data/code")


# --------------------------------------------------------------------------------------------------
# Harmless output (hard negatives): printed by healthy runs as well as failing ones


def hn_ccache(c: Ctx) -> None:
    c.em.err(f"{c.pkg}/utils/cpp_extension/extension_utils.py:{pick(c.rng, (686, 711, 715))}: UserWarning: "
             "No ccache found. Please be aware that recompiling all source files may be required. You can "
             "download and install ccache from: https://github.com/ccache/ccache/blob/master/doc/INSTALL.md",
             "  warnings.warn(warning_message)")


def hn_logging_before_init(c: Ctx) -> None:
    c.em.err("WARNING: Logging before InitGoogleLogging() is written to STDERR")


def hn_userwarning(c: Ctx) -> None:
    r = c.rng
    v = r.randrange(5)
    if v == 0:
        c.em.err(f"{c.pkg}/nn/layer/norm.py:{pick(r, (712, 818, 824))}: UserWarning: When training, we now always "
                 "track global mean and variance.", "  warnings.warn(")
    elif v == 1:
        mod = "base" if c.major >= 3 or c.paddle >= "2.6" else "fluid"
        c.em.err(f"{c.pkg}/{mod}/dygraph/math_op_patch.py:{pick(r, (275, 329))}: UserWarning: The dtype of left and "
                 "right variables are not the same, left dtype is paddle.float32, but right dtype is paddle.int64, "
                 "the right dtype will convert to paddle.float32", "  warnings.warn(")
    elif v == 2:
        c.em.err(f"{c.pkg}/tensor/creation.py:{pick(r, (125, 136))}: DeprecationWarning: `np.bool` is a deprecated "
                 "alias for the builtin `bool`. To silence this warning, use `bool` by itself. Doing this will not "
                 "modify any behavior and is safe. If you specifically wanted the numpy scalar type, use `np.bool_` "
                 "here.", "  if data.dtype == np.object:")
    elif v == 3:
        c.em.err(f"{c.site}/paddle/io/reader.py:{pick(r, (420, 447))}: UserWarning: DataLoader with multi-process "
                 "mode is not supported on MacOs and Windows currently. Please use single-process mode with "
                 "num_workers = 0 instead" if r.random() < 0.2 else
                 f"{c.site}/setuptools/_distutils/version.py:346: DeprecationWarning: distutils Version classes "
                 "are deprecated. Use packaging.version instead.", "  other = LooseVersion(other)")
    else:
        c.em.err(f"{c.site}/paddle/amp/auto_cast.py:{pick(r, (208, 244))}: UserWarning: For float16, amp only "
                 "support NVIDIA GPU with Compute Capability 7.0 or higher, current GPU is: "
                 f"{c.gpu_name}, with Compute Capability: {c.cc.replace('.', '')}." if c.cc < "7.0" else
                 f"{c.site}/paddle/distributed/parallel.py:{pick(r, (410, 427))}: UserWarning: Currently not a "
                 "parallel execution environment, `paddle.distributed.init_parallel_env` will not do anything.",
                 "  warnings.warn(")


def hn_fluid_deprecated(c: Ctx) -> None:
    api = pick(c.rng, ("paddle.fluid.dygraph.guard", "paddle.fluid.layers.fc", "paddle.fluid.io.load_inference_model",
                       "paddle.fluid.layers.data"))
    repl = {"paddle.fluid.dygraph.guard": "paddle.disable_static", "paddle.fluid.layers.fc": "paddle.static.nn.fc",
            "paddle.fluid.io.load_inference_model": "paddle.static.load_inference_model",
            "paddle.fluid.layers.data": "paddle.static.data"}[api]
    c.em.err(f'Warning: API "{api}" is deprecated since 2.0.0, and may be removed in future versions. '
             f'Please use "{repl}" instead.')


def hn_cudnn_mismatch(c: Ctx) -> None:
    other = pick(c.rng, ("8.2", "8.4", "8.6", "8.9"))
    c.em.glog("W", f"gpu_resources.cc:{pick(c.rng, (101, 104))}", f"WARNING: device: 0. The installed Paddle is compiled "
              f"with CUDNN {c.cudnn}, but CUDNN version in your machine is {other}, which may cause serious "
              "incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.")


def hn_retry_connect(c: Ctx) -> None:
    ip = c.rank_ips[0] if c.rank_ips else "10.10.0.2"
    port = 6070 + c.rng.randrange(100)
    for _ in range(c.rng.randrange(1, 4)):
        c.em.glog("I", "tcp_utils.cc:107", f"Retry to connect to {ip}:{port} while the server is not yet listening.")
        c.em.adv(3)
    c.em.glog("I", "tcp_utils.cc:130", f"Successfully connected to {ip}:{port}")


def hn_corrupt_jpeg(c: Ctx) -> None:
    c.em.err(f"Corrupt JPEG data: {c.rng.randrange(1, 300)} extraneous bytes before marker 0xd{c.rng.randrange(10)}")


def hn_pip_resolver(c: Ctx) -> None:
    c.em.err("ERROR: pip's dependency resolver does not currently take into account all the packages that are "
             "installed. This behaviour is the source of the following dependency conflicts.",
             pick(c.rng, ("paddlenlp 2.8.1 requires datasets>=2.0.0, but you have datasets 1.18.4 which is incompatible.",
                          "visualdl 2.5.3 requires protobuf>=3.20.0, but you have protobuf 3.19.6 which is incompatible.",
                          "paddleocr 2.7.5 requires opencv-contrib-python, which is not installed.")))


def hn_nan_scale(c: Ctx) -> None:
    s = pick(c.rng, (65536.0, 32768.0, 16384.0))
    c.em.err(f"[{c.em.ts_comma()}] [ WARNING] - optimizer not run, scale_before: {s}, scale_after: {s / 2}"
             if c.job == "nlp" else f"Found inf or nan, current scale is: {s}, decrease to: {s}*0.5")


def hn_nvidia_smi_missing_lib(c: Ctx) -> None:
    c.em.out(f"ls: cannot access '{c.workdir}/output/latest': No such file or directory")


def hn_found_gpus(c: Ctx) -> None:
    c.em.glog("I", f"init.cc:{pick(c.rng, (233, 245))}", f"Found {max(c.n_gpus, 1)} GPUs")
    if c.rng.random() < 0.5:
        c.em.glog("I", "init.cc:" + str(pick(c.rng, (253, 262))), "ENV [FLAGS_allocator_strategy]=auto_growth")


def hn_nan_loss_line(c: Ctx) -> None:
    em = c.em
    if c.job == "ocr":
        em.out(f"[{em.ts_slash()}] ppocr WARNING: loss: nan at global_step {c.rng.randrange(10, 5000) * 10}, "
               "skip this batch")
    else:
        em.err(f"{c.pkg}/amp/grad_scaler.py:{pick(c.rng, (308, 342))}: UserWarning: loss: nan found in the gradients, "
               "the scale is decreased and this step is skipped", "  warnings.warn(")


HARD_NEGATIVES = (hn_found_gpus, hn_nan_loss_line, hn_ccache, hn_logging_before_init, hn_userwarning, hn_userwarning, hn_cudnn_mismatch,
                  hn_retry_connect, hn_corrupt_jpeg, hn_pip_resolver, hn_nan_scale, hn_nvidia_smi_missing_lib)


def sprinkle(c: Ctx, p: float = 0.35) -> None:
    """Maybe emit one harmless warning."""
    if c.rng.random() < p:
        fn = pick(c.rng, HARD_NEGATIVES)
        if fn is hn_retry_connect and c.nnodes * c.n_gpus <= 1:
            fn = hn_userwarning
        fn(c)


# --------------------------------------------------------------------------------------------------
# Start of a run: shell, pip, NVIDIA banner, nvidia-smi, launch banner


def cuda_banner(c: Ctx) -> None:
    c.em.out("", "==========", "== CUDA ==", "==========", "", f"CUDA Version {c.cuda}.0", "",
             "Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.", "",
             "This container image and its contents are governed by the NVIDIA Deep Learning Container License.",
             "By pulling and using the container, you accept the terms and conditions of this license:",
             "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license", "",
             "A copy of this license is made available in this container at /NGC-DL-CONTAINER-LICENSE for your "
             "convenience.", "")


def cuda_banner_no_driver(c: Ctx) -> None:
    c.em.out("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
             "   Use the NVIDIA Container Toolkit to start this container with GPU support; see",
             "   https://docs.nvidia.com/datacenter/cloud-native/ .", "")


def nvidia_smi(c: Ctx) -> None:
    r, em = c.rng, c.em
    hms, y = em._tm()[4], em._tm()[2][:4]
    dow = time.strftime("%a %b %d", time.gmtime(em.unix()))
    em.out(f"{dow} {hms} {y}       ",
           "+---------------------------------------------------------------------------------------+",
           f"| NVIDIA-SMI {c.driver_version:<21} Driver Version: {c.driver_version:<14} CUDA Version: {c.driver_api:<8}|",
           "|-----------------------------------------+----------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
           "|=========================================+======================+======================|")
    total = int(c.gpu_mem_gb * 1024)
    for i in range(min(c.n_gpus, 8)):
        em.out(f"|   {i}  {c.gpu_name[:24]:<24}       On  | 00000000:{0x17 + i * 8:02X}:00.0 Off |                    0 |",
               f"| N/A   {r.randrange(28, 44)}C    P0    {r.randrange(40, 90):>3}W / {r.randrange(250, 400)}W |"
               f"      4MiB / {total:>5}MiB |      0%      Default |",
               "+-----------------------------------------+----------------------+----------------------+")
    em.out("", "+---------------------------------------------------------------------------------------+",
           "| Processes:                                                                            |",
           "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
           "|=======================================================================================|",
           "|  No running processes found                                                           |",
           "+---------------------------------------------------------------------------------------+")


def pip_install(c: Ctx, ok: bool = True) -> None:
    r, em = c.rng, c.em
    if r.random() < 0.5:
        em.out("Looking in indexes: https://pypi.tuna.tsinghua.edu.cn/simple")
    pk = {"ocr": ("shapely", "scikit-image", "imgaug", "pyclipper", "lmdb", "rapidfuzz", "opencv-python"),
          "det": ("pycocotools", "typeguard", "shapely", "scipy", "opencv-python", "terminaltables"),
          "nlp": ("paddlenlp", "datasets", "sentencepiece", "jieba", "colorlog", "seqeval"),
          }.get(c.job, ("pyyaml", "tqdm", "opencv-python-headless", "requests"))
    for p in pk[: r.randrange(2, len(pk) + 1)]:
        em.out(f"Requirement already satisfied: {p} in {c.site} ({r.randrange(1, 4)}.{r.randrange(20)}.{r.randrange(9)})")
    if r.random() < 0.5:
        em.out(f"Collecting {pk[-1]}", f"  Downloading {pk[-1].replace('-', '_')}-{r.randrange(1, 5)}.{r.randrange(10)}."
               f"{r.randrange(10)}-cp{c.python.replace('.', '')}-cp{c.python.replace('.', '')}-manylinux_2_17_x86_64."
               f"manylinux2014_x86_64.whl ({r.randrange(1, 60)}.{r.randrange(10)} MB)",
               f"Installing collected packages: {pk[-1]}", f"Successfully installed {pk[-1]}-{r.randrange(1, 5)}.0.1")
        em.adv(r.uniform(3, 40))
    em.err("WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with "
           "the system package manager. It is recommended to use a virtual environment instead: "
           "https://pip.pypa.io/warnings/venv")


def launch_banner(c: Ctx) -> None:
    em, r = c.em, c.rng
    L = lambda msg: em.out(f"LAUNCH INFO {em.ts_comma()} {msg}")  # noqa: E731
    devs = ",".join(str(i) for i in range(c.n_gpus))
    master = f"{c.rank_ips[0]}:{r.randrange(6000, 9000)}" if c.nnodes > 1 and c.rank_ips else "None"
    L("-----------  Configuration  ----------------------")
    for k, v in (("auto_parallel_config", "None"), ("auto_tuner_json", "None"), ("devices", devs),
                 ("elastic_level", "-1"), ("elastic_timeout", "30"), ("enable_gpu_log", "True"), ("gloo_port", "6767"),
                 ("host", "None"), ("ips", ",".join(c.rank_ips) if c.nnodes > 1 else "None"), ("job_id", "default"),
                 ("legacy", "False"), ("log_dir", "log"), ("log_level", "INFO"), ("log_overwrite", "False"),
                 ("master", master), ("max_restart", "3"), ("nnodes", str(c.nnodes)), ("nproc_per_node", "None"),
                 ("rank", "-1"), ("run_mode", "collective"), ("server_num", "None"), ("servers", ""),
                 ("sort_ip", "False"), ("start_port", "6070"), ("trainer_num", "None"), ("trainers", ""),
                 ("training_script", pick(r, ("tools/train.py", "train.py", "run_finetune.py"))),
                 ("training_script_args", "['-c', 'configs/train.yml']"), ("with_gloo", "1")):
        L(f"{k}: {v}")
    L("--------------------------------------------------")
    L(f"Job: default, mode collective, replicas {c.nnodes}[{c.nnodes}:{c.nnodes}], elastic False")
    if c.nnodes > 1:
        L("Waiting peer start...")
        em.adv(r.uniform(1, 20))
    pod = "".join(pick(r, "abcdefghijklmnopqrstuvwxyz") for _ in range(6))
    c.extra["pod"] = pod
    L(f"Run Pod: {pod}, replicas {c.n_gpus}, status ready")
    L(f"Watching Pod: {pod}, replicas {c.n_gpus}, status running")


def device_lines(c: Ctx, dev: int = 0) -> None:
    """GLOG lines Paddle prints when it first touches a GPU."""
    em = c.em
    if c.gen == "1x":
        em.glog("W", "device_context.cc:252", f"Please NOTE: device: {dev}, CUDA Capability: {c.cc.replace('.', '')}, "
                f"Driver API Version: {c.driver_api}, Runtime API Version: {c.cuda}")
        em.glog("W", "device_context.cc:260", f"device: {dev}, cuDNN Version: {c.cudnn.split('.')[0]}.{c.cudnn.split('.')[-1] if '.' in c.cudnn else 6}.")
    elif c.gen == "20":
        em.glog("W", "device_context.cc:404", f"Please NOTE: device: {dev}, GPU Compute Capability: {c.cc}, "
                f"Driver API Version: {c.driver_api}, Runtime API Version: {c.cuda}")
        em.glog("W", "device_context.cc:422", f"device: {dev}, cuDNN Version: {c.cudnn}.")
    else:
        loc = ("gpu_resources.cc:119", "gpu_resources.cc:164") if c.major < 3 else ("gpu_resources.cc:114", "gpu_resources.cc:243")
        em.glog("W", loc[0], f"Please NOTE: device: {dev}, GPU Compute Capability: {c.cc}, "
                f"Driver API Version: {c.driver_api}, Runtime API Version: {c.cuda}")
        em.glog("W", loc[1], f"device: {dev}, cuDNN Version: {c.cudnn}.")


# --------------------------------------------------------------------------------------------------
# Job output: PaddleOCR, PaddleDetection, PaddleNLP, Paddle Inference, Paddle Serving

_OCR_CFG = (
    ("Architecture", None, 0), ("Backbone", None, 1), ("name", "PPLCNetV3", 2), ("scale", "0.95", 2),
    ("Head", None, 1), ("head_list", None, 2), ("name", "MultiHead", 2), ("algorithm", "SVTR_LCNet", 1),
    ("model_type", "rec", 1), ("Transform", "None", 1), ("Eval", None, 0), ("dataset", None, 1),
    ("data_dir", "./train_data/rec/val", 2), ("name", "SimpleDataSet", 2), ("loader", None, 1),
    ("batch_size_per_card", "128", 2), ("drop_last", "False", 2), ("num_workers", "{nw}", 2), ("shuffle", "False", 2),
    ("Global", None, 0), ("cal_metric_during_train", "True", 1), ("character_dict_path", "ppocr/utils/ppocr_keys_v1.txt", 1),
    ("debug", "False", 1), ("distributed", "{dist}", 1), ("epoch_num", "{ep}", 1), ("eval_batch_step", "[0, 2000]", 1),
    ("log_smooth_window", "20", 1), ("max_text_length", "25", 1), ("pretrained_model", "None", 1),
    ("print_batch_step", "10", 1), ("save_epoch_step", "10", 1), ("save_model_dir", "./output/rec_ppocr_v4", 1),
    ("use_amp", "{amp}", 1), ("use_gpu", "True", 1), ("use_space_char", "True", 1), ("Loss", None, 0),
    ("name", "MultiLoss", 1), ("Optimizer", None, 0), ("beta1", "0.9", 1), ("lr", None, 1), ("learning_rate", "0.001", 2),
    ("name", "Cosine", 2), ("warmup_epoch", "5", 2), ("name", "Adam", 1), ("Train", None, 0), ("dataset", None, 1),
    ("data_dir", "./train_data/rec/train", 2), ("loader", None, 1), ("batch_size_per_card", "{bs}", 2),
    ("num_workers", "{nw}", 2), ("use_shared_memory", "True", 2), ("profiler_options", "None", 0),
)


class Job:
    """Output of one kind of Paddle job. Subclasses print in that tool's own format."""

    steps_per_epoch = 1000

    def __init__(self, c: Ctx):
        self.c = c
        self.rnd = c.rng.random
        self.loss = c.rng.uniform(2.0, 12.0)
        self.step = 0
        self.mem_tail = c.paddle >= "2.5"
        self.dt = c.duration_s / max(1, c.n_progress)      # seconds between two progress lines
        need = c.extra.get("gpu_need_gb", c.gpu_mem_gb * 0.6)
        self.mem_base = int(min(need, c.gpu_mem_gb * 0.97) * 1024)
        self.alloc_ratio = 0.8 + 0.17 * c.rng.random()

    def mem_str(self, frac: float) -> str:
        """', max_mem_reserved: ... MB, max_mem_allocated: ... MB' (running maxima: they only grow)."""
        if not self.mem_tail:
            return ""
        res = int(self.mem_base * (0.86 + 0.14 * (frac if frac < 1 else 1)))
        return f", max_mem_reserved: {res} MB, max_mem_allocated: {int(res * self.alloc_ratio)} MB"

    def inc(self, log_iter: int, cost: float) -> int:
        """Iterations between two printed progress lines, consistent with the clock."""
        k = int(self.dt / cost / log_iter) * log_iter
        return k if k > log_iter else log_iter

    def header(self) -> None: ...
    def step_line(self, i: int, n: int) -> None: ...
    def eval(self) -> None: ...
    def save(self, best: bool = False) -> None: ...
    def done(self) -> None: ...

    def save_path(self) -> str:
        return "./output/best_model"

    def pool(self, fn, k: int = 61) -> tuple:
        """k pre-formatted variants of a noisy field (formatting floats per line is the simulator's hot spot)."""
        rnd = self.rnd
        return tuple(fn(rnd) for _ in range(k))

    def next_loss(self) -> float:
        loss = self.loss * (0.93 + 0.09 * self.rnd())
        self.loss = loss = loss if loss > 0.01 else 0.01
        return loss


class OcrJob(Job):
    def __init__(self, c: Ctx):
        super().__init__(c)
        self.iters = c.rng.choice((1250, 3662, 7329, 15620))
        self.save_dir = pick(c.rng, ("./output/rec_ppocr_v4", "./output/rec/svtr", "./output/det_db"))

    def p(self, msg: str, level: str = "INFO") -> None:
        self.c.em.out(f"[{self.c.em.ts_slash()}] ppocr {level}: {msg}")

    def header(self) -> None:
        c = self.c
        if c.rng.random() < 0.7:
            vals = {"nw": c.num_workers, "dist": c.nnodes * c.n_gpus > 1, "ep": c.epochs, "amp": c.amp, "bs": c.batch_size}
            for k, v, depth in _OCR_CFG:
                self.p(f"{'    ' * depth}{k} : " + ("" if v is None else v.format(**vals)))
            self.p("---------------------------------------------")
        self.p(f"train with paddle {c.paddle} and device Place(gpu:0)")
        self.p("Initialize indexs of datasets:['./train_data/rec/train_list.txt']")
        self.p(f"train dataloader has {self.iters} iters")
        self.p(f"valid dataloader has {c.rng.randrange(20, 400)} iters")
        if c.chinese:
            c.em.out("训练开始")

    def step_line(self, i: int, n: int) -> None:
        c, rnd, em = self.c, self.rnd, self.c.em
        if not hasattr(self, "_cost"):
            bs = c.batch_size
            base = 0.2 + 0.5 * rnd()

            def cost(rnd):
                bc = base * (0.8 + 0.4 * rnd())
                return bc, f"avg_reader_cost: {0.001 + 0.3 * rnd():.5f} s, avg_batch_cost: {bc:.5f} s, avg_samples: " \
                           f"{bs}.0, ips: {bs / bc:.5f} samples/s"
            self._cost = self.pool(cost)
            lr0 = 0.0002 + 0.0008 * rnd()
            self._lr = self.pool(lambda rnd: f"{lr0 * (0.9 + 0.1 * rnd()):.6f}")
            self._inc = self.inc(10, base)
        self.step = step = self.step + self._inc
        frac = i / (n + 1)
        bc, cost = self._cost[int(rnd() * 61)]
        em.line(f"[{em.ts_slash()}] ppocr INFO: epoch: [{1 + step // self.iters}/{c.epochs}], global_step: {step}, "
                f"lr: {self._lr[int(rnd() * 61)]}, acc: {(0.99 if frac > 0.99 else frac) * (0.9 + 0.1 * rnd()):.6f}, "
                f"norm_edit_dis: {0.3 + 0.699 * frac:.6f}, loss: {self.next_loss():.6f}, {cost}, "
                f"eta: {fmt_eta((n - i) * self.dt)}{self.mem_str(frac)}")

    def eval(self) -> None:
        c, r = self.c, self.c.rng
        total = r.randrange(20, 400)
        c.em.err("\r".join(f"eval model:: {int(100 * k / total):3d}%|{'█' * (10 * k // total):<10}| {k}/{total} "
                           f"[00:{k // 12:02d}<00:{(total - k) // 12:02d}, 12.{r.randrange(10)}it/s]"
                           for k in (0, total // 3, 2 * total // 3, total)))
        c.em.adv(total / 12)
        acc = r.uniform(0.3, 0.95)
        self.p(f"cur metric, acc: {acc}, norm_edit_dis: {min(0.999, acc + 0.05)}, fps: {r.uniform(300, 3000)}")
        self.p(f"best metric, acc: {acc}, is_float16: False, norm_edit_dis: {min(0.999, acc + 0.05)}, "
               f"fps: {r.uniform(300, 3000)}, best_epoch: {1 + self.step // self.iters}")

    def save_path(self) -> str:
        return f"{self.save_dir}/best_accuracy"

    def save(self, best: bool = False) -> None:
        if best:
            self.p(f"save best model is to {self.save_dir}/best_accuracy")
        else:
            self.p(f"save model in {self.save_dir}/latest")
        if self.c.chinese and best:
            self.c.em.out(f"模型已保存至 {self.save_dir}/best_accuracy")

    def done(self) -> None:
        self.p(f"best metric, acc: {self.c.rng.uniform(0.6, 0.97)}, norm_edit_dis: 0.98, fps: 1540.2")
        self.save()
        if self.c.chinese:
            self.c.em.out("训练完成")


class DetJob(Job):
    def __init__(self, c: Ctx):
        super().__init__(c)
        self.iters = c.rng.choice((1832, 3665, 7329, 14658))
        self.arch = pick(c.rng, ("ppyoloe_plus_crn_l_80e_coco", "picodet_s_416_coco_lcnet", "rtdetr_r50vd_6x_coco",
                                 "faster_rcnn_r50_fpn_1x_coco"))
        self.ep = 0

    def p(self, mod: str, msg: str) -> None:
        self.c.em.out(f"[{self.c.em.ts_short()}] {mod} INFO: {msg}")

    def header(self) -> None:
        c = self.c
        self.p("ppdet.utils.download", f"Downloading {self.arch.split('_')[0]}_pretrained.pdparams from "
               f"https://paddledet.bj.bcebos.com/models/pretrained/{self.arch.split('_')[0]}_pretrained.pdparams")
        kb = c.rng.randrange(20000, 200000)
        c.em.err(f"100%|██████████| {kb}/{kb} [00:0{c.rng.randrange(1, 9)}<00:00, {c.rng.randrange(5000, 30000)}."
                 f"{c.rng.randrange(100)}KB/s]")
        self.p("ppdet.utils.checkpoint", f"Finish loading model weights: /root/.cache/paddle/weights/"
               f"{self.arch.split('_')[0]}_pretrained.pdparams")
        c.em.out("loading annotations into memory...", f"Done (t={c.rng.uniform(0.2, 9):.2f}s)",
                 "creating index...", "index created!")
        self.p("ppdet.data.source.coco", f"Load [{c.rng.randrange(5000, 118000)} samples valid, "
               f"{c.rng.randrange(0, 1100)} samples invalid] in file dataset/coco/annotations/instances_train2017.json.")

    def step_line(self, i: int, n: int) -> None:
        c, rnd, em = self.c, self.rnd, self.c.em
        if not hasattr(self, "_cost"):
            base, bs = 0.25 + 2.0 * rnd(), c.batch_size

            def cost(rnd):
                bc = base * (0.8 + 0.4 * rnd())
                return bc, f"batch_cost: {bc:.4f} data_cost: {0.0005 + 0.3 * rnd():.4f} ips: {bs / bc:.4f} images/s"
            self._cost = self.pool(cost)
            lr0 = 0.00005 + 0.00095 * rnd()
            self._lr = self.pool(lambda rnd: f"{lr0 * (0.9 + 0.1 * rnd()):.6f}")
            self._inc = self.inc(20, base)
        self.step = step = self.step + self._inc
        self.ep = step // self.iters
        bc, cost = self._cost[int(rnd() * 61)]
        loss = self.next_loss()
        em.line(f"[{em.ts_short()}] ppdet.engine INFO: Epoch: [{self.ep}] [{step % self.iters:>5}/{self.iters}] "
                f"learning_rate: {self._lr[int(rnd() * 61)]} loss_cls: {loss * 0.4:.6f} loss_iou: {loss * 0.3:.6f} "
                f"loss_dfl: {loss * 0.2:.6f} loss: {loss:.6f} eta: {fmt_eta((n - i) * self.dt)} {cost}"
                f"{self.mem_str(i / (n + 1))}")

    def eval(self) -> None:
        c, r = self.c, self.c.rng
        for _ in range(r.randrange(1, 4)):
            self.p("ppdet.engine", f"Eval iter: {r.randrange(0, 5000, 100)}")
        self.p("ppdet.metrics.metrics", "The bbox result is saved to bbox.json.")
        c.em.out("loading annotations into memory...", "Done (t=0.41s)", "creating index...", "index created!")
        self.p("ppdet.metrics.coco_utils", "Start evaluate...")
        c.em.out("Loading and preparing results...", f"DONE (t={r.uniform(0.5, 5):.2f}s)", "creating index...",
                 "index created!", "Running per image evaluation...", "Evaluate annotation type *bbox*",
                 f"DONE (t={r.uniform(10, 60):.2f}s).", "Accumulating evaluation results...",
                 f"DONE (t={r.uniform(2, 9):.2f}s).")
        ap = r.uniform(0.2, 0.55)
        for lab, rng_, area, md, v in (("Precision", "0.50:0.95", "   all", 100, ap), ("Precision", "0.50     ", "   all", 100, ap + 0.17),
                                       ("Precision", "0.75     ", "   all", 100, ap + 0.04), ("Recall   ", "0.50:0.95", "   all", 100, ap + 0.2)):
            c.em.out(f" Average {lab}  ({lab[0]}{'P' if lab[0] == 'P' else 'R'}) @[ IoU={rng_} | area={area} | maxDets={md:>3} ] = {v:.3f}"
                     .replace("(PP)", "(AP)").replace("(RR)", "(AR)"))
        self.p("ppdet.engine", f"Total sample number: 5000, average FPS: {r.uniform(20, 90):.2f}")
        self.p("ppdet.engine", f"Best test bbox ap is {ap:.3f}.")

    def save_path(self) -> str:
        return f"output/{self.arch}/best_model"

    def save(self, best: bool = False) -> None:
        self.p("ppdet.utils.checkpoint", f"Save checkpoint: output/{self.arch}" + ("/best_model" if best else ""))

    def done(self) -> None:
        self.save()


class NlpJob(Job):
    def __init__(self, c: Ctx):
        super().__init__(c)
        self.model = pick(c.rng, ("ernie-3.0-medium-zh", "ernie-3.0-base-zh", "bert-base-chinese", "uie-base",
                                  "Qwen/Qwen2-0.5B", "meta-llama/Llama-2-7b"))
        self.total = c.rng.randrange(300, 20000)
        self.progress_key = "progress_or_epoch" if c.paddle >= "3" else "epoch"

    def p(self, msg: str, level: str = "INFO") -> None:
        self.c.em.out(f"[{self.c.em.ts_comma()}] [{level:>8}] - {msg}")

    def header(self) -> None:
        c, r = self.c, self.c.rng
        self.p("The default value for the training argument `--report_to` will change in v5 (from all installed "
               "integrations to none). In v5, you will need to use `--report_to all` to get the same behavior as now. "
               "You should start updating your code and make this info disappear :-).")
        self.p("=" * 60)
        self.p("     Model Configuration Arguments      ")
        self.p(f"paddle commit id              : {r.randrange(16**40):040x}")
        self.p(f"model_name_or_path            : {self.model}")
        self.p(f"per_device_train_batch_size   : {c.batch_size}")
        self.p(f"dataloader_num_workers        : {c.num_workers}")
        self.p(f"fp16                          : {c.amp}")
        self.p(f"output_dir                    : ./checkpoints/{self.model.split('/')[-1]}")
        self.p("")
        self.p(f"Loading configuration file /root/.paddlenlp/models/{self.model}/config.json")
        self.p(f"Loading weights file /root/.paddlenlp/models/{self.model}/model_state.pdparams")
        self.p("Loaded weights file from disk, setting weights to model.")
        if r.random() < 0.5:
            self.p(f"Some weights of the model checkpoint at {self.model} were not used when initializing "
                   f"ErnieForSequenceClassification: ['ernie.pooler.dense.weight']", "WARNING")
        if c.chinese:
            c.em.out(f"加载数据集完成，共 {r.randrange(1000, 200000)} 条样本")
        self.p("***** Running training *****")
        self.p(f"  Num examples = {r.randrange(1000, 200000):,}")
        self.p(f"  Num Epochs = {c.epochs}")
        self.p(f"  Instantaneous batch size per device = {c.batch_size}")
        self.p(f"  Total optimization steps = {self.total:,}")
        self.p(f"  Number of trainable parameters = {r.randrange(10**7, 7 * 10**9):,} (per device)")

    def step_line(self, i: int, n: int) -> None:
        c, rnd, em = self.c, self.rnd, self.c.em
        if not hasattr(self, "_cost"):
            base, bs = 0.5 + 4 * rnd(), c.batch_size

            def cost(rnd):
                rt = base * (0.8 + 0.4 * rnd())
                return f"interval_runtime: {rt:.4g}, interval_samples_per_second: {10 * bs / rt:.4g}, " \
                       f"interval_steps_per_second: {10 / rt:.4g}"
            self._cost = self.pool(cost)
            lr0 = 5e-06 + 4.5e-05 * rnd()
            self._lr = self.pool(lambda rnd: f"{lr0 * (0.9 + 0.1 * rnd()):.4g}")
            self._inc = self.inc(10, base / 10)
        self.step += self._inc
        em.line(f"[{em.ts_comma()}] [    INFO] - loss: {self.next_loss():.8g}, learning_rate: {self._lr[int(rnd() * 61)]}, "
                f"global_step: {self.step}, {self._cost[int(rnd() * 61)]}, {self.progress_key}: "
                f"{i / (n or 1) * c.epochs:.4g}")

    def eval(self) -> None:
        c, r = self.c, self.c.rng
        self.p("***** Running Evaluation *****")
        self.p(f"  Num examples = {r.randrange(500, 5000)}")
        self.p(f"  Total prediction steps = {r.randrange(16, 200)}")
        self.p(f"  Pre device batch size = {c.batch_size}")
        self.p(f"  Total Batch size = {c.batch_size * c.n_gpus}")
        c.em.adv(r.uniform(5, 60))
        self.p(f"eval_loss: {self.loss * 1.1:.8g}, eval_accuracy: {r.uniform(0.6, 0.95):.8g}, eval_runtime: "
               f"{r.uniform(5, 60):.4f}, eval_samples_per_second: {r.uniform(50, 900):.4f}, eval_steps_per_second: "
               f"{r.uniform(1, 20):.4f}, {self.progress_key}: {r.uniform(0, c.epochs):.4g}")

    def save_path(self) -> str:
        return f"./checkpoints/{self.model.split('/')[-1]}/checkpoint-{self.step}"

    def save(self, best: bool = False) -> None:
        d = self.save_path()
        self.p(f"Saving model checkpoint to {d}")
        self.p(f"tokenizer config file saved in {d}/tokenizer_config.json")
        self.p(f"Special tokens file saved in {d}/special_tokens_map.json")
        self.p(f"Configuration saved in {d}/config.json")
        self.p(f"Model weights saved in {d}/model_state.pdparams")

    def done(self) -> None:
        c, r = self.c, self.c.rng
        self.p("")
        self.p("Training completed. ")
        self.p(f"train_runtime: {c.duration_s:.4f}, train_samples_per_second: {r.uniform(10, 900):.4f}, "
               f"train_steps_per_second: {r.uniform(0.5, 20):.4f}, train_loss: {self.loss:.8g}, "
               f"{self.progress_key}: {c.epochs:.1f}")
        self.save()
        if c.chinese:
            c.em.out(f"模型已保存至 {self.save_path()}")


_PASSES = ("map_op_to_another_pass", "is_test_pass", "simplify_with_basic_ops_pass", "delete_quant_dequant_linear_op_pass",
           "constant_folding_pass", "silu_fuse_pass", "conv_bn_fuse_pass", "conv_eltwiseadd_bn_fuse_pass",
           "embedding_eltwise_layernorm_fuse_pass", "multihead_matmul_roformer_fuse_pass", "gpu_cpu_map_matmul_v2_to_mul_pass",
           "gpu_cpu_map_matmul_v2_to_matmul_pass", "matmul_scale_fuse_pass", "gpu_cpu_map_matmul_to_mul_pass",
           "fc_fuse_pass", "fc_elementwise_layernorm_fuse_pass", "conv_elementwise_add_act_fuse_pass",
           "conv_elementwise_add2_act_fuse_pass", "conv_elementwise_add_fuse_pass", "transpose_flatten_concat_fuse_pass",
           "auto_mixed_precision_pass", "identity_op_clean_pass")


class InferJob(Job):
    """Batch inference with Paddle Inference (paddle.inference.create_predictor)."""

    def __init__(self, c: Ctx):
        super().__init__(c)
        self.total = c.rng.randrange(2000, 200000)
        self.done_n = 0

    def header(self) -> None:
        c, r, em = self.c, self.c.rng, self.c.em
        em.out(f"[{em.ts_iso()}] INFO loading model from {c.model_dir}")
        em.out(f"{ESC}[1m{ESC}[35m--- Running analysis [ir_graph_build_pass]{ESC}[0m")
        em.glog("I", "executor.cc:187", "Old Executor is Running.")
        em.out(f"{ESC}[1m{ESC}[35m--- Running analysis [ir_analysis_pass]{ESC}[0m")
        for name in _PASSES:
            if r.random() < 0.8:
                em.out(f"{ESC}[32m--- Running IR pass [{name}]{ESC}[0m")
                if r.random() < 0.25:
                    em.glog("I", "fuse_pass_base.cc:59", f"---  detected {r.randrange(1, 60)} subgraphs")
        for name in ("ir_params_sync_among_devices_pass", "adjust_cudnn_workspace_size_pass", "inference_op_replace_pass",
                     "save_optimized_model_pass", "memory_optimize_pass"):
            em.out(f"{ESC}[1m{ESC}[35m--- Running analysis [{name}]{ESC}[0m")
            if name == "ir_params_sync_among_devices_pass":
                em.glog("I", "ir_params_sync_among_devices_pass.cc:53", "Sync params from CPU to GPU")
        em.glog("I", "memory_optimize_pass.cc:118", f"The persistable params in main graph are : {r.uniform(2, 400):.4f}MB")
        for _ in range(r.randrange(1, 5)):
            em.glog("I", "memory_optimize_pass.cc:246", f"Cluster name : {pick(r, ('x', 'conv2d_0.tmp_0', 'relu_3.tmp_0', 'batch_norm_1.tmp_2'))}"
                    f"  size: {r.randrange(4, 4096)}")
        em.out(f"{ESC}[1m{ESC}[35m--- Running analysis [ir_graph_to_program_pass]{ESC}[0m")
        em.glog("I", f"analysis_predictor.cc:{pick(r, (1444, 1838, 2136))}", "======= optimize end =======")
        em.glog("I", "naive_executor.cc:200", "---  skip [feed], feed -> x")
        em.glog("I", "naive_executor.cc:200", f"---  skip [{pick(r, ('sigmoid_0.tmp_0', 'softmax_0.tmp_0', 'save_infer_model/scale_0.tmp_0'))}], fetch -> fetch")

    def step_line(self, i: int, n: int) -> None:
        c, em = self.c, self.c.em
        self.done_n = min(self.total, self.done_n + max(1, self.total // max(n, 1)))
        rnd = self.rnd
        em.line(f"[{em.ts_iso()}] INFO processed {self.done_n}/{self.total} images, batch_size={c.batch_size}, "
                f"avg latency {2 + 58 * rnd():.2f} ms, qps {20 + 880 * rnd():.1f}")

    def eval(self) -> None:
        self.c.em.out(f"[{self.c.em.ts_iso()}] INFO writing results to /workspace/output/result_{self.done_n}.jsonl")

    def save(self, best: bool = False) -> None:
        self.eval()

    def save_path(self) -> str:
        return f"/workspace/output/result_{self.done_n}.jsonl"

    def done(self) -> None:
        self.c.em.out(f"[{self.c.em.ts_iso()}] INFO finished {self.total} images in {self.c.duration_s:.1f}s",
                      "inference done")


class ServingJob(InferJob):
    """Paddle Serving pipeline web service (long running, then stopped by a rollout)."""

    def header(self) -> None:
        c, r, em = self.c, self.c.rng, self.c.em
        ver = pick(r, ("0.9.0", "0.8.3"))
        py = c.python.replace(".", "")
        em.out("Going to Run Comand",
               f"{c.site}/paddle_serving_server/serving-gpu-{c.cuda.replace('.', '')}-{ver}/serving -enable_model_toolkit "
               "-inferService_path workdir_9393 -inferService_file infer_service.prototxt -max_concurrency 0 "
               "-num_threads 4 -port 9393 -precision fp32 -use_calib=False -reload_interval_s 10 -resource_path "
               "workdir_9393 -resource_file resource.prototxt -workflow_path workdir_9393 -workflow_file "
               "workflow.prototxt -bthread_concurrency 4 -max_body_size 536870912 ")
        del py
        super().header()
        em.glog("I", "server.cpp:1045", "Server[baidu::paddle_serving::predictor::general_model::GeneralModelServiceImpl] "
                "is serving on port=9393.")
        em.glog("I", "server.cpp:1048", "Check out http://" + pick(r, ("ocr-serving-0", "localhost", "0.0.0.0")) + ":9393 in web browser.")

    def step_line(self, i: int, n: int) -> None:
        rnd, em = self.rnd, self.c.em
        em.line(f"{em.ts_iso().replace('-', '/')} INFO [pipeline_server.py:{53 if rnd() < 0.5 else 60}] "
                f"(log_id={int(rnd() * 10**6)}) inference request name:ocr self.name:ocr time:{em.unix()}."
                f"{int(rnd() * 10**6):06d}")
        if rnd() < 0.3:
            r = self.c.rng
            em.out(f"{em.ts_iso().replace('-', '/')} INFO [operator.py:{pick(r, (1317, 1411))}] [det|0] "
                   f"Succ predict, cost {r.uniform(5, 90):.3f} ms")

    def done(self) -> None:
        em = self.c.em
        em.err("[INFO] received SIGTERM, shutting down gracefully", f"I{em.ts_glog()} {em.tid:5d} server.cpp:1175] "
               "Server[baidu::paddle_serving::predictor::general_model::GeneralModelServiceImpl] is going to quit")


JOBS = {"ocr": OcrJob, "det": DetJob, "nlp": NlpJob, "infer": InferJob, "serving": ServingJob}


# --------------------------------------------------------------------------------------------------
# Building blocks of error output

_ENTRY = {
    "ocr": ("{wd}/PaddleOCR/tools/train.py", ((227, "<module>", "main(config, device, logger, vdl_writer, seed)"),
                                              (199, "main", "program.train(")),
            "{wd}/PaddleOCR/tools/program.py", ((296, "train", "preds = model(images, data=batch[1:])"),)),
    "det": ("{wd}/PaddleDetection/tools/train.py", ((212, "<module>", "main()"), (208, "main", "run(FLAGS, cfg)"),
                                                    (161, "run", "trainer.train(FLAGS.eval)")),
            "{wd}/PaddleDetection/ppdet/engine/trainer.py", ((582, "train", "outputs = model(data)"),)),
    "nlp": ("{wd}/run_finetune.py", ((412, "<module>", "main()"), (376, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)")),
            "{site}/paddlenlp/trainer/trainer.py", ((1011, "train", "return self._inner_training_loop("),
                                                    (1206, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"))),
    "infer": ("{wd}/infer.py", ((143, "<module>", "main(args)"), (118, "main", "outputs = predictor.run([batch])")),
              "{wd}/utils/predictor.py", ((64, "run", "self.predictor.run()"),)),
    "serving": ("{wd}/web_service.py", ((98, "<module>", "ocr_service.run_service()"),),
                "{site}/paddle_serving_server/web_service.py", ((94, "run_service", "self._server.run_server()"),)),
}


def frames_user(c: Ctx, deep: bool = True) -> list:
    f1, fr1, f2, fr2 = _ENTRY.get(c.job, _ENTRY["infer"])
    fmt = {"wd": c.workdir, "site": c.site}
    out = [(f1.format(**fmt), ln, fn, code) for ln, fn, code in fr1]
    if deep:
        out += [(f2.format(**fmt), ln, fn, code) for ln, fn, code in fr2]
    return out


def frames_paddle_forward(c: Ctx) -> list:
    pk = c.pkg
    if c.major >= 3:
        dy = f"{pk}/base/dygraph"
    elif c.paddle >= "2.5":
        dy = f"{pk}/base/dygraph" if c.paddle >= "2.6" else f"{pk}/fluid/dygraph"
    else:
        dy = f"{pk}/fluid/dygraph"
    r = c.rng
    if c.gen in ("1x", "20"):
        return [(f"{pk}/fluid/dygraph/layers.py", pick(r, (461, 891, 902)), "__call__",
                 "outputs = self.forward(*inputs, **kwargs)"),
                (f"{c.workdir}/model/ernie.py", r.randrange(40, 300), "forward", "emb_out = self.word_emb(src_ids)"),
                (f"{pk}/fluid/dygraph/layers.py", pick(r, (461, 891, 902)), "__call__",
                 "outputs = self.forward(*inputs, **kwargs)"),
                (f"{pk}/fluid/dygraph/nn.py", pick(r, (237, 1018)), "forward", "'use_mkldnn', False)")]
    fr = [(f"{pk}/nn/layer/layers.py", pick(r, (1254, 1429, 1343)), "__call__", "return self.forward(*inputs, **kwargs)")]
    if r.random() < 0.5:
        fr.append((f"{c.workdir}/models/backbone.py", r.randrange(40, 300), "forward", "x = self.conv1(x)"))
        fr.append((f"{pk}/nn/layer/layers.py", pick(r, (1254, 1429)), "__call__", "return self.forward(*inputs, **kwargs)"))
    fr.append((f"{pk}/nn/layer/conv.py", pick(r, (712, 720)), "forward", "out = F.conv._conv_nd("))
    fr.append((f"{pk}/nn/functional/conv.py", pick(r, (133, 148, 160)), "_conv_nd",
               "pre_bias = _C_ops.conv2d("))
    if r.random() < 0.3:
        fr.insert(0, (f"{dy}/base.py", pick(r, (352, 419)), "_decorate_function", "return func(*args, **kwargs)"))
    return fr


def py_tb(c: Ctx, frames, stream: str = "stderr") -> None:
    lines = ["Traceback (most recent call last):"]
    for path, ln, fn, code in frames:
        lines.append(f'  File "{path}", line {ln}, in {fn}')
        if code:
            lines.append(f"    {code}")
    c.em.block(lines, stream)


_CPP_FRAMES = {
    "alloc": ("paddle::memory::allocation::Allocator::Allocate(unsigned long)",
              "paddle::memory::allocation::StatAllocator::AllocateImpl(unsigned long)",
              "paddle::memory::allocation::AutoGrowthBestFitAllocator::AllocateImpl(unsigned long)",
              "paddle::memory::allocation::CUDAAllocator::AllocateImpl(unsigned long)",
              "std::string phi::enforce::GetCompleteTraceBackString<std::string >(std::string&&, char const*, int)",
              "phi::enforce::GetCurrentTraceBackString[abi:cxx11](bool)"),
    "conv": ("conv2d_ad_func(paddle::Tensor const&, paddle::Tensor const&, std::vector<int, std::allocator<int> >, "
             "std::vector<int, std::allocator<int> >, std::string, std::vector<int, std::allocator<int> >, int, std::string)",
             "paddle::experimental::conv2d(paddle::Tensor const&, paddle::Tensor const&, std::vector<int, std::allocator<int> > const&, "
             "std::vector<int, std::allocator<int> > const&, std::string const&, std::vector<int, std::allocator<int> > const&, int, std::string const&)",
             "void phi::ConvCudnnKernel<float, phi::GPUContext>(phi::GPUContext const&, phi::DenseTensor const&, phi::DenseTensor const&, "
             "std::vector<int, std::allocator<int> > const&, std::vector<int, std::allocator<int> > const&, std::string const&, "
             "std::vector<int, std::allocator<int> > const&, int, std::string const&, phi::DenseTensor*)",
             "phi::DnnWorkspaceHandle::RunFunc(std::function<void (void*)> const&, unsigned long)",
             "phi::DenseTensor::mutable_data(phi::Place const&, phi::DataType, unsigned long)"),
    "device": ("paddle::pybind::ThrowExceptionToPython(std::__exception_ptr::exception_ptr)",
               "phi::backends::gpu::GetGPUDeviceCount()", "phi::backends::gpu::GetGPUDeviceCountImpl()",
               "phi::enforce::EnforceNotMet::EnforceNotMet(phi::ErrorSummary const&, char const*, int)",
               "phi::enforce::GetCurrentTraceBackString[abi:cxx11](bool)"),
    "eager": ("egr::Backward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, "
              "std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool)",
              "egr::RunBackward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, "
              "std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, bool, "
              "std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, "
              "std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&)",
              "MatmulGradNode::operator()(paddle::small_vector<std::vector<paddle::Tensor, std::allocator<paddle::Tensor> >, 15u>&, bool, bool)",
              "paddle::experimental::matmul_grad(paddle::Tensor const&, paddle::Tensor const&, paddle::Tensor const&, bool, bool, "
              "paddle::Tensor*, paddle::Tensor*)",
              "void phi::MatmulGradKernel<float, phi::GPUContext>(phi::GPUContext const&, phi::DenseTensor const&, phi::DenseTensor const&, "
              "phi::DenseTensor const&, bool, bool, phi::DenseTensor*, phi::DenseTensor*)"),
    "exec": ("paddle::framework::Executor::Run(paddle::framework::ProgramDesc const&, paddle::framework::Scope*, int, bool, bool, "
             "std::vector<std::string, std::allocator<std::string > > const&, bool, bool)",
             "paddle::framework::Executor::RunPartialPreparedContext(paddle::framework::ExecutorPrepareContext*, "
             "paddle::framework::Scope*, long, long, bool, bool, bool)",
             "paddle::framework::OperatorBase::Run(paddle::framework::Scope const&, phi::Place const&)",
             "paddle::framework::OperatorWithKernel::RunImpl(paddle::framework::Scope const&, phi::Place const&) const",
             "paddle::framework::OperatorWithKernel::RunImpl(paddle::framework::Scope const&, phi::Place const&, "
             "paddle::framework::RuntimeContext*) const"),
    "nccl": ("paddle::distributed::ProcessGroupNCCL::AllReduce(phi::DenseTensor*, phi::DenseTensor const&, "
             "paddle::distributed::AllreduceOptions const&, bool, bool)",
             "paddle::distributed::ProcessGroupNCCL::CreateNCCLEnvCache(phi::Place const&, std::string const&)",
             "paddle::distributed::ProcessGroupNCCL::CreateNCCLManagerCache(std::string const&, std::vector<phi::Place, "
             "std::allocator<phi::Place> > const&)",
             "phi::distributed::NCCLCommContext::NCCLCommContext(phi::Place const&, int, int, ncclUniqueId)",
             "phi::dynload::ncclCommInitRank(ncclComm**, int, ncclUniqueId, int)"),
    "reader": ("paddle::operators::reader::BlockingQueue<paddle::framework::LoDTensorArray>::Receive(paddle::framework::LoDTensorArray*)",
               "paddle::operators::reader::PyReader::ReadNext(paddle::framework::LoDTensorArray*)",
               "paddle::pybind::MultiDeviceFeedReader<paddle::operators::reader::LoDTensorBlockingQueue>::ReadNext()"),
}


def cpp_frames(c: Ctx, kind: str, n: int | None = None) -> list:
    pool = list(_CPP_FRAMES[kind])
    head = [pick(c.rng, ("paddle::pybind::eager_api_conv2d(_object*, _object*, _object*)",
                         "paddle::pybind::eager_api_run_program(_object*, _object*, _object*)",
                         "paddle::pybind::static_api_matmul(_object*, _object*, _object*)",
                         "paddle_infer::Predictor::Run()", "paddle::AnalysisPredictor::ZeroCopyRun(bool)"))]
    fr = head + pool
    if n is not None:
        fr = fr[:n]
    return fr


def cpp_tb_2x(c: Ctx, frames: list, summary: list, stream: str = "stderr") -> None:
    """'C++ Traceback (most recent call last):' + numbered frames + 'Error Message Summary:' + summary."""
    lines = ["", "--------------------------------------", "C++ Traceback (most recent call last):",
             "--------------------------------------"]
    lines += [f"{i}   {f}" for i, f in enumerate(frames)]
    lines += ["", "----------------------", "Error Message Summary:", "----------------------"]
    lines += summary
    c.em.block(lines, stream)


def cpp_tb_1x(c: Ctx, frames: list, summary: list, stream: str = "stderr") -> None:
    """Paddle 1.x: 'C++ Call Stacks (More useful to developers):' + 'Error: ... at (/paddle/...)'."""
    fr = ["std::string paddle::platform::GetTraceBackString<std::string const&>(std::string const&, char const*, int)",
          "paddle::platform::EnforceNotMet::EnforceNotMet(std::string const&, char const*, int)"] + frames
    lines = ["", "", "--------------------------------------------", "C++ Call Stacks (More useful to developers):",
             "--------------------------------------------"]
    lines += [f"{i}   {f.replace('phi::', 'paddle::platform::')}" for i, f in enumerate(fr)]
    if c.rng.random() < 0.6:
        lines += ["", "------------------------------------------", "Python Call Stacks (More useful to users):",
                  "------------------------------------------",
                  f'  File "{c.site}/paddle/fluid/framework.py", line 2525, in append_op',
                  "    attrs=kwargs.get(\"attrs\", None))",
                  f'  File "{c.site}/paddle/fluid/layer_helper.py", line 43, in append_op',
                  "    return self.main_program.current_block().append_op(*args, **kwargs)"]
    lines += ["", "----------------------", "Error Message Summary:", "----------------------"]
    lines += summary
    c.em.block(lines, stream)


def glog_fatal(c: Ctx, loc: str, msg: str, frames: list | None = None) -> None:
    em, r = c.em, c.rng
    em.glog("F", loc, msg)
    lines = ["*** Check failure stack trace: ***"]
    for f in (frames or ["google::LogMessage::Fail()", "google::LogMessage::SendToLog()", "google::LogMessage::Flush()",
                         "google::LogMessageFatal::~LogMessageFatal()", "paddle::platform::CUDADeviceContext::Init()",
                         "paddle::platform::DeviceContextPool::Init()", "paddle::framework::InitDevices()"]):
        lines.append(f"    @     {c.hexaddr()}  {f}")
    lines.append(f"    @     {c.hexaddr()}  (unknown)")
    em.block(lines)
    if r.random() < 0.7:
        em.err("Aborted (core dumped)")


def fatal_signal(c: Ctx, signame: str, desc: str, frames: list | None = None) -> None:
    """3.x / late 2.x signal handler output ('FatalError: `Segmentation fault` is detected ...')."""
    em = c.em
    t = em.unix()
    if frames:
        head = ["", "", "--------------------------------------", "C++ Traceback (most recent call last):",
                "--------------------------------------"] + [f"{i}   {f}" for i, f in enumerate(frames)]
        em.block(head)
    em.block(["", "----------------------", "Error Message Summary:", "----------------------",
              f"FatalError: `{desc}` is detected by the operating system.",
              f'  [TimeInfo: *** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***]',
              f"  [SignalInfo: *** {signame} (@0x{c.rng.choice(('0', '3e9', '1f4')) if signame != 'SIGSEGV' else '0'}) received by PID "
              f"{em.pid} (TID {c.hexaddr()}) from PID {0 if signame == 'SIGSEGV' else em.pid} ***]", ""])


def hint_3x_cn(c: Ctx, msg: str, advice: str) -> None:
    """Chinese hints some team wrappers / PaddleX print around a 3.x error."""
    c.em.err(f"错误信息：{msg}", f"请检查{advice}")


def enforce_line(c: Ctx, etype: str, msg: str, hint: str | None, loc: str) -> list:
    """'(Type) message\\n  [Hint: ...] (at /paddle/...)' as printed by 2.x/3.x."""
    if hint:
        return [f"{etype}{msg}", f"  [Hint: {hint}] (at {loc})", ""]
    return [f"{etype}{msg} (at {loc})", ""]


_PYTYPE = {"External": "OSError", "ResourceExhausted": "MemoryError", "PreconditionNotMet": "RuntimeError",
           "NotFound": "RuntimeError", "InvalidArgument": "ValueError", "Unimplemented": "NotImplementedError",
           "Fatal": "SystemError", "Unavailable": "RuntimeError"}


def paddle_error(c: Ctx, code: str, msg: list, hint: str | None, loc: str, cpp_kind: str = "device",
                 py_frames: list | None = None, long_p: float = 0.5, loc_old: str | None = None,
                 op: str | None = None) -> str:
    """A Paddle C++ error surfacing in Python, formatted for the image's Paddle generation.

    msg: message lines (first line is the headline). loc: phi path "paddle/phi/...cc:66" (without the leading
    /paddle/). op: the operator a static-graph program was running ('[operator < conv2d > error]' follows the
    hint). Returns a short form tag ("1x" | "20" | "short" | "long").
    """
    hint_tail = f"  [operator < {op} > error]" if op else None
    r, em = c.rng, c.em
    if py_frames is None:
        py_frames = frames_user(c)
    py_tb(c, py_frames)
    cls = f"{code}Error"
    pytype = _PYTYPE.get(code, "RuntimeError")
    old_loc = "/paddle/" + (loc_old or loc.replace("paddle/phi/backends/gpu/cuda/cuda_info.cc", "paddle/fluid/platform/gpu_info.cc")
                            .replace("paddle/phi/", "paddle/fluid/platform/"))
    if c.gen == "1x":
        em.err("paddle.fluid.core_avx.EnforceNotMet: ")
        first = f"Error: {msg[0]}" if r.random() < 0.5 else f"{cls}: {msg[0]}"
        summary = [first] + msg[1:]
        if hint:
            summary.append(f"  [Hint: {hint}] at ({old_loc})")
        else:
            summary[-1] += f" at ({old_loc})"
        if hint_tail:
            summary.append(hint_tail)
        cpp_tb_1x(c, cpp_frames(c, "exec" if cpp_kind not in ("device", "alloc") else cpp_kind), summary)
        return "1x"
    path = old_loc if c.gen == "20" else (("../" if c.major >= 3 and r.random() < 0.4 else "/paddle/") + loc)
    if c.gen == "20" and code == "External":
        hint = (f"Please search for the error code({msg[0].split('(')[1].split(')')[0] if '(' in msg[0] else 0}) on website( "
                "https://docs.nvidia.com/cuda/archive/10.0/cuda-runtime-api/group__CUDART__TYPES.html"
                "#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038 ) to get Nvidia's official solution about CUDA Error.")
        body = [f"{cls}: {msg[0]}"] + msg[1:] + [f"  [Advise: {hint}] (at {path})"] + \
            ([hint_tail] if hint_tail else []) + [""]
        em.err(f"{pytype}: ")
        cpp_tb_2x(c, cpp_frames(c, cpp_kind), body)
        return "20"
    if r.random() < long_p:
        em.err(f"{pytype}: ")
        body = [f"{cls}: ", ""] + msg if code == "ResourceExhausted" else [f"{cls}: {msg[0]}"] + msg[1:]
        if hint:
            body += [f"  [Hint: {hint}] (at {path})"]
        else:
            body[-1] += f" (at {path})"
        body += ([hint_tail] if hint_tail else []) + [""]
        cpp_tb_2x(c, cpp_frames(c, cpp_kind), body)
        return "long"
    lines = [f"{pytype}: ({code}) {msg[0]}"] + msg[1:]
    if hint:
        lines += [f"  [Hint: {hint}] (at {path})"]
    else:
        lines[-1] += f" (at {path})"
    if hint_tail:
        lines.append(hint_tail)
    em.block(lines)
    return "short"


# --------------------------------------------------------------------------------------------------
# Failure surface forms, one function per category. Each prints the failure and returns a variant tag.

_CUDA_HINT35 = ("'cudaErrorInsufficientDriver'. This indicates that the installed NVIDIA CUDA driver is older than the "
                "CUDA runtime library. This is not a supported configuration.Users should install an updated NVIDIA "
                "display driver to allow the application to run.")


def e_cuda_driver_too_old(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "external35"), (1.5 if c.gen in ("1x", "20") else 0.3, "getdevicecount"),
                  (1 if c.gen in ("1x", "20") else 0.2, "glog_check_failed"),
                  (1 if c.major >= 3 or c.cuda >= "12" else 0.2, "compat804"), (1, "glog_warn_then_fail"),
                  (0.6, "run_check")])
    if v == "getdevicecount":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/fluid/framework.py", 1970, "cuda_places",
                                                 "device_ids = six.moves.range(core.get_cuda_device_count())")])
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::platform::GetCUDADeviceCount()"], [
            "Error: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCount, error code : 35, Please see "
            "detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
            "#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038: CUDA driver version is insufficient for CUDA "
            "runtime version at (/paddle/paddle/fluid/platform/gpu_info.cc:65)", ""])
        return f"{c.gen}_getdevicecount"
    if v == "glog_check_failed":
        glog_fatal(c, f"device_context.cc:{pick(r, (200, 243))}", "Check failed: e == cudaSuccess (35 vs. 0) CUDA driver "
                   "version is insufficient for CUDA runtime version",
                   ["google::LogMessage::Fail()", "google::LogMessage::SendToLog()", "google::LogMessage::Flush()",
                    "google::LogMessageFatal::~LogMessageFatal()", "paddle::platform::GetCUDADeviceCount()",
                    "paddle::platform::CUDADeviceContext::CUDADeviceContext()", "paddle::framework::InitDevices()"])
        return f"{c.gen}_glog_check_failed"
    if v == "compat804":
        paddle_error(c, "External", ["CUDA error(804), forward compatibility was attempted on non supported HW. "],
                     "'cudaErrorCompatNotSupportedOnDevice'. This error indicates that the system was upgraded to run "
                     "with forward compatibility but the visible hardware detected by CUDA does not support this "
                     "configuration. Refer to the compatibility documentation for the supported hardware matrix or ensure "
                     "that only supported hardware is visible during initialization via the CUDA_VISIBLE_DEVICES "
                     "environment variable.", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66")
        return f"{c.gen}_compat804"
    if v == "glog_warn_then_fail":
        em.glog("W", "gpu_info.cc:" + str(pick(r, (71, 95))) if c.gen in ("1x", "20") else "gpu_resources.cc:" + str(pick(r, (61, 76))),
                f"Please NOTE: device: 0, GPU Compute Capability: {c.cc}, Driver API Version: {c.driver_api}, "
                f"Runtime API Version: {c.cuda}")
        em.glog("W", "gpu_resources.cc:96", f"The installed Paddle is compiled with CUDA {c.cuda}, but CUDA runtime "
                f"version in your machine is {c.driver_api}, which may cause serious incompatible bug. Please recompile "
                "or reinstall Paddle with compatible CUDA version.")
    if v == "run_check":
        em.out("Running verify PaddlePaddle program ... ")
        py_tb(c, [("<string>", 1, "<module>", ""), (f"{c.site}/paddle/utils/install_check.py", pick(r, (270, 273)),
                   "run_check", "_run_static_single(use_cuda, use_xpu, use_custom, custom_device_name)")])
        em.block(["OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. ",
                  f"  [Hint: {_CUDA_HINT35}] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:66)", ""])
        return f"{c.gen}_run_check"
    tag = paddle_error(c, "External", ["CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. "],
                       _CUDA_HINT35, "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    if c.chinese and r.random() < 0.6:
        hint_3x_cn(c, "CUDA 驱动版本过低，无法运行当前镜像中的 CUDA 运行时", f" nvidia-smi 显示的 CUDA Version 是否 >= {c.cuda}")
    return f"{c.gen}_{v}_{tag}"


def e_gpu_not_visible(c: Ctx) -> str:
    r, em = c.rng, c.em
    cpu_wheel = c.extra.get("cpu_wheel", False)
    if cpu_wheel:
        v = wpick(r, [(2, "set_device"), (2 if c.job in ("ocr", "det") else 0, "ppocr_cpu"), (1.5, "place_unsupported"),
                      (1, "compiled_false")])
    else:
        v = wpick(r, [(2, "error100"), (2, "libcuda"), (1, "no_gpu_found"), (1 if c.gen in ("1x", "20") else 0.3, "cudaplace_1x")])
    if v == "set_device":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", pick(r, (268, 301, 330)), "set_device",
                                                 "place = _convert_to_place(device)"),
                                                (f"{c.pkg}/device/__init__.py", pick(r, (188, 209)), "_convert_to_place",
                                                 "raise ValueError(")])
        em.err("ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA")
    elif v == "ppocr_cpu":
        tag = "ppocr" if c.job == "ocr" else "ppdet.utils.check"
        em.out(f"[{em.ts_slash()}] {tag} ERROR: Config use_gpu cannot be set as true while you are using paddlepaddle "
               "cpu version ! ", "Please try: ", "\t1. Install paddlepaddle-gpu to run model on GPU ",
               "\t2. Set use_gpu as false in config file to run model on CPU")
        if r.random() < 0.5:
            em.err("SystemExit: 1" if r.random() < 0.3 else "")
    elif v == "place_unsupported":
        paddle_error(c, "Unavailable", ["Place Place(gpu:0) is not supported. Because paddle is not compiled with CUDA. "
                                        "Please check that your paddle compiles with WITH_GPU option."], None,
                     "paddle/phi/core/platform/device_context.cc:" + str(pick(r, (97, 133))), "exec")
    elif v == "compiled_false":
        em.out("paddle.is_compiled_with_cuda(): False", "paddle.device.get_device(): cpu")
        py_tb(c, frames_user(c, deep=False))
        em.err("AssertionError: GPU is not available in this container (paddle.is_compiled_with_cuda() is False)")
    elif v == "error100":
        if r.random() < 0.5:
            em.glog("W", "init.cc:" + str(pick(r, (201, 227))), "Compiled with WITH_GPU, but no GPU found in runtime.")
        paddle_error(c, "External", ["CUDA error(100), no CUDA-capable device is detected. "],
                     "'cudaErrorNoDevice'. This indicates that no CUDA-capable devices were detected by the installed "
                     "CUDA driver. ", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    elif v == "libcuda":
        em.glog("W", "dynamic_loader.cc:" + str(pick(r, (285, 307, 314))), "The third-party dynamic library (libcuda.so) that "
                "Paddle depends on is not configured correctly. (error code is libcuda.so: cannot open shared object "
                "file: No such file or directory)")
        paddle_error(c, "PreconditionNotMet", ["Cannot load cudart shared library. Cannot invoke method cudaGetDeviceCount."],
                     None, "paddle/phi/backends/dynload/cudart.h:" + str(pick(r, (40, 47))), "device", long_p=0.3)
    elif v == "no_gpu_found":
        em.glog("W", "init.cc:" + str(pick(r, (201, 227))), "Compiled with WITH_GPU, but no GPU found in runtime.")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", 301, "set_device",
                                                 "place = _convert_to_place(device)")])
        em.err("ValueError: The device id 0 exceeds gpu card number 0")
    else:
        paddle_error(c, "Unavailable", ["Place CUDAPlace(0) is not supported, Please check that your paddle compiles with "
                                        "WITH_GPU option or check that your train process hold the correct gpu_id if "
                                        "you use Executor"], None, "paddle/phi/device_context.cc:67",
                     "exec", loc_old="paddle/fluid/platform/device_context.cc:67")
    return f"{c.gen}_{v}"


_DYNLOAD_SUGGEST = ["  Suggestions:",
                    "  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed correctly and its "
                    "version is matched with paddlepaddle you installed.",
                    "  2. Configure third-party dynamic library environment variables as follows:",
                    "  - Linux: set LD_LIBRARY_PATH by `export LD_LIBRARY_PATH=...`",
                    "  - Windows: set PATH by `set PATH=XXX;"]


def e_cuda_lib_missing(c: Ctx) -> str:
    r, em = c.rng, c.em
    lib = c.extra.get("missing_cuda_lib", "libcudnn.so")
    v = wpick(r, [(2, "dynload"), (1.5 if c.gen in ("1x", "20") else 0.2, "dso_1x"), (1.2, "glog_then_error"),
                  (1, "cublas_versioned")])
    if v == "cublas_versioned" and lib == "libcublas.so":
        soname = f"libcublas.so.{c.cuda.split('.')[0]}"
    elif v == "cublas_versioned":          # the versioned soname of the missing library
        v, soname = "versioned_soname", f"{lib}.{c.cudnn.split('.')[0]}"
    else:
        soname = lib
    if v == "dso_1x":
        py_tb(c, frames_user(c) + frames_paddle_forward(c)[-1:])
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "RuntimeError: ")
        cpp_tb_1x(c, ["paddle::platform::dynload::GetCUDNNDsoHandle()", "paddle::platform::CudnnHolder::CudnnHolder"], [
            f"Error: Failed to find dynamic library: {lib} ( {lib}: cannot open shared object file: No such file or directory ) ",
            " Please specify its path correctly using following ways: ",
            " set environment variable LD_LIBRARY_PATH on Linux or DYLD_LIBRARY_PATH on Mac OS. ",
            " For instance, issue command: export LD_LIBRARY_PATH=... ",
            " Note: After Mac OS 10.11, using the DYLD_LIBRARY_PATH is impossible unless System Integrity Protection "
            "(SIP) is disabled. at (/paddle/paddle/fluid/platform/dynload/dynamic_loader.cc:177)"])
        return f"{c.gen}_dso_1x"
    if v == "glog_then_error":
        em.glog("W", "dynamic_loader.cc:" + str(pick(r, (285, 307))), f"The third-party dynamic library ({lib}) that "
                f"Paddle depends on is not configured correctly. (error code is {soname}: cannot open shared object file: "
                "No such file or directory)")
        em.block(_DYNLOAD_SUGGEST)
    msg = [f"The third-party dynamic library ({lib}) that Paddle depends on is not configured correctly. (error code "
           f"is {soname}: cannot open shared object file: No such file or directory)"] + _DYNLOAD_SUGGEST
    msg[-1] += " "
    paddle_error(c, "PreconditionNotMet", msg, None, "paddle/phi/backends/dynload/dynamic_loader.cc:" +
                 str(pick(r, (311, 338, 346))), "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    if c.major >= 3 and c.chinese:
        hint_3x_cn(c, f"找不到 {lib}", "镜像中是否安装了与 CUDA 版本匹配的 cuDNN，并设置 LD_LIBRARY_PATH")
    return f"{c.gen}_{v}"


_HINT209 = ("'cudaErrorNoKernelImageForDevice'. This indicates that there is no kernel image available that is suitable "
            "for the device. This can occur when a user specifies code generation options for a particular CUDA source "
            "file that do not include the corresponding device configuration.")


def e_gpu_arch_unsupported(c: Ctx) -> str:
    r, em = c.rng, c.em
    archs = c.extra.get("archs", "61 70 75 80 86")
    fam = {"3.7": "Kepler", "6.0": "Pascal", "9.0": "Hopper", "7.0": "Volta", "7.5": "Turing", "8.0": "Ampere", "8.6": "Ampere"}
    v = wpick(r, [(3, "error209"), (1.5 if c.gen in ("1x", "20") or c.cuda < "11" else 0.2, "error48"),
                  (1.5, "arch_warning_then_209"), (1, "glog_fatal")])
    if v == "arch_warning_then_209":
        em.err(f"{c.pkg}/device/__init__.py:{pick(r, (183, 224))}: UserWarning: The GPU architecture in your current "
               f"machine is {fam.get(c.cc, 'Hopper')}, which is not compatible with Paddle installation with arch: "
               f"{archs} , it is recommended to install the corresponding wheel package according to the installation "
               "information in the official Paddle website.", "  warnings.warn(")
    if v == "error48":
        py_tb(c, frames_user(c) + frames_paddle_forward(c))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::operators::math::SetConstant<paddle::platform::CUDADeviceContext, float>::operator()"],
                  ["Error: cudaFuncGetAttributes failed in paddle::platform::GpuLaunchConfig, error code : 48, Please see "
                   "detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
                   "#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038: no kernel image is available for execution "
                   "on the device at (/paddle/paddle/fluid/platform/gpu_launch_config.h:79)", ""])
        return f"{c.gen}_error48"
    if v == "glog_fatal":
        device_lines(c)
        glog_fatal(c, f"{pick(r, ('gpu_launch_config.h:79', 'elementwise_op_function.h:1632', 'gpu_info.cc:316'))}",
                   "Check failed: cudaSuccess == err (0 vs. 209) no kernel image is available for execution on the device")
        return f"{c.gen}_glog_fatal"
    device_lines(c)
    paddle_error(c, "External", ["CUDA error(209), no kernel image is available for execution on the device. "], _HINT209,
                 pick(r, ("paddle/phi/kernels/funcs/elementwise_base.h:" + str(pick(r, (842, 920))),
                          "paddle/phi/backends/gpu/cuda/cuda_info.cc:" + str(pick(r, (258, 266))),
                          "paddle/phi/kernels/gpu/full_kernel.cu:" + str(pick(r, (74, 96))))),
                 "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    return f"{c.gen}_{v}"


def e_system_lib_missing(c: Ctx) -> str:
    r, em = c.rng, c.em
    lib = c.extra.get("missing_sys_lib", "libGL.so.1")
    ocv = f"{c.site}/cv2/__init__.py"
    if lib in ("libGL.so.1", "libgthread-2.0.so.0", "libSM.so.6", "libXext.so.6", "libXrender.so.1"):
        v = wpick(r, [(2, "cv2_deep"), (1, "cv2_direct"), (1, "ppocr_import")])
        fr = frames_user(c, deep=False)[:1]
        if v == "ppocr_import":
            fr = [(f"{c.workdir}/PaddleOCR/tools/train.py", 30, "<module>", "from ppocr.data import build_dataloader, set_signal_handlers"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/__init__.py", 33, "<module>", "from ppocr.data.imaug import transform, create_operators"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/imaug/__init__.py", 19, "<module>", "from .iaa_augment import IaaAugment"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/imaug/iaa_augment.py", 24, "<module>", "import imgaug"),
                  (f"{c.site}/imgaug/__init__.py", 7, "<module>", "from imgaug.imgaug import *  # pylint: disable=redefined-builtin"),
                  (f"{c.site}/imgaug/imgaug.py", 19, "<module>", "import cv2")]
        elif v == "cv2_direct":
            fr = [(frames_user(c, deep=False)[0][0], pick(r, (3, 5, 8)), "<module>", "import cv2")]
        else:
            fr = fr[:1] if fr else []
            fr = [(fr[0][0] if fr else f"{c.workdir}/main.py", pick(r, (12, 17, 22)), "<module>", "from utils.data import build_loader"),
                  (f"{c.workdir}/utils/data.py", pick(r, (4, 9)), "<module>", "import cv2")]
        fr += [(ocv, 181, "<module>", "bootstrap()"), (ocv, 153, "bootstrap", 'native_module = importlib.import_module("cv2")'),
               ("/usr/lib/python3." + c.python.split(".")[1] + "/importlib/__init__.py", 126, "import_module",
                "return _bootstrap._gcd_import(name[level:], package, level)")]
        py_tb(c, fr)
        em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
        return f"{lib.split('.')[0]}_{v}"
    # libgomp / libssl: Paddle's own import fails
    v = wpick(r, [(1, "paddle_core"), (1 if c.fw == "fluid" else 0, "avx_core")])
    if v == "avx_core":
        em.err(f"Error: Can not import avx core while this file exists: {c.pkg}/fluid/core_avx.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (2, 3, 6)), "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", pick(r, (28, 31)), "<module>", "from .base import core  # noqa: F401" if c.major >= 3
               else f"from .{c.fw} import monkey_patch_variable"),
              (f"{c.pkg}/{c.fw}/core.py", pick(r, (268, 298, 325)), "<module>",
               "raise e" if r.random() < 0.5 else "from . import libpaddle")])
    em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
    return f"{lib.split('.')[0]}_{v}"


def e_shm_exhausted(c: Ctx) -> str:
    r, em = c.rng, c.em
    dl = f"{c.pkg}/io/dataloader/dataloader_iter.py" if c.major >= 2 else f"{c.site}/paddle/fluid/reader.py"
    v = wpick(r, [(3, "bus_error_queue"), (1.5, "workers_exit"), (1, "bus_core_dumped"),
                  (1 if c.gen in ("1x", "20") else 0.3, "reader_thread_1x"), (0.6, "shm_errno28")])
    if v in ("bus_error_queue", "workers_exit"):
        em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared "
               "memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
        if r.random() < 0.5:
            em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient "
                   "shared memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
    if v == "bus_error_queue":
        py_tb(c, frames_user(c)[:-1] + [(frames_user(c)[-1][0], frames_user(c)[-1][1] - 12, frames_user(c)[-1][2],
                                         "for idx, batch in enumerate(train_dataloader):"),
                                        (dl, pick(r, (825, 830)), "__next__", "self._reader.read_next_list()[0]"
                                         if r.random() < 0.5 else "data = self._reader.read_next_var_list()")])
        em.block(["SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.",
                  "  [Hint: Expected killed_ != true, but received killed_:1 == true:1.] (at "
                  "/paddle/paddle/fluid/operators/reader/blocking_queue.h:166)", ""])
    elif v == "workers_exit":
        py_tb(c, frames_user(c) + [(dl, pick(r, (825, 830)), "__next__", "self._reader.read_next_list()[0]"),
                                   (dl, 780, "_thread_loop", "raise e")])
        pids = ", ".join(str(em.pid + 30 + k) for k in range(r.randrange(1, 1 + max(1, c.num_workers))))
        em.err(f"RuntimeError: DataLoader {len(pids.split(','))} workers exit unexpectedly, pids: {pids}")
    elif v == "bus_core_dumped":
        em.err("Bus error (core dumped)")
    elif v == "reader_thread_1x":
        em.err("Exception in thread Thread-1:")
        py_tb(c, [("/usr/lib/python3.7/threading.py", 926, "_bootstrap_inner", "self.run()"),
                  ("/usr/lib/python3.7/threading.py", 870, "run", "self._target(*self._args, **self._kwargs)"),
                  (f"{c.site}/paddle/fluid/reader.py", 1106, "__thread_main__", "six.reraise(*sys.exc_info())"),
                  (f"{c.site}/paddle/fluid/multiprocess_utils.py", 105, "_func_register", "return func()")])
        em.err("OSError: [Errno 12] Cannot allocate memory")
        py_tb(c, frames_user(c))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "SystemError: ")
        cpp_tb_1x(c, cpp_frames(c, "reader"), ["Error: DataLoader reader thread raised an exception! at "
                                              "(/paddle/paddle/fluid/operators/reader/read_op.cc:120)", ""])
    else:
        py_tb(c, [(f"{c.site}/paddle/io/dataloader/worker.py", pick(r, (380, 397)), "_worker_loop",
                   "tensor_list = [core._array_to_share_memory_tensor(b) for b in flat_batch]"
                   if r.random() < 0.5 else "batch = fetcher.fetch(indices)")])
        em.err(f"OSError: [Errno 28] No space left on device: '/dev/shm/paddle_{r.randrange(16**8):08x}'")
        em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared "
               "memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
    if r.random() < 0.4 and v != "bus_core_dumped":
        em.err("Bus error (core dumped)")
    return f"{c.gen}_{v}"


def _gb(x: float) -> str:
    return f"{x:.6f}GB"


def e_gpu_oom(c: Ctx) -> str:
    r, em = c.rng, c.em
    dev = r.randrange(c.n_gpus) if c.n_gpus > 1 and r.random() < 0.3 else 0
    want = r.uniform(0.1, 4.0)
    avail_mb = r.uniform(10, 900)
    alloc = max(0.5, c.gpu_mem_gb * r.uniform(0.85, 0.98) - avail_mb / 1024)
    v = wpick(r, [(3, "resource_exhausted"), (1.5 if c.gen in ("1x", "20") else 0.3, "enforce_1x"),
                  (1, "cuda_error2"), (1 if c.major >= 3 else 0.3, "memory_error_gib"), (0.7, "infer_predictor")])
    oom = [f"Out of memory error on GPU {dev}. Cannot allocate {_gb(want)} memory on GPU {dev}, {_gb(alloc)} memory has "
           f"been allocated and available memory is only {avail_mb:.6f}MB.", "",
           f"Please check whether there is any other process using GPU {dev}.",
           "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
           "2. If no, please decrease the batch size of your model. "]
    if c.extra.get("fraction"):
        oom.append("If the above ways do not solve the out of memory problem, you can try to use CUDA managed memory. "
                   "The command is `export FLAGS_use_cuda_managed_memory=false`.")
    frames = frames_user(c) + (frames_paddle_forward(c) if r.random() < 0.7 else [
        (f"{c.pkg}/base/dygraph/tensor_patch_methods.py" if c.fw == "base" else f"{c.pkg}/fluid/dygraph/varbase_patch_methods.py",
         pick(r, (294, 342)), "backward", "core.eager.run_backward([self], grad_tensor, retain_graph)")])
    if v == "cuda_error2":
        paddle_error(c, "External", ["CUDA error(2), out of memory. "],
                     "'cudaErrorMemoryAllocation'. The API call failed because it was unable to allocate enough memory "
                     "to perform the requested operation. ", "paddle/phi/backends/gpu/gpu_context.cc:" + str(pick(r, (595, 621))),
                     "conv", py_frames=frames)
        return f"{c.gen}_cuda_error2"
    if v == "memory_error_gib":
        oom[0] = (f"Out of memory error on GPU {dev}. Cannot allocate {want * 1024:.0f}.{r.randrange(100):02d}MiB memory on "
                  f"GPU {dev}, {alloc:.2f}GiB memory has been allocated and available memory is only {avail_mb:.2f}MiB.")
    if v == "infer_predictor":
        em.glog("W", "analysis_predictor.cc:" + str(pick(r, (2154, 2460))), "Out of memory, try to reduce the batch size "
                "or the max_batch_size of TensorRT engine.")
    paddle_error(c, "ResourceExhausted", oom, None, "paddle/phi/core/memory/allocation/cuda_allocator.cc:" +
                 str(pick(r, (84, 86))) if c.major >= 3 else "paddle/fluid/memory/allocation/cuda_allocator.cc:86",
                 "alloc", py_frames=frames, long_p=0.7,
                 loc_old="paddle/fluid/memory/allocation/cuda_allocator.cc:69")
    return f"{c.gen}_{v}"


def e_host_oom(c: Ctx) -> str:
    """Host memory: the kernel OOM killer (exit 137, nothing or 'Killed'), or an allocation failure."""
    r, em = c.rng, c.em
    v = wpick(r, [(3, "cut_off"), (3, "shell_killed"), (1, "bad_alloc"), (1, "cpu_alloc_fail"),
                  (1 if c.launch else 0, "launch_sigkill")])
    if v == "cut_off":
        return "cut_off"       # nothing more: the process was SIGKILLed mid-output
    if v == "shell_killed":
        cmd = pick(r, ("python3 tools/train.py -c configs/train.yml", "python train.py", "python3 run_finetune.py args.json",
                       "python3 infer.py --model_dir /workspace/inference"))
        em.err(pick(r, (f"/entrypoint.sh: line {r.randrange(5, 40)}: {r.randrange(7, 90):>5} Killed                  {cmd}",
                        "Killed", f"bash: line 1: {r.randrange(7, 90):>5} Killed                  {cmd}")))
        return "shell_killed"
    if v == "bad_alloc":
        em.err("terminate called after throwing an instance of 'std::bad_alloc'", "  what():  std::bad_alloc")
        if c.major >= 2 and r.random() < 0.7:
            fatal_signal(c, "SIGABRT", "Process abort signal",
                         cpp_frames(c, "alloc", 4) if r.random() < 0.5 else None)
        else:
            em.err("Aborted (core dumped)")
        return f"{c.gen}_bad_alloc"
    if v == "cpu_alloc_fail":
        paddle_error(c, "ResourceExhausted", [f"Fail to alloc memory of {r.randrange(2, 64) * 2**30} size, error code is 12."],
                     "Expected error == 0, but received error:12 != 0:0.",
                     "paddle/phi/core/memory/allocation/cpu_allocator.cc:50" if c.major >= 3 else
                     "paddle/fluid/memory/allocation/cpu_allocator.cc:50", "alloc")
        return f"{c.gen}_cpu_alloc_fail"
    em.out(f"LAUNCH INFO {em.ts_comma()} Pod failed")
    em.out(f"LAUNCH ERROR {em.ts_comma()} Container failed !!!",
           "Container rank 0 status failed cmd ['python', '-u', 'tools/train.py'] code -9 log log/workerlog.0")
    return "launch_sigkill"


def e_model_version_incompatible(c: Ctx) -> str:
    r, em = c.rng, c.em
    exp = c.extra.get("model_version", "3.0.0")
    md = c.model_dir
    v = wpick(r, [(2 if c.major < 3 else 0.3, "pir_json_on_old"), (2, "op_not_registered"), (2, "kernel_not_registered"),
                  (1, "program_version")])
    fr = frames_user(c, deep=False) + [(f"{c.workdir}/utils/predictor.py", pick(r, (31, 42)), "__init__",
                                        "self.predictor = paddle.inference.create_predictor(config)")]
    if v == "pir_json_on_old":
        em.out(f"[{em.ts_iso()}] INFO model files in {md}: inference.json inference.pdiparams inference.yml")
        paddle_error(c, "NotFound", [f"Cannot open file {md}/inference.pdmodel, please confirm whether the file is normal."],
                     None, "paddle/fluid/inference/api/analysis_predictor.cc:" + str(pick(r, (2350, 2580))), "exec",
                     py_frames=fr, long_p=0.3)
    elif v == "op_not_registered":
        op = pick(r, ("fused_multi_transformer_int8", "pd_op.fused_rotary_position_embedding", "flash_attn_v3",
                      "fused_bias_dropout_residual_layer_norm", "lookup_table_v2" if c.gen == "1x" else "pir_mhsa"))
        paddle_error(c, "NotFound", [f"Operator ({op}) is not registered."], "op_info_ptr should not be null.",
                     "paddle/fluid/framework/op_info.h:" + str(pick(r, (141, 152))), "exec", py_frames=fr)
    elif v == "kernel_not_registered":
        kn = pick(r, ("fused_multi_transformer", "weight_only_linear", "masked_multihead_attention", "swiglu"))
        paddle_error(c, "NotFound", [f"The kernel with key (GPU, Undefined(AnyLayout), float32) of kernel `{kn}` is not "
                                     "registered. Selected wrong DataType `float32`. Paddle support following DataTypes: "
                                     "float16, bfloat16."],
                     "Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but "
                     "received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.",
                     "paddle/phi/core/kernel_factory.cc:" + str(pick(r, (273, 308))), "exec", py_frames=fr)
    else:
        paddle_error(c, "InvalidArgument", [f"The model was exported by PaddlePaddle {exp}, which is newer than the current "
                                            f"PaddlePaddle {c.paddle}. Unsupported program version "
                                            f"{exp.replace('.', '')}00 (max supported {c.paddle.replace('.', '')}00)."],
                     None, "paddle/fluid/framework/version.cc:" + str(pick(r, (59, 77))), "exec", py_frames=fr)
    return f"{c.gen}_{v}"


def e_api_incompatible(c: Ctx) -> str:
    r, em = c.rng, c.em
    entry = frames_user(c, deep=False)[0][0]
    if c.fw == "base":      # 2.6 moved paddle.fluid to paddle.base; 3.x removed it
        v = wpick(r, [(3, "no_fluid_attr"), (2, "no_fluid_module"), (1.5, "cannot_import"), (1, "unexpected_kw")])
    else:                   # 2.5 removed most of paddle.fluid.layers
        v = wpick(r, [(2, "fluid_layers_removed"), (1, "unexpected_kw"), (1, "cannot_import")])
    if v == "no_fluid_attr":
        py_tb(c, [(entry, pick(r, (41, 88, 130)), "<module>", "place = paddle.fluid.CUDAPlace(0)"
                   if r.random() < 0.5 else "with paddle.fluid.dygraph.guard():")])
        em.err("AttributeError: module 'paddle' has no attribute 'fluid'")
    elif v == "no_fluid_module":
        py_tb(c, [(entry, pick(r, (4, 7, 12)), "<module>", "import paddle.fluid as fluid")])
        em.err("ModuleNotFoundError: No module named 'paddle.fluid'")
    elif v == "cannot_import":
        if c.fw == "base":
            name, mod = pick(r, (("_non_static_mode", "paddle.base.framework"), ("fluid", "paddle"),
                                 ("_dygraph_tracer", "paddle.base.framework")))
        else:
            name, mod = pick(r, (("in_dygraph_mode", "paddle.fluid.framework"), ("fc", "paddle.fluid.layers"),
                                 ("_varbase_creator", "paddle.fluid.framework")))
        py_tb(c, [(entry, pick(r, (5, 9, 14)), "<module>", f"from {mod} import {name}")])
        where = f"{c.pkg}/__init__.py" if mod == "paddle" else \
            f"{c.pkg}/{mod.split('.', 1)[1].replace('.', '/')}" + ("/__init__.py" if mod.endswith("layers") else ".py")
        em.err(f"ImportError: cannot import name '{name}' from '{mod}' ({where})")
    elif v == "unexpected_kw":
        api, kw = pick(r, (("Conv2D.__init__", "use_cudnn"), ("Linear.__init__", "act"), ("to_tensor", "stop_gradient_"),
                           ("BatchNorm2D.__init__", "act")))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/models/net.py", pick(r, (22, 51, 77)), "__init__",
                                                 f"self.conv = nn.Conv2D(3, 64, 3, {kw}=True)" if "Conv" in api else
                                                 f"self.layer = nn.{api.split('.')[0]}(512, 512, {kw}='relu')")])
        em.err(f"TypeError: {api}() got an unexpected keyword argument '{kw}'")
    else:
        layer = pick(r, ("fc", "data", "conv2d", "elementwise_add", "reduce_mean", "softmax_with_cross_entropy"))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/models/net.py", pick(r, (31, 64)), "build",
                                                 f"out = fluid.layers.{layer}(input=x, size=10)" if layer == "fc"
                                                 else f"out = fluid.layers.{layer}(x)")])
        em.err(f"AttributeError: module 'paddle.fluid.layers' has no attribute '{layer}'")
    return f"{c.gen}_{v}"


_NUMPY2 = ["", "A module that was compiled using NumPy 1.x cannot be run in", "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x",
           "versions of NumPy, modules must be compiled with NumPy 2.0.", "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.",
           "", "If you are a user of the module, the easiest solution will be to",
           "downgrade to 'numpy<2' or try to upgrade the affected module.", "We expect that some modules will need time to support NumPy 2.", ""]

_PROTOBUF = ["TypeError: Descriptors cannot be created directly.",
             "If this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.",
             "If you cannot immediately regenerate your protos, some other possible workarounds are:",
             " 1. Downgrade the protobuf package to 3.20.x or lower.",
             " 2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python parsing and will be much slower).",
             "", "More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates"]


def e_python_dependency_conflict(c: Ctx) -> str:
    r, em = c.rng, c.em
    kind = c.extra.get("dep_conflict", "numpy2")
    entry = frames_user(c, deep=False)[0][0]
    if kind == "protobuf":
        v = "protobuf"
        py_tb(c, [(entry, pick(r, (3, 6)), "<module>", "import paddle"),
                  (f"{c.pkg}/__init__.py", pick(r, (25, 31)), "<module>", "from .framework import monkey_patch_variable"),
                  (f"{c.pkg}/framework/__init__.py", 17, "<module>", "from . import random  # noqa: F401"),
                  (f"{c.pkg}/{c.fw}/framework.py", 36, "<module>", "from .proto import framework_pb2"),
                  (f"{c.pkg}/{c.fw}/proto/framework_pb2.py", 33, "<module>", "_descriptor.EnumValueDescriptor("),
                  (f"{c.site}/google/protobuf/descriptor.py", 796, "__new__", "_message.Message._CheckCalledFromGeneratedFile()")])
        em.block(_PROTOBUF)
    elif kind == "numpy2":
        v = wpick(r, [(2, "numpy2_abi"), (1, "np_bool_removed")])
        if v == "numpy2_abi":
            em.block(_NUMPY2 + ["Traceback (most recent call last):  File \"" + entry + "\", line 4, in <module>",
                                "    import cv2", f'  File "{c.site}/cv2/__init__.py", line 181, in <module>',
                                "    bootstrap()"])
            py_tb(c, [(entry, 4, "<module>", "import cv2"), (f"{c.site}/cv2/__init__.py", 181, "<module>", "bootstrap()"),
                      (f"{c.site}/cv2/__init__.py", 153, "bootstrap", 'native_module = importlib.import_module("cv2")')])
            em.err(pick(r, ("ImportError: numpy.core.multiarray failed to import", "AttributeError: _ARRAY_API not found")))
        else:
            py_tb(c, frames_user(c) + [(f"{c.workdir}/ppdet/data/transform/operators.py" if c.job == "det" else
                                        f"{c.workdir}/utils/transforms.py", pick(r, (120, 388)), "apply",
                                        "mask = np.zeros(shape, dtype=np.bool)")])
            em.block(["AttributeError: module 'numpy' has no attribute 'bool'.",
                      "`np.bool` was a deprecated alias for the builtin `bool`. To avoid this error in existing code, use "
                      "`bool` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted "
                      "the numpy scalar type, use `np.bool_` here.",
                      "The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original "
                      "release note at:", "    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations"])
    elif kind == "markupsafe":
        v = "markupsafe"
        py_tb(c, [(entry, 9, "<module>", "from visualdl import LogWriter"),
                  (f"{c.site}/visualdl/__init__.py", 20, "<module>", "from visualdl.writer.writer import LogWriter  # noqa: F401"),
                  (f"{c.site}/jinja2/__init__.py", 12, "<module>", "from .environment import Environment"),
                  (f"{c.site}/jinja2/utils.py", 642, "<module>", "from markupsafe import Markup, escape, soft_unicode")])
        em.err(f"ImportError: cannot import name 'soft_unicode' from 'markupsafe' ({c.site}/markupsafe/__init__.py)")
    else:
        mod = pick(r, ("imgaug", "pycocotools", "lmdb", "paddlenlp", "sentencepiece", "pyclipper", "rapidfuzz"))
        v = "module_not_found"
        py_tb(c, [(entry, pick(r, (8, 21)), "<module>", f"import {mod}")])
        em.err(f"ModuleNotFoundError: No module named '{mod}'")
    return f"{c.gen}_{v}"


def _nccl_prefix(c: Ctx, rank: int = 0) -> str:
    host = c.extra.get("hostname", "trainer-0")
    return f"{host}:{c.em.pid}:{c.em.pid + 40 + rank} [{rank}]"


def e_distributed_comm_failure(c: Ctx) -> str:
    r, em = c.rng, c.em
    peer = c.rank_ips[-1] if c.rank_ips else "10.10.0.3"
    me = c.rank_ips[0] if c.rank_ips else "10.10.0.2"
    iface = c.extra.get("iface", "eth0")
    v = wpick(r, [(3, "nccl_system_error"), (1.5, "store_timeout"), (1, "nccl_remote_error"), (1, "unhandled_cuda"),
                  (0.8 if c.gen in ("1x", "20") else 0.2, "nccl_1x")])
    p = _nccl_prefix(c)
    if v in ("nccl_system_error", "nccl_remote_error", "nccl_1x"):
        em.out(f"{p} NCCL INFO Bootstrap : Using {iface}:{me}<0>",
               f"{p} NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
               f"{p} NCCL INFO NET/IB : No device found.",
               f"{p} NCCL INFO NET/Socket : Using [0]{iface}:{me}<0>",
               f"{p} NCCL INFO Using network Socket")
        em.adv(r.uniform(1, 120))
        em.out(f"{p} NCCL WARN {pick(r, ('Connect', 'Net : Connect'))} to {peer}<{r.randrange(30000, 60000)}> failed : "
               f"{pick(r, ('Connection refused', 'No route to host', 'Connection timed out'))}",
               f"{p} NCCL INFO {pick(r, ('misc/socket.cc:456', 'include/socket.h:409'))} -> 2",
               f"{p} NCCL INFO transport/net_socket.cc:{pick(r, (334, 406))} -> 2",
               f"{p} NCCL INFO transport/net.cc:{pick(r, (592, 683))} -> 2",
               f"{p} NCCL INFO init.cc:{pick(r, (1112, 1235))} -> 2")
    if v == "store_timeout":
        port = r.randrange(6000, 9000)
        for _ in range(r.randrange(3, 12)):
            em.glog("I", "tcp_utils.cc:107", f"Retry to connect to {peer}:{port} while the server is not yet listening.")
            em.adv(r.uniform(3, 90))
        paddle_error(c, "InvalidArgument", [f"Network {peer}:{port} timeout."], None,
                     "paddle/phi/core/distributed/store/tcp_utils.cc:" + str(pick(r, (118, 126))), "nccl",
                     py_frames=frames_user(c, deep=False) + [(f"{c.pkg}/distributed/parallel.py", pick(r, (1084, 1119)),
                                                               "init_parallel_env", "store = core.create_or_get_global_tcp_store()")],
                     long_p=0.3)
    elif v == "nccl_remote_error":
        paddle_error(c, "External", ["NCCL error(6), remote process exited or there was a network error. "],
                     "'ncclRemoteError'. A call failed possibly due to a network error or a remote process exiting "
                     "prematurely. ", "paddle/phi/core/distributed/nccl_comm_context.cc:" + str(pick(r, (81, 203))), "nccl",
                     py_frames=frames_user(c) + [(f"{c.pkg}/distributed/communication/all_reduce.py", 115, "all_reduce",
                                                  "return stream.all_reduce(")])
    elif v == "unhandled_cuda":
        em.out(f"{p} NCCL WARN Cuda failure 'peer access is not supported between these two devices'",
               f"{p} NCCL INFO init.cc:1235 -> 1")
        paddle_error(c, "External", ["NCCL error(1), unhandled cuda error. "],
                     "'ncclUnhandledCudaError'. Call to CUDA function failed. ",
                     "paddle/fluid/distributed/collective/process_group_nccl.cc:" + str(pick(r, (1149, 1206))), "nccl")
    elif v == "nccl_1x":
        py_tb(c, frames_user(c, deep=False))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::platform::NCCLContextMap::NCCLContextMap", "paddle::framework::ParallelExecutor::ParallelExecutor"],
                  ["Error: NCCL error 2, unhandled system error at (/paddle/paddle/fluid/platform/nccl_helper.h:115)",
                   ""])
    else:
        paddle_error(c, "External", ["NCCL error(2), unhandled system error. "],
                     "'ncclSystemError'. System call (e.g. socket, malloc) or external library call failed or device "
                     "error. It can be also caused by unexpected exit of a remote peer, you can see the log of other "
                     "rank(s) for the cause of the error.", "paddle/phi/core/distributed/nccl_comm_context.cc:" +
                     str(pick(r, (81, 95))) if c.major >= 3 or c.paddle >= "2.5" else
                     "paddle/fluid/platform/device/gpu/nccl_helper.h:" + str(pick(r, (115, 200))), "nccl")
        if r.random() < 0.4:
            em.err("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ")
    if c.launch:
        em.out(f"LAUNCH INFO {em.ts_comma()} Pod failed",
               f"LAUNCH ERROR {em.ts_comma()} Container failed !!!")
    return f"{c.gen}_{v}"


def e_native_crash(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "segv_fatal"), (1.5, "glog_check_abort"), (1 if c.gen in ("1x", "20") else 0.5, "segv_1x"),
                  (1, "free_invalid"), (0.7, "illegal_instruction")])
    if v == "segv_fatal":
        fatal_signal(c, "SIGSEGV", "Segmentation fault",
                     cpp_frames(c, pick(r, ("conv", "eager", "exec"))) if r.random() < 0.7 else None)
        if r.random() < 0.5:
            em.err("Segmentation fault (core dumped)")
    elif v == "glog_check_abort":
        glog_fatal(c, pick(r, ("custom_operator.cc:" + str(pick(r, (117, 276))), "tensor.cc:" + str(pick(r, (75, 143))),
                               "kernel_context.h:" + str(pick(r, (104, 115))))),
                   pick(r, ("Check failed: ctx.InputRangeAt(i).first < ctx.InputRangeAt(i).second ",
                            "Check failed: holder_ != nullptr Tensor holds no memory. Call Tensor::mutable_data first.",
                            "Check failed: 0 == cudaStreamSynchronize(stream) (0 vs. 700) ")),
                   ["google::LogMessage::Fail()", "google::LogMessage::SendToLog()", "google::LogMessage::Flush()",
                    "google::LogMessageFatal::~LogMessageFatal()", "paddle::framework::RunKernelFunc()",
                    "custom_setup_ops::RoIAlignRotatedForward()"])
        if c.major >= 2 and r.random() < 0.6:
            fatal_signal(c, "SIGABRT", "Process abort signal")
    elif v == "segv_1x":
        t = em.unix()
        em.block([f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                  "PC: @                0x0 (unknown)",
                  f"*** SIGSEGV (@0x0) received by PID {em.pid} (TID {c.hexaddr()}) from PID 0; stack trace: ***"] +
                 [f"    @     {c.hexaddr()} {f}" for f in ("(unknown)", "paddle::framework::Tensor::mutable_data()",
                                                          "paddle::operators::CUDNNConvOpKernel<>::Compute()", "(unknown)")])
        em.err("Segmentation fault (core dumped)")
    elif v == "free_invalid":
        em.err(pick(r, ("free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size")))
        if c.major >= 2 and r.random() < 0.5:
            fatal_signal(c, "SIGABRT", "Process abort signal")
        else:
            em.err("Aborted (core dumped)")
    else:
        if c.major >= 2 and r.random() < 0.5:
            fatal_signal(c, "SIGILL", "Illegal instruction")
        em.err("Illegal instruction (core dumped)")
    return f"{c.gen}_{v}"


def e_disk_full(c: Ctx, path: str = "./output/best_model/model.pdparams") -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "paddle_save_errno28"), (1.5, "logging_error"), (1, "cp_shell"), (1, "sqlite_full"), (1, "vdl_write")])
    if v == "paddle_save_errno28":
        io = f"{c.pkg}/framework/io.py"
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/utils/save_load.py" if c.job != "nlp" else
                                                 f"{c.site}/paddlenlp/trainer/trainer.py", pick(r, (188, 2270)), "save_model",
                                                 f"paddle.save(model.state_dict(), {path!r})" if c.job != "nlp" else
                                                 "self._save(output_dir=output_dir, merge_tensor_parallel=merge_tensor_parallel)"),
                                                (io, pick(r, (780, 792, 839)), "save", "_legacy_save(obj, path, protocol)"),
                                                (io, pick(r, (945, 1009)), "_legacy_save", "f.write(pickle_bytes)")])
        em.err("OSError: [Errno 28] No space left on device")
    elif v == "logging_error":
        em.block(["--- Logging error ---", "Traceback (most recent call last):",
                  f'  File "/usr/lib/python3.{c.python.split(".")[1]}/logging/__init__.py", line 1087, in emit',
                  "    self.flush()", f'  File "/usr/lib/python3.{c.python.split(".")[1]}/logging/__init__.py", line 1067, in flush',
                  "    self.stream.flush()", "OSError: [Errno 28] No space left on device", "Call stack:"] +
                 [f'  File "{f}", line {ln}, in {fn}\n    {code}'.split("\n")[0] for f, ln, fn, code in frames_user(c)] +
                 ["Message: 'save model in %s'", f"Arguments: ('{path}',)"])
        py_tb(c, frames_user(c, deep=False))
        em.err(f"OSError: [Errno 28] No space left on device: '{path}'")
    elif v == "cp_shell":
        em.err(f"cp: error writing '/workspace/output/{path.lstrip('./')}': No space left on device")
        em.err(f"tar: /workspace/output/ckpt_{r.randrange(100)}.tar: Wrote only {r.randrange(1, 10) * 512} of 10240 bytes",
               "tar: Error is not recoverable: exiting now")
    elif v == "sqlite_full":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/sqlalchemy/engine/default.py", 924, "do_execute",
                                                 "cursor.execute(statement, parameters)")])
        em.err("sqlite3.OperationalError: database or disk is full")
    else:
        py_tb(c, frames_user(c) + [(f"{c.site}/visualdl/writer/writer.py", pick(r, (118, 132)), "add_scalar",
                                    "self._get_file_writer().add_record(")])
        em.err(f"OSError: [Errno 28] No space left on device: './output/vdl/vdlrecords.{em.unix()}.log'")
    return f"{c.gen}_{v}"


def e_file_not_found(c: Ctx) -> str:
    r, em = c.rng, c.em
    md = c.model_dir
    v = wpick(r, [(2, "paddle_load_not_exists"), (2 if c.job in ("infer", "serving") else 0.5, "cannot_open_pdmodel"),
                  (2, "python_fnf"), (1 if c.gen in ("1x", "20") else 0.2, "load_op_1x"), (1, "config_missing")])
    if v == "paddle_load_not_exists":
        ckpt = pick(r, ("./output/best_model/model.pdparams", "/workspace/pretrained/ResNet50_vd_ssld_pretrained.pdparams",
                        "/data/ckpt/latest.pdparams", "./checkpoints/checkpoint-500/model_state.pdparams"))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/framework/io.py", pick(r, (1009, 1107)), "load",
                                                 "raise ValueError(")])
        em.err(f"ValueError: The ``path`` ({ckpt}) to load model not exists.")
    elif v == "cannot_open_pdmodel":
        paddle_error(c, "NotFound", [f"Cannot open file {md}/{pick(r, ('model.pdmodel', 'inference.pdmodel'))}, please confirm "
                                     "whether the file is normal."], None,
                     "paddle/fluid/inference/api/analysis_predictor.cc:" + str(pick(r, (2350, 2580))), "exec", long_p=0.3)
    elif v == "python_fnf":
        f = pick(r, ("/data/coco/annotations/instances_train2017.json", "./train_data/rec/train_list.txt",
                     "/mnt/datasets/ocr/labels.txt", "/workspace/data/train.jsonl"))
        py_tb(c, frames_user(c) [:2] + [(f"{c.workdir}/utils/dataset.py", pick(r, (33, 58)), "__init__",
                                         "with open(file_list, 'r', encoding='utf-8') as f:")])
        em.err(f"FileNotFoundError: [Errno 2] No such file or directory: '{f}'")
    elif v == "load_op_1x":
        py_tb(c, frames_user(c, deep=False))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "RuntimeError: ")
        cpp_tb_1x(c, cpp_frames(c, "exec", 4), [f"Error: Cannot open file {md}/__model__ for load op at "
                                                 "(/paddle/paddle/fluid/operators/load_op.h:37)", ""])
    else:
        cfg = pick(r, ("configs/rec/PP-OCRv4/ch_PP-OCRv4_rec.yml", "/etc/job/config.yaml", "configs/ppyoloe/ppyoloe_plus_crn_l_80e_coco.yml"))
        py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (30, 180)), "<module>", "config = load_config(FLAGS.config)")])
        em.err(f"FileNotFoundError: [Errno 2] No such file or directory: '{cfg}'")
    return f"{c.gen}_{v}"


def e_unknown(c: Ctx) -> str:
    """A failure that fits no cause of the taxonomy: the log says little or names nothing we know."""
    r, em = c.rng, c.em
    v = wpick(r, [(2, "silent_exit"), (1.5, "deadline_sigterm"), (1, "download_failed"), (1, "remote_service")])
    if v == "silent_exit":          # the script gave up on its own and only its wrapper says so
        em.err(pick(r, ("Error: training exited abnormally, see above", "[ERROR] job step 'train' failed",
                        f"+ exit {pick(r, (1, 2, 255))}", "make: *** [Makefile:12: train] Error 1")))
    elif v == "deadline_sigterm":   # the scheduler's deadline, not a fault of the job or the node
        em.err(pick(r, ("Terminated", "[INFO] received SIGTERM, exiting", "rpc error: code = DeadlineExceeded")))
    elif v == "download_failed":
        url = pick(r, ("https://paddledet.bj.bcebos.com/models/pretrained/ResNet50_cos_pretrained.pdparams",
                       "https://paddleocr.bj.bcebos.com/PP-OCRv4/chinese/ch_PP-OCRv4_rec_train.tar",
                       "https://bj.bcebos.com/paddlenlp/models/transformers/ernie_3.0/ernie_3.0_medium_zh.pdparams"))
        for k in range(r.randrange(1, 4)):
            em.err(f"[{em.ts_short()}] ppdet.utils.download WARNING: Download from {url} failed, retry {k + 1}")
            em.adv(r.uniform(5, 60))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/utils/download.py", pick(r, (185, 200)), "_download",
                                                 'raise RuntimeError("Download from {} failed. "')])
        em.err(f"RuntimeError: Download from {url} failed. Retry limit reached")
    else:
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/requests/adapters.py", pick(r, (519, 565)), "send",
                                                 "raise ConnectionError(e, request=request)")])
        em.err("requests.exceptions.ConnectionError: HTTPConnectionPool(host='metrics-gw.ml.svc', port=8080): Max retries "
               "exceeded with url: /api/v1/push (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object "
               f"at {c.hexaddr()}>: Failed to establish a new connection: [Errno 111] Connection refused'))")
    return f"{c.gen}_{v}"


# --------------------------------------------------------------------------------------------------
# code_error: the job's own code, data or config is wrong (pipeline.simulate plants the bug in a revision,
# a dataset version or a config; ctx.extra["job_bug"] names it). The error is raised in the job's own
# files or by Paddle's checks on what the job passed; no environment signature belongs here.

# when each bug strikes: a config that does not parse stops the job before it touches the GPU; a broken
# model fails on the first batch; bad samples are met somewhere in the epoch
CODE_BUG_PHASE = {
    "yaml": "import", "missing_key": "import", "unknown_key": "import", "argparse": "import",
    "shape_matmul": "first", "conv_channels": "first", "reshape": "first", "broadcast": "first", "dtype": "first",
    "loss_shape": "first", "wrong_model": "first", "num_classes": "step", "user_exception": "step",
    "label_range": "step", "label_map": "load", "parse_line": "load", "collate": "first", "illegal_address": "step",
    "embedding_ids": "step", "json_line": "load", "bad_input": "step",
}

_REPO = {"ocr": "PaddleOCR", "det": "PaddleDetection"}


def _repo(c: Ctx) -> str:
    """Where the job's own code lives: a cloned PaddleOCR/PaddleDetection tree or the team's workdir."""
    return f"{c.workdir}/{_REPO[c.job]}" if c.job in _REPO else c.workdir


def _nums(c: Ctx, pairs) -> tuple:
    return pick(c.rng, pairs)


_OWN_FILES = {   # the job's own model / loss / dataset files, by job kind
    "model": {"ocr": ("ppocr/modeling/heads/rec_ctc_head.py", "ppocr/modeling/necks/rnn.py", "ppocr/modeling/backbones/rec_lcnetv3.py"),
              "det": ("ppdet/modeling/heads/ppyoloe_head.py", "ppdet/modeling/backbones/cspresnet.py", "ppdet/modeling/necks/custom_pan.py"),
              "nlp": ("model/classifier.py", "model/ernie.py", "run_finetune.py")},
    "loss": {"ocr": ("ppocr/losses/rec_ctc_loss.py", "ppocr/losses/cls_loss.py"),
             "det": ("ppdet/modeling/losses/varifocal_loss.py", "ppdet/modeling/losses/custom_ce_loss.py"),
             "nlp": ("run_finetune.py", "model/loss.py")},
    "data": {"ocr": ("ppocr/data/simple_dataset.py",), "det": ("ppdet/data/source/shelf_coco.py",),
             "nlp": ("utils/data.py", "run_finetune.py")},
}


def _own(c: Ctx, what: str, fn: str, code: str) -> list:
    """One frame in the job's own file of that role; inference jobs hit the bug inside predictor.run()."""
    if c.job in ("infer", "serving"):
        return [(f"{c.workdir}/utils/predictor.py", pick(c.rng, (64, 71)), "run", "self.predictor.run()")]
    return [(f"{_repo(c)}/{pick(c.rng, _OWN_FILES[what][c.job])}", c.rng.randrange(30, 300), fn, code)]


def _infer_like(c: Ctx) -> bool:
    return c.job in ("infer", "serving")


def _old_enforce(c: Ctx, head: str, detail: str, loc: str, fn: str, frames: list) -> None:
    """Fluid <= 1.5: 'EnforceNotMet: ... at [/paddle/...]' and the 'PaddlePaddle Call Stacks:' address list."""
    r = c.rng
    py_tb(c, frames)
    mod = pick(r, ("paddle.fluid.core.EnforceNotMet", "paddle.fluid.core_avx.EnforceNotMet"))
    stack = ["paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
             fn, "paddle::framework::OperatorWithKernel::RunImpl(paddle::framework::Scope const&, boost::variant<"
             "paddle::platform::CUDAPlace, paddle::platform::CPUPlace, paddle::platform::CUDAPinnedPlace, "
             "boost::detail::variant::void_, boost::detail::variant::void_> const&) const",
             "paddle::framework::OperatorBase::Run(paddle::framework::Scope const&, boost::variant<paddle::platform::"
             "CUDAPlace, paddle::platform::CPUPlace, paddle::platform::CUDAPinnedPlace> const&)",
             "paddle::framework::Executor::RunPreparedContext(paddle::framework::ExecutorPrepareContext*, "
             "paddle::framework::Scope*, bool, bool, bool)"]
    lines = [f"{mod}: {head}", f"{detail} at [/paddle/paddle/fluid/{loc}]", "PaddlePaddle Call Stacks:"]
    lines += [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(80, 4000)}" for i, f in enumerate(stack)]
    c.em.block(lines)


def _checked(c: Ctx, msg: str, hint: str, loc: str, loc_fluid: str, op: str, frames: list, old: tuple | None = None,
             cpp_kind: str = "exec") -> str:
    """One of Paddle's InvalidArgument checks on what the job passed, in the image generation's format."""
    r = c.rng
    if old and c.gen == "1x" and c.paddle < "1.6":
        _old_enforce(c, *old, frames)
        return "enforce_callstacks"
    static = c.gen in ("1x", "20") or c.legacy_code or r.random() < 0.25   # static graphs name the operator
    tag = paddle_error(c, "InvalidArgument", [msg], hint, loc, cpp_kind, py_frames=frames, long_p=0.4,
                       loc_old=loc_fluid, op=op if static else None)
    if c.major >= 3 and c.chinese and r.random() < 0.4:
        hint_3x_cn(c, "输入数据的形状或类型与模型不匹配", "数据预处理、配置中的类别数和模型结构是否一致")
    return tag + ("_op" if static else "")


def _fw_frames(c: Ctx, user: list, paddle_tail: list) -> list:
    """Entry point, the job's own layer that makes the call, then Paddle's own frames down to the op."""
    return frames_user(c, deep=False) + user + paddle_tail


def _linear_tail(c: Ctx) -> list:
    pk, r = c.pkg, c.rng
    if c.gen in ("1x", "20"):
        return [(f"{pk}/fluid/dygraph/layers.py", pick(r, (461, 891)), "__call__", "outputs = self.forward(*inputs, **kwargs)"),
                (f"{pk}/fluid/dygraph/nn.py", pick(r, (921, 958)), "forward", "'transpose_Y', False, \"alpha\", 1)")]
    return [(f"{pk}/nn/layer/layers.py", pick(r, (1254, 1429)), "__call__", "return self.forward(*inputs, **kwargs)"),
            (f"{pk}/nn/layer/common.py", pick(r, (175, 186)), "forward", "out = F.linear("),
            (f"{pk}/nn/functional/common.py", pick(r, (1863, 2005)), "linear",
             "return _C_ops.linear(x, weight, bias)" if c.major >= 3 else "out = _C_ops.matmul(x, weight, False, False)")]


def _conv_tail(c: Ctx) -> list:
    return frames_paddle_forward(c)[-3:]


def bug_shape_matmul(c: Ctx) -> str:
    r = c.rng
    a, b = _nums(c, ((30, 512), (2048, 1024), (768, 1024), (1280, 960), (256, 512), (1, 5)))
    m = c.batch_size
    user = _own(c, "model", "forward", pick(r, ("x = self.fc(x)", "logits = self.classifier(pooled_output)",
                                                "out = self.linear(paddle.flatten(x, 1))")))
    frames = _fw_frames(c, user, [] if _infer_like(c) else _linear_tail(c))
    if c.gen == "1x" and c.paddle < "1.6" and r.random() < 0.3:
        _old_enforce(c, f"enforce x_mat_dims[1] == y_mat_dims[0] failed, {a} != {b}",
                     "First matrix's width must be equal with second matrix's height.", f"operators/mul_op.cc:{pick(r, (59, 60))}",
                     "paddle::operators::MulOp::InferShape(paddle::framework::InferShapeContext*) const", frames)
        return "mul_enforce_failed"
    old = (f"Enforce failed. Expected x_mat_dims[1] == y_mat_dims[0], but received x_mat_dims[1]:{a} != y_mat_dims[0]:{b}.",
           f"First matrix's width must be equal with second matrix's height. {a}, {b}", f"operators/mul_op.cc:{pick(r, (59, 60))}",
           "paddle::operators::MulOp::InferShape(paddle::framework::InferShapeContext*) const")
    if c.gen in ("1x", "20"):
        return "mul_" + _checked(
            c, f"After flatten the input tensor X and Y to 2-D dimensions matrix X1 and Y1, the matrix X1's width must be "
               f"equal with matrix Y1's height. But received X's shape = [{m}, {a}], X1's shape = [{m}, {a}], X1's width = "
               f"{a}; Y's shape = [{b}, 10], Y1's shape = [{b}, 10], Y1's height = {b}.",
            f"Expected x_mat_dims[1] == y_mat_dims[0], but received x_mat_dims[1]:{a} != y_mat_dims[0]:{b}.",
            "paddle/phi/infermeta/binary.cc:2010", f"paddle/fluid/operators/mul_op.cc:{pick(r, (80, 96))}", "mul", frames, old)
    return "matmul_" + _checked(
        c, f"Input(Y) has error dim. Y'dims[0] must be equal to {a}, but received Y'dims[0] is {b}.",
        f"Expected y_dims[y_ndim - 2] == x_dims[x_ndim - 1], but received y_dims[y_ndim - 2]:{b} != x_dims[x_ndim - 1]:{a}.",
        f"paddle/phi/infermeta/binary.cc:{pick(r, (2096, 2212, 2431))}", "paddle/fluid/operators/matmul_v2_op.cc:78",
        "matmul_v2", frames, cpp_kind="eager")


def bug_conv_channels(c: Ctx) -> str:
    r = c.rng
    b = 1 if c.job in ("infer", "serving") else c.batch_size
    nhwc = r.random() < 0.6          # images fed HWC where the model wants CHW
    hw = pick(r, (224, 320, 640, 608))
    if nhwc:
        cin, shape, fch, fshape = hw, [b, hw, hw, 3], 3, [pick(r, (16, 32, 64)), 3, 3, 3]
    else:
        cin, fch = _nums(c, ((6, 3), (1, 3), (4, 3), (17024, 2688), (512, 256)))
        shape, fshape = [b, cin, hw, hw], [64, fch, 3, 3]
    user = _own(c, "model", "forward", "x = self.conv1(x)")
    frames = _fw_frames(c, user, [] if _infer_like(c) else _conv_tail(c))
    shp, fsh = ", ".join(map(str, shape)), ", ".join(map(str, fshape))
    old = (f"Enforce failed. Expected input_channels == filter_dims[1] * groups, but received input_channels:{cin} != "
           f"filter_dims[1] * groups:{fch}.", "The number of input channels should be equal to filter channels * groups.",
           "operators/conv_op.cc:61", "paddle::operators::ConvOp::InferShape(paddle::framework::InferShapeContext*) const")
    hint = f"Expected input_channels == filter_dims[1] * groups, but received input_channels:{cin} != filter_dims[1] * groups:{fch}."
    if c.gen == "1x":
        msg = (f"ShapeError: The number of input channels should be equal to filter channels * groups. But received: the "
               f"input channels is [{cin}], the shape of input is [{shp}], the filter channel is [{fch}], the shape of "
               f"filter is [{fsh}],the groups is [1]")
    elif c.gen == "20" or r.random() < 0.3:
        msg = (f"The input's channels are {cin}, the input's shape is [{shp}];\nthe filter's channels are {fch}, the "
               f"filter's shape is [{fsh}];\nthe groups are 1, the data_format is NCHW.\nThe error may come from the wrong "
               "data_format setting.")
    else:
        msg = (f"The number of input's channels should be equal to filter's channels * groups for Op(Conv). But received: "
               f"the input's channels is {cin}, the input's shape is [{shp}]; the filter's channels is {fch}, the filter's "
               f"shape is [{fsh}]; the groups is 1, the data_format is NCHW. The error may come from wrong data_format setting.")
    lines = msg.split("\n")
    tag = _checked(c, lines[0], hint, f"paddle/phi/infermeta/binary.cc:{pick(r, (557, 602, 623))}",
                   f"paddle/fluid/operators/conv_op.cc:{pick(r, (94, 119))}", "conv2d", frames, old, cpp_kind="conv") \
        if len(lines) == 1 else _checked_multi(c, lines, hint, frames)
    return ("nhwc_" if nhwc else "channels_") + tag


def _checked_multi(c: Ctx, lines: list, hint: str, frames: list) -> str:
    """The multi-line conv message of Paddle 2.0-2.4 ('The input's channels are ...;' one clause per line)."""
    py_tb(c, frames)
    c.em.block([f"ValueError: (InvalidArgument) {lines[0]}"] + lines[1:] +
               [f"  [Hint: {hint}] (at ../paddle/fluid/operators/conv_op.cc:119)", "  [operator < conv2d > error]"])
    return "multiline_op"


def bug_reshape(c: Ctx) -> str:
    r = c.rng
    b = 1 if c.job in ("infer", "serving") else c.batch_size
    got, want = _nums(c, ((320, 224), (640, 608), (48, 32), (256, 224)))
    ch = pick(r, (3, 8, 16))
    in_shape = [b, ch, got, got]
    in_size = b * ch * got * got
    cap = -(ch * want * want)
    unk = int(-in_size / cap)           # Paddle divides, then checks the product
    lhs = unk * cap
    user = _own(c, "model", "forward", f"x = paddle.reshape(x, [-1, {ch}, {want}, {want}])")
    frames = _fw_frames(c, user, [(f"{c.pkg}/tensor/manipulation.py", pick(r, (3705, 4082)), "reshape",
                                   "out = _C_ops.reshape(x, shape)")] if c.gen not in ("1x", "20") and not _infer_like(c) else [])
    old = (f"Enforce failed. Expected output_shape[unk_dim_idx] * capacity == -in_size, but received output_shape[unk_dim_idx] "
           f"* capacity:{lhs} != -in_size:{-in_size}.", "Invalid shape is given.", "operators/reshape_op.cc:98",
           "paddle::operators::ReshapeOp::ValidateShape(std::vector<int, std::allocator<int> >, paddle::framework::DDim const&)")
    return "reshape_" + _checked(
        c, f"The 'shape' attribute in ReshapeOp is invalid. The input tensor X'size must be divisible by known capacity of "
           f"'shape'. But received X's shape = [{', '.join(map(str, in_shape))}], X's size = {in_size}, 'shape' is "
           f"[-1, {ch}, {want}, {want}], known capacity of 'shape' is {cap}.",
        f"Expected output_shape[unk_dim_idx] * capacity == -in_size, but received output_shape[unk_dim_idx] * capacity:{lhs} "
        f"!= -in_size:{-in_size}.", f"paddle/phi/infermeta/unary.cc:{pick(r, (1950, 2024, 2191))}",
        "paddle/fluid/operators/reshape_op.cc:210", "reshape2", frames, old)


def bug_broadcast(c: Ctx) -> str:
    r = c.rng
    a, b = _nums(c, ((56, 55), (32, 10), (1024, 512), (80, 81), (4, 3)))
    n = 1 if c.job in ("infer", "serving") else c.batch_size
    if r.random() < 0.3:      # numpy in the job's own post-processing
        py_tb(c, frames_user(c, deep=False) + [(f"{_repo(c)}/utils/postprocess.py", pick(r, (19, 44)), "decode",
                                                 "scores = logits.reshape(-1, num_classes) + prior")])
        c.em.err(f"ValueError: operands could not be broadcast together with shapes ({n},{a}) ({b},)")
        return "numpy_broadcast"
    x, y = f"[{n}, 256, 8, {a}]", f"[{n}, 256, 8, {b}]"
    user = _own(c, "model", "forward", pick(r, ("out = lateral + F.interpolate(top, scale_factor=2)", "x = x + pos_embed",
                                                "loss = (pred - target) ** 2")))
    frames = _fw_frames(c, user, [(f"{c.pkg}/tensor/math.py", pick(r, (493, 572)), "add", "return _C_ops.add(x, y)")]
                        if c.gen not in ("1x", "20") and not _infer_like(c) else [])
    return "broadcast_" + _checked(
        c, f"Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = {x} and the shape "
           f"of Y = {y}. Received [{a}] in X is not equal to [{b}] in Y at i:3.",
        "Expected x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1 == true, but received "
        "x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1:0 != true:1.",
        f"paddle/phi/kernels/funcs/common_shape.h:{pick(r, (84, 86))}",
        "paddle/fluid/operators/elementwise/elementwise_op_function.h:160", pick(r, ("elementwise_add", "elementwise_sub")),
        frames)


def bug_dtype(c: Ctx) -> str:
    r, em = c.rng, c.em
    want, held = pick(r, (("float", "double"), ("float", "long"), ("long", "int")))
    np_name = {"float": "float32", "double": "float64", "long": "int64", "int": "int32"}
    infer = _infer_like(c)
    user = [(f"{c.workdir}/utils/predictor.py", pick(r, (58, 64)), "run", "input_tensor.copy_from_cpu(np.array(batch))")] \
        if infer else _own(c, "loss", "forward", "loss = self.loss_fn(preds, paddle.to_tensor(batch[1]))")
    frames = frames_user(c, deep=infer) + user
    if c.gen == "1x":
        py_tb(c, frames)
        head = pick(r, ("PaddleCheckError: ", "paddle.fluid.core_avx.EnforceNotMet: ", "C++ Call stacks:\n"))
        em.block((head + f"Tensor holds the wrong type, it holds {held}, but desires to be {want} at "
                  "[/paddle/paddle/fluid/framework/tensor_impl.h:30]").split("\n") +
                 ["PaddlePaddle Call Stacks:", pick(r, ("Windows not support stack backtrace yet.",
                                                        f"0       {c.hexaddr()}p paddle::platform::EnforceNotMet::EnforceNotMet("
                                                        "std::__exception_ptr::exception_ptr, char const*, int) + 486"))])
        return "wrong_type_1x"
    if not infer and r.random() < 0.35:     # the static-graph dtype check in Python
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/base/data_feeder.py" if c.fw == "base" else
                                                 f"{c.pkg}/fluid/data_feeder.py", pick(r, (80, 142)), "check_dtype",
                                                 "raise TypeError(")])
        em.err(f"TypeError: The data type of 'label' in cross_entropy must be int64, but received "
               f"{pick(r, ('float32', 'float64', 'int32'))}. ")
        return "check_dtype"
    return "retrieve_type_" + _checked(
        c, f"The type of data we are trying to retrieve ({np_name[want]}) does not match the type of data "
           f"({np_name[held]}) currently contained in the container.", None,
        f"paddle/phi/core/dense_tensor.cc:{pick(r, (171, 180))}", "paddle/fluid/framework/tensor_impl.h:33",
        "feed", frames)


def bug_loss_shape(c: Ctx) -> str:
    r = c.rng
    seq = pick(c.rng, (300, 128, 512))
    user = [(f"{c.workdir}/run_finetune.py", r.randrange(100, 300), "compute_loss", "loss = F.cross_entropy(logits, labels)"),
            (f"{c.pkg}/nn/functional/loss.py", pick(r, (2741, 2866)), "cross_entropy", "_, out = _C_ops.cross_entropy_with_softmax(")]
    frames = frames_user(c) + user
    msg = "Input(Logits) and Input(Label) should in same shape in dimensions except axis."
    hint = f"Expected logits_dims[i] == labels_dims[i], but received logits_dims[i]:{seq} != labels_dims[i]:1."
    if r.random() < 0.4:      # printed on one line, as 2.3 does
        py_tb(c, frames)
        c.em.err(f"ValueError: (InvalidArgument) {msg}[Hint: {hint}] (at /paddle/paddle/fluid/operators/"
                 f"softmax_with_cross_entropy_op.cc:{pick(r, (164, 181))})")
        return "logits_label_oneline"
    return "logits_label_" + _checked(c, msg, hint, f"paddle/phi/infermeta/binary.cc:{pick(r, (1050, 1128))}",
                                      "paddle/fluid/operators/softmax_with_cross_entropy_op.cc:164",
                                      "softmax_with_cross_entropy", frames)


_CUDA_700 = ("'cudaErrorIllegalAddress'. The device encountered a load or store instruction on an invalid memory address. "
             "This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To "
             "continue using CUDA, the process must be terminated and relaunched.")
_CUDA_719 = ("'cudaErrorLaunchFailure'. An exception occurred on the device while executing a kernel. Common causes include "
             "dereferencing an invalid device pointer and accessing out of bounds shared memory. Less common cases can be "
             "system specific - more information about these cases can be found in the system specific user guide. This "
             "leaves the process in an inconsistent state and any further CUDA work will return the same error. To "
             "continue using CUDA, the process must be terminated and relaunched.")


def _classes(c: Ctx) -> tuple[int, int]:
    """(num_classes the model has, the label the bad sample carries)."""
    n = pick(c.rng, (2, 3, 10, 80, 1000, 5))
    return n, n + c.rng.randrange(0, 3)


def bug_label_range(c: Ctx) -> str:
    r, em = c.rng, c.em
    n, lab = _classes(c)
    loss_fr = _own(c, "loss", "forward", "loss = F.cross_entropy(logit, label, ignore_index=self.ignore_index)")
    v = wpick(r, [(2 if c.major >= 2 else 0, "target_bound"), (1.5 if c.major >= 2 else 0, "gpu_assert"),
                  (1.5 if c.gen == "1x" else 0.3, "label_enforce"), (1, "job_assert")])
    if v == "target_bound":
        py_tb(c, frames_user(c) + loss_fr + [(f"{c.pkg}/nn/functional/loss.py", pick(r, (2671, 2749)), "cross_entropy",
                                               "raise ValueError(")])
        em.err(f"ValueError: Target {lab} is out of upper bound.")
    elif v == "gpu_assert":
        for _ in range(r.randrange(1, 4)):
            em.err(f"Error: ../paddle/phi/kernels/gpu/cross_entropy_kernel.cu:{pick(r, (285, 310))} Assertion "
                   "`labels[idx_lbl] >= 0 && labels[idx_lbl] < d || labels[idx_lbl] == ignore_index` failed. The value "
                   f"of label expected >= 0 and < {n}, or == -100, but got {lab}. Please check label value.")
        paddle_error(c, "External", ["CUDA error(719), unspecified launch failure. "], _CUDA_719,
                     f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}", "conv",
                     py_frames=frames_user(c) + loss_fr)
    elif v == "label_enforce":
        paddle_error(c, "InvalidArgument", [f"Variable value (label) of OP(fluid.layers.cross_entropy) expected >= 0 and < "
                                            f"{n}, but got {lab}. Please check label value."],
                     f"Expected label_value < class_num, but received label_value:{lab} >= class_num:{n}.",
                     "paddle/phi/kernels/cpu/cross_entropy_kernel.cc:58", "exec", py_frames=frames_user(c) + loss_fr,
                     loc_old="paddle/fluid/operators/math/cross_entropy.cc:40", op="cross_entropy2")
    else:    # the job's own sanity check on its data
        py_tb(c, frames_user(c) + _own(c, "data", "__getitem__", "assert label < self.num_classes, f\"label value should "
                                       "be less than num_classes ({self.num_classes}), got {label}\""))
        em.err(f"AssertionError: label value should be less than num_classes ({n}), got {lab}")
    return f"{c.gen}_{v}"


def bug_label_map(c: Ctx) -> str:
    r, em = c.rng, c.em
    repo = _repo(c)
    if r.random() < 0.6 or c.job != "det":     # a class in the annotations that the label list lacks
        cname = pick(r, ("'rats'", "'bbox'", "'person '", "'shelf_gap'", "'Price_Tag'"))
        py_tb(c, [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
                  (f"{repo}/tools/train.py", pick(r, (136, 168)), "main", "run(FLAGS, cfg)"),
                  (f"{repo}/tools/train.py", pick(r, (102, 123)), "run", "trainer = Trainer(cfg, mode='train')"),
                  (f"{repo}/ppdet/engine/trainer.py", pick(r, (63, 94)), "__init__", "self.loader = create('{}Reader'"
                   ".format(capital_mode))(self.dataset, cfg.worker_num)"),
                  (f"{repo}/ppdet/data/reader.py", pick(r, (162, 165)), "__call__", "self.dataset.parse_dataset()"),
                  (f"{repo}/ppdet/data/source/voc.py", pick(r, (136, 154)), "parse_dataset", "gt_class[i][0] = cname2cid[cname]")])
        em.err(f"KeyError: {cname}")
        return "voc_cname2cid"
    n = pick(r, (3, 6, 79))
    py_tb(c, frames_user(c, deep=False) + [(f"{repo}/ppdet/engine/trainer.py", pick(r, (740, 811)), "evaluate",
                                            "self._eval_with_loader(self.loader)"),
                                           (f"{repo}/ppdet/metrics/json_results.py", pick(r, (32, 41)), "get_det_res",
                                            "category_id = label_to_cat_id_map[int(num_id)]")])
    em.err(f"KeyError: {n}")
    return "label_to_cat_id"


def bug_embedding_ids(c: Ctx) -> str:
    r, em = c.rng, c.em
    rows = pick(r, (18000, 40000, 283925, 30522))
    bad = rows + r.randrange(1, 400)
    fr = frames_user(c) + [(f"{c.workdir}/model/ernie.py", r.randrange(40, 300), "forward", "emb_out = self.word_emb(src_ids)")]
    api = "fluid.layers.embedding" if c.gen in ("1x", "20") else "paddle.nn.functional.embedding"
    msg = f"Variable value (input) of OP({api}) expected >= 0 and < {rows}, but got {bad}. Please check input value."
    if c.gen != "1x" and r.random() < 0.5:      # on the GPU the kernel asserts, then CUDA reports the bad access
        for _ in range(r.randrange(1, 4)):
            em.err(f"Error: ../paddle/phi/kernels/gpu/embedding_kernel.cu:{pick(r, (41, 48))} Assertion `id < N` failed. {msg}")
        paddle_error(c, "External", ["CUDA error(700), an illegal memory access was encountered. "], _CUDA_700,
                     f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}", "conv", py_frames=fr)
        return f"{c.gen}_embedding_gpu_assert"
    paddle_error(c, "InvalidArgument", [msg], f"Expected ids[i] < row_number, but received ids[i]:{bad} >= row_number:{rows}.",
                 "paddle/phi/kernels/cpu/embedding_kernel.cc:" + str(pick(r, (68, 74))), "exec", py_frames=fr,
                 loc_old="paddle/fluid/operators/lookup_table_op.h:94")
    return f"{c.gen}_embedding_ids"


def bug_illegal_address(c: Ctx) -> str:
    """Out-of-range labels on the GPU: often nothing but CUDA error 700/719 says what went wrong."""
    r = c.rng
    n, lab = _classes(c)
    if r.random() < 0.4:
        c.em.err(f"Error: ../paddle/phi/kernels/gpu/cross_entropy_kernel.cu:{pick(r, (285, 310))} Assertion "
                 "`labels[idx_lbl] >= 0 && labels[idx_lbl] < d || labels[idx_lbl] == ignore_index` failed. The value of "
                 f"label expected >= 0 and < {n}, or == -100, but got {lab}. Please check label value.")
    fr = frames_user(c) + _own(c, "loss", "forward", "loss = paddle.nn.functional.softmax_with_cross_entropy(logits, label)")
    if c.gen in ("1x", "20"):
        paddle_error(c, "External", ["Cuda error(719), unspecified launch failure."], None,
                     "paddle/phi/backends/gpu/gpu_info.cc:394", "conv", py_frames=fr, loc_old="paddle/fluid/platform/gpu_info.cc:394")
        return f"{c.gen}_cuda719"
    e700 = r.random() < 0.6
    paddle_error(c, "External", ["CUDA error(700), an illegal memory access was encountered. " if e700 else
                                 "CUDA error(719), unspecified launch failure. "], _CUDA_700 if e700 else _CUDA_719,
                 f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}" if r.random() < 0.5 else
                 f"paddle/phi/backends/gpu/gpu_context.cc:{pick(r, (595, 621))}", "conv", py_frames=fr)
    return f"{c.gen}_cuda{'700' if e700 else '719'}"


def _user_exception_site(c: Ctx) -> tuple:
    """(file in the job's own tree, function, line of code, exception line) for a bug in the job's own code."""
    repo, wd = _repo(c), c.workdir
    sites = {
        "ocr": ((f"{repo}/ppocr/postprocess/rec_postprocess.py", "decode",
                 "char_list = [self.character[int(text_id)] for text_id in text_index[batch_idx][selection]]",
                 "IndexError: list index out of range"),
                (f"{repo}/ppocr/data/imaug/label_ops.py", "encode", "text_list.append(self.dict[char])", "KeyError: '丶'"),
                (f"{repo}/tools/program.py", "train", "eval_class.reset()", "AttributeError: 'NoneType' object has no attribute 'reset'")),
        "det": ((f"{repo}/ppdet/data/transform/operators.py", "apply", "x1, y1, x2, y2 = sample['gt_bbox'][i]",
                 "ValueError: too many values to unpack (expected 4)"),
                (f"{repo}/ppdet/modeling/heads/shelf_head.py", "forward", "feat = feats[self.level]",
                 "IndexError: list index out of range"),
                (f"{repo}/ppdet/engine/callbacks.py", "on_step_end", "loss = logs['loss'].numpy()",
                 "AttributeError: 'float' object has no attribute 'numpy'")),
        "nlp": ((f"{wd}/run_finetune.py", "convert_example", "label = example['label']", "KeyError: 'label'"),
                (f"{wd}/utils/metrics.py", "compute_metrics", "preds = np.argmax(p.predictions, axis=1)",
                 "numpy.exceptions.AxisError: axis 1 is out of bounds for array of dimension 1" if c.python >= "3.9"
                 else "numpy.AxisError: axis 1 is out of bounds for array of dimension 1"),
                (f"{wd}/run_finetune.py", "main", "train_ds = load_dataset(read_custom, data_path=data_args.train_path, lazy=False)",
                 "NameError: name 'read_custom' is not defined"),
                (f"{wd}/utils/data.py", "collate", "input_ids = [ex['input_ids'] + [pad] * (max_len - len(ex)) for ex in batch]",
                 "TypeError: can only concatenate list (not \"int\") to list")),
        "infer": ((f"{wd}/utils/preprocess.py", "normalize", "img = (img / 255.0 - self.mean) / self.std",
                   "TypeError: unsupported operand type(s) for /: 'NoneType' and 'float'"),
                  (f"{wd}/infer.py", "postprocess", "label = id2label[int(idx)]", "KeyError: 1000"),
                  (f"{wd}/utils/predictor.py", "run", "self.inputs[name].copy_from_cpu(batch[name])", "KeyError: 'im_shape'")),
        "serving": ((f"{wd}/web_service.py", "init_op", "self.char_dict = load_dict(self.config['dict_path'])",
                     "KeyError: 'dict_path'"),
                    (f"{wd}/web_service.py", "preprocess", "data = base64.b64decode(input_dict['image'].encode('utf8'))",
                     "UnboundLocalError: local variable 'input_dict' referenced before assignment")),
    }
    return pick(c.rng, sites.get(c.job, sites["infer"]))


def bug_user_exception(c: Ctx) -> str:
    r = c.rng
    path, fn, code, exc = _user_exception_site(c)
    py_tb(c, frames_user(c) + [(path, r.randrange(20, 400), fn, code)])
    c.em.err(exc)
    return f"{exc.split(':')[0].rsplit('.', 1)[-1]}_{fn}"


def bug_parse_line(c: Ctx) -> str:
    """PaddleOCR's SimpleDataSet logs every label line it cannot split, retries another one, and gives up."""
    r, em = c.rng, c.em
    ds = f"{_repo(c)}/ppocr/data/simple_dataset.py"
    blank = r.random() < 0.35
    texts = ("的所有变迁，能够替", "闽龙渔08281", "q22741T2", "或系统的测试[1]", "收款人：", "合计金额")
    for _ in range(r.randrange(3, 12)):
        line = "" if blank else f"train_images/{r.randrange(100000):06d}.jpg {pick(r, texts)}"   # a space, not a tab
        em.block([f"[{em.ts_slash()}] ppocr ERROR: When parsing line {line}", ", error happened with msg: Traceback "
                  "(most recent call last):", f'  File "{ds}", line {pick(r, (128, 150))}, in __getitem__',
                  "    label = substr[1]", "IndexError: list index out of range"], "stdout")
        em.adv(r.uniform(0.01, 0.5))
    loop = [(f"{_repo(c)}/tools/program.py", pick(r, (262, 284)), "train", "for idx, batch in enumerate(train_dataloader):"),
            (f"{_dl_dir(c)}/dataloader_iter.py", pick(r, (217, 235)), "_thread_loop", "batch = self._dataset_fetcher.fetch(indices,"),
            (f"{_dl_dir(c)}/fetcher.py", pick(r, (121, 134)), "fetch", "data.append(self.dataset[idx])")]
    py_tb(c, frames_user(c, deep=False) + loop + [(ds, pick(r, (162, 171)), "__getitem__", "return self.__getitem__(rnd_idx)")] * 3)
    em.err("RecursionError: maximum recursion depth exceeded while calling a Python object")
    return "parse_line_blank" if blank else "parse_line_no_tab"


def _dl_dir(c: Ctx) -> str:
    return f"{c.pkg}/io/dataloader" if c.paddle >= "2.5" else f"{c.pkg}/fluid/dataloader"


def bug_collate(c: Ctx) -> str:
    r, em = c.rng, c.em
    dl, pyv = _dl_dir(c), c.python.split(".")[1]
    stack = [(f"{dl}/fetcher.py", pick(r, (121, 134, 138)), "fetch", "data = self.collate_fn(data)"),
             (f"{dl}/collate.py", 77, "default_collate_fn", "return [default_collate_fn(fields) for fields in zip(*batch)]"),
             (f"{dl}/collate.py", 77, "<listcomp>", "return [default_collate_fn(fields) for fields in zip(*batch)]"),
             (f"{dl}/collate.py", 58, "default_collate_fn", "batch = np.stack(batch, axis=0)"),
             ("<__array_function__ internals>", 180, "stack", ""),
             (f"{c.site}/numpy/core/shape_base.py", 426, "stack", "raise ValueError('all input arrays must have the same shape')")]
    err = pick(r, ("ValueError: all input arrays must have the same shape",
                   "ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape "
                   "after 1 dimensions. The detected shape was (%d,) + inhomogeneous part." % c.batch_size))
    if "inhomogeneous" in err:          # raised by np.array on ragged fields, not by np.stack
        stack = stack[:3] + [(f"{dl}/collate.py", pick(r, (60, 66)), "default_collate_fn", "return np.array(batch)")]
    if c.num_workers == 0 or r.random() < 0.3:
        em.err(f"Exception in thread Thread-{r.randrange(1, 4)}:")
        py_tb(c, [(f"/usr/lib/python3.{pyv}/threading.py", 926, "_bootstrap_inner", "self.run()"),
                  (f"/usr/lib/python3.{pyv}/threading.py", 870, "run", "self._target(*self._args, **self._kwargs)"),
                  (f"{dl}/dataloader_iter.py", pick(r, (217, 218, 235)), "_thread_loop", "batch = self._dataset_fetcher.fetch(indices,")]
              + stack)
        em.err(err)
        py_tb(c, frames_user(c) + [(f"{dl}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.block(["SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.",
                  "  [Hint: Expected killed_ != true, but received killed_:1 == true:1.] (at "
                  "/paddle/paddle/fluid/operators/reader/blocking_queue.h:166)", ""])
        return "collate_thread"
    wid = r.randrange(max(1, c.num_workers))
    py_tb(c, frames_user(c) + [(f"{dl}/dataloader_iter.py", pick(r, (825, 830)), "__next__", "data = self._get_data()"),
                               (f"{dl}/dataloader_iter.py", pick(r, (718, 745)), "_get_data", "data.reraise()"),
                               (f"{dl}/worker.py", pick(r, (169, 175)), "reraise", "raise self.exc_type(msg)")])
    inner = [f'  File "{f}", line {ln}, in {fn}' + (f"\n    {code}" if code else "") for f, ln, fn, code in
             [(f"{dl}/worker.py", pick(r, (352, 372)), "_worker_loop", "batch = fetcher.fetch(indices)")] + stack]
    em.block([f"{err.split(':')[0]}: DataLoader worker({wid}) caught {err.split(':')[0]} with message:",
              "Traceback (most recent call last):"] + "\n".join(inner).split("\n") + [err])
    return "collate_worker"


def bug_json_line(c: Ctx) -> str:
    r = c.rng
    py_v = c.python.split(".")[1]
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/run_finetune.py", r.randrange(40, 120), "read_custom",
                                             "example = json.loads(line)"),
                                            (f"/usr/lib/python3.{py_v}/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                                            (f"/usr/lib/python3.{py_v}/json/decoder.py", 337, "decode",
                                             "obj, end = self.raw_decode(s, idx=_w(s, 0))")])
    c.em.err(pick(r, (f"json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column {r.randrange(20, 900)} "
                      f"(char {r.randrange(20, 900)})", "json.decoder.JSONDecodeError: Unterminated string starting at: "
                      f"line 1 column {r.randrange(20, 300)} (char {r.randrange(20, 300)})")))
    return "json_line"


def bug_bad_input(c: Ctx) -> str:
    r = c.rng
    fr = frames_user(c) + [(f"{c.workdir}/utils/preprocess.py", r.randrange(20, 90), "resize",
                            "img = cv2.resize(img, (self.w, self.h))")]
    py_tb(c, fr)
    if r.random() < 0.5:
        c.em.err("cv2.error: OpenCV(4.8.0) /io/opencv/modules/imgproc/src/resize.cpp:4062: error: (-215:Assertion failed) "
                 "!ssize.empty() in function 'resize'")
        return "cv2_empty_image"
    c.em.err("AttributeError: 'NoneType' object has no attribute 'shape'")
    return "imread_none"


def _cfg(c: Ctx) -> str:
    return c.extra.get("config") or {"ocr": "configs/rec/PP-OCRv4/ch_PP-OCRv4_rec.yml", "det": "configs/ppyoloe/ppyoloe_plus_crn_l_80e_coco.yml",
                                     "serving": "config.yml", "nlp": "./config/finetune_args.json"}.get(c.job, "config.yml")


def _load_config_frames(c: Ctx) -> list:
    repo, r = _repo(c), c.rng
    if c.job == "ocr":
        return [(f"{repo}/tools/train.py", pick(r, (227, 250)), "<module>", "config, device, logger, vdl_writer = "
                 "program.preprocess(is_train=True)"),
                (f"{repo}/tools/program.py", pick(r, (673, 690)), "preprocess", "config = load_config(FLAGS.config)"),
                (f"{repo}/tools/program.py", pick(r, (79, 85)), "load_config", "config = yaml.load(open(file_path, 'rb'), Loader=yaml.Loader)")]
    if c.job == "det":
        return [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
                (f"{repo}/tools/train.py", pick(r, (134, 150)), "main", "cfg = load_config(FLAGS.config)"),
                (f"{repo}/ppdet/core/workspace.py", pick(r, (93, 103)), "load_config", "cfg = merge_config(yaml.load(f, Loader=yaml.Loader), cfg)")]
    return [(f"{c.workdir}/web_service.py", 98, "<module>", 'ocr_service.prepare_pipeline_config("' + _cfg(c) + '")'),
            (f"{c.site}/paddle_serving_server/web_service.py", 71, "prepare_pipeline_config", "conf_dict = yaml.load(f, Loader=yaml.FullLoader)")]


def _ppdet_trainer_frames(c: Ctx) -> list:
    repo, r = _repo(c), c.rng
    return [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
            (f"{repo}/tools/train.py", pick(r, (168, 208)), "main", "run(FLAGS, cfg)"),
            (f"{repo}/tools/train.py", pick(r, (110, 120)), "run", "trainer = Trainer(cfg, mode='train')"),
            (f"{repo}/ppdet/engine/trainer.py", pick(r, (71, 96)), "__init__", "self.model = create(cfg.architecture)")]


def bug_yaml(c: Ctx) -> str:
    r, cfg = c.rng, _cfg(c)
    yml = f"{c.site}/yaml"
    py_tb(c, _load_config_frames(c) + [(f"{yml}/__init__.py", 81, "load", "return loader.get_single_data()"),
                                       (f"{yml}/constructor.py", 49, "get_single_data", "node = self.get_single_node()"),
                                       (f"{yml}/composer.py", 36, "get_single_node", "document = self.compose_document()")])
    line, col = r.randrange(5, 120), r.randrange(1, 30)
    v = r.randrange(3)
    c.em.block([["yaml.scanner.ScannerError: mapping values are not allowed here", f'  in "{cfg}", line {line}, column {col}'],
                ["yaml.parser.ParserError: while parsing a block mapping", f'  in "{cfg}", line {line - 3}, column 3',
                 "expected <block end>, but found '<block mapping start>'", f'  in "{cfg}", line {line}, column 5'],
                ["yaml.scanner.ScannerError: while scanning for the next token", "found character '\\t' that cannot start any token",
                 f'  in "{cfg}", line {line}, column 1']][v])
    return ("scanner", "parser", "tab")[v]


def bug_missing_key(c: Ctx) -> str:
    r, repo = c.rng, _repo(c)
    if c.job == "ocr":
        py_tb(c, _load_config_frames(c)[:2] + [(f"{repo}/tools/program.py", pick(r, (690, 702)), "preprocess",
                                                "use_gpu = config['Global'].get('use_gpu', False)")])
        c.em.err("KeyError: 'Global'")
        return "keyerror_global"
    if c.job == "det":
        py_tb(c, _ppdet_trainer_frames(c) + [(f"{repo}/ppdet/core/workspace.py", pick(r, (76, 81)), "__getattr__",
                                                "raise AttributeError(\"object has no attribute '{}'\".format(key))")])
        c.em.err("AttributeError: object has no attribute 'TrainReader'")
        return "attrdict_trainreader"
    if c.job == "nlp":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/run_finetune.py", r.randrange(200, 300), "main",
                                                 "label_list = data_args.config['label_list']")])
        c.em.err("KeyError: 'label_list'")
        return "keyerror_label_list"
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/web_service.py", r.randrange(20, 60), "init_op",
                                             "self.det_model_dir = self.conf['det_model_dir']")])
    c.em.err("KeyError: 'det_model_dir'")
    return "keyerror_model_dir"


_PPOCR_HEADS = ("'DBHead', 'PSEHead', 'FCEHead', 'EASTHead', 'SASTHead', 'CTCHead', 'ClsHead', 'AttentionHead', 'SRNHead', "
                "'PGHead', 'Transformer', 'TableAttentionHead', 'SARHead', 'AsterHead', 'SDMGRHead', 'PRENHead', "
                "'MultiHead', 'ABINetHead', 'TableMasterHead', 'SPINAttentionHead', 'VLHead', 'SLAHead', "
                "'RobustScannerHead', 'CT_Head', 'RFLHead', 'DRRGHead', 'CANHead', 'SATRNHead', 'PFHeadLocal', 'ParseQHead'")


def bug_unknown_key(c: Ctx) -> str:
    r, repo = c.rng, _repo(c)
    if c.job == "nlp":
        py_tb(c, frames_user(c, deep=False) + [
            (f"{c.workdir}/run_finetune.py", r.randrange(200, 300), "main", "model_args, data_args, training_args = "
             "parser.parse_json_file(json_file=os.path.abspath(sys.argv[1]))"),
            (f"{c.site}/paddlenlp/trainer/argparser.py", pick(r, (243, 266)), "parse_json_file",
             'raise ValueError(f"Some keys are not used by the PdArgumentParser: {sorted(unused_keys)}")')])
        c.em.err(f"ValueError: Some keys are not used by the PdArgumentParser: {pick(r, (['learing_rate'], ['num_train_epoch', 'warmup'], ['per_device_batch_size']))}")
        return "pdargumentparser"
    if c.job == "ocr":
        py_tb(c, [(f"{repo}/tools/train.py", pick(r, (227, 250)), "<module>", "main(config, device, logger, vdl_writer)"),
                  (f"{repo}/tools/train.py", pick(r, (99, 121)), "main", "model = build_model(config['Architecture'])"),
                  (f"{repo}/ppocr/modeling/architectures/__init__.py", 32, "build_model", "arch = BaseModel(config)"),
                  (f"{repo}/ppocr/modeling/architectures/base_model.py", 73, "__init__", "self.head = build_head(config[\"Head\"])"),
                  (f"{repo}/ppocr/modeling/heads/__init__.py", pick(r, (88, 102)), "build_head", "assert module_name in support_dict, Exception(")])
        c.em.err(f"AssertionError: head only support [{_PPOCR_HEADS}]")
        return "ppocr_build_head"
    py_tb(c, _ppdet_trainer_frames(c) + [(f"{repo}/ppdet/core/workspace.py", pick(r, (229, 244)), "create",
                                            'assert name in global_config, "the module {} is not registered".format(name)')])
    c.em.err(f"AssertionError: the module {pick(r, ('PPYOLOEHeadX', 'CSPResNett', 'YOLOv3Loss_'))} is not registered")
    return "ppdet_not_registered"


def bug_argparse(c: Ctx) -> str:
    c.em.err("usage: infer.py [-h] --model_dir MODEL_DIR [--batch_size BATCH_SIZE] [--use_gpu USE_GPU] [--threshold THRESHOLD]",
             "infer.py: error: unrecognized arguments: --bacth_size 8")
    return "argparse"


def bug_num_classes(c: Ctx) -> str:
    """A config whose num_classes does not match the labels: the loss or the metric trips over it."""
    if c.job == "det" and c.rng.random() < 0.5:
        return "num_classes_" + bug_label_map(c)
    return "num_classes_" + bug_label_range(c)


def bug_wrong_model(c: Ctx) -> str:
    """--model_dir points at another model (a detection model for recognition): shapes do not fit."""
    return "wrong_model_" + bug_broadcast(c)


CODE_BUGS = {
    "shape_matmul": bug_shape_matmul, "conv_channels": bug_conv_channels, "reshape": bug_reshape,
    "broadcast": bug_broadcast, "dtype": bug_dtype, "loss_shape": bug_loss_shape, "label_range": bug_label_range,
    "label_map": bug_label_map, "embedding_ids": bug_embedding_ids, "illegal_address": bug_illegal_address,
    "user_exception": bug_user_exception, "parse_line": bug_parse_line, "collate": bug_collate, "json_line": bug_json_line,
    "bad_input": bug_bad_input, "yaml": bug_yaml, "missing_key": bug_missing_key, "unknown_key": bug_unknown_key,
    "argparse": bug_argparse, "num_classes": bug_num_classes, "wrong_model": bug_wrong_model,
}
# bugs a job of each kind can show when the fleet model did not name one (rendering outside pipeline.simulate)
_DEFAULT_BUGS = {"ocr": ("shape_matmul", "conv_channels", "parse_line", "label_range", "yaml", "user_exception"),
                 "det": ("conv_channels", "label_map", "collate", "broadcast", "unknown_key", "user_exception"),
                 "nlp": ("shape_matmul", "loss_shape", "embedding_ids", "unknown_key", "user_exception"),
                 "infer": ("dtype", "conv_channels", "bad_input", "user_exception"),
                 "serving": ("user_exception", "missing_key")}


def _sigabrt_after(c: Ctx) -> None:
    """The C++ exception was not caught: Paddle's signal handler prints the abort (it is not the cause)."""
    em, r = c.em, c.rng
    if c.gen == "1x":
        t = em.unix()
        for msg in ("Warning: PaddlePaddle catches a failure signal, it may not work properly",
                    "You could check whether you killed PaddlePaddle thread/process accidentally or report the case to PaddlePaddle",
                    "The detail failure signal is:", "", f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                    "PC: @                0x0 (unknown)",
                    f"*** SIGABRT (@0x{r.randrange(16**4):x}) received by PID {em.pid} (TID {c.hexaddr()}) from PID {em.pid}; stack trace: ***"):
            em.glog("W", f"init.cc:{pick(r, (209, 217, 226))}", msg)
        for f in ("(unknown)", "__GI_raise", "__GI_abort", "__gnu_cxx::__verbose_terminate_handler()", "(unknown)"):
            em.glog("W", "init.cc:217", f"    @     {c.hexaddr()} {f}")
        em.err("Aborted (core dumped)")
        return
    fatal_signal(c, "SIGABRT", "Process abort signal", ["paddle::AnalysisPredictor::ZeroCopyRun(bool)"] if c.job in ("infer", "serving") else None)
    if r.random() < 0.5:
        em.err("Aborted (core dumped)")


def e_code_error(c: Ctx) -> str:
    r = c.rng
    bug = c.extra.get("job_bug") or pick(r, _DEFAULT_BUGS.get(c.job, _DEFAULT_BUGS["infer"]))
    early = CODE_BUG_PHASE.get(bug) == "import"
    warned = not early and r.random() < 0.12
    if warned:          # a harmless warning printed as the first conv runs, right before the job's own error
        hn_cudnn_mismatch(c)
    v = f"{bug}.{CODE_BUGS[bug](c)}"
    if not early and bug in ("embedding_ids", "shape_matmul", "conv_channels", "reshape") and "gpu_assert" not in v \
            and r.random() < 0.2:
        _sigabrt_after(c)
        v += "+sigabrt"
    return v + ("+cudnn_warning" if warned else "")


# --------------------------------------------------------------------------------------------------
# More surface forms, by family, beside each category's own forms above: what real Paddle logs show for
# deployments (Paddle Inference C++/Python predictors, Paddle-Lite), Fluid 0.x/1.x GLOG checks, parameter
# servers and launches that wait without an error word, third-party breaks that read like API errors,
# Windows and Chinese messages, and signatures that point to another cause than the true one.

def _v1_commandline(c: Ctx) -> None:
    """Fluid 0.x/1.x trainers echo their flags through GLOG first."""
    c.em.glog("I", f"Util.cpp:{pick(c.rng, (160, 166))}", f"commandline:  --use_gpu={pick(c.rng, ('True', '1'))} "
              f"--trainer_count={max(1, c.n_gpus)}")


def _glog_f(c: Ctx, loc: str, msg: str, frames: tuple) -> None:
    glog_fatal(c, loc, msg, ["google::LogMessage::Fail()", "google::LogMessage::SendToLog()", "google::LogMessage::Flush()",
                             "google::LogMessageFatal::~LogMessageFatal()", *frames])


# ---- gpu_not_visible


def f_enable_gpu_cpu_build(c: Ctx) -> str:
    """A CPU build of Paddle Inference asked for the GPU: one GLOG error, then often a crash that is not the cause."""
    r, em = c.rng, c.em
    for _ in range(r.randrange(1, 3)):
        em.glog("E", f"analysis_config.cc:{pick(r, (73, 91, 95))}", "Please compile with gpu to EnableGpu()")
    if r.random() < 0.4:
        em.err("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)" if r.random() < 0.3 else
               "Segmentation fault (core dumped)")
        return "enable_gpu_cpu_build+segv"
    py_tb(c, frames_user(c))
    em.err("RuntimeError: (Unavailable) Place(gpu:0) is not supported. Because paddle is not compiled with CUDA.")
    return "enable_gpu_cpu_build"


def f_device_count_zero(c: Ctx) -> str:
    r = c.rng
    if c.gen == "1x":
        c.em.err("terminate called after throwing an instance of 'paddle::platform::EnforceNotMet'", "  what():  ")
        cpp_tb_1x(c, ["paddle::platform::SetDeviceId(int)", "paddle::AnalysisConfig::fraction_of_gpu_memory_for_pool() const"],
                  ["Error: id must less than GPU count",
                   "  [Hint: Expected id < GetCUDADeviceCount(), but received id:0 >= GetCUDADeviceCount():0.] at "
                   "(/paddle/paddle/fluid/platform/gpu_info.cc:240)"])
        return "device_count_zero_1x"
    c.em.glog("W", f"init.cc:{pick(r, (201, 227))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    paddle_error(c, "InvalidArgument", ["Device id must be less than GPU count, but received id is: 0. GPU count is: 0."],
                 "Expected id < GetGPUDeviceCount(), but received id:0 >= GetGPUDeviceCount():0.",
                 f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (242, 251))}", "device",
                 loc_old="paddle/fluid/platform/gpu_info.cc:211")
    return "device_count_zero"


def f_error35_without_driver(c: Ctx) -> str:
    """Started without --gpus: no libcuda in the container, and the CUDA runtime says the *driver* is insufficient."""
    r, em = c.rng, c.em
    if c.gen == "1x" and r.random() < 0.5:
        _v1_commandline(c)
        _glog_f(c, f"hl_cuda_device.cc:{pick(r, (453, 565))}", "Check failed: cudaSuccess == cudaStat (0 vs. 35) Cuda Error: "
                "CUDA driver version is insufficient for CUDA runtime version", ("hl_stream_synchronize()",
                                                                                "paddle::GradientMachine::forward()"))
        return "error35_v1"
    em.glog("W", f"init.cc:{pick(r, (136, 157, 201))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    em.err(f"{c.site}/paddle/fluid/framework.py:{pick(r, (294, 298))}: UserWarning: You are using GPU version Paddle, but "
           "your CUDA device is not set properly. CPU device will be used by default.", "  warnings.warn(")
    paddle_error(c, "External", ["CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. "],
                 _CUDA_HINT35, "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    return "error35_without_driver"


# ---- cuda_driver_too_old


def f_device_not_set_properly(c: Ctx) -> str:
    """run_check / install_check hides error 35 inside a 'CUDA Device is not set properly' warning (2.0 era)."""
    em = c.em
    em.out("Running Verify Fluid Program ..." if c.gen == "1x" else "Running verify PaddlePaddle program ... ")
    em.err("WARNING:root:You are using GPU version Paddle Fluid, But Your CUDA Device is not set properly", " Original Error is ")
    em.block(["--------------------------------------------", "C++ Call Stacks (More useful to developers):",
              "--------------------------------------------",
              "0   std::string paddle::platform::GetTraceBackString<char const*>(char const*&&, char const*, int)",
              "1   paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
              "2   paddle::platform::GetCUDADeviceCount()", "", "----------------------", "Error Message Summary:",
              "----------------------", "ExternalError:  Cuda error(35), CUDA driver version is insufficient for CUDA runtime "
              "version.", "  [Advise: This indicates that the installed NVIDIA CUDA driver is older than the CUDA runtime "
              "library. This is not a supported configuration.Users should install an updated NVIDIA display driver to "
              "allow the application to run.] at (/paddle/paddle/fluid/platform/gpu_info.cc:65)"])
    py_tb(c, frames_user(c, deep=False))
    em.err("AssertionError: CUDA is not available, check the output of paddle.utils.run_check()")
    return "device_not_set_properly"


def f_ptx_toolchain(c: Ctx) -> str:
    r = c.rng
    paddle_error(c, "External", ["CUDA error(222), the provided PTX was compiled with an unsupported toolchain. "],
                 "'cudaErrorUnsupportedPtxVersion'. This indicates that the provided PTX was compiled with an unsupported "
                 "toolchain. The most common reason for this, is the PTX was generated by a compiler newer than what is "
                 "supported by the CUDA driver and PTX JIT compiler.", f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}",
                 "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    return "ptx222"


def f_summary_env_no_gpu(c: Ctx) -> str:
    """Hard: only 'no GPU found' and the environment summary (driver older than the wheel's CUDA), no error 35."""
    r, em = c.rng, c.em
    em.glog("W", f"init.cc:{pick(r, (136, 157))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    em.err(f"{c.site}/paddle/fluid/framework.py:298: UserWarning: You are using GPU version Paddle, but your CUDA device is "
           "not set properly. CPU device will be used by default.", "  warnings.warn(")
    em.out("****************************************", f"Paddle version: {c.paddle}", "Paddle With CUDA: True",
           "OS: Ubuntu 20.04", f"Python version: {c.python}.{r.randrange(3, 18)}", f"CUDA version: {c.cuda}.{r.randrange(60, 200)}",
           f"cuDNN version: {c.cudnn}.{r.randrange(0, 9)}", f"Nvidia driver version: {c.driver_version}",
           "****************************************")
    py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", pick(r, (268, 301)), "set_device",
                                             "place = _convert_to_place(device)")])
    em.err("ValueError: The device id 0 exceeds gpu card number 0")
    return "summary_env_no_gpu"


# ---- cuda_lib_missing


def f_win_dll126(c: Ctx) -> str:
    """Windows wheels: the loader only says 'error code is 126' for a missing cuDNN/cuBLAS DLL."""
    dll = pick(c.rng, ("cudnn64_8.dll", "cudnn64_7.dll", "cublas64_118.dll;cublas64_11.dll", "cusolver64_11.dll"))
    site = f"C:\\Users\\{pick(c.rng, ('admin', 'dev', 'ai'))}\\anaconda3\\envs\\paddle\\lib\\site-packages"
    c.em.block(["Running verify PaddlePaddle program ... ", "Traceback (most recent call last):",
                '  File "<stdin>", line 1, in <module>',
                f'  File "{site}\\paddle\\utils\\install_check.py", line 196, in run_check',
                f'  File "{site}\\paddle\\utils\\install_check.py", line 124, in _run_static_single',
                f"RuntimeError: (PreconditionNotMet) The third-party dynamic library ({dll}) that Paddle depends on is not "
                "configured correctly. (error code is 126)"] + _DYNLOAD_SUGGEST +
               ["  [operator < matmul_v2 > error]" if "cublas" in dll else "  [operator < conv2d > error]"])
    return "win_dll126"


def f_cudnn_dso_handle(c: Ctx) -> str:
    paddle_error(c, "PreconditionNotMet", ["Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion."],
                 "cudnn_dso_handle should not be null.", "paddle/phi/backends/dynload/cudnn.cc:64", "conv",
                 py_frames=frames_user(c) + frames_paddle_forward(c), op="fill_constant" if c.gen in ("1x", "20") else None)
    return "cudnn_dso_handle"


def f_core_import_cudart(c: Ctx) -> str:
    lib = f"libcudart.so.{c.cuda.split('.')[0]}.0"
    c.em.err(f"Error: Can not import paddle core while this file exists: {c.pkg}/{c.fw}/libpaddle.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], 1, "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", 25, "<module>", "from .framework import monkey_patch_variable"),
              (f"{c.pkg}/{c.fw}/core.py", pick(c.rng, (269, 325)), "<module>", "from . import libpaddle")])
    c.em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
    return "core_import_cudart"


def f_legacy_dynamic_loader(c: Ctx) -> str:
    _v1_commandline(c)
    _glog_f(c, "DynamicLoader.cpp:104", "Check failed: nullptr != *dso_handle Failed to find dynamic library: libcudnn.so "
            "(libcudnn.so: cannot open shared object file: No such file or directory)",
            ("paddle::GetCudnnDsoHandle()", "hl_cudnn_init()"))
    return "legacy_dynamic_loader"


def f_nccl_lib(c: Ctx) -> str:
    """NCCL absent, or built for another CUDA: init_parallel_env fails, sometimes only as 'unhandled cuda error'."""
    r, em = c.rng, c.em
    if r.random() < 0.5:
        em.glog("W", "dynamic_loader.cc:238", "You may need to install 'nccl2' from NVIDIA official website: "
                "https://developer.nvidia.com/nccl/nccl-download before install PaddlePaddle.")
        paddle_error(c, "PreconditionNotMet", ["The third-party dynamic library (libnccl.so) that Paddle depends on is not "
                                               "configured correctly. (error code is libnccl.so: cannot open shared object "
                                               "file: No such file or directory)"] + _DYNLOAD_SUGGEST, None,
                     "paddle/phi/backends/dynload/dynamic_loader.cc:265", "nccl",
                     py_frames=frames_user(c, deep=False) + [(f"{c.pkg}/distributed/parallel.py", pick(r, (196, 1084)),
                                                               "init_parallel_env", "paddle.distributed.barrier()")])
        return "nccl_dynload"
    p = _nccl_prefix(c)
    em.out(f"{p} NCCL INFO NCCL version 2.{pick(r, (8, 12, 16))}.{r.randrange(3, 9)}+cuda{pick(r, ('10.2', '11.0', '12.2'))}")
    em.out(f"{p} NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'",
           f"{p} NCCL INFO init.cc:{pick(r, (1112, 1235))} -> 1")
    paddle_error(c, "External", ["NCCL error(1), unhandled cuda error. "], "'ncclUnhandledCudaError'. Call to CUDA function failed. ",
                 "paddle/phi/core/distributed/nccl_comm_context.cc:81", "nccl")
    return "nccl_version_unhandled_cuda"


# ---- gpu_oom


def f_allocating_available(c: Ctx) -> str:
    """Fluid's GpuMaxChunkSize check: the first chunk does not fit; no 'out of memory' wording."""
    r = c.rng
    want = int(c.gpu_mem_gb * r.uniform(0.5, 0.95) * 2**30)
    have = int(want * r.uniform(0.2, 0.9))
    py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/fluid/executor.py", pick(r, (349, 470)), "run",
                                             "self.executor.run(program.desc, scope, 0, True, True)")])
    c.em.block([f"paddle.fluid.core.EnforceNotMet: Enforce failed. Expected allocating <= available, but received "
                f"allocating:{want} > available:{have}.", "Insufficient GPU memory to allocation. at "
                f"[/paddle/paddle/fluid/platform/gpu_info.cc:{pick(r, (89, 118, 262))}]", "PaddlePaddle Call Stacks:"] +
               [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(60, 700)}" for i, f in enumerate((
                   "paddle::platform::GpuMaxChunkSize()", "paddle::memory::GetGPUBuddyAllocator(int)",
                   "void* paddle::memory::Alloc<paddle::platform::CUDAPlace>(paddle::platform::CUDAPlace, unsigned long)"))])
    return "allocating_le_available"


def f_badalloc_operator(c: Ctx) -> str:
    """Fluid/2.0 operators report BadAlloc in a GLOG warning, with the fraction_of_gpu_memory suggestions."""
    r, em = c.rng, c.em
    want, avail = r.uniform(10, 2000), r.uniform(5, 200)
    for op in (pick(r, ("conv2d_grad", "roi_align", "lstm", "matmul_v2")), pick(r, ("relu_grad", "batch_norm_grad"))):
        em.glog("W", f"operator.cc:{pick(r, (242, 248))}", f"{op} raises an exception paddle::memory::allocation::BadAlloc, "
                "ResourceExhaustedError: ", stream="stderr")
        em.block(["", f"Out of memory error on GPU 0. Cannot allocate {want:.6f}MB memory on GPU 0, available memory is only "
                  f"{avail:.6f}MB.", "", "Please check whether there is any other process using GPU 0.",
                  "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                  "2. If no, please try one of the following suggestions:", "   1) Decrease the batch size of your model.",
                  "   2) FLAGS_fraction_of_gpu_memory_to_use is 0.50 now, please set it to a higher value but less than 1.0.",
                  "      The command is `export FLAGS_fraction_of_gpu_memory_to_use=xxx`.", "",
                  f" (at /paddle/paddle/fluid/memory/detail/system_allocator.cc:{pick(r, (151, 160))})"])
    py_tb(c, frames_user(c))
    em.err("MemoryError: ")
    return "badalloc_operator"


def f_alloc_traceback_only(c: Ctx) -> str:
    """Hard: the paste keeps the C++ allocator frames but loses the 'Out of memory' sentence."""
    c.em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                "--------------------------------------"] +
               [f"{i}   {f}" for i, f in enumerate((
                   "concat_ad_func(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, paddle::experimental::ScalarBase<paddle::Tensor>)",
                   "phi::DenseTensor::mutable_data(phi::Place const&, phi::DataType, unsigned long)",
                   "paddle::memory::AllocShared(phi::Place const&, unsigned long)",
                   "paddle::memory::allocation::AllocatorFacade::Alloc(phi::Place const&, unsigned long)",
                   "paddle::memory::allocation::StatAllocator::AllocateImpl(unsigned long)",
                   "paddle::memory::allocation::Allocator::Allocate(unsigned long)"))])
    if c.chinese:
        c.em.err("模型保存失败：显存不足")
    return "alloc_traceback_only"


# ---- host_oom


def f_host_alloc_python(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1, "numpy_unable"), (1, "bare_memoryerror"), (1, "posix_memalign"), (1, "dataloader_killed"),
                  (1, "errno12"), (0.6 if c.job in ("infer", "serving") else 0, "lite_malloc")])
    if v == "lite_malloc":    # Paddle-Lite's host allocator on a small box: a fatal check, then abort
        em.err(f"[F {em.ts_short()}.{em.millis():03d} ...ite/lite/core/target_wrapper.cc:29 Malloc] Check failed: p: Error "
               f"occurred in TargetWrapper::Malloc period: no enough for mallocing {r.randrange(8, 900) * 2**20} bytes.")
        em.err("Aborted (core dumped)")
    elif v == "numpy_unable":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/framework/io.py", pick(r, (57, 771)), "_build_saved_state_dict",
                                                 "save_dict[key] = value.numpy()")])
        em.err(f"numpy.core._exceptions._ArrayMemoryError: Unable to allocate {r.uniform(9, 900):.2f} MiB for an array with "
               f"shape ({r.randrange(1000, 90000)}, 768) and data type float32")
    elif v == "bare_memoryerror":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddlenlp/transformers/ernie/tokenizer.py" if c.job == "nlp" else
                                                 f"{c.pkg}/framework/io.py", pick(r, (386, 732)), "__init__" if c.job == "nlp"
                                                 else "save", "self.vocab = pickle.load(f)" if c.job == "nlp" else
                                                 "pickle.dump(saved_obj, f, protocol=protocol)")])
        em.err("MemoryError")
    elif v == "posix_memalign":
        n = r.randrange(2, 64) * 2**28
        paddle_error(c, "ResourceExhausted", [f"Alloc {n} error!"],
                     "Expected posix_memalign(&p, alignment, size) == 0, but received posix_memalign(&p, alignment, size):12 != 0:0.",
                     "paddle/phi/core/memory/allocation/system_allocator.cc:60" if c.major >= 3 else
                     "paddle/fluid/memory/detail/system_allocator.cc:60", "alloc")
    elif v == "dataloader_killed":
        py_tb(c, frames_user(c) + [(f"{_dl_dir(c)}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.err(f"SystemError: (Fatal) DataLoader process (pid {em.pid + 30 + r.randrange(8)}) exited is killed by signal: "
               "Killed. (at /paddle/paddle/fluid/imperative/data_loader.cc:181)")
    else:
        py_tb(c, frames_user(c) + [(f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/popen_fork.py", 66,
                                    "_launch", "self.pid = os.fork()")])
        em.err("OSError: [Errno 12] Cannot allocate memory")
    if c.chinese and r.random() < 0.4:
        em.out("训练异常退出：内存不足")
    return f"host_alloc_{v}"


# ---- distributed_comm_failure


def f_wait_forever(c: Ctx) -> str:
    """A rendezvous that never completes: retries without an error word until the scheduler stops the job."""
    r, em = c.rng, c.em
    peers = [f"{ip}:{6170 + k}" for ip in (c.rank_ips or ["10.10.0.3"]) for k in range(2)]
    if r.random() < 0.5:
        for _ in range(r.randrange(8, 40)):
            em.out("server not ready, wait 3 sec to retry...", f"not ready endpoints:{peers[-r.randrange(1, len(peers) + 1):]}")
            em.adv(3)
    else:
        for _ in range(r.randrange(8, 40)):
            em.out(f"LAUNCH INFO {em.ts_comma()} Waiting peer start...")
            em.adv(r.uniform(20, 60))
    if r.random() < 0.5:
        em.err("Terminated")
    return "wait_forever"


def f_rpc_pserver(c: Ctx) -> str:
    """Parameter-server jobs: gRPC/bRPC clients that cannot reach a pserver."""
    r, em = c.rng, c.em
    ep = f"{(c.rank_ips or ['10.10.0.3'])[-1]}:{6170 + r.randrange(4)}"
    v = wpick(r, [(1, "grpc_connect_failed"), (1, "grpc_fatal"), (1, "brpc_reset"), (0.7 if c.gen == "1x" else 0, "v1_socket")])
    if v == "v1_socket":      # the v1 trainer's parameter client: the pserver pod runs but does not listen yet
        _v1_commandline(c)
        em.glog("I", "ParameterClient2.cpp:114", f"pserver 0 {ep}")
        _glog_f(c, f"LightNetwork.cpp:{pick(r, (397, 399))}", f"Check failed: error >= 0 ERROR connecting to {ep.split(':')[0]}: "
                "Connection refused [111]", ("paddle::SocketClient::TcpClient()", "paddle::SocketClient::SocketClient()",
                                             "paddle::ParameterClient2::init()", "paddle::RemoteParameterUpdater::init()"))
    elif v == "grpc_connect_failed":
        for _ in range(r.randrange(6, 30)):
            em.glog("E", "grpc_client.cc:242", f"proc param error:name:[fc_{r.randrange(9)}.w_0@GRAD] ep:[{ep}] grpc error:Connect Failed",
                    tid=r.randrange(100, 300))
    elif v == "grpc_fatal":
        _glog_f(c, f"grpc_client.cc:{pick(r, (288, 418, 424))}", f"SendRPC name:[embedding_0.w_0@GRAD], ep:[{ep}], status:[-1] "
                "meets grpc error, error_code:14 error_message:OS Error error_details:",
                ("paddle::operators::distributed::GRPCClient::Proceed()", "execute_native_thread_routine", "start_thread", "__clone"))
    else:
        em.glog("W", "input_messenger.cpp:222", f"Fail to read from fd=21 SocketId=8589934592@{ep}@39004: Connection reset by peer [104]")
        em.glog("E", "brpc_ps_client.cc:250", f"resquest cmd_id:2 failed, err:[E104]Fail to read from fd=21 SocketId=8589934592@{ep}@"
                f"39004: Connection reset by peer [R1][E111]Fail to connect SocketId=8589934593@{ep}: Connection refused "
                f"[R2][E112]Not connected to {ep} yet [R3][E112]Not connected to {ep} yet")
        em.glog("E", "fleet.cc:321", "fleet pull sparse failed, status[-1]")
    return f"rpc_{v}"


def f_bkcl(c: Ctx) -> str:
    """Kunlun XPU collectives (BKCL) fail the same way NCCL does: init or enqueue."""
    r, em = c.rng, c.em
    host = c.extra.get("hostname", "trainer-0")
    em.err(f"[{em.ts_iso()}][{host}][{em.pid}][ERR][BKCL][init.cpp:{r.randrange(100, 900)}] BKCL dont support send to one "
           "peer multi times in one group",
           f"[{em.ts_iso()}][{host}][{em.pid}][WARN][BKCL][bkcl.cpp:534] group_enqueue call failed, expected 0, error code=2")
    paddle_error(c, "PreconditionNotMet", ["bkcl_init_rank failed, got wrong value [3]."],
                 "Expected ret == BKCL_SUCCESS, but received ret:3 != BKCL_SUCCESS:0.",
                 "paddle/phi/core/distributed/bkcl_comm_context.cc:58", "nccl", loc_old="paddle/fluid/platform/collective_helper.cc:305")
    em.out(f"ERROR {em.ts_comma()} launch_utils.py:604] ABORT!!! Out of all {c.n_gpus * c.nnodes} trainers, the trainer "
           "process with rank=[0, 1] was aborted. Please check its log.")
    return "bkcl"


# ---- native_crash


def f_signal_no_stack(c: Ctx) -> str:
    fatal_signal(c, "SIGSEGV", "Segmentation fault", None)
    c.em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                "--------------------------------------", "No stack trace in paddle, may be caused by external reasons."])
    return "no_stack_trace+segv"


def f_fluid_init_signal(c: Ctx) -> str:
    """Fluid's init.cc handler logs the signal line by line (SIGFPE / SIGABRT after a glibc abort)."""
    r, em = c.rng, c.em
    sig = pick(r, ("SIGFPE", "SIGABRT"))
    if sig == "SIGABRT":
        em.err(pick(r, ("double free or corruption (fasttop)", "free(): invalid next size (fast)")))
    t = em.unix()
    for msg in ("Warning: PaddlePaddle catches a failure signal, it may not work properly",
                "The detail failure signal is:", f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                "PC: @                0x0 (unknown)",
                f"*** {sig} (@0x{r.randrange(16**8):x}) received by PID {em.pid} (TID {c.hexaddr()}) from PID {em.pid}; stack trace: ***"):
        em.glog("W", f"init.cc:{pick(r, (205, 226, 234))}", msg)
    for f in ("(unknown)", "paddle::framework::Scope::FindVarLocally()", "paddle::operators::RecurrentGradOp::RunImpl()"):
        em.glog("W", "init.cc:205", f"    @     {c.hexaddr()} {f}")
    return f"fluid_init_{sig.lower()}"


def f_glibc_backtrace(c: Ctx) -> str:
    r = c.rng
    lines = [f"*** Error in `/usr/bin/python3': {pick(r, ('free(): invalid pointer', 'munmap_chunk(): invalid pointer'))}: "
             f"{c.hexaddr()} ***", "======= Backtrace: ========="]
    for lib in ("/lib/x86_64-linux-gnu/libc.so.6(+0x777e5)", "/lib/x86_64-linux-gnu/libc.so.6(+0x8037a)",
                f"{c.site}/numpy/core/multiarray.so(+0x{r.randrange(16**5):x})", "/usr/lib/libpython3.so(PyDict_SetItem+0x41)"):
        lines.append(f"{lib}[{c.hexaddr()}]")
    lines.append("======= Memory map: ========")
    c.em.block(lines)
    c.em.err("Aborted (core dumped)")
    return "glibc_backtrace"


# ---- model_version_incompatible


def f_paddle_lite(c: Ctx) -> str:
    """Paddle-Lite runtimes: an .nb model from another opt version, a kernel this library lacks."""
    r, em = c.rng, c.em
    op = pick(r, ("slice", "calib", "nearest_interp_v2", "multiclass_nms3", "fill_any_like"))
    android = r.random() < 0.3      # the same runtime on an edge device, pulled with adb logcat
    pre = f"{em.ts_iso()[5:]}.{em.millis():03d}  {em.pid}-{em.pid + 12}  Paddle-Lite  com.baidu.paddle.lite  " if android else ""
    for ln in ("warning: the version of opt that transformed this model is not consistent with current Paddle-Lite version.",
               f"      version of opt:{pick(r, ('v2.9.1', 'd9e63bb', 'v2.10'))}",
               f"      version of current Paddle-Lite:{pick(r, ('v2.13-rc', '68b66fd35', 'v2.12'))}"):
        em.err(pre + ("W  " if android else "") + ln)
    if r.random() < 0.5:
        em.err(f"{pre}{'A/Paddle-Lite: ' if android else ''}[F {em.ts_short()}.{em.millis():03d} ...-Lite/lite/core/program.cc:"
               f"{pick(r, (269, 356, 532))} RuntimeProgram] Check failed: (kernels.size() > 0): 0!>0      Error: This model "
               f"is not supported, because kernel for '{op}' is not supported by Paddle-Lite.")
    else:
        em.err(f"F{em.ts_glog()} {em.tid:5d} program.cc:532] Check failed: kernels.size() > 0 (0 vs. 0) ",
               f"Error: This model is not supported, because 1 ops are not supported on 'arm'. These unsupported ops are: '{op}'.")
    em.err("Aborted")
    return "paddle_lite" + ("_logcat" if android else "")


def f_op_not_registered_old(c: Ctx) -> str:
    r = c.rng
    v = r.randrange(3)
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/utils/predictor.py", pick(r, (31, 42)), "__init__",
                                             "self.predictor = paddle.inference.create_predictor(config)")])
    c.em.err(["RuntimeError: Operator multiclass_nms3 has not been registered",
              "google.protobuf.message.DecodeError: Can't parse message ProgramDesc because it is missing required fields: "
              f"blocks[0].ops[{r.randrange(10, 90)}].attrs[{r.randrange(3, 20)}].type",
              "_pickle.UnpicklingError: invalid load key, 'x'."][v])
    return ("nms3_not_registered", "programdesc_parse", "unpickling")[v]


def f_predictor_version(c: Ctx) -> str:
    r, em = c.rng, c.em
    em.glog("I", "op_compatible_info.cc:201", "The default operator required version is missing. Please update the model version.")
    em.glog("I", "analysis_predictor.cc:841", "MODEL VERSION: 0.0.0")
    em.glog("I", "analysis_predictor.cc:843", "PREDICTOR VERSION: 0.0.0")
    em.glog("W", "analysis_predictor.cc:856", f" - Version incompatible ({pick(r, ('1', '2'))}) {pick(r, ('yolo_box', 'matrix_nms'))}")
    paddle_error(c, "InvalidArgument", ["The Input Variable(Input) of conv2d Op used to determine kernel data type is empty or "
                                        "not LoDTensor or SelectedRows or LoDTensorArray."],
                 "Expected data_type != dafault_data_type, but received data_type:-1 == dafault_data_type:-1.",
                 "paddle/fluid/framework/operator.cc:1291", "exec")
    return "predictor_version"


# ---- file_not_found


def f_native_predictor_model(c: Ctx) -> str:
    """C++ NativePaddlePredictor (Fluid 1.x deployments): the model file is read by ReadBinaryFile."""
    r, md = c.rng, c.model_dir
    c.em.err("terminate called after throwing an instance of 'paddle::platform::EnforceNotMet'",
             f"  what():  Cannot open file {md}/model at [/paddle/paddle/fluid/inference/io.cc:50]")
    c.em.block(["PaddlePaddle Call Stacks:"] + [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(100, 700)}" for i, f in enumerate((
        "paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
        "paddle::inference::ReadBinaryFile(std::string const&, std::string*)",
        "paddle::NativePaddlePredictor::Init(std::shared_ptr<paddle::framework::Scope>)"))])
    c.em.err("Aborted (core dumped)")
    return "native_predictor_model"


def f_dataset_path_checks(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = pick(r, [1] + [0] * (c.job == "det") + [2] * (c.job == "ocr") + [3] * (c.job in ("infer", "serving")))
    if v == 0:
        ann = "/data/coco/annotations/instances_train2017.json"
        em.out(f"[{em.ts_short()}] ppdet.utils.download WARNING: Config annotation {ann} is not a file, dataset config is not valid",
               f"[{em.ts_short()}] ppdet.utils.download INFO: Dataset /data/coco is not valid for reason above, try searching "
               "/root/.cache/paddle/dataset or downloading dataset...")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/ppdet/utils/download.py", 225, "get_dataset_path",
                                                 "raise ValueError(")])
        em.err("ValueError: Dataset /data/coco is not valid and cannot parse dataset type 'None' for automaticly downloading")
    elif v == 1:
        py_tb(c, frames_user(c) + [(f"{c.workdir}/utils/reader.py", 84, "check_params", "assert os.path.isdir(data_dir), \\")])
        em.err("AssertionError: ./dataset/ILSVRC2012/ doesn't exist, please check datadir path")
    elif v == 2:
        img = f"./train_data/rec/train/{r.randrange(9999)}.jpg"
        em.out(f"[{em.ts_slash()}] ppocr ERROR: When parsing line rec/{img.rsplit('/', 1)[1]}\t闽龙渔08281",
               ", error happened with msg: Traceback (most recent call last):",
               f'  File "{c.workdir}/PaddleOCR/ppocr/data/simple_dataset.py", line 132, in __getitem__',
               '    raise Exception("{} does not exist!".format(img_path))', f"Exception: {img} does not exist!")
    else:
        em.out(f"not find model file path {c.model_dir}/inference.pdmodel")
    return ("ppdet_not_a_file", "datadir_assert", "ppocr_does_not_exist", "not_find_model_file")[v]


# ---- system_lib_missing


def f_libstdcxx_glibcxx(c: Ctx) -> str:
    r = c.rng
    sym = pick(r, ("GLIBCXX_3.4.30", "GLIBCXX_3.4.29", "CXXABI_1.3.8", "GLIBCXX_3.4.22"))
    py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (1, 3)), "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", 25, "<module>", "from .base import core"),
              (f"{c.pkg}/{c.fw}/core.py", pick(r, (269, 325)), "<module>", "from . import libpaddle")])
    c.em.err(f"ImportError: /opt/conda/lib/libstdc++.so.6: version `{sym}' not found (required by {c.pkg}/{c.fw}/libpaddle.so)")
    return "libstdcxx_version"


def f_libssl11(c: Ctx) -> str:
    c.em.err(f"Error: Can not import paddle core while this file exists: {c.pkg}/{c.fw}/libpaddle.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], 2, "<module>", "import paddle"),
              (f"{c.pkg}/{c.fw}/core.py", 269, "<module>", "from . import libpaddle")])
    c.em.err(pick(c.rng, ("ImportError: libssl.so.1.1: cannot open shared object file: No such file or directory",
                          f"ImportError: libpython{c.python}.so.1.0: cannot open shared object file: No such file or directory")))
    return "core_import_os_lib"


def f_dll_load_failed(c: Ctx) -> str:
    c.em.err(pick(c.rng, ("ImportError: DLL load failed: 找不到指定的模块。",
                          "ImportError: DLL load failed while importing _remap: The specified module could not be found.")))
    return "win_dll_load_failed"


# ---- python_dependency_conflict


def f_third_party_api(c: Ctx) -> str:
    """A package at the wrong version breaks code that did not change: reads like an API error, but it is a pin."""
    r, em, site = c.rng, c.em, c.site
    v = pick(r, {"numpy2": ("numpy_alias",), "module": ("paddlex_deps",), "opencv": ("cv2_attr", "cv2_attr", "qt_xcb"),
                 "hfhub": ("hf_hub",), "pillow10": ("pillow_textsize",)}[c.extra.get("dep_conflict", "numpy2")])
    if v == "numpy_alias":
        alias, repl = pick(r, (("int", "int"), ("complex", "complex"), ("float", "float"), ("object", "object")))
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/{pick(r, ('librosa/core/constantq.py', 'skimage/morphology/_skeletonize.py', 'paddleocr/ppocr/postprocess/db_postprocess.py'))}",
                                                 r.randrange(40, 300), "<module>", f"dtype=np.{alias}")])
        em.block([f"AttributeError: module 'numpy' has no attribute '{alias}'.",
                  f"`np.{alias}` was a deprecated alias for the builtin `{repl}`. To avoid this error in existing code, use "
                  f"`{repl}` by itself. Doing this will not modify any behavior and is safe.",
                  "The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:",
                  "    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations"])
    elif v == "cv2_attr":
        py_tb(c, frames_user(c, deep=False)[:1] + [(f"{site}/cv2/__init__.py", 181, "<module>", "bootstrap()"),
                                                   (f"{site}/cv2/typing/__init__.py", 168, "<module>",
                                                    "LayerId = cv2.dnn.DictValue")])
        em.err(pick(r, ("AttributeError: module 'cv2.dnn' has no attribute 'DictValue'",
                        "AttributeError: module 'cv2' has no attribute '_registerMatType'")))
    elif v == "hf_hub":
        py_tb(c, frames_user(c, deep=False)[:1] + [(f"{site}/ppdiffusers/utils/dynamic_modules_utils.py", 28, "<module>",
                                                    "from huggingface_hub import HfFolder, cached_download, hf_hub_download, model_info")])
        em.err(f"ImportError: cannot import name 'cached_download' from 'huggingface_hub' ({site}/huggingface_hub/__init__.py)")
    elif v == "pillow_textsize":
        py_tb(c, frames_user(c) + [(f"{site}/paddlex/utils/visualizer.py", 65, "draw_label", "tw, th = draw.textsize(text, font=font)")])
        em.err("AttributeError: 'ImageDraw' object has no attribute 'textsize'")
    elif v == "qt_xcb":     # hard: Paddle's handler reports SIGABRT, but opencv's bundled Qt clashes with PyQt5
        em.err(f"QObject::moveToThread: Current thread ({c.hexaddr()}) is not the object's thread ({c.hexaddr()}).",
               f"Cannot move to target thread ({c.hexaddr()})", "",
               f'qt.qpa.plugin: Could not load the Qt platform plugin "xcb" in "{site}/cv2/qt/plugins" even though it was found.',
               "This application failed to start because no Qt platform plugin could be initialized. Reinstalling the "
               "application may fix this problem.", "",
               "Available platform plugins are: xcb, eglfs, linuxfb, minimal, minimalegl, offscreen, vnc, wayland-egl, wayland.")
        em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                  "--------------------------------------", "No stack trace in paddle, may be caused by external reasons."])
        fatal_signal(c, "SIGABRT", "Process abort signal", None)
    else:
        py_tb(c, [(f"{site}/paddleocr/_pipelines/base.py", 102, "_create_paddlex_pipeline", "return create_pipeline("),
                  (f"{site}/paddlex/utils/deps.py", 194, "require_extra", "raise DependencyError(")])
        em.err("paddlex.utils.deps.DependencyError: `OCR` requires additional dependencies. To install them, run "
               "`pip install \"paddlex[ocr]==3.0.0\"` if you’re installing `paddlex` from an index.", "",
               "The above exception was the direct cause of the following exception:", "")
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/paddleocr/_pipelines/base.py", 104, "_create_paddlex_pipeline",
                                                 "raise RuntimeError(")])
        em.err("RuntimeError: A dependency error occurred during pipeline creation. Please refer to the installation "
               "documentation to ensure all required dependencies are installed.")
    return f"third_party_{v}"


# ---- shm_exhausted


def f_shm_more(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = r.randrange(3)
    if v == 0:
        py_tb(c, frames_user(c) + [(f"{_dl_dir(c)}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.err(f"RuntimeError: DataLoader worker (pid {em.pid + 30 + r.randrange(8)}) is killed by signal: Bus error. It is "
               "possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")
    elif v == 1:
        for k in range(r.randrange(1, 4)):
            em.err(f"Process Process-{17 + k}:")
            py_tb(c, [(f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/process.py", 297, "_bootstrap", "self.run()"),
                      (f"{_dl_dir(c)}/worker.py", pick(r, (345, 355)), "_worker_loop",
                       "tensor_list = [core._array_to_share_memory_tensor(b) for b in flat_batch]")])
            em.block(["RuntimeError: (Unavailable) Memory map failed when create shared memory.",
                      "  [Hint: Expected ptr != ((void *) -1), but received ptr:0xffffffffffffffff == ((void *) -1):0xffffffffffffffff.]"
                      " (at /paddle/paddle/fluid/memory/allocation/mmap_allocator.cc:81)"])
    else:     # hard: the shm error is gone from the paste, only the reader's timeout is left
        em.err("ERROR:root:DataLoader reader thread raised an exception!")
        em.err(f"Exception in thread Thread-{r.randrange(2, 12)}:")
        py_tb(c, [(f"{_dl_dir(c)}/dataloader_iter.py", pick(r, (482, 505)), "_get_data", "data = self._data_queue.get(timeout=self._timeout)"),
                  (f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/queues.py", 105, "get", "raise Empty")])
        em.err("_queue.Empty")
    return ("worker_bus_error", "mmap_failed", "queue_empty")[v]


def _lib(c: Ctx, part: str) -> bool:
    return part in c.extra.get("missing_cuda_lib", "libcudnn.so")


def _syslib(c: Ctx, prefix: str) -> bool:
    return c.extra.get("missing_sys_lib", "").startswith(prefix)


# category -> ((weight given the run, form), ...); the category's own forms above keep weight _OWN_WEIGHT
_OWN_WEIGHT = 3.0
FAMILIES = {
    "gpu_not_visible": ((lambda c: (1.5 if c.job in ("infer", "serving") else 0.3) if c.extra.get("cpu_wheel") else 0,
                         f_enable_gpu_cpu_build),
                        (lambda c: 1.0, f_device_count_zero),
                        (lambda c: 0 if c.extra.get("cpu_wheel") else 1.2, f_error35_without_driver)),
    "cuda_driver_too_old": ((lambda c: 1 if c.gen in ("1x", "20") else 0.3, f_device_not_set_properly),
                            (lambda c: 0.6, f_ptx_toolchain), (lambda c: 0.5, f_summary_env_no_gpu)),
    # the missing library decides: NCCL breaks the collective start, cudart the import itself
    "cuda_lib_missing": ((lambda c: 0.3 if _lib(c, "cudnn") else 0, f_win_dll126), (lambda c: 0.8 if _lib(c, "cudnn") else 0, f_cudnn_dso_handle),
                         (lambda c: 1000 if _lib(c, "cudart") else 0, f_core_import_cudart),
                         (lambda c: 0.5 if c.gen == "1x" and _lib(c, "cudnn") else 0, f_legacy_dynamic_loader),
                         (lambda c: 1000 if _lib(c, "nccl") else 0, f_nccl_lib)),
    "gpu_oom": ((lambda c: 1.2 if c.gen == "1x" else 0, f_allocating_available),     # Fluid's allocator only
                (lambda c: 1 if c.gen in ("1x", "20") else 0.1, f_badalloc_operator), (lambda c: 0.5, f_alloc_traceback_only)),
    "host_oom": ((lambda c: 1.5, f_host_alloc_python),),
    "distributed_comm_failure": ((lambda c: 1.0, f_wait_forever), (lambda c: 1.2 if c.gen == "1x" else 0.3, f_rpc_pserver),
                                 (lambda c: 0.3, f_bkcl)),
    "native_crash": ((lambda c: 0.8 if c.major >= 2 else 0, f_signal_no_stack), (lambda c: 1 if c.gen == "1x" else 0.3, f_fluid_init_signal),
                     (lambda c: 0.5, f_glibc_backtrace)),
    "model_version_incompatible": ((lambda c: 0.8, f_paddle_lite), (lambda c: 0.8, f_op_not_registered_old),
                                   (lambda c: 0.6 if c.gen in ("1x", "20") else 0.2, f_predictor_version)),
    "file_not_found": ((lambda c: 0.8 if c.job in ("infer", "serving") else 0.2, f_native_predictor_model),
                       (lambda c: 1.0, f_dataset_path_checks)),
    "system_lib_missing": ((lambda c: 1000 if _syslib(c, "libstdc++") else 0, f_libstdcxx_glibcxx),
                           (lambda c: 1000 if _syslib(c, "libssl") else 0, f_libssl11), (lambda c: 0.15, f_dll_load_failed)),
    # numpy/module conflicts keep their own forms too; opencv/hub/pillow conflicts only have these
    "python_dependency_conflict": ((lambda c: {"numpy2": 1.5, "module": 0.8, "opencv": 1000, "hfhub": 1000,
                                               "pillow10": 1000}.get(c.extra.get("dep_conflict", ""), 0), f_third_party_api),),
    "shm_exhausted": ((lambda c: 1.0, f_shm_more),),
}


def with_families(category: str, own: Callable[[Ctx], str]) -> Callable[[Ctx], str]:
    """The category's surface forms: its own function, or one of its families above (weighted per run)."""
    def render(c: Ctx) -> str:
        forms = [(w(c), f) for w, f in FAMILIES.get(category, ())]
        forms = [(w, f) for w, f in forms if w > 0] + [(_OWN_WEIGHT, own)]
        return wpick(c.rng, forms)(c)
    render.__name__ = own.__name__
    return render


ERRORS = {
    "cuda_driver_too_old": e_cuda_driver_too_old, "gpu_not_visible": e_gpu_not_visible,
    "cuda_lib_missing": e_cuda_lib_missing, "gpu_arch_unsupported": e_gpu_arch_unsupported,
    "system_lib_missing": e_system_lib_missing, "shm_exhausted": e_shm_exhausted, "gpu_oom": e_gpu_oom,
    "host_oom": e_host_oom, "model_version_incompatible": e_model_version_incompatible,
    "api_incompatible": e_api_incompatible, "python_dependency_conflict": e_python_dependency_conflict,
    "distributed_comm_failure": e_distributed_comm_failure, "native_crash": e_native_crash, "disk_full": e_disk_full,
    "file_not_found": e_file_not_found, "code_error": e_code_error, "unknown": e_unknown,
}
ERRORS = {cat: with_families(cat, fn) for cat, fn in ERRORS.items()}

# When in a run each failure strikes: import (before Paddle prints anything), device (first GPU use),
# load (model/data loading), step (during the progress loop), save (at a checkpoint)
PHASE = {
    "system_lib_missing": "import", "python_dependency_conflict": "import", "api_incompatible": "import",
    "gpu_not_visible": "device", "cuda_driver_too_old": "device", "gpu_arch_unsupported": "load",
    "cuda_lib_missing": "load", "file_not_found": "load", "model_version_incompatible": "load",
    "distributed_comm_failure": "step", "shm_exhausted": "step", "gpu_oom": "step", "host_oom": "step",
    "native_crash": "step", "unknown": "step", "disk_full": "save", "code_error": "step",
}


# --------------------------------------------------------------------------------------------------
# Whole runs


def exit_code_for(category: str, variant: str) -> int:
    if category == "no_failure":
        return 0
    if category == "host_oom":
        # the OOM killer SIGKILLs (137); an allocation that fails in the process raises instead, and a killed
        # DataLoader worker makes the trainer raise (1)
        return 134 if "bad_alloc" in variant or "lite_malloc" in variant else 137 if host_oom_killed(variant) and "dataloader_killed" not in variant \
            else 1
    if category == "native_crash":
        return 139 if "segv" in variant else 132 if "illegal" in variant else 136 if "sigfpe" in variant else 134
    if category == "shm_exhausted" and "bus_core" in variant:
        return 135
    if category == "code_error":
        return 134 if "+sigabrt" in variant else 2 if "argparse" in variant else 1
    if "+segv" in variant:            # a crash after the real error (a CPU build asked for the GPU)
        return 139
    if "wait_forever" in variant:     # stopped by the scheduler while waiting for peers
        return 143
    if category == "unknown" and "deadline" in variant:
        return 143
    return 1


def host_oom_killed(variant: str) -> bool:
    """Whether the kernel's OOM killer struck in the container's cgroup (docker's State.OOMKilled)."""
    return variant.split("+")[0] in ("cut_off", "shell_killed", "launch_sigkill", "host_alloc_dataloader_killed")


def _launch_failure_tail(c: Ctx, err_lines: list, code: int) -> None:
    """paddle.distributed.launch reports a failed worker: status, env dump, ERROR LOG DETAIL, exit code."""
    em, r = c.em, c.rng
    rank = c.extra.get("fail_rank", 0)
    em.out(f"LAUNCH INFO {em.ts_comma()} Pod failed")
    em.out(f"LAUNCH ERROR {em.ts_comma()} Container failed !!!")
    em.out(f"Container rank {rank} status failed cmd ['/usr/bin/python', '-u', 'tools/train.py', '-c', 'configs/train.yml'] "
           f"code {code} log log/workerlog.{rank} ")
    envs = {"NVIDIA_VISIBLE_DEVICES": "all", "CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(c.n_gpus)),
            "PADDLE_TRAINER_ID": str(rank), "PADDLE_TRAINERS_NUM": str(c.n_gpus * c.nnodes),
            "PADDLE_CURRENT_ENDPOINT": f"{(c.rank_ips or ['10.10.0.2'])[0]}:{6070 + rank}",
            "PADDLE_TRAINER_ENDPOINTS": ",".join(f"{ip}:{6070 + k}" for ip in (c.rank_ips or ["10.10.0.2"]) for k in range(c.n_gpus)),
            "PADDLE_DISTRI_BACKEND": "nccl", "FLAGS_selected_gpus": str(rank % max(1, c.n_gpus)),
            "PATH": "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
            "LANG": "C.UTF-8", "HOSTNAME": c.extra.get("hostname", "trainer-0"), "HOME": "/root",
            "PYTHONPATH": f"{c.workdir}:", "NCCL_DEBUG": "INFO" if r.random() < 0.5 else "WARN",
            "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    for k in range(r.randrange(10, 60)):   # the env dump is long: CRI splits it into partial lines
        envs[f"PADDLE_EXTRA_{k}"] = f"{r.randrange(16**12):012x}"
    em.out("env " + repr(envs))
    em.out(f"LAUNCH INFO {em.ts_comma()} ------------------------- ERROR LOG DETAIL -------------------------")
    tail = err_lines[-r.randrange(5, 40):] if err_lines else []
    em.block([t for t in tail], "stdout")
    em.out(f"LAUNCH INFO {em.ts_comma()} Exit code {code}")


def _cleanup_noise(c: Ctx, code: int) -> None:
    """An entrypoint trap that uploads artifacts after the job: many lines after the real signature."""
    em, r = c.em, c.rng
    job = c.extra.get("hostname", "job")
    em.out(f"==> training process exited with code {code}, uploading artifacts", f"+ aws s3 sync ./output "
           f"s3://ml-artifacts/{job}/ --only-show-errors" if r.random() < 0.3 else "uploading ./output ...")
    for k in range(r.randrange(8, 60)):
        f = pick(r, (f"vdl/vdlrecords.{em.unix()}.log", f"epoch_{k}/model.pdparams", f"epoch_{k}/model.pdopt",
                     f"epoch_{k}/metric.states", "train.log", "config.yml", f"iter_{k * 500}/model_state.pdparams"))
        em.out(f"upload: output/{f} to s3://ml-artifacts/{job}/{f}")
        em.adv(r.uniform(0.05, 2))
    em.out(f"==> artifacts uploaded ({r.randrange(1, 90)} files, {r.uniform(0.1, 30):.1f} GiB)", "==> done")


def _shutdown_noise(c: Ctx, category: str) -> None:
    """Lines printed after the real error: other ranks, destructors, DataLoader teardown."""
    em, r = c.em, c.rng
    k = r.random()
    if c.job in ("infer", "serving") and k < 0.45:
        k = 0.5
    if k < 0.25 and category in ("gpu_oom", "unknown", "native_crash", "disk_full", "shm_exhausted"):
        # the other ranks / a tee'd second worker keep going a little, then get SIGTERM
        job = JOBS[c.job](c)
        for i in range(r.randrange(3, 25)):
            job.step_line(i, 100)
            em.adv(r.uniform(0.5, 5))
        em.err(f"I{em.ts_glog()} {em.tid + 7:5d} process_group_nccl.cc:{pick(r, (132, 155))}] ProcessGroupNCCL destruct ")
    elif k < 0.45:
        em.err(f"Exception ignored in: <function {pick(r, ('_DataLoaderIterMultiProcess.__del__', 'LogWriter.__del__', 'Predictor.__del__'))} "
               f"at {c.hexaddr()}>")
        py_tb(c, [(f"{c.pkg}/io/dataloader/dataloader_iter.py", pick(r, (705, 761)), "__del__", "self._try_shutdown_all()"),
                  (f"{c.pkg}/io/dataloader/dataloader_iter.py", pick(r, (491, 512)), "_try_shutdown_all",
                   "w.join(timeout=_WORKER_JOIN_TIMEOUT)")])
        em.err(pick(r, ("KeyboardInterrupt: ", "AssertionError: can only join a started process",
                        "SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.")))
    elif k < 0.6:
        for _ in range(r.randrange(1, 6)):
            em.glog("I", pick(r, ("process_group_nccl.cc:132", "tcp_store.cc:289", "comm_context_manager.cc:155")),
                    pick(r, ("ProcessGroupNCCL destruct ", "receive shutdown event and so quit from MasterDaemon run loop",
                             "Destroy the communication context")))
    elif k < 0.7 and c.chinese:
        em.out("训练异常退出，请检查日志", f"任务失败，退出码 {r.randrange(1, 3)}")


def render_run(c: Ctx, category: str) -> tuple[str, int]:
    """Write one run's output through c.em. Returns (scenario variant, exit code)."""
    r, em = c.rng, c.em
    job = JOBS[c.job](c)
    phase = PHASE.get(category)
    # a job bug strikes when the broken input is used: a config as the job starts, a model on its first batch
    bug_phase = CODE_BUG_PHASE.get(c.extra.get("job_bug") or "", "step") if category == "code_error" else ""
    if bug_phase:
        phase = "step" if bug_phase == "first" else bug_phase
    gpus_visible = c.extra.get("gpus_visible", True)
    # ---- container start: shell + image banners
    if c.extra.get("nv_base"):
        cuda_banner(c)
        if not gpus_visible:
            cuda_banner_no_driver(c)
    if c.extra.get("set_x"):
        em.err(f"+ cd {c.workdir}")
    if r.random() < 0.2:
        pip_install(c)
        if r.random() < 0.3:
            hn_pip_resolver(c)
    if r.random() < 0.15:
        if gpus_visible:
            nvidia_smi(c)
        else:
            em.err(pick(r, ("bash: nvidia-smi: command not found", "/entrypoint.sh: line 4: nvidia-smi: command not found")))
    if c.extra.get("set_x"):
        em.err(f"+ {c.extra.get('cmd', 'python3 train.py')}")
    em.adv(r.uniform(1, 8))
    for _ in range(r.randrange(0, 3)):
        sprinkle(c, 0.6)
    variant = ""
    err_lines: list = []

    def fail() -> None:
        nonlocal variant
        # with paddle.distributed.launch the failing rank is often not rank 0: its traceback is only in
        # log/workerlog.N, and the container log shows it in the launcher's ERROR LOG DETAIL section
        ranks = max(1, c.n_gpus * c.nnodes)
        rank = 0 if not c.launch or r.random() < 0.4 else r.randrange(ranks)
        c.extra["fail_rank"] = rank
        em.start_record(err_lines, r.randrange(2, 12) if c.extra.get("truncate") else None, mute=rank != 0)
        cap = c.extra.get("captured")
        if cap and r.random() < 0.3:     # a genuine captured Paddle error block (pipeline.simulate.load_captured)
            name, block = cap[r.randrange(len(cap))]
            em.block(block, "stderr")
            variant = f"captured_{name}"
        else:
            variant = ERRORS[category](c)
        em.stop_record()
        if rank != 0:
            variant += "+other_rank"

    if phase == "import":
        fail()
        return _finish(c, category, variant, err_lines)
    if c.legacy_code and c.major == 2:
        for _ in range(r.randrange(1, 4)):
            hn_fluid_deprecated(c)
    if c.launch:
        launch_banner(c)
    if c.nnodes > 1 and r.random() < 0.5 and category != "distributed_comm_failure":
        hn_retry_connect(c)
    infer_like = c.job in ("infer", "serving")
    if not infer_like:
        job.header()
    em.adv(r.uniform(0.5, 20))
    if phase == "device":
        fail()
        return _finish(c, category, variant, err_lines)
    device_lines(c)
    if r.random() < 0.12:
        hn_cudnn_mismatch(c)
    if phase == "load" and (infer_like or r.random() < 0.7):
        fail()
        return _finish(c, category, variant, err_lines)
    if infer_like:
        job.header()
    if phase == "load":
        fail()
        return _finish(c, category, variant, err_lines)
    # ---- progress loop
    n = max(1, c.n_progress)
    dt = c.duration_s / n
    eval_every = max(1, n // r.randrange(2, 6))
    fail_at = -1
    if bug_phase == "first":
        fail_at = 0
    elif phase == "step":
        fail_at = int(n * (r.random() ** 1.5)) if category != "shm_exhausted" else int(n * r.random() ** 3)
    save_fail = phase == "save"
    p_noise = 0.02
    for i in range(n):
        if i == fail_at:
            if category == "host_oom":
                # memory grows until the kernel OOM killer strikes: maybe a last warning from a worker
                if r.random() < 0.2:
                    em.err(f"{c.pkg}/io/dataloader/dataloader_iter.py:{pick(r, (473, 503))}: UserWarning: DataLoader "
                           "worker memory usage is high, consider reducing num_workers or prefetch_factor")
            fail()
            return _finish(c, category, variant, err_lines)
        job.step_line(i, n)
        em.adv(dt)
        if r.random() < p_noise:
            sprinkle(c, 1.0)
        if i and i % eval_every == 0:
            job.eval()
            if save_fail and (r.random() < 0.5 or i + eval_every >= n):
                fail()
                return _finish(c, category, variant, err_lines)
            job.save(best=r.random() < 0.5)
    if save_fail or fail_at >= n:
        fail()
        return _finish(c, category, variant, err_lines)
    job.done()
    if c.launch:
        em.out(f"LAUNCH INFO {em.ts_comma()} Pod completed")
        em.out(f"LAUNCH INFO {em.ts_comma()} Exit code 0")
    if c.extra.get("cleanup"):
        _cleanup_noise(c, 0)
    return "ok", 0


def _finish(c: Ctx, category: str, variant: str, err_lines: list) -> tuple[str, int]:
    code = exit_code_for(category, variant)
    if c.extra.get("truncate"):
        return variant + "+truncated", code
    if category == "host_oom" and code == 137:
        if c.launch and variant != "launch_sigkill" and c.rng.random() < 0.5:
            _launch_failure_tail(c, err_lines, -9)
        return variant, code
    if c.launch:
        _launch_failure_tail(c, err_lines, code)
    elif c.rng.random() < 0.5:
        _shutdown_noise(c, category)
    if c.extra.get("cleanup"):
        _cleanup_noise(c, code)
    return variant, code
