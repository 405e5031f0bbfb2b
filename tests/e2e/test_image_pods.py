"""Pods run images the agent pulls from a loopback docker-registry (Debian's
distribution, tests/images/registry.py), driven with kubectl: by tag and by
digest, a private image behind TLS + htpasswd with an imagePullSecret, pull
errors (missing image, unknown and mismatched digests), an imported archive
with imagePullPolicy Never, base layers stored once, and malicious layers
refused with nothing written outside the store. Checks the imageID, node
status.images and the Pulling/Pulled events."""
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.request

import pytest

from conftest import ROOT, SKIFF
from test_agent_cluster import agent_cluster, images_dir, wait_for  # noqa: F401  (fixture)

sys.path.insert(0, os.path.join(ROOT, "tests", "images"))
from registry import Registry  # noqa: E402

pytestmark = pytest.mark.agents

PULLED = re.compile(r'Successfully pulled image "([^"]+)" in [0-9.]+m?s \([0-9.]+m?s including waiting\)\. '
                    r'Image size: ([0-9]+) bytes\.')


@pytest.fixture(scope="module")
def registry(agent_cluster):  # noqa: F811
    d = images_dir()
    with Registry() as reg:
        reg.push(f"oci:{d}/oci:1", "busybox:1")
        reg.push(f"oci:{d}/oci:2", "busybox:2")
        yield reg


def pod_yaml(name, image, command, extra_ctr="", extra_spec=""):
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
{extra_spec}
  containers:
  - name: c
    image: "{image}"
    command: {json.dumps(command)}
{extra_ctr}
"""


def cstatus(pod):
    return pod["status"]["containerStatuses"][0]


def waiting(pod):
    return cstatus(pod)["state"].get("waiting") or {}


def pull_failed(c, name, *needles):
    """Waits for ErrImagePull/ImagePullBackOff whose message has every needle."""
    def ok(p):
        w = waiting(p)
        return w.get("reason") in ("ErrImagePull", "ImagePullBackOff") and all(n in w.get("message", "")
                                                                                for n in needles)
    return c.wait_pod(name, ok, 60, what=f"pull error with {needles}")


def events(c, name):
    return c.kjson("get", "events", "--field-selector", f"involvedObject.name={name}")["items"]


def manifest_of(reg, name):
    r = subprocess.run(["skopeo", "inspect", "--raw", "--tls-verify=false"]
                       + (["--creds", ":".join(reg.auth)] if reg.auth else [])
                       + [f"docker://{reg.host}/{name}"], check=True, capture_output=True)
    man = json.loads(r.stdout)
    man["bytes"] = len(r.stdout)
    return "sha256:" + hashlib.sha256(r.stdout).hexdigest(), man


def store(c, *parts):
    return os.path.join(c.agent_dir, "images", *parts)


def upload(reg, name, data):
    """Pushes one blob with the registry HTTP API (no auth); returns its digest."""
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    req = urllib.request.Request(f"http://{reg.host}/v2/{name}/blobs/uploads/", method="POST", data=b"")
    loc = urllib.request.urlopen(req).headers["Location"]
    loc = loc if loc.startswith("http") else f"http://{reg.host}{loc}"
    req = urllib.request.Request(f"{loc}{'&' if '?' in loc else '?'}digest={digest}", method="PUT", data=data,
                                 headers={"Content-Type": "application/octet-stream"})
    urllib.request.urlopen(req).close()
    return digest


def push_with_layer(reg, name, layer_tar):
    """Pushes busybox:1 plus one more layer (an uncompressed tar, gzipped here)
    with a config whose diff_ids are right, byte for byte as given: skopeo
    would not carry a malicious layer unchanged. Returns the manifest digest."""
    d = images_dir()
    blobs = os.path.join(d, "oci", "blobs", "sha256")
    idx = json.load(open(os.path.join(d, "oci", "index.json")))
    desc = [m for m in idx["manifests"] if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == "1"][0]
    man = json.load(open(os.path.join(blobs, desc["digest"].split(":")[1])))
    config = json.load(open(os.path.join(blobs, man["config"]["digest"].split(":")[1])))
    repo = name.split(":")[0]
    for layer in man["layers"]:
        upload(reg, repo, open(os.path.join(blobs, layer["digest"].split(":")[1]), "rb").read())
    gz = gzip.compress(layer_tar, mtime=0)
    man["layers"].append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                          "digest": upload(reg, repo, gz), "size": len(gz)})
    config["rootfs"]["diff_ids"].append("sha256:" + hashlib.sha256(layer_tar).hexdigest())
    cfg = json.dumps(config).encode()
    man["config"] = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": upload(reg, repo, cfg),
                     "size": len(cfg)}
    body = json.dumps(man).encode()
    req = urllib.request.Request(f"http://{reg.host}/v2/{repo}/manifests/{name.split(':')[1]}", method="PUT",
                                 data=body, headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"})
    urllib.request.urlopen(req).close()
    return "sha256:" + hashlib.sha256(body).hexdigest()


def test_pod_runs_image_pulled_by_tag(agent_cluster, registry):  # noqa: F811
    c = agent_cluster
    ref = f"{registry.host}/busybox:1"
    digest, man = manifest_of(registry, "busybox:1")
    c.apply(pod_yaml("bytag", ref, ["sh", "-c", "echo pulled-by-tag"]))
    p = c.wait_phase("bytag", "Succeeded", 120)
    assert c.kubectl("logs", "bytag").stdout.strip() == "pulled-by-tag"
    cs = cstatus(p)
    assert cs["image"] == ref
    assert cs["imageID"] == f"{registry.host}/busybox@{digest}"     # the digest the tag resolved to
    ev = events(c, "bytag")
    assert f'Pulling image "{ref}"' in [e["message"] for e in ev if e["reason"] == "Pulling"]
    pulled = [PULLED.fullmatch(e["message"]) for e in ev if e["reason"] == "Pulled"]
    assert pulled and pulled[0] and pulled[0].group(1) == ref, [e["message"] for e in ev]
    size = int(pulled[0].group(2))
    assert size == man["bytes"] + man["config"]["size"] + sum(layer["size"] for layer in man["layers"])

    def listed():
        imgs = c.kjson("get", "node", c.node)["status"].get("images", [])
        return [im for im in imgs if ref in im["names"]]
    im = wait_for(listed, 40, what="node status.images to list " + ref)[0]
    assert f"{registry.host}/busybox@{digest}" in im["names"] and im["sizeBytes"] == size
    c.kubectl("delete", "pod", "bytag", "--wait=false")


def test_pod_runs_image_pulled_by_digest_sharing_base_layer(agent_cluster, registry):  # noqa: F811
    c = agent_cluster
    digest, man = manifest_of(registry, "busybox:2")
    ref = f"{registry.host}/busybox@{digest}"
    c.apply(pod_yaml("bydigest", ref, ["sh", "-c", "id -u; cat /etc/app.txt"]))
    p = c.wait_phase("bydigest", "Succeeded", 120)
    assert c.kubectl("logs", "bydigest").stdout.split("\n")[:2] == ["1000", "hello from layer 2"]  # its USER
    assert cstatus(p)["imageID"] == ref
    msgs = [e["message"] for e in events(c, "bydigest") if e["reason"] == "Pulled"]
    assert any(PULLED.fullmatch(m) for m in msgs), msgs
    # busybox:1 and :2 share their base layer: one snapshot for it, also for the
    # copies the fixture imported (the same layers under other names)
    _, man1 = manifest_of(registry, "busybox:1")
    assert man1["layers"][0] == man["layers"][0] and len(man["layers"]) == 2
    assert len(os.listdir(store(c, "snapshots"))) == 2
    c.kubectl("delete", "pod", "bydigest", "--wait=false")


def test_private_image_needs_pull_secret(agent_cluster):  # noqa: F811
    c = agent_cluster
    with Registry(tls=True, auth=("alice", "s3cret")) as reg:
        reg.push(f"oci:{images_dir()}/oci:2", "private/app:2")
        ref = f"{reg.host}/private/app:2"
        c.apply(pod_yaml("nosecret", ref, ["true"]))
        p = pull_failed(c, "nosecret", "unauthorized: authentication required")
        assert ref in waiting(p)["message"]
        failed = [e["message"] for e in events(c, "nosecret") if e["reason"] == "Failed"]
        assert any(f'Failed to pull image "{ref}"' in m and "unauthorized" in m for m in failed), failed
        c.wait_pod("nosecret", lambda p: waiting(p).get("reason") == "ImagePullBackOff", 60, what="ImagePullBackOff")
        c.kubectl("create", "secret", "docker-registry", "regcred", f"--docker-server={reg.host}",
                  "--docker-username=alice", "--docker-password=s3cret")
        c.kubectl("create", "secret", "docker-registry", "badcred", f"--docker-server={reg.host}",
                  "--docker-username=alice", "--docker-password=wrong")
        c.apply(pod_yaml("badsecret", ref, ["true"], extra_spec="  imagePullSecrets: [{name: badcred}]"))
        pull_failed(c, "badsecret", "unauthorized")
        c.apply(pod_yaml("withsecret", ref, [], extra_spec="  imagePullSecrets: [{name: regcred}]"))
        p = c.wait_phase("withsecret", "Succeeded", 120)
        assert c.kubectl("logs", "withsecret").stdout == "hello from layer 2\n"   # the image's user 1000 and cmd
        assert cstatus(p)["imageID"] == f"{reg.host}/private/app@{manifest_of(reg, 'private/app:2')[0]}"
        c.kubectl("delete", "pod", "nosecret", "badsecret", "withsecret", "--wait=false")
        c.kubectl("delete", "secret", "regcred", "badcred")


def test_missing_image_and_wrong_digest(agent_cluster, registry):  # noqa: F811
    c = agent_cluster
    c.apply(pod_yaml("notag", f"{registry.host}/busybox:nope", ["true"]))
    c.apply(pod_yaml("norepo", f"{registry.host}/nothere:1", ["true"]))
    c.apply(pod_yaml("nodigest", f"{registry.host}/busybox@sha256:" + "ab" * 32, ["true"]))
    p = pull_failed(c, "notag", f'image "{registry.host}/busybox:nope": manifest unknown')
    pull_failed(c, "norepo", "unknown")
    pull_failed(c, "nodigest", "manifest unknown")
    c.wait_pod("notag", lambda p: waiting(p).get("reason") == "ImagePullBackOff", 60, what="ImagePullBackOff")
    out = c.kubectl("get", "pods", "notag", "norepo", "nodigest").stdout
    assert "ErrImagePull" in out or "ImagePullBackOff" in out
    c.kubectl("delete", "pod", "notag", "norepo", "nodigest", "--wait=false")


def test_tampered_layer_is_a_digest_mismatch(agent_cluster):  # noqa: F811
    c = agent_cluster
    with Registry() as reg:   # its own: the bytes of a blob are changed under the registry
        layer = open(os.path.join(images_dir(), "layers", "lower.tar"), "rb").read()
        push_with_layer(reg, "tampered:1", layer)
        _, man = manifest_of(reg, "tampered:1")
        digest = man["layers"][-1]["digest"]
        with open(reg.blob_path(digest), "r+b") as f:
            f.seek(20)
            b = f.read(1)
            f.seek(20)
            f.write(bytes([b[0] ^ 0xff]))
        c.apply(pod_yaml("tampered", f"{reg.host}/tampered:1", ["true"]))
        pull_failed(c, "tampered", "digest mismatch", digest)
        c.kubectl("delete", "pod", "tampered", "--wait=false")
    assert not os.path.exists(store(c, "blobs", "sha256", digest.split(":")[1]))


def test_imported_archive_runs_with_pull_policy_never(agent_cluster):  # noqa: F811
    c = agent_cluster
    r = subprocess.run([SKIFF, "image", "import", "--data-dir", c.agent_dir, "--name", "local/imported",
                        os.path.join(images_dir(), "app-oci.tar")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr   # while the agent runs, into its store
    c.apply(pod_yaml("imported", "local/imported:2", [], extra_ctr="    imagePullPolicy: Never"))
    p = c.wait_phase("imported", "Succeeded", 60)
    assert c.kubectl("logs", "imported").stdout == "hello from layer 2\n"
    assert cstatus(p)["imageID"].startswith("docker.io/local/imported@sha256:")
    msgs = [e["message"] for e in events(c, "imported") if e["reason"] == "Pulled"]
    assert 'Container image "local/imported:2" already present on machine' in msgs
    assert not [e for e in events(c, "imported") if e["reason"] == "Pulling"]
    c.kubectl("delete", "pod", "imported", "--wait=false")


@pytest.mark.parametrize("attack", ["dotdot", "abs-symlink", "rel-symlink", "hardlink"])
def test_malicious_layer_refused(agent_cluster, registry, attack):  # noqa: F811
    c = agent_cluster
    layer = open(os.path.join(images_dir(), "layers", f"evil-{attack}.tar"), "rb").read()
    push_with_layer(registry, f"evil-{attack}:1", layer)
    passwd = os.stat("/etc/passwd")
    before = set(os.listdir(store(c, "snapshots")))
    name = f"evil-{attack}"
    c.apply(pod_yaml(name, f"{registry.host}/evil-{attack}:1", ["true"]))
    p = pull_failed(c, name, 'layer "sha256:')
    msg = waiting(p)["message"]
    assert "escapes the layer" in msg or "symlink" in msg or "hard link" in msg, msg
    assert not os.path.exists("/tmp/evil-abs") and not os.path.exists("/tmp/evil-rel")
    assert not os.path.exists(os.path.join(c.agent_dir, "evil"))
    assert set(os.listdir(store(c, "snapshots"))) == before
    assert os.stat("/etc/passwd").st_nlink == passwd.st_nlink
    for root, dirs, files in os.walk(store(c)):
        assert not [f for f in files + dirs if f.startswith("evil")], root
    imgs = c.kjson("get", "node", c.node)["status"].get("images", [])
    assert not [im for im in imgs if any("evil" in n for n in im["names"])]
    c.kubectl("delete", "pod", name, "--wait=false")


@pytest.fixture
def gc_cluster(registry):
    """An agent of its own whose image GC always runs (the filesystem is more
    than 1% full) and frees every image no pod uses."""
    from test_agent_cluster import running_cluster

    def setup(c):
        c.agent_extra += ["--image-gc-high-threshold", "1", "--image-gc-low-threshold", "1"]
    with running_cluster("skiff-e2e-gc-", setup=setup, node="gc-node") as c:
        yield c


def test_image_gc_frees_unused_images_keeps_those_in_use(gc_cluster, registry):
    c = gc_cluster
    keep, drop = f"{registry.host}/busybox:2", f"{registry.host}/busybox:1"
    c.apply(pod_yaml("keeper", keep, ["sleep", "3600"]))
    c.apply(pod_yaml("once", drop, ["true"]))
    c.wait_pod("keeper", lambda p: "running" in cstatus(p)["state"], 120, what="running")
    c.wait_phase("once", "Succeeded", 120)
    c.kubectl("delete", "pod", "once")
    _, man1 = manifest_of(registry, "busybox:1")
    _, man2 = manifest_of(registry, "busybox:2")
    blobs = store(c, "blobs", "sha256")

    def collected():     # the node's status is posted every few seconds: wait for one after the GC
        names = [n for im in c.kjson("get", "node", c.node)["status"].get("images", []) for n in im["names"]]
        return names if keep in names and drop not in names and not os.path.exists(
            os.path.join(blobs, man1["config"]["digest"].split(":")[1])) else False
    names = wait_for(collected, 60, what="image GC to remove " + drop)
    # the imported, unused busybox:1 goes in the same GC pass
    wait_for(lambda: "docker.io/library/busybox:1" not in [
        n for im in c.kjson("get", "node", c.node)["status"].get("images", []) for n in im["names"]],
        30, what="image GC to remove the imported busybox:1")
    for layer in man2["layers"]:     # busybox:1's only layer is busybox:2's base: it stays
        assert os.path.exists(os.path.join(blobs, layer["digest"].split(":")[1]))
    assert len(os.listdir(store(c, "snapshots"))) == 2
    assert "image gc: removed" in c.agent_logs()
    p = c.pod("keeper")
    assert "running" in cstatus(p)["state"] and cstatus(p)["restartCount"] == 0
    c.delete_all_pods()
    wait_for(lambda: not c.leftovers(), 30, what="no leftovers")


def test_zz_cleanup_leaves_nothing(agent_cluster):  # noqa: F811
    c = agent_cluster
    c.delete_all_pods()
    wait_for(lambda: not c.leftovers(), 30, what="no leftovers")
