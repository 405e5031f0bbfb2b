"""Garbage collection of custom objects: a custom object whose owners are
all gone (a custom or a built-in owner) is deleted."""
import time

from crd_util import GROUP, apply_doc, crd_doc, wait_served
from conftest import SLOW  # noqa: E402


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
