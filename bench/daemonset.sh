#!/usr/bin/env bash
# A DaemonSet rolled out to 1,000 hollow nodes (one pod each, all Running and
# Ready), with the API server, the SQLite store, the scheduler and the
# controllers in one process: `skiff bench --daemonset`. Target: ≤ 2 s.
# Run alone:
#   bash bench/daemonset.sh            (NODES=, RUNS= override)
set -u
cd "$(dirname "$0")/.."
[ -x build/skiff ] || make build/skiff >/dev/null || exit 1
NODES=${NODES:-1000}
RUNS=${RUNS:-3}
for r in $(seq "$RUNS"); do
	echo "-- run=$r: build/skiff bench --nodes $NODES --pods 0 --daemonset"
	build/skiff bench --nodes "$NODES" --pods 0 --daemonset 2>/dev/null | grep '^daemonset:' || exit 1
done
