#!/usr/bin/env bash
# Installs every Debian package that skiff's build, tests and runtime need.
# Package lists live in scripts/deps.d/*.txt (one package a line, '#' comments),
# one file per subsystem. Idempotent and quiet when everything is present.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
want=$(cat "$here"/deps.d/*.txt | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
# A name an installed package provides counts as installed (e.g. npm, which
# a nodejs package from another archive may carry and conflict with).
provided=$(dpkg-query -W -f='${Status}\t${Provides}\n' 2>/dev/null | awk -F'\t' '$1 == "install ok installed" { print $2 }' |
	tr ',' '\n' | sed 's/(.*//; s/[[:space:]]//g; /^$/d' | sort -u)
missing=()
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		grep -qxF "$p" <<<"$provided" || missing+=("$p")
done
# etcd's .proto files (not a package of their own: scripts/etcd-proto.sh)
[ ${#missing[@]} -eq 0 ] && exec bash "$here/etcd-proto.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]} (run as root to install)" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
bash "$here/etcd-proto.sh"
