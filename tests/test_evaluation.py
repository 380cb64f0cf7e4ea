"""The evaluation's folds: grouped, complete, and per source (a simulated relabel leaves real folds alone)."""
import numpy as np
import pandas as pd

from pipeline.evaluation import grouped_splits


def _labels(n_real=40, n_sim=60, seed=0):
    r = np.random.default_rng(seed)
    cats = ["gpu_oom", "shm_exhausted", "code_error", "no_failure"]
    rows = []
    for i in range(n_real):   # two renderings per thread
        rows.append(("real", f"thread:{i // 2}", cats[(i // 2) % 4]))
    for i in range(n_sim):
        rows.append(("simulated", f"host:h{i % 12}", cats[int(r.integers(4))]))
    return pd.DataFrame(rows, columns=["source", "group", "category"])


def _test_fold_of(splits, n):
    fold = np.full(n, -1)
    for k, (_, test) in enumerate(splits):
        assert (fold[test] == -1).all()          # a row is tested once
        fold[test] = k
    return fold


def test_every_pooled_row_is_tested_once_and_groups_stay_whole():
    labels = _labels()
    pool = np.ones(len(labels), dtype=bool)
    pool[-5:] = False                             # a set-aside part is never in a fold
    splits = grouped_splits(labels, labels["category"].to_numpy(), pool, 4, seed=0)
    fold = _test_fold_of(splits, len(labels))
    assert (fold[pool] >= 0).all() and (fold[~pool] == -1).all()
    for train, test in splits:
        assert not set(train) & set(test)
        assert set(train) | set(test) == set(np.flatnonzero(pool))
    for _, rows in labels[pool].groupby("group"):
        assert len(set(fold[rows.index])) == 1    # a thread / host never spans two folds


def test_relabeling_a_simulated_run_leaves_the_real_folds_unchanged():
    labels = _labels()
    pool = np.ones(len(labels), dtype=bool)
    y = labels["category"].to_numpy().copy()
    before = _test_fold_of(grouped_splits(labels, y, pool, 4, seed=0), len(labels))
    sim = np.flatnonzero(labels["source"].to_numpy() == "simulated")
    y[sim[:6]] = "unknown"
    after = _test_fold_of(grouped_splits(labels, y, pool, 4, seed=0), len(labels))
    real = labels["source"].to_numpy() == "real"
    assert (before[real] == after[real]).all()
    assert set(before[real]) == {0, 1, 2, 3}      # and the real cases are spread over every fold


def test_unseen_rules_takes_away_the_rules_no_training_thread_supports():
    """A held-out real case keeps only the rules that also fire on some real thread it is not in;
    the next rule that fired wins; simulated runs and unchanged verdicts are left alone."""
    from pipeline.evaluation import unseen_rules
    from pipeline.model import Dataset
    from pipeline.rules import RuleVerdict

    def v(*hits):
        cats = {"shared": "gpu_oom", "own": "host_oom", "other": "code_error"}
        return RuleVerdict(cats[hits[0]], hits[0], 10, [{"line": 1, "text": "x", "rule": h} for h in hits],
                           list(hits), [cats[h] for h in hits])

    labels = pd.DataFrame({"source": ["real", "real", "real", "real", "simulated"],
                           "category": ["gpu_oom", "host_oom", "gpu_oom", "code_error", "host_oom"]})
    verdicts = [v("shared"), v("own", "shared"), v("own"), v("shared"), v("own")]
    ds = Dataset(labels, [None] * 5, verdicts, np.ones(5, dtype=bool), {"shared": 20, "own": 5, "other": 30})
    # rows 0 and 4 train (4 is simulated: its rules do not count as support); 1, 2, 3 are held out
    out = unseen_rules(ds, np.array([0, 4]), np.array([1, 2, 3]))
    assert set(out) == {1, 2}                     # row 3's rule is supported: unchanged
    assert out[1].rule_id == "shared" and out[1].category == "gpu_oom" and out[1].priority == 20
    assert out[1].hits == ["shared"] and [e["rule"] for e in out[1].evidence] == ["shared"]
    assert out[2] is None                         # no rule left: as if no rule had fired


def test_cross_fitted_verdicts_condition_on_a_good_end_only_where_no_rule_held():
    """In the cross-fitted combined verdicts the rule is already inside the probabilities (combine sees no
    verdict): a run whose last lines say it ended well is taken as healthy only where no rule held, as
    `logml predict` does; a rule's verdict against it stands."""
    from pipeline.evaluation import Probas, verdicts
    from pipeline.features import run_features
    from pipeline.model import Dataset
    from pipeline.rules import RuleVerdict, events_from_lines

    lines = ["ResourceExhaustedError: Out of memory error on GPU 0.", "retrying with batch 8",
             "epoch 3 done, acc 0.91", "training finished"]
    feats = run_features(events_from_lines(lines))
    assert feats.ended_well and not feats.exited_clean
    classes = ["gpu_oom", "no_failure", "unknown"]
    combined = np.array([[0.8, 0.15, 0.05], [0.8, 0.15, 0.05]])
    ds = Dataset(pd.DataFrame({"category": ["no_failure", "gpu_oom"]}), [feats, feats],
                 [None, RuleVerdict("gpu_oom", "gpu_out_of_memory", 20)], np.array([False, False]))
    probas = Probas(classes, combined, combined)
    out = verdicts(ds, np.arange(2), probas, combined=combined)["combined"]
    assert out[0].category == "no_failure"
    assert out[1].category == "gpu_oom"
