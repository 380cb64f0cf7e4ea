"""Deterministic simulator of a GPU fleet running PaddlePaddle containers (logs + ground truth).

    simulate(out, hosts=20, days=7, seed=1, start="2026-11-16", runs_per_host_day=3.0, scale_lines=1.0, pastes=0.0)
        -> SimSummary(runs, lines, bytes, categories)

Writes the storage layout of shared/design.md under ``out``:

    <host>/docker/containers/<cid>/<cid>-json.log[.1|.2.gz] + config.v2.json
    <host>/pods/<ns>_<pod>_<uid>/<container>/<n>.log (+ <n>.log.meta.json with the run's metadata)
    <host>/files/<job>/train.log + train.log.meta.json
    <host>/files/<job>/paste-<n>.log   with ``pastes`` > 0: what a user would paste of run <n> (paste_of)
    (container labels carry team, job, revision and dataset; an edited config shows in the command)
    inventory.csv   host, gpu_model, driver_version, cuda_driver_max, node_pool
    labels.csv      run_id, category, source (= simulated), scenario (= category/variant), note

Failures come from causes in a fleet model, not from dice alone: every host has a GPU model and a driver
(a cohort on driver 470 = CUDA 11.4), every image has a Paddle version, a CUDA/cuDNN runtime, the GPU
architectures it was built for, and sometimes a defect (CPU wheel, missing libGL, no cuDNN, conflicting
Python packages); every run has container settings (--gpus, --shm-size, memory limit, mounted volumes),
a batch size, DataLoader workers, nodes, and what the job was started from: a code revision, a dataset
version and a config (a job bug, ``code_error``, lives there: a new revision that breaks the model, a dataset
candidate with a bad label file, a hand-edited config; never on the host). ``decide`` maps those facts to one taxonomy category in a fixed
order of precedence; a few causes stay probabilistic (shared memory pressure, NCCL on a flaky pool...).
Categories still missing after planning are planted by changing a cause of an otherwise healthy run, so
labels stay consistent with the metadata.

Determinism: every random draw comes from ``random.Random`` seeded by a SHA-256 of (seed, purpose, host,
index...) — never the global generator, never Python's salted hash(), never the wall clock — and files are
written in sorted order with fixed gzip headers, so the same arguments give byte-identical trees.
"""
from __future__ import annotations

import csv
import datetime as dt
import gzip
import hashlib
import json
import math
import os
import random
import re
import shutil
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline import simulate_bugs as B
from pipeline import simulate_text as T
from pipeline.simulate_text import vt

CATEGORIES = ("cuda_driver_too_old", "gpu_not_visible", "cuda_lib_missing", "gpu_arch_unsupported",
              "system_lib_missing", "shm_exhausted", "gpu_oom", "host_oom", "model_version_incompatible",
              "api_incompatible", "python_dependency_conflict", "distributed_comm_failure", "native_crash",
              "disk_full", "file_not_found", "code_error", "no_failure", "unknown")


def rng_for(*parts) -> random.Random:
    """A random.Random seeded from a stable hash of parts (never Python's salted hash())."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(h[:16], "big"))


def hexid(n: int, *parts) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:n]


# --------------------------------------------------------------------------------------------------
# Fleet: GPUs, drivers, node pools, hosts


@dataclass(frozen=True)
class Gpu:
    key: str
    name: str
    cc: str
    mem_gb: float


GPUS = {
    "K80": Gpu("K80", "Tesla K80", "3.7", 11.2),
    "P100": Gpu("P100", "Tesla P100-PCIE-16GB", "6.0", 16.0),
    "V100": Gpu("V100", "Tesla V100-SXM2-16GB", "7.0", 16.0),
    "T4": Gpu("T4", "Tesla T4", "7.5", 15.0),
    "A10": Gpu("A10", "NVIDIA A10", "8.6", 24.0),
    "A100-40GB": Gpu("A100-40GB", "NVIDIA A100-SXM4-40GB", "8.0", 40.0),
    "A100-80GB": Gpu("A100-80GB", "NVIDIA A100-SXM4-80GB", "8.0", 80.0),
    "H100": Gpu("H100", "NVIDIA H100 80GB HBM3", "9.0", 80.0),
}

# driver branch -> (full version, max CUDA runtime it supports)
DRIVERS = {"470": ("470.239.06", "11.4"), "525": ("525.147.05", "12.0"), "535": ("535.183.01", "12.2"),
           "550": ("550.127.05", "12.4"), "570": ("570.124.06", "12.8")}


@dataclass(frozen=True)
class Pool:
    name: str
    gpu: str
    n_gpus: int
    share: float
    drivers: tuple          # driver branches used in this pool (non-470 cohort)
    flaky_net: bool = False  # NCCL over a misconfigured RoCE fabric
    multinode: bool = False


POOLS = (
    Pool("gpu-a10", "A10", 4, 0.20, ("535", "550", "570", "570")),
    Pool("gpu-t4-infer", "T4", 4, 0.18, ("525", "550", "570")),
    Pool("gpu-v100", "V100", 8, 0.15, ("535", "570")),
    Pool("gpu-a100", "A100-40GB", 8, 0.14, ("550", "570"), multinode=True),
    Pool("gpu-a100-roce", "A100-80GB", 8, 0.10, ("570",), flaky_net=True, multinode=True),
    Pool("gpu-h100", "H100", 8, 0.10, ("570",), multinode=True),
    Pool("gpu-legacy", "K80", 4, 0.07, ("470",)),
    Pool("gpu-legacy", "P100", 4, 0.06, ("470", "535")),
)


@dataclass
class Host:
    name: str
    pool: Pool
    gpu: Gpu
    driver: str             # branch
    driver_version: str
    cuda_max: str
    small_disk: bool = False
    disk_phase: int = 0     # day offset of the small disk's fill/cleanup cycle


def build_fleet(hosts: int, seed: int) -> list[Host]:
    r = rng_for(seed, "fleet")
    width = max(2, len(str(hosts)))
    names = [f"h{i:0{width}d}" for i in range(1, hosts + 1)]
    # pool quotas by largest remainder; legacy pools get their couple of hosts
    raw = [p.share * hosts for p in POOLS]
    quota = [int(x) for x in raw]
    for i in sorted(range(len(POOLS)), key=lambda i: (-(raw[i] - quota[i]), i))[: hosts - sum(quota)]:
        quota[i] += 1
    if hosts >= 10:
        for i, p in enumerate(POOLS):
            if p.gpu in ("K80", "P100") and quota[i] == 0:
                big = max(range(len(POOLS)), key=lambda j: (quota[j], -j))
                quota[big] -= 1
                quota[i] += 1
    slots = [p for p, q in zip(POOLS, quota) for _ in range(q)]
    r.shuffle(slots)
    fleet = [Host(n, p, GPUS[p.gpu], "", "", "") for n, p in zip(names, slots)]
    # the driver-470 cohort: ~15% of hosts, at least 2 once there are 6 hosts; K80 hosts are always on 470
    want = max(round(0.15 * hosts), 2 if hosts >= 6 else 1 if hosts >= 3 else 0)
    forced = [h for h in fleet if h.pool.drivers == ("470",)]
    others = [h for h in fleet if h.pool.drivers != ("470",) and h.gpu.key in ("P100", "T4", "V100", "A10")]
    r.shuffle(others)
    cohort = {h.name for h in forced + others[: max(0, want - len(forced))]}
    for h in fleet:
        br = "470" if h.name in cohort else r.choice([d for d in h.pool.drivers if d != "470"] or ["535"])
        h.driver = br
        h.driver_version, h.cuda_max = DRIVERS[br]
    # a host or two with a small data volume that fills up during the week
    cands = [h for h in fleet]
    r.shuffle(cands)
    for h in cands[: (1 if hosts >= 4 else 0) + (1 if hosts >= 10 else 0) + hosts // 50]:
        h.small_disk = True
        h.disk_phase = r.randrange(4)
    return fleet


# --------------------------------------------------------------------------------------------------
# Images


@dataclass(frozen=True)
class Image:
    ref: str
    paddle: str
    cuda: str
    cudnn: str
    python: str = "3.10"
    site: str = "/usr/local/lib/python3.10/dist-packages"
    archs: tuple = ("6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0")
    base: str = ""
    missing_sys_lib: str = ""      # system_lib_missing
    cpu_wheel: bool = False        # gpu_not_visible
    missing_cuda_lib: str = ""     # cuda_lib_missing
    dep_conflict: str = ""         # python_dependency_conflict: numpy2 | protobuf | markupsafe | module | opencv | hfhub | pillow10
    custom_ops: bool = False       # native_crash risk
    nv_base: bool = False          # built FROM nvidia/cuda (prints the CUDA banner)

    @property
    def gen(self) -> str:
        v = vt(self.paddle)
        return "1x" if v[0] < 2 else "20" if v < (2, 3) else "2x" if v[0] == 2 else "3x"

    @property
    def major(self) -> int:
        return vt(self.paddle)[0]


_ARCH_112 = ("3.5", "3.7", "5.0", "5.2", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6")
_ARCH_101 = ("3.5", "3.7", "5.0", "5.2", "6.0", "6.1", "7.0", "7.5")
_PY38_CONDA = dict(python="3.8", site="/opt/conda/lib/python3.8/site-packages")
_PY37 = dict(python="3.7", site="/usr/local/lib/python3.7/dist-packages")
_OFF = "paddlepaddle/paddle:"

IMAGES = {i.ref: i for i in (
    Image(_OFF + "2.6.0-gpu-cuda11.2-cudnn8", "2.6.0", "11.2", "8.2", archs=_ARCH_112),
    Image(_OFF + "2.6.0-gpu-cuda11.8-cudnn8", "2.6.0", "11.8", "8.6"),
    Image(_OFF + "2.6.2-gpu-cuda12.0-cudnn8.9-trt8.6", "2.6.2", "12.0", "8.9"),
    Image(_OFF + "3.0.0-gpu-cuda11.8-cudnn8.9", "3.0.0", "11.8", "8.9"),
    Image(_OFF + "3.0.0-gpu-cuda12.6-cudnn9.5", "3.0.0", "12.6", "9.5"),
    Image(_OFF + "latest-gpu", "3.1.0", "12.6", "9.5"),
    Image(_OFF + "3.1.0-gpu-cuda12.6-cudnn9.5-dev", "3.1.0", "12.6", "9.5"),
    Image(_OFF + "2.4.2-gpu-cuda11.7-cudnn8.4-trt8.4", "2.4.2", "11.7", "8.4", **_PY37),
    Image(_OFF + "2.1.2-gpu-cuda11.2-cudnn8", "2.1.2", "11.2", "8.1", archs=_ARCH_112, **_PY37),
    # team images, each FROM a known base
    Image("registry.local/ocr/ppocr-train:v4", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8"),
    Image("registry.local/ocr/ppocr-train:v5-slim", "3.0.0", "11.8", "8.9", base=_OFF + "3.0.0-gpu-cuda11.8-cudnn8.9",
          missing_sys_lib="libGL.so.1"),
    Image("registry.local/ocr/paddlex-ocr:3.0", "3.0.0", "12.6", "9.5", base=_OFF + "3.0.0-gpu-cuda12.6-cudnn9.5"),
    Image("registry.local/det/ppdet-train:2.7", "2.6.2", "12.0", "8.9", base=_OFF + "2.6.2-gpu-cuda12.0-cudnn8.9-trt8.6"),
    Image("registry.local/det/ppdet-train:2.8-rc", "3.0.0", "12.6", "9.5", base=_OFF + "3.0.0-gpu-cuda12.6-cudnn9.5",
          dep_conflict="numpy2"),
    Image("registry.local/det/ppdet-rotate-ops:1.2", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          custom_ops=True, missing_sys_lib="libgthread-2.0.so.0"),
    Image("registry.local/det/ppdet-rotate-ops:1.3", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          custom_ops=True),
    Image("registry.local/nlp/paddlenlp:3.0b2", "3.0.0", "11.8", "8.9", base=_OFF + "3.0.0-gpu-cuda11.8-cudnn8.9"),
    Image("registry.local/nlp/paddlenlp:2.8-pb4", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          dep_conflict="protobuf"),
    Image("registry.local/nlp/uie-train:conda", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          dep_conflict="markupsafe", **_PY38_CONDA),
    Image("registry.local/infer/paddle-infer:2.6-cpuwheel", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          cpu_wheel=True),
    Image("registry.local/infer/paddle-infer:2.6-sm70-86", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          archs=("7.0", "7.5", "8.0", "8.6")),
    Image("registry.local/infer/ppocr-infer:v4-runtime", "2.6.1", "11.8", "8.6", base="nvidia/cuda:11.8.0-runtime-ubuntu22.04",
          missing_cuda_lib="libcudnn.so", nv_base=True, python="3.10"),
    Image("registry.local/infer/paddle-infer:2.6-slim", "2.6.1", "11.8", "8.6", base="python:3.10-slim",
          missing_sys_lib="libgomp.so.1"),
    Image("registry.local/det/ppdet-train:2.7-min", "2.6.2", "12.0", "8.9", base=_OFF + "2.6.2-gpu-cuda12.0-cudnn8.9-trt8.6",
          dep_conflict="module"),
    Image("registry.local/infer/ppocr-infer:v4-cudnn", "2.6.1", "11.8", "8.6", base="nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04",
          nv_base=True),
    Image("registry.local/serving/ocr-serving:0.9-cuda11.2", "2.4.2", "11.2", "8.2",
          base="registry.baidubce.com/paddlepaddle/serving:0.9.0-cuda11.2-cudnn8-runtime", archs=_ARCH_112[2:], **_PY37),
    # more image defects, each with its own surface forms: NCCL left out (only multi-GPU runs load it), no CUDA
    # runtime at all, a conda libstdc++ older than the wheel's, OpenSSL 3 where the wheel wants 1.1, and
    # third-party pins (several opencv builds, huggingface_hub without cached_download, Pillow 10)
    Image("registry.local/nlp/paddlenlp:3.0b2-slim", "3.0.0", "11.8", "8.9", base=_OFF + "3.0.0-gpu-cuda11.8-cudnn8.9",
          missing_cuda_lib="libnccl.so"),
    Image("registry.local/infer/paddle-infer:2.4-ubuntu", "2.4.2", "11.7", "8.4", base="ubuntu:22.04",
          missing_cuda_lib="libcudart.so.11.0"),
    Image("registry.local/nlp/paddlenlp:2.6-conda", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          missing_sys_lib="libstdc++.so.6", **_PY38_CONDA),
    Image("registry.local/infer/paddle-infer:2.5-jammy", "2.5.1", "11.8", "8.6",
          base="nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", missing_sys_lib="libssl.so.1.1", nv_base=True),
    Image("registry.local/ocr/ppocr-train:v4-cv", "2.6.0", "11.8", "8.6", base=_OFF + "2.6.0-gpu-cuda11.8-cudnn8",
          dep_conflict="opencv"),
    Image("registry.local/nlp/paddlenlp:3.0b2-hub", "3.0.0", "11.8", "8.9", base=_OFF + "3.0.0-gpu-cuda11.8-cudnn8.9",
          dep_conflict="hfhub"),
    Image("registry.local/ocr/paddlex-ocr:3.0-pil10", "3.0.0", "12.6", "9.5", base=_OFF + "3.0.0-gpu-cuda12.6-cudnn9.5",
          dep_conflict="pillow10"),
    Image("registry.local/search/ernie-legacy:1.8", "1.8.5", "10.1", "7.6", base=_OFF + "1.8.5-gpu-cuda10.1-cudnn7",
          archs=_ARCH_101, **_PY37),
    # an older Fluid still running a ranking job: prints 1.5's 'PaddlePaddle Call Stacks:' enforce form
    Image("registry.local/search/ernie-legacy:1.5", "1.5.2", "10.0", "7.6", base=_OFF + "1.5.2-gpu-cuda10.0-cudnn7",
          archs=_ARCH_101, **_PY37),
)}


def image_tag(ref: str) -> str:
    last = ref.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else "latest"


# --------------------------------------------------------------------------------------------------
# Jobs (what teams run) and where they run


@dataclass(frozen=True)
class JobTemplate:
    name: str
    team: str
    kind: str                     # simulate_text.JOBS key
    images: tuple                 # ((weight, image ref), ...)
    batches: tuple                # per-GPU batch sizes
    gb_base: float                # GPU memory of the model + optimizer (GB)
    gb_per_sample: float          # GPU memory per sample of a batch (GB)
    workers: tuple = (0, 2, 4, 8)
    host_gb_per_worker: float = 2.5
    hours: tuple = (0.5, 12.0)    # wall time range of a full run
    progress: tuple = (12, 120)   # progress lines of a full run (before scale_lines)
    legacy_p: float = 0.0         # share of runs whose code still uses paddle.fluid
    multinode_p: float = 0.0
    saves: bool = True            # writes checkpoints to the data volume
    chinese_p: float = 0.0
    workdir: str = "/workspace"


JOB_TEMPLATES = {j.name: j for j in (
    JobTemplate("ppocr-rec-train", "ocr", "ocr",
                ((5, "registry.local/ocr/ppocr-train:v4"), (0.35, "registry.local/ocr/ppocr-train:v5-slim"),
                 (1.0, "registry.local/ocr/paddlex-ocr:3.0"), (1, _OFF + "2.6.0-gpu-cuda11.8-cudnn8"),
                 (0.4, _OFF + "latest-gpu"), (0.8, _OFF + "3.0.0-gpu-cuda11.8-cudnn8.9"),
                 (0.2, "registry.local/ocr/ppocr-train:v4-cv"), (0.15, "registry.local/ocr/paddlex-ocr:3.0-pil10")),
                (64, 128, 256), 2.0, 0.05, legacy_p=0.04, chinese_p=0.3, workdir="/paddle"),
    JobTemplate("ppocr-det-train", "ocr", "ocr",
                ((4, "registry.local/ocr/ppocr-train:v4"), (0.4, "registry.local/ocr/ppocr-train:v5-slim"),
                 (1, _OFF + "2.6.0-gpu-cuda11.8-cudnn8"), (0.5, _OFF + "3.0.0-gpu-cuda12.6-cudnn9.5")),
                (8, 16, 32), 3.0, 0.55, chinese_p=0.3, workdir="/paddle"),
    JobTemplate("ppdet-train", "det", "det",
                ((4, "registry.local/det/ppdet-train:2.7"), (0.5, "registry.local/det/ppdet-train:2.8-rc"),
                 (0.25, "registry.local/det/ppdet-train:2.7-min"),
                 (0.3, "registry.local/det/ppdet-rotate-ops:1.2"), (1.2, "registry.local/det/ppdet-rotate-ops:1.3"),
                 (1, _OFF + "2.6.2-gpu-cuda12.0-cudnn8.9-trt8.6"), (0.8, _OFF + "3.0.0-gpu-cuda11.8-cudnn8.9"),
                 (0.3, _OFF + "latest-gpu")),
                (2, 4, 8, 16), 4.0, 1.1, workers=(2, 4, 8), host_gb_per_worker=4.0, legacy_p=0.05),
    JobTemplate("paddlenlp-finetune", "nlp", "nlp",
                ((3, "registry.local/nlp/paddlenlp:3.0b2"), (0.3, "registry.local/nlp/paddlenlp:2.8-pb4"),
                 (0.4, "registry.local/nlp/uie-train:conda"), (1, _OFF + "3.0.0-gpu-cuda12.6-cudnn9.5"),
                 (0.5, _OFF + "3.1.0-gpu-cuda12.6-cudnn9.5-dev"), (1, _OFF + "2.6.0-gpu-cuda11.8-cudnn8"),
                 (0.3, "registry.local/nlp/paddlenlp:3.0b2-slim"), (0.15, "registry.local/nlp/paddlenlp:2.6-conda"),
                 (0.15, "registry.local/nlp/paddlenlp:3.0b2-hub")),
                (4, 8, 16, 32), 6.0, 0.9, workers=(0, 1, 2, 4), host_gb_per_worker=3.0, hours=(1, 30),
                multinode_p=0.35, chinese_p=0.25),
    JobTemplate("batch-infer", "infer", "infer",
                ((0.3, "registry.local/infer/paddle-infer:2.6-cpuwheel"), (1.5, "registry.local/infer/paddle-infer:2.6-sm70-86"),
                 (0.5, "registry.local/infer/ppocr-infer:v4-runtime"), (1.5, "registry.local/infer/ppocr-infer:v4-cudnn"),
                 (0.25, "registry.local/infer/paddle-infer:2.6-slim"),
                 (2, _OFF + "2.6.0-gpu-cuda11.8-cudnn8"), (1.5, _OFF + "3.0.0-gpu-cuda11.8-cudnn8.9"),
                 (0.5, _OFF + "2.4.2-gpu-cuda11.7-cudnn8.4-trt8.4"), (0.2, "registry.local/infer/paddle-infer:2.4-ubuntu"),
                 (0.15, "registry.local/infer/paddle-infer:2.5-jammy")),
                (1, 4, 8, 16, 32), 1.5, 0.12, workers=(0, 2), hours=(0.2, 4), progress=(8, 90), saves=False),
    JobTemplate("ocr-serving", "serving", "serving",
                ((3, "registry.local/serving/ocr-serving:0.9-cuda11.2"), (1, _OFF + "2.6.0-gpu-cuda11.8-cudnn8")),
                (1, 4, 8), 1.5, 0.1, workers=(0,), hours=(4, 48), progress=(20, 200), saves=False),
    JobTemplate("ernie-legacy-train", "search", "nlp",
                ((2, "registry.local/search/ernie-legacy:1.8"), (0.8, "registry.local/search/ernie-legacy:1.5"),
                 (1.5, _OFF + "2.1.2-gpu-cuda11.2-cudnn8"),
                 (0.4, _OFF + "latest-gpu"), (0.4, _OFF + "2.6.0-gpu-cuda11.8-cudnn8")),
                (8, 16, 32), 3.0, 0.4, workers=(0, 2), legacy_p=1.0, chinese_p=0.5, workdir="/home/work/ernie"),
)}

# which jobs the scheduler puts on which pool (weights)
POOL_JOBS = {
    "gpu-a10": ((3, "ppocr-rec-train"), (1.5, "ppocr-det-train"), (2, "ppdet-train"), (1.5, "batch-infer"),
                (1, "ocr-serving"), (0.3, "ernie-legacy-train"), (0.6, "paddlenlp-finetune")),
    "gpu-t4-infer": ((4, "batch-infer"), (3, "ocr-serving"), (1, "ppocr-rec-train"), (0.3, "ernie-legacy-train")),
    "gpu-v100": ((2, "ppocr-rec-train"), (1.5, "ppocr-det-train"), (2, "ppdet-train"), (1, "paddlenlp-finetune"),
                 (1, "ernie-legacy-train"), (0.5, "batch-infer")),
    "gpu-a100": ((3, "paddlenlp-finetune"), (2, "ppdet-train"), (1, "ppocr-rec-train"), (0.5, "batch-infer")),
    "gpu-a100-roce": ((4, "paddlenlp-finetune"), (1, "ppdet-train"), (0.5, "ppocr-det-train")),
    "gpu-h100": ((4, "paddlenlp-finetune"), (1, "ppdet-train"), (0.8, "batch-infer"), (0.3, "ernie-legacy-train")),
    "gpu-legacy": ((3, "ernie-legacy-train"), (1.5, "batch-infer"), (1, "ppocr-rec-train")),
}

NAMESPACES = {"ocr": "ocr-train", "det": "vision-det", "nlp": "nlp", "infer": "inference", "serving": "serving",
              "search": "search-legacy"}


# --------------------------------------------------------------------------------------------------
# A planned run and the causal decision of its outcome


@dataclass
class RunSpec:
    key: str                  # "<host>/<day>/<index>": stable identity for random streams
    host: Host
    day: int
    index: int
    start_ns: int
    job: JobTemplate
    image: Image
    fmt: str                  # docker | cri | plain
    gpus: bool                # started with --gpus / nvidia runtime
    shm_small: bool           # /dev/shm left at the 64m default
    num_workers: int
    batch: int
    n_gpus: int
    nnodes: int
    mem_limit_gb: int         # container memory limit (0 = none)
    volume_mounted: bool
    model_version: str        # version of Paddle that exported the model it loads (infer/serving)
    legacy_code: bool
    amp: bool
    hours: float
    progress: int
    u: dict = field(default_factory=dict)   # uniforms for the probabilistic causes
    long: bool = False        # a long run (docker rotates its log)
    revision: str = ""        # git revision of the job's code (container label)
    dataset: str = ""         # dataset version the job reads (container label)
    config: str = ""          # config file or arguments the job was started with (in the command)
    job_bug: str = ""         # the bug those inputs carry ("" = none): a key of simulate_bugs.CODE_BUGS
    bug_in: str = ""          # revision | dataset | config: which input carries it
    category: str = ""
    cause: str = ""
    planted: bool = False


def _gpu_need(s: RunSpec) -> float:
    return s.job.gb_base + s.batch * s.job.gb_per_sample * (0.6 if s.amp else 1.0)


def _host_need(s: RunSpec) -> float:
    return 4.0 + s.num_workers * s.job.host_gb_per_worker * (1 + s.batch / 256)


def _disk_fill(s: RunSpec) -> float:
    """Chance a checkpoint write fails: the small data volume fills up over a few days, then someone cleans it."""
    if not s.host.small_disk:
        return 0.0
    return (0.0, 0.0, 0.4, 0.85)[(s.day + s.host.disk_phase) % 4]


def decide(s: RunSpec) -> tuple[str, str]:
    """(category, cause) from the run's facts, in order of precedence (the first failure wins)."""
    im, h, j, u = s.image, s.host, s.job, s.u
    cv2_job = j.kind in ("ocr", "det", "infer", "serving")
    if im.missing_sys_lib and (cv2_job or not im.missing_sys_lib.startswith(("libGL", "libgthread", "libSM"))):
        return "system_lib_missing", f"{im.missing_sys_lib} missing from image {im.ref}"
    if im.dep_conflict and u["dep"] < 0.7:
        return "python_dependency_conflict", f"{im.dep_conflict} conflict baked into {im.ref}"
    if s.legacy_code and (im.major >= 3 or vt(im.paddle) >= (2, 5)):
        return "api_incompatible", f"paddle.fluid code on Paddle {im.paddle}"
    if s.job_bug and B.CODE_BUG_PHASE[s.job_bug] == "import":    # a config the job cannot even parse
        return "code_error", _bug_cause(s)
    if not s.gpus:
        return "gpu_not_visible", "container started without --gpus"
    if im.cpu_wheel:
        return "gpu_not_visible", f"CPU paddlepaddle wheel in {im.ref}"
    if vt(im.cuda) > vt(h.cuda_max):
        return "cuda_driver_too_old", (f"image CUDA {im.cuda} > host driver {h.driver_version} max CUDA {h.cuda_max}")
    if h.gpu.cc not in im.archs:
        return "gpu_arch_unsupported", f"{im.ref} built without sm_{h.gpu.cc.replace('.', '')} ({h.gpu.key})"
    if im.missing_cuda_lib and (not im.missing_cuda_lib.startswith("libnccl") or s.n_gpus * s.nnodes > 1):
        return "cuda_lib_missing", f"{im.missing_cuda_lib} absent from {im.ref}"   # NCCL: loaded by collectives only
    if not s.volume_mounted:
        return "file_not_found", "data/model volume not mounted"
    if j.kind in ("infer", "serving") and (
            (vt(s.model_version)[0] >= 3 > im.major) or (vt(s.model_version) > vt(im.paddle) and u["model"] < 0.3)):
        return "model_version_incompatible", f"model exported by Paddle {s.model_version}, image has {im.paddle}"
    if s.job_bug:      # the model, data or config is wrong: it fails on the first batches, before memory grows
        return "code_error", _bug_cause(s)
    if s.nnodes > 1 and u["nccl"] < (0.45 if h.pool.flaky_net else 0.05):
        return "distributed_comm_failure", f"NCCL across {s.nnodes} nodes on pool {h.pool.name}"
    if s.num_workers > 0 and s.shm_small and u["shm"] < min(0.7, 0.02 * s.num_workers * (1 + s.batch / 64)):
        return "shm_exhausted", f"{s.num_workers} DataLoader workers with 64m /dev/shm"
    need, have = _gpu_need(s), h.gpu.mem_gb * 0.95
    if need > have or (need > 0.85 * have and u["oom"] < 0.5):
        return "gpu_oom", f"needs ~{need:.1f}GB on a {h.gpu.mem_gb:.0f}GB {h.gpu.key} (batch {s.batch})"
    if s.mem_limit_gb and _host_need(s) > s.mem_limit_gb and u["hostoom"] < 0.8:
        return "host_oom", f"needs ~{_host_need(s):.0f}GB host memory, limit {s.mem_limit_gb}g"
    if j.saves and u["disk"] < _disk_fill(s):
        return "disk_full", f"small data volume on {h.name} full"
    if u["native"] < (0.06 if im.custom_ops else 0.006):
        return "native_crash", "crash in native code" + (" (custom op)" if im.custom_ops else "")
    if u["bug"] < 0.01:
        return "unknown", "a failure no cause of the fleet model explains"
    return "no_failure", ""


def _bug_cause(s: RunSpec) -> str:
    where = {"revision": f"code revision {s.revision}", "dataset": f"dataset {s.dataset}",
             "config": f"config {s.config}"}[s.bug_in]
    return f"{s.job_bug} in {where}"


# --------------------------------------------------------------------------------------------------
# What a job was started from: a code revision, a dataset version, a config. A job bug (code_error) is
# a property of one of these, drawn once per input, so every run started from the same broken input
# fails the same way on any host, and every run from a good input is unaffected.

# the bugs each input of a job kind can carry (simulate_bugs.CODE_BUGS renders them)
JOB_BUGS = {
    "ocr": {"revision": ("shape_matmul", "conv_channels", "reshape", "user_exception", "dtype", "spawn_guard"),
            "dataset": ("parse_line", "label_range", "collate", "illegal_address"),
            "config": ("yaml", "missing_key", "unknown_key", "num_classes")},
    "det": {"revision": ("conv_channels", "broadcast", "user_exception", "reshape", "dtype", "spawn_guard"),
            "dataset": ("label_map", "label_range", "collate", "illegal_address"),
            "config": ("yaml", "unknown_key", "num_classes", "missing_key")},
    "nlp": {"revision": ("shape_matmul", "loss_shape", "user_exception", "dtype", "broadcast"),
            "dataset": ("label_range", "embedding_ids", "json_line", "illegal_address"),
            "config": ("unknown_key", "missing_key", "num_classes")},
    "infer": {"revision": ("dtype", "conv_channels", "user_exception", "reshape"),
              "dataset": ("bad_input",),
              "config": ("argparse", "wrong_model")},
    "serving": {"revision": ("user_exception", "dtype"), "dataset": (), "config": ("yaml", "missing_key")},
}
DATASETS = {"ppocr-rec-train": "rec-zh-lines", "ppocr-det-train": "det-receipts", "ppdet-train": "shelf-coco",
            "paddlenlp-finetune": "tickets-cls", "batch-infer": "images-nightly", "ernie-legacy-train": "query-pairs"}
_USERS = ("liwei", "zhangm", "akumar", "jchen", "mrossi", "wangyf")
# share of runs started from the day's development revision / a dataset release candidate / a hand-edited
# config, and the chance that such an input is broken (the stable revision and dataset never are)
_DEV_P, _DEV_BAD_P = 0.1, 0.3
_RC_P, _RC_BAD_P = 0.06, 0.35
_CUSTOM_P, _CUSTOM_BAD_P = 0.015, 0.6


def _input_bug(seed: int, jt: JobTemplate, source: str, item: str, p_bad: float) -> str:
    kinds = JOB_BUGS[jt.kind][source]
    r = rng_for(seed, "bug", jt.name, source, item)
    return T.pick(r, kinds) if kinds and r.random() < p_bad else ""


def custom_config(jt: JobTemplate, bug: str, tag: str, user: str) -> str:
    """The config a user started the job with; for argument-line jobs the typo itself shows in the command."""
    if jt.kind == "infer":
        return {"argparse": "--model_dir /workspace/inference --bacth_size 8",
                "wrong_model": "--model_dir /models/ppocr_v4_det --batch_size 8"}.get(
                    bug, f"--model_dir /workspace/inference --batch_size 4 --tag {tag}")
    if jt.kind == "nlp":
        return f"./config/custom/{user}_{tag}.json"
    if jt.kind == "serving":
        return f"config_{user}_{tag}.yml"
    return f"configs/custom/{user}_{tag}.yml"


def job_inputs(seed: int, jt: JobTemplate, key: str, day: int) -> dict:
    """revision, dataset, config of one run, and the bug they carry (job_bug, bug_in)."""
    r = rng_for(seed, "inputs", key)
    dev, rc, custom = r.random() < _DEV_P, r.random() < _RC_P, r.random() < _CUSTOM_P
    revision = hexid(7, seed, "rev-dev", jt.name, day) if dev else hexid(7, seed, "rev", jt.name, day // 3)
    base = DATASETS.get(jt.name, "")
    dataset = "" if not base else f"{base}-v{2 + day // 4}rc" if rc else f"{base}-v{1 + day // 4}"
    bugs = {"revision": _input_bug(seed, jt, "revision", revision, _DEV_BAD_P) if dev else "",
            "dataset": _input_bug(seed, jt, "dataset", dataset, _RC_BAD_P) if rc and base else "",
            "config": _input_bug(seed, jt, "config", key, _CUSTOM_BAD_P) if custom else ""}
    config = custom_config(jt, bugs["config"], hexid(4, seed, "cfg", key), T.pick(r, _USERS)) if custom else ""
    # a config that does not parse fails first, then a broken model (first step), then bad data
    bug_in = next((k for k in ("config", "revision", "dataset") if bugs[k]), "")
    return dict(revision=revision, dataset=dataset, config=config, job_bug=bugs.get(bug_in, ""), bug_in=bug_in)


_FIXED_U = ("dep", "model", "nccl", "shm", "oom", "hostoom", "disk", "native", "bug")


def _wchoice(r: random.Random, pairs):
    return T.wpick(r, list(pairs))


def _pin_for_old_driver(r: random.Random, host: Host, jt: JobTemplate, image: Image) -> Image:
    """Teams that know about the old-driver nodes pin an image whose CUDA the driver supports (most of the time)."""
    if vt(image.cuda) <= vt(host.cuda_max) or r.random() < 0.35:
        return image
    ok = [ref for _, ref in jt.images if vt(IMAGES[ref].cuda) <= vt(host.cuda_max)]
    return IMAGES[ok[0] if ok else _OFF + "2.6.0-gpu-cuda11.2-cudnn8"]


def plan_run(seed: int, host: Host, day: int, index: int, t0: int) -> RunSpec:
    r = rng_for(seed, "plan", host.name, day, index)
    jt = JOB_TEMPLATES[_wchoice(r, [(w, n) for w, n in POOL_JOBS[host.pool.name]])]
    image = IMAGES[_wchoice(r, jt.images)]
    fmt = _wchoice(r, [(50, "docker"), (30, "cri"), (20, "plain")])
    start = t0 + day * 86400 * T.NS + int(r.uniform(0, 86400) * T.NS)
    batch = r.choice(jt.batches)
    if r.random() < 0.75:    # most people size the batch to the GPU they get (some cut it close)
        while batch > min(jt.batches) and jt.gb_base + batch * jt.gb_per_sample > 0.9 * host.gpu.mem_gb:
            batch //= 2
    image = _pin_for_old_driver(r, host, jt, image)
    n_gpus = 1 if jt.kind in ("infer", "serving") else r.choice((1, 1, 2, 4, host.pool.n_gpus))
    nnodes = 2 if (host.pool.multinode and r.random() < jt.multinode_p) else 1
    if nnodes > 1:
        n_gpus = host.pool.n_gpus
    hours = r.uniform(*jt.hours)
    progress = r.randrange(*jt.progress)
    long = r.random() < 0.05                # a few long runs (docker rotates their logs)
    if long:
        progress *= r.randrange(5, 12)
        hours *= 3
    spec = RunSpec(
        key=f"{host.name}/{day}/{index}", host=host, day=day, index=index, start_ns=start, job=jt, image=image,
        fmt=fmt, gpus=r.random() > 0.02, shm_small=r.random() < (0.3 if fmt == "cri" else 0.35),
        num_workers=r.choice(jt.workers), batch=batch, n_gpus=n_gpus, nnodes=nnodes,
        mem_limit_gb=r.choice((0, 0, 0, 16, 32, 64, 128)) if fmt != "plain" else r.choice((0, 0, 32, 64)),
        volume_mounted=r.random() > (0.035 if jt.kind in ("infer", "serving") else 0.015),
        model_version=_wchoice(r, [(6, "2.6.0"), (1, "2.4.2"), (0.3, "3.0.0")]) if jt.kind in ("infer", "serving") else "",
        legacy_code=r.random() < jt.legacy_p, amp=r.random() < 0.3, hours=hours, progress=progress,
        u={k: r.random() for k in _FIXED_U}, long=long, **job_inputs(seed, jt, f"{host.name}/{day}/{index}", day))
    spec.category, spec.cause = decide(spec)
    return spec


# mutations that introduce one cause into a healthy run, tried in order when a category must be planted
def _mutations(s: RunSpec, cat: str, seed: int = 0):
    imgs = [IMAGES[k] for k in sorted(IMAGES)]
    if cat in ("cuda_driver_too_old", "gpu_arch_unsupported", "cuda_lib_missing", "system_lib_missing",
               "python_dependency_conflict"):
        for im in imgs:
            yield replace(s, image=im)
    if cat == "gpu_not_visible":
        yield replace(s, gpus=False)
    if cat == "api_incompatible":
        for im in imgs:
            yield replace(s, legacy_code=True, image=im)
    if cat == "file_not_found":
        yield replace(s, volume_mounted=False)
    if cat == "model_version_incompatible" and s.job.kind in ("infer", "serving"):
        yield replace(s, model_version="3.0.0")
        for im in imgs:
            yield replace(s, model_version="3.0.0", image=im)
    if cat == "distributed_comm_failure" and s.host.pool.multinode:
        yield replace(s, nnodes=2, n_gpus=s.host.pool.n_gpus, u={**s.u, "nccl": 0.0})
    if cat == "shm_exhausted":
        yield replace(s, shm_small=True, num_workers=max(s.num_workers, max(s.job.workers)), u={**s.u, "shm": 0.0})
    if cat == "gpu_oom":
        for k in (2, 4, 8, 16, 32, 64):
            yield replace(s, batch=s.batch * k, u={**s.u, "oom": 0.0})
    if cat == "host_oom":
        yield replace(s, mem_limit_gb=8, num_workers=max(s.num_workers, max(s.job.workers), 1), u={**s.u, "hostoom": 0.0})
    if cat == "disk_full" and s.job.saves and _disk_fill(s) > 0:
        yield replace(s, u={**s.u, "disk": 0.0})
    if cat == "native_crash":
        yield replace(s, u={**s.u, "native": 0.0})
    if cat == "unknown":
        yield replace(s, u={**s.u, "bug": 0.0})
    if cat == "code_error":
        yield from _bug_mutations(s, seed)


def _bug_mutations(s: RunSpec, seed: int):
    """Start the run from a broken input: the day's dev revision, a dataset candidate, or an edited config."""
    r = rng_for(seed, "plant-bug", s.key)
    bugs = JOB_BUGS[s.job.kind]
    sources = [k for k in ("revision", "dataset", "config") if bugs[k] and (k != "dataset" or s.job.name in DATASETS)]
    r.shuffle(sources)
    for src in sources:
        bug = T.pick(r, bugs[src])
        if src == "revision":
            yield replace(s, revision=hexid(7, seed, "rev-planted", s.key), job_bug=bug, bug_in=src)
        elif src == "dataset":
            yield replace(s, dataset=f"{DATASETS[s.job.name]}-v{2 + s.day // 4}rc{1 + r.randrange(9)}", job_bug=bug,
                          bug_in=src)
        else:
            cfg = custom_config(s.job, bug, hexid(4, seed, "cfg-planted", s.key), T.pick(r, _USERS))
            yield replace(s, config=cfg, job_bug=bug, bug_in=src)


def plant(specs: list[RunSpec], seed: int, minimum: int) -> None:
    """Make sure every category appears at least `minimum` times (changing causes, never labels)."""
    order = sorted(range(len(specs)), key=lambda i: hexid(16, seed, "plant", specs[i].key))
    for cat in CATEGORIES:
        have = sum(1 for s in specs if s.category == cat)
        if cat == "no_failure" or have >= minimum:
            continue
        for i in order:
            s = specs[i]
            if s.category != "no_failure" or s.planted:
                continue
            for m in _mutations(s, cat, seed):
                c, cause = decide(m)
                if c == cat:
                    m.category, m.cause, m.planted = c, cause, True
                    specs[i] = m
                    have += 1
                    break
            if have >= minimum:
                break


# --------------------------------------------------------------------------------------------------
# Writers: docker json-file (with rotation), Kubernetes CRI, plain text

_enc = json.encoder.encode_basestring   # C implementation; keeps non-ASCII as UTF-8 like docker does
_ts_cache: dict = {}


def rfc3339nano(t: int) -> str:
    """Go's time.RFC3339Nano in UTC: trailing zeros of the fraction trimmed."""
    sec, frac = divmod(t, T.NS)
    day, rem = divmod(sec, 86400)
    head = _ts_cache.get(day)
    if head is None:
        head = _ts_cache[day] = dt.datetime.fromtimestamp(day * 86400, dt.timezone.utc).strftime("%Y-%m-%dT")
    f = f"{frac:09d}".rstrip("0")
    return f"{head}{T.HMS[rem]}.{f}Z" if f else f"{head}{T.HMS[rem]}Z"


def docker_line(t: int, stream: str, text: str, newline: bool = True) -> str:
    s = _enc(text + "\n" if newline else text)
    if "<" in s or ">" in s or "&" in s:     # Go's encoder escapes HTML characters
        s = s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'{{"log":{s},"stream":"{stream}","time":"{rfc3339nano(t)}"}}\n'


DOCKER_PARTIAL = 16 * 1024     # docker splits longer lines into entries without a trailing newline
CRI_PARTIAL = 2048             # lines longer than this are written as P pieces + an F piece


class LogWriter:
    """Streams formatted lines to a log file; docker logs can rotate (max-file 3, older files gzipped)."""

    def __init__(self, path: Path, fmt: str, rotate_bytes: int = 0, keep_tail: int = 0):
        self.path, self.fmt, self.rotate_bytes = path, fmt, rotate_bytes
        self.tail: deque[str] = deque(maxlen=keep_tail)   # the last lines' text (what a user would paste from)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "w", encoding="utf-8", newline="\n")
        self.size = 0
        self.lines = 0
        self.file_lines = 0
        self.dropped = 0
        self.last_t = 0
        self.rotated: list[int] = []    # line counts of .1, .2.gz

    def write(self, batch: list) -> None:
        fmt = self.fmt
        if self.tail.maxlen:
            self.tail.extend(text for _, _, text in batch)
        parts = []
        if fmt == "docker":
            for t, stream, text in batch:
                if len(text) > DOCKER_PARTIAL:
                    for k in range(0, len(text), DOCKER_PARTIAL):
                        piece = text[k:k + DOCKER_PARTIAL]
                        parts.append(docker_line(t, stream, piece, newline=k + DOCKER_PARTIAL >= len(text)))
                else:
                    parts.append(docker_line(t, stream, text))
        elif fmt == "cri":
            for t, stream, text in batch:
                if len(text) > CRI_PARTIAL:
                    n = len(text)
                    for k in range(0, n, CRI_PARTIAL):
                        tag = "F" if k + CRI_PARTIAL >= n else "P"
                        parts.append(f"{rfc3339nano(t + k)} {stream} {tag} {text[k:k + CRI_PARTIAL]}\n")
                else:
                    parts.append(f"{rfc3339nano(t)} {stream} F {text}\n")
        else:
            parts = [text + "\n" for _, _, text in batch]
        if batch:
            self.last_t = batch[-1][0]
        if self.rotate_bytes:
            for p in parts:
                self.fh.write(p)
                self.size += len(p)
                self.file_lines += 1
                if self.size >= self.rotate_bytes:
                    self._rotate()
        else:
            data = "".join(parts)
            self.fh.write(data)
            self.size += len(data)
            self.file_lines += len(parts)
        self.lines += len(parts)

    def _rotate(self) -> None:
        """docker json-file with max-size/max-file=3/compress=true: live -> .1, .1 -> .2.gz, old .2.gz dropped."""
        self.fh.close()
        p1 = self.path.with_name(self.path.name + ".1")
        p2 = self.path.with_name(self.path.name + ".2.gz")
        if p1.exists():
            if p2.exists():
                p2.unlink()
                self.dropped += self.rotated.pop()
            with open(p1, "rb") as src, open(p2, "wb") as raw, \
                    gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz:
                shutil.copyfileobj(src, gz, 1 << 20)
            p1.unlink()
        os.replace(self.path, p1)
        self.rotated.insert(0, self.file_lines)
        self.fh = open(self.path, "w", encoding="utf-8", newline="\n")
        self.size = 0
        self.file_lines = 0

    def close(self) -> int:
        self.fh.close()
        return self.lines - self.dropped


# --------------------------------------------------------------------------------------------------
# What a user pastes into an issue thread from a run's log: the error it died of, not the whole log.
# The real cases logml is judged on are such excerpts; a model that only ever saw whole container logs
# (device banners, progress, launch lines) learns their presence, which excerpts never show.

PASTE_TAIL = 400    # lines of a run kept in memory to cut an excerpt from
_PASTE_START = re.compile(
    r"^(?:Traceback \(most recent call last\):|-{20,}|Error Message Summary|FatalError:|terminate called|"
    r"\*\*\* Aborted at|C\+\+ Traceback|\s*[\w.]*(?:Error|Exception)\b.*:|.*\b(?:Killed|Segmentation fault|core dumped)\b)")


def user_cut(paste: list[str], how: str | None, r: random.Random) -> list[str]:
    """What users do to pastes: stop early ("stop_early": the first 50-90% of the lines, the last one
    sometimes cut mid-line) or keep only the final error lines ("last_lines": the last 1-3)."""
    if how == "stop_early" and len(paste) >= 4:
        kept = paste[:max(2, int(len(paste) * r.uniform(0.5, 0.9)))]
        if r.random() < 0.5 and len(kept[-1]) > 20:
            kept[-1] = kept[-1][:r.randrange(10, len(kept[-1]))]
        return kept
    if how == "last_lines" and len(paste) >= 2:
        return paste[-r.randrange(1, min(3, len(paste)) + 1):]
    return paste


def paste_of(lines: list[str], failed: bool, r: random.Random, code: int | None = None) -> list[str]:
    """The excerpt of a run's last lines a user would paste: for a failure, from the first error block
    among the last 150 lines (a few lines before it, sometimes) to the end, now and then cut short;
    for a healthy run, its last 5-40 lines. Now and then the user asked the shell how it ended
    (`echo $?` and the run's exit `code`)."""
    lines = [ln for ln in lines if ln.strip()]
    if not failed:
        return _with_status(lines[-r.randrange(5, 40):], code, r)
    first = next((i for i in range(max(0, len(lines) - 150), len(lines)) if _PASTE_START.match(lines[i])),
                 max(0, len(lines) - 30))
    paste = lines[max(0, first - r.choice((0, 0, 1, 3, 8))):]
    u = r.random()
    cut = "stop_early" if u < 0.15 else "last_lines" if u < 0.25 else None
    paste = user_cut(paste, cut, r)
    return paste if cut else _with_status(paste, code, r)


def _with_status(paste: list[str], code: int | None, r: random.Random) -> list[str]:
    if code is None or r.random() >= 0.08:
        return paste
    prompt = T.pick(r, ("root@{h}:/workspace# ", "(paddle) user@{h}:~/work$ ", "$ ")).format(h=hexid(12, "host", r.random()))
    if r.random() < 0.25:   # a Slurm job's accounting: State and ExitCode "code:signal"
        job, sig = r.randrange(100000, 999999), code - 128 if code > 128 else 0
        state = "COMPLETED" if code == 0 else "CANCELLED" if sig == 15 else "OUT_OF_ME+" if code == 137 else "FAILED"
        ec = f"{0 if sig else code}:{sig}"
        return [*paste, prompt + f"sacct -j {job} --format=JobID,JobName,State,ExitCode,Elapsed",
                "JobID           JobName      State ExitCode    Elapsed ",
                "------------ ---------- ---------- -------- ---------- ",
                f"{job:<12}      train {state:>10} {ec:>8}   0{r.randrange(10)}:{r.randrange(60):02d}:{r.randrange(60):02d} ",
                f"{str(job) + '.batch':<12}      batch {state:>10} {ec:>8}   0{r.randrange(10)}:{r.randrange(60):02d}:{r.randrange(60):02d} "]
    asked = T.pick(r, ("echo $?", "echo $?", 'echo "exit=$?"'))
    return [*paste, prompt + asked, f"exit={code}" if "exit=" in asked else str(code)]


def _write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, indent=None, sort_keys=False, ensure_ascii=False)
        f.write("\n")


# --------------------------------------------------------------------------------------------------
# Rendering one run to disk


@dataclass
class SimSummary:
    runs: int
    lines: int
    bytes: int
    categories: dict = field(default_factory=dict)


_CONTAINER_NAMES = {"ocr": "trainer", "det": "trainer", "nlp": "paddle", "infer": "infer", "serving": "serving"}


def _ctx(seed: int, s: RunSpec, restart: int, em: T.Emitter, r: random.Random, scale_lines: float, hostname: str,
         cmd: str) -> T.Ctx:
    im, h, j = s.image, s.host, s.job
    pool_idx = [p.name for p in POOLS].index(h.pool.name)
    host_idx = int("".join(ch for ch in h.name if ch.isdigit()) or 0)
    ips = [f"10.{10 + pool_idx}.{host_idx % 250}.{11 + k}" for k in range(s.nnodes)] if s.nnodes > 1 else []
    c = T.Ctx(
        rng=r, em=em, job=j.kind, paddle=im.paddle, gen=im.gen, cuda=im.cuda, cudnn=im.cudnn, site=im.site,
        python=im.python, gpu_name=h.gpu.name, cc=h.gpu.cc, gpu_mem_gb=h.gpu.mem_gb, driver_api=h.cuda_max,
        driver_version=h.driver_version, n_gpus=s.n_gpus, nnodes=s.nnodes, batch_size=s.batch,
        num_workers=s.num_workers, epochs=r.choice((3, 10, 20, 100, 300, 500)),
        n_progress=max(1, int(round(s.progress * scale_lines))), duration_s=s.hours * 3600,
        launch=j.kind in ("ocr", "det", "nlp") and (s.n_gpus > 1 or s.nnodes > 1), workdir=j.workdir,
        model_dir=r.choice(("/workspace/inference", "/models/ppocr_v4_rec", "/workspace/output/export")),
        legacy_code=s.legacy_code, amp=s.amp, chinese=r.random() < j.chinese_p, rank_ips=ips)
    c.zh_shell = c.chinese and r.random() < 0.5
    c.extra.update(cpu_wheel=im.cpu_wheel, missing_cuda_lib=im.missing_cuda_lib or "libcudnn.so",
                   archs=" ".join(a.replace(".", "") for a in im.archs), missing_sys_lib=im.missing_sys_lib or "libGL.so.1",
                   dep_conflict=im.dep_conflict or "module", model_version=s.model_version or "3.0.0",
                   gpus_visible=s.gpus and not im.cpu_wheel, nv_base=im.nv_base, hostname=hostname,
                   set_x=r.random() < 0.2, iface=r.choice(("eth0", "bond0", "ib0")),
                   truncate=s.category not in ("no_failure", "host_oom") and r.random() < 0.04,
                   gpu_need_gb=_gpu_need(s), cmd=cmd, cleanup=j.saves and r.random() < 0.12,
                   job_bug=s.job_bug, bug_in=s.bug_in, dataset=s.dataset, config=s.config)
    return c


def _render(seed: int, s: RunSpec, out: Path, scale_lines: float, restart: int, t_start: int,
            ids: dict, captured: dict | None = None, pastes: float = 0.0) -> tuple[str, str, int, int, str | None]:
    """Write one run (one container / restart) and, with probability ``pastes`` (a quarter of that for
    a healthy run), the excerpt of it a user would paste, as a plain file beside it.
    Returns (run_id, variant, lines, end_ns, the excerpt's run_id or None)."""
    h, j, im = s.host, s.job, s.image
    r = rng_for(seed, "text", s.key, restart)
    hostname = ids["hostname"]
    pid = r.choice((1, 7, 23, 45, 67, 89, 112, 131)) if s.fmt != "plain" else r.randrange(200, 40000)
    em = T.Emitter(t_start, r, None, pid=pid, tid=pid if r.random() < 0.5 else pid + r.randrange(1, 60))
    ctx = _ctx(seed, s, restart, em, r, scale_lines, hostname, ids["cmd"])
    if captured and captured.get(s.category):
        ctx.extra["captured"] = captured[s.category]
    est_bytes = int(ctx.n_progress * (330 if s.fmt == "docker" else 240)) + 20000
    rp = rng_for(seed, "paste", s.key, restart)   # its own stream: the fleet's logs do not depend on pastes
    tail = PASTE_TAIL if pastes and rp.random() < (pastes if s.category != "no_failure" else pastes / 4) else 0
    if s.fmt == "docker":
        cid = ids["cid"]
        d = out / h.name / "docker" / "containers" / cid
        rot = int(est_bytes / r.uniform(1.4, 3.3)) if (s.long and r.random() < 0.85) else 0
        w = LogWriter(d / f"{cid}-json.log", "docker", rotate_bytes=max(rot, 64 * 1024) if rot else 0, keep_tail=tail)
        run_id = f"{h.name}/docker/containers/{cid}"
    elif s.fmt == "cri":
        d = out / h.name / "pods" / ids["pod_dir"] / ids["container"]
        w = LogWriter(d / f"{restart}.log", "cri", keep_tail=tail)
        run_id = f"{h.name}/pods/{ids['pod_dir']}/{ids['container']}/{restart}"
    else:
        d = out / h.name / "files" / ids["job_dir"]
        w = LogWriter(d / "train.log", "plain", keep_tail=tail)
        run_id = f"{h.name}/files/{ids['job_dir']}/train.log"
    em.sink = w.write
    if s.category == "no_failure":
        variant, code = T.render_run(ctx, "no_failure")
        variant = j.name
    else:
        variant, code = T.render_run(ctx, s.category)
    em.flush()
    lines = w.close()
    paste_id = None
    # a silent kill leaves a tail that reads as healthy: as a paste labeled with its cause it would teach
    # that healthy output means a failure (the container's exit code and OOMKilled tell it; a paste has neither)
    if tail and not T.leaves_no_trace(s.category, variant):
        paste_id = f"{h.name}/files/{ids['job_dir']}/paste-{restart}.log"
        (out / paste_id).parent.mkdir(parents=True, exist_ok=True)
        with open(out / paste_id, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(paste_of(list(w.tail), s.category != "no_failure", rp, code)) + "\n")
    end = max(em.t, w.last_t) + r.randrange(50_000_000, 900_000_000)
    oom_killed = s.category == "host_oom" and T.host_oom_killed(variant)
    labels = {"team": j.team, "job": j.name, "gpus": "all" if s.gpus else "",
              "shm_size": "64m" if s.shm_small else "8g", "gpu_count": str(s.n_gpus * s.nnodes),
              "memory_limit": f"{s.mem_limit_gb}g" if s.mem_limit_gb else "", "revision": s.revision}
    if s.dataset:
        labels["dataset"] = s.dataset
    started, finished = rfc3339nano(t_start), rfc3339nano(end)
    if s.fmt == "docker":
        created = rfc3339nano(t_start - r.randrange(300_000_000, 4_000_000_000))
        _write_json(d / "config.v2.json", {
            "StreamConfig": {},
            "State": {"Running": False, "Paused": False, "Restarting": False, "OOMKilled": oom_killed, "Dead": False,
                      "Pid": 0, "ExitCode": code, "Error": "", "StartedAt": started, "FinishedAt": finished,
                      "Health": None},
            "ID": ids["cid"], "Created": created, "Path": "/bin/bash",
            "Args": ["-c", ids["cmd"]],
            "Config": {"Hostname": ids["cid"][:12], "Domainname": "", "User": "", "Tty": False,
                       "Env": ["PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               f"CUDA_VERSION={im.cuda}.0", "LANG=C.UTF-8"] + (["NVIDIA_VISIBLE_DEVICES=all"] if s.gpus else []),
                       "Cmd": ["/bin/bash", "-c", ids["cmd"]], "Image": im.ref, "WorkingDir": j.workdir,
                       "Entrypoint": None, "Labels": labels},
            "Image": "sha256:" + hexid(64, "image", im.ref), "Name": "/" + ids["name"], "RestartCount": 0,
            "Driver": "overlay2", "Platform": "linux", "LogPath": f"/var/lib/docker/containers/{ids['cid']}/{ids['cid']}-json.log",
            "HostnamePath": f"/var/lib/docker/containers/{ids['cid']}/hostname",
        })
    else:
        meta = {"image": im.ref, "image_tag": image_tag(im.ref), "exit_code": code, "oom_killed": oom_killed,
                "started_at": started, "finished_at": finished, "name": ids["name"], "labels": labels}
        if s.fmt == "cri":
            meta.update(namespace=ids["ns"], pod=ids["pod"], pod_uid=ids["uid"], restart=restart)
            _write_json(d / f"{restart}.log.meta.json", meta)
        else:
            _write_json(d / "train.log.meta.json", meta)
    return run_id, variant, lines, end, paste_id


def _ids(seed: int, s: RunSpec) -> dict:
    j = s.job
    when = dt.datetime.fromtimestamp(s.start_ns // T.NS, dt.timezone.utc)
    cid = hexid(64, seed, "cid", s.key)
    pod_suffix = "".join("bcdfghjklmnpqrstvwxz2456789"[int(ch, 16) % 27] for ch in hexid(10, seed, "pod", s.key))
    pod = f"{j.name}-{when:%Y%m%d%H%M}-{pod_suffix[:5]}"
    u = hexid(32, seed, "uid", s.key)
    uid = f"{u[:8]}-{u[8:12]}-4{u[13:16]}-a{u[17:20]}-{u[20:32]}"
    ns = NAMESPACES[j.team]
    cmd = {"ocr": "python3 tools/train.py -c configs/rec/PP-OCRv4/ch_PP-OCRv4_rec.yml",
           "det": "python tools/train.py -c configs/ppyoloe/ppyoloe_plus_crn_l_80e_coco.yml --eval",
           "nlp": "python -u run_finetune.py ./config/finetune_args.json",
           "infer": "python3 infer.py --model_dir /workspace/inference --batch_size 8",
           "serving": "python3 web_service.py --config config.yml"}[j.kind]
    if s.config:       # started with a hand-edited config (or argument line): the command shows it
        head = {"infer": "python3 infer.py", "nlp": "python -u run_finetune.py", "serving": "python3 web_service.py --config",
                "ocr": "python3 tools/train.py -c", "det": "python tools/train.py -c"}[j.kind]
        cmd = f"{head} {s.config}" + (" --eval" if j.kind == "det" else "")
    if s.n_gpus > 1 and j.kind in ("ocr", "det", "nlp"):
        cmd = "python -m paddle.distributed.launch --gpus " + ",".join(str(i) for i in range(s.n_gpus)) + " " + \
            cmd.split(" ", 1)[1]
    return {"cid": cid, "pod": pod, "uid": uid, "ns": ns, "pod_dir": f"{ns}_{pod}_{uid}",
            "container": _CONTAINER_NAMES[j.kind], "job_dir": f"{j.name}-{when:%Y%m%d-%H%M%S}-{cid[:4]}",
            "name": f"{j.name}-{when:%m%d%H%M}-{cid[:5]}", "cmd": cmd,
            "hostname": cid[:12] if s.fmt == "docker" else pod if s.fmt == "cri" else s.host.name}


# --------------------------------------------------------------------------------------------------
# Entry point


def _poisson(r: random.Random, lam: float) -> int:
    if lam <= 0:
        return 0
    if lam > 30:
        return max(0, int(round(r.gauss(lam, math.sqrt(lam)))))
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= r.random()
        if p <= limit:
            return k
        k += 1


def plan(hosts: int = 20, days: int = 7, seed: int = 1, start: str = "2026-11-16",
         runs_per_host_day: float = 3.0, min_per_category: int | None = None) -> tuple[list[Host], list[RunSpec]]:
    """The fleet and every planned run (outcomes decided, missing categories planted). Writes nothing.

    min_per_category: plant failures until every category has this many runs (None: a few, by fleet size).
    """
    fleet = build_fleet(hosts, seed)
    t0 = int(dt.datetime.fromisoformat(start).replace(tzinfo=dt.timezone.utc).timestamp()) * T.NS
    specs = []
    for h in fleet:
        for day in range(days):
            n = _poisson(rng_for(seed, "count", h.name, day), runs_per_host_day)
            specs.extend(plan_run(seed, h, day, i, t0) for i in range(n))
    minimum = min_per_category if min_per_category is not None else \
        0 if len(specs) < 120 else min(4, max(1, len(specs) // 100))   # 20 hosts x 7 days -> 4
    plant(specs, seed, minimum)
    return fleet, specs


def _prepare_out(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        inv = out / "inventory.csv"
        if not (out / "labels.csv").exists() or not inv.exists():
            raise FileExistsError(f"{out} is not empty and does not hold a previous simulation")
        with open(inv, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                hd = out / row["host"]
                if row["host"] and hd.is_dir() and hd.parent == out:
                    shutil.rmtree(hd)
        (out / "labels.csv").unlink()
        inv.unlink()
    out.mkdir(parents=True, exist_ok=True)


CAPTURE_DIR = Path(__file__).resolve().parents[1] / "data" / "raw" / "capture01" / "files"
_ERROR_START = ("Traceback (most recent call last):", "--------------------------------------",
                "ERROR: Unexpected BUS error", "FatalError:", "terminate called", "*** Aborted at")


def load_captured(root: Path | None = None) -> dict[str, list[tuple[str, list[str]]]]:
    """Error blocks of genuine captured Paddle logs, by category (folder name = taxonomy id), if any.

    Read at run time (nothing copied into code); sorted, so the simulator stays deterministic given them.
    """
    if root is None:
        env = os.environ.get("LOGML_CAPTURE_DIR")
        root = Path(env) if env else CAPTURE_DIR
    blocks: dict[str, list] = {}
    if not root.is_dir():
        return blocks
    for f in sorted(root.glob("*/*.log")):
        cat = f.parent.name
        if cat not in CATEGORIES or cat == "no_failure":
            continue
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            continue
        while lines and not lines[-1].strip():
            lines.pop()
        start = max((i for i, ln in enumerate(lines) if ln.startswith(_ERROR_START)), default=-1)
        first_tb = next((i for i, ln in enumerate(lines) if ln.startswith(_ERROR_START[0])), start)
        start = first_tb if 0 <= first_tb and len(lines) - first_tb <= 120 else start
        if start < 0:
            start = max(0, len(lines) - 30)
        block = [ln.rstrip("\r") for ln in lines[start:start + 150]]
        if block:
            blocks.setdefault(cat, []).append((f.stem, block))
    return blocks


def _render_spec(seed: int, s: RunSpec, out: Path, scale_lines: float,
                 captured: dict | None = None, pastes: float = 0.0) -> tuple[list, int]:
    """Render one planned run (and its kept restarts, for pods). Returns (label rows, lines)."""
    ids = _ids(seed, s)
    r = rng_for(seed, "restarts", s.key)
    restarts = [0]
    if s.fmt == "cri" and s.category != "no_failure" and r.random() < 0.25:
        restarts = [0, 1] if r.random() < 0.7 else [1, 2]   # kubelet keeps the last two
    rows, total = [], 0
    t = s.start_ns
    for k, n in enumerate(restarts):
        if k == 0 and n > 0:
            t += (10 + r.randrange(0, 30)) * T.NS * 60
        run_id, variant, lines, end, paste_id = _render(seed, s, out, scale_lines, n, t, ids, captured, pastes)
        total += lines
        rows.append((run_id, s.category, "simulated", f"{s.category}/{variant}",
                     s.cause + (" (planted)" if s.planted else "")))
        if paste_id:
            rows.append((paste_id, s.category, "simulated", f"{s.category}/{variant}", f"excerpt of {run_id}"))
        t = end + (10 * 2 ** n + r.randrange(0, 10)) * T.NS
    return rows, total


def _render_many(args) -> tuple[list, int]:
    seed, specs, out, scale_lines, captured, pastes = args
    rows, total = [], 0
    for s in specs:
        rr, n = _render_spec(seed, s, out, scale_lines, captured, pastes)
        rows.extend(rr)
        total += n
    return rows, total


def simulate(out: str | Path, hosts: int = 20, days: int = 7, seed: int = 1, start: str = "2026-11-16",
             runs_per_host_day: float = 3.0, scale_lines: float = 1.0, workers: int | None = None,
             pastes: float = 0.0, min_per_category: int | None = None) -> SimSummary:
    """Write a simulated fleet's container logs + inventory.csv + labels.csv under `out` (deterministic).

    pastes: the share of failed runs (a quarter of it for healthy ones) that also get the excerpt a user
    would paste into an issue, as ``<host>/files/<job>/paste-<n>.log`` labeled like its run (a training
    corpus; a fleet for the nightly keeps 0). The runs' own logs do not depend on it.

    min_per_category: a training corpus plants failures (healthy runs given a real cause: a smaller memory
    limit, an unmounted volume, another image, ...) until each category has this many runs, since a fleet's
    own rates leave rare causes with a handful of examples.

    workers: processes that render runs (None = one per CPU, up to 8, once the corpus is big enough to be
    worth it). The output does not depend on it.
    """
    out = Path(out)
    _prepare_out(out)
    fleet, specs = plan(hosts, days, seed, start, runs_per_host_day, min_per_category)
    captured = load_captured()
    est_lines = sum(s.progress for s in specs) * scale_lines * 1.3
    if workers is None:
        workers = min(8, os.cpu_count() or 1) if est_lines > 300_000 else 1
    labels: list[tuple] = []
    total_lines = 0
    if workers <= 1 or len(specs) < 2:
        rows, total_lines = _render_many((seed, specs, out, scale_lines, captured, pastes))
        labels.extend(rows)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        order = sorted(range(len(specs)), key=lambda i: -specs[i].progress)   # big runs first, round robin
        chunks = [[specs[i] for i in order[k::workers * 4]] for k in range(workers * 4)]
        ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as ex:
            for rows, n in ex.map(_render_many, [(seed, ch, out, scale_lines, captured, pastes) for ch in chunks if ch]):
                labels.extend(rows)
                total_lines += n
    labels.sort()
    with open(out / "labels.csv", "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["run_id", "category", "source", "scenario", "note"])
        wr.writerows(labels)
    with open(out / "inventory.csv", "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["host", "gpu_model", "driver_version", "cuda_driver_max", "node_pool"])
        for h in fleet:
            wr.writerow([h.name, h.gpu.name, h.driver_version, h.cuda_max, h.pool.name])
    total_bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    cats: dict[str, int] = {}
    for row in labels:
        cats[row[1]] = cats.get(row[1], 0) + 1
    return SimSummary(runs=len(labels), lines=total_lines, bytes=total_bytes, categories=dict(sorted(cats.items())))
