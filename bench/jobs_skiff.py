"""skiff half of bench/jobs_vs_slurm.sh: N batch/v1 Jobs, each one pod
running `sleep S` (restartPolicy Never, imagePullPolicy Never), created with
one `kubectl create --validate=false -f` of a multi-document YAML file (one
request after the other, as the Slurm side runs one sbatch after the other),
on a running cluster. --validate=false: with client-side validation kubectl
re-reads the server's whole OpenAPI v3 document for every object
(kubernetes/kubernetes#127095, ~10 ms of kubectl CPU per Job here); the server
validates every Job either way, and sbatch validates no schema either.
KUBECTL_VALIDATE=strict restores kubectl's default. One watch on Jobs
(Python kubernetes client, from the resourceVersion listed before the
create) records when each Job gets condition Complete. Prints one JSON line:

  {"jobs": N, "create_s": .., "total_s": .., "jobs_per_s": N / total_s, ...}

With SKIFF_PID set, also "cpu_s": CPU seconds the server process (API server,
scheduler, controllers, embedded agent, and the children it reaped) used
during the measurement.

total_s runs from just before `kubectl create` starts to the watch event
that shows the last Job Complete (creation time counts). Afterwards every
Job is deleted (background propagation) and the helper waits until no pod is
left, outside the measurement.

    jobs_skiff.py KUBECONFIG IMAGE N CPU_REQUEST [SLEEP] [TTL|-]

TTL, when given as a number, sets ttlSecondsAfterFinished on every Job (the
Job controller then deletes Jobs during the run, which is part of the
measured work); '-' (default) leaves it unset and deletes after the run.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

KUBECTL = os.environ.get("KUBECTL", "kubectl")
VALIDATE = os.environ.get("KUBECTL_VALIDATE", "false")


def job(i, image, cpu, sleep_s, ttl):
    # backoffLimit stays the default (6): a pod the node rejects (OutOfcpu when a
    # new pod is bound before the node has released a finished one) is retried by
    # the Job controller, as for any user; such pods are counted in pods_failed.
    spec = {"template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                                  "containers": [{"name": "c", "image": image, "imagePullPolicy": "Never",
                                                  "command": ["sleep", str(sleep_s)],
                                                  "resources": {"requests": {"cpu": cpu}}}]}}}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"sleep-{i:05d}", "labels": {"bench": "jobs-vs-slurm"}}, "spec": spec}


def complete(obj):
    for c in ((obj.get("status") or {}).get("conditions") or []):
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return c["type"]
    return None


def cpu_s(pid):
    """CPU seconds of process pid and its reaped children (0 when unknown)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def main():
    kubeconfig, image, n, cpu = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    sleep_s = sys.argv[5] if len(sys.argv) > 5 else "1"
    ttl = int(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] != "-" else None
    cache = tempfile.mkdtemp(prefix="skiff-kcache-")
    try:
        return run(kubeconfig, image, n, cpu, sleep_s, ttl, cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run(kubeconfig, image, n, cpu, sleep_s, ttl, cache):
    from kubernetes import client, config
    cfg = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    api = client.ApiClient(cfg)
    batch = client.BatchV1Api(api)
    kc = [KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", cache]

    # A multi-document YAML stream (each document a JSON object). A v1 List would be
    # the same number of requests, but kubectl validates a List against /openapi/v2,
    # which skiff does not serve (only /openapi/v3).
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("# bench/jobs_skiff.py\n---\n" + "\n---\n".join(json.dumps(job(i, image, cpu, sleep_s, ttl)) for i in range(n)) + "\n")
        manifest = f.name

    done = {}            # name -> (type, monotonic time)
    pods_failed = [0]    # failed pods of finished Jobs (status.failed)
    all_done = threading.Event()
    rv = batch.list_namespaced_job("default", label_selector="bench=jobs-vs-slurm").metadata.resource_version
    watch_err = []

    # The client's stream() deserializes into models; raw dicts are cheaper on 2 cores, so
    # read the watch body ourselves.
    def raw_watcher():
        nonlocal rv
        while not all_done.is_set():
            try:
                r = batch.list_namespaced_job_with_http_info(
                    "default", label_selector="bench=jobs-vs-slurm", watch=True, resource_version=rv,
                    timeout_seconds=60, _preload_content=False)[0]
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
                        name = obj.get("metadata", {}).get("name")
                        t = complete(obj)
                        if t and name not in done:
                            done[name] = (t, time.monotonic())
                            pods_failed[0] += (obj.get("status") or {}).get("failed") or 0
                            if len(done) == n:
                                all_done.set()
                                return
            except Exception as e:  # noqa: BLE001
                watch_err.append(repr(e))
                return

    th = threading.Thread(target=raw_watcher, daemon=True)
    th.start()
    time.sleep(0.3)
    server_pid = int(os.environ.get("SKIFF_PID", "0"))
    c0 = cpu_s(server_pid) if server_pid else 0.0
    t0 = time.monotonic()
    r = subprocess.run(kc + ["create", f"--validate={VALIDATE}", "-f", manifest], capture_output=True, text=True)
    t_created = time.monotonic()
    os.unlink(manifest)
    if r.returncode != 0:
        print(json.dumps({"error": "kubectl create failed", "stderr": r.stderr[-2000:]}))
        return 1
    timeout = float(os.environ.get("BENCH_TIMEOUT", "1800"))
    all_done.wait(timeout)
    if not all_done.is_set():
        print(json.dumps({"error": f"only {len(done)}/{n} Jobs finished within {timeout:.0f} s",
                          "watch_errors": watch_err, "create_s": round(t_created - t0, 3)}))
        return 1
    t_end = max(t for _, t in done.values())
    c1 = cpu_s(server_pid) if server_pid else 0.0
    failed = sum(1 for k, _ in done.values() if k == "Failed")
    times = sorted(t - t0 for _, t in done.values())
    res = {"jobs": n, "failed": failed, "pods_failed": pods_failed[0], "create_s": round(t_created - t0, 3),
           "first_complete_s": round(times[0], 3), "total_s": round(t_end - t0, 3),
           "jobs_per_s": round(n / (t_end - t0), 3)}
    if server_pid:
        res["cpu_s"] = round(c1 - c0, 1)

    # Say why, before the pods go: the first few failed Jobs' pods, warning events.
    if failed or pods_failed[0]:
        names = sorted(k for k, (t, _) in done.items() if t == "Failed")[:3]
        for name in names:
            r = subprocess.run(kc + ["get", "pods", "-l", f"job-name={name}", "-o", "json"],
                               capture_output=True, text=True)
            try:
                for p in json.loads(r.stdout)["items"]:
                    st = p.get("status", {})
                    print(f"jobs_skiff: failed Job {name}: pod {p['metadata']['name']} phase {st.get('phase')} "
                          f"reason {st.get('reason')} message {st.get('message')} "
                          f"containers {json.dumps(st.get('containerStatuses'))}", file=sys.stderr)
            except (ValueError, KeyError):
                print(f"jobs_skiff: failed Job {name}: {r.stdout[-500:]} {r.stderr[-500:]}", file=sys.stderr)
        r = subprocess.run(kc + ["get", "events", "--field-selector", "type=Warning"], capture_output=True, text=True)
        print("jobs_skiff: warning events:\n" + "\n".join(r.stdout.splitlines()[:15]), file=sys.stderr)

    # Clean up outside the measurement: delete the Jobs, wait for their pods to go.
    c0 = time.monotonic()
    subprocess.run(kc + ["delete", "jobs", "-l", "bench=jobs-vs-slurm", "--wait=false"],
                   capture_output=True, text=True)
    v1 = client.CoreV1Api(api)
    while time.monotonic() - c0 < 600:
        left = len(v1.list_namespaced_pod("default").items)
        left += len(batch.list_namespaced_job("default", label_selector="bench=jobs-vs-slurm").items)
        if left == 0:
            break
        time.sleep(1)
    res["cleanup_s"] = round(time.monotonic() - c0, 1)
    print(json.dumps(res))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
