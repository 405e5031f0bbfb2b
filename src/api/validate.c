/* Validation of API objects after upstream pkg/apis/core/validation and
 * friends: metadata, pods and pod templates, workloads, services, config,
 * storage and scheduling objects, and the update rules. */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "api/api-int.h"
#include "api/schema.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "kube/cron.h"
#include "kube/quantity.h"
#include "kube/selector.h"
#include "util/quantity.h"
#include "util/util.h"

#define E struct sk__verr *e
#define CHILD(var, base, name) cleanup_free char *var = sk__vchild(base, name)
#define LIST(...) \
	(const char *const[]) { __VA_ARGS__, NULL }

/* ---- name formats (apimachinery pkg/util/validation) ---- */

#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"
#define QUALIFIED_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"

static const char msg_dns1123_label[] =
	"a lowercase RFC 1123 label must consist of lower case alphanumeric "
	"characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
	"'123-abc', regex used for validation is '" DNS1123_LABEL_FMT "')";
static const char msg_dns1123_subdomain[] =
	"a lowercase RFC 1123 subdomain must consist of lower case "
	"alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
	"'example.com', regex used for validation is '" DNS1123_SUBDOMAIN_FMT "')";
static const char msg_dns1035_label[] =
	"a DNS-1035 label must consist of lower case alphanumeric characters "
	"or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  "
	"or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
static const char msg_qualified[] =
	"must consist of alphanumeric characters, '-', '_' or '.', and must "
	"start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
	"used for validation is '" QUALIFIED_FMT "')";
static const char msg_label_value[] =
	"a valid label must be an empty string or consist of alphanumeric "
	"characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
	"or 'my_value',  or '12345', regex used for validation is '(" QUALIFIED_FMT ")?')";
static const char msg_config_key[] =
	"a valid config key must consist of alphanumeric characters, '-', '_' "
	"or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/* Up to three messages about one value. */
struct msgs {
	const char *m[3];
	char *owned[3];
	int n;
};

static void msgs_add(struct msgs *m, const char *s)
{
	if (m->n < 3)
		m->m[m->n++] = s;
}

static void msgs_add_owned(struct msgs *m, char *s)
{
	if (m->n < 3) {
		m->owned[m->n] = s;
		m->m[m->n++] = s;
	} else {
		free(s);
	}
}

static void msgs_release(struct msgs *m)
{
	for (int i = 0; i < 3; i++)
		free(m->owned[i]);
}

static bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

static bool is_alnum(char c) { return isalnum((unsigned char)c) != 0; }

static bool match_label(const char *s, size_t len)
{
	if (len == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

static bool match_subdomain(const char *s)
{
	const char *p = s;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (!match_label(p, len))
			return false;
		if (!dot)
			return true;
		p = dot + 1;
	}
}

static bool match_qualified_part(const char *s, size_t len)
{
	if (len == 0 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

static void check_label_fmt(const char *s, struct msgs *m)
{
	if (strlen(s) > 63)
		msgs_add(m, "must be no more than 63 characters");
	if (!match_label(s, strlen(s)))
		msgs_add(m, msg_dns1123_label);
}

static void check_subdomain_fmt(const char *s, struct msgs *m)
{
	if (strlen(s) > 253)
		msgs_add(m, "must be no more than 253 characters");
	if (!match_subdomain(s))
		msgs_add(m, msg_dns1123_subdomain);
}

static void check_dns1035_fmt(const char *s, struct msgs *m)
{
	size_t len = strlen(s);

	if (len > 63)
		msgs_add(m, "must be no more than 63 characters");
	if (!match_label(s, len) || !(s[0] >= 'a' && s[0] <= 'z'))
		msgs_add(m, msg_dns1035_label);
}

static const char *first(void (*fn)(const char *, struct msgs *), const char *s)
{
	struct msgs m = {0};

	fn(s, &m);
	return m.n ? m.m[0] : NULL;
}

const char *sk_validate_dns1123_subdomain(const char *s) { return first(check_subdomain_fmt, s); }

const char *sk_validate_dns1123_label(const char *s) { return first(check_label_fmt, s); }

const char *sk_validate_dns1035_label(const char *s) { return first(check_dns1035_fmt, s); }

static void check_qualified_name(const char *s, struct msgs *m)
{
	const char *slash = strchr(s, '/');
	const char *name = s;

	if (slash && strchr(slash + 1, '/')) {
		msgs_add_owned(m, xasprintf("a qualified name %s with an optional DNS subdomain prefix and '/' "
					    "(e.g. 'example.com/MyName')",
					    msg_qualified));
		return;
	}
	if (slash) {
		cleanup_free char *prefix = xstrndup(s, (size_t)(slash - s));
		struct msgs pm = {0};

		name = slash + 1;
		if (!*prefix)
			msgs_add(m, "prefix part must be non-empty");
		else
			check_subdomain_fmt(prefix, &pm);
		for (int i = 0; i < pm.n; i++)
			msgs_add_owned(m, xasprintf("prefix part %s", pm.m[i]));
	}
	if (!*name)
		msgs_add(m, "name part must be non-empty");
	else if (strlen(name) > 63)
		msgs_add(m, "name part must be no more than 63 characters");
	if (!match_qualified_part(name, strlen(name)))
		msgs_add_owned(m, xasprintf("name part %s", msg_qualified));
}

static void check_label_value(const char *s, struct msgs *m)
{
	size_t len = strlen(s);

	if (len > 63)
		msgs_add(m, "must be no more than 63 characters");
	if (len && !match_qualified_part(s, len))
		msgs_add(m, msg_label_value);
}

static void check_config_key(const char *s, struct msgs *m)
{
	size_t len = strlen(s);

	if (len > 253)
		msgs_add(m, "must be no more than 253 characters");
	if (!len || strspn(s, "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != len)
		msgs_add(m, msg_config_key);
	if (strcmp(s, ".") == 0)
		msgs_add(m, "must not be '.'");
	else if (strcmp(s, "..") == 0)
		msgs_add(m, "must not be '..'");
	else if (strncmp(s, "..", 2) == 0)
		msgs_add(m, "must not start with '..'");
}

json_t *sk_validate_named_format(const char *format, const char *s)
{
	static const struct {
		const char *name;
		void (*fn)(const char *, struct msgs *);
		int prefix;
	} formats[] = {
		{"dns1123Label", check_label_fmt, 0},
		{"dns1123Subdomain", check_subdomain_fmt, 0},
		{"dns1035Label", check_dns1035_fmt, 0},
		{"dns1123LabelPrefix", check_label_fmt, 1},
		{"dns1123SubdomainPrefix", check_subdomain_fmt, 1},
		{"dns1035LabelPrefix", check_dns1035_fmt, 1},
		{"qualifiedName", check_qualified_name, 0},
		{"labelValue", check_label_value, 0},
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		cleanup_free char *v = xstrdup(s);
		size_t len = strlen(v);
		struct msgs m = {0};
		json_t *out;

		if (strcmp(format, formats[i].name))
			continue;
		/* apimachinery's maskTrailingDash: a generateName prefix may end in '-' */
		if (formats[i].prefix && len > 1 && v[len - 1] == '-') {
			v[len - 2] = 'a';
			v[len - 1] = 0;
		}
		formats[i].fn(v, &m);
		out = json_array();
		for (int k = 0; k < m.n; k++)
			json_array_append_new(out, json_string(m.m[k]));
		msgs_release(&m);
		return out;
	}
	return NULL;
}

/* Reports every message of fn(value) as Invalid on field. */
static void invalid_each(E, const char *field, const char *value, void (*fn)(const char *, struct msgs *))
{
	struct msgs m = {0};

	fn(value, &m);
	for (int i = 0; i < m.n; i++)
		sk__vinvalid_str(e, field, value, m.m[i]);
	msgs_release(&m);
}

/* ---- JSON access ---- */

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static const char *str_or_empty(json_t *o, const char *k)
{
	const char *s = str(o, k);

	return s ? s : "";
}

static bool has(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return v && !json_is_null(v);
}

static json_t *obj(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_object(v) ? v : NULL;
}

static json_t *arr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_array(v) ? v : NULL;
}

static bool str_in(const char *s, const char *const *set)
{
	for (int i = 0; s && set[i]; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}

/* Present string field must be one of set (absent/empty → Required when required). */
static void enum_field(E, json_t *o, const char *base, const char *k, const char *const *set, bool required)
{
	json_t *v = json_object_get(o, k);
	CHILD(p, base, k);

	if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v))) {
		if (required)
			sk__vrequired(e, p, "");
		else if (v && json_is_string(v))
			sk__vnot_supported(e, p, v, set);
		return;
	}
	if (!str_in(json_string_value(v), set))
		sk__vnot_supported(e, p, v, set);
}

static bool int_field(json_t *o, const char *k, int64_t *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

static void non_negative(E, json_t *o, const char *base, const char *k)
{
	int64_t v;
	CHILD(p, base, k);

	if (int_field(o, k, &v) && v < 0)
		sk__vinvalid_int(e, p, v, "must be greater than or equal to 0");
}

static void positive(E, json_t *o, const char *base, const char *k, const char *msg)
{
	int64_t v;
	CHILD(p, base, k);

	if (int_field(o, k, &v) && v <= 0)
		sk__vinvalid_int(e, p, v, msg);
}

/* ---- metadata ---- */

enum name_rule { NAME_SUBDOMAIN, NAME_LABEL, NAME_DNS1035, NAME_PATH_SEGMENT };

/* path.IsValidPathSegmentName (RBAC's names: "system:node" is one) */
static void check_path_segment(const char *s, struct msgs *m)
{
	if (!strcmp(s, ".") || !strcmp(s, "..")) {
		msgs_add(m, !strcmp(s, ".") ? "may not be '.'" : "may not be '..'");
		return;
	}
	if (strchr(s, '/'))
		msgs_add(m, "may not contain '/'");
	if (strchr(s, '%'))
		msgs_add(m, "may not contain '%'");
}

void sk__validate_path_segment(struct sk__verr *e, const char *field, const char *name)
{
	struct msgs m = {0};

	check_path_segment(name, &m);
	for (int i = 0; i < m.n; i++)
		sk__vinvalid_str(e, field, name, m.m[i]);
	msgs_release(&m);
}

static void (*name_fn(enum name_rule r))(const char *, struct msgs *)
{
	if (r == NAME_PATH_SEGMENT)
		return check_path_segment;
	return r == NAME_LABEL ? check_label_fmt : r == NAME_DNS1035 ? check_dns1035_fmt : check_subdomain_fmt;
}

static void validate_labels(E, json_t *labels, const char *p)
{
	const char *k;
	json_t *v;

	json_object_foreach(labels, k, v) {
		invalid_each(e, p, k, check_qualified_name);
		if (json_is_string(v))
			invalid_each(e, p, json_string_value(v), check_label_value);
	}
}

static void lower_qualified(const char *s, struct msgs *m)
{
	cleanup_free char *low = xstrdup(s);

	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	check_qualified_name(low, m);
	/* Messages are static or owned; the value itself is reported unchanged. */
}

static void validate_annotations(E, json_t *ann, const char *p)
{
	const char *k;
	json_t *v;
	size_t total = 0;

	json_object_foreach(ann, k, v) {
		invalid_each(e, p, k, lower_qualified);
		total += strlen(k) + (json_is_string(v) ? json_string_length(v) : 0);
	}
	if (total > 256 * 1024)
		sk__vtoo_long(e, p, 256 * 1024);
}

/* The part of the name checks that applies to generateName: a trailing
 * dash is allowed ("maskTrailingDash"). */
static void validate_generate_name(E, const char *gen, enum name_rule rule)
{
	cleanup_free char *masked = xstrdup(gen);
	size_t len = strlen(masked);
	struct msgs m = {0};

	if (len > 1 && masked[len - 1] == '-')
		masked[len - 1] = 'a';
	name_fn(rule)(masked, &m);
	for (int i = 0; i < m.n; i++)
		sk__vinvalid_str(e, "metadata.generateName", gen, m.m[i]);
	msgs_release(&m);
}

static void validate_meta(E, json_t *o, bool namespaced, enum name_rule rule, const char *prefix)
{
	json_t *meta = obj(o, "metadata");
	const char *name = str(meta, "name");
	const char *gen = str(meta, "generateName");
	const char *ns = str(meta, "namespace");
	CHILD(mp, prefix, "metadata");
	CHILD(np, mp, "name");
	CHILD(nsp, mp, "namespace");
	CHILD(lp, mp, "labels");
	CHILD(ap, mp, "annotations");

	if (gen && *gen && !*prefix)
		validate_generate_name(e, gen, rule);
	if (!*prefix) {
		if (!name || !*name)
			sk__vrequired(e, np, "name or generateName is required");
		else
			invalid_each(e, np, name, name_fn(rule));
		if (namespaced && (!ns || !*ns))
			sk__vrequired(e, nsp, "");
		else if (namespaced)
			invalid_each(e, nsp, ns, check_label_fmt);
		else if (ns && *ns)
			sk__vforbidden(e, nsp, "not allowed on this type");
	}
	validate_labels(e, obj(meta, "labels"), lp);
	validate_annotations(e, obj(meta, "annotations"), ap);
}

static void validate_meta_update(E, json_t *o, json_t *old)
{
	static const char *const keys[] = {"name", "namespace", "uid", "creationTimestamp", NULL};
	json_t *m = obj(o, "metadata"), *om = obj(old, "metadata");

	for (int i = 0; keys[i]; i++) {
		json_t *a = json_object_get(m, keys[i]), *b = json_object_get(om, keys[i]);
		CHILD(p, "metadata", keys[i]);

		if (b && !json_is_null(b) && !json_equal(a, b))
			sk__vinvalid(e, p, a, "field is immutable");
	}
}

void sk__validate_object_meta(E, json_t *o, bool namespaced) { validate_meta(e, o, namespaced, NAME_SUBDOMAIN, ""); }

void sk__validate_object_meta_path(E, json_t *o, bool namespaced)
{
	validate_meta(e, o, namespaced, NAME_PATH_SEGMENT, "");
}

void sk__validate_object_meta_update(E, json_t *o, json_t *old) { validate_meta_update(e, o, old); }

/* ---- containers ---- */

static const char *const pull_policies[] = {"Always", "IfNotPresent", "Never", NULL};
static const char *const protocols[] = {"SCTP", "TCP", "UDP", NULL};
static const char *const field_paths[] = {
	"metadata.annotations", "metadata.labels", "metadata.name",           "metadata.namespace",
	"metadata.uid",         "spec.nodeName",   "spec.serviceAccountName", "status.hostIP",
	"status.hostIPs",       "status.podIP",    "status.podIPs",           NULL};

static void validate_port_number(E, json_t *o, const char *base, const char *k, bool required)
{
	int64_t v;
	CHILD(p, base, k);

	if (!int_field(o, k, &v)) {
		if (required)
			sk__vrequired(e, p, "");
		return;
	}
	if (v == 0 && !required)
		return;
	if (v < 1 || v > 65535)
		sk__vinvalid_int(e, p, v, "must be between 1 and 65535, inclusive");
}

static void check_port_name(const char *s, struct msgs *m)
{
	size_t len = strlen(s);
	bool letter = false;

	if (len > 15)
		msgs_add(m, "must be no more than 15 characters");
	for (size_t i = 0; i < len; i++) {
		if (!is_lower_alnum(s[i]) && s[i] != '-') {
			msgs_add(m, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
			break;
		}
		letter |= s[i] >= 'a' && s[i] <= 'z';
	}
	if (strstr(s, "--"))
		msgs_add(m, "must not contain consecutive hyphens");
	if (len && !letter)
		msgs_add(m, "must contain at least one letter (a-z)");
	if (len && (s[0] == '-' || s[len - 1] == '-'))
		msgs_add(m, "must not begin or end with a hyphen");
}

static void validate_ports(E, json_t *ports, const char *base)
{
	cleanup_json json_t *names = json_object();
	json_t *port;
	size_t i;

	json_array_foreach(ports, i, port) {
		cleanup_free char *p = sk__vindex(base, i);
		CHILD(np, p, "name");
		const char *name = str(port, "name");

		if (name && *name) {
			invalid_each(e, np, name, check_port_name);
			if (json_object_get(names, name))
				sk__vduplicate(e, np, json_object_get(port, "name"));
			json_object_set_new(names, name, json_true());
		}
		validate_port_number(e, port, p, "containerPort", true);
		validate_port_number(e, port, p, "hostPort", false);
		enum_field(e, port, p, "protocol", protocols, true);
	}
}

static void check_env_name(const char *s, struct msgs *m)
{
	for (const char *c = s; *c; c++)
		if (*c < 32 || *c > 126 || *c == '=') {
			msgs_add(m, "a valid environment variable name must consist only of printable ASCII "
				    "characters other than '='");
			return;
		}
}

static void validate_field_ref(E, json_t *ref, const char *p)
{
	const char *fp = str(ref, "fieldPath");
	CHILD(fpp, p, "fieldPath");

	if (!fp || !*fp) {
		sk__vrequired(e, fpp, "");
		return;
	}
	if ((strncmp(fp, "metadata.labels['", 17) == 0 || strncmp(fp, "metadata.annotations['", 22) == 0) &&
	    fp[strlen(fp) - 1] == ']')
		return;
	if (!str_in(fp, field_paths))
		sk__vnot_supported(e, fpp, json_object_get(ref, "fieldPath"), field_paths);
}

static void validate_key_ref(E, json_t *ref, const char *p)
{
	CHILD(kp, p, "key");
	CHILD(np, p, "name");

	if (!str(ref, "key") || !*str(ref, "key"))
		sk__vrequired(e, kp, "");
	else
		invalid_each(e, kp, str(ref, "key"), check_config_key);
	if (!str(ref, "name") || !*str(ref, "name"))
		sk__vrequired(e, np, "");
}

static void validate_env_source(E, json_t *env, const char *p)
{
	json_t *from = obj(env, "valueFrom");
	CHILD(fp, p, "valueFrom");
	int n = 0;

	if (!from)
		return;
	if (obj(from, "fieldRef")) {
		CHILD(q, fp, "fieldRef");
		n++;
		validate_field_ref(e, obj(from, "fieldRef"), q);
	}
	if (obj(from, "resourceFieldRef")) {
		CHILD(q, fp, "resourceFieldRef.resource");
		n++;
		if (!str(obj(from, "resourceFieldRef"), "resource"))
			sk__vrequired(e, q, "");
	}
	if (obj(from, "configMapKeyRef")) {
		CHILD(q, fp, "configMapKeyRef");
		n++;
		validate_key_ref(e, obj(from, "configMapKeyRef"), q);
	}
	if (obj(from, "secretKeyRef")) {
		CHILD(q, fp, "secretKeyRef");
		n++;
		validate_key_ref(e, obj(from, "secretKeyRef"), q);
	}
	if (n == 0)
		sk__vinvalid_str(
			e, fp, "",
			"must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
	else if (n > 1)
		sk__vinvalid_str(e, fp, "", "may not have more than one field specified at a time");
	if (str(env, "value") && *str(env, "value"))
		sk__vinvalid_str(e, fp, "", "may not be specified when `value` is not empty");
}

static void validate_env(E, json_t *envs, const char *base)
{
	json_t *env;
	size_t i;

	json_array_foreach(envs, i, env) {
		cleanup_free char *p = sk__vindex(base, i);
		CHILD(np, p, "name");
		const char *name = str(env, "name");

		if (!name || !*name)
			sk__vrequired(e, np, "");
		else
			invalid_each(e, np, name, check_env_name);
		validate_env_source(e, env, p);
	}
}

/* Extended resources (nvidia.com/gpu…): a domain-qualified name outside
 * kubernetes.io, counted in whole units and never overcommitted. */
static bool extended_resource(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash && strncmp(name, "kubernetes.io/", 14) && !strstr(name, ".kubernetes.io/") &&
	       strncmp(name, "requests.", 9);
}

static void validate_extended(E, json_t *limits, json_t *requests, const char *lp, const char *rp)
{
	const char *k;
	json_t *q;

	json_object_foreach(limits, k, q) {
		cleanup_free char *p = sk__vkey(lp, k);
		int64_t v;

		if (extended_resource(k) && json_is_string(q) && sk_quantity_milli(json_string_value(q), &v) == 0 &&
		    v % 1000)
			sk__vinvalid(e, p, q, "must be an integer");
	}
	json_object_foreach(requests, k, q) {
		cleanup_free char *p = sk__vkey(rp, k);
		json_t *lim = json_object_get(limits, k);
		int64_t r, l;

		if (!extended_resource(k) || !json_is_string(q) || sk_quantity_milli(json_string_value(q), &r) < 0)
			continue;
		if (r % 1000)
			sk__vinvalid(e, p, q, "must be an integer");
		if (!lim) {
			cleanup_free char *lk = sk__vkey(lp, k);

			sk__vrequired(e, lk, "Limit must be set for non overcommitable resources");
		} else if (json_is_string(lim) && sk_quantity_milli(json_string_value(lim), &l) == 0 && l != r) {
			cleanup_free char *d = xasprintf("must be equal to %s limit of %s", k, json_string_value(lim));

			sk__vinvalid(e, p, q, d);
		}
	}
}

/* Quantities per resource; requests must not exceed limits. */
static void validate_resources(E, json_t *res, const char *base)
{
	json_t *limits = obj(res, "limits"), *requests = obj(res, "requests");
	const char *k;
	json_t *q;
	CHILD(lp, base, "limits");
	CHILD(rp, base, "requests");

	json_object_foreach(limits, k, q) {
		cleanup_free char *p = sk__vkey(lp, k);
		int64_t v;

		if (json_is_string(q) && sk_quantity_milli(json_string_value(q), &v) == 0 && v < 0)
			sk__vinvalid(e, p, q, "must be greater than or equal to 0");
	}
	json_object_foreach(requests, k, q) {
		cleanup_free char *p = sk__vkey(rp, k);
		json_t *lim = json_object_get(limits, k);
		int64_t r, l;

		if (!json_is_string(q) || sk_quantity_milli(json_string_value(q), &r) < 0)
			continue;
		if (r < 0) {
			sk__vinvalid(e, p, q, "must be greater than or equal to 0");
			continue;
		}
		if (json_is_string(lim) && sk_quantity_milli(json_string_value(lim), &l) == 0 && r > l) {
			cleanup_free char *d = xasprintf("must be less than or equal to %s limit of %s", k,
							 json_string_value(lim));

			sk__vinvalid(e, p, q, d);
		}
	}
	validate_extended(e, limits, requests, lp, rp);
}

static void validate_handler(E, json_t *h, const char *base, bool probe)
{
	static const char *const kinds[] = {"exec", "httpGet", "tcpSocket", "grpc", "sleep", NULL};
	int n = 0;

	for (int i = 0; kinds[i]; i++) {
		CHILD(p, base, kinds[i]);

		if (!obj(h, kinds[i]))
			continue;
		if (++n > 1)
			sk__vforbidden(e, p, "may not specify more than 1 handler type");
		if (strcmp(kinds[i], "httpGet") == 0)
			enum_field(e, obj(h, kinds[i]), p, "scheme", LIST("HTTP", "HTTPS"), false);
		if (strcmp(kinds[i], "exec") == 0 && !arr(obj(h, kinds[i]), "command")) {
			CHILD(cp, p, "command");
			sk__vrequired(e, cp, "");
		}
	}
	if (n == 0)
		sk__vrequired(e, base, "must specify a handler type");
	(void)probe;
}

static void validate_probe(E, json_t *c, const char *base, const char *k, bool success_one)
{
	json_t *pr = obj(c, k);
	CHILD(p, base, k);
	int64_t v;

	if (!pr)
		return;
	validate_handler(e, pr, p, true);
	non_negative(e, pr, p, "initialDelaySeconds");
	non_negative(e, pr, p, "timeoutSeconds");
	non_negative(e, pr, p, "periodSeconds");
	non_negative(e, pr, p, "successThreshold");
	non_negative(e, pr, p, "failureThreshold");
	if (success_one && int_field(pr, "successThreshold", &v) && v != 1) {
		CHILD(sp, p, "successThreshold");
		sk__vinvalid_int(e, sp, v, "must be 1");
	}
}

static void validate_mounts(E, json_t *c, const char *base, json_t *volnames)
{
	cleanup_json json_t *paths = json_object();
	json_t *m;
	size_t i;
	CHILD(mb, base, "volumeMounts");

	json_array_foreach(arr(c, "volumeMounts"), i, m) {
		cleanup_free char *p = sk__vindex(mb, i);
		CHILD(np, p, "name");
		CHILD(pp, p, "mountPath");
		const char *name = str(m, "name"), *mp = str(m, "mountPath");

		if (!name || !*name)
			sk__vrequired(e, np, "");
		else if (!json_object_get(volnames, name))
			sk__vnot_found(e, np, json_object_get(m, "name"));
		if (!mp || !*mp) {
			sk__vrequired(e, pp, "");
			continue;
		}
		if (json_object_get(paths, mp))
			sk__vinvalid_str(e, pp, mp, "must be unique");
		json_object_set_new(paths, mp, json_true());
	}
}

struct ctr_ctx {
	json_t *volnames; /* volume name → true */
	json_t *names;    /* container names seen, across all lists */
	bool init;
	bool ephemeral; /* the checks common to all containers only */
};

static void validate_container(E, json_t *c, const char *p, struct ctr_ctx *x)
{
	const char *name = str(c, "name");
	const char *rp = str(c, "restartPolicy");
	bool sidecar = x->init && rp && strcmp(rp, "Always") == 0;
	CHILD(np, p, "name");
	CHILD(ip, p, "image");
	CHILD(portp, p, "ports");
	CHILD(envp, p, "env");
	CHILD(resp, p, "resources");
	CHILD(rpp, p, "restartPolicy");
	CHILD(lcp, p, "lifecycle");

	if (!name || !*name) {
		sk__vrequired(e, np, "");
	} else {
		invalid_each(e, np, name, check_label_fmt);
		if (json_object_get(x->names, name))
			sk__vduplicate(e, np, json_object_get(c, "name"));
		json_object_set_new(x->names, name, json_true());
	}
	if (!str(c, "image") || !*str(c, "image"))
		sk__vrequired(e, ip, "");
	enum_field(e, c, p, "imagePullPolicy", pull_policies, true);
	enum_field(e, c, p, "terminationMessagePolicy", LIST("File", "FallbackToLogsOnError"), true);
	validate_ports(e, arr(c, "ports"), portp);
	validate_env(e, arr(c, "env"), envp);
	validate_resources(e, obj(c, "resources"), resp);
	validate_mounts(e, c, p, x->volnames);
	if (x->ephemeral)
		return;
	if (x->init && has(c, "restartPolicy") && !sidecar)
		sk__vnot_supported(e, rpp, json_object_get(c, "restartPolicy"), LIST("Always"));
	else if (!x->init && has(c, "restartPolicy"))
		sk__vforbidden(e, rpp, "may not be set for non-init containers");
	if (x->init && !sidecar) {
		static const char *const forbidden[] = {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe",
							NULL};

		for (int i = 0; forbidden[i]; i++)
			if (has(c, forbidden[i])) {
				CHILD(fp, p, forbidden[i]);
				sk__vforbidden(e, fp,
					       "may not be set for init containers without restartPolicy=Always");
			}
		return;
	}
	validate_probe(e, c, p, "livenessProbe", true);
	validate_probe(e, c, p, "readinessProbe", false);
	validate_probe(e, c, p, "startupProbe", true);
	if (obj(obj(c, "lifecycle"), "postStart")) {
		CHILD(hp, lcp, "postStart");
		validate_handler(e, obj(obj(c, "lifecycle"), "postStart"), hp, false);
	}
	if (obj(obj(c, "lifecycle"), "preStop")) {
		CHILD(hp, lcp, "preStop");
		validate_handler(e, obj(obj(c, "lifecycle"), "preStop"), hp, false);
	}
}

static void validate_containers(E, json_t *list, const char *p, struct ctr_ctx *x)
{
	json_t *c;
	size_t i;

	json_array_foreach(list, i, c) {
		cleanup_free char *cp = sk__vindex(p, i);

		validate_container(e, c, cp, x);
	}
}

/* ---- volumes ---- */

static const char *const volume_sources[] = {"hostPath",  "emptyDir",    "secret",    "persistentVolumeClaim",
					     "configMap", "downwardAPI", "projected", "nfs",
					     "image",     NULL};

static void validate_mode(E, json_t *src, const char *p, const char *k)
{
	int64_t v;
	CHILD(mp, p, k);

	if (int_field(src, k, &v) && (v < 0 || v > 0777))
		sk__vinvalid_int(e, mp, v, "must be a number between 0 and 0777 (octal), both inclusive");
}

static void validate_volume_source(E, json_t *vol, const char *k, const char *p)
{
	json_t *src = obj(vol, k);

	if (strcmp(k, "hostPath") == 0 && (!str(src, "path") || !*str(src, "path"))) {
		CHILD(q, p, "path");
		sk__vrequired(e, q, "");
	} else if (strcmp(k, "persistentVolumeClaim") == 0 && (!str(src, "claimName") || !*str(src, "claimName"))) {
		CHILD(q, p, "claimName");
		sk__vrequired(e, q, "");
	} else if (strcmp(k, "secret") == 0 || strcmp(k, "configMap") == 0 || strcmp(k, "downwardAPI") == 0 ||
		   strcmp(k, "projected") == 0) {
		validate_mode(e, src, p, "defaultMode");
	} else if (strcmp(k, "emptyDir") == 0) {
		enum_field(e, src, p, "medium", LIST("", "HugePages", "Memory"), false);
	}
}

static void validate_volumes(E, json_t *vols, json_t *names)
{
	json_t *vol;
	size_t i;

	json_array_foreach(vols, i, vol) {
		cleanup_free char *p = sk__vindex("spec.volumes", i);
		CHILD(np, p, "name");
		const char *name = str(vol, "name");
		int n = 0;

		if (!name || !*name) {
			sk__vrequired(e, np, "");
		} else {
			invalid_each(e, np, name, check_label_fmt);
			if (json_object_get(names, name))
				sk__vduplicate(e, np, json_object_get(vol, "name"));
			json_object_set_new(names, name, json_true());
		}
		for (int k = 0; volume_sources[k]; k++) {
			CHILD(sp, p, volume_sources[k]);

			if (!obj(vol, volume_sources[k]))
				continue;
			if (++n > 1) {
				sk__vforbidden(e, sp, "may not specify more than 1 volume type");
				continue;
			}
			validate_volume_source(e, vol, volume_sources[k], sp);
		}
		if (n == 0)
			sk__vrequired(e, p, "must specify a volume type");
	}
}

/* ---- scheduling parts of the pod spec ---- */

static void validate_tolerations(E, json_t *tols, const char *base)
{
	static const char *const effects[] = {"NoExecute", "NoSchedule", "PreferNoSchedule", NULL};
	json_t *t;
	size_t i;

	json_array_foreach(tols, i, t) {
		cleanup_free char *p = sk__vindex(base, i);
		CHILD(kp, p, "key");
		CHILD(op, p, "operator");
		CHILD(ep, p, "effect");
		const char *key = str(t, "key"), *oper = str(t, "operator"), *eff = str(t, "effect");
		const char *val = str(t, "value");

		if (key && *key)
			invalid_each(e, kp, key, check_qualified_name);
		if ((!key || !*key) && (!oper || strcmp(oper, "Exists") != 0))
			sk__vinvalid_str(e, op, oper ? oper : "",
					 "operator must be Exists when `key` is empty, which means \"match all values "
					 "and all keys\"");
		if (has(t, "tolerationSeconds") && (!eff || strcmp(eff, "NoExecute") != 0))
			sk__vinvalid_str(e, ep, eff ? eff : "",
					 "effect must be 'NoExecute' when `tolerationSeconds` is set");
		if (!oper || !*oper || strcmp(oper, "Equal") == 0) {
			if (val && *val)
				invalid_each(e, p, val, check_label_value);
		} else if (strcmp(oper, "Exists") == 0) {
			if (val && *val)
				sk__vinvalid_str(e, op, val, "value must be empty when `operator` is 'Exists'");
		} else {
			sk__vnot_supported(e, op, json_object_get(t, "operator"), LIST("Equal", "Exists"));
		}
		if (eff && *eff)
			enum_field(e, t, p, "effect", effects, false);
	}
}

/* A selector requirement's operator, and values present exactly when it needs them. */
static void validate_requirement(E, json_t *req, const char *rp, const char *const *ops)
{
	CHILD(vp, rp, "values");
	const char *op = str(req, "operator");
	size_t nv = json_array_size(arr(req, "values"));

	enum_field(e, req, rp, "operator", ops, true);
	if (op && (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) && nv == 0)
		sk__vrequired(e, vp, "must be specified when `operator` is 'In' or 'NotIn'");
	else if (op && (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) && nv)
		sk__vforbidden(e, vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
}

static void validate_ns_terms(E, json_t *terms, const char *base)
{
	static const char *const ops[] = {"DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn", NULL};
	json_t *term, *req;
	size_t i, j;

	json_array_foreach(terms, i, term) {
		cleanup_free char *tp = sk__vindex(base, i);
		CHILD(mp, tp, "matchExpressions");

		json_array_foreach(arr(term, "matchExpressions"), j, req) {
			cleanup_free char *rp = sk__vindex(mp, j);

			validate_requirement(e, req, rp, ops);
			if (str(req, "key") && *str(req, "key")) {
				CHILD(kp, rp, "key");
				invalid_each(e, kp, str(req, "key"), check_qualified_name);
			}
		}
	}
}

static void validate_affinity(E, json_t *aff)
{
	json_t *req = obj(obj(aff, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution");
	const char *p = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";

	if (!req)
		return;
	if (json_array_size(arr(req, "nodeSelectorTerms")) == 0)
		sk__vrequired(e, p, "must have at least one node selector term");
	validate_ns_terms(e, arr(req, "nodeSelectorTerms"), p);
}

static void validate_spread(E, json_t *list)
{
	json_t *c;
	size_t i;

	json_array_foreach(list, i, c) {
		cleanup_free char *p = sk__vindex("spec.topologySpreadConstraints", i);
		CHILD(tk, p, "topologyKey");
		CHILD(sk, p, "maxSkew");
		int64_t v;

		if (!int_field(c, "maxSkew", &v) || v <= 0)
			sk__vinvalid_int(e, sk, int_field(c, "maxSkew", &v) ? v : 0, "must be greater than zero");
		if (!str(c, "topologyKey") || !*str(c, "topologyKey"))
			sk__vrequired(e, tk, "can not be empty");
		enum_field(e, c, p, "whenUnsatisfiable", LIST("DoNotSchedule", "ScheduleAnyway"), true);
		if (has(c, "minDomains"))
			positive(e, c, p, "minDomains", "must be greater than 0");
	}
}

static void validate_node_selector_map(E, json_t *sel) { validate_labels(e, sel, "spec.nodeSelector"); }

static void validate_subdomain_field(E, json_t *spec, const char *k)
{
	const char *v = str(spec, k);
	CHILD(p, "spec", k);

	if (v && *v)
		invalid_each(e, p, v, check_subdomain_fmt);
}

/* ---- pod spec ---- */

static const char *const restart_policies[] = {"Always", "Never", "OnFailure", NULL};
static const char *const dns_policies[] = {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None", NULL};

/* prefix is "" for pods or e.g. "spec.template." for templates: the
 * fields are reported below it. */
/* A field an ephemeral container may not set: set when not its zero value. */
static bool set_nonzero(json_t *c, const char *k)
{
	json_t *v = json_object_get(c, k);

	return v && !json_is_null(v) && !(json_is_object(v) && !json_object_size(v)) &&
	       !(json_is_array(v) && !json_array_size(v)) && !(json_is_string(v) && !*json_string_value(v));
}

/* upstream's validateEphemeralContainers: the common container checks,
 * names unique across every list, a target among the other containers,
 * and what is not on allowedEphemeralContainerFields forbidden. */
static void validate_ephemeral(E, json_t *spec, struct ctr_ctx *x)
{
	static const char *const forbidden[] = {"ports",         "resources",      "resizePolicy",
						"livenessProbe", "readinessProbe", "startupProbe",
						"lifecycle",     "restartPolicy",  NULL};
	cleanup_json json_t *others = json_copy(x->names);
	json_t *c, *m;
	size_t i, j;

	x->ephemeral = true;
	json_array_foreach(arr(spec, "ephemeralContainers"), i, c) {
		cleanup_free char *p = sk__vindex("spec.ephemeralContainers", i);
		const char *target = str(c, "targetContainerName");
		CHILD(mb, p, "volumeMounts");

		validate_container(e, c, p, x);
		if (target && *target && !json_object_get(others, target)) {
			CHILD(tp, p, "targetContainerName");
			sk__vnot_found(e, tp, json_object_get(c, "targetContainerName"));
		}
		for (int k = 0; forbidden[k]; k++)
			if (set_nonzero(c, forbidden[k])) {
				CHILD(fp, p, forbidden[k]);
				sk__vforbidden(e, fp, "cannot be set for an Ephemeral Container");
			}
		json_array_foreach(arr(c, "volumeMounts"), j, m) {
			cleanup_free char *mp = sk__vindex(mb, j);

			for (int k = 0; k < 2; k++) {
				const char *f = k ? "subPathExpr" : "subPath";
				CHILD(fp, mp, f);

				if (str(m, f) && *str(m, f))
					sk__vforbidden(e, fp, "cannot be set for an Ephemeral Container");
			}
		}
	}
	x->ephemeral = false;
}

static void validate_pod_spec_at(E, json_t *spec)
{
	cleanup_json json_t *volnames = json_object();
	cleanup_json json_t *names = json_object();
	struct ctr_ctx x = {volnames, names, false, false};
	int64_t v;

	validate_volumes(e, arr(spec, "volumes"), volnames);
	if (json_array_size(arr(spec, "containers")) == 0)
		sk__vrequired(e, "spec.containers", "");
	x.init = true;
	validate_containers(e, arr(spec, "initContainers"), "spec.initContainers", &x);
	x.init = false;
	validate_containers(e, arr(spec, "containers"), "spec.containers", &x);
	validate_ephemeral(e, spec, &x);
	enum_field(e, spec, "spec", "restartPolicy", restart_policies, true);
	enum_field(e, spec, "spec", "dnsPolicy", dns_policies, true);
	validate_node_selector_map(e, obj(spec, "nodeSelector"));
	validate_subdomain_field(e, spec, "serviceAccountName");
	validate_subdomain_field(e, spec, "priorityClassName");
	validate_subdomain_field(e, spec, "runtimeClassName");
	validate_subdomain_field(e, spec, "nodeName");
	validate_tolerations(e, arr(spec, "tolerations"), "spec.tolerations");
	validate_affinity(e, obj(spec, "affinity"));
	validate_spread(e, arr(spec, "topologySpreadConstraints"));
	if (int_field(spec, "activeDeadlineSeconds", &v) && (v < 1 || v > INT32_MAX))
		sk__vinvalid_int(e, "spec.activeDeadlineSeconds", v, "must be between 1 and 2147483647, inclusive");
	if (has(spec, "preemptionPolicy"))
		enum_field(e, spec, "spec", "preemptionPolicy", LIST("Never", "PreemptLowerPriority"), false);
	if (str(spec, "hostname") && *str(spec, "hostname"))
		invalid_each(e, "spec.hostname", str(spec, "hostname"), check_label_fmt);
}

/* Validation of a nested pod spec reports paths below prefix: errors are
 * collected with "spec." paths and re-rooted. */
static void reroot(E, json_t *causes, const char *prefix)
{
	json_t *c;
	size_t i;

	json_array_foreach(causes, i, c) {
		const char *f = str(c, "field");
		cleanup_free char *nf = xasprintf("%s%s", prefix, f ? f : "");

		json_object_set_new(c, "field", json_string(nf));
		json_array_append(e->causes, c);
	}
}

static void validate_pod_spec(E, json_t *spec, const char *prefix)
{
	struct sk__verr sub = {json_array()};

	validate_pod_spec_at(&sub, spec ? spec : json_object_get(NULL, ""));
	reroot(e, sub.causes, prefix);
	json_decref(sub.causes);
}

static void validate_pod(E, json_t *pod)
{
	json_t *spec = obj(pod, "spec");

	validate_meta(e, pod, true, NAME_SUBDOMAIN, "");
	if (!spec) {
		sk__vrequired(e, "spec.containers", "");
		return;
	}
	validate_pod_spec(e, spec, "");
}

/* The fields a pod update may change are copied from old to new in a
 * scratch spec; anything else that differs is forbidden. */
static void munge_images(json_t *spec, json_t *old_spec, const char *k)
{
	json_t *c;
	size_t i;

	json_array_foreach(arr(spec, k), i, c) {
		json_t *oc = json_array_get(arr(old_spec, k), i);

		if (json_is_object(c) && json_is_object(oc)) {
			if (has(oc, "image"))
				json_object_set(c, "image", json_object_get(oc, "image"));
			else
				json_object_del(c, "image");
		}
	}
}

static void copy_field(json_t *dst, json_t *src, const char *k)
{
	if (has(src, k))
		json_object_set(dst, k, json_object_get(src, k));
	else
		json_object_del(dst, k);
}

static bool tolerations_added_only(json_t *newt, json_t *oldt)
{
	json_t *t;
	size_t i, j;

	json_array_foreach(oldt, i, t) {
		bool found = false;
		json_t *n;

		json_array_foreach(newt, j, n)
			found |= json_equal(n, t);
		if (!found)
			return false;
	}
	return true;
}

static char *spec_diff_named(const char *type, json_t *old_spec, json_t *new_spec);

static char *spec_diff(json_t *old_spec, json_t *new_spec)
{
	return spec_diff_named("core.PodSpec", old_spec, new_spec);
}

/* A cmp.Diff-like listing of the top-level fields that differ. */
static char *spec_diff_named(const char *type, json_t *old_spec, json_t *new_spec)
{
	char *out = xasprintf("  %s{\n", type);
	const char *k;
	json_t *v;

	json_object_foreach(new_spec, k, v) {
		json_t *o = json_object_get(old_spec, k);

		if (!json_equal(o, v)) {
			cleanup_free char *a = o ? json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY) : xstrdup("nil");
			cleanup_free char *b = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			char *next = xasprintf("%s- \t%c%s: %s,\n+ \t%c%s: %s,\n", out, toupper((unsigned char)k[0]),
					       k + 1, a ? a : "", toupper((unsigned char)k[0]), k + 1, b ? b : "");

			free(out);
			out = next;
		}
	}
	json_object_foreach(old_spec, k, v) {
		if (!json_object_get(new_spec, k)) {
			cleanup_free char *a = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			char *next = xasprintf("%s- \t%c%s: %s,\n", out, toupper((unsigned char)k[0]), k + 1,
					       a ? a : "");

			free(out);
			out = next;
		}
	}
	{
		char *next = xasprintf("%s  }\n", out);

		free(out);
		out = next;
	}
	return out;
}

/* Scheduling gates may only be removed. */
static void validate_gates_update(E, json_t *gates, json_t *old_gates)
{
	json_t *g, *o;
	size_t i, j;

	json_array_foreach(gates, i, g) {
		bool found = false;

		json_array_foreach(old_gates, j, o)
			found |= json_equal(json_object_get(g, "name"), json_object_get(o, "name"));
		if (!found) {
			cleanup_free char *d = xasprintf("only deletion is allowed, but found new scheduling gate '%s'",
							 str_or_empty(g, "name"));

			sk__vforbidden(e, "spec.schedulingGates", d);
		}
	}
}

static void validate_pod_update(E, json_t *pod, json_t *old)
{
	json_t *spec = obj(pod, "spec"), *ospec = obj(old, "spec");
	cleanup_json json_t *munged = spec ? json_deep_copy(spec) : json_object();
	int64_t nv, ov;

	if (int_field(spec, "activeDeadlineSeconds", &nv) && int_field(ospec, "activeDeadlineSeconds", &ov) && nv > ov)
		sk__vinvalid_int(e, "spec.activeDeadlineSeconds", nv, "must be less than or equal to previous value");
	if (has(ospec, "activeDeadlineSeconds") && !has(spec, "activeDeadlineSeconds"))
		sk__vinvalid(e, "spec.activeDeadlineSeconds", json_null(),
			     "must not update from a positive integer to nil value");
	munge_images(munged, ospec, "containers");
	munge_images(munged, ospec, "initContainers");
	copy_field(munged, ospec, "activeDeadlineSeconds");
	validate_gates_update(e, arr(spec, "schedulingGates"), arr(ospec, "schedulingGates"));
	copy_field(munged, ospec, "schedulingGates");
	if (tolerations_added_only(arr(spec, "tolerations"), arr(ospec, "tolerations")))
		copy_field(munged, ospec, "tolerations");
	if (int_field(ospec, "terminationGracePeriodSeconds", &ov) && ov < 0 &&
	    int_field(spec, "terminationGracePeriodSeconds", &nv) && nv == 1)
		copy_field(munged, ospec, "terminationGracePeriodSeconds");
	if (!json_equal(munged, ospec ? ospec : munged)) {
		cleanup_free char *diff = spec_diff(ospec, munged);
		cleanup_free char *msg = xasprintf(
			"pod updates may not change fields other than "
			"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
			"`spec.tolerations` (only additions to existing "
			"tolerations),`spec.terminationGracePeriodSeconds` "
			"(allow it to be set to 1 if it was previously negative)\n%s",
			diff);

		sk__vforbidden(e, "spec", msg);
	}
}

/* ---- templates and selectors ---- */

/* Whether labels satisfy sel; true when sel is no valid selector, as
 * upstream checks a template only against a selector LabelSelectorAsSelector
 * takes (validate_label_selector reports the selector's own errors). */
static bool selector_matches(json_t *sel, json_t *labels)
{
	sk_error_t err = {0};
	sk_kube_label_selector *s = sk_kube_label_selector_from_json(sel, &err);
	bool ok = !s || sk_kube_label_selector_match(s, labels);

	sk_kube_label_selector_free(s);
	return ok;
}

static bool selector_empty(json_t *sel)
{
	return json_object_size(obj(sel, "matchLabels")) == 0 && json_array_size(arr(sel, "matchExpressions")) == 0;
}

static void validate_label_selector(E, json_t *sel, const char *p)
{
	static const char *const ops[] = {"DoesNotExist", "Exists", "In", "NotIn", NULL};
	CHILD(ml, p, "matchLabels");
	CHILD(me, p, "matchExpressions");
	json_t *req;
	size_t i;

	validate_labels(e, obj(sel, "matchLabels"), ml);
	json_array_foreach(arr(sel, "matchExpressions"), i, req) {
		cleanup_free char *rp = sk__vindex(me, i);

		validate_requirement(e, req, rp, ops);
	}
}

void sk__validate_label_selector(E, json_t *sel, const char *p) { validate_label_selector(e, sel, p); }

/* Selector and pod template of Deployment/ReplicaSet/Job (base "spec"). */
static void validate_selector_template(E, json_t *spec, const char *base, bool need_selector, const char *kind)
{
	json_t *sel = obj(spec, "selector");
	json_t *tmpl = obj(spec, "template");
	json_t *labels = obj(obj(tmpl, "metadata"), "labels");
	CHILD(sp, base, "selector");
	CHILD(tp, base, "template");
	CHILD(lp, tp, "metadata.labels");

	if (!sel && need_selector) {
		sk__vrequired(e, sp, "");
	} else if (sel) {
		validate_label_selector(e, sel, sp);
		if (selector_empty(sel)) {
			cleanup_free char *d = xasprintf("empty selector is invalid for %s", kind);

			sk__vinvalid(e, sp, sel, d);
		}
	}
	if (!tmpl) {
		sk__vrequired(e, tp, "");
		return;
	}
	if (sel && !selector_empty(sel) && !selector_matches(sel, labels ? labels : json_object_get(tmpl, "")))
		sk__vinvalid(e, lp, labels, "`selector` does not match template `labels`");
	{
		cleanup_free char *prefix = xasprintf("%s.", tp);
		CHILD(mp, tp, "metadata");
		struct sk__verr sub = {json_array()};

		validate_labels(&sub, labels, lp);
		validate_annotations(&sub, obj(obj(tmpl, "metadata"), "annotations"),
				     "spec.template.metadata.annotations");
		json_array_extend(e->causes, sub.causes);
		json_decref(sub.causes);
		(void)mp;
		validate_pod_spec(e, obj(tmpl, "spec"), prefix);
	}
}

static void check_percent_or_int(E, json_t *ru, const char *base, const char *k)
{
	json_t *v = json_object_get(ru, k);
	CHILD(p, base, k);

	if (json_is_integer(v) && json_integer_value(v) < 0)
		sk__vinvalid(e, p, v, "must be greater than or equal to 0");
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t len = strlen(s);

		if (len < 2 || s[len - 1] != '%' || strspn(s, "0123456789") != len - 1)
			sk__vinvalid(e, p, v,
				     "a valid percent string must be a numeric string followed by an ending '%' "
				     "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
		else if (atoi(s) > 100)
			sk__vinvalid(e, p, v, "must not be greater than 100%");
	}
}

static bool is_zero_intstr(json_t *v)
{
	return !v || (json_is_integer(v) && json_integer_value(v) == 0) ||
	       (json_is_string(v) && strcmp(json_string_value(v), "0%") == 0);
}

/* ---- apps ---- */

static void validate_template_restart_always(E, json_t *spec)
{
	json_t *rp = json_object_get(obj(obj(spec, "template"), "spec"), "restartPolicy");

	json_t *ads = json_object_get(obj(obj(spec, "template"), "spec"), "activeDeadlineSeconds");

	if (json_is_string(rp) && strcmp(json_string_value(rp), "Always") != 0)
		sk__vnot_supported(e, "spec.template.spec.restartPolicy", rp, LIST("Always"));
	if (ads && !json_is_null(ads))
		sk__vinvalid(e, "spec.template.spec.activeDeadlineSeconds", ads,
			     "activeDeadlineSeconds in ReplicaSet is not Supported");
}

static void validate_strategy(E, json_t *spec)
{
	json_t *st = obj(spec, "strategy");
	json_t *ru = obj(st, "rollingUpdate");
	const char *type = str(st, "type");
	const char *p = "spec.strategy.rollingUpdate";

	enum_field(e, st, "spec.strategy", "type", LIST("Recreate", "RollingUpdate"), true);
	if (type && strcmp(type, "Recreate") == 0 && ru) {
		sk__vforbidden(e, p, "may not be specified when strategy `type` is 'Recreate'");
		return;
	}
	if (!ru)
		return;
	check_percent_or_int(e, ru, p, "maxUnavailable");
	check_percent_or_int(e, ru, p, "maxSurge");
	if (is_zero_intstr(json_object_get(ru, "maxUnavailable")) && is_zero_intstr(json_object_get(ru, "maxSurge")))
		sk__vinvalid(e, "spec.strategy.rollingUpdate.maxUnavailable", json_object_get(ru, "maxUnavailable"),
			     "may not be 0 when `maxSurge` is 0");
}

static void validate_deployment(E, json_t *d)
{
	json_t *spec = obj(d, "spec");
	int64_t pd, mr = 0;

	validate_meta(e, d, true, NAME_SUBDOMAIN, "");
	non_negative(e, spec, "spec", "replicas");
	validate_selector_template(e, spec, "spec", true, "deployment");
	validate_template_restart_always(e, spec);
	validate_strategy(e, spec);
	non_negative(e, spec, "spec", "minReadySeconds");
	non_negative(e, spec, "spec", "revisionHistoryLimit");
	non_negative(e, spec, "spec", "progressDeadlineSeconds");
	int_field(spec, "minReadySeconds", &mr);
	if (int_field(spec, "progressDeadlineSeconds", &pd) && pd <= mr)
		sk__vinvalid_int(e, "spec.progressDeadlineSeconds", pd, "must be greater than minReadySeconds");
}

static void validate_replicaset(E, json_t *rs)
{
	json_t *spec = obj(rs, "spec");

	validate_meta(e, rs, true, NAME_SUBDOMAIN, "");
	non_negative(e, spec, "spec", "replicas");
	non_negative(e, spec, "spec", "minReadySeconds");
	validate_selector_template(e, spec, "spec", true, "replicaset");
	validate_template_restart_always(e, spec);
}

/* ValidateReplicationControllerSpec: the selector is a map of labels. */
static void validate_replicationcontroller(E, json_t *rc)
{
	json_t *spec = obj(rc, "spec");
	json_t *sel = obj(spec, "selector");
	json_t *tmpl = obj(spec, "template");
	json_t *labels = obj(obj(tmpl, "metadata"), "labels");

	validate_meta(e, rc, true, NAME_SUBDOMAIN, "");
	non_negative(e, spec, "spec", "minReadySeconds");
	if (!sel || !json_object_size(sel))
		sk__vrequired(e, "spec.selector", "");
	else
		validate_labels(e, sel, "spec.selector");
	non_negative(e, spec, "spec", "replicas");
	if (!tmpl) {
		sk__vrequired(e, "spec.template", "");
		return;
	}
	if (sel && json_object_size(sel)) {
		cleanup_json json_t *ls = json_pack("{s:O}", "matchLabels", sel);

		if (!selector_matches(ls, labels ? labels : json_object_get(tmpl, "")))
			sk__vinvalid(e, "spec.template.metadata.labels", labels,
				     "`selector` does not match template `labels`");
	}
	validate_labels(e, labels, "spec.template.metadata.labels");
	validate_annotations(e, obj(obj(tmpl, "metadata"), "annotations"), "spec.template.metadata.annotations");
	validate_pod_spec(e, obj(tmpl, "spec"), "spec.template.");
	{
		json_t *rp = json_object_get(obj(tmpl, "spec"), "restartPolicy");
		json_t *ads = json_object_get(obj(tmpl, "spec"), "activeDeadlineSeconds");

		if (json_is_string(rp) && strcmp(json_string_value(rp), "Always") != 0)
			sk__vnot_supported(e, "spec.template.spec.restartPolicy", rp, LIST("Always"));
		if (ads && !json_is_null(ads))
			sk__vforbidden(e, "spec.template.spec.activeDeadlineSeconds",
				       "activeDeadlineSeconds in ReplicationController is not Supported");
	}
}

/* ValidatePodDisruptionBudgetSpec (policy/v1). */
static void validate_pdb(E, json_t *pdb)
{
	json_t *spec = obj(pdb, "spec");
	json_t *min = json_object_get(spec, "minAvailable"), *max = json_object_get(spec, "maxUnavailable");
	json_t *sel = json_object_get(spec, "selector");

	validate_meta(e, pdb, true, NAME_SUBDOMAIN, "");
	if (min && !json_is_null(min) && max && !json_is_null(max))
		sk__vinvalid(e, "spec", spec, "minAvailable and maxUnavailable cannot be both set");
	check_percent_or_int(e, spec, "spec", "minAvailable");
	check_percent_or_int(e, spec, "spec", "maxUnavailable");
	if (json_is_object(sel))
		validate_label_selector(e, sel, "spec.selector");
	enum_field(e, spec, "spec", "unhealthyPodEvictionPolicy", LIST("AlwaysAllow", "IfHealthyBudget"), false);
}

/* ValidateDaemonSetUpdateStrategy */
static void validate_ds_strategy(E, json_t *spec)
{
	json_t *st = obj(spec, "updateStrategy");
	json_t *ru = obj(st, "rollingUpdate");
	const char *type = str(st, "type");
	const char *p = "spec.updateStrategy.rollingUpdate";

	if (type && strcmp(type, "OnDelete") == 0)
		return;
	if (!type || strcmp(type, "RollingUpdate") != 0) {
		cleanup_json json_t *none = json_string("");
		json_t *t = json_object_get(st, "type");

		sk__vnot_supported(e, "spec.updateStrategy.type", t ? t : none, LIST("OnDelete", "RollingUpdate"));
		return;
	}
	if (!ru) {
		sk__vrequired(e, p, "");
		return;
	}
	check_percent_or_int(e, ru, p, "maxUnavailable");
	check_percent_or_int(e, ru, p, "maxSurge");
	if (is_zero_intstr(json_object_get(ru, "maxUnavailable")) && is_zero_intstr(json_object_get(ru, "maxSurge"))) {
		cleanup_json json_t *zero = json_integer(0);
		json_t *mu = json_object_get(ru, "maxUnavailable");

		sk__vinvalid(e, "spec.updateStrategy.rollingUpdate.maxUnavailable", mu ? mu : zero,
			     "may not be 0 when `maxSurge` is 0");
	}
}

/* ValidateDaemonSetSpec */
static void validate_daemonset(E, json_t *ds)
{
	json_t *spec = obj(ds, "spec");
	json_t *tspec = obj(obj(spec, "template"), "spec");
	json_t *rp = json_object_get(tspec, "restartPolicy");
	json_t *ads = json_object_get(tspec, "activeDeadlineSeconds");

	validate_meta(e, ds, true, NAME_SUBDOMAIN, "");
	validate_selector_template(e, spec, "spec", true, "daemonset");
	if (json_is_string(rp) && strcmp(json_string_value(rp), "Always") != 0)
		sk__vnot_supported(e, "spec.template.spec.restartPolicy", rp, LIST("Always"));
	if (ads && !json_is_null(ads))
		sk__vinvalid(e, "spec.template.spec.activeDeadlineSeconds", ads,
			     "activeDeadlineSeconds must be nil for daemonset");
	non_negative(e, spec, "spec", "minReadySeconds");
	validate_ds_strategy(e, spec);
	non_negative(e, spec, "spec", "revisionHistoryLimit");
}

/* ValidateStatefulSetSpec's updateStrategy part */
static void validate_sts_strategy(E, json_t *spec)
{
	json_t *st = obj(spec, "updateStrategy");
	json_t *ru = obj(st, "rollingUpdate");
	json_t *t = json_object_get(st, "type");
	const char *type = str(st, "type");
	const char *p = "spec.updateStrategy.rollingUpdate";

	if (!type || !*type) {
		sk__vrequired(e, "spec.updateStrategy", "");
	} else if (!strcmp(type, "OnDelete")) {
		if (ru)
			sk__vinvalid(e, p, ru, "only allowed for updateStrategy 'RollingUpdate'");
	} else if (!strcmp(type, "RollingUpdate")) {
		json_t *mu = json_object_get(ru, "maxUnavailable");

		non_negative(e, ru, p, "partition");
		check_percent_or_int(e, ru, p, "maxUnavailable");
		if (mu && is_zero_intstr(mu))
			sk__vinvalid(e, "spec.updateStrategy.rollingUpdate.maxUnavailable", mu, "cannot be 0");
	} else {
		sk__vinvalid(e, "spec.updateStrategy", t, "must be 'RollingUpdate' or 'OnDelete'");
	}
}

/* ValidateStatefulSetSpec */
static void validate_statefulset(E, json_t *ss)
{
	static const char *const retain[] = {"Retain", "Delete", NULL};
	json_t *spec = obj(ss, "spec");
	json_t *tspec = obj(obj(spec, "template"), "spec");
	json_t *rp = json_object_get(tspec, "restartPolicy");
	json_t *ads = json_object_get(tspec, "activeDeadlineSeconds");
	json_t *pmp = json_object_get(spec, "podManagementPolicy");
	json_t *policy = obj(spec, "persistentVolumeClaimRetentionPolicy");
	json_t *t;
	size_t i;

	validate_meta(e, ss, true, NAME_SUBDOMAIN, "");
	if (!json_string_length(pmp))
		sk__vrequired(e, "spec.podManagementPolicy", "");
	else if (!str_in(json_string_value(pmp), LIST("OrderedReady", "Parallel")))
		sk__vinvalid(e, "spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'");
	validate_sts_strategy(e, spec);
	enum_field(e, policy, "spec.persistentVolumeClaimRetentionPolicy", "whenDeleted", retain, false);
	enum_field(e, policy, "spec.persistentVolumeClaimRetentionPolicy", "whenScaled", retain, false);
	non_negative(e, spec, "spec", "replicas");
	non_negative(e, spec, "spec", "minReadySeconds");
	non_negative(e, obj(spec, "ordinals"), "spec.ordinals", "start");
	{
		/* the claim templates are volumes of every pod: mounts may name them */
		cleanup_json json_t *with = json_deep_copy(spec);
		json_t *ts = obj(obj(with, "template"), "spec"), *vols = json_object_get(ts, "volumes");

		if (ts && !json_is_array(vols)) {
			vols = json_array();
			json_object_set_new(ts, "volumes", vols);
		}
		json_array_foreach(json_object_get(spec, "volumeClaimTemplates"), i, t) {
			const char *n = str(obj(t, "metadata"), "name");
			json_t *v;
			size_t j;
			bool have = false;

			json_array_foreach(vols, j, v)
				have = have || (str(v, "name") && n && !strcmp(str(v, "name"), n));
			if (ts && n && *n && !have)
				json_array_append_new(vols, json_pack("{s:s, s:{s:s}}", "name", n,
								      "persistentVolumeClaim", "claimName", n));
		}
		validate_selector_template(e, with ? with : spec, "spec", true, "statefulset");
	}
	if (json_is_string(rp) && strcmp(json_string_value(rp), "Always") != 0)
		sk__vnot_supported(e, "spec.template.spec.restartPolicy", rp, LIST("Always"));
	if (ads && !json_is_null(ads))
		sk__vforbidden(e, "spec.template.spec.activeDeadlineSeconds",
			       "activeDeadlineSeconds in StatefulSet is not Supported");
	json_array_foreach(json_object_get(spec, "volumeClaimTemplates"), i, t) {
		cleanup_free char *vp = sk__vindex("spec.volumeClaimTemplates", i);
		CHILD(np, vp, "metadata.name");
		const char *n = str(obj(t, "metadata"), "name");

		if (!n || !*n)
			sk__vrequired(e, np, "name or generateName is required");
	}
}

/* ValidateStatefulSetUpdate: only some spec fields may change. */
static void validate_statefulset_update(E, json_t *ss, json_t *old)
{
	static const char *const mutable[] = {"replicas",
					      "ordinals",
					      "template",
					      "updateStrategy",
					      "revisionHistoryLimit",
					      "persistentVolumeClaimRetentionPolicy",
					      "minReadySeconds",
					      NULL};
	cleanup_json json_t *a = json_deep_copy(obj(ss, "spec")), *b = json_deep_copy(obj(old, "spec"));

	for (int i = 0; mutable[i]; i++) {
		if (a)
			json_object_del(a, mutable[i]);
		if (b)
			json_object_del(b, mutable[i]);
	}
	if (!json_equal(a ? a : json_null(), b ? b : json_null()))
		sk__vforbidden(e, "spec",
			       "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
			       "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
			       "'minReadySeconds' are forbidden");
}

/* ValidateControllerRevision(Update): revision >= 0, data immutable */
static void validate_controllerrevision(E, json_t *cr)
{
	validate_meta(e, cr, true, NAME_SUBDOMAIN, "");
	non_negative(e, cr, "", "revision");
}

static void validate_controllerrevision_update(E, json_t *cr, json_t *old)
{
	json_t *d = json_object_get(cr, "data"), *od = json_object_get(old, "data");

	if (!json_equal(d ? d : json_null(), od ? od : json_null()))
		sk__vinvalid(e, "data", d ? d : json_null(), "field is immutable");
}

static void immutable(E, json_t *a, json_t *b, const char *k, const char *field)
{
	json_t *x = json_object_get(a, k), *y = json_object_get(b, k);

	if (!json_equal(x ? x : json_null(), y ? y : json_null()))
		sk__vinvalid(e, field, x ? x : json_null(), "field is immutable");
}

/* Go's %#v of a slice of strings of type (e.g. "[]string"): []string{"a", "b"}
 * or []string(nil). */
static char *typed_strings_repr(json_t *list, const char *type)
{
	char *out;
	json_t *v;
	size_t i;

	if (!json_is_array(list))
		return xasprintf("%s(nil)", type);
	out = xasprintf("%s{", type);
	json_array_foreach(list, i, v) {
		cleanup_free char *q = sk__vquote(json_is_string(v) ? json_string_value(v) : "");
		char *next = xasprintf("%s%s%s", out, i ? ", " : "", q);

		free(out);
		out = next;
	}
	{
		char *next = xasprintf("%s}", out);

		free(out);
		out = next;
	}
	return out;
}

static char *strings_repr(json_t *list) { return typed_strings_repr(list, "[]string"); }

/* Go's %#v of a metav1.LabelSelector, as upstream prints it. */
static char *selector_repr(json_t *sel)
{
	cleanup_free char *ml = NULL;
	cleanup_free char *me = NULL;
	json_t *req;
	size_t i;

	if (!sel)
		return xstrdup("null");
	ml = obj(sel, "matchLabels") ? sk__vrepr(obj(sel, "matchLabels")) : xstrdup("map[string]string(nil)");
	if (json_array_size(arr(sel, "matchExpressions")) == 0)
		return xasprintf(
			"v1.LabelSelector{MatchLabels:%s, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}", ml);
	me = xstrdup("");
	json_array_foreach(arr(sel, "matchExpressions"), i, req) {
		cleanup_free char *k = sk__vquote(str_or_empty(req, "key"));
		cleanup_free char *op = sk__vquote(str_or_empty(req, "operator"));
		cleanup_free char *vals = strings_repr(json_object_get(req, "values"));
		char *next = xasprintf("%s%sv1.LabelSelectorRequirement{Key:%s, Operator:%s, Values:%s}", me,
				       i ? ", " : "", k, op, vals);

		free(me);
		me = next;
	}
	return xasprintf("v1.LabelSelector{MatchLabels:%s, MatchExpressions:[]v1.LabelSelectorRequirement{%s}}", ml,
			 me);
}

static void validate_selector_update(E, json_t *o, json_t *old)
{
	json_t *sel = json_object_get(obj(o, "spec"), "selector");
	json_t *osel = json_object_get(obj(old, "spec"), "selector");

	if (!json_equal(sel ? sel : json_null(), osel ? osel : json_null())) {
		cleanup_free char *r = selector_repr(json_is_object(sel) ? sel : NULL);
		cleanup_free char *m = xasprintf("Invalid value: %s: field is immutable", r);

		/* The value is a Go struct, rendered unquoted. */
		json_array_append_new(e->causes, json_pack("{s:s, s:s, s:s}", "reason", "FieldValueInvalid", "message",
							   m, "field", "spec.selector"));
	}
}

/* ---- batch ---- */

static void validate_pod_failure_policy(E, json_t *spec, const char *base)
{
	json_t *pfp = obj(spec, "podFailurePolicy");
	json_t *rule;
	size_t i;
	CHILD(rp, base, "podFailurePolicy.rules");
	const char *restart = str(obj(obj(spec, "template"), "spec"), "restartPolicy");

	if (!pfp)
		return;
	if (restart && strcmp(restart, "Never") != 0) {
		CHILD(tp, base, "template.spec.restartPolicy");
		sk__vinvalid_str(e, tp, restart, "only \"Never\" is supported when podFailurePolicy is specified");
	}
	json_array_foreach(arr(pfp, "rules"), i, rule) {
		cleanup_free char *p = sk__vindex(rp, i);

		enum_field(e, rule, p, "action", LIST("Count", "FailIndex", "FailJob", "Ignore"), true);
		if (obj(rule, "onExitCodes") && arr(rule, "onPodConditions")) {
			CHILD(q, p, "onExitCodes");
			sk__vinvalid_str(e, p, "", "specifying both OnExitCodes and OnPodConditions is not supported");
			(void)q;
		}
	}
}

/* Job selector: required, well formed, matching the template. */
static void validate_job_selector(E, json_t *spec)
{
	json_t *sel = obj(spec, "selector");
	json_t *labels = obj(obj(obj(spec, "template"), "metadata"), "labels");

	if (!sel) {
		sk__vrequired(e, "spec.selector", "");
		return;
	}
	validate_label_selector(e, sel, "spec.selector");
	if (!selector_matches(sel, labels))
		sk__vinvalid(e, "spec.template.metadata.labels", labels, "`selector` does not match template `labels`");
}

/* A generated selector must select the labels generated from uid and name. */
static void validate_generated_selector(E, json_t *job)
{
	json_t *spec = obj(job, "spec");
	json_t *sel = obj(spec, "selector");
	const char *uid = str(obj(job, "metadata"), "uid");
	const char *name = str(obj(job, "metadata"), "name");
	cleanup_json json_t *expected = NULL;

	if (json_is_true(json_object_get(spec, "manualSelector")) || !sel)
		return;
	if (!uid || !*uid) {
		sk__vrequired(e, "metadata.uid", "");
		return;
	}
	expected = json_pack("{s:s, s:s, s:s, s:s}", "batch.kubernetes.io/controller-uid", uid,
			     "batch.kubernetes.io/job-name", name ? name : "", "controller-uid", uid, "job-name",
			     name ? name : "");
	if (!selector_matches(sel, expected)) {
		cleanup_free char *r = selector_repr(sel);
		cleanup_free char *m = xasprintf("Invalid value: %s: `selector` not auto-generated", r);

		json_array_append_new(e->causes, json_pack("{s:s, s:s, s:s}", "reason", "FieldValueInvalid", "message",
							   m, "field", "spec.selector"));
	}
}

/* apimachinery's IsDomainPrefixedPath and the 63-byte limit of spec.managedBy. */
static void validate_managed_by(E, json_t *spec, const char *base)
{
	static const char path_chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:";
	const char *v = str(spec, "managedBy"), *slash, *msg;
	CHILD(p, base, "managedBy");

	if (!has(spec, "managedBy"))
		return;
	if (!v || !*v) {
		sk__vrequired(e, p, "");
		return;
	}
	slash = strchr(v, '/');
	if (!slash || slash == v || !slash[1]) {
		sk__vinvalid_str(e, p, v, "must be a domain-prefixed path (such as \"acme.io/foo\")");
	} else {
		cleanup_free char *host = xstrndup(v, (size_t)(slash - v));

		if ((msg = sk_validate_dns1123_subdomain(host)))
			sk__vinvalid_str(e, p, host, msg);
		if (strspn(slash + 1, path_chars) != strlen(slash + 1))
			sk__vinvalid_str(
				e, p, slash + 1,
				"Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
	}
	if (strlen(v) > 63)
		sk__vtoo_long(e, p, 63);
}

/* validateIndexesFormat: the number of indexes of "1,3-5" below completions,
 * or -1 with upstream's reason in buf. */
static int64_t indexes_format(const char *s, int64_t completions, char *buf, size_t len)
{
	int64_t total = 0, last = -1;

	if (!*s)
		return 0;
	while (s) {
		const char *comma = strchr(s, ',');
		cleanup_free char *orig = comma ? xstrndup(s, (size_t)(comma - s)) : xstrdup(s);
		cleanup_free char *frag = xstrdup(orig);
		char *parts[3] = {frag, NULL, NULL}, *dash;
		int n = 1;

		while (n < 3 && (dash = strchr(parts[n - 1], '-'))) {
			*dash = '\0';
			parts[n++] = dash + 1;
		}
		if (n > 2) {
			cleanup_free char *q = sk__vquote(orig);

			snprintf(buf, len,
				 "the fragment %s violates the requirement that an index interval can have at most two "
				 "parts separated by '-'",
				 q);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			char *end;
			long long v = strtoll(parts[i], &end, 10);
			cleanup_free char *q = sk__vquote(parts[i]);

			if (!*parts[i] || *end) {
				snprintf(buf, len, "cannot convert string to integer for index: %s", q);
				return -1;
			}
			if (v >= completions) {
				snprintf(buf, len, "too large index: %s", q);
				return -1;
			}
			if (last >= v) {
				snprintf(buf, len, "non-increasing order, previous: %lld, current: %lld",
					 (long long)last, v);
				return -1;
			}
			total += i ? v - last : 1;
			last = v;
		}
		s = comma ? comma + 1 : NULL;
	}
	return total;
}

static void validate_success_rule(E, json_t *rule, int64_t completions, const char *rp)
{
	const char *idx = str(rule, "succeededIndexes");
	int64_t total = 0, count;
	CHILD(ip, rp, "succeededIndexes");
	CHILD(cp, rp, "succeededCount");
	char buf[256];

	if (!has(rule, "succeededIndexes") && !has(rule, "succeededCount")) {
		cleanup_free char *m = xasprintf("at least one of %s or %s must be specified", ip, cp);

		sk__vrequired(e, rp, m);
	}
	if (idx) {
		if (strlen(idx) > 65536)
			sk__vtoo_long(e, ip, 65536);
		total = indexes_format(idx, completions, buf, sizeof(buf));
		if (total < 0) {
			cleanup_free char *m = xasprintf("error parsing succeededIndexes: %s", buf);

			sk__vinvalid_str(e, ip, idx, m);
			total = 0;
		}
	}
	if (int_field(rule, "succeededCount", &count)) {
		if (count < 0)
			sk__vinvalid_int(e, cp, count, "must be greater than or equal to 0");
		if (count > completions) {
			cleanup_free char *m = xasprintf(
				"must be less than or equal to %lld (the number of specified completions)",
				(long long)completions);

			sk__vinvalid_int(e, cp, count, m);
		}
		if (idx && count > total) {
			cleanup_free char *m = xasprintf("must be less than or equal to %lld (the number of indexes in "
							 "the specified succeededIndexes field)",
							 (long long)total);

			sk__vinvalid_int(e, cp, count, m);
		}
	}
}

/* validateSuccessPolicy. */
static void validate_success_policy(E, json_t *spec, const char *base, bool indexed)
{
	json_t *sp = obj(spec, "successPolicy"), *rules = json_object_get(sp, "rules"), *rule;
	int64_t completions = 0;
	CHILD(sp_path, base, "successPolicy");
	CHILD(rules_path, sp_path, "rules");
	size_t i;

	if (!sp)
		return;
	int_field(spec, "completions", &completions);
	if (!indexed) {
		CHILD(mp, base, "completionMode");

		sk__vinvalid(e, mp, json_object_get(spec, "completionMode") ?: json_null(),
			     "requires indexed completion mode");
	}
	if (!json_array_size(rules))
		sk__vrequired(e, rules_path,
			      "at least one rules must be specified when the successPolicy is specified");
	if (json_array_size(rules) > 20)
		sk__vtoo_many(e, rules_path, (int64_t)json_array_size(rules), 20);
	json_array_foreach(rules, i, rule) {
		cleanup_free char *rp = sk__vindex(rules_path, i);

		validate_success_rule(e, rule, completions, rp);
	}
}

/* JobSpec checks shared by Job and CronJob's jobTemplate (base
 * "spec" or "spec.jobTemplate.spec"). */
static void validate_job_spec(E, json_t *spec, const char *base, bool is_job)
{
	const char *mode = str(spec, "completionMode");
	bool indexed = mode && strcmp(mode, "Indexed") == 0;
	json_t *rp = json_object_get(obj(obj(spec, "template"), "spec"), "restartPolicy");
	CHILD(tp, base, "template");
	CHILD(rpp, tp, "spec.restartPolicy");
	CHILD(cp, base, "completions");
	int64_t v;

	non_negative(e, spec, base, "parallelism");
	non_negative(e, spec, base, "completions");
	non_negative(e, spec, base, "backoffLimit");
	non_negative(e, spec, base, "backoffLimitPerIndex");
	non_negative(e, spec, base, "maxFailedIndexes");
	non_negative(e, spec, base, "ttlSecondsAfterFinished");
	non_negative(e, spec, base, "activeDeadlineSeconds");
	if (has(spec, "completionMode"))
		enum_field(e, spec, base, "completionMode", LIST("NonIndexed", "Indexed"), false);
	if (indexed && !has(spec, "completions"))
		sk__vrequired(e, cp, "when completion mode is Indexed");
	if (indexed && int_field(spec, "completions", &v) && v > 100000)
		sk__vinvalid_int(e, cp, v, "must be less than or equal to 100000 when completion mode is Indexed");
	if (has(spec, "backoffLimitPerIndex") && !indexed) {
		CHILD(p, base, "backoffLimitPerIndex");
		sk__vforbidden(e, p, "requires indexed completion mode");
	}
	if (has(spec, "maxFailedIndexes") && !has(spec, "backoffLimitPerIndex")) {
		CHILD(p, base, "maxFailedIndexes");
		sk__vforbidden(e, p, "cannot set maxFailedIndexes when backoffLimitPerIndex is not set");
	}
	if (has(spec, "podReplacementPolicy")) {
		if (has(spec, "podFailurePolicy"))
			enum_field(e, spec, base, "podReplacementPolicy", LIST("Failed"), false);
		else
			enum_field(e, spec, base, "podReplacementPolicy", LIST("Failed", "TerminatingOrFailed"), false);
	}
	validate_managed_by(e, spec, base);
	validate_success_policy(e, spec, base, indexed);
	validate_pod_failure_policy(e, spec, base);
	if (!obj(spec, "template")) {
		sk__vrequired(e, tp, "");
	} else {
		cleanup_free char *prefix = xasprintf("%s.", tp);
		CHILD(lp, tp, "metadata.labels");

		validate_labels(e, obj(obj(obj(spec, "template"), "metadata"), "labels"), lp);
		validate_pod_spec(e, obj(obj(spec, "template"), "spec"), prefix);
	}
	if (!json_is_string(rp) ||
	    (strcmp(json_string_value(rp), "OnFailure") != 0 && strcmp(json_string_value(rp), "Never") != 0))
		sk__vnot_supported(e, rpp, rp, LIST("OnFailure", "Never"));
	if (is_job) {
		validate_job_selector(e, spec);
	} else if (has(spec, "selector")) {
		CHILD(sp, base, "selector");
		sk__vinvalid(e, sp, json_object_get(spec, "selector"), "`selector` will be auto-generated");
	}
	if (!is_job && json_is_true(json_object_get(spec, "manualSelector"))) {
		CHILD(mp, base, "manualSelector");
		sk__vnot_supported(e, mp, json_true(), LIST("nil", "false"));
	}
}

static void validate_job(E, json_t *job)
{
	validate_meta(e, job, true, NAME_SUBDOMAIN, "");
	validate_generated_selector(e, job);
	validate_job_spec(e, obj(job, "spec"), "spec", true);
}

/* The scheduling directives of a suspended, never-started Job may change. */
static void validate_job_update(E, json_t *job, json_t *old)
{
	json_t *spec = obj(job, "spec"), *ospec = obj(old, "spec");
	bool mutable_sched = json_is_true(json_object_get(ospec, "suspend")) && !has(obj(old, "status"), "startTime");
	json_t *t = obj(spec, "template"), *ot = obj(ospec, "template");

	validate_selector_update(e, job, old);
	immutable(e, spec, ospec, "completionMode", "spec.completionMode");
	immutable(e, spec, ospec, "managedBy", "spec.managedBy");
	if (!json_equal(obj(spec, "successPolicy") ?: json_null(), obj(ospec, "successPolicy") ?: json_null())) {
		cleanup_json json_t *v = json_string("batch.SuccessPolicy{...}");

		sk__vinvalid(e, "spec.successPolicy", v, "field is immutable");
	}
	if (!(str(spec, "completionMode") && strcmp(str(spec, "completionMode"), "Indexed") == 0 &&
	      json_equal(json_object_get(spec, "completions"), json_object_get(spec, "parallelism"))))
		immutable(e, spec, ospec, "completions", "spec.completions");
	if (t && ot && !json_equal(t, ot)) {
		cleanup_json json_t *munged = json_deep_copy(t);
		json_t *ms = obj(munged, "spec"), *os = obj(ot, "spec");

		if (mutable_sched && ms) {
			static const char *const sched[] = {"nodeSelector", "tolerations", "affinity",
							    "schedulingGates", NULL};

			for (int i = 0; sched[i]; i++)
				copy_field(ms, os, sched[i]);
			if (obj(munged, "metadata")) {
				copy_field(obj(munged, "metadata"), obj(ot, "metadata"), "labels");
				copy_field(obj(munged, "metadata"), obj(ot, "metadata"), "annotations");
			}
		}
		if (!json_equal(munged, ot)) {
			cleanup_json json_t *v = json_string("core.PodTemplateSpec{...}");

			sk__vinvalid(e, "spec.template", v, "field is immutable");
		}
	}
}

static void validate_schedule(E, json_t *spec)
{
	const char *s = str(spec, "schedule");
	sk_error_t err = {0};
	sk_kube_cron *c;

	if (!s || !*s) {
		sk__vrequired(e, "spec.schedule", "");
		return;
	}
	if (strstr(s, "TZ")) {
		sk__vinvalid_str(e, "spec.schedule", s,
				 "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
		return;
	}
	c = sk_kube_cron_parse(s, &err);
	if (!c)
		sk__vinvalid_str(e, "spec.schedule", s, err.msg);
	sk_kube_cron_free(c);
}

static void validate_cronjob(E, json_t *cj)
{
	json_t *spec = obj(cj, "spec");
	const char *name = str(obj(cj, "metadata"), "name");
	const char *tz = str(spec, "timeZone");
	json_t *jt = obj(spec, "jobTemplate");

	validate_meta(e, cj, true, NAME_SUBDOMAIN, "");
	if (name && strlen(name) > 52)
		sk__vinvalid_str(e, "metadata.name", name, "must be no more than 52 characters");
	validate_schedule(e, spec);
	if (tz && (strcmp(tz, "Local") == 0))
		sk__vinvalid_str(
			e, "spec.timeZone", tz,
			"timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
	else if (tz && !*tz)
		sk__vinvalid_str(e, "spec.timeZone", tz, "timeZone must be nil or non-empty string");
	else if (tz && !sk_kube_cron_zone_valid(tz)) {
		cleanup_free char *d = xasprintf("unknown time zone %s", tz);

		sk__vinvalid_str(e, "spec.timeZone", tz, d);
	}
	enum_field(e, spec, "spec", "concurrencyPolicy", LIST("Allow", "Forbid", "Replace"), true);
	non_negative(e, spec, "spec", "startingDeadlineSeconds");
	non_negative(e, spec, "spec", "successfulJobsHistoryLimit");
	non_negative(e, spec, "spec", "failedJobsHistoryLimit");
	if (!jt) {
		sk__vrequired(e, "spec.jobTemplate", "");
		return;
	}
	validate_labels(e, obj(obj(jt, "metadata"), "labels"), "spec.jobTemplate.metadata.labels");
	validate_job_spec(e, obj(jt, "spec"), "spec.jobTemplate.spec", false);
}

/* ---- services ---- */

static void validate_target_port(E, json_t *port, const char *p)
{
	json_t *tp = json_object_get(port, "targetPort");
	CHILD(tpp, p, "targetPort");

	if (json_is_integer(tp) && (json_integer_value(tp) < 1 || json_integer_value(tp) > 65535))
		sk__vinvalid(e, tpp, tp, "must be between 1 and 65535, inclusive");
	else if (json_is_string(tp))
		invalid_each(e, tpp, json_string_value(tp), check_port_name);
}

static void validate_service_ports(E, json_t *spec, const char *type)
{
	cleanup_json json_t *names = json_object();
	json_t *ports = arr(spec, "ports"), *port;
	size_t i, n = json_array_size(ports);
	bool node_ports = type && (strcmp(type, "NodePort") == 0 || strcmp(type, "LoadBalancer") == 0);

	if (n == 0 && (!type || strcmp(type, "ExternalName") != 0) && !str_in(str(spec, "clusterIP"), LIST("None")))
		sk__vrequired(e, "spec.ports", "");
	json_array_foreach(ports, i, port) {
		cleanup_free char *p = sk__vindex("spec.ports", i);
		CHILD(np, p, "name");
		CHILD(npp, p, "nodePort");
		const char *name = str(port, "name");

		if (n > 1 && (!name || !*name))
			sk__vrequired(e, np, "");
		if (name && *name) {
			invalid_each(e, np, name, check_label_fmt);
			if (json_object_get(names, name))
				sk__vduplicate(e, np, json_object_get(port, "name"));
			json_object_set_new(names, name, json_true());
		}
		validate_port_number(e, port, p, "port", true);
		enum_field(e, port, p, "protocol", protocols, true);
		validate_target_port(e, port, p);
		if (has(port, "nodePort") && json_integer_value(json_object_get(port, "nodePort")) != 0 &&
		    !node_ports) {
			cleanup_free char *d = xasprintf("may not be used when `type` is '%s'", type ? type : "");

			sk__vforbidden(e, npp, d);
		}
	}
}

static bool is_ip_text(const char *s)
{
	unsigned char buf[16];

	return s && (inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1);
}

/* upstream's validateClusterIPs for single values: "None" first and alone,
 * addresses valid, the first one clusterIP's */
static void validate_cluster_ips(E, json_t *spec, const char *type)
{
	json_t *ips = arr(spec, "clusterIPs"), *v;
	const char *ip = str(spec, "clusterIP");
	bool headless = ip && !strcmp(ip, "None");
	size_t i;

	if (type && !strcmp(type, "ExternalName")) {
		if ((ip && *ip) || json_array_size(ips))
			sk__vforbidden(e, "spec.clusterIPs", "may not be set for ExternalName services");
		if (json_array_size(arr(spec, "ipFamilies")))
			sk__vforbidden(e, "spec.ipFamilies", "may not be set for ExternalName services");
		if (str(spec, "ipFamilyPolicy"))
			sk__vforbidden(e, "spec.ipFamilyPolicy", "may not be set for ExternalName services");
		return;
	}
	if (ip && *ip && json_array_size(ips) && strcmp(ip, json_string_value(json_array_get(ips, 0)) ?: ""))
		sk__vinvalid(e, "spec.clusterIPs", ips, "first value must match `clusterIP`");
	json_array_foreach(ips, i, v) {
		cleanup_free char *p = sk__vindex("spec.clusterIPs", i);
		const char *t = json_string_value(v);

		if (t && !strcmp(t, "None")) {
			if (i || json_array_size(ips) > 1)
				sk__vinvalid(e, "spec.clusterIPs", ips, "'None' must be the first and only value");
		} else if (!is_ip_text(t)) {
			sk__vinvalid(e, p, v, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
		}
	}
	if (ip && *ip && strcmp(ip, "None") && !json_array_size(ips) && !is_ip_text(ip))
		sk__vinvalid_str(e, "spec.clusterIPs[0]", ip,
				 "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
	if (headless && type && (!strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer"))) {
		cleanup_free char *d = xasprintf("may not be set to 'None' for %s services", type);

		sk__vinvalid_str(e, "spec.clusterIPs[0]", ip, d);
	}
}

/* sessionAffinityConfig and the traffic policies, as upstream */
static void validate_service_policies(E, json_t *spec, const char *type)
{
	json_t *sac = obj(spec, "sessionAffinityConfig");
	bool external = type && (!strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer"));
	const char *etp = str(spec, "externalTrafficPolicy");
	int64_t hc = 0;

	if (str_in(str(spec, "sessionAffinity"), LIST("ClientIP"))) {
		json_t *t = json_object_get(obj(sac, "clientIP"), "timeoutSeconds");

		if (!t)
			sk__vrequired(e, "spec.sessionAffinityConfig.clientIP.timeoutSeconds", "");
		else if (!json_is_integer(t) || json_integer_value(t) <= 0 || json_integer_value(t) > 86400)
			sk__vinvalid(e, "spec.sessionAffinityConfig.clientIP.timeoutSeconds", t,
				     "must be greater than 0 and less than 86400");
	} else if (sac) {
		cleanup_free char *d = xasprintf("must not be set when session affinity is %s",
						 str(spec, "sessionAffinity") ? str(spec, "sessionAffinity") : "None");

		sk__vforbidden(e, "spec.sessionAffinityConfig", d);
	}
	if (type && !strcmp(type, "ExternalName") && has(spec, "internalTrafficPolicy"))
		sk__vforbidden(e, "spec.internalTrafficPolicy", "may not be set for ExternalName services");
	if (etp && !external && !json_array_size(arr(spec, "externalIPs")))
		sk__vinvalid_str(e, "spec.externalTrafficPolicy", etp,
				 "may only be set for externally-accessible services");
	if (int_field(spec, "healthCheckNodePort", &hc) && hc != 0) {
		if (!(type && !strcmp(type, "LoadBalancer") && etp && !strcmp(etp, "Local")))
			sk__vinvalid_int(e, "spec.healthCheckNodePort", hc,
					 "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is "
					 "'Local'");
		else if (hc < 1 || hc > 65535)
			sk__vinvalid_int(e, "spec.healthCheckNodePort", hc, "must be between 1 and 65535, inclusive");
	}
	if (has(spec, "allocateLoadBalancerNodePorts") && !(type && !strcmp(type, "LoadBalancer")))
		sk__vforbidden(e, "spec.allocateLoadBalancerNodePorts",
			       "may only be used when `type` is 'LoadBalancer'");
}

/* upstream's duplicate checks: a nodePort once per protocol, a (port,
 * protocol) pair once */
static void validate_service_port_pairs(E, json_t *spec)
{
	json_t *ports = arr(spec, "ports"), *p, *q;
	size_t i, j;

	json_array_foreach(ports, i, p) {
		const char *proto = str(p, "protocol") ? str(p, "protocol") : "";
		int64_t np = 0, port = 0, np2, port2;

		int_field(p, "nodePort", &np);
		int_field(p, "port", &port);
		for (j = 0; j < i; j++) {
			const char *proto2;

			q = json_array_get(ports, j);
			proto2 = str(q, "protocol") ? str(q, "protocol") : "";
			np2 = port2 = 0;
			int_field(q, "nodePort", &np2);
			int_field(q, "port", &port2);
			if (np && np == np2 && !strcmp(proto, proto2)) {
				cleanup_free char *f = xasprintf("spec.ports[%zu].nodePort", i);

				sk__vduplicate(e, f, json_object_get(p, "nodePort"));
			}
			if (port == port2 && !strcmp(proto, proto2)) {
				cleanup_free char *f = sk__vindex("spec.ports", i);
				cleanup_free char *q1 = sk__vquote(proto);
				cleanup_free char *r = xasprintf(
					"core.ServicePort{Name:\"\", Protocol:%s, AppProtocol:(*string)(nil), "
					"Port:%lld, "
					"TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
					q1, (long long)port);

				sk__vduplicate_repr(e, f, r);
				break;
			}
		}
	}
}

static void validate_service(E, json_t *svc)
{
	json_t *spec = obj(svc, "spec");
	const char *type = str(spec, "type");

	validate_meta(e, svc, true, NAME_DNS1035, "");
	enum_field(e, spec, "spec", "type", LIST("ClusterIP", "ExternalName", "LoadBalancer", "NodePort"), true);
	enum_field(e, spec, "spec", "sessionAffinity", LIST("ClientIP", "None"), true);
	if (type && strcmp(type, "ExternalName") == 0) {
		const char *en = str(spec, "externalName");
		cleanup_free char *clean = en ? xstrdup(en) : NULL;

		/* a trailing dot (an absolute name) is allowed, as upstream */
		if (clean && *clean && clean[strlen(clean) - 1] == '.')
			clean[strlen(clean) - 1] = '\0';
		if (!en || !*en)
			sk__vrequired(e, "spec.externalName", "");
		else
			invalid_each(e, "spec.externalName", clean, check_subdomain_fmt);
	}
	validate_cluster_ips(e, spec, type);
	validate_service_ports(e, spec, type);
	validate_service_port_pairs(e, spec);
	validate_labels(e, obj(spec, "selector"), "spec.selector");
	if (has(spec, "internalTrafficPolicy"))
		enum_field(e, spec, "spec", "internalTrafficPolicy", LIST("Cluster", "Local"), false);
	else if (!type || strcmp(type, "ExternalName"))
		sk__vrequired(e, "spec.internalTrafficPolicy", "");
	if (has(spec, "externalTrafficPolicy"))
		enum_field(e, spec, "spec", "externalTrafficPolicy", LIST("Cluster", "Local"), false);
	else if (type && (!strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer")))
		sk__vrequired(e, "spec.externalTrafficPolicy", "");
	if (has(spec, "ipFamilyPolicy"))
		enum_field(e, spec, "spec", "ipFamilyPolicy",
			   LIST("PreferDualStack", "RequireDualStack", "SingleStack"), false);
	validate_service_policies(e, spec, type);
}

static void validate_service_update(E, json_t *svc, json_t *old)
{
	json_t *spec = obj(svc, "spec"), *ospec = obj(old, "spec");
	const char *oip = str(ospec, "clusterIP"), *nip = str(spec, "clusterIP");

	/* upstream's validateUpgradeDowngradeClusterIPs: to or from ExternalName anything goes */
	if (str_in(str(spec, "type"), LIST("ExternalName")) || str_in(str(ospec, "type"), LIST("ExternalName")))
		return;
	if (oip && *oip && nip && *nip && strcmp(oip, nip) != 0)
		sk__vinvalid_str(e, "spec.clusterIPs[0]", nip, "may not change once set");
}

/* ---- config ---- */

static void validate_keys(E, json_t *map, const char *base)
{
	const char *k;
	json_t *v;

	json_object_foreach(map, k, v) {
		cleanup_free char *p = sk__vkey(base, k);

		invalid_each(e, p, k, check_config_key);
	}
}

/* corev1.MaxSecretSize: the data of a ConfigMap or Secret, all values together */
enum { MAX_SECRET_SIZE = 1 << 20 };

/* The bytes a base64 value (binaryData, a Secret's data) decodes to. */
static size_t base64_len(json_t *v)
{
	size_t n = json_string_length(v);
	const char *s = json_string_value(v);
	size_t pad = 0;

	if (!s)
		return 0;
	while (pad < 2 && n > pad && s[n - 1 - pad] == '=')
		pad++;
	return n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0) - (n % 4 ? 0 : pad);
}

static void validate_configmap(E, json_t *cm)
{
	json_t *bin = obj(cm, "binaryData");
	const char *k;
	json_t *v;

	size_t total = 0;

	validate_meta(e, cm, true, NAME_SUBDOMAIN, "");
	validate_keys(e, obj(cm, "data"), "data");
	validate_keys(e, bin, "binaryData");
	json_object_foreach(bin, k, v) {
		if (json_object_get(obj(cm, "data"), k)) {
			cleanup_free char *p = sk__vkey("binaryData", k);

			sk__vinvalid_str(e, p, k, "duplicate of key present in data");
		}
		total += base64_len(v);
	}
	json_object_foreach(obj(cm, "data"), k, v)
		total += json_string_length(v);
	/* the whole object's path: upstream's field.NewPath("") prints as "[]" */
	if (total > MAX_SECRET_SIZE)
		sk__vtoo_long(e, "[]", MAX_SECRET_SIZE);
}

static void require_secret_key(E, json_t *s, const char *key)
{
	if (!json_object_get(obj(s, "data"), key)) {
		cleanup_free char *p = sk__vkey("data", key);

		sk__vrequired(e, p, "");
	}
}

static void validate_secret(E, json_t *s)
{
	const char *type = str(s, "type");

	size_t total = 0;
	const char *k;
	json_t *v;

	validate_meta(e, s, true, NAME_SUBDOMAIN, "");
	validate_keys(e, obj(s, "data"), "data");
	validate_keys(e, obj(s, "stringData"), "stringData");
	json_object_foreach(obj(s, "data"), k, v)
		if (!json_object_get(obj(s, "stringData"), k))
			total += base64_len(v);
	json_object_foreach(obj(s, "stringData"), k, v)
		total += json_string_length(v);
	if (total > MAX_SECRET_SIZE)
		sk__vtoo_long(e, "data", MAX_SECRET_SIZE);
	if (!type)
		return;
	if (strcmp(type, "kubernetes.io/dockerconfigjson") == 0)
		require_secret_key(e, s, ".dockerconfigjson");
	else if (strcmp(type, "kubernetes.io/dockercfg") == 0)
		require_secret_key(e, s, ".dockercfg");
	else if (strcmp(type, "kubernetes.io/tls") == 0) {
		require_secret_key(e, s, "tls.crt");
		require_secret_key(e, s, "tls.key");
	} else if (strcmp(type, "kubernetes.io/ssh-auth") == 0) {
		require_secret_key(e, s, "ssh-privatekey");
	}
}

/* Secret and ConfigMap: `immutable` freezes data and itself. */
static void validate_immutable_data(E, json_t *o, json_t *old, bool secret)
{
	if (!json_is_true(json_object_get(old, "immutable")))
		goto type;
	if (!json_is_true(json_object_get(o, "immutable")))
		sk__vforbidden(e, "immutable", "field is immutable when `immutable` is set");
	if (!json_equal(json_object_get(o, "data") ? json_object_get(o, "data") : json_null(),
			json_object_get(old, "data") ? json_object_get(old, "data") : json_null()))
		sk__vforbidden(e, "data", "field is immutable when `immutable` is set");
	if (!secret &&
	    !json_equal(json_object_get(o, "binaryData") ? json_object_get(o, "binaryData") : json_null(),
			json_object_get(old, "binaryData") ? json_object_get(old, "binaryData") : json_null()))
		sk__vforbidden(e, "binaryData", "field is immutable when `immutable` is set");
type:
	if (secret)
		immutable(e, o, old, "type", "type");
}

static void validate_serviceaccount(E, json_t *sa) { validate_meta(e, sa, true, NAME_SUBDOMAIN, ""); }

static void validate_quantity_map(E, json_t *m, const char *base)
{
	const char *k;
	json_t *v;

	json_object_foreach(m, k, v) {
		cleanup_free char *p = sk__vkey(base, k);
		int64_t q;

		if (json_is_string(v) && sk_quantity_milli(json_string_value(v), &q) == 0 && q < 0)
			sk__vinvalid(e, p, v, "must be greater than or equal to 0");
	}
}

/* ---- ResourceQuota (ValidateResourceQuotaSpec) ---- */

static const char *const quota_standard[] = {
	"pods",
	"services",
	"replicationcontrollers",
	"resourcequotas",
	"secrets",
	"configmaps",
	"persistentvolumeclaims",
	"services.nodeports",
	"services.loadbalancers",
	"cpu",
	"memory",
	"requests.cpu",
	"requests.memory",
	"requests.storage",
	"requests.ephemeral-storage",
	"limits.cpu",
	"limits.memory",
	"limits.ephemeral-storage",
	"ephemeral-storage",
	NULL,
};
static const char *const quota_scopes[] = {
	"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity",
	NULL};

static bool in_set(const char *const *set, const char *s)
{
	for (; s && *set; set++)
		if (!strcmp(*set, s))
			return true;
	return false;
}

/* IsStandardQuotaResourceName: the names above and hugepages. */
static bool quota_standard_name(const char *k)
{
	return in_set(quota_standard, k) || !strncmp(k, "hugepages-", 10) || !strncmp(k, "requests.hugepages-", 19);
}

/* IsIntegerResourceName: object counts and extended resources. */
static bool quota_integer_name(const char *k)
{
	static const char *const counts[] = {"pods",
					     "services",
					     "replicationcontrollers",
					     "resourcequotas",
					     "secrets",
					     "configmaps",
					     "persistentvolumeclaims",
					     "services.nodeports",
					     "services.loadbalancers",
					     NULL};

	return in_set(counts, k) || !strncmp(k, "count/", 6) || extended_resource(k) ||
	       (!strncmp(k, "requests.", 9) && extended_resource(k + 9));
}

/* IsResourceQuotaScopeValidForResource */
static bool scope_valid_for(const char *scope, const char *k)
{
	static const char *const compute[] = {"pods",          "cpu",          "memory",          "limits.cpu",
					      "limits.memory", "requests.cpu", "requests.memory", NULL};

	if (!strcmp(scope, "BestEffort"))
		return !strcmp(k, "pods");
	if (in_set(quota_scopes, scope))
		return in_set(compute, k);
	return true;
}

/* Scopes a quota names must suit every standard resource it limits and
 * must not conflict; repr is the field's value as Go prints it. */
static void quota_scopes_check(E, json_t *hard, const char *field, const char *scope, const char *repr)
{
	const char *k;
	json_t *v;

	json_object_foreach(hard, k, v)
		if (quota_standard_name(k) && !scope_valid_for(scope, k)) {
			sk__vinvalid_repr(e, field, repr, "unsupported scope applied to resource");
			return;
		}
}

static bool conflicting(json_t *seen)
{
	return (json_object_get(seen, "BestEffort") && json_object_get(seen, "NotBestEffort")) ||
	       (json_object_get(seen, "Terminating") && json_object_get(seen, "NotTerminating"));
}

static void validate_quota_scopes(E, json_t *spec)
{
	json_t *scopes = arr(spec, "scopes"), *hard = obj(spec, "hard"), *s;
	cleanup_json json_t *seen = json_object();
	char *repr = xstrdup("[]core.ResourceQuotaScope{");
	size_t i;

	json_array_foreach(scopes, i, s) {
		cleanup_free char *q = sk__vquote(json_string_value(s) ? json_string_value(s) : "");
		char *n = xasprintf("%s%s%s", repr, i ? ", " : "", q);

		free(repr);
		repr = n;
	}
	{
		char *n = xasprintf("%s}", repr);

		free(repr);
		repr = n;
	}
	json_array_foreach(scopes, i, s) {
		const char *sc = json_string_value(s);

		if (!in_set(quota_scopes, sc))
			sk__vinvalid_repr(e, "spec.scopes", repr, "unsupported scope");
		quota_scopes_check(e, hard, "spec.scopes", sc ? sc : "", repr);
		if (sc)
			json_object_set_new(seen, sc, json_true());
	}
	if (conflicting(seen))
		sk__vinvalid_repr(e, "spec.scopes", repr, "conflicting scopes");
	free(repr);
}

static void validate_quota_selector(E, json_t *spec)
{
	json_t *exprs = arr(obj(spec, "scopeSelector"), "matchExpressions"), *r;
	cleanup_json json_t *seen = json_object();
	const char *base = "spec.scopeSelector.matchExpressions";
	size_t i;

	json_array_foreach(exprs, i, r) {
		const char *sc = str(r, "scopeName"), *op = str(r, "operator");
		size_t nv = json_array_size(arr(r, "values"));

		if (!in_set(quota_scopes, sc))
			sk__vinvalid_str(e, "spec.scopeSelector.matchExpressions.scopeName", sc ? sc : "",
					 "unsupported scope");
		quota_scopes_check(e, obj(spec, "hard"), base, sc ? sc : "", "&core.ScopeSelector{…}");
		if (sc && strcmp(sc, "PriorityClass") && in_set(quota_scopes, sc) && (!op || strcmp(op, "Exists")))
			sk__vinvalid_str(
				e, "spec.scopeSelector.matchExpressions.operator", op ? op : "",
				"must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, "
				"ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
				"ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity");
		if (op && (!strcmp(op, "In") || !strcmp(op, "NotIn"))) {
			if (!nv)
				sk__vrequired(e, "spec.scopeSelector.matchExpressions.values",
					      "must be at least one value when `operator` is 'In' or 'NotIn' for scope "
					      "selector");
		} else if (op && (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist"))) {
			if (nv)
				sk__vinvalid(e, "spec.scopeSelector.matchExpressions.values", arr(r, "values"),
					     "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope "
					     "selector");
		} else {
			sk__vinvalid_str(e, "spec.scopeSelector.matchExpressions.operator", op ? op : "",
					 "not a valid selector operator");
		}
		if (sc)
			json_object_set_new(seen, sc, json_true());
	}
	if (conflicting(seen))
		sk__vinvalid_repr(e, base, "&core.ScopeSelector{…}", "conflicting scopes");
}

static void validate_resourcequota(E, json_t *rq)
{
	json_t *spec = obj(rq, "spec"), *v;
	const char *k;

	validate_meta(e, rq, true, NAME_SUBDOMAIN, "");
	validate_quantity_map(e, obj(spec, "hard"), "spec.hard");
	json_object_foreach(obj(spec, "hard"), k, v) {
		cleanup_free char *p = sk__vkey("spec.hard", k);
		int64_t q;

		if (!strchr(k, '/') && !quota_standard_name(k))
			sk__vinvalid_str(e, p, k, "must be a standard resource for quota");
		else if (quota_integer_name(k) && json_is_string(v) &&
			 sk_quantity_milli(json_string_value(v), &q) == 0 && q % 1000)
			sk__vinvalid(e, p, v, "must be an integer");
	}
	validate_quota_scopes(e, spec);
	validate_quota_selector(e, spec);
}

static void validate_event(E, json_t *ev)
{
	json_t *io = obj(ev, "involvedObject");
	const char *ns = str(obj(ev, "metadata"), "namespace");
	const char *ions = str(io, "namespace");

	validate_meta(e, ev, true, NAME_SUBDOMAIN, "");
	if (ions && *ions && ns && strcmp(ns, ions) != 0)
		sk__vinvalid_str(e, "involvedObject.namespace", ions, "does not match event.namespace");
	if (has(ev, "type"))
		enum_field(e, ev, "", "type", LIST("Normal", "Warning"), false);
}

/* ---- cluster objects ---- */

static void validate_namespace(E, json_t *ns) { validate_meta(e, ns, false, NAME_LABEL, ""); }

/* netutils.ParseCIDRSloppy: an IPv4 or IPv6 address, '/', a prefix length. */
static bool valid_cidr(const char *s)
{
	char ip[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	unsigned char buf[16];
	bool v6 = strchr(s, ':') != NULL;
	char *end;
	long n;

	if (!slash || (size_t)(slash - s) >= sizeof(ip) || !isdigit((unsigned char)slash[1]))
		return false;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = '\0';
	n = strtol(slash + 1, &end, 10);
	return !*end && n >= 0 && n <= (v6 ? 128 : 32) && inet_pton(v6 ? AF_INET6 : AF_INET, ip, buf) == 1;
}

static void validate_node(E, json_t *node)
{
	json_t *t, *cidrs = arr(obj(node, "spec"), "podCIDRs");
	size_t i;

	validate_meta(e, node, false, NAME_SUBDOMAIN, "");
	json_array_foreach(cidrs, i, t) {
		cleanup_free char *p = sk__vindex("spec.podCIDRs", i);

		if (!json_is_string(t) || !valid_cidr(json_string_value(t)))
			sk__vinvalid(e, p, cidrs, "must be valid CIDR");
	}
	if (json_array_size(cidrs) > 2)
		sk__vinvalid(e, "spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family");
	json_array_foreach(arr(obj(node, "spec"), "taints"), i, t) {
		cleanup_free char *p = sk__vindex("spec.taints", i);
		CHILD(kp, p, "key");
		const char *key = str(t, "key");

		if (!key || !*key)
			sk__vrequired(e, kp, "");
		else
			invalid_each(e, kp, key, check_qualified_name);
		enum_field(e, t, p, "effect", LIST("NoExecute", "NoSchedule", "PreferNoSchedule"), true);
		if (str(t, "value") && *str(t, "value")) {
			CHILD(vp, p, "value");
			invalid_each(e, vp, str(t, "value"), check_label_value);
		}
	}
	validate_quantity_map(e, obj(obj(node, "status"), "capacity"), "status.capacity");
	validate_quantity_map(e, obj(obj(node, "status"), "allocatable"), "status.allocatable");
}

/* Upstream's ValidateNodeUpdate: the node IPAM controller may set the pod
 * CIDRs once; nothing changes them after. */
static void validate_node_update(E, json_t *node, json_t *old)
{
	json_t *was = arr(obj(old, "spec"), "podCIDRs");

	if (json_array_size(was) && !json_equal(was, arr(obj(node, "spec"), "podCIDRs")))
		sk__vforbidden(e, "spec.podCIDRs", "node updates may not change podCIDR except from \"\" to valid");
}

static void validate_lease(E, json_t *l)
{
	json_t *spec = obj(l, "spec");

	validate_meta(e, l, true, NAME_SUBDOMAIN, "");
	if (has(spec, "leaseDurationSeconds"))
		positive(e, spec, "spec", "leaseDurationSeconds", "must be greater than 0");
	non_negative(e, spec, "spec", "leaseTransitions");
}

static void validate_priorityclass(E, json_t *pc)
{
	const char *name = str(obj(pc, "metadata"), "name");
	int64_t v;

	validate_meta(e, pc, false, NAME_SUBDOMAIN, "");
	if (name && strncmp(name, "system-", 7) == 0 && strcmp(name, "system-node-critical") != 0 &&
	    strcmp(name, "system-cluster-critical") != 0)
		sk__vforbidden(e, "metadata.name", "priority class names with 'system-' prefix are reserved");
	if (!int_field(pc, "value", &v))
		sk__vrequired(e, "value", "");
	else if (v > 1000000000 && !(name && strncmp(name, "system-", 7) == 0))
		sk__vforbidden(e, "value", "maximum allowed value of a user defined priority is 1000000000");
	if (has(pc, "preemptionPolicy"))
		enum_field(e, pc, "", "preemptionPolicy", LIST("Never", "PreemptLowerPriority"), false);
}

static void validate_priorityclass_update(E, json_t *pc, json_t *old)
{
	if (!json_equal(json_object_get(pc, "value"), json_object_get(old, "value")))
		sk__vforbidden(e, "value", "may not be changed in an update.");
	immutable(e, pc, old, "preemptionPolicy", "preemptionPolicy");
}

static void validate_runtimeclass(E, json_t *rc)
{
	const char *h = str(rc, "handler");

	validate_meta(e, rc, false, NAME_SUBDOMAIN, "");
	if (!h || !*h)
		sk__vrequired(e, "handler", "");
	else
		invalid_each(e, "handler", h, check_label_fmt);
	validate_quantity_map(e, obj(obj(rc, "overhead"), "podFixed"), "overhead.podFixed");
}

static void validate_podgroup(E, json_t *pg)
{
	json_t *spec = obj(pg, "spec");

	validate_meta(e, pg, true, NAME_SUBDOMAIN, "");
	non_negative(e, spec, "spec", "minMember");
	non_negative(e, spec, "spec", "scheduleTimeoutSeconds");
	validate_quantity_map(e, obj(spec, "minResources"), "spec.minResources");
}

static void validate_storageclass(E, json_t *sc)
{
	const char *prov = str(sc, "provisioner");

	validate_meta(e, sc, false, NAME_SUBDOMAIN, "");
	if (!prov || !*prov)
		sk__vrequired(e, "provisioner", "");
	else
		invalid_each(e, "provisioner", prov, check_qualified_name);
	enum_field(e, sc, "", "reclaimPolicy", LIST("Delete", "Retain"), false);
	enum_field(e, sc, "", "volumeBindingMode", LIST("Immediate", "WaitForFirstConsumer"), false);
}

static void validate_storageclass_update(E, json_t *sc, json_t *old)
{
	if (!json_equal(json_object_get(sc, "provisioner"), json_object_get(old, "provisioner")))
		sk__vforbidden(e, "provisioner", "updates to provisioner are forbidden.");
	if (!json_equal(json_object_get(sc, "parameters") ? json_object_get(sc, "parameters") : json_null(),
			json_object_get(old, "parameters") ? json_object_get(old, "parameters") : json_null()))
		sk__vforbidden(e, "parameters", "updates to parameters are forbidden.");
	immutable(e, sc, old, "reclaimPolicy", "reclaimPolicy");
	immutable(e, sc, old, "volumeBindingMode", "volumeBindingMode");
}

static const char *const access_modes[] = {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod", NULL};

static void validate_access_modes(E, json_t *spec)
{
	json_t *m;
	size_t i;

	if (json_array_size(arr(spec, "accessModes")) == 0)
		sk__vrequired(e, "spec.accessModes", "at least 1 access mode is required");
	json_array_foreach(arr(spec, "accessModes"), i, m)
		if (!json_is_string(m) || !str_in(json_string_value(m), access_modes))
			sk__vnot_supported(e, "spec.accessModes", m, access_modes);
}

static void validate_pvc(E, json_t *pvc)
{
	json_t *spec = obj(pvc, "spec");
	json_t *req = obj(obj(spec, "resources"), "requests");

	validate_meta(e, pvc, true, NAME_SUBDOMAIN, "");
	validate_access_modes(e, spec);
	if (!json_object_get(req, "storage"))
		sk__vrequired(e, "spec.resources[storage]", "");
	validate_quantity_map(e, req, "spec.resources.requests");
	if (has(spec, "volumeMode"))
		enum_field(e, spec, "spec", "volumeMode", LIST("Block", "Filesystem"), false);
}

/* A smaller storage request: with RecoverVolumeExpansionFailure (beta, on,
 * in 1.32) allowed only while it stays above status.capacity, so a user can
 * take back a resize the volume never reached, but never shrink one. */
static void shrink_check(E, json_t *pvc, json_t *old)
{
	json_t *nsz = json_object_get(obj(obj(obj(pvc, "spec"), "resources"), "requests"), "storage");
	json_t *osz = json_object_get(obj(obj(obj(old, "spec"), "resources"), "requests"), "storage");
	json_t *cap = json_object_get(obj(obj(old, "status"), "capacity"), "storage");
	cleanup_json json_t *zero = json_string("0");
	int cmp = 0;

	if (!nsz || !osz || sk_kube_quantity_cmp(nsz, osz, &cmp) < 0 || cmp >= 0)
		return;
	if (sk_kube_quantity_cmp(nsz, cap ? cap : zero, &cmp) == 0 && cmp <= 0)
		sk__vforbidden(e, "spec.resources.requests.storage", "field can not be less than status.capacity");
}

/* A claim's spec is immutable except resources.requests (bound claims),
 * volumeAttributesClassName, volumeName while it is unset, and
 * storageClassName from unset (nor the beta annotation) to a class: the
 * retroactive default StorageClass (validateStorageClassUpgradeFromNil). */
static void validate_pvc_update(E, json_t *pvc, json_t *old)
{
	json_t *spec = obj(pvc, "spec"), *ospec = obj(old, "spec");
	cleanup_json json_t *munged = spec ? json_deep_copy(spec) : json_object();
	const char *phase = str(obj(old, "status"), "phase");

	if (phase && strcmp(phase, "Bound") == 0 && obj(munged, "resources"))
		copy_field(obj(munged, "resources"), obj(ospec, "resources"), "requests");
	copy_field(munged, ospec, "volumeAttributesClassName");
	if (!str(ospec, "volumeName") || !*str(ospec, "volumeName"))
		copy_field(munged, ospec, "volumeName");
	if (!json_object_get(ospec, "storageClassName") && str(spec, "storageClassName") &&
	    *str(spec, "storageClassName") &&
	    !json_object_get(obj(obj(old, "metadata"), "annotations"), "volume.beta.kubernetes.io/storage-class"))
		json_object_del(munged, "storageClassName");
	if (!json_equal(munged, ospec ? ospec : munged)) {
		cleanup_free char *diff = spec_diff_named("core.PersistentVolumeClaimSpec", ospec, munged);
		cleanup_free char *msg = xasprintf("spec is immutable after creation except resources.requests and "
						   "volumeAttributesClassName for bound claims\n%s",
						   diff);

		sk__vforbidden(e, "spec", msg);
	}
	shrink_check(e, pvc, old);
}

static void validate_pv(E, json_t *pv)
{
	static const char *const sources[] = {"hostPath", "local", "nfs", "csi", NULL};
	json_t *spec = obj(pv, "spec");
	int n = 0;

	validate_meta(e, pv, false, NAME_SUBDOMAIN, "");
	validate_access_modes(e, spec);
	if (json_object_size(obj(spec, "capacity")) == 0)
		sk__vrequired(e, "spec.capacity", "");
	else if (!json_object_get(obj(spec, "capacity"), "storage"))
		sk__vnot_supported(e, "spec.capacity", obj(spec, "capacity"), LIST("storage"));
	validate_quantity_map(e, obj(spec, "capacity"), "spec.capacity");
	for (int i = 0; sources[i]; i++)
		n += obj(spec, sources[i]) != NULL;
	if (n == 0)
		sk__vrequired(e, "spec", "must specify a volume type");
	else if (n > 1)
		sk__vforbidden(e, "spec", "may not specify more than 1 volume type");
	enum_field(e, spec, "spec", "persistentVolumeReclaimPolicy", LIST("Delete", "Recycle", "Retain"), false);
}

static void validate_binding(E, json_t *b)
{
	json_t *t = obj(b, "target");
	const char *kind = str(t, "kind");

	validate_meta(e, b, true, NAME_SUBDOMAIN, "");
	if (kind && *kind && strcmp(kind, "Node") != 0)
		sk__vnot_supported(e, "target.kind", json_object_get(t, "kind"), LIST("Node", "<empty>"));
	if (!str(t, "name") || !*str(t, "name"))
		sk__vrequired(e, "target.name", "");
}

static void validate_scale(E, json_t *sc) { non_negative(e, obj(sc, "spec"), "spec", "replicas"); }

static void validate_eviction(E, json_t *ev)
{
	json_t *opts = obj(ev, "deleteOptions");
	int64_t v;

	if (int_field(opts, "gracePeriodSeconds", &v) && v < 0)
		sk__vinvalid_int(e, "deleteOptions.gracePeriodSeconds", v, "must be greater than or equal to 0");
	if (has(opts, "propagationPolicy"))
		enum_field(e, opts, "deleteOptions", "propagationPolicy", LIST("Background", "Foreground", "Orphan"),
			   false);
}

/* ---- discovery.k8s.io and networking.k8s.io ---- */

/* Go's net.ParseIP(s).To4() != nil: dotted quads and IPv4-mapped IPv6. */
static bool ip_is_v4(const char *s)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1)
		return true;
	return inet_pton(AF_INET6, s, &a6) == 1 && IN6_IS_ADDR_V4MAPPED(&a6);
}

static bool ip_parses(const char *s)
{
	struct in6_addr a6;

	return ip_is_v4(s) || inet_pton(AF_INET6, s, &a6) == 1;
}

/* core validation's ValidateEndpointIP: addresses no endpoint may have. */
static void validate_endpoint_ip(E, const char *ip, const char *p)
{
	unsigned char b[16];
	struct in_addr a4;

	if (!ip_parses(ip)) {
		sk__vinvalid_str(e, p, ip, "must be a valid IP address");
		return;
	}
	if (inet_pton(AF_INET, ip, &a4) == 1) {
		memset(b, 0, 10);
		b[10] = b[11] = 0xff;
		memcpy(b + 12, &a4, 4);
	} else {
		inet_pton(AF_INET6, ip, b);
	}
	if (ip_is_v4(ip)) {
		const unsigned char *v = b + 12;

		if (!v[0] && !v[1] && !v[2] && !v[3]) {
			cleanup_free char *m = xasprintf("may not be unspecified (%s)", ip);
			sk__vinvalid_str(e, p, ip, m);
		}
		if (v[0] == 127)
			sk__vinvalid_str(e, p, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)");
		if (v[0] == 169 && v[1] == 254)
			sk__vinvalid_str(e, p, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)");
		if (v[0] == 224 && !v[1] && !v[2])
			sk__vinvalid_str(e, p, ip,
					 "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
		return;
	}
	if (IN6_IS_ADDR_UNSPECIFIED((struct in6_addr *)b)) {
		cleanup_free char *m = xasprintf("may not be unspecified (%s)", ip);
		sk__vinvalid_str(e, p, ip, m);
	}
	if (IN6_IS_ADDR_LOOPBACK((struct in6_addr *)b))
		sk__vinvalid_str(e, p, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)");
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		sk__vinvalid_str(e, p, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)");
	if (b[0] == 0xff && (b[1] & 0x0f) == 0x02)
		sk__vinvalid_str(e, p, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
}

/* core validation's validateEndpointAddress, special addresses allowed. */
static void validate_endpoint_address(E, json_t *a, const char *p)
{
	const char *ip = str_or_empty(a, "ip");
	CHILD(ipp, p, "ip");
	CHILD(hp, p, "hostname");
	CHILD(np, p, "nodeName");

	if (!ip_parses(ip))
		sk__vinvalid_str(e, ipp, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
	if (*str_or_empty(a, "hostname"))
		invalid_each(e, hp, str(a, "hostname"), check_label_fmt);
	if (str(a, "nodeName"))
		invalid_each(e, np, str(a, "nodeName"), check_subdomain_fmt);
	/* upstream also refuses special addresses here (ValidateEndpointIP),
	 * which would refuse default/kubernetes of a server on 127.0.0.1: its
	 * Endpoints keep a loopback address (its EndpointSlice has none) */
	if (!ip_parses(ip))
		sk__vinvalid_str(e, ipp, ip, "must be a valid IP address");
}

/* validateEndpointPort: a name is required when a subset has several ports. */
static void validate_endpoint_port(E, json_t *port, bool need_name, const char *p)
{
	const char *name = str_or_empty(port, "name");
	int64_t v = 0;
	CHILD(np, p, "name");
	CHILD(pp, p, "port");
	CHILD(ap, p, "appProtocol");

	if (need_name && !*name)
		sk__vrequired(e, np, "");
	else if (*name)
		invalid_each(e, np, name, check_label_fmt);
	int_field(port, "port", &v);
	if (v < 1 || v > 65535)
		sk__vinvalid_int(e, pp, v, "must be between 1 and 65535, inclusive");
	enum_field(e, port, p, "protocol", protocols, true);
	if (str(port, "appProtocol"))
		invalid_each(e, ap, str(port, "appProtocol"), check_qualified_name);
}

static void validate_endpoints(E, json_t *ep)
{
	json_t *s, *x;
	size_t i, j;

	validate_meta(e, ep, true, NAME_SUBDOMAIN, "");
	json_array_foreach(arr(ep, "subsets"), i, s) {
		cleanup_free char *sp = sk__vindex("subsets", i);
		CHILD(ap, sp, "addresses");
		CHILD(np, sp, "notReadyAddresses");
		CHILD(pp, sp, "ports");
		json_t *ports = arr(s, "ports");

		if (!json_array_size(arr(s, "addresses")) && !json_array_size(arr(s, "notReadyAddresses")))
			sk__vrequired(e, sp, "must specify `addresses` or `notReadyAddresses`");
		json_array_foreach(arr(s, "addresses"), j, x) {
			cleanup_free char *xp = sk__vindex(ap, j);

			validate_endpoint_address(e, x, xp);
		}
		json_array_foreach(arr(s, "notReadyAddresses"), j, x) {
			cleanup_free char *xp = sk__vindex(np, j);

			validate_endpoint_address(e, x, xp);
		}
		json_array_foreach(ports, j, x) {
			cleanup_free char *xp = sk__vindex(pp, j);

			validate_endpoint_port(e, x, json_array_size(ports) > 1, xp);
		}
	}
}

/* apimachinery's IsFullyQualifiedDomainName. */
static void validate_fqdn(E, const char *name, const char *p)
{
	cleanup_free char *n = xstrdup(name);
	size_t len = strlen(n);
	const char *msg;
	char *label, *dot;

	if (!len) {
		sk__vrequired(e, p, "");
		return;
	}
	if (n[len - 1] == '.')
		n[len - 1] = '\0';
	if ((msg = sk_validate_dns1123_subdomain(n))) {
		sk__vinvalid_str(e, p, n, msg);
		return;
	}
	if (!strchr(n, '.')) {
		sk__vinvalid_str(e, p, n, "should be a domain with at least two segments separated by dots");
		return;
	}
	for (label = n; label; label = dot ? dot + 1 : NULL) {
		dot = strchr(label, '.');
		if (dot)
			*dot = '\0';
		if ((msg = sk_validate_dns1123_label(label))) {
			sk__vinvalid_str(e, p, label, msg);
			return;
		}
	}
}

static void validate_slice_address(E, const char *type, const char *addr, const char *p)
{
	struct in6_addr a6;

	if (!strcmp(type, "IPv4")) {
		if (!ip_is_v4(addr))
			sk__vinvalid_str(e, p, addr, "must be a valid IPv4 address");
		validate_endpoint_ip(e, addr, p);
	} else if (!strcmp(type, "IPv6")) {
		if (ip_is_v4(addr) || inet_pton(AF_INET6, addr, &a6) != 1)
			sk__vinvalid_str(e, p, addr, "must be a valid IPv6 address");
		validate_endpoint_ip(e, addr, p);
	} else if (!strcmp(type, "FQDN")) {
		validate_fqdn(e, addr, p);
	}
}

static void validate_slice_hints(E, json_t *hints, const char *p)
{
	cleanup_json json_t *seen = json_object();
	json_t *zones = arr(hints, "forZones"), *z;
	CHILD(fz, p, "forZones");
	size_t i;

	if (json_array_size(zones) > 8) {
		sk__vtoo_many(e, fz, (int64_t)json_array_size(zones), 8);
		return;
	}
	json_array_foreach(zones, i, z) {
		cleanup_free char *zi = sk__vindex(fz, i);
		CHILD(zp, zi, "name");
		const char *name = str_or_empty(z, "name");

		if (json_object_get(seen, name))
			sk__vduplicate(e, zp, json_object_get(z, "name"));
		else
			json_object_set_new(seen, name, json_true());
		invalid_each(e, zp, name, check_label_value);
	}
}

static void validate_slice_endpoint(E, json_t *ep, const char *type, const char *p)
{
	json_t *addrs = arr(ep, "addresses"), *a, *topo = obj(ep, "deprecatedTopology");
	CHILD(ap, p, "addresses");
	CHILD(tp, p, "deprecatedTopology");
	CHILD(hp, p, "hostname");
	CHILD(hintp, p, "hints");
	size_t i;

	if (!json_array_size(addrs))
		sk__vrequired(e, ap, "must contain at least 1 address");
	else if (json_array_size(addrs) > 100)
		sk__vtoo_many(e, ap, (int64_t)json_array_size(addrs), 100);
	json_array_foreach(addrs, i, a) {
		cleanup_free char *ai = sk__vindex(ap, i);

		if (json_is_string(a))
			validate_slice_address(e, type, json_string_value(a), ai);
	}
	if (str(ep, "nodeName")) {
		CHILD(np, p, "nodeName");
		invalid_each(e, np, str(ep, "nodeName"), check_subdomain_fmt);
	}
	if (json_object_size(topo) > 16)
		sk__vtoo_many(e, tp, (int64_t)json_object_size(topo), 16);
	validate_labels(e, topo, tp);
	if (str(ep, "hostname"))
		invalid_each(e, hp, str(ep, "hostname"), check_label_fmt);
	if (obj(ep, "hints"))
		validate_slice_hints(e, obj(ep, "hints"), hintp);
}

static void validate_slice_ports(E, json_t *ports)
{
	cleanup_json json_t *names = json_object();
	json_t *port;
	size_t i;

	if (json_array_size(ports) > 20000) {
		sk__vtoo_many(e, "ports", (int64_t)json_array_size(ports), 20000);
		return;
	}
	json_array_foreach(ports, i, port) {
		cleanup_free char *pp = sk__vindex("ports", i);
		CHILD(np, pp, "name");
		CHILD(app, pp, "appProtocol");
		const char *name = str_or_empty(port, "name");

		if (*name)
			invalid_each(e, np, name, check_label_fmt);
		if (json_object_get(names, name))
			sk__vduplicate(e, np, json_object_get(port, "name"));
		else
			json_object_set_new(names, name, json_true());
		enum_field(e, port, pp, "protocol", protocols, true);
		if (str(port, "appProtocol"))
			invalid_each(e, app, str(port, "appProtocol"), check_qualified_name);
	}
}

static void validate_endpointslice(E, json_t *eps)
{
	const char *type = str(eps, "addressType");
	json_t *eplist = arr(eps, "endpoints"), *ep;
	size_t i;

	validate_meta(e, eps, true, NAME_SUBDOMAIN, "");
	if (!type || !*type)
		sk__vrequired(e, "addressType", "");
	else
		enum_field(e, eps, "", "addressType", LIST("FQDN", "IPv4", "IPv6"), true);
	if (json_array_size(eplist) > 1000) {
		sk__vtoo_many(e, "endpoints", (int64_t)json_array_size(eplist), 1000);
	} else {
		json_array_foreach(eplist, i, ep) {
			cleanup_free char *p = sk__vindex("endpoints", i);

			validate_slice_endpoint(e, ep, type ? type : "", p);
		}
	}
	validate_slice_ports(e, arr(eps, "ports"));
}

static void validate_endpointslice_update(E, json_t *eps, json_t *old)
{
	immutable(e, eps, old, "addressType", "addressType");
}

/* apimachinery's IsValidCIDR; parses into a/prefix. */
static bool parse_cidr(const char *s, unsigned char a[16], int *bits, int *family)
{
	const char *slash = strchr(s, '/');
	cleanup_free char *ip = NULL;
	char *end;
	long n;

	if (!slash || !slash[1])
		return false;
	ip = xstrndup(s, (size_t)(slash - s));
	n = strtol(slash + 1, &end, 10);
	if (*end || !isdigit((unsigned char)slash[1]))
		return false;
	memset(a, 0, 16);
	if (inet_pton(AF_INET, ip, a) == 1) {
		*family = 4;
		return n >= 0 && n <= 32 && (*bits = (int)n, true);
	}
	if (inet_pton(AF_INET6, ip, a) == 1) {
		*family = 6;
		return n >= 0 && n <= 128 && (*bits = (int)n, true);
	}
	return false;
}

static bool prefix_contains(const unsigned char *net, int bits, const unsigned char *ip)
{
	for (int i = 0; i < bits; i++) {
		unsigned char m = (unsigned char)(0x80 >> (i % 8));

		if ((net[i / 8] & m) != (ip[i / 8] & m))
			return false;
	}
	return true;
}

static const char msg_cidr[] = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

static void validate_ipblock(E, json_t *b, const char *p)
{
	const char *cidr = str_or_empty(b, "cidr");
	unsigned char net[16], ex[16];
	int bits, exbits, fam, exfam;
	CHILD(cp, p, "cidr");
	CHILD(xp, p, "except");
	json_t *x;
	size_t i;

	if (!*cidr) {
		sk__vrequired(e, cp, "");
		return;
	}
	if (!parse_cidr(cidr, net, &bits, &fam)) {
		sk__vinvalid_str(e, cp, cidr, msg_cidr);
		return;
	}
	json_array_foreach(arr(b, "except"), i, x) {
		cleanup_free char *xi = sk__vindex(xp, i);
		const char *xs = json_is_string(x) ? json_string_value(x) : "";

		if (!parse_cidr(xs, ex, &exbits, &exfam)) {
			sk__vinvalid_str(e, xi, xs, msg_cidr);
			continue;
		}
		if (exfam != fam || !prefix_contains(net, bits, ex) || bits >= exbits)
			sk__vinvalid_str(e, xi, xs, "must be a strict subset of `cidr`");
	}
}

static void validate_np_port(E, json_t *port, const char *p)
{
	json_t *pv = json_object_get(port, "port"), *endp = json_object_get(port, "endPort");
	CHILD(pp, p, "port");
	CHILD(ep, p, "endPort");

	if (has(port, "protocol"))
		enum_field(e, port, p, "protocol", LIST("TCP", "UDP", "SCTP"), false);
	if (json_is_integer(pv)) {
		json_int_t v = json_integer_value(pv);

		if (v < 1 || v > 65535)
			sk__vinvalid_int(e, pp, v, "must be between 1 and 65535, inclusive");
		if (json_is_integer(endp)) {
			json_int_t end = json_integer_value(endp);

			if (end < v)
				sk__vinvalid_int(e, ep, v, "must be greater than or equal to `port`");
			if (end < 1 || end > 65535)
				sk__vinvalid_int(e, ep, end, "must be between 1 and 65535, inclusive");
		}
	} else if (json_is_string(pv)) {
		if (json_is_integer(endp))
			sk__vinvalid_int(e, ep, json_integer_value(endp),
					 "may not be specified when `port` is non-numeric");
		invalid_each(e, pp, json_string_value(pv), check_port_name);
	} else if (json_is_integer(endp)) {
		sk__vinvalid_int(e, ep, json_integer_value(endp), "may not be specified when `port` is not specified");
	}
}

static void validate_np_peer(E, json_t *peer, const char *p)
{
	int n = 0;
	CHILD(psp, p, "podSelector");
	CHILD(nsp, p, "namespaceSelector");
	CHILD(ibp, p, "ipBlock");

	if (obj(peer, "podSelector")) {
		n++;
		validate_label_selector(e, obj(peer, "podSelector"), psp);
	}
	if (obj(peer, "namespaceSelector")) {
		n++;
		validate_label_selector(e, obj(peer, "namespaceSelector"), nsp);
	}
	if (obj(peer, "ipBlock")) {
		n++;
		validate_ipblock(e, obj(peer, "ipBlock"), ibp);
	}
	if (!n)
		sk__vrequired(e, p, "must specify a peer");
	else if (n > 1 && obj(peer, "ipBlock"))
		sk__vforbidden(e, p, "may not specify both ipBlock and another peer");
}

/* spec.ingress (peers under "from") or spec.egress (under "to"). */
static void validate_np_rules(E, json_t *rules, const char *base, const char *peers)
{
	json_t *rule, *x;
	size_t i, j;

	json_array_foreach(rules, i, rule) {
		cleanup_free char *rp = sk__vindex(base, i);
		CHILD(pp, rp, "ports");
		CHILD(fp, rp, peers);

		json_array_foreach(arr(rule, "ports"), j, x) {
			cleanup_free char *xi = sk__vindex(pp, j);

			validate_np_port(e, x, xi);
		}
		json_array_foreach(arr(rule, peers), j, x) {
			cleanup_free char *xi = sk__vindex(fp, j);

			validate_np_peer(e, x, xi);
		}
	}
}

static void validate_networkpolicy(E, json_t *np)
{
	json_t *spec = obj(np, "spec"), *types = arr(spec, "policyTypes"), *t;
	size_t i;

	validate_meta(e, np, true, NAME_SUBDOMAIN, "");
	validate_label_selector(e, obj(spec, "podSelector"), "spec.podSelector");
	validate_np_rules(e, arr(spec, "ingress"), "spec.ingress", "from");
	validate_np_rules(e, arr(spec, "egress"), "spec.egress", "to");
	if (json_array_size(types) > 2) {
		cleanup_free char *r = typed_strings_repr(types, "[]networking.PolicyType");

		sk__vinvalid_repr(e, "spec.policyTypes", r, "may not specify more than two policyTypes");
		return;
	}
	json_array_foreach(types, i, t) {
		cleanup_free char *tp = sk__vindex("spec.policyTypes", i);

		if (!json_is_string(t) || !str_in(json_string_value(t), LIST("Ingress", "Egress")))
			sk__vnot_supported(e, tp, t, LIST("Ingress", "Egress"));
	}
}

/* ---- entry points ---- */

static json_t *causes_or_null(struct sk__verr *e)
{
	if (json_array_size(e->causes) == 0) {
		json_decref(e->causes);
		return NULL;
	}
	return e->causes;
}

/* upstream's ValidatePodCreate: ephemeral containers come only through
 * pods/ephemeralcontainers */
static void validate_pod_create(E, json_t *pod)
{
	if (json_array_size(arr(obj(pod, "spec"), "ephemeralContainers")))
		sk__vforbidden(e, "spec.ephemeralContainers", "cannot be set on create");
}

static void validate_configmap_update(E, json_t *cm, json_t *old) { validate_immutable_data(e, cm, old, false); }

static void validate_secret_update(E, json_t *s, json_t *old) { validate_immutable_data(e, s, old, true); }

/* A kind's rules: on create rules and on_create, on update rules, the
 * metadata update rules and on_update; a write to /status only the
 * metadata update rules. */
static json_t *run(void (*rules)(E, json_t *o), void (*on_create)(E, json_t *o),
		   void (*on_update)(E, json_t *o, json_t *old), json_t *o, json_t *old, int status_sub)
{
	struct sk__verr e;

	if (status_sub)
		return sk_validate_status("", o, old);
	e.causes = json_array();
	if (json_is_object(o)) {
		rules(&e, o);
		if (!json_is_object(old) && on_create)
			on_create(&e, o);
		if (json_is_object(old)) {
			validate_meta_update(&e, o, old);
			if (on_update)
				on_update(&e, o, old);
		}
	}
	return causes_or_null(&e);
}

/* The descriptors' validate hooks (sk_kind_ops.validate): HOOK(pod, …)
 * defines sk__validate_pod over run(). */
#define HOOK(name, rules, on_create, on_update) \
	json_t *sk__validate_##name(const sk_api_resource *r, json_t *o, json_t *old, int status_sub) \
	{ \
		(void)r; \
		return run(rules, on_create, on_update, o, old, status_sub); \
	}

HOOK(pod, validate_pod, validate_pod_create, validate_pod_update)
HOOK(deployment, validate_deployment, NULL, validate_selector_update)
HOOK(replicaset, validate_replicaset, NULL, validate_selector_update)
HOOK(daemonset, validate_daemonset, NULL, validate_selector_update)
HOOK(replicationcontroller, validate_replicationcontroller, NULL, NULL)
HOOK(poddisruptionbudget, validate_pdb, NULL, NULL)
HOOK(statefulset, validate_statefulset, NULL, validate_statefulset_update)
HOOK(controllerrevision, validate_controllerrevision, NULL, validate_controllerrevision_update)
HOOK(job, validate_job, NULL, validate_job_update)
HOOK(cronjob, validate_cronjob, NULL, NULL)
HOOK(service, validate_service, NULL, validate_service_update)
HOOK(configmap, validate_configmap, NULL, validate_configmap_update)
HOOK(secret, validate_secret, NULL, validate_secret_update)
HOOK(serviceaccount, validate_serviceaccount, NULL, NULL)
HOOK(resourcequota, validate_resourcequota, NULL, NULL)
HOOK(endpoints, validate_endpoints, NULL, NULL)
HOOK(endpointslice, validate_endpointslice, NULL, validate_endpointslice_update)
HOOK(networkpolicy, validate_networkpolicy, NULL, NULL)
HOOK(event, validate_event, NULL, NULL)
HOOK(namespace, validate_namespace, NULL, NULL)
HOOK(node, validate_node, NULL, validate_node_update)
HOOK(lease, validate_lease, NULL, NULL)
HOOK(priorityclass, validate_priorityclass, NULL, validate_priorityclass_update)
HOOK(runtimeclass, validate_runtimeclass, NULL, NULL)
HOOK(podgroup, validate_podgroup, NULL, NULL)
HOOK(storageclass, validate_storageclass, NULL, validate_storageclass_update)
HOOK(persistentvolumeclaim, validate_pvc, NULL, validate_pvc_update)
HOOK(persistentvolume, validate_pv, NULL, NULL)

json_t *sk_validate_binding(json_t *o) { return run(validate_binding, NULL, NULL, o, NULL, 0); }

json_t *sk_validate_scale(json_t *o) { return run(validate_scale, NULL, NULL, o, NULL, 0); }

json_t *sk_validate_eviction(json_t *o) { return run(validate_eviction, NULL, NULL, o, NULL, 0); }

json_t *sk_validate(const char *kind, json_t *o, json_t *old)
{
	const sk_api_resource *r = sk__kind_builtin(kind);

	if (!r || !r->ops || !r->ops->validate || !json_is_object(o))
		return NULL;
	return r->ops->validate(r, o, old, 0);
}

json_t *sk_validate_status(const char *kind, json_t *o, json_t *old)
{
	struct sk__verr e = {json_array()};

	if (kind && json_is_object(o) && json_is_object(old))
		validate_meta_update(&e, o, old);
	if (json_array_size(e.causes) == 0) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

json_t *sk_validate_pod_ephemeral(json_t *o, json_t *old)
{
	struct sk__verr e = {json_array()};
	json_t *oc, *nc, *olds = arr(obj(old, "spec"), "ephemeralContainers");
	size_t i, j;

	if (json_is_object(o) && json_is_object(old)) {
		validate_meta_update(&e, o, old);
		validate_pod(&e, o);
		if (json_object_get(obj(obj(old, "metadata"), "annotations"), "kubernetes.io/config.mirror")) {
			json_array_clear(e.causes);
			sk__vforbidden(&e, "", "static pods do not support ephemeral containers");
			return e.causes;
		}
		/* existing ones stay as they are (matched by name: a patch
		 * may reorder) */
		json_array_foreach(olds, i, oc) {
			json_t *found = NULL;
			cleanup_free char *msg = NULL;

			json_array_foreach(arr(obj(o, "spec"), "ephemeralContainers"), j, nc)
				if (str(nc, "name") && str(oc, "name") && !strcmp(str(nc, "name"), str(oc, "name")))
					found = nc;
			if (found && json_equal(found, oc))
				continue;
			{
				cleanup_free char *q = sk__vquote(str(oc, "name") ? str(oc, "name") : "");

				msg = xasprintf("existing ephemeral containers %s may not be %s\n", q,
						found ? "changed" : "removed");
			}
			sk__vforbidden(&e, "spec.ephemeralContainers", msg);
		}
	}
	if (json_array_size(e.causes) == 0) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* Upstream prints field.Error as "<field>: <body>". */
static char *cause_text(json_t *c) { return xasprintf("%s: %s", str_or_empty(c, "field"), str_or_empty(c, "message")); }

/* The API group of a kind skiff serves ("" for core), or NULL. */
static const char *kind_group(const char *kind)
{
	for (int i = 0; kind && sk_schema_kinds[i]; i++)
		if (strcmp(sk_schema_kinds[i]->kind, kind) == 0)
			return sk_schema_kinds[i]->group;
	return NULL;
}

char *sk_validate_message(const char *kind, const char *name, json_t *causes)
{
	return sk_validate_message_group(kind, kind_group(kind), name, causes);
}

char *sk_validate_message_group(const char *kind, const char *group, const char *name, json_t *causes)
{
	cleanup_free char *qkind = group && *group ? xasprintf("%s.%s", kind, group) : xstrdup(kind ? kind : "");
	cleanup_json json_t *seen = json_object();
	cleanup_free char *body = xstrdup("");
	size_t n = 0, i;
	json_t *c;

	json_array_foreach(causes, i, c) {
		cleanup_free char *t = cause_text(c);
		char *next;

		if (json_object_get(seen, t))
			continue;
		json_object_set_new(seen, t, json_true());
		next = xasprintf("%s%s%s", body, n ? ", " : "", t);
		free(body);
		body = next;
		n++;
	}
	if (n > 1)
		return xasprintf("%s \"%s\" is invalid: [%s]", qkind, name ? name : "", body);
	return xasprintf("%s \"%s\" is invalid: %s", qkind, name ? name : "", body);
}
