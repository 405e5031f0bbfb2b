/* The kinds of authentication.k8s.io/v1: SelfSubjectReview, the request's
 * own user as the server sees it (`kubectl auth whoami`), never stored
 * (upstream's pkg/registry/authentication/selfsubjectreview). */
#include "api/api-int.h"
#include "util/util.h"

/* upstream's UserInfo: empty fields are left out (omitempty) */
static json_t *user_info(const sk_user *u)
{
	json_t *ui = json_pack("{s:s}", "username", u->name);

	if (u->uid && *u->uid)
		json_object_set_new(ui, "uid", json_string(u->uid));
	if (u->ngroups) {
		json_t *g = json_array();

		for (size_t i = 0; i < u->ngroups; i++)
			json_array_append_new(g, json_string(u->groups[i]));
		json_object_set_new(ui, "groups", g);
	}
	if (u->extra && json_object_size(u->extra))
		json_object_set_new(ui, "extra", json_deep_copy(u->extra));
	return ui;
}

static json_t *self_subject_review(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err)
{
	char now[32];

	(void)api;
	(void)obj;
	if (!req->user) {
		sk_error_set(err, SK_EBADREQUEST, "no user present on request");
		return NULL;
	}
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	return json_pack("{s:s,s:s,s:{s:s},s:{s:o}}", "kind", "SelfSubjectReview", "apiVersion",
			 "authentication.k8s.io/v1", "metadata", "creationTimestamp", now, "status", "userInfo",
			 user_info(req->user));
}

static const sk_kind_ops self_subject_review_ops = {
	.review = self_subject_review,
};

const sk_api_resource sk__kinds_authentication[] = {
	{
		.group = "authentication.k8s.io",
		.version = "v1",
		.kind = "SelfSubjectReview",
		.plural = "selfsubjectreviews",
		.singular = "selfsubjectreview",
		.ops = &self_subject_review_ops,
	},
};
const size_t sk__nkinds_authentication = sizeof(sk__kinds_authentication) / sizeof(sk__kinds_authentication[0]);
