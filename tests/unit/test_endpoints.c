/* Unit tests for the endpoint controllers' pure logic (ctrl/endpointutil.h):
 * port resolution, the endpoints a Service's pods make, the EndpointSlice
 * reconciler's plans, RepackSubsets, the Endpoints object and mirroring. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/endpointutil.h"
#include "kube/object.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad json: %s: %s", e.text, s);
	return j;
}

#define SVC(spec) \
	"{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\",\"uid\":\"svc-uid\",\"labels\":{\"app\":\"web\"}}," \
	"\"spec\":" spec "}"

static json_t *pod(const char *name, const char *ip, int ready, const char *extra_spec)
{
	char buf[2048];

	snprintf(buf, sizeof(buf),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\",\"uid\":\"uid-%s\",\"labels\":{\"app\":\"web\"}},"
		 "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"ports\":[{\"name\":\"http\","
		 "\"containerPort\":8080,\"protocol\":\"TCP\"}]}]%s},"
		 "\"status\":{\"phase\":\"Running\"%s%s%s,\"conditions\":[{\"type\":\"Ready\",\"status\":\"%s\"}]}}",
		 name, name, extra_spec ? extra_spec : "", ip ? ",\"podIP\":\"" : "", ip ? ip : "", ip ? "\"" : "",
		 ready ? "True" : "False");
	return parse(buf);
}

static json_t *nodes(void)
{
	return parse("{\"n1\":{\"metadata\":{\"name\":\"n1\",\"labels\":{\"topology.kubernetes.io/zone\":\"z1\"}}}}");
}

static void test_find_port(void **state)
{
	cleanup_json json_t *p = pod("a", "10.0.0.1", 1,
				     ",\"initContainers\":[{\"name\":\"side\",\"restartPolicy\":\"Always\","
				     "\"ports\":[{\"name\":\"metrics\",\"containerPort\":9100,\"protocol\":\"TCP\"}]},"
				     "{\"name\":\"init\",\"ports\":[{\"name\":\"once\",\"containerPort\":1}]}]");
	cleanup_json json_t *named = parse("{\"port\":80,\"targetPort\":\"http\",\"protocol\":\"TCP\"}");
	cleanup_json json_t *udp = parse("{\"port\":80,\"targetPort\":\"http\",\"protocol\":\"UDP\"}");
	cleanup_json json_t *num = parse("{\"port\":80,\"targetPort\":8081}");
	cleanup_json json_t *side = parse("{\"port\":80,\"targetPort\":\"metrics\"}");
	cleanup_json json_t *init = parse("{\"port\":80,\"targetPort\":\"once\"}");
	cleanup_json json_t *bare = parse("{\"port\":81}");

	(void)state;
	assert_int_equal(sk_eps_find_port(p, named), 8080);
	assert_int_equal(sk_eps_find_port(p, udp), -1);
	assert_int_equal(sk_eps_find_port(p, num), 8081);
	assert_int_equal(sk_eps_find_port(p, side), 9100);
	assert_int_equal(sk_eps_find_port(p, init), -1);
	assert_int_equal(sk_eps_find_port(p, bare), 81);
}

static void test_pod_included(void **state)
{
	cleanup_json json_t *ok = pod("a", "10.0.0.1", 0, NULL), *noip = pod("b", NULL, 1, NULL);
	cleanup_json json_t *done = pod("c", "10.0.0.3", 1, NULL), *term = pod("d", "10.0.0.4", 1, NULL);

	(void)state;
	json_object_set_new(json_object_get(done, "status"), "phase", json_string("Succeeded"));
	json_object_set_new(json_object_get(term, "metadata"), "deletionTimestamp", json_string("2024-01-01T00:00:00Z"));
	assert_true(sk_eps_pod_included(ok, 0));
	assert_false(sk_eps_pod_included(noip, 1));
	assert_false(sk_eps_pod_included(done, 1));
	assert_true(sk_eps_pod_included(term, 1));
	assert_false(sk_eps_pod_included(term, 0));
}

static void test_desired(void **state)
{
	cleanup_json json_t *svc = parse(SVC("{\"selector\":{\"app\":\"web\"},\"clusterIP\":\"None\","
					     "\"ports\":[{\"name\":\"h\",\"port\":80,\"targetPort\":\"http\","
					     "\"protocol\":\"TCP\",\"appProtocol\":\"http\"}]}"));
	cleanup_json json_t *pods = json_array(), *n = nodes(), *d = NULL;
	json_t *group, *eps, *e0, *e1;
	const char *k;
	int missing = 0;

	(void)state;
	json_array_append_new(pods, pod("b", "10.0.0.2", 0, ",\"hostname\":\"b\",\"subdomain\":\"web\""));
	json_array_append_new(pods, pod("a", "10.0.0.1", 1, ",\"hostname\":\"a\",\"subdomain\":\"other\""));
	json_array_append_new(pods, pod("c", "10.0.0.3", 1, NULL));
	json_object_set_new(json_object_get(json_array_get(pods, 2), "spec"), "nodeName", json_string("gone"));
	d = sk_eps_desired(svc, pods, n, "IPv4", &missing);
	assert_int_equal(missing, 1);
	assert_int_equal(json_object_size(d), 1);
	json_object_foreach(d, k, group) {
		cleanup_json json_t *want_ports =
			parse("[{\"name\":\"h\",\"port\":8080,\"protocol\":\"TCP\",\"appProtocol\":\"http\"}]");

		assert_true(json_equal(json_object_get(group, "ports"), want_ports));
		eps = json_object_get(group, "endpoints");
		assert_int_equal(json_array_size(eps), 2);
		e0 = json_array_get(eps, 0);
		e1 = json_array_get(eps, 1);
		{
			cleanup_json json_t *want0 = parse(
				"{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":true,\"serving\":true,"
				"\"terminating\":false},\"targetRef\":{\"kind\":\"Pod\",\"namespace\":\"ns\",\"name\":\"a\","
				"\"uid\":\"uid-a\"},\"nodeName\":\"n1\",\"zone\":\"z1\"}");
			cleanup_json json_t *want1 = parse(
				"{\"addresses\":[\"10.0.0.2\"],\"conditions\":{\"ready\":false,\"serving\":false,"
				"\"terminating\":false},\"targetRef\":{\"kind\":\"Pod\",\"namespace\":\"ns\",\"name\":\"b\","
				"\"uid\":\"uid-b\"},\"nodeName\":\"n1\",\"zone\":\"z1\",\"hostname\":\"b\"}");

			assert_true(json_equal(e0, want0));
			assert_true(json_equal(e1, want1));
		}
	}
	/* publishNotReadyAddresses: ready regardless, and a pod on an unknown node is kept */
	json_object_set_new(json_object_get(svc, "spec"), "publishNotReadyAddresses", json_true());
	json_decref(d);
	missing = 0;
	d = sk_eps_desired(svc, pods, n, "IPv4", &missing);
	assert_int_equal(missing, 0);
	json_object_foreach(d, k, group) {
		eps = json_object_get(group, "endpoints");
		assert_int_equal(json_array_size(eps), 3);
		assert_true(json_is_true(sk_kube_jget(json_array_get(eps, 1), "conditions.ready")));
		assert_true(json_is_false(sk_kube_jget(json_array_get(eps, 1), "conditions.serving")));
		assert_null(json_object_get(json_array_get(eps, 2), "zone"));
	}
}

static json_t *pods_n(int n)
{
	json_t *pods = json_array();
	char name[32], ip[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%02d", i);
		snprintf(ip, sizeof(ip), "10.0.1.%d", i + 1);
		json_array_append_new(pods, pod(name, ip, 1, NULL));
	}
	return pods;
}

/* A stored slice made from a planned create (named, as the server would). */
static json_t *stored(json_t *create, const char *name)
{
	json_t *s = json_deep_copy(create), *meta = json_object_get(s, "metadata");

	json_object_set_new(meta, "name", json_string(name));
	json_object_del(meta, "generateName");
	return s;
}

#define WEB SVC("{\"selector\":{\"app\":\"web\"},\"clusterIP\":\"10.43.0.5\",\"ipFamilies\":[\"IPv4\"]," \
		"\"ports\":[{\"name\":\"h\",\"port\":80,\"targetPort\":\"http\",\"protocol\":\"TCP\"}]}")

static void test_reconcile_fresh_and_steady(void **state)
{
	cleanup_json json_t *svc = parse(WEB), *pods = pods_n(5), *n = nodes(), *existing = json_array();
	sk_eps_plan plan;
	json_t *s;
	size_t i;
	int missing = 0;

	(void)state;
	sk_eps_reconcile(svc, pods, n, existing, 2, &plan, &missing);
	assert_int_equal(json_array_size(plan.create), 3);
	assert_int_equal(json_array_size(plan.update), 0);
	assert_int_equal(json_array_size(plan.del), 0);
	json_array_foreach(plan.create, i, s) {
		char name[16];

		assert_string_equal(sk_kube_jstr(s, "metadata.generateName"), "web-");
		assert_string_equal(sk_kube_jstr(s, "metadata.labels.app"), "web");
		assert_string_equal(json_string_value(json_object_get(sk_kube_jget(s, "metadata.labels"),
								      "endpointslice.kubernetes.io/managed-by")),
				    "endpointslice-controller.k8s.io");
		assert_null(json_object_get(sk_kube_jget(s, "metadata.labels"), "service.kubernetes.io/headless"));
		assert_string_equal(sk_kube_jstr(json_array_get(sk_kube_jget(s, "metadata.ownerReferences"), 0), "uid"),
				    "svc-uid");
		assert_true(json_array_size(json_object_get(s, "endpoints")) <= 2);
		snprintf(name, sizeof(name), "web-%zu", i);
		json_array_append_new(existing, stored(s, name));
	}
	sk_eps_plan_release(&plan);
	/* nothing changed: nothing to write */
	sk_eps_reconcile(svc, pods, n, existing, 2, &plan, &missing);
	assert_int_equal(json_array_size(plan.create) + json_array_size(plan.update) + json_array_size(plan.del), 0);
	sk_eps_plan_release(&plan);
	/* one pod gone: only its slice is rewritten */
	json_array_remove(pods, 0);
	sk_eps_reconcile(svc, pods, n, existing, 2, &plan, &missing);
	assert_int_equal(json_array_size(plan.create), 0);
	assert_int_equal(json_array_size(plan.update) + json_array_size(plan.del), 1);
	sk_eps_plan_release(&plan);
	/* a readiness change updates the endpoint in place */
	json_object_set_new(json_array_get(sk_kube_jget(json_array_get(pods, 3), "status.conditions"), 0), "status",
			    json_string("False"));
	json_array_append_new(pods, pod("p00", "10.0.1.1", 1, NULL));
	sk_eps_reconcile(svc, pods, n, existing, 2, &plan, &missing);
	assert_int_equal(json_array_size(plan.create) + json_array_size(plan.del), 0);
	assert_int_equal(json_array_size(plan.update), 1);
	sk_eps_plan_release(&plan);
}

static void test_reconcile_placeholder_and_cleanup(void **state)
{
	cleanup_json json_t *svc = parse(WEB), *pods = json_array(), *n = nodes(), *existing = json_array();
	sk_eps_plan plan;
	json_t *ph, *foreign, *v6;

	(void)state;
	sk_eps_reconcile(svc, pods, n, existing, 100, &plan, NULL);
	assert_int_equal(json_array_size(plan.create), 1);
	ph = json_array_get(plan.create, 0);
	assert_int_equal(json_array_size(json_object_get(ph, "endpoints")), 0);
	assert_null(json_object_get(ph, "ports"));
	json_array_append_new(existing, stored(ph, "web-ph"));
	sk_eps_plan_release(&plan);
	/* the stored placeholder is kept as it is */
	sk_eps_reconcile(svc, pods, n, existing, 100, &plan, NULL);
	assert_int_equal(json_array_size(plan.create) + json_array_size(plan.update) + json_array_size(plan.del), 0);
	sk_eps_plan_release(&plan);
	/* a slice of another owner and one of an address type the Service lacks go */
	foreign = json_deep_copy(json_array_get(existing, 0));
	json_object_set_new(json_object_get(foreign, "metadata"), "name", json_string("web-old"));
	json_object_set_new(json_array_get(sk_kube_jget(foreign, "metadata.ownerReferences"), 0), "uid",
			    json_string("old-uid"));
	json_array_append_new(existing, foreign);
	v6 = json_deep_copy(json_array_get(existing, 0));
	json_object_set_new(json_object_get(v6, "metadata"), "name", json_string("web-v6"));
	json_object_set_new(v6, "addressType", json_string("IPv6"));
	json_array_append_new(existing, v6);
	json_array_append_new(pods, pod("a", "10.0.0.1", 1, NULL));
	sk_eps_reconcile(svc, pods, n, existing, 100, &plan, NULL);
	/* the placeholder goes (its ports differ) and a new slice is made; the
	 * controller turns that pair into an update */
	assert_int_equal(json_array_size(plan.create), 1);
	assert_int_equal(json_array_size(plan.del), 3);
	sk_eps_plan_release(&plan);
}

static void test_repack(void **state)
{
	cleanup_json json_t *in = parse(
		"[{\"addresses\":[{\"ip\":\"10.0.0.2\"}],\"ports\":[{\"port\":80,\"protocol\":\"TCP\"}]},"
		"{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80,\"protocol\":\"TCP\"}]},"
		"{\"notReadyAddresses\":[{\"ip\":\"10.0.0.3\"}],\"ports\":[{\"port\":80,\"protocol\":\"TCP\"}]},"
		"{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":443,\"protocol\":\"TCP\"}]},"
		"{\"notReadyAddresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":443,\"protocol\":\"TCP\"}]}]");
	cleanup_json json_t *out = sk_ep_repack(in);
	cleanup_json json_t *want = parse(
		"[{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":\"10.0.0.2\"}],\"notReadyAddresses\":[{\"ip\":\"10.0.0.3\"}],"
		"\"ports\":[{\"port\":80,\"protocol\":\"TCP\"}]},"
		"{\"notReadyAddresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":443,\"protocol\":\"TCP\"}]}]");

	(void)state;
	assert_true(json_equal(out, want));
}

static void test_endpoints_object(void **state)
{
	cleanup_json json_t *svc = parse(WEB), *pods = pods_n(3), *ep = NULL, *again = NULL;
	json_t *ss;

	(void)state;
	json_array_append_new(pods, pod("nr", "10.0.2.1", 0, NULL));
	ep = sk_ep_desired(svc, pods, NULL, "2024-01-01T00:00:00Z");
	assert_non_null(ep);
	assert_string_equal(sk_kube_jstr(ep, "metadata.name"), "web");
	assert_string_equal(sk_kube_jstr(ep, "metadata.labels.app"), "web");
	assert_string_equal(json_string_value(json_object_get(sk_kube_jget(ep, "metadata.annotations"),
							      "endpoints.kubernetes.io/last-change-trigger-time")),
			    "2024-01-01T00:00:00Z");
	ss = json_array_get(json_object_get(ep, "subsets"), 0);
	assert_int_equal(json_array_size(json_object_get(ss, "addresses")), 3);
	assert_int_equal(json_array_size(json_object_get(ss, "notReadyAddresses")), 1);
	{
		cleanup_json json_t *want = parse("[{\"name\":\"h\",\"port\":8080,\"protocol\":\"TCP\"}]");

		assert_true(json_equal(json_object_get(ss, "ports"), want));
	}
	/* stored as is: no write, whatever the trigger time */
	again = sk_ep_desired(svc, pods, ep, "2025-01-01T00:00:00Z");
	assert_null(again);
}

static void test_endpoints_over_capacity(void **state)
{
	cleanup_json json_t *svc = parse(WEB), *pods = json_array(), *ep = NULL;
	char name[32], ip[32];

	(void)state;
	for (int i = 0; i < 1100; i++) {
		snprintf(name, sizeof(name), "p%04d", i);
		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 250, i % 250 + 1);
		json_array_append_new(pods, pod(name, ip, i % 2, NULL));
	}
	ep = sk_ep_desired(svc, pods, NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(sk_kube_jget(ep, "metadata.annotations"),
							      "endpoints.kubernetes.io/over-capacity")),
			    "truncated");
	{
		json_t *ss = json_array_get(json_object_get(ep, "subsets"), 0);

		/* the 550 ready addresses are kept, not-ready ones fill up to 1000 */
		assert_int_equal(json_array_size(json_object_get(ss, "addresses")), 550);
		assert_int_equal(json_array_size(json_object_get(ss, "notReadyAddresses")), 450);
	}
}

static void test_mirror(void **state)
{
	cleanup_json json_t *ep = parse(
		"{\"metadata\":{\"name\":\"ext\",\"namespace\":\"ns\",\"uid\":\"ep-uid\",\"labels\":{\"l\":\"1\"},"
		"\"annotations\":{\"a\":\"1\",\"endpoints.kubernetes.io/last-change-trigger-time\":\"x\"}},"
		"\"subsets\":[{\"addresses\":[{\"ip\":\"192.0.2.1\"},{\"ip\":\"not-an-ip\"},{\"ip\":\"2001:db8::1\"}],"
		"\"notReadyAddresses\":[{\"ip\":\"192.0.2.2\",\"hostname\":\"h\"}],"
		"\"ports\":[{\"name\":\"p\",\"port\":80}]}]}");
	cleanup_json json_t *existing = json_array();
	sk_eps_plan plan;
	int skipped, invalid;
	json_t *s;
	size_t i;

	(void)state;
	sk_eps_mirror_reconcile(ep, existing, 1000, &plan, &skipped, &invalid);
	assert_int_equal(invalid, 1);
	assert_int_equal(skipped, 1);
	assert_int_equal(json_array_size(plan.create), 2);
	json_array_foreach(plan.create, i, s) {
		const char *type = sk_kube_jstr(s, "addressType");
		cleanup_json json_t *want_ann = parse("{\"a\":\"1\"}");
		cleanup_json json_t *want_ports = parse("[{\"name\":\"p\",\"port\":80,\"protocol\":\"TCP\"}]");

		assert_true(json_equal(sk_kube_jget(s, "metadata.annotations"), want_ann));
		assert_true(json_equal(json_object_get(s, "ports"), want_ports));
		assert_string_equal(sk_kube_jstr(json_array_get(sk_kube_jget(s, "metadata.ownerReferences"), 0), "kind"),
				    "Endpoints");
		if (!strcmp(type, "IPv4")) {
			cleanup_json json_t *want = parse(
				"[{\"addresses\":[\"192.0.2.1\"],\"conditions\":{\"ready\":true}},"
				"{\"addresses\":[\"192.0.2.2\"],\"conditions\":{\"ready\":false},\"hostname\":\"h\"}]");

			assert_true(json_equal(json_object_get(s, "endpoints"), want));
		} else {
			assert_string_equal(type, "IPv6");
		}
		json_array_append_new(existing, stored(s, !strcmp(type, "IPv4") ? "ext-4" : "ext-6"));
	}
	sk_eps_plan_release(&plan);
	sk_eps_mirror_reconcile(ep, existing, 1000, &plan, &skipped, &invalid);
	assert_int_equal(json_array_size(plan.create) + json_array_size(plan.update) + json_array_size(plan.del), 0);
	sk_eps_plan_release(&plan);
	/* the IPv6 address goes: its slice is deleted */
	json_array_remove(sk_kube_jget(json_array_get(json_object_get(ep, "subsets"), 0), "addresses"), 2);
	sk_eps_mirror_reconcile(ep, existing, 1000, &plan, &skipped, &invalid);
	assert_int_equal(json_array_size(plan.del), 1);
	assert_string_equal(sk_kube_jstr(json_array_get(plan.del, 0), "metadata.name"), "ext-6");
	sk_eps_plan_release(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_port),
		cmocka_unit_test(test_pod_included),
		cmocka_unit_test(test_desired),
		cmocka_unit_test(test_reconcile_fresh_and_steady),
		cmocka_unit_test(test_reconcile_placeholder_and_cleanup),
		cmocka_unit_test(test_repack),
		cmocka_unit_test(test_endpoints_object),
		cmocka_unit_test(test_endpoints_over_capacity),
		cmocka_unit_test(test_mirror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
