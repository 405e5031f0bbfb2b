#!/usr/bin/env bash
# make check-generated: fails when committed generated code is not what its generator makes.
#   scripts/check-generated.sh REF [K8S_API_REPO APIMACHINERY_REPO]
# REF is the pinned k8s.io/api tag (the Makefile's K8S_API_REF). Renders
# src/api/protobuf-types.c again from scripts/gen/k8s-protobuf-REF.tsv and compares; given the
# upstream git repositories, also extracts the description again and compares it. Needs no
# network and no upstream checkout without them. Also checks that REF is the Kubernetes minor
# version skiff serves (SK_KUBE_MINOR in src/util/version.h) and that no other description is left.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || [ $# -eq 3 ] || { echo "usage: $0 REF [K8S_API_REPO APIMACHINERY_REPO]" >&2; exit 2; }
ref=$1
py=${PYTHON:-python3}
desc=scripts/gen/k8s-protobuf-$ref.tsv
out=src/api/protobuf-types.c
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check-generated: $*" >&2; fail=1; }

minor="$(sed -n 's/^#define SK_KUBE_MINOR "\([0-9]*\)"$/\1/p' src/util/version.h)"
case "$ref" in
v0."$minor".*) ;;
*) bad "$desc describes k8s.io/api $ref, but skiff serves Kubernetes 1.${minor:-?} (src/util/version.h)" ;;
esac
for f in scripts/gen/k8s-protobuf-*.tsv; do
	[ ! -e "$f" ] || [ "$f" = "$desc" ] || bad "$f: not the pinned tag $ref (remove it)"
done
[ -f "$desc" ] || { bad "$desc: missing (make generate K8S_API_REPO=DIR APIMACHINERY_REPO=DIR extracts it)"; exit 1; }
head -1 "$desc" | grep -qF -- "extract --ref $ref; DO NOT EDIT." || bad "$desc: its first line does not name tag $ref"

if [ $# -eq 3 ]; then
	"$py" scripts/gen-protobuf-types.py extract --api "$2" --apimachinery "$3" --ref "$ref" -o "$tmp/desc.tsv"
	cmp -s "$tmp/desc.tsv" "$desc" ||
		{ diff -u "$desc" "$tmp/desc.tsv" | head -20 >&2; bad "$desc differs from upstream $ref (run make generate K8S_API_REPO=... APIMACHINERY_REPO=...)"; }
fi
"$py" scripts/gen-protobuf-types.py render "$desc" -o "$tmp/out.c"
cmp -s "$tmp/out.c" "$out" ||
	{ diff -u "$out" "$tmp/out.c" | head -20 >&2; bad "$out is not what $desc renders to (run make generate)"; }
[ "$fail" -eq 0 ] && echo "check-generated: $out and $desc ($ref) are up to date"
exit "$fail"
