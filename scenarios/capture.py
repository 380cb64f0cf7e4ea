#!/usr/bin/env python3
"""Capture GENUINE PaddlePaddle failure (and success) logs.

Every scenario runs a small user-style script with a real Paddle wheel from a venv under
/opt/paddle-venvs/<venv>, from the working folder /workspace (container-like paths), with
stdout+stderr interleaved exactly as printed.  Faults (small /dev/shm, full disk, missing
system libraries) are injected only inside a private mount namespace
(`unshare -m --propagation private`), never on the machine itself.

Usage:
    python scenarios/capture.py                       # all scenarios
    python scenarios/capture.py --only shm_exhausted  # by scenario name, category or name/variant
    python scenarios/capture.py --list
    python scenarios/capture.py --setup-only          # create the venvs only

Output (storage layout, see shared/design.md):
    data/raw/capture01/files/<scenario>/<variant>.log
    data/raw/capture01/files/<scenario>/<variant>.log.meta.json
    data/labeled/captured.csv   (run_id,category,source,scenario,note)
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from registry import SCENARIOS, VENVS, Scenario  # noqa: E402

VENV_ROOT = Path(os.environ.get("LOGML_VENV_ROOT", "/opt/paddle-venvs"))
WORKSPACE = Path("/workspace")
SCRATCH = Path("/tmp/logml-capture")  # namespace scripts, setup logs (never part of a captured log)
BASE_PYTHON = os.environ.get("LOGML_BASE_PYTHON", "/usr/bin/python3.11")
LEAK_MARKERS = ("/work/", "/tmp/logml-capture", "/root/.pyenv")


# --------------------------------------------------------------------------- venvs
def venv_python(name: str) -> Path:
    return VENV_ROOT / name / "bin" / "python"


def base_python(version: str | None) -> str:
    """The interpreter a venv is made from: LOGML_BASE_PYTHON, or the pyenv X.Y (else pythonX.Y on PATH)."""
    if version is None:
        return BASE_PYTHON
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for cand in sorted(pyenv.glob(f"{version}.*/bin/python"), reverse=True):
        return str(cand)
    found = shutil.which(f"python{version}")  # after pyenv: its shims answer for versions it does not select
    if found and "/shims/" not in found:
        return found
    raise RuntimeError(f"no python{version} on PATH or under {pyenv} (needed for a venv of that version)")


def ensure_venv(name: str) -> None:
    spec = VENVS[name]
    vdir = VENV_ROOT / name
    stamp = vdir / ".logml-ready"
    want = json.dumps(spec["steps"])  # only what is installed matters
    if stamp.exists() and stamp.read_text() == want:
        return
    print(f"[venv] creating {vdir}", flush=True)
    VENV_ROOT.mkdir(parents=True, exist_ok=True)
    if not (vdir / "bin" / "python").exists():
        subprocess.run([base_python(spec.get("python")), "-m", "venv", str(vdir)], check=True)
    pip = [str(vdir / "bin" / "python"), "-m", "pip", "install", "-qq"]
    for step in spec["steps"]:
        print(f"[venv]   pip install {' '.join(step)}", flush=True)
        subprocess.run(pip + list(step), check=True)
    stamp.write_text(want)


# --------------------------------------------------------------------------- running
def container_env(sc: Scenario) -> dict:
    vbin = VENV_ROOT / sc.venv / "bin"
    env = {
        "PATH": f"{vbin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "HOSTNAME": "paddle-job",
        "TERM": "xterm",
    }
    env.update(sc.env)
    return env


def prepare_workspace(sc: Scenario) -> None:
    if WORKSPACE.exists():
        shutil.rmtree(WORKSPACE)
    WORKSPACE.mkdir(parents=True)
    for src, dest in sc.files.items():
        target = WORKSPACE / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HERE / src, target)


def run_setup(sc: Scenario, env: dict) -> None:
    """Pre-steps (export a model with another Paddle version, ...); output kept only in SCRATCH."""
    for i, (venv, cmd) in enumerate(sc.setup):
        ensure_venv(venv)
        senv = dict(env)
        senv["PATH"] = f"{VENV_ROOT / venv / 'bin'}:" + env["PATH"].split(":", 1)[1]
        log = SCRATCH / "setup" / f"{sc.name}__{sc.variant}__{i}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "wb") as f:
            r = subprocess.run(["/bin/sh", "-c", cmd], cwd=WORKSPACE, env=senv, stdout=f,
                               stderr=subprocess.STDOUT, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"setup step {i} of {sc.name}/{sc.variant} failed (rc={r.returncode}), see {log}")


CGROUP_V1 = Path("/sys/fs/cgroup/memory")
CGROUP_V2 = Path("/sys/fs/cgroup")


def memory_cgroup(sc: Scenario) -> Path:
    """A fresh memory cgroup capped at sc.memory_cap (v1 or v2), as docker's --memory makes one."""
    v1 = CGROUP_V1.is_dir() and (CGROUP_V1 / "memory.limit_in_bytes").exists()
    cg = (CGROUP_V1 if v1 else CGROUP_V2) / f"logml-capture-{sc.name}-{sc.variant}"
    if cg.exists():
        cg.rmdir()
    cg.mkdir()
    (cg / ("memory.limit_in_bytes" if v1 else "memory.max")).write_text(sc.memory_cap)
    if v1 and (cg / "memory.memsw.limit_in_bytes").exists():
        (cg / "memory.memsw.limit_in_bytes").write_text(sc.memory_cap)  # no escape into swap
    return cg


def oom_killed(cg: Path) -> bool:
    """Whether the kernel OOM-killed a process of the cgroup (what docker reports as OOMKilled)."""
    for name in ("memory.oom_control", "memory.events"):
        f = cg / name
        if f.exists():
            counts = dict(line.split() for line in f.read_text().splitlines() if len(line.split()) == 2)
            return int(counts.get("oom_kill", 0)) > 0
    return False


def build_command(sc: Scenario, cgroup: Path | None = None) -> list[str]:
    cmd = sc.cmd
    if cgroup is not None:  # join the cgroup, then become the job (its children stay inside)
        if "'" in cmd:
            raise ValueError(f"{sc.name}/{sc.variant}: a memory-capped command cannot contain a single quote")
        cmd = f"sh -c 'echo $$ > {cgroup}/cgroup.procs && exec {cmd}'"
    if sc.prlimit_as:
        cmd = f"prlimit --as={sc.prlimit_as} -- {cmd}"
    if sc.timeout_cmd:
        cmd = f"timeout {sc.timeout_cmd} {cmd}"
    if not sc.ns:
        return ["/bin/sh", "-c", f"exec {cmd}"]
    # private mount namespace: the machine's own /dev/shm, disks and libraries stay untouched
    lines = ["set -e", f"mkdir -p {SCRATCH}/ns"]
    ns = sc.ns
    if "shm" in ns:
        lines.append(f"mount -t tmpfs -o size={ns['shm']},mode=1777 shm /dev/shm")
    for mnt, size in ns.get("tmpfs", {}).items():
        lines.append(f"mkdir -p {mnt}")
        lines.append(f"mount -t tmpfs -o size={size} disk {mnt}")
    if "hide" in ns:
        libdir = "/usr/lib/x86_64-linux-gnu"
        lines += [f"mount -t tmpfs ovl {SCRATCH}/ns", f"mkdir -p {SCRATCH}/ns/u {SCRATCH}/ns/w"]
        lines += [f"mknod {SCRATCH}/ns/u/{lib} c 0 0" for lib in ns["hide"]]
        lines.append(f"mount -t overlay overlay -o lowerdir={libdir},upperdir={SCRATCH}/ns/u,"
                     f"workdir={SCRATCH}/ns/w {libdir}")
    lines += ["set +e", "cd /workspace", f"exec {cmd}"]
    script = SCRATCH / "ns" / f"{sc.name}__{sc.variant}.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("\n".join(lines) + "\n")
    return ["unshare", "-m", "--propagation", "private", "/bin/sh", str(script)]


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def capture(sc: Scenario, out_root: Path) -> dict:
    ensure_venv(sc.venv)
    env = container_env(sc)
    prepare_workspace(sc)
    run_setup(sc, env)
    cgroup = memory_cgroup(sc) if sc.memory_cap else None
    cmd = build_command(sc, cgroup)
    log_path = out_root / "files" / sc.name / f"{sc.variant}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = now_iso()
    t0 = time.time()
    with open(log_path, "wb") as f:
        try:
            r = subprocess.run(cmd, cwd=WORKSPACE, env=env, stdout=f, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=sc.timeout, start_new_session=True)
            rc = r.returncode
        except subprocess.TimeoutExpired:
            rc = -9
    finished = now_iso()
    exit_code = 128 - rc if rc < 0 else rc  # docker's convention for a signal death
    killed = False
    if cgroup is not None:
        killed = oom_killed(cgroup)
        for _ in range(50):  # the killed job's pids leave the cgroup asynchronously
            try:
                cgroup.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    version = VENVS[sc.venv]["paddle_version"]
    image = sc.image or VENVS[sc.venv]["image"]
    meta = {
        "image": image,
        "image_tag": image.split(":", 1)[1] if ":" in image else "latest",
        "exit_code": exit_code,
        "oom_killed": killed,
        "name": f"{sc.name}/{sc.variant}",
        "labels": {"scenario": sc.name, "variant": sc.variant, "paddle_version": version,
                   "venv": sc.venv, "captured": "true"},
        "started_at": started,
        "finished_at": finished,
    }
    (log_path.parent / f"{sc.variant}.log.meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    text = log_path.read_text(errors="replace")
    # a venv made from a pyenv interpreter (Paddle 1.x, Paddle-Lite) shows its stdlib there, as a
    # user's pyenv install does: that path is the environment, not the build machine
    allowed = ("/root/.pyenv",) if VENVS[sc.venv].get("python") else ()
    leaks = [m for m in LEAK_MARKERS if m in text and m not in allowed]
    if WORKSPACE.exists():
        shutil.rmtree(WORKSPACE, ignore_errors=True)
    return {"exit_code": exit_code, "seconds": round(time.time() - t0, 1), "bytes": len(text),
            "leaks": leaks, "path": log_path}


def csv_row(sc: Scenario) -> dict:
    version = VENVS[sc.venv]["paddle_version"]
    return {"run_id": f"capture01/files/{sc.name}/{sc.variant}.log", "category": sc.category,
            "source": "captured", "scenario": sc.name,
            "note": f"paddle {version} ({sc.venv}): {sc.note}"}


def write_csv(csv_path: Path, out_root: Path) -> int:
    rows = []
    for sc in SCENARIOS:
        if (out_root / "files" / sc.name / f"{sc.variant}.log").exists():
            rows.append(csv_row(sc))
    rows.sort(key=lambda r: r["run_id"])
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["run_id", "category", "source", "scenario", "note"])
        w.writeheader()
        w.writerows(rows)
    return len(rows)


def select(only: list[str] | None) -> list[Scenario]:
    if not only:
        return list(SCENARIOS)
    keys = set(only)
    return [sc for sc in SCENARIOS
            if sc.name in keys or sc.category in keys or f"{sc.name}/{sc.variant}" in keys]


def category_table(out_root: Path) -> str:
    """Markdown: captured runs per category, their scenarios (variants) and Paddle versions."""
    from collections import Counter, defaultdict
    by_cat = defaultdict(list)
    for sc in SCENARIOS:
        if (out_root / "files" / sc.name / f"{sc.variant}.log").exists():
            by_cat[sc.category].append(sc)
    lines = ["| category | runs | scenarios (variants) | Paddle versions |", "|---|---|---|---|"]
    for cat, scs in sorted(by_cat.items()):
        names = Counter(sc.name for sc in scs)
        versions = sorted({VENVS[sc.venv]["paddle_version"] + ("-gpu" if sc.venv.endswith("-gpu") else "") for sc in scs})
        lines.append(f"| `{cat}` | {len(scs)} | " + "; ".join(f"{n} ({c})" for n, c in names.items())
                     + " | " + ", ".join(versions) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="scenario names, categories or name/variant")
    ap.add_argument("--out", default=str(REPO / "data" / "raw" / "capture01"))
    ap.add_argument("--csv", default=str(REPO / "data" / "labeled" / "captured.csv"))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--setup-only", action="store_true", help="create the venvs and stop")
    ap.add_argument("--csv-only", action="store_true", help="only rewrite the labels CSV from the registry")
    ap.add_argument("--table", action="store_true", help="print README.md's table of captured runs per category")
    args = ap.parse_args(argv)

    if os.geteuid() != 0:
        print("capture.py needs root (mount namespaces for fault injection)", file=sys.stderr)
        return 2
    chosen = select(args.only)
    if args.table:
        print(category_table(Path(args.out)))
        return 0
    if args.csv_only:
        print(f"wrote {write_csv(Path(args.csv), Path(args.out))} rows to {args.csv}")
        return 0
    if args.list:
        for sc in chosen:
            print(f"{sc.category:28s} {sc.name}/{sc.variant:32s} {sc.venv}")
        return 0
    if args.only and not chosen:
        print(f"nothing matches {args.only}", file=sys.stderr)
        return 2
    for v in sorted({sc.venv for sc in chosen} | {s[0] for sc in chosen for s in sc.setup}):
        ensure_venv(v)
    if args.setup_only:
        return 0

    out_root = Path(args.out)
    if not args.only:  # full run: drop logs of variants no longer in the registry
        known = {(sc.name, sc.variant) for sc in SCENARIOS}
        for p in (out_root / "files").glob("*/*.log"):
            if (p.parent.name, p.stem) not in known:
                p.unlink()
                Path(str(p) + ".meta.json").unlink(missing_ok=True)
    failures = 0
    for sc in chosen:
        label = f"{sc.name}/{sc.variant}"
        try:
            res = capture(sc, out_root)
        except Exception as e:  # keep going: one broken scenario must not stop the batch
            failures += 1
            print(f"[FAIL] {label}: {e}", flush=True)
            continue
        leak = f"  LEAK {res['leaks']}" if res["leaks"] else ""
        print(f"[ok] {label:55s} exit={res['exit_code']:<4} {res['seconds']:6.1f}s {res['bytes']:7d}B "
              f"-> {sc.category}{leak}", flush=True)
    n = write_csv(Path(args.csv), out_root)
    print(f"wrote {n} rows to {args.csv}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
