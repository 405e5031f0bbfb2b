"""Server-side apply of custom objects follows the CRD schema's list and map
types (x-kubernetes-list-type, x-kubernetes-list-map-keys,
x-kubernetes-map-type), as structured-merge-diff does upstream."""
import json

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "items": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "required": ["name"], "properties": {
                          "name": {"type": "string"}, "value": {"type": "string"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}},
            "box": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "required": ["port", "protocol"], "properties": {
                          "port": {"type": "integer"}, "protocol": {"type": "string"},
                          "name": {"type": "string"}}}},
        }},
    },
}


@pytest.fixture(scope="module")
def widgets(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="widgets", kind="Widget", short=(), categories=(), schema=SCHEMA))
    api_cluster.kubectl("wait", "--for=condition=Established", f"crd/widgets.{GROUP}", "--timeout=10s")
    wait_served(api_cluster, "widgets")
    return api_cluster


def obj(name, spec):
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def managed(c, name):
    got = c.kjson("get", "widget", name, "--show-managed-fields")
    return got, {m["manager"]: m["fieldsV1"] for m in got["metadata"]["managedFields"]}


def ssa(c, doc, manager, *extra, check=True):
    return c.kubectl("apply", "--server-side", f"--field-manager={manager}", *extra, "-f", "-",
                     input=json.dumps(doc), check=check)


def test_map_list_items_kept_and_owned_per_key(widgets):
    ssa(widgets, obj("w1", {"items": [{"name": "a", "value": "1"}]}), "alice")
    ssa(widgets, obj("w1", {"items": [{"name": "b", "value": "2"}]}), "bob")
    got, mf = managed(widgets, "w1")
    assert got["spec"]["items"] == [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]
    assert mf["alice"]["f:spec"]["f:items"] == {'k:{"name":"a"}': {".": {}, "f:name": {}, "f:value": {}}}
    assert mf["bob"]["f:spec"]["f:items"] == {'k:{"name":"b"}': {".": {}, "f:name": {}, "f:value": {}}}
    # alice drops her item: bob's stays
    ssa(widgets, obj("w1", {"tags": ["x"]}), "alice")
    got, mf = managed(widgets, "w1")
    assert got["spec"]["items"] == [{"name": "b", "value": "2"}]
    assert "f:items" not in mf["alice"]["f:spec"]


def test_map_list_conflict_per_field(widgets):
    ssa(widgets, obj("w2", {"items": [{"name": "a", "value": "1"}]}), "alice")
    r = ssa(widgets, obj("w2", {"items": [{"name": "a", "value": "9"}]}), "bob", check=False)
    assert r.returncode != 0
    assert 'conflict with "alice": .spec.items[name="a"].value' in r.stderr
    # the same value is shared, not a conflict
    ssa(widgets, obj("w2", {"items": [{"name": "a", "value": "1"}]}), "carol")
    ssa(widgets, obj("w2", {"items": [{"name": "a", "value": "9"}]}), "bob", "--force-conflicts")
    got, mf = managed(widgets, "w2")
    assert got["spec"]["items"] == [{"name": "a", "value": "9"}]
    assert "f:value" not in mf["alice"]["f:spec"]["f:items"]['k:{"name":"a"}']
    assert "f:value" in mf["bob"]["f:spec"]["f:items"]['k:{"name":"a"}']


def test_set_list_merges(widgets):
    ssa(widgets, obj("w3", {"tags": ["a", "b"]}), "alice")
    ssa(widgets, obj("w3", {"tags": ["c"]}), "bob")
    got, mf = managed(widgets, "w3")
    assert got["spec"]["tags"] == ["a", "b", "c"]
    assert mf["alice"]["f:spec"]["f:tags"] == {'v:"a"': {}, 'v:"b"': {}}
    assert mf["bob"]["f:spec"]["f:tags"] == {'v:"c"': {}}


def test_atomic_list_and_map_replaced_whole(widgets):
    ssa(widgets, obj("w4", {"args": ["a"], "box": {"a": "1"}}), "alice")
    r = ssa(widgets, obj("w4", {"args": ["b"], "box": {"b": "2"}}), "bob", check=False)
    assert r.returncode != 0
    assert 'conflicts with "alice"' in r.stderr and ".spec.args" in r.stderr and ".spec.box" in r.stderr
    ssa(widgets, obj("w4", {"args": ["b"], "box": {"b": "2"}}), "bob", "--force-conflicts")
    got, mf = managed(widgets, "w4")
    assert got["spec"]["args"] == ["b"] and got["spec"]["box"] == {"b": "2"}
    assert mf["bob"]["f:spec"] == {"f:args": {}, "f:box": {}}
    assert "f:spec" not in mf.get("alice", {})


def test_preserve_unknown_fields_deduced(widgets):
    ssa(widgets, obj("w5", {"open": {"x": {"p": 1}, "l": [1]}}), "alice")
    ssa(widgets, obj("w5", {"open": {"x": {"q": 2}}}), "bob")
    got, mf = managed(widgets, "w5")
    assert got["spec"]["open"] == {"x": {"p": 1, "q": 2}, "l": [1]}
    assert mf["alice"]["f:spec"]["f:open"] == {"f:x": {"f:p": {}}, "f:l": {}}
    assert mf["bob"]["f:spec"]["f:open"] == {"f:x": {"f:q": {}}}


def test_map_list_with_two_keys(widgets):
    ssa(widgets, obj("w7", {"ports": [{"port": 53, "protocol": "TCP", "name": "dns-tcp"}]}), "alice")
    ssa(widgets, obj("w7", {"ports": [{"port": 53, "protocol": "UDP", "name": "dns"}]}), "bob")
    got, mf = managed(widgets, "w7")
    assert [p["protocol"] for p in got["spec"]["ports"]] == ["TCP", "UDP"]
    assert list(mf["alice"]["f:spec"]["f:ports"]) == ['k:{"port":53,"protocol":"TCP"}']
    assert list(mf["bob"]["f:spec"]["f:ports"]) == ['k:{"port":53,"protocol":"UDP"}']
    r = ssa(widgets, obj("w7", {"ports": [{"port": 53, "protocol": "TCP", "name": "x"}]}), "bob", check=False)
    assert 'conflict with "alice": .spec.ports[port=53,protocol="TCP"].name' in r.stderr


def test_update_owns_map_list_items(widgets):
    ssa(widgets, obj("w8", {"items": [{"name": "a", "value": "1"}]}), "alice")
    widgets.kubectl("patch", "widget", "w8", "--type=merge", "--field-manager=patcher", "-p",
                    json.dumps({"spec": {"items": [{"name": "a", "value": "1"}, {"name": "p", "value": "2"}]}}))
    got, mf = managed(widgets, "w8")
    assert list(mf["patcher"]["f:spec"]["f:items"]) == ['k:{"name":"p"}']
    assert list(mf["alice"]["f:spec"]["f:items"]) == ['k:{"name":"a"}']
    r = ssa(widgets, obj("w8", {"items": [{"name": "p", "value": "9"}]}), "alice", check=False)
    assert f'conflict with "patcher" using {GROUP}/v1: .spec.items[name="p"].value' in r.stderr


def test_python_client_apply_patch(widgets):
    from kubernetes import client
    api = client.CustomObjectsApi(widgets.api_client())
    for mgr, item in (("py-a", {"name": "a", "value": "1"}), ("py-b", {"name": "b", "value": "2"})):
        api.api_client.call_api(
            f"/apis/{GROUP}/v1/namespaces/default/widgets/w6", "PATCH",
            query_params=[("fieldManager", mgr)], auth_settings=["BearerToken"],
            header_params={"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"},
            body=json.dumps(obj("w6", {"items": [item]})), response_type="object", _return_http_data_only=True)
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "widgets", "w6")
    assert got["spec"]["items"] == [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]
    mf = {m["manager"]: m["fieldsV1"] for m in got["metadata"]["managedFields"]}
    assert list(mf["py-a"]["f:spec"]["f:items"]) == ['k:{"name":"a"}']
    assert list(mf["py-b"]["f:spec"]["f:items"]) == ['k:{"name":"b"}']
    assert all(m["operation"] == "Apply" for m in got["metadata"]["managedFields"])
