/* The in-memory current state: a skip list ordered by key (strcmp, which
 * orders bytes as unsigned like SQLite's BINARY collation). One writer
 * mutates it; readers are serialised against it by the backend's lock. */
#include <string.h>

#include "store/store-int.h"
#include "util/util.h"

static sk__mnode *node_new(int level)
{
	sk__mnode *n = xzalloc(sizeof(*n) + (size_t)level * sizeof(n->next[0]));

	n->level = level;
	return n;
}

static void node_free(sk__mnode *n)
{
	sk__blob_unref(n->key);
	sk__blob_unref(n->val);
	free(n);
}

void sk__memtab_init(sk__memtab *t)
{
	t->head = node_new(SK__MEMTAB_MAXLEVEL);
	t->level = 1;
	t->n = 0;
	t->rng = 0x9e3779b97f4a7c15ULL;
}

void sk__memtab_release(sk__memtab *t)
{
	sk__mnode *n, *next;

	if (!t->head)
		return;
	for (n = t->head->next[0]; n; n = next) {
		next = n->next[0];
		node_free(n);
	}
	free(t->head);
	t->head = NULL;
	t->n = 0;
}

/* Level with P(level > k) = 4^-k (xorshift64; only the writer inserts). */
static int random_level(sk__memtab *t)
{
	uint64_t x = t->rng;
	int level = 1;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	while (level < SK__MEMTAB_MAXLEVEL && (x & 3) == 0) {
		level++;
		x >>= 2;
	}
	return level;
}

/* Fills update[i] with the last node at level i whose key < key (or <= key
 * when inclusive); returns the node after update[0]. */
static sk__mnode *search(const sk__memtab *t, const char *key, int inclusive, sk__mnode **update)
{
	sk__mnode *x = t->head;

	for (int i = t->level - 1; i >= 0; i--) {
		for (;;) {
			sk__mnode *nx = x->next[i];
			int c;

			if (!nx)
				break;
			c = strcmp(nx->key->data, key);
			if (c > 0 || (c == 0 && !inclusive))
				break;
			x = nx;
		}
		if (update)
			update[i] = x;
	}
	return x->next[0];
}

sk__mnode *sk__memtab_lower_bound(const sk__memtab *t, const char *key) { return search(t, key, 0, NULL); }

sk__mnode *sk__memtab_seek(const sk__memtab *t, const char *after)
{
	if (!after || !*after)
		return t->head->next[0];
	return search(t, after, 1, NULL);
}

sk__mnode *sk__memtab_find(const sk__memtab *t, const char *key)
{
	sk__mnode *n = search(t, key, 0, NULL);

	return n && strcmp(n->key->data, key) == 0 ? n : NULL;
}

void sk__memtab_put(sk__memtab *t, sk__blob *key, sk__blob *val, int64_t create_rev, int64_t mod_rev)
{
	sk__mnode *update[SK__MEMTAB_MAXLEVEL];
	sk__mnode *n = search(t, key->data, 0, update);
	int level;

	if (n && strcmp(n->key->data, key->data) == 0) {
		sk__blob_unref(key);
		sk__blob_unref(n->val);
		n->val = val;
		n->create_rev = create_rev;
		n->mod_rev = mod_rev;
		return;
	}
	level = random_level(t);
	for (int i = t->level; i < level; i++)
		update[i] = t->head;
	if (level > t->level)
		t->level = level;
	n = node_new(level);
	n->key = key;
	n->val = val;
	n->create_rev = create_rev;
	n->mod_rev = mod_rev;
	for (int i = 0; i < level; i++) {
		n->next[i] = update[i]->next[i];
		update[i]->next[i] = n;
	}
	t->n++;
}

int sk__memtab_remove(sk__memtab *t, const char *key)
{
	sk__mnode *update[SK__MEMTAB_MAXLEVEL];
	sk__mnode *n = search(t, key, 0, update);

	if (!n || strcmp(n->key->data, key) != 0)
		return -1;
	for (int i = 0; i < n->level; i++)
		if (update[i]->next[i] == n)
			update[i]->next[i] = n->next[i];
	while (t->level > 1 && !t->head->next[t->level - 1])
		t->level--;
	node_free(n);
	t->n--;
	return 0;
}

static int has_prefix(const sk__mnode *n, const char *prefix, size_t plen)
{
	return n->key->len >= plen && memcmp(n->key->data, prefix, plen) == 0;
}

void sk__memtab_list(const sk__memtab *t, const char *prefix, const char *after, size_t limit, sk_store_list *out)
{
	size_t plen = strlen(prefix), cap = 0;
	sk__mnode *n;

	if (after && *after && strcmp(after, prefix) >= 0)
		n = sk__memtab_seek(t, after);
	else
		n = sk__memtab_lower_bound(t, prefix);
	for (; n && has_prefix(n, prefix, plen); n = n->next[0]) {
		if (limit && out->n == limit) {
			out->more = 1;
			break;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->items = xrealloc(out->items, cap * sizeof(out->items[0]));
		}
		sk__kv_fill(&out->items[out->n++], n->key->data, n->val->data, n->val->len, n->create_rev, n->mod_rev);
	}
}

size_t sk__memtab_count(const sk__memtab *t, const char *prefix)
{
	size_t plen = strlen(prefix), n = 0;

	if (plen == 0)
		return t->n;
	for (sk__mnode *m = sk__memtab_lower_bound(t, prefix); m && has_prefix(m, prefix, plen); m = m->next[0])
		n++;
	return n;
}
