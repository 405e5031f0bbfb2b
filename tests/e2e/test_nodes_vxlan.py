"""Nodes without L2 adjacency: the server's node and a namespace node on one
bridge, a third node on a second bridge that reaches them only through the
host's routing (tests/e2e/netnodes.py, remote=1). Its agent and the first
namespace node's reach each other's pod CIDRs through the kernel's VXLAN
device (VNI 1, port 4789) and publish their VTEP MACs on their Nodes; the
server's node routes the remote one directly (the host is on both bridges)
and gets a VXLAN device for the remote node's traffic to it. Needs root;
run under flock /tmp/skiff-agent-e2e.lock."""
import json

import pytest

from netnodes import fnv1a, multi_node_cluster, routes, sh
from test_agent_cluster import wait_for
from test_nodes_multi import probe_pod, web_pod

pytestmark = pytest.mark.agents

VTEP = "skiff.dev/vxlan-vtep-mac"


@pytest.fixture(scope="module")
def vx():
    with multi_node_cluster(1, remote=1) as c:
        yield c


def cidr_of(c, node):
    return c.kjson("get", "node", node)["spec"]["podCIDR"]


def vtep_of(cidr):
    return cidr.split("/")[0]


def route_json(netns, cidr):
    r = sh("ip", "-j", "route", "show", cidr, "proto", "152", check=False, netns=netns)
    got = json.loads(r.stdout or "[]")
    return got[0] if got else None


def test_remote_nodes_are_routed_through_vxlan(vx):
    c = vx
    near, far = c.agents
    far_dev = "skvx%08x" % fnv1a(far.bridge)
    near_dev = "skvx%08x" % fnv1a(near.bridge)
    for node in c.nodes:
        wait_for(lambda: c.kjson("get", "node", node)["metadata"].get("annotations", {}).get(VTEP), 30,
                 what=f"VTEP MAC of {node}")
    for other, netns, dev in ((c.server_node, far.netns, far_dev), (near.name, far.netns, far_dev),
                              (far.name, near.netns, near_dev)):
        cidr = cidr_of(c, other)

        def vxlan_route():
            rt = route_json(netns, cidr)
            return rt if rt and rt.get("dev") == dev and rt.get("gateway") == vtep_of(cidr) else None
        rt = wait_for(vxlan_route, 30, what=f"VXLAN route to {other} in {netns}")
        assert "onlink" in rt.get("flags", [])
        mac = c.kjson("get", "node", other)["metadata"]["annotations"][VTEP]
        fdb = sh("bridge", "fdb", "show", "dev", dev, netns=netns).stdout
        assert mac in fdb and "dst" in fdb
        neigh = sh("ip", "neigh", "show", "dev", dev, netns=netns).stdout
        assert vtep_of(cidr) in neigh and mac in neigh
    link = json.loads(sh("ip", "-d", "-j", "link", "show", far_dev, netns=far.netns).stdout)[0]
    info = link["linkinfo"]["info_data"]
    assert info["id"] == 1 and info["port"] == 4789 and info["local"] == far.ip
    # the host reaches the remote bridge directly: host-gw
    cidr = cidr_of(c, far.name)
    wait_for(lambda: routes(None, c.cluster_cidr).get(cidr) == far.ip, 30, what="host-gw route on the server")


def test_pods_reach_each_other_through_vxlan(vx):
    c = vx
    ips = {}
    for i, node in enumerate(c.nodes):
        c.kubectl("apply", "-f", "-", input=web_pod(f"vweb-{i}", node))
    for i in range(len(c.nodes)):
        ips[f"vweb-{i}"] = c.wait_running(f"vweb-{i}")["status"]["podIP"]
    for i, node in enumerate(c.nodes):
        c.kubectl("apply", "-f", "-", input=probe_pod(f"vprobe-{i}", node, list(ips.values())))
    for i, node in enumerate(c.nodes):
        p = c.wait_pod(f"vprobe-{i}", lambda p: p.get("status", {}).get("phase") in ("Succeeded", "Failed"),
                       what="finished")
        out = c.kubectl("logs", f"vprobe-{i}").stdout
        assert p["status"]["phase"] == "Succeeded", f"probe on {node}: {out}\n{c.logs()}"
        for name in ips:
            assert f"hello from {name}" in out, out
