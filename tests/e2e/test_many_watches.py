"""Many watches opened at once (issue: 50 of the API benchmark's 1,000
watchers never streamed on a loaded machine). Every watch a client opens is
served: 300 HTTPS watches whose TLS handshakes all start together (the
server's event loops fall behind; that time is not charged against the
clients' header deadline, kube-apiserver's 32 s) each get the existing pod as
ADDED and then the events that follow."""
import json
import socket
import ssl
import threading
import urllib.request

import yaml

from conftest import SLOW

WATCHES = 300
NS = "default"
PODS = f"/api/v1/namespaces/{NS}/pods"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


def call(c, tok, method, path, body=None, ctype="application/json"):
    """One request in this process (no kubectl: 300 streams keep the
    machine busy), answered with its HTTP status."""
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Bearer " + tok, "Content-Type": ctype})
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    ctx.check_hostname = False
    with urllib.request.urlopen(req, context=ctx, timeout=60 * SLOW) as r:
        return r.status


def token(c):
    with open(c.kubeconfig) as f:
        return yaml.safe_load(f)["users"][0]["user"]["token"]


class Watch(threading.Thread):
    """One raw HTTPS watch on the pods of NS: records the status line and
    every event's (type, name) until it has seen `until` or its socket times
    out."""

    def __init__(self, c, tok, ctx, start, until):
        super().__init__(daemon=True)
        self.c, self.tok, self.ctx, self.start_evt, self.until = c, tok, ctx, start, until
        self.status, self.events, self.error = None, [], None
        self.first = threading.Event()

    def run(self):
        try:
            self.start_evt.wait()
            raw = socket.create_connection(("127.0.0.1", self.c.port), timeout=90 * SLOW)
            s = self.ctx.wrap_socket(raw, server_hostname="127.0.0.1")
            s.sendall((f"GET {PODS}?watch=true HTTP/1.1\r\nHost: x\r\n"
                       f"Authorization: Bearer {self.tok}\r\n\r\n").encode())
            f = s.makefile("rb")
            self.status = f.readline().split(b" ")[1].decode()
            while f.readline() not in (b"\r\n", b""):
                pass
            buf = b""
            while True:
                size = f.readline()
                if not size or int(size.strip(), 16) == 0:
                    return
                buf += f.read(int(size.strip(), 16))
                f.readline()
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    ev = json.loads(line)
                    self.events.append((ev["type"], ev["object"]["metadata"]["name"]))
                    self.first.set()
                    if self.events[-1] == self.until:
                        s.close()
                        return
        except Exception as e:  # noqa: BLE001 (reported by the assertion)
            self.error = repr(e)
        finally:
            self.first.set()


def test_every_watch_opened_at_once_streams(api_cluster):
    c = api_cluster
    tok = token(c)
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    ctx.check_hostname = False
    assert call(c, tok, "POST", PODS, pod("w0")) == 201
    start = threading.Event()
    ws = [Watch(c, tok, ctx, start, ("DELETED", "w1")) for _ in range(WATCHES)]
    for w in ws:
        w.start()
    start.set()
    # each watch streams: the pod that was there is its first event
    for w in ws:
        w.first.wait(90 * SLOW)
    assert [w.error for w in ws if w.error] == []
    assert {w.status for w in ws} == {"200"}
    assert all(w.events[:1] == [("ADDED", "w0")] for w in ws)
    # and then every event that follows, in order
    assert call(c, tok, "POST", PODS, pod("w1")) == 201
    assert call(c, tok, "PATCH", PODS + "/w1", {"metadata": {"labels": {"e2e": "many-watches"}}},
                "application/merge-patch+json") == 200
    assert call(c, tok, "DELETE", PODS + "/w1?gracePeriodSeconds=0") == 200
    for w in ws:
        w.join(60 * SLOW)
    assert [w.error for w in ws if w.error] == []
    assert all(not w.is_alive() for w in ws)
    for w in ws:
        rest = [e for e in w.events[1:] if e[1] == "w1"]
        assert rest[0] == ("ADDED", "w1") and rest[-1] == ("DELETED", "w1"), rest
        assert ("MODIFIED", "w1") in rest, rest
