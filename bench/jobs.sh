#!/usr/bin/env bash
# Job controller throughput with a simulated node (see bench/jobs_simulated.py).
cd "$(dirname "$0")/.."
/usr/bin/python3 bench/jobs_simulated.py 10 20 5 Indexed
/usr/bin/python3 bench/jobs_simulated.py 10 20 5 NonIndexed
