/* Service-account JWTs (src/api/jwt.c): the key made on first use and read
 * back, base64url, RS256 signing and verification (tampered or foreign
 * tokens refused), upstream's claims and their checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "api/jwt.h"
#include "util/util.h"

#define ISS "https://kubernetes.default.svc.cluster.local"

static sk_sa_keys *keys, *other;
static char dir[] = "/tmp/skiff-jwt-XXXXXX";

static int setup(void **state)
{
	cleanup_free char *p1 = NULL, *p2 = NULL;
	sk_error_t err = {0};

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	p1 = xasprintf("%s/sa.key", dir);
	p2 = xasprintf("%s/other.key", dir);
	keys = sk_sa_keys_load(p1, &err);
	other = sk_sa_keys_load(p2, &err);
	return keys && other ? 0 : -1;
}

static int teardown(void **state)
{
	cleanup_free char *cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	sk_sa_keys_free(keys);
	sk_sa_keys_free(other);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_key_file_is_private_and_reloads(void **state)
{
	cleanup_free char *p = xasprintf("%s/sa.key", dir);
	sk_error_t err = {0};
	struct stat st;
	sk_sa_keys *again;

	(void)state;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	again = sk_sa_keys_load(p, &err);
	assert_non_null(again);
	assert_string_equal(sk_sa_keys_kid(again), sk_sa_keys_kid(keys));
	assert_string_not_equal(sk_sa_keys_kid(other), sk_sa_keys_kid(keys));
	assert_int_equal(strlen(sk_sa_keys_kid(keys)), 43); /* 32 bytes, unpadded base64url */
	sk_sa_keys_free(again);
	assert_null(sk_sa_keys_from_pem("nope", 4, &err));
}

static void test_b64url(void **state)
{
	cleanup_free char *a = sk_b64url_encode("\xfb\xff", 2), *b = sk_b64url_encode("", 0);
	cleanup_free unsigned char *d = NULL;
	size_t n;

	(void)state;
	assert_string_equal(a, "-_8");
	assert_string_equal(b, "");
	d = sk_b64url_decode("-_8", 3, &n);
	assert_int_equal(n, 2);
	assert_memory_equal(d, "\xfb\xff", 2);
	assert_null(sk_b64url_decode("a", 1, &n));
	assert_null(sk_b64url_decode("ab+c", 4, &n));
	assert_null(sk_b64url_decode("ab=c", 4, &n));
}

static json_t *claims_at(int64_t now, int64_t secs)
{
	json_t *aud = json_pack("[s]", ISS);
	sk_sa_claims_in in = {.issuer = ISS,
			      .audiences = aud,
			      .ns = "ns1",
			      .sa_name = "bob",
			      .sa_uid = "sa-uid",
			      .pod_name = "p",
			      .pod_uid = "pod-uid",
			      .node_name = "n",
			      .node_uid = "node-uid",
			      .jti = "jti-1",
			      .now = now,
			      .expiration_secs = secs,
			      .warnafter_secs = 3607};
	json_t *c = sk_sa_claims_new(&in);

	json_decref(aud);
	return c;
}

static void test_claims_as_upstream(void **state)
{
	cleanup_json json_t *c = claims_at(1000, 31536000);
	cleanup_free char *s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);

	(void)state;
	assert_string_equal(
		s, "{\"aud\":[\"" ISS "\"],\"exp\":31537000,\"iat\":1000,\"iss\":\"" ISS "\",\"jti\":\"jti-1\","
		   "\"kubernetes.io\":{\"namespace\":\"ns1\",\"node\":{\"name\":\"n\",\"uid\":\"node-uid\"},"
		   "\"pod\":{\"name\":\"p\",\"uid\":\"pod-uid\"},\"serviceaccount\":{\"name\":\"bob\","
		   "\"uid\":\"sa-uid\"},\"warnafter\":4607},\"nbf\":1000,\"sub\":\"system:serviceaccount:ns1:bob\"}");
}

static void test_sign_and_verify(void **state)
{
	int64_t now = sk_now_ns() / 1000000000;
	cleanup_json json_t *c = claims_at(now, 600), *back = NULL, *hdr = NULL;
	sk_error_t err = {0};
	cleanup_free char *tok = sk_jwt_sign(keys, c, &err), *bad = NULL, *hdr_txt = NULL;
	cleanup_free unsigned char *raw = NULL;
	size_t n;

	(void)state;
	assert_non_null(tok);
	raw = sk_b64url_decode(tok, (size_t)(strchr(tok, '.') - tok), &n);
	hdr = json_loadb((const char *)raw, n, 0, NULL);
	hdr_txt = json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_true(!strncmp(hdr_txt, "{\"alg\":\"RS256\",\"kid\":\"", 22));
	back = sk_jwt_verify(keys, tok, &err);
	assert_non_null(back);
	assert_true(json_equal(back, c));
	/* another key's signature, a changed payload, a changed signature */
	assert_null(sk_jwt_verify(other, tok, &err));
	assert_int_equal(err.code, SK_EUNAUTHORIZED);
	bad = xstrdup(tok);
	bad[strchr(bad, '.') - bad + 5] ^= 1;
	assert_null(sk_jwt_verify(keys, bad, &err));
	free(bad);
	bad = xstrdup(tok);
	bad[strlen(bad) - 3] = bad[strlen(bad) - 3] == 'A' ? 'B' : 'A';
	assert_null(sk_jwt_verify(keys, bad, &err));
	/* not a JWT */
	assert_null(sk_jwt_verify(keys, "", &err));
	assert_null(sk_jwt_verify(keys, "a.b", &err));
	assert_null(sk_jwt_verify(keys, "a.b.c.d", &err));
	assert_null(sk_jwt_verify(keys, "e30.e30.", &err));
}

static void test_alg_none_refused(void **state)
{
	cleanup_free char *h = sk_b64url_encode("{\"alg\":\"none\"}", 14), *p = sk_b64url_encode("{}", 2);
	cleanup_free char *tok = xasprintf("%s.%s.", h, p);
	sk_error_t err = {0};

	(void)state;
	assert_null(sk_jwt_verify(keys, tok, &err));
}

static void test_claims_check(void **state)
{
	cleanup_json json_t *c = claims_at(1000, 600);
	sk_sa_claims_out out;
	sk_error_t err = {0};

	(void)state;
	assert_int_equal(sk_sa_claims_check(c, ISS, 1000, &out, &err), 0);
	assert_string_equal(out.ns, "ns1");
	assert_string_equal(out.sa_name, "bob");
	assert_string_equal(out.sa_uid, "sa-uid");
	assert_string_equal(out.pod_name, "p");
	assert_string_equal(out.pod_uid, "pod-uid");
	assert_string_equal(out.node_name, "n");
	assert_string_equal(out.jti, "jti-1");
	assert_null(out.secret_name);
	/* go-jose's one-minute leeway on both ends */
	assert_int_equal(sk_sa_claims_check(c, ISS, 1660, &out, &err), 0);
	assert_int_equal(sk_sa_claims_check(c, ISS, 1661, &out, &err), -1);
	assert_string_equal(err.msg, "service account token has expired");
	assert_int_equal(sk_sa_claims_check(c, ISS, 940, &out, &err), 0);
	assert_int_equal(sk_sa_claims_check(c, ISS, 939, &out, &err), -1);
	assert_string_equal(err.msg, "service account token is not valid yet");
	assert_int_equal(sk_sa_claims_check(c, "https://other", 1000, &out, &err), -1);
	json_object_del(json_object_get(c, "kubernetes.io"), "serviceaccount");
	assert_int_equal(sk_sa_claims_check(c, ISS, 1000, &out, &err), -1);
	json_object_set_new(c, "exp", json_string("soon"));
	assert_int_equal(sk_sa_claims_check(c, ISS, 1000, &out, &err), -1);
}

static void test_audiences(void **state)
{
	cleanup_json json_t *c = json_pack("{s:[s,s]}", "aud", "a", "b"), *want = json_pack("[s,s]", "b", "c");
	cleanup_json json_t *one = json_pack("{s:s}", "aud", "c");
	cleanup_json json_t *got = sk_sa_claims_audiences(c, want), *got1 = sk_sa_claims_audiences(one, want);
	cleanup_json json_t *none = sk_sa_claims_audiences(one, c);

	(void)state;
	assert_int_equal(json_array_size(got), 1);
	assert_string_equal(json_string_value(json_array_get(got, 0)), "b");
	assert_int_equal(json_array_size(got1), 1);
	assert_int_equal(json_array_size(none), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_file_is_private_and_reloads),
		cmocka_unit_test(test_b64url),
		cmocka_unit_test(test_claims_as_upstream),
		cmocka_unit_test(test_sign_and_verify),
		cmocka_unit_test(test_alg_none_refused),
		cmocka_unit_test(test_claims_check),
		cmocka_unit_test(test_audiences),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
