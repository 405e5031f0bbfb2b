"""x-kubernetes-validations (CEL) rules of CRDs evaluated on custom objects
as apiextensions-apiserver does: self at each schema node, transition rules
with oldSelf, messageExpression, reason and fieldPath, the format library, the runtime cost
limit, ratcheting; and rules compiled when the CRD is written."""
import json

import pytest

from crd_util import GROUP, apply_doc, crd_doc, wait_served

SCHEMA = {
    "type": "object",
    "x-kubernetes-validations": [{"rule": "size(self.metadata.name) <= 12", "message": "name too long"}],
    "properties": {
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas above maxReplicas"},
                {"rule": "!has(self.mode) || self.mode != 'off' || self.maxReplicas == 0",
                 "messageExpression": "'mode off needs maxReplicas 0, not ' + string(self.maxReplicas)"},
                {"rule": "!has(self.owner) || self.owner.startsWith('team-')", "reason": "FieldValueForbidden",
                 "fieldPath": ".owner", "message": "owner must start with team-"},
                {"rule": "!has(self.probe) || self.probe.missing == 1"},
            ],
            "properties": {
                "name": {"type": "string",
                         "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "name is immutable"}]},
                "minReplicas": {"type": "integer"},
                "maxReplicas": {"type": "integer"},
                "mode": {"type": "string"},
                "owner": {"type": "string"},
                "host": {"type": "string", "maxLength": 253, "x-kubernetes-validations": [
                    {"rule": "!format.dns1123Subdomain().validate(self).hasValue()",
                     "messageExpression": "format.named('dns1123Subdomain').value().validate(self).value().join('; ')"}]},
                "probe": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "tags": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {
                    "type": "string", "x-kubernetes-validations": [{"rule": "self != ''", "message": "empty"}]}},
                "workers": {
                    "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"],
                              "x-kubernetes-validations": [
                                  {"rule": "self.gpus >= oldSelf.gpus", "message": "gpus may not shrink"}],
                              "properties": {"name": {"type": "string"}, "gpus": {"type": "integer"}}}},
                # maxItems keeps the rule under the CRD's cost estimate; the runtime limit stops it
                "heavy": {"type": "array", "maxItems": 200, "items": {"type": "integer"},
                          "x-kubernetes-validations": [
                              {"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"}]},
            },
        },
        "status": {"type": "object",
                   "x-kubernetes-validations": [{"rule": "self.ready <= 10", "message": "ready above 10"}],
                   "properties": {"ready": {"type": "integer"}}},
    },
}


@pytest.fixture(scope="module")
def rangers(api_cluster):
    r = apply_doc(api_cluster, crd_doc(plural="rangers", kind="Ranger", short=(), categories=(), schema=SCHEMA))
    assert "Warning" not in r.stderr
    wait_served(api_cluster, "rangers")
    return api_cluster


def obj(obj_name, **spec):
    base = {"name": "a", "minReplicas": 1, "maxReplicas": 3}
    base.update(spec)
    return {"apiVersion": f"{GROUP}/v1", "kind": "Ranger", "metadata": {"name": obj_name}, "spec": base}


def refused(c, doc, *extra):
    r = c.kubectl("apply", *extra, "-f", "-", input=json.dumps(doc), check=False)
    assert r.returncode != 0, r.stdout
    return r.stderr


def test_valid_object_is_accepted(rangers):
    apply_doc(rangers, obj("ok1", tags=["x"], workers=[{"name": "w", "gpus": 1}], labels={"a": "b"},
                           host="api.example.com"))
    assert rangers.kjson("get", "ranger", "ok1")["spec"]["workers"] == [{"name": "w", "gpus": 1}]


@pytest.mark.parametrize("doc,message", [
    (obj("a-very-long-name"), 'The Ranger "a-very-long-name" is invalid: <nil>: Invalid value: "object": name too long'),
    (obj("r1", minReplicas=5), 'spec: Invalid value: "object": minReplicas above maxReplicas'),
    (obj("r2", mode="off"), 'spec: Invalid value: "object": mode off needs maxReplicas 0, not 3'),
    (obj("r3", owner="me"), "spec.owner: Forbidden: owner must start with team-"),
    (obj("r4", probe={"other": 1}),
     'spec: Invalid value: "object": no such key: missing evaluating rule: !has(self.probe) || self.probe.missing == 1'),
    (obj("r5", labels={"a": ""}), 'spec.labels[a]: Invalid value: "string": empty'),
    (obj("r7", host="Bad_Host"), 'spec.host: Invalid value: "string": a lowercase RFC 1123 subdomain must consist of '
                                 "lower case alphanumeric characters, '-' or '.'"),
])
def test_failing_rules_are_refused_with_upstream_messages(rangers, doc, message):
    assert message in refused(rangers, doc)


def test_several_failing_rules_listed(rangers):
    err = refused(rangers, obj("r6", minReplicas=9, owner="x"))
    assert 'spec: Invalid value: "object": minReplicas above maxReplicas' in err
    assert "spec.owner: Forbidden: owner must start with team-" in err


def test_transition_rule_makes_a_field_immutable(rangers):
    apply_doc(rangers, obj("imm", name="first"))
    err = refused(rangers, obj("imm", name="second"))
    assert 'spec.name: Invalid value: "string": name is immutable' in err
    r = rangers.kubectl("patch", "ranger", "imm", "--type=merge", "-p", '{"spec":{"name":"third"}}', check=False)
    assert r.returncode != 0 and "name is immutable" in r.stderr
    # other fields still change; server-side apply goes through the same rules
    rangers.kubectl("patch", "ranger", "imm", "--type=merge", "-p", '{"spec":{"maxReplicas":4}}')
    err = refused(rangers, obj("imm", name="fourth"), "--server-side", "--force-conflicts")
    assert "name is immutable" in err
    assert rangers.kjson("get", "ranger", "imm")["spec"]["name"] == "first"


def test_list_map_items_correlate_with_their_old_values(rangers):
    apply_doc(rangers, obj("lm", workers=[{"name": "a", "gpus": 2}, {"name": "b", "gpus": 1}]))
    # reordered, grown, and a new item (no old value: the transition rule does not run)
    apply_doc(rangers, obj("lm", workers=[{"name": "b", "gpus": 1}, {"name": "a", "gpus": 3}, {"name": "c", "gpus": 0}]))
    err = refused(rangers, obj("lm", workers=[{"name": "b", "gpus": 0}, {"name": "a", "gpus": 3}]))
    assert 'spec.workers[0]: Invalid value: "object": gpus may not shrink' in err


def test_status_rules_on_the_status_subresource(rangers):
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    api = client.CustomObjectsApi(rangers.api_client())
    api.create_namespaced_custom_object(GROUP, "v1", "default", "rangers", obj("st"))
    api.patch_namespaced_custom_object_status(GROUP, "v1", "default", "rangers", "st", {"status": {"ready": 3}})
    with pytest.raises(ApiException) as e:
        api.patch_namespaced_custom_object_status(GROUP, "v1", "default", "rangers", "st", {"status": {"ready": 11}})
    assert e.value.status == 422
    body = json.loads(e.value.body)
    assert body["reason"] == "Invalid"
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "status",
                                          "message": 'Invalid value: "object": ready above 10'}]
    assert api.get_namespaced_custom_object(GROUP, "v1", "default", "rangers", "st")["status"] == {"ready": 3}


def test_python_client_sees_reason_and_field_path(rangers):
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    api = client.CustomObjectsApi(rangers.api_client())
    with pytest.raises(ApiException) as e:
        api.create_namespaced_custom_object(GROUP, "v1", "default", "rangers", obj("py", owner="nobody"))
    causes = json.loads(e.value.body)["details"]["causes"]
    assert causes == [{"reason": "FieldValueForbidden", "field": "spec.owner",
                       "message": "Forbidden: owner must start with team-"}]


def test_runtime_cost_limit_stops_a_runaway_rule(rangers):
    err = refused(rangers, obj("heavy", heavy=list(range(120))))
    assert ("'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to "
            "call cost exceeds limit for rule: self.all(a, self.all(b, self.all(c, a + b + c >= 0)))") in err
    apply_doc(rangers, obj("light", heavy=[1, 2, 3]))


def test_unchanged_values_are_ratcheted(rangers):
    """A rule added later does not block updates that leave the offending
    value as it was (CRDValidationRatcheting): map values correlate by key,
    set items by value; atomic list items do not correlate."""
    apply_doc(rangers, obj("old", labels={"a": "much-too-long"}, tags=["much-too-long"]))
    schema = json.loads(json.dumps(SCHEMA))
    spec = schema["properties"]["spec"]["properties"]
    spec["labels"]["additionalProperties"]["x-kubernetes-validations"].append({"rule": "size(self) <= 5"})
    spec["tags"]["x-kubernetes-list-type"] = "set"
    spec["tags"]["items"]["x-kubernetes-validations"] = [{"rule": "size(self) <= 5", "message": "tag too long"}]
    apply_doc(rangers, crd_doc(plural="rangers", kind="Ranger", short=(), categories=(), schema=schema))
    try:
        r = rangers.kubectl("patch", "ranger", "old", "--type=merge", "-p", '{"spec":{"maxReplicas":5}}')
        # the ratcheted errors are warnings, as upstream
        assert 'Warning: spec.labels[a]: Invalid value: "string": failed rule: size(self) <= 5' in r.stderr
        assert 'Warning: spec.tags[0]: Invalid value: "string": tag too long' in r.stderr
        err = refused(rangers, obj("old", maxReplicas=5, labels={"a": "much-too-long", "b": "again-too-long"},
                                   tags=["much-too-long", "x", "another-long"]))
        assert 'spec.labels[b]: Invalid value: "string": failed rule: size(self) <= 5' in err
        assert 'spec.tags[2]: Invalid value: "string": tag too long' in err
        assert "* spec.labels[a]" not in err and "* spec.tags[0]" not in err
    finally:
        apply_doc(rangers, crd_doc(plural="rangers", kind="Ranger", short=(), categories=(), schema=SCHEMA))


def bad_crd(rule, plural="badrules", **extra):
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": {"type": "integer"}, "l": {"type": "array", "items": {
            "type": "object", "properties": {"x": {"type": "integer"}}}}},
        "x-kubernetes-validations": [dict(rule=rule, **extra)]}}}
    return crd_doc(plural=plural, kind="Badrule", short=(), categories=(), schema=schema)


@pytest.mark.parametrize("rule,extra,message", [
    ("self.a <=", {}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
     'Invalid value: apiextensions.ValidationRule{Rule:"self.a <=", Message:"", MessageExpression:"", '
     "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
     "compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting"),
    ("self.b == 1", {}, "compilation failed: ERROR: <input>:1:5: undefined field 'b'"),
    ("self.a == 'one'", {},
     "compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, string)'"),
    ("nosuch(self.a)", {}, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nosuch' (in container '')"),
    # 1.32 compiles new rules at its compatibility version (1.31): no two-variable comprehensions
    ("self.l.all(i, x, x.x > i)", {}, "undeclared reference to 'all' (in container '')"),
    ("self.l.transformList(i, x, x.x).size() > 0", {}, "undeclared reference to 'transformList' (in container '')"),
    ("self.a == 1", {"messageExpression": "'a is ' +"},
     "x-kubernetes-validations[0].messageExpression: Invalid value: apiextensions.ValidationRule{Rule:\"self.a == 1\", "
     "Message:\"\", MessageExpression:\"'a is ' +\", Reason:(*apiextensions.FieldValueErrorReason)(nil), "
     "FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: messageExpression compilation failed: ERROR: <input>:1:10:"),
    ("self.a == 1", {"messageExpression": "self.a + 1"}, "OptionalOldSelf:(*bool)(nil)}: must evaluate to a string"),
    ("self.a + 1", {}, "OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool"),
    ("self.a == 1", {"reason": "Bogus"}, 'x-kubernetes-validations[0].reason: Unsupported value: "Bogus": supported '
     'values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'),
    ("self.a == 1", {"optionalOldSelf": True}, "optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used"),
    ("self.l.all(i, i.x == 1)", {"message": "two\nlines"}, "message must not contain line breaks"),
    ("", {}, "x-kubernetes-validations[0].rule: Required value: rule is not specified"),
    ("self.a == 1", {"fieldPath": ".b"}, 'fieldPath: Invalid value: ".b": fieldPath must be a valid path: does not refer '
     "to a valid field"),
    ("self.a == 1", {"fieldPath": ".l[0]"},
     "fieldPath must be a valid path: expected single quoted string but got 0"),
    ("self.a == 1 ||\n self.a == 2", {}, "message: Required value: message must be specified if rule contains line breaks"),
])
def test_bad_rules_refuse_the_crd(api_cluster, rule, extra, message):
    r = api_cluster.kubectl("apply", "-f", "-", input=json.dumps(bad_crd(rule, **extra)), check=False)
    assert r.returncode != 0
    assert 'The CustomResourceDefinition "badrules.stable.skiff.test" is invalid' in r.stderr
    assert message in r.stderr


def test_rules_surely_past_the_cost_limit_refuse_the_crd(api_cluster):
    """An O(n²) rule over a list without maxItems is refused as upstream's
    cost estimate refuses it; with maxItems it is accepted."""
    def crd(max_items=None):
        tags = {"type": "array", "items": {"type": "string"}}
        if max_items:
            tags["maxItems"] = max_items
        schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"tags": tags},
                  "x-kubernetes-validations": [
                      {"rule": "self.tags.all(a, self.tags.exists_one(b, a == b))", "message": "unique"}]}}}
        return crd_doc(plural="costlies", kind="Costly", short=(), categories=(), schema=schema)
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(crd()))
    assert r.returncode != 0
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: "
            "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
            "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)") in r.stderr
    apply_doc(api_cluster, crd(max_items=100))
    wait_served(api_cluster, "costlies")
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": f"{GROUP}/v1", "kind": "Costly", "metadata": {"name": "c"}, "spec": {"tags": ["a", "a"]}}))
    assert 'spec: Invalid value: "object": unique' in r.stderr


def test_rules_under_all_of(api_cluster):
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer"}},
              "allOf": [{"x-kubernetes-validations": [{"rule": "self.n > 0", "message": "n must be positive"}]}]}}}
    bad = json.loads(json.dumps(schema))
    bad["properties"]["spec"]["allOf"][0]["x-kubernetes-validations"][0]["rule"] = "self.m > 0"
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        crd_doc(plural="alloffs", kind="Alloff", short=(), categories=(), schema=bad)))
    assert ("properties[spec].allOf[0].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule"
            in r.stderr and "undefined field 'm'" in r.stderr)
    apply_doc(api_cluster, crd_doc(plural="alloffs", kind="Alloff", short=(), categories=(), schema=schema))
    wait_served(api_cluster, "alloffs")
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        {"apiVersion": f"{GROUP}/v1", "kind": "Alloff", "metadata": {"name": "a"}, "spec": {"n": 0}}))
    assert 'spec: Invalid value: "object": n must be positive' in r.stderr


def test_defaults_and_enums_are_checked_against_the_rules(api_cluster):
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer", "default": 20, "x-kubernetes-validations": [{"rule": "self <= 10"}]},
        "mode": {"type": "string", "enum": ["a", "bb"], "x-kubernetes-validations": [
            {"rule": "size(self) == 1", "message": "one letter"}]},
        "name": {"type": "string", "default": "x", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        crd_doc(plural="defaulteds", kind="Defaulted", short=(), categories=(), schema=schema)))
    assert r.returncode != 0
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "
            '"integer": failed rule: self <= 10') in r.stderr
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[mode].enum[1]: Invalid value: "
            '"string": one letter') in r.stderr
    assert "properties[name]" not in r.stderr


def test_transition_rule_refused_where_old_values_cannot_correlate(api_cluster):
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"l": {
        "type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}}
    r = api_cluster.kubectl("apply", "-f", "-", check=False, input=json.dumps(
        crd_doc(plural="uncorrs", kind="Uncorr", short=(), categories=(), schema=schema)))
    assert r.returncode != 0
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[l].items.x-kubernetes-validations[0]"
            ".rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the "
            "schema within spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[l]") in r.stderr


def test_scale_subresource_runs_the_rules(api_cluster):
    schema = {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {
            "type": "integer", "x-kubernetes-validations": [{"rule": "self <= 10", "message": "at most 10"}]}}},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}
    apply_doc(api_cluster, crd_doc(plural="scalers", kind="Scaler", short=(), categories=(), scale=True,
                                   schema=schema))
    wait_served(api_cluster, "scalers")
    apply_doc(api_cluster, {"apiVersion": f"{GROUP}/v1", "kind": "Scaler", "metadata": {"name": "s"},
                            "spec": {"replicas": 1}})
    api_cluster.kubectl("scale", "scaler", "s", "--replicas=7")
    r = api_cluster.kubectl("scale", "scaler", "s", "--replicas=20", check=False)
    assert r.returncode != 0
    assert 'spec.replicas: Invalid value: "integer": at most 10' in r.stderr
    assert api_cluster.kjson("get", "scaler", "s")["spec"]["replicas"] == 7


def test_concurrent_writers_share_the_compiled_rules(rangers):
    """Rules run on the server's worker threads at once (the program cache,
    the per-thread regular expressions): every verdict still holds."""
    from concurrent.futures import ThreadPoolExecutor
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    api = client.CustomObjectsApi(rangers.api_client())

    def write(i):
        try:
            api.create_namespaced_custom_object(GROUP, "v1", "default", "rangers",
                                                obj(f"c{i}", minReplicas=i % 4, maxReplicas=2))
            return "ok"
        except ApiException as e:
            return json.loads(e.body)["details"]["causes"][0]["message"]

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(write, range(40)))
    assert got == ["ok" if i % 4 <= 2 else 'Invalid value: "object": minReplicas above maxReplicas' for i in range(40)]
    for i in range(40):
        if i % 4 <= 2:
            api.delete_namespaced_custom_object(GROUP, "v1", "default", "rangers", f"c{i}")
