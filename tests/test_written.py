"""The written logs (data/labeled/written): a labeled source whose labels, files and weights hold together."""
from __future__ import annotations

import csv
import importlib.util

import pandas as pd
import pytest
from conftest import ROOT

from pipeline.model import ModelParams, group_of, sample_weights
from pipeline.taxonomy import load_taxonomy

WRITTEN = ROOT / "data" / "labeled" / "written"
# the sets kept aside as held-out probes: scored with a summary line only, never imported for training
HELD_OUT = ("probe20", "probe21", "probe26", "probe30", "probe34", "probe36", "probe44")


def _script():
    spec = importlib.util.spec_from_file_location("import_written", ROOT / "scripts" / "import_written.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_written_log_has_one_label_of_the_taxonomy_and_every_label_a_log():
    rows = list(csv.DictReader(open(WRITTEN / "labels.csv", encoding="utf-8")))
    ids = set(load_taxonomy().ids)
    logs = {p.relative_to(WRITTEN / "logs").as_posix() for p in (WRITTEN / "logs").rglob("*.log")}
    assert len(rows) >= 500 and len({r["run_id"] for r in rows}) == len(rows)
    assert {r["run_id"] for r in rows} == logs
    assert {r["category"] for r in rows} <= ids and {r["source"] for r in rows} == {"written"}
    assert {r["difficulty"] for r in rows} == {"easy", "hard"}
    # every category is taught by several authors' logs, the job's own errors and healthy runs most
    per = pd.Series([r["category"] for r in rows]).value_counts()
    assert per.min() >= 10 and per["code_error"] >= 50 and per["no_failure"] >= 50


def test_the_held_out_probe_sets_are_never_imported():
    present = {p.name for p in WRITTEN.iterdir() if p.is_dir()} | {p.name for p in (WRITTEN / "logs").iterdir()}
    assert not present & set(HELD_OUT)
    assert not any(r["scenario"].split("/")[0] in HELD_OUT
                   for r in csv.DictReader(open(WRITTEN / "labels.csv", encoding="utf-8")))


def test_import_keeps_the_authors_difficulty_and_reason_and_refuses_a_label_outside_the_taxonomy(tmp_path):
    script = _script()
    src = tmp_path / "probe99"
    src.mkdir()
    (src / "p99_01.log").write_text("Traceback (most recent call last):\nKeyError: 'lable'\n")
    (src / "p99_02.log").write_text("epoch 3 done, saved model to output/\n")
    (src / "labels.tsv").write_text("p99_01.log\tcode_error\np99_02.log\tno_failure\n")
    (src / "INDEX.md").write_text("| file | label | difficulty | why |\n|---|---|---|---|\n"
                                  "| p99_01.log | code_error | hard | the config's key is misspelt |\n"
                                  "| p99_02.log | no_failure | easy | training finished |\n")
    root = tmp_path / "written"
    ids = set(load_taxonomy().ids)
    assert script.import_set(src, ids, root) == 2 and script.write_labels(root) == 2
    rows = list(csv.DictReader(open(root / "labels.csv", encoding="utf-8")))
    assert rows[0]["run_id"] == "probe99/files/p99_01.log" and (root / "logs" / rows[0]["run_id"]).exists()
    assert (rows[0]["difficulty"], rows[0]["note"]) == ("hard", "the config's key is misspelt")
    assert rows[1]["category"] == "no_failure" and rows[1]["source"] == "written"
    (src / "labels.tsv").write_text("p99_01.log\tconfig_error\n")
    with pytest.raises(SystemExit, match="config_error"):
        script.import_set(src, ids, root)


def test_a_written_log_weighs_its_own_weight_and_is_a_group_of_its_own():
    labels = pd.DataFrame({"run_id": ["probe18/files/p18_01.log", "probe18/files/p18_02.log", "h01/docker/c1"],
                           "category": ["code_error"] * 3, "source": ["written", "written", "simulated"],
                           "scenario": ["probe18/p18_01", "probe18/p18_02", "code_error/x"]})
    w = sample_weights(labels, ModelParams(written_weight=1.0, simulated_weight=0.25))
    assert w[0] == pytest.approx(4 * w[2]) and w[0] == pytest.approx(w[1])
    groups = [group_of(r, s, sc) for r, s, sc in zip(labels["run_id"], labels["source"], labels["scenario"])]
    assert groups[0] != groups[1]     # one log per group, not one set per group (a "host" probe18)
