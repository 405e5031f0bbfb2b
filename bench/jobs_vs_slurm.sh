#!/usr/bin/env bash
# N one-second batch jobs on one node: skiff (batch/v1 Jobs) against Slurm
# (sbatch --wrap), in the same invocation, alternating, each on a fresh
# one-node cluster on loopback. Needs root, build/skiff, kubectl, the node
# agent's runtime tools and Debian's slurmctld/slurmd/slurm-client/munge
# (scripts/deps.d/slurm.txt).
#
#   bench/jobs_vs_slurm.sh [N]         N jobs per run (default 1000)
#   ROUNDS=2        rounds; round r runs skiff first when r is odd, Slurm first when even
#   CONC=10         jobs running at once on both sides (see below)
#   SLEEP=1         what each job runs: sleep $SLEEP
#   TTL=-           skiff: ttlSecondsAfterFinished on every Job ('-' = unset,
#                   Jobs are deleted after the measurement)
#   ONLY=skiff|slurm  run one side only
#
# Throughput = N / (time from the first submission to the last completion);
# submission time counts on both sides. "cpu s": CPU seconds used during the
# measurement by the skiff server process / by slurmctld + slurmd, each with the
# children it reaped (not the per-job supervisors conmon / slurmstepd, which are
# daemonized) -- less sensitive to the load of a shared machine than wall-clock.
#  Slurm: NodeName=localhost CPUs=$CONC (SlurmdParameters=config_overrides), CR_Core,
#         1 CPU per job -> at most CONC jobs at once; 1000 sequential
#         `sbatch --wrap 'sleep 1'`; done when `squeue` (polled every 0.2 s) is empty.
#  skiff: `skiff server` with its embedded node agent, busybox image imported,
#         every pod requests allocatable_cpu/CONC (2 CPUs, CONC 10 -> 200m) -> at most
#         CONC pods at once; one `kubectl create --validate=false -f` of N Jobs (one YAML
#         file, one request after the other; KUBECTL_VALIDATE=strict for kubectl's default
#         client-side validation, see bench/jobs_skiff.py); done when a watch has seen every
#         Job Complete (bench/jobs_skiff.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
N="${1:-1000}"
ROUNDS="${ROUNDS:-2}"
CONC="${CONC:-10}"
SLEEP="${SLEEP:-1}"
TTL="${TTL:--}"
ONLY="${ONLY:-}"

die() { echo "jobs_vs_slurm: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (containers, munged, slurmd)"
for t in kubectl munged slurmctld slurmd sbatch squeue sinfo; do
	command -v "$t" >/dev/null || die "missing $t (scripts/deps.sh installs scripts/deps.d/slurm.txt)"
done
[ -x build/skiff ] || die "build/skiff missing (make)"

work="$(mktemp -d /tmp/skiff-jobs-vs-slurm-XXXXXX)"
# A private copy: other engineers may rebuild build/skiff during the run.
cp build/skiff "$work/skiff"
images="$(bash tests/images/build.sh | tail -n1)"
pids=()

stop_pid() {  # stop_pid PID [timeout]: SIGTERM, then SIGKILL
	local p=$1 t=${2:-30} i
	kill -0 "$p" 2>/dev/null || return 0
	kill -TERM "$p" 2>/dev/null || true
	for ((i = 0; i < t * 10; i++)); do
		kill -0 "$p" 2>/dev/null || { wait "$p" 2>/dev/null || true; return 0; }
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
cleanup() {
	local i
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}" 10; done
	pids=()
	# The agent may leave rootfs overlays mounted in the data dir: unmount those.
	grep -o " $work/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done || true
	rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
cpu_of() {  # cpu_of PID...: CPU seconds of the processes and their reaped children
	local p tot=0 tick
	tick=$(getconf CLK_TCK)
	for p in "$@"; do
		tot=$((tot + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13 + $14 + $15}')))
	done
	echo "$tot $tick" | awk '{printf "%.2f", $1 / $2}'
}
wait_until() {  # wait_until SECONDS WHAT CMD...: poll CMD every 0.2 s
	local t=$1 what=$2 i
	shift 2
	for ((i = 0; i < t * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "jobs_vs_slurm: timed out waiting for $what" >&2
	return 1
}

results="$work/results"
: > "$results"

run_slurm() {
	local r=$1 d="$work/slurm-$1" ctld_pid slurmd_pid munge_pid t0 t1 t2 left i ok
	mkdir -p "$d/munge" "$d/state" "$d/spool"
	chmod 700 "$d/munge"
	head -c 1024 /dev/urandom > "$d/munge/munge.key"
	chmod 400 "$d/munge/munge.key"
	munged -F --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
		--log-file="$d/munge/munged.log" --pid-file="$d/munge/munged.pid" \
		--seed-file="$d/munge/munged.seed" 2>>"$d/munge/munged.err" &
	munge_pid=$!
	pids+=("$munge_pid")
	wait_until 10 "munged" test -S "$d/munge/munge.socket" || { cat "$d/munge/munged.err" >&2; return 1; }
	sed -e "s|@DIR@|$d|g" -e "s|@CTLD_PORT@|$(free_port)|" -e "s|@SLURMD_PORT@|$(free_port)|" \
		-e "s|@CPUS@|$CONC|" bench/slurm/slurm.conf.in > "$d/slurm.conf"
	export SLURM_CONF="$d/slurm.conf"
	slurmctld -D -i -f "$SLURM_CONF" >>"$d/slurmctld.out" 2>&1 &
	ctld_pid=$!
	pids+=("$ctld_pid")
	slurmd -D -N localhost -f "$SLURM_CONF" >>"$d/slurmd.out" 2>&1 &
	slurmd_pid=$!
	pids+=("$slurmd_pid")
	if ! wait_until 60 "Slurm node idle" sh -c '[ "$(sinfo -h -n localhost -o %t)" = idle ]'; then
		tail -n 20 "$d/slurmctld.log" "$d/slurmd.log" >&2
		return 1
	fi
	cd "$d"
	c0=$(cpu_of "$ctld_pid" "$slurmd_pid")
	t0=$(now)
	for ((i = 0; i < N; i++)); do
		sbatch -Q --wrap "sleep $SLEEP" -o /dev/null -J "sleep-$i" >/dev/null
	done
	t1=$(now)
	while :; do
		left=$(squeue -h -o %i | wc -l)
		[ "$left" -eq 0 ] && break
		sleep 0.2
	done
	t2=$(now)
	c1=$(cpu_of "$ctld_pid" "$slurmd_pid")
	cd "$root"
	ok=$(scontrol show job -o | grep -c 'JobState=COMPLETED' || true)
	stop_pid "$slurmd_pid"
	stop_pid "$ctld_pid"
	stop_pid "$munge_pid"
	unset SLURM_CONF
	/usr/bin/python3 - "$r" "$N" "$t0" "$t1" "$t2" "$ok" "$c0" "$c1" >>"$results" <<-'EOF'
	import json, sys
	r, n, t0, t1, t2, ok, c0, c1 = sys.argv[1:]
	n, t0, t1, t2 = int(n), float(t0), float(t1), float(t2)
	print(json.dumps({"side": "slurm", "round": int(r), "jobs": n, "completed": int(ok),
	                  "create_s": round(t1 - t0, 3), "total_s": round(t2 - t0, 3),
	                  "jobs_per_s": round(n / (t2 - t0), 3), "cpu_s": round(float(c1) - float(c0), 1)}))
	EOF
	tail -n1 "$results"
}

run_skiff() {
	local r=$1 d="$work/skiff-$1" port image alloc req srv_pid rc=0
	mkdir -p "$d/agent"
	image=$("$work/skiff" image import "$images/busybox-oci.tar" --name busybox --data-dir "$d/agent" |
		awk '/^imported/ {print $2; exit}')
	[ -n "$image" ] || die "skiff image import printed no image name"
	port=$(free_port)
	"$work/skiff" server --data-dir "$d" --listen "127.0.0.1:$port" --node-name bench >"$d/server.log" 2>&1 &
	srv_pid=$!
	pids+=("$srv_pid")
	local kc=(kubectl --kubeconfig "$d/kubeconfig")
	wait_until 60 "skiff node Ready" sh -c "kubectl --kubeconfig '$d/kubeconfig' get node bench \
		-o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True" ||
		{ tail -n 40 "$d/server.log" >&2; return 1; }
	alloc=$("${kc[@]}" get node bench -o jsonpath='{.status.allocatable.cpu}')
	case "$alloc" in
		*m) alloc=${alloc%m} ;;
		*) alloc=$((alloc * 1000)) ;;
	esac
	req="$((alloc / CONC))m"
	echo "skiff round $r: node allocatable cpu ${alloc}m, each pod requests $req -> at most $CONC at once" >&2
	SKIFF_PID=$srv_pid /usr/bin/python3 bench/jobs_skiff.py "$d/kubeconfig" "$image" "$N" "$req" "$SLEEP" "$TTL" >"$d/result.json" || rc=$?
	stop_pid "$srv_pid"
	if [ $rc -ne 0 ] || ! grep -q jobs_per_s "$d/result.json"; then
		echo "skiff round $r failed: $(cat "$d/result.json")" >&2
		echo "--- server log (last 40 lines) ---" >&2
		tail -n 40 "$d/server.log" >&2
		cp "$d/server.log" "/tmp/jobs_vs_slurm-skiff-server-$r.log" 2>/dev/null &&
			echo "(full log kept in /tmp/jobs_vs_slurm-skiff-server-$r.log)" >&2
		return 1
	fi
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d={"side":"skiff","round":int(sys.argv[2]),**d}; print(json.dumps(d))' \
		"$d/result.json" "$r" >>"$results"
	tail -n1 "$results"
}

echo "jobs_vs_slurm: $N jobs of 'sleep $SLEEP', at most $CONC at once, $ROUNDS round(s), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), skiff $(git rev-parse --short HEAD), $(slurmctld -V)," \
	"kubectl --validate=${KUBECTL_VALIDATE:-false}" >&2
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="skiff slurm"; else order="slurm skiff"; fi
	for side in $order; do
		[ -n "$ONLY" ] && [ "$ONLY" != "$side" ] && continue
		"run_$side" "$r" || die "$side round $r failed"
	done
done

/usr/bin/python3 - "$results" "$N" "$CONC" "$SLEEP" <<-'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n, conc, sleep = sys.argv[2:5]
med = {}
print(f"\n{n} jobs of 'sleep {sleep}', at most {conc} at once (ideal {int(conc) / float(sleep):.1f} jobs/s)")
print(f"{'side':6} {'runs':>4} {'jobs/s (median)':>16} {'all runs':>24} {'submit s':>9} {'total s':>8} {'cpu s':>6}")
for side in ("skiff", "slurm"):
    rs = [x for x in rows if x["side"] == side]
    if not rs:
        continue
    med[side] = statistics.median(x["jobs_per_s"] for x in rs)
    print(f"{side:6} {len(rs):>4} {med[side]:>16.2f} {' '.join('%.2f' % x['jobs_per_s'] for x in rs):>24} "
          f"{statistics.median(x['create_s'] for x in rs):>9.1f} {statistics.median(x['total_s'] for x in rs):>8.1f} "
          f"{statistics.median(x.get('cpu_s', 0) for x in rs):>6.1f}")
pf = [x.get("pods_failed", 0) for x in rows if x["side"] == "skiff"]
if pf:
    print(f"skiff pods rejected by the node and retried (OutOfcpu), per run: {' '.join(map(str, pf))}")
if len(med) == 2:
    print(f"skiff/slurm throughput ratio: {med['skiff'] / med['slurm']:.2f}")
EOF
