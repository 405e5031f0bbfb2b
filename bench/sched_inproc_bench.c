/* Scheduler through the real API server and in-process client: a sqlite
 * store in a temporary directory, N nodes and M pending pods created first,
 * then the clock runs from sk_sched_start until every pod is bound (each
 * bind is a durable store write plus a "Scheduled" Event).
 *
 *   make build/libskiff.a
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/sched_inproc_bench.c build/libskiff.a \
 *      $(pkg-config --libs libmicrohttpd gnutls libcurl jansson sqlite3 libarchive libzstd libseccomp) \
 *      -lpthread -ldl -lm -o build/sched_inproc_bench
 *   [WORKERS=n] build/sched_inproc_bench [pods [nodes]]   (default 5000 pods, 1000 nodes) */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "sched/sched.h"
#include "store/store.h"
#include "util/util.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int create(sk_client *c, const char *path, json_t *obj)
{
	sk_error_t err = {0};
	json_t *r = sk_client_create(c, path, obj, &err);

	json_decref(obj);
	if (!r) {
		fprintf(stderr, "create %s: %s\n", path, err.msg);
		return -1;
	}
	json_decref(r);
	return 0;
}

int main(int argc, char **argv)
{
	int npods = argc > 1 ? atoi(argv[1]) : 5000, nnodes = argc > 2 ? atoi(argv[2]) : 1000;
	char dir[] = "/tmp/sk-sched-bench-XXXXXX", uri[128];
	sk_error_t err = {0};
	sk_store *store;
	sk_api *api;
	sk_client *c;
	sk_sched *s;
	sk_sched_stats st = {0};
	sk_sched_options o = {0};
	int64_t t0, t1, c0, c1;

	if (!mkdtemp(dir))
		return 1;
	snprintf(uri, sizeof(uri), "sqlite://%s", dir);
	if (!(store = sk_store_open(uri, NULL, &err)) || !(api = sk_api_new(store, NULL, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	c = sk_client_new_inproc(api);
	t0 = sk_mono_ns();
	for (int i = 0; i < nnodes; i++) {
		char name[32];

		snprintf(name, sizeof(name), "node-%05d", i);
		if (create(c, "/api/v1/nodes",
			   json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s},"
				     " s:[{s:s, s:s, s:s, s:s}]}}",
				     "apiVersion", "v1", "kind", "Node", "metadata", "name", name, "labels",
				     "kubernetes.io/hostname", name, "status", "capacity", "cpu", "32", "memory", "128Gi", "pods",
				     "110", "allocatable", "cpu", "32", "memory", "128Gi", "pods", "110", "conditions", "type",
				     "Ready", "status", "True", "reason", "KubeletReady", "message", "ready")) < 0)
			return 1;
	}
	for (int i = 0; i < npods; i++) {
		char name[32];

		snprintf(name, sizeof(name), "pod-%06d", i);
		if (create(c, "/api/v1/namespaces/default/pods",
			   json_pack("{s:s, s:s, s:{s:s}, s:{s:[{s:s, s:s, s:{s:{s:s, s:s}}}]}}", "apiVersion", "v1",
				     "kind", "Pod", "metadata", "name", name, "spec", "containers", "name", "c", "image",
				     "busybox", "resources", "requests", "cpu", "100m", "memory", "128Mi")) < 0)
			return 1;
	}
	t1 = sk_mono_ns();
	printf("setup: %d nodes + %d pods created in %.3fs\n", nnodes, npods, (double)(t1 - t0) / 1e9);
	t0 = sk_mono_ns();
	c0 = cpu_ns();
	o.workers = getenv("WORKERS") ? atoi(getenv("WORKERS")) : 0;
	if (!(s = sk_sched_start(c, &o, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	while (sk_mono_ns() - t0 < 300LL * 1000000000) {
		sk_sched_get_stats(s, &st);
		if ((int)st.bound + (int)st.bind_errors >= npods)
			break;
		usleep(2000);
	}
	t1 = sk_mono_ns();
	c1 = cpu_ns();
	printf("inproc: nodes=%d pods=%d bound=%llu bind_errors=%llu wall=%.3fs %.0f pods/s cpu=%.3fs %.0f pods/cpu-s\n",
	       nnodes, npods, (unsigned long long)st.bound, (unsigned long long)st.bind_errors, (double)(t1 - t0) / 1e9,
	       (double)st.bound / ((double)(t1 - t0) / 1e9), (double)(c1 - c0) / 1e9,
	       (double)st.bound / ((double)(c1 - c0) / 1e9));
	sk_sched_stop(s);
	sk_client_free(c);
	sk_api_shutdown(api);
	sk_api_free(api);
	sk_store_close(store);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
