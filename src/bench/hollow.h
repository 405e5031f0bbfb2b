/* Hollow nodes for `skiff bench`: simulated nodes that run no containers,
 * in the manner of kubemark's hollow kubelet and kwok.
 *
 * One sk_hollow registers N Node objects (cpu 32, memory 256Gi, pods 110,
 * optionally nvidia.com/gpu) with condition Ready=True and one Lease each,
 * then watches every pod with ONE watch (not one per node) and, for each pod
 * bound to one of its nodes that is not Running yet, writes the status a
 * kubelet would (phase Running, the four pod conditions, podIP, hostIP,
 * startTime, containerStatuses running) through the API's status
 * subresource, on a small pool of writer threads.
 *
 * This is separate from the real agent (src/agent/): nothing here touches
 * runtimes, images, cgroups or the network. */
#ifndef SK_BENCH_HOLLOW_H
#define SK_BENCH_HOLLOW_H

#include <stdint.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_hollow sk_hollow;

typedef struct sk_hollow_options {
	const char *prefix; /* node names are PREFIX%05d; NULL: "hollow-" */
	int nodes;          /* how many nodes */
	int gpus;           /* nvidia.com/gpu per node, 0: none */
	int workers;        /* status writer threads, default 16 (writes are durable commits) */
	int no_leases;      /* skip the per-node Lease in kube-node-lease */
} sk_hollow_options;

typedef struct sk_hollow_stats {
	uint64_t status_writes; /* pods reported Running */
	uint64_t status_errors; /* writes that failed for good */
	uint64_t conflicts;     /* writes retried after a conflict */
	int queued;             /* pods waiting for a writer */
} sk_hollow_stats;

/* Registers the nodes (and leases) through c (borrowed: must outlive the
 * hollow nodes), then starts the pod watch and writers. Returns NULL with
 * err set when a node cannot be registered or the watch cannot start.
 * Stop and free with sk_hollow_stop. */
sk_hollow *sk_hollow_start(sk_client *c, const sk_hollow_options *o, sk_error_t *err);
/* Stops the watch and writers (pending writes are dropped) and frees h. NULL is a no-op. */
void sk_hollow_stop(sk_hollow *h);
void sk_hollow_get_stats(sk_hollow *h, sk_hollow_stats *st);

#endif
