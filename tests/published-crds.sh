#!/usr/bin/env bash
# By hand (needs the projects' repositories, which CI cannot fetch): the CRDs
# that Kueue, JobSet, LeaderWorkerSet and Kubeflow Trainer publish, applied
# with `kubectl apply --server-side` to a fresh `skiff server --no-agent`, then
# a sample object of each created, listed, watched, patched, scaled (LWS),
# explained and deleted, and a CRD deleted with its objects; objects breaking
# JobSet's and Kueue's own CEL rules are refused with their messages. Their files are
# read from the git repositories, never copied into this tree:
#   KUEUE=DIR JOBSET=DIR LWS=DIR TRAINER=DIR bash tests/published-crds.sh [build/skiff]
# (DIR: a clone or bare git dir, or a mirror holding one in DIR/repo, of kubernetes-sigs/kueue, kubernetes-sigs/jobset,
# kubernetes-sigs/lws, kubeflow/trainer; HEAD is read.)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
: "${KUEUE:?}" "${JOBSET:?}" "${LWS:?}" "${TRAINER:?}"
# a fetched mirror (/work/.mirror/<owner>+<name>) keeps its git dir in repo/
for v in KUEUE JOBSET LWS TRAINER; do
	if [ -d "${!v}/repo" ] && [ ! -e "${!v}/HEAD" ] && [ ! -e "${!v}/.git" ]; then
		printf -v "$v" '%s' "${!v}/repo"
	fi
done
work=$(mktemp -d /tmp/skiff-crds-XXXXXX)
port=$((21000 + RANDOM % 20000))
"$bin" server --no-agent --data-dir "$work/data" --listen "127.0.0.1:$port" >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 200); do [ -f "$work/data/kubeconfig" ] && kubectl --kubeconfig "$work/data/kubeconfig" get --raw /readyz >/dev/null 2>&1 && break; sleep 0.05; done
export KUBECONFIG=$work/data/kubeconfig
k() { kubectl --cache-dir "$work/cache" "$@"; }
fail() { echo "published-crds: FAILED: $*"; exit 1; }
show() { git -C "$1" show "HEAD:$2"; }
files() { git -C "$1" ls-tree -r --name-only HEAD | grep -E "$2"; }

n=0
for spec in "$KUEUE|^config/components/crd/bases/.*\.yaml$" "$JOBSET|^config/components/crd/bases/.*\.yaml$" \
	"$LWS|^config/crd/bases/leaderworkerset.*\.yaml$" "$TRAINER|^manifests/base/crds/trainer.*\.yaml$"; do
	repo=${spec%%|*} re=${spec#*|}
	for f in $(files "$repo" "$re"); do
		show "$repo" "$f" >"$work/crd.yaml"
		t0=$(date +%s%N)
		k apply --server-side -f "$work/crd.yaml" -v=6 >/dev/null 2>"$work/v6" || fail "apply --server-side $f"
		# the server's time: kubectl's own timing of the apply PATCH until its reply (-v=6)
		srv=$(grep -oE 'PATCH .*customresourcedefinitions/.* in [0-9]+ milliseconds' "$work/v6" |
			grep -oE '[0-9]+ milliseconds' | cut -d' ' -f1)
		printf '  %-52s %8d bytes  apply PATCH %4s ms  kubectl wall %4d ms\n' "$(basename "$f")" \
			"$(wc -c <"$work/crd.yaml")" "$srv" $((($(date +%s%N) - t0) / 1000000))
		n=$((n + 1))
	done
done
echo "applied $n CRDs"
for r in jobsets.jobset.x-k8s.io leaderworkersets.leaderworkerset.x-k8s.io clusterqueues.kueue.x-k8s.io \
	localqueues.kueue.x-k8s.io workloads.kueue.x-k8s.io trainjobs.trainer.kubeflow.org \
	clustertrainingruntimes.trainer.kubeflow.org; do
	k wait --for=condition=Established "crd/$r" --timeout=10s >/dev/null || fail "$r not Established"
done
res=$(k api-resources)   # (not piped into grep -q: pipefail would see kubectl's SIGPIPE)
grep -qE '^leaderworkersets +lws ' <<<"$res" || fail "api-resources lacks leaderworkersets (lws)"
grep -qE '^localqueues +queue,queues,lq ' <<<"$res" || fail "api-resources lacks localqueues"

show "$JOBSET" config/samples/batch_v1alpha2_jobset.yaml | k apply --server-side -f - >/dev/null || fail "JobSet sample"
files "$LWS" '^config/samples/leaderworkerset_v1_leaderworkerset.yaml$' >/dev/null &&
	show "$LWS" config/samples/leaderworkerset_v1_leaderworkerset.yaml | k apply --server-side -f - >/dev/null || fail "LWS sample"
show "$KUEUE" site/static/examples/admin/single-clusterqueue-setup.yaml | k apply --server-side -f - >/dev/null ||
	fail "Kueue sample"
show "$TRAINER" manifests/base/runtimes/deepspeed_distributed.yaml | k apply --server-side -f - >/dev/null ||
	fail "Trainer runtime sample"
k get jobsets,lws,clusterqueues,localqueues,resourceflavors,clustertrainingruntimes -A
lws=$(k get lws -o jsonpath='{.items[0].metadata.name}')
k scale lws "$lws" --replicas=5 >/dev/null
[ "$(k get lws "$lws" -o jsonpath='{.spec.replicas}')" = 5 ] || fail "kubectl scale lws"
js=$(k get jobsets -o jsonpath='{.items[0].metadata.name}')
timeout 5 kubectl --cache-dir "$work/cache" get jobsets -w --output-watch-events >"$work/watch.txt" 2>&1 &
w=$!
sleep 1
k patch jobset "$js" --type=merge -p '{"spec":{"suspend":true}}' >/dev/null || fail "merge patch"
wait $w || true
grep -q '^MODIFIED' "$work/watch.txt" || fail "the watch did not see the patch"
[ "$(k get jobset "$js" -o jsonpath='{.spec.suspend}')" = true ] || fail "patch not stored"
# their own CEL rules (x-kubernetes-validations) enforced, with their messages
rj() { printf '{"name":"%s",%s"template":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}}' "$1" "${2:-}"; }
bad=$(printf '{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"bad-order"},"spec":{"startupPolicy":{"startupPolicyOrder":"InOrder"},"replicatedJobs":[%s,%s]}}' \
	"$(rj a)" "$(rj b '"dependsOn":[{"name":"a","status":"Ready"}],')")
out=$(k create -f - <<<"$bad" 2>&1) && fail "a JobSet breaking its startupPolicy/dependsOn rule was created"
grep -qF 'spec: Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive' <<<"$out" ||
	fail "JobSet rule message: $out"
good=$(printf '{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"good-order"},"spec":{"successPolicy":{"operator":"All"},"replicatedJobs":[%s]}}' "$(rj a)")
k create -f - <<<"$good" >/dev/null || fail "a valid JobSet"
out=$(k patch jobset good-order --type=merge -p '{"spec":{"successPolicy":{"operator":"Any"}}}' 2>&1) &&
	fail "JobSet successPolicy changed"
grep -qF 'spec.successPolicy: Invalid value: "object": Value is immutable' <<<"$out" || fail "JobSet immutability: $out"
out=$(k patch localqueue user-queue --type=merge -p '{"spec":{"clusterQueue":"other-queue"}}' 2>&1) &&
	fail "LocalQueue clusterQueue changed"
grep -qF 'spec.clusterQueue: Invalid value: "string": field is immutable' <<<"$out" || fail "Kueue immutability: $out"
cq='{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"no-cohort"},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default-flavor","resources":[{"name":"cpu","nominalQuota":"1","borrowingLimit":"1"}]}]}]}}'
out=$(k create -f - <<<"$cq" 2>&1) && fail "a ClusterQueue breaking its borrowingLimit rule was created"
grep -qF 'borrowingLimit must be nil when cohort is empty' <<<"$out" || fail "Kueue rule message: $out"
echo "published-crds: JobSet's and Kueue's CEL rules enforced"
grep -q 'FIELD: size <integer>' <<<"$(k explain lws.spec.leaderWorkerTemplate.size)" || fail "kubectl explain"
k delete crd jobsets.jobset.x-k8s.io >/dev/null
grep -q jobsets <<<"$(k api-resources)" && fail "jobsets still served after its CRD was deleted"
k get --raw /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets >/dev/null 2>&1 && fail "jobsets still listed"
k delete lws "$lws" >/dev/null
echo "published-crds: passed"
