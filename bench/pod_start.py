"""Pod start latency: N busybox pods created at once on one `skiff agent`
node; for each pod, the time from its create call returning to the first
watch event (Python kubernetes client) showing phase Running. Prints
p50/p90/max and the total. Needs root and the runtime tools, like the
end-to-end tests.

    /usr/bin/python3 bench/pod_start.py [N]
"""
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from test_agent_cluster import AgentCluster, have_tools  # noqa: E402


def pod(name, node):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"bench": "start"}},
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "c", "image": "busybox:1", "command": ["sleep", "3600"]}]}}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    if not have_tools():
        print("pod_start: skipped (needs root and the runtime tools)")
        return 0
    from kubernetes import client, watch
    d = tempfile.mkdtemp(prefix="skiff-bench-pods-")
    c = AgentCluster(d)
    try:
        c.start()
        c.import_images()
        c.start_agent()
        v1 = client.CoreV1Api(c.api_client())
        created, running = {}, {}
        rv = v1.list_namespaced_pod("default").metadata.resource_version
        done = threading.Event()

        def watcher():
            w = watch.Watch()
            for ev in w.stream(v1.list_namespaced_pod, "default", label_selector="bench=start",
                               resource_version=rv, timeout_seconds=120):
                p = ev["object"]
                if p.status and p.status.phase == "Running" and p.metadata.name not in running:
                    running[p.metadata.name] = time.monotonic()
                    if len(running) == n:
                        w.stop()
            done.set()

        t = threading.Thread(target=watcher, daemon=True)
        t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        for i in range(n):
            name = f"bench-{i}"
            v1.create_namespaced_pod("default", pod(name, c.node))
            created[name] = time.monotonic()
        done.wait(180)
        total = time.monotonic() - t0
        lat = sorted(running[k] - created[k] for k in running)
        if len(lat) < n:
            print(f"pod_start: only {len(lat)}/{n} pods reached Running")
            return 1

        def pct(q):
            return lat[min(len(lat) - 1, int(q * len(lat)))]
        print(f"pod_start: {n} pods, create->Running p50 {pct(0.5) * 1000:.0f} ms, p90 {pct(0.9) * 1000:.0f} ms, "
              f"max {lat[-1] * 1000:.0f} ms, all Running after {total * 1000:.0f} ms")
        return 0
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
