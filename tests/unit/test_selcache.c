#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include "api/selcache.h"
#include "kube/selector.h"
#include "util/util.h"

static sk_kube_field_selector *fsel(const char *s)
{
	sk_error_t err = {0};
	sk_kube_field_selector *f = sk_kube_field_selector_parse(s, &err);

	if (!f)
		fail_msg("parse %s: %s", s, err.msg);
	return f;
}

static sk_kube_label_selector *lsel(const char *s)
{
	sk_error_t err = {0};
	sk_kube_label_selector *l = sk_kube_label_selector_parse(s, &err);

	if (!l)
		fail_msg("parse %s: %s", s, err.msg);
	return l;
}

static json_t *pod(const char *phase, const char *node, const char *app)
{
	json_t *p = json_pack("{s:{s:s, s:s}, s:{s:s}, s:{s:s, s:[{s:s}]}}", "metadata", "name", "p", "namespace",
			      "default", "spec", "nodeName", node, "status", "phase", phase, "podIPs", "ip",
			      "10.0.0.7");

	if (app)
		json_object_set_new(json_object_get(p, "metadata"), "labels", json_pack("{s:s}", "app", app));
	return p;
}

/* The cache's answer for field selector fs and label selector ls (NULL: none). */
static int cmatch(sk_selcache *c, const char *key, int64_t rev, const char *fs, const char *ls)
{
	sk_kube_field_selector *f = fs ? fsel(fs) : NULL;
	sk_kube_label_selector *l = ls ? lsel(ls) : NULL;
	int m = sk__selcache_match(c, key, rev, l, f);

	sk_kube_field_selector_free(f);
	sk_kube_label_selector_free(l);
	return m;
}

static void cput(sk_selcache *c, const char *key, int64_t rev, json_t *obj, const char *fs)
{
	sk_kube_field_selector *f = fs ? fsel(fs) : NULL;

	sk__selcache_put(c, key, rev, obj, f);
	sk_kube_field_selector_free(f);
}

static void test_match_from_cache(void **state)
{
	sk_selcache *c = sk__selcache_new(0);
	json_t *p = pod("Pending", "n1", "web");

	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase=Pending", NULL), -1);
	cput(c, "/registry/pods/default/p", 5, p, "status.phase=Pending");
	assert_int_equal(sk__selcache_size(c), 1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase=Pending", NULL), 1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase=Running", NULL), 0);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase!=Running", NULL), 1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase==Pending", "app=web"), 1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "status.phase=Pending", "app=db"), 0);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, NULL, "app in (web,db),!legacy"), 1);
	/* a field not extracted yet, another revision, another key: unknown */
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "spec.nodeName=n1", NULL), -1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 6, "status.phase=Pending", NULL), -1);
	assert_int_equal(cmatch(c, "/registry/pods/default/q", 5, "status.phase=Pending", NULL), -1);
	/* once asked for, a field is extracted with the others */
	cput(c, "/registry/pods/default/p", 5, p, "spec.nodeName=n1");
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "spec.nodeName=n1,status.phase=Pending", NULL), 1);
	assert_int_equal(cmatch(c, "/registry/pods/default/p", 5, "spec.nodeName=n2", NULL), 0);
	/* and for every object put after */
	cput(c, "/registry/pods/default/q", 9, p, NULL);
	assert_int_equal(cmatch(c, "/registry/pods/default/q", 9, "spec.nodeName=n1,status.phase=Pending", NULL), 1);
	json_decref(p);
	sk__selcache_free(c);
}

static void test_revisions(void **state)
{
	sk_selcache *c = sk__selcache_new(0);
	json_t *pending = pod("Pending", "", "web"), *running = pod("Running", "n1", NULL);

	cput(c, "k", 5, pending, "status.phase=Pending");
	cput(c, "k", 7, running, "status.phase=Pending");
	assert_int_equal(cmatch(c, "k", 5, "status.phase=Pending", NULL), -1);
	assert_int_equal(cmatch(c, "k", 7, "status.phase=Pending", NULL), 0);
	assert_int_equal(cmatch(c, "k", 7, "status.phase=Running", "!app"), 1);
	/* a list at an older revision (a continued one) does not replace the newer entry */
	cput(c, "k", 5, pending, "status.phase=Pending");
	assert_int_equal(cmatch(c, "k", 7, "status.phase=Running", "!app"), 1);
	assert_int_equal(cmatch(c, "k", 5, "status.phase=Pending", NULL), -1);
	assert_int_equal(sk__selcache_size(c), 1);
	json_decref(pending);
	json_decref(running);
	sk__selcache_free(c);
}

/* A write refreshes the entry a filtered list made, and adds none for others. */
static void test_written(void **state)
{
	sk_selcache *c = sk__selcache_new(0);
	json_t *pending = pod("Pending", "", "web"), *running = pod("Running", "n1", "db");

	sk__selcache_written(c, "k", 3, pending);
	assert_int_equal(sk__selcache_size(c), 0);
	cput(c, "k", 3, pending, "status.phase=Pending");
	sk__selcache_written(c, "k", 8, running);
	assert_int_equal(cmatch(c, "k", 8, "status.phase=Running", "app=db"), 1);
	assert_int_equal(cmatch(c, "k", 8, "status.phase=Pending", NULL), 0);
	assert_int_equal(cmatch(c, "k", 3, "status.phase=Pending", NULL), -1);
	sk__selcache_written(c, "k", 5, pending); /* an older write reported late */
	assert_int_equal(cmatch(c, "k", 8, "status.phase=Running", "app=db"), 1);
	json_decref(pending);
	json_decref(running);
	sk__selcache_free(c);
}

static void test_bounded(void **state)
{
	sk_selcache *c = sk__selcache_new(2);
	json_t *p = pod("Pending", "n1", "web");

	cput(c, "a", 1, p, "status.phase=Pending");
	cput(c, "b", 2, p, NULL);
	assert_int_equal(cmatch(c, "a", 1, "status.phase=Pending", NULL), 1); /* a used last: b goes */
	cput(c, "c", 3, p, NULL);
	assert_int_equal(sk__selcache_size(c), 2);
	assert_int_equal(cmatch(c, "b", 2, "status.phase=Pending", NULL), -1);
	assert_int_equal(cmatch(c, "a", 1, "status.phase=Pending", NULL), 1);
	assert_int_equal(cmatch(c, "c", 3, "status.phase=Pending", NULL), 1);
	json_decref(p);
	sk__selcache_free(c);
}

/* The cached answer is the decoded object's, defaults and aliases included. */
static void test_same_as_decoded(void **state)
{
	static const char *const sels[] = {
		"status.phase=Pending",      "status.phase!=Pending", "spec.nodeName=",         "spec.nodeName=n1",
		"spec.hostNetwork=false",    "status.podIP=10.0.0.7", "metadata.name=p",        "metadata.namespace=x",
		"spec.restartPolicy=Always", "status.podIPs=",        "spec.hostNetwork!=true",
	};
	json_t *objs[] = {pod("Pending", "n1", "web"), pod("Running", "", NULL), json_object()};
	sk_selcache *c = sk__selcache_new(0);

	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%zu", i);
		for (size_t j = 0; j < sizeof(sels) / sizeof(sels[0]); j++) {
			sk_kube_field_selector *f = fsel(sels[j]);
			int want = sk_kube_field_selector_match(f, objs[i]);

			if (sk__selcache_match(c, key, 1, NULL, f) < 0)
				sk__selcache_put(c, key, 1, objs[i], f);
			assert_int_equal(sk__selcache_match(c, key, 1, NULL, f), want);
			sk_kube_field_selector_free(f);
		}
		json_decref(objs[i]);
	}
	sk__selcache_free(c);
}

static void *churn(void *arg)
{
	sk_selcache *c = arg;
	json_t *p = pod("Pending", "n1", "web");
	sk_kube_field_selector *f = fsel("status.phase=Pending");

	for (int i = 0; i < 2000; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%d", i % 50);
		if (sk__selcache_match(c, key, i, NULL, f) < 0)
			sk__selcache_put(c, key, i, p, f);
	}
	sk_kube_field_selector_free(f);
	json_decref(p);
	return NULL;
}

static void test_threads(void **state)
{
	sk_selcache *c = sk__selcache_new(20);
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, c), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_true(sk__selcache_size(c) <= 20);
	sk__selcache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_from_cache), cmocka_unit_test(test_revisions),
		cmocka_unit_test(test_written),          cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_same_as_decoded),  cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
