#include "client/client-int.h"

#include <string.h>

#include "util/util.h"

void sk_client_fence(sk_client *c, int on) { __atomic_store_n(&c->fenced, on, __ATOMIC_SEQ_CST); }

static int fenced(sk_client *c, const char *method, const char *path, sk_error_t *err)
{
	if (!__atomic_load_n(&c->fenced, __ATOMIC_SEQ_CST) || !strcmp(method, "GET"))
		return 0;
	sk_error_set(err, SK_EUNAVAILABLE, "%s %s: not sent, this server's leader-election Lease was lost", method,
		     path);
	return 1;
}

json_t *sk_client_do(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
		     const char *content_type, sk_error_t *err)
{
	if (fenced(c, method, path, err))
		return NULL;
	return c->ops->request(c, method, path, query, body, content_type, err);
}

json_t *sk_client_get(sk_client *c, const char *path, sk_error_t *err)
{
	return sk_client_do(c, "GET", path, NULL, NULL, NULL, err);
}

json_t *sk_client_list(sk_client *c, const char *path, const char *query, sk_error_t *err)
{
	return sk_client_do(c, "GET", path, query, NULL, NULL, err);
}

json_t *sk_client_create(sk_client *c, const char *path, json_t *obj, sk_error_t *err)
{
	return sk_client_do(c, "POST", path, NULL, obj, NULL, err);
}

json_t *sk_client_update(sk_client *c, const char *path, json_t *obj, sk_error_t *err)
{
	return sk_client_do(c, "PUT", path, NULL, obj, NULL, err);
}

json_t *sk_client_patch(sk_client *c, const char *path, const char *content_type, json_t *patch, sk_error_t *err)
{
	return sk_client_do(c, "PATCH", path, NULL, patch, content_type, err);
}

static json_t *do_take(sk_client *c, const char *method, const char *path, json_t *obj, sk_error_t *err)
{
	json_t *r;

	if (fenced(c, method, path, err)) {
		json_decref(obj);
		return NULL;
	}
	if (c->ops->request_take)
		return c->ops->request_take(c, method, path, obj, err);
	r = sk_client_do(c, method, path, NULL, obj, NULL, err);
	json_decref(obj);
	return r;
}

json_t *sk_client_create_take(sk_client *c, const char *path, json_t *obj, sk_error_t *err)
{
	return do_take(c, "POST", path, obj, err);
}

json_t *sk_client_update_take(sk_client *c, const char *path, json_t *obj, sk_error_t *err)
{
	return do_take(c, "PUT", path, obj, err);
}

int sk_client_delete(sk_client *c, const char *path, json_t *options, sk_error_t *err)
{
	json_t *r = sk_client_do(c, "DELETE", path, NULL, options, NULL, err);

	if (!r)
		return -1;
	json_decref(r);
	return 0;
}

char *sk_client_get_raw(sk_client *c, const char *path, const char *query, size_t *len, sk_error_t *err)
{
	return c->ops->get_raw(c, path, query, len, err);
}

sk_client_watch *sk_client_watch_start(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
				       void *ud, sk_error_t *err)
{
	return c->ops->watch(c, path, query, cb, ud, err);
}

sk_client_watch *sk_client_watch_start_shared(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
					      void *ud, sk_error_t *err)
{
	if (c->ops->watch_shared)
		return c->ops->watch_shared(c, path, query, cb, ud, err);
	return c->ops->watch(c, path, query, cb, ud, err);
}

void sk_client_watch_stop(sk_client_watch *w)
{
	/* Every transport's watch handle starts with its ops pointer. */
	const struct sk_client_ops *ops;

	if (!w)
		return;
	memcpy(&ops, w, sizeof(ops));
	ops->watch_stop(w);
}

void sk_client_free(sk_client *c)
{
	if (c)
		c->ops->free(c);
}

int sk__client_code_from_reason(const char *reason, int http_code)
{
	static const struct {
		const char *reason;
		int code;
	} map[] = {
		{"NotFound", SK_ENOTFOUND},
		{"AlreadyExists", SK_EEXISTS},
		{"Conflict", SK_ECONFLICT},
		{"Invalid", SK_EINVALID},
		{"Expired", SK_EGONE},
		{"Gone", SK_EGONE},
		{"BadRequest", SK_EBADREQUEST},
		{"RequestEntityTooLarge", SK_ETOOLARGE},
		{"UnsupportedMediaType", SK_EUNSUPPORTED},
		{"MethodNotAllowed", SK_EMETHOD},
		{"Unauthorized", SK_EUNAUTHORIZED},
		{"Forbidden", SK_EFORBIDDEN},
		{"NotAcceptable", SK_ENOTACCEPTABLE},
		{"Timeout", SK_ETIMEOUT},
		{"ServiceUnavailable", SK_EUNAVAILABLE},
	};

	for (size_t i = 0; reason && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(reason, map[i].reason))
			return map[i].code;
	switch (http_code) {
	case 404:
		return SK_ENOTFOUND;
	case 409:
		return SK_ECONFLICT;
	case 410:
		return SK_EGONE;
	case 422:
		return SK_EINVALID;
	case 400:
		return SK_EBADREQUEST;
	default:
		return SK_EINTERNAL;
	}
}
