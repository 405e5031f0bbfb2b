"""DaemonSets against `skiff server --no-agent` with simulated nodes: the test
creates the Node objects, the scheduler binds the daemon pods and the test
plays the kubelet (marks pods Running/Ready, finishes terminating pods)
(issue 19: the GPU device plugin is a DaemonSet)."""
import datetime
import json
import os
import shutil
import tempfile
import time

import pytest

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
        time.sleep(0.2)
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
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def add_node(c, name, labels=None, taints=None):
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": dict({"kubernetes.io/hostname": name}, **(labels or {}))},
            "spec": {"taints": taints or []}}
    c.kubectl("create", "-f", "-", input=json.dumps(node))
    t = now()
    res = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    c.kubectl("patch", "node", name, "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
        "capacity": res, "allocatable": res,
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                        "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))


def pods(c, ns, sel):
    return c.kjson("-n", ns, "get", "pods", "-l", sel)["items"]


def live(c, ns, sel):
    return [p for p in pods(c, ns, sel) if not p["metadata"].get("deletionTimestamp")]


def by_node(c, ns, sel):
    """Node name -> live pod, once every live pod is bound."""
    ps = live(c, ns, sel)
    if any(not p["spec"].get("nodeName") for p in ps):
        return None
    return {p["spec"]["nodeName"]: p for p in ps}


def is_ready(p):
    return any(x["type"] == "Ready" and x["status"] == "True" for x in p.get("status", {}).get("conditions", []))


def kubelet(c, ns, sel):
    """One pass of the simulated kubelets: bound pods become Running and
    Ready, terminating pods go away."""
    for p in pods(c, ns, sel):
        name = p["metadata"]["name"]
        if p["metadata"].get("deletionTimestamp"):
            c.kubectl("-n", ns, "delete", "pod", name, "--force", "--grace-period=0", check=False)
        elif p["spec"].get("nodeName") and not is_ready(p) and p["status"].get("phase") != "Failed":
            t = now()
            c.kubectl("-n", ns, "patch", "pod", name, "--subresource=status", "--type=merge", "-p", json.dumps(
                {"status": {"phase": "Running", "conditions": [
                    {"type": "Ready", "status": "True", "lastTransitionTime": t},
                    {"type": "ContainersReady", "status": "True", "lastTransitionTime": t}]}}), check=False)


def ds_status(c, ns, name):
    return c.kjson("-n", ns, "get", "ds", name).get("status", {})


def make_ns(c, name):
    c.kubectl("create", "namespace", name)
    return name


def daemonset(name, image="busybox:1.36", node_selector=None, tolerations=None, strategy=None):
    spec = {"containers": [{"name": "c", "image": image}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name},
          "spec": {"selector": {"matchLabels": {"app": name}},
                   "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}
    if strategy:
        ds["spec"]["updateStrategy"] = strategy
    return json.dumps(ds)


GPU = "nvidia.com/gpu.present"


def test_gpu_plugin_pool_nodes_join_label_taint_and_cascade(cluster):
    c = cluster
    ns = make_ns(c, "ds-pool")
    for n in ("p1", "p2", "p3"):
        add_node(c, n)
    add_node(c, "g1", labels={GPU: "true"}, taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}])

    c.kubectl("-n", ns, "create", "-f", "-", input=daemonset("agent"))
    c.kubectl("-n", ns, "create", "-f", "-", input=daemonset(
        "gpu-plugin", node_selector={GPU: "true"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]))

    # the agent tolerates no gpu taint: p1..p3 only; the plugin: g1 only
    m = wait(lambda: (lambda m: m and set(m) == {"p1", "p2", "p3"} and m)(by_node(c, ns, "app=agent")),
             what="agent pods on p1..p3")
    g = wait(lambda: (lambda m: m and set(m) == {"g1"} and m)(by_node(c, ns, "app=gpu-plugin")),
             what="plugin pod on g1")
    p = g["g1"]
    crs = c.kjson("-n", ns, "get", "controllerrevisions", "-l", "app=gpu-plugin")["items"]
    assert len(crs) == 1 and crs[0]["revision"] == 1
    h = crs[0]["metadata"]["labels"]["controller-revision-hash"]
    assert crs[0]["metadata"]["name"] == "gpu-plugin-" + h
    assert p["metadata"]["labels"]["controller-revision-hash"] == h
    assert p["metadata"]["labels"]["pod-template-generation"] == "1"
    ds = c.kjson("-n", ns, "get", "ds", "gpu-plugin")
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
    assert p["metadata"]["generateName"] == "gpu-plugin-"
    ref = p["metadata"]["ownerReferences"][0]
    assert ref["kind"] == "DaemonSet" and ref["name"] == "gpu-plugin" and ref["controller"]
    terms = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["g1"]}]}]
    tols = {(t["key"], t.get("effect")) for t in p["spec"]["tolerations"]}
    assert {("nvidia.com/gpu", "NoSchedule"), ("node.kubernetes.io/not-ready", "NoExecute"),
            ("node.kubernetes.io/unreachable", "NoExecute"), ("node.kubernetes.io/disk-pressure", "NoSchedule"),
            ("node.kubernetes.io/memory-pressure", "NoSchedule"), ("node.kubernetes.io/pid-pressure", "NoSchedule"),
            ("node.kubernetes.io/unschedulable", "NoSchedule")} <= tols
    assert not any(t.get("tolerationSeconds") for t in p["spec"]["tolerations"]
                   if t["key"].startswith("node.kubernetes.io/"))

    kubelet(c, ns, "app in (agent,gpu-plugin)")
    st = wait(lambda: (lambda s: s.get("numberAvailable") == 3 and s)(ds_status(c, ns, "agent")),
              what="agent available")
    assert st["desiredNumberScheduled"] == 3 and st["currentNumberScheduled"] == 3
    assert st["numberReady"] == 3 and st["updatedNumberScheduled"] == 3 and st["numberMisscheduled"] == 0
    assert "numberUnavailable" not in st and st["observedGeneration"] == 1

    out = c.kubectl("-n", ns, "get", "ds").stdout.splitlines()
    assert out[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE", "SELECTOR",
                              "AGE"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert rows["agent"][1:7] == ["3", "3", "3", "3", "3", "<none>"]
    assert rows["gpu-plugin"][1:7] == ["1", "1", "1", "1", "1", "nvidia.com/gpu.present=true"]
    wide = c.kubectl("-n", ns, "get", "ds", "agent", "-o", "wide").stdout.splitlines()
    assert wide[0].split()[-3:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert wide[1].split()[-3:] == ["c", "busybox:1.36", "app=agent"]
    assert c.kubectl("-n", ns, "get", "all").stdout.count("daemonset.apps/") == 2

    # a GPU node joins; a pool node is labelled into the GPU pool (untainted)
    add_node(c, "g2", labels={GPU: "true"}, taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}])
    c.kubectl("label", "node", "p3", f"{GPU}=true")
    wait(lambda: (lambda m: m and set(m) == {"g1", "g2", "p3"})(by_node(c, ns, "app=gpu-plugin")),
         what="plugin pods on g1, g2, p3")

    # NoSchedule keeps what runs but places nothing new
    c.kubectl("taint", "node", "p2", "dedicated=x:NoSchedule")
    add_node(c, "p4", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])
    add_node(c, "p5")
    wait(lambda: (lambda m: m and set(m) == {"p1", "p2", "p3", "p5"})(by_node(c, ns, "app=agent")),
         what="agent on p5, kept on p2, none on p4")
    kubelet(c, ns, "app=agent")
    wait(lambda: ds_status(c, ns, "agent").get("desiredNumberScheduled") == 3 and
         ds_status(c, ns, "agent").get("numberMisscheduled") == 1, what="p2 counted misscheduled")

    # unlabelled: the pod on p3 goes
    c.kubectl("label", "node", "p3", f"{GPU}-")
    wait(lambda: (lambda m: m is not None and set(m) == {"g1", "g2"})(by_node(c, ns, "app=gpu-plugin")),
         what="plugin pod on p3 deleted")
    ev = c.kubectl("-n", ns, "events", "--for", "daemonset/gpu-plugin").stdout
    assert "SuccessfulCreate" in ev and "SuccessfulDelete" in ev

    # a failed daemon pod is replaced
    victim = by_node(c, ns, "app=agent")["p1"]["metadata"]["name"]
    c.kubectl("-n", ns, "patch", "pod", victim, "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": {"phase": "Failed", "conditions": []}}))

    def replaced():
        kubelet(c, ns, "app=agent")
        m = by_node(c, ns, "app=agent")
        return m and "p1" in m and m["p1"]["metadata"]["name"] != victim
    wait(replaced, what="failed pod on p1 replaced")
    assert "FailedDaemonPod" in c.kubectl("-n", ns, "events", "--for", "daemonset/agent").stdout

    # deleting the DaemonSet deletes its pods and revisions (garbage collector)
    c.kubectl("-n", ns, "delete", "ds", "gpu-plugin", "--wait=false")

    def gone():
        kubelet(c, ns, "app=gpu-plugin")
        return not pods(c, ns, "app=gpu-plugin") and not c.kjson(
            "-n", ns, "get", "controllerrevisions", "-l", "app=gpu-plugin")["items"]
    wait(gone, what="plugin pods and revisions gone")
    c.kubectl("taint", "node", "p2", "dedicated-")
    for n in ("p4", "p5", "g1", "g2"):
        c.kubectl("delete", "node", n)
    c.kubectl("delete", "namespace", ns, "--wait=false")


def test_rolling_update_history_undo_and_on_delete(cluster):
    c = cluster
    ns = make_ns(c, "ds-roll")
    for n in ("p1", "p2", "p3"):
        if c.kubectl("get", "node", n, check=False).returncode != 0:
            add_node(c, n)
    c.kubectl("-n", ns, "create", "-f", "-", input=daemonset("web"))
    wait(lambda: (lambda m: m and len(m) == 3)(by_node(c, ns, "app=web")), what="3 pods")
    kubelet(c, ns, "app=web")
    c.kubectl("-n", ns, "rollout", "status", "ds/web", "--timeout=30s")

    c.kubectl("-n", ns, "set", "image", "ds/web", "c=busybox:1.37")
    # never more than maxUnavailable (1) of the 3 nodes without an available pod
    deadline = time.time() + 60
    while True:
        ps = pods(c, ns, "app=web")
        up = {p["spec"].get("nodeName") for p in ps if is_ready(p) and not p["metadata"].get("deletionTimestamp")}
        assert len(up) >= 2, ps
        done = [p for p in ps if is_ready(p) and p["spec"]["containers"][0]["image"] == "busybox:1.37"]
        if len(done) == 3 and len(ps) == 3:
            break
        assert time.time() < deadline, "rolling update did not finish"
        kubelet(c, ns, "app=web")
        time.sleep(0.3)
    r = c.kubectl("-n", ns, "rollout", "status", "ds/web", "--timeout=30s")
    assert 'daemon set "web" successfully rolled out' in r.stdout
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in live(c, ns, "app=web")} == {"2"}
    ds = c.kjson("-n", ns, "get", "ds", "web")
    assert ds["metadata"]["generation"] == 2
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    hist = c.kubectl("-n", ns, "rollout", "history", "ds/web").stdout.split()
    assert hist[:4] == ["daemonset.apps/web", "REVISION", "CHANGE-CAUSE", "1"] and "2" in hist
    assert "busybox:1.36" in c.kubectl("-n", ns, "rollout", "history", "ds/web", "--revision=1").stdout

    # undo: back to revision 1's template, which becomes revision 3
    c.kubectl("-n", ns, "rollout", "undo", "ds/web")

    def undone():
        kubelet(c, ns, "app=web")
        ps = live(c, ns, "app=web")
        return len(ps) == 3 and all(p["spec"]["containers"][0]["image"] == "busybox:1.36" and is_ready(p)
                                    for p in ps)
    wait(undone, 60, what="rolled back pods")
    revs = {cr["revision"] for cr in c.kjson("-n", ns, "get", "controllerrevisions")["items"]}
    assert revs == {2, 3}
    out = c.kubectl("-n", ns, "get", "controllerrevisions").stdout.splitlines()
    assert out[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert sorted(line.split()[1:3] for line in out[1:]) == [["daemonset.apps/web", "2"],
                                                             ["daemonset.apps/web", "3"]]

    # the Python client reads the status and switches to OnDelete
    from kubernetes import client
    apps = client.AppsV1Api(c.api_client())
    ds = apps.read_namespaced_daemon_set("web", ns)
    assert ds.spec.update_strategy.rolling_update.max_unavailable == 1
    assert ds.status.desired_number_scheduled == 3 and ds.status.number_available == 3
    apps.patch_namespaced_daemon_set("web", ns, {"spec": {
        "updateStrategy": {"type": "OnDelete", "rollingUpdate": None},
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.38"}]}}}})
    gen = apps.read_namespaced_daemon_set("web", ns).metadata.generation
    wait(lambda: ds_status(c, ns, "web").get("observedGeneration") == gen, what="observed")
    assert ds_status(c, ns, "web").get("updatedNumberScheduled", 0) == 0
    assert all(p["spec"]["containers"][0]["image"] == "busybox:1.36" for p in live(c, ns, "app=web"))
    first = by_node(c, ns, "app=web")["p1"]["metadata"]["name"]
    c.kubectl("-n", ns, "delete", "pod", first, "--wait=false")

    def replaced():
        kubelet(c, ns, "app=web")
        m = by_node(c, ns, "app=web")
        return m and "p1" in m and m["p1"]["metadata"]["name"] != first and m
    m = wait(replaced, what="p1 pod re-created")
    assert m["p1"]["spec"]["containers"][0]["image"] == "busybox:1.38"
    assert m["p2"]["spec"]["containers"][0]["image"] == "busybox:1.36"
    wait(lambda: ds_status(c, ns, "web").get("updatedNumberScheduled") == 1, what="1 updated")

    # rollout restart stamps the template
    c.kubectl("-n", ns, "rollout", "restart", "ds/web")
    ann = c.kjson("-n", ns, "get", "ds", "web")["spec"]["template"]["metadata"]["annotations"]
    assert "kubectl.kubernetes.io/restartedAt" in ann
    c.kubectl("-n", ns, "delete", "ds", "web")
    wait(lambda: (kubelet(c, ns, "app=web"), not pods(c, ns, "app=web"))[1], what="pods gone")
    c.kubectl("delete", "namespace", ns, "--wait=false")


def test_daemonset_validation_and_defaults(cluster):
    c = cluster
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    apps = client.AppsV1Api(c.api_client())
    body = json.loads(daemonset("bad"))
    body["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
    with pytest.raises(ApiException) as e:
        apps.create_namespaced_daemon_set("default", body)
    assert e.value.status == 422
    st = json.loads(e.value.body)
    assert st["reason"] == "Invalid"
    assert {"reason": "FieldValueInvalid", "field": "spec.template.metadata.labels",
            "message": "Invalid value: map[string]string{\"app\":\"other\"}: "
                       "`selector` does not match template `labels`"} \
        in st["details"]["causes"]

    body = json.loads(daemonset("bad"))
    body["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    body["spec"]["updateStrategy"] = {"type": "Sometimes"}
    r = c.kubectl("create", "-f", "-", input=json.dumps(body), check=False)
    assert r.returncode != 0
    assert 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"' in r.stderr
    assert 'spec.updateStrategy.type: Unsupported value: "Sometimes": supported values: "OnDelete", ' \
        '"RollingUpdate"' in r.stderr

    body = json.loads(daemonset("zero"))
    body["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0}}
    r = c.kubectl("create", "-f", "-", input=json.dumps(body), check=False)
    assert "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0" \
        in r.stderr

    c.kubectl("create", "-f", "-", input=daemonset("ok", node_selector={"none": "here"}))
    ds = c.kjson("get", "ds", "ok")
    assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                            "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert ds["spec"]["revisionHistoryLimit"] == 10
    assert ds["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    r = c.kubectl("patch", "ds", "ok", "--type=merge", "-p",
                  json.dumps({"spec": {"selector": {"matchLabels": {"app": "ok", "x": "y"}}}}), check=False)
    assert r.returncode != 0 and "spec.selector" in r.stderr and "field is immutable" in r.stderr
    wait(lambda: ds_status(c, "default", "ok").get("observedGeneration") == 1, what="status")
    st = ds_status(c, "default", "ok")
    assert st["desiredNumberScheduled"] == 0 and st["currentNumberScheduled"] == 0
    c.kubectl("delete", "ds", "ok")


def test_rolling_update_with_max_surge(cluster):
    c = cluster
    ns = make_ns(c, "ds-surge")
    for n in ("p1", "p2", "p3"):
        if c.kubectl("get", "node", n, check=False).returncode != 0:
            add_node(c, n)
    c.kubectl("-n", ns, "create", "-f", "-", input=daemonset("s", strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}))
    wait(lambda: (lambda m: m and len(m) == 3)(by_node(c, ns, "app=s")), what="3 pods")
    kubelet(c, ns, "app=s")
    c.kubectl("-n", ns, "rollout", "status", "ds/s", "--timeout=30s")
    c.kubectl("-n", ns, "set", "image", "ds/s", "c=busybox:1.37")
    # the new pod starts next to the old one; every node keeps an available pod
    most = 0
    deadline = time.time() + 60
    while True:
        ps = live(c, ns, "app=s")
        most = max(most, len(ps))
        assert len(ps) <= 4, ps
        up = {p["spec"].get("nodeName") for p in ps if is_ready(p)}
        assert up == {"p1", "p2", "p3"}, ps
        if len(ps) == 3 and all(p["spec"]["containers"][0]["image"] == "busybox:1.37" and is_ready(p)
                                for p in ps):
            break
        assert time.time() < deadline, "surge update did not finish"
        kubelet(c, ns, "app=s")
        time.sleep(0.3)
    assert most == 4
    c.kubectl("-n", ns, "rollout", "status", "ds/s", "--timeout=30s")
    c.kubectl("-n", ns, "delete", "ds", "s")
    wait(lambda: (kubelet(c, ns, "app=s"), not pods(c, ns, "app=s"))[1], what="pods gone")
    c.kubectl("delete", "namespace", ns, "--wait=false")
