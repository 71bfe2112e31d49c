"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``).

No driver library and no port: Chromium reads NUL-terminated JSON commands on fd 3 and
writes replies and events on fd 4. Enough of the protocol for the report tests and the
benchmark: open a file at a viewport width, wait for its load event (and for a frame
painted after it), evaluate an expression, take a screenshot, and collect console
messages and log errors (a page whose Content-Security-Policy blocks something logs it
there).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    def __init__(self, binary: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="h19-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # The child must see the pipes as fds 3 and 4.
        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--remote-debugging-pipe",
                f"--user-data-dir={self._profile.name}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=lambda: (os.dup2(to_child_r, 3), os.dup2(from_child_w, 4)),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def close(self) -> None:
        with contextlib.suppress(OSError, TimeoutError, RuntimeError):
            self.call("Browser.close", session=False)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open_page(self, width: int, height: int = 900, mobile: bool = False) -> None:
        target = self.call("Target.createTarget", session=False, url="about:blank")
        attached = self.call(
            "Target.attachToTarget", session=False, targetId=target["targetId"], flatten=True
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.width, self.mobile = width, mobile
        self._metrics(height)

    def _metrics(self, height: int) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=self.width,
            height=height,
            deviceScaleFactor=1,
            mobile=self.mobile,
        )

    def load(self, path: Path) -> float:
        """Opens ``path`` and returns the seconds until its load event."""
        start = time.monotonic()
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired")
        return time.monotonic() - start

    def rendered(self, path: Path) -> tuple[float, float]:
        """Opens ``path``; returns the seconds until its load event and until a frame was
        painted after it (the second animation frame after load: the first is the one laid
        out and painted, the second comes once it was presented)."""
        start = time.monotonic()
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired")
        loaded = time.monotonic() - start
        self.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))",
            await_promise=True,
        )
        return loaded, time.monotonic() - start

    def evaluate(self, expression: str, await_promise: bool = False) -> Any:
        result = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=await_promise,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, out: Path) -> None:
        """The whole page as laid out at the page's width: the viewport is made as tall as
        the page first (capturing beyond the viewport would lay a mobile page out again
        at another width)."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self._metrics(height)
        data = self.call("Page.captureScreenshot", format="png")
        out.write_bytes(base64.b64decode(data["data"]))

    def problems(self) -> list[str]:
        """Console errors and warnings, and log entries at error level, seen so far."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "warning",
                "assert",
            ):
                found.append(json.dumps(params.get("args")))
            elif event.get("method") == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails")))
            elif event.get("method") == "Log.entryAdded":
                entry = params.get("entry", {})
                if entry.get("level") in ("error", "warning"):
                    found.append(f"{entry.get('source')}: {entry.get('text')}")
        return found
