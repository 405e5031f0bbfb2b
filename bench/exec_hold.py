"""How long a session's start holds the node's other sessions (issue 18): one
binary's one-node cluster (embedded agent, a busybox pod), a `kubectl exec`
whose command prints a line every 2 ms, and meanwhile ROUNDS (default 6)
`kubectl exec -it … -- true` (each under script(1) for a terminal: the
runtime's exec then waits for the terminal's master). Prints the largest gap
between two lines of the ticking session while the terminal sessions start,
and the largest gap before them (its own noise).

    /usr/bin/python3 bench/exec_hold.py [--bin PATH]... [ROUNDS]

Needs root and the runtime tools, like the end-to-end tests; run under
flock /tmp/skiff-containers.lock.
"""
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

import conftest  # noqa: E402
import test_agent_embedded  # noqa: E402
from conftest import KUBECTL  # noqa: E402
from test_agent_cluster import have_tools, wait_for  # noqa: E402


def one(path, rounds):
    conftest.SKIFF = test_agent_embedded.SKIFF = path
    with test_agent_embedded.embedded_cluster("skiff-exec-hold-", "eh") as c:
        c.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sh"},
            "spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox:1", "command": ["sleep", "3600"]}]}}))
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running", 90, what="pod sh")
        kc = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache]
        tick = subprocess.Popen(kc + ["exec", "sh", "--", "sh", "-c", "while :; do echo t; usleep 2000; done"],
                                stdout=subprocess.PIPE)
        stamps = []

        def reader():
            for _ in tick.stdout:
                stamps.append(time.monotonic())
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        wait_for(lambda: len(stamps) > 50, 30, what="ticks")
        time.sleep(1)
        t0 = time.monotonic()
        for _ in range(rounds):
            subprocess.run(["script", "-qec", " ".join(kc + ["exec", "-it", "sh", "--", "true"]), "/dev/null"],
                           stdin=subprocess.DEVNULL, capture_output=True, check=True)
        t1 = time.monotonic()
        tick.kill()
        tick.wait()

        def gap(a, b):
            s = [x for x in stamps if a <= x <= b]
            return max((y - x for x, y in zip(s, s[1:])), default=0) * 1000
        return gap(t0 - 1, t0), gap(t0, t1)


def main():
    bins, rounds = [], 6
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--bin":
            bins.append(os.path.abspath(next(it)))
        else:
            rounds = int(a)
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    for b in bins or [conftest.SKIFF]:
        quiet, during = one(b, rounds)
        print(f"{b}: largest gap {during:.0f} ms while {rounds} terminal execs started "
              f"({quiet:.0f} ms in the second before), load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
