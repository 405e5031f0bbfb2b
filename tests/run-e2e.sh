#!/usr/bin/env bash
# End-to-end tests: pytest under Debian's python3 drives the ASan+UBSan build
# of skiff (build/skiff-asan) with the real kubectl and the Python client.
set -u
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
export SKIFF_BIN=${SKIFF_BIN:-$PWD/build/skiff-asan}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=23}
# Files or node ids on the command line select tests; without any, the whole suite runs.
sel=tests/e2e
for a in "$@"; do
	case $a in tests/*) sel= ;; esac
done
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q -rfE --durations=25 $sel "$@"
