/* The node agent's metrics over an agent without a runtime: pods given as
 * API objects, a fake GPU device list (no GPU here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-int.h"
#include "util/metrics.h"
#include "util/util.h"

static struct apod *fake_pod(const char *name, int restarts, const char *last_reason)
{
	struct apod *p = xzalloc(sizeof(*p));
	json_t *cs = json_pack("{s:s, s:i, s:{s:{}}}", "name", "c", "restartCount", restarts, "state", "running");

	p->ns = xstrdup("team-a");
	p->name = xstrdup(name);
	p->uid = xasprintf("uid-%s", name);
	if (last_reason)
		json_object_set_new(cs, "lastState",
				    json_pack("{s:{s:s, s:i}}", "terminated", "reason", last_reason, "exitCode", 1));
	p->pod = json_pack("{s:{s:s, s:[o]}}", "status", "phase", "Running", "containerStatuses", cs);
	return p;
}

static struct sk_agent *fake_agent(void)
{
	struct sk_agent *a = xzalloc(sizeof(*a));

	pthread_mutex_init(&a->mu, NULL);
	a->data_dir = xstrdup("/tmp");
	a->node_name = xstrdup("node-1");
	a->pods = xzalloc(8 * sizeof(*a->pods));
	sk__ag_metrics_init(a);
	return a;
}

static void free_agent(struct sk_agent *a)
{
	sk__ag_metrics_free(a);
	for (size_t i = 0; i < a->npods; i++) {
		json_decref(a->pods[i]->pod);
		free(a->pods[i]->ns);
		free(a->pods[i]->name);
		free(a->pods[i]->uid);
		free(a->pods[i]);
	}
	free(a->pods);
	free(a->data_dir);
	free(a->node_name);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

static char *scrape(struct sk_agent *a, const char *accept)
{
	const char *ctype;
	size_t len;
	char *s = sk__ag_metrics_expose(a, accept, &len, &ctype);

	assert_int_equal(strlen(s), len);
	assert_string_equal(ctype, accept ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE);
	return s;
}

static void test_pod_series_follow_pods(void **state)
{
	(void)state;
	struct sk_agent *a = fake_agent();
	char *s;

	a->pods[a->npods++] = fake_pod("web", 0, NULL);
	a->pods[a->npods++] = fake_pod("crash", 4, "Error");
	s = scrape(a, NULL);
	assert_non_null(strstr(s, "kubelet_running_pods 2\n"));
	assert_non_null(strstr(s, "kubelet_running_containers{container_state=\"running\"} 2\n"));
	assert_non_null(strstr(s, "skiff_kubelet_container_restarts_total{namespace=\"team-a\",pod=\"crash\","
				  "container=\"c\"} 4\n"));
	assert_non_null(strstr(s, "skiff_kubelet_container_last_terminated_reason{namespace=\"team-a\",pod=\"crash\","
				  "container=\"c\",reason=\"Error\"} 1\n"));
	assert_non_null(strstr(s, "skiff_kubelet_filesystem_capacity_bytes{filesystem=\"container\"} "));
	free(s);
	/* the pod goes: its series go with it */
	a->pods[1]->gone = true;
	s = scrape(a, NULL);
	assert_null(strstr(s, "pod=\"crash\""));
	assert_non_null(strstr(s, "pod=\"web\""));
	assert_non_null(strstr(s, "kubelet_running_pods 1\n"));
	free(s);
	free_agent(a);
}

static void test_runtime_operations_and_pulls(void **state)
{
	(void)state;
	struct sk_agent *a = fake_agent();
	sk_gc_result gc = {.images_removed = 2, .bytes_freed = 4096};
	char *s;

	sk__ag_metrics_pull(a, 2500000000LL, 50LL << 20, 1234, true);
	sk__ag_metrics_pull(a, 1000000, 0, 0, false);
	sk__ag_metrics_sandbox(a, NULL, 200000000, true);
	sk__ag_metrics_sandbox(a, "kata", 100000000, false);
	sk__ag_metrics_op(a, "start_container", true);
	sk__ag_metrics_pod_started(a, 1.5);
	sk__ag_metrics_image_gc(a, &gc);
	s = scrape(a, "application/openmetrics-text");
	assert_non_null(strstr(s, "kubelet_image_pull_duration_seconds_bucket{image_size_in_bytes=\"10MB-100MB\","
				  "le=\"5\"} 1\n"));
	assert_non_null(strstr(s, "kubelet_image_pull_duration_seconds_bucket{image_size_in_bytes=\"10MB-100MB\","
				  "le=\"1\"} 0\n"));
	assert_non_null(strstr(s, "skiff_kubelet_image_pulled_bytes_total 1234\n"));
	assert_non_null(strstr(s, "# TYPE skiff_kubelet_image_pulled_bytes counter\n"));
	assert_non_null(strstr(s, "kubelet_runtime_operations_errors_total{operation_type=\"pull_image\"} 1\n"));
	assert_non_null(strstr(s, "kubelet_runtime_operations_total{operation_type=\"run_podsandbox\"} 2\n"));
	assert_non_null(strstr(s, "kubelet_run_podsandbox_errors_total{runtime_handler=\"kata\"} 1\n"));
	assert_null(strstr(s, "kubelet_run_podsandbox_errors_total{runtime_handler=\"\"}"));
	assert_non_null(strstr(s, "kubelet_pod_start_sli_duration_seconds_bucket{le=\"2\"} 1\n"));
	assert_non_null(strstr(s, "kubelet_image_garbage_collected_total{reason=\"space\"} 2\n"));
	assert_non_null(strstr(s, "skiff_kubelet_image_gc_freed_bytes_total 4096\n"));
	assert_true(strlen(s) > 6 && !strcmp(s + strlen(s) - 6, "# EOF\n"));
	free(s);
	free_agent(a);
}

static void test_gpu_series_dcgm_names(void **state)
{
	(void)state;
	struct sk_agent *a = fake_agent();
	struct sk_gpu_device devs[2] = {
		{.uuid = "GPU-aaaa",
		 .product = "NVIDIA H100 80GB HBM3",
		 .index = 0,
		 .minor = 0,
		 .memory_mib = 81559,
		 .healthy = true},
		{.uuid = "GPU-bbbb",
		 .product = "NVIDIA H100 80GB HBM3",
		 .index = 1,
		 .minor = 3,
		 .memory_mib = 81559,
		 .healthy = false,
		 .reason = "XID 79 (GPU has fallen off the bus)"},
	};
	json_t *owners = json_pack("{s:{s:s, s:s, s:s}}", "GPU-aaaa", "namespace", "ml", "pod", "train-0", "container",
				   "trainer");
	char *s;

	sk_gpu_sample samples[2] = {
		{.has_util = true,
		 .util_pct = 87,
		 .mem_util_pct = 41,
		 .has_temp = true,
		 .temp_c = 64,
		 .has_power = true,
		 .power_w = 312.5,
		 .has_mem = true,
		 .fb_used_mib = 70000,
		 .fb_free_mib = 11559},
		{0}, /* a device that answers none of the queries */
	};

	sk__ag_metrics_set_gpus(a, devs, samples, 2, owners);
	s = scrape(a, NULL); /* without a GPU module the collector leaves these alone */
	assert_non_null(strstr(s, "# TYPE DCGM_FI_DEV_FB_TOTAL gauge\n"));
	assert_non_null(strstr(s, "DCGM_FI_DEV_FB_TOTAL{gpu=\"0\",UUID=\"GPU-aaaa\",device=\"nvidia0\","
				  "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-1\",container=\"trainer\","
				  "namespace=\"ml\",pod=\"train-0\"} 81559\n"));
	assert_non_null(strstr(s, "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-bbbb\",device=\"nvidia3\","
				  "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-1\",container=\"\","
				  "namespace=\"\",pod=\"\"} 79\n"));
	assert_non_null(strstr(s, "skiff_gpu_device_healthy{gpu=\"0\""));
	assert_non_null(strstr(s, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"));
	assert_non_null(strstr(s, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aaaa\""));
	assert_non_null(strstr(s, "pod=\"train-0\"} 87\n"));
	assert_non_null(strstr(s, "pod=\"train-0\"} 41\n"));
	assert_non_null(strstr(s, "pod=\"train-0\"} 64\n"));
	assert_non_null(strstr(s, "pod=\"train-0\"} 312.5\n"));
	assert_non_null(strstr(s, "pod=\"train-0\"} 70000\n"));
	assert_non_null(strstr(s, "pod=\"train-0\"} 11559\n"));
	/* no reading, no series */
	assert_null(strstr(s, "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\""));
	assert_null(strstr(s, "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\""));
	free(s);
	/* a device that went away loses its series */
	sk__ag_metrics_set_gpus(a, devs, NULL, 1, NULL);
	s = scrape(a, NULL);
	assert_null(strstr(s, "GPU-bbbb"));
	assert_non_null(strstr(s, "UUID=\"GPU-aaaa\""));
	free(s);
	json_decref(owners);
	free_agent(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_series_follow_pods),
		cmocka_unit_test(test_runtime_operations_and_pulls),
		cmocka_unit_test(test_gpu_series_dcgm_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
