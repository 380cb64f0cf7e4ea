"""An installed logml diagnoses a log from any directory: the wheel carries the trained model."""
from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The project's wheel in a fresh virtualenv. Its dependencies come from this interpreter's
    site-packages (appended to sys.path by a .pth file): the test is about what the wheel ships,
    and installing scikit-learn or MLflow from the network would only make it slow."""
    if not (ROOT / "pipeline" / "models" / "model.json").exists():
        pytest.skip("no trained model in pipeline/models")
    base = tmp_path_factory.mktemp("install")
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "-w", str(wheels), str(ROOT)], check=True, cwd=base)
    wheel = next(wheels.glob("logml-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--quiet",
                    str(wheel)], check=True, cwd=base)
    return {"base": base, "wheel": wheel, "bin": venv / "bin", "purelib": Path(purelib)}


def test_the_wheel_ships_the_model_the_rules_and_the_taxonomy(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    assert {"pipeline/models/model.json", "pipeline/models/model.npz", "pipeline/models/templates.json",
            "pipeline/rules.yaml", "pipeline/taxonomy.yaml"} <= names


def test_installed_predict_works_from_any_directory(installed, tmp_path):
    log = tmp_path / "paste.log"
    log.write_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                   "    import cv2\nImportError: libGL.so.1: cannot open shared object file: No such file or directory\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {"PATH": str(installed["bin"]), "HOME": str(tmp_path)}
    out = subprocess.run([str(installed["bin"] / "logml"), "predict", "--json", str(log)], cwd=work, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["category"] == "system_lib_missing" and result["evidence"]
    # the code that ran is the installed copy, not this checkout
    where = subprocess.run([str(installed["bin"] / "python"), "-c", "import pipeline; print(pipeline.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True).stdout
    assert str(installed["purelib"]) in where and str(ROOT) not in where
    version = subprocess.run([str(installed["bin"] / "logml"), "--version"], cwd=work, env=env,
                             capture_output=True, text=True)
    shipped = json.loads((ROOT / "pipeline" / "models" / "model.json").read_text())["model_version"]
    assert version.returncode == 0 and "logml 0.1.0" in version.stdout and shipped in version.stdout
    assert "taxonomy 2026.12" in version.stdout


def test_models_can_be_overridden_by_flag_or_environment(installed, tmp_path):
    log = tmp_path / "x.log"
    log.write_text("KeyError: 'x'\n")
    env = {"PATH": str(installed["bin"]), "HOME": str(tmp_path), "LOGML_MODELS": str(tmp_path / "nowhere")}
    out = subprocess.run([str(installed["bin"] / "logml"), "predict", str(log)], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 2 and "nowhere" in out.stderr
    out = subprocess.run([str(installed["bin"] / "logml"), "predict", "--models", str(ROOT / "pipeline" / "models"),
                          "--json", str(log)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["path"] == str(log)
