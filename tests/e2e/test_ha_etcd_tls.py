"""One skiff server on a 3-member etcd cluster over TLS (client and peer
certificates from one CA, --client-cert-auth), given the three endpoints
with --datastore-cafile/certfile/keyfile. While clients keep writing
ConfigMaps (and one reads a ConfigMap), kill -9 of member 0 (the server's
first endpoint), then, with it back, of member 1: writes keep being
acknowledged and reads answered, a watch opened before keeps delivering
every acknowledged write, no acknowledged write is lost (a write under way
on the killed member is an unknown outcome, never made twice) and the
server stays up. A wrong CA: the server exits at start naming the
endpoint and why etcd's certificate is refused. No nodes."""
import json
import os
import shutil
import tempfile
import threading
import time

import pytest
from kubernetes import client, watch

from conftest import SLOW, Cluster
from etcd_util import EtcdCluster, openssl
from test_agent_cluster import wait_for
from test_ha_quorum import Burst, api


@pytest.fixture(scope="module")
def tls_ha():
    e = EtcdCluster(tls=True)
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    c = None
    try:
        e.start()
        c = Cluster(d, ["--no-agent", "--datastore-endpoint", "etcd://" + ",".join(e.endpoints),
                        "--datastore-cafile", e.ca, "--datastore-certfile", e.cert, "--datastore-keyfile", e.key, "-v"])
        c.start(timeout=60)
        yield c, e
    finally:
        if c:
            c.cleanup()
        e.cleanup()
        shutil.rmtree(d, ignore_errors=True)


class TimedBurst(Burst):
    """Burst's writers, each acknowledged write also kept with its time."""

    def __init__(self, servers, threads):
        self.acks = []  # (monotonic time, op, name, value)
        super().__init__(servers, threads)

    def record(self, *entry):
        super().record(*entry)
        t, seq, op, name, value, outcome = entry
        if outcome == "ok":
            with self.mu:
                self.acks.append((time.monotonic(), op, name, value))


class Reader:
    """A thread reading one ConfigMap without a resourceVersion (a
    consistent read: etcd's current revision first), each answer kept with
    its time (None when it succeeded, else the error)."""

    def __init__(self, v, ns, name):
        self.reads, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self.run, args=(v, ns, name))
        self.thread.start()

    def run(self, v, ns, name):
        while not self.stop.is_set():
            try:
                v.read_namespaced_config_map(name, ns, _request_timeout=30 * SLOW)
                self.reads.append((time.monotonic(), None))
            except Exception as x:
                self.reads.append((time.monotonic(), getattr(x, "body", None) or repr(x)))


class Watcher:
    """A watch on the namespace from resourceVersion rv, every event kept as
    (name, value) (value None for a deletion)."""

    def __init__(self, v, ns, rv):
        self.seen, self.error = set(), None
        self.w = watch.Watch()
        self.thread = threading.Thread(target=self.run, args=(v, ns, rv), daemon=True)
        self.thread.start()

    def run(self, v, ns, rv):
        try:
            for ev in self.w.stream(v.list_namespaced_config_map, ns, resource_version=rv,
                                    timeout_seconds=int(600 * SLOW)):
                o = ev["object"]
                self.seen.add((o.metadata.name, None if ev["type"] == "DELETED" else (o.data or {}).get("v")))
        except Exception as x:  # the assertions below name it
            self.error = repr(x)
        if not self.error:
            self.error = "the watch ended"

    def has(self, op, name, value):
        return (name, None if op == "delete" else value) in self.seen


def test_member_kills_during_writes_over_tls(tls_ha):
    c, e = tls_ha
    v = api(c)
    v.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="burst")))
    rv = v.list_namespaced_config_map("burst").metadata.resource_version
    w = Watcher(v, "burst", rv)
    v.create_namespaced_config_map("burst", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="probe"),
                                                               data={"v": "p"}))
    r = Reader(v, "burst", "probe")
    b = TimedBurst([c], threads=2)
    failover, led = [], []
    try:
        for t in b.threads:
            t.start()
        wait_for(lambda: len(b.acks) >= 20, timeout=60, interval=0.05, what="writes before the kills")
        for victim in (0, 1):
            st = json.loads(e.etcdctl("endpoint", "status", "-w", "json"))[victim]["Status"]
            led.append(st["header"]["member_id"] == st["leader"])
            t0 = time.monotonic()
            e.kill(victim)
            after = lambda: [a for a in list(b.acks) if a[0] > t0]
            wait_for(lambda: len(after()) >= 10, timeout=60, interval=0.05,
                     what=f"writes acknowledged after killing etcd member {victim}")
            failover.append(after()[0][0] - t0)
            wait_for(lambda: any(t > t0 and not x for t, x in list(r.reads)), timeout=60, interval=0.05,
                     what=f"a read after killing member {victim}")
            # the watch opened before the kill delivers writes made after it
            wait_for(lambda: all(w.has(*a[1:]) for a in after()[:10]) or w.error, timeout=60, interval=0.05,
                     what=f"watch events after killing member {victim}")
            assert not w.error, w.error
            e.start(victim)
            e.wait_healthy(range(3))
            assert c.proc.poll() is None, c.log()
        n = len(b.acks)
        wait_for(lambda: len(b.acks) >= n + 10, timeout=60, interval=0.05, what="writes with all members back")
    finally:
        b.stop.set()
        r.stop.set()
        for t in b.threads + [r.thread]:
            t.join()
    # every acknowledged write: in the store with its last value, and seen by the watch
    lost, stale = b.lost(v), b.stale()
    names = {x[0] for x in lost + stale}
    assert lost == [] and stale == [], (lost, stale, [x for x in sorted(b.log) if x[3] in names])
    wait_for(lambda: all(w.has(*a[1:]) for a in b.acks) or w.error, timeout=60, interval=0.1,
             what="every acknowledged write seen by the watch")
    missing = [a for a in b.acks if not w.has(*a[1:])]
    assert not missing, (w.error, missing[:5])
    w.w.stop()  # (a daemon thread: if an assertion stops the test first, the server's end ends it)
    # the writers' loop took the failovers in its stride
    outcomes = [entry[-1] for entry in b.log]
    assert outcomes.count("ok") == len(b.acks) >= 40, outcomes
    print(f"failover (kill -9 to the first acknowledged write): "
          f"{['%.2f s%s' % (f, ' (leader)' if l else '') for f, l in zip(failover, led)]}, "
          f"{len(b.acks)} writes acknowledged, {len(outcomes) - len(b.acks)} not; "
          f"{len(r.reads)} reads, failed: {[x[-200:] for t, x in r.reads if x]}")
    assert c.proc.poll() is None, c.log()
    with open(c.log_path, errors="replace") as f:
        log = f.read()
    assert "AddressSanitizer" not in log and "runtime error:" not in log, log[-4000:]


def test_wrong_ca_names_the_endpoint(tls_ha):
    c, e = tls_ha
    other = os.path.join(e.dir, "other-ca")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", other + ".key", "-out", other + ".crt",
            "-days", "1", "-subj", "/CN=other-ca")
    d = tempfile.mkdtemp(prefix="skiff-e2e-")
    bad = Cluster(d, ["--no-agent", "--datastore-endpoint", "etcd://" + ",".join(e.endpoints),
                      "--datastore-cafile", other + ".crt", "--datastore-certfile", e.cert,
                      "--datastore-keyfile", e.key])
    try:
        t0 = time.monotonic()
        with pytest.raises(RuntimeError) as ei:
            bad.start(timeout=60)
        msg = str(ei.value)
        assert "skiff server exited" in msg, msg
        for ep in e.endpoints:  # each endpoint's refusal logged
            assert f"etcd at {ep}: TLS: etcd's certificate is refused" in msg, msg
        assert "issuer is unknown" in msg, msg
        print(f"wrong CA: exited after {time.monotonic() - t0:.1f} s")
    finally:
        bad.cleanup()
        shutil.rmtree(d, ignore_errors=True)
