"""Bad input gets a Kubernetes Status with the right code and reason."""
import json
import ssl
import urllib.error
import urllib.request

import yaml


def call(c, method, path, body=None, ctype="application/json", token=None):
    cfg = yaml.safe_load(open(c.kubeconfig))
    tok = token if token is not None else cfg["users"][0]["user"]["token"]
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    headers = {"Content-Type": ctype}
    if tok:
        headers["Authorization"] = "Bearer " + tok
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_status_codes(api_cluster):
    c = api_cluster
    code, st = call(c, "POST", "/api/v1/namespaces/default/configmaps", "{not json")
    assert code == 400 and st["kind"] == "Status" and st["reason"] == "BadRequest"
    code, st = call(c, "GET", "/api/v1/namespaces/default/widgets")
    assert code == 404 and st["reason"] == "NotFound"
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps/none")
    assert code == 404 and st["message"] == 'configmaps "none" not found'
    assert st["details"] == {"name": "none", "kind": "configmaps"}
    code, st = call(c, "PUT", "/api/v1/namespaces/default/configmaps", "{}")
    assert code == 405 and st["reason"] == "MethodNotAllowed"
    big = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                      "data": {"k": "x" * (4 << 20)}})
    code, st = call(c, "POST", "/api/v1/namespaces/default/configmaps", big)
    assert code == 413 and st["reason"] == "RequestEntityTooLarge"
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps", token="")
    assert code == 401 and st["reason"] == "Unauthorized"
    code, st = call(c, "GET", "/api/v1/namespaces/default/configmaps", token="nope")
    assert code == 401
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "UPPER", "labels": {"-x": "y"}}}
    code, st = call(c, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(bad))
    assert code == 422 and st["reason"] == "Invalid"
    fields = {cause["field"] for cause in st["details"]["causes"]}
    assert "metadata.name" in fields and "metadata.labels" in fields
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dup"}}
    assert call(c, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(cm))[0] == 201
    code, st = call(c, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(cm))
    assert code == 409 and st["reason"] == "AlreadyExists"
    code, st = call(c, "PATCH", "/api/v1/namespaces/default/configmaps/dup", "{}", ctype="text/plain")
    assert code == 415 and st["reason"] == "UnsupportedMediaType"
    # the server is still healthy after all of that
    assert call(c, "GET", "/api/v1/namespaces/default/configmaps/dup")[0] == 200


def test_integer_query_parameters(api_cluster):
    """Integer options are read as the parameter codec reads them
    (strconv.ParseInt): a value that is no int64 is a 400 Status, any int64
    is served without overflowing a deadline or a timestamp."""
    c = api_cluster
    big = "99999999999999999999"
    cases = [("GET", f"/api/v1/pods?watch=1&timeoutSeconds={big}", big, "value out of range"),
             ("GET", "/api/v1/namespaces/default/configmaps?watch=true&limit=x", "x", "invalid syntax"),
             ("GET", "/api/v1/namespaces/default/configmaps?limit=1.5", "1.5", "invalid syntax"),
             ("GET", "/api/v1/namespaces/default/configmaps?timeoutSeconds=", "", "invalid syntax"),
             ("GET", "/api/v1/namespaces/default/configmaps?limit=-9223372036854775809",
              "-9223372036854775809", "value out of range"),
             ("DELETE", f"/api/v1/namespaces/default/configmaps/none?gracePeriodSeconds={big}", big,
              "value out of range"),
             ("GET", "/api/v1/namespaces/default/pods/none/log?tailLines=ten", "ten", "invalid syntax"),
             ("GET", f"/api/v1/namespaces/default/pods/none/log?sinceSeconds={big}", big, "value out of range"),
             ("GET", "/api/v1/namespaces/default/pods/none/log?limitBytes=%2B", "+", "invalid syntax")]
    for method, path, value, why in cases:
        code, st = call(c, method, path)
        assert code == 400, (path, code, st)
        assert st["kind"] == "Status" and st["reason"] == "BadRequest", st
        assert st["message"] == f'strconv.ParseInt: parsing "{value}": {why}', st

    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "intq"}}
    assert call(c, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(cm))[0] == 201
    for lim in ("-1", "%2B5", "9223372036854775806", "9223372036854775807"):
        code, lst = call(c, "GET", f"/api/v1/namespaces/default/configmaps?limit={lim}")
        assert code == 200 and "intq" in [i["metadata"]["name"] for i in lst["items"]], (lim, lst)
    # a watch that would end after the year 2262 still serves its events
    cfg = yaml.safe_load(open(c.kubeconfig))
    req = urllib.request.Request(
        f"https://127.0.0.1:{c.port}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=9223372036854775807",
        headers={"Authorization": "Bearer " + cfg["users"][0]["user"]["token"]})
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
        ev = json.loads(r.readline())
        assert ev["type"] == "ADDED" and ev["object"]["kind"] == "ConfigMap"
    # the longest grace period puts deletionTimestamp at the last time an int64 of nanoseconds holds
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "intq"},
           "spec": {"nodeName": "nowhere", "containers": [{"name": "c", "image": "busybox:1"}]}}
    assert call(c, "POST", "/api/v1/namespaces/default/pods", json.dumps(pod))[0] == 201
    code, st = call(c, "DELETE", "/api/v1/namespaces/default/pods/intq?gracePeriodSeconds=9223372036854775807")
    assert code == 200, st
    assert st["metadata"]["deletionTimestamp"].startswith("2262-04-11T"), st["metadata"]
    assert call(c, "DELETE", "/api/v1/namespaces/default/pods/intq?gracePeriodSeconds=0")[0] == 200
    # and the server is still alive
    assert c.proc.poll() is None
    assert call(c, "GET", "/api/v1/namespaces/default/configmaps/intq")[0] == 200
