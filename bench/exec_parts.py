"""What of `kubectl exec -- true` is kubectl's own (issue 18): one-node cluster of
a binary with its embedded agent and a busybox pod, then ROUNDS (default 10)
times `kubectl version --client` (kubectl's start, no request), `kubectl get
pod sh -o name` and `kubectl exec sh -- true`, and once more the exec with
-v=6 for kubectl's own clock of the pod GET and of the exec's upgrade.

    /usr/bin/python3 bench/exec_parts.py [BINARY [ROUNDS]]

Medians and minimums in ms. Needs root and the runtime tools, like the
end-to-end tests; run under flock /tmp/skiff-containers.lock.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

import conftest  # noqa: E402
import test_agent_embedded  # noqa: E402
from conftest import KUBECTL  # noqa: E402
from test_agent_cluster import have_tools, wait_for  # noqa: E402


def main():
    if len(sys.argv) > 1:
        conftest.SKIFF = test_agent_embedded.SKIFF = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    with test_agent_embedded.embedded_cluster("skiff-exec-parts-", "ep") as c:
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sh"},
            "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox:1", "command": ["sleep", "3600"]}]}}))
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running", 90, what="pod sh")
        kc = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache]
        cmds = (("kubectl version --client", [KUBECTL, "version", "--client"]),
                ("kubectl get pod sh -o name", kc + ["get", "pod", "sh", "-o", "name"]),
                ("kubectl exec sh -- true", kc + ["exec", "sh", "--", "true"]))
        rows = {name: [] for name, _ in cmds}
        rows["GET pod (kubectl -v=6)"], rows["exec upgrade 101 (kubectl -v=6)"] = [], []
        for _ in range(rounds):
            for name, cmd in cmds:
                t = time.monotonic()
                subprocess.run(cmd, capture_output=True, check=True)
                rows[name].append((time.monotonic() - t) * 1000)
            r = subprocess.run(kc + ["exec", "sh", "-v=6", "--", "true"], capture_output=True, text=True, check=True)
            for line in r.stderr.splitlines():
                m = re.search(r"(GET|POST) (\S+) (\d+) .* in (\d+) milliseconds", line)
                if m:
                    key = "exec upgrade 101 (kubectl -v=6)" if "/exec" in m.group(2) else "GET pod (kubectl -v=6)"
                    rows[key].append(int(m.group(4)))
        for k, v in rows.items():
            print(f"{k:34s} median {statistics.median(v):6.0f} ms  min {min(v):6.0f} ms")
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
