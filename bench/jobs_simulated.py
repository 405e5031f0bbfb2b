"""Job controller throughput: J Jobs of C completions (parallelism P) on a
control plane without a node agent; a simulated node (Python kubernetes
client, one watch) marks every new pod Succeeded at once. Prints the time
from the first create until every Job is Complete, and finished pods per
second. Runs without root.

    /usr/bin/python3 bench/jobs_simulated.py [J] [C] [P] [NonIndexed|Indexed]
"""
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402


def job(name, completions, parallelism, mode):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"completions": completions, "parallelism": parallelism, "completionMode": mode,
                     "template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox:1"}]}}}}


def node(v1, stop, done):
    from kubernetes import watch
    w = watch.Watch()
    for ev in w.stream(v1.list_namespaced_pod, "default", timeout_seconds=600):
        if stop.is_set():
            break
        p = ev["object"]
        if ev["type"] != "ADDED" or (p.status and p.status.phase in ("Succeeded", "Failed")):
            continue
        v1.patch_namespaced_pod_status(p.metadata.name, "default",
                                       [{"op": "add", "path": "/status/phase", "value": "Succeeded"}])
        done[0] += 1


def main():
    j = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    comp = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    par = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    mode = sys.argv[4] if len(sys.argv) > 4 else "Indexed"
    from kubernetes import client
    d = tempfile.mkdtemp(prefix="skiff-bench-jobs-")
    c = Cluster(d, ["--no-agent"]).start()
    stop, done = threading.Event(), [0]
    try:
        api = c.api_client()
        v1, batch = client.CoreV1Api(api), client.BatchV1Api(api)
        t = threading.Thread(target=node, args=(v1, stop, done), daemon=True)
        t.start()
        time.sleep(0.5)
        t0 = time.time()
        for i in range(j):
            batch.create_namespaced_job("default", job(f"bench-{i}", comp, par, mode))
        while True:
            jobs = batch.list_namespaced_job("default").items
            complete = sum(1 for x in jobs if any(cd.type == "Complete" and cd.status == "True"
                                                 for cd in ((x.status and x.status.conditions) or [])))
            if complete == j:
                break
            if time.time() - t0 > 600:
                print(f"jobs: timed out with {complete}/{j} complete")
                return 1
            time.sleep(0.1)
        dt = time.time() - t0
        succeeded = sum((x.status and x.status.succeeded) or 0 for x in jobs)
        print(f"jobs: {j} {mode} jobs x {comp} completions (parallelism {par}): {dt:.2f} s, "
              f"{succeeded} pods counted ({succeeded / dt:.1f} pods/s); node saw {done[0]} pods")
        assert succeeded == j * comp, "pods lost or double-counted"
        return 0
    finally:
        stop.set()
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
