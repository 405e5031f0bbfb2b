#!/usr/bin/python3
"""Writes hand-made layer tarballs for the image unit tests into OUTDIR:
malicious layers (one attack each, and all together), whiteout layers, and a
benign layer with a fifo, an in-layer hard link and an absolute symlink."""
import io
import os
import sys
import tarfile


def add(tf, name, kind=tarfile.REGTYPE, data=b"", linkname="", devmajor=0, devminor=0, mode=0o644):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.mtime = 1700000000
    ti.linkname = linkname
    ti.devmajor, ti.devminor = devmajor, devminor
    ti.size = len(data) if kind == tarfile.REGTYPE else 0
    tf.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def write(path, entries):
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        for e in entries:
            add(tf, *e[:2], **e[2]) if len(e) > 2 else add(tf, *e)


def main(out):
    os.makedirs(out, exist_ok=True)
    D, R, S, L, C, B, F = (tarfile.DIRTYPE, tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE,
                           tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE)
    attacks = {
        "dotdot": [("ok", R, {"data": b"ok"}), ("../evil", R, {"data": b"evil"})],
        "abs-symlink": [("link", S, {"linkname": "/tmp"}), ("link/evil-abs", R, {"data": b"evil"})],
        "rel-symlink": [("up", S, {"linkname": "../../../../../../tmp"}), ("up/evil-rel", R, {"data": b"evil"})],
        "hardlink": [("hl", L, {"linkname": "../../../../../../etc/passwd"})],
        "chardev": [("dev/sda", C, {"devmajor": 8, "devminor": 0})],
        "blockdev": [("dev/sdb", B, {"devmajor": 8, "devminor": 16})],
    }
    everything = []
    for name, entries in attacks.items():
        write(os.path.join(out, "evil-%s.tar" % name), entries)
        everything += entries
    write(os.path.join(out, "malicious.tar"), everything)
    write(os.path.join(out, "lower.tar"), [
        ("a", D, {"mode": 0o755}), ("a/x", R, {"data": b"x"}), ("a/y", R, {"data": b"y"}),
        ("b", D, {"mode": 0o755}), ("b/z", R, {"data": b"z"}), ("c", R, {"data": b"c"}),
    ])
    write(os.path.join(out, "upper.tar"), [
        ("a", D, {"mode": 0o755}), ("a/.wh.x", R, {}),
        ("b", D, {"mode": 0o755}), ("b/.wh..wh..opq", R, {}), ("b/new", R, {"data": b"new"}),
        (".wh.c", R, {}),
    ])
    write(os.path.join(out, "benign.tar"), [
        ("bin", D, {"mode": 0o755}), ("bin/busybox", R, {"data": b"#!", "mode": 0o755}),
        ("bin/sh", S, {"linkname": "/bin/busybox"}), ("bin/ash", L, {"linkname": "bin/busybox"}),
        ("run", D, {"mode": 0o755}), ("run/fifo", F, {}), ("dev", D, {"mode": 0o755}),
        ("dev/wh", C, {"devmajor": 0, "devminor": 0}),
    ])


if __name__ == "__main__":
    main(sys.argv[1])
