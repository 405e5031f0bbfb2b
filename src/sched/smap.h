/* A string-keyed hash map with chaining (scheduler internal).
 *
 * Keys are copied; values are borrowed pointers the map never frees.
 * Not thread-safe: the scheduler holds its lock around every use. */
#ifndef SK_SCHED_SMAP_H
#define SK_SCHED_SMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sk_smap_ent {
	struct sk_smap_ent *next;
	uint64_t hash;
	void *val;
	char key[];
} sk_smap_ent;

typedef struct sk_smap {
	sk_smap_ent **b;
	size_t cap; /* power of two, 0 before first insert */
	size_t n;
} sk_smap;

void sk__smap_init(sk_smap *m);
/* Frees the entries (not the values). */
void sk__smap_release(sk_smap *m);
void *sk__smap_get(const sk_smap *m, const char *key);
/* Same with hash = sk__smap_hash(key) computed once by the caller. */
void *sk__smap_geth(const sk_smap *m, const char *key, uint64_t hash);
/* Inserts or replaces; returns the previous value or NULL. */
void *sk__smap_put(sk_smap *m, const char *key, void *val);
/* Removes key; returns its value or NULL. */
void *sk__smap_del(sk_smap *m, const char *key);
/* Calls fn for every entry; fn must not change the map. */
void sk__smap_each(const sk_smap *m, void (*fn)(const char *key, void *val, void *ud), void *ud);
uint64_t sk__smap_hash(const char *s);

#endif
