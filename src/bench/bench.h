/* `skiff bench`: the scheduler benchmark with the API server and the SQLite
 * store in the loop, on hollow nodes (bench/hollow.h).
 *
 * One process: store, API server, scheduler, hollow nodes and a pod creator,
 * all talking through in-process clients, so every create, bind and status
 * write is a durable store write through sk_api_handle's validation. The
 * clock runs from the first pod create to the last pod seen Running through a
 * watch. */
#ifndef SK_BENCH_BENCH_H
#define SK_BENCH_BENCH_H

#include <stdio.h>

#include "util/error.h"

typedef struct sk_bench_options {
	int nodes;             /* hollow nodes (default 500) */
	int pods;              /* plain pods to create (default 10000; 0: none) */
	int gang;              /* members of one PodGroup created after the pods (0: none) */
	int statefulset;       /* replicas of one OrderedReady StatefulSet, with the controllers (0: none) */
	int daemonset;         /* nonzero: roll one DaemonSet out to every node, with the controllers */
	int workers;           /* pod creator threads (default 64) */
	int sched_workers;     /* scheduler API workers (0: scheduler default) */
	int hollow_workers;    /* hollow node status writers (0: default) */
	int gpus;              /* nvidia.com/gpu per hollow node */
	int timeout_s;         /* give up on a phase after this long (default 300) */
	const char *data_dir;  /* store directory; NULL: a temporary one, removed at the end */
	const char *store_uri; /* etcd://… instead of SQLite in data_dir (NULL: SQLite) */
} sk_bench_options;

/* Runs the benchmark and prints its figures to out. Returns 0 when every pod
 * was bound and reported Running in time, -1 with err set otherwise. */
int sk_bench_run(const sk_bench_options *o, FILE *out, sk_error_t *err);

#endif
