/* See tlscache.h. */
#include <pthread.h>
#include <string.h>

#include "util/tlscache.h"
#include "util/util.h"

enum { TLS_ID_MAX = 32 }; /* GNUTLS_MAX_SESSION_ID_SIZE */

struct entry {
	unsigned char id[TLS_ID_MAX];
	size_t nid;
	gnutls_datum_t data;
};

struct sk_tls_cache {
	pthread_mutex_t mu;
	size_t n, next;
	struct entry *e;
};

static struct entry *find(struct sk_tls_cache *c, gnutls_datum_t key)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].data.data && c->e[i].nid == key.size && !memcmp(c->e[i].id, key.data, key.size))
			return &c->e[i];
	return NULL;
}

static void clear(struct entry *e)
{
	if (e->data.data) {
		gnutls_memset(e->data.data, 0, e->data.size);
		free(e->data.data);
	}
	*e = (struct entry){0};
}

int sk_tls_cache_store(void *ptr, gnutls_datum_t key, gnutls_datum_t data)
{
	struct sk_tls_cache *c = ptr;
	struct entry *e;

	if (!key.size || key.size > TLS_ID_MAX || !data.size)
		return -1;
	pthread_mutex_lock(&c->mu);
	e = find(c, key);
	if (!e) {
		e = &c->e[c->next];
		c->next = (c->next + 1) % c->n;
	}
	clear(e);
	memcpy(e->id, key.data, key.size);
	e->nid = key.size;
	e->data.data = xmalloc(data.size);
	memcpy(e->data.data, data.data, data.size);
	e->data.size = data.size;
	pthread_mutex_unlock(&c->mu);
	return 0;
}

gnutls_datum_t sk_tls_cache_retrieve(void *ptr, gnutls_datum_t key)
{
	struct sk_tls_cache *c = ptr;
	struct entry *e;
	gnutls_datum_t out = {0};

	pthread_mutex_lock(&c->mu);
	e = find(c, key);
	if (e && (out.data = gnutls_malloc(e->data.size)) != NULL) {
		memcpy(out.data, e->data.data, e->data.size);
		out.size = e->data.size;
	}
	pthread_mutex_unlock(&c->mu);
	return out;
}

int sk_tls_cache_remove(void *ptr, gnutls_datum_t key)
{
	struct sk_tls_cache *c = ptr;
	struct entry *e;

	pthread_mutex_lock(&c->mu);
	e = find(c, key);
	if (e)
		clear(e);
	pthread_mutex_unlock(&c->mu);
	return e ? 0 : -1;
}

struct sk_tls_cache *sk_tls_cache_new(size_t n)
{
	struct sk_tls_cache *c = xzalloc(sizeof(*c));

	pthread_mutex_init(&c->mu, NULL);
	c->n = n ? n : 1;
	c->e = xzalloc(c->n * sizeof(*c->e));
	return c;
}

void sk_tls_cache_free(struct sk_tls_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		clear(&c->e[i]);
	free(c->e);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

void sk_tls_cache_attach(struct sk_tls_cache *c, gnutls_session_t s, unsigned expiry_s)
{
	gnutls_db_set_ptr(s, c);
	gnutls_db_set_store_function(s, sk_tls_cache_store);
	gnutls_db_set_retrieve_function(s, sk_tls_cache_retrieve);
	gnutls_db_set_remove_function(s, sk_tls_cache_remove);
	gnutls_db_set_cache_expiration(s, (int)expiry_s);
}
