"""Service-account tokens in running pods: the node agent writes the
projected kube-api-access volume (a bound token through ..data, the cluster
CA, the namespace), the token authenticates as the pod's ServiceAccount and
dies with the pod, and a pod running the official Python client with
config.load_incluster_config() reaches the API through the kubernetes
Service: refused with a 403 naming its ServiceAccount until a RoleBinding
lets it list pods in its own namespace. A server with its embedded agent on a bridge address
(tests/e2e/netnodes.py), so pods reach it; the Python image is built from
Debian packages (tests/images/build-python-client.sh). Needs root and the
runtime tools; run under flock /tmp/skiff-containers.lock."""
import json
import os
import shutil
import subprocess

import pytest

import netnodes
from conftest import ROOT, SKIFF
from test_agent_cluster import wait_for

pytestmark = pytest.mark.agents

SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def pyclient_image():
    if not all(shutil.which(t) for t in ("mmdebstrap", "umoci", "skopeo")):
        pytest.skip("needs mmdebstrap, umoci and skopeo for the Python client image")
    out = subprocess.run(["bash", os.path.join(ROOT, "tests", "images", "build-python-client.sh")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError("building the Python client image failed:\n" + out.stderr[-3000:])
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def cluster():
    image = pyclient_image()
    orig = netnodes.MultiNodeCluster.import_images

    def import_images(self, data_dir):
        orig(self, data_dir)
        subprocess.run([SKIFF, "image", "import", "--data-dir", data_dir, image, "--name", "pyclient"],
                       check=True, capture_output=True)
    netnodes.MultiNodeCluster.import_images = import_images
    try:
        with netnodes.multi_node_cluster(0) as c:
            yield c
    finally:
        netnodes.MultiNodeCluster.import_images = orig


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def pod(c, name, image, command, ns="default", sa=None, restart="Never"):
    spec = {"nodeName": c.server_node, "restartPolicy": restart, "terminationGracePeriodSeconds": 1,
            "containers": [{"name": "c", "image": image, "command": command}]}
    if sa:
        spec["serviceAccountName"] = sa
    apply(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": spec})


def logs_when(c, name, text, ns="default", timeout=120):
    def seen():
        r = c.kubectl("-n", ns, "logs", name, check=False)
        return r.stdout if r.returncode == 0 and text in r.stdout else False
    try:
        return wait_for(seen, timeout, interval=0.5, what=f"{text!r} in the logs of {name}")
    except AssertionError:
        p = c.kubectl("-n", ns, "get", "pod", name, "-o", "yaml", check=False).stdout
        raise AssertionError(f"{name} did not log {text!r}:\n{p[-3000:]}")


def review(c, token):
    out = c.kubectl("create", "--raw", "/apis/authentication.k8s.io/v1/tokenreviews", "-f", "-",
                    input=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                      "spec": {"token": token}})).stdout
    return json.loads(out)["status"]


def test_projected_token_volume_in_a_pod(cluster):
    c = cluster
    script = (f"cd {SA_DIR} && ls -la . ..data/ && echo NS=$(cat namespace) && "
              "echo TOKEN=$(cat token) && cat ca.crt && echo END; sleep 3600")
    pod(c, "reader", "busybox:1", ["sh", "-c", script])
    out = logs_when(c, "reader", "END")
    listing = out.split("NS=")[0]
    for f in ("token", "ca.crt", "namespace"):
        assert f"{f} -> ..data/{f}" in listing, listing
    assert "..data -> ..20" in listing, listing
    assert "NS=default" in out
    token = [l for l in out.splitlines() if l.startswith("TOKEN=")][0][len("TOKEN="):]
    with open(os.path.join(c.server.data_dir, "tls", "ca.crt")) as f:
        assert f.read().strip() in out
    p = c.kjson("get", "pod", "reader")
    st = review(c, token)
    assert st["authenticated"] is True
    assert st["user"]["username"] == "system:serviceaccount:default:default"
    assert st["user"]["extra"]["authentication.kubernetes.io/pod-name"] == ["reader"]
    assert st["user"]["extra"]["authentication.kubernetes.io/pod-uid"] == [p["metadata"]["uid"]]
    assert st["user"]["extra"]["authentication.kubernetes.io/node-name"] == [c.server_node]
    # the pod goes: its token with it
    c.kubectl("delete", "pod", "reader", "--wait=true", timeout=120)
    assert review(c, token)["error"] == "[invalid bearer token, service account token has been invalidated]"


def test_in_cluster_python_client_is_confined_by_rbac(cluster):
    """A pod running the official client with load_incluster_config() is
    refused (403, naming its ServiceAccount) until a RoleBinding lets it list
    pods in its own namespace; another namespace stays refused."""
    c = cluster
    c.kubectl("create", "namespace", "sa-other", check=False)
    c.kubectl("create", "serviceaccount", "lister")
    script = """
import time
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_incluster_config()
v1 = client.CoreV1Api()
ns = open('/var/run/secrets/kubernetes.io/serviceaccount/namespace').read()
for attempt in range(120):
    for where in (ns, 'sa-other'):
        try:
            print('LISTED', where, len(v1.list_namespaced_pod(where).items), flush=True)
        except ApiException as e:
            print('REFUSED', where, e.status, e.body.replace(chr(10), ' '), flush=True)
    print('ROUND', attempt, flush=True)
    if attempt and 'LISTED' in last:
        break
    last = ''
    try:
        v1.list_namespaced_pod(ns)
        last = 'LISTED'
    except ApiException:
        pass
    time.sleep(1)
print('END', flush=True)
"""
    pod(c, "pyclient", "pyclient:1", ["python3", "-c", script], sa="lister")
    out = logs_when(c, "pyclient", "ROUND 0", timeout=180)
    lines = {l.split()[1]: l for l in out.splitlines() if l.startswith(("LISTED", "REFUSED"))}
    for ns in ("default", "sa-other"):
        assert lines[ns].startswith(f"REFUSED {ns} 403 "), out
        body = json.loads(lines[ns].split(" ", 3)[3])
        assert body["reason"] == "Forbidden"
        assert body["message"] == (f'pods is forbidden: User "system:serviceaccount:default:lister" cannot list '
                                   f'resource "pods" in API group "" in the namespace "{ns}"')
    c.kubectl("create", "rolebinding", "lister-view", "--clusterrole=view", "--serviceaccount=default:lister")
    out = logs_when(c, "pyclient", "END", timeout=180)
    last = [l for l in out.splitlines() if l.startswith(("LISTED", "REFUSED"))][-2:]
    assert last[0].startswith("LISTED default "), out
    assert last[1].startswith("REFUSED sa-other 403 "), out
