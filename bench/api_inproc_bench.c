/* The API server's request path without HTTP: pod creates and GETs through
 * the in-process client (same validation, defaulting, admission and store
 * as HTTPS), to separate the API's own cost from TLS and HTTP.
 * Usage: api_inproc_bench [threads] [creates] */
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api/api.h"
#include "util/util.h"

static sk_api *api;
static int per_thread;

static double now_s(void)
{
	return sk_mono_ns() / 1e9;
}

static void *creator(void *arg)
{
	long id = (long)arg;
	sk_client *c = sk_client_new_inproc(api);

	for (int i = 0; i < per_thread; i++) {
		sk_error_t err = {0};
		json_t *pod = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[{s:s, s:s}]}}", "apiVersion", "v1", "kind",
					"Pod", "metadata", "name", "", "labels", "app", "bench", "spec", "containers",
					"name", "c", "image", "busybox:1.36");
		char name[64];
		json_t *out;

		snprintf(name, sizeof(name), "p-%ld-%d", id, i);
		json_object_set_new(json_object_get(pod, "metadata"), "name", json_string(name));
		out = sk_client_create(c, "/api/v1/namespaces/default/pods", pod, &err);
		if (!out)
			fprintf(stderr, "create: %s\n", err.msg);
		json_decref(out);
		json_decref(pod);
	}
	sk_client_free(c);
	return NULL;
}

static void *getter(void *arg)
{
	long id = (long)arg;
	sk_client *c = sk_client_new_inproc(api);

	for (int i = 0; i < per_thread; i++) {
		sk_error_t err = {0};
		char path[128];
		json_t *out;

		snprintf(path, sizeof(path), "/api/v1/namespaces/default/pods/p-%ld-%d", id, i);
		out = sk_client_get(c, path, &err);
		json_decref(out);
	}
	sk_client_free(c);
	return NULL;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double last_cpu;

static double run(void *(*fn)(void *), int threads)
{
	pthread_t t[256];
	double t0 = now_s(), c0 = cpu_s();

	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, fn, (void *)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	last_cpu = cpu_s() - c0;
	return now_s() - t0;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 16, total = argc > 2 ? atoi(argv[2]) : 8000;
	char dir[] = "/tmp/skiff-inproc-XXXXXX";
	sk_error_t err = {0};
	sk_store *st;
	char *uri;
	double t;

	mkdtemp(dir);
	uri = xasprintf("sqlite://%s", dir);
	st = sk_store_open(uri, NULL, &err);
	if (!st || !(api = sk_api_new(st, NULL, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	per_thread = total / threads;
	t = run(creator, threads);
	printf("inproc creates %d threads %d creates_per_s %.0f cpu_us_per_create %.0f\n", per_thread * threads, threads,
	       per_thread * threads / t, last_cpu * 1e6 / (per_thread * threads));
	t = run(getter, threads);
	printf("inproc gets %d threads %d gets_per_s %.0f cpu_us_per_get %.0f\n", per_thread * threads, threads,
	       per_thread * threads / t, last_cpu * 1e6 / (per_thread * threads));
	sk_api_free(api);
	sk_store_close(st);
	free(uri);
	return 0;
}
