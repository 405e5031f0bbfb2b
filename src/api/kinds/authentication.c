/* The kinds of authentication.k8s.io/v1: TokenReview, a create-only
 * review that is never stored (satoken.c). */
#include "api/api-int.h"
#include "api/satoken.h"

static const sk_kind_ops tokenreview_ops = {
	.flags = SK_KIND_CREATE_ONLY,
	.create = sk__handle_token_review,
};

const sk_api_resource sk__kinds_authentication[] = {
	{
		.group = "authentication.k8s.io",
		.version = "v1",
		.kind = "TokenReview",
		.plural = "tokenreviews",
		.singular = "tokenreview",
		.namespaced = 0,
		.ops = &tokenreview_ops,
	},
};
const size_t sk__nkinds_authentication = sizeof(sk__kinds_authentication) / sizeof(sk__kinds_authentication[0]);
