"""Job controller throughput: J Jobs of C completions (parallelism P) on a
control plane without a node agent; a simulated node (one raw watch on pods)
marks every new pod Succeeded at once. Prints the time from the first create
until a watch on Jobs has seen every Job Complete, finished pods per second,
and the CPU seconds the server process used meanwhile (API server,
scheduler, controllers: the controllers' cost without the agent's). Runs
without root.

    /usr/bin/python3 bench/jobs_simulated.py [J] [C] [P] [NonIndexed|Indexed]

TTL=S sets ttlSecondsAfterFinished: S on every Job (finished Jobs and their
pods are then deleted during the run, as in bench/jobs_vs_slurm.sh TTL=0).
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402


def job(name, completions, parallelism, mode, ttl):
    spec = {"completions": completions, "parallelism": parallelism, "completionMode": mode,
            "template": {"spec": {"restartPolicy": "Never",
                                  "containers": [{"name": "c", "image": "busybox:1"}]}}}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def cpu_s(pid):
    """CPU seconds of process pid and its reaped children."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def events(list_fn, stop, on_event):
    """Calls on_event(type, object dict) for a raw watch from now on, without
    the client's model deserialization (cheaper on a loaded machine)."""
    try:
        watch(list_fn, stop, on_event)
    except Exception:  # noqa: BLE001
        if not stop.is_set():
            raise


def watch(list_fn, stop, on_event):
    rv = list_fn("default", limit=1).metadata.resource_version
    while not stop.is_set():
        r = list_fn("default", watch=True, resource_version=rv, timeout_seconds=60,
                    allow_watch_bookmarks=True, _preload_content=False)
        buf = b""
        for chunk in r.stream(65536):
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                ev = json.loads(line)
                obj = ev.get("object") or {}
                if ev.get("type") == "ERROR":
                    raise RuntimeError(f"watch error: {obj}")
                rv = obj.get("metadata", {}).get("resourceVersion", rv)
                if ev.get("type") != "BOOKMARK" and on_event(ev["type"], obj):
                    return
            if stop.is_set():
                return


def main():
    j = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    comp = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    par = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    mode = sys.argv[4] if len(sys.argv) > 4 else "Indexed"
    ttl = int(os.environ["TTL"]) if os.environ.get("TTL", "") not in ("", "-") else None
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    d = tempfile.mkdtemp(prefix="skiff-bench-jobs-")
    c = Cluster(d, ["--no-agent"]).start()
    stop, all_done = threading.Event(), threading.Event()
    seen, done, counted = set(), set(), [0]
    try:
        api = c.api_client()
        v1, batch = client.CoreV1Api(api), client.BatchV1Api(api)
        node_api = client.CoreV1Api(c.api_client())

        def on_pod(typ, p):
            name = p["metadata"]["name"]
            if typ != "ADDED" or name in seen or (p.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                return False
            seen.add(name)
            try:
                node_api.patch_namespaced_pod_status(name, "default",
                                                     [{"op": "add", "path": "/status/phase", "value": "Succeeded"}])
            except ApiException as e:
                if e.status != 404:  # the controller may delete a pod it no longer wants
                    raise
            return False

        def on_job(typ, o):
            conds = (o.get("status") or {}).get("conditions") or []
            name = o["metadata"]["name"]
            if name not in done and any(x["type"] == "Complete" and x["status"] == "True" for x in conds):
                done.add(name)
                counted[0] += (o.get("status") or {}).get("succeeded") or 0
                if len(done) == j:
                    all_done.set()
                    return True
            return False

        threads = [threading.Thread(target=events, args=(v1.list_namespaced_pod, stop, on_pod), daemon=True),
                   threading.Thread(target=events, args=(batch.list_namespaced_job, stop, on_job), daemon=True)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        c0, t0 = cpu_s(c.proc.pid), time.time()
        for i in range(j):
            batch.create_namespaced_job("default", job(f"bench-{i}", comp, par, mode, ttl))
        t_created = time.time()
        if not all_done.wait(600):
            print(f"jobs: timed out with {len(done)}/{j} complete")
            return 1
        dt, cpu = time.time() - t0, cpu_s(c.proc.pid) - c0
        print(f"jobs: {j} {mode} jobs x {comp} completions (parallelism {par}, ttl {ttl}): {dt:.2f} s "
              f"(create {t_created - t0:.2f} s), {counted[0]} pods counted ({counted[0] / dt:.1f} pods/s); "
              f"node saw {len(seen)} pods; server {cpu:.1f} cpu s")
        assert counted[0] == j * comp, "pods lost or double-counted"
        return 0
    finally:
        stop.set()
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
