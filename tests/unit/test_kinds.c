#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "kube/selector.h"
#include "util/util.h"

static sk_api_resource tmpl(const char *version, const char *plural, const char *kind)
{
	sk_api_resource t = {0};

	t.group = "unit.skiff.test";
	t.version = version;
	t.plural = plural;
	t.singular = "s";
	t.kind = kind;
	t.namespaced = 1;
	t.store = "unit.skiff.test/things";
	t.list_kind = "ThingList";
	return t;
}

static void test_builtin_and_custom(void **state)
{
	sk_api_resource t = tmpl("v1", "things", "Thing");
	const sk_api_resource *a, *b, *v[1];
	size_t n0 = sk__kinds()->n;

	(void)state;
	assert_int_equal(n0, sk__kinds_builtin()->n);
	assert_non_null(sk__resource_find("apps", "v1", "deployments"));
	assert_null(sk__resource_find("unit.skiff.test", "v1", "things"));
	a = sk__kind_intern(&t);
	b = sk__kind_intern(&t);
	assert_ptr_equal(a, b);
	assert_true(a->custom);
	assert_ptr_not_equal(a->plural, t.plural); /* copied */
	v[0] = a;
	sk__kinds_set_custom(v, 1);
	assert_int_equal(sk__kinds()->n, n0 + 1);
	assert_ptr_equal(sk__resource_find("unit.skiff.test", "v1", "things"), a);
	assert_ptr_equal(sk__resource_by_kind("unit.skiff.test", "Thing"), a);
	{
		char buf[64];

		assert_string_equal(sk__resource_list_kind(a, buf, sizeof(buf)), "ThingList");
		assert_string_equal(sk__resource_list_kind(sk__resource_find("", "v1", "pods"), buf, sizeof(buf)),
				    "PodList");
	}
	t.kind = "Other";
	assert_ptr_not_equal(sk__kind_intern(&t), a);
	sk__kinds_set_custom(NULL, 0);
	assert_null(sk__resource_find("unit.skiff.test", "v1", "things"));
	assert_int_equal(a->namespaced, 1); /* still valid */
}

static void test_custom_spec(void **state)
{
	sk_api_resource t = tmpl("v2", "things", "Thing");
	const sk_api_resource *a = sk__kind_intern(&t);
	json_t *s = json_pack("{s:s}", "crd", "x"), *got;

	(void)state;
	assert_null(sk__kind_custom_spec(a));
	sk__kind_custom_set_spec(a, s);
	json_decref(s);
	got = sk__kind_custom_spec(a);
	assert_string_equal(json_string_value(json_object_get(got, "crd")), "x");
	sk__kind_custom_set_spec(a, NULL);
	assert_string_equal(json_string_value(json_object_get(got, "crd")), "x"); /* our reference holds */
	json_decref(got);
	assert_null(sk__kind_custom_spec(sk__kinds_builtin()->v[0]));
}

static volatile int stop;

static void *reader(void *arg)
{
	long found = 0;

	(void)arg;
	while (!stop) {
		const sk_api_resource *r = sk__resource_find("unit.skiff.test", "v3", "things");

		if (r) {
			json_t *s = sk__kind_custom_spec(r);

			found += r->namespaced + (s != NULL);
			json_decref(s);
		}
		assert_non_null(sk__resource_find("", "v1", "pods"));
	}
	return (void *)found;
}

/* Readers walk snapshots while a writer swaps them and replaces the
 * custom spec (ASan reports any use after free). */
static void test_concurrent_swaps(void **state)
{
	sk_api_resource t = tmpl("v3", "things", "Thing");
	const sk_api_resource *a = sk__kind_intern(&t), *v[1] = {a};
	pthread_t th[3];

	(void)state;
	stop = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	for (int i = 0; i < 2000; i++) {
		json_t *s = json_pack("{s:i}", "n", i);

		sk__kind_custom_set_spec(a, s);
		json_decref(s);
		sk__kinds_set_custom(i % 2 ? v : NULL, i % 2 ? 1 : 0);
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	sk__kinds_set_custom(NULL, 0);
	sk__kind_custom_set_spec(a, NULL);
}

/* Whether kind is in the NULL-terminated list. */
static int listed(const char *const *list, const char *kind)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], kind))
			return 1;
	return 0;
}

/* A kind that is stored (not a review or a kind served from memory). */
static int stored(const sk_api_resource *r) { return !r->ops || (!r->ops->review && !r->ops->serve); }

/* Every built-in descriptor carries its kind's rules: a new kind cannot
 * silently miss its validation, printer, field labels or status reset. */
static void test_builtin_descriptors(void **state)
{
	/* upstream's printers.go has no printer for these: Name, Created At */
	static const char *const default_table[] = {"Role", "ClusterRole", "LimitRange", "CustomResourceDefinition",
						    NULL};
	/* the kinds with their own field label conversion upstream */
	static const char *const field_kinds[] = {"Pod",    "Node",    "ReplicationController", "Event", "Namespace",
						  "Secret", "Service", "Job",                   NULL};
	/* a status subresource whose create keeps the status it was given
	 * (upstream's node and CSR strategies; a CRD's conditions are the
	 * server's own) */
	static const char *const keep_status[] = {"Node", "CertificateSigningRequest", "CustomResourceDefinition", NULL};
	const sk_kind_set *ks = sk__kinds_builtin();

	(void)state;
	assert_true(ks->n > 40);
	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		const sk_kind_ops *o = r->ops;

		for (size_t j = 0; j < i; j++)
			assert_false(!strcmp(ks->v[j]->group, r->group) && !strcmp(ks->v[j]->version, r->version) &&
				     !strcmp(ks->v[j]->plural, r->plural));
		assert_false(r->custom);
		if (!stored(r)) {
			assert_non_null(o);
			continue;
		}
		assert_non_null(o);
		assert_non_null(o->validate);
		assert_int_equal(o->printer != NULL, !listed(default_table, r->kind));
		assert_null(o->table_columns);
		assert_int_equal(o->field_labels != NULL, listed(field_kinds, r->kind));
		if ((r->subresources & SK_SUB_STATUS) && !listed(keep_status, r->kind))
			assert_non_null(o->admit_create);
		/* every conversion upstream accepts metadata.name */
		if (o->field_labels) {
			size_t f = 0;

			while (o->field_labels->fields[f] && strcmp(o->field_labels->fields[f], "metadata.name"))
				f++;
			assert_non_null(o->field_labels->fields[f]);
		}
	}
}

static int fcheck(const char *kind, const char *sel, sk_error_t *err)
{
	const sk_api_resource *r = sk__kind_builtin(kind);
	sk_kube_field_selector *s = sk_kube_field_selector_parse(sel, err);
	int rc;

	assert_non_null(r);
	assert_non_null(s);
	rc = sk_kube_field_selector_check(s, r->ops ? r->ops->field_labels : NULL, err);
	sk_kube_field_selector_free(s);
	return rc;
}

/* The kinds' field labels and messages, as upstream's conversion funcs. */
static void test_field_labels(void **state)
{
	sk_error_t err = {0};

	(void)state;
	assert_int_equal(fcheck("Pod", "metadata.name=a,spec.nodeName=n,status.phase!=Running,spec.host=x", &err), 0);
	assert_int_equal(fcheck("Event", "involvedObject.name=p,involvedObject.uid=u,source=kubelet", &err), 0);
	assert_int_equal(fcheck("ConfigMap", "metadata.namespace=a", &err), 0);
	assert_int_equal(fcheck("Node", "spec.unschedulable=false", &err), 0);
	assert_int_equal(fcheck("Secret", "type=Opaque", &err), 0);
	assert_int_equal(fcheck("Job", "status.successful=1", &err), 0);
	assert_int_equal(fcheck("Service", "spec.clusterIP=None,spec.type=ClusterIP", &err), 0);
	assert_int_equal(fcheck("Namespace", "status.phase=Active", &err), 0);
	assert_int_equal(fcheck("ReplicationController", "status.replicas=1", &err), 0);
	assert_int_equal(fcheck("Pod", "foo=bar", &err), -1);
	assert_int_equal(err.code, SK_EBADREQUEST);
	assert_string_equal(err.msg, "field label not supported: foo");
	assert_int_equal(fcheck("Node", "metadata.namespace=x", &err), -1);
	assert_int_equal(fcheck("Job", "status.active=1", &err), -1);
	assert_string_equal(err.msg, "field label \"status.active\" not supported for batchv1.Job");
	assert_int_equal(fcheck("ReplicaSet", "status.replicas=1", &err), -1);
	assert_int_equal(fcheck("ClusterRole", "spec.x=1", &err), -1);
	assert_int_equal(fcheck("Deployment", "spec.replicas=1", &err), -1);
	assert_string_equal(err.msg,
			    "\"spec.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
	assert_null(sk__kind_builtin("Widget"));
	assert_null(sk__kind_builtin(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_and_custom),
		cmocka_unit_test(test_custom_spec),
		cmocka_unit_test(test_concurrent_swaps),
		cmocka_unit_test(test_builtin_descriptors),
		cmocka_unit_test(test_field_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
