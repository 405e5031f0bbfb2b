#!/usr/bin/env bash
# An OrderedReady StatefulSet of 100 pods (one claim template) on 100 hollow
# nodes, with the API server, the SQLite store, the scheduler and the
# controllers in one process: `skiff bench --statefulset`. Target: all pods
# Ready within 5 s. Run alone:
#   bash bench/statefulset.sh            (REPLICAS=, NODES=, RUNS= override)
set -u
cd "$(dirname "$0")/.."
[ -x build/skiff ] || make build/skiff >/dev/null || exit 1
REPLICAS=${REPLICAS:-100}
NODES=${NODES:-100}
RUNS=${RUNS:-5}
for r in $(seq "$RUNS"); do
	echo "-- run=$r: build/skiff bench --nodes $NODES --pods 0 --statefulset $REPLICAS"
	build/skiff bench --nodes "$NODES" --pods 0 --statefulset "$REPLICAS" 2>/dev/null | grep '^statefulset:' || exit 1
done
