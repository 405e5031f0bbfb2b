#!/usr/bin/env bash
# clang-format over src/ (the committed .clang-format): `scripts/format.sh`
# rewrites the files, `scripts/format.sh --check` (a suite of make test) fails
# on any file that differs and names it. Generated code (first line "Code
# generated ... DO NOT EDIT.") is left as its generator writes it.
set -euo pipefail
cd "$(dirname "$0")/.."
files=()
for f in $(git ls-files 'src/*.c' 'src/*.h'); do
	head -1 "$f" | grep -q 'Code generated .* DO NOT EDIT' || files+=("$f")
done
if [ "${1:-}" = --check ]; then
	bad=()
	for f in "${files[@]}"; do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		for f in "${bad[@]}"; do clang-format --dry-run -Werror "$f" 2>&1 | head -6; done
		echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format: ${bad[*]}"
		echo "format: run 'make format' (scripts/format.sh) and commit"
		exit 1
	fi
	echo "format: ${#files[@]} files match .clang-format"
else
	clang-format -i "${files[@]}"
	echo "format: ${#files[@]} files formatted"
fi
