"""ResourceQuota (counted by the controller, enforced by admission) and
LimitRange (defaults and bounds by the LimitRanger plugin), through kubectl
and the Python client, as the admin: quota applies to everyone. API only:
pods stay Pending on a server without nodes."""
import json
import threading
import time

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException
from conftest import SLOW  # noqa: E402


def wait_for(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def namespace(c, name):
    c.kubectl("create", "namespace", name)
    # the namespace's service account and root CA objects are not charged here: no quota yet
    return name


def quota(c, ns, name, hard, **spec):
    apply(c, {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
              "spec": dict(hard=hard, **spec)})
    return wait_for(lambda: counted(c, ns, name), what=f"quota {name} counted")


def counted(c, ns, name):
    q = c.kjson("-n", ns, "get", "resourcequota", name)
    st = q.get("status") or {}
    if st.get("hard") == q["spec"]["hard"] and set(st.get("used") or {}) == set(q["spec"]["hard"]):
        return q
    return None


def used(c, ns, name):
    return (c.kjson("-n", ns, "get", "resourcequota", name).get("status") or {}).get("used") or {}


def pod(name, resources=None, **spec):
    ctr = {"name": "c", "image": "busybox"}
    if resources is not None:
        ctr["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": dict(containers=[ctr], **spec)}


def create_pod(c, ns, obj, check=True):
    return c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(obj), check=check)


@pytest.fixture(scope="module")
def core(api_cluster):
    return client.CoreV1Api(api_cluster.api_client())


def test_describe_and_refusal_through_kubectl_and_python(api_cluster, core):
    c = api_cluster
    ns = namespace(c, "team-a")
    quota(c, ns, "team-a", {"pods": "2", "requests.cpu": "1", "requests.memory": "1Gi", "limits.memory": "2Gi"})
    res = {"requests": {"cpu": "500m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}}
    create_pod(c, ns, pod("p1", res))
    wait_for(lambda: used(c, ns, "team-a").get("pods") == "1", what="p1 charged")
    out = c.kubectl("-n", ns, "describe", "quota", "team-a").stdout
    lines = [line.split() for line in out.splitlines()]
    assert ["Name:", "team-a"] in lines and ["Namespace:", ns] in lines
    assert ["Resource", "Used", "Hard"] in lines
    assert ["limits.memory", "512Mi", "2Gi"] in lines
    assert ["pods", "1", "2"] in lines
    assert ["requests.cpu", "500m", "1"] in lines
    assert ["requests.memory", "256Mi", "1Gi"] in lines
    row = c.kubectl("-n", ns, "get", "quota", "team-a", "--no-headers").stdout
    assert "pods: 1/2, requests.cpu: 500m/1, requests.memory: 256Mi/1Gi" in row and "limits.memory: 512Mi/2Gi" in row

    big = {"requests": {"cpu": "600m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}}
    r = create_pod(c, ns, pod("p2", big), check=False)
    assert r.returncode != 0
    assert ('Error from server (Forbidden): error when creating "STDIN": pods "p2" is forbidden: exceeded quota: '
            'team-a, requested: requests.cpu=600m, used: requests.cpu=500m, limited: requests.cpu=1') in r.stderr

    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod(ns, pod("p3", big))
    assert e.value.status == 403
    st = json.loads(e.value.body)
    assert st["reason"] == "Forbidden" and st["details"] == {"name": "p3", "kind": "pods"}
    assert st["message"] == ('pods "p3" is forbidden: exceeded quota: team-a, requested: requests.cpu=600m, '
                             'used: requests.cpu=500m, limited: requests.cpu=1')

    # dry run checks but does not charge
    core.create_namespaced_pod(ns, pod("dry", res), dry_run="All")
    assert used(c, ns, "team-a")["pods"] == "1"

    create_pod(c, ns, pod("p4", res))
    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod(ns, pod("p5", {"requests": {"cpu": "1m", "memory": "1Mi"},
                                                  "limits": {"memory": "1Mi"}}))
    assert json.loads(e.value.body)["message"] == (
        'pods "p5" is forbidden: exceeded quota: team-a, requested: pods=1,requests.cpu=1m, '
        'used: pods=2,requests.cpu=1, limited: pods=2,requests.cpu=1')


def test_requests_required(api_cluster):
    c = api_cluster
    ns = namespace(c, "team-req")
    quota(c, ns, "compute", {"requests.cpu": "2", "limits.memory": "1Gi"})
    p = pod("bare")
    p["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"limits": {"memory": "8Mi"}}}]
    r = create_pod(c, ns, p, check=False)
    assert ('pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; '
            'requests.cpu for: c,init') in r.stderr
    create_pod(c, ns, pod("ok", {"requests": {"cpu": "100m"}, "limits": {"memory": "64Mi"}}))
    wait_for(lambda: used(c, ns, "compute") == {"requests.cpu": "100m", "limits.memory": "64Mi"}, what="usage")


def test_gpu_quota(api_cluster, core):
    c = api_cluster
    ns = namespace(c, "team-gpu")
    quota(c, ns, "gpus", {"requests.nvidia.com/gpu": "2"})
    gpu = {"limits": {"nvidia.com/gpu": "1"}}
    create_pod(c, ns, pod("g1", gpu))
    create_pod(c, ns, pod("g2", gpu))
    create_pod(c, ns, pod("cpu-only", {"requests": {"cpu": "10m"}}))
    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod(ns, pod("g3", gpu))
    assert e.value.status == 403
    assert json.loads(e.value.body)["message"] == (
        'pods "g3" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, '
        'used: requests.nvidia.com/gpu=2, limited: requests.nvidia.com/gpu=2')
    assert used(c, ns, "gpus") == {"requests.nvidia.com/gpu": "2"}
    # raising hard takes effect once the controller has copied it to the status
    c.kubectl("-n", ns, "patch", "quota", "gpus", "--type=merge",
              "-p", '{"spec":{"hard":{"requests.nvidia.com/gpu":"3"}}}')
    wait_for(lambda: counted(c, ns, "gpus"), what="new hard counted")
    core.create_namespaced_pod(ns, pod("g3", gpu))
    assert used(c, ns, "gpus") == {"requests.nvidia.com/gpu": "3"}


WIDGETS = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}


def deployment(name):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}


def test_object_counts_builtin_and_custom(api_cluster):
    c = api_cluster
    apply(c, WIDGETS)
    c.kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s")
    ns = namespace(c, "team-count")
    quota(c, ns, "objects", {"count/deployments.apps": "1", "count/widgets.example.com": "1", "services": "1",
                             "services.nodeports": "0"})
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(deployment("d1")))
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(deployment("d2")), check=False)
    assert ('deployments.apps "d2" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, '
            'used: count/deployments.apps=1, limited: count/deployments.apps=1') in r.stderr
    w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}}
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(w))
    w["metadata"]["name"] = "w2"
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(w), check=False)
    assert ('widgets.example.com "w2" is forbidden: exceeded quota: objects, requested: count/widgets.example.com=1, '
            'used: count/widgets.example.com=1, limited: count/widgets.example.com=1') in r.stderr
    r = c.kubectl("-n", ns, "create", "service", "nodeport", "np", "--tcp=80:80", check=False)
    assert ('services "np" is forbidden: exceeded quota: objects, requested: services.nodeports=1, '
            'used: services.nodeports=0, limited: services.nodeports=0') in r.stderr
    c.kubectl("-n", ns, "create", "service", "clusterip", "web", "--tcp=80:80")
    # a type change that needs a node port is charged too (an update)
    r = c.kubectl("-n", ns, "patch", "service", "web", "-p", '{"spec":{"type":"NodePort"}}', check=False)
    assert "exceeded quota: objects, requested: services.nodeports=1" in r.stderr
    assert used(c, ns, "objects") == {"count/deployments.apps": "1", "count/widgets.example.com": "1",
                                      "services": "1", "services.nodeports": "0"}
    # deletions of any counted kind give the quota back (replenishment)
    c.kubectl("-n", ns, "delete", "widget", "w1")
    c.kubectl("-n", ns, "delete", "deployment", "d1")
    wait_for(lambda: used(c, ns, "objects")["count/widgets.example.com"] == "0"
             and used(c, ns, "objects")["count/deployments.apps"] == "0", what="counts replenished")
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(w))
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(deployment("d2")))


def pvc(name, size, sc="gold"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                     "resources": {"requests": {"storage": size}}}}


def test_storage_quota_and_expansion(api_cluster):
    c = api_cluster
    ns = namespace(c, "team-storage")
    gold = "gold.storageclass.storage.k8s.io/requests.storage"
    quota(c, ns, "storage", {"requests.storage": "5Gi", "persistentvolumeclaims": "3", gold: "3Gi"})
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pvc("a", "2Gi")))
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pvc("b", "2Gi")), check=False)
    assert (f'persistentvolumeclaims "b" is forbidden: exceeded quota: storage, requested: {gold}=2Gi, '
            f'used: {gold}=2Gi, limited: {gold}=3Gi') in r.stderr
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pvc("b", "2Gi", sc="silver")))
    assert used(c, ns, "storage") == {"requests.storage": "4Gi", "persistentvolumeclaims": "2", gold: "2Gi"}
    # a bound claim's expansion is charged by its increase (the PV controller binds it to a volume
    # pre-bound to it; PersistentVolumeClaimResize wants a class that allows expansion)
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gold"},
        "provisioner": "kubernetes.io/no-provisioner", "allowVolumeExpansion": True}))
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "quota-a"},
        "spec": {"capacity": {"storage": "4Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "gold",
                 "hostPath": {"path": "/tmp/skiff-quota-a"}, "claimRef": {"namespace": ns, "name": "a"}}}))
    wait_for(lambda: c.kjson("-n", ns, "get", "pvc", "a")["status"].get("phase") == "Bound", what="claim a bound")
    r = c.kubectl("-n", ns, "patch", "pvc", "a", "--type=merge",
                  "-p", '{"spec":{"resources":{"requests":{"storage":"4Gi"}}}}', check=False)
    assert ("exceeded quota: storage, requested: " + gold + "=2Gi,requests.storage=2Gi, used: " + gold +
            "=2Gi,requests.storage=4Gi, limited: " + gold + "=3Gi,requests.storage=5Gi") in r.stderr
    c.kubectl("-n", ns, "patch", "pvc", "a", "--type=merge", "-p", '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}')
    assert used(c, ns, "storage") == {"requests.storage": "5Gi", "persistentvolumeclaims": "2", gold: "3Gi"}


def test_scopes_best_effort_and_priority_class(api_cluster):
    c = api_cluster
    apply(c, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
              "value": 1000})
    ns = namespace(c, "team-scope")
    quota(c, ns, "best-effort", {"pods": "1"}, scopes=["BestEffort"])
    quota(c, ns, "high", {"pods": "1"},
          scopeSelector={"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]})
    create_pod(c, ns, pod("be1"))
    r = create_pod(c, ns, pod("be2"), check=False)
    assert "exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1" in r.stderr
    burst = {"requests": {"cpu": "10m"}}
    create_pod(c, ns, pod("burst1", burst))
    create_pod(c, ns, pod("burst2", burst))
    create_pod(c, ns, pod("h1", burst, priorityClassName="high"))
    r = create_pod(c, ns, pod("h2", burst, priorityClassName="high"), check=False)
    assert "exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1" in r.stderr
    assert used(c, ns, "best-effort") == {"pods": "1"} and used(c, ns, "high") == {"pods": "1"}
    # the controller's own count agrees with admission's charges
    c.kubectl("-n", ns, "delete", "pod", "be1", "h1", "--wait=true")
    wait_for(lambda: used(c, ns, "best-effort") == {"pods": "0"} and used(c, ns, "high") == {"pods": "0"},
             what="scoped quotas replenished")


def test_concurrent_creates_admit_exactly_hard(api_cluster, core):
    c = api_cluster
    ns = namespace(c, "team-burst")
    quota(c, ns, "pods", {"pods": "20"})
    results = []
    lock = threading.Lock()
    clients = [client.CoreV1Api(c.api_client()) for _ in range(10)]

    def create(i):
        api = clients[i % len(clients)]
        try:
            api.create_namespaced_pod(ns, pod(f"burst-{i}"))
            out = "ok"
        except ApiException as e:
            out = (e.status, json.loads(e.body)["message"])
        with lock:
            results.append(out)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = [r for r in results if r == "ok"]
    refused = [r for r in results if r != "ok"]
    assert len(ok) == 20, refused[:3]
    assert all(code == 403 and "exceeded quota: pods, requested: pods=1, used: pods=20, limited: pods=20" in msg
               for code, msg in refused), refused[:3]
    names = [p.metadata.name for p in core.list_namespaced_pod(ns).items]
    assert len(names) == 20
    assert used(c, ns, "pods") == {"pods": "20"}

    for n in names[:5]:
        core.delete_namespaced_pod(n, ns)
    wait_for(lambda: used(c, ns, "pods") == {"pods": "15"}, what="used back to 15")
    for i in range(5):
        core.create_namespaced_pod(ns, pod(f"again-{i}"))
    with pytest.raises(ApiException):
        core.create_namespaced_pod(ns, pod("one-too-many"))
    assert len(core.list_namespaced_pod(ns).items) == 20


LIMITS = {
    "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
    "spec": {"limits": [
        {"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"},
         "defaultRequest": {"cpu": "100m", "memory": "128Mi"},
         "min": {"cpu": "50m"}, "max": {"cpu": "1", "memory": "1Gi"}, "maxLimitRequestRatio": {"cpu": "5"}},
        {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "5Gi"}},
    ]},
}


def test_limit_range_defaults_and_bounds(api_cluster, core):
    c = api_cluster
    ns = namespace(c, "team-limits")
    c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(LIMITS))
    out = c.kubectl("-n", ns, "get", "limitrange").stdout.splitlines()
    assert out[0].split() == ["NAME", "CREATED", "AT"] and out[1].split()[0] == "limits"
    desc = [line.split() for line in c.kubectl("-n", ns, "describe", "limits", "limits").stdout.splitlines()]
    assert ["Container", "cpu", "50m", "1", "100m", "500m", "5"] in desc
    assert ["Container", "memory", "-", "1Gi", "128Mi", "256Mi", "-"] in desc
    assert ["PersistentVolumeClaim", "storage", "1Gi", "5Gi", "-", "-", "-"] in desc

    create_pod(c, ns, pod("defaulted"))
    p = c.kjson("-n", ns, "get", "pod", "defaulted")
    assert p["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}}
    assert p["status"]["qosClass"] == "Burstable"
    assert p["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c")

    r = create_pod(c, ns, pod("small", {"requests": {"cpu": "10m"}, "limits": {"cpu": "50m"}}), check=False)
    assert 'pods "small" is forbidden: minimum cpu usage per Container is 50m, but request is 10m' in r.stderr
    r = create_pod(c, ns, pod("big", {"limits": {"memory": "2Gi"}}), check=False)
    assert "maximum memory usage per Container is 1Gi, but limit is 2Gi" in r.stderr
    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod(ns, pod("ratio", {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}))
    assert json.loads(e.value.body)["message"] == (
        'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 5, but provided ratio is 10.000000')

    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "huge"},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}
    r = c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(pvc), check=False)
    assert ('persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, '
            'but request is 10Gi') in r.stderr


def test_quota_validation(api_cluster):
    c = api_cluster
    bad = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "bad"},
           "spec": {"hard": {"cpu": "1", "pods": "1500m", "foo": "1"}, "scopes": ["BestEffort", "NotBestEffort"]}}
    r = c.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert 'The ResourceQuota "bad" is invalid' in r.stderr
    assert "spec.hard[foo]: Invalid value: \"foo\": must be a standard resource for quota" in r.stderr
    assert "spec.hard[pods]: Invalid value: \"1500m\": must be an integer" in r.stderr
    assert ('spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: '
            'unsupported scope applied to resource') in r.stderr
    assert "conflicting scopes" in r.stderr


def test_limit_range_validation(api_cluster):
    c = api_cluster
    bad = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "bad"},
           "spec": {"limits": [{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
                               {"type": "Pod", "default": {"cpu": "1"}}]}}
    r = c.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert 'The LimitRange "bad" is invalid' in r.stderr
    assert "spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is greater than max value 1" in r.stderr
    assert "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'" in r.stderr
