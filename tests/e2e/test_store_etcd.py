"""skiff server on etcd (--datastore-endpoint etcd://...): kubectl and the
Python client create, read, update, delete, page and watch as on SQLite,
the objects lie in etcd under upstream's keys (/registry/<resource>/<ns>/<name>,
read back with etcdctl), resourceVersion is etcd's mod_revision, and an etcd
outage fails writes with a 503 until etcd is back."""
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from conftest import SKIFF, SLOW, Cluster
from etcd_util import Etcd, openssl


@pytest.fixture(scope="module")
def env():
    e = Etcd().start()
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent", "--datastore-endpoint", f"etcd://{e.endpoint}"]).start()
    yield c, e
    c.cleanup()
    e.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def etcd_kv(e, key):
    out = json.loads(e.etcdctl("get", key, "-w", "json"))
    return out.get("kvs", [None])[0]


def test_crud_conflicts_and_key_layout(env):
    c, e = env
    c.kubectl("create", "configmap", "cm1", "--from-literal=a=1")
    obj = c.kjson("get", "configmap", "cm1")
    stored = json.loads(e.etcdctl("get", "/registry/configmaps/default/cm1", "--print-value-only"))
    assert stored["data"] == {"a": "1"} and stored["metadata"]["uid"] == obj["metadata"]["uid"]
    kv = etcd_kv(e, "/registry/configmaps/default/cm1")
    assert obj["metadata"]["resourceVersion"] == str(kv["mod_revision"])
    keys = e.etcdctl("get", "--prefix", "/registry/namespaces/", "--keys-only").split()
    assert "/registry/namespaces/default" in keys and "/registry/namespaces/kube-system" in keys

    v1 = client.CoreV1Api(c.api_client())
    stale = v1.read_namespaced_config_map("cm1", "default")
    c.kubectl("patch", "configmap", "cm1", "-p", '{"data":{"a":"2"}}')
    stale.data = {"a": "3"}
    with pytest.raises(ApiException) as ei:
        v1.replace_namespaced_config_map("cm1", "default", stale)
    assert ei.value.status == 409
    body = json.loads(ei.value.body)
    assert body["reason"] == "Conflict"
    assert body["message"] == ('Operation cannot be fulfilled on configmaps "cm1": the object has been modified; '
                               "please apply your changes to the latest version and try again")
    with pytest.raises(ApiException) as ei:
        v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm1")))
    assert ei.value.status == 409 and json.loads(ei.value.body)["reason"] == "AlreadyExists"
    fresh = v1.read_namespaced_config_map("cm1", "default")
    assert fresh.data == {"a": "2"}
    fresh.data = {"a": "4"}
    updated = v1.replace_namespaced_config_map("cm1", "default", fresh)
    assert updated.metadata.resource_version == str(etcd_kv(e, "/registry/configmaps/default/cm1")["mod_revision"])

    c.kubectl("delete", "configmap", "cm1")
    assert etcd_kv(e, "/registry/configmaps/default/cm1") is None
    r = c.kubectl("get", "configmap", "cm1", check=False)
    assert r.returncode != 0 and 'configmaps "cm1" not found' in r.stderr


def test_pagination_and_watch(env):
    c, e = env
    v1 = client.CoreV1Api(c.api_client())
    c.kubectl("create", "namespace", "pg")
    for i in range(7):
        v1.create_namespaced_config_map("pg", client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"p{i}")))
    names, cont, rvs = [], None, set()
    while True:
        page = v1.list_namespaced_config_map("pg", limit=3, _continue=cont)
        names += [m.metadata.name for m in page.items if m.metadata.name != "kube-root-ca.crt"]
        rvs.add(page.metadata.resource_version)
        cont = page.metadata._continue
        if not cont:
            break
    assert names == [f"p{i}" for i in range(7)]
    assert len(rvs) == 1  # every page is read at the first page's revision
    out = c.kubectl("get", "configmaps", "-n", "pg", "--chunk-size=2", "-o", "name").stdout.split()
    assert [n for n in out if n != "configmap/kube-root-ca.crt"] == [f"configmap/p{i}" for i in range(7)]

    # Writes first, then a watch from before them replays them in order.
    rv = v1.list_namespaced_config_map("pg").metadata.resource_version
    v1.create_namespaced_config_map("pg", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w"), data={"k": "1"}))
    v1.patch_namespaced_config_map("w", "pg", {"data": {"k": "2"}})
    v1.delete_namespaced_config_map("w", "pg")
    seen = []
    for ev in watch.Watch().stream(v1.list_namespaced_config_map, "pg", resource_version=rv, timeout_seconds=30):
        seen.append((ev["type"], ev["object"].metadata.name, (ev["object"].data or {}).get("k")))
        if ev["type"] == "DELETED":
            break
    assert seen == [("ADDED", "w", "1"), ("MODIFIED", "w", "2"), ("DELETED", "w", "2")]


def test_shared_etcd_writes_outside_the_root(env):
    """A server under a root of a shared etcd: other clients' writes raise etcd's revision
    without an event on this server's watch; consistent reads, conflicts and creates of
    an existing name still answer (they used to wait for that revision and time out)."""
    _, e = env
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent", "--datastore-endpoint", f"etcd://{e.endpoint}/tenant-a"]).start()
    try:
        v1 = client.CoreV1Api(c.api_client())
        cm = v1.create_namespaced_config_map("default", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="shared"), data={"k": "1"}))
        assert etcd_kv(e, "/tenant-a/registry/configmaps/default/shared") is not None
        for i in range(3):
            e.etcdctl("put", f"/elsewhere/k{i}", "v")
            got = v1.read_namespaced_config_map("shared", "default")  # a consistent read
            assert got.data == {"k": "1"}
            assert int(got.metadata.resource_version) < int(json.loads(
                e.etcdctl("get", "/elsewhere/k0", "-w", "json"))["header"]["revision"])
        # an update from a stale resourceVersion: 409 Conflict, then one from the current one
        v1.patch_namespaced_config_map("shared", "default", {"data": {"k": "2"}})
        e.etcdctl("put", "/elsewhere/k9", "v")
        cm.data = {"k": "3"}
        with pytest.raises(ApiException) as ei:
            v1.replace_namespaced_config_map("shared", "default", cm)
        assert ei.value.status == 409 and json.loads(ei.value.body)["reason"] == "Conflict"
        cur = v1.read_namespaced_config_map("shared", "default")
        cur.data = {"k": "3"}
        assert v1.replace_namespaced_config_map("shared", "default", cur).data == {"k": "3"}
        e.etcdctl("put", "/elsewhere/k10", "v")
        r = c.kubectl("create", "configmap", "shared", check=False)
        assert r.returncode != 0 and 'configmaps "shared" already exists' in r.stderr
        assert c.kjson("get", "configmap", "shared")["data"] == {"k": "3"}
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def test_outage_and_restart(env):
    c, e = env
    c.kubectl("create", "configmap", "before")
    e.stop()
    r = c.kubectl("create", "configmap", "during", check=False)
    assert r.returncode != 0
    assert "etcdserver: request timed out" in r.stderr
    v1 = client.CoreV1Api(c.api_client())
    with pytest.raises(ApiException) as ei:
        v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="during")))
    body = json.loads(ei.value.body)
    assert ei.value.status == 503 and body["reason"] == "ServiceUnavailable"
    assert body["message"] == "etcdserver: request timed out"
    # readiness says so, with the failing check named and its reason withheld
    r = c.kubectl("get", "--raw", "/readyz?verbose", check=False)
    assert r.returncode != 0 and "[-]etcd failed: reason withheld" in r.stderr + r.stdout
    assert 'kubernetes_healthcheck{name="etcd",type="readyz"} 0' in c.kubectl(
        "get", "--raw", "/metrics/slis").stdout
    # a read without a resourceVersion is a consistent one (upstream's quorum read): it fails too;
    # resourceVersion=0 is served from the state the watch keeps, as from upstream's watch cache
    with pytest.raises(ApiException) as ei:
        v1.read_namespaced_config_map("before", "default")
    assert ei.value.status == 503 and json.loads(ei.value.body)["message"] == "etcdserver: request timed out"
    assert "before" in [x.metadata.name for x in v1.list_namespaced_config_map("default", resource_version="0").items]
    e.start()
    deadline = time.time() + 30
    while c.kubectl("create", "configmap", "after", check=False).returncode != 0:
        assert time.time() < deadline, "skiff did not recover once etcd was back"
        time.sleep(0.1)
    assert c.kubectl("get", "--raw", "/readyz").stdout == "ok"
    # A restarted server finds everything in etcd, nothing in its data directory.
    c.stop()
    c.start()
    names = c.kubectl("get", "configmaps", "-o", "name").stdout.split()
    assert "configmap/before" in names and "configmap/after" in names


def test_snapshot_save(env):
    c, e = env
    path = os.path.join(e.dir, "snap.db")
    r = subprocess.run([SKIFF, "etcd-snapshot", "save", "--datastore-endpoint", f"etcd://{e.endpoint}", path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"Snapshot saved at {path}"
    status = json.loads(e.etcdctl("snapshot", "status", path, "-w", "json"))
    assert status["totalKey"] > 0 and status["revision"] > 0
    # etcdctl restores it (it checks the SHA-256 etcd appends)
    e.etcdctl("snapshot", "restore", path, "--data-dir", os.path.join(e.dir, "restored"))
    assert os.path.isdir(os.path.join(e.dir, "restored", "member"))
    r = subprocess.run([SKIFF, "etcd-snapshot", "save", "--datastore-endpoint", "etcd://127.0.0.1:1", path + "2"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "etcdserver: request timed out" in r.stderr
    assert not os.path.exists(path + "2") and not os.path.exists(path + "2.part")


def test_https_with_client_certificates():
    """etcd with --client-cert-auth: the server talks https with --datastore-cafile/certfile/keyfile."""
    e = Etcd(tls=True).start()
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = Cluster(d, ["--no-agent", "--datastore-endpoint", f"etcd://{e.endpoint}", "--datastore-cafile", e.ca,
                    "--datastore-certfile", e.cert, "--datastore-keyfile", e.key])
    try:
        c.start()
        c.kubectl("create", "configmap", "tls", "--from-literal=k=v")
        stored = json.loads(e.etcdctl("get", "/registry/configmaps/default/tls", "--print-value-only"))
        assert stored["data"] == {"k": "v"}
        assert c.kjson("get", "configmap", "tls")["data"] == {"k": "v"}
        # the TLS connection (GnuTLS's, relayed to gRPC) is made again once etcd is back
        e.stop()
        r = c.kubectl("create", "configmap", "during", check=False)
        assert r.returncode != 0 and "etcdserver: request timed out" in r.stderr
        e.start()
        deadline = time.time() + 30 * SLOW
        while c.kubectl("create", "configmap", "after", check=False).returncode != 0:
            assert time.time() < deadline, "skiff did not reconnect to etcd over TLS"
            time.sleep(0.1)
        assert c.kjson("get", "configmap", "tls")["data"] == {"k": "v"}
        # etcd's certificate not signed by the CA given: refused, and the error says why
        other = os.path.join(e.dir, "other-ca")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", other + ".key", "-out", other + ".crt",
                "-days", "1", "-subj", "/CN=other-ca")
        bad = Cluster(tempfile.mkdtemp(prefix="skiff-e2e-"), ["--no-agent", "--datastore-endpoint",
                                                               f"etcd://{e.endpoint}", "--datastore-cafile",
                                                               other + ".crt", "--datastore-certfile", e.cert,
                                                               "--datastore-keyfile", e.key])
        with pytest.raises(RuntimeError) as ei:
            bad.start(timeout=30)
        assert "etcd's certificate is refused" in str(ei.value) and "issuer is unknown" in str(ei.value)
        bad.cleanup()
        shutil.rmtree(bad.data_dir, ignore_errors=True)
        # without the client certificate etcd refuses the connection: the server does not start
        bad = Cluster(tempfile.mkdtemp(prefix="skiff-e2e-"), ["--no-agent", "--datastore-endpoint",
                                                               f"etcd://{e.endpoint}", "--datastore-cafile", e.ca])
        with pytest.raises(RuntimeError) as ei:
            bad.start(timeout=30)
        assert "etcdserver: request timed out" in str(ei.value)
        bad.cleanup()
        shutil.rmtree(bad.data_dir, ignore_errors=True)
    finally:
        c.cleanup()
        e.cleanup()
        shutil.rmtree(d, ignore_errors=True)
