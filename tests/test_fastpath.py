"""The vectorised pieces of the columnar ingest agree with what they replace: timestamps read by
position equal DuckDB's cast, string views equal the bytes they point to, the digit-run mask cache
equals masking every digit-collapsed message, docker/CRI decoding equals DuckDB's JSON/regex SQL."""
from __future__ import annotations

import json
import random
import re

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from pipeline import envelope, mining, sources, tsparse

RNG = random.Random(5)


def _buffer(strings: list[str]):
    data = "\n".join(strings).encode() + bytes(envelope.PAD)
    starts, pos = [], 0
    for s in strings:
        starts.append(pos)
        pos += len(s.encode()) + 1
    return np.frombuffer(data, np.uint8), np.array(starts, np.int64)


def _duck_us(strings: list[str]) -> list:
    with duckdb.connect() as con:
        con.register("t", pa.table({"i": np.arange(len(strings)), "s": pa.array(strings, pa.string())}))
        return [r for (r,) in con.execute("SELECT epoch_us(TRY_CAST(s AS TIMESTAMP)) FROM t ORDER BY i").fetchall()]


def _pick(*choices):
    return RNG.choice(choices)


def _ts(valid_bias: bool) -> str:
    good = valid_bias and RNG.random() < 0.7
    y = f"{RNG.randint(1970, 2100)}" if good else _pick("2026", "0000", "2024", "20a6", "9999", "0999", "1900")
    m = f"{RNG.randint(1, 12):02d}" if good else _pick("01", "02", "12", "13", "00", "1a")
    d = f"{RNG.randint(1, 28):02d}" if good else _pick("01", "28", "29", "30", "31", "32", "00")
    hh = f"{RNG.randint(0, 23):02d}" if good else _pick("00", "23", "24", "99")
    mm, ss = (f"{RNG.randint(0, 59):02d}" if good else _pick("00", "59", "60") for _ in range(2))
    frac = _pick("", ".", ".1", ".123456", ".123456789", ".1234567890", ",5", ".12a", ".9999999")
    return f"{y}-{m}-{d}{_pick('T', ' ', 't')}{hh}:{mm}:{ss}{frac}{_pick('', 'Z', 'z', '+08:00')}"


def test_iso_timestamps_equal_duckdbs_cast():
    strings = [_ts(True) for _ in range(20000)] + ["2026-11-16T22:20:32.759117039Z", "2026-11-16T22:20:32Z", "x"]
    data, starts = _buffer(strings)
    us, ok = tsparse.iso(data, starts, np.array([len(s) for s in strings]))
    expected = _duck_us(strings)
    assert ok.sum() > 2000   # the usual forms are read by position ...
    assert all(u == e for u, k, e in zip(us.tolist(), ok, expected) if k)   # ... exactly as DuckDB reads them


@pytest.mark.parametrize("form", ["ymd10", "ymd8", "md4", "md5"])
def test_header_timestamps_equal_the_sql_they_replace(form):
    lines, built, d0, dlen, t0, t1, year = [], [], [], [], [], [], []
    for _ in range(5000):
        y, mo, dd = _ts(True)[:10].split("-") if RNG.random() < 0.8 else ("2026", "13", "40")
        tm = _ts(True)[11:].rstrip("Zz").split("+")[0]
        date = {"ymd10": f"{y}{_pick('-', '/')}{mo}{_pick('-', '/')}{dd}", "ymd8": f"{y}{mo}{dd}",
                "md4": f"{mo}{dd}", "md5": f"{mo}/{dd}"}[form]
        lines.append(f"[{date} {tm}] ppocr INFO: x")
        d0.append(1)
        dlen.append(len(date))
        t0.append(2 + len(date))
        t1.append(2 + len(date) + len(tm))
        ry = RNG.choice([2026, 0]) if form.startswith("md") else 0
        year.append(ry)
        if form == "ymd10":
            built.append(date.replace("/", "-") + "T" + tm.replace(",", "."))
        elif form == "ymd8":
            built.append(f"{y}-{mo}-{dd}T{tm.replace(',', '.')}")
        else:
            built.append(f"{ry}-{mo}-{dd}T{tm.replace(',', '.')}" if ry else "")
    data, starts = _buffer(lines)
    us, ok = tsparse.header(data, starts + d0, np.array(dlen), starts + t0, starts + t1, np.ones(len(lines), bool),
                            np.array(year) if form.startswith("md") else None)
    expected = _duck_us(built)
    assert ok.sum() > 500
    assert all(u == e for u, k, e in zip(us.tolist(), ok, expected) if k)


def test_string_views_point_at_their_bytes():
    data = bytes(RNG.randrange(32, 127) for _ in range(5000)) + "é中文".encode()
    raw = np.frombuffer(data, np.uint8)
    starts = np.array([RNG.randrange(0, len(data)) for _ in range(3000)] + [len(data) - 1, len(data) - 3, 0])
    lens = np.array([RNG.randrange(0, min(40, len(data) - s) + 1) for s in starts])
    lens[-3:] = [1, 3, 0]
    arr = envelope.view_array(envelope.views(raw, starts, lens, 0), [pa.py_buffer(data)])
    arr.validate(full=False)
    assert arr.cast(pa.binary()).to_pylist() == [data[s:s + n] for s, n in zip(starts, lens)]


def _variants(message: str, n: int = 5) -> list[str]:
    """The message with other digit values and other digit-run lengths."""
    return [re.sub(r"[0-9]+", lambda m: str(RNG.randint(0, 10 ** RNG.randint(0, 6))), message) for _ in range(n)]


MESSAGES = [
    "epoch: [12/500], global_step: 1200, lr: 0.001000, loss: 0.512, avg_reader_cost: 0.00012 s, ips: 12.5 samples/s",
    "Saving checkpoint to /output/epoch_12/model.pdparams (1.2GB)", "worker 3 started with pid 12345 at 10.0.0.12:6170",
    "id 550e8400-e29b-41d4-a716-446655440000 ok 12", "ptr 0x7f12ab done in 12ms", "conv2d_0.w_0 shape [32, 3, 3, 3]",
    "attempt_1445144423722_0020_m_000000_0 finished", "version 2.6.1.post120 on cuda11.8 sm_90 a100", "v5 x12y 3x4",
    "2026-11-29 10:00:00,853 step 12 of 100 took 1:02:03", "Jun 14 15:16:01 host 12 up", "abc 0x 1x2 10x20 0x1f",
    "hwaddr 02:42:10:11:00:02 up", "训练 epoch 1, 损失 0.25 and ١٢٣ fullwidth １２３", "HOSTNAME a575440819bf PADDLE_EXTRA_8 0244c1dc 3f2a9c0d1e4b",
]


def test_digit_run_cache_equals_masking_each_collapsed_form():
    messages = [v for m in MESSAGES for v in [m, *_variants(m, 30)]]
    RNG.shuffle(messages)
    with_runs = mining.MaskCache()
    keys, masked_of = with_runs.lookup(messages)
    plain: dict[bytes, tuple[str, str]] = {}
    for msg, key in zip(messages, keys):   # the first raw form of each digit-collapsed form decides
        masked = mining.mask(msg)
        expected = plain.setdefault(mining.collapse_digits(msg), (mining.message_key(masked), masked))
        assert key == expected[0] and masked_of[key] == expected[1], msg
    assert len(with_runs._by_runs) < len(plain)   # the run cache did save masks


def _docker(log: str, stream: str = "stdout", t: str = "2026-11-16T22:20:32.759117039Z") -> str:
    return json.dumps({"log": log, "stream": stream, "time": t}, ensure_ascii=False).replace(", ", ",").replace(
        ": ", ":") if RNG.random() < 0.8 else json.dumps({"log": log, "stream": stream, "time": t})


def test_envelopes_decoded_by_position_equal_the_sql(tmp_path):
    texts = ["plain line 1", "tab\there", 'quote " and \\ backslash', "é中文 ok", "cr at end\r", "", "  indented",
             "<b>&amp;</b>", "x" * 300]
    docker = [_docker(t + "\n", RNG.choice(["stdout", "stderr"]), RNG.choice(
        ["2026-11-16T22:20:32.759117039Z", "2026-11-16T22:20:32Z", "2026-11-16T22:20:32.7Z"])) for t in texts * 20]
    docker.append(json.dumps({"stream": "stdout", "log": "keys in another order\n", "time": "2026-11-16T22:20:33Z"}))
    cri = [f"2026-11-16T22:20:{i % 60:02d}.{i:09d}Z {RNG.choice(['stdout', 'stderr'])} F {t}" for i, t in
           enumerate(texts * 20)] + ["2026-11-16T22:20:33Z stdout F", "2026-11-16T22:20:33Z stdout F  two spaces"]
    files = []
    for fmt, lines in (("docker", docker), ("cri", cri), ("plain", texts * 3)):
        path = tmp_path / f"{fmt}.log"
        path.write_bytes(("\n".join(lines) + "\n").encode())
        run = sources.Run(run_id=fmt, host="h", kind=fmt)
        p = envelope.Planned(run, sources.LogFile(str(path), fmt, 0, False, path.stat().st_size), 0, 0)
        assert envelope.load(p)
        files.append(p)
    raw = [(p.logfile.fmt, line) for p in files for line in p.data.decode().split("\n")[:-1]]
    batch = envelope.decode(files)
    assert 0 < batch.slow_lines < len(batch) // 2
    # the reference: the SQL every line went through before, over every line
    with duckdb.connect() as con:
        con.register("slow_lines", pa.table({"i": np.arange(len(raw)), "fmt": [envelope.FMT_CODES[f] for f, _ in raw],
                                             "line": [line for _, line in raw]}))
        ref = con.sql(envelope._ENVELOPE_SQL).fetchall()
    bad = set(batch.bad_files)
    body = batch.strings("body").cast(pa.string()).to_pylist()
    env = batch.strings("env").cast(pa.string()).to_pylist()
    for i, (_, stream, env_ts, is_bad, ref_body) in enumerate(ref):
        if batch.file_idx[i] in bad:
            continue
        assert not is_bad and (body[i], env[i], int(batch.stream[i])) == (ref_body, env_ts, stream), raw[i]
    # the CRI file has a 3-field line: DuckDB finds it malformed, and so does the batch
    assert bad == {i for i, p in enumerate(files) if p.logfile.fmt == "cri"}


def test_batch_binary_check_equals_is_binary(tmp_path):
    samples = {"text": "plain text\n" * 50, "controls": "\x01\x02\x03ab\n" * 50, "some": "\x01 abc def ghi\n" * 50,
               "tabs": "\t\t\t\x1b[0m\r\n" * 50, "del": "\x7f\x7fab\n" * 60, "edge": "\x01\x02\x03" + "a" * 7 + "\n"}
    files = []
    for name, text in samples.items():
        path = tmp_path / f"{name}.log"
        path.write_bytes(text.encode())
        run = sources.Run(run_id=name, host="h", kind="file")
        p = envelope.Planned(run, sources.LogFile(str(path), "plain", 0, False, path.stat().st_size), 0, 0)
        assert envelope.load(p)
        files.append(p)
    expected = {i for i, p in enumerate(files) if sources._is_binary(p.data[:sources.BINARY_SAMPLE])}
    batch = envelope.decode(files)
    assert set(batch.bad_files) == expected and expected == {1, 4}
