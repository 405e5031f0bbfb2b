#!/usr/bin/env bash
# etcd v3's .proto files for the store's gRPC transport (src/store/etcd.c):
# rpc.proto, kv.proto and auth.proto of Debian's golang-etcd-server-dev (the
# version of etcd-server), extracted to $DEST without installing that package
# (it pulls ~145 others). Run by scripts/deps.sh as root; idempotent.
set -euo pipefail
DEST=${DEST:-/usr/local/share/skiff/etcd-proto}
src=./usr/share/gocode/src/go.etcd.io/etcd
files=(etcdserver/etcdserverpb/rpc.proto mvcc/mvccpb/kv.proto auth/authpb/auth.proto)
have=1
for f in "${files[@]}"; do [ -s "$DEST/$f" ] || have=0; done
[ $have -eq 1 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "etcd-proto.sh: etcd's .proto files are missing from $DEST (run 'make deps' as root)" >&2
	exit 1
fi
cache=/var/cache/skiff/etcd-proto
mkdir -p "$cache" "$DEST"
chmod 755 "$cache"
deb=$(ls "$cache"/golang-etcd-server-dev_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	# apt's sandbox user must be able to write the cache dir
	(cd "$cache" && apt-get download -q golang-etcd-server-dev >/dev/null 2>&1) ||
		{ apt-get update -qq >/dev/null && (cd "$cache" && apt-get download -q golang-etcd-server-dev >/dev/null 2>&1); }
	deb=$(ls "$cache"/golang-etcd-server-dev_*.deb | head -1)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "${files[@]/#/$src/}"
for f in "${files[@]}"; do
	install -D -m 644 "$tmp/$src/$f" "$DEST/$f"
done
echo "etcd-proto.sh: etcd's .proto files in $DEST"
