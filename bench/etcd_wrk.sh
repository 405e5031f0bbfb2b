#!/usr/bin/env bash
# skiff on etcd against skiff on SQLite and etcd's own write rate, one run:
# a one-member etcd (Debian's etcd-server, data in /tmp) on free ports;
#  1. etcd alone: wrk POSTs /v3/kv/put (a pod-sized value) to its JSON
#     gateway, and bench/etcd_put.c sends creates (Txn, a pod-sized value)
#     over gRPC, the path skiff's writes take;
#  2. bench/api_wrk.sh with --datastore-endpoint etcd://… (pod creates/s and
#     single-object GETs/s over HTTPS);
#  3. bench/api_wrk.sh on SQLite (the default store).
#   bash bench/etcd_wrk.sh [build/skiff] [connections] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
conns=${2:-32}
secs=${3:-10}
mkdir -p build/bench
# links skiff's library (make build/skiff first) for its gRPC transport
cc -O2 -D_GNU_SOURCE -Isrc -Ibuild/gen -o build/bench/etcd_put bench/etcd_put.c build/libskiff.a \
	$(pkg-config --libs libmicrohttpd gnutls libcurl jansson yajl sqlite3 libarchive libzstd libseccomp libnftables ldns yaml-0.1 zlib grpc libprotobuf-c) \
	-lwslay -lpthread -ldl -lm
# two distinct free loopback ports, both bound while chosen (the kernel may
# give a just-closed port again)
ports() { python3 -c 'import socket; a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0)); print(a.getsockname()[1], b.getsockname()[1])'; }
dir=$(mktemp -d /tmp/skiff-etcd-bench-XXXXXX)
read -r cport pport < <(ports)
etcd --data-dir "$dir/data" --listen-client-urls "http://127.0.0.1:$cport" \
	--advertise-client-urls "http://127.0.0.1:$cport" --listen-peer-urls "http://127.0.0.1:$pport" \
	--initial-advertise-peer-urls "http://127.0.0.1:$pport" \
	--initial-cluster "default=http://127.0.0.1:$pport" >"$dir/etcd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$cport/health" >/dev/null && break; sleep 0.05; done
curl -sf "http://127.0.0.1:$cport/health" >/dev/null || { echo "etcd did not start:"; tail -5 "$dir/etcd.log"; exit 1; }
etcd --version | sed -n 1p # (head would end etcd with SIGPIPE: a failed pipeline under pipefail)
value=$(head -c 700 /dev/zero | tr '\0' 'x' | base64 -w0)
key=$(printf /bench/put | base64 -w0)
echo "== etcd alone: wrk -t2 -c$conns -d${secs}s POST /v3/kv/put (700-byte value)"
WRK_BODY="{\"key\":\"$key\",\"value\":\"$value\"}" \
	wrk -t2 -c"$conns" -d"${secs}s" -s bench/wrk/etcd-put.lua "http://127.0.0.1:$cport" |
	grep -E "Requests/sec|Latency|requests in"
echo "== etcd alone: build/bench/etcd_put, $conns threads x ${secs}s, Txn creates over gRPC (700-byte value)"
build/bench/etcd_put "127.0.0.1:$cport" "$conns" "$secs" 700
echo "== skiff on etcd"
SKIFF_SERVER_ARGS="--datastore-endpoint etcd://127.0.0.1:$cport" bash bench/api_wrk.sh "$bin" "$conns" "$secs"
echo "== skiff on SQLite"
bash bench/api_wrk.sh "$bin" "$conns" "$secs"
