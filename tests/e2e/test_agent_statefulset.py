"""A StatefulSet with the real node agent: each pod's claim (from the
claim template) gets a local-path volume from the agent, the containers
write into it, and after a scale to 0 and back every pod finds what its
predecessor of the same ordinal wrote (issue 19); a claim of the default
class, once the class allows expansion, grows on its node's volume. Runs
under flock /tmp/skiff-containers.lock."""
import json

from test_agent_cluster import wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)
import pytest  # noqa: E402

pytestmark = pytest.mark.agents
N = 3
PODS = [f"kv-{i}" for i in range(N)]


def test_statefulset_claims_keep_data_across_scale_to_zero(embedded):  # noqa: F811
    c = embedded
    wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0 and
             "Ready" in c.kubectl("get", "node", c.node).stdout, 60, what="node Ready")
    # each start appends a line and prints how many starts the volume saw
    script = "echo $(hostname) >> /data/boots; echo starts=$(wc -l < /data/boots); sleep 300"
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "kv"},
        "spec": {"replicas": N, "serviceName": "kv", "selector": {"matchLabels": {"app": "kv"}},
                 "template": {"metadata": {"labels": {"app": "kv"}},
                              "spec": {"terminationGracePeriodSeconds": 1,
                                       "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": "Never",
                                                       "command": ["sh", "-c", script],
                                                       "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}},
                 "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                           "spec": {"accessModes": ["ReadWriteOnce"],
                                                    "resources": {"requests": {"storage": "64Mi"}}}}]}}))
    c.kubectl("rollout", "status", "sts/kv", "--timeout=90s", timeout=100)

    def logs_say(want):
        return all(f"starts={want}" in c.kubectl("logs", p, check=False).stdout for p in PODS)

    wait_for(lambda: logs_say(1), 30, what="first starts logged")
    claims = c.kjson("get", "pvc")["items"]
    assert sorted(x["metadata"]["name"] for x in claims) == [f"data-{p}" for p in PODS]
    assert all(x["status"]["phase"] == "Bound" for x in claims)
    # the agent's local-path volume grows once the class allows it
    c.kubectl("patch", "storageclass", "local-path", "-p", '{"allowVolumeExpansion":true}')
    c.kubectl("patch", "pvc", "data-kv-0", "-p", '{"spec":{"resources":{"requests":{"storage":"128Mi"}}}}')
    wait_for(lambda: c.kjson("get", "pvc", "data-kv-0")["status"]["capacity"]["storage"] == "128Mi", 30,
             what="claim grown")
    vol = [x for x in claims if x["metadata"]["name"] == "data-kv-0"][0]["spec"]["volumeName"]
    pv = c.kjson("get", "pv", vol)
    assert pv["spec"]["capacity"]["storage"] == "128Mi"

    c.kubectl("scale", "sts", "kv", "--replicas=0")
    wait_for(lambda: not c.kjson("get", "pods", "-l", "app=kv")["items"], 60, what="pods gone")
    assert len(c.kjson("get", "pvc")["items"]) == N
    c.kubectl("scale", "sts", "kv", f"--replicas={N}")
    c.kubectl("rollout", "status", "sts/kv", "--timeout=90s", timeout=100)
    wait_for(lambda: logs_say(2), 30, what="second starts logged")
    assert c.kubectl("exec", "kv-2", "--", "cat", "/data/boots").stdout.split() == ["kv-2", "kv-2"]
    c.kubectl("delete", "sts", "kv")
    wait_for(lambda: not c.kjson("get", "pods", "-l", "app=kv")["items"], 60, what="pods gone")
