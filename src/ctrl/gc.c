/* The garbage collector (after pkg/controller/garbagecollector): deletes
 * objects whose owners are all gone (background), deletes the dependents of
 * an owner with the foregroundDeletion finalizer and removes that finalizer
 * once no blocking dependent is left, and strips ownerReferences from the
 * dependents of an owner with the orphan finalizer.
 *
 * The ownership graph is read from one monitor (an informer) per resource:
 * the controllers' shared informers (their whole objects are cached
 * anyway), and one of its own, metadata-only as upstream's, for every
 * other resource discovery lists with list, watch and delete (custom
 * resources included), added and retired as CustomResourceDefinitions come
 * and go and on a periodic discovery resync (every 30 s), as upstream's
 * GraphBuilder does. Everything is event-driven: a change of an
 * object queues it, its waiting owners and (on delete) its dependents. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define FG "foregroundDeletion"
#define ORPHAN "orphan"
#define DISCOVER "!discover"
#define RESYNC "!resync"
#define MAX_MONITORS 256

typedef struct gc_monitor {
	struct sk_controller *k;
	sk_informer *inf; /* atomic (minf) */
	int idx;
	char *id;       /* "group/plural" ("/pods" for the core group) */
	int namespaced; /* atomic: discovery may correct the first guess */
	int dynamic;    /* made by discovery: stopped and freed by the collector */
	int custom;     /* a CustomResourceDefinition's resource when made */
	int retired;    /* atomic: no longer served; kept until the collector stops */
} gc_monitor;

typedef struct gc_state {
	gc_monitor mons[MAX_MONITORS];
	int n; /* atomic: published monitors (a slot is filled before n covers it) */
	pthread_mutex_t mu;
	json_t *owners;        /* owner uid -> {"<monitor index>|<key>": true} */
	sk_informer *crds;     /* CustomResourceDefinitions: discovery runs when they change */
	int full;              /* the table was full once (said once) */
	int64_t discovered_ms; /* atomic: when discovery last ran (monotonic) */
	sk_informer **dead;    /* informers of revived monitors, freed when the collector stops */
	size_t ndead;
} gc_state;

int sk__gc_resync_ms = 30000;
int sk__gc_ignore_crd_events;

static gc_state *state(sk_controller *k) { return k->state; }

static int nmons(gc_state *g) { return __atomic_load_n(&g->n, __ATOMIC_ACQUIRE); }

static int live(gc_monitor *m) { return !__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE); }

/* The monitor's informer (a monitor revived for a CRD created anew gets a
 * new one; the old stays valid until the collector stops). */
static sk_informer *minf(gc_monitor *m) { return __atomic_load_n(&m->inf, __ATOMIC_ACQUIRE); }

/* The group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""). */
static void group_of(const char *api_version, char *buf, size_t len)
{
	const char *slash = strchr(api_version ? api_version : "", '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - api_version) : 0, api_version ? api_version : "");
}

/* The monitor of the resource whose kind is kind in api_version's group (any
 * version: an object is the same object in each), or NULL. */
static gc_monitor *mon_for(gc_state *g, const char *api_version, const char *kind)
{
	char want[128], have[128];
	int n = nmons(g);

	group_of(api_version, want, sizeof(want));
	for (int i = 0; i < n; i++) {
		gc_monitor *m = &g->mons[i];

		if (!live(m) || strcmp(sk_informer_kind(minf(m)), kind ? kind : ""))
			continue;
		group_of(sk_informer_api_version(minf(m)), have, sizeof(have));
		if (!strcmp(have, want))
			return m;
	}
	return NULL;
}

/* "group/plural" of a collection path of all namespaces ("/api/v1/pods",
 * "/apis/apps/v1/replicasets"), malloc'd; NULL for any other path. */
static char *path_id(const char *path)
{
	const char *p, *slash;

	if (strstr(path, "/namespaces/"))
		return NULL;
	if (!strncmp(path, "/api/v1/", 8))
		return strchr(path + 8, '/') ? NULL : xasprintf("/%s", path + 8);
	if (strncmp(path, "/apis/", 6))
		return NULL;
	p = path + 6;
	slash = strchr(p, '/');
	if (!slash || !strchr(slash + 1, '/'))
		return NULL;
	return xasprintf("%.*s/%s", (int)(slash - p), p, strchr(slash + 1, '/') + 1);
}

/* API path of obj in the monitor's resource. */
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

/* Being deleted and waiting for its dependents (upstream's isDeletingDependents). */
static int deleting_dependents(json_t *obj) { return sk__is_deleting(obj) && has_fin(obj, FG); }

static void enqueue(sk_controller *k, int idx, json_t *obj)
{
	cleanup_free char *ok = sk__key(obj);
	cleanup_free char *key = xasprintf("%d|%s", idx, ok);

	sk__queue_add(k->q, key);
}

/* obj's ownerReference to uid (borrowed) or NULL. */
static json_t *ref_to(json_t *obj, const char *uid)
{
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "uid")) ?: "", uid ? uid : ""))
			return r;
	return NULL;
}

/* Every cached object that names uid among its owners, as pairs
 * [monitor index, object], from the owner index. */
static json_t *dependents(gc_state *g, const char *uid)
{
	json_t *out = json_array(), *keys, *v;
	int n = nmons(g);
	const char *k;

	pthread_mutex_lock(&g->mu);
	keys = json_deep_copy(json_object_get(g->owners, uid ? uid : ""));
	pthread_mutex_unlock(&g->mu);
	json_object_foreach(keys, k, v) {
		int idx = atoi(k);
		char ns[256], name[256];
		json_t *o;

		if (idx < 0 || idx >= n || !strchr(k, '|') || !live(&g->mons[idx]))
			continue;
		sk__split_key(strchr(k, '|') + 1, ns, sizeof(ns), name, sizeof(name));
		o = sk_informer_get(minf(&g->mons[idx]), ns, name);
		if (o && ref_to(o, uid))
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

/* Drops a retired monitor's objects from the owner index. */
static void unindex_monitor(gc_state *g, int idx)
{
	cleanup_free char *prefix = xasprintf("%d|", idx);
	size_t plen = strlen(prefix);
	const char *u, *key;
	json_t *set, *v;
	void *t1, *t2;

	pthread_mutex_lock(&g->mu);
	json_object_foreach_safe(g->owners, t1, u, set) {
		json_object_foreach_safe(set, t2, key, v)
			if (!strncmp(key, prefix, plen))
				json_object_del(set, key);
		if (!json_object_size(set))
			json_object_del(g->owners, u);
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

/* Rewrites obj's ownerReferences: those to the uids in drop go, those to
 * the uids in unblock get blockOwnerDeletion false (a merge patch at obj's
 * resourceVersion, so a concurrent change is a conflict, retried). */
static int patch_refs(sk_controller *k, sk_informer *inf, json_t *obj, json_t *drop, json_t *unblock)
{
	cleanup_json json_t *refs = json_array(), *patch = NULL, *out = NULL;
	cleanup_free char *path = obj_path(inf, obj, NULL);
	json_t *r;
	size_t i;
	sk_error_t err = {0};

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		json_t *u = json_object_get(r, "uid"), *d;
		size_t j;
		int gone = 0, unb = 0;

		json_array_foreach(drop, j, d)
			gone |= json_equal(d, u);
		json_array_foreach(unblock, j, d)
			unb |= json_equal(d, u);
		if (gone)
			continue;
		if (unb && json_is_true(json_object_get(r, "blockOwnerDeletion"))) {
			json_t *c = json_deep_copy(r);

			json_object_set_new(c, "blockOwnerDeletion", json_false());
			json_array_append_new(refs, c);
		} else {
			json_array_append(refs, r);
		}
	}
	patch = json_pack("{s:{s:O, s:s}}", "metadata", "ownerReferences", json_array_size(refs) ? refs : json_null(),
			  "resourceVersion", sk_kube_jstr(obj, "metadata.resourceVersion") ?: "");
	out = sk_client_patch(k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out)
		return err.code == SK_ENOTFOUND ? 0 : -1;
	sk_informer_write(inf, out);
	return 0;
}

enum { OWNER_DANGLING, OWNER_SOLID, OWNER_WAITING, OWNER_UNKNOWN };

/* Looks the owner up in its monitor, then live (the cache may lag), as
 * upstream's isDangling: absent or of another uid is dangling; being
 * deleted with foregroundDeletion is waiting for its dependents. An owner
 * of a kind no monitor has is unknown (retried, with discovery run again);
 * a namespaced owner of a cluster-scoped dependent is an unresolvable
 * reference, taken as solid (never collected, as upstream). */
static int owner_state(sk_controller *k, json_t *obj, json_t *ref)
{
	gc_state *g = state(k);
	gc_monitor *m = mon_for(g, json_string_value(json_object_get(ref, "apiVersion")),
				json_string_value(json_object_get(ref, "kind")));
	const char *name = json_string_value(json_object_get(ref, "name"));
	const char *uid = json_string_value(json_object_get(ref, "uid"));
	const char *ns = sk__ns(obj);
	cleanup_json json_t *o = NULL, *probe = NULL;
	int namespaced;

	if (!name || !uid)
		return OWNER_SOLID;
	if (!m) {
		/* a kind served since the last discovery (a CRD's comes with
		 * the CRD's own events): at most every 30 s, as upstream's resync */
		if (sk_mono_ns() / 1000000 - __atomic_load_n(&g->discovered_ms, __ATOMIC_RELAXED) > 30000)
			sk__queue_add(k->q, DISCOVER);
		return OWNER_UNKNOWN;
	}
	namespaced = __atomic_load_n(&m->namespaced, __ATOMIC_RELAXED);
	if (namespaced && !(ns && *ns))
		return OWNER_SOLID;
	o = sk_informer_get(minf(m), namespaced ? ns : NULL, name);
	if (!o) {
		cleanup_free char *path = NULL;
		sk_error_t err = {0};

		probe = json_pack("{s:{s:s, s:s?}}", "metadata", "name", name, "namespace", namespaced ? ns : NULL);
		path = obj_path(minf(m), probe, NULL);
		o = sk_client_get(k->ctl->c, path, &err);
		if (!o && err.code != SK_ENOTFOUND)
			return OWNER_UNKNOWN;
	}
	if (!o || strcmp(sk__uid(o) ?: "", uid))
		return OWNER_DANGLING;
	return deleting_dependents(o) ? OWNER_WAITING : OWNER_SOLID;
}

/* upstream's attemptToDeleteItem for an object that is not being deleted:
 * with a solid owner, references to dangling and waiting owners go; with
 * none, the object is deleted — in the foreground when an owner waits for
 * it and it has dependents of its own (their blocking references to a
 * waiting owner first made non-blocking when one of them waits too, so two
 * never wait on each other), else as its own finalizers say. */
static int attempt_to_delete(sk_controller *k, gc_monitor *m, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *dangling = json_array(), *waiting = json_array(), *deps = NULL;
	json_t *r, *pair;
	size_t i;
	int solid = 0, unknown = 0, cycle = 0;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		switch (owner_state(k, obj, r)) {
		case OWNER_SOLID:
			solid++;
			break;
		case OWNER_WAITING:
			json_array_append(waiting, json_object_get(r, "uid"));
			break;
		case OWNER_DANGLING:
			json_array_append(dangling, json_object_get(r, "uid"));
			break;
		default:
			unknown++;
		}
	}
	if (solid) {
		if (!json_array_size(dangling) && !json_array_size(waiting))
			return 0;
		json_array_extend(dangling, waiting);
		return patch_refs(k, minf(m), obj, dangling, NULL);
	}
	if (unknown)
		return -1;
	deps = dependents(g, sk__uid(obj));
	if (json_array_size(waiting) && json_array_size(deps)) {
		json_array_foreach(deps, i, pair)
			cycle |= deleting_dependents(json_array_get(pair, 1));
		if (cycle && patch_refs(k, minf(m), obj, NULL, waiting) < 0)
			return -1;
		return delete_obj(k, minf(m), obj, "Foreground");
	}
	return delete_obj(k, minf(m), obj,
			  has_fin(obj, ORPHAN) ? "Orphan"
			  : has_fin(obj, FG)   ? "Foreground"
					       : "Background");
}

/* upstream's processDeletingDependentsItem: the finalizer goes once no
 * dependent blocks the owner; until then every dependent not yet deleted
 * is queued (it sees its owner waiting and goes). */
static int process_deleting_dependents(sk_controller *k, gc_monitor *m, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *deps = dependents(g, sk__uid(obj));
	json_t *pair;
	size_t i;
	int blocking = 0;

	json_array_foreach(deps, i, pair) {
		json_t *d = json_array_get(pair, 1);

		if (json_is_true(json_object_get(ref_to(d, sk__uid(obj)), "blockOwnerDeletion")))
			blocking++;
		if (!sk__is_deleting(d))
			enqueue(k, (int)json_integer_value(json_array_get(pair, 0)), d);
	}
	return blocking ? 0 : remove_finalizer(k, minf(m), obj, FG);
}

static int process_orphan(sk_controller *k, gc_monitor *m, json_t *obj)
{
	gc_state *g = state(k);
	cleanup_json json_t *deps = dependents(g, sk__uid(obj)), *uids = json_pack("[s]", sk__uid(obj));
	json_t *pair;
	size_t i;

	json_array_foreach(deps, i, pair) {
		gc_monitor *dm = &g->mons[json_integer_value(json_array_get(pair, 0))];

		if (patch_refs(k, minf(dm), json_array_get(pair, 1), uids, NULL) < 0)
			return -1;
	}
	return remove_finalizer(k, minf(m), obj, ORPHAN);
}

/* ---- monitors and discovery ---- */

static void on_event(void *ud, int ev, json_t *old, json_t *obj);

/* Publishes a monitor of inf (its handler added; inf not started yet).
 * NULL when the table is full. Runs at init or on the discovery worker. */
static gc_monitor *add_monitor(sk_controller *k, sk_informer *inf, const char *id, int namespaced, int dynamic)
{
	gc_state *g = state(k);
	int n = nmons(g);
	gc_monitor *m;

	if (n >= MAX_MONITORS) {
		if (!g->full)
			sk_warn("ctrl", "garbage collector: more than %d resources; %s not watched", MAX_MONITORS,
				sk_informer_path(inf));
		g->full = 1;
		return NULL;
	}
	m = &g->mons[n];
	*m = (gc_monitor){
		.k = k, .inf = inf, .idx = n, .id = xstrdup(id), .namespaced = namespaced, .dynamic = dynamic};
	sk_informer_on(inf, on_event, m);
	__atomic_store_n(&g->n, n + 1, __ATOMIC_RELEASE);
	return m;
}

static gc_monitor *mon_by_id(gc_state *g, const char *id)
{
	int n = nmons(g);

	for (int i = 0; i < n; i++)
		if (live(&g->mons[i]) && !strcmp(g->mons[i].id, id))
			return &g->mons[i];
	return NULL;
}

/* A retired monitor of id: a CRD deleted and created again gets its slot
 * back, so CRD churn does not use up the table. */
static gc_monitor *retired_by_id(gc_state *g, const char *id)
{
	int n = nmons(g);

	for (int i = 0; i < n; i++)
		if (g->mons[i].dynamic && !live(&g->mons[i]) && !strcmp(g->mons[i].id, id))
			return &g->mons[i];
	return NULL;
}

static void revive(gc_state *g, gc_monitor *m, sk_informer *inf, int namespaced)
{
	g->dead = xrealloc(g->dead, (g->ndead + 1) * sizeof(*g->dead));
	g->dead[g->ndead++] = minf(m);
	sk_informer_on(inf, on_event, m);
	__atomic_store_n(&m->namespaced, namespaced, __ATOMIC_RELAXED);
	__atomic_store_n(&m->inf, inf, __ATOMIC_RELEASE);
	__atomic_store_n(&m->retired, 0, __ATOMIC_RELEASE);
}

static int has_verb(json_t *r, const char *verb)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(r, "verbs"), i, v)
		if (!strcmp(json_string_value(v) ?: "", verb))
			return 1;
	return 0;
}

/* Adds to want ("group/plural" -> {path, gv, kind, namespaced}) the
 * resources of one discovery document that the collector can follow: list,
 * watch and delete, events excepted (upstream's ignored resources). */
static int discover_gv(sk_controller *k, const char *gv, json_t *want)
{
	cleanup_free char *dpath = strchr(gv, '/') ? xasprintf("/apis/%s", gv) : xasprintf("/api/%s", gv);
	cleanup_json json_t *list = NULL;
	char group[128];
	sk_error_t err = {0};
	json_t *r;
	size_t i;

	list = sk_client_get(k->ctl->c, dpath, &err);
	if (!list)
		return err.code == SK_ENOTFOUND ? 0 : -1;
	group_of(gv, group, sizeof(group));
	json_array_foreach(json_object_get(list, "resources"), i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *kind = json_string_value(json_object_get(r, "kind"));
		cleanup_free char *id = NULL;

		if (!name || !kind || strchr(name, '/') || !has_verb(r, "list") || !has_verb(r, "watch") ||
		    !has_verb(r, "delete"))
			continue;
		if (!strcmp(name, "events") && (!*group || !strcmp(group, "events.k8s.io")))
			continue;
		id = xasprintf("%s/%s", group, name);
		if (!json_object_get(want, id))
			json_object_set_new(want, id,
					    json_pack("{s:s++, s:s, s:s, s:b}", "path", dpath, "/", name, "gv", gv,
						      "kind", kind, "namespaced",
						      json_is_true(json_object_get(r, "namespaced"))));
	}
	return 0;
}

/* Whether discovery still disagrees with the CustomResourceDefinitions: an
 * established one not listed yet, or a deleted one still listed. */
static int crds_ahead(gc_state *g, json_t *want)
{
	cleanup_json json_t *crds = g->crds ? sk_informer_list(g->crds, NULL) : json_array(), *ids = json_object();
	json_t *crd, *c;
	size_t i, j;
	int n = nmons(g);

	if (sk__gc_ignore_crd_events)
		return 0;
	json_array_foreach(crds, i, crd) {
		cleanup_free char *id = xasprintf("%s/%s", sk_kube_jstr(crd, "spec.group") ?: "",
						  sk_kube_jstr(crd, "spec.names.plural") ?: "");
		int established = 0, served = 0;

		json_object_set_new(ids, id, json_true());
		json_array_foreach(sk_kube_jget(crd, "status.conditions"), j, c)
			established |= !strcmp(json_string_value(json_object_get(c, "type")) ?: "", "Established") &&
				       !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
		json_array_foreach(sk_kube_jget(crd, "spec.versions"), j, c)
			served |= json_is_true(json_object_get(c, "served"));
		if (established && served && !sk__is_deleting(crd) && !json_object_get(want, id))
			return 1;
	}
	for (int m = 0; m < n; m++)
		if (g->mons[m].dynamic && live(&g->mons[m]) && json_object_get(want, g->mons[m].id) &&
		    g->mons[m].custom && !json_object_get(ids, g->mons[m].id))
			return 1;
	return 0;
}

static void retire(gc_state *g, gc_monitor *m)
{
	__atomic_store_n(&m->retired, 1, __ATOMIC_RELEASE);
	sk_informer_cancel(minf(m));
	sk_informer_stop(minf(m));
	unindex_monitor(g, m->idx);
	sk_debug("ctrl", "garbage collector: stopped watching %s", m->id);
}

/* upstream's GarbageCollector.Sync: one monitor per resource discovery
 * lists, the new ones started (their objects queued as they are listed),
 * the ones no longer served stopped. Returns -1 to run again with backoff:
 * discovery failed, or lags the CustomResourceDefinitions. */
static int discover(sk_controller *k)
{
	gc_state *g = state(k);
	cleanup_json json_t *want = json_object(), *groups = NULL, *crds = NULL;
	sk_error_t err = {0};
	json_t *grp, *w, *crd;
	const char *id;
	size_t i;
	int failed = discover_gv(k, "v1", want) < 0, n;

	__atomic_store_n(&g->discovered_ms, sk_mono_ns() / 1000000, __ATOMIC_RELAXED);

	groups = sk_client_get(k->ctl->c, "/apis", &err);
	failed |= !groups;
	json_array_foreach(json_object_get(groups, "groups"), i, grp) {
		const char *gv = sk_kube_jstr(grp, "preferredVersion.groupVersion");

		if (gv && discover_gv(k, gv, want) < 0)
			failed = 1;
	}
	crds = g->crds ? sk_informer_list(g->crds, NULL) : json_array();
	json_array_foreach(crds, i, crd) {
		cleanup_free char *cid = xasprintf("%s/%s", sk_kube_jstr(crd, "spec.group") ?: "",
						   sk_kube_jstr(crd, "spec.names.plural") ?: "");

		if ((w = json_object_get(want, cid)))
			json_object_set_new(w, "custom", json_true());
	}
	json_object_foreach(want, id, w) {
		gc_monitor *m = mon_by_id(g, id);
		sk_informer *inf;

		if (m) {
			__atomic_store_n(&m->namespaced, json_is_true(json_object_get(w, "namespaced")),
					 __ATOMIC_RELAXED);
			continue;
		}
		inf = sk_informer_new(k->ctl->c, json_string_value(json_object_get(w, "path")),
				      json_string_value(json_object_get(w, "gv")),
				      json_string_value(json_object_get(w, "kind")));
		/* the collector reads ownership only: its own caches hold object meta */
		sk_informer_set_metadata_only(inf);
		m = retired_by_id(g, id);
		if (m)
			revive(g, m, inf, json_is_true(json_object_get(w, "namespaced")));
		else
			m = add_monitor(k, inf, id, json_is_true(json_object_get(w, "namespaced")), 1);
		if (!m) {
			sk_informer_free(inf);
			break;
		}
		m->custom = json_is_true(json_object_get(w, "custom"));
		if (sk_informer_start(inf, &err) < 0) {
			/* refused for good (a transient failure is retried by
			 * the informer): the next CRD change tries again */
			sk_info("ctrl", "garbage collector: watching %s: %s", id, err.msg);
			sk_error_clear(&err);
			retire(g, m);
			continue;
		}
		sk_debug("ctrl", "garbage collector: watching %s", id);
	}
	n = nmons(g);
	for (int m = 0; m < n && !failed; m++)
		if (g->mons[m].dynamic && live(&g->mons[m]) && !json_object_get(want, g->mons[m].id))
			retire(g, &g->mons[m]);
	return failed || crds_ahead(g, want) ? -1 : 0;
}

/* ---- events and the work queue ---- */

static int sync_gc(sk_controller *k, const char *key)
{
	gc_state *g = state(k);
	char ns[256], name[256];
	const char *bar = strchr(key, '|');
	int idx = atoi(key);
	cleanup_json json_t *obj = NULL;
	gc_monitor *m;

	if (!strcmp(key, DISCOVER))
		return discover(k);
	if (!strcmp(key, RESYNC)) {
		/* upstream's periodic GarbageCollector.Sync: a resource served
		 * without a CRD event (an aggregated API) is followed too */
		sk__queue_add(k->q, DISCOVER);
		sk__queue_add_after(k->q, RESYNC, sk__gc_resync_ms);
		return 0;
	}
	if (!bar || idx < 0 || idx >= nmons(g) || !live(&g->mons[idx]))
		return 0;
	m = &g->mons[idx];
	sk__split_key(bar + 1, ns, sizeof(ns), name, sizeof(name));
	obj = sk_informer_get(minf(m), ns, name);
	if (!obj)
		return 0;
	if (sk__is_deleting(obj)) {
		if (has_fin(obj, ORPHAN))
			return process_orphan(k, m, obj);
		if (has_fin(obj, FG))
			return process_deleting_dependents(k, m, obj);
		return 0;
	}
	if (json_array_size(sk_kube_jget(obj, "metadata.ownerReferences")))
		return attempt_to_delete(k, m, obj);
	return 0;
}

/* Queues the owners of obj that wait for their dependents. */
static void enqueue_waiting_owners(sk_controller *k, json_t *obj)
{
	gc_state *g = state(k);
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		gc_monitor *m = mon_for(g, json_string_value(json_object_get(r, "apiVersion")),
					json_string_value(json_object_get(r, "kind")));
		int namespaced;
		cleanup_json json_t *o = NULL;

		if (!m)
			continue;
		namespaced = __atomic_load_n(&m->namespaced, __ATOMIC_RELAXED);
		o = sk_informer_get(minf(m), namespaced ? sk__ns(obj) : NULL,
				    json_string_value(json_object_get(r, "name")));
		if (o && !strcmp(sk__uid(o) ?: "", json_string_value(json_object_get(r, "uid")) ?: "") &&
		    sk__is_deleting(o))
			enqueue(k, m->idx, o);
	}
}

/* upstream's GraphBuilder.processGraphChanges, reduced to what it queues:
 * an object with owners (or an owner being deleted with a finalizer of
 * ours) itself, its waiting owners when its references or its deletion
 * change, and its dependents when it goes. */
static void on_event(void *ud, int ev, json_t *old, json_t *obj)
{
	gc_monitor *m = ud;
	gc_state *g = state(m->k);
	json_t *oldrefs = sk_kube_jget(old, "metadata.ownerReferences");
	json_t *refs = sk_kube_jget(obj, "metadata.ownerReferences");

	if (!live(m))
		return;
	index_owners(g, m->idx, old, obj, ev == SK_INF_DELETE);
	if (ev == SK_INF_DELETE) {
		cleanup_json json_t *deps = dependents(g, sk__uid(obj));
		json_t *pair;
		size_t i;

		json_array_foreach(deps, i, pair)
			enqueue(m->k, (int)json_integer_value(json_array_get(pair, 0)), json_array_get(pair, 1));
		enqueue_waiting_owners(m->k, obj);
		return;
	}
	if (json_array_size(refs) || (sk__is_deleting(obj) && (has_fin(obj, FG) || has_fin(obj, ORPHAN))))
		enqueue(m->k, m->idx, obj);
	if (sk__is_deleting(obj) || (old && !json_equal(oldrefs ? oldrefs : json_null(), refs ? refs : json_null()))) {
		if (old)
			enqueue_waiting_owners(m->k, old);
		enqueue_waiting_owners(m->k, obj);
	}
}

static void on_crd(void *ud, int ev, json_t *old, json_t *obj)
{
	sk_controller *k = ud;

	(void)ev;
	(void)old;
	(void)obj;
	if (!sk__gc_ignore_crd_events)
		sk__queue_add(k->q, DISCOVER);
}

static void gc_stop(sk_controller *k)
{
	gc_state *g = state(k);
	int n = nmons(g);

	/* handlers of the shared informers, still running, read these caches:
	 * stopped here, freed once every informer has stopped */
	for (int i = 0; i < n; i++)
		if (g->mons[i].dynamic)
			sk_informer_cancel(minf(&g->mons[i]));
	for (int i = 0; i < n; i++)
		if (g->mons[i].dynamic)
			sk_informer_stop(minf(&g->mons[i]));
}

static void gc_release(void *st)
{
	gc_state *g = st;
	int n = nmons(g);

	for (int i = 0; i < n; i++) {
		if (g->mons[i].dynamic)
			sk_informer_free(minf(&g->mons[i]));
		free(g->mons[i].id);
	}
	for (size_t i = 0; i < g->ndead; i++)
		sk_informer_free(g->dead[i]);
	free(g->dead);
	json_decref(g->owners);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* A shared informer as a monitor, unless it follows part of a resource
 * only (the node leases' namespace: discovery adds all leases). */
static void add_shared(sk_controller *k, sk_informer *inf)
{
	static const char *const cluster[] = {"Node",
					      "Namespace",
					      "PersistentVolume",
					      "StorageClass",
					      "CertificateSigningRequest",
					      "CustomResourceDefinition"};
	cleanup_free char *id = path_id(sk_informer_path(inf));
	int namespaced = 1;

	if (!id || mon_by_id(state(k), id))
		return;
	for (size_t i = 0; i < sizeof(cluster) / sizeof(cluster[0]); i++)
		namespaced &= strcmp(sk_informer_kind(inf), cluster[i]) != 0;
	add_monitor(k, inf, id, namespaced, 0);
}

/* Registered after the other controllers, so their informers are shared. */
int sk__gc_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	gc_state *g = xzalloc(sizeof(*g));
	sk_controller *k = sk__controller_add(ctl, "garbage-collector", sync_gc, g);
	sk_informer *base[] = {ctl->pods,   ctl->rs,         ctl->deploy, ctl->ds,       ctl->crevs,
			       ctl->jobs,   ctl->cronjobs,   ctl->nodes,  ctl->services, ctl->endpoints,
			       ctl->slices, ctl->namespaces, ctl->csrs};

	(void)err;
	k->release = gc_release;
	k->stop = gc_stop;
	pthread_mutex_init(&g->mu, NULL);
	g->owners = json_object();
	g->crds = sk__ctrl_extra(ctl, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
				 "apiextensions.k8s.io/v1", "CustomResourceDefinition");
	sk_informer_on(g->crds, on_crd, k);
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		add_shared(k, base[i]);
	for (int i = 0; i < ctl->nextra; i++)
		add_shared(k, ctl->extra[i]);
	/* the rest (PodGroups, ServiceAccounts, custom resources…) once discovery answers */
	sk__queue_add(k->q, DISCOVER);
	sk__queue_add_after(k->q, RESYNC, sk__gc_resync_ms);
	return 0;
}
