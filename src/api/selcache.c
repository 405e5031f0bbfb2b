/* The selectable-fields cache (see selcache.h): entries in a tree by key
 * (glibc's tsearch) and on a least-recently-used list; one table of the
 * field names asked for, each entry's values indexed as that table. */
#include "api/selcache.h"

#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define SELCACHE_DEFAULT_MAX 100000
/* Field names are the kinds' selectable fields (validated before a list
 * reads the cache), so few; past this, further ones are not cached. */
#define SELCACHE_MAX_FIELDS 64

struct sc_entry {
	char *key;
	int64_t rev;
	json_t *labels; /* a copy of metadata.labels, or NULL */
	char **vals;    /* vals[i]: the value of fields[i], NULL: not extracted */
	size_t nvals;
	struct sc_entry *prev, *next; /* most recently used first */
};

struct sk_selcache {
	pthread_mutex_t mu;
	void *root; /* tsearch tree of struct sc_entry, by key */
	struct sc_entry *head, *tail;
	size_t n, max;
	char *fields[SELCACHE_MAX_FIELDS];
	size_t nfields;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sc_entry *)a)->key, ((const struct sc_entry *)b)->key);
}

static void entry_free(void *p)
{
	struct sc_entry *e = p;

	for (size_t i = 0; i < e->nvals; i++)
		free(e->vals[i]);
	free(e->vals);
	json_decref(e->labels);
	free(e->key);
	free(e);
}

sk_selcache *sk__selcache_new(size_t max)
{
	sk_selcache *c = xzalloc(sizeof(*c));

	pthread_mutex_init(&c->mu, NULL);
	c->max = max ? max : SELCACHE_DEFAULT_MAX;
	return c;
}

void sk__selcache_free(sk_selcache *c)
{
	if (!c)
		return;
	tdestroy(c->root, entry_free);
	for (size_t i = 0; i < c->nfields; i++)
		free(c->fields[i]);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

size_t sk__selcache_size(sk_selcache *c)
{
	size_t n;

	pthread_mutex_lock(&c->mu);
	n = c->n;
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* The index of field in c->fields, added when add is set and there is
 * room; -1 when absent. Under c->mu. */
static int field_id(sk_selcache *c, const char *field, int add)
{
	for (size_t i = 0; i < c->nfields; i++)
		if (!strcmp(c->fields[i], field))
			return (int)i;
	if (!add || c->nfields == SELCACHE_MAX_FIELDS)
		return -1;
	c->fields[c->nfields] = xstrdup(field);
	return (int)c->nfields++;
}

static void lru_unlink(sk_selcache *c, struct sc_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push(sk_selcache *c, struct sc_entry *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

static struct sc_entry *find(sk_selcache *c, const char *key)
{
	struct sc_entry probe = {.key = (char *)key};
	struct sc_entry **p = tfind(&probe, &c->root, entry_cmp);

	return p ? *p : NULL;
}

static void evict(sk_selcache *c)
{
	while (c->n > c->max && c->tail) {
		struct sc_entry *e = c->tail;

		lru_unlink(c, e);
		tdelete(e, &c->root, entry_cmp);
		entry_free(e);
		c->n--;
	}
}

struct lookup {
	sk_selcache *c;
	struct sc_entry *e;
};

static const char *cached_value(void *ctx, const char *field)
{
	struct lookup *l = ctx;
	int id = field_id(l->c, field, 0);

	return id < 0 || (size_t)id >= l->e->nvals ? NULL : l->e->vals[id];
}

int sk__selcache_match(sk_selcache *c, const char *key, int64_t mod_rev, const sk_kube_label_selector *labels,
		       const sk_kube_field_selector *fields)
{
	struct lookup l = {c, NULL};
	int m = 1;

	pthread_mutex_lock(&c->mu);
	l.e = find(c, key);
	if (!l.e || l.e->rev != mod_rev) {
		m = -1;
		goto out;
	}
	lru_unlink(c, l.e);
	lru_push(c, l.e);
	if (fields)
		m = sk_kube_field_selector_match_fn(fields, cached_value, &l);
	if (m == 1 && labels)
		m = sk_kube_label_selector_match(labels, l.e->labels);
out:
	pthread_mutex_unlock(&c->mu);
	return m;
}

/* Fills e's values for every field c knows (the ones it has stay). */
static void extract(sk_selcache *c, struct sc_entry *e, json_t *obj)
{
	if (e->nvals < c->nfields) {
		e->vals = xrealloc(e->vals, c->nfields * sizeof(*e->vals));
		memset(e->vals + e->nvals, 0, (c->nfields - e->nvals) * sizeof(*e->vals));
		e->nvals = c->nfields;
	}
	for (size_t i = 0; i < e->nvals; i++)
		if (!e->vals[i])
			e->vals[i] = sk_kube_field_value(obj, c->fields[i]);
}

/* _put and _written: only_known leaves a key without an entry alone. */
static void store(sk_selcache *c, const char *key, int64_t mod_rev, json_t *obj, const sk_kube_field_selector *fields,
		  int only_known)
{
	json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
	struct sc_entry *e;

	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; fields && i < sk_kube_field_selector_len(fields); i++)
		field_id(c, sk_kube_field_selector_field(fields, i), 1);
	e = find(c, key);
	if ((e && e->rev > mod_rev) || (!e && only_known))
		goto out;
	if (e && e->rev < mod_rev) {
		/* another version: nothing of the old one holds */
		for (size_t i = 0; i < e->nvals; i++) {
			free(e->vals[i]);
			e->vals[i] = NULL;
		}
		json_decref(e->labels);
		e->labels = NULL;
	}
	if (!e) {
		e = xzalloc(sizeof(*e));
		e->key = xstrdup(key);
		if (!tsearch(e, &c->root, entry_cmp))
			abort();
		c->n++;
	} else {
		lru_unlink(c, e);
	}
	if (e->rev != mod_rev || !e->labels)
		e->labels = labels ? json_deep_copy(labels) : NULL;
	e->rev = mod_rev;
	extract(c, e, obj);
	lru_push(c, e);
	evict(c);
out:
	pthread_mutex_unlock(&c->mu);
}

void sk__selcache_put(sk_selcache *c, const char *key, int64_t mod_rev, json_t *obj,
		      const sk_kube_field_selector *fields)
{
	store(c, key, mod_rev, obj, fields, 0);
}

void sk__selcache_written(sk_selcache *c, const char *key, int64_t mod_rev, json_t *obj)
{
	store(c, key, mod_rev, obj, NULL, 1);
}
