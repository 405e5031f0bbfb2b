#!/usr/bin/env bash
# Custom objects against ConfigMaps in the same run (issue: custom-object
# creates/s and GETs/s at >= 90 % of ConfigMaps'): wrk over HTTPS with
# keep-alive against `skiff server --no-agent`, the two kinds interleaved
# ROUNDS times (median quoted), objects of the same size; the cost of CEL on
# the create path: the same objects of a second CRD (Gauge) whose schema
# carries six x-kubernetes-validations rules as real CRDs do (a transition
# rule among them, skipped on create), created in the same rounds; then a server-side
# Table (kubectl get) of 1,000 custom objects with printer columns, timed
# on loopback (curl's time_total, median of 11).
#   bash bench/crd_wrk.sh [build/skiff] [connections] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
conns=${2:-32}
secs=${3:-5}
rounds=${ROUNDS:-3}
dir=$(mktemp -d /tmp/skiff-crdwrk-XXXXXX)
port=$((21000 + RANDOM % 20000))
"$bin" server --data-dir "$dir" --listen "127.0.0.1:$port" --no-agent >"$dir/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 200); do [ -f "$dir/token" ] && curl -sk "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
tok=$(cat "$dir/token")
url=https://127.0.0.1:$port
api() { curl -sk -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' "$@"; }

api -X POST "$url/apis/apiextensions.k8s.io/v1/customresourcedefinitions" -d '{
 "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.bench.skiff.dev"},
 "spec":{"group":"bench.skiff.dev","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "subresources":{"status":{}},
   "additionalPrinterColumns":[{"name":"Size","type":"string","jsonPath":".spec.size"},
                               {"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}],
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
     "spec":{"type":"object","properties":{"size":{"type":"string"},"replicas":{"type":"integer"},
                                           "note":{"type":"string"}}}}}}}]}}' >/dev/null
api -X POST "$url/apis/apiextensions.k8s.io/v1/customresourcedefinitions" -d '{
 "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gauges.bench.skiff.dev"},
 "spec":{"group":"bench.skiff.dev","scope":"Namespaced",
  "names":{"plural":"gauges","singular":"gauge","kind":"Gauge","listKind":"GaugeList"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object",
     "x-kubernetes-validations":[{"rule":"size(self.metadata.name) <= 63","message":"name too long"}],
     "properties":{
     "spec":{"type":"object",
       "x-kubernetes-validations":[
         {"rule":"self.replicas >= 0 && self.replicas <= 1000","message":"replicas out of range"},
         {"rule":"!has(self.note) || size(self.note) < 100"},
         {"rule":"self.size.matches(\"^[a-z]+$\")"}],
       "properties":{"size":{"type":"string","x-kubernetes-validations":[
                       {"rule":"self in [\"small\", \"medium\", \"large\"]"},
                       {"rule":"self == oldSelf","message":"size is immutable"}]},
                     "replicas":{"type":"integer"},"note":{"type":"string"}}}}}}}]}}' >/dev/null
for plural in widgets gauges; do
	for _ in $(seq 1 100); do
		api "$url/apis/bench.skiff.dev/v1/namespaces/default/$plural" | grep -q '"kind":"[A-Za-z]*List"' && break
		sleep 0.05
	done
done

cm_body='"data":{"size":"large","replicas":"3","note":"a note of some forty characters, padded"}'
cr_body='"spec":{"size":"large","replicas":3,"note":"a note of some forty characters, padded"}'
rate() { grep -o 'Requests/sec: *[0-9.]*' | awk '{print $2}'; }
create() { # kind api path body prefix
	WRK_KIND=$1 WRK_API=$2 WRK_PATH=$3 WRK_BODY=$4 WRK_PREFIX=$5 wrk -t2 -c"$conns" -d"${secs}s" \
		-H "Authorization: Bearer $tok" -s bench/wrk/create-kind.lua "$url" | rate
}
get() { wrk -t2 -c16 -d"${secs}s" -H "Authorization: Bearer $tok" "$url$1" | rate; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cmc=() crc=() cmg=() crg=() cel=()
for r in $(seq 1 "$rounds"); do
	cmc+=("$(create ConfigMap v1 /api/v1/namespaces/default/configmaps "$cm_body" "r$r")")
	crc+=("$(create Widget bench.skiff.dev/v1 /apis/bench.skiff.dev/v1/namespaces/default/widgets "$cr_body" "r$r")")
	cel+=("$(create Gauge bench.skiff.dev/v1 /apis/bench.skiff.dev/v1/namespaces/default/gauges "$cr_body" "r$r")")
	cmg+=("$(get /api/v1/namespaces/default/configmaps/r1-1-1)")
	crg+=("$(get /apis/bench.skiff.dev/v1/namespaces/default/widgets/r1-1-1)")
	echo "round $r: creates/s ConfigMap ${cmc[-1]} Widget ${crc[-1]} Gauge (CEL) ${cel[-1]};" \
		"GETs/s ConfigMap ${cmg[-1]} Widget ${crg[-1]}"
done
m1=$(printf '%s\n' "${cmc[@]}" | median) m2=$(printf '%s\n' "${crc[@]}" | median)
m3=$(printf '%s\n' "${cmg[@]}" | median) m4=$(printf '%s\n' "${crg[@]}" | median)
echo "creates/s (median of $rounds, wrk -c$conns ${secs}s): ConfigMap $m1, Widget $m2 = $(echo "scale=1; 100*$m2/$m1" | bc) %"
echo "GETs/s    (median of $rounds, wrk -c16 ${secs}s): ConfigMap $m3, Widget $m4 = $(echo "scale=1; 100*$m4/$m3" | bc) %"
m5=$(printf '%s\n' "${cel[@]}" | median)
echo "creates/s with 6 CEL rules (median of $rounds): Gauge $m5 vs Widget $m2 (no rules) = $(echo "scale=1; 100*$m5/$m2" | bc) %"

# A table of exactly 1,000 widgets in their own namespace.
api -X POST "$url/api/v1/namespaces" -d '{"metadata":{"name":"table"}}' >/dev/null
for i in $(seq 1 1000); do
	printf '{"apiVersion":"bench.skiff.dev/v1","kind":"Widget","metadata":{"name":"t-%d"},%s}\n' "$i" "$cr_body"
done >"$dir/bodies"
while read -r body; do
	api -o /dev/null -X POST "$url/apis/bench.skiff.dev/v1/namespaces/table/widgets" -d "$body"
done <"$dir/bodies"
accept='application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'
rows=$(api -H "Accept: $accept" "$url/apis/bench.skiff.dev/v1/namespaces/table/widgets?limit=500" | grep -o '"cells"' | wc -l)
t=()
for _ in $(seq 1 11); do
	t+=("$(api -o /dev/null -w '%{time_total}' -H "Accept: $accept" "$url/apis/bench.skiff.dev/v1/namespaces/table/widgets")")
done
ms=$(printf '%s\n' "${t[@]}" | median | awk '{printf "%.1f", $1 * 1000}')
echo "server-side Table of 1,000 widgets with printer columns, one request: median ${ms} ms over 11 (a page of 500: $rows rows)"
# kubectl itself (pages of 500, as it asks): the whole command's wall time, its
# start-up and discovery included (client time, for context)
cat >"$dir/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: b, cluster: {server: "$url", certificate-authority: "$dir/tls/ca.crt"}}]
users: [{name: b, user: {token: "$tok"}}]
contexts: [{name: b, context: {cluster: b, user: b}}]
current-context: b
KC
kubectl --kubeconfig "$dir/kubeconfig" get widgets -n table >/dev/null
k=()
for _ in $(seq 1 5); do
	s0=$(date +%s%N)
	n=$(kubectl --kubeconfig "$dir/kubeconfig" get widgets -n table --no-headers | wc -l)
	k+=("$(( ($(date +%s%N) - s0) / 1000000 ))")
done
echo "kubectl get widgets -n table: $n rows, wall time median $(printf '%s\n' "${k[@]}" | median) ms over 5 (client start-up included)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
