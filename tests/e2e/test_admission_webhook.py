"""Dynamic admission (admissionregistration.k8s.io/v1): the webhook
configuration kinds (defaults, validation messages, table columns) and the
MutatingAdmissionWebhook / ValidatingAdmissionWebhook plugins calling an
HTTPS webhook server that runs in this test process (a test CA made with the
openssl CLI), through kubectl and the Python client."""
import base64
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import free_port


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=60)


def host_ip():
    """A non-loopback IPv4 address of this machine: Endpoints may not point
    at the loopback range, as upstream's."""
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        return line.split()[3].split("/")[0]
    raise RuntimeError("no global IPv4 address")


class Hook(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        req = review["request"]
        self.server.seen.append((self.path, req))
        meta = (req.get("object") or req.get("oldObject") or {}).get("metadata", {})
        labels = meta.get("labels") or {}
        resp = {"uid": req["uid"], "allowed": True}
        if self.path.startswith("/validate"):
            if labels.get("deny") == "yes":
                resp = {"uid": req["uid"], "allowed": False,
                        "status": {"message": "configmaps labelled deny=yes are refused"}}
            elif labels.get("deny") == "forbidden":
                resp = {"uid": req["uid"], "allowed": False, "status": {"code": 403, "reason": "Forbidden"}}
        elif self.path.startswith("/mutate"):
            ops = [{"op": "add", "path": "/metadata/labels", "value": {}}] if not meta.get("labels") else []
            key = "second" if self.path.startswith("/mutate2") else "mutated"
            ops.append({"op": "add", "path": "/metadata/labels/" + key, "value": "yes"})
            resp.update(patchType="JSONPatch", patch=base64.b64encode(json.dumps(ops).encode()).decode(),
                        warnings=["mutated by the test webhook"])
        elif self.path.startswith("/baduid"):
            resp["uid"] = "not-the-request"
        body = json.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                           "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def hook(api_cluster):
    d = tempfile.mkdtemp(prefix="skiff-webhook-")
    p = lambda n: os.path.join(d, n)  # noqa: E731
    ip = host_ip()
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.crt"),
            "-days", "1", "-subj", "/CN=webhook-ca")
    with open(p("ext"), "w") as f:
        f.write(f"subjectAltName=IP:127.0.0.1,IP:{ip},DNS:wh.default.svc,DNS:wh2.default.svc\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("tls.key"), "-out", p("tls.csr"),
            "-subj", "/CN=wh.default.svc")
    openssl("x509", "-req", "-in", p("tls.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
            "-out", p("tls.crt"), "-days", "1", "-extfile", p("ext"))
    srv = ThreadingHTTPServer(("0.0.0.0", 0), Hook)
    srv.seen = []
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(p("tls.crt"), p("tls.key"))
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(p("ca.crt"), "rb") as f:
        srv.ca = base64.b64encode(f.read()).decode()
    srv.port = srv.server_address[1]
    srv.ip = ip
    yield srv
    srv.shutdown()
    shutil.rmtree(d, ignore_errors=True)


def namespace(c, name, labels):
    c.kubectl("apply", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}))


def config(kind, name, hooks):
    return json.dumps({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                       "metadata": {"name": name}, "webhooks": hooks})


def webhook(name, ns_label, client, **extra):
    h = {"name": name, "clientConfig": client, "sideEffects": "None", "admissionReviewVersions": ["v1"],
         "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                    "resources": ["configmaps"]}],
         "namespaceSelector": {"matchLabels": {"wh": ns_label}}}
    h.update(extra)
    return h


def cm(c, ns, name, labels=None, check=True, *args):
    return c.kubectl("create", "-f", "-", *args, check=check, input=json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns,
                                                               "labels": labels or {}}}))


def test_configuration_kinds(api_cluster):
    c = api_cluster
    res = [line.split() for line in c.kubectl("api-resources", "--api-group", "admissionregistration.k8s.io")
           .stdout.splitlines()]
    assert ["mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false",
            "MutatingWebhookConfiguration"] in res
    assert ["validatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false",
            "ValidatingWebhookConfiguration"] in res
    hooks = [webhook("a.example.com", "none", {"url": "https://127.0.0.1:1/x"}),
             webhook("b.example.com", "none", {"service": {"namespace": "default", "name": "wh"}})]
    c.kubectl("apply", "-f", "-", input=config("ValidatingWebhookConfiguration", "defaults", hooks))
    c.kubectl("apply", "-f", "-", input=config("MutatingWebhookConfiguration", "defaults", hooks[:1]))
    got = c.kjson("get", "validatingwebhookconfiguration", "defaults")["webhooks"]
    assert got[0]["failurePolicy"] == "Fail" and got[0]["matchPolicy"] == "Equivalent"
    assert got[0]["timeoutSeconds"] == 10 and got[0]["objectSelector"] == {}
    assert got[0]["rules"][0]["scope"] == "*" and "reinvocationPolicy" not in got[0]
    assert got[1]["clientConfig"]["service"]["port"] == 443
    m = c.kjson("get", "mutatingwebhookconfiguration", "defaults")["webhooks"][0]
    assert m["reinvocationPolicy"] == "Never"
    out = c.kubectl("get", "validatingwebhookconfigurations").stdout.splitlines()
    assert out[0].split() == ["NAME", "WEBHOOKS", "AGE"] and out[1].split()[:2] == ["defaults", "2"]
    # the Python client reads them back
    from kubernetes import client
    api = client.AdmissionregistrationV1Api(c.api_client())
    v = api.read_validating_webhook_configuration("defaults")
    assert [w.name for w in v.webhooks] == ["a.example.com", "b.example.com"]
    assert [x.metadata.name for x in api.list_mutating_webhook_configuration().items] == ["defaults"]
    c.kubectl("delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", "defaults")

    bad = [{"name": "short.name", "clientConfig": {"url": "http://u@h/p?q=1#f"}, "admissionReviewVersions": ["v2"],
            "timeoutSeconds": 31, "failurePolicy": "Maybe",
            "rules": [{"operations": ["*", "CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["*", "pods"], "scope": "Everywhere"}]},
           {"name": "dup.example.com", "clientConfig": {}, "sideEffects": "Some", "admissionReviewVersions": ["v1"]},
           {"name": "dup.example.com", "clientConfig": {"service": {"namespace": "", "name": "s", "port": 0,
                                                                    "path": "a//b"}},
            "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "matchConditions": [{"name": "bad", "expression": "object.metadata.name =="},
                                {"name": "Bad Name!", "expression": "true"}]}]
    r = c.kubectl("apply", "-f", "-", check=False, input=config("ValidatingWebhookConfiguration", "bad", bad))
    assert r.returncode != 0
    err = r.stderr
    assert 'The ValidatingWebhookConfiguration "bad" is invalid' in err, err
    for msg in [
        'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments '
        'separated by dots',
        "webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\"}: "
        "if '*' is present, must not specify other operations",
        "webhooks[0].rules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, must not "
        "specify other resources without subresources",
        'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", '
        '"Namespaced"',
        'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; "
        "desired format: https://host[/path]",
        'webhooks[0].clientConfig.url: Invalid value: "u": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, '
        'v1beta1',
        'webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
        "webhooks[2].clientConfig.service.namespace: Required value: service namespace is required",
        "webhooks[2].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and "
        "65535, inclusive",
        'webhooks[2].clientConfig.service.path: Invalid value: "a//b": must start with a \'/\'',
        'webhooks[2].clientConfig.service.path: Invalid value: "a//b": segment[1] may not be empty',
        'webhooks[2].name: Duplicate value: "dup.example.com"',
        'webhooks[2].matchConditions[0].expression: Invalid value: "object.metadata.name ==": compilation failed: '
        'ERROR: <input>:1:',
        'webhooks[2].matchConditions[1].name: Invalid value: "Bad Name!": name part must consist of',
    ]:
        assert msg in err, msg


def test_validating_webhook_denies_by_label_with_selectors(api_cluster, hook):
    c = api_cluster
    url = f"https://127.0.0.1:{hook.port}/validate"
    namespace(c, "wh-val", {"wh": "val"})
    namespace(c, "wh-other", {"wh": "other"})
    c.kubectl("apply", "-f", "-", input=config("ValidatingWebhookConfiguration", "val", [
        webhook("deny.example.com", "val", {"url": url, "caBundle": hook.ca}, timeoutSeconds=30,
                objectSelector={"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]})]))
    try:
        r = cm(c, "wh-val", "refused", {"deny": "yes"}, False)
        assert r.returncode != 0
        assert ('Error from server: error when creating "STDIN": admission webhook "deny.example.com" denied the '
                'request: configmaps labelled deny=yes are refused') in r.stderr
        assert c.kubectl("get", "cm", "-n", "wh-val", "refused", check=False).returncode != 0
        # the review the webhook got
        path, req = [s for s in hook.seen if s[1].get("name") == "refused"][-1]
        assert path == "/validate?timeout=30s"
        assert req["operation"] == "CREATE" and req["namespace"] == "wh-val"
        assert req["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
        assert req["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
        assert req["requestKind"] == req["kind"] and req["oldObject"] is None and req["dryRun"] is False
        assert req["userInfo"]["username"] == "system:admin" and "system:masters" in req["userInfo"]["groups"]
        assert req["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
        # the objectSelector exempts, the namespaceSelector exempts
        cm(c, "wh-val", "skipped", {"deny": "yes", "skip": "1"})
        cm(c, "wh-other", "elsewhere", {"deny": "yes"})
        # allowed, then an update refused (oldObject sent)
        cm(c, "wh-val", "allowed", {"a": "b"})
        r = c.kubectl("label", "cm", "-n", "wh-val", "allowed", "deny=yes", check=False)
        assert "denied the request: configmaps labelled deny=yes are refused" in r.stderr
        req = [s[1] for s in hook.seen if s[1].get("name") == "allowed"][-1]
        assert req["operation"] == "UPDATE" and req["oldObject"]["metadata"]["labels"] == {"a": "b"}
        # the Python client: the webhook's code and reason
        from kubernetes import client
        from kubernetes.client.rest import ApiException
        core = client.CoreV1Api(c.api_client())
        with pytest.raises(ApiException) as e:
            core.create_namespaced_config_map("wh-val", client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="py", labels={"deny": "forbidden"})))
        assert e.value.status == 403
        body = json.loads(e.value.body)
        assert body["reason"] == "Forbidden" and body["code"] == 403
        assert body["message"] == 'admission webhook "deny.example.com" denied the request: Forbidden'
        with pytest.raises(ApiException) as e:
            core.create_namespaced_config_map("wh-val", client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="py", labels={"deny": "yes"})))
        assert e.value.status == 400
        # dry run: sent with dryRun true (sideEffects None), nothing stored
        n = len(hook.seen)
        r = c.kubectl("create", "cm", "-n", "wh-val", "dry", "--dry-run=server", "-o", "name")
        assert r.stdout.strip() == "configmap/dry"
        assert [s[1]["dryRun"] for s in hook.seen[n:] if s[1].get("name") == "dry"] == [True]
        assert c.kubectl("get", "cm", "-n", "wh-val", "dry", check=False).returncode != 0
    finally:
        c.kubectl("delete", "validatingwebhookconfiguration", "val")
    # gone: the same object is admitted at once
    cm(c, "wh-val", "refused", {"deny": "yes"})


def test_mutating_webhook_patches_and_warns(api_cluster, hook):
    c = api_cluster
    namespace(c, "wh-mut", {"wh": "mut"})
    c.kubectl("apply", "-f", "-", input=config("MutatingWebhookConfiguration", "mut", [
        webhook("label.example.com", "mut", {"url": f"https://127.0.0.1:{hook.port}/mutate", "caBundle": hook.ca},
                timeoutSeconds=30)]))
    try:
        r = cm(c, "wh-mut", "plain")
        assert "Warning: mutated by the test webhook" in r.stderr
        assert c.kjson("get", "cm", "-n", "wh-mut", "plain")["metadata"]["labels"] == {"mutated": "yes"}
        cm(c, "wh-mut", "labelled", {"x": "y"})
        assert c.kjson("get", "cm", "-n", "wh-mut", "labelled")["metadata"]["labels"] == {"x": "y", "mutated": "yes"}
        # an update is patched too
        c.kubectl("label", "cm", "-n", "wh-mut", "plain", "mutated-", "--overwrite")
        assert c.kjson("get", "cm", "-n", "wh-mut", "plain")["metadata"]["labels"] == {"mutated": "yes"}
        # reinvocationPolicy IfNeeded: a later webhook changed the object, the first runs once more
        c.kubectl("apply", "-f", "-", input=config("MutatingWebhookConfiguration", "mut2", [
            webhook("second.example.com", "mut", {"url": f"https://127.0.0.1:{hook.port}/mutate2",
                                                  "caBundle": hook.ca}, timeoutSeconds=30)]))
        c.kubectl("patch", "mutatingwebhookconfiguration", "mut", "--type=json", "-p",
                  '[{"op": "replace", "path": "/webhooks/0/reinvocationPolicy", "value": "IfNeeded"}]')
        cm(c, "wh-mut", "twice")
        assert c.kjson("get", "cm", "-n", "wh-mut", "twice")["metadata"]["labels"] == {"mutated": "yes",
                                                                                      "second": "yes"}
        calls = [(s[0].split("?")[0], s[1]["object"]["metadata"].get("labels")) for s in hook.seen
                 if s[1].get("name") == "twice"]
        assert calls == [("/mutate", {}), ("/mutate2", {"mutated": "yes"}),
                         ("/mutate", {"mutated": "yes", "second": "yes"})]
    finally:
        c.kubectl("delete", "mutatingwebhookconfiguration", "mut", "mut2", "--ignore-not-found")


def test_failure_policy_and_bad_responses(api_cluster, hook):
    c = api_cluster
    dead = free_port()
    namespace(c, "wh-fail", {"wh": "fail"})
    c.kubectl("apply", "-f", "-", input=config("ValidatingWebhookConfiguration", "fail", [
        webhook("dead.example.com", "fail", {"url": f"https://127.0.0.1:{dead}/"},
                objectSelector={"matchLabels": {"policy": "fail"}}),
        webhook("ignored.example.com", "fail", {"url": f"https://127.0.0.1:{dead}/"}, failurePolicy="Ignore"),
        webhook("baduid.example.com", "fail", {"url": f"https://127.0.0.1:{hook.port}/baduid", "caBundle": hook.ca},
                timeoutSeconds=30, objectSelector={"matchLabels": {"policy": "baduid"}}),
        webhook("untrusted.example.com", "fail", {"url": f"https://127.0.0.1:{hook.port}/validate"},
                objectSelector={"matchLabels": {"policy": "untrusted"}}),
        webhook("cond.example.com", "fail", {"url": f"https://127.0.0.1:{dead}/"},
                objectSelector={"matchLabels": {"policy": "cond"}},
                matchConditions=[{"name": "admin", "expression": "request.userInfo.username == 'system:admin'"},
                                 {"name": "not-skipped", "expression": "object.metadata.name != 'skipme'"},
                                 {"name": "may-list", "expression":
                                  "authorizer.group('').resource('configmaps').namespace('wh-fail').check('list')"
                                  ".allowed()"}])]))
    try:
        r = cm(c, "wh-fail", "closed", {"policy": "fail"}, False)
        assert ('Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed '
                f'calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:{dead}/'
                f'?timeout=10s": dial tcp 127.0.0.1:{dead}: connect: connection refused') in r.stderr
        cm(c, "wh-fail", "open")  # only the Ignore one matches: admitted
        r = cm(c, "wh-fail", "baduid", {"policy": "baduid"}, False)
        assert ('failed calling webhook "baduid.example.com": received invalid webhook response: expected '
                'response.uid=') in r.stderr
        r = cm(c, "wh-fail", "untrusted", {"policy": "untrusted"}, False)
        assert 'failed calling webhook "untrusted.example.com": failed to call webhook: Post' in r.stderr
        # matchConditions: a false one skips the webhook; all true: it is called (and fails)
        cm(c, "wh-fail", "skipme", {"policy": "cond"})
        r = cm(c, "wh-fail", "called", {"policy": "cond"}, False)
        assert 'failed calling webhook "cond.example.com": failed to call webhook' in r.stderr
    finally:
        c.kubectl("delete", "validatingwebhookconfiguration", "fail")


def test_service_reference_resolved_through_endpoints(api_cluster, hook):
    c = api_cluster
    namespace(c, "wh-svc", {"wh": "svc"})
    c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "wh", "namespace": "default"},
         "spec": {"ports": [{"name": "https", "port": 8443, "targetPort": hook.port}]}},
        {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "wh", "namespace": "default"},
         "subsets": [{"addresses": [{"ip": hook.ip}], "ports": [{"name": "https", "port": hook.port}]}]}]}))
    c.kubectl("apply", "-f", "-", input=config("ValidatingWebhookConfiguration", "svc", [
        webhook("svc.example.com", "svc", {"service": {"namespace": "default", "name": "wh", "port": 8443,
                                                       "path": "/validate"}, "caBundle": hook.ca},
                timeoutSeconds=30),
        webhook("noport.example.com", "svc", {"service": {"namespace": "default", "name": "wh"},
                                              "caBundle": hook.ca},
                objectSelector={"matchLabels": {"port": "default"}})]))
    try:
        r = cm(c, "wh-svc", "refused", {"deny": "yes"}, False)
        assert 'admission webhook "svc.example.com" denied the request: configmaps labelled deny=yes' in r.stderr
        cm(c, "wh-svc", "fine")
        assert [s[0] for s in hook.seen if s[1].get("name") == "fine"][-1] == "/validate?timeout=30s"
        # a Service whose addresses are only in an EndpointSlice
        c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "wh2", "namespace": "default"},
             "spec": {"ports": [{"port": 443, "targetPort": hook.port}]}},
            {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
             "metadata": {"name": "wh2-a", "namespace": "default", "labels": {"kubernetes.io/service-name": "wh2"}},
             "addressType": "IPv4", "ports": [{"port": hook.port}],
             "endpoints": [{"addresses": [hook.ip], "conditions": {"ready": True}}]}]}))
        c.kubectl("patch", "validatingwebhookconfiguration", "svc", "--type=json", "-p", json.dumps(
            [{"op": "replace", "path": "/webhooks/0/clientConfig/service/name", "value": "wh2"},
             {"op": "replace", "path": "/webhooks/0/clientConfig/service/port", "value": 443}]))
        r = cm(c, "wh-svc", "sliced", {"deny": "yes"}, False)
        assert 'admission webhook "svc.example.com" denied the request: configmaps labelled deny=yes' in r.stderr
        r = cm(c, "wh-svc", "noport", {"port": "default"}, False)
        assert ('failed calling webhook "noport.example.com": failed to call webhook: Post '
                '"https://wh.default.svc:443/?timeout=10s": no service port 443 found for service "wh"') in r.stderr
    finally:
        c.kubectl("delete", "validatingwebhookconfiguration", "svc")
