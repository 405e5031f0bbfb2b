#!/usr/bin/env bash
# The end-to-end tests of the API, watch serving, CRDs (the kind registry's
# snapshots, the CRD threads), authentication (client certificates per connection), scheduler (hollow
# nodes), controllers (simulated nodes, node IPAM) and leader election (two
# servers on one etcd)
# against the ThreadSanitizer build (build/skiff-tsan). None starts a container. A test fails when its server's
# log holds a ThreadSanitizer report (conftest.py reads it), so every race of
# a run is listed rather than only the first; a report also makes the server
# exit with 66. Tests named on the command line (tests/...) replace the
# default subset; other arguments go to pytest.
set -u
cd "$(dirname "$0")/.."
export SKIFF_BIN=${SKIFF_BIN:-$PWD/build/skiff-tsan}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4:suppressions=$PWD/tests/tsan.supp}
tests=(tests/e2e/test_api_errors.py tests/e2e/test_api_kubectl.py tests/e2e/test_api_python.py
	tests/e2e/test_api_protobuf.py tests/e2e/test_api_watch_serving.py tests/e2e/test_ctrl_simulated.py
	tests/e2e/test_bench_smoke.py tests/e2e/test_store_durability.py
	tests/e2e/test_crd_basic.py tests/e2e/test_crd_gc.py tests/e2e/test_crd_realistic.py
	tests/e2e/test_crd_schema.py tests/e2e/test_crd_subresources.py tests/e2e/test_crd_selectable.py
	tests/e2e/test_crd_openapi_v2.py tests/e2e/test_crd_apply.py tests/e2e/test_crd_storage.py tests/e2e/test_api_netkinds.py
	tests/e2e/test_ctrl_endpoints.py tests/e2e/test_services.py tests/e2e/test_crd_cel.py
	tests/e2e/test_nodes_ipam.py tests/e2e/test_ctrl_daemonset.py tests/e2e/test_ctrl_statefulset.py tests/e2e/test_quota.py
	tests/e2e/test_authn.py tests/e2e/test_rbac.py tests/e2e/test_ha.py tests/e2e/test_ha_fence.py
	tests/e2e/test_vap.py)
for a in "$@"; do
	case $a in tests/*) tests=() ;; esac
done
exec bash tests/run-e2e.sh "${tests[@]}" "$@"
