"""An agent given only server A's URL learns the other API servers from the
default/kubernetes Endpoints (as k3s's agent load balancer): server B joins
A's etcd, the agent adds it, and when A is killed (kill -9) the agent moves
to B: its node's Lease is renewed through B, the Node stays Ready, its pod's
container is not restarted, and its watches resume on B from their last
resourceVersion: B's audit log shows the node's watches and no list."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import SKIFF, Cluster
from etcd_util import Etcd
from test_agent_cluster import AgentCluster, have_tools, wait_for

pytestmark = pytest.mark.agents

NODE = "ha-node"


@pytest.fixture(scope="module")
def ha():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    e = Etcd().start()
    da, db = tempfile.mkdtemp(prefix="skiff-e2e-"), tempfile.mkdtemp(prefix="skiff-e2e-")
    common = ["--datastore-endpoint", f"etcd://{e.endpoint}", "--leader-elect-lease-duration", "4s",
              "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "1s"]
    a = AgentCluster(da, node=NODE)
    a.extra += common + ["--advertise-address", "127.0.0.2"]
    a.listen_host = "127.0.0.2"
    a.start()
    a.import_images()
    b = Cluster(db, ["--no-agent"] + common + ["--advertise-address", "127.0.0.3", "--join-from", da,
                                               "--audit-log-path", os.path.join(db, "audit.log")])
    b.listen_host, b.port = "127.0.0.3", a.port
    yield a, b
    if a.agent_proc and b.proc:
        # A is dead: the pod goes through B before the agent stops
        b.kubectl("delete", "pods", "--all", "--wait=false", check=False)
        sandboxes = os.path.join(a.run_dir, "sandboxes")
        try:
            wait_for(lambda: not os.path.isdir(sandboxes) or not os.listdir(sandboxes), 60, interval=0.5,
                     what="sandboxes removed")
        except AssertionError:
            pass
    b.cleanup()
    a.cleanup()
    e.cleanup()
    shutil.rmtree(da, ignore_errors=True)
    shutil.rmtree(db, ignore_errors=True)


def renew_time(c):
    r = c.kubectl("get", "lease", "-n", "kube-node-lease", NODE, "-o", "json", check=False)
    return json.loads(r.stdout)["spec"].get("renewTime") if r.returncode == 0 else None


def ready(c):
    r = c.kubectl("get", "node", NODE, "-o", "json", check=False)
    conds = json.loads(r.stdout).get("status", {}).get("conditions", []) if r.returncode == 0 else []
    return any(x["type"] == "Ready" and x["status"] == "True" for x in conds)


def container(c):
    r = c.kubectl("get", "pod", "keep", "-o", "json", check=False)
    st = json.loads(r.stdout).get("status", {}) if r.returncode == 0 else {}
    cs = (st.get("containerStatuses") or [{}])[0]
    return (cs["containerID"], cs["restartCount"]) if st.get("phase") == "Running" and cs.get("ready") else None


def node_requests(path):
    """(verb, resource, URI) of the node's requests in an audit log."""
    out = {}
    with open(path) as f:
        for line in f:
            ev = json.loads(line)
            if ev["user"]["username"] == f"system:node:{NODE}" and ev["stage"] != "RequestReceived":
                out[ev["auditID"]] = (ev["verb"], ev.get("objectRef", {}).get("resource"), ev["requestURI"])
    return list(out.values())


def test_agent_learns_servers_and_fails_over(ha):
    a, b = ha
    url_a, url_b = f"https://127.0.0.2:{a.port}", f"https://127.0.0.3:{a.port}"
    log = open(a.agent_log, "ab")
    a.agent_proc = subprocess.Popen(
        [SKIFF, "agent", "--server", url_a, "--token", "@" + os.path.join(a.data_dir, "node-token"),
         "--data-dir", a.agent_dir, "--run-dir", a.run_dir, "--bridge", a.bridge, "--pod-cidr", a.pod_cidr,
         "--node-name", NODE],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    wait_for(lambda: ready(a), what="node Ready")
    a.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "keep"},
        "spec": {"nodeName": NODE, "terminationGracePeriodSeconds": 1, "containers": [
            {"name": "c", "image": "busybox:1", "imagePullPolicy": "Never", "command": ["sleep", "3600"]}]}}))
    cid = wait_for(lambda: container(a), what="pod running")
    assert cid[1] == 0

    # B joins: the agent, given A alone, learns it from default/kubernetes
    b.start()
    wait_for(lambda: f"API servers: {url_a},{url_b}" in open(a.agent_log, errors="replace").read(),
             what="the agent learned server B")

    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    killed = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    # a renewal stamped in a later second than the kill's came through B
    wait_for(lambda: (renew_time(b) or "")[:19] > killed, what="node lease renewed through server B")
    assert ready(b)
    assert container(b) == cid
    assert a.agent_proc.poll() is None
    assert f"using {url_b}" in open(a.agent_log, errors="replace").read()
    # the pods' watch resumed on B from its resourceVersion, without a list
    audit = os.path.join(b.data_dir, "audit.log")
    watched = lambda: [r for r in node_requests(audit) if r[0] == "watch" and r[1] == "pods"]
    w = wait_for(watched, what="the node's pod watch on server B")
    assert "resourceVersion=" in w[0][2] and "allowWatchBookmarks=true" in w[0][2]
    # a change made through B reaches the agent over that watch
    b.kubectl("delete", "pod", "keep", "--wait=false")
    wait_for(lambda: b.kubectl("get", "pod", "keep", check=False).returncode != 0, what="pod deleted by the agent")
    lists = [r for r in node_requests(audit) if r[0] == "list"]
    assert lists == [], lists
