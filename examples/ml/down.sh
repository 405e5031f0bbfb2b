#!/usr/bin/env bash
# Stops what examples/ml/demo.sh started outside the cluster (the registry).
# Called by scripts/down.sh (make down). The cluster's objects go with it.
exec "$(dirname "$0")/registry.sh" stop
