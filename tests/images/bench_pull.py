#!/usr/bin/python3
"""Pull + unpack timing of a multi-layer image (~200 MiB of random data in 4
layers plus the busybox base, built by `BIG=1 tests/images/build.sh`) from a
loopback docker-registry, cold and warm, with 1 and 4 parallel layers; skopeo's
fetch-only copy as a reference. Not part of `make test`:
    BIG=1 tests/images/build.sh && tests/images/bench_pull.py [SKIFF_BIN]"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
from registry import Registry  # noqa: E402

skiff = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "skiff")
images = subprocess.run([os.path.join(here, "build.sh")], env=dict(os.environ, BIG="1"),
                        check=True, capture_output=True, text=True).stdout.strip()


def pull(reg, data, *extra):
    t = time.time()
    r = subprocess.run([skiff, "image", "pull", *extra, f"{reg.host}/big:1", "--data-dir", data],
                       capture_output=True, text=True, check=True)
    return time.time() - t, r.stderr.strip().splitlines()[-1]


with Registry() as reg:
    t = time.time()
    reg.push(f"oci:{images}/oci:big", "big:1")
    print(f"skopeo push: {time.time() - t:.2f}s")
    for parallel in ("1", "4"):
        data = tempfile.mkdtemp(prefix="skiff-bench-")
        try:
            wall, line = pull(reg, data, "--parallel", parallel)
            print(f"cold, {parallel} parallel: {wall:.2f}s wall | {line}")
            wall, line = pull(reg, data)
            print(f"warm: {wall:.2f}s wall | {line}")
        finally:
            shutil.rmtree(data)
    out = tempfile.mkdtemp(prefix="skiff-bench-")
    try:
        t = time.time()
        subprocess.run(["skopeo", "copy", "-q", "--src-tls-verify=false", f"docker://{reg.host}/big:1",
                        f"oci:{out}/o:1"], check=True)
        print(f"skopeo copy (fetch only, no unpack): {time.time() - t:.2f}s")
    finally:
        shutil.rmtree(out)
