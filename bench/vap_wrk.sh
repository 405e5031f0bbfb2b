#!/usr/bin/env bash
# What ValidatingAdmissionPolicies cost a write: durable ConfigMap creates/s
# with wrk against one `skiff server --no-agent`, in rounds of three phases
# in the same run: no policy (the peer), one policy bound to configmaps with
# three validations and a variable, and ten such policies. Each phase writes
# into its own namespace, so the stores' sizes grow alike.
#   bash bench/vap_wrk.sh [build/skiff] [connections] [seconds] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skiff}
conns=${2:-16}
secs=${3:-5}
rounds=${4:-3}
dir=$(mktemp -d /tmp/skiff-wrk-XXXXXX)
port=$((21000 + RANDOM % 20000))
"$bin" server --data-dir "$dir" --listen "127.0.0.1:$port" --no-agent >"$dir/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 200); do [ -f "$dir/token" ] && curl -sk "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
tok=$(cat "$dir/token")
url=https://127.0.0.1:$port
kc() { curl -sk -H "Authorization: Bearer $tok" -H "Content-Type: application/json" "$@" >/dev/null; }

policy() { # NAME: a policy on configmaps and its binding
	kc -X POST "$url/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies" -d '{
	  "apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"'"$1"'"},
	  "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["configmaps"]}]},
	    "variables":[{"name":"data","expression":"has(object.data) ? object.data : {}"}],
	    "validations":[{"expression":"object.metadata.name.size() < 64"},
	      {"expression":"!(\"password\" in variables.data)","message":"no passwords"},
	      {"expression":"variables.data.all(k, variables.data[k].size() < 1024)","messageExpression":"\"too big\""}]}}'
	kc -X POST "$url/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings" -d '{
	  "apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"'"$1"'"},
	  "spec":{"policyName":"'"$1"'","validationActions":["Deny"]}}'
}
unpolicy() {
	kc -X DELETE "$url/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	kc -X DELETE "$url/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
}

phase() { # LABEL NAMESPACE
	kc -X POST "$url/api/v1/namespaces" -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$2"'"}}'
	sleep 1.2 # past the plugin's reload
	printf '%-12s ' "$1"
	WRK_KIND=ConfigMap WRK_API=v1 WRK_PATH=/api/v1/namespaces/$2/configmaps \
		WRK_BODY='"data":{"model":"llama","shards":"8"}' \
		wrk -t2 -c"$conns" -d"${secs}s" -H "Authorization: Bearer $tok" -s bench/wrk/create-kind.lua "$url" |
		awk '/Requests\/sec/ {r = $2} /Latency/ {l = $2} /Non-2xx/ {bad = $NF}
		     END {printf "%s creates/s  latency avg %s  refused %d\n", r, l, bad}'
}

echo "== ConfigMap creates, wrk -t2 -c$conns -d${secs}s, $rounds rounds"
for r in $(seq 1 "$rounds"); do
	unpolicy
	phase "none" "none-$r"
	policy "p0.example.com"
	phase "1 policy" "one-$r"
	for i in $(seq 1 9); do policy "p$i.example.com"; done
	phase "10 policies" "ten-$r"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
