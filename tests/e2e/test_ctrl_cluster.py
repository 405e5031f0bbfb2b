"""The workload controllers with real containers: a separate `skiff agent`
runs the pods the controllers create (the pod templates name the node, so
no scheduler is needed). Skipped without root or the runtime tools."""
import json
import time

import pytest

from test_agent_cluster import agent_cluster, wait_for  # noqa: F401  (fixture)
from conftest import tmpdir_skiff  # noqa: F401  (fixture)

pytestmark = pytest.mark.agents


def cond(obj, type_):
    for x in obj.get("status", {}).get("conditions", []):
        if x["type"] == type_:
            return x
    return None


def is_ready(p):
    return any(x["type"] == "Ready" and x["status"] == "True" for x in p["status"].get("conditions", []))


MODEL = """
apiVersion: apps/v1
kind: Deployment
metadata: {{name: model}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: model}}}}
  strategy: {{type: RollingUpdate, rollingUpdate: {{maxSurge: 1, maxUnavailable: 1}}}}
  template:
    metadata: {{labels: {{app: model}}}}
    spec:
      nodeName: {node}
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: busybox:1
        command: ["sh", "-c", "sleep 3; touch /tmp/loaded; exec sleep 3600"]
        env: [{{name: VERSION, value: "{version}"}}]
        readinessProbe:
          exec: {{command: ["cat", "/tmp/loaded"]}}
          periodSeconds: 1
"""


def test_slow_model_server_rollout_keeps_capacity(agent_cluster):
    c = agent_cluster
    c.apply(MODEL.format(node=c.node, version="1"))
    c.kubectl("rollout", "status", "deployment/model", "--timeout=90s")
    c.apply(MODEL.format(node=c.node, version="2"))
    deadline = time.time() + 120
    while time.time() < deadline:
        ps = [p for p in c.kjson("get", "pods", "-l", "app=model")["items"]
              if not p["metadata"].get("deletionTimestamp")]
        assert sum(1 for p in ps if is_ready(p)) >= 2, "fewer than replicas - maxUnavailable ready pods"
        st = c.kjson("get", "deploy", "model")["status"]
        if st.get("updatedReplicas") == 3 and st.get("availableReplicas") == 3 and st.get("replicas") == 3:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("rollout did not finish")
    c.kubectl("rollout", "status", "deployment/model", "--timeout=60s")
    c.kubectl("delete", "deployment", "model", "--cascade=foreground", "--timeout=60s")
    wait_for(lambda: not c.kjson("get", "pods", "-l", "app=model")["items"], 60, what="pods gone")


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}}}
spec:
{extra}
  template:
    spec:
      nodeName: {node}
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox:1
        command: ["sh", "-c", {cmd}]
"""


def job(c, name):
    return c.kjson("get", "job", name)


def test_indexed_job_runs_each_index(agent_cluster):
    c = agent_cluster
    c.apply(JOB.format(name="idx", node=c.node, cmd=json.dumps('echo index=$JOB_COMPLETION_INDEX host=$(hostname)'),
                       extra="  completions: 3\n  parallelism: 2\n  completionMode: Indexed"))
    wait_for(lambda: cond(job(c, "idx"), "Complete"), 120, what="Complete")
    j = job(c, "idx")
    assert j["status"]["succeeded"] == 3 and j["status"]["completedIndexes"] == "0-2"
    seen = set()
    for p in c.kjson("get", "pods", "-l", "job-name=idx")["items"]:
        out = c.kubectl("logs", p["metadata"]["name"]).stdout
        idx = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        assert f"index={idx} host=idx-{idx}" in out
        seen.add(idx)
    assert seen == {"0", "1", "2"}
    c.kubectl("delete", "job", "idx", "--cascade=foreground", "--timeout=60s")


def test_pod_failure_policy_exit_code(agent_cluster):
    c = agent_cluster
    c.apply(JOB.format(name="pfp", node=c.node, cmd=json.dumps("exit 42"), extra="""  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}"""))
    wait_for(lambda: cond(job(c, "pfp"), "Failed"), 120, what="Failed")
    f = cond(job(c, "pfp"), "Failed")
    assert f["reason"] == "PodFailurePolicy" and "exit code 42" in f["message"]
    assert len(c.kjson("get", "pods", "-l", "job-name=pfp")["items"]) == 1
    c.kubectl("delete", "job", "pfp", "--cascade=foreground", "--timeout=60s")


def test_backoff_limit_with_real_failures(agent_cluster):
    c = agent_cluster
    c.apply(JOB.format(name="bo", node=c.node, cmd=json.dumps("exit 1"), extra="  backoffLimit: 1"))
    wait_for(lambda: cond(job(c, "bo"), "Failed"), 120, what="Failed")
    j = job(c, "bo")
    assert cond(j, "Failed")["reason"] == "BackoffLimitExceeded"
    assert j["status"]["failed"] == 2
    assert len(c.kjson("get", "pods", "-l", "job-name=bo")["items"]) == 2
    c.kubectl("delete", "job", "bo", "--cascade=foreground", "--timeout=60s")


def test_node_loss_evicts_and_controllers_replace(tmpdir_skiff, monkeypatch):
    from test_agent_cluster import AgentCluster, have_tools
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    monkeypatch.setenv("SKIFF_NODE_MONITOR_GRACE_PERIOD", "4")
    monkeypatch.setenv("SKIFF_NODE_MONITOR_PERIOD", "1")
    monkeypatch.setenv("SKIFF_POD_EVICTION_TIMEOUT", "2")
    c = AgentCluster(tmpdir_skiff, node="lossy-node")
    try:
        c.start()
        c.import_images()
        c.start_agent()
        # the API server adds 300 s tolerations by default (DefaultTolerationSeconds); shorten them
        c.apply(MODEL.format(node=c.node, version="1").replace("replicas: 3", "replicas: 2").replace(
            "      terminationGracePeriodSeconds: 1\n",
            "      terminationGracePeriodSeconds: 1\n      tolerations: [{key: node.kubernetes.io/unreachable, "
            "operator: Exists, effect: NoExecute, tolerationSeconds: 2}]\n"))
        c.kubectl("rollout", "status", "deployment/model", "--timeout=90s")
        before = {p["metadata"]["name"] for p in c.kjson("get", "pods", "-l", "app=model")["items"]}
        c.stop_agent(sig=9)
        n = wait_for(lambda: (lambda n: (cond(n, "Ready") or {}).get("status") == "Unknown" and n)(
            c.kjson("get", "node", c.node)), 30, what="Ready=Unknown")
        assert cond(n, "Ready")["reason"] == "NodeStatusUnknown"
        wait_for(lambda: {(t["key"], t["effect"]) for t in c.kjson("get", "node", c.node)["spec"].get("taints", [])}
                 == {("node.kubernetes.io/unreachable", "NoSchedule"),
                     ("node.kubernetes.io/unreachable", "NoExecute")}, 20, what="taints")

        def evicted():
            ps = {p["metadata"]["name"]: p for p in c.kjson("get", "pods", "-l", "app=model")["items"]}
            return all(ps.get(n, {}).get("metadata", {}).get("deletionTimestamp") and
                       (cond(ps[n], "DisruptionTarget") or {}).get("reason") == "DeletionByTaintManager"
                       for n in before)
        try:
            wait_for(evicted, 30, what="evictions")
        except AssertionError:
            ps = c.kjson("get", "pods", "-l", "app=model")["items"]
            raise AssertionError("no evictions: " + json.dumps(
                [(p["metadata"]["name"], p["metadata"].get("deletionTimestamp"), p["spec"].get("tolerations"),
                  p["status"].get("conditions")) for p in ps]) + "\nnode: " +
                json.dumps(c.kjson("get", "node", c.node)["spec"]) + "\nserver log:\n" + c.log())
        try:
            wait_for(lambda: len({p["metadata"]["name"] for p in c.kjson("get", "pods", "-l", "app=model")["items"]}
                                 - before) == 2, 30, what="replacements")
        except AssertionError:
            ps = c.kjson("get", "pods", "-l", "app=model")["items"]
            raise AssertionError("no replacements: " + json.dumps(
                [(p["metadata"]["name"], p["metadata"].get("deletionTimestamp"), p["spec"].get("nodeName"),
                  p["status"].get("phase")) for p in ps]) + "\nreplicasets: " +
                json.dumps([r["status"] for r in c.kjson("get", "rs", "-l", "app=model")["items"]]) +
                "\nserver log:\n" + c.log())
        c.start_agent()
        wait_for(lambda: not c.kjson("get", "node", c.node)["spec"].get("taints"), 30, what="taints removed")
        c.kubectl("rollout", "status", "deployment/model", "--timeout=90s")
    finally:
        c.cleanup()
