/* The garbage collector (after pkg/controller/garbagecollector): deletes
 * objects whose owners are all gone (background), deletes the blocking
 * dependents of an owner with the foregroundDeletion finalizer before
 * removing that finalizer, and strips ownerReferences from the dependents
 * of an owner with the orphan finalizer. The ownership graph is read from
 * the shared informers of every resource the controllers watch. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define FG "foregroundDeletion"
#define ORPHAN "orphan"

typedef struct gc_hook {
	struct sk_controller *k;
	sk_informer *inf;
} gc_hook;

typedef struct gc_state {
	sk_informer *infs[32];
	gc_hook hooks[32];
	int n;
	pthread_mutex_t mu;
	json_t *owners; /* owner uid -> {"<informer index>|<key>": true} */
} gc_state;

static gc_state *state(sk_controller *k) { return k->state; }

static int inf_index(gc_state *g, sk_informer *inf)
{
	for (int i = 0; i < g->n; i++)
		if (g->infs[i] == inf)
			return i;
	return -1;
}

/* The group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""). */
static void group_of(const char *api_version, char *buf, size_t len)
{
	const char *slash = strchr(api_version ? api_version : "", '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - api_version) : 0, api_version ? api_version : "");
}

static sk_informer *inf_for(gc_state *g, const char *api_version, const char *kind)
{
	char want[128], have[128];

	group_of(api_version, want, sizeof(want));
	for (int i = 0; i < g->n; i++) {
		group_of(sk_informer_api_version(g->infs[i]), have, sizeof(have));
		if (!strcmp(sk_informer_kind(g->infs[i]), kind ? kind : "") && !strcmp(have, want))
			return g->infs[i];
	}
	return NULL;
}

/* API path of obj in the informer's resource. */
static char *obj_path(sk_informer *inf, json_t *obj, const char *sub)
{
	const char *p = sk_informer_path(inf), *slash = strrchr(p, '/'), *nsp = strstr(p, "/namespaces/");
	int plen = (int)((nsp ? nsp : slash) - p);
	const char *ns = sk__ns(obj);

	return xasprintf("%.*s%s%s/%s/%s%s%s", plen, p, ns && *ns ? "/namespaces/" : "", ns && *ns ? ns : "", slash + 1,
			 sk__name(obj), sub ? "/" : "", sub ? sub : "");
}

static int has_fin(json_t *obj, const char *f)
{
	json_t *v;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.finalizers"), i, v)
		if (!strcmp(json_string_value(v) ?: "", f))
			return 1;
	return 0;
}

static void enqueue(sk_controller *k, sk_informer *inf, json_t *obj)
{
	cleanup_free char *ok = sk__key(obj);
	cleanup_free char *key = xasprintf("%d|%s", inf_index(state(k), inf), ok);

	sk__queue_add(k->q, key);
}

static int refs_uid(json_t *obj, const char *uid)
{
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "uid")) ?: "", uid))
			return 1;
	return 0;
}

/* Every cached object that names uid among its owners, as pairs
 * [informer index, object], from the owner index. */
static json_t *dependents(gc_state *g, const char *uid)
{
	json_t *out = json_array(), *keys, *v;
	const char *k;

	pthread_mutex_lock(&g->mu);
	keys = json_deep_copy(json_object_get(g->owners, uid ? uid : ""));
	pthread_mutex_unlock(&g->mu);
	json_object_foreach(keys, k, v) {
		int idx = atoi(k);
		char ns[256], name[256];
		json_t *o;

		if (idx < 0 || idx >= g->n || !strchr(k, '|'))
			continue;
		sk__split_key(strchr(k, '|') + 1, ns, sizeof(ns), name, sizeof(name));
		o = sk_informer_get(g->infs[idx], ns, name);
		if (o && refs_uid(o, uid))
			json_array_append_new(out, json_pack("[i, o]", idx, o));
		else
			json_decref(o);
	}
	json_decref(keys);
	return out;
}

/* Moves obj's entries in the owner index from old's owners to its own. */
static void index_owners(gc_state *g, int idx, json_t *old, json_t *obj, int gone)
{
	cleanup_free char *ok = sk__key(obj);
	cleanup_free char *key = xasprintf("%d|%s", idx, ok);
	json_t *r;
	size_t i;

	pthread_mutex_lock(&g->mu);
	json_array_foreach(sk_kube_jget(old, "metadata.ownerReferences"), i, r) {
		const char *u = json_string_value(json_object_get(r, "uid"));
		json_t *set = json_object_get(g->owners, u ? u : "");

		json_object_del(set, key);
		if (set && !json_object_size(set))
			json_object_del(g->owners, u);
	}
	json_array_foreach(gone ? NULL : sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		const char *u = json_string_value(json_object_get(r, "uid"));
		json_t *set;

		if (!u)
			continue;
		set = json_object_get(g->owners, u);
		if (!set) {
			set = json_object();
			json_object_set_new(g->owners, u, set);
		}
		json_object_set_new(set, key, json_true());
	}
	pthread_mutex_unlock(&g->mu);
}

static int remove_finalizer(sk_controller *k, sk_informer *inf, json_t *obj, const char *fin)
{
	json_t *v;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.finalizers"), i, v) {
		cleanup_free char *path = NULL, *p = NULL;
		cleanup_json json_t *patch = NULL, *out = NULL;
		sk_error_t err = {0};

		if (strcmp(json_string_value(v) ?: "", fin))
			continue;
		p = xasprintf("/metadata/finalizers/%zu", i);
		patch = json_pack("[{s:s, s:s, s:s}, {s:s, s:s}]", "op", "test", "path", p, "value", fin, "op",
				  "remove", "path", p);
		path = obj_path(inf, obj, NULL);
		out = sk_client_patch(k->ctl->c, path, SK_PATCH_JSON, patch, &err);
		if (!out)
			return err.code == SK_ENOTFOUND ? 0 : -1;
		sk_informer_write(inf, out);
		return 0;
	}
	return 0;
}

static int delete_obj(sk_controller *k, sk_informer *inf, json_t *obj, const char *policy)
{
	cleanup_free char *path = obj_path(inf, obj, NULL);
	cleanup_json json_t *opts = json_pack("{s:s, s:s, s:s, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
					      "propagationPolicy", policy, "preconditions", "uid", sk__uid(obj));
	sk_error_t err = {0};

	if (sk_client_delete(k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND && err.code != SK_ECONFLICT) {
		sk_info("ctrl", "garbage collector: deleting %s \"%s\": %s", sk_informer_kind(inf), sk__name(obj),
			err.msg);
		return -1;
	}
	sk_debug("ctrl", "garbage collector: deleted %s %s/%s (%s)", sk_informer_kind(inf), sk__ns(obj) ?: "",
		 sk__name(obj), policy);
	return 0;
}

static int has_dependents(gc_state *g, json_t *obj)
{
	cleanup_json json_t *d = dependents(g, sk__uid(obj));

	return json_array_size(d) > 0;
}

static const char *policy_for(gc_state *g, json_t *obj, int owner_waiting)
{
	if (has_fin(obj, ORPHAN))
		return "Orphan";
	if (has_fin(obj, FG) || (owner_waiting && has_dependents(g, obj)))
		return "Foreground";
	return "Background";
}

static int process_foreground(sk_controller *k, sk_informer *inf, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *deps = dependents(g, sk__uid(obj));
	json_t *pair;
	size_t i;
	int blocking = 0, rc = 0;

	json_array_foreach(deps, i, pair) {
		sk_informer *dinf = g->infs[json_integer_value(json_array_get(pair, 0))];
		json_t *d = json_array_get(pair, 1), *r;
		size_t j;

		json_array_foreach(sk_kube_jget(d, "metadata.ownerReferences"), j, r)
			if (!strcmp(json_string_value(json_object_get(r, "uid")) ?: "", sk__uid(obj)) &&
			    json_is_true(json_object_get(r, "blockOwnerDeletion")))
				blocking = 1;
		if (!sk__is_deleting(d) && delete_obj(k, dinf, d, policy_for(g, d, 1)) < 0)
			rc = -1;
	}
	if (blocking || rc < 0)
		return rc;
	return remove_finalizer(k, inf, obj, FG);
}

static int strip_owner(sk_controller *k, sk_informer *inf, json_t *obj, json_t *drop_uids)
{
	cleanup_json json_t *refs = json_array(), *patch = NULL, *out = NULL;
	cleanup_free char *path = obj_path(inf, obj, NULL);
	json_t *r;
	size_t i;
	sk_error_t err = {0};

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		const char *u = json_string_value(json_object_get(r, "uid"));
		json_t *d;
		size_t j;
		int drop = 0;

		json_array_foreach(drop_uids, j, d)
			drop |= !strcmp(json_string_value(d), u ?: "");
		if (!drop)
			json_array_append(refs, r);
	}
	patch = json_pack("{s:{s:O, s:s}}", "metadata", "ownerReferences", json_array_size(refs) ? refs : json_null(),
			  "resourceVersion", sk_kube_jstr(obj, "metadata.resourceVersion"));
	out = sk_client_patch(k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out)
		return err.code == SK_ENOTFOUND ? 0 : -1;
	sk_informer_write(inf, out);
	return 0;
}

static int process_orphan(sk_controller *k, sk_informer *inf, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *deps = dependents(g, sk__uid(obj)), *uids = json_pack("[s]", sk__uid(obj));
	json_t *pair;
	size_t i;

	json_array_foreach(deps, i, pair)
		if (strip_owner(k, g->infs[json_integer_value(json_array_get(pair, 0))], json_array_get(pair, 1),
				uids) < 0)
			return -1;
	return remove_finalizer(k, inf, obj, ORPHAN);
}

/* Looks the owner up in the cache, then live (the cache may lag).
 * Returns 1 solid, 2 waiting for its dependents, 0 absent, -1 unknown kind. */
static int owner_state(sk_controller *k, json_t *obj, json_t *ref)
{
	gc_state *g = state(k);
	sk_informer *oinf = inf_for(g, json_string_value(json_object_get(ref, "apiVersion")),
				    json_string_value(json_object_get(ref, "kind")));
	const char *name = json_string_value(json_object_get(ref, "name"));
	const char *uid = json_string_value(json_object_get(ref, "uid"));
	cleanup_json json_t *o = NULL, *probe = NULL;
	int namespaced;

	if (!oinf || !name || !uid)
		return -1;
	namespaced = strcmp(sk_informer_kind(oinf), "Node") && strcmp(sk_informer_kind(oinf), "Namespace");
	o = sk_informer_get(oinf, namespaced ? sk__ns(obj) : NULL, name);
	if (!o) {
		cleanup_free char *path = NULL;

		probe = json_pack("{s:{s:s, s:s?}}", "metadata", "name", name, "namespace",
				  namespaced ? sk__ns(obj) : NULL);
		path = obj_path(oinf, probe, NULL);
		o = sk_client_get(k->ctl->c, path, NULL);
	}
	if (!o || strcmp(sk__uid(o) ?: "", uid))
		return 0;
	return sk__is_deleting(o) && has_fin(o, FG) ? 2 : 1;
}

static int process_dependent(sk_controller *k, sk_informer *inf, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *dangling = json_array();
	json_t *r;
	size_t i;
	int solid = 0, waiting = 0;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		int s = owner_state(k, obj, r);

		if (s < 0 || s == 1)
			solid++;
		else if (s == 2)
			waiting++;
		else
			json_array_append(dangling, json_object_get(r, "uid"));
	}
	if (solid) {
		if (json_array_size(dangling))
			return strip_owner(k, inf, obj, dangling);
		return 0;
	}
	if (sk__is_deleting(obj))
		return 0;
	return delete_obj(k, inf, obj, policy_for(g, obj, waiting > 0));
}

static int sync_gc(sk_controller *k, const char *key)
{
	gc_state *g = state(k);
	char ns[256], name[256];
	const char *bar = strchr(key, '|');
	int idx = atoi(key);
	cleanup_json json_t *obj = NULL;
	sk_informer *inf;

	if (!bar || idx < 0 || idx >= g->n)
		return 0;
	inf = g->infs[idx];
	sk__split_key(bar + 1, ns, sizeof(ns), name, sizeof(name));
	obj = sk_informer_get(inf, ns, name);
	if (!obj)
		return 0;
	if (sk__is_deleting(obj) && has_fin(obj, ORPHAN))
		return process_orphan(k, inf, obj);
	if (sk__is_deleting(obj) && has_fin(obj, FG)) {
		int rc = process_foreground(k, inf, obj);

		if (rc == 0 && has_fin(obj, FG))
			sk__queue_add_after(k->q, key, 2000);
		return rc;
	}
	if (json_array_size(sk_kube_jget(obj, "metadata.ownerReferences")))
		return process_dependent(k, inf, obj);
	return 0;
}

static void enqueue_owners(sk_controller *k, json_t *obj)
{
	gc_state *g = state(k);
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		sk_informer *oinf = inf_for(g, json_string_value(json_object_get(r, "apiVersion")),
					    json_string_value(json_object_get(r, "kind")));
		cleanup_json json_t *o = NULL;

		if (!oinf)
			continue;
		o = sk_informer_get(oinf, sk__ns(obj), json_string_value(json_object_get(r, "name")));
		if (!o)
			o = sk_informer_get(oinf, NULL, json_string_value(json_object_get(r, "name")));
		if (o && sk__is_deleting(o))
			enqueue(k, oinf, o);
	}
}

static void on_event(void *ud, int ev, json_t *old, json_t *obj)
{
	gc_hook *h = ud;
	gc_state *g = state(h->k);

	index_owners(g, inf_index(g, h->inf), old, obj, ev == SK_INF_DELETE);
	if (ev == SK_INF_DELETE) {
		cleanup_json json_t *deps = dependents(g, sk__uid(obj));
		json_t *pair;
		size_t i;

		json_array_foreach(deps, i, pair)
			enqueue(h->k, g->infs[json_integer_value(json_array_get(pair, 0))], json_array_get(pair, 1));
		enqueue_owners(h->k, obj);
		return;
	}
	if (json_array_size(sk_kube_jget(obj, "metadata.ownerReferences")) ||
	    (sk__is_deleting(obj) && (has_fin(obj, FG) || has_fin(obj, ORPHAN))))
		enqueue(h->k, h->inf, obj);
	if (sk__is_deleting(obj))
		enqueue_owners(h->k, obj);
}

static void add_extra(struct sk_ctrl *ctl, const char *path, const char *gv, const char *kind)
{
	if (ctl->nextra < (int)(sizeof(ctl->extra) / sizeof(ctl->extra[0])))
		sk__ctrl_extra(ctl, path, gv, kind);
}

static void gc_release(void *state)
{
	gc_state *g = state;

	json_decref(g->owners);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

int sk__gc_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	gc_state *g = xzalloc(sizeof(*g));
	sk_controller *k = sk__controller_add(ctl, "garbage-collector", sync_gc, g);
	sk_informer *base[] = {ctl->pods,     ctl->rs,    ctl->deploy, ctl->ds,       ctl->crevs,     ctl->jobs,
			       ctl->cronjobs, ctl->nodes, ctl->leases, ctl->services, ctl->endpoints, ctl->slices};

	k->release = gc_release;
	pthread_mutex_init(&g->mu, NULL);
	g->owners = json_object();

	add_extra(ctl, "/api/v1/configmaps", "v1", "ConfigMap");
	add_extra(ctl, "/api/v1/secrets", "v1", "Secret");
	add_extra(ctl, "/api/v1/persistentvolumeclaims", "v1", "PersistentVolumeClaim");
	add_extra(ctl, "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "scheduling.x-k8s.io/v1alpha1", "PodGroup");
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		g->infs[g->n++] = base[i];
	for (int i = 0; i < ctl->nextra; i++)
		g->infs[g->n++] = ctl->extra[i];
	for (int i = 0; i < g->n; i++) {
		g->hooks[i].k = k;
		g->hooks[i].inf = g->infs[i];
		sk_informer_on(g->infs[i], on_event, &g->hooks[i]);
	}
	return 0;
}
