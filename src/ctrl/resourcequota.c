/* The ResourceQuota controller (after pkg/controller/resourcequota): keeps
 * each quota's status.hard equal to spec.hard and status.used equal to what
 * the namespace's objects use, counted with src/kube/quota.c (the same
 * evaluators the ResourceQuota admission plugin charges with). A quota is
 * counted when it is created or its hard limits change, when a pod leaves
 * its charged state (terminal, deleted) or a Service changes or goes in
 * its namespace, or an object of any other kind a quota counts is deleted
 * (upstream's replenishment), and on a full resync, which also corrects
 * the drift of a charge whose object was never stored. Pods and Services
 * come from the shared informers; every other counted kind
 * (count/<resource>.<group>, custom kinds too) is listed from the API and
 * gets an informer of its own, made when a quota first counts it, whose
 * deletions trigger the count. */
#include <pthread.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/quantity.h"
#include "kube/quota.h"
#include "util/util.h"

#define QUOTA_RESYNC_SECS 30
#define QUOTA_MAX_WATCHES 64

/* An informer of a counted kind, for its deletions. */
typedef struct rq_watch {
	char *gr; /* "group/resource" */
	sk_informer *inf;
} rq_watch;

typedef struct rq_state {
	sk_informer *quotas;
	sk_controller *k;
	pthread_mutex_t mu; /* watches */
	rq_watch watches[QUOTA_MAX_WATCHES];
	int nwatches, stopped;
} rq_state;

static void enqueue_namespace(sk_controller *k, const char *ns);

static void on_counted_object(void *ud, int ev, json_t *old, json_t *obj)
{
	if (ev == SK_INF_DELETE)
		enqueue_namespace(ud, sk__ns(obj));
}

/* Makes (once) the informer of a counted kind at gv ("apps/v1", "v1")
 * whose objects are of kind; called by the workers after a list of it
 * succeeded. A failure is retried at the next count. */
static void ensure_watch(sk_controller *k, const char *group, const char *resource, const char *gv, const char *kind)
{
	rq_state *s = k->state;
	cleanup_free char *gr = xasprintf("%s/%s", group, resource);
	cleanup_free char *path = *group ? xasprintf("/apis/%s/%s", gv, resource) : xasprintf("/api/v1/%s", resource);
	sk_error_t err = {0};
	sk_informer *inf;

	pthread_mutex_lock(&s->mu);
	for (int i = 0; i < s->nwatches; i++)
		if (!strcmp(s->watches[i].gr, gr))
			goto out;
	if (s->stopped || s->nwatches == QUOTA_MAX_WATCHES)
		goto out;
	inf = sk_informer_new(k->ctl->c, path, gv, kind);
	sk_informer_on(inf, on_counted_object, k);
	if (sk_informer_start(inf, &err) < 0) {
		sk_debug("ctrl", "resourcequota: watch %s: %s", gr, err.msg);
		sk_informer_free(inf);
		goto out;
	}
	s->watches[s->nwatches].gr = steal_ptr(&gr);
	s->watches[s->nwatches++].inf = inf;
out:
	pthread_mutex_unlock(&s->mu);
}

/* Before the shared informers stop (their caches go): the counted kinds'
 * informers stop, so that none of their handlers runs after. */
static void rq_stop(sk_controller *k)
{
	rq_state *s = k->state;

	pthread_mutex_lock(&s->mu);
	s->stopped = 1;
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < s->nwatches; i++)
		sk_informer_cancel(s->watches[i].inf);
	for (int i = 0; i < s->nwatches; i++)
		sk_informer_stop(s->watches[i].inf);
}

static void rq_release(void *state)
{
	rq_state *s = state;

	for (int i = 0; i < s->nwatches; i++) {
		sk_informer_free(s->watches[i].inf);
		free(s->watches[i].gr);
	}
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* The objects of group/resource in ns (new array): the shared informers'
 * for pods and Services, else a list from the API (the group's preferred
 * version, whose informer is then made for its deletions); an empty array
 * when the resource is not served. */
static json_t *objects_of(sk_controller *k, const char *group, const char *resource, const char *ns, sk_error_t *err)
{
	struct sk_ctrl *ctl = k->ctl;
	cleanup_free char *path = NULL, *gv = NULL;
	cleanup_json json_t *list = NULL;
	const char *lk;
	sk_error_t e = {0};
	json_t *items;

	if (!*group && !strcmp(resource, "pods"))
		return sk_informer_list(ctl->pods, ns);
	if (!*group && !strcmp(resource, "services"))
		return sk_informer_list(ctl->services, ns);
	if (*group) {
		cleanup_free char *gpath = xasprintf("/apis/%s", group);
		cleanup_json json_t *g = sk_client_get(ctl->c, gpath, &e);
		const char *pv = sk_kube_jstr(g, "preferredVersion.groupVersion");

		if (!pv) {
			if (e.code && e.code != SK_ENOTFOUND)
				return sk_error_set(err, e.code, "%s", e.msg), NULL;
			return json_array();
		}
		gv = xstrdup(pv);
	} else {
		gv = xstrdup("v1");
	}
	path = *group ? xasprintf("/apis/%s/namespaces/%s/%s", gv, ns, resource)
		      : xasprintf("/api/v1/namespaces/%s/%s", ns, resource);
	list = sk_client_list(ctl->c, path, NULL, &e);
	if (!list) {
		if (e.code == SK_ENOTFOUND)
			return json_array();
		sk_error_set(err, e.code, "%s", e.msg);
		return NULL;
	}
	lk = json_string_value(json_object_get(list, "kind"));
	if (lk && strlen(lk) > 4 && !strcmp(lk + strlen(lk) - 4, "List")) {
		cleanup_free char *kind = xstrndup(lk, strlen(lk) - 4);

		ensure_watch(k, group, resource, gv, kind);
	}
	items = json_object_get(list, "items");
	return json_is_array(items) ? json_incref(items) : json_array();
}

/* Adds to used the usage of group/resource's objects in ns that match the
 * quota's scopes, for the hard names that evaluator computes (zero when
 * nothing uses them). */
static int count_resource(sk_controller *kc, json_t *quota, const char *group, const char *resource,
			  sk_kube_usage *used, sk_error_t *err)
{
	json_t *hard = sk_kube_jget(quota, "spec.hard"), *v, *o;
	cleanup_json json_t *objs = objects_of(kc, group, resource, sk__ns(quota), err);
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
static int count_quota(sk_controller *kc, json_t *quota, sk_kube_usage *used, sk_error_t *err)
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
		if (count_resource(kc, quota, group, resource, used, err) < 0)
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
	rc = count_quota(k, q, &used, &err);
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
	pthread_mutex_init(&s->mu, NULL);
	k = sk__controller_add(ctl, "resourcequota", sync_quota, s);
	s->k = k;
	k->release = rq_release;
	k->stop = rq_stop;
	k->primary = s->quotas;
	k->resync_secs = QUOTA_RESYNC_SECS;
	sk_informer_on(s->quotas, on_quota, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->services, on_service, k);
	return 0;
}
