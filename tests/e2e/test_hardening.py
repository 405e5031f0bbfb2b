"""A server on a network, tried as an attacker would (issue 17): each test
reproduces one finding and shows it refused. Unauthenticated bodies are
never read, slow and idle connections are cut off and shed before
authenticated ones, a second server cannot share the port, escaped path
bytes stay inside their segment, resourceVersions are parsed as upstream,
objects are size-checked and the data files are the owner's alone."""
import json
import os
import socket
import ssl
import stat
import subprocess
import tempfile
import time
import shutil
import urllib.error
import urllib.parse
import urllib.request

import pytest
import yaml

from conftest import SKIFF, SLOW, Cluster


@pytest.fixture(scope="module")
def c():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    # under ASan, freed memory waits in a quarantine (256 MB) and would
    # read as growth: keep it small so RSS measures what is kept
    old = os.environ.get("ASAN_OPTIONS")
    os.environ["ASAN_OPTIONS"] = (old + ":" if old else "") + "quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
    try:
        cl = Cluster(d, ["--no-agent", "--max-unauthenticated-connections", "32"]).start()
    finally:
        if old is None:
            del os.environ["ASAN_OPTIONS"]
        else:
            os.environ["ASAN_OPTIONS"] = old
    yield cl
    cl.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def token(c):
    with open(c.kubeconfig) as f:
        return yaml.safe_load(f)["users"][0]["user"]["token"]


def call(c, method, path, body=None, tok=None):
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Bearer " + (tok or token(c)),
                                          "Content-Type": "application/json"})
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def tls_socket(c):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = socket.create_connection(("127.0.0.1", c.port), timeout=30)
    return ctx.wrap_socket(s, server_hostname="127.0.0.1")


def read_until_closed(s, limit=30):
    """Everything the server sends until it closes the connection (or limit
    seconds pass: then None)."""
    data = b""
    s.settimeout(limit)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b
    except (socket.timeout, TimeoutError):
        return None
    except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
        return data


def rss_kb(c):
    with open(f"/proc/{c.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def unauthenticated_posts(c, length):
    """50 POSTs without a token announcing `length`-byte bodies, all open at
    once; each must get 401 at once (no 100 Continue) and be closed."""
    socks = []
    for i in range(50):
        s = tls_socket(c)
        expect = b"Expect: 100-continue\r\n" if i % 2 and length else b""
        # without Expect the body starts at once: one byte of it
        s.sendall(b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n" % length + expect + b"\r\n" +
                  (b"{" if length and not expect else b""))
        socks.append(s)
    for s in socks:
        reply = read_until_closed(s)
        assert reply is not None, "the server kept an unauthenticated connection open"
        assert reply.startswith(b"HTTP/1.1 401"), reply[:200]
        assert b"100 Continue" not in reply
        assert b'"reason":"Unauthorized"' in reply
        s.close()


def test_unauthenticated_bodies_are_never_read(c):
    """50 POSTs announcing 3 MB bodies without a token: each gets 401 at once
    (no 100 Continue), the connection closes, and the server grows no more
    than for 50 such POSTs with empty bodies (it used to buffer every body
    before authenticating: 150 MB). The empty round is the yardstick because
    50 TLS handshakes alone cost a few MB, more under ASan, whose quarantine
    keeps freed memory resident."""
    call(c, "GET", "/version")
    before = rss_kb(c)
    unauthenticated_posts(c, 0)
    empty = rss_kb(c) - before
    before = rss_kb(c)
    unauthenticated_posts(c, 3000000)
    # ThreadSanitizer's shadow and history memory grow with any work: its
    # build checks the races here, the others the memory
    if not SKIFF.endswith("-tsan"):
        assert rss_kb(c) - before < max(empty, 0) + 8 * 1024, (empty, rss_kb(c) - before)
    code, _ = call(c, "GET", "/api/v1/namespaces")
    assert code == 200


def test_slow_and_idle_connections_are_cut_off(c):
    """A slow-loris client (a header line a second, never done) and a TCP
    connection that never says anything are both closed at the header
    deadline (kube-apiserver's ReadHeaderTimeout, 32 s: the server reads
    their bytes as they come, so all of it is their time), while an
    authenticated client is served."""
    idle = socket.create_connection(("127.0.0.1", c.port), timeout=30)
    slow = tls_socket(c)
    slow.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n")
    closed = False
    deadline = time.time() + 32 + 10 * SLOW
    while time.time() < deadline:
        try:
            slow.sendall(b"X-Slow: a\r\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            closed = True
            break
        slow.settimeout(1)
        try:
            if slow.recv(1) == b"":
                closed = True
                break
        except (socket.timeout, TimeoutError):
            pass
        except (ConnectionResetError, ssl.SSLError, OSError):
            closed = True
            break
    assert closed, "a slow-loris connection stayed open past the header deadline"
    assert read_until_closed(idle, limit=10 * SLOW) is not None, "an idle connection stayed open"
    assert call(c, "GET", "/api/v1/namespaces")[0] == 200


def test_unauthenticated_connections_are_shed_first(c):
    """100 connections that never authenticate against a cap of 32: the
    oldest are closed to make room, and an authenticated client still gets
    in (its connection is the youngest) and keeps being answered."""
    socks = [socket.create_connection(("127.0.0.1", c.port), timeout=30) for _ in range(100)]
    for _ in range(3):
        r = c.kubectl("get", "ns", "default", "-o", "name")
        assert r.stdout.strip() == "namespace/default"
    closed = 0
    for s in socks:
        s.settimeout(0.5 if closed < 60 else 0.05)
        try:
            if s.recv(1) == b"":
                closed += 1
        except (socket.timeout, TimeoutError):
            pass
        except ConnectionResetError:
            closed += 1
        s.close()
    assert closed >= 60


def test_connections_per_address_are_capped(tmpdir_skiff):
    """One address may hold at most --max-connections-per-address; another
    address (the authenticated client's) is not affected."""
    cl = Cluster(tmpdir_skiff, ["--no-agent", "--max-connections-per-address", "16"]).start()
    try:
        socks = []
        for _ in range(40):
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", cl.port))
            socks.append(s)
        assert cl.kubectl("get", "ns", "default", "-o", "name").stdout.strip() == "namespace/default"
        open_ = 0
        for s in socks:
            s.settimeout(0.3)
            try:
                if s.recv(1) != b"":
                    open_ += 1
            except (socket.timeout, TimeoutError):
                open_ += 1
            except ConnectionResetError:
                pass
            s.close()
        assert open_ <= 16
    finally:
        cl.cleanup()


def test_second_server_on_the_same_port_refuses_to_start(c, tmpdir_skiff):
    r = subprocess.run([SKIFF, "server", "--no-agent", "--data-dir", tmpdir_skiff, "--listen",
                        f"127.0.0.1:{c.port}"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert f"127.0.0.1:{c.port}" in r.stderr and "address already in use" in r.stderr, r.stderr
    assert call(c, "GET", "/api/v1/namespaces/default")[0] == 200


def test_escaped_nul_and_slash_stay_in_their_segment(c):
    from kubernetes import client
    api = client.CoreV1Api(c.api_client())
    api.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="a", labels={"app.kubernetes.io/name": "x"})))
    # %00 used to end the name ("a"): refused
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps/a%00b")
    assert code == 400 and st["reason"] == "BadRequest"
    # %2F used to be a separator (name "a", subresource "b"): the name is "a/b"
    with pytest.raises(client.exceptions.ApiException) as e:
        api.read_namespaced_config_map("a/b", "default")
    assert e.value.status == 400
    assert json.loads(e.value.body)["message"] == "Name parameter invalid: \"a/b\": may not contain '/'"
    code, st = call(c, "DELETE", "/api/v1/namespaces/default/configmaps/a%2Fb")
    assert code == 400
    code, st = call(c, "GET", "/api/v1/namespaces/a%2Fb/configmaps/a")
    assert code == 400 and st["message"].startswith("Namespace parameter invalid: \"a/b\"")
    # a query's escapes are decoded as before
    sel = urllib.parse.quote("app.kubernetes.io/name=x", safe="")
    code, lst = call(c, "GET", f"/api/v1/namespaces/default/configmaps?labelSelector={sel}")
    assert code == 200 and [i["metadata"]["name"] for i in lst["items"]] == ["a"]
    assert api.read_namespaced_config_map("a", "default").metadata.name == "a"
    api.delete_namespaced_config_map("a", "default")


@pytest.mark.sqlite
def test_data_files_are_the_owners_alone(tmpdir_skiff):
    """state.db (Secrets inside) used to be 0644; a data dir an older version
    left open is tightened at the next start."""
    cl = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        cl.kubectl("create", "secret", "generic", "s", "--from-literal=k=v")
        cl.stop()
        os.chmod(tmpdir_skiff, 0o755)
        for f in ("state.db", "state.db-wal", "state.db-shm"):
            if os.path.exists(os.path.join(tmpdir_skiff, f)):
                os.chmod(os.path.join(tmpdir_skiff, f), 0o644)
        cl.start()
        assert stat.S_IMODE(os.stat(tmpdir_skiff).st_mode) == 0o700
        for f in ("state.db", "state.db-wal", "state.db-shm", "token", "node-token", "kubeconfig",
                  "tls/ca.key", "tls/server.key"):
            p = os.path.join(tmpdir_skiff, f)
            if f.startswith("state.db") or os.path.exists(p):
                assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, f
        assert cl.kubectl("get", "secret", "s", "-o", "name").stdout.strip() == "secret/s"
    finally:
        cl.cleanup()


def test_invalid_resource_versions_are_refused(c):
    for rv in ("abc", "-1", "1e5", " 1", "+1"):
        q = urllib.parse.quote(rv)
        for path in (f"/api/v1/namespaces/default/configmaps?resourceVersion={q}",
                     f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={q}",
                     f"/api/v1/namespaces/default?resourceVersion={q}"):
            code, st = call(c, "GET", path)
            assert code == 400 and st["reason"] == "BadRequest", (path, st)
            assert st["message"] == (f'invalid resource version: resourceVersion: Invalid value: "{rv}": '
                                     f'strconv.ParseUint: parsing "{rv}": invalid syntax')
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=99999999999999999999")
    assert code == 400 and st["message"].endswith("value out of range")
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=999999999")
    assert code == 504 and st["reason"] == "Timeout"
    assert st["message"].startswith("Too large resource version: 999999999, current: ")


def test_resource_version_match(c):
    base = "/api/v1/namespaces/default/configmaps"
    cases = [("resourceVersionMatch=Exact",
              "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"),
             ("resourceVersionMatch=Exact&resourceVersion=0",
              'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
             ("resourceVersionMatch=Newest&resourceVersion=1",
              'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')]
    for q, why in cases:
        code, st = call(c, "GET", f"{base}?{q}")
        assert code == 422 and st["reason"] == "Invalid", st
        assert st["message"] == f'ListOptions.meta.k8s.io "" is invalid: {why}'
        assert st["details"]["kind"] == "ListOptions" and st["details"]["group"] == "meta.k8s.io"
    # Exact: the list as it was at that revision, not as it is now
    code, cm = call(c, "POST", base, {"apiVersion": "v1", "kind": "ConfigMap",
                                      "metadata": {"name": "rvm"}, "data": {"v": "1"}})
    assert code == 201
    rv = cm["metadata"]["resourceVersion"]
    cm["data"]["v"] = "2"
    assert call(c, "PUT", f"{base}/rvm", cm)[0] == 200
    code, lst = call(c, "GET", f"{base}?resourceVersion={rv}&resourceVersionMatch=Exact")
    assert code == 200 and lst["metadata"]["resourceVersion"] == rv
    assert [i["data"]["v"] for i in lst["items"] if i["metadata"]["name"] == "rvm"] == ["1"]
    # NotOlderThan: at least that revision, so the newest
    code, lst = call(c, "GET", f"{base}?resourceVersion={rv}&resourceVersionMatch=NotOlderThan")
    assert code == 200 and int(lst["metadata"]["resourceVersion"]) > int(rv)
    assert [i["data"]["v"] for i in lst["items"] if i["metadata"]["name"] == "rvm"] == ["2"]
    code, st = call(c, "GET", f"{base}?limit=1&continue=abc&resourceVersion={rv}&resourceVersionMatch=Exact")
    assert code == 422 and "resourceVersionMatch is forbidden when continue is provided" in st["message"]
    assert call(c, "DELETE", f"{base}/rvm")[0] == 200


def test_continue_token_older_than_compaction_is_expired(tmpdir_skiff):
    """A token whose revision was compacted used to be served at a newer
    revision: upstream answers 410 with a token that continues at the newest."""
    # (names before kube-root-ca.crt, which every namespace has: the first page is a0)
    cl = Cluster(tmpdir_skiff, ["--no-agent", "--watch-history", "1"]).start()
    try:
        base = "/api/v1/namespaces/default/configmaps"
        for i in range(3):
            assert call(cl, "POST", base, {"apiVersion": "v1", "kind": "ConfigMap",
                                           "metadata": {"name": f"a{i}"}})[0] == 201
        code, page = call(cl, "GET", f"{base}?limit=1")
        tok = page["metadata"]["continue"]
        deadline = time.time() + 30
        code = 200
        while code == 200 and time.time() < deadline:
            cm = call(cl, "GET", f"{base}/a0")[1]
            cm.setdefault("data", {})["n"] = str(time.time())
            call(cl, "PUT", f"{base}/a0", cm)
            time.sleep(0.5)
            code, st = call(cl, "GET", f"{base}?limit=1&continue={tok}")
        assert code == 410 and st["reason"] == "Expired"
        assert st["message"].startswith("The provided continue parameter is too old to display a consistent list")
        code, rest = call(cl, "GET", f"{base}?limit=5&continue={st['metadata']['continue']}")
        assert code == 200 and [i["metadata"]["name"] for i in rest["items"]
                             if i["metadata"]["name"] != "kube-root-ca.crt"] == ["a1", "a2"]
        # a token without a revision is no token
        import base64
        bad = base64.b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": 0, "start": "/registry/configmaps/default/p0"})
                               .encode()).decode()
        code, st = call(cl, "GET", f"{base}?limit=1&continue={bad}")
        assert code == 400
    finally:
        cl.cleanup()


def test_object_sizes(c):
    """A 1.5 MB ConfigMap used to be accepted: its data is bound to 1 MiB as
    upstream validates it, a Secret's too, and an object past etcd's request
    limit (1.5 MiB) is refused as kube-apiserver passes etcd's error on."""
    base = "/api/v1/namespaces/default"
    code, st = call(c, "POST", f"{base}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                                      "metadata": {"name": "big"}, "data": {"k": "x" * 1500000}})
    assert code == 422 and st["reason"] == "Invalid"
    assert st["details"]["causes"] == [{"reason": "FieldValueTooLong", "field": "[]",
                                        "message": "Too long: may not be more than 1048576 bytes"}]
    # data and binaryData count together
    code, st = call(c, "POST", f"{base}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                                      "metadata": {"name": "big"}, "data": {"k": "x" * 800000},
                                                      "binaryData": {"b": "AAAA" * 100000}})
    assert code == 422
    code, _ = call(c, "POST", f"{base}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                                     "metadata": {"name": "fits"}, "data": {"k": "x" * 1048576}})
    assert code == 201
    code, st = call(c, "POST", f"{base}/secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "big"},
                                                   "stringData": {"k": "x" * 1100000}})
    assert code == 422 and st["details"]["causes"][0]["field"] == "data"
    # a custom object of 2 MB: under the 3 MiB body limit, over etcd's
    from crd_util import crd_doc, wait_served, GROUP
    doc = crd_doc(plural="blobs", kind="Blob", schema={"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}})
    assert call(c, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", doc)[0] == 201
    wait_served(c, "blobs")
    code, st = call(c, "POST", f"/apis/{GROUP}/v1/namespaces/default/blobs",
                    {"apiVersion": f"{GROUP}/v1", "kind": "Blob", "metadata": {"name": "b"},
                     "spec": {"data": "x" * 2000000}})
    assert code == 500 and st["message"] == "etcdserver: request is too large" and "reason" not in st
    assert call(c, "GET", f"/apis/{GROUP}/v1/namespaces/default/blobs/b")[0] == 404
    assert call(c, "DELETE", f"{base}/configmaps/fits")[0] == 200


def test_negative_quantities_are_refused(c):
    """A negative CPU request sent as a JSON number used to be stored: it is a
    quantity like any other (upstream's Quantity reads the number's text)."""
    from kubernetes import client
    api = client.CoreV1Api(c.api_client())

    def pod(name, cpu):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "busybox",
                                         "resources": {"requests": {"cpu": cpu}}}]}}
    for cpu in (-1, -0.5, "-1"):
        with pytest.raises(client.exceptions.ApiException) as e:
            api.create_namespaced_pod("default", pod("neg", cpu))
        st = json.loads(e.value.body)
        assert e.value.status == 422
        assert st["details"]["causes"][0]["field"] == "spec.containers[0].resources.requests[cpu]"
        assert st["details"]["causes"][0]["message"].endswith("must be greater than or equal to 0")
    made = api.create_namespaced_pod("default", pod("half", 0.5))
    assert made.spec.containers[0].resources.requests["cpu"] == "500m"
    api.delete_namespaced_pod("half", "default", grace_period_seconds=0)
