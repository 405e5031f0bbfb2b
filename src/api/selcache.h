/* The selectable-fields cache behind filtered LISTs (upstream's watch cache
 * keeps the same: per object, its labels and the fields its kind can be
 * selected by, extracted once): per stored key and mod revision, the
 * object's labels and the values of the selectable fields asked for so far,
 * so that a LIST with a labelSelector or fieldSelector matches the objects
 * it has seen before without decoding them, and decodes only the matches.
 *
 * An entry is valid for exactly one (key, mod revision): a write gives the
 * key a new revision, and a lookup at another revision misses, so a list
 * never matches against values of another version of the object. Bounded:
 * past max entries the least recently used go. Thread-safe. */
#ifndef SK_API_SELCACHE_H
#define SK_API_SELCACHE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/selector.h"

typedef struct sk_selcache sk_selcache;

/* A cache of at most max entries (0: a default of 100,000); the caller
 * frees it with sk__selcache_free. */
sk_selcache *sk__selcache_new(size_t max);
void sk__selcache_free(sk_selcache *c);

/* Whether the object stored under key at mod_rev satisfies both selectors
 * (either may be NULL): 1 or 0 from the values cached for it, or -1 when
 * they are not known (no entry at that revision, or a field not extracted
 * yet): the caller decodes the object, matches it and calls _put. */
int sk__selcache_match(sk_selcache *c, const char *key, int64_t mod_rev, const sk_kube_label_selector *labels,
		       const sk_kube_field_selector *fields);

/* Records obj, the object stored under key at mod_rev (decoded): its labels
 * and the values of fields' fields and of every field asked for before.
 * An entry for a newer revision of key is kept as it is. obj stays the
 * caller's. */
void sk__selcache_put(sk_selcache *c, const char *key, int64_t mod_rev, json_t *obj,
		      const sk_kube_field_selector *fields);

/* As _put, after obj was written under key at mod_rev, for a key the cache
 * has an entry for (one a filtered list read): the next such list needs
 * not decode it. Other keys are left out (most writes are never filtered). */
void sk__selcache_written(sk_selcache *c, const char *key, int64_t mod_rev, json_t *obj);

/* The number of entries (for tests and metrics). */
size_t sk__selcache_size(sk_selcache *c);

#endif
