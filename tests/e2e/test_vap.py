"""ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): the policy
and binding kinds (defaults, validation messages, table columns, the status
subresource with the type check), and the admission plugin evaluating their
CEL (object, oldObject, request, params, namespaceObject, variables,
authorizer; matchConditions, messageExpression, reason, failurePolicy,
validationActions Deny/Warn/Audit, paramRef by name and selector), through
kubectl and the Python client, as upstream's conformance tests use them.
Hollow: no agents."""
import json
import time

import pytest
from kubernetes import client, dynamic
from kubernetes.client.rest import ApiException

GROUP = "admissionregistration.k8s.io/v1"


def policy(name, validations, rules=None, **spec):
    s = {"matchConstraints": {"resourceRules": rules or [
        {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
         "resources": ["deployments"]}]}, "validations": validations}
    s.update(spec)
    return {"apiVersion": GROUP, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": s}


def binding(name, policy_name, actions=("Deny",), **spec):
    s = {"policyName": policy_name, "validationActions": list(actions)}
    s.update(spec)
    return {"apiVersion": GROUP, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": s}


def apply(c, *objs):
    c.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objs)}))


def deployment(name, replicas, labels=None):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": labels or {"app": "nginx"}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "nginx"}},
                     "template": {"metadata": {"labels": {"app": "nginx"}},
                                  "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}}}


def create(c, ns, obj, check=False):
    return c.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(obj), check=check)


@pytest.fixture
def ns(api_cluster):
    """A namespace labelled for this test's bindings, and the policies and
    bindings gone afterwards."""
    c = api_cluster
    name = f"vap-{int(time.time() * 1000) % 10**8}"
    c.kubectl("create", "namespace", name)
    c.kubectl("label", "namespace", name, f"{name}=true")
    yield name
    c.kubectl("delete", "validatingadmissionpolicybindings", "--all")
    c.kubectl("delete", "validatingadmissionpolicies", "--all")
    c.kubectl("delete", "namespace", name, "--wait=false")


def test_policy_denies_and_allows_as_upstream(api_cluster, ns):
    c = api_cluster
    apply(c, policy(f"{ns}.policy.example.com", [
        {"expression": "object.spec.replicas > 1",
         "messageExpression": "'wants replicas > 1, got ' + string(object.spec.replicas)"},
        {"expression": f"namespaceObject.metadata.name == '{ns}'",
         "message": "Internal error! Other namespace should not be allowed."}],
        matchConstraints={"namespaceSelector": {"matchLabels": {ns: "true"}}, "resourceRules": [
            {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
             "resources": ["deployments"]}]}),
        binding(f"{ns}.binding.example.com", f"{ns}.policy.example.com",
                matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    p = c.kjson("get", "validatingadmissionpolicy", f"{ns}.policy.example.com")
    # upstream's defaults
    assert p["spec"]["failurePolicy"] == "Fail"
    mc = p["spec"]["matchConstraints"]
    assert mc["matchPolicy"] == "Equivalent" and mc["objectSelector"] == {}
    assert mc["resourceRules"][0]["scope"] == "*"
    b = c.kjson("get", "validatingadmissionpolicybinding", f"{ns}.binding.example.com")
    assert b["spec"]["matchResources"]["matchPolicy"] == "Equivalent"

    r = create(c, ns, deployment("marker", 1))
    assert r.returncode == 1
    # kubectl prints an Invalid reply's causes (upstream's text, field-less cause and all)
    assert r.stderr == (f'The deployments "marker" is invalid: : ValidatingAdmissionPolicy \'{ns}.policy.example.com\' '
                        f"with binding '{ns}.binding.example.com' denied request: wants replicas > 1, got 1\n")
    create(c, ns, deployment("replicated", 2), check=True)
    # a ReplicaSet is not matched, nor a Deployment elsewhere
    rs = deployment("non-replicated", 1)
    rs["kind"] = "ReplicaSet"
    create(c, ns, rs, check=True)
    create(c, "default", deployment(f"{ns}-elsewhere", 1), check=True)
    c.kubectl("-n", "default", "delete", "deployment", f"{ns}-elsewhere")
    # an update is matched too; the scale subresource is not (the rule names deployments alone)
    r = c.kubectl("-n", ns, "patch", "deployment", "replicated", "-p", '{"spec":{"replicas":1}}', check=False)
    assert r.returncode == 1 and "wants replicas > 1, got 1" in r.stderr
    c.kubectl("-n", ns, "scale", "deployment", "replicated", "--replicas=1")

    # the Python client: 422 Invalid with the message as the cause, as upstream
    apps = client.AppsV1Api(c.api_client())
    with pytest.raises(ApiException) as e:
        apps.create_namespaced_deployment(ns, deployment("marker", 1))
    assert e.value.status == 422
    st = json.loads(e.value.body)
    assert st["reason"] == "Invalid" and st["details"]["name"] == "marker"
    assert st["details"]["group"] == "apps" and st["details"]["kind"] == "deployments"
    assert st["details"]["causes"] == [{"message": st["message"].split(" is forbidden: ", 1)[1]}]


def test_variables_params_warn_audit_and_failure_policy(api_cluster, ns):
    c = api_cluster
    # variables, as upstream's conformance test
    apply(c, policy("vars.example.com", [{"expression": "variables.replicas > 1"},
                                         {"expression": "variables.oddReplicas"}],
                    variables=[{"name": "replicas", "expression": "object.spec.replicas"},
                               {"name": "oddReplicas", "expression": "variables.replicas % 2 == 1"}]),
          binding("vars-binding", "vars.example.com",
                  matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    r = create(c, ns, deployment("two", 2))
    assert "denied request: failed expression: variables.oddReplicas" in r.stderr
    create(c, ns, deployment("three", 3), check=True)
    c.kubectl("delete", "validatingadmissionpolicybinding", "vars-binding")

    # params from a ConfigMap by name (its namespace), a reason, Warn
    c.kubectl("-n", ns, "create", "configmap", "limits", "--from-literal=max=4")
    apply(c, policy("max.example.com", [
        {"expression": "object.spec.replicas <= int(params.data.max)", "reason": "Forbidden",
         "messageExpression": "'at most ' + params.data.max + ' replicas'"}],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"}),
        binding("max-deny", "max.example.com",
                paramRef={"name": "limits", "namespace": ns, "parameterNotFoundAction": "Deny"},
                matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    r = create(c, ns, deployment("five", 5))
    assert "with binding 'max-deny' denied request: at most 4 replicas" in r.stderr
    apps = client.AppsV1Api(c.api_client())
    with pytest.raises(ApiException) as e:
        apps.create_namespaced_deployment(ns, deployment("five", 5))
    assert e.value.status == 403 and json.loads(e.value.body)["reason"] == "Forbidden"
    create(c, ns, deployment("four", 4), check=True)
    # the param gone: parameterNotFoundAction Deny refuses
    c.kubectl("-n", ns, "delete", "configmap", "limits")
    r = create(c, ns, deployment("one", 1))
    assert ("with binding 'max-deny' denied request: failed to configure binding: no params found for policy "
            "binding with `Deny` parameterNotFoundAction") in r.stderr
    # params by selector, Warn and Audit instead of Deny: the write goes through with a warning
    c.kubectl("delete", "validatingadmissionpolicybinding", "max-deny")
    c.kubectl("-n", ns, "create", "configmap", "small", "--from-literal=max=1")
    c.kubectl("-n", ns, "label", "configmap", "small", "limit=yes")
    apply(c, binding("max-warn", "max.example.com", actions=("Warn", "Audit"),
                     paramRef={"selector": {"matchLabels": {"limit": "yes"}}, "parameterNotFoundAction": "Allow"},
                     matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    r = create(c, ns, deployment("six", 6), check=True)
    assert ("Warning: Validation failed for ValidatingAdmissionPolicy 'max.example.com' with binding "
            "'max-warn': at most 1 replicas") in r.stderr
    b = c.kjson("get", "validatingadmissionpolicybinding", "max-warn")
    assert b["spec"]["paramRef"]["selector"] == {"matchLabels": {"limit": "yes"}}
    out = c.kubectl("get", "validatingadmissionpolicybinding", "max-warn").stdout
    assert "&LabelSelector{MatchLabels:map[string]string{limit: yes,}" in out
    c.kubectl("delete", "validatingadmissionpolicybinding", "max-warn")

    # an expression that fails at run time: failurePolicy Fail refuses, Ignore lets it through
    apply(c, policy("err.example.com", [{"expression": "object.spec.nothing == 1"}]),
          binding("err-binding", "err.example.com",
                  matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    r = create(c, ns, deployment("seven", 7))
    assert ("denied request: expression 'object.spec.nothing == 1' resulted in error: no such key: nothing"
            in r.stderr)
    c.kubectl("patch", "validatingadmissionpolicy", "err.example.com", "--type=merge",
              "-p", '{"spec":{"failurePolicy":"Ignore"}}')
    create(c, ns, deployment("seven", 7), check=True)

    # matchConditions: a false one skips the policy
    apply(c, policy("cond.example.com", [{"expression": "false", "message": "no labelled ones"}],
                    matchConditions=[{"name": "labelled", "expression": "'deny' in object.metadata.labels"}]),
          binding("cond-binding", "cond.example.com",
                  matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    create(c, ns, deployment("plain", 3), check=True)
    r = create(c, ns, deployment("labelled", 3, labels={"app": "nginx", "deny": "1"}))
    assert "denied request: no labelled ones" in r.stderr


def test_type_checking_in_status(api_cluster, ns):
    c = api_cluster
    apply(c, policy("correct.example.com", [{"expression": "object.spec.replicas > 1"}]),
          policy("confused.example.com", [{"expression": "object.spec.replicas > '1'",
                                           "messageExpression": "'wants replicas > 1, got ' + object.spec.replicas"}]))
    ok = c.kjson("get", "validatingadmissionpolicy", "correct.example.com")["status"]
    assert ok["typeChecking"] == {} and ok["observedGeneration"] == 1
    w = c.kjson("get", "validatingadmissionpolicy", "confused.example.com")["status"]["typeChecking"][
        "expressionWarnings"]
    assert [x["fieldRef"] for x in w] == ["spec.validations[0].expression", "spec.validations[0].messageExpression"]
    assert w[0]["warning"].startswith("apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload "
                                      "for '_>_' applied to '(int, string)'")
    assert "found no matching overload for '_+_' applied to '(string, int)'" in w[1]["warning"]
    # variables take their expressions' types
    apply(c, policy("typed-vars.example.com", [{"expression": "variables.replicas > '1'"},
                                               {"expression": "variables.odd == 'yes'"},
                                               {"expression": "variables.replicas > 1 && variables.odd"}],
                    variables=[{"name": "replicas", "expression": "object.spec.replicas"},
                               {"name": "odd", "expression": "variables.replicas % 2 == 1"}]))
    w = c.kjson("get", "validatingadmissionpolicy", "typed-vars.example.com")["status"]["typeChecking"][
        "expressionWarnings"]
    assert [x["fieldRef"] for x in w] == ["spec.validations[0].expression", "spec.validations[1].expression"]
    assert "found no matching overload for '_>_' applied to '(int, string)'" in w[0]["warning"]
    assert "found no matching overload for '_==_' applied to '(bool, string)'" in w[1]["warning"]
    # a custom kind is checked against its CRD's schema
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "crontabs.stable.vap.example.com"},
           "spec": {"group": "stable.vap.example.com", "scope": "Namespaced",
                    "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"spec": {"type": "object", "properties": {
                            "cronSpec": {"type": "string"}, "image": {"type": "string"},
                            "replicas": {"type": "integer"}}}}}}}]}}
    apply(c, crd)
    c.kubectl("wait", "--for=condition=Established", "crd/crontabs.stable.vap.example.com")
    rules = [{"apiGroups": ["stable.vap.example.com"], "apiVersions": ["v1"], "operations": ["CREATE"],
              "resources": ["crontabs"]}]
    apply(c, policy("crd-confused.example.com", [{"expression": "object.spec.replicas > '1'"},
                                                 {"expression": "object.spec.maxRetries < 10"}], rules=rules))
    w = c.kjson("get", "validatingadmissionpolicy", "crd-confused.example.com")["status"]["typeChecking"][
        "expressionWarnings"]
    assert [x["fieldRef"] for x in w] == ["spec.validations[0].expression", "spec.validations[1].expression"]
    assert w[0]["warning"].startswith("stable.vap.example.com/v1, Kind=CronTab: ")
    assert "undefined field 'maxRetries'" in w[1]["warning"]
    # a change of spec checks again, with the new generation
    c.kubectl("patch", "validatingadmissionpolicy", "crd-confused.example.com", "--type=json", "-p",
              json.dumps([{"op": "replace", "path": "/spec/validations", "value": [
                  {"expression": "object.spec.replicas > 1"}]}]))
    st = c.kjson("get", "validatingadmissionpolicy", "crd-confused.example.com")["status"]
    assert st == {"observedGeneration": 2, "typeChecking": {}}
    c.kubectl("delete", "crd", "crontabs.stable.vap.example.com")


def test_api_operations_and_validation(api_cluster, ns):
    c = api_cluster
    res = c.kubectl("api-resources", "--api-group=admissionregistration.k8s.io", "-o", "wide").stdout
    assert "validatingadmissionpolicies " in res and "validatingadmissionpolicybindings " in res
    disc = json.loads(c.kubectl("get", "--raw", "/apis/admissionregistration.k8s.io/v1").stdout)
    names = {r["name"] for r in disc["resources"]}
    assert {"validatingadmissionpolicies", "validatingadmissionpolicies/status",
            "validatingadmissionpolicybindings"} <= names

    # the API operations of upstream's conformance test, through the dynamic client
    dyn = dynamic.DynamicClient(c.api_client())
    vaps = dyn.resources.get(api_version=GROUP, kind="ValidatingAdmissionPolicy")
    tmpl = policy("x", [{"expression": "object.spec.replicas <= 100"}],
                  rules=[{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                          "resources": ["deployments"]}])
    del tmpl["metadata"]["name"]
    tmpl["metadata"].update(generateName="e2e-example-vap-", labels={"e2e-vap": ns})
    made = [vaps.create(body=tmpl) for _ in range(3)]
    name = made[2].metadata.name
    patched = vaps.patch(name=name, body={"metadata": {"annotations": {"patched": "true"}},
                                          "spec": {"failurePolicy": "Ignore"}},
                         content_type="application/merge-patch+json")
    assert patched.spec.failurePolicy == "Ignore" and patched.metadata.generation == 2
    st = vaps.status.patch(name=name, content_type="application/merge-patch+json", body={"status": {"conditions": [
        {"type": "PatchStatusFailed", "status": "False", "reason": "e2e", "message": "Set from an e2e test",
         "lastTransitionTime": "2024-01-01T00:00:00Z"}]}})
    assert [x.type for x in st.status.conditions] == ["PatchStatusFailed"]
    assert st.spec.failurePolicy == "Ignore"
    vaps.delete(name=name)
    assert len(vaps.get(label_selector=f"e2e-vap={ns}").items) == 2
    vaps.delete(label_selector=f"e2e-vap={ns}")
    assert vaps.get(label_selector=f"e2e-vap={ns}").items == []

    # upstream's validation messages
    bad = policy("bad.example.com", [{"expression": "object.spec.replicas >"}, {"expression": "1"}],
                 failurePolicy="Sometimes", variables=[{"name": "1x", "expression": "1"}])
    r = c.kubectl("create", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode == 1
    assert "spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"" in r.stderr
    assert "spec.validations[0].expression: Invalid value: \"object.spec.replicas >\": compilation failed: " \
           "ERROR: <input>:1:23: Syntax error" in r.stderr
    assert "spec.validations[1].expression: Invalid value: \"1\": must evaluate to bool" in r.stderr
    assert "spec.variables[0].name: Invalid value: \"1x\": name is not a valid CEL identifier" in r.stderr
    r = c.kubectl("create", "-f", "-", input=json.dumps(policy("none.example.com", [])), check=False)
    assert "spec.validations: Required value: validations or auditAnnotations must contain at least one item" \
        in r.stderr
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(
        binding("b.example.com", "p.example.com", actions=("Deny", "Warn"), paramRef={"name": "x"})))
    assert r.returncode == 1
    assert "spec.validationActions: Invalid value: []string{\"Deny\", \"Warn\"}: must not contain both Deny and " \
           "Warn" in r.stderr or "must not contain both Deny and Warn" in r.stderr
    assert "spec.paramRef.parameterNotFoundAction: Required value" in r.stderr
    r = c.kubectl("create", "-f", "-", check=False, input=json.dumps(
        binding("b.example.com", "p.example.com", actions=())))
    assert "spec.validationActions: Required value: at least one validation action is required" in r.stderr

    # a binding naming no policy does nothing; the policies themselves are not matched
    apply(c, binding("orphan", "missing.example.com",
                     matchResources={"namespaceSelector": {"matchLabels": {ns: "true"}}}))
    create(c, ns, deployment("fine", 1), check=True)
    out = c.kubectl("get", "validatingadmissionpolicybinding", "orphan").stdout.splitlines()
    assert out[0].split() == ["NAME", "POLICYNAME", "PARAMREF", "AGE"]
    assert out[1].split()[:3] == ["orphan", "missing.example.com", "<unset>"]
