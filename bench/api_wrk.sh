#!/usr/bin/env bash
# API throughput with wrk (a C load generator, so the client is not the
# bottleneck on a 2-core machine): durable pod creates/s and single-object
# GETs/s over HTTPS with keep-alive against `skiff server --no-agent`.
#   bash bench/api_wrk.sh [build/skiff] [connections] [seconds]
# SKIFF_SERVER_ARGS adds server flags (bench/etcd_wrk.sh: the store on etcd).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
conns=${2:-32}
secs=${3:-10}
dir=$(mktemp -d /tmp/skiff-wrk-XXXXXX)
port=$((21000 + RANDOM % 20000))
"$bin" server --data-dir "$dir" --listen "127.0.0.1:$port" --no-agent ${SKIFF_SERVER_ARGS:-} >"$dir/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 200); do [ -f "$dir/token" ] && curl -sk "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
tok=$(cat "$dir/token")
url=https://127.0.0.1:$port
echo "== creates: wrk -t2 -c$conns -d${secs}s -s bench/wrk/create-kind.lua (POST /api/v1/namespaces/default/pods)"
WRK_KIND=Pod WRK_API=v1 WRK_PATH=/api/v1/namespaces/default/pods \
	WRK_BODY='"spec":{"schedulerName":"api-bench","containers":[{"name":"c","image":"busybox:1.36"}]}' \
	wrk -t2 -c"$conns" -d"${secs}s" -H "Authorization: Bearer $tok" -s bench/wrk/create-kind.lua "$url" |
	grep -E "Requests/sec|Latency|requests in"
echo "stored pods: $(curl -sk -H "Authorization: Bearer $tok" "$url/api/v1/namespaces/default/pods" | grep -o '"kind":"Pod"' | wc -l)"
echo "== GETs: wrk -t2 -c16 -d${secs}s GET one pod"
name=$(curl -sk -H "Authorization: Bearer $tok" "$url/api/v1/namespaces/default/pods?limit=1" | grep -o '"name":"w-[0-9-]*"' | head -1 | cut -d'"' -f4)
wrk -t2 -c16 -d"${secs}s" -H "Authorization: Bearer $tok" "$url/api/v1/namespaces/default/pods/$name" | grep -E "Requests/sec|Latency|requests in"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
