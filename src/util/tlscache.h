/* A server's TLS session cache for resumption by session id (GnuTLS's
 * session database): the last n sessions in a ring, each the session id
 * and GnuTLS's packed session (GnuTLS checks its expiry itself). Used by the
 * agent's endpoint, whose libmicrohttpd sets no database of its own. */
#ifndef SK_UTIL_TLSCACHE_H
#define SK_UTIL_TLSCACHE_H

#include <gnutls/gnutls.h>
#include <stddef.h>

struct sk_tls_cache;

struct sk_tls_cache *sk_tls_cache_new(size_t n);
/* Accepts NULL. */
void sk_tls_cache_free(struct sk_tls_cache *c);

/* Makes server session s (before its handshake) store, find and remove
 * its sessions in c, kept at most expiry_s seconds. */
void sk_tls_cache_attach(struct sk_tls_cache *c, gnutls_session_t s, unsigned expiry_s);

/* GnuTLS's callbacks, ptr being the cache: store (0, or -1 for an id over
 * 32 bytes or no data), retrieve (a copy to gnutls_free, or {NULL, 0}),
 * remove (0, or -1 when absent). */
int sk_tls_cache_store(void *ptr, gnutls_datum_t key, gnutls_datum_t data);
gnutls_datum_t sk_tls_cache_retrieve(void *ptr, gnutls_datum_t key);
int sk_tls_cache_remove(void *ptr, gnutls_datum_t key);

#endif
