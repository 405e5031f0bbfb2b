"""Pod start latency and density on one `skiff agent` node (real containers
through conmon + crun/runc, CNI bridge networking, image present).

Latency of a pod: from its create call returning to the first watch event
(Python kubernetes client) showing phase Running.

Two modes, both run by default:
  sequential  one pod at a time (create, wait for Running, next): the pod
              start latency of an otherwise idle node; p50/p99 over N pods.
  burst       N pods created at once (one create after the other, without
              waiting): p50/p99 latency under load, and the density figure,
              the time from the first create until all N are Running.

    /usr/bin/python3 bench/pod_start.py [N] [--mode sequential|burst|both]

N defaults to 100. Pods are deleted between the modes. SKIFF_TRACE=1 in the
environment makes the agent log each step of every pod's start (agent.log in
the kept data directory with --keep). Needs root and the runtime tools, like
the end-to-end tests.
"""
import argparse
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from test_agent_cluster import AgentCluster, have_tools, wait_for  # noqa: E402


RUNTIME_CLASS = None


def pod(name, node, label):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"bench": label}},
         "spec": {"nodeName": node, "terminationGracePeriodSeconds": 0,
                  "containers": [{"name": "c", "image": "busybox:1", "command": ["sleep", "3600"],
                                  "imagePullPolicy": "Never"}]}}
    if RUNTIME_CLASS:
        p["spec"]["runtimeClassName"] = RUNTIME_CLASS
    return p


class Watcher:
    """One watch on the bench pods; records when each first shows Running."""

    def __init__(self, v1, label):
        from kubernetes import watch
        self.running = {}
        self.cond = threading.Condition()
        self.w = watch.Watch()
        rv = v1.list_namespaced_pod("default").metadata.resource_version
        self.t = threading.Thread(target=self._run, args=(v1, label, rv), daemon=True)
        self.t.start()

    def _run(self, v1, label, rv):
        for ev in self.w.stream(v1.list_namespaced_pod, "default", label_selector=f"bench={label}",
                                resource_version=rv, timeout_seconds=900):
            p = ev["object"]
            if p.status and p.status.phase == "Running" and p.metadata.name not in self.running:
                with self.cond:
                    self.running[p.metadata.name] = time.monotonic()
                    self.cond.notify_all()

    def wait(self, names, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(n in self.running for n in names):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def stop(self):
        self.w.stop()


def pct(lat, q):
    """Nearest-rank percentile of a sorted list."""
    import math
    return lat[max(0, min(len(lat) - 1, math.ceil(q * len(lat)) - 1))]


def report(mode, n, lat, extra=""):
    lat = sorted(lat)
    print(f"pod_start {mode}: {n} pods, create->Running p50 {pct(lat, 0.5) * 1000:.0f} ms, "
          f"p90 {pct(lat, 0.9) * 1000:.0f} ms, p99 {pct(lat, 0.99) * 1000:.0f} ms, "
          f"max {lat[-1] * 1000:.0f} ms{extra}", flush=True)


def run_sequential(c, v1, n):
    w = Watcher(v1, "seq")
    time.sleep(0.3)
    lat = []
    try:
        for i in range(n):
            name = f"seq-{i}"
            v1.create_namespaced_pod("default", pod(name, c.node, "seq"))
            t = time.monotonic()
            if not w.wait([name], 60):
                print(f"pod_start sequential: {name} not Running after 60 s")
                return 1
            lat.append(w.running[name] - t)
    finally:
        w.stop()
    report("sequential", n, lat)
    return 0


def run_burst(c, v1, n):
    w = Watcher(v1, "burst")
    time.sleep(0.3)
    created = {}
    try:
        t0 = time.monotonic()
        for i in range(n):
            name = f"burst-{i}"
            v1.create_namespaced_pod("default", pod(name, c.node, "burst"))
            created[name] = time.monotonic()
        t_created = time.monotonic() - t0
        ok = w.wait(list(created), 600)
        total = time.monotonic() - t0
    finally:
        w.stop()
    if not ok:
        print(f"pod_start burst: only {len(w.running)}/{n} pods reached Running")
        return 1
    report("burst", n, [w.running[k] - created[k] for k in created],
           f"; creates took {t_created * 1000:.0f} ms; density: all {n} Running {total * 1000:.0f} ms "
           f"after the first create")
    return 0


def delete_all(c, v1):
    """Deletes the bench pods and waits until the node has torn them all down:
    pods still terminating count against the node's 110 pods."""
    v1.delete_collection_namespaced_pod("default", label_selector="bench", grace_period_seconds=0)
    wait_for(lambda: not v1.list_namespaced_pod("default").items, 300, what="bench pods deleted")
    sandboxes = os.path.join(c.run_dir, "sandboxes")
    wait_for(lambda: not os.path.isdir(sandboxes) or not os.listdir(sandboxes), 300, interval=0.5,
             what="sandboxes removed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=100)
    ap.add_argument("--mode", choices=["sequential", "burst", "both"], default="both")
    ap.add_argument("--keep", action="store_true", help="keep the data directory (agent.log)")
    ap.add_argument("--runtime", help="OCI runtime handler for the pods (a RuntimeClass of that name)")
    args = ap.parse_args()
    if not have_tools():
        print("pod_start: skipped (needs root and the runtime tools)")
        return 0
    from kubernetes import client
    d = tempfile.mkdtemp(prefix="skiff-bench-pods-")
    c = AgentCluster(d)
    rc = 0
    try:
        c.start()
        c.import_images()
        c.start_agent()
        v1 = client.CoreV1Api(c.api_client())
        if args.runtime:
            global RUNTIME_CLASS
            RUNTIME_CLASS = args.runtime
            c.apply(f"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {{name: {args.runtime}}}\n"
                    f"handler: {args.runtime}\n")
        print(f"pod_start: load average {os.getloadavg()[0]:.1f}, runtime log {c.agent_log}", flush=True)
        if args.mode in ("sequential", "both"):
            rc |= run_sequential(c, v1, args.n)
            delete_all(c, v1)
        if args.mode in ("burst", "both"):
            rc |= run_burst(c, v1, args.n)
            delete_all(c, v1)
        print(f"pod_start: load average {os.getloadavg()[0]:.1f}", flush=True)
        return rc
    finally:
        c.cleanup()
        if args.keep:
            print(f"pod_start: kept {d}")
        else:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
