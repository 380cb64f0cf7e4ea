"""scripts/oof.py: experiments on out-of-fold predictions reproduce what `logml train` reports."""
from __future__ import annotations

import importlib.util
import pickle

import pytest
from conftest import ROOT


def _oof_module():
    spec = importlib.util.spec_from_file_location("oof_script", ROOT / "scripts" / "oof.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dumped(trained, tmp_path_factory):
    oof = _oof_module()
    data = oof.dump(trained["db"], trained["labels"], trained["params"], draws=2, n_splits=3)
    path = tmp_path_factory.mktemp("oof") / "oof.pkl"
    path.write_bytes(pickle.dumps(data))
    return oof, path


def test_the_train_stage_inputs_are_read_from_dvc_yaml():
    db, labels = _oof_module().train_inputs()
    assert db == ROOT / "data" / "corpus" / "train.duckdb"
    assert ROOT / "data" / "labeled" / "written" / "labels.csv" in labels and len(labels) == 4


def test_refitting_the_combiner_from_the_dump_gives_the_trained_figures(trained, dumped):
    """The same folds, probabilities, combiner and floor as `logml train`: the same dev CV figures,
    draw by draw; a changed setting gives its own."""
    oof, path = dumped
    metrics = trained["metrics"]
    out = oof.combine(pickle.loads(path.read_bytes()), wrong_cost=trained["params"]["train"]["wrong_cost"])
    assert out["floor"] == metrics["combiner"]["floor"]
    seen, unseen = out["draws"][0]
    for mine, theirs in ((seen, metrics["real_cv"]), (unseen, metrics["real_cv_unseen_rules"])):
        for mode in ("combined", "rules_only", "model_only"):
            assert mine[mode]["accuracy"] == theirs[mode]["accuracy"]
            assert mine[mode]["macro_f1"] == theirs[mode]["macro_f1"]
        assert mine["combined"]["calibration"]["ece"] == theirs["combined"]["calibration"]["ece"]
    repeats = metrics["real_cv_repeats"]
    assert [out["draws"][s][0]["combined"]["accuracy"] for s in (0, 1)] == repeats["accuracy"][:2]
    # never answering unknown (wrong answers free) takes the floor to 0
    assert oof.combine(pickle.loads(path.read_bytes()), wrong_cost=0.0)["floor"] == 0.0


def test_the_text_model_refit_matches_the_trained_model_only_figure_and_moves_with_its_settings(trained, dumped):
    oof, path = dumped
    data = pickle.loads(path.read_bytes())
    same = oof.text(data, {})
    assert same["accuracy"] == trained["metrics"]["real_cv"]["model_only"]["accuracy"]
    starved = oof.text(data, {"C": 1e-4})   # all but no fit: it cannot tell the causes apart
    assert starved["accuracy"] < same["accuracy"]


def test_combining_with_a_refitted_text_expert_moves_only_the_runs_no_rule_fired_on(trained, dumped):
    """--text-set refits the text expert fold by fold: with its own settings the figures are those of the
    dump, a starved expert changes the combined verdicts but never the rules-only ones."""
    oof, path = dumped
    data = pickle.loads(path.read_bytes())
    wrong_cost = trained["params"]["train"]["wrong_cost"]
    base = oof.combine(data, wrong_cost=wrong_cost)["draws"][0][0]
    same = oof.combine(data, wrong_cost=wrong_cost, text_overrides={"text_use_context": True})["draws"][0][0]
    assert same["combined"]["accuracy"] == base["combined"]["accuracy"]
    starved = oof.combine(data, wrong_cost=wrong_cost, text_overrides={"C": 1e-4})["draws"][0][0]
    assert starved["model_only"]["accuracy"] < base["model_only"]["accuracy"]
    assert starved["rules_only"] == base["rules_only"]


def test_the_command_line_rejects_an_unknown_setting(dumped, capsys):
    oof, path = dumped
    with pytest.raises(SystemExit):
        oof.main(["text", str(path), "--set", "no_such_knob=1"])
    assert "not a ModelParams field" in capsys.readouterr().err
    oof.main(["combine", str(path), "--share", "written=0.6"])
    assert "draw 1  rules as if unseen: accuracy" in capsys.readouterr().out


def test_the_rule_table_counts_every_winning_rule_outside_the_test_once(dumped):
    oof, path = dumped
    data = pickle.loads(path.read_bytes())
    ds = data["ds"]
    table = oof.rule_table(data)
    fired = {src: 0 for src in table.columns if src != "wrong_on"}
    right = dict(fired)
    for src in fired:
        for cell in table[src]:
            if cell:
                r, n = map(int, cell.split("/"))
                right[src] += r
                fired[src] += n
    real, test, v0 = ds.mask("real"), ds.mask(split="test"), ds.mask(variant="0")
    src = ds.labels["source"].to_numpy()
    for s in fired:
        rows = [i for i, v in enumerate(ds.verdicts) if v is not None and src[i] == s
                and not (real[i] and (test[i] or not v0[i]))]
        assert fired[s] == len(rows) > 0
        assert right[s] == sum(ds.verdicts[i].category == ds.y[i] for i in rows)
    # a rule wrong on a real case names the label and the thread
    listed = " ".join(table["wrong_on"])
    wrong_real = [i for i in range(len(ds.y)) if real[i] and v0[i] and not test[i] and ds.verdicts[i] is not None
                  and ds.verdicts[i].category != ds.y[i]]
    for i in wrong_real[:3]:
        assert f"{ds.y[i]}:{ds.labels['run_id'].iat[i].split('/')[-2]}" in listed
