/* The scheduler's view of the cluster, fed by one sk_reflector per
 * collection: lists and events are applied under the scheduler's lock. */
#include "sched/sched-int.h"

#include <string.h>

#include "util/util.h"

static const char *paths[SK_NFEEDS] = {
	[SK_RES_NODES] = "/api/v1/nodes",
	[SK_RES_PODS_W] = "/api/v1/pods",
	[SK_RES_PODGROUPS] = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
	[SK_RES_PRIOCLASSES] = "/apis/scheduling.k8s.io/v1/priorityclasses",
	[SK_RES_RUNTIMECLASSES] = "/apis/node.k8s.io/v1/runtimeclasses",
	[SK_RES_PVCS] = "/api/v1/persistentvolumeclaims",
	[SK_RES_PVS] = "/api/v1/persistentvolumes",
	[SK_RES_STORAGECLASSES] = "/apis/storage.k8s.io/v1/storageclasses",
};

static void on_event(void *ud, const char *type, json_t *obj)
{
	struct sk_feed *f = ud;

	pthread_mutex_lock(&f->s->mu);
	sk__sched_apply(f->s, f->kind, type, obj);
	pthread_cond_broadcast(&f->s->wake);
	pthread_mutex_unlock(&f->s->mu);
}

static char *item_key(json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));

	if (!name)
		return NULL;
	return ns ? xasprintf("%s/%s", ns, name) : xstrdup(name);
}

/* A (re)list replaces the scheduler's view of the collection. */
static void on_replace(void *ud, json_t *items, const char *rv)
{
	struct sk_feed *f = ud;
	json_t *item;
	sk_smap seen;
	size_t i;

	sk__smap_init(&seen);
	pthread_mutex_lock(&f->s->mu);
	json_array_foreach(items, i, item) {
		char *key = item_key(item);

		if (!key)
			continue;
		sk__smap_put(&seen, key, (void *)1);
		free(key);
		sk__sched_apply(f->s, f->kind, "ADDED", item);
	}
	sk__sched_prune(f->s, f->kind, &seen);
	f->synced = 1;
	pthread_cond_broadcast(&f->s->wake);
	pthread_mutex_unlock(&f->s->mu);
	sk__smap_release(&seen);
}

/* A resource the API does not serve (podgroups without the CRD) is an
 * empty, synced one: the reflector replaced it with nothing. */
static void on_list_failed(void *ud, const sk_error_t *err)
{
	struct sk_feed *f = ud;

	sk_debug("scheduler", "list %s: %s", paths[f->kind], err->msg);
}

void sk__sched_feeds_start(struct sk_sched *s)
{
	for (int k = 0; k < SK_NFEEDS; k++) {
		struct sk_feed *f = &s->feeds[k];
		sk_reflector_options o = {
			.path = paths[k],
			.component = "scheduler",
			/* the scheduler only reads (and keeps) the objects it is sent */
			.shared = 1,
			.replace = on_replace,
			.event = on_event,
			.list_failed = on_list_failed,
			.ud = f,
		};
		sk_error_t err = {0};

		f->s = s;
		f->kind = k;
		f->r = sk_reflector_new(s->client, &o);
		if (sk_reflector_start(f->r, &err) < 0)
			sk_warn("scheduler", "%s", err.msg);
	}
}

void sk__sched_feeds_stop(struct sk_sched *s)
{
	for (int k = 0; k < SK_NFEEDS; k++)
		sk_reflector_cancel(s->feeds[k].r);
	for (int k = 0; k < SK_NFEEDS; k++) {
		sk_reflector_free(s->feeds[k].r);
		s->feeds[k].r = NULL;
	}
}
