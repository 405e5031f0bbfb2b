/* The bootstrap policy (upstream's plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy/policy.go, Kubernetes 1.32, its testdata/cluster-roles.yaml)
 * and its reconciliation at start (pkg/registry/rbac/reconciliation): a
 * missing default ClusterRole or ClusterRoleBinding is created; one that
 * exists gets the rules, labels, annotations and subjects it lacks (what a
 * user added stays); one annotated rbac.authorization.kubernetes.io/autoupdate
 * "false" is left alone. A binding whose roleRef differs is recreated.
 *
 * A rule is written "apiGroups|resources|verbs[|resourceNames]" (lists
 * comma-separated) or "url:nonResourceURLs|verbs". */
#include <string.h>

#include "api/api-int.h"
#include "api/rbac.h"
#include "client/client.h"
#include "util/util.h"

#define AUTOUPDATE "rbac.authorization.kubernetes.io/autoupdate"
#define BOOTSTRAPPING "kubernetes.io/bootstrapping"

#define RW "create,delete,deletecollection,patch,update"
#define RO "get,list,watch"
#define ALL "create,delete,deletecollection,get,list,patch,update,watch"
#define EVENTS "\\,events.k8s.io|events|create,patch,update"

typedef struct role {
	const char *name;
	const char *aggregate_to; /* its rbac.authorization.k8s.io/aggregate-to-<x> labels (comma-separated), or NULL */
	const char *aggregates;   /* aggregationRule: aggregate-to-<x> selectors, or NULL */
	const char *rules[32];
} role;

static const role roles[] = {
	{"admin", NULL, "admin", {NULL}},
	{"cluster-admin", NULL, NULL, {"*|*|*", "url:*|*"}},
	{"edit", "admin", "edit", {NULL}},
	{"system:aggregate-to-admin",
	 "admin",
	 NULL,
	 {"authorization.k8s.io|localsubjectaccessreviews|create",
	  "rbac.authorization.k8s.io|rolebindings,roles|" ALL}},
	{"system:aggregate-to-edit",
	 "edit",
	 NULL,
	 {"\\|pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy|" RO,
	  "\\|serviceaccounts|impersonate", "\\|pods,pods/attach,pods/exec,pods/portforward,pods/proxy|" RW,
	  "\\|pods/eviction|create",
	  "\\|configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,"
	  "serviceaccounts,services,services/proxy|" RW,
	  "\\|serviceaccounts/token|create",
	  "apps|daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,"
	  "statefulsets,statefulsets/scale|" RW,
	  "autoscaling|horizontalpodautoscalers|" RW, "batch|cronjobs,jobs|" RW,
	  "extensions|daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,"
	  "replicasets,replicasets/scale,replicationcontrollers/scale|" RW,
	  "policy|poddisruptionbudgets|" RW, "networking.k8s.io|ingresses,networkpolicies|" RW,
	  "coordination.k8s.io|leases|" ALL}},
	{"system:aggregate-to-view",
	 "view",
	 NULL,
	 {"\\|configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,"
	  "replicationcontrollers/scale,serviceaccounts,services,services/status|" RO,
	  "\\|bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,"
	  "resourcequotas,resourcequotas/status|" RO,
	  "\\|namespaces|" RO, "discovery.k8s.io|endpointslices|" RO,
	  "apps|controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,"
	  "replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status|" RO,
	  "autoscaling|horizontalpodautoscalers,horizontalpodautoscalers/status|" RO,
	  "batch|cronjobs,cronjobs/status,jobs,jobs/status|" RO,
	  "extensions|daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,"
	  "ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,"
	  "replicationcontrollers/scale|" RO,
	  "policy|poddisruptionbudgets,poddisruptionbudgets/status|" RO,
	  "networking.k8s.io|ingresses,ingresses/status,networkpolicies|" RO}},
	/* metrics-server's: reading metrics.k8s.io with view, edit and admin */
	{"system:aggregated-metrics-reader", "view,edit,admin", NULL, {"metrics.k8s.io|nodes,pods|" RO}},
	{"system:auth-delegator",
	 NULL,
	 NULL,
	 {"authentication.k8s.io|tokenreviews|create", "authorization.k8s.io|subjectaccessreviews|create"}},
	{"system:basic-user",
	 NULL,
	 NULL,
	 {"authorization.k8s.io|selfsubjectaccessreviews,selfsubjectrulesreviews|create",
	  "authentication.k8s.io|selfsubjectreviews|create"}},
	{"system:certificates.k8s.io:certificatesigningrequests:nodeclient",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|certificatesigningrequests/nodeclient|create"}},
	{"system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|certificatesigningrequests/selfnodeclient|create"}},
	{"system:certificates.k8s.io:kube-apiserver-client-approver",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|signers|approve|kubernetes.io/kube-apiserver-client"}},
	{"system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|signers|approve|kubernetes.io/kube-apiserver-client-kubelet"}},
	{"system:certificates.k8s.io:kubelet-serving-approver",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|signers|approve|kubernetes.io/kubelet-serving"}},
	{"system:certificates.k8s.io:legacy-unknown-approver",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|signers|approve|kubernetes.io/legacy-unknown"}},
	{"system:controller:disruption-controller",
	 NULL,
	 NULL,
	 {"extensions,apps|deployments|" RO, "apps,extensions|replicasets|" RO, "\\|replicationcontrollers|" RO,
	  "policy|poddisruptionbudgets|" RO, "apps|statefulsets|" RO, "policy|poddisruptionbudgets/status|update",
	  "*|*/scale|get", "\\|pods/status|patch,update", EVENTS}},
	{"system:controller:replication-controller",
	 NULL,
	 NULL,
	 {"\\|replicationcontrollers|get,list,update,watch", "\\|replicationcontrollers/status|update",
	  "\\|replicationcontrollers/finalizers|update", "\\|pods|create,delete,list,patch,watch", EVENTS}},
	/* controller_policy.go's role of the StatefulSet controller (skiff's
	 * controllers run in the API server; the role is there for clients
	 * that expect it, and for a controller run apart) */
	{"system:controller:statefulset-controller",
	 NULL,
	 NULL,
	 {"\\|pods|list,watch", "apps|statefulsets|" RO, "apps|statefulsets/status|update",
	  "apps|statefulsets/finalizers|update", "\\|pods|create,delete,get,patch,update",
	  "apps|controllerrevisions|create,delete,get,list,patch,update,watch", "\\|persistentvolumeclaims|create,get",
	  "\\|persistentvolumeclaims|delete,update", EVENTS}},
	{"system:controller:persistent-volume-binder",
	 NULL,
	 NULL,
	 {"\\|persistentvolumes|create,delete,get,list,update,watch", "\\|persistentvolumes/status|update",
	  "\\|persistentvolumeclaims|get,list,update,watch", "\\|persistentvolumeclaims/status|update",
	  "\\|pods|create,delete,get,list,watch", "storage.k8s.io|storageclasses|" RO, "\\|events|watch", EVENTS}},
	{"system:controller:expand-controller",
	 NULL,
	 NULL,
	 {"\\|persistentvolumes|get,list,patch,update,watch", "\\|persistentvolumeclaims/status|patch,update",
	  "\\|persistentvolumeclaims|get,list,watch", "storage.k8s.io|storageclasses|get,list,watch", EVENTS}},
	{"system:controller:horizontal-pod-autoscaler",
	 NULL,
	 NULL,
	 {"autoscaling|horizontalpodautoscalers|" RO, "autoscaling|horizontalpodautoscalers/status|update",
	  "*|*/scale|get,update", "\\|pods|list", "metrics.k8s.io|pods|list", "custom.metrics.k8s.io|*|get,list",
	  "external.metrics.k8s.io|*|get,list", EVENTS}},
	{"system:discovery",
	 NULL,
	 NULL,
	 {"url:/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/|get"}},
	{"system:heapster", NULL, NULL, {"\\|events,namespaces,nodes,pods|" RO, "extensions|deployments|" RO}},
	{"system:kube-aggregator", NULL, NULL, {"\\|endpoints,services|" RO}},
	{"system:kube-controller-manager",
	 NULL,
	 NULL,
	 {EVENTS, "coordination.k8s.io|leases|create", "coordination.k8s.io|leases|get,update|kube-controller-manager",
	  "\\|secrets,serviceaccounts|create", "\\|secrets|delete",
	  "\\|configmaps,namespaces,secrets,serviceaccounts|get", "\\|secrets,serviceaccounts|update",
	  "authentication.k8s.io|tokenreviews|create", "authorization.k8s.io|subjectaccessreviews|create",
	  "*|*|list,watch", "\\|serviceaccounts/token|create"}},
	{"system:kube-dns", NULL, NULL, {"\\|endpoints,services|list,watch"}},
	{"system:kube-scheduler",
	 NULL,
	 NULL,
	 {EVENTS, "coordination.k8s.io|leases|create", "coordination.k8s.io|leases|get,update|kube-scheduler",
	  "\\|nodes|" RO, "\\|pods|delete,get,list,watch", "\\|bindings,pods/binding|create",
	  "\\|pods/status|patch,update", "\\|replicationcontrollers,services|" RO, "apps,extensions|replicasets|" RO,
	  "apps|statefulsets|" RO, "policy|poddisruptionbudgets|" RO, "\\|persistentvolumeclaims,persistentvolumes|" RO,
	  "authentication.k8s.io|tokenreviews|create", "authorization.k8s.io|subjectaccessreviews|create",
	  "storage.k8s.io|csinodes|" RO, "\\|namespaces|" RO, "storage.k8s.io|csidrivers|" RO,
	  "storage.k8s.io|csistoragecapacities|" RO}},
	{"system:kubelet-api-admin",
	 NULL,
	 NULL,
	 {"\\|nodes|" RO, "\\|nodes|proxy", "\\|nodes/log,nodes/metrics,nodes/proxy,nodes/stats|*"}},
	{"system:monitoring",
	 NULL,
	 NULL,
	 {"url:/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*|get"}},
	{"system:node",
	 NULL,
	 NULL,
	 {"authentication.k8s.io|tokenreviews|create",
	  "authorization.k8s.io|localsubjectaccessreviews,subjectaccessreviews|create",
	  "\\|services|" RO,
	  "\\|nodes|create,get,list,watch",
	  "\\|nodes/status|patch,update",
	  "\\|nodes|patch,update",
	  "\\|events|create,patch,update",
	  "\\|pods|" RO,
	  "\\|pods|create,delete",
	  "\\|pods/status|patch,update",
	  "\\|pods/eviction|create",
	  "\\|configmaps,secrets|" RO,
	  "\\|persistentvolumeclaims,persistentvolumes|get",
	  "\\|endpoints|get",
	  "certificates.k8s.io|certificatesigningrequests|create,get,list,watch",
	  "coordination.k8s.io|leases|create,delete,get,patch,update",
	  "storage.k8s.io|volumeattachments|get",
	  "\\|serviceaccounts/token|create",
	  "\\|persistentvolumeclaims/status|get,patch,update",
	  "storage.k8s.io|csidrivers|" RO,
	  "storage.k8s.io|csinodes|create,delete,get,patch,update",
	  "node.k8s.io|runtimeclasses|" RO}},
	{"system:node-bootstrapper",
	 NULL,
	 NULL,
	 {"certificates.k8s.io|certificatesigningrequests|create,get,list,watch"}},
	{"system:node-problem-detector", NULL, NULL, {"\\|nodes|get", "\\|nodes/status|patch", EVENTS}},
	{"system:node-proxier",
	 NULL,
	 NULL,
	 {"\\|endpoints,services|list,watch", "\\|nodes|" RO, EVENTS, "discovery.k8s.io|endpointslices|list,watch"}},
	{"system:persistent-volume-provisioner",
	 NULL,
	 NULL,
	 {"\\|persistentvolumes|create,delete,get,list,watch", "\\|persistentvolumeclaims|get,list,update,watch",
	  "storage.k8s.io|storageclasses|" RO, "\\|events|watch", EVENTS}},
	{"system:public-info-viewer", NULL, NULL, {"url:/healthz,/livez,/readyz,/version,/version/|get"}},
	{"system:service-account-issuer-discovery",
	 NULL,
	 NULL,
	 {"url:/.well-known/openid-configuration,/openid/v1/jwks|get"}},
	{"system:volume-scheduler",
	 NULL,
	 NULL,
	 {"\\|persistentvolumes|get,list,patch,update,watch", "storage.k8s.io|storageclasses|" RO,
	  "\\|persistentvolumeclaims|get,list,patch,update,watch"}},
	{"view", "edit", "view", {NULL}},
};

/* Subjects: "Group:name", "User:name", "ServiceAccount:ns:name". */
typedef struct crb {
	const char *name;
	const char *subjects[3];
	const char *role; /* the ClusterRole bound, NULL: the binding's name */
} crb;

static const crb bindings[] = {
	{"cluster-admin", {"Group:system:masters"}, NULL},
	{"system:basic-user", {"Group:system:authenticated"}, NULL},
	{"system:controller:disruption-controller", {"ServiceAccount:kube-system:disruption-controller"}, NULL},
	{"system:controller:replication-controller", {"ServiceAccount:kube-system:replication-controller"}, NULL},
	{"system:controller:statefulset-controller", {"ServiceAccount:kube-system:statefulset-controller"}, NULL},
	{"system:controller:persistent-volume-binder", {"ServiceAccount:kube-system:persistent-volume-binder"}, NULL},
	{"system:controller:expand-controller", {"ServiceAccount:kube-system:expand-controller"}, NULL},
	{"system:controller:horizontal-pod-autoscaler", {"ServiceAccount:kube-system:horizontal-pod-autoscaler"}, NULL},
	{"system:discovery", {"Group:system:authenticated"}, NULL},
	{"system:kube-controller-manager", {"User:system:kube-controller-manager"}, NULL},
	{"system:kube-dns", {"ServiceAccount:kube-system:kube-dns"}, NULL},
	{"system:kube-scheduler", {"User:system:kube-scheduler"}, NULL},
	{"system:monitoring", {"Group:system:monitoring"}, NULL},
	{"system:node", {NULL}, NULL},
	{"system:node-proxier", {"User:system:kube-proxy"}, NULL},
	{"system:public-info-viewer", {"Group:system:authenticated", "Group:system:unauthenticated"}, NULL},
	{"system:service-account-issuer-discovery", {"Group:system:serviceaccounts"}, NULL},
	{"system:volume-scheduler", {"User:system:kube-scheduler"}, NULL},
	/* kubeadm's (phases/bootstraptoken/node): bootstrap tokens may ask for
	 * CSRs, the approver grants a new node's client certificate
	 * (nodeclient) and a node's renewal of its own (selfnodeclient) */
	{"kubeadm:kubelet-bootstrap", {"Group:system:bootstrappers"}, "system:node-bootstrapper"},
	{"kubeadm:node-autoapprove-bootstrap",
	 {"Group:system:bootstrappers"},
	 "system:certificates.k8s.io:certificatesigningrequests:nodeclient"},
	{"kubeadm:node-autoapprove-certificate-rotation",
	 {"Group:system:nodes"},
	 "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"},
};

/* "a,b" -> ["a","b"]; "\" is the empty string (the core group). */
static json_t *split(const char *s, size_t n)
{
	json_t *a = json_array();

	while (n) {
		size_t k = 0;

		while (k < n && s[k] != ',')
			k++;
		if (k == 1 && s[0] == '\\')
			json_array_append_new(a, json_string(""));
		else
			json_array_append_new(a, json_stringn(s, k));
		s += k;
		n -= k;
		if (n) {
			s++;
			n--;
		}
	}
	return a;
}

/* The PolicyRule a rule string writes (a new object). */
json_t *sk__rbac_policy_rule(const char *text)
{
	static const char *const res_fields[] = {"apiGroups", "resources", "verbs", "resourceNames"};
	int url = !strncmp(text, "url:", 4);
	const char *p = url ? text + 4 : text;
	json_t *rule = json_object();

	for (int f = 0; *p || f == 0; f++) {
		size_t n = strcspn(p, "|");
		const char *name = url ? (f == 0 ? "nonResourceURLs" : "verbs") : f < 4 ? res_fields[f] : NULL;

		if (name)
			json_object_set_new(rule, name, split(p, n));
		p += n;
		if (*p == '|')
			p++;
		else
			break;
	}
	return rule;
}

static json_t *role_json(const role *r)
{
	json_t *rules = json_array();
	json_t *o = json_pack("{s:s, s:s, s:{s:s, s:{s:s}, s:{s:s}}}", "apiVersion", SK_RBAC_GROUP "/v1", "kind",
			      "ClusterRole", "metadata", "name", r->name, "annotations", AUTOUPDATE, "true", "labels",
			      BOOTSTRAPPING, "rbac-defaults");

	for (int i = 0; r->rules[i]; i++)
		json_array_append_new(rules, sk__rbac_policy_rule(r->rules[i]));
	json_object_set_new(o, "rules", rules);
	for (const char *a = r->aggregate_to; a && *a;) {
		size_t n = strcspn(a, ",");
		cleanup_free char *l = xasprintf(SK_RBAC_GROUP "/aggregate-to-%.*s", (int)n, a);

		json_object_set_new(json_object_get(json_object_get(o, "metadata"), "labels"), l, json_string("true"));
		a += n + (a[n] == ',');
	}
	if (r->aggregates) {
		cleanup_free char *l = xasprintf(SK_RBAC_GROUP "/aggregate-to-%s", r->aggregates);

		json_object_set_new(o, "aggregationRule",
				    json_pack("{s:[{s:{s:s}}]}", "clusterRoleSelectors", "matchLabels", l, "true"));
	}
	return o;
}

static json_t *binding_json(const crb *b)
{
	json_t *subjects = json_array();
	json_t *o = json_pack("{s:s, s:s, s:{s:s, s:{s:s}, s:{s:s}}, s:{s:s, s:s, s:s}}", "apiVersion",
			      SK_RBAC_GROUP "/v1", "kind", "ClusterRoleBinding", "metadata", "name", b->name,
			      "annotations", AUTOUPDATE, "true", "labels", BOOTSTRAPPING, "rbac-defaults", "roleRef",
			      "apiGroup", SK_RBAC_GROUP, "kind", "ClusterRole", "name", b->role ?: b->name);

	for (int i = 0; i < 3 && b->subjects[i]; i++) {
		const char *s = b->subjects[i], *c = strchr(s, ':');
		cleanup_free char *kind = xstrndup(s, (size_t)(c - s));

		if (!strcmp(kind, "ServiceAccount")) {
			const char *c2 = strchr(c + 1, ':');
			cleanup_free char *ns = xstrndup(c + 1, (size_t)(c2 - c - 1));

			json_array_append_new(
				subjects, json_pack("{s:s, s:s, s:s}", "kind", kind, "name", c2 + 1, "namespace", ns));
		} else {
			json_array_append_new(subjects, json_pack("{s:s, s:s, s:s}", "kind", kind, "apiGroup",
								  SK_RBAC_GROUP, "name", c + 1));
		}
	}
	if (json_array_size(subjects))
		json_object_set_new(o, "subjects", subjects);
	else
		json_decref(subjects);
	return o;
}

/* Adds want's labels and annotations that have lacks; 1 when it changed. */
static int merge_meta(json_t *have, json_t *want)
{
	static const char *const maps[] = {"labels", "annotations"};
	json_t *hm = json_object_get(have, "metadata"), *wm = json_object_get(want, "metadata");
	int changed = 0;

	for (int i = 0; i < 2; i++) {
		json_t *w = json_object_get(wm, maps[i]), *h = json_object_get(hm, maps[i]), *v;
		const char *k;

		if (!json_is_object(h)) {
			h = json_object();
			json_object_set_new(hm, maps[i], h);
		}
		json_object_foreach(w, k, v)
			if (!json_object_get(h, k)) {
				json_object_set(h, k, v);
				changed = 1;
			}
	}
	return changed;
}

static int autoupdate_off(json_t *have)
{
	const char *v = json_string_value(
		json_object_get(json_object_get(json_object_get(have, "metadata"), "annotations"), AUTOUPDATE));

	return v && !strcmp(v, "false");
}

/* ReconcileClusterRole: the missing rules and aggregation selectors added. */
static int reconcile_role(json_t *have, json_t *want)
{
	json_t *hr = json_object_get(have, "rules"), *wa = json_object_get(want, "aggregationRule");
	json_t *missing = NULL;
	int changed = merge_meta(have, want);

	if (!json_is_array(hr)) {
		hr = json_array();
		json_object_set_new(have, "rules", hr);
	}
	/* an aggregated role's rules are the controller's: only its selectors are reconciled */
	if (!wa && !sk_rbac_covers(hr, json_object_get(want, "rules"), &missing)) {
		json_array_extend(hr, missing);
		changed = 1;
	}
	json_decref(missing);
	if (wa) {
		json_t *ha = json_object_get(have, "aggregationRule"), *hs,
		       *ws = json_object_get(wa, "clusterRoleSelectors");
		size_t i, j;
		json_t *s, *t;

		if (!json_is_object(ha)) {
			ha = json_object();
			json_object_set_new(have, "aggregationRule", ha);
		}
		hs = json_object_get(ha, "clusterRoleSelectors");
		if (!json_is_array(hs)) {
			hs = json_array();
			json_object_set_new(ha, "clusterRoleSelectors", hs);
		}
		json_array_foreach(ws, i, s) {
			int found = 0;

			json_array_foreach(hs, j, t)
				found |= json_equal(s, t);
			if (!found) {
				json_array_append(hs, s);
				changed = 1;
			}
		}
	}
	return changed;
}

/* ReconcileClusterRoleBinding: the missing subjects added. */
static int reconcile_binding(json_t *have, json_t *want)
{
	json_t *hs = json_object_get(have, "subjects");
	size_t i, j;
	json_t *s, *t;
	int changed = merge_meta(have, want);

	if (!json_is_array(hs) && json_array_size(json_object_get(want, "subjects"))) {
		hs = json_array();
		json_object_set_new(have, "subjects", hs);
	}
	json_array_foreach(json_object_get(want, "subjects"), i, s) {
		int found = 0;

		json_array_foreach(hs, j, t)
			found |= json_equal(s, t);
		if (!found) {
			json_array_append(hs, s);
			changed = 1;
		}
	}
	return changed;
}

static void ensure(sk_client *c, const char *collection, json_t *want, int (*reconcile)(json_t *, json_t *))
{
	const char *name = json_string_value(json_object_get(json_object_get(want, "metadata"), "name"));
	cleanup_free char *path = xasprintf("%s/%s", collection, name);
	cleanup_json json_t *have = NULL, *out = NULL;
	sk_error_t err = {0};

	have = sk_client_get(c, path, &err);
	if (have && reconcile == reconcile_binding &&
	    !json_equal(json_object_get(have, "roleRef"), json_object_get(want, "roleRef")) && !autoupdate_off(have)) {
		sk_client_delete(c, path, NULL, &err);
		json_decref(have);
		have = NULL;
	}
	sk_error_clear(&err);
	if (!have) {
		out = sk_client_do(c, "POST", collection, "fieldManager=kube-apiserver", want, NULL, &err);
	} else {
		if (autoupdate_off(have) || !reconcile(have, want))
			return;
		out = sk_client_do(c, "PUT", path, "fieldManager=kube-apiserver", have, NULL, &err);
	}
	if (!out)
		sk_warn("rbac", "reconciling %s: %s", path, err.msg);
}

void sk__rbac_bootstrap(sk_api *api)
{
	sk_client *c = sk_client_new_inproc(api);

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		cleanup_json json_t *o = role_json(&roles[i]);

		ensure(c, "/apis/" SK_RBAC_GROUP "/v1/clusterroles", o, reconcile_role);
	}
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		cleanup_json json_t *o = binding_json(&bindings[i]);

		ensure(c, "/apis/" SK_RBAC_GROUP "/v1/clusterrolebindings", o, reconcile_binding);
	}
	sk_client_free(c);
}
