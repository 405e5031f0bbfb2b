"""A credential per node: CertificateSigningRequests (kubectl get csr,
certificate approve/deny, validation), the signer and approver, the shared
node token as a bootstrap credential only, `skiff token create`, and what a
node's certificate (system:node:NAME in system:nodes) may do: the Node
authorizer's graph and the NodeRestriction admission plugin.

These tests need no containers: pods are bound to nodes by name (no agent
runs them). test_node_identity_agents.py joins real agents."""
import base64
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import SKIFF, Cluster, SLOW

pytestmark = pytest.mark.agents

KUBELET_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet"


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-nodeid-")
    c = Cluster(os.path.join(d, "data"), ["--no-agent"]).start()
    c.work = d
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def node_secret(c):
    with open(os.path.join(c.data_dir, "node-token")) as f:
        return f.read().strip().rsplit(":", 1)[1]


def call(c, path, token=None, cert=None, method="GET", body=None, ctype="application/json"):
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    if cert:
        ctx.load_cert_chain(cert)
    h = {}
    if token:
        h["Authorization"] = "Bearer " + token
    if body is not None:
        h["Content-Type"] = ctype
        body = json.dumps(body).encode()
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", data=body, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def make_request(work, cn, org="system:nodes", name="req"):
    key, req = os.path.join(work, name + ".key"), os.path.join(work, name + ".csr")
    subj = f"/O={org}/CN={cn}" if org else f"/CN={cn}"
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-subj", subj, "-out", req], check=True, capture_output=True)
    with open(req, "rb") as f:
        return key, base64.b64encode(f.read()).decode()


def csr_body(name, request, signer=KUBELET_SIGNER, usages=("digital signature", "client auth"), **spec):
    s = {"request": request, "signerName": signer, "usages": list(usages)}
    s.update(spec)
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name}, "spec": s}


def wait_for(pred, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def lifetime(pem):
    """notAfter - notBefore of a PEM certificate, in seconds."""
    out = subprocess.run(["openssl", "x509", "-noout", "-startdate", "-enddate"], input=pem, capture_output=True,
                         check=True).stdout.decode()
    f = dict(l.split("=", 1) for l in out.splitlines())
    return ssl.cert_time_to_seconds(f["notAfter"]) - ssl.cert_time_to_seconds(f["notBefore"])


def issued(c, name):
    def cert():
        o = c.kjson("get", "csr", name)
        return o.get("status", {}).get("certificate")
    return base64.b64decode(wait_for(cert, what=f"certificate of {name}"))


def node_cert(c, node):
    """A client certificate for system:node:<node>, asked for with the
    shared node token (a bootstrap credential) and auto-approved."""
    key, req = make_request(c.work, f"system:node:{node}", name=node)
    code, out = call(c, "/apis/certificates.k8s.io/v1/certificatesigningrequests", token=node_secret(c),
                     method="POST", body=csr_body(f"node-csr-{node}", req))
    assert code == 201, out
    pem = os.path.join(c.work, node + ".pem")
    with open(pem, "wb") as f:
        f.write(issued(c, f"node-csr-{node}"))
        with open(key, "rb") as k:
            f.write(k.read())
    return pem


def test_shared_node_token_is_only_a_bootstrap_credential(cluster):
    tok = node_secret(cluster)
    code, out = call(cluster, "/api/v1/namespaces/kube-system/secrets", token=tok)
    assert code == 403
    assert out["message"] == ('secrets is forbidden: User "system:bootstrap:node-token" cannot list resource '
                              '"secrets" in API group "" in the namespace "kube-system"')
    code, _ = call(cluster, "/api/v1/namespaces", token=tok, method="POST",
                   body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    assert code == 403
    code, _ = call(cluster, "/api/v1/namespaces/default", token=tok, method="DELETE")
    assert code == 403
    code, _ = call(cluster, "/apis/certificates.k8s.io/v1/certificatesigningrequests", token=tok)
    assert code == 200


def test_csr_table_approve_and_deny_with_kubectl(cluster):
    _, req = make_request(cluster.work, "alice", org=None, name="alice")
    body = csr_body("alice", req, signer="example.com/people", usages=["client auth"], expirationSeconds=3600)
    cluster.kubectl("create", "-f", "-", input=json.dumps(body))
    out = cluster.kubectl("get", "csr", "alice").stdout.splitlines()
    assert out[0].split() == ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]
    assert out[1].split()[2:] == ["example.com/people", "system:admin", "60m", "Pending"]
    spec = cluster.kjson("get", "csr", "alice")["spec"]
    assert spec["username"] == "system:admin" and "system:masters" in spec["groups"]
    r = cluster.kubectl("certificate", "deny", "alice")
    assert "certificatesigningrequest.certificates.k8s.io/alice denied" in r.stdout
    st = cluster.kjson("get", "csr", "alice")["status"]
    assert [(c["type"], c["status"]) for c in st["conditions"]] == [("Denied", "True")]
    assert cluster.kubectl("get", "csr", "alice").stdout.splitlines()[1].split()[-1] == "Denied"
    # nobody signs example.com/people: approved stays unissued
    _, req = make_request(cluster.work, "bob", org=None, name="bob")
    cluster.kubectl("create", "-f", "-", input=json.dumps(csr_body("bob", req, signer="example.com/people")))
    cluster.kubectl("certificate", "approve", "bob")
    assert cluster.kubectl("get", "csr", "bob").stdout.splitlines()[1].split()[-1] == "Approved"


def test_kube_apiserver_client_signer_issues_with_the_requested_duration(cluster):
    _, req = make_request(cluster.work, "carol", org="team-a", name="carol")
    body = csr_body("carol", req, signer="kubernetes.io/kube-apiserver-client", usages=["client auth"],
                    expirationSeconds=1200)
    cluster.kubectl("create", "-f", "-", input=json.dumps(body))
    cluster.kubectl("certificate", "approve", "carol")
    pem = issued(cluster, "carol")
    txt = subprocess.run(["openssl", "x509", "-noout", "-subject", "-enddate", "-startdate"], input=pem,
                         capture_output=True, check=True).stdout.decode()
    assert "CN = carol" in txt and "O = team-a" in txt
    # shorter than 8 hours: it ends 20 minutes after the signing, 25 after its backdated start
    assert lifetime(pem) == 1200 + 300
    line = cluster.kubectl("get", "csr", "carol").stdout.splitlines()[1].split()
    assert line[-2:] == ["20m", "Approved,Issued"]


def test_csr_validation_as_upstream(cluster):
    body = csr_body("bad", base64.b64encode(b"hello").decode(), signer="nodomain", usages=["client auth", "bogus"],
                    expirationSeconds=30)
    r = cluster.kubectl("create", "-f", "-", input=json.dumps(body), check=False)
    assert r.returncode != 0
    err = r.stderr
    assert 'The CertificateSigningRequest "bad" is invalid' in err
    assert 'spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST' in err
    assert 'spec.usages[1]: Unsupported value: "bogus"' in err
    assert ("spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form "
            "'example.com/signer-name'") in err
    assert ("spec.expirationSeconds: Invalid value: 30: may not specify a duration less than 600 seconds "
            "(10 minutes)") in err
    # the requestor cannot be claimed, nor a request pre-approved
    _, req = make_request(cluster.work, "dave", org=None, name="dave")
    body = csr_body("dave", req, signer="example.com/x", username="system:node:n9", groups=["system:nodes"])
    body["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    cluster.kubectl("create", "-f", "-", input=json.dumps(body))
    o = cluster.kjson("get", "csr", "dave")
    assert o["spec"]["username"] == "system:admin" and "conditions" not in o.get("status", {})


def test_node_token_gets_a_node_client_certificate_auto_approved(cluster):
    pem = node_cert(cluster, "n1")
    txt = subprocess.run(["openssl", "x509", "-noout", "-subject"], input=open(pem, "rb").read(),
                         capture_output=True, check=True).stdout.decode()
    assert "O = system:nodes" in txt and "CN = system:node:n1" in txt
    # --cluster-signing-duration's default, a year from the backdated start (upstream's policy)
    assert lifetime(open(pem, "rb").read()) == 8760 * 3600
    o = cluster.kjson("get", "csr", "node-csr-n1")
    assert o["spec"]["username"] == "system:bootstrap:node-token"
    assert [(c["type"], c["reason"], c["message"]) for c in o["status"]["conditions"]] == [
        ("Approved", "AutoApproved", "Auto approving kubelet client certificate after SubjectAccessReview.")]
    line = cluster.kubectl("get", "csr", "node-csr-n1").stdout.splitlines()[1].split()
    assert line[2:] == [KUBELET_SIGNER, "system:bootstrap:node-token", "<none>", "Approved,Issued"]
    # a bootstrapper asking for something else is not approved
    _, req = make_request(cluster.work, "system:node:n1", org="system:masters", name="evil")
    code, _ = call(cluster, "/apis/certificates.k8s.io/v1/certificatesigningrequests", token=node_secret(cluster),
                   method="POST", body=csr_body("evil", req))
    assert code == 201
    # the signer would fail it; the approver never approved it
    assert wait_for(lambda: cluster.kjson("get", "csr", "evil")["metadata"]["name"])
    assert "conditions" not in cluster.kjson("get", "csr", "evil").get("status", {})
    # a node renews its own certificate: approved as a self request
    key, req = make_request(cluster.work, "system:node:n1", name="n1-renew")
    code, out = call(cluster, "/apis/certificates.k8s.io/v1/certificatesigningrequests", cert=pem, method="POST",
                     body=csr_body("n1-renew", req))
    assert code == 201 and out["spec"]["username"] == "system:node:n1"
    issued(cluster, "n1-renew")
    msg = cluster.kjson("get", "csr", "n1-renew")["status"]["conditions"][0]["message"]
    assert msg == "Auto approving self kubelet client certificate after SubjectAccessReview."


def approver_retries(c):
    for line in c.kubectl("get", "--raw", "/metrics").stdout.splitlines():
        if line.startswith('workqueue_retries_total{name="csrapproving"}'):
            return float(line.split()[-1])
    return 0


def test_approver_asks_a_subject_access_review(cluster):
    """The approver grants a new node's certificate through the
    kubeadm:node-autoapprove-bootstrap binding (nodeclient): without it the
    request stays Pending; bound again, it is approved."""
    b = cluster.kjson("get", "clusterrolebinding", "kubeadm:node-autoapprove-bootstrap")
    assert b["roleRef"]["name"] == "system:certificates.k8s.io:certificatesigningrequests:nodeclient"
    assert b["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                              "name": "system:bootstrappers"}]
    rot = cluster.kjson("get", "clusterrolebinding", "kubeadm:node-autoapprove-certificate-rotation")
    assert rot["roleRef"]["name"] == "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"
    assert rot["subjects"][0]["name"] == "system:nodes"
    can = ["auth", "can-i", "create", "certificatesigningrequests", "--subresource=nodeclient",
           "--as=system:bootstrap:x", "--as-group=system:bootstrappers"]
    cluster.kubectl("delete", "clusterrolebinding", "kubeadm:node-autoapprove-bootstrap")
    wait_for(lambda: cluster.kubectl(*can, check=False).stdout.strip() == "no", what="binding gone")
    retries = approver_retries(cluster)
    _, req = make_request(cluster.work, "system:node:p1", name="p1")
    code, _ = call(cluster, "/apis/certificates.k8s.io/v1/certificatesigningrequests", token=node_secret(cluster),
                   method="POST", body=csr_body("node-csr-p1", req))
    assert code == 201
    # the approver recognized it, the review refused it: retried with backoff
    wait_for(lambda: approver_retries(cluster) > retries, what="a refused review")
    out = cluster.kubectl("get", "csr", "node-csr-p1").stdout.splitlines()
    assert out[1].split()[2:] == [KUBELET_SIGNER, "system:bootstrap:node-token", "<none>", "Pending"]
    assert "conditions" not in cluster.kjson("get", "csr", "node-csr-p1").get("status", {})
    cluster.kubectl("create", "clusterrolebinding", "kubeadm:node-autoapprove-bootstrap",
                    "--clusterrole=system:certificates.k8s.io:certificatesigningrequests:nodeclient",
                    "--group=system:bootstrappers")
    wait_for(lambda: cluster.kubectl(*can, check=False).stdout.strip() == "yes", what="binding back")
    # the approver retries with backoff; a change to the request syncs it now
    cluster.kubectl("annotate", "csr", "node-csr-p1", "touched=1")
    issued(cluster, "node-csr-p1")
    out = cluster.kubectl("get", "csr", "node-csr-p1").stdout.splitlines()
    assert out[1].split()[-1] == "Approved,Issued"
    cond = cluster.kjson("get", "csr", "node-csr-p1")["status"]["conditions"][0]
    assert (cond["reason"], cond["message"]) == (
        "AutoApproved", "Auto approving kubelet client certificate after SubjectAccessReview.")


def pod(name, node, secret):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox:1",
                                                       "env": [{"name": "X", "valueFrom": {"secretKeyRef": {
                                                           "name": secret, "key": "k"}}}]}]}}


def test_node_reads_only_what_its_pods_reference(cluster):
    pem = node_cert(cluster, "g1")
    for s in ("mine", "theirs"):
        cluster.kubectl("create", "secret", "generic", s, "--from-literal=k=v")
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("p-mine", "g1", "mine")))
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("p-theirs", "g2", "theirs")))
    code, out = call(cluster, "/api/v1/namespaces/default/secrets/mine", cert=pem)
    assert code == 200 and out["data"]["k"] == base64.b64encode(b"v").decode()
    code, out = call(cluster, "/api/v1/namespaces/default/secrets/theirs", cert=pem)
    assert code == 403
    assert out["message"] == ('secrets "theirs" is forbidden: User "system:node:g1" cannot get resource "secrets" '
                              'in API group "" in the namespace "default": no relationship found between node '
                              "'g1' and this object")
    code, _ = call(cluster, "/api/v1/namespaces/default/secrets", cert=pem)
    assert code == 403
    # a list of one name is about that name, as kubelet's secret watches are
    code, out = call(cluster, "/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dmine", cert=pem)
    assert code == 200 and [i["metadata"]["name"] for i in out["items"]] == ["mine"]
    code, _ = call(cluster, "/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dtheirs", cert=pem)
    assert code == 403
    # the graph follows the store: once the pod goes, so does the access
    cluster.kubectl("delete", "pod", "p-mine", "--grace-period=0", "--force", "--wait=false")
    wait_for(lambda: call(cluster, "/api/v1/namespaces/default/secrets/mine", cert=pem)[0] == 403,
             what="access to go with the pod")
    # a pod bound to it later gives it again
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("p-mine2", "g1", "mine")))
    assert call(cluster, "/api/v1/namespaces/default/secrets/mine", cert=pem)[0] == 200


def test_a_node_asks_only_for_tokens_bound_to_its_pods(cluster):
    """NodeRestriction on TokenRequests (upstream's admitServiceAccount)."""
    pem = node_cert(cluster, "k1")
    cluster.kubectl("create", "secret", "generic", "tok-s", "--from-literal=k=v")
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("tok-mine", "k1", "tok-s")))
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("tok-theirs", "k2", "tok-s")))
    mine = cluster.kjson("get", "pod", "tok-mine")["metadata"]["uid"]
    theirs = cluster.kjson("get", "pod", "tok-theirs")["metadata"]["uid"]
    path = "/api/v1/namespaces/default/serviceaccounts/default/token"

    def ask(ref):
        spec = {"audiences": ["https://kubernetes.default.svc.cluster.local"], "expirationSeconds": 3600}
        if ref is not None:
            spec["boundObjectRef"] = ref
        return call(cluster, path, cert=pem, method="POST",
                    body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec})

    code, out = ask({"apiVersion": "v1", "kind": "Pod", "name": "tok-mine", "uid": mine})
    assert code == 201 and out["status"]["token"], out
    for ref, why in [(None, "node requested token not bound to a pod"),
                     ({"apiVersion": "v1", "kind": "Pod", "name": "tok-mine"},
                      "node requested token with a pod binding without a uid"),
                     ({"apiVersion": "v1", "kind": "Pod", "name": "tok-mine", "uid": theirs},
                      f"the UID in the bound object reference ({theirs}) does not match the UID in record. "
                      "The object might have been deleted and then recreated"),
                     ({"apiVersion": "v1", "kind": "Pod", "name": "tok-theirs", "uid": theirs},
                      "node requested token bound to a pod scheduled on a different node")]:
        code, out = ask(ref)
        assert code == 403, (ref, out)
        assert out["message"] == f'serviceaccounts "default" is forbidden: {why}', out
    # an administrator is not a node: no binding needed
    assert cluster.kubectl("create", "token", "default").returncode == 0


def test_node_restriction(cluster):
    pem = node_cert(cluster, "r1")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "r1", "labels": {"kubernetes.io/os": "linux"}}}
    code, out = call(cluster, "/api/v1/nodes", cert=pem, method="POST", body=node)
    assert code == 201, out
    other = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "r2"}}
    code, out = call(cluster, "/api/v1/nodes", cert=pem, method="POST", body=other)
    assert code == 403
    assert out["message"] == 'nodes "r2" is forbidden: node "r1" is not allowed to modify node "r2"'
    cluster.kubectl("create", "-f", "-", input=json.dumps(other))
    code, out = call(cluster, "/api/v1/nodes/r2/status", cert=pem, method="PATCH",
                     body={"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                     ctype="application/merge-patch+json")
    assert code == 403
    assert out["message"] == 'nodes "r2" is forbidden: node "r1" is not allowed to modify node "r2"'
    code, out = call(cluster, "/api/v1/nodes/r1", cert=pem, method="PATCH",
                     body={"metadata": {"labels": {"node-restriction.kubernetes.io/trusted": "yes"}}},
                     ctype="application/merge-patch+json")
    assert code == 403
    assert out["message"] == ('nodes "r1" is forbidden: is not allowed to modify labels: '
                              'node-restriction.kubernetes.io/trusted')
    code, out = call(cluster, "/api/v1/nodes/r1", cert=pem, method="PATCH",
                     body={"metadata": {"labels": {"node-role.kubernetes.io/control-plane": ""}}},
                     ctype="application/merge-patch+json")
    assert code == 403 and "node-role.kubernetes.io/control-plane" in out["message"]
    code, _ = call(cluster, "/api/v1/nodes/r1", cert=pem, method="PATCH",
                   body={"metadata": {"labels": {"example.com/rack": "7", "kubernetes.io/os": "linux"}}},
                   ctype="application/merge-patch+json")
    assert code == 200
    code, _ = call(cluster, "/api/v1/nodes/r2", cert=pem, method="DELETE")
    assert code == 403
    # its own lease only
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "r2", "namespace": "kube-node-lease"}, "spec": {"holderIdentity": "r2"}}
    code, out = call(cluster, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", cert=pem,
                     method="POST", body=lease)
    assert code == 403 and "can only access node lease with the same name as the requesting node" in out["message"]
    lease["metadata"]["name"] = "r1"
    code, _ = call(cluster, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", cert=pem,
                   method="POST", body=lease)
    assert code == 201
    # pods: only the status of, and deletion of, pods bound to itself
    cluster.kubectl("create", "secret", "generic", "rs", "--from-literal=k=v")
    cluster.kubectl("create", "-f", "-", input=json.dumps(pod("on-r2", "r2", "rs")))
    code, out = call(cluster, "/api/v1/namespaces/default/pods/on-r2/status", cert=pem, method="PATCH",
                     body={"status": {"phase": "Failed"}}, ctype="application/merge-patch+json")
    assert code == 403
    assert out["message"] == ('pods "on-r2" is forbidden: node "r1" can only update pod status for pods with '
                              'spec.nodeName set to itself')
    code, out = call(cluster, "/api/v1/namespaces/default/pods/on-r2", cert=pem, method="DELETE")
    assert code == 403
    assert out["message"] == ('pods "on-r2" is forbidden: node "r1" can only delete pods with spec.nodeName set '
                              'to itself')
    code, out = call(cluster, "/api/v1/namespaces/default/pods", cert=pem, method="POST",
                     body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                           "spec": {"nodeName": "r1", "containers": [{"name": "c", "image": "busybox:1"}]}})
    assert code == 403
    assert 'node "r1" can only create mirror pods' in out["message"]


def test_skiff_token_create_makes_a_bootstrap_token(cluster):
    r = subprocess.run([SKIFF, "token", "create", "--ttl", "1h", "--data-dir", cluster.data_dir],
                       capture_output=True, text=True, check=True)
    tok = r.stdout.strip()
    assert tok.startswith("K10") and "::" in tok
    creds = tok.split("::", 1)[1]
    tid, secret = creds.split(".")
    assert len(tid) == 6 and len(secret) == 16
    s = cluster.kjson("get", "secret", "-n", "kube-system", f"bootstrap-token-{tid}")
    assert s["type"] == "bootstrap.kubernetes.io/token"
    assert base64.b64decode(s["data"]["token-secret"]).decode() == secret
    code, out = call(cluster, "/api/v1/namespaces/default/pods", token=creds)
    assert code == 403 and f'User "system:bootstrap:{tid}"' in out["message"]
    _, req = make_request(cluster.work, "system:node:t1", name="t1")
    code, out = call(cluster, "/apis/certificates.k8s.io/v1/certificatesigningrequests", token=creds,
                     method="POST", body=csr_body("node-csr-t1", req))
    assert code == 201 and "system:bootstrappers" in out["spec"]["groups"]
    issued(cluster, "node-csr-t1")
    r = subprocess.run([SKIFF, "token", "create", "--ttl", "soon", "--data-dir", cluster.data_dir],
                       capture_output=True, text=True)
    assert r.returncode != 0 and '--ttl "soon"' in r.stderr


# ---- real agents (network-namespace nodes; run under flock /tmp/skiff-containers.lock) ----

@pytest.fixture(scope="module")
def joined():
    """The server's node and a second node that joined with a token of
    `skiff token create` alone."""
    from netnodes import multi_node_cluster
    with multi_node_cluster(0, spare=1) as c:
        tok = subprocess.run([SKIFF, "token", "create", "--data-dir", c.server.data_dir], capture_output=True,
                             text=True, check=True).stdout.strip()
        a = c.spare_agent(0)
        c.agents.append(a)
        c.spares.remove(a)
        a.start(c.url(), tok)
        c.wait_ready(a.name)
        c.join_token = tok
        yield c


def agent_cert(c, a):
    return os.path.join(a.data_dir, "pki", "kubelet-client-current.pem")


def test_a_node_joins_with_a_bootstrap_token_and_gets_its_own_identity(joined):
    a = joined.agents[0]
    tid = joined.join_token.split("::")[1].split(".")[0]
    rows = [l.split() for l in joined.kubectl("get", "csr").stdout.splitlines()[1:]]
    mine = [r for r in rows if r[3] == f"system:bootstrap:{tid}"]
    assert len(mine) == 1 and mine[0][2] == KUBELET_SIGNER and mine[0][-1] == "Approved,Issued"
    pem = agent_cert(joined, a)
    assert os.stat(pem).st_mode & 0o777 == 0o600
    txt = subprocess.run(["openssl", "x509", "-noout", "-subject"], input=open(pem, "rb").read(),
                         capture_output=True, check=True).stdout.decode()
    assert f"CN = system:node:{a.name}" in txt and "O = system:nodes" in txt
    # the node's Lease and status come from its own identity
    lease = joined.kjson("get", "lease", "-n", "kube-node-lease", a.name)
    assert lease["spec"]["holderIdentity"] == a.name


def secret_pod(name, node, secret):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                     "volumes": [{"name": "s", "secret": {"secretName": secret}}],
                     "containers": [{"name": "c", "image": "busybox:1",
                                     "command": ["sh", "-c", f"test \"$(cat /s/k)\" = {secret}-value"],
                                     "volumeMounts": [{"name": "s", "mountPath": "/s"}]}]}}


def node_call(c, a, path, method="GET", body=None, ctype="application/json"):
    ctx = ssl.create_default_context(cafile=f"{c.server.data_dir}/tls/ca.crt")
    ctx.load_cert_chain(agent_cert(c, a))
    h = {"Content-Type": ctype} if body is not None else {}
    req = urllib.request.Request(c.url() + path, data=json.dumps(body).encode() if body is not None else None,
                                 method=method, headers=h)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_a_node_reads_the_secrets_of_its_pods_only(joined):
    a = joined.agents[0]
    for s in ("own", "other"):
        joined.kubectl("create", "secret", "generic", s, f"--from-literal=k={s}-value")
    joined.kubectl("create", "-f", "-", input=json.dumps(secret_pod("uses-own", a.name, "own")))
    joined.kubectl("create", "-f", "-", input=json.dumps(secret_pod("uses-other", joined.server_node, "other")))
    for p in ("uses-own", "uses-other"):
        joined.wait_pod(p, lambda o: o.get("status", {}).get("phase") in ("Succeeded", "Failed"), what="finished")
        assert joined.kjson("get", "pod", p)["status"]["phase"] == "Succeeded"
    code, out = node_call(joined, a, "/api/v1/namespaces/default/secrets/own")
    assert code == 200 and base64.b64decode(out["data"]["k"]) == b"own-value"
    code, out = node_call(joined, a, "/api/v1/namespaces/default/secrets/other")
    assert code == 403
    assert out["message"].endswith(f"no relationship found between node '{a.name}' and this object")


def test_a_node_cannot_touch_another_node_or_restricted_labels(joined):
    a = joined.agents[0]
    code, out = node_call(joined, a, f"/api/v1/nodes/{joined.server_node}/status", method="PATCH",
                          body={"status": {"conditions": [{"type": "Ready", "status": "False"}]}},
                          ctype="application/merge-patch+json")
    assert code == 403
    assert out["message"] == (f'nodes "{joined.server_node}" is forbidden: node "{a.name}" is not allowed to '
                              f'modify node "{joined.server_node}"')
    code, out = node_call(joined, a, f"/api/v1/nodes/{a.name}", method="PATCH",
                          body={"metadata": {"labels": {"node-restriction.kubernetes.io/gpu-pool": "a"}}},
                          ctype="application/merge-patch+json")
    assert code == 403 and "node-restriction.kubernetes.io/gpu-pool" in out["message"]
    code, _ = node_call(joined, a, "/api/v1/namespaces/default/secrets")
    assert code == 403


def test_a_restarted_agent_reuses_its_certificate(joined):
    a = joined.agents[0]
    before = len(joined.kjson("get", "csr")["items"])
    with open(agent_cert(joined, a), "rb") as f:
        cert = f.read()
    a.stop()
    a.start(joined.url(), joined.join_token)
    wait_for(lambda: "using the client certificate" in a.log(), what="the agent to take its certificate")
    joined.wait_ready(a.name)
    assert len(joined.kjson("get", "csr")["items"]) == before
    with open(agent_cert(joined, a), "rb") as f:
        assert f.read() == cert


def agent_call(c, a, path, cert=None, token=None):
    """GET on the agent's own HTTPS endpoint, its certificate verified
    against the cluster CA for its InternalIP: (status, body)."""
    node = c.kjson("get", "node", a.name)
    ip = next(x["address"] for x in node["status"]["addresses"] if x["type"] == "InternalIP")
    port = node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]
    ctx = ssl.create_default_context(cafile=f"{c.server.data_dir}/tls/ca.crt")
    if cert:
        ctx.load_cert_chain(cert)
    h = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(f"https://{ip}:{port}{path}", headers=h)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_joined_node_serves_logs_and_exec_to_the_api_server_only(joined):
    """The agent's endpoint has a serving certificate of the cluster CA (a
    kubelet-serving CSR, approved), the API server reaches it with its
    kubelet client certificate, and anybody else needs a credential the
    API server vouches for and the right to nodes/proxy."""
    a = joined.agents[0]
    rows = [l.split() for l in joined.kubectl("get", "csr").stdout.splitlines()[1:]]
    serving = [r for r in rows if r[2] == "kubernetes.io/kubelet-serving" and r[3] == f"system:node:{a.name}"]
    assert len(serving) == 1 and serving[0][-1] == "Approved,Issued"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "talker"},
           "spec": {"nodeName": a.name, "terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "c", "image": "busybox:1",
                                    "command": ["sh", "-c", "echo hello from the node; sleep 3600"]}]}}
    joined.kubectl("create", "-f", "-", input=json.dumps(pod))
    joined.wait_pod("talker", lambda o: o.get("status", {}).get("phase") == "Running", what="running")
    wait_for(lambda: "hello from the node" in joined.kubectl("logs", "talker", check=False).stdout,
             what="the pod's log through the API server")
    assert joined.kubectl("exec", "talker", "--", "echo", "exec works").stdout == "exec works\n"
    path = "/containerLogs/default/talker/c"
    code, body = agent_call(joined, a, path)
    assert code == 401 and "Unauthorized" in body
    code, body = agent_call(joined, a, path, token="not-a-token")
    assert code == 401
    # a node's own identity may not read logs through another's endpoint
    code, body = agent_call(joined, a, path, cert=agent_cert(joined, a))
    assert code == 403
    assert body == (f"Forbidden (user=system:node:{a.name}, verb=get, resource=nodes, "
                    "subresource(s)=[proxy])\n")
    admin = open(os.path.join(joined.server.data_dir, "token")).read().strip()
    code, body = agent_call(joined, a, path, token=admin)
    assert code == 200 and "hello from the node" in body
    joined.kubectl("delete", "pod", "talker", "--wait=false")
