"""Node IPAM: how fast the node IPAM controller gives N new Nodes their pod CIDRs.

A `skiff server --no-agent --cluster-cidr 10.0.0.0/8 --service-cidr 172.20.0.0/16`
(65,536 /24s); N Node
objects are created with the Python client from 8 threads, and a watch on
nodes records when each one first shows spec.podCIDR. Printed: the create
rate, the time from the first create until every Node has a CIDR, and the
per-node latency (create returned -> CIDR seen) p50/p99; the CIDRs are
checked to be distinct. Then the server restarts (the allocation set is
rebuilt from the stored Nodes) and the time until one more Node has a CIDR is
printed. No root, no containers.

    /usr/bin/python3 bench/node_ipam.py [N]     # N defaults to 1000
"""
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    from kubernetes import client, watch
    d = tempfile.mkdtemp(prefix="skiff-bench-ipam-")
    c = Cluster(d, ["--no-agent", "--cluster-cidr", "10.0.0.0/8", "--service-cidr", "172.20.0.0/16"])
    try:
        c.start()
        v1 = client.CoreV1Api(c.api_client())
        created, seen, cidrs = {}, {}, {}
        done = threading.Event()

        def watcher():
            w = watch.Watch()
            for ev in w.stream(client.CoreV1Api(c.api_client()).list_node, timeout_seconds=600):
                node = ev["object"]
                if node.spec and node.spec.pod_cidr and node.metadata.name not in seen:
                    seen[node.metadata.name] = time.monotonic()
                    cidrs[node.metadata.name] = node.spec.pod_cidr
                    if len(seen) >= n:
                        done.set()
                        w.stop()
        t = threading.Thread(target=watcher, daemon=True)
        t.start()
        time.sleep(0.5)

        def creator(k):
            api = client.CoreV1Api(c.api_client())
            for i in range(k, n, 8):
                name = f"bench-{i:05d}"
                api.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
                created[name] = time.monotonic()
        t0 = time.monotonic()
        threads = [threading.Thread(target=creator, args=(k,)) for k in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        t_created = time.monotonic() - t0
        done.wait(600)
        t_all = max(seen.values()) - t0
        lat = [(seen[k] - created[k]) * 1000 for k in created if k in seen]
        assert len(set(cidrs.values())) == len(cidrs) == n, "duplicate or missing CIDRs"
        print(f"node_ipam nodes={n} creates_per_s={n / t_created:.0f} all_allocated_s={t_all:.2f} "
              f"latency_ms_p50={pct(lat, 50):.1f} latency_ms_p99={pct(lat, 99):.1f}")
        c.stop()
        t1 = time.monotonic()
        c.start()
        v1 = client.CoreV1Api(c.api_client())
        v1.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "after-restart"}})
        while not (v1.read_node("after-restart").spec or client.V1NodeSpec()).pod_cidr:
            time.sleep(0.01)
        got = v1.read_node("after-restart").spec.pod_cidr
        assert got not in cidrs.values()
        print(f"node_ipam restart_to_next_allocation_s={time.monotonic() - t1:.2f} (server start included) "
              f"next={got}")
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
