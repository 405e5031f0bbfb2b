/* The controllers against the real API server through the in-process client
 * (sqlite store in a temporary directory), with the test playing the node:
 * ReplicaSet scaling, adoption and release, a Deployment rollout, Job tracking across a controller
 * restart (no finished pod lost or counted twice), foreground deletion,
 * namespace deletion and the garbage collector following custom kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "client/informer.h"
#include "ctrl/ctrl-int.h"
#include "ctrl/ctrl.h"
#include "store/store.h"
#include "util/util.h"

struct fx {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_client *c;
	sk_ctrl *ctl;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

static void start_ctrl(struct fx *f)
{
	sk_error_t err = {0};

	f->ctl = sk_ctrl_start(f->c, NULL, &err);
	if (!f->ctl)
		fail_msg("ctrl: %s", err.msg);
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));
	char uri[128];
	sk_error_t err = {0};

	snprintf(f->dir, sizeof(f->dir), "/tmp/sk-ctrl-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", f->dir);
	f->store = sk_store_open(uri, NULL, &err);
	if (!f->store)
		fail_msg("store: %s", err.msg);
	f->api = sk_api_new(f->store, NULL, &err);
	if (!f->api)
		fail_msg("api: %s", err.msg);
	sk_api_set_gc_enabled(f->api, 1);
	f->c = sk_client_new_inproc(f->api);
	start_ctrl(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_ctrl_stop(f->ctl);
	sk_client_free(f->c);
	sk_api_shutdown(f->api);
	sk_api_free(f->api);
	sk_store_close(f->store);
	nftw(f->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void create(struct fx *f, const char *path, const char *json)
{
	sk_error_t err = {0};
	cleanup_json json_t *obj = json_loads(json, 0, NULL), *r = NULL;

	assert_non_null(obj);
	r = sk_client_create(f->c, path, obj, &err);
	if (!r)
		fail_msg("create %s: %s", path, err.msg);
}

static json_t *items(struct fx *f, const char *path, const char *query)
{
	sk_error_t err = {0};
	json_t *l = sk_client_list(f->c, path, query, &err), *it;

	if (!l)
		return json_array();
	it = json_incref(json_object_get(l, "items"));
	json_decref(l);
	return it;
}

static size_t count(struct fx *f, const char *path, const char *query)
{
	cleanup_json json_t *it = items(f, path, query);

	return json_array_size(it);
}

/* Polls pred for up to 20 s. */
#define WAIT(pred)                                                              \
	do {                                                                    \
		int ok_ = 0;                                                    \
		for (int i_ = 0; i_ < 400 && !(ok_ = (pred)); i_++)            \
			usleep(50000);                                          \
		if (!ok_)                                                       \
			fail_msg("timed out: %s", #pred);                       \
	} while (0)

static void set_phase(struct fx *f, json_t *pod, const char *phase, int ready)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s/status",
					    json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace")),
					    json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")));
	char ts[32];
	cleanup_json json_t *patch = NULL, *out = NULL;
	sk_error_t err = {0};

	sk_time_format(sk_now_ns() / 1000000000, ts, sizeof(ts));
	patch = json_pack("{s:{s:s, s:[{s:s, s:s, s:s}]}}", "status", "phase", phase, "conditions", "type", "Ready",
			  "status", ready ? "True" : "False", "lastTransitionTime", ts);
	out = sk_client_patch(f->c, path, SK_PATCH_MERGE, patch, &err);
	/* a pod listed a moment ago may be gone (a rollout deletes old pods) */
	if (!out && err.code != SK_ENOTFOUND)
		fail_msg("status %s: %s", path, err.msg);
}

static json_t *get(struct fx *f, const char *path)
{
	sk_error_t err = {0};

	return sk_client_get(f->c, path, &err);
}

static int exists(struct fx *f, const char *path)
{
	cleanup_json json_t *o = get(f, path);

	return o != NULL;
}

static json_int_t status_int(struct fx *f, const char *path, const char *key)
{
	cleanup_json json_t *o = get(f, path);

	return json_integer_value(json_object_get(json_object_get(o, "status"), key));
}

static int has_cond(struct fx *f, const char *path, const char *type)
{
	cleanup_json json_t *o = get(f, path);
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "type")), type) &&
		    !strcmp(json_string_value(json_object_get(c, "status")), "True"))
			return 1;
	return 0;
}

static void test_replicaset_scales(void **state)
{
	struct fx *f = *state;
	cleanup_json json_t *patch = json_pack("{s:{s:i}}", "spec", "replicas", 1), *out = NULL;
	sk_error_t err = {0};

	create(f, "/apis/apps/v1/namespaces/default/replicasets",
	       "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"rs\"},\"spec\":{\"replicas\":3,"
	       "\"selector\":{\"matchLabels\":{\"app\":\"rs\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"rs\"}},"
	       "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}");
	WAIT(count(f, "/api/v1/namespaces/default/pods", "labelSelector=app%3Drs") == 3);
	WAIT(status_int(f, "/apis/apps/v1/namespaces/default/replicasets/rs", "replicas") == 3);
	out = sk_client_patch(f->c, "/apis/apps/v1/namespaces/default/replicasets/rs", SK_PATCH_MERGE, patch, &err);
	assert_non_null(out);
	WAIT(count(f, "/api/v1/namespaces/default/pods", "labelSelector=app%3Drs") == 1);
	WAIT(status_int(f, "/apis/apps/v1/namespaces/default/replicasets/rs", "replicas") == 1);
}

/* Name of the controller of the pod (NULL: none), borrowed from pod. */
static const char *controller_of(json_t *pod)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(pod, "metadata"), "ownerReferences"), i, r)
		if (json_is_true(json_object_get(r, "controller")))
			return json_string_value(json_object_get(r, "name"));
	return NULL;
}

static int controlled_by(struct fx *f, const char *pod, const char *owner)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/default/pods/%s", pod);
	cleanup_json json_t *o = get(f, path);
	const char *c = o ? controller_of(o) : NULL;

	return o && (owner ? c && !strcmp(c, owner) : !c);
}

/* Claiming through the owner index: an orphan that matches is adopted, an
 * owned pod that stops matching is released and replaced. */
static void test_replicaset_adopts_and_releases(void **state)
{
	struct fx *f = *state;
	cleanup_json json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "app", "other"), *out = NULL;
	cleanup_json json_t *ps = NULL;
	cleanup_free char *path = NULL;
	sk_error_t err = {0};
	const char *victim = NULL;
	json_t *p;
	size_t i;

	create(f, "/api/v1/namespaces/default/pods",
	       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"orphan\",\"labels\":{\"app\":\"ad\"}},"
	       "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}");
	create(f, "/apis/apps/v1/namespaces/default/replicasets",
	       "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"ad\"},\"spec\":{\"replicas\":2,"
	       "\"selector\":{\"matchLabels\":{\"app\":\"ad\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"ad\"}},"
	       "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}");
	WAIT(controlled_by(f, "orphan", "ad") &&
	     status_int(f, "/apis/apps/v1/namespaces/default/replicasets/ad", "replicas") == 2);
	assert_int_equal(count(f, "/api/v1/namespaces/default/pods", NULL), 2);
	ps = items(f, "/api/v1/namespaces/default/pods", NULL);
	json_array_foreach(ps, i, p)
		if (strcmp(json_string_value(json_object_get(json_object_get(p, "metadata"), "name")), "orphan"))
			victim = json_string_value(json_object_get(json_object_get(p, "metadata"), "name"));
	assert_non_null(victim);
	path = xasprintf("/api/v1/namespaces/default/pods/%s", victim);
	out = sk_client_patch(f->c, path, SK_PATCH_MERGE, patch, &err);
	assert_non_null(out);
	WAIT(controlled_by(f, victim, NULL) && count(f, "/api/v1/namespaces/default/pods", "labelSelector=app%3Dad") == 2);
	assert_true(controlled_by(f, "orphan", "ad"));
}

static int all_ready(struct fx *f, const char *sel)
{
	cleanup_json json_t *ps = items(f, "/api/v1/namespaces/default/pods", sel);
	json_t *p;
	size_t i;

	json_array_foreach(ps, i, p)
		if (!json_string_value(json_object_get(json_object_get(p, "metadata"), "deletionTimestamp")))
			set_phase(f, p, "Running", 1);
	return 1;
}

static void test_deployment_rollout_and_foreground_delete(void **state)
{
	struct fx *f = *state;
	static const char *tmpl =
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":2,"
		"\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"%s\"}]}}}}";
	cleanup_free char *v1 = xasprintf(tmpl, "busybox:1");
	cleanup_json json_t *patch = json_loads("{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
						"\"image\":\"busybox:2\"}]}}}}", 0, NULL);
	cleanup_json json_t *out = NULL, *opts = json_pack("{s:s}", "propagationPolicy", "Foreground");
	sk_error_t err = {0};
	const char *d = "/apis/apps/v1/namespaces/default/deployments/web";

	create(f, "/apis/apps/v1/namespaces/default/deployments", v1);
	WAIT(all_ready(f, "labelSelector=app%3Dweb") && status_int(f, d, "availableReplicas") == 2);
	out = sk_client_patch(f->c, d, SK_PATCH_STRATEGIC, patch, &err);
	assert_non_null(out);
	/* observedGeneration: not the status from before the patch */
	WAIT(all_ready(f, "labelSelector=app%3Dweb") && status_int(f, d, "observedGeneration") == 2 &&
	     status_int(f, d, "updatedReplicas") == 2 && status_int(f, d, "availableReplicas") == 2 &&
	     status_int(f, d, "replicas") == 2);
	assert_int_equal(count(f, "/apis/apps/v1/namespaces/default/replicasets", NULL), 2);
	assert_int_equal(sk_client_delete(f->c, d, opts, &err), 0);
	WAIT(count(f, "/apis/apps/v1/namespaces/default/deployments", NULL) == 0);
	assert_int_equal(count(f, "/apis/apps/v1/namespaces/default/replicasets", NULL), 0);
	assert_int_equal(count(f, "/api/v1/namespaces/default/pods", NULL), 0);
}

static int finish_some(struct fx *f, int max)
{
	cleanup_json json_t *ps = items(f, "/api/v1/namespaces/default/pods", "labelSelector=job-name%3Dj");
	json_t *p;
	size_t i;
	int n = 0;

	json_array_foreach(ps, i, p) {
		const char *ph = json_string_value(json_object_get(json_object_get(p, "status"), "phase"));

		if (n < max && (!ph || strcmp(ph, "Succeeded")))
			set_phase(f, p, "Succeeded", 0), n++;
	}
	return n;
}

static void test_job_survives_controller_restart(void **state)
{
	struct fx *f = *state;
	const char *j = "/apis/batch/v1/namespaces/default/jobs/j";

	create(f, "/apis/batch/v1/namespaces/default/jobs",
	       "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},\"spec\":{\"completions\":6,"
	       "\"parallelism\":3,\"template\":{\"spec\":{\"restartPolicy\":\"Never\","
	       "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}");
	WAIT(count(f, "/api/v1/namespaces/default/pods", "labelSelector=job-name%3Dj") == 3);
	/* the controller goes away right after pods finish, and comes back */
	sk_ctrl_stop(f->ctl);
	f->ctl = NULL;
	assert_int_equal(finish_some(f, 2), 2);
	start_ctrl(f);
	for (int round = 0; round < 400 && !has_cond(f, j, "Complete"); round++) {
		if (round % 20 == 10) {
			sk_ctrl_stop(f->ctl);
			f->ctl = NULL;
			finish_some(f, 1);
			start_ctrl(f);
		}
		finish_some(f, 6);
		usleep(50000);
	}
	assert_true(has_cond(f, j, "Complete"));
	assert_int_equal(status_int(f, j, "succeeded"), 6);
	assert_int_equal(status_int(f, j, "failed"), 0);
	assert_int_equal(count(f, "/api/v1/namespaces/default/pods", "labelSelector=job-name%3Dj"), 6);
}

static void test_namespace_deletion(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};

	create(f, "/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"gone\"}}");
	create(f, "/api/v1/namespaces/gone/configmaps",
	       "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\"}}");
	create(f, "/apis/apps/v1/namespaces/gone/replicasets",
	       "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"rs\"},\"spec\":{\"replicas\":2,"
	       "\"selector\":{\"matchLabels\":{\"app\":\"rs\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"rs\"}},"
	       "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}");
	WAIT(count(f, "/api/v1/namespaces/gone/pods", NULL) == 2);
	assert_int_equal(sk_client_delete(f->c, "/api/v1/namespaces/gone", NULL, &err), 0);
	WAIT(!exists(f, "/api/v1/namespaces/gone"));
	assert_int_equal(count(f, "/api/v1/namespaces/gone/pods", NULL), 0);
	assert_int_equal(count(f, "/api/v1/namespaces/gone/configmaps", NULL), 0);
}

#define WIDGETS "/apis/stable.skiff.test/v1/namespaces/default/widgets"

static void create_widget_crd(struct fx *f)
{
	create(f, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
	       "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
	       "\"metadata\":{\"name\":\"widgets.stable.skiff.test\"},\"spec\":{\"group\":\"stable.skiff.test\","
	       "\"scope\":\"Namespaced\",\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\"},"
	       "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":"
	       "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}]}}");
}

/* A Widget named name owned by the ConfigMap cm (created here). */
static void widget_of_configmap(struct fx *f, const char *name, const char *cm)
{
	cleanup_free char *cms = xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"}}",
					   cm);
	cleanup_free char *path = xasprintf("/api/v1/namespaces/default/configmaps/%s", cm);
	cleanup_free char *w = NULL;
	cleanup_json json_t *o = NULL;

	create(f, "/api/v1/namespaces/default/configmaps", cms);
	o = get(f, path);
	assert_non_null(o);
	w = xasprintf("{\"apiVersion\":\"stable.skiff.test/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\","
		      "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"%s\",\"uid\":\"%s\","
		      "\"blockOwnerDeletion\":true}]}}",
		      name, cm, json_string_value(json_object_get(json_object_get(o, "metadata"), "uid")));
	create(f, WIDGETS, w);
}

/* The collector follows a kind that arrives after it started, stops
 * following it when its CRD goes, and follows it again when it comes back:
 * a ConfigMap deleted in the foreground waits for its custom dependent, which
 * is collected. */
static void test_gc_follows_custom_kinds(void **state)
{
	struct fx *f = *state;
	cleanup_json json_t *fg = json_pack("{s:s}", "propagationPolicy", "Foreground");
	sk_error_t err = {0};

	for (int round = 0; round < 2; round++) {
		create_widget_crd(f);
		WAIT(exists(f, WIDGETS));
		widget_of_configmap(f, "w", "cm");
		assert_int_equal(sk_client_delete(f->c, "/api/v1/namespaces/default/configmaps/cm", fg, &err), 0);
		WAIT(!exists(f, WIDGETS "/w"));
		WAIT(!exists(f, "/api/v1/namespaces/default/configmaps/cm"));
		assert_int_equal(sk_client_delete(f->c,
						  "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
						  "widgets.stable.skiff.test",
						  NULL, &err),
				 0);
		WAIT(!exists(f, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.stable.skiff.test"));
		WAIT(!exists(f, WIDGETS));
	}
}

/* A resource served without a CRD event (as an aggregated API's) is
 * followed from the collector's periodic discovery resync: with the CRD
 * events ignored, a custom object whose owner goes is still collected. */
static void test_gc_discovery_resync(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};

	/* the first discovery has run once a Secret (found by discovery) of a
	 * deleted ConfigMap goes */
	create(f, "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"cm0\"}}");
	{
		cleanup_json json_t *cm = get(f, "/api/v1/namespaces/default/configmaps/cm0");
		cleanup_free char *secret = xasprintf(
			"{\"metadata\":{\"name\":\"s0\",\"ownerReferences\":[{\"apiVersion\":\"v1\","
			"\"kind\":\"ConfigMap\",\"name\":\"cm0\",\"uid\":\"%s\"}]}}",
			json_string_value(json_object_get(json_object_get(cm, "metadata"), "uid")));

		create(f, "/api/v1/namespaces/default/secrets", secret);
	}
	assert_int_equal(sk_client_delete(f->c, "/api/v1/namespaces/default/configmaps/cm0", NULL, &err), 0);
	WAIT(!exists(f, "/api/v1/namespaces/default/secrets/s0"));
	create_widget_crd(f);
	WAIT(exists(f, WIDGETS));
	widget_of_configmap(f, "w", "cm");
	assert_int_equal(sk_client_delete(f->c, "/api/v1/namespaces/default/configmaps/cm", NULL, &err), 0);
	WAIT(!exists(f, WIDGETS "/w"));
}

static int setup_resync(void **state)
{
	sk__gc_resync_ms = 200;
	sk__gc_ignore_crd_events = 1;
	return setup(state);
}

static int teardown_resync(void **state)
{
	int r = teardown(state);

	sk__gc_resync_ms = 30000;
	sk__gc_ignore_crd_events = 0;
	return r;
}

/* A metadata-only informer (the collector's own monitors) caches and hands
 * out apiVersion, kind and the ownership meta only: no data, labels,
 * annotations or managedFields. */
static void test_informer_metadata_only(void **state)
{
	struct fx *f = *state;
	sk_informer *inf = sk_informer_new(f->c, "/api/v1/secrets", "v1", "Secret");
	sk_error_t err = {0};
	cleanup_json json_t *o = NULL;
	json_t *meta;

	create(f, "/api/v1/namespaces/default/secrets",
	       "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\","
	       "\"labels\":{\"a\":\"b\"},\"annotations\":{\"big\":\"xxxxxxxx\"},\"finalizers\":[\"x.test/f\"],"
	       "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"cm\","
	       "\"uid\":\"u-1\"}]},\"stringData\":{\"k\":\"secret\"}}");
	sk_informer_set_metadata_only(inf);
	assert_int_equal(sk_informer_start(inf, &err), 0);
	o = sk_informer_get(inf, "default", "s");
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "Secret");
	assert_string_equal(json_string_value(json_object_get(o, "apiVersion")), "v1");
	assert_null(json_object_get(o, "data"));
	assert_null(json_object_get(o, "type"));
	meta = json_object_get(o, "metadata");
	assert_string_equal(json_string_value(json_object_get(meta, "name")), "s");
	assert_string_equal(json_string_value(json_object_get(meta, "namespace")), "default");
	assert_non_null(json_object_get(meta, "uid"));
	assert_non_null(json_object_get(meta, "resourceVersion"));
	assert_non_null(json_object_get(meta, "creationTimestamp"));
	assert_int_equal(json_array_size(json_object_get(meta, "ownerReferences")), 1);
	assert_int_equal(json_array_size(json_object_get(meta, "finalizers")), 1);
	assert_null(json_object_get(meta, "labels"));
	assert_null(json_object_get(meta, "annotations"));
	assert_null(json_object_get(meta, "managedFields"));
	sk_informer_free(inf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replicaset_scales, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replicaset_adopts_and_releases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deployment_rollout_and_foreground_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_survives_controller_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_namespace_deletion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gc_follows_custom_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gc_discovery_resync, setup_resync, teardown_resync),
		cmocka_unit_test_setup_teardown(test_informer_metadata_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
