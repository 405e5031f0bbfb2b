"""Garbage collection across built-in and custom kinds (one collector): an
object whose owners are all gone (custom or built-in) is deleted; an owner
(custom, or a built-in one with custom dependents) deleted with
propagationPolicy Foreground waits for its blocking dependents, a dependent
with dependents of its own is deleted in the foreground too, and one deleted
with Orphan leaves its dependents without the reference."""
import time

from crd_util import GROUP, apply_doc, crd_doc, wait_served
from conftest import SLOW  # noqa: E402
from test_agent_cluster import wait_for


def wait_gone(c, *args, timeout=15):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if c.kubectl("get", *args, check=False).returncode != 0:
            return True
        time.sleep(0.2)
    return False


def test_dependents_of_deleted_owners_are_collected(api_cluster):
    c = api_cluster
    apply_doc(c, crd_doc(plural="owners", kind="Owner", short=(), categories=()))
    apply_doc(c, crd_doc(plural="deps", kind="Dep", short=(), categories=()))
    wait_served(c, "owners")
    wait_served(c, "deps")
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Owner", "metadata": {"name": "boss"}})
    boss = c.kjson("get", "owner", "boss")
    c.kubectl("create", "configmap", "cm-boss")
    cm = c.kjson("get", "configmap", "cm-boss")

    def dep(name, owner):
        return {"apiVersion": f"{GROUP}/v1", "kind": "Dep", "metadata": {"name": name, "ownerReferences": [owner]}}

    apply_doc(c, dep("d-custom", {"apiVersion": f"{GROUP}/v1", "kind": "Owner", "name": "boss",
                                  "uid": boss["metadata"]["uid"]}))
    apply_doc(c, dep("d-builtin", {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm-boss",
                                   "uid": cm["metadata"]["uid"]}))
    apply_doc(c, dep("d-stale", {"apiVersion": f"{GROUP}/v1", "kind": "Owner", "name": "boss",
                                 "uid": "00000000-0000-0000-0000-000000000000"}))
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Dep", "metadata": {"name": "d-free"}})
    assert wait_gone(c, "dep", "d-stale")
    assert c.kubectl("get", "dep", "d-custom", check=False).returncode == 0
    c.kubectl("delete", "owner", "boss")
    assert wait_gone(c, "dep", "d-custom")
    assert c.kubectl("get", "dep", "d-builtin", check=False).returncode == 0
    c.kubectl("delete", "configmap", "cm-boss")
    assert wait_gone(c, "dep", "d-builtin")
    assert c.kubectl("get", "dep", "d-free", check=False).returncode == 0


def test_builtin_dependents_of_custom_owner_are_collected(api_cluster):
    c = api_cluster
    apply_doc(c, crd_doc(plural="jobsets", kind="JobSet", short=(), categories=()))
    wait_served(c, "jobsets")
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "JobSet", "metadata": {"name": "js"}})
    js = c.kjson("get", "jobset", "js")
    ref = {"apiVersion": f"{GROUP}/v1", "kind": "JobSet", "name": "js", "uid": js["metadata"]["uid"],
           "controller": True}
    apply_doc(c, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "js-cm", "ownerReferences": [ref]}})
    apply_doc(c, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other-cm"}})
    c.kubectl("delete", "jobset", "js")
    assert wait_gone(c, "configmap", "js-cm")
    assert c.kubectl("get", "configmap", "other-cm", check=False).returncode == 0


def test_foreground_delete_of_custom_owner_does_not_hang(api_cluster):
    c = api_cluster
    apply_doc(c, crd_doc(plural="fgowners", kind="FgOwner", short=(), categories=()))
    wait_served(c, "fgowners")
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "FgOwner", "metadata": {"name": "fg"}})
    c.kubectl("delete", "fgowner", "fg", "--cascade=foreground", timeout=30)
    assert c.kubectl("get", "fgowner", "fg", check=False).returncode != 0


def _owned(c, kind, name, owner, block=True, api="v1", extra=None):
    ref = {"apiVersion": f"{GROUP}/v1", "kind": owner["kind"], "name": owner["metadata"]["name"],
           "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": block}
    doc = {"apiVersion": api, "kind": kind, "metadata": {"name": name, "ownerReferences": [ref]}}
    doc.update(extra or {})
    apply_doc(c, doc)


def test_foreground_and_orphan_with_custom_owner(api_cluster):
    """As JobSet: a Job (and other objects) owned by a custom object."""
    from kubernetes import client

    c = api_cluster
    apply_doc(c, crd_doc(plural="sets", kind="Set", short=(), categories=()))
    wait_served(c, "sets")
    co = client.CustomObjectsApi(c.api_client())
    for n in ("fg", "orph"):
        apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Set", "metadata": {"name": n}})
    fg, orph = c.kjson("get", "set", "fg"), c.kjson("get", "set", "orph")
    job = {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox"}]}}}}
    _owned(c, "Job", "fg-job", fg, api="batch/v1", extra=job)
    _owned(c, "ConfigMap", "fg-held", fg, extra={"metadata": {
        "name": "fg-held", "finalizers": ["skiff.test/hold"], "ownerReferences": [
            {"apiVersion": f"{GROUP}/v1", "kind": "Set", "name": "fg", "uid": fg["metadata"]["uid"],
             "blockOwnerDeletion": True}]}})
    _owned(c, "Set", "fg-child", fg, api=f"{GROUP}/v1")
    _owned(c, "ConfigMap", "orph-cm", orph)
    _owned(c, "Set", "orph-child", orph, api=f"{GROUP}/v1")

    # foreground: the owner stays, marked, while a blocking dependent exists
    co.delete_namespaced_custom_object(GROUP, "v1", "default", "sets", "fg", propagation_policy="Foreground")
    o = co.get_namespaced_custom_object(GROUP, "v1", "default", "sets", "fg")
    assert o["metadata"]["deletionTimestamp"] and "foregroundDeletion" in o["metadata"]["finalizers"]
    wait_for(lambda: c.kubectl("get", "job", "fg-job", check=False).returncode != 0, timeout=15,
             what="the owned Job deleted")
    wait_for(lambda: c.kubectl("get", "set", "fg-child", check=False).returncode != 0, timeout=15,
             what="the owned custom object deleted")
    wait_for(lambda: c.kjson("get", "configmap", "fg-held")["metadata"].get("deletionTimestamp"), timeout=15,
             what="the held ConfigMap marked for deletion")
    time.sleep(0.5)  # not a wait: a sweep that would wrongly let the owner go has run by now
    assert c.kjson("get", "set", "fg")["metadata"]["finalizers"] == ["foregroundDeletion"]
    c.kubectl("patch", "configmap", "fg-held", "--type=json", "-p",
              '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert wait_gone(c, "set", "fg")

    # orphan: the owner goes, its dependents stay without the reference
    c.kubectl("delete", "set", "orph", "--cascade=orphan", timeout=30)
    assert c.kubectl("get", "set", "orph", check=False).returncode != 0
    for args in (("configmap", "orph-cm"), ("set", "orph-child")):
        assert "ownerReferences" not in c.kjson("get", *args)["metadata"]


def _ref(obj, block=True):
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "blockOwnerDeletion": block}


def _widget(co, name, *owners, finalizers=None):
    meta = {"name": name, "ownerReferences": list(owners)}
    if finalizers:
        meta["finalizers"] = finalizers
    return co.create_namespaced_custom_object(GROUP, "v1", "default", "widgets", {
        "apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": meta})


def _gone(c, *args):
    return c.kubectl("get", *args, check=False).returncode != 0


def test_builtin_owner_with_custom_dependents(api_cluster):
    """A ConfigMap or a Job owning custom objects: background deletion
    collects them, foreground deletion waits for the blocking ones, orphan
    strips the reference; a dependent with another owner stays."""
    from kubernetes import client

    c = api_cluster
    apply_doc(c, crd_doc(plural="widgets", kind="Widget", short=(), categories=()))
    wait_served(c, "widgets")
    api = c.api_client()
    core, batch, co = client.CoreV1Api(api), client.BatchV1Api(api), client.CustomObjectsApi(api)
    cm = {n: api.sanitize_for_serialization(core.create_namespaced_config_map("default", {
        "metadata": {"name": f"cm-{n}"}})) for n in ("bg", "fg", "orph", "other")}
    for o in cm.values():
        o.update(apiVersion="v1", kind="ConfigMap")
    job = api.sanitize_for_serialization(batch.create_namespaced_job("default", {
        "metadata": {"name": "owner-job"}, "spec": {"suspend": True, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}))
    job.update(apiVersion="batch/v1", kind="Job")
    _widget(co, "w-bg", _ref(cm["bg"]))
    _widget(co, "w-job", _ref(job))
    _widget(co, "w-fg", _ref(cm["fg"]))
    _widget(co, "w-fg-held", _ref(cm["fg"]), finalizers=["skiff.test/hold"])
    _widget(co, "w-fg-loose", _ref(cm["fg"], block=False))
    _widget(co, "w-shared", _ref(cm["fg"]), _ref(cm["other"]))
    _widget(co, "w-orph", _ref(cm["orph"]))

    # background: the owner goes at once, its custom dependents after it
    core.delete_namespaced_config_map("cm-bg", "default", propagation_policy="Background")
    batch.delete_namespaced_job("owner-job", "default", propagation_policy="Background")
    wait_for(lambda: _gone(c, "widget", "w-bg") and _gone(c, "widget", "w-job"), timeout=15,
             what="the custom dependents of a ConfigMap and a Job collected")

    # foreground: the ConfigMap waits while a blocking custom dependent exists
    core.delete_namespaced_config_map("cm-fg", "default", propagation_policy="Foreground")
    wait_for(lambda: _gone(c, "widget", "w-fg") and _gone(c, "widget", "w-fg-loose"), timeout=15,
             what="the ConfigMap's custom dependents deleted")
    wait_for(lambda: c.kjson("get", "widget", "w-fg-held")["metadata"].get("deletionTimestamp"), timeout=15,
             what="the held dependent marked for deletion")
    wait_for(lambda: "ownerReferences" in c.kjson("get", "widget", "w-shared")["metadata"] and [
        r["name"] for r in c.kjson("get", "widget", "w-shared")["metadata"]["ownerReferences"]] == ["cm-other"],
        timeout=15, what="the shared dependent keeps its other owner only")
    fg = c.kjson("get", "configmap", "cm-fg")
    assert fg["metadata"]["deletionTimestamp"] and fg["metadata"]["finalizers"] == ["foregroundDeletion"]
    c.kubectl("patch", "widget", "w-fg-held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert wait_gone(c, "configmap", "cm-fg")
    assert not _gone(c, "widget", "w-shared")

    # orphan: the dependent stays without the reference
    core.delete_namespaced_config_map("cm-orph", "default", propagation_policy="Orphan")
    assert wait_gone(c, "configmap", "cm-orph")
    assert "ownerReferences" not in c.kjson("get", "widget", "w-orph")["metadata"]


def test_foreground_chain_of_custom_objects(api_cluster):
    """Foreground deletion down a chain (custom owner -> custom dependent
    with a dependent of its own): the middle object is deleted in the
    foreground too, so each waits for the one below, as upstream's
    attemptToDeleteItem does."""
    from kubernetes import client

    c = api_cluster
    apply_doc(c, crd_doc(plural="tops", kind="Top", short=(), categories=()))
    apply_doc(c, crd_doc(plural="widgets", kind="Widget", short=(), categories=()))
    wait_served(c, "tops")
    wait_served(c, "widgets")
    co = client.CustomObjectsApi(c.api_client())
    apply_doc(c, {"apiVersion": f"{GROUP}/v1", "kind": "Top", "metadata": {"name": "top"}})
    top = c.kjson("get", "top", "top")
    mid = _widget(co, "mid", _ref(top))
    apply_doc(c, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "leaf", "finalizers": ["skiff.test/hold"], "ownerReferences": [_ref(mid)]}})

    co.delete_namespaced_custom_object(GROUP, "v1", "default", "tops", "top", propagation_policy="Foreground")
    wait_for(lambda: c.kjson("get", "configmap", "leaf")["metadata"].get("deletionTimestamp"), timeout=15,
             what="the leaf marked for deletion")
    m = c.kjson("get", "widget", "mid")["metadata"]
    assert m["deletionTimestamp"] and m["finalizers"] == ["foregroundDeletion"]
    assert c.kjson("get", "top", "top")["metadata"]["finalizers"] == ["foregroundDeletion"]
    c.kubectl("patch", "configmap", "leaf", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert wait_gone(c, "top", "top")
    assert _gone(c, "widget", "mid") and _gone(c, "configmap", "leaf")
