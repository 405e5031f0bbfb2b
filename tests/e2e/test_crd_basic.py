"""CustomResourceDefinitions: the CRD kind itself (validation, status,
discovery) and custom objects driven by kubectl and the Python client."""
import json
import threading
import time

import pytest

from conftest import Cluster

from crd_util import GROUP, apply_doc, crd_doc, wait_served


@pytest.fixture(scope="module")
def gadgets(api_cluster):
    apply_doc(api_cluster, crd_doc())
    api_cluster.kubectl("wait", "--for=condition=Established", f"crd/gadgets.{GROUP}", "--timeout=10s")
    wait_served(api_cluster, "gadgets")
    return api_cluster


def test_crd_status_names_and_stored_versions(gadgets):
    crd = gadgets.kjson("get", "crd", f"gadgets.{GROUP}")
    st = crd["status"]
    conds = {x["type"]: x for x in st["conditions"]}
    assert conds["NamesAccepted"]["status"] == "True"
    assert conds["Established"]["status"] == "True"
    assert st["acceptedNames"]["kind"] == "Gadget"
    assert st["acceptedNames"]["listKind"] == "GadgetList"
    assert st["acceptedNames"]["shortNames"] == ["gd"]
    assert st["storedVersions"] == ["v1"]
    assert crd["spec"]["conversion"] == {"strategy": "None"}


def test_discovery_lists_custom_kind(gadgets):
    groups = json.loads(gadgets.kubectl("get", "--raw", "/apis").stdout)["groups"]
    g = [x for x in groups if x["name"] == GROUP]
    assert g and g[0]["preferredVersion"]["version"] == "v1"
    rl = json.loads(gadgets.kubectl("get", "--raw", f"/apis/{GROUP}/v1").stdout)
    res = {x["name"]: x for x in rl["resources"]}
    assert res["gadgets"]["kind"] == "Gadget"
    assert res["gadgets"]["namespaced"] is True
    assert res["gadgets"]["shortNames"] == ["gd"]
    assert res["gadgets"]["categories"] == ["all"]
    assert "gadgets/status" in res
    out = gadgets.kubectl("api-resources", "--api-group", GROUP).stdout
    assert "gadgets" in out and "gd" in out and "Gadget" in out
    out = gadgets.kubectl("api-resources").stdout
    assert "customresourcedefinitions" in out and "crd,crds" in out


def test_kubectl_crud_and_get_all(gadgets):
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"size": 3}}
    apply_doc(gadgets, obj)
    got = gadgets.kjson("get", "gd", "g1")
    assert got["spec"]["size"] == 3 and got["metadata"]["generation"] == 1
    assert "gadget.stable.skiff.test/g1" in gadgets.kubectl("get", "all").stdout
    assert "g1" in gadgets.kubectl("describe", "gadget", "g1").stdout
    gadgets.kubectl("patch", "gadget", "g1", "--type=merge", "-p", '{"spec":{"size":4}}')
    assert gadgets.kjson("get", "gadget", "g1")["spec"]["size"] == 4
    gadgets.kubectl("patch", "gadget", "g1", "--type=json", "-p",
                    '[{"op":"replace","path":"/spec/size","value":5}]')
    got = gadgets.kjson("get", "gadget", "g1")
    assert got["spec"]["size"] == 5 and got["metadata"]["generation"] == 3
    r = gadgets.kubectl("patch", "gadget", "g1", "-p", '{"spec":{"size":6}}', check=False)
    assert r.returncode != 0
    assert ("the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml") in r.stderr
    gadgets.kubectl("delete", "gadget", "g1")
    assert gadgets.kubectl("get", "gadgets", "-o", "name").stdout.strip() == ""


def test_server_side_apply_managed_fields(gadgets):
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "ssa"},
           "spec": {"size": 1, "colour": "red"}}
    apply_doc(gadgets, obj, "--server-side", "--field-manager=alice")
    got = gadgets.kjson("get", "gadget", "ssa", "--show-managed-fields")
    mf = {m["manager"]: m for m in got["metadata"]["managedFields"]}
    assert mf["alice"]["operation"] == "Apply"
    assert "f:colour" in mf["alice"]["fieldsV1"]["f:spec"]
    obj["spec"]["size"] = 2
    apply_doc(gadgets, obj, "--server-side", "--field-manager=alice")
    assert gadgets.kjson("get", "gadget", "ssa")["spec"]["size"] == 2


def test_ssa_conflict(gadgets):
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "ssa2"}, "spec": {"size": 1}}
    apply_doc(gadgets, obj, "--server-side", "--field-manager=alice")
    r = gadgets.kubectl("apply", "--server-side", "--field-manager=bob", "-f", "-",
                        input=json.dumps(dict(obj, spec={"size": 9})), check=False)
    assert r.returncode != 0 and "conflict" in r.stderr
    apply_doc(gadgets, dict(obj, spec={"size": 9}), "--server-side", "--field-manager=bob", "--force-conflicts")
    assert gadgets.kjson("get", "gadget", "ssa2")["spec"]["size"] == 9


def test_python_custom_objects_api(gadgets):
    from kubernetes import client
    api = client.CustomObjectsApi(gadgets.api_client())
    for i in range(5):
        api.create_namespaced_custom_object(GROUP, "v1", "default", "gadgets", {
            "apiVersion": f"{GROUP}/v1", "kind": "Gadget",
            "metadata": {"name": f"py{i}", "labels": {"tier": "a" if i % 2 else "b"}}, "spec": {"size": i}})
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "py2")
    assert got["spec"]["size"] == 2
    lst = api.list_namespaced_custom_object(GROUP, "v1", "default", "gadgets", label_selector="tier=a")
    assert sorted(x["metadata"]["name"] for x in lst["items"]) == ["py1", "py3"]
    assert lst["kind"] == "GadgetList"
    lst = api.list_namespaced_custom_object(GROUP, "v1", "default", "gadgets", field_selector="metadata.name=py4")
    assert [x["metadata"]["name"] for x in lst["items"]] == ["py4"]
    names, cont = [], None
    while True:
        page = api.list_namespaced_custom_object(GROUP, "v1", "default", "gadgets", limit=2,
                                                 label_selector="tier", _continue=cont)
        assert len(page["items"]) <= 2
        names += [x["metadata"]["name"] for x in page["items"]]
        cont = page["metadata"].get("continue")
        if not cont:
            break
    assert sorted(names) == [f"py{i}" for i in range(5)]
    allns = api.list_cluster_custom_object(GROUP, "v1", "gadgets", label_selector="tier")
    assert len(allns["items"]) == 5
    got["spec"]["size"] = 20
    upd = api.replace_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "py2", got)
    assert upd["spec"]["size"] == 20 and upd["metadata"]["generation"] == 2
    api.patch_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "py2", {"spec": {"colour": "blue"}})
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "py2")
    assert got["spec"] == {"size": 20, "colour": "blue"}
    # deletecollection with a selector (this client's method takes none)
    out = api.api_client.call_api(f"/apis/{GROUP}/v1/namespaces/default/gadgets", "DELETE",
                                  query_params=[("labelSelector", "tier")], response_type="object",
                                  auth_settings=["BearerToken"], _return_http_data_only=True)
    assert out["kind"] == "GadgetList" and len(out["items"]) == 5
    assert api.list_namespaced_custom_object(GROUP, "v1", "default", "gadgets", label_selector="tier")["items"] == []


def test_status_subresource_and_generation(gadgets):
    from kubernetes import client
    api = client.CustomObjectsApi(gadgets.api_client())
    body = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "st"},
            "spec": {"size": 1}, "status": {"phase": "ignored"}}
    created = api.create_namespaced_custom_object(GROUP, "v1", "default", "gadgets", body)
    assert "status" not in created
    api.patch_namespaced_custom_object_status(GROUP, "v1", "default", "gadgets", "st",
                                              {"status": {"phase": "Ready"}, "spec": {"size": 100}})
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "st")
    assert got["status"] == {"phase": "Ready"}
    assert got["spec"]["size"] == 1 and got["metadata"]["generation"] == 1
    api.patch_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "st",
                                       {"spec": {"size": 2}, "status": {"phase": "Hacked"}})
    got = api.get_namespaced_custom_object(GROUP, "v1", "default", "gadgets", "st")
    assert got["status"] == {"phase": "Ready"}
    assert got["spec"]["size"] == 2 and got["metadata"]["generation"] == 2


def test_dynamic_client_and_watch(gadgets):
    from kubernetes import dynamic
    dyn = dynamic.DynamicClient(gadgets.api_client())
    res = dyn.resources.get(api_version=f"{GROUP}/v1", kind="Gadget")
    lst = res.get(namespace="default")
    rv = lst.metadata.resourceVersion
    events = []

    def watcher():
        for ev in res.watch(namespace="default", resource_version=rv, timeout=10):
            events.append((ev["type"], ev["object"].metadata.name))
            if ev["type"] == "DELETED":
                break

    t = threading.Thread(target=watcher)
    t.start()
    time.sleep(0.5)
    res.create(body={"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "dyn"},
                     "spec": {"size": 1}}, namespace="default")
    res.patch(body={"spec": {"size": 2}}, name="dyn", namespace="default",
              content_type="application/merge-patch+json")
    res.delete(name="dyn", namespace="default")
    t.join(15)
    assert ("ADDED", "dyn") in events and ("MODIFIED", "dyn") in events and ("DELETED", "dyn") in events


def test_finalizers_keep_object_until_removed(gadgets):
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Gadget",
           "metadata": {"name": "fin", "finalizers": ["skiff.test/hold"]}, "spec": {"size": 1}}
    apply_doc(gadgets, obj)
    gadgets.kubectl("delete", "gadget", "fin", "--wait=false")
    got = gadgets.kjson("get", "gadget", "fin")
    assert got["metadata"].get("deletionTimestamp")
    gadgets.kubectl("patch", "gadget", "fin", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    r = gadgets.kubectl("get", "gadget", "fin", check=False)
    assert r.returncode != 0 and "NotFound" in r.stderr


def test_cluster_scoped_kind(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="clusterthings", kind="ClusterThing", scope="Cluster", short=(),
                                   categories=()))
    wait_served(api_cluster, "clusterthings")
    apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "ClusterThing", "metadata": {"name": "ct1"},
                            "spec": {"size": 1}})
    got = api_cluster.kjson("get", "clusterthing", "ct1")
    assert "namespace" not in got["metadata"]
    from kubernetes import client
    api = client.CustomObjectsApi(api_cluster.api_client())
    lst = api.list_cluster_custom_object(GROUP, "v1", "clusterthings")
    assert [x["metadata"]["name"] for x in lst["items"]] == ["ct1"]
    r = api_cluster.kubectl("get", "--raw", f"/apis/{GROUP}/v1/clusterthings/ct1")
    assert json.loads(r.stdout)["metadata"]["name"] == "ct1"


def test_crd_validation_errors(api_cluster):
    bad = crd_doc(plural="bads", kind="Bad", schema={"properties": {"spec": {"type": "object"}}})
    r = api_cluster.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    assert ("spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"
            in r.stderr)
    bad = crd_doc(plural="bads", kind="Bad")
    bad["metadata"]["name"] = "wrong.name.test"
    del bad["spec"]["versions"][0]["schema"]
    bad["spec"]["scope"] = "Galaxy"
    r = api_cluster.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    assert 'metadata.name: Invalid value: "wrong.name.test": must be spec.names.plural+"."+spec.group' in r.stderr
    assert 'spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"' in r.stderr
    assert "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required" in r.stderr
    bad = crd_doc(plural="bads", kind="Bad")
    bad["spec"]["versions"].append(dict(bad["spec"]["versions"][0], name="v2"))
    r = api_cluster.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert "must have exactly one version marked as storage version" in r.stderr
    bad = crd_doc(plural="bads", kind="Bad")
    bad["spec"]["names"]["shortNames"] = ["Not_OK"]
    bad["spec"]["conversion"] = {"strategy": "Webhook"}
    r = api_cluster.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert 'spec.names.shortNames[0]: Invalid value: "Not_OK"' in r.stderr
    assert 'spec.conversion.strategy: Unsupported value: "Webhook"' in r.stderr
    assert api_cluster.kubectl("get", "crd", "bads." + GROUP, check=False).returncode != 0


def test_name_conflict_not_accepted(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="dupes", kind="Dupe", short=(), categories=()))
    wait_served(api_cluster, "dupes")
    other = crd_doc(plural="otherdupes", kind="Dupe", short=(), categories=())
    apply_doc(api_cluster, other)
    st = api_cluster.kjson("get", "crd", "otherdupes." + GROUP)["status"]
    conds = {x["type"]: x for x in st["conditions"]}
    assert conds["NamesAccepted"]["status"] == "False"
    assert conds["NamesAccepted"]["reason"] == "NameConflict"
    rl = json.loads(api_cluster.kubectl("get", "--raw", f"/apis/{GROUP}/v1").stdout)
    assert "otherdupes" not in [x["name"] for x in rl["resources"]]


def test_delete_crd_deletes_objects_then_kind(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="doomeds", kind="Doomed", short=(), categories=()))
    wait_served(api_cluster, "doomeds")
    for i in range(3):
        apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "Doomed", "metadata": {"name": f"d{i}"},
                                "spec": {"size": i}})
    apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "Doomed",
                            "metadata": {"name": "held", "finalizers": ["skiff.test/hold"]}})
    api_cluster.kubectl("delete", "crd", "doomeds." + GROUP, "--wait=false")
    crd = api_cluster.kjson("get", "crd", "doomeds." + GROUP)
    assert "customresourcecleanup.apiextensions.k8s.io" in crd["metadata"]["finalizers"]
    conds = {x["type"]: x for x in crd["status"]["conditions"]}
    assert conds["Terminating"]["status"] == "True"
    deadline = time.time() + 10
    while time.time() < deadline:
        names = api_cluster.kubectl("get", "doomeds", "-o", "name", check=False).stdout.split()
        if names == ["doomed.stable.skiff.test/held"]:
            break
        time.sleep(0.1)
    assert names == ["doomed.stable.skiff.test/held"]
    r = api_cluster.kubectl("create", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": f"{GROUP}/v1", "kind": "Doomed", "metadata": {"name": "late"}}))
    assert r.returncode != 0 and "create not allowed while custom resource definition is terminating" in r.stderr
    api_cluster.kubectl("patch", "doomed", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    deadline = time.time() + 10
    while time.time() < deadline:
        if api_cluster.kubectl("get", "crd", "doomeds." + GROUP, check=False).returncode != 0:
            break
        time.sleep(0.1)
    assert api_cluster.kubectl("get", "crd", "doomeds." + GROUP, check=False).returncode != 0
    rl = json.loads(api_cluster.kubectl("get", "--raw", f"/apis/{GROUP}/v1").stdout)
    assert "doomeds" not in [x["name"] for x in rl["resources"]]
    r = api_cluster.kubectl("get", "--raw", f"/apis/{GROUP}/v1/namespaces/default/doomeds", check=False)
    assert r.returncode != 0


def test_crds_and_objects_survive_restart(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        apply_doc(c, crd_doc(plural="keepers", kind="Keeper"))
        wait_served(c, "keepers")
        apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Keeper", "metadata": {"name": "k1"},
                      "spec": {"size": 7}})
        assert c.stop() == 0
        c.start()
        wait_served(c, "keepers", timeout=1)
        assert c.kjson("get", "keeper", "k1")["spec"]["size"] == 7
        assert "keepers" in c.kubectl("api-resources", "--api-group", GROUP).stdout
    finally:
        c.cleanup()


def test_large_crd_does_not_stall_other_requests(api_cluster):
    props = {f"field{i:05d}": {"type": "string", "description": "x" * 40} for i in range(6000)}
    doc = crd_doc(plural="bigs", kind="Big", short=(), categories=(),
                  schema={"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
    assert len(json.dumps(doc)) > 500_000
    from kubernetes import client
    ext = client.ApiextensionsV1Api(api_cluster.api_client())
    core = client.CoreV1Api(api_cluster.api_client())
    done = threading.Event()
    reads = [0]

    def reader():
        while not done.is_set():
            core.list_namespace()
            reads[0] += 1

    t = threading.Thread(target=reader)
    t.start()
    ext.create_custom_resource_definition(doc)
    wait_served(api_cluster, "bigs")
    done.set()
    t.join()
    got = ext.read_custom_resource_definition("bigs." + GROUP)
    assert len(got.spec.versions[0].schema.open_apiv3_schema.properties["spec"].properties) == 6000
    assert reads[0] > 0


def test_aggregated_discovery_lists_custom_kind(gadgets):
    api = gadgets.api_client()
    accept = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
              "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")
    resp = api.call_api("/apis", "GET", header_params={"Accept": accept}, auth_settings=["BearerToken"],
                        _preload_content=False, _return_http_data_only=True)
    assert resp.getheader("Content-Type") == \
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    body = json.loads(resp.data)
    assert body["kind"] == "APIGroupDiscoveryList" and body["apiVersion"] == "apidiscovery.k8s.io/v2"
    groups = {g["metadata"]["name"]: g for g in body["items"]}
    v = groups[GROUP]["versions"][0]
    assert v["version"] == "v1" and v["freshness"] == "Current"
    res = {r["resource"]: r for r in v["resources"]}
    g = res["gadgets"]
    assert g["responseKind"] == {"group": GROUP, "version": "v1", "kind": "Gadget"}
    assert g["scope"] == "Namespaced" and g["singularResource"] == "gadget"
    assert g["shortNames"] == ["gd"] and g["categories"] == ["all"]
    assert [s["subresource"] for s in g["subresources"]] == ["status"]
    assert "customresourcedefinitions" in {r["resource"] for r in
                                           groups["apiextensions.k8s.io"]["versions"][0]["resources"]}
    resp = api.call_api("/api", "GET", header_params={"Accept": accept}, auth_settings=["BearerToken"],
                        _preload_content=False, _return_http_data_only=True)
    body = json.loads(resp.data)
    core = body["items"][0]["versions"][0]
    pods = [r for r in core["resources"] if r["resource"] == "pods"][0]
    assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert {"binding", "eviction", "log", "exec", "status"} <= {s["subresource"] for s in pods["subresources"]}
    # plain JSON without the aggregated media type
    legacy = json.loads(gadgets.kubectl("get", "--raw", "/apis").stdout)
    assert legacy["kind"] == "APIGroupList"


def test_openapi_v3_and_explain(gadgets):
    index = json.loads(gadgets.kubectl("get", "--raw", "/openapi/v3").stdout)["paths"]
    assert f"apis/{GROUP}/v1" in index
    doc = json.loads(gadgets.kubectl("get", "--raw", index[f"apis/{GROUP}/v1"]["serverRelativeURL"]).stdout)
    schema = doc["components"]["schemas"]["test.skiff.stable.v1.Gadget"]
    assert schema["x-kubernetes-group-version-kind"] == [{"group": GROUP, "kind": "Gadget", "version": "v1"}]
    assert schema["properties"]["spec"]["properties"]["size"]["type"] == "integer"
    out = gadgets.kubectl("explain", "gadget.spec.size").stdout
    assert "KIND:       Gadget" in out and "FIELD: size <integer>" in out


def test_too_deep_schema_refused(api_cluster):
    deep = {"type": "string"}
    for _ in range(140):
        deep = {"type": "object", "properties": {"a": deep}}
    doc = crd_doc(plural="deeps", kind="Deep", short=(), categories=(), schema=deep)
    r = api_cluster.kubectl("create", "-f", "-", input=json.dumps(doc), check=False)
    assert r.returncode != 0 and "the schema is nested more than 128 levels deep" in r.stderr


def test_crd_cleanup_resumes_after_restart(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        apply_doc(c, crd_doc(plural="resumers", kind="Resumer", short=(), categories=()))
        wait_served(c, "resumers")
        apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Resumer",
                      "metadata": {"name": "held", "finalizers": ["skiff.test/hold"]}})
        c.kubectl("delete", "crd", "resumers." + GROUP, "--wait=false")
        assert c.stop() == 0
        c.start()
        wait_served(c, "resumers", timeout=1)
        assert c.kjson("get", "resumer", "held")["metadata"].get("deletionTimestamp")
        c.kubectl("patch", "resumer", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
        deadline = time.time() + 10
        while time.time() < deadline and c.kubectl("get", "crd", "resumers." + GROUP, check=False).returncode == 0:
            time.sleep(0.1)
        assert c.kubectl("get", "crd", "resumers." + GROUP, check=False).returncode != 0
        rl = json.loads(c.kubectl("get", "--raw", f"/apis/{GROUP}/v1", check=False).stdout or '{"resources":[]}')
        assert "resumers" not in [x["name"] for x in rl["resources"]]
    finally:
        c.cleanup()
