/* The resource metrics pipeline's pure parts: cgroup and /proc parsing
 * (captured v1 and v2 file contents), Summary parsing, metrics-server's two
 * points and rates, quantity and duration text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/api.h"
#include "api/metrics.h"
#include "client/client.h"
#include "runtime/cgroup.h"
#include "store/store.h"
#include "util/util.h"

/* memory.stat of a v1 container cgroup (hierarchical totals after the local keys) */
static const char V1_MEM_STAT[] = "cache 4096000\nrss 1310720\nrss_huge 0\nshmem 0\nmapped_file 0\n"
				  "pgfault 1900\npgmajfault 2\ninactive_anon 0\nactive_anon 1310720\n"
				  "inactive_file 3000000\nactive_file 1096000\nunevictable 0\n"
				  "hierarchical_memory_limit 67108864\ntotal_cache 4096000\ntotal_rss 1314816\n"
				  "total_pgfault 2000\ntotal_pgmajfault 3\ntotal_inactive_file 3100000\n";

static const char V2_MEM_STAT[] = "anon 1327104\nfile 4202496\nkernel_stack 16384\nsock 0\nshmem 0\n"
				  "file_mapped 0\nactive_anon 1323008\ninactive_anon 0\nactive_file 1101824\n"
				  "inactive_file 3100672\nunevictable 0\npgfault 2145\npgmajfault 1\n";

static const char V2_CPU_STAT[] = "usage_usec 123456789\nuser_usec 100000000\nsystem_usec 23456789\n"
				  "nr_periods 10\nnr_throttled 2\nthrottled_usec 5000\n";

static void test_cgroup_v1(void **state)
{
	struct sk_cgroup_usage u = {0};

	(void)state;
	sk_cgroup_parse_v1("98765432100\n", "5500000\n", V1_MEM_STAT, &u);
	assert_true(u.has_cpu && u.has_memory);
	assert_int_equal(u.cpu_usage_ns, 98765432100ull);
	assert_int_equal(u.memory_usage, 5500000);
	assert_int_equal(u.memory_working_set, 5500000 - 3100000); /* total_inactive_file wins */
	assert_int_equal(u.memory_rss, 1314816);
	assert_int_equal(u.memory_page_faults, 2000);
	assert_int_equal(u.memory_major_page_faults, 3);

	/* inactive file above usage: a working set of 0, not a wrap */
	memset(&u, 0, sizeof(u));
	sk_cgroup_parse_v1(NULL, "1000\n", "total_inactive_file 5000\n", &u);
	assert_false(u.has_cpu);
	assert_true(u.has_memory);
	assert_int_equal(u.memory_working_set, 0);

	/* absent or garbled files give nothing */
	memset(&u, 0, sizeof(u));
	sk_cgroup_parse_v1("x\n", "-5\n", NULL, &u);
	assert_false(u.has_cpu || u.has_memory);
	memset(&u, 0, sizeof(u));
	sk_cgroup_parse_v1("99999999999999999999999\n", "12abc", "", &u);
	assert_false(u.has_cpu || u.has_memory);
}

static void test_cgroup_v2(void **state)
{
	struct sk_cgroup_usage u = {0};

	(void)state;
	sk_cgroup_parse_v2(V2_CPU_STAT, "5402624\n", V2_MEM_STAT, &u);
	assert_true(u.has_cpu && u.has_memory);
	assert_int_equal(u.cpu_usage_ns, 123456789000ull);
	assert_int_equal(u.memory_usage, 5402624);
	assert_int_equal(u.memory_working_set, 5402624 - 3100672);
	assert_int_equal(u.memory_rss, 1327104);
	assert_int_equal(u.memory_page_faults, 2145);
	assert_int_equal(u.memory_major_page_faults, 1);

	/* a key that only starts like usage_usec is no match; "max" is no number */
	memset(&u, 0, sizeof(u));
	sk_cgroup_parse_v2("usage_usecs 5\n", "max\n", NULL, &u);
	assert_false(u.has_cpu || u.has_memory);
	memset(&u, 0, sizeof(u));
	sk_cgroup_parse_v2("usage_usec 99999999999999999\n", NULL, NULL, &u); /* * 1000 overflows */
	assert_false(u.has_cpu);
}

static void test_host(void **state)
{
	static const char stat[] = "cpu  100 5 50 1000 20 3 2 1 0 0\ncpu0 50 2 25 500 10 1 1 0 0 0\n"
				   "intr 1\nctxt 2\nbtime 1764900000\nprocesses 3\n";
	static const char meminfo[] = "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n"
				      "MemAvailable:    5000000 kB\nBuffers:          100000 kB\n"
				      "Inactive(file):  1000000 kB\nAnonPages:       1500000 kB\n";
	struct sk_host_usage h;

	(void)state;
	sk_host_parse(stat, meminfo, 100, &h);
	assert_true(h.u.has_cpu && h.u.has_memory);
	/* user nice system irq softirq steal: 161 ticks of 10 ms */
	assert_int_equal(h.u.cpu_usage_ns, 161ull * 10000000);
	assert_int_equal(h.memory_total, 8000000ull * 1024);
	assert_int_equal(h.u.memory_usage, 6000000ull * 1024);
	assert_int_equal(h.u.memory_working_set, 5000000ull * 1024);
	assert_int_equal(h.u.memory_rss, 1500000ull * 1024);
	assert_int_equal(h.memory_available, 5000000ull * 1024);
	assert_int_equal(h.boot_time, 1764900000);

	sk_host_parse("garbage", "MemTotal: x kB\n", 100, &h);
	assert_false(h.u.has_cpu || h.u.has_memory);
}

static const char SUMMARY[] =
	"{\"node\":{\"nodeName\":\"n1\",\"startTime\":\"2026-12-05T00:00:00Z\","
	"\"cpu\":{\"time\":\"2026-12-05T10:00:00.500000Z\",\"usageCoreNanoSeconds\":%llu},"
	"\"memory\":{\"time\":\"2026-12-05T10:00:00.500000Z\",\"workingSetBytes\":104857600}},"
	"\"pods\":[{\"podRef\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"u1\"},"
	"\"containers\":["
	"{\"name\":\"app\",\"startTime\":\"2026-12-05T09:00:00Z\",\"cpu\":{\"time\":\"%s\","
	"\"usageCoreNanoSeconds\":%llu},\"memory\":{\"time\":\"%s\",\"workingSetBytes\":4096000}},"
	"{\"name\":\"nocpu\",\"memory\":{\"workingSetBytes\":1}},"
	"{\"name\":\"app\",\"cpu\":{\"time\":\"%s\",\"usageCoreNanoSeconds\":1},"
	"\"memory\":{\"workingSetBytes\":1}}]},"
	"{\"podRef\":{\"name\":\"empty\",\"namespace\":\"default\"},\"containers\":[]},"
	"{\"podRef\":{\"namespace\":\"default\"},\"containers\":[]}]}";

static void parse(struct sk_metrics_node *n, unsigned long long node_cpu, const char *t, unsigned long long cpu)
{
	char buf[2048];
	sk_error_t err = {0};

	snprintf(buf, sizeof(buf), SUMMARY, node_cpu, t, cpu, t, t);
	assert_int_equal(sk_metrics_parse_summary(buf, strlen(buf), "n1", n, &err), 0);
}

static void test_summary_and_rates(void **state)
{
	struct sk_metrics_node a, b, c;
	uint64_t cpu;
	int64_t window;
	sk_error_t err = {0};

	(void)state;
	parse(&a, 1000000000ull, "2026-12-05T10:00:00Z", 5000000000ull);
	assert_true(a.has_node);
	assert_int_equal(a.npods, 1); /* "empty" has no container with numbers */
	assert_string_equal(a.pods[0].name, "web");
	assert_int_equal(a.pods[0].n, 1); /* nocpu dropped, the duplicate "app" too */
	assert_int_equal(a.pods[0].c[0].last.mem_ws, 4096000);
	sk_metrics_node_merge(&a, NULL, 15000000000LL);
	assert_false(a.has_prev || a.pods[0].c[0].has_prev);

	/* 15.5 s later: 7.75 s more CPU for the container, 31 s for the node */
	parse(&b, 32000000000ull, "2026-12-05T10:00:15.5Z", 12750000000ull);
	b.last.ts_ns = a.last.ts_ns + 15500000000LL;
	sk_metrics_node_merge(&b, &a, 15000000000LL);
	assert_true(b.has_prev && b.pods[0].c[0].has_prev);
	assert_int_equal(sk_metrics_usage(&b.pods[0].c[0].last, &b.pods[0].c[0].prev, &cpu, &window), 0);
	assert_int_equal(window, 15500000000LL);
	assert_int_equal(cpu, 500000000); /* 500m */
	assert_int_equal(sk_metrics_usage(&b.last, &b.prev, &cpu, &window), 0);
	assert_int_equal(cpu, 2000000000); /* 2 cores */

	/* the same point again keeps the previous one; a counter going back is no rate */
	parse(&c, 32000000000ull, "2026-12-05T10:00:15.5Z", 1000ull);
	sk_metrics_node_merge(&c, &b, 15000000000LL);
	assert_true(c.pods[0].c[0].has_prev);
	assert_int_equal(c.pods[0].c[0].prev.ts_ns, b.pods[0].c[0].prev.ts_ns);
	assert_int_equal(sk_metrics_usage(&c.pods[0].c[0].last, &c.pods[0].c[0].prev, &cpu, &window), -1);
	sk_metrics_node_release(&c);

	/* a restart (start after the last point) drops the previous point */
	parse(&c, 33000000000ull, "2026-12-05T10:00:31Z", 10ull);
	c.pods[0].c[0].last.start_ns = b.pods[0].c[0].last.ts_ns + 1;
	sk_metrics_node_merge(&c, &b, 15000000000LL);
	assert_false(c.pods[0].c[0].has_prev);
	sk_metrics_node_release(&c);

	/* a container 12 s old with a 15 s resolution: its start is the previous point */
	parse(&c, 33000000000ull, "2026-12-05T09:00:12Z", 6000000000ull);
	sk_metrics_node_merge(&c, NULL, 15000000000LL);
	assert_true(c.pods[0].c[0].has_prev);
	assert_int_equal(sk_metrics_usage(&c.pods[0].c[0].last, &c.pods[0].c[0].prev, &cpu, &window), 0);
	assert_int_equal(cpu, 500000000);
	assert_int_equal(window, 12000000000LL);
	sk_metrics_node_release(&c);

	sk_metrics_node_release(&a);
	sk_metrics_node_release(&b);
	assert_int_equal(sk_metrics_parse_summary("[1]", 3, "n1", &c, &err), -1);
	assert_non_null(strstr(err.msg, "n1"));
	sk_metrics_node_release(&c);
}

static void test_format(void **state)
{
	char b[64];

	(void)state;
	sk_metrics_format_cpu(0, b, sizeof(b));
	assert_string_equal(b, "0");
	sk_metrics_format_cpu(1500000, b, sizeof(b));
	assert_string_equal(b, "1500u");
	sk_metrics_format_cpu(250000000, b, sizeof(b));
	assert_string_equal(b, "250m");
	sk_metrics_format_cpu(2000000000, b, sizeof(b));
	assert_string_equal(b, "2");
	sk_metrics_format_cpu(123456789, b, sizeof(b));
	assert_string_equal(b, "123456789n");
	sk_metrics_format_bytes(4096000, b, sizeof(b));
	assert_string_equal(b, "4000Ki");
	sk_metrics_format_bytes(3 << 20, b, sizeof(b));
	assert_string_equal(b, "3Mi");
	sk_metrics_format_bytes(1000, b, sizeof(b));
	assert_string_equal(b, "1000");
	sk_metrics_format_bytes(1025, b, sizeof(b));
	assert_string_equal(b, "1025");
	sk_metrics_format_duration(0, b, sizeof(b));
	assert_string_equal(b, "0s");
	sk_metrics_format_duration(15002000000LL, b, sizeof(b));
	assert_string_equal(b, "15.002s");
	sk_metrics_format_duration(60500000000LL, b, sizeof(b));
	assert_string_equal(b, "1m0.5s");
	sk_metrics_format_duration(3600000000000LL, b, sizeof(b));
	assert_string_equal(b, "1h0m0s");
	sk_metrics_format_duration(500000000, b, sizeof(b));
	assert_string_equal(b, "500ms");
	sk_metrics_format_duration(1500, b, sizeof(b));
	assert_string_equal(b, "1.5\xc2\xb5s");
	sk_metrics_format_duration(-2000000000, b, sizeof(b));
	assert_string_equal(b, "-2s");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* What the HPA controller calls: the in-process client's GET of PodMetrics
 * with a selector (empty before any scrape), its errors, and the scraper's
 * start and stop over a node it cannot reach. */
static void test_inproc(void **state)
{
	char dir[64] = "/tmp/sk-metrics-XXXXXX", uri[128];
	sk_error_t err = {0};
	sk_store *store;
	sk_api *api;
	sk_client *c;
	json_t *l, *pod, *node, *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", dir);
	store = sk_store_open(uri, NULL, &err);
	assert_non_null(store);
	api = sk_api_new(store, NULL, &err);
	assert_non_null(api);
	assert_int_equal(sk_api_metrics_start(api, 20, &err), 0);
	c = sk_client_new_inproc(api);
	node = json_pack("{s:s, s:s, s:{s:s}, s:{s:[{s:s, s:s}], s:{s:{s:i}}}}", "apiVersion", "v1", "kind", "Node",
			 "metadata", "name", "n1", "status", "conditions", "type", "Ready", "status", "True",
			 "daemonEndpoints", "kubeletEndpoint", "Port", 1);
	r = sk_client_create(c, "/api/v1/nodes", node, &err);
	assert_non_null(r);
	json_decref(r);
	json_decref(node);
	pod = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[{s:s, s:s}]}}", "apiVersion", "v1", "kind", "Pod",
			"metadata", "name", "web", "labels", "app", "web", "spec", "containers", "name", "c", "image",
			"busybox");
	r = sk_client_create(c, "/api/v1/namespaces/default/pods", pod, &err);
	assert_non_null(r);
	json_decref(r);
	json_decref(pod);
	usleep(100000); /* a few scrape rounds, each failing to connect */

	l = sk_client_list(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "labelSelector=app%3Dweb", &err);
	assert_non_null(l);
	assert_string_equal(json_string_value(json_object_get(l, "kind")), "PodMetricsList");
	assert_string_equal(json_string_value(json_object_get(l, "apiVersion")), "metrics.k8s.io/v1beta1");
	assert_int_equal(json_array_size(json_object_get(l, "items")), 0);
	json_decref(l);
	l = sk_client_list(c, "/apis/metrics.k8s.io/v1beta1/nodes", NULL, &err);
	assert_non_null(l);
	assert_string_equal(json_string_value(json_object_get(l, "kind")), "NodeMetricsList");
	json_decref(l);

	assert_null(sk_client_list(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "labelSelector=a%20in",
				   &err));
	assert_int_equal(err.code, SK_EBADREQUEST);
	sk_error_clear(&err);
	assert_null(sk_client_get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web", &err));
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_non_null(strstr(err.msg, "pods.metrics.k8s.io \"default/web\" not found"));
	sk_error_clear(&err);
	assert_null(sk_client_get(c, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope", &err));
	assert_non_null(strstr(err.msg, "pods \"nope\" not found"));
	sk_error_clear(&err);

	sk_client_free(c);
	sk_api_shutdown(api);
	sk_api_free(api);
	sk_store_close(store);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_v1), cmocka_unit_test(test_cgroup_v2),
		cmocka_unit_test(test_host),      cmocka_unit_test(test_summary_and_rates),
		cmocka_unit_test(test_format),    cmocka_unit_test(test_inproc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
