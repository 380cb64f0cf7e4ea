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


def save_lean(pipeline: Pipeline, out_dir: Path, extra: dict) -> None:
    meta, arrays = export_lean(pipeline)
    meta.update(extra)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "model.json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True))
    np.savez_compressed(out_dir / "model.npz", **arrays)
