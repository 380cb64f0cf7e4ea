"""The calibrated combination of rule and model, the open-set floor, and the calibration figures."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline import combine as C
from pipeline.evaluation import calibration, choose_floor, score
from pipeline.predict import combine
from pipeline.rules import RuleVerdict

CLASSES = ["code_error", "gpu_oom", "no_failure", "unknown"]


def _overconfident(n: int, seed: int = 0):
    """A model that puts 0.97 on its top class but is right only 60% of the time."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    top = np.where(rng.random(n) < 0.6, y, (y + 1) % 3)
    p = np.full((n, len(CLASSES)), 0.01)
    p[np.arange(n), top] = 0.97
    return p / p.sum(axis=1, keepdims=True), [CLASSES[i] for i in y], top


def test_fit_learns_a_temperature_that_makes_confidence_honest():
    p, y, _ = _overconfident(600)
    comb = C.fit(p, [None] * len(y), [None] * len(y), y, CLASSES)
    assert comb.alpha < 0.5   # softened: the raw 0.97 was far too sure
    conf = np.array([comb.proba(p[i], None, None).max() for i in range(len(y))])
    assert abs(conf.mean() - 0.6) < 0.08


def test_fit_learns_to_trust_a_reliable_rule_band_over_a_wrong_model():
    rng = np.random.default_rng(1)
    n = 400
    y = rng.integers(0, 3, n)
    p = np.full((n, len(CLASSES)), 0.05)
    p[np.arange(n), (y + 1) % 3] = 0.85          # the model is confidently wrong
    p /= p.sum(axis=1, keepdims=True)
    cats = [CLASSES[i] for i in y]
    comb = C.fit(p, cats, [10] * n, cats, CLASSES)  # a definitive-band rule that is always right
    assert comb.beta[C.band_of(10)] > 3
    assert comb.proba(p[0], cats[0], 10).argmax() == y[0]
    assert comb.proba(p[0], None, None).argmax() == (y[0] + 1) % 3   # without the rule, the model's view


def test_combined_verdict_below_the_floor_is_unknown_with_alternatives():
    comb = C.Combiner(CLASSES, floor=0.5)
    unsure = np.array([0.4, 0.35, 0.15, 0.1])
    v = combine(None, CLASSES, unsure, "combined", comb)
    assert v.category == "unknown" and [a["category"] for a in v.alternatives][:2] == ["code_error", "gpu_oom"]
    sure = np.array([0.05, 0.9, 0.03, 0.02])
    v = combine(RuleVerdict("gpu_oom", "gpu_out_of_memory", 20), CLASSES, sure, "combined", comb)
    assert (v.category, v.source, v.rule_id) == ("gpu_oom", "hybrid", "gpu_out_of_memory")
    assert v.confidence == pytest.approx(0.9)


def test_a_run_known_to_have_failed_is_never_called_healthy():
    comb = C.Combiner(CLASSES)
    reads_healthy = np.array([0.2, 0.1, 0.65, 0.05])
    assert combine(None, CLASSES, reads_healthy, "combined", comb).category == "no_failure"
    v = combine(None, CLASSES, reads_healthy, "combined", comb, known_failed=True)
    assert v.category == "unknown" and v.rule_id is None
    assert [a["category"] for a in v.alternatives] == ["code_error", "gpu_oom"]
    assert v.confidence == pytest.approx(0.2)
    # a failure verdict stands as it is
    fails = np.array([0.7, 0.1, 0.15, 0.05])
    assert combine(None, CLASSES, fails, "combined", comb, known_failed=True).category == "code_error"


def test_a_run_that_exited_0_after_going_on_from_its_error_is_not_blamed_on_the_environment():
    """Exit status 0 and work after the last error (a caught OOM, a retried batch, an eval batch halved): with
    no rule against it, the environment causes and code_error are taken out of the model's probabilities, the
    rest renormalised."""
    comb = C.Combiner(CLASSES)
    reads_oom = np.array([0.02, 0.9, 0.06, 0.02])
    assert combine(None, CLASSES, reads_oom, "combined", comb).category == "gpu_oom"
    v = combine(None, CLASSES, reads_oom, "combined", comb, exited_clean=True)
    assert v.category == "no_failure" and v.confidence == pytest.approx(0.06 / 0.08)
    assert [a["category"] for a in v.alternatives][:2] == ["no_failure", "unknown"]
    reads_bug = np.array([0.8, 0.05, 0.1, 0.05])
    assert combine(None, CLASSES, reads_bug, "combined", comb).category == "code_error"
    assert combine(None, CLASSES, reads_bug, "combined", comb, exited_clean=True).category == "no_failure"
    # a rule that held against the run wins as before: the conditioning is the model's alone
    rule = RuleVerdict("gpu_oom", "gpu_out_of_memory", 20)
    assert combine(rule, CLASSES, reads_oom, "combined", comb, exited_clean=True).category == "gpu_oom"
    # a run with no exit status whose last lines say it did its work after its last error: the same
    assert combine(None, CLASSES, reads_oom, "combined", comb, ended_well=True).category == "no_failure"
    assert combine(rule, CLASSES, reads_oom, "combined", comb, ended_well=True).category == "gpu_oom"


def test_rules_only_says_unknown_for_a_failed_run_no_rule_explains():
    assert combine(None, None, None, "rules_only", failed=True).category == "unknown"
    assert combine(None, None, None, "rules_only", failed=False).category == "no_failure"


def test_combiner_round_trips_through_the_model_metadata():
    comb = C.Combiner(CLASSES, alpha=0.7, beta=[4.0, 3.0, 2.0, 1.0, 0.5], floor=0.3)
    again = C.Combiner.from_dict(CLASSES, comb.to_dict())
    p = np.array([0.3, 0.3, 0.2, 0.2])
    np.testing.assert_allclose(again.proba(p, "gpu_oom", 40), comb.proba(p, "gpu_oom", 40))
    assert C.Combiner.from_dict(CLASSES, None).floor == 0.0


def test_calibration_table_ece_and_high_confidence_accuracy():
    conf = np.array([0.95, 0.95, 0.95, 0.95, 0.55, 0.55, 0.55, 0.55])
    right = np.array([1, 1, 1, 0, 1, 0, 1, 0], dtype=bool)
    cal = calibration(conf, right)
    assert cal["accuracy_at_0.8"] == 0.75 and cal["coverage_at_0.8"] == 0.5
    assert cal["ece"] == pytest.approx(0.5 * 0.2 + 0.5 * 0.05)
    assert [b["n"] for b in cal["reliability"]] == [4, 4]


def test_floor_trades_wrong_answers_for_unknown():
    proba = np.array([[0.9, 0.05, 0.05, 0.0]] * 8 + [[0.3, 0.25, 0.25, 0.2]] * 4)
    y = np.array(["code_error"] * 8 + ["gpu_oom"] * 4)   # the unsure ones are all wrong
    assert choose_floor(proba, CLASSES, y, wrong_cost=0.5) == pytest.approx(0.35)
    assert choose_floor(proba, CLASSES, y, wrong_cost=0.0) == 0.0


def test_score_counts_job_errors_blamed_on_the_environment():
    y = np.array(["code_error", "code_error", "no_failure", "gpu_oom"])
    pred = np.array(["gpu_oom", "code_error", "unknown", "gpu_oom"])
    s = score(y, pred)
    assert s["non_environment_blamed_on_environment"] == pytest.approx(1 / 3, abs=1e-4)
    assert s["accuracy"] == 0.5 and s["wrong_share_by_predicted"] == {"gpu_oom": 0.5, "unknown": 0.5}


def test_floor_prefers_answering_where_the_utility_is_flat():
    # two answers at 0.3: one right, one wrong; with wrong_cost 1 abstaining gains nothing
    proba = np.array([[0.9, 0.05, 0.05, 0.0]] * 200 + [[0.3, 0.25, 0.25, 0.2]] * 2)
    y = np.array(["code_error"] * 200 + ["code_error", "gpu_oom"])
    assert choose_floor(proba, CLASSES, y, wrong_cost=1.0) == 0.0
    assert choose_floor(proba, CLASSES, y, wrong_cost=1.0, tolerance=0.0) == 0.0


def test_where_no_rule_fires_the_text_expert_decides_with_its_own_temperature():
    p_text, y, _ = _overconfident(400, seed=2)   # right 60% of the time at 0.97: it must be cooled down
    alpha, bias = C.fit_text(p_text, y, CLASSES, ["code_error", "no_failure"])
    assert alpha < 0.8 and set(bias) == {"code_error", "no_failure"}
    comb = C.Combiner(CLASSES, alpha=1.0, alpha_text=alpha, text_bias=bias)
    p_rules = np.array([0.05, 0.9, 0.03, 0.02])
    text = p_text[0] if p_text[0].argmax() != 1 else p_text[1]   # a text expert that disagrees with the model
    no_rule = comb.proba(p_rules, None, None, text)
    assert no_rule.argmax() == text.argmax() and no_rule.max() < 0.9   # cooled, not overturned
    np.testing.assert_allclose(comb.proba(p_rules, "gpu_oom", 20, text), comb.proba(p_rules, "gpu_oom", 20))
    # without a text expert (a model exported before it) the model with rule tokens decides as before
    np.testing.assert_allclose(C.Combiner(CLASSES).proba(p_rules, None, None, text), p_rules, atol=1e-6)
    again = C.Combiner.from_dict(CLASSES, comb.to_dict())
    assert again.alpha_text == comb.alpha_text and C.Combiner.from_dict(CLASSES, {}).alpha_text is None
    np.testing.assert_allclose(again.proba(p_rules, None, None, text), no_rule)
    v = combine(None, CLASSES, p_rules, "combined", comb, proba_text=text)
    assert v.category == CLASSES[int(no_rule.argmax())] and v.model_category == CLASSES[int(text.argmax())]


def test_the_text_expert_learns_how_much_no_rule_means_no_environment_fault():
    """Where the no-rule rows are mostly the job's own bugs that the text expert calls an
    environment fault, the lift of the non-environment classes comes out positive, and it moves
    such a verdict; where they are not, it stays near zero."""
    rng = np.random.default_rng(4)
    n = 600
    p = np.full((n, len(CLASSES)), 0.05)
    y_env = rng.random(n) < 0.3
    p[:, 1] = 0.6                                  # the text expert always leans to gpu_oom
    p[:, 0] = 0.3
    p /= p.sum(axis=1, keepdims=True)
    y = ["gpu_oom" if e else "code_error" for e in y_env]
    _, bias = C.fit_text(p, y, CLASSES, ["code_error", "no_failure", "unknown"])
    assert bias["code_error"] > 0.5
    comb = C.Combiner(CLASSES, alpha_text=1.0, text_bias=bias)
    assert CLASSES[int(comb.proba(p[0], None, None, p[0]).argmax())] == "code_error"
    _, neutral = C.fit_text(p, ["gpu_oom" if rng.random() < 0.6 else "code_error" for _ in range(n)], CLASSES,
                            ["code_error", "no_failure", "unknown"])
    assert abs(neutral["code_error"]) < abs(bias["code_error"])
