#include "sched/smap.h"

#include <string.h>

#include "util/util.h"

uint64_t sk__smap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ^ (h >> 29);
}

void sk__smap_init(sk_smap *m) { memset(m, 0, sizeof(*m)); }

void sk__smap_release(sk_smap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		sk_smap_ent *e = m->b[i];

		while (e) {
			sk_smap_ent *next = e->next;

			free(e);
			e = next;
		}
	}
	free(m->b);
	memset(m, 0, sizeof(*m));
}

static sk_smap_ent **slot(const sk_smap *m, const char *key, uint64_t h)
{
	sk_smap_ent **p = &m->b[h & (m->cap - 1)];

	for (; *p; p = &(*p)->next)
		if ((*p)->hash == h && strcmp((*p)->key, key) == 0)
			return p;
	return p;
}

static void grow(sk_smap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	sk_smap_ent **nb = xzalloc(ncap * sizeof(*nb));

	for (size_t i = 0; i < m->cap; i++) {
		sk_smap_ent *e = m->b[i];

		while (e) {
			sk_smap_ent *next = e->next;
			size_t j = e->hash & (ncap - 1);

			e->next = nb[j];
			nb[j] = e;
			e = next;
		}
	}
	free(m->b);
	m->b = nb;
	m->cap = ncap;
}

void *sk__smap_get(const sk_smap *m, const char *key)
{
	sk_smap_ent **p;

	if (!m->cap)
		return NULL;
	p = slot(m, key, sk__smap_hash(key));
	return *p ? (*p)->val : NULL;
}

void *sk__smap_geth(const sk_smap *m, const char *key, uint64_t hash)
{
	sk_smap_ent **p;

	if (!m->cap)
		return NULL;
	p = slot(m, key, hash);
	return *p ? (*p)->val : NULL;
}

void *sk__smap_put(sk_smap *m, const char *key, void *val)
{
	uint64_t h = sk__smap_hash(key);
	sk_smap_ent **p, *e;
	size_t len;

	if (m->n + 1 > m->cap * 3 / 4)
		grow(m);
	p = slot(m, key, h);
	if (*p) {
		void *old = (*p)->val;

		(*p)->val = val;
		return old;
	}
	len = strlen(key);
	e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->key, key, len + 1);
	e->hash = h;
	e->val = val;
	e->next = NULL;
	*p = e;
	m->n++;
	return NULL;
}

void *sk__smap_del(sk_smap *m, const char *key)
{
	sk_smap_ent **p, *e;
	void *val;

	if (!m->cap)
		return NULL;
	p = slot(m, key, sk__smap_hash(key));
	if (!*p)
		return NULL;
	e = *p;
	*p = e->next;
	val = e->val;
	free(e);
	m->n--;
	return val;
}

void sk__smap_each(const sk_smap *m, void (*fn)(const char *key, void *val, void *ud), void *ud)
{
	for (size_t i = 0; i < m->cap; i++)
		for (sk_smap_ent *e = m->b[i]; e; e = e->next)
			fn(e->key, e->val, ud);
}
