/* Schema data: admissionregistration.k8s.io/v1 MutatingWebhookConfiguration
 * and ValidatingWebhookConfiguration. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

#define ADM(n) "io.k8s.api.admissionregistration.v1." n
#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA \
	FD("metadata", sk__object_meta, \
	   "Standard object metadata; More info: " \
	   "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata.")

static const sk_schema_field svc_ref_f[] = {
	RD("name", sk__str, "`name` is the name of the service. Required"),
	RD("namespace", sk__str, "`namespace` is the namespace of the service. Required"),
	FD("path", sk__str, "`path` is an optional URL path which will be sent in any request to this service."),
	FD("port", sk__i32,
	   "If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. "
	   "`port` should be a valid port number (1-65535, inclusive)."),
	END};
DOBJ(svc_ref, ADM("ServiceReference"), "ServiceReference holds a reference to Service.legacy.k8s.io");
static const sk_schema_field client_config_f[] = {
	FD("caBundle", sk__byte,
	   "`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If "
	   "unspecified, system trust roots on the apiserver are used."),
	FD("service", svc_ref,
	   "`service` is a reference to the service for this webhook. Either `service` or `url` must be specified."),
	FD("url", sk__str,
	   "`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of "
	   "`url` or `service` must be specified."),
	END};
DOBJ(client_config, ADM("WebhookClientConfig"),
     "WebhookClientConfig contains the information to make a TLS connection with the webhook");
static const sk_schema_field rule_f[] = {
	FD("apiGroups", sk__strs,
	   "APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is present, the length of "
	   "the slice must be one. Required."),
	FD("apiVersions", sk__strs,
	   "APIVersions is the API versions the resources belong to. '*' is all versions. If '*' is present, the "
	   "length of the slice must be one. Required."),
	FD("operations", sk__strs,
	   "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all "
	   "of those operations and any future admission operations that are added. If '*' is present, the length of "
	   "the slice must be one. Required."),
	FD("resources", sk__strs, "Resources is a list of resources this rule applies to."),
	FD("scope", sk__str,
	   "scope specifies the scope of this rule. Valid values are \"Cluster\", \"Namespaced\", and \"*\"."),
	END};
DOBJ(rule, ADM("RuleWithOperations"),
     "RuleWithOperations is a tuple of Operations and Resources. It is recommended to make sure that all the tuple "
     "expansions are valid.");
ARR(rules, rule);
static const sk_schema_field match_cond_f[] = {
	RD("expression", sk__str,
	   "Expression represents the expression which will be evaluated by CEL. Must evaluate to bool."),
	RD("name", sk__str,
	   "Name is an identifier for this match condition, used for strategic merging of MatchConditions, as well as "
	   "providing an identifier for logging purposes."),
	END};
DOBJ(match_cond, ADM("MatchCondition"),
     "MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.");
LMAP(match_conds, match_cond, "name", sk__keys_name);

#define HOOK_FIELDS \
	RD("admissionReviewVersions", sk__strs, \
	   "AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects."), \
		RD("clientConfig", client_config, "ClientConfig defines how to communicate with the hook. Required"), \
		FD("failurePolicy", sk__str, \
		   "FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed " \
		   "values are Ignore or Fail. Defaults to Fail."), \
		FD("matchConditions", match_conds, \
		   "MatchConditions is a list of conditions that must be met for a request to be sent to this " \
		   "webhook."), \
		FD("matchPolicy", sk__str, \
		   "matchPolicy defines how the \"rules\" list is used to match incoming requests. Allowed values " \
		   "are \"Exact\" or \"Equivalent\"."), \
		RD("name", sk__str, \
		   "The name of the admission webhook. Name should be fully qualified, e.g., " \
		   "imagepolicy.kubernetes.io, where \"imagepolicy\" is the name of the webhook, and kubernetes.io " \
		   "is the name of the organization. Required."), \
		FD("namespaceSelector", sk__label_selector, \
		   "NamespaceSelector decides whether to run the webhook on an object based on whether the namespace " \
		   "for that object matches the selector."), \
		FD("objectSelector", sk__label_selector, \
		   "ObjectSelector decides whether to run the webhook based on if the object has matching labels."), \
		FD("rules", rules, \
		   "Rules describes what operations on what resources/subresources the webhook cares about.")
static const sk_schema_field vhook_f[] = {
	HOOK_FIELDS,
	RD("sideEffects", sk__str,
	   "SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun."),
	FD("timeoutSeconds", sk__i32,
	   "TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be "
	   "ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 "
	   "seconds. Default to 10 seconds."),
	END};
DOBJ(vhook, ADM("ValidatingWebhook"),
     "ValidatingWebhook describes an admission webhook and the resources and operations it applies to.");
LMAP(vhooks, vhook, "name", sk__keys_name);
static const sk_schema_field mhook_f[] = {
	HOOK_FIELDS,
	FD("reinvocationPolicy", sk__str,
	   "reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single "
	   "admission evaluation. Allowed values are \"Never\" and \"IfNeeded\"."),
	RD("sideEffects", sk__str,
	   "SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun."),
	FD("timeoutSeconds", sk__i32,
	   "TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be "
	   "ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 "
	   "seconds. Default to 10 seconds."),
	END};
DOBJ(mhook, ADM("MutatingWebhook"),
     "MutatingWebhook describes an admission webhook and the resources and operations it applies to.");
LMAP(mhooks, mhook, "name", sk__keys_name);

static const sk_schema_field sk__validatingwebhookconfiguration_f[] = {
	TYPEMETA, OBJMETA,
	FD("webhooks", vhooks, "Webhooks is a list of webhooks and the affected resources and operations."), END};
KIND(sk__validatingwebhookconfiguration, "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
     ADM("ValidatingWebhookConfiguration"),
     "ValidatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and "
     "object without changing it.");
static const sk_schema_field sk__mutatingwebhookconfiguration_f[] = {
	TYPEMETA, OBJMETA,
	FD("webhooks", mhooks, "Webhooks is a list of webhooks and the affected resources and operations."), END};
KIND(sk__mutatingwebhookconfiguration, "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
     ADM("MutatingWebhookConfiguration"),
     "MutatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and may "
     "change the object.");
