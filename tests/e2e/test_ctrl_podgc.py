"""The pod garbage collector: a pod bound to a node that no longer exists is
marked Failed (DisruptionTarget, DeletionByPodGC) and deleted once the node
has been gone for the quarantine time (shortened here through
SKIFF_PODGC_QUARANTINE / SKIFF_PODGC_PERIOD)."""
import json
import os
import subprocess
import threading
import time

import pytest

from conftest import Cluster, KUBECTL


@pytest.fixture
def gc_cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("SKIFF_PODGC_QUARANTINE", "1")
    monkeypatch.setenv("SKIFF_PODGC_PERIOD", "1")
    c = Cluster(str(tmp_path / "d"), ["--no-agent"]).start()
    yield c
    c.cleanup()


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ghost", "labels": {"kubernetes.io/hostname": "ghost"}}}


def pod(name, node):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox:1"}]}}


def test_orphaned_pod_is_failed_then_deleted(gc_cluster):
    c = gc_cluster
    c.kubectl("apply", "-f", "-", input=json.dumps(NODE))
    c.kubectl("apply", "-f", "-", input=json.dumps(pod("orphan", "ghost")))
    c.kubectl("apply", "-f", "-", input=json.dumps(pod("unbound", "")))
    watch = subprocess.Popen([KUBECTL, "--kubeconfig", c.kubeconfig, "get", "pod", "orphan", "-w",
                              "--output-watch-events", "-o", "json"], stdout=subprocess.PIPE, text=True)
    events = []

    def read():
        dec = json.JSONDecoder()
        buf = ""
        for line in watch.stdout:
            buf += line
            try:
                obj, _ = dec.raw_decode(buf.strip())
            except ValueError:
                continue
            events.append(obj)
            buf = ""
    t = threading.Thread(target=read, daemon=True)
    t.start()
    time.sleep(1)
    # the node is still there: nothing happens to its pod
    time.sleep(2.5)
    assert c.kjson("get", "pod", "orphan")["metadata"]["name"] == "orphan"
    c.kubectl("delete", "node", "ghost")
    deadline = time.time() + 30
    while time.time() < deadline:
        if c.kubectl("get", "pod", "orphan", check=False).returncode != 0:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the orphaned pod was not collected: " + c.log())
    time.sleep(0.5)
    watch.terminate()
    watch.wait(10)
    failed = [e["object"] for e in events if e.get("type") == "MODIFIED"
              and e["object"].get("status", {}).get("phase") == "Failed"]
    assert failed, events
    conds = {x["type"]: x for x in failed[-1]["status"].get("conditions", [])}
    assert conds["DisruptionTarget"]["status"] == "True"
    assert conds["DisruptionTarget"]["reason"] == "DeletionByPodGC"
    assert conds["DisruptionTarget"]["message"] == "PodGC: node no longer exists"
    assert any(e.get("type") == "DELETED" for e in events)
    # a pod never bound to a node is not the collector's business
    assert c.kjson("get", "pod", "unbound")["metadata"]["name"] == "unbound"
