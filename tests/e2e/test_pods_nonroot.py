"""A container running as a non-root user can read its image's files
(the overlay root's mode comes from the container's upper directory)."""
import json

from test_agent_cluster import wait_for
from test_agent_embedded import embedded  # noqa: F401  (fixture)
import pytest  # noqa: E402

pytestmark = pytest.mark.agents


def test_non_root_user_reads_image_files(embedded):  # noqa: F811
    c = embedded
    wait_for(lambda: c.kubectl("get", "node", c.node, check=False).returncode == 0, 60, what="node")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nobody"},
           "spec": {"restartPolicy": "Never",
                    "securityContext": {"runAsUser": 65534, "runAsGroup": 65534, "runAsNonRoot": True},
                    "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": "Never",
                                    "command": ["sh", "-c", "id -u; ls /bin/sh >/dev/null && echo can-read"]}]}}
    c.kubectl("create", "-f", "-", input=json.dumps(pod))
    wait_for(lambda: c.kjson("get", "pod", "nobody")["status"].get("phase") in ("Succeeded", "Failed"), 90,
             what="pod to finish")
    assert c.kjson("get", "pod", "nobody")["status"]["phase"] == "Succeeded"
    assert c.kubectl("logs", "nobody").stdout.split() == ["65534", "can-read"]
