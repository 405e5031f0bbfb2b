/* A shared informer: list + watch of one resource (an sk_reflector) with an
 * in-memory cache keyed by namespace/name (after client-go's indexer), and an
 * index of the cached objects by their controller's uid (orphans by
 * namespace), as upstream's PodControllerUIDIndex, so a controller reads the
 * objects it may own without scanning the namespace. */
#include <pthread.h>
#include <string.h>

#include "client/reflector.h"
#include "client/informer.h"
#include "kube/object.h"
#include "util/util.h"

static const char *obj_ns(json_t *o) { return sk_kube_jstr(o, "metadata.namespace"); }

/* "ns/name" or "name" */
static char *obj_key(json_t *o)
{
	const char *ns = obj_ns(o), *name = sk_kube_jstr(o, "metadata.name");

	return ns && *ns ? xasprintf("%s/%s", ns, name ? name : "") : xstrdup(name ? name : "");
}

#define MAX_HANDLERS 16

struct sk_informer {
	sk_client *c;
	char *path, *api_version, *kind;
	pthread_mutex_t mu;
	json_t *cache;      /* key -> object */
	json_t *tombstones; /* key -> rv of the delete we already applied */
	json_t *owners;     /* owner_key -> {key -> object} */
	struct {
		sk_informer_fn fn;
		void *ud;
	} h[MAX_HANDLERS];
	int nh;
	int metadata_only;
	sk_reflector *refl;
};

sk_informer *sk_informer_new(sk_client *c, const char *path, const char *api_version, const char *kind)
{
	sk_informer *inf = xzalloc(sizeof(*inf));

	inf->c = c;
	inf->path = xstrdup(path);
	inf->api_version = xstrdup(api_version);
	inf->kind = xstrdup(kind);
	inf->cache = json_object();
	inf->tombstones = json_object();
	inf->owners = json_object();
	pthread_mutex_init(&inf->mu, NULL);
	return inf;
}

void sk_informer_on(sk_informer *inf, sk_informer_fn fn, void *ud)
{
	if (inf->nh >= MAX_HANDLERS)
		abort(); /* a fixed set of handlers: a programming error, never a silent drop */
	inf->h[inf->nh].fn = fn;
	inf->h[inf->nh].ud = ud;
	inf->nh++;
}

void sk_informer_set_metadata_only(sk_informer *inf) { inf->metadata_only = 1; }

const char *sk_informer_kind(const sk_informer *inf) { return inf->kind; }
const char *sk_informer_api_version(const sk_informer *inf) { return inf->api_version; }
const char *sk_informer_path(const sk_informer *inf) { return inf->path; }

static long long rv_of(json_t *obj)
{
	const char *rv = sk_kube_jstr(obj, "metadata.resourceVersion");

	return rv ? strtoll(rv, NULL, 10) : 0;
}

static void notify(sk_informer *inf, int ev, json_t *old, json_t *obj)
{
	for (int i = 0; i < inf->nh; i++)
		inf->h[i].fn(inf->h[i].ud, ev, old, obj);
}

static void stamp_kind(sk_informer *inf, json_t *obj)
{
	if (!json_object_get(obj, "kind"))
		json_object_set_new(obj, "kind", json_string(inf->kind));
	if (!json_object_get(obj, "apiVersion"))
		json_object_set_new(obj, "apiVersion", json_string(inf->api_version));
}

/* The owner index's key of obj: its controller's uid, or "/" and the
 * namespace for an object without a controller (a uid holds no '/'). */
static char *owner_key(json_t *obj)
{
	const char *uid = json_string_value(json_object_get(sk_kube_controller_ref(obj), "uid"));
	const char *ns = obj_ns(obj);

	return uid ? xstrdup(uid) : xasprintf("/%s", ns ? ns : "");
}

/* Moves key from old's bucket to obj's (either may be NULL). Under mu. */
static void index_owner(sk_informer *inf, const char *key, json_t *old, json_t *obj)
{
	if (old) {
		cleanup_free char *ok = owner_key(old);
		json_t *set = json_object_get(inf->owners, ok);

		json_object_del(set, key);
		if (set && !json_object_size(set))
			json_object_del(inf->owners, ok);
	}
	if (obj) {
		cleanup_free char *nk = owner_key(obj);
		json_t *set = json_object_get(inf->owners, nk);

		if (!set) {
			set = json_object();
			json_object_set_new(inf->owners, nk, set);
		}
		json_object_set(set, key, obj);
	}
}

/* The object meta a metadata-only informer keeps of obj (upstream's
 * PartialObjectMetadata without the fields nobody reads from it here:
 * labels, annotations, managedFields). New reference. */
static json_t *metadata_of(json_t *obj)
{
	static const char *const keep[] = {"name",
					   "namespace",
					   "uid",
					   "resourceVersion",
					   "generation",
					   "creationTimestamp",
					   "deletionTimestamp",
					   "deletionGracePeriodSeconds",
					   "ownerReferences",
					   "finalizers",
					   NULL};
	json_t *meta = json_object_get(obj, "metadata"), *m = json_object(), *out;

	for (int i = 0; keep[i]; i++) {
		json_t *v = json_object_get(meta, keep[i]);

		if (v)
			json_object_set(m, keep[i], v);
	}
	out = json_pack("{s:o}", "metadata", m);
	if (json_object_get(obj, "apiVersion"))
		json_object_set(out, "apiVersion", json_object_get(obj, "apiVersion"));
	if (json_object_get(obj, "kind"))
		json_object_set(out, "kind", json_object_get(obj, "kind"));
	return out;
}

/* Applies an add/update; handlers run outside the lock. With take, in is an
 * object nobody else holds or changes (a watch event's or list item's, which
 * the client drops afterwards): the cache keeps it without a copy. */
static void apply_upsert(sk_informer *inf, json_t *in, int force, int take)
{
	cleanup_free char *key = obj_key(in);
	json_t *obj = inf->metadata_only ? metadata_of(in) : take ? json_incref(in) : json_deep_copy(in), *old;
	json_t *tomb;
	long long rv = rv_of(obj);

	stamp_kind(inf, obj);
	pthread_mutex_lock(&inf->mu);
	tomb = json_object_get(inf->tombstones, key);
	if (tomb && rv <= json_integer_value(tomb) && !force) {
		pthread_mutex_unlock(&inf->mu);
		json_decref(obj);
		return;
	}
	old = json_incref(json_object_get(inf->cache, key));
	if (old && rv_of(old) >= rv && !force) {
		pthread_mutex_unlock(&inf->mu);
		json_decref(old);
		json_decref(obj);
		return;
	}
	json_object_del(inf->tombstones, key);
	json_object_set(inf->cache, key, obj);
	index_owner(inf, key, old, obj);
	pthread_mutex_unlock(&inf->mu);
	notify(inf, old ? SK_INF_UPDATE : SK_INF_ADD, old, obj);
	json_decref(old);
	json_decref(obj);
}

static void apply_delete(sk_informer *inf, json_t *in)
{
	cleanup_free char *key = obj_key(in);
	json_t *old;
	long long rv = rv_of(in);

	pthread_mutex_lock(&inf->mu);
	old = json_incref(json_object_get(inf->cache, key));
	json_object_set_new(inf->tombstones, key, json_integer(rv));
	if (!old) {
		pthread_mutex_unlock(&inf->mu);
		return;
	}
	json_object_del(inf->cache, key);
	index_owner(inf, key, old, NULL);
	pthread_mutex_unlock(&inf->mu);
	notify(inf, SK_INF_DELETE, old, old);
	json_decref(old);
}

void sk_informer_write(sk_informer *inf, json_t *obj)
{
	if (obj)
		apply_upsert(inf, obj, 0, 0);
}

void sk_informer_forget(sk_informer *inf, json_t *obj)
{
	if (obj)
		apply_delete(inf, obj);
}

json_t *sk_informer_get(sk_informer *inf, const char *ns, const char *name)
{
	cleanup_free char *key = ns && *ns ? xasprintf("%s/%s", ns, name) : xstrdup(name);
	json_t *o;

	pthread_mutex_lock(&inf->mu);
	o = json_incref(json_object_get(inf->cache, key));
	pthread_mutex_unlock(&inf->mu);
	return o;
}

json_t *sk_informer_list(sk_informer *inf, const char *ns)
{
	json_t *arr = json_array(), *v;
	size_t nslen = ns ? strlen(ns) : 0;
	const char *k;

	pthread_mutex_lock(&inf->mu);
	json_object_foreach(inf->cache, k, v) {
		if (ns && (strncmp(k, ns, nslen) || k[nslen] != '/'))
			continue;
		json_array_append(arr, v);
	}
	pthread_mutex_unlock(&inf->mu);
	return arr;
}

/* Appends the objects in bucket bkey that are in ns to arr. */
static void append_bucket(sk_informer *inf, json_t *arr, const char *bkey, const char *ns)
{
	json_t *set, *v;
	const char *k;

	pthread_mutex_lock(&inf->mu);
	set = json_object_get(inf->owners, bkey);
	json_object_foreach(set, k, v)
		if (!strcmp(obj_ns(v) ?: "", ns ?: ""))
			json_array_append(arr, v);
	pthread_mutex_unlock(&inf->mu);
}

json_t *sk_informer_owned(sk_informer *inf, const char *ns, const char *uid)
{
	json_t *arr = json_array();

	if (uid && *uid)
		append_bucket(inf, arr, uid, ns);
	return arr;
}

json_t *sk_informer_orphans(sk_informer *inf, const char *ns)
{
	cleanup_free char *bkey = xasprintf("/%s", ns ? ns : "");
	json_t *arr = json_array();

	append_bucket(inf, arr, bkey, ns);
	return arr;
}

/* A (re)list: the cache becomes items. An object written through after the
 * list's snapshot is not stale, nor forgotten by an older tombstone. */
static void on_replace(void *ud, json_t *items, const char *rv)
{
	sk_informer *inf = ud;
	cleanup_json json_t *seen = json_object(), *stale = json_array();
	long long list_rv = rv && *rv ? strtoll(rv, NULL, 10) : 0;
	json_t *v;
	const char *k;
	size_t i;
	void *tmp;

	json_array_foreach(items, i, v) {
		cleanup_free char *key = obj_key(v);

		json_object_set_new(seen, key, json_true());
		apply_upsert(inf, v, 0, 1);
	}
	pthread_mutex_lock(&inf->mu);
	json_object_foreach(inf->cache, k, v)
		if (!json_object_get(seen, k) && (!list_rv || rv_of(v) <= list_rv))
			json_array_append(stale, v);
	json_object_foreach_safe(inf->tombstones, tmp, k, v)
		if (!list_rv || json_integer_value(v) <= list_rv)
			json_object_del(inf->tombstones, k);
	pthread_mutex_unlock(&inf->mu);
	json_array_foreach(stale, i, v)
		apply_delete(inf, v);
}

static void on_event(void *ud, const char *type, json_t *obj)
{
	sk_informer *inf = ud;

	if (!strcmp(type, "DELETED"))
		apply_delete(inf, obj);
	else
		apply_upsert(inf, obj, 0, 1);
}

/* Whether a failed list may succeed when tried again: not a refusal of the
 * caller or of its request. */
static bool transient(const sk_error_t *err)
{
	switch (err->code) {
	case SK_EUNAUTHORIZED:
	case SK_EFORBIDDEN:
	case SK_EBADREQUEST:
	case SK_EINVALID:
	case SK_EMETHOD:
	case SK_ENOTACCEPTABLE:
		return false;
	default:
		return true;
	}
}

int sk_informer_start(sk_informer *inf, sk_error_t *err)
{
	sk_reflector_options o = {
		.path = inf->path,
		.component = "ctrl",
		.replace = on_replace,
		.event = on_event,
		.ud = inf,
	};

	if (!inf->refl)
		inf->refl = sk_reflector_new(inf->c, &o);
	if (sk_reflector_list(inf->refl, err) < 0) {
		if (!transient(err))
			return -1;
		/* A slow or restarting server: the reflector lists again with
		 * backoff, as client-go's does, instead of its caller giving up. */
		sk_warn("informer", "%s (listing again in the background)", err->msg);
		*err = (sk_error_t){0};
	}
	return sk_reflector_start(inf->refl, err);
}

void sk_informer_cancel(sk_informer *inf)
{
	if (inf)
		sk_reflector_cancel(inf->refl);
}

void sk_informer_stop(sk_informer *inf)
{
	if (inf)
		sk_reflector_stop(inf->refl);
}

void sk_informer_free(sk_informer *inf)
{
	if (!inf)
		return;
	sk_reflector_free(inf->refl);
	json_decref(inf->cache);
	json_decref(inf->tombstones);
	json_decref(inf->owners);
	pthread_mutex_destroy(&inf->mu);
	free(inf->path);
	free(inf->api_version);
	free(inf->kind);
	free(inf);
}
