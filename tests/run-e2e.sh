#!/usr/bin/env bash
# End-to-end tests: pytest under Debian's python3 drives build/skiff with the
# real kubectl and the Python kubernetes client.
set -u
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q -rfE tests/e2e "$@"
