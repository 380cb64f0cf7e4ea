"""One calibrated verdict from the rule verdict and the classifier's probabilities.

The classifier already sees which rules fired (they are among its features); what it cannot know is
how far to trust itself against a rule on logs unlike its training data, nor how confident to be.
Both are learned on out-of-fold predictions of real cases (``fit``):

    score(c) = alpha * log p_model(c) + beta[band] * [the winning rule says c]
    p(c)     = softmax(score)

``alpha`` is an inverse temperature (temperature scaling, Guo et al. 2017) and ``beta`` the weight of
a rule by its priority band (definitive signatures weigh more than weak symptoms). Fitted by
minimising the log-loss, ``p`` is a calibrated probability, so the verdict's confidence means what it
says. Below the open-set ``floor`` the verdict is ``unknown``, with the top alternatives.

numpy only at predict time (``logml predict`` must not import scipy or scikit-learn); ``fit`` uses
scipy's optimiser.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# priority bands of rules.yaml: definitive signatures, explicit causes, causes said loosely, latent
# causes (warnings) and weak symptoms / metadata only
BANDS = ((0, 12), (13, 30), (31, 50), (51, 70), (71, 1_000))
EPS = 1e-6


def band_of(priority: int | None) -> int | None:
    if priority is None:
        return None
    return next(i for i, (lo, hi) in enumerate(BANDS) if lo <= priority <= hi)


@dataclass
class Combiner:
    classes: list[str]
    alpha: float = 1.0
    beta: list[float] = field(default_factory=lambda: [0.0] * len(BANDS))
    floor: float = 0.0

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "beta": list(self.beta), "floor": self.floor}

    @classmethod
    def from_dict(cls, classes: list[str], data: dict | None) -> Combiner:
        data = data or {}
        return cls(list(classes), float(data.get("alpha", 1.0)), [float(b) for b in data.get("beta", [0.0] * len(BANDS))],
                   float(data.get("floor", 0.0)))

    def scores(self, proba: np.ndarray, rule_category: str | None, rule_priority: int | None) -> np.ndarray:
        s = self.alpha * np.log(np.clip(np.asarray(proba, dtype=float), EPS, 1.0))
        b = band_of(rule_priority)
        if rule_category in self.classes and b is not None:
            s[self.classes.index(rule_category)] += self.beta[b]
        return s

    def proba(self, proba: np.ndarray, rule_category: str | None, rule_priority: int | None) -> np.ndarray:
        s = self.scores(proba, rule_category, rule_priority)
        e = np.exp(s - s.max())
        return e / e.sum()


def _design(probas: np.ndarray, rule_cats: list[str | None], rule_prios: list[int | None], classes: list[str]):
    logp = np.log(np.clip(probas, EPS, 1.0))
    onehot = np.zeros((len(BANDS),) + probas.shape)
    for i, (c, pr) in enumerate(zip(rule_cats, rule_prios)):
        b = band_of(pr)
        if c in classes and b is not None:
            onehot[b, i, classes.index(c)] = 1.0
    return logp, onehot


def fit(probas: np.ndarray, rule_cats: list[str | None], rule_prios: list[int | None], y: list[str],
        classes: list[str], weights: np.ndarray | None = None, l2: float = 0.01) -> Combiner:
    """alpha and beta minimising the weighted log-loss of out-of-fold predictions (rows whose label
    is not among ``classes`` are ignored)."""
    from scipy.optimize import minimize
    keep = np.array([c in classes for c in y])
    probas = np.asarray(probas, dtype=float)[keep]
    rule_cats = [c for c, k in zip(rule_cats, keep) if k]
    rule_prios = [p for p, k in zip(rule_prios, keep) if k]
    yi = np.array([classes.index(c) for c, k in zip(y, keep) if k])
    w = np.ones(len(yi)) if weights is None else np.asarray(weights, dtype=float)[keep]
    w = w / w.sum()
    logp, onehot = _design(probas, rule_cats, rule_prios, classes)
    rows = np.arange(len(yi))

    def loss(theta: np.ndarray):
        alpha, beta = theta[0], theta[1:]
        s = alpha * logp + np.tensordot(beta, onehot, axes=1)
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        z = e.sum(axis=1)
        p = e / z[:, None]
        nll = -(w * (s[rows, yi] - np.log(z))).sum() + l2 * (beta ** 2).sum()
        g = p.copy()
        g[rows, yi] -= 1.0
        g *= w[:, None]
        d_alpha = (g * logp).sum()
        d_beta = np.array([(g * onehot[b]).sum() for b in range(len(BANDS))]) + 2 * l2 * beta
        return nll, np.concatenate([[d_alpha], d_beta])

    theta0 = np.concatenate([[1.0], np.zeros(len(BANDS))])
    bounds = [(0.05, 20.0)] + [(-5.0, 15.0)] * len(BANDS)
    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", bounds=bounds)
    return Combiner(list(classes), float(res.x[0]), [float(b) for b in res.x[1:]])
