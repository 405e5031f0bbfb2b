"""API aggregation (apiregistration.k8s.io/v1 APIService): the local
APIServices kept by the API server, validation, and an aggregated API server
running in this test process (Python http.server over TLS with a test CA
made by openssl) that the API server checks, proxies to with its front-proxy
client certificate and the user's identity in X-Remote-* headers, and lists
in discovery."""
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

from etcd_util import openssl
from test_agent_cluster import wait_for

GROUP, VERSION = "wardle.example.com", "v1beta1"
KUEUE_GROUP = "visibility.kueue.x-k8s.io"


def host_ip():
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        return line.split()[3].split("/")[0]
    raise RuntimeError("no global IPv4 address")


def resource_list(group):
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{VERSION}",
            "resources": [
                {"name": "flunders", "singularName": "flunder", "namespaced": True, "kind": "Flunder",
                 "verbs": ["get", "list", "watch"], "shortNames": ["fl"], "categories": ["wardle"]},
                {"name": "flunders/status", "singularName": "", "namespaced": True, "kind": "Flunder",
                 "verbs": ["get"]}]}


class Backend(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, obj, ctype="application/json"):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        cert = self.connection.getpeercert()
        cn = dict(x[0] for x in cert["subject"]).get("commonName") if cert else None
        ident = {"cn": cn, "user": self.headers.get("X-Remote-User"),
                 "groups": self.headers.get_all("X-Remote-Group") or [],
                 "extra": {k: v for k, v in self.headers.items() if k.lower().startswith("x-remote-extra-")},
                 "authorization": self.headers.get("Authorization")}
        self.server.seen.append((self.path, ident))
        path = self.path.split("?")[0]
        group = path.split("/")[2] if path.startswith("/apis/") else ""
        if cn != "front-proxy-client" or not ident["user"]:
            return self.reply(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 401,
                                    "reason": "Unauthorized", "message": "no front-proxy identity"})
        if path == f"/apis/{group}/{VERSION}":
            return self.reply(200, resource_list(group))
        if path.endswith("/flunders"):
            if "watch=true" in self.path or "watch=1" in self.path:
                self.send_response(200)
                self.send_header("Content-Type", "application/json;stream=watch")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(2):
                    ev = json.dumps({"type": "ADDED", "object": self.flunder(f"w{i}", ident)}).encode() + b"\n"
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                return
            return self.reply(200, {"kind": "FlunderList", "apiVersion": f"{group}/{VERSION}",
                                    "metadata": {"resourceVersion": "1"},
                                    "items": [self.flunder("one", ident)]})
        return self.reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
                                "reason": "NotFound", "message": f"no {path}"})

    def flunder(self, name, ident):
        return {"kind": "Flunder", "apiVersion": f"{GROUP}/{VERSION}",
                "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z",
                             "annotations": {"seen": json.dumps(ident, sort_keys=True)}}}


@pytest.fixture(scope="module")
def backend(api_cluster):
    c = api_cluster
    d = tempfile.mkdtemp(prefix="skiff-agg-")
    p = lambda n: os.path.join(d, n)  # noqa: E731
    ip = host_ip()
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.crt"),
            "-days", "1", "-subj", "/CN=wardle-ca")
    with open(p("ext"), "w") as f:
        f.write("subjectAltName=DNS:wardle.default.svc,DNS:kueue-visibility-server.kueue-system.svc\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("tls.key"), "-out", p("tls.csr"),
            "-subj", "/CN=wardle.default.svc")
    openssl("x509", "-req", "-in", p("tls.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
            "-out", p("tls.crt"), "-days", "1", "-extfile", p("ext"))
    wait_for(lambda: c.kubectl("get", "configmap", "-n", "kube-system", "extension-apiserver-authentication",
                               check=False).returncode == 0, what="extension-apiserver-authentication")
    cm = c.kjson("get", "configmap", "-n", "kube-system", "extension-apiserver-authentication")
    srv = ThreadingHTTPServer(("0.0.0.0", 0), Backend)
    srv.daemon_threads = True
    srv.seen = []
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(p("tls.crt"), p("tls.key"))
    # as an extension API server does: the front proxy's client certificate
    # must chain to requestheader-client-ca-file
    ctx.verify_mode = ssl.CERT_OPTIONAL
    ctx.load_verify_locations(cadata=cm["data"]["requestheader-client-ca-file"])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(p("ca.crt"), "rb") as f:
        srv.ca = base64.b64encode(f.read()).decode()
    srv.port = srv.server_address[1]
    srv.ip = ip
    srv.cm = cm
    yield srv
    srv.shutdown()
    srv.server_close()
    shutil.rmtree(d, ignore_errors=True)


def available(c, name):
    obj = c.kjson("get", "apiservice", name)
    for cond in obj.get("status", {}).get("conditions", []):
        if cond["type"] == "Available":
            return cond
    return None


def test_local_apiservices_and_validation(api_cluster):
    c = api_cluster
    out = c.kubectl("get", "apiservices").stdout.splitlines()
    assert out[0].split() == ["NAME", "SERVICE", "AVAILABLE", "AGE"]
    rows = {line.split()[0]: line.split()[1:3] for line in out[1:]}
    for name in ("v1.", "v1.apps", "v1.apiregistration.k8s.io", "v2.autoscaling", "v1.batch"):
        assert rows[name] == ["Local", "True"], (name, out)
    apps = c.kjson("get", "apiservice", "v1.apps")
    assert apps["metadata"]["labels"] == {"kube-aggregator.kubernetes.io/automanaged": "onstart"}
    assert apps["spec"] == {"group": "apps", "version": "v1", "groupPriorityMinimum": 17800, "versionPriority": 15}
    cond = available(c, "v1.apps")
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", "Local",
                                                                 "Local APIServices are always available")
    # a CRD's group/version comes and goes with it
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gizmos.agg.example.com"},
           "spec": {"group": "agg.example.com", "scope": "Namespaced",
                    "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    c.kubectl("apply", "-f", "-", input=json.dumps(crd))
    wait_for(lambda: c.kubectl("get", "apiservice", "v1.agg.example.com", check=False).returncode == 0,
             what="the CRD's APIService")
    got = c.kjson("get", "apiservice", "v1.agg.example.com")
    assert got["metadata"]["labels"] == {"kube-aggregator.kubernetes.io/automanaged": "true"}
    assert (got["spec"]["groupPriorityMinimum"], got["spec"]["versionPriority"]) == (1000, 100)
    c.kubectl("delete", "crd", "gizmos.agg.example.com")
    wait_for(lambda: c.kubectl("get", "apiservice", "v1.agg.example.com", check=False).returncode != 0,
             what="the CRD's APIService gone")
    # validation, as kube-aggregator's
    bad = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.foo.io"},
           "spec": {"group": "bar.io", "version": "v1beta1", "groupPriorityMinimum": 0, "versionPriority": 2000,
                    "caBundle": "YWJj", "insecureSkipTLSVerify": True,
                    "service": {"namespace": "x", "port": 70000}}}
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(bad))
    assert r.returncode != 0
    for msg in ('The APIService "v1.foo.io" is invalid',
                'metadata.name: Invalid value: "v1.foo.io": must be `spec.version+"."+spec.group`: "v1beta1.bar.io"',
                "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
                "spec.versionPriority: Invalid value: 2000: must be positive and less than 1000",
                "spec.service.name: Required value",
                "spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
                "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"):
        assert msg in r.stderr, (msg, r.stderr)
    local = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v2.foo.io"},
             "spec": {"group": "foo.io", "version": "v2", "groupPriorityMinimum": 10, "versionPriority": 10,
                      "caBundle": "YWJj"}}
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(local))
    assert 'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle' in r.stderr
    empty = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v2."},
             "spec": {"version": "v2", "groupPriorityMinimum": 10, "versionPriority": 10}}
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(empty))
    assert "spec.group: Required value: only v1 may have an empty group and it better be legacy kube" in r.stderr
    assert c.kubectl("api-resources", "--api-group=apiregistration.k8s.io", "--no-headers").stdout.split() == [
        "apiservices", "apiregistration.k8s.io/v1", "false", "APIService"]


def test_extension_apiserver_authentication(api_cluster, backend):
    data = backend.cm["data"]
    assert json.loads(data["requestheader-allowed-names"]) == ["front-proxy-client"]
    assert data["requestheader-username-headers"] == '["X-Remote-User"]'
    assert data["requestheader-group-headers"] == '["X-Remote-Group"]'
    assert data["requestheader-extra-headers-prefix"] == '["X-Remote-Extra-"]'
    assert data["client-ca-file"].startswith("-----BEGIN CERTIFICATE-----")
    assert data["requestheader-client-ca-file"].startswith("-----BEGIN CERTIFICATE-----")
    assert data["client-ca-file"] != data["requestheader-client-ca-file"]
    role = api_cluster.kjson("get", "role", "-n", "kube-system", "extension-apiserver-authentication-reader")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["configmaps"],
                              "resourceNames": ["extension-apiserver-authentication"],
                              "verbs": ["get", "list", "watch"]}]
    # an aggregated server's service account may read it once bound, as upstream's manifests do
    api_cluster.kubectl("create", "rolebinding", "-n", "kube-system", "wardle-auth-reader",
                        "--role=extension-apiserver-authentication-reader", "--serviceaccount=default:wardle")
    assert api_cluster.kubectl("auth", "can-i", "get", "configmap/extension-apiserver-authentication", "-n",
                               "kube-system", "--as=system:serviceaccount:default:wardle").stdout.strip() == "yes"


def test_aggregated_server(api_cluster, backend):
    c = api_cluster
    c.kubectl("create", "namespace", "kueue-system")
    c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "wardle", "namespace": "default"},
         "spec": {"ports": [{"name": "https", "port": 443, "targetPort": backend.port}]}},
        {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
         "metadata": {"name": "wardle-a", "namespace": "default",
                      "labels": {"kubernetes.io/service-name": "wardle"}},
         "addressType": "IPv4", "ports": [{"name": "https", "port": backend.port}],
         "endpoints": [{"addresses": [backend.ip], "conditions": {"ready": True}}]},
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": "kueue-visibility-server", "namespace": "kueue-system"},
         "spec": {"ports": [{"name": "https", "port": 443, "targetPort": backend.port}]}},
        {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
         "metadata": {"name": "kueue-visibility-server-a", "namespace": "kueue-system",
                      "labels": {"kubernetes.io/service-name": "kueue-visibility-server"}},
         "addressType": "IPv4", "ports": [{"name": "https", "port": backend.port}],
         "endpoints": [{"addresses": [backend.ip], "conditions": {"ready": True}}]}]}))
    # an APIService verified with its caBundle, and Kueue's own manifest (insecureSkipTLSVerify)
    wardle = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
              "metadata": {"name": f"{VERSION}.{GROUP}"},
              "spec": {"group": GROUP, "version": VERSION, "groupPriorityMinimum": 1000, "versionPriority": 15,
                       "caBundle": backend.ca, "service": {"name": "wardle", "namespace": "default"}}}
    kueue = (f"apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n"
             f"  labels:\n    app.kubernetes.io/component: controller\n    app.kubernetes.io/name: kueue\n"
             f"    control-plane: controller-manager\n  name: v1beta1.{KUEUE_GROUP}\nspec:\n"
             f"  group: {KUEUE_GROUP}\n  groupPriorityMinimum: 100\n  insecureSkipTLSVerify: true\n"
             f"  service:\n    name: kueue-visibility-server\n    namespace: kueue-system\n"
             f"  version: v1beta1\n  versionPriority: 100\n")
    c.kubectl("apply", "-f", "-", input=json.dumps(wardle))
    c.kubectl("apply", "-f", "-", input=kueue)
    assert c.kjson("get", "apiservice", f"{VERSION}.{GROUP}")["spec"]["service"]["port"] == 443
    for name in (f"{VERSION}.{GROUP}", f"v1beta1.{KUEUE_GROUP}"):
        cond = wait_for(lambda: (available(c, name) or {}).get("status") == "True" and available(c, name),
                        what=f"{name} available")
        assert (cond["reason"], cond["message"]) == ("Passed", "all checks passed")
    rows = {line.split()[0]: line.split()[1:3] for line in c.kubectl("get", "apiservices").stdout.splitlines()}
    assert rows[f"{VERSION}.{GROUP}"] == ["default/wardle", "True"]
    assert rows[f"v1beta1.{KUEUE_GROUP}"] == ["kueue-system/kueue-visibility-server", "True"]

    # proxied: the backend's answers, the admin's identity, the front-proxy certificate
    disc = json.loads(c.kubectl("get", "--raw", f"/apis/{GROUP}/{VERSION}").stdout)
    assert disc == resource_list(GROUP)
    flunders = c.kjson("get", "flunders", "-n", "default")
    assert [i["metadata"]["name"] for i in flunders["items"]] == ["one"]
    seen = json.loads(flunders["items"][0]["metadata"]["annotations"]["seen"])
    assert seen["cn"] == "front-proxy-client" and seen["user"] == "system:admin"
    assert "system:masters" in seen["groups"] and "system:authenticated" in seen["groups"]
    assert seen["authorization"] is None
    assert c.kjson("get", "fl")["items"][0]["metadata"]["name"] == "one"
    # a watch streams through
    w = c.kubectl("get", "--raw", f"/apis/{GROUP}/{VERSION}/namespaces/default/flunders?watch=true").stdout
    assert [json.loads(line)["object"]["metadata"]["name"] for line in w.splitlines()] == ["w0", "w1"]
    # discovery: /apis and the aggregated form list the groups, api-resources the resources
    groups = json.loads(c.kubectl("get", "--raw", "/apis").stdout)["groups"]
    names = [g["name"] for g in groups]
    assert names.index(GROUP) < names.index(KUEUE_GROUP)  # groupPriorityMinimum 1000 before 100
    assert json.loads(c.kubectl("get", "--raw", f"/apis/{GROUP}").stdout)["preferredVersion"] == {
        "groupVersion": f"{GROUP}/{VERSION}", "version": VERSION}
    res = c.kubectl("api-resources", f"--api-group={GROUP}", "--no-headers").stdout.split()
    assert res == ["flunders", "fl", f"{GROUP}/{VERSION}", "true", "Flunder"]

    # an RBAC-authorized user reaches the backend as itself; others are refused here
    c.kubectl("create", "clusterrole", "flunder-reader", "--verb=list,get", f"--resource=flunders.{GROUP}")
    c.kubectl("create", "clusterrolebinding", "flunder-reader", "--clusterrole=flunder-reader", "--user=alice")
    as_alice = c.kjson("get", "flunders", "-n", "default", "--as=alice", "--as-group=wardlers")
    seen = json.loads(as_alice["items"][0]["metadata"]["annotations"]["seen"])
    assert seen["user"] == "alice" and "wardlers" in seen["groups"]
    r = c.kubectl("get", "flunders", "-n", "default", "--as=bob", check=False)
    assert ('User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace '
            '"default"') in r.stderr

    # the backend goes away: Available=False, 503, kubectl warns and goes on
    backend.shutdown()
    backend.server_close()
    cond = wait_for(lambda: (available(c, f"{VERSION}.{GROUP}") or {}).get("status") == "False"
                    and available(c, f"{VERSION}.{GROUP}"), what="unavailable")
    assert cond["reason"] == "FailedDiscoveryCheck"
    assert cond["message"].startswith(f"failing or missing response from https://{backend.ip}:{backend.port}"
                                      f"/apis/{GROUP}/{VERSION}")
    rows = {line.split()[0]: line.split()[1:4] for line in c.kubectl("get", "apiservices").stdout.splitlines()}
    assert rows[f"{VERSION}.{GROUP}"][:3] == ["default/wardle", "False", "(FailedDiscoveryCheck)"]
    r = c.kubectl("get", "--raw", f"/apis/{GROUP}/{VERSION}/namespaces/default/flunders", check=False)
    assert r.returncode != 0 and "ServiceUnavailable" in r.stderr or "unable to handle" in r.stderr, r.stderr
    # aggregated discovery marks the version Stale (client-go's StaleGroupVersionError); kubectl keeps working
    raw = c.api_client().call_api("/apis", "GET", header_params={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"},
        auth_settings=["BearerToken"], _preload_content=False)[0].data
    items = {i["metadata"]["name"]: i["versions"] for i in json.loads(raw)["items"]}
    assert items[GROUP] == [{"version": VERSION, "resources": [], "freshness": "Stale"}]
    r = c.kubectl("api-resources", check=False)
    assert "deployments" in r.stdout
    # a missing Service and a wrong port have upstream's reasons
    c.kubectl("delete", "service", "kueue-visibility-server", "-n", "kueue-system")
    cond = wait_for(lambda: (available(c, f"v1beta1.{KUEUE_GROUP}") or {}).get("reason") == "ServiceNotFound"
                    and available(c, f"v1beta1.{KUEUE_GROUP}"), what="ServiceNotFound")
    assert cond["message"] == 'service/kueue-visibility-server in "kueue-system" is not present'
    c.kubectl("patch", "apiservice", f"{VERSION}.{GROUP}", "--type=merge", "-p",
              json.dumps({"spec": {"service": {"port": 8443}}}))
    cond = wait_for(lambda: (available(c, f"{VERSION}.{GROUP}") or {}).get("reason") == "ServicePortError"
                    and available(c, f"{VERSION}.{GROUP}"), what="ServicePortError")
    assert cond["message"] == 'service/wardle in "default" is not listening on port 8443'
    # deleted: its paths are not found any more
    c.kubectl("delete", "apiservice", f"{VERSION}.{GROUP}", f"v1beta1.{KUEUE_GROUP}")
    wait_for(lambda: "NotFound" in c.kubectl("get", "--raw", f"/apis/{GROUP}/{VERSION}/namespaces/default/flunders",
                                             check=False).stderr, what="404")
