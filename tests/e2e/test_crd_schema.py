"""Custom objects against their CRD's openAPIV3Schema: validation errors as
upstream's 422 field paths, pruning of unknown fields and defaulting."""
import json

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["image"],
            "properties": {
                "image": {"type": "string", "pattern": "^[a-z0-9./:-]+$", "maxLength": 40},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 5, "default": 1},
                "mode": {"type": "string", "enum": ["fast", "slow"], "default": "slow"},
                "port": {"x-kubernetes-int-or-string": True},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "workers": {"type": "array", "maxItems": 2,
                            "items": {"type": "object", "properties": {
                                "name": {"type": "string"},
                                "gpus": {"type": "integer", "default": 0}}}},
            },
        },
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}


@pytest.fixture(scope="module")
def trainers(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="trainers", kind="Trainer", short=(), categories=(), schema=SCHEMA))
    wait_served(api_cluster, "trainers")
    return api_cluster


def obj(name, **spec):
    return {"apiVersion": f"{GROUP}/v1", "kind": "Trainer", "metadata": {"name": name}, "spec": spec}


def test_type_error_is_422_with_field_path(trainers):
    r = trainers.kubectl("create", "-f", "-", check=False, input=json.dumps(obj("t1", image="x", replicas="two")))
    assert r.returncode != 0
    assert ('The Trainer "t1" is invalid: spec.replicas: Invalid value: "string": '
            'spec.replicas in body must be of type integer: "string"') in r.stderr


def test_several_errors_listed(trainers):
    from kubernetes import client
    api = client.CustomObjectsApi(trainers.api_client())
    with pytest.raises(client.ApiException) as ex:
        api.create_namespaced_custom_object(GROUP, "v1", "default", "trainers",
                                            obj("t2", image="UPPER", replicas=9, mode="medium",
                                                workers=[{}, {}, {}]))
    assert ex.value.status == 422
    body = json.loads(ex.value.body)
    assert body["reason"] == "Invalid"
    assert body["message"].startswith('Trainer.stable.skiff.test "t2" is invalid: [')
    assert body["details"]["kind"] == "Trainer" and body["details"]["group"] == GROUP
    fields = {c["field"]: c["message"] for c in body["details"]["causes"]}
    assert fields["spec.image"] == "Invalid value: \"UPPER\": spec.image in body should match '^[a-z0-9./:-]+$'"
    assert fields["spec.replicas"] == "Invalid value: 9: spec.replicas in body should be less than or equal to 5"
    assert fields["spec.mode"] == 'Unsupported value: "medium": supported values: "fast", "slow"'
    assert fields["spec.workers"] == "Too many: 3: must have at most 2 items"
    with pytest.raises(client.ApiException) as ex:
        api.create_namespaced_custom_object(GROUP, "v1", "default", "trainers", obj("t3", replicas=1))
    causes = json.loads(ex.value.body)["details"]["causes"]
    assert {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.image"} in causes


def test_pruning_and_defaulting(trainers):
    doc = obj("t4", image="busybox", port="http", bogus=1, extra={"anything": {"goes": True}},
              workers=[{"name": "w", "junk": 2}])
    doc["junkTop"] = 1
    r = apply_doc(trainers, doc, "--validate=warn")
    assert 'unknown field "spec.bogus"' in r.stderr
    got = trainers.kjson("get", "trainer", "t4")
    assert "junkTop" not in got
    assert got["spec"] == {"image": "busybox", "port": "http", "replicas": 1, "mode": "slow",
                           "extra": {"anything": {"goes": True}}, "workers": [{"name": "w", "gpus": 0}]}


def test_strict_field_validation_refuses_unknown_fields(trainers):
    r = trainers.kubectl("create", "--validate=strict", "-f", "-", check=False,
                         input=json.dumps(obj("t5", image="busybox", bogus=1)))
    assert r.returncode != 0
    assert 'unknown field "spec.bogus"' in r.stderr
    assert trainers.kubectl("get", "trainer", "t5", check=False).returncode != 0


def test_update_is_validated_too(trainers):
    apply_doc(trainers, obj("t6", image="busybox", port=8080))
    r = trainers.kubectl("patch", "trainer", "t6", "--type=merge", "-p", '{"spec":{"replicas":-1}}', check=False)
    assert r.returncode != 0
    assert "spec.replicas in body should be greater than or equal to 0" in r.stderr
    assert trainers.kjson("get", "trainer", "t6")["spec"]["replicas"] == 1


def test_cel_rules_enforced_without_a_warning(api_cluster):
    """x-kubernetes-validations are stored and enforced (test_crd_cel.py has
    the details): no Warning header says otherwise."""
    schema = {"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min above max"}],
        "properties": {"min": {"type": "integer"}, "max": {"type": "integer",
                       "x-kubernetes-validations": [{"rule": "self >= 0"}]}}}}}
    r = apply_doc(api_cluster, crd_doc(plural="ranges", kind="Range", short=(), categories=(), schema=schema),
                  "--server-side")
    assert "Warning" not in r.stderr
    stored = api_cluster.kjson("get", "crd", f"ranges.{GROUP}")
    spec = stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["x-kubernetes-validations"] == [{"rule": "self.min <= self.max", "message": "min above max"}]
    wait_served(api_cluster, "ranges")
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": f"{GROUP}/v1", "kind": "Range", "metadata": {"name": "r"}, "spec": {"min": 5, "max": 1}}))
    assert r.returncode != 0
    assert 'The Range "r" is invalid: spec: Invalid value: "object": min above max' in r.stderr
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": f"{GROUP}/v1", "kind": "Range", "metadata": {"name": "r"}, "spec": {"min": -5, "max": -1}}))
    assert 'spec.max: Invalid value: "integer": failed rule: self >= 0' in r.stderr


FORMATS = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "ip": {"type": "string", "format": "ipv4"},
                "ip6": {"type": "string", "format": "ipv6"},
                "net": {"type": "string", "format": "cidr"},
                "at": {"type": "string", "format": "date-time"},
                "day": {"type": "string", "format": "date"},
                "id": {"type": "string", "format": "uuid"},
                "host": {"type": "string", "format": "hostname"},
                "data": {"type": "string", "format": "byte"},
                "free": {"type": "string", "format": "no-such-format"},
                # the int-or-string shape of real CRDs (ports, quantities)
                "size": {"x-kubernetes-int-or-string": True,
                         "anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+(Ki|Mi|Gi)$"}]},
                "mode": {"type": "string", "oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]},
                "name": {"type": "string", "not": {"enum": ["forbidden"]}},
                "both": {"type": "string", "allOf": [{"minLength": 2}, {"maxLength": 3}]},
            },
        },
    },
}


@pytest.fixture(scope="module")
def formats(api_cluster):
    apply_doc(api_cluster, crd_doc(plural="formats", kind="Format", short=(), categories=(), schema=FORMATS))
    wait_served(api_cluster, "formats")
    return api_cluster


def fobj(obj_name, **spec):
    return {"apiVersion": f"{GROUP}/v1", "kind": "Format", "metadata": {"name": obj_name}, "spec": spec}


def test_formats_and_compositions_accept_valid_values(formats):
    good = fobj("ok", ip="10.1.2.3", ip6="fd00::1", net="10.0.0.0/8", at="2026-12-02T01:02:03Z",
                day="2026-12-02", id="123e4567-e89b-12d3-a456-426614174000", host="node-1.example.com",
                data="aGVsbG8=", free="anything", size="5Gi", mode="a", name="fine", both="abc")
    formats.kubectl("create", "-f", "-", input=json.dumps(good))
    formats.kubectl("create", "-f", "-", input=json.dumps(fobj("ok2", size=7, mode="c")))
    formats.kubectl("delete", "formats", "ok", "ok2")


@pytest.mark.parametrize("field,value,message", [
    ("ip", "10.1.2", 'spec.ip: Invalid value: "10.1.2": spec.ip in body must be of type ipv4: "10.1.2"'),
    ("ip", "fd00::1", 'spec.ip in body must be of type ipv4: "fd00::1"'),
    ("ip6", "10.0.0.1", 'spec.ip6 in body must be of type ipv6: "10.0.0.1"'),
    ("net", "10.0.0.0/33", 'spec.net in body must be of type cidr: "10.0.0.0/33"'),
    ("at", "yesterday", 'spec.at in body must be of type date-time: "yesterday"'),
    ("day", "2026-13-01", 'spec.day in body must be of type date: "2026-13-01"'),
    ("id", "not-a-uuid", 'spec.id in body must be of type uuid: "not-a-uuid"'),
    ("host", "-bad-", 'spec.host in body must be of type hostname: "-bad-"'),
    ("data", "not base64!", 'spec.data in body must be of type byte: "not base64!"'),
    ("size", "5GB", '"spec.size" must validate at least one schema (anyOf)'),
    ("size", "5GB", "spec.size in body should match '^[0-9]+(Ki|Mi|Gi)$'"),
    ("mode", "b", '"spec.mode" must validate one and only one schema (oneOf). Found 2 valid alternatives'),
    ("mode", "z", '"spec.mode" must validate one and only one schema (oneOf). Found none valid'),
    ("name", "forbidden", '"spec.name" must not validate the schema (not)'),
    ("both", "abcd", '"spec.both" must validate all the schemas (allOf)'),
])
def test_formats_and_compositions_refuse_bad_values(formats, field, value, message):
    r = formats.kubectl("create", "-f", "-", check=False, input=json.dumps(fobj("bad", **{field: value})))
    assert r.returncode != 0
    assert 'The Format "bad" is invalid' in r.stderr and message in r.stderr, r.stderr
