"""The shipped predictor on hand-written issue-thread pastes (none of them from the simulator or the
capture harness): Paddle 1.x dumps, truncated pastes, shell prompts, Chinese text."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from conftest import ROOT

PASTES = Path(__file__).parent / "data" / "pastes"


@pytest.fixture(scope="module")
def predictions():
    if not (ROOT / "pipeline" / "models" / "model.json").exists():
        pytest.skip("no shipped model in pipeline/models")
    with (PASTES / "labels.csv").open() as fh:
        labels = {row["file"]: row["category"] for row in csv.DictReader(fh)}
    return labels, _predicted(PASTES, labels)


def _predicted(folder: Path, names) -> dict:
    """The shipped predictor's contract objects for these files of a folder, by file name."""
    from pipeline.predict import predict_paths
    return {Path(r["path"]).name: r for r in predict_paths([str(folder / f) for f in names], ROOT / "pipeline" / "models")}


def _changed(results: dict, other: dict, names, slack: float) -> dict:
    """The pastes whose verdict differs from the plain paste's, or its confidence by `slack` or more."""
    return {f: (results[f]["category"], results[f]["confidence"], other[f]["category"], other[f]["confidence"])
            for f in names if other[f]["category"] != results[f]["category"]
            or abs(other[f]["confidence"] - results[f]["confidence"]) >= slack}


def test_pastes_are_diagnosed(predictions):
    labels, results = predictions
    wrong = {f: (want, results[f]["category"]) for f, want in labels.items() if results[f]["category"] != want}
    assert len(wrong) <= 2, wrong


def test_every_failure_paste_shows_its_signature_as_evidence(predictions):
    labels, results = predictions
    for name, want in labels.items():
        result = results[name]
        if want == "no_failure" or result["category"] != want:
            continue
        assert result["evidence"], name
        text = (PASTES / name).read_text()
        n_lines = len(text.splitlines())
        for ev in result["evidence"]:
            # evidence is the log's own text (a block's summary may join two of its lines)
            assert ev["line"] is None or 1 <= ev["line"] <= n_lines, (name, ev)
            assert " ".join(ev["text"].split()[:4]) in " ".join(text.split()), (name, ev)


@pytest.mark.parametrize("tag", ["[1,0]<stderr>:", "(RayTrainWorker pid=4242, ip=10.0.0.3) "])
def test_a_paste_relayed_by_mpirun_or_ray_gets_the_same_verdict(predictions, tmp_path, tag):
    """The same pastes as a multi-process launcher relays them, a tag before every line."""
    labels, results = predictions
    for name in labels:
        lines = (PASTES / name).read_text().splitlines()
        (tmp_path / name).write_text("".join(tag + line + "\n" for line in lines))
    assert not _changed(results, _predicted(tmp_path, labels), labels, 0.02)


def _as_issue_comment(lines: list[str]) -> list[str]:
    return ["I get this error when I run the training script:", "", "```text", *lines, "```", "",
            "Any idea what is wrong? Thanks!"]


def _in_a_list_item(lines: list[str]) -> list[str]:
    return ["Steps:", "1. `python train.py -c configs/ppyoloe.yml`", "2. It fails with:", "",
            "    ```", *("    " + line for line in lines), "    ```", "", "3. I also tried CPU, same thing."]


def _from_a_shell(lines: list[str]) -> list[str]:
    return ["root@3f2a9c0d1e:/workspace/PaddleOCR# python3 tools/train.py -c configs/det.yml", *lines,
            "root@3f2a9c0d1e:/workspace/PaddleOCR# "]


def _indented_block(lines: list[str]) -> list[str]:
    return ["    " + line if line else "" for line in lines]


# the command a prompt shows is log text the model reads: a toolkit's `python3 tools/train.py -c ...` begins
# healthy runs and failures alike, and moved a bare "已杀死" (Killed) paste's confidence by 0.08 (0.95 -> 0.87)
@pytest.mark.parametrize("quote, shift, slack", [(_as_issue_comment, 3, 0.02), (_in_a_list_item, 5, 0.02),
                                                 (_from_a_shell, 1, 0.1), (_indented_block, 0, 0.02)])
def test_a_paste_in_markdown_gets_the_same_verdict(predictions, tmp_path, quote, shift, slack):
    """The same pastes as an issue thread shows them: fenced between the question and a thanks,
    fenced and indented under a list item, between the command and the prompt that came back, or
    as an indented code block. The verdict, its
    confidence and its evidence are the paste's own (the command a prompt shows is log text: it may
    move the confidence a little); evidence lines count in the quoting file."""
    labels, results = predictions
    for name in labels:
        (tmp_path / name).write_text("\n".join(quote((PASTES / name).read_text().splitlines())) + "\n")
    quoted = _predicted(tmp_path, labels)
    assert not _changed(results, quoted, labels, slack)
    for name in labels:
        own = [ev["line"] for ev in results[name]["evidence"] if ev["line"]]
        cited = [ev["line"] for ev in quoted[name]["evidence"] if ev["line"]]
        n_lines = len((PASTES / name).read_text().splitlines())
        assert {n + shift for n in own} <= set(cited), name
        # never the markup: only the paste's own lines (and the command that started it)
        assert all(shift + 1 <= n <= shift + n_lines or quote is _from_a_shell and n == 1 for n in cited), name


def test_a_paste_copied_from_a_pages_html_source_gets_the_same_verdict(predictions, tmp_path):
    """The same pastes with their quotes, brackets and ampersands as HTML entities (a page's source, an
    API that escapes): the same verdict, confidence and evidence lines."""
    import html
    labels, results = predictions
    escaped = [name for name in labels if html.escape((PASTES / name).read_text()) != (PASTES / name).read_text()]
    assert len(escaped) >= len(labels) // 2     # most pastes quote a path, a module or a type
    for name in labels:
        (tmp_path / name).write_text(html.escape((PASTES / name).read_text(), quote=True))
    again = _predicted(tmp_path, labels)
    assert not _changed(results, again, labels, 0.005)
    for name in escaped:
        assert [ev["line"] for ev in again[name]["evidence"]] == [ev["line"] for ev in results[name]["evidence"]], name


def test_a_paste_from_docker_logs_t_gets_the_same_verdict(predictions, tmp_path):
    """The same pastes as `docker logs -t` / `kubectl logs --timestamps` print them, an RFC 3339
    timestamp before every line: the timestamp is the envelope's, the verdict the paste's own."""
    labels, results = predictions
    for name in labels:
        lines = (PASTES / name).read_text().splitlines()
        (tmp_path / name).write_text("".join(f"2026-11-03T10:12:{i % 60:02d}.{123456789 + i}Z {line}\n"
                                             for i, line in enumerate(lines)))
    again = _predicted(tmp_path, labels)
    assert not _changed(results, again, labels, 0.05)
    for name in labels:
        assert [ev["line"] for ev in again[name]["evidence"]] == [ev["line"] for ev in results[name]["evidence"]], name
        assert not any(ev["text"].startswith("2026-11-03T") for ev in again[name]["evidence"]), name


def _journald(lines: list[str]) -> tuple[str, dict[int, int]]:
    """`journalctl -o json`: one object per line, the text under MESSAGE."""
    import json
    records = [json.dumps({"__REALTIME_TIMESTAMP": str(1762164721000000 + 1000 * i), "_HOSTNAME": "gpu-node-7",
                           "SYSLOG_IDENTIFIER": "dockerd", "CONTAINER_NAME": "train", "MESSAGE": line},
                          ensure_ascii=False) for i, line in enumerate(lines)]
    return "\n".join(records) + "\n", {i + 1: i + 1 for i in range(len(lines))}


def _kibana_csv_newest_first(lines: list[str]) -> tuple[str, dict[int, int]]:
    """Kibana's CSV export as a web console lists it, newest first, a traceback one quoted multi-line
    record; also, per paste line, the file line its record starts on."""
    import csv
    import io
    records, block = [], []
    for i, line in enumerate(lines):   # a traceback's lines are one message, as a multiline parser ships them
        if block and (line.startswith((" ", "\t")) or lines[block[0]].startswith("Traceback")
                      and not re.match(r"\w+(Error|Exception)\b", lines[block[-1]])):
            block.append(i)
        else:
            if block:
                records.append(block)
            block = [i]
    records.append(block)
    out, where, at = io.StringIO(), {}, 2
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["@timestamp", "kubernetes.pod.name", "message"])
    for n, block in reversed(list(enumerate(records))):
        for k, i in enumerate(block):
            where[i + 1] = at + k
        writer.writerow([f"Nov 3, 2026 @ 10:{n // 60:02d}:{n % 60:02d}.000", "train-0", "\n".join(lines[i] for i in block)])
        at += len(block)
    return out.getvalue(), where


def _loki_newest_first(lines: list[str]) -> tuple[str, dict[int, int]]:
    """A Loki / Elasticsearch JSON-lines export, newest first, with an RFC 3339 @timestamp."""
    import json
    n = len(lines)
    records = [json.dumps({"@timestamp": f"2026-11-03T10:{i // 60:02d}:{i % 60:02d}.000Z", "stream": "stderr",
                           "kubernetes": {"pod_name": "train-0"}, "message": lines[i]}) for i in reversed(range(n))]
    return "\n".join(records) + "\n", {i + 1: n - i for i in range(n)}


def _victorialogs(lines: list[str]) -> tuple[str, dict[int, int]]:
    """A VictoriaLogs export: the text under _msg, the time under _time, the stream's labels under _stream."""
    import json
    records = [json.dumps({"_msg": line, "_stream": '{app="train",namespace="ml"}',
                           "_time": f"2026-11-03T10:{i // 60:02d}:{i % 60:02d}.000Z"}, ensure_ascii=False)
               for i, line in enumerate(lines)]
    return "\n".join(records) + "\n", {i + 1: i + 1 for i in range(len(lines))}


def _console_copy_newest_first(lines: list[str]) -> tuple[str, dict[int, int]]:
    """Lines copied out of a log console's table (Grafana, Kibana Discover): a timestamp column, a tab, the
    line; the newest first."""
    n = len(lines)
    rows = [f"2026-11-03 10:{i // 60:02d}:{i % 60:02d}.{i:03d}\t{lines[i]}" for i in reversed(range(n))]
    return "\n".join(rows) + "\n", {i + 1: n - i for i in range(n)}


@pytest.mark.parametrize("export", [_journald, _kibana_csv_newest_first, _loki_newest_first, _victorialogs,
                                    _console_copy_newest_first])
def test_a_log_exported_from_a_log_platform_gets_the_same_verdict(predictions, tmp_path, export):
    """The pastes as a log platform exports them (JSON lines, a CSV with the text in one column, newest
    first): the same verdict, and the evidence cites the record that holds each line."""
    labels, results = predictions
    where = {}
    for name in labels:
        text, where[name] = export((PASTES / name).read_text().splitlines())
        (tmp_path / name).write_text(text)
    again = _predicted(tmp_path, labels)
    assert not _changed(results, again, labels, 0.05)
    for name in labels:
        assert [ev["line"] for ev in again[name]["evidence"]] == \
            [where[name][ev["line"]] for ev in results[name]["evidence"]], name
        assert not any(ev["text"].lstrip().startswith(("{", '"')) for ev in again[name]["evidence"]), name


def test_only_a_log_platforms_records_are_unwrapped():
    from pipeline.exports import Export
    # a program that logs JSON of its own, with no message key, and a plain log that quotes CSV
    assert Export.detect(['{"step": 1, "loss": 0.5}', '{"step": 2, "loss": 0.4}', '{"step": 3, "loss": 0.3}']) is None
    assert Export.detect(['"id","path"', '"1","a.jpg"', '"2","b.jpg"']) is None
    assert Export.detect(["Traceback (most recent call last):", '  File "a.py", line 1', "KeyError: 1"]) is None
    rows = ['{"time": "2026-11-03T10:00:02Z", "msg": "b"}', "not json", '{"time": "2026-11-03T10:00:01Z", "msg": "a"}',
            '{"time": "2026-11-03T10:00:00Z", "msg": "x\\ny"}']
    assert Export.detect(rows) is None   # a line in four is no record
    assert _unpasted([rows[0], rows[2], rows[3]]) == ["x", "y", "a", "b"]   # newest first, put back in order
    ordered = ['{"time": "2026-11-03T10:00:00Z", "msg": "a"}', '{"time": "2026-11-03T10:00:00Z", "msg": "b"}',
               '{"time": "2026-11-03T10:00:01Z", "msg": "c"}']
    assert _unpasted(ordered) == ["a", "b", "c"]
    # a structured logger's record: the traceback it keeps beside the message follows it, as a plain logger prints it
    import json
    record = {"ts": "2026-11-03T10:00:00Z", "level": "error", "msg": "inference failed", "service": "ocr",
              "exc_info": "Traceback (most recent call last):\n  File \"app.py\", line 9, in run\nOSError: libGL.so.1"}
    start = {"ts": "2026-11-03T09:59:59Z", "level": "info", "msg": "serving on :8080", "service": "ocr"}
    assert _unpasted([json.dumps(start), json.dumps(record)]) == [
        "serving on :8080", "inference failed", "Traceback (most recent call last):", '  File "app.py", line 9, in run',
        "OSError: libGL.so.1"]
    # stamped text is left alone in printed order; newest first, a stamped line and its unstamped followers
    # (a traceback's) are put back in order, and a console's own stamp column (a tab after it) is dropped
    printed = ["[2024/03/05 14:02:10] ppocr INFO: start", "[2024/03/05 14:02:11] ppocr INFO: epoch 1",
               "Traceback (most recent call last):", '  File "a.py", line 1', "ValueError: x",
               "[2024/03/05 14:02:12] ppocr INFO: done"]
    assert _unpasted(printed) == printed
    assert _unpasted([printed[5], *printed[1:5], printed[0]]) == printed
    glog = ["E0304 17:20:43.100 x.cc:1] c", "W0304 17:20:42.100 x.cc:1] b", "I0304 17:20:41.100 x.cc:1] a"]
    assert _unpasted(glog) == glog[::-1]
    assert _unpasted(["2026-11-03 10:00:00.100\tstart", "2026-11-03 10:00:01.100\tdone"]) == ["start", "done"]
    # a CSV export cut inside a quoted message: its last message is the rest
    assert _unpasted(['"_time","_raw"', '"1762164721","start"', '"1762164722","Traceback (most recent call last):',
                      '  File ""a.py"", line 1']) == ["start", "Traceback (most recent call last):", '  File "a.py", line 1']


def test_only_a_paste_stamped_on_every_line_loses_its_timestamps():
    stamped = ["2026-11-03T10:12:01.5Z Traceback (most recent call last):",
               '2026-11-03T10:12:01.5Z   File "train.py", line 3, in <module>',
               "2026-11-03T10:12:01.6Z ValueError: bad"]
    assert _unpasted(stamped) == ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
                                  "ValueError: bad"]
    # a program's own ISO header on some lines is its text
    mixed = ["2026-11-03T10:12:01Z INFO start", "Traceback (most recent call last):", "  File \"x.py\", line 1",
             "KeyError: 'a'"]
    assert _unpasted(mixed) == mixed


def test_entities_are_decoded_only_in_an_escaped_paste():
    assert _unpasted(["ModuleNotFoundError: No module named &#39;cv2&#39;", "a &gt; b"]) == \
        ["ModuleNotFoundError: No module named 'cv2'", "a > b"]
    plain = ["wget 'http://host/a?x=1&y=2'", "if a && b; then"]
    assert _unpasted(plain) == plain


def _unpasted(lines: list[str]) -> list[str]:
    """The lines as the Unpaster gives them to the normalizer (one chunk, the first)."""
    from pipeline.paste import Unpaster
    from pipeline.sources import Chunk
    n = len(lines)
    return Unpaster().feed(Chunk(lines, list(range(1, n + 1)), [None] * n, [None] * n, list(range(n)))).lines


def test_only_fences_that_open_a_block_drop_the_text_before_them():
    """A lone bare fence may be the end of a paste whose start was cut: nothing before it is lost.
    A node's own docker log is never unpasted."""
    fed = _unpasted
    log = ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>', "OSError: x"]
    assert fed([*log, "```", "any idea?"]) == [*log, "any idea?"]
    assert fed(["see:", "```", *log, "```", "any idea?"]) == log
    assert fed(["see:", "```log", *log]) == log
    assert fed(["  " + line for line in log]) == ["  " + line for line in log]   # two spaces: a frame's indent
    assert fed(["\t" + line for line in log]) == log
    # the prompt that came back is no part of the log: it does not keep the log's indent
    assert fed([*("    " + line for line in log), "(base) me@gpu-01:~/work$ "]) == log


def test_fences_around_the_jobs_code_keep_the_log_pasted_outside_them():
    """An issue fences the script it ran and pastes the error below it, unfenced: the log is the
    text outside. A fenced log keeps dropping the question around it."""
    fed = _unpasted
    code = ["```python", "from paddleocr import PaddleOCR", "ocr = PaddleOCR(det_model_dir='./models/det')", "```"]
    log = ["Traceback (most recent call last):", '  File "run.py", line 2, in <module>',
           "ValueError: not find model file path ./models/det/inference.pdmodel"]
    out = fed(["My code:", *code, "", "Error:", *log, "", "Any idea?"])
    assert out[-len(log) - 2:-2] == log and "```python" not in out
    assert fed(["My code:", "```", *log, "```", "", "Any idea?"]) == log
    # code fenced, and the error fenced too: the fences hold the log, the commentary goes
    assert fed(["My code:", *code, "Error:", "```", *log, "```", "Any idea?"]) == [*code[1:3], *log]


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_paste_hard_wrapped_by_a_console_gets_the_same_verdict(predictions, tmp_path, width):
    """Copied from a console that cuts every line at its width (and so every long signature in two)."""
    labels, results = predictions
    for name in labels:
        lines = (PASTES / name).read_text().splitlines()
        (tmp_path / name).write_text("".join(line[i:i + width] + "\n" for line in lines
                                             for i in range(0, max(len(line), 1), width)))
    assert not _changed(results, _predicted(tmp_path, labels), labels, 0.1)


def test_lines_are_joined_only_where_a_console_cut_them():
    fed = _unpasted

    signature = ("OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime "
                 "version. [Hint: 'cudaErrorInsufficientDriver'.] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:63)")
    cut = [signature[i:i + 80] for i in range(0, len(signature), 80)]
    assert fed(["W1201 10:00:00.1 12 init.cc:1] warming up", *cut]) == ["W1201 10:00:00.1 12 init.cc:1] warming up",
                                                                          signature]
    # the longest lines are one record printed in a fixed format: a column of them is not a wrap
    progress = [f"[2026/11/19 17:{m:02d}:24] ppocr INFO: epoch: [{m}/20], loss: 0.{m:02d}1234, "
                f"lr: 0.001000, reader_cost: 0.01 s, ips: 24.{m:02d} samples/s, max_mem_allocated: 4237 MB"
                for m in range(10, 16)]
    text = [line for p in progress for line in (p, "eval model::   0%|          | 0/218 [00:00<?, ?it/s]")]
    assert fed(text) == text
    # a traceback frame ends whole, whatever its length
    frame = '  File "/usr/local/lib/python3.10/site-packages/paddle/device/__init__.py", line 131, in set_device'
    assert fed([frame[:100], "ValueError: The device should not be 'gpu'"])[0] == frame[:100]


_PY_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)$')


def _as_a_notebook_prints_it(lines: list[str], ipython: int) -> list[str]:
    """Each complete Python traceback as IPython prints it in a notebook: a rule, the exception
    class before the header, one head per frame (IPython 8: "Cell In[4], line 2" / "File p:n, in f";
    IPython 7: "<ipython-input-..> in <module>" / "p in f(args)"), numbered source with an arrow."""
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("Traceback (most recent call last)"):
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and (lines[j][:1] in " \t" or not lines[j].strip()):
            j += 1
        name = lines[j].split(":")[0].strip() if j < len(lines) else ""
        if not re.fullmatch(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*", name):
            out.extend(lines[i:j])   # cut before its exception line: the header could not name it
            i = j
            continue
        out += ["-" * 75, f"{name:<42}Traceback (most recent call last)"]
        frames = [(m, lines[k + 1].strip() if k + 1 < j and not _PY_FRAME.match(lines[k + 1]) else "")
                  for k in range(i + 1, j) if (m := _PY_FRAME.match(lines[k]))]
        for n, (m, code) in enumerate(frames):
            path, no, fn = m.groups()
            cell = n == 0 and "site-packages" not in path
            if ipython == 8:
                out.append(f"Cell In[4], line {no}" if cell else f"File {path}:{no}, in {fn}(*args, **kwargs)")
            else:
                out.append("<ipython-input-4-9c1f2e3d4b5a> in <module>" if cell else f"{path} in {fn}(*args, **kwargs)")
            out += [f"{int(no) - 1:>7} pass", f"----> {no} {code}".rstrip(), ""]
        i = j
    return out


def test_ipython_tracebacks_are_printed_again_in_pythons_form():
    from pipeline.paste import reprint_notebook_tracebacks

    def reprinted(lines):
        return [text for text, _ in reprint_notebook_tracebacks(lines)]

    python = ["Traceback (most recent call last):", '  File "Cell In[4]", line 2, in <module>', "    y = f(x)",
              '  File "/usr/lib/python3.10/site-packages/paddle/nn/layer.py", line 9, in f', "    raise ValueError(x)",
              "ValueError: bad x"]
    ipython8 = ["-" * 75, "ValueError                                Traceback (most recent call last)",
                "Cell In[4], line 2", "      1 x = 3", "----> 2 y = f(x)", "",
                "File /usr/lib/python3.10/site-packages/paddle/nn/layer.py:9, in f(x)", "      8 def f(x):",
                "----> 9     raise ValueError(x)", "", "ValueError: bad x"]
    assert reprinted(["before", *ipython8, "after"]) == ["before", *python, "after"]
    ipython7 = ["ValueError                                Traceback (most recent call last)",
                "<ipython-input-4-9c1f2e3d4b5a> in <module>", "----> 2 y = f(x)",
                "/usr/lib/python3.10/site-packages/paddle/nn/layer.py in f(x)", "      8 def f(x):",
                "----> 9     raise ValueError(x)", "ValueError: bad x"]
    assert reprinted(ipython7) == [python[0], python[1].replace("Cell In[4]", "<ipython-input-4-9c1f2e3d4b5a>"),
                                   *python[2:]]
    # Colab shows frames as links; a paste that lost its line breaks glues the rule, header and a frame
    colab = ["ValueError                                Traceback (most recent call last)" +
             "[<ipython-input-4-9c1f2e3d4b5a>](https://localhost:8080/# in <cell line: 2>()", "----> 2 y = f(x)",
             "[/usr/lib/python3.10/site-packages/paddle/nn/layer.py](https://localhost:8080/# in f(x)",
             "----> 9     raise ValueError(x)", "ValueError: bad x"]
    assert reprinted(colab) == reprinted(ipython7)
    # cut before its exception line: the class the header named ends the traceback
    assert reprinted(ipython8[:6] + ["(the rest is in the attached file)"]) == [*python[:3], "ValueError",
                                                                                 "(the rest is in the attached file)"]
    # a class Python names in lower case (OpenCV's cv2.error) heads a notebook traceback too
    opencv = ["-" * 75, "error                                     Traceback (most recent call last)",
              "/tmp/ipykernel_121/2274908163.py in load_image(img_path)", "     12     img = cv2.imread(img_path)",
              "---> 13     img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)", "",
              "error: OpenCV(4.1.1) color.cpp:182: error: (-215:Assertion failed) !_src.empty() in function 'cvtColor'"]
    assert reprinted(opencv) == ["Traceback (most recent call last):",
                                 '  File "/tmp/ipykernel_121/2274908163.py", line 13, in load_image',
                                 "    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)", opencv[-1]]
    # Python's own tracebacks and prose that mentions one stay as they are
    assert reprinted(python) == python
    prose = ["see the log below   Traceback (most recent call last)", "it fails at import"]
    assert reprinted(prose) == prose


@pytest.mark.parametrize("ipython", [7, 8])
def test_a_paste_from_a_notebook_reads_like_the_script_run(predictions, tmp_path, ipython):
    """A traceback copied from Jupyter or AI Studio is read as the same traceback: the same verdict,
    confidence and failing-frame context as the paste it was printed from, evidence lines counted
    in the notebook's paste."""
    from pipeline.features import run_features
    from pipeline.predict import read_log_events
    labels, results = predictions
    shown = {}
    for name in labels:
        lines = (PASTES / name).read_text().splitlines()
        notebook = _as_a_notebook_prints_it(lines, ipython)
        if notebook != lines:
            shown[name] = notebook
            (tmp_path / name).write_text("\n".join(notebook) + "\n")
    assert len(shown) >= 3
    printed = _predicted(tmp_path, shown)
    assert not _changed(results, printed, shown, 0.05)

    def frame_tokens(path):
        events, _ = read_log_events(str(path))
        return {t for t in run_features(events).context.split() if t.startswith(("frame_", "exc_", "last_"))}
    for name, notebook in shown.items():
        assert frame_tokens(tmp_path / name) == frame_tokens(PASTES / name), name
        for ev in printed[name]["evidence"]:   # an event is cited at its first line
            assert ev["line"] is None or ev["text"].split()[0] in " ".join(notebook[ev["line"] - 1:]), (name, ev)
