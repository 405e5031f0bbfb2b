#!/usr/bin/env bash
# Image pull benchmark: cold pull + unpack of a ~540 MB, 7-layer gzip image
# from a loopback docker-registry, skiff against containerd 1.6 (`ctr image
# pull`), alternating, RUNS (default 5) runs each; prints every run, the
# medians and the ratio. Details in bench/image_bench.py; figures quoted in
# docs/BENCHMARKS.md ("Image pull"). Needs root and the packages in
# scripts/deps.d/bench.txt and image.txt.
#   bash bench/image_pull.sh [--runs N] [--only skiff|containerd]
set -euo pipefail
cd "$(dirname "$0")/.."
for t in containerd ctr docker-registry skopeo; do
	command -v "$t" >/dev/null || { echo "image_pull: $t missing (scripts/deps.sh)"; exit 0; }
done
if [ "$(id -u)" != 0 ]; then
	echo "image_pull: needs root (containerd, overlay snapshots); skipped"
	exit 0
fi
[ -x build/skiff ] || make -j2 build/skiff >&2
echo "command: bash bench/image_pull.sh $*"
exec /usr/bin/python3 bench/image_bench.py "$@"
