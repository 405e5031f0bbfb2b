"""Watches served by the event-loop HTTP server: many kubectl watchers each
get every change, a watcher that goes away releases its connection, and
SIGTERM ends open watches and stops the server cleanly."""
import os
import subprocess
import time

from conftest import KUBECTL, Cluster, SLOW

CM = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"data":{"k":"v"}}'


def _watchers(c, n, outdir):
    procs = []
    for i in range(n):
        out = open(os.path.join(outdir, f"watch-{i}.out"), "w")
        procs.append((subprocess.Popen([KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "get", "cm",
                                        "-w", "-o", "name"], stdout=out, stderr=subprocess.STDOUT, text=True),
                      out.name))
    return procs


def _wait_all_print(procs, word, timeout=60):
    deadline = time.time() + timeout * SLOW
    missing = procs
    while time.time() < deadline:
        missing = [p for p in procs if word not in open(p[1]).read()]
        if not missing:
            return
        time.sleep(0.2)
    raise AssertionError(f"{len(missing)} of {len(procs)} watchers never printed {word}: "
                         + open(missing[0][1]).read())


def _fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_many_watchers_get_each_change_and_closed_ones_are_released(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        c.kubectl("create", "-f", "-", input=CM % "seed")
        time.sleep(0.5)
        base = _fds(c.proc.pid)
        procs = _watchers(c, 24, tmpdir_skiff)
        _wait_all_print(procs, "configmap/seed")
        assert _fds(c.proc.pid) >= base + 24
        for name in ("one", "two", "three"):
            c.kubectl("create", "-f", "-", input=CM % name)
        for name in ("one", "two", "three"):
            _wait_all_print(procs, "configmap/" + name)
        for p, _ in procs:
            p.kill()
            p.wait()
        # a parked watch notices its client left (the server checks about once a second)
        deadline = time.time() + 15
        while time.time() < deadline and _fds(c.proc.pid) > base + 2:
            time.sleep(0.2)
        assert _fds(c.proc.pid) <= base + 2, f"{_fds(c.proc.pid)} fds open, {base} before the watchers"
        # the server still answers, and new watchers still stream
        procs = _watchers(c, 2, tmpdir_skiff)
        _wait_all_print(procs, "configmap/three")
        for p, _ in procs:
            p.kill()
            p.wait()
    finally:
        c.cleanup()


def test_sigterm_ends_open_watches_and_stops_cleanly(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        c.kubectl("create", "-f", "-", input=CM % "seed")
        procs = _watchers(c, 6, tmpdir_skiff)
        _wait_all_print(procs, "configmap/seed")
        assert c.stop(timeout=20) == 0
        for p, _ in procs:
            # each watch was ended by the server (kubectl then fails to re-list and exits)
            p.wait(timeout=30)
        assert "PANIC" not in c.log() and "Fatal error" not in c.log(), c.log()
    finally:
        c.cleanup()
