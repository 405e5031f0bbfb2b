#!/usr/bin/python3
"""Cold pull + unpack of a ~540 MB, 7-layer gzip image (bench/image_build.py)
from a loopback docker-registry: skiff against containerd 1.6 (Debian's
containerd, `ctr image pull --plain-http`, which fetches and then unpacks into
the overlayfs snapshotter), alternating, RUNS runs each, every run from an
empty store (a fresh skiff data dir; a fresh containerd root with its own
daemon). Before each run: sync and drop the page cache (when allowed), so
both read the registry's blobs from disk and start with no dirty pages.

Two times per run: "pull" is the command's wall time; "+sync" adds a sync(1)
right after, i.e. until what the pull wrote is on disk (containerd fsyncs
its blobs and metadata, skiff does not).

    bench/image_bench.py [--runs N] [--skiff build/skiff] [--only skiff|containerd]
Needs root (containerd, overlay snapshots), docker-registry, skopeo, ctr.
"""
import argparse
import json
import os
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


def timed(cmd, **kw):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    t1 = time.monotonic()
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stdout[-2000:]} {r.stderr[-2000:]}")
    subprocess.run(["sync"], check=True)
    return t1 - t0, time.monotonic() - t0, r


def mounts_under(path):
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f if line.split()[1].startswith(path)]


class Containerd:
    """containerd with a private config: its own root, state and socket under
    a temporary directory, no CRI plugin."""

    def __init__(self, parent):
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
        self.proc = subprocess.Popen(["containerd", "--config", cfg], stdout=self.log,
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
        pull, synced, r = timed([skiff, "image", "pull", "--data-dir", data, f"{host}/{REF_PATH}"])
        snaps = [s for s in os.listdir(os.path.join(data, "images", "snapshots")) if not s.startswith(".")]
        if len(snaps) != layers:
            raise RuntimeError(f"skiff: {len(snaps)} snapshots, want {layers}")
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        return pull, synced, dropped, last
    finally:
        shutil.rmtree(data, ignore_errors=True)


def run_containerd(host, scratch, layers):
    c = Containerd(scratch)
    try:
        dropped = drop_caches()
        pull, synced, _ = timed(c.ctr("image", "pull", "--plain-http", f"{host}/{REF_PATH}"))
        snaps = subprocess.run(c.ctr("snapshots", "ls"), capture_output=True, text=True, check=True).stdout
        n = sum(1 for line in snaps.splitlines()[1:] if "Committed" in line)
        if n != layers:
            raise RuntimeError(f"containerd: {n} committed snapshots, want {layers}:\n{snaps}")
        return pull, synced, dropped, ""
    finally:
        c.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "5")))
    ap.add_argument("--skiff", default=os.path.join(root, "build", "skiff"))
    ap.add_argument("--only", choices=["skiff", "containerd"])
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
    try:
        with Registry() as reg:
            reg.push(f"oci:{image}:1", REF_PATH)
            print(f"registry: {reg.host} (docker-registry, plain HTTP, loopback)")
            for i in range(args.runs):
                for who in ("skiff", "containerd") if i % 2 == 0 else ("containerd", "skiff"):
                    if args.only and who != args.only:
                        continue
                    if who == "skiff":
                        p, s, dropped, note = run_skiff(args.skiff, reg.host, scratch, sizes["layers"])
                    else:
                        p, s, dropped, note = run_containerd(reg.host, scratch, sizes["layers"])
                    res[who].append((p, s))
                    print(f"run {i + 1} {who:10s} pull {p:6.2f}s  +sync {s:6.2f}s"
                          f"{'' if dropped else '  (page cache NOT dropped)'}  {note}", flush=True)
    finally:
        for m in reversed(mounts_under(scratch)):
            subprocess.run(["umount", "-l", m])
        shutil.rmtree(scratch, ignore_errors=True)
    med = {w: (statistics.median(p for p, _ in v), statistics.median(s for _, s in v))
           for w, v in res.items() if v}
    for w, (p, s) in med.items():
        print(f"median {w:10s} pull {p:6.2f}s  +sync {s:6.2f}s  "
              f"({sizes['compressed'] / 1e6 / p:.0f} MB/s compressed)")
    if len(med) == 2:
        print(f"ratio skiff/containerd: pull {med['skiff'][0] / med['containerd'][0]:.2f}  "
              f"+sync {med['skiff'][1] / med['containerd'][1]:.2f}  (target <= 0.50)")


if __name__ == "__main__":
    main()
