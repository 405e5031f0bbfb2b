"""Resource metrics: the agent's Summary API (/stats/summary), metrics.k8s.io
served by the in-process scraper, and `kubectl top` against it, with the
embedded agent running a CPU-burning and an idle busybox pod."""
import json
import os
import re
import ssl
import time
import urllib.request

import pytest

from test_agent_cluster import have_tools, wait_for
from test_agent_embedded import embedded_cluster

pytestmark = pytest.mark.agents

PODS = """
apiVersion: v1
kind: Pod
metadata: {{name: burner, labels: {{app: burn, tier: metrics}}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: burn
    image: busybox:1
    command: ["sh", "-c", "while :; do :; done"]
    resources: {{limits: {{cpu: 500m, memory: 64Mi}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: idle, labels: {{app: idle, tier: metrics}}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - {{name: sleep, image: "busybox:1", command: ["sleep", "3600"]}}
  - {{name: side, image: "busybox:1", command: ["sleep", "3600"]}}
"""


@pytest.fixture(scope="module")
def cluster():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-e2e-metrics-", "met", ["--metric-resolution", "1s"]) as c:
        wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0, 30, what="node")
        c.kubectl("apply", "-f", "-", input=PODS.format(node=c.node))
        for p in ("burner", "idle"):
            wait_for(lambda: any(x["type"] == "Ready" and x["status"] == "True"
                                 for x in c.kjson("get", "pod", p)["status"].get("conditions", [])), 60,
                     what=f"{p} Ready (every container started)")
        yield c


def table(out):
    """kubectl's columns: a list of row lists, the header first."""
    return [re.split(r"\s{2,}", line.strip()) for line in out.strip().splitlines()]


def millicores(q):
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def kubelet_url(c):
    st = c.kjson("get", "node", c.node)["status"]
    ip = next(a["address"] for a in st["addresses"] if a["type"] == "InternalIP")
    return f"https://{ip}:{st['daemonEndpoints']['kubeletEndpoint']['Port']}/stats/summary"


def summary(c):
    with open(os.path.join(c.data_dir, "token")) as f:
        token = f.read().strip()  # the admin's: reviewed by the API server, allowed nodes/stats
    req = urllib.request.Request(kubelet_url(c), headers={"Authorization": "Bearer " + token})
    ctx = ssl.create_default_context(cafile=os.path.join(c.data_dir, "tls", "ca.crt"))
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        assert r.headers["Content-Type"] == "application/json"
        return json.loads(r.read())


def test_summary_api_reports_node_and_pods(cluster):
    c = cluster
    s = json.loads(c.kubectl("get", "--raw", f"/api/v1/nodes/{c.node}/proxy/stats/summary").stdout)
    assert summary(c)["node"]["nodeName"] == c.node  # the agent itself, with a bearer token
    n = s["node"]
    assert n["nodeName"] == c.node
    assert n["cpu"]["usageCoreNanoSeconds"] > 0 and n["cpu"]["time"].endswith("Z")
    assert 0 < n["memory"]["workingSetBytes"] <= n["memory"]["usageBytes"]
    assert n["memory"]["availableBytes"] > 0 and n["fs"]["capacityBytes"] > n["fs"]["availableBytes"] > 0
    pods = {p["podRef"]["name"]: p for p in s["pods"]}
    assert pods["burner"]["podRef"]["namespace"] == "default"
    assert pods["burner"]["podRef"]["uid"] == c.kjson("get", "pod", "burner")["metadata"]["uid"]
    assert sorted(x["name"] for x in pods["idle"]["containers"]) == ["side", "sleep"]
    burn = pods["burner"]["containers"][0]
    assert burn["name"] == "burn" and burn["cpu"]["usageCoreNanoSeconds"] > 0
    assert burn["memory"]["workingSetBytes"] > 0 and "startTime" in burn
    assert pods["burner"]["cpu"]["usageCoreNanoSeconds"] >= burn["cpu"]["usageCoreNanoSeconds"]
    # kubelet's /metrics/resource (authorized as nodes/metrics on the agent), from the same cgroups
    text = c.kubectl("get", "--raw", f"/api/v1/nodes/{c.node}/proxy/metrics/resource").stdout
    vals, stamps = {}, {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v, *ts = line.split(" ")
            vals[k] = float(v)
            if ts:
                stamps[k] = int(ts[0])
    # each reading carries the time it was taken (ms), as the kubelet's samples do
    now_ms = time.time() * 1000
    for k in ["node_cpu_usage_seconds_total", "node_memory_working_set_bytes",
              'pod_cpu_usage_seconds_total{namespace="default",pod="burner"}']:
        assert abs(stamps[k] - now_ms) < 600_000, (k, stamps.get(k))
    assert "resource_scrape_error" not in stamps
    assert "# TYPE node_cpu_usage_seconds_total counter" in text and vals["node_cpu_usage_seconds_total"] > 0
    assert vals["node_memory_working_set_bytes"] > 0 and vals["resource_scrape_error"] == 0
    ref = '{container="burn",namespace="default",pod="burner"}'
    assert vals["container_cpu_usage_seconds_total" + ref] > 0
    assert vals["container_memory_working_set_bytes" + ref] > 0
    assert vals["container_start_time_seconds" + ref] > 1e9
    assert vals['pod_cpu_usage_seconds_total{namespace="default",pod="burner"}'] > 0
    assert vals['pod_memory_working_set_bytes{namespace="default",pod="burner"}'] > 0
    # without a credential the agent refuses
    req = urllib.request.Request(kubelet_url(c))
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, context=ssl._create_unverified_context(), timeout=10)
    assert e.value.code == 401
    # nodes/proxy is authorized as get on nodes/proxy; a node that does not exist is the node's 404
    c.kubectl("create", "clusterrolebinding", "reader", "--clusterrole=view", "--user=reader")
    r = c.kubectl("get", "--raw", f"/api/v1/nodes/{c.node}/proxy/stats/summary", "--as=reader", check=False)
    assert r.returncode != 0 and 'cannot get resource "nodes/proxy"' in r.stderr
    r = c.kubectl("get", "--raw", "/api/v1/nodes/nope/proxy/stats/summary", check=False)
    assert 'nodes "nope" not found' in r.stderr
    disc = json.loads(c.kubectl("get", "--raw", "/api/v1").stdout)
    assert "nodes/proxy" in [x["name"] for x in disc["resources"]]


def test_kubectl_top(cluster):
    c = cluster

    def both():
        r = c.kubectl("top", "pod", check=False)
        return r.returncode == 0 and "burner" in r.stdout and "idle" in r.stdout and r.stdout

    out = table(wait_for(both, 60, what="kubectl top pod"))
    assert out[0] == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    rows = {r[0]: r for r in out[1:]}
    # the burner runs at its 500m limit (less on a busy machine), the idle pod near 0
    assert 100 <= millicores(rows["burner"][1]) <= 600, rows
    assert millicores(rows["idle"][1]) <= 50, rows
    assert rows["idle"][2].endswith("Mi")

    out = table(c.kubectl("top", "pod", "--containers", "-l", "app=idle").stdout)
    assert out[0] == ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert sorted(r[1] for r in out[1:]) == ["side", "sleep"] and {r[0] for r in out[1:]} == {"idle"}

    out = table(c.kubectl("top", "pod", "-A").stdout)
    assert out[0] == ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert ["default", "burner"] in [r[:2] for r in out[1:]]

    out = table(c.kubectl("top", "pod", "burner").stdout)
    assert [r[0] for r in out] == ["NAME", "burner"]
    r = c.kubectl("top", "pod", "nope", check=False)
    assert r.returncode != 0 and 'pods "nope" not found' in r.stderr

    r = c.kubectl("top", "pod", "-l", "app=none")
    assert "No resources found in default namespace." in r.stderr + r.stdout

    out = table(c.kubectl("top", "node").stdout)
    assert out[0] == ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    assert out[1][0] == c.node and out[1][1].endswith("m") and out[1][2].endswith("%")
    assert out[1][3].endswith("Mi") and out[1][4].endswith("%")


def test_metrics_api_objects(cluster):
    c = cluster
    from kubernetes import client
    api = client.CustomObjectsApi(c.api_client())
    lst = wait_for(lambda: (lambda l: len(l["items"]) == 2 and l)(
        api.list_namespaced_custom_object("metrics.k8s.io", "v1beta1", "default", "pods")), 60, what="metrics")
    assert lst["kind"] == "PodMetricsList" and lst["apiVersion"] == "metrics.k8s.io/v1beta1"
    burner = next(i for i in lst["items"] if i["metadata"]["name"] == "burner")
    assert burner["kind"] == "PodMetrics" and burner["metadata"]["labels"] == {"app": "burn", "tier": "metrics"}
    assert burner["timestamp"].endswith("Z") and burner["window"].endswith("s")
    assert burner["containers"][0]["name"] == "burn" and set(burner["containers"][0]["usage"]) == {"cpu", "memory"}

    sel = api.list_namespaced_custom_object("metrics.k8s.io", "v1beta1", "default", "pods",
                                            label_selector="app=burn")
    assert [i["metadata"]["name"] for i in sel["items"]] == ["burner"]
    sel = api.list_namespaced_custom_object("metrics.k8s.io", "v1beta1", "default", "pods",
                                            field_selector="metadata.name=idle")
    assert [i["metadata"]["name"] for i in sel["items"]] == ["idle"]
    one = api.get_namespaced_custom_object("metrics.k8s.io", "v1beta1", "default", "pods", "idle")
    assert one["metadata"]["namespace"] == "default" and len(one["containers"]) == 2
    assert api.list_namespaced_custom_object("metrics.k8s.io", "v1beta1", "kube-system", "pods")["items"] == []

    nm = api.get_cluster_custom_object("metrics.k8s.io", "v1beta1", "nodes", c.node)
    assert nm["kind"] == "NodeMetrics" and set(nm["usage"]) == {"cpu", "memory"}
    nodes = api.list_cluster_custom_object("metrics.k8s.io", "v1beta1", "nodes")
    assert nodes["kind"] == "NodeMetricsList" and [i["metadata"]["name"] for i in nodes["items"]] == [c.node]

    # a pod that does not exist, metrics of a node that does not exist, writes
    r = c.kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope", check=False)
    assert 'pods "nope" not found' in r.stderr
    r = c.kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes/nope", check=False)
    assert 'nodes "nope" not found' in r.stderr
    r = c.kubectl("delete", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes/" + c.node, check=False)
    assert "MethodNotAllowed" in r.stderr or "not allow" in r.stderr
    r = c.kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=a%20in", check=False)
    assert r.returncode != 0 and "BadRequest" in r.stderr or "unable to parse" in r.stderr

    # discovery, tables, RBAC
    disc = json.loads(c.kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1").stdout)
    res = {x["name"]: x for x in disc["resources"]}
    assert res["pods"]["kind"] == "PodMetrics" and res["pods"]["namespaced"] is True
    assert res["nodes"]["verbs"] == ["get", "list"] and res["nodes"]["namespaced"] is False
    out = table(c.kubectl("get", "podmetrics.metrics.k8s.io").stdout)
    assert out[0] == ["NAME", "CPU", "MEMORY", "WINDOW"] and {r[0] for r in out[1:]} == {"burner", "idle"}
    role = c.kjson("get", "clusterrole", "system:aggregated-metrics-reader")
    for v in ("view", "edit", "admin"):
        assert role["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-" + v] == "true"
    assert role["rules"] == [{"apiGroups": ["metrics.k8s.io"], "resources": ["nodes", "pods"],
                              "verbs": ["get", "list", "watch"]}]
    c.kubectl("create", "rolebinding", "viewer", "--clusterrole=view", "--user=viewer")
    wait_for(lambda: c.kubectl("auth", "can-i", "list", "pods.metrics.k8s.io", "--as=viewer",
                               check=False).stdout.strip() == "yes", 30, what="view aggregates metrics")
    r = c.kubectl("top", "pod", "--as=viewer")
    assert "burner" in r.stdout
    r = c.kubectl("top", "node", "--as=viewer", check=False)
    assert r.returncode != 0 and "forbidden" in r.stderr
