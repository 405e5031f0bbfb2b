/* The x-kubernetes-validations rules of custom objects (CEL, src/api/cel/):
 * evaluated on every write as apiextensions-apiserver's schema/cel
 * validator does (self at each schema node, oldSelf correlated by property,
 * map key and list-map keys, ratcheting of unchanged values, the cost
 * budget of a request), and checked at CRD create/update as its
 * compilation step (upstream's messages). Compiled programs are cached by
 * their text. */
#include <pthread.h>
#include <string.h>

#include "api/cel/cel.h"
#include "api/crschema.h"
#include "api/validate-int.h"
#include "util/util.h"

#define CACHE_MAX 4096

static pthread_rwlock_t cache_mu = PTHREAD_RWLOCK_INITIALIZER;
static json_t *cache; /* rule text → index into programs */
static sk_cel_program **programs;
static size_t nprograms;

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* The program of expr, or NULL when it does not compile (a rule stored
 * before rules were checked: it is skipped). Programs are owned by the
 * cache and never freed while the server runs, so a caller may use one
 * without a lock; past CACHE_MAX texts the index starts over. */
static sk_cel_program *program(const char *expr)
{
	sk_cel_program *p = NULL;
	json_t *idx;
	char *err = NULL;

	pthread_rwlock_rdlock(&cache_mu);
	idx = cache ? jget(cache, expr) : NULL;
	if (idx)
		p = programs[json_integer_value(idx)];
	pthread_rwlock_unlock(&cache_mu);
	if (p)
		return p;
	/* upstream's StoredExpressions environment: every library of the
	 * version, the two-variable comprehensions included (a CRD write
	 * compiles new rules at the 1.31 compatibility version, without them) */
	p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF | SK_CEL_LIB_TWO_VAR, NULL, &err);
	free(err);
	if (!p)
		return NULL;
	pthread_rwlock_wrlock(&cache_mu);
	if (!cache)
		cache = json_object();
	idx = jget(cache, expr);
	if (idx) {
		/* another thread compiled it first */
		sk_cel_program_free(p);
		p = programs[json_integer_value(idx)];
	} else {
		/* programs stay valid when the index starts over: they are kept */
		if (json_object_size(cache) >= CACHE_MAX)
			json_object_clear(cache);
		programs = xrealloc(programs, (nprograms + 1) * sizeof(*programs));
		programs[nprograms] = p;
		json_object_set_new(cache, expr, json_integer((json_int_t)nprograms++));
	}
	pthread_rwlock_unlock(&cache_mu);
	return p;
}

/* ---- evaluation ---- */

struct walk {
	struct sk__verr *e;
	int64_t budget;
	int stop;
	int ratcheting; /* on for object writes only */
};

static const char *shown(const char *path) { return *path ? path : "<nil>"; }

/* fieldPath (".a.b", ".a['k']") appended to path, as upstream's
 * normalized rule field path. Caller frees. */
static char *with_field_path(const char *path, const char *fp)
{
	char *rel = xmalloc(strlen(fp) + 1), *o = rel;

	for (const char *p = fp; *p; p++) {
		if (p == fp && *p == '.')
			continue;
		if (*p == '[' && p[1] == '\'') {
			*o++ = '[';
			p++;
			continue;
		}
		if (*p == '\'' && p[1] == ']')
			continue;
		*o++ = *p;
	}
	*o = 0;
	char *out = *path ? xasprintf("%s.%s", path, rel) : xstrdup(rel);

	free(rel);
	return out;
}

static void rule_error(struct sk__verr *e, const char *path, const char *type, const char *detail, const char *reason)
{
	if (reason && !strcmp(reason, "FieldValueForbidden")) {
		sk__vforbidden(e, path, detail);
	} else if (reason && !strcmp(reason, "FieldValueRequired")) {
		sk__vrequired(e, path, detail);
	} else if (reason && !strcmp(reason, "FieldValueDuplicate")) {
		cleanup_json json_t *v = json_string(type);

		sk__vduplicate(e, path, v);
	} else {
		sk__vinvalid_str(e, path, type, detail);
	}
}

/* The rule's message or upstream's default; caller frees. */
static char *rule_message(json_t *rule)
{
	const char *msg = jstr(rule, "message"), *text = jstr(rule, "rule");
	char *t;

	if (msg && *msg) {
		t = xstrdup(msg);
	} else {
		cleanup_free char *r = xstrdup(text ? text : "");

		t = xasprintf("failed rule: %s", r);
	}
	/* strings.TrimSpace */
	{
		char *s = t, *end;

		while (*s && strchr(" \t\n\r\v\f", *s))
			s++;
		end = s + strlen(s);
		while (end > s && strchr(" \t\n\r\v\f", end[-1]))
			end--;
		*end = 0;
		memmove(t, s, (size_t)(end - s) + 1);
	}
	return t;
}

/* ruleErrorString: the message, else the rule. Caller frees. */
static char *rule_string(json_t *rule)
{
	const char *msg = jstr(rule, "message");
	cleanup_free char *m = rule_message(rule);

	if (msg && *msg)
		return xstrdup(m);
	return xstrdup(m + strlen("failed rule: "));
}

/* messageExpression's text, or NULL when it fails (the rule's message
 * then). *stop on cost exhaustion with *msg the error to report. */
static char *eval_message(struct walk *w, json_t *rule, const sk_cel_vars *vars, char **msg)
{
	const char *expr = jstr(rule, "messageExpression");
	sk_cel_program *p = expr && *expr ? program(expr) : NULL;
	sk_cel_result r;
	char *out = NULL;

	if (!p)
		return NULL;
	switch (sk_cel_eval(p, vars, &r)) {
	case SK_CEL_STRING: {
		char *s = r.text, *end;

		while (*s && strchr(" \t\n\r\v\f", *s))
			s++;
		end = s + strlen(s);
		while (end > s && strchr(" \t\n\r\v\f", end[-1]))
			end--;
		*end = 0;
		if (*s && !strchr(s, '\n') && strlen(s) <= 5000)
			out = xstrdup(s);
		break;
	}
	case SK_CEL_COST:
		w->stop = 1;
		*msg = xstrdup(w->budget <= 0 ? "messageExpression evaluation failed due to running out of cost "
						"budget, no further validation rules will be run"
					      : "no further validation rules will be run due to call cost exceeds "
						"limit for messageExpression");
		break;
	default:
		break;
	}
	sk_cel_result_release(&r);
	return out;
}

static void eval_rule(struct walk *w, json_t *rule, json_t *s, json_t *v, json_t *old, const char *path, int ratchet)
{
	const char *text = jstr(rule, "rule"), *type = jstr(s, "type") ? jstr(s, "type") : "";
	int optional_old = json_is_true(jget(rule, "optionalOldSelf"));
	sk_cel_program *p = text && *text ? program(text) : NULL;
	sk_cel_vars vars = {.self = v, .self_schema = s, .old_schema = s, .budget = &w->budget};
	sk_cel_result r;
	cleanup_free char *where = NULL, *detail = NULL, *rs = NULL;

	if (!p)
		return;

	if (sk_cel_uses_old_self(p)) {
		if (!old && !optional_old)
			return; /* a transition rule needs a correlated old value */
		vars.old_self = old;
		vars.optional_old_self = optional_old;
	}
	if (w->budget <= 0) {
		sk__vinvalid_str(w->e, shown(path), type,
				 "validation failed due to running out of cost budget, no further validation rules "
				 "will be run");
		w->stop = 1;
		return;
	}
	switch (sk_cel_eval(p, &vars, &r)) {
	case SK_CEL_BOOL:
		if (r.b)
			return;
		break;
	case SK_CEL_COST:
		w->stop = 1;
		rs = rule_string(rule);
		if (w->budget <= 0) {
			sk__vinvalid_str(w->e, shown(path), type,
					 "validation failed due to running out of cost budget, no further validation "
					 "rules will be run");
		} else {
			detail = xasprintf("'operation cancelled: actual cost limit exceeded': no further validation "
					   "rules will be run due to call cost exceeds limit for rule: %s",
					   rs);
			sk__vinvalid_str(w->e, shown(path), type, detail);
		}
		return;
	case SK_CEL_ERROR:
		rs = rule_string(rule);
		if (!strncmp(r.text, "no such overload", 16))
			detail = xasprintf("'%s': call arguments did not match a supported operator, function or macro "
					   "signature for rule: %s",
					   r.text, rs);
		else
			detail = xasprintf("%s evaluating rule: %s", r.text, rs);
		sk__vinvalid_str(w->e, shown(path), type, detail);
		sk_cel_result_release(&r);
		return;
	default:
		/* a rule that is no bool (the type checker refuses these upstream) */
		rs = rule_string(rule);
		detail = xasprintf("'no such overload': call arguments did not match a supported operator, function or "
				   "macro signature for rule: %s",
				   rs);
		sk__vinvalid_str(w->e, shown(path), type, detail);
		sk_cel_result_release(&r);
		return;
	}
	sk_cel_result_release(&r);
	where = jstr(rule, "fieldPath") && *jstr(rule, "fieldPath") ? with_field_path(path, jstr(rule, "fieldPath"))
								    : xstrdup(path);
	{
		char *stop_msg = NULL;

		detail = eval_message(w, rule, &vars, &stop_msg);
		if (stop_msg) {
			sk__vinvalid_str(w->e, shown(where), type, stop_msg);
			free(stop_msg);
			return;
		}
	}
	if (!detail)
		detail = rule_message(rule);
	{
		size_t before = json_array_size(w->e->causes);

		rule_error(w->e, shown(where), type, detail, jstr(rule, "reason"));
		/* ratcheting: a rule without oldSelf failing on an unchanged value
		 * lets it pass, with the error as a warning */
		if (w->ratcheting && !sk_cel_uses_old_self(p) && ratchet && json_array_size(w->e->causes) > before)
			json_object_set_new(json_array_get(w->e->causes, before), "warning", json_true());
	}
}

/* The item of old (a list-type=map list) with the keys of item, or NULL. */
static json_t *map_list_match(json_t *s, json_t *old, json_t *item)
{
	json_t *keys = jget(s, "x-kubernetes-list-map-keys"), *o, *k;
	size_t i, j;

	if (!json_is_array(old) || !json_is_object(item))
		return NULL;
	json_array_foreach(old, i, o) {
		int same = json_is_object(o);

		json_array_foreach(keys, j, k) {
			const char *key = json_string_value(k);
			json_t *a = key ? jget(item, key) : NULL, *b = key ? jget(o, key) : NULL;

			if (!key || !(a ? b && json_equal(a, b) : !b))
				same = 0;
		}
		if (same)
			return o;
	}
	return NULL;
}

static void walk_node(struct walk *w, json_t *s, json_t *v, json_t *old, const char *path, int parent_ratchet);

static int set_has(json_t *old, json_t *x)
{
	size_t i;
	json_t *o;

	json_array_foreach(old, i, o)
		if (json_equal(o, x))
			return 1;
	return 0;
}

static void walk_children(struct walk *w, json_t *s, json_t *v, json_t *old, const char *path, int ratchet)
{
	json_t *x;
	const char *k;
	size_t i;

	if (json_is_object(v)) {
		json_t *props = jget(s, "properties"), *ap = jget(s, "additionalProperties");
		int correlatable = !jstr(s, "x-kubernetes-map-type") ||
				   strcmp(jstr(s, "x-kubernetes-map-type"), "atomic");

		json_object_foreach(v, k, x) {
			json_t *ps = jget(props, k), *ox = correlatable && json_is_object(old) ? jget(old, k) : NULL;

			if (w->stop)
				return;
			if (json_is_object(ps)) {
				cleanup_free char *p = sk__vchild(path, k);

				walk_node(w, ps, x, ox, p, ratchet);
			} else if (json_is_object(ap)) {
				cleanup_free char *p = sk__vkey(path, k);

				walk_node(w, ap, x, ox, p, ratchet);
			}
		}
	} else if (json_is_array(v) && json_is_object(jget(s, "items"))) {
		const char *lt = jstr(s, "x-kubernetes-list-type");
		int is_map = lt && !strcmp(lt, "map"), is_set = lt && !strcmp(lt, "set");

		json_array_foreach(v, i, x) {
			cleanup_free char *p = sk__vindex(path, i);

			if (w->stop)
				return;
			/* set items correlate by value for ratcheting only (not for oldSelf) */
			walk_node(w, jget(s, "items"), x, is_map ? map_list_match(s, old, x) : NULL, p,
				  is_set ? set_has(old, x) : ratchet);
		}
	}
}

static void walk_node(struct walk *w, json_t *s, json_t *v, json_t *old, const char *path, int parent_ratchet)
{
	json_t *rules = jget(s, "x-kubernetes-validations"), *rule, *sub;
	int ratchet = old ? json_equal(v, old) : parent_ratchet;
	size_t i, j;

	if (!json_is_object(s) || !v || json_is_null(v) || w->stop)
		return;
	json_array_foreach(rules, i, rule) {
		if (w->stop)
			return;
		eval_rule(w, rule, s, v, old, path, ratchet);
	}
	/* rules under allOf apply to the same value (their types are the node's) */
	json_array_foreach(jget(s, "allOf"), j, sub) {
		json_array_foreach(jget(sub, "x-kubernetes-validations"), i, rule) {
			if (w->stop)
				return;
			eval_rule(w, rule, s, v, old, path, 0);
		}
	}
	walk_children(w, s, v, old, path, ratchet);
}

static int has_rules(json_t *v)
{
	const char *k;
	json_t *c;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			if (!strcmp(k, "x-kubernetes-validations") && json_array_size(c))
				return 1;
			if (has_rules(c))
				return 1;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, c)
			if (has_rules(c))
				return 1;
	}
	return 0;
}

/* A type error makes the rules unsafe to run (upstream's hasBlockingErr). */
static int blocking(json_t *causes)
{
	size_t i;
	json_t *c;

	json_array_foreach(causes, i, c) {
		const char *m = json_string_value(json_object_get(c, "message"));

		if (m && strstr(m, " must be of type "))
			return 1;
	}
	return 0;
}

void sk_crschema_validate_rules(json_t *schema, json_t *obj, json_t *old, json_t *causes)
{
	struct sk__verr e = {causes};
	struct walk w = {.e = &e, .budget = SK_CEL_RUNTIME_BUDGET, .ratcheting = 1};

	if (!json_is_object(schema))
		return;
	if (blocking(causes)) {
		if (has_rules(schema))
			sk__vinvalid(&e, "<nil>", json_null(),
				     "some validation rules were not checked because the object was invalid; correct "
				     "the existing errors to complete validation");
		return;
	}
	/* the walk follows the object: its cost is the object's size, not the schema's */
	walk_node(&w, schema, obj, old, "", 0);
}

/* ---- the CRD's checks ---- */

void sk__crschema_check_values(struct sk__verr *e, json_t *s, const char *path)
{
	json_t *d = jget(s, "default"), *x;
	size_t i;

	if (!has_rules(s))
		return;
	if (d) {
		/* oldSelf is the default itself, as upstream's ValidateDefaults */
		struct walk w = {.e = e, .budget = SK_CEL_RUNTIME_BUDGET};
		cleanup_free char *p = xasprintf("%s.default", path);

		walk_node(&w, s, d, d, p, 0);
	}
	json_array_foreach(jget(s, "enum"), i, x) {
		struct walk w = {.e = e, .budget = SK_CEL_RUNTIME_BUDGET};
		cleanup_free char *p = xasprintf("%s.enum[%zu]", path, i);

		walk_node(&w, s, x, NULL, p, 0);
	}
}

/* Go's %#v of the rule (apiextensions.ValidationRule), the value of
 * upstream's compilation errors. Caller frees. */
static char *rule_repr(json_t *rule)
{
	cleanup_free char *r = sk__vquote(jstr(rule, "rule") ? jstr(rule, "rule") : "");
	cleanup_free char *m = sk__vquote(jstr(rule, "message") ? jstr(rule, "message") : "");
	cleanup_free char *me = sk__vquote(jstr(rule, "messageExpression") ? jstr(rule, "messageExpression") : "");
	cleanup_free char *fp = sk__vquote(jstr(rule, "fieldPath") ? jstr(rule, "fieldPath") : "");

	return xasprintf(
		"apiextensions.ValidationRule{Rule:%s, Message:%s, MessageExpression:%s, "
		"Reason:(*apiextensions.FieldValueErrorReason)(%s), FieldPath:%s, OptionalOldSelf:(*bool)(%s)}",
		r, m, me, jget(rule, "reason") ? "0xc000000000" : "nil", fp,
		jget(rule, "optionalOldSelf") ? "0xc000000000" : "nil");
}

static void add_invalid_repr(struct sk__verr *e, const char *field, const char *repr, const char *detail)
{
	cleanup_free char *msg = xasprintf("%s: Invalid value: %s: %s", field, repr, detail);
	json_t *c = json_object();

	json_object_set_new(c, "reason", json_string("FieldValueInvalid"));
	json_object_set_new(c, "message", json_string(msg));
	json_object_set_new(c, "field", json_string(field));
	json_array_append_new(e->causes, c);
}

static int blank(const char *s)
{
	for (; s && *s; s++)
		if (!strchr(" \t\n\r\v\f", *s))
			return 0;
	return 1;
}

static int has_newlines(const char *s) { return s && strpbrk(s, "\n\r") != NULL; }

/* A token of a rule's fieldPath: '.', '[', ']', a single-quoted string or
 * a name; its length. */
static size_t path_token(const char *p)
{
	size_t i;

	if (*p == '.' || *p == '[' || *p == ']')
		return 1;
	if (*p == '\'') {
		for (i = 1; p[i]; i++)
			if (p[i] == '\'' && p[i - 1] != '\\')
				return i + 1;
		return i;
	}
	return strcspn(p, ".[]");
}

/* cel.ValidFieldPath: NULL when path names a field under s, else why. */
static const char *field_path_error(json_t *s, const char *path, char *buf, size_t bufsz)
{
	const char *p = path;

	while (*p) {
		size_t n = path_token(p);
		int bracket = *p == '[';
		char name[256];

		if (*p != '.' && !bracket) {
			snprintf(buf, bufsz, "expected [ or . but got: %.*s", (int)n, p);
			return buf;
		}
		p += n;
		if (!*p)
			return "unexpected end of JSON path";
		n = path_token(p);
		if (bracket) {
			if (n < 2 || *p != '\'' || p[n - 1] != '\'') {
				snprintf(buf, bufsz, "expected single quoted string but got %.*s", (int)n, p);
				return buf;
			}
			snprintf(name, sizeof(name), "%.*s", (int)(n - 2), p + 1);
		} else {
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
		}
		if (json_is_object(jget(s, "properties")))
			s = jget(jget(s, "properties"), name);
		else if (json_is_object(jget(s, "additionalProperties")))
			s = jget(s, "additionalProperties");
		else
			s = NULL;
		if (!json_is_object(s))
			return "does not refer to a valid field";
		p += n;
		if (bracket) {
			if (!*p)
				return "unexpected end of JSON path";
			if (*p != ']') {
				snprintf(buf, bufsz, "expected ] but got %.*s", (int)path_token(p), p);
				return buf;
			}
			p++;
		}
	}
	return NULL;
}

/* The checks of upstream's CRD validation on one rule, in its order;
 * whether the rule is fit to compile. */
static int check_rule_fields(struct sk__verr *e, json_t *s, json_t *rule, const char *base)
{
	/* supportedValidationReason.List(): sorted */
	static const char *const reasons[] = {"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid",
					      "FieldValueRequired", NULL};
	const char *text = jstr(rule, "rule"), *msg = jstr(rule, "message"), *mexpr = jstr(rule, "messageExpression");
	const char *reason = jstr(rule, "reason"), *fp = jstr(rule, "fieldPath");
	size_t before = json_array_size(e->causes);
	char fbuf[512];

	if (blank(text)) {
		snprintf(fbuf, sizeof(fbuf), "%s.rule", base);
		sk__vrequired(e, fbuf, "rule is not specified");
	} else if (msg && *msg && blank(msg)) {
		snprintf(fbuf, sizeof(fbuf), "%s.message", base);
		sk__vinvalid_str(e, fbuf, msg, "message must be non-empty if specified");
	} else if (msg && strlen(msg) > 2048) {
		cleanup_free char *head = xasprintf("%.10s...", msg);

		snprintf(fbuf, sizeof(fbuf), "%s.message", base);
		sk__vinvalid_str(e, fbuf, head, "message must have a maximum length of 2048 characters");
	} else if (has_newlines(msg) && !blank(msg)) {
		snprintf(fbuf, sizeof(fbuf), "%s.message", base);
		sk__vinvalid_str(e, fbuf, msg, "message must not contain line breaks");
	} else if (has_newlines(text) && blank(msg)) {
		snprintf(fbuf, sizeof(fbuf), "%s.message", base);
		sk__vrequired(e, fbuf, "message must be specified if rule contains line breaks");
	}
	if (mexpr && *mexpr && blank(mexpr)) {
		snprintf(fbuf, sizeof(fbuf), "%s.messageExpression", base);
		sk__vrequired(e, fbuf, "messageExpression must be non-empty if specified");
	}
	if (reason) {
		int ok = 0;

		for (int k = 0; reasons[k]; k++)
			ok |= !strcmp(reason, reasons[k]);
		if (!ok) {
			snprintf(fbuf, sizeof(fbuf), "%s.reason", base);
			sk__vnot_supported(e, fbuf, jget(rule, "reason"), reasons);
		}
	}
	if (fp && *fp) {
		char why[300];
		const char *bad;

		snprintf(fbuf, sizeof(fbuf), "%s.fieldPath", base);
		if (blank(fp))
			sk__vinvalid_str(e, fbuf, fp, "fieldPath must be non-empty if specified");
		if (has_newlines(fp))
			sk__vinvalid_str(e, fbuf, fp, "fieldPath must not contain line breaks");
		if ((bad = field_path_error(s, fp, why, sizeof(why)))) {
			cleanup_free char *d = xasprintf("fieldPath must be a valid path: %s", bad);

			sk__vinvalid_str(e, fbuf, fp, d);
		}
	}
	/* CEL is compiled only over a schema level without errors, as upstream */
	return json_array_size(e->causes) == before;
}

/* Upstream's StaticEstimatedCostLimit of one rule. */
#define ESTIMATED_COST_LIMIT 10000000.0

static void check_rule(struct sk__verr *e, json_t *s, json_t *rule, const char *base, const char *uncorrelatable,
		       double card)
{
	const char *text = jstr(rule, "rule"), *mexpr = jstr(rule, "messageExpression");
	cleanup_free char *f_rule = xasprintf("%s.rule", base);
	cleanup_free char *f_mexpr = xasprintf("%s.messageExpression", base);
	char *err = NULL;
	sk_cel_program *p;

	if (!check_rule_fields(e, s, rule, base))
		return;
	p = sk_cel_compile(text, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, s, &err);
	if (!p) {
		cleanup_free char *repr = rule_repr(rule);
		cleanup_free char *detail = xasprintf("compilation failed: %s", err);

		add_invalid_repr(e, f_rule, repr, detail);
		free(err);
	} else {
		const char *ty = sk_cel_result_type(p);

		if (strcmp(ty, "bool") && strcmp(ty, "dyn")) {
			cleanup_free char *repr = rule_repr(rule);

			add_invalid_repr(e, f_rule, repr, "cel expression must evaluate to a bool");
		}
		/* only a rule surely past 100 times the limit is refused: skiff's estimate is a
		 * lower bound of upstream's (the sizes of the lists comprehensions run over) */
		if (sk_cel_cost_lower_bound(p) * card > 100 * ESTIMATED_COST_LIMIT)
			sk__vforbidden(
				e, f_rule,
				"estimated rule cost exceeds budget by factor of more than 100x (try simplifying the "
				"rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
				"strings are declared)");
		if (sk_cel_uses_old_self(p) && uncorrelatable) {
			cleanup_free char *d = xasprintf(
				"oldSelf cannot be used on the uncorrelatable portion of the schema within %s",
				uncorrelatable);

			sk__vinvalid_str(e, f_rule, text, d);
		}
		if (!sk_cel_uses_old_self(p) && json_is_true(jget(rule, "optionalOldSelf"))) {
			cleanup_free char *f = xasprintf("%s.optionalOldSelf", base);

			sk__vinvalid(e, f, jget(rule, "optionalOldSelf"),
				     "may not be set if oldSelf is not used in rule");
		}
		sk_cel_program_free(p);
	}
	if (mexpr && !blank(mexpr)) {
		p = sk_cel_compile(mexpr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, s, &err);
		if (!p) {
			cleanup_free char *repr = rule_repr(rule);
			cleanup_free char *detail = xasprintf("messageExpression compilation failed: %s", err);

			add_invalid_repr(e, f_mexpr, repr, detail);
			free(err);
		} else {
			const char *ty = sk_cel_result_type(p);

			if (strcmp(ty, "string") && strcmp(ty, "dyn")) {
				cleanup_free char *repr = rule_repr(rule);

				add_invalid_repr(e, f_mexpr, repr, "must evaluate to a string");
			}
			sk_cel_program_free(p);
		}
	}
}

/* The rules of rules_of (s itself, or one of its allOf schemas, which
 * apply to s's values and are typed by s). */
static void check_rule_list(struct sk__verr *e, json_t *s, json_t *rules_of, const char *path,
			    const char *uncorrelatable, double card)
{
	json_t *rules = jget(rules_of, "x-kubernetes-validations"), *rule;
	size_t i;

	if (!rules)
		return;
	if (!json_is_array(rules)) {
		cleanup_free char *f = xasprintf("%s.x-kubernetes-validations", path);

		sk__vinvalid(e, f, rules, "must be a list of validation rules");
		return;
	}
	json_array_foreach(rules, i, rule) {
		cleanup_free char *base = xasprintf("%s.x-kubernetes-validations[%zu]", path, i);

		if (!json_is_object(rule)) {
			sk__vinvalid(e, base, rule, "must be a validation rule");
			continue;
		}
		check_rule(e, s, rule, base, uncorrelatable, card);
	}
}

void sk__crschema_check_rules(struct sk__verr *e, json_t *s, const char *path, int root, const char *uncorrelatable,
			      double card)
{
	cleanup_json json_t *typed = NULL;
	json_t *sub;
	size_t i;

	if (root) {
		/* the root's type has apiVersion, kind and metadata (WithTypeAndObjectMeta) */
		typed = json_copy(s);
		json_object_set_new(typed, "x-kubernetes-embedded-resource", json_true());
		s = typed;
	}
	check_rule_list(e, s, s, path, uncorrelatable, card);
	json_array_foreach(jget(s, "allOf"), i, sub) {
		cleanup_free char *p = xasprintf("%s.allOf[%zu]", path, i);

		check_rule_list(e, s, sub, p, uncorrelatable, card);
	}
}
