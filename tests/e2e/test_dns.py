"""Node-local cluster DNS (docs/NETWORKING.md, "Cluster DNS"): the agent serves
the cluster domain on its bridge's gateway address, answered with dig from the
host and with nslookup/wget from pods; the pods' resolv.conf per dnsPolicy and
/etc/hosts with a subdomain; names outside the zone forwarded to a dnsmasq the
test starts on a loopback address (the agent's --resolv-conf names it).

Runs under flock /tmp/skiff-agent-e2e.lock with the other agent tests."""
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile

import pytest

from test_agent_cluster import running_cluster, wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)

pytestmark = pytest.mark.agents

ZONE = "cluster.local"


def gateway(cidr):
    a, b, c, _ = cidr.split("/")[0].split(".")
    return f"{a}.{b}.{c}.1"


class Dnsmasq:
    """dnsmasq on 127.X.Y.Z:53 answering outside.test from its own hosts file."""

    def __init__(self, d):
        self.addr = f"127.{random.randrange(100, 250)}.{random.randrange(0, 250)}.{random.randrange(2, 250)}"
        self.hosts = os.path.join(d, "dnsmasq.hosts")
        with open(self.hosts, "w") as f:
            f.write("192.0.2.77 outside.test\n")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            ["dnsmasq", "-k", "--no-resolv", "--no-hosts", "--addn-hosts=" + self.hosts, "--bind-interfaces",
             "--local=/test/", "--listen-address=" + self.addr, "--port=53", "--pid-file=", "--user=root", "--log-facility=-",
             "--conf-file=/dev/null"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: "192.0.2.77" in dig(self.addr, "outside.test", short=True), 10, what="dnsmasq up")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)
        self.proc = None


def dig(server, name, qtype="A", *flags, short=False):
    args = ["dig", f"@{server}", name, qtype, "+time=5", "+tries=1"] + list(flags)
    if short:
        args.append("+short")
    return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout


def answer(out):
    """The answer section of dig's output as [(name, ttl, type, data)]."""
    rows, on = [], False
    for line in out.splitlines():
        if line.startswith(";; ANSWER SECTION"):
            on = True
            continue
        if on:
            if not line.strip():
                break
            f = line.split(None, 4)
            rows.append((f[0], int(f[1]), f[3], f[4]))
    return rows


def status(out):
    for line in out.splitlines():
        if "status:" in line:
            return line.split("status:")[1].split(",")[0].strip()
    return None


def authority(out):
    return out.split(";; AUTHORITY SECTION:")[1].split("\n\n")[0] if ";; AUTHORITY SECTION:" in out else ""


@pytest.fixture(scope="module")
def dns_cluster():
    d = tempfile.mkdtemp(prefix="skiff-dns-")
    dm = Dnsmasq(d)
    resolv = os.path.join(d, "resolv.conf")
    with open(resolv, "w") as f:
        f.write(f"nameserver {dm.addr}\nsearch corp.test\noptions timeout:3\n")
    state = {}

    def setup(c):
        c.agent_extra += ["--resolv-conf", resolv]
        state["gw"] = gateway(c.pod_cidr)
    try:
        dm.start()
        with running_cluster("skiff-dnsc-", setup=setup) as c:
            c.gw, c.dnsmasq, c.resolv = state["gw"], dm, resolv
            # the pods' nameserver: the server's clusterDNS, which the node's table DNATs to c.gw
            c.dns_ip = c.kjson("get", "configmap", "-n", "kube-system", "skiff-network")["data"]["clusterDNS"]
            yield c
    finally:
        dm.stop()
        shutil.rmtree(d, ignore_errors=True)


def ensure_bridge(c):
    """The bridge (and its gateway address) comes with the first pod."""
    if subprocess.run(["ip", "-4", "addr", "show", "dev", c.bridge], capture_output=True, text=True).stdout.find(
            c.gw + "/") < 0:
        c.apply(pod(c, "bridge-up", ["sleep", "3600"]))
        c.wait_phase("bridge-up", "Running")
    wait_for(lambda: status(dig(c.gw, "dns-version." + ZONE, "TXT")) == "NOERROR", 30, what="DNS on the gateway")


def pod(c, name, command, spec="", ns="default"):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
        "spec": dict({"nodeName": c.node, "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                      "containers": [{"name": "c", "image": "busybox:1", "command": command}]},
                     **(json.loads(spec) if spec else {}))})


def svc(name, ns="default", **spec):
    return json.dumps({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
                       "spec": spec})


def slice_(name, svc_name, endpoints, ports=(), ns="default"):
    return json.dumps({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                       "metadata": {"name": name, "namespace": ns,
                                    "labels": {"kubernetes.io/service-name": svc_name}},
                       "addressType": "IPv4", "endpoints": endpoints, "ports": list(ports)})


def test_dns_records_from_host(dns_cluster):
    c = dns_cluster
    ensure_bridge(c)
    c.kubectl("create", "namespace", "prod", check=False)
    c.apply(svc("web", ports=[{"name": "http", "port": 80, "protocol": "TCP"}]))
    c.apply(svc("db", ns="prod", clusterIP="None", ports=[{"name": "pg", "port": 5432}]))
    c.apply(slice_("db-1", "db", [
        {"addresses": ["10.200.0.7"], "hostname": "db-0", "conditions": {"ready": True}},
        {"addresses": ["10.200.0.8"], "conditions": {"ready": False}},
        {"addresses": ["10.200.0.9"]}], ports=[{"name": "pg", "port": 5432, "protocol": "TCP"}], ns="prod"))
    c.apply(svc("ext", type="ExternalName", externalName="outside.test"))
    ip = c.kjson("get", "service", "web")["spec"]["clusterIP"]
    name = f"web.default.svc.{ZONE}."
    wait_for(lambda: answer(dig(c.gw, name)), 30, what="web's A record")
    assert answer(dig(c.gw, name)) == [(name, 5, "A", ip)]
    # over TCP, and with the question's case kept
    assert answer(dig(c.gw, "WEB.Default.svc.Cluster.Local.", "A", "+tcp")) == \
        [("WEB.Default.svc.Cluster.Local.", 5, "A", ip)]
    # NODATA: no AAAA for an IPv4 Service, the SOA in the authority section
    out = dig(c.gw, name, "AAAA")
    assert status(out) == "NOERROR" and not answer(out)
    assert f"{ZONE}.\t\t5\tIN\tSOA\tns.dns.{ZONE}. hostmaster.{ZONE}." in authority(out)
    out = dig(c.gw, f"nope.default.svc.{ZONE}.")
    assert status(out) == "NXDOMAIN" and "SOA" in authority(out)
    out = dig(c.gw, f"_http._tcp.{name}", "SRV")
    assert answer(out) == [(f"_http._tcp.{name}", 5, "SRV", f"0 100 80 {name}")]
    assert ip in out.split(";; ADDITIONAL SECTION:")[1]
    rev = ".".join(reversed(ip.split("."))) + ".in-addr.arpa."
    assert answer(dig(c.gw, rev, "PTR")) == [(rev, 5, "PTR", name)]
    # headless: ready endpoints, hostnames, SRV per endpoint, PTR
    db = f"db.prod.svc.{ZONE}."
    wait_for(lambda: answer(dig(c.gw, db)), 30, what="db's A records")
    assert sorted(r[3] for r in answer(dig(c.gw, db))) == ["10.200.0.7", "10.200.0.9"]
    assert answer(dig(c.gw, "db-0." + db)) == [("db-0." + db, 5, "A", "10.200.0.7")]
    assert answer(dig(c.gw, "10-200-0-9." + db)) == [("10-200-0-9." + db, 5, "A", "10.200.0.9")]
    assert sorted(r[3] for r in answer(dig(c.gw, "_pg._tcp." + db, "SRV"))) == \
        [f"0 50 5432 10-200-0-9.{db}", f"0 50 5432 db-0.{db}"]
    assert answer(dig(c.gw, "7.0.200.10.in-addr.arpa.", "PTR")) == \
        [("7.0.200.10.in-addr.arpa.", 5, "PTR", "db-0." + db)]
    # ExternalName: the CNAME, its target resolved by the forwarder
    ext = f"ext.default.svc.{ZONE}."
    assert answer(dig(c.gw, ext)) == [(ext, 5, "CNAME", "outside.test."), ("outside.test.", 0, "A", "192.0.2.77")]
    # the server's own Services
    k = f"kubernetes.default.svc.{ZONE}."
    assert answer(dig(c.gw, k)) == [(k, 5, "A", c.kjson("get", "service", "kubernetes")["spec"]["clusterIP"])]
    assert answer(dig(c.gw, "_https._tcp." + k, "SRV")) == [("_https._tcp." + k, 5, "SRV", f"0 100 443 {k}")]
    kd = f"kube-dns.kube-system.svc.{ZONE}."
    assert answer(dig(c.gw, kd)) == [(kd, 5, "A", c.dns_ip)]
    # pods, the schema version
    assert answer(dig(c.gw, f"10-200-0-5.default.pod.{ZONE}.")) == \
        [(f"10-200-0-5.default.pod.{ZONE}.", 5, "A", "10.200.0.5")]
    assert answer(dig(c.gw, f"dns-version.{ZONE}.", "TXT")) == [(f"dns-version.{ZONE}.", 28800, "TXT", '"1.1.0"')]


def test_cluster_dns_address_from_the_host(dns_cluster):
    """The node's own processes (hostNetwork pods with ClusterFirstWithHostNet)
    ask the clusterDNS address as pods do: the table's nat-output DNATs it to
    this node's server."""
    c = dns_cluster
    ensure_bridge(c)
    k = f"kubernetes.default.svc.{ZONE}."
    kip = c.kjson("get", "service", "kubernetes")["spec"]["clusterIP"]
    wait_for(lambda: answer(dig(c.dns_ip, k)), 30, what="an answer at the clusterDNS address")
    assert answer(dig(c.dns_ip, k)) == [(k, 5, "A", kip)]
    assert answer(dig(c.dns_ip, k, "A", "+tcp")) == [(k, 5, "A", kip)]


def test_dns_updates(dns_cluster):
    c = dns_cluster
    ensure_bridge(c)
    name = f"grow.default.svc.{ZONE}."
    c.apply(svc("grow", clusterIP="None"))
    c.apply(slice_("grow-1", "grow", [{"addresses": ["10.200.1.1"]}]))
    wait_for(lambda: [r[3] for r in answer(dig(c.gw, name))] == ["10.200.1.1"], 30, what="one endpoint")
    c.apply(slice_("grow-1", "grow", [{"addresses": ["10.200.1.1"]}, {"addresses": ["10.200.1.2"]}]))
    wait_for(lambda: sorted(r[3] for r in answer(dig(c.gw, name))) == ["10.200.1.1", "10.200.1.2"], 30,
             what="two endpoints")
    c.apply(slice_("grow-1", "grow", [{"addresses": ["10.200.1.1"], "conditions": {"ready": False}},
                                      {"addresses": ["10.200.1.2"]}]))
    wait_for(lambda: [r[3] for r in answer(dig(c.gw, name))] == ["10.200.1.2"], 30, what="not ready dropped")
    c.kubectl("delete", "service", "grow")
    wait_for(lambda: status(dig(c.gw, name)) == "NXDOMAIN", 30, what="NXDOMAIN after delete")
    c.kubectl("delete", "endpointslice", "grow-1")


def test_dns_forwarding(dns_cluster):
    c = dns_cluster
    ensure_bridge(c)
    assert answer(dig(c.gw, "outside.test.")) == [("outside.test.", 0, "A", "192.0.2.77")]
    assert answer(dig(c.gw, "outside.test.", "A", "+tcp")) == [("outside.test.", 0, "A", "192.0.2.77")]
    # with no resolver answering: SERVFAIL after the forward timeout
    c.dnsmasq.stop()
    try:
        out = dig(c.gw, "outside.test.")
        assert status(out) == "SERVFAIL"
        # the cluster's own names still answer
        assert status(dig(c.gw, f"dns-version.{ZONE}.", "TXT")) == "NOERROR"
    finally:
        c.dnsmasq.start()


def resolv_of(c, name, spec):
    c.apply(pod(c, name, ["cat", "/etc/resolv.conf"], spec))
    c.wait_phase(name, "Succeeded")
    out = c.kubectl("logs", name).stdout
    c.kubectl("delete", "pod", name, "--wait=false")
    return out


def test_pod_resolv_conf_policies(dns_cluster):
    c = dns_cluster
    cluster = (f"search default.svc.{ZONE} svc.{ZONE} {ZONE} corp.test\n"
               f"nameserver {c.dns_ip}\noptions ndots:5\n")
    assert resolv_of(c, "rc-default", "") == cluster
    assert resolv_of(c, "rc-cf", '{"dnsPolicy": "ClusterFirst"}') == cluster
    # Default: the host's file (its loopback nameserver is no use inside the pod's network namespace)
    assert resolv_of(c, "rc-host", '{"dnsPolicy": "Default"}') == "search corp.test\noptions timeout:3\n"
    assert resolv_of(c, "rc-none", json.dumps({"dnsPolicy": "None", "dnsConfig": {
        "nameservers": ["192.0.2.53"], "searches": ["a.example"],
        "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}})) == \
        "search a.example\nnameserver 192.0.2.53\noptions ndots:2 edns0\n"
    assert resolv_of(c, "rc-merge", json.dumps({"dnsConfig": {
        "nameservers": ["192.0.2.53"], "searches": ["b.example"], "options": [{"name": "ndots", "value": "1"}]}})) == \
        (f"search default.svc.{ZONE} svc.{ZONE} {ZONE} corp.test b.example\n"
         f"nameserver {c.dns_ip}\nnameserver 192.0.2.53\noptions ndots:1\n")
    # hostNetwork: ClusterFirst falls back to Default (the host's resolver is reachable), unless WithHostNet
    assert resolv_of(c, "rc-hn", '{"hostNetwork": true}') == \
        f"search corp.test\nnameserver {c.dnsmasq.addr}\noptions timeout:3\n"
    assert resolv_of(c, "rc-hnc", '{"hostNetwork": true, "dnsPolicy": "ClusterFirstWithHostNet"}') == cluster


def test_pod_hosts_with_subdomain(dns_cluster):
    c = dns_cluster
    c.apply(pod(c, "hosts-sub", ["cat", "/etc/hosts"], json.dumps({
        "hostname": "w-0", "subdomain": "workers",
        "hostAliases": [{"ip": "192.0.2.9", "hostnames": ["alias.one", "alias.two"]}]})))
    p = c.wait_phase("hosts-sub", "Succeeded")
    out = c.kubectl("logs", "hosts-sub").stdout
    assert out.startswith("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n")
    assert f"\n{p['status']['podIP']}\tw-0.workers.default.svc.{ZONE}\tw-0\n" in out
    assert out.endswith("\n\n# Entries added by HostAliases.\n192.0.2.9\talias.one\talias.two\n")
    c.kubectl("delete", "pod", "hosts-sub", "--wait=false")


def test_pod_resolves_by_name(dns_cluster):
    """A pod asks the cluster DNS address (DNATed to this node's server) and
    finds a headless Service's backend and a ClusterIP Service by their short
    names (search path, ndots) and fetches from them; nslookup of an outside
    name goes through the forwarder."""
    c = dns_cluster
    ensure_bridge(c)
    c.apply(pod(c, "backend", ["sh", "-c", "mkdir -p /www && echo hello-from-backend > /www/index.html && "
                                           "exec httpd -f -p 8080 -h /www"]))
    ip = c.wait_phase("backend", "Running")["status"]["podIP"]
    c.apply(svc("backend", clusterIP="None", ports=[{"name": "http", "port": 8080}]))
    c.apply(slice_("backend-1", "backend", [{"addresses": [ip], "hostname": "b-0"}],
                   ports=[{"name": "http", "port": 8080, "protocol": "TCP"}]))
    c.apply(svc("front", ports=[{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]))
    c.apply(slice_("front-1", "front", [{"addresses": [ip]}],
                   ports=[{"name": "http", "port": 8080, "protocol": "TCP"}]))
    front_ip = c.kjson("get", "service", "front")["spec"]["clusterIP"]
    wait_for(lambda: answer(dig(c.gw, f"backend.default.svc.{ZONE}.")) and answer(
        dig(c.gw, f"front.default.svc.{ZONE}.")), 30, what="the Services' records")
    c.apply(pod(c, "client", ["sh", "-c",
                              "wget -q -O- http://backend:8080/ && wget -q -O- http://b-0.backend:8080/ && "
                              "wget -q -O- http://front/ && wget -q -O- http://front.default/ && "
                              f"nslookup front.default.svc.{ZONE} && nslookup outside.test"]))
    c.wait_pod("client", lambda p: p["status"]["phase"] in ("Succeeded", "Failed"), 60, what="client done")
    out = c.kubectl("logs", "client").stdout
    assert c.kjson("get", "pod", "client")["status"]["phase"] == "Succeeded", out
    assert out.count("hello-from-backend") == 4
    assert f"Server:\t\t{c.dns_ip}" in out
    assert front_ip in out and "192.0.2.77" in out
    c.kubectl("delete", "pod", "client", "backend", "--wait=false")
    c.kubectl("delete", "endpointslice", "backend-1", "front-1")


def test_embedded_agent_serves_dns(embedded):
    """The agent inside `skiff server` serves the cluster domain too: a pod
    resolves the kubernetes Service through the cluster DNS address."""
    c = embedded
    node = wait_for(lambda: c.kubectl("get", "node", c.node, "-o", "json", check=False).returncode == 0 and
                    c.kjson("get", "node", c.node), 30, what="node")
    gw = gateway(node["spec"]["podCIDR"])
    kip = c.kjson("get", "service", "kubernetes")["spec"]["clusterIP"]
    c.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "emb-dns"},
        "spec": {"nodeName": c.node, "restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox:1", "command": ["nslookup", f"kubernetes.default.svc.{ZONE}"]}]}}))
    wait_for(lambda: c.kjson("get", "pod", "emb-dns")["status"].get("phase") in ("Succeeded", "Failed"), 60,
             what="emb-dns done")
    out = c.kubectl("logs", "emb-dns").stdout
    assert c.kjson("get", "pod", "emb-dns")["status"]["phase"] == "Succeeded", out
    assert kip in out
    k = f"kubernetes.default.svc.{ZONE}."
    assert answer(dig(gw, k)) == [(k, 5, "A", kip)]


def test_indexed_job_pods_resolve_each_other(dns_cluster):
    """An Indexed Job's pods (hostname NAME-INDEX, subdomain a headless
    Service selecting them) reach each other as NAME-INDEX.SUBDOMAIN: the
    EndpointSlice controller gives each endpoint its pod's hostname."""
    c = dns_cluster
    c.apply(svc("workers", clusterIP="None", selector={"app": "idx-workers"},
                ports=[{"name": "http", "port": 8080}]))
    script = ("mkdir -p /www && echo pod-$JOB_COMPLETION_INDEX > /www/index.html && httpd -p 8080 -h /www && "
              "for t in $(seq 90); do ok=1; for i in 0 1 2; do "
              # (not wget -T: the image's busybox wget crashes with it)
              "wget -q -O /tmp/o http://idx-$i.workers:8080/ && grep -q pod-$i /tmp/o || ok=0; done; "
              "if [ $ok = 1 ]; then echo all-peers-ok; sleep 10; exit 0; fi; sleep 1; done; exit 1")
    c.apply(json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "idx"},
        "spec": {"completions": 3, "parallelism": 3, "completionMode": "Indexed", "backoffLimit": 0,
                 "template": {"metadata": {"labels": {"app": "idx-workers"}},
                              "spec": {"subdomain": "workers", "restartPolicy": "Never", "nodeName": c.node,
                                       "terminationGracePeriodSeconds": 1,
                                       "containers": [{"name": "c", "image": "busybox:1",
                                                       "command": ["sh", "-c", script]}]}}}}))
    # each pod's record comes with its endpoint (once that pod is ready): wait for all three
    wait_for(lambda: all(answer(dig(c.gw, f"idx-{i}.workers.default.svc.{ZONE}.")) for i in range(3)), 90,
             what="the three pods' records")
    assert answer(dig(c.gw, f"idx-0.workers.default.svc.{ZONE}."))[0][2] == "A"

    def done():
        st = c.kjson("get", "job", "idx").get("status", {})
        return st if st.get("succeeded", 0) == 3 or st.get("failed", 0) else False
    st = wait_for(done, 150, what="job finished")
    logs = c.kubectl("logs", "-l", "app=idx-workers", "--tail=5").stdout
    assert st.get("succeeded") == 3, logs
    assert logs.count("all-peers-ok") == 3
    c.kubectl("delete", "job", "idx", "--cascade=foreground", "--wait=false")
    c.kubectl("delete", "service", "workers")


def test_dns_follows_scaling(dns_cluster):
    """A Deployment behind a headless Service: scaling it changes the
    Service's A records (through the EndpointSlice controller)."""
    c = dns_cluster
    ensure_bridge(c)
    c.apply(svc("scaled", clusterIP="None", selector={"app": "scaled"}, ports=[{"name": "http", "port": 80}]))
    c.apply(json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scaled"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "scaled"}},
                 "template": {"metadata": {"labels": {"app": "scaled"}},
                              "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                                       "containers": [{"name": "c", "image": "busybox:1",
                                                       "command": ["sleep", "3600"]}]}}}}))
    name = f"scaled.default.svc.{ZONE}."

    def addresses():
        return sorted(r[3] for r in answer(dig(c.gw, name)))

    def pod_ips():
        pods = c.kjson("get", "pods", "-l", "app=scaled")["items"]
        return sorted(p["status"]["podIP"] for p in pods
                      if p["status"].get("podIP") and not p["metadata"].get("deletionTimestamp"))
    wait_for(lambda: len(addresses()) == 1 and addresses() == pod_ips(), 90, what="one replica's address")
    c.kubectl("scale", "deployment", "scaled", "--replicas=3")
    wait_for(lambda: len(addresses()) == 3 and addresses() == pod_ips(), 90, what="three replicas' addresses")
    c.kubectl("scale", "deployment", "scaled", "--replicas=1")
    wait_for(lambda: len(addresses()) == 1 and addresses() == pod_ips(), 90, what="back to one")
    c.kubectl("delete", "deployment", "scaled")
    c.kubectl("delete", "service", "scaled")
