"""One place for configuration: params.yaml (repo root or cwd) over built-in defaults."""
from __future__ import annotations

import copy
import os
from functools import lru_cache
from pathlib import Path

import yaml

DEFAULTS: dict = {
    "paths": {
        "db": "data/logml.duckdb",
        "raw": "data/raw",
        "labeled": "data/labeled",
        "models": None,   # None: the model shipped inside the package (pipeline/models)
        "reports": "reports",
        "events": None,   # event files: None = a folder beside the warehouse, "duckdb" = DuckDB rows
    },
    "events": {"keep_days": None, "compact": True, "compact_small_rows": 1 << 20, "compact_target_rows": 1 << 22},
    "ingest": {"chunk_lines": 200_000, "max_line_bytes": 1 << 20, "columnar": True, "batch_bytes": 32 << 20,
               "duckdb_memory": "128MB", "checkpoint_every": "256MB", "mask_ahead_min": 10000,
               "mask_cache": 120_000, "shape_cache": 100_000, "buffer_events": 50_000},
    "model": {},
    "train": {"splits": 4, "seed": 0, "cv_repeats": 3, "wrong_cost": 0.5, "ship_with_test": True},
    "train_corpus": {"hosts": 24, "days": 30, "seed": 7, "pastes": 1.0, "min_per_category": 40},
    "mining": {"sim_th": 0.65, "depth": 5, "max_children": 100, "extra_delimiters": ["=", ","],
               "route_masked": True, "route_names": False, "fallback_search": False, "similarity": "drain3", "join_variable_runs": True},
}


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in (over or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def params_path() -> Path | None:
    """LOGML_PARAMS wins; else params.yaml in the working directory."""
    env = os.environ.get("LOGML_PARAMS")
    if env:
        return Path(env)
    here = Path.cwd() / "params.yaml"
    return here if here.exists() else None


@lru_cache(maxsize=8)
def _load(path: str | None) -> dict:
    if path is None:
        return copy.deepcopy(DEFAULTS)
    with open(path, encoding="utf-8") as fh:
        return _merge(DEFAULTS, yaml.safe_load(fh) or {})


def load_params(path: str | Path | None = None) -> dict:
    chosen = Path(path) if path else params_path()
    return copy.deepcopy(_load(str(chosen) if chosen else None))


def packaged_models() -> Path:
    """The model shipped inside the installed package (pipeline/models), wherever it is installed."""
    return Path(__file__).resolve().with_name("models")


def models_dir(explicit: str | Path | None = None, params: dict | None = None) -> Path:
    """Where the trained model is read from: --models, then $LOGML_MODELS, then params.yaml's
    paths.models when a params file sets it, then the model shipped inside the package."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("LOGML_MODELS")
    if env:
        return Path(env)
    configured = (params or load_params())["paths"].get("models")
    return Path(configured) if configured else packaged_models()
