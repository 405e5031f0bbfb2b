"""The ML example (examples/ml) end to end, and its training/serving logic on
the host.

test_ml_example_demo runs examples/ml/demo.sh unchanged against a cluster of
its own (a control plane plus a separate agent with its own bridge and run
directory, as in test_agent_cluster) and a loopback registry on a free port:
image built from Debian packages (cached under build/ml-image), pushed and
referenced by digest; an Indexed training Job whose evicted worker resumes
from a checkpoint; a model server rolled to a second model under load. The
demo writes its results to a JSON summary that the test checks, and the test
re-reads the cluster state with kubectl.

The *_local tests run train.py, serve.py and score.py under /usr/bin/python3
with Debian's numpy: no cluster, no root."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

from conftest import ROOT, free_port

pytestmark = pytest.mark.agents

ML = os.path.join(ROOT, "examples", "ml")


def have_numpy():
    return subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True).returncode == 0


needs_numpy = pytest.mark.skipif(not have_numpy(), reason="needs python3-numpy")


def run_train(data, uid, index, **env):
    e = dict(os.environ, JOB_UID=uid, DATA_DIR=data, JOB_COMPLETION_INDEX=str(index), STEP_SLEEP="0",
             PYTHONDONTWRITEBYTECODE="1")
    e.update({k: str(v) for k, v in env.items()})
    return subprocess.Popen([sys.executable, os.path.join(ML, "train.py")], env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@needs_numpy
def test_train_resumes_and_averages_local(tmp_path):
    data = str(tmp_path)
    # worker 1 is stopped with SIGTERM mid-training: it checkpoints and exits 143
    p = run_train(data, "u1", 1, STEP_SLEEP="0.02", STEPS=300)
    wdir = os.path.join(data, "runs", "u1", "worker-1")
    deadline = time.time() + 60
    while not (os.path.isdir(wdir) and any(f.startswith("ckpt-") for f in os.listdir(wdir))):
        assert time.time() < deadline and p.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    out1, _ = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM, out1
    assert "checkpoint saved, exiting" in out1
    # its replacement resumes from the newest checkpoint
    p = run_train(data, "u1", 1, STEPS=300)
    out2, _ = p.communicate(timeout=60)
    assert p.returncode == 0, out2
    step = int(out2.split("resumed from step ")[1].split()[0])
    assert 0 < step < 300
    assert not os.path.exists(os.path.join(data, "runs", "u1", "model.npz"))  # worker 0 not done yet
    p = run_train(data, "u1", 0, STEPS=300)
    out0, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and "starting from step 0" in out0, out0
    assert "wrote averaged model" in out0
    meta = json.load(open(os.path.join(data, "runs", "u1", "model.json")))
    assert meta["job_uid"] == "u1" and meta["shards"] == 2 and meta["test_accuracy"] > 0.7
    # the resumed run is deterministic: the same as an uninterrupted one
    p = run_train(data, "u2", 1, STEPS=300)
    p.communicate(timeout=60)
    import numpy as np
    a = np.load(os.path.join(data, "runs", "u1", "worker-1", "model.npz"))
    b = np.load(os.path.join(data, "runs", "u2", "worker-1", "model.npz"))
    for k in ("w1", "b1", "w2", "b2"):
        assert np.allclose(a[k], b[k])
    assert not [f for f in os.listdir(wdir) if f.startswith(".tmp-")]


@needs_numpy
def test_serve_ready_only_with_model_local(tmp_path):
    data = str(tmp_path)
    for i in (0, 1):
        p = run_train(data, "u", i, STEPS=50)
        assert p.wait(60) == 0
    port = free_port()
    env = dict(os.environ, MODEL_PATH=os.path.join(data, "runs", "u", "model.npz"), MODEL_VERSION="7",
               PORT=str(port), LOAD_DELAY="1", DRAIN_SECONDS="1")
    srv = subprocess.Popen([sys.executable, os.path.join(ML, "serve.py")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)

    def get(path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())
        except OSError:
            return None, None
    try:
        deadline = time.time() + 30
        while get("/healthz")[0] != 200:
            assert time.time() < deadline and srv.poll() is None
            time.sleep(0.05)
        assert get("/ready")[0] == 503 and get("/predict?sample=1")[0] == 503
        while get("/ready")[0] != 200:
            assert time.time() < deadline
            time.sleep(0.05)
        code, body = get("/predict?sample=3")
        assert code == 200 and body["model_version"] == "7" and body["predictions"][0] in (0, 1, 2)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/predict", method="POST",
                                     data=json.dumps({"instances": [[0.1] * 16, [-1] * 16]}).encode())
        with urllib.request.urlopen(req, timeout=2) as r:
            assert len(json.loads(r.read())["predictions"]) == 2
        srv.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        assert get("/ready")[0] == 503          # draining: not ready, still answering
        assert get("/predict?sample=1")[0] == 200
        assert srv.wait(10) == 0
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    env = dict(os.environ, DATA_DIR=data)
    out = subprocess.run([sys.executable, os.path.join(ML, "score.py")], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "scored 500 samples" in out.stdout
    assert len(os.listdir(os.path.join(data, "scores"))) == 1


def test_manifests_render_and_pass_server_dry_run(api_cluster):
    img = "127.0.0.1:5000/skiff/ml-example@sha256:" + "0" * 64
    def render(name, *kv):
        return subprocess.run([os.path.join(ML, "render.sh"), os.path.join(ML, "manifests", name), "NS=ml-dry"]
                              + list(kv), capture_output=True, text=True, check=True).stdout
    assert subprocess.run([os.path.join(ML, "render.sh"), os.path.join(ML, "manifests", "train-job.yaml")],
                          capture_output=True).returncode != 0      # unset placeholders are refused
    api_cluster.kubectl("apply", "-f", "-", input=render("storage.yaml"))
    for doc in (render("train-job.yaml", "NAME=train-v1", "IMAGE=" + img, "VERSION=1", "STEPS=300",
                       "STEP_SLEEP=0.1", "HIDDEN=32"),
                render("serve-deployment.yaml", "IMAGE=" + img, "VERSION=1", "JOB_UID=x"),
                render("score-cronjob.yaml", "IMAGE=" + img), render("serve-service.yaml"),
                render("query-pod.yaml", "NAME=q", "IMAGE=" + img, 'ARGS="--once", "4"')):
        res = json.loads(api_cluster.kubectl("apply", "--dry-run=server", "-o", "json", "-f", "-", input=doc).stdout)
        for out in res["items"] if res["kind"] == "List" else [res]:
            check_dry_run(out)


def check_dry_run(out):
    assert out["metadata"]["namespace"] == "ml-dry"
    if out["kind"] == "Service" and out["metadata"]["name"] == "train-v1":
        assert out["spec"]["clusterIP"] == "None" and out["spec"]["publishNotReadyAddresses"] is True
    if out["kind"] == "Service" and out["metadata"]["name"] == "model-server":
        assert out["spec"]["ports"][0]["targetPort"] == "http"
    if out["kind"] == "Pod":
        assert out["spec"]["containers"][0]["command"][-1] == "http://model-server/predict"
    if out["kind"] == "Job":
        assert out["spec"]["template"]["spec"]["subdomain"] == "train-v1"
        assert out["spec"]["completionMode"] == "Indexed"
        assert out["spec"]["podFailurePolicy"]["rules"][0]["action"] == "Ignore"
        assert out["spec"]["template"]["metadata"]["labels"]["batch.kubernetes.io/controller-uid"]
    if out["kind"] == "Deployment":
        c = out["spec"]["template"]["spec"]["containers"][0]
        assert c["resources"]["requests"] == c["resources"]["limits"]
        assert out["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
        sc = out["spec"]["template"]["spec"]["securityContext"]
        assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0


def have_demo_tools():
    return (os.geteuid() == 0 and all(shutil.which(t) for t in ("mmdebstrap", "umoci", "skopeo", "conmon"))
            and os.path.exists("/usr/bin/docker-registry") and os.path.exists("/usr/lib/cni/bridge"))


@pytest.fixture
def ml_cluster():
    if not have_demo_tools():
        pytest.skip("needs root, mmdebstrap, umoci, skopeo, docker-registry and the runtime tools")
    from test_agent_cluster import AgentCluster
    d = tempfile.mkdtemp(prefix="skiff-e2e-ml-")
    c = AgentCluster(d, node="ml-node")
    try:
        c.start()
        c.start_agent()
        yield c
    finally:
        env = dict(os.environ, ML_REGISTRY_DIR=os.path.join(d, "registry"))
        subprocess.run([os.path.join(ML, "down.sh")], env=env, capture_output=True)
        try:  # stop the example's pods while the agent still runs (cleanup() only clears "default")
            c.kubectl("-n", "ml", "delete", "cronjob,deploy,job,pods", "--all", "--wait=false", check=False)
            deadline = time.time() + 90
            while time.time() < deadline and c.kjson("-n", "ml", "get", "pods")["items"]:
                if time.time() > deadline - 30:  # pods stuck on a finalizer: let them go
                    for p in c.kjson("-n", "ml", "get", "pods")["items"]:
                        c.kubectl("-n", "ml", "patch", "pod", p["metadata"]["name"], "--type=merge",
                                  "-p", '{"metadata":{"finalizers":null}}', check=False)
                time.sleep(1)
        except Exception:
            pass
        c.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def test_ml_example_demo(ml_cluster):
    c = ml_cluster
    summary = os.path.join(c.data_dir, "ml.json")
    env = dict(os.environ, KUBECONFIG=c.kubeconfig, SKIFF_DATA=c.data_dir, ML_SUMMARY=summary,
               ML_REGISTRY_PORT=str(free_port()), ML_REGISTRY_DIR=os.path.join(c.data_dir, "registry"),
               ML_CRON_WAIT="0", ML_NAMESPACE="ml")
    r = subprocess.run([os.path.join(ML, "demo.sh")], env=env, capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, (f"demo.sh failed ({r.returncode}):\n{r.stdout[-6000:]}\n{r.stderr[-3000:]}\n"
                               f"agent log:\n{c.agent_logs()}")
    s = json.load(open(summary))
    assert "@sha256:" in s["image"]
    # the Job completed with both indexes; the evicted worker resumed from a checkpoint
    job = c.kjson("-n", "ml", "get", "job", "train-v1")
    assert job["status"]["completedIndexes"] == "0,1" or job["status"]["completedIndexes"] == "0-1"
    assert job["status"]["succeeded"] == 2
    assert any(cd["type"] == "Complete" and cd["status"] == "True" for cd in job["status"]["conditions"])
    assert s["train"]["completedIndexes"] == job["status"]["completedIndexes"]
    assert s["resumed"]["step"] > 0 and s["resumed"]["victim"] != s["resumed"]["replacement"]
    # the workers found worker 0 by its stable DNS name behind the headless Service train-v1
    assert s["rendezvous"] > 0
    svc = c.kjson("-n", "ml", "get", "service", "train-v1")
    assert svc["spec"]["clusterIP"] == "None"
    assert job["spec"]["template"]["spec"]["subdomain"] == "train-v1"
    logs = c.kubectl("-n", "ml", "logs", s["resumed"]["replacement"]).stdout
    assert f"resumed from step {s['resumed']['step']}" in logs
    # the trained model is on the volume, under the Job's uid
    assert s["train"]["uid"] == job["metadata"]["uid"]
    assert s["train"]["model_exists"] and os.path.isfile(s["train"]["model"])
    assert s["train"]["uid"] in s["train"]["model"]
    # the model server is reached through its Service: the rollout's queries went to
    # http://model-server from a client pod, by name
    svc = c.kjson("-n", "ml", "get", "service", "model-server")
    assert svc["spec"]["clusterIP"] and svc["spec"]["clusterIP"] != "None"
    # the rollout had zero failed queries and both versions answered
    ro = s["rollout"]
    assert ro["queries"] > 20 and ro["failed"] == 0, ro
    assert ro["by_version"].get("2", 0) > 0
    # predictions were returned, from v1 and from v2
    assert s["predictions_v1"] and all("predicted class" in p and "model v1" in p for p in s["predictions_v1"])
    assert s["predictions_v2"] and all("model v2" in p for p in s["predictions_v2"])
    dep = c.kjson("-n", "ml", "get", "deployment", "model-server")
    assert dep["status"].get("updatedReplicas") == 2 and dep["status"].get("readyReplicas") == 2
    pods = c.kjson("-n", "ml", "get", "pods", "-l", "app=model-server")["items"]
    assert {p["status"].get("qosClass") for p in pods if not p["metadata"].get("deletionTimestamp")} == {"Guaranteed"}
    for p in pods:
        assert p["spec"]["containers"][0]["image"] == s["image"]
    assert c.kjson("-n", "ml", "get", "cronjob", "batch-score")["spec"]["schedule"] == "* * * * *"
