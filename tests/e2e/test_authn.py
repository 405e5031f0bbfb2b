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


# ---- client certificates ----

def user_add(cluster, name, *args):
    out = os.path.join(cluster.data_dir, f"{name}.kubeconfig")
    r = subprocess.run([SKIFF, "user", "add", name, "--data-dir", cluster.data_dir, "--out", out] + list(args),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f'wrote a kubeconfig for user "{name}" to {out}\n'
    assert os.stat(out).st_mode & 0o777 == 0o600
    return out


def kubectl_as(cluster, kubeconfig, *args):
    return subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "--cache-dir", cluster.cache] + list(args),
                          capture_output=True, text=True, timeout=60)


def test_client_certificate_user(cluster):
    kc = user_add(cluster, "dana", "--group", "system:masters", "--group", "team-x", "--namespace", "kube-system")
    r = kubectl_as(cluster, kc, "get", "configmaps", "-o", "name")
    assert r.returncode == 0, r.stderr
    assert "configmap/skiff-network" in r.stdout  # kube-system's: the context's namespace
    r = kubectl_as(cluster, kc, "config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}")
    assert r.stdout == "kube-system"
    kc = user_add(cluster, "eve")
    r = kubectl_as(cluster, kc, "get", "--raw", "/api/v1/namespaces/default/pods")
    assert r.returncode != 0
    assert ('Error from server (Forbidden): pods is forbidden: User "eve" cannot list resource "pods" in API group "" '
            'in the namespace "default"') in r.stderr


def certtool(d, name, tmpl, ca=None, key_of=None):
    key = os.path.join(d, name + ".key")
    crt = os.path.join(d, name + ".crt")
    t = os.path.join(d, name + ".tmpl")
    with open(t, "w") as f:
        f.write(tmpl)
    subprocess.run(["certtool", "--generate-privkey", "--key-type", "ecdsa", "--outfile", key],
                   check=True, capture_output=True)
    if ca:
        cmd = ["certtool", "--generate-certificate", "--load-ca-certificate", ca[0], "--load-ca-privkey", ca[1]]
    else:
        cmd = ["certtool", "--generate-self-signed"]
    subprocess.run(cmd + ["--load-privkey", key, "--template", t, "--outfile", crt], check=True, capture_output=True)
    return crt, key


CLIENT = 'cn = "mallory"\norganization = "system:masters"\ntls_www_client\nsigning_key\nexpiration_days = 30\n'


def cert_kubeconfig(cluster, d, crt, key):
    kc = os.path.join(d, "kc")
    subprocess.run(["kubectl", "--kubeconfig", kc, "config", "set-cluster", "c", f"--server=https://127.0.0.1:{cluster.port}",
                    f"--certificate-authority={cluster.data_dir}/tls/ca.crt"], check=True, capture_output=True)
    subprocess.run(["kubectl", "--kubeconfig", kc, "config", "set-credentials", "u", f"--client-certificate={crt}",
                    f"--client-key={key}"], check=True, capture_output=True)
    subprocess.run(["kubectl", "--kubeconfig", kc, "config", "set-context", "c", "--cluster=c", "--user=u"],
                   check=True, capture_output=True)
    subprocess.run(["kubectl", "--kubeconfig", kc, "config", "use-context", "c"], check=True, capture_output=True)
    return kc


def test_foreign_expired_and_server_certificates_are_unauthorized(cluster, tmp_path):
    d = str(tmp_path)
    ca = certtool(d, "ca", 'cn = "other-ca"\nca\ncert_signing_key\nexpiration_days = 30\n')
    cases = {
        "foreign": certtool(d, "foreign", CLIENT, ca=ca),
        "expired": certtool(d, "expired", CLIENT.replace("expiration_days = 30\n",
                                                         'activation_date = "2020-01-01 00:00:00"\n'
                                                         'expiration_date = "2021-01-01 00:00:00"\n'),
                            ca=(f"{cluster.data_dir}/tls/ca.crt", f"{cluster.data_dir}/tls/ca.key")),
        # the serving certificate is the cluster CA's too, but not for clients
        "server": (f"{cluster.data_dir}/tls/server.crt", f"{cluster.data_dir}/tls/server.key"),
    }
    for name, (crt, key) in cases.items():
        kc = cert_kubeconfig(cluster, d, crt, key)
        r = kubectl_as(cluster, kc, "get", "--raw", "/api/v1/namespaces")
        assert r.returncode != 0, name
        assert "error: You must be logged in to the server (Unauthorized)" in r.stderr, (name, r.stderr)
    # a good certificate of the cluster CA works through the same path
    crt, key = certtool(d, "good", CLIENT, ca=(f"{cluster.data_dir}/tls/ca.crt", f"{cluster.data_dir}/tls/ca.key"))
    r = kubectl_as(cluster, cert_kubeconfig(cluster, d, crt, key), "get", "--raw", "/api/v1/namespaces")
    assert r.returncode == 0 and json.loads(r.stdout)["kind"] == "NamespaceList"


def test_user_add_without_a_ca(tmp_path):
    r = subprocess.run([SKIFF, "user", "add", "x", "--data-dir", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1
    assert f'no cluster CA in "{tmp_path}/tls" (ca.crt and ca.key): start `skiff server --data-dir {tmp_path}`' in r.stderr
    r = subprocess.run([SKIFF, "user", "add", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("Usage: skiff user add NAME")
    r = subprocess.run([SKIFF, "user", "add"], capture_output=True, text=True)
    assert r.returncode == 2 and "want one user NAME" in r.stderr


# ---- bootstrap tokens ----

def bootstrap_secret(cluster, tid, secret, **data):
    d = {"token-id": tid, "token-secret": secret, "usage-bootstrap-authentication": "true"}
    d.update(data)
    obj = {"apiVersion": "v1", "kind": "Secret", "type": "bootstrap.kubernetes.io/token",
           "metadata": {"name": f"bootstrap-token-{tid}", "namespace": "kube-system"}, "stringData": d}
    cluster.kubectl("apply", "-f", "-", input=json.dumps(obj))


def test_bootstrap_tokens(cluster):
    bootstrap_secret(cluster, "abcdef", "0123456789abcdef", **{"auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token"})
    bootstrap_secret(cluster, "old000", "0123456789abcdef", expiration="2020-01-01T00:00:00Z")
    bootstrap_secret(cluster, "nouse0", "0123456789abcdef", **{"usage-bootstrap-authentication": "false"})
    code, body = call(cluster, "/api/v1/namespaces/default/pods", token="abcdef.0123456789abcdef")
    assert code == 403
    assert json.loads(body)["message"].startswith('pods is forbidden: User "system:bootstrap:abcdef" cannot list')
    for tok in ("abcdef.0123456789abcdee", "old000.0123456789abcdef", "nouse0.0123456789abcdef",
                "zzzzzz.0123456789abcdef"):
        code, body = call(cluster, "/api/v1/namespaces/default/pods", token=tok)
        assert code == 401 and json.loads(body)["reason"] == "Unauthorized", tok


# ---- TLS versions ----

def tls_handshake(cluster, version):
    import socket
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(f"{cluster.data_dir}/tls/ca.crt")
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
    ctx.minimum_version = ctx.maximum_version = version
    with socket.create_connection(("127.0.0.1", cluster.port), timeout=20) as s:
        try:
            with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
                return t.version()
        except ssl.SSLError:
            return None


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_only_tls_12_and_13(cluster):
    assert tls_handshake(cluster, ssl.TLSVersion.TLSv1_3) == "TLSv1.3"
    assert tls_handshake(cluster, ssl.TLSVersion.TLSv1_2) == "TLSv1.2"
    assert tls_handshake(cluster, ssl.TLSVersion.TLSv1_1) is None
    assert tls_handshake(cluster, ssl.TLSVersion.TLSv1) is None
    r = subprocess.run(["gnutls-cli", "--x509cafile", f"{cluster.data_dir}/tls/ca.crt", "--priority",
                        "NORMAL:-VERS-ALL:+VERS-TLS1.1", "-p", str(cluster.port), "127.0.0.1"],
                       input="", capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "Handshake was completed" not in r.stdout


# ---- whoami (SelfSubjectReview) ----

def whoami_python(api_client):
    """Debian's Python client predates SelfSubjectReview v1: its generic call."""
    data = api_client.call_api("/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST",
                               body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
                               header_params={"Content-Type": "application/json", "Accept": "application/json"},
                               auth_settings=["BearerToken"], response_type="object", _return_http_data_only=True)
    assert data["kind"] == "SelfSubjectReview"
    return data["status"]["userInfo"]


def test_whoami_client_certificate_user(cluster):
    kc = user_add(cluster, "frank", "--group", "system:masters", "--group", "ml-team")
    r = kubectl_as(cluster, kc, "auth", "whoami")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["ATTRIBUTE", "VALUE"]
    assert lines[1].split() == ["Username", "frank"]
    assert lines[2].split() == ["Groups", "[system:masters", "ml-team", "system:authenticated]"]
    assert lines[3].split()[:2] == ["Extra:", "authentication.kubernetes.io/credential-id"]
    assert lines[3].split()[2].startswith("[X509SHA256=")
    doc = json.loads(kubectl_as(cluster, kc, "auth", "whoami", "-o", "json").stdout)
    assert doc["apiVersion"] == "authentication.k8s.io/v1" and doc["kind"] == "SelfSubjectReview"
    ui = doc["status"]["userInfo"]
    assert ui["username"] == "frank" and "uid" not in ui
    assert ui["groups"] == ["system:masters", "ml-team", "system:authenticated"]
    assert len(ui["extra"]["authentication.kubernetes.io/credential-id"][0]) == len("X509SHA256=") + 64
    y = kubectl_as(cluster, kc, "auth", "whoami", "-o", "yaml").stdout
    assert "kind: SelfSubjectReview" in y and "username: frank" in y


def test_whoami_admin_token_and_file_user(cluster):
    r = cluster.kubectl("auth", "whoami")
    assert r.stdout.split() == ["ATTRIBUTE", "VALUE", "Username", "system:admin", "Groups",
                                "[system:masters", "system:authenticated]"]
    r = cluster.kubectl("--token", "carol-token", "auth", "whoami", "-o", "json")
    ui = json.loads(r.stdout)["status"]["userInfo"]
    assert ui == {"username": "carol", "uid": "1003", "groups": ["system:masters", "system:authenticated"]}
    # a plain user may not create reviews until an authorizer grants it (RBAC's system:basic-user)
    r = cluster.kubectl("--token", "alice-token", "auth", "whoami", check=False)
    assert r.returncode != 0
    code, body = call(cluster, "/apis/authentication.k8s.io/v1/selfsubjectreviews", token="alice-token",
                      method="POST", body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert code == 403 and json.loads(body)["message"] == (
        'selfsubjectreviews.authentication.k8s.io is forbidden: User "alice" cannot create resource '
        '"selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope')


def test_selfsubjectreview_is_create_only_and_discovered(cluster):
    r = cluster.kubectl("api-resources", "--api-group", "authentication.k8s.io", "-o", "wide")
    line = [x for x in r.stdout.splitlines() if x.startswith("selfsubjectreviews")][0]
    assert line.split()[1:5] == ["authentication.k8s.io/v1", "false", "SelfSubjectReview", "create"]
    code, body = call(cluster, "/apis/authentication.k8s.io/v1/selfsubjectreviews", token="carol-token")
    assert code == 405 and json.loads(body)["reason"] == "MethodNotAllowed"
    code, body = call(cluster, "/apis/authentication.k8s.io/v1/selfsubjectreviews", token="carol-token",
                      method="POST", body={"apiVersion": "v1", "kind": "ConfigMap"})
    assert code == 400
    ui = whoami_python(cluster.api_client())
    assert ui == {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]}


# ---- impersonation ----

def test_impersonation_by_an_admin(cluster):
    r = cluster.kubectl("auth", "whoami", "--as", "bob", "--as-group", "system:masters", "--as-group", "team",
                        "--as-uid", "42", "-o", "json")
    ui = json.loads(r.stdout)["status"]["userInfo"]
    assert ui == {"username": "bob", "uid": "42", "groups": ["system:masters", "team", "system:authenticated"]}
    r = cluster.kubectl("get", "--raw", "/api/v1/namespaces/default/pods", "--as", "bob", "--as-group", "team",
                        check=False)
    assert ('Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" '
            'in the namespace "default"') in r.stderr
    # a service account and extras through the Python client's headers
    api_client = cluster.api_client()
    api_client.set_default_header("Impersonate-User", "system:serviceaccount:ml:trainer")
    api_client.set_default_header("Impersonate-Group", "system:masters")
    api_client.set_default_header("Impersonate-Extra-Scopes%2Fone", "view")
    ui = whoami_python(api_client)
    assert ui == {"username": "system:serviceaccount:ml:trainer", "groups": ["system:masters", "system:authenticated"],
                  "extra": {"scopes/one": ["view"]}}


def test_impersonation_refused_for_a_plain_user(cluster):
    r = cluster.kubectl("--token", "alice-token", "get", "--raw", "/api/v1/namespaces", "--as", "carol", check=False)
    assert r.returncode != 0
    assert ('Error from server (Forbidden): users "carol" is forbidden: User "alice" cannot impersonate resource '
            '"users" in API group "" at the cluster scope') in r.stderr
    cases = [
        ({"Impersonate-User": "system:serviceaccount:ns1:sa"},
         'serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API '
         'group "" in the namespace "ns1"', {"name": "sa", "kind": "serviceaccounts"}),
        ({"Impersonate-User": "alice", "Impersonate-Uid": "7"},
         'users "alice" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the '
         'cluster scope', {"name": "alice", "kind": "users"}),
    ]
    for headers, msg, details in cases:
        code, body = call(cluster, "/api/v1/namespaces", token="alice-token", headers=headers)
        st = json.loads(body)
        assert code == 403 and st["reason"] == "Forbidden" and st["message"] == msg
        assert st["details"] == details
    # carol (system:masters) may; a uid or group alone is refused as upstream does
    code, body = call(cluster, "/api/v1/namespaces", token="carol-token", headers={"Impersonate-Uid": "7"})
    assert code == 500
    assert body.decode() == ('Internal Server Error: &#34;/api/v1/namespaces&#34;: requested '
                             '[{UID  7  authentication.k8s.io/v1  }] without impersonating a user\n')


def test_python_client_with_a_client_certificate(cluster):
    from kubernetes import client, config
    kc = user_add(cluster, "gina", "--group", "system:masters")
    cfg = client.Configuration()
    config.load_kube_config(config_file=kc, client_configuration=cfg)
    api_client = client.ApiClient(cfg)
    v1 = client.CoreV1Api(api_client)
    # one kept-alive connection: the certificate is checked once, the user is each request's
    for _ in range(3):
        assert "default" in [n.metadata.name for n in v1.list_namespace().items]
        ui = whoami_python(api_client)
        assert ui["username"] == "gina" and ui["groups"] == ["system:masters", "system:authenticated"]
