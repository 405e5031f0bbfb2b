/* The resource metrics pipeline of metrics.k8s.io (metrics-server's, in
 * process): points parsed from the agents' Summary API, the last two kept
 * per container and node, CPU reported as the rate between them.
 *
 * metrics.c holds the pure part (parsing, carrying points over, rates,
 * formatting; unit-tested and fuzzed); metrics-server.c the scraper thread,
 * the storage and the PodMetrics/NodeMetrics kinds. */
#ifndef SK_API_METRICS_H
#define SK_API_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* One sample of a container or node (metrics-server's MetricsPoint). */
struct sk_metrics_point {
	int64_t start_ns; /* when the container or node started: its CPU counter was 0 then */
	int64_t ts_ns;    /* when the CPU counter was read */
	uint64_t cpu_ns;  /* cumulative CPU time */
	uint64_t mem_ws;  /* memory working set, bytes */
};

struct sk_metrics_ctr {
	char *name;
	struct sk_metrics_point last, prev;
	int has_prev;
};

struct sk_metrics_pod {
	char *ns, *name;
	struct sk_metrics_ctr *c;
	size_t n;
};

/* What one node's scrapes left: the node's points and its pods'. */
struct sk_metrics_node {
	char *name;
	int has_node, has_prev;
	struct sk_metrics_point last, prev;
	struct sk_metrics_pod *pods;
	size_t npods;
};

/* Parses a Summary (stats/v1alpha1) of node `node` into out (no previous
 * points). Containers without a CPU time, cumulative CPU or working set are
 * left out, pods left without containers too. -1 with err (SK_EBADREQUEST)
 * when text is no Summary object. out is released with
 * sk_metrics_node_release either way. */
int sk_metrics_parse_summary(const char *text, size_t len, const char *node, struct sk_metrics_node *out,
			     sk_error_t *err);
void sk_metrics_node_release(struct sk_metrics_node *n);

/* Gives the points of fresh (a new scrape) their previous points from old
 * (what the scrapes before left, or NULL), as metrics-server's storage
 * does: the last point becomes the previous one when the new one is newer
 * and the container did not restart since; a container younger than the
 * resolution but at least 10 s old gets its start as the previous point. */
void sk_metrics_node_merge(struct sk_metrics_node *fresh, const struct sk_metrics_node *old, int64_t resolution_ns);

/* CPU rate in nanocores and the window between prev and last: 0, or -1
 * when they cannot give one (restart, counter going back, no time between). */
int sk_metrics_usage(const struct sk_metrics_point *last, const struct sk_metrics_point *prev, uint64_t *nanocores,
		     int64_t *window_ns);

/* Quantities as apimachinery's Quantity.String() writes them: CPU from
 * nanocores (DecimalSI at scale -9: "0", "1500u", "250m", "2"), memory from
 * bytes (BinarySI: "4000Ki", "3Mi", "1234"). */
void sk_metrics_format_cpu(uint64_t nanocores, char *buf, size_t len);
void sk_metrics_format_bytes(uint64_t bytes, char *buf, size_t len);
/* A Go time.Duration.String() ("15.002s", "1m0.5s", "500ms", "0s"). */
void sk_metrics_format_duration(int64_t ns, char *buf, size_t len);

#endif
