/* The in-process client transport: requests go straight into
 * sk_api_handle(), so they pass the same validation as HTTP requests. */
#include <string.h>

#include "api/api-int.h"
#include "client/client-int.h"
#include "util/json.h"
#include "util/util.h"

typedef struct inproc_watch {
	const struct sk_client_ops *ops; /* first, see sk_client_watch_stop */
	sk_api_watch *w;
	sk_client_watch_cb cb;
	void *ud;
	pthread_t thread;
	int shared; /* events' objects are shared, read-only */
	int stop;   /* atomic: set by inproc_watch_stop */
} inproc_watch;

/* An in-process client: the generic client and whom it acts as (NULL:
 * system:apiserver). */
typedef struct inproc_client {
	sk_client c; /* first: an sk_client * is an inproc_client * */
	sk_user *user;
} inproc_client;

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *pct_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else if (s[i] == '+') {
			*o++ = ' ';
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

typedef struct args {
	sk_api_arg a[32];
	size_t n;
} args;

static void args_parse(args *a, const char *q)
{
	a->n = 0;
	while (q && *q && a->n < 32) {
		size_t len = strcspn(q, "&"), klen = strcspn(q, "=");

		if (klen > len)
			klen = len;
		if (len) {
			a->a[a->n].key = pct_decode(q, klen);
			a->a[a->n].value = klen < len ? pct_decode(q + klen + 1, len - klen - 1) : xstrdup("");
			a->n++;
		}
		q += len + (q[len] == '&');
	}
}

static void args_release(args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free((char *)a->a[i].key);
		free((char *)a->a[i].value);
	}
	a->n = 0;
}

static void fill_error(const sk_api_response *resp, sk_error_t *err)
{
	cleanup_json json_t *st = resp->obj ? json_incref(resp->obj)
					    : json_loadb(resp->body ? resp->body : "", resp->len, 0, NULL);
	const char *reason = json_string_value(json_object_get(st, "reason"));
	const char *msg = json_string_value(json_object_get(st, "message"));

	sk_error_set(err, sk__client_code_from_reason(reason, resp->status), "%s", msg ? msg : "request failed");
}

static void do_request(sk_client *c, const char *method, const char *path, const char *query, json_t *body, int owned,
		       const char *ctype, sk_api_response *resp)
{
	sk_api_request req = {0};
	args a;

	args_parse(&a, query);
	req.method = method;
	req.path = path;
	req.args = a.a;
	req.nargs = a.n;
	/* objects pass without a JSON round trip; the server works on a copy
	 * unless the caller gave the body up */
	req.body_obj = body;
	req.body_owned = owned;
	req.want_obj = 1;
	req.content_type = ctype;
	req.user = ((inproc_client *)c)->user ? ((inproc_client *)c)->user : sk_user_apiserver();
	sk_api_handle(c->impl, &req, resp);
	args_release(&a);
}

static json_t *request(sk_client *c, const char *method, const char *path, const char *query, json_t *body, int owned,
		       const char *ctype, sk_error_t *err)
{
	sk_api_response resp;
	json_t *out = NULL;

	do_request(c, method, path, query, body, owned, ctype, &resp);
	if (resp.watch) {
		sk_api_watch_free(resp.watch);
		sk_error_set(err, SK_EBADREQUEST, "use sk_client_watch_start for watches");
	} else if (resp.status >= 400) {
		fill_error(&resp, err);
	} else if (resp.obj) {
		out = json_incref(resp.obj);
	} else {
		out = sk_json_loadb(resp.body ? resp.body : "", resp.len);
		if (!out)
			sk_error_set(err, SK_EINTERNAL, "%s %s: response is not JSON", method, path);
	}
	sk_api_response_release(&resp);
	return out;
}

static json_t *inproc_request(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
			      const char *ctype, sk_error_t *err)
{
	return request(c, method, path, query, body, 0, ctype, err);
}

/* The server changes body in place: only when nobody else holds it. */
static json_t *inproc_request_take(sk_client *c, const char *method, const char *path, json_t *body, sk_error_t *err)
{
	json_t *out = request(c, method, path, NULL, body, body && body->refcount == 1, NULL, err);

	json_decref(body);
	return out;
}

static char *inproc_get_raw(sk_client *c, const char *path, const char *query, size_t *len, sk_error_t *err)
{
	sk_api_response resp;
	char *out = NULL;

	do_request(c, "GET", path, query, NULL, 0, NULL, &resp);
	if (resp.status >= 400) {
		fill_error(&resp, err);
	} else if (resp.obj) {
		*len = 0;
		out = sk_json_dumps(resp.obj, len);
	} else {
		out = steal_ptr(&resp.body);
		*len = resp.len;
	}
	if (resp.watch)
		sk_api_watch_free(resp.watch);
	sk_api_response_release(&resp);
	return out;
}

static void *watch_thread(void *arg)
{
	inproc_watch *iw = arg;

	while (!__atomic_load_n(&iw->stop, __ATOMIC_ACQUIRE)) {
		char *type = NULL;
		json_t *obj = NULL;
		int r = sk_api_watch_next_event(iw->w, 200, iw->shared, &type, &obj);
		int stop = 0;

		if (r < 0) {
			if (!__atomic_load_n(&iw->stop, __ATOMIC_ACQUIRE))
				iw->cb("ERROR", NULL, iw->ud);
			break;
		}
		if (r > 0) {
			stop = iw->cb(type, obj, iw->ud);
			if (!strcmp(type, "ERROR"))
				stop = 1;
		}
		free(type);
		json_decref(obj);
		if (stop)
			break;
	}
	return NULL;
}

static const struct sk_client_ops inproc_ops;

static sk_client_watch *watch_start(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb, void *ud,
				    int shared, sk_error_t *err)
{
	cleanup_free char *q = xasprintf("watch=true%s%s", query && *query ? "&" : "", query ? query : "");
	sk_api_response resp;
	inproc_watch *iw;

	do_request(c, "GET", path, q, NULL, 0, NULL, &resp);
	if (!resp.watch) {
		fill_error(&resp, err);
		sk_api_response_release(&resp);
		return NULL;
	}
	iw = xzalloc(sizeof(*iw));
	iw->ops = &inproc_ops;
	iw->w = resp.watch;
	iw->cb = cb;
	iw->ud = ud;
	iw->shared = shared;
	sk_api_response_release(&resp);
	if (pthread_create(&iw->thread, NULL, watch_thread, iw) != 0) {
		sk_api_watch_free(iw->w);
		free(iw);
		sk_error_set(err, SK_EINTERNAL, "cannot start watch thread");
		return NULL;
	}
	return (sk_client_watch *)iw;
}

static sk_client_watch *inproc_watch_start(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
					   void *ud, sk_error_t *err)
{
	return watch_start(c, path, query, cb, ud, 0, err);
}

static sk_client_watch *inproc_watch_shared(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
					    void *ud, sk_error_t *err)
{
	return watch_start(c, path, query, cb, ud, 1, err);
}

static void inproc_watch_stop(sk_client_watch *cw)
{
	inproc_watch *iw = (inproc_watch *)cw;

	__atomic_store_n(&iw->stop, 1, __ATOMIC_RELEASE);
	pthread_join(iw->thread, NULL);
	sk_api_watch_free(iw->w);
	free(iw);
}

static void inproc_free(sk_client *c)
{
	sk_user_free(((inproc_client *)c)->user);
	free(c);
}

static const struct sk_client_ops inproc_ops = {
	.request = inproc_request,
	.request_take = inproc_request_take,
	.get_raw = inproc_get_raw,
	.watch = inproc_watch_start,
	.watch_shared = inproc_watch_shared,
	.watch_stop = inproc_watch_stop,
	.free = inproc_free,
};

sk_client *sk_client_new_inproc(sk_api *api)
{
	inproc_client *ic = xzalloc(sizeof(*ic));

	ic->c.ops = &inproc_ops;
	ic->c.impl = api;
	return &ic->c;
}

sk_client *sk_client_new_inproc_as(sk_api *api, const sk_user *user)
{
	sk_client *c = sk_client_new_inproc(api);

	((inproc_client *)c)->user = sk_user_dup(user);
	return c;
}
