"""Service API semantics as kube-apiserver's Service REST storage: ClusterIP
and NodePort allocation (unique under concurrency, freed on delete and type
changes, kept across restarts), user-chosen values and their conflicts,
headless and ExternalName Services, immutability, the cluster's own
objects (default/kubernetes, kube-system/kube-dns, kube-system/skiff-network)
and the serving certificate's names. No containers: API-only servers."""
import ipaddress
import json
import os
import shutil
import subprocess
import tempfile
import threading

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import SKIFF, Cluster


def svc(name, port=80, **spec):
    s = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
         "spec": {"selector": {"app": name}, "ports": [{"port": port}]}}
    s["spec"].update(spec)
    return s


def apply(c, obj):
    return c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def create_fails(c, obj):
    r = c.kubectl("create", "-f", "-", input=json.dumps(obj), check=False)
    assert r.returncode != 0, r.stdout
    return r.stderr


def in_cidr(ip, cidr):
    return ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)


@pytest.fixture
def small_cluster(tmpdir_skiff):
    """A server whose service CIDR has 14 addresses: kubernetes and kube-dns
    take two, 12 are left."""
    c = Cluster(tmpdir_skiff, ["--no-agent", "--service-cidr", "10.96.0.0/28",
                               "--service-node-port-range", "30100-30104"]).start()
    yield c
    c.cleanup()


def test_expose_deployment_gets_a_cluster_ip(api_cluster):
    c = api_cluster
    c.kubectl("create", "deployment", "exp-web", "--image=nginx")
    c.kubectl("expose", "deployment", "exp-web", "--port", "80")
    s = c.kjson("get", "svc", "exp-web")
    ip = s["spec"]["clusterIP"]
    assert in_cidr(ip, "10.43.0.0/16") and ip not in ("10.43.0.0", "10.43.255.255")
    assert s["spec"]["clusterIPs"] == [ip]
    assert s["spec"]["ipFamilies"] == ["IPv4"] and s["spec"]["ipFamilyPolicy"] == "SingleStack"
    assert s["spec"]["internalTrafficPolicy"] == "Cluster"
    # dynamic allocation prefers the upper band: the lower 256 addresses are for static ones
    assert int(ipaddress.ip_address(ip)) - int(ipaddress.ip_address("10.43.0.0")) > 256
    row = c.kubectl("get", "svc", "exp-web", "--no-headers").stdout.split()
    assert row[:5] == ["exp-web", "ClusterIP", ip, "<none>", "80/TCP"]
    c.kubectl("delete", "deployment", "exp-web")
    c.kubectl("delete", "svc", "exp-web")


def test_concurrent_creates_never_share_an_ip(api_cluster):
    c = api_cluster
    v1 = client.CoreV1Api(c.api_client())
    ips, errors = {}, []
    lock = threading.Lock()

    def make(i):
        try:
            s = svc(f"conc-{i}")
            s["metadata"]["labels"] = {"conc": "1"}
            out = v1.create_namespaced_service("default", s)
            with lock:
                ips[out.metadata.name] = out.spec.cluster_ip
        except Exception as e:  # noqa: BLE001 - reported below
            with lock:
                errors.append(repr(e))

    threads = [threading.Thread(target=make, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(ips) == 200 and len(set(ips.values())) == 200
    assert all(in_cidr(ip, "10.43.0.0/16") for ip in ips.values())
    # what the server stored is what it answered
    stored = {s.metadata.name: s.spec.cluster_ip for s in v1.list_namespaced_service("default").items}
    assert all(stored[n] == ip for n, ip in ips.items())
    names = list(ips)
    dels = [threading.Thread(target=lambda part: [v1.delete_namespaced_service(n, "default") for n in part],
                             args=(names[k::20],)) for k in range(20)]
    for t in dels:
        t.start()
    for t in dels:
        t.join()
    assert not v1.list_namespaced_service("default", label_selector="conc=1").items
    # each freed address can be taken again, explicitly
    for n, ip in list(ips.items())[:5]:
        out = v1.create_namespaced_service("default", svc(n + "-again", clusterIP=ip))
        assert out.spec.cluster_ip == ip
        v1.delete_namespaced_service(n + "-again", "default")


def test_a_full_range_is_upstreams_error_and_delete_frees(small_cluster):
    c = small_cluster
    v1 = client.CoreV1Api(c.api_client())
    got = [v1.create_namespaced_service("default", svc(f"f{i}")).spec.cluster_ip for i in range(12)]
    assert len(set(got)) == 12
    assert all(in_cidr(ip, "10.96.0.0/28") and ip not in ("10.96.0.0", "10.96.0.15", "10.96.0.1", "10.96.0.10")
               for ip in got)
    with pytest.raises(ApiException) as e:
        v1.create_namespaced_service("default", svc("f12"))
    assert e.value.status == 500
    assert json.loads(e.value.body)["message"] == \
        "Internal error occurred: failed to allocate a serviceIP: range is full"
    v1.delete_namespaced_service("f3", "default")
    assert v1.create_namespaced_service("default", svc("f12")).spec.cluster_ip == got[3]
    # a failed create gives back what it took: the NodePort of an invalid Service
    bad = svc("np-bad", type="NodePort")
    bad["spec"]["ports"] = [{"name": "a", "port": 80, "nodePort": 30100}, {"name": "b", "port": 81, "nodePort": 1}]
    v1.delete_namespaced_service("f4", "default")
    with pytest.raises(ApiException) as e:
        v1.create_namespaced_service("default", bad)
    assert e.value.status == 422
    ok = svc("np-ok", type="NodePort")
    ok["spec"]["ports"] = [{"port": 80, "nodePort": 30100}]
    out = v1.create_namespaced_service("default", ok)
    assert out.spec.ports[0].node_port == 30100 and out.spec.cluster_ip == got[4]


def test_restart_keeps_allocations(small_cluster):
    c = small_cluster
    v1 = client.CoreV1Api(c.api_client())
    before = {}
    for i in range(12):
        s = svc(f"r{i}", type="NodePort") if i < 5 else svc(f"r{i}")
        out = v1.create_namespaced_service("default", s)
        before[out.metadata.name] = (out.spec.cluster_ip, out.spec.ports[0].node_port)
    assert len({ip for ip, _ in before.values()}) == 12
    assert sorted(p for _, p in before.values() if p) == [30100, 30101, 30102, 30103, 30104]
    c.stop()
    c.start()
    v1 = client.CoreV1Api(c.api_client())
    after = {s.metadata.name: (s.spec.cluster_ip, s.spec.ports[0].node_port)
             for s in v1.list_namespaced_service("default").items if s.metadata.name.startswith("r")}
    assert after == before
    # nothing was given twice: both ranges are still full after the restart
    with pytest.raises(ApiException) as e:
        v1.create_namespaced_service("default", svc("r-new"))
    assert "failed to allocate a serviceIP: range is full" in json.loads(e.value.body)["message"]
    v1.delete_namespaced_service("r11", "default")
    with pytest.raises(ApiException) as e:
        v1.create_namespaced_service("default", svc("r-np", type="NodePort"))
    assert e.value.status == 500
    assert json.loads(e.value.body)["message"] == \
        "Internal error occurred: failed to allocate a nodePort: range is full"
    # that failed create gave its address back
    assert v1.create_namespaced_service("default", svc("r-ip")).spec.cluster_ip == before["r11"][0]
    v1.delete_namespaced_service("r0", "default")
    out = v1.create_namespaced_service("default", svc("r-np", type="NodePort"))
    assert (out.spec.cluster_ip, out.spec.ports[0].node_port) == before["r0"]


def test_user_chosen_cluster_ip_and_its_conflicts(api_cluster):
    c = api_cluster
    apply(c, svc("pick-a", clusterIP="10.43.0.50"))
    assert c.kjson("get", "svc", "pick-a")["spec"]["clusterIPs"] == ["10.43.0.50"]
    err = create_fails(c, svc("pick-b", clusterIP="10.43.0.50"))
    assert ('The Service "pick-b" is invalid: spec.clusterIPs: Invalid value: []string{"10.43.0.50"}: '
            'failed to allocate IP 10.43.0.50: provided IP is already allocated') in err
    err = create_fails(c, svc("pick-c", clusterIP="10.44.0.5"))
    assert ('spec.clusterIPs: Invalid value: []string{"10.44.0.5"}: failed to allocate IP 10.44.0.5: the provided '
            'IP (10.44.0.5) is not in the valid range. The range of valid IPs is 10.43.0.0/16') in err
    err = create_fails(c, svc("pick-d", clusterIP="10.43.0.300"))
    assert 'spec.clusterIPs[0]: Invalid value: "10.43.0.300": must be a valid IP address' in err
    err = create_fails(c, svc("pick-6", clusterIP="fd00::10"))
    assert "failed to allocate IP fd00::10: the provided IP (fd00::10) is not in the valid range" in err
    err = create_fails(c, svc("pick-ds", ipFamilyPolicy="RequireDualStack"))
    assert ('spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for '
            'dual-stack services') in err
    err = create_fails(c, svc("pick-v6", ipFamilies=["IPv6"]))
    assert 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster' in err
    # the network and broadcast addresses are never given
    for ip in ("10.43.0.0", "10.43.255.255"):
        assert "is not in the valid range" in create_fails(c, svc("pick-e", clusterIP=ip))
    # immutable
    r = c.kubectl("patch", "svc", "pick-a", "-p", '{"spec":{"clusterIP":"10.43.0.51"}}', check=False)
    assert r.returncode != 0
    assert 'spec.clusterIPs[0]: Invalid value: "10.43.0.51": may not change once set' in r.stderr
    # a replace without the allocated fields keeps them (upstream's patchAllocatedValues)
    cur = c.kjson("get", "svc", "pick-a")
    del cur["spec"]["clusterIP"], cur["spec"]["clusterIPs"]
    c.kubectl("replace", "-f", "-", input=json.dumps(cur))
    assert c.kjson("get", "svc", "pick-a")["spec"]["clusterIP"] == "10.43.0.50"
    c.kubectl("delete", "svc", "pick-a")
    apply(c, svc("pick-b", clusterIP="10.43.0.50"))
    c.kubectl("delete", "svc", "pick-b")


def test_headless_and_external_name(api_cluster):
    c = api_cluster
    c.kubectl("create", "service", "clusterip", "hl", "--clusterip=None")
    s = c.kjson("get", "svc", "hl")["spec"]
    assert s["clusterIP"] == "None" and s["clusterIPs"] == ["None"]
    assert s["ipFamilyPolicy"] == "SingleStack" and s["ipFamilies"] == ["IPv4"]
    apply(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hl-nosel"},
              "spec": {"clusterIP": "None", "ports": [{"port": 5432}]}})
    s = c.kjson("get", "svc", "hl-nosel")["spec"]
    assert s["ipFamilyPolicy"] == "SingleStack" and s["ipFamilies"] == ["IPv4"] and "selector" not in s
    # headless without a selector takes no address: it may be dual-stack even here
    apply(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hl-ds"},
              "spec": {"clusterIP": "None", "ipFamilyPolicy": "PreferDualStack", "ports": [{"port": 53}]}})
    assert c.kjson("get", "svc", "hl-ds")["spec"]["ipFamilies"] == ["IPv4", "IPv6"]
    apply(c, svc("hl-sel-ds", clusterIP="None", ipFamilyPolicy="PreferDualStack"))
    assert c.kjson("get", "svc", "hl-sel-ds")["spec"]["ipFamilies"] == ["IPv4"]
    c.kubectl("delete", "svc", "hl-ds", "hl-sel-ds")
    err = create_fails(c, svc("hl-np", clusterIP="None", type="NodePort"))
    assert "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services" in err
    c.kubectl("create", "service", "externalname", "en", "--external-name", "db.example.com")
    s = c.kjson("get", "svc", "en")["spec"]
    assert s["type"] == "ExternalName" and s["externalName"] == "db.example.com"
    for k in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy"):
        assert k not in s
    row = c.kubectl("get", "svc", "en", "--no-headers").stdout.split()
    assert row[:5] == ["en", "ExternalName", "<none>", "db.example.com", "<none>"]
    err = create_fails(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "en-bad"},
                           "spec": {"type": "ExternalName", "externalName": "Not_A_Name"}})
    assert "spec.externalName: Invalid value: \"Not_A_Name\"" in err
    err = create_fails(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "en-bad"},
                           "spec": {"type": "ExternalName"}})
    assert "spec.externalName: Required value" in err
    c.kubectl("delete", "svc", "hl", "hl-nosel", "en")


def test_node_ports(api_cluster):
    c = api_cluster
    c.kubectl("create", "service", "nodeport", "np-a", "--tcp=80:8080")
    s = c.kjson("get", "svc", "np-a")["spec"]
    port = s["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767 and s["externalTrafficPolicy"] == "Cluster"
    row = c.kubectl("get", "svc", "np-a", "--no-headers").stdout.split()
    assert row[1] == "NodePort" and row[4] == f"80:{port}/TCP"
    r = c.kubectl("create", "service", "nodeport", "np-b", "--tcp=80", f"--node-port={port}", check=False)
    assert f'spec.ports[0].nodePort: Invalid value: {port}: provided port is already allocated' in r.stderr
    r = c.kubectl("create", "service", "nodeport", "np-b", "--tcp=80", "--node-port=29999", check=False)
    assert ("spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. "
            "The range of valid ports is 30000-32767") in r.stderr
    c.kubectl("create", "service", "nodeport", "np-b", "--tcp=80", "--node-port=30007")
    assert c.kjson("get", "svc", "np-b")["spec"]["ports"][0]["nodePort"] == 30007
    # one NodePort for the TCP and UDP ports of one number
    apply(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "np-dns"},
              "spec": {"type": "NodePort", "selector": {"a": "b"},
                       "ports": [{"name": "u", "port": 53, "protocol": "UDP"},
                                 {"name": "t", "port": 53, "protocol": "TCP"}]}})
    p = c.kjson("get", "svc", "np-dns")["spec"]["ports"]
    assert p[0]["nodePort"] == p[1]["nodePort"]
    # LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort; no LB: <pending>
    apply(c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
              "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "selector": {"a": "b"},
                       "ports": [{"port": 443}]}})
    s = c.kjson("get", "svc", "lb")
    hc, np = s["spec"]["healthCheckNodePort"], s["spec"]["ports"][0]["nodePort"]
    assert 30000 <= hc <= 32767 and hc != np and s["spec"]["allocateLoadBalancerNodePorts"] is True
    assert s["status"] == {"loadBalancer": {}}
    row = c.kubectl("get", "svc", "lb", "--no-headers").stdout.split()
    assert row[1:5] == ["LoadBalancer", s["spec"]["clusterIP"], "<pending>", f"443:{np}/TCP"]
    # Local → Cluster: the healthCheckNodePort goes (and is free again, below)
    c.kubectl("patch", "svc", "lb", "-p", '{"spec":{"externalTrafficPolicy":"Cluster"}}')
    assert "healthCheckNodePort" not in c.kjson("get", "svc", "lb")["spec"]
    err = create_fails(c, svc("hc-bad", healthCheckNodePort=30500))
    assert "spec.healthCheckNodePort: Invalid value: 30500: may only be set when `type` is 'LoadBalancer'" in err
    # a NodePort on a ClusterIP Service is refused
    bad = svc("cip-np")
    bad["spec"]["ports"][0]["nodePort"] = 30555
    assert "may not be used when `type` is 'ClusterIP'" in create_fails(c, bad)
    c.kubectl("delete", "svc", "np-a", "np-b", "np-dns", "lb")
    c.kubectl("create", "service", "nodeport", "np-c", "--tcp=80", f"--node-port={port}")
    c.kubectl("create", "service", "nodeport", "np-d", "--tcp=80", f"--node-port={hc}")
    c.kubectl("delete", "svc", "np-c", "np-d")


def test_type_changes_allocate_and_free(api_cluster):
    c = api_cluster
    apply(c, svc("tc", clusterIP="10.43.0.60"))
    c.kubectl("patch", "svc", "tc", "-p", '{"spec":{"type":"NodePort"}}')
    s = c.kjson("get", "svc", "tc")["spec"]
    port = s["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767 and s["clusterIP"] == "10.43.0.60"
    # back to ClusterIP: the NodePort and externalTrafficPolicy go, the port is free again
    c.kubectl("patch", "svc", "tc", "-p", '{"spec":{"type":"ClusterIP"}}')
    s = c.kjson("get", "svc", "tc")["spec"]
    assert "nodePort" not in s["ports"][0] and "externalTrafficPolicy" not in s
    c.kubectl("create", "service", "nodeport", "tc-np", "--tcp=80", f"--node-port={port}")
    # to ExternalName: the ClusterIP goes and is free again
    c.kubectl("patch", "svc", "tc", "-p", '{"spec":{"type":"ExternalName","externalName":"x.example.com"}}')
    s = c.kjson("get", "svc", "tc")["spec"]
    assert "clusterIP" not in s and "clusterIPs" not in s and "ipFamilies" not in s
    apply(c, svc("tc-ip", clusterIP="10.43.0.60"))
    # and back: a new address is given
    c.kubectl("patch", "svc", "tc", "-p", '{"spec":{"type":"ClusterIP","externalName":null}}')
    s = c.kjson("get", "svc", "tc")["spec"]
    assert in_cidr(s["clusterIP"], "10.43.0.0/16") and s["clusterIP"] != "10.43.0.60"
    assert s["ipFamilies"] == ["IPv4"]
    c.kubectl("delete", "svc", "tc", "tc-np", "tc-ip")


def test_defaults_and_validation(api_cluster):
    c = api_cluster
    apply(c, svc("aff", sessionAffinity="ClientIP"))
    s = c.kjson("get", "svc", "aff")["spec"]
    assert s["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    assert s["ports"][0]["protocol"] == "TCP" and s["ports"][0]["targetPort"] == 80
    c.kubectl("delete", "svc", "aff")
    two = svc("two")
    two["spec"]["ports"] = [{"port": 80}, {"port": 81}]
    assert "spec.ports[0].name: Required value" in create_fails(c, two)
    two["spec"]["ports"] = [{"name": "a", "port": 80}, {"name": "a", "port": 81}]
    assert 'spec.ports[1].name: Duplicate value: "a"' in create_fails(c, two)
    two["spec"]["ports"] = [{"name": "a", "port": 80}, {"name": "b", "port": 80}]
    assert ('spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), '
            'Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}') in create_fails(c, two)
    two["spec"]["type"] = "NodePort"
    two["spec"]["ports"] = [{"name": "a", "port": 80, "nodePort": 30090}, {"name": "b", "port": 81, "nodePort": 30090}]
    assert "spec.ports[1].nodePort: Duplicate value: 30090" in create_fails(c, two)
    del two["spec"]["type"]
    two["spec"]["ports"] = [{"name": "a", "port": 0}]
    assert "spec.ports[0].port" in create_fails(c, two)
    two["spec"]["ports"] = [{"name": "a", "port": 80, "protocol": "ICMP"}]
    assert 'spec.ports[0].protocol: Unsupported value: "ICMP"' in create_fails(c, two)
    bad = svc("aff-bad", sessionAffinity="ClientIP",
              sessionAffinityConfig={"clientIP": {"timeoutSeconds": 86401}})
    assert ("spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 "
            "and less than 86400") in create_fails(c, bad)
    bad = svc("etp-bad", externalTrafficPolicy="Local")
    assert ('spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible '
            'services') in create_fails(c, bad)
    assert "spec.ports: Required value" in create_fails(
        c, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "noports"}, "spec": {}})
    # no allocation survives a failed create: the address is still free
    apply(c, svc("after-fail", clusterIP="10.43.0.70"))
    c.kubectl("delete", "svc", "after-fail")


def test_dry_run_takes_nothing(api_cluster):
    c = api_cluster
    out = json.loads(c.kubectl("create", "service", "nodeport", "dry", "--tcp=80", "--node-port=30070",
                               "--dry-run=server", "-o", "json").stdout)
    assert out["spec"]["ports"][0]["nodePort"] == 30070
    assert in_cidr(out["spec"]["clusterIP"], "10.43.0.0/16")
    c.kubectl("create", "service", "nodeport", "dry", "--tcp=80", "--node-port=30070")
    c.kubectl("delete", "svc", "dry")


def test_the_clusters_own_objects(api_cluster):
    c = api_cluster
    k = c.kjson("get", "svc", "kubernetes", "-n", "default")
    assert k["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert k["spec"]["clusterIP"] == "10.43.0.1" and "selector" not in k["spec"]
    assert k["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": c.port}]
    ep = c.kjson("get", "endpoints", "kubernetes", "-n", "default")
    assert ep["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    assert ep["subsets"] == [{"addresses": [{"ip": "127.0.0.1"}],
                              "ports": [{"name": "https", "port": c.port, "protocol": "TCP"}]}]
    # an EndpointSlice may not name a loopback address: none for a server on 127.0.0.1
    assert c.kubectl("get", "endpointslice", "kubernetes", check=False).returncode != 0
    d = c.kjson("get", "svc", "kube-dns", "-n", "kube-system")
    assert d["spec"]["clusterIP"] == "10.43.0.10" and "selector" not in d["spec"]
    assert d["metadata"]["labels"]["k8s-app"] == "kube-dns"
    assert [(p["name"], p["port"], p["protocol"]) for p in d["spec"]["ports"]] == \
        [("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP")]
    cm = c.kjson("get", "configmap", "skiff-network", "-n", "kube-system")
    assert cm["data"] == {"serviceCIDR": "10.43.0.0/16", "clusterCIDR": "10.42.0.0/16", "clusterDNS": "10.43.0.10",
                          "clusterDomain": "cluster.local", "nodePortRange": "30000-32767"}
    # their addresses are taken: nobody else gets them
    assert "provided IP is already allocated" in create_fails(c, svc("steal", clusterIP="10.43.0.10"))
    # the server puts back what is deleted (upstream's bootstrap controller, every 10 s)
    uid = d["metadata"]["uid"]
    c.kubectl("delete", "svc", "kube-dns", "-n", "kube-system")
    c.kubectl("wait", "--for=create", "svc/kube-dns", "-n", "kube-system", "--timeout=60s")
    d = c.kjson("get", "svc", "kube-dns", "-n", "kube-system")
    assert d["metadata"]["uid"] != uid and d["spec"]["clusterIP"] == "10.43.0.10"


def test_namespace_deletion_frees_allocations(api_cluster):
    c = api_cluster
    c.kubectl("create", "namespace", "gone")
    s = svc("in-ns", clusterIP="10.43.0.80", type="NodePort")
    s["metadata"]["namespace"] = "gone"
    s["spec"]["ports"][0]["nodePort"] = 30080
    apply(c, s)
    c.kubectl("delete", "namespace", "gone", "--timeout=60s")
    s = svc("after-ns", clusterIP="10.43.0.80", type="NodePort")
    s["spec"]["ports"][0]["nodePort"] = 30080
    apply(c, s)
    c.kubectl("delete", "svc", "after-ns")


def test_flags_and_restart_with_other_settings(tmpdir_skiff):
    h = subprocess.run([SKIFF, "server", "--help"], capture_output=True, text=True)
    for flag in ("--service-cidr", "--service-node-port-range", "--cluster-cidr", "--cluster-dns",
                 "--cluster-domain", "--advertise-address"):
        assert flag in h.stdout
    bad = [(["--service-cidr", "10.0.0.0/8"], "--service-cidr 10.0.0.0/8: too large"),
           (["--service-cidr", "nonsense"], "--service-cidr: invalid CIDR address: nonsense"),
           (["--cluster-dns", "10.44.0.1"], "--cluster-dns 10.44.0.1: want an address of --service-cidr"),
           (["--service-node-port-range", "32767-30000"], "--service-node-port-range \"32767-30000\""),
           (["--cluster-cidr", "10.43.0.0/16"], "--cluster-cidr 10.43.0.0/16 overlaps --service-cidr"),
           (["--cluster-domain", "Bad_Domain"], "--cluster-domain \"Bad_Domain\""),
           (["--advertise-address", "host.example"], "--advertise-address")]
    for args, msg in bad:
        d = tempfile.mkdtemp(prefix="skiff-e2e-flags-")
        r = subprocess.run([SKIFF, "server", "--no-agent", "--data-dir", d, "--listen", "127.0.0.1:1"] + args,
                           capture_output=True, text=True, timeout=30)
        assert r.returncode != 0 and msg in r.stderr, (args, r.stderr)
        assert not os.path.exists(os.path.join(d, "kubeconfig"))
        shutil.rmtree(d, ignore_errors=True)
    c = Cluster(tmpdir_skiff, ["--no-agent", "--advertise-address", "192.0.2.10"]).start()
    try:
        assert c.kjson("get", "endpoints", "kubernetes")["subsets"][0]["addresses"] == [{"ip": "192.0.2.10"}]
        sl = c.kjson("get", "endpointslice", "kubernetes")
        assert sl["metadata"]["labels"]["kubernetes.io/service-name"] == "kubernetes"
        assert sl["addressType"] == "IPv4"
        assert sl["endpoints"] == [{"addresses": ["192.0.2.10"], "conditions": {"ready": True}}]
        assert sl["ports"] == [{"name": "https", "port": c.port, "protocol": "TCP"}]
        san = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in",
                              os.path.join(tmpdir_skiff, "tls", "server.crt")],
                             capture_output=True, text=True, check=True).stdout
        for name in ("IP Address:10.43.0.1", "IP Address:192.0.2.10", "DNS:kubernetes,", "DNS:kubernetes.default,",
                     "DNS:kubernetes.default.svc,", "DNS:kubernetes.default.svc.cluster.local"):
            assert name in san
        ca = open(os.path.join(tmpdir_skiff, "tls", "ca.crt")).read()
        apply(c, svc("old-range"))
        c.stop()
        # another address and domain: the server fixes its endpoints and the
        # certificate is issued again by the same CA (the kubeconfig still works)
        c.extra = ["--no-agent", "--advertise-address", "192.0.2.11", "--cluster-domain", "corp.example",
                   "--service-cidr", "10.44.0.0/16"]
        c.start()
        assert c.kjson("get", "endpoints", "kubernetes")["subsets"][0]["addresses"] == [{"ip": "192.0.2.11"}]
        assert c.kjson("get", "endpointslice", "kubernetes")["endpoints"][0]["addresses"] == ["192.0.2.11"]
        san = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in",
                              os.path.join(tmpdir_skiff, "tls", "server.crt")],
                             capture_output=True, text=True, check=True).stdout
        assert "DNS:kubernetes.default.svc.corp.example" in san and "IP Address:192.0.2.11" in san
        assert "IP Address:10.44.0.1," in san
        # another service CIDR: the cluster's own Services move into it, others are reported as
        # upstream's repair controller does
        assert c.kjson("get", "svc", "kubernetes")["spec"]["clusterIP"] == "10.44.0.1"
        assert c.kjson("get", "svc", "kube-dns", "-n", "kube-system")["spec"]["clusterIP"] == "10.44.0.10"
        old_ip = c.kjson("get", "svc", "old-range")["spec"]["clusterIP"]
        ev = c.kjson("get", "events", "--field-selector", "involvedObject.name=old-range")["items"]
        assert [(e["type"], e["reason"], e["message"], e["source"]["component"]) for e in ev] == [
            ("Warning", "ClusterIPOutOfRange", f"Cluster IP [IPv4]:{old_ip} is not within the configured Service "
             "CIDR 10.44.0.0/16; please recreate service", "ipallocator-repair-controller")]
        assert in_cidr(c.kjson("get", "svc", "kubernetes")["spec"]["clusterIP"], "10.44.0.0/16")
        assert open(os.path.join(tmpdir_skiff, "tls", "ca.crt")).read() == ca
        cm = c.kjson("get", "configmap", "skiff-network", "-n", "kube-system")
        assert cm["data"]["clusterDomain"] == "corp.example" and cm["data"]["serviceCIDR"] == "10.44.0.0/16"
        assert cm["data"]["clusterDNS"] == "10.44.0.10"
    finally:
        c.cleanup()
