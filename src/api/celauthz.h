/* The authorizer behind CEL's authz library (api/cel/cel.h's
 * sk_cel_authorize_fn): the API server's authorizer chain (sk__authorize),
 * as upstream binds the authorizer variable of ValidatingAdmissionPolicy
 * and matchConditions expressions to the apiserver's authorizer. skiff
 * evaluates no such expressions yet: whatever does passes this. */
#ifndef SK_API_CELAUTHZ_H
#define SK_API_CELAUTHZ_H

#include "api/auth.h"
#include "api/cel/cel.h"

/* The request's identity: checks run as user, or as the service account
 * serviceAccount(ns, name) names (user "system:serviceaccount:NS:NAME" in
 * "system:serviceaccounts" and "system:serviceaccounts:NS", as upstream's
 * ServiceAccountInfo). Both borrowed for the evaluation. */
typedef struct sk_cel_authz_ctx {
	sk_api *api;
	const sk_user *user;
} sk_cel_authz_ctx;

/* An sk_cel_authorize_fn over ud, an sk_cel_authz_ctx: ALLOW or NO_OPINION
 * (the chain's first allow decides; a refusal's reason is kept). The
 * selectors reach no authorizer of skiff's (RBAC and Node ignore them, as
 * upstream's do). */
enum sk_cel_authz_decision sk__cel_authorize(void *ud, const sk_cel_authz_check *chk, char **reason, char **error);

#endif
