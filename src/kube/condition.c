#include "kube/condition.h"

#include <stdbool.h>
#include <string.h>

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

json_t *sk_kube_condition_find(json_t *conds, const char *type)
{
	size_t i;
	json_t *c;

	json_array_foreach(conds, i, c) {
		const char *t = str(c, "type");

		if (t && !strcmp(t, type))
			return c;
	}
	return NULL;
}

json_t *sk_kube_condition_get(json_t *status, const char *type)
{
	return sk_kube_condition_find(json_object_get(status, "conditions"), type);
}

const char *sk_kube_condition_since(json_t *old, const char *type, const char *status, const char *now)
{
	json_t *c = sk_kube_condition_find(old, type);
	const char *st = str(c, "status"), *since = str(c, "lastTransitionTime");

	return st && since && !strcmp(st, status) ? since : now;
}

/* Sets (or, for NULL or "", removes) the string k of c; true when it changed. */
static bool set_str(json_t *c, const char *k, const char *v)
{
	const char *cur = str(c, k);

	if (!v || !*v) {
		if (!json_object_get(c, k))
			return false;
		json_object_del(c, k);
		return true;
	}
	if (cur && !strcmp(cur, v))
		return false;
	json_object_set_new(c, k, json_string(v));
	return true;
}

int sk_kube_condition_set(json_t *status, const char *type, const char *st, const char *reason, const char *msg,
			  const char *now, int flags)
{
	json_t *conds = json_object_get(status, "conditions"), *c = sk_kube_condition_find(conds, type);
	bool changed = false;

	if (!json_is_array(conds)) {
		conds = json_array();
		json_object_set_new(status, "conditions", conds);
	}
	if (!c) {
		/* in the field order Go writes */
		c = json_pack("{s:s, s:s}", "type", type, "status", st);
		if (flags & SK_KUBE_COND_NULL_PROBE)
			json_object_set_new(c, "lastProbeTime", json_null());
		if (flags & SK_KUBE_COND_PROBE_TIME)
			json_object_set_new(c, "lastProbeTime", json_string(now));
		if (flags & SK_KUBE_COND_UPDATE_TIME)
			json_object_set_new(c, "lastUpdateTime", json_string(now));
		json_object_set_new(c, "lastTransitionTime", json_string(now));
		json_array_append_new(conds, c);
		changed = true;
	} else if (set_str(c, "status", st)) {
		json_object_set_new(c, "lastTransitionTime", json_string(now));
		changed = true;
	}
	changed |= set_str(c, "reason", reason);
	changed |= set_str(c, "message", msg);
	if (!str(c, "lastTransitionTime"))
		json_object_set_new(c, "lastTransitionTime", json_string(now));
	if ((flags & SK_KUBE_COND_PROBE_TIME) && (changed || !json_object_get(c, "lastProbeTime")))
		json_object_set_new(c, "lastProbeTime", json_string(now));
	if ((flags & SK_KUBE_COND_UPDATE_TIME) && (changed || !json_object_get(c, "lastUpdateTime")))
		json_object_set_new(c, "lastUpdateTime", json_string(now));
	return changed;
}

void sk_kube_condition_remove(json_t *status, const char *type)
{
	json_t *conds = json_object_get(status, "conditions"), *c;
	size_t i;

	json_array_foreach(conds, i, c) {
		const char *t = str(c, "type");

		if (t && !strcmp(t, type)) {
			json_array_remove(conds, i);
			return;
		}
	}
}
