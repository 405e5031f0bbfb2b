/* Schema data: rbac.authorization.k8s.io/v1 and authorization.k8s.io/v1. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

#define RBAC(n) "io.k8s.api.rbac.v1." n
#define AUTHZ(n) "io.k8s.api.authorization.v1." n
#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA FD("metadata", sk__object_meta, "Standard object's metadata.")

/* ---- rbac.authorization.k8s.io/v1 ---- */
static const sk_schema_field rule_f[] = {
	FD("apiGroups", sk__strs,
	   "APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, "
	   "any action requested against one of the enumerated resources in any API group will be allowed. \"\" "
	   "represents the core API group and \"*\" represents all API groups."),
	FD("nonResourceURLs", sk__strs,
	   "NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as "
	   "the full, final step in the path."),
	FD("resourceNames", sk__strs,
	   "ResourceNames is an optional white list of names that the rule applies to.  An empty set means that "
	   "everything is allowed."),
	FD("resources", sk__strs,
	   "Resources is a list of resources this rule applies to. '*' represents all resources."),
	RD("verbs", sk__strs,
	   "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all "
	   "verbs."),
	END};
DOBJ(rule, RBAC("PolicyRule"),
     "PolicyRule holds information that describes a policy rule, but does not contain information about who the rule "
     "applies to or which namespace the rule applies to.");
ARR(rules, rule);
ARR(selectors, sk__label_selector);
static const sk_schema_field agg_f[] = {
	FD("clusterRoleSelectors", selectors,
	   "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the "
	   "rules. If any of the selectors match, then the ClusterRole's permissions will be added"),
	END};
DOBJ(agg, RBAC("AggregationRule"),
     "AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole");
static const sk_schema_field role_ref_f[] = {
	RD("apiGroup", sk__str, "APIGroup is the group for the resource being referenced"),
	RD("kind", sk__str, "Kind is the type of resource being referenced"),
	RD("name", sk__str, "Name is the name of resource being referenced"), END};
DOBJ(role_ref, RBAC("RoleRef"), "RoleRef contains information that points to the role being used");
static const sk_schema_field subject_f[] = {
	FD("apiGroup", sk__str,
	   "APIGroup holds the API group of the referenced subject. Defaults to \"\" for ServiceAccount subjects. "
	   "Defaults to \"rbac.authorization.k8s.io\" for User and Group subjects."),
	RD("kind", sk__str,
	   "Kind of object being referenced. Values defined by this API group are \"User\", \"Group\", and "
	   "\"ServiceAccount\". If the Authorizer does not recognized the kind value, the Authorizer should report an "
	   "error."),
	RD("name", sk__str, "Name of the object being referenced."),
	FD("namespace", sk__str,
	   "Namespace of the referenced object.  If the object kind is non-namespace, such as \"User\" or \"Group\", "
	   "and this value is not empty the Authorizer should report an error."),
	END};
DOBJ(subject, RBAC("Subject"),
     "Subject contains a reference to the object or user identities a role binding applies to.  This can either hold a "
     "direct API object reference, or a value for non-objects such as user and group names.");
ARR(subjects, subject);

static const sk_schema_field sk__role_f[] = {TYPEMETA, OBJMETA,
					     FD("rules", rules, "Rules holds all the PolicyRules for this Role"), END};
KIND(sk__role, "rbac.authorization.k8s.io", "v1", "Role", RBAC("Role"),
     "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.");
static const sk_schema_field sk__clusterrole_f[] = {
	FD("aggregationRule", agg,
	   "AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If "
	   "AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped "
	   "by the controller."),
	TYPEMETA, OBJMETA, FD("rules", rules, "Rules holds all the PolicyRules for this ClusterRole"), END};
KIND(sk__clusterrole, "rbac.authorization.k8s.io", "v1", "ClusterRole", RBAC("ClusterRole"),
     "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a "
     "RoleBinding or ClusterRoleBinding.");
static const sk_schema_field sk__rolebinding_f[] = {
	TYPEMETA, OBJMETA,
	RD("roleRef", role_ref,
	   "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the "
	   "RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."),
	FD("subjects", subjects, "Subjects holds references to the objects the role applies to."), END};
KIND(sk__rolebinding, "rbac.authorization.k8s.io", "v1", "RoleBinding", RBAC("RoleBinding"),
     "RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a "
     "ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which "
     "namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.");
static const sk_schema_field sk__clusterrolebinding_f[] = {
	TYPEMETA, OBJMETA,
	RD("roleRef", role_ref,
	   "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the "
	   "Authorizer must return an error. This field is immutable."),
	FD("subjects", subjects, "Subjects holds references to the objects the role applies to."), END};
KIND(sk__clusterrolebinding, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", RBAC("ClusterRoleBinding"),
     "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global "
     "namespace, and adds who information via Subject.");

/* ---- authorization.k8s.io/v1 ---- */
static const sk_schema_field res_attr_f[] = {
	F("group", sk__str),       F("name", sk__str), F("namespace", sk__str), F("resource", sk__str),
	F("subresource", sk__str), F("verb", sk__str), F("version", sk__str),   END};
DOBJ(res_attr, AUTHZ("ResourceAttributes"),
     "ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer "
     "interface");
static const sk_schema_field nonres_attr_f[] = {F("path", sk__str), F("verb", sk__str), END};
DOBJ(nonres_attr, AUTHZ("NonResourceAttributes"),
     "NonResourceAttributes includes the authorization attributes available for non-resource requests to the "
     "Authorizer interface");
MAPOF(extra, sk__strs);
static const sk_schema_field sar_spec_f[] = {F("extra", extra),
					     F("groups", sk__strs),
					     F("nonResourceAttributes", nonres_attr),
					     F("resourceAttributes", res_attr),
					     F("uid", sk__str),
					     F("user", sk__str),
					     END};
DOBJ(sar_spec, AUTHZ("SubjectAccessReviewSpec"),
     "SubjectAccessReviewSpec is a description of the access request.  Exactly one of ResourceAuthorizationAttributes "
     "and NonResourceAuthorizationAttributes must be set");
static const sk_schema_field ssar_spec_f[] = {F("nonResourceAttributes", nonres_attr),
					      F("resourceAttributes", res_attr), END};
DOBJ(ssar_spec, AUTHZ("SelfSubjectAccessReviewSpec"),
     "SelfSubjectAccessReviewSpec is a description of the access request.  Exactly one of "
     "ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set");
static const sk_schema_field sar_status_f[] = {R("allowed", sk__bool), F("denied", sk__bool),
					       F("evaluationError", sk__str), F("reason", sk__str), END};
DOBJ(sar_status, AUTHZ("SubjectAccessReviewStatus"), "SubjectAccessReviewStatus");
static const sk_schema_field ssrr_spec_f[] = {F("namespace", sk__str), END};
DOBJ(ssrr_spec, AUTHZ("SelfSubjectRulesReviewSpec"),
     "SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.");
static const sk_schema_field res_rule_f[] = {F("apiGroups", sk__strs), F("resourceNames", sk__strs),
					     F("resources", sk__strs), R("verbs", sk__strs), END};
DOBJ(res_rule, AUTHZ("ResourceRule"),
     "ResourceRule is the list of actions the subject is allowed to perform on resources.");
ARR(res_rules, res_rule);
static const sk_schema_field nonres_rule_f[] = {F("nonResourceURLs", sk__strs), R("verbs", sk__strs), END};
DOBJ(nonres_rule, AUTHZ("NonResourceRule"),
     "NonResourceRule holds information that describes a rule for the non-resource");
ARR(nonres_rules, nonres_rule);
static const sk_schema_field rules_status_f[] = {F("evaluationError", sk__str), R("incomplete", sk__bool),
						 R("nonResourceRules", nonres_rules), R("resourceRules", res_rules),
						 END};
DOBJ(rules_status, AUTHZ("SubjectRulesReviewStatus"), "SubjectRulesReviewStatus contains the result of a rules check.");

static const sk_schema_field sk__sar_f[] = {TYPEMETA, OBJMETA, R("spec", sar_spec), F("status", sar_status), END};
KIND(sk__sar, "authorization.k8s.io", "v1", "SubjectAccessReview", AUTHZ("SubjectAccessReview"),
     "SubjectAccessReview checks whether or not a user or group can perform an action.");
static const sk_schema_field sk__lsar_f[] = {TYPEMETA, OBJMETA, R("spec", sar_spec), F("status", sar_status), END};
KIND(sk__lsar, "authorization.k8s.io", "v1", "LocalSubjectAccessReview", AUTHZ("LocalSubjectAccessReview"),
     "LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace.");
static const sk_schema_field sk__ssar_f[] = {TYPEMETA, OBJMETA, R("spec", ssar_spec), F("status", sar_status), END};
KIND(sk__ssar, "authorization.k8s.io", "v1", "SelfSubjectAccessReview", AUTHZ("SelfSubjectAccessReview"),
     "SelfSubjectAccessReview checks whether or the current user can perform an action.");
static const sk_schema_field sk__ssrr_f[] = {TYPEMETA, OBJMETA, R("spec", ssrr_spec), F("status", rules_status), END};
KIND(sk__ssrr, "authorization.k8s.io", "v1", "SelfSubjectRulesReview", AUTHZ("SelfSubjectRulesReview"),
     "SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.");
/* clang-format on */
