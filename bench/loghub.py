"""Mining quality on Loghub 2k (corrected ground truth): logml vs plain Drain3, in one run.

    .venv/bin/python bench/loghub.py [--data ../shared/loghub_2k] [--systems HDFS,BGL] [--json out.json]
                                     [--errors N]

For each system folder in --data (`<S>/<S>_2k.log`, `<S>/<S>_2k.log_structured_corrected.csv`,
header formats in formats.json) the raw log is split with the Loghub header regex (the same split
for all three parsers; logml's Content is checked against the ground-truth Content) and mined by

  logml         pipeline.parse (product path: mining.mask -> dedupe -> TemplateMiner over distinct
                masked contents in sorted order, params.yaml `mining:`), templates rendered with <*>;
  drain3        plain Drain3: drain3.TemplateMiner, default TemplateMinerConfig (sim_th 0.4, depth 4,
                max_children 100, no extra delimiters), no masking, add_log_message per line in file order;
  drain3+mask   the same with the masking list of Drain3's examples/drain3.ini (DRAIN3_EXAMPLE_MASKS
                below: ID (colon-separated hex), IP, SEQ x2 (hex runs), HEX (0x..), NUM (signed integers),
                CMD), mask tokens <:NAME:>.

Metrics, per line, over all 2,000 lines of a system:
  GA  grouping accuracy (Loghub, Zhu et al. ICSE'19): a line is correct iff its predicted group holds
      exactly the lines of its ground-truth group (ground truth grouped by EventId).
  PA  parsing accuracy (LogPAI / Loghub-2.0 "PA"): a line is correct iff its predicted template equals
      the ground-truth EventTemplate, both whitespace-normalised; mask tokens count as <*>.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DATA = ROOT.parent / "shared" / "loghub_2k"

# Drain3's examples/drain3.ini [MASKING] (github.com/logpai/Drain3, examples/drain3.ini), verbatim.
DRAIN3_EXAMPLE_MASKS = [
    (r"((?<=[^A-Za-z0-9])|^)(([0-9a-f]{2,}:){3,}([0-9a-f]{2,}))((?=[^A-Za-z0-9])|$)", "ID"),
    (r"((?<=[^A-Za-z0-9])|^)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})((?=[^A-Za-z0-9])|$)", "IP"),
    (r"((?<=[^A-Za-z0-9])|^)([0-9a-f]{6,} ?){3,}((?=[^A-Za-z0-9])|$)", "SEQ"),
    (r"((?<=[^A-Za-z0-9])|^)([0-9A-F]{4} ?){4,}((?=[^A-Za-z0-9])|$)", "SEQ"),
    (r"((?<=[^A-Za-z0-9])|^)(0x[a-f0-9A-F]+)((?=[^A-Za-z0-9])|$)", "HEX"),
    (r"((?<=[^A-Za-z0-9])|^)([\-\+]?\d+)((?=[^A-Za-z0-9])|$)", "NUM"),
    (r"(?<=executed cmd )(\".+?\")", "CMD"),
]
_DRAIN3_MASK_TOKEN = re.compile(r"<:[A-Z]+:>")


def grouping_accuracy(truth: pd.Series, pred: pd.Series) -> float:
    """Loghub GA: lines whose predicted group == their true group (as sets of lines) / all lines."""
    truth = truth.reset_index(drop=True).astype(str)
    pred = pred.reset_index(drop=True).astype(str)
    true_size = truth.value_counts()
    correct = 0
    for _, idx in pred.groupby(pred).groups.items():
        in_group = truth[idx].unique()
        if len(in_group) == 1 and true_size[in_group[0]] == len(idx):
            correct += len(idx)
    return correct / len(truth)


def _norm(template: str) -> str:
    return " ".join(str(template).split())


def parsing_accuracy(truth_templates: pd.Series, pred_templates: pd.Series) -> float:
    truth = [_norm(t) for t in truth_templates]
    pred = [_norm(t) for t in pred_templates]
    return sum(a == b for a, b in zip(truth, pred)) / len(truth)


def plain_drain3(contents: list[str], masked: bool) -> tuple[list[int], list[str]]:
    from drain3 import TemplateMiner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig

    config = TemplateMinerConfig()
    config.profiling_enabled = False
    if masked:
        config.masking_instructions = [MaskingInstruction(p, name) for p, name in DRAIN3_EXAMPLE_MASKS]
        config.mask_prefix, config.mask_suffix = "<:", ":>"
    miner = TemplateMiner(config=config)
    ids = [miner.add_log_message(c)["cluster_id"] for c in contents]
    final = {c.cluster_id: _DRAIN3_MASK_TOKEN.sub("<*>", c.get_template()) for c in miner.drain.clusters}
    return ids, [final[i] for i in ids]


def run_system(data: Path, system: str, log_format: str, params: dict, ablation: bool = False) -> dict:
    from pipeline.parse import correct_template, parse_file, read_lines, split_headers

    folder = data / system
    log = folder / f"{system}_2k.log"
    truth = pd.read_csv(folder / f"{system}_2k.log_structured_corrected.csv", dtype=str, keep_default_na=False)
    started = time.perf_counter()
    ours = parse_file(log, log_format, None, params)
    ours_s = time.perf_counter() - started
    if len(ours) != len(truth):
        raise SystemExit(f"{system}: {len(ours)} lines parsed, {len(truth)} in the ground truth")
    content_mismatch = int(sum(_norm(a) != _norm(b) for a, b in zip(ours["Content"], truth["Content"])))

    contents = split_headers(read_lines(log), log_format)[0]["Content"].tolist()
    row = {"system": system, "lines": len(truth), "unmatched": int(ours.attrs["unmatched"]),
           "content_mismatch": content_mismatch, "true_events": int(truth["EventId"].nunique()),
           "logml_events": int(ours["EventId"].nunique()), "logml_s": round(ours_s, 3),
           "logml_GA": grouping_accuracy(truth["EventId"], ours["EventId"]),
           "logml_PA": parsing_accuracy(truth["EventTemplate"], ours["EventTemplate"])}
    for name, masked in (("drain3", False), ("drain3+mask", True)):
        ids, templates = plain_drain3(contents, masked)
        row[f"{name}_events"] = len(set(ids))
        row[f"{name}_GA"] = grouping_accuracy(truth["EventId"], pd.Series(ids))
        row[f"{name}_PA"] = parsing_accuracy(truth["EventTemplate"], pd.Series(templates))
        if ablation and masked:  # the same template correction + merge as logml applies
            corrected = [correct_template(t) for t in templates]
            row["drain3+mask+correct_GA"] = grouping_accuracy(truth["EventId"], pd.Series(corrected))
    if ablation:
        raw = parse_file(log, log_format, None, params, correct=False)
        row["logml-no-correct_GA"] = grouping_accuracy(truth["EventId"], raw["EventId"])
        before = {**params, "mining": {**params["mining"], "sim_th": 0.4, "depth": 4}}
        old = parse_file(log, log_format, None, before)
        row["logml-sim0.4-depth4_GA"] = grouping_accuracy(truth["EventId"], old["EventId"])
    row["_ours"], row["_truth"] = ours, truth
    return row


def show_errors(row: dict, limit: int) -> None:
    """The biggest mis-grouped ground-truth events: what logml split or merged."""
    ours, truth = row["_ours"], row["_truth"]
    both = pd.DataFrame({"true": truth["EventId"], "tt": truth["EventTemplate"], "pred": ours["EventId"],
                         "pt": ours["EventTemplate"], "content": truth["Content"]})
    true_size = both["true"].value_counts()
    bad = []
    for pred, grp in both.groupby("pred"):
        if grp["true"].nunique() != 1 or true_size[grp["true"].iloc[0]] != len(grp):
            bad.append((len(grp), pred, grp))
    bad.sort(key=lambda b: -b[0])
    print(f"--- {row['system']}: {len(bad)} wrong predicted groups")
    for n, _, grp in bad[:limit]:
        print(f"  [{n} lines] pred: {grp['pt'].iloc[0]}")
        for true_id, tgrp in grp.groupby("true"):
            print(f"      true {true_id} ({len(tgrp)}/{true_size[true_id]}): {tgrp['tt'].iloc[0]}")
            print(f"          e.g. {tgrp['content'].iloc[0][:160]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--systems", default="", help="comma-separated subset (default: every folder in formats.json)")
    ap.add_argument("--params", default=None, help="params.yaml to read `mining:` from (default: the usual lookup)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    ap.add_argument("--errors", type=int, default=0, help="show the N largest wrong logml groups per system")
    ap.add_argument("--ablation", action="store_true",
                    help="also GA of logml without template correction, logml at sim_th 0.4 / depth 4, "
                         "and Drain3+masking with logml's template correction")
    args = ap.parse_args(argv)

    from pipeline.config import load_params
    params = load_params(args.params)
    formats = json.loads((args.data / "formats.json").read_text())
    systems = [s for s in (args.systems.split(",") if args.systems else formats) if (args.data / s).is_dir()]
    if not systems:
        raise SystemExit(f"no Loghub systems found under {args.data}")

    rows = [run_system(args.data, s, formats[s], params, args.ablation) for s in systems]
    cols = [("logml", "GA"), ("drain3", "GA"), ("drain3+mask", "GA"),
            ("logml", "PA"), ("drain3", "PA"), ("drain3+mask", "PA")]
    print(f"mining: {params['mining']}")
    head = f"{'system':<10}" + "".join(f"{f'{n} {m}':>15}" for n, m in cols) + f"{'events ours/true':>18}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['system']:<10}" + "".join(f"{r[f'{n}_{m}']:>15.3f}" for n, m in cols)
              + f"{str(r['logml_events']) + '/' + str(r['true_events']):>18}")
    print("-" * len(head))
    avg = {f"{n}_{m}": sum(r[f"{n}_{m}"] for r in rows) / len(rows) for n, m in cols}
    print(f"{'average':<10}" + "".join(f"{avg[f'{n}_{m}']:>15.3f}" for n, m in cols))
    below = [r["system"] for r in rows if r["logml_GA"] < r["drain3_GA"]]
    print(f"systems where logml GA < plain Drain3 GA: {', '.join(below) or 'none'}")
    if args.ablation:
        for key in ("logml-no-correct_GA", "logml-sim0.4-depth4_GA", "drain3+mask+correct_GA"):
            print(f"ablation {key:<24}" + " ".join(f"{r['system']}={r[key]:.3f}" for r in rows)
                  + f"  average={sum(r[key] for r in rows) / len(rows):.3f}")
    odd = [(r["system"], r["unmatched"], r["content_mismatch"]) for r in rows if r["unmatched"] or r["content_mismatch"]]
    if odd:
        print("header split: (system, unmatched lines, Content != ground truth):", odd)
    for r in rows:
        if args.errors:
            show_errors(r, args.errors)
    if args.json:
        args.json.write_text(json.dumps({"params": params["mining"], "average": avg,
                                         "rows": [{k: v for k, v in r.items() if not k.startswith("_")}
                                                  for r in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
