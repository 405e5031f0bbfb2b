#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/metrics.h"
#include "util/util.h"

static char *expose(sk_metrics *m, int om)
{
	size_t len;
	char *s = sk_metrics_expose(m, om, &len);

	assert_int_equal(len, strlen(s));
	return s;
}

static void test_counter_gauge_text(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"verb", "code", NULL};
	sk_metric_family *c = sk_metrics_family(m, SK_METRIC_COUNTER, "apiserver_request_total",
						"Counter of apiserver requests.", NULL, labels, NULL, 0);
	sk_metric_family *g = sk_metrics_family(m, SK_METRIC_GAUGE, "up_gauge", "A gauge.", NULL, NULL, NULL, 0);
	const char *v1[] = {"GET", "200"}, *v2[] = {"POST", "201"};
	char *s;

	/* registering again gives the same family */
	assert_ptr_equal(
		c, sk_metrics_family(m, SK_METRIC_COUNTER, "apiserver_request_total", "x", NULL, labels, NULL, 0));
	s = expose(m, 0);
	assert_string_equal(s, ""); /* families without series are not written */
	free(s);
	sk_metric_add(c, v2, 1);
	sk_metric_add(c, v1, 1);
	sk_metric_add(c, v1, 2);
	sk_metric_add(c, v1, -5); /* ignored: counters only go up */
	sk_metric_set(g, NULL, 0.25);
	sk_metric_set(c, v1, -1); /* ignored: a counter is never negative */
	assert_true(sk_metric_value(c, v1) == 3);
	s = expose(m, 0);
	assert_string_equal(s, "# HELP apiserver_request_total Counter of apiserver requests.\n"
			       "# TYPE apiserver_request_total counter\n"
			       "apiserver_request_total{verb=\"GET\",code=\"200\"} 3\n"
			       "apiserver_request_total{verb=\"POST\",code=\"201\"} 1\n"
			       "# HELP up_gauge A gauge.\n"
			       "# TYPE up_gauge gauge\n"
			       "up_gauge 0.25\n");
	free(s);
	sk_metrics_free(m);
}

/* A value read before the scrape carries its time: milliseconds in the text
 * format, seconds in OpenMetrics; a plain set drops it again. */
static void test_timestamps(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"pod", NULL};
	sk_metric_family *c = sk_metrics_family(m, SK_METRIC_COUNTER, "pod_cpu_usage_seconds_total", "CPU.", NULL,
						labels, NULL, 0);
	const char *a[] = {"a"}, *b[] = {"b"};
	char *s;

	sk_metric_set_at(c, a, 1.5, 1733400000123LL);
	sk_metric_set(c, b, 2);
	s = expose(m, 0);
	assert_string_equal(s, "# HELP pod_cpu_usage_seconds_total CPU.\n"
			       "# TYPE pod_cpu_usage_seconds_total counter\n"
			       "pod_cpu_usage_seconds_total{pod=\"a\"} 1.5 1733400000123\n"
			       "pod_cpu_usage_seconds_total{pod=\"b\"} 2\n");
	free(s);
	s = expose(m, 1);
	assert_non_null(strstr(s, "pod_cpu_usage_seconds_total{pod=\"a\"} 1.5 1733400000.123\n"));
	free(s);
	sk_metric_set(c, a, 3);
	s = expose(m, 0);
	assert_non_null(strstr(s, "pod_cpu_usage_seconds_total{pod=\"a\"} 3\n"));
	free(s);
	sk_metrics_free(m);
}

static void test_escaping_and_numbers(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"path", NULL};
	sk_metric_family *g = sk_metrics_family(m, SK_METRIC_GAUGE, "odd", "Help with \\ and\nnewline and \"quotes\".",
						NULL, labels, NULL, 0);
	char *s;

	sk_metric_set1(g, "a\\b\"c\nd", 1e21);
	sk_metric_set1(g, "inf", INFINITY);
	sk_metric_set1(g, "ninf", -INFINITY);
	sk_metric_set1(g, "nan", NAN);
	sk_metric_set1(g, "small", 0.1);
	sk_metric_set1(g, "neg", -3);
	s = expose(m, 0);
	assert_string_equal(s, "# HELP odd Help with \\\\ and\\nnewline and \"quotes\".\n"
			       "# TYPE odd gauge\n"
			       "odd{path=\"a\\\\b\\\"c\\nd\"} 1e+21\n"
			       "odd{path=\"inf\"} +Inf\n"
			       "odd{path=\"nan\"} NaN\n"
			       "odd{path=\"neg\"} -3\n"
			       "odd{path=\"ninf\"} -Inf\n"
			       "odd{path=\"small\"} 0.1\n");
	free(s);
	s = expose(m, 1);
	/* OpenMetrics escapes quotes in HELP too */
	assert_non_null(strstr(s, "# HELP odd Help with \\\\ and\\nnewline and \\\"quotes\\\".\n"));
	free(s);
	sk_metrics_free(m);
}

static void test_histogram_buckets(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"verb", NULL};
	static const double b[] = {0.1, 0.5, 1};
	sk_metric_family *h = sk_metrics_family(m, SK_METRIC_HISTOGRAM, "req_duration_seconds", "Latency.", "seconds",
						labels, b, 3);
	const char *v[] = {"GET"};
	char *s;

	sk_metric_observe(h, v, 0.05);
	sk_metric_observe(h, v, 0.1); /* upper bounds are inclusive */
	sk_metric_observe(h, v, 0.7);
	sk_metric_observe(h, v, 30);
	sk_metric_observe(h, v, NAN); /* ignored */
	assert_true(sk_metric_value(h, v) == 4);
	s = expose(m, 0);
	assert_string_equal(s, "# HELP req_duration_seconds Latency.\n"
			       "# TYPE req_duration_seconds histogram\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"0.1\"} 2\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"0.5\"} 2\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"1\"} 3\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n"
			       "req_duration_seconds_sum{verb=\"GET\"} 30.85\n"
			       "req_duration_seconds_count{verb=\"GET\"} 4\n");
	free(s);
	s = expose(m, 1);
	assert_string_equal(s, "# HELP req_duration_seconds Latency.\n"
			       "# TYPE req_duration_seconds histogram\n"
			       "# UNIT req_duration_seconds seconds\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"0.1\"} 2\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"0.5\"} 2\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"1\"} 3\n"
			       "req_duration_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n"
			       "req_duration_seconds_sum{verb=\"GET\"} 30.85\n"
			       "req_duration_seconds_count{verb=\"GET\"} 4\n"
			       "# EOF\n");
	free(s);
	sk_metrics_free(m);
}

static void test_upstream_buckets(void **state)
{
	(void)state;
	assert_int_equal(sk_metric_buckets_apiserver_request_n, 23);
	assert_true(sk_metric_buckets_apiserver_request[0] == 0.005);
	assert_true(sk_metric_buckets_apiserver_request[22] == 60);
	assert_int_equal(sk_metric_buckets_default_n, 11);
	assert_int_equal(sk_metric_buckets_workqueue_n, 10);
	assert_true(sk_metric_buckets_workqueue[9] == 10);
	assert_int_equal(sk_metric_buckets_scheduler_attempt_n, 15);
	assert_true(sk_metric_buckets_scheduler_attempt[14] == 16.384);
}

static void test_openmetrics_counter_naming(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	sk_metric_family *c = sk_metrics_family(m, SK_METRIC_COUNTER, "process_cpu_seconds_total", "CPU.", "seconds",
						NULL, NULL, 0);
	sk_metric_family *u = sk_metrics_family(m, SK_METRIC_GAUGE, "process_open_fds", "Fds.", "seconds", NULL, NULL,
						0); /* unit not a suffix: no # UNIT */
	char *s;

	sk_metric_add(c, NULL, 1.5);
	sk_metric_set(u, NULL, 7);
	s = expose(m, 1);
	assert_string_equal(s, "# HELP process_cpu_seconds CPU.\n"
			       "# TYPE process_cpu_seconds counter\n"
			       "# UNIT process_cpu_seconds seconds\n"
			       "process_cpu_seconds_total 1.5\n"
			       "# HELP process_open_fds Fds.\n"
			       "# TYPE process_open_fds gauge\n"
			       "process_open_fds 7\n"
			       "# EOF\n");
	free(s);
	s = expose(m, 0);
	assert_string_equal(s, "# HELP process_cpu_seconds_total CPU.\n"
			       "# TYPE process_cpu_seconds_total counter\n"
			       "process_cpu_seconds_total 1.5\n"
			       "# HELP process_open_fds Fds.\n"
			       "# TYPE process_open_fds gauge\n"
			       "process_open_fds 7\n");
	free(s);
	assert_true(sk_metrics_wants_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"));
	assert_false(sk_metrics_wants_openmetrics("text/plain"));
	assert_false(sk_metrics_wants_openmetrics(NULL));
	sk_metrics_free(m);
}

static void test_removal(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"namespace", "pod", "container", NULL};
	sk_metric_family *g = sk_metrics_family(m, SK_METRIC_GAUGE, "restarts", "R.", NULL, labels, NULL, 0);
	const char *a1[] = {"ns", "a", "c1"}, *a2[] = {"ns", "a", "c2"}, *b1[] = {"ns", "b", "c1"};
	char *s;

	sk_metric_set(g, a1, 1);
	sk_metric_set(g, a2, 2);
	sk_metric_set(g, b1, 3);
	assert_int_equal(sk_metric_remove_matching(g, "pod", "a"), 2);
	assert_int_equal(sk_metric_remove_matching(g, "nolabel", "a"), 0);
	s = expose(m, 0);
	assert_null(strstr(s, "pod=\"a\""));
	assert_non_null(strstr(s, "restarts{namespace=\"ns\",pod=\"b\",container=\"c1\"} 3\n"));
	free(s);
	assert_int_equal(sk_metric_remove(g, b1), 1);
	assert_int_equal(sk_metric_remove(g, b1), 0);
	s = expose(m, 0);
	assert_string_equal(s, "");
	free(s);
	sk_metric_set(g, a1, 4);
	sk_metric_clear(g);
	assert_true(sk_metric_value(g, a1) == 0);
	sk_metrics_free(m);
}

static void collect(void *arg)
{
	sk_metric_family *g = arg;

	sk_metric_set(g, NULL, sk_metric_value(g, NULL) + 1);
}

static void test_collectors(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	sk_metric_family *g = sk_metrics_family(m, SK_METRIC_GAUGE, "scrapes", "S.", NULL, NULL, NULL, 0);
	int id = sk_metrics_add_collector(m, collect, g);
	char *s;

	assert_true(id > 0);
	free(expose(m, 0));
	s = expose(m, 0);
	assert_non_null(strstr(s, "scrapes 2\n"));
	free(s);
	sk_metrics_remove_collector(m, id);
	s = expose(m, 0);
	assert_non_null(strstr(s, "scrapes 2\n"));
	free(s);
	sk_metrics_free(m);
}

static sk_metric_family *race_fam;

static void *hammer(void *arg)
{
	const char *v[] = {arg};

	for (int i = 0; i < 20000; i++) {
		sk_metric_add(race_fam, v, 1);
		if (i % 1000 == 0)
			sk_metric_remove(race_fam, v);
	}
	return NULL;
}

/* Concurrent adds and removals: no lost update between removals and no
 * use after free (ASan). */
static void test_concurrency(void **state)
{
	(void)state;
	sk_metrics *m = sk_metrics_new();
	static const char *const labels[] = {"t", NULL};
	pthread_t th[4];
	const char *names[] = {"a", "b", "c", "a"};
	char *s;

	race_fam = sk_metrics_family(m, SK_METRIC_COUNTER, "hits_total", "H.", NULL, labels, NULL, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer, (void *)names[i]);
	for (int i = 0; i < 200; i++)
		free(expose(m, i & 1));
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	s = expose(m, 0);
	assert_non_null(strstr(s, "hits_total{t=\"b\"} 999\n"));
	free(s);
	sk_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_gauge_text),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_escaping_and_numbers),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_upstream_buckets),
		cmocka_unit_test(test_openmetrics_counter_naming),
		cmocka_unit_test(test_removal),
		cmocka_unit_test(test_collectors),
		cmocka_unit_test(test_concurrency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
