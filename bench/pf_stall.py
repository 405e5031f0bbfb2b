"""Pauses in large port-forward transfers, binaries side by side in one run
(issue 18: libmicrohttpd 0.9.75's forwarding of an upgraded TLS connection
could leave a ready socketpair unserviced for ~10 s).

    /usr/bin/python3 bench/pf_stall.py [TRANSFERS [MB [ROUNDS]]] [--bin PATH]...

Each binary (default build/skiff; several --bin alternate, one cluster each
per round) serves a one-node cluster with its embedded agent and a busybox
httpd pod; then TRANSFERS times (default 30) a new `kubectl port-forward`
and a GET of MB (default 64) MiB read by a Python socket, which logs every
pause over 0.5 s between two reads. Per binary: transfers, pauses, the
longest pause, the median and the best transfer's MB/s, and the direct copy
(curl in the pod's network namespace) for the ratio. Needs root and the
runtime tools, like the end-to-end tests; run under
flock /tmp/skiff-containers.lock. PF_SLOW_MS=N: a slow client, the
reader sleeps N ms after each read of up to 64 KiB.
"""
import glob
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

import conftest  # noqa: E402
import test_agent_embedded  # noqa: E402
from conftest import KUBECTL  # noqa: E402
from test_agent_cluster import have_tools, wait_for  # noqa: E402

PAUSE = 0.5
SLOW = float(os.environ.get("PF_SLOW_MS", "0")) / 1000
HZ = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """User + system CPU seconds of process pid (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        st = f.read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) / HZ


def transfer(kc, mb):
    """One GET through a new kubectl port-forward: (seconds, [pauses], kubectl's CPU seconds)."""
    p = subprocess.Popen(kc + ["port-forward", "pod/web", ":8080"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        port = int(p.stdout.readline().split(":")[1].split()[0])
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /big HTTP/1.0\r\n\r\n")
        t0 = last = time.monotonic()
        got, pauses = 0, []
        while True:
            b = s.recv(64 << 10 if SLOW else 1 << 20)
            if SLOW:
                time.sleep(SLOW)
            now = time.monotonic()
            if now - last > PAUSE:
                pauses.append((now - last, got / (1 << 20)))
            last = now
            if not b:
                break
            got += len(b)
        s.close()
        if got < mb << 20:
            sys.exit(f"short transfer: {got} bytes")
        return now - t0, pauses, cpu_s(p.pid)
    finally:
        p.terminate()
        p.wait(timeout=10)


def one_binary(path, n, mb, big):
    conftest.SKIFF = test_agent_embedded.SKIFF = path
    with test_agent_embedded.embedded_cluster("skiff-pf-bench-", "pf") as c:
        h = c.bridge_hash
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "web", "image": "busybox:1",
                                     "command": ["sh", "-c", "mkdir -p /www && httpd -f -p 8080 -h /www"]}]}}))
        wait_for(lambda: all(s.get("ready") for s in
                             c.kjson("get", "pod", "web")["status"].get("containerStatuses", [{}])),
                 90, what="pod web")
        run = f"/run/skiff-{h:08x}"
        cid = None
        for f in glob.glob(f"{run}/containers/*/container.json"):
            if json.load(open(f)).get("name") == "web":
                cid = os.path.basename(os.path.dirname(f))
        rt = f"{run}/bin/crun-hybrid" if os.path.exists(f"{run}/bin/crun-hybrid") else shutil.which("crun")
        st = subprocess.run([rt, f"--root={run}/oci/crun", "state", cid], check=True, capture_output=True,
                            text=True).stdout
        proc = f"/proc/{json.loads(st)['pid']}"
        shutil.copyfile(big, proc + "/root/www/big")
        kc = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache]
        t, ru = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["nsenter", f"--net={proc}/ns/net", "curl", "-sfo", "/dev/null",
                        "http://127.0.0.1:8080/big"], check=True)
        direct = mb / (time.monotonic() - t)
        ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = {"direct curl": ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime, "kubectl": 0.0}
        times, pauses = [], []
        server0 = cpu_s(c.proc.pid)
        for i in range(n):
            secs, ps, kcpu = transfer(kc, mb)
            cpu["kubectl"] += kcpu / n
            times.append(secs)
            pauses += ps
            for d, at in ps:
                print(f"  {os.path.basename(path)} transfer {i}: paused {d:.2f} s at {at:.1f} MB", flush=True)
        cpu["skiff"] = (cpu_s(c.proc.pid) - server0) / n
        if os.environ.get("PF_DBG"):
            print("".join(l for l in open(c.log_path, errors="replace") if "DBG" in l), flush=True)
        return times, pauses, direct, cpu


def main():
    args, bins = [], []
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--bin":
            bins.append(os.path.abspath(next(it)))
        else:
            args.append(int(a))
    n, mb, rounds = (args + [30, 64, 1][len(args):])[:3]
    bins = bins or [conftest.SKIFF]
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    big = f"/tmp/skiff-pf-bench-{os.getpid()}.bin"
    with open(big, "wb") as f:
        for _ in range(mb):
            f.write(os.urandom(1 << 20))
    res = {b: ([], [], [], []) for b in bins}
    try:
        for r in range(rounds):
            for b in bins:
                print(f"round {r + 1}: {b}, load {os.getloadavg()[0]:.1f}", flush=True)
                times, pauses, direct, cpu = one_binary(b, n, mb, big)
                res[b][0].extend(times)
                res[b][1].extend(pauses)
                res[b][2].append(direct)
                res[b][3].append(cpu)
                print(f"  {len(times)} transfers, {len(pauses)} pauses, median {mb / statistics.median(times):.1f}"
                      f" MB/s, direct {direct:.1f} MB/s", flush=True)
    finally:
        os.unlink(big)
    print(f"{mb} MiB per transfer; pause = over {PAUSE} s between two reads")
    for b, (times, pauses, directs, cpus) in res.items():
        med, dmed = mb / statistics.median(times), statistics.median(directs)
        print(f"{b}: {len(times)} transfers, {len(pauses)} pauses (longest {max([0] + [d for d, _ in pauses]):.1f}"
              f" s), median {med:.1f} MB/s (best {mb / min(times):.1f}), direct {dmed:.1f} MB/s,"
              f" {100 * med / dmed:.0f} % of it")
        print("  CPU ms per MiB: " + ", ".join(f"{k} {1000 * statistics.median(c[k] for c in cpus) / mb:.2f}"
                                             for k in ("kubectl", "skiff", "direct curl")))


if __name__ == "__main__":
    main()
