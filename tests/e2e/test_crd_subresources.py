"""The scale subresource of custom objects (kubectl scale) and
additionalPrinterColumns in server-side Tables (kubectl get, -o wide)."""
import json

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

COLUMNS = [
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "Colour", "type": "string", "jsonPath": ".spec.colour", "priority": 1},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "colour": {"type": "string"}}},
        "status": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "selector": {"type": "string"},
            "conditions": {"type": "array", "items": {"type": "object", "properties": {
                "type": {"type": "string"}, "status": {"type": "string"}}}}}},
    },
}


@pytest.fixture(scope="module")
def pools(api_cluster):
    doc = crd_doc(plural="pools", kind="Pool", short=("pl",), categories=(), scale=True, columns=COLUMNS,
                  schema=SCHEMA)
    doc["spec"]["versions"][0]["subresources"]["scale"]["labelSelectorPath"] = ".status.selector"
    apply_doc(api_cluster, doc)
    wait_served(api_cluster, "pools")
    return api_cluster


def test_discovery_has_scale(pools):
    rl = json.loads(pools.kubectl("get", "--raw", f"/apis/{GROUP}/v1").stdout)
    res = {x["name"]: x for x in rl["resources"]}
    assert res["pools/scale"]["kind"] == "Scale" and res["pools/scale"]["group"] == "autoscaling"


def test_kubectl_scale(pools):
    apply_doc(pools, {"apiVersion": f"{GROUP}/v1", "kind": "Pool", "metadata": {"name": "p1"},
                      "spec": {"replicas": 1, "colour": "green"}})
    from kubernetes import client
    api = client.CustomObjectsApi(pools.api_client())
    api.patch_namespaced_custom_object_status(GROUP, "v1", "default", "pools", "p1",
                                              {"status": {"replicas": 1, "selector": "app=p1"}})
    pools.kubectl("scale", "pool", "p1", "--replicas=4")
    got = pools.kjson("get", "pool", "p1")
    assert got["spec"]["replicas"] == 4 and got["metadata"]["generation"] == 2
    sc = json.loads(pools.kubectl("get", "--raw", f"/apis/{GROUP}/v1/namespaces/default/pools/p1/scale").stdout)
    assert sc["kind"] == "Scale" and sc["apiVersion"] == "autoscaling/v1"
    assert sc["spec"] == {"replicas": 4}
    assert sc["status"] == {"replicas": 1, "selector": "app=p1"}
    sc = api.get_namespaced_custom_object_scale(GROUP, "v1", "default", "pools", "p1")
    assert sc["spec"]["replicas"] == 4
    r = pools.kubectl("scale", "pool", "p1", "--replicas=-1", check=False)
    assert r.returncode != 0


def test_printer_columns(pools):
    apply_doc(pools, {"apiVersion": f"{GROUP}/v1", "kind": "Pool", "metadata": {"name": "p2"},
                      "spec": {"replicas": 3, "colour": "blue"}})
    from kubernetes import client
    api = client.CustomObjectsApi(pools.api_client())
    api.patch_namespaced_custom_object_status(GROUP, "v1", "default", "pools", "p2", {"status": {"conditions": [
        {"type": "Progressing", "status": "False"}, {"type": "Ready", "status": "True"}]}})
    out = pools.kubectl("get", "pools", "p2").stdout.splitlines()
    assert out[0].split() == ["NAME", "REPLICAS", "READY", "AGE"]
    assert out[1].split()[:3] == ["p2", "3", "True"]
    out = pools.kubectl("get", "pools", "p2", "-o", "wide").stdout.splitlines()
    assert out[0].split() == ["NAME", "REPLICAS", "READY", "COLOUR", "AGE"]
    assert out[1].split()[:4] == ["p2", "3", "True", "blue"]
    t = json.loads(pools.kubectl("get", "--raw",
                                 f"/apis/{GROUP}/v1/namespaces/default/pools?fieldSelector=metadata.name%3Dp2",
                                 ).stdout)
    assert t["kind"] == "PoolList"


def test_default_age_column(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="plains", kind="Plain", short=(), categories=()))
    wait_served(api_cluster, "plains")
    apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "Plain", "metadata": {"name": "x"}})
    out = api_cluster.kubectl("get", "plains").stdout.splitlines()
    assert out[0].split() == ["NAME", "AGE"]
    assert out[1].split()[0] == "x"


def test_two_served_versions(api_cluster):
    doc = crd_doc(plural="duals", kind="Dual", short=(), categories=())
    v1 = doc["spec"]["versions"][0]
    doc["spec"]["versions"] = [dict(v1, name="v1beta1", storage=False), v1]
    apply_doc(api_cluster, doc)
    wait_served(api_cluster, "duals", version="v1beta1")
    wait_served(api_cluster, "duals", version="v1")
    groups = json.loads(api_cluster.kubectl("get", "--raw", "/apis").stdout)["groups"]
    g = [x for x in groups if x["name"] == GROUP][0]
    assert g["preferredVersion"]["version"] == "v1"
    assert [v["version"] for v in g["versions"]] == ["v1", "v1beta1"]
    from kubernetes import client
    api = client.CustomObjectsApi(api_cluster.api_client())
    api.create_namespaced_custom_object(GROUP, "v1beta1", "default", "duals", {
        "apiVersion": f"{GROUP}/v1beta1", "kind": "Dual", "metadata": {"name": "d"}, "spec": {"size": 1}})
    api.patch_namespaced_custom_object(GROUP, "v1", "default", "duals", "d", {"spec": {"size": 2}})
    got = api.get_namespaced_custom_object(GROUP, "v1beta1", "default", "duals", "d")
    assert got["spec"]["size"] == 2 and got["apiVersion"] == f"{GROUP}/v1beta1"
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "duals", "d")
    assert got["apiVersion"] == f"{GROUP}/v1"
    lst = api.list_namespaced_custom_object(GROUP, "v1beta1", "default", "duals")
    assert lst["apiVersion"] == f"{GROUP}/v1beta1"
    assert [x["apiVersion"] for x in lst["items"]] == [f"{GROUP}/v1beta1"]
    from kubernetes import watch
    w = watch.Watch()
    seen = []
    for ev in w.stream(api.list_namespaced_custom_object, GROUP, "v1beta1", "default", "duals",
                       timeout_seconds=5):
        seen.append(ev["object"]["apiVersion"])
        w.stop()
    assert seen == [f"{GROUP}/v1beta1"]
    assert api_cluster.kjson("get", f"duals.v1beta1.{GROUP}", "d")["apiVersion"] == f"{GROUP}/v1beta1"
    assert api_cluster.kjson("get", "crd", f"duals.{GROUP}")["status"]["storedVersions"] == ["v1"]
