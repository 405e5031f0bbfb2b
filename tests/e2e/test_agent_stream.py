"""Interactive access through the API server to real containers of the embedded
agent: kubectl exec/port-forward/cp and the Python client's stream and
portforward (WebSocket channel protocols v5/v4, relayed to the agent)."""
import hashlib
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from conftest import Cluster, KUBECTL, SKIFF
from test_agent_cluster import have_tools, images_dir, wait_for
from test_agent_embedded import fnv1a


@pytest.fixture(scope="module")
def emb():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    d = tempfile.mkdtemp(prefix="skiff-e2e-stream-")
    node = "st-%04x" % random.randrange(1 << 16)
    agent_dir = os.path.join(d, "agent")
    subprocess.run([SKIFF, "image", "import", "--data-dir", agent_dir,
                    os.path.join(images_dir(), "busybox-oci.tar"), "--name", "busybox"], check=True,
                   capture_output=True)
    c = Cluster(d, ["--node-name", node])
    c.node = node
    try:
        c.start()
        c.kubectl("apply", "-f", "-", input=f"""
apiVersion: v1
kind: Pod
metadata: {{name: sh, labels: {{app: sh}}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - {{name: main, image: "busybox:1", command: ["sh", "-c", "echo hi > /tmp/main; sleep 3600"],
     env: [{{name: GREETING, value: hello-env}}], workingDir: /tmp}}
  - {{name: web, image: "busybox:1", command: ["sh", "-c", "mkdir -p /www && echo page-ok > /www/index.html && httpd -f -p 8080 -h /www"]}}
""")
        wait_for(lambda: c.kjson("get", "pod", "sh")["status"].get("phase") == "Running" and
                 all(s.get("ready") for s in c.kjson("get", "pod", "sh")["status"].get("containerStatuses", [])),
                 90, what="pod sh running")
        yield c
    finally:
        c.kubectl("delete", "pods", "--all", "--grace-period=1", check=False)
        c.cleanup()
        h = fnv1a(os.path.realpath(agent_dir))
        subprocess.run(["ip", "link", "del", "sk%08x" % h], capture_output=True)
        subprocess.run(["nft", "delete", "table", "ip", "skiff-sk%08x" % h], capture_output=True)
        shutil.rmtree("/run/skiff-%08x" % h, ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)


def kexec(c, *args, input=None, check=True):
    return c.kubectl("exec", *args, input=input, check=check)


def test_exec_output_env_cwd_and_container(emb):
    c = emb
    out = kexec(c, "sh", "-c", "main", "--", "sh", "-c", "echo $GREETING; pwd; cat /tmp/main; echo err >&2").stdout
    assert out.split() == ["hello-env", "/tmp", "hi"]
    r = kexec(c, "sh", "-c", "main", "--", "sh", "-c", "echo err >&2")
    assert r.stderr.strip() == "err"
    # -c picks the other container: /www exists only there
    r = kexec(c, "sh", "-c", "web", "--", "cat", "/www/index.html")
    assert r.stdout.strip() == "page-ok", (r.stdout, r.stderr, c.kubectl("logs", "sh", "-c", "web").stdout)
    r = kexec(c, "sh", "--", "true", check=False)
    assert r.returncode == 0 and 'Defaulted container "main"' in r.stderr


def test_exec_exit_codes(emb):
    c = emb
    r = kexec(c, "sh", "-c", "main", "--", "sh", "-c", "exit 1", check=False)
    assert r.returncode == 1
    assert "command terminated with exit code 1" in r.stderr
    r = kexec(c, "sh", "-c", "main", "--", "sh", "-c", "exit 7", check=False)
    assert r.returncode == 7
    r = kexec(c, "sh", "-c", "main", "--", "sh", "-c", "kill -9 $$", check=False)
    assert r.returncode == 137


def test_exec_stdin_and_tty(emb):
    c = emb
    data = "".join("line %d\n" % i for i in range(20000))
    r = kexec(c, "-i", "sh", "-c", "main", "--", "sh", "-c", "wc -l; md5sum", input=data)
    lines = r.stdout.split()
    assert lines[0] == "20000"
    # -t with a terminal on kubectl's side (script gives it one): the command gets a terminal too
    r = subprocess.run(["script", "-qec", " ".join([f"{KUBECTL} --kubeconfig {c.kubeconfig} --cache-dir {c.cache}", "exec", "-i", "-t", "sh", "-c", "main",
                                                      "--", "sh", "-c", "'tty; stty size; read x; echo got-$x'"]),
                        "/dev/null"], input="abc\n", capture_output=True, text=True, timeout=60)
    assert "/dev/pts/" in r.stdout and "got-abc" in r.stdout, r


def test_python_tty_and_resize(emb):
    from kubernetes import client, config
    from kubernetes.stream import stream
    config.load_kube_config(emb.kubeconfig)
    api = client.CoreV1Api()
    ws = stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main",
                command=["sh", "-c", "read x; stty size; tty"], stderr=True, stdin=True, stdout=True,
                tty=True, _preload_content=False)
    ws.write_channel(4, json.dumps({"Width": 123, "Height": 45}))
    ws.write_stdin("go\n")
    ws.run_forever(timeout=20)
    out = ws.read_stdout()
    assert "45 123" in out and "/dev/pts/" in out
    assert ws.returncode == 0


def test_exec_errors(emb):
    c = emb
    r = kexec(c, "sh", "-c", "nope", "--", "true", check=False)
    assert r.returncode != 0 and "container nope is not valid for pod sh" in r.stderr
    r = kexec(c, "missing", "--", "true", check=False)
    assert r.returncode != 0 and 'pods "missing" not found' in r.stderr


def test_python_stream_v4(emb):
    from kubernetes import client, config
    from kubernetes.stream import stream
    config.load_kube_config(emb.kubeconfig)
    api = client.CoreV1Api()
    out = stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main",
                 command=["sh", "-c", "echo py-$GREETING"], stderr=True, stdin=False, stdout=True, tty=False)
    assert out.strip() == "py-hello-env"
    ws = stream(api.connect_get_namespaced_pod_exec, "sh", "default", container="main",
                command=["sh", "-c", "read a; echo in-$a; exit 3"], stderr=True, stdin=True, stdout=True,
                tty=False, _preload_content=False)
    ws.write_stdin("xyz\n")
    ws.run_forever(timeout=20)
    assert "in-xyz" in ws.read_stdout()
    assert ws.returncode == 3


def test_python_portforward(emb):
    from kubernetes import client, config
    from kubernetes.stream import portforward
    config.load_kube_config(emb.kubeconfig)
    api = client.CoreV1Api()
    pf = portforward(api.connect_get_namespaced_pod_portforward, "sh", "default", ports="8080")
    s = pf.socket(8080)
    s.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
    got = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        got += d
    s.close()
    assert b"200 OK" in got and b"page-ok" in got
    assert pf.error(8080) is None
