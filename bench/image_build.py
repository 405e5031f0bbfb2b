#!/usr/bin/python3
"""Builds the image pull benchmark's image as an OCI layout (tag "1"):
a busybox base layer plus six data layers shaped like an ML image, each a
gzip-compressed tar (gzip -6, as registries usually hold them):

  1 site-packages   3000 small text-like files (Python sources, metadata), ~2.5x
  2 weights         one 150 MiB incompressible file (fp16 weights)
  3 numpy-like      30 x 4 MiB compressible binaries + 10 x 4 MiB random
  4 libtorch-like   one 120 MiB .so: alternating 1 MiB random / compressible
  5 cuda-like       three 50 MiB incompressible files
  6 config          200 small files

About 670 MiB unpacked, 540 MB compressed. The data are pseudo-random from
a fixed seed, so the image (and its digests) are the same on every machine.
Cached: prints the layout directory, building it only when missing.
    bench/image_build.py [OUTDIR]     (default build/bench/image-<script hash>)
"""
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile

MiB = 1 << 20
MTIME = 1700000000
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)

# Compressible binary: bytes drawn from 16 values with skewed frequencies
# (about 3.3 bits of entropy a byte: gzip -6 makes ~2.2x, like numpy/torch
# shared objects and wheels).
_COUNTS = [64, 48, 32, 24, 16, 16, 12, 10, 8, 8, 6, 4, 3, 2, 2, 1]
_SYMS = [0x00, 0xff, 0x48, 0x89, 0x8b, 0x0f, 0x24, 0xe8, 0x01, 0x44, 0x41, 0xc3, 0x85, 0x74, 0x10, 0x20]
_TABLE = bytes(b for sym, n in zip(_SYMS, _COUNTS) for b in [sym] * n)


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        words = ["".join(self.r.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(self.r.randint(2, 12)))
                 for _ in range(3000)]
        words += ["def", "self", "return", "import", "if", "for", "in", "None", "    ", "\n", "(", ")", ":", "=", ","]
        toks = self.r.choices(words, k=900000)
        self.text = " ".join(toks).encode()   # ~5 MiB of source-like text

    def random(self, n):
        return self.r.randbytes(n)

    def skewed(self, n):
        return self.r.randbytes(n).translate(_TABLE)

    def textlike(self, n):
        out, have = [], 0
        while have < n:
            k = min(n - have, self.r.randint(256, 4096))
            o = self.r.randrange(0, len(self.text) - k)
            out.append(self.text[o:o + k])
            have += k
        return b"".join(out)


def add(tf, name, data=None, kind=tarfile.REGTYPE, mode=0o644, linkname=""):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.mtime = MTIME
    ti.linkname = linkname
    ti.size = len(data) if data is not None else 0
    tf.addfile(ti, io.BytesIO(data) if data is not None else None)


def dirs(tf, path, seen):
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        d = "/".join(parts[:i])
        if d not in seen:
            seen.add(d)
            add(tf, d, kind=tarfile.DIRTYPE, mode=0o755)


def layer_base(tf, g):
    add(tf, "bin", kind=tarfile.DIRTYPE, mode=0o755)
    add(tf, "etc", kind=tarfile.DIRTYPE, mode=0o755)
    add(tf, "tmp", kind=tarfile.DIRTYPE, mode=0o1777)
    with open("/bin/busybox", "rb") as f:
        add(tf, "bin/busybox", f.read(), mode=0o755)
    applets = subprocess.run(["/bin/busybox", "--list"], capture_output=True, text=True).stdout.split()
    for a in sorted(set(applets) - {"busybox"}):
        add(tf, "bin/" + a, kind=tarfile.SYMTYPE, linkname="busybox", mode=0o777)
    add(tf, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")


def layer_files(tf, g, prefix, files):
    seen = set()
    for name, data in files:
        path = prefix + name
        dirs(tf, path, seen)
        add(tf, path, data)


def layer_sitepackages(tf, g):
    files = []
    for i in range(3000):
        pkg = f"pkg{i % 60:02d}/sub{(i // 60) % 5}"
        files.append((f"{pkg}/mod{i:04d}.py", g.textlike(g.r.randint(8 << 10, 52 << 10))))
    layer_files(tf, g, "usr/lib/python3/site-packages/", files)


def layer_weights(tf, g):
    layer_files(tf, g, "models/", [("model.safetensors", g.random(150 * MiB))])


def layer_numpy(tf, g):
    files = [(f"lib{i:02d}.so", g.skewed(4 * MiB)) for i in range(30)]
    files += [(f"data{i:02d}.npy", g.random(4 * MiB)) for i in range(10)]
    g.r.shuffle(files)
    layer_files(tf, g, "usr/lib/python3/site-packages/numpy/", files)


def layer_torch(tf, g):
    data = b"".join(g.random(MiB) if i % 2 else g.skewed(MiB) for i in range(120))
    layer_files(tf, g, "usr/lib/python3/site-packages/torch/lib/", [("libtorch_cpu.so", data)])


def layer_cuda(tf, g):
    layer_files(tf, g, "usr/local/cuda/lib64/", [(f"libcublas{i}.so", g.random(50 * MiB)) for i in range(3)])


def layer_config(tf, g):
    layer_files(tf, g, "etc/app/", [(f"conf{i:03d}.yaml", g.textlike(g.r.randint(1024, 9000))) for i in range(200)])


LAYERS = [layer_base, layer_sitepackages, layer_weights, layer_numpy, layer_torch, layer_cuda, layer_config]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(MiB):
            h.update(chunk)
    return h.hexdigest()


def blob(out, path):
    hexd = sha256_file(path)
    dst = os.path.join(out, "blobs", "sha256", hexd)
    os.replace(path, dst)
    return hexd, os.path.getsize(dst)


def put_json(out, obj):
    data = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()
    hexd = hashlib.sha256(data).hexdigest()
    with open(os.path.join(out, "blobs", "sha256", hexd), "wb") as f:
        f.write(data)
    return hexd, len(data)


def build(out):
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "blobs", "sha256"))
    layers, diff_ids, unpacked = [], [], 0
    for i, fn in enumerate(LAYERS):
        g = Gen(1000 + i)
        tar = os.path.join(tmp, f"layer{i}.tar")
        with tarfile.open(tar, "w", format=tarfile.PAX_FORMAT) as tf:
            fn(tf, g)
        diff_ids.append("sha256:" + sha256_file(tar))
        unpacked += os.path.getsize(tar)
        subprocess.run(["gzip", "-6", "-n", tar], check=True)
        hexd, size = blob(tmp, tar + ".gz")
        layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                       "digest": "sha256:" + hexd, "size": size})
        print(f"layer {i} {fn.__name__}: {size / MiB:.1f} MiB gzip", file=sys.stderr)
    config = {"architecture": "amd64", "os": "linux", "created": "2023-11-14T22:13:20Z",
              "config": {"Env": ["PATH=/bin:/usr/bin"], "Cmd": ["sh"], "WorkingDir": "/"},
              "rootfs": {"type": "layers", "diff_ids": diff_ids}}
    chex, csize = put_json(tmp, config)
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                           "digest": "sha256:" + chex, "size": csize},
                "layers": layers}
    mhex, msize = put_json(tmp, manifest)
    index = {"schemaVersion": 2, "manifests": [{
        "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + mhex,
        "size": msize, "annotations": {"org.opencontainers.image.ref.name": "1"}}]}
    with open(os.path.join(tmp, "index.json"), "w") as f:
        json.dump(index, f)
    with open(os.path.join(tmp, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)
    compressed = sum(lay["size"] for lay in layers)
    with open(os.path.join(tmp, "sizes.json"), "w") as f:
        json.dump({"layers": len(layers), "compressed": compressed, "unpacked_tar": unpacked,
                   "manifest": "sha256:" + mhex}, f)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)


def main():
    with open(os.path.abspath(__file__), "rb") as f:
        tag = hashlib.sha256(f.read()).hexdigest()[:12]
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "bench", f"image-{tag}")
    if not os.path.exists(os.path.join(out, "sizes.json")):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        build(out)
    print(out)


if __name__ == "__main__":
    main()
