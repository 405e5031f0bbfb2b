#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/http.h"
#include "api/logs.h"
#include "api/stream.h"
#include "util/util.h"

/* The server runs one event loop per core (libmicrohttpd's thread pool over
 * epoll) instead of a thread per connection: a watch event reaches 1,000
 * watchers without 1,000 thread wake-ups and context switches. Nothing may
 * block a loop, so requests that can wait (writes wait for their durable
 * commit; log requests call the node agent) run on worker threads while
 * their connection is suspended, and streams (watches, followed logs) park
 * their connection when they have nothing to send: the event's writer
 * resumes it. A ticker wakes parked streams whose timeout or bookmark is
 * due and notices clients that went away. */
struct sk_http {
	struct MHD_Daemon *d;
	sk_api *api;
	char *admin_token, *node_token;
	char *ca_pem;
	char *cert, *key;

	pthread_mutex_t mu; /* guards the job queue, the workers and stopping */
	pthread_cond_t job_cv, done_cv, tick_cv;
	struct conn_ctx *jobs_head, *jobs_tail;
	pthread_t *workers;
	size_t nworkers, idle, busy;
	pthread_mutex_t smu; /* guards the stream registry (the ticker walks it) */
	struct stream_ctx *streams;
	pthread_t ticker;
	int ticker_started, stopping;
	/* upgraded connections (pods/exec…), each relayed by its own thread;
	 * guarded by smu, counted down under it (relay_cv) */
	struct relay *relays;
	size_t nrelays;
	pthread_cond_t relay_cv;
};

enum { MAX_WORKERS = 512, PIPE_BUFFER_MAX = 1 << 20, MAX_RELAYS = 1024, NHEADERS = 8 };

typedef struct conn_ctx {
	char *body;
	size_t len, cap;
	int too_large;
	int state; /* 0: reading; 1: queued to a worker; 2: answered by it */
	struct MHD_Connection *conn;
	sk_api_request req;
	sk_api_response resp;
	struct conn_ctx *next; /* job queue */
	sk_api_arg args[64];
	size_t nargs;
	char *headers[NHEADERS]; /* joined values handed out by conn_header */
	size_t nheaders;
} conn_ctx;

/* An upgraded connection: the relay thread owns it. */
struct relay {
	sk_http *h;
	struct sk_api_upgrade *u;
	struct MHD_UpgradeResponseHandle *urh;
	int sock;
	char *extra;
	size_t nextra;
	struct relay *prev, *next;
};

typedef struct stream_ctx {
	sk_http *h;
	struct MHD_Connection *conn;
	int sock; /* the client's socket, to notice it went away */
	int gone; /* atomic: the ticker saw the client close */
	struct stream_ctx *prev, *next;
	/* a watch: */
	sk_api_watch *w;
	char *buf;
	size_t len, off;
	/* a pipe (followed logs), read by a pump thread into data: */
	int fd;
	pthread_t pump;
	pthread_mutex_t mu;
	pthread_cond_t room;
	char *data;
	size_t dlen;
	int eof, closing, parked;
} stream_ctx;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	conn_ctx *c = cls;

	(void)kind;
	if (c->nargs < 64) {
		c->args[c->nargs].key = key;
		c->args[c->nargs].value = value ? value : "";
		c->nargs++;
	}
	return MHD_YES;
}

struct hdr_join {
	const char *name;
	char *out;
};

static enum MHD_Result join_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct hdr_join *j = cls;
	char *o;

	(void)kind;
	if (strcasecmp(key, j->name) || !value)
		return MHD_YES;
	o = j->out ? xasprintf("%s, %s", j->out, value) : xstrdup(value);
	free(j->out);
	j->out = o;
	return MHD_YES;
}

/* sk_api_request.header: repeated headers (X-Stream-Protocol-Version)
 * joined with ", "; the value lives until the request completes. */
static const char *conn_header(void *ctx, const char *name)
{
	conn_ctx *c = ctx;
	struct hdr_join j = {name, NULL};

	if (c->nheaders >= NHEADERS)
		return NULL;
	MHD_get_connection_values(c->conn, MHD_HEADER_KIND, join_header, &j);
	if (j.out)
		c->headers[c->nheaders++] = j.out;
	return j.out;
}

/* The shared tokens' identities. The node token is still an administrator
 * (system:masters) until nodes have identities of their own. */
static char *admin_groups[] = {SK_GROUP_MASTERS, SK_GROUP_AUTHENTICATED};
static const sk_user admin_user = {.name = "system:admin", .uid = "", .groups = admin_groups, .ngroups = 2};
static const sk_user node_user = {.name = "system:node", .uid = "", .groups = admin_groups, .ngroups = 2};

static const sk_user *authenticate(sk_http *h, struct MHD_Connection *conn)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);

	if (!auth || strncmp(auth, "Bearer ", 7))
		return NULL;
	auth += 7;
	if (h->admin_token && !strcmp(auth, h->admin_token))
		return &admin_user;
	if (h->node_token && !strcmp(auth, h->node_token))
		return &node_user;
	return NULL;
}

static int client_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* Parking and waking a stream's connection: park runs on the connection's
 * event loop (inside the content reader), wake on any thread, exactly once
 * per park. */
static void park_conn(void *arg)
{
	stream_ctx *s = arg;

	MHD_suspend_connection(s->conn);
}

static void wake_conn(void *arg)
{
	stream_ctx *s = arg;

	MHD_resume_connection(s->conn);
}

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream_ctx *s = cls;

	(void)pos;
	while (s->off >= s->len) {
		size_t n;

		free(s->buf);
		s->buf = NULL;
		s->off = s->len = 0;
		if (__atomic_load_n(&s->gone, __ATOMIC_ACQUIRE))
			return MHD_CONTENT_READER_END_WITH_ERROR;
		s->buf = sk_api_watch_take(s->w, park_conn, s, &n);
		if (!s->buf)
			return n == (size_t)-1 ? MHD_CONTENT_READER_END_OF_STREAM : 0;
		s->len = n;
	}
	if (max > s->len - s->off)
		max = s->len - s->off;
	memcpy(buf, s->buf + s->off, max);
	s->off += max;
	return (ssize_t)max;
}

/* Followed logs: a pump thread moves what the log stream's socket gives
 * into s->data (at most PIPE_BUFFER_MAX ahead of the client). */
static void *pipe_pump(void *arg)
{
	stream_ctx *s = arg;
	char tmp[16384];

	for (;;) {
		ssize_t n = read(s->fd, tmp, sizeof(tmp));
		int fire;

		if (n < 0 && errno == EINTR)
			continue;
		pthread_mutex_lock(&s->mu);
		while (n > 0 && s->dlen >= PIPE_BUFFER_MAX && !s->closing)
			pthread_cond_wait(&s->room, &s->mu);
		if (n > 0 && !s->closing) {
			s->data = xrealloc(s->data, s->dlen + (size_t)n);
			memcpy(s->data + s->dlen, tmp, (size_t)n);
			s->dlen += (size_t)n;
		} else {
			s->eof = 1;
		}
		fire = s->parked;
		s->parked = 0;
		pthread_mutex_unlock(&s->mu);
		if (fire)
			wake_conn(s);
		if (n <= 0 || s->eof)
			return NULL;
	}
}

static ssize_t pipe_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream_ctx *s = cls;
	ssize_t r;

	(void)pos;
	if (__atomic_load_n(&s->gone, __ATOMIC_ACQUIRE))
		return MHD_CONTENT_READER_END_WITH_ERROR;
	pthread_mutex_lock(&s->mu);
	if (s->dlen) {
		if (max > s->dlen)
			max = s->dlen;
		memcpy(buf, s->data, max);
		memmove(s->data, s->data + max, s->dlen - max);
		s->dlen -= max;
		pthread_cond_signal(&s->room);
		r = (ssize_t)max;
	} else if (s->eof || __atomic_load_n(&s->h->stopping, __ATOMIC_ACQUIRE)) {
		r = MHD_CONTENT_READER_END_OF_STREAM;
	} else {
		s->parked = 1;
		park_conn(s);
		r = 0;
	}
	pthread_mutex_unlock(&s->mu);
	return r;
}

static void stream_register(sk_http *h, stream_ctx *s)
{
	pthread_mutex_lock(&h->smu);
	s->next = h->streams;
	if (h->streams)
		h->streams->prev = s;
	h->streams = s;
	pthread_mutex_unlock(&h->smu);
}

/* The response is destroyed: the connection ended or moves on to its next request. */
static void stream_free(void *cls)
{
	stream_ctx *s = cls;
	sk_http *h = s->h;

	pthread_mutex_lock(&h->smu);
	if (s->prev)
		s->prev->next = s->next;
	else
		h->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	pthread_mutex_unlock(&h->smu);
	if (s->w) {
		sk_api_watch_free(s->w);
		free(s->buf);
	} else {
		pthread_mutex_lock(&s->mu);
		s->closing = 1;
		pthread_cond_signal(&s->room);
		pthread_mutex_unlock(&s->mu);
		shutdown(s->fd, SHUT_RDWR);
		pthread_join(s->pump, NULL);
		close(s->fd);
		free(s->data);
	}
	pthread_cond_destroy(&s->room);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static stream_ctx *stream_new(sk_http *h, struct MHD_Connection *conn)
{
	stream_ctx *s = xzalloc(sizeof(*s));
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	s->h = h;
	s->conn = conn;
	s->sock = ci ? ci->connect_fd : -1;
	s->fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->room, NULL);
	return s;
}

/* Once a second: wake parked streams that have something due (a watch's
 * timeout or bookmark, the server's shutdown) or whose client went away. */
static void tick_streams(sk_http *h, int force)
{
	pthread_mutex_lock(&h->smu);
	for (stream_ctx *s = h->streams; s; s = s->next) {
		int gone = client_gone(s->sock);

		if (gone)
			__atomic_store_n(&s->gone, 1, __ATOMIC_RELEASE);
		if (s->w) {
			sk_api_watch_tick(s->w, gone || force);
		} else {
			int fire;

			pthread_mutex_lock(&s->mu);
			fire = s->parked && (gone || force);
			if (fire)
				s->parked = 0;
			pthread_mutex_unlock(&s->mu);
			if (fire)
				wake_conn(s);
		}
	}
	pthread_mutex_unlock(&h->smu);
}

static void *ticker(void *arg)
{
	sk_http *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->stopping) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&h->tick_cv, &h->mu, &ts);
		if (h->stopping)
			break;
		pthread_mutex_unlock(&h->mu);
		tick_streams(h, 0);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static enum MHD_Result send_upgrade(sk_http *h, struct MHD_Connection *conn, sk_api_response *r);

static enum MHD_Result send_response(sk_http *h, struct MHD_Connection *conn, sk_api_response *r)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (r->upgrade)
		return send_upgrade(h, conn, r);
	if (r->watch) {
		stream_ctx *s = stream_new(h, conn);

		s->w = steal_ptr(&r->watch);
		sk_api_watch_set_waker(s->w, wake_conn, s);
		stream_register(h, s);
		mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, watch_reader, s, stream_free);
	} else if (r->stream) {
		stream_ctx *s = stream_new(h, conn);

		s->fd = sk_api_stream_take_fd(steal_ptr(&r->stream));
		if (pthread_create(&s->pump, NULL, pipe_pump, s) != 0) {
			close(s->fd);
			pthread_cond_destroy(&s->room);
			pthread_mutex_destroy(&s->mu);
			free(s);
			sk_api_response_release(r);
			return MHD_NO;
		}
		stream_register(h, s);
		mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, pipe_reader, s, stream_free);
	} else {
		/* kube-apiserver's JSON encoder ends every object with a newline */
		if (r->body && r->len && r->body[r->len - 1] != '\n' &&
		    (!r->content_type || !strncmp(r->content_type, "application/json", 16))) {
			r->body = xrealloc(r->body, r->len + 1);
			r->body[r->len++] = '\n';
		}
		mr = MHD_create_response_from_buffer(r->len, r->body ? r->body : (char *)"",
						     r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		r->body = NULL;
	}
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type ? r->content_type : "application/json");
	MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
	/* one Warning header per line of r->warning */
	for (char *w = r->warning, *nl; w && *w; w = nl ? nl + 1 : NULL) {
		nl = strchr(w, '\n');
		if (nl)
			*nl = '\0';
		MHD_add_response_header(mr, "Warning", w);
	}
	ret = MHD_queue_response(conn, (unsigned)r->status, mr);
	MHD_destroy_response(mr);
	sk_api_response_release(r);
	return ret;
}

/* ---- upgraded connections ---- */

static void relay_free(struct relay *rl)
{
	sk_http *h = rl->h;

	pthread_mutex_lock(&h->smu);
	if (rl->prev)
		rl->prev->next = rl->next;
	else if (h->relays == rl)
		h->relays = rl->next;
	if (rl->next)
		rl->next->prev = rl->prev;
	h->nrelays--;
	pthread_cond_broadcast(&h->relay_cv);
	pthread_mutex_unlock(&h->smu);
	sk_api_upgrade_free(rl->u);
	free(rl->extra);
	free(rl);
}

static void *relay_thread(void *arg)
{
	struct relay *rl = arg;

	sk_api_upgrade_relay(rl->u, rl->sock, rl->extra, rl->nextra, &rl->h->stopping);
	sk_sock_drain_shutdown(rl->sock, 2000);
	MHD_upgrade_action(rl->urh, MHD_UPGRADE_ACTION_CLOSE);
	relay_free(rl);
	return NULL;
}

/* libmicrohttpd hands over the client's socket once the 101 went out. */
static void upgraded(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra, size_t nextra,
		     MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct relay *rl = cls;
	pthread_attr_t attr;
	pthread_t t;

	(void)conn;
	(void)con_cls;
	rl->sock = sock;
	rl->urh = urh;
	if (nextra) {
		rl->extra = xmalloc(nextra);
		memcpy(rl->extra, extra, nextra);
		rl->nextra = nextra;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, relay_thread, rl) != 0) {
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
		relay_free(rl);
	}
	pthread_attr_destroy(&attr);
}

static enum MHD_Result send_upgrade(sk_http *h, struct MHD_Connection *conn, sk_api_response *r)
{
	struct relay *rl = xzalloc(sizeof(*rl));
	struct MHD_Response *mr;
	enum MHD_Result ret;
	const char *name, *value;

	pthread_mutex_lock(&h->smu);
	if (h->nrelays >= MAX_RELAYS || __atomic_load_n(&h->stopping, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&h->smu);
		free(rl);
		sk_api_response_release(r);
		sk__reply_status(r, 503, "ServiceUnavailable", "too many streaming connections", NULL, NULL, NULL);
		return send_response(h, conn, r);
	}
	rl->h = h;
	rl->u = steal_ptr(&r->upgrade);
	rl->sock = -1;
	rl->next = h->relays;
	if (h->relays)
		h->relays->prev = rl;
	h->relays = rl;
	h->nrelays++;
	pthread_mutex_unlock(&h->smu);
	mr = MHD_create_response_for_upgrade(upgraded, rl);
	for (size_t i = 0; sk_api_upgrade_header(rl->u, i, &name, &value); i++)
		MHD_add_response_header(mr, name, value);
	ret = MHD_queue_response(conn, MHD_HTTP_SWITCHING_PROTOCOLS, mr);
	MHD_destroy_response(mr);
	sk_api_response_release(r);
	return ret;
}

/* Requests that never wait run on the event loop; the rest (writes wait
 * for their commit, pods/log for the node agent) on a worker. */
static int runs_inline(const sk_api_request *req)
{
	size_t n = strlen(req->path);

	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD"))
		return 0;
	if ((n >= 5 && !strcmp(req->path + n - 5, "/exec")) || (n >= 7 && !strcmp(req->path + n - 7, "/attach")) ||
	    (n >= 12 && !strcmp(req->path + n - 12, "/portforward")))
		return 0;
	return n < 4 || strcmp(req->path + n - 4, "/log");
}

static void *worker(void *arg)
{
	sk_http *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		conn_ctx *c;

		while (!h->jobs_head && !h->stopping)
			pthread_cond_wait(&h->job_cv, &h->mu);
		if (!h->jobs_head)
			break;
		c = h->jobs_head;
		h->jobs_head = c->next;
		if (!h->jobs_head)
			h->jobs_tail = NULL;
		h->idle--;
		pthread_mutex_unlock(&h->mu);
		sk_api_handle(h->api, &c->req, &c->resp);
		c->state = 2;
		MHD_resume_connection(c->conn);
		pthread_mutex_lock(&h->mu);
		h->idle++;
		h->busy--;
		pthread_cond_broadcast(&h->done_cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Counts a request in for a worker, unless the server stops (then it runs
 * inline: no connection may be suspended once stopping is set). */
static int reserve_worker(sk_http *h)
{
	int ok;

	pthread_mutex_lock(&h->mu);
	ok = !h->stopping;
	if (ok)
		h->busy++;
	pthread_mutex_unlock(&h->mu);
	return ok;
}

/* Queues c (its connection suspended) for a worker, starting one if none is idle. */
static void dispatch(sk_http *h, conn_ctx *c)
{
	pthread_mutex_lock(&h->mu);
	c->next = NULL;
	if (h->jobs_tail)
		h->jobs_tail->next = c;
	else
		h->jobs_head = c;
	h->jobs_tail = c;
	if (h->idle < h->busy && h->nworkers < MAX_WORKERS) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, h) == 0) {
			h->workers = xrealloc(h->workers, (h->nworkers + 1) * sizeof(*h->workers));
			h->workers[h->nworkers++] = t;
			h->idle++;
		}
	}
	pthread_cond_signal(&h->job_cv);
	pthread_mutex_unlock(&h->mu);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	sk_http *h = cls;
	conn_ctx *c = *con_cls;
	sk_api_response resp;

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
	if (c->state == 2) {
		c->state = 0;
		resp = c->resp;
		memset(&c->resp, 0, sizeof(c->resp));
		return send_response(h, conn, &resp);
	}
	c->nargs = 0;
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, c);
	memset(&c->req, 0, sizeof(c->req));
	c->req.method = method;
	c->req.path = url;
	c->req.args = c->args;
	c->req.nargs = c->nargs;
	c->req.body = c->body;
	c->req.body_len = c->too_large ? h->api->opts.max_body + 1 : c->len;
	c->req.content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	c->req.accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	c->conn = conn;
	c->req.header = conn_header;
	c->req.header_ctx = c;
	if (h->ca_pem && !strcmp(url, "/cacerts") && !strcmp(method, "GET")) {
		/* as k3s: a joining agent pins this against its token's hash */
		memset(&resp, 0, sizeof(resp));
		resp.status = 200;
		resp.body = xstrdup(h->ca_pem);
		resp.len = strlen(h->ca_pem);
		resp.content_type = "text/plain; charset=utf-8";
		return send_response(h, conn, &resp);
	}
	c->req.user = authenticate(h, conn);
	if (!c->req.user && (!strcmp(url, "/readyz") || !strcmp(url, "/livez") || !strcmp(url, "/healthz")))
		c->req.user = sk_user_anonymous();
	if (runs_inline(&c->req) || !reserve_worker(h)) {
		sk_api_handle(h->api, &c->req, &resp);
		return send_response(h, conn, &resp);
	}
	c->state = 1;
	c->conn = conn;
	MHD_suspend_connection(conn);
	dispatch(h, c);
	return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	conn_ctx *c = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (c) {
		sk_api_response_release(&c->resp);
		for (size_t i = 0; i < c->nheaders; i++)
			free(c->headers[i]);
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
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TLS | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned loops = ncpu > 4 ? (unsigned)(ncpu > 16 ? 16 : ncpu) : 4;
	struct rlimit rl;
	pthread_condattr_t ca;

	/* a watch is a connection: let thousands of them in */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_init(&h->smu, NULL);
	pthread_cond_init(&h->job_cv, NULL);
	pthread_cond_init(&h->done_cv, NULL);
	pthread_cond_init(&h->relay_cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->tick_cv, &ca);
	pthread_condattr_destroy(&ca);
	h->api = api;
	h->admin_token = xstrdup(o->admin_token);
	h->node_token = xstrdup(o->node_token);
	h->ca_pem = o->ca_pem ? xstrdup(o->ca_pem) : NULL;
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
				MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
				h, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, h, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_THREAD_POOL_SIZE, loops,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)60000, MHD_OPTION_END);
	if (!h->d) {
		sk_http_stop(h);
		sk_error_set(err, SK_EINTERNAL, "cannot listen on %s:%d (address in use?)", o->host, o->port);
		return NULL;
	}
	if (pthread_create(&h->ticker, NULL, ticker, h) == 0)
		h->ticker_started = 1;
	return h;
}

/* libmicrohttpd must not be stopped with a suspended connection: streams
 * are ended first (every one parked before the shutdown flag is woken; none
 * parks after it), then the requests on workers are waited for. */
void sk_http_stop(sk_http *h)
{
	struct timespec until;

	if (!h)
		return;
	sk_api_shutdown(h->api);
	pthread_mutex_lock(&h->mu);
	__atomic_store_n(&h->stopping, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&h->tick_cv);
	pthread_mutex_unlock(&h->mu);
	if (h->ticker_started)
		pthread_join(h->ticker, NULL);
	tick_streams(h, 1);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	/* relays see stopping within a second and close their connections */
	pthread_mutex_lock(&h->smu);
	while (h->nrelays && pthread_cond_timedwait(&h->relay_cv, &h->smu, &until) == 0)
		;
	pthread_mutex_unlock(&h->smu);
	pthread_mutex_lock(&h->mu);
	while (h->busy && pthread_cond_timedwait(&h->done_cv, &h->mu, &until) == 0)
		;
	pthread_mutex_unlock(&h->mu);
	if (h->d)
		MHD_stop_daemon(h->d);
	pthread_mutex_lock(&h->mu);
	pthread_cond_broadcast(&h->job_cv);
	pthread_mutex_unlock(&h->mu);
	for (size_t i = 0; i < h->nworkers; i++)
		pthread_join(h->workers[i], NULL);
	free(h->workers);
	pthread_cond_destroy(&h->job_cv);
	pthread_cond_destroy(&h->done_cv);
	pthread_cond_destroy(&h->tick_cv);
	pthread_cond_destroy(&h->relay_cv);
	pthread_mutex_destroy(&h->mu);
	pthread_mutex_destroy(&h->smu);
	free(h->admin_token);
	free(h->node_token);
	free(h->ca_pem);
	free(h->cert);
	free(h->key);
	free(h);
}
