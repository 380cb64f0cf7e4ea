"""The packaged taxonomy mirrors shared/taxonomy.md (the contract) and is usable as data."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline.taxonomy import load_taxonomy, load_taxonomy_file, package_text, parse_taxonomy

HERE = Path(__file__).resolve()


def _shared_taxonomy_md() -> Path | None:
    for cand in (HERE.parents[2] / "shared" / "taxonomy.md", HERE.parents[1] / ".." / "shared" / "taxonomy.md"):
        if cand.is_file():
            return cand
    return None


def _md_rows() -> list[tuple[str, str, str]]:
    """(id, root cause, remedy) for each row of the markdown table, in order."""
    path = _shared_taxonomy_md()
    if path is None:
        pytest.skip("shared/taxonomy.md not found next to the repo")
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append((cells[0].strip("`"), " ".join(cells[1].split()), " ".join(cells[3].split())))
    assert rows, f"no table rows found in {path}"
    return rows


def test_ids_match_shared_taxonomy_md_in_order():
    assert list(load_taxonomy().ids) == [r[0] for r in _md_rows()]


def test_titles_and_remedies_are_faithful_to_taxonomy_md():
    tax = load_taxonomy()
    for cid, title, remedy in _md_rows():
        assert tax.title(cid) == title, cid
        assert tax.remedy(cid) == remedy, cid


def test_every_id_has_a_title_and_a_remedy():
    tax = load_taxonomy()
    assert tax.version
    assert len(tax.ids) == len(set(tax.ids))
    for cid in tax.ids:
        assert tax.remedy(cid).strip(), cid
        assert tax.title(cid).strip(), cid


def test_failure_and_environment_flags():
    tax = load_taxonomy()
    assert not tax.is_failure("no_failure")
    assert tax.is_failure("unknown")
    assert tax.is_failure("gpu_oom")
    assert not tax.is_environment("no_failure")
    assert not tax.is_environment("unknown")
    for cid in ("api_incompatible", "python_dependency_conflict", "file_not_found", "cuda_driver_too_old"):
        assert tax.is_environment(cid)
    # code_error is a failure, but the job's own: routed to its owner, never ranked as an environment fault
    assert tax.is_failure("code_error") and not tax.is_environment("code_error")
    assert set(tax.environment_ids) == set(tax.ids) - {"code_error", "no_failure", "unknown"}
    assert "no_failure" not in tax.failure_ids and "unknown" in tax.failure_ids


def test_unknown_id_raises_keyerror():
    with pytest.raises(KeyError):
        load_taxonomy().remedy("not_a_cause")
    assert "not_a_cause" not in load_taxonomy()
    assert "gpu_oom" in load_taxonomy()


def test_load_is_cached_and_packaged():
    assert load_taxonomy() is load_taxonomy()
    data = yaml.safe_load(package_text("taxonomy.yaml"))
    assert [c["id"] for c in data["categories"]] == list(load_taxonomy().ids)


def test_load_from_file_equals_packaged():
    path = Path(__file__).resolve().parents[1] / "pipeline" / "taxonomy.yaml"
    assert load_taxonomy_file(path) == load_taxonomy()


@pytest.mark.parametrize(
    "data",
    [
        {"version": "x"},
        {"version": "x", "categories": [{"id": "a", "title": "t"}]},
        {"version": "x", "categories": [{"id": "no_failure", "title": "t", "remedy": "r"}] * 2},
        {"version": "x", "categories": [{"id": "gpu_oom", "title": "t", "remedy": "r"}]},
    ],
)
def test_parse_rejects_malformed(data):
    with pytest.raises(ValueError):
        parse_taxonomy(data)


def test_rules_only_use_taxonomy_ids():
    from pipeline.rules import load_rules

    tax = load_taxonomy()
    for rule in load_rules().rules:
        assert rule.category in tax.ids
        assert rule.category not in ("no_failure", "unknown")
