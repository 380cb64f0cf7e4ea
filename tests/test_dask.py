"""The Dask engine on a real 2-worker LocalCluster builds the same warehouse as the local engine."""
from __future__ import annotations

import duckdb
from conftest import make_fleet, snapshot

from pipeline.config import load_params
from pipeline.ingest import ingest


def test_dask_engine_equals_local_engine(tmp_path):
    from dask.distributed import Client, LocalCluster
    fleet = make_fleet(tmp_path / "fleet", runs=15, lines=200, seed=11)
    params = load_params()
    params["ingest"] = {**params["ingest"], "chunk_lines": 60}  # several parts per file
    local, distributed = tmp_path / "local.duckdb", tmp_path / "dask.duckdb"
    ingest(str(fleet), str(local), params)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            summary = ingest(str(fleet), str(distributed), params, engine="dask", scheduler=cluster.scheduler_address)
    assert summary.runs == 15 and summary.events > 0
    # workers read, normalized and wrote the columnar batches (their event files are the committed
    # ones), and read the files with kubelet partial lines line by line
    assert 0 < summary.files_columnar < summary.files_read
    assert summary.files_distributed == summary.files_columnar
    assert snapshot(distributed) == snapshot(local)
    with duckdb.connect(str(distributed), read_only=True) as con:
        keys = {k for (k,) in con.execute("SELECT template_key FROM templates").fetchall()}
    with duckdb.connect(str(local), read_only=True) as con:
        assert keys == {k for (k,) in con.execute("SELECT template_key FROM templates").fetchall()}
    # a rerun on Dask adds nothing, like the local engine
    again = ingest(str(fleet), str(distributed), params, engine="dask", scheduler=None)
    assert again.events == 0 and snapshot(distributed) == snapshot(local)


def test_dask_nightly_predictions_equal_local(tmp_path):
    from conftest import ROOT

    from pipeline.nightly import run_nightly
    fleet = make_fleet(tmp_path / "fleet", runs=9, lines=120, seed=12)
    params = load_params()
    params["paths"] = {**params["paths"], "models": str(ROOT / "pipeline" / "models"), "labeled": str(tmp_path / "none")}
    run_nightly(str(fleet), str(tmp_path / "local.duckdb"), params)
    run_nightly(str(fleet), str(tmp_path / "dask.duckdb"), params, engine="dask")
    query = "SELECT run_id, category, confidence, source, evidence FROM predictions ORDER BY run_id"
    with duckdb.connect(str(tmp_path / "local.duckdb"), read_only=True) as con:
        local = con.execute(query).fetchall()
    with duckdb.connect(str(tmp_path / "dask.duckdb"), read_only=True) as con:
        assert con.execute(query).fetchall() == local
    assert len(local) == 9


def test_export_parquet_is_readable_by_duckdb(tmp_path):
    from pipeline import store
    fleet = make_fleet(tmp_path / "fleet", runs=6, lines=80, seed=13)
    db = tmp_path / "w.duckdb"
    ingest(str(fleet), str(db), load_params())
    ingest(str(fleet), str(db), load_params())  # a second ingest adds nothing, and no partition
    out = tmp_path / "parquet"
    with store.connect(db, read_only=True) as con:
        written = store.export_parquet(con, str(out))
        n_events = con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        n_runs = con.execute("SELECT count(*) FROM runs").fetchall()[0][0]
    assert (out / "events").is_dir() and len(written) == 8
    with duckdb.connect() as con:
        assert con.execute(f"SELECT count(*) FROM read_parquet('{out}/events/**/*.parquet')").fetchall()[0][0] == n_events
        assert con.execute(f"SELECT count(*) FROM '{out}/runs.parquet'").fetchall()[0][0] == n_runs
        joined = con.execute(f"""SELECT count(*) FROM read_parquet('{out}/events/**/*.parquet', hive_partitioning=true) e
                                 JOIN '{out}/messages.parquet' m USING (message_key)""").fetchall()[0][0]
    assert joined == n_events
