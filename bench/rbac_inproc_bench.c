/* RBAC's cost without HTTP/TLS, in thread CPU time (so other load on the
 * machine does not blur it): an API server over a fresh store where user
 * "dev" is bound by a RoleBinding to edit in namespace "bench" (with the
 * bootstrap policy's other bindings; view and edit aggregated as the
 * controller, which does not run here, would); then, interleaved in blocks, ConfigMap
 * GETs and creates through sk_api_handle() as system:masters and as dev,
 * and the authorizer chain's decision alone (sk__authorize) for both.
 * Usage: rbac_inproc_bench [requests per block] [blocks] */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "util/util.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int req(sk_api *api, const sk_user *u, const char *method, const char *path, const char *body)
{
	sk_api_request rq = {
		.method = method, .path = path, .body = body, .body_len = body ? strlen(body) : 0, .user = u};
	sk_api_response rs;
	int st;

	sk_api_handle(api, &rq, &rs);
	st = rs.status;
	sk_api_response_release(&rs);
	return st;
}

static int has_rule(json_t *rules, json_t *rule)
{
	size_t i;
	json_t *r;

	json_array_foreach(rules, i, r)
		if (json_equal(r, rule))
			return 1;
	return 0;
}

/* The rules of the ClusterRoles labelled aggregate-to-NAME into NAME, as
 * the aggregation controller does (view first: it is aggregated into edit). */
static void aggregate(sk_api *api, const sk_user *u, const char *name)
{
	char path[256], label[128];
	sk_api_request rq = {.method = "GET", .path = "/apis/rbac.authorization.k8s.io/v1/clusterroles", .user = u};
	sk_api_response rs;
	cleanup_json json_t *list = NULL, *role = NULL;
	cleanup_free char *text = NULL;
	json_t *rules = json_array(), *item, *rule;
	size_t i, j;

	snprintf(label, sizeof(label), "rbac.authorization.k8s.io/aggregate-to-%s", name);
	sk_api_handle(api, &rq, &rs);
	list = json_loadb(rs.body, rs.len, 0, NULL);
	sk_api_response_release(&rs);
	json_array_foreach(json_object_get(list, "items"), i, item) {
		json_t *meta = json_object_get(item, "metadata");
		const char *on = json_string_value(json_object_get(json_object_get(meta, "labels"), label));

		if (!strcmp(json_string_value(json_object_get(meta, "name")) ?: "", name))
			role = json_deep_copy(item); /* its labels aggregate it further */
		if (!on || strcmp(on, "true"))
			continue;
		json_array_foreach(json_object_get(item, "rules"), j, rule)
			if (!has_rule(rules, rule))
				json_array_append(rules, rule);
	}
	if (!role)
		abort();
	json_object_set_new(role, "rules", rules);
	snprintf(path, sizeof(path), "/apis/rbac.authorization.k8s.io/v1/clusterroles/%s", name);
	text = json_dumps(role, JSON_COMPACT);
	if (req(api, u, "PUT", path, text) != 200)
		abort();
	if (getenv("RBAC_BENCH_DEBUG"))
		fprintf(stderr, "%s: %zu rules\n", name, json_array_size(rules));
}

static int rm_one(const char *p, const struct stat *st, int fl, struct FTW *ftw)
{
	(void)st;
	(void)fl;
	(void)ftw;
	return remove(p);
}

static double per_get(sk_api *api, const sk_user *u, int n)
{
	double t = cpu_s();

	for (int i = 0; i < n; i++)
		if (req(api, u, "GET", "/api/v1/namespaces/bench/configmaps/target", NULL) != 200)
			abort();
	return (cpu_s() - t) / n * 1e6;
}

static double per_create(sk_api *api, const sk_user *u, int n)
{
	double t = cpu_s();

	for (int i = 0; i < n; i++)
		if (req(api, u, "POST", "/api/v1/namespaces/bench/configmaps",
			"{\"metadata\":{\"generateName\":\"b-\"},\"data\":{\"k\":\"v\"}}") != 201)
			abort();
	return (cpu_s() - t) / n * 1e6;
}

static double per_decision(sk_api *api, const sk_user *u, int n)
{
	sk_authz_attrs a = {.user = u,
			    .verb = "get",
			    .resource_request = 1,
			    .api_group = "",
			    .api_version = "v1",
			    .resource = "configmaps",
			    .subresource = "",
			    .ns = "bench",
			    .name = "target",
			    .path = "/api/v1/namespaces/bench/configmaps/target"};
	double t = cpu_s();

	for (int i = 0; i < n; i++) {
		char *reason = NULL;

		if (!sk__authorize(api, &a, &reason))
			abort();
		free(reason);
	}
	return (cpu_s() - t) / n * 1e6;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, blocks = argc > 2 ? atoi(argv[2]) : 5;
	char dir[] = "/tmp/skiff-rbac-inproc-XXXXXX", uri[128];
	const char *groups[] = {"system:authenticated", NULL};
	const char *mgroups[] = {"system:masters", "system:authenticated", NULL};
	sk_user *dev = sk_user_new("dev", "", groups), *admin = sk_user_new("system:admin", "", mgroups);
	double g[2] = {0, 0}, c[2] = {0, 0}, d[2] = {0, 0};
	sk_error_t err = {0};
	sk_store *store;
	sk_api *api;

	sk_log_level = SK_LOG_ERROR;
	if (n < 1 || blocks < 1 || !mkdtemp(dir))
		return 2;
	snprintf(uri, sizeof(uri), "sqlite://%s", dir);
	store = sk_store_open(uri, NULL, &err);
	api = store ? sk_api_new(store, NULL, &err) : NULL;
	if (!api) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	req(api, admin, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"bench\"}}");
	req(api, admin, "POST", "/api/v1/namespaces/bench/configmaps", "{\"metadata\":{\"name\":\"target\"}}");
	aggregate(api, admin, "view");
	aggregate(api, admin, "edit");
	if (req(api, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings",
		"{\"metadata\":{\"name\":\"dev-edit\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
		"\"kind\":\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"dev\"}]}") !=
	    201)
		return 1;
	for (int b = 0; b < blocks; b++) {
		const sk_user *who[2] = {admin, dev};

		/* who goes first alternates, so warming up favours neither */
		for (int j = 0; j < 2; j++) {
			int k = (j + b) % 2;

			g[k] += per_get(api, who[k], n) / blocks;
			c[k] += per_create(api, who[k], n / 10 ? n / 10 : 1) / blocks;
			d[k] += per_decision(api, who[k], n) / blocks;
		}
	}
	printf("CPU per request (us), %d blocks of %d GETs, %d creates, %d decisions\n", blocks, n, n / 10, n);
	printf("GET:      masters %.2f, dev (RBAC) %.2f: %+.1f %%\n", g[0], g[1], (g[1] - g[0]) / g[0] * 100);
	printf("create:   masters %.2f, dev (RBAC) %.2f: %+.1f %%\n", c[0], c[1], (c[1] - c[0]) / c[0] * 100);
	printf("decision: masters %.3f, dev (RBAC) %.3f\n", d[0], d[1]);
	sk_api_shutdown(api);
	sk_api_free(api);
	sk_store_close(store);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	sk_user_free(dev);
	sk_user_free(admin);
	return 0;
}
