/* The RBAC authorizer (rbac.h): an in-memory index of the stored Roles,
 * ClusterRoles, RoleBindings and ClusterRoleBindings, and per user the
 * rules that apply to them.
 *
 * Store watches of the four prefixes bump a generation on every write (on
 * the store's writer thread, before the write's reply goes out); the next
 * decision rebuilds the index from the store and drops the per-user cache.
 * A decision is one lookup of the user's entry (built on first use from the
 * bindings that name the user, group or service account) and of the
 * request's attributes in the entry's remembered decisions; the first time,
 * a scan of its cluster-wide rules and of the rules of the request's
 * namespace. So decisions are cached per user and per revision of the
 * policy: a write to it drops them with the index. */
#include <gnutls/crypto.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "api/api-int.h"
#include "api/rbac.h"
#include "store/store.h"
#include "util/util.h"

#define USERS_MAX 4096        /* users with an entry: one more drops them all */
#define USER_SLOTS_MAX 4096   /* a user's decision table: full at half, then dropped */
#define DECISIONS_MAX 65536   /* remembered decisions of all users: past it all are dropped */
#define DECISION_KEY_MAX 1024 /* longer attributes (a long path or name): decided each time */

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
	char *reason;       /* "RBAC: allowed by <source>", upstream's authorizingVisitor */
	uint32_t verbs;
	int paths; /* nonResourceURLs and no resources */
} crule;

typedef struct crules {
	crule *v;
	size_t n;
} crules;

/* A decision remembered for a user: the request's attributes (decision_key)
 * and the outcome. */
typedef struct decision {
	uint64_t hash;
	const char *reason; /* borrowed from the entry, or NULL */
	int allowed;
	size_t len;
	char key[];
} decision;

/* A user's cache entry: the JSON rules (for rules reviews and escalation
 * checks), their compiled form, cluster-wide and per namespace, and the
 * decisions made with them. The decision table is filled under the read
 * lock (a slot set once, by compare-and-swap, with a complete decision) and
 * grown or cleared under the write lock. */
typedef struct uentry {
	char *key; /* user_key */
	size_t key_len;
	uint64_t hash;
	json_t *json; /* {"c": [rules], "n": {ns: [rules]}, "e": [errors], "cs"/"ns": their sources} */
	crules c;
	json_t *ns_index; /* ns -> index into ns */
	crules *ns;
	int names;           /* some rule has resourceNames: decisions depend on the name */
	char *errors_reason; /* the reason of a refusal when roles could not be resolved, or NULL */
	decision **dec;      /* open addressing, dec_mask + 1 slots */
	size_t dec_mask;
	unsigned long ndec; /* atomic: decisions added, about (a race may count one twice) */
	int dec_full;       /* atomic: the table wants the write lock (grown, or cleared) */
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
	uentry **users; /* open addressing by user_key, users_mask + 1 slots */
	size_t users_mask, nusers;
	unsigned long ndec; /* atomic: decisions of all users, about */
	uint64_t seed;      /* of the hashes: names and paths are the requester's to choose */
};

static void changed(const sk_store_event *ev, void *ud)
{
	struct sk__rbac *rb = ud;

	(void)ev;
	__atomic_add_fetch(&rb->gen, 1, __ATOMIC_RELEASE);
}

/* Keys (of users and of decisions) are NUL-separated fields, padded with
 * NULs to whole 8-byte words, PADDED(len) bytes, so that hashing and
 * comparing them go a word at a time. */
#define PADDED(n) (((n) + 7) & ~(size_t)7)

/* Multiplicative hashing (Knuth's golden ratio) over the words of a padded
 * key of len bytes, from a random seed, the high half folded into the low
 * one, which picks the slot. A byte at a time (FNV-1a) was a fifth of a
 * remembered decision. */
static uint64_t hash_key(uint64_t seed, const char *p, size_t len)
{
	uint64_t h = seed ^ len, w;

	for (size_t i = 0; i < len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return h ^ (h >> 32);
}

static int same_key(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, PADDED(alen));
}

static void crules_release(crules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].reason);
	free(r->v);
}

/* Drops e's decisions (under the write lock); how many there were. */
static size_t decisions_clear(uentry *e)
{
	size_t n = 0;

	for (size_t i = 0; i <= e->dec_mask; i++) {
		if (e->dec[i])
			n++;
		free(e->dec[i]);
		e->dec[i] = NULL;
	}
	e->ndec = 0;
	e->dec_full = 0;
	return n;
}

static void uentry_free(uentry *e)
{
	size_t n = json_object_size(e->ns_index);

	decisions_clear(e);
	free(e->dec);
	for (size_t i = 0; i < n; i++)
		crules_release(&e->ns[i]);
	free(e->ns);
	crules_release(&e->c);
	json_decref(e->ns_index);
	json_decref(e->json);
	free(e->errors_reason);
	free(e->key);
	free(e);
}

/* Under the write lock. */
static void users_clear(struct sk__rbac *rb)
{
	for (size_t i = 0; rb->users && i <= rb->users_mask; i++) {
		if (rb->users[i])
			uentry_free(rb->users[i]);
		rb->users[i] = NULL;
	}
	rb->nusers = 0;
	rb->ndec = 0;
}

static uentry *users_find(const struct sk__rbac *rb, const char *key, size_t len, uint64_t h)
{
	for (size_t i = h & rb->users_mask;; i = (i + 1) & rb->users_mask) {
		uentry *e = rb->users[i];

		if (!e || (e->hash == h && same_key(e->key, e->key_len, key, len)))
			return e;
	}
}

static void users_put(uentry **slots, size_t mask, uentry *e)
{
	size_t i = e->hash & mask;

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = e;
}

/* Under the write lock; the table stays at most half full. */
static void users_add(struct sk__rbac *rb, uentry *e)
{
	if ((rb->nusers + 1) * 2 > rb->users_mask + 1) {
		size_t mask = rb->users_mask * 2 + 1;
		uentry **slots = xzalloc((mask + 1) * sizeof(*slots));

		for (size_t i = 0; i <= rb->users_mask; i++)
			if (rb->users[i])
				users_put(slots, mask, rb->users[i]);
		free(rb->users);
		rb->users = slots;
		rb->users_mask = mask;
	}
	users_put(rb->users, rb->users_mask, e);
	rb->nusers++;
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
	users_clear(rb);
	rb->croles = json_object();
	rb->roles = json_object();
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

/* Compiles rules; *names is set when one of them has resourceNames. */
static void compile(json_t *rules, json_t *sources, crules *out, int *names)
{
	size_t i, j;
	json_t *r, *v;

	out->n = json_array_size(rules);
	out->v = xzalloc((out->n ? out->n : 1) * sizeof(*out->v));
	json_array_foreach(rules, i, r) {
		crule *c = &out->v[i];

		c->rule = r;
		c->source = json_string_value(json_array_get(sources, i));
		c->reason = xasprintf("RBAC: allowed by %s", c->source ? c->source : "");
		json_array_foreach(json_object_get(r, "verbs"), j, v)
			if (json_is_string(v))
				c->verbs |= verb_bit(json_string_value(v));
		c->paths = json_array_size(json_object_get(r, "nonResourceURLs")) &&
			   !json_array_size(json_object_get(r, "resources"));
		if (json_array_size(json_object_get(r, "resourceNames")))
			*names = 1;
	}
}

char *sk_rbac_errors_text(json_t *errs)
{
	char *msg = NULL;
	size_t len = 0, i;
	FILE *f;
	json_t *s;

	if (!json_array_size(errs))
		return NULL;
	f = open_memstream(&msg, &len);
	if (json_array_size(errs) > 1)
		fputc('[', f);
	json_array_foreach(errs, i, s)
		fprintf(f, "%s%s", i ? ", " : "", json_string_value(s));
	if (json_array_size(errs) > 1)
		fputc(']', f);
	fclose(f);
	return msg;
}

/* upstream: "RBAC: " and the errors' text, or NULL */
static char *errors_reason(json_t *errs)
{
	cleanup_free char *text = sk_rbac_errors_text(errs);

	return text ? xasprintf("RBAC: %s", text) : NULL;
}

static uentry *user_entry(struct sk__rbac *rb, const sk_user *u, const char *key, size_t len, uint64_t h)
{
	uentry *e = xzalloc(sizeof(*e));
	json_t *n, *rules;
	const char *ns;
	size_t i = 0;

	e->key = xmalloc(PADDED(len));
	memcpy(e->key, key, PADDED(len));
	e->key_len = len;
	e->hash = h;
	e->json = user_rules(rb, u);
	compile(json_object_get(e->json, "c"), json_object_get(e->json, "cs"), &e->c, &e->names);
	n = json_object_get(e->json, "n");
	e->ns_index = json_object();
	e->ns = xzalloc((json_object_size(n) ? json_object_size(n) : 1) * sizeof(*e->ns));
	json_object_foreach(n, ns, rules) {
		compile(rules, json_object_get(json_object_get(e->json, "ns"), ns), &e->ns[i], &e->names);
		json_object_set_new(e->ns_index, ns, json_integer((json_int_t)i));
		i++;
	}
	e->errors_reason = errors_reason(json_object_get(e->json, "e"));
	e->dec_mask = 15;
	e->dec = xzalloc((e->dec_mask + 1) * sizeof(*e->dec));
	return e;
}

/* u's key: its name and groups, each followed by a NUL (no name or group
 * holds one), padded, in buf, or when longer than size in a new *heap; its
 * length in *len. */
static const char *user_key(const sk_user *u, char *buf, size_t size, size_t *len, char **heap)
{
	size_t n = strlen(u->name) + 1;
	char *p;

	for (size_t i = 0; i < u->ngroups; i++)
		n += strlen(u->groups[i]) + 1;
	p = PADDED(n) <= size ? buf : (*heap = xmalloc(PADDED(n)));
	*len = n;
	memset(p + PADDED(n) - 8, 0, 8);
	p = stpcpy(p, u->name) + 1;
	for (size_t i = 0; i < u->ngroups; i++)
		p = stpcpy(p, u->groups[i]) + 1;
	return *heap ? *heap : buf;
}

/* Under the write lock: drops every decision when there are too many, and
 * grows e's table when it is half full, or drops its decisions when it
 * cannot grow. */
static void decisions_tidy(struct sk__rbac *rb, uentry *e)
{
	decision **slots;
	size_t mask;

	if (rb->ndec > DECISIONS_MAX) {
		for (size_t i = 0; i <= rb->users_mask; i++)
			if (rb->users[i])
				decisions_clear(rb->users[i]);
		rb->ndec = 0;
	}
	if (!e->dec_full)
		return;
	if (e->dec_mask + 1 >= USER_SLOTS_MAX) {
		rb->ndec -= decisions_clear(e);
		return;
	}
	mask = e->dec_mask * 2 + 1;
	slots = xzalloc((mask + 1) * sizeof(*slots));
	e->ndec = 0;
	for (size_t i = 0; i <= e->dec_mask; i++) {
		size_t j;

		if (!e->dec[i])
			continue;
		for (j = e->dec[i]->hash & mask; slots[j]; j = (j + 1) & mask)
			;
		slots[j] = e->dec[i];
		e->ndec++;
	}
	free(e->dec);
	e->dec = slots;
	e->dec_mask = mask;
	e->dec_full = 0;
}

/* The user's entry, borrowed, with the read lock held (the caller unlocks). */
static uentry *entry_locked(sk_api *api, struct sk__rbac *rb, const sk_user *u)
{
	char buf[256];
	cleanup_free char *heap = NULL;
	size_t len;
	const char *key = user_key(u, buf, sizeof(buf), &len, &heap);
	uint64_t h = hash_key(rb->seed, key, len);

	for (;;) {
		uentry *ent;

		pthread_rwlock_rdlock(&rb->lock);
		if (rb->built == __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE)) {
			ent = users_find(rb, key, len, h);
			if (ent && !__atomic_load_n(&ent->dec_full, __ATOMIC_ACQUIRE))
				return ent;
		}
		pthread_rwlock_unlock(&rb->lock);
		pthread_rwlock_wrlock(&rb->lock);
		if (rb->built != __atomic_load_n(&rb->gen, __ATOMIC_ACQUIRE))
			index_rebuild(api, rb);
		ent = users_find(rb, key, len, h);
		if (!ent) {
			if (rb->nusers >= USERS_MAX)
				users_clear(rb);
			ent = user_entry(rb, u, key, len, h);
			users_add(rb, ent);
		}
		decisions_tidy(rb, ent);
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

/* Whether e's rules allow a; *reason (borrowed from e) what upstream's
 * authorizer says: the allowing rule's binding, or the roles it could not
 * find. */
static int decide(const uentry *e, const sk_authz_attrs *a, const char **reason)
{
	uint32_t verb = verb_bit(a->verb);
	const crule *ok;

	if (verb == V_ALL) /* a request for the verb "*" matches only rules with "*" */
		verb = 0;
	ok = any_allows(&e->c, a, verb | V_OTHER);
	if (!ok)
		ok = any_allows(ns_rules(e, a->ns), a, verb | V_OTHER);
	*reason = ok ? ok->reason : e->errors_reason;
	return ok != NULL;
}

/* s and a NUL at p, if they fit before end: past them, or NULL. A byte at a
 * time: the fields are a few bytes long. */
static char *key_add(char *p, const char *end, const char *s)
{
	if (!s)
		s = "";
	while (p && p < end)
		if (!(*p++ = *s++))
			return p;
	return NULL;
}

/* What a decision of e depends on, in buf: the verb and the path, or the
 * verb, group, resource, subresource, namespace and, when a rule names
 * some, the name; each followed by a NUL; padded. Its length, or 0 when it
 * does not fit. */
static size_t decision_key(const uentry *e, const sk_authz_attrs *a, char *buf, size_t size)
{
	const char *end = buf + size - 8;
	char *p = buf + 1;

	buf[0] = a->resource_request ? 'r' : 'p';
	p = key_add(p, end, a->verb);
	if (!a->resource_request) {
		p = key_add(p, end, a->path);
	} else {
		p = key_add(p, end, a->api_group);
		p = key_add(p, end, a->resource);
		p = key_add(p, end, a->subresource);
		p = key_add(p, end, a->ns);
		p = key_add(p, end, e->names ? a->name : "");
	}
	if (!p)
		return 0;
	memset(p, 0, 8);
	return (size_t)(p - buf);
}

static const decision *decision_find(const uentry *e, const char *key, size_t len, uint64_t h)
{
	for (size_t i = h & e->dec_mask, n = 0; n <= e->dec_mask; i = (i + 1) & e->dec_mask, n++) {
		const decision *d = __atomic_load_n(&e->dec[i], __ATOMIC_ACQUIRE);

		if (!d || (d->hash == h && same_key(d->key, d->len, key, len)))
			return d;
	}
	return NULL;
}

/* Remembers a decision, under the read lock (other threads may add theirs
 * at once). Past half its table, or past DECISIONS_MAX in all, it is not
 * kept and the next request of the user takes the write lock to make room. */
static void decision_add(struct sk__rbac *rb, uentry *e, const char *key, size_t len, uint64_t h, int allowed,
			 const char *reason)
{
	decision *d;

	if (__atomic_add_fetch(&e->ndec, 1, __ATOMIC_RELAXED) > (e->dec_mask + 1) / 2 ||
	    __atomic_add_fetch(&rb->ndec, 1, __ATOMIC_RELAXED) > DECISIONS_MAX) {
		__atomic_store_n(&e->dec_full, 1, __ATOMIC_RELEASE);
		return;
	}
	d = xmalloc(sizeof(*d) + PADDED(len));
	d->hash = h;
	d->reason = reason;
	d->allowed = allowed;
	d->len = len;
	memcpy(d->key, key, PADDED(len));
	for (size_t i = h & e->dec_mask, n = 0; n <= e->dec_mask; i = (i + 1) & e->dec_mask, n++) {
		decision *cur = NULL;

		if (__atomic_compare_exchange_n(&e->dec[i], &cur, d, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			return;
		if (cur->hash == h && same_key(cur->key, cur->len, key, len))
			break; /* another thread's, the same */
	}
	free(d);
}

sk_authz_decision sk__authz_rbac(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	struct sk__rbac *rb = api->rbac;
	char key[DECISION_KEY_MAX];
	const decision *d = NULL;
	const char *why;
	uint64_t h = 0;
	size_t len;
	uentry *ent;
	int ok;

	if (!rb || !a->user || !a->verb)
		return SK_AUTHZ_NO_OPINION;
	ent = entry_locked(api, rb, a->user);
	len = decision_key(ent, a, key, sizeof(key));
	if (len) {
		h = hash_key(rb->seed, key, len);
		d = decision_find(ent, key, len, h);
	}
	if (d) {
		ok = d->allowed;
		why = d->reason;
	} else {
		ok = decide(ent, a, &why);
		if (len)
			decision_add(rb, ent, key, len, h, ok, why);
	}
	*reason = why ? xstrdup(why) : NULL;
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
	gnutls_rnd(GNUTLS_RND_NONCE, &rb->seed, sizeof(rb->seed));
	rb->users_mask = 63;
	rb->users = xzalloc((rb->users_mask + 1) * sizeof(*rb->users));
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
	free(rb->users);
	pthread_rwlock_destroy(&rb->lock);
	free(rb);
}
