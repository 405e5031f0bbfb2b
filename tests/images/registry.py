"""A loopback OCI registry for tests: Debian's docker-registry (distribution)
on 127.0.0.1:<free port>, storage in a temporary directory, optionally with
TLS (self-signed certificate made with GnuTLS's certtool) and htpasswd basic
auth (htpasswd -B). Images are pushed with skopeo.

    with Registry(tls=True, auth=("user", "pw")) as reg:
        reg.push("oci:/path/oci:1", "busybox:1")
        reg.host  # "127.0.0.1:PORT"
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


CERT_TEMPLATE = """cn = "127.0.0.1"
ip_address = "127.0.0.1"
dns_name = "localhost"
expiration_days = 2
tls_www_server
signing_key
encryption_key
ca
"""


class Registry:
    def __init__(self, tls=False, auth=None):
        self.tls, self.auth = tls, auth
        self.dir = tempfile.mkdtemp(prefix="skiff-registry-")
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.proc = None
        self.cert = os.path.join(self.dir, "cert.pem")

    def _config(self):
        lines = ["version: 0.1", "log:", "  level: error", "storage:", "  filesystem:",
                 f"    rootdirectory: {self.dir}/data", "  delete:", "    enabled: true",
                 "http:", f"  addr: {self.host}"]
        if self.tls:
            key = os.path.join(self.dir, "key.pem")
            tmpl = os.path.join(self.dir, "cert.tmpl")
            with open(tmpl, "w") as f:
                f.write(CERT_TEMPLATE)
            subprocess.run(["certtool", "--generate-privkey", "--outfile", key],
                           check=True, capture_output=True)
            subprocess.run(["certtool", "--generate-self-signed", "--load-privkey", key,
                            "--template", tmpl, "--outfile", self.cert], check=True, capture_output=True)
            lines += ["  tls:", f"    certificate: {self.cert}", f"    key: {key}"]
        if self.auth:
            pw = os.path.join(self.dir, "htpasswd")
            out = subprocess.run(["htpasswd", "-Bbn", self.auth[0], self.auth[1]],
                                 check=True, capture_output=True, text=True).stdout
            with open(pw, "w") as f:
                f.write(out)
            lines += ["auth:", "  htpasswd:", "    realm: skiff-test", f"    path: {pw}"]
        path = os.path.join(self.dir, "config.yml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def start(self, timeout=20):
        cfg = self._config()
        self.log = open(os.path.join(self.dir, "registry.log"), "wb")
        self.proc = subprocess.Popen(["/usr/bin/docker-registry", "serve", cfg], stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("docker-registry exited: " + open(self.log.name).read())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("docker-registry did not start")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def push(self, src, name):
        """skopeo copy SRC (e.g. oci:DIR:TAG) to docker://HOST/NAME."""
        cmd = ["skopeo", "copy", "-q", "--dest-tls-verify=false"]
        if self.auth:
            cmd += ["--dest-creds", f"{self.auth[0]}:{self.auth[1]}"]
        subprocess.run(cmd + [src, f"docker://{self.host}/{name}"], check=True, capture_output=True)

    def dockerconfigjson(self, user=None, password=None):
        user, password = (user, password) if user else self.auth
        auth = base64.b64encode(f"{user}:{password}".encode()).decode()
        return json.dumps({"auths": {self.host: {"auth": auth}}})

    def blob_path(self, digest):
        """Where the registry keeps a blob's bytes (to tamper with them)."""
        hexd = digest.split(":", 1)[1]
        return os.path.join(self.dir, "data", "docker", "registry", "v2", "blobs", "sha256",
                            hexd[:2], hexd, "data")
