/* The Service dataplane (src/agent/proxy*.c) at scale, in a network
 * namespace of its own: N Services x M endpoints programmed from cold
 * through libnftables, then one endpoint at a time turning ready or not
 * (the partial sync: model from the caches + one transaction), and the
 * memory the objects and the model take. The peer in the same run: the CLI
 * path, `nft -f` of the same full script into an empty namespace table.
 *
 *   build/bench/proxy_bench [services [endpoints [changes]]]   (root)
 */
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/proxy.h"
#include "util/util.h"

static const sk_proxy_config cfg = {
	.table = "skiff-skbench",
	.bridge = "skbench",
	.node_name = "bench-node",
	.pod_cidr = "10.42.0.0/24",
	.gateway = "10.42.0.1",
	.cluster_cidr = "10.42.0.0/16",
	.service_cidr = "10.43.0.0/16",
	.cluster_dns = "10.43.0.10",
};

static double ms_since(int64_t t0) { return (double)(sk_mono_ns() - t0) / 1e6; }

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static json_t *make_service(int i)
{
	char name[32], ip[32];

	snprintf(name, sizeof(name), "svc-%d", i);
	snprintf(ip, sizeof(ip), "10.43.%d.%d", 1 + i / 250, 1 + i % 250);
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:[{s:s, s:i, s:s, s:i}]}}", "apiVersion", "v1", "kind",
			 "Service", "metadata", "namespace", "bench", "name", name, "spec", "type", "ClusterIP",
			 "clusterIP", ip, "ports", "name", "http", "port", 80, "protocol", "TCP", "targetPort", 8080);
}

static json_t *make_slice(int i, int m)
{
	char name[32], svc[32];
	json_t *eps = json_array();

	snprintf(name, sizeof(name), "svc-%d-abcde", i);
	snprintf(svc, sizeof(svc), "svc-%d", i);
	for (int k = 0; k < m; k++) {
		char ip[32];
		int n = i * m + k;

		snprintf(ip, sizeof(ip), "10.42.%d.%d", n / 250, 1 + n % 250);
		json_array_append_new(eps, json_pack("{s:[s], s:{s:b}, s:s}", "addresses", ip, "conditions", "ready", 1,
						     "nodeName", k % 2 ? "bench-node" : "other-node"));
	}
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:s, s:[{s:s, s:i, s:s}], s:o}", "apiVersion",
			 "discovery.k8s.io/v1", "kind", "EndpointSlice", "metadata", "namespace", "bench", "name", name,
			 "labels", "kubernetes.io/service-name", svc, "addressType", "IPv4", "ports", "name", "http",
			 "port", 8080, "protocol", "TCP", "endpoints", eps);
}

static size_t chains_of(json_t *model)
{
	json_t *frag;
	const char *k;
	size_t n = json_object_size(json_object_get(json_object_get(model, "base"), "chains"));

	json_object_foreach(json_object_get(model, "services"), k, frag)
		n += json_object_size(json_object_get(frag, "chains"));
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int nft_cli(const char *script_path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execlp("nft", "nft", "-f", script_path, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, m = argc > 2 ? atoi(argv[2]) : 10;
	int changes = argc > 3 ? atoi(argv[3]) : 200;
	json_t *svcs = json_array(), *slices = json_array();
	double *lat = xmalloc((size_t)(changes + 1) * sizeof(double));
	double *lat_model = xmalloc((size_t)(changes + 1) * sizeof(double));
	char path[] = "/tmp/proxy-bench-XXXXXX";
	long rss0, rss1, rss2, rss3, rss_model;
	sk_error_t err = {0};
	sk_proxy_dp *dp;
	json_t *model;
	char *script;
	int64_t t0;
	double t_model, t_apply, t_cli;
	FILE *f;
	int fd;

	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "proxy_bench: needs root (a network namespace of its own)\n");
		return 0;
	}
	rss0 = rss_kib();
	for (int i = 0; i < n; i++) {
		json_array_append_new(svcs, make_service(i));
		json_array_append_new(slices, make_slice(i, m));
	}
	rss1 = rss_kib();
	dp = sk_proxy_dp_new(cfg.table, &err);
	if (!dp)
		return fprintf(stderr, "%s\n", err.msg), 1;

	/* from cold: model + one full transaction */
	t0 = sk_mono_ns();
	model = sk_proxy_model(&cfg, &(sk_proxy_input){.services = svcs, .slices = slices}, NULL);
	t_model = ms_since(t0);
	rss_model = rss_kib();
	if (sk_proxy_dp_apply(dp, &cfg, model, true, &err) < 0)
		return fprintf(stderr, "full sync: %s\n", err.msg), 1;
	t_apply = ms_since(t0);
	rss2 = rss_kib();
	/* what the transaction keeps, beside what malloc has not returned yet */
	malloc_trim(0);
	rss3 = rss_kib();
	printf("proxy: %d services x %d endpoints (%zu chains): cold sync %.0f ms (model %.0f ms, libnftables "
	       "transaction %.0f ms)\n",
	       n, m, chains_of(model), t_apply, t_model, t_apply - t_model);
	printf("proxy: memory (RSS): %.1f MiB for the %d Service and %d EndpointSlice objects, %.1f MiB for the "
	       "model, %.1f MiB kept by libnftables after the transaction (%.1f MiB at its peak): %.1f MiB per "
	       "1,000 services\n",
	       (double)(rss1 - rss0) / 1024, n, n, (double)(rss_model - rss1) / 1024, (double)(rss3 - rss_model) / 1024,
	       (double)(rss2 - rss_model) / 1024, (double)(rss3 - rss0) / 1024 * 1000.0 / n);

	/* one endpoint turning ready or not ready: model + partial sync */
	for (int c = 0; c < changes; c++) {
		size_t at = (size_t)((c * 7919) % n);
		/* as an informer has it: the changed slice is a new object */
		json_t *slice = json_deep_copy(json_array_get(slices, at));
		json_t *ep = json_array_get(json_object_get(slice, "endpoints"), (size_t)(c % m));
		json_t *cond = json_object_get(ep, "conditions");
		json_t *next;

		json_object_set_new(cond, "ready", json_boolean(!json_is_true(json_object_get(cond, "ready"))));
		json_array_set_new(slices, at, slice);
		t0 = sk_mono_ns();
		next = sk_proxy_model(&cfg, &(sk_proxy_input){.services = svcs, .slices = slices}, model);
		lat_model[c] = ms_since(t0);
		if (sk_proxy_dp_apply(dp, &cfg, next, false, &err) < 0)
			return fprintf(stderr, "partial sync: %s\n", err.msg), 1;
		lat[c] = ms_since(t0);
		json_decref(model);
		model = next;
	}
	if (changes > 0) {
		int p99 = (changes * 99) / 100;

		qsort(lat, (size_t)changes, sizeof(*lat), cmp_double);
		qsort(lat_model, (size_t)changes, sizeof(*lat_model), cmp_double);
		printf("proxy: one endpoint changing readiness -> transaction done: p50 %.1f ms, p99 %.1f ms, max %.1f "
		       "ms (%d changes; the model alone: p50 %.2f ms, p99 %.2f ms)\n",
		       lat[changes / 2], lat[p99], lat[changes - 1], changes, lat_model[changes / 2], lat_model[p99]);
	}

	/* the peer: the same full script through the nft CLI, into a new table */
	if (sk_proxy_table_delete(cfg.table, &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), 1;
	script = sk_proxy_script(&cfg, NULL, model, NULL);
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(script, f);
	fclose(f);
	t0 = sk_mono_ns();
	if (nft_cli(path) != 0)
		fprintf(stderr, "nft -f failed\n");
	t_cli = ms_since(t0);
	printf("proxy: peer: nft -f of the same full script (%zu KiB): %.0f ms (libnftables in-process: %.0f ms)\n",
	       strlen(script) / 1024, t_cli, t_apply - t_model);
	unlink(path);
	free(script);
	free(lat);
	free(lat_model);
	json_decref(model);
	sk_proxy_dp_free(dp);
	json_decref(svcs);
	json_decref(slices);
	return 0;
}
