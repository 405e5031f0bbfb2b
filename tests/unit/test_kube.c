/* The Kubernetes-semantics library (src/kube/): each rule against upstream's
 * behaviour, with the cases where skiff's former copies disagreed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/affinity.h"
#include "kube/condition.h"
#include "kube/envvars.h"
#include "kube/cron.h"
#include "kube/duration.h"
#include "kube/object.h"
#include "kube/qos.h"
#include "kube/resource.h"
#include "kube/selector.h"
#include "kube/taint.h"
#include "util/util.h"

/* A fixture: JSON text parsed by jansson. */
static json_t *J(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

static const char *qos(const char *pod)
{
	cleanup_json json_t *p = J(pod);

	return sk_kube_pod_qos(p);
}

static void test_qos_basic(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}"), "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\","
				"\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}"),
			    "Guaranteed");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}"),
			    "Burstable");
}

/* The agent's copy compared requests and limits as strings: "1" and "1000m"
 * are the same quantity. */
static void test_qos_compares_values(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"limits\":{\"cpu\":\"1000m\",\"memory\":\"1073741824\"}}}]}}"),
			    "Guaranteed");
}

/* The agent's copy ignored init containers: one without limits makes the
 * pod Burstable, one with requests makes a pod of bare containers Burstable. */
static void test_qos_counts_init_containers(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{"
				"\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"2\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},"
				"\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}}]}}"),
			    "Guaranteed");
}

/* Only positive cpu and memory count: the API server's copy made a pod that
 * asks for a GPU alone Burstable, and one with zero limits Guaranteed. */
static void test_qos_only_positive_cpu_memory(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"},"
				"\"requests\":{\"nvidia.com/gpu\":\"1\"}}}]}}"),
			    "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"0\",\"memory\":\"0\"},"
				"\"requests\":{\"cpu\":\"0\",\"memory\":\"0\"}}}]}}"),
			    "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"memory\":\"1Mi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[]}}"), "BestEffort");
}

/* status.qosClass, once set, is the pod's class (upstream GetPodQOS). */
static void test_qos_status_wins(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}]},\"status\":{\"qosClass\":\"Guaranteed\"}}"),
			    "Guaranteed");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}]},\"status\":{\"qosClass\":\"bogus\"}}"), "BestEffort");
}

/* ---- pod requests and limits ---- */

static sk_kube_res requests(const char *pod, sk_kube_res *nz)
{
	cleanup_json json_t *p = J(pod);
	sk_kube_res r;

	assert_int_equal(sk_kube_pod_requests(p, &r, nz), 0);
	return r;
}

/* Upstream's TestPodRequestsAndLimits shape: sidecars add to the app
 * containers and stack under the init containers after them. */
static void test_requests_sidecars_and_init(void **state)
{
	sk_kube_res r = requests("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],"
				 "\"initContainers\":["
				 "{\"resources\":{\"requests\":{\"cpu\":\"2\"}}},"
				 "{\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"500m\"}}},"
				 "{\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]}}",
				 NULL);

	/* max(1 + 0.5, 2, 0.5, 2 + 0.5) */
	assert_int_equal(r.v[SK_KUBE_RES_CPU], 2500);
	assert_int_equal(r.v[SK_KUBE_RES_MEMORY], 1LL << 30);
	r = requests("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"3\"}}}],"
		     "\"initContainers\":[{\"restartPolicy\":\"Always\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}",
		     NULL);
	assert_int_equal(r.v[SK_KUBE_RES_CPU], 4000); /* a limit stands in for the missing request */
}

/* spec.overhead is part of the pod's size: the scheduler added it, the
 * node's admission did not. */
static void test_requests_overhead(void **state)
{
	sk_kube_res nz, r = requests("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"900m\","
				     "\"nvidia.com/gpu\":\"1\"}}}],\"overhead\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"}}}",
				     &nz);

	assert_int_equal(r.v[SK_KUBE_RES_CPU], 1150);
	assert_int_equal(r.v[SK_KUBE_RES_MEMORY], 64LL << 20);
	assert_int_equal(r.v[sk_kube_res_index("nvidia.com/gpu")], 1);
	assert_int_equal(nz.v[SK_KUBE_RES_CPU], 1150);
	assert_int_equal(nz.v[SK_KUBE_RES_MEMORY], SK_KUBE_DEFAULT_MEMORY + (64LL << 20));
}

/* NonMissingContainerRequests defaults what a container does not name, not
 * what it sets to zero: the scheduler's copy scored an explicit "0" as the
 * 100m / 200Mi default. */
static void test_requests_nonzero_only_missing(void **state)
{
	sk_kube_res nz;

	requests("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"0\"}}},{}]}}", &nz);
	assert_int_equal(nz.v[SK_KUBE_RES_CPU], SK_KUBE_DEFAULT_MILLI_CPU);
	assert_int_equal(nz.v[SK_KUBE_RES_MEMORY], 2 * SK_KUBE_DEFAULT_MEMORY);
}

static void test_limits(void **state)
{
	cleanup_json json_t *p = J("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\"}}},"
				   "{\"resources\":{\"limits\":{\"cpu\":\"1\"}}}],"
				   "\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"3\"},\"requests\":{\"cpu\":\"1\"}}}],"
				   "\"overhead\":{\"cpu\":\"100m\",\"memory\":\"1Mi\"}}}");
	sk_kube_res l;

	assert_int_equal(sk_kube_pod_limits(p, &l), 0);
	assert_int_equal(l.v[SK_KUBE_RES_CPU], 3100);
	assert_int_equal(l.v[SK_KUBE_RES_MEMORY], 0); /* overhead only where something is limited */
}

static void test_requests_malformed(void **state)
{
	cleanup_json json_t *p = J("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}}");
	sk_kube_res r;

	assert_int_equal(sk_kube_pod_requests(p, &r, NULL), -1);
}

/* ---- taints and tolerations ---- */

static bool tolerates(const char *toleration, const char *taint)
{
	cleanup_json json_t *t = J(toleration), *n = J(taint);

	return sk_kube_tolerates_taint(t, n);
}

/* Upstream's TestTolerationToleratesTaint cases. */
static void test_toleration_basics(void **state)
{
	const char *taint = "{\"key\":\"foo\",\"value\":\"bar\",\"effect\":\"NoSchedule\"}";

	assert_true(tolerates("{\"key\":\"foo\",\"operator\":\"Equal\",\"value\":\"bar\",\"effect\":\"NoSchedule\"}",
			      taint));
	assert_true(tolerates("{\"key\":\"foo\",\"value\":\"bar\"}", taint)); /* empty operator: Equal */
	assert_false(tolerates("{\"key\":\"foo\",\"value\":\"baz\"}", taint));
	assert_true(tolerates("{\"key\":\"foo\",\"operator\":\"Exists\"}", taint));
	assert_true(tolerates("{\"operator\":\"Exists\"}", taint)); /* an empty key matches every key */
	assert_false(tolerates("{\"key\":\"foo\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}", taint));
	assert_false(tolerates("{\"key\":\"other\",\"operator\":\"Exists\"}", taint));
	assert_true(tolerates("{\"key\":\"foo\",\"operator\":\"Exists\"}", "{\"key\":\"foo\",\"effect\":\"NoExecute\"}"));
}

/* An unknown operator tolerates nothing: the scheduler's copy read it as
 * Equal, the node lifecycle controller's as Exists. */
static void test_toleration_unknown_operator(void **state)
{
	assert_false(tolerates("{\"key\":\"foo\",\"operator\":\"Lt\",\"value\":\"bar\"}",
			       "{\"key\":\"foo\",\"value\":\"bar\",\"effect\":\"NoSchedule\"}"));
	assert_false(tolerates("{\"key\":\"foo\",\"operator\":\"Lt\"}", "{\"key\":\"foo\",\"effect\":\"NoExecute\"}"));
}

/* An empty key with Equal compares values (upstream; validation refuses such
 * a toleration, both former copies refused to match it). */
static void test_toleration_empty_key_equal(void **state)
{
	assert_true(tolerates("{\"operator\":\"Equal\"}", "{\"key\":\"foo\",\"effect\":\"NoSchedule\"}"));
	assert_false(tolerates("{\"operator\":\"Equal\"}", "{\"key\":\"foo\",\"value\":\"v\",\"effect\":\"NoSchedule\"}"));
}

static void test_tolerations_find_first(void **state)
{
	cleanup_json json_t *tols = J("[{\"key\":\"a\",\"operator\":\"Exists\"},"
				      "{\"key\":\"b\",\"operator\":\"Exists\",\"tolerationSeconds\":5},"
				      "{\"operator\":\"Exists\"}]");
	cleanup_json json_t *taint = J("{\"key\":\"b\",\"effect\":\"NoExecute\"}");

	assert_ptr_equal(sk_kube_tolerations_find(tols, taint), json_array_get(tols, 1));
	assert_null(sk_kube_tolerations_find(NULL, taint));
	assert_int_equal(sk_kube_taint_effect("PreferNoSchedule"), SK_KUBE_EFFECT_PREFER);
	assert_int_equal(sk_kube_taint_effect(""), 0);
	assert_int_equal(sk_kube_taint_effect("Sometimes"), -1);
}

/* ---- label selectors ---- */

/* The scheduler matches LabelSelector objects without compiling them; both
 * forms must agree (the scheduler's own copy was a fourth implementation). */
static void test_selector_json_match_agrees(void **state)
{
	const char *sels[] = {
		"{}",
		"{\"matchLabels\":{\"app\":\"web\"}}",
		"{\"matchLabels\":{\"app\":\"web\",\"tier\":\"\"}}",
		"{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\",\"values\":[\"web\",\"db\"]}]}",
		"{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"NotIn\",\"values\":[\"web\"]}]}",
		"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"Exists\"}]}",
		"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"DoesNotExist\"}]}",
		"{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"\"]}]}",
		NULL,
	};
	const char *labels[] = {"{}", "{\"app\":\"web\"}", "{\"app\":\"db\",\"tier\":\"\"}",
				"{\"app\":\"web\",\"tier\":\"fe\"}", "{\"app\":\"web\",\"tier\":\"\"}", NULL};

	for (int i = 0; sels[i]; i++)
		for (int j = 0; labels[j]; j++) {
			cleanup_json json_t *js = J(sels[i]), *l = J(labels[j]);
			sk_error_t err = {0};
			sk_kube_label_selector *sel = sk_kube_label_selector_from_json(js, &err);

			assert_non_null(sel);
			if (sk_kube_label_selector_match(sel, l) != sk_kube_label_selector_json_match(js, l))
				fail_msg("%s against %s: the two forms disagree", sels[i], labels[j]);
			sk_kube_label_selector_free(sel);
		}
}

static void test_selector_json_match_edges(void **state)
{
	cleanup_json json_t *l = J("{\"app\":\"web\"}");
	cleanup_json json_t *bad = J("{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}");

	assert_int_equal(sk_kube_label_selector_json_match(NULL, l), 0); /* nil selects nothing */
	assert_int_equal(sk_kube_label_selector_json_match(bad, l), 0);  /* no LabelSelector operator */
	assert_int_equal(sk_kube_label_selector_json_match(json_object_get(l, "nothing"), NULL), 0);
}

/* ---- cron schedules ---- */

static const char *cron_error(const char *spec)
{
	static sk_error_t err;
	sk_kube_cron *c;

	memset(&err, 0, sizeof(err));
	c = sk_kube_cron_parse(spec, &err);
	if (c) {
		sk_kube_cron_free(c);
		return NULL;
	}
	return err.msg;
}

/* The API server validated with one parser and the CronJob controller ran
 * another: "@every 1us" and "@every 250ms" passed validation and the
 * controller refused them; "@every 1.5.5h" passed validation and is no Go
 * duration. */
static void test_cron_every_is_go_duration(void **state)
{
	sk_kube_cron *c;
	sk_error_t err = {0};

	assert_null(cron_error("@every 1us"));
	assert_null(cron_error("@every 250ms"));
	assert_null(cron_error("@every 1h2m3.5s"));
	assert_string_equal(cron_error("@every 1.5.5h"),
			    "failed to parse duration @every 1.5.5h: time: missing unit in duration \"1.5.5h\"");
	assert_string_equal(cron_error("@every h"), "failed to parse duration @every h: time: invalid duration \"h\"");
	assert_string_equal(cron_error("@every 5"), "failed to parse duration @every 5: time: missing unit in duration \"5\"");
	assert_string_equal(cron_error("@every 5d"), "failed to parse duration @every 5d: time: unknown unit \"d\" in duration \"5d\"");
	c = sk_kube_cron_parse("@every 250ms", &err); /* under a second runs every second */
	assert_int_equal(sk_kube_cron_next(c, 100, "UTC"), 101);
	sk_kube_cron_free(c);
	c = sk_kube_cron_parse("@every 1m30.9s", &err);
	assert_int_equal(sk_kube_cron_next(c, 100, "UTC"), 190);
	sk_kube_cron_free(c);
}

/* robfig/cron's messages, which the API server returns. The controller's
 * parser had its own ("failed to parse int from a"). */
static void test_cron_messages(void **state)
{
	assert_string_equal(cron_error("a * * * *"), "failed to parse int from a: strconv.Atoi: parsing \"a\": invalid syntax");
	assert_string_equal(cron_error("-1 * * * *"), "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax");
	assert_string_equal(cron_error("*/-1 * * * *"), "negative number (-1) not allowed: -1");
	assert_string_equal(cron_error("*/0 * * * *"), "step of range should be a positive number: */0");
	assert_string_equal(cron_error("61 * * * *"), "end of range (61) above maximum (59): 61");
	assert_string_equal(cron_error("5-1 * * * *"), "beginning of range (5) beyond end of range (1): 5-1");
	assert_string_equal(cron_error("1-2-3 * * * *"), "too many hyphens: 1-2-3");
	assert_string_equal(cron_error("*/2/3 * * * *"), "too many slashes: */2/3");
	assert_string_equal(cron_error("* *  *"), "expected exactly 5 fields, found 3: [* * *]");
	assert_string_equal(cron_error("@fortnightly"), "unrecognized descriptor: @fortnightly");
	assert_string_equal(cron_error(""), "empty spec string");
	assert_null(cron_error("0 0 * JAN-mar sun,Sat"));
	assert_null(cron_error("+5 * * * *"));
}

/* ---- conditions ---- */

static void test_condition_transition_time(void **state)
{
	cleanup_json json_t *st = json_object();
	json_t *c;

	assert_int_equal(sk_kube_condition_set(st, "Ready", "False", "Starting", NULL, "T1", 0), 1);
	c = sk_kube_condition_get(st, "Ready");
	assert_string_equal(sk_kube_jstr(c, "lastTransitionTime"), "T1");
	assert_null(json_object_get(c, "message")); /* omitempty, as Go writes it */
	/* same status: the time stays, a new reason still counts as a change */
	assert_int_equal(sk_kube_condition_set(st, "Ready", "False", "Starting", NULL, "T2", 0), 0);
	assert_int_equal(sk_kube_condition_set(st, "Ready", "False", "Pulling", "image", "T3", 0), 1);
	assert_string_equal(sk_kube_jstr(c, "lastTransitionTime"), "T1");
	assert_string_equal(sk_kube_jstr(c, "reason"), "Pulling");
	assert_int_equal(sk_kube_condition_set(st, "Ready", "True", NULL, NULL, "T4", 0), 1);
	assert_string_equal(sk_kube_jstr(c, "lastTransitionTime"), "T4");
	assert_null(json_object_get(c, "reason"));
	assert_int_equal(json_array_size(json_object_get(st, "conditions")), 1);
	sk_kube_condition_remove(st, "Ready");
	assert_null(sk_kube_condition_get(st, "Ready"));
}

/* The API server's copy (binding, eviction) replaced the condition and reset
 * lastTransitionTime even when the status stayed; upstream's
 * UpdatePodCondition keeps both the place and the time. */
static void test_condition_kept_in_place(void **state)
{
	cleanup_json json_t *st = J("{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
				    "\"lastProbeTime\":null,\"lastTransitionTime\":\"T1\",\"reason\":\"EvictionByEvictionAPI\"},"
				    "{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"T0\"}]}");
	json_t *conds = json_object_get(st, "conditions");

	sk_kube_condition_set(st, "DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting", "T2",
			      SK_KUBE_COND_NULL_PROBE);
	assert_string_equal(sk_kube_jstr(json_array_get(conds, 0), "type"), "DisruptionTarget");
	assert_string_equal(sk_kube_jstr(json_array_get(conds, 0), "lastTransitionTime"), "T1");
	assert_string_equal(sk_kube_condition_since(conds, "Ready", "True", "T9"), "T0");
	assert_string_equal(sk_kube_condition_since(conds, "Ready", "False", "T9"), "T9");
	assert_string_equal(sk_kube_condition_since(NULL, "Ready", "True", "T9"), "T9");
}

static void test_condition_probe_and_update_times(void **state)
{
	cleanup_json json_t *st = json_object();
	json_t *c;

	sk_kube_condition_set(st, "Progressing", "True", "NewReplicaSetCreated", "m", "T1", SK_KUBE_COND_UPDATE_TIME);
	c = sk_kube_condition_get(st, "Progressing");
	assert_string_equal(sk_kube_jstr(c, "lastUpdateTime"), "T1");
	sk_kube_condition_set(st, "Progressing", "True", "NewReplicaSetCreated", "m", "T2", SK_KUBE_COND_UPDATE_TIME);
	assert_string_equal(sk_kube_jstr(c, "lastUpdateTime"), "T1");
	sk_kube_condition_set(st, "Progressing", "True", "ReplicaSetUpdated", "m", "T3", SK_KUBE_COND_UPDATE_TIME);
	assert_string_equal(sk_kube_jstr(c, "lastUpdateTime"), "T3");
	assert_string_equal(sk_kube_jstr(c, "lastTransitionTime"), "T1");
	sk_kube_condition_set(st, "Complete", "True", "CompletionsReached", "", "T4", SK_KUBE_COND_PROBE_TIME);
	assert_string_equal(sk_kube_jstr(sk_kube_condition_get(st, "Complete"), "lastProbeTime"), "T4");
}

/* ---- objects ---- */

static void test_object_paths_and_owner(void **state)
{
	char longkey[300];
	cleanup_json json_t *o = J("{\"metadata\":{\"name\":\"a\",\"ownerReferences\":[{\"uid\":\"u1\"},"
				   "{\"uid\":\"u2\",\"controller\":true}]},\"spec\":[1]}");
	cleanup_json json_t *deep = NULL;

	assert_string_equal(sk_kube_jstr(o, "metadata.name"), "a");
	assert_null(sk_kube_jget(o, "metadata.name.x"));
	assert_null(sk_kube_jget(o, "spec.x"));
	assert_ptr_equal(sk_kube_jget(o, ""), o);
	assert_string_equal(sk_kube_jstr(sk_kube_controller_ref(o), "uid"), "u2");
	assert_true(sk_kube_controlled_by(o, "u2"));
	assert_false(sk_kube_controlled_by(o, "u1"));
	assert_null(sk_kube_controller_ref(NULL));
	/* the copies gave up on a key of 128 bytes or more */
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	deep = json_pack("{s:{s:s}}", "a", longkey, "v");
	{
		cleanup_free char *path = xasprintf("a.%s", longkey);

		assert_string_equal(sk_kube_jstr(deep, path), "v");
		json_object_set_new(sk_kube_jobj(deep, "x.y"), "z", json_true());
		assert_true(json_is_true(sk_kube_jget(deep, "x.y.z")));
	}
}

static void test_service_env(void **state)
{
	json_t *svcs = J("["
			 "{\"metadata\": {\"name\": \"kubernetes\", \"namespace\": \"default\"}, \"spec\": "
			 "{\"clusterIP\": \"10.43.0.1\", \"ports\": [{\"name\": \"https\", \"port\": 443, "
			 "\"protocol\": \"TCP\"}]}},"
			 "{\"metadata\": {\"name\": \"model-server\", \"namespace\": \"ml\"}, \"spec\": "
			 "{\"clusterIP\": \"10.43.9.9\", \"ports\": [{\"name\": \"http\", \"port\": 80, "
			 "\"protocol\": \"TCP\"}, {\"port\": 53, \"protocol\": \"UDP\"}]}},"
			 "{\"metadata\": {\"name\": \"headless\", \"namespace\": \"ml\"}, \"spec\": "
			 "{\"clusterIP\": \"None\", \"ports\": [{\"port\": 80}]}},"
			 "{\"metadata\": {\"name\": \"other\", \"namespace\": \"team\"}, \"spec\": "
			 "{\"clusterIP\": \"10.43.1.1\", \"ports\": [{\"port\": 80}]}}]");
	json_t *env = sk_kube_pod_service_env(svcs, "ml", 1);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(env, "KUBERNETES_SERVICE_HOST")), "10.43.0.1");
	assert_string_equal(json_string_value(json_object_get(env, "KUBERNETES_SERVICE_PORT")), "443");
	assert_string_equal(json_string_value(json_object_get(env, "KUBERNETES_SERVICE_PORT_HTTPS")), "443");
	assert_string_equal(json_string_value(json_object_get(env, "KUBERNETES_PORT")), "tcp://10.43.0.1:443");
	assert_string_equal(json_string_value(json_object_get(env, "KUBERNETES_PORT_443_TCP_ADDR")), "10.43.0.1");
	assert_string_equal(json_string_value(json_object_get(env, "MODEL_SERVER_SERVICE_HOST")), "10.43.9.9");
	assert_string_equal(json_string_value(json_object_get(env, "MODEL_SERVER_SERVICE_PORT")), "80");
	assert_string_equal(json_string_value(json_object_get(env, "MODEL_SERVER_PORT_53_UDP")), "udp://10.43.9.9:53");
	assert_string_equal(json_string_value(json_object_get(env, "MODEL_SERVER_PORT_53_UDP_PROTO")), "udp");
	assert_string_equal(json_string_value(json_object_get(env, "MODEL_SERVER_PORT_80_TCP_PORT")), "80");
	assert_null(json_object_get(env, "HEADLESS_SERVICE_HOST"));
	assert_null(json_object_get(env, "OTHER_SERVICE_HOST"));
	json_decref(env);
	/* enableServiceLinks: false keeps only the master service */
	env = sk_kube_pod_service_env(svcs, "ml", 0);
	assert_non_null(json_object_get(env, "KUBERNETES_SERVICE_HOST"));
	assert_null(json_object_get(env, "MODEL_SERVER_SERVICE_HOST"));
	json_decref(env);
	json_decref(svcs);
}

static void test_pod_matches_node(void **state)
{
	json_t *node = J("{\"metadata\": {\"name\": \"n1\", \"labels\": {\"pool\": \"gpu\", \"gen\": \"9\"}}}");
	static const struct {
		const char *pod;
		bool want;
	} cases[] = {
		{"{\"spec\": {}}", true},
		{"{\"spec\": {\"nodeSelector\": {\"pool\": \"gpu\"}}}", true},
		{"{\"spec\": {\"nodeSelector\": {\"pool\": \"cpu\"}}}", false},
		{"{\"spec\": {\"nodeSelector\": {\"zone\": \"a\"}}}", false},
#define REQ "{\"spec\": {\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": "
		{REQ "{\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"gen\", \"operator\": \"Gt\", "
		     "\"values\": [\"8\"]}]}]}}}}}",
		 true},
		{REQ "{\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"gen\", \"operator\": \"Lt\", "
		     "\"values\": [\"8\"]}]}]}}}}}",
		 false},
		{REQ "{\"nodeSelectorTerms\": [{\"matchFields\": [{\"key\": \"metadata.name\", \"operator\": \"In\", "
		     "\"values\": [\"n2\"]}]}, {\"matchFields\": [{\"key\": \"metadata.name\", \"operator\": "
		     "\"In\", \"values\": [\"n1\"]}]}]}}}}}",
		 true},
		{REQ "{\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"pool\", \"operator\": \"Exists\"}, "
		     "{\"key\": \"zone\", \"operator\": \"DoesNotExist\"}, {\"key\": \"pool\", \"operator\": "
		     "\"NotIn\", \"values\": [\"cpu\"]}]}]}}}}}",
		 true},
		{REQ "{\"nodeSelectorTerms\": [{}]}}}}}", false},
		{REQ "{\"nodeSelectorTerms\": []}}}}}", false},
#undef REQ
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *pod = J(cases[i].pod);

		if (sk_kube_pod_matches_node(pod, node) != cases[i].want)
			fail_msg("case %zu: %s: want %d", i, cases[i].pod, cases[i].want);
		json_decref(pod);
	}
	json_decref(node);
}

/* Go's time.ParseDuration: the cases of its own tests that matter here. */
static void test_duration_as_go(void **state)
{
	static const struct {
		const char *s;
		int64_t ns;
	} ok[] = {{"0", 0},
		  {"5s", 5000000000LL},
		  {"1h30m", 5400000000000LL},
		  {"1m0s", 60000000000LL},
		  {"300ms", 300000000LL},
		  {"-1.5h", -5400000000000LL},
		  {"+2us", 2000},
		  {"1.s", 1000000000LL},
		  {".5s", 500000000LL},
		  {"1\xc2\xb5s", 1000},
		  {"10ns", 10}};
	static const struct {
		const char *s, *msg;
	} bad[] = {{"", "time: invalid duration \"\""},
		   {"1", "time: missing unit in duration \"1\""},
		   {"1q", "time: unknown unit \"q\" in duration \"1q\""},
		   {".s", "time: invalid duration \".s\""},
		   {"s", "time: invalid duration \"s\""},
		   {"-", "time: invalid duration \"-\""},
		   {"1e3s", "time: unknown unit \"e\" in duration \"1e3s\""},
		   {"9999999999h", "time: invalid duration \"9999999999h\""}};
	int64_t ns;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sk_error_t err = {0};

		assert_int_equal(sk_kube_duration_parse(ok[i].s, &ns, &err), 0);
		assert_int_equal(ns, ok[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sk_error_t err = {0};

		assert_int_equal(sk_kube_duration_parse(bad[i].s, &ns, &err), -1);
		assert_string_equal(err.msg, bad[i].msg);
	}
	assert_int_equal(sk_kube_duration_parse("2h", &ns, NULL), 0);
	assert_int_equal(sk_kube_duration_parse("x", &ns, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qos_basic),
		cmocka_unit_test(test_qos_compares_values),
		cmocka_unit_test(test_qos_counts_init_containers),
		cmocka_unit_test(test_qos_only_positive_cpu_memory),
		cmocka_unit_test(test_qos_status_wins),
		cmocka_unit_test(test_requests_sidecars_and_init),
		cmocka_unit_test(test_requests_overhead),
		cmocka_unit_test(test_requests_nonzero_only_missing),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_requests_malformed),
		cmocka_unit_test(test_toleration_basics),
		cmocka_unit_test(test_toleration_unknown_operator),
		cmocka_unit_test(test_toleration_empty_key_equal),
		cmocka_unit_test(test_tolerations_find_first),
		cmocka_unit_test(test_selector_json_match_agrees),
		cmocka_unit_test(test_selector_json_match_edges),
		cmocka_unit_test(test_cron_every_is_go_duration),
		cmocka_unit_test(test_cron_messages),
		cmocka_unit_test(test_condition_transition_time),
		cmocka_unit_test(test_condition_kept_in_place),
		cmocka_unit_test(test_condition_probe_and_update_times),
		cmocka_unit_test(test_object_paths_and_owner),
		cmocka_unit_test(test_pod_matches_node),
		cmocka_unit_test(test_service_env),
		cmocka_unit_test(test_duration_as_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
