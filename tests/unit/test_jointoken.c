/* Join tokens (src/client/jointoken.c) in k3s's K10 format, and the CA check
 * a joining agent makes before it sends its credentials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/jointoken.h"
#include "util/util.h"

#define CA "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

static void test_hash_is_sha256_of_the_bundle(void **state)
{
	cleanup_free char *empty = sk_join_ca_hash("", 0), *abc = sk_join_ca_hash("abc", 3);

	assert_string_equal(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_string_equal(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_format_and_parse(void **state)
{
	cleanup_free char *tok = sk_join_token_format(CA, "node", "s3cret");
	cleanup_free char *h = sk_join_ca_hash(CA, strlen(CA));
	sk_join_token t;
	sk_error_t err = {0};

	assert_true(!strncmp(tok, "K10", 3) && !strncmp(tok + 3, h, 64) && !strcmp(tok + 67, "::node:s3cret"));
	assert_int_equal(sk_join_token_parse(tok, &t, &err), 0);
	assert_string_equal(t.ca_hash, h);
	assert_string_equal(t.user, "node");
	assert_string_equal(t.secret, "s3cret");
	assert_int_equal(sk_join_check_ca(&t, CA, strlen(CA), &err), 0);
	sk_join_token_release(&t);
}

static void test_plain_and_bearer_forms(void **state)
{
	cleanup_free char *h = sk_join_ca_hash(CA, strlen(CA));
	cleanup_free char *bearer = xasprintf("K10%s::abcdef", h);
	sk_join_token t;
	sk_error_t err = {0};

	/* a token without the prefix is the secret, as before */
	assert_int_equal(sk_join_token_parse("0123abcd", &t, &err), 0);
	assert_null(t.ca_hash);
	assert_null(t.user);
	assert_string_equal(t.secret, "0123abcd");
	assert_int_equal(sk_join_check_ca(&t, "anything", 8, &err), 0);
	sk_join_token_release(&t);
	/* credentials without a user are a bearer token */
	assert_int_equal(sk_join_token_parse(bearer, &t, &err), 0);
	assert_null(t.user);
	assert_string_equal(t.secret, "abcdef");
	sk_join_token_release(&t);
}

static void test_malformed_tokens(void **state)
{
	static const char *const bad[] = {
		"",
		"K10",
		"K10abc::node:x",
		"K10" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85" "::node:x",  /* 63 digits */
		"K10" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855z" "::node:x", /* 65 */
		"K10" "g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "::node:x",
		"K10" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "::",
		"K10" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "::node:",
		"K10" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" ":node:x",
		NULL,
	};
	sk_join_token t;
	sk_error_t err = {0};

	for (int i = 0; bad[i]; i++) {
		assert_int_equal(sk_join_token_parse(bad[i], &t, &err), -1);
		assert_null(t.secret);
	}
	assert_int_equal(sk_join_token_parse(NULL, &t, &err), -1);
}

static void test_a_different_ca_is_refused(void **state)
{
	cleanup_free char *tok = sk_join_token_format(CA, "node", "s3cret");
	sk_join_token t;
	sk_error_t err = {0};
	const char *other = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";

	assert_int_equal(sk_join_token_parse(tok, &t, &err), 0);
	assert_int_equal(sk_join_check_ca(&t, other, strlen(other), &err), -1);
	assert_int_equal(err.code, SK_EFORBIDDEN);
	assert_non_null(strstr(err.msg, "the server's CA does not match the token's hash"));
	/* one byte more (a trailing newline) is another bundle */
	assert_int_equal(sk_join_check_ca(&t, CA "\n", strlen(CA) + 1, &err), -1);
	sk_join_token_release(&t);
}

/* An upper-case hash in the token matches (hex digits compare as numbers). */
static void test_hash_case(void **state)
{
	cleanup_free char *h = sk_join_ca_hash(CA, strlen(CA));
	cleanup_free char *tok = NULL;
	sk_join_token t;
	sk_error_t err = {0};

	for (char *p = h; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	tok = xasprintf("K10%s::node:x", h);
	assert_int_equal(sk_join_token_parse(tok, &t, &err), 0);
	assert_int_equal(sk_join_check_ca(&t, CA, strlen(CA), &err), 0);
	sk_join_token_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_is_sha256_of_the_bundle),
		cmocka_unit_test(test_format_and_parse),
		cmocka_unit_test(test_plain_and_bearer_forms),
		cmocka_unit_test(test_malformed_tokens),
		cmocka_unit_test(test_a_different_ca_is_refused),
		cmocka_unit_test(test_hash_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
