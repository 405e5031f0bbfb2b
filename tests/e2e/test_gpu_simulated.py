"""Simulated GPUs end to end: a `skiff agent --simulate-gpus 2` node, the
scheduler placing pods that ask for nvidia.com/gpu, the agent giving each
container its own device (NVIDIA_VISIBLE_DEVICES), releasing it when the
container ends, and keeping allocations across an agent restart.
Needs the agent wired to src/gpu (docs/GPU.md)."""
import json
import os
import re
import subprocess

import pytest

from conftest import SKIFF
from test_agent_cluster import AgentCluster, running_cluster, wait_for

pytestmark = pytest.mark.agents

GPUS = 2


class GPUCluster(AgentCluster):
    gpu_args = ["--simulate-gpus", str(GPUS)]

    def start_agent(self, timeout=30):
        log = open(self.agent_log, "ab")
        self.agent_proc = subprocess.Popen(
            [SKIFF, "agent", "--server", f"https://127.0.0.1:{self.port}",
             "--token", "@" + os.path.join(self.data_dir, "node-token"),
             "--ca-file", os.path.join(self.data_dir, "tls", "ca.crt"),
             "--data-dir", self.agent_dir, "--run-dir", self.run_dir, "--bridge", self.bridge,
             "--pod-cidr", self.pod_cidr, "--node-name", self.node,
             "--backoff-base-ms", str(self.backoff_ms)] + self.gpu_args,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        def ready():
            if self.agent_proc.poll() is not None:
                raise RuntimeError("skiff agent exited: " + self.agent_logs())
            r = self.kubectl("get", "node", self.node, "-o", "json", check=False)
            if r.returncode != 0:
                return False
            conds = json.loads(r.stdout).get("status", {}).get("conditions", [])
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)
        wait_for(ready, timeout, what="node Ready")
        return self


@pytest.fixture(scope="module")
def gpu_cluster():
    with running_cluster("skiff-e2e-gpu-", GPUCluster, node="gpu-node") as c:
        yield c


def gpu_pod(name, command, node=None):
    node_line = f"  nodeName: {node}\n" if node else ""
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{node_line}  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1
    command: {json.dumps(command)}
    resources:
      limits: {{nvidia.com/gpu: 1}}
"""


SHOW = "echo NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES; echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; "


def visible(c, name):
    def get():
        out = c.kubectl("logs", name, check=False).stdout
        m = re.search(r"^NVIDIA_VISIBLE_DEVICES=(\S+)$", out, re.M)
        return m.group(1) if m else None
    return wait_for(get, 30, what=f"NVIDIA_VISIBLE_DEVICES in the log of {name}")


def running(p):
    return p["status"].get("phase") == "Running"


def unschedulable(p):
    conds = {x["type"]: x for x in p["status"].get("conditions", [])}
    ps = conds.get("PodScheduled")
    return ps and ps["status"] == "False" and "Insufficient nvidia.com/gpu" in ps.get("message", "")


def test_node_advertises_simulated_gpus(gpu_cluster):
    c = gpu_cluster
    node = c.kjson("get", "node", c.node)
    assert node["status"]["capacity"]["nvidia.com/gpu"] == str(GPUS)
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == str(GPUS)
    labels = node["metadata"]["labels"]
    assert labels["nvidia.com/gpu.present"] == "true"
    assert labels["nvidia.com/gpu.count"] == str(GPUS)
    assert labels["nvidia.com/gpu.product"] == "skiff-simulated"
    assert labels["nvidia.com/gpu.memory"] == "81920"
    assert labels["skiff.dev/gpu.simulated"] == "true"
    assert labels["nvidia.com/cuda.runtime-version.full"] == "12.4"
    assert labels["skiff.dev/gpu.device-support-version"] == "1"
    assert "nvidia.com/cuda.driver-version.full" not in labels  # no real driver
    out = c.kubectl("describe", "node", c.node).stdout
    assert "nvidia.com/gpu" in out


def test_agent_exclusive_allocation_release_and_restart(gpu_cluster):
    """The agent alone (pods bound with nodeName): distinct devices, refusal
    when none is free, allocations kept across an agent restart, release
    when a pod is deleted or completes."""
    c = gpu_cluster
    n = c.node
    c.apply(gpu_pod("gpu-a", ["sh", "-c", SHOW + "sleep 3600"], node=n))
    c.apply(gpu_pod("gpu-b", ["sh", "-c", SHOW + "sleep 3600"], node=n))
    c.wait_pod("gpu-a", running, 90, what="Running")
    c.wait_pod("gpu-b", running, 90, what="Running")
    ua, ub = visible(c, "gpu-a"), visible(c, "gpu-b")
    sims = {f"GPU-sim-{n}-{i}" for i in range(GPUS)}
    assert ua in sims and ub in sims and ua != ub
    assert "CUDA_VISIBLE_DEVICES=0" in c.kubectl("logs", "gpu-a").stdout

    # which devices a container got: the pod annotation, shown by describe
    pa = c.pod("gpu-a")
    assert json.loads(pa["metadata"]["annotations"]["skiff.dev/gpu-devices"]) == {"c": [ua]}
    assert "skiff.dev/gpu-devices" in c.kubectl("describe", "pod", "gpu-a").stdout

    # agent restart: running containers keep their devices, none is handed out twice
    c.stop_agent()
    c.start_agent()
    assert running(c.pod("gpu-a")) and running(c.pod("gpu-b"))
    assert visible(c, "gpu-a") == ua and visible(c, "gpu-b") == ub
    c.apply(gpu_pod("gpu-direct", ["sh", "-c", SHOW + "sleep 3600"], node=n))
    p = c.wait_pod("gpu-direct", lambda p: p["status"].get("phase") == "Failed", 60,
                   what="Failed: no free GPU on the node")
    assert p["status"].get("reason") in ("OutOfnvidia.com/gpu", "UnexpectedAdmissionError"), p["status"]
    assert "nvidia.com/gpu" in p["status"].get("message", "")
    c.kubectl("delete", "pod", "gpu-direct", "--wait=false")

    # deleting a pod ends its container and frees its device
    c.kubectl("delete", "pod", "gpu-a", "--wait=true", timeout=90)
    c.apply(gpu_pod("gpu-c", ["sh", "-c", SHOW + "exit 0"], node=n))
    c.wait_phase("gpu-c", "Succeeded", 90)
    assert visible(c, "gpu-c") == ua

    # completion releases too: gpu-c has ended, so gpu-d gets the same device
    c.apply(gpu_pod("gpu-d", ["sh", "-c", SHOW + "exit 0"], node=n))
    c.wait_phase("gpu-d", "Succeeded", 90)
    assert visible(c, "gpu-d") == ua
    c.delete_all_pods()


def test_scheduler_places_gpu_pods(gpu_cluster):
    """Through the scheduler: 2 GPUs, three pods asking 1 each: two Running
    on different devices, one Pending with Insufficient nvidia.com/gpu until
    one of the others completes. Needs a scheduler in `skiff server`."""
    c = gpu_cluster
    c.apply(gpu_pod("sched-a", ["sh", "-c", SHOW + "sleep 3600"]))
    c.apply(gpu_pod("sched-b", ["sh", "-c", SHOW + "sleep 5; exit 0"]))
    c.wait_pod("sched-a", running, 90, what="Running (scheduled)")
    c.wait_pod("sched-b", lambda p: p["status"].get("phase") in ("Running", "Succeeded"), 90,
               what="Running (scheduled)")
    ua, ub = visible(c, "sched-a"), visible(c, "sched-b")
    assert ua != ub
    c.apply(gpu_pod("sched-c", ["sh", "-c", SHOW + "exit 0"]))
    if c.pod("sched-b")["status"].get("phase") != "Succeeded":
        p = c.wait_pod("sched-c", unschedulable, 60, what="Unschedulable: Insufficient nvidia.com/gpu")
        assert p["status"]["phase"] == "Pending"
        assert "Insufficient nvidia.com/gpu" in c.kubectl("describe", "pod", "sched-c").stdout
    # sched-b completes, its device goes to sched-c
    c.wait_phase("sched-b", "Succeeded", 60)
    c.wait_phase("sched-c", "Succeeded", 90)
    assert visible(c, "sched-c") == ub
    c.delete_all_pods()


def test_fractional_request_rejected(gpu_cluster):
    c = gpu_cluster
    r = c.kubectl("apply", "-f", "-", check=False, input=gpu_pod("gpu-frac", ["true"]).replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 500m"))
    assert r.returncode != 0
    assert "nvidia.com/gpu" in r.stderr


def test_health_flip_via_inject_hook(gpu_cluster):
    """A critical XID (injected through DATA/gpu/inject-xid) makes a device
    unhealthy: allocatable drops and the node gets a Warning event saying
    why; recovery brings it back."""
    c = gpu_cluster
    hook = os.path.join(c.agent_dir, "gpu", "inject-xid")

    def alloc():
        return c.kjson("get", "node", c.node)["status"]["allocatable"].get("nvidia.com/gpu")

    def events():
        return c.kubectl("get", "events", "-A", "--field-selector", f"involvedObject.name={c.node}").stdout

    with open(hook, "w") as f:
        f.write("1 13\n")      # application XID: ignored
    wait_for(lambda: not os.path.exists(hook), 10, what="hook consumed")
    with open(hook, "w") as f:
        f.write(f"GPU-sim-{c.node}-1 79\n")
    wait_for(lambda: alloc() == str(GPUS - 1), 30, what="allocatable drops")
    ev = wait_for(lambda: "GPUUnhealthy" in events() and events(), 30, what="GPUUnhealthy event")
    assert "XID 79" in ev and f"GPU-sim-{c.node}-1" in ev
    assert c.kjson("get", "node", c.node)["status"]["capacity"]["nvidia.com/gpu"] == str(GPUS)
    with open(hook, "w") as f:
        f.write("1 ok\n")
    wait_for(lambda: alloc() == str(GPUS), 30, what="allocatable back")
    wait_for(lambda: "GPUHealthy" in events(), 30, what="GPUHealthy event")


@pytest.fixture(scope="module")
def sliced_cluster():
    def setup(c):
        c.gpu_args = ["--simulate-gpus", "1", "--gpu-replicas", "2"]
    with running_cluster("skiff-e2e-gputs-", GPUCluster, setup, node="gpu-sliced") as c:
        yield c


def test_time_slicing_shares_one_device(sliced_cluster):
    """--gpu-replicas 2: one device advertised as 2, two pods share it, a
    third is refused."""
    c = sliced_cluster
    node = c.kjson("get", "node", c.node)
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "2"
    labels = node["metadata"]["labels"]
    assert labels["nvidia.com/gpu.replicas"] == "2"
    assert labels["nvidia.com/gpu.count"] == "1"
    assert labels["nvidia.com/gpu.product"] == "skiff-simulated-SHARED"
    assert labels["nvidia.com/gpu.sharing-strategy"] == "time-slicing"
    for name in ("ts-a", "ts-b"):
        c.apply(gpu_pod(name, ["sh", "-c", SHOW + "sleep 3600"], node=c.node))
    for name in ("ts-a", "ts-b"):
        c.wait_pod(name, running, 90, what="Running")
    assert visible(c, "ts-a") == visible(c, "ts-b") == f"GPU-sim-{c.node}-0"
    c.apply(gpu_pod("ts-c", ["sh", "-c", SHOW + "sleep 3600"], node=c.node))
    c.wait_pod("ts-c", lambda p: p["status"].get("phase") == "Failed", 60, what="Failed: no free replica")
    c.delete_all_pods()
