"""The root-cause classifier: a scikit-learn Pipeline over per-run features, its training and export.

Training uses scikit-learn's estimator API (ColumnTransformer of TF-IDF n-grams and one-hot tokens ->
LogisticRegression, fitted with per-run sample weights that balance the classes and weigh the real
cases from issue threads above the simulated fleet). `logml predict` must start in well under a
second, and importing scikit-learn alone costs more, so the fitted pipeline is exported to plain
arrays (vocabularies, idf, coefficients) that `pipeline.lean` applies with numpy only; a test checks
that the lean path reproduces `predict_proba` exactly. The evaluation protocol lives in
`pipeline.evaluation`, the calibrated decision in `pipeline.combine`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
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
COLUMNS = ("doc", "focus", "context", "rules", "meta")


@dataclass
class ModelParams:
    C: float = 4.0
    char_max_features: int = 20_000
    word_max_features: int = 12_000
    focus_max_features: int = 6_000
    min_df: int = 2
    use_rules: bool = True
    use_char: bool = True
    use_context: bool = True
    real_weight: float = 6.0      # a real case's weight, spread over its renderings
    captured_weight: float = 1.0
    simulated_weight: float = 0.5
    written_weight: float = 1.0     # a log written by an agent that never saw the project (data/labeled/written)
    n_jobs: int = 2               # parallel CV fits (this machine class has 2 cores)
    text_use_context: bool = True   # the text expert (no rule tokens) reads the context tokens too

    def expert(self, use_rules: bool) -> ModelParams:
        """The settings of the model with the rule tokens, or of the text expert (without them)."""
        return replace(self, use_rules=True) if use_rules else \
            replace(self, use_rules=False, use_context=self.use_context and self.text_use_context)

    @classmethod
    def from_params(cls, params: dict) -> ModelParams:
        known = {k: v for k, v in (params.get("model") or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)


def frame(features: list[RunFeatures]) -> pd.DataFrame:
    return pd.DataFrame([f.record() for f in features], columns=list(COLUMNS))


def build_pipeline(p: ModelParams) -> Pipeline:
    blocks = [
        ("word", TfidfVectorizer(token_pattern=WORD_TOKENS, ngram_range=(1, 2), min_df=p.min_df,
                                 max_features=p.word_max_features, sublinear_tf=True), "doc"),
        ("focus", TfidfVectorizer(token_pattern=WORD_TOKENS, ngram_range=(1, 2), min_df=p.min_df,
                                  max_features=p.focus_max_features, sublinear_tf=True), "focus"),
        ("meta", CountVectorizer(token_pattern=TOKENS, lowercase=False, binary=True), "meta"),
    ]
    if p.use_char:
        blocks.insert(0, ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=p.min_df,
                                                  max_features=p.char_max_features, sublinear_tf=True), "doc"))
    if p.use_context:
        blocks.append(("context", CountVectorizer(token_pattern=TOKENS, lowercase=False, binary=True), "context"))
    if p.use_rules:
        blocks.append(("rules", CountVectorizer(token_pattern=TOKENS, lowercase=False, binary=True), "rules"))
    return Pipeline([
        ("features", ColumnTransformer(blocks, sparse_threshold=1.0)),
        ("clf", LogisticRegression(C=p.C, max_iter=3000)),
    ])


def fit_pipeline(p: ModelParams, X: pd.DataFrame, y: np.ndarray, weights: np.ndarray) -> Pipeline:
    return build_pipeline(p).fit(X, y, clf__sample_weight=weights)


def export_lean(pipeline: Pipeline, text: Pipeline | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """The fitted pipeline as JSON-able metadata + arrays (see pipeline.lean.LeanModel).

    ``text``: the text expert, fitted on the same rows without the rule tokens (pipeline.combine).
    Blocks both have learned the same vocabularies (same rows, same settings), so the two are one
    feature space: the union of their blocks, each expert's coefficients zero on the blocks it lacks
    (the text expert's on the rule tokens)."""
    experts = {"": pipeline} if text is None else {"": pipeline, "_text": text}
    classes = [str(c) for c in pipeline.named_steps["clf"].classes_]
    meta: dict = {"classes": classes, "blocks": []}
    arrays: dict[str, np.ndarray] = {}
    spans: dict[str, dict[str, tuple[int, int]]] = {}   # expert -> block -> its columns in its own coef
    fitted: dict[str, tuple] = {}                       # block -> (vectorizer, column), first expert's
    for key, pipe in experts.items():
        if [str(c) for c in pipe.named_steps["clf"].classes_] != classes:
            raise ValueError("the text expert and the model disagree on the classes")
        spans[key], at = {}, 0
        for name, vec, column in pipe.named_steps["features"].transformers_:
            if vec == "drop":
                continue
            if name in fitted and fitted[name][0].vocabulary_ != vec.vocabulary_:
                raise ValueError(f"the experts' {name!r} vocabularies differ: fit both on the same rows")
            fitted.setdefault(name, (vec, column))
            spans[key][name] = (at, at + len(vec.vocabulary_))
            at += len(vec.vocabulary_)
    offset = 0
    for name, (vec, column) in fitted.items():
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
    for key, pipe in experts.items():
        clf = pipe.named_steps["clf"]
        coef = np.zeros((clf.coef_.shape[0], offset))
        for block in meta["blocks"]:
            if block["name"] in spans[key]:
                lo, hi = spans[key][block["name"]]
                coef[:, block["offset"]:block["offset"] + block["size"]] = clf.coef_[:, lo:hi]
        arrays[f"coef{key}"] = coef
        arrays[f"intercept{key}"] = clf.intercept_.astype(np.float64)
    return meta, arrays


# ----------------------------------------------------------------------------- data

LABEL_COLUMNS = ("run_id", "category", "source", "scenario", "note", "split", "difficulty", "variant")


def load_labels(paths) -> pd.DataFrame:
    """Labeled runs from CSV files or folders of them (run_id, category, source, scenario, note; the
    rendered real cases add split, difficulty and variant)."""
    files: list[Path] = []
    for p in [paths] if isinstance(paths, (str, Path)) else paths:
        p = Path(p)
        files.extend(sorted(p.glob("*.csv")) if p.is_dir() else [p])
    frames = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in files if f.exists()]
    if not frames:
        return pd.DataFrame(columns=list(LABEL_COLUMNS))
    labels = pd.concat(frames, ignore_index=True)
    for col in LABEL_COLUMNS:
        if col not in labels:
            labels[col] = ""
    labels = labels.fillna("")
    # A later file wins for a run labeled twice (hand labels are written last).
    return labels.drop_duplicates("run_id", keep="last").reset_index(drop=True)


def group_of(run_id: str, source: str, scenario: str) -> str:
    """Evaluation groups: a simulated run belongs to its host, a captured one to its scenario, a real
    case (all its renderings) to its issue thread, a written log to itself."""
    if source == "captured":
        return f"scenario:{scenario}"
    if source == "real":
        return f"thread:{scenario}"
    if source == "written":
        return f"written:{scenario}"
    return "host:" + run_id.split("/", 1)[0]


@dataclass
class Dataset:
    labels: pd.DataFrame            # run_id, category, source, scenario, group, split, difficulty, variant
    features: list[RunFeatures]
    verdicts: list                  # RuleVerdict | None per run
    failed: np.ndarray              # did the run fail (rules.run_failed)
    rule_priorities: dict = field(default_factory=dict)   # rule id -> priority, of the rules that made verdicts

    def subset(self, mask: np.ndarray) -> Dataset:
        idx = np.flatnonzero(mask)
        return Dataset(self.labels.iloc[idx].reset_index(drop=True), [self.features[i] for i in idx],
                       [self.verdicts[i] for i in idx], self.failed[idx], self.rule_priorities)

    @property
    def y(self) -> np.ndarray:
        return self.labels["category"].to_numpy()

    def mask(self, source: str | None = None, split: str | None = None, variant: str | None = None) -> np.ndarray:
        m = np.ones(len(self.labels), dtype=bool)
        if source is not None:
            m &= (self.labels["source"] == source).to_numpy()
        if split is not None:
            m &= (self.labels["split"] == split).to_numpy()
        if variant is not None:
            m &= (self.labels["variant"] == variant).to_numpy()
        return m


def build_dataset(con, labels: pd.DataFrame, rules, batch: int = 400) -> Dataset:
    from pipeline import store
    from pipeline.features import run_features
    from pipeline.rules import run_failed
    known = {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}
    labels = labels[labels["run_id"].isin(known)].reset_index(drop=True)
    empty = pd.DataFrame(columns=["line_no", "level", "kind", "message", "text"])
    features, verdicts, failed = [], [], []
    ids = labels["run_id"].tolist()
    for start in range(0, len(ids), batch):   # bounded memory on a big labeled set
        chunk = ids[start:start + batch]
        events = store.load_run_events(con, chunk)
        metas = store.run_meta(con, chunk)
        for run_id in chunk:
            ev = events.get(run_id, empty)
            meta = metas.get(run_id, {})
            verdict = rules.match(ev, meta) if len(ev) or meta else None
            verdicts.append(verdict)
            failed.append(run_failed(ev, meta))
            features.append(run_features(ev, meta, verdict.tokens() if verdict else ()))
    labels = labels.assign(group=[group_of(r, s, sc) for r, s, sc in
                                  zip(labels["run_id"], labels["source"], labels["scenario"])])
    return Dataset(labels, features, verdicts, np.array(failed, dtype=bool), {r.id: r.priority for r in rules.rules})


def shipped_templates(con, min_runs: int = 3) -> list[tuple]:
    """The templates shipped with the model (evidence ids, routine lines): (template_key, cluster_id,
    template, initial_template) of those at least ``min_runs`` runs printed. A template one run alone
    printed is that run's own line: no other log is ever cited by it, and restoring the written logs'
    thousands of them cost `logml predict` 0.15 s at start."""
    return con.execute("""
        SELECT template_key, cluster_id, template, initial_template FROM templates
        WHERE template_key IN (SELECT m.template_key FROM message_counts c JOIN messages m USING (message_key)
                               GROUP BY ALL HAVING count(DISTINCT c.run_id) >= ?)
        ORDER BY cluster_id""", [min_runs]).fetchall()


def healthy_templates(con, labels: pd.DataFrame, min_rate: float = 0.05, min_runs: int = 5) -> dict[str, list[str]]:
    """Templates that healthy runs print routinely: template_key -> the categories whose runs print
    it at least as often (the only verdicts it may be cited for).

    A line that ``min_rate`` of the labeled healthy runs print ("No ccache found", a device banner,
    a launcher's settings) says nothing of why another run failed, however much the model happens to
    weigh it; predict's evidence skips such lines unless they are errors (``Predictor.evidence``)."""
    con.register("healthy_labels", labels[["run_id", "category"]])
    try:
        rows = con.execute("""
            WITH per_category AS (
                SELECT category, count(*) AS runs FROM healthy_labels
                WHERE run_id IN (SELECT run_id FROM runs) GROUP BY category),
            printed AS (
                SELECT m.template_key, l.category, count(DISTINCT c.run_id) / any_value(p.runs) AS rate,
                       count(DISTINCT c.run_id) AS n
                FROM message_counts c JOIN messages m USING (message_key)
                JOIN healthy_labels l USING (run_id) JOIN per_category p USING (category)
                GROUP BY ALL),
            healthy AS (SELECT template_key, rate FROM printed
                        WHERE category = 'no_failure' AND rate >= ? AND n >= ?)
            SELECT h.template_key,
                   coalesce(list(p.category ORDER BY p.category)
                            FILTER (WHERE p.category <> 'no_failure' AND p.rate >= h.rate), [])
            FROM healthy h JOIN printed p USING (template_key)
            GROUP BY h.template_key ORDER BY h.template_key""", [min_rate, min_runs]).fetchall()
    finally:
        con.unregister("healthy_labels")
    return {key: list(cats) for key, cats in rows}


def sample_weights(labels: pd.DataFrame, p: ModelParams) -> np.ndarray:
    """Per-run weights: a source weight (a real case's weight spread over its renderings), then every
    class brought to the same total weight (class_weight='balanced', by weight not by count)."""
    src = labels["source"].to_numpy()
    weight = {"real": p.real_weight, "captured": p.captured_weight, "written": p.written_weight}
    w = np.array([weight.get(x, p.simulated_weight) for x in src], dtype=float)
    real = src == "real"
    if real.any():   # renderings of one case share its weight
        per_case = labels.loc[real].groupby("scenario")["run_id"].transform("count").to_numpy()
        w[real] = w[real] / per_case
    y = labels["category"].to_numpy()
    classes = sorted(set(y))
    totals = {c: w[y == c].sum() for c in classes}
    target = w.sum() / len(classes)
    return np.array([wi * target / totals[c] for wi, c in zip(w, y)])


# ----------------------------------------------------------------------------- training


def confusion_png(y_true, y_pred, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import ConfusionMatrixDisplay
    labels = sorted(set(y_true) | set(y_pred))
    fig, ax = plt.subplots(figsize=(11, 10))
    ConfusionMatrixDisplay.from_predictions(y_true, y_pred, labels=labels, ax=ax, xticks_rotation=70,
                                            colorbar=False)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _version(arrays: dict[str, np.ndarray], combiner: dict) -> str:
    import hashlib
    digest = hashlib.sha1(b"".join(arrays[k].tobytes() for k in ("coef", "intercept", "coef_text", "intercept_text")
                                   if k in arrays)
                          + json.dumps(combiner, sort_keys=True).encode()).hexdigest()[:10]
    return f"rc-{digest}"


def train(db: str, labels_paths, models_dir: str | Path, params: dict, n_splits: int = 5,
          seed: int = 0, log_mlflow: bool = True, metrics_out: str | Path | None = None,
          predictions_out: str | Path | None = None) -> dict:
    """Evaluate (pipeline.evaluation), fit the shipped model, export it to models_dir, log to MLflow.

    The shipped model is fitted on every labeled run, the set-aside real test included (params
    ``train.ship_with_test``): the test figures describe the same model fitted without those threads,
    as the protocol requires; the calibration and the open-set floor come from the cross-validation.
    ``predictions_out``: a CSV of the out-of-fold verdicts per run (evaluation.predictions_table), also
    logged to MLflow."""
    from pipeline import evaluation, store
    from pipeline.rules import RuleSet
    from pipeline.taxonomy import load_taxonomy
    models_dir = Path(models_dir)
    rules = RuleSet.load()
    with store.connect(db, read_only=True) as con:
        ds = build_dataset(con, load_labels(labels_paths), rules)
        train_params = params.get("train") or {}
        templates = shipped_templates(con, int(train_params.get("template_min_runs", 3)))
        healthy = healthy_templates(con, ds.labels, float(train_params.get("healthy_min_rate", 0.05)),
                                    int(train_params.get("healthy_min_runs", 5)))
    if len(ds.labels) < 10:
        raise ValueError(f"only {len(ds.labels)} labeled runs are in the warehouse {db}: ingest their logs first")
    p = ModelParams.from_params(params)
    report, combiner = evaluation.run_protocol(ds, p, n_splits, seed, float(train_params.get("wrong_cost", 0.5)),
                                               bool(train_params.get("text_expert", True)) and p.use_rules,
                                               int(train_params.get("cv_repeats", 1)))

    shipped = np.ones(len(ds.y), dtype=bool) if train_params.get("ship_with_test", True) else \
        ~(ds.mask("real") & ds.mask(split="test"))
    X, y, w = frame(ds.features).iloc[np.flatnonzero(shipped)], ds.y[shipped], sample_weights(ds.labels[shipped], p)
    final = fit_pipeline(p, X, y, w)
    text = fit_pipeline(p.expert(use_rules=False), X, y, w) \
        if combiner.alpha_text is not None else None
    meta, arrays = export_lean(final, text)
    if list(meta["classes"]) != list(combiner.classes):
        raise RuntimeError("the shipped model and its combiner disagree on the classes")
    version = _version(arrays, combiner.to_dict())
    metrics = {
        "model_version": version, "n_runs": int(len(ds.y)), "n_groups": int(ds.labels["group"].nunique()),
        "split": "StratifiedGroupKFold by thread (real) / host (simulated) / scenario (captured); "
                 "real test = data/labeled/real/split.csv",
        "sources": {s: int(n) for s, n in ds.labels["source"].value_counts().items()},
        "classes": {c: int((ds.y == c).sum()) for c in sorted(set(ds.y))},
        "shipped_with_test": bool(shipped.all()), **report,
    }
    private = metrics
    metrics = evaluation.public(metrics)
    models_dir.mkdir(parents=True, exist_ok=True)
    meta.update(model_version=version, combiner=combiner.to_dict(), taxonomy_version=load_taxonomy().version,
                rules_version=rules.version)
    (models_dir / "model.json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True))
    np.savez_compressed(models_dir / "model.npz", **{k: v.astype(np.float32) if k.startswith("coef") else v
                                                     for k, v in arrays.items()})
    from pipeline.mining import TemplateMiner
    (models_dir / "templates.json").write_text(json.dumps({
        "settings": TemplateMiner.settings(params),
        "templates": [dict(zip(("template_key", "cluster_id", "template", "initial_template"), t))
                      for t in templates],
        "healthy": healthy}, ensure_ascii=False, indent=0))
    (models_dir / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True))
    if metrics_out:
        Path(metrics_out).parent.mkdir(parents=True, exist_ok=True)
        Path(metrics_out).write_text(json.dumps(compact_metrics(metrics), indent=2, sort_keys=True))
    predictions = evaluation.predictions_table(ds, private)
    if predictions_out:
        Path(predictions_out).parent.mkdir(parents=True, exist_ok=True)
        predictions.to_csv(predictions_out, index=False)
    if log_mlflow:
        _log_mlflow(final, p, metrics, private, models_dir, predictions)
    return metrics


def compact_metrics(metrics: dict) -> dict:
    from pipeline.evaluation import headline
    return {**headline(metrics), "model_version": metrics.get("model_version"), "n_runs": metrics.get("n_runs")}


def _flat(prefix: str, d: dict, out: dict) -> None:
    for k, v in d.items():
        key = f"{prefix}_{k}".replace(".", "").replace("@", "at")
        if isinstance(v, dict):
            _flat(key, v, out)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None:
            out[key] = float(v)


def _log_mlflow(final: Pipeline, p: ModelParams, metrics: dict, private: dict, models_dir: Path,
                predictions: pd.DataFrame) -> None:
    import os
    import tempfile

    import mlflow
    import mlflow.sklearn

    from pipeline.evaluation import SCHEMES
    mlflow.set_tracking_uri(os.environ.get("MLFLOW_TRACKING_URI", "sqlite:///mlflow.db"))
    mlflow.set_experiment("logml-root-cause")
    with mlflow.start_run(run_name=metrics["model_version"]):
        mlflow.log_params({**p.__dict__, "split": metrics["split"], "n_runs": metrics["n_runs"],
                           "floor": metrics["combiner"]["floor"], "alpha": metrics["combiner"]["alpha"],
                           "shipped_with_test": metrics["shipped_with_test"]})
        flat: dict[str, float] = {}
        for scheme in SCHEMES:
            for mode, s in (metrics.get(scheme) or {}).items():
                _flat(f"{scheme}_{mode}", {k: v for k, v in s.items() if k not in ("wrong_share_by_predicted",)}, flat)
        repeats = metrics.get("real_cv_repeats") or {}
        flat.update({f"real_cv_repeats_{k}".replace(".", ""): float(v) for k, v in repeats.items() if k.endswith("_mean")})
        mlflow.log_metrics(flat)
        with tempfile.TemporaryDirectory() as tmp:
            for scheme in ("real_cv", "real_test"):
                if scheme in private:
                    png = Path(tmp) / f"confusion_{scheme}.png"
                    s = private[scheme]["combined"]
                    confusion_png(s["_y"], s["_pred"], png, f"{scheme}, combined verdict")
                    mlflow.log_artifact(str(png))
        mlflow.log_artifact(str(models_dir / "metrics.json"))
        mlflow.log_table(predictions, artifact_file="predictions_oof.json")
        mlflow.sklearn.log_model(final, name="model", registered_model_name="logml-root-cause",
                                 input_example=None)


def evaluate(db: str, labels_paths, models_dir: str | Path) -> dict:
    """The shipped predictor on any labeled set: rules-only vs model vs the combined verdict."""
    from pipeline import evaluation, store
    from pipeline.predict import Predictor
    predictor = Predictor(models_dir)
    with store.connect(db, read_only=True) as con:
        ds = build_dataset(con, load_labels(labels_paths), predictor.rules)
    if not len(ds.labels):
        raise ValueError(f"none of the labeled runs are in the warehouse {db}")
    model = predictor.model
    rows = np.arange(len(ds.y))
    text = "text" if model.has_text_expert else "rules"
    probas = evaluation.Probas(list(model.classes), np.array([model.predict_proba(f.record()) for f in ds.features]),
                               np.array([model.predict_proba(f.record(), expert=text) for f in ds.features]))
    by_mode = evaluation.verdicts(ds, rows, probas, predictor.combiner)
    if not model.has_text_expert:   # model-only is the text expert's verdict
        by_mode.pop("model_only")
    return {"model_version": predictor.model_version, "n_runs": int(len(ds.y)),
            "evaluated": evaluation.public(evaluation.summarize(ds, rows, by_mode)),
            "combiner": predictor.combiner.to_dict()}
