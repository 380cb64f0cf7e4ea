"""Shared fixtures: small fleets written in the storage layout, warehouse snapshots."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]

HEALTHY = [
    "W1129 10:00:01.123456  {pid} gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8",
    "W1129 10:00:01.125000  {pid} gpu_resources.cc:164] device: 0, cuDNN Version: 8.9.",
]
PROGRESS = "[2026/11/29 10:{m:02d}:{s:02d}] ppocr INFO: epoch: [{e}/500], global_step: {step}, lr: 0.001000, loss: {loss:.6f}, avg_reader_cost: 0.{r:05d} s, ips: {ips:.5f} samples/s, eta: 1 day, 2:33:12"
FAILURES = [
    ["Traceback (most recent call last):",
     '  File "/workspace/train.py", line 12, in <module>',
     "    paddle.set_device('gpu')",
     "OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime version.",
     "  [Hint: 'cudaErrorInsufficientDriver'. This indicates that the installed NVIDIA CUDA driver is older than the CUDA runtime library.] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:66)"],
    ["ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough",
     "Bus error (core dumped)"],
    ["ImportError: libGL.so.1: cannot open shared object file: No such file or directory"],
]

FAILURE_LINES = {line for block in FAILURES for line in block}


def run_lines(rng: random.Random, n: int, failure: int | None = None) -> list[str]:
    pid = rng.randint(100, 9999)
    lines = [h.format(pid=pid) for h in HEALTHY]
    for i in range(n):
        lines.append(PROGRESS.format(m=i // 60 % 60, s=i % 60, e=1 + i // 100, step=10 * i,
                                     loss=rng.uniform(0.1, 30), r=rng.randint(0, 99999), ips=rng.uniform(5, 50)))
    if failure is not None:
        lines.extend(FAILURES[failure % len(FAILURES)])
    return lines


def write_docker(root: Path, host: str, cid: str, lines: list[str], image: str, exit_code: int = 1,
                 oom: bool = False, t0: int = 0) -> Path:
    folder = root / host / "docker" / "containers" / cid
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cid}-json.log"
    with path.open("a", encoding="utf-8") as fh:
        for i, line in enumerate(lines):
            stream = "stderr" if line in FAILURE_LINES else "stdout"
            fh.write(json.dumps({"log": line + "\n", "stream": stream,
                                 "time": f"2026-11-29T10:{(t0 + i) // 60 % 60:02d}:{(t0 + i) % 60:02d}.{i:09d}Z"}) + "\n")
    (folder / "config.v2.json").write_text(json.dumps({
        "ID": cid, "Name": f"/job-{cid[:6]}", "Created": "2026-11-29T09:59:59Z",
        "Config": {"Image": image, "Labels": {"team": "ocr"}},
        "State": {"ExitCode": exit_code, "OOMKilled": oom, "StartedAt": "2026-11-29T10:00:00Z",
                  "FinishedAt": "2026-11-29T11:00:00Z"}}))
    return path


def write_cri(root: Path, host: str, pod: str, lines: list[str], restart: int = 0) -> Path:
    folder = root / host / "pods" / f"train_{pod}_{pod}-uid" / "trainer"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{restart}.log"
    with path.open("a", encoding="utf-8") as fh:
        for i, line in enumerate(lines):
            ts = f"2026-11-29T10:{i // 60 % 60:02d}:{i % 60:02d}.{i:09d}Z"
            if len(line) > 60 and i % 7 == 0:  # kubelet splits long lines into partial pieces
                fh.write(f"{ts} stdout P {line[:40]}\n{ts} stdout F {line[40:]}\n")
            else:
                fh.write(f"{ts} stdout F {line}\n")
    return path


def write_plain(root: Path, host: str, job: str, lines: list[str], meta: dict | None = None) -> Path:
    folder = root / host / "files" / job
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "train.log"
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    if meta:
        (folder / "train.log.meta.json").write_text(json.dumps(meta))
    return path


def make_fleet(root: Path, runs: int = 12, lines: int = 120, seed: int = 3) -> Path:
    rng = random.Random(seed)
    for i in range(runs):
        host = f"h{i % 3 + 1:02d}"
        body = run_lines(rng, rng.randint(lines // 2, lines), failure=None if i % 4 == 3 else i // 3)
        kind = i % 3
        if kind == 0:
            write_docker(root, host, f"{i:02d}" + "ab" * 31, body, "paddlepaddle/paddle:2.6.0-gpu-cuda11.8-cudnn8")
        elif kind == 1:
            write_cri(root, host, f"pod{i}", body)
        else:
            write_plain(root, host, f"job{i}", body, {"image": "paddlepaddle/paddle:3.0.0-gpu-cuda12.6-cudnn9.5",
                                                      "exit_code": 0})
    return root


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    return make_fleet(tmp_path / "fleet")


def gzip_file(src: Path, dst: Path) -> None:
    with src.open("rb") as fin, gzip.open(dst, "wb") as fout:
        fout.write(fin.read())
    src.unlink()


# Columns that record *when* or *in which attempt* something was ingested; everything else must match.
BOOKKEEPING = {"ingest_id", "first_ingest", "last_ingest"}
TABLES = ["runs", "files", "events", "messages", "templates", "problems", "message_counts"]


def snapshot(db: Path) -> dict[str, list[tuple]]:
    with duckdb.connect(str(db), read_only=True) as con:
        out = {}
        for table in TABLES:
            cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall() if r[0] not in BOOKKEEPING]
            rows = con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
        return out


class CrashRun:
    """A fleet ingested twice by `script` (a crash script: argv root, db, where, after): `clean`
    uninterrupted, `crashed` killed with SIGKILL at `where` after `after` calls. `rerun()` runs the
    crashed warehouse again to completion. `path`: "line" (line by line, small chunks) or
    "columnar" (small batches), so that the kill lands mid-way."""

    def __init__(self, tmp_path: Path, script: str, where: str, after: int, path: str) -> None:
        import os
        import subprocess
        import sys
        self._run = lambda db, w, n, **kw: subprocess.run(
            [sys.executable, "-c", script, str(self.root), str(db), w, str(n)], env=self._env, **kw)
        self.root = make_fleet(tmp_path / "fleet", runs=9, lines=300, seed=5)
        params = tmp_path / "params.yaml"
        params.write_text("ingest:\n  chunk_lines: 40\n  columnar: false\n" if path == "line"
                          else "ingest:\n  batch_bytes: 20000\n")
        self._env = {**os.environ, "LOGML_PARAMS": str(params), "PYTHONPATH": str(ROOT)}
        self.clean, self.crashed = tmp_path / "clean.duckdb", tmp_path / "crashed.duckdb"
        self._run(self.clean, "none", 0, check=True)
        self.killed = self._run(self.crashed, where, after)

    def rerun(self):
        """The crashed warehouse run again to completion; the finished process (stdout captured)."""
        return self._run(self.crashed, "none", 0, check=True, capture_output=True, text=True)


@pytest.fixture(scope="session")
def trained(tmp_path_factory):
    """A small simulated fleet and a share of the real cases, ingested, and a model trained on them
    (real Drain3, DuckDB, MLflow)."""
    from pipeline.config import load_params
    from pipeline.ingest import ingest
    from pipeline.model import train
    from pipeline.realcases import load_cases, render
    from pipeline.simulate import simulate
    base = tmp_path_factory.mktemp("trained")
    fleet = base / "fleet"
    simulate(fleet, hosts=12, days=4, seed=3)
    cases = load_cases(ROOT / "data" / "labeled" / "real")
    render(base / "real", cases[::4], variants=(0, 1, 3))
    db = base / "w.duckdb"
    ingest(str(fleet), str(db))
    ingest(str(base / "real"), str(db))
    params = load_params()
    params["model"] = {"char_max_features": 3000, "word_max_features": 3000}
    tracking = f"sqlite:///{base / 'mlflow.db'}"
    import os
    old = os.environ.get("MLFLOW_TRACKING_URI")
    os.environ["MLFLOW_TRACKING_URI"] = tracking
    try:
        metrics = train(str(db), [fleet / "labels.csv", base / "real" / "labels.csv"], base / "models", params,
                        n_splits=3, predictions_out=base / "predictions.csv")
    finally:
        if old is None:
            os.environ.pop("MLFLOW_TRACKING_URI")
        else:
            os.environ["MLFLOW_TRACKING_URI"] = old
    return {"base": base, "fleet": fleet, "db": db, "models": base / "models", "metrics": metrics,
            "predictions": base / "predictions.csv",
            "tracking": tracking, "params": params, "labels": [fleet / "labels.csv", base / "real" / "labels.csv"]}
