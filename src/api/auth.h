/* Who is asking and what they may do: the identity of a request
 * (upstream's user.Info), the attributes an authorizer decides on
 * (authorizer.Attributes) and the chain of authorizers every request passes
 * (docs/ARCHITECTURE.md, "Identity").
 *
 * Authentication (src/api/http.c and the authenticators it calls) turns a
 * connection's credentials into an sk_user; sk_api_handle() computes the
 * request's sk_authz_attrs and asks sk__authorize(). The in-process client
 * is "system:apiserver" in "system:masters", as kube-apiserver's loopback
 * client. */
#ifndef SK_API_AUTH_H
#define SK_API_AUTH_H

#include <jansson.h>
#include <stddef.h>

typedef struct sk_api sk_api;

typedef struct sk_user {
	char *name;
	char *uid;     /* "" when the authenticator has none */
	char **groups; /* ngroups strings */
	size_t ngroups;
	json_t *extra; /* {"key": ["value", …]} or NULL */
} sk_user;

#define SK_GROUP_MASTERS "system:masters"
#define SK_GROUP_AUTHENTICATED "system:authenticated"
#define SK_GROUP_UNAUTHENTICATED "system:unauthenticated"
#define SK_USER_ANONYMOUS "system:anonymous"

/* groups: NULL-terminated, or NULL. */
sk_user *sk_user_new(const char *name, const char *uid, const char *const *groups);
void sk_user_add_group(sk_user *u, const char *group); /* once: a present group is not added again */
sk_user *sk_user_dup(const sk_user *u);
void sk_user_free(sk_user *u);
int sk_user_in_group(const sk_user *u, const char *group);
/* The in-process client's identity (immortal). */
const sk_user *sk_user_apiserver(void);
/* system:anonymous in system:unauthenticated (immortal). */
const sk_user *sk_user_anonymous(void);

/* What a request asks (upstream's authorizer.AttributesRecord). Resource
 * requests have verb get/list/watch/create/update/patch/delete/
 * deletecollection (or a special verb: impersonate, bind, escalate, use,
 * approve, sign …) and group/resource/subresource/namespace/name; the others
 * have the lowercased HTTP method as verb and the path. */
typedef struct sk_authz_attrs {
	const sk_user *user;
	const char *verb;
	int resource_request;
	const char *api_group; /* "" for the core group */
	const char *api_version;
	const char *resource;    /* plural */
	const char *subresource; /* "" */
	const char *ns;          /* "" for cluster scope or all namespaces */
	const char *name;        /* "" */
	const char *path;        /* the request path */
} sk_authz_attrs;

typedef enum {
	SK_AUTHZ_NO_OPINION = 0,
	SK_AUTHZ_ALLOW,
	SK_AUTHZ_DENY,
} sk_authz_decision;

/* One authorizer of the chain: a decision, and with NO_OPINION or DENY
 * optionally a reason (*reason malloc'd) that the Forbidden message carries. */
typedef sk_authz_decision (*sk_authorizer_fn)(sk_api *api, const sk_authz_attrs *a, char **reason);

/* Runs the chain (system:masters first, then the registered authorizers in
 * order); the first ALLOW or DENY decides, no opinion from all denies.
 * Returns 1 when allowed, else 0; *reason (malloc'd or NULL, the caller
 * frees) is the deciding authorizer's reason, or the first no-opinion one's
 * (e.g. `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u"`). */
int sk__authorize(sk_api *api, const sk_authz_attrs *a, char **reason);
/* Upstream's Forbidden message for a refused request:
 * `pods "x" is forbidden: User "bob" cannot get resource "pods" in API group
 * "" in the namespace "default"[: reason]` (malloc'd). */
char *sk__authz_forbidden_message(const sk_authz_attrs *a, const char *reason);

#endif
