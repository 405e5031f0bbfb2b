#!/usr/bin/env bash
# The ML example on a running skiff cluster (KUBECONFIG must point at it):
#  1. runtime inventory of the nodes
#  2. build the example image from Debian packages (cached) and push it to a
#     loopback registry; manifests reference it by digest
#  3. train: an Indexed Job of 2 workers checkpointing to a volume; one worker
#     is evicted mid-training and its replacement resumes from a checkpoint
#  4. serve: a Deployment of model servers, predictions over the pod IPs
#  5. retrain (model v2) and roll the Deployment to it while querying it
#     continuously: zero failed queries
#  6. a CronJob for batch scoring every minute
# Called by scripts/demo.sh (make demo); also runs on its own:
#   KUBECONFIG=.skiff/kubeconfig examples/ml/demo.sh
# Environment: ML_NAMESPACE (ml), ML_REGISTRY_PORT/ML_REGISTRY_DIR (registry.sh),
# ML_CRON_WAIT (seconds to wait for the first scoring Job, 0 = don't; 90),
# ML_SUMMARY (JSON results, default $SKIFF_DATA/ml-demo.json), ML_TRAIN_STEPS (300),
# ML_EVICT (1; 0 skips the eviction of a training worker).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
: "${KUBECONFIG:?KUBECONFIG must point at the cluster}"
export KUBECONFIG
export SKIFF_DATA="${SKIFF_DATA:-$root/.skiff}"
NS="${ML_NAMESPACE:-ml}"
SUMMARY="${ML_SUMMARY:-$SKIFF_DATA/ml-demo.json}"
CRON_WAIT="${ML_CRON_WAIT:-90}"
STEPS="${ML_TRAIN_STEPS:-300}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$SUMMARY")"
echo '{}' >"$SUMMARY"

k() { kubectl -n "$NS" "$@"; }
render() { "$here/render.sh" "$here/manifests/$1" NS="$NS" "${@:2}"; }
note() { printf '    %s\n' "$*"; }
# record KEY JSON-VALUE into the summary file
record() { python3 - "$SUMMARY" "$1" "$2" <<'PY'
import json, sys
p, k, v = sys.argv[1:]
d = json.load(open(p)); d[k] = json.loads(v); json.dump(d, open(p, "w"), indent=1)
PY
}
T0=$(date +%s.%N)
step_name="" step_t=0 timings=()
now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
step() {
	end_step
	step_name="$*" step_t=$(now)
	printf '\n==> %s\n' "$step_name"
}
end_step() {
	[ -n "$step_name" ] || return 0
	local s; s=$(secs "$step_t")
	printf '==> %s (%ss)\n' "$step_name" "$s"
	timings+=("$(printf '%6ss  %s' "$s" "$step_name")")
	step_name=""
}
diagnose() {
	printf '\n!!! step failed: %s (after %ss)\n' "$step_name" "$(secs "$step_t")" >&2
	{ k get pods -o wide; k get events --sort-by=.lastTimestamp 2>/dev/null | tail -20; } >&2 || true
}
trap 'rc=$?; [ $rc -eq 0 ] || diagnose; rm -rf "$work"' EXIT
# wait_until SECONDS DESCRIPTION COMMAND...: poll COMMAND until it succeeds
wait_until() {
	local limit=$1 what=$2 t=$SECONDS; shift 2
	until "$@" >/dev/null 2>&1; do
		if [ $((SECONDS - t)) -ge "$limit" ]; then
			echo "timed out after ${limit}s waiting for $what" >&2
			return 1
		fi
		sleep 0.5
	done
}
pod_of_index() { # JOB INDEX -> name of the newest non-terminating pod
	k get pods -l "batch.kubernetes.io/job-name=$1,batch.kubernetes.io/job-completion-index=$2" \
		-o jsonpath='{range .items[*]}{.metadata.creationTimestamp} {.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' |
		awk 'NF == 2' | sort | tail -1 | cut -d' ' -f2
}
logs_have() { k logs "$1" 2>/dev/null | grep -q -- "$2"; }
job_done() { [ "$(k get job "$1" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}')" = True ]; }
job_failed() { [ "$(k get job "$1" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')" = True ]; }
in_cluster_query() { # NAME ARGS SECONDS: runs query.py in a pod of its own, prints its output
	render query-pod.yaml NAME="$1" IMAGE="$IMAGE" ARGS="$2" | kubectl apply -f - >/dev/null
	wait_until "$3" "query pod $1" sh -c \
		"p=\$(kubectl -n $NS get pod $1 -o jsonpath='{.status.phase}'); [ \"\$p\" = Succeeded ] || [ \"\$p\" = Failed ]"
	k logs "$1"
	[ "$(k get pod "$1" -o jsonpath='{.status.phase}')" = Succeeded ] || { echo "query pod $1 failed" >&2; exit 1; }
}
wait_job() { # JOB SECONDS
	local t=$SECONDS
	until job_done "$1"; do
		job_failed "$1" && { echo "job $1 failed" >&2; k describe job "$1" >&2; return 1; }
		[ $((SECONDS - t)) -lt "$2" ] || { echo "job $1 did not complete in $2s" >&2; return 1; }
		sleep 0.5
	done
}

step "runtime inventory: the nodes and what they run"
wait_until 60 "a node to register" sh -c '[ -n "$(kubectl get nodes -o name)" ]'
kubectl wait --for=condition=Ready node --all --timeout=60s >/dev/null
kubectl get nodes -o custom-columns='NAME:.metadata.name,RUNTIME:.status.nodeInfo.containerRuntimeVersion,OS:.status.nodeInfo.osImage,KUBELET:.status.nodeInfo.kubeletVersion'

step "build the image from Debian packages (mmdebstrap + umoci; cached by input hash)"
src="$("$here/build-image.sh")"
note "OCI layout: $src"

step "push it to the loopback registry and pin it by digest"
reg="$("$here/registry.sh" start)"
tag="${src##*:}"
repo="$reg/skiff/ml-example"
skopeo copy -q --dest-tls-verify=false "oci:$src" "docker://$repo:$tag"
digest="$(skopeo inspect --tls-verify=false --format '{{.Digest}}' "docker://$repo:$tag")"
IMAGE="$repo@$digest"
note "registry http://$reg (storage ${ML_REGISTRY_DIR:-$SKIFF_DATA/registry}; stop with make down)"
note "image $IMAGE"
skopeo inspect --tls-verify=false --raw "docker://$IMAGE" | python3 -c '
import json, sys
for i, l in enumerate(json.load(sys.stdin)["layers"], 1):
    print("    layer %d: %s... %6.1f MB" % (i, l["digest"][:19], l["size"] / 1e6))'
record image "\"$IMAGE\""

if kubectl get namespace "$NS" >/dev/null 2>&1; then
	step "remove the previous run's workloads from namespace $NS (the volume stays)"
	k delete deployment,cronjob,job,pod,service -l app.kubernetes.io/part-of=skiff-ml --ignore-not-found \
		--cascade=foreground --wait=true --timeout=180s
	wait_until 120 "old pods to go" sh -c "[ -z \"\$(kubectl -n $NS get pods -o name)\" ]"
fi

step "namespace $NS and the volume for checkpoints and models"
render storage.yaml | kubectl apply -f -

step "train model v1: Indexed Job, 2 workers, one shard each, checkpoints on the volume, a headless Service"
render train-job.yaml NAME=train-v1 IMAGE="$IMAGE" VERSION=1 STEPS="$STEPS" STEP_SLEEP=0.1 HIDDEN=32 |
	kubectl apply -f -
uid1="$(k get job train-v1 -o jsonpath='{.metadata.uid}')"
note "job uid $uid1: checkpoints go to /data/runs/$uid1/worker-<index>/"
wait_until 240 "worker 1 to checkpoint step 50" sh -c \
	"p=\$(kubectl -n $NS get pods -l batch.kubernetes.io/job-name=train-v1,batch.kubernetes.io/job-completion-index=1 -o name | head -1) && [ -n \"\$p\" ] && kubectl -n $NS logs \$p | grep -q 'checkpoint ckpt-000050'"
k get pods -l batch.kubernetes.io/job-name=train-v1 -o wide
victim="$(pod_of_index train-v1 1)"
note "worker 1 ($victim) so far:"
k logs "$victim" | tail -3 | sed 's/^/      /'

if [ "${ML_EVICT:-1}" = 1 ]; then
	step "evict worker 1 mid-training (Eviction API, as a node drain does)"
	# a 409 Conflict (the pod changed under the eviction) or 429 (budget) is retried, as kubectl drain does
	for try in 1 2 3 4 5 6 7 8 9 10; do
		printf '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"%s","namespace":"%s"}}' "$victim" "$NS" |
			kubectl create --raw "/api/v1/namespaces/$NS/pods/$victim/eviction" -f - >/dev/null 2>"$work/evict.err" && break
		grep -q 'Conflict\|TooManyRequests\|429\|409' "$work/evict.err" && [ "$try" -lt 10 ] || { cat "$work/evict.err" >&2; exit 1; }
		note "eviction attempt $try: $(head -1 "$work/evict.err"); retrying"
		sleep 0.5
	done
	note "evicted $victim; its condition: $(k get pod "$victim" -o jsonpath='{range .status.conditions[?(@.type=="DisruptionTarget")]}{.type}={.status} ({.reason}){end}' 2>/dev/null || echo gone)"
	if ! wait_until 180 "a replacement for worker 1" sh -c \
		"p=\$(kubectl -n $NS get pods -l batch.kubernetes.io/job-name=train-v1,batch.kubernetes.io/job-completion-index=1 -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep -vx '$victim' | head -1) && [ -n \"\$p\" ] && kubectl -n $NS logs \$p | grep -q 'resumed from step\|starting from step'"; then
		note "the evicted pod now: $(k get pod "$victim" -o jsonpath='deletionTimestamp={.metadata.deletionTimestamp} phase={.status.phase} state={.status.containerStatuses[0].state} finalizers={.metadata.finalizers}' 2>&1)"
		note "(a Job pod keeps its batch.kubernetes.io/job-tracking finalizer until the node reports it terminal)"
		exit 1
	fi
	replacement="$(k get pods -l batch.kubernetes.io/job-name=train-v1,batch.kubernetes.io/job-completion-index=1 -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep -vx "$victim" | head -1)"
	replacement_log="$(k logs "$replacement")"
	resumed="$(grep -o 'resumed from step [0-9]*' <<<"$replacement_log" | head -1 | grep -o '[0-9]*$' || true)"
	grep -m1 'resumed from step\|starting from step' <<<"$replacement_log" | sed 's/^/    replacement: /'
	if [ -z "$resumed" ] || [ "$resumed" -le 0 ]; then
		echo "the replacement of worker 1 did not resume from a checkpoint" >&2
		exit 1
	fi
	note "replacement $replacement resumed from step $resumed"
	record resumed "{\"victim\": \"$victim\", \"replacement\": \"$replacement\", \"step\": $resumed}"
fi

step "wait for the training Job to complete"
wait_job train-v1 300
k get job train-v1 -o wide
k get service,endpointslices -l app.kubernetes.io/component=training 2>/dev/null || k get service train-v1
k logs "$(pod_of_index train-v1 0)" | grep 'rendezvous' | head -3 | sed 's/^/    worker 0: /' || true
k logs -l batch.kubernetes.io/job-name=train-v1,batch.kubernetes.io/job-completion-index=1 --tail=-1 2>/dev/null |
	grep 'found worker 0' | sed 's/^/    worker 1: /' || true
rdzv="$(k logs -l batch.kubernetes.io/job-name=train-v1,batch.kubernetes.io/job-completion-index=1 --tail=-1 2>/dev/null |
	grep -c 'rendezvous: found worker 0 at train-v1-0.train-v1' || true)"
[ "${rdzv:-0}" -gt 0 ] || { echo "worker 1 never found worker 0 by its DNS name train-v1-0.train-v1" >&2; exit 1; }
k get pods -l batch.kubernetes.io/job-name=train-v1
completed="$(k get job train-v1 -o jsonpath='{.status.completedIndexes}')"
failed="$(k get job train-v1 -o jsonpath='{.status.failed}')"
if [ "${ML_EVICT:-1}" = 1 ] && [ "${failed:-0}" = 0 ]; then
	note "completed indexes: $completed; failures counted: 0 (podFailurePolicy: Ignore on DisruptionTarget)"
else
	note "completed indexes: $completed; failures counted: ${failed:-0}"
fi
k logs "${replacement:-none}" 2>/dev/null | grep 'averaged model' | sed 's/^/    /' || k logs "$(pod_of_index train-v1 0)" | grep 'averaged model' | sed 's/^/    /' || true
pv="$(k get pvc ml-data -o jsonpath='{.spec.volumeName}')"
hostdir="$(kubectl get pv "$pv" -o jsonpath='{.spec.hostPath.path}{.spec.local.path}' 2>/dev/null || true)"
model_file=""
if [ -n "$hostdir" ] && [ -d "$hostdir/runs/$uid1" ]; then
	model_file="$hostdir/runs/$uid1/model.npz"
	note "on the node: $hostdir/runs/$uid1/"
	(cd "$hostdir/runs/$uid1" && ls -l model.npz model.json worker-*/model.npz) | sed 's/^/      /'
	[ -f "$model_file" ] || { echo "no trained model at $model_file" >&2; exit 1; }
fi
record rendezvous "$rdzv"
record train "{\"job\": \"train-v1\", \"uid\": \"$uid1\", \"completedIndexes\": \"$completed\", \"failed\": ${failed:-0}, \"model\": \"$model_file\", \"model_exists\": $([ -f "$model_file" ] && echo true || echo false)}"

step "serve model v1 (Deployment behind the Service model-server, Guaranteed QoS, probes gate on the loaded model); retrain v2 meanwhile"
render serve-service.yaml | kubectl apply -f -
render serve-deployment.yaml IMAGE="$IMAGE" VERSION=1 JOB_UID="$uid1" | kubectl apply -f -
render train-job.yaml NAME=train-v2 IMAGE="$IMAGE" VERSION=2 STEPS=400 STEP_SLEEP=0.02 HIDDEN=48 |
	kubectl apply -f -
render score-cronjob.yaml IMAGE="$IMAGE" | kubectl apply -f -
kubectl -n "$NS" rollout status deployment/model-server --timeout=240s
k get pods -l app=model-server -o custom-columns='NAME:.metadata.name,VERSION:.metadata.labels.model-version,QOS:.status.qosClass,IP:.status.podIP,READY:.status.containerStatuses[0].ready'

k get service model-server
k get endpointslices -l kubernetes.io/service-name=model-server

step "predictions from model v1: a client pod queries http://model-server by name"
in_cluster_query query-v1 '"--once", "4"' 120 | tee "$work/pred1.txt"
record predictions_v1 "$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read().splitlines()))' "$work/pred1.txt")"

step "wait for model v2's training Job"
wait_job train-v2 300
uid2="$(k get job train-v2 -o jsonpath='{.metadata.uid}')"
k get jobs -l app.kubernetes.io/component=training

step "rolling update to model v2 (maxUnavailable 0) while a client pod queries the Service continuously"
render query-pod.yaml NAME=query-rollout IMAGE="$IMAGE" ARGS='"--until-version", "2", "--settle", "5"' |
	kubectl apply -f -
wait_until 120 "the query pod to answer" sh -c "kubectl -n $NS logs query-rollout 2>/dev/null | grep -q 'queries='"
render serve-deployment.yaml IMAGE="$IMAGE" VERSION=2 JOB_UID="$uid2" | kubectl apply -f -
kubectl -n "$NS" rollout status deployment/model-server --timeout=240s
wait_until 330 "the query pod to see only model v2" sh -c \
	"[ \"\$(kubectl -n $NS get pod query-rollout -o jsonpath='{.status.phase}')\" = Succeeded ]"
k logs query-rollout | grep -v '^summary ' | tail -4
k logs query-rollout | sed -n 's/^summary //p' | tail -1 >"$work/rollout.json"
kubectl -n "$NS" rollout history deployment/model-server
k get pods -l app=model-server -o custom-columns='NAME:.metadata.name,VERSION:.metadata.labels.model-version,QOS:.status.qosClass,IP:.status.podIP,READY:.status.containerStatuses[0].ready'
record rollout "$(cat "$work/rollout.json")"
python3 - "$work/rollout.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if s["failed"] or s["queries"] == 0 or "2" not in s["by_version"]:
    sys.exit(f"rollout check failed: {s['failed']} failed queries of {s['queries']}, versions {s['by_version']}")
PY
in_cluster_query query-v2 '"--once", "4"' 120 | tee "$work/pred2.txt"
record predictions_v2 "$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read().splitlines()))' "$work/pred2.txt")"

step "batch scoring with a CronJob (every minute)"
k get cronjob batch-score
if [ "$CRON_WAIT" -gt 0 ]; then
	note "waiting up to ${CRON_WAIT}s for its first Job"
	cron_ok() {
		local out
		out="$(k get jobs -l app.kubernetes.io/component=batch-scoring \
			-o jsonpath='{range .items[?(@.status.succeeded==1)]}{.metadata.name}{"\n"}{end}')"
		[ -n "$out" ] && echo "${out%%$'\n'*}"
	}
	if wait_until "$CRON_WAIT" "the first batch-score Job" cron_ok; then
		cj="$(cron_ok)"
		k get jobs -l app.kubernetes.io/component=batch-scoring
		k logs -l "batch.kubernetes.io/job-name=$cj" | sed 's/^/    /'
		record cron "{\"job\": \"$cj\"}"
	else
		note "no scoring Job finished within ${CRON_WAIT}s; see: kubectl -n $NS get cronjob,jobs"
		record cron "{\"job\": null}"
	fi
fi
end_step

total=$(secs "$T0")
record seconds "$total"
printf '\n==> ML example done in %ss\n' "$total"
printf '%s\n' "${timings[@]}"
cat <<MSG

Explore it with kubectl (export KUBECONFIG=$KUBECONFIG):
  kubectl -n $NS get jobs,pods,deploy,rs,cronjob,pvc
  kubectl -n $NS logs -l batch.kubernetes.io/job-name=train-v1 --prefix
  kubectl -n $NS describe job train-v1
  kubectl -n $NS rollout undo deployment/model-server      # back to model v1
  kubectl -n $NS get svc,endpointslices                    # the model server's Service and its endpoints
  kubectl -n $NS get pods -l app=model-server -o wide      # then: curl http://POD_IP:8080/predict?sample=7
  kubectl -n $NS get jobs -w                               # batch-score runs every minute
  kubectl -n $NS delete cronjob batch-score                # stop it
The image: $IMAGE
MSG
