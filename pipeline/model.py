"""The root-cause classifier: a scikit-learn Pipeline over per-run features, and its lean export.

Training uses scikit-learn's estimator API (ColumnTransformer of TF-IDF n-grams and one-hot
tokens -> class-balanced LogisticRegression). `logml predict` must start in well under a second,
and importing scikit-learn alone costs more, so the fitted pipeline is exported to plain arrays
(vocabularies, idf, coefficients) that `pipeline.predict` applies with numpy only; a test checks
that the lean path reproduces `predict_proba` exactly.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from pipeline.features import RunFeatures

WORD_TOKENS = r"(?u)\b\w[\w.]*\w\b|\b\w\b"
TOKENS = r"\S+"


@dataclass
class ModelParams:
    C: float = 4.0
    char_max_features: int = 20_000
    word_max_features: int = 12_000
    min_df: int = 2
    use_rules: bool = True
    use_char: bool = True
    n_jobs: int = 2          # parallel CV fits (this machine class has 2 cores)

    @classmethod
    def from_params(cls, params: dict) -> ModelParams:
        known = {k: v for k, v in (params.get("model") or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)


def frame(features: list[RunFeatures]) -> pd.DataFrame:
    return pd.DataFrame({"doc": [f.doc for f in features], "rules": [f.rules for f in features],
                         "meta": [f.meta for f in features]})


def build_pipeline(p: ModelParams) -> Pipeline:
    blocks = [
        ("word", TfidfVectorizer(token_pattern=WORD_TOKENS, ngram_range=(1, 2), min_df=p.min_df,
                                 max_features=p.word_max_features, sublinear_tf=True), "doc"),
        ("meta", CountVectorizer(token_pattern=TOKENS, lowercase=False, binary=True), "meta"),
    ]
    if p.use_char:
        blocks.insert(0, ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=p.min_df,
                                                  max_features=p.char_max_features, sublinear_tf=True), "doc"))
    if p.use_rules:
        blocks.append(("rules", CountVectorizer(token_pattern=TOKENS, lowercase=False, binary=True), "rules"))
    return Pipeline([
        ("features", ColumnTransformer(blocks, sparse_threshold=1.0)),
        ("clf", LogisticRegression(C=p.C, class_weight="balanced", max_iter=3000)),
    ])


def export_lean(pipeline: Pipeline) -> tuple[dict, dict[str, np.ndarray]]:
    """The fitted pipeline as JSON-able metadata + arrays (see pipeline.predict.LeanModel)."""
    columns = pipeline.named_steps["features"]
    clf = pipeline.named_steps["clf"]
    meta: dict = {"classes": [str(c) for c in clf.classes_], "blocks": []}
    arrays: dict[str, np.ndarray] = {}
    offset = 0
    for name, vec, column in columns.transformers_:
        if vec == "drop":
            continue
        vocab = {str(k): int(v) for k, v in vec.vocabulary_.items()}
        block = {"name": name, "column": column, "offset": offset, "size": len(vocab),
                 "lowercase": bool(vec.lowercase), "binary": bool(getattr(vec, "binary", False))}
        if isinstance(vec, TfidfVectorizer):
            block.update(kind="tfidf", analyzer=vec.analyzer, ngram_range=list(vec.ngram_range),
                         token_pattern=vec.token_pattern, sublinear_tf=bool(vec.sublinear_tf), norm=vec.norm)
            arrays[f"idf_{name}"] = vec.idf_.astype(np.float64)
        else:
            block.update(kind="count", analyzer="word", ngram_range=[1, 1], token_pattern=vec.token_pattern)
        block["vocab"] = vocab
        meta["blocks"].append(block)
        offset += len(vocab)
    arrays["coef"] = clf.coef_.astype(np.float64)
    arrays["intercept"] = clf.intercept_.astype(np.float64)
    return meta, arrays


# ----------------------------------------------------------------------------- data


def load_labels(paths) -> pd.DataFrame:
    """Labeled runs from CSV files or folders of them (run_id, category, source, scenario, note)."""
    files: list[Path] = []
    for p in [paths] if isinstance(paths, (str, Path)) else paths:
        p = Path(p)
        files.extend(sorted(p.glob("*.csv")) if p.is_dir() else [p])
    frames = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in files if f.exists()]
    if not frames:
        return pd.DataFrame(columns=["run_id", "category", "source", "scenario", "note"])
    labels = pd.concat(frames, ignore_index=True)
    for col in ("source", "scenario", "note"):
        if col not in labels:
            labels[col] = ""
    # A later file wins for a run labeled twice (hand labels are written last).
    return labels.drop_duplicates("run_id", keep="last").reset_index(drop=True)


def group_of(run_id: str, source: str, scenario: str) -> str:
    """Evaluation groups: a simulated run belongs to its host, a captured one to its scenario."""
    if source == "captured":
        return f"scenario:{scenario}"
    return "host:" + run_id.split("/", 1)[0]


@dataclass
class Dataset:
    labels: pd.DataFrame            # run_id, category, source, scenario, group
    features: list[RunFeatures]
    verdicts: list                  # RuleVerdict | None per run


def build_dataset(con, labels: pd.DataFrame, rules) -> Dataset:
    from pipeline import store
    from pipeline.features import run_features
    known = {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}
    labels = labels[labels["run_id"].isin(known)].reset_index(drop=True)
    events = store.load_run_events(con, labels["run_id"].tolist())
    metas = store.run_meta(con, labels["run_id"].tolist())
    empty = pd.DataFrame(columns=["line_no", "level", "kind", "message", "text"])
    features, verdicts = [], []
    for run_id in labels["run_id"]:
        ev = events.get(run_id, empty)
        meta = metas.get(run_id, {})
        verdict = rules.match(ev, meta) if len(ev) or meta else None
        verdicts.append(verdict)
        features.append(run_features(ev, meta, verdict.hits if verdict else ()))
    labels = labels.assign(group=[group_of(r, s, sc) for r, s, sc in
                                  zip(labels["run_id"], labels["source"], labels["scenario"])])
    return Dataset(labels, features, verdicts)


# ----------------------------------------------------------------------------- evaluation


def _aligned_proba(pipe: Pipeline, X: pd.DataFrame, classes: list[str]) -> np.ndarray:
    proba = pipe.predict_proba(X)
    out = np.zeros((len(X), len(classes)))
    for j, c in enumerate(pipe.named_steps["clf"].classes_):
        out[:, classes.index(c)] = proba[:, j]
    return out


def out_of_fold(ds: Dataset, p: ModelParams, n_splits: int = 5, seed: int = 0) -> dict:
    """Out-of-fold probabilities (with and without rule features) under a group-aware split."""
    from sklearn.model_selection import StratifiedGroupKFold
    y = ds.labels["category"].to_numpy()
    groups = ds.labels["group"].to_numpy()
    classes = sorted(set(y))
    X = frame(ds.features)
    oof = {"rules": np.zeros((len(y), len(classes))), "no_rules": np.zeros((len(y), len(classes)))}
    folds = np.full(len(y), -1)
    n_splits = max(2, min(n_splits, len(set(groups))))
    splitter = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rare classes missing from some folds are expected
        splits = list(splitter.split(X, y, groups))
    from joblib import Parallel, delayed

    def fit_fold(train, test, use_rules):
        pipe = build_pipeline(ModelParams(**{**p.__dict__, "use_rules": use_rules}))
        pipe.fit(X.iloc[train], y[train])
        return _aligned_proba(pipe, X.iloc[test], classes)

    tasks = [(k, name, use_rules) for k in range(len(splits)) for name, use_rules in
             (("rules", True), ("no_rules", False))]
    fitted = Parallel(n_jobs=p.n_jobs)(delayed(fit_fold)(splits[k][0], splits[k][1], use_rules)
                                       for k, _, use_rules in tasks)
    for (k, name, _), proba in zip(tasks, fitted):
        folds[splits[k][1]] = k
        oof[name][splits[k][1]] = proba
    return {"classes": classes, "y": y, "folds": folds, **oof}


def score(y_true, y_pred, top2_hits=None) -> dict:
    from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
    labels = sorted(set(y_true) | set(y_pred))
    prec, rec, f1, support = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    out = {
        "macro_f1": float(f1_score(y_true, y_pred, labels=sorted(set(y_true)), average="macro", zero_division=0)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "per_class": {c: {"precision": float(pr), "recall": float(r), "f1": float(f), "support": int(s)}
                      for c, pr, r, f, s in zip(labels, prec, rec, f1, support)},
    }
    if top2_hits is not None:
        out["top2_accuracy"] = float(np.mean(top2_hits))
    return out


def compare_strategies(ds: Dataset, oof: dict, thresholds=(0.0, 0.15, 0.25, 0.35, 0.45)) -> dict:
    """rules-only vs model-only vs the combinations, each at its best open-set threshold."""
    from pipeline.predict import combine
    y, classes = oof["y"], oof["classes"]
    rule_pred = np.array([combine(v, None, None, "rules_only", 0).category for v in ds.verdicts])
    rules_missed = rule_pred != y
    results = {}
    for strategy, key in (("rules_only", None), ("model_only", "no_rules"), ("rule_first", "rules"),
                          ("model_first", "rules"), ("hybrid", "rules")):
        best = None
        for thr in thresholds if key else (0.0,):
            verdicts = [combine(v, classes if key else None, oof[key][i] if key else None, strategy, thr)
                        for i, v in enumerate(ds.verdicts)]
            pred = np.array([v.category for v in verdicts])
            top2 = [y[i] in {a["category"] for a in v.alternatives[:2]} or pred[i] == y[i]
                    for i, v in enumerate(verdicts)]
            s = score(y, pred, top2)
            s["threshold"] = thr
            s["accuracy_where_rules_miss"] = float(np.mean(pred[rules_missed] == y[rules_missed])) \
                if rules_missed.any() else None
            s["predictions"] = pred.tolist()
            if best is None or s["macro_f1"] > best["macro_f1"]:
                best = s
        results[strategy] = best
    results["rules_missed"] = int(rules_missed.sum())
    return results


def transfer_to_captured(ds: Dataset, p: ModelParams, results: dict) -> dict | None:
    """Train on simulated runs only, test on the genuine captured runs: the sim-to-real gap, for
    every strategy at the threshold cross-validation chose for it."""
    from pipeline.predict import combine
    src = ds.labels["source"].to_numpy()
    train, test = np.where(src != "captured")[0], np.where(src == "captured")[0]
    if len(test) == 0 or len(set(ds.labels["category"].iloc[train])) < 2:
        return None
    y = ds.labels["category"].to_numpy()
    X = frame(ds.features)
    fitted = {}
    for name, use_rules in (("rules", True), ("no_rules", False)):
        pipe = build_pipeline(ModelParams(**{**p.__dict__, "use_rules": use_rules})).fit(X.iloc[train], y[train])
        fitted[name] = ([str(c) for c in pipe.named_steps["clf"].classes_], pipe.predict_proba(X.iloc[test]))
    out: dict = {"n": int(len(test))}
    for strategy in ("rules_only", "model_only", "rule_first", "model_first", "hybrid"):
        classes, proba = fitted["no_rules" if strategy == "model_only" else "rules"]
        thr = results[strategy]["threshold"]
        pred = [combine(ds.verdicts[i], None if strategy == "rules_only" else classes, proba[j], strategy, thr).category
                for j, i in enumerate(test)]
        out[strategy] = score(y[test], np.array(pred))
    return out


def choose_strategy(results: dict, transfer: dict | None) -> str:
    """The combination with the best macro-F1, averaged over the group CV and, when genuine
    captured runs exist, the sim-to-real transfer (what real users' logs look like)."""
    def merit(s: str) -> float:
        cv = results[s]["macro_f1"]
        return (cv + transfer[s]["macro_f1"]) / 2 if transfer else cv
    return max(("rule_first", "model_first", "hybrid"), key=lambda s: (round(merit(s), 6), s == "rule_first"))


def confusion_png(y_true, y_pred, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import ConfusionMatrixDisplay
    labels = sorted(set(y_true) | set(y_pred))
    fig, ax = plt.subplots(figsize=(11, 10))
    ConfusionMatrixDisplay.from_predictions(y_true, y_pred, labels=labels, ax=ax, xticks_rotation=70,
                                            colorbar=False)
    ax.set_title("out-of-fold confusion (chosen strategy, group split)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _version(arrays: dict[str, np.ndarray]) -> str:
    import hashlib
    digest = hashlib.sha1(arrays["coef"].tobytes() + arrays["intercept"].tobytes()).hexdigest()[:10]
    return f"rc-{digest}"


def compact_metrics(metrics: dict) -> dict:
    """The headline numbers (what `dvc metrics show/diff` prints): macro-F1 etc. per predictor."""
    keys = ("macro_f1", "accuracy", "top2_accuracy", "accuracy_where_rules_miss")
    out = {name: {k: round(r[k], 4) for k in keys if r.get(k) is not None}
           for name, r in metrics["strategies"].items() if isinstance(r, dict)}
    out["chosen"] = {**out[metrics["strategy"]], "threshold": metrics["threshold"]}
    transfer = metrics.get("transfer_sim_to_captured") or {}
    out["captured_transfer"] = {name: round(r["macro_f1"], 4) for name, r in transfer.items() if isinstance(r, dict)}
    out["n_runs"] = metrics["n_runs"]
    return out


def train(db: str, labels_paths, models_dir: str | Path, params: dict, n_splits: int = 5,
          seed: int = 0, log_mlflow: bool = True, metrics_out: str | Path | None = None) -> dict:
    """Evaluate by group-aware CV, fit on everything, export to models/, log to MLflow."""
    from pipeline import store
    from pipeline.rules import RuleSet
    from pipeline.taxonomy import load_taxonomy
    models_dir = Path(models_dir)
    rules = RuleSet.load()
    with store.connect(db, read_only=True) as con:
        ds = build_dataset(con, load_labels(labels_paths), rules)
        templates = con.execute("SELECT template_key, cluster_id, template, initial_template FROM templates "
                                "ORDER BY cluster_id").fetchall()
    if len(ds.labels) < 10:
        raise ValueError(f"only {len(ds.labels)} labeled runs are in the warehouse {db}: ingest their logs first")
    p = ModelParams.from_params(params)
    oof = out_of_fold(ds, p, n_splits=n_splits, seed=seed)
    results = compare_strategies(ds, oof)
    transfer = transfer_to_captured(ds, p, results)
    strategy = choose_strategy(results, transfer)
    threshold = results[strategy]["threshold"]

    y = ds.labels["category"].to_numpy()
    final = build_pipeline(p).fit(frame(ds.features), y)
    meta, arrays = export_lean(final)
    version = _version(arrays)
    metrics = {
        "model_version": version, "strategy": strategy, "threshold": threshold,
        "n_runs": int(len(y)), "n_groups": int(ds.labels["group"].nunique()), "n_splits": n_splits,
        "split": "StratifiedGroupKFold by host (simulated) / scenario (captured)",
        "classes": {c: int((y == c).sum()) for c in sorted(set(y))},
        "rules_missed": results["rules_missed"],
        "strategies": {k: {m: v for m, v in r.items() if m != "predictions"}
                       for k, r in results.items() if isinstance(r, dict)},
        "transfer_sim_to_captured": transfer,
    }
    models_dir.mkdir(parents=True, exist_ok=True)
    meta.update(model_version=version, strategy=strategy, threshold=threshold,
                taxonomy_version=load_taxonomy().version, rules_version=rules.version)
    (models_dir / "model.json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True))
    np.savez_compressed(models_dir / "model.npz", **{k: v.astype(np.float32) if k == "coef" else v
                                                     for k, v in arrays.items()})
    from pipeline.mining import TemplateMiner
    (models_dir / "templates.json").write_text(json.dumps({
        "settings": TemplateMiner.settings(params),
        "templates": [dict(zip(("template_key", "cluster_id", "template", "initial_template"), t))
                      for t in templates]}, ensure_ascii=False, indent=0))
    (models_dir / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True))
    if metrics_out:
        Path(metrics_out).parent.mkdir(parents=True, exist_ok=True)
        Path(metrics_out).write_text(json.dumps(compact_metrics(metrics), indent=2, sort_keys=True))
    if log_mlflow:
        _log_mlflow(final, p, metrics, results, strategy, oof, models_dir)
    return metrics


def _log_mlflow(final: Pipeline, p: ModelParams, metrics: dict, results: dict, strategy: str, oof: dict,
                models_dir: Path) -> None:
    import os
    import tempfile

    import mlflow
    import mlflow.sklearn
    mlflow.set_tracking_uri(os.environ.get("MLFLOW_TRACKING_URI", "sqlite:///mlflow.db"))
    mlflow.set_experiment("logml-root-cause")
    with mlflow.start_run(run_name=metrics["model_version"]):
        mlflow.log_params({**p.__dict__, "strategy": strategy, "threshold": metrics["threshold"],
                           "split": metrics["split"], "n_runs": metrics["n_runs"]})
        for name, r in results.items():
            if not isinstance(r, dict):
                continue
            mlflow.log_metric(f"{name}_macro_f1", r["macro_f1"])
            mlflow.log_metric(f"{name}_accuracy", r["accuracy"])
            if "top2_accuracy" in r:
                mlflow.log_metric(f"{name}_top2_accuracy", r["top2_accuracy"])
            if r.get("accuracy_where_rules_miss") is not None:
                mlflow.log_metric(f"{name}_accuracy_where_rules_miss", r["accuracy_where_rules_miss"])
        for cls, m in results[strategy]["per_class"].items():
            for k in ("precision", "recall", "f1"):
                mlflow.log_metric(f"class_{cls}_{k}", m[k])
        for name, r in (metrics.get("transfer_sim_to_captured") or {}).items():
            if isinstance(r, dict):
                mlflow.log_metric(f"captured_{name}_macro_f1", r["macro_f1"])
                mlflow.log_metric(f"captured_{name}_accuracy", r["accuracy"])
        with tempfile.TemporaryDirectory() as tmp:
            png = Path(tmp) / "confusion_matrix.png"
            confusion_png(oof["y"], np.array(results[strategy]["predictions"]), png)
            mlflow.log_artifact(str(png))
        mlflow.log_artifact(str(models_dir / "metrics.json"))
        mlflow.sklearn.log_model(final, name="model", registered_model_name="logml-root-cause",
                                 input_example=None)


def evaluate(db: str, labels_paths, models_dir: str | Path) -> dict:
    """The shipped predictor on any labeled set: rules-only vs model vs the combination it uses."""
    from pipeline import store
    from pipeline.predict import Predictor, combine
    predictor = Predictor(models_dir)
    with store.connect(db, read_only=True) as con:
        ds = build_dataset(con, load_labels(labels_paths), predictor.rules)
    if not len(ds.labels):
        raise ValueError(f"none of the labeled runs are in the warehouse {db}")
    y = ds.labels["category"].to_numpy()
    model = predictor.model
    probas = [model.predict_proba({"doc": f.doc, "rules": f.rules, "meta": f.meta}) for f in ds.features]
    rule_pred = np.array([combine(v, None, None, "rules_only", 0).category for v in ds.verdicts])
    missed = rule_pred != y
    strategies = {}
    for name, strategy in (("rules_only", "rules_only"), ("model_only", "model_first"),
                           ("combined", predictor.strategy)):
        verdicts = [combine(v, model.classes, p, strategy, predictor.threshold) for v, p in zip(ds.verdicts, probas)]
        pred = np.array([v.category for v in verdicts])
        top2 = [y[i] in {a["category"] for a in v.alternatives[:2]} or pred[i] == y[i] for i, v in enumerate(verdicts)]
        s = score(y, pred, top2)
        s["threshold"] = predictor.threshold if strategy != "rules_only" else None
        s["accuracy_where_rules_miss"] = float(np.mean(pred[missed] == y[missed])) if missed.any() else None
        strategies[name] = s
    return {"model_version": predictor.model_version, "strategy": predictor.strategy,
            "threshold": predictor.threshold, "n_runs": int(len(y)), "rules_missed": int(missed.sum()),
            "strategies": strategies}
