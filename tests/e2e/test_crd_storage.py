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
from test_agent_cluster import wait_for

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
    for bad, msg in (('["v1"]', "must have the storage version v2"), ("[]", "must have at least one stored version")):
        r = c.kubectl("patch", "crd", f"migrants.{GROUP}", "--subresource=status", "--type=merge", "-p",
                      '{"status":{"storedVersions":%s}}' % bad, check=False)
        assert r.returncode != 0 and msg in r.stderr, r.stderr
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
    # a subresource the version does not serve: upstream's bare 404
    raw = c.api_client()
    try:
        raw.call_api(f"/apis/{GROUP}/v2/namespaces/default/migrants/old/scale", "GET",
                     auth_settings=["BearerToken"], _preload_content=False)
        raise AssertionError("scale served")
    except ApiException as e:
        assert e.status == 404
        assert json.loads(e.body) == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "message": "the server could not find the requested resource",
                                      "reason": "NotFound", "details": {}, "code": 404}


def test_concurrent_crd_writes(api_cluster):
    """Threads create and delete CRDs while others race on one name and
    read discovery: one 201 and one 409 per race, discovery always parses
    and never lists a kind twice, and at the end it lists exactly the CRDs that remain."""
    c = api_cluster
    ext = client.ApiextensionsV1Api(c.api_client())
    raw = c.api_client()
    errors = []

    def body(plural):
        d = crd_doc(plural=plural, kind=plural.capitalize()[:-1], short=(), categories=(), status=False,
                    group="race.skiff.test")
        return d

    def churn(t):
        try:
            for i in range(4):
                name = f"churn{t}x{i}s"
                ext.create_custom_resource_definition(body(name))
                if i % 2 == 0:
                    ext.delete_custom_resource_definition(f"{name}.race.skiff.test")
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    outcomes = []

    def racer(plural):
        try:
            ext.create_custom_resource_definition(body(plural))
            outcomes.append((plural, 201))
        except ApiException as e:
            outcomes.append((plural, e.status, json.loads(e.body).get("reason")))

    def reader():
        try:
            for _ in range(10):
                for path in ("/apis", "/apis/race.skiff.test/v1"):
                    r = raw.call_api(path, "GET", auth_settings=["BearerToken"], _preload_content=False)
                    names = [x["name"] for x in json.loads(r[0].data).get("resources", [])]
                    if len(names) != len(set(names)):
                        errors.append(f"a kind listed twice: {names}")
        except ApiException as e:
            if e.status != 404:  # the group has no kind left for a moment
                errors.append(repr(e))
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=churn, args=(t,)) for t in range(8)]
    threads += [threading.Thread(target=racer, args=(f"racer{k}s",)) for k in range(3) for _ in range(2)]
    threads += [threading.Thread(target=reader) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(3):
        got = sorted(o[1:] for o in outcomes if o[0] == f"racer{k}s")
        assert got == [(201,), (409, "AlreadyExists")], got
    crds = {x.metadata.name for x in ext.list_custom_resource_definition().items if "race." in x.metadata.name}
    want = {f"churn{t}x{i}s.race.skiff.test" for t in range(8) for i in (1, 3)}
    want |= {f"racer{k}s.race.skiff.test" for k in range(3)}
    # deleted CRDs go once their (no) objects are cleaned up
    wait_for(lambda: {x.metadata.name for x in ext.list_custom_resource_definition().items
                      if "race." in x.metadata.name} == want, timeout=20, what="the deleted CRDs gone")
    assert crds >= want
    wait_for(lambda: {r["name"] + ".race.skiff.test" for r in json.loads(
        c.kubectl("get", "--raw", "/apis/race.skiff.test/v1").stdout)["resources"]} == want,
        timeout=10, what="discovery to list the remaining CRDs")
