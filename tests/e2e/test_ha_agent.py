"""An agent given two API servers on one etcd (--server URL1,URL2) moves to
the second when the first is killed (kill -9): its node's Lease is renewed
through the survivor and the Node stays Ready."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import SKIFF, Cluster
from etcd_util import Etcd
from test_agent_cluster import AgentCluster, wait_for

pytestmark = pytest.mark.agents


@pytest.fixture(scope="module")
def ha():
    e = Etcd().start()
    da, db = tempfile.mkdtemp(prefix="skiff-e2e-"), tempfile.mkdtemp(prefix="skiff-e2e-")
    common = ["--datastore-endpoint", f"etcd://{e.endpoint}", "--leader-elect-lease-duration", "4s",
              "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "1s"]
    a = AgentCluster(da, node="ha-node")
    a.extra += common + ["--advertise-address", "127.0.0.2"]
    a.listen_host = "127.0.0.2"
    a.start()
    b = Cluster(db, ["--no-agent"] + common + ["--advertise-address", "127.0.0.3", "--join-from", da])
    b.listen_host, b.port = "127.0.0.3", a.port
    b.start()
    yield a, b
    b.cleanup()
    a.cleanup()
    e.cleanup()
    shutil.rmtree(da, ignore_errors=True)
    shutil.rmtree(db, ignore_errors=True)


def renew_time(c):
    r = c.kubectl("get", "lease", "-n", "kube-node-lease", "ha-node", "-o", "json", check=False)
    return json.loads(r.stdout)["spec"].get("renewTime") if r.returncode == 0 else None


def test_agent_fails_over_to_the_next_server(ha):
    a, b = ha
    servers = f"https://127.0.0.2:{a.port},https://127.0.0.3:{a.port}"
    log = open(a.agent_log, "ab")
    a.agent_proc = subprocess.Popen(
        [SKIFF, "agent", "--server", servers, "--token", "@" + os.path.join(a.data_dir, "node-token"),
         "--data-dir", a.agent_dir, "--run-dir", a.run_dir, "--bridge", a.bridge, "--pod-cidr", a.pod_cidr,
         "--node-name", a.node],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def ready(c):
        r = c.kubectl("get", "node", "ha-node", "-o", "json", check=False)
        conds = json.loads(r.stdout).get("status", {}).get("conditions", []) if r.returncode == 0 else []
        return any(x["type"] == "Ready" and x["status"] == "True" for x in conds)
    wait_for(lambda: ready(b), what="node Ready")
    wait_for(lambda: renew_time(b), what="node lease")

    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    killed = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    # a renewal stamped in a later second than the kill's came through b
    wait_for(lambda: (renew_time(b) or "")[:19] > killed, what="node lease renewed through the second server")
    assert ready(b)
    assert a.agent_proc.poll() is None
    with open(a.agent_log, errors="replace") as f:
        assert f"using https://127.0.0.3:{a.port}" in f.read()
