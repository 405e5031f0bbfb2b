"""kubectl's typed clients send protobuf request bodies (issue: protobuf).

Each test runs the real `kubectl create …` (Content-Type
application/vnd.kubernetes.protobuf) and reads the stored object back as JSON,
field by field."""
import base64
import json
import subprocess

import pytest


def get(c, *args):
    return c.kjson("get", *args)


def test_typed_client_sends_protobuf(api_cluster):
    r = api_cluster.kubectl("create", "namespace", "pb-wire", "-v=8")
    assert "Content-Type: application/vnd.kubernetes.protobuf" in r.stderr
    assert "201 Created" in r.stderr
    assert "namespace/pb-wire created" in r.stdout


def test_create_namespace(api_cluster):
    api_cluster.kubectl("create", "namespace", "pb-ns")
    ns = get(api_cluster, "namespace", "pb-ns")
    assert ns["kind"] == "Namespace" and ns["apiVersion"] == "v1"
    assert ns["metadata"]["name"] == "pb-ns"
    assert ns["metadata"]["uid"] and ns["metadata"]["creationTimestamp"].endswith("Z")
    assert ns["status"]["phase"] == "Active"
    assert "generateName" not in ns["metadata"]


def test_create_configmap(api_cluster):
    api_cluster.kubectl("create", "configmap", "pb-cm", "--from-literal=k=v", "--from-literal=empty=",
                        "--from-literal=multi=a b\nc")
    cm = get(api_cluster, "configmap", "pb-cm")
    assert cm["data"] == {"k": "v", "empty": "", "multi": "a b\nc"}
    assert cm["metadata"]["namespace"] == "default"
    assert "immutable" not in cm


def test_create_secret_generic_bytes_round_trip(api_cluster):
    api_cluster.kubectl("create", "secret", "generic", "pb-secret", "--from-literal=user=admin",
                        "--from-literal=pw=p@ss:wörd")
    s = get(api_cluster, "secret", "pb-secret")
    assert s["type"] == "Opaque"
    assert base64.b64decode(s["data"]["user"]) == b"admin"
    assert base64.b64decode(s["data"]["pw"]) == "p@ss:wörd".encode()


def test_create_secret_docker_registry(api_cluster):
    api_cluster.kubectl("create", "secret", "docker-registry", "pb-reg", "--docker-server=r.example",
                        "--docker-username=u", "--docker-password=p")
    s = get(api_cluster, "secret", "pb-reg")
    assert s["type"] == "kubernetes.io/dockerconfigjson"
    cfg = json.loads(base64.b64decode(s["data"][".dockerconfigjson"]))
    assert cfg["auths"]["r.example"]["username"] == "u"
    assert cfg["auths"]["r.example"]["password"] == "p"


def test_create_deployment(api_cluster):
    api_cluster.kubectl("create", "deployment", "pb-web", "--image=nginx:1.27", "--replicas=3", "--port=8080")
    d = get(api_cluster, "deployment", "pb-web")
    assert d["apiVersion"] == "apps/v1" and d["kind"] == "Deployment"
    assert d["metadata"]["labels"] == {"app": "pb-web"}
    assert d["spec"]["replicas"] == 3
    assert d["spec"]["selector"] == {"matchLabels": {"app": "pb-web"}}
    tmpl = d["spec"]["template"]
    assert tmpl["metadata"]["labels"] == {"app": "pb-web"}
    (c,) = tmpl["spec"]["containers"]
    assert c["name"] == "nginx" and c["image"] == "nginx:1.27"
    assert c["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    # Zero values go-to-protobuf writes for non-pointer fields must not defeat defaulting.
    assert tmpl["spec"]["restartPolicy"] == "Always"
    assert tmpl["spec"]["dnsPolicy"] == "ClusterFirst"
    assert d["spec"]["strategy"]["type"] == "RollingUpdate"


def test_create_deployment_zero_replicas(api_cluster):
    api_cluster.kubectl("create", "deployment", "pb-zero", "--image=nginx", "--replicas=0")
    d = get(api_cluster, "deployment", "pb-zero")
    assert d["spec"]["replicas"] == 0


def test_create_job_with_command(api_cluster):
    api_cluster.kubectl("create", "job", "pb-job", "--image=busybox:1.36", "--", "sh", "-c", "echo hi")
    j = get(api_cluster, "job", "pb-job")
    assert j["apiVersion"] == "batch/v1"
    spec = j["spec"]["template"]["spec"]
    assert spec["restartPolicy"] == "Never"
    (c,) = spec["containers"]
    assert c["name"] == "pb-job" and c["image"] == "busybox:1.36"
    assert c["command"] == ["sh", "-c", "echo hi"]
    assert j["spec"]["backoffLimit"] == 6


def test_create_cronjob_and_job_from_it(api_cluster):
    api_cluster.kubectl("create", "cronjob", "pb-cron", "--image=busybox:1.36", "--schedule=*/5 * * * *",
                        "--restart=OnFailure", "--", "date")
    cj = get(api_cluster, "cronjob", "pb-cron")
    assert cj["spec"]["schedule"] == "*/5 * * * *"
    jt = cj["spec"]["jobTemplate"]
    assert jt["metadata"]["name"] == "pb-cron"
    (c,) = jt["spec"]["template"]["spec"]["containers"]
    assert c["command"] == ["date"]
    assert jt["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"

    api_cluster.kubectl("create", "job", "pb-manual", "--from=cronjob/pb-cron")
    j = get(api_cluster, "job", "pb-manual")
    assert j["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    (ref,) = j["metadata"]["ownerReferences"]
    assert ref["kind"] == "CronJob" and ref["name"] == "pb-cron"
    assert ref["uid"] == cj["metadata"]["uid"]
    assert ref["controller"] is True
    (c,) = j["spec"]["template"]["spec"]["containers"]
    assert c["command"] == ["date"] and c["image"] == "busybox:1.36"


def test_create_service_clusterip(api_cluster):
    api_cluster.kubectl("create", "service", "clusterip", "pb-svc", "--tcp=80:8080", "--tcp=9090:metrics")
    s = get(api_cluster, "service", "pb-svc")
    assert s["spec"]["type"] == "ClusterIP"
    assert s["spec"]["selector"] == {"app": "pb-svc"}
    ports = {p["port"]: p for p in s["spec"]["ports"]}
    assert ports[80]["targetPort"] == 8080 and ports[80]["protocol"] == "TCP"
    assert ports[80]["name"] == "80-8080"
    assert ports[9090]["targetPort"] == "metrics"
    assert "nodePort" not in ports[80]


def test_create_serviceaccount(api_cluster):
    api_cluster.kubectl("create", "serviceaccount", "pb-sa")
    sa = get(api_cluster, "serviceaccount", "pb-sa")
    assert sa["kind"] == "ServiceAccount" and sa["metadata"]["name"] == "pb-sa"
    assert "automountServiceAccountToken" not in sa


def test_create_priorityclass(api_cluster):
    api_cluster.kubectl("create", "priorityclass", "pb-high", "--value=1000", "--description=important",
                        "--preemption-policy=Never")
    pc = get(api_cluster, "priorityclass", "pb-high")
    assert pc["apiVersion"] == "scheduling.k8s.io/v1"
    assert pc["value"] == 1000
    assert pc["description"] == "important"
    assert pc["preemptionPolicy"] == "Never"
    assert pc.get("globalDefault", False) is False


def test_create_quota(api_cluster):
    api_cluster.kubectl("create", "quota", "pb-quota", "--hard=pods=10,requests.cpu=500m,limits.memory=1Gi")
    q = get(api_cluster, "resourcequota", "pb-quota")
    assert q["spec"]["hard"] == {"pods": "10", "requests.cpu": "500m", "limits.memory": "1Gi"}
    # an enforced quota: the module's later pods carry no requests or limits
    api_cluster.kubectl("delete", "quota", "pb-quota")


def test_drain_posts_protobuf_eviction(api_cluster):
    api_cluster.kubectl("apply", "-f", "-", input="""
apiVersion: v1
kind: Node
metadata: {name: pb-node}
---
apiVersion: v1
kind: Pod
metadata: {name: pb-evictee, namespace: default}
spec:
  nodeName: pb-node
  containers: [{name: c, image: busybox:1.36}]
""")
    # No node agent: the pod never finishes terminating, so drain times out
    # after the eviction was accepted.
    r = api_cluster.kubectl("drain", "pb-node", "--force", "--grace-period=7", "--timeout=3s", "-v=6",
                            check=False)
    assert "pods/pb-evictee/eviction 201" in r.stderr, r.stderr
    pod = get(api_cluster, "pod", "pb-evictee")
    assert pod["metadata"]["deletionTimestamp"]
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 7
    node = get(api_cluster, "node", "pb-node")
    assert node["spec"]["unschedulable"] is True


def _ld(num, data):
    """A length-delimited protobuf field."""
    n, out = len(data), bytearray([num << 3 | 2])
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out) + data


def _envelope(api_version, kind, raw):
    return b"k8s\x00" + _ld(1, _ld(1, api_version.encode()) + _ld(2, kind.encode())) + _ld(2, raw)


def _send(c, method, path, body, content_type="application/vnd.kubernetes.protobuf"):
    from kubernetes.client.exceptions import ApiException
    api = c.api_client()
    headers = {"Content-Type": content_type, "Accept": "application/json"}
    for auth in api.configuration.auth_settings().values():
        if auth["in"] == "header" and auth["value"]:
            headers[auth["key"]] = auth["value"]
    try:
        r = api.rest_client.request(method, api.configuration.host + path, body=body, headers=headers)
        return r.status, json.loads(r.data)
    except ApiException as e:
        return e.status, json.loads(e.body)


def test_raw_protobuf_requests(api_cluster):
    cm = _ld(1, _ld(1, b"pb-raw")) + _ld(2, _ld(1, b"bin") + _ld(2, b"\xff\x00"))
    status, out = _send(api_cluster, "POST", "/api/v1/namespaces/default/configmaps", _envelope("v1", "ConfigMap", cm))
    # ConfigMap.data is a string map: invalid UTF-8 is refused.
    assert status == 400 and out["reason"] == "BadRequest" and "UTF-8" in out["message"]

    cm = _ld(1, _ld(1, b"pb-raw")) + _ld(3, _ld(1, b"bin") + _ld(2, b"\xff\x00"))
    status, out = _send(api_cluster, "POST", "/api/v1/namespaces/default/configmaps", _envelope("v1", "ConfigMap", cm))
    assert status == 201, out
    assert out["binaryData"] == {"bin": "/wA="}

    # PUT replaces with a protobuf body too.
    cm = _ld(1, _ld(1, b"pb-raw") + _ld(6, out["metadata"]["resourceVersion"].encode())) + \
        _ld(2, _ld(1, b"k") + _ld(2, b"v"))
    status, out = _send(api_cluster, "PUT", "/api/v1/namespaces/default/configmaps/pb-raw",
                        _envelope("v1", "ConfigMap", cm))
    assert status == 200, out
    assert out["data"] == {"k": "v"} and "binaryData" not in out

    status, out = _send(api_cluster, "POST", "/api/v1/namespaces/default/secrets",
                        b"k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Secret\x12\x05\x12\xff")
    assert status == 400 and out["reason"] == "BadRequest" and "protobuf" in out["message"]

    status, out = _send(api_cluster, "POST", "/api/v1/namespaces/default/configmaps", b"not protobuf")
    assert status == 400 and "k8s" in out["message"]

    status, out = _send(api_cluster, "POST", "/api/v1/namespaces/default/configmaps",
                        _envelope("v1", "NoSuchThing", b""))
    assert status == 400 and "NoSuchThing" in out["message"]

    status, out = _send(api_cluster, "PATCH", "/api/v1/namespaces/default/configmaps/pb-raw",
                        _envelope("v1", "ConfigMap", b""))
    assert status == 415 and out["reason"] == "UnsupportedMediaType"

    # Typed clients' deletes carry DeleteOptions in protobuf (registered in every group version).
    opts = bytes([1 << 3, 0]) + _ld(4, b"Background")
    status, out = _send(api_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/pb-raw",
                        _envelope("v1", "DeleteOptions", opts))
    assert status == 200, out
    r = api_cluster.kubectl("get", "configmap", "pb-raw", check=False)
    assert r.returncode != 0 and "NotFound" in r.stderr
