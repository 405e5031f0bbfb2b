"""A CRD written the way controller-gen writes them (list-map keys, CEL
rules, int-or-string as anyOf, embedded pod templates, defaults, a printer
column over conditions), applied server-side, and objects of it."""
import json

from crd_util import GROUP, wait_served

POD_TEMPLATE = {
    "type": "object",
    "x-kubernetes-embedded-resource": False,
    "properties": {
        "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"trainjobs.{GROUP}", "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.4"}},
    "spec": {
        "group": GROUP,
        "names": {"kind": "TrainJob", "listKind": "TrainJobList", "plural": "trainjobs", "singular": "trainjob",
                  "shortNames": ["tj"], "categories": ["all", "ml"]},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1alpha1", "served": True, "storage": True,
            "additionalPrinterColumns": [
                {"name": "State", "type": "string", "jsonPath": ".status.conditions[-1:].type"},
                {"name": "Suspended", "type": "boolean", "jsonPath": ".spec.suspend"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {
                "description": "TrainJob is a training job.",
                "type": "object",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": {
                        "type": "object",
                        "required": ["runtimeRef"],
                        "x-kubernetes-validations": [
                            {"rule": "!has(self.suspend) || self.suspend == false || has(self.runtimeRef)",
                             "message": "needs a runtime"}],
                        "properties": {
                            "suspend": {"type": "boolean", "default": False},
                            "runtimeRef": {"type": "object", "required": ["name"], "properties": {
                                "name": {"type": "string", "minLength": 1},
                                "kind": {"type": "string", "default": "ClusterTrainingRuntime",
                                         "enum": ["TrainingRuntime", "ClusterTrainingRuntime"]}}},
                            "numNodes": {"type": "integer", "format": "int32", "minimum": 1},
                            "resourcesPerNode": {"type": "object", "properties": {
                                "limits": {"type": "object", "additionalProperties": {
                                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                                    "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
                                    "x-kubernetes-int-or-string": True}}}},
                            "env": {"type": "array", "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["name"],
                                    "items": {"type": "object", "required": ["name"], "properties": {
                                        "name": {"type": "string"}, "value": {"type": "string"}}}},
                            "podTemplateOverrides": {"type": "array", "items": POD_TEMPLATE},
                            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        },
                    },
                    "status": {"type": "object", "properties": {
                        "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                                       "x-kubernetes-list-map-keys": ["type"],
                                       "items": {"type": "object", "required": ["type", "status"],
                                                 "properties": {
                                                     "type": {"type": "string", "maxLength": 316},
                                                     "status": {"type": "string",
                                                                "enum": ["True", "False", "Unknown"]},
                                                     "lastTransitionTime": {"type": "string",
                                                                            "format": "date-time"}}}}}},
                },
            }},
        }],
    },
}


def test_realistic_crd_server_side(api_cluster):
    c = api_cluster
    c.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(CRD))
    c.kubectl("wait", "--for=condition=Established", f"crd/trainjobs.{GROUP}", "--timeout=10s")
    wait_served(c, "trainjobs", version="v1alpha1")
    crd = c.kjson("get", "crd", f"trainjobs.{GROUP}", "--show-managed-fields")
    assert "kubectl" in [m["manager"] for m in crd["metadata"]["managedFields"]]
    # re-applying the same CRD is a no-op apply
    c.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(CRD))
    job = {"apiVersion": f"{GROUP}/v1alpha1", "kind": "TrainJob", "metadata": {"name": "llm"},
           "spec": {"runtimeRef": {"name": "torch"}, "numNodes": 2,
                    "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8, "memory": "64Gi"}},
                    "env": [{"name": "A", "value": "1"}],
                    "podTemplateOverrides": [{"metadata": {"labels": {"x": "y"}}, "spec": {"nodeSelector": {}}}]}}
    c.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(job))
    got = c.kjson("get", "tj", "llm")
    assert got["spec"]["suspend"] is False
    assert got["spec"]["runtimeRef"] == {"name": "torch", "kind": "ClusterTrainingRuntime"}
    assert got["spec"]["resourcesPerNode"]["limits"] == {"nvidia.com/gpu": 8, "memory": "64Gi"}
    out = c.kubectl("get", "trainjobs").stdout.splitlines()
    assert out[0].split() == ["NAME", "STATE", "SUSPENDED", "AGE"]
    assert out[1].split()[:2] == ["llm", "false"]
    bad = dict(job, metadata={"name": "bad"}, spec=dict(job["spec"], numNodes=0,
                                                       resourcesPerNode={"limits": {"cpu": "lots"}}))
    r = c.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(bad), check=False)
    assert r.returncode != 0
    assert "spec.numNodes: Invalid value: 0: spec.numNodes in body should be greater than or equal to 1" in r.stderr
    assert 'spec.resourcesPerNode.limits.cpu: Invalid value: "lots"' in r.stderr
    assert f"trainjobs.{GROUP}" in c.kubectl("api-resources", "-o", "name").stdout.split()
    assert "llm" in c.kubectl("get", "ml").stdout.split()
    from kubernetes import client
    api = client.CustomObjectsApi(c.api_client())
    api.patch_namespaced_custom_object_status(GROUP, "v1alpha1", "default", "trainjobs", "llm", {"status": {
        "conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]}})
    out = c.kubectl("get", "trainjobs", "llm").stdout.splitlines()
    assert out[1].split()[:3] == ["llm", "Running", "false"]
