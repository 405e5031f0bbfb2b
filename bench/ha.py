#!/usr/bin/env python3
"""HA figures (issue 20), one run, on loopback:

1. Failover: a 3-member etcd (Debian's etcd-server), two skiff servers on it
   (the second --join-from the first), one hollow node. kill -9 of the server
   holding kube-controller-manager's Lease, a Deployment created through the
   survivor right after: the time from the kill to the survivor holding the
   Lease, to its first controller action (the Deployment's ReplicaSet
   created) and to the first pod bound by its scheduler. Once with the
   tests' lease flags (4 s / 3 s / 1 s), once with upstream's defaults
   (15 s / 10 s / 2 s).
2. Durable creates/s and GETs/s over HTTPS (bench/api_wrk.sh: pod creates
   with 32 connections, GETs of one pod with 16) on etcd with 1 member, on
   etcd with 3 members and on SQLite, and etcd's own put rate (wrk POSTing
   a 700-byte value to member 0's /v3/kv/put, the path skiff's writes take;
   Debian has no etcd `benchmark` tool, and a loop of `etcdctl put` would
   measure process starts). The three stores are interleaved per round.

  /usr/bin/python3 bench/ha.py [build/skiff] [rounds] [seconds]
"""
import base64
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
os.environ.setdefault("SKIFF_BIN", os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/skiff"))

from kubernetes import client  # noqa: E402

from conftest import Cluster  # noqa: E402
from etcd_util import EtcdCluster  # noqa: E402
from test_ha import add_node, holder, identity  # noqa: E402

ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
SECS = int(sys.argv[3]) if len(sys.argv) > 3 else 5


def failover(flags):
    e = EtcdCluster().start()
    dirs = [tempfile.mkdtemp(prefix="skiff-ha-") for _ in range(2)]
    servers = []
    try:
        common = ["--no-agent", "--datastore-endpoint", "etcd://" + ",".join(e.endpoints),
                  "--node-monitor-grace-period", "3600"] + flags
        a = Cluster(dirs[0], common + ["--advertise-address", "127.0.0.2"])
        a.listen_host = "127.0.0.2"
        servers.append(a.start())
        b = Cluster(dirs[1], common + ["--advertise-address", "127.0.0.3", "--join-from", dirs[0]])
        b.listen_host, b.port = "127.0.0.3", a.port
        servers.append(b.start())
        add_node(a, "hollow-1")
        ids = {a: identity(a), b: identity(b)}
        while not holder(a, "kube-controller-manager").get("holderIdentity"):
            time.sleep(0.1)
        leader, survivor = (a, b) if holder(a, "kube-controller-manager")["holderIdentity"] in ids[a] else (b, a)
        apps, core = client.AppsV1Api(survivor.api_client()), client.CoreV1Api(survivor.api_client())
        coord = client.CoordinationV1Api(survivor.api_client())
        time.sleep(2)  # a renewal or two after the start
        t0 = time.monotonic()
        leader.proc.send_signal(signal.SIGKILL)
        leader.proc.wait()
        survivor.kubectl("create", "deployment", "after", "--image=registry.k8s.io/pause:3.10", "--replicas=1")
        got = {}
        while len(got) < 3 and time.monotonic() - t0 < 120:
            now = time.monotonic() - t0
            if "lease" not in got:
                h = coord.read_namespaced_lease("kube-controller-manager", "kube-system").spec.holder_identity
                if h in ids[survivor]:
                    got["lease"] = now
            if "controller" not in got and apps.list_namespaced_replica_set("default").items:
                got["controller"] = now
            if "scheduler" not in got and any(p.spec.node_name for p in core.list_namespaced_pod("default").items):
                got["scheduler"] = now
            time.sleep(0.02)
        return got
    finally:
        for c in servers:
            c.cleanup()
        e.cleanup()
        for d in dirs:
            subprocess.run(["rm", "-rf", d])


def wrk_rate(out, section):
    """Requests/sec of the section of api_wrk.sh's output that starts with section."""
    part = out.split(section, 1)[1]
    return float(re.search(r"Requests/sec:\s+([\d.]+)", part).group(1))


def etcd_put_rate(endpoint):
    body = json.dumps({"key": base64.b64encode(b"/bench/put").decode(),
                       "value": base64.b64encode(b"x" * 700).decode()})
    r = subprocess.run(["wrk", "-t2", "-c32", f"-d{SECS}s", "-s", "bench/wrk/etcd-put.lua", f"http://{endpoint}"],
                       env=dict(os.environ, WRK_BODY=body), capture_output=True, text=True, check=True)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", r.stdout).group(1))


def skiff_rates(store_args):
    r = subprocess.run(["bash", "bench/api_wrk.sh", os.environ["SKIFF_BIN"], "32", str(SECS)],
                       env=dict(os.environ, SKIFF_SERVER_ARGS=store_args), capture_output=True, text=True,
                       check=True)
    return wrk_rate(r.stdout, "== creates"), wrk_rate(r.stdout, "== GETs")


def throughput():
    one, three = EtcdCluster(1).start(), EtcdCluster(3).start()
    rows = []
    try:
        for rnd in range(ROUNDS):
            row = {"load": open("/proc/loadavg").read().split()[0]}
            for name, e in (("etcd1", one), ("etcd3", three)):
                row[name + "_put"] = etcd_put_rate(e.endpoints[0])
                row[name + "_create"], row[name + "_get"] = skiff_rates(
                    "--datastore-endpoint etcd://" + ",".join(e.endpoints) + f"/r{rnd}")
            row["sqlite_create"], row["sqlite_get"] = skiff_rates("")
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        one.cleanup()
        three.cleanup()
    return rows


def main():
    os.chdir(ROOT)
    for label, flags in (("4s/3s/1s", ["--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s",
                                       "--leader-elect-retry-period", "1s"]),
                         ("15s/10s/2s (defaults)", [])):
        got = failover(flags)
        print(f"failover, lease {label}: " + ", ".join(f"{k} {v:.2f} s" for k, v in got.items()), flush=True)
    rows = throughput()
    print("| round | load | etcd 1 member: puts/s | skiff creates/s (ratio) | GETs/s | etcd 3 members: puts/s "
          "| skiff creates/s (ratio) | GETs/s | SQLite: creates/s | GETs/s |")
    for i, r in enumerate(rows):
        print(f"| {i + 1} | {r['load']} | {r['etcd1_put']:,.0f} | {r['etcd1_create']:,.0f} "
              f"({r['etcd1_create'] / r['etcd1_put']:.0%}) | {r['etcd1_get']:,.0f} | {r['etcd3_put']:,.0f} | "
              f"{r['etcd3_create']:,.0f} ({r['etcd3_create'] / r['etcd3_put']:.0%}) | {r['etcd3_get']:,.0f} | "
              f"{r['sqlite_create']:,.0f} | {r['sqlite_get']:,.0f} |")


if __name__ == "__main__":
    main()
