#!/usr/bin/env bash
# make down: stop the cluster that `make demo` started.
set -u
cd "$(dirname "$0")/.."
pidf=.skiff/server.pid
if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then
	kill -TERM "$(cat "$pidf")"
	for _ in $(seq 1 100); do kill -0 "$(cat "$pidf")" 2>/dev/null || break; sleep 0.1; done
	echo "skiff stopped"
else
	echo "skiff is not running"
fi
rm -f "$pidf"
[ -x examples/ml/down.sh ] && examples/ml/down.sh
exit 0
