#!/usr/bin/env python3
"""Loads a page in headless Chromium and reports what a test needs to know about it, as JSON.

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: commands in on fd 3,
replies and events out on fd 4, each message a JSON text ended by a NUL byte), so only the Python
standard library is needed.

    inspect_page.py PAGE.html [--eval EXPR] [--probe EXPR] [--screenshot OUT.png] [--width W --height H]

Waits until `window.sightlineReport.ready` is true, then evaluates EXPR (its value, as JSON, is
"value"), evaluates the probe EXPR (a list of {x, y} page points, read after the page has settled;
"probe_points") and takes a screenshot of the viewport. Also reports console messages, uncaught
exceptions, log entries and every network request the page made. Exit 0 when the page became
ready, 1 otherwise (with "error").
"""
import argparse
import base64
import fcntl
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, executable, width, height):
        self.profile = tempfile.mkdtemp(prefix="sightline-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Move the child's ends above the low numbers, so putting them on 3 and 4 cannot collide.
        child_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def on_fds():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [executable, "--headless", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
                "--disable-gpu", "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")   # Chromium refuses to run as root with its sandbox
        self.process = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=on_fds,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(child_in)
        os.close(child_out)
        self.write = os.fdopen(to_browser_w, "wb", buffering=0)
        self.read_fd = from_browser_r
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.write.write(json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for k, event in enumerate(self.events):
            if event.get("method") == method:
                return event
        while True:
            event = self._receive(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page")
    parser.add_argument("--eval", default="null", help="expression whose value is reported")
    parser.add_argument("--probe", help="expression giving [{x, y}, …] page points to read from the screenshot")
    parser.add_argument("--screenshot", help="where to write the viewport screenshot (PNG)")
    parser.add_argument("--full-page", action="store_true", help="screenshot the whole page, not only the viewport")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    options = parser.parse_args()

    url = pathlib.Path(options.page).resolve().as_uri()
    browser = Browser(options.chromium, options.width, options.height)
    result = {"url": url}
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": options.width, "height": options.height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        started = time.monotonic()
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_event("Page.loadEventFired", timeout=options.timeout)
        ready = False
        while time.monotonic() - started < options.timeout:
            value = browser.send("Runtime.evaluate", {"expression": "!!(window.sightlineReport && window.sightlineReport.ready)",
                                                      "returnByValue": True}, session=session)
            if value.get("result", {}).get("value"):
                ready = True
                break
            time.sleep(0.05)
        result["ready"] = ready

        def evaluate(expression):
            reply = browser.send("Runtime.evaluate", {"expression": f"JSON.stringify({expression})", "returnByValue": True,
                                                      "awaitPromise": True}, session=session, timeout=options.timeout)
            if "exceptionDetails" in reply:
                raise RuntimeError(f"evaluating {expression!r}: {reply['exceptionDetails']}")
            text = reply.get("result", {}).get("value")
            return json.loads(text) if text is not None else None

        result["value"] = evaluate(options.eval)
        if options.probe:
            result["probe_points"] = evaluate(options.probe)
        # Two animation frames: whatever the probe scrolled is painted before the screenshot.
        evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")
        if options.screenshot:
            params = {"format": "png"}
            if options.full_page:
                size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
                params.update(captureBeyondViewport=True,
                              clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
            shot = browser.send("Page.captureScreenshot", params, session=session, timeout=options.timeout)
            pathlib.Path(options.screenshot).write_bytes(base64.b64decode(shot["data"]))
            result["screenshot"] = options.screenshot
    except Exception as error:   # reported, not raised: the caller asserts on the JSON
        result["error"] = f"{type(error).__name__}: {error}"
    finally:
        browser.close()

    console, exceptions, log, requests = [], [], [], []
    for event in browser.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            console.append({"type": params.get("type"),
                            "text": " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))})
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exceptions.append(details.get("exception", {}).get("description") or details.get("text"))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            log.append({"level": entry.get("level"), "text": entry.get("text"), "url": entry.get("url")})
        elif method == "Network.requestWillBeSent":
            requests.append(params.get("request", {}).get("url", "")[:200])   # data: URLs can be long
    result.update(console=console, exceptions=exceptions, log=log, requests=requests)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0 if result.get("ready") and "error" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
