#!/usr/bin/env bash
# make down: stop the cluster that `make demo` started, leaving no process,
# mount, network namespace or bridge behind. Containers outlive a stopped
# agent by design (a restarted one re-adopts them), so the workloads are
# deleted first and the agent stops their pods; the objects that hold no
# containers (namespaces, volumes and their data, secrets) stay in .skiff/,
# as do the node's images, and `make demo` starts from them again.
set -u
cd "$(dirname "$0")/.."
pidf=.skiff/server.pid
k() { KUBECONFIG=.skiff/kubeconfig kubectl --request-timeout=30s "$@"; }
pods_left() { k get pods -A -o name 2>/dev/null | grep -c . ; }

if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then
	k delete cronjobs,jobs,deployments,replicasets,daemonsets,statefulsets --all -A --wait=false >/dev/null 2>&1
	k delete pods --all -A --wait=false >/dev/null 2>&1
	for i in $(seq 1 240); do
		[ "$(pods_left)" = 0 ] && break
		if [ "$i" = 120 ]; then   # Job pods whose Job went first keep their tracking finalizer
			k get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name}{"\n"}{end}' |
				while read -r ns name; do
					k -n "$ns" patch pod "$name" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1
				done
		fi
		sleep 0.5
	done
	[ "$(pods_left)" = 0 ] && echo "pods stopped" || echo "down.sh: $(pods_left) pods still there; removing what is left" >&2
	kill -TERM "$(cat "$pidf")"
	for _ in $(seq 1 100); do kill -0 "$(cat "$pidf")" 2>/dev/null || break; sleep 0.1; done
	echo "skiff stopped"
else
	echo "skiff is not running"
fi
rm -f "$pidf"

# What the embedded agent set up on the host: its run directory and bridge are
# named after a hash of its data directory (FNV-1a, as src/agent/agent.c does).
if [ -d .skiff/agent ]; then
	h=$(python3 -c 'import os, sys
h = 2166136261
for b in os.path.realpath(sys.argv[1]).encode():
    h = ((h ^ b) * 16777619) & 0xffffffff
print("%08x" % h)' .skiff/agent)
	run=/run/skiff-$h
	for f in "$run"/containers/*/pidfile "$run"/containers/*/conmon.pid; do   # only when pods did not stop
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	awk -v a="$run/" -v b="$PWD/.skiff/agent/" 'index($5, a) == 1 || index($5, b) == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m"; done
	rm -rf "$run"
	ip link del "sk$h" 2>/dev/null
	find .skiff/agent/cni/networks -type f ! -name 'last_reserved_ip*' ! -name lock -delete 2>/dev/null
fi
[ -x examples/ml/down.sh ] && examples/ml/down.sh
exit 0
