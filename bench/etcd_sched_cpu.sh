#!/usr/bin/env bash
# Where the CPU goes when the scheduler runs on etcd: `skiff bench` (5,000
# hollow nodes, 10,000 pods) on a fresh one-member etcd, with the bench
# process's CPU and context switches (/usr/bin/time) and etcd's own CPU,
# WAL fsyncs and proposals over the run, then the same bench on SQLite.
#   bash bench/etcd_sched_cpu.sh [build/skiff] [extra skiff bench flags…]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
shift || true
ports() { python3 -c 'import socket; a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0)); print(a.getsockname()[1], b.getsockname()[1])'; }
dir=$(mktemp -d /tmp/skiff-etcd-cpu-XXXXXX)
pid=
stop_etcd() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=; fi; }
trap 'stop_etcd; rm -rf "$dir"' EXIT
read -r cport pport < <(ports)
etcd --data-dir "$dir/data" --listen-client-urls "http://127.0.0.1:$cport" \
	--advertise-client-urls "http://127.0.0.1:$cport" --listen-peer-urls "http://127.0.0.1:$pport" \
	--initial-advertise-peer-urls "http://127.0.0.1:$pport" --quota-backend-bytes 8589934592 \
	--initial-cluster "default=http://127.0.0.1:$pport" >"$dir/etcd.log" 2>&1 &
pid=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$cport/health" >/dev/null && break; sleep 0.05; done
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; } # utime + stime, in clock ticks
t0=$(cpu)
echo "== scheduler on etcd"
/usr/bin/time -f "process: wall %es user %Us sys %Ss voluntary context switches %w involuntary %c" \
	"$bin" bench --nodes 5000 --pods 10000 --workers 64 "$@" --datastore-endpoint "etcd://127.0.0.1:$cport"
t1=$(cpu)
echo "etcd CPU during the run: $(((t1 - t0) * 1000 / $(getconf CLK_TCK))) ms"
curl -s "http://127.0.0.1:$cport/metrics" |
	grep -E '^etcd_disk_wal_fsync_duration_seconds_(sum|count)|^etcd_server_proposals_committed_total' || true
stop_etcd
echo "== scheduler on SQLite"
/usr/bin/time -f "process: wall %es user %Us sys %Ss voluntary context switches %w involuntary %c" \
	"$bin" bench --nodes 5000 --pods 10000 --workers 64 "$@"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
