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

The failure forms live beside this module: ``pipeline.simulate_failures`` (one ``e_<category>`` per
category, ``ERRORS``, ``PHASE``), ``pipeline.simulate_families`` (families seen in real logs: Paddle
Inference/Lite deployments, Fluid GLOG checks, parameter servers, launches that wait forever, third-party
pins, Windows and Chinese messages, signatures that point to another cause) and ``pipeline.simulate_bugs``
(``code_error``: the job bug the fleet model planted, from the job's own files). This module has the
clock, the run context, harmless output, the jobs, the building blocks every failure form uses, and
``render_run`` (a whole run).
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
    zh_shell: bool = False      # the shell runs in a Chinese locale: bash names signals in Chinese
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

    def _localized(self, text: str, translations) -> str:
        if self.zh_shell:
            for en, zh in translations:
                text = text.replace(en, zh)
        return text

    def shell(self, text: str) -> str:
        """A shell's job-status line ("Killed", "Segmentation fault (core dumped)") in this run's locale."""
        return self._localized(text, _ZH_SIGNALS)

    def strerror(self, text: str) -> str:
        """An errno's text (Python's OSError, NCCL's WARN lines) in this run's locale."""
        return self._localized(text, _ZH_ERRNO)


# bash prints strsignal(3), which glibc translates: what a zh_CN.UTF-8 shell says instead
_ZH_SIGNALS = (("Segmentation fault", "段错误"), ("Bus error", "总线错误"), ("Aborted", "已放弃"),
               ("Killed", "已杀死"), ("(core dumped)", "(核心已转储)"))
# strerror(3) in a zh_CN.UTF-8 locale, as Python and NCCL print it
_ZH_ERRNO = (("Connection refused", "拒绝连接"), ("Connection reset by peer", "连接被对方重设"),
             ("No route to host", "没有到主机的路由"), ("Connection timed out", "连接超时"),
             ("Address already in use", "地址已在使用"), ("No such file or directory", "没有那个文件或目录"),
             ("No space left on device", "设备上没有空间"), ("Cannot allocate memory", "无法分配内存"))


def vt(v: str) -> tuple:
    """A dotted version as a tuple that compares as versions: vt("11.4") < vt("11.10")."""
    return tuple(int(x) for x in v.split("."))


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
    # another minor of the same major: the warning healthy runs print (a major apart is cuda_lib_missing's)
    major = c.cudnn.split(".")[0]
    other = pick(c.rng, [f"{major}.{m}" for m in range(10) if f"{major}.{m}" != c.cudnn][:7])
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


def hn_survived_error(c: Ctx) -> str:
    """An error a healthy run caught and went on from, printed in full: a batch-size probe's GPU OOM retried at
    half the batch, a download retried. Only its progress and its end say it was survived."""
    r, em = c.rng, c.em
    if r.random() < 0.6 and c.major >= 2:
        bs = pick(r, (16, 32, 64, 128))
        em.out(f"[auto_batch] trying batch_size={bs}")
        paddle_error(c, "ResourceExhausted", [
            f"Out of memory error on GPU 0. Cannot allocate {r.uniform(100, 4000):.6f}MB memory on GPU 0, "
            f"{r.uniform(0.6, 0.98) * c.gpu_mem_gb:.6f}GB memory has been allocated and available memory is only "
            f"{r.uniform(20, 900):.6f}MB.", "", "Please check whether there is any other process using GPU 0.",
            "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
            "2. If no, please decrease the batch size of your model."],
            None, "paddle/phi/core/memory/allocation/cuda_allocator.cc:86", "alloc")
        em.out(pick(r, (f"[auto_batch] batch_size={bs} does not fit in GPU memory, retrying with batch_size={bs // 2}",
                        f"WARNING: OOM at batch_size {bs}, halving to {bs // 2} and retrying")))
        return "survived_oom_probe"
    url = pick(r, ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/ResNet50_pretrained.pdparams",
                   "https://bj.bcebos.com/paddlenlp/models/community/ernie-3.0-base-zh/model_state.pdparams"))
    for k in range(r.randrange(1, 3)):
        py_tb(c, [(f"{c.site}/requests/adapters.py", pick(r, (519, 700)), "send", "raise ConnectionError(e, request=request)")])
        em.err(f"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{url.split('/')[2]}', port=443): Read timed "
               "out.", f"download failed, retry {k + 1}/5 in 10s")
        em.adv(10)
    em.out(f"download {url} done")
    return "survived_download_retry"


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


def nvidia_smi(c: Ctx, used_mib: int | None = None) -> None:
    """nvidia-smi in the container: GPU 0's memory as other tenants hold it (``used_mib``; idle by default).
    Their processes never show: a container sees no PID outside its own namespace."""
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
               f" {4 if used_mib is None or i else used_mib:>6}MiB / {total:>5}MiB |"
               f"    {0 if used_mib is None or i else r.randrange(30, 100):>3}%      Default |",
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
        if c.rng.random() < 0.03:   # a first probe of an unversioned libcudnn.so fails, the versioned one loads
            em.glog("W", "dynamic_loader.cc:307", "The third-party dynamic library (libcudnn.so) that Paddle depends on is "
                    "not configured correctly. (error code is libcudnn.so: cannot open shared object file: No such file "
                    "or directory)")
        em.glog("W", loc[1], f"device: {dev}, cuDNN Version: {c.cudnn}.")


def cpu_job_on_gpu_build(c: Ctx) -> str:
    """A job that asks for the CPU on a GPU image (a CPU node pool, a CPU smoke test): the GPU build warns that
    it finds no driver or device, and the job runs on the CPU as it meant to (a healthy run)."""
    r, em = c.rng, c.em
    # (a job's "device: cpu" print does not count: tools print the device they ended up on, after the fallback too)
    ask = pick(r, ("flag", "config", "set_device"))
    if ask == "flag":
        em.err(f"+ {c.extra.get('cmd', 'python3 train.py')} " + pick(r, ("-o Global.use_gpu=False", "--device cpu",
                                                                          "--use_gpu=False", "--device=cpu")))
    elif ask == "config":
        em.out(pick(r, ("use_gpu : False", "    use_gpu: False", "[2024/05/01 10:00:00] ppocr INFO:     use_gpu : False")))
    else:
        em.out(">>> paddle.set_device('cpu')")
    if r.random() < 0.7:
        em.glog("W", f"dynamic_loader.cc:{pick(r, (307, 311, 312))}", "The third-party dynamic library (libcuda.so) that "
                "Paddle depends on is not configured correctly. (error code is libcuda.so: cannot open shared object "
                "file: No such file or directory)")
    if r.random() < 0.6:
        em.err(f"{c.pkg}/device/__init__.py:{pick(r, (205, 253))}: UserWarning: You are using GPU version Paddle, but "
               "your CUDA device is not set properly. CPU device will be used by default.")
    return f"cpu_job_on_gpu_build_{ask}"


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


def py_tb_lines(frames) -> list[str]:
    """A Python traceback's header and frames, as text (py_tb prints them; framings wrap them first)."""
    lines = ["Traceback (most recent call last):"]
    for path, ln, fn, code in frames:
        lines.append(f'  File "{path}", line {ln}, in {fn}')
        if code:
            lines.append(f"    {code}")
    return lines


def py_tb(c: Ctx, frames, stream: str = "stderr") -> None:
    c.em.block(py_tb_lines(frames), stream)


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


GLOG_FAIL_FRAMES = ("google::LogMessage::Fail()", "google::LogMessage::SendToLog()", "google::LogMessage::Flush()",
                    "google::LogMessageFatal::~LogMessageFatal()")   # the top of every GLOG fatal's stack


def check_failure_stack(c: Ctx, frames) -> list[str]:
    """GLOG's stack of a failed check, as text: the header and one line per frame."""
    return ["*** Check failure stack trace: ***"] + [f"    @     {c.hexaddr()}  {f}" for f in frames]


def glog_fatal(c: Ctx, loc: str, msg: str, frames: list | None = None) -> None:
    em, r = c.em, c.rng
    em.glog("F", loc, msg)
    em.block(check_failure_stack(c, [*(frames or (*GLOG_FAIL_FRAMES, "paddle::platform::CUDADeviceContext::Init()",
                                                  "paddle::platform::DeviceContextPool::Init()",
                                                  "paddle::framework::InitDevices()")), "(unknown)"]))
    if r.random() < 0.7:
        em.err(c.shell("Aborted (core dumped)"))


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


# shared by the failure forms of several categories

CUDA_HINT35 = ("'cudaErrorInsufficientDriver'. This indicates that the installed NVIDIA CUDA driver is older than the "
                "CUDA runtime library. This is not a supported configuration.Users should install an updated NVIDIA "
                "display driver to allow the application to run.")

DYNLOAD_SUGGEST = ["  Suggestions:",
                    "  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed correctly and its "
                    "version is matched with paddlepaddle you installed.",
                    "  2. Configure third-party dynamic library environment variables as follows:",
                    "  - Linux: set LD_LIBRARY_PATH by `export LD_LIBRARY_PATH=...`",
                    "  - Windows: set PATH by `set PATH=XXX;"]

def nccl_prefix(c: Ctx, rank: int = 0) -> str:
    host = c.extra.get("hostname", "trainer-0")
    return f"{host}:{c.em.pid}:{c.em.pid + 40 + rank} [{rank}]"

def dataloader_dir(c: Ctx) -> str:
    return f"{c.pkg}/io/dataloader" if c.paddle >= "2.5" else f"{c.pkg}/fluid/dataloader"


# --------------------------------------------------------------------------------------------------
# Whole runs


def exit_code_for(category: str, variant: str) -> int:
    if category == "no_failure":
        return 0
    if category == "host_oom":
        # the OOM killer SIGKILLs (137); an allocation that fails in the process raises instead, and a killed
        # DataLoader worker makes the trainer raise (1)
        # a compiler the OOM killer took fails the build (make: 2)
        return 134 if "bad_alloc" in variant or "lite_malloc" in variant else 2 if "build_killed" in variant else \
            137 if host_oom_killed(variant) and "dataloader_killed" not in variant else 1
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
    if category == "unknown" and "liveness" in variant:   # the kubelet's SIGKILL after the grace period
        return 137
    return 1


def leaves_no_trace(category: str, variant: str) -> bool:
    """A failure whose log shows nothing of it: the OOM killer's SIGKILL mid-output (only docker's exit code
    and OOMKilled say it). A user's paste of such a log is a healthy-looking tail."""
    return category == "host_oom" and variant.split("+")[0] == "cut_off"


def host_oom_killed(variant: str) -> bool:
    """Whether the kernel's OOM killer struck in the container's cgroup (docker's State.OOMKilled)."""
    return variant.split("+")[0] in ("cut_off", "shell_killed", "launch_sigkill", "host_alloc_dataloader_killed", "build_killed",
                                     "slurm_oom", "pod_oomkilled")


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


def ignored_in_destructor(c: Ctx, exception: str) -> None:
    """An exception Python ignored in a destructor (a DataLoader's teardown, at interpreter exit): it prints
    "Exception ignored in:" and its traceback, after a failure as after a run that did its work."""
    em, r = c.em, c.rng
    em.err(f"Exception ignored in: <function {pick(r, ('_DataLoaderIterMultiProcess.__del__', 'LogWriter.__del__', 'Predictor.__del__'))} "
           f"at {c.hexaddr()}>")
    py_tb(c, [(f"{c.pkg}/io/dataloader/dataloader_iter.py", pick(r, (705, 761, 779)), "__del__", "self._try_shutdown_all()"),
              (f"{c.pkg}/io/dataloader/dataloader_iter.py", pick(r, (491, 512, 576)), "_try_shutdown_all",
               pick(r, ("w.join(timeout=_WORKER_JOIN_TIMEOUT)", "core._erase_process_pids(id(self))")))])
    em.err(exception)


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
        ignored_in_destructor(c, pick(r, ("KeyboardInterrupt: ", "AssertionError: can only join a started process",
                                          "SystemError: (Fatal) Blocking queue is killed because the data reader "
                                          "raises an exception.")))
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
    from pipeline.simulate_bugs import CODE_BUG_PHASE
    from pipeline.simulate_failures import ERRORS, PHASE
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
        if gpus_visible:   # now and then a GPU other pods share: some of its memory is theirs, room is left
            nvidia_smi(c, int(c.gpu_mem_gb * 1024 * r.uniform(0.1, 0.8)) if r.random() < 0.25 else None)
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
    if category == "no_failure" and not c.extra.get("cpu_wheel") and r.random() < 0.06:
        variant = cpu_job_on_gpu_build(c)
    else:
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
    if category == "no_failure" and r.random() < 0.05:   # an error caught and retried; the steps go on after it
        variant = variant or hn_survived_error(c)
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
    if r.random() < 0.06:   # interpreter exit tears the DataLoader down and Python ignores what that raised
        ignored_in_destructor(c, pick(r, ("AttributeError: 'NoneType' object has no attribute '_erase_process_pids'",
                                          "TypeError: 'NoneType' object is not callable",
                                          "ImportError: sys.meta_path is None, Python is likely shutting down")))
    if c.launch:
        em.out(f"LAUNCH INFO {em.ts_comma()} Pod completed")
        em.out(f"LAUNCH INFO {em.ts_comma()} Exit code 0")
    if c.extra.get("cleanup"):
        _cleanup_noise(c, 0)
    return variant or "ok", 0


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
