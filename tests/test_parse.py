"""`logml parse`: Loghub-style header formats, structured CSV, grouping quality on Loghub samples."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pandas as pd
import pytest

from pipeline.config import load_params
from pipeline.mining import collapse_digits, mask
from pipeline.parse import correct_template, format_regex, parse_command, parse_file, render_template

ROOT = Path(__file__).resolve().parents[1]
LOGHUB = ROOT.parent / "shared" / "loghub_2k"
PARAMS = load_params(ROOT / "params.yaml")
FORMAT = "<Date> <Time> <Level> \\[<Component>\\]: <Content>"
HEADER_COLUMNS = ["LineId", "Date", "Time", "Level", "Component", "Content", "EventId", "EventTemplate"]


def grouping_accuracy(truth, pred) -> float:
    """Loghub GA: a line is right iff its predicted group holds exactly the lines of its true group."""
    frame = pd.DataFrame({"t": list(truth), "p": list(pred)})
    true_size = frame["t"].value_counts()
    ok = sum(len(g) for _, g in frame.groupby("p") if g["t"].nunique() == 1 and true_size[g["t"].iloc[0]] == len(g))
    return ok / len(frame)


def _inline_log(tmp_path: Path) -> tuple[Path, list[str]]:
    rng = random.Random(5)
    lines, truth = [], []
    for i in range(60):
        kind = i % 4
        head = f"2026-11-29 10:{i // 60:02d}:{i % 60:02d},{rng.randint(0, 999):03d} INFO [worker-{i % 3}]: "
        if kind == 0:
            body = f"acquire lock={rng.randint(1, 10**9)}, flags=0x{rng.randint(0, 255):x}, uid={rng.randint(1000, 1100)}"
        elif kind == 1:
            body = f"Connected to 10.0.{rng.randint(0, 9)}.{rng.randint(1, 254)}:{rng.randint(1024, 65535)} in {rng.randint(1, 900)}ms"
        elif kind == 2:
            body = f"Saved checkpoint /data/ckpt/step_{rng.randint(1, 99999)}/model.pdparams ({rng.randint(1, 900)}.{rng.randint(0, 9)} MB)"
        else:
            body = f"epoch {rng.randint(0, 99)} finished, loss={rng.random():.4f}"
        lines.append(head + body)
        truth.append(kind)
    lines.append("this line has no header at all")
    truth.append("orphan")
    path = tmp_path / "inline.log"
    path.write_bytes("\r\n".join(lines).encode())   # CRLF, no final newline: both occur in Loghub
    return path, truth


def test_parse_inline_log_writes_the_loghub_structured_csv(tmp_path):
    path, truth = _inline_log(tmp_path)
    out = tmp_path / "out" / "structured.csv"
    frame = parse_file(path, FORMAT, out, PARAMS)
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(written.columns) == HEADER_COLUMNS
    assert written["LineId"].tolist() == [str(i) for i in range(1, len(truth) + 1)]
    assert frame.attrs["unmatched"] == 1
    assert written["Content"].iloc[-1] == "this line has no header at all"   # kept whole
    assert written["Component"].iloc[0] == "worker-0" and written["Level"].iloc[0] == "INFO"
    assert grouping_accuracy(truth, written["EventId"]) == 1.0
    templates = set(written["EventTemplate"])
    assert "acquire lock=<*>, flags=<*>, uid=<*>" in templates        # delimiters kept, masks -> <*>
    assert not any(re.search(r"<(?!\*>)[A-Z]+>", t) for t in templates)
    assert written.groupby("EventId")["EventTemplate"].nunique().max() == 1


def test_parse_command_summary(tmp_path):
    path, truth = _inline_log(tmp_path)
    summary = parse_command(path, FORMAT, tmp_path / "s.csv")
    assert summary["lines"] == len(truth) and summary["unmatched"] == 1
    assert summary["events"] == len(set(truth))
    assert json.loads(json.dumps(summary)) == summary


def test_format_regex_is_the_loghub_one():
    regex, headers = format_regex("<Month> <Date> <Time> <Level> <Component>(\\[<PID>\\])?: <Content>")
    assert headers == ["Month", "Date", "Time", "Level", "Component", "PID", "Content"]
    m = regex.match("Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown")
    assert m["Component"] == "sshd(pam_unix)" and m["PID"] == "19939" and m["Content"] == "check pass; user unknown"
    m = regex.match("Jun 15 04:06:18 combo su(pam_unix): session opened for user cyrus by (uid=0)")
    assert m["PID"] is None and m["Content"] == "session opened for user cyrus by (uid=0)"
    with pytest.raises(ValueError):
        format_regex("<Date> <Time>")


def test_render_and_correct_template():
    masked = mask("acquire lock=233570404, flags=0x1, tag=RILJ, uid=10037")
    assert render_template("acquire lock <NUM> flags <HEX> tag <*> uid <NUM>", masked, ("=", ",")) == \
        "acquire lock=<*>, flags=<*>, tag=<*>, uid=<*>"
    assert correct_template("setLightsOn(true)") == "setLightsOn(<*>)"
    assert correct_template("Receiving block <*> src: /<*> dest: /<*>") == "Receiving block <*> src: <*> dest: <*>"
    assert correct_template("generating core.2275") == "generating core.<*>"
    assert correct_template("Link  error") == "Link error"


def test_new_masks_keep_the_digit_collapse_key_exact_and_paddle_words():
    rng = random.Random(11)
    for _ in range(300):
        a = (f"iar {rng.randint(0, 1 << 32):08x} dear {rng.randint(0, 1 << 32):08x} "
             f"attempt_{rng.randint(1, 10**13)}_{rng.randint(0, 99):04d}_m_{rng.randint(0, 99):06d}_{rng.randint(0, 9)} "
             f"at Mon Jun {rng.randint(1, 30)} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 2005 "
             f"size {rng.randint(1, 999)}.{rng.randint(0, 9)} B")
        b = re.sub(r"\d", lambda m: str(rng.randint(0, 9)), a)
        # equal dedupe keys must mask alike (digits the masks leave are collapsed by the key anyway)
        assert collapse_digits(a) == collapse_digits(b)
        assert collapse_digits(mask(a)) == collapse_digits(mask(b))
    assert mask("iar 003a9260 dear 0245ccfc attempt_1445144423722_0020_m_000000_0 at Sun Jul  3 10:05:25 2005") == \
        "iar <HEX> dear <HEX> <ID> at <TS>"
    kept = mask("op conv2d on sm_90 bf16 a100 libcublas.so.11 cudaErrorInsufficientDriver 7b deadbeef")
    assert kept == "op conv2d on sm_90 bf16 a100 libcublas.so.11 cudaErrorInsufficientDriver 7b deadbeef"


# First 200 lines of Loghub 2k samples; the bars sit below what the shipped settings reach
# (OpenSSH 1.00, Spark 0.99, Android 0.905) and above plain Drain3 (0.93, 0.82, 0.755).
@pytest.mark.parametrize("system, bar", [("OpenSSH", 0.97), ("Spark", 0.95), ("Android", 0.88)])
def test_grouping_accuracy_on_a_loghub_sample(tmp_path, system, bar):
    folder = LOGHUB / system
    if not folder.is_dir():
        pytest.skip(f"Loghub sample not available under {LOGHUB}")
    log_format = json.loads((LOGHUB / "formats.json").read_text())[system]
    raw = (folder / f"{system}_2k.log").read_bytes().splitlines()[:200]
    sample = tmp_path / f"{system}.log"
    sample.write_bytes(b"\n".join(raw))
    truth = pd.read_csv(folder / f"{system}_2k.log_structured_corrected.csv", dtype=str,
                        keep_default_na=False, nrows=200)
    frame = parse_file(sample, log_format, tmp_path / "structured.csv", PARAMS)
    assert len(frame) == 200 and frame.attrs["unmatched"] == 0
    assert [" ".join(c.split()) for c in frame["Content"]] == [" ".join(c.split()) for c in truth["Content"]]
    assert grouping_accuracy(truth["EventId"], frame["EventId"]) >= bar


def test_a_template_covered_by_a_more_general_one_joins_it():
    from pipeline.parse import _merge_subsumed
    root = _merge_subsumed({"g": "iar <*> dear <*>", "s": "iar <HEX> dear 0245ccfc", "t": "iar 003a9260 dear <*>",
                            "o": "iar <*> deer <*>", "l": "iar <*> dear <*> x"})
    assert root == {"g": "g", "s": "g", "t": "g", "o": "o", "l": "l"}


def _structural_log(tmp_path: Path) -> tuple[Path, list[int]]:
    """Lines Drain's prefix tree and fixed lengths get wrong: variable first tokens (host:port,
    bracketed ids, key=value) and values printed with a varying number of tokens."""
    rng = random.Random(9)
    hosts = ["www.example.com", "api.example.org", "cdn.site.net", "mail.host.io", "db.internal.lan"]
    durations = ["3s", "1 min 2 s", "<1 sec", "00:01", "250 ms", "1h2m3s"]
    shapes = ["[32]", "[32, 3, 224, 224]", "[8, 128]", "[1, 1]"]
    lines, truth = [], []
    for i in range(80):
        kind = i % 4
        if kind == 0:
            body = f"{rng.choice(hosts)}:{rng.randint(1, 65535)} open through proxy gw.corp.net:{rng.randint(80, 90)} HTTPS"
        elif kind == 1:
            body = f"[instance: {rng.getrandbits(128):032x}] Took {rng.choice(durations)} to spawn the instance"
        elif kind == 2:
            body = f"tensor {rng.choice(shapes)} allocated on device {rng.randint(0, 7)}"
        else:
            body = f"pid={rng.randint(1, 99999)} user={rng.choice(['ann', 'bob', 'eve'])} logged in from {rng.choice(hosts)}"
        lines.append(f"2026-11-29 10:00:{i % 60:02d},000 INFO [w{i % 3}]: {body}")
        truth.append(kind)
    path = tmp_path / "structural.log"
    path.write_text("\n".join(lines))
    return path, truth


def test_structural_fixes_group_variable_prefixes_and_lengths(tmp_path):
    path, truth = _structural_log(tmp_path)
    frame = parse_file(path, FORMAT, None, PARAMS)
    assert grouping_accuracy(truth, frame["EventId"]) == 1.0
    off = {**PARAMS, "mining": {**PARAMS["mining"], "route_masked": False, "join_variable_runs": False}}
    assert grouping_accuracy(truth, parse_file(path, FORMAT, None, off)["EventId"]) < 1.0
