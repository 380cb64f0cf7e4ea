"""pipeline.sources: discovery of the storage layout and reading of the three log formats."""
from __future__ import annotations

import gzip
import json
import os

import pytest

from pipeline.sources import (
    Chunk,
    LogFile,
    discover,
    fingerprint,
    head_fingerprint,
    head_size,
    image_tag,
    logfile_for_path,
    read_chunks,
    read_inventory,
    sniff_format,
)

CID = "3f" * 32
TS = "2026-11-29T20:06:47.123456789Z"
PADDLE_IMAGE = "paddlepaddle/paddle:2.6.0-gpu-cuda11.2-cudnn8"


# ------------------------------------------------------------------------------------------------
# fixture helpers


def dj(log: str, stream: str = "stdout", time: str = TS) -> bytes:
    """One docker json-file line, written the way dockerd writes it (no spaces)."""
    return (json.dumps({"log": log, "stream": stream, "time": time}, separators=(",", ":")) + "\n").encode()


def cri(text: str, stream: str = "stdout", tag: str = "F", time: str = TS) -> bytes:
    return f"{time} {stream} {tag} {text}\n".encode()


def write(path, data: bytes | str, gz: bool = False) -> str:
    path = str(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    if gz:
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        with open(path, "wb") as fh:
            fh.write(data)
    return path


def read_all(logfile: LogFile, **kw) -> Chunk:
    """All chunks of a file merged into one (problems included)."""
    out = Chunk([], [], [], [], [], [], [])
    for chunk in read_chunks(logfile, **kw):
        assert len(chunk.lines) == len(chunk.line_nos) == len(chunk.ts) == len(chunk.streams) \
            == len(chunk.end_offsets) == len(chunk.end_lines)
        out.lines += chunk.lines
        out.line_nos += chunk.line_nos
        out.ts += chunk.ts
        out.streams += chunk.streams
        out.end_offsets += chunk.end_offsets
        out.end_lines += chunk.end_lines
        out.problems += chunk.problems
        out.resume_offset, out.resume_line = chunk.resume_offset, chunk.resume_line
    return out


def reasons(chunk: Chunk) -> list[str]:
    return [p.reason for p in chunk.problems]


@pytest.fixture
def fleet(tmp_path):
    """A storage root with one run of each kind, rotation, gzip, metadata and an inventory."""
    root = tmp_path / "root"
    d = root / "gpu-node-1" / "docker" / "containers" / CID
    write(d / f"{CID}-json.log.2.gz", dj("oldest\n"), gz=True)
    write(d / f"{CID}-json.log.1", dj("older\n"))
    write(d / f"{CID}-json.log", dj("live 1\n") + dj("live 2\n", "stderr"))
    write(d / "config.v2.json", json.dumps({
        "ID": CID, "Name": "/trainer-0", "Created": "2026-11-29T20:00:00.1Z",
        "Config": {"Image": PADDLE_IMAGE, "Labels": {"team": "vision", "io.kubernetes.pod.namespace": "ml"}},
        "State": {"Running": False, "ExitCode": 137, "OOMKilled": True,
                  "StartedAt": "2026-11-29T20:00:01Z", "FinishedAt": "2026-11-29T21:00:00Z"}}))
    write(d / "hostconfig.json", "{}")                      # unknown files are ignored
    write(d / "checkpoints" / "x", "")
    p = root / "gpu-node-1" / "pods" / "train_resnet-worker-0_8c1d-42" / "trainer"
    write(p / "0.log.20261128-100000.gz", cri("first"), gz=True)
    write(p / "0.log.20261129-100000", cri("second"))
    write(p / "0.log", cri("third"))
    write(p / "1.log", cri("after restart"))
    f = root / "gpu-node-2" / "files" / "jobs" / "j1" / "log"
    write(f / "workerlog.0", "rank 0\n")
    write(f / "train.log.2.gz", "a\n", gz=True)
    write(f / "train.log.1", "b\n")
    write(f / "train.log", "c\n")
    write(f / "train.log.meta.json", json.dumps({
        "image": "registry.local:5000/paddle/paddle", "exit_code": "1", "oom_killed": False,
        "started_at": "2026-11-29T01:00:00Z", "finished_at": "2026-11-29T02:00:00Z",
        "labels": {"job": "j1"}, "name": "resnet50", "unknown_key": 1}))
    write(f / "notes.txt", "not a log")
    write(root / "inventory.csv", "host,gpu_model,driver_version\ngpu-node-1,A100-SXM4-80GB,535.104.05\n")
    return root


# ------------------------------------------------------------------------------------------------
# discovery


def test_discover_finds_each_kind_with_metadata_and_rotation_order(fleet):
    runs, problems = discover(str(fleet))
    assert problems == []
    ids = [r.run_id for r in runs]
    assert ids == sorted(ids)
    by_id = {r.run_id: r for r in runs}
    assert set(by_id) == {
        f"gpu-node-1/docker/containers/{CID}",
        "gpu-node-1/pods/train_resnet-worker-0_8c1d-42/trainer/0",
        "gpu-node-1/pods/train_resnet-worker-0_8c1d-42/trainer/1",
        "gpu-node-2/files/jobs/j1/log/train.log",
        "gpu-node-2/files/jobs/j1/log/workerlog.0",
    }

    d = by_id[f"gpu-node-1/docker/containers/{CID}"]
    assert (d.kind, d.host, d.container_id, d.name) == ("docker", "gpu-node-1", CID, "trainer-0")
    assert (d.image, d.image_tag) == (PADDLE_IMAGE, "2.6.0-gpu-cuda11.2-cudnn8")
    assert (d.exit_code, d.oom_killed) == (137, True)
    assert (d.started_at, d.finished_at) == ("2026-11-29T20:00:01Z", "2026-11-29T21:00:00Z")
    assert d.labels["team"] == "vision" and d.namespace == "ml"
    assert [(os.path.basename(f.path), f.rotation, f.compressed, f.fmt) for f in d.files] == [
        (f"{CID}-json.log.2.gz", 2, True, "docker"),
        (f"{CID}-json.log.1", 1, False, "docker"),
        (f"{CID}-json.log", 0, False, "docker"),
    ]

    c = by_id["gpu-node-1/pods/train_resnet-worker-0_8c1d-42/trainer/0"]
    assert (c.kind, c.namespace, c.pod, c.pod_uid, c.name, c.restart) == \
        ("cri", "train", "resnet-worker-0", "8c1d-42", "trainer", 0)
    assert c.started_at is None and c.exit_code is None
    assert [(os.path.basename(f.path), f.rotation) for f in c.files] == [
        ("0.log.20261128-100000.gz", 2), ("0.log.20261129-100000", 1), ("0.log", 0)]

    p = by_id["gpu-node-2/files/jobs/j1/log/train.log"]
    assert (p.kind, p.image, p.image_tag, p.exit_code, p.oom_killed, p.name) == \
        ("file", "registry.local:5000/paddle/paddle", "latest", 1, False, "resnet50")
    assert p.labels == {"job": "j1"} and p.finished_at == "2026-11-29T02:00:00Z"
    assert [(os.path.basename(f.path), f.rotation, f.compressed, f.fmt) for f in p.files] == [
        ("train.log.2.gz", 2, True, "plain"), ("train.log.1", 1, False, "plain"), ("train.log", 0, False, "plain")]

    # reading a run's files in order gives its lines oldest first
    assert [line for f in d.files for line in read_all(f).lines] == ["oldest", "older", "live 1", "live 2"]
    assert [line for f in c.files for line in read_all(f).lines] == ["first", "second", "third"]
    assert [line for f in p.files for line in read_all(f).lines] == ["a", "b", "c"]


def test_discover_docker_zero_times_and_running_container(tmp_path):
    d = tmp_path / "h" / "docker" / "containers" / CID
    write(d / f"{CID}-json.log", dj("x\n"))
    write(d / "config.v2.json", json.dumps({"Config": {"Image": "ubuntu"}, "State": {
        "Running": True, "ExitCode": 0, "StartedAt": "2026-11-29T20:00:01Z",
        "FinishedAt": "0001-01-01T00:00:00Z"}}))
    (run,), problems = discover(str(tmp_path))
    assert problems == []
    assert run.finished_at is None and run.started_at == "2026-11-29T20:00:01Z"
    assert run.exit_code is None            # still running: no outcome yet
    assert run.image_tag == "latest"


def test_discover_bad_metadata_is_a_problem_but_run_is_kept(tmp_path):
    d = tmp_path / "h" / "docker" / "containers" / CID
    write(d / f"{CID}-json.log", dj("x\n"))
    write(d / "config.v2.json", '{"Config": {"Image": ')
    write(tmp_path / "h" / "files" / "a.log", "x\n")
    write(tmp_path / "h" / "files" / "a.log.meta.json", "not json")
    runs, problems = discover(str(tmp_path))
    assert [r.run_id for r in runs] == [f"h/docker/containers/{CID}", "h/files/a.log"]
    assert sorted((os.path.basename(p.path), p.reason) for p in problems) == [
        ("a.log.meta.json", "bad_metadata"), ("config.v2.json", "bad_metadata")]
    assert runs[0].image is None and runs[0].container_id == CID


def test_discover_prefers_uncompressed_twin_and_handles_gz_live_file(tmp_path):
    f = tmp_path / "h" / "files"
    write(f / "x.log.1", "one\n")
    write(f / "x.log.1.gz", "one\n", gz=True)       # being compressed by logrotate
    write(f / "y.log.gz", "only gz\n", gz=True)
    runs, _ = discover(str(tmp_path))
    by_id = {r.run_id: r for r in runs}
    assert [(os.path.basename(lf.path), lf.rotation) for lf in by_id["h/files/x.log"].files] == [("x.log.1", 1)]
    (y,) = by_id["h/files/y.log"].files
    assert (y.rotation, y.compressed) == (0, True)
    assert read_all(y).lines == ["only gz"]


def test_discover_missing_root_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        discover(str(tmp_path / "nope"))


def test_discover_and_read_through_fsspec_url():
    import fsspec

    fs = fsspec.filesystem("memory")
    base = "/logml-test-root"
    fs.pipe(f"{base}/h/files/train.log", b"hello\nworld\n")
    fs.pipe(f"{base}/h/docker/containers/{CID}/{CID}-json.log.1.gz", gzip.compress(dj("zipped\n")))
    try:
        runs, problems = discover(f"memory://{base}")
        assert problems == []
        assert [r.run_id for r in runs] == [f"h/docker/containers/{CID}", "h/files/train.log"]
        assert runs[1].files[0].path.startswith("memory://")
        assert read_all(runs[1].files[0]).lines == ["hello", "world"]
        assert read_all(runs[0].files[0]).lines == ["zipped"]
        assert read_inventory(f"memory://{base}") is None
    finally:
        fs.rm(base, recursive=True)


def test_read_inventory(fleet, tmp_path):
    inv = read_inventory(str(fleet))
    assert list(inv.columns) == ["host", "gpu_model", "driver_version", "cuda_driver_max", "node_pool"]
    row = inv.iloc[0]
    assert (row.host, row.gpu_model, row.driver_version) == ("gpu-node-1", "A100-SXM4-80GB", "535.104.05")
    assert row.cuda_driver_max is None and row.node_pool is None
    assert read_inventory(str(tmp_path / "empty")) is None


@pytest.mark.parametrize("image,tag", [
    (PADDLE_IMAGE, "2.6.0-gpu-cuda11.2-cudnn8"),
    ("paddlepaddle/paddle", "latest"),
    ("registry.local:5000/paddle/paddle", "latest"),
    ("registry.local:5000/paddle/paddle:3.0.0b1", "3.0.0b1"),
    ("paddle@sha256:abcdef", "latest"),
    (None, None),
])
def test_image_tag(image, tag):
    assert image_tag(image) == tag


# ------------------------------------------------------------------------------------------------
# formats


def test_docker_partials_are_joined_per_stream(tmp_path):
    data = (dj("start\n") + dj("a" * 10 + "-", time="t1") + dj("b" * 10 + "-", time="t2")
            + dj("end\n", time="t3") + dj("warn\n", "stderr", "t4") + dj("tail\n"))
    f = LogFile(write(tmp_path / "c-json.log", data), "docker", 0, False)
    out = read_all(f)
    assert out.lines == ["start", "a" * 10 + "-" + "b" * 10 + "-end", "warn", "tail"]
    assert out.line_nos == [1, 2, 5, 6]
    assert out.ts[1] == "t1" and out.streams == ["stdout", "stdout", "stderr", "stdout"]
    assert out.end_lines == [1, 4, 5, 6]
    assert out.end_offsets[-1] == len(data) and out.problems == []


def test_docker_partial_interleaved_with_other_stream(tmp_path):
    data = dj("x\n") + dj("part-") + dj("err\n", "stderr") + dj("end\n") + dj("y\n")
    f = LogFile(write(tmp_path / "c-json.log", data), "docker", 0, False)
    out = read_all(f)
    assert out.lines == ["x", "part-end", "err", "y"]       # first-piece order
    assert out.line_nos == [1, 2, 3, 5]
    assert out.streams == ["stdout", "stdout", "stderr", "stdout"]


def test_cri_partials_and_unterminated_partial(tmp_path):
    t1 = "2026-11-29T20:06:47.1Z"
    data = (cri("hello ", tag="P", time=t1) + cri("big ", tag="P") + cri("world")
            + cri("an error", "stderr") + cri("never finished", tag="P"))
    f = LogFile(write(tmp_path / "0.log", data), "cri", 0, False)
    out = read_all(f)
    assert out.lines == ["hello big world", "an error", "never finished"]
    assert out.line_nos == [1, 4, 5] and out.ts[0] == t1 and out.streams[1] == "stderr"
    assert reasons(out) == ["cri_partial_unterminated"] and out.problems[0].line == 5
    # a live file still being written: leave the open partial for later
    live = read_all(f, emit_unterminated=False)
    assert live.lines == ["hello big world", "an error"]
    assert (live.resume_offset, live.resume_line) == (len(data) - len(cri("never finished", tag="P")), 4)


def test_plain_final_line_without_newline_and_crlf(tmp_path):
    f = LogFile(write(tmp_path / "t.log", b"one\r\ntwo\nKilled"), "plain", 0, False)
    out = read_all(f)
    assert out.lines == ["one", "two", "Killed"]
    assert out.ts == [None] * 3 and out.streams == [None] * 3
    assert out.end_offsets == [5, 9, 15] and out.end_lines == [1, 2, 3]
    assert read_all(f, emit_unterminated=False).lines == ["one", "two"]


@pytest.mark.parametrize("block_size", [1, 3, 64])
def test_tiny_blocks_give_the_same_result(tmp_path, block_size):
    plain = b"alpha\n\nbeta gamma\n" * 5 + b"end"
    docker = dj("a-") + dj("b\n") + dj("c\n", "stderr") + b'{"log": broken\n' + dj("d\n")
    crilog = cri("p1 ", tag="P") + cri("p2") + cri("x", "stderr")
    for name, fmt, data in [("p.log", "plain", plain), ("d-json.log", "docker", docker), ("0.log", "cri", crilog)]:
        f = LogFile(write(tmp_path / name, data), fmt, 0, False)
        ref, small = read_all(f), read_all(f, block_size=block_size, chunk_lines=2)
        assert (small.lines, small.line_nos, small.end_offsets, small.end_lines, reasons(small)) == \
            (ref.lines, ref.line_nos, ref.end_offsets, ref.end_lines, reasons(ref))


def _random_log(rng, fmt: str) -> bytes:
    pieces = ["step 1 loss 0.5", "Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
              "中文 ünï", "\x1b[31mERROR\x1b[0m", "tab\there", "back\\slash", "", "x" * 300, "cr\r"]
    out = []
    for _ in range(rng.randrange(20, 60)):
        text, stream = rng.choice(pieces), rng.choice(["stdout", "stderr"])
        partial = rng.random() < 0.2
        if fmt == "plain":
            out.append(text.encode() + b"\n")
        elif fmt == "docker":
            out.append(dj(text if partial else text + "\n", stream))
        else:
            out.append(cri(text, stream, "P" if partial else "F"))
        if rng.random() < 0.05:
            out.append(b"\xff garbage {\n")
    return b"".join(out)


@pytest.mark.parametrize("fmt", ["plain", "docker", "cri"])
def test_random_logs_read_the_same_whatever_the_block_and_chunk_sizes(tmp_path, fmt):
    import random

    rng = random.Random(7)
    for i in range(5):
        data = _random_log(rng, fmt)
        f = LogFile(write(tmp_path / f"{i}.log", data), fmt, 0, False)
        ref = read_all(f)
        assert ref.end_offsets == sorted(ref.end_offsets) and ref.resume_offset == len(data)
        for block_size, chunk_lines in [(1, 1), (5, 3), (97, 1000)]:
            got = read_all(f, block_size=block_size, chunk_lines=chunk_lines)
            assert (got.lines, got.line_nos, got.ts, got.streams, got.end_offsets, got.end_lines) == \
                (ref.lines, ref.line_nos, ref.ts, ref.streams, ref.end_offsets, ref.end_lines)
            assert [(p.reason, p.line) for p in got.problems] == [(p.reason, p.line) for p in ref.problems]
        # resuming after any line loses nothing; only inside a stream tangle are lines read again
        for k in range(len(ref.lines)):
            rest = read_all(f, start_offset=ref.end_offsets[k], start_line=ref.end_lines[k])
            again = len(rest.lines) - (len(ref.lines) - k - 1)
            assert again >= 0 and rest.line_nos == ref.line_nos[k + 1 - again:] and \
                rest.lines == ref.lines[k + 1 - again:]


# ------------------------------------------------------------------------------------------------
# resume


def _check_resume(f: LogFile, **kw):
    full = read_all(f, **kw)
    assert full.lines
    for k in range(len(full.lines)):
        rest = read_all(f, start_offset=full.end_offsets[k], start_line=full.end_lines[k], **kw)
        assert rest.lines == full.lines[k + 1:], k
        assert rest.line_nos == full.line_nos[k + 1:], k
        assert rest.end_offsets == full.end_offsets[k + 1:], k
    return full


def test_resume_from_any_committed_offset_is_exact(tmp_path):
    plain = "".join(f"line {i} ünïcode\n" for i in range(30)) + "last"
    _check_resume(LogFile(write(tmp_path / "p.log", plain), "plain", 0, False), chunk_lines=7)
    _check_resume(LogFile(write(tmp_path / "p.log.gz", plain, gz=True), "plain", 0, True), chunk_lines=4)
    docker = b"".join(dj(f"{i}\n") if i % 5 else dj(f"{i}-partial-") for i in range(30))
    full = _check_resume(LogFile(write(tmp_path / "d-json.log", docker), "docker", 0, False), chunk_lines=3)
    assert "5-partial-6" in full.lines and full.line_nos[full.lines.index("5-partial-6")] == 6
    crilog = b"".join(cri(f"{i}", tag="P" if i % 4 == 0 else "F") for i in range(30))
    _check_resume(LogFile(write(tmp_path / "0.log", crilog), "cri", 0, False), chunk_lines=5)


def test_resume_inside_a_stream_tangle_loses_nothing(tmp_path):
    data = dj("a\n") + dj("p1-") + dj("e\n", "stderr") + dj("p2\n") + dj("b\n")
    f = LogFile(write(tmp_path / "d-json.log", data), "docker", 0, False)
    full = read_all(f)
    assert full.lines == ["a", "p1-p2", "e", "b"]
    k = full.lines.index("p1-p2")   # not the tangle's last line: resuming re-reads the tangle
    rest = read_all(f, start_offset=full.end_offsets[k], start_line=full.end_lines[k])
    assert rest.lines == ["p1-p2", "e", "b"] and rest.line_nos == full.line_nos[k:]
    # chunks are never cut inside the tangle
    chunks = list(read_chunks(f, chunk_lines=2))
    assert [c.lines for c in chunks] == [["a", "p1-p2", "e"], ["b"]]


def test_offset_beyond_end_is_reported(tmp_path):
    f = LogFile(write(tmp_path / "p.log", "x\n"), "plain", 0, False)
    out = read_all(f, start_offset=100, start_line=5)
    assert out.lines == [] and reasons(out) == ["offset_beyond_end"]


# ------------------------------------------------------------------------------------------------
# bad inputs


def test_invalid_utf8_is_replaced_and_reported(tmp_path):
    f = LogFile(write(tmp_path / "p.log", b"good\nbad \xff\xfe byte\nalso good\n"), "plain", 0, False)
    out = read_all(f)
    assert out.lines == ["good", "bad \ufffd\ufffd byte", "also good"]
    assert [(p.reason, p.line) for p in out.problems] == [("invalid_utf8", 2)]
    c = LogFile(write(tmp_path / "0.log", cri("ok") + f"{TS} stdout F caf\xe9\n".encode("latin-1")), "cri", 0, False)
    out = read_all(c)
    assert out.lines == ["ok", "caf\ufffd"] and reasons(out) == ["invalid_utf8"]
    d = LogFile(write(tmp_path / "d-json.log", dj("ok\n") + b'{"log":"caf\xe9\\n","stream":"stdout","time":"t"}\n'),
                "docker", 0, False)
    out = read_all(d)
    assert out.lines == ["ok", "caf\ufffd"] and reasons(out) == ["invalid_utf8"]


def test_chinese_in_gbk_is_read_as_chinese_and_reported(tmp_path):
    """A log written on a Chinese Windows machine (code page 936) or saved by an editor in GBK: its
    lines are read as the Chinese they are, not replaced, and each is still reported with how it was
    read. A Latin-1 line is not taken for Chinese."""
    msg = "错误：找不到指定的模块 paddle_inference.dll"
    f = LogFile(write(tmp_path / "p.log", b"start\n" + msg.encode("gbk") + b"\nDonn\xe9es \xe0 M\xfcller\n"),
                "plain", 0, False)
    out = read_all(f)
    assert out.lines == ["start", msg, "Donn\ufffdes \ufffd M\ufffdller"]
    assert [(p.reason, p.line, p.detail) for p in out.problems] == [
        ("invalid_utf8", 2, "decoded as GB18030"), ("invalid_utf8", 3, "")]
    c = LogFile(write(tmp_path / "0.log", cri("ok") + f"{TS} stderr F ".encode() + msg.encode("gb18030") + b"\n"),
                "cri", 0, False)
    assert read_all(c).lines == ["ok", msg]


def test_nul_bytes_are_stripped_and_reported(tmp_path):
    f = LogFile(write(tmp_path / "p.log", b"a\n\x00\x00\x00b\x00\nc\n"), "plain", 0, False)
    out = read_all(f)
    assert out.lines == ["a", "b", "c"] and [(p.reason, p.line) for p in out.problems] == [("nul_bytes", 2)]
    d = LogFile(write(tmp_path / "d-json.log", dj("x\x00y\n") + b"\x00\x00" + dj("z\n")), "docker", 0, False)
    out = read_all(d)
    assert out.lines == ["xy", "z"] and reasons(out) == ["nul_bytes", "nul_bytes"]


def test_ten_megabyte_line_is_truncated(tmp_path):
    big = b"x" * (10 << 20)
    f = LogFile(write(tmp_path / "p.log", b"before\n" + big + b"\nafter\n"), "plain", 0, False)
    out = read_all(f)
    assert out.lines[0] == "before" and out.lines[2] == "after"
    assert len(out.lines[1]) == 1 << 20
    assert [(p.reason, p.line, p.detail) for p in out.problems] == [("line_too_long", 2, str(10 << 20))]
    assert out.end_offsets == [7, 7 + len(big) + 1, 7 + len(big) + 7]
    # resume after the long line
    rest = read_all(f, start_offset=out.end_offsets[1], start_line=2)
    assert rest.lines == ["after"] and rest.line_nos == [3]


def test_long_joined_partials_are_truncated(tmp_path):
    data = dj("x" * 40 + "é") + dj("y" * 40) + dj("z" * 40 + "\n") + dj("next\n")
    f = LogFile(write(tmp_path / "d-json.log", data), "docker", 0, False)
    out = read_all(f, max_line_bytes=64)
    assert out.lines[0] == "x" * 40 + "é" + "y" * 22 and len(out.lines[0].encode()) == 64
    assert out.lines[1] == "next"
    assert [(p.reason, p.line, p.detail) for p in out.problems] == [("line_too_long", 1, "122")]
    c = LogFile(write(tmp_path / "0.log", cri("a" * 200) + cri("b")), "cri", 0, False)
    out = read_all(c, max_line_bytes=50)
    assert out.lines == ["a" * 50, "b"] and reasons(out) == ["line_too_long"]


def test_truncated_gzip_keeps_what_was_decoded(tmp_path):
    lines = [f"line {i} " + "x" * (i % 17) for i in range(20000)]
    blob = gzip.compress("\n".join(lines).encode() + b"\n")
    path = write(tmp_path / "p.log.1.gz", blob[: len(blob) // 2])
    f = LogFile(path, "plain", 1, True)
    out = read_all(f)
    assert "truncated_gzip" in reasons(out)
    assert len(out.lines) > 1000
    assert out.lines[:-1] == lines[: len(out.lines) - 1]     # the last one may be cut mid-line
    h, n = head_fingerprint(f, 1024)                          # does not raise either
    assert n == 1024 and h == fingerprint(LogFile(write(tmp_path / "whole.log", "\n".join(lines)), "plain", 0, False))


def test_malformed_lines_are_skipped_and_reported(tmp_path):
    d = LogFile(write(tmp_path / "d-json.log", dj("ok 1\n") + b'{"log": "no end\n' + b"[1,2]\n" + dj("ok 2\n")),
                "docker", 0, False)
    out = read_all(d)
    assert out.lines == ["ok 1", "ok 2"] and out.line_nos == [1, 4]
    assert [(p.reason, p.line) for p in out.problems] == [("malformed_json", 2), ("malformed_json", 3)]
    assert out.problems[0].detail.startswith('{"log": "no end')
    c = LogFile(write(tmp_path / "0.log", cri("ok") + b"garbage line\n" + cri("ok 2")), "cri", 0, False)
    out = read_all(c)
    assert out.lines == ["ok", "ok 2"] and [(p.reason, p.line) for p in out.problems] == [("malformed_cri", 2)]


def test_trailing_malformed_lines_move_the_resume_point(tmp_path):
    data = dj("ok\n") + b"garbage\n"
    out = read_all(LogFile(write(tmp_path / "d-json.log", data), "docker", 0, False))
    assert out.end_offsets[-1] == len(dj("ok\n")) and (out.resume_offset, out.resume_line) == (len(data), 2)
    # ...but a torn final write (no newline yet) stays unread: the writer may still complete it
    torn = dj("ok\n") + b'{"log":"half'
    out = read_all(LogFile(write(tmp_path / "t-json.log", torn), "docker", 0, False))
    assert reasons(out) == ["malformed_json"] and (out.resume_offset, out.resume_line) == (len(dj("ok\n")), 1)


def test_empty_file(tmp_path):
    for fmt in ("plain", "docker", "cri"):
        f = LogFile(write(tmp_path / f"{fmt}.log", b""), fmt, 0, False)
        assert list(read_chunks(f)) == []
    assert head_fingerprint(LogFile(str(tmp_path / "plain.log"), "plain", 0, False))[1] == 0


def test_unreadable_files(tmp_path):
    os.makedirs(tmp_path / "dir.log")
    os.symlink(tmp_path / "missing", tmp_path / "dangling.log")
    for name in ("dir.log", "dangling.log", "never-existed.log"):
        f = LogFile(str(tmp_path / name), "plain", 0, False)
        out = read_all(f)
        assert out.lines == [] and reasons(out) == ["unreadable"], name
        assert head_fingerprint(f) == (fingerprint(f, 0), 0)
    # a dangling symlink in the layout is still discovered, and then reported when read
    os.symlink(tmp_path / "missing", write(tmp_path / "root" / "h" / "files" / "ok.log", "x\n") + ".1")
    runs, _ = discover(str(tmp_path / "root"))
    assert [os.path.basename(f.path) for f in runs[0].files] == ["ok.log.1", "ok.log"]


def test_binary_file_is_reported_but_ansi_logs_are_not(tmp_path):
    binary = bytes(range(256)) * 64
    out = read_all(LogFile(write(tmp_path / "core.log", binary), "plain", 0, False))
    assert out.lines == [] and reasons(out) == ["binary"]
    ansi = (b"\x1b[32mINFO\x1b[0m step 1 loss 0.5\n" * 50) + b"one bad \xff byte\n" + b"\tindented\n"
    out = read_all(LogFile(write(tmp_path / "color.log", ansi), "plain", 0, False))
    assert len(out.lines) == 52 and reasons(out) == ["invalid_utf8"]


def test_compression_detected_from_content(tmp_path):
    """A gzip named like a plain file (and a plain file named .gz) are still read correctly."""
    a = LogFile(write(tmp_path / "a.log", "zipped\n", gz=True), "plain", 0, False)
    b = LogFile(write(tmp_path / "b.log.gz", "not zipped\n"), "plain", 0, True)
    assert read_all(a).lines == ["zipped"] and read_all(b).lines == ["not zipped"]


# ------------------------------------------------------------------------------------------------
# fingerprint and sniffing


def test_fingerprint_survives_rotation_and_compression(tmp_path):
    data = b"".join(dj(f"step {i}\n") for i in range(100))
    live = LogFile(write(tmp_path / "c-json.log", data), "docker", 0, False)
    rotated = LogFile(write(tmp_path / "c-json.log.1", data), "docker", 1, False)
    zipped = LogFile(write(tmp_path / "c-json.log.1.gz", data, gz=True), "docker", 1, True)
    h, n = head_fingerprint(live, 1024)
    assert n == 1024 == head_size(zipped)
    assert fingerprint(rotated, n) == fingerprint(zipped, n) == h
    short = LogFile(write(tmp_path / "s.log", b"abc"), "plain", 0, False)
    assert head_fingerprint(short) == (fingerprint(short, 3), 3)


def test_sniff_format_and_logfile_for_path(tmp_path):
    assert sniff_format(dj("x\n")) == "docker"
    assert sniff_format(cri("x")) == "cri"
    assert sniff_format(b"I1129 20:06:47.123456 12345 op.cc:42] hi\n") == "plain"
    # a line of the user's own on top of a runtime's log: the format of most lines decides (not the first line,
    # which would have every envelope read as text)
    head = "== train-0902 (docker json log, exit 1)\n".encode()
    assert sniff_format(head + dj("a\n") + dj("b\n")) == "docker"
    assert sniff_format(b"note\n" + cri("a") + cri("b")) == "cri"
    assert sniff_format(b"one\ntwo\n" + dj("a\n")) == "plain"
    # given by hand, the user's own lines around the envelopes are kept as text (a runtime's log read by the
    # nightly reports them instead)
    pasted = head + dj("a\n") + dj("b\n") + dj("c\n") + dj("d\n") + b"$ kubectl describe pod x\nReason: Evicted\n"
    got = read_all(logfile_for_path(write(tmp_path / "pasted.log", pasted)))
    assert got.lines == ["== train-0902 (docker json log, exit 1)", "a", "b", "c", "d", "$ kubectl describe pod x",
                         "Reason: Evicted"] and not got.problems
    nightly = read_all(LogFile(str(tmp_path / "pasted.log"), "docker", 0, False))
    assert nightly.lines == ["a", "b", "c", "d"] and [p.reason for p in nightly.problems] == ["malformed_json"] * 3
    crid = read_all(logfile_for_path(write(tmp_path / "pasted_cri.log", b"my note\n" + cri("a") + cri("b"))))
    assert crid.lines == ["my note", "a", "b"] and not crid.problems
    f = logfile_for_path(write(tmp_path / "whatever.gz", cri("x"), gz=True))
    assert (f.fmt, f.compressed) == ("cri", True)
    assert read_all(f).lines == ["x"]


def test_node_folders_copied_whole_are_read_and_stray_files_reported(tmp_path):
    """A shipper that copies a node's /var/lib/docker and /var/log/pods (or docker's containers/
    folder alone) gives the same runs as the layout; a log anywhere else is reported, never dropped
    silently; docker's own state is ignored, and kubelet's /var/log/containers view of a pod log that was
    copied too is read once, at the pod log."""
    cid, cid2 = "ab" * 32, "cd" * 32
    files = {
        f"h1/var/lib/docker/containers/{cid}/{cid}-json.log": dj("I1129 ok\n"),
        f"h1/var/lib/docker/containers/{cid}/config.v2.json": json.dumps(
            {"Config": {"Image": PADDLE_IMAGE}, "State": {"ExitCode": 3}}).encode(),
        f"h1/var/lib/docker/containers/{cid}/hostconfig.json": b"{}",
        f"h1/var/lib/docker/containers/{cid}/checkpoints/c1/config.json": b"{}",
        "h1/var/lib/docker/overlay2/l/ABC/diff/etc/passwd": b"root:x:0:0",
        "h1/var/log/pods/ns_train-0_uid1/trainer/0.log": cri("step 1"),
        "h4/var/log/pods/0f1e2d3c-uid/trainer_2.log": cri("kubelet < 1.14"),
        f"h1/var/log/containers/train-0_ns_trainer-{cid2}.log": cri("step 1"),
        f"h2/containers/{cid2}/{cid2}-json.log": dj("hello\n"),
        "README.md": b"# our fleet\n",
        "labels.csv": b"run_id,category\n",
        "node7-train.log": b"flat at the root\n",
        "h3/train.log": b"loose\n",
        "h3/logs/app.log": b"elsewhere\n",
        "inventory.csv": b"host,gpu_model\nh1,A100\n",
    }
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    runs, problems = discover(str(tmp_path))
    by_id = {r.run_id: r for r in runs}
    assert set(by_id) == {f"h1/docker/containers/{cid}", "h1/pods/ns_train-0_uid1/trainer/0",
                          f"h2/docker/containers/{cid2}", "h4/pods/0f1e2d3c-uid/trainer/2"}
    assert by_id["h4/pods/0f1e2d3c-uid/trainer/2"].restart == 2 and by_id["h4/pods/0f1e2d3c-uid/trainer/2"].kind == "cri"
    docker = by_id[f"h1/docker/containers/{cid}"]
    assert docker.image == PADDLE_IMAGE and docker.exit_code == 3 and docker.kind == "docker"
    assert by_id["h1/pods/ns_train-0_uid1/trainer/0"].namespace == "ns"
    assert sorted((os.path.relpath(p.path, tmp_path), p.reason) for p in problems) == [
        ("h3/logs/app.log", "unrecognized_path"), ("h3/train.log", "unrecognized_path"),
        ("node7-train.log", "unrecognized_path")]


def test_logs_named_otherwise_and_links_are_read_once_or_reported(tmp_path):
    """In <host>/files/ a text file that reads like a log but is not named *.log (a shipper's
    stdout--<date>.txt, a file with no extension) is reported, while a job's side files (a vocabulary, a
    model's binary parameters) are not. A link into the root is the same log, read once at its target (a
    linked host folder or log file counted twice would double its runs); a link to a folder outside the
    root is reported with where it leads, a link to a log outside is read."""
    log = "2026-12-01 10:00:00 INFO start\nTraceback (most recent call last):\nKeyError: 'bbox'\n"
    write(tmp_path / "root/h1/files/jobs/train.log", "I1201 10:00:00.1 1 step 1\n")
    write(tmp_path / "root/h1/files/jobs/stdout--2026-12-01.txt", log)
    write(tmp_path / "root/h1/files/jobs/paddle-train", log)
    write(tmp_path / "root/h1/files/model/ppocr_keys.txt", "a\nb\nc\n")
    write(tmp_path / "root/h1/files/model/conv1_weights", bytes(range(256)) * 8)
    write(tmp_path / "outside/h9/files/x.log", "ERROR elsewhere\n")
    os.symlink(tmp_path / "outside/h9", tmp_path / "root/h1/files/ext")
    os.symlink(tmp_path / "root/h1", tmp_path / "root/h2")
    os.symlink(tmp_path / "root/h1/files/jobs/train.log", tmp_path / "root/h1/files/jobs/again.log")
    os.symlink(tmp_path / "outside/h9/files/x.log", tmp_path / "root/h1/files/jobs/shipped.log")
    runs, problems = discover(str(tmp_path / "root"))
    assert sorted(r.run_id for r in runs) == ["h1/files/jobs/shipped.log", "h1/files/jobs/train.log"]
    reported = {os.path.relpath(p.path, tmp_path / "root"): (p.reason, p.detail) for p in problems}
    assert sorted(reported) == ["h1/files/ext", "h1/files/jobs/paddle-train", "h1/files/jobs/stdout--2026-12-01.txt"]
    assert {r for r, _ in reported.values()} == {"unrecognized_path"}
    assert "rename it to .log" in reported["h1/files/jobs/paddle-train"][1]
    assert str(tmp_path / "outside/h9") in reported["h1/files/ext"][1]


def test_a_job_log_folder_inside_a_container_folder_and_a_host_folder_as_root_are_reported(tmp_path):
    """paddle.distributed.launch's log/ folder copied into a container's folder (workerlog.N, launch.log)
    was in neither runs nor problems; docker's own files there stay silent. A root that is one host's
    folder files its runs under a host named "docker": that is reported once."""
    cid = "ef" * 32
    box = tmp_path / "root/h1/docker/containers" / cid
    write(box / f"{cid}-json.log", dj("launching 8 ranks\n"))
    write(box / "hostconfig.json", "{}")
    write(box / "hostname", "trainer-7f9c\n")
    write(box / "log/workerlog.0", "I1201 10:00:00.1 1 step 1\n")
    write(box / "log/launch.log", "LAUNCH INFO 2026-12-01 10:00:00 job 4711\n")
    write(box / "log/notes.txt", "2026-12-01 10:00:00 ERROR rank 5 exited\n")
    write(box / "checkpoints/c1/config.json", "{}")
    runs, problems = discover(str(tmp_path / "root"))
    assert [r.run_id for r in runs] == [f"h1/docker/containers/{cid}"]
    reported = {os.path.relpath(p.path, box): p.detail for p in problems}
    assert sorted(reported) == ["log/launch.log", "log/notes.txt", "log/workerlog.0"]
    assert all("copy it to <host>/files/<job>/" in d for d in reported.values())
    runs, problems = discover(str(tmp_path / "root/h1"))
    assert [r.host for r in runs] == ["docker"]
    (root_problem,) = [p for p in problems if p.path == str(tmp_path / "root/h1")]
    assert "one host's folder (it holds docker/)" in root_problem.detail


def test_kubelet_view_alone_is_read_and_a_link_is_read_once_at_its_target(tmp_path):
    """A shipper that copied only a node's /var/log/containers (following its links) still gives the runs, with
    pod, namespace and container from kubelet's file names and the format read from the content (CRI, or
    docker json-file on a dockershim node). A link into root is the pod log itself, read once there; a dangling
    link (its pod log not copied) is reported, never dropped silently."""
    cid_cri, cid_docker, cid_link, cid_dangling = "a1" * 32, "b2" * 32, "c3" * 32, "d4" * 32
    write(tmp_path / "n1/var/log/containers" / f"trainer-0_ml_paddle-{cid_cri}.log", cri("step 1") + cri("Killed"))
    write(tmp_path / "n1/var/log/containers" / f"infer-1_serving_predictor-{cid_docker}.log", dj("ready\n"))
    write(tmp_path / "n2/var/log/pods/ml_eval-2_uid9/paddle/0.log", cri("eval done"))
    (tmp_path / "n2/var/log/containers").mkdir(parents=True)
    os.symlink(tmp_path / "n2/var/log/pods/ml_eval-2_uid9/paddle/0.log",
               tmp_path / "n2/var/log/containers" / f"eval-2x_other_paddle-{cid_link}.log")
    os.symlink(tmp_path / "gone/0.log", tmp_path / "n2/var/log/containers" / f"lost-3_ml_paddle-{cid_dangling}.log")
    write(tmp_path / "n3/containers" / f"trainer-4_ml_paddle-{cid_cri}.log", cri("copied as a folder alone"))
    runs, problems = discover(str(tmp_path))
    by_id = {r.run_id: r for r in runs}
    assert set(by_id) == {f"n1/containers/trainer-0_ml_paddle-{cid_cri}", f"n1/containers/infer-1_serving_predictor-{cid_docker}",
                          "n2/pods/ml_eval-2_uid9/paddle/0", f"n3/containers/trainer-4_ml_paddle-{cid_cri}"}
    view = by_id[f"n1/containers/trainer-0_ml_paddle-{cid_cri}"]
    assert (view.kind, view.pod, view.namespace, view.name, view.container_id) == ("cri", "trainer-0", "ml", "paddle", cid_cri)
    assert read_all(view.files[0]).lines == ["step 1", "Killed"]
    dockershim = by_id[f"n1/containers/infer-1_serving_predictor-{cid_docker}"]
    assert dockershim.kind == "docker" and read_all(dockershim.files[0]).lines == ["ready"]
    assert [(os.path.basename(p.path), p.reason) for p in problems] == [(f"lost-3_ml_paddle-{cid_dangling}.log", "unreadable")]


def test_slurms_default_output_names_are_read_as_logs(tmp_path):
    from pipeline.sources import discover
    jobs = tmp_path / "hpc-n01" / "files" / "slurm"
    jobs.mkdir(parents=True)
    (jobs / "slurm-81400.out").write_text("I1127 09:00:11.000000 1 init.cc:1] start\nTraceback (most recent call last):\n")
    (jobs / "slurm-81401_3.err").write_text("srun: error: hpc-n01: task 0: Exited with exit code 1\n")
    (jobs / "results.out").write_text("0.93\n")   # a job's side file, not its log
    runs, problems = discover(str(tmp_path))
    assert sorted(r.run_id for r in runs) == ["hpc-n01/files/slurm/slurm-81400.out",
                                              "hpc-n01/files/slurm/slurm-81401_3.err"]
    assert not [p for p in problems if "slurm-" in p.path]
