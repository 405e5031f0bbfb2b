/* Input: a JSON document, then a NUL byte or newline, then a strategic
 * merge patch (kind Pod). The patch is also server-side applied to the
 * document, and the write recorded in managedFields, to fuzz apply.c, once
 * as a Pod and once typed by a CRD schema (map, set and atomic lists). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/apply.h"
#include "api/patch.h"

/* A CRD schema with every list and map type apply.c reads: a map list by
 * one key and by two, a set, an atomic list and an atomic map. */
static const char crd_schema[] =
	"{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
	"\"containers\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],"
	"\"items\":{\"type\":\"object\",\"properties\":{\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":"
	"\"map\",\"x-kubernetes-list-map-keys\":[\"containerPort\",\"protocol\"],\"items\":{\"type\":\"object\"}}}}},"
	"\"finalizers\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}},"
	"\"volumes\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"nodeSelector\":{\"type\":\"object\",\"x-kubernetes-map-type\":\"atomic\"}}}}}";

static void exercise_schema_apply(json_t *doc, json_t *patch)
{
	sk_error_t err = {0};
	json_t *schema = json_loads(crd_schema, 0, NULL), *live = json_deep_copy(doc), *applied;

	sk_managed_fields_update_schema(NULL, live, schema, "creator", "v1", NULL);
	applied = sk_apply_schema(live, patch, schema, "applier", 0, &err);
	if (applied)
		sk_managed_fields_update_schema(live, applied, schema, "updater", "v1", NULL);
	json_decref(sk_apply_schema(live, patch, schema, "other", 1, &err));
	json_decref(applied);
	json_decref(live);
	json_decref(schema);
}

static void exercise_apply(json_t *doc, json_t *patch)
{
	sk_error_t err = {0};
	json_t *live = json_deep_copy(doc), *applied, *again;

	sk_managed_fields_update(NULL, live, "creator", "v1", NULL);
	applied = sk_apply(live, patch, "Pod", "applier", 0, &err);
	if (applied) {
		again = sk_apply(applied, patch, "Pod", "applier", 0, &err);
		json_decref(again);
		sk_managed_fields_update(live, applied, "updater", "v1", "status");
	}
	json_decref(sk_apply(live, patch, "Pod", "other", 1, &err));
	json_decref(applied);
	json_decref(live);
	exercise_schema_apply(doc, patch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, '\0', size);
	sk_error_t err = {0};
	json_t *doc, *ops, *out;

	if (!sep)
		sep = memchr(data, '\n', size);
	if (!sep)
		return 0;
	doc = json_loadb((const char *)data, (size_t)(sep - data), JSON_DECODE_ANY, NULL);
	ops = json_loadb((const char *)sep + 1, size - (size_t)(sep - data) - 1, JSON_DECODE_ANY, NULL);
	if (doc && ops) {
		out = sk_strategic_merge_patch(doc, ops, "Pod", &err);
		json_decref(out);
		if (json_is_object(doc) && json_is_object(ops))
			exercise_apply(doc, ops);
	}
	json_decref(doc);
	json_decref(ops);
	return 0;
}
