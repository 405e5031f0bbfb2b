"""discovery.k8s.io/v1 EndpointSlice and networking.k8s.io/v1 NetworkPolicy
served as API kinds: kubectl (create, get, tables, watch, explain, patch,
validation messages as upstream's) and the Python client (DiscoveryV1Api,
NetworkingV1Api)."""
import json
import subprocess

import pytest

from conftest import KUBECTL

SLICE = """
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %s
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports:
- {name: http, port: 80}
- {port: 443, protocol: TCP, appProtocol: https}
endpoints:
- addresses: ["10.1.2.3"]
  conditions: {ready: true, serving: true, terminating: false}
  nodeName: node-a
  zone: zone-1
  hints: {forZones: [{name: zone-1}]}
  targetRef: {kind: Pod, namespace: default, name: web-0, uid: 1f2e3d4c}
- addresses: ["10.1.2.4"]
- addresses: ["10.1.2.5"]
- addresses: ["10.1.2.6"]
  deprecatedTopology: {a: b}
"""

POLICY = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: %s}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}, {namespaceSelector: {}}]
    ports: [{port: 80}, {port: 8000, endPort: 8080, protocol: UDP}, {port: http}]
  egress:
  - to: [{podSelector: {matchLabels: {role: db}}}]
"""


def rows(out):
    return [line.split() for line in out.strip().splitlines()]


def invalid(c, manifest):
    r = c.kubectl("create", "-f", "-", input=manifest, check=False)
    assert r.returncode != 0
    return r.stderr


def test_discovery_lists_both_kinds(api_cluster):
    res = rows(api_cluster.kubectl("api-resources").stdout)
    assert ["endpointslices", "discovery.k8s.io/v1", "true", "EndpointSlice"] in res
    assert ["networkpolicies", "netpol", "networking.k8s.io/v1", "true", "NetworkPolicy"] in res
    group = json.loads(api_cluster.kubectl("get", "--raw", "/apis/discovery.k8s.io/v1").stdout)
    eps = [r for r in group["resources"] if r["name"] == "endpointslices"][0]
    assert eps["kind"] == "EndpointSlice" and eps["namespaced"]
    assert sorted(eps["verbs"]) == sorted(["create", "delete", "deletecollection", "get", "list", "patch",
                                           "update", "watch"])
    assert not [r for r in group["resources"] if r["name"].startswith("endpointslices/")]
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    api = api_cluster.api_client()
    resp = api.call_api("/apis", "GET", header_params={"Accept": accept}, auth_settings=["BearerToken"],
                        _preload_content=False, _return_http_data_only=True)
    groups = {g["metadata"]["name"]: g for g in json.loads(resp.data)["items"]}
    res = groups["discovery.k8s.io"]["versions"][0]["resources"]
    assert [(r["resource"], r["responseKind"]["kind"], r["scope"]) for r in res] == [
        ("endpointslices", "EndpointSlice", "Namespaced")]
    assert "subresources" not in res[0] or not res[0]["subresources"]
    res = groups["networking.k8s.io"]["versions"][0]["resources"]
    assert [(r["resource"], r["shortNames"]) for r in res] == [("networkpolicies", ["netpol"])]


def test_endpointslice_create_defaults_and_table(api_cluster):
    c = api_cluster
    c.kubectl("apply", "-f", "-", input=SLICE % "web-abc")
    eps = c.kjson("get", "endpointslice", "web-abc")
    assert eps["addressType"] == "IPv4"
    assert eps["metadata"]["generation"] == 1
    assert eps["ports"] == [{"name": "http", "port": 80, "protocol": "TCP"},
                            {"name": "", "port": 443, "protocol": "TCP", "appProtocol": "https"}]
    ep0 = eps["endpoints"][0]
    assert ep0["conditions"] == {"ready": True, "serving": True, "terminating": False}
    assert ep0["nodeName"] == "node-a" and ep0["zone"] == "zone-1"
    assert ep0["hints"] == {"forZones": [{"name": "zone-1"}]}
    assert ep0["targetRef"] == {"kind": "Pod", "namespace": "default", "name": "web-0", "uid": "1f2e3d4c"}
    assert "conditions" not in eps["endpoints"][1]
    assert "deprecatedTopology" not in eps["endpoints"][3]  # not writable through v1
    out = rows(c.kubectl("get", "endpointslices").stdout)
    assert out[0] == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    row = [r for r in out if r[0] == "web-abc"][0]
    assert row[1:6] == ["IPv4", "80,443", "10.1.2.3,10.1.2.4,10.1.2.5", "+", "1"]
    assert row[6] == "more..."
    empty = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "empty"},
             "addressType": "FQDN", "endpoints": [], "ports": [{"name": "a"}]}
    c.kubectl("create", "-f", "-", input=json.dumps(empty))
    row = [r for r in rows(c.kubectl("get", "endpointslices").stdout) if r[0] == "empty"][0]
    assert row[1:4] == ["FQDN", "a", "<unset>"]
    sel = rows(c.kubectl("get", "endpointslices", "--field-selector", "metadata.name=empty").stdout)
    assert [r[0] for r in sel[1:]] == ["empty"]
    r = c.kubectl("get", "endpointslices", "--field-selector", "addressType=IPv4", check=False)
    assert r.returncode != 0
    assert '"addressType" is not a known field selector: only "metadata.name", "metadata.namespace"' in r.stderr
    labelled = rows(c.kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web").stdout)
    assert [r[0] for r in labelled[1:]] == ["web-abc"]
    c.kubectl("delete", "endpointslice", "web-abc", "empty")


def test_endpointslice_generation_and_immutable_address_type(api_cluster):
    c = api_cluster
    c.kubectl("apply", "-f", "-", input=SLICE % "gen")
    c.kubectl("annotate", "endpointslice", "gen", "a=b")
    assert c.kjson("get", "endpointslice", "gen")["metadata"]["generation"] == 1
    c.kubectl("label", "endpointslice", "gen", "x=y")
    assert c.kjson("get", "endpointslice", "gen")["metadata"]["generation"] == 2
    c.kubectl("patch", "endpointslice", "gen", "--type=merge", "-p", '{"endpoints":[{"addresses":["10.9.9.9"]}]}')
    eps = c.kjson("get", "endpointslice", "gen")
    assert eps["metadata"]["generation"] == 3 and eps["endpoints"] == [{"addresses": ["10.9.9.9"]}]
    # strategic merge: lists of an EndpointSlice are atomic
    c.kubectl("patch", "endpointslice", "gen", "-p", '{"ports":[{"name":"x","port":1}]}')
    assert c.kjson("get", "endpointslice", "gen")["ports"] == [{"name": "x", "port": 1, "protocol": "TCP"}]
    r = c.kubectl("patch", "endpointslice", "gen", "--type=merge", "-p",
                  '{"addressType":"FQDN","endpoints":[{"addresses":["a.example.com"]}]}', check=False)
    assert r.returncode != 0
    assert 'The EndpointSlice "gen" is invalid: addressType: Invalid value: "FQDN": field is immutable' in r.stderr
    c.kubectl("delete", "endpointslice", "gen")


def test_endpointslice_validation_messages(api_cluster):
    bad = """
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: bad}
addressType: IPv4
ports:
- {name: http, port: 80, protocol: TCPX}
- {name: http, port: 81}
- {name: Bad_Name, port: 82}
endpoints:
- addresses: ["10.1.2"]
- addresses: ["127.0.0.1", "fd00::1"]
- addresses: []
- addresses: ["10.0.0.1"]
  hostname: "Bad_Host"
  nodeName: "Bad_Node"
"""
    err = invalid(api_cluster, bad)
    for line in [
            '* endpoints[0].addresses[0]: Invalid value: "10.1.2": must be a valid IPv4 address',
            '* endpoints[0].addresses[0]: Invalid value: "10.1.2": must be a valid IP address',
            '* endpoints[1].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range '
            '(127.0.0.0/8, ::1/128)',
            '* endpoints[1].addresses[1]: Invalid value: "fd00::1": must be a valid IPv4 address',
            '* endpoints[2].addresses: Required value: must contain at least 1 address',
            '* endpoints[3].hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label must consist of',
            '* endpoints[3].nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of',
            '* ports[0].protocol: Unsupported value: "TCPX": supported values: "SCTP", "TCP", "UDP"',
            '* ports[1].name: Duplicate value: "http"',
            '* ports[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label']:
        assert line in err, (line, err)
    base = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "b2"},
            "endpoints": []}
    assert 'The EndpointSlice "b2" is invalid: addressType: Required value' in invalid(api_cluster,
                                                                                     json.dumps(base))
    base["addressType"] = "IPv5"
    assert ('addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'
            in invalid(api_cluster, json.dumps(base)))
    base["addressType"] = "IPv6"
    base["endpoints"] = [{"addresses": ["10.0.0.1", "fe80::1", "::", "2001:db8::1"]}]
    err = invalid(api_cluster, json.dumps(base))
    assert 'endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address' in err
    assert ('endpoints[0].addresses[1]: Invalid value: "fe80::1": may not be in the link-local range '
            '(169.254.0.0/16, fe80::/10)') in err
    assert 'endpoints[0].addresses[2]: Invalid value: "::": may not be unspecified (::)' in err
    assert "addresses[3]" not in err
    base["addressType"] = "FQDN"
    base["endpoints"] = [{"addresses": ["nodot", "ok.example.com."]}]
    err = invalid(api_cluster, json.dumps(base))
    assert ('endpoints[0].addresses[0]: Invalid value: "nodot": should be a domain with at least two segments '
            'separated by dots') in err
    assert "addresses[1]" not in err
    base["addressType"] = "IPv4"
    base["endpoints"] = [{"addresses": ["10.0.0.%d" % (i % 250 + 1)]} for i in range(1001)]
    assert ("endpoints: Too many: 1001: must have at most 1000 items" in invalid(api_cluster, json.dumps(base)))


def test_endpointslice_watch_and_explain(api_cluster):
    c = api_cluster
    w = subprocess.Popen([KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "get", "endpointslices",
                          "--watch", "-o", "name"], stdout=subprocess.PIPE, text=True)
    try:
        c.kubectl("apply", "-f", "-", input=SLICE % "watched")
        line = w.stdout.readline().strip()
        assert line == "endpointslice.discovery.k8s.io/watched"
    finally:
        w.kill()
        w.wait()
    c.kubectl("delete", "endpointslice", "watched")
    out = c.kubectl("explain", "endpointslice.endpoints.conditions").stdout
    assert "KIND:       EndpointSlice" in out and "VERSION:    v1" in out
    assert "ready\t<boolean>" in out and "terminating\t<boolean>" in out
    out = c.kubectl("explain", "endpointslice").stdout
    assert "addressType\t<string> -required-" in out
    assert "endpoints\t<[]Endpoint> -required-" in out
    out = c.kubectl("explain", "networkpolicy.spec.ingress.from.ipBlock").stdout
    assert "cidr\t<string> -required-" in out and "except\t<[]string>" in out


def test_networkpolicy_defaults_and_table(api_cluster):
    c = api_cluster
    c.kubectl("apply", "-f", "-", input=POLICY % "np1")
    np = c.kjson("get", "netpol", "np1")
    spec = np["spec"]
    assert np["metadata"]["generation"] == 1
    assert spec["policyTypes"] == ["Ingress", "Egress"]
    assert spec["ingress"][0]["ports"] == [{"port": 80, "protocol": "TCP"},
                                           {"port": 8000, "endPort": 8080, "protocol": "UDP"},
                                           {"port": "http", "protocol": "TCP"}]
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "networking.k8s.io/v1",
                                                      "kind": "NetworkPolicy", "metadata": {"name": "deny"}}))
    assert c.kjson("get", "netpol", "deny")["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    out = rows(c.kubectl("get", "networkpolicies").stdout)
    assert out[0] == ["NAME", "POD-SELECTOR", "AGE"]
    assert [r[:2] for r in out[1:]] == [["deny", "<none>"], ["np1", "app=web"]]
    c.kubectl("patch", "netpol", "np1", "--type=merge", "-p", '{"spec":{"podSelector":{"matchLabels":{"a":"b"}}}}')
    assert c.kjson("get", "netpol", "np1")["metadata"]["generation"] == 2
    c.kubectl("annotate", "netpol", "np1", "x=y")
    assert c.kjson("get", "netpol", "np1")["metadata"]["generation"] == 2
    c.kubectl("delete", "netpol", "np1", "deny")


def test_networkpolicy_validation_messages(api_cluster):
    bad = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: npbad}
spec:
  podSelector: {matchLabels: {"bad key!": x}}
  policyTypes: [Ingress, Sideways]
  ingress:
  - from: [{ipBlock: {cidr: 10.0.0.0/8, except: [11.0.0.0/16, 10.0.0.0/8]}, podSelector: {}}, {}]
    ports: [{port: 80, endPort: 70, protocol: ICMP}, {port: http, endPort: 90}, {endPort: 5}, {port: 70000}]
  egress:
  - to: [{ipBlock: {cidr: 10.0.0.0}}, {ipBlock: {cidr: ""}}]
"""
    err = invalid(api_cluster, bad)
    for line in [
            'spec.podSelector.matchLabels: Invalid value: "bad key!"',
            '* spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
            '* spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`',
            '* spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
            '* spec.ingress[0].ports[2].endPort: Invalid value: 5: may not be specified when `port` is not '
            'specified',
            '* spec.ingress[0].ports[3].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
            '* spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of '
            '`cidr`',
            '* spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of '
            '`cidr`',
            '* spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer',
            '* spec.ingress[0].from[1]: Required value: must specify a peer',
            '* spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. '
            '10.9.8.0/24 or 2001:db8::/64)',
            '* spec.egress[0].to[1].ipBlock.cidr: Required value',
            '* spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']:
        assert line in err, (line, err)


def test_python_client(api_cluster):
    from kubernetes import client
    api = api_cluster.api_client()
    disc = client.DiscoveryV1Api(api)
    net = client.NetworkingV1Api(api)
    body = client.V1EndpointSlice(
        metadata=client.V1ObjectMeta(name="py-slice", labels={"kubernetes.io/service-name": "py"}),
        address_type="IPv4",
        endpoints=[client.V1Endpoint(addresses=["10.4.0.1"], conditions=client.V1EndpointConditions(ready=False),
                                     hostname="h0")],
        ports=[client.DiscoveryV1EndpointPort(name="dns", port=53, protocol="UDP")])
    made = disc.create_namespaced_endpoint_slice("default", body)
    assert made.metadata.uid and made.metadata.generation == 1
    got = disc.read_namespaced_endpoint_slice("py-slice", "default")
    assert got.endpoints[0].addresses == ["10.4.0.1"] and got.endpoints[0].conditions.ready is False
    assert got.endpoints[0].hostname == "h0"
    assert (got.ports[0].name, got.ports[0].port, got.ports[0].protocol) == ("dns", 53, "UDP")
    names = [s.metadata.name for s in disc.list_endpoint_slice_for_all_namespaces(
        label_selector="kubernetes.io/service-name=py").items]
    assert names == ["py-slice"]
    got.endpoints.append(client.V1Endpoint(addresses=["10.4.0.2"]))
    upd = disc.replace_namespaced_endpoint_slice("py-slice", "default", got)
    assert len(upd.endpoints) == 2 and upd.metadata.generation == 2
    with pytest.raises(client.ApiException) as ei:
        disc.create_namespaced_endpoint_slice("default", client.V1EndpointSlice(
            metadata=client.V1ObjectMeta(name="py-bad"), address_type="IPv4",
            endpoints=[client.V1Endpoint(addresses=["nope"])]))
    assert ei.value.status == 422
    st = json.loads(ei.value.body)
    assert st["reason"] == "Invalid" and st["details"]["kind"] == "EndpointSlice"
    assert st["details"]["group"] == "discovery.k8s.io"
    assert st["details"]["causes"][0] == {"reason": "FieldValueInvalid", "message": 'Invalid value: "nope": must '
                                          'be a valid IPv4 address', "field": "endpoints[0].addresses[0]"}
    disc.delete_namespaced_endpoint_slice("py-slice", "default")

    np = client.V1NetworkPolicy(
        metadata=client.V1ObjectMeta(name="py-np"),
        spec=client.V1NetworkPolicySpec(
            pod_selector=client.V1LabelSelector(match_labels={"app": "py"}),
            egress=[client.V1NetworkPolicyEgressRule(ports=[client.V1NetworkPolicyPort(port=53)])]))
    made = net.create_namespaced_network_policy("default", np)
    assert made.spec.policy_types == ["Ingress", "Egress"]
    assert made.spec.egress[0].ports[0].protocol == "TCP"
    assert [p.metadata.name for p in net.list_namespaced_network_policy("default").items] == ["py-np"]
    net.delete_namespaced_network_policy("py-np", "default")
    assert net.list_network_policy_for_all_namespaces().items == []
