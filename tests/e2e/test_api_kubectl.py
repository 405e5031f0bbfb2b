"""The API server driven by the real kubectl (issue: control plane)."""
import json
import subprocess
import time

import pytest

DEPLOY = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: %d
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: busybox:1.36
        command: ["sleep", "3600"]
"""

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: %s
  labels: {tier: %s}
spec:
  containers:
  - name: c
    image: busybox:1.36
"""


def test_version_and_discovery(api_cluster):
    out = api_cluster.kubectl("version", "-o", "json").stdout
    sv = json.loads(out)["serverVersion"]
    assert sv["gitVersion"].startswith("v1.32.")
    assert sv["gitVersion"].startswith("v%s.%s." % (sv["major"], sv["minor"]))
    res = api_cluster.kubectl("api-resources").stdout
    for name in ["pods", "deployments", "daemonsets", "controllerrevisions",
                 "jobs", "cronjobs", "nodes", "namespaces", "leases", "priorityclasses",
                 "runtimeclasses", "storageclasses", "persistentvolumeclaims", "podgroups"]:
        assert name in res
    assert api_cluster.kubectl("get", "--raw", "/readyz").stdout == "ok"
    # upstream's named checks, ?verbose, ?exclude and one check by path
    assert api_cluster.kubectl("get", "--raw", "/readyz?verbose").stdout == (
        "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]shutdown ok\nreadyz check passed\n")
    assert api_cluster.kubectl("get", "--raw", "/livez?verbose&exclude=log&exclude=nope").stdout == (
        "[+]ping ok\n[+]log excluded: ok\n[+]etcd ok\n"
        "warn: some health checks cannot be excluded: no matches for \"nope\"\nlivez check passed\n")
    assert api_cluster.kubectl("get", "--raw", "/healthz/etcd").stdout == "ok"
    assert api_cluster.kubectl("get", "--raw", "/livez/nope", check=False).returncode != 0
    slis = api_cluster.kubectl("get", "--raw", "/metrics/slis").stdout
    assert "# TYPE kubernetes_healthcheck gauge" in slis
    assert 'kubernetes_healthcheck{name="etcd",type="readyz"} 1' in slis
    assert 'kubernetes_healthchecks_total{name="ping",status="success",type="livez"}' in slis
    ns = api_cluster.kubectl("get", "ns").stdout
    for n in ["default", "kube-system", "kube-node-lease"]:
        assert n in ns


def test_get_every_type_prints_tables(api_cluster):
    headers = {
        "pods": "NAME   READY   STATUS   RESTARTS   AGE",
        "deployments": "READY   UP-TO-DATE   AVAILABLE",
        "replicasets": "DESIRED   CURRENT   READY",
        "daemonsets": "DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR",
        "jobs": "STATUS   COMPLETIONS   DURATION",
        "cronjobs": "SCHEDULE   TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE",
        "nodes": "STATUS   ROLES   AGE   VERSION",
        "namespaces": "STATUS   AGE",
    }
    api_cluster.kubectl("apply", "-f", "-", input=POD % ("tbl", "x"))
    api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 1)
    for kind in ["namespaces", "pods", "nodes", "events", "configmaps", "secrets", "services", "endpoints",
                 "serviceaccounts", "resourcequotas", "persistentvolumes", "persistentvolumeclaims",
                 "storageclasses", "deployments", "replicasets", "daemonsets", "controllerrevisions",
                 "jobs", "cronjobs", "leases", "runtimeclasses",
                 "priorityclasses", "podgroups"]:
        r = api_cluster.kubectl("get", kind, "-A")
        assert r.returncode == 0
        if kind in headers and r.stdout.strip():
            assert headers[kind].split()[0] in r.stdout, (kind, r.stdout)
    out = api_cluster.kubectl("get", "pods").stdout.splitlines()
    assert out[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert out[1].split()[:4] == ["tbl", "0/1", "Pending", "0"]
    wide = api_cluster.kubectl("get", "pods", "-o", "wide").stdout.splitlines()[0]
    assert "NOMINATED NODE" in wide and "READINESS GATES" in wide
    dw = api_cluster.kubectl("get", "deploy", "web", "-o", "wide").stdout.splitlines()
    assert dw[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    assert dw[1].split()[-3:] == ["web", "busybox:1.36", "app=web"]
    y = api_cluster.kubectl("get", "pod", "tbl", "-o", "yaml").stdout
    assert "terminationMessagePath: /dev/termination-log" in y and "resourceVersion:" in y
    pod = api_cluster.kjson("get", "pod", "tbl")
    assert pod["spec"]["restartPolicy"] == "Always"
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    assert pod["spec"]["dnsPolicy"] == "ClusterFirst"
    assert pod["status"]["phase"] == "Pending"
    api_cluster.kubectl("delete", "pod", "tbl")
    api_cluster.kubectl("delete", "deploy", "web")


def test_selectors_and_all_namespaces(api_cluster):
    api_cluster.kubectl("create", "-f", "-", input='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sel"}}')
    for name, tier in [("a", "fe"), ("b", "be"), ("c", "fe")]:
        api_cluster.kubectl("apply", "-n", "sel", "-f", "-", input=POD % (name, tier))
    names = api_cluster.kubectl("get", "pods", "-n", "sel", "-l", "tier=fe", "-o", "name").stdout.split()
    assert names == ["pod/a", "pod/c"]
    names = api_cluster.kubectl("get", "pods", "-n", "sel", "-l", "tier in (be),tier!=fe", "-o", "name").stdout.split()
    assert names == ["pod/b"]
    names = api_cluster.kubectl("get", "pods", "-A", "--field-selector", "metadata.name=b", "-o", "name").stdout.split()
    assert names == ["pod/b"]
    r = api_cluster.kubectl("get", "pods", "-A", "--field-selector", "spec.bogus=1", check=False)
    assert r.returncode != 0 and "field label not supported" in r.stderr
    allns = api_cluster.kubectl("get", "pods", "-A").stdout
    assert allns.splitlines()[0].split()[0] == "NAMESPACE" and "sel" in allns
    # pagination: kubectl follows continue tokens with --chunk-size
    names = api_cluster.kubectl("get", "pods", "-n", "sel", "--chunk-size=1", "-o", "name").stdout.split()
    assert names == ["pod/a", "pod/b", "pod/c"]
    api_cluster.kubectl("delete", "namespace", "sel", "--wait=false")


def test_apply_create_change_unchanged_and_server_side(api_cluster):
    r = api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 2)
    assert "deployment.apps/web created" in r.stdout
    r = api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 2)
    assert "deployment.apps/web unchanged" in r.stdout
    r = api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 3)
    assert "deployment.apps/web configured" in r.stdout
    d = api_cluster.kjson("get", "deploy", "web")
    assert d["spec"]["replicas"] == 3 and d["metadata"]["generation"] == 2
    assert d["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == "25%"
    r = api_cluster.kubectl("apply", "--server-side", "-f", "-", input=(DEPLOY % 1).replace("web", "ssa"))
    assert "serverside-applied" in r.stdout
    r = api_cluster.kubectl("apply", "--server-side", "-f", "-", input=(DEPLOY % 4).replace("web", "ssa"))
    assert api_cluster.kjson("get", "deploy", "ssa")["spec"]["replicas"] == 4
    api_cluster.kubectl("delete", "deploy", "web", "ssa")


def test_apply_list_file_validated_against_openapi_v2(api_cluster):
    """kubectl validates the items of a `kind: List` file against /openapi/v2
    (protobuf); `get -o yaml` output applies back."""
    c = api_cluster
    lst = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"l{i}"}, "data": {"x": str(i)}}
        for i in range(2)]}
    r = c.kubectl("apply", "-f", "-", input=json.dumps(lst))
    assert "configmap/l0 created" in r.stdout and "configmap/l1 created" in r.stdout
    r = c.kubectl("apply", "-f", "-", input=json.dumps(lst))
    assert "configmap/l0 unchanged" in r.stdout
    back = c.kubectl("get", "cm", "l0", "l1", "-o", "yaml").stdout
    assert "kind: List" in back
    c.kubectl("apply", "-f", "-", input=back)
    bad = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "l2"}, "bogus": 1},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "l3"},
         "spec": {"replicas": "three", "selector": {"matchLabels": {"a": "b"}},
                  "template": {"metadata": {"labels": {"a": "b"}},
                               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}]}
    r = c.kubectl("apply", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    assert 'unknown field "bogus" in io.k8s.api.core.v1.ConfigMap' in r.stderr
    assert 'io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer"' in r.stderr
    assert c.kubectl("get", "cm", "l2", check=False).returncode != 0
    doc = json.loads(c.kubectl("get", "--raw", "/openapi/v2").stdout)
    assert doc["swagger"] == "2.0"
    pod = doc["definitions"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["spec"]["$ref"] == "#/definitions/io.k8s.api.core.v1.PodSpec"
    c.kubectl("delete", "cm", "l0", "l1")


def test_replace_patch_label_annotate_scale(api_cluster):
    api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 1)
    # the deployment controller writes the status meanwhile: a replace from
    # a GET that came just before may meet a newer object and be refused as
    # upstream refuses it; a user gets it again and retries
    for _ in range(20):
        d = api_cluster.kjson("get", "deploy", "web")
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.37"
        r = api_cluster.kubectl("replace", "-f", "-", input=json.dumps(d), check=False)
        if r.returncode == 0:
            break
        assert "the object has been modified" in r.stderr, r.stderr
        time.sleep(0.2)
    assert r.returncode == 0, r.stderr
    assert api_cluster.kjson("get", "deploy", "web")["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.37"
    # a stale resourceVersion is a conflict
    r = api_cluster.kubectl("replace", "-f", "-", input=json.dumps(d), check=False)
    assert r.returncode != 0 and "the object has been modified" in r.stderr
    api_cluster.kubectl("patch", "deploy", "web", "--type=merge", "-p", '{"spec":{"paused":true}}')
    api_cluster.kubectl("patch", "deploy", "web", "--type=json", "-p",
                        '[{"op":"add","path":"/spec/minReadySeconds","value":5}]')
    api_cluster.kubectl("patch", "deploy", "web", "-p",
                        '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"busybox:1.38"}]}}}}')
    r = api_cluster.kubectl("patch", "deploy", "web", "--type=json", "-p",
                            '[{"op":"replace","path":"/spec/nope","value":5}]', check=False)
    assert r.returncode != 0 and "invalid" in r.stderr
    d = api_cluster.kjson("get", "deploy", "web")
    assert d["spec"]["paused"] is True and d["spec"]["minReadySeconds"] == 5
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.38"
    assert d["spec"]["template"]["spec"]["containers"][0]["command"] == ["sleep", "3600"]
    api_cluster.kubectl("label", "deploy", "web", "team=ml")
    api_cluster.kubectl("annotate", "deploy", "web", "note=hello")
    r = api_cluster.kubectl("scale", "deployment", "web", "--replicas=4")
    assert "scaled" in r.stdout
    d = api_cluster.kjson("get", "deploy", "web")
    assert d["metadata"]["labels"]["team"] == "ml" and d["metadata"]["annotations"]["note"] == "hello"
    assert d["spec"]["replicas"] == 4
    for cascade in ["--cascade=foreground", "--cascade=orphan", "--cascade=background"]:
        api_cluster.kubectl("apply", "-f", "-", input=DEPLOY % 1)
        r = api_cluster.kubectl("delete", "deploy", "web", cascade, "--timeout=20s")
        assert 'deployment.apps "web" deleted' in r.stdout


def test_describe_events_wait(api_cluster):
    api_cluster.kubectl("apply", "-f", "-", input=POD % ("desc", "x"))
    pod = api_cluster.kjson("get", "pod", "desc")
    ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "desc.1", "namespace": "default"},
          "involvedObject": {"kind": "Pod", "name": "desc", "namespace": "default", "uid": pod["metadata"]["uid"],
                             "apiVersion": "v1"},
          "reason": "Testing", "message": "hello from the test", "type": "Normal", "count": 1,
          "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z",
          "source": {"component": "pytest"}}
    api_cluster.kubectl("create", "-f", "-", input=json.dumps(ev))
    out = api_cluster.kubectl("describe", "pod", "desc").stdout
    assert "Name:" in out and "desc" in out and "hello from the test" in out
    out = api_cluster.kubectl("events", "--for", "pod/desc").stdout
    assert "Testing" in out
    status = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    api_cluster.kubectl("patch", "pod", "desc", "--subresource=status", "--type=merge", "-p", json.dumps(status))
    r = api_cluster.kubectl("wait", "--for=condition=ready", "pod/desc", "--timeout=10s")
    assert "condition met" in r.stdout
    api_cluster.kubectl("delete", "pod", "desc")


def test_watch_prints_changes(api_cluster):
    w = subprocess.Popen(["kubectl", "--kubeconfig", api_cluster.kubeconfig, "--cache-dir", api_cluster.cache,
                          "get", "pods", "-w", "--request-timeout=6s"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    api_cluster.kubectl("apply", "-f", "-", input=POD % ("watched", "x"))
    api_cluster.kubectl("label", "pod", "watched", "x=y")
    api_cluster.kubectl("delete", "pod", "watched")
    out, _ = w.communicate(timeout=30)
    lines = [l for l in out.splitlines() if l.startswith("watched")]
    assert len(lines) >= 2, out
    assert "READY" in out.splitlines()[0]


def test_bad_input_errors(api_cluster):
    r = api_cluster.kubectl("get", "pod", "nope", check=False)
    assert 'Error from server (NotFound): pods "nope" not found' in r.stderr
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input="""
apiVersion: v1
kind: Pod
metadata: {name: Bad_Name}
spec: {containers: [{name: c}]}
""")
    assert "Error from server (Invalid)" in r.stderr or "is invalid" in r.stderr
    assert "metadata.name" in r.stderr and "spec.containers[0].image: Required value" in r.stderr
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input="""
apiVersion: v1
kind: Pod
metadata: {name: strict}
spec: {containers: [{name: c, image: x, imagePullPolcy: Always}]}
""")
    assert 'unknown field "spec.containers[0].imagePullPolcy"' in r.stderr
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input="""
apiVersion: v1
kind: Pod
metadata: {name: q}
spec: {containers: [{name: c, image: x, resources: {limits: {cpu: lots}}}]}
""")
    assert r.returncode != 0 and "quantities must match the regular expression" in r.stderr
    r = api_cluster.kubectl("get", "--raw", "/api/v1/namespaces/default/pods/x", "--server",
                            "https://127.0.0.1:%d" % api_cluster.port, "--token", "wrong", check=False)
    assert "Unauthorized" in r.stderr
    r = api_cluster.kubectl("create", "-n", "missing-ns", "-f", "-", check=False, input=POD % ("p", "x"))
    assert 'namespaces "missing-ns" not found' in r.stderr
