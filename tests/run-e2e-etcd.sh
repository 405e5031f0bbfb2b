#!/usr/bin/env bash
# The end-to-end suite with skiff's store on etcd (make e2e-etcd): one etcd
# (Debian's etcd-server) on free loopback ports for the whole run; every
# server the tests start gets --datastore-endpoint etcd://…/ROOT with a root
# of its own (tests/e2e/conftest.py, SKIFF_E2E_ETCD). Tests marked `sqlite`
# (they exercise the SQLite store itself) are left out. Without arguments the
# whole suite runs in its two partitions at once, as make test runs it (the
# agents' one under /tmp/skiff-containers.lock); arguments select test files
# or pytest options instead.
set -u
cd "$(dirname "$0")/.."
# two distinct free loopback ports, both bound while chosen (the kernel may
# give a just-closed port again)
ports() { /usr/bin/python3 -c 'import socket; a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0)); print(a.getsockname()[1], b.getsockname()[1])'; }
dir=$(mktemp -d /tmp/skiff-etcd-e2e-XXXXXX)
read -r cport pport < <(ports)
etcd --data-dir "$dir/data" --listen-client-urls "http://127.0.0.1:$cport" \
	--advertise-client-urls "http://127.0.0.1:$cport" --listen-peer-urls "http://127.0.0.1:$pport" \
	--initial-advertise-peer-urls "http://127.0.0.1:$pport" \
	--initial-cluster "default=http://127.0.0.1:$pport" >"$dir/etcd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 600); do
	curl -sf "http://127.0.0.1:$cport/health" >/dev/null && break
	sleep 0.05
done
curl -sf "http://127.0.0.1:$cport/health" >/dev/null || { echo "etcd did not start:"; tail -5 "$dir/etcd.log"; exit 1; }
export SKIFF_E2E_ETCD=127.0.0.1:$cport
if [ $# -gt 0 ]; then
	bash tests/run-e2e.sh "$@"
	exit
fi
export SKIFF_E2E_SLOW=${SKIFF_E2E_SLOW:-2}
(SKIFF_E2E_PART=agents flock /tmp/skiff-containers.lock bash tests/run-e2e.sh >"$dir/agents" 2>&1
	echo $? >"$dir/agents.rc") &
agents=$!
(SKIFF_E2E_PART=hollow bash tests/run-e2e.sh >"$dir/hollow" 2>&1; echo $? >"$dir/hollow.rc") &
hollow=$!
wait $agents $hollow # not etcd, a background job too
rc=0
for part in agents hollow; do
	echo "== e2e on etcd: $part"
	cat "$dir/$part"
	[ "$(cat "$dir/$part.rc")" = 0 ] || rc=1
done
exit $rc
