"""A one-member etcd (Debian's etcd-server) on free loopback ports with its
data in a temporary directory, for the tests that run skiff on etcd."""
import os
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request

from conftest import free_port, SLOW

ETCD = shutil.which("etcd") or "/usr/bin/etcd"
ETCDCTL = shutil.which("etcdctl") or "/usr/bin/etcdctl"


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=60)


def make_certs(d, servers):
    """In directory d: a CA (ca.crt), for each name in servers NAME.crt/.key
    valid for 127.0.0.1, and client.crt/.key; returns (ca, client cert, key)."""
    p = lambda n: os.path.join(d, n)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.crt"),
            "-days", "1", "-subj", "/CN=etcd-ca")
    # etcd's gateway (and a peer) presents the serving certificate to etcd itself: clientAuth too
    exts = [(n, "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth") for n in servers]
    for name, ext in exts + [("client", "extendedKeyUsage=clientAuth")]:
        with open(p(name + ".ext"), "w") as f:
            f.write(ext)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p(name + ".key"), "-out", p(name + ".csr"),
                "-subj", f"/CN={name}")
        openssl("x509", "-req", "-in", p(name + ".csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"),
                "-CAcreateserial", "-out", p(name + ".crt"), "-days", "1", "-extfile", p(name + ".ext"))
    return p("ca.crt"), p("client.crt"), p("client.key")


class Etcd:
    def __init__(self, tls=False, args=()):
        self.args = list(args)
        self.dir = tempfile.mkdtemp(prefix="skiff-etcd-")
        self.port = free_port()
        self.peer = free_port()
        self.proc = None
        self.tls = tls
        self.data = os.path.join(self.dir, "data")  # a test may point it at a restored member
        if tls:
            self.make_certs()

    def make_certs(self):
        """A CA, etcd's serving certificate for 127.0.0.1 and a client certificate."""
        self.ca, self.cert, self.key = make_certs(self.dir, ["server"])

    @property
    def endpoint(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=30):
        scheme = "https" if self.tls else "http"
        client, peer = f"{scheme}://{self.endpoint}", f"http://127.0.0.1:{self.peer}"
        log = open(os.path.join(self.dir, "etcd.log"), "ab")
        tls = []
        if self.tls:
            d = self.dir
            tls = ["--cert-file", os.path.join(d, "server.crt"), "--key-file", os.path.join(d, "server.key"),
                   "--client-cert-auth", "--trusted-ca-file", self.ca]
        self.proc = subprocess.Popen(
            [ETCD, "--data-dir", self.data, "--listen-client-urls", client,
             "--advertise-client-urls", client, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster", f"default={peer}"] + tls + self.args,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                ctx = None
                if self.tls:
                    ctx = ssl.create_default_context(cafile=self.ca)
                    ctx.load_cert_chain(self.cert, self.key)
                with urllib.request.urlopen(f"{client}/health", timeout=1, context=ctx) as r:
                    if b'"true"' in r.read():
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("etcd did not start: " + open(os.path.join(self.dir, "etcd.log")).read()[-2000:])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def etcdctl(self, *args):
        env = dict(os.environ, ETCDCTL_API="3")
        tls = ["--cacert", self.ca, "--cert", self.cert, "--key", self.key] if self.tls else []
        # generous timeouts: CI's 2 cores are busy
        r = subprocess.run([ETCDCTL, "--endpoints", self.endpoint, "--dial-timeout=20s", "--command-timeout=30s"] +
                           tls + list(args), capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 0, f"etcdctl {' '.join(args)}: {r.stderr}"
        return r.stdout

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class EtcdCluster:
    """A 3-member etcd cluster (Debian's etcd-server) on free loopback ports,
    each member's data in its own directory under one temporary directory.
    kill(i) is a kill -9 of member i, start(i) brings it back on its data."""

    def __init__(self, members=3, tls=False):
        self.dir = tempfile.mkdtemp(prefix="skiff-etcd3-")
        self.names = [f"m{i}" for i in range(members)]
        self.ports = [free_port() for _ in self.names]
        self.peers = [free_port() for _ in self.names]
        self.procs = [None] * members
        self.tls = tls
        self.scheme = "https" if tls else "http"
        self.initial = ",".join(f"{n}={self.scheme}://127.0.0.1:{p}" for n, p in zip(self.names, self.peers))
        if tls:
            try:
                self.make_certs()
            except Exception:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise

    def make_certs(self):
        """One CA; per member a certificate for 127.0.0.1 that serves clients
        and peers and is a peer's client certificate too; a client
        certificate for skiff and etcdctl."""
        self.ca, self.cert, self.key = make_certs(self.dir, self.names)

    def tls_args(self, i):
        if not self.tls:
            return []
        crt, key = os.path.join(self.dir, self.names[i] + ".crt"), os.path.join(self.dir, self.names[i] + ".key")
        return ["--cert-file", crt, "--key-file", key, "--client-cert-auth", "--trusted-ca-file", self.ca,
                "--peer-cert-file", crt, "--peer-key-file", key, "--peer-client-cert-auth",
                "--peer-trusted-ca-file", self.ca]

    @property
    def endpoints(self):
        return [f"127.0.0.1:{p}" for p in self.ports]

    def launch(self, i):
        client = f"{self.scheme}://127.0.0.1:{self.ports[i]}"
        peer = f"{self.scheme}://127.0.0.1:{self.peers[i]}"
        log = open(os.path.join(self.dir, f"{self.names[i]}.log"), "ab")
        self.procs[i] = subprocess.Popen(
            [ETCD, "--name", self.names[i], "--data-dir", os.path.join(self.dir, self.names[i]),
             "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster", self.initial,
             "--initial-cluster-state", "new", "--initial-cluster-token", os.path.basename(self.dir)] +
            self.tls_args(i), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def healthy(self, i):
        """Member i answers and the cluster has a leader (etcd's /health)."""
        ctx = None
        if self.tls:
            ctx = ssl.create_default_context(cafile=self.ca)
            ctx.load_cert_chain(self.cert, self.key)
        try:
            with urllib.request.urlopen(f"{self.scheme}://{self.endpoints[i]}/health", timeout=1, context=ctx) as r:
                return b'"true"' in r.read()
        except OSError:
            return False

    def wait_healthy(self, members, timeout=60):
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            if all(self.healthy(i) for i in members):
                return self
            for i in members:
                if self.procs[i].poll() is not None:
                    raise RuntimeError(f"etcd {self.names[i]} exited: " + self.log(i))
            time.sleep(0.1)
        raise RuntimeError("etcd cluster not healthy: " + " | ".join(self.log(i) for i in members))

    def start(self, *members):
        members = members or range(len(self.names))
        for i in members:
            self.launch(i)
        return self.wait_healthy(members)

    def kill(self, i):
        p = self.procs[i]
        if p and p.poll() is None:
            p.kill()
            p.wait()
        self.procs[i] = None

    def log(self, i):
        try:
            with open(os.path.join(self.dir, f"{self.names[i]}.log"), errors="replace") as f:
                return f.read()[-1500:]
        except OSError:
            return ""

    def etcdctl(self, *args):
        env = dict(os.environ, ETCDCTL_API="3")
        tls = ["--cacert", self.ca, "--cert", self.cert, "--key", self.key] if self.tls else []
        r = subprocess.run([ETCDCTL, "--endpoints", ",".join(self.endpoints), "--dial-timeout=20s",
                            "--command-timeout=30s"] + tls + list(args), capture_output=True, text=True, env=env,
                           timeout=60)
        assert r.returncode == 0, f"etcdctl {' '.join(args)}: {r.stderr}"
        return r.stdout

    def cleanup(self):
        for i in range(len(self.procs)):
            self.kill(i)
        shutil.rmtree(self.dir, ignore_errors=True)
