"""The columnar ingest path (DuckDB over whole files) builds the same warehouse as the line-by-line
path, including on the files it must hand back (partial lines, bad bytes, broken gzip)."""
from __future__ import annotations

import copy
import gzip
import json
import random
import re
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from conftest import make_fleet, snapshot

from pipeline.columnar import collapse_digits
from pipeline.config import load_params
from pipeline.ingest import ingest
from pipeline.normalize import line_shape, normalize_lines, shape_ts

ROOT = Path(__file__).resolve().parents[1]


def both_paths(root: Path, tmp_path: Path, **ingest_params):
    out = {}
    for columnar in (True, False):
        params = copy.deepcopy(load_params())
        params["ingest"].update(ingest_params, columnar=columnar)
        db = tmp_path / f"{'columnar' if columnar else 'line'}.duckdb"
        summary = ingest(str(root), str(db), params)
        out[columnar] = (snapshot(db), summary)
    return out[True], out[False]


def assert_same(col, line):
    for table in col[0]:
        assert col[0][table] == line[0][table], table
    assert (col[1].lines, col[1].events, col[1].problems) == (line[1].lines, line[1].events, line[1].problems)


def test_sample_fleet_same_warehouse_on_both_paths(tmp_path):
    col, line = both_paths(ROOT / "data" / "raw", tmp_path)
    assert_same(col, line)
    assert col[1].files_columnar > 0.9 * col[1].files_read and line[1].files_columnar == 0


def docker_line(log: str, stream: str = "stdout", t: str = "2027-01-01T00:00:01.000000001Z") -> str:
    return json.dumps({"log": log, "stream": stream, "time": t}) + "\n"


TRACEBACK = ["Traceback (most recent call last):", '  File "train.py", line 12, in <module>',
             "    main()", "ValueError: In user code:", "", "    RuntimeError: (NotFound) x (at /paddle/a.cc:12)"]
DUMP = ["--------------------------------------", "C++ Traceback (most recent call last):",
        "--------------------------------------", "0   paddle::Tensor::copy_()", "",
        "----------------------", "Error Message Summary:", "----------------------",
        "FatalError: `Segmentation fault` is detected by the operating system.",
        "  [TimeInfo: *** Aborted at 1795990106 (unix time) try \"date -d @1795990106\" ***]"]
MIXED = [
    "I1231 23:59:58.123456 12345 trainer.cc:42] year-less GLOG header in December",
    "W1231 23:59:58.5 12 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 61, "
    "Driver API Version: 11.2, Runtime API Version: 10.2",
    "W0101 00:00:01.5 77 x.cc:9] and in January",
    "[12/31 23:59:59] ppdet.engine INFO: Epoch: [0] [ 10/100] loss: 1.5",
    "[2026/12/31 10:00:00] ppocr WARNING: slow data loader 12.5 s",
    "2026-12-31 20:15:39,853 - INFO - iso header, comma millis",
    "2026-12-31T20:06:47.123+08:00 zone suffix",
    "LAUNCH INFO 2026-12-31 20:15:39,853 -----------  Configuration  ----------------------",
    "INFO 2026-12-31 20:15:39,853 launch.py:123] fleet launch",
    "INFO:root:basicConfig 3 workers", "[INFO] bracket level only 7", "[ WARNING ] spaced 8",
    "/opt/venv/lib/python3.10/site-packages/paddle/x.py:12: UserWarning: deprecated 1",
    "I20261231 20:06:47.1 1 a.cc:1] glog 0.7 year", "[I1231 20:06:47.1 1 a.cc:1] bracketed glog",
    "plain print 42 with trailing spaces   ", "\tindented with a tab 3", "   ", "",
    "ValueError: bare exception line 5", "paddle.base.core.EnforceNotMet: lower-case path 6",
    "Error: something 7", "terminate called after throwing an instance of 'std::bad_alloc'",
    "训练开始 epoch 1, 损失 0.25", "阿拉伯数字 ١٢٣ and fullwidth １２３ digits",
    "\x1b[32m[2026/12/31 10:00:01] ppocr INFO: colored 1\x1b[0m",
    "eval: 10%|█         | 1/10\reval: 100%|██████████| 10/10",
    "F1231 23:59:59.000001 1 check.cc:7] Check failed: x == y (1 vs. 2)",
    "*** Check failure stack trace: ***", "    @     0x7f1 google::LogMessage::Fail()",
    "I1231 23:59:59.1 1 a.cc:1] after the check failure",
    "Training epoch 3 starts", "Padding 4 batches", "Trace 5", "---", "------------",
    "*** Aborted at 1795990106 (unix time) try \"date -d @1795990106\" ***",
    "PC: @ 0x0 (unknown)", "*** SIGSEGV (@0x0) received by PID 1 (TID 0x7f) from PID 0; stack trace: ***",
    "I1231 23:59:59.2 1 a.cc:1] closes the signal dump",
]


def edge_fleet(root: Path) -> Path:
    rng = random.Random(7)
    host = root / "h01"
    # docker: streams interleave inside a traceback, \r\n endings, Go's \u003c escapes
    cid = "ab" * 32
    folder = host / "docker" / "containers" / cid
    folder.mkdir(parents=True)
    with (folder / f"{cid}-json.log").open("w") as fh:
        for i, text in enumerate(MIXED + TRACEBACK + DUMP + MIXED):
            stream = "stderr" if text in TRACEBACK or text in DUMP else "stdout"
            end = "\r\n" if i % 11 == 5 else "\n"
            fh.write(docker_line(text + end, stream, f"2027-01-01T00:00:{i % 60:02d}.{i:09d}Z"))
            if i % 5 == 0:
                fh.write(docker_line(f"[2027/01/01 00:00:{i % 60:02d}] ppocr INFO: step {i} <b> & {rng.random()}\n"))
    (folder / "config.v2.json").write_text(json.dumps({"ID": cid, "Config": {"Image": "paddle:2.6"},
                                                        "State": {"ExitCode": 1, "FinishedAt": "2027-01-01T01:00:00Z"}}))
    # docker: a 16 KB partial entry (line by line) and a rotated gzip of the same shape (columnar)
    cid2 = "cd" * 32
    folder2 = host / "docker" / "containers" / cid2
    folder2.mkdir(parents=True)
    with (folder2 / f"{cid2}-json.log").open("w") as fh:
        fh.write(docker_line("first piece of a long line ", t="2027-01-01T00:00:01Z"))
        fh.write(docker_line("and its end\n", t="2027-01-01T00:00:02Z"))
        fh.writelines(docker_line(t + "\n") for t in MIXED)
    with gzip.open(folder2 / f"{cid2}-json.log.1.gz", "wt") as fh:
        fh.writelines(docker_line(t + "\n", t="2026-12-31T23:59:59Z") for t in MIXED + TRACEBACK)
    (folder2 / "config.v2.json").write_text(json.dumps({"ID": cid2, "State": {"ExitCode": 0}}))
    # CRI: \r endings and a 3-part line; another pod with a P partial (line by line)
    for pod, extra in (("p1", "2027-01-01T00:00:09Z stdout F\n"), ("p2", "2027-01-01T00:00:09Z stdout P piece\n")):
        folder = host / "pods" / f"train_{pod}_{pod}-uid" / "trainer"
        folder.mkdir(parents=True)
        with (folder / "0.log").open("w") as fh:
            for i, text in enumerate(MIXED + TRACEBACK):
                fh.write(f"2027-01-01T00:00:{i % 60:02d}.{i:09d}Z {'stderr' if text in TRACEBACK else 'stdout'} F "
                         f"{text}{chr(13) if i % 7 == 3 else ''}\n")
            if pod == "p2":
                fh.write(extra)
        if pod == "p1":
            folder2 = host / "pods" / "train_p3_p3-uid" / "trainer"
            folder2.mkdir(parents=True)
            (folder2 / "0.log").write_text(extra + "2027-01-01T00:00:10Z stdout F next\n")
    # plain: good, NUL bytes, invalid UTF-8, truncated gzip, unterminated last line
    for job, data in (("good", "\n".join(MIXED + DUMP + TRACEBACK) + "\n"),
                      ("nul", "ok 1\nbad \x00 byte\nok 2\n"), ("unterminated", "a 1\nb 2")):
        (host / "files" / job).mkdir(parents=True)
        (host / "files" / job / "train.log").write_text(data)
    (host / "files" / "utf8").mkdir(parents=True)
    (host / "files" / "utf8" / "train.log").write_bytes(b"ok\n\xff\xfe broken\nok\n")
    (host / "files" / "gz").mkdir(parents=True)
    packed = gzip.compress(("\n".join(MIXED) + "\n").encode())
    (host / "files" / "gz" / "train.log.1.gz").write_bytes(packed[: len(packed) // 2])
    return root


def test_edge_cases_same_warehouse_on_both_paths(tmp_path):
    root = edge_fleet(tmp_path / "fleet")
    col, line = both_paths(root, tmp_path)
    assert_same(col, line)
    # the well-formed files did go the columnar way, the malformed ones were handed back
    assert col[1].files_columnar == 4  # docker, its rotated gzip, a CRI pod, a plain log
    # facts Paddle prints about itself, the first one per run, "61" read as compute capability 6.1
    with duckdb.connect(str(tmp_path / "columnar.duckdb"), read_only=True) as con:
        facts = con.execute("SELECT driver_api, runtime_api, compute_capability FROM runs "
                            "WHERE run_id LIKE '%' || ? ", ["ab" * 32]).fetchall()
    assert facts == [("11.2", "10.2", "6.1")]
    assert {"truncated_gzip", "nul_bytes", "invalid_utf8", "cri_partial_unterminated"} <= set(col[1].problem_reasons)


def test_masks_computed_ahead_in_a_helper_process_change_nothing(tmp_path):
    root = make_fleet(tmp_path / "fleet", runs=9, lines=150, seed=4)
    col, line = both_paths(root, tmp_path, mask_ahead_min=1)  # every batch masked in the helper
    assert_same(col, line)


def test_a_script_without_a_main_guard_still_ingests(tmp_path):
    """The mask helper is a spawned process: under a script with no `if __name__ == "__main__"`
    the helper dies on start. The ingest masks inline then, and builds the same warehouse."""
    import subprocess
    import sys
    root = make_fleet(tmp_path / "fleet", runs=9, lines=150, seed=4)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import copy, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pipeline.config import load_params\n"
        "from pipeline.ingest import ingest\n"
        "params = copy.deepcopy(load_params())\n"
        "params['ingest'].update(mask_ahead_min=1, batch_bytes=5000)\n"
        f"ingest({str(root)!r}, sys.argv[1], params)\n")
    db = tmp_path / "unguarded.duckdb"
    done = subprocess.run([sys.executable, str(script), str(db)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    params = copy.deepcopy(load_params())
    params["ingest"].update(mask_ahead_min=1 << 40, batch_bytes=5000)
    ingest(str(root), str(tmp_path / "inline.duckdb"), params)
    assert snapshot(db) == snapshot(tmp_path / "inline.duckdb")


def test_relayed_lines_same_warehouse_on_both_paths(tmp_path):
    """Lines behind a relay tag ("[1,0]<stderr>:", "(pid=12) ", "[rank0]:") in docker, CRI and
    plain files: the columnar path strips the tag as the Normalizer does, and no tag is left."""
    from conftest import run_lines, write_cri, write_docker, write_plain
    rng = random.Random(5)
    root = tmp_path / "fleet"
    tags = ["[1,0]<stderr>:", "(RayTrainWorker pid=12, ip=10.0.0.3) ", "[rank1]:", "[pod/job-0/main] ", "> ",
            "[2024-07-22, 03:10:49 UTC] {process_utils.py:190} INFO - "]
    for i in range(8):
        body = run_lines(rng, 80, failure=i % 4)
        tagged = [tags[(i + k) % len(tags)] + line if k % 5 else line for k, line in enumerate(body)]
        if i % 3 == 0:
            write_docker(root, "h01", f"{i:02d}" + "cd" * 31, tagged, "paddlepaddle/paddle:2.6.0-gpu-cuda11.8-cudnn8")
        elif i % 3 == 1:
            write_cri(root, "h02", f"pod{i}", tagged)
        else:
            write_plain(root, "h03", f"job{i}", tagged, {"image": "paddlepaddle/paddle:2.6.0", "exit_code": 1})
    col, line = both_paths(root, tmp_path)
    assert_same(col, line)
    assert col[1].files_columnar > 0
    with duckdb.connect(str(tmp_path / "columnar.duckdb"), read_only=True) as con:
        left = con.execute("SELECT count(*) FROM events WHERE regexp_matches(coalesce(text, message), "
                           "'^(\\[[0-9]+,[0-9]+\\]<|\\[rank|\\(RayTrainWorker|\\[pod/|\\[2024-07-22, )')").fetchall()[0][0]
        blocks = con.execute("SELECT count(*) FROM events WHERE kind <> 'line'").fetchall()[0][0]
    assert left == 0 and blocks > 0
    # and the columns read them by shape: the decoded bodies lost the tag already
    from pipeline import envelope, sources
    runs, _ = sources.discover(str(root))
    planned = [envelope.Planned(run, lf, 0, 0) for run in runs for lf in run.files]
    batch = envelope.decode([p for p in planned if envelope.load(p)])
    good = np.flatnonzero(~np.isin(batch.file_idx, np.array(batch.bad_files, np.int32)))  # the others: line by line
    bodies = batch.strings("body", good).cast(pa.string()).to_pylist()
    assert len(bodies) > 300 and not [b for b in bodies if b.startswith(tuple(tag.strip() for tag in tags))]
    # compose's "name-1  | " is left to the Normalizer (line_shape refuses it): the same warehouse
    compose = tmp_path / "compose"
    write_plain(compose, "h04", "svc", ["trainer-1  | " + line for line in run_lines(rng, 60, failure=1)],
                {"image": "paddlepaddle/paddle:2.6.0", "exit_code": 1})
    col, line = both_paths(compose, tmp_path / "c")
    assert_same(col, line)
    # and so is srun --label's task number ("0: ", " 3: " past 10 tasks): the tag is gone on both paths
    slurm = tmp_path / "slurm"
    write_plain(slurm, "h05", "step", [f"{k % 12:>{1 + (k % 2)}}: " + line for k, line in
                                       enumerate(run_lines(rng, 60, failure=2))],
                {"image": "paddlepaddle/paddle:2.6.0", "exit_code": 1})
    col, line = both_paths(slurm, tmp_path / "s")
    assert_same(col, line)
    with duckdb.connect(str(tmp_path / "s" / "columnar.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events WHERE regexp_matches(coalesce(text, message), "
                           "'^ ?[0-9]{1,2}: ')").fetchall()[0][0] == 0


def test_an_escape_or_a_relay_tag_beside_invalid_utf8_does_not_stop_the_batch(tmp_path):
    """Such a line is cleaned before the checks that hand its file back: it crashed the whole ingest
    (UnicodeDecodeError). Now the file is read line by line and reported, the others columnar."""
    from conftest import run_lines, write_plain
    rng = random.Random(1)
    root = tmp_path / "fleet"
    bad = write_plain(root, "h01", "job1", run_lines(rng, 30), {"image": "x", "exit_code": 1})
    bad.write_bytes(bad.read_bytes() + b"\x1b[31mred \xc3 bytes\n[1,0]<stderr>:bad \xff\xfe\n[rank0]:ok\n")
    write_plain(root, "h01", "job2", ["[1,0]<stderr>:" + line for line in run_lines(rng, 30, failure=1)],
                {"image": "x", "exit_code": 1})
    col, line = both_paths(root, tmp_path)
    assert_same(col, line)
    assert col[1].problem_reasons == {"invalid_utf8": 2} and col[1].files_columnar == 1


def test_a_lone_surrogate_escape_in_a_docker_time_or_key_is_reported_not_fatal(tmp_path):
    """`"time": "...\\ud800Z"` reached an Arrow column as a str that UTF-8 cannot encode and stopped
    the ingest on both paths. Now it is reported as invalid_utf8 and the line kept (with no time)."""
    from conftest import run_lines, write_docker
    rng = random.Random(2)
    path = write_docker(tmp_path / "fleet", "h01", "ab" * 32, run_lines(rng, 20), "img:1")
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'Z"}', b'\\ud800Z"}')
    lines[5] = lines[5].replace(b'"stream"', b'"stre\\udc00am"')
    path.write_bytes(b"\n".join(lines))
    col, line = both_paths(tmp_path / "fleet", tmp_path)
    assert_same(col, line)
    assert col[1].problem_reasons == {"invalid_utf8": 1} and col[1].lines == len(lines) - 1


def test_lines_opening_with_unicode_whitespace_same_on_both_paths(tmp_path):
    """Python's strip takes U+3000 (a Chinese full-width space), U+00A0 and U+2028, but the
    Normalizer strips a message's indent only after a space or a tab: the shapes now do the same."""
    from conftest import run_lines, write_docker, write_plain
    rng = random.Random(8)
    lead = ["\u3000", "\u00a0", "\u2028", " \u3000", "\t\u00a0"]
    lines = [lead[k % len(lead)] + line if k % 3 == 0 else line for k, line in enumerate(run_lines(rng, 60, 1))]
    lines += ["[2026/11/29 10:00:00] ppocr INFO: \u3000训练开始", "\u3000评估结束：精度 0.91"]
    write_plain(tmp_path / "fleet", "h01", "job1", lines, {"image": "x", "exit_code": 1})
    write_docker(tmp_path / "fleet", "h01", "cd" * 32, lines, "img:1")
    col, line = both_paths(tmp_path / "fleet", tmp_path)
    assert_same(col, line)
    assert col[1].files_columnar == 2


def test_small_batches_and_a_second_ingest_change_nothing(tmp_path):
    root = make_fleet(tmp_path / "fleet", runs=12, lines=200, seed=9)
    col, line = both_paths(root, tmp_path, batch_bytes=5000)
    assert_same(col, line)
    again = ingest(str(root), str(tmp_path / "columnar.duckdb"))
    assert again.files_skipped == col[1].files_read and again.events == 0


def test_caches_that_forget_change_nothing(tmp_path):
    """The mask and shape caches are bounded (a fleet's distinct forms keep growing): with caches
    that forget nearly at once, every batch re-parses and re-masks, and the warehouse is the same."""
    root = make_fleet(tmp_path / "fleet", runs=12, lines=200, seed=5)
    col, line = both_paths(root, tmp_path, batch_bytes=5000)
    params = copy.deepcopy(load_params())
    params["ingest"].update(batch_bytes=5000, mask_cache=3, shape_cache=4)
    forgetful = ingest(str(root), str(tmp_path / "forgetful.duckdb"), params)
    assert_same((snapshot(tmp_path / "forgetful.duckdb"), forgetful), col)
    assert_same(col, line)


HEADERS = [line for line in MIXED if line.strip()] + ["[2026-11-29 20:15:39,853] [ WARNING] x.py:733 - msg 1",
                                                     "2026-11-29 20:15:39.123 | INFO | mod:fn:12 - loguru 2",
                                                     "node-7:311:401 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: "
                                                     "cannot open shared object file",
                                                     "Worker3:311:409 [1] NCCL WARN Connect to 10.0.0.2<4721> failed"]


@pytest.mark.parametrize("line", HEADERS)
def test_a_shape_parses_every_line_with_other_digits(line):
    shape = line_shape(line)
    if shape is None:  # blocks and lines needing cleaning are the Normalizer's
        assert "\x1b" in line or "\r" in line or normalize_lines([line]).kind[0] != "line" or \
            line.lstrip().startswith(("---", "***", "Traceback")) or line[:1] == "F"
        return
    rng = random.Random(line)
    for _ in range(20):
        other = re.sub(r"[0-9]", lambda m: str(rng.randint(0, 9)), line)
        assert line_shape(other)[:6] == shape[:6]
        expected = normalize_lines([other], ts=["2026-12-15T00:00:00Z"])
        if shape[3] == shape[2]:   # blank after its header: no event
            assert len(expected) == 0
            continue
        fam, level, t0, t1, m0 = shape[:5]
        assert expected.message[0] == other[m0:t1]
        assert expected.level[0] == level
        assert expected.ts[0] == shape_ts(other, shape, "2026-12-15T00:00:00Z", "2026-12-15T00:00:00Z")


def test_collapse_digits_keeps_offsets_nulls_and_non_ascii():
    arr = pa.array(["x0", "a1b22", None, "٣x9", ""]).slice(1)
    assert collapse_digits(arr).to_pylist() == ["a1b11", None, "٣x1", ""]


def test_byte_positions_found_a_slice_at_a_time_are_the_whole_scan():
    import numpy as np

    from pipeline.envelope import _where_bytes
    raw = np.random.default_rng(3).integers(0, 256, size=100_003).astype(np.uint8)
    for step in (7, 4096, 1 << 20):
        assert np.array_equal(_where_bytes(raw, np.less, 32, step), np.flatnonzero(raw < 32))
        assert np.array_equal(_where_bytes(raw, np.equal, 92, step), np.flatnonzero(raw == 92))
