/* Node agent logic without containers: $(VAR) expansion, QoS classes, the
 * downward API, resourceFieldRef, environment resolution through an
 * in-process API server (ConfigMap, Secret, envFrom, errors in kubelet's
 * words), and pod status/phase computation from container states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "agent/agent-int.h"
#include "api/api.h"
#include "store/store.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad test JSON: %s: %s", e.text, s);
	return j;
}

static void test_expand_vars(void **state)
{
	cleanup_json json_t *env = parse("[\"A=1\", \"B=two\"]");
	const char *cases[][2] = {
		{"$(A)-$(B)", "1-two"}, {"$(C)", "$(C)"}, {"$$(A)", "$(A)"}, {"x$(A", "x$(A"}, {"plain", "plain"},
		{"$(A)$(A)", "11"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_free char *out = sk__ag_expand_vars(cases[i][0], env);
		assert_string_equal(out, cases[i][1]);
	}
}

static const char *POD =
	"{\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\",\"uid\":\"u-1\",\"labels\":{\"app\":\"web\",\"tier\":\"fe\"}},"
	"\"spec\":{\"nodeName\":\"n1\",\"serviceAccountName\":\"default\",\"containers\":[{\"name\":\"c\","
	"\"resources\":{\"limits\":{\"memory\":\"64Mi\",\"cpu\":\"500m\"},\"requests\":{\"cpu\":\"250m\"}}}]},"
	"\"status\":{\"podIP\":\"10.1.0.5\",\"podIPs\":[{\"ip\":\"10.1.0.5\"}],\"hostIP\":\"127.0.0.1\"}}";

static void test_field_ref(void **state)
{
	cleanup_json json_t *pod = parse(POD);
	const char *cases[][2] = {
		{"metadata.name", "web"}, {"metadata.namespace", "prod"}, {"metadata.uid", "u-1"},
		{"spec.nodeName", "n1"}, {"status.podIP", "10.1.0.5"}, {"status.podIPs", "10.1.0.5"},
		{"metadata.labels['tier']", "fe"}, {"metadata.labels", "app=\"web\"\ntier=\"fe\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_free char *v = sk__ag_field_ref(pod, cases[i][0]);
		assert_non_null(v);
		assert_string_equal(v, cases[i][1]);
	}
	assert_null(sk__ag_field_ref(pod, "spec.bogus"));
}

static void test_resource_ref(void **state)
{
	cleanup_json json_t *pod = parse(POD);
	const char *cases[][2] = {
		{"{\"resource\":\"limits.memory\",\"divisor\":\"1Mi\"}", "64"},
		{"{\"resource\":\"limits.cpu\",\"divisor\":\"1m\"}", "500"},
		{"{\"resource\":\"requests.cpu\",\"divisor\":\"1m\"}", "250"},
		{"{\"resource\":\"limits.cpu\"}", "1"},
		{"{\"resource\":\"requests.memory\"}", "67108864"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_json json_t *ref = parse(cases[i][0]);
		sk_error_t err = {0};
		cleanup_free char *v = sk__ag_resource_ref(pod, ref, "c", &err);

		assert_non_null(v);
		assert_string_equal(v, cases[i][1]);
	}
}

static void test_b64(void **state)
{
	size_t n = 0;
	cleanup_free char *v = sk__ag_b64_decode("czNjcmV0", &n);
	cleanup_free char *bad = sk__ag_b64_decode("!!!", &n);

	assert_string_equal(v, "s3cret");
	assert_null(bad);
}

/* ---- environment through an in-process API server ---------------------------------- */

struct api_env {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_client *c;
};

static int api_setup(void **state)
{
	struct api_env *e = xzalloc(sizeof(*e));
	cleanup_free char *uri = NULL;
	sk_error_t err = {0};

	snprintf(e->dir, sizeof(e->dir), "/tmp/sk-agent-test-XXXXXX");
	if (!mkdtemp(e->dir))
		return -1;
	uri = xasprintf("sqlite://%s", e->dir);
	e->store = sk_store_open(uri, NULL, &err);
	if (!e->store)
		return -1;
	e->api = sk_api_new(e->store, NULL, &err);
	if (!e->api)
		return -1;
	e->c = sk_client_new_inproc(e->api);
	*state = e;
	return 0;
}

static int api_teardown(void **state)
{
	struct api_env *e = *state;
	cleanup_free char *cmd = xasprintf("rm -rf %s", e->dir);

	sk_client_free(e->c);
	sk_api_shutdown(e->api);
	sk_api_free(e->api);
	sk_store_close(e->store);
	if (system(cmd) != 0)
		return -1;
	free(e);
	return 0;
}

static void create(sk_client *c, const char *path, const char *obj)
{
	cleanup_json json_t *o = parse(obj);
	sk_error_t err = {0};
	cleanup_json json_t *r = sk_client_create(c, path, o, &err);

	if (!r)
		fail_msg("create %s: %s", path, err.msg);
}

static void test_env_resolution(void **state)
{
	struct api_env *e = *state;
	struct sk_agent a = {.c = e->c};
	cleanup_json json_t *pod = parse(POD);
	cleanup_json json_t *cs = parse(
		"{\"name\":\"c\",\"envFrom\":[{\"prefix\":\"CM_\",\"configMapRef\":{\"name\":\"cfg\"}}],\"env\":["
		"{\"name\":\"PATH\",\"value\":\"/custom\"},"
		"{\"name\":\"G\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"cfg\",\"key\":\"greeting\"}}},"
		"{\"name\":\"P\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"sec\",\"key\":\"password\"}}},"
		"{\"name\":\"O\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"none\",\"key\":\"k\",\"optional\":true}}},"
		"{\"name\":\"N\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}},"
		"{\"name\":\"X\",\"value\":\"$(G)/$(N)\"}]}");
	cleanup_json json_t *img_env = parse("[\"PATH=/bin\", \"HOME=/root\"]");
	cleanup_json json_t *env = NULL;
	cleanup_free char *dump = NULL;
	sk_error_t err = {0};

	json_object_set_new(json_object_get(pod, "metadata"), "namespace", json_string("default"));
	create(e->c, "/api/v1/namespaces/default/configmaps",
	       "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"},\"data\":{\"greeting\":\"hi\",\"mode\":\"m\"}}");
	create(e->c, "/api/v1/namespaces/default/secrets",
	       "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"sec\"},\"data\":{\"password\":\"czNjcmV0\"}}");
	env = sk__ag_container_env(&a, pod, cs, img_env, &err);
	if (!env)
		fail_msg("env: %s", err.msg);
	dump = json_dumps(env, JSON_COMPACT);
	assert_string_equal(dump, "[\"PATH=/custom\",\"HOME=/root\",\"CM_greeting=hi\",\"CM_mode=m\",\"G=hi\",\"P=s3cret\","
				  "\"N=web\",\"X=hi/web\"]");
}

static void test_env_errors(void **state)
{
	struct api_env *e = *state;
	struct sk_agent a = {.c = e->c};
	cleanup_json json_t *pod = parse(POD);
	cleanup_json json_t *missing_cm = parse(
		"{\"name\":\"c\",\"env\":[{\"name\":\"G\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"nope\",\"key\":\"k\"}}}]}");
	cleanup_json json_t *missing_key = parse(
		"{\"name\":\"c\",\"env\":[{\"name\":\"G\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"sec\",\"key\":\"zzz\"}}}]}");
	sk_error_t err = {0};

	json_object_set_new(json_object_get(pod, "metadata"), "namespace", json_string("default"));
	create(e->c, "/api/v1/namespaces/default/secrets",
	       "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"sec\"},\"data\":{\"password\":\"czNjcmV0\"}}");
	assert_null(sk__ag_container_env(&a, pod, missing_cm, NULL, &err));
	assert_string_equal(err.msg, "configmap \"nope\" not found");
	sk_error_clear(&err);
	assert_null(sk__ag_container_env(&a, pod, missing_key, NULL, &err));
	assert_string_equal(err.msg, "couldn't find key zzz in Secret default/sec");
}

/* ---- status --------------------------------------------------------------------------- */

static struct sk_container *exited(const char *name, int code, const char *reason)
{
	struct sk_container *c = xzalloc(sizeof(*c));

	c->id = xstrdup("0123456789abcdef");
	c->name = xstrdup(name);
	c->handler = xstrdup("crun");
	c->status = SK_CONTAINER_EXITED;
	c->exit_code = code;
	c->reason = xstrdup(reason);
	c->started_ns = 1700000000LL * 1000000000LL;
	c->finished_ns = c->started_ns + 1000000000LL;
	return c;
}

static json_t *status_for(const char *restart, struct sk_container *cur, const char *wait_reason)
{
	cleanup_free char *doc = xasprintf("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u\"},"
					   "\"spec\":{\"restartPolicy\":\"%s\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox:1\"}]}}",
					   restart);
	cleanup_json json_t *pod = parse(doc);
	struct sk_agent a = {0};
	struct apod p = {0};
	struct ctr k = {0};
	json_t *st;

	a.rt.default_handler = "crun";
	a.node_ip = "172.30.1.2";
	k.name = "c";
	k.kind = CTR_REGULAR;
	k.cur = cur;
	k.wait_reason = wait_reason ? xstrdup(wait_reason) : NULL;
	p.ctrs = &k;
	p.nctrs = 1;
	p.start_time = "2023-11-14T22:13:20Z";
	st = sk__ag_pod_status(&a, &p, pod);
	sk_container_free(cur);
	free(k.wait_reason);
	return st;
}

static const char *phase_of(json_t *st)
{
	return json_string_value(json_object_get(st, "phase"));
}

static void test_phase(void **state)
{
	cleanup_json json_t *ok = status_for("Never", exited("c", 0, "Completed"), NULL);
	cleanup_json json_t *fail = status_for("Never", exited("c", 1, "Error"), NULL);
	cleanup_json json_t *loop = status_for("Always", exited("c", 3, "Error"), "CrashLoopBackOff");
	cleanup_json json_t *onfail = status_for("OnFailure", exited("c", 0, "Completed"), NULL);
	cleanup_json json_t *creating = status_for("Always", NULL, NULL);
	json_t *cs;

	assert_string_equal(phase_of(ok), "Succeeded");
	assert_string_equal(phase_of(fail), "Failed");
	assert_string_equal(phase_of(loop), "Running");
	assert_string_equal(phase_of(onfail), "Succeeded");
	assert_string_equal(phase_of(creating), "Pending");
	cs = json_array_get(json_object_get(loop, "containerStatuses"), 0);
	assert_string_equal(json_string_value(sk_kube_jget(cs, "state.waiting.reason")), "CrashLoopBackOff");
	assert_int_equal(json_integer_value(sk_kube_jget(cs, "lastState.terminated.exitCode")), 3);
	assert_string_equal(json_string_value(json_object_get(cs, "containerID")), "crun://0123456789abcdef");
	cs = json_array_get(json_object_get(creating, "containerStatuses"), 0);
	assert_string_equal(json_string_value(sk_kube_jget(cs, "state.waiting.reason")), "ContainerCreating");
	assert_string_equal(json_string_value(json_object_get(creating, "qosClass")), "BestEffort");
	/* hostIP is the node's InternalIP */
	assert_string_equal(json_string_value(json_object_get(creating, "hostIP")), "172.30.1.2");
}

/* Node admission sizes a pod as the scheduler does: spec.overhead counts
 * (the agent's former sum left it out, so a pod the scheduler refused for a
 * full node was admitted there). The node is given 1 cpu. */
static void test_admit_counts_overhead(void **state)
{
	struct sk_agent a = {0};
	struct apod fits = {0}, over = {0};
	cleanup_json json_t *small = parse("{\"metadata\":{\"name\":\"small\"},\"spec\":{\"containers\":[{\"resources\":"
					  "{\"requests\":{\"cpu\":\"600m\"}}}],\"overhead\":{\"cpu\":\"200m\"}}}");
	cleanup_json json_t *big = parse("{\"metadata\":{\"name\":\"big\"},\"spec\":{\"containers\":[{\"resources\":"
					"{\"requests\":{\"cpu\":\"100m\"}}}],\"overhead\":{\"cpu\":\"150m\"}}}");
	struct apod *pods[] = {&fits, &over};

	pthread_mutex_init(&a.mu, NULL);
	pthread_mutex_init(&a.ev_mu, NULL);
	a.o.reserved_cpu_milli = sysconf(_SC_NPROCESSORS_ONLN) * 1000 - 1000;
	a.pods = pods;
	a.npods = 2;
	assert_int_equal(sk__ag_admit(&a, &fits, small), 0);
	assert_int_equal(fits.req_cpu, 800);
	assert_int_equal(sk__ag_admit(&a, &over, big), -1);
	assert_string_equal(over.reject_reason, "OutOfcpu");
	free(over.reject_reason);
	free(over.reject_msg);
	pthread_mutex_destroy(&a.mu);
	pthread_mutex_destroy(&a.ev_mu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand_vars),
		cmocka_unit_test(test_admit_counts_overhead),
		cmocka_unit_test(test_field_ref),
		cmocka_unit_test(test_resource_ref),
		cmocka_unit_test(test_b64),
		cmocka_unit_test_setup_teardown(test_env_resolution, api_setup, api_teardown),
		cmocka_unit_test_setup_teardown(test_env_errors, api_setup, api_teardown),
		cmocka_unit_test(test_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
