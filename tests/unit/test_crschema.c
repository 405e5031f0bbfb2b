#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "api/crschema.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad json: %s", e.text);
	return j;
}

static const char schema_text[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"spec\":{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{"
	"\"replicas\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10,\"default\":1},"
	"\"ratio\":{\"type\":\"number\",\"exclusiveMaximum\":true,\"maximum\":1},"
	"\"name\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":5,\"pattern\":\"^[a-z]+$\"},"
	"\"colour\":{\"type\":\"string\",\"enum\":[\"red\",\"blue\"],\"default\":\"red\"},"
	"\"port\":{\"x-kubernetes-int-or-string\":true},"
	"\"note\":{\"type\":\"string\",\"nullable\":true},"
	"\"tags\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":2,\"items\":{\"type\":\"string\"}},"
	"\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
	"\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
	"\"template\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
	"\"x-kubernetes-preserve-unknown-fields\":true},"
	"\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\",\"default\":7}}}}"
	"}}}}";

/* The messages of the causes, joined with "; ". */
static char *messages(json_t *causes)
{
	char *out = xstrdup("");
	size_t i;
	json_t *c;

	json_array_foreach(causes, i, c)
	{
		char *next = xasprintf("%s%s%s: %s", out, i ? "; " : "", json_string_value(json_object_get(c, "field")),
				       json_string_value(json_object_get(c, "message")));

		free(out);
		out = next;
	}
	return out;
}

static void expect(const char *obj_text, const char *want)
{
	json_t *schema = parse(schema_text), *obj = parse(obj_text);
	json_t *causes = sk_crschema_validate(schema, obj);
	char *got = causes ? messages(causes) : xstrdup("");

	if (!strstr(got, want))
		fail_msg("want %s\ngot %s", want, got);
	free(got);
	json_decref(causes);
	json_decref(schema);
	json_decref(obj);
}

static void test_valid(void **state)
{
	json_t *schema = parse(schema_text);
	json_t *obj = parse("{\"apiVersion\":\"x.io/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},"
			    "\"spec\":{\"name\":\"abc\",\"replicas\":3,\"ratio\":0.5,\"port\":\"http\",\"note\":null,"
			    "\"tags\":[\"a\"],\"labels\":{\"k\":\"v\"},\"items\":[{\"a\":\"x\"}]}}");

	(void)state;
	assert_null(sk_crschema_validate(schema, obj));
	json_decref(schema);
	json_decref(obj);
}

static void test_errors(void **state)
{
	(void)state;
	expect("{\"spec\":{\"name\":\"abc\",\"replicas\":\"three\"}}",
	       "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"");
	expect("{\"spec\":{}}", "spec.name: Required value");
	expect("{\"spec\":{\"name\":\"abc\",\"replicas\":0}}",
	       "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1");
	expect("{\"spec\":{\"name\":\"abc\",\"replicas\":11}}",
	       "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10");
	expect("{\"spec\":{\"name\":\"abc\",\"ratio\":1}}",
	       "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1");
	expect("{\"spec\":{\"name\":\"a\"}}",
	       "spec.name: Invalid value: \"a\": spec.name in body should be at least 2 chars long");
	expect("{\"spec\":{\"name\":\"abcdef\"}}", "spec.name: Too long: may not be more than 5 bytes");
	expect("{\"spec\":{\"name\":\"ab1\"}}", "spec.name: Invalid value: \"ab1\": spec.name in body should match '^[a-z]+$'");
	expect("{\"spec\":{\"name\":\"ab\",\"colour\":\"pink\"}}",
	       "spec.colour: Unsupported value: \"pink\": supported values: \"red\", \"blue\"");
	expect("{\"spec\":{\"name\":\"ab\",\"port\":true}}",
	       "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"");
	expect("{\"spec\":{\"name\":\"ab\",\"colour\":null}}",
	       "spec.colour: Invalid value: \"null\": spec.colour in body must be of type string: \"null\"");
	expect("{\"spec\":{\"name\":\"ab\",\"tags\":[]}}",
	       "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items");
	expect("{\"spec\":{\"name\":\"ab\",\"tags\":[\"a\",\"b\",\"c\"]}}", "spec.tags: Too many: 3: must have at most 2 items");
	expect("{\"spec\":{\"name\":\"ab\",\"tags\":[1]}}",
	       "spec.tags[0]: Invalid value: \"integer\": spec.tags[0] in body must be of type string: \"integer\"");
	expect("{\"spec\":{\"name\":\"ab\",\"labels\":{\"k\":1}}}",
	       "spec.labels.k: Invalid value: \"integer\": spec.labels.k in body must be of type string: \"integer\"");
	expect("{\"spec\":\"x\"}", "spec: Invalid value: \"string\": spec in body must be of type object: \"string\"");
}

static void test_prune(void **state)
{
	json_t *schema = parse(schema_text);
	json_t *obj = parse("{\"apiVersion\":\"x.io/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"extra\":1,"
			    "\"spec\":{\"name\":\"ab\",\"bogus\":true,\"free\":{\"any\":{\"x\":1}},"
			    "\"labels\":{\"k\":\"v\"},\"items\":[{\"a\":\"x\",\"zz\":1}],"
			    "\"template\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"junk\":1},"
			    "\"spec\":{\"containers\":[]}}}}");
	json_t *pruned = sk_crschema_prune(schema, obj);
	json_t *want = parse("[\"extra\",\"spec.bogus\",\"spec.items[0].zz\",\"spec.template.metadata.junk\"]");
	json_t *spec = json_object_get(obj, "spec");

	(void)state;
	assert_int_equal(json_array_size(pruned), 4);
	for (size_t i = 0; i < json_array_size(want); i++) {
		int found = 0;

		for (size_t j = 0; j < json_array_size(pruned); j++)
			found |= json_equal(json_array_get(want, i), json_array_get(pruned, j));
		if (!found)
			fail_msg("not pruned: %s", json_string_value(json_array_get(want, i)));
	}
	assert_null(json_object_get(obj, "extra"));
	assert_non_null(json_object_get(obj, "metadata"));
	assert_null(json_object_get(spec, "bogus"));
	assert_non_null(json_object_get(json_object_get(json_object_get(spec, "free"), "any"), "x"));
	assert_non_null(json_object_get(json_object_get(spec, "template"), "spec"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(spec, "template"),
										 "metadata"),
							     "name")),
			    "p");
	json_decref(want);
	json_decref(pruned);
	json_decref(schema);
	json_decref(obj);
}

static void test_default(void **state)
{
	json_t *schema = parse(schema_text);
	json_t *obj = parse("{\"spec\":{\"name\":\"ab\",\"replicas\":4,\"items\":[{\"a\":\"x\"},{\"b\":2}]}}");
	json_t *spec = json_object_get(obj, "spec"), *items = json_object_get(spec, "items");

	(void)state;
	sk_crschema_default(schema, obj);
	assert_int_equal(json_integer_value(json_object_get(spec, "replicas")), 4);
	assert_string_equal(json_string_value(json_object_get(spec, "colour")), "red");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(items, 0), "b")), 7);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(items, 1), "b")), 2);
	assert_null(json_object_get(spec, "ratio"));
	json_decref(schema);
	json_decref(obj);
}

static void test_formats(void **state)
{
	static const struct {
		const char *format, *value;
		int ok;
	} cases[] = {
		{"ipv4", "192.168.0.1", 1},
		{"ipv4", "192.168.0", 0},
		{"ipv4", "192.168.00.1", 0},
		{"ipv4", "::1", 0},
		{"ipv6", "::1", 1},
		{"ipv6", "1.2.3.4", 0},
		{"cidr", "10.0.0.0/8", 1},
		{"cidr", "fd00::/64", 1},
		{"cidr", "10.0.0.0/33", 0},
		{"cidr", "10.0.0.0", 0},
		{"mac", "00:1a:2b:3c:4d:5e", 1},
		{"mac", "00-1A-2B-3C-4D-5E", 1},
		{"mac", "001a.2b3c.4d5e", 1},
		{"mac", "00:1a:2b", 0},
		{"hostname", "a.b-c.d", 1},
		{"hostname", "-a", 0},
		{"uuid", "123E4567-e89b-12d3-a456-426614174000", 1},
		{"uuid", "123e4567e89b12d3a456426614174000", 1},
		{"uuid4", "123e4567-e89b-12d3-a456-426614174000", 0},
		{"uuid4", "123e4567-e89b-42d3-a456-426614174000", 1},
		{"date", "2026-02-28", 1},
		{"date", "2026-2-28", 0},
		{"date-time", "2026-02-28T10:00:00Z", 1},
		{"date-time", "2026-02-28T10:00:00.123+01:00", 1},
		{"datetime", "2026-02-28 10:00:00", 1},
		{"date-time", "2026-02-28", 0},
		{"duration", "1h30m", 1},
		{"duration", "3 days", 1},
		{"duration", "soon", 0},
		{"byte", "aGk=", 1},
		{"byte", "aGk", 0},
		{"bsonobjectid", "507f1f77bcf86cd799439011", 1},
		{"bsonobjectid", "507f1f77", 0},
		{"email", "a@b.c", 1},
		{"email", "nobody", 0},
		{"hexcolor", "#fff", 1},
		{"hexcolor", "#ffff", 0},
		{"rgbcolor", "rgb(1, 2, 255)", 1},
		{"rgbcolor", "rgb(1,2,256)", 0},
		{"ssn", "123-45-6789", 1},
		{"creditcard", "4111 1111 1111 1111", 1},
		{"creditcard", "4111 1111 1111 1112", 0},
		{"isbn10", "0-306-40615-2", 1},
		{"isbn13", "978-0-306-40615-7", 1},
		{"isbn", "978-0-306-40615-8", 0},
		{"password", "anything", 1},
		{"no-such-format", "anything", 1},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sk__openapi_format_ok(cases[i].format, cases[i].value) != cases[i].ok)
			fail_msg("format %s, value \"%s\": want %s", cases[i].format, cases[i].value,
				 cases[i].ok ? "valid" : "invalid");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
