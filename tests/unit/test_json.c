#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "util/json.h"
#include "util/util.h"

/* Documents sk_json_loadb (yajl) must accept like json_loadb, and write
 * back like json_dumps (compact). */
static const char *const good[] = {
	"{}",
	"[]",
	" \t\r\n{ \"a\" : [ 1 , -2 , 0 , -0 ] } \n",
	"{\"s\":\"plain\",\"e\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"}",
	"[\"\\u00e9\\u20ac\\ud83d\\ude00\",\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]",
	"[9223372036854775807,-9223372036854775808,1.5,-2.5e-3,1E2,1e+2,0.1,1e-400]",
	"[true,false,null,[[]],{\"\":{}}]",
	"{\"dup\":1,\"x\":2,\"dup\":3}",
	/* ASCII texts whose escapes make non-ASCII strings */
	"{\"\\u00e9\\u20ac\":\"\\u07ff\\uffff\\\\\",\"k:{\\\"name\\\":\\\"c\\\"}\":{}}",
	"[\"\\\\ud800\",\"\\u0080\"]",
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"b\"}},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
};

static const char *const bad[] = {
	"", "   ", "1", "\"s\"", "null", "{", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[01]", "[-]",
	"[1.]", "[1e]", "[.5]", "[+1]", "[tru]", "[truex]", "[nul]", "[\"\\x\"]", "[\"\\u12\"]",
	"[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]", "[\"\\u0000\"]", "{\"\\u0000\":1}",
	"[\"a\nb\"]", "[\"\xff\"]", "[\"\xc0\xaf\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]",
	"[9223372036854775808]", "[-9223372036854775809]", "[1e400]", "[1] x", "[1][2]", "{}}",
	"[\"unterminated",
	"[\"\"]\"]", "[1]\"abc", "[1] [2]", "[1]\v", "\f[1]", "[\"\\ud83d\"]",   /* yajl is lenient with these */
};

static void test_loadb_matches_jansson(void **state)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		json_t *ref = json_loadb(good[i], strlen(good[i]), 0, NULL);
		json_t *got = sk_json_loadb(good[i], strlen(good[i]));
		char *a, *b;

		assert_non_null(ref);
		assert_non_null(got);
		assert_true(json_equal(ref, got));
		a = json_dumps(ref, JSON_COMPACT);
		b = sk_json_dumps(got, NULL);
		assert_string_equal(a, b);
		free(a);
		free(b);
		json_decref(ref);
		json_decref(got);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *ref = json_loadb(bad[i], strlen(bad[i]), 0, NULL);
		json_t *got = sk_json_loadb(bad[i], strlen(bad[i]));

		if (ref || got)
			fail_msg("\"%s\": jansson %p, sk_json_loadb %p", bad[i], (void *)ref, (void *)got);
	}
}

static void test_reject_duplicates(void **state)
{
	static const char nested[] = "{\"a\":1,\"b\":{\"a\":2}}", dup[] = "{\"a\":1,\"a\":2}";
	json_error_t jerr;
	json_t *o = sk_json_loadb_ex(nested, strlen(nested), JSON_REJECT_DUPLICATES, &jerr);

	assert_non_null(o);
	json_decref(o);
	assert_null(sk_json_loadb_ex(dup, strlen(dup), JSON_REJECT_DUPLICATES, &jerr));
	assert_non_null(strstr(jerr.text, "duplicate object key"));
}

static void test_dumps(void **state)
{
	json_t *v = json_pack("{s:s, s:I, s:f, s:[b, n]}", "k\"\\\x01", "v\n\xc3\xa9", "i", (json_int_t)-42, "r", 2.0,
			      "a", 1);
	json_t *inval = json_stringn_nocheck("\xff", 1);
	json_t *cyc = json_array(), *inner = json_array();
	size_t len;
	char *s = sk_json_dumps(v, &len), *ref = json_dumps(v, JSON_COMPACT);

	assert_string_equal(s, ref);
	assert_int_equal(len, strlen(ref));
	free(s);
	free(ref);
	assert_null(sk_json_dumps(inval, NULL));       /* invalid UTF-8, as jansson */
	json_array_append(inner, cyc);
	json_array_append_new(cyc, inner);
	assert_null(sk_json_dumps(cyc, NULL));       /* the depth bound ends a cycle */
	json_array_clear(cyc);
	json_decref(cyc);
	json_decref(inval);
	json_decref(v);
}

/* The stored text: kind, apiVersion, metadata led by an empty
 * resourceVersion and without empty lists and maps, then the rest. */
static void test_obj_encode(void **state)
{
	json_t *o = json_loads("{\"spec\":{\"a\":1},\"metadata\":{\"name\":\"n\",\"resourceVersion\":\"7\","
			       "\"finalizers\":[],\"labels\":{},\"annotations\":{\"x\":\"y\"}},\"apiVersion\":\"v1\","
			       "\"kind\":\"Pod\",\"status\":{}}",
			       0, NULL);
	json_t *bare = json_pack("{s:{s:s}}", "metadata", "name", "n");
	size_t len;
	char *s = sk__obj_encode(o, &len);

	assert_string_equal(s, "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"\","
			       "\"name\":\"n\",\"annotations\":{\"x\":\"y\"}},\"spec\":{\"a\":1},\"status\":{}}");
	assert_int_equal(len, strlen(s));
	free(s);
	s = sk__obj_encode(bare, &len);
	assert_string_equal(s, "{\"metadata\":{\"resourceVersion\":\"\",\"name\":\"n\"}}");
	free(s);
	json_decref(bare);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loadb_matches_jansson),
		cmocka_unit_test(test_reject_duplicates),
		cmocka_unit_test(test_dumps),
		cmocka_unit_test(test_obj_encode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
