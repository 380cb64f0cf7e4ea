"""The weekly reliability report: ranking, concentration, fixes, week-over-week, untrusted text."""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from pipeline import eventstore, store
from pipeline.report import (
    _runs,
    binom_two_sided,
    build_report,
    clean,
    default_week,
    empty_week_hint,
    md,
    md_code,
    parse_week,
    report_command,
    summary_line,
    week_of,
    write_report,
)

WEEK, PREV = "2026-W48", "2026-W47"
W47 = dt.datetime(2026, 11, 16)
HOSTS = [f"h{i:02d}" for i in range(1, 13)]
PLANTED = ["h03", "h07", "h11"]          # driver 470 (CUDA <= 11.4)
OFF = "paddlepaddle/paddle:"
HOSTILE = "<script>alert(1)</script>"
ANSI = "\x1b[31mRED\x1b[0m"

INVENTORY = pd.DataFrame(
    [{"host": h, "gpu_model": "Tesla T4",
      "driver_version": "470.239.06" if h in PLANTED else ("535.183.01" if i % 2 else "570.124.06"),
      "cuda_driver_max": "11.4" if h in PLANTED else ("12.2" if i % 2 else "12.8"), "node_pool": "pool"}
     for i, h in enumerate(HOSTS)])

# category -> (message_key, template_key, message text, template text)
MSG = {
    "cuda_driver_too_old": ("m_cuda", "T_cuda", "OSError: (External) CUDA error(35), CUDA driver version is insufficient "
                            "for CUDA runtime version.", "OSError: (External) CUDA error(<NUM>), CUDA driver version is "
                            "insufficient for CUDA runtime version."),
    "gpu_oom": ("m_oom", "T_oom", "MemoryError: (ResourceExhausted) Out of memory error on GPU 0.",
                "MemoryError: (ResourceExhausted) Out of memory error on GPU <NUM>."),
    "shm_old": ("m_shm_old", "T_shm_old", "Bus error (core dumped)", "Bus error (core dumped)"),
    "shm_new": ("m_shm_new", "T_shm_new", "ERROR: Unexpected BUS error encountered in DataLoader worker.",
                "ERROR: Unexpected BUS error encountered in DataLoader worker."),
    "evil": ("m_evil", "T_evil", f"ValueError: {HOSTILE} {ANSI} `tick` | pipe \u202eevil",
             f"ValueError: {HOSTILE} <*>"),
}


def _image_for(host: str, day: int, k: int, week: int) -> str:
    if host in PLANTED:
        bad = k == 0 and (week == 1 or day in (1, 4))     # this week every day, last week two days
        return "2.6.0-gpu-cuda11.8-cudnn8" if bad else "2.6.0-gpu-cuda11.2-cudnn8"
    i = HOSTS.index(host)
    return ["2.6.0-gpu-cuda11.8-cudnn8", "2.1.2-gpu-cuda11.2-cudnn8", "latest-gpu",
            "3.0.0-gpu-cuda12.0-cudnn8.9"][(i + day + k) % 4]


def build_fixture_warehouse(db: Path) -> Path:
    """Two weeks of a 12-host fleet: 3 hosts on driver 470 get cuda11.8 images and fail with
    cuda_driver_too_old (21 runs this week, 6 last week); the rest is healthy apart from a few
    GPU OOMs and shm failures, one hostile run and one hostile category id."""
    runs, preds, events = [], [], []
    n = 0
    for week in (0, 1):
        for day in range(7):
            for hi, host in enumerate(HOSTS):
                for k in range(2):
                    n += 1
                    tag = _image_for(host, day, k, week)
                    start = W47 + dt.timedelta(days=7 * week + day, hours=2 + 8 * k, minutes=hi)
                    cat = "no_failure"
                    if host in PLANTED and "cuda11.8" in tag:
                        cat = "cuda_driver_too_old"
                    elif host not in PLANTED and k == 1 and (hi + day) % 9 == 0:
                        cat = "gpu_oom"
                    elif host not in PLANTED and k == 0 and (hi * (day + 1)) % 13 == 5:
                        cat = "shm_exhausted"
                    hours = {"no_failure": 3.0, "cuda_driver_too_old": 0.02, "gpu_oom": 2.0, "shm_exhausted": 1.0}[cat]
                    run_id = f"{host}/docker/containers/{n:04d}"
                    runs.append({"run_id": run_id, "host": host, "image": OFF + tag, "image_tag": tag,
                                 "exit_code": 0 if cat == "no_failure" else 1, "started_at": start,
                                 "finished_at": start + dt.timedelta(hours=hours),
                                 "labels": json.dumps({"gpu_count": "2", "team": "ocr"})})
                    if cat == "no_failure":
                        preds.append((run_id, cat, 0.95, "rule", None, "[]"))
                        continue
                    key = {"shm_exhausted": "shm_new" if week == 1 else "shm_old"}.get(cat, cat)
                    mk, tk, text, _ = MSG[key]
                    events.append((run_id, 7, start + dt.timedelta(minutes=1), "ERROR", "line", mk, text))
                    model_cat = "host_oom" if (cat == "gpu_oom" and day % 2) else cat
                    preds.append((run_id, cat, 0.9, "hybrid", model_cat,
                                  json.dumps([{"line": 7, "text": text, "template_id": tk}])))
    # the hostile run: HTML, ANSI, control chars, bidi override, backticks and pipes; unknown, low confidence
    start = W47 + dt.timedelta(days=9, hours=5)
    evil_id = "h05/docker/containers/<img src=x onerror=alert(3)>"
    runs.append({"run_id": evil_id, "host": "h05", "image": "evil/</svg><script>alert(2)</script>:1",
                 "image_tag": "1", "exit_code": 1, "started_at": start, "finished_at": start + dt.timedelta(hours=1),
                 "labels": json.dumps({"gpus": "0,1", "note": HOSTILE})})
    mk, tk, text, _ = MSG["evil"]
    events.append((evil_id, 3, start, "ERROR", "py_traceback", mk, "Traceback ...\n" + text + "\x07\x00"))
    preds.append((evil_id, "unknown", 0.3, "model", None,
                  json.dumps([{"line": 3, "text": text + "\n\x1b]0;title\x07next", "template_id": tk}])))
    # a prediction whose category id itself is hostile
    runs.append({"run_id": "h06/x/1", "host": "h06", "image": OFF + "latest-gpu", "image_tag": "latest-gpu",
                 "exit_code": 1, "started_at": start, "finished_at": None, "labels": "{}"})
    preds.append(("h06/x/1", "<b onmouseover=alert(4)>bad</b>", 0.2, "model", None, "[]"))

    con = store.connect(db)
    con.register("runs_df", pd.DataFrame(runs))
    con.execute("""INSERT INTO runs (run_id, host, kind, image, image_tag, exit_code, oom_killed, started_at,
                                     finished_at, labels, first_ts, last_ts, n_events)
                   SELECT run_id, host, 'docker', image, image_tag, exit_code, false, started_at, finished_at,
                          labels::JSON, started_at, finished_at, 10 FROM runs_df""")
    con.register("events_df", pd.DataFrame(events, columns=["run_id", "line_no", "ts", "level", "kind",
                                                            "message_key", "message"]))
    eventstore.append(con, """SELECT run_id, 'f' AS file_id, line_no, 1 AS n_lines, ts, 'stderr' AS stream, level,
                                     kind, message_key, message, NULL AS text, 1 AS ingest_id FROM events_df""", 1)
    for key, (mk, tk, text, tpl) in MSG.items():
        first = W47 + dt.timedelta(days=7 if key in ("shm_new", "evil") else 0)
        con.execute("INSERT INTO messages VALUES (?, ?, ?, 1, ?, ?, ?, 1)", [mk, tpl, tk, first, first, text])
        con.execute("INSERT INTO templates VALUES (?, 1, ?, ?, 1, 1, ?, ?, ?, 1)", [tk, tpl, tpl, first, first, text])
    con.register("preds_df", pd.DataFrame(preds, columns=["run_id", "category", "confidence", "source",
                                                          "model_category", "evidence"]))
    con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category, model_confidence, model_version, evidence, alternatives, predicted_at)
                   SELECT run_id, category, confidence, source, NULL, model_category, 0.7,
                          'test', evidence::JSON, '[]', now() FROM preds_df""")
    con.close()
    return db


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return build_fixture_warehouse(tmp_path_factory.mktemp("wh") / "wh.duckdb")


@pytest.fixture(scope="module")
def report(warehouse: Path) -> dict:
    con = store.connect(warehouse, read_only=True)
    try:
        return build_report(con, WEEK, inventory=INVENTORY)
    finally:
        con.close()


def _html_ranking(html_text: str) -> list[str]:
    table = html_text.split('id="ranking-table"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr><td class="n">\d+</td><td><b>(.*?)</b>', table)


def _md_ranking(md_text: str) -> list[str]:
    section = md_text.split("## Environment failures, ranked", 1)[1].split("\n## ", 1)[0]
    return [row.split("|")[2].strip().replace("\\", "") for row in section.splitlines()
            if re.match(r"^\| \d+ \|", row)]


def test_planted_cause_tops_the_report_with_hosts_and_fix(report):
    top = report["ranking"][0]
    assert top["category"] == "cuda_driver_too_old"
    assert top["runs"] == 21 and top["runs_last"] == 6 and top["hosts"] == 3
    assert top["remedy"].startswith("pick an image tag")
    assert top["evidence"] and "CUDA driver version is insufficient" in top["evidence"][0]["summary"]
    assert len(top["run_ids"]) == 5 and all(r.split("/")[0] in PLANTED for r in top["run_ids"])
    conc = next(c for c in report["concentration"] if c["category"] == "cuda_driver_too_old")
    assert sorted(conc["concentrated_hosts"]) == PLANTED
    assert sorted(h["value"] for h in conc["hosts"]) == PLANTED
    assert conc["hosts_top3_share"] == 1.0
    assert conc["drivers"][0]["value"] == "470.239.06" and conc["drivers"][0]["lift"] > 2
    assert {o["host"] for o in conc["repeat_offenders"]} == set(PLANTED)
    assert all(o["also_last_week"] for o in conc["repeat_offenders"])
    (fix,) = conc["fixes"]
    assert fix["hosts"] == PLANTED and fix["driver_branch"] == "470" and fix["driver_max_cuda"] == "11.4"
    assert fix["pin_tag"] == "2.6.0-gpu-cuda11.2-cudnn8"      # newest tag with CUDA <= 11.4 (not 2.1.2)
    assert fix["fix"] == ("hosts h03, h07, h11 run driver 470 (CUDA <= 11.4) with cuda11.8 images: "
                          "upgrade the driver or pin 2.6.0-gpu-cuda11.2-cudnn8")
    m = conc["cuda_matrix"]
    i, j = m["image_cuda"].index("11.8"), m["drivers"].index("470 (CUDA <= 11.4)")
    assert m["failures"][i][j] == 21 and m["runs"][i][j] == 21
    assert sum(sum(r) for r in m["failures"]) == 21


def test_the_pinned_tag_comes_from_the_failing_images_repository(tmp_path):
    # another team's image, healthy on the planted hosts, has the best-fitting tag (CUDA 11.4): pinning
    # it on paddlepaddle/paddle would name a tag that repository does not have
    warehouse = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(warehouse)
    for i, host in enumerate(PLANTED):
        con.execute("""INSERT INTO runs (run_id, host, image, image_tag, exit_code, started_at, finished_at, labels)
                       VALUES (?, ?, 'corp/paddleocr:2.7.3-cuda11.4', '2.7.3-cuda11.4', 0, ?, ?, '{"gpu_count": "1"}')""",
                    [f"{host}/docker/containers/ocr{i}", host, W47 + dt.timedelta(days=8, hours=i),
                     W47 + dt.timedelta(days=8, hours=i + 1)])
        con.execute("INSERT INTO predictions (run_id, category, confidence, source) VALUES (?, 'no_failure', 0.9, 'rule')",
                    [f"{host}/docker/containers/ocr{i}"])
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    (fix,) = next(c for c in rep["concentration"] if c["category"] == "cuda_driver_too_old")["fixes"]
    assert fix["pin_tag"] == "2.6.0-gpu-cuda11.2-cudnn8" and fix["pin_image"].startswith(OFF)


def test_week_over_week_numbers(report):
    hl = report["headline"]
    assert report["week"] == WEEK and report["previous_week"] == PREV
    assert hl["runs"]["this"] == 12 * 7 * 2 + 2 and hl["runs"]["last"] == 12 * 7 * 2
    top = report["ranking"][0]["change"]
    assert top["change_pct"] == 250.0 and top["direction"] == "up"
    assert top["significant"] and top["mark"] and top["p_value"] < 0.01 and top["status"] == "up"
    shm = next(r for r in report["ranking"] if r["category"] == "shm_exhausted")
    assert not shm["change"]["significant"]            # small counts: no star for a small wobble
    assert hl["failed_runs"]["this"] > hl["failed_runs"]["last"]
    # GPU-hours lost: duration x 2 GPUs (labels.gpu_count), the evil run counts 2 GPUs from "0,1"
    assert hl["gpu_hours_lost"]["this"] > 0 and hl["gpu_hours_lost"]["change_pct"] is not None
    t = report["templates"]
    new = {x["template_key"] for x in t["new"]}
    gone = {x["template_key"] for x in t["gone"]}
    assert {"T_shm_new", "T_evil"} <= new and "T_cuda" not in new and "T_oom" not in new
    assert gone == {"T_shm_old"}
    assert t["new_count"] == 2 and t["gone_count"] == 1


def test_classifier_health(report):
    c = report["classifier"]
    assert c["unknown_runs"] == 1 and c["low_confidence_runs"] == 2
    assert c["disagreements"] > 0
    assert any(p["category"] == "gpu_oom" and p["model_category"] == "host_oom" for p in c["disagreement_pairs"])
    reasons = {q["reason"] for q in c["labeling_queue"]}
    assert {"unknown", "disagreement", "low confidence"} <= reasons
    # the disagreeing gpu_oom runs share one template: most valuable to label, they come first
    assert c["labeling_queue"][0]["similar_runs"] >= c["labeling_queue"][-1]["similar_runs"]


def test_outputs_escape_hostile_text_and_agree(report, tmp_path):
    paths = write_report(report, tmp_path / "out")
    html_text = paths["html"].read_text(encoding="utf-8")
    md_text = paths["md"].read_text(encoding="utf-8")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    # the hostile evidence is visible as text, never as markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html_text
    assert "<script" not in html_text.lower()
    assert "<img" not in html_text and "<b onmouseover" not in html_text and "</svg><script" not in html_text
    assert "&lt;b onmouseover=alert(4)&gt;bad&lt;/b&gt;" in html_text
    assert "Content-Security-Policy" in html_text and "http://" not in html_text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    for text in (html_text, md_text, paths["json"].read_text(encoding="utf-8")):
        assert "\x1b" not in text and "\x07" not in text and "\x00" not in text and "\u202e" not in text
    # Markdown: never a raw tag, hostile evidence inside a code span
    assert not re.search(r"(?<![`\\])<(script|img|b )", _strip_code_spans(md_text))
    # the three outputs rank the same way
    ranking = [r["category"] for r in data["ranking"] if r["runs"] or r["runs_last"]]
    assert ranking[0] == "cuda_driver_too_old"
    assert _html_ranking(html_text) == ranking
    assert _md_ranking(md_text) == ranking
    assert "upgrade the driver or pin 2.6.0-gpu-cuda11.2-cudnn8" in html_text
    assert "pin 2\\.6\\.0\\-gpu\\-cuda11\\.2\\-cudnn8" in md_text
    # every chart is inline SVG, nothing is loaded
    for cid in ("chart-ranking", "chart-trend", "chart-heatmap"):
        assert f'id="{cid}"' in html_text
    assert not re.search(r"<(script|link|iframe|object|embed|img)\b", html_text)
    assert data["schema"] == "logml.report/1"


def _strip_code_spans(text: str) -> str:
    return re.sub(r"(`+)(.+?)\1", "", text)


def test_inventory_table_and_report_command(tmp_path):
    warehouse = build_fixture_warehouse(tmp_path / "own.duckdb")
    # without an inventory the driver is unknown but Paddle's facts are absent too: still no crash
    con = store.connect(warehouse, read_only=True)
    rep = build_report(con, WEEK)
    con.close()
    assert rep["ranking"][0]["category"] == "cuda_driver_too_old"
    # a warehouse table `inventory` wins over the DataFrame argument
    con = store.connect(warehouse)
    con.register("inv_df", INVENTORY)
    con.execute("CREATE TABLE inventory AS SELECT * FROM inv_df")
    # the newest run is in W48: while W48 goes on the last complete week is W47; once it has ended
    # (an archive reported the Monday after), W48 itself
    assert default_week(con, today=dt.date(2026, 11, 29)) == PREV
    assert default_week(con, today=dt.date(2026, 11, 30)) == default_week(con) == WEEK
    assert empty_week_hint(con, WEEK) is None and empty_week_hint(con, PREV) is None
    hint = empty_week_hint(con, "2026-W30")   # a week with no runs says where they are
    assert hint.startswith("2026-W30 has no runs") and "--week 2026-W48" in hint
    con.close()
    paths = report_command(str(warehouse), WEEK, tmp_path / "rep", None)
    data = json.loads(paths["json"].read_text())
    conc = next(c for c in data["concentration"] if c["category"] == "cuda_driver_too_old")
    assert sorted(conc["concentrated_hosts"]) == PLANTED and conc["fixes"][0]["pin_tag"] == "2.6.0-gpu-cuda11.2-cudnn8"
    # inventory from a storage root
    root = tmp_path / "root"
    root.mkdir()
    INVENTORY.to_csv(root / "inventory.csv", index=False)
    paths = report_command(str(warehouse), None, tmp_path / "rep2", str(root))
    assert json.loads(paths["json"].read_text())["week"] == WEEK   # the default: W48 has ended


def test_empty_week_does_not_crash(warehouse, tmp_path):
    con = store.connect(warehouse, read_only=True)
    rep = build_report(con, "2025-W01", inventory=INVENTORY)
    con.close()
    assert rep["headline"]["runs"]["this"] == 0 and rep["ranking"] == []
    paths = write_report(rep, tmp_path / "empty")
    assert "no failures" in paths["html"].read_text()


def test_runs_without_timestamps_are_dated_by_their_file_then_their_first_ingest(tmp_path):
    import os
    import shutil

    from conftest import write_plain

    from pipeline.ingest import ingest
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    undated = write_plain(root, "hpc01", "slurm-12345", ["srun: error: task 0: Exited with exit code 1",
                                                         "ImportError: libGL.so.1: cannot open shared object file"])
    write_plain(root, "hpc01", "dated", ["2026-11-18 10:00:00 INFO start", "2026-11-18 10:05:00 INFO done"])
    # the undated log was last written in W47, long before this ingest
    when = dt.datetime(2026, 11, 19, 12, 0, tzinfo=dt.timezone.utc).timestamp()
    os.utime(undated, (when, when))
    ingest(str(root), str(db))
    con = store.connect(str(db), read_only=True)
    rep = build_report(con, "2026-W47")
    con.close()
    assert rep["headline"]["runs"]["this"] == 2 and rep["headline"]["runs_dated_by_file_time"] == 1
    assert rep["headline"]["runs_dated_by_ingest"] == 0
    paths = write_report(rep, tmp_path / "rep")
    assert "1 are dated by their log file's modification time" in paths["md"].read_text()
    # a line appended today (the file's time moves on) does not move the run out of its week
    with undated.open("a") as fh:
        fh.write("srun: error: task 0: still failing\n")
    ingest(str(root), str(db))
    con = store.connect(str(db), read_only=True)
    assert build_report(con, "2026-W47")["headline"]["runs_dated_by_file_time"] == 1
    con.close()

    # a store that tells no modification time: the run is dated by the ingest that first read it
    shutil.copy(db, tmp_path / "nomtime.duckdb")
    with store.connect(str(tmp_path / "nomtime.duckdb")) as con:
        con.execute("UPDATE files SET mtime = NULL")
    con = store.connect(str(tmp_path / "nomtime.duckdb"), read_only=True)
    today = dt.datetime.now(dt.timezone.utc).date()
    # the undated run is the newest: the default week steps back from the ingest's (unfinished) week
    assert default_week(con) == week_of(today - dt.timedelta(days=7))
    rep = build_report(con, week_of(today))
    dated = build_report(con, "2026-W47")
    con.close()
    assert rep["headline"]["runs"]["this"] == 1 and rep["headline"]["runs_dated_by_ingest"] == 1
    assert dated["headline"]["runs"]["this"] == 1 and dated["headline"]["runs_dated_by_ingest"] == 0
    paths = write_report(rep, tmp_path / "rep2")
    assert "0 are dated by their log file's modification time, 1 by when they were first ingested" \
        in paths["md"].read_text()
    assert "1 more by when they were first ingested" in paths["html"].read_text()


def test_text_helpers():
    s = clean("a\x1b[1;31mb\x1b[0m\x00c\udc80d\u202ee\nf" + "x" * 500, limit=50)
    assert s.startswith("abc\ufffdde \u23ce f") and len(s) == 50 and s.endswith("\u2026")
    assert clean(b"\xff\xfeok") == "\ufffd\ufffdok"
    assert md("a|b<c>`d`*e*") == "a\\|b\\<c\\>\\`d\\`\\*e\\*"
    code = md_code("x `` y")
    assert code.startswith("``` ") and code.endswith(" ```")
    assert "|" not in md_code("a|b", in_table=True)
    assert summary_line("Traceback (most recent call last):\n  File \"x.py\", line 1\nOSError: boom\n") == "OSError: boom"
    assert parse_week("2026-W48")[0] == dt.date(2026, 11, 23)
    with pytest.raises(ValueError):
        parse_week("last week")


def test_binomial_test_respects_small_counts():
    assert binom_two_sided(3, 4, 0.5) == pytest.approx(0.625)
    assert binom_two_sided(5, 10, 0.5) == pytest.approx(1.0)
    assert binom_two_sided(21, 27, 0.5) < 0.01
    assert binom_two_sided(6000, 10000, 0.5) < 1e-6     # normal approximation branch


def test_simulated_fleet_report(tmp_path):
    """End to end on the simulator's fleet: ingest, predictions from its ground truth, report."""
    pytest.importorskip("drain3")
    from pipeline.ingest import ingest
    from pipeline.simulate import simulate
    from pipeline.sources import read_inventory

    fleet = tmp_path / "fleet"
    simulate(fleet, hosts=10, days=14, start="2026-11-16", runs_per_host_day=2.0)
    db = tmp_path / "sim.duckdb"
    ingest(str(fleet), str(db))
    con = store.connect(db)
    con.execute(f"CREATE TEMP TABLE lab AS SELECT * FROM read_csv('{fleet / 'labels.csv'}', all_varchar=true)")
    con.execute("""
        INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category, model_confidence, model_version, evidence, alternatives, predicted_at)
        SELECT l.run_id, l.category, 0.9, 'rule', NULL, l.category, 0.9, 'truth',
               (SELECT to_json(list({'line': e.line_no, 'text': coalesce(e.text, e.message),
                                     'template_id': m.template_key} ORDER BY e.line_no DESC)[1:3])
                FROM events e JOIN messages m USING (message_key)
                WHERE e.run_id = l.run_id AND (e.level IN ('ERROR', 'FATAL') OR e.kind LIKE '%traceback%')),
               '[]', now()
        FROM lab l""")
    inv = read_inventory(str(fleet))
    rep = build_report(con, WEEK, inventory=inv)
    con.close()
    paths = write_report(rep, tmp_path / "out")
    assert rep["headline"]["runs"]["this"] > 0 and rep["ranking"]
    truth = pd.read_csv(fleet / "labels.csv")
    assert sum(r["runs"] + r["runs_last"] for r in rep["ranking"]) + sum(
        r["runs"] + r["runs_last"] for r in rep["other_failures"]) + rep["job_errors"]["runs"] \
        + rep["job_errors"]["runs_last"] == (truth.category != "no_failure").sum()
    max_cuda = dict(zip(inv.host, inv.cuda_driver_max))
    for c in rep["concentration"]:
        for fix in c.get("fixes", []):
            # every named host really runs a driver older than the images it failed with
            assert all(max_cuda[h] == fix["driver_max_cuda"] for h in fix["hosts"])
            assert all(tuple(map(int, ic.split("."))) > tuple(map(int, fix["driver_max_cuda"].split(".")))
                       for ic in fix["image_cuda"])
            if fix["pin_tag"]:
                assert fix["pin_tag"] in fix["fix"] and "latest" not in fix["pin_tag"]
    assert paths["html"].stat().st_size > 10_000


def test_job_errors_are_routed_to_owners_apart_from_the_environment_ranking(tmp_path):
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    rows = []
    for i in range(11):   # this week: 8 runs of one job, 3 of another; last week 2
        job, image = ("ocr-finetune", OFF + "2.6.0-gpu-cuda11.8-cudnn8") if i < 8 else ("det-train", OFF + "latest-gpu")
        start = W47 + dt.timedelta(days=8, hours=i)
        rows.append((f"h0{i % 3 + 1}/docker/containers/ce{i:02d}", f"h0{i % 3 + 1}", image, job, start))
    for i in range(2):
        start = W47 + dt.timedelta(days=2, hours=i)
        rows.append((f"h01/docker/containers/old{i}", "h01", OFF + "latest-gpu", "det-train", start))
    for run_id, host, image, job, start in rows:
        con.execute("""INSERT INTO runs (run_id, host, kind, image, image_tag, exit_code, oom_killed, started_at,
                                         finished_at, labels, first_ts, last_ts, n_events)
                       VALUES (?, ?, 'docker', ?, ?, 1, false, ?, ?, ?::JSON, ?, ?, 3)""",
                    [run_id, host, image, image.split(":")[1], start, start + dt.timedelta(minutes=5),
                     json.dumps({"job": job, "gpu_count": "1"}), start, start + dt.timedelta(minutes=5)])
        evidence = json.dumps([{"line": 12, "text": f"KeyError: 'rats' ({job})", "template_id": None}])
        con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                                model_confidence, model_version, evidence, alternatives, predicted_at)
                       VALUES (?, 'code_error', 0.93, 'rule', 'python_bug_in_job_code', 'code_error', 0.9, 'test',
                               ?::JSON, '[]', now())""", [run_id, evidence])
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    assert all(r["category"] != "code_error" for r in rep["ranking"] + rep["other_failures"])
    je = rep["job_errors"]
    assert (je["runs"], je["runs_last"]) == (11, 2)
    assert [(o["job"], o["runs"], o["runs_last"]) for o in je["by_owner"]] == [("ocr-finetune", 8, 0), ("det-train", 3, 2)]
    assert je["by_owner"][0]["evidence"] == "KeyError: 'rats' (ocr-finetune)" and len(je["by_owner"][0]["run_ids"]) == 3
    paths = write_report(rep, tmp_path / "out")
    html_text, md_text = paths["html"].read_text(), paths["md"].read_text()
    assert "Job errors: route to owners" in html_text and "ocr-finetune" in html_text
    assert "## Job errors: route to owners" in md_text and "det\\-train" in md_text
    assert "code_error" not in _md_ranking(md_text) and "code_error" not in _html_ranking(html_text)


def test_families_with_a_remedy_of_their_own_are_counted_under_their_category(tmp_path):
    """Three native crashes this week, two of them illegal instructions (a CPU without AVX): the
    category's generic remedy is kept and the narrower one is given with its run count."""
    from pipeline.rules import load_rules
    from pipeline.taxonomy import load_taxonomy
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    texts = ["FatalError: `Illegal instruction` is detected by the operating system.",
             "Illegal instruction (core dumped)", "Segmentation fault (core dumped)"]
    for i, text in enumerate(texts):
        run_id, start = f"h01/docker/containers/nc{i}", W47 + dt.timedelta(days=8, hours=i)
        con.execute("""INSERT INTO runs (run_id, host, kind, image, image_tag, exit_code, oom_killed, started_at,
                                         finished_at, labels, first_ts, last_ts, n_events)
                       VALUES (?, 'h01', 'docker', ?, ?, 132, false, ?, ?, '{}'::JSON, ?, ?, 3)""",
                    [run_id, OFF + "2.6.0", "2.6.0", start, start + dt.timedelta(minutes=5), start,
                     start + dt.timedelta(minutes=5)])
        con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                                model_confidence, model_version, evidence, alternatives, predicted_at)
                       VALUES (?, 'native_crash', 0.9, 'rule', NULL, 'native_crash', 0.9, 'test', ?::JSON, '[]', now())""",
                    [run_id, json.dumps([{"line": 40, "text": text, "template_id": None}])])
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    (row,) = [r for r in rep["ranking"] if r["category"] == "native_crash"]
    assert row["runs"] == 3 and row["remedy"] == load_taxonomy().remedy("native_crash")
    avx = load_rules().remedy_for("native_crash", texts[:1])
    assert row["remedies"] == [{"id": "cpu_without_avx", "runs": 2, "hosts": ["h01"], "description": avx.description,
                                "remedy": avx.remedy}]
    assert all(not r["remedies"] for r in rep["ranking"] if r["category"] != "native_crash")
    paths = write_report(rep, tmp_path / "out")
    assert "2 runs on h01, " in paths["md"].read_text() and "2 runs on h01, " in paths["html"].read_text()
    # the category's own remedy leads: one run of the three is a plain segfault
    assert row["remedy"] == load_taxonomy().remedy("native_crash") and "category_remedy" not in row


def test_ranks_that_failed_after_a_peer_count_under_the_peers_cause(tmp_path):
    """One launch folder: rank 2 runs out of GPU memory first, ranks 0, 1, 3 then report NCCL errors.
    Another launch whose ranks all report NCCL errors is a communication failure. A Kubeflow job whose
    worker's GPU fell off the bus: its peers follow that unknown. Each rank keeps its own verdict."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    base = con.execute("SELECT count(*) FROM predictions WHERE category = 'distributed_comm_failure'").fetchone()[0]
    unknown_before = build_report(con, WEEK, inventory=INVENTORY)["classifier"]["unknown_runs"]
    day = W47 + dt.timedelta(days=9)

    def add(run_id, category, minutes, evidence, labels=None, namespace=None):
        start = day + dt.timedelta(hours=1)
        con.execute("""INSERT INTO runs (run_id, host, kind, namespace, image, image_tag, exit_code, oom_killed,
                                         started_at, finished_at, labels, first_ts, last_ts, n_events)
                       VALUES (?, 'h02', 'file', ?, ?, '2.6.0-gpu', 1, false, ?, ?, ?::JSON, ?, ?, 3)""",
                    [run_id, namespace, OFF + "2.6.0-gpu", start, start + dt.timedelta(minutes=minutes),
                     json.dumps(labels or {}), start, start + dt.timedelta(minutes=minutes)])
        con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                                model_confidence, model_version, evidence, alternatives, predicted_at)
                       VALUES (?, ?, 0.9, 'rule', NULL, ?, 0.9, 'test', ?::JSON, '[]', now())""",
                    [run_id, category, category, json.dumps([{"line": 9, "text": evidence, "template_id": None}])])

    nccl = "NCCL WARN Net : Connection closed by remote peer"
    for rank in range(4):
        add(f"h02/files/llm-a/log/workerlog.{rank}", "gpu_oom" if rank == 2 else "distributed_comm_failure",
            30 if rank == 2 else 31, "Out of memory error on GPU 2." if rank == 2 else nccl)
    for rank in range(3):
        add(f"h02/files/llm-b/log/workerlog.{rank}", "distributed_comm_failure", 20 + rank, nccl)
    job = {"training.kubeflow.org/job-name": "det-x"}
    add("h02/pods/ml_det-x-worker-0/paddle/0", "unknown", 10, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has "
        "fallen off the bus.", job, "ml")
    add("h02/pods/ml_det-x-worker-1/paddle/0", "distributed_comm_failure", 11, nccl, job, "ml")
    # the same job name in another namespace is another launch
    add("h02/pods/dev_det-x-worker-0/paddle/0", "distributed_comm_failure", 11, nccl, job, "dev")
    # rank 1's own bug, and the launcher's SIGTERM its peers died of later: the job's owners get rank 1's line
    sft = {"app": "llama-sft"}
    add("h02/files/llm-c/log/workerlog.1", "code_error", 40, "IndexError: index 4 is out of bounds for axis 0", sft)
    for rank in (0, 2):
        add(f"h02/files/llm-c/log/workerlog.{rank}", "distributed_comm_failure", 41,
            "FatalError: `Termination signal` is detected by the operating system.", sft)
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    (sft_row,) = [o for o in rep["job_errors"]["by_owner"] if o["job"] == "llama-sft"]
    assert sft_row["evidence"].startswith("IndexError") and sft_row["run_ids"][0] == "h02/files/llm-c/log/workerlog.1"
    rows = {r["category"]: r for r in rep["ranking"] + rep["other_failures"]}
    assert rows["distributed_comm_failure"]["runs"] == base + 3 + 1
    assert rows["gpu_oom"]["peer_runs"] == 3 and rows["unknown"]["peer_runs"] == 1
    # one launch's four ranks are one incident, and week over week counts incidents
    assert rows["gpu_oom"]["incidents"] == rows["gpu_oom"]["runs"] - 3
    assert rows["distributed_comm_failure"]["incidents"] == rows["distributed_comm_failure"]["runs"] - 2
    assert rep["headline"]["runs_caused_by_a_peer"] == 4 + 2   # and llm-c's two
    # evidence of a cause is its own runs' lines, never a peer's NCCL error
    assert all("NCCL" not in e["text"] for e in rows["gpu_oom"]["evidence"])
    # and the rank that failed of it first is drilled into before the peer that followed it (which ran longer)
    ranks = [r for r in rows["unknown"]["run_ids"] if r.startswith("h02/pods/ml_det-x")]
    assert ranks == ["h02/pods/ml_det-x-worker-0/paddle/0", "h02/pods/ml_det-x-worker-1/paddle/0"]
    # the classifier is judged on each run's own verdict: one unknown more, whatever its peers count under
    assert rep["classifier"]["unknown_runs"] == unknown_before + 1
    paths = write_report(rep, tmp_path / "out")
    assert "3 after a peer" in paths["html"].read_text()
    assert "3 runs of these are ranks" in paths["md"].read_text()
    # each line quoted for a cause names the run it is from, and one text is quoted once
    quoted = re.findall(r"^- line \S+ of `([^`]+)`: ", paths["md"].read_text(), re.M)
    assert quoted and all(q.strip() in {e["run_id"] for r in rows.values() for e in r["evidence"]} for q in quoted)
    for row in rows.values():
        assert len({e["summary"] for e in row["evidence"]}) == len(row["evidence"])
    n = rows["gpu_oom"]["runs"]
    assert f"| {n} ({n - 3} incidents) |" in paths["md"].read_text() and f"{n - 3} incidents" in paths["html"].read_text()


def test_a_template_without_timestamps_that_failing_runs_printed_last_week_is_not_new(tmp_path):
    """A plain log's lines carry no timestamp, so its templates have no first_seen: last week's runs
    decide whether one is new (the tester's NCCL error listed as new with runs_last 3)."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    con.execute("UPDATE templates SET first_seen = NULL, last_seen = NULL")
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    new = rep["templates"]["new"]
    assert new and all(t["runs_last"] == 0 for t in new)
    assert rep["templates"]["new_count"] == len(new)


def test_an_unknown_run_that_shows_no_failure_is_not_a_failed_run(tmp_path):
    """An empty log, and a server's log that reads healthy but shows no sign of an ML job, are unknown:
    logml cannot judge them, but nothing says they failed. An unknown run that exited 1 did fail."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    first = build_report(con, WEEK, inventory=INVENTORY)
    before = first["headline"]["failed_runs"]["this"]
    start = W47 + dt.timedelta(days=9, hours=3)
    for run_id, exit_code, n_events, alternatives in (
            ("h02/files/jobs/empty/stdout.log", None, 0, []),
            ("h02/pods/ml_serve-0/server/0", None, 400, [{"category": "no_failure", "confidence": 0.86}]),
            ("h02/docker/containers/failed-unknown", 1, 30, [{"category": "no_failure", "confidence": 0.5}])):
        con.execute("""INSERT INTO runs (run_id, host, kind, image, image_tag, exit_code, oom_killed, started_at,
                                         finished_at, labels, first_ts, last_ts, n_events)
                       VALUES (?, 'h02', 'file', NULL, NULL, ?, NULL, ?, ?, '{}'::JSON, ?, ?, ?)""",
                    [run_id, exit_code, start, start + dt.timedelta(hours=1), start, start + dt.timedelta(hours=1),
                     n_events])
        con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                                model_confidence, model_version, evidence, alternatives, predicted_at)
                       VALUES (?, 'unknown', 0.5, 'model', NULL, NULL, NULL, 'test', '[]', ?::JSON, now())""",
                    [run_id, json.dumps(alternatives)])
    rep = build_report(con, WEEK, inventory=INVENTORY)
    assert rep["headline"]["failed_runs"]["this"] == before + 1
    assert rep["headline"]["runs_not_judged"] == 2
    # a job the scheduler ended at its time limit read healthy to the model, but a line names what ended it
    con.execute("UPDATE predictions SET remedy_id = 'scheduler_ended_job' WHERE run_id = 'h02/pods/ml_serve-0/server/0'")
    ended = build_report(con, WEEK, inventory=INVENTORY)
    con.execute("UPDATE predictions SET remedy_id = '' WHERE run_id = 'h02/pods/ml_serve-0/server/0'")
    assert ended["headline"]["failed_runs"]["this"] == before + 2 and ended["headline"]["runs_not_judged"] == 1
    con.close()
    # the failed unknown beside the fixture's hostile one; the two not judged are not among them
    unknown = [r for r in rep["ranking"] + rep["other_failures"] if r["category"] == "unknown"]
    assert unknown[0]["runs"] == 2
    # nor are they unknowns for the classifier's health, or runs to label
    assert rep["classifier"]["unknown_runs"] == first["classifier"]["unknown_runs"] + 1
    assert not any(q["run_id"].startswith(("h02/files/jobs/empty", "h02/pods/ml_serve"))
                   for q in rep["classifier"]["labeling_queue"])
    assert any(q["run_id"] == "h02/docker/containers/failed-unknown" for q in rep["classifier"]["labeling_queue"])


def test_the_remedy_chosen_with_the_whole_log_is_stored_and_counted(tmp_path):
    """A predictor's GPU OOM: the line that says the run is a deployment's is far from the OOM, so
    the evidence alone cannot choose the inference remedy. The nightly verdict reads the whole log
    and stores its choice (predictions.remedy_id); the report counts that choice."""
    from conftest import write_plain

    from pipeline.ingest import ingest
    from pipeline.predict import classify_runs
    from pipeline.report import RUN_TIME_SQL
    root, db = tmp_path / "fleet", tmp_path / "w.duckdb"
    lines = ["2026-11-18 10:00:00 INFO --- Running analysis [ir_graph_build_pass]",
             "2026-11-18 10:00:01 INFO analysis_predictor.cc:1200] ======= optimize end ======="]
    lines += [f"2026-11-18 10:{m // 60 + 1:02d}:{m % 60:02d} INFO served request {m} in 12 ms" for m in range(60)]
    lines += ["2026-11-18 10:02:30 ERROR handler failed",
              "ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 2.000000GB memory on GPU 0, "
              "1.500000GB memory has been allocated and available memory is only 200.000000MB."]
    write_plain(root, "srv01", "infer-svc", lines)
    ingest(str(root), str(db))
    with store.connect(str(db)) as con:
        assert classify_runs(con, Path(__file__).resolve().parents[1] / "pipeline" / "models") == 1
        ((category, remedy_id, evidence),) = con.execute(
            "SELECT category, remedy_id, evidence::VARCHAR FROM predictions").fetchall()
        (t,) = con.execute(f"SELECT t FROM {RUN_TIME_SQL}").fetchone()
    assert category == "gpu_oom" and remedy_id == "inference_gpu_oom"
    assert "analysis_predictor" not in evidence   # the evidence alone would not have chosen it
    con = store.connect(str(db), read_only=True)
    rep = build_report(con, week_of(t.date()))
    con.close()
    (row,) = [r for r in rep["ranking"] if r["category"] == "gpu_oom"]
    assert [n["id"] for n in row["remedies"]] == ["inference_gpu_oom"]


def test_pods_of_one_operator_job_its_only_family_and_a_week_under_way(tmp_path):
    """The pods of a PaddleJob whose CRI folders keep no labels are one launch by their names
    (<job>-worker-N): the worker whose spot node was reclaimed is the incident, its peer's NCCL error
    follows it; a category whose every run is of one family leads with that family's fix; an unknown
    whose fault a line names is not queued for labeling; a week still under way says so."""
    from pipeline.rules import load_rules
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    day = W47 + dt.timedelta(days=10)

    def add(run_id, pod, category, minutes, remedy_id, text):
        start = day + dt.timedelta(hours=2)
        con.execute("""INSERT INTO runs (run_id, host, kind, namespace, pod, image, image_tag, exit_code, oom_killed,
                                         started_at, finished_at, labels, first_ts, last_ts, n_events)
                       VALUES (?, 'k8s-n02', 'k8s', 'ml-train', ?, ?, '2.6.1-gpu', 1, false, ?, ?, '{}'::JSON, ?, ?, 3)""",
                    [run_id, pod, OFF + "2.6.1-gpu", start, start + dt.timedelta(minutes=minutes), start,
                     start + dt.timedelta(minutes=minutes)])
        con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                                model_confidence, model_version, evidence, alternatives, predicted_at,
                                                remedy_id)
                       VALUES (?, ?, 0.9, 'model', NULL, ?, 0.9, 'test', ?::JSON, '[]', now(), ?)""",
                    [run_id, category, category, json.dumps([{"line": 9, "text": text, "template_id": None}]), remedy_id])

    add("k8s-n02/pods/ml-train_ernie-ft-worker-1_u1/paddle/0", "ernie-ft-worker-1", "unknown", 10, "node_preempted",
        "Spot instance interruption notice received: instance i-0b7e will be terminated")
    add("k8s-n01/pods/ml-train_ernie-ft-worker-0_u0/paddle/0", "ernie-ft-worker-0", "distributed_comm_failure", 11,
        "peer_exited", "NCCL WARN socketProgress: Connection closed by remote peer")
    for i in range(2):
        add(f"k8s-n03/pods/ml-train_cpu-wheel-{i}_u/paddle/0", f"cpu-wheel-{i}", "gpu_not_visible", 5,
            "cpu_wheel_installed", "You are using CPU version PaddlePaddle but your job asks for a GPU")
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    rows = {r["category"]: r for r in rep["ranking"] + rep["other_failures"]}
    assert rows["unknown"]["peer_runs"] == 1   # worker-0's NCCL error counts under worker-1's reclaimed node
    preempted = [n for n in rows["unknown"]["remedies"] if n["id"] == "node_preempted"]
    assert preempted and preempted[0]["hosts"] == ["k8s-n02"]
    assert not any(q["run_id"].startswith("k8s-n02/pods/ml-train_ernie") for q in rep["classifier"]["labeling_queue"])
    (wheel,) = [r for r in load_rules().remedies if r.id == "cpu_wheel_installed"]
    gnv = rows["gpu_not_visible"]
    assert gnv["runs"] == 2   # the fixture's week has no other: the CPU wheel's fix leads
    assert gnv["remedy"] == wheel.remedy and gnv["category_remedy"] != wheel.remedy
    paths = write_report(rep, tmp_path / "out")
    assert "is not over" not in paths["md"].read_text()   # W48 of 2026 has ended
    # the lines under "Other failures" add up to its runs: the families with a fix, the peers, the rest
    unknown = rows["unknown"]
    assert sum(n["runs"] for n in unknown["remedies"]) + unknown["peer_runs"] + unknown["unnamed_runs"] == unknown["runs"]
    md_text = paths["md"].read_text()
    assert "1 run that failed after a peer of theirs, counted under that peer's fault" in md_text
    if unknown["unnamed_runs"]:
        assert f"{_runs(unknown['unnamed_runs'])} of unknown that no line names a fault for" in md_text
    today = dt.datetime.now(dt.timezone.utc).date()
    con = store.connect(db, read_only=True)
    now = build_report(con, week_of(today), inventory=INVENTORY)
    con.close()
    assert now["week_complete"] is False
    paths = write_report(now, tmp_path / "now")
    assert "is not over" in paths["md"].read_text() and "is not over" in paths["html"].read_text()


def test_the_labeling_queue_counts_the_hours_of_a_run_without_container_times(tmp_path):
    """A pod or a plain file has no container start and finish: its first and last lines say how long it ran
    (the queue orders by that cost, so such runs used to sink with 0 hours)."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    start = W47 + dt.timedelta(days=9)
    con.execute("""INSERT INTO runs (run_id, host, kind, exit_code, started_at, finished_at, labels, first_ts, last_ts,
                                     n_events)
                   VALUES ('k8s-n01/pods/ml_w-0_u/main/0', 'k8s-n01', 'k8s', NULL, NULL, NULL, '{}'::JSON, ?, ?, 40)""",
                [start, start + dt.timedelta(minutes=50)])
    con.execute("""INSERT INTO predictions (run_id, category, confidence, source, rule_id, model_category,
                                            model_confidence, model_version, evidence, alternatives, predicted_at)
                   VALUES ('k8s-n01/pods/ml_w-0_u/main/0', 'unknown', 0.3, 'model', NULL, NULL, NULL, 'test', '[]',
                           '[]', now())""")
    queue = store.labeling_queue(con, 50)
    con.close()
    (row,) = [r for r in queue.to_dict("records") if r["run_id"] == "k8s-n01/pods/ml_w-0_u/main/0"]
    assert row["hours"] == round(50 / 60, 2)


def test_values_nobody_recorded_are_no_place_a_failure_concentrates_on(tmp_path):
    """Without an inventory no driver is known: no lift is computed for "unknown", and the Markdown says so
    instead of "concentrated on ... unknown (lift 7.5)"."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db, read_only=True)
    rep = build_report(con, WEEK, inventory=None)
    con.close()
    conc = rep["concentration"]
    assert conc and all(d["lift"] is None and not d["concentrated"] for c in conc for d in c["drivers"]
                        if d["value"] in ("unknown", "?", None))
    assert any(d["value"] in ("unknown", "?", None) for c in conc for d in c["drivers"])
    md_text = write_report(rep, tmp_path / "out")["md"].read_text()
    assert "unknown (" not in md_text.split("## Concentration")[1].split("## ")[0]


def test_a_persons_label_is_the_runs_cause_in_the_report(tmp_path):
    """`logml label` settles a run: the report counts it under the label, not under the classifier's verdict
    (a leak blamed on the open-files limit, labeled code_error, moves to the job errors)."""
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db)
    before = build_report(con, WEEK, inventory=INVENTORY)
    rows = {r["category"]: r for r in before["ranking"] + before["other_failures"]}
    category = next(c for c, r in rows.items() if r["runs"] and c != "code_error")
    run_id = con.execute("""SELECT run_id FROM predictions JOIN runs USING (run_id) WHERE category = ?
                            ORDER BY coalesce(started_at, first_ts) DESC LIMIT 1""", [category]).fetchall()[0][0]
    store.add_label(con, run_id, "code_error", "hand", "the job leaks handles")
    after = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    moved = {r["category"]: r for r in after["ranking"] + after["other_failures"]}
    assert moved[category]["runs"] == rows[category]["runs"] - 1
    assert after["job_errors"]["runs"] == before["job_errors"]["runs"] + 1
