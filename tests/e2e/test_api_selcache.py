"""Lists by label and field selector answered from the selectable-fields
cache (src/api/selcache.c): the same answers as decoding every object, and
every write (labels, status, binding, deletion) seen by the next list."""
import json

from kubernetes import client

NS = "selcache"


def names(c, *sel):
    out = c.kubectl("-n", NS, "get", "pods", "-o", "name", *sel).stdout.split()
    return sorted(n.split("/", 1)[1] for n in out)


def pod(name, node, app):
    spec = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": app}}, "spec": spec}


def test_selected_lists_follow_writes(api_cluster):
    c = api_cluster
    c.kubectl("create", "namespace", NS)
    items = [pod("a", "n1", "web"), pod("b", "n2", "web"), pod("c", None, "db")]
    c.kubectl("-n", NS, "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    # twice each: the first list fills the cache, the second answers from it
    for _ in range(2):
        assert names(c, "--field-selector", "status.phase=Pending") == ["a", "b", "c"]
        assert names(c, "--field-selector", "spec.nodeName=n1") == ["a"]
        assert names(c, "--field-selector", "spec.nodeName=") == ["c"]
        assert names(c, "-l", "app=web") == ["a", "b"]
        assert names(c, "-l", "app=web", "--field-selector", "spec.nodeName!=n1") == ["b"]
        assert names(c, "--field-selector", "spec.hostNetwork=false,spec.restartPolicy=Always") == ["a", "b", "c"]
    # in pages of one, each page read at the first page's revision
    assert names(c, "--chunk-size=1", "--field-selector", "status.phase=Pending") == ["a", "b", "c"]

    c.kubectl("-n", NS, "label", "pod", "c", "app=web", "--overwrite")
    assert names(c, "-l", "app=web") == ["a", "b", "c"]
    assert names(c, "-l", "app=db") == []
    c.kubectl("-n", NS, "patch", "pod", "a", "--subresource=status", "--type=merge",
              "-p", '{"status":{"phase":"Running","podIP":"10.42.0.9","podIPs":[{"ip":"10.42.0.9"}]}}')
    assert names(c, "--field-selector", "status.phase=Pending") == ["b", "c"]
    assert names(c, "--field-selector", "status.phase=Running,spec.nodeName=n1") == ["a"]
    assert names(c, "--field-selector", "status.podIP=10.42.0.9") == ["a"]
    # a binding of the unscheduled pod
    c.kubectl("create", "--raw", f"/api/v1/namespaces/{NS}/pods/c/binding", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "c"}, "target": {"kind": "Node", "name": "n2"}}))
    assert names(c, "--field-selector", "spec.nodeName=n2") == ["b", "c"]
    assert names(c, "--field-selector", "spec.nodeName=") == []

    # the Python client, as an agent lists its node's pods
    v1 = client.CoreV1Api(c.api_client())
    got = v1.list_namespaced_pod(NS, field_selector="spec.nodeName=n2", label_selector="app=web")
    assert sorted(p.metadata.name for p in got.items) == ["b", "c"]
    c.kubectl("-n", NS, "delete", "pod", "b", "--grace-period=0", "--force")
    assert names(c, "--field-selector", "spec.nodeName=n2") == ["c"]

    # bad selectors are still refused as upstream
    r = c.kubectl("-n", NS, "get", "pods", "--field-selector", "spec.foo=x", check=False)
    assert r.returncode != 0 and "field label not supported: spec.foo" in r.stderr
