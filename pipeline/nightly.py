"""The nightly batch: ingest what is new, refresh fleet facts, classify, and (weekly) report.

One lock for the whole job, one writer connection, one summary line; the same function serves
the CLI, the DVC `ingest` stage and tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline import config, sources, store
from pipeline.ingest import IngestSummary, ingest


@dataclass
class NightlySummary:
    ingest: IngestSummary
    classified: int = 0
    report_week: str | None = None
    report_paths: dict = field(default_factory=dict)
    model_missing: bool = False

    def line(self, db: str) -> str:
        parts = [self.ingest.line(db)]
        if self.model_missing:
            parts.append("not classified: no trained model (run `make train`)")
        else:
            parts.append(f"classified {self.classified} runs")
        if self.report_week:
            parts.append(f"report {self.report_week}: {self.report_paths.get('html')}")
        return "; ".join(parts)


def refresh_inventory(con, source: str) -> int:
    """The fleet inventory (hosts, GPU, driver) as a warehouse table the reports join."""
    inventory = sources.read_inventory(source)
    if inventory is None:
        return 0
    con.register("new_inventory", inventory.astype(str))
    con.execute("CREATE OR REPLACE TABLE inventory AS SELECT * FROM new_inventory")
    con.unregister("new_inventory")
    return len(inventory)


def refresh_labels(con, labeled_dir: str | Path) -> int:
    from pipeline.model import load_labels  # scikit-learn import: only when labels exist
    if not any(Path(labeled_dir).glob("*.csv")):
        return 0
    labels = load_labels(labeled_dir)
    con.register("new_labels", labels[["run_id", "category", "source", "scenario", "note"]])
    con.execute("DELETE FROM labels")
    con.execute("INSERT INTO labels SELECT run_id, category, source, scenario, note, now() FROM new_labels")
    con.unregister("new_labels")
    return len(labels)


def tidy_events(con, params: dict) -> None:
    """After the runs are classified (their events read): retention, then small files merged."""
    from pipeline import eventstore
    knobs = params.get("events", {})
    if eventstore.store_of(con) is None:
        return
    if knobs.get("keep_days") is not None:
        eventstore.retain(con, knobs["keep_days"])
    if knobs.get("compact", True):
        eventstore.compact(con, int(knobs.get("compact_small_rows", 1 << 20)),
                           int(knobs.get("compact_target_rows", 1 << 22)))


def run_nightly(source: str, db: str, params: dict, report: bool = False, report_week: str | None = None,
                wait: bool = False, on_file=None, engine: str = "local",
                scheduler: str | None = None) -> NightlySummary:
    from pipeline.predict import classify_runs
    models_dir = config.models_dir(params=params)
    sources.check_root(source)   # a mistyped root must not leave an empty warehouse behind
    with store.warehouse_lock(db, wait=wait):
        con = store.connect(db, events=params["paths"].get("events"))
        try:
            summary = NightlySummary(ingest(source, db, params, on_file=on_file, con=con, engine=engine,
                                            scheduler=scheduler))
            refresh_inventory(con, source)
            refresh_labels(con, params["paths"]["labeled"])
            if (models_dir / "model.json").exists():
                summary.classified = classify_runs(con, models_dir)
            else:
                summary.model_missing = True
            tidy_events(con, params)
            if report or report_week:
                from pipeline.report import build_report, default_week, write_report
                week = report_week or default_week(con)
                out = Path(params["paths"]["reports"]) / week
                summary.report_paths = write_report(build_report(con, week), out)
                summary.report_week = week
        finally:
            con.close()
    return summary
