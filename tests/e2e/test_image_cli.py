"""`skiff image` end to end: pulls from a loopback docker-registry (plain
HTTP, and TLS + htpasswd auth), imports of OCI and docker archives, ls,
inspect, rm, and an overlay rootfs that runs busybox."""
import json
import os
import subprocess
import sys
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIFF = os.environ.get("SKIFF_BIN", os.path.join(ROOT, "build", "skiff"))
sys.path.insert(0, os.path.join(ROOT, "tests", "images"))
from registry import Registry  # noqa: E402

pytestmark = [pytest.mark.agents,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (overlay mounts, chroot)")]


@pytest.fixture(scope="module")
def images():
    r = subprocess.run([os.path.join(ROOT, "tests", "images", "build.sh")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("tests/images/build.sh failed: " + r.stderr[-2000:])
    return r.stdout.strip()


@pytest.fixture(scope="module")
def registry(images):
    with Registry() as reg:
        reg.push(f"oci:{images}/oci:1", "busybox:1")
        reg.push(f"oci:{images}/oci:2", "busybox:2")
        yield reg


@pytest.fixture
def node(tmp_path):
    d = str(tmp_path / "node")
    yield d
    cdir = os.path.join(d, "images", "containers")
    for c in os.listdir(cdir) if os.path.isdir(cdir) else []:
        subprocess.run([SKIFF, "image", "rootfs-remove", c, "--data-dir", d], capture_output=True)


def skiff(node, *args, check=True):
    r = subprocess.run([SKIFF, "image", *args, "--data-dir", node], capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"skiff image {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def manifest_of(reg, name):
    r = subprocess.run(["skopeo", "inspect", "--raw", "--tls-verify=false"]
                       + (["--creds", ":".join(reg.auth)] if reg.auth else [])
                       + [f"docker://{reg.host}/{name}"], check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def test_help(node):
    for sub in ["ls", "pull", "import", "inspect", "rm", "prune"]:
        r = skiff(node, sub, "--help")
        assert f"skiff image {sub}" in r.stdout
    r = subprocess.run([SKIFF, "image", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--data-dir" in r.stdout


def test_pull_by_tag_and_digest(registry, node):
    r = skiff(node, "pull", f"{registry.host}/busybox:1")
    image_ref = r.stdout.strip()
    assert image_ref.startswith(f"{registry.host}/busybox@sha256:")
    assert "Successfully pulled image" in r.stderr and "Image size:" in r.stderr
    digest = image_ref.split("@")[1]
    r = skiff(node, "pull", f"{registry.host}/busybox@{digest}")
    assert r.stdout.strip() == image_ref
    assert "1/1 layers cached" in r.stderr
    ls = json.loads(skiff(node, "ls", "--json").stdout)
    names = ls[0]["names"]
    assert f"{registry.host}/busybox:1" in names and f"{registry.host}/busybox@{digest}" in names
    assert ls[0]["sizeBytes"] > 500000


def test_pull_shares_base_layer(registry, node):
    skiff(node, "pull", f"{registry.host}/busybox:1")
    r = skiff(node, "pull", f"{registry.host}/busybox:2")
    assert "1/2 layers cached" in r.stderr
    assert len(os.listdir(os.path.join(node, "images", "snapshots"))) == 2


def test_concurrent_pulls_share_the_store(registry, node):
    results = []

    def pull():
        results.append(skiff(node, "pull", "--quiet", f"{registry.host}/busybox:2", check=False))
    threads = [threading.Thread(target=pull) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert len({r.stdout for r in results}) == 1
    assert len(json.loads(skiff(node, "ls", "--json").stdout)) == 1


def test_missing_image_and_tag(registry, node):
    r = skiff(node, "pull", f"{registry.host}/busybox:nope", check=False)
    assert r.returncode != 0
    assert f'image "{registry.host}/busybox:nope": manifest unknown' in r.stderr
    r = skiff(node, "pull", f"{registry.host}/nothere:1", check=False)
    assert r.returncode != 0 and "unknown" in r.stderr
    r = skiff(node, "pull", "Not A Ref", check=False)
    assert r.returncode != 0 and "invalid reference format" in r.stderr


def test_wrong_digest(images, node):
    with Registry() as reg:
        reg.push(f"oci:{images}/oci:1", "busybox:1")
        layer = manifest_of(reg, "busybox:1")["layers"][0]["digest"]
        with open(reg.blob_path(layer), "r+b") as f:   # the registry now serves other bytes
            f.seek(100)
            b = f.read(1)
            f.seek(100)
            f.write(bytes([b[0] ^ 0xff]))
        r = skiff(node, "pull", f"{reg.host}/busybox:1", check=False)
        assert r.returncode != 0
        assert "digest mismatch" in r.stderr and layer in r.stderr
        r = skiff(node, "pull", f"{reg.host}/busybox@sha256:" + "ab" * 32, check=False)
        assert r.returncode != 0 and "manifest unknown" in r.stderr
    assert json.loads(skiff(node, "ls", "--json").stdout) == []


def test_private_registry_tls_basic_auth(images, node, tmp_path):
    with Registry(tls=True, auth=("alice", "s3cret")) as reg:
        reg.push(f"oci:{images}/oci:1", "private/busybox:1")
        ref = f"{reg.host}/private/busybox:1"
        r = skiff(node, "pull", ref, check=False)
        assert r.returncode != 0
        assert "unauthorized: authentication required" in r.stderr
        bad = tmp_path / "bad.json"
        bad.write_text(reg.dockerconfigjson("alice", "wrong"))
        r = skiff(node, "pull", ref, "--creds-file", str(bad), check=False)
        assert r.returncode != 0 and "unauthorized" in r.stderr
        good = tmp_path / "good.json"
        good.write_text(reg.dockerconfigjson())
        r = skiff(node, "pull", ref, "--creds-file", str(bad), "--creds-file", str(good), check=False)
        assert r.returncode != 0    # the first document naming the host wins, as the agent passes them
        r = skiff(node, "pull", ref, "--creds-file", str(good))
        assert r.stdout.startswith(f"{reg.host}/private/busybox@sha256:")


def test_import_both_archives_ls_inspect_rm(images, node):
    r = skiff(node, "import", f"{images}/busybox-oci.tar", "--name", "localhost:5000/bb")
    assert "imported localhost:5000/bb:1" in r.stdout
    r = skiff(node, "import", f"{images}/app-docker.tar")
    assert "imported docker.io/library/busybox:2" in r.stdout
    out = skiff(node, "ls").stdout
    assert "localhost:5000/bb:1" in out and "docker.io/library/busybox:2" in out
    info = json.loads(skiff(node, "inspect", "busybox:2").stdout)
    cfg = info["config"]["config"]
    assert cfg["Entrypoint"] == ["/bin/sh"] and cfg["Cmd"] == ["-c", "cat /etc/app.txt"]
    assert cfg["User"] == "1000" and info["layers"] == 2
    assert info["imageRef"] == "docker.io/library/busybox@" + info["id"]
    skiff(node, "rm", "busybox:2")
    r = skiff(node, "inspect", "busybox:2", check=False)
    assert r.returncode != 0 and 'image "busybox:2": not found' in r.stderr
    r = skiff(node, "prune")
    assert "removed" in r.stdout
    assert len(os.listdir(os.path.join(node, "images", "snapshots"))) == 1


def test_rootfs_runs_busybox(images, node):
    skiff(node, "import", f"{images}/app-oci.tar", "--name", "busybox")
    rootfs = skiff(node, "rootfs-prepare", "busybox:2", "ctr-1").stdout.strip()
    assert os.path.exists(os.path.join(rootfs, "bin", "busybox"))
    assert not os.path.exists(os.path.join(rootfs, "bin", "vi"))   # whited out in layer 2
    r = subprocess.run(["chroot", rootfs, "/bin/sh", "-c", "cat /etc/app.txt; echo x > /tmp/w"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "hello from layer 2\n"
    assert os.path.exists(os.path.join(node, "images", "containers", "ctr-1", "upper", "tmp", "w"))
    r = skiff(node, "rm", "busybox:2", check=False)
    assert r.returncode != 0 and "in use" in r.stderr
    skiff(node, "rootfs-remove", "ctr-1")
    assert not os.path.exists(os.path.join(node, "images", "containers", "ctr-1"))
    # the new mount API (lowerdir+, used for images with many layers) gives the same view
    r = subprocess.run([SKIFF, "image", "rootfs-prepare", "busybox:2", "ctr-2", "--data-dir", node],
                       capture_output=True, text=True, env=dict(os.environ, SKIFF_IMAGE_MOUNT_API="new"))
    assert r.returncode == 0, r.stderr
    with open(os.path.join(r.stdout.strip(), "etc", "app.txt")) as f:
        assert f.read() == "hello from layer 2\n"
    skiff(node, "rootfs-remove", "ctr-2")
    skiff(node, "rm", "busybox:2")


def test_pull_zstd_layers(images, node):
    with Registry() as reg:   # a fresh one: skopeo would reuse the gzip layers of another push
        subprocess.run(["skopeo", "copy", "-q", "--dest-tls-verify=false", "--dest-compress-format", "zstd",
                        "--dest-compress", f"oci:{images}/oci:2", f"docker://{reg.host}/zbox:2"],
                       check=True, capture_output=True)
        if not all(layer["mediaType"].endswith("+zstd") for layer in manifest_of(reg, "zbox:2")["layers"]):
            pytest.skip("skopeo reused gzip layers from its blob cache")
        skiff(node, "pull", f"{reg.host}/zbox:2")
        rootfs = skiff(node, "rootfs-prepare", f"{reg.host}/zbox:2", "ctr-z").stdout.strip()
        with open(os.path.join(rootfs, "etc", "app.txt")) as f:
            assert f.read() == "hello from layer 2\n"
        skiff(node, "rootfs-remove", "ctr-z")
