#!/usr/bin/env bash
# Watch delivery to 1,000 watchers at 4 events/s (WATCH_PODS=40 WATCH_GAP_MS=250),
# two skiff binaries interleaved, each on SQLite and on a one-member etcd:
#   bash bench/watch_cmp.sh BASE_BINARY NEW_BINARY [rounds] [stores]
# stores: "sqlite etcd" (default), or one of them. Run from the repository
# root after `make build/bench/api_bench`; the same bench client drives both.
set -euo pipefail
a=$1 b=$2 rounds=${3:-2} stores=${4:-"sqlite etcd"}
ports() { python3 -c 'import socket; a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0)); print(a.getsockname()[1], b.getsockname()[1])'; }
dir=$(mktemp -d /tmp/skiff-watch-cmp-XXXXXX)
trap 'rm -rf "$dir"' EXIT
one() { # label binary extra-server-args
	local out
	out=$(WATCH_PODS=40 WATCH_GAP_MS=250 WATCH_ONLY=1 SKIFF_SERVER_ARGS="$3" build/bench/api_bench "$2" 8 400 | grep -E "^watch_(creates|watchers|fanout)")
	echo "$1 $(echo "$out" | sed -nE 's/.*received ([0-9]+).*p50_ms ([0-9.]+) p99_ms ([0-9.]+).*/received \1 p50 \2 p99 \3/p') $(echo "$out" | sed -nE 's/.*server_cpu_ms_per_event ([0-9.]+) client_cpu_ms_per_event ([0-9.]+).*/server_cpu \1 client_cpu \2/p') $(echo "$out" | sed -nE 's/^watch_fanout.*p99_ms ([0-9.]+).*/fanout_p99 \1/p') load $(cut -d' ' -f1 /proc/loadavg)"
}
n=0
for r in $(seq "$rounds"); do
	for s in $stores; do
		# alternate which binary goes first
		if [ $((r % 2)) = 1 ]; then order="$a $b"; else order="$b $a"; fi
		for bin in $order; do
			label=$([ "$bin" = "$a" ] && echo base || echo new)
			if [ "$s" = etcd ]; then
				n=$((n + 1))
				read -r cport pport < <(ports)
				etcd --data-dir "$dir/data$n" --listen-client-urls "http://127.0.0.1:$cport" \
					--advertise-client-urls "http://127.0.0.1:$cport" --listen-peer-urls "http://127.0.0.1:$pport" \
					--initial-advertise-peer-urls "http://127.0.0.1:$pport" \
					--initial-cluster "default=http://127.0.0.1:$pport" >"$dir/etcd.log" 2>&1 &
				pid=$!
				for _ in $(seq 600); do curl -sf "http://127.0.0.1:$cport/health" >/dev/null && break; sleep 0.05; done
				one "r$r etcd   $label" "$bin" "--datastore-endpoint etcd://127.0.0.1:$cport"
				kill $pid
				wait $pid 2>/dev/null || true
			else
				one "r$r sqlite $label" "$bin" ""
			fi
		done
	done
done
