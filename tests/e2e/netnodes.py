"""Many nodes on one machine: extra "hosts" in network namespaces.

NetNodes(tag, k, n) makes, for i in 0..n-1, a network namespace
skn-<tag>-<i> joined by a veth pair to the test bridge skb-<tag> in the
host's namespace. The bridge has 172.30.<k>.1/24; host i has
172.30.<k>.<i+2>/24 on its eth0 and a default route via the bridge address,
so the hosts reach each other and the host at L2 (the host-gw routes between
nodes need nothing more). Agents enter the namespace with `nsenter --net`
rather than `ip netns exec`: the latter mounts a fresh /sys without the
cgroup hierarchies the runtime needs.

multi_node_cluster(n) starts on top of it a `skiff server` listening on the
bridge address (its embedded agent is a node with --node-ip 172.30.<k>.1, in
the host's namespace) and a `skiff agent` in each namespace that joins it
with the K10 token of DIR/node-token alone (the CA comes from /cacerts), each
with its own data dir, run dir and pod bridge; the cluster CIDR is a random
10.<a>.0.0/16, so each node gets a /24 of it from the node IPAM controller.
The busybox test images are imported into every node as busybox:1.

Leaving the context removes everything: pods deleted and their sandboxes
gone, agents stopped (they remove their routes, pod bridge and nftables
table when idle), the server stopped, namespaces, veths and the bridge
deleted, and then asserts that nothing is left: no namespace, link, route of
proto 152 into the cluster CIDR, or nftables table of an agent's bridge.
Run under flock /tmp/skiff-agent-e2e.lock (it starts containers)."""
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import Cluster, SKIFF, SLOW
from test_agent_cluster import have_tools, images_dir, wait_for

ROUTE_PROTO = "152"
# what a sanitizer build (SKIFF_BIN=build/skiff-asan or -tsan) writes on a finding
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "WARNING: ThreadSanitizer")


def sh(*args, check=True, netns=None):
    cmd = (["ip", "netns", "exec", netns] if netns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def nft_tables(netns=None):
    r = sh("nft", "list", "tables", check=False, netns=netns)
    return [l.split()[-1] for l in r.stdout.splitlines() if l.startswith("table")]


class NetNodes:
    """n network namespaces on the bridge skb-<tag> (see the module doc), and
    `remote` more on a second bridge skb-<tag>r (172.30.<k+1>.1/24, hosts
    172.30.<k+1>.<i+2>): those reach the others only through the host's
    routing, with no L2 adjacency (the VXLAN case)."""

    def __init__(self, tag, k, n, remote=0):
        self.tag, self.k, self.n = tag, k, n
        self.bridge = f"skb-{tag}"
        self.gateway = f"172.30.{k}.1"
        self.bridges = {self.bridge: self.gateway}
        self.hosts = [{"netns": f"skn-{tag}-{i}", "veth": f"skv-{tag}-{i}", "ip": f"172.30.{k}.{i + 2}",
                       "bridge": self.bridge, "gateway": self.gateway} for i in range(n)]
        if remote:
            self.bridges[self.bridge + "r"] = f"172.30.{k + 1}.1"
        self.hosts += [{"netns": f"skn-{tag}-{n + i}", "veth": f"skv-{tag}-{n + i}", "ip": f"172.30.{k + 1}.{i + 2}",
                        "bridge": self.bridge + "r", "gateway": f"172.30.{k + 1}.1"} for i in range(remote)]

    def create(self):
        for br, gw in self.bridges.items():
            sh("ip", "link", "add", br, "type", "bridge")
            sh("ip", "addr", "add", f"{gw}/24", "dev", br)
            sh("ip", "link", "set", br, "up")
        for h in self.hosts:
            sh("ip", "netns", "add", h["netns"])
            sh("ip", "link", "add", h["veth"], "type", "veth", "peer", "name", "eth0", "netns", h["netns"])
            sh("ip", "link", "set", h["veth"], "master", h["bridge"], "up")
            sh("ip", "link", "set", "lo", "up", netns=h["netns"])
            sh("ip", "addr", "add", f"{h['ip']}/24", "dev", "eth0", netns=h["netns"])
            sh("ip", "link", "set", "eth0", "up", netns=h["netns"])
            sh("ip", "route", "add", "default", "via", h["gateway"], netns=h["netns"])
        return self

    def destroy(self):
        for h in self.hosts:
            sh("ip", "netns", "del", h["netns"], check=False)
            sh("ip", "link", "del", h["veth"], check=False)
        for br in self.bridges:
            sh("ip", "link", "del", br, check=False)

    def leftovers(self):
        found = []
        r = sh("ip", "netns", "list", check=False)
        found += ["netns " + l.split()[0] for l in r.stdout.splitlines() if l.startswith(f"skn-{self.tag}-")]
        r = sh("ip", "-o", "link", "show", check=False)
        for l in r.stdout.splitlines():
            name = l.split(":")[1].strip().split("@")[0]
            if name in self.bridges or name.startswith(f"skv-{self.tag}-"):
                found.append("link " + name)
        return found


class NodeAgent:
    """A `skiff agent` in a network namespace."""

    def __init__(self, root, name, host, tag, i):
        self.name = name
        self.netns = host["netns"]
        self.ip = host["ip"]
        self.data_dir = os.path.join(root, name)
        self.run_dir = f"/run/skiff-e2e-{tag}-{i}"
        self.bridge = f"skp{tag}{i}"
        self.log_path = os.path.join(root, f"{name}.log")
        self.proc = None
        self.returncode = None

    def start(self, server_url, token, extra=()):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{self.netns}", SKIFF, "agent", "--server", server_url, "--token", token,
             "--data-dir", self.data_dir, "--run-dir", self.run_dir, "--bridge", self.bridge,
             "--node-name", self.name, "--backoff-base-ms", "1000"] + list(extra),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def stop(self, sig=signal.SIGTERM):
        """Stops the agent; its exit status (0 after a clean SIGTERM) stays in .returncode."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30 * SLOW)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc:
            self.returncode = self.proc.returncode
        self.proc = None

    def sanitizer_reports(self):
        log = self.log()
        return [m for m in SANITIZER_MARKS if m in log]

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-6000:]
        except OSError:
            return ""

    def routes(self, cidr=None):
        """Routes of proto 152 in the node's namespace: {dst: via}."""
        return routes(self.netns, cidr)

    def sandboxes(self):
        d = os.path.join(self.run_dir, "sandboxes")
        return os.listdir(d) if os.path.isdir(d) else []


def routes(netns=None, cidr=None):
    r = sh("ip", "-j", "route", "show", "proto", ROUTE_PROTO, check=False, netns=netns)
    out = {}
    for rt in json.loads(r.stdout or "[]"):
        if cidr is None or in_cidr(rt["dst"], cidr):
            out[rt["dst"]] = rt.get("gateway")
    return out


def force_clean(run_dir, data_dir):
    """Removes what a stopped agent left in its run and data dirs (it died,
    or it stopped with pods): its containers (killed through crun), their
    conmon processes and the mounts; returns what it found."""
    found = []
    crun = os.path.join(run_dir, "bin", "crun-hybrid")
    crun = [crun] if os.access(crun, os.X_OK) else ["crun"]
    root = os.path.join(run_dir, "oci", "crun")
    if os.path.isdir(root):
        for cid in sh(*crun, "--root", root, "list", "-q", check=False).stdout.split():
            found.append(f"container {cid}")
            sh(*crun, "--root", root, "kill", cid, "KILL", check=False)
            sh(*crun, "--root", root, "delete", "-f", cid, check=False)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if os.path.basename(argv[0]) == "conmon" and any(x.startswith(run_dir + "/") for x in argv):
            found.append(f"conmon {pid}")
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    with open("/proc/self/mountinfo") as f:
        targets = [l.split()[4] for l in f if l.split()[4].startswith((run_dir + "/", data_dir + "/"))]
    for t in sorted(targets, reverse=True):
        found.append("mount " + t)
        subprocess.run(["umount", "-l", t], capture_output=True)
    return found


def fnv1a(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def agent_hash(data_dir):
    """The FNV-1a hash an agent names its default run dir and bridge by."""
    return fnv1a(os.path.realpath(data_dir))


def in_cidr(dst, cidr):
    import ipaddress
    try:
        return ipaddress.ip_network(dst, strict=False).subnet_of(ipaddress.ip_network(cidr))
    except (ValueError, TypeError):
        return False


class MultiNodeCluster:
    """A server (with an embedded agent on the bridge address) and n agents
    in network namespaces; see the module doc."""

    def __init__(self, root, n, server_extra=(), spare=0, remote=0, cluster_prefix=16):
        self.root = root
        self.tag = "%05x" % random.randrange(1 << 20)
        self.k = random.randrange(16, 250)
        self.cluster_cidr = f"10.{random.randrange(100, 200)}.0.0/{cluster_prefix}"
        self.net = NetNodes(self.tag, self.k, n + spare, remote)
        self.server_node = f"srv-{self.tag}"
        self.server = Cluster(os.path.join(root, "server"),
                              ["--node-name", self.server_node, "--node-ip", self.net.gateway,
                               "--cluster-cidr", self.cluster_cidr] + list(server_extra))
        self.server.listen_host = self.net.gateway
        every = [NodeAgent(root, f"n{i}-{self.tag}", h, self.tag, i) for i, h in enumerate(self.net.hosts)]
        self.agents, self.spares = every[:n] + every[n + spare:], every[n:n + spare]
        self.pod_uids = set()

    @property
    def nodes(self):
        return [self.server_node] + [a.name for a in self.agents]

    def kubectl(self, *args, **kw):
        return self.server.kubectl(*args, **kw)

    def kjson(self, *args):
        return self.server.kjson(*args)

    def url(self):
        return f"https://{self.net.gateway}:{self.server.port}"

    def token(self):
        with open(os.path.join(self.server.data_dir, "node-token")) as f:
            return f.read().strip()

    def import_images(self, data_dir):
        d = images_dir()
        for archive in ("busybox-oci.tar", "app-oci.tar"):
            subprocess.run([SKIFF, "image", "import", "--data-dir", data_dir, os.path.join(d, archive),
                            "--name", "busybox"], check=True, capture_output=True)

    def start(self, waiting=0):
        """Starts the server, then each agent in turn once the node before it
        is Ready with a pod CIDR (so they get the cluster CIDR's /24s in
        order); for the last `waiting` agents only until their Node exists
        (a test of a full range)."""
        self.net.create()
        # the embedded agent's store is DIR/agent: images before it starts
        self.import_images(os.path.join(self.server.data_dir, "agent"))
        self.server.start()
        self.wait_ready(self.server_node)
        for i, a in enumerate(self.agents):
            self.import_images(a.data_dir)
            a.start(self.url(), self.token())
            if i < len(self.agents) - waiting:
                self.wait_ready(a.name)
            else:
                wait_for(lambda: self.kubectl("get", "node", a.name, check=False).returncode == 0, 60,
                         what=f"node {a.name} registered")
        return self

    def agent(self, name):
        return next(a for a in self.agents + self.spares if a.name == name)

    def spare_agent(self, i):
        """An agent of a spare host, not started (tests start it; cleanup stops it)."""
        a = self.spares[i]
        if not os.path.isdir(a.data_dir):
            self.import_images(a.data_dir)
        return a

    def logs(self):
        return "\n".join(f"--- {a.name}\n{a.log()}" for a in self.agents + self.spares) + "\n--- server\n" + self.server.log()

    def wait_ready(self, node, timeout=60):
        def ready():
            for a in self.agents + self.spares:
                if a.name == node and a.proc and a.proc.poll() is not None:
                    raise AssertionError(f"agent {node} exited:\n{a.log()}")
            r = self.kubectl("get", "node", node, "-o", "json", check=False)
            if r.returncode != 0:
                return False
            n = json.loads(r.stdout)
            conds = n.get("status", {}).get("conditions", [])
            return n.get("spec", {}).get("podCIDR") and any(c["type"] == "Ready" and c["status"] == "True" for c in conds)
        try:
            wait_for(ready, timeout, what=f"node {node} Ready with a pod CIDR")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.logs()}")

    def wait_pod(self, name, pred, timeout=90, what="condition"):
        def check():
            r = self.kubectl("get", "pod", name, "-o", "json", check=False)
            if r.returncode != 0:
                return False
            p = json.loads(r.stdout)
            self.pod_uids.add(p["metadata"]["uid"])
            return p if pred(p) else False
        try:
            return wait_for(check, timeout, what=f"pod {name}: {what}")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.logs()}")

    def wait_running(self, name, timeout=90):
        return self.wait_pod(name, lambda p: p.get("status", {}).get("phase") == "Running"
                             and p["status"].get("podIP"), timeout, "Running with a pod IP")

    def delete_pods(self, timeout=90):
        """Deletes the workloads and pods of every namespace (again while a
        controller being deleted still makes new ones), with a short grace."""
        self.kubectl("delete", "cronjobs,jobs,deployments,replicasets,daemonsets", "--all",
                     "--all-namespaces", "--wait=false", check=False)

        t0 = time.monotonic()

        def gone():
            if not self.kjson("get", "pods", "--all-namespaces")["items"]:
                return True
            # after a while (an agent that died never confirms) from the API alone;
            # force_clean then removes their containers
            force = time.monotonic() - t0 > timeout / 2
            self.kubectl("delete", "pods", "--all", "--all-namespaces", "--wait=false",
                         *(["--force", "--grace-period=0"] if force else ["--grace-period=1"]), check=False)
            return False
        wait_for(gone, timeout, interval=1, what="pods gone")

    def leftovers(self):
        found = ["host route %s via %s" % kv for kv in routes(None, self.cluster_cidr).items()]
        bridges = [a.bridge for a in self.agents + self.spares] + [self.server_bridge()]
        found += ["nft table " + t for t in nft_tables() if t in {f"skiff-{b}" for b in bridges}]
        found += self.net.leftovers()
        found += ["vxlan " + d for d in self.vxlan_devices()]
        for a in self.agents + self.spares:
            if os.path.isdir(a.run_dir) and a.sandboxes():
                found.append(f"sandboxes of {a.name}: {a.sandboxes()}")
        return found

    def server_bridge(self):
        return "sk%08x" % agent_hash(os.path.join(self.server.data_dir, "agent"))

    def server_run_dir(self):
        return "/run/skiff-%08x" % agent_hash(os.path.join(self.server.data_dir, "agent"))

    def cleanup(self):
        errors = []
        try:
            if self.server.proc:
                self.delete_pods()
                # a running agent removes its pods' sandboxes (force_clean the others')
                dirs = [os.path.join(a.run_dir, "sandboxes") for a in self.agents + self.spares
                        if a.proc and a.proc.poll() is None]
                dirs.append(os.path.join(self.server_run_dir(), "sandboxes"))
                wait_for(lambda: all(not os.path.isdir(d) or not os.listdir(d) for d in dirs), 60, interval=0.5,
                         what="sandboxes removed")
        except Exception as e:  # noqa: BLE001 - cleanup goes on
            errors.append(f"deleting pods: {e}\n{self.kubectl('get', 'pods', '-A', '-o', 'wide', check=False).stdout}\n{self.logs()}")
        for a in self.agents + self.spares:
            if a.proc:
                left = a.routes()
                a.stop()
                if a.returncode != 0:
                    errors.append(f"agent {a.name} exited with {a.returncode}:\n{a.log()}")
                after = routes(a.netns) if left else {}
                if after:
                    errors.append(f"routes left in {a.netns} after its agent stopped: {after}")
                if f"skiff-{a.bridge}" in nft_tables(a.netns):
                    errors.append(f"nft table of {a.name} left")
        for a in self.agents + self.spares:
            for thing in force_clean(a.run_dir, a.data_dir):
                errors.append(f"{a.name} left {thing}")
        for a in self.agents + self.spares:
            if a.sanitizer_reports():
                errors.append(f"sanitizer report of {a.name}:\n{a.log()}")
        rc = self.server.stop()
        if rc not in (0, None):
            errors.append(f"server exited with {rc}:\n{self.server.log()}")
        if any(m in self.server.log() for m in SANITIZER_MARKS):
            errors.append(f"sanitizer report of the server:\n{self.server.log()}")
        self.server.cleanup()
        for thing in force_clean(self.server_run_dir(), os.path.join(self.server.data_dir, "agent")):
            errors.append(f"the server's agent left {thing}")
        # what the server's agent left (a failure) is reported, then removed
        for dst, via in routes(None, self.cluster_cidr).items():
            errors.append(f"host route {dst} via {via} left after the server stopped")
            sh("ip", "route", "del", dst, "via", via, "proto", ROUTE_PROTO, check=False)
        for dev in self.vxlan_devices():
            errors.append(f"VXLAN device {dev} left after the server stopped")
            sh("ip", "link", "del", dev, check=False)
        self.net.destroy()
        for a in self.agents + self.spares:
            shutil.rmtree(a.run_dir, ignore_errors=True)
        return errors

    def vxlan_devices(self):
        """The VXLAN devices of this cluster's agents in the host's namespace."""
        bridges = [a.bridge for a in self.agents + self.spares] + [self.server_bridge()]
        vx = {"skvx%08x" % fnv1a(b) for b in bridges}
        r = sh("ip", "-o", "link", "show", "type", "vxlan", check=False)
        names = [l.split(":")[1].strip().split("@")[0] for l in r.stdout.splitlines()]
        return [n for n in names if n in vx]


@contextlib.contextmanager
def multi_node_cluster(n=2, server_extra=(), spare=0, remote=0, cluster_prefix=16, waiting=0):
    """A started MultiNodeCluster of the server's node and n namespace nodes
    (and `spare` namespaces whose agents a test starts itself, and `remote`
    nodes on a second bridge, last in .agents); asserts on exit that it left
    nothing behind. cluster_prefix sizes the cluster CIDR; the last `waiting`
    agents are not waited for to be Ready (see MultiNodeCluster.start)."""
    if not have_tools() or not shutil.which("nft"):
        pytest.skip("needs root, conmon, crun/runc, CNI plugins, nft and busybox")
    root = tempfile.mkdtemp(prefix="skiff-e2e-nodes-")
    c = MultiNodeCluster(root, n, server_extra, spare, remote, cluster_prefix)
    ok = False
    try:
        c.start(waiting)
        yield c
        ok = True
    finally:
        errors = c.cleanup()
        left = c.leftovers()
        shutil.rmtree(root, ignore_errors=True)
        if ok:
            assert not errors, errors
            assert not left, f"left behind: {left}"
