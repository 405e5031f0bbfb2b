/* PersistentVolume rules (src/kube/volume.c): the PV controller's choice of
 * a volume for a claim (upstream's index_test.go cases: smallest that fits,
 * access modes, class, selector, pre-binding, phases), checkVolumeSatisfyClaim
 * and the volume's node affinity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/volume.h"
#include "util/util.h"

static json_t *J(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

/* A volume: name, size, modes (JSON array text), class, phase, extra spec
 * fields and labels (JSON object texts, without braces). */
static json_t *pv(const char *name, const char *size, const char *modes, const char *cls, const char *phase,
		  const char *spec_extra, const char *labels)
{
	char *t = xasprintf("{\"metadata\":{\"name\":\"%s\",\"labels\":{%s}},\"spec\":{\"capacity\":{\"storage\":\"%s\"},"
			    "\"accessModes\":%s,\"storageClassName\":\"%s\"%s%s},\"status\":{\"phase\":\"%s\"}}",
			    name, labels ? labels : "", size, modes, cls, spec_extra ? "," : "",
			    spec_extra ? spec_extra : "", phase);
	json_t *j = J(t);

	free(t);
	return j;
}

static json_t *pvc(const char *size, const char *modes, const char *cls_field, const char *extra)
{
	char *t = xasprintf("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"u1\"},\"spec\":{"
			    "\"accessModes\":%s,\"resources\":{\"requests\":{\"storage\":\"%s\"}}%s%s%s%s}}",
			    modes, size, cls_field ? "," : "", cls_field ? cls_field : "", extra ? "," : "",
			    extra ? extra : "");
	json_t *j = J(t);

	free(t);
	return j;
}

#define RWO "[\"ReadWriteOnce\"]"
#define RWX "[\"ReadWriteMany\"]"
#define RWO_ROX "[\"ReadWriteOnce\",\"ReadOnlyMany\"]"

static const char *match(json_t *pvs, json_t *claim, bool delay)
{
	int i = sk_kube_pv_find_match(pvs, claim, delay, NULL, NULL);

	return i < 0 ? NULL : json_string_value(json_object_get(json_object_get(json_array_get(pvs, i), "metadata"), "name"));
}

static void test_smallest_that_fits(void **state)
{
	json_t *pvs = json_array(), *c;

	(void)state;
	json_array_append_new(pvs, pv("big", "10Gi", RWO, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("small", "1Gi", RWO, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("mid", "5Gi", RWO, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("mid-m", "5000Mi", RWO, "", "Available", NULL, NULL));
	c = pvc("3Gi", RWO, "\"storageClassName\":\"\"", NULL);
	assert_string_equal(match(pvs, c, false), "mid-m");
	json_decref(c);
	c = pvc("1Gi", RWO, "\"storageClassName\":\"\"", NULL);
	assert_string_equal(match(pvs, c, false), "small");
	json_decref(c);
	c = pvc("11Gi", RWO, "\"storageClassName\":\"\"", NULL);
	assert_null(match(pvs, c, false));
	json_decref(c);
	json_decref(pvs);
}

static void test_modes_class_selector_phase(void **state)
{
	json_t *pvs = json_array(), *c;

	(void)state;
	json_array_append_new(pvs, pv("rwx", "1Gi", RWX, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("two-modes", "1Gi", RWO_ROX, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("one-mode-bigger", "2Gi", RWO, "", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("gold", "1Gi", RWO, "gold", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("released", "1Gi", RWO, "silver", "Released", NULL, NULL));
	json_array_append_new(pvs, pv("fast", "8Gi", RWO, "", "Available", NULL, "\"speed\":\"fast\""));
	/* fewest access modes first, even when bigger (upstream's mode index order) */
	c = pvc("1Gi", RWO, "\"storageClassName\":\"\"", NULL);
	assert_string_equal(match(pvs, c, false), "one-mode-bigger");
	json_decref(c);
	c = pvc("1Gi", "[\"ReadOnlyMany\"]", "\"storageClassName\":\"\"", NULL);
	assert_string_equal(match(pvs, c, false), "two-modes");
	json_decref(c);
	c = pvc("1Gi", RWX, "\"storageClassName\":\"\"", NULL);
	assert_string_equal(match(pvs, c, false), "rwx");
	json_decref(c);
	/* class: the beta annotation counts too; no class means "" */
	c = pvc("1Gi", RWO, "\"storageClassName\":\"gold\"", NULL);
	assert_string_equal(match(pvs, c, false), "gold");
	json_decref(c);
	c = J("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"annotations\":{\"volume.beta.kubernetes.io/"
	      "storage-class\":\"gold\"}},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]}}");
	assert_string_equal(match(pvs, c, false), "gold");
	assert_true(sk_kube_claim_has_class(c));
	json_decref(c);
	/* a Released volume is not taken */
	c = pvc("1Gi", RWO, "\"storageClassName\":\"silver\"", NULL);
	assert_null(match(pvs, c, false));
	json_decref(c);
	/* the selector */
	c = pvc("1Gi", RWO, "\"storageClassName\":\"\"", "\"selector\":{\"matchLabels\":{\"speed\":\"fast\"}}");
	assert_string_equal(match(pvs, c, false), "fast");
	json_decref(c);
	c = pvc("1Gi", RWO, "\"storageClassName\":\"\"", "\"selector\":{\"matchLabels\":{\"speed\":\"slow\"}}");
	assert_null(match(pvs, c, false));
	json_decref(c);
	c = pvc("1Gi", RWO, NULL, NULL);
	assert_false(sk_kube_claim_has_class(c));
	assert_string_equal(sk_kube_volume_class(c), "");
	json_decref(c);
	json_decref(pvs);
}

static void test_prebound_and_delay(void **state)
{
	json_t *pvs = json_array(), *c;

	(void)state;
	json_array_append_new(pvs, pv("free", "1Gi", RWO, "local", "Available", NULL, NULL));
	json_array_append_new(pvs, pv("other", "1Gi", RWO, "local", "Available",
				      "\"claimRef\":{\"namespace\":\"ns\",\"name\":\"someone\"}", NULL));
	json_array_append_new(pvs, pv("mine", "2Gi", RWO, "local", "Available",
				      "\"claimRef\":{\"namespace\":\"ns\",\"name\":\"c\"}", NULL));
	c = pvc("1Gi", RWO, "\"storageClassName\":\"local\"", NULL);
	/* a volume bound to the claim wins over a smaller free one */
	assert_string_equal(match(pvs, c, false), "mine");
	assert_true(sk_kube_pv_bound_to_claim(json_array_get(pvs, 2), c));
	assert_false(sk_kube_pv_bound_to_claim(json_array_get(pvs, 1), c));
	/* WaitForFirstConsumer without a node: only the pre-bound one */
	assert_string_equal(match(pvs, c, true), "mine");
	json_array_remove(pvs, 2);
	assert_null(match(pvs, c, true));
	assert_string_equal(match(pvs, c, false), "free");
	json_decref(c);
	/* a claimRef with another uid is another claim */
	c = pvc("1Gi", RWO, "\"storageClassName\":\"local\"", NULL);
	json_array_append_new(pvs, pv("stale", "1Gi", RWO, "local", "Released",
				      "\"claimRef\":{\"namespace\":\"ns\",\"name\":\"c\",\"uid\":\"old\"}", NULL));
	assert_false(sk_kube_pv_bound_to_claim(json_array_get(pvs, 2), c));
	json_decref(c);
	json_decref(pvs);
}

static void test_satisfy_and_node(void **state)
{
	json_t *v = pv("v", "1Gi", RWO, "gold", "Available",
		       "\"volumeMode\":\"Filesystem\",\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{"
		       "\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"n1\"]}]}]}}",
		       NULL);
	json_t *c, *l1 = J("{\"kubernetes.io/hostname\":\"n1\"}"), *l2 = J("{\"kubernetes.io/hostname\":\"n2\"}");
	json_t *pvs = json_array();

	(void)state;
	c = pvc("2Gi", RWO, "\"storageClassName\":\"gold\"", NULL);
	assert_string_equal(sk_kube_pv_satisfies_claim(v, c), "requested PV is too small");
	json_decref(c);
	c = pvc("1Gi", RWO, "\"storageClassName\":\"silver\"", NULL);
	assert_string_equal(sk_kube_pv_satisfies_claim(v, c), "storageClassName does not match");
	json_decref(c);
	c = pvc("1Gi", RWX, "\"storageClassName\":\"gold\"", NULL);
	assert_string_equal(sk_kube_pv_satisfies_claim(v, c), "incompatible accessMode");
	json_decref(c);
	c = pvc("1Gi", RWO, "\"storageClassName\":\"gold\"", "\"volumeMode\":\"Block\"");
	assert_string_equal(sk_kube_pv_satisfies_claim(v, c), "incompatible volumeMode");
	json_decref(c);
	c = pvc("512Mi", RWO, "\"storageClassName\":\"gold\"", NULL);
	assert_null(sk_kube_pv_satisfies_claim(v, c));
	assert_true(sk_kube_pv_matches_node(v, l1, "n1"));
	assert_false(sk_kube_pv_matches_node(v, l2, "n2"));
	json_array_append(pvs, v);
	assert_int_equal(sk_kube_pv_find_match(pvs, c, true, l1, "n1"), 0);
	assert_int_equal(sk_kube_pv_find_match(pvs, c, true, l2, "n2"), -1);
	json_decref(c);
	json_decref(pvs);
	json_decref(v);
	json_decref(l1);
	json_decref(l2);
	v = J("{\"metadata\":{\"annotations\":{\"storageclass.beta.kubernetes.io/is-default-class\":\"true\"}}}");
	assert_true(sk_kube_class_is_default(v));
	json_decref(v);
	v = J("{\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"True\"}}}");
	assert_false(sk_kube_class_is_default(v));
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smallest_that_fits),
		cmocka_unit_test(test_modes_class_selector_phase),
		cmocka_unit_test(test_prebound_and_delay),
		cmocka_unit_test(test_satisfy_and_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
