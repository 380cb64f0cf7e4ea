"""Ingest against real files, a real DuckDB warehouse and real Drain3: safe, incremental, exact."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest
from conftest import ROOT, CrashRun, snapshot, write_docker, write_plain

from pipeline import store
from pipeline.ingest import ingest


def q(db: Path, sql: str):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_formats_and_metadata(fleet, tmp_path):
    db = tmp_path / "w.duckdb"
    summary = ingest(str(fleet), str(db))
    assert summary.runs == 12 and summary.new_runs == 12 and summary.problems == 0
    kinds = dict(q(db, "SELECT kind, count(*) FROM runs GROUP BY kind"))
    assert kinds == {"docker": 4, "cri": 4, "file": 4}
    docker = q(db, "SELECT image, image_tag, exit_code, oom_killed, started_at IS NOT NULL, driver_api, "
                   "runtime_api, compute_capability FROM runs WHERE kind = 'docker' LIMIT 1")[0]
    assert docker == ("paddlepaddle/paddle:2.6.0-gpu-cuda11.8-cudnn8", "2.6.0-gpu-cuda11.8-cudnn8", 1, False,
                      True, "12.2", "11.8", "8.6")
    assert q(db, "SELECT DISTINCT exit_code FROM runs WHERE kind = 'file'") == [(0,)]
    # Every physical line is accounted for: CRI partials are joined, tracebacks grouped.
    lines_on_disk = sum(len(p.read_text().splitlines()) for p in fleet.rglob("*.log"))
    assert summary.lines == lines_on_disk
    assert q(db, "SELECT sum(lines_read) FROM files")[0][0] == lines_on_disk
    # Every event points to a message with a template; counts are exact.
    assert q(db, "SELECT count(*) FROM events e LEFT JOIN messages m USING (message_key) "
                 "WHERE m.template_key IS NULL")[0][0] == 0
    assert q(db, "SELECT sum(count) FROM templates")[0][0] == q(db, "SELECT count(*) FROM events")[0][0]
    tracebacks = q(db, "SELECT message, n_lines FROM events WHERE kind = 'py_traceback'")
    assert tracebacks and all(m.startswith("OSError: (External) CUDA error(35)") for m, _ in tracebacks)


def test_second_run_adds_nothing(fleet, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(str(fleet), str(db))
    before = snapshot(db)
    again = ingest(str(fleet), str(db))
    assert (again.events, again.lines, again.new_templates, again.new_runs, again.problems) == (0, 0, 0, 0, 0)
    assert snapshot(db) == before


def test_appended_and_rotated_files_add_only_new_lines(tmp_path):
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    cid = "c" * 64
    live = write_docker(root, "h01", cid, [f"step {i} loss {i * 0.5}" for i in range(50)], "img:1")
    plain = write_plain(root, "h02", "job", [f"epoch {i} done" for i in range(30)])
    ingest(str(root), str(db))
    # Night 2: the plain file grew; the docker log rotated (live -> .1 with 10 more lines, then gzipped)
    # and a new live file started.
    write_plain(root, "h02", "job", [f"epoch {i} done" for i in range(30, 40)])
    write_docker(root, "h01", cid, [f"step {i} loss {i * 0.5}" for i in range(50, 60)], "img:1")
    rotated = live.with_name(live.name + ".1")
    live.rename(rotated)
    write_docker(root, "h01", cid, [f"step {i} loss {i * 0.5}" for i in range(60, 75)], "img:1", t0=60)
    night2 = ingest(str(root), str(db))
    assert night2.lines == 10 + 10 + 15
    # Night 3: the rotated file is compressed by the shipper: nothing new.
    with rotated.open("rb") as src, gzip.open(str(rotated) + ".gz", "wb") as dst:
        dst.write(src.read())
    rotated.unlink()
    night3 = ingest(str(root), str(db))
    assert night3.lines == 0 and night3.events == 0
    messages = [m for (m,) in q(db, "SELECT message FROM events WHERE run_id LIKE 'h01/%'")]
    assert sorted(messages) == sorted(f"step {i} loss {i * 0.5}" for i in range(75))
    assert q(db, "SELECT count(*), count(DISTINCT line_no) FROM events WHERE run_id LIKE 'h02/%'")[0] == (40, 40)
    assert plain.exists()



def test_a_grown_file_whose_new_lines_have_no_level_is_merged(tmp_path):
    # The new lines end without a newline, so they are read line by line, and none has a level: the
    # batch's level column had no type, and merging it into the run's counts raised on every rerun.
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    path = write_plain(root, "h01", "job", ["INFO start", "ERROR boom"])
    ingest(str(root), str(db))
    with path.open("a", encoding="utf-8") as fh:
        fh.write("no level here\nstill none")
    night2 = ingest(str(root), str(db))
    assert night2.lines == 2 and "ingested 1 runs (0 new, 1 grown)" in night2.line(str(db))
    assert q(db, "SELECT sum(count), count(*) FILTER (WHERE level IS NULL) FROM message_counts") == [(4, 2)]


def test_utf16_files_are_read_as_the_text_they_encode(tmp_path):
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    lines = ["2026-12-01 10:00:00 INFO 开始训练 epoch 1", "Traceback (most recent call last):",
             '  File "train.py", line 3, in <module>', "ImportError: libGL.so.1: cannot open shared object file"]
    for job, bom, codec, eol in (("le", b"\xff\xfe", "utf-16-le", "\r\n"), ("be", b"\xfe\xff", "utf-16-be", "\n")):
        folder = root / "h01" / "files" / job
        folder.mkdir(parents=True)
        (folder / "train.log").write_bytes(bom + eol.join(lines + [""]).encode(codec))
    write_plain(root, "h01", "utf8", lines)
    ingest(str(root), str(db))
    by_run = {}
    for run_id, message in q(db, "SELECT run_id, message FROM events ORDER BY run_id, line_no"):
        by_run.setdefault(run_id.split("/")[2], []).append(message)
    assert by_run["le"] == by_run["be"] == by_run["utf8"] and by_run["le"][0] == "开始训练 epoch 1"
    assert q(db, "SELECT count(*) FROM problems") == [(0,)]
    # The file grows (no BOM on the appended text): only the new lines are read, at the right line numbers.
    with (root / "h01" / "files" / "le" / "train.log").open("ab") as fh:
        fh.write("第二行 done\r\nepoch 2 loss 0.1\r\n".encode("utf-16-le"))
    night2 = ingest(str(root), str(db))
    assert night2.lines == 2
    assert q(db, "SELECT line_no, message FROM events WHERE run_id LIKE '%/le/%' AND line_no > 4 ORDER BY 1") == [
        (5, "第二行 done"), (6, "epoch 2 loss 0.1")]


def test_problems_list_what_is_still_true_once_and_a_rerun_says_nothing_new(tmp_path, monkeypatch):
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    write_plain(root, "h01", "job", ["INFO start"])
    misnamed = root / "h01" / "files" / "stdout.txt"
    misnamed.write_text("2026-12-01 10:00:00 INFO x\nERROR y\n")
    ingest(str(root), str(db))
    rerun = ingest(str(root), str(db))
    assert rerun.line(str(db)).startswith("nothing new: 1 runs known, 1 files unchanged")
    assert rerun.problems == 1   # each ingest still says what it met
    with store.connect(str(db), read_only=True) as con:
        current = store.list_problems(con)
        assert list(zip(current["path"], current["seen"], current["ingest_id"])) == [(str(misnamed), 2, 2)]
        assert len(store.list_problems(con, history=True)) == 2
    misnamed.rename(misnamed.with_suffix(".log"))
    monkeypatch.chdir(tmp_path)   # the same root spelled another way (tester 19): its problems are judged as one
    fixed = ingest("./fleet/", str(db))
    assert fixed.new_runs == 1 and not fixed.line(str(db)).startswith("nothing new")
    with store.connect(str(db), read_only=True) as con:
        assert store.list_problems(con).empty

CRASH_SCRIPT = """
import os, signal, sys
from pipeline import ingest as ing, mining
where, after = sys.argv[3], int(sys.argv[4])
calls = {"n": 0}
def crash_then(fn):
    def wrapped(*a, **k):
        out = fn(*a, **k)
        calls["n"] += 1
        if calls["n"] >= after:
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no atexit, open transaction
        return out
    return wrapped
if where == "events":      # inside a chunk transaction, after its events were inserted
    ing.write_batch = crash_then(ing.write_batch)
elif where == "mining":    # phase 2, after Drain3 ran, before its transaction commits
    mining.TemplateMiner.learn = crash_then(mining.TemplateMiner.learn)
print(ing.ingest(sys.argv[1], sys.argv[2]).line(sys.argv[2]))
"""


@pytest.mark.parametrize("where, after, path", [("events", 1, "line"), ("events", 5, "line"), ("mining", 1, "line"),
                                               ("events", 1, "columnar"), ("events", 3, "columnar"),
                                               ("mining", 1, "columnar")])
def test_kill_9_then_rerun_equals_uninterrupted(tmp_path, where, after, path):
    run = CrashRun(tmp_path, CRASH_SCRIPT, where, after, path)
    assert run.killed.returncode == -9
    table = "templates" if where == "mining" else "events"
    assert q(run.crashed, f"SELECT count(*) FROM {table}")[0][0] < q(run.clean, f"SELECT count(*) FROM {table}")[0][0]
    (runs, unread), = q(run.crashed, "SELECT count(*), count(*) FILTER (WHERE run_id NOT IN (SELECT run_id FROM files)) "
                                     "FROM runs")
    rerun = run.rerun()
    assert snapshot(run.crashed) == snapshot(run.clean)
    # the rerun's summary: a run of which nothing was committed is new to it, not "grown"
    if where == "events":
        assert unread > 0 and f"({unread} new, " in rerun.stdout, rerun.stdout
        grown = int(rerun.stdout.split(" new, ")[1].split(" grown")[0])
        assert grown <= runs - unread, rerun.stdout


def test_lock_stops_a_second_nightly_and_wait_waits(fleet, tmp_path):
    db = tmp_path / "w.duckdb"
    logml = [sys.executable, "-m", "pipeline.cli", "nightly", str(fleet), "--db", str(db)]
    with store.warehouse_lock(db):
        second = subprocess.run(logml, capture_output=True, text=True, cwd=ROOT)
    assert second.returncode == 75
    assert "locked" in second.stderr and "--wait" in second.stderr
    assert not db.exists() or q(db, "SELECT count(*) FROM runs")[0][0] == 0

    holder = threading.Event()

    def hold():
        with store.warehouse_lock(db):
            holder.set()
            time.sleep(1.5)

    thread = threading.Thread(target=hold)
    thread.start()
    holder.wait()
    started = time.monotonic()
    waited = subprocess.run(logml + ["--wait"], capture_output=True, text=True, cwd=ROOT)
    thread.join()
    assert waited.returncode == 0, waited.stderr
    assert time.monotonic() - started >= 1.0
    assert "ingested 12 runs" in waited.stdout


def test_bad_inputs_are_recorded_and_the_batch_goes_on(tmp_path):
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    good = write_plain(root, "h01", "good", ["epoch 1 done", "epoch 2 done"])
    files = root / "h01" / "files"
    (files / "bytes").mkdir()
    (files / "bytes" / "train.log").write_bytes(b"ok line\nbad \xff\xfe bytes\nnul\x00here\nlast ok\n")
    (files / "huge").mkdir()
    (files / "huge" / "train.log").write_bytes(b"before\n" + b"x" * (10 << 20) + b"\nafter\n")
    (files / "binary").mkdir()
    (files / "binary" / "train.log").write_bytes(bytes(range(256)) * 400)
    (files / "empty").mkdir()
    (files / "empty" / "train.log").write_bytes(b"")
    (files / "dir.log").mkdir()  # unreadable: a directory named like a log
    cid = "d" * 64
    docker = write_docker(root, "h02", cid, ["first", "second"], "img:1")
    with docker.open("a") as fh:
        fh.write('{"log": "broken json\n')
        fh.write(json.dumps({"log": "third\n", "stream": "stdout", "time": "2026-11-29T10:00:09Z"}) + "\n")
    gz_folder = root / "h03" / "docker" / "containers" / ("e" * 64)
    gz_folder.mkdir(parents=True)
    payload = gzip.compress("".join(
        json.dumps({"log": f"rotated line {i}\n", "stream": "stdout", "time": "2026-11-29T09:00:00Z"}) + "\n"
        for i in range(2000)).encode())
    (gz_folder / f"{'e' * 64}-json.log.1.gz").write_bytes(payload[: len(payload) // 2])
    pod = root / "h04" / "pods" / "ns_pod_uid" / "c"
    pod.mkdir(parents=True)
    (pod / "0.log").write_text("2026-11-29T10:00:00Z stdout F complete\n2026-11-29T10:00:01Z stdout P never end")

    summary = ingest(str(root), str(db))
    reasons = {r for (r,) in q(db, "SELECT DISTINCT reason FROM problems")}
    assert {"invalid_utf8", "nul_bytes", "line_too_long", "binary", "malformed_json", "truncated_gzip",
            "cri_partial_unterminated"} <= reasons, reasons
    assert summary.problems == q(db, "SELECT count(*) FROM problems")[0][0]
    assert sum(summary.problem_reasons.values()) == summary.problems
    messages = {m for (m,) in q(db, "SELECT message FROM events")}
    assert {"epoch 1 done", "ok line", "last ok", "before", "after", "first", "second", "third",
            "complete", "rotated line 0"} <= messages
    assert "nulhere" in messages
    assert good.exists()
    # Every problem names its file; the rerun adds nothing (no duplicate problems either).
    assert q(db, "SELECT count(*) FROM problems WHERE path IS NULL OR path = ''")[0][0] == 0
    before = snapshot(db)
    ingest(str(root), str(db))
    assert snapshot(db) == before


def test_template_keys_are_stable_across_nights(tmp_path):
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    write_plain(root, "h01", "a", ["worker 1 started with pid 10", "saving checkpoint to /out/a/b.pdparams"])
    ingest(str(root), str(db))
    night1 = dict(q(db, "SELECT template, template_key FROM templates"))
    key = night1["worker <NUM> started with pid <NUM>"]
    write_plain(root, "h02", "b", ["worker 2 started with tid 11", "saving checkpoint to /out/c/d.pdparams"])
    ingest(str(root), str(db))
    night2 = dict(q(db, "SELECT template_key, template FROM templates"))
    assert night2[key] == "worker <NUM> started with <*> <NUM>"  # generalised, same key
    assert set(night1.values()) <= set(night2)
    # Night-1 rows follow their template to its final form.
    rows = q(db, "SELECT DISTINCT t.template FROM events e JOIN messages m USING (message_key) "
                 "JOIN templates t USING (template_key) WHERE e.message LIKE 'worker%'")
    assert rows == [("worker <NUM> started with <*> <NUM>",)]


def test_schema_migrates_forward_and_refuses_newer(tmp_path):
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        assert store.schema_version(con) == 0
        assert store.migrate(con) == store.SCHEMA_VERSION
        assert store.schema_version(con) == store.SCHEMA_VERSION
        con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        with pytest.raises(RuntimeError, match="newer"):
            store.migrate(con)


def test_missing_source_or_warehouse_is_a_one_line_error(tmp_path):
    for args in (["nightly", str(tmp_path / "nowhere"), "--db", str(tmp_path / "w.duckdb")],
                 ["ingest", str(tmp_path / "nowhere"), "--db", str(tmp_path / "w.duckdb")],
                 ["templates", "--db", str(tmp_path / "absent.duckdb")]):
        out = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 1
        assert out.stderr.startswith("logml:") and "Traceback" not in out.stderr
    # a mistyped root leaves no empty warehouse (nor its lock) behind
    assert not any(tmp_path.iterdir())


def test_a_failed_warehouse_write_is_raised_and_the_writer_thread_stops():
    """A write that fails (DuckDB out of memory, a full disk) reaches the ingest as its error: the next submit
    raises it, and closing the writer returns instead of waiting forever for a batch that never comes."""
    from pipeline.ingest import _Committer
    committer = _Committer()

    def fails():
        raise duckdb.OutOfMemoryException("failed to allocate data of size 16.0 KiB")
    committer.submit(fails)
    with pytest.raises(duckdb.OutOfMemoryException):
        committer.drain()
    with pytest.raises(duckdb.OutOfMemoryException):
        committer.submit(lambda: None)
    closer = threading.Thread(target=committer.close, daemon=True)
    closer.start()
    closer.join(timeout=10)
    assert not closer.is_alive()


@pytest.mark.parametrize("message, version", [
    ("paddle version: 2.6.2", "2.6.2"), ("paddle.__version__ 2.5.1", "2.5.1"),
    ("Requirement already satisfied: paddlepaddle-gpu==2.4.2.post117", "2.4.2.post117"),
    ("Successfully installed paddlepaddle-gpu-2.6.2 protobuf-3.20.2", "2.6.2"),
    ("PaddlePaddle 3.0.0 works well", "3.0.0"), ("Paddle Inference version: 2.5.0", "2.5.0"),
    ("pulling paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6", "2.6.1"),
    # other packages' versions are not Paddle's
    ("x2paddle 1.4.1 converting", None), ("paddle2onnx 1.0.5", None), ("PaddleNLP 2.5.2", None),
])
def test_paddle_version_is_read_from_what_paddle_and_pip_print(message, version):
    from pipeline.ingest import _facts_sql
    con = duckdb.connect()
    con.execute("CREATE TABLE batch AS SELECT 'r' AS run_id, 0 AS seq, ? AS message", [message])
    rows = con.execute(f"SELECT paddle_version FROM ({_facts_sql()})").fetchall()
    assert (rows[0][0] if rows else None) == version


def test_the_runs_and_problems_tables_are_made_for_a_terminal(tmp_path):
    """`runs` shows the few columns a person scans (a container id cut to docker's 12), `--wide` and
    `--json` all of them; `problems` gives a GBK log one row, not one per line."""
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    cid = "3f" * 32
    write_docker(root, "gpu01", cid, ["epoch 1 step 10 loss 2.31", "ImportError: libGL.so.1: cannot open shared object file"],
                 "paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6", exit_code=1)
    gbk = root / "gpu01" / "files" / "win" / "train.log"
    gbk.parent.mkdir(parents=True)
    gbk.write_bytes("\n".join(["D:\\项目\\ocr> python train.py", "epoch 1 loss 2.3", "开始训练", "step 10", "第 1 轮 损失 2.31",
                               "找不到数据集目录", "done", "训练结束"]).encode("gbk") + b"\n")
    ingest(str(root), str(db))
    env = {"COLUMNS": "500", "PATH": "/usr/bin:/bin"}

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "pipeline.cli", *args, "--db", str(db)], capture_output=True,
                             text=True, cwd=ROOT, env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout
    table = cli("runs")
    assert cid[:12] in table and cid not in table and "driver_api" not in table and "category" in table
    assert "driver_api" in cli("runs", "--wide")
    (docker,) = [r for r in map(json.loads, cli("runs", "--json").splitlines()) if r["run_id"].endswith(cid)]
    assert docker["paddle_version"] == "2.6.1"   # the log never says it: Paddle's own image's tag does
    rows = [json.loads(line) for line in cli("problems", "--json").splitlines()]
    assert len(rows) == 5 and {r["reason"] for r in rows} == {"invalid_utf8"}
    table = cli("problems")
    assert table.count("invalid_utf8") == 1 and "decoded as GB18030" in table
