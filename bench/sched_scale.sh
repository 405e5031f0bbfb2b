#!/usr/bin/env bash
# Scheduler at scale with the API server and the SQLite store in the loop:
# `skiff bench` on 500, 1,000, 2,000 and 5,000 hollow nodes x 10,000 pods,
# then a 1,000-member gang. Run by `make bench` (bench/run.sh) or alone:
#   bash bench/sched_scale.sh            (PODS=, NODES="500 1000", GANG=, RUNS= override)
set -u
cd "$(dirname "$0")/.."
[ -x build/skiff ] || make build/skiff >/dev/null || exit 1
PODS=${PODS:-10000}
NODES=${NODES:-500 1000 2000 5000}
GANG=${GANG:-1000}
RUNS=${RUNS:-1}
for n in $NODES; do
	for r in $(seq "$RUNS"); do
		echo "-- nodes=$n pods=$PODS run=$r: build/skiff bench --nodes $n --pods $PODS --workers 64"
		/usr/bin/time -f "process: wall %es user %Us sys %Ss maxrss %MkB" \
			build/skiff bench --nodes "$n" --pods "$PODS" --workers 64 || exit 1
	done
done
for r in $(seq "$RUNS"); do
	echo "-- gang=$GANG run=$r: build/skiff bench --nodes 1000 --pods 0 --gang $GANG --workers 64"
	/usr/bin/time -f "process: wall %es user %Us sys %Ss maxrss %MkB" \
		build/skiff bench --nodes 1000 --pods 0 --gang "$GANG" --workers 64 || exit 1
done
