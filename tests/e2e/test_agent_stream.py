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

from conftest import KUBECTL
from test_agent_cluster import have_tools, wait_for
from test_agent_embedded import embedded_cluster

pytestmark = pytest.mark.agents


@pytest.fixture(scope="module")
def emb():
    if not have_tools():
        pytest.skip("needs root, conmon, crun/runc, CNI plugins and busybox")
    with embedded_cluster("skiff-e2e-stream-", "st") as c:
        c.kubectl("apply", "-f", "-", input=f"""
apiVersion: v1
kind: Pod
metadata: {{name: sh, labels: {{app: sh}}}}
spec:
  nodeName: {c.node}
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


def port_forward_get(c, target, remote, path="/index.html"):
    """kubectl port-forward TARGET :REMOTE, then one HTTP GET through it."""
    p = subprocess.Popen([KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "port-forward", target,
                          f":{remote}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()  # "Forwarding from 127.0.0.1:PORT -> REMOTE"
        assert line.startswith("Forwarding from 127.0.0.1:"), (line, p.stderr.read() if p.poll() is not None else "")
        port = int(line.split(":")[1].split()[0])
        bodies = []
        for _ in range(2):  # a second connection through the same forward
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
            got = bytearray()
            while True:
                d = s.recv(65536)
                if not d:
                    break
                got += d
            s.close()
            bodies.append(bytes(got))
        return bodies
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_kubectl_port_forward_pod_service_deployment(emb):
    c = emb
    for got in port_forward_get(c, "pod/sh", 8080):
        assert b"200 OK" in got and b"page-ok" in got
    c.kubectl("apply", "-f", "-", input="""
apiVersion: v1
kind: Service
metadata: {name: shs}
spec:
  selector: {app: sh}
  ports: [{port: 80, targetPort: 8080}]
""")
    assert all(b"page-ok" in g for g in port_forward_get(c, "svc/shs", 80))
    c.kubectl("apply", "-f", "-", input=f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: webd}}}}
  template:
    metadata: {{labels: {{app: webd}}}}
    spec:
      nodeName: {c.node}
      terminationGracePeriodSeconds: 1
      containers:
      - {{name: web, image: "busybox:1", command: ["sh", "-c", "mkdir -p /w && echo deploy-ok > /w/index.html && httpd -f -p 9090 -h /w"]}}
""")
    wait_for(lambda: c.kjson("get", "deploy", "web").get("status", {}).get("availableReplicas") == 1, 90,
             what="deployment web available")
    assert all(b"deploy-ok" in g for g in port_forward_get(c, "deploy/web", 9090))


def test_kubectl_port_forward_refused_port(emb):
    c = emb
    p = subprocess.Popen([KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "port-forward", "pod/sh",
                          ":9999"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(p.stdout.readline().split(":")[1].split()[0])
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.settimeout(30)
        assert s.recv(100) == b""
        s.close()
        _, err = p.communicate(timeout=30)
        assert "error forwarding port 9999 to pod" in err and "Connection refused" in err
    finally:
        if p.poll() is None:
            p.kill()


def test_port_forward_large_transfers(emb):
    """Megabytes through kubectl's tunnelled SPDY and the Python client's paced WebSocket arrive
    whole: the relays keep libmicrohttpd's forwarding going while their socketpairs are full."""
    c = emb
    sums = {}
    for name, mib in (("big", 24), ("mid", 4)):
        out = kexec(c, "sh", "-c", "web", "--", "sh", "-c",
                    f"head -c {mib << 20} /dev/urandom > /www/{name} && sha256sum /www/{name}").stdout
        sums[name] = out.split()[0]
    for got in port_forward_get(c, "pod/sh", 8080, "/big"):
        head, _, body = got.partition(b"\r\n\r\n")
        assert b"200 OK" in head and len(body) == 24 << 20
        assert hashlib.sha256(body).hexdigest() == sums["big"]
    from kubernetes import client, config
    from kubernetes.stream import portforward
    config.load_kube_config(c.kubeconfig)
    pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, "sh", "default", ports="8080")
    s = pf.socket(8080)
    s.sendall(b"GET /mid HTTP/1.0\r\n\r\n")
    got = bytearray()
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        got += d
    s.close()
    head, _, body = bytes(got).partition(b"\r\n\r\n")
    assert b"200 OK" in head and hashlib.sha256(body).hexdigest() == sums["mid"]


def test_kubectl_cp_both_ways(emb):
    c = emb
    d = tempfile.mkdtemp(prefix="skiff-cp-")
    try:
        src = os.path.join(d, "up.bin")
        with open(src, "wb") as f:
            f.write(os.urandom(64 * 1024))
        want = hashlib.sha256(open(src, "rb").read()).hexdigest()
        c.kubectl("cp", src, "sh:/tmp/up.bin", "-c", "main")
        got = kexec(c, "sh", "-c", "main", "--", "sha256sum", "/tmp/up.bin").stdout.split()[0]
        assert got == want
        back = os.path.join(d, "down.bin")
        c.kubectl("cp", "sh:/tmp/up.bin", back, "-c", "main")
        assert hashlib.sha256(open(back, "rb").read()).hexdigest() == want
    finally:
        shutil.rmtree(d, ignore_errors=True)


def kubectl_tty(c, *args, input="", timeout=90):
    """kubectl with a terminal on its side (script gives it one)."""
    cmd = " ".join([f"{KUBECTL} --kubeconfig {c.kubeconfig} --cache-dir {c.cache}"] + list(args))
    return subprocess.run(["script", "-qec", cmd, "/dev/null"], input=input, capture_output=True, text=True,
                          timeout=timeout)


def test_attach_tty_stdin_and_python(emb):
    c = emb
    c.kubectl("apply", "-f", "-", input=f"""
apiVersion: v1
kind: Pod
metadata: {{name: att}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - {{name: tty, image: "busybox:1", command: ["sh"], stdin: true, tty: true}}
  - {{name: lines, image: "busybox:1", stdin: true,
     command: ["sh", "-c", "while read l; do echo got-$l; echo err-$l >&2; done; echo stdin-closed; sleep 3600"]}}
""")
    wait_for(lambda: c.kjson("get", "pod", "att")["status"].get("phase") == "Running", 90, what="pod att running")
    # the Python client: stdout and stderr apart, input to the container's stdin
    from kubernetes import client, config
    from kubernetes.stream import stream
    config.load_kube_config(c.kubeconfig)
    api = client.CoreV1Api()
    ws = stream(api.connect_get_namespaced_pod_attach, "att", "default", container="lines", stderr=True,
                stdin=True, stdout=True, tty=False, _preload_content=False)
    ws.write_stdin("one\n")
    out, err = "", ""
    deadline = time.time() + 30
    while ws.is_open() and time.time() < deadline and ("got-one" not in out or "err-one" not in err):
        ws.update(timeout=1)
        out += ws.read_stdout() if ws.peek_stdout() else ""
        err += ws.read_stderr() if ws.peek_stderr() else ""
    ws.close()
    assert "got-one" in out and "err-one" in err and "err-one" not in out, (out, err)
    # kubectl attach -it: the shell reads what is typed, its terminal echoes it
    r = kubectl_tty(c, "attach", "-it", "att", "-c", "tty", input="echo at-$((6*7)); exit\n")
    assert "at-42" in r.stdout and "echo at-" in r.stdout, r
    wait_for(lambda: any(s["name"] == "tty" and "terminated" in s.get("state", {})
                         for s in c.kjson("get", "pod", "att")["status"].get("containerStatuses", [])),
             30, what="tty container ended with its shell")
    c.kubectl("delete", "pod", "att", "--grace-period=1", "--wait=false")


def test_run_it_rm(emb):
    c = emb
    over = json.dumps({"spec": {"nodeName": c.node, "terminationGracePeriodSeconds": 1}})
    r = kubectl_tty(c, "run", "-it", "--rm", "--restart=Never", "--image=busybox:1", "runrm",
                    f"--overrides='{over}'", "--command", "--", "sh", "-c", "'echo hi-from-run'")
    assert r.returncode == 0 and "hi-from-run" in r.stdout and 'pod "runrm" deleted' in r.stdout, r
    assert c.kubectl("get", "pod", "runrm", check=False).returncode != 0


def test_exec_killed_client_kills_process(emb):
    c = emb
    marker = "4%05d" % random.randrange(100000)

    def running():
        for pid in os.listdir("/proc"):
            try:
                if pid.isdigit() and open(f"/proc/{pid}/cmdline", "rb").read() == f"sleep\0{marker}\0".encode():
                    return pid
            except OSError:
                pass
        return None

    for tty in (False, True):
        args = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "exec", "sh", "-c", "main", "--",
                "sleep", marker]
        if tty:
            args = ["script", "-qec", " ".join(args[:5] + ["exec", "-it"] + args[6:]), "/dev/null"]
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            wait_for(running, 30, what="the exec'd sleep")
        finally:
            os.killpg(p.pid, 9)
            p.wait()
        wait_for(lambda: not running(), 30, what="the exec'd sleep killed with its client")


def test_debug_ephemeral_target_copy_and_node(emb):
    c = emb
    # kubectl debug -it --target: an ephemeral container in the target's PID namespace
    r = kubectl_tty(c, "debug", "-it", "sh", "--image=busybox:1", "--target=main", "-c", "dbg", "--",
                    "sh", input="ps -o pid,args; exit\n")
    assert "sleep 3600" in r.stdout, r
    pod = c.kjson("get", "pod", "sh")
    ec = pod["spec"]["ephemeralContainers"]
    assert [e["name"] for e in ec] == ["dbg"] and ec[0]["targetContainerName"] == "main"
    wait_for(lambda: any(s["name"] == "dbg" and "terminated" in s.get("state", {})
                         for s in c.kjson("get", "pod", "sh")["status"].get("ephemeralContainerStatuses", [])),
             30, what="the debug container's status")
    d = c.kubectl("describe", "pod", "sh").stdout
    assert "Ephemeral Containers:" in d and "dbg:" in d, d
    # append-only, and only what ephemeral containers may set
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    api = client.CoreV1Api(c.api_client())
    body = {"spec": {"ephemeralContainers": [
        ec[0], {"name": "bad", "image": "busybox:1", "ports": [{"containerPort": 80}], "targetContainerName": "nope"}]}}
    with pytest.raises(ApiException) as ei:
        api.patch_namespaced_pod_ephemeralcontainers("sh", "default", body)
    e = json.loads(ei.value.body)
    assert ei.value.status == 422 and e["reason"] == "Invalid", e
    assert "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container" in e["message"]
    assert 'spec.ephemeralContainers[1].targetContainerName: Not found: "nope"' in e["message"]
    cur = api.read_namespaced_pod_ephemeralcontainers("sh", "default")
    cur.spec.ephemeral_containers = []
    with pytest.raises(ApiException) as ei:
        api.replace_namespaced_pod_ephemeralcontainers("sh", "default", cur)
    assert ei.value.status == 422 and 'existing ephemeral containers \\"dbg\\" may not be removed' in ei.value.body
    # only spec.ephemeralContainers changes through the subresource
    cur = api.read_namespaced_pod_ephemeralcontainers("sh", "default")
    cur.metadata.labels = {"changed": "yes"}
    cur.spec.active_deadline_seconds = 5
    out = api.replace_namespaced_pod_ephemeralcontainers("sh", "default", cur)
    assert not (out.metadata.labels or {}).get("changed") and out.spec.active_deadline_seconds is None
    # --copy-to: a new pod with one more container, on the same node
    c.kubectl("debug", "sh", "--copy-to=sh-copy", "--same-node", "--container=extra", "--image=busybox:1",
              "--", "sleep", "3600")
    wait_for(lambda: c.kjson("get", "pod", "sh-copy")["status"].get("phase") == "Running", 90,
             what="pod sh-copy running")
    cp = c.kjson("get", "pod", "sh-copy")
    assert [x["name"] for x in cp["spec"]["containers"]] == ["main", "web", "extra"]
    assert not cp["spec"].get("ephemeralContainers")
    c.kubectl("delete", "pod", "sh-copy", "--grace-period=1", "--wait=false")
    # node/: a pod in the host's namespaces with the host's root at /host
    marker = os.path.join(tempfile.mkdtemp(prefix="skiff-dbg-"), "marker")
    with open(marker, "w") as f:
        f.write("node-root-ok\n")
    # hostIPC (set by kubectl debug node/): the host's IPC namespace, where a pod has its own
    host_ipc = os.readlink("/proc/self/ns/ipc")
    assert kexec(c, "sh", "-c", "main", "--", "readlink", "/proc/self/ns/ipc").stdout.strip() != host_ipc
    r = kubectl_tty(c, "debug", f"node/{c.node}", "-it", "--image=busybox:1", "--",
                    "sh", input=f"cat /host{marker}; ps -o args | grep -c 'skiff serve[r]'; "
                    "echo ipc=$(readlink /proc/self/ns/ipc); exit\n")
    assert "node-root-ok" in r.stdout and "Creating debugging pod node-debugger-" in r.stdout, r
    assert f"ipc={host_ipc}" in r.stdout, r
    pods = [p for p in c.kjson("get", "pods")["items"] if p["metadata"]["name"].startswith("node-debugger-")]
    assert len(pods) == 1 and pods[0]["spec"]["hostPID"] and pods[0]["spec"]["hostNetwork"]
    assert pods[0]["spec"]["hostIPC"]
    assert pods[0]["spec"]["nodeName"] == c.node
    c.kubectl("delete", "pod", pods[0]["metadata"]["name"], "--grace-period=1", "--wait=false")
    shutil.rmtree(os.path.dirname(marker), ignore_errors=True)
