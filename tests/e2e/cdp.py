"""Headless Debian chromium driven over the Chrome DevTools Protocol on
--remote-debugging-pipe (fd 3: commands in, fd 4: replies and events out, each
a JSON text ended by a NUL byte), for tests/e2e/test_console.py and
bench/console_paint.py. No WebSocket: the pipe carries the messages as they are."""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM = os.environ.get("SKIFF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, width=1280, height=800):
        self.profile = tempfile.mkdtemp(prefix="skiff-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()

        def fds():
            # the child's fd 3 reads commands, fd 4 writes replies
            a, b = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        args = [CHROMIUM, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--ignore-certificate-errors", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
                "--disable-features=Translate,MediaRouter", "--mute-audio",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"]
        self.log = open(os.path.join(self.profile, "chromium.log"), "wb")
        # close_fds=False: Popen would close fds 3 and 4 after preexec_fn (the
        # pipes themselves are not inheritable, so nothing else leaks)
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        os.close(cmd_r)
        os.close(out_w)
        self.buf = b""
        self.next_id = 0
        self.handlers = {}
        self.replies = {}
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.viewport(width, height)

    def on(self, method, fn):
        """fn(params) runs for each event named method while a call waits."""
        self.handlers[method] = fn

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise CDPError("chromium did not answer in time")
            r, _, _ = select.select([self.out_r], [], [], left)
            if r:
                chunk = os.read(self.out_r, 1 << 20)
                if not chunk:
                    raise CDPError("chromium closed its pipe: " + self.log_tail())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        deadline = time.time() + timeout
        while want not in self.replies:
            m = self._read(deadline)
            if "id" in m:
                self.replies[m["id"]] = m  # an event handler's own call may read its caller's reply
                continue
            fn = self.handlers.get(m.get("method"))
            if fn:
                fn(m.get("params", {}))
        m = self.replies.pop(want)
        if "error" in m:
            raise CDPError(f"{method}: {m['error']}")
        return m.get("result", {})

    def viewport(self, width, height, mobile=False):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

    def navigate(self, url, timeout=60):
        self.call("Page.navigate", {"url": url}, timeout=timeout)

    def eval(self, expr, timeout=30):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise CDPError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def log_tail(self):
        try:
            with open(os.path.join(self.profile, "chromium.log"), errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.out_r)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
