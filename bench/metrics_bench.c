/* Metrics costs: an API server /metrics scrape with N stored objects
 * (through sk_api_handle, as an HTTPS scrape is handled, without TLS), an
 * agent /metrics scrape with P pods (a node agent's registry and collector
 * over pods given as API objects, no containers), and the per-request cost
 * of the request metrics on the hot path (what every request pays).
 * Usage: metrics_bench [objects] [pods] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent-int.h"
#include "api/api-int.h"
#include "api/prometheus.h"
#include "util/metrics.h"
#include "util/util.h"

static sk_api *api;
static int per_thread;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *creator(void *arg)
{
	long id = (long)arg;
	sk_client *c = sk_client_new_inproc(api);

	for (int i = 0; i < per_thread; i++) {
		sk_error_t err = {0};
		char name[64];
		json_t *cm = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
				       "metadata", "name", "", "data", "k", "v");
		json_t *out;

		snprintf(name, sizeof(name), "cm-%ld-%d", id, i);
		json_object_set_new(json_object_get(cm, "metadata"), "name", json_string(name));
		out = sk_client_create(c, "/api/v1/namespaces/default/configmaps", cm, &err);
		if (!out)
			fprintf(stderr, "create: %s\n", err.msg);
		json_decref(out);
		json_decref(cm);
	}
	sk_client_free(c);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ms: wall times, cpu: the scraping thread's CPU times */
static void report(const char *what, double *ms, double *cpu, int n, size_t bytes)
{
	qsort(ms, (size_t)n, sizeof(double), cmp_double);
	qsort(cpu, (size_t)n, sizeof(double), cmp_double);
	printf("%s: median %.2f ms (CPU %.2f ms), max %.2f ms over %d scrapes, %zu bytes\n", what, ms[n / 2],
	       cpu[n / 2], ms[n - 1], n, bytes);
}

static void api_scrapes(int objects)
{
	static const char *const groups[] = {SK_GROUP_MASTERS, NULL};
	sk_user *admin = sk_user_new("system:admin", "", groups);
	double ms[21], cpu[21];
	size_t bytes = 0;
	pthread_t t[4];

	per_thread = objects / 4;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, creator, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int om = 0; om < 2; om++) {
		for (int i = 0; i < 21; i++) {
			sk_api_request req = {.method = "GET",
					      .path = "/metrics",
					      .user = admin,
					      .accept = om ? "application/openmetrics-text" : NULL};
			sk_api_response resp;
			int64_t t0 = sk_mono_ns();
			double c0 = cpu_ns();

			sk_api_handle(api, &req, &resp);
			ms[i] = (double)(sk_mono_ns() - t0) / 1e6;
			cpu[i] = (cpu_ns() - c0) / 1e6;
			bytes = resp.len;
			if (resp.status != 200)
				fprintf(stderr, "scrape: %d\n", resp.status);
			sk_api_response_release(&resp);
		}
		report(om ? "api scrape (OpenMetrics)" : "api scrape (text)", ms, cpu, 21, bytes);
	}
	sk_user_free(admin);
}

/* An agent with pods as the API shows them (two containers each, one
 * restarted), its registry and collector, no runtime. */
static void agent_scrapes(int npods)
{
	struct sk_agent *a = xzalloc(sizeof(*a));
	double ms[21], cpu[21];
	size_t bytes = 0;

	pthread_mutex_init(&a->mu, NULL);
	a->data_dir = xstrdup("/tmp");
	a->pods = xzalloc((size_t)npods * sizeof(*a->pods));
	for (int i = 0; i < npods; i++) {
		struct apod *p = xzalloc(sizeof(*p));

		p->ns = xstrdup("default");
		p->name = xasprintf("pod-%d", i);
		p->pod = json_pack("{s:{s:s, s:[{s:s, s:i, s:{s:{}}}, {s:s, s:i, s:{s:{}}, s:{s:{s:s, s:i}}}]}}",
				   "status", "phase", "Running", "containerStatuses", "name", "app", "restartCount", 0,
				   "state", "running", "name", "sidecar", "restartCount", 3, "state", "running",
				   "lastState", "terminated", "reason", "OOMKilled", "exitCode", 137);
		a->pods[a->npods++] = p;
	}
	sk__ag_metrics_init(a);
	for (int i = 0; i < 10; i++)
		sk__ag_metrics_pull(a, 1500000000LL, 5 << 20, 5 << 20, true);
	for (int i = 0; i < 21; i++) {
		const char *ctype;
		int64_t t0 = sk_mono_ns();
		double c0 = cpu_ns();
		char *text = sk__ag_metrics_expose(a, NULL, &bytes, &ctype);

		ms[i] = (double)(sk_mono_ns() - t0) / 1e6;
		cpu[i] = (cpu_ns() - c0) / 1e6;
		free(text);
	}
	report("agent scrape (text)", ms, cpu, 21, bytes);
	sk__ag_metrics_free(a);
	for (size_t i = 0; i < a->npods; i++) {
		json_decref(a->pods[i]->pod);
		free(a->pods[i]->ns);
		free(a->pods[i]->name);
		free(a->pods[i]);
	}
	free(a->pods);
	free(a->data_dir);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

enum { HOT_N = 1000000 };

/* What sk_api_handle adds per request: the in-flight count, the counter,
 * the histogram (and a store call's histogram), label lookups included. */
static void *hot(void *arg)
{
	static const char *const ev[] = {"get", "configmaps"};
	sk_api_request req = {.method = "GET", .path = "/api/v1/namespaces/default/configmaps/x"};
	sk_api_response resp = {.status = 200};
	sk__req_info ri = {.res = arg, .named = 1, .namespaced = 1};

	sk_metric_family *etcd = sk_metrics_family(sk_metrics_default(), SK_METRIC_HISTOGRAM,
						   "etcd_request_duration_seconds", "", NULL, NULL, NULL, 0);
	double c0 = cpu_ns();

	for (int i = 0; i < HOT_N; i++) {
		int64_t t0 = sk_mono_ns();

		sk__prom_request_begin(&req);
		sk_metric_observe(etcd, ev, 0.00001);
		sk__prom_request_end(&req, &ri, &resp, t0);
	}
	return (void *)(intptr_t)((cpu_ns() - c0) / HOT_N * 1000); /* ps per request, to fit a pointer */
}

static void hot_path(void)
{
	const sk_api_resource *cm = sk__resource_find("", "v1", "configmaps");
	pthread_t t[2];
	void *r[2];

	pthread_create(&t[0], NULL, hot, (void *)cm);
	pthread_join(t[0], &r[0]);
	printf("request metrics, 1 thread: %.0f ns CPU per request\n", (double)(intptr_t)r[0] / 1000);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hot, (void *)cm);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	printf("request metrics, 2 threads: %.0f, %.0f ns CPU per request\n", (double)(intptr_t)r[0] / 1000,
	       (double)(intptr_t)r[1] / 1000);
}

int main(int argc, char **argv)
{
	int objects = argc > 1 ? atoi(argv[1]) : 10000, pods = argc > 2 ? atoi(argv[2]) : 100;
	char dir[] = "/tmp/skiff-metrics-bench-XXXXXX";
	sk_error_t err = {0};
	sk_store *st;
	char *uri;

	if (!mkdtemp(dir))
		return 1;
	uri = xasprintf("sqlite://%s", dir);
	st = sk_store_open(uri, NULL, &err);
	if (!st || !(api = sk_api_new(st, NULL, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	api_scrapes(objects);
	agent_scrapes(pods);
	hot_path();
	sk_api_free(api);
	sk_store_close(st);
	free(uri);
	return 0;
}
