/* CEL's authz library over the API server's authorizer chain (celauthz.h). */
#include <stdlib.h>

#include "api/celauthz.h"
#include "util/util.h"

enum sk_cel_authz_decision sk__cel_authorize(void *ud, const sk_cel_authz_check *k, char **reason, char **error)
{
	const sk_cel_authz_ctx *ctx = ud;
	sk_user *sa = NULL;
	sk_authz_attrs a = {.user = ctx->user,
			    .verb = k->verb,
			    .resource_request = k->resource_request,
			    .api_group = k->resource_request ? k->group : "",
			    .api_version = k->resource_request ? "*" : "",
			    .resource = k->resource_request ? k->resource : "",
			    .subresource = k->resource_request ? k->subresource : "",
			    .ns = k->resource_request ? k->ns : "",
			    .name = k->resource_request ? k->name : "",
			    .path = k->resource_request ? "" : k->path};
	int ok;

	(void)error;
	if (k->sa_name) {
		cleanup_free char *name = xasprintf("system:serviceaccount:%s:%s", k->sa_namespace, k->sa_name);
		cleanup_free char *nsgroup = xasprintf("system:serviceaccounts:%s", k->sa_namespace);
		const char *groups[] = {"system:serviceaccounts", nsgroup, NULL};

		sa = sk_user_new(name, "", groups);
		a.user = sa;
	}
	ok = sk__authorize(ctx->api, &a, reason);
	sk_user_free(sa);
	return ok ? SK_CEL_AUTHZ_ALLOW : SK_CEL_AUTHZ_NO_OPINION;
}
