/* The disruption budgets of the eviction subresource (after
 * pkg/registry/core/pod/storage/eviction.go): a pod one budget selects may
 * go only while the budget allows a disruption, which the eviction then
 * takes (status.disruptionsAllowed decremented, the pod recorded in
 * status.disruptedPods for the disruption controller). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "kube/condition.h"
#include "kube/disruption.h"
#include "kube/object.h"
#include "kube/selector.h"
#include "store/store.h"
#include "util/util.h"

#define EVICTION_RETRIES 5
#define VIOLATES "Cannot evict pod as it would violate the pod's disruption budget."

int sk__eviction_can_ignore_budgets(json_t *pod)
{
	const char *phase = sk_kube_jstr(pod, "status.phase");

	return sk_kube_jget(pod, "metadata.deletionTimestamp") ||
	       (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed") || !strcmp(phase, "Pending")));
}

/* 429 TooManyRequests with one DisruptionBudget cause, as upstream's
 * NewTooManyRequests (details without name or kind). */
static void too_many(sk_api_response *resp, const char *cause, int retry_after)
{
	cleanup_json json_t *causes = json_pack("[{s:s, s:s}]", "reason", "DisruptionBudget", "message", cause);
	cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:{s:O}, s:i}", "kind", "Status",
					    "apiVersion", "v1", "metadata", "status", "Failure", "message", VIOLATES,
					    "reason", "TooManyRequests", "details", "causes", causes, "code", 429);

	if (retry_after)
		json_object_set_new(json_object_get(st, "details"), "retryAfterSeconds", json_integer(retry_after));
	sk__reply_json(resp, 429, st);
}

static void still_processing(sk_api_response *resp, const char *name)
{
	cleanup_free char *m = xasprintf("The disruption budget %s is still being processed by the server.", name);

	too_many(resp, m, 10);
}

/* The budgets of the pod's namespace whose selector picks it; a nil or
 * empty selector picks nothing here. New array; NULL with err. */
static json_t *budgets_of(sk_api *api, json_t *pod, sk_error_t *err)
{
	const sk_api_resource *r = sk__resource_find("policy", "v1", "poddisruptionbudgets");
	cleanup_free char *prefix = NULL;
	sk_store_list l = {0};
	json_t *out;

	if (!r)
		return json_array();
	prefix = sk__obj_prefix(r, sk_kube_jstr(pod, "metadata.namespace"));
	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, err) < 0)
		return NULL;
	out = json_array();
	for (size_t i = 0; i < l.n; i++) {
		json_t *pdb = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		json_t *sel = sk_kube_jget(pdb, "spec.selector");
		sk_error_t e = {0};
		sk_kube_label_selector *s = NULL;

		if (json_is_object(sel) && (json_object_size(json_object_get(sel, "matchLabels")) ||
					    json_array_size(json_object_get(sel, "matchExpressions"))))
			s = sk_kube_label_selector_from_json(sel, &e);
		if (s && sk_kube_label_selector_match(s, sk_kube_jget(pod, "metadata.labels")))
			json_array_append(out, pdb);
		sk_kube_label_selector_free(s);
		json_decref(pdb);
	}
	sk_store_list_release(&l);
	return out;
}

/* checkAndDecrement: 1 when pdb (as read at its mod revision rev) allowed
 * the disruption and the decrement was written (or dry_run), 0 on a lost
 * race, -1 after replying. */
static int check_and_decrement(sk_api *api, json_t *pdb, const char *pod_name, int dry_run, sk_api_response *resp)
{
	const sk_api_resource *r = sk__resource_find("policy", "v1", "poddisruptionbudgets");
	json_t *st = sk_kube_jobj(pdb, "status");
	json_int_t allowed = json_integer_value(json_object_get(st, "disruptionsAllowed"));
	const char *name = sk_kube_jstr(pdb, "metadata.name");
	int64_t rev = strtoll(sk_kube_jstr(pdb, "metadata.resourceVersion") ?: "0", NULL, 10);
	cleanup_free char *key = NULL, *val = NULL, *msg = NULL;
	json_t *disrupted;
	sk_error_t e = {0};
	char now[32];
	size_t len;

	if (json_integer_value(json_object_get(st, "observedGeneration")) <
	    json_integer_value(sk_kube_jget(pdb, "metadata.generation"))) {
		still_processing(resp, name);
		return -1;
	}
	if (allowed < 0 || json_object_size(json_object_get(st, "disruptedPods")) > SK_KUBE_PDB_MAX_DISRUPTED_PODS) {
		msg = xasprintf("poddisruptionbudgets.policy \"%s\" is forbidden: %s", name,
				allowed < 0 ? "pdb disruptions allowed is negative"
					    : "DisruptedPods map too big - too many evictions not confirmed by PDB "
					      "controller");
		sk__reply_status(resp, 403, "Forbidden", msg, r, name, NULL);
		return -1;
	}
	if (allowed == 0) {
		msg = xasprintf("The disruption budget %s needs %lld healthy pods and has %lld currently", name,
				(long long)json_integer_value(json_object_get(st, "desiredHealthy")),
				(long long)json_integer_value(json_object_get(st, "currentHealthy")));
		too_many(resp, msg, 0);
		return -1;
	}
	json_object_set_new(st, "disruptionsAllowed", json_integer(allowed - 1));
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	if (allowed - 1 == 0)
		sk_kube_pdb_set_allowed_condition(st, now);
	if (dry_run)
		return 1;
	disrupted = json_object_get(st, "disruptedPods");
	if (!json_is_object(disrupted)) {
		disrupted = json_object();
		json_object_set_new(st, "disruptedPods", disrupted);
	}
	json_object_set_new(disrupted, pod_name, json_string(now));
	json_object_del(json_object_get(pdb, "metadata"), "resourceVersion");
	key = sk__obj_key(r, sk_kube_jstr(pdb, "metadata.namespace"), name);
	val = sk__obj_encode(pdb, &len);
	if (sk_store_update(api->store, key, val, len, rev, &e) >= 0)
		return 1;
	if (e.code == SK_ECONFLICT)
		return 0;
	sk__reply_error(resp, &e, r, name);
	return -1;
}

/* The budget at key, read again after a lost race. */
static json_t *reload(sk_api *api, json_t *pdb)
{
	const sk_api_resource *r = sk__resource_find("policy", "v1", "poddisruptionbudgets");
	cleanup_free char *key = sk__obj_key(r, sk_kube_jstr(pdb, "metadata.namespace"),
					     sk_kube_jstr(pdb, "metadata.name"));
	sk_store_kv kv;
	sk_error_t e = {0};
	json_t *out;

	if (sk_store_get(api->store, key, &kv, &e) < 0)
		return NULL;
	out = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	sk_store_kv_release(&kv);
	return out;
}

static json_int_t jint(json_t *o, const char *path) { return json_integer_value(sk_kube_jget(o, path)); }

static int pod_ready(json_t *pod)
{
	json_t *c = sk_kube_condition_get(json_object_get(pod, "status"), "Ready");

	return c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
}

int sk__eviction_check_budgets(sk_api *api, json_t *pod, int dry_run, char **conditional, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *pdbs = budgets_of(api, pod, &err), *pdb = NULL;
	const char *policy;

	*conditional = NULL;
	if (!pdbs) {
		sk__reply_error(resp, &err, NULL, NULL);
		return -1;
	}
	if (json_array_size(pdbs) > 1) {
		cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:i}", "kind", "Status", "apiVersion",
						    "v1", "metadata", "status", "Failure", "message",
						    "This pod has more than one PodDisruptionBudget, which the "
						    "eviction subresource does not support.",
						    "code", 500);

		sk__reply_json(resp, 500, st);
		return -1;
	}
	if (!json_array_size(pdbs))
		return 0;
	pdb = json_incref(json_array_get(pdbs, 0));
	if (!pod_ready(pod)) {
		/* an unhealthy pod does not count towards currentHealthy: it
		 * goes without taking a disruption when the policy says so or
		 * the budget is met, if it is still unready when deleted */
		policy = sk_kube_jstr(pdb, "spec.unhealthyPodEvictionPolicy");
		if ((policy && !strcmp(policy, "AlwaysAllow")) ||
		    (jint(pdb, "status.currentHealthy") >= jint(pdb, "status.desiredHealthy") &&
		     jint(pdb, "status.desiredHealthy") > 0)) {
			*conditional = xstrdup(sk_kube_jstr(pdb, "metadata.name") ?: "");
			return 0;
		}
	}
	for (int attempt = 0; attempt < EVICTION_RETRIES; attempt++) {
		int rc = check_and_decrement(api, pdb, sk_kube_jstr(pod, "metadata.name"), dry_run, resp);
		json_t *next;

		if (rc != 0)
			return rc > 0 ? 0 : -1;
		next = reload(api, pdb);
		if (!next)
			break;
		json_decref(pdb);
		pdb = next;
	}
	{
		cleanup_free char *m = xasprintf("couldn't update PodDisruptionBudget \"%s\" due to conflicts",
						 sk_kube_jstr(pdb, "metadata.name"));
		cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:{s:i}, s:i}", "kind", "Status",
						    "apiVersion", "v1", "metadata", "status", "Failure", "message", m,
						    "reason", "Timeout", "details", "retryAfterSeconds", 10, "code",
						    504);

		sk__reply_json(resp, 504, st);
	}
	return -1;
}

void sk__eviction_too_many(sk_api_response *resp, const char *pdb_name) { still_processing(resp, pdb_name); }
