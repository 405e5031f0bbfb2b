"""Two skiff servers on a 3-member etcd cluster (Debian's etcd, every member
on loopback, data in the test's temporary directory), each given the three
endpoints in its own order. Losing one member: both servers keep serving
reads, writes and watches on the other two. Losing two (no quorum): API
requests get upstream's Status (500, "etcdserver: …", as kube-apiserver
passes etcd's error on) at once, nothing crashes or hangs; with the members
back the servers serve again without a restart. Then kill -9 of the leading
server during a burst of ConfigMap creates, updates and deletes from
several Python clients against both servers: no acknowledged write is lost
(writes whose connection broke are counted apart), the scheduler and the
controllers resume on the survivor, and a Deployment and a Job converge.
Hollow nodes (Node objects whose pods the test moves along), no agents."""
import datetime
import json
import shutil
import signal
import tempfile
import threading

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from conftest import SLOW, Cluster
from etcd_util import EtcdCluster
from test_agent_cluster import wait_for
from test_ha import LE_FLAGS, add_node, holder, identity


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def api(c):
    """A Python client that reports a broken connection instead of retrying."""
    cfg = client.Configuration()
    config.load_kube_config(config_file=c.kubeconfig, client_configuration=cfg)
    cfg.retries = False
    return client.CoreV1Api(client.ApiClient(cfg))


@pytest.fixture(scope="module")
def ha():
    e = EtcdCluster()
    dirs = [tempfile.mkdtemp(prefix="skiff-e2e-") for _ in range(2)]
    servers = []
    try:
        e.start()
        eps = e.endpoints

        def args(order, addr):
            return ["--no-agent", "--datastore-endpoint", "etcd://" + ",".join(eps[i] for i in order),
                    "--node-monitor-grace-period", "3600", "--advertise-address", addr] + LE_FLAGS
        a = Cluster(dirs[0], args((0, 1, 2), "127.0.0.2"))
        a.listen_host = "127.0.0.2"
        servers.append(a.start())
        b = Cluster(dirs[1], args((1, 2, 0), "127.0.0.3") + ["--join-from", dirs[0]])
        b.listen_host, b.port = "127.0.0.3", a.port
        servers.append(b.start())
        yield a, b, e
    finally:
        for c in servers:
            c.cleanup()
        e.cleanup()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def cm(name, value):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"v": value})


def test_member_loss_quorum_loss_and_recovery(ha):
    a, b, e = ha
    va, vb = api(a), api(b)
    # read your writes across servers: a write acknowledged by one is in the
    # next read without a resourceVersion on the other (a consistent read)
    va.create_namespaced_config_map("default", cm("ryw", "0"))
    for i in range(1, 40):
        w, r = (va, vb) if i % 2 else (vb, va)
        w.patch_namespaced_config_map("ryw", "default", {"data": {"v": str(i)}})
        assert r.read_namespaced_config_map("ryw", "default").data == {"v": str(i)}
        assert [c.data for c in r.list_namespaced_config_map("default", field_selector="metadata.name=ryw").items
                ] == [{"v": str(i)}]
    # a write starts from the server's copy in memory: a replace with the
    # resourceVersion the other server has just returned succeeds (the copy
    # catches up first), one with the version before it is a Conflict, and so
    # is a delete with a stale precondition
    for i in range(10):
        w, r = (va, vb) if i % 2 else (vb, va)
        before = w.read_namespaced_config_map("ryw", "default").metadata.resource_version
        cur = r.patch_namespaced_config_map("ryw", "default", {"data": {"v": "p%d" % i}})
        got = w.replace_namespaced_config_map("ryw", "default", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="ryw", resource_version=cur.metadata.resource_version),
            data={"v": "r%d" % i}))
        assert got.data == {"v": "r%d" % i}
        assert int(got.metadata.resource_version) > int(cur.metadata.resource_version)
        for v in (w, r):
            with pytest.raises(ApiException) as ex:
                v.replace_namespaced_config_map("ryw", "default", client.V1ConfigMap(
                    metadata=client.V1ObjectMeta(name="ryw", resource_version=before), data={"v": "stale"}))
            assert ex.value.status == 409 and json.loads(ex.value.body)["reason"] == "Conflict"
        with pytest.raises(ApiException) as ex:
            r.delete_namespaced_config_map("ryw", "default", body=client.V1DeleteOptions(
                preconditions=client.V1Preconditions(resource_version=cur.metadata.resource_version)))
        assert ex.value.status == 409
        assert w.read_namespaced_config_map("ryw", "default").data == {"v": "r%d" % i}
    # m0 is a's first endpoint, m1 b's: kill -9 of m0 moves a (reads, writes
    # and its watch) to another member
    e.kill(0)
    # etcd's own election first if m0 led (a write in flight then fails, as upstream)
    e.wait_healthy((1, 2))
    rv = vb.list_namespaced_config_map("default").metadata.resource_version
    va.create_namespaced_config_map("default", cm("one-down", "a"))
    assert vb.read_namespaced_config_map("one-down", "default").data == {"v": "a"}
    vb.create_namespaced_config_map("default", cm("one-down-b", "b"))
    assert va.read_namespaced_config_map("one-down-b", "default").data == {"v": "b"}
    seen = set()
    for ev in watch.Watch().stream(va.list_namespaced_config_map, "default", resource_version=rv,
                                   timeout_seconds=int(30 * SLOW)):
        seen.add(ev["object"].metadata.name)
        if "one-down-b" in seen:
            break
    assert {"one-down", "one-down-b"} <= seen
    assert b.kubectl("get", "configmap", "one-down", "-o", "jsonpath={.data.v}").stdout == "a"

    # two of three down: no quorum; kube-apiserver passes etcd's error on as a
    # 500 Status without a reason ("Error from server: etcdserver: …")
    e.kill(1)
    # (each takes etcd's request timeout: a create through a, kubectl's through b, a read through b)
    with pytest.raises(ApiException) as ex:
        va.create_namespaced_config_map("default", cm("no-quorum", "x"), _request_timeout=60 * SLOW)
    st = json.loads(ex.value.body)
    assert (ex.value.status, st["kind"], st["status"], st.get("reason", "")) == (500, "Status", "Failure", "")
    # etcd's own words: "etcdserver: request timed out", "context deadline exceeded"…
    assert st["message"] and "details" not in st and st["code"] == 500, st
    # a read without a resourceVersion is a consistent one: it fails too, as upstream's quorum read
    with pytest.raises(ApiException) as ex:
        vb.read_namespaced_config_map("one-down", "default", _request_timeout=60 * SLOW)
    st = json.loads(ex.value.body)
    # the lone member holds the linearizable read until the store's 10 s call timeout: 503 as no answer
    assert (ex.value.status, st.get("reason")) in ((500, None), (503, "ServiceUnavailable")), st
    assert st["message"].startswith("etcdserver: ") or st["message"] == "context deadline exceeded", st
    # resourceVersion=0 ("any"): served from the server's copy (its watch cache), as upstream's
    names = [c.metadata.name for c in vb.list_namespaced_config_map("default", resource_version="0").items]
    assert "one-down" in names
    r = b.kubectl("create", "configmap", "no-quorum-kubectl", check=False, timeout=120 * SLOW)
    # kubectl create configmap's wording for a Status: "error: failed to create configmap: MESSAGE"
    assert r.returncode == 1 and r.stderr.startswith("error: failed to create configmap: "), r.stderr
    assert "etcdserver: " in r.stderr or "context deadline exceeded" in r.stderr, r.stderr
    assert a.proc.poll() is None and b.proc.poll() is None

    # the members come back: both servers serve again, no restart
    e.start(0, 1)

    def writes():
        try:
            for i, v in enumerate((va, vb)):
                v.create_namespaced_config_map("default", cm(f"back-{i}", str(i)), _request_timeout=30 * SLOW)
            return True
        except ApiException as x:
            if x.status in (409, 500):
                for i, v in enumerate((va, vb)):
                    try:
                        v.delete_namespaced_config_map(f"back-{i}", "default")
                    except ApiException:
                        pass
            return False
    wait_for(writes, what="writes through both servers after the members returned")
    assert va.read_namespaced_config_map("back-1", "default").data == {"v": "1"}
    assert vb.read_namespaced_config_map("back-0", "default").data == {"v": "0"}
    assert a.kubectl("get", "--raw", "/readyz").stdout.strip() == "ok"


def pods(c, ns, sel):
    return c.kjson("get", "pods", "-n", ns, "-l", sel)["items"]


def set_status(c, ns, pod, status):
    c.kubectl("-n", ns, "patch", "pod", pod, "--subresource=status", "--type=merge", "-p",
              json.dumps({"status": status}))


class Burst:
    """Threads each writing its own ConfigMaps through both servers in turn:
    create, updates, some deletes. Every reply is recorded: acknowledged (2xx),
    refused (an HTTP error: not applied), or unknown (the connection broke)."""

    def __init__(self, servers, threads=4):
        self.apis = [api(s) for s in servers]
        self.log = []  # (thread, seq, op, name, value, outcome)
        self.mu = threading.Lock()
        self.done = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(t,)) for t in range(threads)]

    def record(self, *entry):
        with self.mu:
            self.log.append(entry)
            self.done += 1

    def call(self, t, seq, op, name, value, fn):
        try:
            fn(self.apis[(t + seq) % len(self.apis)])
            self.record(t, seq, op, name, value, "ok")
            return True
        except ApiException as x:
            self.record(t, seq, op, name, value, "unknown" if x.status >= 500 or x.status == 0 else f"refused {x.status}")
        except Exception as x:  # no connection (not sent), or one that broke (unknown)
            self.record(t, seq, op, name, value, "refused" if "NewConnectionError" in repr(x) else "unknown")
        return False

    def run(self, t):
        ns, seq, k = "burst", 0, 0
        while not self.stop.is_set():
            name = f"t{t}-{k}"
            k += 1
            seq += 1
            self.call(t, seq, "create", name, "0",
                      lambda v: v.create_namespaced_config_map(ns, cm(name, "0"), _request_timeout=30 * SLOW))
            for u in (1, 2):
                seq += 1
                self.call(t, seq, "update", name, str(u), lambda v, u=u: v.replace_namespaced_config_map(
                    name, ns, cm(name, str(u)), _request_timeout=30 * SLOW))
            if k % 3 == 0:
                seq += 1
                self.call(t, seq, "delete", name, None,
                          lambda v: v.delete_namespaced_config_map(name, ns, _request_timeout=30 * SLOW))

    def lost(self, v):
        """Acknowledged writes the store does not reflect: per name, the last
        acknowledged write must be there, or a later unknown one."""
        items = {c.metadata.name: c.data.get("v") for c in v.list_namespaced_config_map("burst").items}
        last = {}
        for t, seq, op, name, value, outcome in sorted(self.log):
            if outcome == "ok":
                last[name] = [(op, value)]
            elif outcome == "unknown" and name in last:
                last[name].append((op, value))  # may or may not have happened
        lost = []
        for name, candidates in last.items():
            have = items.get(name, "<absent>")
            ok = {value if op != "delete" else "<absent>" for op, value in candidates}
            if have not in ok:
                lost.append((name, candidates[0], have))
        return lost

    def stale(self):
        """Updates and deletes refused as NotFound although the name's create
        was acknowledged (through either server) and nothing deleted it since."""
        exists, bad = {}, []
        for t, seq, op, name, value, outcome in sorted(self.log):
            if outcome == "ok" or outcome == "unknown":
                exists[name] = (op != "delete") if outcome == "ok" else None
            elif outcome == "refused 404" and exists.get(name):
                bad.append((name, op, seq))
        return bad


def test_leader_killed_during_write_burst(ha):
    a, b, e = ha
    assert all(e.healthy(i) for i in range(3))
    add_node(b, "hollow-1")
    b.kubectl("create", "namespace", "burst")
    b.kubectl("create", "namespace", "work")
    sched = wait_for(lambda: holder(a, "kube-scheduler").get("holderIdentity"), what="a scheduler leader")
    ids = {a: identity(a), b: identity(b)}
    leader, survivor = (a, b) if sched in ids[a] else (b, a)

    # a Deployment and a Job in flight as the leader dies
    survivor.kubectl("-n", "work", "create", "deployment", "web", "--image=registry.k8s.io/pause:3.10",
                     "--replicas=3")
    survivor.kubectl("-n", "work", "create", "-f", "-", input=json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "calc"},
        "spec": {"completions": 3, "parallelism": 3, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "calc", "image": "busybox"}]}}}}))
    burst = Burst((a, b))
    for th in burst.threads:
        th.start()
    try:
        wait_for(lambda: burst.done >= 60, interval=0.02, what="writes before the kill")
        leader.proc.send_signal(signal.SIGKILL)
        leader.proc.wait()
        at_kill = burst.done
        # as many again after the kill: half of them through the survivor
        wait_for(lambda: burst.done >= at_kill + 120, interval=0.05, what="writes after the kill")
    finally:
        burst.stop.set()
        for th in burst.threads:
            th.join()
    outcomes = [x[5].split()[0] for x in burst.log]
    acked = outcomes.count("ok")
    assert acked >= 60 and outcomes.count("unknown") + outcomes.count("refused") + acked == len(outcomes)
    vs = api(survivor)
    print(f"burst: {len(outcomes)} writes, {acked} acknowledged, {outcomes.count('refused')} refused, "
          f"{outcomes.count('unknown')} unknown")
    assert burst.lost(vs) == []
    assert burst.stale() == []
    # the survivor's own view agrees with etcd's
    keys = e.etcdctl("get", "--prefix", "--keys-only", "/registry/configmaps/burst/").split()
    assert sorted(k.rsplit("/", 1)[1] for k in keys) == sorted(
        c.metadata.name for c in vs.list_namespaced_config_map("burst").items)

    # the scheduler and the controllers resume on the survivor
    for n in ("kube-scheduler", "kube-controller-manager"):
        wait_for(lambda: holder(survivor, n).get("holderIdentity") in ids[survivor], what=f"{n} on the survivor")

    def scheduled(sel, n):
        ps = pods(survivor, "work", sel)
        return len(ps) == n and all(p["spec"].get("nodeName") == "hollow-1" for p in ps) and ps
    # the hollow node's "kubelet": deployment pods run, job pods succeed
    t = now()
    for p in wait_for(lambda: scheduled("app=web", 3), what="the Deployment's pods scheduled"):
        set_status(survivor, "work", p["metadata"]["name"], {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": t},
            {"type": "ContainersReady", "status": "True", "lastTransitionTime": t}]})
    for p in wait_for(lambda: scheduled("job-name=calc", 3), what="the Job's pods scheduled"):
        set_status(survivor, "work", p["metadata"]["name"], {
            "phase": "Succeeded", "containerStatuses": [{
                "name": "calc", "ready": False, "restartCount": 0, "image": "busybox", "imageID": "",
                "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": t, "finishedAt": t}}}]})

    def converged():
        d = survivor.kjson("-n", "work", "get", "deployment", "web")["status"]
        j = survivor.kjson("-n", "work", "get", "job", "calc")["status"]
        complete = any(c["type"] == "Complete" and c["status"] == "True" for c in j.get("conditions", []))
        return d.get("availableReplicas") == 3 and j.get("succeeded") == 3 and complete
    wait_for(converged, what="the Deployment available and the Job complete")
    assert survivor.proc.poll() is None
