/* The ClusterRole aggregation controller (after
 * pkg/controller/clusterroleaggregation): a ClusterRole with an
 * aggregationRule gets as rules the union of the rules of every other
 * ClusterRole that one of its clusterRoleSelectors matches, in the order of
 * their names, each rule once. Any ClusterRole change requeues every
 * aggregated ClusterRole. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define CLUSTERROLES "/apis/rbac.authorization.k8s.io/v1/clusterroles"

static int by_name(const void *a, const void *b)
{
	const char *x = sk_kube_jstr(*(json_t *const *)a, "metadata.name");
	const char *y = sk_kube_jstr(*(json_t *const *)b, "metadata.name");

	return strcmp(x ? x : "", y ? y : "");
}

static int selected(json_t *selectors, json_t *role)
{
	size_t i;
	json_t *s;

	json_array_foreach(selectors, i, s)
		if (sk_kube_label_selector_json_match(s, sk_kube_jget(role, "metadata.labels")))
			return 1;
	return 0;
}

static int has_rule(json_t *rules, json_t *rule)
{
	size_t i;
	json_t *r;

	json_array_foreach(rules, i, r)
		if (json_equal(r, rule))
			return 1;
	return 0;
}

/* The aggregated rules of the role named name (a new array). */
static json_t *aggregate(sk_informer *inf, const char *name, json_t *selectors)
{
	cleanup_json json_t *all = sk_informer_list(inf, NULL);
	json_t *rules = json_array();
	size_t n = json_array_size(all), k = 0;
	json_t **sel = xmalloc((n ? n : 1) * sizeof(*sel));

	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(all, i);
		const char *rn = sk_kube_jstr(r, "metadata.name");

		if (rn && strcmp(rn, name) && selected(selectors, r))
			sel[k++] = r;
	}
	qsort(sel, k, sizeof(*sel), by_name);
	for (size_t i = 0; i < k; i++) {
		size_t j;
		json_t *rule;

		json_array_foreach(sk_kube_jget(sel[i], "rules"), j, rule)
			if (!has_rule(rules, rule))
				json_array_append(rules, rule);
	}
	free(sel);
	return rules;
}

static int sync_aggregation(sk_controller *k, const char *key)
{
	sk_informer *inf = k->state;
	cleanup_json json_t *role = sk_informer_get(inf, NULL, key), *rules = NULL, *upd = NULL, *out = NULL;
	cleanup_free char *path = NULL;
	json_t *selectors;
	json_t *have;
	sk_error_t err = {0};

	if (!role)
		return 0;
	selectors = sk_kube_jget(role, "aggregationRule.clusterRoleSelectors");
	if (!json_is_array(selectors))
		return 0;
	rules = aggregate(inf, key, selectors);
	have = sk_kube_jget(role, "rules");
	if ((have && json_equal(rules, have)) || (!json_array_size(rules) && !json_array_size(have)))
		return 0;
	upd = json_deep_copy(role);
	json_object_set(upd, "rules", rules);
	path = xasprintf("%s/%s", CLUSTERROLES, key);
	out = sk_client_update(k->ctl->c, path, upd, &err);
	if (!out) {
		if (err.code == SK_ENOTFOUND)
			return 0;
		sk_warn("ctrl", "clusterrole-aggregation: %s: %s", key, err.msg);
		return -1;
	}
	sk_informer_write(inf, out);
	return 0;
}

static void on_clusterrole(void *ud, int ev, json_t *old, json_t *obj)
{
	sk_controller *k = ud;
	cleanup_json json_t *all = sk_informer_list(k->state, NULL);
	size_t i;
	json_t *r;

	(void)ev;
	(void)old;
	(void)obj;
	json_array_foreach(all, i, r)
		if (json_is_array(sk_kube_jget(r, "aggregationRule.clusterRoleSelectors")))
			sk__queue_add(k->q, sk_kube_jstr(r, "metadata.name"));
}

static void no_release(void *state) { (void)state; }

int sk__clusterroleaggregation_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_informer *inf;
	sk_controller *k;

	(void)err;
	if (ctl->nextra >= (int)(sizeof(ctl->extra) / sizeof(ctl->extra[0])))
		return 0;
	inf = sk_informer_new(ctl->c, CLUSTERROLES, "rbac.authorization.k8s.io/v1", "ClusterRole");
	ctl->extra[ctl->nextra++] = inf;
	k = sk__controller_add(ctl, "clusterrole-aggregation", sync_aggregation, inf);
	k->release = no_release; /* the informer is freed with the others */
	sk_informer_on(inf, on_clusterrole, k);
	return 0;
}
