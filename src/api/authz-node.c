/* The Node authorizer and its graph (authz-node.h). */
#include <pthread.h>
#include <string.h>

#include "api/api-int.h"
#include "api/authz-node.h"
#include "util/json.h"
#include "util/util.h"

/* ---- the graph ---- */

struct sk_node_graph {
	pthread_mutex_t mu;
	json_t *pods;  /* store key → {"node": N, "refs": ["secrets/ns/name", …]} */
	json_t *edges; /* node → {"secrets/ns/name": count, …} */
	json_t *pvcs;  /* "ns/name" → the bound PersistentVolume's name */
	sk_store_watch *w_pods, *w_pvcs;
};

sk_node_graph *sk__node_graph_new(void)
{
	sk_node_graph *g = xzalloc(sizeof(*g));

	pthread_mutex_init(&g->mu, NULL);
	g->pods = json_object();
	g->edges = json_object();
	g->pvcs = json_object();
	return g;
}

void sk__node_graph_free(sk_node_graph *g)
{
	if (!g)
		return;
	json_decref(g->pods);
	json_decref(g->edges);
	json_decref(g->pvcs);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void add_ref(json_t *refs, const char *kind, const char *ns, const char *name)
{
	cleanup_free char *r = NULL;

	if (!name || !*name)
		return;
	r = xasprintf("%s/%s/%s", kind, ns, name);
	for (size_t i = 0; i < json_array_size(refs); i++)
		if (!strcmp(json_string_value(json_array_get(refs, i)), r))
			return;
	json_array_append_new(refs, json_string(r));
}

static void container_refs(json_t *refs, json_t *containers, const char *ns)
{
	json_t *c, *x;
	size_t i, j;

	json_array_foreach(containers, i, c) {
		json_array_foreach(json_object_get(c, "envFrom"), j, x) {
			add_ref(refs, "secrets", ns, jstr(json_object_get(x, "secretRef"), "name"));
			add_ref(refs, "configmaps", ns, jstr(json_object_get(x, "configMapRef"), "name"));
		}
		json_array_foreach(json_object_get(c, "env"), j, x) {
			json_t *vf = json_object_get(x, "valueFrom");

			add_ref(refs, "secrets", ns, jstr(json_object_get(vf, "secretKeyRef"), "name"));
			add_ref(refs, "configmaps", ns, jstr(json_object_get(vf, "configMapKeyRef"), "name"));
		}
	}
}

/* The secretRef-carrying volume sources (upstream's VisitPodSecretNames). */
static void volume_secret_refs(json_t *refs, json_t *v, const char *ns)
{
	static const char *const with_secret_ref[] = {"cephfs", "cinder",  "flexVolume", "iscsi",
						      "rbd",    "scaleIO", "storageos",  NULL};

	add_ref(refs, "secrets", ns, jstr(json_object_get(v, "secret"), "secretName"));
	add_ref(refs, "secrets", ns, jstr(json_object_get(v, "azureFile"), "secretName"));
	add_ref(refs, "secrets", ns, jstr(json_object_get(json_object_get(v, "csi"), "nodePublishSecretRef"), "name"));
	for (int k = 0; with_secret_ref[k]; k++)
		add_ref(refs, "secrets", ns,
			jstr(json_object_get(json_object_get(v, with_secret_ref[k]), "secretRef"), "name"));
}

/* Everything a pod references that its node may read (upstream's
 * graph_populator AddPod). A new array of "resource/ns/name". */
static json_t *pod_refs(json_t *pod)
{
	json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec"), *x, *v;
	const char *ns = jstr(meta, "namespace"), *sa = jstr(spec, "serviceAccountName");
	json_t *refs = json_array();
	size_t i, j;

	add_ref(refs, "serviceaccounts", ns, sa);
	json_array_foreach(json_object_get(spec, "imagePullSecrets"), i, x)
		add_ref(refs, "secrets", ns, jstr(x, "name"));
	container_refs(refs, json_object_get(spec, "initContainers"), ns);
	container_refs(refs, json_object_get(spec, "containers"), ns);
	container_refs(refs, json_object_get(spec, "ephemeralContainers"), ns);
	json_array_foreach(json_object_get(spec, "volumes"), i, v) {
		volume_secret_refs(refs, v, ns);
		add_ref(refs, "configmaps", ns, jstr(json_object_get(v, "configMap"), "name"));
		json_array_foreach(json_object_get(json_object_get(v, "projected"), "sources"), j, x) {
			add_ref(refs, "secrets", ns, jstr(json_object_get(x, "secret"), "name"));
			add_ref(refs, "configmaps", ns, jstr(json_object_get(x, "configMap"), "name"));
		}
		add_ref(refs, "persistentvolumeclaims", ns,
			jstr(json_object_get(v, "persistentVolumeClaim"), "claimName"));
		if (json_is_object(json_object_get(v, "ephemeral"))) {
			cleanup_free char *claim = xasprintf("%s-%s", jstr(meta, "name"), jstr(v, "name"));

			add_ref(refs, "persistentvolumeclaims", ns, claim);
		}
	}
	return refs;
}

/* Adds (d = 1) or removes (d = -1) a pod's edges; under mu. */
static void count_edges(sk_node_graph *g, json_t *entry, int d)
{
	const char *node = jstr(entry, "node");
	json_t *e = json_object_get(g->edges, node), *r;
	size_t i;

	if (!e) {
		if (d < 0)
			return;
		e = json_object();
		json_object_set_new(g->edges, node, e);
	}
	json_array_foreach(json_object_get(entry, "refs"), i, r) {
		const char *k = json_string_value(r);
		json_int_t n = json_integer_value(json_object_get(e, k)) + d;

		if (n > 0)
			json_object_set_new(e, k, json_integer(n));
		else
			json_object_del(e, k);
	}
	if (!json_object_size(e))
		json_object_del(g->edges, node);
}

void sk__node_graph_set_pod(sk_node_graph *g, const char *key, json_t *pod)
{
	const char *node = jstr(json_object_get(pod, "spec"), "nodeName");
	json_t *entry = NULL;

	if (pod && *node)
		entry = json_pack("{s:s, s:o}", "node", node, "refs", pod_refs(pod));
	pthread_mutex_lock(&g->mu);
	count_edges(g, json_object_get(g->pods, key), -1);
	if (entry) {
		count_edges(g, entry, 1);
		json_object_set_new(g->pods, key, entry);
	} else {
		json_object_del(g->pods, key);
	}
	pthread_mutex_unlock(&g->mu);
}

void sk__node_graph_set_pvc(sk_node_graph *g, const char *ns_name, json_t *pvc)
{
	const char *pv = jstr(json_object_get(pvc, "spec"), "volumeName");

	pthread_mutex_lock(&g->mu);
	if (pvc && *pv)
		json_object_set_new(g->pvcs, ns_name, json_string(pv));
	else
		json_object_del(g->pvcs, ns_name);
	pthread_mutex_unlock(&g->mu);
}

int sk__node_graph_has(sk_node_graph *g, const char *node, const char *resource, const char *ns, const char *name)
{
	static const char pvc_prefix[] = "persistentvolumeclaims/";
	cleanup_free char *k = xasprintf("%s/%s/%s", resource, ns, name);
	json_t *e, *v;
	const char *ref;
	int found = 0;

	pthread_mutex_lock(&g->mu);
	e = json_object_get(g->edges, node);
	if (strcmp(resource, "persistentvolumes")) {
		found = json_object_get(e, k) != NULL;
	} else {
		json_object_foreach(e, ref, v) {
			if (strncmp(ref, pvc_prefix, strlen(pvc_prefix)))
				continue;
			if (!strcmp(jstr(g->pvcs, ref + strlen(pvc_prefix)), name)) {
				found = 1;
				break;
			}
		}
	}
	pthread_mutex_unlock(&g->mu);
	return found;
}

int sk__node_graph_refs_any(sk_node_graph *g, const char *node, const char *resource)
{
	size_t n = strlen(resource);
	const char *ref;
	json_t *v;
	int found = 0;

	pthread_mutex_lock(&g->mu);
	json_object_foreach(json_object_get(g->edges, node), ref, v)
		if (!strncmp(ref, resource, n) && ref[n] == '/') {
			found = 1;
			break;
		}
	pthread_mutex_unlock(&g->mu);
	return found;
}

/* ---- the graph over the store ---- */

static void on_pod(const sk_store_event *ev, void *ud)
{
	sk_node_graph *g = ud;
	cleanup_json json_t *pod = NULL;

	if (ev->type != SK_STORE_DELETE)
		pod = sk_json_loadb(ev->kv->value, ev->kv->len);
	sk__node_graph_set_pod(g, ev->kv->key, pod);
}

/* "/registry/persistentvolumeclaims/ns/name" → "ns/name" */
static const char *claim_of(const char *key)
{
	const char *p = key + strlen("/registry/");

	p = strchr(p, '/');
	return p ? p + 1 : key;
}

static void on_pvc(const sk_store_event *ev, void *ud)
{
	sk_node_graph *g = ud;
	cleanup_json json_t *pvc = NULL;

	if (ev->type != SK_STORE_DELETE)
		pvc = sk_json_loadb(ev->kv->value, ev->kv->len);
	sk__node_graph_set_pvc(g, claim_of(ev->kv->key), pvc);
}

/* Lists prefix into the graph, then watches it from the list's revision. */
static sk_store_watch *follow(sk_api *api, const char *prefix, sk_store_watch_cb cb, sk_error_t *err)
{
	sk_store_list l = {0};
	sk_store_watch *w;

	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, err) < 0)
		return NULL;
	for (size_t i = 0; i < l.n; i++) {
		sk_store_event ev = {.type = SK_STORE_CREATE, .kv = &l.items[i]};

		cb(&ev, api->node_graph);
	}
	w = sk_store_watch_start(api->store, prefix, l.rev, cb, api->node_graph, err);
	sk_store_list_release(&l);
	return w;
}

int sk__node_graph_start(sk_api *api, sk_error_t *err)
{
	sk_node_graph *g = sk__node_graph_new();

	api->node_graph = g;
	g->w_pods = follow(api, "/registry/pods/", on_pod, err);
	if (!g->w_pods)
		return -1;
	g->w_pvcs = follow(api, "/registry/persistentvolumeclaims/", on_pvc, err);
	return g->w_pvcs ? 0 : -1;
}

void sk__node_graph_stop(sk_api *api)
{
	sk_node_graph *g = api->node_graph;

	if (!g)
		return;
	if (g->w_pods)
		sk_store_unwatch(api->store, g->w_pods);
	if (g->w_pvcs)
		sk_store_unwatch(api->store, g->w_pvcs);
	api->node_graph = NULL;
	sk__node_graph_free(g);
}

/* ---- the authorizer ---- */

const char *sk__node_identity(const sk_user *u)
{
	if (!u || !sk_user_in_group(u, SK_GROUP_NODES))
		return NULL;
	if (strncmp(u->name, SK_NODE_USER_PREFIX, strlen(SK_NODE_USER_PREFIX)))
		return "";
	return u->name + strlen(SK_NODE_USER_PREFIX);
}

typedef struct rule {
	const char *verbs;     /* space-separated */
	const char *group;     /* API group */
	const char *resources; /* space-separated, "resource" or "resource/subresource" */
	const char *ns;        /* NULL: any namespace */
} rule;

#define READ "get list watch"

/* upstream's NodeRules() (bootstrappolicy/policy.go, Kubernetes 1.32), then
 * what skiff's agent does beyond a kubelet: it is also kube-proxy
 * (system:node-proxier), the network policy agent and the cluster DNS
 * (reads of services, endpoint slices, network policies, namespaces, pods),
 * reads its network settings (ConfigMaps of kube-system), provisions local
 * volumes (creates and deletes PersistentVolumes, reads StorageClasses,
 * selects itself for claims of its pods) and records a pod's GPUs
 * in an annotation (NodeRestriction limits that to its own pods). */
static const rule node_rules[] = {
	{"create", "authentication.k8s.io", "tokenreviews", NULL},
	{"create", "authorization.k8s.io", "subjectaccessreviews localsubjectaccessreviews", NULL},
	{READ, "", "services", NULL},
	{"create get list watch", "", "nodes", NULL},
	{"update patch", "", "nodes/status", NULL},
	{"update patch", "", "nodes", NULL},
	{"create update patch", "", "events", NULL},
	{READ, "", "pods", NULL},
	{"create delete", "", "pods", NULL},
	{"update patch", "", "pods/status", NULL},
	{"create", "", "pods/eviction", NULL},
	{"get list watch", "", "secrets configmaps", NULL},
	{"get", "", "persistentvolumeclaims persistentvolumes", NULL},
	{"get", "", "endpoints", NULL},
	{"create get list watch", "certificates.k8s.io", "certificatesigningrequests", NULL},
	{"get create update patch delete", "coordination.k8s.io", "leases", NULL},
	{"get", "storage.k8s.io", "volumeattachments", NULL},
	{"create", "", "serviceaccounts/token", NULL},
	{"get update patch", "", "persistentvolumeclaims/status", NULL},
	{READ, "storage.k8s.io", "csidrivers", NULL},
	{"get create update patch delete", "storage.k8s.io", "csinodes", NULL},
	{READ, "node.k8s.io", "runtimeclasses", NULL},
	/* skiff's agent beyond a kubelet */
	{READ, "", "endpoints nodes namespaces", NULL},
	{READ, "discovery.k8s.io", "endpointslices", NULL},
	{READ, "networking.k8s.io", "networkpolicies", NULL},
	{READ, "", "configmaps", "kube-system"},
	{"create delete get list watch", "", "persistentvolumes", NULL},
	{"get", "storage.k8s.io", "storageclasses", NULL},
	{"update patch", "", "pods", NULL},
};

static int word_in(const char *w, const char *list)
{
	size_t n = strlen(w);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");

		if (len == n && !strncmp(p, w, n))
			return 1;
		p += len + (p[len] == ' ');
	}
	return 0;
}

static int rules_allow(const rule *rules, size_t n, const sk_authz_attrs *a)
{
	cleanup_free char *res = a->subresource[0] ? xasprintf("%s/%s", a->resource, a->subresource)
						   : xstrdup(a->resource);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rules[i].group, a->api_group) && word_in(a->verb, rules[i].verbs) &&
		    word_in(res, rules[i].resources) && (!rules[i].ns || !strcmp(rules[i].ns, a->ns)))
			return 1;
	return 0;
}

static sk_authz_decision no(char **reason, const char *why)
{
	*reason = xstrdup(why);
	return SK_AUTHZ_NO_OPINION;
}

/* authorize(): a path from the node to the named object. */
static sk_authz_decision by_graph(sk_node_graph *g, const char *node, const char *res, const sk_authz_attrs *a,
				  char **reason)
{
	if (!a->name[0])
		return no(reason, "No Object name found");
	if (g && sk__node_graph_has(g, node, res, a->ns, a->name))
		return SK_AUTHZ_ALLOW;
	*reason = xasprintf("no relationship found between node '%s' and this object", node);
	return SK_AUTHZ_NO_OPINION;
}

static sk_authz_decision read_namespaced(sk_node_graph *g, const char *node, const sk_authz_attrs *a, char **reason)
{
	if (strcmp(a->verb, "get") && strcmp(a->verb, "list") && strcmp(a->verb, "watch"))
		return no(reason, "can only read resources of this type");
	if (a->subresource[0])
		return no(reason, "cannot read subresource");
	if (!a->ns[0])
		return no(reason, "can only read namespaced object of this type");
	return by_graph(g, node, a->resource, a, reason);
}

static sk_authz_decision get_only(sk_node_graph *g, const char *node, const sk_authz_attrs *a, char **reason)
{
	if (strcmp(a->verb, "get"))
		return no(reason, "can only get individual resources of this type");
	if (a->subresource[0])
		return no(reason, "cannot get subresource");
	return by_graph(g, node, a->resource, a, reason);
}

/* Claims of its pods: get, and update or patch of their status; skiff's
 * local-path provisioner binds them too (update or patch of the claim). */
static sk_authz_decision claim(sk_node_graph *g, const char *node, const sk_authz_attrs *a, char **reason)
{
	int write = !strcmp(a->verb, "update") || !strcmp(a->verb, "patch");

	if (!strcmp(a->subresource, "status")) {
		if (!write && strcmp(a->verb, "get"))
			return no(reason, "can only get/update/patch this type");
		return by_graph(g, node, a->resource, a, reason);
	}
	if (write && !a->subresource[0])
		return by_graph(g, node, a->resource, a, reason);
	return get_only(g, node, a, reason);
}

static sk_authz_decision lease(const char *node, const sk_authz_attrs *a, char **reason)
{
	if (!word_in(a->verb, "get create update patch delete"))
		return no(reason, "can only get, create, update, patch, or delete a node lease");
	if (strcmp(a->ns, "kube-node-lease"))
		return no(reason, "can only access leases in the \"kube-node-lease\" system namespace");
	/* create: NodeRestriction checks the name */
	if (strcmp(a->verb, "create") && strcmp(a->name, node))
		return no(reason, "can only access node lease with the same name as the requesting node");
	return SK_AUTHZ_ALLOW;
}

sk_authz_decision sk__authz_node_decide(sk_node_graph *g, const sk_authz_attrs *a, char **reason)
{
	const char *node = sk__node_identity(a->user);
	const char *r = a->resource;

	if (!node)
		return SK_AUTHZ_NO_OPINION;
	if (!*node) {
		*reason = xasprintf("unknown node for user \"%s\"", a->user->name);
		return SK_AUTHZ_NO_OPINION;
	}
	if (a->resource_request && !a->api_group[0]) {
		if (!strcmp(r, "secrets") || (!strcmp(r, "configmaps") && strcmp(a->ns, "kube-system")))
			return read_namespaced(g, node, a, reason);
		if (!strcmp(r, "persistentvolumeclaims"))
			return claim(g, node, a, reason);
		if (!strcmp(r, "persistentvolumes") && !strcmp(a->verb, "get") && !a->subresource[0] && g &&
		    sk__node_graph_has(g, node, r, "", a->name))
			return SK_AUTHZ_ALLOW;
		if (!strcmp(r, "serviceaccounts")) {
			if (strcmp(a->verb, "create"))
				return no(reason, "can only create tokens for individual service accounts");
			if (strcmp(a->subresource, "token"))
				return no(reason, "can only create token subresource of serviceaccount");
			return by_graph(g, node, r, a, reason);
		}
	}
	if (a->resource_request && !strcmp(a->api_group, "coordination.k8s.io") && !strcmp(r, "leases"))
		return lease(node, a, reason);
	if (a->resource_request && rules_allow(node_rules, sizeof(node_rules) / sizeof(node_rules[0]), a))
		return SK_AUTHZ_ALLOW;
	return SK_AUTHZ_NO_OPINION;
}

sk_authz_decision sk__authz_node(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	return sk__authz_node_decide(api->node_graph, a, reason);
}
