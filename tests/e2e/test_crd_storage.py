"""CRD versions over time: a change of storage version keeps both in
status.storedVersions (no automatic migration, as upstream), objects stored
at the old version are served at every served version (conversion None:
apiVersion rewritten), a version still in storedVersions cannot leave
spec.versions; and concurrent CRD writes register each kind once."""
import json
import threading

from kubernetes import client
from kubernetes.client.rest import ApiException

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer"}}}}}


def version(name, storage, served=True):
    return {"name": name, "served": served, "storage": storage, "schema": {"openAPIV3Schema": SCHEMA},
            "subresources": {"status": {}}}


def test_storage_version_change(api_cluster):
    c = api_cluster
    doc = crd_doc(plural="migrants", kind="Migrant", short=(), categories=(), versions=[version("v1", True)])
    apply_doc(c, doc)
    wait_served(c, "migrants")
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Migrant", "metadata": {"name": "old"}, "spec": {"n": 1}})

    doc["spec"]["versions"] = [version("v1", False), version("v2", True)]
    apply_doc(c, doc)
    wait_served(c, "migrants", version="v2")
    crd = c.kjson("get", "crd", f"migrants.{GROUP}")
    assert crd["status"]["storedVersions"] == ["v1", "v2"]
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Migrant", "metadata": {"name": "new"}, "spec": {"n": 2}})

    co = client.CustomObjectsApi(c.api_client())
    for v in ("v1", "v2"):
        for name, n in (("old", 1), ("new", 2)):
            o = co.get_namespaced_custom_object(GROUP, v, "default", "migrants", name)
            assert o["apiVersion"] == f"{GROUP}/{v}" and o["spec"] == {"n": n}
        lst = co.list_namespaced_custom_object(GROUP, v, "default", "migrants")
        assert lst["apiVersion"] == f"{GROUP}/{v}"
        assert {x["apiVersion"] for x in lst["items"]} == {f"{GROUP}/{v}"}
    assert c.kjson("get", f"migrants.v1.{GROUP}", "old")["apiVersion"] == f"{GROUP}/v1"

    # v1 still stored: it cannot leave spec.versions
    doc["spec"]["versions"] = [version("v2", True)]
    r = c.kubectl("apply", "-f", "-", input=json.dumps(doc), check=False)
    assert r.returncode != 0
    assert ('status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions' in r.stderr), r.stderr
    # after a migration (rewrite every object), the user drops v1 from storedVersions
    for name in ("old", "new"):
        o = co.get_namespaced_custom_object(GROUP, "v2", "default", "migrants", name)
        co.replace_namespaced_custom_object(GROUP, "v2", "default", "migrants", name, o)
    c.kubectl("patch", "crd", f"migrants.{GROUP}", "--subresource=status", "--type=merge", "-p",
              '{"status":{"storedVersions":["v2"]}}')
    apply_doc(c, doc)
    crd = c.kjson("get", "crd", f"migrants.{GROUP}")
    assert crd["status"]["storedVersions"] == ["v2"]
    assert [v["name"] for v in crd["spec"]["versions"]] == ["v2"]
    assert co.get_namespaced_custom_object(GROUP, "v2", "default", "migrants", "old")["spec"] == {"n": 1}
    try:
        co.get_namespaced_custom_object(GROUP, "v1", "default", "migrants", "old")
        raise AssertionError("v1 still served")
    except ApiException as e:
        assert e.status == 404
