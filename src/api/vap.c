/* The admission plugin ValidatingAdmissionPolicy (upstream's
 * admission/plugin/policy/validating: dispatcher.go, validator.go and
 * generic's CollectParams) and the type check a policy's status carries
 * (typechecking.go).
 *
 * Each write is matched against every stored policy (matchConstraints:
 * resourceRules with resourceNames, excludeResourceRules, namespaceSelector,
 * objectSelector) and, for a matching policy, against each of its bindings
 * (matchResources); for each binding's params (paramKind and paramRef, read
 * from the store) the policy's matchConditions, validations and
 * auditAnnotations are evaluated in CEL with object, oldObject, request,
 * params, namespaceObject, variables and authorizer. A failed validation
 * is, by the binding's validationActions, the request's refusal (the first
 * one, upstream's message and reason), a Warning header, or the audit
 * annotation validation.policy.admission.k8s.io/validation_failure; an
 * expression that cannot be evaluated follows the policy's failurePolicy.
 *
 * The policies and bindings are read and compiled once, and again after a
 * write to either kind through this server or a second later (writes
 * through another server on the same store), as the webhooks' (webhook.c).
 *
 * The type check runs when a policy is written (begin_write): each
 * validation's expression and messageExpression is compiled with object and
 * oldObject typed by the schema of every kind its resourceRules name
 * exactly (a built-in kind's schema table, a custom kind's
 * openAPIV3Schema), and the compiler's issues become
 * status.typeChecking.expressionWarnings; status.observedGeneration is the
 * policy's generation. Upstream's controller writes the same status
 * shortly after the write. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/admission.h"
#include "api/cel/cel.h"
#include "api/celauthz.h"
#include "api/schema.h"
#include "api/webhook.h"
#include "kube/selector.h"
#include "store/store.h"
#include "util/json.h"
#include "util/util.h"

#define RELOAD_MS 1000
#define POLICY_VARS (SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER | SK_CEL_VAR_POLICY)
/* upstream's maxAuditAnnotationValueLength and MaxEvaluatedMessageExpressionSizeBytes */
#define MAX_ANNOTATION_VALUE (10 * 1024)
#define MAX_MESSAGE (5 * 1024)

/* ---- the compiled policies ---- */

typedef struct expr {
	const char *text;  /* borrowed from the policy */
	sk_cel_program *p; /* NULL: *err says why */
	char *err;
} expr;

typedef struct policy {
	json_t *obj; /* the stored policy */
	const char *name;
	size_t nval, ncond, nvars, naudit;
	expr *val, *msg, *cond, *vars, *audit; /* msg[i]: validations[i]'s messageExpression (text NULL: none) */
	const char **var_names;
	const sk_cel_program **var_progs;
} policy;

typedef struct snapshot {
	int refs;
	size_t n;
	policy *v;
	json_t *bindings; /* the stored bindings */
} snapshot;

static void compile(expr *e, const char *text, const sk_cel_decls *d)
{
	e->text = text;
	e->p = text ? sk_cel_compile_decls(text, POLICY_VARS, d, &e->err) : NULL;
}

static void policy_init(policy *p, json_t *obj)
{
	json_t *spec = json_object_get(obj, "spec"), *v;
	sk_cel_decls d = {0};
	size_t i;

	p->obj = json_incref(obj);
	p->name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	p->nvars = json_array_size(json_object_get(spec, "variables"));
	p->var_names = xzalloc((p->nvars + 1) * sizeof(*p->var_names));
	p->var_progs = xzalloc((p->nvars + 1) * sizeof(*p->var_progs));
	p->vars = xzalloc((p->nvars + 1) * sizeof(*p->vars));
	json_array_foreach(json_object_get(spec, "variables"), i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		p->var_names[i] = n ? n : "";
	}
	d.variables = p->var_names;
	json_array_foreach(json_object_get(spec, "variables"), i, v) {
		d.nvariables = i;
		compile(&p->vars[i], json_string_value(json_object_get(v, "expression")), &d);
		p->var_progs[i] = p->vars[i].p;
	}
	d.nvariables = p->nvars;
	p->nval = json_array_size(json_object_get(spec, "validations"));
	p->val = xzalloc((p->nval + 1) * sizeof(*p->val));
	p->msg = xzalloc((p->nval + 1) * sizeof(*p->msg));
	json_array_foreach(json_object_get(spec, "validations"), i, v) {
		const char *m = json_string_value(json_object_get(v, "messageExpression"));

		compile(&p->val[i], json_string_value(json_object_get(v, "expression")), &d);
		compile(&p->msg[i], m && *m ? m : NULL, &d);
	}
	p->ncond = json_array_size(json_object_get(spec, "matchConditions"));
	p->cond = xzalloc((p->ncond + 1) * sizeof(*p->cond));
	json_array_foreach(json_object_get(spec, "matchConditions"), i, v)
		compile(&p->cond[i], json_string_value(json_object_get(v, "expression")), &d);
	p->naudit = json_array_size(json_object_get(spec, "auditAnnotations"));
	p->audit = xzalloc((p->naudit + 1) * sizeof(*p->audit));
	json_array_foreach(json_object_get(spec, "auditAnnotations"), i, v)
		compile(&p->audit[i], json_string_value(json_object_get(v, "valueExpression")), &d);
}

static void exprs_free(expr *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sk_cel_program_free(e[i].p);
		free(e[i].err);
	}
	free(e);
}

static void policy_release(policy *p)
{
	exprs_free(p->val, p->nval);
	exprs_free(p->msg, p->nval);
	exprs_free(p->cond, p->ncond);
	exprs_free(p->vars, p->nvars);
	exprs_free(p->audit, p->naudit);
	free(p->var_names);
	free(p->var_progs);
	json_decref(p->obj);
}

static void snapshot_put(snapshot *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (size_t i = 0; i < s->n; i++)
		policy_release(&s->v[i]);
	free(s->v);
	json_decref(s->bindings);
	free(s);
}

static json_t *load(sk_api *api, const char *plural)
{
	cleanup_free char *prefix = xasprintf("/registry/%s/", plural);
	sk_error_t err = {0};
	json_t *out = sk__stored_list(api, prefix, &err);

	if (!out) {
		sk_warn("vap", "cannot list %s: %s", plural, err.msg);
		return json_array();
	}
	return out;
}

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long generation = 1; /* atomic: bumped by every write to the kinds */
static struct {
	sk_api *api;
	unsigned long gen;
	int64_t loaded_ms;
	snapshot *snap;
} cache;

void sk__vap_written(sk_api *api, const sk_api_resource *r)
{
	(void)api;
	(void)r;
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
}

static snapshot *snapshot_get(sk_api *api)
{
	unsigned long gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
	struct timespec ts;
	snapshot *s;
	int64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	pthread_mutex_lock(&cache_mu);
	if (cache.api != api || cache.gen != gen || now - cache.loaded_ms > RELOAD_MS || !cache.snap) {
		cleanup_json json_t *pols = load(api, "validatingadmissionpolicies");
		json_t *o;
		size_t i;

		snapshot_put(cache.snap);
		s = xzalloc(sizeof(*s));
		s->refs = 1;
		s->v = xzalloc((json_array_size(pols) + 1) * sizeof(*s->v));
		json_array_foreach(pols, i, o)
			policy_init(&s->v[s->n++], o);
		s->bindings = json_array_size(pols) ? load(api, "validatingadmissionpolicybindings") : json_array();
		cache.snap = s;
		cache.api = api;
		cache.gen = gen;
		cache.loaded_ms = now;
	}
	s = cache.snap;
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&cache_mu);
	return s;
}

/* ---- matching ---- */

/* Whether one of rules (NamedRuleWithOperations) matches a. */
static int rules_match(json_t *rules, sk_adm_request *a, const sk_webhook_attrs *at)
{
	json_t *rule;
	size_t i;

	json_array_foreach(rules, i, rule) {
		json_t *names = json_object_get(rule, "resourceNames");

		if (json_array_size(names) && !sk_json_array_has_string(names, a->name ? a->name : ""))
			continue;
		if (sk__webhook_rule_matches(rule, at))
			return 1;
	}
	return 0;
}

/* upstream's matching.Matches over a MatchResources: 1, 0, -1 with err. An
 * empty resourceRules matches every resource when rules_optional (a
 * binding's). */
static int resources_match(sk_api *api, json_t *m, sk_adm_request *a, const sk_webhook_attrs *at, int rules_optional,
			   sk_error_t *err)
{
	json_t *rules = json_object_get(m, "resourceRules");

	if (rules_match(json_object_get(m, "excludeResourceRules"), a, at))
		return 0;
	if (!(rules_optional && !json_array_size(rules)) && !rules_match(rules, a, at))
		return 0;
	return sk__adm_selectors_match(api, m, a, at, err);
}

/* ---- evaluation ---- */

/* What is the same for every expression of one request. */
typedef struct req_ctx {
	sk_api *api;
	sk_adm_request *a;
	json_t *review; /* the AdmissionReview: its request is CEL's request */
	json_t *ns_obj; /* namespaceObject, or NULL */
	sk_cel_authz_ctx actx;
	sk_cel_authz_check req;
} req_ctx;

/* Evaluates e: its kind, the result in *r (released by the caller). */
static enum sk_cel_kind eval(req_ctx *c, const policy *p, const expr *e, json_t *params, int64_t *budget,
			     sk_cel_result *r)
{
	json_t *rq = json_object_get(c->review, "request");
	sk_cel_vars vars = {.budget = budget,
			    .authorize = sk__cel_authorize,
			    .authorize_ud = &c->actx,
			    .request = &c->req,
			    .adm_object = json_object_get(rq, "object"),
			    .adm_old_object = json_object_get(rq, "oldObject"),
			    .adm_request = rq,
			    .adm_params = params,
			    .adm_namespace = c->ns_obj,
			    .var_progs = p->var_progs,
			    .var_names = p->var_names,
			    .nvars = p->nvars};

	memset(r, 0, sizeof(*r));
	if (!e->p) {
		r->kind = SK_CEL_ERROR;
		r->text = xasprintf("compilation error: %s", e->err ? e->err : "no expression");
		return r->kind;
	}
	return sk_cel_eval(e->p, &vars, r);
}

/* The text of an evaluation that went wrong (upstream's "expression '…'
 * resulted in error: …"). */
static char *eval_error(const expr *e, const sk_cel_result *r)
{
	if (r->kind == SK_CEL_COST)
		return xstrdup("validation failed due to running out of cost budget, no further validation rules will "
			       "be run");
	if (!e->p)
		return xstrdup(r->text);
	return xasprintf("expression '%s' resulted in error: %s", e->text,
			 r->kind == SK_CEL_ERROR && r->text ? r->text : "no such overload");
}

typedef struct decision {
	const char *policy, *binding; /* borrowed */
	char *message;
	const char *reason; /* NULL: Invalid */
} decision;

typedef struct outcome {
	decision deny; /* the first denial: message NULL when none */
	json_t *audit; /* {key: [values]} of the policy being evaluated */
} outcome;

static void deny(outcome *o, const policy *p, json_t *binding, char *message, const char *reason)
{
	if (o->deny.message) {
		free(message);
		return;
	}
	o->deny.policy = p->name;
	o->deny.binding = binding ? json_string_value(json_object_get(json_object_get(binding, "metadata"), "name"))
				  : NULL;
	o->deny.message = message;
	o->deny.reason = reason;
}

static int fail_open(const policy *p)
{
	const char *fp = json_string_value(json_object_get(json_object_get(p->obj, "spec"), "failurePolicy"));

	return fp && !strcmp(fp, "Ignore");
}

/* A configuration error (upstream's addConfigError). */
static void config_error(outcome *o, const policy *p, json_t *binding, const char *what)
{
	if (fail_open(p))
		return;
	deny(o, p, binding, xasprintf("failed to configure %s: %s", binding ? "binding" : "policy", what), NULL);
}

static int has_action(json_t *binding, const char *action)
{
	return sk_json_array_has_string(json_object_get(json_object_get(binding, "spec"), "validationActions"), action);
}

static void publish_failure(req_ctx *c, json_t *binding, size_t index, const char *message)
{
	json_t *spec = json_object_get(binding, "spec");
	cleanup_json json_t *v = json_pack(
		"[{s:s, s:s, s:s, s:I, s:O}]", "message", message, "policy",
		json_string_value(json_object_get(spec, "policyName"))
			? json_string_value(json_object_get(spec, "policyName"))
			: "",
		"binding", json_string_value(json_object_get(json_object_get(binding, "metadata"), "name")),
		"expressionIndex", (json_int_t)index, "validationActions", json_object_get(spec, "validationActions"));
	cleanup_free char *s = json_dumps(v, JSON_COMPACT);

	if (c->a->annotations && s)
		json_object_set_new(c->a->annotations, "validation.policy.admission.k8s.io/validation_failure",
				    json_string(s));
}

/* A failed validation (or an error under failurePolicy Fail), as the
 * binding's validationActions say. */
static void act(req_ctx *c, outcome *o, const policy *p, json_t *binding, size_t index, char *message,
		const char *reason)
{
	if (has_action(binding, "Audit"))
		publish_failure(c, binding, index, message);
	if (has_action(binding, "Warn") && c->a->resp) {
		cleanup_free char *w = xasprintf(
			"Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p->name,
			json_string_value(json_object_get(json_object_get(binding, "metadata"), "name")), message);

		sk__add_warning(c->a->resp, w);
	}
	if (has_action(binding, "Deny"))
		deny(o, p, binding, message, reason);
	else
		free(message);
}

static char *trim_dup(const char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* One policy, one binding, one param (upstream's validator.Validate). */
static void validate_one(req_ctx *c, outcome *o, const policy *p, json_t *binding, json_t *params)
{
	json_t *spec = json_object_get(p->obj, "spec"), *v;
	int64_t budget = SK_CEL_RUNTIME_BUDGET;
	int err_deny = !fail_open(p);
	size_t i;

	/* matchConditions: a false one skips the policy, an error follows failurePolicy */
	{
		char *why = NULL;
		int matched = 1;

		for (i = 0; i < p->ncond && matched; i++) {
			sk_cel_result r;

			switch (eval(c, p, &p->cond[i], params, &budget, &r)) {
			case SK_CEL_BOOL:
				matched = r.b;
				break;
			default:
				if (!why)
					why = eval_error(&p->cond[i], &r);
			}
			sk_cel_result_release(&r);
		}
		if (!matched) {
			free(why);
			return;
		}
		if (why) {
			if (err_deny)
				act(c, o, p, binding, 0, why, NULL);
			else
				free(why);
			return;
		}
	}
	json_array_foreach(json_object_get(spec, "validations"), i, v) {
		const char *reason = json_string_value(json_object_get(v, "reason"));
		sk_cel_result r;
		char *message = NULL;

		if (i >= p->nval)
			break;
		switch (eval(c, p, &p->val[i], params, &budget, &r)) {
		case SK_CEL_BOOL:
			if (r.b)
				break;
			if (p->msg[i].text) {
				sk_cel_result m;

				if (eval(c, p, &p->msg[i], params, &budget, &m) == SK_CEL_STRING) {
					char *t = trim_dup(m.text);

					if (*t && strlen(t) <= MAX_MESSAGE && !strchr(t, '\n'))
						message = t;
					else
						free(t);
				}
				sk_cel_result_release(&m);
			}
			if (!message && json_string_length(json_object_get(v, "message"))) {
				message = trim_dup(json_string_value(json_object_get(v, "message")));
				if (!*message) {
					free(message);
					message = NULL;
				}
			}
			if (!message) {
				cleanup_free char *t = trim_dup(p->val[i].text ? p->val[i].text : "");

				message = xasprintf("failed expression: %s", t);
			}
			act(c, o, p, binding, i, message, reason && *reason ? reason : NULL);
			break;
		default:
			if (err_deny)
				act(c, o, p, binding, i, eval_error(&p->val[i], &r), NULL);
		}
		sk_cel_result_release(&r);
	}
	json_array_foreach(json_object_get(spec, "auditAnnotations"), i, v) {
		const char *key = json_string_value(json_object_get(v, "key"));
		sk_cel_result r;

		if (i >= p->naudit || !key)
			break;
		switch (eval(c, p, &p->audit[i], params, &budget, &r)) {
		case SK_CEL_STRING: {
			cleanup_free char *t = trim_dup(r.text);
			json_t *vals;

			if (!*t)
				break;
			if (strlen(t) > MAX_ANNOTATION_VALUE)
				t[MAX_ANNOTATION_VALUE] = 0;
			if (!(vals = json_object_get(o->audit, key)))
				json_object_set_new(o->audit, key, vals = json_array());
			if (!sk_json_array_has_string(vals, t))
				json_array_append_new(vals, json_string(t));
			break;
		}
		case SK_CEL_OTHER:
			if (r.text && !strcmp(r.text, "null"))
				break;
			if (err_deny)
				deny(o, p, binding,
				     xasprintf("valueExpression '%s' resulted in unsupported return type: %s. Return "
					       "type "
					       "must be either string or null.",
					       p->audit[i].text, "dyn"),
				     NULL);
			break;
		default:
			if (err_deny)
				deny(o, p, binding, eval_error(&p->audit[i], &r), NULL);
		}
		sk_cel_result_release(&r);
	}
}

/* The params of binding for policy p (upstream's CollectParams): a new
 * array (a null element: evaluate without params), or NULL with *why. */
static json_t *collect_params(req_ctx *c, const policy *p, json_t *binding, char **why)
{
	json_t *pk = json_object_get(json_object_get(p->obj, "spec"), "paramKind");
	json_t *pr = json_object_get(json_object_get(binding, "spec"), "paramRef");
	const char *av = json_string_value(json_object_get(pk, "apiVersion"));
	const char *kind = json_string_value(json_object_get(pk, "kind"));
	const char *name = json_string_value(json_object_get(pr, "name"));
	const char *pns = json_string_value(json_object_get(pr, "namespace"));
	const char *pnf = json_string_value(json_object_get(pr, "parameterNotFoundAction"));
	json_t *sel = json_object_get(pr, "selector"), *out;
	const sk_api_resource *r;
	cleanup_free char *group = NULL;
	const char *ns = "";

	if (!json_is_object(pk) || !json_is_object(pr))
		return json_pack("[n]");
	group = av && strchr(av, '/') ? xstrndup(av, (size_t)(strchr(av, '/') - av)) : xstrdup("");
	r = kind ? sk__resource_by_kind(group, kind) : NULL;
	if (!r) {
		*why = xasprintf("paramKind kind `%s, Kind=%s` not known", av ? av : "", kind ? kind : "");
		return NULL;
	}
	if (r->namespaced) {
		ns = pns && *pns ? pns : c->a->ns ? c->a->ns : "";
		if (!*ns) {
			*why = xstrdup("cannot use namespaced paramRef in policy binding that matches cluster-scoped "
				       "resources");
			return NULL;
		}
	} else if (pns && *pns) {
		*why = xstrdup("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
		return NULL;
	}
	out = json_array();
	if (name && *name) {
		cleanup_free char *key = sk__obj_key(r, ns, name);
		sk_error_t err = {0};
		sk_store_kv kv;

		if (sk_store_get(c->api->store, key, &kv, &err) == 0) {
			json_t *o = sk__obj_decode(kv.value, kv.len, kv.mod_rev);

			sk_store_kv_release(&kv);
			if (o) {
				sk__obj_as(r, o);
				json_array_append_new(out, o);
			}
		}
	} else if (json_is_object(sel)) {
		cleanup_free char *prefix = sk__obj_prefix(r, r->namespaced ? ns : NULL);
		cleanup_json json_t *all = NULL;
		sk_kube_label_selector *ls;
		sk_error_t err = {0};
		json_t *o;
		size_t i;

		if (!(ls = sk_kube_label_selector_from_json(sel, &err))) {
			*why = xstrdup(err.msg);
			json_decref(out);
			return NULL;
		}
		all = sk__stored_list(c->api, prefix, &err);
		json_array_foreach(all, i, o) {
			json_t *labels = json_object_get(json_object_get(o, "metadata"), "labels");
			cleanup_json json_t *none = labels ? NULL : json_object();

			if (sk_kube_label_selector_match(ls, labels ? labels : none)) {
				sk__obj_as(r, o);
				json_array_append(out, o);
			}
		}
		sk_kube_label_selector_free(ls);
	}
	if (!json_array_size(out) && pnf && !strcmp(pnf, "Deny")) {
		json_decref(out);
		*why = xstrdup("no params found for policy binding with `Deny` parameterNotFoundAction");
		return NULL;
	}
	return out;
}

static void publish_audit(req_ctx *c, const policy *p, json_t *audit)
{
	const char *key;
	json_t *vals;

	json_object_foreach(audit, key, vals) {
		cleanup_free char *k = xasprintf("%s/%s", p->name, key);
		char *joined = xstrdup("");
		json_t *v;
		size_t i;

		json_array_foreach(vals, i, v) {
			char *next = xasprintf("%s%s%s", joined, i ? ", " : "", json_string_value(v));

			free(joined);
			joined = next;
		}
		if (c->a->annotations)
			json_object_set_new(c->a->annotations, k, json_string(joined));
		free(joined);
	}
}

/* The refusal: upstream's admission.NewForbidden message, with the
 * decision's reason and its code. */
static int refuse(sk_adm_request *a, const decision *d, sk_error_t *err)
{
	static const struct {
		const char *reason;
		int code;
	} codes[] = {{"Unauthorized", 401}, {"Forbidden", 403}, {"Invalid", 422}, {"RequestEntityTooLarge", 413}};
	const char *reason = d->reason ? d->reason : "Invalid";
	cleanup_free char *message =
		d->binding ? xasprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d->policy,
				       d->binding, d->message)
			   : xasprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d->policy, d->message);
	const char *name = a->name && *a->name ? a->name : "";
	cleanup_free char *resource = a->res->group[0] ? xasprintf("%s.%s", a->res->plural, a->res->group)
						       : xstrdup(a->res->plural);
	cleanup_free char *whole = *name ? xasprintf("%s \"%s\" is forbidden: %s", resource, name, message)
					 : xasprintf("%s is forbidden: %s", resource, message);
	cleanup_json json_t *st = NULL;
	cleanup_free char *s = NULL;
	int code = 500;

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(codes[i].reason, reason))
			code = codes[i].code;
	st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:{s:s, s:s, s:[{s:s}]}, s:i}", "kind", "Status", "apiVersion",
		       "v1", "metadata", "status", "Failure", "message", whole, "reason", reason, "details", "name",
		       name, "kind", a->res->plural, "causes", "message", message, "code", code);
	if (a->res->group[0])
		json_object_set_new(json_object_get(st, "details"), "group", json_string(a->res->group));
	s = json_dumps(st, JSON_COMPACT);
	if (s && strlen(s) < sizeof(err->msg))
		return sk_error_set(err, SK_ESTATUS, "%s", s);
	return sk_error_set(err, code == 422 ? SK_EINVALID : SK_EFORBIDDEN, "%s", whole);
}

static int vap_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	snapshot *s;
	req_ctx c = {0};
	outcome o = {0};
	sk_webhook_attrs at;
	int rc = 0;

	/* the policies and bindings themselves are never validated by policies
	 * (upstream's isPolicyResource) */
	if (!a->res || !a->user ||
	    (!strcmp(a->res->group, "admissionregistration.k8s.io") && strstr(a->res->plural, "admissionpolic")))
		return 0;
	s = snapshot_get(api);
	if (!s->n) {
		snapshot_put(s);
		return 0;
	}
	at = (sk_webhook_attrs){sk__adm_op_name(a->op), a->res->group,        a->res->version,
				a->res->plural,         a->sub ? a->sub : "", a->ns ? a->ns : ""};
	c.api = api;
	c.a = a;
	c.actx = (sk_cel_authz_ctx){api, a->user};
	c.req = (sk_cel_authz_check){.resource_request = 1,
				     .group = a->res->group,
				     .resource = a->res->plural,
				     .subresource = a->sub ? a->sub : "",
				     .ns = a->ns ? a->ns : "",
				     .name = a->name ? a->name : "",
				     .field_selector = "",
				     .label_selector = "",
				     .path = "",
				     .verb = sk__adm_verb(a->op)};
	for (size_t i = 0; i < s->n; i++) {
		const policy *p = &s->v[i];
		json_t *mc = json_object_get(json_object_get(p->obj, "spec"), "matchConstraints"), *b;
		sk_error_t merr = {0};
		size_t j;
		int m;

		if (!json_is_object(mc) || !p->name)
			continue;
		/* a selector that cannot be evaluated (the namespace is gone) does not
		 * match: upstream's dispatcher drops DefinitionMatches' error */
		m = resources_match(api, mc, a, &at, 0, &merr);
		if (m <= 0)
			continue;
		if (!c.review) {
			c.review = sk__webhook_review(a, "", "admission.k8s.io/v1");
			if (a->ns && *a->ns && !(!a->res->group[0] && !strcmp(a->res->plural, "namespaces")))
				c.ns_obj = sk__stored_core(api, "namespaces", "", a->ns);
		}
		o.audit = json_object();
		json_array_foreach(s->bindings, j, b) {
			json_t *bspec = json_object_get(b, "spec"), *mr = json_object_get(bspec, "matchResources");
			const char *pn = json_string_value(json_object_get(bspec, "policyName"));
			cleanup_json json_t *params = NULL;
			char *why = NULL;
			json_t *param;
			size_t k;

			if (!pn || strcmp(pn, p->name))
				continue;
			if (json_is_object(mr)) {
				sk_error_t berr = {0};
				int bm = resources_match(api, mr, a, &at, 1, &berr);

				if (bm == 0)
					continue;
				if (bm < 0) {
					config_error(&o, p, b, berr.msg);
					continue;
				}
			}
			if (!(params = collect_params(&c, p, b, &why))) {
				config_error(&o, p, b, why);
				free(why);
				continue;
			}
			json_array_foreach(params, k, param)
				validate_one(&c, &o, p, b, json_is_null(param) ? NULL : param);
		}
		publish_audit(&c, p, o.audit);
		json_decref(o.audit);
		o.audit = NULL;
	}
	if (o.deny.message)
		rc = refuse(a, &o.deny, err);
	free(o.deny.message);
	json_decref(c.review);
	json_decref(c.ns_obj);
	snapshot_put(s);
	return rc;
}

const sk_adm_plugin sk__adm_validating_admission_policy = {
	.name = "ValidatingAdmissionPolicy",
	.validate = vap_validate,
};

/* ---- the type check ---- */

#define MAX_TYPES 10
#define MAX_DEPTH 24

/* A structural schema of a built-in kind's schema table, for the checker. */
static json_t *schema_json(const sk_schema *s, int depth)
{
	json_t *o = json_object(), *props;

	if (!s || depth > MAX_DEPTH) {
		json_object_set_new(o, "x-kubernetes-preserve-unknown-fields", json_true());
		return o;
	}
	switch (s->type) {
	case SK_SCHEMA_STRING:
		json_object_set_new(o, "type", json_string("string"));
		break;
	case SK_SCHEMA_BYTE:
		json_object_set_new(o, "type", json_string("string"));
		json_object_set_new(o, "format", json_string("byte"));
		break;
	case SK_SCHEMA_INT32:
	case SK_SCHEMA_INT64:
		json_object_set_new(o, "type", json_string("integer"));
		break;
	case SK_SCHEMA_BOOLEAN:
		json_object_set_new(o, "type", json_string("boolean"));
		break;
	case SK_SCHEMA_NUMBER:
		json_object_set_new(o, "type", json_string("number"));
		break;
	case SK_SCHEMA_OBJECT:
		json_object_set_new(o, "type", json_string("object"));
		props = json_object();
		for (const sk_schema_field *f = s->fields; f && f->name; f++)
			json_object_set_new(props, f->name, schema_json(f->schema, depth + 1));
		json_object_set_new(o, "properties", props);
		break;
	case SK_SCHEMA_MAP:
		json_object_set_new(o, "type", json_string("object"));
		json_object_set_new(o, "additionalProperties", schema_json(s->items, depth + 1));
		break;
	case SK_SCHEMA_ARRAY:
		json_object_set_new(o, "type", json_string("array"));
		json_object_set_new(o, "items", schema_json(s->items, depth + 1));
		break;
	case SK_SCHEMA_INT_OR_STRING:
	case SK_SCHEMA_QUANTITY:
		json_object_set_new(o, "x-kubernetes-int-or-string", json_true());
		break;
	case SK_SCHEMA_DATE_TIME:
		json_object_set_new(o, "type", json_string("string"));
		json_object_set_new(o, "format", json_string("date-time"));
		break;
	default:
		json_object_set_new(o, "x-kubernetes-preserve-unknown-fields", json_true());
	}
	return o;
}

/* The schema object and oldObject have for kind r: a new reference, or NULL. */
static json_t *kind_schema(const sk_api_resource *r)
{
	json_t *out;

	if (r->custom) {
		cleanup_json json_t *info = sk__kind_custom_spec(r);
		json_t *s = json_object_get(
			json_object_get(json_object_get(json_object_get(info, "version"), "schema"), "openAPIV3Schema"),
			"properties");
		json_t *props;

		if (!json_is_object(s))
			return NULL;
		props = json_deep_copy(s);
		out = json_pack("{s:s, s:o}", "type", "object", "properties", props);
		if (!json_object_get(props, "apiVersion"))
			json_object_set_new(props, "apiVersion", json_pack("{s:s}", "type", "string"));
		if (!json_object_get(props, "kind"))
			json_object_set_new(props, "kind", json_pack("{s:s}", "type", "string"));
		json_object_set_new(
			props, "metadata",
			schema_json(sk_schema_child(sk_schema_for_kind("", "v1", "ConfigMap"), "metadata"), 0));
		return out;
	}
	{
		const sk_schema *s = sk_schema_for_kind(r->group, r->version, r->kind);

		return s ? schema_json(s, 0) : NULL;
	}
}

static int by_gvk(const void *x, const void *y)
{
	const sk_api_resource *a = *(const sk_api_resource *const *)x, *b = *(const sk_api_resource *const *)y;
	int c = strcmp(a->group, b->group);

	if (!c)
		c = strcmp(a->version, b->version);
	return c ? c : strcmp(a->kind, b->kind);
}

/* The kinds the policy's resourceRules name exactly (typechecking.go's
 * typesToCheck: no wildcard group or version; wildcard and subresource
 * resources skipped), sorted by group, version and kind; *n of them. */
static size_t types_to_check(json_t *pol, const sk_api_resource **out)
{
	json_t *rules = json_object_get(json_object_get(json_object_get(pol, "spec"), "matchConstraints"),
					"resourceRules");
	json_t *rule, *g, *v, *res;
	size_t i, j, k, l, n = 0;

	json_array_foreach(rules, i, rule) {
		int wild = 0;

		json_array_foreach(json_object_get(rule, "apiGroups"), j, g)
			wild |= !json_string_value(g) || strchr(json_string_value(g), '*') != NULL;
		json_array_foreach(json_object_get(rule, "apiVersions"), j, v)
			wild |= !json_string_value(v) || strchr(json_string_value(v), '*') != NULL;
		if (wild)
			continue;
		json_array_foreach(json_object_get(rule, "apiGroups"), j, g)
			json_array_foreach(json_object_get(rule, "apiVersions"), k, v)
				json_array_foreach(json_object_get(rule, "resources"), l, res) {
					const char *rs = json_string_value(res);
					const sk_api_resource *r;
					int dup = 0;

					if (!rs || strpbrk(rs, "*/"))
						continue;
					r = sk__resource_find(json_string_value(g), json_string_value(v), rs);
					for (size_t m = 0; r && m < n; m++)
						dup |= out[m] == r;
					if (!r || dup)
						continue;
					out[n++] = r;
					if (n == MAX_TYPES)
						goto done;
				}
	}
done:
	qsort(out, n, sizeof(*out), by_gvk);
	return n;
}

/* What the checker knows for one kind: object's schema and the
 * variables' (compiled in order, each seeing those before it). */
typedef struct kind_env {
	const sk_api_resource *kind;
	json_t *schema;
	sk_cel_program **vars;
	json_t **var_schemas;
} kind_env;

static void kind_env_init(kind_env *k, const sk_api_resource *r, json_t *spec, const char **names, size_t nvars)
{
	sk_cel_decls d = {.variables = names};
	json_t *v;
	size_t i;

	k->kind = r;
	k->schema = kind_schema(r);
	k->vars = xzalloc((nvars + 1) * sizeof(*k->vars));
	k->var_schemas = xzalloc((nvars + 1) * sizeof(*k->var_schemas));
	d.object_schema = k->schema;
	d.variable_schemas = k->var_schemas;
	json_array_foreach(json_object_get(spec, "variables"), i, v) {
		const char *text = json_string_value(json_object_get(v, "expression"));
		char *err = NULL;

		if (i >= nvars)
			break;
		d.nvariables = i;
		k->vars[i] = text && k->schema ? sk_cel_compile_decls(text, POLICY_VARS, &d, &err) : NULL;
		k->var_schemas[i] = k->vars[i] ? sk_cel_result_schema(k->vars[i]) : NULL;
		free(err);
	}
}

static void kind_env_release(kind_env *k, size_t nvars)
{
	for (size_t i = 0; i < nvars; i++)
		sk_cel_program_free(k->vars[i]);
	free(k->vars);
	free(k->var_schemas);
	json_decref(k->schema);
}

/* The checker's issues for one expression against each kind: upstream's
 * TypeCheckingResults text ("apps/v1, Kind=Deployment: ERROR: …\n"), or
 * NULL when it checks. */
static char *check_expression(const char *text, const kind_env *kinds, size_t n, const sk_cel_decls *base)
{
	char *out = NULL;

	for (size_t i = 0; i < n; i++) {
		sk_cel_decls d = *base;
		char *err = NULL;
		sk_cel_program *p;

		if (!kinds[i].schema)
			continue;
		d.object_schema = kinds[i].schema;
		d.variable_schemas = kinds[i].var_schemas;
		p = sk_cel_compile_decls(text, POLICY_VARS, &d, &err);
		if (!p) {
			char *next = xasprintf("%s%s%s/%s, Kind=%s: %s\n", out ? out : "", out ? "\n" : "",
					       kinds[i].kind->group, kinds[i].kind->version, kinds[i].kind->kind,
					       err ? err : "");

			free(out);
			out = next;
		}
		sk_cel_program_free(p);
		free(err);
	}
	return out;
}

json_t *sk__vap_type_check(json_t *pol)
{
	const sk_api_resource *kinds[MAX_TYPES];
	kind_env envs[MAX_TYPES];
	json_t *warnings = json_array(), *v;
	json_t *spec = json_object_get(pol, "spec");
	size_t n = types_to_check(pol, kinds), i, nv = json_array_size(json_object_get(spec, "variables"));
	const char **names = xzalloc((nv + 1) * sizeof(*names));
	sk_cel_decls d = {.variables = names};

	/* by position: variable i's name (or ""), as its schema is */
	json_array_foreach(json_object_get(spec, "variables"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));

		names[d.nvariables++] = name ? name : "";
	}
	for (i = 0; i < n; i++)
		kind_env_init(&envs[i], kinds[i], spec, names, d.nvariables);
	json_array_foreach(json_object_get(spec, "validations"), i, v) {
		static const char *const fields[] = {"expression", "messageExpression"};

		for (int f = 0; f < 2; f++) {
			const char *text = json_string_value(json_object_get(v, fields[f]));
			char *w;

			if (!text || !*text || !(w = check_expression(text, envs, n, &d)))
				continue;
			{
				cleanup_free char *fr = xasprintf("spec.validations[%zu].%s", i, fields[f]);

				json_array_append_new(warnings, json_pack("{s:s, s:s}", "fieldRef", fr, "warning", w));
			}
			free(w);
		}
	}
	for (i = 0; i < n; i++)
		kind_env_release(&envs[i], d.nvariables);
	free(names);
	return warnings;
}

int sk__vap_begin_write(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old, int dry_run, void **txn,
			json_t **causes, sk_error_t *err)
{
	json_t *status = json_object_get(obj, "status"), *tc = json_object();
	json_t *gen = json_object_get(json_object_get(obj, "metadata"), "generation");
	json_t *warnings = sk__vap_type_check(obj);

	(void)api;
	(void)r;
	(void)old;
	(void)dry_run;
	(void)txn;
	(void)causes;
	(void)err;
	if (!json_is_object(status)) {
		status = json_object();
		json_object_set_new(obj, "status", status);
	}
	json_object_set_new(status, "observedGeneration", json_integer(json_integer_value(gen)));
	if (json_array_size(warnings))
		json_object_set(tc, "expressionWarnings", warnings);
	json_decref(warnings);
	json_object_set_new(status, "typeChecking", tc);
	return 0;
}
