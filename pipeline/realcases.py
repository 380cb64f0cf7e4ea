"""Real Paddle failures from public issue threads, as labeled runs (``data/labeled/real/``).

Each case is a log given as *message shapes* (variable parts masked: ``<N>``, ``<DIR>/``, ``<SITE>/``...)
with the root cause its thread settled on. This module renders a case into a log of its own (masks
filled with plausible values from a seeded generator; some cases wrapped in docker json-file or CRI
envelopes, some surrounded with healthy output from the simulator), in the fleet storage layout, so
the rendered cases go through ingest, features and training like any run:

    load_cases(dir) -> list[RealCase]                         # with the fixed dev/test split
    render_case(case, variant) -> RenderedLog                 # deterministic per (case, variant)
    render(out, cases, variants=(0, 1, 2)) -> labels frame    # files + labels.csv under out

Variant 0 is the plain paste (what a user hands to ``logml predict``): it is the one evaluations
score. The other variants exist for training only: 1 adds healthy output before the paste, 2 also
wraps it in a container envelope with the run's exit code beside it, 3 stops the paste early and 4
keeps only its last lines (pastes are cut: the label then rests on what is left, as in production).
"""
from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import simulate as S
from pipeline import simulate_text as T

SHAPES = "issue_log_shapes.jsonl"
SPLIT = "split.csv"
MASK = re.compile(r"<(N|DIR|SITE|HEX|TIME|DATE|IP|URL|EMAIL|UUID)>")
VARIANTS = (0, 1, 2, 3, 4)
CUTS = {3: "stop_early", 4: "last_lines"}   # how variants 3 and 4 cut the paste (simulate.user_cut)


@dataclass(frozen=True)
class RealCase:
    id: str
    url: str
    repo: str
    category: str
    difficulty: str
    paddle_version: str | None
    lines: tuple[str, ...]
    split: str                        # dev | test


@dataclass
class RenderedLog:
    case: RealCase
    variant: int
    envelope: str                     # plain | docker | cri
    lines: list[str]
    paste_start: int                  # index of the paste's first line in `lines`
    exit_code: int | None = None
    meta: dict = field(default_factory=dict)


def load_cases(folder: str | Path) -> list[RealCase]:
    folder = Path(folder)
    with open(folder / SPLIT, encoding="utf-8", newline="") as fh:
        split = {row["id"]: row["split"] for row in csv.DictReader(fh)}
    cases = []
    with open(folder / SHAPES, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            if row["id"] not in split:
                raise ValueError(f"{folder / SPLIT}: case {row['id']} has no split")
            cases.append(RealCase(id=row["id"], url=row["url"], repo=row["repo"], category=row["category"],
                                  difficulty=row["difficulty"], paddle_version=row.get("paddle_version"),
                                  lines=tuple(row["lines"]), split=split[row["id"]]))
    return cases


# ----------------------------------------------------------------------------------- filling masks
# Neutral values only: a filled directory must not name a library, a device or a deployment kind,
# or the rendering would plant signatures the paste did not have.

_CPP_DIRS = ("/paddle/paddle/fluid/operators/", "/paddle/paddle/phi/kernels/gpu/", "/paddle/paddle/fluid/platform/",
             "/paddle/paddle/fluid/framework/", "/paddle/paddle/phi/backends/gpu/cuda/",
             "/home/teamcity/work/ef54dc8a5b211854/paddle/fluid/operators/", "/paddle/paddle/fluid/memory/",
             "/paddle/paddle/phi/core/", "/home/work/build/paddle/src/", "C:\\home\\workspace\\Paddle\\paddle\\fluid\\platform\\")
_PY_DIRS = ("/home/aistudio/work/", "/workspace/PaddleOCR/ppocr/data/", "/root/PaddleDetection/ppdet/engine/",
            "/home/user/projects/seg/", "/data/code/train/", "/opt/app/", "D:\\projects\\ocr\\",
            "/usr/lib/python3.8/", "/home/work/.local/bin/", "/mnt/train/PaddleNLP/model_zoo/")
_DATA_DIRS = ("/home/aistudio/data/", "./inference/", "/workspace/output/", "/data/models/ch_PP-OCRv4_det_infer/",
              "/mnt/datasets/coco/", "./output/rec/", "D:\\data\\models\\", "/usr/lib/x86_64-linux-gnu/",
              "/home/user/work/")
_SITES = ("/usr/local/lib/python3.8/site-packages/", "/opt/conda/lib/python3.10/site-packages/",
          "/home/aistudio/.local/lib/python3.7/site-packages/", "/usr/local/lib/python3.9/dist-packages/",
          "/root/miniconda3/envs/paddle/lib/python3.11/site-packages/", "/usr/lib/python3/dist-packages/")
_WIN_SITES = ("C:\\Users\\admin\\anaconda3\\lib\\site-packages\\", "D:\\Anaconda3\\envs\\paddle\\Lib\\site-packages\\")
_URLS = ("https://github.com/PaddlePaddle/Paddle/issues", "https://www.paddlepaddle.org.cn/install/quick",
         "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
         "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/ResNet50_pretrained.pdparams",
         "https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations", "https://pypi.tuna.tsinghua.edu.cn/simple",
         "http://127.0.0.1:8866/predict/ocr_system", "https://developers.google.com/protocol-buffers/docs/news/2022-05-06")


class Filler:
    """Fills the masks of one log. A log is one machine at one moment: one site-packages, one date,
    a clock that never goes backwards, a few working directories; everything drawn from ``r``."""

    def __init__(self, r):
        self.r = r
        self.clock = r.randrange(86400 * 10 ** 6)          # microseconds into the day
        self.year = r.choice((2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025))
        self.month, self.day = r.randrange(1, 13), r.randrange(1, 29)
        self.site = {False: r.choice(_SITES), True: r.choice(_WIN_SITES)}
        self.dirs = {pool: r.sample(pool, min(2, len(pool))) for pool in (_CPP_DIRS, _PY_DIRS, _DATA_DIRS)}

    def one(self, kind: str, before: str, after: str, line: str) -> str:
        r = self.r
        if kind == "N":
            if re.match(r"-\d\d-\d\d|[-/]\d\d?[-/]", after) or re.search(r"\d\d:\d\d:\d\d\S* $", before):
                return str(self.year)                        # the year of a date
            return str(r.randrange(1000, 99999))
        if kind == "HEX":
            digits = f"{r.randrange(16 ** 11, 16 ** 12):012x}"
            return digits if before[-1:].isalnum() or before[-1:] in ("-", "@") else "0x7f" + digits[:10]
        if kind == "TIME":
            self.clock += r.choice((0, 0, 0, 1, 1, 2, 7)) * 10 ** 6 + r.randrange(10 ** 5)
            sec = self.clock // 10 ** 6
            h, m, s = sec // 3600 % 24, sec // 60 % 60, sec % 60
            if re.search(r"(?:^|\W)[IWEF]\d{4} $", before):      # GLOG header: microseconds
                return f"{h:02d}:{m:02d}:{s:02d}.{self.clock % 10 ** 6:06d}"
            return f"{h:02d}:{m:02d}:{s:02d}"
        if kind == "DATE":
            sep = "/" if before.endswith("[") and "ppocr" in after else "-"
            return f"{self.year}{sep}{self.month:02d}{sep}{self.day:02d}"
        if kind == "IP":
            return r.choice((f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}",
                             f"192.168.{r.randrange(256)}.{r.randrange(1, 255)}", "127.0.0.1"))
        if kind == "URL":
            return r.choice(_URLS)
        if kind == "EMAIL":
            return r.choice(("worker@example.com", "trainer_0@node.local", "job-42@cluster.internal"))
        if kind == "UUID":
            h = f"{r.randrange(16 ** 32):032x}"
            return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        windows = "\\" in line or re.search(r"\b[A-Z]:\\", line) is not None
        if kind == "SITE":
            return self.site[windows].rstrip("/\\")
        # DIR: what follows decides which kind of directory is plausible
        name = re.match(r"[\w.+-]*", after.lstrip("/\\")).group(0)
        if re.search(r"\.(?:cc|h|cu|cuh|cpp|hpp|c)\b", name):
            pool = _CPP_DIRS
        elif name.endswith(".py") or name in ("", "python", "python3", "paddleocr", "paddlespeech", "paddlex", "yolo"):
            pool = _PY_DIRS
        else:
            pool = _DATA_DIRS
        same_os = [p for p in self.dirs[pool] if ("\\" in p) == windows] or \
            [p for p in pool if ("\\" in p) == windows] or list(pool)
        return r.choice(same_os).rstrip("/\\")   # the shape keeps the separator after the mask

    def line(self, line: str) -> str:
        out, pos = [], 0
        for m in MASK.finditer(line):
            out.append(line[pos:m.start()])
            # the filler sees the line as filled so far, so a GLOG "<TIME>" knows its header
            done = "".join(out)
            out.append(self.one(m.group(1), done, line[m.end():], done + line[m.start():]))
            pos = m.end()
        out.append(line[pos:])
        return "".join(out)


def fill(lines, r) -> list[str]:
    """The lines of one log with every mask replaced by a plausible value."""
    filler = Filler(r)
    return [filler.line(s) for s in lines]


# ----------------------------------------------------------------------------------- surroundings

_JOB_BY_REPO = (("PaddleOCR", "ocr"), ("PPOCRLabel", "ocr"), ("PaddleDetection", "det"), ("PaddleNLP", "nlp"),
                ("ERNIE", "nlp"), ("PaddleFormers", "nlp"), ("Lite", "infer"), ("FastDeploy", "infer"),
                ("Inference", "infer"), ("Serving", "serving"))
# failures that strike while a job is already running (healthy progress before them is plausible)
_MID_RUN = frozenset({"gpu_oom", "host_oom", "shm_exhausted", "distributed_comm_failure", "native_crash",
                      "disk_full", "code_error", "no_failure", "file_not_found"})


def _generation(version: str | None) -> tuple[str, str]:
    m = re.search(r"(\d+)\.(\d+)", version or "")
    if not m:
        return "2.6.1", "2x"
    major, minor = int(m.group(1)), int(m.group(2))
    if major >= 3:
        return "3.0.0", "3x"
    if major == 2:
        return f"2.{minor}.0", "20" if minor <= 2 else "2x"
    return "1.8.5", "1x"


def _ctx(case: RealCase, r, em: T.Emitter) -> T.Ctx:
    job = next((j for key, j in _JOB_BY_REPO if key in case.repo), r.choice(("ocr", "det", "nlp")))
    paddle, gen = _generation(case.paddle_version)
    gpu = r.choice(list(S.GPUS.values()))
    driver_version, cuda_max = r.choice(list(S.DRIVERS.values()))
    c = T.Ctx(rng=r, em=em, job=job, paddle=paddle, gen=gen, cuda="11.8", cudnn="8.9",
              site=r.choice(_SITES).rstrip("/"), python="3.10", gpu_name=gpu.name, cc=gpu.cc, gpu_mem_gb=gpu.mem_gb,
              driver_api=cuda_max, driver_version=driver_version, n_progress=r.randrange(3, 25),
              duration_s=r.uniform(60, 3600), workdir=r.choice(("/workspace", "/home/aistudio", "/root/work")))
    c.extra.update(hostname=f"node-{r.randrange(100):02d}", cmd="python3 tools/train.py", gpus_visible=True)
    return c


def _healthy_prefix(case: RealCase, r, t0: int) -> list[tuple[int, str, str]]:
    """Healthy output a run prints before the paste (the simulator's own job output)."""
    sink: list = []
    em = T.Emitter(t0, r, sink.extend)
    c = _ctx(case, r, em)
    job = T.JOBS[c.job](c)
    if r.random() < 0.3:
        T.pip_install(c)
    if c.job not in ("infer", "serving"):
        job.header()
    if case.category in _MID_RUN:
        for i in range(r.randrange(1, c.n_progress + 1)):
            job.step_line(i, c.n_progress)
            em.adv(c.duration_s / c.n_progress)
    em.flush()
    return sink


# ----------------------------------------------------------------------------------- rendering


def _rng(case: RealCase, variant: int, purpose: str):
    return S.rng_for("realcase", case.id, variant, purpose)


def exit_code_for(case: RealCase, lines: list[str]) -> int:
    if case.category == "no_failure":
        return 0
    tail = "\n".join(lines[-5:])
    if re.search(r"^\s*Killed\s*$|killed by signal: Killed", tail, re.M):
        return 137
    if re.search(r"Segmentation fault|SIGSEGV", tail):
        return 139
    if re.search(r"Aborted|SIGABRT", tail):
        return 134
    return 1


def render_case(case: RealCase, variant: int) -> RenderedLog:
    paste = S.user_cut(fill(case.lines, _rng(case, variant, "fill")), CUTS.get(variant), _rng(case, variant, "cut"))
    t0 = int(S.rng_for("realcase", case.id, "t0").uniform(1.70e9, 1.76e9)) * T.NS
    envelope = "plain"
    prefix: list[tuple[int, str, str]] = []
    if variant in (1, 2):
        prefix = _healthy_prefix(case, _rng(case, variant, "prefix"), t0)
    if variant == 2:
        envelope = "docker" if int(hashlib.sha256(case.id.encode()).hexdigest(), 16) % 3 else "cri"
    lines = [text for _, _, text in prefix] + paste
    code = exit_code_for(case, paste) if variant == 2 else None
    return RenderedLog(case=case, variant=variant, envelope=envelope, lines=lines, paste_start=len(prefix),
                       exit_code=code, meta={"t0": t0, "prefix": prefix})


def _timed(rendered: RenderedLog) -> list[tuple[int, str, str]]:
    """(t_ns, stream, text) for every line: the prefix keeps its clock, the paste follows it."""
    prefix = rendered.meta["prefix"]
    t = prefix[-1][0] if prefix else rendered.meta["t0"]
    out = list(prefix)
    for text in rendered.lines[rendered.paste_start:]:
        t += 40_000
        out.append((t, "stderr", text))
    return out


def write_rendered(rendered: RenderedLog, root: Path) -> str:
    """Write one rendered log in the storage layout under root; returns its run id."""
    case, v = rendered.case, rendered.variant
    host = "gh-" + re.sub(r"[^a-z0-9]+", "-", case.repo.split("/")[-1].lower()).strip("-")
    timed = _timed(rendered)
    end = timed[-1][0] + 500_000_000 if timed else rendered.meta["t0"]
    if rendered.envelope == "docker":
        cid = S.hexid(64, "realcase", case.id, v)
        d = root / host / "docker" / "containers" / cid
        w = S.LogWriter(d / f"{cid}-json.log", "docker")
        w.write(timed)
        w.close()
        S._write_json(d / "config.v2.json", {
            "State": {"Running": False, "OOMKilled": False, "ExitCode": rendered.exit_code,
                      "StartedAt": S.rfc3339nano(rendered.meta["t0"]), "FinishedAt": S.rfc3339nano(end)},
            "ID": cid, "Created": S.rfc3339nano(rendered.meta["t0"] - 2 * T.NS), "Name": f"/{case.id}",
            "Config": {"Image": f"registry.local/issues/{host}:v{v}", "Labels": {"job": case.id}}})
        return f"{host}/docker/containers/{cid}"
    if rendered.envelope == "cri":
        uid = S.hexid(32, "realcase-uid", case.id, v)
        pod_dir = f"issues_{case.id}-{v}_{uid[:8]}-{uid[8:12]}-{uid[12:16]}-{uid[16:20]}-{uid[20:]}"
        d = root / host / "pods" / pod_dir / "main"
        w = S.LogWriter(d / "0.log", "cri")
        w.write(timed)
        w.close()
        S._write_json(d / "0.log.meta.json", {
            "image": f"registry.local/issues/{host}:v{v}", "exit_code": rendered.exit_code, "oom_killed": False,
            "started_at": S.rfc3339nano(rendered.meta["t0"]), "finished_at": S.rfc3339nano(end),
            "labels": {"job": case.id}})
        return f"{host}/pods/{pod_dir}/main/0"
    d = root / host / "files" / case.id
    w = S.LogWriter(d / f"v{v}.log", "plain")
    w.write(timed)
    w.close()
    return f"{host}/files/{case.id}/v{v}.log"


def render(out: str | Path, cases: list[RealCase], variants=VARIANTS):
    """Render every case in every variant under ``out`` (replaced), with ``out/labels.csv``."""
    import pandas as pd
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not (out / "labels.csv").exists():
            raise FileExistsError(f"{out} is not empty and does not hold rendered cases")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rows = []
    for case in cases:
        for v in variants:
            run_id = write_rendered(render_case(case, v), out)
            rows.append({"run_id": run_id, "category": case.category, "source": "real", "scenario": case.id,
                         "note": f"{case.split} {case.difficulty} v{v}", "split": case.split,
                         "difficulty": case.difficulty, "variant": v})
    labels = pd.DataFrame(rows)
    labels.to_csv(out / "labels.csv", index=False)
    return labels
