"""LISTs of pods by field selector on a big cluster, two binaries
interleaved: `kubectl get pods -A --field-selector status.phase=Pending`
(none pending: the answer is the filtering's cost) and
`--field-selector spec.nodeName=NODE` (the pods of one node, as an agent
and `kubectl describe node` ask), and `-l` with a label no pod has.

`skiff bench` makes the cluster (hollow nodes, every pod bound and Running)
in a data directory; then for each round, each binary in turn serves it
(`skiff server --no-agent`, node health checks pushed out so that nothing
changes the pods) and kubectl asks each query REPEAT times; the time is what
`kubectl -v=6` reports for the request ("200 OK in N milliseconds"). The
first ask after a server's start is shown apart (a cache is empty then).

    /usr/bin/python3 bench/field_select.py BASE_BIN NEW_BIN [NODES] [PODS] [ROUNDS] [REPEAT]
    SKIFF_BENCH_DATA=DIR reuses a data directory `skiff bench` made (kept).
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from conftest import KUBECTL, free_port  # noqa: E402

MS = re.compile(r"GET https://\S+ 200 OK in (\d+) milliseconds")


def serve(binary, data):
    """Starts binary's server on data; returns (process, kubeconfig path)."""
    port = free_port()
    kc = os.path.join(data, "kubeconfig")
    log = open(os.path.join(data, "bench-server.log"), "ab")
    p = subprocess.Popen([binary, "server", "--no-agent", "--data-dir", data, "--listen", f"127.0.0.1:{port}",
                          "--node-monitor-grace-period", "100000", "--pod-eviction-timeout", "100000"],
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        r = subprocess.run([KUBECTL, "--kubeconfig", kc, "--server", f"https://127.0.0.1:{port}", "get", "--raw",
                            "/readyz"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == "ok":
            return p, kc, port
        time.sleep(0.2)
    p.kill()
    sys.exit(f"{binary} did not become ready")


def stop(p):
    p.terminate()
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def ask(kc, port, args):
    r = subprocess.run([KUBECTL, "--kubeconfig", kc, "--server", f"https://127.0.0.1:{port}", "-v=6", "get",
                        "pods", "-A", "--chunk-size=0", "-o", "name"] + args, capture_output=True, text=True)
    m = MS.findall(r.stderr)
    if r.returncode or not m:
        sys.exit(f"kubectl {args}: {r.stderr[-2000:]}")
    return int(m[-1]), len(r.stdout.split())


def main():
    base, new = sys.argv[1], sys.argv[2]
    nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    pods = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    repeat = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    data = os.environ.get("SKIFF_BENCH_DATA")
    made = not data
    if made:
        data = tempfile.mkdtemp(prefix="skiff-bench-fsel-")
        r = subprocess.run([new, "bench", "--data-dir", data, "--nodes", str(nodes), "--pods", str(pods),
                            "--workers", "64", "--timeout", "600"], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"skiff bench failed: {r.stdout}\n{r.stderr}")
    p, kc, port = serve(new, data)
    node = json.loads(subprocess.run([KUBECTL, "--kubeconfig", kc, "--server", f"https://127.0.0.1:{port}", "get",
                                      "--raw", "/api/v1/pods?limit=1"], capture_output=True,
                                     text=True).stdout)["items"][0]["spec"]["nodeName"]
    stop(p)
    queries = [("status.phase=Pending", ["--field-selector", "status.phase=Pending"]),
               ("spec.nodeName=NODE", ["--field-selector", f"spec.nodeName={node}"]),
               ("-l nosuch=label", ["-l", "nosuch=label"])]
    res = {(b, q): {"first": [], "warm": []} for b in ("base", "new") for q, _ in queries}
    try:
        for rnd in range(rounds):
            for name, binary in (("base", base), ("new", new)):
                p, kc, port = serve(binary, data)
                try:
                    for q, args in queries:
                        for i in range(repeat):
                            ms, n = ask(kc, port, args)
                            res[(name, q)]["first" if i == 0 else "warm"].append(ms)
                        print(f"round {rnd + 1} {name}: {q}: {n} pods, first {res[(name, q)]['first'][-1]} ms, "
                              f"then {res[(name, q)]['warm'][-(repeat - 1):]} ms", flush=True)
                finally:
                    stop(p)
        print(f"\n{'query':<24} {'binary':<5} {'first after start (median)':>27} {'then (median, max)':>20}")
        for q, _ in queries:
            for b in ("base", "new"):
                r = res[(b, q)]
                print(f"{q:<24} {b:<5} {statistics.median(r['first']):>24.0f} ms "
                      f"{statistics.median(r['warm']):>10.0f} ms, {max(r['warm'])} ms")
    finally:
        if made:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
