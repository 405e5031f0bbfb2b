/* The ResourceQuota controller (after pkg/controller/resourcequota): keeps
 * each quota's status.hard equal to spec.hard and status.used equal to what
 * the namespace's objects use, counted with src/kube/quota.c (the same
 * evaluators the ResourceQuota admission plugin charges with). A quota is
 * counted when it is created or its hard limits change, when a pod leaves
 * its charged state (terminal, deleted) or a Service changes or goes in
 * its namespace (upstream's replenishment), and on a full resync, which
 * also corrects the drift of a charge whose object was never stored. Pods
 * and Services come from the shared informers; every other counted kind
 * (count/<resource>.<group>, custom kinds too) is listed from the API. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/quantity.h"
#include "kube/quota.h"
#include "util/util.h"

#define QUOTA_RESYNC_SECS 30

typedef struct rq_state {
	sk_informer *quotas;
} rq_state;

/* The objects of group/resource in ns (new array): the shared informers'
 * for pods and Services, else a list from the API (the group's preferred
 * version); an empty array when the resource is not served. */
static json_t *objects_of(struct sk_ctrl *ctl, const char *group, const char *resource, const char *ns, sk_error_t *err)
{
	cleanup_free char *path = NULL;
	cleanup_json json_t *list = NULL;
	json_t *items;

	if (!*group && !strcmp(resource, "pods"))
		return sk_informer_list(ctl->pods, ns);
	if (!*group && !strcmp(resource, "services"))
		return sk_informer_list(ctl->services, ns);
	if (*group) {
		cleanup_free char *gpath = xasprintf("/apis/%s", group);
		sk_error_t e = {0};
		cleanup_json json_t *g = sk_client_get(ctl->c, gpath, &e);
		const char *gv = sk_kube_jstr(g, "preferredVersion.groupVersion");

		if (!gv)
			return e.code && e.code != SK_ENOTFOUND ? (sk_error_set(err, e.code, "%s", e.msg), NULL)
								: json_array();
		path = xasprintf("/apis/%s/namespaces/%s/%s", gv, ns, resource);
	} else {
		path = xasprintf("/api/v1/namespaces/%s/%s", ns, resource);
	}
	{
		sk_error_t e = {0};

		list = sk_client_list(ctl->c, path, NULL, &e);
		if (!list) {
			if (e.code == SK_ENOTFOUND)
				return json_array();
			sk_error_set(err, e.code, "%s", e.msg);
			return NULL;
		}
	}
	items = json_object_get(list, "items");
	return json_is_array(items) ? json_incref(items) : json_array();
}

/* Adds to used the usage of group/resource's objects in ns that match the
 * quota's scopes, for the hard names that evaluator computes (zero when
 * nothing uses them). */
static int count_resource(struct sk_ctrl *ctl, json_t *quota, const char *group, const char *resource,
			  sk_kube_usage *used, sk_error_t *err)
{
	json_t *hard = sk_kube_jget(quota, "spec.hard"), *v, *o;
	cleanup_json json_t *objs = objects_of(ctl, group, resource, sk__ns(quota), err);
	int64_t now = sk__now();
	const char *k;
	size_t i;

	if (!objs)
		return -1;
	json_object_foreach(hard, k, v)
		if (sk_kube_quota_covers(group, resource, k))
			sk_kube_usage_add(used, k, 0);
	json_array_foreach(objs, i, o) {
		sk_kube_usage u = {0};

		if (!sk_kube_quota_scopes_match(quota, group, resource, o) ||
		    sk_kube_quota_usage(group, resource, o, now, &u) < 0) {
			sk_kube_usage_release(&u);
			continue;
		}
		for (size_t j = 0; j < u.n; j++)
			if (json_object_get(hard, u.v[j].name))
				sk_kube_usage_add(used, u.v[j].name, u.v[j].milli);
		sk_kube_usage_release(&u);
	}
	return 0;
}

/* The quota's usage of every hard name an evaluator computes. */
static int count_quota(struct sk_ctrl *ctl, json_t *quota, sk_kube_usage *used, sk_error_t *err)
{
	cleanup_json json_t *done = json_object();
	json_t *hard = sk_kube_jget(quota, "spec.hard"), *v;
	const char *k;

	json_object_foreach(hard, k, v) {
		char group[256], resource[256];
		cleanup_free char *gr = NULL;

		if (!sk_kube_quota_resource_of(k, group, sizeof(group), resource, sizeof(resource)))
			continue;
		gr = xasprintf("%s/%s", group, resource);
		if (json_object_get(done, gr))
			continue;
		json_object_set_new(done, gr, json_true());
		if (count_resource(ctl, quota, group, resource, used, err) < 0)
			return -1;
	}
	return 0;
}

/* The status the quota should have: hard from spec, used recounted (names
 * no evaluator computes keep what was observed), masked by hard. */
static json_t *desired_status(json_t *quota, const sk_kube_usage *used)
{
	json_t *hard = sk_kube_jget(quota, "spec.hard"), *old = sk_kube_jget(quota, "status.used"), *v;
	json_t *st = json_object(), *nu = json_object();
	const char *k;

	json_object_foreach(hard, k, v) {
		sk_kube_usage_item *it = sk_kube_usage_find(used, k);
		char buf[64];

		if (it) {
			sk_kube_quota_format(it->milli, json_string_value(v), buf, sizeof(buf));
			json_object_set_new(nu, k, json_string(buf));
		} else if (json_object_get(old, k)) {
			json_object_set(nu, k, json_object_get(old, k));
		}
	}
	json_object_set_new(st, "hard", json_is_object(hard) ? json_deep_copy(hard) : json_object());
	json_object_set_new(st, "used", nu);
	return st;
}

/* Quantities equal by value, key by key. */
static int lists_equal(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		return 0;
	json_object_foreach(a, k, v) {
		int c;

		if (!json_object_get(b, k) || sk_kube_quantity_cmp(v, json_object_get(b, k), &c) < 0 || c)
			return 0;
	}
	return 1;
}

static int sync_quota(sk_controller *k, const char *key)
{
	rq_state *s = k->state;
	char ns[256], name[256];
	cleanup_json json_t *q = NULL, *st = NULL, *upd = NULL;
	sk_kube_usage used = {0};
	sk_error_t err = {0};
	int rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	q = sk_informer_get(s->quotas, ns, name);
	if (!q || sk__is_deleting(q))
		return 0;
	rc = count_quota(k->ctl, q, &used, &err);
	if (rc == 0)
		st = desired_status(q, &used);
	sk_kube_usage_release(&used);
	if (rc < 0) {
		sk_warn("ctrl", "resourcequota %s: %s", key, err.msg);
		return -1;
	}
	if (lists_equal(json_object_get(st, "hard"), sk_kube_jget(q, "status.hard")) &&
	    lists_equal(json_object_get(st, "used"), sk_kube_jget(q, "status.used")))
		return 0;
	upd = json_deep_copy(q);
	json_object_set(upd, "status", st);
	if (sk__update_status(k->ctl, s->quotas, "/api/v1", "resourcequotas", upd, &err) < 0) {
		if (err.code != SK_ENOTFOUND)
			sk_debug("ctrl", "resourcequota %s: %s", key, err.msg);
		return err.code == SK_ENOTFOUND ? 0 : -1;
	}
	return 0;
}

/* json_equal that takes two absent values as equal. */
static int same(json_t *a, json_t *b) { return (!a && !b) || (a && b && json_equal(a, b)); }

/* A new quota, or one whose hard limits are not yet in its status. */
static void on_quota(void *ud, int ev, json_t *old, json_t *q)
{
	if (ev == SK_INF_DELETE)
		return;
	if (ev == SK_INF_ADD || !lists_equal(sk_kube_jget(q, "spec.hard"), sk_kube_jget(q, "status.hard")) ||
	    !same(sk_kube_jget(q, "spec.scopes"), sk_kube_jget(old, "spec.scopes")) ||
	    !same(sk_kube_jget(q, "spec.scopeSelector"), sk_kube_jget(old, "spec.scopeSelector")))
		sk__enqueue_self(ud, ev, old, q);
}

static void enqueue_namespace(sk_controller *k, const char *ns)
{
	rq_state *s = k->state;
	cleanup_json json_t *qs = sk_informer_list(s->quotas, ns);
	json_t *q;
	size_t i;

	json_array_foreach(qs, i, q)
		sk__enqueue_self(k, SK_INF_UPDATE, NULL, q);
}

static int pod_charged(json_t *pod)
{
	const char *phase = sk_kube_jstr(pod, "status.phase");

	return !(phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))) && !sk__is_deleting(pod);
}

/* Replenishment: a pod that stops being charged, or goes. */
static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	if (ev == SK_INF_DELETE || (ev == SK_INF_UPDATE && pod_charged(old) && !pod_charged(pod)))
		enqueue_namespace(ud, sk__ns(pod));
}

static void on_service(void *ud, int ev, json_t *old, json_t *svc)
{
	if (ev == SK_INF_DELETE ||
	    (ev == SK_INF_UPDATE && !same(sk_kube_jget(old, "spec.type"), sk_kube_jget(svc, "spec.type"))))
		enqueue_namespace(ud, sk__ns(svc));
}

int sk__resourcequota_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	rq_state *s = xzalloc(sizeof(*s));
	sk_controller *k;

	if (ctl->nextra >= (int)(sizeof(ctl->extra) / sizeof(ctl->extra[0]))) {
		free(s);
		return sk_error_set(err, SK_EINTERNAL, "resourcequota: no room for its informer");
	}
	s->quotas = sk_informer_new(ctl->c, "/api/v1/resourcequotas", "v1", "ResourceQuota");
	ctl->extra[ctl->nextra++] = s->quotas;
	k = sk__controller_add(ctl, "resourcequota", sync_quota, s);
	k->primary = s->quotas;
	k->resync_secs = QUOTA_RESYNC_SECS;
	sk_informer_on(s->quotas, on_quota, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->services, on_service, k);
	return 0;
}
