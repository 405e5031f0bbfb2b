#!/usr/bin/python3
"""A small registry for the cases docker-registry cannot stage: bearer token
auth (realm/service/scope), a multi-platform index, and a connection cut in
the middle of every layer's first download (so clients must resume with
Range). Serves the tags of an OCI layout read-only.

    fakeregistry.py OCI_DIR PORT_FILE   writes its port to PORT_FILE, runs until killed
GET /stats returns JSON counters: manifest and blob requests, range requests, tokens.
"""
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "t0k3n"
lock = threading.Lock()
stats = {"manifests": 0, "blobs": 0, "ranges": 0, "tokens": 0, "cut": []}


def load(oci):
    with open(os.path.join(oci, "index.json")) as f:
        idx = json.load(f)
    tags = {}
    for m in idx["manifests"]:
        tag = m.get("annotations", {}).get("org.opencontainers.image.ref.name")
        if tag:
            tags[tag] = m
    return tags


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body=b"", ctype="application/json", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, err, msg, headers=()):
        self.send(code, json.dumps({"errors": [{"code": err, "message": msg}]}).encode(), headers=headers)

    def authorized(self):
        if self.headers.get("Authorization") == "Bearer " + TOKEN:
            return True
        port = self.server.server_address[1]
        self.error(401, "UNAUTHORIZED", "authentication required", headers=[(
            "WWW-Authenticate",
            f'Bearer realm="http://127.0.0.1:{port}/token",service="fake",scope="repository:x:pull"')])
        return False

    def do_GET(self):
        oci = self.server.oci
        path = self.path.split("?")[0]
        if path == "/stats":
            with lock:
                return self.send(200, json.dumps(stats).encode())
        if path == "/token":
            with lock:
                stats["tokens"] += 1
            return self.send(200, json.dumps({"token": TOKEN}).encode())
        if not self.authorized():
            return
        if path == "/v2/":
            return self.send(200, b"{}")
        m = re.match(r"^/v2/(.+)/manifests/([^/]+)$", path)
        if m:
            with lock:
                stats["manifests"] += 1
            return self.manifest(oci, m.group(2))
        m = re.match(r"^/v2/(.+)/blobs/(sha256:[0-9a-f]{64})$", path)
        if m:
            with lock:
                stats["blobs"] += 1
            return self.blob(oci, m.group(2))
        self.error(404, "NAME_UNKNOWN", "repository name not known to registry")

    def manifest(self, oci, ref):
        tags = load(oci)
        if ref in tags:
            desc = dict(tags[ref])
            desc.pop("annotations", None)
            desc["platform"] = {"os": "linux", "architecture": "amd64"}
            other = {"mediaType": desc["mediaType"], "size": 1,
                     "digest": "sha256:" + "0" * 64, "platform": {"os": "linux", "architecture": "arm64"}}
            body = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                               "manifests": [other, desc]}).encode()
            return self.send(200, body, "application/vnd.oci.image.index.v1+json")
        p = os.path.join(oci, "blobs", "sha256", ref.split(":")[-1])
        if ref.startswith("sha256:") and os.path.exists(p):
            with open(p, "rb") as f:
                return self.send(200, f.read(), "application/vnd.oci.image.manifest.v1+json")
        self.error(404, "MANIFEST_UNKNOWN", "manifest unknown")

    def blob(self, oci, digest):
        p = os.path.join(oci, "blobs", "sha256", digest.split(":")[1])
        if not os.path.exists(p):
            return self.error(404, "BLOB_UNKNOWN", "blob unknown to registry")
        with open(p, "rb") as f:
            data = f.read()
        rng = self.headers.get("Range")
        if rng:
            with lock:
                stats["ranges"] += 1
            start = int(re.match(r"bytes=(\d+)-", rng).group(1))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            self.wfile.write(data[start:])
            return
        with lock:
            cut = len(data) > 4096 and digest not in stats["cut"]
            if cut:
                stats["cut"].append(digest)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if cut:   # half of it, then hang up
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(data)


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.oci = sys.argv[1]
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    srv.serve_forever()


if __name__ == "__main__":
    main()
