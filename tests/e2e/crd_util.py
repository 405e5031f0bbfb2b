"""Helpers of the CRD end-to-end tests: a small CRD of our own and waits."""
import json
import time
from conftest import SLOW  # noqa: E402

GROUP = "stable.skiff.test"


def crd_doc(plural="gadgets", kind="Gadget", scope="Namespaced", short=("gd",), categories=("all",),
            status=True, scale=False, columns=None, schema=None, versions=None, group=GROUP):
    spec_schema = schema or {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer"},
                "replicas": {"type": "integer"},
                "colour": {"type": "string"}}},
            "status": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "phase": {"type": "string"}}},
        },
    }
    sub = {}
    if status:
        sub["status"] = {}
    if scale:
        sub["scale"] = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": spec_schema}}
    if sub:
        version["subresources"] = sub
    if columns:
        version["additionalPrinterColumns"] = columns
    names = {"plural": plural, "singular": kind.lower(), "kind": kind}
    if short:
        names["shortNames"] = list(short)
    if categories:
        names["categories"] = list(categories)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {"group": group, "scope": scope, "names": names, "versions": versions or [version]},
    }


def apply_doc(c, doc, *extra):
    return c.kubectl("apply", *extra, "-f", "-", input=json.dumps(doc))


def wait_served(c, plural, group=GROUP, version="v1", timeout=5):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        r = c.kubectl("get", "--raw", f"/apis/{group}/{version}", check=False)
        if r.returncode == 0 and any(x["name"] == plural for x in json.loads(r.stdout)["resources"]):
            return
        time.sleep(0.05)
    raise AssertionError(f"{plural}.{group} not served")
