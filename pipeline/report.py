"""The weekly reliability report: DuckDB aggregates -> one JSON-able dict -> HTML, Markdown, JSON.

Contract:
  build_report(con, week="2026-W48", inventory=None, top=10) -> dict      # plain JSON-able
  write_report(report, out_dir) -> {"html": Path, "md": Path, "json": Path}
  report_command(db, week, out, inventory_root) -> same dict of paths       # for `logml report`
  default_week(con) -> "YYYY-Www"   # the last complete ISO week with runs
  empty_week_hint(con, week) -> str | None   # where the runs are when the week has none

Definitions (all computed in SQL over the warehouse; Python only touches per-category aggregates):
  run time      coalesce(started_at, first_ts, the start of the ingest that first met it); a run belongs
                to the ISO week (UTC) of that time
  duration      finished_at - started_at, else last_ts - first_ts (unknown when neither pair is set)
  GPU run       image/tag mentions gpu/cuda, Paddle printed GPU facts, or labels ask for GPUs
  GPUs          labels.gpu_count, else labels.gpus when it is a count or a device list, else 1
  GPU-hours     duration x GPUs for GPU runs; "lost" = GPU-hours of failed runs
  failed        the prediction's category is not no_failure; runs without a prediction count as
                failed ("unclassified") when their exit code is non-zero or they were OOM-killed
  image CUDA    cuda(\\d+.\\d+) in the image tag, else the "Runtime API Version" Paddle printed
  host max CUDA inventory.cuda_driver_max, else the "Driver API Version" Paddle printed
  week-over-week significance: conditional binomial test of (this, last) counts given their sum,
                with the weeks' run totals as exposure (exact for n <= 3000, normal beyond)
  concentration lift: the category's rate on a host/image/driver over its fleet-wide rate; a
                value "concentrates" when lift >= 2, >= 2 runs and a one-sided binomial p < 0.05

Untrusted text: every string from the fleet (log lines, templates, hosts, images, labels, even
category ids) is cleaned at build time (lone surrogates -> U+FFFD, ANSI/OSC escapes, control and
bidi-override characters removed, length capped) and escaped again for each output format: HTML
with html.escape (plus a CSP that forbids scripts), Markdown by backslash-escaping punctuation and
putting log text in code spans sized past the longest backtick run. The HTML loads nothing.
"""
from __future__ import annotations

import datetime as dt
import html
import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from pipeline.rules import load_rules
from pipeline.taxonomy import NO_FAILURE, UNKNOWN, load_taxonomy

SCHEMA = "logml.report/1"
UNCLASSIFIED = "unclassified"
CODE_ERROR = "code_error"
LOW_CONFIDENCE = 0.5
FAILURE_LEVELS = ("ERROR", "FATAL", "CRITICAL")
INVENTORY_COLUMNS = ["host", "gpu_model", "driver_version", "cuda_driver_max", "node_pool"]

# --------------------------------------------------------------------------------------------------
# Untrusted text

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def clean(value: Any, limit: int = 400, one_line: bool = True) -> str:
    """Fleet text -> safe plain text (not yet escaped for any format)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bytes):
        s = value.decode("utf-8", "replace")
    else:
        s = str(value)
    # lone surrogates (from surrogateescape'd bytes or broken JSON) -> U+FFFD
    s = s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    s = _ANSI.sub("", s)
    if one_line:
        s = s.replace("\r\n", "\n").replace("\n", " \u23ce ").replace("\t", " ")
    s = _CONTROL.sub("", s.replace("\r", ""))
    if len(s) > limit:
        s = s[: limit - 1] + "\u2026"
    return s


_ERRORISH = re.compile(r"(Error|Exception|error|FATAL|Fatal|fatal|Killed|failed|Failed|Aborted|Segmentation|"
                       r"not registered|No such file|cannot open|No space|insufficient|CUDA error)")


def summary_line(text: Any, limit: int = 300) -> str:
    """The informative line of a (possibly multi-line) log block: the last error-looking line that is
    not a traceback header or separator, else the last non-empty line."""
    if text is None:
        return ""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    if len(lines) <= 1:
        return clean(lines[0] if lines else "", limit)
    boring = re.compile(r"^(-+|=+|Traceback \(most recent call last\):|C\+\+ Traceback.*|Error Message Summary:|"
                        r"File \".*|\d+\s+\S.*\(.*\).*)$")
    exc = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Exit|Interrupt)\b\s*:", ln)]
    good = exc or [ln for ln in lines if _ERRORISH.search(ln) and not boring.match(ln)]
    pick = good[-1] if good else next((ln for ln in reversed(lines) if not boring.match(ln)), lines[-1])
    return clean(pick, limit)


def h(value: Any, limit: int = 400) -> str:
    """Escape for HTML text and attribute values."""
    return html.escape(clean(value, limit), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&:])")


def md(value: Any, limit: int = 200) -> str:
    """Escape for Markdown (inline, table cells included)."""
    return _MD_SPECIAL.sub(r"\\\1", clean(value, limit))


def md_code(value: Any, limit: int = 300, in_table: bool = False) -> str:
    """Render fleet text as a Markdown code span that no content can break out of."""
    s = clean(value, limit)
    if in_table:
        s = s.replace("|", "\u2758")   # GFM splits cells on | even inside code spans
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    return f"{fence} {s} {fence}" if s else "` `"


# --------------------------------------------------------------------------------------------------
# Weeks and statistics


def parse_week(week: str) -> tuple[dt.date, dt.date]:
    m = re.fullmatch(r"\s*(\d{4})-?W(\d{1,2})\s*", str(week), re.IGNORECASE)
    if not m:
        raise ValueError(f"week must look like 2026-W48, got {week!r}")
    start = dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    return start, start + dt.timedelta(days=7)


def week_of(day: dt.date) -> str:
    y, w, _ = day.isocalendar()
    return f"{y}-W{w:02d}"


# A run's time: when its container started, else its first timestamped line, else (a log whose lines carry
# no time the reader understands: Slurm output, a console capture) its log file's modification time when
# first read, else (a store that gives none) when an ingest first met it; so that it is counted in some
# week, and the report says how many were dated each way.
RUN_TIME_SQL = """(SELECT r.run_id, coalesce(r.started_at, r.first_ts, f.mtime, i.started_at) AS t,
                          coalesce(r.started_at, r.first_ts) IS NULL AND f.mtime IS NOT NULL AS dated_by_file,
                          coalesce(r.started_at, r.first_ts, f.mtime) IS NULL AS dated_by_ingest
                   FROM runs r LEFT JOIN ingests i ON i.ingest_id = r.first_ingest
                   LEFT JOIN (SELECT run_id, min(mtime) AS mtime FROM files GROUP BY run_id) f USING (run_id))"""


def default_week(con, today: dt.date | None = None) -> str:
    """The last complete ISO week with runs: the newest run's week once the UTC clock has passed its
    end (an archive that stops on a Sunday, reported on Monday), else the week before it (a fleet
    still writing this week's runs)."""
    rows = con.execute(f"SELECT max(t) FROM {RUN_TIME_SQL}").fetchall()
    newest = rows[0][0] if rows else None
    if newest is None:
        raise ValueError("the warehouse has no runs: ingest logs first")
    today = today or dt.datetime.now(dt.timezone.utc).date()
    newest_week = week_of(newest.date())
    if today >= parse_week(newest_week)[1]:
        return newest_week
    return week_of(newest.date() - dt.timedelta(days=7))


def empty_week_hint(con, week: str) -> str | None:
    """Where the runs are when ``week`` has none (the default week is the last *complete* one: a
    warehouse whose runs all fall in the current week has an empty default)."""
    start, end = parse_week(week)
    rows = con.execute(f"""SELECT count(*) FILTER (t >= $start AND t < $end), min(t), max(t)
                          FROM {RUN_TIME_SQL}""",
                       {"start": dt.datetime.combine(start, dt.time()), "end": dt.datetime.combine(end, dt.time())}).fetchone()
    n, first, last = rows
    if n or last is None:
        return None
    weeks = sorted({week_of(first.date()), week_of(last.date())})
    return (f"{week} has no runs; the warehouse's runs fall in {' to '.join(weeks)}: "
            f"pass --week {week_of(last.date())} for the newest (its report is partial until the week ends)")


def _log_binom_pmf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def _norm_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def binom_two_sided(k: int, n: int, p: float) -> float:
    """Exact two-sided binomial test p-value (method of small p-values; normal approx for big n)."""
    if n <= 0:
        return 1.0
    if n > 3000:
        sd = math.sqrt(n * p * (1 - p)) or 1e-12
        z = (abs(k - n * p) - 0.5) / sd
        return min(1.0, 2 * _norm_sf(max(z, 0.0)))
    logs = [_log_binom_pmf(i, n, p) for i in range(n + 1)]
    cut = logs[k] + 1e-7
    return min(1.0, sum(math.exp(v) for v in logs if v <= cut))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if n > 3000:
        sd = math.sqrt(n * p * (1 - p)) or 1e-12
        return _norm_sf((k - 0.5 - n * p) / sd)
    return min(1.0, sum(math.exp(_log_binom_pmf(i, n, p)) for i in range(k, n + 1)))


def wow_change(this: int, last: int, n_this: int, n_last: int) -> dict:
    """Week-over-week change of a count, with a significance mark that respects small counts."""
    change = None if last == 0 else round(100.0 * (this - last) / last, 1)
    p_value = None
    if n_this > 0 and n_last > 0 and this + last > 0:
        p_value = binom_two_sided(this, this + last, n_this / (n_this + n_last))
    rate_this = this / n_this if n_this else None
    rate_last = last / n_last if n_last else None
    direction = "up" if this > last else "down" if this < last else ""
    rate_direction = ""
    if rate_this is not None and rate_last is not None and rate_this != rate_last:
        rate_direction = "up" if rate_this > rate_last else "down"
    stars = ""
    if p_value is not None:
        stars = "***" if p_value < 0.001 else "**" if p_value < 0.01 else "*" if p_value < 0.05 else ""
    status = "new" if last == 0 and this > 0 else "gone" if this == 0 and last > 0 else (
        rate_direction if stars and rate_direction else "flat")
    return {"this": this, "last": last, "change_pct": change, "p_value": None if p_value is None else round(p_value, 6),
            "significant": bool(stars), "mark": stars, "direction": direction,
            "rate_direction": rate_direction, "status": status}


def _pct(this: float | None, last: float | None) -> float | None:
    if this is None or last in (None, 0):
        return None
    return round(100.0 * (this - last) / last, 1)


def _version_key(v: str | None) -> tuple:
    if not v:
        return ()
    return tuple(int(x) for x in re.findall(r"\d+", str(v))[:4])


# --------------------------------------------------------------------------------------------------
# SQL


def _has_table(con, name: str) -> bool:
    rows = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]).fetchall()
    return bool(rows and rows[0][0])


def _inventory_relation(con, inventory: pd.DataFrame | None) -> str:
    """Name of a relation with INVENTORY_COLUMNS: the warehouse table if any, else the DataFrame."""
    if _has_table(con, "inventory"):
        cols = {r[0] for r in con.execute("DESCRIBE inventory").fetchall()}
        sel = ", ".join(f"CAST({c} AS VARCHAR) AS {c}" if c in cols else f"CAST(NULL AS VARCHAR) AS {c}"
                        for c in INVENTORY_COLUMNS)
        con.execute(f"CREATE OR REPLACE TEMP VIEW _rep_inv AS SELECT {sel} FROM inventory")
        return "_rep_inv"
    frame = pd.DataFrame(columns=INVENTORY_COLUMNS) if inventory is None else inventory.copy()
    for c in INVENTORY_COLUMNS:
        if c not in frame.columns:
            frame[c] = None
    frame = frame[INVENTORY_COLUMNS].astype(object).where(frame[INVENTORY_COLUMNS].notna(), None)
    frame = frame.map(lambda v: None if v is None else str(v))
    frame = frame.drop_duplicates("host", keep="last")
    con.register("_rep_inv_df", frame)
    con.execute("CREATE OR REPLACE TEMP VIEW _rep_inv AS SELECT * FROM _rep_inv_df")
    return "_rep_inv"


_BASE_SQL = """
CREATE OR REPLACE TEMP TABLE _rep_runs AS
WITH img AS (
    SELECT image, mode(CAST(runtime_api AS VARCHAR)) AS runtime_api FROM runs
    WHERE runtime_api IS NOT NULL AND image IS NOT NULL GROUP BY image
), r AS (
    SELECT r.run_id, r.host, r.image, r.image_tag, r.exit_code, r.oom_killed, r.labels, r.n_events,
           r.runtime_api, r.driver_api, r.compute_capability,
           rt.t, rt.dated_by_file, rt.dated_by_ingest,
           CASE WHEN r.started_at IS NOT NULL AND r.finished_at IS NOT NULL
                     AND r.finished_at >= r.started_at
                THEN date_diff('millisecond', r.started_at, r.finished_at) / 3600000.0
                WHEN r.first_ts IS NOT NULL AND r.last_ts IS NOT NULL AND r.last_ts >= r.first_ts
                THEN date_diff('millisecond', r.first_ts, r.last_ts) / 3600000.0 END AS hours,
           try_cast(try(json_extract_string(r.labels, '$.gpu_count')) AS INTEGER) AS l_count,
           try(json_extract_string(r.labels, '$.gpus')) AS l_gpus,
           coalesce(try(json_extract_string(r.labels, '$.job')), try(json_extract_string(r.labels, '$."job-name"')),
                    try(json_extract_string(r.labels, '$.app')),
                    try(json_extract_string(r.labels, '$."app.kubernetes.io/name"'))) AS job,
           -- the ranks of one distributed launch: a launcher's log/workerlog.N folder, or the pods of one
           -- Kubeflow / Volcano job (an app label spans many launches: not one); without their labels (a CRI
           -- log folder keeps none), the pods the operators name <job>-<replica type>-<index>
           coalesce(nullif(regexp_extract(r.run_id, '^(.*)/workerlog[.][0-9]+([.]gz)?$', 1), ''),
                    coalesce(r.namespace, '') || '/' || coalesce(
                        try(json_extract_string(r.labels, '$."training.kubeflow.org/job-name"')),
                        try(json_extract_string(r.labels, '$."volcano.sh/job-name"')),
                        nullif(regexp_extract(coalesce(r.pod, ''),
                               '^(.+)-(?:worker|master|ps|launcher|trainer|server|heter|coordinator|chief)-[0-9]+$', 1),
                               ''))) AS launch,
           r.last_ts
    FROM runs r JOIN """ + RUN_TIME_SQL + """ rt USING (run_id)
    WHERE rt.t >= $prev_start AND rt.t < $end
)
SELECT r.run_id, coalesce(r.host, '?') AS host, coalesce(r.image, '?') AS image, r.image_tag, r.job, r.launch,
       coalesce(r.last_ts, r.t) AS ended, CAST(NULL AS VARCHAR) AS caused_by,
       r.t, r.dated_by_file, r.dated_by_ingest, CAST(r.t AS DATE) AS day, CASE WHEN r.t >= $start THEN 'this' ELSE 'last' END AS wk,
       r.hours,
       (coalesce(r.image, '') || ' ' || coalesce(r.image_tag, '')) ILIKE '%gpu%'
         OR (coalesce(r.image, '') || ' ' || coalesce(r.image_tag, '')) ILIKE '%cuda%'
         OR r.runtime_api IS NOT NULL OR r.compute_capability IS NOT NULL
         OR coalesce(r.l_count, 0) > 0 OR coalesce(r.l_gpus, '') <> '' AS is_gpu,
       greatest(1, coalesce(
           nullif(r.l_count, 0),
           try_cast(r.l_gpus AS INTEGER),
           CASE WHEN regexp_full_match(coalesce(r.l_gpus, ''), '[0-9]+(,[0-9]+)+')
                THEN len(string_split(r.l_gpus, ',')) END,
           1)) AS gpus,
       coalesce(nullif(regexp_extract(coalesce(r.image_tag, r.image, ''), 'cuda(\\d+\\.\\d+)', 1), ''),
                CAST(r.runtime_api AS VARCHAR), img.runtime_api) AS image_cuda,
       nullif(regexp_extract(coalesce(r.image_tag, r.image, ''), 'cuda(\\d+\\.\\d+)', 1), '') AS tag_cuda,
       coalesce(i.cuda_driver_max, CAST(r.driver_api AS VARCHAR)) AS driver_max,
       coalesce(i.driver_version, 'unknown') AS driver_version,
       coalesce(split_part(i.driver_version, '.', 1), 'unknown') AS driver_branch,
       i.gpu_model, i.node_pool,
       p.run_id IS NOT NULL AS predicted,
       coalesce(p.category,
                CASE WHEN coalesce(r.exit_code, 0) <> 0 OR coalesce(r.oom_killed, false)
                     THEN '""" + UNCLASSIFIED + """' ELSE '""" + NO_FAILURE + """' END) AS category,
       p.confidence, p.source, p.rule_id, p.model_category, p.model_confidence, p.evidence, p.remedy_id,
       -- an unknown whose fault a line names (a GPU that failed, a time limit): known, nothing to label
       p.category = '""" + UNKNOWN + """' AND coalesce(p.remedy_id, '') <> '' AS fault_known,
       CAST(NULL AS VARCHAR) AS own_category,
       -- a run logml could not judge and that shows no failure (an empty file, a server answering requests
       -- whose log shows no sign of an ML job): unknown, but not a failed run; one whose fault a line names
       -- (a job the scheduler ended at its time limit) was judged
       p.category = '""" + UNKNOWN + """' AND coalesce(r.exit_code, 0) = 0 AND NOT coalesce(r.oom_killed, false)
         AND coalesce(p.remedy_id, '') = ''
         AND (coalesce(r.n_events, 0) = 0
              OR try(json_extract_string(p.alternatives, '$[0].category')) = '""" + NO_FAILURE + """') AS not_judged,
       CAST(NULL AS BOOLEAN) AS failed
FROM r
-- a person's label (`logml label`) is the run's cause: the prediction's remedy stands only where they agree
LEFT JOIN (SELECT p.* REPLACE (coalesce(lb.category, p.category) AS category,
                               CASE WHEN lb.category IS NULL OR lb.category = p.category THEN p.remedy_id END AS remedy_id)
           FROM predictions p LEFT JOIN labels lb USING (run_id)) p USING (run_id)
LEFT JOIN _rep_inv i ON i.host = r.host
LEFT JOIN img ON img.image = r.image
"""


# What one rank's failure leaves on its peers (NCCL errors, a collective's timeout, a SIGTERM taken for
# `unknown`) is not their cause: in a launch where a rank failed of a cause of its own, its peers' runs
# count under that cause, the earliest to fail first (`caused_by` names it, `own_category` keeps the
# peer's verdict). `unknown` is a cause of its own only when a deciding remedy says so (a GPU that failed).
_PEERS_SQL = """
UPDATE _rep_runs SET caused_by = roots.root, category = roots.root_category
FROM (SELECT launch, arg_min(run_id, (ended, run_id)) AS root, arg_min(category, (ended, run_id)) AS root_category
      FROM _rep_runs
      WHERE launch IS NOT NULL AND (category NOT IN ($comm, $ok, $unknown, $unclassified)
            OR (category = $unknown AND (list_contains($decided, remedy_id)
                OR (remedy_id IS NULL AND regexp_matches(coalesce(CAST(evidence AS VARCHAR), ''), $decides)))))
      GROUP BY launch) roots
WHERE _rep_runs.launch = roots.launch AND _rep_runs.run_id <> roots.root
  AND _rep_runs.category IN ($comm, $unknown)
  AND NOT (_rep_runs.category = $unknown AND (list_contains($decided, _rep_runs.remedy_id)
           OR (_rep_runs.remedy_id IS NULL
               AND regexp_matches(coalesce(CAST(_rep_runs.evidence AS VARCHAR), ''), $decides))))
"""
COMM_FAILURE = "distributed_comm_failure"


def _attribute_to_peers(con) -> None:
    con.execute("UPDATE _rep_runs SET own_category = category")
    remedies = [r for r in load_rules().remedies if r.decides]
    decides = "|".join(f"(?:{p})" for r in remedies for p in r.when) or "$^"
    con.execute(_PEERS_SQL, {"comm": COMM_FAILURE, "ok": NO_FAILURE, "unknown": UNKNOWN,
                             "unclassified": UNCLASSIFIED, "decides": "(?i)" + decides,
                             "decided": [r.id for r in remedies] or [""]})
    con.execute(f"UPDATE _rep_runs SET failed = category <> '{NO_FAILURE}' AND NOT (coalesce(not_judged, false) "
                f"AND category = '{UNKNOWN}')")


def _df(con, sql: str, params: dict | list | None = None) -> pd.DataFrame:
    return con.execute(sql, params or []).df()


def _rows(frame: pd.DataFrame) -> list[dict]:
    out = []
    for rec in frame.to_dict("records"):
        out.append({k: _plain(v) for k, v in rec.items()})
    return out


def _plain(v: Any) -> Any:
    """numpy/pandas scalars -> JSON-able Python values; strings cleaned."""
    if v is None:
        return None
    if isinstance(v, str):
        return clean(v, 2000, one_line=False)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "tolist") and not isinstance(v, (pd.Timestamp,)):
        v = v.tolist()
        if isinstance(v, list):
            return [_plain(x) for x in v]
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 4)
    if isinstance(v, (pd.Timestamp, dt.datetime, dt.date)):
        return None if pd.isna(v) else v.isoformat()
    if v is pd.NaT:
        return None
    return v


# --------------------------------------------------------------------------------------------------
# Build


def build_report(con, week: str, inventory: pd.DataFrame | None = None, top: int = 10) -> dict:
    """Aggregate one ISO week (and the one before it) of the warehouse into a JSON-able dict."""
    tax = load_taxonomy()
    start, end = parse_week(week)
    prev_start = start - dt.timedelta(days=7)
    week = week_of(start)
    prev_week = week_of(prev_start)
    params = {"start": dt.datetime.combine(start, dt.time()), "end": dt.datetime.combine(end, dt.time()),
              "prev_start": dt.datetime.combine(prev_start, dt.time())}
    _inventory_relation(con, inventory)
    con.execute(_BASE_SQL, params)
    _attribute_to_peers(con)

    report: dict[str, Any] = {
        "schema": SCHEMA, "week": week, "start": start.isoformat(), "end": end.isoformat(),
        "previous_week": prev_week, "generated_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        # a week still under way: its counts are partial, and week over week compares a part with a whole
        "week_complete": dt.datetime.now(dt.timezone.utc).date() >= end,
        "taxonomy_version": tax.version, "inventory": bool(_has_table(con, "inventory") or inventory is not None),
    }

    # ---- headline
    hl = _df(con, f"""
        SELECT wk, count(*) AS runs, count(*) FILTER (failed) AS failed,
               count(*) FILTER (category = '{UNKNOWN}' AND NOT failed) AS not_judged,
               count(DISTINCT host) AS hosts,
               coalesce(sum(hours * gpus) FILTER (is_gpu), 0) AS gpu_hours,
               coalesce(sum(hours * gpus) FILTER (is_gpu AND failed), 0) AS gpu_hours_lost,
               count(*) FILTER (is_gpu AND hours IS NULL) AS gpu_runs_no_duration,
               count(*) FILTER (NOT predicted) AS unpredicted,
               count(*) FILTER (dated_by_file) AS dated_by_file,
               count(*) FILTER (dated_by_ingest) AS dated_by_ingest,
               count(*) FILTER (caused_by IS NOT NULL) AS caused_by_peer
        FROM _rep_runs GROUP BY wk""").set_index("wk")

    def hv(wk: str, col: str) -> float:
        return float(hl.loc[wk, col]) if wk in hl.index else 0.0

    n_this, n_last = int(hv("this", "runs")), int(hv("last", "runs"))
    f_this, f_last = int(hv("this", "failed")), int(hv("last", "failed"))
    rate_this = f_this / n_this if n_this else None
    rate_last = f_last / n_last if n_last else None
    report["headline"] = {
        "runs": {"this": n_this, "last": n_last, "change_pct": _pct(n_this, n_last)},
        "failed_runs": wow_change(f_this, f_last, n_this, n_last) | {"change_pct": _pct(f_this, f_last)},
        "failure_rate": {"this": None if rate_this is None else round(rate_this, 6),
                         "last": None if rate_last is None else round(rate_last, 6),
                         "change_pts": None if rate_this is None or rate_last is None
                         else round(100 * (rate_this - rate_last), 2)},
        "gpu_hours_lost": {"this": round(hv("this", "gpu_hours_lost"), 1), "last": round(hv("last", "gpu_hours_lost"), 1),
                           "change_pct": _pct(hv("this", "gpu_hours_lost"), hv("last", "gpu_hours_lost"))},
        "gpu_hours": {"this": round(hv("this", "gpu_hours"), 1), "last": round(hv("last", "gpu_hours"), 1)},
        "hosts": {"this": int(hv("this", "hosts")), "last": int(hv("last", "hosts"))},
        "gpu_runs_without_duration": int(hv("this", "gpu_runs_no_duration")),
        "unclassified_runs": int(hv("this", "unpredicted")),
        # runs whose log prints no timestamp: dated by their log file's modification time, else the ingest
        "runs_dated_by_file_time": int(hv("this", "dated_by_file")),
        "runs_dated_by_ingest": int(hv("this", "dated_by_ingest")),
        # ranks whose errors followed a peer's failure, counted under that peer's cause
        "runs_caused_by_a_peer": int(hv("this", "caused_by_peer")),
        # unknown runs that show no failure (an empty file, a server's requests): not counted as failed
        "runs_not_judged": int(hv("this", "not_judged")),
    }

    # ---- per-category aggregates (all failure categories, both weeks)
    cats = _df(con, """
        SELECT category,
               count(*) FILTER (wk = 'this') AS runs, count(*) FILTER (wk = 'last') AS runs_last,
               count(DISTINCT host) FILTER (wk = 'this') AS hosts,
               count(DISTINCT image) FILTER (wk = 'this') AS images,
               coalesce(sum(hours * gpus) FILTER (wk = 'this' AND is_gpu), 0) AS gpu_hours,
               coalesce(sum(hours * gpus) FILTER (wk = 'last' AND is_gpu), 0) AS gpu_hours_last,
               count(*) FILTER (wk = 'this' AND caused_by IS NOT NULL) AS peer_runs,
               -- a distributed launch's ranks fail as one incident
               count(DISTINCT coalesce(launch, run_id)) FILTER (wk = 'this') AS incidents,
               count(DISTINCT coalesce(launch, run_id)) FILTER (wk = 'last') AS incidents_last
        FROM _rep_runs WHERE failed GROUP BY category""")
    # the runs that failed of the cause first (a launch's first rank before the peers that followed it)
    drill = _df(con, """
        SELECT category, list(run_id ORDER BY peer, gpu_h DESC NULLS LAST, t DESC, run_id) AS run_ids FROM (
            SELECT category, run_id, t, hours * gpus AS gpu_h, caused_by IS NOT NULL AS peer,
                   row_number() OVER (PARTITION BY category ORDER BY caused_by IS NOT NULL, hours * gpus DESC NULLS LAST,
                                                                     t DESC, run_id) AS rn
            FROM _rep_runs WHERE wk = 'this' AND failed) WHERE rn <= 5
        GROUP BY category""")
    drill_map = {r["category"]: list(r["run_ids"]) for r in drill.to_dict("records")}
    ev = _df(con, """
        WITH e AS (
            SELECT category, run_id,
                   unnest(try(from_json(evidence, '[{"line":"BIGINT","text":"VARCHAR","template_id":"VARCHAR"}]'))) AS e
            FROM _rep_runs WHERE wk = 'this' AND failed AND evidence IS NOT NULL
                 AND caused_by IS NULL),
        g AS (
            SELECT category, coalesce(e.template_id, left(e.text, 200)) AS tid,
                   count(DISTINCT run_id) AS runs, arg_min(left(e.text, 2000), run_id) AS text,
                   arg_min(e.line, run_id) AS line, min(run_id) AS run_id, any_value(e.template_id) AS template_id
            FROM e WHERE e.text IS NOT NULL GROUP BY ALL)
        SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY category ORDER BY runs DESC, tid) AS rn FROM g)
        WHERE rn <= 3 ORDER BY category, rn""")
    ev_map: dict[str, list[dict]] = {}
    for rec in _rows(ev.drop(columns=["rn", "tid"])):
        rec["summary"] = summary_line(rec["text"])
        said = ev_map.setdefault(rec.pop("category"), [])
        if all(e["summary"] != rec["summary"] for e in said):   # a block and its message line say one thing
            said.append(rec)

    # narrower remedies (rules.yaml `remedies`): what their evidence says, counted per category
    narrower: dict[str, dict[str, list[str]]] = {}
    rules = load_rules()
    if rules.remedies:
        # per category, remedy -> its runs' hosts (a drained node, a mount to fix: where is it)
        for cid, rid, hosts in con.execute("""
                SELECT category, remedy_id, list(host ORDER BY host) FROM _rep_runs
                WHERE wk = 'this' AND failed AND caused_by IS NULL AND coalesce(remedy_id, '') <> ''
                GROUP BY ALL""").fetchall():
            narrower.setdefault(cid, {})[rid] = list(hosts)
        # verdicts stored before the warehouse kept their remedy: chosen again from their evidence
        per_run = con.execute("""
            SELECT category, any_value(host), list(e.text) FROM (
                SELECT category, run_id, host,
                       unnest(try(from_json(evidence, '[{"text":"VARCHAR"}]'))) AS e
                FROM _rep_runs WHERE wk = 'this' AND failed AND evidence IS NOT NULL
                     AND caused_by IS NULL AND remedy_id IS NULL)
            GROUP BY category, run_id""").fetchall()
        for cid, host, texts in per_run:
            found = rules.remedy_for(cid, texts, texts)   # the evidence is all of the log the warehouse keeps here
            if found is not None:
                narrower.setdefault(cid, {}).setdefault(found.id, []).append(host)
    by_id = {r.id: r for r in rules.remedies}

    total_failed = f_this
    ranking, others = [], []
    for rec in cats.to_dict("records"):
        cid = str(rec["category"])
        known = cid in tax
        row = {
            "category": clean(cid, 120), "title": tax.title(cid) if known else clean(cid, 120),
            "environment": bool(known and tax.is_environment(cid)),
            "runs": int(rec["runs"]), "runs_last": int(rec["runs_last"]),
            "hosts": int(rec["hosts"]), "images": int(rec["images"]), "peer_runs": int(rec["peer_runs"]),
            "share_of_failures": round(rec["runs"] / total_failed, 4) if total_failed else 0.0,
            "gpu_hours": round(float(rec["gpu_hours"]), 1), "gpu_hours_last": round(float(rec["gpu_hours_last"]), 1),
            "incidents": int(rec["incidents"]), "incidents_last": int(rec["incidents_last"]),
            # week over week in incidents: a 64-rank job that failed once is one failure, not 64
            "change": wow_change(int(rec["incidents"]), int(rec["incidents_last"]), n_this, n_last),
            "remedy": tax.remedy(cid) if known else "",
            # [{id, runs, hosts, description, remedy}]: families of this category with a fix of their own
            "remedies": [{"id": rid, "runs": len(hosts), "hosts": sorted(set(hosts)), "description": by_id[rid].description,
                          "remedy": by_id[rid].remedy}
                         for rid, hosts in sorted(narrower.get(cid, {}).items(), key=lambda kv: (-len(kv[1]), kv[0]))
                         if rid in by_id],   # a remedy the rules have since dropped is the category's
            "evidence": ev_map.get(cid, []),
            "run_ids": [clean(x, 300) for x in drill_map.get(cid, [])],
        }
        narrow = row["remedies"]
        if len(narrow) == 1 and narrow[0]["runs"] >= row["runs"] - row["peer_runs"] > 0:
            # every run of the week's is of that family: its fix leads (the CPU wheel is not a toolkit to install)
            row["category_remedy"], row["remedy"] = row["remedy"], narrow[0]["remedy"]
        if row["environment"]:
            ranking.append(row)
        elif cid != CODE_ERROR:   # the job's own errors have their own section, by owner
            # what its families with a fix of their own and the peers counted under them leave: runs no line
            # names a fault for (so the listed families and these add up to the row's runs)
            row["unnamed_runs"] = max(0, row["runs"] - row["peer_runs"] - sum(n["runs"] for n in narrow))
            others.append(row)
    order = lambda r: (-r["incidents"], -r["runs"], -r["gpu_hours"], -r["runs_last"], r["category"])  # noqa: E731
    ranking.sort(key=order)
    others.sort(key=order)
    for i, row in enumerate(ranking, 1):
        row["rank"] = i
    report["ranking"] = ranking
    report["ranking_basis"] = ("incidents this week (the ranks of one distributed launch are one), then runs affected, "
                               "then GPU-hours lost")
    report["other_failures"] = others
    report["job_errors"] = _job_errors(con, top)

    # ---- concentration for the top categories
    top_cats = [r["category"] for r in ranking if r["runs"] > 0][: min(5, max(1, top))]
    if any(r["category"] == "cuda_driver_too_old" and r["runs"] > 0 for r in ranking) \
            and "cuda_driver_too_old" not in top_cats:
        top_cats.append("cuda_driver_too_old")
    report["concentration"] = [_concentration(con, c, n_this, top) for c in top_cats]

    # ---- templates new / gone
    report["templates"] = _templates(con, params, top)

    # ---- trend and heatmap data
    trend_cats = [r["category"] for r in ranking if r["runs"] + r["runs_last"] > 0][:5]
    daily = _df(con, """
        SELECT day, category, count(*) AS runs FROM _rep_runs
        WHERE list_contains($cats, category) GROUP BY ALL ORDER BY day, category""", {"cats": trend_cats})
    days = [(prev_start + dt.timedelta(days=i)).isoformat() for i in range(14)]
    series = {c: [0] * 14 for c in trend_cats}
    for rec in daily.to_dict("records"):
        i = (pd.Timestamp(rec["day"]).date() - prev_start).days
        if 0 <= i < 14:
            series[rec["category"]][i] = int(rec["runs"])
    report["daily"] = {"days": days, "series": series}

    hm_cats = [r["category"] for r in ranking if r["runs"] > 0][:8]
    hm = _df(con, """
        WITH f AS (SELECT host, category FROM _rep_runs WHERE wk = 'this' AND failed),
        top_hosts AS (SELECT host, count(*) AS n FROM f WHERE list_contains($cats, category)
                      GROUP BY host ORDER BY n DESC, host LIMIT 25)
        SELECT f.host, f.category, count(*) AS runs, any_value(top_hosts.n) AS n FROM f JOIN top_hosts USING (host)
        WHERE list_contains($cats, f.category) GROUP BY ALL""", {"cats": hm_cats})
    host_order = (hm[["host", "n"]].drop_duplicates().sort_values(["n", "host"], ascending=[False, True])["host"].tolist()
                  if len(hm) else [])
    matrix = [[0] * len(hm_cats) for _ in host_order]
    hidx = {hname: i for i, hname in enumerate(host_order)}
    cidx = {c: j for j, c in enumerate(hm_cats)}
    for rec in hm.to_dict("records"):
        matrix[hidx[rec["host"]]][cidx[rec["category"]]] = int(rec["runs"])
    report["heatmap"] = {"hosts": [clean(x, 80) for x in host_order], "categories": hm_cats, "counts": matrix}

    # ---- classifier health
    report["classifier"] = _classifier(con, n_this, f_this, top)
    return report


def _job_errors(con, top: int) -> dict:
    """The job's own errors (code_error), apart from the environment ranking: grouped by image and
    job label so each group goes to its owners, with the lines that show the bug."""
    tot = _df(con, f"""SELECT count(*) FILTER (wk = 'this') AS runs, count(*) FILTER (wk = 'last') AS runs_last
                       FROM _rep_runs WHERE category = '{CODE_ERROR}'""").iloc[0]
    groups = _df(con, f"""
        WITH c AS (
            SELECT *, try(json_extract_string(evidence, '$[0].text')) AS ev_text,
                      try(CAST(json_extract(evidence, '$[0].line') AS BIGINT)) AS ev_line
            FROM _rep_runs WHERE category = '{CODE_ERROR}')
        SELECT image, coalesce(job, '(no job label)') AS job,
               count(*) FILTER (wk = 'this') AS runs, count(*) FILTER (wk = 'last') AS runs_last,
               count(DISTINCT host) FILTER (wk = 'this') AS hosts,
               -- the lines of a run that failed of its own bug, not of a peer's SIGTERM counted under it
               arg_max(ev_text, (caused_by IS NULL, t)) FILTER (wk = 'this') AS evidence,
               arg_max(ev_line, (caused_by IS NULL, t)) FILTER (wk = 'this') AS line,
               list(run_id ORDER BY caused_by IS NOT NULL, t DESC, run_id) FILTER (wk = 'this') AS run_ids
        FROM c GROUP BY ALL HAVING count(*) FILTER (wk = 'this') > 0
        ORDER BY runs DESC, image, job LIMIT $top""", {"top": top})
    owners = []
    for rec in _rows(groups):
        owners.append({"image": clean(rec["image"], 200), "job": clean(rec["job"], 120), "runs": int(rec["runs"]),
                       "runs_last": int(rec["runs_last"]), "hosts": int(rec["hosts"]), "line": rec["line"],
                       "evidence": summary_line(rec["evidence"]) if rec["evidence"] else "",
                       "run_ids": [clean(x, 300) for x in (rec["run_ids"] or [])[:3]]})
    return {"runs": int(tot["runs"]), "runs_last": int(tot["runs_last"]), "by_owner": owners,
            "action": "route to the job's owners with the evidence lines: fix the code, data or config; "
                      "no platform change is needed"}


def _concentration(con, category: str, n_this: int, top: int) -> dict:
    base_n = con.execute("SELECT count(*) FROM _rep_runs WHERE wk = 'this' AND category = $c",
                         {"c": category}).fetchall()[0][0]
    base_rate = base_n / n_this if n_this else 0.0
    out: dict[str, Any] = {"category": category, "runs": int(base_n), "base_rate": round(base_rate, 4)}
    for dim, expr in (("hosts", "host"), ("images", "image"), ("drivers", "driver_version")):
        frame = _df(con, f"""
            SELECT {expr} AS value, count(*) FILTER (category = $c) AS runs, count(*) AS total,
                   count(DISTINCT day) FILTER (category = $c) AS days,
                   count(DISTINCT {'image' if dim == 'hosts' else 'host'}) FILTER (category = $c) AS spread
            FROM _rep_runs WHERE wk = 'this' GROUP BY 1 HAVING count(*) FILTER (category = $c) > 0
            ORDER BY runs DESC, value""", {"c": category})
        items = []
        for rec in frame.to_dict("records"):
            k, n = int(rec["runs"]), int(rec["total"])
            rate = k / n if n else 0.0
            # runs whose image or driver nobody recorded are no place a failure concentrates on
            known = rec["value"] is not None and str(rec["value"]) not in ("?", "unknown", "")
            lift = rate / base_rate if base_rate and known else None
            p = binom_sf(k, n, base_rate) if base_rate and base_rate < 1 else 1.0
            items.append({"value": clean(rec["value"], 200), "runs": k, "total_runs": n, "rate": round(rate, 4),
                          "lift": None if lift is None else round(lift, 2), "p_value": round(p, 6),
                          "days": int(rec["days"]), "spread": int(rec["spread"]),
                          "concentrated": bool(lift is not None and lift >= 2 and k >= 2 and p < 0.05)})
        top_n = 3
        out[dim] = items[: max(top, 10)]
        out[f"{dim}_top{top_n}_share"] = round(sum(i["runs"] for i in items[:top_n]) / base_n, 4) if base_n else 0.0
        out[f"concentrated_{dim}"] = [i["value"] for i in items if i["concentrated"]]
    last = {r[0] for r in con.execute(
        "SELECT DISTINCT host FROM _rep_runs WHERE wk = 'last' AND category = $c", {"c": category}).fetchall()}
    out["repeat_offenders"] = [
        {"host": i["value"], "runs": i["runs"], "days": i["days"], "also_last_week": i["value"] in last}
        for i in out["hosts"] if i["days"] >= 2 or (i["runs"] >= 2 and i["value"] in last)]
    if category == "cuda_driver_too_old":
        out.update(_cuda_matrix(con, category))
    return out


# an image's repository: the image without its tag (a registry's port stays)
_REPO_SQL = "regexp_replace(image, ':[^:/]*$', '')"


def _cuda_matrix(con, category: str) -> dict:
    cells = _df(con, """
        SELECT coalesce(image_cuda, 'unknown') AS image_cuda, driver_branch, driver_version,
               coalesce(driver_max, 'unknown') AS driver_max,
               count(*) AS runs, count(*) FILTER (category = $c) AS failures,
               list(DISTINCT host ORDER BY host) FILTER (category = $c) AS fail_hosts,
               list(DISTINCT """ + _REPO_SQL + """) FILTER (category = $c) AS fail_repos
        FROM _rep_runs WHERE wk = 'this' AND is_gpu GROUP BY ALL""", {"c": category})
    # a tag is only worth pinning in the repository it belongs to (another team's image of the same tag
    # family is not a fix)
    pins = _df(con, """
        SELECT image_tag, any_value(image ORDER BY image) AS image, """ + _REPO_SQL + """ AS repo, tag_cuda,
               count(*) AS runs, count(*) FILTER (category = 'no_failure') AS ok
        FROM _rep_runs WHERE tag_cuda IS NOT NULL AND image_tag IS NOT NULL GROUP BY ALL""")
    # newest tag first: highest CUDA, then highest version at the tag's start, then tags that worked
    pin_list = sorted(pins.to_dict("records"),
                      key=lambda r: (_version_key(r["tag_cuda"]), _version_key(r["image_tag"].split("-")[0]),
                                     r["ok"], r["runs"], r["image_tag"]), reverse=True)
    image_cudas = sorted({str(c) for c in cells["image_cuda"]}, key=lambda v: (_version_key(v), v))
    drivers = (cells[["driver_branch", "driver_version", "driver_max"]].drop_duplicates()
               .sort_values(["driver_max", "driver_version"]).to_dict("records"))
    col_key = [f"{d['driver_branch']} (CUDA <= {d['driver_max']})" for d in drivers]
    col_key = list(dict.fromkeys(col_key))
    grid = {(ic, ck): [0, 0] for ic in image_cudas for ck in col_key}
    for rec in cells.to_dict("records"):
        ck = f"{rec['driver_branch']} (CUDA <= {rec['driver_max']})"
        cell = grid[(str(rec["image_cuda"]), ck)]
        cell[0] += int(rec["failures"])
        cell[1] += int(rec["runs"])
    matrix = {"image_cuda": image_cudas, "drivers": [clean(c, 80) for c in col_key],
              "failures": [[grid[(ic, ck)][0] for ck in col_key] for ic in image_cudas],
              "runs": [[grid[(ic, ck)][1] for ck in col_key] for ic in image_cudas]}
    # One fix per (driver branch, max CUDA): only the failures the mismatch explains (image CUDA above the
    # host's max, or either side unknown) name hosts; failures on images the driver supports are left out
    # of the sentence (counted as unexplained: likely misclassified, or another cause), and so are groups
    # whose failing images all have an unknown CUDA version.
    groups: dict[tuple, dict] = {}
    unexplained = 0
    for rec in cells.to_dict("records"):
        if not rec["failures"]:
            continue
        ic, dmax = str(rec["image_cuda"]), str(rec["driver_max"])
        known = ic != "unknown" and dmax != "unknown" and _version_key(ic) and _version_key(dmax)
        if known and _version_key(ic) <= _version_key(dmax):
            unexplained += int(rec["failures"])
            continue
        g = groups.setdefault((rec["driver_branch"], dmax),
                              {"hosts": set(), "repos": set(), "image_cuda": {}, "failures": 0})
        g["hosts"].update([] if rec["fail_hosts"] is None else list(rec["fail_hosts"]))
        g["repos"].update([] if rec["fail_repos"] is None else list(rec["fail_repos"]))
        g["image_cuda"][ic] = g["image_cuda"].get(ic, 0) + int(rec["failures"])
        g["failures"] += int(rec["failures"])
    fixes = []
    for (branch, dmax), g in sorted(groups.items(), key=lambda kv: (-kv[1]["failures"], kv[0])):
        hosts = sorted(clean(x, 80) for x in g["hosts"])
        pin = None
        if dmax != "unknown" and _version_key(dmax):
            ok = [p for p in pin_list if _version_key(p["tag_cuda"]) <= _version_key(dmax)
                  and "latest" not in p["image_tag"] and p["repo"] in g["repos"]]
            pin = ok[0] if ok else None
        cudas = sorted((c for c in g["image_cuda"] if c != "unknown"), key=_version_key)
        unknown_cuda = g["image_cuda"].get("unknown", 0)
        if not cudas:   # no image CUDA known for these failures: nothing concrete to say
            unexplained += unknown_cuda
            continue
        shown = ", ".join(hosts[:8]) + (f" and {len(hosts) - 8} more" if len(hosts) > 8 else "")
        driver = f"driver {clean(branch, 40)}" if branch != "unknown" else "an unknown driver"
        limit = f"CUDA <= {clean(dmax, 20)}" if dmax != "unknown" else "max CUDA unknown: add the host to inventory.csv"
        img = ", ".join(f"cuda{clean(c, 20)}" for c in cudas) + " images"
        if unknown_cuda:
            img += f" (and {unknown_cuda} failed runs on images of unknown CUDA)"
        verb = "host" if len(hosts) == 1 else "hosts"
        runs_verb = "runs" if len(hosts) == 1 else "run"
        sentence = f"{verb} {shown} {runs_verb} {driver} ({limit}) with {img}: upgrade the driver"
        if pin:
            sentence += f" or pin {clean(pin['image_tag'], 120)}"
        elif dmax != "unknown":
            sentence += f" (no tag of these images seen in the fleet has CUDA <= {clean(dmax, 20)})"
        fixes.append({"hosts": hosts, "driver_branch": clean(branch, 40), "driver_max_cuda": clean(dmax, 20),
                      "image_cuda": cudas, "unknown_cuda_failures": unknown_cuda, "failures": g["failures"],
                      "pin_tag": clean(pin["image_tag"], 120) if pin else None,
                      "pin_image": clean(pin["image"], 200) if pin else None, "fix": sentence})
    return {"cuda_matrix": matrix, "fixes": fixes, "unexplained_failures": unexplained}


def _templates(con, params: dict, top: int) -> dict:
    levels = ", ".join(f"'{x}'" for x in FAILURE_LEVELS)
    # per-run message counts, not the events: n = failure-relevant events of the run and template
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rep_fe AS
        SELECT r.wk, c.run_id, r.host, r.own_category AS category, m.template_key, CAST(sum(c.count) AS BIGINT) AS n
        FROM message_counts c JOIN _rep_runs r USING (run_id) JOIN messages m USING (message_key)
        WHERE c.level IN ({levels}) OR c.kind LIKE '%traceback%' OR c.kind = 'error_summary'
        GROUP BY ALL""")
    sql = """
        WITH cat AS (  -- the category with the most failure-relevant events of the template (a mode)
            SELECT template_key, wk, first(category ORDER BY n DESC, category) AS category FROM (
                SELECT template_key, wk, category, sum(n) AS n FROM _rep_fe GROUP BY ALL)
            GROUP BY ALL),
        agg AS (
            SELECT template_key,
                   count(DISTINCT run_id) FILTER (wk = 'this') AS runs,
                   count(DISTINCT run_id) FILTER (wk = 'last') AS runs_last,
                   CAST(coalesce(sum(n) FILTER (wk = 'this'), 0) AS BIGINT) AS events,
                   CAST(coalesce(sum(n) FILTER (wk = 'last'), 0) AS BIGINT) AS events_last,
                   count(DISTINCT host) FILTER (wk = $wk) AS hosts
            FROM _rep_fe GROUP BY template_key),
        agg_cat AS (
            SELECT agg.*, c.category FROM agg LEFT JOIN (SELECT template_key, category FROM cat WHERE wk = $wk) c
            USING (template_key))
        SELECT a.*, left(t.template, 1000) AS template, left(t.example, 1000) AS example,
               t.first_seen, t.last_seen
        FROM agg_cat a LEFT JOIN templates t USING (template_key)
        WHERE {cond}
        ORDER BY {order} DESC, template_key LIMIT {limit}"""
    limit = max(top, 10)
    # new: failing runs printed it this week and none last week, and the warehouse never met it before the week
    # (a template whose lines carry no timestamp has no first_seen: last week's runs decide)
    new = _df(con, sql.format(cond="a.runs > 0 AND a.runs_last = 0 AND (t.first_seen IS NULL OR t.first_seen >= $start)",
                              order="a.runs", limit=limit), {"wk": "this", "start": params["start"]})
    gone = _df(con, sql.format(cond="a.runs = 0 AND a.runs_last > 0", order="a.runs_last", limit=limit),
               {"wk": "last"})
    counts = con.execute("""
        SELECT count(*) FILTER (a.runs > 0 AND a.runs_last = 0 AND (t.first_seen IS NULL OR t.first_seen >= $start)),
               count(*) FILTER (a.runs = 0 AND a.runs_last > 0),
               count(*) FILTER (a.runs > 0)
        FROM (SELECT template_key, count(*) FILTER (wk = 'this') AS runs, count(*) FILTER (wk = 'last') AS runs_last
              FROM _rep_fe GROUP BY 1) a LEFT JOIN templates t USING (template_key)""",
                         {"start": params["start"]}).fetchall()[0]
    return {"scope": "failure-relevant events (level ERROR/FATAL, tracebacks, error summaries)",
            "new_count": int(counts[0]), "gone_count": int(counts[1]), "active_count": int(counts[2]),
            "new": _rows(new), "gone": _rows(gone)}


def _classifier(con, n_this: int, f_this: int, top: int) -> dict:
    # the runs' own verdicts: a rank's NCCL error counted under its peer's cause is still the model's call
    con.execute("CREATE OR REPLACE TEMP VIEW _own_runs AS SELECT * REPLACE (own_category AS category) FROM _rep_runs")
    # a run logml could not judge that shows no failure (an empty or binary file) is neither a failure nor
    # an unknown to label
    stats = con.execute(f"""
        SELECT wk, count(*) FILTER (predicted) AS classified,
               count(*) FILTER (category = '{UNKNOWN}' AND NOT coalesce(not_judged, false)) AS unknown,
               count(*) FILTER (category <> '{NO_FAILURE}' AND NOT coalesce(not_judged, false)) AS failed,
               count(*) FILTER (predicted AND confidence < {LOW_CONFIDENCE}) AS low_confidence,
               count(*) FILTER (category IS NOT NULL AND model_category IS NOT NULL
                                AND category <> model_category) AS disagreements
        FROM _own_runs GROUP BY wk""").df().set_index("wk")

    def sv(wk, col):
        return int(stats.loc[wk, col]) if wk in stats.index else 0

    def share(wk):
        return round(sv(wk, "unknown") / sv(wk, "failed"), 4) if sv(wk, "failed") else None

    sources = _df(con, """SELECT coalesce(source, 'none') AS source, count(*) AS runs FROM _own_runs
                          WHERE wk = 'this' AND predicted GROUP BY 1 ORDER BY runs DESC, source""")
    pairs = _df(con, """SELECT category, model_category, count(*) AS runs FROM _own_runs
                        WHERE wk = 'this' AND model_category IS NOT NULL AND category <> model_category
                        GROUP BY ALL ORDER BY runs DESC, category, model_category LIMIT 10""")
    levels = ", ".join(f"'{x}'" for x in FAILURE_LEVELS)
    queue = _df(con, f"""
        WITH q AS (
            SELECT run_id, host, image, category, confidence, model_category, model_confidence,
                   hours * gpus AS gpu_hours, is_gpu, t, evidence,
                   CASE WHEN category = '{UNKNOWN}' THEN 'unknown'
                        WHEN model_category IS NOT NULL AND category <> model_category THEN 'disagreement'
                        WHEN confidence < {LOW_CONFIDENCE} THEN 'low confidence'
                        ELSE 'unclassified' END AS reason
            FROM _own_runs
            WHERE wk = 'this' AND NOT coalesce(not_judged, false) AND NOT coalesce(fault_known, false)
              AND (category IN ('{UNKNOWN}', '{UNCLASSIFIED}')
                  OR (predicted AND category <> '{NO_FAILURE}' AND confidence < {LOW_CONFIDENCE})
                  OR (model_category IS NOT NULL AND category <> model_category))),
        last_fail AS (
            SELECT c.run_id, arg_max(m.template_key, c.last_line) AS template_key
            FROM message_counts c JOIN q USING (run_id) JOIN messages m USING (message_key)
            WHERE c.level IN ({levels}) OR c.kind LIKE '%traceback%' OR c.kind = 'error_summary'
            GROUP BY c.run_id),
        k AS (
            SELECT q.*, coalesce(nullif(try(json_extract_string(q.evidence, '$[0].template_id')), ''),
                                 lf.template_key) AS template_key,
                   try(json_extract_string(q.evidence, '$[0].text')) AS ev_text
            FROM q LEFT JOIN last_fail lf USING (run_id)),
        s AS (
            SELECT k.*, count(*) OVER (PARTITION BY coalesce(template_key, run_id)) AS similar_runs FROM k)
        SELECT s.run_id, s.host, s.image, s.category, s.confidence, s.model_category, s.model_confidence,
               s.reason, s.similar_runs, round(s.gpu_hours, 2) AS gpu_hours, s.template_key,
               left(coalesce(s.ev_text, t.template), 500) AS evidence
        FROM s LEFT JOIN templates t USING (template_key)
        ORDER BY s.similar_runs DESC, s.gpu_hours DESC NULLS LAST, s.t DESC, s.run_id
        LIMIT {max(top, 10) * 3}""")
    # one representative per template cluster first (most valuable labels), then the rest
    rows = _rows(queue)
    for r in rows:
        r["evidence"] = summary_line(r["evidence"])
    seen: set = set()
    first, rest = [], []
    for r in rows:
        key = r["template_key"] or r["run_id"]
        (rest if key in seen else first).append(r)
        seen.add(key)
    queue_rows = (first + rest)[: max(top, 10)]
    return {
        "classified_runs": sv("this", "classified"), "unclassified_runs": n_this - sv("this", "classified"),
        "unknown_runs": sv("this", "unknown"), "unknown_runs_last": sv("last", "unknown"),
        "unknown_share_of_failures": share("this"), "unknown_share_of_failures_last": share("last"),
        "low_confidence_runs": sv("this", "low_confidence"), "low_confidence_threshold": LOW_CONFIDENCE,
        "disagreements": sv("this", "disagreements"),
        "disagreement_pairs": _rows(pairs), "sources": _rows(sources),
        "labeling_queue": queue_rows,
        "labeling_queue_order": "runs sharing the same top template first (one label teaches them all), then GPU-hours",
    }


# --------------------------------------------------------------------------------------------------
# SVG charts (hand-made: no matplotlib import, every label escaped)

PALETTE = ["#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def _svg_open(cid: str, w: int, hgt: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{cid}" role="img" '
            f'width="{w}" height="{hgt}" viewBox="0 0 {w} {hgt}" font-family="sans-serif" font-size="12">'
            f"<title>{h(title)}</title>")


def _runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")


def _peers_html(row: dict) -> str:
    n, k = row.get("peer_runs", 0), row.get("incidents", row.get("runs", 0))
    out = f'<br><span class="muted">{_incidents(k)}</span>' if k != row.get("runs", 0) else ""
    return out + (f'<br><span class="muted" title="ranks whose errors followed this failure of a peer in the same '
                  f'launch">{n} after a peer</span>' if n else "")


def _incidents(n: int) -> str:
    return f"{n} incident" + ("" if n == 1 else "s")


def _narrower_html(row: dict) -> str:
    """A category's families with a remedy of their own (rules.yaml ``remedies``), under its remedy."""
    return "".join(f'<div class="narrow"><b>{_runs(n["runs"])}{" of " + html.escape(row["category"]) if not row.get("environment") else ""}'
                   f'{html.escape(_on_hosts(n))}, {html.escape(n["description"][:200])}</b>'
                   f'{"" if n["remedy"] == row["remedy"] else ": " + html.escape(n["remedy"][:600])}</div>'
                   for n in row.get("remedies", []))


def _lost(row: dict) -> str:
    return f"; {row['gpu_hours']} GPU-h lost" if row.get("gpu_hours") else ""


def _rest_of(row: dict) -> list[str]:
    """An other-failures row's runs beyond its families with a fix of their own, so the lines add up."""
    out = []
    if row.get("remedies") and row.get("peer_runs"):
        out.append(f"{_runs(row['peer_runs'])} that failed after a peer of theirs, counted under that peer's fault")
    if row.get("remedies") and row.get("unnamed_runs"):
        out.append(f"{_runs(row['unnamed_runs'])} of {row['category']} that no line names a fault for: "
                   f"label them (`logml queue`)")
    return out


def _on_hosts(n: dict, most: int = 5) -> str:
    hosts = n.get("hosts") or []
    more = f" and {len(hosts) - most} more" if len(hosts) > most else ""
    return f" on {', '.join(hosts[:most])}{more}" if hosts else ""


def svg_bars(rows: list[tuple[str, int, int]], this_label: str, last_label: str) -> str:
    w, left, rh = 900, 240, 30
    hgt = 40 + rh * max(1, len(rows))
    vmax = max([max(a, b) for _, a, b in rows] + [1])
    scale = (w - left - 60) / vmax
    out = [_svg_open("chart-ranking", w, hgt, "Failure categories: runs this week vs last week")]
    out.append(f'<rect x="{left}" y="6" width="12" height="10" fill="{PALETTE[0]}"/>'
               f'<text x="{left + 16}" y="15">{h(this_label)}</text>'
               f'<rect x="{left + 140}" y="6" width="12" height="10" fill="#aaa"/>'
               f'<text x="{left + 156}" y="15">{h(last_label)}</text>')
    for i, (label, a, b) in enumerate(rows):
        y = 30 + i * rh
        out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{h(label, 40)}</text>')
        out.append(f'<rect x="{left}" y="{y + 2}" width="{a * scale:.1f}" height="11" fill="{PALETTE[0]}"/>')
        out.append(f'<text x="{left + a * scale + 4:.1f}" y="{y + 12}" font-size="10">{a}</text>')
        out.append(f'<rect x="{left}" y="{y + 14}" width="{b * scale:.1f}" height="9" fill="#aaa"/>')
        out.append(f'<text x="{left + b * scale + 4:.1f}" y="{y + 23}" font-size="10" fill="#666">{b}</text>')
    if not rows:
        out.append(f'<text x="{left}" y="50">no failures in either week</text>')
    out.append("</svg>")
    return "".join(out)


def svg_lines(days: list[str], series: dict[str, list[int]], week_start_index: int = 7) -> str:
    w, hgt, left, right, top_, bottom = 900, 300, 50, 230, 20, 40
    pw, ph = w - left - right, hgt - top_ - bottom
    vmax = max([max(v) for v in series.values() if v] + [1])
    n = max(1, len(days) - 1)
    x = lambda i: left + pw * i / n  # noqa: E731
    y = lambda v: top_ + ph - ph * v / vmax  # noqa: E731
    out = [_svg_open("chart-trend", w, hgt, "Daily failed runs of the top categories (previous and this week)")]
    step = max(1, math.ceil(vmax / 4))
    vmax = step * math.ceil(vmax / step)
    for k in range(int(vmax // step) + 1):
        v = k * step
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="10">{v:.0f}</text>')
    if 0 < week_start_index < len(days):
        xs = x(week_start_index) - pw / n / 2
        out.append(f'<line x1="{xs:.1f}" x2="{xs:.1f}" y1="{top_}" y2="{top_ + ph}" stroke="#999" stroke-dasharray="4 3"/>'
                   f'<text x="{xs + 4:.1f}" y="{top_ + 10}" font-size="10" fill="#666">this week</text>')
    for i, d in enumerate(days):
        out.append(f'<text x="{x(i):.1f}" y="{top_ + ph + 16}" text-anchor="middle" font-size="9">{h(d[5:])}</text>')
    for j, (cat, vals) in enumerate(series.items()):
        color = PALETTE[j % len(PALETTE)]
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{pts}"/>')
        out.append(f'<rect x="{left + pw + 16}" y="{top_ + j * 20}" width="12" height="10" fill="{color}"/>'
                   f'<text x="{left + pw + 32}" y="{top_ + j * 20 + 9}">{h(cat, 32)}</text>')
    if not series:
        out.append(f'<text x="{left + 10}" y="{top_ + 20}">no failures to plot</text>')
    out.append("</svg>")
    return "".join(out)


def svg_heatmap(hosts: list[str], cats: list[str], counts: list[list[int]]) -> str:
    left, top_, cw, ch = 130, 150, 70, 20
    w = max(400, left + cw * len(cats) + 20)
    hgt = top_ + ch * max(1, len(hosts)) + 10
    vmax = max([max(r) for r in counts if r] + [1])
    out = [_svg_open("chart-heatmap", w, hgt, "Failed runs per host and category (this week)")]
    for j, c in enumerate(cats):
        cx = left + j * cw + cw / 2
        out.append(f'<text transform="translate({cx:.1f},{top_ - 6}) rotate(-40)" font-size="11">{h(c, 28)}</text>')
    for i, host in enumerate(hosts):
        yy = top_ + i * ch
        out.append(f'<text x="{left - 6}" y="{yy + 14}" text-anchor="end" font-size="11">{h(host, 20)}</text>')
        for j, v in enumerate(counts[i]):
            a = 0.0 if v == 0 else 0.15 + 0.85 * v / vmax
            out.append(f'<rect x="{left + j * cw}" y="{yy}" width="{cw - 2}" height="{ch - 2}" '
                       f'fill="rgba(214,39,40,{a:.2f})" stroke="#eee"/>')
            if v:
                fill = "#fff" if a > 0.6 else "#000"
                out.append(f'<text x="{left + j * cw + cw / 2 - 1:.1f}" y="{yy + 14}" text-anchor="middle" '
                           f'font-size="10" fill="{fill}">{v}</text>')
    if not hosts:
        out.append(f'<text x="{left}" y="{top_ + 14}">no failed runs this week</text>')
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# HTML

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{margin-bottom:4px}h2{border-bottom:2px solid #eee;padding-bottom:4px;margin-top:36px}
.muted{color:#666}.warn{background:#fff4e5;border-left:4px solid #e8a33d;padding:6px 10px}.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid #ddd;border-radius:8px;padding:12px 16px;min-width:180px}
.card .v{font-size:26px;font-weight:600}.card .d{font-size:13px;color:#555}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:13px}
th,td{border-bottom:1px solid #eee;padding:5px 6px;text-align:left;vertical-align:top}
th{background:#fafafa}td.n,th.n{text-align:right;white-space:nowrap}
code,.ev{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;background:#f6f6f6;
 padding:1px 4px;border-radius:3px;white-space:pre-wrap;overflow-wrap:anywhere}
.ev{display:block;margin:2px 0}.up{color:#c00}.down{color:#080}.sig{font-weight:700}
.fix{background:#fff7e6;border-left:4px solid #f0a020;padding:8px 12px;margin:8px 0}
.chart{max-width:100%;height:auto;display:block;margin:8px 0}
details summary{cursor:pointer;color:#036}
"""


def _num(v: Any, digits: int = 0) -> str:
    if v is None:
        return "–"
    if isinstance(v, float) and digits:
        return f"{v:,.{digits}f}"
    return f"{v:,.0f}" if isinstance(v, (int, float)) else h(v)


def _chg(pct: float | None) -> str:
    if pct is None:
        return "n/a"
    return f"{pct:+.1f}%"


def _change_html(c: dict) -> str:
    cls = "up" if c["direction"] == "up" else "down" if c["direction"] == "down" else ""
    arrow = {"up": "▲", "down": "▼"}.get(c["direction"], "")
    label = "new" if c["status"] == "new" else "gone" if c["status"] == "gone" else _chg(c["change_pct"])
    mark = f' <span class="sig" title="p={c["p_value"]}">{h(c["mark"])}</span>' if c["mark"] else ""
    return f'<span class="{cls}">{arrow} {h(label)}</span>{mark}'


def render_html(rep: dict) -> str:
    hl = rep["headline"]
    p: list[str] = []
    a = p.append
    a("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
    a("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:; base-uri 'none'; form-action 'none'\">")
    a('<meta name="viewport" content="width=device-width, initial-scale=1">')
    a(f"<title>Fleet reliability report {h(rep['week'])}</title><style>{CSS}</style></head><body>")
    a(f"<h1>Fleet reliability report — {h(rep['week'])}</h1>")
    a(f'<p class="muted">{h(rep["start"])} to {h(rep["end"])} (UTC, end exclusive; a run counts in the week it started), compared with '
      f'{h(rep["previous_week"])}. Generated {h(rep["generated_at"])} · taxonomy {h(rep["taxonomy_version"])}.</p>')
    if not rep.get("week_complete", True):
        a(f'<p class="warn"><b>{h(rep["week"])} is not over</b> (it ends {h(rep["end"])}): its counts are partial, '
          'and week over week compares them with a whole week.</p>')

    # headline
    a('<section id="headline"><h2>Headline</h2><div class="cards">')
    fr = hl["failure_rate"]
    cards = [
        ("Runs", _num(hl["runs"]["this"]), f"last week {_num(hl['runs']['last'])} ({_chg(hl['runs']['change_pct'])})"),
        ("Failed runs", _num(hl["failed_runs"]["this"]),
         f"last week {_num(hl['failed_runs']['last'])} ({_chg(hl['failed_runs']['change_pct'])})"
         + (f" {hl['failed_runs']['mark']}" if hl["failed_runs"]["mark"] else "")),
        ("Failure rate", "–" if fr["this"] is None else f"{100 * fr['this']:.1f}%",
         "last week " + ("–" if fr["last"] is None else f"{100 * fr['last']:.1f}%")
         + ("" if fr["change_pts"] is None else f" ({fr['change_pts']:+.1f} pts)")),
        ("GPU-hours lost", _num(hl["gpu_hours_lost"]["this"], 1),   # as the Markdown: 0.4, not 0
         f"last week {_num(hl['gpu_hours_lost']['last'], 1)} ({_chg(hl['gpu_hours_lost']['change_pct'])})"),
    ]
    for title, v, d in cards:
        a(f'<div class="card"><div class="muted">{h(title)}</div><div class="v">{v}</div><div class="d">{h(d)}</div></div>')
    a("</div>")
    a(f'<p class="muted">GPU-hours = duration × GPUs of GPU runs; {hl["gpu_runs_without_duration"]} GPU runs this week '
      f'have no known duration. {hl["unclassified_runs"]} runs have no prediction yet. '
      f'{hl.get("runs_dated_by_file_time", 0)} runs carry no timestamp logml reads and are dated by their log '
      f'file\'s modification time, {hl["runs_dated_by_ingest"]} more by when they were first ingested. '
      f'{hl.get("runs_caused_by_a_peer", 0)} runs are ranks whose errors followed a peer\'s failure in '
      f'the same launch: they count under that peer\'s cause. {hl.get("runs_not_judged", 0)} runs logml could not '
      f'judge show no failure (an empty log, a server answering requests): not counted as failed. '
      f'Significance: * p&lt;0.05, ** p&lt;0.01, *** p&lt;0.001 (conditional binomial test on this/last week counts, '
      f'weighted by each week\'s runs).</p></section>')

    # fixes (the one change that removes most)
    fixes = [f for c in rep["concentration"] for f in c.get("fixes", [])]
    if fixes:
        a('<section id="fixes"><h2>Concrete fixes</h2>')
        for f in fixes:
            a(f'<div class="fix"><b>cuda_driver_too_old</b> ({f["failures"]} failed runs): {h(f["fix"], 1000)}</div>')
        a("</section>")

    # ranking
    a('<section id="ranking"><h2>Environment failures, ranked</h2>')
    a(f'<p class="muted">Ranked by {h(rep["ranking_basis"])}.</p>')
    a('<table id="ranking-table"><thead><tr><th class="n">#</th><th>category</th><th class="n">runs</th>'
      '<th class="n">last week</th><th>change</th><th class="n">hosts</th><th class="n">images</th>'
      '<th class="n">share of failures</th><th class="n">GPU-h lost</th><th>remedy · evidence · runs</th></tr></thead><tbody>')
    for r in rep["ranking"]:
        if r["runs"] == 0 and r["runs_last"] == 0:
            continue
        evs = "".join(f'<span class="ev" title="{h(e.get("run_id"))}">L{h(e.get("line"))}: {h(e.get("summary"), 300)}</span>'
                      for e in r["evidence"])
        runs = "".join(f"<code>{h(x, 200)}</code> " for x in r["run_ids"])
        a(f'<tr><td class="n">{r["rank"]}</td><td><b>{h(r["category"])}</b><br><span class="muted">{h(r["title"])}</span></td>'
          f'<td class="n">{r["runs"]}{_peers_html(r)}</td><td class="n">{r["runs_last"]}</td><td>{_change_html(r["change"])}</td>'
          f'<td class="n">{r["hosts"]}</td><td class="n">{r["images"]}</td>'
          f'<td class="n">{100 * r["share_of_failures"]:.1f}%</td><td class="n">{_num(r["gpu_hours"], 1)}</td>'
          f'<td>{h(r["remedy"], 600)}{_narrower_html(r)}<details><summary>evidence &amp; runs</summary>{evs}'
          f'<div>drill into: {runs}</div></details></td></tr>')
    a("</tbody></table>")
    if rep["other_failures"]:
        a('<p class="muted">Other failures (outside the ranked causes; a fault the taxonomy has no cause for, '
          'such as a GPU that failed, is listed under it with its hosts): ' + ", ".join(
            f'{h(o["category"])} {o["runs"]} (last week {o["runs_last"]}{_lost(o)})' for o in rep["other_failures"]) + ".</p>")
        a("".join(_narrower_html(o) + "".join(f'<div class="narrow">{html.escape(t)}</div>' for t in _rest_of(o))
                  for o in rep["other_failures"]))
    bar_rows = [(r["category"], r["runs"], r["runs_last"]) for r in rep["ranking"] if r["runs"] + r["runs_last"] > 0]
    a(svg_bars(bar_rows[:15], rep["week"], rep["previous_week"]))
    a("</section>")
    je = rep["job_errors"]
    a('<section id="job-errors"><h2>Job errors: route to owners</h2>')
    a(f'<p>{je["runs"]} runs failed on their own code, data or config this week (last week {je["runs_last"]}); '
      f'they are not environment faults and are not ranked above. {h(je["action"])}.</p>')
    if je["by_owner"]:
        a("<table><thead><tr><th>image</th><th>job</th><th>runs</th><th>last week</th><th>hosts</th>"
          "<th>evidence</th></tr></thead><tbody>")
        for o in je["by_owner"]:
            runs = "".join(f"<code>{h(x, 200)}</code> " for x in o["run_ids"])
            a(f'<tr><td>{h(o["image"])}</td><td>{h(o["job"])}</td><td class="n">{o["runs"]}</td>'
              f'<td class="n">{o["runs_last"]}</td><td class="n">{o["hosts"]}</td>'
              f'<td><span class="ev">L{h(o["line"])}: {h(o["evidence"], 300)}</span><div>{runs}</div></td></tr>')
        a("</tbody></table>")
    a("</section>")

    # trend + heatmap
    a('<section id="trend"><h2>Daily trend of the top categories</h2>')
    a(svg_lines(rep["daily"]["days"], rep["daily"]["series"]))
    a("</section>")
    a('<section id="heatmap"><h2>Where failures happen: host × category</h2>')
    a(svg_heatmap(rep["heatmap"]["hosts"], rep["heatmap"]["categories"], rep["heatmap"]["counts"]))
    a("</section>")

    # concentration
    a('<section id="concentration"><h2>Concentration</h2>')
    a('<p class="muted">Lift = the category\'s failure rate on that host / image / driver divided by its fleet-wide '
      'rate this week; ● marks a significant concentration (lift ≥ 2, ≥ 2 runs, one-sided binomial p &lt; 0.05).</p>')
    for c in rep["concentration"]:
        a(f'<h3>{h(c["category"])} — {c["runs"]} runs, fleet rate {100 * c["base_rate"]:.2f}%</h3>')
        a(f'<p>Top-3 share: hosts {100 * c["hosts_top3_share"]:.0f}%, images {100 * c["images_top3_share"]:.0f}%, '
          f'drivers {100 * c["drivers_top3_share"]:.0f}%. Concentrated on hosts: '
          f'{h(", ".join(c["concentrated_hosts"]) or "none")}.</p>')
        if c["repeat_offenders"]:
            a("<p>Repeat offenders: " + ", ".join(
                f'{h(o["host"])} ({o["runs"]} runs on {o["days"]} days{", also last week" if o["also_last_week"] else ""})'
                for o in c["repeat_offenders"]) + "</p>")
        a('<table class="conc"><thead><tr><th>dimension</th><th>value</th><th class="n">runs</th>'
          '<th class="n">of runs</th><th class="n">rate</th><th class="n">lift</th><th></th></tr></thead><tbody>')
        for dim in ("hosts", "images", "drivers"):
            for i in c[dim][:6]:
                lift = "–" if i["lift"] is None else f"{i['lift']:.1f}×"
                a(f'<tr><td>{dim[:-1]}</td><td>{h(i["value"], 120)}</td><td class="n">{i["runs"]}</td>'
                  f'<td class="n">{i["total_runs"]}</td><td class="n">{100 * i["rate"]:.1f}%</td>'
                  f'<td class="n">{lift}</td>'
                  f'<td>{"●" if i["concentrated"] else ""}</td></tr>')
        a("</tbody></table>")
        if "cuda_matrix" in c:
            m = c["cuda_matrix"]
            a('<p><b>Image CUDA × host driver</b> (failed / runs of GPU runs this week)</p>'
              '<table class="matrix"><thead><tr><th>image CUDA</th>'
              + "".join(f"<th>{h(d)}</th>" for d in m["drivers"]) + "</tr></thead><tbody>")
            for i, ic in enumerate(m["image_cuda"]):
                cells = []
                for j in range(len(m["drivers"])):
                    fcount, n = m["failures"][i][j], m["runs"][i][j]
                    style = ' style="background:#fdd"' if fcount else ""
                    cells.append(f'<td class="n"{style}>{fcount} / {n}</td>' if n else '<td class="n muted">·</td>')
                a(f"<tr><td>{'cuda' + h(ic) if ic != 'unknown' else 'unknown'}</td>{''.join(cells)}</tr>")
            a("</tbody></table>")
            for f in c.get("fixes", []):
                a(f'<div class="fix">{h(f["fix"], 1000)}</div>')
    if not rep["concentration"]:
        a("<p>No environment failures this week.</p>")
    a("</section>")

    # templates
    t = rep["templates"]
    a(f'<section id="templates"><h2>Failure templates: new and gone</h2><p class="muted">Scope: {h(t["scope"])}. '
      f'{t["new_count"]} new this week, {t["gone_count"]} gone since last week, {t["active_count"]} active.</p>')
    for title, rows, key in (("New this week", t["new"], "runs"), ("Gone since last week", t["gone"], "runs_last")):
        a(f"<h3>{title}</h3>")
        if not rows:
            a("<p>none</p>")
            continue
        a('<table><thead><tr><th>template</th><th class="n">runs</th><th class="n">hosts</th><th>category</th>'
          "<th>first seen</th></tr></thead><tbody>")
        for r in rows:
            a(f'<tr><td><span class="ev">{h(r.get("template"), 400)}</span>'
              f'<span class="muted">{h(r.get("template_key"))}</span></td><td class="n">{r[key]}</td>'
              f'<td class="n">{r.get("hosts")}</td><td>{h(r.get("category"))}</td><td>{h(r.get("first_seen"), 19)}</td></tr>')
        a("</tbody></table>")
    a("</section>")

    # classifier
    c = rep["classifier"]
    us = c["unknown_share_of_failures"]
    a('<section id="classifier"><h2>Classifier health</h2><ul>')
    a(f'<li>classified runs: {c["classified_runs"]} (unclassified: {c["unclassified_runs"]})</li>')
    a(f'<li>unknown: {c["unknown_runs"]} runs = {"–" if us is None else f"{100 * us:.1f}%"} of failed runs '
      f'(last week {c["unknown_runs_last"]})</li>')
    a(f'<li>low confidence (&lt; {c["low_confidence_threshold"]}): {c["low_confidence_runs"]} runs</li>')
    a(f'<li>rule/model disagreements: {c["disagreements"]} runs'
      + ("" if not c["disagreement_pairs"] else ": " + ", ".join(
          f'{h(x["category"])} vs model {h(x["model_category"])} ({x["runs"]})' for x in c["disagreement_pairs"]))
      + "</li>")
    if c["sources"]:
        a("<li>sources: " + ", ".join(f'{h(s["source"])} {s["runs"]}' for s in c["sources"]) + "</li>")
    a("</ul>")
    a(f'<h3>Labeling queue (top {len(c["labeling_queue"])})</h3><p class="muted">{h(c["labeling_queue_order"])}.</p>')
    if c["labeling_queue"]:
        a('<table id="labeling-queue"><thead><tr><th>run</th><th>host</th><th>why</th><th>category</th>'
          '<th class="n">conf.</th><th>model</th><th class="n">similar runs</th><th class="n">GPU-h</th>'
          "<th>evidence</th></tr></thead><tbody>")
        for q in c["labeling_queue"]:
            conf = "–" if q["confidence"] is None else f'{q["confidence"]:.2f}'
            a(f'<tr><td><code>{h(q["run_id"], 200)}</code></td><td>{h(q["host"])}</td><td>{h(q["reason"])}</td>'
              f'<td>{h(q["category"])}</td><td class="n">{conf}</td><td>{h(q["model_category"])}</td>'
              f'<td class="n">{q["similar_runs"]}</td><td class="n">{_num(q["gpu_hours"], 1)}</td>'
              f'<td><span class="ev">{h(q["evidence"], 300)}</span></td></tr>')
        a("</tbody></table>")
    else:
        a("<p>empty</p>")
    a("</section></body></html>\n")
    return "".join(p)


# --------------------------------------------------------------------------------------------------
# Markdown


def render_markdown(rep: dict) -> str:
    hl = rep["headline"]
    fr = hl["failure_rate"]
    L: list[str] = []
    a = L.append
    a(f"# Fleet reliability report {md(rep['week'])}")
    a("")
    a(f"{md(rep['start'])} to {md(rep['end'])} (UTC, end exclusive; a run counts in the week it started), "
      f"compared with {md(rep['previous_week'])}.")
    a("")
    if not rep.get("week_complete", True):
        a(f"**{md(rep['week'])} is not over** (it ends {md(rep['end'])}): its counts are partial, and week over "
          "week compares them with a whole week.")
        a("")
    a("| metric | this week | last week | change |")
    a("|---|---:|---:|---:|")
    a(f"| runs | {hl['runs']['this']} | {hl['runs']['last']} | {_chg(hl['runs']['change_pct'])} |")
    a(f"| failed runs | {hl['failed_runs']['this']} | {hl['failed_runs']['last']} | "
      f"{_chg(hl['failed_runs']['change_pct'])} {md(hl['failed_runs']['mark'])} |")
    rate_this = "–" if fr["this"] is None else f"{100 * fr['this']:.1f}%"
    rate_last = "–" if fr["last"] is None else f"{100 * fr['last']:.1f}%"
    pts = "n/a" if fr["change_pts"] is None else f"{fr['change_pts']:+.1f} pts"
    a(f"| failure rate | {rate_this} | {rate_last} | {pts} |")
    a(f"| GPU-hours lost | {hl['gpu_hours_lost']['this']:,.1f} | {hl['gpu_hours_lost']['last']:,.1f} | "
      f"{_chg(hl['gpu_hours_lost']['change_pct'])} |")
    a("")
    if hl.get("runs_dated_by_file_time") or hl.get("runs_dated_by_ingest"):
        a(f"{hl.get('runs_dated_by_file_time', 0) + hl['runs_dated_by_ingest']} runs this week carry no timestamp "
          f"logml reads: {hl.get('runs_dated_by_file_time', 0)} are dated by their log file's modification time, "
          f"{hl['runs_dated_by_ingest']} by when they were first ingested.")
        a("")
    if hl.get("runs_not_judged"):
        a(f"{hl['runs_not_judged']} runs this week could not be judged and show no failure (an empty log, a server "
          f"answering requests): they are not counted as failed.")
        a("")
    if hl.get("runs_caused_by_a_peer"):
        a(f"{hl['runs_caused_by_a_peer']} runs this week are ranks whose errors followed a peer's failure in the same "
          f"launch: they count under that peer's cause.")
        a("")
    fixes = [f for c in rep["concentration"] for f in c.get("fixes", [])]
    if fixes:
        a("## Concrete fixes")
        a("")
        for f in fixes:
            a(f"- **cuda\\_driver\\_too\\_old** ({f['failures']} failed runs): {md(f['fix'], 1000)}")
        a("")
    a("## Environment failures, ranked")
    a("")
    a(f"Ranked by {md(rep['ranking_basis'])}. Significance: \\* p<0.05, \\*\\* p<0.01, \\*\\*\\* p<0.001.")
    a("")
    a("| # | category | runs | last week | change | hosts | images | share | GPU-h lost |")
    a("|---:|---|---:|---:|---|---:|---:|---:|---:|")
    shown = [r for r in rep["ranking"] if r["runs"] or r["runs_last"]]
    for r in shown:
        c = r["change"]
        arrow = {"up": "▲", "down": "▼"}.get(c["direction"], "")
        label = c["status"] if c["status"] in ("new", "gone") else _chg(c["change_pct"])
        mark = md(c["mark"])
        runs = f"{r['runs']} ({_incidents(r['incidents'])})" if r.get("incidents", r["runs"]) != r["runs"] else r["runs"]
        runs_last = (f"{r['runs_last']} ({_incidents(r['incidents_last'])})"
                     if r.get("incidents_last", r["runs_last"]) != r["runs_last"] else r["runs_last"])
        a(f"| {r['rank']} | {md(r['category'])} | {runs} | {runs_last} | {arrow} {label} {mark} | "
          f"{r['hosts']} | {r['images']} | {100 * r['share_of_failures']:.1f}% | {r['gpu_hours']:,.1f} |")
    a("")
    for r in shown[:10]:
        if not r["runs"]:
            continue
        a(f"### {r['rank']}. {md(r['category'])}")
        a("")
        a(f"Remedy: {md(r['remedy'], 600)}")
        a("")
        for n in r.get("remedies", []):
            fix = "" if n["remedy"] == r["remedy"] else f": {md(n['remedy'], 600)}"
            a(f"- {_runs(n['runs'])}{md(_on_hosts(n))}, {md(n['description'], 200)}{fix}")
        if r.get("incidents", r["runs"]) != r["runs"]:
            a(f"- {_runs(r['runs'])} in {_incidents(r['incidents'])}: the ranks of one launch fail as one incident")
        if r.get("peer_runs"):
            a(f"- {_runs(r['peer_runs'])} of these are ranks whose errors followed a peer's failure of this cause "
              "in the same launch")
        for e in r["evidence"]:
            a(f"- line {md(e.get('line'))} of {md_code(e.get('run_id'), 200)}: {md_code(e.get('summary'))}")
        if r["run_ids"]:
            a("- drill into: " + ", ".join(md_code(x, 200) for x in r["run_ids"]))
        a("")
    if rep["other_failures"]:
        a("Other failures (outside the ranked causes; a fault the taxonomy has no cause for, such as a GPU that "
          "failed, is listed under it with its hosts): " + ", ".join(
            f"{md(o['category'])} {o['runs']} (last week {o['runs_last']}{_lost(o)})" for o in rep["other_failures"]) + ".")
        a("")
        for o in rep["other_failures"]:
            for n in o.get("remedies", []):
                a(f"- {_runs(n['runs'])} of {md(o['category'])}{md(_on_hosts(n))}, {md(n['description'], 200)}: "
                  f"{md(n['remedy'], 600)}")
            for t in _rest_of(o):
                a(f"- {md(t)}")
        a("")
    je = rep["job_errors"]
    a("## Job errors: route to owners")
    a("")
    a(f"{je['runs']} runs failed on their own code, data or config (last week {je['runs_last']}); not ranked "
      f"above. {md(je['action'])}.")
    a("")
    if je["by_owner"]:
        a("| image | job | runs | last week | evidence |")
        a("|---|---|---:|---:|---|")
        for o in je["by_owner"]:
            a(f"| {md(o['image'])} | {md(o['job'])} | {o['runs']} | {o['runs_last']} | "
              f"{md_code(o['evidence'], 200, in_table=True)} |")
        a("")
    a("## Concentration")
    a("")
    for c in rep["concentration"]:
        hosts = ", ".join(md(x) for x in c["concentrated_hosts"])
        a(f"- **{md(c['category'])}**: {c['runs']} runs; "
          + (f"concentrated on hosts {hosts}" if hosts else "no host stands out") + "; top\\-3 share hosts "
          f"{100 * c['hosts_top3_share']:.0f}%, images {100 * c['images_top3_share']:.0f}%; top images "
          + (", ".join(f"{md(i['value'])} ({i['runs']}, lift {i['lift']})" for i in c["images"][:3] if i["lift"] is not None)
             or "not recorded")
          + "; drivers " + (", ".join(f"{md(i['value'])} ({i['runs']}, lift {i['lift']})" for i in c["drivers"][:3]
                                      if i["lift"] is not None) or "not recorded")
          + ("; repeat offenders " + ", ".join(md(o["host"]) for o in c["repeat_offenders"]) if c["repeat_offenders"] else ""))
    a("")
    t = rep["templates"]
    a("## Failure templates")
    a("")
    a(f"{t['new_count']} new this week, {t['gone_count']} gone since last week.")
    a("")
    for title, rows, key in (("New", t["new"], "runs"), ("Gone", t["gone"], "runs_last")):
        if rows:
            a(f"**{title}:**")
            a("")
            for r in rows:
                a(f"- {r[key]} runs, {md(r.get('category'))}: {md_code(r.get('template'))}")
            a("")
    c = rep["classifier"]
    us = c["unknown_share_of_failures"]
    a("## Classifier health")
    a("")
    a(f"- unknown: {c['unknown_runs']} runs ({'–' if us is None else f'{100 * us:.1f}%'} of failed runs)")
    a(f"- low confidence (< {c['low_confidence_threshold']}): {c['low_confidence_runs']} runs")
    a(f"- rule/model disagreements: {c['disagreements']} runs")
    a(f"- unclassified: {c['unclassified_runs']} runs")
    a("")
    if c["labeling_queue"]:
        a("**Labeling queue (top):**")
        a("")
        for q in c["labeling_queue"]:
            a(f"- {md_code(q['run_id'], 200)} on {md(q['host'])}: {md(q['reason'])}, {q['similar_runs']} similar runs "
              f"{md_code(q['evidence'], 200)}")
        a("")
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------------------------------
# Output


def write_report(report: dict, out_dir: Path) -> dict[str, Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"html": out_dir / "report.html", "md": out_dir / "report.md", "json": out_dir / "report.json"}
    paths["json"].write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["md"].write_text(render_markdown(report), encoding="utf-8")
    return paths


def report_command(db: str, week: str | None, out: Path, inventory_root: str | None = None) -> dict[str, Path]:
    """`logml report`: read the warehouse (read-only), build and write the week's report."""
    from pipeline import store

    inventory = None
    if inventory_root:
        from pipeline.sources import read_inventory

        inventory = read_inventory(inventory_root)
    con = store.connect(db, read_only=True)
    try:
        week = week or default_week(con)
        rep = build_report(con, week, inventory=inventory)
    finally:
        con.close()
    return write_report(rep, Path(out))
