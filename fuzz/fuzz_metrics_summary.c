/* libFuzzer target for what the metrics scraper reads from an agent: the
 * Summary parser (metrics.h), the carrying over of points between two
 * scrapes and the rates, and the cgroup and /proc parsers (cgroup.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/metrics.h"
#include "runtime/cgroup.h"
#include "util/error.h"

static void rates(const struct sk_metrics_node *n)
{
	uint64_t cpu;
	int64_t window;
	char buf[64];

	if (n->has_prev && sk_metrics_usage(&n->last, &n->prev, &cpu, &window) == 0) {
		sk_metrics_format_cpu(cpu, buf, sizeof(buf));
		sk_metrics_format_duration(window, buf, sizeof(buf));
	}
	for (size_t i = 0; i < n->npods; i++)
		for (size_t j = 0; j < n->pods[i].n; j++) {
			const struct sk_metrics_ctr *c = &n->pods[i].c[j];

			if (c->has_prev && sk_metrics_usage(&c->last, &c->prev, &cpu, &window) == 0)
				sk_metrics_format_cpu(cpu, buf, sizeof(buf));
			sk_metrics_format_bytes(c->last.mem_ws, buf, sizeof(buf));
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sk_metrics_node a, b;
	struct sk_cgroup_usage u = {0};
	struct sk_host_usage h;
	sk_error_t err = {0};
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	/* the same summary twice: the second scrape keeps or drops the first's points */
	sk_metrics_parse_summary(text, size, "n", &a, &err);
	sk_metrics_node_merge(&a, NULL, 15000000000LL);
	sk_metrics_parse_summary(text, size, "n", &b, &err);
	sk_metrics_node_merge(&b, &a, 1000000000LL);
	rates(&b);
	sk_metrics_node_release(&a);
	sk_metrics_node_release(&b);
	sk_cgroup_parse_v1(text, text, text, &u);
	sk_cgroup_parse_v2(text, text, text, &u);
	sk_host_parse(text, text, 100, &h);
	free(text);
	return 0;
}
