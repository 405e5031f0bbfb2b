"""NetworkPolicy through the node agent's nftables table (src/agent/proxy-policy.c):
a namespace closed to others by a policy and opened again for a labelled
namespace, and a namespace whose pods may not connect anywhere.

Clients are long-running pods that try a server every half second and log OK
or BLOCKED, so each check waits for the outcome in their latest lines instead
of racing the rules. Run under `flock /tmp/skiff-agent-e2e.lock`."""
import pytest

from test_agent_cluster import running_cluster, wait_for

pytestmark = pytest.mark.agents


def server_pod(ns, node):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: srv, namespace: {ns}, labels: {{app: srv}}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "mkdir -p /www; echo hi > /www/index.html; exec httpd -f -p 8080 -h /www"]
    ports: [{{containerPort: 8080, name: http}}]
    readinessProbe: {{tcpSocket: {{port: 8080}}, periodSeconds: 1}}
"""


def client_pod(ns, name, node, ip):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {ns}}}
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1
    command: ["sh", "-c", "while true; do if timeout 2 wget -qO- http://{ip}:8080/ >/dev/null 2>&1;
              then echo OK; else echo BLOCKED; fi; sleep 0.5; done"]
"""


def policy(ns, name, spec):
    return f"""apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: {name}, namespace: {ns}}}
spec:
{spec}"""


def log_lines(c, ns, pod):
    r = c.kubectl("logs", "-n", ns, pod, check=False)
    return r.stdout.split() if r.returncode == 0 else []


def latest(c, ns, pod, n=3):
    lines = log_lines(c, ns, pod)
    return lines[-n:] if len(lines) >= n else []


def stays(c, ns, pod, outcome, n=3):
    """The next n attempts of the client all end in outcome."""
    start = len(log_lines(c, ns, pod))
    new = wait_for(lambda: (lambda l: l[start:] if len(l) >= start + n else None)(log_lines(c, ns, pod)), 60,
                   what=f"{n} more attempts of {ns}/{pod}")
    assert new == [outcome] * len(new), new


def settles(c, ns, pod, outcome, timeout=60):
    wait_for(lambda: latest(c, ns, pod) == [outcome] * 3, timeout, what=f"{ns}/{pod} {outcome}")


def ready_ip(c, ns, name):
    def check():
        p = c.kjson("get", "pod", "-n", ns, name)
        st = p.get("status", {})
        c.pod_uids.add(p["metadata"]["uid"])
        ok = st.get("podIP") and all(s.get("ready") for s in st.get("containerStatuses", [{}]))
        return st.get("podIP") if ok else None
    return wait_for(check, 120, what=f"{ns}/{name} ready")


@pytest.fixture(scope="module")
def np_cluster():
    with running_cluster("skiff-np-") as c:
        for ns in ("np-a", "np-b", "np-c"):
            c.kubectl("create", "namespace", ns)
        c.kubectl("label", "namespace", "np-b", "team=b")
        yield c
        for ns in ("np-a", "np-b", "np-c"):
            c.kubectl("delete", "pods,networkpolicies", "--all", "-n", ns, "--wait=false", check=False)
        wait_for(lambda: not c.kjson("get", "pods", "-A")["items"], 90, what="pods gone")


def test_namespace_closed_then_opened_for_a_labelled_namespace(np_cluster):
    c = np_cluster
    c.apply(server_pod("np-a", c.node))
    ip = ready_ip(c, "np-a", "srv")
    c.apply(client_pod("np-b", "from-b", c.node, ip))
    c.apply(client_pod("np-c", "from-c", c.node, ip))
    c.apply(client_pod("np-a", "from-a", c.node, ip))
    for ns, pod in (("np-b", "from-b"), ("np-c", "from-c"), ("np-a", "from-a")):
        settles(c, ns, pod, "OK")
    # only pods of np-a may connect to np-a's pods
    c.apply(policy("np-a", "same-namespace", """  podSelector: {}
  policyTypes: [Ingress]
  ingress:
  - from: [{podSelector: {}}]
"""))
    settles(c, "np-b", "from-b", "BLOCKED")
    settles(c, "np-c", "from-c", "BLOCKED")
    settles(c, "np-a", "from-a", "OK")
    # and pods of namespaces labelled team=b to the port by its name
    c_before = len(log_lines(c, "np-c", "from-c"))
    c.apply(policy("np-a", "from-team-b", """  podSelector: {matchLabels: {app: srv}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: b}}}]
    ports: [{port: http}]
"""))
    settles(c, "np-b", "from-b", "OK")
    since = log_lines(c, "np-c", "from-c")[c_before:]
    assert since == ["BLOCKED"] * len(since), since
    stays(c, "np-c", "from-c", "BLOCKED")
    stays(c, "np-a", "from-a", "OK")
    # the policies gone: open again
    c.kubectl("delete", "networkpolicy", "-n", "np-a", "--all")
    settles(c, "np-c", "from-c", "OK")


def test_egress_deny(np_cluster):
    c = np_cluster
    c.apply(server_pod("np-b", c.node))
    ip = ready_ip(c, "np-b", "srv")
    c.apply(client_pod("np-c", "out-c", c.node, ip))
    settles(c, "np-c", "out-c", "OK")
    c.apply(policy("np-c", "no-egress", """  podSelector: {}
  policyTypes: [Egress]
"""))
    settles(c, "np-c", "out-c", "BLOCKED")
    c.kubectl("delete", "networkpolicy", "-n", "np-c", "no-egress")
    settles(c, "np-c", "out-c", "OK")
