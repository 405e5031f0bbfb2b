/* Scheduler algorithm: cache request rules, filters, scores, FitError. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sched/core.h"
#include "util/util.h"

static json_t *J(const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	json_error_t je;
	json_t *j;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	j = json_loads(buf, 0, &je);
	if (!j)
		fail_msg("bad json: %s: %s", je.text, buf);
	return j;
}

static sk_snode *add_node(sk_cache *c, const char *name, const char *cpu, const char *mem, int gpus,
			  const char *extra_spec, const char *labels)
{
	char gpu[64] = "";
	json_t *n;
	sk_snode *sn;

	if (gpus)
		snprintf(gpu, sizeof(gpu), ",\"nvidia.com/gpu\":\"%d\"", gpus);
	n = J("{\"metadata\":{\"name\":\"%s\",\"labels\":{\"kubernetes.io/hostname\":\"%s\"%s%s}},"
	      "\"spec\":{%s},\"status\":{\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"110\"%s},"
	      "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
	      name, name, labels ? "," : "", labels ? labels : "", extra_spec ? extra_spec : "", cpu, mem, gpu);
	sn = sk_cache_node_upsert(c, n, NULL);
	json_decref(n);
	assert_non_null(sn);
	return sn;
}

static sk_spod *mkpod(const char *name, const char *spec_extra, const char *containers, const char *labels)
{
	json_t *j = J("{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\","
		      "\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"labels\":{%s}},"
		      "\"spec\":{\"containers\":[%s]%s%s}}",
		      name, name, labels ? labels : "", containers, spec_extra ? "," : "", spec_extra ? spec_extra : "");
	sk_error_t err = {0};
	sk_spod *p = sk_spod_new(j, &err);

	json_decref(j);
	assert_non_null(p);
	return p;
}

#define CT(cpu, mem) "{\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"" cpu "\",\"memory\":\"" mem "\"}}}"
#define CTGPU(n) "{\"name\":\"c\",\"image\":\"cuda\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"" n "\"}}}"

static sk_spod *place(sk_cache *c, sk_spod *p, const char *node)
{
	sk_spod_set_node(p, node);
	sk_cache_pod_add(c, p);
	return p;
}

static char *schedule(sk_cache *c, sk_spod *p, const char **node)
{
	sk_algo a;
	sk_result r;
	char *msg = NULL;

	sk_algo_init(&a, c, 1);
	if (sk_algo_schedule(&a, NULL, p, NULL, &r) == 0)
		*node = r.node->name;
	else
		msg = xstrdup(r.message), *node = NULL;
	sk_result_release(&r);
	sk_algo_release(&a);
	return msg;
}

static void test_requests_init_and_sidecar(void **state)
{
	/* init 2 cpu > sum of containers 1.5 cpu: the init container wins. */
	sk_spod *p = mkpod("a", "\"initContainers\":[" CT("2", "1Gi") "]", CT("1", "1Gi") "," CT("500m", "2Gi"), NULL);

	assert_int_equal(p->req.v[SK_KUBE_RES_CPU], 2000);
	assert_int_equal(p->req.v[SK_KUBE_RES_MEMORY], 3LL << 30);
	sk_spod_free(p);
	/* sidecar (restartPolicy Always) 1 cpu adds to the containers; the later
	 * init container runs beside it: max(1+1, 1+1.5) = 2.5 cpu. */
	p = mkpod("b",
		  "\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}},"
		  "{\"name\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1500m\"}}}],\"overhead\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}",
		  CT("1", "1Gi"), NULL);
	assert_int_equal(p->req.v[SK_KUBE_RES_CPU], 2500 + 100);
	assert_int_equal(p->req.v[SK_KUBE_RES_MEMORY], (1LL << 30) + (64LL << 20));
	assert_int_equal(p->req.v[SK_KUBE_RES_PODS], 1);
	sk_spod_free(p);
	/* limits only: requests default to limits; nothing set: non-zero defaults for scoring. */
	p = mkpod("c", NULL, CTGPU("2") ",{\"name\":\"d\"}", NULL);
	assert_int_equal(p->req.v[sk_kube_res_index("nvidia.com/gpu")], 2);
	assert_int_equal(p->req.v[SK_KUBE_RES_CPU], 0);
	assert_int_equal(p->nz_cpu, 2 * SK_KUBE_DEFAULT_MILLI_CPU);
	assert_int_equal(p->nz_mem, 2 * SK_KUBE_DEFAULT_MEMORY);
	sk_spod_free(p);
}

static void test_fit_error_gpu_and_taints(void **state)
{
	sk_cache c;
	sk_spod *p, *used[2];
	const char *node;
	char *msg;

	sk_cache_init(&c);
	add_node(&c, "n1", "8", "32Gi", 1, NULL, NULL);
	add_node(&c, "n2", "8", "32Gi", 0, NULL, NULL);
	for (int i = 3; i <= 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		add_node(&c, name, "8", "32Gi", 8, "\"taints\":[{\"key\":\"gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]", NULL);
	}
	used[0] = place(&c, mkpod("u", NULL, CTGPU("1"), NULL), "n1");
	p = mkpod("p", NULL, CTGPU("1"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, "
				 "3 node(s) had untolerated taint {gpu: true}.");
	free(msg);
	/* tolerating the taint lands it on a GPU node */
	sk_spod_free(p);
	p = mkpod("p", "\"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Equal\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]",
		  CTGPU("1"), NULL);
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_true(strcmp(node, "n3") == 0 || strcmp(node, "n4") == 0 || strcmp(node, "n5") == 0);
	sk_spod_free(p);
	used[1] = NULL;
	sk_cache_pod_remove(&c, used[0]);
	sk_spod_free(used[0]);
	sk_cache_release(&c);
}

static void test_resources_and_pods(void **state)
{
	sk_cache c;
	sk_spod *p, *q;
	const char *node;
	char *msg;
	json_t *n;

	sk_cache_init(&c);
	n = J("{\"metadata\":{\"name\":\"tiny\"},\"status\":{\"allocatable\":{\"cpu\":\"1\",\"memory\":\"1Gi\",\"pods\":\"1\"},"
	      "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	sk_cache_node_upsert(&c, n, NULL);
	json_decref(n);
	q = place(&c, mkpod("q", NULL, CT("100m", "100Mi"), NULL), "tiny");
	p = mkpod("p", NULL, CT("2", "2Gi"), NULL);
	msg = schedule(&c, p, &node);
	/* reasons of one node are counted separately and sorted */
	assert_string_equal(msg, "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods.");
	free(msg);
	sk_cache_pod_remove(&c, q);
	assert_int_equal(sk_cache_node(&c, "tiny")->requested.v[SK_KUBE_RES_CPU], 0);
	sk_spod_free(q);
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_unschedulable_notready_nodename(void **state)
{
	sk_cache c;
	sk_spod *p;
	const char *node;
	char *msg;
	json_t *n;

	sk_cache_init(&c);
	add_node(&c, "cordoned", "4", "8Gi", 0, "\"unschedulable\":true", NULL);
	n = J("{\"metadata\":{\"name\":\"down\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"10\"},"
	      "\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
	sk_cache_node_upsert(&c, n, NULL);
	json_decref(n);
	p = mkpod("p", NULL, CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, "
				 "1 node(s) were unschedulable.");
	free(msg);
	sk_spod_free(p);
	p = mkpod("p", "\"tolerations\":[{\"operator\":\"Exists\"}]", CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_null(msg);
	sk_spod_free(p);
	p = mkpod("p", "\"nodeName\":\"elsewhere\",\"tolerations\":[{\"operator\":\"Exists\"}]", CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/2 nodes are available: 2 node(s) didn't match the requested node name.");
	free(msg);
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_node_affinity_operators(void **state)
{
	sk_cache c;
	sk_spod *p;
	const char *node;
	char *msg;
	static const struct {
		const char *expr;
		const char *want;
	} cases[] = {
		{"{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"b\"]}", "n2"},
		{"{\"key\":\"zone\",\"operator\":\"NotIn\",\"values\":[\"a\",\"b\"]}", "n3"},
		{"{\"key\":\"gpu\",\"operator\":\"Exists\"}", "n1"},
		{"{\"key\":\"zone\",\"operator\":\"DoesNotExist\"}", "n3"},
		{"{\"key\":\"cores\",\"operator\":\"Gt\",\"values\":[\"16\"]}", "n2"},
		{"{\"key\":\"cores\",\"operator\":\"Lt\",\"values\":[\"16\"]}", "n1"},
	};

	sk_cache_init(&c);
	add_node(&c, "n1", "4", "8Gi", 0, NULL, "\"zone\":\"a\",\"gpu\":\"x\",\"cores\":\"8\"");
	add_node(&c, "n2", "4", "8Gi", 0, NULL, "\"zone\":\"b\",\"cores\":\"32\"");
	add_node(&c, "n3", "4", "8Gi", 0, NULL, "\"cores\":\"16\"");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[1024];

		snprintf(spec, sizeof(spec),
			 "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
			 "{\"nodeSelectorTerms\":[{\"matchExpressions\":[%s]}]}}}",
			 cases[i].expr);
		p = mkpod("p", spec, CT("1", "1Gi"), NULL);
		msg = schedule(&c, p, &node);
		assert_null(msg);
		assert_string_equal(node, cases[i].want);
		sk_spod_free(p);
	}
	p = mkpod("p", "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
		       "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"n3\"]}]}]}}}",
		  CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(node, "n3");
	sk_spod_free(p);
	p = mkpod("p", "\"nodeSelector\":{\"zone\":\"c\"}", CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.");
	free(msg);
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_anti_affinity_hostname(void **state)
{
	sk_cache c;
	sk_spod *p, *q;
	const char *node;
	char *msg;
	const char *anti = "\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
			   "[{\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}";

	sk_cache_init(&c);
	add_node(&c, "n1", "4", "8Gi", 0, NULL, NULL);
	add_node(&c, "n2", "4", "8Gi", 0, NULL, NULL);
	q = place(&c, mkpod("db-0", anti, CT("100m", "1Gi"), "\"app\":\"db\""), "n1");
	p = mkpod("db-1", anti, CT("100m", "1Gi"), "\"app\":\"db\"");
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "n2");
	/* a plain pod with the label is kept off n1 by the existing pod's rule */
	sk_spod_free(p);
	place(&c, p = mkpod("db-2", anti, CT("100m", "1Gi"), "\"app\":\"db\""), "n2");
	{
		sk_spod *r = mkpod("db-3", NULL, CT("100m", "1Gi"), "\"app\":\"db\"");

		msg = schedule(&c, r, &node);
		assert_string_equal(msg, "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.");
		free(msg);
		sk_spod_free(r);
		r = mkpod("db-4", anti, CT("100m", "1Gi"), "\"app\":\"db\"");
		msg = schedule(&c, r, &node);
		assert_string_equal(msg, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
		free(msg);
		sk_spod_free(r);
		/* required affinity to app=db on the same host: both hosts have one */
		r = mkpod("web", "\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
				 "[{\"labelSelector\":{\"matchLabels\":{\"app\":\"cache\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}",
			  CT("100m", "1Gi"), NULL);
		msg = schedule(&c, r, &node);
		assert_string_equal(msg, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.");
		free(msg);
		sk_spod_free(r);
	}
	sk_cache_pod_remove(&c, q);
	sk_cache_pod_remove(&c, p);
	sk_spod_free(q);
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_topology_spread(void **state)
{
	sk_cache c;
	sk_spod *pods[4], *p;
	const char *node;
	char *msg;
	const char *spread = "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\","
			     "\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"w\"}}}]";

	sk_cache_init(&c);
	add_node(&c, "a1", "4", "8Gi", 0, NULL, "\"zone\":\"a\"");
	add_node(&c, "a2", "4", "8Gi", 0, NULL, "\"zone\":\"a\"");
	add_node(&c, "b1", "4", "8Gi", 0, NULL, "\"zone\":\"b\"");
	add_node(&c, "nozone", "4", "8Gi", 0, NULL, NULL);
	pods[0] = place(&c, mkpod("w0", NULL, CT("100m", "1Gi"), "\"app\":\"w\""), "a1");
	pods[1] = place(&c, mkpod("w1", NULL, CT("100m", "1Gi"), "\"app\":\"w\""), "a2");
	pods[2] = place(&c, mkpod("w2", NULL, CT("100m", "1Gi"), "\"app\":\"w\""), "b1");
	/* a=2, b=1: placing in a makes skew 2 > 1 -> only b1 */
	p = mkpod("w3", spread, CT("100m", "1Gi"), "\"app\":\"w\"");
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "b1");
	pods[3] = place(&c, p, "b1");
	/* a=2, b=2, only a allowed by a nodeSelector; minDomains 3 makes min 0 -> skew 3 > 1 */
	p = mkpod("w6",
		  "\"nodeSelector\":{\"zone\":\"a\"},\"topologySpreadConstraints\":[{\"maxSkew\":2,\"minDomains\":3,\"topologyKey\":\"zone\","
		  "\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"w\"}}}]",
		  CT("100m", "1Gi"), "\"app\":\"w\"");
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/4 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, "
				 "2 node(s) didn't match pod topology spread constraints.");
	free(msg);
	sk_spod_free(p);
	for (int i = 0; i < 4; i++) {
		sk_cache_pod_remove(&c, pods[i]);
		sk_spod_free(pods[i]);
	}
	sk_cache_release(&c);
}

static void test_host_ports(void **state)
{
	sk_cache c;
	sk_spod *p, *q;
	const char *node;
	char *msg;
	const char *ct = "{\"name\":\"c\",\"ports\":[{\"containerPort\":80,\"hostPort\":8080}]}";

	sk_cache_init(&c);
	add_node(&c, "n1", "4", "8Gi", 0, NULL, NULL);
	q = place(&c, mkpod("q", NULL, ct, NULL), "n1");
	p = mkpod("p", NULL, ct, NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(msg, "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.");
	free(msg);
	sk_spod_free(p);
	p = mkpod("p", NULL, "{\"name\":\"c\",\"ports\":[{\"containerPort\":80,\"hostPort\":8080,\"protocol\":\"UDP\"}]}", NULL);
	msg = schedule(&c, p, &node);
	assert_null(msg);
	sk_spod_free(p);
	sk_cache_pod_remove(&c, q);
	sk_spod_free(q);
	sk_cache_release(&c);
}

static void test_scores(void **state)
{
	sk_cache c;
	sk_spod *p, *q;
	sk_snode *n1, *n2;
	sk_cycle cy;
	const char *node;
	char *msg;

	sk_cache_init(&c);
	n1 = add_node(&c, "n1", "4", "8Gi", 0, NULL, NULL);
	n2 = add_node(&c, "n2", "4", "8Gi", 0, NULL, NULL);
	q = place(&c, mkpod("q", NULL, CT("2", "4Gi"), NULL), "n1");
	p = mkpod("p", NULL, CT("1", "2Gi"), NULL);
	sk_cycle_init(&cy, &c, p, NULL);
	/* least allocated: n1 (3/4, 6/8 used) -> 25, n2 (1/4, 2/8) -> 75 */
	assert_int_equal(sk_score_fit(&cy, n1, SK_STRATEGY_LEAST_ALLOCATED), 25);
	assert_int_equal(sk_score_fit(&cy, n2, SK_STRATEGY_LEAST_ALLOCATED), 75);
	assert_int_equal(sk_score_fit(&cy, n1, SK_STRATEGY_MOST_ALLOCATED), 75);
	assert_int_equal(sk_score_balanced(&cy, n1), 100);
	sk_cycle_release(&cy);
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "n2");
	sk_spod_free(p);
	sk_cache_pod_remove(&c, q);
	sk_spod_free(q);
	sk_cache_release(&c);
}

static void test_gpu_packing_and_prefer_taint(void **state)
{
	sk_cache c;
	sk_spod *p, *q;
	const char *node;
	char *msg;

	sk_cache_init(&c);
	add_node(&c, "g1", "32", "128Gi", 8, NULL, NULL);
	add_node(&c, "g2", "32", "128Gi", 8, NULL, NULL);
	q = place(&c, mkpod("q", NULL, CTGPU("4"), NULL), "g2");
	p = mkpod("p", NULL, CTGPU("2"), NULL);
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "g2"); /* packed onto the partly used GPU node */
	sk_spod_free(p);
	sk_cache_pod_remove(&c, q);
	sk_spod_free(q);
	sk_cache_release(&c);

	sk_cache_init(&c);
	add_node(&c, "t1", "4", "8Gi", 0, "\"taints\":[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"PreferNoSchedule\"}]", NULL);
	add_node(&c, "t2", "4", "8Gi", 0, NULL, NULL);
	p = mkpod("p", NULL, CT("1", "1Gi"), NULL);
	msg = schedule(&c, p, &node);
	assert_string_equal(node, "t2");
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_image_locality(void **state)
{
	sk_cache c;
	sk_spod *p;
	sk_snode *n1;
	sk_cycle cy;
	json_t *j;

	sk_cache_init(&c);
	j = J("{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"10\"},"
	      "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
	      "\"images\":[{\"names\":[\"big:latest\"],\"sizeBytes\":524288000}]}}");
	n1 = sk_cache_node_upsert(&c, j, NULL);
	json_decref(j);
	add_node(&c, "n2", "4", "8Gi", 0, NULL, NULL);
	p = mkpod("p", NULL, "{\"name\":\"c\",\"image\":\"big\"}", NULL);
	sk_cycle_init(&cy, &c, p, NULL);
	/* 500Mi * 1/2 nodes = 250Mi; (250-23)/(1000-23) * 100 = 23 */
	assert_int_equal(sk_score_image(&cy, n1, 2), 23);
	sk_cycle_release(&cy);
	sk_spod_free(p);
	sk_cache_release(&c);
}

static void test_runtime_class(void **state)
{
	sk_cache c;
	sk_spod *p;
	sk_algo a;
	sk_result r;
	json_t *rc = J("{\"metadata\":{\"name\":\"kata\"},\"handler\":\"kata\",\"overhead\":{\"podFixed\":{\"cpu\":\"500m\"}},"
		       "\"scheduling\":{\"nodeSelector\":{\"kata\":\"yes\"},\"tolerations\":[{\"key\":\"kata\",\"operator\":\"Exists\"}]}}");

	sk_cache_init(&c);
	add_node(&c, "plain", "4", "8Gi", 0, NULL, NULL);
	add_node(&c, "kata", "1", "8Gi", 0, "\"taints\":[{\"key\":\"kata\",\"effect\":\"NoSchedule\"}]", "\"kata\":\"yes\"");
	p = mkpod("p", "\"runtimeClassName\":\"kata\"", CT("600m", "1Gi"), NULL);
	sk_algo_init(&a, &c, 1);
	/* 600m + 500m overhead > 1 cpu on the only kata node */
	assert_int_equal(sk_algo_schedule(&a, NULL, p, rc, &r), -1);
	assert_string_equal(r.message, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.");
	sk_result_release(&r);
	sk_spod_free(p);
	p = mkpod("p", "\"runtimeClassName\":\"kata\"", CT("400m", "1Gi"), NULL);
	assert_int_equal(sk_algo_schedule(&a, NULL, p, rc, &r), 0);
	assert_string_equal(r.node->name, "kata");
	sk_result_release(&r);
	sk_spod_free(p);
	sk_algo_release(&a);
	json_decref(rc);
	sk_cache_release(&c);
}

static void test_fit_error_sorting(void **state)
{
	sk_fit f[3] = {{1, 1, {"Insufficient cpu"}}, {1, 1, {"Insufficient cpu"}}, {2, 1, {"node(s) were unschedulable"}}};
	sk_fit many[12];
	char *m = sk_fit_error_message(3, f, 3, NULL, "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");

	assert_string_equal(m, "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 "
			       "nodes are available: 3 Preemption is not helpful for scheduling.");
	free(m);
	m = sk_fit_error_message(3, f, 3, "pre-filter says no", NULL);
	assert_string_equal(m, "0/3 nodes are available: pre-filter says no.");
	free(m);
	/* upstream sorts the "count reason" strings: "10 …" sorts before "2 …" */
	for (int i = 0; i < 12; i++)
		many[i] = (sk_fit){1, 1, {i < 10 ? "b" : "a"}};
	m = sk_fit_error_message(12, many, 12, NULL, NULL);
	assert_string_equal(m, "0/12 nodes are available: 10 b, 2 a.");
	free(m);
	assert_int_equal(sk_algo_nodes_to_find(0, 5000), 500);
	assert_int_equal(sk_algo_nodes_to_find(0, 50), 50);
	assert_int_equal(sk_algo_nodes_to_find(0, 150), 100);
}

static void test_preferred_affinity_and_soft_spread(void **state)
{
	sk_cache c;
	sk_spod *q, *r, *p, *heavy;
	const char *node;
	char *msg;

	sk_cache_init(&c);
	add_node(&c, "n1", "8", "16Gi", 0, NULL, "\"zone\":\"a\"");
	add_node(&c, "n2", "8", "16Gi", 0, NULL, "\"zone\":\"b\"");
	add_node(&c, "n3", "8", "16Gi", 0, NULL, "\"zone\":\"b\"");
	q = place(&c, mkpod("cache", NULL, CT("1", "1Gi"), "\"app\":\"cache\""), "n3");
	r = place(&c, mkpod("web0", NULL, CT("1", "1Gi"), "\"app\":\"web\""), "n2");
	/* preferred affinity to the cache pod's host wins over LeastAllocated */
	p = mkpod("web1", "\"affinity\":{\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":100,"
		  "\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{\"app\":\"cache\"}},\"topologyKey\":\"kubernetes.io/hostname\"}}]}}",
		  CT("1", "1Gi"), "\"app\":\"web\"");
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "n3");
	sk_spod_free(p);
	/* soft spread by zone: zone b has web0, so zone a (n1) wins although a
	 * heavy pod makes it the most allocated node */
	heavy = place(&c, mkpod("heavy", NULL, CT("4", "1Gi"), NULL), "n1");
	p = mkpod("web2", "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\","
		  "\"whenUnsatisfiable\":\"ScheduleAnyway\",\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}}]",
		  CT("1", "1Gi"), "\"app\":\"web\"");
	msg = schedule(&c, p, &node);
	assert_null(msg);
	assert_string_equal(node, "n1");
	sk_spod_free(p);
	sk_cache_pod_remove(&c, q);
	sk_cache_pod_remove(&c, r);
	sk_cache_pod_remove(&c, heavy);
	sk_spod_free(q);
	sk_spod_free(r);
	sk_spod_free(heavy);
	sk_cache_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_init_and_sidecar),
		cmocka_unit_test(test_fit_error_gpu_and_taints),
		cmocka_unit_test(test_resources_and_pods),
		cmocka_unit_test(test_unschedulable_notready_nodename),
		cmocka_unit_test(test_node_affinity_operators),
		cmocka_unit_test(test_anti_affinity_hostname),
		cmocka_unit_test(test_topology_spread),
		cmocka_unit_test(test_host_ports),
		cmocka_unit_test(test_scores),
		cmocka_unit_test(test_gpu_packing_and_prefer_taint),
		cmocka_unit_test(test_image_locality),
		cmocka_unit_test(test_runtime_class),
		cmocka_unit_test(test_fit_error_sorting),
		cmocka_unit_test(test_preferred_affinity_and_soft_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
