"""report.html in real headless Chromium (Debian's `chromium` package), driven over the DevTools protocol.

Chromium runs with ``--remote-debugging-pipe`` (CDP over fds 3/4: no port, no websocket client, no extra
Python package). The test records every console message, uncaught exception, browser log entry (CSP
violations, failed loads) and network request, checks that the ranking table and each chart are laid out
with a non-zero size, and saves a full-page screenshot next to the report (and under
``$LOGML_SCREENSHOT_DIR`` when set, for CI artifacts). A control page with a console error and an external
image proves the harness would notice both.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import INVENTORY, WEEK, build_fixture_warehouse  # noqa: E402

from pipeline import store  # noqa: E402
from pipeline.report import build_report, write_report  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")


class Browser:
    """A headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, profile: Path):
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()

        def wire_fds():  # in the child: our pipe ends become fds 3 (commands in) and 4 (replies out)
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds, pass_fds=(3, 4), close_fds=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self.events: list[dict] = []
        self._replies: dict[int, dict] = {}
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session: str | None = None

    def _read(self) -> None:
        buf = b""
        with os.fdopen(self._from_child_r, "rb", buffering=0) as fh:
            while True:
                chunk = fh.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    msg = json.loads(raw)
                    with self._cond:
                        if "id" in msg:
                            self._replies[msg["id"]] = msg
                        else:
                            self.events.append(msg)
                        self._cond.notify_all()

    def send(self, method: str, params: dict | None = None, timeout: float = 30.0, session: bool = True) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_child_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._next not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no reply to {method}")
                self._cond.wait(left)
            reply = self._replies.pop(self._next)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for ev in self.events:
                    if ev.get("method") == method:
                        return ev
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {method} event")
                self._cond.wait(left)

    def open(self, url: str, width: int = 1280, height: int = 900) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        with self._cond:
            self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        time.sleep(0.3)   # let late console/log events arrive

    def evaluate(self, expression: str):
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return res["result"].get("value")

    def problems(self) -> list[str]:
        """Console messages, uncaught exceptions, browser log errors/warnings."""
        out = []
        for ev in list(self.events):
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append(f"console.{p.get('type')}: {[a.get('value') for a in p.get('args', [])]}")
            elif m == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append(f"log.{p['entry']['level']}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def requests(self) -> list[str]:
        return [ev["params"]["request"]["url"] for ev in list(self.events)
                if ev.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False, timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child_w)


@pytest.fixture
def browser(tmp_path):
    b = Browser(tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()


def test_harness_notices_console_errors_and_network_loads(browser, tmp_path):
    page = tmp_path / "control.html"
    page.write_text('<html><body><script>console.error("boom")</script>'
                    '<img src="http://127.0.0.1:9/x.png"></body></html>')
    browser.open(page.as_uri())
    assert any("boom" in p for p in browser.problems())
    assert any(u.startswith("http://127.0.0.1:9/") for u in browser.requests())


def test_report_renders_in_chromium(browser, tmp_path):
    db = build_fixture_warehouse(tmp_path / "wh.duckdb")
    con = store.connect(db, read_only=True)
    rep = build_report(con, WEEK, inventory=INVENTORY)
    con.close()
    paths = write_report(rep, tmp_path / "out")
    browser.open(paths["html"].as_uri(), width=1280, height=1000)

    assert browser.problems() == []
    assert [u for u in browser.requests() if not u.startswith(("file://", "data:"))] == []
    assert browser.evaluate("document.title").startswith("Fleet reliability report 2026-W48")
    # the ranking table and each chart are laid out and visible
    boxes = browser.evaluate("""JSON.stringify(['ranking-table', 'chart-ranking', 'chart-trend', 'chart-heatmap']
        .map(id => { const e = document.getElementById(id); if (!e) return [id, 0, 0, 'missing'];
                     const r = e.getBoundingClientRect(), s = getComputedStyle(e);
                     return [id, r.width, r.height, s.visibility + '/' + s.display]; }))""")
    for cid, w, hgt, vis in json.loads(boxes):
        assert w > 300 and hgt > 100, (cid, w, hgt, vis)
        assert vis.startswith("visible") and not vis.endswith("none"), (cid, vis)
    first_row = browser.evaluate("document.querySelector('#ranking-table tbody tr b').textContent")
    assert first_row == "cuda_driver_too_old"
    # the hostile evidence is text in the DOM, no element was created from it
    assert browser.evaluate("document.querySelectorAll('script, img, iframe, object, embed').length") == 0
    assert "<script>alert(1)</script>" in browser.evaluate("document.body.textContent")
    assert browser.evaluate("typeof window.alertCalled") == "undefined"
    assert "hosts h03, h07, h11 run driver 470" in browser.evaluate("document.getElementById('fixes').textContent")

    shot = paths["html"].with_name("report.png")
    browser.screenshot(shot)
    assert shot.stat().st_size > 50_000
    extra = os.environ.get("LOGML_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(extra) / "report.png")
