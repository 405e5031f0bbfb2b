/* Request identities and the authorizer chain (auth.h). */
#include <string.h>

#include "api/api-int.h"
#include "api/auth.h"
#include "api/rbac.h"
#include "api/authz-node.h"
#include "util/util.h"

sk_user *sk_user_new(const char *name, const char *uid, const char *const *groups)
{
	sk_user *u = xzalloc(sizeof(*u));

	u->name = xstrdup(name ? name : "");
	u->uid = xstrdup(uid ? uid : "");
	for (size_t i = 0; groups && groups[i]; i++)
		sk_user_add_group(u, groups[i]);
	return u;
}

void sk_user_add_group(sk_user *u, const char *group)
{
	if (sk_user_in_group(u, group))
		return;
	u->groups = xrealloc(u->groups, (u->ngroups + 1) * sizeof(*u->groups));
	u->groups[u->ngroups++] = xstrdup(group);
}

sk_user *sk_user_dup(const sk_user *u)
{
	sk_user *d = sk_user_new(u->name, u->uid, NULL);

	for (size_t i = 0; i < u->ngroups; i++)
		sk_user_add_group(d, u->groups[i]);
	d->extra = u->extra ? json_deep_copy(u->extra) : NULL;
	return d;
}

void sk_user_free(sk_user *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->ngroups; i++)
		free(u->groups[i]);
	free(u->groups);
	free(u->name);
	free(u->uid);
	json_decref(u->extra);
	free(u);
}

int sk_user_in_group(const sk_user *u, const char *group)
{
	for (size_t i = 0; u && i < u->ngroups; i++)
		if (!strcmp(u->groups[i], group))
			return 1;
	return 0;
}

static char *apiserver_groups[] = {SK_GROUP_MASTERS, SK_GROUP_AUTHENTICATED};
static const sk_user apiserver_user = {.name = "system:apiserver", .uid = "", .groups = apiserver_groups, .ngroups = 2};
static char *anonymous_groups[] = {SK_GROUP_UNAUTHENTICATED};
static const sk_user anonymous_user = {.name = SK_USER_ANONYMOUS, .uid = "", .groups = anonymous_groups, .ngroups = 1};

const sk_user *sk_user_apiserver(void) { return &apiserver_user; }
const sk_user *sk_user_anonymous(void) { return &anonymous_user; }

/* ---- the authorizer chain ---- */

/* kube-apiserver's privileged-group authorizer: system:masters may do anything. */
static sk_authz_decision authz_masters(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	(void)api;
	(void)reason;
	return sk_user_in_group(a->user, SK_GROUP_MASTERS) ? SK_AUTHZ_ALLOW : SK_AUTHZ_NO_OPINION;
}

/* In kube-apiserver's order: Node, RBAC. */
static const sk_authorizer_fn chain[] = {
	authz_masters,
	sk__authz_node,
	sk__authz_rbac,
	NULL,
};

int sk__authorize(sk_api *api, const sk_authz_attrs *a, char **reason)
{
	char *why = NULL;

	*reason = NULL;
	for (int i = 0; chain[i]; i++) {
		char *r = NULL;
		sk_authz_decision d = chain[i](api, a, &r);

		if (d == SK_AUTHZ_ALLOW) {
			free(why);
			*reason = r; /* the allowing authorizer's reason (audit, reviews) */
			return 1;
		}
		if (d == SK_AUTHZ_DENY) {
			free(why);
			*reason = r;
			return 0;
		}
		if (r && !why)
			why = r;
		else
			free(r);
	}
	*reason = why;
	return 0;
}

char *sk__authz_forbidden_message(const sk_authz_attrs *a, const char *reason)
{
	cleanup_free char *who = NULL, *what = NULL, *where = NULL;
	const char *user = a->user && a->user->name ? a->user->name : "";

	if (!a->resource_request) {
		return xasprintf("forbidden: User \"%s\" cannot %s path \"%s\"%s%s", user, a->verb, a->path,
				 reason && *reason ? ": " : "", reason && *reason ? reason : "");
	}
	if (a->api_group[0])
		who = a->name[0] ? xasprintf("%s.%s \"%s\"", a->resource, a->api_group, a->name)
				 : xasprintf("%s.%s", a->resource, a->api_group);
	else
		who = a->name[0] ? xasprintf("%s \"%s\"", a->resource, a->name) : xstrdup(a->resource);
	what = a->subresource[0] ? xasprintf("%s/%s", a->resource, a->subresource) : xstrdup(a->resource);
	where = a->ns[0] ? xasprintf("in the namespace \"%s\"", a->ns) : xstrdup("at the cluster scope");
	return xasprintf("%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" %s%s%s", who, user,
			 a->verb, what, a->api_group, where, reason && *reason ? ": " : "",
			 reason && *reason ? reason : "");
}
