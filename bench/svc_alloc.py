"""What a Service's allocations cost: creates/s of ClusterIP and NodePort
Services against ConfigMaps of the same run, from T threads of the Python
client on one API-only server (build/skiff), and deletes/s of the Services
(each gives its addresses back). A ClusterIP Service writes one more store
key than a ConfigMap, a NodePort Service two more.

    /usr/bin/python3 bench/svc_alloc.py [N] [THREADS]
"""
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402


def run(n, threads, make):
    """Calls make(i) for i in range(n) from `threads` threads: per second."""
    parts = [range(k, n, threads) for k in range(threads)]
    ts = [threading.Thread(target=lambda p: [make(i) for i in p], args=(p,)) for p in parts]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return n / (time.monotonic() - t0)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    os.environ.setdefault("SKIFF_BIN", os.path.join(os.path.dirname(__file__), "..", "build", "skiff"))
    from kubernetes import client
    d = tempfile.mkdtemp(prefix="skiff-bench-svc-")
    c = Cluster(d, ["--no-agent"]).start()
    try:
        api = c.api_client()
        api.configuration.connection_pool_maxsize = threads
        v1 = client.CoreV1Api(api)

        def svc(i, kind):
            s = {"metadata": {"name": f"{kind.lower()}-{i}"},
                 "spec": {"type": kind, "selector": {"app": "x"}, "ports": [{"port": 80}]}}
            v1.create_namespaced_service("default", s)

        cm = run(n, threads, lambda i: v1.create_namespaced_config_map(
            "default", {"metadata": {"name": f"cm-{i}"}, "data": {"k": "v"}}))
        cip = run(n, threads, lambda i: svc(i, "ClusterIP"))
        npn = min(n, 2000)  # 2,768 NodePorts in the default range
        np = run(npn, threads, lambda i: svc(i, "NodePort"))
        dl = run(n, threads, lambda i: v1.delete_namespaced_service(f"clusterip-{i}", "default"))
        print(f"ConfigMap creates/s {cm:.0f}; ClusterIP Service creates/s {cip:.0f} ({100 * cip / cm:.0f} %); "
              f"NodePort Service creates/s {np:.0f} ({100 * np / cm:.0f} %, {npn}); "
              f"ClusterIP Service deletes/s {dl:.0f}  (N={n}, threads={threads})")
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
