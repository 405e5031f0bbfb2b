"""ReplicationControllers, PodDisruptionBudgets, the eviction subresource and
`kubectl drain` against `skiff server --no-agent` with simulated nodes: the
test creates the Node objects, the scheduler binds the pods, and a thread
plays the kubelets (bound pods turn Running and Ready, terminating pods go
away) (issue 19, points 3 and 4)."""
import datetime
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import Cluster, KUBECTL, SLOW


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def wait(fn, timeout=40, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def is_ready(p):
    return any(c.type == "Ready" and c.status == "True" for c in (p.status.conditions or []))


class Kubelets(threading.Thread):
    """The simulated kubelets of every node: one pass every 0.2 s."""

    def __init__(self, api):
        super().__init__(daemon=True)
        self.core = client.CoreV1Api(api)
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.one_pass()
            except Exception:  # a pod gone between list and write: next pass
                pass
            self.stop.wait(0.2)

    def one_pass(self):
        for p in self.core.list_pod_for_all_namespaces().items:
            ns, name = p.metadata.namespace, p.metadata.name
            if p.metadata.deletion_timestamp:
                self.core.delete_namespaced_pod(name, ns, grace_period_seconds=0)
            elif (p.metadata.labels or {}).get("sim") == "unready":
                continue  # the test sets this pod's status
            elif p.spec.node_name and not is_ready(p) and p.status.phase not in ("Succeeded", "Failed"):
                t = now()
                self.core.patch_namespaced_pod_status(name, ns, {"status": {"phase": "Running", "conditions": [
                    {"type": "Ready", "status": "True", "lastTransitionTime": t},
                    {"type": "ContainersReady", "status": "True", "lastTransitionTime": t}]}})


def add_node(c, name):
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}))
    t = now()
    res = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    c.kubectl("patch", "node", name, "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
        "capacity": res, "allocatable": res,
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                        "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))


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
    add_node(c, "n1")
    add_node(c, "n2")
    c.api = c.api_client()
    k = Kubelets(c.api)
    k.start()
    yield c
    k.stop.set()
    k.join(5)
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def live_pods(core, ns, sel):
    return [p for p in core.list_namespaced_pod(ns, label_selector=sel).items if not p.metadata.deletion_timestamp]


def ready_pods(core, ns, sel):
    return [p for p in live_pods(core, ns, sel) if is_ready(p)]


def make_ns(c, name):
    c.kubectl("create", "namespace", name)
    return name


def rc_manifest(name, replicas):
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
            "spec": {"replicas": replicas,
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


def test_replication_controller(cluster):
    c, core = cluster, client.CoreV1Api(cluster.api)
    ns = make_ns(c, "rc")
    rc = core.create_namespaced_replication_controller(ns, rc_manifest("web", 2))
    # defaulted from the template: the selector and the object's labels
    assert rc.spec.selector == {"app": "web"} and rc.metadata.labels == {"app": "web"}
    assert rc.status.replicas == 0
    wait(lambda: len(ready_pods(core, ns, "app=web")) == 2, what="2 ready pods")
    st = wait(lambda: (s := core.read_namespaced_replication_controller_status("web", ns).status)
              .ready_replicas == 2 and s, what="rc status")
    assert st.replicas == 2 and st.fully_labeled_replicas == 2 and st.observed_generation == 1
    pods = live_pods(core, ns, "app=web")
    ref = pods[0].metadata.owner_references[0]
    assert (ref.api_version, ref.kind, ref.name, ref.controller) == ("v1", "ReplicationController", "web", True)

    out = c.kubectl("-n", ns, "get", "rc").stdout.splitlines()
    assert out[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert out[1].split()[:4] == ["web", "2", "2", "2"]
    assert "replicationcontroller/web" in c.kubectl("-n", ns, "get", "all").stdout

    # scale through kubectl and the Python client's scale subresource
    c.kubectl("-n", ns, "scale", "rc", "web", "--replicas=3")
    wait(lambda: len(ready_pods(core, ns, "app=web")) == 3, what="3 pods")
    sc = core.read_namespaced_replication_controller_scale("web", ns)
    assert sc.spec.replicas == 3 and sc.status.selector == "app=web"
    # a deleted pod is replaced
    gone = live_pods(core, ns, "app=web")[0].metadata.name
    core.delete_namespaced_pod(gone, ns)
    wait(lambda: len(ready_pods(core, ns, "app=web")) == 3 and
         gone not in [p.metadata.name for p in live_pods(core, ns, "app=web")], what="replacement")
    core.patch_namespaced_replication_controller_scale("web", ns, {"spec": {"replicas": 1}})
    wait(lambda: len(live_pods(core, ns, "app=web")) == 1, what="scaled down to 1")

    # validation as upstream's ValidateReplicationController
    bad = rc_manifest("bad", 1)
    bad["spec"]["selector"] = {"app": "other"}
    with pytest.raises(ApiException) as e:
        core.create_namespaced_replication_controller(ns, bad)
    body = json.loads(e.value.body)
    assert e.value.status == 422 and body["details"]["causes"][0]["field"] == "spec.template.metadata.labels"
    assert "`selector` does not match template `labels`" in body["message"]

    # deleting the controller removes its pods (the garbage collector)
    core.delete_namespaced_replication_controller("web", ns)
    wait(lambda: not core.list_namespaced_pod(ns, label_selector="app=web").items, what="pods collected")


def pdb_manifest(name, app, **spec):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": dict({"selector": {"matchLabels": {"app": app}}}, **spec)}


def evict(core, ns, name, dry_run=None):
    body = client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=ns))
    return core.create_namespaced_pod_eviction(name, ns, body, dry_run=dry_run)


def test_budgets_and_eviction(cluster):
    c, core = cluster, client.CoreV1Api(cluster.api)
    policy = client.PolicyV1Api(cluster.api)
    ns = make_ns(c, "pdb")
    core.create_namespaced_replication_controller(ns, rc_manifest("db", 3))
    wait(lambda: len(ready_pods(core, ns, "app=db")) == 3, what="3 ready pods")
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("db", "db", maxUnavailable=1))
    # minAvailable as a percentage rounds up: 50% of 3 is 2
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("half", "none", minAvailable="50%"))

    def status(name, **want):
        s = policy.read_namespaced_pod_disruption_budget_status(name, ns).status
        return s if all(getattr(s, k) == v for k, v in want.items()) else None

    st = wait(lambda: status("db", disruptions_allowed=1, current_healthy=3), what="pdb status")
    assert (st.expected_pods, st.desired_healthy, st.observed_generation) == (3, 2, 1)
    cond = [x for x in st.conditions if x.type == "DisruptionAllowed"][0]
    assert (cond.status, cond.reason) == ("True", "SufficientPods")
    out = c.kubectl("-n", ns, "get", "pdb").stdout.splitlines()
    assert out[0].split() == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"]
    assert out[1].split()[:4] == ["db", "N/A", "1", "1"]
    st = wait(lambda: status("half", expected_pods=0), what="empty budget")
    assert st.disruptions_allowed == 0 and st.current_healthy == 0

    # validation: minAvailable xor maxUnavailable, the eviction policy's values
    for spec, field in (({"minAvailable": 1, "maxUnavailable": 1}, "spec"),
                        ({"minAvailable": "150%"}, "spec.minAvailable"),
                        ({"maxUnavailable": -1}, "spec.maxUnavailable"),
                        ({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"},
                         "spec.unhealthyPodEvictionPolicy")):
        with pytest.raises(ApiException) as e:
            policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("bad", "db", **spec))
        assert e.value.status == 422 and json.loads(e.value.body)["details"]["causes"][0]["field"] == field

    pods = sorted(p.metadata.name for p in ready_pods(core, ns, "app=db"))
    # no node takes a replacement until the refusal below is checked
    c.kubectl("cordon", "n1", "n2")
    # a dry run takes nothing
    evict(core, ns, pods[0], dry_run="All")
    assert status("db", disruptions_allowed=1) and pods[0] in [p.metadata.name for p in live_pods(core, ns, "app=db")]
    evict(core, ns, pods[0])
    st = policy.read_namespaced_pod_disruption_budget_status("db", ns).status
    # the eviction took the disruption (disruptedPods names the pod until it is gone)
    assert st.disruptions_allowed == 0 and set(st.disrupted_pods or {}) <= {pods[0]}
    assert [x.reason for x in st.conditions if x.type == "DisruptionAllowed"] == ["InsufficientPods"]
    wait(lambda: status("db", current_healthy=2, disruptions_allowed=0), what="budget after the eviction")
    with pytest.raises(ApiException) as e:
        evict(core, ns, pods[1])
    body = json.loads(e.value.body)
    assert e.value.status == 429 and body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"] == [{"reason": "DisruptionBudget",
                                          "message": "The disruption budget db needs 2 healthy pods and has 2 "
                                                     "currently"}]
    # the replacement turns Ready: the budget allows one again and the eviction goes through
    c.kubectl("uncordon", "n1", "n2")
    wait(lambda: status("db", disruptions_allowed=1, current_healthy=3), what="budget back")
    assert not (policy.read_namespaced_pod_disruption_budget_status("db", ns).status.disrupted_pods or {})
    evict(core, ns, pods[1])
    wait(lambda: pods[1] not in [p.metadata.name for p in core.list_namespaced_pod(ns).items], what="evicted")

    # two budgets over one pod: the eviction subresource refuses
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("db2", "db", minAvailable=0))
    victim = ready_pods(core, ns, "app=db")[0].metadata.name
    with pytest.raises(ApiException) as e:
        evict(core, ns, victim)
    assert e.value.status == 500 and "more than one PodDisruptionBudget" in json.loads(e.value.body)["message"]
    policy.delete_namespaced_pod_disruption_budget("db2", ns)
    # an unready pod: kept while the budget is short (IfHealthyBudget), let go with AlwaysAllow
    core.create_namespaced_pod(ns, {"metadata": {"name": "sick", "labels": {"app": "sick", "sim": "unready"}},
                                    "spec": {"nodeName": "n2",
                                             "containers": [{"name": "c", "image": "busybox:1.36"}]}})
    core.patch_namespaced_pod_status("sick", ns, {"status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "False", "lastTransitionTime": now()}]}})
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("sick", "sick", minAvailable=1))
    wait(lambda: status("sick", expected_pods=1, desired_healthy=1), what="sick budget")
    with pytest.raises(ApiException) as e:
        evict(core, ns, "sick")
    assert e.value.status == 429 and "needs 1 healthy pods and has 0 currently" in e.value.body
    policy.patch_namespaced_pod_disruption_budget("sick", ns, {"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}})
    evict(core, ns, "sick")
    assert status("sick", disruptions_allowed=0)
    # a DisruptionTarget condition whose pod was not deleted within two minutes turns False
    core.create_namespaced_pod(ns, {"metadata": {"name": "spared", "labels": {"sim": "unready"}},
                                    "spec": {"nodeName": "n2",
                                             "containers": [{"name": "c", "image": "busybox:1.36"}]}})
    core.patch_namespaced_pod_status("spared", ns, {"status": {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
         "message": "Eviction API: evicting", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})

    def target(name):
        return [x.status for x in core.read_namespaced_pod_status(name, ns).status.conditions or []
                if x.type == "DisruptionTarget"]
    wait(lambda: target("spared") == ["False"], what="stale DisruptionTarget cleared")
    # a pod no budget selects goes at once; so does a pod still Pending
    core.create_namespaced_pod(ns, {"metadata": {"name": "lone"}, "spec": {
        "nodeName": "n1", "containers": [{"name": "c", "image": "busybox:1.36"}]}})
    wait(lambda: is_ready(core.read_namespaced_pod("lone", ns)), what="lone pod ready")
    rv = core.read_namespaced_pod("lone", ns).metadata.resource_version

    def evict_at(version):
        return core.create_namespaced_pod_eviction("lone", ns, client.V1Eviction(
            metadata=client.V1ObjectMeta(name="lone", namespace=ns),
            delete_options=client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version=version))))
    with pytest.raises(ApiException) as e:
        evict_at(str(int(rv) - 1))
    assert e.value.status == 409 and "Precondition failed" in json.loads(e.value.body)["message"]
    evict_at(rv)
    wait(lambda: "lone" not in [p.metadata.name for p in core.list_namespaced_pod(ns).items], what="lone gone")
    c.kubectl("-n", ns, "delete", "pdb,rc", "--all")


def kubectl_bg(c, *args):
    cmd = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache] + list(args)
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_drain(cluster):
    c, core = cluster, client.CoreV1Api(cluster.api)
    apps, policy = client.AppsV1Api(cluster.api), client.PolicyV1Api(cluster.api)
    ns = make_ns(c, "drain")
    c.kubectl("cordon", "n2")
    apps.create_namespaced_deployment(ns, {
        "metadata": {"name": "api"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}},
                 "template": {"metadata": {"labels": {"app": "api"}}, "spec": {
                     "containers": [{"name": "c", "image": "busybox:1.36",
                                     "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
                     "volumes": [{"name": "scratch", "emptyDir": {}}]}}}})
    apps.create_namespaced_daemon_set(ns, {
        "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
                     "tolerations": [{"operator": "Exists"}],
                     "containers": [{"name": "c", "image": "busybox:1.36"}]}}}})
    core.create_namespaced_pod(ns, {"metadata": {"name": "bare", "labels": {"app": "bare"}}, "spec": {
        "nodeName": "n1", "containers": [{"name": "c", "image": "busybox:1.36"}]}})
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("api", "api", minAvailable=2))
    wait(lambda: len(ready_pods(core, ns, "app=api")) == 2 and len(ready_pods(core, ns, "app=agent")) == 2,
         what="deployment and daemon pods ready")
    assert {p.spec.node_name for p in live_pods(core, ns, "app=api")} == {"n1"}
    wait(lambda: policy.read_namespaced_pod_disruption_budget("api", ns).status.current_healthy == 2,
         what="pdb counts the pods")
    c.kubectl("uncordon", "n2")

    # kubectl's own refusals: daemon pods, local storage, unmanaged pods
    r = c.kubectl("drain", "n1", check=False)
    assert r.returncode != 0
    for text in ("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)",
                 "cannot delete Pods with local storage (use --delete-emptydir-data to override)",
                 "cannot delete Pods that declare no controller (use --force to override)"):
        assert text in r.stderr, r.stderr
    assert core.read_node("n1").spec.unschedulable is True

    # the budget allows no disruption: drain retries until a third replica is Ready elsewhere
    d = kubectl_bg(c, "drain", "n1", "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=90s")
    wait(lambda: not core.list_namespaced_pod(ns, label_selector="app=bare").items, what="bare pod evicted")
    # the budget still blocks: both api pods remain on n1
    assert {p.spec.node_name for p in live_pods(core, ns, "app=api")} == {"n1"} and d.poll() is None
    apps.patch_namespaced_deployment_scale("api", ns, {"spec": {"replicas": 3}})
    out, _ = d.communicate(timeout=120)
    assert d.returncode == 0, out
    assert "Cannot evict pod as it would violate the pod's disruption budget." in out
    assert "will retry after 5s" in out and "node/n1 drained" in out
    assert "ignoring DaemonSet-managed Pods" in out and "deleting Pods that declare no controller" in out
    wait(lambda: len(ready_pods(core, ns, "app=api")) == 3, what="replicas back")
    on = {p.metadata.name: p.spec.node_name for p in live_pods(core, ns, "app=api")}
    assert set(on.values()) == {"n2"}, on
    # the DaemonSet's pod stays on the drained node
    assert "n1" in {p.spec.node_name for p in live_pods(core, ns, "app=agent")}
    c.kubectl("uncordon", "n1")
    assert not core.read_node("n1").spec.unschedulable


def test_budget_over_a_statefulset(cluster):
    """A percentage budget over a StatefulSet's pods counts the set's scale
    (upstream's StatefulSet finder)."""
    c, core = cluster, client.CoreV1Api(cluster.api)
    policy = client.PolicyV1Api(cluster.api)
    ns = make_ns(c, "pdb-sts")
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 2, "serviceName": "web", "podManagementPolicy": "Parallel",
                 "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}))
    wait(lambda: len(ready_pods(core, ns, "app=web")) == 2, what="2 ready pods")
    policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest("web", "web", maxUnavailable="50%"))

    def status():
        s = policy.read_namespaced_pod_disruption_budget_status("web", ns).status
        return s if s.expected_pods == 2 and s.disruptions_allowed == 1 else None

    st = wait(status, what="the budget counting the set's scale")
    assert st.desired_healthy == 1 and st.current_healthy == 2
    assert [x.reason for x in st.conditions if x.type == "DisruptionAllowed"] == ["SufficientPods"]


def test_budget_over_custom_scale_owners(cluster):
    """Pods owned by a custom resource count through its CRD's scale
    subresource (upstream's getScaleController); a kind without one, or an
    unknown kind, fails the budget safe (SyncFailed, no disruptions)."""
    c, core = cluster, client.CoreV1Api(cluster.api)
    policy = client.PolicyV1Api(cluster.api)
    ns = make_ns(c, "pdb-custom")

    def crd(kind, plural, scale):
        v = {"name": "v1", "served": True, "storage": True,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
        if scale:
            v["subresources"] = {"scale": {"specReplicasPath": ".spec.replicas",
                                           "statusReplicasPath": ".status.replicas"}}
        return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{plural}.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced", "versions": [v],
                         "names": {"kind": kind, "plural": plural, "singular": kind.lower()}}}
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        crd("Widget", "widgets", True), crd("Gadget", "gadgets", False)]}))
    c.kubectl("wait", "--for", "condition=Established", "crd/widgets.example.com", "crd/gadgets.example.com")
    owners = {}
    for kind, name in (("Widget", "w"), ("Gadget", "g")):
        out = c.kubectl("-n", ns, "create", "-o", "json", "-f", "-", input=json.dumps({
            "apiVersion": "example.com/v1", "kind": kind, "metadata": {"name": name}, "spec": {"replicas": 4}}))
        owners[kind] = json.loads(out.stdout)["metadata"]["uid"]

    def pod(name, app, kind, owner, uid):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": app},
                             "ownerReferences": [{"apiVersion": "example.com/v1", "kind": kind, "name": owner,
                                                  "uid": uid, "controller": True}]},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        pod("w-0", "w", "Widget", "w", owners["Widget"]), pod("w-1", "w", "Widget", "w", owners["Widget"]),
        pod("g-0", "g", "Gadget", "g", owners["Gadget"]),
        pod("n-0", "n", "Nope", "x", "00000000-0000-0000-0000-000000000001")]}))
    wait(lambda: len(ready_pods(core, ns, "app in (w,g)")) == 3, what="3 ready pods")
    for app in ("w", "g", "n"):
        policy.create_namespaced_pod_disruption_budget(ns, pdb_manifest(app, app, maxUnavailable="50%"))

    def status(name, pred):
        def f():
            s = policy.read_namespaced_pod_disruption_budget_status(name, ns).status
            return s if s.conditions and pred(s) else None
        return wait(f, what=f"budget {name}")

    # the widget's scale (4): 2 may be unavailable, 2 pods healthy → none allowed
    st = status("w", lambda s: s.expected_pods == 4)
    assert st.desired_healthy == 2 and st.current_healthy == 2 and st.disruptions_allowed == 0
    assert [x.reason for x in st.conditions if x.type == "DisruptionAllowed"] == ["InsufficientPods"]
    c.kubectl("-n", ns, "scale", "widget", "w", "--replicas=2")
    # a custom scale is not watched (as upstream): a change of the budget syncs it
    c.kubectl("-n", ns, "annotate", "pdb", "w", "touched=1")
    st = status("w", lambda s: s.expected_pods == 2 and s.disruptions_allowed == 1)
    assert st.desired_healthy == 1
    # no scale subresource, unknown kind: SyncFailed with upstream's messages
    for name, msg in (("g", "gadgets.example.com does not implement the scale subresource"),
                      ("n", 'no matches for kind "Nope" in version "example.com/v1"')):
        st = status(name, lambda s: [x for x in s.conditions if x.reason == "SyncFailed"])
        cond = [x for x in st.conditions if x.type == "DisruptionAllowed"][0]
        assert cond.status == "False" and cond.message == msg and st.disruptions_allowed == 0
