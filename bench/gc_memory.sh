#!/usr/bin/env bash
# The garbage collector's caches: the server's RSS (VmRSS of `skiff server
# --no-agent`, no nodes) after N plain pods, then after N Secrets of 2 KiB
# data each, settled; one line per binary given, so two builds are compared
# in one run (the collector's monitors were whole objects, now metadata only
# where the cache is its own).
#   bash bench/gc_memory.sh [N] BIN [BIN...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
shift
[ $# -gt 0 ] || set -- build/skiff

rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

one() {
	local bin=$1 dir port pid tok url
	dir=$(mktemp -d /tmp/skiff-gcmem-XXXXXX)
	port=$((21000 + RANDOM % 20000))
	"$bin" server --data-dir "$dir" --listen "127.0.0.1:$port" --no-agent >"$dir/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 400); do [ -f "$dir/token" ] && curl -sk "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
	tok=$(cat "$dir/token")
	url=https://127.0.0.1:$port
	sleep 3
	local r0 r1 r2
	r0=$(rss $pid)
	cat >"$dir/create.py" <<'EOF'
import http.client, json, ssl, sys, threading
url, tok, n, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
host = url.split("//")[1]
ctx = ssl._create_unverified_context()
def work(lo, hi):
    c = http.client.HTTPSConnection(host, context=ctx)
    for i in range(lo, hi):
        if what == "pods":
            path = "/api/v1/namespaces/default/pods"
            body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p%d" % i, "labels": {"app": "gcmem"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}}
        else:
            path = "/api/v1/namespaces/default/secrets"
            body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s%d" % i},
                    "stringData": {"key": "x" * 2048}}
        c.request("POST", path, json.dumps(body), {"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        if r.status != 201:
            sys.exit("create %s %d: %d" % (what, i, r.status))
ts = [threading.Thread(target=work, args=(k * n // 8, (k + 1) * n // 8)) for k in range(8)]
for t in ts: t.start()
for t in ts: t.join()
EOF
	python3 "$dir/create.py" "$url" "$tok" "$n" pods
	sleep 5
	r1=$(rss $pid)
	python3 "$dir/create.py" "$url" "$tok" "$n" secrets
	sleep 5
	r2=$(rss $pid)
	kill $pid
	wait $pid 2>/dev/null || true
	rm -rf "$dir"
	printf '%s: idle %d MiB, +%d pods %d MiB (+%d), +%d secrets %d MiB (+%d)\n' "$bin" $((r0 / 1024)) "$n" \
		$((r1 / 1024)) $(((r1 - r0) / 1024)) "$n" $((r2 / 1024)) $(((r2 - r1) / 1024))
}

for bin in "$@"; do one "$bin"; done
