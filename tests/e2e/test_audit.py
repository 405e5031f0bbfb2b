"""The audit log (skiff server --audit-log-path, --audit-policy-file): a
kubectl create/get/delete sequence appears as audit.k8s.io/v1 Events with
the user, verbs, objectRef and codes, at the levels the policy's rules
give."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time

import pytest

from conftest import SKIFF, Cluster, SLOW

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  # the server's own controllers and the health probes: not recorded
  - level: None
    users: ["system:apiserver"]
  - level: None
    nonResourceURLs: ["/readyz", "/livez", "/healthz", "/version", "/api", "/api/*", "/apis", "/apis/*",
                      "/openapi/*"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Request
    resources:
      - group: ""
        resources: ["secrets"]
  - level: None
    resources:
      - group: ""
        resources: ["events"]
  - level: Metadata
"""


@pytest.fixture(scope="module")
def c():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    with open(os.path.join(d, "policy.yaml"), "w") as f:
        f.write(POLICY)
    cl = Cluster(d, ["--no-agent", "--audit-log-path", os.path.join(d, "audit", "audit.log"),
                     "--audit-policy-file", os.path.join(d, "policy.yaml")])
    os.makedirs(os.path.join(d, "audit"))
    cl.start()
    yield cl
    cl.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def events(c, pred, want=1, timeout=20):
    """The audit events matching pred, once at least want of them are written."""
    path = os.path.join(c.data_dir, "audit", "audit.log")
    deadline = time.time() + timeout * SLOW
    found = []
    while time.time() < deadline:
        with open(path) as f:
            found = [e for e in map(json.loads, f) if pred(e)]
        if len(found) >= want:
            return found
        time.sleep(0.1)
    return found


def test_kubectl_sequence_is_audited(c):
    c.kubectl("create", "configmap", "audited", "--from-literal=k=v")
    assert c.kubectl("get", "configmap", "audited", "-o", "name").stdout.strip() == "configmap/audited"
    c.kubectl("delete", "configmap", "audited")
    evs = events(c, lambda e: e.get("objectRef", {}).get("name") == "audited"
                 and e["objectRef"]["resource"] == "configmaps", want=3)
    by_verb = {}
    for e in evs:
        by_verb.setdefault(e["verb"], []).append(e)
    assert {"create", "get", "delete"} <= set(by_verb)
    create = by_verb["create"][0]
    assert create["kind"] == "Event" and create["apiVersion"] == "audit.k8s.io/v1"
    assert create["level"] == "RequestResponse" and create["stage"] == "ResponseComplete"
    assert create["user"]["username"] == "system:admin"
    assert "system:masters" in create["user"]["groups"]
    assert create["objectRef"] == {"resource": "configmaps", "namespace": "default", "name": "audited",
                                   "apiVersion": "v1"}
    assert create["responseStatus"]["code"] == 201
    assert create["requestObject"]["data"] == {"k": "v"}
    assert create["responseObject"]["metadata"]["name"] == "audited"
    assert create["requestURI"].startswith("/api/v1/namespaces/default/configmaps?")
    assert create["sourceIPs"] == ["127.0.0.1"]
    assert create["userAgent"].startswith("kubectl/")
    assert create["annotations"]["authorization.k8s.io/decision"] == "allow"
    assert len(create["auditID"]) == 36
    assert create["requestReceivedTimestamp"].endswith("Z") and create["stageTimestamp"] >= \
        create["requestReceivedTimestamp"]
    assert [e["responseStatus"]["code"] for e in by_verb["delete"]] == [200]
    # kubectl delete waits for the object to be gone: a 404 get with the Status's fields
    gone = events(c, lambda e: e.get("objectRef", {}).get("name") == "audited" and e["verb"] == "get"
                  and e["responseStatus"]["code"] == 404)
    assert gone and gone[0]["responseStatus"]["reason"] == "NotFound"
    assert gone[0]["responseStatus"]["message"] == 'configmaps "audited" not found'


def test_policy_levels(c):
    c.kubectl("create", "secret", "generic", "audited-secret", "--from-literal=a=b")
    c.kubectl("create", "serviceaccount", "audited-sa")
    sec = events(c, lambda e: e.get("objectRef", {}).get("name") == "audited-secret" and e["verb"] == "create")
    assert sec and sec[0]["level"] == "Request"
    assert "requestObject" in sec[0] and "responseObject" not in sec[0]
    sa = events(c, lambda e: e.get("objectRef", {}).get("name") == "audited-sa" and e["verb"] == "create")
    assert sa and sa[0]["level"] == "Metadata"
    assert "requestObject" not in sa[0] and "responseObject" not in sa[0]
    # None: no event of the server's own user or of /version
    c.kubectl("version", check=False)
    everything = events(c, lambda e: True, want=10 ** 9, timeout=1)
    assert not [e for e in everything if e["user"].get("username") == "system:apiserver"]
    assert not [e for e in everything if e["requestURI"] == "/version"]
    assert not [e for e in everything if e["stage"] == "RequestReceived"]


def test_watch_and_unauthenticated_requests(c):
    r = c.kubectl("get", "configmaps", "--watch", "--request-timeout=2s", check=False)
    assert r.returncode in (0, 1)
    w = events(c, lambda e: e["verb"] == "watch" and e.get("objectRef", {}).get("resource") == "configmaps")
    assert w and w[0]["stage"] == "ResponseStarted" and w[0]["responseStatus"]["code"] == 200
    # upstream logs a watch's end too: ResponseComplete, same audit ID
    done = events(c, lambda e: e["auditID"] == w[0]["auditID"] and e["stage"] == "ResponseComplete")
    assert done and done[0]["verb"] == "watch" and done[0]["responseStatus"]["code"] == 200
    assert done[0]["stageTimestamp"] >= w[0]["stageTimestamp"]
    subprocess.run(["curl", "-sk", f"https://127.0.0.1:{c.port}/api/v1/namespaces/default/pods"],
                   capture_output=True, timeout=30)
    anon = events(c, lambda e: e["responseStatus"]["code"] == 401)
    assert anon and anon[0]["user"] == {} and anon[0]["verb"] == "list"
    assert anon[0]["responseStatus"]["reason"] == "Unauthorized"


def test_log_file_mode_and_bad_policy(c, tmpdir_skiff):
    assert stat.S_IMODE(os.stat(os.path.join(c.data_dir, "audit", "audit.log")).st_mode) == 0o600
    bad = os.path.join(tmpdir_skiff, "bad.yaml")
    with open(bad, "w") as f:
        f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n")
    r = subprocess.run([SKIFF, "server", "--no-agent", "--data-dir", os.path.join(tmpdir_skiff, "d"),
                        "--listen", "127.0.0.1:1", "--audit-log-path", os.path.join(tmpdir_skiff, "a.log"),
                        "--audit-policy-file", bad], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert 'rules[0].level: Unsupported value: "Everything"' in r.stderr, r.stderr


def test_rotation(tmpdir_skiff):
    log = os.path.join(tmpdir_skiff, "audit.log")
    policy = os.path.join(tmpdir_skiff, "policy.json")
    with open(policy, "w") as f:
        json.dump({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": [{"level": "RequestResponse"}]}, f)
    cl = Cluster(tmpdir_skiff, ["--no-agent", "--audit-log-path", log, "--audit-log-maxsize", "1",
                                "--audit-log-maxbackup", "2", "--audit-policy-file", policy]).start()
    try:
        big = os.path.join(tmpdir_skiff, "big.txt")
        with open(big, "w") as f:
            f.write("x" * 200000)
        for i in range(12):
            cl.kubectl("create", "configmap", f"r{i}", f"--from-file=k={big}")
        deadline = time.time() + 20
        backups = []
        while time.time() < deadline:
            backups = [f for f in os.listdir(tmpdir_skiff) if f.startswith("audit-") and f.endswith(".log")]
            if len(backups) == 2:
                break
            time.sleep(0.2)
        assert len(backups) == 2, os.listdir(tmpdir_skiff)
        assert os.path.getsize(log) < 2 * 1024 * 1024
    finally:
        cl.cleanup()


def test_impersonation_and_admission_annotations(c):
    """An impersonated request is one event with user and impersonatedUser;
    the admission plugins' annotations (Pod Security's audit mode) are on
    the event of the request they judged."""
    c.kubectl("create", "namespace", "audit-psa")
    c.kubectl("label", "namespace", "audit-psa", "pod-security.kubernetes.io/audit=restricted")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "loud", "namespace": "audit-psa"},
           "spec": {"containers": [{"name": "c", "image": "busybox", "securityContext": {"privileged": True}}]}}
    c.kubectl("apply", "-f", "-", input=json.dumps(pod))
    evs = events(c, lambda e: e.get("verb") == "create" and e.get("objectRef", {}).get("resource") == "pods"
                 and e.get("objectRef", {}).get("namespace") == "audit-psa")
    ann = evs[0]["annotations"]
    assert ann["authorization.k8s.io/decision"] == "allow"
    assert ann["pod-security.kubernetes.io/audit-violations"].startswith(
        'would violate PodSecurity "restricted:latest": privileged (container "c" must not set '
        'securityContext.privileged=true)')
    r = c.kubectl("--as", "bob", "--as-group", "team", "-n", "default", "get", "configmap", "nothere", check=False)
    assert "Forbidden" in r.stderr
    evs = events(c, lambda e: e.get("impersonatedUser", {}).get("username") == "bob")
    assert evs[0]["user"]["username"] == "system:admin"
    assert evs[0]["impersonatedUser"]["groups"] == ["team", "system:authenticated"]
    assert evs[0]["responseStatus"]["code"] == 403
    assert not events(c, lambda e: e.get("user", {}).get("username") == "bob", want=0, timeout=1)


def test_audit_id_header(c):
    """Every response carries Audit-Id (upstream's WithAuditInit): the
    client's own Audit-ID when it sends one, else a new UUID, the same as
    the event's auditID."""
    token = open(os.path.join(c.data_dir, "token")).read().strip()
    url = f"https://127.0.0.1:{c.port}/api/v1/namespaces/default/configmaps/audit-id-probe"

    def head(*extra):
        r = subprocess.run(["curl", "-sk", "-D", "-", "-o", "/dev/null", "-H", f"Authorization: Bearer {token}",
                            *extra, url], capture_output=True, text=True, timeout=30)
        return {k.strip().lower(): v.strip() for k, _, v in
                (line.partition(":") for line in r.stdout.splitlines()[1:] if ":" in line)}

    h = head()
    assert len(h["audit-id"]) == 36
    ev = events(c, lambda e: e["auditID"] == h["audit-id"])
    assert ev and ev[0]["objectRef"]["name"] == "audit-id-probe" and ev[0]["responseStatus"]["code"] == 404
    h = head("-H", "Audit-ID: my-trace-1234")
    assert h["audit-id"] == "my-trace-1234"
    assert events(c, lambda e: e["auditID"] == "my-trace-1234")
    # without a token too, on a 401
    r = subprocess.run(["curl", "-sk", "-D", "-", "-o", "/dev/null", url], capture_output=True, text=True, timeout=30)
    assert "audit-id:" in r.stdout.lower()


def test_authorization_decision_and_reason_annotations(c):
    """upstream's authorization.k8s.io/decision and /reason: the RBAC
    binding that allowed a request, empty for system:masters and refusals."""
    c.kubectl("create", "clusterrolebinding", "audit-view", "--clusterrole=view", "--user=alice")
    c.kubectl("create", "role", "cm-reader", "--verb=get", "--resource=secrets", "-n", "default")
    c.kubectl("create", "rolebinding", "read-cm", "--role=cm-reader", "--serviceaccount=default:robot",
              "-n", "default")
    c.kubectl("create", "secret", "generic", "audit-s", "--from-literal=a=b")
    sa = "system:serviceaccount:default:robot"
    for who, args in (("alice", ["get", "configmaps", "-n", "default"]),
                      (sa, ["get", "secret", "audit-s", "-n", "default"])):
        wait_for(lambda: c.kubectl("--as", who, *args, check=False).returncode == 0, what=f"{who} allowed")
    c.kubectl("--as", "alice", "get", "secrets", "-n", "default", check=False)
    ann = lambda e: e.get("annotations", {})
    alice = events(c, lambda e: e.get("impersonatedUser", {}).get("username") == "alice" and
                   e["verb"] == "list" and e["objectRef"]["resource"] == "configmaps"
                   and e["responseStatus"]["code"] == 200)
    assert ann(alice[0])["authorization.k8s.io/decision"] == "allow"
    assert ann(alice[0])["authorization.k8s.io/reason"] == (
        'RBAC: allowed by ClusterRoleBinding "audit-view" of ClusterRole "view" to User "alice"')
    robot = events(c, lambda e: e.get("impersonatedUser", {}).get("username") == sa and e["verb"] == "get"
                   and e["responseStatus"]["code"] == 200)
    assert ann(robot[0])["authorization.k8s.io/reason"] == (
        'RBAC: allowed by RoleBinding "read-cm/default" of Role "cm-reader" to ServiceAccount "robot/default"')
    refused = events(c, lambda e: e.get("impersonatedUser", {}).get("username") == "alice" and
                     e["objectRef"]["resource"] == "secrets")
    assert refused[0]["responseStatus"]["code"] == 403
    assert ann(refused[0])["authorization.k8s.io/decision"] == "forbid"
    assert ann(refused[0])["authorization.k8s.io/reason"] == ""
    admin = events(c, lambda e: e["verb"] == "create" and e.get("objectRef", {}).get("name") == "audit-s")
    assert ann(admin[0])["authorization.k8s.io/decision"] == "allow"
    assert ann(admin[0])["authorization.k8s.io/reason"] == ""
    # a SubjectAccessReview answers with the same reason
    sar = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
           "spec": {"user": "alice", "resourceAttributes": {"verb": "list", "resource": "configmaps"}}}
    st = json.loads(c.kubectl("create", "-f", "-", "-o", "json", input=json.dumps(sar)).stdout)["status"]
    assert st["allowed"] and st["reason"] == ann(alice[0])["authorization.k8s.io/reason"]


def wait_for(pred, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class FakeKubelet:
    """A node's streaming endpoint in miniature, with a serving certificate
    of the cluster CA for 127.0.0.1: a followed log answers one line and
    ends; an exec answers 101 and relays until the client goes."""

    def __init__(self, c):
        import ssl
        import threading
        d = os.path.join(c.data_dir, "fake-kubelet")
        os.makedirs(d)
        key, csr, crt, ext = (os.path.join(d, n) for n in ("k.pem", "r.csr", "c.pem", "ext.cnf"))
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-subj", "/CN=system:node:audit-node", "-out", csr],
                       check=True, capture_output=True)
        tls = os.path.join(c.data_dir, "tls")
        subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(tls, "ca.crt"), "-CAkey",
                        os.path.join(tls, "ca.key"), "-CAcreateserial", "-days", "1", "-extfile", ext, "-out", crt],
                       check=True, capture_output=True)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        import socket
        self.sock = ctx.wrap_socket(socket.create_server(("127.0.0.1", 0)), server_side=True)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        import threading
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn):
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                b = conn.recv(4096)
                if not b:
                    return
                head += b
            if head.startswith(b"GET /containerLogs/"):
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 23\r\n"
                             b"Connection: close\r\n\r\nhello from a fake node\n")
                return
            conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                         b"X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n")
            while conn.recv(4096):
                pass


def test_streams_and_logs_are_audited_at_start_and_end(c):
    """Long-running requests as upstream's audit filter writes them: a
    followed log, a plain log and an exec each at ResponseStarted and, when
    they end, at ResponseComplete with the same auditID and code."""
    import socket
    import ssl
    kubelet = FakeKubelet(c)
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node",
                                                     "metadata": {"name": "audit-node"}}))
    c.kubectl("patch", "node", "audit-node", "--subresource=status", "--type=merge", "-p", json.dumps(
        {"status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                    "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet.port}}}}))
    c.kubectl("create", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "streamer", "namespace": "default"},
         "spec": {"nodeName": "audit-node", "containers": [{"name": "c", "image": "busybox"}]}}))
    assert c.kubectl("logs", "-f", "streamer").stdout == "hello from a fake node\n"
    assert c.kubectl("logs", "streamer").stdout == "hello from a fake node\n"
    # an exec: the client's upgrade relayed to the node, then the client goes
    token = open(os.path.join(c.data_dir, "token")).read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(c.data_dir, "tls", "ca.crt"))
    with socket.create_connection(("127.0.0.1", c.port), timeout=20) as raw, \
            ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
        s.sendall(("GET /api/v1/namespaces/default/pods/streamer/exec?command=true&stdout=true HTTP/1.1\r\n"
                   f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nConnection: Upgrade\r\n"
                   "Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 101"), head
        audit_id = [l.split(b":", 1)[1].strip().decode() for l in head.split(b"\r\n")
                    if l.lower().startswith(b"audit-id:")][0]
        started = events(c, lambda e: e["auditID"] == audit_id)
        assert [(e["stage"], e["responseStatus"]["code"]) for e in started] == [("ResponseStarted", 101)]
    done = events(c, lambda e: e["auditID"] == audit_id, want=2)
    assert [(e["stage"], e["verb"], e["objectRef"]["subresource"], e["responseStatus"]["code"]) for e in done] == [
        ("ResponseStarted", "create", "exec", 101), ("ResponseComplete", "create", "exec", 101)]
    logs = events(c, lambda e: e.get("objectRef", {}).get("subresource") == "log", want=4)
    by_id = {}
    for e in logs:
        by_id.setdefault(e["auditID"], []).append(e)
    assert len(by_id) == 2
    for evs in by_id.values():
        assert [(e["stage"], e["verb"], e["responseStatus"]["code"]) for e in evs] == [
            ("ResponseStarted", "get", 200), ("ResponseComplete", "get", 200)]
        assert evs[1]["stageTimestamp"] >= evs[0]["stageTimestamp"]
    assert sorted("follow=true" in evs[0]["requestURI"] for evs in by_id.values()) == [False, True]
    kubelet.sock.close()


def test_admission_policy_annotations(c):
    """A ValidatingAdmissionPolicy's auditAnnotations (POLICY/KEY) and an
    Audit binding's validation_failure annotation land on the request's event."""
    pol = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
           "metadata": {"name": "audited.example.com"},
           "spec": {"matchConstraints": {"resourceRules": [
               {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]},
               "validations": [{"expression": "!has(object.data) || !('secret' in object.data)",
                                "message": "no secrets in configmaps"}],
               "auditAnnotations": [{"key": "owner", "valueExpression": "'team-' + object.metadata.name"}]}}
    b = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": "audited-binding"},
         "spec": {"policyName": "audited.example.com", "validationActions": ["Audit"]}}
    c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [pol, b]}))
    try:
        # Audit alone: the write goes through
        c.kubectl("create", "configmap", "vap-audited", "--from-literal=secret=x")
        evs = events(c, lambda e: e.get("objectRef", {}).get("name") == "vap-audited"
                     and e["verb"] == "create" and e["stage"] == "ResponseComplete")
        ann = evs[0]["annotations"]
        assert ann["audited.example.com/owner"] == "team-vap-audited"
        assert json.loads(ann["validation.policy.admission.k8s.io/validation_failure"]) == [
            {"message": "no secrets in configmaps", "policy": "audited.example.com", "binding": "audited-binding",
             "expressionIndex": 0, "validationActions": ["Audit"]}]
    finally:
        c.kubectl("delete", "validatingadmissionpolicybinding", "audited-binding")
        c.kubectl("delete", "validatingadmissionpolicy", "audited.example.com")
        c.kubectl("delete", "configmap", "vap-audited", check=False)
