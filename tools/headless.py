"""Headless Chromium driven over the DevTools protocol, with nothing but the stdlib.

tests/test_site.py uses it to read the built site as a learner sees it (layout
measured after MathJax has typeset, in light and dark mode, at several widths),
and it takes screenshots for a person to look at:

    python tools/headless.py _site/notebooks/01_forward_backward_by_hand.html \\
        shot.png [--width 1280] [--height 900] [--dark] [--mobile] [--full] \\
        [--scroll-to CSS]

Chromium talks the protocol on file descriptors 3 (commands in) and 4 (replies
out) when started with --remote-debugging-pipe: JSON messages ended by a NUL.
The browser is offline (every host name fails to resolve), so a page that tried
to load anything from another site would show it.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def find_chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; `page()` opens a tab. Use as a context manager."""

    def __init__(self, executable: str | None = None):
        executable = executable or find_chromium()
        if executable is None:
            raise BrowserError("chromium is not installed (Debian: apt-get install chromium)")
        self._profile = tempfile.TemporaryDirectory(prefix="g-to-grad-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds():  # in the child, before exec: its fd 3 reads commands, fd 4 replies
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
            "--mute-audio", f"--user-data-dir={self._profile.name}",
            # Offline, like a learner without a network: no host name resolves.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--remote-debugging-pipe", "about:blank",
        ]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, preexec_fn=wire_fds,
                                      close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._replies: dict[int, queue.Queue] = {}
        self._events: dict[str, queue.Queue] = {}   # sessionId -> its events
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- protocol -----------------------------------------------------------------
    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                for q in list(self._replies.values()):
                    q.put({"error": {"message": "chromium exited"}})
                return
            buf += chunk
            *messages, buf = buf.split(b"\0")
            for raw in messages:
                msg = json.loads(raw)
                if "id" in msg:
                    q = self._replies.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    with self._lock:
                        q = self._events.setdefault(msg.get("sessionId", ""), queue.Queue())
                    q.put(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 60) -> dict:
        mid = next(self._ids)
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        reply: queue.Queue = queue.Queue()
        self._replies[mid] = reply
        data = json.dumps(msg).encode() + b"\0"
        with self._lock:
            while data:
                data = data[os.write(self._to_browser, data):]
        try:
            answer = reply.get(timeout=timeout)
        except queue.Empty:
            raise BrowserError(f"{method}: no answer from chromium in {timeout} s") from None
        finally:
            del self._replies[mid]
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def events(self, session: str) -> queue.Queue:
        with self._lock:
            return self._events.setdefault(session, queue.Queue())

    def page(self, width: int = 1280, height: int = 900, dark: bool = False,
             mobile: bool = False) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, target, session, width, height, dark, mobile)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except BrowserError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """A tab with a fixed viewport and colour scheme; `open()` loads a page and waits
    until MathJax (if the page has it) has typeset and the web fonts have loaded."""

    def __init__(self, browser: Browser, target: str, session: str, width: int, height: int,
                 dark: bool, mobile: bool):
        self.browser, self.target, self.session = browser, target, session
        self.width, self.height = width, height
        self.requests: list[str] = []       # every URL the last page asked for
        self.failed: list[str] = []         # URLs that did not load, with the reason
        self.console_errors: list[str] = []
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.resize(width, height, mobile, settle=False)
        self.set_dark(dark, settle=False)
        # The theme remembers a chosen mode in localStorage; start every page from "auto",
        # which follows the emulated prefers-color-scheme.
        self.send("Page.addScriptToEvaluateOnNewDocument", {
            "source": "try { localStorage.removeItem('mode'); localStorage.removeItem('theme'); }"
                      " catch (e) {}"})

    def send(self, method: str, params: dict | None = None, timeout: float = 60) -> dict:
        return self.browser.send(method, params, self.session, timeout)

    def resize(self, width: int, height: int, mobile: bool = False, settle: bool = True):
        """A new viewport for the page as it is (no reload)."""
        self.width, self.height = width, height
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        if settle:
            self.settle()

    def set_dark(self, dark: bool, settle: bool = True):
        """prefers-color-scheme: dark or light (the theme, in "auto" mode, follows)."""
        scheme = "dark" if dark else "light"
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        if settle:
            self.settle()

    def settle(self):
        """Wait until the page has laid itself out again (two animation frames)."""
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def open(self, url: str, timeout: float = 60) -> None:
        events = self.browser.events(self.session)
        while not events.empty():
            events.get_nowait()
        self.requests, self.failed, self.console_errors = [], [], []
        urls: dict[str, str] = {}
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + timeout
        loaded = False
        while not loaded:
            try:
                msg = events.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise BrowserError(f"{url}: did not load in {timeout} s") from None
            loaded = self._note(msg, urls) or loaded
        # MathJax typesets after the load event; then the fonts it asked for must arrive.
        self.evaluate("""(async () => {
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
                await MathJax.startup.promise;
            }
            await document.fonts.ready;
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        })()""", timeout=timeout)
        while not events.empty():
            self._note(events.get_nowait(), urls)

    def _note(self, msg: dict, urls: dict) -> bool:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
            self.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            self.failed.append(f"{urls.get(params['requestId'], '?')}: {params.get('errorText')}")
        elif method == "Network.responseReceived":
            status = params["response"].get("status", 0)
            if status >= 400:
                self.failed.append(f"{params['response']['url']}: HTTP {status}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.console_errors.append(str(text)[:300])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.console_errors.append(params["entry"].get("text", "")[:300])
        return method == "Page.loadEventFired"

    def evaluate(self, expression: str, timeout: float = 60):
        """The value of a JavaScript expression (awaited if a promise), as JSON data."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True}, timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript error: {text}")
        return result.get("result", {}).get("value")

    def click(self, x: float, y: float) -> None:
        """A click (a tap on a phone) at a point of the viewport, as a finger or mouse
        makes it: pressed and released there."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                   "button": "left", "clickCount": 1})
        self.settle()

    def html(self) -> str:
        return self.evaluate("document.documentElement.outerHTML")

    def screenshot(self, path: str | os.PathLike, full: bool = False) -> None:
        params: dict = {"format": "png"}
        if full:
            size = self.evaluate("[document.documentElement.scrollWidth,"
                                 " document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1})
        data = self.send("Page.captureScreenshot", params, timeout=120)["data"]
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def close(self):
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target})
        except BrowserError:
            pass


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="an HTML file (or a URL)")
    parser.add_argument("png", help="where to write the screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    parser.add_argument("--mobile", action="store_true", help="emulate a phone")
    parser.add_argument("--full", action="store_true", help="the whole page, not the viewport")
    parser.add_argument("--scroll-to", metavar="CSS", help="scroll this element to the top")
    args = parser.parse_args(argv)
    url = args.page if "://" in args.page else pathlib.Path(args.page).resolve().as_uri()
    with Browser() as browser:
        page = browser.page(args.width, args.height, args.dark, args.mobile)
        page.open(url)
        if args.scroll_to:
            page.evaluate(f"document.querySelector({json.dumps(args.scroll_to)})"
                          ".scrollIntoView({block: 'start'})")
            time.sleep(0.3)
        page.screenshot(args.png, full=args.full)
        for failed in page.failed:
            print(f"failed to load: {failed}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
