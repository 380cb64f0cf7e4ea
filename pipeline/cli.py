"""`logml`: a thin Typer front end over the stage functions.

Heavy imports (pandas, duckdb, drain3, scikit-learn, mlflow) happen inside the commands, so
`logml predict` pays only for what it uses.
"""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Log analytics and root-cause diagnosis for PaddlePaddle container fleets.")

EXIT_LOCKED = 75  # EX_TEMPFAIL: cron/Airflow may retry later


def versions(models: Optional[str] = None) -> dict:
    """The package, model, rules and taxonomy versions (what `logml --version` prints)."""
    from importlib.metadata import PackageNotFoundError, version

    from pipeline.rules import load_rules
    from pipeline.taxonomy import load_taxonomy
    try:
        package = version("logml")
    except PackageNotFoundError:   # running from a source tree that is not installed
        package = "unknown"
    folder = _models(models)
    try:
        model = json.loads((folder / "model.json").read_text()).get("model_version", "unversioned")
    except (OSError, ValueError):
        model = "none"
    return {"logml": package, "model": model, "model_dir": str(folder), "rules": load_rules().version,
            "taxonomy": load_taxonomy().version}


def _print_version(value: bool) -> None:
    if value:
        v = versions()
        print(f"logml {v['logml']} (model {v['model']} from {v['model_dir']}, rules {v['rules']}, "
              f"taxonomy {v['taxonomy']})")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="print the package, model, rules and taxonomy versions")):
    """Log analytics and root-cause diagnosis for PaddlePaddle container fleets."""


def _params():
    from pipeline.config import load_params
    return load_params()


def _db(db: Optional[str]) -> str:
    return db or _params()["paths"]["db"]


def _models(explicit: Optional[str]) -> Path:
    from pipeline.config import models_dir
    return models_dir(explicit, _params())


def _console():
    from rich.console import Console
    return Console(stderr=True)


def _stdout():
    """Rich's console for results; piped into a file or a pager it would wrap at 80 columns (paths split
    mid-word, tables in 3-character columns): there, lines are not wrapped and tables get 200 columns."""
    from rich.console import Console
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=200, soft_wrap=True)
    return console


def _print_frame(frame, as_json: bool, title: str = "") -> None:
    """JSON Lines for machines, a Rich table for people."""
    if as_json:
        for record in json.loads(frame.to_json(orient="records", date_format="iso")):
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    from rich.table import Table
    table = Table(title=title or None, show_lines=False)
    for col in frame.columns:
        table.add_column(str(col), overflow="fold")
    for row in frame.itertuples(index=False):
        table.add_row(*["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in row])
    _stdout().print(table)


@contextmanager
def _file_progress(source: str, console, quiet: bool):
    """A Rich progress bar over the files to read, on a terminal only; else nothing."""
    if not console.is_terminal or quiet:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from pipeline import sources
    runs, _ = sources.discover(source)
    with Progress(TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  console=console, transient=True) as bar:
        task = bar.add_task("", total=sum(len(r.files) for r in runs))
        yield lambda run, f: bar.update(task, advance=1, description=run.run_id[-40:])


@app.command()
def ingest(source: str = typer.Argument(..., help="log storage root: a folder or an fsspec URL"),
           db: Optional[str] = typer.Option(None, help="DuckDB warehouse (default from params.yaml)"),
           wait: bool = typer.Option(False, help="wait for a running ingest instead of exiting"),
           engine: str = typer.Option("local", help="local | dask"),
           scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: a LocalCluster)"),
           as_json: bool = typer.Option(False, "--json", help="print the summary as JSON")):
    """Read what is new under SOURCE, mine templates, update the warehouse."""
    from pipeline import sources, store
    from pipeline.ingest import ingest as run_ingest
    db = _db(db)
    sources.check_root(source)   # a mistyped root must not leave an empty warehouse behind
    with store.warehouse_lock(db, wait=wait), _file_progress(source, _console(), quiet=as_json) as on_file:
        summary = run_ingest(source, db, _params(), on_file=on_file, engine=engine, scheduler=scheduler)
    print(json.dumps(summary.as_dict()) if as_json else summary.line(db))


@app.command()
def nightly(source: str = typer.Argument(..., help="log storage root: a folder or an fsspec URL"),
            db: Optional[str] = typer.Option(None, help="DuckDB warehouse (default from params.yaml)"),
            wait: bool = typer.Option(False, help="wait for a running nightly instead of exiting"),
            report: bool = typer.Option(False, "--report", help="also write the last complete week's report"),
            week: Optional[str] = typer.Option(None, help="report this ISO week (e.g. 2026-W48)"),
            engine: str = typer.Option("local", help="local | dask"),
            scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: a LocalCluster)"),
            as_json: bool = typer.Option(False, "--json", help="print the summary as JSON")):
    """The nightly batch: ingest what is new, classify new runs, optionally report. One summary line."""
    from dataclasses import asdict

    from pipeline.nightly import run_nightly
    db = _db(db)
    with _file_progress(source, _console(), quiet=as_json) as on_file:
        summary = run_nightly(source, db, _params(), report=report, report_week=week, wait=wait,
                              on_file=on_file, engine=engine, scheduler=scheduler)
    if as_json:
        print(json.dumps(asdict(summary), default=str))
    else:
        print(summary.line(db))


@app.command()
def report(week: Optional[str] = typer.Option(None, help="ISO week, e.g. 2026-W48 (default: last complete)"),
           out: Optional[Path] = typer.Option(None, help="output folder (default: reports/<week>)"),
           db: Optional[str] = typer.Option(None),
           inventory_root: Optional[str] = typer.Option(None, help="read inventory.csv from this storage root")):
    """The weekly reliability report: report.html, report.md, report.json."""
    from pipeline import store
    from pipeline.report import default_week, empty_week_hint, report_command
    db = _db(db)
    with store.connect(db, read_only=True) as con:
        week = week or default_week(con)
        hint = empty_week_hint(con, week)
    paths = report_command(db, week, out or Path(_params()["paths"]["reports"]) / week, inventory_root)
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    if hint:
        _console().print(f"[yellow]note:[/] {hint}")


@app.command()
def reclassify(db: Optional[str] = typer.Option(None), models: Optional[str] = typer.Option(None)):
    """Re-classify every run with the current model (after `logml train`)."""
    from pipeline import store
    from pipeline.predict import classify_runs
    db = _db(db)
    with store.warehouse_lock(db), store.connect(db) as con:
        n = classify_runs(con, _models(models), scope="all")
        kept = store.scalar(con, "SELECT count(*) FROM runs") - n
    print(f"re-classified {n} runs" + (f"; kept the verdicts of {kept} whose events retention dropped" if kept else ""))


@app.command()
def compact(db: Optional[str] = typer.Option(None),
            keep_days: Optional[float] = typer.Option(None, help="also drop events logged more than N days ago "
                                                           "(runs, messages, templates, counts, predictions stay)"),
            wait: bool = typer.Option(False, help="wait for a running ingest instead of exiting"),
            as_json: bool = typer.Option(False, "--json")):
    """Merge small event files (nightly increments) into bigger ones; optionally apply retention."""
    from pipeline import eventstore, store
    db = _db(db)
    events = _params()["events"]
    with store.warehouse_lock(db, wait=wait), store.connect(db) as con:
        out = {}
        if keep_days is not None:
            out["retention"] = eventstore.retain(con, keep_days)
        out["compaction"] = eventstore.compact(con, int(events["compact_small_rows"]),
                                               int(events["compact_target_rows"]))
        out["files"] = store.scalar(con, "SELECT count(*) FROM event_files")
    if as_json:
        print(json.dumps(out, default=str))
    else:
        c, r = out["compaction"], out.get("retention")
        kept = f"dropped {r['dropped_files']} and rewrote {r['rewritten_files']} files older than {r['cutoff']:%Y-%m-%d %H:%M}; " \
            if r else ""
        print(f"{kept}merged {c['merged']} small files into {c['files']}; {out['files']} event files")


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
         limit: Optional[int] = typer.Option(None), as_json: bool = typer.Option(False, "--json"),
         wide: bool = typer.Option(False, "--wide", help="every column in the table (--json always has them)")):
    """Container runs in the warehouse."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        frame = store.list_runs(con, host, image, limit)
    if not as_json and "confidence" in frame.columns:
        # an unknown's number is its closest guess's: in a table it reads as a sure verdict (--json keeps it)
        frame["confidence"] = frame["confidence"].astype(object).where(frame["category"] != "unknown", None)
    if not as_json and not wide:
        frame = _runs_at_a_glance(frame)
    _print_frame(frame, as_json, "runs")


def _runs_at_a_glance(frame):
    """The columns a person scans on a terminal: a container's 64-hex id cut to docker's 12, the start
    (its metadata's, else its first timestamp) to the minute; the rest with --wide or --json."""
    import pandas as pd
    start = frame["started_at"].fillna(frame["first_ts"]) if len(frame) else frame["started_at"]
    return pd.DataFrame({
        "run": frame["run_id"].str.replace(r"\b([0-9a-f]{12})[0-9a-f]{52}\b", r"\1", regex=True),
        "host": frame["host"],
        "started": pd.to_datetime(start).dt.strftime("%Y-%m-%d %H:%M") if len(frame) else start,
        "exit": frame["exit_code"].astype("Int64"), "category": frame["category"],
        "confidence": frame["confidence"], "label": frame["label"]})


@app.command()
def problems(db: Optional[str] = typer.Option(None), ingest_id: Optional[int] = typer.Option(None),
             history: bool = typer.Option(False, "--all", help="every row as each ingest recorded it"),
             as_json: bool = typer.Option(False, "--json")):
    """Bad input met while ingesting: file, line, reason; a path reported at every ingest, once. The
    table gives one row per file and kind of problem (a GBK log's every line is one row), --json every line."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        frame = store.list_problems(con, ingest_id, history)
        if not as_json and len(frame):
            con.register("listed", frame)
            frame = con.execute("""
                SELECT max(ingest_id) AS ingest_id, run_id, path, reason, count(line) AS lines, min(line) AS first_line,
                       arg_min(detail, coalesce(line, -1)) AS detail
                FROM listed GROUP BY run_id, path, reason ORDER BY ingest_id, path, first_line""").df()
            con.unregister("listed")
    _print_frame(frame, as_json, "problems")


@app.command()
def simulate(out: Path = typer.Option(..., help="output folder (storage layout)"),
             hosts: int = typer.Option(20), days: int = typer.Option(7), seed: int = typer.Option(1),
             start: str = typer.Option("2026-11-16", help="first day (YYYY-MM-DD)"),
             runs_per_host_day: float = typer.Option(3.0),
             scale_lines: float = typer.Option(1.0, help="multiply progress output (big corpora)"),
             pastes: float = typer.Option(0.0, help="share of failed runs that also get a user's paste of "
                                                   "their error (training corpora)"),
             min_per_category: Optional[int] = typer.Option(None, help="plant failures until each category has "
                                                            "this many runs (training corpora)")):
    """Write a deterministic simulated fleet (storage layout + labels.csv ground truth)."""
    from pipeline.simulate import simulate as run_simulation
    summary = run_simulation(out, hosts=hosts, days=days, seed=seed, start=start,
                             runs_per_host_day=runs_per_host_day, scale_lines=scale_lines, pastes=pastes,
                             min_per_category=min_per_category)
    print(f"simulated {summary.runs} runs, {summary.lines:,} lines into {out}")


@app.command("render-real")
def render_real(out: Path = typer.Option(..., help="output folder (storage layout + labels.csv)"),
                cases: Optional[Path] = typer.Option(None, help="folder of issue_log_shapes.jsonl + split.csv "
                                                                "(default: <paths.labeled>/real)"),
                variants: int = typer.Option(5, help="renderings per case (0 = the plain paste)")):
    """Render the real issue-thread cases into logs (masks filled, healthy output, envelopes)."""
    from pipeline.realcases import load_cases, render
    folder = cases or Path(_params()["paths"]["labeled"]) / "real"
    labels = render(out, load_cases(folder), variants=tuple(range(variants)))
    print(f"rendered {labels['scenario'].nunique()} real cases as {len(labels)} runs into {out}")


@app.command()
def train(db: Optional[str] = typer.Option(None, help="warehouse holding the labeled runs' logs"),
          labels: list[str] = typer.Option(None, help="label CSVs or folders (default: data/labeled)"),
          models: Optional[str] = typer.Option(None, help="export folder (default: params paths.models)"),
          splits: Optional[int] = typer.Option(None, help="group-aware CV folds (default: params train.splits)"),
          metrics_out: Optional[str] = typer.Option(None, help="also write the headline metrics here (DVC)"),
          predictions_out: Optional[str] = typer.Option(
              None, help="also write the out-of-fold verdict of every dev and captured run here (CSV)"),
          no_mlflow: bool = typer.Option(False, "--no-mlflow", help="skip MLflow logging"),
          as_json: bool = typer.Option(False, "--json")):
    """Train the root-cause classifier, evaluate it on real cases, export it, log to MLflow."""
    from pipeline import model
    params = _params()
    metrics = model.train(_db(db), labels or [params["paths"]["labeled"]], _models(models),
                          params, n_splits=splits or params["train"]["splits"], seed=params["train"]["seed"],
                          log_mlflow=not no_mlflow, metrics_out=metrics_out, predictions_out=predictions_out)
    if as_json:
        print(json.dumps(metrics))
        return
    _print_strategies(metrics)


def _print_strategies(metrics: dict) -> None:
    import pandas as pd
    rows = []
    from pipeline.evaluation import SCHEMES
    for scheme in (*SCHEMES, "evaluated"):
        for mode, r in (metrics.get(scheme) or {}).items():
            cal = r.get("calibration") or {}
            rows.append({"scheme": scheme, "predictor": mode, "n": r["n"], "accuracy": r["accuracy"],
                         "macro_f1": r["macro_f1"], "hard": r.get("hard_accuracy"),
                         "acc@0.8": cal.get("accuracy_at_0.8"), "cov@0.8": cal.get("coverage_at_0.8"),
                         "ece": cal.get("ece"), "non-env blamed": r.get("non_environment_blamed_on_environment")})
    floor = (metrics.get("combiner") or {}).get("floor")
    _print_frame(pd.DataFrame(rows), False, f"{metrics.get('model_version', '')}: open-set floor {floor}, "
                                            f"{metrics['n_runs']} runs")
    rep = metrics.get("real_cv_repeats") or {}
    if len(rep.get("seeds", ())) > 1:
        print(f"real_cv over fold seeds {rep['seeds']}: " + ", ".join(
            f"{name} {rep[name + '_mean']} ({rep[name + '_range'][0]}-{rep[name + '_range'][1]})"
            for name in ("accuracy", "unseen_rules_accuracy", "model_only_accuracy") if name + "_mean" in rep))


@app.command()
def evaluate(labels: list[str] = typer.Option(None, help="label CSVs or folders (default: data/labeled)"),
             db: Optional[str] = typer.Option(None), models: Optional[str] = typer.Option(None),
             metrics_out: Optional[str] = typer.Option(None, help="also write the headline metrics here (DVC)"),
             as_json: bool = typer.Option(False, "--json")):
    """Rules-only vs model vs combined on any labeled set, with the shipped model."""
    from pipeline import model
    params = _params()
    metrics = model.evaluate(_db(db), labels or [params["paths"]["labeled"]], _models(models))
    if metrics_out:
        Path(metrics_out).parent.mkdir(parents=True, exist_ok=True)
        from pipeline.evaluation import compact
        Path(metrics_out).write_text(json.dumps(compact(metrics["evaluated"]), indent=2, sort_keys=True))
    if as_json:
        print(json.dumps(metrics))
        return
    _print_strategies(metrics)


@app.command()
def predict(paths: list[str] = typer.Argument(..., help="log files (plain, docker-json, CRI, .gz) or - for stdin"),
            models: Optional[str] = typer.Option(None, help="model folder (default: $LOGML_MODELS, else the model "
                                                           "shipped with logml)"),
            as_json: bool = typer.Option(False, "--json", help="JSON Lines, one object per input")):
    """Root cause, confidence, evidence and remedy for each log. Never changes the template set."""
    from pipeline.predict import predict_paths
    models = _models(models)
    if not Path(models, "model.json").exists():
        _console().print(f"[red]logml:[/red] no model in {models}: run `make train` first, or point --models / "
                         "LOGML_MODELS at a trained model folder")
        raise typer.Exit(2)
    failed = False
    for result in predict_paths(paths, models):
        failed |= "error" in result
        if as_json:
            sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        else:
            _print_verdict(result)
    raise typer.Exit(1 if failed else 0)


def _print_verdict(result: dict) -> None:
    from rich.markup import escape

    from pipeline.predict import CONFIDENT
    from pipeline.taxonomy import UNKNOWN
    console = _stdout()
    if "error" in result:
        console.print(f"[red]{escape(result['path'])}: cannot read: {escape(result['error'])}[/red]")
        return
    others = [a for a in result["alternatives"] if a["category"] != result["category"]][:3]
    alternatives = ", ".join(f"{a['category']} {a['confidence']:.2f}" for a in others)
    if result["category"] == UNKNOWN:
        # an unknown's confidence is that of the model's "none of these" or of a guess under the floor:
        # "unknown (confidence 0.85)" read as 85% sure and then "not sure", so no number here (--json has it)
        why = _UNKNOWN_BECAUSE.get(result.get("reason") or "", _UNKNOWN_BECAUSE["below_floor"])
        console.print(f"[bold]{escape(result['path'])}[/bold]: [bold]unknown[/bold] ({why}, {result['source']})")
        if others and result.get("reason") not in ("nothing_to_read",):
            console.print(f"  {'the model guessed' if result.get('reason') in ('foreign', 'fault') else 'closest known causes'}: "
                          f"{alternatives}")
    else:
        console.print(f"[bold]{escape(result['path'])}[/bold]: [bold]{result['category']}[/bold] "
                      f"(confidence {result['confidence']:.2f}, {result['source']})")
        if result["confidence"] < CONFIDENT and others:
            # not sure: say what else it may be before the evidence, so the remedy is not read as settled
            console.print(f"  not sure; also possible: {alternatives}")
    for ev in result["evidence"]:
        where = f"line {ev['line']}" if ev["line"] is not None else "run"  # None: the container metadata
        console.print(f"  {where}: {escape(ev['text'].splitlines()[0][:200] if ev['text'] else '')}")
    console.print(f"  remedy: {escape(result['remedy'])}")


# what `logml predict` says of an unknown verdict, by its reason (predict.Verdict.reason)
_UNKNOWN_BECAUSE = {
    "learned": "it reads like the failures labeled unknown (a cause outside the known ones)",
    "below_floor": "no known cause is likely enough",
    "foreign": "the log shows no sign of an ML job, so no cause is given",
    "failed_but_reads_healthy": "the container failed but the log reads healthy",
    "no_evidence": "no line of the log supports a cause",
    "nothing_to_read": "nothing to read: the log is empty or holds no text",
    "fault": "a fault outside the known causes, see the remedy",
}


@app.command()
def label(run_id: str = typer.Argument(..., help="run id as `logml runs` shows it"),
          category: str = typer.Argument(..., help="taxonomy id"),
          note: str = typer.Option("", help="why (kept with the label)"),
          db: Optional[str] = typer.Option(None)):
    """Label a run: appended to data/labeled/hand.csv (feeds the next `logml train`) and the warehouse."""
    import csv

    from pipeline import store
    from pipeline.taxonomy import load_taxonomy
    if category not in load_taxonomy():
        _console().print(f"[red]logml:[/red] unknown category {category!r}; one of: {', '.join(load_taxonomy().ids)}")
        raise typer.Exit(2)
    db = _db(db)
    path = Path(_params()["paths"]["labeled"]) / "hand.csv"
    with store.warehouse_lock(db, wait=True), store.connect(db) as con:
        found = store.find_runs(con, run_id)
        if len(found) != 1:
            _console().print(f"[red]logml:[/red] no run {run_id!r} in {db}" if not found else
                             f"[red]logml:[/red] {run_id!r} could be {len(found)} runs: " + ", ".join(found[:5]))
            raise typer.Exit(1)
        run_id = found[0]
        # the CSV first (what the next training reads): a label that cannot be written is in neither place
        path.parent.mkdir(parents=True, exist_ok=True)
        new = not path.exists()
        with path.open("a", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            if new:
                writer.writerow(["run_id", "category", "source", "scenario", "note"])
            writer.writerow([run_id, category, "hand", "hand", note])
        store.add_label(con, run_id, category, "hand", note, scenario="hand")
    print(f"labeled {run_id} as {category} ({path})")


@app.command()
def queue(db: Optional[str] = typer.Option(None), limit: int = typer.Option(20),
          as_json: bool = typer.Option(False, "--json")):
    """The labeling queue: unknown, low-confidence, disagreeing and never-seen runs, most valuable first."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        _print_frame(store.labeling_queue(con, limit), as_json, "labeling queue")


@app.command()
def parse(file: str = typer.Argument(..., help="a log file"),
          fmt: str = typer.Option(..., "--format", help="Loghub header format, e.g. '<Date> <Time> <Level>: <Content>'"),
          out: Path = typer.Option(..., help="structured CSV (LineId, Content, EventId, EventTemplate, ...)")):
    """Mine any log with a Loghub-style header format into the Loghub structured CSV."""
    from pipeline.parse import parse_command
    summary = parse_command(file, fmt, out)
    print(json.dumps(summary, default=str))


@app.command()
def export(parquet: str = typer.Option(..., "--parquet", help="folder or fsspec URL"),
           db: Optional[str] = typer.Option(None)):
    """Export the warehouse as Parquet (events partitioned by ingest) for DuckDB, Spark or pandas."""
    from pipeline import store
    with store.connect(_db(db), read_only=True) as con:
        for path in store.export_parquet(con, parquet):
            print(path)


@app.command()
def capture(only: list[str] = typer.Option(None, help="scenario names"),
            out: str = typer.Option("data/raw/capture01")):
    """Re-capture genuine Paddle failure logs (installs Paddle wheels in /opt/paddle-venvs; slow)."""
    import subprocess
    cmd = [sys.executable, "scenarios/capture.py", "--out", out]
    if only:
        cmd += ["--only", *only]
    raise typer.Exit(subprocess.call(cmd))


rules_app = typer.Typer(help="Signature rules.")
app.add_typer(rules_app, name="rules")


@rules_app.command("check")
def rules_check(path: Optional[str] = typer.Argument(None, help="rules YAML (default: the packaged one)")):
    """Validate the rules file and run every rule's own examples."""
    from pipeline.rules import check
    errors = check(path)
    for err in errors:
        _console().print(f"[red]x[/red] {err}")
    if errors:
        raise typer.Exit(1)
    print("rules ok")


def main() -> None:
    """The console script: a held warehouse lock exits 75 (cron/Airflow retry later); a missing
    folder, warehouse or bad value is a one-line error (exit 1), not a traceback."""
    try:
        app()
    except Exception as exc:
        from pipeline.store import WarehouseLocked
        if isinstance(exc, WarehouseLocked):  # any writer: ingest, nightly, reclassify, label
            _console().print(f"[red]logml:[/red] {exc}", highlight=False)
            sys.exit(EXIT_LOCKED)
        if isinstance(exc, (FileNotFoundError, NotADirectoryError, ValueError)):
            _console().print(f"[red]logml:[/red] {exc}", highlight=False)
            sys.exit(1)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
