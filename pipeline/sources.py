"""Discover container logs in fleet storage and read them as logical lines.

Storage layout (see README): docker json-file + config.v2.json, Kubernetes CRI, plain text
(+ sidecar .meta.json), rotation and gzip, optional inventory.csv.

Contract used by the rest of the pipeline:
  discover(root) -> (runs, problems)
  read_chunks(logfile, start_offset, start_line) -> iterator of Chunk
  fingerprint(logfile, n) -> sha1 hex of the first n decompressed bytes
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LogFile:
    path: str          # fsspec URL or local path
    fmt: str           # "docker" | "cri" | "plain"
    rotation: int      # 0 = live file; larger = older. A run's files are read oldest first
    compressed: bool


@dataclass
class Run:
    run_id: str        # path of the run relative to root, rotation suffixes removed
    host: str
    kind: str          # "docker" | "cri" | "file"
    container_id: str | None = None
    name: str | None = None
    namespace: str | None = None
    pod: str | None = None
    image: str | None = None
    image_tag: str | None = None
    exit_code: int | None = None
    oom_killed: bool | None = None
    started_at: str | None = None
    finished_at: str | None = None
    labels: dict = field(default_factory=dict)
    files: list[LogFile] = field(default_factory=list)


@dataclass
class Problem:
    path: str
    line: int | None
    reason: str
    detail: str = ""


@dataclass
class Chunk:
    lines: list[str]           # logical lines: envelope removed, docker/CRI partials joined
    line_nos: list[int]        # 1-based physical line number of each logical line's first physical line
    ts: list[str | None]       # envelope timestamp (docker/CRI), None for plain text
    streams: list[str | None]  # "stdout" | "stderr" | None
    end_offsets: list[int]     # decompressed byte offset just after each logical line's last physical line
    problems: list[Problem] = field(default_factory=list)
