"""A three-node cluster on one machine (tests/e2e/netnodes.py: the server's
embedded agent in the host's network namespace, two `skiff agent`s in
network namespaces of their own) used as a user would use a real one:
Services whose endpoints are on other nodes, reached by name and by
ClusterIP; NodePorts from the host; an Indexed Job whose pods on different
nodes find each other through a headless Service; DNS answers following a
scale-up on every node; NetworkPolicy between nodes; the kubernetes Service
from a pod; and a node that goes away leaving no routes and no endpoints.
Needs root and the runtime tools; run under flock /tmp/skiff-agent-e2e.lock."""
import json
import os
import subprocess
import time
import urllib.request

import pytest

from netnodes import multi_node_cluster, routes
from test_agent_cluster import wait_for

pytestmark = pytest.mark.agents

ZONE = "cluster.local"


@pytest.fixture(scope="module")
def net():
    # the pod GC's quarantine (40 s) shortened for the node that goes away
    saved = {k: os.environ.get(k) for k in ("SKIFF_PODGC_QUARANTINE", "SKIFF_PODGC_PERIOD")}
    os.environ.update(SKIFF_PODGC_QUARANTINE="2", SKIFF_PODGC_PERIOD="1")
    try:
        with multi_node_cluster(2) as c:
            yield c
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def apply(c, obj):
    c.kubectl("apply", "-f", "-", input=obj if isinstance(obj, str) else json.dumps(obj))


def web_deployment(name, replicas, nodes, labels=None, ns="default"):
    """busybox httpd answering with its pod name, spread one per node over nodes."""
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels},
            "spec": {
                "terminationGracePeriodSeconds": 1,
                "affinity": {
                    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                               "values": nodes}]}]}},
                    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": labels}, "topologyKey": "kubernetes.io/hostname"}]}},
                "containers": [{
                    "name": "web", "image": "busybox:1",
                    "command": ["sh", "-c", "mkdir -p /www && echo from-$(hostname) > /www/index.html && "
                                "exec httpd -f -p 8080 -h /www"],
                    "ports": [{"name": "http", "containerPort": 8080}],
                    "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 1}}]}}}}


def service(name, ns="default", **spec):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}


def ready_pods(c, selector, ns="default"):
    out = []
    for p in c.kjson("get", "pods", "-n", ns, "-l", selector)["items"]:
        st = p.get("status", {})
        if p["metadata"].get("deletionTimestamp") or not st.get("podIP"):
            continue
        if any(x["type"] == "Ready" and x["status"] == "True" for x in st.get("conditions", [])):
            out.append(p)
    return out


def wait_ready_pods(c, selector, n, ns="default", timeout=120):
    try:
        return wait_for(lambda: (lambda ps: ps if len(ps) == n else None)(ready_pods(c, selector, ns)), timeout,
                        what=f"{n} ready pods {selector}")
    except AssertionError as e:
        raise AssertionError(f"{e}\n{c.kubectl('get', 'pods', '-A', '-o', 'wide').stdout}\n{c.logs()}")


def run_pod(c, name, node, script, timeout=120, ns="default"):
    """Runs script in a busybox pod on node to completion; its phase and logs."""
    apply(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
              "spec": {"nodeName": node, "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                       "containers": [{"name": "c", "image": "busybox:1", "command": ["sh", "-c", script]}]}})
    wait_for(lambda: c.kjson("get", "pod", "-n", ns, name).get("status", {}).get("phase") in ("Succeeded", "Failed"),
             timeout, what=f"{ns}/{name} finished")
    phase = c.kjson("get", "pod", "-n", ns, name)["status"]["phase"]
    return phase, c.kubectl("logs", "-n", ns, name).stdout


def dig(server, name, qtype="A"):
    r = subprocess.run(["dig", "+norecurse", "+tries=1", "+time=2", f"@{server}", name, qtype],
                       capture_output=True, text=True)
    ans, on = [], False
    for line in r.stdout.splitlines():
        if line.startswith(";; ANSWER SECTION"):
            on = True
        elif on and not line.strip():
            break
        elif on:
            ans.append(line.split()[-1])
    return sorted(ans)


def gateway(c, node):
    cidr = c.kjson("get", "node", node)["spec"]["podCIDR"]
    a, b, cc, _ = cidr.split("/")[0].split(".")
    return f"{a}.{b}.{cc}.1"


def test_service_on_other_nodes_by_name_and_cluster_ip(net):
    c = net
    others = [a.name for a in c.agents]
    apply(c, web_deployment("web", 2, others))
    apply(c, service("web", selector={"app": "web"}, ports=[{"name": "http", "port": 80, "targetPort": "http"}]))
    pods = wait_ready_pods(c, "app=web", 2)
    assert sorted(p["spec"]["nodeName"] for p in pods) == sorted(others)
    ip = c.kjson("get", "service", "web")["spec"]["clusterIP"]
    script = ("for i in $(seq 30); do wget -q -O- http://web/; wget -q -O- http://web.default.svc.cluster.local/; "
              f"wget -q -O- http://{ip}/; done")
    phase, out = run_pod(c, "client-a", c.server_node, script)
    assert phase == "Succeeded", out
    names = {p["metadata"]["name"] for p in pods}
    assert {l[len("from-"):] for l in out.split()} == names, out
    assert out.split().count(f"from-{pods[0]['metadata']['name']}") > 5


def test_node_port_from_the_host(net):
    c = net
    apply(c, service("web-np", type="NodePort", selector={"app": "web"},
                     ports=[{"name": "http", "port": 80, "targetPort": "http"}]))
    port = c.kjson("get", "service", "web-np")["spec"]["ports"][0]["nodePort"]
    addrs = [c.net.gateway] + [a.ip for a in c.agents]

    def answers(addr):
        try:
            with urllib.request.urlopen(f"http://{addr}:{port}/", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False
    for addr in addrs:
        # each agent programs the port when it sees the Service, as kube-proxy does: a moment after the create
        wait_for(lambda: answers(addr), 30, what=f"{addr}:{port} answering")
        seen = set()
        for _ in range(20):
            with urllib.request.urlopen(f"http://{addr}:{port}/", timeout=5) as r:
                seen.add(r.read().decode().strip())
        assert len(seen) == 2, (addr, seen)


def test_indexed_job_across_nodes_through_a_headless_service(net):
    c = net
    apply(c, service("workers", clusterIP="None", selector={"app": "idx"}, publishNotReadyAddresses=True,
                     ports=[{"name": "http", "port": 8080}]))
    script = ("mkdir -p /www && echo pod-$JOB_COMPLETION_INDEX > /www/index.html && httpd -p 8080 -h /www && "
              "for t in $(seq 300); do ok=1; for i in 0 1 2; do "
              "timeout 3 wget -q -O /tmp/o http://idx-$i.workers:8080/ && grep -q pod-$i /tmp/o || ok=0; done; "
              "if [ $ok = 1 ]; then echo all-peers-ok; sleep 5; exit 0; fi; sleep 1; done; exit 1")
    apply(c, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "idx"},
              "spec": {"completions": 3, "parallelism": 3, "completionMode": "Indexed", "backoffLimit": 0,
                       "template": {"metadata": {"labels": {"app": "idx"}}, "spec": {
                           "subdomain": "workers", "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                           "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                               {"labelSelector": {"matchLabels": {"app": "idx"}},
                                "topologyKey": "kubernetes.io/hostname"}]}},
                           "containers": [{"name": "c", "image": "busybox:1", "command": ["sh", "-c", script]}]}}}})

    def done():
        st = c.kjson("get", "job", "idx").get("status", {})
        return st if st.get("succeeded", 0) == 3 or st.get("failed", 0) else False
    st = wait_for(done, 240, what="the Indexed Job")
    pods = c.kjson("get", "pods", "-l", "app=idx")["items"]
    logs = c.kubectl("logs", "-l", "app=idx", "--tail=5").stdout
    assert st.get("succeeded") == 3, f"{logs}\n{c.logs()}"
    assert logs.count("all-peers-ok") == 3
    assert len({p["spec"]["nodeName"] for p in pods}) == 3  # one per node


def test_scaling_changes_the_dns_answers_of_every_node(net):
    c = net
    apply(c, service("scaled", clusterIP="None", selector={"app": "scaled"}, ports=[{"name": "http", "port": 8080}]))
    apply(c, web_deployment("scaled", 1, c.nodes, {"app": "scaled"}))
    wait_ready_pods(c, "app=scaled", 1)
    name = f"scaled.default.svc.{ZONE}."
    servers = [gateway(c, n) for n in c.nodes]
    for s in servers:
        wait_for(lambda: len(dig(s, name)) == 1, 30, what=f"one answer from {s}")
    c.kubectl("scale", "deployment", "scaled", "--replicas=3")
    pods = wait_ready_pods(c, "app=scaled", 3)
    ready_at = time.time()
    want = sorted(p["status"]["podIP"] for p in pods)
    lags = []
    for s in servers:
        wait_for(lambda: dig(s, name) == want, 30, interval=0.02, what=f"three answers from {s}")
        lags.append(time.time() - ready_at)
    print(f"scale 1 -> 3: every node's DNS answered the 3 pods {max(lags) * 1000:.0f} ms after kubectl saw them "
          "ready (includes the polling of kubectl)")
    c.kubectl("scale", "deployment", "scaled", "--replicas=1")
    wait_ready_pods(c, "app=scaled", 1)
    for s in servers:
        wait_for(lambda: len(dig(s, name)) == 1, 30, interval=0.05, what=f"one answer again from {s}")


def test_network_policy_between_nodes(net):
    c = net
    a, b = c.agents[0].name, c.agents[1].name
    for ns in ("np-closed", "np-friend"):
        c.kubectl("create", "namespace", ns)
    c.kubectl("label", "namespace", "np-friend", "team=friend")
    apply(c, web_deployment("srv", 1, [a], {"app": "srv"}, ns="np-closed"))
    srv = wait_ready_pods(c, "app=srv", 1, ns="np-closed")[0]["status"]["podIP"]
    probe = f"timeout 3 wget -q -O- http://{srv}:8080/ && echo REACHED || echo BLOCKED"
    phase, out = run_pod(c, "p1", b, probe, ns="np-friend")
    assert "REACHED" in out, out
    apply(c, """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: np-closed}
spec:
  podSelector: {}
  policyTypes: [Ingress]
""")
    wait_for(lambda: "BLOCKED" in run_pod(c, f"p2-{time.time_ns() % 100000}", b, probe, ns="np-friend")[1], 60,
             interval=0, what="blocked by the policy")
    apply(c, """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: from-friends, namespace: np-closed}
spec:
  podSelector: {matchLabels: {app: srv}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: friend}}}]
    ports: [{port: http}]
""")
    wait_for(lambda: "REACHED" in run_pod(c, f"p3-{time.time_ns() % 100000}", b, probe, ns="np-friend")[1], 60,
             interval=0, what="allowed for the labelled namespace")
    # a namespace without the label stays out
    phase, out = run_pod(c, "p4", b, probe)
    assert "BLOCKED" in out, out
    c.kubectl("delete", "namespace", "np-closed", "np-friend", "--wait=false")


def test_kubernetes_service_reaches_the_api_from_a_pod(net):
    c = net
    ep = c.kjson("get", "endpoints", "kubernetes")
    assert ep["subsets"][0]["addresses"][0]["ip"] == c.net.gateway
    script = ("wget --no-check-certificate -q -O- https://kubernetes.default.svc/version 2>&1; "
              "wget --no-check-certificate -q -O- https://10.43.0.1/livez 2>&1; true")
    phase, out = run_pod(c, "api-client", c.agents[0].name, script)
    # an anonymous request reaches the API server through TLS: its answer or its 401
    assert "gitVersion" in out or "401" in out, out


def test_containers_get_the_service_variables(net):
    """As kubelet: every Service of the pod's namespace with a cluster IP, and
    the kubernetes Service always (what in-cluster clients read)."""
    c = net
    web = c.kjson("get", "service", "web")["spec"]["clusterIP"]
    phase, out = run_pod(c, "env-links", c.agents[0].name, "env | sort")
    env = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
    assert env["KUBERNETES_SERVICE_HOST"] == "10.43.0.1" and env["KUBERNETES_SERVICE_PORT"] == "443"
    assert env["KUBERNETES_SERVICE_PORT_HTTPS"] == "443"
    assert env["KUBERNETES_PORT"] == "tcp://10.43.0.1:443"
    assert env["WEB_SERVICE_HOST"] == web and env["WEB_SERVICE_PORT"] == "80" and env["WEB_SERVICE_PORT_HTTP"] == "80"
    assert env["WEB_PORT_80_TCP"] == f"tcp://{web}:80" and env["WEB_PORT_80_TCP_ADDR"] == web
    assert "WORKERS_SERVICE_HOST" not in env  # headless
    apply(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "env-nolinks"},
              "spec": {"nodeName": c.agents[0].name, "restartPolicy": "Never", "enableServiceLinks": False,
                       "terminationGracePeriodSeconds": 1,
                       "containers": [{"name": "c", "image": "busybox:1", "command": ["sh", "-c", "env | sort"],
                                       "env": [{"name": "URL", "value": "https://$(KUBERNETES_SERVICE_HOST):443"}]}]}})
    wait_for(lambda: c.kjson("get", "pod", "env-nolinks").get("status", {}).get("phase") == "Succeeded", 60,
             what="env-nolinks")
    out = c.kubectl("logs", "env-nolinks").stdout
    assert "KUBERNETES_SERVICE_HOST=10.43.0.1" in out and "WEB_SERVICE_HOST" not in out
    assert "URL=https://10.43.0.1:443" in out


def test_a_node_going_away_leaves_no_routes_and_no_endpoints(net):
    c = net
    gone = c.agents[1]
    cidr = c.kjson("get", "node", gone.name)["spec"]["podCIDR"]
    assert any(p["spec"]["nodeName"] == gone.name for p in ready_pods(c, "app=web"))

    def slice_nodes():
        nodes = set()
        for s in c.kjson("get", "endpointslices", "-l", "kubernetes.io/service-name=web")["items"]:
            nodes |= {e.get("nodeName") for e in s.get("endpoints") or []}
        return nodes
    assert gone.name in slice_nodes()
    gone.stop()
    c.kubectl("delete", "node", gone.name)
    wait_for(lambda: cidr not in routes(None, c.cluster_cidr), 30, what="the host's route to the node gone")
    wait_for(lambda: cidr not in c.agents[0].routes(c.cluster_cidr), 30, what="the other node's route gone")
    wait_for(lambda: gone.name not in slice_nodes(), 60, what="its endpoints gone")

    def endpoints_nodes():
        ep = c.kjson("get", "endpoints", "web")
        return {a.get("nodeName") for s in ep.get("subsets", [])
                for a in s.get("addresses", []) + s.get("notReadyAddresses", [])}
    wait_for(lambda: gone.name not in endpoints_nodes(), 30, what="its addresses gone from the Endpoints")
    # the machine comes back: its agent registers the node again and removes the pods it still ran
    gone.start(c.url(), c.token())
    c.wait_ready(gone.name)
