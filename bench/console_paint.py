"""The web console's first paint on a big cluster (issue 21: ≤ 1 s with 1,000
hollow nodes and 10,000 pods, in headless chromium). `skiff bench` makes the
cluster (hollow nodes, every pod bound and Running) in a data directory kept
for a `skiff server --no-agent` on it; headless chromium (tests/e2e/cdp.py),
already signed in (the token in sessionStorage), opens /console/ afresh RUNS
times and the page's own clock (navigation start = 0) gives:
  fcp     first contentful paint (the shell)
  rows    the nodes table painted with its first page of rows (100)
  nodes   all nodes listed (the list's last page)
(each request's start/first byte/end is printed above the run, same clock)
and, on the Pending page, the same for the pods the server filters out of
10,000 by `status.phase=Pending` (none pending here: the answer is the cost).

    /usr/bin/python3 bench/console_paint.py [NODES] [PODS] [RUNS]
    SKIFF_PAINT_BINS="BASE NEW"  binaries taking turns, RUNS rounds
    SKIFF_BENCH_DATA=DIR         a data directory `skiff bench` made (kept)
Each round starts each binary's server afresh on the same data (node health
checks pushed out, so that the hollow nodes, which renew no lease once
`skiff bench` has exited, stay Ready and keep their pods) and measures a
cold run (the first load after the start, a fresh browser) and a warm one.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
os.environ.setdefault("SKIFF_BIN", os.path.join(HERE, "..", "build", "skiff"))

from cdp import Browser  # noqa: E402
import conftest  # noqa: E402
from conftest import Cluster  # noqa: E402


def marks(b, search, names, timeout=60):
    """Waits for the document whose location.search is search to have the
    performance marks named; returns {name: ms since navigation start}."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if b.eval("location.search") != search:
            time.sleep(0.05)
            continue
        got = b.eval("Object.fromEntries(performance.getEntries().filter(e => e.entryType === 'mark' || "
                     "e.name === 'first-contentful-paint').map(e => [e.name, e.startTime]))")
        if all(n in got for n in names):
            return got
        time.sleep(0.05)
    raise RuntimeError(f"marks {names} not seen; page: {b.eval('document.body.innerText.slice(0, 300)')}")


def measure(c, nodes, i, res):
    """One run in a fresh browser: the nodes page, then the Pending page."""
    b = Browser()
    try:
        with open(c.kubeconfig) as f:
            token = [l.split()[1] for l in f if l.strip().startswith("token:")][0]
        base = f"https://127.0.0.1:{c.port}/console/"
        b.navigate(base)
        deadline = time.time() + 60
        while b.eval("location.protocol") != "https:":
            if time.time() > deadline:
                raise RuntimeError("the console did not load: " + b.eval("location.href"))
            time.sleep(0.05)
        b.eval(f"sessionStorage.setItem('skiff-console-token', {json.dumps(token)})")
        b.navigate(f"{base}?run={i}#/nodes")
        m = marks(b, f"?run={i}", ["first-contentful-paint", "console:nodes-rows", "console:nodes-synced"])
        got = {"fcp": m["first-contentful-paint"], "rows": m["console:nodes-rows"], "nodes": m["console:nodes-synced"]}
        # where the time went: each request's start, first byte and end on the same clock
        api = b.eval("performance.getEntriesByType('resource').map(e => [e.name.replace(/^.*\\/(console\\/|api\\/v1\\/)/, '')"
                     ".replace(/&continue=.*/, '&continue=…').replace(/\\?run=.*/, ''), e.startTime, e.responseStart, e.responseEnd])")
        print("  " + ", ".join(f"{n or 'index.html'} {a:.0f}/{f:.0f}/{e:.0f}" for n, a, f, e in api))
        n = b.eval("document.getElementById('node-count').innerText")
        assert n == str(nodes), n
        b.navigate(f"{base}?p={i}#/pending")
        got["pending"] = marks(b, f"?p={i}", ["console:pending-synced"])["console:pending-synced"]
        for k, v in got.items():
            res[k].append(v)
        return got
    finally:
        b.close()


def main():
    nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    pods = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    # SKIFF_PAINT_BINS="A B": binaries taking turns, a server start (cold) each
    bins = os.environ.get("SKIFF_PAINT_BINS", conftest.SKIFF).split()
    d = os.environ.get("SKIFF_BENCH_DATA")
    made = not d
    if made:
        d = tempfile.mkdtemp(prefix="skiff-bench-console-")
        t0 = time.monotonic()
        r = subprocess.run([bins[-1], "bench", "--data-dir", d, "--nodes", str(nodes), "--pods", str(pods),
                            "--workers", "64", "--timeout", "600"], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"skiff bench failed: {r.stdout}\n{r.stderr}")
        print(f"cluster: {nodes} hollow nodes, {pods} pods Running (skiff bench, {time.monotonic() - t0:.0f} s)")
    res = {b: {"cold": {"fcp": [], "rows": [], "nodes": [], "pending": []},
               "warm": {"fcp": [], "rows": [], "nodes": [], "pending": []}} for b in bins}
    try:
        for rnd in range(runs):
            for binary in bins:
                conftest.SKIFF = binary
                # the hollow nodes renew no lease now: keep them Ready and their pods bound
                c = Cluster(d, ["--no-agent", "--node-monitor-grace-period", "100000",
                                "--pod-eviction-timeout", "100000"]).start(timeout=120)
                try:
                    for i, kind in enumerate(("cold", "warm")):
                        g = measure(c, nodes, f"{rnd}-{i}", res[binary][kind])
                        print(f"round {rnd + 1} {os.path.basename(binary)} {kind}: fcp {g['fcp']:.0f} ms, first rows "
                              f"{g['rows']:.0f} ms, {nodes} nodes {g['nodes']:.0f} ms, pending page {g['pending']:.0f} ms",
                              flush=True)
                finally:
                    c.cleanup()
        for binary in bins:
            for kind in ("cold", "warm"):
                for k, v in res[binary][kind].items():
                    print(f"{os.path.basename(binary)} {kind} {k}: median {statistics.median(v):.0f} ms, "
                          f"max {max(v):.0f} ms ({len(v)} runs)")
    finally:
        if made:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
