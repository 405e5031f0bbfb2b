#!/usr/bin/env bash
# Builds the example's OCI image from Debian packages, in three layers ordered
# from slowest- to fastest-changing:
#   1. base     a minimal Debian 12 rootfs (mmdebstrap --variant=essential)
#   2. runtime  python3-minimal + python3-numpy (and their dependencies)
#   3. code     /app/*.py of this example
# into the OCI layout $ML_IMAGE_CACHE/oci (default build/ml-image/oci) and
# prints "<layout>:<tag>" on stdout. Cached: layers 1+2 are keyed by a hash of
# this script and the Debian mirror/suite/packages, layer 3 by a hash of the
# code, so a second run with unchanged inputs does nothing and a code change
# only rebuilds the last layer. Packages come from SKIFF_DEBIAN_MIRROR, by
# default the Debian mirror of this machine's apt sources (scripts/apt-mirror.sh).
# Needs root (mmdebstrap, umoci unpack).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${ML_IMAGE_CACHE:-$root/build/ml-image}"
mirror="${SKIFF_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
	mirror="$(bash "$root/scripts/apt-mirror.sh")" ||
		{ echo "build-image.sh: set SKIFF_DEBIAN_MIRROR to a Debian mirror URL" >&2; exit 1; }
fi
suite=bookworm
pkgs=python3-minimal,python3-numpy
code=(mlcore.py train.py serve.py score.py query.py)

rt_key="$( { printf '%s\n' "$suite" "$mirror" "$pkgs"; cat "$here/build-image.sh"; } | sha256sum | cut -c1-12)"
code_key="$( (cd "$here" && cat "${code[@]}") | sha256sum | cut -c1-12)"
layout="$cache/oci"
tag="app-$rt_key-$code_key"
log() { printf '    %s\n' "$*" >&2; }
has_tag() { [ -d "$layout" ] && umoci ls --layout "$layout" 2>/dev/null | grep -qx "$1"; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if has_tag "$tag"; then
	log "image cached: $layout:$tag"
	echo "$layout:$tag"
	exit 0
fi
work="$(mktemp -d "$cache/work.XXXXXX")"
trap 'rm -rf "$work"' EXIT
[ -d "$layout" ] || umoci init --layout "$layout"

if ! has_tag "runtime-$rt_key"; then
	log "mmdebstrap: Debian $suite essential + $pkgs from $mirror (downloads ~40 MB)"
	t0=$SECONDS
	# The essential hook snapshots the rootfs after the Essential:yes packages
	# are installed: that is layer 1. The finished rootfs minus layer 1 is layer 2.
	mkdir -p "$cache/debs"
	# downloaded .debs are kept in $cache/debs (sync-in/sync-out) for rebuilds
	mmdebstrap --verbose --logfile="$work/mmdebstrap.log" --variant=essential --include="$pkgs" \
		--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
		--skip=download/empty --skip=essential/unlink \
		--setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
		--setup-hook="sync-in '$cache/debs' /var/cache/apt/archives/" \
		--customize-hook="sync-out /var/cache/apt/archives '$cache/debs'" \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
		--essential-hook="tar -C \"\$1\" --one-file-system --exclude=./var/lib/apt/lists/* \
			--exclude=./var/cache/apt/* --exclude=./dev/* -cf '$work/base.tar' ." \
		"$suite" "$work/rootfs" "deb $mirror $suite main" ||
		{ tail -40 "$work/mmdebstrap.log" >&2; exit 1; }
	find "$work/rootfs/dev" -mindepth 1 -delete
	rm -rf "$work/rootfs/var/cache/apt"/* "$work/rootfs/var/lib/apt/lists"/* "$work/rootfs/var/log"/*
	log "rootfs $(du -sh "$work/rootfs" | cut -f1) in $((SECONDS - t0))s"

	umoci new --image "$layout:new-$rt_key"
	umoci unpack --image "$layout:new-$rt_key" "$work/bundle" >/dev/null
	tar -C "$work/bundle/rootfs" -xpf "$work/base.tar"
	umoci repack --image "$layout:base-$rt_key" \
		--history.created_by "mmdebstrap --variant=essential $suite" \
		--history.comment "layer 1: minimal Debian rootfs" "$work/bundle"
	umoci unpack --image "$layout:base-$rt_key" "$work/bundle2" >/dev/null
	rm -rf "$work/bundle2/rootfs"
	mv "$work/rootfs" "$work/bundle2/rootfs"
	umoci repack --image "$layout:runtime-$rt_key" \
		--history.created_by "mmdebstrap --include=$pkgs" \
		--history.comment "layer 2: python3 and numpy" "$work/bundle2"
	umoci rm --image "$layout:new-$rt_key"
	rm -rf "$work/bundle" "$work/bundle2" "$work/base.tar"
fi

log "adding the code layer (/app)"
umoci unpack --image "$layout:runtime-$rt_key" "$work/app" >/dev/null
mkdir -p "$work/app/rootfs/app"
for f in "${code[@]}"; do install -m 0644 "$here/$f" "$work/app/rootfs/app/$f"; done
umoci repack --image "$layout:$tag" --history.created_by "install examples/ml/*.py /app/" \
	--history.comment "layer 3: the example's code" "$work/app"
umoci config --image "$layout:$tag" --config.entrypoint "" --config.cmd python3 --config.cmd /app/serve.py \
	--config.env PATH=/usr/local/bin:/usr/bin:/bin --config.env PYTHONUNBUFFERED=1 \
	--config.env PYTHONDONTWRITEBYTECODE=1 --config.env OMP_NUM_THREADS=1 --config.workingdir /app \
	--config.label org.opencontainers.image.title=skiff-ml-example \
	--config.label org.opencontainers.image.source=examples/ml
# keep the cached runtime and the newest code layer; drop older app tags
for t in $(umoci ls --layout "$layout"); do
	case "$t" in app-*) [ "$t" = "$tag" ] || umoci rm --image "$layout:$t" ;; esac
done
umoci gc --layout "$layout"
log "image built: $layout:$tag"
echo "$layout:$tag"
