"""Three nodes on one machine: the server's embedded agent in the host's
network namespace and two `skiff agent`s in network namespaces of their own
(tests/e2e/netnodes.py), joined with the K10 token alone. Pod CIDRs come
from the node IPAM controller, the agents route the other nodes' pod CIDRs
(host-gw) and pods on different nodes reach each other by pod IP. Needs
root and the runtime tools; run under flock /tmp/skiff-agent-e2e.lock."""
import json
import ipaddress
import os
import subprocess

import pytest

from conftest import SKIFF
from netnodes import multi_node_cluster, routes
from test_agent_cluster import wait_for

pytestmark = pytest.mark.agents


@pytest.fixture(scope="module")
def nodes():
    with multi_node_cluster(2, spare=1) as c:
        yield c


def web_pod(name, node, by_selector=False):
    placement = (f"nodeSelector: {{kubernetes.io/hostname: {node}}}" if by_selector else f"nodeName: {node}")
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  {placement}
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: busybox:1
    command: ["sh", "-c", "mkdir -p /www && echo hello from $(hostname) > /www/index.html && echo serving && exec httpd -f -p 8080 -h /www"]
"""


def probe_pod(name, node, ips):
    # every address must answer within the minute, else the pod fails (nc:
    # the static busybox's wget needs the C library's resolver plugins)
    script = " && ".join(f"until printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 {ip} 8080 | grep hello; do sleep 1; done"
                         for ip in ips)
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeName: {node}
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: probe
    image: busybox:1
    command: ["timeout", "60", "sh", "-c", {json.dumps(script)}]
"""


def test_every_node_gets_a_distinct_pod_cidr_and_its_address(nodes):
    c = nodes
    cluster = ipaddress.ip_network(c.cluster_cidr)
    seen = {}
    for name in c.nodes:
        n = c.kjson("get", "node", name)
        cidr = n["spec"]["podCIDR"]
        assert n["spec"]["podCIDRs"] == [cidr]
        net = ipaddress.ip_network(cidr)
        assert net.prefixlen == 24 and net.subnet_of(cluster), cidr
        seen[name] = net
        addrs = {a["type"]: a["address"] for a in n["status"]["addresses"]}
        assert addrs["Hostname"] == name
        want = c.net.gateway if name == c.server_node else c.agent(name).ip
        assert addrs["InternalIP"] == want
    assert len(set(seen.values())) == len(c.nodes), seen
    # podCIDR is immutable once set
    r = c.kubectl("patch", "node", c.agents[0].name, "-p", '{"spec":{"podCIDR":"10.1.2.0/24","podCIDRs":["10.1.2.0/24"]}}',
                  check=False)
    assert r.returncode != 0 and "may not change podCIDR" in r.stderr


def test_routes_to_the_other_nodes(nodes):
    c = nodes
    cidrs = {name: c.kjson("get", "node", name)["spec"]["podCIDR"] for name in c.nodes}
    ips = {c.server_node: c.net.gateway, **{a.name: a.ip for a in c.agents}}

    def want(me):
        return {cidrs[n]: ips[n] for n in c.nodes if n != me}
    wait_for(lambda: routes(None, c.cluster_cidr) == want(c.server_node), 30, what="host routes")
    for a in c.agents:
        wait_for(lambda: a.routes(c.cluster_cidr) == want(a.name), 30, what=f"routes of {a.name}")


def test_pods_on_different_nodes_reach_each_other(nodes):
    c = nodes
    webs = {}
    for i, node in enumerate(c.nodes):
        c.kubectl("apply", "-f", "-", input=web_pod(f"web-{i}", node, by_selector=(i == 2)))
        webs[f"web-{i}"] = node
    ips = {}
    for name, node in webs.items():
        p = c.wait_running(name)
        assert p["spec"]["nodeName"] == node
        ip = p["status"]["podIP"]
        assert ipaddress.ip_address(ip) in ipaddress.ip_network(c.kjson("get", "node", node)["spec"]["podCIDR"])
        ips[name] = ip
    for i, node in enumerate(c.nodes):
        c.kubectl("apply", "-f", "-", input=probe_pod(f"probe-{i}", node, list(ips.values())))
    for i, node in enumerate(c.nodes):
        c.wait_pod(f"probe-{i}", lambda p: p.get("status", {}).get("phase") in ("Succeeded", "Failed"),
                   what="finished")
        p = c.kjson("get", "pod", f"probe-{i}")
        out = c.kubectl("logs", f"probe-{i}").stdout
        assert p["status"]["phase"] == "Succeeded", f"probe on {node}: {out}\n{c.logs()}"
        for name in webs:
            assert f"hello from {name}" in out, out


def test_logs_of_a_pod_on_a_namespace_node(nodes):
    c = nodes
    # web-1 runs on the first namespace node
    assert c.kjson("get", "pod", "web-1")["spec"]["nodeName"] == c.agents[0].name
    wait_for(lambda: "serving" in c.kubectl("logs", "web-1").stdout, 30, what="logs of web-1")


def test_a_token_with_a_wrong_ca_hash_is_refused(nodes):
    c = nodes
    tok = c.token()
    assert tok.startswith("K10")
    bad = "K10" + ("0" * 64) + tok[3 + 64:]
    r = subprocess.run([SKIFF, "agent", "--server", c.url(), "--token", bad, "--data-dir",
                        os.path.join(c.root, "refused")], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "the server's CA does not match the token's hash" in r.stderr
    assert not os.path.exists(os.path.join(c.root, "refused"))
    assert subprocess.run([SKIFF, "agent", "--server", c.url(), "--token", "K10zz::node:x", "--data-dir",
                           os.path.join(c.root, "refused")], capture_output=True, text=True,
                          timeout=30).returncode != 0


def test_a_plain_token_still_joins(nodes):
    c = nodes
    secret = c.token().split("::", 1)[1].split(":", 1)[1]
    a = c.spare_agent(0)
    a.start(c.url(), secret)
    try:
        c.wait_ready(a.name)
        assert c.kjson("get", "node", a.name)["spec"]["podCIDR"]
    finally:
        a.stop()
        c.kubectl("delete", "node", a.name)
    assert not a.routes()


def test_a_restarted_agent_keeps_its_pod_cidr_and_pods(nodes):
    c = nodes
    a = c.agents[0]
    cidr = c.kjson("get", "node", a.name)["spec"]["podCIDR"]
    uid = c.kjson("get", "pod", "web-1")["metadata"]["uid"]
    before = a.routes(c.cluster_cidr)
    a.stop()
    # pods keep running, and so do their routes to the other nodes
    assert a.routes(c.cluster_cidr) == before
    with open(a.log_path) as f:
        seen = len(f.read())
    a.start(c.url(), c.token())

    def restarted():
        with open(a.log_path) as f:
            log = f.read()[seen:]
        return log if f"pod CIDR {cidr}" in log else None
    log = wait_for(restarted, 30, what="the agent's pods started again")
    assert "waiting for a pod CIDR" not in log, log
    c.wait_ready(a.name)
    assert c.kjson("get", "node", a.name)["spec"]["podCIDR"] == cidr
    p = c.wait_running("web-1")
    assert p["metadata"]["uid"] == uid
    wait_for(lambda: a.routes(c.cluster_cidr) == before, 30, what="routes after the restart")


def test_deleting_a_node_removes_its_routes(nodes):
    c = nodes
    gone = c.agents[1]
    cidr = c.kjson("get", "node", gone.name)["spec"]["podCIDR"]
    c.kubectl("delete", "pod", "web-2", "probe-2", "--wait=false")
    wait_for(lambda: not gone.sandboxes(), 60, what=f"pods of {gone.name} removed")
    gone.stop()
    assert not gone.routes(), "an idle agent removes its routes when it stops"
    c.kubectl("delete", "node", gone.name)
    wait_for(lambda: cidr not in routes(None, c.cluster_cidr), 30, what="host route removed")
    wait_for(lambda: cidr not in c.agents[0].routes(c.cluster_cidr), 30, what="node route removed")
    # the freed /24 goes to a node that joins later, never twice at once
    others = {c.kjson("get", "node", n)["spec"]["podCIDR"] for n in c.nodes if n != gone.name}
    assert cidr not in others
