"""Where Jobs wait: creates N one-second Jobs (200m cpu each, busybox image
present, imagePullPolicy Never) on a running one-node cluster with one
`kubectl create --validate=false -f`, then samples the pods every 0.2 s until
all have Succeeded and prints the total time and the average number of pods
per state: Running, Pending-bound (scheduled, not yet running on the node),
Pending-unbound (waiting for the scheduler). Used to find the limit of
bench/jobs_vs_slurm.sh; start the cluster as that script does.

    /usr/bin/python3 bench/jobs_slots.py KUBECONFIG IMAGE N
"""
import collections
import os
import subprocess
import sys
import tempfile
import time

import yaml
from kubernetes import client, config
kc = sys.argv[1]; image = sys.argv[2]; n = int(sys.argv[3])
config.load_kube_config(kc)
v1 = client.CoreV1Api()
docs = []; t00 = time.time()
for i in range(n):
    docs.append(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"slots-{int(t00)}-{i:04d}"},
      "spec": {"template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
        "containers": [{"name": "c", "image": image, "imagePullPolicy": "Never", "command": ["sleep", "1"],
                        "resources": {"requests": {"cpu": "200m"}}}]}}}}))
fd, manifest = tempfile.mkstemp(suffix=".yaml")
with os.fdopen(fd, "w") as f:
    f.write("\n---\n".join(docs))
t0 = time.time()
subprocess.run(["kubectl", "--kubeconfig", kc, "create", "--validate=false", "-f", manifest], check=True, stdout=subprocess.DEVNULL)
os.unlink(manifest)
samples = collections.Counter(); k = 0
while True:
    pods = v1.list_namespaced_pod("default").items
    c = collections.Counter()
    for p in pods:
        ph = p.status.phase
        if ph == "Pending":
            ph = "Pending-bound" if p.spec.node_name else "Pending-unbound"
        if ph == "Running":
            cs = p.status.container_statuses or []
            if cs and cs[0].state.terminated:
                ph = "Running-but-exited"
        c[ph] += 1
    samples.update({kk: vv for kk, vv in c.items() if kk != "Succeeded"}); k += 1
    done = c["Succeeded"]
    if done >= n: break
    time.sleep(0.2)
print("total", round(time.time() - t0, 1), "s; samples", k, {kk: round(vv / k, 2) for kk, vv in samples.items()})
