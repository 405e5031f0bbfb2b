"""A cluster CIDR with room for two nodes and three nodes (the server's and
two in network namespaces): the third agent registers its Node without a pod
CIDR and waits ("waiting for a pod CIDR"), its Node gets CIDRNotAvailable
and its pods do not start; once the second node is deleted its /24 goes to
the third, whose pods then run and reach the server's. Needs root; run under
flock /tmp/skiff-agent-e2e.lock."""
import ipaddress

import pytest

from netnodes import multi_node_cluster
from test_agent_cluster import wait_for
from test_nodes_multi import probe_pod, web_pod

pytestmark = pytest.mark.agents


@pytest.fixture(scope="module")
def full():
    with multi_node_cluster(2, cluster_prefix=23, waiting=1) as c:
        yield c


def not_available(c, name):
    ev = c.kjson("get", "events", "--field-selector", f"involvedObject.name={name}")["items"]
    return [e for e in ev if e["reason"] == "CIDRNotAvailable"]


def test_the_third_node_waits_then_gets_the_freed_cidr(full):
    c = full
    first, third = c.agents
    cidrs = {c.kjson("get", "node", n)["spec"]["podCIDR"] for n in (c.server_node, first.name)}
    assert cidrs == {str(s) for s in ipaddress.ip_network(c.cluster_cidr).subnets(new_prefix=24)}
    wait_for(lambda: not_available(c, third.name), 30, what="CIDRNotAvailable for the third node")
    wait_for(lambda: "waiting for a pod CIDR" in third.log(), 30, what="the agent waiting")
    assert not c.kjson("get", "node", third.name)["spec"].get("podCIDR")
    c.kubectl("apply", "-f", "-", input=web_pod("web-server", c.server_node))
    c.kubectl("apply", "-f", "-", input=web_pod("web-third", third.name))
    server_ip = c.wait_running("web-server")["status"]["podIP"]
    # the agent without a pod CIDR runs no pod
    assert c.kjson("get", "pod", "web-third").get("status", {}).get("phase", "Pending") == "Pending"
    freed = c.kjson("get", "node", first.name)["spec"]["podCIDR"]
    first.stop()
    c.kubectl("delete", "node", first.name)
    wait_for(lambda: c.kjson("get", "node", third.name)["spec"].get("podCIDR") == freed, 30,
             what="the freed CIDR given to the third node")
    p = c.wait_running("web-third")
    assert ipaddress.ip_address(p["status"]["podIP"]) in ipaddress.ip_network(freed)
    c.kubectl("apply", "-f", "-", input=probe_pod("probe-third", third.name, [server_ip, p["status"]["podIP"]]))
    p = c.wait_pod("probe-third", lambda p: p.get("status", {}).get("phase") in ("Succeeded", "Failed"),
                   what="finished")
    out = c.kubectl("logs", "probe-third").stdout
    assert p["status"]["phase"] == "Succeeded", out
    assert "hello from web-server" in out and "hello from web-third" in out
