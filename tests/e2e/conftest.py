"""Fixtures that start build/skiff and drive it with the real kubectl and
the Python kubernetes client. Every server runs on a free loopback port
with its own temporary data directory and is stopped after the test.
A ThreadSanitizer report in a server's log (build/skiff-tsan) fails the
test that was running when it was written."""
import hashlib
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import shutil

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIFF = os.environ.get("SKIFF_BIN", os.path.join(ROOT, "build", "skiff"))
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
TSAN_REPORT = b"WARNING: ThreadSanitizer"
# Waits' deadlines are multiplied by this (SKIFF_E2E_SLOW; tests/run-all.sh
# sets 2 while the two partitions share the machine): a slow machine waits
# longer, a passing test takes no longer.
SLOW = float(os.environ.get("SKIFF_E2E_SLOW", "1"))
_clusters = []


_handed_out = set()


def free_port():
    """A loopback port nothing listens on, never one this process handed out
    before: the kernel may give a just-closed port again at once, and a caller
    that takes several ports before binding any (etcd's members) would get a
    duplicate."""
    for _ in range(100):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError("no free loopback port not handed out before")


class Cluster:
    def __init__(self, data_dir, extra=()):
        self.data_dir = data_dir
        self.port = free_port()
        self.extra = list(extra)
        self.proc = None
        self.cache = tempfile.mkdtemp(prefix="skiff-kcache-")
        self.log_path = os.path.join(data_dir, "server.log")
        self.kubeconfig = os.path.join(data_dir, "kubeconfig")
        self.log_read = 0
        self.reports = []
        self.listen_host = "127.0.0.1"
        # make e2e-etcd: every server on the run's etcd (unless its flags name a store), under
        # a root of its data directory's (started again on it, it finds its objects)
        etcd = os.environ.get("SKIFF_E2E_ETCD")
        self.etcd_args = []
        if etcd:
            root = hashlib.sha256(os.path.realpath(data_dir).encode()).hexdigest()[:12]
            self.etcd_args = ["--datastore-endpoint", f"etcd://{etcd}/e2e-{root}"]
        _clusters.append(self)

    def start(self, timeout=20):
        os.makedirs(self.data_dir, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [SKIFF, "server", "--data-dir", self.data_dir, "--listen", f"{self.listen_host}:{self.port}"] + self.extra +
            (self.etcd_args if "--datastore-endpoint" not in self.extra else []),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"skiff server exited with {self.proc.returncode}: {self.log()}")
            if os.path.exists(self.kubeconfig):
                r = self.kubectl("get", "--raw", "/readyz", check=False)
                if r.returncode == 0 and r.stdout.strip() == "ok":
                    return self
            time.sleep(0.05)
        raise RuntimeError("skiff server did not become ready: " + self.log())

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        rc = self.proc.returncode if self.proc else None
        self.proc = None
        self.read_reports()
        return rc

    def read_reports(self):
        """Keeps the ThreadSanitizer reports the log gained since the last call
        (before a test removes the data directory)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self.log_read)
                data = f.read()
        except OSError:
            return
        self.log_read += len(data)
        i = data.find(TSAN_REPORT)
        if i >= 0:
            self.reports.append(data[i:i + 8000].decode(errors="replace"))

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def kubectl(self, *args, check=True, input=None, timeout=60):
        cmd = [KUBECTL, "--kubeconfig", self.kubeconfig, "--cache-dir", self.cache] + list(args)
        r = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return r

    def kjson(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def api_client(self):
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=cfg)
        return client.ApiClient(cfg)

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.cache, ignore_errors=True)


def fail_on_sanitizer_reports():
    found = []
    for c in list(_clusters):
        c.read_reports()
        found += c.reports
        c.reports = []
        if c.proc is None:
            _clusters.remove(c)
    if found:
        pytest.fail("ThreadSanitizer reported:\n" + "\n".join(found), pytrace=False)


@pytest.fixture(autouse=True)
def no_sanitizer_reports():
    yield
    fail_on_sanitizer_reports()


@pytest.fixture
def tmpdir_skiff():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def api_cluster():
    """A control plane without a node agent, shared by a test module."""
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent"]).start()
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)
    fail_on_sanitizer_reports()


# ---- two partitions run side by side (tests/run-e2e.sh) ----
#
# Modules that start node agents (embedded in a server without --no-agent,
# `skiff agent`, network-namespace nodes) share the host's routes, bridges,
# nftables and pod CIDRs, so they run one at a time: they carry
# `pytestmark = pytest.mark.agents`. The others (a control plane without an
# agent, hollow or simulated nodes) run in a second pytest process at the same
# time. SKIFF_E2E_PART=agents|hollow selects a partition; in the hollow one a
# process that would start an agent is refused, so a module that forgot its
# mark fails at once rather than racing the agents' partition.
PART = os.environ.get("SKIFF_E2E_PART", "")


def pytest_configure(config):
    config.addinivalue_line("markers", "agents: starts node agents (routes, bridges, nftables); run one at a time")
    config.addinivalue_line("markers", "sqlite: exercises the SQLite store itself; left out by make e2e-etcd")


def pytest_collection_modifyitems(config, items):
    etcd = bool(os.environ.get("SKIFF_E2E_ETCD"))
    if PART not in ("agents", "hollow") and not etcd:
        return
    keep, drop = [], []
    for item in items:
        wanted = PART not in ("agents", "hollow") or (item.get_closest_marker("agents") is not None) == (PART == "agents")
        if etcd and item.get_closest_marker("sqlite") is not None:
            wanted = False
        (keep if wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def starts_agent(args):
    """Whether a command line starts a node agent: `skiff agent`, or `skiff
    server` with its embedded agent (anything but --no-agent)."""
    if isinstance(args, (str, bytes)):
        return False
    args = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    for i, a in enumerate(args[:-1]):
        if os.path.basename(a).startswith("skiff") and os.path.basename(a) != "skiff-e2e":
            verb = args[i + 1]
            return verb == "agent" or (verb == "server" and "--no-agent" not in args and "--help" not in args)
    return False


if PART == "hollow":
    _popen_init = subprocess.Popen.__init__

    def _guarded_popen_init(self, args, *a, **kw):
        if starts_agent(args):
            raise RuntimeError("this test starts a node agent (%s): its module needs "
                               "`pytestmark = pytest.mark.agents` (tests/e2e/conftest.py)" % " ".join(map(str, args)))
        _popen_init(self, args, *a, **kw)

    subprocess.Popen.__init__ = _guarded_popen_init
