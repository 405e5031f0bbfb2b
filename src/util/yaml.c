/* YAML (or JSON) into jansson with libyaml (yaml.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/util.h"
#include "util/yaml.h"

/* YAML 1.2's core schema integer, decimal: [-+]?[0-9]+ */
static int is_integer(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

enum { YAML_DEPTH_MAX = 64 };

static json_t *yaml_node(yaml_parser_t *p, yaml_event_t *ev, int depth, sk_error_t *err);

static json_t *yaml_next(yaml_parser_t *p, int depth, int *end, sk_error_t *err)
{
	yaml_event_t ev;
	json_t *v;

	if (!yaml_parser_parse(p, &ev)) {
		sk_error_set(err, SK_EBADREQUEST, "line %zu: %s", p->problem_mark.line + 1,
			     p->problem ? p->problem : "malformed YAML");
		return NULL;
	}
	*end = ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT;
	if (*end) {
		yaml_event_delete(&ev);
		return NULL;
	}
	v = yaml_node(p, &ev, depth, err);
	yaml_event_delete(&ev);
	return v;
}

/* Plain scalars true/false, null/~/empty and decimal integers get their
 * JSON types, every other scalar (quoted ones included) is a string;
 * aliases are refused (no expansion bombs). */
static json_t *yaml_node(yaml_parser_t *p, yaml_event_t *ev, int depth, sk_error_t *err)
{
	json_t *v = NULL, *k;
	int end = 0;

	if (depth > YAML_DEPTH_MAX) {
		sk_error_set(err, SK_EBADREQUEST, "nested too deeply");
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *s = (const char *)ev->data.scalar.value;

		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!strcmp(s, "true") || !strcmp(s, "false")))
			return json_boolean(!strcmp(s, "true"));
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!strcmp(s, "null") || !strcmp(s, "~") || !*s))
			return json_null();
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_integer(s)) {
			errno = 0;
			long long n = strtoll(s, NULL, 10);

			if (!errno)
				return json_integer(n);
		}
		return json_stringn(s, ev->data.scalar.length);
	}
	case YAML_SEQUENCE_START_EVENT:
		v = json_array();
		for (;;) {
			json_t *item = yaml_next(p, depth + 1, &end, err);

			if (end)
				return v;
			if (!item)
				break;
			json_array_append_new(v, item);
		}
		break;
	case YAML_MAPPING_START_EVENT:
		v = json_object();
		for (;;) {
			json_t *val;

			k = yaml_next(p, depth + 1, &end, err);
			if (end)
				return v;
			if (!k)
				break;
			if (!json_is_string(k)) {
				json_decref(k);
				sk_error_set(err, SK_EBADREQUEST, "line %zu: a key is not a string", p->mark.line + 1);
				break;
			}
			val = yaml_next(p, depth + 1, &end, err);
			if (!val || end) {
				json_decref(k);
				if (end)
					sk_error_set(err, SK_EBADREQUEST, "line %zu: a key without a value",
						     p->mark.line + 1);
				break;
			}
			json_object_set_new(v, json_string_value(k), val);
			json_decref(k);
		}
		break;
	case YAML_ALIAS_EVENT:
		sk_error_set(err, SK_EBADREQUEST, "line %zu: aliases are not supported", ev->start_mark.line + 1);
		return NULL;
	default:
		sk_error_set(err, SK_EBADREQUEST, "line %zu: unexpected YAML", ev->start_mark.line + 1);
		return NULL;
	}
	json_decref(v);
	return NULL;
}

json_t *sk_yaml_load(const char *text, size_t len, sk_error_t *err)
{
	yaml_parser_t p;
	yaml_event_t ev;
	json_t *doc = NULL;
	int end = 0, ok = 1;

	if (!yaml_parser_initialize(&p)) {
		sk_error_set(err, SK_EINTERNAL, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	/* STREAM-START, DOCUMENT-START, then the root node */
	for (int i = 0; i < 2 && ok; i++) {
		ok = yaml_parser_parse(&p, &ev);
		if (ok && ev.type == YAML_STREAM_END_EVENT)
			ok = 0;
		if (ok)
			yaml_event_delete(&ev);
	}
	if (!ok)
		sk_error_set(err, SK_EBADREQUEST, "line %zu: %s", p.problem_mark.line + 1,
			     p.problem ? p.problem : "an empty document");
	else
		doc = yaml_next(&p, 0, &end, err);
	yaml_parser_delete(&p);
	return doc;
}
