"""Every acknowledged write survives kill -9 of the server mid-burst, and a
restart on the same data directory keeps every object."""
import json
import signal
import ssl
import threading
import time
import urllib.request

from conftest import Cluster


def _client(c):
    import yaml
    cfg = yaml.safe_load(open(c.kubeconfig))
    token = cfg["users"][0]["user"]["token"]
    ctx = ssl.create_default_context(cafile=None)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return token, ctx


def _create(c, token, ctx, name):
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                       "data": {"k": name}}).encode()
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}/api/v1/namespaces/default/configmaps", data=body,
                                 headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        return r.status


def test_kill9_keeps_acknowledged_writes(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    token, ctx = _client(c)
    acked = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(i):
        n = 0
        while not stop.is_set():
            name = f"w{i}-{n}"
            try:
                if _create(c, token, ctx, name) == 201:
                    with lock:
                        acked.append(name)
            except Exception:
                return
            n += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    # killed mid-burst once enough writes were acknowledged (however slow the machine)
    deadline = time.time() + 60
    while time.time() < deadline and len(acked) <= 50 and any(t.is_alive() for t in threads):
        time.sleep(0.05)
    c.stop(sig=signal.SIGKILL)
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acked) > 50
    c.start()
    names = set(c.kubectl("get", "cm", "-o", "name").stdout.split())
    missing = [a for a in acked if "configmap/" + a not in names]
    assert not missing, f"{len(missing)} acknowledged writes lost, e.g. {missing[:5]}"
    c.cleanup()


def test_restart_keeps_objects_and_sigterm_is_clean(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    c.kubectl("create", "-f", "-", input='{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"keep"}}')
    c.kubectl("create", "-n", "keep", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"a": "1"}}))
    rv = c.kjson("get", "cm", "-n", "keep", "kept")["metadata"]["resourceVersion"]
    assert c.stop() == 0
    c.start()
    cm = c.kjson("get", "cm", "-n", "keep", "kept")
    assert cm["data"] == {"a": "1"} and cm["metadata"]["resourceVersion"] == rv
    kc1 = open(c.kubeconfig).read()
    c.stop()
    c.start()
    assert open(c.kubeconfig).read() == kc1
    c.cleanup()
