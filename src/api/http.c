#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/authn.h"
#include "api/console.h"
#include "api/http.h"
#include "api/logs.h"
#include "util/mhdup.h"
#include "util/netif.h"
#include "api/stream.h"
#include "util/util.h"

enum { ADDR_BUCKETS = 1024 };

/* What a connection is doing, for its deadline and for shedding. */
enum conn_phase {
	PH_WAIT,   /* waiting for a request's headers (pre: never authenticated; kept: kept alive) */
	PH_BODY,   /* authenticated, reading the body */
	PH_BUSY,   /* handled or answered (the write deadline is libmicrohttpd's timeout) */
	PH_STREAM, /* a watch or followed logs: no deadline but the write one */
	PH_GONE,   /* shut down by us, waiting for libmicrohttpd to close it */
};

struct addr_count {
	struct addr_count *next;
	unsigned char key[17]; /* family and address */
	unsigned n;
};

typedef struct conn_rec {
	struct conn_rec *prev, *next;
	struct conn_list *list;
	struct addr_count *addr;
	int fd;
	int authed; /* a request of this connection was authenticated */
	int spoke;  /* the client sent a byte (known once it was looked at) */
	enum conn_phase phase;
	time_t since; /* monotonic seconds: the phase's start */
	/* what the connection's client certificate proved: checked on its
	 * first request (a TLS connection's peer certificate does not change)
	 * and again once a minute (its validity dates); only the connection's
	 * event loop reads or writes these */
	int cert_checked, cert_rc; /* cert_rc: sk_authn_session's */
	sk_user *cert_user;
	int64_t cert_until; /* monotonic ns */
	void *upbuf;        /* the upgrade relay's buffers (util/mhdup.h), freed at close */
} conn_rec;

struct conn_list {
	conn_rec *head, *tail;
	size_t n;
};

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
	sk_authn *authn;
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

	/* the connection registry (limits and deadlines), guarded by cmu */
	pthread_mutex_t cmu;
	struct conn_list pre, spoke, kept, active; /* oldest first */
	size_t nconns;                             /* registered, the shut down ones included */
	struct addr_count *addrs[ADDR_BUCKETS];
	unsigned max_conns, max_per_addr, max_unauth;
	unsigned header_timeout, idle_timeout, body_timeout;
	size_t ngone;       /* shut down, not yet closed */
	time_t last_expire; /* the ticker's last deadline pass (monotonic s) */
	/* upgraded connections (pods/exec…), all relayed by relay_hub's
	 * thread; guarded by smu, counted down under it (relay_cv) */
	struct sk_api_relays *relay_hub;
	struct relay *relays;
	size_t nrelays;
	pthread_cond_t relay_cv;
};

enum { MAX_WORKERS = 512, PIPE_BUFFER_MAX = 1 << 20, MAX_RELAYS = 1024, NHEADERS = 8 };

/* TLS 1.2 and 1.3 only, as kube-apiserver's default minimum (VersionTLS12).
 * With a trust list (the cluster CA) libmicrohttpd asks every client for a
 * certificate; one that sends none goes on to the bearer token. */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

typedef struct conn_ctx {
	char *body;
	size_t len, cap;
	int too_large;
	sk_user *user; /* decided on the request's first call (owned) */
	int anonymous; /* no user: system:anonymous on a public path */
	char ip[INET6_ADDRSTRLEN];
	char *uri; /* the request URI for the audit log */
	int state; /* 0: reading; 1: queued to a worker; 2: answered by it */
	struct MHD_Connection *conn;
	sk_api_request req;
	sk_api_response resp;
	struct conn_ctx *next; /* job queue */
	sk_api_arg args[64];
	size_t nargs;
	sk_api_arg imp[32]; /* Impersonate-* headers */
	size_t nimp;
	char *headers[NHEADERS]; /* joined values handed out by conn_header */
	size_t nheaders;
} conn_ctx;

/* An upgraded connection: u until the 101 went out, then the relay
 * thread's (stream.c) until its done callback. */
struct relay {
	sk_http *h;
	struct sk_api_upgrade *u;
	struct MHD_UpgradeResponseHandle *urh;
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
	/* a pipe (followed logs), read by a pump thread into data: */
	struct sk_api_stream *st; /* owns fd */
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

static enum MHD_Result collect_impersonate(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	conn_ctx *c = cls;

	(void)kind;
	if (strncasecmp(key, "Impersonate-", 12))
		return MHD_YES;
	if (c->nimp == sizeof(c->imp) / sizeof(c->imp[0]))
		return MHD_NO;
	c->imp[c->nimp].key = key;
	c->imp[c->nimp].value = value ? value : "";
	c->nimp++;
	return MHD_YES;
}

enum { CERT_RECHECK_NS = 60 * 1000000000LL };

/* sk_authn_session for the request's connection, from its conn_rec. */
static int session_user(sk_http *h, struct MHD_Connection *conn, sk_user **u)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	const union MHD_ConnectionInfo *sc = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_rec *r = sc ? sc->socket_context : NULL;
	int64_t now = sk_mono_ns();

	*u = NULL;
	if (!ci)
		return 0;
	if (!r)
		return sk_authn_session(h->authn, (gnutls_session_t)ci->tls_session, u);
	if (!r->cert_checked || now >= r->cert_until) {
		sk_user_free(r->cert_user);
		r->cert_user = NULL;
		r->cert_rc = sk_authn_session(h->authn, (gnutls_session_t)ci->tls_session, &r->cert_user);
		r->cert_checked = 1;
		r->cert_until = now + CERT_RECHECK_NS;
	}
	if (r->cert_rc > 0)
		*u = sk_user_dup(r->cert_user);
	return r->cert_rc;
}

/* The request's user (caller frees), or NULL; *presented says credentials
 * came: wrong ones are 401 even where anybody may ask. As upstream's union
 * of authenticators, a client certificate first, then a bearer token
 * ("Bearer TOKEN", the word in any case). */
static sk_user *authenticate(sk_http *h, struct MHD_Connection *conn, int *presented)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	cleanup_free char *token = NULL;
	sk_user *u = NULL;
	int rc = session_user(h, conn, &u);

	*presented = rc != 0;
	if (u)
		return u;
	if (!auth || strncasecmp(auth, "bearer ", 7))
		return NULL;
	*presented = 1;
	token = xstrndup(auth + 7, strcspn(auth + 7, " "));
	return sk_authn_token(h->authn, token);
}

static int client_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* ---- the connection registry: limits, deadlines and shedding ----
 *
 * Every connection is in one list by what it does: pre (waiting for the
 * headers of a request and never authenticated; spoke: the same, known to
 * have sent a byte), kept (kept alive after an authenticated request) or
 * active (reading an authenticated body, being answered, streaming). Each
 * list is oldest first, so the ticker finds the connections past their
 * deadline at its head, and room is made by closing the oldest silent pre
 * connection, then the oldest that spoke, then the oldest kept one: an
 * authenticated client gets in (it speaks at once) while unauthenticated
 * ones are shed. A connection is
 * closed by shutting its socket down (under cmu, which the close
 * notification takes before libmicrohttpd closes the descriptor); its loop
 * then sees the end and frees it. */

static time_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void list_remove(conn_rec *r)
{
	struct conn_list *l = r->list;

	if (!l)
		return;
	if (r->prev)
		r->prev->next = r->next;
	else
		l->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		l->tail = r->prev;
	l->n--;
	r->prev = r->next = NULL;
	r->list = NULL;
}

static void list_append(struct conn_list *l, conn_rec *r)
{
	r->list = l;
	r->next = NULL;
	r->prev = l->tail;
	if (l->tail)
		l->tail->next = r;
	else
		l->head = r;
	l->tail = r;
	l->n++;
}

/* Moves r to phase ph (the list that goes with it), under cmu. */
static void set_phase(sk_http *h, conn_rec *r, enum conn_phase ph)
{
	if (r->phase == PH_GONE)
		return;
	list_remove(r);
	r->phase = ph;
	r->since = mono_now();
	if (ph == PH_WAIT)
		list_append(r->authed ? &h->kept : r->spoke ? &h->spoke : &h->pre, r);
	else
		list_append(&h->active, r);
}

static void conn_phase(sk_http *h, struct MHD_Connection *conn, enum conn_phase ph, int authed)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_rec *r = ci ? ci->socket_context : NULL;

	if (!r)
		return;
	pthread_mutex_lock(&h->cmu);
	if (authed)
		r->authed = 1;
	set_phase(h, r, ph);
	pthread_mutex_unlock(&h->cmu);
}

/* Closes r (under cmu). */
static void shed(sk_http *h, conn_rec *r)
{
	list_remove(r);
	r->phase = PH_GONE;
	shutdown(r->fd, SHUT_RDWR);
	h->ngone++;
}

static unsigned addr_hash(const unsigned char *k)
{
	unsigned x = 2166136261u;

	for (int i = 0; i < 17; i++)
		x = (x ^ k[i]) * 16777619u;
	return x % ADDR_BUCKETS;
}

static void addr_key(const struct sockaddr *sa, unsigned char key[17])
{
	memset(key, 0, 17);
	if (!sa)
		return;
	key[0] = (unsigned char)sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static struct addr_count *addr_get(sk_http *h, const struct sockaddr *sa)
{
	unsigned char key[17];
	struct addr_count **b, *a;

	addr_key(sa, key);
	b = &h->addrs[addr_hash(key)];
	for (a = *b; a; a = a->next)
		if (!memcmp(a->key, key, sizeof(key)))
			return a;
	a = xzalloc(sizeof(*a));
	memcpy(a->key, key, sizeof(key));
	a->next = *b;
	*b = a;
	return a;
}

static void addr_put(sk_http *h, struct addr_count *a)
{
	struct addr_count **p;

	if (--a->n)
		return;
	for (p = &h->addrs[addr_hash(a->key)]; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			free(a);
			return;
		}
	}
}

/* Sheds the oldest never-authenticated connection, the silent ones (not a
 * byte received: an idle flood) before those that spoke (a client in its
 * TLS handshake or sending its headers). Each connection is looked at
 * once: one that spoke moves to the spoke list. 0 when none is left. */
static int shed_unauthenticated(sk_http *h, struct addr_count *only)
{
	for (conn_rec *r = h->pre.head, *next; r; r = next) {
		next = r->next;
		if (only && r->addr != only)
			continue;
		if (!sk_socket_received_any(r->fd)) {
			shed(h, r);
			return 1;
		}
		list_remove(r);
		r->spoke = 1;
		list_append(&h->spoke, r);
	}
	for (conn_rec *r = h->spoke.head; r; r = r->next) {
		if (!only || r->addr == only) {
			shed(h, r);
			return 1;
		}
	}
	return 0;
}

/* Makes room for one more connection of address a: sheds unauthenticated
 * connections, else the oldest kept-alive one, while the totals are at
 * their caps. 0 when the new one may stay. */
static int make_room(sk_http *h, struct addr_count *a)
{
	if (a->n > h->max_per_addr)
		return shed_unauthenticated(h, a) ? 0 : -1;
	while (h->pre.n + h->spoke.n > h->max_unauth && shed_unauthenticated(h, NULL))
		;
	while (h->nconns - h->ngone > h->max_conns) {
		if (shed_unauthenticated(h, NULL))
			continue;
		if (!h->kept.head)
			return -1;
		shed(h, h->kept.head);
	}
	return 0;
}

/* The header deadline measures the client, not the server: while a
 * connection's socket holds bytes the server has not read yet (its TLS
 * handshake or headers queued behind a busy event loop: 1,000 watches
 * opened at once on a loaded machine), the elapsed dt seconds are not
 * charged. kube-apiserver's Go server gives a TLS handshake and then the
 * request's headers ReadHeaderTimeout (32 s) each; here one 32 s deadline
 * covers both, as the client's time. A slow-loris client, whose bytes the
 * server reads as they come, is still closed at it. */
int sk_http_header_expired(int fd, time_t *since, time_t now, time_t dt, unsigned timeout)
{
	int unread = 0;

	if (dt > 0 && fd >= 0 && ioctl(fd, FIONREAD, &unread) == 0 && unread > 0)
		*since += dt;
	return now - *since >= (time_t)timeout;
}

/* Once a second: closes the connections past their deadline. */
static void expire_conns(sk_http *h)
{
	time_t now = mono_now(), dt = h->last_expire ? now - h->last_expire : 0;
	unsigned shed_pre = 0;

	h->last_expire = now;
	pthread_mutex_lock(&h->cmu);
	for (struct conn_list *l = &h->pre; l; l = l == &h->pre ? &h->spoke : NULL) {
		for (conn_rec *r = l->head, *next; r; r = next) {
			next = r->next;
			if (sk_http_header_expired(r->fd, &r->since, now, dt, h->header_timeout)) {
				shed(h, r);
				shed_pre++;
			}
		}
	}
	while (h->kept.head && now - h->kept.head->since >= (time_t)h->idle_timeout)
		shed(h, h->kept.head);
	for (conn_rec *r = h->active.head, *next; r; r = next) {
		next = r->next;
		if (r->phase == PH_BODY && now - r->since >= (time_t)h->body_timeout)
			shed(h, r);
	}
	pthread_mutex_unlock(&h->cmu);
	if (shed_pre)
		sk_debug("http", "closed %u connections: no request headers within %u s", shed_pre, h->header_timeout);
}

static void conn_started(sk_http *h, struct MHD_Connection *conn, void **socket_ctx)
{
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *ad = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	conn_rec *r = xzalloc(sizeof(*r));

	r->fd = fd ? fd->connect_fd : -1;
	pthread_mutex_lock(&h->cmu);
	r->addr = addr_get(h, ad ? ad->client_addr : NULL);
	r->addr->n++;
	h->nconns++;
	set_phase(h, r, PH_WAIT);
	if (make_room(h, r->addr) < 0) {
		sk_debug("http", "connection closed: at the connection limit");
		shed(h, r);
	}
	pthread_mutex_unlock(&h->cmu);
	*socket_ctx = r;
}

static void conn_closed(sk_http *h, void **socket_ctx)
{
	conn_rec *r = *socket_ctx;

	if (!r)
		return;
	pthread_mutex_lock(&h->cmu);
	if (r->phase == PH_GONE)
		h->ngone--;
	list_remove(r);
	addr_put(h, r->addr);
	h->nconns--;
	pthread_mutex_unlock(&h->cmu);
	sk_user_free(r->cert_user);
	free(r->upbuf);
	free(r);
	*socket_ctx = NULL;
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
	ssize_t n;

	(void)pos;
	if (__atomic_load_n(&s->gone, __ATOMIC_ACQUIRE))
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = sk_api_watch_read(s->w, buf, max, park_conn, s);
	return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
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
	} else {
		pthread_mutex_lock(&s->mu);
		s->closing = 1;
		pthread_cond_signal(&s->room);
		pthread_mutex_unlock(&s->mu);
		shutdown(s->fd, SHUT_RDWR);
		pthread_join(s->pump, NULL);
		sk_api_stream_free(s->st);
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
		expire_conns(h);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static enum MHD_Result send_upgrade(sk_http *h, struct MHD_Connection *conn, sk_api_response *r);

/* Queues r on conn; close_after: the connection ends after it (the rest of
 * the request is never read). */
static enum MHD_Result send_response(sk_http *h, struct MHD_Connection *conn, sk_api_response *r, int close_after)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (r->upgrade)
		return send_upgrade(h, conn, r);
	if (r->watch) {
		stream_ctx *s = stream_new(h, conn);

		conn_phase(h, conn, PH_STREAM, 0);
		s->w = steal_ptr(&r->watch);
		sk_api_watch_set_waker(s->w, wake_conn, s);
		stream_register(h, s);
		mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, watch_reader, s, stream_free);
	} else if (r->stream) {
		stream_ctx *s = stream_new(h, conn);

		conn_phase(h, conn, PH_STREAM, 0);
		s->st = steal_ptr(&r->stream);
		s->fd = sk_api_stream_fd(s->st);
		if (pthread_create(&s->pump, NULL, pipe_pump, s) != 0) {
			sk_api_stream_free(s->st);
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
	if (r->audit_id[0])
		MHD_add_response_header(mr, "Audit-Id", r->audit_id);
	if (close_after)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_CONNECTION, "close");
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
	free(rl);
}

/* The end of an upgraded connection, on the relay thread (stream.c). Its
 * flush exists because libmicrohttpd 0.9.75's close is racy under its
 * edge-triggered loop: its shutdown of the socketpair comes before the
 * handle is marked closed, and an end of stream it reads first finishes
 * one direction only; the handle is then looked at again only when the
 * client sends something, so a client waiting for the server to close (the
 * Python client, whose select() does not see frames its TLS layer already
 * holds) would wait forever. So once libmicrohttpd has taken all the relay
 * wrote and the client has acknowledged it, the relay shuts the client's
 * TCP connection for writing: the client reads the rest and closes, which
 * ends libmicrohttpd's side. */
static void relay_done(void *arg)
{
	struct relay *rl = arg;

	MHD_upgrade_action(rl->urh, MHD_UPGRADE_ACTION_CLOSE);
	relay_free(rl);
}

/* libmicrohttpd hands over the client's socket once the 101 went out. */
static void upgraded(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra, size_t nextra,
		     MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct relay *rl = cls;
	struct sk_api_upgrade *u;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *sc = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_rec *r = sc ? sc->socket_context : NULL;

	(void)con_cls;
	/* libmicrohttpd 0.9.75 would relay the TLS side 4 bytes at a time */
	if (r && !r->upbuf)
		r->upbuf = sk_mhd_upgrade_buffers(urh, SK_MHD_UPGRADE_BUF);
	rl->urh = urh;
	u = steal_ptr(&rl->u); /* the relay thread's from here, rl too */
	if (sk_api_relays_add(rl->h->relay_hub, u, sock, ci ? ci->connect_fd : -1, extra, nextra, relay_done, rl) < 0) {
		rl->u = u;
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
		relay_free(rl);
	}
}

static enum MHD_Result send_upgrade(sk_http *h, struct MHD_Connection *conn, sk_api_response *r)
{
	struct relay *rl = xzalloc(sizeof(*rl));
	struct MHD_Response *mr;
	enum MHD_Result ret;
	const char *name, *value;

	conn_phase(h, conn, PH_STREAM, 0);
	pthread_mutex_lock(&h->smu);
	if (h->nrelays >= MAX_RELAYS || __atomic_load_n(&h->stopping, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&h->smu);
		free(rl);
		sk_api_response_release(r);
		sk__reply_status(r, 503, "ServiceUnavailable", "too many streaming connections", NULL, NULL, NULL);
		return send_response(h, conn, r, 0);
	}
	rl->h = h;
	rl->u = steal_ptr(&r->upgrade);
	rl->next = h->relays;
	if (h->relays)
		h->relays->prev = rl;
	h->relays = rl;
	h->nrelays++;
	pthread_mutex_unlock(&h->smu);
	mr = MHD_create_response_for_upgrade(upgraded, rl);
	for (size_t i = 0; sk_api_upgrade_header(rl->u, i, &name, &value); i++)
		MHD_add_response_header(mr, name, value);
	if (r->audit_id[0])
		MHD_add_response_header(mr, "Audit-Id", r->audit_id);
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decoding as upstream keeps a path: the escapes of '/', '%' and NUL
 * stay escaped in the path (a segment's "%2F" is not a separator; the API
 * decodes them within the segment), the query is decoded whole. The path is
 * the one string libmicrohttpd hands us that starts with '/'. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	char *w = s;

	(void)cls;
	(void)conn;
	if (*s != '/')
		return MHD_http_unescape(s);
	for (const char *r = s; *r; r++) {
		int hi, lo;

		if (*r == '%' && (hi = hexval(r[1])) >= 0 && (lo = hexval(r[2])) >= 0) {
			int ch = hi * 16 + lo;

			if (ch == '/' || ch == '%' || ch == 0) {
				*w++ = '%';
				*w++ = "0123456789ABCDEF"[hi];
				*w++ = "0123456789ABCDEF"[lo];
			} else {
				*w++ = (char)ch;
			}
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* What the audit log records of the client: its address, its agent and
 * the request URI (the path as sent and the query, escaped again). */
static void audit_fields(struct MHD_Connection *conn, conn_ctx *c, sk_api_request *req)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	size_t cap = strlen(req->path) + 2, len;

	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, c->ip, sizeof(c->ip));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, c->ip, sizeof(c->ip));
	req->source_ip = c->ip[0] ? c->ip : NULL;
	req->user_agent = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_USER_AGENT);
	free(c->uri);
	for (size_t i = 0; i < req->nargs; i++)
		cap += 3 * (strlen(req->args[i].key) + strlen(req->args[i].value)) + 2;
	c->uri = xmalloc(cap);
	len = (size_t)snprintf(c->uri, cap, "%s", req->path);
	for (size_t i = 0; i < req->nargs; i++) {
		char *k = curl_easy_escape(NULL, req->args[i].key, 0),
		     *v = curl_easy_escape(NULL, req->args[i].value, 0);

		len += (size_t)snprintf(c->uri + len, cap - len, "%c%s=%s", i ? '&' : '?', k ? k : "", v ? v : "");
		curl_free(k);
		curl_free(v);
	}
	req->request_uri = c->uri;
}

/* The web console's files, served to anybody: what the page then asks of
 * the API carries the user's token. */
static enum MHD_Result send_console(struct MHD_Connection *conn, const char *url, const char *method)
{
	const sk_console_asset *a;
	const char *location, *text = "";
	int code = sk_console_lookup(url, method, &a, &location);
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (code == 404)
		text = "404 page not found\n";
	else if (code == 405)
		text = "405 method not allowed\n";
	mr = a ? MHD_create_response_from_buffer(a->len, (void *)a->data, MHD_RESPMEM_PERSISTENT)
	       : MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, a ? a->content_type : "text/plain; charset=utf-8");
	MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
	MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(mr, "X-Frame-Options", "DENY");
	MHD_add_response_header(mr, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
	if (location)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_LOCATION, location);
	if (code == 405)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, (unsigned)code, mr);
	MHD_destroy_response(mr);
	return ret;
}

/* What anybody may reach without credentials, as system:anonymous. */
static int public_path(const char *url)
{
	return !strcmp(url, "/readyz") || !strcmp(url, "/livez") || !strcmp(url, "/healthz") ||
	       !strcmp(url, "/version");
}

/* The first call of a request: its headers are in, nothing of its body is
 * read yet. Authentication is decided here, so an unauthenticated client
 * gets its 401 at once (no 100 Continue) and its body is never read or
 * buffered; the connection closes after the answer. An authenticated body
 * past the limit is read and dropped (not kept) for its 413. */
static enum MHD_Result first_call(sk_http *h, struct MHD_Connection *conn, const char *url, const char *method,
				  void **con_cls)
{
	int presented, anonymous;
	sk_user *user = authenticate(h, conn, &presented);
	sk_api_response resp;
	conn_ctx *c;

	anonymous = !user && !presented && public_path(url);
	if (!user && !anonymous && !(h->ca_pem && !strcmp(url, "/cacerts") && !strcmp(method, "GET")) &&
	    !(!presented && sk_console_path(url))) {
		conn_ctx tmp = {0};
		sk_api_request req = {.method = method, .path = url};
		enum MHD_Result r;

		tmp.nargs = 0;
		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &tmp);
		req.args = tmp.args;
		req.nargs = tmp.nargs;
		audit_fields(conn, &tmp, &req);
		sk_api_handle(h->api, &req, &resp);
		r = send_response(h, conn, &resp, 1);
		free(tmp.uri);
		return r;
	}
	c = xzalloc(sizeof(*c));
	c->user = user;
	c->anonymous = anonymous;
	*con_cls = c;
	conn_phase(h, conn, PH_BODY, user != NULL);
	return MHD_YES;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	sk_http *h = cls;
	conn_ctx *c = *con_cls;
	sk_api_response resp;

	(void)version;
	if (!c)
		return first_call(h, conn, url, method, con_cls);
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
		return send_response(h, conn, &resp, 0);
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
	audit_fields(conn, c, &c->req);
	c->conn = conn;
	c->req.header = conn_header;
	c->req.header_ctx = c;
	if (sk_console_path(url))
		return send_console(conn, url, method);
	if (h->ca_pem && !strcmp(url, "/cacerts") && !strcmp(method, "GET")) {
		/* as k3s: a joining agent pins this against its token's hash */
		memset(&resp, 0, sizeof(resp));
		resp.status = 200;
		resp.body = xstrdup(h->ca_pem);
		resp.len = strlen(h->ca_pem);
		resp.content_type = "text/plain; charset=utf-8";
		return send_response(h, conn, &resp, 0);
	}
	c->req.user = c->user ? c->user : c->anonymous ? sk_user_anonymous() : NULL;
	c->nimp = 0;
	MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_impersonate, c);
	c->req.impersonate = c->imp;
	c->req.nimpersonate = c->nimp;
	conn_phase(h, conn, PH_BUSY, 0);
	if (strstr(url, "%00")) {
		/* a NUL would end the name: refused as a malformed request */
		memset(&resp, 0, sizeof(resp));
		sk__reply_status(&resp, 400, "BadRequest", "invalid request path: it contains an escaped NUL (%00)",
				 NULL, NULL, NULL);
		return send_response(h, conn, &resp, 0);
	}
	if (runs_inline(&c->req) || !reserve_worker(h)) {
		sk_api_handle(h->api, &c->req, &resp);
		return send_response(h, conn, &resp, 0);
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

	(void)toe;
	conn_phase(cls, conn, PH_WAIT, 0);
	if (c) {
		sk_api_response_release(&c->resp);
		sk_user_free(c->user);
		free(c->uri);
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

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		conn_closed(cls, socket_ctx);
		return;
	}
	conn_started(cls, conn, socket_ctx);
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

/* A listening socket of our own (not libmicrohttpd's): no SO_REUSEPORT, so
 * a second server on the same address fails here instead of sharing the
 * port's clients with the first, and the error names the address. */
static int listen_socket(const struct sockaddr *sa, socklen_t len, const char *host, int port, sk_error_t *err)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return sk_error_set(err, SK_EINTERNAL, "listen tcp %s:%d: socket: %s", host, port, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)); /* TIME_WAIT only, never a live listener */
	if (bind(fd, sa, len) < 0 || listen(fd, 4096) < 0) {
		int e = errno;

		close(fd);
		return sk_error_set(err, SK_EINTERNAL, "failed to listen on %s:%d: listen tcp %s:%d: bind: %s", host,
				    port, host, port, e == EADDRINUSE ? "address already in use" : strerror(e));
	}
	return fd;
}

/* The connection caps: the total stays below the descriptor limit (raised
 * to its hard value) with room for the store, the agent and the streams'
 * pipes. */
static void set_limits(sk_http *h, const sk_http_options *o)
{
	struct rlimit rl = {0};
	rlim_t fds;

	/* a watch is a connection: let thousands of them in */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	fds = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1000000 ? 1000000 : rl.rlim_cur;
	h->max_conns = fds > 2048 ? (unsigned)(fds - fds / 8) : (unsigned)(fds / 2);
	if (o->max_conns && o->max_conns < h->max_conns)
		h->max_conns = o->max_conns;
	h->max_per_addr = o->max_conns_per_addr ? o->max_conns_per_addr : h->max_conns / 2;
	h->max_unauth = o->max_unauth_conns ? o->max_unauth_conns : 1024;
	if (h->max_unauth > h->max_conns / 2)
		h->max_unauth = h->max_conns / 2;
	h->header_timeout = o->header_timeout_s ? o->header_timeout_s : SK_HTTP_HEADER_TIMEOUT_S;
	h->idle_timeout = o->idle_timeout_s ? o->idle_timeout_s : 90;
	h->body_timeout = o->body_timeout_s ? o->body_timeout_s : 60;
}

sk_http *sk_http_start(sk_api *api, const sk_http_options *o, sk_error_t *err)
{
	sk_http *h = xzalloc(sizeof(*h));
	struct sockaddr_in6 a6 = {0};
	struct sockaddr_in a4 = {0};
	struct sockaddr *sa;
	socklen_t salen;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TLS | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned loops = ncpu > 4 ? (unsigned)(ncpu > 16 ? 16 : ncpu) : 4;
	pthread_condattr_t ca;
	int lfd;
	struct MHD_OptionItem trust[2] = {{MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};

	set_limits(h, o);
	pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_init(&h->smu, NULL);
	pthread_mutex_init(&h->cmu, NULL);
	pthread_cond_init(&h->job_cv, NULL);
	pthread_cond_init(&h->done_cv, NULL);
	pthread_cond_init(&h->relay_cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->tick_cv, &ca);
	pthread_condattr_destroy(&ca);
	h->api = api;
	{
		sk_authn_options ao = {.admin_token = o->admin_token,
				       .node_token = o->node_token,
				       .token_auth_file = o->token_auth_file,
				       .ca_pem = o->ca_pem};

		h->authn = sk_authn_new(api, &ao, err);
		if (!h->authn) {
			sk_http_stop(h);
			return NULL;
		}
		__atomic_store_n(&api->authn, h->authn, __ATOMIC_RELEASE);
	}
	if (!(h->relay_hub = sk_api_relays_start(err))) {
		sk_http_stop(h);
		return NULL;
	}
	h->ca_pem = o->ca_pem ? xstrdup(o->ca_pem) : NULL;
	h->cert = xstrdup(o->cert_pem);
	h->key = xstrdup(o->key_pem);
	trust[0].option = h->ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END;
	trust[0].ptr_value = h->ca_pem;
	if (inet_pton(AF_INET, o->host, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)o->port);
		sa = (struct sockaddr *)&a4;
		salen = sizeof(a4);
	} else if (inet_pton(AF_INET6, o->host, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)o->port);
		sa = (struct sockaddr *)&a6;
		salen = sizeof(a6);
		flags |= MHD_USE_IPv6;
	} else {
		sk_http_stop(h);
		sk_error_set(err, SK_EBADREQUEST, "listen address \"%s\" is not an IP address", o->host);
		return NULL;
	}
	lfd = listen_socket(sa, salen, o->host, o->port, err);
	if (lfd < 0) {
		sk_http_stop(h);
		return NULL;
	}
	/* libmicrohttpd's own limit sits above ours (it stops accepting at
	 * it); its inactivity timeout is the write deadline (and a second idle
	 * one); parked streams and suspended requests are exempt */
	h->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, handler, h, MHD_OPTION_LISTEN_SOCKET, lfd,
				MHD_OPTION_HTTPS_MEM_CERT, h->cert, MHD_OPTION_HTTPS_MEM_KEY, h->key,
				MHD_OPTION_HTTPS_PRIORITIES, TLS_PRIORITIES, MHD_OPTION_ARRAY, trust,
				MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
				h, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, h, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)h->idle_timeout, MHD_OPTION_UNESCAPE_CALLBACK, unescape, h,
				MHD_OPTION_THREAD_POOL_SIZE, loops, MHD_OPTION_CONNECTION_LIMIT,
				h->max_conns + h->max_conns / 16 + 64 * loops, MHD_OPTION_END);
	if (!h->d) {
		close(lfd);
		sk_http_stop(h);
		sk_error_set(err, SK_EINTERNAL, "cannot serve on %s:%d", o->host, o->port);
		return NULL;
	}
	sk_debug("http", "connection caps: %u in all, %u per address, %u unauthenticated", h->max_conns,
		 h->max_per_addr, h->max_unauth);
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
	/* relays end (each flushed for at most 5 s) and close their connections */
	sk_api_relays_stop(h->relay_hub);
	h->relay_hub = NULL;
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
	pthread_mutex_destroy(&h->cmu);
	for (size_t i = 0; i < ADDR_BUCKETS; i++)
		while (h->addrs[i]) {
			struct addr_count *a = h->addrs[i];

			h->addrs[i] = a->next;
			free(a);
		}
	if (h->api && h->authn)
		__atomic_store_n(&h->api->authn, NULL, __ATOMIC_RELEASE);
	sk_authn_free(h->authn);
	free(h->ca_pem);
	free(h->cert);
	free(h->key);
	free(h);
}
