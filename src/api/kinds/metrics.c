/* metrics.k8s.io/v1beta1: NodeMetrics and PodMetrics, served from the
 * scraper's points and never stored (metrics-server.c). */
#include "api/api-int.h"

extern const sk_kind_ops sk__metrics_ops;

const sk_api_resource sk__kinds_metrics[] = {
	{
		.group = "metrics.k8s.io",
		.version = "v1beta1",
		.kind = "NodeMetrics",
		.plural = "nodes",
		.singular = "",
		.ops = &sk__metrics_ops,
	},
	{
		.group = "metrics.k8s.io",
		.version = "v1beta1",
		.kind = "PodMetrics",
		.plural = "pods",
		.singular = "",
		.namespaced = 1,
		.ops = &sk__metrics_ops,
	},
};
const size_t sk__nkinds_metrics = sizeof(sk__kinds_metrics) / sizeof(sk__kinds_metrics[0]);
