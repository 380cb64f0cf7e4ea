"""The root-cause taxonomy as data (``pipeline/taxonomy.yaml``).

Contract:
  load_taxonomy() -> Taxonomy          # cached; read with importlib.resources (works when installed)
  Taxonomy.ids                         # tuple of ids in taxonomy order
  Taxonomy.version                     # e.g. "2026.12"
  Taxonomy.remedy(id) / .title(id)     # KeyError for an unknown id
  Taxonomy.is_failure(id)              # False only for no_failure
  Taxonomy.is_environment(id)          # True for the environment faults (not code_error / no_failure / unknown)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

NO_FAILURE = "no_failure"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Category:
    id: str
    title: str
    remedy: str
    environment: bool


@dataclass(frozen=True)
class Taxonomy:
    version: str
    categories: tuple[Category, ...]
    _by_id: dict[str, Category] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {c.id: c for c in self.categories})

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories)

    @property
    def failure_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories if c.id != NO_FAILURE)

    @property
    def environment_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories if c.environment)

    def __contains__(self, cid: object) -> bool:
        return cid in self._by_id

    def get(self, cid: str) -> Category:
        try:
            return self._by_id[cid]
        except KeyError:
            raise KeyError(f"unknown root-cause id {cid!r} (taxonomy {self.version})") from None

    def remedy(self, cid: str) -> str:
        return self.get(cid).remedy

    def title(self, cid: str) -> str:
        return self.get(cid).title

    def is_failure(self, cid: str) -> bool:
        """True for every id except ``no_failure`` (``unknown`` is a failure of unknown cause)."""
        self.get(cid)
        return cid != NO_FAILURE

    def is_environment(self, cid: str) -> bool:
        return self.get(cid).environment


def parse_taxonomy(data: dict) -> Taxonomy:
    """Build a Taxonomy from the parsed YAML mapping; raises ValueError when malformed."""
    if not isinstance(data, dict) or "categories" not in data:
        raise ValueError("taxonomy: expected a mapping with 'version' and 'categories'")
    cats: list[Category] = []
    seen: set[str] = set()
    for i, c in enumerate(data["categories"]):
        missing = [k for k in ("id", "title", "remedy") if not c.get(k)]
        if missing:
            raise ValueError(f"taxonomy: category #{i} lacks {', '.join(missing)}")
        if c["id"] in seen:
            raise ValueError(f"taxonomy: duplicate id {c['id']!r}")
        seen.add(c["id"])
        cats.append(
            Category(
                id=str(c["id"]),
                title=" ".join(str(c["title"]).split()),
                remedy=" ".join(str(c["remedy"]).split()),
                environment=bool(c.get("environment", c["id"] not in (NO_FAILURE, UNKNOWN))),
            )
        )
    for required in (NO_FAILURE, UNKNOWN):
        if required not in seen:
            raise ValueError(f"taxonomy: id {required!r} is required")
    return Taxonomy(version=str(data.get("version", "")), categories=tuple(cats))


def load_taxonomy_file(path: str | Path) -> Taxonomy:
    with open(path, encoding="utf-8") as fh:
        return parse_taxonomy(yaml.safe_load(fh))


def package_text(name: str) -> str:
    """A data file shipped inside the ``pipeline`` package (importlib.resources, so it works from
    a wheel; falls back to the file next to this module, e.g. under an editable install that
    maps ``pipeline`` as a namespace package)."""
    try:
        return resources.files("pipeline").joinpath(name).read_text(encoding="utf-8")
    except (OSError, TypeError, ValueError, ModuleNotFoundError):
        return Path(__file__).with_name(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_taxonomy() -> Taxonomy:
    """The packaged taxonomy (cached for the process)."""
    return parse_taxonomy(yaml.safe_load(package_text("taxonomy.yaml")))
