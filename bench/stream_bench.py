"""Throughput of large transfers through the API server's streaming relay,
against the direct path in the same run (one-node cluster of build/skiff
with the embedded agent, real containers; the exec bench's setup).

    /usr/bin/python3 bench/stream_bench.py [MB]

MB (default 64) of random bytes each way:
  exec stdin   `kubectl exec -i sh -c main -- sh -c 'cat >/dev/null'` < file
               vs the runtime's `exec <id> sh -c 'cat >/dev/null'` < file
  exec stdout  `kubectl exec sh -c main -- cat /tmp/big` > /dev/null
               vs the runtime's `exec <id> cat /tmp/big` > /dev/null
  cp in        `kubectl cp file sh:/tmp/big -c main`
               vs a copy into the container's root (/proc/PID/root)
  cp out       `kubectl cp sh:/tmp/big file -c main` vs a copy out of it
  port-forward curl of /big from busybox httpd through `kubectl port-forward`
               vs curl in the pod's network namespace (nsenter, 127.0.0.1)
MB/s per path and the ratio. Needs root and the runtime tools, like the
end-to-end tests; run under flock /tmp/skiff-containers.lock.
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


def timed(cmd, stdin=None, stdout=subprocess.DEVNULL):
    t = time.monotonic()
    r = subprocess.run(cmd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr}")
    return time.monotonic() - t


def main():
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-stream-bench-", "sb") as c:
        node, h, d = c.node, c.bridge_hash, c.data_dir
        big = os.path.join(d, "big.bin")
        with open(big, "wb") as f:
            for _ in range(mb):
                f.write(os.urandom(1 << 20))
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sh"},
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": 1,
                     "containers": [
                         {"name": "main", "image": "busybox:1", "command": ["sleep", "3600"]},
                         {"name": "web", "image": "busybox:1",
                          "command": ["sh", "-c", "mkdir -p /www && httpd -f -p 8080 -h /www"]}]}}))
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running" and
                 all(s.get("ready") for s in c.kjson("get", "pod", "sh")["status"].get("containerStatuses", [])),
                 90, what="pod sh")
        run = f"/run/skiff-{h:08x}"
        cids = {}
        for f in glob.glob(f"{run}/containers/*/container.json"):
            cids[json.load(open(f)).get("name")] = os.path.basename(os.path.dirname(f))
        rt = f"{run}/bin/crun-hybrid" if os.path.exists(f"{run}/bin/crun-hybrid") else shutil.which("crun")
        rtx = [rt, f"--root={run}/oci/crun", "exec"]

        def root_of(name):
            st = subprocess.run([rt, f"--root={run}/oci/crun", "state", cids[name]], check=True,
                                capture_output=True, text=True).stdout
            return f"/proc/{json.loads(st)['pid']}/root"
        shutil.copyfile(big, root_of("web") + "/www/big")
        kc = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache]
        rows = []

        def row(what, via, direct):
            rows.append((what, mb / via, mb / direct))
            print(f"{what}: {via:.2f} s, direct {direct:.2f} s", flush=True)

        with open(big, "rb") as fin:
            t1 = timed(kc + ["exec", "-i", "sh", "-c", "main", "--", "sh", "-c", "cat >/dev/null"], stdin=fin)
        with open(big, "rb") as fin:
            t2 = timed(rtx + [cids["main"], "sh", "-c", "cat >/dev/null"], stdin=fin)
        row("exec stdin", t1, t2)
        t1 = timed(kc + ["cp", big, "sh:/tmp/big", "-c", "main"])
        t = time.monotonic()
        shutil.copyfile(big, root_of("main") + "/tmp/direct")
        t2 = time.monotonic() - t
        row("cp in", t1, t2)
        t1 = timed(kc + ["exec", "sh", "-c", "main", "--", "cat", "/tmp/big"])
        t2 = timed(rtx + [cids["main"], "cat", "/tmp/big"])
        row("exec stdout", t1, t2)
        out = os.path.join(d, "out.bin")
        t1 = timed(kc + ["cp", "sh:/tmp/big", out, "-c", "main"])
        assert os.path.getsize(out) == mb << 20, os.path.getsize(out)
        os.unlink(out)
        t = time.monotonic()
        shutil.copyfile(root_of("main") + "/tmp/big", out)
        t2 = time.monotonic() - t
        row("cp out", t1, t2)
        p = subprocess.Popen(kc + ["port-forward", "pod/sh", ":8080"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            port = int(p.stdout.readline().split(":")[1].split()[0])
            t1 = timed(["curl", "-sfo", "/dev/null", f"http://127.0.0.1:{port}/big"])
        finally:
            p.terminate()
            p.wait(timeout=10)
        # the pod's own network namespace (its IP may be routed elsewhere when
        # another cluster on this machine uses the same pod CIDR)
        t2 = timed(["nsenter", f"--net={root_of('web')[:-5]}/ns/net", "curl", "-sfo", "/dev/null",
                    "http://127.0.0.1:8080/big"])
        row("port-forward", t1, t2)
        print(f"{mb} MB each; MB/s through the API server vs direct, and direct/relayed")
        for what, a, b in rows:
            print(f"{what:14s} {a:8.1f} MB/s  direct {b:8.1f} MB/s  ratio {b / a:5.2f}x")


if __name__ == "__main__":
    main()
