/* The cost of a node's Summary with many pods, the two halves apart:
 *  - agent side: reading the usage of PODS pod cgroups and one container
 *    cgroup in each (sk_cgroup_usage, what /stats/summary does per pod and
 *    running container) plus the node's (sk_host_usage), building the
 *    Summary's JSON and serializing it;
 *  - server side: parsing that Summary (sk_metrics_parse_summary) and
 *    carrying the previous scrape's points over (sk_metrics_node_merge).
 * The cgroups are made empty under /kubepods/besteffort/podbench-PID-N in
 * every hierarchy (root) and removed at the end; TLS and HTTP are left out.
 * Usage: summary_bench [pods] [rounds] */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/metrics.h"
#include "runtime/cgroup.h"
#include "util/util.h"

static double now_ms(void) { return (double)sk_mono_ns() / 1e6; }

static json_t *usage_json(const struct sk_cgroup_usage *u, const char *t)
{
	return json_pack("{s:{s:s, s:I}, s:{s:s, s:I, s:I, s:I}}", "cpu", "time", t, "usageCoreNanoSeconds",
			 (json_int_t)u->cpu_usage_ns, "memory", "time", t, "usageBytes", (json_int_t)u->memory_usage,
			 "workingSetBytes", (json_int_t)u->memory_working_set, "rssBytes", (json_int_t)u->memory_rss);
}

static void mk(const char *path)
{
	static const char *const v1[] = {"/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/memory"};

	if (sk_cgroup_mode_detect() == SK_CGROUP_V2) {
		cleanup_free char *d = xasprintf("/sys/fs/cgroup%s", path);
		sk_mkdir_p(d, 0755);
		return;
	}
	for (int i = 0; i < 2; i++) {
		cleanup_free char *d = xasprintf("%s%s", v1[i], path);
		sk_mkdir_p(d, 0755);
	}
}

/* One Summary as the agent builds it: the text (caller frees). */
static char *summary(int pods, int64_t now)
{
	cleanup_json json_t *arr = json_array(), *s = NULL, *node = NULL;
	struct sk_host_usage h;
	sk_error_t err = {0};
	char t[40];

	sk_time_format_micro(now, t, sizeof(t));
	sk_host_usage(&h, &err);
	node = usage_json(&h.u, t);
	json_object_set_new(node, "nodeName", json_string("n1"));
	for (int i = 0; i < pods; i++) {
		cleanup_free char *pod = xasprintf("/kubepods/besteffort/podbench-%d-%d", (int)getpid(), i);
		cleanup_free char *ctr = xasprintf("%s/ctr", pod);
		cleanup_free char *name = xasprintf("pod-%d", i);
		struct sk_cgroup_usage pu, cu;
		json_t *p, *c;

		if (sk_cgroup_usage(pod, &pu, &err) < 0 || sk_cgroup_usage(ctr, &cu, &err) < 0)
			continue;
		c = usage_json(&cu, t);
		json_object_set_new(c, "name", json_string("app"));
		json_object_set_new(c, "startTime", json_string("2026-12-05T00:00:00Z"));
		p = usage_json(&pu, t);
		json_object_set_new(p, "podRef",
				    json_pack("{s:s, s:s, s:s}", "name", name, "namespace", "default", "uid", name));
		json_object_set_new(p, "containers", json_pack("[o]", c));
		json_array_append_new(arr, p);
	}
	s = json_pack("{s:O, s:O}", "node", node, "pods", arr);
	return json_dumps(s, JSON_COMPACT);
}

int main(int argc, char **argv)
{
	int pods = argc > 1 ? atoi(argv[1]) : 100, rounds = argc > 2 ? atoi(argv[2]) : 50;
	double agent = 0, server = 0;
	size_t bytes = 0;
	struct sk_metrics_node prev = {0};

	if (geteuid() != 0 || sk_cgroup_mode_detect() == SK_CGROUP_NONE) {
		fprintf(stderr, "metrics_bench: needs root and cgroups\n");
		return 1;
	}
	for (int i = 0; i < pods; i++) {
		cleanup_free char *ctr = xasprintf("/kubepods/besteffort/podbench-%d-%d/ctr", (int)getpid(), i);
		mk(ctr);
	}
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms(), t1;
		cleanup_free char *text = summary(pods, sk_now_ns() + (int64_t)r * 1000000000);
		struct sk_metrics_node n;
		sk_error_t err = {0};

		t1 = now_ms();
		sk_metrics_parse_summary(text, strlen(text), "n1", &n, &err);
		sk_metrics_node_merge(&n, r ? &prev : NULL, 15000000000LL);
		agent += t1 - t0;
		server += now_ms() - t1;
		bytes = strlen(text);
		if (n.npods != (size_t)pods)
			fprintf(stderr, "metrics_bench: %zu pods of %d parsed\n", n.npods, pods);
		sk_metrics_node_release(&prev);
		prev = n;
	}
	sk_metrics_node_release(&prev);
	for (int i = 0; i < pods; i++) {
		cleanup_free char *pod = xasprintf("/kubepods/besteffort/podbench-%d-%d", (int)getpid(), i);
		sk_error_t err = {0};
		sk_cgroup_remove(pod, &err);
	}
	printf("pods=%d cgroups=%s summary=%zu bytes agent=%.2f ms server=%.2f ms (mean of %d rounds)\n", pods,
	       sk_cgroup_mode_name(sk_cgroup_mode_detect()), bytes, agent / rounds, server / rounds, rounds);
	return 0;
}
