"""The server's memory with N concurrent exec sessions (issue 18: 100 sessions,
growth <= 50 MB): one-node cluster of build/skiff with the embedded agent (so
the process holds both hops: the API server's relay and the agent's
session), real containers, the exec bench's setup.

    /usr/bin/python3 bench/exec_sessions.py [N] [--keep]

N (default 100) sessions of an idle `sh` with stdin open (`sh -s
skiff-idle`, through the Python client's stream with stdin, stdout and
stderr), all open at once. Printed: the server's VmRSS and smaps_rollup
(anonymous, file-backed) before, with all N open, and after the clients
closed them; its thread count each time; and where the anonymous growth
is, by mapping size (thread stacks are the mappings that follow a 4 KiB
guard; the rest is the allocator's and the libraries'). Needs root and
the runtime tools, like the end-to-end tests; run under flock
/tmp/skiff-containers.lock.
"""
import collections
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from test_agent_cluster import have_tools, wait_for  # noqa: E402
from test_agent_embedded import embedded_cluster  # noqa: E402

MARK = b"sh\x00-s\x00skiff-idle\x00"


def rollup(pid):
    r = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        f = line.split()
        if len(f) >= 3 and f[2] == "kB":
            r[f[0].rstrip(":")] = int(f[1])
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            r["VmRSS"] = int(line.split()[1])
        if line.startswith("Threads:"):
            r["Threads"] = int(line.split()[1])
    return r


def anon_by_kind(pid):
    """kB of anonymous private memory by kind: 'stack' (a rw mapping right
    after a 4 KiB ---p guard), 'heap' (brk), 'anon' (the rest: mimalloc's
    segments, libraries' mmaps), each by mapping size."""
    out = collections.Counter()
    prev_guard_end = None
    cur = None
    for line in open(f"/proc/{pid}/smaps"):
        f = line.split()
        if "-" in f[0] and len(f) >= 5 and ":" not in f[0]:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            perms, path = f[1], (f[5] if len(f) > 5 else "")
            kind = None
            if path == "[heap]":
                kind = "heap"
            elif path == "" and perms.startswith("rw"):
                kind = "stack" if prev_guard_end == lo else "anon"
            prev_guard_end = hi if (path == "" and perms == "---p" and hi - lo == 4096) else None
            cur = (kind, (hi - lo) >> 10) if kind else None
        elif cur and f[0] == "Rss:":
            out[cur] += int(f[1])
    return out


def idle_shells():
    n = 0
    for p in os.listdir("/proc"):
        try:
            n += p.isdigit() and open(f"/proc/{p}/cmdline", "rb").read() == MARK
        except OSError:
            pass
    return n


def show(what, r):
    print(f"{what:28s} VmRSS {r['VmRSS'] / 1024:7.1f} MB  anon {r.get('Anonymous', 0) / 1024:7.1f} MB  "
          f"file {(r.get('Rss', 0) - r.get('Anonymous', 0)) / 1024:6.1f} MB  threads {r['Threads']}", flush=True)


def diff(a, b):
    rows = []
    for k in set(a) | set(b):
        d = b.get(k, 0) - a.get(k, 0)
        if abs(d) >= 256:
            rows.append((d, k))
    for d, (kind, size) in sorted(rows, reverse=True)[:12]:
        print(f"    {kind:5s} mappings of {size:8d} kB: {d / 1024:+7.1f} MB")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 100
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-sessions-bench-", "xs") as c:
        node, d = c.node, c.data_dir
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sh"},
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox:1", "command": ["sleep", "3600"]}]}}))
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running", 90, what="pod sh")

        from kubernetes import client, config
        from kubernetes.stream import stream
        config.load_kube_config(c.kubeconfig)
        api = client.CoreV1Api()

        def session():
            return stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main",
                          command=["sh", "-s", "skiff-idle"], stderr=True, stdin=True, stdout=True, tty=False,
                          _preload_content=False)
        # one session first, so what every process pays once (the first TLS
        # connection to the agent, the first exec's code) is in "before"
        s = session()
        wait_for(lambda: idle_shells() == 1, 60, interval=0.2, what="the first shell")
        s.close()
        wait_for(lambda: idle_shells() == 0, 60, interval=0.2, what="the first shell gone")
        srv = int(subprocess.run(["pgrep", "-f", f"skiff[^ ]* server --data-dir {d}"], capture_output=True,
                                 text=True).stdout.split()[0])
        time.sleep(1)
        before, sm0 = rollup(srv), anon_by_kind(srv)
        show("before", before)
        sessions = [session() for _ in range(n)]
        wait_for(lambda: idle_shells() == n, 180, interval=0.5, what=f"{n} shells")
        for s in sessions:
            s.update(timeout=0)
        assert all(s.is_open() for s in sessions)
        time.sleep(1)
        during, sm1 = rollup(srv), anon_by_kind(srv)
        show(f"with {n} sessions", during)
        print(f"  growth: VmRSS {(during['VmRSS'] - before['VmRSS']) / 1024:+.1f} MB "
              f"({(during['VmRSS'] - before['VmRSS']) / n:.0f} kB per session), "
              f"threads {during['Threads'] - before['Threads']:+d}; by mapping:")
        diff(sm0, sm1)
        for s in sessions:
            s.close()
        wait_for(lambda: idle_shells() == 0, 60, interval=0.5, what="shells ended with their clients")
        time.sleep(2)
        after = rollup(srv)
        show("after they closed", after)
        print(f"RESULT {n} sessions: server VmRSS {before['VmRSS'] / 1024:.1f} -> {during['VmRSS'] / 1024:.1f} MB "
              f"(+{(during['VmRSS'] - before['VmRSS']) / 1024:.1f} MB), {after['VmRSS'] / 1024:.1f} MB after")


if __name__ == "__main__":
    main()
