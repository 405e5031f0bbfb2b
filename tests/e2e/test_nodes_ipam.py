"""The node IPAM controller and the join token, on a server without nodes of
its own (no containers, no root): Nodes made with kubectl get pod CIDRs of
--cluster-cidr, a full range gives CIDRNotAvailable, a restart repairs the
allocation set from the stored Nodes; GET /cacerts and the K10 token of
DIR/node-token pin the server's CA."""
import hashlib
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import urllib.request

import pytest

from conftest import Cluster, SKIFF
from test_agent_cluster import wait_for

pytestmark = pytest.mark.agents


@pytest.fixture
def ipam():
    d = tempfile.mkdtemp(prefix="skiff-e2e-ipam-")
    c = Cluster(d, ["--no-agent", "--cluster-cidr", "10.77.0.0/23", "--node-cidr-mask-size", "24"])
    try:
        yield c.start()
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def make_node(c, name, cidr=None):
    spec = {"podCIDR": cidr} if cidr else {}
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node",
                                                       "metadata": {"name": name}, "spec": spec}))


def pod_cidr(c, name):
    return c.kjson("get", "node", name)["spec"].get("podCIDR")


def wait_cidr(c, name):
    return wait_for(lambda: pod_cidr(c, name), 20, what=f"pod CIDR of {name}")


def not_available(c, name):
    ev = c.kjson("get", "events", "--field-selector", f"involvedObject.name={name}")["items"]
    return [e for e in ev if e["reason"] == "CIDRNotAvailable"]


def test_nodes_get_distinct_cidrs_until_the_range_is_full(ipam):
    c = ipam
    make_node(c, "a")
    make_node(c, "b")
    got = {wait_cidr(c, "a"), wait_cidr(c, "b")}
    assert got == {"10.77.0.0/24", "10.77.1.0/24"}
    n = c.kjson("get", "node", "a")
    assert n["spec"]["podCIDRs"] == [n["spec"]["podCIDR"]]
    make_node(c, "c")
    ev = wait_for(lambda: not_available(c, "c"), 30, what="CIDRNotAvailable event")
    assert ev[0]["type"] == "Normal" and ev[0]["message"] == "Node c status is now: CIDRNotAvailable"
    assert ev[0]["source"]["component"] == "cidrAllocator"
    assert not pod_cidr(c, "c")
    # a deleted node's CIDR is free again
    freed = pod_cidr(c, "a")
    c.kubectl("delete", "node", "a")
    assert wait_cidr(c, "c") == freed
    # the Python client reads the field as kubectl does
    from kubernetes import client
    node = client.CoreV1Api(c.api_client()).read_node("c")
    assert node.spec.pod_cidr == freed and node.spec.pod_cid_rs == [freed]


def test_restart_repairs_from_the_stored_nodes(ipam):
    c = ipam
    # one CIDR an agent chose itself (inside the cluster CIDR), one handed out
    make_node(c, "own", "10.77.0.0/24")
    make_node(c, "given")
    assert wait_cidr(c, "given") == "10.77.1.0/24"
    c.stop()
    c.start()
    make_node(c, "late")
    wait_for(lambda: not_available(c, "late"), 30, what="CIDRNotAvailable after the restart")
    assert not pod_cidr(c, "late")
    c.kubectl("delete", "node", "own")
    assert wait_cidr(c, "late") == "10.77.0.0/24"


def test_pod_cidr_validation(ipam):
    c = ipam
    make_node(c, "v")
    cidr = wait_cidr(c, "v")
    r = c.kubectl("patch", "node", "v", "-p", '{"spec":{"podCIDR":"10.77.9.0/24","podCIDRs":["10.77.9.0/24"]}}',
                  check=False)
    assert r.returncode != 0
    assert 'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid' in r.stderr
    assert pod_cidr(c, "v") == cidr
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "bad"}, "spec": {"podCIDRs": ["10.1.2.3"]}}))
    assert r.returncode != 0 and "spec.podCIDRs[0]: Invalid value" in r.stderr and "must be valid CIDR" in r.stderr


def test_cacerts_and_the_join_token(ipam):
    c = ipam
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with urllib.request.urlopen(f"https://127.0.0.1:{c.port}/cacerts", context=ctx, timeout=10) as r:
        body = r.read()
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/plain")
    with open(os.path.join(c.data_dir, "tls", "ca.crt"), "rb") as f:
        assert body == f.read()
    with open(os.path.join(c.data_dir, "node-token")) as f:
        token = f.read().strip()
    assert token == "K10" + hashlib.sha256(body).hexdigest() + "::node:" + token.rsplit(":", 1)[1]
    # the rest of the API still wants credentials
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}/api/v1/nodes")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, context=ctx, timeout=10)
    assert e.value.code == 401
    # a restart keeps the token
    c.stop()
    c.start()
    with open(os.path.join(c.data_dir, "node-token")) as f:
        assert f.read().strip() == token


def test_an_agent_refuses_a_server_whose_ca_does_not_match(ipam):
    c = ipam
    with open(os.path.join(c.data_dir, "node-token")) as f:
        token = f.read().strip()
    bad = "K10" + hashlib.sha256(b"another CA").hexdigest() + token[67:]
    d = os.path.join(c.data_dir, "refused-agent")
    r = subprocess.run([SKIFF, "agent", "--server", f"https://127.0.0.1:{c.port}", "--token", bad,
                        "--data-dir", d], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "the server's CA does not match the token's hash" in r.stderr
    assert not os.path.exists(d)
    # a --ca-file given with a K10 token must be the pinned CA too
    other = os.path.join(c.data_dir, "other-ca.crt")
    with open(other, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    r = subprocess.run([SKIFF, "agent", "--server", f"https://127.0.0.1:{c.port}", "--token", token, "--ca-file",
                        other, "--data-dir", d], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "the server's CA does not match the token's hash" in r.stderr
    assert not os.path.exists(d)
    r = subprocess.run([SKIFF, "agent", "--server", f"https://127.0.0.1:{c.port}", "--token", "K10abc::node:x",
                        "--data-dir", d], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "invalid token format" in r.stderr
    assert not os.path.exists(d)
