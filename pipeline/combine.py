"""One calibrated verdict from the rule verdict and the classifier's probabilities.

The classifier already sees which rules fired (they are among its features); what it cannot know is
how far to trust itself against a rule on logs unlike its training data, nor how confident to be.
Both are learned on out-of-fold predictions of real cases (``fit``):

    score(c) = alpha * log p_model(c) + beta[band] * [the winning rule says c]
    p(c)     = softmax(score)

Where no rule fires, the verdict is the *text expert's*: a second model of the same features without
the rule tokens, with a temperature of its own and a lift of the non-environment classes:

    score(c) = alpha_text * log p_text(c) + gamma * [c is not an environment cause]

The model with rule tokens learns to lean on them (a rule fires, and is right, on most training
cases), so on a log no rule knows its text weights are weak: on the real dev threads, the model
without rules is right more often on exactly those logs, and more still when the rules that fired
on a held-out thread but on no other thread are taken away (the regime of threads nobody wrote a
rule from). The rules are written for environment signatures, so their silence is itself evidence
for the job's own bug, a healthy run or an unknown cause: ``gamma``, fitted with ``alpha_text`` on the
rows no rule fired on, says how much.

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
    alpha_text: float | None = None   # the text expert's inverse temperature (None: no text expert)
    text_bias: dict[str, float] = field(default_factory=dict)   # class -> lift where the text expert decides

    def to_dict(self) -> dict:
        out = {"alpha": self.alpha, "beta": list(self.beta), "floor": self.floor}
        if self.alpha_text is not None:
            out.update(alpha_text=self.alpha_text, text_bias=dict(self.text_bias))
        return out

    @classmethod
    def from_dict(cls, classes: list[str], data: dict | None) -> Combiner:
        data = data or {}
        text = data.get("alpha_text")
        return cls(list(classes), float(data.get("alpha", 1.0)), [float(b) for b in data.get("beta", [0.0] * len(BANDS))],
                   float(data.get("floor", 0.0)), None if text is None else float(text),
                   {str(c): float(b) for c, b in (data.get("text_bias") or {}).items()})

    def uses_text(self, rule_category: str | None, proba_text) -> bool:
        """Whether the text expert decides: no rule fired, and there is a text expert."""
        return rule_category is None and proba_text is not None and self.alpha_text is not None

    def scores(self, proba: np.ndarray, rule_category: str | None, rule_priority: int | None) -> np.ndarray:
        s = self.alpha * np.log(np.clip(np.asarray(proba, dtype=float), EPS, 1.0))
        b = band_of(rule_priority)
        if rule_category in self.classes and b is not None:
            s[self.classes.index(rule_category)] += self.beta[b]
        return s

    def proba(self, proba: np.ndarray, rule_category: str | None, rule_priority: int | None,
              proba_text: np.ndarray | None = None) -> np.ndarray:
        if self.uses_text(rule_category, proba_text):
            s = self.alpha_text * np.log(np.clip(np.asarray(proba_text, dtype=float), EPS, 1.0))
            s = s + np.array([self.text_bias.get(c, 0.0) for c in self.classes])
        else:
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


def _targets(y: list[str], classes: list[str], weights: np.ndarray | None):
    """Rows whose label is among ``classes``: (their mask, label indexes, weights summing to 1)."""
    keep = np.array([c in classes for c in y])
    yi = np.array([classes.index(c) for c, k in zip(y, keep) if k])
    w = np.ones(len(yi)) if weights is None else np.asarray(weights, dtype=float)[keep]
    return keep, yi, w / w.sum()


def _minimise(logp: np.ndarray, extra: np.ndarray, yi: np.ndarray, w: np.ndarray, l2: float,
              extra_bounds: tuple[float, float]) -> np.ndarray:
    """theta = (alpha, *b) minimising the weighted log-loss of softmax(alpha * logp + sum_e b_e *
    extra[e]) (extra: one (rows, classes) indicator per parameter, L2-penalised)."""
    from scipy.optimize import minimize
    rows = np.arange(len(yi))
    n_extra = len(extra)

    def loss(theta: np.ndarray):
        alpha, b = theta[0], theta[1:]
        s = alpha * logp + np.tensordot(b, extra, axes=1)
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        z = e.sum(axis=1)
        p = e / z[:, None]
        nll = -(w * (s[rows, yi] - np.log(z))).sum() + l2 * (b ** 2).sum()
        g = p.copy()
        g[rows, yi] -= 1.0
        g *= w[:, None]
        d_alpha = (g * logp).sum()
        d_b = np.array([(g * extra[k]).sum() for k in range(n_extra)]) + 2 * l2 * b
        return nll, np.concatenate([[d_alpha], d_b])

    theta0 = np.concatenate([[1.0], np.zeros(n_extra)])
    bounds = [(0.05, 20.0)] + [extra_bounds] * n_extra
    return minimize(loss, theta0, jac=True, method="L-BFGS-B", bounds=bounds).x


def fit(probas: np.ndarray, rule_cats: list[str | None], rule_prios: list[int | None], y: list[str],
        classes: list[str], weights: np.ndarray | None = None, l2: float = 0.01) -> Combiner:
    """alpha and beta minimising the weighted log-loss of out-of-fold predictions (rows whose label
    is not among ``classes`` are ignored)."""
    keep, yi, w = _targets(y, classes, weights)
    probas = np.asarray(probas, dtype=float)[keep]
    rule_cats = [c for c, k in zip(rule_cats, keep) if k]
    rule_prios = [p for p, k in zip(rule_prios, keep) if k]
    logp, onehot = _design(probas, rule_cats, rule_prios, classes)
    theta = _minimise(logp, onehot, yi, w, l2, (-5.0, 15.0))
    return Combiner(list(classes), float(theta[0]), [float(b) for b in theta[1:]])


def fit_text(probas_text: np.ndarray, y: list[str], classes: list[str], lifted: list[str],
             weights: np.ndarray | None = None, l2: float = 0.01) -> tuple[float, dict[str, float]]:
    """The text expert's inverse temperature and the lift of the ``lifted`` classes (one shared
    ``gamma``), minimising the weighted log-loss of out-of-fold rows no rule fired on."""
    keep, yi, w = _targets(y, classes, weights)
    logp = np.log(np.clip(np.asarray(probas_text, dtype=float)[keep], EPS, 1.0))
    lift = np.broadcast_to(np.array([1.0 if c in lifted else 0.0 for c in classes]), logp.shape)[None]
    alpha, gamma = _minimise(logp, lift, yi, w, l2, (-5.0, 5.0))
    return float(alpha), {c: float(gamma) for c in classes if c in lifted}
