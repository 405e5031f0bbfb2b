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
#include <stdint.h>
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

/* A rule with what a decision can reject it by without reading its JSON:
 * a bit per standard verb ("*": all of them) and whether it is about paths. */
enum {
	V_OTHER = 1u << 30, /* a verb outside the standard eight */
	V_ALL = 1u << 31,
};
static const char *const std_verbs[] = {"get",    "list",  "watch",  "create",
					"update", "patch", "delete", "deletecollection"};

typedef struct crule {
	json_t *rule;       /* borrowed from the entry's JSON */
	const char *source; /* the binding that grants it, as upstream describes it (borrowed too) */
	uint32_t verbs;
	int paths; /* nonResourceURLs and no resources */
} crule;

typedef struct crules {
	crule *v;
	size_t n;
} crules;

/* A user's cache entry: the JSON rules (for rules reviews and escalation
 * checks) and their compiled form, cluster-wide and per namespace. */
typedef struct uentry {
	json_t *json; /* {"c": [rules], "n": {ns: [rules]}, "e": [errors], "cs"/"ns": their sources} */
	crules c;
	json_t *ns_index; /* ns -> index into ns */
	crules *ns;
} uentry;

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

static void uentry_free(uentry *e)
{
	size_t n = json_object_size(e->ns_index);

	for (size_t i = 0; i < n; i++)
		free(e->ns[i].v);
	free(e->ns);
	free(e->c.v);
	json_decref(e->ns_index);
	json_decref(e->json);
	free(e);
}

static uentry *cached(json_t *v) { return v ? (uentry *)(intptr_t)json_integer_value(v) : NULL; }

static void cache_clear(json_t *cache)
{
	const char *k;
	json_t *v;

	json_object_foreach(cache, k, v)
		uentry_free(cached(v));
	json_object_clear(cache);
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
	if (rb->cache)
		cache_clear(rb->cache);
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

/* The first subject of b naming u (borrowed), or NULL (upstream's appliesTo). */
static json_t *binding_applies(const binding *b, const sk_user *u)
{
	size_t i;
	json_t *s;

	json_array_foreach(b->subjects, i, s)
		if (sk_rbac_subject_applies(s, u, b->ns))
			return s;
	return NULL;
}

/* upstream's clusterRoleBindingDescriber and roleBindingDescriber:
 * `ClusterRoleBinding "b" of ClusterRole "r" to User "u"`,
 * `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`. */
static json_t *describe(const binding *b, json_t *subject)
{
	const char *kind = json_string_value(json_object_get(subject, "kind")) ?: "";
	const char *name = json_string_value(json_object_get(subject, "name")) ?: "";
	const char *sns = json_string_value(json_object_get(subject, "namespace")) ?: "";
	cleanup_free char *who = !strcmp(kind, "ServiceAccount")
					 ? xasprintf("%s \"%s/%s\"", kind, name, *sns ? sns : b->ns)
					 : xasprintf("%s \"%s\"", kind, name);
	cleanup_free char *bname = *b->ns ? xasprintf("%s/%s", b->name, b->ns) : xstrdup(b->name);
	cleanup_free char *s = xasprintf("%s \"%s\" of %s \"%s\" to %s", *b->ns ? "RoleBinding" : "ClusterRoleBinding",
					 bname, json_string_value(json_object_get(b->role_ref, "kind")) ?: "",
					 json_string_value(json_object_get(b->role_ref, "name")) ?: "", who);

	return json_string(s);
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

static json_t *user_rules(struct sk__rbac *rb, const sk_user *u)
{
	json_t *c = json_array(), *n = json_object(), *e = json_array(), *cs = json_array(), *ns = json_object();

	for (size_t i = 0; i < rb->nb; i++) {
		const binding *b = &rb->b[i];
		json_t *rules, *to, *src, *d, *subject = binding_applies(b, u);
		size_t k;

		if (!subject)
			continue;
		rules = ref_rules(rb, b->role_ref, b->ns);
		if (!rules) {
			json_array_append_new(e, not_found(b->role_ref));
			continue;
		}
		to = c;
		src = cs;
		if (*b->ns) {
			to = json_object_get(n, b->ns);
			src = json_object_get(ns, b->ns);
			if (!to) {
				to = json_array();
				json_object_set_new(n, b->ns, to);
				src = json_array();
				json_object_set_new(ns, b->ns, src);
			}
		}
		json_array_extend(to, rules);
		d = describe(b, subject);
		for (k = 0; k < json_array_size(rules); k++)
			json_array_append(src, d);
		json_decref(d);
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "c", c, "n", n, "e", e, "cs", cs, "ns", ns);
}

static uint32_t verb_bit(const char *v)
{
	for (size_t i = 0; i < sizeof(std_verbs) / sizeof(std_verbs[0]); i++)
		if (!strcmp(v, std_verbs[i]))
			return 1u << i;
	return !strcmp(v, "*") ? V_ALL : V_OTHER;
}

static void compile(json_t *rules, json_t *sources, crules *out)
{
	size_t i, j;
	json_t *r, *v;

	out->n = json_array_size(rules);
	out->v = xzalloc((out->n ? out->n : 1) * sizeof(*out->v));
	json_array_foreach(rules, i, r) {
		crule *c = &out->v[i];

		c->rule = r;
		c->source = json_string_value(json_array_get(sources, i));
		json_array_foreach(json_object_get(r, "verbs"), j, v)
			if (json_is_string(v))
				c->verbs |= verb_bit(json_string_value(v));
		c->paths = json_array_size(json_object_get(r, "nonResourceURLs")) &&
			   !json_array_size(json_object_get(r, "resources"));
	}
}

static uentry *user_entry(struct sk__rbac *rb, const sk_user *u)
{
	uentry *e = xzalloc(sizeof(*e));
	json_t *n, *rules;
	const char *ns;
	size_t i = 0;

	e->json = user_rules(rb, u);
	compile(json_object_get(e->json, "c"), json_object_get(e->json, "cs"), &e->c);
	n = json_object_get(e->json, "n");
	e->ns_index = json_object();
	e->ns = xzalloc((json_object_size(n) ? json_object_size(n) : 1) * sizeof(*e->ns));
	json_object_foreach(n, ns, rules) {
		compile(rules, json_object_get(json_object_get(e->json, "ns"), ns), &e->ns[i]);
		json_object_set_new(e->ns_index, ns, json_integer((json_int_t)i));
		i++;
	}
	return e;
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
static uentry *entry_locked(sk_api *api, struct sk__rbac *rb, const sk_user *u)
{
	cleanup_free char *key = user_key(u);

	for (;;) {
		uentry *ent;

		pthread_rwlock_rdlock(&rb->lock);
		if (rb->built == __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE)) {
			ent = cached(json_object_get(rb->cache, key));
			if (ent)
				return ent;
		}
		pthread_rwlock_unlock(&rb->lock);
		pthread_rwlock_wrlock(&rb->lock);
		if (rb->built != __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE))
			index_rebuild(api, rb);
		if (json_object_size(rb->cache) >= CACHE_MAX)
			cache_clear(rb->cache);
		if (!json_object_get(rb->cache, key))
			json_object_set_new(rb->cache, key, json_integer((json_int_t)(intptr_t)user_entry(rb, u)));
		pthread_rwlock_unlock(&rb->lock);
	}
}

/* The first rule allowing a, or NULL. */
static const crule *any_allows(const crules *rules, const sk_authz_attrs *a, uint32_t verb)
{
	for (size_t i = 0; rules && i < rules->n; i++) {
		const crule *r = &rules->v[i];

		if (r->paths == a->resource_request || !(r->verbs & (verb | V_ALL)))
			continue;
		if (sk_rbac_rule_allows(r->rule, a))
			return r;
	}
	return NULL;
}

static const crules *ns_rules(const uentry *e, const char *ns)
{
	json_t *i = ns && *ns ? json_object_get(e->ns_index, ns) : NULL;

	return i ? &e->ns[json_integer_value(i)] : NULL;
}

sk_authz_decision sk__authz_rbac(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	struct sk__rbac *rb = api->rbac;
	uint32_t verb;
	uentry *ent;
	json_t *errs;
	const crule *ok;

	if (!rb || !a->user || !a->verb)
		return SK_AUTHZ_NO_OPINION;
	verb = verb_bit(a->verb);
	if (verb == V_ALL) /* a request for the verb "*" matches only rules with "*" */
		verb = 0;
	ent = entry_locked(api, rb, a->user);
	ok = any_allows(&ent->c, a, verb | V_OTHER);
	if (!ok)
		ok = any_allows(ns_rules(ent, a->ns), a, verb | V_OTHER);
	if (ok) /* upstream's authorizingVisitor */
		*reason = xasprintf("RBAC: allowed by %s", ok->source ? ok->source : "");
	errs = json_object_get(ent->json, "e");
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
	json_t *out;
	uentry *ent;

	if (errs)
		*errs = json_array();
	if (!rb)
		return json_array();
	ent = entry_locked(api, rb, u);
	json_array_extend(all, json_object_get(ent->json, "c"));
	if (ns && *ns)
		json_array_extend(all, json_object_get(json_object_get(ent->json, "n"), ns));
	if (errs)
		json_array_extend(*errs, json_object_get(ent->json, "e"));
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
