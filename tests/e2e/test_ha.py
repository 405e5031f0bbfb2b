"""Two skiff servers on one etcd (the second started with --join-from the
first's data directory: one CA, service-account key and tokens): a write
on one is seen by a watch on the other, default/kubernetes lists both, the
scheduler and the controllers run on the holder of the kube-system Leases
kube-scheduler and kube-controller-manager (client-go's leader election,
"… became leader" events). kill -9 of the leader: the other takes both
leases, schedules a Deployment created after the kill, serves kubectl
throughout, and drops the dead server from the kubernetes Endpoints once
its lease expires; stopped with SIGTERM, it releases the leases. A
bookmark carries etcd's revision after a write outside skiff's keys (etcd's
progress notifications), and a list on one server right after a write on
the other holds it. Hollow nodes (Node objects), no agents."""
import datetime
import json
import os
import re
import shutil
import signal
import tempfile

import pytest
from kubernetes import client, watch

from conftest import SLOW, Cluster
from etcd_util import Etcd
from test_agent_cluster import wait_for

LE_FLAGS = ["--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s",
            "--leader-elect-retry-period", "1s"]


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def add_node(c, name):
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}))
    t = now()
    res = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    c.kubectl("patch", "node", name, "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
        "capacity": res, "allocatable": res,
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                        "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))


def identity(c):
    """The elector identities a server logged (HOSTNAME_UUID, one per lease), once it has logged
    both: a server answers before its electors start, slowly under TSan."""
    def logged():
        with open(c.log_path, errors="replace") as f:
            ids = set(re.findall(r"attempting to acquire leader lease kube-system/\S+ as (\S+)", f.read()))
        return ids if len(ids) == 2 else None
    return wait_for(logged, 30, what=f"{c.log_path} naming its two elector identities")


def holder(c, name):
    r = c.kubectl("get", "lease", "-n", "kube-system", name, "-o", "json", check=False)
    return json.loads(r.stdout)["spec"] if r.returncode == 0 else {}


def endpoint_ips(c):
    ep = c.kjson("get", "endpoints", "kubernetes")
    return sorted(a["ip"] for s in ep.get("subsets") or [] for a in s.get("addresses", []))


@pytest.fixture(scope="module")
def ha():
    # progress notifications every second (etcd's default: 10 minutes)
    e = Etcd(args=["--experimental-watch-progress-notify-interval", "1s"]).start()
    da, db = tempfile.mkdtemp(prefix="skiff-e2e-"), tempfile.mkdtemp(prefix="skiff-e2e-")
    common = ["--no-agent", "--datastore-endpoint", f"etcd://{e.endpoint}", "--node-monitor-grace-period",
              "3600"] + LE_FLAGS
    a = Cluster(da, common + ["--advertise-address", "127.0.0.2"])
    a.listen_host = "127.0.0.2"
    a.start()
    b = Cluster(db, common + ["--advertise-address", "127.0.0.3", "--join-from", da])
    b.listen_host, b.port = "127.0.0.3", a.port
    b.start()
    yield a, b, e
    for c in (a, b):
        c.cleanup()
    e.cleanup()
    shutil.rmtree(da, ignore_errors=True)
    shutil.rmtree(db, ignore_errors=True)


def test_servers_share_pki_store_and_watches(ha):
    a, b, _ = ha
    # one CA and one admin token: each kubeconfig works against the other server
    for f in ("tls/ca.crt", "tls/service-account.key", "token", "node-token"):
        assert open(os.path.join(a.data_dir, f)).read() == open(os.path.join(b.data_dir, f)).read()
    assert open(os.path.join(a.data_dir, "tls/server.crt")).read() != open(
        os.path.join(b.data_dir, "tls/server.crt")).read()
    r = b.kubectl("--server", f"https://127.0.0.2:{a.port}", "get", "--raw", "/readyz")
    assert r.stdout.strip() == "ok"

    v1b = client.CoreV1Api(b.api_client())
    rv = v1b.list_namespaced_config_map("default").metadata.resource_version
    a.kubectl("create", "configmap", "from-a", "--from-literal=k=v")
    seen = None
    for ev in watch.Watch().stream(v1b.list_namespaced_config_map, "default", resource_version=rv,
                                   timeout_seconds=30):
        if ev["object"].metadata.name == "from-a":
            seen = (ev["type"], ev["object"].data)
            break
    assert seen == ("ADDED", {"k": "v"})
    # a ServiceAccount token issued by one server is accepted by the other
    tok = a.kubectl("create", "token", "default").stdout.strip()
    r = b.kubectl("--token", tok, "auth", "whoami", "-o", "json", check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"]["userInfo"]["username"] == "system:serviceaccount:default:default"

    wait_for(lambda: endpoint_ips(b) == ["127.0.0.2", "127.0.0.3"], what="both servers in kubernetes Endpoints")
    # upstream's APIServerIdentity: a kube-system Lease per server
    idl = a.kjson("get", "leases", "-n", "kube-system", "-l", "apiserver.kubernetes.io/identity=kube-apiserver")
    assert len(idl["items"]) == 2
    for l in idl["items"]:
        assert re.fullmatch(r"apiserver-[a-z2-7]{26}", l["metadata"]["name"])
        assert l["spec"]["holderIdentity"].startswith(l["metadata"]["name"] + "_")
        assert l["spec"]["leaseDurationSeconds"] == 3600 and l["metadata"]["labels"]["kubernetes.io/hostname"]

    ids = {a: identity(a), b: identity(b)}
    for name in ("kube-scheduler", "kube-controller-manager"):
        spec = wait_for(lambda: holder(a, name).get("holderIdentity") and holder(a, name), what=name)
        assert spec["holderIdentity"] in ids[a] | ids[b]
        assert spec["leaseDurationSeconds"] == 4 and spec["leaseTransitions"] >= 0
        assert spec["acquireTime"].endswith("Z") and spec["renewTime"].endswith("Z")
    def leader_events():
        evs = [e for e in a.kjson("get", "events", "-n", "kube-system")["items"] if e["reason"] == "LeaderElection"]
        return evs if len({e["involvedObject"]["name"] for e in evs}) == 2 else None
    evs = wait_for(leader_events, what="LeaderElection events")
    for e in evs:
        assert e["message"].endswith(" became leader") and e["involvedObject"]["kind"] == "Lease"
        assert e["source"]["component"] == {"kube-scheduler": "default-scheduler",
                                            "kube-controller-manager": "kube-controller-manager"}[
            e["involvedObject"]["name"]]


def etcd_rev(e, key):
    return int(json.loads(e.etcdctl("get", key, "-w", "json"))["header"]["revision"])


def test_bookmarks_and_consistent_lists(ha):
    a, b, e = ha
    rv = json.loads(b.kubectl("get", "--raw", "/api/v1/namespaces/kube-public/configmaps").stdout)[
        "metadata"]["resourceVersion"]
    # etcd's revision moves under a key no skiff server watches
    e.etcdctl("put", "/elsewhere/k", "v")
    put_rev = etcd_rev(e, "/elsewhere/k")
    assert put_rev > int(rv)
    # an idle watch's bookmark (2 s before its end) carries a revision past it
    t = int(4 * SLOW)
    out = b.kubectl("get", "--raw", f"/api/v1/namespaces/kube-public/configmaps?watch=1&allowWatchBookmarks=true"
                    f"&timeoutSeconds={t}&resourceVersion={rv}").stdout
    evs = [json.loads(l) for l in out.splitlines() if l.strip()]
    marks = [int(ev["object"]["metadata"]["resourceVersion"]) for ev in evs if ev["type"] == "BOOKMARK"]
    assert marks and marks[-1] >= put_rev, evs
    # a list on B right after each write on A holds it
    for i in range(3):
        a.kubectl("create", "configmap", f"seq-{i}")
        names = [c["metadata"]["name"] for c in b.kjson("get", "configmaps")["items"]]
        assert f"seq-{i}" in names


def test_leader_killed_other_takes_over(ha):
    a, b, e = ha
    ids = {a: identity(a), b: identity(b)}
    add_node(a, "hollow-1")
    sched = holder(a, "kube-scheduler")["holderIdentity"]
    leader, survivor = (a, b) if sched in ids[a] else (b, a)
    old = {n: holder(survivor, n) for n in ("kube-scheduler", "kube-controller-manager")}
    # one server at a time: the one not holding a lease never acquired it
    with open(survivor.log_path, errors="replace") as f:
        log = f.read()
    for n in old:
        assert (f"successfully acquired lease kube-system/{n}" in log) == (old[n]["holderIdentity"] in ids[survivor])

    leader.proc.send_signal(signal.SIGKILL)
    leader.proc.wait()
    # kubectl against the survivor works throughout
    survivor.kubectl("create", "deployment", "after-kill", "--image=registry.k8s.io/pause:3.10", "--replicas=2")
    for n in ("kube-scheduler", "kube-controller-manager"):
        spec = wait_for(lambda: holder(survivor, n).get("holderIdentity") in ids[survivor] and holder(survivor, n),
                        what=f"{n} taken over")
        if old[n]["holderIdentity"] not in ids[survivor]:
            assert spec["leaseTransitions"] == old[n]["leaseTransitions"] + 1
            assert spec["acquireTime"] != old[n]["acquireTime"]

    def scheduled():
        pods = survivor.kjson("get", "pods", "-l", "app=after-kill")["items"]
        return len(pods) == 2 and all(p["spec"].get("nodeName") == "hollow-1" for p in pods)
    wait_for(scheduled, what="the Deployment's pods scheduled by the survivor")
    mine = [e for e in survivor.kjson("get", "events", "-n", "kube-system")["items"]
            if e["reason"] == "LeaderElection" and e["message"].split()[0] in ids[survivor]]
    assert mine
    dead = "127.0.0.2" if leader is a else "127.0.0.3"
    live = "127.0.0.3" if leader is a else "127.0.0.2"
    wait_for(lambda: endpoint_ips(survivor) == [live], timeout=60, what=f"{dead} dropped from kubernetes Endpoints")
    assert survivor.kubectl("get", "--raw", "/readyz").stdout.strip() == "ok"

    # a graceful stop hands the leases over at once (client-go's ReleaseOnCancel)
    survivor.stop()
    for n in ("kube-scheduler", "kube-controller-manager"):
        spec = json.loads(e.etcdctl("get", f"/registry/leases/kube-system/{n}", "--print-value-only"))["spec"]
        assert "holderIdentity" not in spec and spec["leaseDurationSeconds"] == 1
