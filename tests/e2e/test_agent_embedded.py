"""The agent embedded in `skiff server` (no --no-agent): the server's own
node is a control-plane node that runs pods, with logs through the API, and
a separate agent with simulated GPUs hands devices to containers."""
import contextlib
import json
import os
import random
import shutil
import subprocess
import tempfile

import pytest

from conftest import Cluster, SKIFF
from test_agent_cluster import AgentCluster, have_tools, images_dir, kill_orphans, wait_for

pytestmark = pytest.mark.agents


def fnv1a(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


@contextlib.contextmanager
def embedded_cluster(prefix, node_prefix, extra=()):
    """A started server with its embedded agent on node <node_prefix>-XXXX (c.node), busybox
    imported; on exit its Deployments and pods go, then the server, the agent's bridge, the
    Service dataplane's table (it stays when the server stops with pods) and the directories."""
    d = tempfile.mkdtemp(prefix=prefix)
    node = "%s-%04x" % (node_prefix, random.randrange(1 << 16))
    agent_dir = os.path.join(d, "agent")
    subprocess.run([SKIFF, "image", "import", "--data-dir", agent_dir,
                    os.path.join(images_dir(), "busybox-oci.tar"), "--name", "busybox"], check=True,
                   capture_output=True)
    c = Cluster(d, ["--node-name", node, *extra])
    c.node = node
    c.bridge_hash = fnv1a(os.path.realpath(agent_dir))
    try:
        c.start()
        yield c
    finally:
        h = c.bridge_hash
        if c.proc and c.proc.poll() is None:
            # Owners first, then pods until none is left: a ReplicaSet not yet
            # collected after its Deployment went can start a pod again, and
            # an agent stopping leaves its containers running.
            c.kubectl("delete", "deploy,rs,sts,ds,job", "--all", "-A", "--grace-period=1", check=False)
            with contextlib.suppress(Exception):
                wait_for(lambda: (c.kubectl("delete", "pods", "--all", "-A", "--grace-period=1", check=False) and
                                  not c.kubectl("get", "pods", "-A", "-o", "name", check=False).stdout.strip()),
                         30, what="every pod gone")
        c.cleanup()
        kill_orphans("/run/skiff-%08x" % h)
        with open("/proc/mounts") as f:
            for m in reversed([line.split()[1] for line in f if line.split()[1].startswith("/run/skiff-%08x/" % h)]):
                subprocess.run(["umount", "-l", m], capture_output=True)
        subprocess.run(["ip", "link", "del", "sk%08x" % h], capture_output=True)
        subprocess.run(["nft", "delete", "table", "ip", "skiff-sk%08x" % h], capture_output=True)
        shutil.rmtree("/run/skiff-%08x" % h, ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def embedded():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-e2e-emb-", "emb") as c:
        yield c


def test_embedded_agent_runs_pods(embedded):
    c = embedded
    node = wait_for(lambda: c.kubectl("get", "node", c.node, "-o", "json", check=False).returncode == 0 and
                    c.kjson("get", "node", c.node), 30, what="node")
    assert "node-role.kubernetes.io/control-plane" in node["metadata"]["labels"]
    c.kubectl("apply", "-f", "-", input=f"""
apiVersion: v1
kind: Pod
metadata: {{name: emb}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - {{name: c, image: "busybox:1", command: ["sh", "-c", "echo embedded-ok"]}}
""")
    wait_for(lambda: c.kjson("get", "pod", "emb")["status"].get("phase") == "Succeeded", 60, what="Succeeded")
    assert c.kubectl("logs", "emb").stdout.strip() == "embedded-ok"


@pytest.fixture
def gpu_cluster():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    d = tempfile.mkdtemp(prefix="skiff-e2e-gpu-")
    c = AgentCluster(d, node="gpu-node")
    try:
        c.start()
        c.import_images()
        c.agent_extra += ["--simulate-gpus", "2"]
        c.start_agent()
        yield c
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def test_simulated_gpus_are_allocated(gpu_cluster):
    c = gpu_cluster
    node = c.kjson("get", "node", c.node)
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "2"
    c.apply(f"""
apiVersion: v1
kind: Pod
metadata: {{name: gpu}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "echo dev=$NVIDIA_VISIBLE_DEVICES"]
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
""")
    p = c.wait_phase("gpu", "Succeeded")
    out = c.kubectl("logs", "gpu").stdout
    assert out.startswith("dev=GPU-")
    ann = p["metadata"].get("annotations", {}).get("skiff.dev/gpu-devices")
    assert ann and json.loads(ann)["c"][0] in out
