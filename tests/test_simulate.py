"""Tests of the deterministic fleet simulator (pipeline.simulate)."""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest

from pipeline.simulate import CATEGORIES, IMAGES, simulate, vt

CRI_RE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) (stdout|stderr) ([PF]) (.*)$")
TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$")


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "fleet"
    summary = simulate(out, hosts=20, days=7, seed=1)
    return out, summary


def test_same_seed_same_bytes(tmp_path):
    a = simulate(tmp_path / "a", hosts=6, days=2, seed=7)
    b = simulate(tmp_path / "b", hosts=6, days=2, seed=7)
    assert a == b
    da, db = tree_digest(tmp_path / "a"), tree_digest(tmp_path / "b")
    assert da == db and len(da) > 20


def test_rerun_into_same_folder_is_identical(tmp_path):
    simulate(tmp_path / "a", hosts=5, days=2, seed=3)
    first = tree_digest(tmp_path / "a")
    simulate(tmp_path / "a", hosts=5, days=2, seed=3)
    assert tree_digest(tmp_path / "a") == first


def test_different_seed_differs(tmp_path):
    simulate(tmp_path / "a", hosts=6, days=2, seed=1)
    simulate(tmp_path / "b", hosts=6, days=2, seed=2)
    assert tree_digest(tmp_path / "a") != tree_digest(tmp_path / "b")


def test_every_category_and_success_rate(sim):
    out, summary = sim
    labels = read_csv(out / "labels.csv")
    counts: dict[str, int] = {}
    for row in labels:
        counts[row["category"]] = counts.get(row["category"], 0) + 1
    assert counts == summary.categories
    for cat in CATEGORIES:
        assert counts.get(cat, 0) >= 3, (cat, counts)
    assert set(counts) <= set(CATEGORIES)
    share = counts["no_failure"] / len(labels)
    assert 0.6 <= share <= 0.8, share
    assert summary.runs == len(labels) and summary.lines > 10_000 and summary.bytes > 1_000_000
    assert all(row["source"] == "simulated" for row in labels)
    assert all(row["scenario"].startswith(row["category"] + "/") for row in labels)
    # several surface forms per failure category
    for cat in CATEGORIES:
        if cat != "no_failure":
            forms = {row["scenario"].split("/", 1)[1].split("+")[0] for row in labels if row["category"] == cat}
            assert len(forms) >= 2, (cat, forms)


def test_formats_mix(sim):
    out, _ = sim
    labels = read_csv(out / "labels.csv")
    kinds = {"docker": 0, "pods": 0, "files": 0}
    for row in labels:
        kinds[row["run_id"].split("/")[1]] += 1
    n = len(labels)
    assert 0.35 < kinds["docker"] / n < 0.65
    assert 0.18 < kinds["pods"] / n < 0.45
    assert 0.1 < kinds["files"] / n < 0.3


def test_run_ids_point_to_files(sim):
    out, _ = sim
    for row in read_csv(out / "labels.csv"):
        rid = row["run_id"]
        host, area = rid.split("/")[:2]
        if area == "docker":
            cid = rid.rsplit("/", 1)[1]
            d = out / rid
            assert (d / f"{cid}-json.log").is_file() and (d / "config.v2.json").is_file()
        elif area == "pods":
            base, n = rid.rsplit("/", 1)
            assert (out / base / f"{n}.log").is_file()
            assert re.fullmatch(r"[a-z0-9-]+_[a-z0-9-]+_[0-9a-f-]{36}", rid.split("/")[2])
        else:
            assert area == "files" and rid.endswith("/train.log") and (out / rid).is_file()
            assert (out / (rid + ".meta.json")).is_file()


def test_discover_matches_labels(sim):
    sources = pytest.importorskip("pipeline.sources")
    out, _ = sim
    runs, problems = sources.discover(str(out))
    assert not problems
    assert sorted(r.run_id for r in runs) == sorted(row["run_id"] for row in read_csv(out / "labels.csv"))
    for r in runs:
        assert r.image and r.exit_code is not None and r.started_at and r.finished_at


def _image_of(out: Path, run_id: str) -> tuple[str, dict]:
    host, area = run_id.split("/")[:2]
    if area == "docker":
        doc = json.loads((out / run_id / "config.v2.json").read_text())
        return doc["Config"]["Image"], {"exit": doc["State"]["ExitCode"], "oom": doc["State"]["OOMKilled"]}
    meta = out / (run_id + ".meta.json") if area == "files" else out / (run_id + ".log.meta.json")
    doc = json.loads(meta.read_text())
    return doc["image"], {"exit": doc["exit_code"], "oom": doc["oom_killed"]}


def test_driver_cohort_is_causal(sim):
    out, _ = sim
    inv = {row["host"]: row for row in read_csv(out / "inventory.csv")}
    cohort = {h for h, row in inv.items() if row["driver_version"].startswith("470.")}
    assert len(cohort) >= 2
    assert all(inv[h]["cuda_driver_max"] == "11.4" for h in cohort)
    too_old_on_cohort = 0
    for row in read_csv(out / "labels.csv"):
        host = row["run_id"].split("/")[0]
        image, state = _image_of(out, row["run_id"])
        cuda = IMAGES[image].cuda
        if row["category"] == "cuda_driver_too_old":
            assert vt(cuda) > vt(inv[host]["cuda_driver_max"]), (row, cuda)
            too_old_on_cohort += host in cohort
            assert state["exit"] != 0
        if row["category"] == "no_failure":
            assert vt(cuda) <= vt(inv[host]["cuda_driver_max"])
            assert state["exit"] == 0
        if row["category"] == "host_oom":
            assert state["exit"] == 137 and state["oom"] is True
    assert too_old_on_cohort >= 3


def test_docker_json_lines_parse(sim):
    out, _ = sim
    files = sorted(out.glob("*/docker/containers/*/*-json.log*"))
    assert files
    rotated = [f for f in files if not f.name.endswith("-json.log")]
    assert rotated, "some long runs should rotate"
    for f in files:
        opener = gzip.open if f.name.endswith(".gz") else open
        with opener(f, "rt", encoding="utf-8") as fh:
            prev = ""
            for line in fh:
                obj = json.loads(line)
                assert set(obj) == {"log", "stream", "time"}
                assert obj["stream"] in ("stdout", "stderr")
                assert TS_RE.match(obj["time"]), obj["time"]
                assert obj["time"][:19] >= prev[:19]
                prev = obj["time"]
                assert obj["log"].endswith("\n") or len(obj["log"]) == 16 * 1024


def test_cri_lines_parse(sim):
    out, _ = sim
    files = sorted(out.glob("*/pods/*/*/*.log"))
    assert files
    partials = 0
    for f in files:
        pending = False
        for line in f.read_bytes().decode("utf-8").split("\n")[:-1]:
            m = CRI_RE.match(line)
            assert m, (f, line[:200])
            pending = m.group(3) == "P"
            partials += pending
        assert not pending, f
    assert partials > 0, "long lines should be split into P + F pieces"


def test_plain_logs_have_sidecar_and_text(sim):
    out, _ = sim
    for f in sorted(out.glob("*/files/*/train.log"))[:50]:
        meta = json.loads(Path(str(f) + ".meta.json").read_text())
        assert {"image", "image_tag", "exit_code", "oom_killed", "started_at", "finished_at", "name", "labels"} <= set(meta)
        text = f.read_text(encoding="utf-8")
        assert not text.startswith("{")


def test_parallel_rendering_is_identical(tmp_path):
    a = simulate(tmp_path / "a", hosts=4, days=2, seed=5, workers=1)
    b = simulate(tmp_path / "b", hosts=4, days=2, seed=5, workers=2)
    assert a == b
    assert tree_digest(tmp_path / "a") == tree_digest(tmp_path / "b")


def test_scale_lines_multiplies_progress(tmp_path):
    a = simulate(tmp_path / "a", hosts=6, days=2, seed=4)
    b = simulate(tmp_path / "b", hosts=6, days=2, seed=4, scale_lines=4)
    assert a.runs == b.runs and a.categories == b.categories
    assert b.lines > 2 * a.lines


def test_captured_blocks_are_reused(tmp_path, monkeypatch):
    cap = tmp_path / "capture" / "gpu_oom"
    cap.mkdir(parents=True)
    (cap / "resnet_bs4096.log").write_text(
        "W1129 20:06:47.123456 12345 gpu_resources.cc:119] Please NOTE: device: 0\n"
        "Traceback (most recent call last):\n  File \"/workspace/train.py\", line 3, in <module>\n"
        "    loss.backward()\nMemoryError: \n\nCAPTURED-MARKER Out of memory error on GPU 0.\n")
    monkeypatch.setenv("LOGML_CAPTURE_DIR", str(tmp_path / "capture"))
    simulate(tmp_path / "a", hosts=20, days=7, seed=1)
    rows = [r for r in read_csv(tmp_path / "a" / "labels.csv") if "captured_" in r["scenario"]]
    assert rows and all(r["category"] == "gpu_oom" for r in rows)
