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

#include "api/api-int.h"

/* The kinds' hooks (kinds/admissionregistration.c's descriptors). */
void sk__defaults_webhookconfig(const sk_api_resource *r, json_t *obj);
json_t *sk__validate_webhookconfig(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
/* After any write to either kind: the plugins reload their configurations. */
void sk__webhookconfig_written(sk_api *api, const sk_api_resource *r);

/* The request a webhook's rules are matched against (upstream's
 * admission.Attributes as rules.Matcher reads them). */
typedef struct sk_webhook_attrs {
	const char *op; /* CREATE, UPDATE, DELETE, CONNECT */
	const char *group, *version, *resource, *sub;
	const char *ns; /* "" for cluster-scoped objects and namespaces */
} sk_webhook_attrs;

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
