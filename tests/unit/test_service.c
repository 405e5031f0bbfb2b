/* The Service allocations (src/api/service.c) through an in-process API
 * server over a temporary store: bands, exhaustion, release, repair. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/api.h"
#include "api/service.h"
#include "kube/cidr.h"
#include "util/util.h"

struct fx {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_client *c;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

static struct fx *start(const char *cidr, const char *ports)
{
	struct fx *f = xzalloc(sizeof(*f));
	sk_api_options o = {.service_cidr = cidr, .node_port_range = ports};
	char uri[128];
	sk_error_t err = {0};

	snprintf(f->dir, sizeof(f->dir), "/tmp/sk-svc-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", f->dir);
	f->store = sk_store_open(uri, NULL, &err);
	if (!f->store)
		fail_msg("store: %s", err.msg);
	f->api = sk_api_new(f->store, &o, &err);
	if (!f->api)
		fail_msg("api: %s", err.msg);
	f->c = sk_client_new_inproc(f->api);
	return f;
}

static void stop(struct fx *f)
{
	sk_client_free(f->c);
	sk_api_shutdown(f->api);
	sk_api_free(f->api);
	sk_store_close(f->store);
	nftw(f->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
}

/* Creates a Service: its reply (caller frees) or NULL with err. */
static json_t *create(struct fx *f, const char *name, const char *type, const char *ip, sk_error_t *err)
{
	cleanup_json json_t *s = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:[{s:i}]}}", "apiVersion", "v1", "kind",
					   "Service", "metadata", "name", name, "spec", "type", type, "ports", "port", 80);

	if (ip)
		json_object_set_new(json_object_get(s, "spec"), "clusterIP", json_string(ip));
	return sk_client_create(f->c, "/api/v1/namespaces/default/services", s, err);
}

static const char *cluster_ip(json_t *s) { return json_string_value(json_object_get(json_object_get(s, "spec"), "clusterIP")); }

static int stored(struct fx *f, const char *key)
{
	sk_store_kv kv;

	if (sk_store_get(f->store, key, &kv, NULL) < 0)
		return 0;
	sk_store_kv_release(&kv);
	return 1;
}

static void test_dynamic_prefers_the_upper_band(void **state)
{
	struct fx *f = start("10.96.0.0/24", NULL);
	sk_kube_cidr c;

	assert_int_equal(sk_kube_cidr_parse("10.96.0.0/24", &c, NULL), 0);
	/* a /24 has a lower band of 16 addresses (10.96.0.1-16); 238 above it */
	for (int i = 0; i < 238; i++) {
		char name[32];
		sk_error_t err = {0};
		cleanup_json json_t *s = NULL;
		uint32_t ip;

		snprintf(name, sizeof(name), "s%d", i);
		s = create(f, name, "ClusterIP", NULL, &err);
		if (!s)
			fail_msg("create %s: %s", name, err.msg);
		assert_int_equal(sk_kube_ip4_parse(cluster_ip(s), &ip, NULL), 0);
		assert_true(sk_kube_cidr_index(&c, ip) > 16 && sk_kube_cidr_index(&c, ip) < 255);
	}
	{
		/* then the lower band, except what kubernetes (.1) and kube-dns (.10) hold */
		sk_error_t err = {0};
		cleanup_json json_t *s = create(f, "low", "ClusterIP", NULL, &err);
		uint32_t ip;

		assert_non_null(s);
		assert_int_equal(sk_kube_ip4_parse(cluster_ip(s), &ip, NULL), 0);
		assert_true(sk_kube_cidr_index(&c, ip) >= 2 && sk_kube_cidr_index(&c, ip) <= 16);
		assert_int_not_equal(sk_kube_cidr_index(&c, ip), 10);
	}
	stop(f);
}

static void test_full_release_and_conflicts(void **state)
{
	struct fx *f = start("10.96.0.0/28", "30000-30001");
	sk_error_t err = {0};
	json_t *s;

	for (int i = 0; i < 12; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		s = create(f, name, "ClusterIP", NULL, &err);
		assert_non_null(s);
		json_decref(s);
	}
	assert_null(create(f, "full", "ClusterIP", NULL, &err));
	assert_int_equal(err.code, SK_EINTERNAL);
	assert_string_equal(err.msg, "Internal error occurred: failed to allocate a serviceIP: range is full");
	sk_error_clear(&err);
	s = sk_client_get(f->c, "/api/v1/namespaces/default/services/f5", &err);
	assert_non_null(s);
	{
		cleanup_free char *ip = xstrdup(cluster_ip(s));
		cleanup_free char *key = xasprintf("/registry/ranges/serviceips/%s", ip);

		json_decref(s);
		assert_true(stored(f, key));
		assert_int_equal(sk_client_delete(f->c, "/api/v1/namespaces/default/services/f5", NULL, &err), 0);
		assert_false(stored(f, key));
		s = create(f, "again", "ClusterIP", ip, &err);
		assert_non_null(s);
		json_decref(s);
		assert_null(create(f, "twice", "ClusterIP", ip, &err));
		assert_int_equal(err.code, SK_EINVALID);
	}
	stop(f);
}

static void test_repair_restores_and_frees(void **state)
{
	struct fx *f = start("10.96.0.0/28", "30000-30001");
	sk_error_t err = {0};
	cleanup_json json_t *s = create(f, "np", "NodePort", NULL, &err);
	const char *owner = "{\"kind\":\"Service\",\"uid\":\"gone\"}", *stray;
	cleanup_free char *key = NULL, *pkey = NULL;
	int fixed, freed;

	assert_non_null(s);
	stray = strcmp(cluster_ip(s), "10.96.0.13") ? "/registry/ranges/serviceips/10.96.0.13"
						    : "/registry/ranges/serviceips/10.96.0.12";
	key = xasprintf("/registry/ranges/serviceips/%s", cluster_ip(s));
	pkey = xasprintf("/registry/ranges/servicenodeports/%lld",
			 (long long)json_integer_value(json_object_get(
				 json_array_get(json_object_get(json_object_get(s, "spec"), "ports"), 0), "nodePort")));
	assert_true(stored(f, key) && stored(f, pkey));
	/* a lost reservation comes back; a leaked one goes on the second pass */
	assert_true(sk_store_delete(f->store, key, 0, NULL, &err) > 0);
	assert_true(sk_store_delete(f->store, pkey, 0, NULL, &err) > 0);
	assert_true(sk_store_create(f->store, stray, owner, strlen(owner), &err) > 0);
	assert_int_equal(sk__svc_repair(f->api, &fixed, &freed), 0);
	assert_int_equal(fixed, 2);
	assert_int_equal(freed, 0);
	assert_true(stored(f, key) && stored(f, pkey) && stored(f, stray));
	{
		/* each repair is reported on the Service, as upstream's repair controllers do */
		cleanup_json json_t *evs = sk_client_get(f->c, "/api/v1/namespaces/default/events", &err);
		int ip_ev = 0, port_ev = 0;
		size_t i;
		json_t *ev;

		json_array_foreach(json_object_get(evs, "items"), i, ev) {
			const char *reason = json_string_value(json_object_get(ev, "reason"));

			ip_ev += reason && !strcmp(reason, "ClusterIPNotAllocated");
			port_ev += reason && !strcmp(reason, "PortNotAllocated");
		}
		assert_int_equal(ip_ev, 1);
		assert_int_equal(port_ev, 1);
	}
	assert_int_equal(sk__svc_repair(f->api, &fixed, &freed), 0);
	assert_int_equal(fixed, 0);
	assert_int_equal(freed, 1);
	assert_false(stored(f, stray));
	assert_true(stored(f, key) && stored(f, pkey));
	stop(f);
}

static void test_bad_settings(void **state)
{
	static const struct {
		sk_api_options o;
		const char *msg;
	} bad[] = {
		{{.service_cidr = "10.96.0.0/30"}, "--service-cidr 10.96.0.0/30: too small"},
		{{.service_cidr = "10.0.0.0/11"}, "--service-cidr 10.0.0.0/11: too large"},
		{{.node_port_range = "30000"}, "--service-node-port-range \"30000\""},
		{{.node_port_range = "0-100"}, "--service-node-port-range \"0-100\""},
		{{.cluster_dns = "10.43.0.1"}, "--cluster-dns 10.43.0.1"},
		{{.cluster_dns = "10.43.255.255"}, "--cluster-dns 10.43.255.255"},
		{{.cluster_cidr = "10.0.0.0/8"}, "--cluster-cidr 10.0.0.0/8 overlaps --service-cidr 10.43.0.0/16"},
		{{.cluster_domain = "a..b"}, "--cluster-domain \"a..b\""},
		{{.advertise_address = "0.0.0.0"}, "--advertise-address 0.0.0.0"},
	};
	sk_api_options good = {.service_cidr = "10.96.0.0/12", .cluster_dns = "10.96.0.10"};
	sk_error_t err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sk_api_check_network(&bad[i].o, &err), -1);
		assert_int_equal(err.code, SK_EINVALID);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("%zu: %s", i, err.msg);
	}
	assert_int_equal(sk_api_check_network(&good, &err), 0);
}

static json_t *endpoint_ips(sk_client *c)
{
	cleanup_json json_t *ep = sk_client_get(c, "/api/v1/namespaces/default/endpoints/kubernetes", NULL);
	json_t *out = json_array(), *a;
	size_t i;

	json_array_foreach(json_object_get(json_array_get(json_object_get(ep, "subsets"), 0), "addresses"), i, a)
		json_array_append(out, json_object_get(a, "ip"));
	return out;
}

/* What another API server over the same store does: its reservations,
 * unknown to this server's hint, are never given again, and its lease
 * keeps it in default/kubernetes until the lease gets old. */
static void test_another_server_over_the_store(void **state)
{
	struct fx *f = start("10.96.0.0/28", NULL);
	static const char *const theirs[] = {"10.96.0.3", "10.96.0.7", "10.96.0.12"};
	char lease[160];
	const char *owner = "{\"kind\":\"Service\",\"uid\":\"other\"}";
	sk_error_t err = {0};
	cleanup_json json_t *ips = json_object(), *both = NULL, *one = NULL;
	int made = 0;

	for (size_t i = 0; i < 3; i++) {
		cleanup_free char *key = xasprintf("/registry/ranges/serviceips/%s", theirs[i]);

		assert_true(sk_store_create(f->store, key, owner, strlen(owner), &err) > 0);
	}
	for (int i = 0; i < 12; i++) {
		char name[32];
		cleanup_json json_t *s = NULL;

		snprintf(name, sizeof(name), "o%d", i);
		s = create(f, name, "ClusterIP", NULL, &err);
		if (!s)
			break;
		for (size_t j = 0; j < 3; j++)
			assert_string_not_equal(cluster_ip(s), theirs[j]);
		assert_null(json_object_get(ips, cluster_ip(s)));
		json_object_set_new(ips, cluster_ip(s), json_true());
		made++;
	}
	assert_int_equal(made, 9);
	assert_string_equal(err.msg, "Internal error occurred: failed to allocate a serviceIP: range is full");
	snprintf(lease, sizeof(lease), "{\"ip\":\"192.0.2.2\",\"port\":6443,\"renewTime\":%lld}",
		 (long long)(sk_now_ns() / 1000000000));
	assert_true(sk_store_create(f->store, "/registry/masterleases/192.0.2.2", lease, strlen(lease), &err) > 0);
	sk__svc_reconcile(f->api);
	both = endpoint_ips(f->c);
	assert_int_equal(json_array_size(both), 2);
	assert_string_equal(json_string_value(json_array_get(both, 0)), "127.0.0.1");
	assert_string_equal(json_string_value(json_array_get(both, 1)), "192.0.2.2");
	/* a lease not renewed for 15 s is gone */
	snprintf(lease, sizeof(lease), "{\"ip\":\"192.0.2.2\",\"port\":6443,\"renewTime\":%lld}",
		 (long long)(sk_now_ns() / 1000000000 - 60));
	assert_true(sk_store_update(f->store, "/registry/masterleases/192.0.2.2", lease, strlen(lease), 0, &err) > 0);
	sk__svc_reconcile(f->api);
	one = endpoint_ips(f->c);
	assert_int_equal(json_array_size(one), 1);
	assert_string_equal(json_string_value(json_array_get(one, 0)), "127.0.0.1");
	stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynamic_prefers_the_upper_band),
		cmocka_unit_test(test_full_release_and_conflicts),
		cmocka_unit_test(test_repair_restores_and_frees),
		cmocka_unit_test(test_bad_settings),
		cmocka_unit_test(test_another_server_over_the_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
