/* Role-based access control (docs/ARCHITECTURE.md, "Identity: RBAC"), as
 * upstream's plugin/pkg/auth/authorizer/rbac and pkg/registry/rbac.
 *
 * rbac.c holds the rules as pure functions over rbac.authorization.k8s.io/v1
 * JSON (PolicyRule, Subject): which request a rule allows, which user a
 * subject names, whether one set of rules covers another (escalation
 * checks). authz-rbac.c keeps the in-memory index of the stored Roles,
 * ClusterRoles and bindings, the per-user cache of rules and decisions and
 * the authorizer; rbac-policy.c the bootstrap policy reconciled at start. */
#ifndef SK_API_RBAC_H
#define SK_API_RBAC_H

#include <jansson.h>

#include "api/auth.h"
#include "util/error.h"

#define SK_RBAC_GROUP "rbac.authorization.k8s.io"

/* Whether one PolicyRule allows the request (upstream's RuleAllows):
 * verbs, apiGroups, resources ("*", "pods/log", "*\/scale"),
 * resourceNames, nonResourceURLs (a trailing "*" matches a prefix). */
int sk_rbac_rule_allows(json_t *rule, const sk_authz_attrs *a);
/* Whether a binding's subject names u (upstream's appliesToUser); ns is the
 * RoleBinding's namespace, the default of a ServiceAccount subject's. */
int sk_rbac_subject_applies(json_t *subject, const sk_user *u, const char *ns);
/* "system:serviceaccount:<ns>:<name>" (malloc'd). */
char *sk_rbac_sa_username(const char *ns, const char *name);

/* Whether owner (an array of PolicyRules) covers every permission of want
 * (validation.Covers). On 0, *missing (if not NULL) is a new array of the
 * uncovered rules, compacted as upstream's CompactRules. */
int sk_rbac_covers(json_t *owner, json_t *want, json_t **missing);
/* PolicyRule.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}` (malloc'd). */
char *sk_rbac_rule_string(json_t *rule);
/* Go's %q of a string array: `["a" "b"]` (malloc'd). */
char *sk_rbac_quote_list(json_t *arr);
/* utilerrors.NewAggregate's text of a JSON array of messages: "a", or
 * "[a, b]"; NULL for none (malloc'd) */
char *sk_rbac_errors_text(json_t *errs);

typedef struct sk_api sk_api;

/* The authorizer of the chain (auth.c). */
sk_authz_decision sk__authz_rbac(sk_api *api, const sk_authz_attrs *a, char **reason);
/* Every rule that applies to u in ns (cluster-wide bindings, then the
 * RoleBindings of ns; ns "" for cluster-wide only): a new array. *errs (if
 * not NULL) gets the resolution errors as a new array of strings. */
json_t *sk__rbac_rules_for(sk_api *api, const sk_user *u, const char *ns, json_t **errs);
/* The rules of a roleRef ({kind, name}) as a binding in ns sees them; NULL
 * with err (SK_ENOTFOUND) when the role does not exist. New array. */
json_t *sk__rbac_role_rules(sk_api *api, json_t *role_ref, const char *ns, sk_error_t *err);

/* Starts the index (store watches) and reconciles the bootstrap policy. */
int sk__rbac_start(sk_api *api, sk_error_t *err);
void sk__rbac_stop(sk_api *api);
/* rbac-policy.c: the PolicyRule of the policy's rule notation
 * "apiGroups|resources|verbs[|resourceNames]" or "url:paths|verbs"
 * (lists comma-separated, "\\" the core group ""): a new object. */
json_t *sk__rbac_policy_rule(const char *text);
/* rbac-policy.c: writes what is missing of the default roles and bindings. */
void sk__rbac_bootstrap(sk_api *api);

#endif
