"""Tests of the deterministic fleet simulator (pipeline.simulate)."""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from pipeline import simulate_bugs as B
from pipeline import simulate_families as F
from pipeline import simulate_text as T
from pipeline.simulate import CATEGORIES, IMAGES, paste_of, simulate, vt

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
        if row["category"] == "host_oom":     # killed by the OOM killer, or an allocation that failed in the job
            # (a compiler the OOM killer took fails its build: make exits 2)
            assert (state["exit"] == 137 and state["oom"]) or state["exit"] in (1, 134) or \
                (state["exit"] == 2 and "build_killed" in row["scenario"]), (row, state)
            assert state["oom"] == T.host_oom_killed(row["scenario"].split("/", 1)[1])
        else:
            assert state["oom"] is False
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
    assert b.lines > 1.5 * a.lines   # progress is a part of each log only: failures at the start have none


def _is_slice_of(paste: list[str], lines: list[str]) -> bool:
    """paste is a run of consecutive lines of ``lines`` (its last one possibly cut short)."""
    for i in range(len(lines) - len(paste) + 1):
        if lines[i:i + len(paste) - 1] == paste[:-1] and lines[i + len(paste) - 1].startswith(paste[-1]):
            return True
    return False


def test_a_paste_starts_at_the_error_the_run_died_of():
    log = [f"epoch 1 step {i} loss 0.{i}" for i in range(300)] + [
        "Traceback (most recent call last):", '  File "train.py", line 3, in <module>', "ValueError: bad shape"]
    whole = 0
    for k in range(60):
        paste = paste_of(log, True, random.Random(k))
        assert paste and _is_slice_of(paste, log)
        assert log.index(paste[0]) >= 300 - 8    # never more than a few lines before the traceback
        whole += paste[0] in log[292:301] and paste[-1] == "ValueError: bad shape"
    assert whole >= 36    # most pastes are the whole error; the rest are cut the way users cut them
    for k in range(20):
        tail = paste_of(log, False, random.Random(k))   # a healthy run: its last lines
        assert 5 <= len(tail) < 40 and tail == log[-len(tail):]


def test_pastes_are_excerpts_of_their_runs_and_leave_the_fleet_as_it_was(tmp_path):
    simulate(tmp_path / "a", hosts=6, days=6, seed=4, min_per_category=5)
    simulate(tmp_path / "b", hosts=6, days=6, seed=4, pastes=1.0, min_per_category=5)
    da, db = tree_digest(tmp_path / "a"), tree_digest(tmp_path / "b")
    assert {k: v for k, v in db.items() if "/paste-" not in k and k != "labels.csv"} == \
        {k: v for k, v in da.items() if k != "labels.csv"}
    runs, rows = read_csv(tmp_path / "a" / "labels.csv"), read_csv(tmp_path / "b" / "labels.csv")
    pastes = {r["note"].removeprefix("excerpt of "): r for r in rows if "/paste-" in r["run_id"]}
    assert [r for r in rows if "/paste-" not in r["run_id"]] == runs
    failed = [r for r in runs if r["category"] != "no_failure"]
    # every failed run, pastes=1.0, but a silent OOM kill: its tail reads as healthy
    silent = [r for r in failed if r["scenario"].split("/")[1].split("+")[0] == "cut_off"]
    assert silent and all(r["category"] == "host_oom" and r["run_id"] not in pastes for r in silent)
    failed = [r for r in failed if r not in silent]
    assert failed and all(r["run_id"] in pastes for r in failed)
    assert 0 < len(pastes) - len(failed) < len(runs) - len(failed)       # and some healthy ones
    checked = 0
    for r in runs:
        p = pastes.get(r["run_id"])
        if p is None:
            continue
        assert (p["category"], p["scenario"]) == (r["category"], r["scenario"])
        assert p["run_id"].split("/")[0] == r["run_id"].split("/")[0]   # same host: same CV group
        if r["run_id"].endswith("/train.log"):
            log = [ln for ln in (tmp_path / "b" / r["run_id"]).read_text(encoding="utf-8").split("\n") if ln.strip()]
            paste = (tmp_path / "b" / p["run_id"]).read_text(encoding="utf-8").rstrip("\n").split("\n")
            assert len(paste) <= len(log) and _is_slice_of(paste, log)
            checked += 1
    assert checked >= 3


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


# ---------------------------------------------------------------------------------------------- code_error

ENV_SIGNATURES = re.compile("|".join((
    r"CUDA driver version is insufficient", r"cannot open shared object file", r"No space left on device",
    r"Out of memory error on GPU", r"NCCL error", r"Bus error", r"no kernel image is available", r"paddle\.fluid'",
    r"Cannot allocate memory", r"not compiled with CUDA", r"Operator \(?[\w.]+\)? (?:has not been|is not) registered",
    r"(?:insufficient|out of) shared memory", r"version `GLIBCXX", r"error code is 126", r"Killed", r"compile with gpu")))


def run_text(out: Path, run_id: str) -> list[str]:
    """The log lines of one run, whatever its storage format."""
    host, area = run_id.split("/")[:2]
    if area == "docker":
        cid = run_id.rsplit("/", 1)[1]
        with open(out / run_id / f"{cid}-json.log", encoding="utf-8") as fh:
            return [json.loads(line)["log"].rstrip("\n") for line in fh]
    if area == "pods":
        base, n = run_id.rsplit("/", 1)
        return [ln.split(" ", 3)[3] for ln in (out / base / f"{n}.log").read_text(encoding="utf-8").splitlines()]
    return (out / run_id).read_text(encoding="utf-8").splitlines()


def _labels_and_cmd(out: Path, run_id: str) -> tuple[dict, str]:
    host, area = run_id.split("/")[:2]
    if area == "docker":
        doc = json.loads((out / run_id / "config.v2.json").read_text())
        return doc["Config"]["Labels"], doc["Args"][1]
    meta = out / (run_id + ".meta.json") if area == "files" else out / (run_id + ".log.meta.json")
    return json.loads(meta.read_text())["labels"], ""


def _own_frames(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.lstrip().startswith('File "') and "-packages/" not in ln and '"<' not in ln]


def test_code_error_runs_carry_their_bug_in_the_metadata(sim):
    out, _ = sim
    rows = [r for r in read_csv(out / "labels.csv") if r["category"] == "code_error"]
    assert len(rows) >= 3
    sources = set()
    for row in rows:
        m = re.match(r"(\w+) in (code revision|dataset|config) (\S.*?)(?: \(planted\))?$", row["note"])
        assert m, row["note"]
        bug, where, item = m.groups()
        assert row["scenario"].startswith(f"code_error/{bug}."), row
        labels, cmd = _labels_and_cmd(out, row["run_id"])
        sources.add(where)
        if where == "code revision":
            assert labels["revision"] == item
        elif where == "dataset":
            assert labels["dataset"] == item
        elif cmd:                       # the command the container was started with shows the edited config
            assert item in cmd, (item, cmd)
        _, state = _image_of(out, row["run_id"])
        assert state["exit"] == (134 if "+sigabrt" in row["scenario"] else 2 if "argparse" in row["scenario"] else 1)
        assert state["oom"] is False
    assert len(sources) >= 2, sources
    # every run has the revision it was started from
    assert all(_labels_and_cmd(out, r["run_id"])[0].get("revision") for r in read_csv(out / "labels.csv")[:40])


def test_code_error_logs_show_job_frames_and_no_environment_signature(sim):
    out, _ = sim
    for row in read_csv(out / "labels.csv"):
        if row["category"] != "code_error" or "+truncated" in row["scenario"]:
            continue
        lines = run_text(out, row["run_id"])
        text = "\n".join(lines)
        # another rank's traceback only shows in the launcher's ERROR LOG DETAIL, which keeps its last lines
        if "+other_rank" not in row["scenario"]:
            assert _own_frames(lines) or "error: unrecognized arguments" in text, row
        assert not ENV_SIGNATURES.search(text), (row, ENV_SIGNATURES.search(text))


def test_a_job_bug_belongs_to_the_input_not_the_host():
    from pipeline.simulate import plan
    _, specs = plan(hosts=40, days=10, seed=7)
    broken = [s for s in specs if s.category == "code_error"]
    assert len(broken) >= 10
    by_input: dict[tuple, set] = {}
    for s in specs:
        by_input.setdefault((s.job.name, "revision", s.revision), set()).add(s.job_bug if s.bug_in == "revision" else "")
        if s.dataset:
            by_input.setdefault((s.job.name, "dataset", s.dataset), set()).add(s.job_bug if s.bug_in == "dataset" else "")
    for s in broken:
        assert s.job_bug and s.bug_in in ("revision", "dataset", "config")
        if s.bug_in in ("revision", "dataset") and not s.planted:
            item = s.revision if s.bug_in == "revision" else s.dataset
            # every run from the same input carries the same bug, unless an earlier input (a config) failed first
            assert by_input[(s.job.name, s.bug_in, item)] <= {s.job_bug, ""}
            others = [o for o in specs if o.job.name == s.job.name and getattr(o, s.bug_in) == item and o.bug_in == ""]
            assert not others, (s.key, [o.key for o in others])
    hosts = {s.host.name for s in broken}
    assert len(hosts) >= 5          # on many hosts: no host is to blame
    # the stable revision and dataset never carry a bug
    assert all(s.bug_in != "revision" or s.revision != _stable_rev(7, s) for s in broken)


def _stable_rev(seed, s):
    from pipeline.simulate import hexid
    return hexid(7, seed, "rev", s.job.name, s.day // 3)


def test_planting_code_error_changes_an_input_and_keeps_labels_consistent():
    from pipeline.simulate import decide, plan
    _, specs = plan(hosts=4, days=2, seed=5)           # too small a fleet for planting: plant by hand
    from pipeline.simulate import _mutations
    healthy = next(s for s in specs if s.category == "no_failure")
    mutated = [m for m in _mutations(healthy, "code_error", 5)]
    assert mutated and all(m.job_bug and decide(m)[0] == "code_error" for m in mutated)
    assert all((m.host, m.image, m.gpus) == (healthy.host, healthy.image, healthy.gpus) for m in mutated)
    assert {m.bug_in for m in mutated} <= {"revision", "dataset", "config"}


def _ctx(job: str, paddle: str, gen: str, seed: int, **extra):
    import random

    from pipeline import simulate_text as T
    lines: list[str] = []
    em = T.Emitter(1_795_000_000 * T.NS, random.Random(seed), lambda batch: lines.extend(t for _, _, t in batch))
    c = T.Ctx(rng=random.Random(seed), em=em, job=job, paddle=paddle, gen=gen, cuda="11.8", cudnn="8.6",
              site="/usr/local/lib/python3.10/dist-packages", python="3.10", gpu_name="NVIDIA A10", cc="8.6",
              gpu_mem_gb=24.0, driver_api="12.2", driver_version="535.183.01", workdir="/workspace")
    c.extra.update(extra)
    return c, lines


GENERATIONS = (("1.5.2", "1x"), ("1.8.5", "1x"), ("2.1.2", "20"), ("2.6.0", "2x"), ("3.0.0", "3x"))


def test_every_code_bug_renders_in_every_generation_from_the_jobs_own_files():
    from pipeline import simulate_text as T
    from pipeline.simulate import JOB_BUGS
    seen: dict[str, set] = {}
    for job, by_source in JOB_BUGS.items():
        for bug in sorted({b for kinds in by_source.values() for b in kinds}):
            for paddle, gen in GENERATIONS:
                for seed in range(6):
                    c, lines = _ctx(job, paddle, gen, seed, job_bug=bug)
                    variant = B.e_code_error(c)
                    c.em.flush()
                    text = "\n".join(lines)
                    assert variant.startswith(bug + "."), variant
                    assert _own_frames(lines) or "unrecognized arguments" in text, (job, bug, gen, variant, text[-800:])
                    assert not ENV_SIGNATURES.search(text), (job, bug, gen, variant)
                    assert T.exit_code_for("code_error", variant) in (1, 2, 134)
                    seen.setdefault(bug, set()).add(variant.split(".", 1)[1].split("+")[0])
    assert set(seen) == set(B.CODE_BUGS) and set(B.CODE_BUGS) == set(B.CODE_BUG_PHASE)
    assert sum(len(v) for v in seen.values()) >= 60          # many surface forms, not one per bug
    c, lines = _ctx("nlp", "1.5.2", "1x", 0, job_bug="shape_matmul")
    forms = set()
    for seed in range(40):
        c, lines = _ctx("nlp", "1.5.2", "1x", seed, job_bug="shape_matmul")
        B.e_code_error(c)
        c.em.flush()
        forms.add("PaddlePaddle Call Stacks:" in lines)
    assert forms == {True, False} or forms == {True}     # Fluid 1.5 prints its enforce with the address list


def test_code_error_hard_variants_and_families_in_a_bigger_fleet(tmp_path):
    out = tmp_path / "big"
    simulate(out, hosts=40, days=10, seed=7)
    rows = read_csv(out / "labels.csv")
    scen = [r["scenario"] for r in rows if r["category"] == "code_error"]
    bugs = {s.split("/", 1)[1].split(".")[0] for s in scen}
    assert len(bugs) >= 10, bugs
    assert {"revision", "dataset", "config"} <= {re.search(r"in (code revision|dataset|config)", r["note"]).group(1)
                                                .replace("code ", "") for r in rows if r["category"] == "code_error"}
    assert any("+cudnn_warning" in s for s in scen)
    texts = {r["run_id"]: "\n".join(run_text(out, r["run_id"])) for r in rows if r["category"] == "code_error"}
    assert any("CUDA error(700)" in t or "CUDA error(719)" in t for t in texts.values())
    assert any("[operator <" in t for t in texts.values())
    # other categories now show several families each
    forms = {}
    for r in rows:
        forms.setdefault(r["category"], set()).add(r["scenario"].split("/", 1)[1].split("+")[0])
    assert {"device_count_zero", "error35_without_driver"} & forms["gpu_not_visible"]
    assert {"nccl_dynload", "nccl_version_unhandled_cuda", "core_import_cudart"} & forms["cuda_lib_missing"]
    assert any(f.startswith("third_party_") for f in forms["python_dependency_conflict"])
    assert any(f.startswith("host_alloc_") for f in forms["host_oom"])
    assert "libstdcxx_version" in forms["system_lib_missing"]


FAMILY_PHRASES = {
    "f_trt_version_mismatch": "version TensorRT, but the runtime TensorRT",
    "f_gpu_taken": ("CUBLAS_STATUS_NOT_INITIALIZED", "CUDNN_STATUS_ALLOC_FAILED", "any other process using GPU 0"),
    "f_pod_oomkilled": "Reason:       OOMKilled", "f_liveness_killed": "failed liveness probe, will be restarted",
    "f_enable_gpu_cpu_build": "Please compile with gpu to EnableGpu()", "f_device_count_zero": ("GPU count", "Invalid CUDAPlace"),
    "f_error35_without_driver": "insufficient for CUDA runtime", "f_device_not_set_properly": "not set properly",
    "f_ptx_toolchain": "CUDA error(222)", "f_summary_env_no_gpu": "no GPU found in runtime", "f_win_dll126": "error code is 126",
    "f_cudnn_dso_handle": "cudnn_dso_handle should not be null", "f_core_import_cudart": "Can not import paddle core",
    "f_legacy_dynamic_loader": "Check failure stack trace", "f_nccl_lib": "NCCL", "f_allocating_available": "allocating <= available",
    "f_badalloc_operator": "BadAlloc", "f_alloc_traceback_only": "AllocatorFacade", "f_host_alloc_python": "",
    "f_win_paging_file": ("paging file is too small", "页面文件太小"),
    "f_wait_forever": "", "f_rpc_pserver": "", "f_bkcl": "BKCL", "f_signal_no_stack": "No stack trace in paddle",
    "f_fluid_init_signal": "PaddlePaddle catches a failure signal", "f_glibc_backtrace": "======= Backtrace: =========",
    "f_paddle_lite": ("Paddle-Lite", "/lite/", "This model is not supported"), "f_lite_model_missing": "Unable to open file", "f_op_not_registered_old": "", "f_predictor_version": "PREDICTOR VERSION",
    "f_native_predictor_model": "NativePaddlePredictor", "f_dataset_path_checks": "", "f_libstdcxx_glibcxx": "not found",
    "f_libssl11": "Can not import paddle core", "f_dll_load_failed": "DLL load failed", "f_third_party_api": "", "f_shm_more": "",
    "f_mpi_cluster": "]<std", "f_etcd_store": "connect to etcd error", "f_build_killed": "Killed signal terminated program",
    # simulate_rare
    "f_gpu_unusable": ("initialization error", "busy or unavailable", "stub library", "No devices were found",
                       "CUDA_VISIBLE_DEVICES is set to be empty"),
    "f_driver_requirement": ("unsatisfied condition: cuda>=", "Driver API Version"),
    "f_cudnn_unusable": ("CUDNN_STATUS_", "zlibwapi.dll", "but CUDNN version in your machine is"),
    "f_cudnn_sublib_abort": "Could not load library libcudnn_",
    "f_custom_op_no_toolkit": "Failed to compile custom operator", "f_os_package_missing": ("No such file or directory", "not found"),
    "f_feature_needs_newer_gpu": ("FlashAttention", "bfloat16"), "f_shm_semaphores": "[Errno 28]",
    "f_model_format_mismatch": ("expected shape", "a shape of", "inference.json", "not supported yet", "IR version",
                                "Version tag does not match"),
    "f_static_api_in_dygraph": "static graph mode", "f_toolkit_module_changed": ("has no attribute", "No module named"),
    "f_launch_and_init": ("not NoneType", "NCCL INFO", "not been initialized", "init_parallel_env()", "MPI communication peer"),
    "f_windows_crash": "(0xC0000", "f_disk_quota": ("Disk quota exceeded", "超出磁盘限额"),
    "f_disk_full_then_write_fails": ("No space left on device", "no space left on device"),
    "f_openmp_twice": "OMP: Error #15", "f_paddle_dependency_version": "has no attribute",
    "f_android_lmk": "lowmemorykiller: Kill",
    "f_pod_evicted_storage": "ephemeral",
    "f_pod_evicted_memory": "low on resource: memory",
    "f_pod_evicted_shm": "Usage of EmptyDir volume",
    "f_cxx_api_compile": "error: ",
}


def test_every_family_renders_its_signature():
    fns = {f.__name__: f for forms in F.FAMILIES.values() for _, f in forms}
    assert set(fns) == set(FAMILY_PHRASES)
    for name, fn in sorted(fns.items()):
        for seed in range(4):
            extra = {"missing_cuda_lib": "libnccl.so" if seed % 2 else "libcudnn.so", "dep_conflict": ("numpy2", "opencv",
                     "hfhub", "pillow10")[seed], "hostname": "trainer-0"}
            c, lines = _ctx(("infer", "ocr", "det", "nlp")[seed], "1.8.5" if seed == 0 else "2.6.0",
                            "1x" if seed == 0 else "2x", seed, **extra)
            tag = fn(c)
            c.em.flush()
            assert tag and lines, name
            phrases = FAMILY_PHRASES[name] if isinstance(FAMILY_PHRASES[name], tuple) else (FAMILY_PHRASES[name],)
            assert any(phrase in "\n".join(lines) for phrase in phrases), (name, tag)


def test_new_exit_codes():
    assert T.exit_code_for("host_oom", "cut_off") == 137 and T.host_oom_killed("cut_off")
    assert T.exit_code_for("host_oom", "host_alloc_numpy_unable") == 1 and not T.host_oom_killed("host_alloc_numpy_unable")
    assert T.exit_code_for("host_oom", "host_alloc_dataloader_killed") == 1
    assert T.host_oom_killed("host_alloc_dataloader_killed")
    assert T.exit_code_for("host_oom", "build_killed") == 2 and T.host_oom_killed("build_killed")
    assert T.exit_code_for("host_oom", "slurm_oom") == 137 and T.host_oom_killed("slurm_oom")
    assert T.exit_code_for("host_oom", "pod_oomkilled") == 137 and T.host_oom_killed("pod_oomkilled")
    assert T.exit_code_for("unknown", "liveness_killed") == 137 and not T.host_oom_killed("liveness_killed")
    assert T.exit_code_for("distributed_comm_failure", "wait_forever+other_rank") == 143
    assert T.exit_code_for("gpu_not_visible", "enable_gpu_cpu_build+segv") == 139
    assert T.exit_code_for("unknown", "2x_deadline_sigterm") == 143
    assert T.exit_code_for("native_crash", "fluid_init_sigfpe") == 136
    assert T.exit_code_for("code_error", "argparse.argparse") == 2
    assert T.exit_code_for("code_error", "input_name+sigabrt") == 134


def test_same_seed_same_bytes_with_code_errors(tmp_path):
    a = simulate(tmp_path / "a", hosts=12, days=4, seed=3)
    b = simulate(tmp_path / "b", hosts=12, days=4, seed=3)
    assert a == b and a.categories.get("code_error", 0) >= 1
    assert tree_digest(tmp_path / "a") == tree_digest(tmp_path / "b")


def test_a_shell_in_a_chinese_locale_names_signals_in_chinese():
    c, _ = _ctx("ocr", "2.6.0", "2x", 0)
    killed = "/entrypoint.sh: line 34:    58 Killed                  python train.py"
    assert c.shell(killed) == killed and c.shell("Bus error (core dumped)") == "Bus error (core dumped)"
    c.zh_shell = True
    assert c.shell(killed) == "/entrypoint.sh: line 34:    58 已杀死                  python train.py"
    assert c.shell("Bus error (core dumped)") == "总线错误 (核心已转储)"
    assert c.shell("Segmentation fault (core dumped)") == "段错误 (核心已转储)"
    assert c.shell("Aborted (core dumped)") == "已放弃 (核心已转储)"
    # Python's OSError and NCCL's WARN lines print strerror(3), which the locale translates too
    refused = "NCCL WARN Net : Connect to 10.0.0.2<43210> failed : Connection refused"
    assert c.strerror(refused) == "NCCL WARN Net : Connect to 10.0.0.2<43210> failed : 拒绝连接"
    assert c.strerror("OSError: [Errno 98] Address already in use") == "OSError: [Errno 98] 地址已在使用"
    c.zh_shell = False
    assert c.strerror(refused) == refused


def test_forms_from_spot_checks_read_as_their_category_by_the_rules(tmp_path):
    """Forms grown from families the spot checks showed (feed checks of a static program, a recursion in the
    job's own code or in a dataset that retries missing images, stdlib names newer Pythons removed, a toolkit
    older than Paddle importing paddle.fluid in its own files, weights whose host is unreachable, a TensorRT
    runtime at another version, a Paddle-Lite model of another version pulled with logcat, a shell that names
    signals in Chinese, a path said missing in Chinese, packages newer than the code, a notebook's kernel
    restarted, Windows' paging file, and the rarer signatures of simulate_rare): each is rendered until seen, and
    the rules read it as its label."""
    from pipeline import simulate_failures as S
    from pipeline.predict import read_log_events
    from pipeline.rules import RuleSet
    rules = RuleSet.load()

    def rule_category(lines):
        path = tmp_path / "run.log"
        path.write_text("\n".join(lines) + "\n")
        events, meta = read_log_events(str(path), rules)
        verdict = rules.match(events, meta or {})
        return verdict.category if verdict else None

    forms = ((B.bug_bad_input, "infer", {}, "feed_shape", "code_error"),
             (B.bug_bad_input, "infer", {}, "feed_dtype", "code_error"),
             # a Paddle Inference app asking for an input its model lacks, in Python or C++ (then it aborts)
             (B.bug_bad_input, "infer", {}, "input_name", "code_error"),
             (B.bug_user_exception, "nlp", {}, "RecursionError_", "code_error"),
             (F.f_dataset_path_checks, "ocr", {}, "ppocr_does_not_exist_recursion", "file_not_found"),
             (S.e_python_dependency_conflict, "ocr", {"dep_conflict": "module"}, "2x_stdlib_removed",
              "python_dependency_conflict"),
             # a toolkit older than Paddle importing paddle.fluid in its own files (captured: toolkit_older_than_paddle)
             (S.e_python_dependency_conflict, "nlp", {"dep_conflict": "module"}, "2x_toolkit_older_than_paddle",
              "python_dependency_conflict"),
             # weights to download, no route to their host (captured: model_download_offline): no rule says a cause
             (S.e_unknown, "det", {}, "2x_download_unreachable", None),
             # a team that writes its messages in Chinese says a path is missing in Chinese
             (S.e_file_not_found, "ocr", {}, "2x_cn_path_missing", "file_not_found", {"chinese": True}),
             # a notebook pod whose kernel the OOM killer took
             (S.e_host_oom, "ocr", {}, "kernel_restarted", "host_oom"),
             (F.f_win_paging_file, "det", {}, "win_paging_file", "host_oom"),
             # packages newer than the code: PyYAML 6, librosa 0.10, Matplotlib 3.10
             (F.f_third_party_api, "det", {"dep_conflict": "numpy2"}, "third_party_yaml_loader", "python_dependency_conflict"),
             (F.f_third_party_api, "nlp", {"dep_conflict": "numpy2"}, "third_party_librosa_kwonly",
              "python_dependency_conflict"),
             (F.f_third_party_api, "ocr", {"dep_conflict": "pillow10"}, "third_party_mpl_tostring",
              "python_dependency_conflict"),
             (F.f_trt_version_mismatch, "infer", {}, "trt_version_mismatch", "cuda_lib_missing"),
             (F.f_paddle_lite, "infer", {}, "paddle_lite_meta_version_logcat", "model_version_incompatible"),
             # Paddle-Lite's forms as captured (opt on a PIR model, an older opt, an unconverted model, no .nb)
             (F.f_paddle_lite, "infer", {}, "lite_opt_pir_json", "model_version_incompatible"),
             (F.f_paddle_lite, "infer", {}, "lite_opt_older_than_model", "model_version_incompatible"),
             (F.f_paddle_lite, "infer", {}, "lite_unconverted_model", "model_version_incompatible"),
             (F.f_lite_model_missing, "infer", {}, "lite_model_missing", "file_not_found"),
             # a shell in a Chinese locale names the signal in Chinese
             (S.e_shm_exhausted, "det", {}, "2x_bus_core_dumped", "shm_exhausted", {"zh_shell": True}),
             # a scheduler's SIGTERM that Paddle's signal handler reports is no crash: no rule reads a cause in it
             (S.e_unknown, "nlp", {}, "2x_deadline_sigterm", None),
             # the rarer signatures (simulate_rare): each read by the rule that knows it
             (F.f_gpu_unusable, "det", {}, "gpu_unusable_init_error3", "gpu_not_visible"),
             (F.f_gpu_unusable, "det", {}, "gpu_unusable_smi_no_devices", "gpu_not_visible"),
             (F.f_driver_requirement, "ocr", {}, "driver_requirement_container_cli", "cuda_driver_too_old"),
             (F.f_driver_requirement, "ocr", {}, "driver_requirement_note", "cuda_driver_too_old"),
             (F.f_cudnn_unusable, "det", {}, "cudnn_not_initialized_after_warning", "cuda_lib_missing"),
             (F.f_cudnn_unusable, "det", {}, "cudnn_version_mismatch", "cuda_lib_missing"),
             (F.f_custom_op_no_toolkit, "det", {}, "custom_op_no_toolkit", "cuda_lib_missing"),
             (F.f_os_package_missing, "ocr", {}, "os_package_gcc", "system_lib_missing"),
             (F.f_os_package_missing, "ocr", {}, "os_package_python_h", "system_lib_missing"),
             (F.f_os_package_missing, "ocr", {}, "os_package_ffmpeg", "system_lib_missing"),
             (F.f_feature_needs_newer_gpu, "nlp", {}, "feature_needs_newer_gpu", "gpu_arch_unsupported"),
             (F.f_shm_semaphores, "ocr", {}, "shm_semaphores", "shm_exhausted"),
             (F.f_model_format_mismatch, "infer", {}, "model_format_shape_not_matching", "model_version_incompatible"),
             (F.f_model_format_mismatch, "infer", {}, "model_format_pir_json", "model_version_incompatible"),
             (F.f_model_format_mismatch, "infer", {}, "model_format_converter", "model_version_incompatible"),
             (F.f_static_api_in_dygraph, "nlp", {}, "static_api_in_dygraph", "api_incompatible"),
             (F.f_toolkit_module_changed, "nlp", {}, "toolkit_module_changed", "python_dependency_conflict"),
             (F.f_launch_and_init, "nlp", {}, "launch_master_sync", "distributed_comm_failure"),
             (F.f_launch_and_init, "nlp", {}, "launch_nccl_setup_hangs", "distributed_comm_failure"),
             (F.f_launch_and_init, "nlp", {}, "launch_not_initialized", "distributed_comm_failure"),
             (F.f_launch_and_init, "nlp", {}, "launch_mpi_peer_lost", "distributed_comm_failure"),
             (F.f_windows_crash, "ocr", {}, "windows_crash", "native_crash"),
             (F.f_disk_quota, "det", {}, "disk_quota", "disk_full"),
             (F.f_disk_full_then_write_fails, "infer", {}, "disk_full_then", "disk_full"),
             (F.f_openmp_twice, "ocr", {}, "openmp_twice", "native_crash"),
             (F.f_paddle_dependency_version, "det", {}, "paddle_dependency_gast", "python_dependency_conflict"),
             (F.f_cudnn_unusable, "ocr", {}, "cudnn_zlibwapi", "cuda_lib_missing"),
             (F.f_android_lmk, "infer", {}, "android_lmk", "host_oom"),
             # a Slurm step over its --mem: slurmstepd counts the kill, srun says "Out Of Memory" of a task on a gpu node
             (S.e_host_oom, "det", {}, "slurm_oom", "host_oom"),
             # Kubernetes' word on a restarted container: OOMKilled, or a kill for a failed liveness probe (no cause)
             (F.f_pod_oomkilled, "serving", {}, "pod_oomkilled", "host_oom"),
             (F.f_liveness_killed, "serving", {}, "liveness_killed", None))
    signalled = False
    for render, job, extra, tag, category, *attrs in forms:
        seen = 0
        for seed in range(200):
            c, lines = _ctx(job, "2.6.0", "2x", seed, **extra)
            for name, value in (attrs[0] if attrs else {}).items():
                setattr(c, name, value)
            got = render(c)
            c.em.flush()
            if got.startswith(tag):
                seen += 1
                assert rule_category(lines) == category, (tag, seed, "\n".join(lines)[-600:])
                signalled = signalled or "`Termination signal` is detected" in "\n".join(lines)
            if seen == 3:
                break
        assert seen == 3, tag
    assert signalled   # Paddle's own report of the SIGTERM was among the renderings


def _rendered_with_verdicts(tmp_path, render, tag: str, seeds: int):
    """(text, rules' verdict) of each rendering of one simulator form, read back as predict reads a file."""
    from pipeline.predict import read_log_events
    from pipeline.rules import RuleSet
    rules = RuleSet.load()
    for seed in range(seeds):
        c, lines = _ctx("det", "2.6.0", "2x", seed)
        if render(c) != tag:
            continue
        c.em.flush()
        text = "\n".join(lines)
        path = tmp_path / f"run{seed}.log"
        path.write_text(text + "\n")
        events, meta = read_log_events(str(path), rules)
        yield text, rules.match(events, meta or {})


def test_a_sigbus_where_dev_shm_is_shown_roomy_is_no_shm_shortage_to_the_rules(tmp_path):
    """The native SIGBUS form pastes a roomy /dev/shm: the rules do not read the shm's Bus error in it."""
    from pipeline import simulate_failures as S
    seen = 0
    for text, verdict in _rendered_with_verdicts(tmp_path, S.e_native_crash, "2x_sigbus_not_shm", 300):
        if "% /dev/shm" not in text:
            continue
        assert "Bus error (core dumped)" in text
        assert verdict is None or verdict.category != "shm_exhausted", text[-600:]
        seen += 1
    assert seen >= 3


def test_a_gpu_lost_under_the_job_always_shows_the_node_and_the_rules_blame_no_job(tmp_path):
    """The unknown gpu_lost form: a kernel error a job's bad index also gives, with the node's word on it."""
    from pipeline import simulate_failures as S
    seen = 0
    for text, verdict in _rendered_with_verdicts(tmp_path, S.e_unknown, "2x_gpu_lost", 400):
        assert "fallen off the bus" in text or "double bit error" in text or "device handle" in text, text[-600:]
        assert verdict is None or verdict.category not in ("code_error", "gpu_not_visible", "native_crash"), text[-600:]
        seen += 1
    assert seen >= 3


def test_ranks_torn_down_at_the_schedulers_deadline_are_no_communication_failure_to_the_rules(tmp_path):
    """The deadline form of a launched job: peers' resets beside Slurm's TIME LIMIT or sacct's TIMEOUT row."""
    from pipeline import simulate_failures as S
    seen = set()
    for text, verdict in _rendered_with_verdicts(tmp_path, lambda c: (setattr(c, "launch", True), S.e_unknown(c))[1],
                                                 "2x_deadline_sigterm", 400):
        peers = "reset by peer" in text or "peer closed" in text or "ncclRemoteError" in text
        accounting = "TIMEOUT" in text and "TIME LIMIT" not in text
        assert verdict is None or verdict.category != "distributed_comm_failure", text[-600:]
        seen |= {"peers"} if peers else set()
        seen |= {"sacct"} if accounting else set()
        seen |= {"both"} if peers and ("TIME LIMIT" in text or accounting) else set()
    assert seen == {"peers", "sacct", "both"}, seen


def test_a_training_corpus_plants_every_cause_to_its_minimum_and_labels_stay_what_the_fleet_decides():
    from pipeline.simulate import CATEGORIES, decide, plan
    _, fleet = plan(hosts=12, days=10, seed=7)
    _, corpus = plan(hosts=12, days=10, seed=7, min_per_category=12)
    counts = {cat: sum(s.category == cat for s in corpus) for cat in CATEGORIES}
    # a full disk needs a job that saves on a small volume: as many as the plan has of those
    assert min(n for cat, n in counts.items() if cat not in ("no_failure", "disk_full")) >= 12, counts
    assert counts["no_failure"] >= len(corpus) // 4         # healthy runs remain
    assert sum(s.category == "distributed_comm_failure" for s in fleet) < 12       # the fleet alone has few
    # planted runs are healthy runs of the same plan given a cause; the decision still reads as the label
    assert [s.key for s in corpus] == [s.key for s in fleet]
    for before, after in zip(fleet, corpus):
        assert decide(after)[0] == after.category
        if after.category != before.category:
            assert (before.category == "no_failure" or before.planted) and after.planted


def test_every_stage_that_renders_with_the_simulator_depends_on_all_its_modules():
    """A simulator module missing from a stage's deps leaves `dvc repro` training on a stale corpus."""
    import yaml
    root = Path(__file__).resolve().parents[1]
    modules = {f"pipeline/{p.name}" for p in (root / "pipeline").glob("simulate*.py")}
    stages = yaml.safe_load((root / "dvc.yaml").read_text())["stages"]
    rendering = {name: set(s.get("deps", [])) for name, s in stages.items() if "pipeline/simulate.py" in s.get("deps", [])}
    assert {"simulate_corpus", "render_real"} <= set(rendering)
    for name, deps in rendering.items():
        assert modules <= deps, (name, sorted(modules - deps))


def test_a_healthy_run_that_survived_an_error_reads_healthy_to_rules_and_features(tmp_path):
    """The survived-error forms of healthy runs (a batch-size probe's GPU OOM, a retried download): the
    steps go on after it, so neither the rules nor the features' focus take it for the run's end."""
    from pipeline import features
    from pipeline.predict import read_log_events
    from pipeline.rules import RuleSet
    rules = RuleSet.load()
    seen = set()
    for seed in range(600):
        c, lines = _ctx("nlp", "2.6.0", "2x", seed)
        c.n_progress, c.duration_s = 40, 600.0
        variant, code = T.render_run(c, "no_failure")
        c.em.flush()
        if not variant.startswith("survived_") or variant in seen:
            continue
        seen.add(variant)
        assert code == 0
        path = tmp_path / f"{variant}.log"
        path.write_text("\n".join(lines) + "\n")
        events, _ = read_log_events(str(path), rules)
        assert rules.match(events, {}) is None, (variant, "\n".join(lines)[-800:])
        f = features.run_features(events, {}, [])
        assert "error_survived" in f.context.split(), (variant, f.context)
        if variant == "survived_oom_probe":   # the same error as the run's end would be its cause
            cut = lines[:next(i for i, ln in enumerate(lines) if "retrying with" in ln or "halving" in ln)]
            path.write_text("\n".join(cut) + "\n")
            events, _ = read_log_events(str(path), rules)
            assert rules.match(events, {}).category == "gpu_oom"
    assert seen == {"survived_oom_probe", "survived_download_retry"}, seen
