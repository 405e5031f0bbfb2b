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
#define RULE_FIELDS \
	FD("apiGroups", sk__strs, \
	   "APIGroups is the API groups the resources belong to. '*' is all groups. " \
	   "If '*' is present, the length of the slice must be one. Required."), \
		FD("apiVersions", sk__strs, \
		   "APIVersions is the API versions the resources belong to. '*' is all versions. " \
		   "If '*' is present, the length of the slice must be one. Required."), \
		FD("operations", sk__strs, \
		   "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, " \
		   "CONNECT or * for all of those operations and any future admission operations that are " \
		   "added. If '*' is present, the length of the slice must be one. Required."), \
		FD("resources", sk__strs, "Resources is a list of resources this rule applies to."), \
		FD("scope", sk__str, \
		   "scope specifies the scope of this rule. Valid values are \"Cluster\", \"Namespaced\", " \
		   "and \"*\".")
static const sk_schema_field rule_f[] = {RULE_FIELDS, END};
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

/* ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding */
static const sk_schema_field param_kind_f[] = {
	FD("apiVersion", sk__str,
	   "APIVersion is the API group version the resources belong to. In format of \"group/version\". Required."),
	FD("kind", sk__str, "Kind is the API kind the resources belong to. Required."), END};
DOBJ(param_kind, ADM("ParamKind"), "ParamKind is a tuple of Group Kind and Version.");
static const sk_schema_field named_rule_f[] = {
	FD("resourceNames", sk__strs,
	   "ResourceNames is an optional white list of names that the rule applies to.  An empty set means that "
	   "everything is allowed."),
	RULE_FIELDS, END};
DOBJ(named_rule, ADM("NamedRuleWithOperations"),
     "NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.");
ARR(named_rules, named_rule);
static const sk_schema_field match_res_f[] = {
	FD("excludeResourceRules", named_rules,
	   "ExcludeResourceRules describes what operations on what resources/subresources the "
	   "ValidatingAdmissionPolicy should not care about. The exclude rules take precedence over include rules "
	   "(if a resource matches both, it is excluded)"),
	FD("matchPolicy", sk__str,
	   "matchPolicy defines how the \"MatchResources\" list is used to match incoming requests. Allowed values "
	   "are \"Exact\" or \"Equivalent\"."),
	FD("namespaceSelector", sk__label_selector,
	   "NamespaceSelector decides whether to run the admission control policy on an object based on whether the "
	   "namespace for that object matches the selector."),
	FD("objectSelector", sk__label_selector,
	   "ObjectSelector decides whether to run the validation based on if the object has matching labels."),
	FD("resourceRules", named_rules,
	   "ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy "
	   "matches. The policy cares about an operation if it matches _any_ Rule."),
	END};
DOBJ(match_res, ADM("MatchResources"),
     "MatchResources decides whether to run the admission control policy on an object based on whether it meets "
     "the match criteria.");
static const sk_schema_field validation_f[] = {
	RD("expression", sk__str, "Expression represents the expression which will be evaluated by CEL. Required."),
	FD("message", sk__str, "Message represents the message displayed when validation fails."),
	FD("messageExpression", sk__str,
	   "messageExpression declares a CEL expression that evaluates to the validation failure message that is "
	   "returned when this rule fails."),
	FD("reason", sk__str,
	   "Reason represents a machine-readable description of why this validation failed. Supported values: "
	   "\"Unauthorized\", \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"."),
	END};
DOBJ(validation, ADM("Validation"), "Validation specifies the CEL expression which is used to apply the validation.");
ARR(validations, validation);
static const sk_schema_field audit_ann_f[] = {
	RD("key", sk__str, "key specifies the audit annotation key. Required."),
	RD("valueExpression", sk__str,
	   "valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value. "
	   "Required."),
	END};
DOBJ(audit_ann, ADM("AuditAnnotation"),
     "AuditAnnotation describes how to produce an audit annotation for an API request.");
ARR(audit_anns, audit_ann);
static const sk_schema_field variable_f[] = {
	RD("expression", sk__str, "Expression is the expression that will be evaluated as the value of the variable."),
	RD("name", sk__str,
	   "Name is the name of the variable. The name must be a valid CEL identifier and unique among all variables."),
	END};
DOBJ(variable, ADM("Variable"), "Variable is the definition of a variable that is used for composition.");
ARR(variables, variable);
static const sk_schema_field vap_spec_f[] = {
	FD("auditAnnotations", audit_anns,
	   "auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event "
	   "of the API request."),
	FD("failurePolicy", sk__str,
	   "failurePolicy defines how to handle failures for the admission policy. Allowed values are Ignore or Fail. "
	   "Defaults to Fail."),
	FD("matchConditions", match_conds,
	   "MatchConditions is a list of conditions that must be met for a request to be validated."),
	FD("matchConstraints", match_res,
	   "MatchConstraints specifies what resources this policy is designed to validate. Required."),
	FD("paramKind", param_kind, "ParamKind specifies the kind of resources used to parameterize this policy."),
	FD("validations", validations, "Validations contain CEL expressions which is used to apply the validation."),
	FD("variables", variables,
	   "Variables contain definitions of variables that can be used in composition of other expressions."),
	END};
DOBJ(vap_spec, ADM("ValidatingAdmissionPolicySpec"),
     "ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy.");
static const sk_schema_field expr_warning_f[] = {
	RD("fieldRef", sk__str,
	   "The path to the field that refers the expression. For example, the reference to the expression of the "
	   "first item of validations is \"spec.validations[0].expression\""),
	RD("warning", sk__str,
	   "The content of type checking information in a human-readable form. Each line of the warning contains the "
	   "type that the expression is checked against, followed by the type check error from the compiler."),
	END};
DOBJ(expr_warning, ADM("ExpressionWarning"),
     "ExpressionWarning is a warning information that targets a specific expression.");
ARR(expr_warnings, expr_warning);
static const sk_schema_field type_checking_f[] = {
	FD("expressionWarnings", expr_warnings, "The type checking warnings for each expression."), END};
DOBJ(type_checking, ADM("TypeChecking"),
     "TypeChecking contains results of type checking the expressions in the ValidatingAdmissionPolicy");
static const sk_schema_field vap_status_f[] = {
	FD("conditions", sk__meta_conditions,
	   "The conditions represent the latest available observations of a policy's current state."),
	FD("observedGeneration", sk__i64, "The generation observed by the controller."),
	FD("typeChecking", type_checking,
	   "The results of type checking for each expression. Presence of this field indicates the completion of the "
	   "type checking."),
	END};
DOBJ(vap_status, ADM("ValidatingAdmissionPolicyStatus"),
     "ValidatingAdmissionPolicyStatus represents the status of an admission validation policy.");
static const sk_schema_field sk__validatingadmissionpolicy_f[] = {
	TYPEMETA, OBJMETA,
	FD("spec", vap_spec, "Specification of the desired behavior of the ValidatingAdmissionPolicy."),
	FD("status", vap_status,
	   "The status of the ValidatingAdmissionPolicy, including warnings that are useful to determine if the policy "
	   "behaves in the expected way. Populated by the system. Read-only."),
	END};
KIND(sk__validatingadmissionpolicy, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy",
     ADM("ValidatingAdmissionPolicy"),
     "ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects "
     "an object without changing it.");

static const sk_schema_field param_ref_f[] = {
	FD("name", sk__str, "name is the name of the resource being referenced."),
	FD("namespace", sk__str,
	   "namespace is the namespace of the referenced resource. Allows limiting the search for params to a "
	   "specific namespace."),
	FD("parameterNotFoundAction", sk__str,
	   "`parameterNotFoundAction` controls the behavior of the binding when the resource exists, and name or "
	   "selector are valid, but there are no parameters matched by the binding. Allowed values are `Allow` or "
	   "`Deny`. Required"),
	FD("selector", sk__label_selector,
	   "selector can be used to match multiple param objects based on their labels."),
	END};
DOBJ(param_ref, ADM("ParamRef"),
     "ParamRef describes how to locate the params to be used as input to expressions of rules applied by a policy "
     "binding.");
static const sk_schema vactions = {.type = SK_SCHEMA_ARRAY, .items = &sk__str, .list_type = "set"};
static const sk_schema_field vapb_spec_f[] = {
	FD("matchResources", match_res,
	   "MatchResources declares what resources match this binding and will be validated by it."),
	FD("paramRef", param_ref,
	   "paramRef specifies the parameter resource used to configure the admission control policy."),
	FD("policyName", sk__str,
	   "PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds "
	   "to. "
	   "If the referenced resource does not exist, this binding is considered invalid and will be ignored "
	   "Required."),
	FD("validationActions", vactions,
	   "validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced. "
	   "Allowed values are \"Deny\", \"Warn\" and \"Audit\". Required."),
	END};
DOBJ(vapb_spec, ADM("ValidatingAdmissionPolicyBindingSpec"),
     "ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding.");
static const sk_schema_field sk__validatingadmissionpolicybinding_f[] = {
	TYPEMETA, OBJMETA,
	FD("spec", vapb_spec, "Specification of the desired behavior of the ValidatingAdmissionPolicyBinding."), END};
KIND(sk__validatingadmissionpolicybinding, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding",
     ADM("ValidatingAdmissionPolicyBinding"),
     "ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.");
