#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>

#include "api/api-int.h"
#include "api/http.h"
#include "api/logs.h"
#include "util/util.h"

struct sk_http {
	struct MHD_Daemon *d;
	sk_api *api;
	char *admin_token, *node_token;
	char *cert, *key;
};

typedef struct conn_ctx {
	char *body;
	size_t len, cap;
	int too_large;
} conn_ctx;

typedef struct stream_ctx {
	sk_api_watch *w;
	struct MHD_Connection *conn;
	char *buf;
	size_t len, off;
} stream_ctx;

typedef struct arg_collect {
	sk_api_arg a[64];
	size_t n;
} arg_collect;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	arg_collect *c = cls;

	(void)kind;
	if (c->n < 64) {
		c->a[c->n].key = key;
		c->a[c->n].value = value ? value : "";
		c->n++;
	}
	return MHD_YES;
}

static const char *authenticate(sk_http *h, struct MHD_Connection *conn)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);

	if (!auth || strncmp(auth, "Bearer ", 7))
		return NULL;
	auth += 7;
	if (h->admin_token && !strcmp(auth, h->admin_token))
		return "admin";
	if (h->node_token && !strcmp(auth, h->node_token))
		return "system:node";
	return NULL;
}

static int client_gone(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct pollfd p;

	if (!ci)
		return 0;
	p.fd = ci->connect_fd;
	p.events = POLLRDHUP;
	p.revents = 0;
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream_ctx *s = cls;

	(void)pos;
	while (s->off >= s->len) {
		size_t n;

		free(s->buf);
		s->buf = sk_api_watch_next(s->w, 1000, &n);
		s->off = 0;
		s->len = 0;
		if (!s->buf && n == (size_t)-1)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (!s->buf) {
			if (client_gone(s->conn))
				return MHD_CONTENT_READER_END_WITH_ERROR;
			continue;
		}
		s->len = n;
	}
	if (max > s->len - s->off)
		max = s->len - s->off;
	memcpy(buf, s->buf + s->off, max);
	s->off += max;
	return (ssize_t)max;
}

static void watch_free(void *cls)
{
	stream_ctx *s = cls;

	sk_api_watch_free(s->w);
	free(s->buf);
	free(s);
}

static enum MHD_Result send_response(struct MHD_Connection *conn, sk_api_response *r)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (r->watch) {
		stream_ctx *s = xzalloc(sizeof(*s));

		s->w = steal_ptr(&r->watch);
		s->conn = conn;
		mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, watch_reader, s, watch_free);
	} else if (r->stream) {
		mr = MHD_create_response_from_pipe(sk_api_stream_take_fd(steal_ptr(&r->stream)));
	} else {
		mr = MHD_create_response_from_buffer(r->len, r->body ? r->body : (char *)"", r->body ? MHD_RESPMEM_MUST_FREE
												   : MHD_RESPMEM_PERSISTENT);
		r->body = NULL;
	}
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type ? r->content_type : "application/json");
	MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
	if (r->warning)
		MHD_add_response_header(mr, "Warning", r->warning);
	ret = MHD_queue_response(conn, (unsigned)r->status, mr);
	MHD_destroy_response(mr);
	sk_api_response_release(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	sk_http *h = cls;
	conn_ctx *c = *con_cls;
	sk_api_request req = {0};
	sk_api_response resp;
	arg_collect args = {.n = 0};

	(void)version;
	if (!c) {
		*con_cls = xzalloc(sizeof(conn_ctx));
		return MHD_YES;
	}
	if (*upload_size) {
		if (c->len + *upload_size > h->api->opts.max_body) {
			c->too_large = 1;
		} else {
			if (c->len + *upload_size + 1 > c->cap) {
				c->cap = (c->len + *upload_size + 1) * 2;
				c->body = xrealloc(c->body, c->cap);
			}
			memcpy(c->body + c->len, upload, *upload_size);
			c->len += *upload_size;
			c->body[c->len] = '\0';
		}
		*upload_size = 0;
		return MHD_YES;
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	req.method = method;
	req.path = url;
	req.args = args.a;
	req.nargs = args.n;
	req.body = c->body;
	req.body_len = c->too_large ? h->api->opts.max_body + 1 : c->len;
	req.content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	req.accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	req.user = authenticate(h, conn);
	if (!req.user && (!strcmp(url, "/readyz") || !strcmp(url, "/livez") || !strcmp(url, "/healthz")))
		req.user = "system:anonymous";
	sk_api_handle(h->api, &req, &resp);
	return send_response(conn, &resp);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	conn_ctx *c = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (c) {
		free(c->body);
		free(c);
		*con_cls = NULL;
	}
}

/* Responses go out as several small TLS records: without TCP_NODELAY each
 * request waits for the client's delayed ACK (40 ms). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	int one = 1;

	(void)cls;
	(void)socket_ctx;
	if (code != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci)
		setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	sk_debug("http", "%s", buf);
}

sk_http *sk_http_start(sk_api *api, const sk_http_options *o, sk_error_t *err)
{
	sk_http *h = xzalloc(sizeof(*h));
	struct sockaddr_in6 a6 = {0};
	struct sockaddr_in a4 = {0};
	struct sockaddr *sa;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS |
			 MHD_USE_ERROR_LOG | MHD_USE_POLL;

	h->api = api;
	h->admin_token = xstrdup(o->admin_token);
	h->node_token = xstrdup(o->node_token);
	h->cert = xstrdup(o->cert_pem);
	h->key = xstrdup(o->key_pem);
	if (inet_pton(AF_INET, o->host, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)o->port);
		sa = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, o->host, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)o->port);
		sa = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		sk_http_stop(h);
		sk_error_set(err, SK_EBADREQUEST, "listen address \"%s\" is not an IP address", o->host);
		return NULL;
	}
	h->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, handler, h, MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_HTTPS_MEM_CERT, h->cert, MHD_OPTION_HTTPS_MEM_KEY, h->key,
				MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, h,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0, MHD_OPTION_LISTENING_ADDRESS_REUSE,
				(unsigned)1, MHD_OPTION_END);
	if (!h->d) {
		sk_http_stop(h);
		sk_error_set(err, SK_EINTERNAL, "cannot listen on %s:%d (address in use?)", o->host, o->port);
		return NULL;
	}
	return h;
}

void sk_http_stop(sk_http *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	free(h->admin_token);
	free(h->node_token);
	free(h->cert);
	free(h->key);
	free(h);
}
