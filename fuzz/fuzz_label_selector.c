#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	sk_error_t err = {0};
	sk_kube_label_selector *sel;

	memcpy(s, data, size);
	s[size] = '\0';
	sel = sk_kube_label_selector_parse(s, &err);
	if (sel) {
		json_t *labels = json_pack("{s:s,s:s,s:s}", "app", "web", "x", "1", "in", "notin");
		sk_kube_label_selector_match(sel, labels);
		sk_kube_label_selector_match(sel, NULL);
		json_decref(labels);
		sk_kube_label_selector_free(sel);
	}
	free(s);
	return 0;
}
