#!/usr/bin/env bash
# make demo: start a one-node skiff cluster in the background (data under
# .skiff/) and show it with kubectl. `make down` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=$PWD/.skiff
PORT=${SKIFF_PORT:-6443}
step() { printf '\n==> %s\n' "$*"; }
t0=$(date +%s.%N)
elapsed() { printf '%.1fs' "$(echo "$(date +%s.%N) - $t0" | bc)"; }

mkdir -p "$DATA"
if [ -f "$DATA/server.pid" ] && kill -0 "$(cat "$DATA/server.pid")" 2>/dev/null; then
	step "skiff is already running (pid $(cat "$DATA/server.pid"))"
else
	step "starting skiff server on 127.0.0.1:$PORT (data in .skiff/, log in .skiff/server.log)"
	setsid build/skiff server --data-dir "$DATA" --listen "127.0.0.1:$PORT" >"$DATA/server.log" 2>&1 &
	echo $! >"$DATA/server.pid"
	for _ in $(seq 1 200); do
		[ -f "$DATA/kubeconfig" ] && KUBECONFIG="$DATA/kubeconfig" kubectl get --raw /readyz >/dev/null 2>&1 && break
		sleep 0.05
	done
	echo "ready after $(elapsed)"
fi
export KUBECONFIG=$DATA/kubeconfig
if [ -x examples/ml/demo.sh ]; then
	examples/ml/demo.sh
else
	step "kubectl get nodes,ns"
	kubectl get nodes,ns
fi
cat <<MSG

skiff is running. Use it with:
  export KUBECONFIG=$DATA/kubeconfig
  kubectl get pods -A
or: build/skiff kubectl --data-dir $DATA get pods -A
Stop it with: make down
MSG
