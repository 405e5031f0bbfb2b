"""HorizontalPodAutoscalers: autoscaling/v2 and autoscaling/v1 as one stored
object (conversion both ways, the round-trip annotations, defaults,
validation, the TARGETS column, kubectl autoscale and describe) and the
controller's scale-subresource work that needs no metrics (min/max clamps,
missing targets, custom objects with a scale subresource), against
`skiff server --no-agent` with a 1 s sync period; then one real-container
run: a CPU-burning Deployment scaled up on metrics.k8s.io's figures and back
down once the burn stops (run it under flock /tmp/skiff-containers.lock)."""
import json
import shutil
import tempfile
import time

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

from conftest import Cluster, SLOW
from crd_util import GROUP, apply_doc, crd_doc, wait_served
from test_agent_cluster import have_tools
from test_agent_embedded import embedded_cluster


@pytest.fixture(scope="module")
def hpa_cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent", "--horizontal-pod-autoscaler-sync-period=1s"]).start()
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def wait(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def cond(obj, type_):
    for x in (obj.get("status") or {}).get("conditions") or []:
        if x["type"] == type_:
            return x
    return None


def raw(c, path):
    return json.loads(c.kubectl("get", "--raw", path).stdout)


def make_ns(c, name):
    c.kubectl("create", "namespace", name)
    return name


def deploy(c, ns, name, replicas):
    c.kubectl("-n", ns, "create", "deployment", name, "--image=busybox", f"--replicas={replicas}", "--", "sleep",
              "1d")


V2 = {
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "multi"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 2, "maxReplicas": 6,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                        "averageUtilization": 60}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue",
                                                                           "averageValue": "100Mi"}}},
            {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue",
                                                                            "averageValue": "10"}}},
        ],
        "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30,
                                   "policies": [{"type": "Pods", "value": 1, "periodSeconds": 10}]}},
    },
}


def test_versions_conversion_printer_and_describe(hpa_cluster):
    c = hpa_cluster
    ns = make_ns(c, "hpa-api")
    deploy(c, ns, "web", 1)

    # kubectl autoscale writes autoscaling/v2; v1 shows the CPU target as targetCPUUtilizationPercentage
    c.kubectl("-n", ns, "autoscale", "deploy/web", "--cpu-percent=50", "--min=1", "--max=4")
    out = c.kubectl("-n", ns, "get", "hpa").stdout.splitlines()
    assert out[0].split() == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    # REPLICAS: 0 until the controller's first sync, then the target's 1
    assert out[1].split()[:6] == ["web", "Deployment/web", "cpu:", "<unknown>/50%", "1", "4"]
    assert out[1].split()[6] in ("0", "1")
    v1 = raw(c, f"/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers/web")
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                          "minReplicas": 1, "maxReplicas": 4, "targetCPUUtilizationPercentage": 50}
    assert v1["status"]["desiredReplicas"] == 0 and "currentReplicas" in v1["status"]
    desc = c.kubectl("-n", ns, "describe", "hpa", "web").stdout
    assert "Reference:" in desc and "Deployment/web" in desc
    assert "resource cpu on pods  (as a percentage of request):  <unknown> / 50%" in desc
    assert "Min replicas:" in desc and "Max replicas:" in desc

    # a v2 object with what v1 cannot say: v1 keeps it in annotations, v2 reads it back
    # (the Python client 22 has no typed autoscaling/v2: its dynamic client)
    v2api = DynamicClient(c.api_client()).resources.get(api_version="autoscaling/v2",
                                                        kind="HorizontalPodAutoscaler")
    v1api = client.AutoscalingV1Api(c.api_client())
    v2api.create(body=V2, namespace=ns)
    got = v2api.get(name="multi", namespace=ns)
    assert got.spec.behavior.scaleDown.selectPolicy == "Max"
    assert got.spec.behavior.scaleUp.stabilizationWindowSeconds == 0
    assert [(p.type, p.value, p.periodSeconds) for p in got.spec.behavior.scaleUp.policies] == \
        [("Pods", 4, 15), ("Percent", 100, 15)]
    old = v1api.read_namespaced_horizontal_pod_autoscaler("multi", ns)
    assert old.spec.target_cpu_utilization_percentage == 60
    assert old.api_version == "autoscaling/v1"
    ann = old.metadata.annotations
    other = json.loads(ann["autoscaling.alpha.kubernetes.io/metrics"])
    assert other[0] == {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "100Mi"}}
    assert other[1] == {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "10"}}

    # an update through v1 keeps the other metrics (they travel in the annotations); the behavior is
    # lost, as upstream's v1 conversion has no annotation for it
    for _ in range(20):  # the controller writes the status meanwhile: retry on conflicts
        old.spec.target_cpu_utilization_percentage = 70
        old.spec.max_replicas = 8
        try:
            v1api.replace_namespaced_horizontal_pod_autoscaler("multi", ns, old)
            break
        except ApiException as e:
            assert e.status == 409
            old = v1api.read_namespaced_horizontal_pod_autoscaler("multi", ns)
    got = raw(c, f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/multi")
    assert got["spec"]["maxReplicas"] == 8
    assert [m["type"] for m in got["spec"]["metrics"]] == ["Resource", "Pods", "Resource"]
    assert got["spec"]["metrics"][0]["resource"] == {"name": "memory", "target": {"type": "AverageValue",
                                                                                  "averageValue": "100Mi"}}
    assert got["spec"]["metrics"][2]["resource"]["target"] == {"type": "Utilization", "averageUtilization": 70}
    assert got["spec"]["metrics"][1]["pods"] == {"metric": {"name": "qps"},
                                                 "target": {"type": "AverageValue", "averageValue": "10"}}
    assert "behavior" not in got["spec"]
    assert "annotations" not in got["metadata"] or \
        not any(k.startswith("autoscaling.alpha") for k in got["metadata"]["annotations"])
    row = [ln for ln in c.kubectl("-n", ns, "get", "hpa").stdout.splitlines() if ln.startswith("multi")][0]
    assert "<unknown>/100Mi, <unknown>/10 + 1 more..." in row
    assert row.split()[-4:-2] == ["2", "8"]

    # a v1 object without a target: v2 shows upstream's default of 80% CPU
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "plain"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "maxReplicas": 3}}))
    got = v2api.get(name="plain", namespace=ns)
    assert got.spec.minReplicas == 1
    assert got.spec.metrics[0].resource.name == "cpu"
    assert got.spec.metrics[0].resource.target.averageUtilization == 80
    names = [h.metadata.name for h in v1api.list_namespaced_horizontal_pod_autoscaler(ns).items]
    assert names == ["multi", "plain", "web"]
    lst = raw(c, "/apis/autoscaling/v1/horizontalpodautoscalers")
    assert lst["kind"] == "HorizontalPodAutoscalerList" and all(
        i["apiVersion"] == "autoscaling/v1" for i in lst["items"])
    assert any(r["name"] == "horizontalpodautoscalers" and r["shortNames"] == ["hpa"]
               for r in raw(c, "/apis/autoscaling/v1")["resources"])
    assert raw(c, "/apis")["groups"][[g["name"] for g in raw(c, "/apis")["groups"]].index("autoscaling")][
        "preferredVersion"]["version"] == "v2"
    c.kubectl("-n", ns, "delete", "hpa", "multi", "plain")


def test_validation(hpa_cluster):
    c = hpa_cluster
    ns = make_ns(c, "hpa-invalid")
    bad = {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "bad"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": ""}, "minReplicas": 0, "maxReplicas": 0,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                     "type": "Utilization", "averageUtilization": 0}}}, {"type": "Foo"}],
                 "behavior": {"scaleDown": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Bogus",
                                            "policies": [{"type": "Pods", "value": 0, "periodSeconds": 2000}]}}},
    }
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    for line in [
        'The HorizontalPodAutoscaler "bad" is invalid',
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.scaleTargetRef.name: Required value",
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
        'spec.metrics[1].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", '
        '"Object", "Pods", "Resource"',
        "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal "
        "to 3600",
        'spec.behavior.scaleDown.selectPolicy: Unsupported value: "Bogus"',
        "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to "
        "1800",
    ]:
        assert line in r.stderr, (line, r.stderr)

    # the OpenAPI schema: strict field validation and kubectl explain
    typo = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "typo"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"}, "maxReplicas": 2, "maxReplica": 3}}
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(typo), check=False)
    assert r.returncode != 0 and 'unknown field "spec.maxReplica"' in r.stderr, r.stderr
    out = c.kubectl("explain", "hpa.spec.behavior.scaleUp.selectPolicy").stdout
    assert "VERSION:    v2" in out and "selectPolicy <string>" in out

    # through v1: validated as the v2 object it converts to; status refused below zero
    v1api = client.AutoscalingV1Api(c.api_client())
    body = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "v1bad"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"}, "minReplicas": 3, "maxReplicas": 2,
                     "targetCPUUtilizationPercentage": -5}}
    with pytest.raises(ApiException) as e:
        v1api.create_namespaced_horizontal_pod_autoscaler(ns, body)
    assert e.value.status == 422
    st = json.loads(e.value.body)
    assert st["reason"] == "Invalid" and st["details"]["kind"] == "HorizontalPodAutoscaler"
    assert st["details"]["group"] == "autoscaling"
    fields = {x["field"] for x in st["details"]["causes"]}
    assert fields == {"spec.maxReplicas", "spec.metrics[0].resource.target.averageUtilization"}
    body["spec"].update(minReplicas=1, targetCPUUtilizationPercentage=50)
    v1api.create_namespaced_horizontal_pod_autoscaler(ns, body)
    r = c.kubectl("-n", ns, "patch", "hpa", "v1bad", "--subresource=status", "--type=merge",
                  "-p", '{"status":{"desiredReplicas":-1}}', check=False)
    assert r.returncode != 0 and "status.desiredReplicas: Invalid value: -1" in r.stderr


def test_controller_clamps_through_scale_subresources(hpa_cluster):
    c = hpa_cluster
    ns = make_ns(c, "hpa-ctrl")
    deploy(c, ns, "low", 1)
    deploy(c, ns, "high", 6)
    c.kubectl("-n", ns, "autoscale", "deploy/low", "--cpu-percent=50", "--min=2", "--max=5")
    c.kubectl("-n", ns, "autoscale", "deploy/high", "--cpu-percent=50", "--min=1", "--max=3")
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "missing"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "missing"},
                 "maxReplicas": 3}}))

    wait(lambda: c.kjson("-n", ns, "get", "deploy", "low")["spec"]["replicas"] == 2, what="low scaled to 2")
    wait(lambda: c.kjson("-n", ns, "get", "deploy", "high")["spec"]["replicas"] == 3, what="high scaled to 3")
    low = wait(lambda: (lambda h: h if cond(h, "ScalingActive") else None)(
        c.kjson("-n", ns, "get", "hpa", "low")), what="ScalingActive on low")
    assert cond(low, "AbleToScale")["status"] == "True"
    # no metrics reach the controller here: the HPA says why it cannot compute a count
    sa = cond(low, "ScalingActive")
    assert sa["status"] == "False" and sa["reason"] == "FailedGetResourceMetric"
    assert sa["message"].startswith("the HPA was unable to compute the replica count: failed to get cpu "
                                    "utilization: unable to get metrics for resource cpu")
    assert low["status"]["currentReplicas"] >= 1 and "lastScaleTime" in low["status"]
    ev = wait(lambda: [e for e in c.kjson("-n", ns, "get", "events")["items"]
                       if e["reason"] == "SuccessfulRescale"], what="rescale events")
    msgs = {(e["involvedObject"]["name"], e["message"]) for e in ev}
    assert ("low", "New size: 2; reason: Current number of replicas below Spec.MinReplicas") in msgs
    assert ("high", "New size: 3; reason: Current number of replicas above Spec.MaxReplicas") in msgs
    assert all(e["source"]["component"] == "horizontal-pod-autoscaler" for e in ev)

    missing = wait(lambda: (lambda h: h if cond(h, "AbleToScale") else None)(
        c.kjson("-n", ns, "get", "hpa", "missing")), what="AbleToScale on missing")
    ab = cond(missing, "AbleToScale")
    assert ab["status"] == "False" and ab["reason"] == "FailedGetScale"
    assert ab["message"].startswith("the HPA controller was unable to get the target's current scale: ")
    desc = c.kubectl("-n", ns, "describe", "hpa", "missing").stdout
    assert "FailedGetScale" in desc

    # any kind with a scale subresource: a custom object
    doc = crd_doc(plural="pools", kind="Pool", short=(), categories=(), scale=True)
    doc["spec"]["versions"][0]["subresources"]["scale"]["labelSelectorPath"] = ".status.selector"
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["selector"] = {
        "type": "string"}
    apply_doc(c, doc)
    wait_served(c, "pools")
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps({
        "apiVersion": f"{GROUP}/v1", "kind": "Pool", "metadata": {"name": "p"}, "spec": {"replicas": 1}}))
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "pool"},
        "spec": {"scaleTargetRef": {"apiVersion": f"{GROUP}/v1", "kind": "Pool", "name": "p"},
                 "minReplicas": 3, "maxReplicas": 4}}))
    wait(lambda: c.kjson("-n", ns, "get", f"pools.{GROUP}", "p")["spec"]["replicas"] == 3,
         what="the pool scaled to 3")
    h = c.kjson("-n", ns, "get", "hpa", "pool")
    assert h["status"]["desiredReplicas"] == 3
    assert any(e["involvedObject"]["name"] == "pool" and e["reason"] == "SuccessfulRescale" and
               e["message"] == "New size: 3; reason: Current number of replicas below Spec.MinReplicas"
               for e in c.kjson("-n", ns, "get", "events")["items"])

    # a target at zero replicas is left alone
    c.kubectl("-n", ns, "scale", "deploy/low", "--replicas=0")
    zero = wait(lambda: (lambda h: h if cond(h, "ScalingActive")["reason"] == "ScalingDisabled" else None)(
        c.kjson("-n", ns, "get", "hpa", "low")), what="ScalingDisabled")
    assert cond(zero, "ScalingActive")["message"] == \
        "scaling is disabled since the replica count of the target is zero"
    assert c.kjson("-n", ns, "get", "deploy", "low")["spec"]["replicas"] == 0


@pytest.fixture(scope="module")
def burn_cluster():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-e2e-hpa-", "hpa", ["--metric-resolution", "1s",
                                                     "--horizontal-pod-autoscaler-sync-period=1s",
                                                     "--horizontal-pod-autoscaler-cpu-initialization-period=20s",
                                                     "--horizontal-pod-autoscaler-initial-readiness-delay=5s"]) as c:
        wait(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0, what="node")
        yield c


BURN = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: burn}
spec:
  replicas: 1
  selector: {matchLabels: {app: burn}}
  template:
    metadata: {labels: {app: burn}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: burn
        image: busybox:1
        # burns a CPU for 25 s after it starts, then idles
        command: ["sh", "-c", "end=$(($(date +%s)+25)); while [ $(date +%s) -lt $end ]; do :; done; exec sleep 3600"]
        resources: {requests: {cpu: 100m}, limits: {cpu: 300m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: burn}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: burn}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      policies: [{type: Pods, value: 2, periodSeconds: 1}]
    scaleDown:
      stabilizationWindowSeconds: 5
      policies: [{type: Percent, value: 100, periodSeconds: 1}]
"""


@pytest.mark.agents
def test_cpu_burn_scales_up_then_down(burn_cluster):
    c = burn_cluster
    c.kubectl("apply", "-f", "-", input=BURN)
    up = wait(lambda: (lambda r: r if r > 1 else None)(c.kjson("get", "deploy", "burn")["spec"]["replicas"]),
              timeout=60, what="a scale-up")
    assert 1 < up <= 3
    h = c.kjson("get", "hpa", "burn")
    cur = h["status"]["currentMetrics"][0]["resource"]
    assert cur["name"] == "cpu" and cur["current"]["averageUtilization"] > 50
    rows = c.kubectl("get", "hpa", "burn").stdout.splitlines()
    assert rows[1].split()[2] == "cpu:" and rows[1].split()[3].endswith("/50%")
    ev = [e for e in c.kjson("get", "events")["items"] if e["reason"] == "SuccessfulRescale"]
    assert any(e["message"].endswith("reason: cpu resource utilization (percentage of request) above target")
               for e in ev), [e["message"] for e in ev]

    # the burn stops 25 s after each pod starts: back to one replica
    wait(lambda: c.kjson("get", "deploy", "burn")["spec"]["replicas"] == 1, timeout=90, what="the scale-down")
    h = c.kjson("get", "hpa", "burn")
    assert any(e["message"].endswith("reason: All metrics below target")
               for e in c.kjson("get", "events")["items"] if e["reason"] == "SuccessfulRescale")
    assert cond(h, "ScalingActive")["reason"] == "ValidMetricFound"
    assert cond(h, "AbleToScale")["status"] == "True"
    desc = c.kubectl("describe", "hpa", "burn").stdout
    assert "resource cpu on pods  (as a percentage of request):" in desc and "/ 50%" in desc
