/* The resourceVersion, resourceVersionMatch and continue options of reads,
 * as upstream's APIObjectVersioner.ParseResourceVersion,
 * ValidateListOptions (k8s.io/apimachinery internalversion/validation) and
 * storage.ValidateListOptions read them. */
#include <errno.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

int sk__rv_parse(const char *s, int64_t *out, sk_error_t *err)
{
	const char *why = NULL;
	uint64_t v = 0;

	*out = 0;
	if (!s || !*s || !strcmp(s, "0"))
		return 0;
	for (const char *c = s; *c && !why; c++) {
		if (*c < '0' || *c > '9')
			why = "invalid syntax";
		else if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			why = "value out of range";
		else
			v = v * 10 + (uint64_t)(*c - '0');
	}
	if (why)
		return sk_error_set(
			err, SK_EBADREQUEST,
			"invalid resource version: resourceVersion: Invalid value: \"%s\": strconv.ParseUint: "
			"parsing \"%s\": %s",
			s, s, why);
	/* a uint64 past the int64 revisions is merely in the future */
	*out = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

static void add_cause(json_t *causes, const char *reason, const char *field, const char *msg, char **all)
{
	char *joined = xasprintf("%s%s%s: %s", *all ? *all : "", *all ? ", " : "", field, msg);

	free(*all);
	*all = joined;
	json_array_append_new(causes, json_pack("{s:s, s:s, s:s}", "reason", reason, "message", msg, "field", field));
}

int sk__list_options_check(const sk_api_request *req, sk_api_response *resp)
{
	const char *rv = sk__arg(req, "resourceVersion"), *match = sk__arg(req, "resourceVersionMatch");
	const char *cont = sk__arg(req, "continue");
	cleanup_json json_t *causes = json_array();
	cleanup_free char *all = NULL, *msg = NULL;
	size_t n;

	if (!match || !*match)
		return 0;
	if (!rv || !*rv)
		add_cause(causes, "FieldValueForbidden", "resourceVersionMatch",
			  "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided", &all);
	if (cont && *cont)
		add_cause(causes, "FieldValueForbidden", "resourceVersionMatch",
			  "Forbidden: resourceVersionMatch is forbidden when continue is provided", &all);
	if (strcmp(match, "Exact") && strcmp(match, "NotOlderThan")) {
		cleanup_free char *m = xasprintf("Unsupported value: \"%s\": supported values: \"Exact\", "
						 "\"NotOlderThan\", \"\"",
						 match);

		add_cause(causes, "FieldValueNotSupported", "resourceVersionMatch", m, &all);
	}
	if (!strcmp(match, "Exact") && rv && !strcmp(rv, "0"))
		add_cause(causes, "FieldValueForbidden", "resourceVersionMatch",
			  "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"", &all);
	n = json_array_size(causes);
	if (!n)
		return 0;
	msg = xasprintf("ListOptions.meta.k8s.io \"\" is invalid: %s%s%s", n > 1 ? "[" : "", all, n > 1 ? "]" : "");
	sk__reply_status_for(resp, 422, "Invalid", msg, "meta.k8s.io", "ListOptions", "", causes);
	return -1;
}

int sk__list_revision(sk_api *api, const sk_api_request *req, int limited, int64_t *rev, sk_error_t *err)
{
	const char *rvs = sk__arg(req, "resourceVersion"), *match = sk__arg(req, "resourceVersionMatch");
	const char *cont = sk__arg(req, "continue");
	int64_t want, cur;

	*rev = 0;
	if (sk__rv_parse(rvs, &want, err) < 0)
		return -1;
	if (cont && *cont) {
		if (want)
			return sk_error_set(err, SK_EBADREQUEST,
					    "specifying resource version is not allowed when using continue");
		return 0;
	}
	if (!want)
		return 0;
	cur = sk_store_rev(api->store);
	if (want > cur)
		return sk_error_set(err, SK_ETIMEOUT, "Too large resource version: %lld, current: %lld",
				    (long long)want, (long long)cur);
	/* Exact, or the legacy exact read of a limited list without a match */
	if ((match && !strcmp(match, "Exact")) || (limited && (!match || !*match))) {
		if (want < sk_store_compacted_rev(api->store))
			return sk_error_set(err, SK_EGONE, "The resourceVersion for the provided list is too old.");
		*rev = want;
	}
	return 0;
}
