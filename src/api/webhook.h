/* Dynamic admission (upstream's k8s.io/apiserver/pkg/admission/plugin/
 * webhook): the admissionregistration.k8s.io/v1 kinds
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (their
 * defaulting and validation, webhook-config.c) and the admission plugins
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook that call the
 * webhooks they configure (webhook.c): an AdmissionReview POSTed over HTTPS
 * (libcurl), its response applied (a JSONPatch) or its refusal replied. */
#ifndef SK_API_WEBHOOK_H
#define SK_API_WEBHOOK_H

#include <jansson.h>

#include "api/admission.h"
#include "api/api-int.h"

/* The kinds' hooks (kinds/admissionregistration.c's descriptors). */
void sk__defaults_webhookconfig(const sk_api_resource *r, json_t *obj);
json_t *sk__validate_webhookconfig(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
/* After any write to either kind: the plugins reload their configurations. */
void sk__webhookconfig_written(sk_api *api, const sk_api_resource *r);

struct sk__verr;
struct sk_cel_decls;
/* validateRuleWithOperations: one rule at path rp (webhook-config.c) */
void sk__webhook_validate_rule(struct sk__verr *e, json_t *rule, const char *rp);
/* v (a string) at fp is a qualified name (checked: the text checked, which
 * the message quotes) and not yet in seen, where it is added. */
void sk__validate_qualified_unique(struct sk__verr *e, const char *fp, json_t *v, const char *checked, json_t *seen);
/* matchConditions at fp: names, and expressions compiled with vars and decls */
void sk__webhook_validate_match_conditions(struct sk__verr *e, json_t *conds, const char *fp, unsigned vars,
					   const struct sk_cel_decls *decls);

/* The request a webhook's rules are matched against (upstream's
 * admission.Attributes as rules.Matcher reads them). */
typedef struct sk_webhook_attrs {
	const char *op; /* CREATE, UPDATE, DELETE, CONNECT */
	const char *group, *version, *resource, *sub;
	const char *ns; /* "" for cluster-scoped objects and namespaces */
} sk_webhook_attrs;

/* Shared with ValidatingAdmissionPolicy (vap.c): the operation's name
 * (CREATE…) and verb (create…); the AdmissionReview a webhook is sent (its
 * request is what CEL's request variable holds); whether the namespaceSelector
 * and objectSelector of m match a (1, 0, or -1 with err). */
const char *sk__adm_op_name(sk_adm_op op);
const char *sk__adm_verb(sk_adm_op op);
json_t *sk__webhook_review(const sk_adm_request *a, const char *uid, const char *version);
int sk__adm_selectors_match(sk_api *api, json_t *m, sk_adm_request *a, const sk_webhook_attrs *at, sk_error_t *err);

/* ValidatingAdmissionPolicy and its Binding (vap-config.c: defaults and
 * validation; vap.c: the type check written to a policy's status, and the
 * admission plugin ValidatingAdmissionPolicy). */
void sk__defaults_vap(const sk_api_resource *r, json_t *obj);
json_t *sk__validate_vap(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
void sk__defaults_vapb(const sk_api_resource *r, json_t *obj);
json_t *sk__validate_vapb(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
void sk__vap_written(sk_api *api, const sk_api_resource *r);
int sk__vap_begin_write(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old, int dry_run, void **txn,
			json_t **causes, sk_error_t *err);
/* The policy's status.typeChecking.expressionWarnings (a new reference). */
json_t *sk__vap_type_check(json_t *policy);

/* Whether one rule (RuleWithOperations) matches a (upstream's
 * rules.Matcher.Matches: operation, group, version, resource/subresource
 * with "*" wildcards, scope). */
int sk__webhook_rule_matches(json_t *rule, const sk_webhook_attrs *a);

/* Checks an AdmissionReview response body against the request's uid:
 * 0 with *response (a new reference to its "response") or -1 with *why
 * (malloc'd, upstream's reason: "expected response.uid=…", …). mutating:
 * a patch must come with patchType JSONPatch. */
int sk__webhook_parse_response(const char *body, size_t len, const char *uid, int mutating, json_t **response,
			       char **why);

/* The Status a refusal replies (upstream's webhookerrors.ToStatusErr): a new
 * reference; its code is at least 400. */
json_t *sk__webhook_denied_status(const char *webhook, json_t *result);

#endif
