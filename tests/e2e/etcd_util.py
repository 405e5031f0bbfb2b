"""A one-member etcd (Debian's etcd-server) on free loopback ports with its
data in a temporary directory, for the tests that run skiff on etcd."""
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

from conftest import free_port

ETCD = shutil.which("etcd") or "/usr/bin/etcd"
ETCDCTL = shutil.which("etcdctl") or "/usr/bin/etcdctl"


class Etcd:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="skiff-etcd-")
        self.port = free_port()
        self.peer = free_port()
        self.proc = None

    @property
    def endpoint(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=30):
        client, peer = f"http://{self.endpoint}", f"http://127.0.0.1:{self.peer}"
        log = open(os.path.join(self.dir, "etcd.log"), "ab")
        self.proc = subprocess.Popen(
            [ETCD, "--data-dir", os.path.join(self.dir, "data"), "--listen-client-urls", client,
             "--advertise-client-urls", client, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster", f"default={peer}"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{client}/health", timeout=1) as r:
                    if b'"true"' in r.read():
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("etcd did not start: " + open(os.path.join(self.dir, "etcd.log")).read()[-2000:])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def etcdctl(self, *args):
        env = dict(os.environ, ETCDCTL_API="3")
        r = subprocess.run([ETCDCTL, "--endpoints", self.endpoint] + list(args), capture_output=True, text=True,
                           env=env, timeout=30)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
