"""CRD selectableFields: validated as upstream, served as field selectors on
list and watch (kubectl and the Python client)."""
import json
import threading

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "color": {"type": "string"},
            "size": {"type": "integer"},
            "on": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "sub": {"type": "object", "properties": {"x": {"type": "number"}}}}},
    },
}


def widget_crd(fields, plural="widgets", kind="Widget"):
    doc = crd_doc(plural=plural, kind=kind, short=(), categories=(), status=False, schema=SCHEMA)
    doc["spec"]["versions"][0]["selectableFields"] = [{"jsonPath": f} for f in fields]
    return doc


@pytest.fixture(scope="module")
def widgets(api_cluster):
    apply_doc(api_cluster, widget_crd([".spec.color", ".spec.size", ".spec.on"]))
    wait_served(api_cluster, "widgets")
    for name, color, size, on in (("w1", "red", 1, True), ("w2", "blue", 2, False), ("w3", "red", 3, False)):
        apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": name},
                                "spec": {"color": color, "size": size, "on": on}})
    return api_cluster


def names(c, *args):
    return sorted(c.kubectl("get", "widgets", "-o", "name", *args).stdout.split())


def test_kubectl_field_selector(widgets):
    p = f"widget.{GROUP}/"
    assert names(widgets, "--field-selector", "spec.color=red") == [p + "w1", p + "w3"]
    assert names(widgets, "--field-selector", "spec.color!=red") == [p + "w2"]
    assert names(widgets, "--field-selector", "spec.size=2") == [p + "w2"]
    assert names(widgets, "--field-selector", "spec.on=true") == [p + "w1"]
    assert names(widgets, "--field-selector", "spec.color=red,metadata.name!=w1") == [p + "w3"]
    r = widgets.kubectl("get", "widgets", "--field-selector", "spec.foo=x", check=False)
    assert r.returncode != 0 and "field label not supported: spec.foo" in r.stderr


def test_python_list_and_watch(widgets):
    from kubernetes import client, watch
    from kubernetes.client.rest import ApiException

    api = client.CustomObjectsApi(widgets.api_client())
    lst = api.list_namespaced_custom_object(GROUP, "v1", "default", "widgets", field_selector="spec.color=red")
    assert sorted(x["metadata"]["name"] for x in lst["items"]) == ["w1", "w3"]
    with pytest.raises(ApiException) as ei:
        api.list_namespaced_custom_object(GROUP, "v1", "default", "widgets", field_selector="spec.tags=a")
    assert ei.value.status == 400
    assert json.loads(ei.value.body)["message"] == "field label not supported: spec.tags"

    seen = []
    w = watch.Watch()

    def later():
        apply_doc(widgets, {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "w4"},
                            "spec": {"color": "green"}})
        apply_doc(widgets, {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "w5"},
                            "spec": {"color": "blue"}})

    t = None
    for ev in w.stream(api.list_namespaced_custom_object, GROUP, "v1", "default", "widgets",
                       field_selector="spec.color=blue", timeout_seconds=10):
        seen.append((ev["type"], ev["object"]["metadata"]["name"]))
        if t is None:
            t = threading.Thread(target=later)
            t.start()
        if ("ADDED", "w5") in seen:
            w.stop()
    t.join()
    assert seen == [("ADDED", "w2"), ("ADDED", "w5")]


def test_selectable_fields_validation(api_cluster):
    def err(fields):
        r = api_cluster.kubectl("apply", "-f", "-", check=False,
                                input=json.dumps(widget_crd(fields, "badwidgets", "BadWidget")))
        assert r.returncode != 0
        return r.stderr

    f = "spec.versions[0].selectableFields"
    e = err([".spec.tags"])
    assert (f'{f}[0].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or '
            'integer. Enum string fields and strings with formats are allowed.') in e
    e = err([".spec.sub.x"])
    assert "must point to a field of type string, boolean or integer" in e
    e = err([".spec.nope"])
    assert f'{f}[0].jsonPath: Invalid value: ".spec.nope": is an invalid path:' in e
    e = err(["spec.color"])
    assert f'{f}[0].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec' in e
    e = err([".spec.tags[0]"])
    assert f'{f}[0].jsonPath: Invalid value: ".spec.tags[0]": is an invalid path: array notation is not allowed' in e
    e = err([".metadata.name"])
    assert f'{f}[0].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field' in e
    doc = widget_crd([".metadata.name"], "badwidgets", "BadWidget")
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"] = {
        "type": "object", "properties": {"name": {"type": "string"}}}
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(doc))
    assert f'{f}[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata' in r.stderr
    e = err([".spec.color", ".spec.color"])
    assert f'{f}[1].jsonPath: Duplicate value: ".spec.color"' in e
    e = err([""])
    assert f"{f}[0].jsonPath: Required value" in e
    many = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(9)}}
    doc = widget_crd([f".spec.f{i}" for i in range(9)], "badwidgets", "BadWidget")
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = many
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(doc))
    assert r.returncode != 0 and f"{f}: Too many: 9: must have at most 8 items" in r.stderr
