"""OpenAPI v2 publishes custom kinds: each served version's definition with
x-kubernetes-group-version-kind, so kubectl's client-side validation (which
reads v2 for custom kinds) checks custom objects."""
import json

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "color": {"type": "string"},
            "size": {"type": "integer"},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "port": {"x-kubernetes-int-or-string": True}}},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
}


@pytest.fixture(scope="module")
def sprockets(api_cluster):
    v1 = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA}}
    v2 = {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": SCHEMA}}
    v3 = {"name": "v3", "served": False, "storage": False, "schema": {"openAPIV3Schema": SCHEMA}}
    apply_doc(api_cluster, crd_doc(plural="sprockets", kind="Sprocket", short=(), categories=(),
                                   versions=[v1, v2, v3]))
    wait_served(api_cluster, "sprockets")
    wait_served(api_cluster, "sprockets", version="v2")
    return api_cluster


def test_v2_definitions(sprockets):
    doc = json.loads(sprockets.kubectl("get", "--raw", "/openapi/v2").stdout)
    defs = doc["definitions"]
    rg = ".".join(reversed(GROUP.split(".")))
    for v in ("v1", "v2"):
        d = defs[f"{rg}.{v}.Sprocket"]
        assert d["x-kubernetes-group-version-kind"] == [{"group": GROUP, "kind": "Sprocket", "version": v}]
        assert d["properties"]["spec"]["properties"]["size"] == {"type": "integer"}
        assert d["properties"]["metadata"] == {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
        assert d["properties"]["kind"] == {"type": "string"}
        lst = defs[f"{rg}.{v}.SprocketList"]
        assert lst["x-kubernetes-group-version-kind"][0]["kind"] == "SprocketList"
        assert lst["properties"]["items"]["items"] == {"$ref": f"#/definitions/{rg}.{v}.Sprocket"}
    assert f"{rg}.v3.Sprocket" not in defs
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in defs
    # the protobuf form (what client-go asks for) carries them too
    from kubernetes import client
    api = sprockets.api_client()
    resp = api.call_api("/openapi/v2", "GET", header_params={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"},
                        _preload_content=False, auth_settings=["BearerToken"])
    assert f"{rg}.v2.Sprocket".encode() in resp[0].data


def obj(spec, version="v1"):
    return {"apiVersion": f"{GROUP}/{version}", "kind": "Sprocket", "metadata": {"name": "s1"}, "spec": spec}


def as_list(*items):
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


def test_kubectl_client_side_validation(sprockets):
    rg = ".".join(reversed(GROUP.split(".")))
    # a single object: the v3 PATCH operation takes fieldValidation, so
    # kubectl leaves the check to the server (as upstream)
    r = sprockets.kubectl("apply", "--validate=strict", "-f", "-", check=False,
                          input=json.dumps(obj({"color": "red", "bogus": 1})))
    assert r.returncode != 0 and 'strict decoding error: unknown field "spec.bogus"' in r.stderr
    # a List: kubectl validates each item itself against the v2 definitions
    r = sprockets.kubectl("apply", "--validate=strict", "-f", "-", check=False,
                          input=as_list(obj({"color": "red", "bogus": 1})))
    assert r.returncode != 0
    assert (f'ValidationError(Sprocket.spec): unknown field "bogus" in {rg}.v1.Sprocket.spec') in r.stderr
    assert "if you choose to ignore these errors, turn validation off with --validate=false" in r.stderr
    r = sprockets.kubectl("apply", "--validate=strict", "-f", "-", check=False,
                          input=as_list(obj({"size": "big"}, "v2")))
    assert r.returncode != 0
    assert (f'ValidationError(Sprocket.spec.size): invalid type for {rg}.v2.Sprocket.spec.size: '
            'got "string", expected "integer"') in r.stderr
    # valid ones go through, unknown fields below preserve-unknown-fields and int-or-string included
    sprockets.kubectl("apply", "--validate=strict", "-f", "-",
                      input=as_list(obj({"color": "red", "size": 2, "extra": {"a": [1]}, "port": "http"})))
    assert sprockets.kjson("get", "sprockets", "s1")["spec"]["extra"] == {"a": [1]}
    sprockets.kubectl("apply", "--validate=strict", "-f", "-", input=as_list(obj({"port": 80})))
