"""`kubectl exec` round trip against the runtime's own exec, and the server's
memory with 100 concurrent exec sessions (one-node cluster of build/skiff
with the embedded agent, real containers; the e2e module's setup).

    /usr/bin/python3 bench/exec_bench.py [N]

N (default 10) runs of each: `kubectl exec sh -c main -- true`, the
runtime's `exec <id> true` on the node (the same binary and root the agent
uses), and `kubectl get pod sh -o name` (kubectl's own start and one GET).
Then 100 sessions (`sleep 60` through the Python client's stream, all open
at once): the server's VmRSS before, with all 100 running, and after they
were closed (each killed with its client). Needs root and the runtime
tools, like the end-to-end tests.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import KUBECTL  # noqa: E402
from test_agent_cluster import have_tools, wait_for  # noqa: E402
from test_agent_embedded import embedded_cluster  # noqa: E402


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def timed(cmd, n):
    t = time.monotonic()
    for _ in range(n):
        subprocess.run(cmd, check=True, capture_output=True)
    return (time.monotonic() - t) / n * 1000


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-exec-bench-", "xb") as c:
        node, h, d = c.node, c.bridge_hash, c.data_dir
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sh"},
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox:1", "command": ["sleep", "3600"]}]}}))
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running", 90, what="pod sh")
        run = f"/run/skiff-{h:08x}"
        cid = None
        for f in glob.glob(f"{run}/containers/*/container.json"):
            if json.load(open(f)).get("name") == "main":
                cid = os.path.basename(os.path.dirname(f))
        rt = f"{run}/bin/crun-hybrid" if os.path.exists(f"{run}/bin/crun-hybrid") else shutil.which("crun")
        kc = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache]
        timed(kc + ["exec", "sh", "-c", "main", "--", "true"], 2)  # warm caches
        ke = timed(kc + ["exec", "sh", "-c", "main", "--", "true"], n)
        ce = timed([rt, f"--root={run}/oci/crun", "exec", cid, "true"], n)
        kg = timed(kc + ["get", "pod", "sh", "-o", "name"], n)
        print(f"kubectl exec -- true: {ke:.0f} ms per run")
        print(f"runtime exec true (on the node): {ce:.0f} ms per run")
        print(f"kubectl get pod -o name: {kg:.0f} ms per run")

        from kubernetes import client, config
        from kubernetes.stream import stream
        config.load_kube_config(c.kubeconfig)
        api = client.CoreV1Api()
        # the Python client's stream(): one exec without kubectl's own start
        ts = []
        for _ in range(n + 2):
            t = time.monotonic()
            stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main", command=["true"],
                   stderr=True, stdin=False, stdout=True, tty=False, _request_timeout=30)
            ts.append(time.monotonic() - t)
        ts = sorted(ts[2:])
        print(f"Python client stream() exec true: {ts[len(ts) // 2] * 1000:.0f} ms median")
        srv = int(subprocess.run(["pgrep", "-f", f"skiff[^ ]* server --data-dir {d}"], capture_output=True,
                                 text=True).stdout.split()[0])
        before = rss_kb(srv)
        sessions = [stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main",
                           command=["sleep", "60"], stderr=True, stdin=False, stdout=True, tty=False,
                           _preload_content=False) for _ in range(100)]

        def sleeping():
            n = 0
            for p in os.listdir("/proc"):
                try:
                    n += p.isdigit() and open(f"/proc/{p}/cmdline", "rb").read() == b"sleep\x0060\x00"
                except OSError:
                    pass
            return n
        wait_for(lambda: sleeping() == 100, 120, interval=0.5, what="100 sleeps")
        during = rss_kb(srv)
        for s in sessions:
            s.close()
        wait_for(lambda: sleeping() == 0, 60, interval=0.5, what="sleeps killed with their clients")
        time.sleep(1)
        after = rss_kb(srv)
        print(f"server VmRSS: {before / 1024:.1f} MB before, {during / 1024:.1f} MB with 100 exec sessions "
              f"(+{(during - before) / 1024:.1f} MB), {after / 1024:.1f} MB after they were closed")


if __name__ == "__main__":
    main()
