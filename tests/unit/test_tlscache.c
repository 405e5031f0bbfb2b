/* The agent's TLS session cache (src/util/tlscache.c): GnuTLS's session
 * database callbacks over a ring of the last n sessions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/tlscache.h"

static gnutls_datum_t D(const char *s) { return (gnutls_datum_t){(unsigned char *)s, (unsigned)strlen(s)}; }

/* what retrieve gives for key, as a string ("" when nothing) */
static void expect(struct sk_tls_cache *c, const char *key, const char *want)
{
	gnutls_datum_t got = sk_tls_cache_retrieve(c, D(key));

	assert_int_equal(got.size, strlen(want));
	if (got.size)
		assert_memory_equal(got.data, want, got.size);
	else
		assert_null(got.data);
	gnutls_free(got.data);
}

static void test_store_retrieve_remove(void **state)
{
	struct sk_tls_cache *c = sk_tls_cache_new(4);

	(void)state;
	expect(c, "id-1", "");
	assert_int_equal(sk_tls_cache_store(c, D("id-1"), D("session one")), 0);
	assert_int_equal(sk_tls_cache_store(c, D("id-2"), D("session two")), 0);
	expect(c, "id-1", "session one");
	expect(c, "id-2", "session two");
	expect(c, "id-", ""); /* a prefix is not the id */
	/* the same id again replaces its session */
	assert_int_equal(sk_tls_cache_store(c, D("id-1"), D("one, renewed")), 0);
	expect(c, "id-1", "one, renewed");
	assert_int_equal(sk_tls_cache_remove(c, D("id-1")), 0);
	assert_int_equal(sk_tls_cache_remove(c, D("id-1")), -1);
	expect(c, "id-1", "");
	expect(c, "id-2", "session two");
	sk_tls_cache_free(c);
	sk_tls_cache_free(NULL);
}

static void test_ring_keeps_the_last_n(void **state)
{
	struct sk_tls_cache *c = sk_tls_cache_new(3);
	char key[8], val[16];

	(void)state;
	for (int i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		snprintf(val, sizeof(val), "v%d", i);
		assert_int_equal(sk_tls_cache_store(c, D(key), D(val)), 0);
	}
	expect(c, "k0", "");
	expect(c, "k1", "");
	expect(c, "k2", "v2");
	expect(c, "k3", "v3");
	expect(c, "k4", "v4");
	sk_tls_cache_free(c);
}

static void test_bad_input_refused(void **state)
{
	struct sk_tls_cache *c = sk_tls_cache_new(2);
	char longid[40];

	(void)state;
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(sk_tls_cache_store(c, D(longid), D("s")), -1); /* over 32 bytes */
	assert_int_equal(sk_tls_cache_store(c, D(""), D("s")), -1);
	assert_int_equal(sk_tls_cache_store(c, D("k"), D("")), -1);
	expect(c, longid, "");
	expect(c, "", "");
	assert_int_equal(sk_tls_cache_remove(c, D("nothing")), -1);
	sk_tls_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_retrieve_remove),
		cmocka_unit_test(test_ring_keeps_the_last_n),
		cmocka_unit_test(test_bad_input_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
