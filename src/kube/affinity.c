/* Node selectors and required node affinity (kube/affinity.h). */
#include "kube/affinity.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kube/object.h"

static bool in_values(json_t *values, const char *v)
{
	size_t i;
	json_t *x;

	if (!v)
		return false;
	json_array_foreach(values, i, x)
		if (json_is_string(x) && !strcmp(json_string_value(x), v))
			return true;
	return false;
}

static int parse_int64(const char *s, int64_t *out)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

bool sk_kube_node_requirement_matches(json_t *e, const char *v)
{
	const char *op = json_string_value(json_object_get(e, "operator"));
	json_t *values = json_object_get(e, "values");
	int64_t have, want;

	if (!op)
		return false;
	if (!strcmp(op, "In"))
		return in_values(values, v);
	if (!strcmp(op, "NotIn"))
		return !in_values(values, v);
	if (!strcmp(op, "Exists"))
		return v != NULL;
	if (!strcmp(op, "DoesNotExist"))
		return v == NULL;
	if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
		if (!v || json_array_size(values) != 1 || parse_int64(v, &have) < 0 ||
		    parse_int64(json_string_value(json_array_get(values, 0)), &want) < 0)
			return false;
		return op[0] == 'G' ? have > want : have < want;
	}
	return false;
}

bool sk_kube_node_term_matches(json_t *term, json_t *labels, const char *name)
{
	json_t *exprs = json_object_get(term, "matchExpressions"), *fields = json_object_get(term, "matchFields"), *e;
	size_t i;

	if (!json_array_size(exprs) && !json_array_size(fields))
		return false;
	json_array_foreach(exprs, i, e) {
		const char *key = json_string_value(json_object_get(e, "key"));

		if (!key || !sk_kube_node_requirement_matches(e, json_string_value(json_object_get(labels, key))))
			return false;
	}
	json_array_foreach(fields, i, e) {
		const char *key = json_string_value(json_object_get(e, "key"));

		/* metadata.name is the one field a node selector term can name */
		if (!key || strcmp(key, "metadata.name") || !sk_kube_node_requirement_matches(e, name))
			return false;
	}
	return true;
}

bool sk_kube_pod_matches_node(json_t *pod, json_t *node)
{
	json_t *labels = sk_kube_jget(node, "metadata.labels"), *sel = sk_kube_jget(pod, "spec.nodeSelector"), *v;
	json_t *terms = sk_kube_jget(pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
					  "nodeSelectorTerms");
	const char *name = sk_kube_jstr(node, "metadata.name"), *k;
	size_t i;

	json_object_foreach(sel, k, v) {
		const char *have = json_string_value(json_object_get(labels, k));

		if (!have || !json_is_string(v) || strcmp(have, json_string_value(v)))
			return false;
	}
	if (!sk_kube_jget(pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"))
		return true;
	json_array_foreach(terms, i, v)
		if (sk_kube_node_term_matches(v, labels, name))
			return true;
	return false;
}
