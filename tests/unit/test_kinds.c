#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "util/util.h"

static sk_api_resource tmpl(const char *version, const char *plural, const char *kind)
{
	sk_api_resource t = {0};

	t.group = "unit.skiff.test";
	t.version = version;
	t.plural = plural;
	t.singular = "s";
	t.kind = kind;
	t.namespaced = 1;
	t.store = "unit.skiff.test/things";
	t.list_kind = "ThingList";
	return t;
}

static void test_builtin_and_custom(void **state)
{
	sk_api_resource t = tmpl("v1", "things", "Thing");
	const sk_api_resource *a, *b, *v[1];
	size_t n0 = sk__kinds()->n;

	(void)state;
	assert_int_equal(n0, sk__kinds_builtin()->n);
	assert_non_null(sk__resource_find("apps", "v1", "deployments"));
	assert_null(sk__resource_find("unit.skiff.test", "v1", "things"));
	a = sk__kind_intern(&t);
	b = sk__kind_intern(&t);
	assert_ptr_equal(a, b);
	assert_true(a->custom);
	assert_ptr_not_equal(a->plural, t.plural); /* copied */
	v[0] = a;
	sk__kinds_set_custom(v, 1);
	assert_int_equal(sk__kinds()->n, n0 + 1);
	assert_ptr_equal(sk__resource_find("unit.skiff.test", "v1", "things"), a);
	assert_ptr_equal(sk__resource_by_kind("unit.skiff.test", "Thing"), a);
	{
		char buf[64];

		assert_string_equal(sk__resource_list_kind(a, buf, sizeof(buf)), "ThingList");
		assert_string_equal(sk__resource_list_kind(sk__resource_find("", "v1", "pods"), buf, sizeof(buf)),
				    "PodList");
	}
	t.kind = "Other";
	assert_ptr_not_equal(sk__kind_intern(&t), a);
	sk__kinds_set_custom(NULL, 0);
	assert_null(sk__resource_find("unit.skiff.test", "v1", "things"));
	assert_int_equal(a->namespaced, 1); /* still valid */
}

static void test_custom_spec(void **state)
{
	sk_api_resource t = tmpl("v2", "things", "Thing");
	const sk_api_resource *a = sk__kind_intern(&t);
	json_t *s = json_pack("{s:s}", "crd", "x"), *got;

	(void)state;
	assert_null(sk__kind_custom_spec(a));
	sk__kind_custom_set_spec(a, s);
	json_decref(s);
	got = sk__kind_custom_spec(a);
	assert_string_equal(json_string_value(json_object_get(got, "crd")), "x");
	sk__kind_custom_set_spec(a, NULL);
	assert_string_equal(json_string_value(json_object_get(got, "crd")), "x"); /* our reference holds */
	json_decref(got);
	assert_null(sk__kind_custom_spec(sk__kinds_builtin()->v[0]));
}

static volatile int stop;

static void *reader(void *arg)
{
	long found = 0;

	(void)arg;
	while (!stop) {
		const sk_api_resource *r = sk__resource_find("unit.skiff.test", "v3", "things");

		if (r) {
			json_t *s = sk__kind_custom_spec(r);

			found += r->namespaced + (s != NULL);
			json_decref(s);
		}
		assert_non_null(sk__resource_find("", "v1", "pods"));
	}
	return (void *)found;
}

/* Readers walk snapshots while a writer swaps them and replaces the
 * custom spec (ASan reports any use after free). */
static void test_concurrent_swaps(void **state)
{
	sk_api_resource t = tmpl("v3", "things", "Thing");
	const sk_api_resource *a = sk__kind_intern(&t), *v[1] = {a};
	pthread_t th[3];

	(void)state;
	stop = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	for (int i = 0; i < 2000; i++) {
		json_t *s = json_pack("{s:i}", "n", i);

		sk__kind_custom_set_spec(a, s);
		json_decref(s);
		sk__kinds_set_custom(i % 2 ? v : NULL, i % 2 ? 1 : 0);
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	sk__kinds_set_custom(NULL, 0);
	sk__kind_custom_set_spec(a, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_and_custom),
		cmocka_unit_test(test_custom_spec),
		cmocka_unit_test(test_concurrent_swaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
