#!/usr/bin/env bash
# Issue 20's figures on etcd against SQLite, one run: a one-member etcd
# (Debian's etcd-server, data in /tmp) on free loopback ports, then
#  1. watch delivery to 1,000 watchers (bench/api_bench.c, WATCH_ONLY=1)
#     with the server on etcd and on SQLite;
#  2. the scheduler on hollow nodes (`skiff bench`) with the store on etcd
#     and on SQLite.
#   bash bench/etcd_scale.sh [build/skiff]       (NODES=5000 PODS=10000 override)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
NODES=${NODES:-5000}
PODS=${PODS:-10000}
mkdir -p build/bench
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/api_bench bench/api_bench.c -lcurl -ljansson -lpthread
# two distinct free loopback ports, both bound while chosen
ports() { python3 -c 'import socket; a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0)); print(a.getsockname()[1], b.getsockname()[1])'; }
dir=$(mktemp -d /tmp/skiff-etcd-bench-XXXXXX)
pid=
start_etcd() {
	read -r cport pport < <(ports)
	rm -rf "$dir/data"
	etcd --data-dir "$dir/data" --listen-client-urls "http://127.0.0.1:$cport" \
		--advertise-client-urls "http://127.0.0.1:$cport" --listen-peer-urls "http://127.0.0.1:$pport" \
		--initial-advertise-peer-urls "http://127.0.0.1:$pport" --quota-backend-bytes 8589934592 \
		--initial-cluster "default=http://127.0.0.1:$pport" >"$dir/etcd.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do curl -sf "http://127.0.0.1:$cport/health" >/dev/null && return 0; sleep 0.05; done
	echo "etcd did not start:"; tail -5 "$dir/etcd.log"; exit 1
}
# (an if, not a failing &&: under set -e the EXIT trap would stop before its rm)
stop_etcd() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=; fi; }
trap 'stop_etcd; rm -rf "$dir"' EXIT
etcd --version | sed -n 1p # (head would end etcd with SIGPIPE: a failed pipeline under pipefail)
echo "== watch delivery to 1,000 watchers, server on etcd"
start_etcd
WATCH_ONLY=1 SKIFF_SERVER_ARGS="--datastore-endpoint etcd://127.0.0.1:$cport" build/bench/api_bench "$bin" 32 | grep -E "watch"
stop_etcd
echo "== watch delivery to 1,000 watchers, server on SQLite"
WATCH_ONLY=1 build/bench/api_bench "$bin" 32 | grep -E "watch"
echo "== scheduler: $NODES hollow nodes, $PODS pods, store on etcd"
start_etcd
/usr/bin/time -f "process: wall %es user %Us sys %Ss maxrss %MkB" \
	"$bin" bench --nodes "$NODES" --pods "$PODS" --workers 64 --datastore-endpoint "etcd://127.0.0.1:$cport"
stop_etcd
echo "== scheduler: $NODES hollow nodes, $PODS pods, store on SQLite"
/usr/bin/time -f "process: wall %es user %Us sys %Ss maxrss %MkB" \
	"$bin" bench --nodes "$NODES" --pods "$PODS" --workers 64
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
