/* Service-account tokens in the API server (satoken.c): TokenRequest,
 * the token authenticator, TokenReview and OIDC discovery. The signing key
 * is set up by sk_api_sa_setup (api.h). */
#ifndef SK_API_SATOKEN_H
#define SK_API_SATOKEN_H

#include "api/api-int.h"
#include "api/auth.h"

/* Authenticates a bearer token that is a service-account JWT of this
 * server: 1 with *out (sk_user_free), 0 when the token is none of this
 * server's (another authenticator may know it), -1 when it is one but not
 * valid (expired, wrong audience, its ServiceAccount or bound pod gone). */
int sk__sa_token_authenticate(sk_api *api, const char *token, sk_user **out);
/* POST serviceaccounts/NAME/token. */
void sk__handle_sa_token(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
/* TokenReview's review hook (authentication.k8s.io/v1): obj with its status
 * (new reference), or NULL with err. */
json_t *sk__token_review(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err);
/* GET /.well-known/openid-configuration and /openid/v1/jwks. */
int sk__is_oidc_path(const char *path);
void sk__handle_oidc(sk_api *api, const sk_api_request *req, sk_api_response *resp);
/* Frees what sk_api_sa_setup made (sk_api_free). */
void sk__sa_free(sk_api *api);

#endif
