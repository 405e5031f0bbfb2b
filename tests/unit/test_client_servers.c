/* The servers an agent learns from default/kubernetes (client/servers.h)
 * and an HTTPS client's server list (sk_client_set_servers): the given
 * servers first, the learned ones after, a learned one dropped when it
 * leaves the Endpoints, the current server kept while listed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "client/servers.h"
#include "util/util.h"

static char *joined(json_t *arr)
{
	char *out = xstrdup("");
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		char *next = xasprintf("%s%s%s", out, i ? "," : "", json_string_value(v));

		free(out);
		out = next;
	}
	return out;
}

static void test_endpoints_urls(void **state)
{
	cleanup_json json_t *ep = json_loads(
		"{\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":\"fd00::2\"},{\"ip\":\"bad/ip\"},{}],"
		"\"ports\":[{\"name\":\"other\",\"port\":1},{\"name\":\"https\",\"port\":6443}]},"
		"{\"addresses\":[{\"ip\":\"10.0.0.3\"}],\"ports\":[{\"port\":7443}]},"
		"{\"addresses\":[{\"ip\":\"10.0.0.4\"}],\"ports\":[{\"port\":70000}]},"
		"{\"addresses\":[{\"ip\":\"10.0.0.5\"}]}]}",
		0, NULL);
	cleanup_json json_t *urls = sk_endpoints_server_urls(ep), *none = sk_endpoints_server_urls(NULL);
	cleanup_free char *s = joined(urls);

	assert_string_equal(s, "https://10.0.0.1:6443,https://[fd00::2]:6443,https://10.0.0.3:7443");
	assert_int_equal(json_array_size(none), 0);
}

static void test_set_servers(void **state)
{
	sk_error_t err = {0};
	sk_client *c = sk_client_new_http("https://a:1,https://b:2/", "t", NULL, &err);
	cleanup_json json_t *learned = json_pack("[s, s, s, s]", "https://c:3", "https://a:1", "http://plain:4",
						 "https://d:4");
	cleanup_json json_t *fewer = json_pack("[s]", "https://d:4");
	cleanup_json json_t *l1 = NULL, *l2 = NULL, *l3 = NULL;
	cleanup_free char *s1 = NULL, *s2 = NULL, *s3 = NULL;

	assert_non_null(c);
	sk_client_set_servers(c, learned);
	l1 = sk_client_servers(c);
	s1 = joined(l1);
	assert_string_equal(s1, "https://a:1,https://b:2,https://c:3,https://d:4");
	sk_client_set_servers(c, fewer);
	l2 = sk_client_servers(c);
	s2 = joined(l2);
	assert_string_equal(s2, "https://a:1,https://b:2,https://d:4");
	sk_client_set_servers(c, NULL);
	l3 = sk_client_servers(c);
	s3 = joined(l3);
	assert_string_equal(s3, "https://a:1,https://b:2");
	sk_client_free(c);
	sk_client_set_servers(NULL, learned); /* no client, or another transport: nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoints_urls),
		cmocka_unit_test(test_set_servers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
