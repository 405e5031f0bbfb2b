"""Connection flood against one API server (issue 17): SLOW unauthenticated
connections (half send a header line a second and never finish, half
POST bodies announced at 3 MB without a token) plus IDLE TCP connections that
never say anything, opened again as the server closes them, from loopback
source addresses 127.0.0.2… (1,000 each), for SECONDS seconds, while one
authenticated client keeps GETting a namespace over one kept-alive
connection (its latencies: p50, p99, max) and opens a new connection for a
GET every second (all must be answered). Idle connections the server
closes are opened again, 500 a second in all. The server's RSS is sampled every
second. Loopback only, bounded in count and time; run as root (it raises
its descriptor limit to the hard one; 20,000 idle connections take four
processes of 5,000).

    /usr/bin/python3 bench/conn_flood.py [SECONDS] [IDLE] [SLOW]
"""
import concurrent.futures
import http.client
import json
import multiprocessing
import os
import resource
import selectors
import shutil
import socket
import ssl
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import Cluster  # noqa: E402

PER_ADDRESS = 1000
REOPEN_RATE = 125  # per idle process (4): 500 new idle connections a second in all


def tls_ctx():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def idle_worker(port, first_addr, count, until, stats):
    """Keeps count plain TCP connections open (non-blocking connects),
    reopening those the server closes; counts the closes."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sel = selectors.DefaultSelector()
    opened = closed = 0

    def open_one(i):
        nonlocal opened
        s = socket.socket()
        s.setblocking(False)
        src = f"127.0.0.{first_addr + i // PER_ADDRESS}"
        try:
            s.bind((src, 0))
            s.connect_ex(("127.0.0.1", port))
        except OSError:
            s.close()
            return
        sel.register(s, selectors.EVENT_READ, i)
        opened += 1

    for i in range(count):
        open_one(i)
    pending, budget, last = [], 0.0, time.time()
    while time.time() < until:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                closed += 1
                pending.append(key.data)
        # closed ones come back at a bounded rate (REOPEN_RATE a second)
        now = time.time()
        budget = min(budget + (now - last) * REOPEN_RATE, REOPEN_RATE)
        last = now
        while pending and budget >= 1:
            open_one(pending.pop(0))
            budget -= 1
    stats.put(("idle", opened, closed))


def slow_worker(port, count, until, stats):
    """count slow unauthenticated TLS clients: header trickles and token-less
    POSTs of announced 3 MB bodies, each started again when closed."""
    ctx = tls_ctx()
    conns = {}
    closed = refused = 0

    def start(i):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s = ctx.wrap_socket(s, server_hostname="127.0.0.1")
            if i % 2:
                s.sendall(b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/json\r\nContent-Length: 3000000\r\n\r\n{")
            else:
                s.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n")
            s.setblocking(False)
            conns[i] = s
        except OSError:
            conns.pop(i, None)

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        list(pool.map(start, range(count)))
    while time.time() < until:
        t0 = time.time()
        for i, s in list(conns.items()):
            try:
                if i % 2:
                    s.sendall(b" " * 1024)
                else:
                    s.sendall(b"X-Slow: a\r\n")
                data = s.recv(4096)
                if data == b"" or data.startswith(b"HTTP/1.1 401"):
                    raise ConnectionResetError
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                continue
            except OSError:
                if i % 2:
                    refused += 1
                closed += 1
                s.close()
                start(i)
        time.sleep(max(0.0, 1.0 - (time.time() - t0)))
    stats.put(("slow", count, closed, refused))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    idle = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    slow = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    os.environ.setdefault("SKIFF_BIN", os.path.join(os.path.dirname(__file__), "..", "build", "skiff"))
    d = tempfile.mkdtemp(prefix="skiff-bench-flood-")
    c = Cluster(d, ["--no-agent"]).start()
    with open(c.kubeconfig) as f:
        token = [ln.split()[-1] for ln in f if "token:" in ln][0]
    try:
        rss0 = rss_mb(c.proc.pid)
        until = time.time() + seconds
        stats = multiprocessing.Queue()
        procs = []
        nidle = 4
        for k in range(nidle):
            share = idle // nidle
            first = 2 + k * ((share + PER_ADDRESS - 1) // PER_ADDRESS)
            procs.append(multiprocessing.Process(target=idle_worker, args=(c.port, first, share, until, stats)))
        procs.append(multiprocessing.Process(target=slow_worker, args=(c.port, slow, until, stats)))
        for p in procs:
            p.start()
        lat, fresh_lat, fresh_ok, fresh_fail, rss_max = [], [], 0, 0, rss0
        headers = {"Authorization": "Bearer " + token}
        conn = http.client.HTTPSConnection("127.0.0.1", c.port, context=tls_ctx(), timeout=10)
        next_fresh = next_rss = time.time()
        while time.time() < until:
            t0 = time.perf_counter()
            conn.request("GET", "/api/v1/namespaces/default", headers=headers)
            r = conn.getresponse()
            r.read()
            lat.append((time.perf_counter() - t0) * 1000)
            assert r.status == 200, r.status
            now = time.time()
            if now >= next_fresh:
                next_fresh = now + 1
                try:
                    t1 = time.perf_counter()
                    fc = http.client.HTTPSConnection("127.0.0.1", c.port, context=tls_ctx(), timeout=10)
                    fc.request("GET", "/api/v1/namespaces/default", headers=headers)
                    ok = fc.getresponse().status == 200
                    fc.close()
                    fresh_lat.append((time.perf_counter() - t1) * 1000)
                except OSError:
                    ok = False
                fresh_ok += ok
                fresh_fail += not ok
            if now >= next_rss:
                next_rss = now + 1
                rss_max = max(rss_max, rss_mb(c.proc.pid))
            time.sleep(0.005)
        for p in procs:
            p.join(60)
        got = [stats.get(timeout=10) for _ in procs]
        lat.sort()
        q = lambda f: lat[min(len(lat) - 1, int(len(lat) * f))]  # noqa: E731
        opened = sum(g[1] for g in got if g[0] == "idle")
        shed = sum(g[2] for g in got if g[0] == "idle")
        sl = [g for g in got if g[0] == "slow"][0]
        print(json.dumps({
            "seconds": seconds, "idle_target": idle, "idle_opened": opened, "idle_closed_by_server": shed,
            "slow": slow, "slow_closed_by_server": sl[2], "unauthenticated_posts_refused": sl[3],
            "gets": len(lat), "p50_ms": round(q(0.5), 2), "p99_ms": round(q(0.99), 2), "max_ms": round(lat[-1], 2),
            "new_connection_gets_ok": fresh_ok, "new_connection_max_ms": round(max(fresh_lat or [0]), 1), "new_connection_gets_failed": fresh_fail,
            "rss_start_mb": round(rss0, 1), "rss_max_mb": round(rss_max, 1),
            "server_alive": c.proc.poll() is None}, indent=1))
    finally:
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
