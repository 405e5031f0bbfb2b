#!/usr/bin/env bash
# make bench: the connection flood of issue 17 (bench/conn_flood.py): 1,000
# slow unauthenticated clients and 20,000 idle connections for 30 s while an
# authenticated client GETs; prints its latencies and the server's RSS.
set -u
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/conn_flood.py 30 20000 1000
