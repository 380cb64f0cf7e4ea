"""How well the diagnosis holds, measured the way it will be judged: on real cases it never saw.

The labeled runs come from four sources: real cases from issue threads (rendered by
``pipeline.realcases``; a fixed quarter of the threads is the set-aside test), the genuine captured
runs, logs written by agents that never saw the project (data/labeled/written), and the simulated
fleet. ``run_protocol`` measures, each for rules-only, model-only and the combined verdict:

  real_cv        grouped CV on the real cases outside the test (folds by thread), scoring the plain
                 paste (rendering variant 0); the model trains on every other source in each fold
  real_cv_unseen_rules  the same rows with the rules as if written without them (``unseen_rules``):
                 the rules were written from these threads, so real_cv flatters them
  real_test      the set-aside real threads, with a model trained on everything else
  simulated_cv   the same CV, scored on the simulated runs (folds by host)
  captured_cv    the same CV, scored on the genuine captured runs (folds by scenario)
  written_cv     the same CV, scored on the written logs (folds by log)
  sim_to_real    trained on simulated runs only, scored on every real case: the simulator's gap
  captured_transfer  trained on everything but the captured runs, scored on them

and, for the combined verdict, calibration: a reliability table, the expected calibration error,
accuracy at confidence >= 0.8 with its coverage, the share of wrong answers per predicted class.
The combiner (``pipeline.combine``) is fitted on out-of-fold predictions and cross-fitted by fold, so
the real-CV figures never score a fold with a calibration that saw it; the open-set floor is chosen
on the real CV, never on the test.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pipeline import combine as C
from pipeline.model import Dataset, ModelParams, fit_pipeline, frame, sample_weights
from pipeline.predict import CONFIDENT, MODES, Verdict, combine
from pipeline.rules import RuleVerdict
from pipeline.taxonomy import UNKNOWN, load_taxonomy

HIGH = CONFIDENT
# how much each kind of out-of-fold row counts when the combiner is fitted (shares of the total):
# real pastes are what the calibration must hold on
CALIBRATION_SHARES = {"real_v0": 1.0, "real_rendered": 0.5, "captured": 0.3, "written": 0.3, "simulated": 0.3}
# the schemes of the report, in the order they are printed and logged
SCHEMES = ("real_cv", "real_cv_unseen_rules", "real_test", "simulated_cv", "captured_cv", "written_cv", "sim_to_real",
           "captured_transfer")
FLOORS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


@dataclass
class Probas:
    classes: list[str]
    rules: np.ndarray         # model with rule features
    no_rules: np.ndarray      # model without them (model-only)


def _aligned(pipe, X, classes: list[str]) -> np.ndarray:
    proba = pipe.predict_proba(X)
    out = np.zeros((len(X), len(classes)))
    for j, c in enumerate(pipe.named_steps["clf"].classes_):
        out[:, classes.index(c)] = proba[:, j]
    return out


def _fit_predict(ds: Dataset, p: ModelParams, train_idx: np.ndarray, test_idx: np.ndarray, classes: list[str],
                 use_rules: bool, also: pd.DataFrame | None = None):
    """Probabilities on the test rows of a pipeline fitted on the train rows (and, given ``also``,
    on those rows as ``also`` has them: the unseen-rules regime)."""
    X = frame(ds.features)
    labels = ds.labels.iloc[train_idx]
    pipe = fit_pipeline(p.expert(use_rules), X.iloc[train_idx],
                        ds.y[train_idx], sample_weights(labels, p))
    if also is not None:
        return _aligned(pipe, X.iloc[test_idx], classes), _aligned(pipe, also, classes)
    return _aligned(pipe, X.iloc[test_idx], classes)


def unseen_rules(ds: Dataset, train_idx: np.ndarray, test_idx: np.ndarray) -> dict[int, RuleVerdict | None]:
    """The held-out real cases' rule verdicts as if the rules had been written without them.

    Rules were written while reading the dev threads, so on a held-out dev thread they fire more
    often (and more rightly) than they will on a thread nobody read. A rule that fires on a held-out
    thread but on no real thread of the training folds stands for one written from that thread: it
    is taken away (the next rule that fired wins), and so are its tokens in the model's input."""
    real = (ds.labels["source"] == "real").to_numpy()
    supported = {h for i in train_idx if real[i] and ds.verdicts[i] is not None for h in ds.verdicts[i].hits}
    out: dict[int, RuleVerdict | None] = {}
    for i in test_idx:
        v = ds.verdicts[i]
        if not real[i] or v is None:
            continue
        prios = v.hit_priorities or [ds.rule_priorities.get(h, v.priority) for h in v.hits]
        keep = [(h, c, p) for h, c, p in zip(v.hits, v.hit_categories, prios) if h in supported]
        if len(keep) == len(v.hits):
            continue
        out[i] = None if not keep else RuleVerdict(
            category=keep[0][1], rule_id=keep[0][0], priority=keep[0][2],
            evidence=[e for e in v.evidence if e.get("rule") in supported],
            hits=[h for h, _, _ in keep], hit_categories=[c for _, c, _ in keep],
            hit_priorities=[p for _, _, p in keep])
    return out


def fit_predict(ds: Dataset, p: ModelParams, train: np.ndarray, test: np.ndarray, classes: list[str]) -> Probas:
    from joblib import Parallel, delayed
    tr, te = np.flatnonzero(train), np.flatnonzero(test)
    both = Parallel(n_jobs=p.n_jobs)(delayed(_fit_predict)(ds, p, tr, te, classes, r) for r in (True, False))
    return Probas(classes, both[0], both[1])


def grouped_splits(labels: pd.DataFrame, y: np.ndarray, pool: np.ndarray, n_splits: int, seed: int):
    """(train, test) row positions over the pool: folds grouped by thread / host / scenario and
    stratified by label, drawn per source; fold k of every source is tested together. So a relabeled
    simulated run cannot reshuffle the real cases' folds (that alone once moved real CV by 2 points)."""
    import warnings

    from sklearn.model_selection import StratifiedGroupKFold
    idx = np.flatnonzero(pool)
    groups = labels["group"].to_numpy()
    sources = labels["source"].to_numpy()
    n_splits = max(2, min(n_splits, len(set(groups[idx]))))
    held: list[list[np.ndarray]] = [[] for _ in range(n_splits)]
    for source in sorted(set(sources[idx])):
        part = idx[sources[idx] == source]
        k = min(n_splits, len(set(groups[part])))
        if k < 2:   # one group only: it is tested in the first fold, trained on in the others
            held[0].append(part)
            continue
        splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rare classes missing from some folds are expected
            for fold, (_, b) in enumerate(splitter.split(part, y[part], groups[part])):
                held[fold].append(part[b])
    tests = [np.sort(np.concatenate(h)) for h in held if h]
    return [(np.setdiff1d(idx, t, assume_unique=True), t) for t in tests]


def cross_validate(ds: Dataset, p: ModelParams, pool: np.ndarray, n_splits: int, seed: int):
    """Out-of-fold probabilities over the pool under a split grouped by thread / host / scenario, and
    the same in the unseen-rules regime (``unseen_rules``): (probas, folds, unseen dataset, its probas)."""
    from joblib import Parallel, delayed
    classes = sorted(set(ds.y))
    splits = grouped_splits(ds.labels, ds.y, pool, n_splits, seed)
    X = frame(ds.features)
    unseen_verdicts = list(ds.verdicts)
    also = []
    for tr, te in splits:
        changed = unseen_rules(ds, tr, te)
        for i, v in changed.items():
            unseen_verdicts[i] = v
        Xa = X.iloc[te].copy()
        Xa["rules"] = [(" ".join(changed[i].tokens()) if changed[i] else "") if i in changed else r
                       for i, r in zip(te, Xa["rules"])]
        also.append(Xa)
    tasks = [(k, r) for k in range(len(splits)) for r in (True, False)]
    fitted = Parallel(n_jobs=p.n_jobs)(delayed(_fit_predict)(ds, p, splits[k][0], splits[k][1], classes, r,
                                                             also[k] if r else None) for k, r in tasks)
    shape = (len(ds.y), len(classes))
    probas = Probas(classes, np.zeros(shape), np.zeros(shape))
    unseen = Probas(classes, np.zeros(shape), probas.no_rules)   # the text expert never saw rules
    folds = np.full(len(ds.y), -1)
    for (k, r), proba in zip(tasks, fitted):
        te = splits[k][1]
        folds[te] = k
        if r:
            probas.rules[te], unseen.rules[te] = proba
        else:
            probas.no_rules[te] = proba
    return probas, folds, replace(ds, verdicts=unseen_verdicts), unseen


# ----------------------------------------------------------------------------- combining


def _kind(ds: Dataset) -> np.ndarray:
    src = ds.labels["source"].to_numpy()
    v0 = (ds.labels["variant"] == "0").to_numpy()
    return np.where(src == "real", np.where(v0, "real_v0", "real_rendered"),
                    np.where(np.isin(src, ["captured", "written"]), src, "simulated"))


def _calibration_weights(kinds: np.ndarray, shares: dict[str, float] | None = None) -> np.ndarray:
    w = np.zeros(len(kinds))
    for kind, share in (shares or CALIBRATION_SHARES).items():
        m = kinds == kind
        if m.any():
            w[m] = share / m.sum()
    return w


def fit_combiner(ds: Dataset, probas: Probas, rows: np.ndarray, text_expert: bool = True,
                 shares: dict[str, float] | None = None) -> C.Combiner:
    """The combiner over the given out-of-fold rows; with ``text_expert``, the text expert's
    temperature from those of them no rule fired on (``shares``: CALIBRATION_SHARES changed)."""
    verdicts = [ds.verdicts[i] for i in rows]
    weights = _calibration_weights(_kind(ds)[rows], shares)
    comb = C.fit(probas.rules[rows], [v.category if v else None for v in verdicts],
                 [v.priority if v else None for v in verdicts], list(ds.y[rows]), probas.classes, weights)
    no_rule = np.array([v is None for v in verdicts], dtype=bool)
    if text_expert and no_rule.any():
        # re-weighted within the no-rule rows by the same shares: real pastes count most
        tax = load_taxonomy()
        comb.alpha_text, comb.text_bias = C.fit_text(
            probas.no_rules[rows[no_rule]], list(ds.y[rows[no_rule]]), probas.classes,
            [c for c in probas.classes if not tax.is_environment(c)], _calibration_weights(_kind(ds)[rows[no_rule]], shares))
    return comb


def cross_fitted_combined(ds: Dataset, probas: Probas, folds: np.ndarray, text_expert: bool = True,
                          scored: tuple[Dataset, Probas] | None = None,
                          shares: dict[str, float] | None = None) -> np.ndarray:
    """Combined probabilities per pooled row, each from a combiner fitted on the other folds
    (``scored``: the rows' verdicts and probabilities to combine, when not ``ds``'s and ``probas``)."""
    out = np.zeros_like(probas.rules)
    ds_s, probas_s = scored or (ds, probas)
    for k in sorted(set(folds[folds >= 0])):
        comb = fit_combiner(ds, probas, np.flatnonzero((folds >= 0) & (folds != k)), text_expert, shares)
        for i in np.flatnonzero(folds == k):
            v = ds_s.verdicts[i]
            out[i] = comb.proba(probas_s.rules[i], v.category if v else None, v.priority if v else None,
                                probas_s.no_rules[i])
    return out


def choose_floor(proba: np.ndarray, classes: list[str], y: np.ndarray, wrong_cost: float,
                 tolerance: float = 0.0) -> float:
    """The open-set floor: the lowest one whose utility (right answers - wrong_cost * wrong answers;
    an `unknown` scores 0) is within ``tolerance`` x n of the best; ties go to the lower floor, which
    answers more people for the same expected cost. A tolerance above 0 was tried: on the real dev
    CV it let the floor fall to 0 (never `unknown`) for one answer's worth of utility."""
    top = proba.argmax(axis=1)
    conf = proba.max(axis=1)
    right = np.array([classes[t] == c for t, c in zip(top, y)])

    def utility(floor: float) -> float:
        answered = conf >= floor
        return float((right & answered).sum() - wrong_cost * (~right & answered).sum())

    best = max(utility(f) for f in FLOORS)
    return min(f for f in FLOORS if utility(f) >= best - tolerance * len(y))


def verdicts(ds: Dataset, rows: np.ndarray, probas: Probas, combiner: C.Combiner | None = None,
             combined: np.ndarray | None = None) -> dict[str, list[Verdict]]:
    """Verdicts of every mode for the given rows (``combined``: precomputed combined probabilities,
    e.g. cross-fitted, used instead of ``combiner``)."""
    out: dict[str, list[Verdict]] = {m: [] for m in MODES}
    classes = probas.classes
    for i in rows:
        v, f = ds.verdicts[i], ds.features[i]
        foreign = f.foreign and v is None   # see predict.combine
        out["rules_only"].append(combine(v, None, None, "rules_only", failed=bool(ds.failed[i])))
        out["model_only"].append(combine(v, classes, probas.no_rules[i], "model_only"))
        if combined is not None:
            fixed = C.Combiner(classes, alpha=1.0, beta=[0.0] * len(C.BANDS), floor=combiner.floor if combiner else 0.0)
            # the rule is already in combined[i]: combine sees no verdict, so exited_clean and ended_well (which
            # condition the model's probabilities where no rule holds) are said for no-rule runs only
            out["combined"].append(combine(None, classes, combined[i], "combined", fixed, foreign=foreign,
                                           known_failed=f.known_failed, ended_well=f.ended_well and v is None,
                                           exited_clean=f.exited_clean and v is None))
        else:
            out["combined"].append(combine(v, classes, probas.rules[i], "combined", combiner, foreign=foreign,
                                           proba_text=probas.no_rules[i], known_failed=f.known_failed,
                                           ended_well=f.ended_well, exited_clean=f.exited_clean))
    return out


# ----------------------------------------------------------------------------- scoring


def calibration(conf: np.ndarray, correct: np.ndarray, bins: int = 10) -> dict:
    edges = np.linspace(0.0, 1.0, bins + 1)
    table, ece = [], 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf >= lo) & ((conf < hi) if hi < 1.0 else (conf <= hi))
        if not m.any():
            continue
        acc, mean = float(correct[m].mean()), float(conf[m].mean())
        table.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": int(m.sum()), "confidence": round(mean, 4),
                      "accuracy": round(acc, 4)})
        ece += m.mean() * abs(acc - mean)
    high = conf >= HIGH
    return {"ece": round(float(ece), 4), "reliability": table,
            "accuracy_at_0.8": round(float(correct[high].mean()), 4) if high.any() else None,
            "coverage_at_0.8": round(float(high.mean()), 4)}


def score(y: np.ndarray, pred: np.ndarray, difficulty: np.ndarray | None = None) -> dict:
    from sklearn.metrics import f1_score, precision_recall_fscore_support
    tax = load_taxonomy()
    labels = sorted(set(y) | set(pred))
    prec, rec, f1, support = precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    right = pred == y
    not_env = np.array([not tax.is_environment(c) for c in y])
    blamed = not_env & np.array([tax.is_environment(c) for c in pred])
    wrong = ~right
    out = {
        "n": int(len(y)), "accuracy": round(float(right.mean()), 4) if len(y) else None,
        "macro_f1": round(float(f1_score(y, pred, labels=sorted(set(y)), average="macro", zero_division=0)), 4),
        "per_class": {c: {"precision": round(float(pr), 4), "recall": round(float(r), 4), "f1": round(float(f), 4),
                          "support": int(s)} for c, pr, r, f, s in zip(labels, prec, rec, f1, support)},
        "non_environment_blamed_on_environment": round(float(blamed.sum() / not_env.sum()), 4) if not_env.any() else None,
        "wrong_share_by_predicted": {c: round(float((wrong & (pred == c)).sum() / wrong.sum()), 4)
                                     for c in sorted(set(pred[wrong]))} if wrong.any() else {},
        "unknown_rate": round(float((pred == UNKNOWN).mean()), 4),
    }
    if difficulty is not None and (difficulty == "hard").any():
        out["hard_accuracy"] = round(float(right[difficulty == "hard"].mean()), 4)
    return out


def summarize(ds: Dataset, rows: np.ndarray, by_mode: dict[str, list[Verdict]]) -> dict:
    y = ds.y[rows]
    diff = ds.labels["difficulty"].to_numpy()[rows]
    out = {}
    for mode, vs in by_mode.items():
        pred = np.array([v.category for v in vs])
        s = score(y, pred, diff if (diff != "").any() else None)
        s["calibration"] = calibration(np.array([v.confidence for v in vs]), pred == y)
        s["_y"], s["_pred"] = y.tolist(), pred.tolist()   # for the confusion matrix; not written out
        s["_conf"], s["_rule"] = [round(float(v.confidence), 4) for v in vs], [v.rule_id or "" for v in vs]
        s["_rows"] = rows.tolist()
        out[mode] = s
    return out


# the schemes whose rows the predictions table lists: never the set-aside test, whose threads stay unread
PREDICTION_SCHEMES = ("real_cv", "real_cv_unseen_rules", "captured_cv")


def predictions_table(ds: Dataset, report: dict) -> pd.DataFrame:
    """Per scored run of the out-of-fold schemes, the label and each mode's verdict and confidence:
    what changed between two trainings is a diff of this table, not a retrain per guess."""
    frames = []
    for scheme in PREDICTION_SCHEMES:
        by_mode = report.get(scheme)
        if not by_mode:
            continue
        rows = np.array(by_mode["combined"]["_rows"], dtype=int)
        labels = ds.labels.iloc[rows]
        frame = pd.DataFrame({"scheme": scheme, "run_id": labels["run_id"].to_numpy(),
                              "group": labels["group"].to_numpy(), "label": labels["category"].to_numpy(),
                              "difficulty": labels["difficulty"].to_numpy(),
                              "rule_id": by_mode["rules_only"]["_rule"]})
        for mode in MODES:
            frame[mode] = by_mode[mode]["_pred"]
            frame[f"{mode}_confidence"] = by_mode[mode]["_conf"]
        frames.append(frame)
    columns = ["scheme", "run_id", "group", "label", "difficulty", "rule_id",
               *[c for m in MODES for c in (m, f"{m}_confidence")]]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns].sort_values(["scheme", "run_id"], kind="stable")


def public(report):
    """The report without its private keys (the raw labels and predictions)."""
    if isinstance(report, dict):
        return {k: public(v) for k, v in report.items() if not str(k).startswith("_")}
    return report


def dev_cv(ds: Dataset, probas: Probas, folds: np.ndarray, ds_unseen: Dataset, probas_unseen: Probas,
           rows: np.ndarray, floor: float, text_expert: bool,
           shares: dict[str, float] | None = None) -> tuple[dict, dict]:
    """The real dev rows' summaries under one fold draw (``cross_validate``'s four results): (as the
    rules are, rules as if unseen)."""
    cross = C.Combiner(probas.classes, floor=floor)
    seen = cross_fitted_combined(ds, probas, folds, text_expert, shares=shares)
    unseen = cross_fitted_combined(ds, probas, folds, text_expert, scored=(ds_unseen, probas_unseen), shares=shares)
    return (summarize(ds, rows, verdicts(ds, rows, probas, cross, seen)),
            summarize(ds_unseen, rows, verdicts(ds_unseen, rows, probas_unseen, cross, unseen)))


def repeats_summary(draws: list[tuple[int, dict, dict]]) -> dict:
    """Per fold seed, the dev CV's headline figures, and their mean / min / max over the seeds."""
    figures = {"accuracy": lambda a, b: a["combined"]["accuracy"], "macro_f1": lambda a, b: a["combined"]["macro_f1"],
               "model_only_accuracy": lambda a, b: a["model_only"]["accuracy"],
               "unseen_rules_accuracy": lambda a, b: b["combined"]["accuracy"],
               "accuracy_at_0.8": lambda a, b: a["combined"]["calibration"]["accuracy_at_0.8"]}
    out: dict = {"seeds": [s for s, _, _ in draws]}
    for name, get in figures.items():
        values = [get(a, b) for _, a, b in draws]
        values = [v for v in values if v is not None]
        out[name] = values
        if values:
            out[f"{name}_mean"] = round(float(np.mean(values)), 4)
            out[f"{name}_range"] = [round(float(min(values)), 4), round(float(max(values)), 4)]
    return out


def run_protocol(ds: Dataset, p: ModelParams, n_splits: int, seed: int, wrong_cost: float = 0.5,
                 text_expert: bool = True, repeats: int = 1) -> tuple[dict, C.Combiner]:
    """Every evaluation above; returns (report, the combiner fitted on all out-of-fold rows).

    ``repeats`` > 1 draws the real dev CV again with fold seeds seed+1...: 221 threads in 4 folds move
    by a thread or two between draws, so one draw cannot tell a change from the luck of the folds
    (``real_cv_repeats``; the floor and the shipped combiner still come from the first draw)."""
    real, sim, cap, written = ds.mask("real"), ds.mask("simulated"), ds.mask("captured"), ds.mask("written")
    test = real & ds.mask(split="test")
    v0 = ds.mask(variant="0")
    pool = ~test
    probas, folds, ds_unseen, probas_unseen = cross_validate(ds, p, pool, n_splits, seed)
    classes = probas.classes
    crossfit = cross_fitted_combined(ds, probas, folds, text_expert)
    dev_rows = np.flatnonzero(real & ~test & v0)
    floor = choose_floor(crossfit[dev_rows], classes, ds.y[dev_rows], wrong_cost) if len(dev_rows) else 0.0
    combiner = fit_combiner(ds, probas, np.flatnonzero(pool), text_expert)
    combiner.floor = floor
    cross = C.Combiner(classes, floor=floor)   # carries the floor for the cross-fitted probabilities
    report: dict = {"classes": classes, "n_splits": int(folds.max() + 1), "combiner": combiner.to_dict(),
                    "wrong_cost": wrong_cost}
    for name, mask in (("real_cv", real & ~test & v0), ("simulated_cv", sim), ("captured_cv", cap),
                       ("written_cv", written)):
        rows = np.flatnonzero(mask)
        if len(rows):
            report[name] = summarize(ds, rows, verdicts(ds, rows, probas, cross, crossfit))
    if len(dev_rows):   # the same rows, the rules as if written without them (the shipped floor)
        unseen = cross_fitted_combined(ds, probas, folds, text_expert, scored=(ds_unseen, probas_unseen))
        report["real_cv_unseen_rules"] = summarize(ds_unseen, dev_rows,
                                                   verdicts(ds_unseen, dev_rows, probas_unseen, cross, unseen))
        draws = [(seed, report["real_cv"], report["real_cv_unseen_rules"])]
        for s in range(seed + 1, seed + max(1, repeats)):
            draws.append((s, *dev_cv(ds, *cross_validate(ds, p, pool, n_splits, s), dev_rows, floor, text_expert)))
        report["real_cv_repeats"] = repeats_summary(draws)
    schemes = (("real_test", pool, test & v0), ("sim_to_real", sim, real & v0),
               ("captured_transfer", ~cap & ~test, cap))
    for name, train, scored in schemes:
        if scored.any() and len(set(ds.y[train])) >= 2:
            fitted = fit_predict(ds, p, train, scored, classes)
            rows = np.flatnonzero(scored)
            full = Probas(classes, np.zeros((len(ds.y), len(classes))), np.zeros((len(ds.y), len(classes))))
            full.rules[rows], full.no_rules[rows] = fitted.rules, fitted.no_rules
            report[name] = summarize(ds, rows, verdicts(ds, rows, full, combiner))
    return report, combiner


def compact(by_mode: dict) -> dict:
    """Per mode, the accuracy family (and the calibration headline for the combined verdict)."""
    keys = ("accuracy", "macro_f1", "hard_accuracy", "non_environment_blamed_on_environment", "unknown_rate")
    out = {}
    for mode, s in by_mode.items():
        row = {k: s[k] for k in keys if s.get(k) is not None}
        if mode == "combined":
            cal = s["calibration"]
            row.update({"ece": cal["ece"], "accuracy_at_0.8": cal["accuracy_at_0.8"],
                        "coverage_at_0.8": cal["coverage_at_0.8"]})
        out[mode] = row
    return out


def headline(report: dict) -> dict:
    """The figures `dvc metrics show` prints, per scheme and mode."""
    out: dict = {scheme: compact(report[scheme]) for scheme in SCHEMES if scheme in report}
    out["floor"] = report["combiner"]["floor"]
    if "real_cv_repeats" in report:
        out["real_cv_repeats"] = {k: v for k, v in report["real_cv_repeats"].items()
                                  if k == "seeds" or k.endswith(("_mean", "_range"))}
    return out
