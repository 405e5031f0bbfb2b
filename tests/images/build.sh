#!/usr/bin/env bash
# Builds the image service's test images with real tools (umoci, skopeo,
# busybox-static, python3) into build/images/<hash of these scripts>/ and
# prints that directory. Cached: a second run with unchanged scripts is free.
#   busybox-oci.tar     OCI layout archive, tag "1": busybox-static + links
#   app-oci.tar         OCI layout archive, tag "2": the same base layer + one more
#   app-docker.tar      the same as a `docker save` archive, busybox:2
#   oci/                the OCI layout both come from (tags 1, 2[, big])
#   layers/             hand-made layers: malicious, whiteouts, benign (layers.py)
#   BIG=1 also adds tag "big": 4 layers of random data (~50 MiB each)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
hash="$(cat "$here/build.sh" "$here/layers.py" | sha256sum | cut -c1-16)"
out="$root/build/images/$hash"
if [ -f "$out/.done" ] && { [ -z "${BIG:-}" ] || [ -f "$out/.big" ]; }; then
	echo "$out"; exit 0
fi
mkdir -p "$out"
exec 9>"$out/.lock"; flock 9
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -f "$out/.done" ]; then
	rm -rf "$out/oci" "$out"/*.tar "$out/layers"
	/usr/bin/python3 "$here/layers.py" "$out/layers"
	umoci init --layout "$out/oci" >&2
	umoci new --image "$out/oci:base" >&2
	umoci unpack --image "$out/oci:base" "$work/b1" >&2
	mkdir -p "$work/b1/rootfs/bin" "$work/b1/rootfs/etc" "$work/b1/rootfs/tmp"
	cp /bin/busybox "$work/b1/rootfs/bin/busybox"
	chroot "$work/b1/rootfs" /bin/busybox --install -s /bin
	echo "root:x:0:0:root:/root:/bin/sh" > "$work/b1/rootfs/etc/passwd"
	umoci repack --image "$out/oci:base" "$work/b1" >&2
	umoci config --image "$out/oci:base" --tag 1 --config.cmd sh --config.entrypoint "" \
		--config.env PATH=/bin:/usr/bin --config.workingdir / --config.label skiff.test=busybox >&2
	umoci unpack --image "$out/oci:1" "$work/b2" >&2
	echo "hello from layer 2" > "$work/b2/rootfs/etc/app.txt"
	rm -f "$work/b2/rootfs/bin/vi"
	umoci repack --image "$out/oci:2" "$work/b2" >&2
	umoci config --image "$out/oci:2" --config.entrypoint /bin/sh --config.cmd "-c" \
		--config.cmd "cat /etc/app.txt" --config.user 1000 >&2
	umoci gc --layout "$out/oci" >&2
	skopeo copy -q "oci:$out/oci:1" "oci-archive:$out/busybox-oci.tar:1" >&2
	skopeo copy -q "oci:$out/oci:2" "oci-archive:$out/app-oci.tar:2" >&2
	skopeo copy -q "oci:$out/oci:2" "docker-archive:$out/app-docker.tar:busybox:2" >&2
	touch "$out/.done"
fi
if [ -n "${BIG:-}" ] && [ ! -f "$out/.big" ]; then
	umoci unpack --image "$out/oci:1" "$work/big" >&2
	for i in 1 2 3 4; do
		head -c 50M /dev/urandom > "$work/big/rootfs/data$i.bin"
		umoci repack --image "$out/oci:big" "$work/big" >&2
		rm -rf "$work/big"
		umoci unpack --image "$out/oci:big" "$work/big" >&2
	done
	touch "$out/.big"
fi
echo "$out"
