"""StatefulSets against `skiff server --no-agent` with simulated nodes: the
test creates the Node objects, the scheduler binds the pods and the test
plays the kubelet (marks bound pods Running/Ready, finishes terminating
pods). Ordered and parallel pod management, identities, claims from
templates and their retention, scale, partitioned and maxUnavailable
rolling updates, OnDelete, history and `kubectl rollout` (issue 19)."""
import datetime
import json
import os
import shutil
import tempfile
import time

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import Cluster, SLOW


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def wait(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    old = os.environ.get("SKIFF_NODE_MONITOR_GRACE_PERIOD")
    # the simulated nodes post no leases: keep them Ready for the module
    os.environ["SKIFF_NODE_MONITOR_GRACE_PERIOD"] = "3600"
    try:
        c = Cluster(d, ["--no-agent"]).start()
    finally:
        if old is None:
            del os.environ["SKIFF_NODE_MONITOR_GRACE_PERIOD"]
        else:
            os.environ["SKIFF_NODE_MONITOR_GRACE_PERIOD"] = old
    c.core = client.CoreV1Api(c.api_client())
    c.apps = client.AppsV1Api(c.api_client())
    for i, name in enumerate(("s1", "s2")):
        c.core.create_node({"apiVersion": "v1", "kind": "Node",
                            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}})
        t = now()
        res = {"cpu": "8", "memory": "16Gi", "pods": "110"}
        c.core.patch_node_status(name, {"status": {
            "capacity": res, "allocatable": res,
            "addresses": [{"type": "InternalIP", "address": f"10.9.0.{i + 1}"}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                            "lastHeartbeatTime": t, "lastTransitionTime": t}]}})
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


_ip = [10]


def pods(c, ns):
    """Name -> pod of the namespace."""
    return {p.metadata.name: p for p in c.core.list_namespaced_pod(ns).items}


def kubelet(c, ns, ready=True, only=None):
    """One pass of the simulated kubelets: bound pods become Running (and
    Ready unless told otherwise), terminating pods go away."""
    for name, p in pods(c, ns).items():
        if only is not None and name not in only:
            continue
        if p.metadata.deletion_timestamp:
            try:
                c.core.delete_namespaced_pod(name, ns, grace_period_seconds=0)
            except ApiException as e:
                assert e.status == 404
        elif p.spec.node_name and p.status.phase != "Running":
            t = now()
            _ip[0] += 1
            st = "True" if ready else "False"
            c.core.patch_namespaced_pod_status(name, ns, {"status": {
                "phase": "Running", "podIP": f"10.244.0.{_ip[0] % 250}", "startTime": t, "conditions": [
                    {"type": "Ready", "status": st, "lastTransitionTime": t},
                    {"type": "ContainersReady", "status": st, "lastTransitionTime": t}]}})


def settle(c, ns, want, timeout=40):
    """Plays the kubelet until the namespace's live pods are exactly want
    (names), all Running and Ready."""
    def done():
        kubelet(c, ns)
        ps = pods(c, ns)
        return set(ps) == set(want) and all(
            p.status.phase == "Running" and not p.metadata.deletion_timestamp for p in ps.values())
    wait(done, timeout, what=f"pods {sorted(want)}")


def sts(name, replicas=3, policy=None, strategy=None, claims=True, retention=None, image="busybox:1.36", **spec):
    s = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
         "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"containers": [{"name": "c", "image": image}]}}}}
    if claims:
        s["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data", "labels": {"tier": "db"}},
                                              "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "1Gi"}}}}]
    if policy:
        s["spec"]["podManagementPolicy"] = policy
    if strategy:
        s["spec"]["updateStrategy"] = strategy
    if retention:
        s["spec"]["persistentVolumeClaimRetentionPolicy"] = retention
    s["spec"].update(spec)
    return json.dumps(s)


def status(c, ns, name):
    s = c.apps.read_namespaced_stateful_set_status(name, ns)
    return c.apps.api_client.sanitize_for_serialization(s).get("status", {})


def claims(c, ns):
    return {x.metadata.name: x for x in c.core.list_namespaced_persistent_volume_claim(ns).items}


def test_ordered_identity_claims_scale_and_printing(cluster):
    c = cluster
    ns = "sts-ordered"
    c.kubectl("create", "namespace", ns)
    c.kubectl("-n", ns, "create", "service", "clusterip", "web", "--clusterip=None", "--tcp=80:80")
    c.kubectl("-n", ns, "create", "-f", "-", input=sts("web"))
    # defaults as upstream's SetDefaults_StatefulSet
    s = c.kjson("-n", ns, "get", "sts", "web")
    assert s["spec"]["podManagementPolicy"] == "OrderedReady"
    assert s["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert s["spec"]["revisionHistoryLimit"] == 10
    assert s["spec"]["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert s["spec"]["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    assert s["metadata"]["generation"] == 1

    # OrderedReady: web-1 waits for web-0 to be Running and Ready
    wait(lambda: "web-0" in pods(c, ns), what="web-0")
    # passes of the simulated kubelet until web-0 is bound (its claim's VolumeBinding first) and Running
    wait(lambda: (kubelet(c, ns, ready=False), pods(c, ns)["web-0"].status.phase == "Running")[1],
         what="web-0 running")
    assert set(pods(c, ns)) == {"web-0"}
    assert set(claims(c, ns)) == {"data-web-0"}
    c.core.patch_namespaced_pod_status("web-0", ns, {"status": {"conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": now()}]}})
    wait(lambda: "web-1" in pods(c, ns), what="web-1 after web-0 is ready")
    assert "web-2" not in pods(c, ns)
    settle(c, ns, ["web-0", "web-1", "web-2"])

    p = pods(c, ns)["web-1"]
    crs = c.kjson("-n", ns, "get", "controllerrevisions")["items"]
    assert len(crs) == 1 and crs[0]["revision"] == 1
    rev = crs[0]["metadata"]["name"]
    assert rev == "web-" + crs[0]["metadata"]["labels"]["controller-revision-hash"]
    assert p.metadata.labels == {"app": "web", "controller-revision-hash": rev,
                                 "statefulset.kubernetes.io/pod-name": "web-1", "apps.kubernetes.io/pod-index": "1"}
    assert p.spec.hostname == "web-1" and p.spec.subdomain == "web"
    assert [(v.name, v.persistent_volume_claim.claim_name) for v in p.spec.volumes
            if v.persistent_volume_claim] == [("data", "data-web-1")]
    ref = p.metadata.owner_references[0]
    assert (ref.kind, ref.name, ref.controller) == ("StatefulSet", "web", True)
    cl = claims(c, ns)
    assert set(cl) == {"data-web-0", "data-web-1", "data-web-2"}
    assert cl["data-web-1"].metadata.labels == {"app": "web", "tier": "db"}
    assert not cl["data-web-1"].metadata.owner_references  # Retain/Retain: nobody's
    assert cl["data-web-1"].status.phase == "Pending"
    assert cl["data-web-1"].spec.resources.requests == {"storage": "1Gi"}

    st = wait(lambda: (lambda s: s.get("readyReplicas") == 3 and s)(status(c, ns, "web")), what="status")
    assert st == {"observedGeneration": 1, "replicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                  "currentReplicas": 3, "updatedReplicas": 3, "currentRevision": rev, "updateRevision": rev,
                  "collisionCount": 0}
    # the headless Service names each pod: hostname on its endpoint
    eps = wait(lambda: (lambda sl: sl and len(sl[0].get("endpoints") or []) == 3 and sl)(
        c.kjson("-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=web")["items"]),
        what="endpoints")
    assert sorted(e.get("hostname") for e in eps[0]["endpoints"]) == ["web-0", "web-1", "web-2"]

    # printing: NAME READY AGE, wide CONTAINERS IMAGES; get all; describe
    out = c.kubectl("-n", ns, "get", "sts").stdout.splitlines()
    assert out[0].split() == ["NAME", "READY", "AGE"] and out[1].split()[:2] == ["web", "3/3"]
    wide = c.kubectl("-n", ns, "get", "statefulsets.apps", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    assert wide[1].split()[-2:] == ["c", "busybox:1.36"]
    assert "statefulset.apps/web" in c.kubectl("-n", ns, "get", "all").stdout
    desc = c.kubectl("-n", ns, "describe", "sts", "web").stdout
    assert "Pods Status:" in desc and "3 Running" in desc
    events = c.kjson("-n", ns, "get", "events", "--field-selector", "involvedObject.name=web")["items"]
    msgs = [e["message"] for e in sorted(events, key=lambda e: e["metadata"]["creationTimestamp"])]
    assert "create Claim data-web-0 Pod web-0 in StatefulSet web success" in msgs
    assert "create Pod web-2 in StatefulSet web successful" in msgs
    # a RollingUpdate with a partition (0 by default) reads as kubectl's partitioned roll out
    assert c.kubectl("-n", ns, "rollout", "status", "sts/web").stdout == \
        "partitioned roll out complete: 3 new pods have been updated...\n"

    # scale down: highest ordinal first, one at a time; claims stay
    c.kubectl("-n", ns, "scale", "sts", "web", "--replicas=1")
    wait(lambda: pods(c, ns)["web-2"].metadata.deletion_timestamp, what="web-2 terminating")
    assert not pods(c, ns)["web-1"].metadata.deletion_timestamp
    settle(c, ns, ["web-0"])
    assert set(claims(c, ns)) == {"data-web-0", "data-web-1", "data-web-2"}
    sc = c.apps.read_namespaced_stateful_set_scale("web", ns)
    assert sc.spec.replicas == 1 and sc.status.selector == "app=web"
    # and up again: web-1 comes back with its claim
    c.apps.patch_namespaced_stateful_set_scale("web", ns, {"spec": {"replicas": 2}})
    settle(c, ns, ["web-0", "web-1"])
    assert [v.persistent_volume_claim.claim_name for v in pods(c, ns)["web-1"].spec.volumes
            if v.persistent_volume_claim] == ["data-web-1"]
    wait(lambda: status(c, ns, "web").get("readyReplicas") == 2, what="2 ready")

    # deleting the set takes its pods (garbage collector), not its claims
    c.kubectl("-n", ns, "delete", "sts", "web", "--wait=false")
    wait(lambda: (kubelet(c, ns), not pods(c, ns))[1], what="pods gone")
    assert set(claims(c, ns)) == {"data-web-0", "data-web-1", "data-web-2"}


def test_partition_rollout_history_and_undo(cluster):
    c = cluster
    ns = "sts-roll"
    c.kubectl("create", "namespace", ns)
    c.kubectl("-n", ns, "create", "-f", "-", input=sts("db", claims=False, policy="Parallel"))
    settle(c, ns, ["db-0", "db-1", "db-2"])
    rev1 = wait(lambda: status(c, ns, "db").get("updateRevision"), what="revision")

    # partition 2: only db-2 takes the new template
    c.kubectl("-n", ns, "patch", "sts", "db", "--type=merge", "-p", json.dumps(
        {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 2}}}}))
    c.kubectl("-n", ns, "set", "image", "sts/db", "c=busybox:1.37")
    wait(lambda: (kubelet(c, ns), pods(c, ns).get("db-2") and
                  pods(c, ns)["db-2"].spec.containers[0].image == "busybox:1.37" and
                  pods(c, ns)["db-2"].status.phase == "Running")[1], what="db-2 updated")
    st = wait(lambda: (lambda s: s.get("updatedReplicas") == 1 and s.get("readyReplicas") == 3 and s)(
        status(c, ns, "db")), what="partitioned status")
    rev2 = st["updateRevision"]
    assert rev2 != rev1 and st["currentRevision"] == rev1 and st["currentReplicas"] == 2
    assert [pods(c, ns)[n].spec.containers[0].image for n in ("db-0", "db-1")] == ["busybox:1.36"] * 2
    # a deleted pod below the partition comes back at the current revision
    c.core.delete_namespaced_pod("db-0", ns, grace_period_seconds=0)
    wait(lambda: (kubelet(c, ns), pods(c, ns).get("db-0") and
                  pods(c, ns)["db-0"].status.phase == "Running")[1], what="db-0 back")
    p0 = pods(c, ns)["db-0"]
    assert p0.spec.containers[0].image == "busybox:1.36"
    assert p0.metadata.labels["controller-revision-hash"] == rev1
    out = c.kubectl("-n", ns, "rollout", "status", "sts/db", "--watch=false").stdout
    assert "partitioned roll out complete: 1 new pods have been updated" in out

    # partition 0: the rest, highest ordinal first
    c.kubectl("-n", ns, "patch", "sts", "db", "--type=merge", "-p", json.dumps(
        {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}}))
    wait(lambda: (kubelet(c, ns), pods(c, ns).get("db-1") and pods(c, ns)["db-1"].metadata.deletion_timestamp
                  or pods(c, ns).get("db-1") and
                  pods(c, ns)["db-1"].metadata.labels["controller-revision-hash"] == rev2)[1],
         what="db-1 replaced")
    assert pods(c, ns)["db-0"].metadata.labels["controller-revision-hash"] == rev1 or \
        pods(c, ns)["db-0"].metadata.deletion_timestamp is None
    st = wait(lambda: (kubelet(c, ns), (lambda s: s.get("currentRevision") == rev2 and
                                        s.get("updatedReplicas") == 3 and s.get("readyReplicas") == 3 and s)(
        status(c, ns, "db")))[1], what="rolled out")
    assert st["currentReplicas"] == 3
    assert all(p.spec.containers[0].image == "busybox:1.37" for p in pods(c, ns).values())
    assert "3 new pods have been updated" in c.kubectl("-n", ns, "rollout", "status", "sts/db").stdout

    hist = c.kubectl("-n", ns, "rollout", "history", "sts/db").stdout
    assert "REVISION" in hist and "1 " in hist and "2 " in hist
    c.kubectl("-n", ns, "rollout", "undo", "sts/db")
    st = wait(lambda: (kubelet(c, ns), (lambda s: s.get("currentRevision") == rev1 and
                                        s.get("updatedReplicas") == 3 and s.get("readyReplicas") == 3 and s)(
        status(c, ns, "db")))[1], what="undone")
    assert all(p.spec.containers[0].image == "busybox:1.36" for p in pods(c, ns).values())
    crs = {x["metadata"]["name"]: x["revision"] for x in
           c.kjson("-n", ns, "get", "controllerrevisions")["items"]}
    assert crs == {rev1: 3, rev2: 2}
    c.kubectl("-n", ns, "delete", "sts", "db", "--wait=false")
    wait(lambda: (kubelet(c, ns), not pods(c, ns))[1], what="pods gone")


def test_parallel_ondelete_max_unavailable_and_retention(cluster):
    c = cluster
    ns = "sts-par"
    c.kubectl("create", "namespace", ns)
    # Parallel: every pod at once, none ready; ordinals from 5
    c.kubectl("-n", ns, "create", "-f", "-", input=sts(
        "q", replicas=3, policy="Parallel", strategy={"type": "OnDelete"}, ordinals={"start": 5},
        retention={"whenDeleted": "Delete", "whenScaled": "Delete"}))
    wait(lambda: set(pods(c, ns)) == {"q-5", "q-6", "q-7"}, what="three pods at once")
    s = c.kjson("-n", ns, "get", "sts", "q")
    cl = claims(c, ns)
    assert set(cl) == {"data-q-5", "data-q-6", "data-q-7"}
    refs = cl["data-q-6"].metadata.owner_references
    assert [(r.kind, r.name, r.uid) for r in refs] == [("StatefulSet", "q", s["metadata"]["uid"])]
    settle(c, ns, ["q-5", "q-6", "q-7"])

    # OnDelete: a new template replaces nothing until a pod is deleted
    c.kubectl("-n", ns, "set", "image", "sts/q", "c=busybox:1.37")
    wait(lambda: status(c, ns, "q").get("observedGeneration") == 2, what="observed")
    st = status(c, ns, "q")
    assert st["updateRevision"] != st["currentRevision"] and st["updatedReplicas"] == 0
    assert all(p.spec.containers[0].image == "busybox:1.36" for p in pods(c, ns).values())
    c.core.delete_namespaced_pod("q-6", ns, grace_period_seconds=0)
    wait(lambda: (kubelet(c, ns), pods(c, ns).get("q-6") and
                  pods(c, ns)["q-6"].spec.containers[0].image == "busybox:1.37")[1], what="q-6 updated")
    wait(lambda: status(c, ns, "q").get("updatedReplicas") == 1, what="1 updated")

    # whenScaled Delete: the condemned ordinal's claim goes with its pod
    c.kubectl("-n", ns, "scale", "sts", "q", "--replicas=2")
    settle(c, ns, ["q-5", "q-6"])
    wait(lambda: set(claims(c, ns)) == {"data-q-5", "data-q-6"}, what="data-q-7 deleted")

    # RollingUpdate with maxUnavailable 2 of 4: two old pods go at once
    c.kubectl("-n", ns, "patch", "sts", "q", "--type=merge", "-p", json.dumps(
        {"spec": {"replicas": 4, "updateStrategy": {"type": "RollingUpdate"}}}))
    wait(lambda: (kubelet(c, ns), (lambda s: s.get("updatedReplicas") == 4 and s.get("readyReplicas") == 4 and
                                   s["currentRevision"] == s["updateRevision"])(status(c, ns, "q")))[1],
         what="four pods at the OnDelete template")
    c.kubectl("-n", ns, "patch", "sts", "q", "--type=merge", "-p", json.dumps(
        {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0, "maxUnavailable": 2}},
                  "template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.38"}]}}}}))
    going = wait(lambda: (lambda ps: len([p for p in ps.values() if p.metadata.deletion_timestamp]) == 2 and ps)(
        pods(c, ns)), what="two pods terminating at once")
    assert {n for n, p in going.items() if p.metadata.deletion_timestamp} == {"q-7", "q-8"}
    wait(lambda: (kubelet(c, ns), (lambda s: s.get("updatedReplicas") == 4 and s.get("readyReplicas") == 4)(
        status(c, ns, "q")))[1], what="all updated")

    # whenDeleted Delete: the claims go with the set
    c.kubectl("-n", ns, "delete", "sts", "q", "--wait=false")
    wait(lambda: (kubelet(c, ns), not pods(c, ns) and not claims(c, ns))[1], what="pods and claims gone")


def test_validation_and_immutable_fields(cluster):
    c = cluster
    ns = "sts-val"
    c.kubectl("create", "namespace", ns)
    bad = json.loads(sts("v", podManagementPolicy="Sometimes"))
    bad["spec"]["updateStrategy"] = {"type": "OnDelete", "rollingUpdate": {"partition": 1}}
    bad["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Keep"}
    bad["spec"]["replicas"] = -1
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    assert 'The StatefulSet "v" is invalid' in r.stderr
    assert "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'" in r.stderr
    assert "spec.updateStrategy.rollingUpdate: Invalid value" in r.stderr
    assert "only allowed for updateStrategy 'RollingUpdate'" in r.stderr
    assert 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep"' in r.stderr
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in r.stderr

    c.kubectl("-n", ns, "create", "-f", "-", input=sts("v", replicas=0, claims=False))
    r = c.kubectl("-n", ns, "patch", "sts", "v", "--type=merge", "-p", '{"spec":{"serviceName":"other"}}',
                  check=False)
    assert r.returncode != 0 and "spec: Forbidden: updates to statefulset spec for fields other than" in r.stderr
    r = c.kubectl("-n", ns, "scale", "sts", "v", "--replicas=-2", check=False)
    assert r.returncode != 0
    # the largest replicas: OrderedReady makes v-0 and waits, the server stays well
    c.kubectl("-n", ns, "scale", "sts", "v", "--replicas=2147483647")
    wait(lambda: status(c, ns, "v").get("replicas") == 1, what="v-0 only")
    assert set(pods(c, ns)) == {"v-0"}
    c.kubectl("-n", ns, "scale", "sts", "v", "--replicas=0")
    wait(lambda: (kubelet(c, ns), not pods(c, ns) and status(c, ns, "v").get("replicas") == 0)[1],
         what="v-0 gone")
    # the Python client reads the typed object back
    s = c.apps.read_namespaced_stateful_set("v", ns)
    assert s.spec.service_name == "v" and s.spec.update_strategy.rolling_update.partition == 0
    assert s.status.replicas == 0
    lst = c.apps.list_stateful_set_for_all_namespaces()
    assert "v" in [x.metadata.name for x in lst.items]
    # upstream's bootstrap role and binding of the controller
    sa = "--as=system:serviceaccount:kube-system:statefulset-controller"
    assert c.kubectl("auth", "can-i", "update", "statefulsets", "--subresource=status", "-n", ns, sa).stdout.strip() == "yes"
    assert c.kubectl("auth", "can-i", "create", "persistentvolumeclaims", "-n", ns, sa).stdout.strip() == "yes"
    assert c.kubectl("auth", "can-i", "delete", "statefulsets", "-n", ns, sa, check=False).stdout.strip() == "no"
