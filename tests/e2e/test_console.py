"""The web console (/console/, console/): served by `skiff server` on its own
port, signed in with a bearer token, every call through the API with RBAC.
Headless Debian chromium (tests/e2e/cdp.py) reads the pages of a cluster of
hollow nodes (Node objects written here, no agent): nodes with pools, runtime,
OS image and GPUs, live as a node joins; a pending pod with the scheduler's
message; a Job's pods on a timeline with attempts, the exit reason and the
failure phase; a Deployment's rollout; image pull times from Pulled events; a
container's log (the hollow nodes have none: the browser is handed one).
Screenshots at 1280x800 and 390x844 go to the test's tmp directory."""
import base64
import json
import os
import shutil
import ssl
import tempfile
import time
import urllib.request

import pytest

from cdp import Browser
from conftest import Cluster
from test_agent_cluster import wait_for

NS = "team"
OUT = os.environ.get("SKIFF_CONSOLE_SHOTS")  # keep the screenshots there (default: the test's tmp dir)


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def add_node(c, name, pool, gpus=0, healthy=0):
    labels = {"kubernetes.io/hostname": name, "pool": pool}
    if gpus:
        labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB"
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}))
    cap = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    alloc = dict(cap)
    if gpus:
        cap["nvidia.com/gpu"], alloc["nvidia.com/gpu"] = str(gpus), str(healthy)
    t = now()
    c.kubectl("patch", "node", name, "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
        "capacity": cap, "allocatable": alloc,
        "nodeInfo": {"containerRuntimeVersion": "skiff://0.1", "osImage": "Debian GNU/Linux 12 (bookworm)",
                     "kubeletVersion": "v1.32.0", "architecture": "amd64", "operatingSystem": "linux"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                        "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent"]).start()
    with open(c.kubeconfig) as f:
        c.admin_token = [l.split()[1] for l in f if l.strip().startswith("token:")][0]
    add_node(c, "gpu-a", "gpu", gpus=4, healthy=3)
    add_node(c, "cpu-a", "cpu")
    add_node(c, "cpu-b", "cpu")
    c.kubectl("create", "namespace", NS)
    c.kubectl("create", "serviceaccount", "viewer", "-n", NS)
    c.kubectl("create", "rolebinding", "viewer", "-n", NS, "--clusterrole=view", f"--serviceaccount={NS}:viewer")
    c.viewer_token = c.kubectl("create", "token", "viewer", "-n", NS).stdout.strip()
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def shots():
    d = OUT or tempfile.mkdtemp(prefix="skiff-console-shots-")
    os.makedirs(d, exist_ok=True)
    yield d
    if not OUT:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.close()


def url(c, path=""):
    return f"https://127.0.0.1:{c.port}/console/{path}"


def text(b, sel):
    return b.eval(f"(e => e ? e.innerText : '')(document.querySelector({json.dumps(sel)}))")


def rows(b, table):
    """The rendered rows of a table, each {column: text}."""
    return b.eval(f"""[...document.querySelectorAll('#{table} .body .tr')].map(r =>
        Object.fromEntries([...r.querySelectorAll('.td')].map(d => [d.dataset.col, d.innerText.trim()])))""")


def wait_text(b, sel, want, what=None):
    return wait_for(lambda: want in text(b, sel) and text(b, sel), timeout=30, interval=0.1,
                    what=what or f"{want!r} in {sel}")


def sign_in(b, c, token):
    """Signs out (the Sign out button) if signed in, then in with token."""
    if b.eval("location.href.startsWith('https:')"):
        b.eval("(e => e && e.click())(document.getElementById('signout'))")
    else:
        b.navigate(url(c))
    wait_for(lambda: b.eval("!!document.getElementById('token')"), timeout=30, interval=0.1, what="login form")
    assert b.eval("sessionStorage.length") == 0
    b.eval(f"""(() => {{ document.getElementById('token').value = {json.dumps(token)};
        document.querySelector('#login button').click(); return 1 }})()""")


def go(b, page):
    b.eval(f"location.hash = {json.dumps('#/' + page)}")


def both_sizes(b, shots, name):
    b.screenshot(os.path.join(shots, f"{name}-1280x800.png"))
    b.viewport(390, 844, mobile=True)
    try:
        b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # laid out at the new size
        b.screenshot(os.path.join(shots, f"{name}-390x844.png"))
        cols = b.eval("[...document.querySelectorAll('.tr.th .td')].filter(d => d.offsetWidth > 0).length")
        return cols
    finally:
        b.viewport(1280, 800)


def test_console_served_without_credentials_and_api_needs_them(cluster):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE

    def get(path, method="GET"):
        req = urllib.request.Request(f"https://127.0.0.1:{cluster.port}{path}", method=method)
        try:
            with urllib.request.urlopen(req, context=ctx) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    st, h, body = get("/console/")
    assert st == 200 and h["Content-Type"] == "text/html; charset=utf-8" and b'src="app.js"' in body
    assert "default-src 'self'" in h["Content-Security-Policy"] and h["X-Content-Type-Options"] == "nosniff"
    st, h, body = get("/console/app.js")
    assert st == 200 and h["Content-Type"].startswith("text/javascript") and len(body) > 1000
    st, h, _ = get("/console/app.css")
    assert st == 200 and h["Content-Type"].startswith("text/css")
    assert get("/console/nope.js")[0] == 404
    assert get("/console/", "POST")[0] == 405
    # /console redirects to /console/ (urllib follows it)
    st, _, body = get("/console")
    assert st == 200 and b"<div id=\"app\">" in body
    # the API itself still wants credentials
    st, _, body = get("/api/v1/nodes")
    assert st == 401 and json.loads(body)["reason"] == "Unauthorized"


def test_sign_in_and_nodes_live(cluster, browser, shots):
    b = browser
    sign_in(b, cluster, "not-a-token")
    wait_text(b, "#login-error", "401 Unauthorized")
    assert b.eval("sessionStorage.length") == 0

    # a ServiceAccount bound to `view` in one namespace: nodes are forbidden to it
    sign_in(b, cluster, cluster.viewer_token)
    wait_text(b, "#user", f"system:serviceaccount:{NS}:viewer")
    msg = wait_text(b, "main .error", "forbidden")
    assert f'User "system:serviceaccount:{NS}:viewer" cannot list resource "nodes"' in msg, msg

    sign_in(b, cluster, cluster.admin_token)
    wait_text(b, "#user", "system:admin")
    assert b.eval("sessionStorage.getItem('skiff-console-token')") == cluster.admin_token
    wait_text(b, "#node-count", "3")
    got = {r["name"]: r for r in rows(b, "nodes")}
    assert set(got) == {"gpu-a", "cpu-a", "cpu-b"}
    assert got["gpu-a"]["pool"] == "gpu" and got["cpu-b"]["pool"] == "cpu"
    assert got["gpu-a"]["status"] == "Ready"
    assert got["gpu-a"]["gpu"] == "4× NVIDIA-A100-SXM4-80GB (1 unhealthy)"
    assert got["cpu-a"]["gpu"] == "" and got["cpu-a"]["runtime"] == "skiff://0.1"
    assert got["cpu-a"]["os"] == "Debian GNU/Linux 12 (bookworm)"
    assert "cpu: 2" in text(b, ".chips") and "GPUs: 3/4 healthy" in text(b, ".chips")

    # watch-driven: a node that joins, a node that goes NotReady, without a reload
    add_node(cluster, "cpu-c", "cpu")
    t = now()
    cluster.kubectl("patch", "node", "cpu-b", "--subresource=status", "--type=strategic", "-p", json.dumps({
        "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady",
                                   "message": "down", "lastHeartbeatTime": t, "lastTransitionTime": t},
                                  {"type": "MemoryPressure", "status": "True", "reason": "KubeletHasInsufficientMemory",
                                   "message": "low", "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))
    wait_text(b, "#node-count", "4")
    got = wait_for(lambda: (lambda g: g["cpu-b"]["status"] == "NotReady" and g)(
        {r["name"]: r for r in rows(b, "nodes")}), timeout=30, interval=0.1, what="cpu-b NotReady")
    assert got["cpu-b"]["problems"] == "MemoryPressure" and "cpu-c" in got
    # on a phone: name, pool, status, GPUs and age; conditions, runtime, OS image and version go
    assert both_sizes(b, shots, "nodes") == 5


def test_pending_pod_with_scheduler_reason(cluster, browser, shots):
    b = browser
    apply(cluster, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stuck", "namespace": NS},
                    "spec": {"nodeSelector": {"pool": "tpu"},
                             "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}})
    go(b, "pending")
    wait_text(b, "#pending-count", "1")
    r = wait_for(lambda: [x for x in rows(b, "pending") if x["name"] == "stuck" and x["message"]],
                 timeout=30, interval=0.1, what="scheduler message")[0]
    assert r["namespace"] == NS and r["stage"] == "scheduling" and r["reason"] == "Unschedulable"
    assert r["message"].startswith("0/4 nodes are available:") and "node affinity/selector" in r["message"], r
    both_sizes(b, shots, "pending")
    # a click shows the pod with its conditions
    b.eval("document.querySelector('#pending .body .tr').click()")
    wait_text(b, ".detail", "Stalled in")
    assert "scheduling: Unschedulable" in text(b, ".detail")


def test_job_pods_on_a_timeline(cluster, browser, shots):
    b = browser
    apply(cluster, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": NS},
                    "spec": {"completions": 2, "parallelism": 2, "completionMode": "Indexed", "backoffLimit": 4,
                             "template": {"spec": {"restartPolicy": "Never", "nodeSelector": {"pool": "gpu"},
                                                   "containers": [{"name": "trainer", "image": "busybox"}]}}}})
    go(b, "jobs")
    wait_for(lambda: [r for r in rows(b, "jobs") if r["name"] == "train"], timeout=30, interval=0.1, what="job row")
    b.eval("document.querySelector('#jobs .body .tr[data-key=\"team/train\"]').click()")
    wait_for(lambda: b.eval("document.querySelectorAll('#timeline .tl').length") == 2, timeout=30,
             interval=0.1, what="two pods on the timeline")

    # the kubelet's report of an OOM kill, written as the node would
    pods = cluster.kjson("get", "pods", "-n", NS, "-l", "batch.kubernetes.io/job-name=train")["items"]
    p0 = [p for p in pods if p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "0"][0]
    t = now()
    cluster.kubectl("patch", "pod", p0["metadata"]["name"], "-n", NS, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": {"phase": "Failed", "startTime": t, "containerStatuses": [{
                        "name": "trainer", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0,
                        "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                                                 "startedAt": t, "finishedAt": t}}}]}}))
    # the Job controller replaces it: index 0 gets a second attempt
    wait_for(lambda: b.eval("document.querySelectorAll('#timeline .tl').length") == 3, timeout=30,
             interval=0.1, what="the replacement pod")
    tl = b.eval("""[...document.querySelectorAll('#timeline .tl')].map(e => ({cls: e.className,
        label: e.querySelector('.tl-label').innerText, out: e.querySelector('.tl-out').innerText}))""")
    failed = [x for x in tl if "Failed" in x["cls"]]
    assert len(failed) == 1 and "index 0, attempt 1" in failed[0]["label"], tl
    assert "OOMKilled" in failed[0]["out"] and "run" in failed[0]["out"], tl
    assert len([x for x in tl if "index 0, attempt 2" in x["label"]]) == 1, tl
    assert len([x for x in tl if "index 1, attempt 1" in x["label"]]) == 1, tl
    both_sizes(b, shots, "job-timeline")
    go(b, "jobs")
    r = wait_for(lambda: [r for r in rows(b, "jobs") if r["name"] == "train" and r["failed"] == "1"],
                 timeout=30, interval=0.1, what="the job's failed count")[0]
    assert r["state"] == "Running" and r["progress"] == "0/2"

    # a pod the API server refuses (a quota of no pods) never exists: the
    # Job controller's FailedCreate event puts it on the timeline, at admission
    cluster.kubectl("create", "namespace", "quota")
    apply(cluster, {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "none", "namespace": "quota"},
                    "spec": {"hard": {"pods": "0"}}})
    apply(cluster, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "refused", "namespace": "quota"},
                    "spec": {"template": {"spec": {"restartPolicy": "Never",
                                                   "containers": [{"name": "c", "image": "busybox"}]}}}})
    b.eval("location.hash = '#/jobs/quota/refused'")
    msg = wait_for(lambda: b.eval("(document.querySelector('#refused .tl') || {}).innerText"), timeout=30,
                   interval=0.1, what="the refused pod creation")
    assert "exceeded quota: none" in msg and "admission" in msg, msg


def test_deployments_pulls_and_logs(cluster, browser, shots):
    b = browser
    apply(cluster, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": NS},
                    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                             "template": {"metadata": {"labels": {"app": "web"}},
                                          "spec": {"containers": [{"name": "web", "image": "busybox"}]}}}})
    go(b, "deployments")
    r = wait_for(lambda: [r for r in rows(b, "deployments") if r["name"] == "web" and r["revision"] == "1"],
                 timeout=30, interval=0.1, what="deployment row")[0]
    assert r["namespace"] == NS and r["bar"] == "0/2" and r["state"] == "Progressing", r
    both_sizes(b, shots, "deployments")

    def event(name, node, msg):
        apply(cluster, {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": NS},
                        "involvedObject": {"kind": "Pod", "namespace": NS, "name": "stuck"}, "reason": "Pulled",
                        "type": "Normal", "message": msg, "source": {"component": "kubelet", "host": node},
                        "firstTimestamp": now(), "lastTimestamp": now(), "count": 1})
    event("p1", "gpu-a", 'Successfully pulled image "registry.local/train:v2" in 12.5s (13.1s including waiting). '
                         "Image size: 734003200 bytes.")
    event("p2", "gpu-a", 'Successfully pulled image "busybox" in 450ms (450ms including waiting). Image size: 2000 bytes.')
    event("p3", "cpu-a", 'Container image "busybox" already present on machine')
    go(b, "pulls")
    got = wait_for(lambda: (lambda s: len(s) == 2 and s)({r["node"]: r for r in rows(b, "pull-nodes")}),
                   timeout=30, interval=0.1, what="pulls per node")
    assert got["gpu-a"]["count"] == "2" and got["gpu-a"]["median"] == "450ms" and got["gpu-a"]["max"] == "12.5s"
    assert got["cpu-a"]["count"] == "0" and got["cpu-a"]["cached"] == "1"
    pulls = {r["image"]: r for r in rows(b, "pulls")}
    assert pulls["registry.local/train:v2"]["seconds"] == "12.5s" and pulls["registry.local/train:v2"]["bytes"] == "700.0 MiB"
    both_sizes(b, shots, "pulls")

    # the hollow nodes serve no logs: the browser's log request is answered here
    asked = []

    def paused(p):
        asked.append(p["request"]["url"])
        body = base64.b64encode(b"epoch 1 loss 0.9\nepoch 2 loss 0.5\n").decode()
        b.call("Fetch.fulfillRequest", {"requestId": p["requestId"], "responseCode": 200, "body": body,
                                        "responseHeaders": [{"name": "Content-Type", "value": "text/plain"}]})
    b.on("Fetch.requestPaused", paused)
    b.call("Fetch.enable", {"patterns": [{"urlPattern": "*/log?*"}]})
    try:
        go(b, f"logs/{NS}/stuck/c")
        wait_text(b, "#log", "epoch 2 loss 0.5")
        wait_text(b, "#log-state", "ended")
    finally:
        b.call("Fetch.disable")
    assert asked and f"/api/v1/namespaces/{NS}/pods/stuck/log?follow=true" in asked[0] and "container=c" in asked[0]
    both_sizes(b, shots, "logs")
    assert sorted(f for f in os.listdir(shots) if f.endswith(".png")) == sorted(
        f"{n}-{s}.png" for n in ("nodes", "pending", "job-timeline", "deployments", "pulls", "logs")
        for s in ("1280x800", "390x844"))
