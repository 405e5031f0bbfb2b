"""The node-local DNS server's bounds, driven through `skiff bench dns` (the
agent's server with a synthetic zone) on loopback: malformed messages,
forwarding that never gets an answer (a bounded table, SERVFAIL), and a TCP
client that writes too slowly. Queries are built with struct: the test needs
messages no resolver library would send."""
import os
import random
import socket
import struct
import subprocess
import tempfile
import time

import pytest

from conftest import SKIFF, free_port


def query(name, qtype=1, qid=None, flags=0x0100, qdcount=1, extra_question=False):
    qid = random.randrange(1 << 16) if qid is None else qid
    wire = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".") if label) + b"\0"
    q = wire + struct.pack(">HH", qtype, 1)
    return qid, struct.pack(">HHHHHH", qid, flags, qdcount, 0, 0, 0) + q + (q if extra_question else b"")


def rcode(msg):
    return struct.unpack(">H", msg[2:4])[0] & 0xF


class Server:
    def __init__(self, *args):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="skiff-dnssrv-")
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen([SKIFF, "bench", "dns", "--port", str(self.port), "--services", "10"] +
                                     list(args), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.ask(query("svc-1.bench.svc.cluster.local")[1], timeout=0.5):
                return
        raise AssertionError("server did not answer: " + self.output())

    def ask(self, msg, timeout=2.0):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(timeout)
        try:
            s.sendto(msg, ("127.0.0.1", self.port))
            return s.recv(65535)
        except socket.timeout:
            return None
        finally:
            s.close()

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        self.proc.terminate()
        rc = self.proc.wait(20)
        out = self.output()
        self.log.close()
        subprocess.run(["rm", "-rf", self.dir])
        assert rc == 0, out
        assert "Sanitizer" not in out, out


@pytest.fixture
def server():
    s = Server("--resolv-conf", "/dev/null")
    yield s
    s.stop()


def test_malformed_messages(server):
    for junk in (b"", b"\x12", b"\x00" * 11, os.urandom(12), b"\xff" * 512, os.urandom(300)):
        server.ask(junk, timeout=0.2)
    # a response is no query: no answer
    assert server.ask(query("svc-1.bench.svc.cluster.local", flags=0x8100)[1], timeout=0.5) is None
    # two questions: FORMERR; a STATUS opcode: NOTIMP; a zone transfer: REFUSED
    qid, msg = query("svc-1.bench.svc.cluster.local", qdcount=2, extra_question=True)
    r = server.ask(msg)
    assert r[:2] == msg[:2] and rcode(r) == 1
    assert rcode(server.ask(query("svc-1.bench.svc.cluster.local", flags=0x1100)[1])) == 4
    assert rcode(server.ask(query("cluster.local", qtype=252)[1])) == 5
    # still serving
    r = server.ask(query("svc-2.bench.svc.cluster.local")[1])
    assert rcode(r) == 0 and r.endswith(bytes([10, 43, 0, 2]))


def test_forwards_are_bounded(tmp_path):
    """A forwarder that never answers: at most --max-forwards queries wait
    for it, the rest get SERVFAIL at once, and every query gets SERVFAIL."""
    if os.geteuid() != 0:
        pytest.skip("the black hole listens on port 53")
    hole_addr = f"127.{random.randrange(100, 250)}.{random.randrange(0, 250)}.{random.randrange(2, 250)}"
    hole = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hole.bind((hole_addr, 53))
    hole.setblocking(False)
    resolv = tmp_path / "resolv.conf"
    resolv.write_text(f"nameserver {hole_addr}\n")
    srv = Server("--resolv-conf", str(resolv), "--max-forwards", "20", "--forward-timeout-ms", "1000")
    try:
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.settimeout(10)
        ids = {}
        for i in range(50):
            qid, msg = query(f"q{i}.example", qid=i + 1)
            ids[qid] = i
            c.sendto(msg, ("127.0.0.1", srv.port))
        got = {}
        while len(got) < 50:
            r = c.recv(65535)
            got[struct.unpack(">H", r[:2])[0]] = rcode(r)
        assert set(got) == set(ids) and set(got.values()) == {2}  # SERVFAIL, each once
        seen = 0
        while True:
            try:
                hole.recv(65535)
                seen += 1
            except BlockingIOError:
                break
        assert 1 <= seen <= 20
        c.close()
    finally:
        srv.stop()
        hole.close()


def test_slow_tcp_client_is_cut_off(server):
    """A TCP client that trickles a message byte by byte loses its connection
    (each connection has a bounded life), and others are served meanwhile."""
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"\x01")
    closed = False
    for _ in range(40):
        time.sleep(1)
        try:
            s.sendall(b"\x00")
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        # the server keeps answering others
        assert server.ask(query("svc-3.bench.svc.cluster.local")[1]) is not None
    s.close()
    assert closed
