/* The NodeRestriction admission plugin (upstream's
 * plugin/pkg/admission/noderestriction): a node ("system:node:NAME" in
 * "system:nodes") may change only its own Node (not its taints, nor labels
 * under node-restriction.kubernetes.io/ or other kubernetes.io and k8s.io
 * labels a kubelet does not set), only its own Lease, create only mirror
 * pods bound to itself, update the status of, delete and evict only pods
 * bound to it, write only the status of claims, and ask only for
 * ServiceAccount tokens bound to pods bound to it.
 *
 * Three of skiff's agent's writes a kubelet does not make are let through for
 * what is the node's own: a pod bound to it gets its GPU annotation (an
 * update of the pod); an unbound claim of its pods gets the node as its
 * selected node (volume.kubernetes.io/selected-node, once: the pod was
 * placed there without the scheduler); and as the local-path provisioner
 * it creates, for a claim of its pods, a PersistentVolume provisioned by
 * rancher.io/local-path whose node affinity is this node alone, and deletes
 * only such volumes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admission.h"
#include "api/api-int.h"
#include "api/authz-node.h"
#include "kube/volume.h"
#include "util/util.h"

#define MIRROR_ANNOTATION "kubernetes.io/config.mirror"

static int forbid(sk_error_t *err, const sk_adm_request *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`. */
static int forbid(sk_error_t *err, const sk_adm_request *a, const char *fmt, ...)
{
	cleanup_free char *why = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		abort();
	va_end(ap);
	return sk_error_set(err, SK_EFORBIDDEN, "%s%s%s \"%s\" is forbidden: %s", a->res->plural,
			    a->res->group[0] ? "." : "", a->res->group, a->name, why);
}

static json_t *jget(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	return b ? json_object_get(v, b) : v;
}

static const char *jstr2(json_t *o, const char *a, const char *b)
{
	const char *s = json_string_value(jget(o, a, b));

	return s ? s : "";
}

static int same(json_t *a, json_t *b) { return json_equal(a ? a : json_null(), b ? b : json_null()); }

/* ---- labels (upstream's getForbiddenLabels and kubelet's label policy) ---- */

static const char *label_ns(const char *label, char *buf, size_t len)
{
	const char *slash = strchr(label, '/');
	size_t n = slash ? (size_t)(slash - label) : 0;

	snprintf(buf, len, "%.*s", (int)n, label);
	return buf;
}

static int ns_is(const char *ns, const char *domain)
{
	size_t n = strlen(ns), d = strlen(domain);

	return !strcmp(ns, domain) || (n > d && ns[n - d - 1] == '.' && !strcmp(ns + n - d, domain));
}

static int kubelet_label(const char *label, const char *ns)
{
	static const char *const labels[] = {"kubernetes.io/hostname",
					     "topology.kubernetes.io/zone",
					     "topology.kubernetes.io/region",
					     "failure-domain.beta.kubernetes.io/zone",
					     "failure-domain.beta.kubernetes.io/region",
					     "beta.kubernetes.io/instance-type",
					     "node.kubernetes.io/instance-type",
					     "kubernetes.io/os",
					     "kubernetes.io/arch",
					     "beta.kubernetes.io/os",
					     "beta.kubernetes.io/arch",
					     NULL};

	for (int i = 0; labels[i]; i++)
		if (!strcmp(label, labels[i]))
			return 1;
	return ns_is(ns, "kubelet.kubernetes.io") || ns_is(ns, "node.kubernetes.io");
}

/* The labels set, changed or removed between old and cur that a node may
 * not touch, sorted and joined by ", " (malloc'd), or NULL. */
static char *forbidden_labels(json_t *cur, json_t *old)
{
	cleanup_json json_t *bad = json_array();
	json_t *sets[2] = {cur, old}, *v;
	const char *k;
	char *out = NULL;

	for (int s = 0; s < 2; s++)
		json_object_foreach(sets[s], k, v) {
			char buf[256];
			const char *ns = label_ns(k, buf, sizeof(buf));
			int changed = !same(json_object_get(cur, k), json_object_get(old, k));
			int kube = ns_is(ns, "kubernetes.io") || ns_is(ns, "k8s.io");

			if (!changed ||
			    !(ns_is(ns, "node-restriction.kubernetes.io") || (kube && !kubelet_label(k, ns))))
				continue;
			if (s == 1 && json_object_get(cur, k))
				continue; /* counted once */
			json_array_append_new(bad, json_string(k));
		}
	if (!json_array_size(bad))
		return NULL;
	/* sets.String's List(): sorted */
	for (size_t i = 1; i < json_array_size(bad); i++)
		for (size_t j = i; j > 0 && strcmp(json_string_value(json_array_get(bad, j - 1)),
						   json_string_value(json_array_get(bad, j))) > 0;
		     j--) {
			json_t *t = json_incref(json_array_get(bad, j));

			json_array_set(bad, j, json_array_get(bad, j - 1));
			json_array_set_new(bad, j - 1, t);
		}
	for (size_t i = 0; i < json_array_size(bad); i++) {
		char *n = xasprintf("%s%s%s", out ? out : "", out ? ", " : "",
				    json_string_value(json_array_get(bad, i)));

		free(out);
		out = n;
	}
	return out;
}

static int admit_node(const char *node, sk_adm_request *a, sk_error_t *err)
{
	cleanup_free char *bad = NULL;

	if (strcmp(a->name, node))
		return forbid(err, a, "node \"%s\" is not allowed to modify node \"%s\"", node, a->name);
	if (a->op == SK_ADM_CREATE && (bad = forbidden_labels(jget(a->obj, "metadata", "labels"), NULL)))
		return forbid(err, a, "node \"%s\" is not allowed to set the following labels: %s", node, bad);
	if (a->op != SK_ADM_UPDATE)
		return 0;
	if (!same(jget(a->obj, "spec", "taints"), jget(a->old, "spec", "taints")))
		return forbid(err, a, "node \"%s\" is not allowed to modify taints", node);
	if ((bad = forbidden_labels(jget(a->obj, "metadata", "labels"), jget(a->old, "metadata", "labels"))))
		return forbid(err, a, "is not allowed to modify labels: %s", bad);
	return 0;
}

/* ---- pods ---- */

static int has_refs(json_t *pod, const char *which)
{
	static const char *const kinds[] = {"secrets", "configmaps", "persistentvolumeclaims"};
	sk_node_graph *g = sk__node_graph_new();
	json_t *copy = json_deep_copy(pod);
	int found = 0;

	/* the graph's own visitor: the pod as if bound to a node "x" */
	json_object_set_new(json_object_get(copy, "spec"), "nodeName", json_string("x"));
	json_object_del(json_object_get(copy, "spec"), "serviceAccountName");
	sk__node_graph_set_pod(g, "p", copy);
	for (int i = 0; i < 3; i++)
		if (!strcmp(kinds[i], which))
			found = sk__node_graph_refs_any(g, "x", kinds[i]);
	sk__node_graph_free(g);
	json_decref(copy);
	return found;
}

static int admit_pod_create(const char *node, sk_adm_request *a, sk_error_t *err)
{
	json_t *pod = a->obj, *owners = jget(pod, "metadata", "ownerReferences"), *o;

	if (!jget(jget(pod, "metadata", "annotations"), MIRROR_ANNOTATION, NULL))
		return forbid(err, a, "pod does not have \"%s\" annotation, node \"%s\" can only create mirror pods",
			      MIRROR_ANNOTATION, node);
	if (strcmp(jstr2(pod, "spec", "nodeName"), node))
		return forbid(err, a, "node \"%s\" can only create pods with spec.nodeName set to itself", node);
	if (json_array_size(owners) > 1)
		return forbid(err, a, "node \"%s\" can only create pods with a single owner reference set to itself",
			      node);
	o = json_array_get(owners, 0);
	if (!o || strcmp(jstr2(o, "apiVersion", NULL), "v1") || strcmp(jstr2(o, "kind", NULL), "Node") ||
	    strcmp(jstr2(o, "name", NULL), node))
		return forbid(err, a, "node \"%s\" can only create pods with an owner reference set to itself", node);
	if (!json_is_true(json_object_get(o, "controller")))
		return forbid(err, a,
			      "node \"%s\" can only create pods with a controller owner reference set to itself", node);
	if (json_is_true(json_object_get(o, "blockOwnerDeletion")))
		return forbid(err, a, "node \"%s\" must not set blockOwnerDeletion on an owner reference", node);
	if (*jstr2(pod, "spec", "serviceAccountName"))
		return forbid(err, a, "node \"%s\" can not create pods that reference a service account", node);
	if (has_refs(pod, "secrets"))
		return forbid(err, a, "node \"%s\" can not create pods that reference secrets", node);
	if (has_refs(pod, "configmaps"))
		return forbid(err, a, "node \"%s\" can not create pods that reference configmaps", node);
	if (has_refs(pod, "persistentvolumeclaims"))
		return forbid(err, a, "node \"%s\" can not create pods that reference persistentvolumeclaims", node);
	return 0;
}

static int admit_pod(const char *node, sk_adm_request *a, sk_error_t *err)
{
	const char *bound = jstr2(a->old ? a->old : a->obj, "spec", "nodeName");

	if (!strcmp(a->sub, "status")) {
		if (a->op != SK_ADM_UPDATE)
			return forbid(err, a, "unexpected operation %s", "CREATE");
		if (strcmp(bound, node))
			return forbid(
				err, a,
				"node \"%s\" can only update pod status for pods with spec.nodeName set to itself",
				node);
		if (!same(jget(a->obj, "metadata", "labels"), jget(a->old, "metadata", "labels")))
			return forbid(err, a, "node \"%s\" cannot update labels through pod status", node);
		return 0;
	}
	if (!strcmp(a->sub, "eviction")) {
		if (strcmp(bound, node))
			return forbid(err, a, "node %s can only evict pods with spec.nodeName set to itself", node);
		return 0;
	}
	if (a->sub[0])
		return forbid(err, a, "unexpected pod subresource \"%s\", only 'status' and 'eviction' are allowed",
			      a->sub);
	switch (a->op) {
	case SK_ADM_CREATE:
		return admit_pod_create(node, a, err);
	case SK_ADM_DELETE:
		if (strcmp(bound, node))
			return forbid(err, a, "node \"%s\" can only delete pods with spec.nodeName set to itself",
				      node);
		return 0;
	case SK_ADM_UPDATE:
		/* skiff: the GPU annotation of its own pods, nothing else */
		if (strcmp(bound, node) || !same(json_object_get(a->obj, "spec"), json_object_get(a->old, "spec")) ||
		    !same(jget(a->obj, "metadata", "labels"), jget(a->old, "metadata", "labels")))
			return forbid(
				err, a,
				"unexpected operation \"UPDATE\", node \"%s\" can only create and delete mirror pods",
				node);
		return 0;
	default:
		return 0;
	}
}

/* ---- claims, leases ---- */

/* Status of a claim: nothing outside status changes (upstream compares
 * the rest). The claim itself: an unbound claim without a selected node
 * gets this node, and nothing else changes. */
static int admit_pvc(const char *node, sk_adm_request *a, sk_error_t *err)
{
	cleanup_json json_t *o = NULL, *n = NULL;

	if (strcmp(a->sub, "status") && a->sub[0])
		return forbid(err, a, "may only update PVC status");
	if (a->op != SK_ADM_UPDATE && a->sub[0])
		return forbid(err, a, "unexpected operation %s", a->op == SK_ADM_CREATE ? "CREATE" : "DELETE");
	if (a->op != SK_ADM_UPDATE)
		return forbid(err, a, "may only update PVC status");
	o = json_deep_copy(a->old);
	n = json_deep_copy(a->obj);
	json_object_del(json_object_get(o, "metadata"), "resourceVersion");
	json_object_del(json_object_get(n, "metadata"), "resourceVersion");
	json_object_del(json_object_get(o, "metadata"), "managedFields");
	json_object_del(json_object_get(n, "metadata"), "managedFields");
	if (!strcmp(a->sub, "status")) {
		json_object_del(o, "status");
		json_object_del(n, "status");
		if (!same(o, n))
			return forbid(err, a,
				      "node \"%s\" is not allowed to update fields other than status.capacity and "
				      "status.conditions",
				      node);
		return 0;
	}
	if (*jstr2(a->old, "spec", "volumeName") ||
	    jget(jget(a->old, "metadata", "annotations"), SK_ANN_SELECTED_NODE, NULL) ||
	    strcmp(jstr2(jget(a->obj, "metadata", "annotations"), SK_ANN_SELECTED_NODE, NULL), node))
		return forbid(err, a, "may only update PVC status");
	json_object_del(jget(n, "metadata", "annotations"), SK_ANN_SELECTED_NODE);
	if (!json_object_size(jget(n, "metadata", "annotations")) && !jget(o, "metadata", "annotations"))
		json_object_del(json_object_get(n, "metadata"), "annotations");
	if (!same(o, n))
		return forbid(err, a, "may only update PVC status");
	return 0;
}

/* A volume of this node's local-path provisioner: provisioned by it, with
 * the node affinity kubernetes.io/hostname In [node] alone. */
static int local_volume_of(json_t *pv, const char *node)
{
	json_t *terms = jget(jget(jget(pv, "spec", "nodeAffinity"), "required", NULL), "nodeSelectorTerms", NULL);
	json_t *term = json_array_get(terms, 0), *expr = json_array_get(json_object_get(term, "matchExpressions"), 0);
	json_t *values = json_object_get(expr, "values");

	return !strcmp(jstr2(jget(pv, "metadata", "annotations"), SK_ANN_PROVISIONED_BY, NULL),
		       "rancher.io/local-path") &&
	       json_array_size(terms) == 1 && json_object_size(term) == 1 &&
	       json_array_size(json_object_get(term, "matchExpressions")) == 1 &&
	       !strcmp(jstr2(expr, "key", NULL), "kubernetes.io/hostname") &&
	       !strcmp(jstr2(expr, "operator", NULL), "In") && json_array_size(values) == 1 &&
	       !strcmp(json_string_value(json_array_get(values, 0)) ?: "", node);
}

static int admit_pv(sk_api *api, const char *node, sk_adm_request *a, sk_error_t *err)
{
	json_t *ref;

	if (a->op == SK_ADM_DELETE) {
		if (!local_volume_of(a->old, node))
			return forbid(err, a, "node \"%s\" may only delete the volumes it provisioned", node);
		return 0;
	}
	if (a->op != SK_ADM_CREATE || a->sub[0])
		return forbid(err, a, "node \"%s\" may not update persistentvolumes", node);
	ref = jget(a->obj, "spec", "claimRef");
	if (!local_volume_of(a->obj, node))
		return forbid(
			err, a,
			"node \"%s\" may only create rancher.io/local-path volumes with a node affinity to itself",
			node);
	if (!api->node_graph || !sk__node_graph_has(api->node_graph, node, "persistentvolumeclaims",
						    jstr2(ref, "namespace", NULL), jstr2(ref, "name", NULL)))
		return forbid(err, a, "node \"%s\" may only create volumes for the claims of its pods", node);
	return 0;
}

static int admit_lease(const char *node, sk_adm_request *a, sk_error_t *err)
{
	if (a->op == SK_ADM_CREATE && (strcmp(a->ns, "kube-node-lease") || strcmp(a->name, node)))
		return forbid(err, a, "can only access node lease with the same name as the requesting node");
	return 0;
}

/* A TokenRequest of a node: bound to a pod of its own (upstream's
 * admitServiceAccount), with upstream's messages. */
static int admit_token(sk_api *api, const char *node, sk_adm_request *a, sk_error_t *err)
{
	json_t *ref = jget(json_object_get(a->obj, "spec"), "boundObjectRef", NULL);
	cleanup_json json_t *pod = NULL;
	const char *uid;

	if (a->op != SK_ADM_CREATE || strcmp(a->sub, "token"))
		return 0;
	if (!json_is_object(ref) || strcmp(jstr2(ref, "apiVersion", NULL), "v1") ||
	    strcmp(jstr2(ref, "kind", NULL), "Pod") || !*jstr2(ref, "name", NULL))
		return forbid(err, a, "node requested token not bound to a pod");
	uid = jstr2(ref, "uid", NULL);
	if (!*uid)
		return forbid(err, a, "node requested token with a pod binding without a uid");
	pod = sk__stored_core(api, "pods", a->ns, jstr2(ref, "name", NULL));
	if (!pod)
		return sk_error_set(err, SK_ENOTFOUND, "pods \"%s\" not found", jstr2(ref, "name", NULL));
	if (strcmp(uid, jstr2(pod, "metadata", "uid")))
		return forbid(err, a,
			      "the UID in the bound object reference (%s) does not match the UID in record. The object "
			      "might have been deleted and then recreated",
			      uid);
	if (strcmp(jstr2(pod, "spec", "nodeName"), node))
		return forbid(err, a, "node requested token bound to a pod scheduled on a different node");
	return 0;
}

static int nr_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const char *node = sk__node_identity(a->user);
	const char *g = a->res->group, *r = a->res->plural;

	if (!node)
		return 0;
	if (!*node)
		return forbid(err, a, "could not determine node from user \"%s\"", a->user->name);
	if (!g[0] && !strcmp(r, "pods"))
		return admit_pod(node, a, err);
	if (!g[0] && !strcmp(r, "nodes"))
		return admit_node(node, a, err);
	if (!g[0] && !strcmp(r, "persistentvolumeclaims"))
		return admit_pvc(node, a, err);
	if (!g[0] && !strcmp(r, "persistentvolumes"))
		return admit_pv(api, node, a, err);
	if (!strcmp(g, "coordination.k8s.io") && !strcmp(r, "leases"))
		return admit_lease(node, a, err);
	if (!g[0] && !strcmp(r, "serviceaccounts"))
		return admit_token(api, node, a, err);
	return 0;
}

const sk_adm_plugin sk__adm_node_restriction = {
	.name = "NodeRestriction",
	.validate = nr_validate,
};
