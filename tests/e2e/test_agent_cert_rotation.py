"""Certificate rotation end to end: a server whose signer issues
certificates for 1m30s (--cluster-signing-duration) and one separate
`skiff agent` joined with the node token (a bootstrap credential). The
agent's client certificate and its serving certificate are both renewed
at 80 % of their life (counted from the 5-minute backdated start, as
kubelet counts: about 12 s after issue) through new CSRs, the endpoint
serves the new certificate to new connections, and logs, exec and the
node's heartbeats go on. Needs root and the runtime tools; run under
flock /tmp/skiff-containers.lock."""
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


@pytest.fixture(scope="module")
def rotating():
    with running_cluster("skiff-e2e-rot-", setup=lambda c: c.extra.extend(
            ["--cluster-signing-duration", "1m30s"]), node="rot-node") as c:
        yield c


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


def test_client_and_serving_certificates_rotate_while_the_node_serves(rotating):
    c = rotating
    first_client, first_serving = client_cert(c), served_cert(c)
    lease = c.kjson("get", "lease", "-n", "kube-node-lease", c.node)["spec"]["renewTime"]
    # 1m30s after the issue, from a start 5 minutes back (upstream's backdate of short certificates)
    for _, nb, na in (first_client, first_serving):
        assert na - nb == 300 + 90
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "talker"},
           "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "c", "image": "busybox:1",
                                    "command": ["sh", "-c", "echo hello from the node; sleep 3600"]}]}}
    c.kubectl("create", "-f", "-", input=json.dumps(pod))
    c.wait_phase("talker", "Running")
    # both renewed: new serials, later ends, through new CSRs of the node itself
    wait_for(lambda: client_cert(c)[0] != first_client[0], 60, what="a new client certificate")
    wait_for(lambda: served_cert(c)[0] != first_serving[0], 60, what="a new serving certificate on the port")
    for first, now in ((first_client, client_cert(c)), (first_serving, served_cert(c))):
        assert now[2] > first[2] and now[2] - now[1] == 300 + 90
    me = f"system:node:{c.node}"
    rows = csr_rows(c)
    assert (KUBELET_SIGNER, "system:bootstrap:node-token", "Approved,Issued") in rows
    assert (KUBELET_SIGNER, me, "Approved,Issued") in rows, rows
    assert len([r for r in rows if r[:2] == (SERVING_SIGNER, me)]) >= 2, rows
    assert all(r[2] == "Approved,Issued" for r in rows), rows
    # the API server reaches the endpoint's new certificate; the node keeps its heartbeats
    wait_for(lambda: "hello from the node" in c.kubectl("logs", "talker", check=False).stdout,
             what="the pod's log through the API server")
    assert c.kubectl("exec", "talker", "--", "echo", "exec works").stdout == "exec works\n"
    wait_for(lambda: c.kjson("get", "lease", "-n", "kube-node-lease", c.node)["spec"]["renewTime"] != lease, 30,
             what="a lease renewal")
    assert ready(c)
    c.kubectl("delete", "pod", "talker", "--wait=false")
