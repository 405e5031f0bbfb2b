#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/selector.h"

/* the shape of a kind's field labels (Pod's, with its alias) */
static const sk_kube_field_labels labels = {
	.fields = (const char *const[]){"metadata.name", "spec.nodeName", "status.phase", NULL},
	.alias = "spec.host",
	.alias_of = "spec.nodeName",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	sk_error_t err = {0};
	sk_kube_field_selector *sel;
	const char *v;

	memcpy(s, data, size);
	s[size] = '\0';
	sel = sk_kube_field_selector_parse(s, &err);
	if (sel) {
		json_t *pod = json_pack("{s:{s:s,s:s},s:{s:s,s:b},s:{s:i}}", "metadata", "name", "p",
					"namespace", "ns", "spec", "nodeName", "n1", "hostNetwork", 1,
					"status", "replicas", 3);
		sk_kube_field_selector_single_eq(sel, "spec.nodeName", &v);
		sk_kube_field_selector_match(sel, pod);
		sk_kube_field_selector_check(sel, &labels, &err);
		sk_kube_field_selector_check(sel, NULL, &err);
		sk_kube_field_selector_match(sel, pod);
		json_decref(pod);
		sk_kube_field_selector_free(sel);
	}
	free(s);
	return 0;
}
