#!/usr/bin/env bash
# Builds a test image with Debian's python3 and python3-kubernetes (the
# official Python client), for pods that call the API with
# config.load_incluster_config(), as examples/ml/build-image.sh builds its
# image: mmdebstrap --variant=essential from the Debian mirror of this
# machine's apt sources (SKIFF_DEBIAN_MIRROR overrides it), then umoci.
# Writes build/images/pyclient-<hash>/pyclient-oci.tar (an OCI archive, tag
# "1") and prints its path. Cached by a hash of this script, the mirror and
# the suite. Needs root, mmdebstrap, umoci and skopeo.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mirror="${SKIFF_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
	mirror="$(bash "$root/scripts/apt-mirror.sh")" ||
		{ echo "build-python-client.sh: set SKIFF_DEBIAN_MIRROR to a Debian mirror URL" >&2; exit 1; }
fi
suite=bookworm
pkgs=python3-minimal,python3-kubernetes
key="$( { printf '%s\n' "$suite" "$mirror" "$pkgs"; cat "$here/build-python-client.sh"; } | sha256sum | cut -c1-16)"
out="$root/build/images/pyclient-$key"
if [ -f "$out/.done" ]; then
	echo "$out/pyclient-oci.tar"; exit 0
fi
mkdir -p "$out" "$root/build/images/debs"
exec 9>"$out/.lock"; flock 9
if [ -f "$out/.done" ]; then
	echo "$out/pyclient-oci.tar"; exit 0
fi
work="$(mktemp -d /tmp/skiff-pyclient.XXXXXX)"
trap 'rm -rf "$work"' EXIT
debs="$root/build/images/debs"
mmdebstrap --variant=essential --include="$pkgs" \
	--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
	--skip=download/empty \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
	--setup-hook="sync-in '$debs' /var/cache/apt/archives/" \
	--customize-hook="sync-out /var/cache/apt/archives '$debs'" \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	"$suite" "$work/rootfs" "deb $mirror $suite main" >"$work/mmdebstrap.log" 2>&1 ||
	{ tail -40 "$work/mmdebstrap.log" >&2; exit 1; }
find "$work/rootfs/dev" -mindepth 1 -delete
rm -rf "$work/rootfs/var/cache/apt"/* "$work/rootfs/var/lib/apt/lists"/* "$work/rootfs/var/log"/*
# ca-certificates names a few files and links in UTF-8, which `skiff image
# import` (libarchive in the C locale) refuses: pods use the cluster's CA
LC_ALL=C find "$work/rootfs" \( -name '*[! -~]*' -o -type l -lname '*[! -~]*' \) -prune -exec rm -rf {} +
umoci init --layout "$work/oci" >&2
umoci new --image "$work/oci:new" >&2
umoci unpack --image "$work/oci:new" "$work/bundle" >/dev/null
rm -rf "$work/bundle/rootfs"
mv "$work/rootfs" "$work/bundle/rootfs"
umoci repack --image "$work/oci:1" --history.created_by "mmdebstrap --include=$pkgs" "$work/bundle" >&2
umoci config --image "$work/oci:1" --config.entrypoint "" --config.cmd python3 \
	--config.env PATH=/usr/local/bin:/usr/bin:/bin --config.env PYTHONUNBUFFERED=1 \
	--config.env PYTHONDONTWRITEBYTECODE=1 --config.workingdir / >&2
umoci gc --layout "$work/oci" >&2
skopeo copy -q "oci:$work/oci:1" "oci-archive:$out/pyclient-oci.tar:1" >&2
touch "$out/.done"
echo "$out/pyclient-oci.tar"
