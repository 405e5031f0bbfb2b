#!/usr/bin/env bash
# Real-hardware GPU check (docs/GPU.md). Needs root, an NVIDIA GPU with its
# driver (nvidia-smi works on the host), the project built (`make`), and the
# tools of tests/images/build.sh (umoci, skopeo, busybox-static). nvcc is
# optional: when present a CUDA vector add is compiled (cudart static) and
# run in the pod too.
#
# It starts a one-node cluster (the embedded agent discovers the GPU through
# NVML), imports a small image (busybox plus the host's glibc, never any
# NVIDIA file: those are injected by skiff), runs a pod requesting
# nvidia.com/gpu: 1 that prints `nvidia-smi -L` and runs the vector add,
# checks the output, prints the node's GPU labels and PASS or FAIL.
# Cleans up after itself; finishes within 5 minutes.
#   sudo tests/gpu/run.sh            KEEP=1 keeps the data dir for a post-mortem;
#                                    SKIFF_SERVER_ARGS adds server flags
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SKIFF="${SKIFF_BIN:-$root/build/skiff}"
KUBECTL="$(command -v kubectl || echo /usr/bin/kubectl)"
DEADLINE=$(( $(date +%s) + 280 ))
say() { printf '==> %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; finish 1; }

[ "$(id -u)" = 0 ] || { echo "FAIL: run as root (containers, cgroups, device nodes)"; exit 1; }
[ -x "$SKIFF" ] || { echo "FAIL: $SKIFF missing: run make"; exit 1; }
command -v nvidia-smi >/dev/null || { echo "FAIL: no nvidia-smi on the host: no NVIDIA driver?"; exit 1; }

TMP="$(mktemp -d /tmp/skiff-gpu-XXXXXX)"
DATA="$TMP/data"
PORT=$(( 20000 + RANDOM % 20000 ))
SERVER_PID=""
export KUBECONFIG="$DATA/kubeconfig"
k() { timeout 60 "$KUBECTL" --cache-dir "$TMP/kcache" "$@"; }

finish() {
	local rc=$1
	trap - EXIT INT TERM
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		k delete pod gpu-smoke --wait=false >/dev/null 2>&1
		for _ in $(seq 1 60); do
			k get pod gpu-smoke >/dev/null 2>&1 || break
			sleep 1
		done
		kill -TERM "$SERVER_PID" 2>/dev/null
		for _ in $(seq 1 40); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$SERVER_PID" 2>/dev/null
	fi
	grep -o " ${TMP}[^ ]*" /proc/self/mountinfo 2>/dev/null | sort -r | while read -r m; do umount -l "$m"; done
	# the embedded agent's bridge and run dir are named after its data dir (FNV-1a)
	h="$(python3 -c 'import os, sys
h = 2166136261
for b in os.path.realpath(sys.argv[1]).encode():
    h = ((h ^ b) * 16777619) & 0xffffffff
print("%08x" % h)' "$DATA/agent" 2>/dev/null)"
	if [ -n "$h" ]; then
		ip link del "sk$h" >/dev/null 2>&1
		rm -rf "/run/skiff-$h"
	fi
	if [ -n "${KEEP:-}" ]; then
		echo "kept $TMP"
	else
		rm -rf "$TMP"
	fi
	[ "$rc" = 0 ] && echo PASS || echo FAIL
	exit "$rc"
}
trap 'finish 1' INT TERM
trap 'finish $?' EXIT

say "host: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
HOST_UUIDS="$(nvidia-smi --query-gpu=uuid --format=csv,noheader)"

# --- the test image: busybox + the host's glibc (+ the vector add) --------
say "building the test image"
IMAGES="$(bash "$root/tests/images/build.sh")" || fail "tests/images/build.sh failed"
work="$TMP/image"
mkdir -p "$work"
if command -v nvcc >/dev/null; then
	cat >"$work/vectoradd.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
int main()
{
	const int n = 1 << 20;
	size_t bytes = n * sizeof(float);
	float *a = new float[n], *b = new float[n], *c = new float[n], *da, *db, *dc;
	cudaDeviceProp p;
	int count = 0, bad = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count < 1) {
		printf("vectoradd: no device: %s\n", cudaGetErrorString(e));
		return 1;
	}
	cudaGetDeviceProperties(&p, 0);
	printf("vectoradd: %d device(s), device 0: %s\n", count, p.name);
	for (int i = 0; i < n; i++) {
		a[i] = i;
		b[i] = 2.0f * i;
	}
	cudaMalloc(&da, bytes);
	cudaMalloc(&db, bytes);
	cudaMalloc(&dc, bytes);
	cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
	add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
	e = cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		printf("vectoradd: %s\n", cudaGetErrorString(e));
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (c[i] != 3.0f * i)
			bad++;
	printf("vectoradd: %s (%d wrong of %d)\n", bad ? "WRONG" : "OK", bad, n);
	return bad != 0;
}
CU
	if nvcc -cudart static -arch=native -o "$work/vectoradd" "$work/vectoradd.cu" 2>"$work/nvcc.log" ||
		nvcc -cudart static -o "$work/vectoradd" "$work/vectoradd.cu" 2>>"$work/nvcc.log"; then
		say "compiled the vector add with $(nvcc --version | tail -1)"
	else
		rm -f "$work/vectoradd"
		say "warning: nvcc failed, no vector add (not skiff's fault): $(tail -3 "$work/nvcc.log")"
	fi
else
	say "no nvcc: skipping the CUDA vector add (nvidia-smi only)"
fi
cp -r "$IMAGES/oci" "$work/oci" || fail "copying the busybox layout failed"
umoci unpack --image "$work/oci:1" "$work/b" >/dev/null 2>&1 || fail "umoci unpack failed"
rootfs="$work/b/rootfs"
# glibc and friends for nvidia-smi and the vector add, at their host paths;
# NVIDIA's own libraries are left out on purpose: skiff must inject them.
for bin in "$(command -v nvidia-smi)" "$work/vectoradd"; do
	[ -e "$bin" ] || continue
	ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' | grep -v -e libnvidia -e libcuda | while read -r lib; do
		cp -L --parents "$lib" "$rootfs/" 2>/dev/null
	done
done
for f in /sbin/ldconfig /sbin/ldconfig.real; do
	[ -e "$f" ] && cp -L --parents "$f" "$rootfs/"
done
mkdir -p "$rootfs/etc/ld.so.conf.d"
echo "include /etc/ld.so.conf.d/*.conf" >"$rootfs/etc/ld.so.conf"
[ -e "$work/vectoradd" ] && cp "$work/vectoradd" "$rootfs/vectoradd"
if find "$rootfs" -name 'libnvidia-ml*' -o -name 'libcuda.so*' -o -name nvidia-smi | grep -q .; then
	fail "test image contains NVIDIA files"
fi
umoci repack --image "$work/oci:gpu" "$work/b" >/dev/null 2>&1 || fail "umoci repack failed"
umoci config --image "$work/oci:gpu" --tag gpu1 --config.env PATH=/bin:/usr/bin:/sbin:/usr/sbin >/dev/null 2>&1 ||
	fail "umoci config failed"
skopeo copy -q "oci:$work/oci:gpu1" "oci-archive:$work/gpu-test.tar:1" || fail "skopeo copy failed"
"$SKIFF" image import --data-dir "$DATA/agent" "$work/gpu-test.tar" --name gpu-test >/dev/null ||
	fail "skiff image import failed"

# --- the cluster -----------------------------------------------------------
say "starting skiff server on 127.0.0.1:$PORT"
mkdir -p "$DATA"
# shellcheck disable=SC2086  # SKIFF_SERVER_ARGS is a list of flags
setsid "$SKIFF" server --data-dir "$DATA" --listen "127.0.0.1:$PORT" ${SKIFF_SERVER_ARGS:-} >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 400); do
	[ -f "$KUBECONFIG" ] && [ "$(k get --raw /readyz 2>/dev/null)" = ok ] && break
	kill -0 "$SERVER_PID" 2>/dev/null || fail "server exited: $(tail -20 "$TMP/server.log")"
	sleep 0.1
done
NODE=""
for _ in $(seq 1 100); do
	NODE="$(k get nodes -o jsonpath='{.items[0].metadata.name}' 2>/dev/null)"
	[ -n "$NODE" ] && break
	sleep 0.3
done
[ -n "$NODE" ] || fail "no node registered: $(tail -20 "$TMP/server.log")"
GPUS=""
for _ in $(seq 1 30); do
	GPUS="$(k get node "$NODE" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')"
	[ -n "$GPUS" ] && [ "$GPUS" != 0 ] && break
	sleep 1
done
say "node $NODE: nvidia.com/gpu allocatable=${GPUS:-none}"
say "node GPU labels:"
k get node "$NODE" -o json | python3 -c '
import json, sys
labels = json.load(sys.stdin)["metadata"].get("labels", {})
for k in sorted(labels):
    if k.startswith(("nvidia.com/", "skiff.dev/")):
        print(f"    {k}={labels[k]}")'
[ -n "$GPUS" ] && [ "$GPUS" != 0 ] ||
	fail "the node advertises no nvidia.com/gpu (is the agent wired to src/gpu? see docs/GPU.md)"
[ "$(k get node "$NODE" -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.present}')" = true ] ||
	fail "label nvidia.com/gpu.present missing"
[ -z "$(k get node "$NODE" -o jsonpath='{.metadata.labels.skiff\.dev/gpu\.simulated}')" ] ||
	fail "the node says its GPUs are simulated"

# --- the pod ---------------------------------------------------------------
say "running a pod with nvidia.com/gpu: 1"
k apply -f - >/dev/null <<YAML || fail "kubectl apply failed"
apiVersion: v1
kind: Pod
metadata: {name: gpu-smoke}
spec:
  nodeName: $NODE
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: cuda
    image: gpu-test:1
    imagePullPolicy: Never
    command: ["sh", "-c", "echo NVIDIA_VISIBLE_DEVICES=\$NVIDIA_VISIBLE_DEVICES; echo CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES; ls -l /dev/nvidia*; nvidia-smi -L || exit 10; if [ -x /vectoradd ]; then /vectoradd || exit 11; fi; if [ -x /sbin/ldconfig ]; then ldconfig && ldconfig -p | grep -c 'libcuda.so.1' | sed 's/^/ldconfig-libcuda=/'; fi"]
    resources:
      limits: {nvidia.com/gpu: 1}
YAML
PHASE=""
while [ "$(date +%s)" -lt "$DEADLINE" ]; do
	PHASE="$(k get pod gpu-smoke -o jsonpath='{.status.phase}' 2>/dev/null)"
	case "$PHASE" in Succeeded|Failed) break ;; esac
	sleep 1
done
ANN="$(k get pod gpu-smoke -o jsonpath='{.metadata.annotations.skiff\.dev/gpu-devices}')"
LOGS="$(k logs gpu-smoke 2>&1)"
printf '%s\n' "--- pod log" "$LOGS" "--- annotation skiff.dev/gpu-devices: ${ANN:-none}" "---"
if [ "$PHASE" != Succeeded ]; then
	k describe pod gpu-smoke | tail -25
	tail -30 "$TMP/server.log"
	fail "pod phase ${PHASE:-unknown}, not Succeeded"
fi
VISIBLE="$(printf '%s\n' "$LOGS" | sed -n 's/^NVIDIA_VISIBLE_DEVICES=//p')"
[ -n "$VISIBLE" ] && printf '%s\n' "$HOST_UUIDS" | grep -qx "$VISIBLE" ||
	fail "NVIDIA_VISIBLE_DEVICES=$VISIBLE is not one host GPU UUID"
printf '%s\n' "$LOGS" | grep -q "^GPU 0: .*(UUID: $VISIBLE)" || fail "nvidia-smi -L does not list $VISIBLE as GPU 0"
# Other GPUs' /proc/driver/nvidia/gpus entries are not masked (docs/GPU.md):
# on a multi-GPU host nvidia-smi may mention them; only warn.
[ "$(printf '%s\n' "$LOGS" | grep -c '^GPU [0-9]')" = 1 ] || say "warning: nvidia-smi lists more than one GPU"
if [ -e "$work/vectoradd" ]; then
	printf '%s\n' "$LOGS" | grep -q '^vectoradd: OK' || fail "the vector add did not report OK"
fi
if [ -e /sbin/ldconfig ]; then
	printf '%s\n' "$LOGS" | grep -q '^ldconfig-libcuda=[1-9]' || fail "ldconfig in the container does not find libcuda.so.1"
fi
[ -z "$ANN" ] || printf '%s' "$ANN" | grep -q "$VISIBLE" || fail "annotation does not name $VISIBLE"
finish 0
