#include "sched/sched-int.h"

#include <string.h>
#include <time.h>

#include "util/util.h"

static const char *paths[SK_NREFLECTORS] = {
	[SK_RES_NODES] = "/api/v1/nodes",
	[SK_RES_PODS_W] = "/api/v1/pods",
	[SK_RES_PODGROUPS] = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
	[SK_RES_PRIOCLASSES] = "/apis/scheduling.k8s.io/v1/priorityclasses",
	[SK_RES_RUNTIMECLASSES] = "/apis/node.k8s.io/v1/runtimeclasses",
};

static int stopping(struct sk_reflector *r)
{
	int stop;

	pthread_mutex_lock(&r->mu);
	stop = r->stop;
	pthread_mutex_unlock(&r->mu);
	return stop;
}

/* Sleeps up to ms unless the scheduler stops. */
static void nap(struct sk_reflector *r, int ms)
{
	struct timespec ts;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&r->mu);
	if (!r->stop)
		pthread_cond_timedwait(&r->cv, &r->mu, &ts);
	pthread_mutex_unlock(&r->mu);
}

static int on_event(const char *type, json_t *obj, void *ud)
{
	struct sk_reflector *r = ud;

	if (strcmp(type, "ERROR") == 0) {
		pthread_mutex_lock(&r->mu);
		r->broken = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		return 1;
	}
	if (strcmp(type, "BOOKMARK") == 0 || !obj)
		return 0;
	pthread_mutex_lock(&r->s->mu);
	sk__sched_apply(r->s, r->kind, type, obj);
	pthread_cond_broadcast(&r->s->wake);
	pthread_mutex_unlock(&r->s->mu);
	return 0;
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

/* Lists the collection and replaces the scheduler's view. Returns the list's
 * resourceVersion (malloc'd) or NULL with *missing set when the API does not
 * serve the resource (podgroups without the CRD). */
static char *relist(struct sk_reflector *r, int *missing)
{
	sk_error_t err = {0};
	json_t *list = sk_client_list(r->s->client, r->path, NULL, &err), *item;
	const char *rv;
	sk_smap seen;
	size_t i;
	char *out;

	if (!list) {
		*missing = err.code == SK_ENOTFOUND;
		if (!*missing) {
			sk_debug("scheduler", "list %s: %s", r->path, err.msg);
			return NULL;
		}
		/* A resource the API does not serve is an empty, synced one. */
		pthread_mutex_lock(&r->s->mu);
		r->synced = 1;
		pthread_cond_broadcast(&r->s->wake);
		pthread_mutex_unlock(&r->s->mu);
		return NULL;
	}
	sk__smap_init(&seen);
	pthread_mutex_lock(&r->s->mu);
	json_array_foreach(json_object_get(list, "items"), i, item)
	{
		char *key = item_key(item);

		if (!key)
			continue;
		sk__smap_put(&seen, key, (void *)1);
		free(key);
		sk__sched_apply(r->s, r->kind, "ADDED", item);
	}
	sk__sched_prune(r->s, r->kind, &seen);
	r->synced = 1;
	pthread_cond_broadcast(&r->s->wake);
	pthread_mutex_unlock(&r->s->mu);
	sk__smap_release(&seen);
	rv = json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
	out = xstrdup(rv ? rv : "");
	json_decref(list);
	return out;
}

static void *reflector_main(void *arg)
{
	struct sk_reflector *r = arg;

	while (!stopping(r)) {
		int missing = 0;
		cleanup_free char *rv = relist(r, &missing);
		cleanup_free char *query = NULL;
		sk_client_watch *w;
		sk_error_t err = {0};

		if (!rv) {
			nap(r, missing ? 10000 : 1000);
			continue;
		}
		query = xasprintf("resourceVersion=%s&allowWatchBookmarks=true", rv);
		pthread_mutex_lock(&r->mu);
		r->broken = 0;
		pthread_mutex_unlock(&r->mu);
		/* the scheduler only reads (and keeps) the objects it is sent */
		w = sk_client_watch_start_shared(r->s->client, r->path, query, on_event, r, &err);
		if (!w) {
			sk_debug("scheduler", "watch %s: %s", r->path, err.msg);
			nap(r, 1000);
			continue;
		}
		pthread_mutex_lock(&r->mu);
		while (!r->broken && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		pthread_mutex_unlock(&r->mu);
		sk_client_watch_stop(w);
	}
	return NULL;
}

void sk__sched_reflectors_start(struct sk_sched *s)
{
	for (int k = 0; k < SK_NREFLECTORS; k++) {
		struct sk_reflector *r = &s->refl[k];

		r->s = s;
		r->kind = k;
		r->path = paths[k];
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		pthread_create(&r->th, NULL, reflector_main, r);
	}
}

void sk__sched_reflectors_stop(struct sk_sched *s)
{
	for (int k = 0; k < SK_NREFLECTORS; k++) {
		struct sk_reflector *r = &s->refl[k];

		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
	for (int k = 0; k < SK_NREFLECTORS; k++) {
		pthread_join(s->refl[k].th, NULL);
		pthread_mutex_destroy(&s->refl[k].mu);
		pthread_cond_destroy(&s->refl[k].cv);
	}
}
