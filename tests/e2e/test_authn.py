"""Authentication as kube-apiserver does it: the static token file
(--token-auth-file), wrong credentials (401), anonymous health and version
endpoints, and a server that refuses to start with an empty token file."""
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest

from conftest import SKIFF, Cluster, free_port

TOKENS = """\
alice-token,alice,1001,"team-a,team-b"
"carol-token",carol,1003,"system:masters"

bob-token,bob,1002
"""


@pytest.fixture(scope="module")
def cluster():
    d = tempfile.mkdtemp(prefix="skiff-e2e-authn-")
    tokens = os.path.join(d, "tokens.csv")
    with open(tokens, "w") as f:
        f.write(TOKENS)
    c = Cluster(os.path.join(d, "data"), ["--no-agent", "--token-auth-file", tokens]).start()
    yield c
    c.cleanup()
    shutil.rmtree(d, ignore_errors=True)


def call(c, path, token=None, method="GET", body=None, headers=None):
    ctx = ssl.create_default_context(cafile=f"{c.data_dir}/tls/ca.crt")
    h = dict(headers or {})
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


def test_token_file_user_is_authenticated_and_refused_without_rbac(cluster):
    # until an authorizer grants plain users anything, discovery too is refused: --raw needs none
    r = cluster.kubectl("--token", "alice-token", "get", "--raw", "/api/v1/namespaces/default/pods", check=False)
    assert r.returncode != 0
    assert ('Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" '
            'in the namespace "default"') in r.stderr
    code, body = call(cluster, "/api/v1/namespaces/default/pods", token="bob-token")
    st = json.loads(body)
    assert code == 403 and st["reason"] == "Forbidden"
    assert st["message"].startswith('pods is forbidden: User "bob" cannot list')


def test_token_file_groups_are_the_users(cluster):
    # carol's one group is system:masters: she may do anything
    r = cluster.kubectl("--token", "carol-token", "get", "namespaces", "-o", "name")
    assert "namespace/default" in r.stdout


def test_wrong_token_is_unauthorized(cluster):
    r = cluster.kubectl("--token", "alice-tokeN", "get", "pods", check=False)
    assert r.returncode != 0
    assert "error: You must be logged in to the server (Unauthorized)" in r.stderr
    for path in ("/api", "/healthz", "/version"):
        code, body = call(cluster, path, token="nope")
        st = json.loads(body)
        assert code == 401 and st["reason"] == "Unauthorized" and st["message"] == "Unauthorized"


def test_no_credentials_only_public_paths(cluster):
    code, body = call(cluster, "/api/v1/namespaces")
    assert code == 401 and json.loads(body)["reason"] == "Unauthorized"
    code, body = call(cluster, "/version")
    assert code == 200 and "gitVersion" in json.loads(body)
    assert call(cluster, "/healthz")[0] == 200


def test_python_client_with_a_file_token(cluster):
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    cfg = client.Configuration()
    cfg.host = f"https://127.0.0.1:{cluster.port}"
    cfg.ssl_ca_cert = f"{cluster.data_dir}/tls/ca.crt"
    cfg.api_key = {"authorization": "Bearer carol-token"}
    api = client.CoreV1Api(client.ApiClient(cfg))
    assert "default" in [n.metadata.name for n in api.list_namespace().items]
    cfg.api_key = {"authorization": "Bearer alice-token"}
    with pytest.raises(ApiException) as e:
        client.CoreV1Api(client.ApiClient(cfg)).list_namespace()
    assert e.value.status == 403
    assert 'User "alice" cannot list resource "namespaces"' in json.loads(e.value.body)["message"]


def start_fails(args):
    d = tempfile.mkdtemp(prefix="skiff-e2e-authn-")
    try:
        for name, text in args.get("files", {}).items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        cmd = [SKIFF, "server", "--no-agent", "--data-dir", os.path.join(d, "data"),
               "--listen", f"127.0.0.1:{free_port()}"] + [a.replace("DIR", d) for a in args.get("flags", [])]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return r.returncode, r.stderr, d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_empty_token_files_refused_at_start():
    rc, err, d = start_fails({"files": {"data/token": ""}})
    assert rc == 1 and f'token file "{d}/data/token" is empty' in err
    rc, err, d = start_fails({"files": {"data/node-token": "\n"}})
    assert rc == 1 and f'token file "{d}/data/node-token" is empty' in err


def test_bad_token_auth_file_refused_at_start():
    rc, err, d = start_fails({"files": {"t.csv": "tok,user\n"}, "flags": ["--token-auth-file", "DIR/t.csv"]})
    assert rc == 1
    assert f'token file "{d}/t.csv" must have at least 3 columns (token, user name, user uid), found 2' in err
    rc, err, d = start_fails({"flags": ["--token-auth-file", "DIR/none.csv"]})
    assert rc == 1 and f'--token-auth-file: reading "{d}/none.csv"' in err
