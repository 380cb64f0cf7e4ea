"""The Dask engine: workers read, normalize and write their own event files; the client keys the
messages, commits the manifests and mines what was never seen.

Per task (about one batch of files, `ingest.batch_bytes`), in two rounds:

1. on a worker: plan, read and decode the files, read every line by shape and segment
   (columnar.prepare) and read malformed files line by line. What comes back is small: the
   messages that need a key, in log order, and the line-by-line parts.
2. on the client, in file order: those messages meet the one mask cache (so every message gets
   the key the local engine gives it: the mask cache keeps a message's first raw form), and the
   keys go back to the same worker, which builds the events (columnar.finish), writes the event
   file to the shared store (a folder or an object-store URL), and sums the batch up
   (ingest.aggregate). The client registers the file and applies the sums in the batch's
   transaction, in file order, as the local engine does.

Run it on a LocalCluster (tests, one machine) or on a cluster: `logml ingest SOURCE --engine dask
--scheduler tcp://host:8786`; the log root and the event store must be reachable from the workers.
"""
from __future__ import annotations

import uuid
from collections import deque

from pipeline import columnar, envelope, eventstore
from pipeline.mining import MaskCache, mask

_STATE: dict = {}   # per worker process: its shape cache, mask cache and the prepared batches


def _worker_state(params: dict | None = None) -> dict:
    if not _STATE:
        import duckdb

        from pipeline.ingest import caches
        masks, shapes = caches(params or {"ingest": {}})   # bounded as the local engine's
        # one DuckDB per worker for its casts and sums: a connection costs ~20 ms, a task ~100
        _STATE.update(shapes=shapes, masks=masks, prepared={},
                      con=duckdb.connect(config={"memory_limit": "256MB", "threads": 1}))
    return _STATE


def _mask_ahead(messages: list[str], masks: MaskCache) -> dict[str, str]:
    """{message: masked} of the messages this worker never masked (mask is pure): the client's lookup
    then costs a dict probe, not a regex pass (on the client, masking was the largest serial cost)."""
    need = masks.missing(messages)
    ahead = dict(zip(need, (mask(m, masks.masks) for m in need)))
    masks.lookup(need, ahead)   # remembered: a later batch of this worker does not mask them again
    return ahead


def _address() -> str | None:
    try:
        from dask.distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return None


def prepare_task(group, params, generation: int) -> list[tuple]:
    """Round 1 on a worker: ingest._work_items over a group of files. Returns, in file order,
    ("skip", run, logfile), ("parts", run, logfile, parts) for a file read line by line, and
    ("prepared", worker, token, files, messages, masked_ahead, bad, bad_parts) for a batch."""
    from pipeline.ingest import _work_items, read_file
    state = _worker_state(params)
    manifest = {run.run_id: rows for run, _, rows in group}
    chunk_lines = int(params["ingest"]["chunk_lines"])
    out = []
    for kind, *item in _work_items([(run, lf) for run, lf, _ in group], manifest, params):
        if kind == "file":
            run, logfile = item
            parts = list(read_file(run, logfile, manifest.get(run.run_id, ()), chunk_lines, state["masks"]))
            out.append(("parts", run, logfile, parts))
        elif kind == "batch":
            batch: envelope.Batch = item[0]
            prep = columnar.prepare(batch, chunk_lines, state["shapes"], generation)
            bad_parts = [part for i in batch.bad_files for part in read_file(
                batch.files[i].run, batch.files[i].logfile, manifest.get(batch.files[i].run.run_id, ()),
                chunk_lines, state["masks"])]
            token = uuid.uuid4().hex
            state["prepared"][token] = prep
            messages = prep.messages()
            out.append(("prepared", _address(), token, batch.files, messages, _mask_ahead(messages, state["masks"]),
                        set(batch.bad_files), bad_parts))
        else:
            out.append((kind, *item))
    return out


def finish_task(token: str, keys: list[str], masked_of: dict, ingest_id: int, root: str | None, rel: str):
    """Round 2 on the worker that prepared the batch: its events, written to the store (for a row
    store, the events themselves), and what the commit needs of them."""
    from pipeline.ingest import aggregate
    state = _worker_state()
    prep = state["prepared"].pop(token)
    con = state["con"]
    events, masked_of, _ = columnar.finish(con, prep, keys, masked_of, state["shapes"], ingest_id)
    con.register("batch", events)
    try:
        agg = aggregate(con, "batch", events)
    finally:
        con.unregister("batch")
    if root is None:
        return events, agg, masked_of
    written = eventstore.EventStore(root).write(events.select(list(eventstore.COLUMNS)), rel) \
        if events.num_rows else events.slice(0, 0)
    return written, agg, masked_of


def rekey(parts, masks: MaskCache) -> None:
    """Line-by-line parts a worker read: their message keys from the client's mask cache, in order
    (the worker's own cache may have met another raw form first)."""
    for part in parts:
        if part.events:
            part.keys, part.masked_of = masks.lookup([e[8] for e in part.events])


def groups_of(files, manifest, batch_bytes: int) -> list[list]:
    """Files in order, cut into tasks of about one batch of bytes each."""
    groups, group, size = [], [], 0
    for run, logfile in files:
        group.append((run, logfile, manifest.get(run.run_id, ())))
        size += logfile.size or 0
        if size >= batch_bytes:
            groups.append(group)
            group, size = [], 0
    if group:
        groups.append(group)
    return groups


def run(files, manifest, params, client, masks: MaskCache, sink: eventstore.Sink, on_prepared, on_parts,
        on_skip, commit, in_flight: int = 4) -> None:
    """The client's loop: round-1 tasks `in_flight` ahead, their messages keyed in file order, round-2
    tasks pinned to the worker holding the batch, commits in file order."""
    batch_bytes = int(params["ingest"].get("batch_bytes", columnar.BATCH_BYTES))
    groups = groups_of(files, manifest, batch_bytes)
    root = sink.es.root if sink.es is not None else None
    futures: dict[int, object] = {}
    pending: deque = deque()

    def drain(keep: int) -> None:
        while len(pending) > keep:
            future, files_, bad, bad_parts = pending.popleft()
            written, agg, masked_of = future.result()
            commit(files_, bad, written, agg, masked_of, bad_parts)

    for i in range(len(groups)):
        for j in range(i, min(i + in_flight, len(groups))):
            if j not in futures:
                futures[j] = client.submit(prepare_task, groups[j], params, masks.generation, pure=False)
        for kind, *item in futures.pop(i).result():
            if kind == "prepared":
                worker, token, files_, messages, masked_ahead, bad, bad_parts = item
                on_prepared(files_)
                keys, masked_of = masks.lookup(messages, masked_ahead)
                rekey(bad_parts, masks)
                rel = sink.next_name()
                future = client.submit(finish_task, token, keys, masked_of, sink.ingest_id, root, rel, pure=False,
                                       workers=[worker] if worker else None, allow_other_workers=False)
                pending.append((future, files_, bad, bad_parts))
                drain(in_flight)
                continue
            drain(0)   # everything else commits after the batches before it
            if kind == "parts":
                rekey(item[2], masks)
                on_parts(*item)
            else:
                on_skip(*item)
    drain(0)
