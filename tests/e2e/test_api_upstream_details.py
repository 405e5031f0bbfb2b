"""API details outside clients compare byte for byte with kube-apiserver: Status
bodies, unknown fields under fieldValidation, the zero status of a create,
404s for unserved paths, generateName collisions."""
import http.client
import json
import ssl

import yaml
from kubernetes import client, dynamic


def raw(c, method, path, body=None):
    """(status, headers as a list of pairs, body bytes) of one request."""
    cfg = yaml.safe_load(open(c.kubeconfig))
    tok = cfg["users"][0]["user"]["token"]
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    conn = http.client.HTTPSConnection("127.0.0.1", c.port, context=ctx, timeout=20)
    data = json.dumps(body) if isinstance(body, dict) else body
    conn.request(method, path, body=data, headers={"Authorization": "Bearer " + tok,
                                                    "Content-Type": "application/json"})
    r = conn.getresponse()
    out = r.status, r.getheaders(), r.read()
    conn.close()
    return out


def test_already_exists_and_not_found_bodies_as_upstream(api_cluster):
    c = api_cluster
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "dup"},
           "spec": {"selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}},
                                 "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    code, _, _ = raw(c, "POST", "/apis/apps/v1/namespaces/default/deployments", dep)
    assert code == 201
    code, _, body = raw(c, "POST", "/apis/apps/v1/namespaces/default/deployments", dep)
    assert code == 409
    # field order of metav1.Status (details before code) and the encoder's newline
    assert body == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                    b'"message":"deployments.apps \\"dup\\" already exists","reason":"AlreadyExists",'
                    b'"details":{"name":"dup","group":"apps","kind":"deployments"},"code":409}\n')
    code, _, body = raw(c, "GET", "/apis/apps/v1/namespaces/default/deployments/none")
    assert code == 404
    assert body == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                    b'"message":"deployments.apps \\"none\\" not found","reason":"NotFound",'
                    b'"details":{"name":"none","group":"apps","kind":"deployments"},"code":404}\n')
    # kubectl prints the qualified resource
    r = c.kubectl("create", "deployment", "dup", "--image=busybox", check=False)
    assert r.returncode != 0 and 'deployments.apps "dup" already exists' in r.stderr
    # the Python client hands the body over as it came
    apps = client.AppsV1Api(c.api_client())
    try:
        apps.create_namespaced_deployment("default", dep)
        raise AssertionError("second create succeeded")
    except client.ApiException as e:
        assert e.status == 409
        st = json.loads(e.body)
        assert list(st) == ["kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"]
        assert e.body.endswith("\n")
    raw(c, "DELETE", "/apis/apps/v1/namespaces/default/deployments/dup")


def test_unserved_resource_or_subresource_404_has_empty_details(api_cluster):
    c = api_cluster
    raw(c, "POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "sub404"}})
    expect = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
              b'"message":"the server could not find the requested resource","reason":"NotFound",'
              b'"details":{},"code":404}\n')
    for path in ["/api/v1/namespaces/default/widgets/x", "/api/v1/namespaces/default/configmaps/sub404/bogus",
                 "/api/v1/namespaces/default/pods/p1/nothing", "/apis/nogroup.example/v1/things"]:
        code, _, body = raw(c, "GET", path)
        assert (code, body) == (404, expect), path


def test_unknown_fields_warned_once_each_and_dropped(api_cluster):
    c = api_cluster
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "warned", "bogus": "x"},
          "data": {"a": "b"}, "extra": {"deep": 1}}
    code, headers, body = raw(c, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Warn", cm)
    assert code == 201, body
    warnings = [v for k, v in headers if k.lower() == "warning"]
    assert sorted(warnings) == ['299 - "unknown field \\"extra\\""', '299 - "unknown field \\"metadata.bogus\\""']
    stored = json.loads(raw(c, "GET", "/api/v1/namespaces/default/configmaps/warned")[2])
    assert "extra" not in stored and "bogus" not in stored["metadata"] and stored["data"] == {"a": "b"}
    # no fieldValidation: upstream's default is Warn too
    cm["metadata"]["name"] = "warned-default"
    code, headers, _ = raw(c, "POST", "/api/v1/namespaces/default/configmaps", cm)
    assert code == 201 and len([k for k, _ in headers if k.lower() == "warning"]) == 2
    # Ignore drops them silently
    cm["metadata"]["name"] = "ignored"
    code, headers, _ = raw(c, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore", cm)
    assert code == 201 and not [k for k, _ in headers if k.lower() == "warning"]
    stored = json.loads(raw(c, "GET", "/api/v1/namespaces/default/configmaps/ignored")[2])
    assert "extra" not in stored
    # Strict refuses with every field named
    cm["metadata"]["name"] = "strict"
    code, _, body = raw(c, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", cm)
    st = json.loads(body)
    assert code == 400 and st["reason"] == "BadRequest"
    assert st["message"] == 'strict decoding error: unknown field "metadata.bogus", unknown field "extra"'
    # a field name with a line break cannot break the header apart
    ctl = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ctl", "a\r\nX-Injected: 1": "x"}}
    code, headers, _ = raw(c, "POST", "/api/v1/namespaces/default/configmaps", ctl)
    assert code == 201 and not [k for k, _ in headers if k.lower() == "x-injected"]
    assert [v for k, v in headers if k.lower() == "warning"] == ['299 - "unknown field \\"metadata.a??X-Injected: 1\\""']
    # kubectl shows each warning
    r = c.kubectl("create", "--validate=warn", "-f", "-", input=(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kwarn}\nfoo: 1\nbar: 2\n"))
    assert 'Warning: unknown field "bar"' in r.stderr and 'Warning: unknown field "foo"' in r.stderr
    assert "foo" not in c.kjson("get", "configmap", "kwarn")


def test_create_returns_the_zero_status_of_kinds_with_status(api_cluster):
    c = api_cluster
    v1 = client.CoreV1Api(c.api_client())
    svc = v1.create_namespaced_service("default", {"metadata": {"name": "zero"},
                                                   "spec": {"ports": [{"port": 80}]},
                                                   "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}})
    # the client's status is reset, and the reply carries upstream's zero status
    assert svc.status is not None and svc.status.load_balancer is not None
    assert svc.status.load_balancer.ingress is None
    code, _, body = raw(c, "POST", "/api/v1/namespaces/default/services",
                        {"metadata": {"name": "zero2"}, "spec": {"ports": [{"port": 80}]}})
    assert code == 201 and json.loads(body)["status"] == {"loadBalancer": {}}
    code, _, body = raw(c, "POST", "/apis/apps/v1/namespaces/default/replicasets", {
        "metadata": {"name": "zero-rs"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"z": "1"}},
                 "template": {"metadata": {"labels": {"z": "1"}},
                              "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
    assert code == 201 and json.loads(body)["status"] == {"replicas": 0}
    code, _, body = raw(c, "POST", "/apis/batch/v1/namespaces/default/jobs", {
        "metadata": {"name": "zero-job"},
        "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                         "containers": [{"name": "c", "image": "busybox"}]}}}})
    assert code == 201 and json.loads(body)["status"] == {}


def test_generate_name_collisions_are_retried(api_cluster):
    """RetryGenerateName (on by default since 1.31): a generated name that is
    taken is drawn again. 8,000 names from 27^5 suffixes collide at least once
    with a probability of about 0.9, which a server without retries answers 409."""
    c = api_cluster
    cfg = yaml.safe_load(open(c.kubeconfig))
    hdr = {"Authorization": "Bearer " + cfg["users"][0]["user"]["token"], "Content-Type": "application/json"}
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    conn = http.client.HTTPSConnection("127.0.0.1", c.port, context=ctx, timeout=20)
    raw(c, "POST", "/api/v1/namespaces", {"metadata": {"name": "gen"}})
    body = json.dumps({"metadata": {"generateName": "g-"}})
    names, codes = set(), {}
    for _ in range(8000):
        conn.request("POST", "/api/v1/namespaces/gen/configmaps", body=body, headers=hdr)
        r = conn.getresponse()
        out = r.read()
        codes[r.status] = codes.get(r.status, 0) + 1
        if r.status == 201:
            names.add(json.loads(out)["metadata"]["name"])
    conn.close()
    assert codes == {201: 8000}
    assert len(names) == 8000 and all(n.startswith("g-") and len(n) == 7 for n in names)
    raw(c, "DELETE", "/api/v1/namespaces/gen")
