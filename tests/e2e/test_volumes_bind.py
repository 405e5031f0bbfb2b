"""PersistentVolumes and claims that bind (the PV controller, ctrl/pvbinder.c):
static binding by capacity, class, selector and pre-binding both ways,
release and reclaim, the protection finalizers, the default StorageClass
and its WaitForFirstConsumer provisioning on the node the scheduler chose."""
import json
import os
import shutil
import tempfile
import time

import pytest
from kubernetes import client

from test_agent_embedded import embedded  # noqa: F401  (fixture)
from conftest import SLOW  # noqa: E402


def wait(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def pv(name, size, modes=("ReadWriteOnce",), sc="", labels=None, reclaim="Retain", claim=None, path=None):
    o = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels or {}},
         "spec": {"capacity": {"storage": size}, "accessModes": list(modes), "storageClassName": sc,
                  "persistentVolumeReclaimPolicy": reclaim,
                  "hostPath": {"path": path or f"/tmp/skiff-e2e-pv/{name}"}}}
    if claim:
        o["spec"]["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    return o


def pvc(name, size, modes=("ReadWriteOnce",), sc="", selector=None, volume=None):
    o = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
         "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}}
    if sc is not None:
        o["spec"]["storageClassName"] = sc
    if selector:
        o["spec"]["selector"] = {"matchLabels": selector}
    if volume:
        o["spec"]["volumeName"] = volume
    return o


def create(c, *objs, ns="default"):
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                "items": list(objs)}))


_apis = {}


def core(c):
    """A Python client per cluster: reads without starting a kubectl each time."""
    if id(c) not in _apis:
        _apis[id(c)] = (c, client.CoreV1Api(c.api_client()))
    return _apis[id(c)][1]


def claim(c, name, ns="default"):
    return core(c).api_client.sanitize_for_serialization(core(c).read_namespaced_persistent_volume_claim(name, ns))


def volume(c, name):
    return core(c).api_client.sanitize_for_serialization(core(c).read_persistent_volume(name))


def bound_to(c, name, ns="default"):
    def f():
        o = claim(c, name, ns)
        return o if o["status"].get("phase") == "Bound" else None
    return wait(f, what=f"claim {name} bound")["spec"]["volumeName"]


def volume_phase(c, name, phase):
    return wait(lambda: volume(c, name)["status"].get("phase") == phase, what=f"pv {name} {phase}")


def gone(c, kind, name, ns="default"):
    def f():
        try:
            if kind == "pv":
                core(c).read_persistent_volume(name)
            else:
                core(c).read_namespaced_persistent_volume_claim(name, ns)
        except client.ApiException as e:
            return e.status == 404
        return False
    return wait(f, what=f"{kind} {name} gone")


def events(c, name, ns="default"):
    r = core(c).list_namespaced_event(ns, field_selector=f"involvedObject.name={name}")
    return [(e.reason, e.message) for e in r.items]


@pytest.fixture(scope="module")
def cp(api_cluster):
    return api_cluster


def test_static_binding_choices(cp):
    c = cp
    # the smallest volume that fits, access modes and class respected
    create(c, pv("small", "1Gi"), pv("medium", "5Gi"), pv("large", "10Gi"), pv("rwx", "2Gi", modes=["ReadWriteMany"]),
           pv("gold", "3Gi", sc="gold"), pv("fast", "20Gi", labels={"speed": "fast"}))
    create(c, pvc("want3", "3Gi", sc=""), pvc("wantrwx", "1Gi", modes=["ReadWriteMany"], sc=""),
           pvc("wantgold", "1Gi", sc="gold"), pvc("wantsilver", "1Gi", sc="silver"),
           pvc("wantfast", "1Gi", sc="", selector={"speed": "fast"}))
    assert bound_to(c, "want3") == "medium"
    assert bound_to(c, "wantrwx") == "rwx"
    assert bound_to(c, "wantgold") == "gold"
    assert bound_to(c, "wantfast") == "fast"
    o = claim(c, "want3")
    assert o["status"]["capacity"] == {"storage": "5Gi"}
    assert o["status"]["accessModes"] == ["ReadWriteOnce"]
    assert o["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    assert o["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert "kubernetes.io/pvc-protection" in o["metadata"]["finalizers"]
    v = volume(c, "medium")
    assert v["status"]["phase"] == "Bound"
    assert v["spec"]["claimRef"]["name"] == "want3" and v["spec"]["claimRef"]["uid"] == o["metadata"]["uid"]
    assert v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert "kubernetes.io/pv-protection" in v["metadata"]["finalizers"]
    volume_phase(c, "small", "Available")
    volume_phase(c, "large", "Available")
    # a class nobody serves stays Pending, with upstream's event
    assert claim(c, "wantsilver")["status"]["phase"] == "Pending"
    wait(lambda: ("ProvisioningFailed", 'storageclass.storage.k8s.io "silver" not found') in events(c, "wantsilver"),
         what="ProvisioningFailed event")
    # nothing left for a 50Gi claim without a class
    create(c, pvc("toobig", "50Gi", sc=""))
    wait(lambda: ("FailedBinding", "no persistent volumes available for this claim and no storage class is set")
         in events(c, "toobig"), what="FailedBinding event")
    assert claim(c, "toobig")["status"]["phase"] == "Pending"
    # kubectl's columns
    out = c.kubectl("get", "pv", "medium").stdout.splitlines()
    assert out[0].split() == ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM",
                              "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
    assert out[1].split()[:6] == ["medium", "5Gi", "RWO", "Retain", "Bound", "default/want3"]
    out = c.kubectl("get", "pvc", "want3").stdout.splitlines()
    assert out[0].split() == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS",
                              "VOLUMEATTRIBUTESCLASS", "AGE"]
    assert out[1].split()[:5] == ["want3", "Bound", "medium", "5Gi", "RWO"]
    desc = c.kubectl("describe", "pvc", "want3").stdout
    assert "Status:        Bound" in desc and "Volume:        medium" in desc
    desc = c.kubectl("describe", "pv", "medium").stdout
    assert "Claim:           default/want3" in desc and "Reclaim Policy:  Retain" in desc


def test_prebinding_both_ways_python(cp):
    c = cp
    api = client.CoreV1Api(c.api_client())
    # the volume names the claim (claimRef without uid)
    api.create_persistent_volume(pv("forclaim", "1Gi", claim=("default", "picky")))
    api.create_persistent_volume(pv("decoy", "1Gi"))
    api.create_namespaced_persistent_volume_claim("default", pvc("picky", "1Gi", sc=""))
    assert bound_to(c, "picky") == "forclaim"
    v = api.read_persistent_volume("forclaim")
    assert v.spec.claim_ref.uid == api.read_namespaced_persistent_volume_claim("picky", "default").metadata.uid
    assert "pv.kubernetes.io/bound-by-controller" not in (v.metadata.annotations or {})
    # the claim names the volume (spec.volumeName)
    api.create_persistent_volume(pv("named", "2Gi"))
    api.create_namespaced_persistent_volume_claim("default", pvc("byname", "1Gi", sc="", volume="named"))
    assert bound_to(c, "byname") == "named"
    o = api.read_namespaced_persistent_volume_claim("byname", "default")
    assert o.status.capacity == {"storage": "2Gi"}
    assert "pv.kubernetes.io/bound-by-controller" not in (o.metadata.annotations or {})
    assert api.read_persistent_volume("named").metadata.annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    # a named volume too small is refused with an event and the claim waits
    api.create_persistent_volume(pv("tiny", "1Mi"))
    api.create_namespaced_persistent_volume_claim("default", pvc("wanttiny", "1Gi", sc="", volume="tiny"))
    wait(lambda: ("VolumeMismatch", 'Cannot bind to requested volume "tiny": requested PV is too small')
         in events(c, "wanttiny"), what="VolumeMismatch event")
    assert api.read_namespaced_persistent_volume_claim("wanttiny", "default").status.phase == "Pending"
    volume_phase(c, "decoy", "Available")


def test_release_and_reclaim(cp):
    c = cp
    create(c, pv("keep", "1Gi", sc="r"), pv("drop", "1Gi", sc="d", reclaim="Delete"))
    create(c, pvc("usekeep", "1Gi", sc="r"), pvc("usedrop", "1Gi", sc="d"))
    assert bound_to(c, "usekeep") == "keep"
    assert bound_to(c, "usedrop") == "drop"
    # Retain: the volume stays, Released, still naming its old claim
    c.kubectl("delete", "pvc", "usekeep")
    volume_phase(c, "keep", "Released")
    assert volume(c, "keep")["spec"]["claimRef"]["name"] == "usekeep"
    # a new claim does not take a Released volume
    create(c, pvc("usekeep2", "1Gi", sc="r"))
    assert claim(c, "usekeep2")["status"]["phase"] == "Pending"
    # Delete: the volume goes with its claim
    c.kubectl("delete", "pvc", "usedrop")
    gone(c, "pv", "drop")
    # a bound volume is protected: deleting it waits for its claim
    create(c, pv("prot", "1Gi", sc="p"), pvc("useprot", "1Gi", sc="p"))
    assert bound_to(c, "useprot") == "prot"
    c.kubectl("delete", "pv", "prot", "--wait=false")
    v = volume(c, "prot")
    assert v["metadata"].get("deletionTimestamp") and v["status"]["phase"] == "Bound"
    assert "Terminating" in c.kubectl("get", "pv", "prot").stdout
    c.kubectl("delete", "pvc", "useprot")
    gone(c, "pv", "prot")


def test_claim_in_use_is_protected(cp):
    c = cp
    create(c, pv("inuse", "1Gi", sc="u"), pvc("useinuse", "1Gi", sc="u"))
    assert bound_to(c, "useinuse") == "inuse"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "holder"},
           "spec": {"nodeName": "nowhere", "containers": [{"name": "c", "image": "busybox:1"}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "useinuse"}}]}}
    create(c, pod)
    c.kubectl("delete", "pvc", "useinuse", "--wait=false")
    o = claim(c, "useinuse")
    assert o["metadata"].get("deletionTimestamp") and "kubernetes.io/pvc-protection" in o["metadata"]["finalizers"]
    assert "Terminating" in c.kubectl("get", "pvc", "useinuse").stdout
    c.kubectl("delete", "pod", "holder", "--grace-period=0", "--force")
    gone(c, "pvc", "useinuse")
    volume_phase(c, "inuse", "Released")


def test_default_class_and_wait_for_first_consumer(cp):
    c = cp
    sc = c.kjson("get", "storageclass", "local-path")
    assert sc["provisioner"] == "rancher.io/local-path"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer" and sc["reclaimPolicy"] == "Delete"
    assert "local-path (default)" in c.kubectl("get", "storageclass").stdout
    create(c, pvc("lazy", "1Gi", sc=None))
    o = claim(c, "lazy")
    assert o["spec"]["storageClassName"] == "local-path"
    wait(lambda: ("WaitForFirstConsumer", "waiting for first consumer to be created before binding")
         in events(c, "lazy"), what="WaitForFirstConsumer event")
    assert claim(c, "lazy")["status"]["phase"] == "Pending"
    # "" asks for no class: the default is not applied
    create(c, pvc("noclass", "1Gi", sc=""))
    assert claim(c, "noclass")["spec"]["storageClassName"] == ""
    # without a default class a claim keeps no class (and could bind a volume of class ""; none is that
    # big), and gets the default made later (retroactively)
    c.kubectl("annotate", "--overwrite", "storageclass", "local-path", "storageclass.kubernetes.io/is-default-class=false")
    create(c, pvc("early", "500Gi", sc=None))
    assert "storageClassName" not in claim(c, "early")["spec"]
    c.kubectl("annotate", "--overwrite", "storageclass", "local-path", "storageclass.kubernetes.io/is-default-class=true")
    wait(lambda: claim(c, "early")["spec"].get("storageClassName") == "local-path", what="retroactive default class")


def consumer(name, cmd, selector=None, tolerate=False, claim="data"):
    spec = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
            "containers": [{"name": "c", "image": "busybox:1", "command": ["sh", "-c", cmd],
                            "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}]}
    if selector:
        spec["nodeSelector"] = {"kubernetes.io/hostname": selector}
    if tolerate:
        spec["tolerations"] = [{"operator": "Exists"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


@pytest.mark.agents
def test_wait_for_first_consumer_provisions_on_its_node(embedded):  # noqa: F811
    c = embedded
    wait(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0, what="node")
    # a second node, without an agent, that the volume's node affinity must keep pods off
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "decoy", "labels": {"kubernetes.io/hostname": "decoy"}},
        "status": {"capacity": {"cpu": "8", "memory": "8Gi", "pods": "110"},
                   "allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}))
    create(c, pvc("data", "64Mi", sc=None), consumer("writer", "echo persisted > /data/file", selector=c.node))
    p = wait(lambda: (o := core(c).read_namespaced_pod("writer", "default")).status.phase == "Succeeded" and o, 90,
             what="writer Succeeded")
    assert p.spec.node_name == c.node
    o = claim(c, "data")
    assert o["status"]["phase"] == "Bound" and o["spec"]["storageClassName"] == "local-path"
    ann = o["metadata"]["annotations"]
    assert ann["volume.kubernetes.io/selected-node"] == c.node
    assert ann["volume.kubernetes.io/storage-provisioner"] == "rancher.io/local-path"
    v = volume(c, o["spec"]["volumeName"])
    assert v["metadata"]["name"] == "pvc-" + o["metadata"]["uid"]
    assert v["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "rancher.io/local-path"
    assert v["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [c.node]}]}]
    assert v["spec"]["persistentVolumeReclaimPolicy"] == "Delete" and v["status"]["phase"] == "Bound"
    path = v["spec"]["hostPath"]["path"]
    # the second pod follows the data; one that must go elsewhere cannot
    create(c, consumer("reader", "cat /data/file"), consumer("elsewhere", "true", selector="decoy", tolerate=True))
    p = wait(lambda: (o := core(c).read_namespaced_pod("reader", "default")).status.phase == "Succeeded" and o, 90,
             what="reader Succeeded")
    assert p.spec.node_name == c.node
    assert c.kubectl("logs", "reader").stdout.strip() == "persisted"
    wait(lambda: any("node(s) had volume node affinity conflict" in m for r, m in events(c, "elsewhere")
                     if r == "FailedScheduling"), what="FailedScheduling event")
    # a local volume of a class without provisioner: the scheduler picks the node that has it and binds it
    local = tempfile.mkdtemp(prefix="skiff-e2e-local-")
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local-static"},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}))
    lv = pv("static-local", "1Gi", sc="local-static", path=local)
    lv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": [c.node]}]}]}}
    create(c, lv, pvc("sdata", "1Gi", sc="local-static"), pvc("sfull", "1Gi", sc="local-static"),
           consumer("static", "echo local > /data/f", claim="sdata", tolerate=True))
    assert bound_to(c, "sdata") == "static-local"
    wait(lambda: core(c).read_namespaced_pod("static", "default").status.phase == "Succeeded", 90,
         what="static Succeeded")
    with open(os.path.join(local, "f")) as f:
        assert f.read().strip() == "local"
    create(c, consumer("nolocal", "true", claim="sfull", tolerate=True))
    wait(lambda: ("FailedScheduling", "0/2 nodes are available: 2 node(s) didn't find available persistent volumes "
                  "to bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
         in events(c, "nolocal"), what="nolocal FailedScheduling")
    # claims that are missing or wait for a volume of an Immediate class keep their pods pending
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "imm"},
        "provisioner": "example.com/nobody"}))
    create(c, pvc("later", "1Gi", sc="imm"), consumer("noclaim", "true", claim="missing"),
           consumer("unbound", "true", claim="later"))
    tail = " preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    for pod, why in [("noclaim", 'persistentvolumeclaim "missing" not found.'),
                     ("unbound", "pod has unbound immediate PersistentVolumeClaims.")]:
        wait(lambda: ("FailedScheduling", "0/2 nodes are available: " + why + tail) in events(c, pod),
             what=f"{pod} FailedScheduling")
    # reclaim Delete: the claim's data and volume go once its pods are gone
    c.kubectl("delete", "pod", "writer", "reader", "elsewhere", "noclaim", "unbound", "static", "nolocal",
              "--grace-period=0", "--force")
    c.kubectl("delete", "pvc", "data")
    gone(c, "pv", v["metadata"]["name"])
    assert not os.path.exists(path)
    shutil.rmtree(local, ignore_errors=True)
