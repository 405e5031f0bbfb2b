"""The scheduler with the real agent (issue: scheduler): taints keep pods
off a node unless tolerated, a high-priority pod preempts a low-priority
one, a gang of 4 that cannot fit stays pending whole and starts whole once
capacity appears, and FailedScheduling explains why."""
import json

from test_agent_cluster import wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)
import pytest  # noqa: E402

pytestmark = pytest.mark.agents

SLOT = "example.com/slot"


def pod(name, slots=0, priority_class=None, tolerate=False, group=None, cmd="sleep 300"):
    spec = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
            "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": "Never",
                            "command": ["sh", "-c", cmd]}]}
    if slots:
        spec["containers"][0]["resources"] = {"limits": {SLOT: str(slots)}}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if tolerate:
        spec["tolerations"] = [{"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    meta = {"name": name}
    if group:
        meta["labels"] = {"scheduling.x-k8s.io/pod-group": group}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def set_slots(c, n):
    patch = {"status": {"capacity": {SLOT: str(n)}, "allocatable": {SLOT: str(n)}}}
    c.kubectl("patch", "node", c.node, "--subresource=status", "--type=merge", "-p", json.dumps(patch))
    wait_for(lambda: c.kjson("get", "node", c.node)["status"]["allocatable"].get(SLOT) == str(n), 30,
             what=f"{n} slots on the node")


def phase(c, name):
    return c.kjson("get", "pod", name)["status"].get("phase")


def sched_condition(c, name):
    for cond in c.kjson("get", "pod", name)["status"].get("conditions", []):
        if cond["type"] == "PodScheduled":
            return cond
    return None


def node_ready(c):
    return wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0 and
                    "Ready" in c.kubectl("get", "node", c.node).stdout, 60, what="node Ready")


def test_taints_keep_pods_off_unless_tolerated(embedded):  # noqa: F811
    c = embedded
    node_ready(c)
    c.kubectl("taint", "node", c.node, "gpu=true:NoSchedule")
    c.kubectl("create", "-f", "-", input=pod("untolerated"))
    c.kubectl("create", "-f", "-", input=pod("tolerated", tolerate=True, cmd="echo ran"))
    wait_for(lambda: phase(c, "tolerated") == "Succeeded", 90, what="tolerating pod to run")
    cond = wait_for(lambda: sched_condition(c, "untolerated"), 30, what="PodScheduled condition")
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable"
    assert cond["message"].startswith("0/1 nodes are available: 1 node(s) had untolerated taint {gpu: true}.")
    events = c.kubectl("events", "--for", "pod/untolerated").stdout
    assert "FailedScheduling" in events and "untolerated taint {gpu: true}" in events
    c.kubectl("taint", "node", c.node, "gpu=true:NoSchedule-")
    wait_for(lambda: phase(c, "untolerated") == "Running", 90, what="pod to run once the taint is gone")


def test_high_priority_preempts_low(embedded):  # noqa: F811
    c = embedded
    node_ready(c)
    set_slots(c, 1)
    for name, value in [("low", 10), ("high", 1000)]:
        c.kubectl("create", "-f", "-", input=json.dumps(
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
             "value": value}))
    c.kubectl("create", "-f", "-", input=pod("victim", slots=1, priority_class="low"))
    wait_for(lambda: phase(c, "victim") == "Running", 90, what="low-priority pod to run")
    c.kubectl("create", "-f", "-", input=pod("preemptor", slots=1, priority_class="high"))
    wait_for(lambda: phase(c, "preemptor") == "Running", 120, what="high-priority pod to run")
    r = c.kubectl("get", "pod", "victim", check=False)
    assert r.returncode != 0 or "Terminating" in r.stdout or "Error" in r.stdout or "Completed" in r.stdout
    assert c.kjson("get", "pod", "preemptor")["spec"]["priority"] == 1000


def test_gang_of_four_waits_whole_and_starts_whole(embedded):  # noqa: F811
    c = embedded
    node_ready(c)
    set_slots(c, 2)
    c.kubectl("create", "-f", "-", input=json.dumps(
        {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "gang"},
         "spec": {"minMember": 4, "scheduleTimeoutSeconds": 60}}))
    for i in range(4):
        c.kubectl("create", "-f", "-", input=pod(f"member-{i}", slots=1, group="gang"))
    wait_for(lambda: all(sched_condition(c, f"member-{i}") for i in range(4)), 60, what="members considered")
    import time
    time.sleep(3)
    for i in range(4):
        p = c.kjson("get", "pod", f"member-{i}")
        assert not p["spec"].get("nodeName"), f"member-{i} bound before the gang fits"
    set_slots(c, 4)
    wait_for(lambda: all(phase(c, f"member-{i}") == "Running" for i in range(4)), 180, what="all 4 members Running")
    pg = c.kjson("get", "podgroup", "gang")
    assert pg["status"].get("phase") in ("Scheduled", "Running")
