#!/usr/bin/env bash
# Part of the end-to-end suite with skiff's store on etcd (make e2e-etcd):
# one etcd (Debian's etcd-server) on free loopback ports for the whole run;
# every server the tests start gets --datastore-endpoint etcd://…/ROOT with a
# root of its own (tests/e2e/conftest.py, SKIFF_E2E_ETCD). Arguments select
# test files instead of the default subset.
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
sel=("$@")
if [ ${#sel[@]} -eq 0 ]; then
	sel=(tests/e2e/test_api_kubectl.py tests/e2e/test_api_python.py tests/e2e/test_api_watch_serving.py
		tests/e2e/test_api_errors.py tests/e2e/test_crd_basic.py tests/e2e/test_store_etcd.py)
fi
SKIFF_E2E_ETCD=127.0.0.1:$cport bash tests/run-e2e.sh "${sel[@]}"
