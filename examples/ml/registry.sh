#!/usr/bin/env bash
# A loopback OCI registry for the example: Debian's docker-registry
# (distribution) on 127.0.0.1:$ML_REGISTRY_PORT (default 5000, or the next
# free port up to 5019), storage in $ML_REGISTRY_DIR (default .skiff/registry).
#   registry.sh start    start it in the background (no-op if running); prints HOST:PORT
#   registry.sh stop     stop it
#   registry.sh addr     print HOST:PORT of the running registry
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${ML_REGISTRY_DIR:-${SKIFF_DATA:-$root/.skiff}/registry}"
pidf="$dir/registry.pid"

running() { [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
answers() { curl -fs -o /dev/null --max-time 1 "http://127.0.0.1:$1/v2/"; }

case "${1:-}" in
start)
	mkdir -p "$dir"
	if running && answers "$(cat "$dir/port")"; then
		echo "127.0.0.1:$(cat "$dir/port")"
		exit 0
	fi
	port="${ML_REGISTRY_PORT:-}"
	if [ -z "$port" ]; then
		for p in $(seq 5000 5019); do port_busy "$p" || { port=$p; break; }; done
		[ -n "$port" ] || { echo "registry.sh: no free port in 5000-5019 (set ML_REGISTRY_PORT)" >&2; exit 1; }
	elif port_busy "$port"; then
		echo "registry.sh: port $port is in use" >&2
		exit 1
	fi
	cat >"$dir/config.yml" <<CFG
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
CFG
	echo "$port" >"$dir/port"
	setsid /usr/bin/docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 </dev/null &
	echo $! >"$pidf"
	for _ in $(seq 1 200); do
		answers "$port" && { echo "127.0.0.1:$port"; exit 0; }
		kill -0 "$(cat "$pidf")" 2>/dev/null || break
		sleep 0.05
	done
	echo "registry.sh: docker-registry did not start:" >&2
	tail -5 "$dir/registry.log" >&2
	exit 1
	;;
stop)
	if running; then
		pid="$(cat "$pidf")"
		kill -TERM "$pid"
		for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
		echo "registry stopped"
	fi
	rm -f "$pidf"
	;;
addr)
	running && echo "127.0.0.1:$(cat "$dir/port")"
	;;
*)
	echo "usage: $0 start|stop|addr" >&2
	exit 2
	;;
esac
