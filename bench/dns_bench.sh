#!/usr/bin/env bash
# Cluster DNS (docs/BENCHMARKS.md, "Cluster DNS"): dnsperf against the node
# agent's DNS server (`skiff bench dns`: src/agent/dns.c serving a zone built
# by src/agent/dns-zone.c from N synthetic Services) and, in the same run,
# against dnsmasq serving the same N names from a hosts file, both on
# loopback. Two runs each: throughput (dnsperf as fast as it can, -c 8 -q 200)
# and latency at a fixed rate (-Q RATE, every query's latency with -v; p50,
# p99, max). Settings: SERVICES (1000), SECS (10), RATE (20000), WORKERS (the
# server's default).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${SERVICES:-1000}
SECS=${SECS:-10}
RATE=${RATE:-20000}
ADDR=127.0.0.1
P_SKIFF=$((20000 + RANDOM % 10000))
P_DNSMASQ=$((P_SKIFF + 1))
SKIFF=${SKIFF:-build/skiff}
for t in dnsperf dnsmasq dig; do command -v $t >/dev/null || { echo "dns_bench: needs $t" >&2; exit 1; }; done
[ -x "$SKIFF" ] || make -j2 >/dev/null
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

for ((i = 0; i < N; i++)); do
	echo "svc-$i.bench.svc.cluster.local A" >>"$work/queries"
	echo "10.43.$((i / 256)).$((i % 256)) svc-$i.bench.svc.cluster.local" >>"$work/hosts"
done
"$SKIFF" bench dns --listen $ADDR --port $P_SKIFF --services "$N" ${WORKERS:+--workers $WORKERS} \
	--resolv-conf /dev/null >"$work/skiff.log" 2>&1 &
pids+=($!)
dnsmasq -k --no-resolv --no-hosts --addn-hosts="$work/hosts" --local=/cluster.local/ --local-ttl=5 \
	--listen-address=$ADDR --bind-interfaces --port=$P_DNSMASQ --pid-file= --user=root \
	--conf-file=/dev/null --log-facility=- --cache-size=10000 >"$work/dnsmasq.log" 2>&1 &
pids+=($!)
for p in $P_SKIFF $P_DNSMASQ; do
	for _ in $(seq 100); do
		[ "$(dig +short +time=1 +tries=1 @$ADDR -p $p svc-1.bench.svc.cluster.local)" = 10.43.0.1 ] && break
		sleep 0.1
	done
	[ "$(dig +short +time=1 +tries=1 @$ADDR -p $p svc-$((N - 1)).bench.svc.cluster.local)" ] ||
		{ echo "dns_bench: no answer on port $p" >&2; cat "$work"/*.log >&2; exit 1; }
done

echo "cluster DNS: $N services, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| server | queries/s (max) | lost | at %d q/s: p50 | p99 | max |\n|---|---|---|---|---|---|\n' "$RATE"
for who in skiff dnsmasq; do
	port=$P_SKIFF
	[ $who = dnsmasq ] && port=$P_DNSMASQ
	dnsperf -s $ADDR -p $port -d "$work/queries" -l "$SECS" -c 8 -q 200 >"$work/$who.max" 2>&1
	qps=$(awk '/Queries per second:/ {print $4}' "$work/$who.max")
	lost=$(awk '/Queries lost:/ {print $3, $4}' "$work/$who.max")
	dnsperf -s $ADDR -p $port -d "$work/queries" -l "$SECS" -c 8 -q 200 -Q "$RATE" -v >"$work/$who.lat" 2>&1
	# verbose lines: "> NOERROR name A <latency seconds>"
	lat=$(awk '$1 == ">" && $2 == "NOERROR" {print $NF * 1000}' "$work/$who.lat" | sort -n |
		awk '{v[NR] = $1} END {if (!NR) {print "- - -"; exit}
			printf "%.3f ms | %.3f ms | %.3f ms", v[int(NR * 0.5) ? int(NR * 0.5) : 1],
			v[int(NR * 0.99) ? int(NR * 0.99) : 1], v[NR]}')
	printf '| %s | %.0f | %s | %s |\n' $who "$qps" "$lost" "$lat"
done
