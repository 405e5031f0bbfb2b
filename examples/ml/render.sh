#!/usr/bin/env bash
# render.sh TEMPLATE KEY=VALUE... : prints the manifest with every @KEY@
# replaced; fails if a placeholder is left. Used by demo.sh, e.g.
#   render.sh manifests/train-job.yaml NS=ml NAME=train-v1 IMAGE=127.0.0.1:5000/x@sha256:...
set -euo pipefail
tmpl="$1"; shift
args=()
for kv in "$@"; do
	k="${kv%%=*}" v="${kv#*=}"
	v="${v//\\/\\\\}"; v="${v//|/\\|}"; v="${v//&/\\&}"
	args+=(-e "s|@$k@|$v|g")
done
out="$(sed -e "" "${args[@]}" "$tmpl")"
if grep -q '@[A-Z_]*@' <<<"$out"; then
	echo "render.sh: $tmpl: unset placeholders: $(grep -o '@[A-Z_]*@' <<<"$out" | sort -u | tr '\n' ' ')" >&2
	exit 1
fi
printf '%s\n' "$out"
