"""RBAC as kube-apiserver does it: a team of two users each confined to its
namespace by a RoleBinding to edit, kubectl auth can-i (and --list, --as),
escalation refused and then allowed with escalate and bind, ClusterRole
aggregation, non-resource URLs, and the bootstrap policy repaired at the
next start. One server (with a token file) for the module."""
import json
import os
import shutil
import ssl
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import Cluster, SLOW

TOKENS = """\
alice-token,alice,1001,"team-a"
bob-token,bob,1002,"team-b"
carol-token,carol,1003
dave-token,dave,1004
"""


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-rbac-")
    tokens = os.path.join(d, "tokens.csv")
    with open(tokens, "w") as f:
        f.write(TOKENS)
    c = Cluster(os.path.join(d, "data"), ["--no-agent", "--token-auth-file", tokens]).start()
    for ns, user in (("team-a", "alice"), ("team-b", "bob")):
        c.kubectl("create", "namespace", ns)
        c.kubectl("create", "rolebinding", f"{user}-edit", "--clusterrole=edit", f"--user={user}", "-n", ns)
    # the authorizer follows bindings and the aggregated edit role through a watch, as upstream's
    # informers do: the tests start once both users' grants are in effect
    for ns, token in (("team-a", "alice-token"), ("team-b", "bob-token")):
        wait_for(lambda: as_user(c, token, "auth", "can-i", "create", "configmaps", "-n", ns,
                                 check=False).stdout.strip() == "yes", f"the edit grant in {ns}")
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def as_user(c, token, *args, check=True):
    return c.kubectl("--token", token, *args, check=check)


def call(c, path, token=None, method="GET", body=None):
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    h = {}
    if token:
        h["Authorization"] = "Bearer " + token
    if body is not None:
        h["Content-Type"] = "application/json"
        body = json.dumps(body).encode()
    req = urllib.request.Request(f"https://127.0.0.1:{c.port}{path}", data=body, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def user_client(c, token):
    from kubernetes import client
    api = c.api_client()
    api.configuration.api_key = {"authorization": "Bearer " + token}
    return client.ApiClient(api.configuration)


def wait_for(fn, what, timeout=20):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if fn():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def test_team_members_are_confined_to_their_namespace(cluster):
    as_user(cluster, "alice-token", "-n", "team-a", "create", "configmap", "plan", "--from-literal=a=b")
    assert "plan" in as_user(cluster, "alice-token", "-n", "team-a", "get", "configmaps", "-o", "name").stdout
    r = as_user(cluster, "alice-token", "-n", "team-b", "get", "configmaps", check=False)
    assert r.returncode != 0
    assert ('Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" '
            'in API group "" in the namespace "team-b"') in r.stderr
    r = as_user(cluster, "alice-token", "get", "nodes", check=False)
    assert 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope' in r.stderr

    from kubernetes import client
    from kubernetes.client.rest import ApiException
    core = client.CoreV1Api(user_client(cluster, "bob-token"))
    core.create_namespaced_config_map("team-b", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="b1"),
                                                                    data={"k": "v"}))
    assert [c.metadata.name for c in core.list_namespaced_config_map("team-b").items
            if c.metadata.name != "kube-root-ca.crt"] == ["b1"]
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("plan", "team-a")
    assert e.value.status == 403
    st = json.loads(e.value.body)
    assert st["reason"] == "Forbidden"
    assert st["details"] == {"name": "plan", "kind": "configmaps"}
    assert st["message"] == ('configmaps "plan" is forbidden: User "bob" cannot get resource "configmaps" in API group '
                             '"" in the namespace "team-a"')


def test_rolebinding_table_and_describe(cluster):
    out = cluster.kubectl("get", "rolebinding", "-n", "team-a", "-o", "wide").stdout.splitlines()
    assert out[0].split() == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    assert out[1].split()[:2] == ["alice-edit", "ClusterRole/edit"] and "alice" in out[1].split()
    assert cluster.kubectl("get", "clusterrole", "cluster-admin").stdout.split()[:3] == ["NAME", "CREATED", "AT"]
    d = cluster.kubectl("describe", "rolebinding", "alice-edit", "-n", "team-a").stdout
    assert "ClusterRole" in d and "alice" in d
    r = cluster.kubectl("patch", "rolebinding", "alice-edit", "-n", "team-a", "--type=merge", "-p",
                        '{"roleRef":{"name":"view"}}', check=False)
    assert r.returncode != 0 and "roleRef: Invalid value" in r.stderr and "cannot change roleRef" in r.stderr


def test_auth_can_i(cluster):
    r = as_user(cluster, "alice-token", "auth", "can-i", "create", "pods", "-n", "team-a", check=False)
    assert (r.returncode, r.stdout.strip()) == (0, "yes")
    r = as_user(cluster, "alice-token", "auth", "can-i", "create", "pods", "-n", "team-b", check=False)
    assert (r.returncode, r.stdout.strip()) == (1, "no")
    r = cluster.kubectl("auth", "can-i", "get", "pods", "-n", "team-b", "--as", "bob", check=False)
    assert (r.returncode, r.stdout.strip()) == (0, "yes")
    r = cluster.kubectl("auth", "can-i", "get", "pods", "--as", "bob", check=False)
    assert (r.returncode, r.stdout.strip()) == (1, "no")
    lines = as_user(cluster, "alice-token", "auth", "can-i", "--list", "-n", "team-a").stdout.splitlines()
    assert lines[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    pods = [l for l in lines if l.split()[0] == "pods"]
    assert pods and "create" in pods[0] and "get" in pods[0]
    assert any(l.split()[0] == "selfsubjectaccessreviews.authorization.k8s.io" for l in lines)
    lines = as_user(cluster, "alice-token", "auth", "can-i", "--list", "-n", "team-b").stdout.splitlines()
    assert not [l for l in lines if l.split()[0] == "pods"]

    from kubernetes import client
    authz = client.AuthorizationV1Api(cluster.api_client())
    review = authz.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user="alice", groups=["team-a"],
        resource_attributes=client.V1ResourceAttributes(namespace="team-a", verb="delete", resource="configmaps"))))
    assert review.status.allowed is True
    review = client.AuthorizationV1Api(user_client(cluster, "bob-token")).create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(namespace="team-a", verb="get", resource="pods"))))
    assert review.status.allowed is False


def test_escalation_needs_escalate_and_bind(cluster):
    cluster.kubectl("create", "namespace", "team-c")
    cluster.kubectl("create", "role", "rbac-admin", "-n", "team-c", "--verb=create,get,list,update",
                    "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io")
    cluster.kubectl("create", "rolebinding", "carol", "-n", "team-c", "--role=rbac-admin", "--user=carol")
    r = as_user(cluster, "carol-token", "create", "role", "reader", "-n", "team-c", "--verb=get",
                "--resource=secrets", check=False)
    assert r.returncode != 0
    assert ('roles.rbac.authorization.k8s.io "reader" is forbidden: user "carol" (groups=["system:authenticated"]) '
            'is attempting to grant RBAC permissions not currently held:\n'
            '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}') in r.stderr
    # she may grant what she holds
    as_user(cluster, "carol-token", "create", "role", "role-reader", "-n", "team-c", "--verb=get",
            "--resource=roles.rbac.authorization.k8s.io")
    cluster.kubectl("create", "role", "escalator", "-n", "team-c", "--verb=escalate",
                    "--resource=roles.rbac.authorization.k8s.io")
    cluster.kubectl("create", "rolebinding", "carol-escalate", "-n", "team-c", "--role=escalator", "--user=carol")
    as_user(cluster, "carol-token", "create", "role", "reader", "-n", "team-c", "--verb=get", "--resource=secrets")

    r = as_user(cluster, "carol-token", "create", "rolebinding", "dave-reader", "-n", "team-c", "--role=reader",
                "--user=dave", check=False)
    assert r.returncode != 0
    assert 'rolebindings.rbac.authorization.k8s.io "dave-reader" is forbidden: user "carol"' in r.stderr
    cluster.kubectl("create", "role", "binder", "-n", "team-c", "--verb=bind",
                    "--resource=roles.rbac.authorization.k8s.io", "--resource-name=reader")
    cluster.kubectl("create", "rolebinding", "carol-bind", "-n", "team-c", "--role=binder", "--user=carol")
    as_user(cluster, "carol-token", "create", "rolebinding", "dave-reader", "-n", "team-c", "--role=reader",
            "--user=dave")
    r = as_user(cluster, "dave-token", "auth", "can-i", "get", "secrets", "-n", "team-c", check=False)
    assert r.stdout.strip() == "yes"


def test_aggregation_into_edit(cluster):
    cluster.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "widgets-edit", "labels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
        "rules": [{"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses"], "verbs": ["get", "create"]}]}))
    want = {"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses"], "verbs": ["get", "create"]}
    wait_for(lambda: want in cluster.kjson("get", "clusterrole", "edit")["rules"], "edit to aggregate storageclasses")
    # admin aggregates edit in turn
    wait_for(lambda: want in cluster.kjson("get", "clusterrole", "admin")["rules"], "admin to aggregate storageclasses")
    r = as_user(cluster, "alice-token", "auth", "can-i", "create", "storageclasses.storage.k8s.io", "-n", "team-a",
                check=False)
    assert r.stdout.strip() == "yes"
    cluster.kubectl("delete", "clusterrole", "widgets-edit")
    wait_for(lambda: want not in cluster.kjson("get", "clusterrole", "edit")["rules"], "edit to drop storageclasses")


def test_non_resource_urls(cluster):
    code, body = call(cluster, "/healthz")
    assert (code, body) == (200, b"ok")
    code, body = call(cluster, "/version")
    assert code == 200 and json.loads(body)["major"] == "1"
    code, body = call(cluster, "/metrics", token="dave-token")
    st = json.loads(body)
    assert code == 403 and st["message"] == 'forbidden: User "dave" cannot get path "/metrics"'
    cluster.kubectl("create", "clusterrole", "metrics-reader", "--verb=get", "--non-resource-url=/metrics")
    cluster.kubectl("create", "clusterrolebinding", "dave-metrics", "--clusterrole=metrics-reader", "--user=dave")
    code, body = call(cluster, "/metrics", token="dave-token")
    assert code != 403
    # discovery is every authenticated user's
    assert call(cluster, "/apis", token="dave-token")[0] == 200


def test_bootstrap_policy_is_repaired_at_start(cluster):
    cluster.kubectl("delete", "clusterrole", "system:basic-user")
    cluster.kubectl("delete", "clusterrolebinding", "system:discovery")
    view = cluster.kjson("get", "clusterrole", "system:aggregate-to-view")
    kept = view["rules"][0]
    view["rules"] = view["rules"][1:] + [{"apiGroups": ["example.com"], "resources": ["gadgets"], "verbs": ["get"]}]
    cluster.kubectl("replace", "-f", "-", input=json.dumps(view))
    mon = cluster.kjson("get", "clusterrole", "system:monitoring")
    mon["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false"
    mon["rules"] = [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]
    cluster.kubectl("replace", "-f", "-", input=json.dumps(mon))
    r = as_user(cluster, "dave-token", "auth", "can-i", "get", "pods", check=False)
    assert "forbidden" in r.stderr or r.returncode != 0

    cluster.stop()
    cluster.start()
    basic = cluster.kjson("get", "clusterrole", "system:basic-user")
    assert basic["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
    assert cluster.kjson("get", "clusterrolebinding", "system:discovery")["subjects"][0]["name"] == \
        "system:authenticated"
    rules = cluster.kjson("get", "clusterrole", "system:aggregate-to-view")["rules"]
    for res in kept["resources"]:  # the removed rule's permissions are back (as broken-down rules)
        assert any(res in r.get("resources", []) and "watch" in r["verbs"] for r in rules), res
    assert {"apiGroups": ["example.com"], "resources": ["gadgets"], "verbs": ["get"]} in rules
    assert cluster.kjson("get", "clusterrole", "system:monitoring")["rules"] == \
        [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]
    r = as_user(cluster, "dave-token", "auth", "can-i", "get", "pods", check=False)
    assert (r.returncode, r.stdout.strip()) == (1, "no")
