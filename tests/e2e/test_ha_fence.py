"""A leader cut off from etcd stops leading before another server can take
its Leases (kube-controller-manager's and kube-scheduler's renew deadline,
client-go's leader election): server A reaches etcd through a relay that
the test stops (a partition: connections stay open, no byte arrives
either way, so A's lease writes hang rather than fail), server B reaches
etcd directly. A logs "stopped leading" for both Leases before B logs
"successfully acquired" them; once the relay carries bytes again A stays a
follower and the cluster works through either server; when B stops, A
leads again and its controllers write again. Hollow, no agents."""
import datetime
import re
import select
import shutil
import socket
import tempfile
import threading

import pytest

from conftest import Cluster
from etcd_util import Etcd
from test_agent_cluster import wait_for
from test_ha import holder as lease_spec, identity as identities

# renew deadline 4 s, lease 8 s: B takes over no sooner than 4 s after A must have stopped
LE_FLAGS = ["--leader-elect-lease-duration", "8s", "--leader-elect-renew-deadline", "4s",
            "--leader-elect-retry-period", "1s"]
LEASES = ("kube-controller-manager", "kube-scheduler")


class Relay:
    """TCP from a loopback port to etcd's; while closed it carries nothing."""

    def __init__(self, port):
        self.port_to = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.carrying = threading.Event()
        self.carrying.set()
        self.done = False
        self.socks = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.done:
            try:
                c, _ = self.listener.accept()
                u = socket.create_connection(("127.0.0.1", self.port_to))
            except OSError:
                return
            self.socks += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    def pipe(self, src, dst):
        try:
            while not self.done:
                if not self.carrying.wait(0.1):
                    continue
                if not select.select([src], [], [], 0.1)[0] or not self.carrying.is_set():
                    continue
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.done = True
        self.listener.close()
        for s in self.socks:
            s.close()


def holder(c, name):
    return lease_spec(c, name).get("holderIdentity", "")


def log_times(c, pattern):
    """When the server logged lines matching pattern (its klog-style stamps)."""
    with open(c.log_path, errors="replace") as f:
        text = f.read()
    year = datetime.date.today().year
    return [datetime.datetime.strptime(f"{year}{m.group(1)}", "%Y%m%d %H:%M:%S.%f")
            for m in re.finditer(r"^[IWE](\d{4} \d\d:\d\d:\d\d\.\d{6}) " + pattern, text, re.M)]


def elector_lines(c):
    with open(c.log_path, errors="replace") as f:
        return "".join(line for line in f if "leaderelection" in line or "ctrl]" in line)


@pytest.fixture
def fenced():
    e = Etcd().start()
    relay = Relay(e.port)
    da, db = tempfile.mkdtemp(prefix="skiff-e2e-"), tempfile.mkdtemp(prefix="skiff-e2e-")
    common = ["--no-agent", "--node-monitor-grace-period", "3600"] + LE_FLAGS
    a = Cluster(da, common + ["--datastore-endpoint", f"etcd://127.0.0.1:{relay.port}",
                              "--advertise-address", "127.0.0.2"])
    a.listen_host = "127.0.0.2"
    b = Cluster(db, common + ["--datastore-endpoint", f"etcd://{e.endpoint}", "--advertise-address", "127.0.0.3",
                              "--join-from", da])
    b.listen_host = "127.0.0.3"
    try:
        a.start()
        wait_for(lambda: all(holder(a, n) in identities(a) for n in LEASES), 30, what="A leading")
        b.port = a.port
        b.start()
        yield a, b, relay
    finally:
        relay.carrying.set()
        for c in (a, b):
            c.cleanup()
        relay.close()
        e.cleanup()
        shutil.rmtree(da, ignore_errors=True)
        shutil.rmtree(db, ignore_errors=True)


def test_partitioned_leader_stops_before_the_other_takes_over(fenced):
    a, b, relay = fenced
    ids_a, ids_b = identities(a), identities(b)
    relay.carrying.clear()
    for n in LEASES:
        wait_for(lambda: holder(b, n) in ids_b, 60, what=f"B holding {n}")
    for n in LEASES:
        stopped = log_times(a, rf"leaderelection\] \S+ stopped leading kube-system/{n}$")
        acquired = log_times(b, rf"leaderelection\] successfully acquired lease kube-system/{n}$")
        assert stopped and acquired, (n, elector_lines(a), elector_lines(b))
        assert stopped[-1] < acquired[-1], (n, stopped, acquired)
        assert log_times(a, rf"leaderelection\] failed to renew lease kube-system/{n}: timed out")

    relay.carrying.set()
    # A answers again and stays a follower; B's controllers and scheduler serve both
    a.kubectl("create", "deployment", "after-partition", "--image=registry.k8s.io/pause:3.10", "--replicas=2")
    wait_for(lambda: len(b.kjson("get", "pods", "-l", "app=after-partition")["items"]) == 2, 60,
             what="the Deployment's pods, made by B's controllers")
    wait_for(lambda: len(a.kjson("get", "pods", "-l", "app=after-partition")["items"]) == 2, 30,
             what="the pods seen through A")
    for n in LEASES:
        assert holder(a, n) in ids_b
    taken = [t for n in LEASES for t in log_times(a, rf"leaderelection\] successfully acquired lease kube-system/{n}$")]
    assert len(taken) == 2, a.log()      # each Lease once, at the start
    assert not ids_a & ids_b

    # B stops (releasing its Leases): A leads again, its clients open again
    b.stop()
    for n in LEASES:
        wait_for(lambda: holder(a, n) in ids_a, 30, what=f"A holding {n} again")
    a.kubectl("scale", "deployment", "after-partition", "--replicas=3")
    wait_for(lambda: len(a.kjson("get", "pods", "-l", "app=after-partition")["items"]) == 3, 60,
             what="a third pod, made by A's controllers")
