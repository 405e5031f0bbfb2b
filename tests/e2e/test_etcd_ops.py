"""etcd operations: `skiff etcd-snapshot restore` brings a saved cluster back
into a new etcd member with every key at its revision, and `skiff migrate
--from sqlite DIR --to etcd://…` moves a stopped SQLite cluster into etcd with
every object's uid and the order of the resourceVersions kept; a server on
etcd with the same data directory (its PKI) serves it all."""
import base64
import json
import os
import shutil
import subprocess
import tempfile

import pytest
from kubernetes import client

from conftest import SKIFF, Cluster
from etcd_util import Etcd
from test_agent_cluster import wait_for

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.ops.example.com"},
    "spec": {"group": "ops.example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}
WIDGET = {"apiVersion": "ops.example.com/v1", "kind": "Widget", "metadata": {"name": "w1", "namespace": "ops"},
          "spec": {"size": 3}}
# kinds no controller writes once they are made (the test's own objects)
STILL = ("ConfigMap", "Secret", "Namespace", "Widget")


def moving(o):
    """Objects a server rewrites on its own, so their resourceVersions move
    between a test's list and the server's stop: its identity Lease, the
    scheduler's Events about a pending pod, and default/kubernetes's endpoints
    it takes itself out of when it stops (as kube-apiserver does)."""
    return o[0] in ("Event", "Lease") or (o[0] in ("Endpoints", "EndpointSlice") and o[1].startswith("default/"))


def skiff(*args):
    return subprocess.run([SKIFF] + list(args), capture_output=True, text=True, timeout=120)


@pytest.fixture
def dirs():
    made = []

    def mk(prefix):
        made.append(tempfile.mkdtemp(prefix=prefix))
        return made[-1]
    yield mk
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def populate(c, replicas):
    """Namespaces, a ConfigMap, a Secret, a Deployment (its ReplicaSet made),
    a CRD and a custom object."""
    c.kubectl("create", "namespace", "ops")
    c.kubectl("create", "namespace", "ops2")
    c.kubectl("-n", "ops", "create", "configmap", "cm", "--from-literal=k=v")
    c.kubectl("-n", "ops2", "create", "secret", "generic", "sec", "--from-literal=password=s3cret")
    c.kubectl("-n", "ops", "create", "deployment", "web", "--image=busybox", f"--replicas={replicas}")
    c.kubectl("apply", "-f", "-", input=json.dumps(CRD))
    wait_for(lambda: c.kubectl("get", "widgets", "-A", check=False).returncode == 0, timeout=30, what="CRD served")
    c.kubectl("apply", "-f", "-", input=json.dumps(WIDGET))
    wait_for(lambda: rs_of(c), timeout=30, what="the Deployment's ReplicaSet")
    c.kubectl("-n", "ops", "create", "configmap", "last", "--from-literal=k=v")


def rs_of(c):
    return c.kjson("-n", "ops", "get", "replicasets", "-l", "app=web")["items"]


def objects(c):
    """Every object the API lists, by uid: (kind, namespace/name, resourceVersion)."""
    api = c.api_client()

    def get(path):
        return api.call_api(path, "GET", response_type="object", auth_settings=["BearerToken"],
                            _return_http_data_only=True, _preload_content=True)
    paths = ["/api/v1"] + ["/apis/" + g["preferredVersion"]["groupVersion"] for g in get("/apis")["groups"]]
    out = {}
    for gv in paths:
        for r in get(gv)["resources"]:
            if "/" in r["name"] or "list" not in r["verbs"]:
                continue
            for o in get(f"{gv}/{r['name']}")["items"]:
                m = o["metadata"]
                out[m["uid"]] = (r["kind"], f"{m.get('namespace', '')}/{m['name']}", int(m["resourceVersion"]))
    return out


def etcd_state(e):
    """Every key under /registry: key -> (mod_revision, value)."""
    kvs = json.loads(e.etcdctl("get", "--prefix", "/registry", "-w", "json")).get("kvs", [])
    return {base64.b64decode(kv["key"]).decode(): (int(kv["mod_revision"]), base64.b64decode(kv["value"]))
            for kv in kvs}


def order(objs, uids):
    return sorted(uids, key=lambda u: objs[u][2])


def test_snapshot_restore(dirs):
    d, work = dirs("skiff-e2e-"), dirs("skiff-e2e-ops-")
    e = Etcd().start()
    e2 = Etcd()
    c = Cluster(d, ["--no-agent", "--datastore-endpoint", f"etcd://{e.endpoint}"])
    try:
        c.start()
        populate(c, replicas=0)
        before = objects(c)
        c.stop()
        keys = etcd_state(e)
        snap = os.path.join(work, "snap.db")
        r = skiff("etcd-snapshot", "save", "--datastore-endpoint", f"etcd://{e.endpoint}", snap)
        assert r.returncode == 0, r.stderr
        e.stop()

        r = skiff("etcd-snapshot", "restore", "--help")
        assert r.returncode == 0 and "skiff etcd-snapshot restore FILE --data-dir DIR" in r.stdout
        assert skiff("etcd-snapshot", "restore", snap).returncode == 2  # no --data-dir
        assert skiff("etcd-snapshot", "restore", snap, "--data-dir", work, "--bogus").returncode == 2
        r = skiff("etcd-snapshot", "restore", snap + ".missing", "--data-dir", os.path.join(work, "m"))
        assert r.returncode == 1
        assert r.stderr.strip() == (f'skiff: etcd-snapshot restore: snapshot "{snap}.missing": '
                                    "No such file or directory")
        r = skiff("etcd-snapshot", "restore", snap, "--data-dir", work)
        assert r.returncode == 1 and f'data directory "{work}" exists and is not empty' in r.stderr
        bad = os.path.join(work, "bad.db")
        with open(bad, "wb") as f:
            f.write(os.urandom(64 << 10))
        r = skiff("etcd-snapshot", "restore", bad, "--data-dir", os.path.join(work, "bad"))
        # etcdctl's own message, relayed; nothing left behind
        assert r.returncode == 1
        assert r.stderr.strip() == (f'skiff: etcd-snapshot restore: etcdctl snapshot restore "{bad}": '
                                    "snapshot missing hash but --skip-hash-check=false")
        assert sorted(os.listdir(work)) == ["bad.db", "snap.db"]

        peer = f"http://127.0.0.1:{e2.peer}"
        e2.data = os.path.join(work, "restored")
        os.mkdir(e2.data)  # an empty directory will do
        r = skiff("etcd-snapshot", "restore", snap, "--data-dir", e2.data, "--name", "default",
                  "--initial-cluster", f"default={peer}", "--initial-advertise-peer-urls", peer)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == f"Snapshot {snap} restored into {e2.data} (member default)"
        e2.start()
        # every key back at its revision with its value
        assert etcd_state(e2) == keys

        c.extra[c.extra.index(f"etcd://{e.endpoint}")] = f"etcd://{e2.endpoint}"
        c.start()
        after = objects(c)
        assert set(before) <= set(after)
        # served as they were; those no controller rewrites with their resourceVersion
        assert all(after[u][:2] == before[u][:2] for u in before if not moving(before[u]))
        for kind in STILL:
            mine = [u for u, o in before.items() if o[0] == kind and "ops" in o[1]]
            assert mine and all(after[u] == before[u] for u in mine), kind
        assert c.kjson("-n", "ops2", "get", "secret", "sec")["data"] == {
            "password": base64.b64encode(b"s3cret").decode()}
        assert c.kjson("-n", "ops", "get", "widget", "w1")["spec"] == {"size": 3}
        c.kubectl("get", "all", "-A")
    finally:
        c.cleanup()
        e.cleanup()
        e2.cleanup()


def test_migrate_sqlite_to_etcd(dirs):
    d = dirs("skiff-e2e-")
    e = Etcd().start()
    # explicitly SQLite, also under make e2e-etcd
    c = Cluster(d, ["--no-agent", "--datastore-endpoint", f"sqlite://{d}"])
    to = f"etcd://{e.endpoint}"
    try:
        c.start()
        populate(c, replicas=1)
        # the pending pod's scheduling attempt is recorded before the list
        wait_for(lambda: any(cd["type"] == "PodScheduled" for p in c.kjson("-n", "ops", "get", "pods")["items"]
                             for cd in p.get("status", {}).get("conditions", [])), timeout=30, what="PodScheduled")
        before = objects(c)
        rs = rs_of(c)
        r = skiff("migrate", "--from", "sqlite", d, "--to", to)
        assert r.returncode == 1
        assert f'skiff: migrate: "{d}" is in use: its server still runs' in r.stderr
        c.stop()

        r = skiff("migrate", "--help")
        assert r.returncode == 0 and "--from sqlite DIR" in r.stdout
        assert skiff("migrate", "--from", "sqlite", d).returncode == 2
        assert skiff("migrate", "--from", "mysql", d, "--to", to).returncode == 2
        assert skiff("migrate", "--from", "sqlite", d, "--to", "http://x").returncode == 2
        r = skiff("migrate", "--from", "sqlite", os.path.join(d, "tls"), "--to", to)
        assert r.returncode == 1 and "no state.db" in r.stderr
        assert "migrate " in skiff("--help").stdout

        r = skiff("migrate", "--from", "sqlite", d, "--to", to)
        assert r.returncode == 0, r.stderr
        n = len(etcd_state(e))
        assert f"migrate: {n}/{n} objects copied (" in r.stderr
        assert r.stdout.startswith(f"Migrated {n} objects from {d} (SQLite revision ")
        state = etcd_state(e)
        by_uid = {}
        for key, (rev, val) in state.items():
            try:
                by_uid[json.loads(val)["metadata"]["uid"]] = rev
            except (ValueError, KeyError, TypeError):
                pass  # allocator bitmaps, master leases: no object metadata
        assert set(before) <= set(by_uid)
        steady = [u for u, o in before.items() if not moving(o)]
        assert len(steady) > 40
        assert sorted(steady, key=by_uid.get) == order(before, steady)
        stored = json.loads(state["/registry/secrets/ops2/sec"][1])
        assert base64.b64decode(stored["data"]["password"]) == b"s3cret"
        assert stored["metadata"]["resourceVersion"] == ""

        r = skiff("migrate", "--from", "sqlite", d, "--to", to)
        assert r.returncode == 1
        assert f"the target is not empty ({n} keys)" in r.stderr and "--force" in r.stderr
        assert len(etcd_state(e)) == n
        # another ROOT of the same etcd is another, empty target
        r = skiff("migrate", "--from", "sqlite", d, "--to", to + "/second")
        assert r.returncode == 0 and r.stdout.startswith(f"Migrated {n} objects"), r.stderr
        assert len(e.etcdctl("get", "--prefix", "/second/registry/", "--keys-only").split()) == n

        # the same data directory (CA, keys, tokens) with the store on etcd
        c.extra[c.extra.index(f"sqlite://{d}")] = to
        c.start()
        after = objects(c)
        assert set(before) <= set(after)
        still = [u for u in steady if before[u][0] in STILL]
        assert order(after, still) == order(before, still)
        assert c.kjson("-n", "ops2", "get", "secret", "sec")["data"] == {
            "password": base64.b64encode(b"s3cret").decode()}
        assert c.kjson("-n", "ops", "get", "widget", "w1")["metadata"]["uid"] == next(
            u for u, o in before.items() if o[0] == "Widget")
        for kind in ("ConfigMap", "Namespace", "Deployment", "CustomResourceDefinition", "Pod"):
            assert any(o[0] == kind for o in after.values())
        # the controllers work on the ReplicaSet they had: scaled, not made anew
        c.kubectl("-n", "ops", "scale", "deployment", "web", "--replicas=2")
        wait_for(lambda: [(x["metadata"]["uid"], x["spec"]["replicas"]) for x in rs_of(c)] ==
                 [(rs[0]["metadata"]["uid"], 2)], timeout=60, what="the ReplicaSet scaled")
        v1 = client.CoreV1Api(c.api_client())
        assert v1.read_namespaced_config_map("cm", "ops").data == {"k": "v"}
        c.kubectl("get", "all", "-A")
        c.kubectl("get", "crd,widgets,configmaps,secrets,namespaces", "-A")
    finally:
        c.cleanup()
        e.cleanup()
