#!/usr/bin/python3
"""Cold pull + unpack of a ~540 MB, 7-layer gzip image (bench/image_build.py)
from a loopback docker-registry: skiff against containerd 1.6 (Debian's
containerd, `ctr image pull --plain-http`, which fetches and then unpacks into
the overlayfs snapshotter), alternating, RUNS runs each, every run from an
empty store (a fresh skiff data dir; a fresh containerd root with its own
daemon). Before each run: sync and drop the page cache (when allowed), so
both read the registry's blobs from disk and start with no dirty pages.

Per run: "pull" is the command's wall time; "+sync" adds a sync(1)
right after, i.e. until what the pull wrote is on disk (containerd fsyncs
its blobs and metadata, skiff does not); "cpu" is the CPU time of the client
(skiff; ctr plus the containerd daemon) during the pull, steadier than wall
time on a loaded machine. The registry's CPU time and the load average are
printed with each run.

containerd runs as Debian installs it: without pigz, so Go's gzip
(CONTAINERD_DISABLE_PIGZ=1 makes that so even where pigz is installed). When
unpigz is installed, a third contender, "containerd+unpigz", lets containerd
decompress with it (its default when unpigz is in PATH).

    bench/image_bench.py [--runs N] [--skiff build/skiff] [--only skiff|containerd]
Needs root (containerd, overlay snapshots), docker-registry, skopeo, ctr.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
sys.path.insert(0, os.path.join(root, "tests", "images"))
from registry import Registry  # noqa: E402

REF_PATH = "big:1"


def drop_caches():
    subprocess.run(["sync"], check=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def proc_cpu(pid):
    """CPU seconds of a running process (all threads, and its waited-for children)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, daemon_pid=None):
    """Wall time of cmd, wall time until a sync after it finished, and the CPU
    seconds cmd (plus daemon_pid, the server doing the work) used."""
    c0 = children_cpu() + (proc_cpu(daemon_pid) if daemon_pid else 0)
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    t1 = time.monotonic()
    cpu = children_cpu() + (proc_cpu(daemon_pid) if daemon_pid else 0) - c0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stdout[-2000:]} {r.stderr[-2000:]}")
    subprocess.run(["sync"], check=True)
    return t1 - t0, time.monotonic() - t0, cpu, r


def mounts_under(path):
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f if line.split()[1].startswith(path)]


class Containerd:
    """containerd with a private config: its own root, state and socket under
    a temporary directory, no CRI plugin."""

    def __init__(self, parent, pigz=False):
        self.dir = tempfile.mkdtemp(prefix="ctrd-", dir=parent)
        self.sock = os.path.join(self.dir, "containerd.sock")
        cfg = os.path.join(self.dir, "config.toml")
        with open(cfg, "w") as f:
            f.write(f'''version = 2
root = "{self.dir}/root"
state = "{self.dir}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing"]
[grpc]
  address = "{self.sock}"
[ttrpc]
  address = "{self.sock}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
''')
        self.log = open(os.path.join(self.dir, "containerd.log"), "wb")
        # containerd decompresses with unpigz when it finds one in PATH (Debian's
        # containerd does not pull in pigz): off unless asked for
        env = dict(os.environ)
        if not pigz:
            env["CONTAINERD_DISABLE_PIGZ"] = "1"
        self.proc = subprocess.Popen(["containerd", "--config", cfg], stdout=self.log, env=env,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("containerd exited: " + open(self.log.name).read()[-3000:])
            if os.path.exists(self.sock) and subprocess.run(
                    ["ctr", "-a", self.sock, "version"], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("containerd did not start")

    def ctr(self, *args):
        return ["ctr", "-a", self.sock, "-n", "bench", *args]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for m in reversed(mounts_under(self.dir)):
            subprocess.run(["umount", "-l", m])
        shutil.rmtree(self.dir, ignore_errors=True)


def run_skiff(skiff, host, scratch, layers):
    data = tempfile.mkdtemp(prefix="skiff-", dir=scratch)
    try:
        dropped = drop_caches()
        pull, synced, cpu, r = timed([skiff, "image", "pull", "--data-dir", data, f"{host}/{REF_PATH}"])
        snaps = [s for s in os.listdir(os.path.join(data, "images", "snapshots")) if not s.startswith(".")]
        if len(snaps) != layers:
            raise RuntimeError(f"skiff: {len(snaps)} snapshots, want {layers}")
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        return pull, synced, cpu, dropped, last
    finally:
        shutil.rmtree(data, ignore_errors=True)


def run_containerd(host, scratch, layers, pigz=False):
    c = Containerd(scratch, pigz)
    try:
        dropped = drop_caches()
        pull, synced, cpu, _ = timed(c.ctr("image", "pull", "--plain-http", f"{host}/{REF_PATH}"), c.proc.pid)
        snaps = subprocess.run(c.ctr("snapshots", "ls"), capture_output=True, text=True, check=True).stdout
        n = sum(1 for line in snaps.splitlines()[1:] if "Committed" in line)
        if n != layers:
            raise RuntimeError(f"containerd: {n} committed snapshots, want {layers}:\n{snaps}")
        return pull, synced, cpu, dropped, ""
    finally:
        c.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "5")))
    ap.add_argument("--skiff", default=os.path.join(root, "build", "skiff"))
    ap.add_argument("--only", choices=["skiff", "containerd", "containerd+unpigz"])
    ap.add_argument("--no-pigz", action="store_true", help="skip containerd+unpigz")
    args = ap.parse_args()

    image = subprocess.run([sys.executable, os.path.join(here, "image_build.py")], check=True,
                           capture_output=True, text=True).stdout.strip()
    with open(os.path.join(image, "sizes.json")) as f:
        sizes = json.load(f)
    ver = subprocess.run(["containerd", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"image: {sizes['layers']} layers, {sizes['compressed'] / 1e6:.0f} MB gzip, "
          f"{sizes['unpacked_tar'] / 1e6:.0f} MB of tar ({image})")
    print(f"containerd: {ver}; skiff: {args.skiff}; {os.cpu_count()} CPUs")
    scratch = tempfile.mkdtemp(prefix="skiff-imgbench-")
    res = {"skiff": [], "containerd": []}
    who_all = ["skiff", "containerd"]
    if shutil.which("unpigz") and not args.no_pigz:
        res["containerd+unpigz"] = []
        who_all.append("containerd+unpigz")
    try:
        with Registry() as reg:
            reg.push(f"oci:{image}:1", REF_PATH)
            print(f"registry: {reg.host} (docker-registry, plain HTTP, loopback)")
            for i in range(args.runs):
                for who in who_all if i % 2 == 0 else reversed(who_all):
                    if args.only and who != args.only:
                        continue
                    with open("/proc/loadavg") as f:
                        load = f.read().split()[0]
                    r0 = proc_cpu(reg.proc.pid)
                    if who == "skiff":
                        p, s, cpu, dropped, note = run_skiff(args.skiff, reg.host, scratch, sizes["layers"])
                    else:
                        p, s, cpu, dropped, note = run_containerd(reg.host, scratch, sizes["layers"],
                                                                  pigz=who.endswith("unpigz"))
                    res[who].append((p, s, cpu))
                    print(f"run {i + 1} {who:17s} pull {p:6.2f}s  +sync {s:6.2f}s  cpu {cpu:5.2f}s  "
                          f"(registry cpu {proc_cpu(reg.proc.pid) - r0:4.2f}s, load {load})"
                          f"{'' if dropped else '  (page cache NOT dropped)'}  {note}", flush=True)
    finally:
        for m in reversed(mounts_under(scratch)):
            subprocess.run(["umount", "-l", m])
        shutil.rmtree(scratch, ignore_errors=True)
    med = {w: [statistics.median(x[k] for x in v) for k in range(3)] for w, v in res.items() if v}
    for w, (p, s, cpu) in med.items():
        print(f"median {w:17s} pull {p:6.2f}s  +sync {s:6.2f}s  cpu {cpu:5.2f}s  "
              f"({sizes['compressed'] / 1e6 / p:.0f} MB/s compressed)")
    for other in ("containerd", "containerd+unpigz"):
        if "skiff" in med and other in med:
            sk, ct = med["skiff"], med[other]
            print(f"ratio skiff/{other} (medians): pull {sk[0] / ct[0]:.2f}  +sync {sk[1] / ct[1]:.2f}  "
                  f"cpu {sk[2] / ct[2]:.2f}  (target: pull <= 0.50 against containerd)")


if __name__ == "__main__":
    main()
