#!/usr/bin/env python3
"""Client side of the serving demo.

In the cluster (the demo runs it in a pod, manifests/query-pod.yaml), through
the model-server Service by name:
  query.py --url http://model-server/predict --once N
                             print N predictions (one line each) and exit
  query.py --url URL --until-version V [--settle S] [--max-seconds M]
                             query continuously until only model version V
                             has answered for S seconds (5), or M seconds
                             (300) passed; prints progress and a last line
                             "summary {json}"
From the host, over the ready pods' IPs (re-read with kubectl twice a second):
  query.py --once N / --until FILE [--out F]
Every query that does not return a prediction counts as failed, including
moments with no ready pod at all.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request


def ready_pods(ns, selector):
    out = subprocess.run(["kubectl", "-n", ns, "get", "pods", "-l", selector, "-o", "json"],
                         capture_output=True, text=True, timeout=20)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    pods = []
    for p in json.loads(out.stdout)["items"]:
        st = p.get("status", {})
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in st.get("conditions", []))
        if ready and st.get("podIP") and not p["metadata"].get("deletionTimestamp"):
            pods.append((p["metadata"]["name"], st["podIP"]))
    return sorted(pods)


def query_url(url, sample, timeout=3):
    with urllib.request.urlopen(f"{url}?sample={sample}", timeout=timeout) as r:
        body = json.loads(r.read())
    if r.status != 200 or "predictions" not in body:
        raise RuntimeError(f"bad answer {r.status}: {body}")
    return body


def query(ip, sample, port, timeout=3):
    return query_url(f"http://{ip}:{port}/predict", sample, timeout)


def through_service(a):
    """--url: every query goes to the Service's name; the dataplane picks the pod."""
    if a.once:
        for i in range(a.once):
            b = query_url(a.url, i)
            print(f"    sample {i}: predicted class {b['predictions'][0]} (true {b['labels'][0]}) "
                  f"p={b['probabilities'][0]} from {b['pod']} model v{b['model_version']}", flush=True)
        return 0
    stats = {"queries": 0, "failed": 0, "by_version": {}, "by_pod": {}, "errors": [], "samples": []}
    t0 = last = time.time()
    settled_since = None
    i = 0
    while time.time() - t0 < a.max_seconds:
        stats["queries"] += 1
        try:
            b = query_url(a.url, i)
            v = str(b["model_version"])
            stats["by_version"][v] = stats["by_version"].get(v, 0) + 1
            stats["by_pod"][b["pod"]] = stats["by_pod"].get(b["pod"], 0) + 1
            if len(stats["samples"]) < 3 or (v not in [s["model_version"] for s in stats["samples"]]):
                stats["samples"].append({"sample": i, "model_version": v, "pod": b["pod"],
                                         "prediction": b["predictions"][0], "label": b["labels"][0]})
            if v == a.until_version:
                settled_since = settled_since or time.time()
            else:
                settled_since = None
        except Exception as e:
            stats["failed"] += 1
            stats["errors"].append(f"{time.time() - t0:.1f}s: {e}")
            settled_since = None
        i += 1
        if time.time() - last >= 2:
            last = time.time()
            print(f"    t={last - t0:4.1f}s queries={stats['queries']} failed={stats['failed']} "
                  f"answers by version {stats['by_version']} by pod {stats['by_pod']}", flush=True)
        if settled_since and time.time() - settled_since >= a.settle:
            break
        time.sleep(a.interval)
    stats["seconds"] = round(time.time() - t0, 1)
    stats["settled"] = bool(settled_since and time.time() - settled_since >= a.settle)
    stats["errors"] = stats["errors"][:20]
    print(f"    {stats['queries']} queries in {stats['seconds']}s through {a.url}, {stats['failed']} failed; "
          f"answers by version {stats['by_version']}", flush=True)
    print("summary " + json.dumps(stats), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--namespace", "-n", default="ml")
    ap.add_argument("--selector", "-l", default="app=model-server")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--once", type=int, default=0)
    ap.add_argument("--until", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--url", default="")
    ap.add_argument("--until-version", default="")
    ap.add_argument("--settle", type=float, default=5)
    ap.add_argument("--max-seconds", type=float, default=300)
    a = ap.parse_args()

    if a.url:
        return through_service(a)

    if a.once:
        pods = ready_pods(a.namespace, a.selector)
        if not pods:
            print("no ready model-server pod", file=sys.stderr)
            return 1
        for i in range(a.once):
            name, ip = pods[i % len(pods)]
            b = query(ip, i, a.port)
            print(f"    sample {i}: predicted class {b['predictions'][0]} (true {b['labels'][0]}) "
                  f"p={b['probabilities'][0]} from {b['pod']} ({ip}) model v{b['model_version']}")
        return 0

    endpoints = {"pods": ready_pods(a.namespace, a.selector)}
    stop = threading.Event()

    def refresh():
        while not stop.is_set():
            try:
                endpoints["pods"] = ready_pods(a.namespace, a.selector)
            except Exception as e:  # keep the last list, as kube-proxy would
                print(f"    (pod list failed: {e})", flush=True)
            stop.wait(0.5)

    threading.Thread(target=refresh, daemon=True).start()
    stats = {"queries": 0, "failed": 0, "by_version": {}, "by_pod": {}, "errors": [], "samples": []}
    t0 = last = time.time()
    i = 0
    while not os.path.exists(a.until):
        pods = endpoints["pods"]
        stats["queries"] += 1
        if not pods:
            stats["failed"] += 1
            stats["errors"].append(f"{time.time() - t0:.1f}s: no ready pod")
        else:
            name, ip = pods[i % len(pods)]
            try:
                b = query(ip, i, a.port)
                v = str(b["model_version"])
                stats["by_version"][v] = stats["by_version"].get(v, 0) + 1
                stats["by_pod"][b["pod"]] = stats["by_pod"].get(b["pod"], 0) + 1
                if len(stats["samples"]) < 3 or (v not in [s["model_version"] for s in stats["samples"]]):
                    stats["samples"].append({"sample": i, "model_version": v, "pod": b["pod"],
                                             "prediction": b["predictions"][0], "label": b["labels"][0]})
            except Exception as e:
                stats["failed"] += 1
                stats["errors"].append(f"{time.time() - t0:.1f}s: {name} ({ip}): {e}")
        i += 1
        if time.time() - last >= 2:
            last = time.time()
            print(f"    t={last - t0:4.1f}s queries={stats['queries']} failed={stats['failed']} "
                  f"answers by version {stats['by_version']} ready pods {[n for n, _ in pods]}", flush=True)
        time.sleep(a.interval)
    stop.set()
    stats["seconds"] = round(time.time() - t0, 1)
    stats["errors"] = stats["errors"][:20]
    if a.out:
        with open(a.out, "w") as f:
            json.dump(stats, f, indent=1)
    print(f"    {stats['queries']} queries in {stats['seconds']}s, {stats['failed']} failed; "
          f"answers by version {stats['by_version']}", flush=True)
    for e in stats["errors"][:5]:
        print(f"    error: {e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
