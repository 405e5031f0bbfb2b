/* Validation building blocks: field errors in upstream wording and Go-style
 * value rendering. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validate-int.h"
#include "util/util.h"

char *sk__vchild(const char *base, const char *name)
{
	return base && *base ? xasprintf("%s.%s", base, name) : xstrdup(name);
}

char *sk__vindex(const char *base, size_t i) { return xasprintf("%s[%zu]", base, i); }

char *sk__vkey(const char *base, const char *key) { return xasprintf("%s[%s]", base, key); }

char *sk__vquote(const char *s)
{
	size_t len = strlen(s), n = 0;
	char *out = xmalloc(len * 4 + 3);

	out[n++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			out[n++] = '\\';
			out[n++] = (char)*p;
		} else if (*p == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
		} else if (*p == '\t') {
			out[n++] = '\\';
			out[n++] = 't';
		} else if (*p == '\r') {
			out[n++] = '\\';
			out[n++] = 'r';
		} else if (*p < 0x20 || *p == 0x7f) {
			n += (size_t)snprintf(out + n, 5, "\\x%02x", *p);
		} else {
			out[n++] = (char)*p;
		}
	}
	out[n++] = '"';
	out[n] = '\0';
	return out;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* map[string]string{"a":"b", "c":"d"} with sorted keys, as Go's %#v. */
static char *map_repr(json_t *m)
{
	size_t n = json_object_size(m), i = 0, len = 0;
	const char **keys = xmalloc((n + 1) * sizeof(*keys));
	char *out = xstrdup("map[string]string{");
	const char *k;
	json_t *v;

	json_object_foreach(m, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++) {
		cleanup_free char *qk = sk__vquote(keys[i]);
		cleanup_free char *qv = sk__vquote(json_is_string(json_object_get(m, keys[i]))
							   ? json_string_value(json_object_get(m, keys[i]))
							   : "");
		char *next = xasprintf("%s%s%s:%s", out, i ? ", " : "", qk, qv);

		free(out);
		out = next;
	}
	len = strlen(out);
	out = xrealloc(out, len + 2);
	out[len] = '}';
	out[len + 1] = '\0';
	free(keys);
	return out;
}

static int string_array(json_t *v)
{
	size_t i;
	json_t *x;

	json_array_foreach(v, i, x)
		if (!json_is_string(x))
			return 0;
	return 1;
}

/* Go's %#v of a []string: []string{"a", "b"} */
static char *string_slice_repr(json_t *v)
{
	char *out = xstrdup("[]string{"), *tmp;
	size_t i;
	json_t *x;

	json_array_foreach(v, i, x) {
		cleanup_free char *q = sk__vquote(json_string_value(x));

		tmp = xasprintf("%s%s%s", out, i ? ", " : "", q);
		free(out);
		out = tmp;
	}
	tmp = xasprintf("%s}", out);
	free(out);
	return tmp;
}

char *sk__vrepr(json_t *v)
{
	char *s;

	if (!v)
		return xstrdup("null");
	switch (json_typeof(v)) {
	case JSON_STRING:
		return sk__vquote(json_string_value(v));
	case JSON_INTEGER:
		return xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL:
		return xasprintf("%g", json_real_value(v));
	case JSON_TRUE:
		return xstrdup("true");
	case JSON_FALSE:
		return xstrdup("false");
	case JSON_OBJECT:
		return map_repr(v);
	case JSON_ARRAY:
		if (string_array(v))
			return string_slice_repr(v);
		/* fall through */
	default:
		if (!v)
			return xstrdup("null");
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		return s ? s : xstrdup("null");
	}
}

static void add(struct sk__verr *e, const char *reason, const char *field, char *msg)
{
	json_array_append_new(
		e->causes, json_pack("{s:s, s:s, s:s}", "reason", reason, "message", msg, "field", field ? field : ""));
	free(msg);
}

static char *with_detail(const char *head, const char *detail)
{
	return detail && *detail ? xasprintf("%s: %s", head, detail) : xstrdup(head);
}

void sk__vrequired(struct sk__verr *e, const char *field, const char *detail)
{
	add(e, "FieldValueRequired", field, with_detail("Required value", detail));
}

void sk__vforbidden(struct sk__verr *e, const char *field, const char *detail)
{
	add(e, "FieldValueForbidden", field, with_detail("Forbidden", detail));
}

void sk__vtoo_long(struct sk__verr *e, const char *field, int64_t max)
{
	add(e, "FieldValueTooLong", field,
	    xasprintf("Too long: may not be more than %" PRId64 " %s", max, max == 1 ? "byte" : "bytes"));
}

static void add_value(struct sk__verr *e, const char *reason, const char *head, const char *field, const char *repr,
		      const char *detail)
{
	cleanup_free char *h = xasprintf("%s: %s", head, repr);

	add(e, reason, field, with_detail(h, detail));
}

void sk__vinvalid(struct sk__verr *e, const char *field, json_t *value, const char *detail)
{
	cleanup_free char *r = sk__vrepr(value);

	add_value(e, "FieldValueInvalid", "Invalid value", field, r, detail);
}

void sk__vinvalid_repr(struct sk__verr *e, const char *field, const char *repr, const char *detail)
{
	add_value(e, "FieldValueInvalid", "Invalid value", field, repr, detail);
}

void sk__vinvalid_str(struct sk__verr *e, const char *field, const char *value, const char *detail)
{
	cleanup_free char *r = sk__vquote(value ? value : "");

	add_value(e, "FieldValueInvalid", "Invalid value", field, r, detail);
}

void sk__vinvalid_int(struct sk__verr *e, const char *field, int64_t value, const char *detail)
{
	cleanup_free char *r = xasprintf("%" PRId64, value);

	add_value(e, "FieldValueInvalid", "Invalid value", field, r, detail);
}

void sk__vnot_supported(struct sk__verr *e, const char *field, json_t *value, const char *const *supported)
{
	cleanup_free char *r = value ? sk__vrepr(value) : xstrdup("\"\"");
	cleanup_free char *list = xstrdup("supported values: ");

	for (int i = 0; supported[i]; i++) {
		cleanup_free char *q = sk__vquote(supported[i]);
		char *next = xasprintf("%s%s%s", list, i ? ", " : "", q);

		free(list);
		list = next;
	}
	add_value(e, "FieldValueNotSupported", "Unsupported value", field, r, list);
}

void sk__vnot_supported_json(struct sk__verr *e, const char *field, json_t *value, json_t *supported)
{
	cleanup_free char *r = sk__vrepr(value);
	cleanup_free char *list = xstrdup("supported values: ");
	size_t i;
	json_t *v;

	json_array_foreach(supported, i, v) {
		cleanup_free char *q = sk__vrepr(v);
		char *next = xasprintf("%s%s%s", list, i ? ", " : "", q);

		free(list);
		list = next;
	}
	add_value(e, "FieldValueNotSupported", "Unsupported value", field, r, list);
}

void sk__vtoo_many(struct sk__verr *e, const char *field, int64_t actual, int64_t max)
{
	add(e, "FieldValueTooMany", field,
	    xasprintf("Too many: %" PRId64 ": must have at most %" PRId64 " items", actual, max));
}

void sk__vduplicate(struct sk__verr *e, const char *field, json_t *value)
{
	cleanup_free char *r = sk__vrepr(value);

	add_value(e, "FieldValueDuplicate", "Duplicate value", field, r, NULL);
}

void sk__vnot_found(struct sk__verr *e, const char *field, json_t *value)
{
	cleanup_free char *r = sk__vrepr(value);

	add_value(e, "FieldValueNotFound", "Not found", field, r, NULL);
}
