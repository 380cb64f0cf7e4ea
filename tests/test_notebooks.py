"""The notebooks: committed without outputs, and they run top to bottom against the sample warehouse."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
RUNNER = ROOT / "scripts" / "run_notebooks.py"
EXPECTED = {"01-fleet-exploration.ipynb", "02-model-error-analysis.ipynb"}


def test_notebooks_exist():
    assert EXPECTED <= {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{path.name}: outputs in cells {dirty}; run `python scripts/run_notebooks.py --strip`"
    assert not any(c.metadata.get("execution") for c in nb.cells)


def test_runner_check_mode():
    proc = subprocess.run([sys.executable, str(RUNNER), "--check"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _sample_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """Private copies of the sample warehouse and the shipped model: the test neither holds a lock on the
    real warehouse (a concurrent nightly may write it) nor breaks when `dvc repro` rewrites the model."""
    db = ROOT / "data" / "logml.duckdb"
    models = ROOT / "pipeline" / "models"
    if not db.is_file() or not (models / "model.json").is_file() or not (models / "metrics.json").is_file():
        pytest.skip("no sample warehouse or trained model: run `make demo` first")
    db_copy = tmp_path / "logml.duckdb"
    shutil.copy2(db, db_copy)
    wal = Path(f"{db}.wal")
    if wal.is_file():
        shutil.copy2(wal, Path(f"{db_copy}.wal"))
    models_copy = tmp_path / "models"
    shutil.copytree(models, models_copy)
    return db_copy, models_copy


def test_notebooks_execute_against_sample_warehouse(tmp_path):
    db, models = _sample_inputs(tmp_path)
    out = tmp_path / "executed"
    env = {**os.environ, "LOGML_DB": str(db), "LOGML_MODELS": str(models), "MPLBACKEND": "agg"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(RUNNER), "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr[-5000:]
    assert elapsed < 120, f"notebooks took {elapsed:.0f} s"

    for src in NOTEBOOKS:
        executed = nbformat.read(out / src.name, as_version=4)
        code = [c for c in executed.cells if c.cell_type == "code"]
        assert all(c.execution_count for c in code), f"{src.name}: not every cell ran"
        errors = [o for c in code for o in c.outputs if o.output_type == "error"]
        assert not errors, errors
        images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
        assert images, f"{src.name}: no chart rendered"
        # the executed copy went to --out; the committed notebook is untouched
        assert not any(c.outputs for c in nbformat.read(src, as_version=4).cells if c.cell_type == "code")

    # --strip turns an executed copy back into the committed form
    strip = subprocess.run([sys.executable, str(RUNNER), "--strip", *map(str, sorted(out.glob("*.ipynb")))],
                           cwd=ROOT, capture_output=True, text=True)
    assert strip.returncode == 0, strip.stdout + strip.stderr
    for src in NOTEBOOKS:
        stripped = nbformat.read(out / src.name, as_version=4)
        committed = nbformat.read(src, as_version=4)
        assert [c.source for c in stripped.cells] == [c.source for c in committed.cells]
        assert not any(c.get("outputs") or c.get("execution_count") for c in stripped.cells if c.cell_type == "code")
