#!/usr/bin/env python
"""Copy a set of helper-written logs into data/labeled/written/ as a labeled training source.

    python scripts/import_written.py /tmp/probe37 [/tmp/probe38 ...]

A set is a folder of `pNN_XX.log` files with the author's `labels.tsv` (file<TAB>label) and
`INDEX.md` (| file | label | difficulty | why |), written by an agent that never saw this project,
its data or the real shapes (see data/labeled/written/README.md). Each set's logs land in
data/labeled/written/logs/<set>/files/ (the layout `logml ingest` reads as plain log files), its
INDEX.md and labels.tsv in data/labeled/written/<set>/, and data/labeled/written/labels.csv is
rewritten from every set present. A label outside
the taxonomy stops the import: the contract is pipeline/taxonomy.yaml.
"""
from __future__ import annotations

import argparse
import csv
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WRITTEN = ROOT / "data" / "labeled" / "written"
COLUMNS = ["run_id", "category", "source", "scenario", "note", "split", "difficulty", "variant"]
_ROW = re.compile(r"^\|\s*(p\d+_\d+\.log)\s*\|\s*([\w]+)\s*\|\s*(easy|hard)\s*\|\s*(.*?)\s*\|\s*$", re.I)


def read_set(folder: Path) -> list[dict]:
    """The set's labels, with the difficulty and reason its INDEX.md gives each file."""
    index = {}
    if (folder / "INDEX.md").exists():
        for line in (folder / "INDEX.md").read_text(encoding="utf-8").splitlines():
            m = _ROW.match(line)
            if m:
                index[m.group(1)] = (m.group(3).lower(), m.group(4))
    rows = []
    for line in (folder / "labels.tsv").read_text(encoding="utf-8").splitlines():
        if "\t" not in line:
            continue
        name, label = (x.strip() for x in line.split("\t")[:2])
        difficulty, why = index.get(name, ("", ""))
        rows.append({"file": name, "category": label, "difficulty": difficulty, "note": why})
    return rows


def import_set(folder: Path, categories: set[str], root: Path = WRITTEN) -> int:
    rows = read_set(folder)
    bad = sorted({r["category"] for r in rows} - categories)
    if bad:
        raise SystemExit(f"{folder}: labels outside the taxonomy: {', '.join(bad)}")
    dest, logs = root / folder.name, root / "logs" / folder.name / "files"
    for d in (dest, logs):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    for r in rows:
        shutil.copy2(folder / r["file"], logs / r["file"])
    shutil.copy2(folder / "INDEX.md", dest / "INDEX.md")
    (dest / "labels.tsv").write_bytes((folder / "labels.tsv").read_bytes())
    return len(rows)


def write_labels(root: Path = WRITTEN) -> int:
    out = []
    for labels in sorted(root.glob("*/labels.tsv")):
        name = labels.parent.name
        for r in read_set(labels.parent):
            out.append({"run_id": f"{name}/files/{r['file']}", "category": r["category"], "source": "written",
                        "scenario": f"{name}/{r['file'][:-4]}", "note": r["note"], "split": "",
                        "difficulty": r["difficulty"], "variant": ""})
    with open(root / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    return len(out)


def main() -> None:
    from pipeline.taxonomy import load_taxonomy
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path)
    args = ap.parse_args()
    categories = set(load_taxonomy().ids)
    for folder in args.sets:
        print(f"{folder.name}: {import_set(folder, categories)} logs")
    print(f"labels.csv: {write_labels()} rows")


if __name__ == "__main__":
    main()
