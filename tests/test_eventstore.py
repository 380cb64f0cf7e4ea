"""The Parquet event store gives the same results as the row store (events as DuckDB rows, read line
by line: the warehouse of schema 1), survives kill -9 at every point of a batch, migrates a schema-1
warehouse without re-reading the logs, compacts and applies retention without changing what stays."""
from __future__ import annotations

import copy
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest import BOOKKEEPING, ROOT, CrashRun, make_fleet, snapshot
from test_columnar import edge_fleet

from pipeline import eventstore, store
from pipeline.config import load_params
from pipeline.ingest import ingest
from pipeline.nightly import run_nightly

PREDICTIONS = """SELECT run_id, category, confidence, source, rule_id, model_category, model_confidence,
                        model_version, evidence, alternatives FROM predictions ORDER BY run_id"""


def params_for(tmp_path: Path, name: str, rows: bool) -> dict:
    params = copy.deepcopy(load_params())
    params["paths"] = {**params["paths"], "models": str(ROOT / "pipeline" / "models"), "labeled": str(ROOT / "data" / "labeled"),
                       "reports": str(tmp_path / name / "reports"), "events": eventstore.ROWS if rows else None}
    params["ingest"]["columnar"] = not rows  # the row store is also read the old way: line by line
    return params


def nightly(root: Path, tmp_path: Path, name: str, rows: bool, week: str | None = None):
    db = tmp_path / name / "w.duckdb"
    db.parent.mkdir(parents=True)
    summary = run_nightly(str(root), str(db), params_for(tmp_path, name, rows), report_week=week)
    report = json.loads(Path(summary.report_paths["json"]).read_text())
    report.pop("generated_at")
    with duckdb.connect(str(db), read_only=True) as con:
        predictions = con.execute(PREDICTIONS).fetchall()
    return db, snapshot(db), predictions, report


@pytest.mark.parametrize("fleet, week", [("sample", "2026-W47"), ("edge", "2026-W53")])
def test_parquet_store_equals_row_store(tmp_path, fleet, week):
    root = ROOT / "data" / "raw" if fleet == "sample" else edge_fleet(tmp_path / "fleet")
    rows_db, rows, rows_pred, rows_report = nightly(root, tmp_path, "rows", rows=True, week=week)
    pq_db, parquet, pq_pred, pq_report = nightly(root, tmp_path, "parquet", rows=False, week=week)
    for table in rows:
        assert parquet[table] == rows[table], table
    assert rows["events"] and rows["message_counts"]
    assert pq_pred == rows_pred and len(pq_pred) == len(rows["runs"])
    assert pq_report == rows_report
    if fleet == "sample":
        assert rows_report["templates"]["active_count"] > 0 and rows_report["ranking"]
    with duckdb.connect(str(rows_db), read_only=True) as con:
        assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'events'"
                           ).fetchall() == [("BASE TABLE",)]
    with duckdb.connect(str(pq_db), read_only=True) as con:
        assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'events'"
                           ).fetchall() == [("VIEW",)]
        files = con.execute("SELECT path FROM event_files").fetchall()
    on_disk = sorted(p.relative_to(pq_db.with_suffix(".events")).as_posix()
                     for p in pq_db.with_suffix(".events").rglob("*.parquet"))
    assert on_disk == sorted(p for (p,) in files) and on_disk


def test_message_counts_equal_an_aggregate_of_the_events(tmp_path):
    root = make_fleet(tmp_path / "fleet", runs=12, lines=200, seed=9)
    params = copy.deepcopy(load_params())
    params["ingest"].update(batch_bytes=5000, chunk_lines=50)   # runs spread over many batches
    db = tmp_path / "w.duckdb"
    ingest(str(root), str(db), params)
    with duckdb.connect(str(db), read_only=True) as con:
        counts = con.execute("SELECT * FROM message_counts ORDER BY ALL").fetchall()
        expected = con.execute("""SELECT run_id, message_key, level, kind, count(*), min(line_no), max(line_no)
                                  FROM events GROUP BY ALL ORDER BY ALL""").fetchall()
        files = con.execute("SELECT count(*) FROM event_files").fetchall()[0][0]
    assert counts == expected and files > 5


CRASH_SCRIPT = """
import os, signal, sys
import pyarrow.parquet as pq
from pipeline import eventstore, ingest as ing
where, after = sys.argv[3], int(sys.argv[4])
calls = {"n": 0}
def kill_after(fn):
    def wrapped(*a, **k):
        out = fn(*a, **k)
        calls["n"] += 1
        if calls["n"] >= after:
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapped
if where == "write":       # mid-write: a row group of the temporary file is out, nothing renamed
    pq.ParquetWriter.write_batch = kill_after(pq.ParquetWriter.write_batch)
elif where == "rename":    # the file renamed and named in the open transaction, not committed
    eventstore.register = kill_after(eventstore.register)
ing.ingest(sys.argv[1], sys.argv[2])
if where == "compact":     # compaction committed, its old files not deleted yet
    from pipeline import store
    def delete(self, rels):
        if rels:
            os.kill(os.getpid(), signal.SIGKILL)
    eventstore.EventStore.delete = delete
    with store.connect(sys.argv[2]) as con:
        eventstore.compact(con, small_rows=10**9, target_rows=10**9)
"""


@pytest.mark.parametrize("where, after, path", [("write", 1, "columnar"), ("write", 3, "columnar"),
                                               ("rename", 2, "columnar"), ("rename", 2, "line"),
                                               ("compact", 1, "columnar")])
def test_kill_9_in_the_event_store_then_rerun_equals_uninterrupted(tmp_path, where, after, path):
    run = CrashRun(tmp_path, CRASH_SCRIPT, where, after, path)
    assert run.killed.returncode == -9
    folder = run.crashed.with_suffix(".events")
    with duckdb.connect(str(run.crashed), read_only=True) as con:
        named = {p for (p,) in con.execute("SELECT path FROM event_files").fetchall()}
        n_events = con.execute("SELECT count(*) FROM events").fetchall()[0][0]
    left = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert left - named, "the kill left no orphan file"   # a temporary, renamed or replaced file
    if where != "compact":
        assert n_events < snapshot_count(run.clean)
    run.rerun()
    assert snapshot(run.crashed) == snapshot(run.clean)
    with duckdb.connect(str(run.crashed), read_only=True) as con:
        named = {p for (p,) in con.execute("SELECT path FROM event_files").fetchall()}
    assert {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} == named


def snapshot_count(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM events").fetchall()[0][0]


def downgrade_to_v1(db: Path) -> None:
    """A row-store warehouse without what schema 2 added is a warehouse of schema 1 (its tables
    are MIGRATIONS[0]'s)."""
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE event_files")
        con.execute("DROP TABLE message_counts")
        con.execute("DELETE FROM meta WHERE key = 'events_root'")
        con.execute("ALTER TABLE files DROP COLUMN mtime")   # and what schema 3 added
        con.execute("ALTER TABLE predictions DROP COLUMN remedy_id")
        con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


def test_schema_1_warehouse_migrates_forward_without_reading_the_logs(tmp_path):
    raw = ROOT / "data" / "raw"
    old, fresh = tmp_path / "old.duckdb", tmp_path / "fresh.duckdb"
    params = copy.deepcopy(load_params())
    ingest(str(raw), str(fresh), params)
    params["paths"]["events"] = eventstore.ROWS
    ingest(str(raw), str(old), params)
    downgrade_to_v1(old)
    with duckdb.connect(str(old), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events").fetchall()[0][0] > 40_000
    with pytest.raises(ValueError, match="logml compact"):   # a reader says how to migrate
        store.connect(old, read_only=True)
    with store.connect(old) as con:   # the migration: no source is given, no log can be read
        assert store.schema_version(con) == store.SCHEMA_VERSION == 3
        assert eventstore.store_of(con).root == eventstore.default_root(str(old))
        # so the files' modification times stay unknown (their runs carry timestamps of their own)
        assert con.execute("SELECT count(*) FROM files WHERE mtime IS NOT NULL").fetchall() == [(0,)]

    def without_file_times(snap):
        with duckdb.connect(str(fresh), read_only=True) as con:
            cols = [r[0] for r in con.execute("DESCRIBE files").fetchall() if r[0] not in BOOKKEEPING]
        return {**snap, "files": sorted((tuple(v for c, v in zip(cols, row) if c != "mtime") for row in snap["files"]),
                                        key=repr)}
    assert without_file_times(snapshot(old)) == without_file_times(snapshot(fresh))
    assert any(old.with_suffix(".events").rglob("*.parquet"))
    again = ingest(str(raw), str(old), load_params())   # and it goes on from the migrated offsets
    assert (again.lines, again.events) == (0, 0)
    assert without_file_times(snapshot(old)) == without_file_times(snapshot(fresh))


def test_compaction_and_retention_keep_what_they_must(tmp_path):
    root, db = make_fleet(tmp_path / "fleet", runs=12, lines=200, seed=9), tmp_path / "w.duckdb"
    params = copy.deepcopy(load_params())
    params["ingest"]["batch_bytes"] = 5000
    ingest(str(root), str(db), params)
    before = snapshot(db)
    with store.connect(db) as con:
        n_files = store.scalar(con, "SELECT count(*) FROM event_files")
        out = eventstore.compact(con, small_rows=1 << 20, target_rows=600)
        assert out["merged"] == n_files and 1 < out["files"] < n_files
        assert store.scalar(con, "SELECT count(*) FROM event_files") == out["files"]
    assert snapshot(db) == before
    folder = db.with_suffix(".events")
    assert len(list(folder.rglob("*.parquet"))) == out["files"]
    # retention, with a cutoff in the middle of the fleet's log time
    with store.connect(db) as con:
        middle = con.execute("SELECT quantile_disc(ts, 0.5) FROM events").fetchall()[0][0]
        r = eventstore.retain(con, keep_days=1, now=middle + dt.timedelta(days=1))
        assert r["rewritten_files"] > 0
        kept = con.execute("SELECT min(ts), count(*), count(*) FILTER (ts < ?) FROM events", [middle]).fetchall()[0]
        assert kept[0] >= middle and 0 < kept[1] < len(before["events"]) and kept[2] == 0
        r = eventstore.retain(con, keep_days=1, now=dt.datetime(2026, 12, 31))
        assert r["dropped_files"] > 0 and store.scalar(con, "SELECT count(*) FROM events") == 0
    after = snapshot(db)
    for table in ("runs", "files", "messages", "templates", "problems", "message_counts"):
        assert after[table] == before[table], table
    assert not list(folder.rglob("*.parquet"))
    again = ingest(str(root), str(db), params)   # offsets stay: nothing is read again
    assert again.lines == 0


def test_event_store_at_an_fsspec_url(tmp_path):
    root = make_fleet(tmp_path / "fleet", runs=6, lines=80, seed=13)
    params = copy.deepcopy(load_params())
    params["paths"]["events"] = "memory://logml-test/events"
    db = tmp_path / "w.duckdb"
    ingest(str(root), str(db), params)
    local = tmp_path / "local.duckdb"
    ingest(str(root), str(local), load_params())
    with store.connect(db, read_only=True) as con:   # DuckDB reads the files through fsspec
        n = con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        assert eventstore.store_of(con).listing()
    assert n == snapshot_count(local) > 0


def test_compact_cli(tmp_path):
    root, db = make_fleet(tmp_path / "fleet", runs=6, lines=80, seed=13), tmp_path / "w.duckdb"
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  batch_bytes: 3000\n")
    env = {**os.environ, "LOGML_PARAMS": str(params)}
    subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(root), "--db", str(db)], env=env,
                   check=True, cwd=ROOT, capture_output=True)
    out = subprocess.run([sys.executable, "-m", "pipeline.cli", "compact", "--db", str(db), "--json"], env=env,
                         check=True, cwd=ROOT, capture_output=True, text=True)
    result = json.loads(out.stdout)
    assert result["compaction"]["merged"] > 1 and result["files"] == 1


def test_nightly_retention_keeps_runs_messages_templates_counts_and_predictions(tmp_path):
    root = make_fleet(tmp_path / "fleet", runs=9, lines=120, seed=12)
    params = params_for(tmp_path, "kept", rows=False)
    db = tmp_path / "kept.duckdb"
    run_nightly(str(root), str(db), params)
    before = snapshot(db)
    with duckdb.connect(str(db), read_only=True) as con:
        predictions = con.execute(PREDICTIONS).fetchall()
    # keep "the last -36500 days": a cutoff a century from now, whatever the clock says: all is old
    params["events"] = {**params["events"], "keep_days": -36500}
    again = run_nightly(str(root), str(db), params)
    assert again.ingest.lines == 0
    after = snapshot(db)
    assert not after["events"] and before["events"]
    for table in ("runs", "files", "messages", "templates", "message_counts"):
        assert after[table] == before[table], table
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(PREDICTIONS).fetchall() == predictions and len(predictions) == 9
        assert con.execute("SELECT count(*) FROM event_files").fetchall() == [(0,)]
    # re-classifying every run (a new model) keeps the verdicts made when the whole log was there
    from pipeline.predict import classify_runs
    with store.connect(db) as con:
        assert store.runs_missing_events(con) == {p[0] for p in predictions}
        assert classify_runs(con, params["paths"]["models"], scope="all") == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(PREDICTIONS).fetchall() == predictions


def test_a_warehouse_moved_or_copied_with_its_events_reads_its_own_folder(tmp_path):
    """A warehouse keeps its events root absolute: copied or moved together with the folder beside it, it reads
    that folder (not the original's, which may be gone or be another warehouse's); without it, a clear error."""
    import shutil
    root, db = make_fleet(tmp_path / "fleet", runs=6, lines=80, seed=13), tmp_path / "a" / "w.duckdb"
    ingest(str(root), str(db), load_params())
    events_sql = "SELECT run_id, line_no, message FROM events ORDER BY ALL"
    with store.connect(db, read_only=True) as con:
        before = con.execute(events_sql).fetchall()
    copy_db = tmp_path / "b" / "w.duckdb"
    copy_db.parent.mkdir()
    shutil.copy(db, copy_db)
    shutil.copytree(db.with_suffix(".events"), copy_db.with_suffix(".events"))
    shutil.rmtree(tmp_path / "a")   # the original is gone
    with store.connect(copy_db, read_only=True) as con:
        assert eventstore.store_of(con).root == str(copy_db.with_suffix(".events"))
        assert con.execute(events_sql).fetchall() == before and before
    with store.connect(copy_db) as con:   # a writer records where its events now are
        assert store.scalar(con, "SELECT value FROM meta WHERE key = 'events_root'") == str(copy_db.with_suffix(".events"))
    assert len(snapshot(copy_db)["events"]) == len(before)   # its persistent view names the new files too
    shutil.rmtree(copy_db.with_suffix(".events"))
    with pytest.raises(FileNotFoundError, match="events folder .* is missing"):
        store.connect(copy_db, read_only=True)
