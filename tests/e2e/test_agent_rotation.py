"""An agent's rotations end to end, with one server and one separate
`skiff agent` joined with the node token (a bootstrap credential).

Certificates: the server's signer issues them for 1m30s
(--cluster-signing-duration); the agent's client certificate and its
serving certificate are both renewed at 80 % of their life (counted from
the 5-minute backdated start, as kubelet counts: about 12 s after issue)
through new CSRs, the endpoint serves the new certificate to new
connections, and logs, exec and the node's heartbeats go on.

Projected ServiceAccount tokens: the agent rewrites a pod's token at 80 %
of its life. Upstream refuses expirationSeconds below 600 (kubelet's own
projection asks for 3607) and offers no shorter tokens, so the agent
process alone runs under Debian's libfaketime (LD_PRELOAD; its children,
spawned with their own environments, are not), its wall clock moved 50
minutes ahead once the pod runs: the agent sees the token due, asks for a
new one and swaps it in through `..data` as kubelet's AtomicWriter does.
It runs last, as while the clock is ahead the 90-second certificates look
expired to the agent.

Needs root and the runtime tools; run under flock /tmp/skiff-containers.lock."""
import base64
import json
import os
import socket
import ssl
import subprocess

import pytest

from conftest import SKIFF
from test_agent_cluster import running_cluster, wait_for

pytestmark = pytest.mark.agents

KUBELET_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet"
SERVING_SIGNER = "kubernetes.io/kubelet-serving"
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def prepare(c):
    """The signer's short duration; the agent under libfaketime, its clock
    read from a file (no offset yet), re-read every second."""
    if not os.path.exists(FAKETIME):
        raise AssertionError("needs Debian's libfaketime (scripts/deps.d/test.txt)")
    c.extra += ["--cluster-signing-duration", "1m30s"]
    c.clock = os.path.join(c.data_dir, "agent-clock")
    os.makedirs(c.data_dir, exist_ok=True)
    set_clock(c, "+0")
    env = dict(os.environ, LD_PRELOAD=FAKETIME, FAKETIME_TIMESTAMP_FILE=c.clock, FAKETIME_CACHE_DURATION="1",
               FAKETIME_DONT_FAKE_MONOTONIC="1", NO_FAKE_STAT="1")
    # the ASan build would refuse a library preloaded before its runtime
    env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
    c.agent_env = env


@pytest.fixture(scope="module")
def rotating():
    with running_cluster("skiff-e2e-rot-", setup=prepare, node="rot-node") as c:
        yield c


@pytest.fixture(scope="module")
def talker(rotating):
    """A running pod on the agent, with kubelet's projected token volume."""
    c = rotating
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "talker"},
           "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "c", "image": "busybox:1",
                                    "command": ["sh", "-c", "echo hello from the node; sleep 3600"]}]}}
    c.kubectl("create", "-f", "-", input=json.dumps(pod))
    c.wait_phase("talker", "Running")
    yield "talker"
    c.kubectl("delete", "pod", "talker", "--wait=false")


def cert_fields(pem):
    """(serial, notBefore, notAfter) of a PEM or DER certificate, read by
    openssl; the times in seconds since the epoch."""
    form = ["-inform", "DER"] if not pem.startswith(b"-----") else []
    out = subprocess.run(["openssl", "x509", "-noout", "-serial", "-startdate", "-enddate"] + form, input=pem,
                         capture_output=True, check=True).stdout.decode()
    f = dict(l.split("=", 1) for l in out.splitlines())
    return f["serial"], ssl.cert_time_to_seconds(f["notBefore"]), ssl.cert_time_to_seconds(f["notAfter"])


def served_cert(c):
    """The certificate the agent's endpoint presents to a new connection."""
    st = c.kjson("get", "node", c.node)["status"]
    ip = next(a["address"] for a in st["addresses"] if a["type"] == "InternalIP")
    port = st["daemonEndpoints"]["kubeletEndpoint"]["Port"]
    ctx = ssl.create_default_context(cafile=os.path.join(c.data_dir, "tls", "ca.crt"))
    ctx.check_hostname = False
    with socket.create_connection((ip, port), timeout=10) as s, ctx.wrap_socket(s) as t:
        return cert_fields(t.getpeercert(binary_form=True))


def client_cert(c):
    with open(os.path.join(c.agent_dir, "pki", "kubelet-client-current.pem"), "rb") as f:
        return cert_fields(f.read())


def csr_rows(c):
    """(signer, requestor, condition) of every CSR, as kubectl prints them."""
    rows = [l.split() for l in c.kubectl("get", "csr").stdout.splitlines()[1:]]
    return [(r[2], r[3], r[-1]) for r in rows]


def ready(c):
    conds = c.kjson("get", "node", c.node)["status"]["conditions"]
    return any(x["type"] == "Ready" and x["status"] == "True" for x in conds)


def test_cluster_signing_duration_flag_is_checked():
    for bad, why in (("90", 'time: missing unit in duration "90"'),
                     ("500ms", 'want a duration of at least 1s, got "500ms"')):
        r = subprocess.run([SKIFF, "server", "--cluster-signing-duration", bad], capture_output=True, text=True)
        assert r.returncode != 0 and "--cluster-signing-duration" in r.stderr and why in r.stderr, r.stderr
    r = subprocess.run([SKIFF, "server", "--help"], capture_output=True, text=True, check=True)
    assert "--cluster-signing-duration D" in r.stdout


def test_client_and_serving_certificates_rotate_while_the_node_serves(rotating, talker):
    c = rotating
    first_client, first_serving = client_cert(c), served_cert(c)
    lease = c.kjson("get", "lease", "-n", "kube-node-lease", c.node)["spec"]["renewTime"]
    # 1m30s after the issue, from a start 5 minutes back (upstream's backdate of short certificates)
    for _, nb, na in (first_client, first_serving):
        assert na - nb == 300 + 90
    # both renewed: new serials, later ends, through new CSRs of the node itself
    wait_for(lambda: client_cert(c)[0] != first_client[0], 60, what="a new client certificate")
    wait_for(lambda: served_cert(c)[0] != first_serving[0], 60, what="a new serving certificate on the port")
    for first, now in ((first_client, client_cert(c)), (first_serving, served_cert(c))):
        assert now[2] > first[2] and now[2] - now[1] == 300 + 90
    me = f"system:node:{c.node}"
    rows = csr_rows(c)
    assert (KUBELET_SIGNER, "system:bootstrap:node-token", "Approved,Issued") in rows
    assert (KUBELET_SIGNER, me, "Approved,Issued") in rows, rows
    assert len([r for r in rows if r == (SERVING_SIGNER, me, "Approved,Issued")]) >= 2, rows
    # (the next renewal's request may be pending at this moment, none refused)
    assert not [r for r in rows if "Denied" in r[2] or "Failed" in r[2]], rows
    # the API server reaches the endpoint's new certificate; the node keeps its heartbeats
    wait_for(lambda: "hello from the node" in c.kubectl("logs", "talker", check=False).stdout,
             what="the pod's log through the API server")
    assert c.kubectl("exec", "talker", "--", "echo", "exec works").stdout == "exec works\n"
    wait_for(lambda: c.kjson("get", "lease", "-n", "kube-node-lease", c.node)["spec"]["renewTime"] != lease, 30,
             what="a lease renewal")
    assert ready(c)


def set_clock(c, offset):
    """Moves the agent's wall clock (libfaketime rereads the file each second)."""
    with open(c.clock + ".new", "w") as f:
        f.write(offset + "\n")
    os.rename(c.clock + ".new", c.clock)


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def sa_files(c, pod):
    """(..data's target, token's link, the token) as the container sees them."""
    r = c.kubectl("exec", pod, "--", "sh", "-c", f"cd {SA_DIR} && readlink ..data && readlink token && cat token",
                  check=False)
    lines = r.stdout.split("\n") if r.returncode == 0 else []
    return tuple(lines[:3]) if len(lines) >= 3 else None


def test_projected_token_is_rewritten_at_80_percent_of_its_life(rotating, talker):
    """Runs last (see the top): the agent's clock moves 50 minutes ahead,
    past 80 % of the 3607 s the token was asked for."""
    c = rotating
    data, link, token = wait_for(lambda: sa_files(c, talker), 30, what="the token in the container")
    assert data.startswith("..20") and link == "..data/token"
    vol = next(v for v in c.kjson("get", "pod", talker)["spec"]["volumes"] if "projected" in v)
    assert vol["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"] == 3607
    set_clock(c, "+50m")
    wait_for(lambda: (lambda f: f and f[2] != token)(sa_files(c, talker)), 60, what="a new token in the container")
    # with the clock ahead by more than 80 % of a token's life each new token
    # is due at once too: back to the server's time, the rewrites stop
    set_clock(c, "+0")
    seen = [None]

    def settled():
        cur = sa_files(c, talker)
        prev, seen[0] = seen[0], cur
        return cur if cur and cur == prev else None
    new = wait_for(settled, 30, interval=1.5, what="the volume to settle")
    # a new payload directory behind ..data, the old one gone, the names unchanged
    assert new[0] != data and new[0].startswith("..20") and new[1] == "..data/token"
    listing = c.kubectl("exec", talker, "--", "ls", "-a", SA_DIR).stdout.split()
    assert sorted(listing) == sorted([".", "..", "..data", new[0], "ca.crt", "namespace", "token"]), listing
    old, cur = jwt_claims(token), jwt_claims(new[2])
    assert cur["iat"] > old["iat"] and cur["kubernetes.io"]["pod"]["name"] == talker
    review = json.loads(c.kubectl("create", "--raw", "/apis/authentication.k8s.io/v1/tokenreviews", "-f", "-",
                                  input=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                                    "spec": {"token": new[2]}})).stdout)["status"]
    assert review["authenticated"] is True
    assert review["user"]["username"] == "system:serviceaccount:default:default"
    assert review["user"]["extra"]["authentication.kubernetes.io/pod-name"] == [talker]
