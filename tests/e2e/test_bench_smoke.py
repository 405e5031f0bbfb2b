"""`skiff bench` stays working: a tiny run on hollow nodes binds every pod
and reports it Running, and a gang is placed as a whole. The store is kept
(--data-dir) and read back through a real `skiff server` and kubectl, so the
check does not rely on the benchmark's own bookkeeping."""
import re
import subprocess

import pytest

from conftest import SKIFF, Cluster


def run_bench(data_dir, *args):
    r = subprocess.run([SKIFF, "bench", "--data-dir", data_dir, "--timeout", "120"] + list(args),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"skiff bench failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r.stdout


def test_bench_help():
    r = subprocess.run([SKIFF, "bench", "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    assert "--nodes" in r.stdout and "--gang" in r.stdout and "hollow" in r.stdout


@pytest.mark.sqlite  # a server then reads the bench's SQLite data directory
def test_bench_smoke_pods_and_gang(tmpdir_skiff):
    out = run_bench(tmpdir_skiff, "--nodes", "20", "--pods", "200", "--gang", "30", "--workers", "4")
    assert re.search(r"^pods: 200 pods Running in [0-9.]+s: \d+ pods/s sustained", out, re.M), out
    assert re.search(r"^gang: 30 members placed in [0-9.]+s", out, re.M), out
    assert re.search(r"^gang: 30 pods Running", out, re.M), out
    assert re.search(r"bound, 0 bind errors", out), out

    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        nodes = c.kjson("get", "nodes")["items"]
        hollow = [n for n in nodes if n["metadata"]["name"].startswith("hollow-")]
        assert len(hollow) == 20
        for n in hollow:
            ready = [x for x in n["status"]["conditions"] if x["type"] == "Ready"]
            assert ready and ready[0]["status"] == "True"
            assert n["status"]["capacity"]["pods"] == "110"
        pods = c.kjson("get", "pods", "-n", "bench")["items"]
        assert len(pods) == 230
        names = {n["metadata"]["name"] for n in hollow}
        for p in pods:
            assert p["spec"].get("nodeName") in names, p["metadata"]["name"]
            st = p["status"]
            assert st["phase"] == "Running", p["metadata"]["name"]
            assert st.get("podIP") and st.get("startTime")
            assert {x["type"]: x["status"] for x in st["conditions"]}.get("Ready") == "True"
            assert all("running" in cs["state"] for cs in st["containerStatuses"])
        gang = [p for p in pods if p["metadata"].get("labels", {}).get("scheduling.x-k8s.io/pod-group") == "gang-1"]
        assert len(gang) == 30
        pg = c.kjson("get", "podgroups.scheduling.x-k8s.io", "-n", "bench", "gang-1")
        assert pg["spec"]["minMember"] == 30
        leases = c.kjson("get", "leases", "-n", "kube-node-lease")["items"]
        assert len([x for x in leases if x["metadata"]["name"].startswith("hollow-")]) == 20
    finally:
        c.cleanup()
