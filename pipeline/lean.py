"""Apply an exported classifier with numpy only (no scikit-learn import: `logml predict` start-up).

Reproduces scikit-learn's TfidfVectorizer / CountVectorizer analyzers and LogisticRegression's
predict_proba for the blocks `pipeline.model.export_lean` writes.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

_WHITE_SPACES = re.compile(r"\s\s+")


def _char_wb(text: str, lo: int, hi: int) -> list[str]:
    # Same as sklearn's _char_wb_ngrams: n-grams inside words padded with one space.
    grams = []
    for word in _WHITE_SPACES.sub(" ", text).split():
        word = f" {word} "
        length = len(word)
        for n in range(lo, hi + 1):
            offset = 0
            grams.append(word[offset:offset + n])
            while offset + n < length:
                offset += 1
                grams.append(word[offset:offset + n])
            if offset == 0:  # the word is shorter than n
                break
    return grams


def _word(text: str, pattern: re.Pattern, lo: int, hi: int) -> list[str]:
    tokens = pattern.findall(text)
    if hi == 1:
        return tokens
    grams = list(tokens) if lo == 1 else []
    for n in range(max(lo, 2), hi + 1):
        grams.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return grams


class LeanModel:
    def __init__(self, meta: dict, arrays: dict[str, np.ndarray]):
        self.meta = meta
        self.classes: list[str] = meta["classes"]
        self.coef = arrays["coef"]
        self.intercept = arrays["intercept"]
        # the text expert (the same features without the rule tokens: pipeline.combine), if exported
        self.experts = {"rules": (self.coef, self.intercept)}
        if "coef_text" in arrays:
            self.experts["text"] = (arrays["coef_text"], arrays["intercept_text"])
        self.blocks = meta["blocks"]
        self._patterns = {b["name"]: re.compile(b["token_pattern"]) for b in self.blocks if b.get("token_pattern")}
        self._idf = {b["name"]: arrays.get(f"idf_{b['name']}") for b in self.blocks}

    @classmethod
    def load(cls, models_dir: str | Path) -> LeanModel:
        models_dir = Path(models_dir)
        meta = json.loads((models_dir / "model.json").read_text())
        with np.load(models_dir / "model.npz") as npz:
            arrays = {k: npz[k] for k in npz.files}
        return cls(meta, arrays)

    def _block_features(self, block: dict, text: str) -> tuple[list[int], list[float]]:
        if block["lowercase"]:
            text = text.lower()
        lo, hi = block["ngram_range"]
        if block["analyzer"] == "char_wb":
            grams = _char_wb(text, lo, hi)
        else:
            grams = _word(text, self._patterns[block["name"]], lo, hi)
        vocab = block["vocab"]
        counts = Counter(vocab[g] for g in grams if g in vocab)
        if not counts:
            return [], []
        idx = sorted(counts)
        if block["binary"]:
            values = [1.0] * len(idx)
        elif block.get("sublinear_tf"):
            values = [1.0 + math.log(counts[i]) for i in idx]
        else:
            values = [float(counts[i]) for i in idx]
        if block["kind"] == "tfidf":
            idf = self._idf[block["name"]]
            values = [v * idf[i] for v, i in zip(values, idx)]
            if block.get("norm") == "l2":
                norm = math.sqrt(sum(v * v for v in values))
                if norm > 0:
                    values = [v / norm for v in values]
        off = block["offset"]
        return [off + i for i in idx], values

    @property
    def has_text_expert(self) -> bool:
        return "text" in self.experts

    def decision(self, record: dict[str, str], expert: str = "rules") -> np.ndarray:
        coef, intercept = self.experts[expert]
        cols: list[int] = []
        vals: list[float] = []
        for block in self.blocks:
            c, v = self._block_features(block, record.get(block["column"], "") or "")
            cols.extend(c)
            vals.extend(v)
        scores = intercept.copy()
        if cols:
            scores += coef[:, cols] @ np.asarray(vals)
        return scores

    def line_scores(self, texts: list[str], category: str, columns=("doc", "focus"), expert: str = "rules") -> np.ndarray:
        """How much each text, scored alone through the text blocks, pushes the model (``expert``)
        towards ``category`` against the other classes (the evidence of a model-decided verdict)."""
        if category not in self.classes:
            return np.zeros(len(texts))
        coef = self.experts.get(expert, self.experts["rules"])[0]
        k = self.classes.index(category)
        weights = coef[k] - np.delete(coef, k, axis=0).mean(axis=0) if len(self.classes) > 2 else coef[0]
        out = np.zeros(len(texts))
        for j, text in enumerate(texts):
            for block in self.blocks:
                if block["column"] in columns:
                    idx, vals = self._block_features(block, text or "")
                    if idx:
                        out[j] += float(weights[idx] @ np.asarray(vals))
        return out

    def predict_proba(self, record: dict[str, str], expert: str = "rules") -> np.ndarray:
        scores = self.decision(record, expert)
        if len(self.classes) == 2:  # binary LogisticRegression keeps one row of coefficients
            p = 1.0 / (1.0 + math.exp(-float(scores[0])))
            return np.array([1.0 - p, p])
        scores = scores - scores.max()
        exp = np.exp(scores)
        return exp / exp.sum()
