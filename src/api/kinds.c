/* The kind registry: one immutable snapshot of the served kinds, swapped
 * atomically when CustomResourceDefinitions change (see api-int.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

typedef struct retired {
	sk_kind_set *set;
	struct retired *next;
} retired;

/* A custom kind: the descriptor and its CRD version entry. */
typedef struct custom_kind {
	sk_api_resource r; /* first: a descriptor pointer is the custom_kind's */
	json_t *spec;      /* under spec_mu */
	struct custom_kind *next;
} custom_kind;

static sk_kind_set *current;     /* atomic; NULL: the built-in set */
static unsigned long generation; /* atomic: bumped by every swap */
static retired *retired_sets;
static pthread_mutex_t intern_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t spec_mu = PTHREAD_MUTEX_INITIALIZER;
static custom_kind *interned;

unsigned long sk__kinds_generation(void) { return __atomic_load_n(&generation, __ATOMIC_ACQUIRE); }

const sk_kind_set *sk__kinds(void)
{
	sk_kind_set *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	return s ? s : sk__kinds_builtin();
}

void sk__kinds_set_custom(const sk_api_resource *const *custom, size_t n)
{
	const sk_kind_set *b = sk__kinds_builtin();
	sk_kind_set *s = xzalloc(sizeof(*s)), *old;
	const sk_api_resource **v;
	retired *rt;

	v = xmalloc((b->n + n + 1) * sizeof(*v));
	for (size_t i = 0; i < b->n; i++)
		v[i] = b->v[i];
	for (size_t i = 0; i < n; i++)
		v[b->n + i] = custom[i];
	s->n = b->n + n;
	s->v = v;
	old = __atomic_exchange_n(&current, s, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
	if (!old)
		return;
	/* a reader may still walk it: kept, never freed while running */
	rt = xzalloc(sizeof(*rt));
	rt->set = old;
	pthread_mutex_lock(&intern_mu);
	rt->next = retired_sets;
	retired_sets = rt;
	pthread_mutex_unlock(&intern_mu);
}

static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static int same_kind(const sk_api_resource *a, const sk_api_resource *b)
{
	return same_str(a->group, b->group) && same_str(a->version, b->version) && same_str(a->kind, b->kind) &&
	       same_str(a->plural, b->plural) && same_str(a->singular, b->singular) && a->namespaced == b->namespaced &&
	       same_str(a->short_names, b->short_names) && same_str(a->categories, b->categories) &&
	       a->subresources == b->subresources && a->has_spec == b->has_spec && same_str(a->store, b->store) &&
	       same_str(a->list_kind, b->list_kind) && a->ops == b->ops;
}

static const char *dup_opt(const char *s) { return s ? xstrdup(s) : NULL; }

const sk_api_resource *sk__kind_intern(const sk_api_resource *tmpl)
{
	custom_kind *k;

	pthread_mutex_lock(&intern_mu);
	for (k = interned; k; k = k->next)
		if (same_kind(&k->r, tmpl))
			break;
	if (!k) {
		k = xzalloc(sizeof(*k));
		k->r = *tmpl;
		k->r.group = xstrdup(tmpl->group);
		k->r.version = xstrdup(tmpl->version);
		k->r.kind = xstrdup(tmpl->kind);
		k->r.plural = xstrdup(tmpl->plural);
		k->r.singular = xstrdup(tmpl->singular);
		k->r.short_names = dup_opt(tmpl->short_names);
		k->r.categories = dup_opt(tmpl->categories);
		k->r.store = dup_opt(tmpl->store);
		k->r.list_kind = dup_opt(tmpl->list_kind);
		k->r.custom = 1;
		k->next = interned;
		interned = k;
	}
	pthread_mutex_unlock(&intern_mu);
	return &k->r;
}

json_t *sk__kind_custom_spec(const sk_api_resource *r)
{
	json_t *s;

	if (!r || !r->custom)
		return NULL;
	pthread_mutex_lock(&spec_mu);
	s = json_incref(((const custom_kind *)r)->spec);
	pthread_mutex_unlock(&spec_mu);
	return s;
}

void sk__kind_custom_set_spec(const sk_api_resource *r, json_t *spec)
{
	custom_kind *k = (custom_kind *)r;
	json_t *old;

	if (!r->custom)
		return;
	pthread_mutex_lock(&spec_mu);
	old = k->spec;
	k->spec = json_incref(spec);
	pthread_mutex_unlock(&spec_mu);
	json_decref(old);
}
