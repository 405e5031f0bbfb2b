"""The API server driven by the official Python client (python3-kubernetes)."""
import threading

from kubernetes import client, watch


def pod_body(name, labels=None):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {"app": "py"}),
        # a scheduler nobody runs: no other writer touches these pods
        spec=client.V1PodSpec(scheduler_name="e2e-none",
                              containers=[client.V1Container(name="c", image="busybox:1.36",
                                                             command=["sleep", "60"])]))


def test_pods_create_list_watch_resume_delete(api_cluster):
    api = client.CoreV1Api(api_cluster.api_client())
    created = api.create_namespaced_pod("default", pod_body("py-1"))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.spec.restart_policy == "Always"
    lst = api.list_namespaced_pod("default", label_selector="app=py")
    assert [p.metadata.name for p in lst.items] == ["py-1"]
    rv = lst.metadata.resource_version

    events = []
    w = watch.Watch()
    done = threading.Event()

    def run():
        for ev in w.stream(api.list_namespaced_pod, "default", label_selector="app=py", resource_version=rv,
                           timeout_seconds=10):
            events.append((ev["type"], ev["object"].metadata.name, ev["object"].metadata.resource_version))
            if len(events) >= 3:
                w.stop()
        done.set()

    t = threading.Thread(target=run)
    t.start()
    api.create_namespaced_pod("default", pod_body("py-2"))
    api.patch_namespaced_pod("py-2", "default", {"metadata": {"annotations": {"a": "b"}}})
    api.delete_namespaced_pod("py-2", "default")
    done.wait(20)
    t.join(5)
    assert [e[0] for e in events] == ["ADDED", "MODIFIED", "DELETED"], events

    # resuming from the resourceVersion of the first event replays the rest
    resumed = []
    for ev in watch.Watch().stream(api.list_namespaced_pod, "default", label_selector="app=py",
                                   resource_version=events[0][2], timeout_seconds=2):
        resumed.append(ev["type"])
    assert resumed == ["MODIFIED", "DELETED"]
    api.delete_namespaced_pod("py-1", "default")


def test_deployments_roundtrip_and_models_decode(api_cluster):
    apps = client.AppsV1Api(api_cluster.api_client())
    core = client.CoreV1Api(api_cluster.api_client())
    dep = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-dep"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "py-dep"}),
            template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"app": "py-dep"}),
                                              spec=client.V1PodSpec(containers=[client.V1Container(
                                                  name="c", image="busybox:1.36")]))))
    out = apps.create_namespaced_deployment("default", dep)
    assert out.spec.strategy.type == "RollingUpdate"
    assert out.spec.revision_history_limit == 10
    got = apps.read_namespaced_deployment("py-dep", "default")
    assert got.metadata.generation == 1
    scale = apps.read_namespaced_deployment_scale("py-dep", "default")
    assert scale.spec.replicas == 2
    apps.patch_namespaced_deployment_scale("py-dep", "default", {"spec": {"replicas": 3}})
    assert apps.read_namespaced_deployment("py-dep", "default").spec.replicas == 3
    assert [d.metadata.name for d in apps.list_deployment_for_all_namespaces().items] == ["py-dep"]
    # every listed type decodes into the client's models
    core.list_namespace()
    core.list_node()
    core.list_event_for_all_namespaces()
    core.list_config_map_for_all_namespaces()
    core.list_service_for_all_namespaces()
    apps.list_replica_set_for_all_namespaces()
    client.BatchV1Api(api_cluster.api_client()).list_job_for_all_namespaces()
    client.BatchV1Api(api_cluster.api_client()).list_cron_job_for_all_namespaces()
    apps.delete_namespaced_deployment("py-dep", "default")
    try:
        apps.read_namespaced_deployment("py-dep", "default")
        assert False, "deployment still there"
    except client.exceptions.ApiException as e:
        assert e.status == 404


def test_watch_from_compacted_revision_is_expired(tmpdir_skiff):
    import time
    from conftest import Cluster
    c = Cluster(tmpdir_skiff, ["--no-agent", "--watch-history", "1"]).start()
    try:
        core = client.CoreV1Api(c.api_client())
        for i in range(5):
            core.create_namespaced_config_map("default", client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name=f"h{i}"), data={"i": str(i)}))
        deadline = time.time() + 30
        status = None
        while time.time() < deadline and status != 410:
            try:
                for _ in watch.Watch().stream(core.list_namespaced_config_map, "default", resource_version="2",
                                              timeout_seconds=1):
                    pass
            except client.exceptions.ApiException as e:
                status = e.status
                assert "too old resource version" in str(e.reason) + str(e.body)
            time.sleep(0.5)
        assert status == 410
    finally:
        c.cleanup()


def test_watch_bookmark_before_timeout_resumes_without_relist(api_cluster):
    """With allowWatchBookmarks (the Python client sends it as "True") the
    server sends a BOOKMARK 2 s before the watch's timeoutSeconds (as
    upstream's watch cache does), carrying the latest revision, from which the
    client resumes without missing a change."""
    api = client.CoreV1Api(api_cluster.api_client())
    api.create_namespaced_pod("default", pod_body("bm-1", {"app": "bm"}))
    rv = api.list_namespaced_pod("default", label_selector="app=bm").metadata.resource_version
    # a change the bookmark's revision must be at or after (another label: not in the watch)
    api.create_namespaced_pod("default", pod_body("bm-other", {"app": "other"}))
    seen = []
    for ev in watch.Watch().stream(api.list_namespaced_pod, "default", label_selector="app=bm",
                                   resource_version=rv, timeout_seconds=4, allow_watch_bookmarks=True):
        # the client hands a BOOKMARK over undecoded
        seen.append((ev["type"], ev["raw_object"]["metadata"]["resourceVersion"]))
    bookmarks = [r for t, r in seen if t == "BOOKMARK"]
    assert [t for t, _ in seen] == ["BOOKMARK"], seen
    assert int(bookmarks[0]) > int(rv)
    # resuming from the bookmark sees what happened after it, and only that
    api.create_namespaced_pod("default", pod_body("bm-2", {"app": "bm"}))
    after = [(ev["type"], ev["object"].metadata.name) for ev in
             watch.Watch().stream(api.list_namespaced_pod, "default", label_selector="app=bm",
                                  resource_version=bookmarks[0], timeout_seconds=1)]
    assert after == [("ADDED", "bm-2")], after
    for name in ("bm-1", "bm-2", "bm-other"):
        api.delete_namespaced_pod(name, "default")


def test_get_api_resources_with_trailing_slash(api_cluster):
    """The client's get_api_resources() asks for /api/v1/ and /apis/<g>/<v>/:
    served as the discovery documents without the slash."""
    ac = api_cluster.api_client()
    core = client.CoreV1Api(ac).get_api_resources()
    assert core.group_version == "v1" and "pods" in [r.name for r in core.resources]
    apps = client.AppsV1Api(ac).get_api_resources()
    assert apps.group_version == "apps/v1" and "deployments" in [r.name for r in apps.resources]
    groups = client.ApisApi(ac).get_api_versions()
    assert "apps" in [g.name for g in groups.groups]
