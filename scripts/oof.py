#!/usr/bin/env python
"""Try a combiner or text-model change on out-of-fold predictions, without a 15-minute retrain.

    python scripts/oof.py dump OUT.pkl [--draws 3]       # the grouped CV of `logml train`, once (~4 min a draw)
    python scripts/oof.py combine OUT.pkl [--wrong-cost 0.5] [--no-text-expert] [--share written=0.6 ...]
                                          [--text-set text_use_context=false ...]
    python scripts/oof.py text OUT.pkl [--set C=16 --set written_weight=3 ...] [--draw 0]
    python scripts/oof.py rules OUT.pkl [--wrong-only]   # per winning rule: right/fired by source

`dump` builds the dataset `dvc repro` trains on (the train stage's --db and --labels in dvc.yaml, the
model settings of params.yaml) and keeps, per fold draw, ``evaluation.cross_validate``'s out-of-fold
probabilities. `combine` refits the combiner and the open-set floor from them as `logml train` does
and prints the real dev CV per draw, with the rules as they are and as if unseen. `text` refits the
text model alone (no rule tokens) fold by fold with changed settings and prints its real dev CV.
`rules` counts, per winning rule, the runs it was right and wrong on by source, with the wrong ones.

The set-aside real test is never scored here: a change is chosen on these dev figures, and the test
is seen once, through the retrain (metrics/train.json).
"""
from __future__ import annotations

import argparse
import pickle
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline import evaluation as E  # noqa: E402
from pipeline.config import load_params  # noqa: E402
from pipeline.model import ModelParams  # noqa: E402


def train_inputs(dvc_yaml: Path = ROOT / "dvc.yaml") -> tuple[Path, list[Path]]:
    """The warehouse and label files of the train stage, resolved against the repository."""
    args = shlex.split(yaml.safe_load(dvc_yaml.read_text())["stages"]["train"]["cmd"])
    db = next(args[i + 1] for i, a in enumerate(args) if a == "--db")
    labels = [args[i + 1] for i, a in enumerate(args) if a == "--labels"]
    return ROOT / db, [ROOT / p for p in labels]


def dump(db: Path, labels: list[Path], params: dict, draws: int, n_splits: int | None = None) -> dict:
    """The dataset, the settings, and per draw the out-of-fold probabilities of the real dev CV."""
    from pipeline import store
    from pipeline.model import build_dataset, load_labels
    from pipeline.rules import RuleSet
    with store.connect(str(db), read_only=True) as con:
        ds = build_dataset(con, load_labels(labels), RuleSet.load())
    p = ModelParams.from_params(params)
    train = params.get("train") or {}
    n_splits = n_splits or int(train.get("splits", 4))
    seed = int(train.get("seed", 0))
    pool = ~(ds.mask("real") & ds.mask(split="test"))
    return {"ds": ds, "params": params, "n_splits": n_splits,
            "draws": {s: E.cross_validate(ds, p, pool, n_splits, s) for s in range(seed, seed + draws)}}


def _dev_rows(ds) -> np.ndarray:
    return np.flatnonzero(ds.mask("real") & ~ds.mask(split="test") & ds.mask(variant="0"))


def combine(oof: dict, wrong_cost: float = 0.5, text_expert: bool = True,
            shares: dict[str, float] | None = None, text_overrides: dict | None = None) -> dict:
    """The floor (chosen on the first draw, as `logml train` does) and per draw the dev CV summaries
    (as the rules are, as if unseen); ``text_overrides``: the text expert refitted with changed settings."""
    ds, draws = oof["ds"], oof["draws"]
    if text_overrides:
        draws = {}
        for s, (probas, folds, ds_unseen, unseen) in oof["draws"].items():
            no_rules = text_probas(oof, text_overrides, s)
            draws[s] = (E.Probas(probas.classes, probas.rules, no_rules), folds, ds_unseen,
                        E.Probas(unseen.classes, unseen.rules, no_rules))
    rows = _dev_rows(ds)
    first = draws[min(draws)]
    crossfit = E.cross_fitted_combined(ds, first[0], first[1], text_expert, shares=shares)
    floor = E.choose_floor(crossfit[rows], first[0].classes, ds.y[rows], wrong_cost)
    return {"floor": floor, "draws": {s: E.dev_cv(ds, *cv, rows, floor, text_expert, shares) for s, cv in draws.items()}}


def text_probas(oof: dict, overrides: dict, draw: int) -> np.ndarray:
    """The text model's (no rule tokens) out-of-fold probabilities under one fold draw, with changed settings."""
    from joblib import Parallel, delayed
    ds = oof["ds"]
    base = ModelParams.from_params(oof["params"])
    p = ModelParams(**{**base.__dict__, **overrides})
    classes = oof["draws"][draw][0].classes
    pool = ~(ds.mask("real") & ds.mask(split="test"))
    splits = E.grouped_splits(ds.labels, ds.y, pool, oof["n_splits"], draw)
    fitted = Parallel(n_jobs=p.n_jobs)(delayed(E._fit_predict)(ds, p, tr, te, classes, False) for tr, te in splits)
    proba = np.zeros((len(ds.y), len(classes)))
    for (_, te), pr in zip(splits, fitted):
        proba[te] = pr
    return proba


def text(oof: dict, overrides: dict, draw: int | None = None) -> dict:
    """The text model's (no rule tokens) real dev CV summary under one fold draw, with changed settings."""
    ds = oof["ds"]
    draw = min(oof["draws"]) if draw is None else draw
    proba = text_probas(oof, overrides, draw)
    classes = oof["draws"][draw][0].classes
    rows = _dev_rows(ds)
    return E.summarize(ds, rows, E.verdicts(ds, rows, E.Probas(classes, proba, proba)))["model_only"]


def _short(run_id: str, source: str) -> str:
    parts = run_id.split("/")
    return parts[-2] if source == "real" else parts[-1].rsplit(".", 1)[0]


def rule_table(oof: dict) -> pd.DataFrame:
    """Per winning rule, its runs right / wrong by source and the runs it was wrong on (label:run),
    over every run but the set-aside test (real cases: the paste only, not its renderings)."""
    ds = oof["ds"]
    real = ds.mask("real")
    keep = ~(real & ds.mask(split="test")) & ~(real & ~ds.mask(variant="0"))
    src, run_ids = ds.labels["source"].to_numpy(), ds.labels["run_id"].to_numpy()
    hits = pd.DataFrame([(v.rule_id, v.category, src[i], v.category == ds.y[i],
                          f"{ds.y[i]}:{_short(run_ids[i], src[i])}" if src[i] != "simulated" else "")
                         for i, v in enumerate(ds.verdicts) if keep[i] and v is not None],
                        columns=["rule", "category", "source", "right", "wrong_on"])
    table = hits.groupby(["rule", "category", "source"])["right"].agg(["sum", "count"])
    table = (table["sum"].astype(str) + "/" + table["count"].astype(str)).unstack("source", fill_value="")
    wrong = hits[~hits["right"] & (hits["wrong_on"] != "")].groupby(["rule", "category"])["wrong_on"]
    listed = wrong.agg(lambda ids: " ".join(ids.iloc[:6]) + (f" (+{len(ids) - 6})" if len(ids) > 6 else ""))
    return table.join(listed).fillna({"wrong_on": ""})


def _line(s: dict) -> str:
    cal = s["calibration"]
    at = cal["accuracy_at_0.8"]
    return (f"accuracy {s['accuracy']:.3f}  macro-F1 {s['macro_f1']:.3f}  hard {s.get('hard_accuracy', 0):.2f}  "
            f"right at >= 0.8 {at if at is None else round(at, 3)} (coverage {cal['coverage_at_0.8']:.2f})  "
            f"ECE {cal['ece']:.3f}  blamed {s['non_environment_blamed_on_environment']}")


def _value(text_value: str):
    return yaml.safe_load(text_value)   # 16 -> int, 0.5 -> float, true -> bool


def _overrides(ap: argparse.ArgumentParser, items: list[str]) -> dict:
    """ModelParams fields from NAME=VALUE arguments."""
    fields = ModelParams.__dataclass_fields__
    overrides = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in fields:
            ap.error(f"{item}: not a ModelParams field ({', '.join(fields)})")
        overrides[name] = _value(value)
    return overrides


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="run the grouped CV once and keep its out-of-fold probabilities")
    d.add_argument("out", type=Path)
    d.add_argument("--draws", type=int, default=None, help="fold draws (default: params.yaml train.cv_repeats)")
    c = sub.add_parser("combine", help="refit the combiner and floor, print the real dev CV per draw")
    c.add_argument("oof", type=Path)
    c.add_argument("--wrong-cost", type=float, default=None, help="default: params.yaml train.wrong_cost")
    c.add_argument("--no-text-expert", action="store_true")
    c.add_argument("--share", action="append", default=[], metavar="KIND=SHARE",
                   help=f"change a calibration share ({', '.join(E.CALIBRATION_SHARES)})")
    c.add_argument("--text-set", action="append", default=[], metavar="NAME=VALUE",
                   help="refit the text expert with a ModelParams field changed first")
    t = sub.add_parser("text", help="refit the text model with changed settings, print its real dev CV")
    t.add_argument("oof", type=Path)
    t.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a ModelParams field")
    t.add_argument("--draw", type=int, default=None)
    r = sub.add_parser("rules", help="per winning rule, right / wrong by source (no set-aside test)")
    r.add_argument("oof", type=Path)
    r.add_argument("--wrong-only", action="store_true", help="only the rules wrong somewhere")
    args = ap.parse_args(argv)

    if args.command == "dump":
        params = load_params()
        draws = args.draws or int((params.get("train") or {}).get("cv_repeats", 1))
        db, labels = train_inputs()
        args.out.write_bytes(pickle.dumps(dump(db, labels, params, draws)))
        print(f"{args.out}: {draws} fold draws")
        return
    oof = pickle.loads(args.oof.read_bytes())
    train = oof["params"].get("train") or {}
    if args.command == "combine":
        shares = dict(E.CALIBRATION_SHARES)
        for item in args.share:
            kind, _, value = item.partition("=")
            if kind not in shares:
                ap.error(f"--share {item}: the kinds are {', '.join(shares)}")
            shares[kind] = float(value)
        wrong_cost = args.wrong_cost if args.wrong_cost is not None else float(train.get("wrong_cost", 0.5))
        out = combine(oof, wrong_cost, not args.no_text_expert, shares, _overrides(ap, args.text_set))
        print(f"floor {out['floor']}")
        for s, (seen, unseen) in out["draws"].items():
            print(f"draw {s}  rules as they are: {_line(seen['combined'])}")
            print(f"draw {s}  rules as if unseen: {_line(unseen['combined'])}")
            print(f"draw {s}  rules only {seen['rules_only']['accuracy']:.3f}  "
                  f"model only {seen['model_only']['accuracy']:.3f}")
    elif args.command == "rules":
        table = rule_table(oof)
        if args.wrong_only:
            table = table[table["wrong_on"] != ""]
        print("right/fired per source, and the runs a rule was wrong on (label:run; simulated runs counted only)")
        print(table.to_string())
    else:
        overrides = _overrides(ap, args.set)
        s = text(oof, overrides, args.draw)
        print(f"text model {overrides or '(as in params.yaml)'}: accuracy {s['accuracy']:.3f}  "
              f"macro-F1 {s['macro_f1']:.3f}  hard {s.get('hard_accuracy', 0):.2f}")


if __name__ == "__main__":
    main()
