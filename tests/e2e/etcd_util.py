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


class Etcd:
    def __init__(self, tls=False, args=()):
        self.args = list(args)
        self.dir = tempfile.mkdtemp(prefix="skiff-etcd-")
        self.port = free_port()
        self.peer = free_port()
        self.proc = None
        self.tls = tls
        if tls:
            self.make_certs()

    def make_certs(self):
        """A CA, etcd's serving certificate for 127.0.0.1 and a client certificate."""
        p = lambda n: os.path.join(self.dir, n)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.crt"),
                "-days", "1", "-subj", "/CN=etcd-ca")
        # etcd's gateway presents the serving certificate to etcd itself: clientAuth too
        for name, ext in (("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth"),
                          ("client", "extendedKeyUsage=clientAuth")):
            with open(p(name + ".ext"), "w") as f:
                f.write(ext.replace("\\n", "\n"))
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p(name + ".key"), "-out", p(name + ".csr"),
                    "-subj", f"/CN={name}")
            openssl("x509", "-req", "-in", p(name + ".csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"),
                    "-CAcreateserial", "-out", p(name + ".crt"), "-days", "1", "-extfile", p(name + ".ext"))
        self.ca, self.cert, self.key = p("ca.crt"), p("client.crt"), p("client.key")

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
            [ETCD, "--data-dir", os.path.join(self.dir, "data"), "--listen-client-urls", client,
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
