/* The store front end: picks a backend from the uri scheme and forwards each
 * call through its vtable; also the small helpers every backend shares. */
#include "store/store.h"

#include <string.h>

#include "store/store-int.h"
#include "util/metrics.h"
#include "util/util.h"

/* etcd_request_duration_seconds{operation,type} as kube-apiserver names it
 * for etcd (dashboards read it), type being the key's resource segment;
 * NULL until sk_store_metrics_register. */
static sk_metric_family *request_duration;

void sk_store_metrics_register(sk_metrics *m)
{
	static const char *const labels[] = {"operation", "type", NULL};
	sk_metric_family *f = sk_metrics_family(
		m, SK_METRIC_HISTOGRAM, "etcd_request_duration_seconds",
		"[ALPHA] Etcd request latency in seconds for each operation and object type.", "seconds", labels,
		sk_metric_buckets_etcd_request, sk_metric_buckets_etcd_request_n);

	__atomic_store_n(&request_duration, f, __ATOMIC_RELEASE);
}

static void observe(const char *op, const char *key, int64_t t0)
{
	sk_metric_family *f = __atomic_load_n(&request_duration, __ATOMIC_ACQUIRE);
	char type[128];
	const char *v[2] = {op, type};
	size_t n;

	if (!f)
		return;
	if (!strncmp(key, "/registry/", 10))
		key += 10;
	n = strcspn(key, "/");
	if (n >= sizeof(type))
		n = sizeof(type) - 1;
	memcpy(type, key, n);
	type[n] = '\0';
	sk_metric_observe(f, v, (double)(sk_mono_ns() - t0) / 1e9);
}

static int64_t start(void) { return __atomic_load_n(&request_duration, __ATOMIC_RELAXED) ? sk_mono_ns() : 0; }

sk_store *sk_store_open(const char *uri, const sk_store_options *opts, sk_error_t *err)
{
	static const char sqlite_scheme[] = "sqlite://", etcd_scheme[] = "etcd://";
	sk_store_options none = {0};

	if (!opts)
		opts = &none;
	if (!uri) {
		sk_error_set(err, SK_EINVALID, "store: no uri");
		return NULL;
	}
	if (strncmp(uri, sqlite_scheme, strlen(sqlite_scheme)) == 0 && uri[strlen(sqlite_scheme)])
		return sk__sqlite_open(uri + strlen(sqlite_scheme), opts, err);
	if (strncmp(uri, etcd_scheme, strlen(etcd_scheme)) == 0 && uri[strlen(etcd_scheme)])
		return sk__etcd_open(uri + strlen(etcd_scheme), opts, err);
	sk_error_set(err, SK_EINVALID, "store \"%s\": unsupported uri (want sqlite://DIR or etcd://HOST:PORT)", uri);
	return NULL;
}

void sk_store_close(sk_store *s)
{
	if (s)
		s->ops->close(s);
}

int64_t sk_store_rev(sk_store *s) { return s->ops->rev(s); }
int64_t sk_store_compacted_rev(sk_store *s) { return s->ops->compacted_rev(s); }
int64_t sk_store_delivered_rev(sk_store *s) { return s->ops->delivered_rev(s); }

int sk_store_sync(sk_store *s, sk_error_t *err) { return s->ops->sync ? s->ops->sync(s, err) : 0; }

int sk_store_get(sk_store *s, const char *key, sk_store_kv *kv, sk_error_t *err)
{
	int64_t t0 = start();
	int rc = s->ops->get(s, key, kv, err);

	if (t0)
		observe("get", key, t0);
	return rc;
}

int sk_store_range(sk_store *s, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		   sk_error_t *err)
{
	int64_t t0 = start();
	int rc = s->ops->list(s, prefix ? prefix : "", after, limit, rev, out, err);

	if (t0)
		observe("list", prefix ? prefix : "", t0);
	return rc;
}

size_t sk_store_count(sk_store *s, const char *prefix) { return s->ops->count(s, prefix ? prefix : ""); }

int64_t sk_store_create(sk_store *s, const char *key, const char *value, size_t len, sk_error_t *err)
{
	int64_t t0 = start();
	int64_t rc = s->ops->create(s, key, value, len, err);

	if (t0)
		observe("create", key, t0);
	return rc;
}

int64_t sk_store_update(sk_store *s, const char *key, const char *value, size_t len, int64_t expect_rev,
			sk_error_t *err)
{
	int64_t t0 = start();
	int64_t rc = s->ops->update(s, key, value, len, expect_rev, err);

	if (t0)
		observe("update", key, t0);
	return rc;
}

int64_t sk_store_delete(sk_store *s, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err)
{
	int64_t t0 = start();
	int64_t rc = s->ops->del(s, key, expect_rev, prev, err);

	if (t0)
		observe("delete", key, t0);
	return rc;
}

sk_store_watch *sk_store_watch_start(sk_store *s, const char *prefix, int64_t from_rev, sk_store_watch_cb cb, void *ud,
				     sk_error_t *err)
{
	return s->ops->watch_start(s, prefix ? prefix : "", from_rev, cb, ud, err);
}

void sk_store_unwatch(sk_store *s, sk_store_watch *w)
{
	if (w)
		s->ops->unwatch(s, w);
}

int sk_store_compact(sk_store *s, int64_t rev, sk_error_t *err) { return s->ops->compact(s, rev, err); }

int sk_store_health(sk_store *s, sk_error_t *err) { return s->ops->health ? s->ops->health(s, err) : 0; }

void sk_store_get_stats(sk_store *s, sk_store_stats *st)
{
	memset(st, 0, sizeof(*st));
	s->ops->stats(s, st);
}

void sk_store_kv_release(sk_store_kv *kv)
{
	if (!kv)
		return;
	free(kv->key);
	free(kv->value);
	kv->key = kv->value = NULL;
	kv->len = 0;
}

void sk_store_list_release(sk_store_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		sk_store_kv_release(&l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

sk__blob *sk__blob_new(const char *data, size_t len)
{
	sk__blob *b = xmalloc(sizeof(*b) + len + 1);

	b->refs = 1;
	b->len = len;
	if (len)
		memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

sk__blob *sk__blob_ref(sk__blob *b)
{
	if (b)
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void sk__blob_unref(sk__blob *b)
{
	int left;

	if (!b)
		return;
	left = __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	if (left < 0)
		abort();
	if (left == 0)
		free(b);
}

void sk__kv_fill(sk_store_kv *kv, const char *key, const char *val, size_t len, int64_t create_rev, int64_t mod_rev)
{
	kv->key = xstrdup(key);
	kv->value = xmalloc(len + 1);
	if (len)
		memcpy(kv->value, val, len);
	kv->value[len] = '\0';
	kv->len = len;
	kv->create_rev = create_rev;
	kv->mod_rev = mod_rev;
}

char *sk__prefix_end(const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;

	while (n > 0 && (unsigned char)prefix[n - 1] == 0xff)
		n--;
	if (n == 0)
		return NULL;
	end = xstrndup(prefix, n);
	end[n - 1] = (char)((unsigned char)end[n - 1] + 1);
	return end;
}
