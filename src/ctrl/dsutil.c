/* Pure DaemonSet rules (see dsutil.h). */
#include <string.h>

#include "ctrl/dsutil.h"
#include "kube/affinity.h"
#include "kube/object.h"
#include "kube/taint.h"

static void add_toleration(json_t *spec, const char *key, const char *effect)
{
	json_t *tols = json_object_get(spec, "tolerations"), *t;
	size_t i;

	if (!json_is_array(tols)) {
		tols = json_array();
		json_object_set_new(spec, "tolerations", tols);
	}
	/* AddOrUpdateTolerationInPodSpec: an equal toleration stays; one with
	 * the same key and effect is replaced */
	json_array_foreach(tols, i, t) {
		const char *k = json_string_value(json_object_get(t, "key"));
		const char *e = json_string_value(json_object_get(t, "effect"));

		if (k && e && !strcmp(k, key) && !strcmp(e, effect)) {
			json_array_set_new(
				tols, i,
				json_pack("{s:s, s:s, s:s}", "key", key, "operator", "Exists", "effect", effect));
			return;
		}
	}
	json_array_append_new(tols, json_pack("{s:s, s:s, s:s}", "key", key, "operator", "Exists", "effect", effect));
}

void sk_ds_add_tolerations(json_t *spec)
{
	json_t *hn = json_object_get(spec, "hostNetwork");

	add_toleration(spec, "node.kubernetes.io/not-ready", "NoExecute");
	add_toleration(spec, "node.kubernetes.io/unreachable", "NoExecute");
	add_toleration(spec, "node.kubernetes.io/disk-pressure", "NoSchedule");
	add_toleration(spec, "node.kubernetes.io/memory-pressure", "NoSchedule");
	add_toleration(spec, "node.kubernetes.io/pid-pressure", "NoSchedule");
	add_toleration(spec, "node.kubernetes.io/unschedulable", "NoSchedule");
	if (json_is_true(hn))
		add_toleration(spec, "node.kubernetes.io/network-unavailable", "NoSchedule");
}

static json_t *name_field(const char *node)
{
	return json_pack("{s:s, s:s, s:[s]}", "key", "metadata.name", "operator", "In", "values", node);
}

void sk_ds_set_node_affinity(json_t *spec, const char *node)
{
	json_t *req = sk_kube_jobj(spec, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
	json_t *terms = json_object_get(req, "nodeSelectorTerms"), *t;
	size_t i;

	if (!json_is_array(terms) || !json_array_size(terms)) {
		json_object_set_new(req, "nodeSelectorTerms", json_pack("[{s:[o]}]", "matchFields", name_field(node)));
		return;
	}
	/* every term keeps its expressions and gets only the node's name field */
	json_array_foreach(terms, i, t) {
		if (!json_is_object(t))
			continue;
		json_object_set_new(t, "matchFields", json_pack("[o]", name_field(node)));
	}
}

const char *sk_ds_target_node(json_t *pod)
{
	const char *n = sk_kube_jstr(pod, "spec.nodeName");
	json_t *terms = sk_kube_jget(pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
					  "nodeSelectorTerms");
	json_t *t, *f;
	size_t i, j;

	if (n && *n)
		return n;
	json_array_foreach(terms, i, t) {
		json_array_foreach(json_object_get(t, "matchFields"), j, f) {
			const char *k = json_string_value(json_object_get(f, "key"));
			const char *op = json_string_value(json_object_get(f, "operator"));
			json_t *vals = json_object_get(f, "values");

			if (k && op && !strcmp(k, "metadata.name") && !strcmp(op, "In") && json_array_size(vals) == 1 &&
			    json_is_string(json_array_get(vals, 0)))
				return json_string_value(json_array_get(vals, 0));
		}
	}
	return NULL;
}

/* FindMatchingUntoleratedTaint over the taints with effects in mask. */
static int untolerated(json_t *taints, json_t *tols, int mask)
{
	json_t *t;
	size_t i;

	json_array_foreach(taints, i, t) {
		int e = sk_kube_taint_effect(json_string_value(json_object_get(t, "effect")));

		if (e > 0 && (e & mask) && !sk_kube_tolerations_find(tols, t))
			return 1;
	}
	return 0;
}

void sk_ds_node_should_run(json_t *ds, json_t *node, int *should_run, int *should_continue)
{
	json_t *pod = json_object();
	json_t *spec = json_deep_copy(sk_kube_jget(ds, "spec.template.spec"));
	const char *name = sk_kube_jstr(node, "metadata.name");
	const char *want = NULL;
	json_t *taints = sk_kube_jget(node, "spec.taints");
	json_t *tols;

	if (!json_is_object(spec)) {
		json_decref(spec);
		spec = json_object();
	}
	want = json_string_value(json_object_get(spec, "nodeName"));
	json_object_set_new(pod, "spec", spec);
	sk_ds_add_tolerations(spec);
	tols = json_object_get(spec, "tolerations");
	*should_run = *should_continue = 0;
	if ((want && *want && (!name || strcmp(want, name))) || !sk_kube_pod_matches_node(pod, node))
		goto out;
	if (untolerated(taints, tols, SK_KUBE_EFFECT_NOSCHEDULE | SK_KUBE_EFFECT_NOEXECUTE)) {
		*should_continue = !untolerated(taints, tols, SK_KUBE_EFFECT_NOEXECUTE);
		goto out;
	}
	*should_run = *should_continue = 1;
out:
	json_decref(pod);
}

void sk_ds_plan_rolling(sk_ds_node_state *nodes, size_t n, int64_t max_surge, int64_t max_unavailable)
{
	int64_t count = 0, left;
	size_t i;

	for (i = 0; i < n; i++)
		nodes[i].delete_old = nodes[i].create_new = 0;
	if (max_surge == 0) {
		/* pass 1: count unavailable nodes and unavailable old pods
		 * (replaced at once); pass 2: available old pods up to the budget */
		for (i = 0; i < n; i++) {
			sk_ds_node_state *s = &nodes[i];

			if (!s->ok || s->has_new == s->has_old)
				count++;
			else if (s->has_new && !s->new_avail)
				count++;
			else if (s->has_old && !s->old_avail)
				s->delete_old = 1;
		}
		left = max_unavailable - count;
		for (i = 0; i < n && left > 0; i++) {
			sk_ds_node_state *s = &nodes[i];

			if (s->ok && s->has_old && !s->has_new && s->old_avail) {
				s->delete_old = 1;
				left--;
			}
		}
		return;
	}
	for (i = 0; i < n; i++) {
		sk_ds_node_state *s = &nodes[i];

		if (!s->ok)
			count++;
		else if (s->has_old && s->has_new) {
			if (!s->new_avail)
				count++;
			else
				s->delete_old = 1;
		} else if (s->has_old && !s->old_avail) {
			/* an unavailable old pod is replaced at once, or removed
			 * where the node no longer qualifies */
			if (s->should_run)
				s->create_new = 1;
			else
				s->delete_old = 1;
		}
	}
	left = max_surge - count;
	for (i = 0; i < n && left > 0; i++) {
		sk_ds_node_state *s = &nodes[i];

		if (s->ok && s->has_old && !s->has_new && s->should_run && s->old_avail) {
			s->create_new = 1;
			left--;
		}
	}
}
