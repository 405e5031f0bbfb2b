/* A pod's resolv.conf and host domain by dnsPolicy (src/agent/resolv.c), as
 * kubelet's pkg/kubelet/network/dns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/resolv.h"
#include "util/util.h"

static const char *HOST = "# the host's\n"
			  "nameserver 127.0.0.53\n"
			  "nameserver 192.0.2.1\n"
			  "search old.example\n"
			  "search corp.example. lab.example\n"
			  "options edns0 timeout:2\n";

/* "servers|searches|options", each space-separated. */
static char *render(const struct sk_pod_dns *d)
{
	json_t *parts[3] = {d->servers, d->searches, d->options};
	char *out = xstrdup("");

	for (int p = 0; p < 3; p++) {
		size_t i;
		json_t *v;

		json_array_foreach(parts[p], i, v) {
			char *n = xasprintf("%s%s%s", out, i ? " " : "", json_string_value(v));
			free(out);
			out = n;
		}
		if (p < 2) {
			char *n = xasprintf("%s|", out);
			free(out);
			out = n;
		}
	}
	return out;
}

static void check(const char *pod_json, const char *host, const char *want, const char *warning)
{
	json_t *pod = json_loads(pod_json, 0, NULL);
	struct sk_pod_dns d;
	char *got;

	assert_non_null(pod);
	sk_pod_dns_config(pod, "10.43.0.10", "cluster.local", host, &d);
	got = render(&d);
	assert_string_equal(got, want);
	if (warning)
		assert_non_null(d.warning && strstr(d.warning, warning) ? d.warning : NULL);
	else
		assert_null(d.warning);
	free(got);
	sk_pod_dns_release(&d);
	json_decref(pod);
}

static void test_policies(void **state)
{
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{}}", HOST,
	      "10.43.0.10|team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example|ndots:5",
	      NULL);
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"dnsPolicy\":\"ClusterFirst\"}}", NULL,
	      "10.43.0.10|team.svc.cluster.local svc.cluster.local cluster.local|ndots:5", NULL);
	/* a hostNetwork pod's ClusterFirst is Default; its loopback resolvers are reachable */
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"hostNetwork\":true}}", HOST,
	      "127.0.0.53 192.0.2.1|corp.example lab.example|edns0 timeout:2", NULL);
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"hostNetwork\":true,"
	      "\"dnsPolicy\":\"ClusterFirstWithHostNet\"}}",
	      HOST, "10.43.0.10|team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example|ndots:5",
	      NULL);
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"dnsPolicy\":\"Default\"}}", HOST,
	      "192.0.2.1|corp.example lab.example|edns0 timeout:2", NULL);
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"dnsPolicy\":\"None\"}}", HOST, "||", NULL);
	check("{\"metadata\":{\"namespace\":\"team\"},\"spec\":{\"dnsPolicy\":\"None\",\"dnsConfig\":{"
	      "\"nameservers\":[\"1.1.1.1\"],\"searches\":[\"x.example\"],"
	      "\"options\":[{\"name\":\"ndots\",\"value\":\"2\"},{\"name\":\"rotate\"}]}}}",
	      HOST, "1.1.1.1|x.example|ndots:2 rotate", NULL);
}

static void test_dns_config_merge(void **state)
{
	/* servers and searches appended without duplicates, options replaced by name */
	check("{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"dnsConfig\":{"
	      "\"nameservers\":[\"10.43.0.10\",\"192.0.2.9\"],\"searches\":[\"svc.cluster.local\",\"extra.example\"],"
	      "\"options\":[{\"name\":\"ndots\",\"value\":\"1\"},{\"name\":\"edns0\"}]}}}",
	      NULL, "10.43.0.10 192.0.2.9|ns.svc.cluster.local svc.cluster.local cluster.local extra.example|ndots:1 edns0",
	      NULL);
}

static void test_limits(void **state)
{
	char long_search[300];
	char *pod;

	check("{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"dnsConfig\":{"
	      "\"nameservers\":[\"192.0.2.1\",\"192.0.2.2\",\"192.0.2.3\"]}}}",
	      NULL, "10.43.0.10 192.0.2.1 192.0.2.2|ns.svc.cluster.local svc.cluster.local cluster.local|ndots:5",
	      "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: "
	      "10.43.0.10 192.0.2.1 192.0.2.2");
	memset(long_search, 'a', 260);
	long_search[260] = '\0';
	pod = xasprintf("{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"dnsConfig\":{\"searches\":[\"%s\",\"ok\"]}}}",
			long_search);
	check(pod, NULL, "10.43.0.10|ns.svc.cluster.local svc.cluster.local cluster.local ok|ndots:5",
	      "Search Line limits were exceeded, some search paths have been omitted, the applied search line is: "
	      "ns.svc.cluster.local svc.cluster.local cluster.local ok");
	free(pod);
}

static void test_host_domain(void **state)
{
	json_t *pod = json_loads("{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"subdomain\":\"workers\"}}", 0, NULL);
	char *d = sk_pod_host_domain(pod, "cluster.local");

	assert_string_equal(d, "workers.ns.svc.cluster.local");
	free(d);
	json_object_del(json_object_get(pod, "spec"), "subdomain");
	assert_null(sk_pod_host_domain(pod, "cluster.local"));
	json_decref(pod);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_dns_config_merge),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_host_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
