#include <string.h>

#include "api/api-int.h"
#include "api/logs.h"
#include "api/stream.h"
#include "util/json.h"
#include "util/util.h"

static const struct {
	int code, http;
	const char *reason;
} codes[] = {
	{SK_EBADREQUEST, 400, "BadRequest"},
	{SK_EUNAUTHORIZED, 401, "Unauthorized"},
	{SK_EFORBIDDEN, 403, "Forbidden"},
	{SK_ENOTFOUND, 404, "NotFound"},
	{SK_EMETHOD, 405, "MethodNotAllowed"},
	{SK_ENOTACCEPTABLE, 406, "NotAcceptable"},
	{SK_EEXISTS, 409, "AlreadyExists"},
	{SK_ECONFLICT, 409, "Conflict"},
	{SK_EGONE, 410, "Expired"},
	{SK_ETOOLARGE, 413, "RequestEntityTooLarge"},
	{SK_EUNSUPPORTED, 415, "UnsupportedMediaType"},
	{SK_EINVALID, 422, "Invalid"},
	{SK_EUNAVAILABLE, 503, "ServiceUnavailable"},
	{SK_ETIMEOUT, 504, "Timeout"},
	{SK_EUNKNOWN, 500, ""},
};

int sk__http_code(int skcode, const char **reason)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (codes[i].code == skcode) {
			*reason = codes[i].reason;
			return codes[i].http;
		}
	}
	*reason = "InternalError";
	return 500;
}

void sk__reply_raw(sk_api_response *resp, int status, char *body, size_t len)
{
	resp->status = status;
	resp->body = body;
	resp->len = len;
	resp->content_type = "application/json";
}

void sk__reply_json(sk_api_response *resp, int status, json_t *obj)
{
	size_t len;
	char *s;

	if (resp->want_obj) {
		json_decref(resp->obj);
		resp->obj = json_incref(obj);
		resp->status = status;
		resp->content_type = "application/json";
		return;
	}
	s = sk_json_dumps(obj, &len);
	if (!s)
		abort();
	sk__reply_raw(resp, status, s, len);
}

/* JSON strings must be UTF-8: names and messages built from a request path
 * may not be, so such bytes become '?'. Returns s or a malloc'd copy in *tmp. */
static const char *utf8_safe(const char *s, char **tmp)
{
	json_t *probe;

	*tmp = NULL;
	if (!s)
		return NULL;
	probe = json_string(s);
	if (probe) {
		json_decref(probe);
		return s;
	}
	*tmp = xstrdup(s);
	for (char *p = *tmp; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return *tmp;
}

void sk__reply_status_for(sk_api_response *resp, int code, const char *reason, const char *msg_in, const char *group,
			  const char *kind, const char *name_in, json_t *causes)
{
	cleanup_free char *t1 = NULL, *t2 = NULL, *t3 = NULL;
	const char *msg = utf8_safe(msg_in, &t1), *name = utf8_safe(name_in, &t2), *k = utf8_safe(kind, &t3);
	/* metav1.Status's field order: kind, apiVersion, metadata, status, message, reason, details, code */
	cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s}", "kind", "Status", "apiVersion", "v1",
					    "metadata", "status", "Failure", "message", msg, "reason", reason);
	json_t *details = NULL;

	/* a reasonless 500 is upstream's ErrorToAPIStatus for an error that is
	 * no APIStatus (a storage error passed on): no details */
	if ((k || name || causes) && (*reason || causes)) {
		details = json_object();
		if (name && *name)
			json_object_set_new(details, "name", json_string(name));
		if (k) {
			if (group && group[0])
				json_object_set_new(details, "group", json_string(group));
			json_object_set_new(details, "kind", json_string(k));
		}
		if (causes)
			json_object_set(details, "causes", causes);
		json_object_set_new(st, "details", details);
	}
	if (!*reason)
		json_object_del(st, "reason"); /* StatusReasonUnknown is omitted */
	json_object_set_new(st, "code", json_integer(code));
	free(resp->body);
	resp->body = NULL;
	sk__reply_json(resp, code, st);
}

void sk__reply_status(sk_api_response *resp, int code, const char *reason, const char *msg, const sk_api_resource *r,
		      const char *name, json_t *causes)
{
	sk__reply_status_for(resp, code, reason, msg, r ? r->group : NULL, r ? r->plural : NULL, name, causes);
}

void sk__reply_error(sk_api_response *resp, const sk_error_t *err, const sk_api_resource *r, const char *name)
{
	const char *reason;
	int http = sk__http_code(err->code, &reason);
	cleanup_json json_t *causes = NULL;

	if (err->code == SK_ESTATUS) {
		cleanup_json json_t *st = json_loads(err->msg, 0, NULL);
		json_int_t code = json_integer_value(json_object_get(st, "code"));

		if (json_is_object(st) && code >= 400 && code <= 599) {
			sk__reply_json(resp, (int)code, st);
			return;
		}
	}
	/* kubectl prints an Invalid reply's causes, not its message */
	if (err->code == SK_EINVALID)
		causes = json_pack("[{s:s, s:s}]", "reason", "FieldValueInvalid", "message", err->msg);
	sk__reply_status(resp, http, reason, err->msg, r, name, causes);
}

json_t *sk__status_ok(const sk_api_resource *r, const char *name, const char *uid)
{
	json_t *st = json_pack("{s:s, s:s, s:{}, s:s}", "kind", "Status", "apiVersion", "v1", "metadata", "status",
			       "Success");
	json_t *d = json_object();

	if (name)
		json_object_set_new(d, "name", json_string(name));
	if (r) {
		if (r->group[0])
			json_object_set_new(d, "group", json_string(r->group));
		json_object_set_new(d, "kind", json_string(r->plural));
	}
	if (uid)
		json_object_set_new(d, "uid", json_string(uid));
	json_object_set_new(st, "details", d);
	return st;
}

const char *sk__arg(const sk_api_request *req, const char *key)
{
	for (size_t i = 0; i < req->nargs; i++)
		if (!strcmp(req->args[i].key, key))
			return req->args[i].value ? req->args[i].value : "";
	return NULL;
}

int sk__arg_bool(const sk_api_request *req, const char *key)
{
	static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True", NULL};
	const char *v = sk__arg(req, key);

	for (int i = 0; v && yes[i]; i++)
		if (!strcmp(v, yes[i]))
			return 1;
	return 0;
}

/* Go's strconv.Quote for the texts a query string carries. */
static void go_quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
}

int sk__arg_int64(const sk_api_request *req, const char *key, int64_t *out, sk_error_t *err)
{
	const char *v = sk__arg(req, key), *digits, *s, *why = "invalid syntax";
	uint64_t n = 0, lim;
	char q[96];

	if (!v)
		return 0;
	digits = s = v + (*v == '+' || *v == '-');
	lim = *v == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (lim - (uint64_t)(*s - '0')) / 10) {
			why = "value out of range";
			goto bad;
		}
		n = n * 10 + (uint64_t)(*s - '0');
	}
	if (*s || s == digits)
		goto bad;
	*out = *v == '-' ? (int64_t)(0 - n) : (int64_t)n;
	return 1;
bad:
	go_quote(v, q, sizeof(q));
	sk_error_set(err, SK_EBADREQUEST, "strconv.ParseInt: parsing \"%s\": %s", q, why);
	return -1;
}

void sk_api_response_release(sk_api_response *r)
{
	json_decref(r->obj);
	r->obj = NULL;
	json_decref(r->audit_annotations);
	r->audit_annotations = NULL;
	sk_user_free(r->audit_as);
	r->audit_as = NULL;
	if (r->stream) {
		sk_api_stream_free(r->stream);
		r->stream = NULL;
	}
	if (r->upgrade) {
		sk_api_upgrade_free(r->upgrade);
		r->upgrade = NULL;
	}
	free(r->body);
	free(r->warning);
	r->body = r->warning = NULL;
}
