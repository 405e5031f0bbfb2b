/* Scheduler loop benchmark: the whole scheduler (reflectors, queue,
 * algorithm, API workers, events) against the in-memory mock client of the
 * unit tests, so API latency is near zero. Pods exist before the scheduler
 * starts; the clock runs from start until every pod is bound.
 *
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/sched_loop_bench.c build/libskiff.a \
 *      $(pkg-config --libs jansson) -lpthread -lm -o build/sched_loop_bench
 *   build/sched_loop_bench [pods [nodes]]     (default 10000 pods, 1000 nodes) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/unit/test_sched_mock.h"
#include "sched/sched.h"

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int bound_count(void)
{
	int n;

	pthread_mutex_lock(&M.mu);
	n = M.binds;
	pthread_mutex_unlock(&M.mu);
	return n;
}

int main(int argc, char **argv)
{
	int npods = argc > 1 ? atoi(argv[1]) : 10000, nnodes = argc > 2 ? atoi(argv[2]) : 1000;
	sk_client *c = mock_new();
	sk_error_t err = {0};
	int64_t t0, t1, c0, c1;
	sk_sched *s;

	for (int i = 0; i < nnodes; i++) {
		char name[32];

		snprintf(name, sizeof(name), "node-%05d", i);
		add_node(name, "32", 0, NULL);
	}
	for (int i = 0; i < npods; i++) {
		char name[32];

		snprintf(name, sizeof(name), "pod-%06d", i);
		mock_add("/api/v1/pods", pod_json(name, "100m", 0, 0, NULL));
	}
	t0 = sk_mono_ns();
	c0 = cpu_ns();
	s = sk_sched_start(c, NULL, &err);
	if (!s) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	while (bound_count() < npods && sk_mono_ns() - t0 < 120LL * 1000000000)
		usleep(1000);
	t1 = sk_mono_ns();
	c1 = cpu_ns();
	/* cpu covers every thread, the mock API's included */
	printf("loop: nodes=%d pods=%d bound=%d wall=%.3fs %.0f pods/s cpu=%.3fs %.0f pods/cpu-s (events %d)\n", nnodes,
	       npods, bound_count(), (double)(t1 - t0) / 1e9, (double)bound_count() / ((double)(t1 - t0) / 1e9),
	       (double)(c1 - c0) / 1e9, (double)bound_count() / ((double)(c1 - c0) / 1e9), M.events);
	sk_sched_stop(s);
	sk_client_free(c);
	return 0;
}
