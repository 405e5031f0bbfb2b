"""Services through the node agent's nftables dataplane (src/agent/proxy*.c):
a Deployment of busybox httpd servers behind ClusterIP and NodePort Services,
reached from pods and from the host; no endpoints is a refused connection;
ClientIP affinity sticks; endpoints coming and going change the answers; the
table survives an agent restart over running pods and goes when the agent
stops idle.

The Services have no selector and their EndpointSlices are written here from
the pods' addresses (as for any Service without a selector), so the tests
decide exactly which endpoints exist. Run under
`flock /tmp/skiff-agent-e2e.lock` (containers, bridges, nftables)."""
import json
import os
import random
import shutil
import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from test_agent_cluster import AgentCluster, running_cluster, wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)

pytestmark = pytest.mark.agents

REPLICAS = 3


def table_of(c):
    return f"skiff-{c.bridge}"


def our_tables(c):
    out = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, check=True).stdout
    return [l for l in out.splitlines() if l.split()[-1:] == [table_of(c)]]


def web_deployment(name, replicas, node):
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      nodeName: {node}
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: busybox:1
        command: ["sh", "-c", "mkdir -p /www; hostname > /www/index.html; exec httpd -f -p 8080 -h /www"]
        ports: [{{containerPort: 8080, name: http}}]
        readinessProbe: {{tcpSocket: {{port: 8080}}, periodSeconds: 1}}
"""


def service(name, spec_extra="", port_extra="", svc_type="ClusterIP"):
    return f"""apiVersion: v1
kind: Service
metadata: {{name: {name}}}
spec:
  type: {svc_type}
{spec_extra}  ports:
  - {{name: http, port: 80, targetPort: 8080, protocol: TCP{port_extra}}}
"""


def write_slice(c, svc, ips, ready=True):
    eps = [{"addresses": [ip], "conditions": {"ready": ready}, "nodeName": c.node} for ip in ips]
    obj = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
           "metadata": {"name": f"{svc}-manual", "labels": {"kubernetes.io/service-name": svc}},
           "addressType": "IPv4", "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}], "endpoints": eps}
    c.kubectl("apply", "-f", "-", input=json.dumps(obj))


def ready_pods(c, app, n):
    def check():
        items = c.kjson("get", "pods", "-l", f"app={app}")["items"]
        ok = [p for p in items if p["status"].get("podIP") and
              all(s.get("ready") for s in p["status"].get("containerStatuses", [{}]))]
        return ok if len(ok) == n else False
    pods = wait_for(check, 120, what=f"{n} ready {app} pods")
    for p in pods:
        c.pod_uids.add(p["metadata"]["uid"])
    return {p["metadata"]["name"]: p["status"]["podIP"] for p in pods}


def cluster_ip(c, name):
    return c.kjson("get", "service", name)["spec"]["clusterIP"]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode().strip()


def answers(url, n):
    """n answers from url; failures (rules not in place yet) are left out."""
    out = []
    for _ in range(n):
        try:
            out.append(get(url))
        except OSError:
            pass
    return out


def host_address():
    """The address of the host's default route interface (a local address
    that is not loopback: NodePorts are not served on 127.0.0.0/8)."""
    r = subprocess.run(["ip", "-o", "-4", "route", "get", "192.0.2.123"], capture_output=True, text=True)
    words = r.stdout.split()
    if r.returncode != 0 or "src" not in words:
        pytest.skip("no route off the host")
    return words[words.index("src") + 1]


@pytest.fixture(scope="module")
def svc_cluster():
    with running_cluster("skiff-svc-") as c:
        c.apply(web_deployment("web", REPLICAS, c.node))
        c.apply(service("web"))
        pods = ready_pods(c, "web", REPLICAS)
        write_slice(c, "web", sorted(pods.values()))
        c.web = pods
        yield c


def test_clusterip_from_host_reaches_every_replica(svc_cluster):
    c = svc_cluster
    url = f"http://{cluster_ip(c, 'web')}:80/"
    seen = set()
    wait_for(lambda: seen.update(answers(url, 10)) or seen == set(c.web), 60, what="every replica answering")
    assert our_tables(c)


def test_clusterip_from_pod_reaches_every_replica(svc_cluster):
    c = svc_cluster
    ip = cluster_ip(c, "web")
    c.apply(f"""apiVersion: v1
kind: Pod
metadata: {{name: svc-client}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "for i in $(seq 60); do timeout 10 wget -qO- http://{ip}:80/; done"]
""")
    c.wait_phase("svc-client", "Succeeded", 120)
    lines = c.kubectl("logs", "svc-client").stdout.split()
    assert set(lines) == set(c.web), lines
    c.kubectl("delete", "pod", "svc-client", "--wait=false")


def test_pod_reaches_itself_through_its_service(svc_cluster):
    c = svc_cluster
    c.apply(service("hairpin"))
    ip = cluster_ip(c, "hairpin")
    c.apply(f"""apiVersion: v1
kind: Pod
metadata: {{name: hairpin}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "mkdir -p /www; echo self-$(hostname) > /www/index.html; httpd -p 8080 -h /www;
              for i in $(seq 60); do timeout 10 wget -qO- http://{ip}:80/ && exit 0; sleep 0.5; done; exit 1"]
""")
    p = c.wait_pod("hairpin", lambda p: p["status"].get("podIP"), 60, what="pod IP")
    write_slice(c, "hairpin", [p["status"]["podIP"]])
    c.wait_phase("hairpin", "Succeeded", 120)
    assert c.kubectl("logs", "hairpin").stdout.strip() == "self-hairpin"
    c.kubectl("delete", "pod", "hairpin", "--wait=false")


def test_node_port_from_host(svc_cluster):
    c = svc_cluster
    c.apply(service("web-np", svc_type="NodePort"))
    write_slice(c, "web-np", sorted(c.web.values()))
    svc = c.kjson("get", "service", "web-np")
    node_port = svc["spec"]["ports"][0]["nodePort"]
    url = f"http://{host_address()}:{node_port}/"
    seen = set()
    wait_for(lambda: seen.update(answers(url, 10)) or seen == set(c.web), 60, what="every replica on the NodePort")


def test_no_endpoints_is_refused(svc_cluster):
    c = svc_cluster
    c.apply(service("empty"))
    ip = cluster_ip(c, "empty")

    def refused():
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect((ip, 80))
            return False
        except ConnectionRefusedError:
            return True
        except OSError:
            return False
        finally:
            s.close()
    wait_for(refused, 30, what="connection refused")
    # a port the Service does not have: refused too (kube-proxy's cluster-ips-check)
    web = cluster_ip(c, "web")

    def other_port_refused():
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect((web, 81))
            return False
        except ConnectionRefusedError:
            return True
        except OSError:
            return False
        finally:
            s.close()
    wait_for(other_port_refused, 30, what="another port of a ClusterIP refused")
    # and from a pod: wget says so instead of timing out
    c.apply(f"""apiVersion: v1
kind: Pod
metadata: {{name: empty-client}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "timeout 20 wget -qO- http://{ip}:80/ 2>&1; true"]
""")
    c.wait_phase("empty-client", "Succeeded", 60)
    assert "refused" in c.kubectl("logs", "empty-client").stdout
    c.kubectl("delete", "pod", "empty-client", "--wait=false")


def test_client_ip_affinity_sticks(svc_cluster):
    c = svc_cluster
    c.apply(service("sticky", spec_extra="  sessionAffinity: ClientIP\n"))
    write_slice(c, "sticky", sorted(c.web.values()))
    url = f"http://{cluster_ip(c, 'sticky')}:80/"
    first = wait_for(lambda: answers(url, 1), 30, what="an answer")[0]
    assert set(answers(url, 20)) == {first}


def test_endpoints_coming_and_going_change_answers(svc_cluster):
    c = svc_cluster
    c.apply(service("moving"))
    names = sorted(c.web)
    one = names[0]
    write_slice(c, "moving", [c.web[one]])
    url = f"http://{cluster_ip(c, 'moving')}:80/"
    wait_for(lambda: set(answers(url, 10)) == {one}, 60, what="only the one endpoint")
    write_slice(c, "moving", sorted(c.web.values()))
    seen = set()
    wait_for(lambda: seen.update(answers(url, 10)) or seen == set(c.web), 60, what="all endpoints again")
    # not ready: out of the rules (no ready one left: connections are refused)
    write_slice(c, "moving", sorted(c.web.values()), ready=False)

    def refused():
        try:
            get(url)
            return False
        except urllib.error.URLError as e:
            return isinstance(e.reason, ConnectionRefusedError)
    wait_for(refused, 60, what="refused without ready endpoints")


def test_service_with_a_selector(svc_cluster):
    """The server's EndpointSlice controller keeps the slices of a Service
    with a selector: every replica answers, and a scale-down takes the gone
    pods out of the rules."""
    c = svc_cluster
    c.apply(web_deployment("sel", 2, c.node))
    c.apply(service("sel", spec_extra="  selector: {app: sel}\n"))
    pods = ready_pods(c, "sel", 2)
    url = f"http://{cluster_ip(c, 'sel')}:80/"
    seen = set()
    wait_for(lambda: seen.update(answers(url, 10)) or seen == set(pods), 60, what="both replicas")
    c.kubectl("scale", "deployment", "sel", "--replicas=1")
    left = wait_for(lambda: (lambda p: p if len(p) == 1 else None)(
        {p["metadata"]["name"] for p in c.kjson("get", "pods", "-l", "app=sel")["items"]}), 60, what="one pod left")
    wait_for(lambda: set(answers(url, 10)) == left, 60, what="only the pod left answering")
    c.kubectl("delete", "deployment", "sel")


def client_ip_server(name, node):
    """A pod whose /cgi-bin/ip answers the address the connection came from."""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {{app: {name}}}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "mkdir -p /www/cgi-bin; printf '#!/bin/sh\\\\necho Content-Type: text/plain\\\\necho\\\\necho $REMOTE_ADDR\\\\n' > /www/cgi-bin/ip;
              chmod +x /www/cgi-bin/ip; exec httpd -f -p 8080 -h /www"]
    readinessProbe: {{tcpSocket: {{port: 8080}}, periodSeconds: 1}}
"""


def test_other_nodes_pods_see_the_pod_address(svc_cluster):
    """A second agent (its own bridge and pod CIDR, outside the cluster CIDR)
    in the same cluster: a pod reaching a pod of the other node, directly and
    through a Service, arrives with its own address (the other node's pod
    CIDR is in pod-cidrs from its Node object: no masquerade)."""
    c = svc_cluster
    b = AgentCluster(c.data_dir, node="e2e-node-b")
    b.port = c.port
    b.agent_dir = os.path.join(c.data_dir, "agent-b")
    b.agent_log = os.path.join(c.data_dir, "agent-b.log")
    while b.pod_cidr == c.pod_cidr:
        b.pod_cidr = f"10.{random.randrange(100, 200)}.{random.randrange(0, 250)}.0/24"
    try:
        b.import_images()
        b.start_agent()
        c.apply(client_ip_server("who", b.node))
        who = c.wait_pod("who", lambda p: p["status"].get("podIP") and
                         all(s.get("ready") for s in p["status"].get("containerStatuses", [{}])), 120,
                         what="server on node b ready")
        c.apply(service("who"))
        write_slice(b, "who", [who["status"]["podIP"]])
        ip = cluster_ip(c, "who")
        c.apply(f"""apiVersion: v1
kind: Pod
metadata: {{name: asker}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "for u in http://{who['status']['podIP']}:8080/cgi-bin/ip http://{ip}:80/cgi-bin/ip; do
              for i in $(seq 20); do timeout 10 wget -qO- $u && break; sleep 0.5; done; done"]
""")
        c.wait_phase("asker", "Succeeded", 120)
        asker = c.pod("asker")["status"]["podIP"]
        # httpd listens on IPv6 too: REMOTE_ADDR is [::ffff:A.B.C.D]
        seen = [a.strip("[]").replace("::ffff:", "") for a in c.kubectl("logs", "asker").stdout.split()]
        assert seen == [asker, asker]
    finally:
        c.kubectl("delete", "pod", "who", "asker", "--wait=false", check=False)
        sandboxes = os.path.join(b.run_dir, "sandboxes")
        try:
            wait_for(lambda: c.kubectl("get", "pod", "who", check=False).returncode != 0 and
                     (not os.path.isdir(sandboxes) or not os.listdir(sandboxes)), 60, what="node b idle")
        finally:
            b.stop_agent()
            subprocess.run(["ip", "link", "del", b.bridge], capture_output=True)
            subprocess.run(["nft", "delete", "table", "ip", f"skiff-{b.bridge}"], capture_output=True)
            shutil.rmtree(b.run_dir, ignore_errors=True)


def test_pods_leaving_the_pod_network_are_masqueraded(svc_cluster):
    """An "outside" host in a network namespace of the test's own, with no
    route back to the pod network: a pod reaches it only masqueraded, with
    the node's address."""
    c = svc_cluster
    tag = "%04x" % random.randrange(1 << 16)
    ns, host_if, ns_if = f"skxo{tag}", f"skxo{tag}a", f"skxo{tag}b"
    net = f"192.168.{random.randrange(200, 250)}"
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    server = None
    try:
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if)
        run("ip", "link", "set", ns_if, "netns", ns)
        run("ip", "addr", "add", f"{net}.1/30", "dev", host_if)
        run("ip", "link", "set", host_if, "up")
        run("ip", "-n", ns, "addr", "add", f"{net}.2/30", "dev", ns_if)
        run("ip", "-n", ns, "link", "set", ns_if, "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        code = ("import http.server as h\n"
                "class H(h.BaseHTTPRequestHandler):\n"
                "    def do_GET(self):\n"
                "        b = self.client_address[0].encode()\n"
                "        self.send_response(200); self.send_header('Content-Length', str(len(b)))\n"
                "        self.end_headers(); self.wfile.write(b)\n"
                "    def log_message(self, *a): pass\n"
                f"h.HTTPServer(('{net}.2', 8000), H).serve_forever()\n")
        server = subprocess.Popen(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c", code])
        c.apply(f"""apiVersion: v1
kind: Pod
metadata: {{name: leaver}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "for i in $(seq 40); do timeout 5 wget -qO- http://{net}.2:8000/ && exit 0; sleep 0.5; done; exit 1"]
""")
        c.wait_phase("leaver", "Succeeded", 120)
        assert c.kubectl("logs", "leaver").stdout.strip() == f"{net}.1"
    finally:
        c.kubectl("delete", "pod", "leaver", "--wait=false", check=False)
        if server:
            server.kill()
            server.wait()
        subprocess.run(["ip", "link", "del", host_if], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_rules_survive_an_agent_restart(svc_cluster):
    c = svc_cluster
    url = f"http://{cluster_ip(c, 'web')}:80/"
    c.stop_agent()
    assert our_tables(c), "the table went with pods still running"
    assert get(url) in c.web
    c.start_agent()
    seen = set()
    wait_for(lambda: seen.update(answers(url, 10)) or seen == set(c.web), 60, what="every replica after restart")


def test_table_goes_when_the_agent_stops_idle(svc_cluster):
    c = svc_cluster
    c.delete_all_pods()
    wait_for(lambda: not c.leftovers(), 60, what="pods torn down")
    c.stop_agent()
    assert not our_tables(c), c.agent_logs()


def test_embedded_agent_serves_services(embedded):  # noqa: F811
    c = embedded
    wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0, 30, what="node")
    c.kubectl("apply", "-f", "-", input=f"""apiVersion: v1
kind: Pod
metadata: {{name: emb-web}}
spec:
  nodeName: {c.node}
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "mkdir -p /www; echo embedded > /www/index.html; exec httpd -f -p 8080 -h /www"]
    readinessProbe: {{tcpSocket: {{port: 8080}}, periodSeconds: 1}}
""")
    c.kubectl("apply", "-f", "-", input=service("emb-web"))

    def pod_ip():
        st = c.kjson("get", "pod", "emb-web").get("status", {})
        return st.get("podIP") if all(s.get("ready") for s in st.get("containerStatuses", [{}])) else None
    ip = wait_for(pod_ip, 120, what="pod ready")
    write_slice(c, "emb-web", [ip])
    url = f"http://{cluster_ip(c, 'emb-web')}:80/"
    wait_for(lambda: answers(url, 1) == ["embedded"], 60, what="the Service answering")
