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
