"""Volume expansion: StorageClass allowVolumeExpansion, the
PersistentVolumeClaimResize admission plugin, the claim update validation
(only the storage request of a bound claim may change, never below
status.capacity) and the expand controller (ctrl/expand.c) growing a
local-path volume and its claim, with the resizer's conditions and events.
No node agent: the local-path volumes are written as the provisioner writes
them (annotation pv.kubernetes.io/provisioned-by) and pre-bound."""
import json

import pytest
from kubernetes import client

from test_agent_cluster import wait_for


def sc(name, expand):
    o = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
         "provisioner": "rancher.io/local-path", "volumeBindingMode": "Immediate", "reclaimPolicy": "Retain"}
    if expand is not None:
        o["allowVolumeExpansion"] = expand
    return o


def pv(name, cls, claim, provisioned=True):
    o = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                  "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": f"/tmp/skiff-e2e-pv/{name}"},
                  "claimRef": {"namespace": "default", "name": claim}}}
    if provisioned:
        o["metadata"]["annotations"] = {"pv.kubernetes.io/provisioned-by": "rancher.io/local-path"}
    return o


def pvc(name, cls, size="1Gi"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                     "resources": {"requests": {"storage": size}}}}


@pytest.fixture(scope="module")
def cl(api_cluster):
    c = api_cluster
    items = [sc("grow", True), sc("fixed", None), pv("pv-grow", "grow", "data-grow"), pvc("data-grow", "grow"),
             pv("pv-fixed", "fixed", "data-fixed"), pvc("data-fixed", "fixed"),
             pv("pv-static", "grow", "data-static", provisioned=False), pvc("data-static", "grow")]
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    api = client.CoreV1Api(c.api_client())
    for n in ("data-grow", "data-fixed", "data-static"):
        wait_for(lambda: api.read_namespaced_persistent_volume_claim(n, "default").status.phase == "Bound",
                 what=f"{n} bound")
    return c, api


def resize(c, name, size, check=True):
    return c.kubectl("patch", "pvc", name, "-p", json.dumps({"spec": {"resources": {"requests": {"storage": size}}}}),
                     check=check)


def test_expand_local_path_volume(cl):
    c, api = cl
    # the class says whether it may grow; kubectl shows it
    out = c.kubectl("get", "storageclass", "grow", "fixed").stdout
    assert "ALLOWVOLUMEEXPANSION" in out and "true" in out and "false" in out
    # a class without allowVolumeExpansion: the admission plugin refuses
    r = resize(c, "data-fixed", "2Gi", check=False)
    assert r.returncode != 0
    assert ('Error from server (Forbidden): persistentvolumeclaims "data-fixed" is forbidden: only dynamically '
            'provisioned pvc can be resized and the storageclass that provisions the pvc must support resize'
            in r.stderr), r.stderr
    # other spec fields stay immutable on a bound claim
    r = c.kubectl("patch", "pvc", "data-grow", "-p", '{"spec":{"accessModes":["ReadWriteMany"]}}', check=False)
    assert r.returncode != 0 and "spec is immutable after creation except resources.requests" in r.stderr
    # growing: the volume and the claim reach 2Gi, the resize state is cleared
    assert "persistentvolumeclaim/data-grow patched" in resize(c, "data-grow", "2Gi").stdout

    def grown():
        # kubectl: the Debian Python client (22.6) predates allocatedResources
        st = c.kjson("get", "pvc", "data-grow")["status"]
        return st if st.get("capacity", {}).get("storage") == "2Gi" else None
    st = wait_for(grown, what="data-grow at 2Gi")
    assert st["allocatedResources"] == {"storage": "2Gi"}
    assert "allocatedResourceStatuses" not in st
    assert not [x for x in st.get("conditions", []) if x["type"] in ("Resizing", "FileSystemResizePending")]
    assert api.read_persistent_volume("pv-grow").spec.capacity["storage"] == "2Gi"
    assert "2Gi" in c.kubectl("get", "pvc", "data-grow").stdout

    def reasons():
        evs = api.list_namespaced_event("default", field_selector="involvedObject.name=data-grow").items
        got = {e.reason: (e.message, e.source.component) for e in evs}
        return got if "VolumeResizeSuccessful" in got else None
    evs = wait_for(reasons, what="resize events")
    assert evs["Resizing"] == ("External resizer is resizing volume pv-grow", "external-resizer rancher.io/local-path")
    assert evs["VolumeResizeSuccessful"][0] == "Resize volume succeeded"
    # a smaller request: at or below status.capacity is refused (a shrink)
    r = resize(c, "data-grow", "1Gi", check=False)
    assert r.returncode != 0
    assert ('The PersistentVolumeClaim "data-grow" is invalid: spec.resources.requests.storage: Forbidden: field '
            'can not be less than status.capacity' in r.stderr), r.stderr
    r = resize(c, "data-grow", "2Gi")  # unchanged: allowed
    # a volume the local-path provisioner did not make: left to an external resizer
    resize(c, "data-static", "3Gi")

    def external():
        evs = api.list_namespaced_event("default", field_selector="involvedObject.name=data-static").items
        return [e.message for e in evs if e.reason == "ExternalExpanding"]
    assert wait_for(external, what="ExternalExpanding") == ["waiting for an external controller to expand this PVC"]
    o = api.read_namespaced_persistent_volume_claim("data-static", "default")
    assert o.status.capacity["storage"] == "1Gi" and o.spec.resources.requests["storage"] == "3Gi"
    # the Python client: growing again through a patch
    api.patch_namespaced_persistent_volume_claim("data-grow", "default",
                                                 {"spec": {"resources": {"requests": {"storage": "3Gi"}}}})
    wait_for(lambda: api.read_persistent_volume("pv-grow").spec.capacity["storage"] == "3Gi"
             and api.read_namespaced_persistent_volume_claim("data-grow", "default").status.capacity["storage"]
             == "3Gi", what="data-grow at 3Gi")
    with pytest.raises(client.ApiException) as e:
        api.patch_namespaced_persistent_volume_claim("data-fixed", "default",
                                                     {"spec": {"resources": {"requests": {"storage": "5Gi"}}}})
    assert e.value.status == 403 and json.loads(e.value.body)["reason"] == "Forbidden"
