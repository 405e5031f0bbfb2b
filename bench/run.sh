#!/usr/bin/env bash
# make bench: builds and runs every benchmark; figures go to stdout and to
# build/bench/results.txt (copy the ones you quote into docs/BENCHMARKS.md
# with the command that produced them).
set -u
cd "$(dirname "$0")/.."
mkdir -p build/bench
out=build/bench/results.txt
: >"$out"
LIBS="$(pkg-config --libs libmicrohttpd gnutls libcurl jansson yajl sqlite3 libarchive libzstd libseccomp libnftables ldns yaml-0.1 zlib grpc libprotobuf-c) -lwslay -lpthread -ldl -lm"
run() {
	local name=$1; shift
	echo "== $name: $*" | tee -a "$out"
	"$@" 2>&1 | tee -a "$out"
}
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/api_bench bench/api_bench.c -lcurl -ljansson -lpthread
run api build/bench/api_bench build/skiff 32 8000
if [ -f bench/store_bench.c ]; then
	cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/store_bench bench/store_bench.c build/libskiff.a $LIBS
	run store build/bench/store_bench
fi
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/cel_bench bench/cel_bench.c build/libskiff.a $LIBS && run cel build/bench/cel_bench
for b in bench/sched_*.c; do
	[ -f "$b" ] || continue
	n=$(basename "$b" .c)
	cc -O2 -D_GNU_SOURCE -Isrc -o "build/bench/$n" "$b" build/libskiff.a $LIBS && run "$n" "build/bench/$n"
done
# the Service dataplane, in a network namespace of its own (root)
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/proxy_bench bench/proxy_bench.c build/libskiff.a $LIBS &&
	run proxy build/bench/proxy_bench 1000 10 200
# a node's Summary with 100 pods: cgroup reads and JSON (agent), parsing (scraper); root
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/summary_bench bench/summary_bench.c build/libskiff.a $LIBS &&
	run summary build/bench/summary_bench 100 50
# Prometheus scrapes (API server with 10,000 objects, agent with 100 pods) and the per-request cost
cc -O2 -D_GNU_SOURCE -Isrc -o build/bench/metrics_bench bench/metrics_bench.c build/libskiff.a $LIBS &&
	run metrics build/bench/metrics_bench 10000 100
# interactive access through the API server to real containers (root, runtime tools): large
# transfers against the direct path, exec round trip and 100 sessions' memory
run stream flock /tmp/skiff-containers.lock /usr/bin/python3 bench/stream_bench.py 64
run exec flock /tmp/skiff-containers.lock /usr/bin/python3 bench/exec_bench.py 10
run exec-sessions flock /tmp/skiff-containers.lock /usr/bin/python3 bench/exec_sessions.py 100
# the web console's first paint on 1,000 hollow nodes and 10,000 pods (headless chromium)
run console_paint /usr/bin/python3 bench/console_paint.py 1000 10000 3
for s in bench/*.sh; do
	case "$s" in bench/run.sh) continue ;; esac
	run "$(basename "$s" .sh)" bash "$s"
done
echo "results in $out"
