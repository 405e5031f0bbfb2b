"""The workload controllers against `skiff server --no-agent`, with the test
playing the node: it moves pods through their phases by patching pod status
(issue: workload controllers)."""
import datetime
import json
import os
import tempfile
import shutil
import threading
import time

import pytest

from conftest import Cluster, SLOW


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def wait(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def apply(c, ns, manifest):
    c.kubectl("-n", ns, "apply", "-f", "-", input=manifest)


def make_ns(c, name):
    c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                     "metadata": {"name": name}}))
    return name


def pods(c, ns, selector=None):
    args = ["-n", ns, "get", "pods"] + (["-l", selector] if selector else [])
    return c.kjson(*args)["items"]


def set_status(c, ns, pod, status):
    c.kubectl("-n", ns, "patch", "pod", pod, "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": status}))


def run_ready(c, ns, pod):
    t = now()
    set_status(c, ns, pod, {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": t},
        {"type": "ContainersReady", "status": "True", "lastTransitionTime": t}]})


def finish(c, ns, pod, code=0, container="c", conditions=None):
    t = now()
    st = {"phase": "Succeeded" if code == 0 else "Failed",
          "containerStatuses": [{"name": container, "ready": False, "restartCount": 0, "image": "busybox",
                                 "imageID": "", "state": {"terminated": {
                                     "exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                     "startedAt": t, "finishedAt": t}}}]}
    if conditions:
        st["conditions"] = conditions
    set_status(c, ns, pod, st)


def is_ready(p):
    return any(x["type"] == "Ready" and x["status"] == "True" for x in p["status"].get("conditions", []))


def cond(obj, type_):
    for x in obj.get("status", {}).get("conditions", []):
        if x["type"] == type_:
            return x
    return None


DEPLOY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "busybox:1.36"}]}
"""


def ready_all(c, ns, sel):
    for p in pods(c, ns, sel):
        if not is_ready(p) and not p["metadata"].get("deletionTimestamp"):
            run_ready(c, ns, p["metadata"]["name"])


def test_deployment_rolling_update_and_rollout_commands(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-deploy")
    apply(c, ns, DEPLOY)
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="4 pods")
    ready_all(c, ns, "app=web")
    c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
    rs = c.kjson("-n", ns, "get", "rs")["items"]
    assert len(rs) == 1
    h = rs[0]["metadata"]["labels"]["pod-template-hash"]
    assert rs[0]["metadata"]["name"] == "web-" + h
    assert rs[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    ref = rs[0]["metadata"]["ownerReferences"][0]
    assert ref["kind"] == "Deployment" and ref["controller"] and ref["blockOwnerDeletion"]
    for p in pods(c, ns, "app=web"):
        assert p["metadata"]["generateName"] == rs[0]["metadata"]["name"] + "-"

    c.kubectl("-n", ns, "set", "image", "deployment/web", "c=busybox:1.37")
    # play the node one readiness at a time; never fewer than replicas - maxUnavailable ready
    deadline = time.time() + 60
    while time.time() < deadline:
        ps = [p for p in pods(c, ns, "app=web") if not p["metadata"].get("deletionTimestamp")]
        assert len(ps) <= 5, "more than replicas + maxSurge pods"
        assert sum(1 for p in ps if is_ready(p)) >= 3, "below replicas - maxUnavailable ready"
        d = c.kjson("-n", ns, "get", "deploy", "web")
        st = d["status"]
        if st.get("updatedReplicas") == 4 and st.get("availableReplicas") == 4 and st.get("replicas") == 4:
            break
        for p in ps:
            if not is_ready(p):
                run_ready(c, ns, p["metadata"]["name"])
                break
        time.sleep(0.3)
    else:
        raise AssertionError("rollout did not finish")
    c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
    d = c.kjson("-n", ns, "get", "deploy", "web")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert cond(d, "Available")["status"] == "True"
    assert cond(d, "Progressing")["reason"] == "NewReplicaSetAvailable"
    hist = c.kubectl("-n", ns, "rollout", "history", "deployment/web").stdout
    assert "1" in hist and "2" in hist

    c.kubectl("-n", ns, "rollout", "undo", "deployment/web", "--to-revision=1")
    wait(lambda: c.kjson("-n", ns, "get", "deploy", "web")["metadata"]["annotations"].get(
        "deployment.kubernetes.io/revision") == "3", what="revision 3")
    old = [r for r in c.kjson("-n", ns, "get", "rs")["items"] if r["metadata"]["name"] == "web-" + h][0]
    assert old["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert old["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
    for _ in range(40):
        ready_all(c, ns, "app=web")
        st = c.kjson("-n", ns, "get", "deploy", "web")["status"]
        if st.get("updatedReplicas") == 4 and st.get("availableReplicas") == 4 and st.get("replicas") == 4:
            break
        time.sleep(0.3)
    c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
    imgs = {p["spec"]["containers"][0]["image"] for p in pods(c, ns, "app=web")}
    assert imgs == {"busybox:1.36"}

    c.kubectl("-n", ns, "rollout", "pause", "deployment/web")
    c.kubectl("-n", ns, "set", "image", "deployment/web", "c=busybox:1.38")
    time.sleep(1)
    assert len(c.kjson("-n", ns, "get", "rs")["items"]) == 2, "paused deployment rolled out"
    d = c.kjson("-n", ns, "get", "deploy", "web")
    assert cond(d, "Progressing")["reason"] == "DeploymentPaused"
    c.kubectl("-n", ns, "rollout", "resume", "deployment/web")
    wait(lambda: len(c.kjson("-n", ns, "get", "rs")["items"]) == 3, what="third replica set")
    c.kubectl("-n", ns, "rollout", "restart", "deployment/web")
    d = c.kjson("-n", ns, "get", "deploy", "web")
    assert "kubectl.kubernetes.io/restartedAt" in d["spec"]["template"]["metadata"]["annotations"]
    wait(lambda: len(c.kjson("-n", ns, "get", "rs")["items"]) == 4, what="restart replica set")


def test_replicaset_scale_adopt_release(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-rs")
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "orphan", "labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    apply(c, ns, """
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: x}
spec:
  replicas: 3
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: c, image: busybox}]}
""")
    wait(lambda: len(pods(c, ns, "app=x")) == 3, what="3 pods")
    orphan = c.kjson("-n", ns, "get", "pod", "orphan")
    assert orphan["metadata"]["ownerReferences"][0]["name"] == "x"
    c.kubectl("-n", ns, "scale", "rs/x", "--replicas=1")
    wait(lambda: len(pods(c, ns, "app=x")) == 1, what="scale down")
    name = pods(c, ns, "app=x")[0]["metadata"]["name"]
    c.kubectl("-n", ns, "label", "pod", name, "app=other", "--overwrite")
    wait(lambda: not c.kjson("-n", ns, "get", "pod", name)["metadata"].get("ownerReferences"), what="release")
    wait(lambda: len(pods(c, ns, "app=x")) == 1, what="replacement")
    for p in pods(c, ns, "app=x"):
        run_ready(c, ns, p["metadata"]["name"])
    wait(lambda: c.kjson("-n", ns, "get", "rs", "x")["status"].get("availableReplicas") == 1, what="available")
    st = c.kjson("-n", ns, "get", "rs", "x")["status"]
    assert st["replicas"] == 1 and st["readyReplicas"] == 1 and st["fullyLabeledReplicas"] == 1
    assert st["observedGeneration"] >= 2


JOB_INDEXED = """
apiVersion: batch/v1
kind: Job
metadata: {name: idx}
spec:
  completions: 8
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def job(c, ns, name):
    return c.kjson("-n", ns, "get", "job", name)


def active_pods(c, ns, sel):
    return [p for p in pods(c, ns, sel)
            if p["status"].get("phase") not in ("Succeeded", "Failed") and not p["metadata"].get("deletionTimestamp")]


def test_indexed_job_completes_each_index_once(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-idx")
    apply(c, ns, JOB_INDEXED)
    done = []
    deadline = time.time() + 60
    while time.time() < deadline and len(done) < 8:
        act = active_pods(c, ns, "job-name=idx")
        assert len(act) <= 3
        for p in act:
            ann = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
            assert p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == ann
            assert p["spec"]["hostname"] == f"idx-{ann}"
            assert p["metadata"]["name"].startswith(f"idx-{ann}-")
            env = p["spec"]["containers"][0]["env"]
            assert any(e["name"] == "JOB_COMPLETION_INDEX" for e in env)
            assert "batch.kubernetes.io/job-tracking" in p["metadata"]["finalizers"]
            finish(c, ns, p["metadata"]["name"])
            done.append(int(ann))
        time.sleep(0.3)
    assert sorted(done) == list(range(8))
    wait(lambda: cond(job(c, ns, "idx"), "Complete"), what="Complete")
    j = job(c, ns, "idx")
    assert j["status"]["succeeded"] == 8
    assert j["status"]["completedIndexes"] == "0-7"
    assert j["status"].get("failed", 0) == 0
    assert j["status"]["completionTime"]
    assert cond(j, "SuccessCriteriaMet")["status"] == "True"
    for p in pods(c, ns, "job-name=idx"):
        assert "batch.kubernetes.io/job-tracking" not in (p["metadata"].get("finalizers") or [])


def test_indexed_jobs_under_churn_create_each_index_once(api_cluster):
    """Pods that succeed the moment they appear keep the controller's
    tracking rounds busy; it must still start exactly one pod per index
    and count each index once (a sync that gave up tracking used to start
    a second pod for an index whose pod had just succeeded)."""
    import threading
    from kubernetes import client
    c = api_cluster
    ns = make_ns(c, "ctrl-churn")
    v1, batch = client.CoreV1Api(c.api_client()), client.BatchV1Api(c.api_client())
    seen, stop, errors = set(), threading.Event(), []

    def node():
        rv = v1.list_namespaced_pod(ns, limit=1).metadata.resource_version
        node_api = client.CoreV1Api(c.api_client())
        while not stop.is_set():
            r = v1.list_namespaced_pod(ns, watch=True, resource_version=rv, timeout_seconds=5,
                                       _preload_content=False)
            buf = b""
            for chunk in r.stream(65536):
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    ev = json.loads(line)
                    obj = ev["object"]
                    if ev["type"] == "ERROR":
                        errors.append(obj)
                        return
                    rv = obj["metadata"]["resourceVersion"]
                    name = obj["metadata"]["name"]
                    if ev["type"] != "ADDED" or name in seen:
                        continue
                    seen.add(name)
                    try:
                        node_api.patch_namespaced_pod_status(
                            name, ns, [{"op": "add", "path": "/status/phase", "value": "Succeeded"}])
                    except client.rest.ApiException as e:
                        if e.status != 404:
                            errors.append(str(e))

    t = threading.Thread(target=node, daemon=True)
    t.start()
    time.sleep(0.5)
    names = [f"churn-{i}" for i in range(6)]
    for n in names:
        batch.create_namespaced_job(ns, {
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": n},
            "spec": {"completions": 20, "parallelism": 5, "completionMode": "Indexed",
                     "template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox:1"}]}}}})
    try:
        for n in names:
            wait(lambda n=n: cond(job(c, ns, n), "Complete"), timeout=120, what=f"job {n} Complete")
    finally:
        stop.set()
        t.join(10)
    assert not errors
    for n in names:
        st = job(c, ns, n)["status"]
        assert st["succeeded"] == 20 and st["completedIndexes"] == "0-19", st
        made = pods(c, ns, f"job-name={n}")
        idx = sorted(int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]) for p in made)
        assert idx == list(range(20)), f"job {n}: pods per index {idx}"
    assert len(seen) == 120


def simple_job(name, extra=""):
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}}}
spec:
{extra}
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox}}]
"""


def test_backoff_limit_exceeded(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-backoff")
    apply(c, ns, simple_job("bo", "  backoffLimit: 0"))
    p = wait(lambda: active_pods(c, ns, "job-name=bo"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"], code=1)
    j = wait(lambda: (lambda j: cond(j, "Failed") and j)(job(c, ns, "bo")), what="Failed")
    assert cond(j, "Failed")["reason"] == "BackoffLimitExceeded"
    assert cond(j, "FailureTarget")["reason"] == "BackoffLimitExceeded"
    assert j["status"]["failed"] == 1
    assert len(pods(c, ns, "job-name=bo")) == 1


def test_backoff_delays_replacement(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-backoff2")
    apply(c, ns, simple_job("bo2", "  backoffLimit: 3"))
    p = wait(lambda: active_pods(c, ns, "job-name=bo2"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"], code=1)
    wait(lambda: job(c, ns, "bo2")["status"].get("failed") == 1, what="failed count")
    time.sleep(3)
    assert not active_pods(c, ns, "job-name=bo2"), "replacement created before the 10 s backoff"
    wait(lambda: active_pods(c, ns, "job-name=bo2"), timeout=20, what="replacement after backoff")


def test_pod_failure_policy_fail_job(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-pfp")
    apply(c, ns, simple_job("pfp", """  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
    - action: FailJob
      onExitCodes: {containerName: c, operator: In, values: [42]}"""))
    p = wait(lambda: active_pods(c, ns, "job-name=pfp"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"], code=137,
           conditions=[{"type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager"}])
    wait(lambda: len(pods(c, ns, "job-name=pfp")) == 2, what="replacement of an ignored failure")
    assert job(c, ns, "pfp")["status"].get("failed", 0) == 0
    p = wait(lambda: active_pods(c, ns, "job-name=pfp"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"], code=42)
    j = wait(lambda: (lambda j: cond(j, "Failed") and j)(job(c, ns, "pfp")), what="Failed")
    assert cond(j, "Failed")["reason"] == "PodFailurePolicy"
    assert "exit code 42" in cond(j, "Failed")["message"]


def test_suspend_and_resume(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-suspend")
    apply(c, ns, simple_job("sus", "  suspend: true\n  parallelism: 2\n  completions: 2"))
    wait(lambda: cond(job(c, ns, "sus"), "Suspended"), what="Suspended")
    assert cond(job(c, ns, "sus"), "Suspended")["reason"] == "JobSuspended"
    time.sleep(1)
    assert pods(c, ns, "job-name=sus") == []
    c.kubectl("-n", ns, "patch", "job", "sus", "--type=merge", "-p", '{"spec":{"suspend":false}}')
    wait(lambda: len(active_pods(c, ns, "job-name=sus")) == 2, what="pods after resume")
    j = job(c, ns, "sus")
    assert cond(j, "Suspended")["status"] == "False" and cond(j, "Suspended")["reason"] == "JobResumed"
    assert j["status"]["startTime"]
    c.kubectl("-n", ns, "patch", "job", "sus", "--type=merge", "-p", '{"spec":{"suspend":true}}')
    wait(lambda: not active_pods(c, ns, "job-name=sus"), what="pods deleted on suspend")
    assert job(c, ns, "sus")["status"].get("failed", 0) == 0


def test_ttl_after_finished(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-ttl")
    apply(c, ns, simple_job("ttl", "  ttlSecondsAfterFinished: 1"))
    p = wait(lambda: active_pods(c, ns, "job-name=ttl"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"])
    wait(lambda: c.kubectl("-n", ns, "get", "job", "ttl", check=False).returncode != 0, what="job deleted")
    wait(lambda: pods(c, ns, "job-name=ttl") == [], what="pods collected")


def test_foreground_deletion_and_orphan(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-gc")
    apply(c, ns, DEPLOY)
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
    c.kubectl("-n", ns, "delete", "deployment", "web", "--cascade=foreground", "--timeout=30s")
    assert c.kjson("-n", ns, "get", "rs")["items"] == []
    assert pods(c, ns) == []
    apply(c, ns, DEPLOY)
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
    c.kubectl("-n", ns, "delete", "deployment", "web", "--cascade=orphan")
    wait(lambda: c.kjson("-n", ns, "get", "rs")["items"] and
         not c.kjson("-n", ns, "get", "rs")["items"][0]["metadata"].get("ownerReferences"), what="orphaned rs")
    assert len(pods(c, ns, "app=web")) == 4
    c.kubectl("-n", ns, "delete", "rs", "--all")
    wait(lambda: pods(c, ns) == [], what="background collection of pods")


def test_namespace_deletion_removes_contents(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-nsdel")
    apply(c, ns, DEPLOY)
    c.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "b"}}))
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
    c.kubectl("delete", "namespace", ns, "--timeout=30s")
    assert c.kubectl("get", "namespace", ns, check=False).returncode != 0


def test_cronjob_creates_jobs(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-cron")
    apply(c, ns, """
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "*/1 * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
""")
    jobs = wait(lambda: c.kjson("-n", ns, "get", "jobs")["items"], timeout=75, what="a scheduled job")
    j = jobs[0]
    ts = j["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
    t = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert j["metadata"]["name"] == f"cj-{int(t.timestamp()) // 60}"
    assert j["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    cj = c.kjson("-n", ns, "get", "cronjob", "cj")
    assert cj["status"]["active"][0]["name"] == j["metadata"]["name"]
    assert cj["status"]["lastScheduleTime"] == ts
    p = wait(lambda: active_pods(c, ns, "job-name=" + j["metadata"]["name"]), what="pod")[0]
    finish(c, ns, p["metadata"]["name"])
    wait(lambda: c.kjson("-n", ns, "get", "cronjob", "cj")["status"].get("lastSuccessfulTime"), what="success")
    assert not c.kjson("-n", ns, "get", "cronjob", "cj")["status"].get("active")


def test_restart_mid_rollout_and_mid_job(tmpdir_skiff):
    c = Cluster(tmpdir_skiff, ["--no-agent"]).start()
    try:
        ns = "default"
        apply(c, ns, DEPLOY)
        wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
        ready_all(c, ns, "app=web")
        c.kubectl("rollout", "status", "deployment/web", "--timeout=30s")
        apply(c, ns, JOB_INDEXED)
        wait(lambda: len(active_pods(c, ns, "job-name=idx")) == 3, what="job pods")
        for p in active_pods(c, ns, "job-name=idx")[:2]:
            finish(c, ns, p["metadata"]["name"])
        c.kubectl("set", "image", "deployment/web", "c=busybox:1.37")
        wait(lambda: len(c.kjson("get", "rs")["items"]) == 2, what="new rs")
        c.stop()
        c.start()
        for _ in range(100):
            ready_all(c, ns, "app=web")
            for p in active_pods(c, ns, "job-name=idx"):
                finish(c, ns, p["metadata"]["name"])
            d = c.kjson("get", "deploy", "web")["status"]
            j = job(c, ns, "idx")
            if d.get("updatedReplicas") == 4 and d.get("replicas") == 4 and d.get("availableReplicas") == 4 \
                    and cond(j, "Complete"):
                break
            time.sleep(0.3)
        c.kubectl("rollout", "status", "deployment/web", "--timeout=30s")
        j = job(c, ns, "idx")
        assert cond(j, "Complete")
        assert j["status"]["succeeded"] == 8
        assert j["status"]["completedIndexes"] == "0-7"
        assert len([p for p in pods(c, ns, "job-name=idx") if p["status"]["phase"] == "Succeeded"]) == 8
    finally:
        c.cleanup()


def test_progress_deadline_exceeded(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-pds")
    apply(c, ns, DEPLOY.replace("replicas: 4", "replicas: 2\n  progressDeadlineSeconds: 2"))
    d = wait(lambda: (lambda d: (cond(d, "Progressing") or {}).get("reason") == "ProgressDeadlineExceeded" and d)(
        c.kjson("-n", ns, "get", "deploy", "web")), timeout=20, what="ProgressDeadlineExceeded")
    assert cond(d, "Progressing")["status"] == "False"
    assert cond(d, "Available")["reason"] == "MinimumReplicasUnavailable"
    r = c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=10s", check=False)
    assert r.returncode != 0 and "exceeded its progress deadline" in r.stderr


def test_recreate_strategy(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-recreate")
    apply(c, ns, DEPLOY.replace("{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}",
                                "{type: Recreate}"))
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
    ready_all(c, ns, "app=web")
    c.kubectl("-n", ns, "set", "image", "deployment/web", "c=busybox:1.37")
    wait(lambda: len(c.kjson("-n", ns, "get", "rs")["items"]) == 2, what="new rs")
    imgs = wait(lambda: (lambda ps: len(ps) == 4 and {p["spec"]["containers"][0]["image"] for p in ps})(
        pods(c, ns, "app=web")), what="new pods")
    assert imgs == {"busybox:1.37"}


def test_job_pod_replacement_policy_failed(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-prp")
    apply(c, ns, simple_job("prp", "  podReplacementPolicy: Failed\n  backoffLimit: 5"))
    p = wait(lambda: active_pods(c, ns, "job-name=prp"), what="pod")[0]["metadata"]["name"]
    c.kubectl("-n", ns, "delete", "pod", p, "--wait=false")
    wait(lambda: job(c, ns, "prp")["status"].get("terminating") == 1, what="terminating count")
    time.sleep(1)
    ps = pods(c, ns, "job-name=prp")
    old = [x for x in ps if x["metadata"]["name"] == p]
    # PodGC may have failed the terminating pod meanwhile (an unscheduled one): then, and only
    # then, a replacement is due
    gc_failed = bool(old) and old[0].get("status", {}).get("phase") == "Failed"
    assert len(ps) == 1 or gc_failed, "replaced a pod that is still terminating"
    if not gc_failed:
        try:
            finish(c, ns, p, code=1)
        except AssertionError as e:
            # PodGC may fail and remove the terminating pod between the list and the patch: the
            # replacement is due then just the same
            if "NotFound" not in str(e):
                raise
    wait(lambda: len(active_pods(c, ns, "job-name=prp")) == 1, timeout=20, what="replacement once failed")
    assert job(c, ns, "prp")["status"]["failed"] == 1


def test_job_backoff_limit_per_index(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-bpi")
    apply(c, ns, simple_job("bpi", """  completions: 3
  parallelism: 3
  completionMode: Indexed
  backoffLimitPerIndex: 0
  maxFailedIndexes: 1"""))
    wait(lambda: len(active_pods(c, ns, "job-name=bpi")) == 3, what="pods")
    for p in active_pods(c, ns, "job-name=bpi"):
        idx = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        finish(c, ns, p["metadata"]["name"], code=1 if idx == "1" else 0)
    j = wait(lambda: (lambda j: cond(j, "Failed") and j)(job(c, ns, "bpi")), what="Failed")
    assert cond(j, "Failed")["reason"] == "FailedIndexes"
    assert j["status"]["failedIndexes"] == "1"
    assert j["status"]["completedIndexes"] == "0,2"


def test_job_success_policy(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-sp")
    apply(c, ns, simple_job("sp", """  completions: 4
  parallelism: 4
  completionMode: Indexed
  successPolicy:
    rules: [{succeededIndexes: "0", succeededCount: 1}]"""))
    wait(lambda: len(active_pods(c, ns, "job-name=sp")) == 4, what="pods")
    p0 = [p for p in active_pods(c, ns, "job-name=sp")
          if p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "0"][0]
    finish(c, ns, p0["metadata"]["name"])
    j = wait(lambda: (lambda j: cond(j, "Complete") and j)(job(c, ns, "sp")), what="Complete")
    assert cond(j, "SuccessCriteriaMet")["reason"] == "SuccessPolicy"
    assert j["status"]["completedIndexes"] == "0"
    assert not active_pods(c, ns, "job-name=sp")

    # validateSuccessPolicy
    r = c.kubectl("-n", ns, "apply", "-f", "-", check=False, input=simple_job("spbad", """  completions: 4
  completionMode: Indexed
  successPolicy:
    rules: [{succeededIndexes: "0,2-1"}, {succeededIndexes: "1-2", succeededCount: 3}, {}, {succeededIndexes: "9"}]"""))
    assert r.returncode != 0
    for msg in ['spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0,2-1": error parsing '
                'succeededIndexes: non-increasing order, previous: 2, current: 1',
                "spec.successPolicy.rules[1].succeededCount: Invalid value: 3: must be less than or equal to 2 "
                "(the number of indexes in the specified succeededIndexes field)",
                "spec.successPolicy.rules[2]: Required value: at least one of "
                "spec.successPolicy.rules[2].succeededIndexes or spec.successPolicy.rules[2].succeededCount must "
                "be specified",
                'spec.successPolicy.rules[3].succeededIndexes: Invalid value: "9": error parsing succeededIndexes: '
                'too large index: "9"']:
        assert msg in r.stderr, (msg, r.stderr)
    r = c.kubectl("-n", ns, "apply", "-f", "-", check=False, input=simple_job("spbad", """  successPolicy:
    rules: [{succeededCount: 1}]"""))
    assert r.returncode != 0
    assert 'spec.completionMode: Invalid value: "NonIndexed": requires indexed completion mode' in r.stderr


def test_job_active_deadline(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-ads")
    apply(c, ns, simple_job("ads", "  activeDeadlineSeconds: 2"))
    j = wait(lambda: (lambda j: cond(j, "Failed") and j)(job(c, ns, "ads")), timeout=20, what="Failed")
    assert cond(j, "Failed")["reason"] == "DeadlineExceeded"
    assert not active_pods(c, ns, "job-name=ads")


def micro_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_node_lifecycle_unreachable_and_eviction(tmpdir_skiff, monkeypatch):
    # the flags set what the environment variables set (SKIFF_NODE_MONITOR_PERIOD ...)
    monkeypatch.setenv("SKIFF_NODE_MONITOR_GRACE_PERIOD", "600")
    c = Cluster(tmpdir_skiff, ["--no-agent", "--node-monitor-grace-period", "3",
                               "--node-monitor-period", "1s"]).start()
    try:
        c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node",
                                                         "metadata": {"name": "n1"}}))

        def heartbeat():
            t = now()
            c.kubectl("patch", "node", "n1", "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                                "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))
            c.kubectl("apply", "-f", "-", input=json.dumps({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": "n1", "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": "n1", "leaseDurationSeconds": 40, "renewTime": micro_now()}}))

        # the node's "kubelet" posts while the pods are set up (the grace period is 3 s,
        # shorter than the setup on a loaded machine), then stops
        posting = threading.Event()

        def kubelet():
            while not posting.wait(0.5):
                heartbeat()

        heartbeat()
        poster = threading.Thread(target=kubelet, daemon=True)
        poster.start()
        for name, tol in (("short", {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                     "effect": "NoExecute", "tolerationSeconds": 1}),
                          ("forever", {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                       "effect": "NoExecute"}),
                          # upstream's getMinTolerationTime: zero or less evicts at once
                          ("negative", {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                        "effect": "NoExecute", "tolerationSeconds": -5})):
            c.kubectl("apply", "-f", "-", input=json.dumps({
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"nodeName": "n1", "tolerations": [tol],
                         "containers": [{"name": "c", "image": "busybox"}]}}))
            run_ready(c, "default", name)
        posting.set()
        poster.join()
        n = wait(lambda: (lambda n: (cond(n, "Ready") or {}).get("status") == "Unknown" and n)(
            c.kjson("get", "node", "n1")), timeout=20, what="Ready=Unknown")
        assert cond(n, "Ready")["reason"] == "NodeStatusUnknown"
        assert cond(n, "Ready")["message"] == "Kubelet stopped posting node status."
        n = wait(lambda: (lambda n: len(n["spec"].get("taints", [])) == 2 and n)(c.kjson("get", "node", "n1")),
                 what="taints")
        assert {(x["key"], x["effect"]) for x in n["spec"]["taints"]} == {
            ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")}
        wait(lambda: (cond(c.kjson("get", "pod", "forever"), "Ready") or {}).get("status") == "False",
             what="pod not ready")
        p = wait(lambda: (lambda p: p["metadata"].get("deletionTimestamp") and p)(c.kjson("get", "pod", "short")),
                 timeout=20, what="eviction")
        dt = cond(p, "DisruptionTarget")
        assert dt["status"] == "True" and dt["reason"] == "DeletionByTaintManager"
        wait(lambda: c.kjson("get", "pod", "negative")["metadata"].get("deletionTimestamp"), timeout=20,
             what="eviction of the pod with negative tolerationSeconds")
        assert not c.kjson("get", "pod", "forever")["metadata"].get("deletionTimestamp")
        # the node comes back
        t = now()
        c.kubectl("patch", "node", "n1", "--subresource=status", "--type=merge", "-p", json.dumps({"status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok",
                            "lastHeartbeatTime": t, "lastTransitionTime": t}]}}))
        wait(lambda: not c.kjson("get", "node", "n1")["spec"].get("taints"), what="taints removed")
    finally:
        c.cleanup()


def test_deployment_scale_during_rollout(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-scale")
    apply(c, ns, DEPLOY)
    wait(lambda: len(pods(c, ns, "app=web")) == 4, what="pods")
    ready_all(c, ns, "app=web")
    c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
    c.kubectl("-n", ns, "scale", "deployment/web", "--replicas=6")
    wait(lambda: len(pods(c, ns, "app=web")) == 6, what="scale up")
    ready_all(c, ns, "app=web")
    c.kubectl("-n", ns, "set", "image", "deployment/web", "c=busybox:1.37")
    wait(lambda: len(c.kjson("-n", ns, "get", "rs")["items"]) == 2, what="new rs")
    c.kubectl("-n", ns, "scale", "deployment/web", "--replicas=3")
    for _ in range(100):
        ready_all(c, ns, "app=web")
        st = c.kjson("-n", ns, "get", "deploy", "web")["status"]
        if st.get("updatedReplicas") == 3 and st.get("replicas") == 3 and st.get("availableReplicas") == 3:
            break
        time.sleep(0.3)
    c.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
    ps = pods(c, ns, "app=web")
    assert len(ps) == 3 and {p["spec"]["containers"][0]["image"] for p in ps} == {"busybox:1.37"}
    sizes = {r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: r["spec"]["replicas"]
             for r in c.kjson("-n", ns, "get", "rs")["items"]}
    assert sizes == {"1": 0, "2": 3}


def test_revision_history_limit(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-history")
    apply(c, ns, DEPLOY.replace("replicas: 4", "replicas: 1\n  revisionHistoryLimit: 1"))
    for v in ("1.37", "1.38", "1.39"):
        wait(lambda: pods(c, ns, "app=web"), what="pods")
        ready_all(c, ns, "app=web")
        c.kubectl("-n", ns, "set", "image", "deployment/web", f"c=busybox:{v}")
        for _ in range(60):
            ready_all(c, ns, "app=web")
            st = c.kjson("-n", ns, "get", "deploy", "web")["status"]
            if st.get("updatedReplicas") == 1 and st.get("replicas") == 1 and st.get("availableReplicas") == 1:
                break
            time.sleep(0.3)
    wait(lambda: len(c.kjson("-n", ns, "get", "rs")["items"]) == 2, what="old replica sets pruned")
    revs = sorted(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
                  for r in c.kjson("-n", ns, "get", "rs")["items"])
    assert revs == ["3", "4"]


def test_create_job_from_cronjob(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-cronmanual")
    apply(c, ns, """
apiVersion: batch/v1
kind: CronJob
metadata: {name: yearly}
spec:
  schedule: "@yearly"
  timeZone: "Europe/Berlin"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
""")
    c.kubectl("-n", ns, "create", "job", "manual", "--from=cronjob/yearly")
    wait(lambda: (c.kjson("-n", ns, "get", "cronjob", "yearly")["status"].get("active") or [{}])[0].get("name")
         == "manual", what="manual job in active")
    p = wait(lambda: active_pods(c, ns, "job-name=manual"), what="pod")[0]
    finish(c, ns, p["metadata"]["name"])
    wait(lambda: cond(job(c, ns, "manual"), "Complete"), what="Complete")
    wait(lambda: c.kjson("-n", ns, "get", "cronjob", "yearly")["status"].get("lastSuccessfulTime"), what="success")
    time.sleep(1)
    assert c.kjson("-n", ns, "get", "job", "manual")["metadata"]["name"] == "manual"


def test_job_fail_index_action(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-failindex")
    apply(c, ns, simple_job("fi", """  completions: 2
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 3
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes: {operator: In, values: [3]}"""))
    wait(lambda: len(active_pods(c, ns, "job-name=fi")) == 2, what="pods")
    for p in active_pods(c, ns, "job-name=fi"):
        idx = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        finish(c, ns, p["metadata"]["name"], code=3 if idx == "0" else 0)
    j = wait(lambda: (lambda j: cond(j, "Failed") and j)(job(c, ns, "fi")), what="Failed")
    assert cond(j, "Failed")["reason"] == "FailedIndexes"
    assert j["status"]["failedIndexes"] == "0" and j["status"]["completedIndexes"] == "1"
    assert len(pods(c, ns, "job-name=fi")) == 2, "a failed index was retried"


def test_job_managed_by(api_cluster):
    c = api_cluster
    ns = make_ns(c, "ctrl-mby")
    # a Job another controller manages is left alone; one naming the built-in controller runs
    apply(c, ns, simple_job("other", "  managedBy: example.com/batch-runner"))
    apply(c, ns, simple_job("ours", "  managedBy: kubernetes.io/job-controller"))
    wait(lambda: active_pods(c, ns, "job-name=ours"), what="the built-in controller's pod")
    wait(lambda: job(c, ns, "ours")["status"].get("startTime"), what="startTime of ours")
    other = job(c, ns, "other")
    assert not pods(c, ns, "job-name=other")
    assert "startTime" not in other.get("status", {}) and not cond(other, "Complete")
    # the external controller writes the status itself
    c.kubectl("-n", ns, "patch", "job", "other", "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": {"active": 1}}))
    assert job(c, ns, "other")["status"]["active"] == 1
    assert not pods(c, ns, "job-name=other")

    r = c.kubectl("-n", ns, "patch", "job", "other", "--type=merge",
                  "-p", '{"spec":{"managedBy":"example.com/another"}}', check=False)
    assert r.returncode != 0 and "spec.managedBy: Invalid value: \"example.com/another\": field is immutable" \
        in r.stderr
    for value, msg in [("runner", 'spec.managedBy: Invalid value: "runner": must be a domain-prefixed path '
                                  '(such as "acme.io/foo")'),
                       ("Example.com/x", 'spec.managedBy: Invalid value: "Example.com": a lowercase RFC 1123 '
                                         'subdomain'),
                       ("example.com/" + "x" * 60, "spec.managedBy: Too long: may not be more than 63 bytes")]:
        r = c.kubectl("-n", ns, "apply", "-f", "-", input=simple_job("bad", f"  managedBy: {value}"), check=False)
        assert r.returncode != 0 and msg in r.stderr, (value, r.stderr)
