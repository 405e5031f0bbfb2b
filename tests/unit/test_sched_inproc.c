/* The scheduler against the real API server through the in-process client
 * (sqlite store in a temporary directory): binding, events, the
 * PodScheduled condition, preemption and PodGroup status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "sched/sched.h"
#include "store/store.h"
#include "util/util.h"

struct fx {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_client *c;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));
	char uri[128];
	sk_error_t err = {0};

	snprintf(f->dir, sizeof(f->dir), "/tmp/sk-sched-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", f->dir);
	f->store = sk_store_open(uri, NULL, &err);
	if (!f->store)
		fail_msg("store: %s", err.msg);
	f->api = sk_api_new(f->store, NULL, &err);
	if (!f->api)
		fail_msg("api: %s", err.msg);
	f->c = sk_client_new_inproc(f->api);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_client_free(f->c);
	sk_api_shutdown(f->api);
	sk_api_free(f->api);
	sk_store_close(f->store);
	nftw(f->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void create(struct fx *f, const char *path, json_t *obj)
{
	sk_error_t err = {0};
	json_t *r = sk_client_create(f->c, path, obj, &err);

	if (!r)
		fail_msg("create %s: %s", path, err.msg);
	json_decref(r);
	json_decref(obj);
}

static void node(struct fx *f, const char *name, const char *cpu, int gpus)
{
	create(f, "/api/v1/nodes",
	       json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:{s:s, s:s, s:s, s:i}, s:{s:s, s:s, s:s, s:i},"
			 " s:[{s:s, s:s, s:s, s:s}]}}",
			 "apiVersion", "v1", "kind", "Node", "metadata", "name", name, "labels", "kubernetes.io/hostname",
			 name, "status", "capacity", "cpu", cpu, "memory", "64Gi", "pods", "110", "nvidia.com/gpu", gpus,
			 "allocatable", "cpu", cpu, "memory", "64Gi", "pods", "110", "nvidia.com/gpu", gpus, "conditions",
			 "type", "Ready", "status", "True", "reason", "KubeletReady", "message", "ready"));
}

static json_t *pod(const char *name, const char *cpu, int gpus, const char *group)
{
	json_t *p = json_pack("{s:s, s:s, s:{s:s, s:{}}, s:{s:[{s:s, s:s, s:{s:{s:s}}}]}}", "apiVersion", "v1", "kind",
			      "Pod", "metadata", "name", name, "labels", "spec", "containers", "name", "c", "image",
			      "busybox", "resources", "requests", "cpu", cpu);

	if (gpus) {
		json_t *res = json_object_get(json_array_get(json_object_get(json_object_get(p, "spec"), "containers"), 0),
					      "resources");

		json_object_set_new(json_object_get(res, "requests"), "nvidia.com/gpu", json_integer(gpus));
		json_object_set_new(res, "limits", json_pack("{s:i}", "nvidia.com/gpu", gpus));
	}
	if (group)
		json_object_set_new(json_object_get(json_object_get(p, "metadata"), "labels"),
				    "scheduling.x-k8s.io/pod-group", json_string(group));
	return p;
}

static json_t *get_pod(struct fx *f, const char *name)
{
	char path[256];
	sk_error_t err = {0};

	snprintf(path, sizeof(path), "/api/v1/namespaces/default/pods/%s", name);
	return sk_client_get(f->c, path, &err);
}

static char *node_of(struct fx *f, const char *name)
{
	json_t *p = get_pod(f, name);
	const char *n = json_string_value(json_object_get(json_object_get(p, "spec"), "nodeName"));
	char *r = n ? xstrdup(n) : NULL;

	json_decref(p);
	return r;
}

static char *wait_node(struct fx *f, const char *name)
{
	char *n = NULL;

	for (int i = 0; i < 12000 && !(n = node_of(f, name)); i++)
		usleep(5000);
	return n;
}

static char *wait_condition(struct fx *f, const char *name)
{
	for (int i = 0; i < 1000; i++) {
		json_t *p = get_pod(f, name), *c;
		size_t k;
		char *msg = NULL;

		json_array_foreach (json_object_get(json_object_get(p, "status"), "conditions"), k, c)
			if (strcmp(json_string_value(json_object_get(c, "type")), "PodScheduled") == 0 &&
			    strcmp(json_string_value(json_object_get(c, "status")), "False") == 0)
				msg = xstrdup(json_string_value(json_object_get(c, "message")));
		json_decref(p);
		if (msg)
			return msg;
		usleep(5000);
	}
	return NULL;
}

static int count_events(struct fx *f, const char *reason)
{
	sk_error_t err = {0};
	json_t *l = sk_client_list(f->c, "/api/v1/namespaces/default/events", NULL, &err), *e;
	size_t i;
	int n = 0;

	json_array_foreach (json_object_get(l, "items"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "reason")), reason) == 0)
			n++;
	json_decref(l);
	return n;
}

static void test_bind_and_fail(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_sched *s;
	char *msg;

	node(f, "n1", "2", 0);
	node(f, "n2", "2", 1);
	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		create(f, "/api/v1/namespaces/default/pods", pod(name, "500m", 0, NULL));
	}
	s = sk_sched_start(f->c, NULL, &err);
	assert_non_null(s);
	for (int i = 0; i < 6; i++) {
		char name[16], *n;

		snprintf(name, sizeof(name), "p%d", i);
		n = wait_node(f, name);
		assert_non_null(n);
		free(n);
	}
	create(f, "/api/v1/namespaces/default/pods", pod("big", "3", 0, NULL));
	msg = wait_condition(f, "big");
	assert_non_null(msg);
	assert_string_equal(msg, "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
				 "2 No preemption victims found for incoming pod.");
	free(msg);
	create(f, "/api/v1/namespaces/default/pods", pod("gpu2", "100m", 2, NULL));
	msg = wait_condition(f, "gpu2");
	assert_non_null(msg);
	assert_string_equal(msg, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are "
				 "available: 2 No preemption victims found for incoming pod.");
	free(msg);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	assert_true(count_events(f, "Scheduled") >= 6);
	assert_true(count_events(f, "FailedScheduling") >= 2);
	sk_sched_stop(s);
}

static void test_gang_podgroup_status(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_sched *s;
	json_t *pg;
	const char *phase = NULL;

	node(f, "g1", "8", 2);
	create(f, "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups",
	       json_pack("{s:s, s:s, s:{s:s}, s:{s:i}}", "apiVersion", "scheduling.x-k8s.io/v1alpha1", "kind", "PodGroup",
			 "metadata", "name", "job", "spec", "minMember", 2));
	s = sk_sched_start(f->c, NULL, &err);
	create(f, "/api/v1/namespaces/default/pods", pod("m0", "1", 1, "job"));
	create(f, "/api/v1/namespaces/default/pods", pod("m1", "1", 1, "job"));
	free(wait_node(f, "m0"));
	free(wait_node(f, "m1"));
	for (int i = 0; i < 1000; i++) {
		pg = sk_client_get(f->c, "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups/job", &err);
		phase = json_string_value(json_object_get(json_object_get(pg, "status"), "phase"));
		if (phase && strcmp(phase, "Scheduled") == 0) {
			json_decref(pg);
			break;
		}
		json_decref(pg);
		phase = NULL;
		usleep(5000);
	}
	assert_non_null(phase);
	sk_sched_stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind_and_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gang_podgroup_status, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
