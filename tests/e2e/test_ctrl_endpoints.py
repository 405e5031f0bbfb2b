"""The EndpointSlice, Endpoints and EndpointSlice mirroring controllers
against `skiff server --no-agent`, with the test playing the nodes: Node
objects it creates and pods whose status (IP, readiness) it patches."""
import datetime
import json
import time

import pytest
from conftest import SLOW  # noqa: E402

MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME = "kubernetes.io/service-name"


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def wait(fn, timeout=20, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def create(c, obj, ns=None):
    args = (["-n", ns] if ns else []) + ["create", "-f", "-"]
    c.kubectl(*args, input=json.dumps(obj))


def make_ns(c, name):
    create(c, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    return name


def make_node(c, name, zone=None):
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    create(c, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})


def make_pod(c, ns, name, labels, ip=None, ready=True, node="ep-node-a", ports=None, hostname=None,
             subdomain=None):
    spec = {"nodeName": node, "containers": [{"name": "c", "image": "busybox", "ports": ports or []}]}
    if hostname:
        spec["hostname"] = hostname
    if subdomain:
        spec["subdomain"] = subdomain
    create(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": spec}, ns)
    if ip:
        set_pod(c, ns, name, ip, ready)


def set_pod(c, ns, name, ip, ready, phase="Running"):
    t = now()
    st = {"phase": phase, "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": "192.0.2.1",
          "conditions": [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": t},
                         {"type": "ContainersReady", "status": "True" if ready else "False",
                          "lastTransitionTime": t}]}
    c.kubectl("-n", ns, "patch", "pod", name, "--subresource=status", "--type=merge", "-p",
              json.dumps({"status": st}))


def service(c, ns, name, selector, ports, **spec):
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "labels": {"app": name}},
            "spec": dict(ports=ports, **spec)}
    if selector is not None:
        body["spec"]["selector"] = selector
    create(c, body, ns)


def slices(c, ns, svc, managed="endpointslice-controller.k8s.io"):
    items = c.kjson("-n", ns, "get", "endpointslices", "-l", f"{SERVICE_NAME}={svc}")["items"]
    return [s for s in items if s["metadata"]["labels"].get(MANAGED_BY) == managed]


def endpoints_by_ip(sl):
    out = {}
    for s in sl:
        for e in s.get("endpoints") or []:
            out[e["addresses"][0]] = e
    return out


def wait_endpoints(c, ns, svc, want, managed="endpointslice-controller.k8s.io"):
    """Waits until the slices of svc hold exactly the addresses in want
    (ip -> conditions dict or None) and returns the slices."""
    def check():
        sl = slices(c, ns, svc, managed)
        got = endpoints_by_ip(sl)
        if set(got) != set(want):
            return None
        for ip, cond in want.items():
            if cond is not None and got[ip].get("conditions") != cond:
                return None
        return sl
    return wait(check, what=f"endpoints {want} of {svc}")


READY = {"ready": True, "serving": True, "terminating": False}
NOT_READY = {"ready": False, "serving": False, "terminating": False}


@pytest.fixture(scope="module")
def cl(api_cluster):
    make_node(api_cluster, "ep-node-a", zone="zone-a")
    make_node(api_cluster, "ep-node-b")
    return api_cluster


def test_slices_follow_pods(cl):
    ns = make_ns(cl, "eps-basic")
    service(cl, ns, "web", {"app": "web"}, [{"name": "http", "port": 80, "targetPort": 8080}])
    # a Service without endpoints has a placeholder slice
    sl = wait(lambda: slices(cl, ns, "web"), what="placeholder")
    assert len(sl) == 1 and not sl[0].get("endpoints") and not sl[0].get("ports")
    placeholder = sl[0]["metadata"]["name"]
    assert placeholder.startswith("web-")
    make_pod(cl, ns, "web-0", {"app": "web"}, "10.42.0.10", ready=True)
    make_pod(cl, ns, "web-1", {"app": "web"}, "10.42.0.11", ready=False, node="ep-node-b")
    make_pod(cl, ns, "no-ip", {"app": "web"})
    make_pod(cl, ns, "other", {"app": "other"}, "10.42.0.99")
    sl = wait_endpoints(cl, ns, "web", {"10.42.0.10": READY, "10.42.0.11": NOT_READY})
    assert len(sl) == 1
    s = sl[0]
    assert s["metadata"]["name"] == placeholder  # the placeholder is reused
    assert s["addressType"] == "IPv4"
    assert s["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    labels = s["metadata"]["labels"]
    assert labels[SERVICE_NAME] == "web" and labels[MANAGED_BY] == "endpointslice-controller.k8s.io"
    assert labels["app"] == "web"
    svc = cl.kjson("-n", ns, "get", "service", "web")
    ref = s["metadata"]["ownerReferences"]
    assert ref == [{"apiVersion": "v1", "kind": "Service", "name": "web", "uid": svc["metadata"]["uid"],
                    "controller": True, "blockOwnerDeletion": True}]
    eps = endpoints_by_ip(sl)
    e0 = eps["10.42.0.10"]
    pod0 = cl.kjson("-n", ns, "get", "pod", "web-0")
    assert e0["nodeName"] == "ep-node-a" and e0["zone"] == "zone-a"
    assert e0["targetRef"] == {"kind": "Pod", "namespace": ns, "name": "web-0", "uid": pod0["metadata"]["uid"]}
    assert "zone" not in eps["10.42.0.11"]
    assert "hostname" not in e0
    # readiness changes follow
    set_pod(cl, ns, "web-1", "10.42.0.11", True)
    wait_endpoints(cl, ns, "web", {"10.42.0.10": READY, "10.42.0.11": READY})
    s = slices(cl, ns, "web")[0]
    assert "endpoints.kubernetes.io/last-change-trigger-time" in s["metadata"]["annotations"]
    gen, rv = s["metadata"]["generation"], s["metadata"]["resourceVersion"]
    ep_rv = wait(lambda: (lambda e: e["metadata"]["resourceVersion"] if len(
        e.get("subsets", [{}])[0].get("addresses", [])) == 2 else None)(cl.kjson("-n", ns, "get", "endpoints", "web")),
        what="two ready addresses")
    # a change that does not touch the endpoints rewrites neither the slice nor the Endpoints
    cl.kubectl("-n", ns, "annotate", "pod", "web-0", "x=y")
    cl.kubectl("-n", ns, "label", "pod", "other", "tier=x")
    time.sleep(1)
    s = slices(cl, ns, "web")[0]
    assert (s["metadata"]["generation"], s["metadata"]["resourceVersion"]) == (gen, rv)
    assert cl.kjson("-n", ns, "get", "endpoints", "web")["metadata"]["resourceVersion"] == ep_rv
    # Succeeded and Failed pods leave
    set_pod(cl, ns, "web-1", "10.42.0.11", False, phase="Succeeded")
    wait_endpoints(cl, ns, "web", {"10.42.0.10": READY})
    # a pod whose labels stop matching leaves
    make_pod(cl, ns, "web-2", {"app": "web"}, "10.42.0.12")
    wait_endpoints(cl, ns, "web", {"10.42.0.10": READY, "10.42.0.12": READY})
    cl.kubectl("-n", ns, "label", "pod", "web-2", "app=elsewhere", "--overwrite")
    wait_endpoints(cl, ns, "web", {"10.42.0.10": READY})
    # the table as upstream prints it
    out = cl.kubectl("-n", ns, "get", "endpointslices").stdout.splitlines()
    assert out[0].split() == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert out[1].split()[:4] == [placeholder, "IPv4", "8080", "10.42.0.10"]


def test_terminating_and_publish_not_ready(cl):
    ns = make_ns(cl, "eps-term")
    service(cl, ns, "db", {"app": "db"}, [{"port": 5432}])
    service(cl, ns, "db-all", {"app": "db"}, [{"port": 5432}], publishNotReadyAddresses=True)
    make_pod(cl, ns, "db-0", {"app": "db"}, "10.42.1.10")
    make_pod(cl, ns, "db-1", {"app": "db"}, "10.42.1.11", ready=False)
    # without a kubelet to confirm it, a deleted pod stays terminating
    wait_endpoints(cl, ns, "db", {"10.42.1.10": READY, "10.42.1.11": NOT_READY})
    wait_endpoints(cl, ns, "db-all", {"10.42.1.10": READY,
                                      "10.42.1.11": {"ready": True, "serving": False, "terminating": False}})
    cl.kubectl("-n", ns, "delete", "pod", "db-0", "--wait=false")
    wait_endpoints(cl, ns, "db", {"10.42.1.10": {"ready": False, "serving": True, "terminating": True},
                                  "10.42.1.11": NOT_READY})
    wait_endpoints(cl, ns, "db-all", {"10.42.1.10": {"ready": True, "serving": True, "terminating": True},
                                      "10.42.1.11": {"ready": True, "serving": False, "terminating": False}})
    # legacy Endpoints: a terminating pod is left out unless publishNotReadyAddresses
    ep = wait(lambda: (lambda e: e if len(e.get("subsets", [{}])[0].get("notReadyAddresses", [])) == 1
                       and not e["subsets"][0].get("addresses") else None)(
        cl.kjson("-n", ns, "get", "endpoints", "db")), what="endpoints without the terminating pod")
    assert [a["ip"] for a in ep["subsets"][0]["notReadyAddresses"]] == ["10.42.1.11"]
    ep = wait(lambda: (lambda e: e if sorted(a["ip"] for a in e.get("subsets", [{}])[0].get("addresses", []))
                       == ["10.42.1.10", "10.42.1.11"] else None)(cl.kjson("-n", ns, "get", "endpoints", "db-all")),
              what="publishNotReadyAddresses endpoints")
    assert "notReadyAddresses" not in ep["subsets"][0]
    cl.kubectl("-n", ns, "delete", "pod", "db-0", "--grace-period=0", "--force")
    wait_endpoints(cl, ns, "db", {"10.42.1.11": NOT_READY})


def test_named_and_multiple_ports(cl):
    ns = make_ns(cl, "eps-ports")
    service(cl, ns, "app", {"app": "app"}, [
        {"name": "http", "port": 80, "targetPort": "web"},
        {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 5353},
        {"name": "grpc", "port": 9000, "targetPort": 9000, "appProtocol": "kubernetes.io/h2c"}])
    make_pod(cl, ns, "a-0", {"app": "app"}, "10.42.2.10", ports=[{"name": "web", "containerPort": 8080}])
    make_pod(cl, ns, "a-1", {"app": "app"}, "10.42.2.11", ports=[{"name": "web", "containerPort": 8080}])
    make_pod(cl, ns, "a-2", {"app": "app"}, "10.42.2.12", ports=[{"name": "web", "containerPort": 9090}])
    # no port named "web": the http port is left out for this pod
    make_pod(cl, ns, "a-3", {"app": "app"}, "10.42.2.13", ports=[{"name": "other", "containerPort": 1}])
    sl = wait_endpoints(cl, ns, "app", {"10.42.2.10": None, "10.42.2.11": None, "10.42.2.12": None,
                                        "10.42.2.13": None})
    by_ports = {}
    for s in sl:
        key = tuple(sorted((p["name"], p["port"], p["protocol"], p.get("appProtocol")) for p in s["ports"]))
        by_ports[key] = sorted(e["addresses"][0] for e in s["endpoints"])
    base = [("dns", 5353, "UDP", None), ("grpc", 9000, "TCP", "kubernetes.io/h2c")]
    assert by_ports == {
        tuple(sorted(base + [("http", 8080, "TCP", None)])): ["10.42.2.10", "10.42.2.11"],
        tuple(sorted(base + [("http", 9090, "TCP", None)])): ["10.42.2.12"],
        tuple(sorted(base)): ["10.42.2.13"],
    }
    ep = wait(lambda: (lambda e: e if len(e.get("subsets", [])) == 3 else None)(
        cl.kjson("-n", ns, "get", "endpoints", "app")), what="three subsets")
    got = {tuple(a["ip"] for a in s["addresses"]): sorted((p.get("name"), p["port"]) for p in s["ports"])
           for s in ep["subsets"]}
    # RepackSubsets: one subset per set of addresses, holding the ports they share
    assert got == {("10.42.2.10", "10.42.2.11", "10.42.2.12", "10.42.2.13"): [("dns", 5353), ("grpc", 9000)],
                   ("10.42.2.10", "10.42.2.11"): [("http", 8080)],
                   ("10.42.2.12",): [("http", 9090)]}
    row = cl.kubectl("-n", ns, "get", "endpoints", "app").stdout.splitlines()[1].split()
    assert row[0] == "app" and row[2:] and "more..." in " ".join(row)


def test_headless_hostname_and_endpoints_object(cl):
    ns = make_ns(cl, "eps-headless")
    service(cl, ns, "db", {"app": "db"}, [{"name": "pg", "port": 5432}], clusterIP="None")
    make_pod(cl, ns, "db-0", {"app": "db"}, "10.42.3.10", hostname="db-0", subdomain="db")
    make_pod(cl, ns, "db-1", {"app": "db"}, "10.42.3.11", hostname="db-1", subdomain="other")
    sl = wait_endpoints(cl, ns, "db", {"10.42.3.10": READY, "10.42.3.11": READY})
    eps = endpoints_by_ip(sl)
    assert eps["10.42.3.10"]["hostname"] == "db-0"
    assert "hostname" not in eps["10.42.3.11"]
    assert sl[0]["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    ep = cl.kjson("-n", ns, "get", "endpoints", "db")
    assert ep["metadata"]["labels"] == {"app": "db", "service.kubernetes.io/headless": ""}
    assert "endpoints.kubernetes.io/last-change-trigger-time" in ep["metadata"]["annotations"]
    addrs = ep["subsets"][0]["addresses"]
    assert [a["ip"] for a in addrs] == ["10.42.3.10", "10.42.3.11"]
    assert addrs[0]["hostname"] == "db-0" and "hostname" not in addrs[1]
    assert addrs[0]["nodeName"] == "ep-node-a"
    assert addrs[0]["targetRef"]["kind"] == "Pod" and addrs[0]["targetRef"]["name"] == "db-0"
    assert ep["subsets"][0]["ports"] == [{"name": "pg", "port": 5432, "protocol": "TCP"}]
    out = cl.kubectl("-n", ns, "get", "endpoints", "db").stdout.splitlines()
    assert out[0].split() == ["NAME", "ENDPOINTS", "AGE"]
    assert out[1].split()[1] == "10.42.3.10:5432,10.42.3.11:5432"


def test_scale_up_and_down_many_pods(cl):
    from kubernetes import client
    core = client.CoreV1Api(cl.api_client())
    ns = make_ns(cl, "eps-scale")
    service(cl, ns, "big", {"app": "big"}, [{"port": 80}])
    want = set()
    t = now()
    for i in range(110):
        ip = "10.42.4.%d" % (i + 1)
        name = "big-%03d" % i
        core.create_namespaced_pod(ns, {"metadata": {"name": name, "labels": {"app": "big"}},
                                        "spec": {"nodeName": "ep-node-a",
                                                 "containers": [{"name": "c", "image": "busybox"}]}})
        core.patch_namespaced_pod_status(name, ns, {"status": {
            "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": t}]}})
        want.add(ip)

    def have(n):
        def check():
            sl = slices(cl, ns, "big")
            return sl if set(endpoints_by_ip(sl)) == want and sum(len(s["endpoints"]) for s in sl) == n else None
        return check
    # at most 100 endpoints a slice
    sl = wait(have(110), timeout=60, what="110 endpoints")
    # (how they split depends on the order the pods came in, as upstream)
    assert len(sl) == 2 and all(len(s["endpoints"]) <= 100 for s in sl)
    ep = wait(lambda: (lambda e: e if len(e.get("subsets", [{}])[0].get("addresses", [])) == 110 else None)(
        cl.kjson("-n", ns, "get", "endpoints", "big")), what="110 addresses")
    assert "endpoints.kubernetes.io/over-capacity" not in ep["metadata"].get("annotations", {})
    names = {s["metadata"]["name"] for s in sl}
    for i in range(30):
        core.delete_namespaced_pod("big-%03d" % i, ns, grace_period_seconds=0)
        want.discard("10.42.4.%d" % (i + 1))
    sl = wait(have(80), timeout=60, what="80 endpoints")
    # the remaining endpoints stay in the slices they were in
    assert {s["metadata"]["name"] for s in sl} <= names


def test_service_delete_and_selectorless(cl):
    ns = make_ns(cl, "eps-del")
    service(cl, ns, "gone", {"app": "gone"}, [{"port": 80}])
    make_pod(cl, ns, "gone-0", {"app": "gone"}, "10.42.5.10")
    wait_endpoints(cl, ns, "gone", {"10.42.5.10": READY})
    wait(lambda: cl.kubectl("-n", ns, "get", "endpoints", "gone", check=False).returncode == 0, what="endpoints")
    cl.kubectl("-n", ns, "delete", "service", "gone")
    wait(lambda: not cl.kjson("-n", ns, "get", "endpointslices")["items"], what="slices gone")
    wait(lambda: cl.kubectl("-n", ns, "get", "endpoints", "gone", check=False).returncode != 0,
         what="endpoints gone")
    # a Service without a selector: its slices are left alone by the controller
    service(cl, ns, "manual", None, [{"port": 80}])
    create(cl, {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "manual-1", "labels": {SERVICE_NAME: "manual"}},
                "addressType": "IPv4", "endpoints": [{"addresses": ["192.0.2.7"]}], "ports": [{"port": 80}]}, ns)
    time.sleep(1)
    items = cl.kjson("-n", ns, "get", "endpointslices")["items"]
    assert [s["metadata"]["name"] for s in items] == ["manual-1"]
    assert items[0]["endpoints"] == [{"addresses": ["192.0.2.7"]}]


def test_mirroring(cl):
    ns = make_ns(cl, "eps-mirror")
    service(cl, ns, "ext", None, [{"name": "http", "port": 80}])
    create(cl, {"apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": "ext", "labels": {"team": "a"}, "annotations": {"note": "x"}},
                "subsets": [{"addresses": [{"ip": "192.0.2.10"}, {"ip": "192.0.2.11", "hostname": "h1"}],
                             "notReadyAddresses": [{"ip": "192.0.2.12"}],
                             "ports": [{"name": "http", "port": 8080}]},
                            {"addresses": [{"ip": "2001:db8::1"}], "ports": [{"name": "http", "port": 8080}]}]}, ns)
    mgr = "endpointslicemirroring-controller.k8s.io"
    sl = wait(lambda: (lambda s: s if len(s) == 2 else None)(slices(cl, ns, "ext", mgr)), what="mirrored slices")
    by_type = {s["addressType"]: s for s in sl}
    v4 = by_type["IPv4"]
    assert v4["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert v4["metadata"]["labels"] == {"team": "a", SERVICE_NAME: "ext", MANAGED_BY: mgr}
    assert v4["metadata"]["annotations"] == {"note": "x"}
    epobj = cl.kjson("-n", ns, "get", "endpoints", "ext")
    assert v4["metadata"]["ownerReferences"][0]["kind"] == "Endpoints"
    assert v4["metadata"]["ownerReferences"][0]["uid"] == epobj["metadata"]["uid"]
    got = {e["addresses"][0]: e for e in v4["endpoints"]}
    assert got["192.0.2.10"] == {"addresses": ["192.0.2.10"], "conditions": {"ready": True}}
    assert got["192.0.2.11"]["hostname"] == "h1"
    assert got["192.0.2.12"]["conditions"] == {"ready": False}
    assert [e["addresses"] for e in by_type["IPv6"]["endpoints"]] == [["2001:db8::1"]]
    # updates follow
    cl.kubectl("-n", ns, "patch", "endpoints", "ext", "--type=merge", "-p",
               json.dumps({"subsets": [{"addresses": [{"ip": "192.0.2.20"}], "ports": [{"name": "http",
                                                                                      "port": 8080}]}]}))
    sl = wait(lambda: (lambda s: s if len(s) == 1 and [e["addresses"][0] for e in s[0]["endpoints"]] ==
                       ["192.0.2.20"] else None)(slices(cl, ns, "ext", mgr)), what="mirror update")
    assert sl[0]["metadata"]["name"] == v4["metadata"]["name"]
    # skip-mirror removes the mirrored slices
    cl.kubectl("-n", ns, "label", "endpoints", "ext", "endpointslice.kubernetes.io/skip-mirror=true")
    wait(lambda: not slices(cl, ns, "ext", mgr), what="skip-mirror")
    cl.kubectl("-n", ns, "label", "endpoints", "ext", "endpointslice.kubernetes.io/skip-mirror-")
    wait(lambda: slices(cl, ns, "ext", mgr), what="mirrored again")
    # Endpoints of a Service with a selector are not mirrored
    service(cl, ns, "sel", {"app": "sel"}, [{"port": 80}])
    wait(lambda: cl.kubectl("-n", ns, "get", "endpoints", "sel", check=False).returncode == 0, what="endpoints")
    time.sleep(0.5)
    assert not slices(cl, ns, "sel", mgr)
    # Endpoints deleted: the mirrored slices go
    cl.kubectl("-n", ns, "delete", "endpoints", "ext")
    wait(lambda: not slices(cl, ns, "ext", mgr), what="mirrored slices gone")


def test_leftover_endpoints_deleted_at_start(tmpdir_skiff):
    from conftest import Cluster
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        # the controller's start (and its look for leftovers) is over once it keeps a
        # Service's Endpoints: only then is an Endpoints made "while the server runs"
        service(c, "default", "probe", {"app": "probe"}, [{"port": 80}])
        wait(lambda: c.kubectl("get", "endpoints", "probe", check=False).returncode == 0,
             what="the endpoints controller running")
        orphan = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "orphan"},
                  "subsets": [{"addresses": [{"ip": "192.0.2.30"}], "ports": [{"port": 80}]}]}
        create(c, orphan)
        leader = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {
            "name": "lock", "annotations": {"control-plane.alpha.kubernetes.io/leader": "{}"}}}
        create(c, leader)
        service(c, "default", "kept", None, [{"port": 80}])
        create(c, dict(orphan, metadata={"name": "kept"}))
        # while the server runs, an Endpoints without a Service is left alone (as upstream)
        time.sleep(1)
        assert c.kubectl("get", "endpoints", "orphan", check=False).returncode == 0
        c.stop()
        c.start()
        wait(lambda: c.kubectl("get", "endpoints", "orphan", check=False).returncode != 0,
             what="the leftover Endpoints deleted")
        assert c.kubectl("get", "endpoints", "lock", check=False).returncode == 0
        assert c.kubectl("get", "endpoints", "kept", check=False).returncode == 0
    finally:
        c.cleanup()
