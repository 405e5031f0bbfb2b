"""The server under storage faults: the store's writes, fsyncs or SQLite's
allocations fail on demand (the fault-injection build, SKIFF_FAULT_CTL, see
docs/DEVELOPING.md), and a data directory on a small tmpfs fills up. Every
refused write answers a Status 500 (also once the database is unusable) and
is never visible, not to reads, not to watches, not after a restart or a
kill -9; every acknowledged write stays; reads and watches go on; writes are
taken again once the fault is gone."""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request

import pytest
import yaml

from conftest import Cluster
from test_agent_cluster import wait_for

# the faults are injected into SQLite's VFS (src/store/fault.c): make e2e-etcd leaves the module out
pytestmark = pytest.mark.sqlite


class Faults:
    """The control socket of a fault-injection build (one reply line per command)."""

    def __init__(self, path):
        self.path = path

    def __call__(self, line):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(self.path)
            s.sendall(line.encode() + b"\n")
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(256)
                assert chunk, f"fault control closed without a reply to {line!r}"
                reply += chunk
        reply = reply.decode().strip()
        assert reply.startswith("ok"), f"{line!r}: {reply}"
        return reply

    def fired(self, kind):
        fields = dict(kv.split("=") for kv in self(f"count {kind}").split()[1:])
        return int(fields["fired"])


def start(data_dir, monkeypatch, log_dir=None):
    ctl = os.path.join(log_dir or data_dir, "fault.sock")
    monkeypatch.setenv("SKIFF_FAULT_CTL", ctl)
    c = Cluster(data_dir, ["--no-agent"])
    if log_dir:
        c.log_path = os.path.join(log_dir, "server.log")
    c.start()
    if not os.path.exists(ctl):
        c.cleanup()
        pytest.skip(f"{os.path.basename(c.proc.args[0]) if c.proc else 'skiff'} has no fault injection "
                    "(SK_FAULT_INJECTION: use build/skiff-asan)")
    # the start's own writes done (every APIService's first status), so that a one-shot fault
    # armed by a test meets the test's write rather than one of those
    wait_for(lambda: all((i.get("status") or {}).get("conditions") for i in c.kjson("get", "apiservices")["items"]),
             30, what="every APIService's status")
    return c, Faults(ctl)


def call(c, method, path, body=None):
    cfg = yaml.safe_load(open(c.kubeconfig))
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + cfg["users"][0]["user"]["token"]}
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=60) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


CMS = "/api/v1/namespaces/default/configmaps"


def create(c, name, size=0):
    return call(c, "POST", CMS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                                 "data": {"k": name + "x" * size}})


def names(c):
    """The test's ConfigMaps (not kube-root-ca.crt, which every namespace has)."""
    code, lst = call(c, "GET", CMS)
    assert code == 200, lst
    return {i["metadata"]["name"] for i in lst["items"]} - {"kube-root-ca.crt"}


def assert_refused(code, st, http, reason, words):
    assert code == http, st
    assert st["kind"] == "Status" and st["status"] == "Failure" and st["reason"] == reason, st
    for w in words:
        assert w in st["message"], st


class Watcher:
    """A Python-client watch of the default namespace's ConfigMaps that
    records every event until it sees the object named `last`."""

    def __init__(self, c, rv, last):
        from kubernetes import client, watch
        self.events = []
        self.error = None
        self.api = client.CoreV1Api(c.api_client())
        self.w = watch.Watch()
        self.rv, self.last = rv, last
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            for ev in self.w.stream(self.api.list_namespaced_config_map, "default", resource_version=self.rv,
                                    timeout_seconds=300):
                name = ev["object"].metadata.name
                if name == "kube-root-ca.crt":  # the root CA publisher's, whenever it gets there
                    continue
                self.events.append((ev["type"], name))
                if name == self.last:
                    return
        except Exception as e:  # reported by join()
            self.error = e

    def join(self):
        self.t.join(300)
        assert not self.t.is_alive(), "the watch never saw " + self.last
        assert self.error is None, self.error
        return self.events


def list_rv(c):
    code, lst = call(c, "GET", CMS)
    assert code == 200
    return lst["metadata"]["resourceVersion"]


@pytest.mark.parametrize("arm,words", [
    ("fail write times=0 file=wal", ["disk I/O error", "not stored"]),
    ("fail sync times=0 file=wal", ["disk I/O error", "not stored"]),
    ("fail full times=0", ["database or disk is full", "not stored"]),
    ("fail malloc times=0", ["out of memory", "not stored"]),
    ("fail malloc every=3 times=0", ["out of memory", "not stored"]),
])
def test_failed_commit_is_refused_invisible_and_recovered(tmpdir_skiff, monkeypatch, arm, words):
    c, fault = start(tmpdir_skiff, monkeypatch)
    try:
        assert create(c, "before")[0] == 201
        watch = Watcher(c, list_rv(c), "after")
        fault(arm)
        for i in range(3):
            code, st = create(c, f"refused-{i}")
            assert_refused(code, st, 500, "InternalError", words)
        # reads go on: get, list, kubectl
        assert call(c, "GET", CMS + "/before")[0] == 200
        assert call(c, "GET", CMS + "/refused-0")[0] == 404
        r = c.kubectl("get", "cm", "refused-1", check=False)
        assert r.returncode != 0 and "NotFound" in r.stderr
        r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "by-kubectl"}}))
        assert r.returncode != 0 and "(InternalError)" in r.stderr and words[0] in r.stderr, r.stderr
        fault("clear")
        assert create(c, "after")[0] == 201
        assert [n for _, n in watch.join()] == ["after"]
        assert names(c) == {"before", "after"}
        assert c.stop() == 0
        c.start()
        assert names(c) == {"before", "after"}
        assert create(c, "after-restart")[0] == 201
    finally:
        c.cleanup()


def test_failed_fsync_then_kill9(tmpdir_skiff, monkeypatch):
    """A failed fsync leaves the refused transaction's frames in the WAL; a
    kill -9 right after must not bring it back."""
    c, fault = start(tmpdir_skiff, monkeypatch)
    try:
        assert create(c, "kept")[0] == 201
        refused = []
        for i in range(5):  # an in-process controller's write may take the one-shot fault first
            fault("fail sync file=wal")
            code, st = create(c, f"refused-{i}")
            if code != 201:
                assert_refused(code, st, 500, "InternalError", ["disk I/O error"])
                refused.append(f"refused-{i}")
                break
        assert refused and fault.fired("sync") == 1
        c.stop(sig=signal.SIGKILL)
        c.start()
        got = names(c)
        assert "kept" in got and not set(refused) & got
    finally:
        c.cleanup()


def test_allocation_faults_during_a_burst(tmpdir_skiff, monkeypatch):
    """One in ten of SQLite's allocations fails for a while, under eight
    concurrent writers: each write is acknowledged and stays, or is refused
    with a Status and never appears."""
    c, fault = start(tmpdir_skiff, monkeypatch)
    acked, refused, bad = [], [], []
    lock = threading.Lock()

    def writer(i):
        for n in range(25):
            name = f"w{i}-{n}"
            code, st = create(c, name)
            with lock:
                if code == 201:
                    acked.append(name)
                elif code in (500, 503) and st.get("kind") == "Status":
                    refused.append(name)
                else:
                    bad.append((name, code, st))

    try:
        fault("fail malloc nth=2 every=10 times=60")
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        fault("clear")
        assert not bad, bad[:3]
        assert refused and acked
        assert names(c) == set(acked)
        assert c.stop() == 0
        c.start()
        assert names(c) == set(acked)
        assert create(c, "after")[0] == 201
    finally:
        c.cleanup()


def test_unusable_database_refuses_writes_and_serves_reads(tmpdir_skiff, monkeypatch):
    c, fault = start(tmpdir_skiff, monkeypatch)
    try:
        assert create(c, "kept")[0] == 201
        fault("fail write rc=corrupt times=0 file=wal")
        code, st = create(c, "refused")
        assert_refused(code, st, 500, "InternalError", ["unusable", "malformed"])
        fault("clear")
        code, st = create(c, "still-refused")
        assert_refused(code, st, 500, "InternalError", ["unusable", "restart"])
        assert names(c) == {"kept"}
        assert json.loads(c.kubectl("get", "cm", "kept", "-o", "json").stdout)["data"]["k"] == "kept"
        assert c.stop() == 0
        c.start()
        assert names(c) == {"kept"}
        assert create(c, "after-restart")[0] == 201
    finally:
        c.cleanup()


def fill(path):
    """Writes path until the file system is full."""
    with open(path, "wb", buffering=0) as f:
        for chunk in (1 << 20, 4096, 512):
            try:
                while True:
                    f.write(b"\0" * chunk)
            except OSError:
                pass


@pytest.fixture
def small_fs():
    """A 48 MiB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    top = tempfile.mkdtemp(prefix="skiff-fullfs-")
    mnt, logs = os.path.join(top, "mnt"), os.path.join(top, "logs")
    os.makedirs(mnt)
    os.makedirs(logs)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", mnt], capture_output=True)
    if r.returncode != 0:
        shutil.rmtree(top, ignore_errors=True)
        pytest.skip("cannot mount a tmpfs: " + r.stderr.decode())
    try:
        yield mnt, logs
    finally:
        subprocess.run(["umount", mnt], capture_output=True)
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", mnt], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def test_full_disk_refuses_writes_keeps_reads_and_watches(small_fs, monkeypatch):
    mnt, logs = small_fs
    data = os.path.join(mnt, "data")
    c, _ = start(data, monkeypatch, log_dir=logs)
    filler = os.path.join(mnt, "filler")
    try:
        acked = [f"early-{i}" for i in range(20)]
        for n in acked:
            assert create(c, n, 2000)[0] == 201
        watch = Watcher(c, list_rv(c), "after-space")
        refused = []
        fill(filler)
        for i in range(300):  # writes may go on while the WAL has room
            name = f"burst-{i}"
            code, st = create(c, name, 200_000)
            if code == 201:
                acked.append(name)
                continue
            assert_refused(code, st, 500, "InternalError", ["database or disk is full"])
            refused.append(name)
            if len(refused) == 3:
                break
        assert len(refused) == 3
        # reads and the watch go on while the disk is full
        assert names(c) == set(acked)
        assert call(c, "GET", CMS + "/early-0")[0] == 200
        assert "configmap/early-1" in c.kubectl("get", "cm", "-o", "name").stdout
        os.unlink(filler)
        assert create(c, "after-space")[0] == 201
        acked.append("after-space")
        seen = watch.join()
        assert [n for _, n in seen] == [n for n in acked if not n.startswith("early-")]
        assert all(t == "ADDED" for t, _ in seen)
        assert c.stop() == 0
        c.start()
        assert names(c) == set(acked)
    finally:
        c.cleanup()
        if os.path.exists(filler):
            os.unlink(filler)
