"""EndpointSlice controller reaction: on a control plane without a node
agent (the bench plays the node by patching pod status), how long from a
pod's status write until a watch on EndpointSlices sees the change, for
single pods turning Ready and being deleted, and for a burst of N pods
turning Ready at once (then how many slice writes that burst cost: the
work queue coalesces per Service). Runs without root.

    /usr/bin/python3 bench/endpoints_latency.py [ROUNDS] [N]
"""
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ready_status(ip, ready):
    st = "True" if ready else "False"
    return {"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                       "conditions": [{"type": "Ready", "status": st, "lastTransitionTime": now()}]}}


class SliceWatch:
    """Follows the slices of one Service: ip -> ready, and the writes seen."""

    def __init__(self, api, ns):
        from kubernetes import client, watch
        self.disc = client.DiscoveryV1Api(api)
        self.ns = ns
        self.cv = threading.Condition()
        self.state = {}
        self.slices = {}
        self.writes = 0
        self.stop = threading.Event()
        self.w = watch.Watch()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        for ev in self.w.stream(self.disc.list_namespaced_endpoint_slice, self.ns, _preload_content=False,
                                timeout_seconds=600):
            obj = ev["raw_object"]
            with self.cv:
                name = obj["metadata"]["name"]
                if ev["type"] == "DELETED":
                    self.slices.pop(name, None)
                else:
                    self.slices[name] = obj.get("endpoints") or []
                self.writes += 1
                self.state = {e["addresses"][0]: e.get("conditions", {}).get("ready", True)
                              for eps in self.slices.values() for e in eps}
                self.cv.notify_all()
            if self.stop.is_set():
                break

    def wait(self, pred, timeout=30):
        deadline = time.time() + timeout
        with self.cv:
            while not pred(self.state):
                left = deadline - time.time()
                if left <= 0:
                    raise RuntimeError("timed out; state %r" % self.state)
                self.cv.wait(left)
            return time.time()


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    burst = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    from kubernetes import client
    d = tempfile.mkdtemp(prefix="skiff-bench-eps-")
    c = Cluster(d, ["--no-agent"]).start()
    try:
        api = c.api_client()
        core = client.CoreV1Api(api)
        ns = "bench-eps"
        core.create_namespace({"metadata": {"name": ns}})
        core.create_node({"metadata": {"name": "bench-node"}})
        core.create_namespaced_service(ns, {"metadata": {"name": "web"}, "spec": {
            "selector": {"app": "web"}, "ports": [{"port": 80}]}})
        sw = SliceWatch(api, ns)

        def pod(name):
            core.create_namespaced_pod(ns, {"metadata": {"name": name, "labels": {"app": "web"}},
                                            "spec": {"nodeName": "bench-node",
                                                     "containers": [{"name": "c", "image": "busybox"}]}})

        ready_ms, delete_ms = [], []
        for i in range(rounds):
            name, ip = "single-%d" % i, "10.42.9.%d" % (i + 1)
            pod(name)
            t0 = time.time()
            core.patch_namespaced_pod_status(name, ns, ready_status(ip, True))
            t1 = sw.wait(lambda s: s.get(ip) is True)
            ready_ms.append((t1 - t0) * 1000)
            t0 = time.time()
            core.delete_namespaced_pod(name, ns, grace_period_seconds=0)
            t1 = sw.wait(lambda s: ip not in s)
            delete_ms.append((t1 - t0) * 1000)
        names = ["burst-%03d" % i for i in range(burst)]
        for n in names:
            pod(n)
        ips = ["10.42.%d.%d" % (10 + i // 250, i % 250 + 1) for i in range(burst)]
        for n, ip in zip(names, ips):
            core.patch_namespaced_pod_status(n, ns, ready_status(ip, False))
        sw.wait(lambda s: all(s.get(ip) is False for ip in ips), timeout=60)
        with sw.cv:
            writes0 = sw.writes
        t0 = time.time()
        for n, ip in zip(names, ips):
            core.patch_namespaced_pod_status(n, ns, ready_status(ip, True))
        t_patched = time.time()
        t1 = sw.wait(lambda s: all(s.get(ip) is True for ip in ips), timeout=60)
        with sw.cv:
            writes = sw.writes - writes0
        sw.stop.set()
        print("pod Ready -> slice ready: median %.1f ms, max %.1f ms (%d rounds)" %
              (statistics.median(ready_ms), max(ready_ms), rounds))
        print("pod deleted -> endpoint gone: median %.1f ms, max %.1f ms" %
              (statistics.median(delete_ms), max(delete_ms)))
        print("%d pods Ready: %.0f ms to patch them all, every endpoint ready %.0f ms after the first patch "
              "(%.0f ms after the last); %d slice writes for %d pod changes" %
              (burst, (t_patched - t0) * 1000, (t1 - t0) * 1000, (t1 - t_patched) * 1000, writes, burst))
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
