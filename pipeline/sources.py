"""Discover container logs in fleet storage and read them as logical lines.

Storage layout (design.md, "Log storage layout"): docker json-file + config.v2.json, Kubernetes CRI,
plain text (+ sidecar .meta.json), rotation and gzip, optional inventory.csv.

Contract used by the rest of the pipeline:
  discover(root) -> (runs, problems)
  read_inventory(root, problems=None) -> pandas.DataFrame | None
  read_chunks(logfile, start_offset=0, start_line=0, chunk_lines=100_000, *, max_line_bytes, block_size,
              emit_unterminated) -> iterator of Chunk
  fingerprint(logfile, n=1024) -> sha1 hex of the first n decompressed bytes
  head_fingerprint(logfile, cap=1024) -> (sha1 hex, n_bytes) with n_bytes = min(cap, decompressed size)
  head_size(logfile, cap=1024) -> n_bytes
  read_head(logfile, n=1024) -> the first n decompressed bytes
  image_tag(image) -> tag ("latest" when the image has none)
  sniff_format(sample) / logfile_for_path(path): one file given by hand (`logml predict`)

Offsets are always positions in the *decompressed* content. Compression is detected from the gzip magic
bytes, not from the file name (a misnamed file is still read correctly); LogFile.compressed comes from the
name and is informational.

Resuming: every logical line i of a Chunk carries end_offsets[i] and end_lines[i] (physical lines consumed
up to that offset). read_chunks(f, start_offset=end_offsets[i], start_line=end_lines[i]) yields exactly the
logical lines after i, with the same line numbers as an uninterrupted read. The one exception is a docker
or CRI partial line interleaved with lines of the other stream (a "tangle"): the lines of a tangle except
its last one carry the offset where the tangle starts, so resuming there re-reads the tangle (the same
lines again with the same line numbers: nothing is lost, a caller that committed mid-tangle sees the
committed lines once more). Chunks are never cut inside a tangle. After handling a whole chunk, resume
from (chunk.resume_offset, chunk.resume_line): in the last chunk it also steps over skipped trailing lines
(malformed ones), but never over an unterminated final write that could not be parsed.

Problem reasons. Discovery: bad_metadata (config.v2.json / sidecar unreadable, not JSON, unusable values),
unrecognized_path (a file outside <host>/docker/containers/, <host>/pods/ and <host>/files/),
bad_inventory. Reading: invalid_utf8 (detail "decoded as GB18030" for a line read as GBK Chinese),
nul_bytes, line_too_long (detail = original byte length),
malformed_json, malformed_cri (detail = first 200 chars; the line is skipped), cri_partial_unterminated,
docker_partial_unterminated, truncated_gzip, unreadable, binary, offset_beyond_end. Problem.line is the
1-based physical line (None for file-level problems).

Layout notes: besides <file>.log, paddle's launcher output log/workerlog.<N> and Slurm's slurm-<jobid>.out / .err
are read as plain runs; a
CRI <n>.log may have a <n>.log.meta.json sidecar too. Of x.log.1 and x.log.1.gz (logrotate mid-way),
only the uncompressed one is used. kubelet's /var/log/containers/<pod>_<ns>_<container>-<cid>.log view is
read only where the pod's own log is not under root (a shipper that copied that folder alone): a run
<host>/containers/<that name>, its format sniffed; a link into root or a view of a copied pod log is read once,
at the pod log, and a dangling link (its pod log not copied) is reported.
"""
from __future__ import annotations

import codecs
import gzip
import hashlib
import json
import os
import posixpath
import re
import sys
import zlib
from dataclasses import dataclass, field
from itertools import accumulate
from operator import add
from typing import Iterator

try:  # optional fast JSON parser (3-4x faster docker json-file reading); stdlib json otherwise
    import orjson as _orjson

    _loads = _orjson.loads
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    _orjson = None
    _loads = json.loads

MAX_LINE_BYTES = 1 << 20       # a logical line longer than this is truncated (Problem "line_too_long")
BLOCK_SIZE = 1 << 20           # decompressed bytes read at a time (bigger blocks measured slower)
BINARY_SAMPLE = 64 << 10       # bytes of the first block looked at to decide "binary"
BINARY_RATIO = 0.30            # share of control/undecodable bytes above which a file is "binary"
ENVELOPE_SLACK = 4096          # extra room for the docker/CRI envelope around a capped line
INVENTORY_COLUMNS = ["host", "gpu_model", "driver_version", "cuda_driver_max", "node_pool"]
ZERO_TIME_PREFIX = "0001-01-01"  # docker's "never"


@dataclass(frozen=True, slots=True)   # slots: a fleet has hundreds of thousands of them
class LogFile:
    path: str          # fsspec URL or local path
    fmt: str           # "docker" | "cri" | "plain"
    rotation: int      # 0 = live file; larger = older. A run's files are read oldest first
    compressed: bool
    size: int | None = field(default=None, compare=False)     # on-disk size when discovered
    mtime: float | None = field(default=None, compare=False)  # modification time (epoch s) if known
    # a file given by hand (logml predict): a line that is not the runtime's envelope is the user's own text
    # around a pasted log, kept as a plain line instead of reported and skipped
    pasted: bool = field(default=False, compare=False)


@dataclass(slots=True)
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
    pod_uid: str | None = None       # CRI: uid part of the pod folder
    restart: int | None = None       # CRI: <n> of <n>.log (the container's restart count)
    created_at: str | None = None    # docker: Created


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
    end_lines: list[int] = field(default_factory=list)  # physical lines consumed up to end_offsets[i]
    # Where to resume once the whole chunk is handled (>= end_offsets[-1]; in the last chunk it also
    # covers skipped trailing lines, e.g. malformed ones, so they are not re-read and re-reported).
    resume_offset: int = 0
    resume_line: int = 0


# --------------------------------------------------------------------------------------------------
# Discovery

_DOCKER_LOG = re.compile(r"^(?P<cid>.+)-json\.log(?:\.(?P<rot>\d+))?(?P<gz>\.gz)?$")
_CRI_LOG = re.compile(r"^(?P<n>\d+)\.log(?:\.(?P<ts>\d{8}-\d{6}))?(?P<gz>\.gz)?$")
_OLD_CRI_LOG = re.compile(r"^(?P<container>.+)_(?P<log>\d+\.log(?:\.\d{8}-\d{6})?(?:\.gz)?)$")
_PLAIN_LOG = re.compile(r"^(?P<base>.+\.log)(?:\.(?P<rot>\d+))?(?P<gz>\.gz)?$")
# a job's output under a name of its tool's: paddle.distributed.launch's workerlog.<N>, Slurm's default
# slurm-<jobid>[_<task>].out / .err
_WORKERLOG = re.compile(r"^(?P<base>workerlog\.\d+|slurm-\d+(?:_\d+)?\.(?:out|err))(?P<gz>\.gz)?$")
# kubelet's /var/log/containers view: <pod>_<ns>_<container>-<container id>.log, a link to the pod's log
_KUBELET_VIEW = re.compile(r"^(?P<pod>[^_/]+)_(?P<ns>[^_/]+)_(?P<container>[^/]+)-(?P<cid>[0-9a-f]{64})\.log(?P<gz>\.gz)?$")
_META_KEYS = ("container_id", "name", "namespace", "pod", "image", "image_tag", "exit_code", "oom_killed",
              "started_at", "finished_at", "labels", "pod_uid", "restart", "created_at")


def image_tag(image: str | None) -> str | None:
    """Tag of an image reference: after the last ':' that follows the last '/'; "latest" if none."""
    if not image:
        return None
    ref = image.split("@", 1)[0]
    if ref.startswith("sha256:"):
        return None  # an image id, not a name
    slash, colon = ref.rfind("/"), ref.rfind(":")
    if colon > slash and colon < len(ref) - 1:
        return ref[colon + 1:]
    return "latest"


def _none_time(value) -> str | None:
    if not value or not isinstance(value, str) or value.startswith(ZERO_TIME_PREFIX):
        return None
    return value


def _as_int(value) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _as_bool(value) -> bool | None:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    return None


class _Builder:
    __slots__ = ("run", "files", "cri_ts", "meta_path")

    def __init__(self, run: Run):
        self.run = run
        self.files: dict = {}      # rotation key -> LogFile
        self.cri_ts: dict = {}     # CRI: rotation timestamp -> LogFile (ranked afterwards)
        self.meta_path: str | None = None

    def add(self, key, logfile: LogFile, table: dict | None = None) -> None:
        table = self.files if table is None else table
        old = table.get(key)
        # x.log and x.log.gz (or .1 and .1.gz, mid-compression): prefer the uncompressed file
        if old is None or (old.compressed and not logfile.compressed):
            table[key] = logfile


def _local_listing(base: str) -> dict[str, dict]:
    """fs.find(base, detail=True) for a local folder, from os.scandir (fsspec's costs ~0.2 ms a file;
    os.walk + os.stat a path join and a second lookup per file; the same entries as os.walk)."""
    out = {}
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir():   # as os.walk: a link to a folder is a folder, not followed
                        if entry.is_symlink():   # (listed: discover says where it leads)
                            out[entry.path] = {"size": 0, "mtime": None, "type": "folder_link"}
                        else:
                            stack.append(entry.path)
                        continue
                    st = entry.stat()
                except OSError:  # a dangling symlink is still listed (and reported when read)
                    try:
                        out[entry.path] = {"size": 0, "mtime": entry.stat(follow_symlinks=False).st_mtime,
                                           "type": "other"}
                    except OSError:
                        pass
                    continue
                out[entry.path] = {"size": st.st_size, "mtime": st.st_mtime,
                                   "type": "file_link" if entry.is_symlink() else "file"}
    return dict(sorted(out.items()))


# A node's own folders, as a shipper that copies them whole keeps them: read as the layout's areas.
_ALIASES = ((("var", "lib", "docker"), ("docker",)), (("var", "log", "pods"), ("pods",)),
            (("containers",), ("docker", "containers")))
_LOG_LIKE = re.compile(r"\.(?:log|txt|out|err)(?:\.\d+)?(?:\.gz)?$|^workerlog\.\d+$|\.gz$")
_UNRECOGNIZED = ("not a log of the layout (<host>/docker/containers/<cid>/<cid>-json.log, "
                 "<host>/pods/<ns>_<pod>_<uid>/<container>/<n>.log or <host>/files/**/*.log): to have it read, "
                 "move it under a host folder's files/ with a .log name (README, 'Storage layout')")
_IN_RUNTIME_FOLDER = ("a log inside a container's or pod's folder, where only the runtime's own log is read "
                      "(a job's log folder copied beside it): copy it to <host>/files/<job>/ to have it read")
_HOST_AS_ROOT = ("the root looks like one host's folder (it holds {}): its runs are filed under a host named "
                 "after that folder; point logml at the folder that holds the host folders")
_UNNAMED_LOG = ("reads like a log but is not named as one: in <host>/files/ only *.log, *.log.<N>[.gz], "
                "workerlog.<N> and Slurm's slurm-<jobid>.out / .err are read (other files there are taken for a "
                "job's side files); rename it to .log")
_FOLDER_LINK = "a link to a folder outside the root, not followed: point logml at {} or copy it in"
# the head of a file that is a log's and not a job's side file (a vocabulary, a config, a CSV): a
# timestamp, a log level, a traceback, a glog prefix
_LOG_HEAD = re.compile(rb"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}|\b(?:INFO|WARNING|WARN|ERROR|FATAL|DEBUG)\b|"
                       rb"Traceback \(most recent call last\)|^[IWEF]\d{4} \d{2}:", re.M)


def _stray_log(path: str, name: str) -> bool:
    """A file where the layout reads no log (deeper in a container's folder) that is one all the same."""
    return bool(_PLAIN_LOG.match(name) or _WORKERLOG.match(name)) or _unnamed_log(path, name)


def _unnamed_log(path: str, name: str) -> bool:
    """A file of <host>/files/ that is not named as a log but reads like one (a .txt, .out or .err,
    or no extension at all; a model's binary parameter files have none either): worth a report."""
    if "." in name and not re.search(r"\.(?:txt|out|err)(?:\.\d+)?(?:\.gz)?$", name):
        return False
    head = _read_head(path, 1 << 12)
    return bool(head) and not _is_binary(head) and _LOG_HEAD.search(head) is not None


def _canonical(parts: list[str]) -> list[str]:
    """<host>/var/lib/docker/..., <host>/var/log/pods/... and <host>/containers/<cid>/... as the
    layout's <host>/docker/... and <host>/pods/... (same run ids whichever way a node was copied)."""
    for alias, area in _ALIASES:
        k = len(alias)
        if tuple(parts[1:1 + k]) == alias and len(parts) > k + 2:
            parts = [parts[0], *area, *parts[1 + k:]]
            break
    if len(parts) == 4 and parts[1] == "pods":   # kubelet before 1.14: pods/<uid>/<container>_<n>.log
        m = _OLD_CRI_LOG.match(parts[3])
        if m:
            return [*parts[:3], m["container"], m["log"]]
    return parts


def _side_file(parts: list[str]) -> bool:
    """Files of the layout's areas that are not logs (docker's own state beside containers/, a
    container folder's checkpoints and mounts, a pod folder's other files, a model beside a train.log)."""
    return parts[1] in ("docker", "pods", "files")


def _kubelet_view(parts: list[str]) -> re.Match | None:
    """<host>/var/log/containers/<pod>_<ns>_<container>-<cid>.log (or <host>/containers/<that>.log, the
    folder copied alone): kubelet's view of the pods' logs."""
    if (len(parts) == 5 and tuple(parts[1:4]) == ("var", "log", "containers")) or \
            (len(parts) == 3 and parts[1] == "containers"):
        return _KUBELET_VIEW.match(parts[-1])
    return None


_DANGLING_VIEW = ("a link of kubelet's /var/log/containers view whose pod log was not copied: copy /var/log/pods "
                  "too, or let the shipper follow links")


def _view_runs(views: list, builders: dict, base: str, local: bool, url, problems: list[Problem]) -> None:
    """Runs for kubelet view files whose pod log is not under root (a shipper that copied /var/log/containers
    alone, following its links): with pod, namespace, container and id from the file name, the format sniffed
    (CRI, or docker json-file on a dockershim node). A link into root, or a view of a container whose
    pods/ folder was copied too, is the same log: read once, there."""
    copied = {(b.run.host, b.run.namespace, b.run.pod, b.run.name) for b in builders.values() if b.run.kind == "cri"}
    inside = os.path.realpath(base) + os.sep if local else None
    for host, m, p, info in views:
        if (host, m["ns"], m["pod"], m["container"]) in copied:
            continue
        if local and os.path.islink(p):
            target = os.path.realpath(p)
            if not os.path.exists(target):
                problems.append(Problem(url(p), None, "unreadable", _DANGLING_VIEW))
                continue
            if target.startswith(inside):
                continue
        path = url(p)
        lf = LogFile(path, sniff_format(_read_head(path, 1 << 12)), 0, bool(m["gz"]), info.get("size"), info.get("mtime"))
        run_id = f"{host}/containers/{m['pod']}_{m['ns']}_{m['container']}-{m['cid']}"
        builders[run_id] = _Builder(Run(run_id=run_id, host=host, kind="docker" if lf.fmt == "docker" else "cri",
                                        container_id=m["cid"], name=m["container"], namespace=m["ns"], pod=m["pod"]))
        builders[run_id].add(0, lf)


def check_root(root: str):
    """(filesystem, folder path) of root; FileNotFoundError unless root is a folder (checked before a
    warehouse is created for it)."""
    import fsspec.core

    fs, base = fsspec.core.url_to_fs(root)
    base = base.rstrip("/") or "/"
    if not fs.isdir(base):
        raise FileNotFoundError(f"log root not found or not a folder: {root}")
    return fs, base


def discover(root: str) -> tuple[list[Run], list[Problem]]:
    """Find every run under root (local folder or fsspec URL); metadata from config/sidecar files.

    A file outside the layout's areas is a Problem (reason "unrecognized_path"); files in them that
    are not logs (docker's hostconfig.json, a model next to a train.log) are ignored. A config.v2.json
    or sidecar that cannot be read or parsed is a Problem (reason "bad_metadata"); its run is still
    returned. Raises FileNotFoundError if root does not exist.
    """
    fs, base = check_root(root)
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    local = "file" in protocols or "local" in protocols

    def url(p: str) -> str:
        return p if local else fs.unstrip_protocol(p)

    listing = _local_listing(base) if local else fs.find(base, detail=True, withdirs=False)
    inside = os.path.realpath(base) + os.sep if local else ""
    builders: dict[str, _Builder] = {}
    problems: list[Problem] = []
    prefix = base if base.endswith("/") else base + "/"

    def builder(run_id: str, **kw) -> _Builder:
        b = builders.get(run_id)
        if b is None:
            b = builders[run_id] = _Builder(Run(run_id=run_id, **kw))
        return b

    metas: dict[str, str] = {}  # run_id -> config/sidecar path (for runs that may have no log file yet)
    views: list = []            # kubelet's /var/log/containers files, decided once the pods are known
    for p, info in listing.items():
        if not p.startswith(prefix):
            continue
        rel = p[len(prefix):]
        parts = rel.split("/")
        if "/." in "/" + rel or "//" in rel or rel.endswith("/") or info.get("type") == "directory":
            continue   # hidden or empty parts
        if info.get("type") in ("folder_link", "file_link"):
            target = os.path.realpath(p)
            if info["type"] == "folder_link":
                if not (target + os.sep).startswith(inside):
                    problems.append(Problem(url(p), None, "unrecognized_path", _FOLDER_LINK.format(target)))
                continue   # a link within the root: its files are read where they are
            twin = prefix + target[len(inside):] if target.startswith(inside) else None
            if twin is not None and (listing.get(twin) or {}).get("type") == "file" and "/." not in "/" + twin[len(prefix):]:
                continue   # the same log, read once where it is (a second run would count it twice)
        view = _kubelet_view(parts)
        if view is not None:
            views.append((parts[0], view, p, info))
            continue
        if len(parts) < 3:   # directly in a host folder, or beside them (where only a log is worth a report)
            if len(parts) == 2 or _LOG_LIKE.search(rel):
                problems.append(Problem(url(p), None, "unrecognized_path", _UNRECOGNIZED))
            continue
        parts = _canonical(parts)
        host, area, name = parts[0], parts[1], parts[-1]
        size = info.get("size")
        mtime = info.get("mtime")
        if mtime is None and info.get("LastModified") is not None:
            try:
                mtime = info["LastModified"].timestamp()
            except AttributeError:
                mtime = None
        if area == "docker" and len(parts) == 5 and parts[2] == "containers":
            cid = parts[3]
            run_id = f"{host}/docker/containers/{cid}"
            if name == "config.v2.json":
                metas[run_id] = p
                continue
            m = _DOCKER_LOG.match(name)
            if not m or m["cid"] != cid:
                if ".log" in name:   # a log docker did not write under this container's id
                    problems.append(Problem(url(p), None, "unrecognized_path", _UNRECOGNIZED))
                continue
            lf = LogFile(url(p), "docker", int(m["rot"] or 0), bool(m["gz"]), size, mtime)
            builder(run_id, host=host, kind="docker", container_id=cid).add(lf.rotation, lf)
        elif area == "pods" and len(parts) == 5:
            m = _CRI_LOG.match(name)
            if not m:
                if name.endswith(".log.meta.json") and _CRI_LOG.match(name[:-len(".meta.json")]):
                    n = name.split(".", 1)[0]
                    metas[f"{host}/pods/{parts[2]}/{parts[3]}/{n}"] = p
                continue
            pod_dir, container, n = parts[2], parts[3], m["n"]
            run_id = f"{host}/pods/{pod_dir}/{container}/{n}"
            segs = pod_dir.split("_")
            ns, pod, uid = (segs[0], "_".join(segs[1:-1]), segs[-1]) if len(segs) >= 3 else (None, None, None)
            b = builder(run_id, host=host, kind="cri", name=container, namespace=ns, pod=pod,
                        pod_uid=uid, restart=int(n))
            lf = LogFile(url(p), "cri", 0, bool(m["gz"]), size, mtime)
            if m["ts"]:
                b.add(m["ts"], lf, b.cri_ts)
            else:
                b.add(0, lf)
        elif area == "files":
            if name.endswith(".meta.json"):
                live = name[:-len(".meta.json")]
                ml = _PLAIN_LOG.match(live) or _WORKERLOG.match(live)
                if ml and not ml.groupdict().get("rot") and not ml["gz"]:
                    metas[f"{host}/files/" + posixpath.join(*parts[2:-1], live)] = p
                continue
            m = _PLAIN_LOG.match(name) or _WORKERLOG.match(name)
            if not m:
                if _unnamed_log(url(p), name):   # not silently dropped: a shipper that names logs otherwise
                    problems.append(Problem(url(p), None, "unrecognized_path", _UNNAMED_LOG))
                continue
            rot = int(m.groupdict().get("rot") or 0)
            run_id = f"{host}/files/" + posixpath.join(*parts[2:-1], m["base"])
            lf = LogFile(url(p), "plain", rot, bool(m["gz"]), size, mtime)
            builder(run_id, host=host, kind="file").add(rot, lf)
        elif not _side_file(parts):
            # not silently dropped: a fleet laid out otherwise shows up in the problems
            problems.append(Problem(url(p), None, "unrecognized_path", _UNRECOGNIZED))
        elif area in ("docker", "pods") and _stray_log(url(p), name):
            problems.append(Problem(url(p), None, "unrecognized_path", _IN_RUNTIME_FOLDER))
    areas = sorted({b.run.run_id.split("/")[0] for b in builders.values()} & {"docker", "pods", "files"})
    if areas:
        problems.append(Problem(url(base), None, "unrecognized_path",
                                _HOST_AS_ROOT.format(", ".join(f"{a}/" for a in areas))))
    _view_runs(views, builders, base, local, url, problems)

    runs: list[Run] = []
    # A fleet repeats its hosts, image tags and label sets on every container: one copy of each
    # (at 30M lines, 86k runs, they were a quarter of what discovery keeps). Runs share a label
    # dict, so nothing may change one in place.
    shared_labels: dict[tuple, dict] = {}
    intern = sys.intern
    for run_id in sorted(builders):
        b = builders[run_id]
        # kubelet rotation: <n>.log.<YYYYMMDD-HHMMSS>[.gz]; the newest rotated file is rotation 1
        for rank, ts in enumerate(sorted(b.cri_ts, reverse=True), start=1):
            lf = b.cri_ts[ts]
            b.files[rank] = LogFile(lf.path, lf.fmt, rank, lf.compressed, lf.size, lf.mtime)
        run = b.run
        run.files = [b.files[k] for k in sorted(b.files, reverse=True)]
        meta = metas.get(run_id)
        if meta is not None:
            doc = _read_json(fs, meta, url(meta), problems)
            if doc is not None:
                if run.kind == "docker" and posixpath.basename(meta) == "config.v2.json":
                    _apply_docker_config(run, doc, url(meta), problems)
                else:
                    _apply_sidecar(run, doc, url(meta), problems)
        if run.image and not run.image_tag:
            run.image_tag = image_tag(run.image)
        run.host = intern(run.host)
        if run.image_tag:
            run.image_tag = intern(run.image_tag)
        if run.namespace:
            run.namespace = intern(run.namespace)
        if run.labels:
            run.labels = shared_labels.setdefault(tuple(run.labels.items()), run.labels)
        runs.append(run)
    return runs, problems


def _read_json(fs, path: str, shown: str, problems: list[Problem]):
    """The JSON object in `path` (fs None: a local file), or None with a bad_metadata Problem."""
    try:
        if fs is None or "file" in (fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)):
            with open(path, "rb") as fh:  # fsspec's cat_file costs ~0.1 ms a file
                raw = fh.read()
        else:
            raw = fs.cat_file(path)
        try:  # orjson: 3x faster; json decides (and words the problem) wherever orjson refuses
            doc = _orjson.loads(raw) if _orjson is not None else json.loads(raw)
        except ValueError:
            doc = json.loads(raw)
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        problems.append(Problem(shown, None, "bad_metadata", f"{type(exc).__name__}: {exc}"[:500]))
        return None
    if not isinstance(doc, dict):
        problems.append(Problem(shown, None, "bad_metadata", "not a JSON object"))
        return None
    return doc


def _labels(labels: dict) -> dict[str, str]:
    """Labels as str -> str, interned: a fleet repeats the same keys and most values on every
    container (at 30M lines their strings were a third of what discovery keeps)."""
    intern = sys.intern
    return {intern(str(k)): intern("" if v is None else str(v)) for k, v in labels.items()}


def _apply_docker_config(run: Run, doc: dict, shown: str, problems: list[Problem]) -> None:
    config = doc.get("Config") if isinstance(doc.get("Config"), dict) else {}
    state = doc.get("State") if isinstance(doc.get("State"), dict) else {}
    if isinstance(config.get("Image"), str) and config["Image"]:
        run.image = sys.intern(config["Image"])
    labels = config.get("Labels")
    if isinstance(labels, dict):
        run.labels = _labels(labels)
    name = doc.get("Name")
    if isinstance(name, str) and name:
        run.name = name.lstrip("/")
    run.created_at = _none_time(doc.get("Created"))
    run.started_at = _none_time(state.get("StartedAt"))
    run.finished_at = _none_time(state.get("FinishedAt"))
    run.oom_killed = _as_bool(state.get("OOMKilled"))
    exit_code = _as_int(state.get("ExitCode"))
    # A running (or never started) container has ExitCode 0 in its config: that is not an outcome.
    if state.get("Running") is True or (exit_code == 0 and run.finished_at is None
                                        and isinstance(state.get("FinishedAt"), str)):
        exit_code = None
    run.exit_code = exit_code
    # containers started by the kubelet through dockershim carry the pod in their labels
    run.namespace = run.labels.get("io.kubernetes.pod.namespace") or run.namespace
    run.pod = run.labels.get("io.kubernetes.pod.name") or run.pod
    run.pod_uid = run.labels.get("io.kubernetes.pod.uid") or run.pod_uid


def _apply_sidecar(run: Run, doc: dict, shown: str, problems: list[Problem]) -> None:
    bad = []
    for key in _META_KEYS:
        if key not in doc or doc[key] is None:
            continue
        value = doc[key]
        if key in ("exit_code", "restart"):
            conv = _as_int(value)
        elif key == "oom_killed":
            conv = _as_bool(value)
        elif key == "labels":
            conv = _labels(value) if isinstance(value, dict) else None
        elif key in ("started_at", "finished_at", "created_at"):
            if not isinstance(value, str):
                bad.append(key)
                continue
            conv = _none_time(value)
            if conv is None:  # docker's zero time: never
                continue
        else:
            conv = str(value)
        if conv is None:
            bad.append(key)
            continue
        setattr(run, key, conv)
    if bad:
        problems.append(Problem(shown, None, "bad_metadata", "unusable values for: " + ", ".join(bad)))


def outcome_of(log_path: str) -> dict:
    """Exit code and OOMKilled of the run one local log file belongs to, for `logml predict`: from its
    `<log>.meta.json` sidecar (plain text, CRI) or docker's config.v2.json beside a json-file log, read
    as discovery reads them. {} when neither is there or usable (the verdict then rests on the text)."""
    sidecar, config = log_path + ".meta.json", posixpath.join(posixpath.dirname(log_path), "config.v2.json")
    run, problems = Run(run_id=log_path, host="", kind="file"), []
    for meta, apply in ((sidecar, _apply_sidecar), (config, _apply_docker_config)):
        if os.path.isfile(meta):
            doc = _read_json(None, meta, meta, problems)
            if doc is not None:
                apply(run, doc, meta, problems)
            break
    return {key: value for key, value in (("exit_code", run.exit_code), ("oom_killed", run.oom_killed))
            if value is not None}


def read_inventory(root: str, problems: list[Problem] | None = None):
    """<root>/inventory.csv as a DataFrame (all columns str, missing ones added as None), or None.

    A missing file gives None; an unreadable one gives None and a Problem appended to `problems`.
    """
    import fsspec.core
    import pandas as pd

    fs, base = fsspec.core.url_to_fs(root)
    path = base.rstrip("/") + "/inventory.csv"
    try:
        if not fs.isfile(path):
            return None
        with fs.open(path, "rb") as fh:
            df = pd.read_csv(fh, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (OSError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        if problems is not None:
            problems.append(Problem(path, None, "bad_inventory", f"{type(exc).__name__}: {exc}"[:500]))
        return None
    df.columns = [str(c).strip().lower() for c in df.columns]
    df = df.loc[:, ~df.columns.duplicated()]
    for col in INVENTORY_COLUMNS:
        if col not in df.columns:
            df[col] = None
    for col in df.columns:
        df[col] = df[col].map(lambda v: (v.strip() or None) if isinstance(v, str) else v)
    df = df[df["host"].notna()].drop_duplicates("host", keep="last")
    extra = [c for c in df.columns if c not in INVENTORY_COLUMNS]
    return df[INVENTORY_COLUMNS + extra].reset_index(drop=True)


# --------------------------------------------------------------------------------------------------
# Opening files

_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)
# Windows tools (PowerShell's `>` and Out-File, Notepad's "Unicode") write UTF-16 with a byte-order mark.
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


# two CJK ideographs in a row: a Chinese word, which a Latin-1 or random byte decoded as GB18030 rarely makes
_CJK_WORD = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]{2}")
# what GB18030 decodes stray bytes to besides ideographs: private use, rare blocks, box drawing, Hangul
_NOT_CHINESE = re.compile("[\ue000-\uf8ff\u2500-\u257f\uac00-\ud7af\u0080-\u024f\ufffd]")


def legacy_cjk(raw: bytes) -> str | None:
    """``raw`` decoded as GB18030 (a superset of GBK and GB2312) when it reads as Chinese, else None."""
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return None
    return text if _CJK_WORD.search(text) and not _NOT_CHINESE.search(text) else None


class _Utf16:
    """A UTF-16 file read as the UTF-8 bytes it encodes (the BOM dropped): offsets then count UTF-8
    bytes, as they count decompressed bytes of a .gz. Unpaired surrogates become U+FFFD."""

    def __init__(self, raw, encoding: str):
        self.raw = raw
        self.decoder = codecs.getincrementaldecoder(encoding)("replace")

    def read(self, n: int = -1) -> bytes:
        while True:
            data = self.raw.read(2 * n if n and n > 0 else -1)
            text = self.decoder.decode(data, final=not data)
            if text or not data:  # a read that ends inside a code unit pair yields no text yet
                return text.encode("utf-8")


class _Prefixed:
    """A file object whose first bytes were already read (to sniff the gzip magic)."""

    def __init__(self, raw, prefix: bytes):
        self.raw, self.prefix = raw, prefix

    def read(self, n: int = -1) -> bytes:
        if self.prefix:
            head, self.prefix = self.prefix, b""
            if n is None or n < 0:
                return head + self.raw.read()
            if n <= len(head):
                head, self.prefix = head[:n], head[n:]
                return head
            return head + self.raw.read(n - len(head))
        return self.raw.read(n)

    def close(self) -> None:
        self.raw.close()


def _open_raw(path: str):
    if "://" in path and not path.startswith("file://"):
        import fsspec.core

        fs, p = fsspec.core.url_to_fs(path)
        return fs.open(p, "rb")
    if path.startswith("file://"):
        path = path[len("file://"):]
    return open(path, "rb")


class _Opened:
    """Decompressed byte stream of a log file: .read(n) returns b"" at the end."""

    def __init__(self, path: str):
        self.raw = _open_raw(path)
        try:
            magic = self.raw.read(2)
            self.gzip = magic == _GZIP_MAGIC
            self.transcoded = magic in _UTF16_BOMS
            if self.gzip:
                self.gz = gzip.GzipFile(fileobj=_Prefixed(self.raw, magic), mode="rb")
                self.read = self.gz.read1
            elif self.transcoded:
                self.read = _Utf16(self.raw, _UTF16_BOMS[magic]).read
            elif _seekable(self.raw):
                self.raw.seek(0)
                self.read = self.raw.read
            else:
                self.read = _Prefixed(self.raw, magic).read
        except BaseException:
            self.raw.close()
            raise

    def skip(self, n: int, block_size: int) -> tuple[bytes, bool]:
        """Move to decompressed offset n; returns (bytes read past n, n was within the content)."""
        if n <= 0:
            return b"", True
        if not self.gzip and not self.transcoded and _seekable(self.raw):
            size = self.raw.seek(0, 2)
            self.raw.seek(min(n, size))
            return b"", n <= size
        left = n
        while left > 0:
            block = self.read(min(block_size, max(left, 1 << 16)))
            if not block:
                return b"", False
            if len(block) > left:
                return block[left:], True
            left -= len(block)
        return b"", True

    def close(self) -> None:
        if self.gzip:
            try:
                self.gz.close()
            except Exception:  # closing a broken gzip must not hide the real outcome
                pass
        self.raw.close()


def _seekable(f) -> bool:
    try:
        return bool(f.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def head_fingerprint(logfile: LogFile, cap: int = 1024) -> tuple[str, int]:
    """(sha1 hex of the first min(cap, size) decompressed bytes, that number of bytes).

    Used to recognise a file after rotation renamed (and maybe compressed) it: store both values, and
    later compare fingerprint(candidate, n_bytes) with the stored hash. A truncated gzip gives the bytes
    decoded before the break; an unreadable file counts as empty (read_chunks reports why).
    """
    data = _read_head(logfile.path, cap)
    return hashlib.sha1(data).hexdigest(), len(data)


def fingerprint(logfile: LogFile, n: int = 1024) -> str:
    """sha1 hex of the first n decompressed bytes (fewer if the file is shorter); never raises OSError."""
    return head_fingerprint(logfile, n)[0]


def head_size(logfile: LogFile, cap: int = 1024) -> int:
    """min(cap, decompressed size), counting only what can be decoded."""
    return head_fingerprint(logfile, cap)[1]


def read_head(logfile: LogFile, n: int = 1024) -> bytes:
    """The first n decompressed bytes (fewer if shorter; b"" if unreadable), gzip detected by content."""
    return _read_head(logfile.path, n)


def _read_head(path: str, n: int) -> bytes:
    out = bytearray()
    try:
        src = _Opened(path)
    except (OSError, ValueError):
        return b""
    try:
        while len(out) < n:
            block = src.read(n - len(out))
            if not block:
                break
            out += block
    except (OSError, *_GZIP_ERRORS):
        pass
    finally:
        src.close()
    return bytes(out[:n])


_CRI_SNIFF = re.compile(rb"^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP]( |$)")


def _line_format(line: bytes) -> str:
    if line.startswith(b"{") and b'"log"' in line:
        try:
            obj = json.loads(line.decode("utf-8", "replace"))
            if isinstance(obj, dict) and isinstance(obj.get("log"), str):
                return "docker"
        except ValueError:
            pass
    return "cri" if _CRI_SNIFF.match(line) else "plain"


def sniff_format(sample: bytes) -> str:
    """Guess "docker" | "cri" | "plain" from the first decompressed bytes of a log: the format of most of
    its first non-empty lines (a log pasted with a line of its own on top is still the runtime's format;
    read as one given by hand, ``LogFile.pasted``, that line is kept as text)."""
    lines = [ln for ln in (raw.strip().replace(b"\x00", b"") for raw in sample.split(b"\n")[:40]) if ln][:20]
    if not lines:
        return "plain"
    kinds = [_line_format(ln) for ln in lines]
    best = max(("docker", "cri"), key=kinds.count)
    return best if kinds.count(best) * 2 > len(kinds) or kinds[0] == best else "plain"


def logfile_for_path(path: str) -> LogFile:
    """A LogFile for one file given by hand (format sniffed from its content)."""
    return LogFile(path, sniff_format(_read_head(path, 1 << 16)), 0, path.endswith(".gz"), pasted=True)


# --------------------------------------------------------------------------------------------------
# Reading

_DATA, _LONG, _TAIL, _ERR = 0, 1, 2, 3
_CTRL = bytes(b for b in range(32) if b not in b"\t\n\r\x0b\x0c\x08\x1b") + b"\x7f"
_NOT_CTRL = bytes(b for b in range(256) if b not in _CTRL)


def _blocks(read, block_size: int, cap: int, first: bytes = b""):
    """Split a byte stream into items without ever holding a physical line longer than cap:
    (_DATA, bytes of complete lines, each ending in \\n), (_LONG, first cap bytes, length without the
    newline, had newline), (_TAIL, final fragment without newline), (_ERR, "gzip"|"read", exception)."""
    buf = b""
    skipping, head, skipped = False, b"", 0
    err = None
    while True:
        if first:
            block, first = first, b""
        else:
            try:
                block = read(block_size)
            except _GZIP_ERRORS as exc:
                err = ("gzip", exc)
                break
            except OSError as exc:
                err = ("read", exc)
                break
        if not block:
            break
        if skipping:
            i = block.find(b"\n")
            if i < 0:
                skipped += len(block)
                continue
            skipped += i
            yield (_LONG, head, skipped, True)
            skipping, head = False, b""
            block = block[i + 1:]
            if not block:
                continue
        if buf:
            block = buf + block
        j = block.rfind(b"\n")
        if j < 0:
            buf = block
        elif j == len(block) - 1:
            buf = b""
            yield (_DATA, block)
        else:
            buf = block[j + 1:]
            yield (_DATA, block[:j + 1])
        if len(buf) > cap:
            skipping, head, skipped, buf = True, buf[:cap], len(buf), b""
    if skipping:
        yield (_LONG, head, skipped, False)
    elif buf:
        yield (_TAIL, buf)
    if err:
        yield (_ERR, err[0], err[1])


def _is_binary(sample: bytes) -> bool:
    """More than BINARY_RATIO of the sample is control bytes or undecodable, or it is mostly NULs.

    NUL bytes are judged apart: a few runs of them (a crash mid-write) make a log with nul_bytes
    problems, not a binary file; a first block that is mostly NUL is a core dump or a sparse file.
    """
    if not sample:
        return False
    text = sample.replace(b"\x00", b"")
    if len(text) < len(sample) // 2 and len(sample) >= 1024:
        return True
    if not text:
        return False
    ctrl = len(text.translate(None, _NOT_CTRL))  # deleting every other byte leaves the controls
    bad = 0 if text.isascii() else text.decode("utf-8", "replace").count("\ufffd")
    return (ctrl + bad) > BINARY_RATIO * len(text)


def _trim_utf8(data: bytes) -> bytes:
    """data without a trailing incomplete UTF-8 sequence (left by cutting a line at a byte count)."""
    i, k = len(data) - 1, 0
    while i >= 0 and k < 3 and (data[i] & 0xC0) == 0x80:
        i, k = i - 1, k + 1
    if i < 0 or data[i] < 0x80:
        return data
    lead = data[i]
    need = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    return data[:i] if len(data) - i < need else data


def _cut_str(text: str, n: int) -> str:
    return text.encode("utf-8", "surrogatepass")[:n].decode("utf-8", "ignore")


def _nbytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _looks_ts(t: str) -> bool:
    # deliberately loose, and the same test as the bulk path in _cri_fast
    return len(t) >= 10 and "0" <= t[:1] <= "9"


class _Acc:
    """Accumulates logical lines and cuts them into Chunks (never inside a tangle)."""

    def __init__(self, path: str, chunk_lines: int):
        self.path, self.chunk_lines = path, max(1, chunk_lines)
        self.lines: list = []
        self.nos: list = []
        self.ts: list = []
        self.streams: list = []
        self.ends: list = []
        self.elines: list = []
        self.problems: list[Problem] = []
        self.forbid: set[int] = set()   # global indices after which a chunk must not be cut
        self.base = 0                   # global index of self.lines[0]

    def problem(self, line, reason: str, detail: str = "") -> None:
        self.problems.append(Problem(self.path, line, reason, detail))

    def add1(self, text, no, ts, stream, end, eline) -> None:
        self.lines.append(text)
        self.nos.append(no)
        self.ts.append(ts)
        self.streams.append(stream)
        self.ends.append(end)
        self.elines.append(eline)

    def ready(self) -> bool:
        return len(self.lines) >= self.chunk_lines

    def pop(self) -> Chunk:
        cut = self.chunk_lines
        while self.base + cut - 1 in self.forbid and cut < len(self.lines):
            cut += 1
        last_line = self.elines[cut - 1]
        keep, give = [], []
        for p in self.problems:
            (give if p.line is not None and p.line <= last_line else keep).append(p)
        self.problems = keep
        chunk = Chunk(self.lines[:cut], self.nos[:cut], self.ts[:cut], self.streams[:cut],
                      self.ends[:cut], give, self.elines[:cut], self.ends[cut - 1], last_line)
        del self.lines[:cut], self.nos[:cut], self.ts[:cut], self.streams[:cut]
        del self.ends[:cut], self.elines[:cut]
        if self.forbid:
            self.forbid = {g for g in self.forbid if g >= self.base + cut}
        self.base += cut
        return chunk

    def final(self, resume_offset: int, resume_line: int) -> Chunk:
        chunk = Chunk(self.lines, self.nos, self.ts, self.streams, self.ends, self.problems, self.elines,
                      resume_offset, resume_line)
        self.lines, self.nos, self.ts, self.streams, self.ends, self.elines = [], [], [], [], [], []
        self.problems = []
        return chunk


class _Entry:
    __slots__ = ("no", "ts", "stream", "pieces", "kept", "orig")

    def __init__(self, no, ts, stream):
        self.no, self.ts, self.stream = no, ts, stream
        self.pieces: list[str] = []
        self.kept = 0   # bytes kept
        self.orig = 0   # bytes seen (before truncation)

    def add(self, text: str, extra: int, cap: int) -> None:
        nb = _nbytes(text)
        self.orig += nb + extra
        if self.kept + nb <= cap:
            self.pieces.append(text)
            self.kept += nb
        elif self.kept < cap:
            self.pieces.append(_cut_str(text, cap - self.kept))
            self.kept = cap


class _Joiner:
    """Reassembles docker/CRI partial lines, per stream, keeping lines in first-piece order."""

    def __init__(self, acc: _Acc, cap: int, reason_unterminated: str):
        self.acc, self.cap, self.reason = acc, cap, reason_unterminated
        self.queue: list[_Entry] = []
        self.open: dict = {}
        self.t_off = self.t_line = 0  # where the current tangle starts (a safe resume point)

    def push(self, ts, stream, text: str, complete: bool, start_off: int, end_off: int, no: int,
             extra: int = 0) -> None:
        if not self.queue and complete and not extra and _nbytes(text) <= self.cap:
            self.acc.add1(text, no, ts, stream, end_off, no)
            return
        e = self.open.get(stream)
        if e is None:
            if not self.queue:
                self.t_off, self.t_line = start_off, no - 1
            e = _Entry(no, ts, stream)
            self.queue.append(e)
            if not complete:
                self.open[stream] = e
        elif complete:
            del self.open[stream]
        e.add(text, extra, self.cap)
        if not self.open:
            self._release(end_off, no)

    def _release(self, end_off: int, end_line: int) -> None:
        acc, q = self.acc, self.queue
        self.queue = []
        last = len(q) - 1
        for i, e in enumerate(q):
            if e.orig > self.cap:
                acc.problem(e.no, "line_too_long", str(e.orig))
            if i < last:
                acc.forbid.add(acc.base + len(acc.lines))
                acc.add1("".join(e.pieces), e.no, e.ts, e.stream, self.t_off, self.t_line)
            else:
                acc.add1("".join(e.pieces), e.no, e.ts, e.stream, end_off, end_line)

    def finish(self, emit: bool, end_off: int, end_line: int) -> tuple[int, int]:
        """End of the file: returns the position up to which everything was consumed."""
        if not self.queue:
            return end_off, end_line
        if not emit:
            self.queue, self.open = [], {}
            return self.t_off, self.t_line
        for e in sorted(self.open.values(), key=lambda e: e.no):
            self.acc.problem(e.no, self.reason, f"{e.orig} bytes")
        self.open = {}
        self._release(end_off, end_line)
        return end_off, end_line


class _Reader:
    def __init__(self, logfile: LogFile, chunk_lines: int, cap: int):
        self.path, self.fmt, self.cap, self.pasted = logfile.path, logfile.fmt, cap, logfile.pasted
        self.acc = _Acc(logfile.path, chunk_lines)
        reason = "cri_partial_unterminated" if self.fmt == "cri" else "docker_partial_unterminated"
        self.joiner = _Joiner(self.acc, cap, reason)

    # -- text helpers ---------------------------------------------------------------------------
    def _decode(self, data: bytes, terminated: bool, nline: int):
        """Text of each physical line in data, the sequence whose len()s are their byte lengths, and
        whether NUL bytes / carriage returns occur (to be cleaned by _clean after offsets are taken)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            bl = data.split(b"\n")
            if terminated:
                bl.pop()
            lines = []
            for i, b in enumerate(bl):
                try:
                    lines.append(b.decode("utf-8"))
                except UnicodeDecodeError:
                    lines.append(self._not_utf8(b, nline + i + 1))
            return lines, bl, b"\x00" in data, b"\r" in data
        lines = text.split("\n")
        if terminated:
            lines.pop()
        if data.isascii():
            lens = lines
        else:
            lens = data.split(b"\n")
            if terminated:
                lens.pop()
        return lines, lens, "\x00" in text, "\r" in text

    def _clean(self, lines: list, nline: int, has_nul: bool, has_cr: bool) -> list:
        if has_nul:
            for i, s in enumerate(lines):
                if "\x00" in s:
                    lines[i] = s.replace("\x00", "")
                    self.acc.problem(nline + i + 1, "nul_bytes", str(s.count("\x00")))
        if has_cr:
            lines = [s[:-1] if s[-1:] == "\r" else s for s in lines]
        return lines

    def _text1(self, raw: bytes, no: int) -> str:
        if b"\x00" in raw:
            self.acc.problem(no, "nul_bytes", str(raw.count(b"\x00")))
            raw = raw.replace(b"\x00", b"")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return self._not_utf8(raw, no)

    def _not_utf8(self, raw: bytes, no: int) -> str:
        """A line that is no UTF-8: Chinese in GB18030 / GBK (a Windows console's or editor's code page,
        Paddle's largest user base) is read as such; anything else has U+FFFD for its bad bytes. Either
        way the line is reported (invalid_utf8, the detail says which)."""
        text = legacy_cjk(raw)
        if text is not None:
            self.acc.problem(no, "invalid_utf8", "decoded as GB18030")
            return text
        self.acc.problem(no, "invalid_utf8")
        return raw.decode("utf-8", "replace")

    # -- plain ------------------------------------------------------------------------------------
    def plain(self, data: bytes, off: int, nline: int, terminated: bool = True) -> tuple[int, int]:
        lines, lens, has_nul, has_cr = self._decode(data, terminated, nline)
        n = len(lines)
        ends = list(map(add, accumulate(map(len, lens)), range(off + 1, off + n + 1)))
        if not terminated:
            ends[-1] -= 1
        long = len(data) > self.cap and max(map(len, lens)) > self.cap
        lines = self._clean(lines, nline, has_nul, has_cr)
        if long:
            bl = data.split(b"\n")
            for i, b in enumerate(bl[:n]):
                if len(b) > self.cap:
                    text = _trim_utf8(b[:self.cap]).replace(b"\x00", b"").decode("utf-8", "replace")
                    lines[i] = text[:-1] if text.endswith("\r") else text
                    self.acc.problem(nline + i + 1, "line_too_long", str(len(b)))
        acc = self.acc
        nos = list(range(nline + 1, nline + n + 1))
        acc.lines += lines
        acc.nos += nos
        acc.ts += [None] * n
        acc.streams += [None] * n
        acc.ends += ends
        acc.elines += nos
        return ends[-1], nline + n

    def plain_long(self, head: bytes, orig: int, newline: bool, off: int, nline: int) -> tuple[int, int]:
        text = self._text1(_trim_utf8(head[:self.cap]), nline + 1)
        self.acc.problem(nline + 1, "line_too_long", str(orig))
        end = off + orig + (1 if newline else 0)
        self.acc.add1(text[:-1] if text.endswith("\r") else text, nline + 1, None, None, end, nline + 1)
        return end, nline + 1

    # -- docker json-file ---------------------------------------------------------------------------
    def docker(self, data: bytes, off: int, nline: int, terminated: bool = True) -> tuple[int, int]:
        bl = data.split(b"\n")
        if terminated:
            bl.pop()
        objs = None
        # orjson rejects raw NULs and lone surrogates (the per-line path handles them)
        if b"\x00" not in data and (_orjson is not None or b"\\ud" not in data and b"\\uD" not in data):
            try:
                body = data[:-1] if terminated else data
                objs = _loads(b"[" + body.replace(b"\n", b",") + b"]")
                if len(objs) != len(bl):
                    objs = None
            except ValueError:
                objs = None
        if objs is not None and not self.joiner.queue and b"\\u0000" not in data:
            try:
                logs = [o["log"] for o in objs]
                streams = [o["stream"] for o in objs]
                times = [o["time"] for o in objs]
                n = len(logs)
                if ([s[-1:] for s in logs].count("\n") == n and n
                        and not (len(data) > self.cap and max(map(len, logs)) > self.cap)):
                    lines = [s[:-1] for s in logs]
                    if b'\\r\\n"' in data:
                        lines = [s[:-1] if s[-1:] == "\r" else s for s in lines]
                    return self._append_block(lines, times, streams, bl, off, nline, terminated)
            except (KeyError, TypeError):
                pass
        pos = off
        last = len(bl) - 1
        for i, raw in enumerate(bl):
            start = pos
            pos += len(raw) + (1 if terminated or i < last else 0)
            no = nline + i + 1
            rec = self._docker_obj(objs[i], no) if objs is not None else self._docker_line(raw, no)
            if rec is not None:
                self.joiner.push(rec[0], rec[1], rec[2], rec[3], start, pos, no)
            elif not terminated and i == last:
                return start, nline + i  # a torn final write: left unread, it may be completed later
        return pos, nline + len(bl)

    def _docker_line(self, raw: bytes, no: int):
        if b"\x00" in raw:
            self.acc.problem(no, "nul_bytes", str(raw.count(b"\x00")))
            raw = raw.replace(b"\x00", b"")
        try:
            obj = _loads(raw)
        except ValueError:
            try:
                s = raw.decode("utf-8")
            except UnicodeDecodeError:
                s = raw.decode("utf-8", "replace")
                bad_utf8 = True
            else:
                bad_utf8 = False
            try:
                obj = json.loads(s)
            except ValueError:
                if self.pasted:
                    return None, None, s.rstrip("\r"), True
                self.acc.problem(no, "malformed_json", s[:200])
                return None
            if bad_utf8:
                self.acc.problem(no, "invalid_utf8")
        return self._docker_obj(obj, no, raw)

    def _docker_obj(self, obj, no: int, raw: bytes | None = None):
        if not isinstance(obj, dict) or not isinstance(obj.get("log"), str):
            shown = raw.decode("utf-8", "replace") if raw is not None else json.dumps(obj)
            self.acc.problem(no, "malformed_json", shown[:200])
            return None
        text = obj["log"]
        if "\x00" in text:
            self.acc.problem(no, "nul_bytes", str(text.count("\x00")))
            text = text.replace("\x00", "")
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates from \ud800-style escapes
                self.acc.problem(no, "invalid_utf8")
                text = text.encode("utf-8", "replace").decode("utf-8")
        complete = text.endswith("\n")
        if complete:
            text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
        stream, ts = obj.get("stream"), obj.get("time")
        ts = ts if isinstance(ts, str) else None
        if ts is not None and not ts.isascii():   # a \ud800-style escape in the time: not a time
            try:
                ts.encode("utf-8")
            except UnicodeEncodeError:
                self.acc.problem(no, "invalid_utf8")
                ts = ts.encode("utf-8", "replace").decode("utf-8")
        stream = stream if isinstance(stream, str) and stream.isascii() else None
        return ts, stream, text, complete

    def docker_long(self, head: bytes, orig: int, newline: bool, off: int, nline: int) -> tuple[int, int]:
        # A single docker entry over the cap cannot be parsed from its first bytes: report and skip it.
        self.acc.problem(nline + 1, "line_too_long", f"{orig} (docker entry skipped)")
        return off + orig + (1 if newline else 0), nline + 1

    # -- CRI ----------------------------------------------------------------------------------------
    def cri(self, data: bytes, off: int, nline: int, terminated: bool = True) -> tuple[int, int]:
        if not self.joiner.queue and b"\x00" not in data:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            done = None if text is None else self._cri_fast(data, text, off, nline, terminated)
            if done is not None:
                return done
        bl = data.split(b"\n")
        if terminated:
            bl.pop()
        pos = off
        last = len(bl) - 1
        for i, raw in enumerate(bl):
            start = pos
            pos += len(raw) + (1 if terminated or i < last else 0)
            no = nline + i + 1
            rec = self._cri_line(raw, no)
            if rec is not None:
                self.joiner.push(rec[0], rec[1], rec[2], rec[3], start, pos, no)
            elif not terminated and i == last:
                return start, nline + i  # a torn final write: left unread, it may be completed later
        return pos, nline + len(bl)

    def _cri_fast(self, data: bytes, text: str, off: int, nline: int, terminated: bool):
        """A block of well-formed F lines is handled in bulk: returns (offset, lines) after it, or
        None when the per-line path is needed."""
        lines = text.split("\n")
        if terminated:
            lines.pop()
        n = len(lines)
        if data.isascii():
            lens = lines
        else:
            lens = data.split(b"\n")
            if terminated:
                lens.pop()
        if len(data) > self.cap and max(map(len, lens)) > self.cap:
            return None
        try:
            parts = [s.split(" ", 3) for s in lines]
            texts = [p[3] for p in parts]
        except IndexError:
            return None
        ts = [p[0] for p in parts]
        streams = [p[1] for p in parts]
        if not ([p[2] for p in parts].count("F") == n
                and streams.count("stdout") + streams.count("stderr") == n
                and "0" <= min(ts)[:1] and max(ts)[:1] <= "9" and min(map(len, ts)) >= 10):
            return None
        if "\r" in text:
            texts = [s[:-1] if s[-1:] == "\r" else s for s in texts]
        return self._append_block(texts, ts, streams, lens, off, nline, terminated)

    def _append_block(self, lines, ts, streams, raw_lines, off: int, nline: int, terminated: bool):
        """Fast paths end here: a whole block of complete one-piece lines goes to the accumulator."""
        n = len(lines)
        ends = list(map(add, accumulate(map(len, raw_lines)), range(off + 1, off + n + 1)))
        if not terminated:
            ends[-1] -= 1
        acc = self.acc
        nos = list(range(nline + 1, nline + n + 1))
        acc.lines += lines
        acc.nos += nos
        acc.ts += ts
        acc.streams += streams
        acc.ends += ends
        acc.elines += nos
        return ends[-1], nline + n

    def _cri_line(self, raw: bytes, no: int):
        s = self._text1(raw, no)
        parts = s.split(" ", 3)
        if len(parts) == 3:
            parts.append("")
        if (len(parts) != 4 or parts[1] not in ("stdout", "stderr") or parts[2] not in ("F", "P")
                or not _looks_ts(parts[0])):
            if self.pasted:
                return None, None, s.rstrip("\r"), True
            self.acc.problem(no, "malformed_cri", s[:200])
            return None
        text = parts[3]
        if text.endswith("\r"):
            text = text[:-1]
        return parts[0], parts[1], text, parts[2] == "F"

    def cri_long(self, head: bytes, orig: int, newline: bool, off: int, nline: int) -> tuple[int, int]:
        no = nline + 1
        end = off + orig + (1 if newline else 0)
        head = _trim_utf8(head)
        rec = self._cri_line(head, no)
        if rec is not None:
            extra = orig - len(head)
            self.joiner.push(rec[0], rec[1], rec[2], rec[3], off, end, no, extra=extra)
        return end, no


def read_chunks(logfile: LogFile, start_offset: int = 0, start_line: int = 0, chunk_lines: int = 100_000,
                *, max_line_bytes: int = MAX_LINE_BYTES, block_size: int = BLOCK_SIZE,
                emit_unterminated: bool = True) -> Iterator[Chunk]:
    """Stream a log file as Chunks of at most ~chunk_lines logical lines, from a decompressed offset.

    start_line is the number of physical lines before start_offset (line numbers continue from it).
    emit_unterminated=False leaves a final line without newline (and a docker/CRI partial never
    completed) unread, for a live file still being written; True (default) emits it, e.g. the last
    words of a killed process. Problems (reason): invalid_utf8, nul_bytes, line_too_long,
    malformed_json, malformed_cri, cri_partial_unterminated, docker_partial_unterminated,
    truncated_gzip, unreadable, binary, offset_beyond_end. A chunk may hold problems and no lines.
    """
    reader = _Reader(logfile, chunk_lines, max_line_bytes)
    acc = reader.acc
    off, nline = start_offset, start_line
    try:
        src = _Opened(logfile.path)
    except (OSError, ValueError) as exc:
        acc.problem(None, "unreadable", f"{type(exc).__name__}: {exc}"[:500])
        yield acc.final(off, nline)
        return
    if reader.fmt == "docker":
        handle, handle_long = reader.docker, reader.docker_long
    elif reader.fmt == "cri":
        handle, handle_long = reader.cri, reader.cri_long
    else:
        handle, handle_long = reader.plain, reader.plain_long
    phys_cap = max_line_bytes + (ENVELOPE_SLACK if reader.fmt in ("docker", "cri") else 0)
    resumed = (start_offset, start_line)  # resume point of the last chunk yielded
    try:
        try:
            first, within = src.skip(start_offset, block_size)
        except _GZIP_ERRORS as exc:
            acc.problem(None, "truncated_gzip", f"{type(exc).__name__}: {exc}"[:500])
            yield acc.final(off, nline)
            return
        except OSError as exc:
            acc.problem(None, "unreadable", f"{type(exc).__name__}: {exc}"[:500])
            yield acc.final(off, nline)
            return
        if not within:
            acc.problem(None, "offset_beyond_end", f"offset {start_offset} is past the end of the file")
            yield acc.final(off, nline)
            return
        check_binary = start_offset == 0
        for item in _blocks(src.read, block_size, phys_cap, first):
            kind = item[0]
            if check_binary and kind != _ERR:
                check_binary = False
                sample = item[1][:BINARY_SAMPLE]
                if _is_binary(sample):
                    acc.problem(None, "binary", f"{len(sample)} bytes sampled")
                    break
            if kind == _DATA:
                off, nline = handle(item[1], off, nline)
            elif kind == _TAIL:
                if emit_unterminated:
                    off, nline = handle(item[1], off, nline, terminated=False)
            elif kind == _LONG:
                if emit_unterminated or item[3]:
                    off, nline = handle_long(item[1], item[2], item[3], off, nline)
            else:
                reason = "truncated_gzip" if item[1] == "gzip" else "unreadable"
                acc.problem(None, reason, f"{type(item[2]).__name__}: {item[2]}"[:500])
            while acc.ready():
                chunk = acc.pop()
                resumed = (chunk.resume_offset, chunk.resume_line)
                yield chunk
    except OSError as exc:
        acc.problem(None, "unreadable", f"{type(exc).__name__}: {exc}"[:500])
    finally:
        src.close()
    off, nline = reader.joiner.finish(emit_unterminated, off, nline)
    if acc.lines or acc.problems or (off, nline) != resumed:
        yield acc.final(off, nline)
