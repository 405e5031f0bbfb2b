"""ServiceAccounts and bound tokens without a node: the default ServiceAccount
and kube-root-ca.crt in every namespace, `kubectl create token` and
TokenRequest, the token authenticator, TokenReview, the OIDC documents (the
JWKS verifies a token) and the ServiceAccount admission plugin's projected
volume."""
import base64
import hashlib
import json
import os
import subprocess
import tempfile
import time
import uuid

import pytest

from conftest import KUBECTL, SLOW

API_AUD = "https://kubernetes.default.svc.cluster.local"


def wait_for(fn, timeout=30, what="condition"):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64url(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def parts(token):
    h, p, s = token.split(".")
    return json.loads(b64url_decode(h)), json.loads(b64url_decode(p)), b64url_decode(s)


def rs256_verifies(token, jwk):
    """RSASSA-PKCS1-v1_5 with SHA-256 checked with Python's integers against
    the JWK's modulus and exponent (RFC 8017 §8.2.2)."""
    h, p, s = token.split(".")
    n = int.from_bytes(b64url_decode(jwk["n"]), "big")
    e = int.from_bytes(b64url_decode(jwk["e"]), "big")
    k = (n.bit_length() + 7) // 8
    em = pow(int.from_bytes(b64url_decode(s), "big"), e, n).to_bytes(k, "big")
    digest_info = bytes.fromhex("3031300d060960864801650304020105000420") + hashlib.sha256(f"{h}.{p}".encode()).digest()
    return em == b"\x00\x01" + b"\xff" * (k - 3 - len(digest_info)) + b"\x00" + digest_info


def sign_with_server_key(c, claims):
    """A token signed with the server's own key (openssl), for claims the API
    would never issue (an expired one)."""
    header = {"alg": "RS256", "kid": jwks(c)["keys"][0]["kid"]}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    key = os.path.join(c.data_dir, "tls", "service-account.key")
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signing_input.encode(),
                         capture_output=True, check=True).stdout
    return signing_input + "." + b64url(sig)


def jwks(c):
    return json.loads(c.kubectl("get", "--raw", "/openid/v1/jwks").stdout)


def create_token(c, sa, ns="default", body=None):
    r = c.kubectl("create", "--raw", f"/api/v1/namespaces/{ns}/serviceaccounts/{sa}/token", "-f", "-",
                  input=json.dumps(body or {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                                            "spec": {}}), check=False)
    return r


def review(c, token, audiences=None):
    spec = {"token": token}
    if audiences:
        spec["audiences"] = audiences
    out = c.kubectl("create", "--raw", "/apis/authentication.k8s.io/v1/tokenreviews", "-f", "-",
                    input=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                      "spec": spec})).stdout
    return json.loads(out)["status"]


def kubectl_as(c, token, *args):
    cmd = [KUBECTL, "--kubeconfig", c.kubeconfig, "--cache-dir", c.cache, "--token", token] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def pod_manifest(name, extra_spec=None, ctr=None):
    spec = {"containers": [dict({"name": "c", "image": "busybox:1", "command": ["sleep", "3600"]}, **(ctr or {}))]}
    spec.update(extra_spec or {})
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def test_default_serviceaccount_and_root_ca_in_every_namespace(api_cluster):
    c = api_cluster
    c.kubectl("create", "namespace", "sa-fresh")
    wait_for(lambda: c.kubectl("-n", "sa-fresh", "get", "sa", "default", check=False).returncode == 0,
             what="the default ServiceAccount")
    cm = wait_for(lambda: c.kubectl("-n", "sa-fresh", "get", "cm", "kube-root-ca.crt", "-o", "json",
                                    check=False).stdout, what="kube-root-ca.crt")
    cm = json.loads(cm)
    with open(os.path.join(c.data_dir, "tls", "ca.crt")) as f:
        assert cm["data"] == {"ca.crt": f.read()}
    assert cm["metadata"]["annotations"]["kubernetes.io/description"].startswith(
        "Contains a CA bundle that can be used to verify the kube-apiserver")
    # deleted or changed, both come back
    uid = c.kjson("-n", "sa-fresh", "get", "sa", "default")["metadata"]["uid"]
    c.kubectl("-n", "sa-fresh", "delete", "sa", "default")
    wait_for(lambda: json.loads(c.kubectl("-n", "sa-fresh", "get", "sa", "default", "-o", "json", check=False).stdout
                                or "{}").get("metadata", {}).get("uid") not in (None, uid), what="a new default SA")
    c.kubectl("-n", "sa-fresh", "patch", "cm", "kube-root-ca.crt", "--type=merge", "-p", '{"data":{"ca.crt":"x"}}')
    wait_for(lambda: c.kjson("-n", "sa-fresh", "get", "cm", "kube-root-ca.crt")["data"]["ca.crt"].startswith(
        "-----BEGIN CERTIFICATE-----"), what="kube-root-ca.crt written again")
    for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
        assert c.kjson("-n", ns, "get", "sa", "default")["metadata"]["name"] == "default"


def test_kubectl_create_token_and_jwks(api_cluster):
    c = api_cluster
    c.kubectl("create", "serviceaccount", "bob")
    sa = c.kjson("get", "sa", "bob")
    token = c.kubectl("create", "token", "bob", "--duration", "10m", "--audience", "x").stdout.strip()
    header, claims, _ = parts(token)
    keys = jwks(c)["keys"]
    assert header == {"alg": "RS256", "kid": keys[0]["kid"]}
    assert claims["iss"] == API_AUD and claims["aud"] == ["x"]
    assert claims["sub"] == "system:serviceaccount:default:bob"
    assert claims["exp"] - claims["iat"] == 600 and claims["nbf"] == claims["iat"]
    assert uuid.UUID(claims["jti"])
    assert claims["kubernetes.io"] == {"namespace": "default",
                                       "serviceaccount": {"name": "bob", "uid": sa["metadata"]["uid"]}}
    assert list(claims) == sorted(claims)
    assert keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["use"] == "sig"
    assert rs256_verifies(token, keys[0])
    assert not rs256_verifies(token[:-4] + ("AAAA" if token[-4:] != "AAAA" else "BBBB"), keys[0])
    # kid: base64url of the SHA-256 of the DER public key, as upstream
    key = os.path.join(c.data_dir, "tls", "service-account.key")
    der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], capture_output=True,
                         check=True).stdout
    assert keys[0]["kid"] == b64url(hashlib.sha256(der).digest())
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
    disc = json.loads(c.kubectl("get", "--raw", "/.well-known/openid-configuration").stdout)
    assert disc["issuer"] == API_AUD and disc["jwks_uri"].endswith("/openid/v1/jwks")
    assert disc["id_token_signing_alg_values_supported"] == ["RS256"]
    # the default audience is the API server's, the default life an hour
    t2 = c.kubectl("create", "token", "bob").stdout.strip()
    _, c2, _ = parts(t2)
    assert c2["aud"] == [API_AUD] and c2["exp"] - c2["iat"] == 3600


def test_token_request_errors(api_cluster):
    c = api_cluster
    c.kubectl("create", "serviceaccount", "errs")
    r = c.kubectl("create", "token", "errs", "--duration", "1m", check=False)
    assert r.returncode != 0
    assert ('TokenRequest.authentication.k8s.io "errs" is invalid: spec.expirationSeconds: Invalid value: 60: '
            'may not specify a duration less than 10 minutes') in r.stderr
    r = c.kubectl("create", "token", "nobody", check=False)
    assert 'serviceaccounts "nobody" not found' in r.stderr
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "ghost"}}}
    r = create_token(c, "errs", body=body)
    assert 'pods "ghost" not found' in r.stderr
    c.kubectl("create", "-f", "-", input=pod_manifest("errs-pod", {"serviceAccountName": "errs"}))
    body["spec"]["boundObjectRef"] = {"apiVersion": "v1", "kind": "Pod", "name": "errs-pod", "uid": "nope"}
    r = create_token(c, "errs", body=body)
    assert ("the UID in the bound object reference (nope) does not match the UID in record. The object might have "
            "been deleted and then recreated") in r.stderr
    body["spec"]["boundObjectRef"] = {"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}
    r = create_token(c, "errs", body=body)
    assert "cannot bind token to object of type /v1, Kind=ConfigMap" in r.stderr
    body["spec"]["boundObjectRef"] = {"apiVersion": "v1", "kind": "Pod", "name": "errs-pod"}
    r = create_token(c, "default", body=body)
    assert 'cannot bind token for serviceaccount "default" to pod running with different serviceaccount name.' in r.stderr


def test_token_review_and_authentication(api_cluster):
    c = api_cluster
    c.kubectl("create", "serviceaccount", "rev")
    c.kubectl("create", "-f", "-", input=pod_manifest("rev-pod", {"serviceAccountName": "rev"}))
    pod = c.kjson("get", "pod", "rev-pod")
    sa = c.kjson("get", "sa", "rev")
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "rev-pod",
                                        "uid": pod["metadata"]["uid"]}, "expirationSeconds": 3607}}
    out = json.loads(create_token(c, "rev", body=body).stdout)
    token = out["status"]["token"]
    _, claims, _ = parts(token)
    # kubelet's default projected token: valid a year, warned about after 3607 s
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607
    assert claims["kubernetes.io"]["pod"] == {"name": "rev-pod", "uid": pod["metadata"]["uid"]}
    st = review(c, token)
    assert st["authenticated"] is True and st["audiences"] == [API_AUD]
    u = st["user"]
    assert u["username"] == "system:serviceaccount:default:rev" and u["uid"] == sa["metadata"]["uid"]
    assert u["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert u["extra"]["authentication.kubernetes.io/pod-name"] == ["rev-pod"]
    assert u["extra"]["authentication.kubernetes.io/pod-uid"] == [pod["metadata"]["uid"]]
    assert u["extra"]["authentication.kubernetes.io/credential-id"] == ["JTI=" + claims["jti"]]
    # another audience than the token's
    st = review(c, token, ["vault"])
    assert "authenticated" not in st
    assert st["error"] == (f'[invalid bearer token, token audiences ["{API_AUD}"] is invalid for the target '
                           'audiences ["vault"]]')
    # the token works against the API (and RBAC-less, is refused with upstream's message)
    r = kubectl_as(c, token, "get", "pods", "-n", "kube-system")
    assert r.returncode != 0
    assert ('pods is forbidden: User "system:serviceaccount:default:rev" cannot list resource "pods" in API group '
            '"" in the namespace "kube-system"') in r.stderr
    r = kubectl_as(c, token, "get", "--raw", "/openid/v1/jwks")
    assert r.returncode == 0 and json.loads(r.stdout)["keys"]
    # an expired token (signed with the server's key: the API never issues one)
    now = int(time.time())
    expired = sign_with_server_key(c, dict(claims, iat=now - 7200, nbf=now - 7200, exp=now - 3600))
    st = review(c, expired)
    assert st["error"] == "[invalid bearer token, service account token has expired]"
    r = kubectl_as(c, expired, "get", "--raw", "/openid/v1/jwks")
    assert r.returncode != 0 and "Unauthorized" in r.stderr
    assert "invalid bearer token" in review(c, "not-a-jwt")["error"]
    # the bound pod deleted: the token is invalidated at once
    c.kubectl("delete", "pod", "rev-pod", "--wait=true")
    st = review(c, token)
    assert st["error"] == "[invalid bearer token, service account token has been invalidated]"
    # the ServiceAccount deleted and made again: another uid
    t2 = c.kubectl("create", "token", "rev").stdout.strip()
    assert review(c, t2)["authenticated"] is True
    c.kubectl("delete", "sa", "rev")
    assert review(c, t2)["error"] == '[invalid bearer token, serviceaccounts "rev" not found]'
    c.kubectl("create", "serviceaccount", "rev")
    assert "does not match claim" in review(c, t2)["error"]


def test_python_client_token_request_and_review(api_cluster):
    from kubernetes import client
    api = client.ApiClient(api_cluster.api_client().configuration)
    v1 = client.CoreV1Api(api)
    v1.create_namespaced_service_account("default", client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="py")))
    tr = v1.create_namespaced_service_account_token("py", "default", client.AuthenticationV1TokenRequest(
        spec=client.V1TokenRequestSpec(audiences=["a", "b"], expiration_seconds=1200)))
    assert tr.status.token and tr.status.expiration_timestamp
    assert tr.spec.audiences == ["a", "b"] and tr.spec.expiration_seconds == 1200
    auth = client.AuthenticationV1Api(api)
    rv = auth.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=tr.status.token,
                                                                                     audiences=["b", "c"])))
    assert rv.status.authenticated and rv.status.audiences == ["b"]
    assert rv.status.user.username == "system:serviceaccount:default:py"
    res = {r["name"]: r for r in json.loads(api_cluster.kubectl("get", "--raw", "/api/v1").stdout)["resources"]}
    assert res["serviceaccounts/token"]["verbs"] == ["create"]
    assert res["serviceaccounts/token"]["kind"] == "TokenRequest"
    assert res["serviceaccounts/token"]["group"] == "authentication.k8s.io"
    ares = {r["name"]: r for r in
            json.loads(api_cluster.kubectl("get", "--raw", "/apis/authentication.k8s.io/v1").stdout)["resources"]}
    assert ares["tokenreviews"]["verbs"] == ["create"] and not ares["tokenreviews"]["namespaced"]


def test_admission_projected_volume(api_cluster):
    c = api_cluster
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "shape"},
        "spec": {"initContainers": [{"name": "i", "image": "busybox:1", "command": ["true"]}],
                 "containers": [{"name": "c", "image": "busybox:1"},
                                {"name": "own", "image": "busybox:1", "volumeMounts": [
                                    {"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
                 "volumes": [{"name": "mine", "emptyDir": {}}]}}))
    spec = c.kjson("get", "pod", "shape")["spec"]
    assert spec["serviceAccountName"] == "default" and spec["serviceAccount"] == "default"
    vol = [v for v in spec["volumes"] if v["name"].startswith("kube-api-access-")]
    assert len(vol) == 1 and len(vol[0]["name"]) == len("kube-api-access-") + 5
    name = vol[0]["name"]
    assert vol[0]["projected"] == {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                      "fieldPath": "metadata.namespace"}}]}}]}
    mount = {"name": name, "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert [m["name"] for m in spec["containers"][1]["volumeMounts"]] == ["mine"]
    # automountServiceAccountToken: the pod's setting wins over the ServiceAccount's
    c.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "ServiceAccount",
                                                    "metadata": {"name": "quiet"},
                                                    "automountServiceAccountToken": False}))
    c.kubectl("create", "-f", "-", input=pod_manifest("off-sa", {"serviceAccountName": "quiet"}))
    c.kubectl("create", "-f", "-", input=pod_manifest("off-pod", {"automountServiceAccountToken": False}))
    c.kubectl("create", "-f", "-", input=pod_manifest("on-pod", {"serviceAccountName": "quiet",
                                                                 "automountServiceAccountToken": True}))
    assert "volumes" not in c.kjson("get", "pod", "off-sa")["spec"]
    assert "volumes" not in c.kjson("get", "pod", "off-pod")["spec"]
    assert c.kjson("get", "pod", "on-pod")["spec"]["volumes"][0]["name"].startswith("kube-api-access-")
    r = c.kubectl("create", "-f", "-", input=pod_manifest("lost", {"serviceAccountName": "nope"}), check=False)
    assert r.returncode != 0
    assert ('pods "lost" is forbidden: error looking up service account default/nope: serviceaccount "nope" not '
            'found') in r.stderr
    # kubectl get -o yaml shows upstream's shape
    out = c.kubectl("get", "pod", "shape", "-o", "yaml").stdout
    assert "    projected:\n      defaultMode: 420\n      sources:\n      - serviceAccountToken:\n" \
           "          expirationSeconds: 3607\n          path: token\n" in out
