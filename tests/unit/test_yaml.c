/* util/yaml.c (YAML documents as jansson values) and the kubeconfig reader
 * of the HTTP client built on it: contexts, clusters and users picked as
 * clientcmd picks them, tokens and client certificates, errors that name
 * what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "util/util.h"
#include "util/yaml.h"

static json_t *load(const char *s, sk_error_t *err) { return sk_yaml_load(s, strlen(s), err); }

static void test_scalars_get_their_types(void **state)
{
	sk_error_t err = {0};
	json_t *v = load("a: 12\nb: -3\nc: \"12\"\nd: true\ne: 'false'\nf: ~\ng:\nh: 1.5\ni: [x, 2]\n", &err);

	(void)state;
	assert_non_null(v);
	assert_int_equal(json_integer_value(json_object_get(v, "a")), 12);
	assert_int_equal(json_integer_value(json_object_get(v, "b")), -3);
	assert_string_equal(json_string_value(json_object_get(v, "c")), "12");
	assert_true(json_is_true(json_object_get(v, "d")));
	assert_string_equal(json_string_value(json_object_get(v, "e")), "false");
	assert_true(json_is_null(json_object_get(v, "f")));
	assert_true(json_is_null(json_object_get(v, "g")));
	assert_string_equal(json_string_value(json_object_get(v, "h")), "1.5");
	assert_int_equal(json_array_size(json_object_get(v, "i")), 2);
	json_decref(v);
	/* JSON is YAML */
	v = load("{\"k\": [1, {\"x\": null}]}", &err);
	assert_non_null(v);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(v, "k"), 0)), 1);
	json_decref(v);
}

static void test_bad_documents_are_errors(void **state)
{
	sk_error_t err = {0};
	char deep[400];

	(void)state;
	assert_null(load("a: &x [1]\nb: *x\n", &err));
	assert_non_null(strstr(err.msg, "aliases are not supported"));
	sk_error_clear(&err);
	assert_null(load("a: [1, 2\n", &err));
	assert_non_null(strstr(err.msg, "line "));
	sk_error_clear(&err);
	assert_null(load("", &err));
	sk_error_clear(&err);
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	assert_null(load(deep, &err));
	sk_error_clear(&err);
	assert_null(load("? [a]\n: b\n", &err));
	assert_non_null(strstr(err.msg, "a key is not a string"));
}

static char *write_tmp(const char *text)
{
	char tmpl[] = "/tmp/skiff-test-kc-XXXXXX";
	int fd = mkstemp(tmpl);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return xstrdup(tmpl);
}

/* "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n" */
#define CA_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="

static void test_kubeconfig_current_context(void **state)
{
	static const char kc[] = "apiVersion: v1\n"
				 "kind: Config\n"
				 "current-context: b\n"
				 "clusters:\n"
				 "- name: one\n"
				 "  cluster: {server: \"https://127.0.0.1:1\"}\n"
				 "- name: two\n"
				 "  cluster:\n"
				 "    server: https://127.0.0.1:2\n"
				 "    certificate-authority-data: " CA_B64 "\n"
				 "contexts:\n"
				 "- {name: a, context: {cluster: one, user: u1}}\n"
				 "- name: b\n"
				 "  context:\n"
				 "    cluster: two\n"
				 "    user: u2\n"
				 "users:\n"
				 "- {name: u1, user: {token: t1}}\n"
				 "- name: u2\n"
				 "  user:\n"
				 "    token: t2\n";
	cleanup_free char *path = write_tmp(kc), *ca = NULL;
	sk_error_t err = {0};
	sk_client *c = sk_client_new_kubeconfig(path, &err);

	(void)state;
	assert_non_null(c);
	ca = sk_client_ca_pem(c);
	assert_non_null(ca);
	assert_non_null(strstr(ca, "BEGIN CERTIFICATE"));
	sk_client_free(c);
	unlink(path);
}

static void test_kubeconfig_errors_name_the_problem(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"current-context: x\ncontexts: []\n", "no context \"x\""},
		{"current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\n", "no cluster server"},
		{"current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\n"
		 "clusters:\n- {name: c, cluster: {server: 'https://h:1'}}\nusers:\n- {name: u, user: {}}\n",
		 "no token and no client certificate"},
		{"current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\n"
		 "clusters:\n- {name: c, cluster: {server: 'https://h:1', certificate-authority-data: '%%%'}}\n"
		 "users:\n- {name: u, user: {token: t}}\n",
		 "bad certificate-authority-data"},
		{"- just\n- a list\n", "not a mapping"},
		{"a: [\n", "line "},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_free char *path = write_tmp(cases[i].text);
		sk_error_t err = {0};

		assert_null(sk_client_new_kubeconfig(path, &err));
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.msg, cases[i].want);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars_get_their_types),
		cmocka_unit_test(test_bad_documents_are_errors),
		cmocka_unit_test(test_kubeconfig_current_context),
		cmocka_unit_test(test_kubeconfig_errors_name_the_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
