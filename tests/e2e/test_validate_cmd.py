"""`skiff validate` against a server and a real agent: the node-stack canary
pulls an image cold from a loopback docker-registry (Debian's distribution,
tests/images/registry.py), mounts a local-path claim, writes and reads back
an artifact, holds the node's GPU (the agent simulates one: the check is
the injected NVIDIA_VISIBLE_DEVICES; on a real GPU nvidia-smi -L or
/dev/nvidiaN), terminates and cleans up; reported as a table and as JSON. A missing image fails the pull
step with a non-zero exit; nothing the command made is left either way."""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import ROOT, SKIFF, SLOW
from test_agent_cluster import images_dir, running_cluster, wait_for

sys.path.insert(0, os.path.join(ROOT, "tests", "images"))
from registry import Registry  # noqa: E402

pytestmark = pytest.mark.agents

STEPS = ["admission", "scheduling", "storage", "sandbox", "pull", "run", "artifact", "gpu", "termination",
         "cleanup"]


@pytest.fixture(scope="module")
def agent_cluster():
    """A server and an agent with one simulated GPU."""
    with running_cluster("skiff-e2e-validate-",
                         setup=lambda c: c.agent_extra.extend(["--simulate-gpus", "1"])) as c:
        yield c


@pytest.fixture(scope="module")
def registry(agent_cluster):
    with Registry() as reg:
        reg.push(f"oci:{images_dir()}/oci:1", "canary:1")
        yield reg


def validate(c, *args):
    return subprocess.run([SKIFF, "validate", "--kubeconfig", os.path.join(c.data_dir, "kubeconfig"),
                           "--timeout", f"{int(120 * SLOW)}s", *args], capture_output=True, text=True,
                          timeout=240 * SLOW)


def assert_nothing_left(c):
    assert c.kjson("get", "pods,persistentvolumeclaims,persistentvolumes", "-A")["items"] == []


def test_help_and_bad_flags():
    r = subprocess.run([SKIFF, "validate", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--selector" in r.stdout and "--image" in r.stdout
    r = subprocess.run([SKIFF, "validate"], capture_output=True, text=True)
    assert r.returncode == 2 and "exactly one of --node and --selector" in r.stderr
    r = subprocess.run([SKIFF, "validate", "--node", "x", "--timeout", "soon"], capture_output=True, text=True)
    assert r.returncode == 1 and "--timeout" in r.stderr


def test_validate_node_passes(agent_cluster, registry):
    c = agent_cluster
    image = f"{registry.host}/canary:1"
    r = validate(c, "--node", c.node, "--image", image, "-o", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["passed"] is True and rep["image"] == image
    (n,) = rep["nodes"]
    assert n["node"] == c.node and n["passed"] is True and n["failedStep"] is None
    assert [s["step"] for s in n["steps"]] == STEPS
    by = {s["step"]: s for s in n["steps"]}
    for name in STEPS:
        assert by[name]["result"] == "Passed", r.stdout
        assert by[name]["durationSeconds"] >= 0
    # cache bypassed: the agent really pulled it from the registry
    assert by["pull"]["detail"].startswith(f'Successfully pulled image "{image}"')
    assert by["scheduling"]["detail"] == f"bound to {c.node}"
    assert "(local-path)" in by["storage"]["detail"]
    assert "wrote and read back" in by["artifact"]["detail"]
    assert by["gpu"]["detail"] == f"simulated device GPU-sim-{c.node}-0"
    # the checks run inside the container: their time is part of the run's
    assert by["artifact"]["durationSeconds"] <= by["run"]["durationSeconds"] + 0.1
    assert_nothing_left(c)

    # the same through a selector, as a table
    r = validate(c, "--selector", "nvidia.com/gpu.present=true", "--image", image)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NODE", "STEP", "RESULT", "DURATION", "DETAIL"]
    rows = [l.split(None, 4) for l in lines[1:]]
    assert [row[1] for row in rows] == STEPS + ["total"]
    assert all(row[0] == c.node for row in rows)
    assert all(row[2] == "Passed" for row in rows)
    assert_nothing_left(c)

    r = validate(c, "--selector", "pool=none-such", "--image", image)
    assert r.returncode == 1 and 'no nodes match the selector "pool=none-such"' in r.stderr
    r = validate(c, "--node", "no-such-node")
    assert r.returncode == 1 and 'nodes "no-such-node" not found' in r.stderr


def test_validate_failing_pull(agent_cluster, registry):
    c = agent_cluster
    image = f"{registry.host}/missing:1"
    r = validate(c, "--node", c.node, "--image", image, "-o", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"node {c.node} failed step pull" in r.stderr, r.stdout + r.stderr
    (n,) = json.loads(r.stdout)["nodes"]
    assert n["passed"] is False and n["failedStep"] == "pull"
    by = {s["step"]: s for s in n["steps"]}
    assert by["pull"]["result"] == "Failed" and "missing" in by["pull"]["detail"]
    assert by["admission"]["result"] == "Passed" and by["scheduling"]["result"] == "Passed"
    assert by["run"]["result"] == "NotRun" and by["termination"]["result"] == "NotRun"
    assert by["cleanup"]["result"] == "Passed"
    assert_nothing_left(c)


def test_validate_timeout_and_interrupt(agent_cluster, registry):
    """A claim of a StorageClass that does not exist never binds, so the pod is
    never scheduled: --timeout fails the scheduling step; Ctrl-C (SIGINT)
    stops it too. Both clean up what they made."""
    c = agent_cluster
    image = f"{registry.host}/canary:1"
    r = validate(c, "--node", c.node, "--image", image, "--storage-class", "none-such", "--timeout", "2s",
                 "-o", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    (n,) = json.loads(r.stdout)["nodes"]
    assert n["failedStep"] == "scheduling" and n["steps"][1]["detail"].startswith("timed out: not scheduled")
    assert n["steps"][-1]["result"] == "Passed"
    assert_nothing_left(c)

    p = subprocess.Popen([SKIFF, "validate", "--kubeconfig", os.path.join(c.data_dir, "kubeconfig"), "--node",
                          c.node, "--image", image, "--storage-class", "none-such", "-o", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: c.kjson("get", "pods")["items"], 30, what="the canary pod")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=90 * SLOW)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, out + err
    (n,) = json.loads(out)["nodes"]
    assert n["failedStep"] == "scheduling" and n["steps"][1]["detail"].startswith("interrupted")
    assert "failed step scheduling: interrupted" in err
    assert_nothing_left(c)

