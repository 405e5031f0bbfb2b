"""A DaemonSet with the real node agent: its pod, placed by the node-name
affinity and bound by the scheduler, is admitted and run by the agent
(containers through crun/conmon), and goes with the DaemonSet (issue 19).
Runs under flock /tmp/skiff-agent-e2e.lock."""
import json

from test_agent_cluster import wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)
import pytest  # noqa: E402

pytestmark = pytest.mark.agents


def test_daemonset_pod_runs_on_the_agent(embedded):  # noqa: F811
    c = embedded
    wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0 and
             "Ready" in c.kubectl("get", "node", c.node).stdout, 60, what="node Ready")
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "plugin"},
        "spec": {"selector": {"matchLabels": {"app": "plugin"}},
                 "template": {"metadata": {"labels": {"app": "plugin"}},
                              "spec": {"terminationGracePeriodSeconds": 1,
                                       "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": "Never",
                                                       "command": ["sh", "-c", "sleep 300"]}]}}}}))
    c.kubectl("rollout", "status", "ds/plugin", "--timeout=90s", timeout=100)
    pods = c.kjson("get", "pods", "-l", "app=plugin")["items"]
    assert len(pods) == 1
    p = pods[0]
    assert p["spec"]["nodeName"] == c.node and p["status"]["phase"] == "Running"
    st = c.kjson("get", "ds", "plugin")["status"]
    assert st["desiredNumberScheduled"] == 1 and st["numberAvailable"] == 1 and st["numberReady"] == 1
    c.kubectl("delete", "ds", "plugin")
    wait_for(lambda: not c.kjson("get", "pods", "-l", "app=plugin")["items"], 60, what="daemon pod gone")
