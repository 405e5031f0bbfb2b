/* LimitRange's defaulting and validation (src/api/limitrange.c) through
 * the kind descriptor's ops, against upstream's SetDefaults_LimitRangeItem
 * and ValidateLimitRange. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "util/util.h"

static json_t *J(const char *text)
{
	char *s = xstrdup(text);
	json_error_t je;
	json_t *j;

	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	j = json_loads(s, 0, &je);
	free(s);
	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

static const sk_api_resource *lr(void)
{
	const sk_api_resource *r = sk__resource_find("", "v1", "limitranges");

	assert_non_null(r);
	assert_non_null(r->ops);
	return r;
}

/* The LimitRange with spec.limits = items, defaulted. */
static json_t *limitrange(const char *items)
{
	char *text = xasprintf("{'apiVersion':'v1','kind':'LimitRange','metadata':{'name':'l','namespace':'d'},"
			       "'spec':{'limits':%s}}",
			       items);
	json_t *o = J(text);

	free(text);
	lr()->ops->defaults(lr(), o);
	return o;
}

/* The causes' "field: message" lines joined by "\n" (caller frees), or NULL when valid. */
static char *causes(json_t *o)
{
	cleanup_json json_t *c = lr()->ops->validate(lr(), o, NULL, 0);
	char *out = NULL;
	json_t *v;
	size_t i;

	json_array_foreach(c, i, v) {
		char *n = xasprintf("%s%s%s: %s", out ? out : "", out ? "\n" : "",
				    json_string_value(json_object_get(v, "field")),
				    json_string_value(json_object_get(v, "message")));

		free(out);
		out = n;
	}
	return out;
}

static void test_defaults(void **state)
{
	cleanup_json json_t *o = limitrange(
		"[{'type':'Container','max':{'cpu':'2','memory':'1Gi'},'min':{'cpu':'100m','memory':'1Mi'},"
		"'default':{'memory':'512Mi'}},{'type':'Pod','max':{'cpu':'4'}}]");
	json_t *c = json_array_get(json_object_get(json_object_get(o, "spec"), "limits"), 0);
	json_t *p = json_array_get(json_object_get(json_object_get(o, "spec"), "limits"), 1);
	cleanup_json json_t *want_def = J("{'memory':'512Mi','cpu':'2'}");
	cleanup_json json_t *want_req = J("{'memory':'512Mi','cpu':'2'}");

	/* default limit from max, default request from the default limit (not from min) */
	assert_true(json_equal(json_object_get(c, "default"), want_def));
	assert_true(json_equal(json_object_get(c, "defaultRequest"), want_req));
	assert_null(json_object_get(p, "default"));
	assert_null(causes(o));
}

static void test_order_relations(void **state)
{
	cleanup_json json_t *o = limitrange("[{'type':'Container','min':{'cpu':'2'},'max':{'cpu':'1'},"
					    "'maxLimitRequestRatio':{'memory':'500m'}}]");
	cleanup_free char *msg = causes(o);

	assert_non_null(msg);
	assert_non_null(
		strstr(msg, "spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is greater than max value 1"));
	assert_non_null(strstr(msg, "spec.limits[0].defaultRequest[cpu]: Invalid value: 1: min value 2 is greater "
				    "than default request value 1"));
	assert_non_null(strstr(msg, "spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: 500m: ratio 500m is "
				    "less than 1"));
}

static void test_type_rules(void **state)
{
	cleanup_json json_t *o = limitrange("[{'type':'Pod','default':{'cpu':'1'}},{'type':'PersistentVolumeClaim'},"
					    "{'type':'Pod'},{'type':'Container','max':{'bogus':'1'}},"
					    "{'type':'Foo','default':{'example.com/gpu':'2'},"
					    "'defaultRequest':{'example.com/gpu':'1'}}]");
	cleanup_free char *msg = causes(o);

	assert_non_null(msg);
	assert_non_null(strstr(msg, "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"));
	assert_non_null(strstr(
		msg, "spec.limits[1].limits: Required value: either minimum or maximum storage value is required"));
	assert_non_null(strstr(msg, "spec.limits[2].type: Duplicate value: \"Pod\""));
	assert_non_null(strstr(msg, "spec.limits[3].max[bogus]: Invalid value: \"bogus\": must be a standard resource "
				    "for containers"));
	assert_non_null(strstr(msg, "default value 2 must equal to defaultRequest value 1 in example.com/gpu"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_order_relations),
		cmocka_unit_test(test_type_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
