"""A control plane plus a separate `skiff agent` process with real containers.

The agent gets its own run directory, bridge and pod CIDR, and the busybox
test images (tests/images/build.sh) imported into its image store as
busybox:1 (root, cmd sh) and busybox:2 (user 1000). Skipped without root
or the runtime tools."""
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

from conftest import Cluster, ROOT, SKIFF, SLOW

pytestmark = pytest.mark.agents


def have_tools():
    return (os.geteuid() == 0 and shutil.which("conmon") and (shutil.which("crun") or shutil.which("runc"))
            and os.path.exists("/usr/lib/cni/bridge") and os.path.exists("/bin/busybox"))


def images_dir():
    out = subprocess.run(["bash", os.path.join(ROOT, "tests", "images", "build.sh")], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def wait_for(fn, timeout=60, interval=0.25, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class AgentCluster(Cluster):
    def __init__(self, data_dir, node="e2e-node", backoff_ms=1000):
        super().__init__(data_dir, ["--no-agent"])
        self.node = node
        self.backoff_ms = backoff_ms
        self.agent_proc = None
        self.agent_dir = os.path.join(data_dir, "agent")
        tag = "%06x" % random.randrange(1 << 24)
        self.run_dir = f"/run/skiff-e2e-{tag}"
        self.bridge = f"ske{tag}"
        self.pod_cidr = f"10.{random.randrange(100, 200)}.{random.randrange(0, 250)}.0/24"
        self.agent_log = os.path.join(data_dir, "agent.log")
        self.pod_uids = set()
        self.agent_extra = ["--container-log-max-size", "16Ki", "--container-log-max-files", "3"]
        self.agent_env = None  # the agent's environment (None: this process's)

    def import_images(self):
        d = images_dir()
        for archive in ("busybox-oci.tar", "app-oci.tar"):
            subprocess.run([SKIFF, "image", "import", "--data-dir", self.agent_dir, os.path.join(d, archive),
                            "--name", "busybox"], check=True, capture_output=True)

    def start_agent(self, timeout=30):
        log = open(self.agent_log, "ab")
        self.agent_proc = subprocess.Popen(
            [SKIFF, "agent", "--server", f"https://127.0.0.1:{self.port}",
             "--token", "@" + os.path.join(self.data_dir, "node-token"),
             "--ca-file", os.path.join(self.data_dir, "tls", "ca.crt"),
             "--data-dir", self.agent_dir, "--run-dir", self.run_dir, "--bridge", self.bridge,
             "--pod-cidr", self.pod_cidr, "--node-name", self.node,
             "--backoff-base-ms", str(self.backoff_ms)] + self.agent_extra,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=self.agent_env)

        def ready():
            if self.agent_proc.poll() is not None:
                raise RuntimeError("skiff agent exited: " + self.agent_logs())
            r = self.kubectl("get", "node", self.node, "-o", "json", check=False)
            if r.returncode != 0:
                return False
            conds = json.loads(r.stdout).get("status", {}).get("conditions", [])
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)
        wait_for(ready, timeout, what="node Ready")
        return self

    def stop_agent(self, sig=signal.SIGTERM):
        if self.agent_proc and self.agent_proc.poll() is None:
            self.agent_proc.send_signal(sig)
            try:
                self.agent_proc.wait(30 * SLOW)
            except subprocess.TimeoutExpired:
                os.killpg(self.agent_proc.pid, signal.SIGKILL)
                self.agent_proc.wait()
        self.agent_proc = None

    def agent_logs(self):
        try:
            with open(self.agent_log, errors="replace") as f:
                return f.read()[-6000:]
        except OSError:
            return ""

    def apply(self, manifest):
        return self.kubectl("apply", "-f", "-", input=manifest)

    def pod(self, name):
        p = self.kjson("get", "pod", name)
        self.pod_uids.add(p["metadata"]["uid"])
        return p

    def wait_pod(self, name, pred, timeout=60, what=None):
        def check():
            r = self.kubectl("get", "pod", name, "-o", "json", check=False)
            if r.returncode != 0:
                return False
            p = json.loads(r.stdout)
            self.pod_uids.add(p["metadata"]["uid"])
            try:
                return p if pred(p) else False
            except (KeyError, IndexError):
                return False
        try:
            return wait_for(check, timeout, what=what or f"pod {name}")
        except AssertionError:
            r = self.kubectl("get", "pod", name, "-o", "json", check=False)
            raise AssertionError(f"pod {name}: {what}\n{r.stdout[-3000:]}\nagent log:\n{self.agent_logs()}")

    def wait_phase(self, name, phase, timeout=60):
        return self.wait_pod(name, lambda p: p.get("status", {}).get("phase") == phase, timeout,
                             what=f"phase {phase}")

    def delete_all_pods(self, timeout=90):
        # controllers first, or they re-create the pods while the agent is being stopped
        self.kubectl("delete", "cronjobs,jobs,deployments,replicasets,daemonsets", "--all", "--wait=false", check=False)
        self.kubectl("delete", "pods", "--all", "--wait=false", check=False)
        wait_for(lambda: not self.kjson("get", "pods")["items"], timeout, what="pods gone")

    def leftovers(self):
        """Mounts, netns, cgroups and veths of pods that should be gone."""
        found = []
        with open("/proc/self/mountinfo") as f:
            for line in f:
                target = line.split()[4]
                if target.startswith(self.run_dir + "/") or target.startswith(self.agent_dir + "/pods"):
                    found.append("mount " + target)
        for sub in ("netns", "ipc", "uts"):
            d = os.path.join(self.run_dir, sub)
            if os.path.isdir(d):
                found += [f"{sub} {n}" for n in os.listdir(d)]
        r = subprocess.run(["ip", "-o", "link", "show", "master", self.bridge], capture_output=True, text=True)
        found += ["veth " + l.split(":")[1].strip() for l in r.stdout.splitlines() if l.strip()]
        for root, dirs, _ in os.walk("/sys/fs/cgroup"):
            for d in dirs:
                if d.startswith("pod") and d[3:] in self.pod_uids:
                    found.append("cgroup " + os.path.join(root, d))
            if root.count("/") > 6:
                dirs[:] = []
        return found

    def cleanup(self):
        try:
            if self.agent_proc and self.proc:
                self.delete_all_pods()
                # pods force-deleted from the API are still being torn down by the
                # agent; stopping it now would leave their containers running
                sandboxes = os.path.join(self.run_dir, "sandboxes")
                wait_for(lambda: not os.path.isdir(sandboxes) or not os.listdir(sandboxes), 60, interval=0.5,
                         what="sandboxes removed")
        except Exception:
            pass
        self.stop_agent()
        kill_orphans(self.run_dir)
        super().cleanup()
        with open("/proc/self/mountinfo") as f:
            targets = [l.split()[4] for l in f if l.split()[4].startswith((self.run_dir, self.agent_dir))]
        for t in sorted(targets, reverse=True):
            subprocess.run(["umount", "-l", t], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        # an agent stopped with pods left (killed -9 by a test that then failed) keeps its Services table
        subprocess.run(["nft", "delete", "table", "ip", f"skiff-{self.bridge}"], capture_output=True)
        shutil.rmtree(self.run_dir, ignore_errors=True)


def kill_orphans(run_dir):
    """Ends the containers of an agent that can no longer tear them down (one
    killed -9 by a test that then failed): every conmon whose command line
    names run_dir, the container under it, and their now empty cgroups."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if not argv or not argv[0].endswith(b"conmon") or run_dir.encode() not in b" ".join(argv):
            continue
        victims = [pid]
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                victims += f.read().split()
        except OSError:
            pass
        cgroups = set()
        for v in victims[1:]:
            try:
                with open(f"/proc/{v}/cgroup") as f:
                    for line in f:
                        _, ctrl, path = line.rstrip("\n").split(":", 2)
                        cgroups.add((ctrl, path))
            except OSError:
                pass
        for v in reversed(victims):
            try:
                os.kill(int(v), signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)
        for ctrl, path in cgroups:
            if "kubepods" not in path:
                continue
            v2 = "unified" if os.path.isdir("/sys/fs/cgroup/unified") else ""
            names = [c.split("=")[-1] for c in ctrl.split(",")] if ctrl else [v2]
            for name in names:
                # the container's cgroup, then its pod's when that is empty too
                for p in (path, os.path.dirname(path)):
                    try:
                        os.rmdir(f"/sys/fs/cgroup/{name}{p}")
                    except OSError:
                        pass


@contextlib.contextmanager
def running_cluster(prefix, cls=None, setup=None, **kw):
    """A started server and agent (cls, default AgentCluster, made with kw) with
    the test images imported, in a fresh directory; setup(c) runs before the
    start. Skips without the runtime tools; cleans up after."""
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    d = tempfile.mkdtemp(prefix=prefix)
    c = (cls or AgentCluster)(d, **kw)
    if setup:
        setup(c)
    try:
        c.start()
        c.import_images()
        c.start_agent()
        yield c
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def agent_cluster():
    with running_cluster("skiff-e2e-agent-") as c:
        yield c


def test_node_inventory(agent_cluster):
    c = agent_cluster
    out = c.kubectl("get", "nodes", "-o", "custom-columns=NAME:.metadata.name,RUNTIME:.status.nodeInfo."
                    "containerRuntimeVersion,OS:.status.nodeInfo.osImage,KUBELET:.status.nodeInfo.kubeletVersion").stdout
    line = [l for l in out.splitlines() if l.startswith(c.node)][0]
    assert "v1.32.0" in line
    assert "crun://" in line or "runc://" in line
    node = c.kjson("get", "node", c.node)
    st = node["status"]
    for k in ("cpu", "memory", "ephemeral-storage", "pods"):
        assert k in st["capacity"] and k in st["allocatable"]
    info = st["nodeInfo"]
    for k in ("machineID", "bootID", "systemUUID", "kernelVersion", "osImage", "containerRuntimeVersion",
              "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"):
        assert k in info
    assert info["architecture"] == "amd64" and info["operatingSystem"] == "linux"
    types = {cd["type"]: cd for cd in st["conditions"]}
    assert types["Ready"]["status"] == "True" and types["Ready"]["reason"] == "KubeletReady"
    assert types["MemoryPressure"]["reason"] == "KubeletHasSufficientMemory"
    assert st["daemonEndpoints"]["kubeletEndpoint"]["Port"] > 0
    labels = node["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == c.node and labels["kubernetes.io/os"] == "linux"
    assert any("docker.io/library/busybox:1" in n for im in st["images"] for n in im["names"])
    assert node["spec"]["podCIDR"] == c.pod_cidr
    # the node thread creates the Lease beside the registration (as kubelet): wait for it
    wait_for(lambda: c.kubectl("get", "lease", "-n", "kube-node-lease", c.node, check=False).returncode == 0, 30,
             what="the node's Lease")
    lease = c.kjson("get", "lease", "-n", "kube-node-lease", c.node)
    assert lease["spec"]["holderIdentity"] == c.node and lease["spec"]["renewTime"]


def test_python_client_reads_node_and_pods(agent_cluster):
    from kubernetes import client
    v1 = client.CoreV1Api(agent_cluster.api_client())
    node = v1.read_node(agent_cluster.node)
    assert node.status.node_info.kubelet_version == "v1.32.0"
    v1.list_namespaced_pod("default")
