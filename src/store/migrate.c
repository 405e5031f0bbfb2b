/* Copying a store's current state into another (skiff migrate).
 *
 * Only the current state travels, not history. Keys are written one by one
 * in the order of their last write in the source (mod_rev), one revision
 * each, so the target's revisions — resourceVersions — keep the source's
 * order. Values are copied byte for byte: the API server stores objects with
 * an empty metadata.resourceVersion and fills it in from the key's mod_rev
 * on every read (src/api/object.c), so a copied object reads with the
 * target's revision and nothing else in it changes (uid, creationTimestamp,
 * generation, Secret data). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store.h"
#include "util/util.h"

static int by_mod_rev(const void *a, const void *b)
{
	const sk_store_kv *x = a, *y = b;

	if (x->mod_rev != y->mod_rev)
		return x->mod_rev < y->mod_rev ? -1 : 1;
	return strcmp(x->key, y->key);
}

void sk_store_plan_order(sk_store_kv *kvs, size_t n)
{
	if (n)
		qsort(kvs, n, sizeof(kvs[0]), by_mod_rev);
}

/* --force: empties the target, in key order. */
static int clear_target(sk_store *dst, size_t *removed, sk_error_t *err)
{
	sk_store_list l = {0};

	if (sk_store_range(dst, "", NULL, 0, 0, &l, err) < 0)
		return sk_error_wrap(err, "listing the target");
	for (size_t i = 0; i < l.n; i++) {
		sk_error_t e = {0};

		if (sk_store_delete(dst, l.items[i].key, 0, NULL, &e) < 0 && e.code != SK_ENOTFOUND) {
			sk_error_set(err, e.code, "removing \"%s\" from the target: %s", l.items[i].key, e.msg);
			sk_store_list_release(&l);
			return -1;
		}
		(*removed)++;
	}
	sk_store_list_release(&l);
	return 0;
}

int sk_store_copy(sk_store *src, sk_store *dst, int force, sk_store_progress_fn progress, void *ud,
		  sk_store_copy_result *res, sk_error_t *err)
{
	sk_store_list l = {0};
	size_t have = sk_store_count(dst, "");
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (have && !force)
		return sk_error_set(err, SK_EEXISTS,
				    "the target is not empty (%zu keys): migrate only into an empty etcd or prefix, "
				    "or pass --force to replace what it holds",
				    have);
	if (have && clear_target(dst, &res->removed, err) < 0)
		return -1;
	if (sk_store_range(src, "", NULL, 0, 0, &l, err) < 0)
		return sk_error_wrap(err, "reading the source");
	sk_store_plan_order(l.items, l.n);
	res->source_rev = l.rev;
	res->total = l.n;
	for (size_t i = 0; i < l.n; i++) {
		const sk_store_kv *kv = &l.items[i];
		int64_t rev = sk_store_create(dst, kv->key, kv->value, kv->len, err);

		if (rev < 0) {
			sk_error_wrap(err, "writing \"%s\" (%zu of %zu)", kv->key, i + 1, l.n);
			goto out;
		}
		if (!res->first_rev)
			res->first_rev = rev;
		res->last_rev = rev;
		res->copied++;
		if (progress)
			progress(res->copied, l.n, ud);
	}
	rc = 0;
out:
	sk_store_list_release(&l);
	return rc;
}

sk_store *sk_store_open_sqlite_existing(const char *dir, sk_error_t *err)
{
	cleanup_free char *db = xasprintf("%s/state.db", dir);
	cleanup_free char *uri = xasprintf("sqlite://%s", dir);
	/* no compaction of the source's history while it is read */
	sk_store_options so = {.min_history_secs = 86400 * 365, .max_history_events = 1LL << 40};
	struct stat st;
	sk_store *s;

	if (stat(dir, &st) < 0) {
		sk_error_errno(err, errno, "data directory \"%s\"", dir);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) || stat(db, &st) < 0) {
		sk_error_set(err, SK_ENOTFOUND,
			     "\"%s\" holds no SQLite store (no state.db): not a server's data directory", dir);
		return NULL;
	}
	s = sk_store_open(uri, &so, err);
	if (!s && err && err->code == SK_EUNAVAILABLE)
		sk_error_set(err, SK_EUNAVAILABLE,
			     "\"%s\" is in use: its server still runs (stop it before migrating; the store is locked "
			     "through \"%s/state.lock\")",
			     dir, dir);
	return s;
}
