"""`skiff validate` on this machine's node: a server and one `skiff agent`
(real containers through conmon + crun/runc, the same set-up as the
end-to-end tests), a loopback docker-registry holding the test busybox image
(tests/images), and N runs of

    skiff validate --node NODE --image 127.0.0.1:PORT/canary:1 -o json

Prints the first run's table and, per step, the median and the worst over
the runs (seconds).

    /usr/bin/python3 bench/validate_node.py [N]     (default 5; needs root)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "images"))

from conftest import SKIFF  # noqa: E402
from registry import Registry  # noqa: E402
from test_agent_cluster import AgentCluster, have_tools, images_dir  # noqa: E402


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    if not have_tools():
        sys.exit("needs root, conmon, crun/runc, CNI plugins and busybox")
    d = tempfile.mkdtemp(prefix="skiff-bench-validate-")
    c = AgentCluster(d, node="bench-node")
    try:
        c.start()
        c.import_images()
        c.start_agent()
        with Registry() as reg:
            reg.push(f"oci:{images_dir()}/oci:1", "canary:1")
            cmd = [SKIFF, "validate", "--kubeconfig", os.path.join(d, "kubeconfig"), "--node", c.node,
                   "--image", f"{reg.host}/canary:1"]
            print("$", " ".join(cmd))
            print(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            per_step, totals = {}, []
            for _ in range(runs):
                out = json.loads(subprocess.run(cmd + ["-o", "json"], capture_output=True, text=True,
                                                check=True).stdout)
                n = out["nodes"][0]
                totals.append(n["durationSeconds"])
                for s in n["steps"]:
                    if s["durationSeconds"] is not None:
                        per_step.setdefault(s["step"], []).append(s["durationSeconds"])
            print(f"{'STEP':<12} {'MEDIAN':>8} {'WORST':>8}   ({runs} runs)")
            for step, v in per_step.items():
                print(f"{step:<12} {statistics.median(v):8.3f} {max(v):8.3f}")
            print(f"{'total':<12} {statistics.median(totals):8.3f} {max(totals):8.3f}")
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
