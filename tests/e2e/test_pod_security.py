"""Pod Security admission and NamespaceLifecycle with kubectl and the Python
client, API only (pods stay Pending): enforce, warn and audit levels from
namespace labels with upstream's messages, version pinning, label
validation, existing-pod warnings on relabel, exemptions from an
AdmissionConfiguration file, the namespaces that cannot be deleted and the
namespaces collection without deletecollection."""
import json
import os
import shutil
import tempfile

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import Cluster

PSA = "pod-security.kubernetes.io/"

RESTRICTED_MSG = (
    'pods "p" is forbidden: violates PodSecurity "restricted:latest": '
    'privileged (container "c" must not set securityContext.privileged=true), '
    'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or '
    '"Localhost")')

COMPLIANT_SC = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
                "seccompProfile": {"type": "RuntimeDefault"}}


def pod(name, sc=None, pod_sc=None, container="c"):
    c = {"name": container, "image": "busybox"}
    if sc is not None:
        c["securityContext"] = sc
    spec = {"containers": [c]}
    if pod_sc is not None:
        spec["securityContext"] = pod_sc
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def make_ns(cl, name, **labels):
    cl.kubectl("create", "namespace", name)
    if labels:
        cl.kubectl("label", "namespace", name, *[f"{PSA}{k.replace('_', '-')}={v}" for k, v in labels.items()])


def apply(cl, ns, obj, check=False):
    return cl.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj), check=check)


def test_restricted_refuses_privileged_pod_with_upstream_message(api_cluster):
    make_ns(api_cluster, "psa-r", enforce="restricted")
    r = apply(api_cluster, "psa-r", pod("p", sc={"privileged": True}))
    assert r.returncode != 0
    assert "Error from server (Forbidden)" in r.stderr
    assert RESTRICTED_MSG in r.stderr
    v1 = client.CoreV1Api(api_cluster.api_client())
    with pytest.raises(ApiException) as e:
        v1.create_namespaced_pod("psa-r", pod("p", sc={"privileged": True}))
    assert e.value.status == 403
    body = json.loads(e.value.body)
    assert body["reason"] == "Forbidden"
    assert body["message"] == RESTRICTED_MSG
    assert body["details"] == {"name": "p", "kind": "pods"}


def test_restricted_admits_compliant_pod(api_cluster):
    make_ns(api_cluster, "psa-ok", enforce="restricted", warn="restricted")
    v1 = client.CoreV1Api(api_cluster.api_client())
    created = v1.create_namespaced_pod("psa-ok", pod("good", sc=COMPLIANT_SC))
    assert created.metadata.name == "good"
    # pod-level runAsNonRoot and seccompProfile cover the containers
    r = apply(api_cluster, "psa-ok", pod("good2", sc={"allowPrivilegeEscalation": False,
                                                      "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}},
                                         pod_sc={"runAsNonRoot": True, "seccompProfile": {"type": "Localhost",
                                                                                         "localhostProfile": "p.json"}}))
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr
    # metadata-only and status updates of a pod are not checked: label a pod
    # that predates a stricter level
    make_ns(api_cluster, "psa-meta")
    apply(api_cluster, "psa-meta", pod("old", sc={"privileged": True}), check=True)
    api_cluster.kubectl("label", "namespace", "psa-meta", f"{PSA}enforce=restricted")
    r = api_cluster.kubectl("-n", "psa-meta", "label", "pod", "old", "team=ml", check=False)
    assert r.returncode == 0, r.stderr
    st = v1.read_namespaced_pod_status("old", "psa-meta")
    st.status.message = "still here"
    v1.replace_namespaced_pod_status("old", "psa-meta", st)
    # an image change is a significant update, and is refused
    r = api_cluster.kubectl("-n", "psa-meta", "set", "image", "pod/old", "c=busybox:2", check=False)
    assert r.returncode != 0
    assert 'pods "old" is forbidden: violates PodSecurity "restricted:latest": privileged' in r.stderr


def test_baseline_allows_what_restricted_refuses(api_cluster):
    make_ns(api_cluster, "psa-b", enforce="baseline")
    r = apply(api_cluster, "psa-b", pod("plain", sc={"runAsUser": 0, "capabilities": {"add": ["CHOWN"]}}))
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr
    r = apply(api_cluster, "psa-b", pod("p", sc={"privileged": True, "capabilities": {"add": ["SYS_ADMIN"]}}))
    assert r.returncode != 0
    assert ('pods "p" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities '
            '(container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add), privileged '
            '(container "c" must not set securityContext.privileged=true)') in r.stderr


def test_warn_and_audit_never_refuse_workloads(api_cluster):
    make_ns(api_cluster, "psa-w", warn="restricted", audit="restricted")
    r = api_cluster.kubectl("-n", "psa-w", "create", "deployment", "web", "--image=busybox")
    assert 'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false ' \
           '(container "busybox" must set securityContext.allowPrivilegeEscalation=false)' in r.stderr
    assert "deployment.apps/web created" in r.stdout
    # enforce refuses pods, never the workloads that would make them
    make_ns(api_cluster, "psa-we", enforce="restricted")
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "hostNetwork": True,
                                          "containers": [{"name": "c", "image": "busybox"}]}}}}
    r = apply(api_cluster, "psa-we", job)
    assert r.returncode == 0, r.stderr
    assert 'Warning: would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true)' in r.stderr
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"},
          "spec": {"schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": {"spec": {
              "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                        "securityContext": dict(COMPLIANT_SC, runAsUser=0)}]}}}}}}
    r = apply(api_cluster, "psa-we", cj)
    assert r.returncode == 0, r.stderr
    assert 'Warning: would violate PodSecurity "restricted:latest": runAsUser=0 (container "c" must not set ' \
           'runAsUser=0)' in r.stderr


def test_version_pinning(api_cluster):
    # runAsUser=0 is a restricted violation from v1.23 on
    root = pod("root", sc=COMPLIANT_SC, pod_sc={"runAsUser": 0})
    make_ns(api_cluster, "psa-v22", enforce="restricted", enforce_version="v1.22")
    r = apply(api_cluster, "psa-v22", root)
    assert r.returncode == 0, r.stderr
    make_ns(api_cluster, "psa-vlatest", enforce="restricted", enforce_version="latest")
    r = apply(api_cluster, "psa-vlatest", root)
    assert r.returncode != 0
    assert ('pods "root" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 '
            '(pod must not set runAsUser=0)') in r.stderr
    make_ns(api_cluster, "psa-v23", enforce="restricted", enforce_version="v1.23")
    r = apply(api_cluster, "psa-v23", root)
    assert 'violates PodSecurity "restricted:v1.23": runAsUser=0' in r.stderr


def test_invalid_labels_refused(api_cluster):
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "psa-bad", "labels": {PSA + "enforce": "strict"}}}
    r = api_cluster.kubectl("apply", "-f", "-", input=json.dumps(ns), check=False)
    assert r.returncode != 0
    assert ('The Namespace "psa-bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: '
            'Invalid value: "strict": must be one of privileged, baseline, restricted') in r.stderr
    make_ns(api_cluster, "psa-lbl")
    r = api_cluster.kubectl("label", "namespace", "psa-lbl", f"{PSA}warn-version=1.25", check=False)
    assert r.returncode != 0
    assert ('metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.25": '
            'must be "latest" or "v1.x"') in r.stderr
    v1 = client.CoreV1Api(api_cluster.api_client())
    with pytest.raises(ApiException) as e:
        v1.patch_namespace("psa-lbl", {"metadata": {"labels": {PSA + "audit": "none"}}})
    assert e.value.status == 422
    body = json.loads(e.value.body)
    assert body["reason"] == "Invalid"
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid",
                                          "message": 'Invalid value: "none": must be one of privileged, baseline, '
                                                     'restricted',
                                          "field": "metadata.labels[pod-security.kubernetes.io/audit]"}]


def test_relabel_warns_about_existing_pods(api_cluster):
    make_ns(api_cluster, "psa-re")
    apply(api_cluster, "psa-re", pod("a-priv", sc={"privileged": True}), check=True)
    apply(api_cluster, "psa-re", pod("b-plain"), check=True)
    apply(api_cluster, "psa-re", pod("c-plain"), check=True)
    apply(api_cluster, "psa-re", pod("ok", sc=COMPLIANT_SC), check=True)
    r = api_cluster.kubectl("label", "namespace", "psa-re", f"{PSA}enforce=baseline")
    assert r.stderr.splitlines() == [
        'Warning: existing pods in namespace "psa-re" violate the new PodSecurity enforce level "baseline:latest"',
        "Warning: a-priv: privileged"]
    r = api_cluster.kubectl("label", "namespace", "psa-re", f"{PSA}enforce=restricted", "--overwrite")
    assert r.stderr.splitlines() == [
        'Warning: existing pods in namespace "psa-re" violate the new PodSecurity enforce level "restricted:latest"',
        "Warning: a-priv: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, "
        "runAsNonRoot != true, seccompProfile",
        "Warning: b-plain (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, "
        "runAsNonRoot != true, seccompProfile"]
    # a looser level says nothing
    r = api_cluster.kubectl("label", "namespace", "psa-re", f"{PSA}enforce=baseline", "--overwrite")
    assert "Warning" not in r.stderr
    assert r.returncode == 0


def test_kube_system_is_exempt(api_cluster):
    r = api_cluster.kubectl("label", "namespace", "kube-system", f"{PSA}enforce=restricted")
    try:
        assert ('Warning: namespace "kube-system" is exempt from Pod Security, and the policy '
                '(enforce=restricted:latest) will be ignored') in r.stderr
        r = apply(api_cluster, "kube-system", pod("sys-priv", sc={"privileged": True}))
        assert r.returncode == 0, r.stderr
    finally:
        api_cluster.kubectl("label", "namespace", "kube-system", f"{PSA}enforce-")
        api_cluster.kubectl("-n", "kube-system", "delete", "pod", "sys-priv", "--ignore-not-found", "--wait=false")


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "kube-node-lease"])
def test_system_namespaces_cannot_be_deleted(api_cluster, name):
    r = api_cluster.kubectl("delete", "namespace", name, check=False)
    assert r.returncode != 0
    assert f'Error from server (Forbidden): namespaces "{name}" is forbidden: this namespace may not be deleted' \
        in r.stderr
    v1 = client.CoreV1Api(api_cluster.api_client())
    with pytest.raises(ApiException) as e:
        v1.delete_namespace(name)
    assert e.value.status == 403
    assert v1.read_namespace(name).status.phase == "Active"


def test_namespaces_have_no_deletecollection(api_cluster):
    r = api_cluster.kubectl("delete", "--raw", "/api/v1/namespaces", check=False)
    assert r.returncode != 0
    assert "MethodNotAllowed" in r.stderr
    api = api_cluster.api_client()
    with pytest.raises(ApiException) as e:
        api.call_api("/api/v1/namespaces", "DELETE", auth_settings=["BearerToken"], response_type="object")
    assert e.value.status == 405
    assert json.loads(e.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the server does not allow this method on the requested resource", "reason": "MethodNotAllowed",
        "details": {}, "code": 405}
    res = json.loads(api_cluster.kubectl("get", "--raw", "/api/v1").stdout)["resources"]
    ns = [x for x in res if x["name"] == "namespaces"][0]
    assert "deletecollection" not in ns["verbs"]
    assert "default" in api_cluster.kubectl("get", "namespaces", "-o", "name").stdout


def test_terminating_namespace_refuses_new_content(api_cluster):
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "psa-term", "finalizers": ["example.com/hold"]}}
    api_cluster.kubectl("apply", "-f", "-", input=json.dumps(ns))
    api_cluster.kubectl("delete", "namespace", "psa-term", "--wait=false")
    r = api_cluster.kubectl("-n", "psa-term", "create", "configmap", "cm", check=False)
    assert r.returncode != 0
    assert ('configmaps "cm" is forbidden: unable to create new content in namespace psa-term because it is '
            'being terminated') in r.stderr
    api_cluster.kubectl("patch", "namespace", "psa-term", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')


def test_exemptions_and_defaults_from_config_file(tmpdir_skiff):
    conf_dir = tempfile.mkdtemp(prefix="skiff-psa-")
    try:
        # YAML, as upstream's documentation writes them (JSON is read too: below)
        with open(os.path.join(conf_dir, "podsecurity.yaml"), "w") as f:
            f.write("apiVersion: pod-security.admission.config.k8s.io/v1\n"
                    "kind: PodSecurityConfiguration\n"
                    "defaults:\n"
                    "  enforce: \"baseline\"\n"
                    "  enforce-version: \"latest\"\n"
                    "  warn: restricted\n"
                    "exemptions:\n"
                    "  # Array of authenticated usernames to exempt.\n"
                    "  usernames: [ops]\n"
                    "  runtimeClasses:\n"
                    "  - kata\n"
                    "  namespaces: [\"free\"]\n")
        path = os.path.join(conf_dir, "admission.yaml")
        with open(path, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\n"
                    "kind: AdmissionConfiguration\n"
                    "plugins:\n"
                    "- name: PodSecurity\n"
                    "  path: podsecurity.yaml\n")
        tokens = os.path.join(conf_dir, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('ops-token,ops,42,"system:masters"\n')
        cl = Cluster(tmpdir_skiff, ["--no-agent", "--admission-control-config-file", path,
                                    "--token-auth-file", tokens]).start()
        try:
            ns = {"apiVersion": "v1", "kind": "Namespace",
                  "metadata": {"name": "free", "labels": {PSA + "enforce": "restricted", PSA + "warn": "baseline"}}}
            r = cl.kubectl("apply", "-f", "-", input=json.dumps(ns))
            assert ('Warning: namespace "free" is exempt from Pod Security, and the policy '
                    '(enforce=restricted:latest, warn=baseline:latest) will be ignored') in r.stderr
            cl.kubectl("create", "namespace", "other")
            priv = pod("p", sc={"privileged": True})
            assert apply(cl, "free", priv).returncode == 0
            r = apply(cl, "other", priv)
            assert 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged' in r.stderr
            kata = dict(priv, spec=dict(priv["spec"], runtimeClassName="kata"))
            r = apply(cl, "other", kata)
            assert r.returncode == 0, r.stderr
            # an exempt user (a token-file user here)
            r = cl.kubectl("--token", "ops-token", "-n", "other", "apply", "-f", "-",
                           input=json.dumps(pod("by-node", sc={"privileged": True})), check=False)
            assert r.returncode == 0, r.stderr
            r = apply(cl, "other", pod("plain"))
            assert r.returncode == 0, r.stderr
            assert 'Warning: would violate PodSecurity "restricted:latest"' in r.stderr
        finally:
            cl.cleanup()
        # a bad file stops the server with the reason
        with open(path, "w") as f:
            json.dump({"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AdmissionConfiguration",
                       "plugins": [{"name": "PodSecurity", "configuration": {"defaults": {"audit": "nope"}}}]}, f)
        shutil.rmtree(os.path.join(tmpdir_skiff, "d2"), ignore_errors=True)
        bad = Cluster(os.path.join(tmpdir_skiff, "d2"), ["--no-agent", "--admission-control-config-file", path])
        with pytest.raises(RuntimeError) as e:
            bad.start()
        assert 'defaults.audit: Invalid value: "nope": must be one of privileged, baseline, restricted' \
            in str(e.value)
        bad.cleanup()
    finally:
        shutil.rmtree(conf_dir, ignore_errors=True)
