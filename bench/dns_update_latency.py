"""How soon the node-local DNS answers after an EndpointSlice change: a server and
agent with real containers (tests/e2e fixtures), a headless Service whose one endpoint is
replaced 10 times; the time from `kubectl apply` returning to `dig` at the gateway
showing the new address. Needs root, like the agent tests:
  flock /tmp/skiff-agent-e2e.lock /usr/bin/python3 bench/dns_update_latency.py"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import test_dns as t  # noqa: E402
from test_agent_cluster import running_cluster  # noqa: E402

t_state = {}


def setup(c):
    t_state["gw"] = t.gateway(c.pod_cidr)


with running_cluster("skiff-dnslat-", setup=setup) as c:
    c.gw = t_state["gw"]
    t.ensure_bridge(c)
    c.apply(t.svc("lat", clusterIP="None"))
    name = "lat.default.svc.cluster.local."
    lats = []
    for i in range(1, 11):
        c.apply(t.slice_("lat-1", "lat", [{"addresses": [f"10.200.9.{i}"]}]))
        t0 = time.time()
        while [r[3] for r in t.answer(t.dig(c.gw, name))] != [f"10.200.9.{i}"]:
            time.sleep(0.005)
        lats.append(time.time() - t0)
    print("after kubectl apply returned: median %.0f ms, max %.0f ms over %d changes" % (
        statistics.median(lats) * 1000, max(lats) * 1000, len(lats)))
