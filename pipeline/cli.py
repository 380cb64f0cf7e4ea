"""`logml`: a thin Typer front end over the stage functions.

Heavy imports (pandas, duckdb, drain3, scikit-learn, mlflow) happen inside the commands, so
`logml predict` pays only for what it uses.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Log analytics and root-cause diagnosis for PaddlePaddle container fleets.")

EXIT_LOCKED = 75  # EX_TEMPFAIL: cron/Airflow may retry later


def _params():
    from pipeline.config import load_params
    return load_params()


def _db(db: Optional[str]) -> str:
    return db or _params()["paths"]["db"]


def _console():
    from rich.console import Console
    return Console(stderr=True)


def _print_frame(frame, as_json: bool, title: str = "") -> None:
    """JSON Lines for machines, a Rich table for people."""
    if as_json:
        for record in json.loads(frame.to_json(orient="records", date_format="iso")):
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title=title or None, show_lines=False)
    for col in frame.columns:
        table.add_column(str(col), overflow="fold")
    for row in frame.itertuples(index=False):
        table.add_row(*["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in row])
    Console().print(table)


def _run_ingest(source: str, db: str, wait: bool, quiet: bool):
    from pipeline import ingest, store
    console = _console()
    try:
        with store.warehouse_lock(db, wait=wait):
            if console.is_terminal and not quiet:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

                from pipeline import sources
                runs, _ = sources.discover(source)
                total = sum(len(r.files) for r in runs)
                with Progress(TextColumn("ingest"), BarColumn(), MofNCompleteColumn(),
                              TextColumn("{task.description}"), console=console, transient=True) as bar:
                    task = bar.add_task("", total=total)
                    summary = ingest.ingest(source, db, on_file=lambda run, f: bar.update(
                        task, advance=1, description=run.run_id[-40:]))
            else:
                summary = ingest.ingest(source, db)
    except store.WarehouseLocked as exc:
        console.print(f"[red]logml:[/red] {exc}")
        raise typer.Exit(EXIT_LOCKED) from None
    return summary


@app.command()
def ingest(source: str = typer.Argument(..., help="log storage root: a folder or an fsspec URL"),
           db: Optional[str] = typer.Option(None, help="DuckDB warehouse (default from params.yaml)"),
           wait: bool = typer.Option(False, help="wait for a running ingest instead of exiting"),
           as_json: bool = typer.Option(False, "--json", help="print the summary as JSON")):
    """Read what is new under SOURCE, mine templates, update the warehouse."""
    db = _db(db)
    summary = _run_ingest(source, db, wait, quiet=as_json)
    print(json.dumps(summary.as_dict()) if as_json else summary.line(db))


@app.command()
def nightly(source: str = typer.Argument(..., help="log storage root: a folder or an fsspec URL"),
            db: Optional[str] = typer.Option(None, help="DuckDB warehouse (default from params.yaml)"),
            wait: bool = typer.Option(False, help="wait for a running nightly instead of exiting"),
            as_json: bool = typer.Option(False, "--json", help="print the summary as JSON")):
    """The nightly batch: ingest what is new (idempotent, resumable, locked). One summary line."""
    db = _db(db)
    summary = _run_ingest(source, db, wait, quiet=as_json)
    print(json.dumps(summary.as_dict()) if as_json else summary.line(db))


@app.command()
def templates(db: Optional[str] = typer.Option(None), top: Optional[int] = typer.Option(20),
              new_since: Optional[str] = typer.Option(None, help="first seen on or after DATE (log time)"),
              as_json: bool = typer.Option(False, "--json")):
    """Mined templates, most frequent first."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        _print_frame(store.list_templates(con, top, new_since), as_json, "templates")


@app.command()
def runs(db: Optional[str] = typer.Option(None), host: Optional[str] = typer.Option(None),
         image: Optional[str] = typer.Option(None, help="substring of the image name"),
         limit: Optional[int] = typer.Option(None), as_json: bool = typer.Option(False, "--json")):
    """Container runs in the warehouse."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        _print_frame(store.list_runs(con, host, image, limit), as_json, "runs")


@app.command()
def problems(db: Optional[str] = typer.Option(None), ingest_id: Optional[int] = typer.Option(None),
             as_json: bool = typer.Option(False, "--json")):
    """Bad input met while ingesting: file, line, reason."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        _print_frame(store.list_problems(con, ingest_id), as_json, "problems")


@app.command()
def simulate(out: Path = typer.Option(..., help="output folder (storage layout)"),
             hosts: int = typer.Option(20), days: int = typer.Option(7), seed: int = typer.Option(1),
             start: str = typer.Option("2026-11-16", help="first day (YYYY-MM-DD)"),
             runs_per_host_day: float = typer.Option(3.0),
             scale_lines: float = typer.Option(1.0, help="multiply progress output (big corpora)")):
    """Write a deterministic simulated fleet (storage layout + labels.csv ground truth)."""
    from pipeline.simulate import simulate as run_simulation
    summary = run_simulation(out, hosts=hosts, days=days, seed=seed, start=start,
                             runs_per_host_day=runs_per_host_day, scale_lines=scale_lines)
    print(f"simulated {summary.runs} runs, {summary.lines:,} lines into {out}")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
