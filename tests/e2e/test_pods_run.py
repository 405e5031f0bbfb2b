"""Pods run for real: a separate `skiff agent` runs busybox containers under
conmon with crun (and runc), driven with kubectl."""
import json
import subprocess
import time

import pytest

from test_agent_cluster import agent_cluster, wait_for  # noqa: F401  (fixture)

pytestmark = pytest.mark.agents


def pod_yaml(name, node, command, extra_ctr="", extra_spec="", restart="Never", image="busybox:1"):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeName: {node}
  restartPolicy: {restart}
  terminationGracePeriodSeconds: 5
{extra_spec}
  containers:
  - name: c
    image: {image}
    command: {json.dumps(command)}
{extra_ctr}
"""


def wait_events(c, name, *texts):
    """The agent records Events in the background: wait until the pod's
    Events show every text."""
    def seen():
        ev = c.kubectl("get", "events", "--field-selector", f"involvedObject.name={name}").stdout
        return all(t in ev for t in texts)
    wait_for(seen, 30, what=f"events {texts} of {name}")


def cstatus(pod, name="c", key="containerStatuses"):
    return [s for s in pod["status"].get(key, []) if s["name"] == name][0]


def terminated(pod, name="c"):
    st = cstatus(pod, name)["state"]
    return st.get("terminated")


def test_pod_completes_with_logs(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("hello", c.node, ["sh", "-c", "echo hello world; echo oops >&2; echo $HOSTNAME"]))
    p = c.wait_phase("hello", "Succeeded")
    t = terminated(p)
    assert t["reason"] == "Completed" and t["exitCode"] == 0
    cs = cstatus(p)
    assert cs["containerID"].startswith(("crun://", "runc://"))
    assert cs["imageID"].startswith("docker.io/library/busybox@sha256:")
    assert p["status"]["podIP"] and p["status"]["hostIP"] and p["status"]["startTime"]
    assert p["status"]["qosClass"] == "BestEffort"
    out = c.kubectl("logs", "hello").stdout
    assert "hello world" in out and "oops" in out
    assert "hello" in out.splitlines()  # $HOSTNAME is the pod name
    assert c.kubectl("get", "pod", "hello").stdout.split("\n")[1].split()[2] == "Completed"
    ts = c.kubectl("logs", "hello", "--timestamps").stdout.splitlines()[0]
    assert ts.split(" ", 1)[0].startswith("20") and ts.endswith("hello world")
    # stdout and stderr reach the log through two pipes, so their order may vary: --tail 1 is the
    # last line of the whole log, whichever it is
    assert c.kubectl("logs", "hello", "--tail", "1").stdout.splitlines() == out.splitlines()[-1:]
    assert c.kubectl("logs", "hello", "--limit-bytes", "5").stdout == "hello"
    wait_events(c, "hello", "Pulled", "Created", "Started")


def test_crashloop_backoff_and_previous_logs(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("crash", c.node, ["sh", "-c", "echo attempt-$(date +%s%N); exit 3"], restart="Always"))
    p = c.wait_pod("crash", lambda p: cstatus(p)["restartCount"] >= 2 and
                   cstatus(p)["state"].get("waiting", {}).get("reason") == "CrashLoopBackOff", 90,
                   what="CrashLoopBackOff with 2 restarts")
    last = cstatus(p)["lastState"]["terminated"]
    assert last["exitCode"] == 3 and last["reason"] == "Error"
    assert p["status"]["phase"] == "Running"
    prev = c.kubectl("logs", "crash", "--previous").stdout
    assert prev.startswith("attempt-")
    wait_events(c, "crash", "BackOff")
    c.kubectl("delete", "pod", "crash", "--wait=false")


def test_oom_killed(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("oom", c.node, ["tail", "/dev/zero"],
                     extra_ctr="    resources: {limits: {memory: 32Mi}, requests: {memory: 32Mi}}"))
    p = c.wait_phase("oom", "Failed", 90)
    t = terminated(p)
    assert t["reason"] == "OOMKilled" and t["exitCode"] == 137
    assert p["status"]["qosClass"] == "Burstable"


def test_liveness_failure_restarts(agent_cluster):
    c = agent_cluster
    probe = """    livenessProbe:
      exec: {command: ["test", "-f", "/tmp/healthy"]}
      periodSeconds: 1
      failureThreshold: 2"""
    c.apply(pod_yaml("live", c.node, ["sh", "-c", "touch /tmp/healthy; sleep 3; rm /tmp/healthy; sleep 3600"],
                     extra_ctr=probe, restart="Always"))
    c.wait_pod("live", lambda p: cstatus(p)["restartCount"] >= 1, 60, what="a liveness restart")
    wait_events(c, "live", "Unhealthy", "Killing")
    c.kubectl("delete", "pod", "live", "--wait=false")


def test_readiness_gates_ready(agent_cluster):
    c = agent_cluster
    probe = """    readinessProbe:
      exec: {command: ["test", "-f", "/tmp/ready"]}
      periodSeconds: 1"""
    c.apply(pod_yaml("ready", c.node, ["sh", "-c", "sleep 4; touch /tmp/ready; sleep 3600"], extra_ctr=probe))
    p = c.wait_phase("ready", "Running")
    conds = {x["type"]: x["status"] for x in p["status"]["conditions"]}
    assert conds["Ready"] == "False" and not cstatus(p)["ready"]
    c.wait_pod("ready", lambda p: {x["type"]: x["status"] for x in p["status"]["conditions"]}["Ready"] == "True",
               30, what="Ready")
    c.kubectl("wait", "--for=condition=Ready", "pod/ready", "--timeout=10s")
    c.kubectl("delete", "pod", "ready", "--wait=false")


def test_init_containers_and_sidecar(agent_cluster):
    c = agent_cluster
    c.apply(f"""
apiVersion: v1
kind: Pod
metadata: {{name: withinit}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  terminationGracePeriodSeconds: 3
  initContainers:
  - name: first
    image: busybox:1
    command: ["sh", "-c", "echo one > /shared/order"]
    volumeMounts: [{{name: work, mountPath: /shared}}]
  - name: second
    image: busybox:1
    command: ["sh", "-c", "echo two >> /shared/order"]
    volumeMounts: [{{name: work, mountPath: /shared}}]
  - name: side
    image: busybox:1
    restartPolicy: Always
    command: ["sh", "-c", "echo sidecar-up > /shared/side; sleep 3600"]
    volumeMounts: [{{name: work, mountPath: /shared}}]
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "sleep 1; cat /shared/order /shared/side"]
    volumeMounts: [{{name: work, mountPath: /shared}}]
  volumes:
  - {{name: work, emptyDir: {{}}}}
""")
    p = c.wait_phase("withinit", "Succeeded", 90)
    assert c.kubectl("logs", "withinit", "-c", "c").stdout.split() == ["one", "two", "sidecar-up"]
    inits = {s["name"]: s for s in p["status"]["initContainerStatuses"]}
    assert inits["first"]["state"]["terminated"]["reason"] == "Completed"
    assert inits["side"]["state"].get("terminated") is not None  # stopped after the main container
    conds = {x["type"]: x["status"] for x in p["status"]["conditions"]}
    assert conds["Initialized"] == "True"


def test_env_from_configmap_and_secret(agent_cluster):
    c = agent_cluster
    c.apply("""
apiVersion: v1
kind: ConfigMap
metadata: {name: envcm}
data: {greeting: hi-from-cm, mode: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: envsec}
data: {password: czNjcmV0}
""")
    extra = """    env:
    - {name: GREETING, valueFrom: {configMapKeyRef: {name: envcm, key: greeting}}}
    - {name: PASSWORD, valueFrom: {secretKeyRef: {name: envsec, key: password}}}
    - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: COMBINED, value: "$(GREETING)-x"}
    envFrom:
    - prefix: CM_
      configMapRef: {name: envcm}
    resources: {limits: {memory: 64Mi}}
    volumeMounts:
    - {name: cm, mountPath: /etc/cm}
    - {name: sec, mountPath: /etc/sec}
    - {name: info, mountPath: /etc/info}"""
    spec = """  volumes:
  - {name: cm, configMap: {name: envcm, items: [{key: mode, path: sub/mode}]}}
  - {name: sec, secret: {secretName: envsec, defaultMode: 0400}}
  - {name: info, downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}}"""
    c.apply(pod_yaml("envpod", c.node, ["sh", "-c", "echo G=$GREETING P=$PASSWORD N=$POD M=$MEM C=$COMBINED "
                                        "F=$CM_mode; cat /etc/cm/sub/mode /etc/sec/password /etc/info/name; echo; "
                                        "stat -c %a /etc/sec/password"],
                     extra_ctr=extra, extra_spec=spec))
    c.wait_phase("envpod", "Succeeded")
    out = c.kubectl("logs", "envpod").stdout
    assert "G=hi-from-cm P=s3cret N=envpod M=64 C=hi-from-cm-x F=fast" in out
    assert "fasts3cretenvpod" in out.replace("\n", "")
    assert out.strip().endswith("400")


def test_missing_configmap_is_config_error(agent_cluster):
    c = agent_cluster
    extra = """    env:
    - {name: X, valueFrom: {configMapKeyRef: {name: nope, key: k}}}"""
    c.apply(pod_yaml("cfgerr", c.node, ["true"], extra_ctr=extra))
    p = c.wait_pod("cfgerr", lambda p: cstatus(p)["state"].get("waiting", {}).get("reason") ==
                   "CreateContainerConfigError", 30, what="CreateContainerConfigError")
    assert 'configmap "nope" not found' in cstatus(p)["state"]["waiting"]["message"]
    c.kubectl("delete", "pod", "cfgerr", "--wait=false")


def test_run_as_non_root_refused_for_root_image(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("nonroot", c.node, ["true"], extra_ctr="    securityContext: {runAsNonRoot: true}"))
    p = c.wait_pod("nonroot", lambda p: cstatus(p)["state"].get("waiting", {}).get("reason") ==
                   "CreateContainerConfigError", 30, what="CreateContainerConfigError")
    assert "container has runAsNonRoot and image will run as root" in cstatus(p)["state"]["waiting"]["message"]
    c.kubectl("delete", "pod", "nonroot", "--wait=false")
    c.apply(pod_yaml("asuser", c.node, ["sh", "-c", "id -u; id -g"],
                     extra_ctr="    securityContext: {runAsNonRoot: true, runAsUser: 1234, runAsGroup: 2345}"))
    c.wait_phase("asuser", "Succeeded")
    assert c.kubectl("logs", "asuser").stdout.split() == ["1234", "2345"]


def test_two_pods_talk_over_pod_ips(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("server", c.node, ["sh", "-c", "while true; do echo pong-from-$(hostname) | nc -l -p 8080; done"],
                     extra_ctr="    ports: [{containerPort: 8080}]\n    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}"))
    srv = c.wait_pod("server", lambda p: p["status"].get("podIP") and cstatus(p).get("ready"), 60,
                     what="server ready")
    ip = srv["status"]["podIP"]
    c.apply(pod_yaml("client", c.node, ["sh", "-c", f"for i in $(seq 50); do o=$(nc {ip} 8080 </dev/null); "
                                                    "case $o in pong*) echo $o; exit 0;; esac; sleep 0.2; done; exit 1"]))
    c.pod_uids.add(srv["metadata"]["uid"])
    c.wait_phase("client", "Succeeded", 60)
    out = c.kubectl("logs", "client").stdout
    assert "pong-from-server" in out
    assert c.pod("client")["status"]["podIP"] != ip


def test_graceful_delete_runs_prestop(agent_cluster):
    c = agent_cluster
    extra = """    lifecycle:
      preStop:
        exec: {command: ["sh", "-c", "echo prestop-ran > /data/prestop"]}
    volumeMounts: [{name: data, mountPath: /data}]"""
    spec = f"""  volumes:
  - {{name: data, hostPath: {{path: {c.data_dir}/prestop-vol, type: DirectoryOrCreate}}}}"""
    c.apply(pod_yaml("graceful", c.node, ["sh", "-c", "trap 'echo got-term > /data/term; exit 0' TERM; "
                                          "while true; do sleep 0.2; done"],
                     extra_ctr=extra, extra_spec=spec, restart="Always"))
    c.wait_phase("graceful", "Running")
    time.sleep(1)
    t0 = time.time()
    c.kubectl("delete", "pod", "graceful", "--grace-period=20")
    assert time.time() - t0 < 20
    with open(f"{c.data_dir}/prestop-vol/prestop") as f:
        assert f.read().strip() == "prestop-ran"
    with open(f"{c.data_dir}/prestop-vol/term") as f:
        assert f.read().strip() == "got-term"


def test_grace_period_ends_with_sigkill(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("stubborn", c.node, ["sh", "-c", "trap '' TERM; while true; do sleep 0.2; done"],
                     restart="Always"))
    c.wait_phase("stubborn", "Running")
    t0 = time.time()
    c.kubectl("delete", "pod", "stubborn", "--grace-period=2")
    took = time.time() - t0
    assert 1.5 < took < 20


def test_runtimeclass_runc(agent_cluster):
    c = agent_cluster
    if not subprocess.run(["which", "runc"], capture_output=True).returncode == 0:
        pytest.skip("runc not installed")
    c.apply("""
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: runc}
handler: runc
""")
    c.apply(pod_yaml("withrunc", c.node, ["sh", "-c", "echo under-runc"], extra_spec="  runtimeClassName: runc"))
    p = c.wait_phase("withrunc", "Succeeded")
    assert cstatus(p)["containerID"].startswith("runc://")
    assert "under-runc" in c.kubectl("logs", "withrunc").stdout


def test_persistent_volume_claim_local_path(agent_cluster):
    c = agent_cluster
    c.apply(f"""
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: pvcwriter}}
spec:
  nodeName: {c.node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "echo persisted > /data/file"]
    volumeMounts: [{{name: d, mountPath: /data}}]
  volumes:
  - {{name: d, persistentVolumeClaim: {{claimName: data}}}}
""")
    c.wait_phase("pvcwriter", "Succeeded")
    pvc = c.kjson("get", "pvc", "data")
    assert pvc["spec"]["volumeName"].startswith("pvc-")
    pv = c.kjson("get", "pv", pvc["spec"]["volumeName"])
    with open(pv["spec"]["hostPath"]["path"] + "/file") as f:
        assert f.read().strip() == "persisted"


def test_logs_follow_streams(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("ticker", c.node, ["sh", "-c", "for i in 1 2 3 4 5; do echo tick-$i; sleep 0.5; done"]))
    c.wait_pod("ticker", lambda p: p["status"].get("phase") in ("Running", "Succeeded"))
    out = c.kubectl("logs", "-f", "ticker", timeout=30).stdout
    assert "tick-5" in out


def test_agent_restart_readopts_running_pods(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("survivor", c.node, ["sh", "-c", "echo started; sleep 3600"], restart="Always"))
    before = c.wait_phase("survivor", "Running")
    cid = cstatus(before)["containerID"]
    c.stop_agent()
    pid_alive = subprocess.run(["pgrep", "-f", "conmon.*" + cid.split("://")[1][:32]], capture_output=True)
    assert pid_alive.returncode == 0, "the container must outlive the agent"
    c.start_agent()
    time.sleep(3)
    after = c.pod("survivor")
    assert cstatus(after)["containerID"] == cid
    assert cstatus(after)["restartCount"] == 0
    assert "running" in cstatus(after)["state"]
    assert after["status"]["phase"] == "Running"
    assert "started" in c.kubectl("logs", "survivor").stdout
    c.kubectl("delete", "pod", "survivor", "--grace-period=1")


def test_image_pull_errors(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("neverpull", c.node, ["true"], image="nothere:1",
                     extra_ctr="    imagePullPolicy: Never"))
    p = c.wait_pod("neverpull", lambda p: cstatus(p)["state"]["waiting"]["reason"] == "ErrImageNeverPull", 30,
                   what="ErrImageNeverPull")
    assert "is not present with pull policy of Never" in cstatus(p)["state"]["waiting"]["message"]
    c.apply(pod_yaml("badpull", c.node, ["true"], image="127.0.0.1:1/none:1"))
    c.wait_pod("badpull", lambda p: cstatus(p)["state"]["waiting"]["reason"] == "ImagePullBackOff", 60,
               what="ImagePullBackOff")
    wait_events(c, "badpull", "Failed to pull image", "Pulling")
    status = c.kubectl("get", "pod", "badpull").stdout
    assert "ImagePullBackOff" in status or "ErrImagePull" in status
    c.kubectl("delete", "pod", "neverpull", "badpull", "--wait=false")


def test_http_probes_and_named_port(agent_cluster):
    c = agent_cluster
    extra = """    ports: [{name: web, containerPort: 8080}]
    readinessProbe:
      httpGet: {path: /index.html, port: web}
      periodSeconds: 1
    livenessProbe:
      httpGet: {path: /index.html, port: 8080}
      periodSeconds: 1
      failureThreshold: 3"""
    c.apply(pod_yaml("httpd", c.node, ["sh", "-c", "mkdir -p /www; echo ok > /www/index.html; "
                                       "httpd -f -p 8080 -h /www"], extra_ctr=extra, restart="Always"))
    p = c.wait_pod("httpd", lambda p: cstatus(p).get("ready"), 60, what="ready through httpGet")
    time.sleep(3)
    assert cstatus(c.pod("httpd"))["restartCount"] == 0
    c.kubectl("delete", "pod", "httpd", "--wait=false")


def test_python_client_reads_pods_and_logs(agent_cluster):
    from kubernetes import client
    c = agent_cluster
    v1 = client.CoreV1Api(c.api_client())
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pyclient"},
            "spec": {"nodeName": c.node, "restartPolicy": "Never",
                     "initContainers": [{"name": "i", "image": "busybox:1", "command": ["true"]}],
                     "containers": [{"name": "c", "image": "busybox:1", "command": ["sh", "-c", "echo from-python"]}]}}
    v1.create_namespaced_pod("default", body)
    wait_for(lambda: v1.read_namespaced_pod("pyclient", "default").status.phase == "Succeeded", 60,
             what="Succeeded")
    pod = v1.read_namespaced_pod("pyclient", "default")
    st = pod.status.container_statuses[0]
    assert st.image_id and st.restart_count == 0 and st.state.terminated.exit_code == 0
    assert pod.status.init_container_statuses[0].state.terminated.reason == "Completed"
    assert v1.read_namespaced_pod_log("pyclient", "default").strip() == "from-python"
    assert [p.metadata.name for p in v1.list_namespaced_pod("default", field_selector=f"spec.nodeName={c.node}").items]


def test_log_rotation_by_size(agent_cluster):
    import glob
    import os
    c = agent_cluster
    c.apply(pod_yaml("chatty", c.node, ["sh", "-c", "i=0; while [ $i -lt 4000 ]; do "
                                        "echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; i=$((i+1)); "
                                        "[ $((i % 200)) = 0 ] && sleep 0.3; done; sleep 3; echo final-line; sleep 3600"],
                     restart="Always"))
    p = c.wait_pod("chatty", lambda p: "running" in cstatus(p)["state"])
    uid = p["metadata"]["uid"]

    def rotated():
        files = glob.glob(os.path.join(c.agent_dir, "logs", f"default_chatty_{uid}", "c", "0.log*"))
        return len(files) >= 2 and files
    files = wait_for(rotated, 60, what="a rotated log")
    time.sleep(8)
    files = glob.glob(os.path.join(c.agent_dir, "logs", f"default_chatty_{uid}", "c", "0.log*"))
    assert len(files) <= 3
    wait_for(lambda: c.kubectl("logs", "chatty", "--tail", "1").stdout.strip() == "final-line", 30,
             what="the live log after rotation")
    c.kubectl("delete", "pod", "chatty", "--wait=false")


def test_active_deadline_fails_pod(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("deadline", c.node, ["sleep", "3600"], extra_spec="  activeDeadlineSeconds: 2"))
    p = c.wait_phase("deadline", "Failed", 60)
    assert p["status"]["reason"] == "DeadlineExceeded"


def test_termination_messages(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("termmsg", c.node, ["sh", "-c", "echo all-done > /dev/termination-log; exit 0"]))
    c.apply(pod_yaml("fallback", c.node, ["sh", "-c", "echo last-words; exit 4"],
                     extra_ctr="    terminationMessagePolicy: FallbackToLogsOnError"))
    p = c.wait_phase("termmsg", "Succeeded")
    assert terminated(p)["message"].strip() == "all-done"
    p = c.wait_phase("fallback", "Failed")
    assert terminated(p)["message"].strip() == "last-words" and terminated(p)["exitCode"] == 4


def test_host_network_pod(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("hostnet", c.node, ["sh", "-c", "ip link show lo >/dev/null && echo host-net-ok"],
                     extra_spec="  hostNetwork: true"))
    c.wait_phase("hostnet", "Succeeded")
    assert "host-net-ok" in c.kubectl("logs", "hostnet").stdout


def test_admission_rejects_pod_over_allocatable(agent_cluster):
    c = agent_cluster
    c.apply(pod_yaml("toobig", c.node, ["true"], extra_ctr="    resources: {requests: {cpu: \"1000\"}}"))
    p = c.wait_phase("toobig", "Failed", 30)
    assert p["status"]["reason"] == "OutOfcpu"
    assert p["status"]["message"].startswith("Pod was rejected: Node didn't have enough resource: cpu")
    # as kubelet's rejection: no container statuses, so kubectl shows the reason
    assert not p["status"].get("containerStatuses")
    assert "OutOfcpu" in c.kubectl("get", "pod", "toobig", "--no-headers").stdout


def test_admission_skips_finished_pods(agent_cluster):
    """A Succeeded pod no longer counts against allocatable: a pod needing
    all of the node's cpu runs right after another one finished (kubelet's
    admission skips terminal pods; the scheduler frees them the same way)."""
    c = agent_cluster
    node = json.loads(c.kubectl("get", "node", c.node, "-o", "json").stdout)
    cpu = node["status"]["allocatable"]["cpu"]
    res = f"    resources: {{requests: {{cpu: \"{cpu}\"}}}}"
    for i in range(3):
        c.apply(pod_yaml(f"whole-{i}", c.node, ["true"], extra_ctr=res))
        p = c.wait_pod(f"whole-{i}", lambda p: p.get("status", {}).get("phase") in ("Succeeded", "Failed"),
                       60, what="finished")
        assert p["status"]["phase"] == "Succeeded", p["status"]


def test_deployment_pods_scheduled_and_ready(agent_cluster):
    c = agent_cluster
    c.apply("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: busybox:1
        command: ["sh", "-c", "touch /tmp/ok; sleep 3600"]
        readinessProbe: {exec: {command: ["test", "-f", "/tmp/ok"]}, periodSeconds: 1}
""")
    c.kubectl("rollout", "status", "deployment/web", "--timeout=90s", timeout=120)
    pods = c.kjson("get", "pods", "-l", "app=web")["items"]
    assert len(pods) == 2 and all(p["spec"]["nodeName"] == c.node for p in pods)
    for p in pods:
        c.pod_uids.add(p["metadata"]["uid"])
    c.kubectl("delete", "deployment", "web")


def test_zz_cleanup_leaves_nothing(agent_cluster):
    c = agent_cluster
    c.delete_all_pods()
    wait_for(lambda: not c.leftovers(), 30, what="no leftovers")
