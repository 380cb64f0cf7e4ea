#!/usr/bin/env python
"""Execute the notebooks top to bottom (CI), or strip their outputs (before committing).

    python scripts/run_notebooks.py                     # run notebooks/*.ipynb -> build/notebooks/
    python scripts/run_notebooks.py --out DIR NB...     # chosen notebooks, another output folder
    python scripts/run_notebooks.py --strip             # rewrite notebooks/*.ipynb without outputs
    python scripts/run_notebooks.py --check             # exit 1 if a notebook has outputs (for CI/tests)

Execution: nbclient with the `python3` kernel, working directory = repository root (so params.yaml,
the model and the warehouse resolve as in the CLI), 300 s per cell. The executed copies (with outputs)
go to the output folder, never over the committed notebooks. The notebooks read LOGML_DB / LOGML_WEEK
from the environment, which the kernel inherits. Exit status: 0 all ran, 1 a cell failed (or --check
found outputs), 2 usage error.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "reports" / "notebooks"


def notebook_paths(names: list[str]) -> list[Path]:
    if not names:
        return sorted(NOTEBOOKS.glob("*.ipynb"))
    return [Path(n).resolve() for n in names]


def strip(nb) -> bool:
    """Remove outputs, execution counts and run-time metadata in place; True when something changed."""
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code":
            if cell.get("outputs") or cell.get("execution_count") is not None:
                changed = True
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled", "ExecuteTime"):
            if key in cell.metadata:
                del cell.metadata[key]
                changed = True
    for key in ("widgets", "papermill"):
        if key in nb.metadata:
            del nb.metadata[key]
            changed = True
    return changed


def has_outputs(nb) -> list[int]:
    """Indexes of code cells that carry outputs or an execution count."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]


def execute(path: Path, out_dir: Path, timeout: int, kernel: str) -> tuple[bool, float, str]:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel, resources={"metadata": {"path": str(ROOT)}})
    t0 = time.perf_counter()
    ok, detail = True, ""
    try:
        client.execute()
    except CellExecutionError as exc:
        ok, detail = False, str(exc)
    except Exception as exc:  # kernel died, timeout, missing kernel spec: report, do not hide
        ok, detail = False, f"{type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / path.name)
    return ok, elapsed, detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", help="notebooks to process (default: notebooks/*.ipynb)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for executed copies (default: %(default)s)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per cell (default: %(default)s)")
    ap.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: %(default)s)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--strip", action="store_true", help="rewrite the notebooks in place without outputs")
    mode.add_argument("--check", action="store_true", help="exit 1 if any notebook has outputs")
    args = ap.parse_args(argv)

    paths = notebook_paths(args.notebooks)
    missing = [p for p in paths if not p.is_file()]
    if missing or not paths:
        print(f"no such notebook: {', '.join(map(str, missing)) or NOTEBOOKS / '*.ipynb'}", file=sys.stderr)
        return 2

    if args.strip or args.check:
        dirty = 0
        for p in paths:
            nb = nbformat.read(p, as_version=4)
            if args.check:
                cells = has_outputs(nb)
                if cells:
                    dirty += 1
                    print(f"{p.name}: outputs in code cells {cells} (run scripts/run_notebooks.py --strip)")
            elif strip(nb):
                nbformat.write(nb, p)
                print(f"stripped {p.name}")
        return 1 if dirty else 0

    failed = 0
    total = 0.0
    for p in paths:
        ok, elapsed, detail = execute(p, args.out, args.timeout, args.kernel)
        total += elapsed
        print(f"{'ok  ' if ok else 'FAIL'} {p.name}  {elapsed:.1f} s  -> {args.out / p.name}", flush=True)
        if not ok:
            failed += 1
            print(detail, file=sys.stderr)
    print(f"{len(paths) - failed}/{len(paths)} notebooks ran in {total:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
