/* The RBAC authorizer (rbac.h): an in-memory index of the stored Roles,
 * ClusterRoles, RoleBindings and ClusterRoleBindings, and per user the
 * rules that apply to them.
 *
 * Store watches of the four prefixes bump a generation on every write (on
 * the store's writer thread, before the write's reply goes out); the next
 * decision rebuilds the index from the store and drops the per-user cache.
 * A decision is then one lookup of the user's entry (built on first use from
 * the bindings that name the user, group or service account) and a scan of
 * its cluster-wide rules and of the rules of the request's namespace. */
#include <pthread.h>
#include <string.h>

#include "api/api-int.h"
#include "api/rbac.h"
#include "store/store.h"
#include "util/util.h"

#define CACHE_MAX 4096

static const char *const prefixes[] = {"/registry/clusterroles/", "/registry/roles/", "/registry/clusterrolebindings/",
				       "/registry/rolebindings/"};
#define NPREFIX (sizeof(prefixes) / sizeof(prefixes[0]))

typedef struct binding {
	char *ns; /* "" for a ClusterRoleBinding */
	char *name;
	json_t *role_ref;
	json_t *subjects;
} binding;

struct sk__rbac {
	sk_store_watch *w[NPREFIX];
	unsigned long gen;   /* atomic: bumped by the watches */
	unsigned long built; /* the generation the index was built at (under lock) */
	pthread_rwlock_t lock;
	json_t *croles; /* name -> rules */
	json_t *roles;  /* "ns/name" -> rules */
	binding *b;
	size_t nb;
	json_t *cache; /* user key -> {"c": [rules], "n": {ns: [rules]}, "e": [errors]} */
};

static void changed(const sk_store_event *ev, void *ud)
{
	struct sk__rbac *rb = ud;

	(void)ev;
	__atomic_add_fetch(&rb->gen, 1, __ATOMIC_RELEASE);
}

static void index_clear(struct sk__rbac *rb)
{
	for (size_t i = 0; i < rb->nb; i++) {
		free(rb->b[i].ns);
		free(rb->b[i].name);
		json_decref(rb->b[i].role_ref);
		json_decref(rb->b[i].subjects);
	}
	free(rb->b);
	rb->b = NULL;
	rb->nb = 0;
	json_decref(rb->croles);
	json_decref(rb->roles);
	json_decref(rb->cache);
	rb->croles = json_object();
	rb->roles = json_object();
	rb->cache = json_object();
}

static void index_add(struct sk__rbac *rb, size_t kind, json_t *o)
{
	json_t *meta = json_object_get(o, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	json_t *rules = json_object_get(o, "rules");
	binding *b;

	if (!name)
		return;
	if (!json_is_array(rules))
		rules = json_array();
	else
		json_incref(rules);
	if (kind == 0) {
		json_object_set_new(rb->croles, name, rules);
		return;
	}
	if (kind == 1) {
		cleanup_free char *key = xasprintf("%s/%s", ns ? ns : "", name);

		json_object_set_new(rb->roles, key, rules);
		return;
	}
	json_decref(rules);
	rb->b = xrealloc(rb->b, (rb->nb + 1) * sizeof(*rb->b));
	b = &rb->b[rb->nb++];
	b->ns = xstrdup(kind == 2 || !ns ? "" : ns);
	b->name = xstrdup(name);
	b->role_ref = json_incref(json_object_get(o, "roleRef"));
	b->subjects = json_incref(json_object_get(o, "subjects"));
}

/* Under the write lock. */
static void index_rebuild(sk_api *api, struct sk__rbac *rb)
{
	unsigned long gen = __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE);

	index_clear(rb);
	for (size_t k = 0; k < NPREFIX; k++) {
		sk_store_list l = {0};
		sk_error_t err = {0};

		if (sk_store_range(api->store, prefixes[k], NULL, 0, 0, &l, &err) < 0) {
			sk_warn("rbac", "reading %s: %s", prefixes[k], err.msg);
			continue;
		}
		for (size_t i = 0; i < l.n; i++) {
			cleanup_json json_t *o = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);

			if (o)
				index_add(rb, k, o);
		}
		sk_store_list_release(&l);
	}
	rb->built = gen;
}

/* Borrowed rules of a roleRef as seen from a binding in ns, or NULL. */
static json_t *ref_rules(struct sk__rbac *rb, json_t *ref, const char *ns)
{
	const char *kind = json_string_value(json_object_get(ref, "kind"));
	const char *name = json_string_value(json_object_get(ref, "name"));
	cleanup_free char *key = NULL;

	if (!kind || !name)
		return NULL;
	if (!strcmp(kind, "ClusterRole"))
		return json_object_get(rb->croles, name);
	if (strcmp(kind, "Role") || !*ns)
		return NULL;
	key = xasprintf("%s/%s", ns, name);
	return json_object_get(rb->roles, key);
}

static int binding_applies(const binding *b, const sk_user *u)
{
	size_t i;
	json_t *s;

	json_array_foreach(b->subjects, i, s)
		if (sk_rbac_subject_applies(s, u, b->ns))
			return 1;
	return 0;
}

/* upstream's resolution error: `clusterrole.rbac.authorization.k8s.io "x" not found` */
static json_t *not_found(json_t *ref)
{
	const char *kind = json_string_value(json_object_get(ref, "kind"));
	cleanup_free char *msg = xasprintf("%s.%s \"%s\" not found",
					   kind && !strcmp(kind, "Role") ? "role" : "clusterrole", SK_RBAC_GROUP,
					   json_string_value(json_object_get(ref, "name")));

	return json_string(msg);
}

static json_t *user_entry(struct sk__rbac *rb, const sk_user *u)
{
	json_t *c = json_array(), *n = json_object(), *e = json_array();

	for (size_t i = 0; i < rb->nb; i++) {
		const binding *b = &rb->b[i];
		json_t *rules, *to;

		if (!binding_applies(b, u))
			continue;
		rules = ref_rules(rb, b->role_ref, b->ns);
		if (!rules) {
			json_array_append_new(e, not_found(b->role_ref));
			continue;
		}
		to = c;
		if (*b->ns) {
			to = json_object_get(n, b->ns);
			if (!to) {
				to = json_array();
				json_object_set_new(n, b->ns, to);
			}
		}
		json_array_extend(to, rules);
	}
	return json_pack("{s:o, s:o, s:o}", "c", c, "n", n, "e", e);
}

static char *user_key(const sk_user *u)
{
	size_t len = strlen(u->name) + 2;
	char *k, *p;

	for (size_t i = 0; i < u->ngroups; i++)
		len += strlen(u->groups[i]) + 1;
	k = p = xmalloc(len);
	p = stpcpy(p, u->name);
	for (size_t i = 0; i < u->ngroups; i++) {
		*p++ = '\n';
		p = stpcpy(p, u->groups[i]);
	}
	*p = 0;
	return k;
}

/* The user's entry, borrowed, with the read lock held (the caller unlocks). */
static json_t *entry_locked(sk_api *api, struct sk__rbac *rb, const sk_user *u)
{
	cleanup_free char *key = user_key(u);

	for (;;) {
		json_t *ent;

		pthread_rwlock_rdlock(&rb->lock);
		if (rb->built == __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE)) {
			ent = json_object_get(rb->cache, key);
			if (ent)
				return ent;
		}
		pthread_rwlock_unlock(&rb->lock);
		pthread_rwlock_wrlock(&rb->lock);
		if (rb->built != __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE))
			index_rebuild(api, rb);
		if (json_object_size(rb->cache) >= CACHE_MAX)
			json_object_clear(rb->cache);
		if (!json_object_get(rb->cache, key))
			json_object_set_new(rb->cache, key, user_entry(rb, u));
		pthread_rwlock_unlock(&rb->lock);
	}
}

static int any_allows(json_t *rules, const sk_authz_attrs *a)
{
	size_t i;
	json_t *r;

	json_array_foreach(rules, i, r)
		if (sk_rbac_rule_allows(r, a))
			return 1;
	return 0;
}

sk_authz_decision sk__authz_rbac(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	struct sk__rbac *rb = api->rbac;
	json_t *ent, *errs;
	int ok;

	if (!rb || !a->user)
		return SK_AUTHZ_NO_OPINION;
	ent = entry_locked(api, rb, a->user);
	ok = any_allows(json_object_get(ent, "c"), a) ||
	     (a->ns && *a->ns && any_allows(json_object_get(json_object_get(ent, "n"), a->ns), a));
	errs = json_object_get(ent, "e");
	if (!ok && json_array_size(errs)) {
		/* upstream: "RBAC: " and utilerrors.NewAggregate's text */
		char *msg = NULL;
		size_t len = 0, i;
		FILE *f = open_memstream(&msg, &len);
		json_t *s;

		fputs("RBAC: ", f);
		if (json_array_size(errs) > 1)
			fputc('[', f);
		json_array_foreach(errs, i, s)
			fprintf(f, "%s%s", i ? ", " : "", json_string_value(s));
		if (json_array_size(errs) > 1)
			fputc(']', f);
		fclose(f);
		*reason = msg;
	}
	pthread_rwlock_unlock(&rb->lock);
	return ok ? SK_AUTHZ_ALLOW : SK_AUTHZ_NO_OPINION;
}

json_t *sk__rbac_rules_for(sk_api *api, const sk_user *u, const char *ns, json_t **errs)
{
	struct sk__rbac *rb = api->rbac;
	cleanup_json json_t *all = json_array();
	json_t *out, *ent;

	if (errs)
		*errs = json_array();
	if (!rb)
		return json_array();
	ent = entry_locked(api, rb, u);
	json_array_extend(all, json_object_get(ent, "c"));
	if (ns && *ns)
		json_array_extend(all, json_object_get(json_object_get(ent, "n"), ns));
	if (errs)
		json_array_extend(*errs, json_object_get(ent, "e"));
	out = json_deep_copy(all);
	pthread_rwlock_unlock(&rb->lock);
	return out;
}

json_t *sk__rbac_role_rules(sk_api *api, json_t *ref, const char *ns, sk_error_t *err)
{
	struct sk__rbac *rb = api->rbac;
	json_t *rules, *out = NULL;

	if (!rb) {
		sk_error_set(err, SK_ENOTFOUND, "rbac is not running");
		return NULL;
	}
	pthread_rwlock_rdlock(&rb->lock);
	if (rb->built != __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE)) {
		pthread_rwlock_unlock(&rb->lock);
		pthread_rwlock_wrlock(&rb->lock);
		if (rb->built != __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE))
			index_rebuild(api, rb);
	}
	rules = ref_rules(rb, ref, ns ? ns : "");
	if (rules)
		out = json_deep_copy(rules);
	pthread_rwlock_unlock(&rb->lock);
	if (!out) {
		cleanup_json json_t *msg = not_found(ref);

		sk_error_set(err, SK_ENOTFOUND, "%s", json_string_value(msg));
	}
	return out;
}

int sk__rbac_start(sk_api *api, sk_error_t *err)
{
	struct sk__rbac *rb = xzalloc(sizeof(*rb));

	pthread_rwlock_init(&rb->lock, NULL);
	rb->built = ~0UL;
	index_clear(rb);
	for (size_t k = 0; k < NPREFIX; k++) {
		rb->w[k] = sk_store_watch_start(api->store, prefixes[k], 0, changed, rb, err);
		if (!rb->w[k]) {
			api->rbac = rb;
			sk__rbac_stop(api);
			return -1;
		}
	}
	api->rbac = rb;
	sk__rbac_bootstrap(api);
	return 0;
}

void sk__rbac_stop(sk_api *api)
{
	struct sk__rbac *rb = api->rbac;

	if (!rb)
		return;
	for (size_t k = 0; k < NPREFIX; k++)
		if (rb->w[k])
			sk_store_unwatch(api->store, rb->w[k]);
	api->rbac = NULL;
	index_clear(rb);
	json_decref(rb->croles);
	json_decref(rb->roles);
	json_decref(rb->cache);
	pthread_rwlock_destroy(&rb->lock);
	free(rb);
}
