"""Real issue-thread cases as a labeled source: the fixed split, and rendering that keeps the paste."""
from __future__ import annotations

import collections
import csv
import json

import pytest
from conftest import ROOT

from pipeline.realcases import MASK, Filler, load_cases, render, render_case

REAL = ROOT / "data" / "labeled" / "real"


@pytest.fixture(scope="module")
def cases():
    return load_cases(REAL)


def test_every_case_has_a_fixed_split_a_quarter_of_each_category_set_aside(cases):
    assert len(cases) == 298 and len({c.url for c in cases}) == 298
    by_cat = collections.defaultdict(list)
    for c in cases:
        by_cat[c.category].append(c)
    for cat, cs in by_cat.items():
        n_test = sum(c.split == "test" for c in cs)
        assert n_test == (len(cs) + 2) // 4, cat     # positions 1, 5, 9, ... of each category
    # the split file is the record: it matches the shapes file id for id
    with open(REAL / "split.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["id"] for r in rows] == [c.id for c in cases]
    shapes = [json.loads(line) for line in (REAL / "issue_log_shapes.jsonl").read_text().splitlines() if line]
    assert all(r["category"] == s["category"] and r["url"] == s["url"] for r, s in zip(rows, shapes))


def test_rendering_fills_every_mask_keeps_the_rest_and_is_deterministic(cases):
    for case in cases[:60]:
        a, b = render_case(case, 0), render_case(case, 0)
        assert a.lines == b.lines and a.envelope == "plain" and a.paste_start == 0
        assert len(a.lines) == len(case.lines)
        for shape, line in zip(case.lines, a.lines):
            assert not MASK.search(line)
            # the text around the masks is the shape's own, in order
            pieces = [p for p in MASK.split(shape)[::2] if p]
            pos = 0
            for p in pieces:
                found = line.find(p, pos)
                assert found >= 0, (shape, line)
                pos = found + len(p)


def test_one_log_is_one_machine_consistent_site_packages_and_clock():
    import random
    f = Filler(random.Random(5))
    lines = [f.line('  File "<SITE>/paddle/fluid/executor.py", line 1, in run') for _ in range(5)]
    sites = {line.split('"')[1].split("paddle/")[0] for line in lines}
    assert len(sites) == 1
    times = [f.line("W1123 <TIME>  <N> init.cc:1] x").split()[1] for _ in range(20)]
    assert times == sorted(times)
    assert f.line("Wed Oct 10 <TIME> <N>[1,31]<stderr>: x").split()[4].startswith(str(f.year))


def test_variants_add_healthy_output_and_envelopes_the_paste_survives(cases, tmp_path):
    from pipeline.predict import read_log_events
    case = next(c for c in cases if c.split == "dev" and c.category == "gpu_oom" and len(c.lines) > 3)
    labels = render(tmp_path / "real", [case])
    assert list(labels["variant"]) == [0, 1, 2, 3, 4] and set(labels["source"]) == {"real"}
    assert set(labels["scenario"]) == {case.id} and set(labels["split"]) == {case.split}
    v1, v2 = render_case(case, 1), render_case(case, 2)
    assert v1.paste_start > 0 and v2.envelope in ("docker", "cri") and v2.exit_code == 1
    assert v1.lines[v1.paste_start:] == render_case(case, 1).lines[v1.paste_start:]
    # each rendering reads back (plain, docker json-file or CRI) with its last line intact (variant 3
    # stops the paste early, so the last line is the rendering's own, not the case's)
    for run_id, variant in zip(labels["run_id"], labels["variant"]):
        path = tmp_path / "real" / run_id
        if path.is_dir():
            path = next(p for p in path.iterdir() if p.name.endswith("-json.log") or p.name == "0.log")
        events, problems = read_log_events(str(path))
        assert not problems
        last = render_case(case, int(variant)).lines[-1].strip()[-12:]
        assert any(last in (t or m) for t, m in zip(events["text"], events["message"])), run_id


def test_render_refuses_to_overwrite_a_folder_it_did_not_write(cases, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        render(tmp_path / "x", cases[:1])
    render(tmp_path / "y", cases[:1])
    render(tmp_path / "y", cases[1:2])   # a previous rendering is replaced
    assert {p.name for p in (tmp_path / "y").iterdir()} >= {"labels.csv"}
