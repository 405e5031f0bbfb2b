/* Scheduler algorithm benchmark: cache + filters + scores + queue with a
 * no-op binder (pods are assumed and never bound through an API).
 *
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/sched_bench.c build/libskiff.a \
 *      $(pkg-config --libs jansson) -lpthread -lm -o build/sched_bench
 *   build/sched_bench [pods [nodes]]  (default 10000 pods on 500, 1000 and 5000 nodes)
 *
 * Prints pods/s per cluster size. Pods: 80% plain (100m-1 cpu), 10% with a
 * nodeSelector on a zone, 5% tolerating a GPU taint and asking for a GPU,
 * 5% with a soft zone topology spread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/core.h"
#include "sched/queue.h"
#include "util/util.h"

#include <time.h>

/* CPU time of this thread: the machine may be shared, wall time is noisy. */
static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void add_nodes(sk_cache *c, int n)
{
	for (int i = 0; i < n; i++) {
		int gpu = i % 10 == 0;
		json_t *node = json_pack(
			"{s:{s:s%, s:{s:s%, s:s%}}, s:{s:o}, s:{s:{s:s, s:s, s:s, s:i}, s:[{s:s, s:s}], s:[{s:[s], s:i}]}}",
			"metadata", "name", xasprintf("node-%05d", i), (size_t)10, "labels", "kubernetes.io/hostname",
			xasprintf("node-%05d", i), (size_t)10, "zone", xasprintf("zone-%d", i % 3), (size_t)6, "spec",
			"taints",
			gpu ? json_pack("[{s:s, s:s, s:s}]", "key", "nvidia.com/gpu", "value", "true", "effect", "NoSchedule")
			    : json_array(),
			"status", "allocatable", "cpu", "32", "memory", "128Gi", "pods", "110", "nvidia.com/gpu", gpu ? 8 : 0,
			"conditions", "type", "Ready", "status", "True", "images", "names", "busybox:latest", "sizeBytes",
			4000000);

		sk_cache_node_upsert(c, node, NULL);
		json_decref(node);
	}
}

static sk_spod *make_pod(int i)
{
	char name[32], cpu[16];
	json_t *spec, *pod;
	sk_spod *p;

	snprintf(name, sizeof(name), "pod-%06d", i);
	snprintf(cpu, sizeof(cpu), "%dm", 100 + (i % 10) * 100);
	spec = json_pack("{s:[{s:s, s:s, s:{s:{s:s, s:s}}}]}", "containers", "name", "c", "image", "busybox", "resources",
			 "requests", "cpu", cpu, "memory", "256Mi");
	if (i % 20 == 1) {
		json_t *res = json_object_get(json_object_get(json_array_get(json_object_get(spec, "containers"), 0),
							      "resources"), "requests");

		json_object_set_new(res, "nvidia.com/gpu", json_string("1"));
		json_object_set_new(spec, "tolerations",
				    json_pack("[{s:s, s:s}]", "key", "nvidia.com/gpu", "operator", "Exists"));
	} else if (i % 10 == 2) {
		json_object_set_new(spec, "nodeSelector", json_pack("{s:s}", "zone", "zone-1"));
	} else if (i % 20 == 3) {
		json_object_set_new(spec, "topologySpreadConstraints",
				    json_pack("[{s:i, s:s, s:s, s:{s:{s:s}}}]", "maxSkew", 1, "topologyKey", "zone",
					      "whenUnsatisfiable", "ScheduleAnyway", "labelSelector", "matchLabels", "app",
					      "spread"));
	}
	pod = json_pack("{s:{s:s, s:s, s:s, s:s, s:{s:s}}, s:o}", "metadata", "name", name, "namespace", "default", "uid",
			name, "creationTimestamp", "2026-01-01T00:00:00Z", "labels", "app",
			i % 20 == 3 ? "spread" : "web", "spec", spec);
	p = sk_spod_new(pod, NULL);
	json_decref(pod);
	return p;
}

static void run(int nnodes, int npods)
{
	sk_cache c;
	sk_queue q;
	sk_algo a;
	sk_spod **pods = xmalloc(npods * sizeof(*pods));
	int scheduled = 0, failed = 0;
	int64_t t0, t1, c0, c1;

	sk_cache_init(&c);
	sk_queue_init(&q);
	add_nodes(&c, nnodes);
	sk_algo_init(&a, &c, 42);
	for (int i = 0; i < npods; i++) {
		pods[i] = make_pod(i);
		sk_queue_add(&q, pods[i]);
	}
	t0 = sk_mono_ns();
	c0 = cpu_ns();
	for (sk_spod *p; (p = sk_queue_pop(&q));) {
		sk_result r;

		if (sk_algo_schedule(&a, NULL, p, NULL, &r) == 0) {
			sk_spod_set_node(p, r.node->name);
			p->assumed = 1;
			sk_cache_pod_add(&c, p);
			sk_queue_done(&q, p->key);
			scheduled++;
		} else {
			sk_queue_unschedulable(&q, p->key, 0, sk_mono_ns());
			failed++;
		}
		sk_result_release(&r);
	}
	t1 = sk_mono_ns();
	c1 = cpu_ns();
	printf("nodes=%5d pods=%6d scheduled=%6d unschedulable=%5d wall=%7.3fs %8.0f pods/s  cpu=%7.3fs %8.0f pods/cpu-s\n",
	       nnodes, npods, scheduled, failed, (double)(t1 - t0) / 1e9, (double)npods / ((double)(t1 - t0) / 1e9),
	       (double)(c1 - c0) / 1e9, (double)npods / ((double)(c1 - c0) / 1e9));
	for (int i = 0; i < npods; i++) {
		sk_cache_pod_remove(&c, pods[i]);
		sk_spod_free(pods[i]);
	}
	free(pods);
	sk_algo_release(&a);
	sk_queue_release(&q);
	sk_cache_release(&c);
}

int main(int argc, char **argv)
{
	int npods = argc > 1 ? atoi(argv[1]) : 10000;
	const int sizes[] = {500, 1000, 5000};
	int only = argc > 2 ? atoi(argv[2]) : 0;

	if (only > 0) {
		run(only, npods);
		return 0;
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		run(sizes[i], npods);
	return 0;
}
