"""Prometheus metrics, scraped by a real Prometheus (Debian's): the API
server's /metrics (the admin token over TLS; RBAC's system:monitoring for
others) and the agent's /metrics on its serving port (a token allowed nodes/metrics), in
the text format and OpenMetrics. The test drives requests, an image pull
from a loopback registry, a crash-looping pod and scheduling, then asks
Prometheus's HTTP API for the signals. One server, agent and Prometheus for
the module."""
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT, free_port
from test_agent_cluster import images_dir, running_cluster, wait_for

sys.path.insert(0, os.path.join(ROOT, "tests", "images"))
from registry import Registry  # noqa: E402

pytestmark = pytest.mark.agents

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
OM_ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"


def read(path):
    with open(path) as f:
        return f.read().strip()


@pytest.fixture(scope="module")
def cluster():
    with running_cluster("skiff-e2e-prom-") as c:
        c.token = read(os.path.join(c.data_dir, "token"))
        c.node_secret = read(os.path.join(c.data_dir, "node-token")).split("::node:", 1)[1]
        # what scrapes the agents: a ServiceAccount allowed nodes/metrics, as Prometheus's own
        # ClusterRole for kubelets has it
        c.kubectl("create", "clusterrole", "node-metrics-reader", "--verb=get", "--resource=nodes/metrics")
        c.kubectl("create", "serviceaccount", "node-scraper")
        c.kubectl("create", "clusterrolebinding", "node-scraper", "--clusterrole=node-metrics-reader",
                  "--serviceaccount=default:node-scraper")
        c.scraper_token = c.kubectl("create", "token", "node-scraper", "--duration=1h").stdout.strip()
        node = c.kjson("get", "node", c.node)
        ip = [a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP"][0]
        c.agent_addr = f"{ip}:{node['status']['daemonEndpoints']['kubeletEndpoint']['Port']}"
        yield c


@pytest.fixture(scope="module")
def registry(cluster):
    with Registry() as reg:
        reg.push(f"oci:{images_dir()}/oci:1", "pulled/busybox:1")
        yield reg


def get(url, token=None, accept=None, ca=None):
    """(status, content type, body) of a GET."""
    ctx = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


def samples(text, name):
    """{labels text: value} of the samples of one metric name."""
    out = {}
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            head, value = line.rsplit(" ", 1)
            out[head[len(name):]] = float(value)
    return out


@pytest.fixture(scope="module")
def prom(cluster):
    d = tempfile.mkdtemp(prefix="skiff-e2e-prom-tsdb-")
    token_file = os.path.join(d, "scraper-token")
    with open(token_file, "w") as f:
        f.write(cluster.scraper_token)
    port = free_port()
    cfg = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {"job_name": "apiserver", "scheme": "https",
             "authorization": {"credentials_file": os.path.join(cluster.data_dir, "token")},
             "tls_config": {"ca_file": os.path.join(cluster.data_dir, "tls", "ca.crt")},
             "static_configs": [{"targets": [f"127.0.0.1:{cluster.port}"]}]},
            {"job_name": "kubelet", "scheme": "https",
             "authorization": {"credentials_file": token_file},
             "tls_config": {"ca_file": os.path.join(cluster.data_dir, "tls", "ca.crt")},
             "static_configs": [{"targets": [cluster.agent_addr]}]},
            {"job_name": "cadvisor", "scheme": "https", "metrics_path": "/metrics/cadvisor",
             "authorization": {"credentials_file": token_file},
             "tls_config": {"ca_file": os.path.join(cluster.data_dir, "tls", "ca.crt")},
             "static_configs": [{"targets": [cluster.agent_addr]}]},
        ],
    }
    with open(os.path.join(d, "prometheus.yml"), "w") as f:
        json.dump(cfg, f)  # JSON is YAML
    log = open(os.path.join(d, "prometheus.log"), "wb")
    proc = subprocess.Popen([PROMETHEUS, "--config.file", os.path.join(d, "prometheus.yml"),
                             "--storage.tsdb.path", os.path.join(d, "data"),
                             "--web.listen-address", f"127.0.0.1:{port}"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    p = type("Prom", (), {})()
    p.url = f"http://127.0.0.1:{port}"
    p.dir = d

    def query(expr):
        q = urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(f"{p.url}/api/v1/query?{q}", timeout=10) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return {json.dumps(s["metric"], sort_keys=True): float(s["value"][1]) for s in body["data"]["result"]}
    p.query = query

    def ready():
        if proc.poll() is not None:
            raise RuntimeError("prometheus exited: " + open(os.path.join(d, "prometheus.log")).read()[-3000:])
        try:
            with urllib.request.urlopen(p.url + "/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False
    wait_for(ready, 30, what="prometheus ready")
    yield p
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(d, ignore_errors=True)


def test_metrics_endpoints_formats_and_access(cluster):
    c = cluster
    ca = os.path.join(c.data_dir, "tls", "ca.crt")
    api = f"https://127.0.0.1:{c.port}/metrics"
    c.kubectl("create", "configmap", "m1", "--from-literal=a=b")
    assert c.kubectl("get", "configmap", "nope", check=False).returncode != 0

    # text 0.0.4 (kubectl's get --raw asks for JSON and gets the text anyway)
    status, ctype, text = get(api, c.token, ca=ca)
    assert status == 200 and ctype == "text/plain; version=0.0.4; charset=utf-8"
    assert "# TYPE apiserver_request_total counter" in text
    reqs = samples(text, "apiserver_request_total")
    assert reqs['{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",'
                'scope="resource",component="apiserver",code="201"}'] >= 1
    assert reqs['{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",'
                'scope="resource",component="apiserver",code="404"}'] >= 1
    assert samples(text, "apiserver_storage_objects")['{resource="configmaps"}'] >= 1
    assert samples(text, "apiserver_storage_objects")['{resource="namespaces"}'] == 4
    assert samples(text, "apiserver_current_inflight_requests")['{request_kind="readOnly"}'] >= 1
    # watches of the in-process controllers are long-running requests
    lr = samples(text, "apiserver_longrunning_requests")
    assert lr['{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="cluster",'
              'component="apiserver"}'] >= 1
    buckets = samples(text, "apiserver_request_duration_seconds_bucket")
    assert any('le="0.005"' in k for k in buckets) and any('le="60"' in k for k in buckets)
    assert samples(text, "etcd_request_duration_seconds_count")['{operation="create",type="configmaps"}'] >= 1
    assert samples(text, "process_resident_memory_bytes")[""] > 1e6
    assert samples(text, "process_start_time_seconds")[""] > time.time() - 3600
    assert samples(text, "process_open_fds")[""] > 3
    assert 'gitVersion="v1.32.0+skiff"' in text and "kubernetes_build_info{" in text
    assert samples(text, 'workqueue_depth')['{name="job"}'] >= 0
    assert "scheduler_pending_pods{queue=\"gated\"}" in text

    # OpenMetrics on request: _total only on samples, # UNIT, # EOF
    status, ctype, om = get(api, c.token, accept=OM_ACCEPT, ca=ca)
    assert status == 200 and ctype.startswith("application/openmetrics-text; version=1.0.0")
    assert om.endswith("# EOF\n")
    assert "# TYPE apiserver_request counter\n" in om and "# TYPE process_cpu_seconds counter\n" in om
    assert "# UNIT apiserver_request_duration_seconds seconds\n" in om
    assert "\napiserver_request_total{" in om

    # RBAC: a ServiceAccount is refused until bound to system:monitoring
    c.kubectl("create", "serviceaccount", "scraper")
    sa = c.kubectl("create", "token", "scraper").stdout.strip()
    status, _, body = get(api, sa, ca=ca)
    assert status == 403, body
    st = json.loads(body)
    assert st["reason"] == "Forbidden" and st["message"] == (
        'forbidden: User "system:serviceaccount:default:scraper" cannot get path "/metrics"')
    c.kubectl("create", "clusterrolebinding", "scraper-monitoring", "--clusterrole=system:monitoring",
              "--serviceaccount=default:scraper")
    wait_for(lambda: get(api, sa, ca=ca)[0] == 200, 10, interval=0.1, what="system:monitoring binding")

    # the agent: a credential the API server vouches for, allowed nodes/metrics (kubelet's
    # webhook authentication and authorization); its certificate is the cluster CA's
    agent = f"https://{c.agent_addr}/metrics"
    assert get(agent, ca=ca)[0] == 401 and get(agent, "not-a-token", ca=ca)[0] == 401
    status, _, body = get(agent, sa, ca=ca)
    assert status == 403 and body == ("Forbidden (user=system:serviceaccount:default:scraper, verb=get, "
                                      "resource=nodes, subresource(s)=[metrics])\n")
    assert get(agent, c.node_secret, ca=ca)[0] == 403  # a bootstrap token is no scraper
    assert get(agent, c.token, ca=ca)[0] == 200
    status, ctype, atext = get(agent, c.scraper_token, ca=ca)
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    assert "# TYPE kubelet_running_pods gauge" in atext
    fs = samples(atext, "skiff_kubelet_filesystem_capacity_bytes")
    assert fs['{filesystem="image"}'] > 0 and fs['{filesystem="container"}'] > 0
    assert samples(atext, "skiff_kubelet_filesystem_inodes_free")['{filesystem="image"}'] > 0
    assert "apiserver_request_total" not in atext  # the agent has its own registry
    status, ctype, aom = get(agent, c.scraper_token, accept=OM_ACCEPT, ca=ca)
    assert ctype.startswith("application/openmetrics-text") and aom.endswith("# EOF\n")


POD = """
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  restartPolicy: {restart}
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: "{image}"
    command: {command}
"""


def test_prometheus_scrapes_server_and_agent(cluster, registry, prom):
    c = cluster
    c.apply(POD.format(name="pulled", restart="Never", image=f"{registry.host}/pulled/busybox:1",
                       command='["true"]'))
    c.apply(POD.format(name="crash", restart="Always", image="busybox:1", command='["sh", "-c", "exit 3"]'))
    c.apply(POD.format(name="nowhere", restart="Never", image="busybox:1", command='["true"]').replace(
        "spec:\n", "spec:\n  nodeSelector: {missing: label}\n"))
    c.apply(POD.format(name="sleeper", restart="Never", image="busybox:1", command='["sleep", "3600"]'))
    c.wait_phase("pulled", "Succeeded")
    c.wait_phase("sleeper", "Running")
    c.wait_pod("crash", lambda p: p["status"]["containerStatuses"][0]["restartCount"] >= 1, 60,
               what="a restart")
    assert c.kubectl("get", "configmap", "still-nope", check=False).returncode != 0

    def value(expr, pred=lambda v: v >= 1):
        """Waits for Prometheus (1 s scrapes) to answer expr with one sample satisfying pred."""
        def ok():
            r = prom.query(expr)
            return r if r and all(pred(v) for v in r.values()) else False
        return wait_for(ok, 30, interval=0.5, what=f"prometheus: {expr}")

    up = wait_for(lambda: (lambda r: r if {json.loads(k)["job"] for k, v in r.items() if v == 1} ==
                           {"apiserver", "kubelet", "cadvisor"} else False)(prom.query('up')),
                  30, interval=0.5, what="prometheus: every target up")
    assert len(up) == 3
    value('sum(apiserver_request_total{resource="configmaps",code="404"})')
    value('sum by (code) (apiserver_request_total{job="apiserver",verb="LIST"})')
    value('histogram_quantile(0.99, sum by (le) (rate(apiserver_request_duration_seconds_bucket[1m])))',
          lambda v: v >= 0)
    value('sum(kubelet_image_pull_duration_seconds_count{job="kubelet"})')
    # its layers are busybox:1's, imported before: only the manifest and config are fetched
    value('skiff_kubelet_image_pulled_bytes_total', lambda v: v >= 0)
    value('skiff_kubelet_container_restarts_total{pod="crash",container="c"}')
    value('skiff_kubelet_container_last_terminated_reason{pod="crash",reason="Error"}')
    value('kubelet_runtime_operations_total{operation_type="start_container"}', lambda v: v >= 3)
    value('kubelet_run_podsandbox_duration_seconds_count')
    value('kubelet_pod_start_sli_duration_seconds_count')
    value('scheduler_schedule_attempts_total{result="scheduled",profile="default-scheduler"}', lambda v: v >= 2)
    value('scheduler_schedule_attempts_total{result="unschedulable"}')
    value('scheduler_pending_pods{queue="unschedulable"}')
    value('scheduler_scheduling_attempt_duration_seconds_count{result="scheduled"}')
    value('workqueue_adds_total{name="endpointslice"}')
    # cAdvisor's names from the containers' cgroups
    value('container_memory_working_set_bytes{job="cadvisor",pod="sleeper",container="c"}', lambda v: v > 0)
    value('container_cpu_usage_seconds_total{pod="sleeper",container=""}', lambda v: v >= 0)

    # a deleted pod's series go away (bounded cardinality)
    agent = f"https://{c.agent_addr}/metrics"
    assert 'pod="crash"' in get(agent, c.scraper_token, ca=os.path.join(c.data_dir, "tls", "ca.crt"))[2]
    c.kubectl("delete", "pod", "crash", "--wait=true", "--timeout=60s")
    wait_for(lambda: 'pod="crash"' not in get(agent, c.scraper_token, ca=os.path.join(c.data_dir, "tls", "ca.crt"))[2], 30, interval=0.2,
             what="the deleted pod's series gone")
