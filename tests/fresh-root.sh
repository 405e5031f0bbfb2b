#!/usr/bin/env bash
# The first-run check (.ci/run): what a new user meets on a fresh Debian 12
# machine. A minimal Debian 12 root (mmdebstrap minbase + make, from this
# machine's own apt sources and apt settings) gets a clean export of the
# checkout (git archive HEAD), and inside it, in its own mount and PID
# namespace:
#   1. `make` without the packages must fail and name `make deps`;
#   2. `make deps` (scripts/deps.sh) installs every package of scripts/deps.d/;
#   3. `make` builds build/skiff, then `make toolchain-check` builds and runs
#      a cmocka probe under ASan+UBSan and TSan and a libFuzzer probe, linked
#      with every library, and imports the Python test packages (the tests
#      themselves run in .ci/run's make test, which builds every binary);
#   4. `build/skiff version` and `build/skiff server --help` run.
# A package missing from scripts/deps.d/ fails step 3 or 4 here.
#
# `tests/fresh-root.sh --demo` (by hand, not CI: it runs containers on this
# machine's network) runs the README's `make demo` as the first command in the
# root instead, then `make down`; kubectl, which Debian does not package, is
# copied in from this machine as its image has it.
#
# The base root is cached as a tarball named by a hash of everything it is made
# from (suite, packages, apt sources and settings, mmdebstrap's version) in
# $SKIFF_ROOT_CACHE (default /var/cache/skiff-ci), so only the first run pays
# for mmdebstrap. Needs root, mmdebstrap and unshare (installed here if absent).
# Environment: SKIFF_ROOT_CACHE, SKIFF_ROOT_KEEP=1 (keep the root, print its path).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
mode=${1:-check}
suite=bookworm
base_pkgs=make          # what the README's first command presupposes
cache=${SKIFF_ROOT_CACHE:-/var/cache/skiff-ci}
t0=$SECONDS
say() { printf 'fresh-root [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (mmdebstrap, chroot, mount namespaces)"
if ! command -v mmdebstrap >/dev/null || ! command -v unshare >/dev/null; then
	say "installing mmdebstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		mmdebstrap debian-archive-keyring util-linux >/dev/null
fi

# This machine's apt sources (one-line and deb822) and the apt settings that
# say how to reach them (proxies, Check-Valid-Until and the like).
sources=()
[ -f /etc/apt/sources.list ] && grep -qE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list &&
	sources+=(/etc/apt/sources.list)
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || fail "no apt sources on this machine (/etc/apt/sources.list, /etc/apt/sources.list.d/)"
aptopts=()
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
	[ -f "$f" ] && grep -q 'Acquire' "$f" && aptopts+=(--aptopt="$f")
done

# No service a package installs is started inside the root.
hook='printf "#!/bin/sh\nexit 101\n" >"$1/usr/sbin/policy-rc.d"; chmod 755 "$1/usr/sbin/policy-rc.d"'
key=$({
	echo "$suite minbase $base_pkgs"
	mmdebstrap --version
	cat "${sources[@]}"
	for o in "${aptopts[@]}"; do cat "${o#--aptopt=}"; done
	echo "$hook"
} | sha256sum | cut -c1-16)
base=$cache/base-$suite-$key.tar
mkdir -p "$cache"
if [ -f "$base" ]; then
	say "base root: cached $base"
else
	say "base root: mmdebstrap $suite (minbase + $base_pkgs) from ${sources[*]}"
	rm -f "$cache"/base-$suite-*.tar.tmp
	mmdebstrap --quiet --format=tar --variant=minbase --include="$base_pkgs" "${aptopts[@]}" \
		--customize-hook="$hook" "$suite" "$base.tmp" "${sources[@]}" ||
		fail "mmdebstrap could not make the base root"
	mv "$base.tmp" "$base"
	# keep only this key's tarball
	find "$cache" -maxdepth 1 -name "base-$suite-*.tar" ! -name "$(basename "$base")" -delete
	say "base root: made ($(du -h "$base" | cut -f1))"
fi

work=$(mktemp -d /var/tmp/skiff-fresh-root.XXXXXX)
cleanup() {
	if [ "${SKIFF_ROOT_KEEP:-0}" = 1 ]; then say "root kept in $work/fs"; return; fi
	# The namespace's mounts went with it; --one-file-system never crosses into one that did not.
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
mkdir -p "$work/fs"
tar -xf "$base" -C "$work/fs"
mkdir -p "$work/fs/src/skiff"
git -C "$src" archive --format=tar HEAD | tar -x -C "$work/fs/src/skiff"
cp /etc/resolv.conf "$work/fs/etc/resolv.conf" 2>/dev/null || true
# npm's way to the registry as this machine has it (make runs npm ci for the
# console), as the apt settings above: registry, proxies and its CA file
if command -v npm >/dev/null; then
	for k in registry proxy https-proxy noproxy strict-ssl; do
		v=$(npm config get "$k" 2>/dev/null) || continue
		case "$v" in "" | null | undefined) continue ;; esac
		echo "$k=$v" >>"$work/fs/root/.npmrc"
	done
	ca=$(npm config get cafile 2>/dev/null || true)
	if [ -f "$ca" ]; then
		cp "$ca" "$work/fs/etc/npm-ca.crt"
		echo "cafile=/etc/npm-ca.crt" >>"$work/fs/root/.npmrc"
	fi
fi
if [ "$mode" = --demo ]; then
	kc=$(readlink -f "$(command -v kubectl)") || fail "--demo: no kubectl on this machine to copy in"
	cp "$kc" "$work/fs/usr/local/bin/kubectl"
	printf 'cd /src/skiff\nmake demo || exit 1\nmake down\n' >"$work/fs/src/steps.sh"
fi
say "root ready in $work/fs ($(git -C "$src" rev-parse --short HEAD), clean export)"

[ "$mode" = --demo ] || cat >"$work/fs/src/steps.sh" <<'STEPS'
set -uo pipefail
cd /src/skiff
t0=$SECONDS
say() { printf 'fresh-root/in [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { say "FAILED: $*"; exit 1; }
say "1. make without the packages"
if out=$(make 2>&1); then fail "make succeeded with no libraries installed"; fi
echo "$out" | tail -3
echo "$out" | grep -q "make deps" || fail "make's error does not say to run 'make deps'"
echo "$out" | grep -q "undefined reference" && fail "make got as far as the link"
say "2. make deps"
make deps || fail "make deps (scripts/deps.sh) failed"
say "3. make"
make -j"$(nproc)" || fail "the build failed after make deps: a package is missing from scripts/deps.d/"
make toolchain-check >/tmp/toolchain.log 2>&1 || { tail -30 /tmp/toolchain.log
	fail "the test toolchain is incomplete after make deps: a package is missing from scripts/deps.d/"; }
say "   test toolchain: cmocka under ASan+UBSan and TSan, libFuzzer, the Python test packages"
say "4. build/skiff version; build/skiff server --help"
build/skiff version || fail "build/skiff version"
build/skiff server --help >/tmp/help.txt 2>&1 || { cat /tmp/help.txt; fail "build/skiff server --help"; }
head -3 /tmp/help.txt
say "passed"
STEPS

say "running the first-run steps inside the root"
# Own mount and PID namespaces: mounts and every process started inside end with it.
unshare --mount --pid --fork --propagation private /bin/bash -c '
	set -e
	r=$1
	mount --bind "$r" "$r"     # a mount point: crun makes / private and pivots into the rootfs
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	if [ "$2" = --demo ]; then
		mount --rbind /sys "$r/sys"     # cgroups for the pods
		mount -t tmpfs tmpfs "$r/run"
	else
		mount -t sysfs sysfs "$r/sys"
	fi
	mount -t tmpfs tmpfs "$r/tmp"
	exec chroot "$r" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		/bin/bash /src/steps.sh' _ "$work/fs" "$mode" || fail "see the step above"
say "passed"
