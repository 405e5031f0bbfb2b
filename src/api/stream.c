/* pods/exec, pods/attach, pods/portforward (upstream's ExecLocation,
 * AttachLocation, PortForwardLocation and the UpgradeAwareHandler). The
 * pod and container are checked here with upstream's messages; the agent
 * URL carries kubelet's parameters (command, input, output, error, tty,
 * port). The handshake with the agent goes over a libcurl CONNECT_ONLY TLS
 * connection with its kubelet client certificate; what follows the agent's 101 is relayed
 * unchanged (WebSocket frames or SPDY), so the agent alone speaks the
 * streaming protocols. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <linux/sockios.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/stream.h"
#include "util/mhdup.h"
#include "util/util.h"

enum { RELAY_BUF = 64 * 1024, HEAD_MAX = 16 * 1024, NHDR = 4 };

struct sk_api_upgrade {
	CURL *h;
	char *names[NHDR], *values[NHDR];
	size_t nhdr;
	char *left; /* bytes the agent sent after its 101 */
	size_t nleft;
	sk_api *api;
	json_t *audit_end; /* written when the relay ends (freed), or NULL */
	bool paced;        /* frames towards the client go one at a time (see struct pacer) */
};

void sk_api_upgrade_free(struct sk_api_upgrade *u)
{
	if (!u)
		return;
	if (u->h)
		curl_easy_cleanup(u->h);
	for (size_t i = 0; i < u->nhdr; i++) {
		free(u->names[i]);
		free(u->values[i]);
	}
	free(u->left);
	if (u->audit_end)
		sk__audit_emit(u->api, steal_ptr(&u->audit_end));
	free(u);
}

void sk__upgrade_audit_at_end(struct sk_api_upgrade *u, sk_api *api, json_t *ev)
{
	json_decref(u->audit_end);
	u->api = api;
	u->audit_end = ev;
}

struct sk_api_upgrade *sk_api_upgrade_wrap(void *curl_handle, bool paced)
{
	struct sk_api_upgrade *u = xzalloc(sizeof(*u));

	u->h = curl_handle;
	u->paced = paced;
	return u;
}

int sk_api_upgrade_header(const struct sk_api_upgrade *u, size_t i, const char **name, const char **value)
{
	if (i >= u->nhdr)
		return 0;
	*name = u->names[i];
	*value = u->values[i];
	return 1;
}

/* ---- the request to the agent ---- */

static void sb_arg(sk_strbuf *b, const char *key, const char *value)
{
	char *esc = curl_easy_escape(NULL, value, 0);

	sk_strbuf_str(b, b->s && strchr(b->s, '?') ? "&" : "?");
	sk_strbuf_str(b, key);
	sk_strbuf_str(b, "=");
	sk_strbuf_str(b, esc);
	curl_free(esc);
}

static void path_seg(sk_strbuf *b, const char *seg)
{
	char *esc = curl_easy_escape(NULL, seg, 0);

	sk_strbuf_str(b, "/");
	sk_strbuf_str(b, esc);
	curl_free(esc);
}

/* /exec/NS/POD/CTR?command=…&input=1… as kubelet's streaming server reads it. */
static char *agent_path(const sk_api_request *req, const sk_path *p, const char *ctr)
{
	sk_strbuf b = {0};
	static const char *const flags[][2] = {
		{"stdin", "input"}, {"stdout", "output"}, {"stderr", "error"}, {"tty", "tty"}};

	sk_strbuf_str(&b, !strcmp(p->sub, "exec") ? "/exec" : !strcmp(p->sub, "attach") ? "/attach" : "/portForward");
	path_seg(&b, p->ns);
	path_seg(&b, p->name);
	if (ctr)
		path_seg(&b, ctr);
	for (size_t i = 0; i < req->nargs; i++) {
		if (!strcmp(req->args[i].key, "command"))
			sb_arg(&b, "command", req->args[i].value);
		if (!strcmp(req->args[i].key, "ports"))
			sb_arg(&b, "port", req->args[i].value);
	}
	for (size_t i = 0; ctr && i < 4; i++)
		if (sk__arg_bool(req, flags[i][0]))
			sb_arg(&b, flags[i][1], "1");
	return b.s;
}

static const char *const fwd_headers[] = {
	"Upgrade", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol", "X-Stream-Protocol-Version",
	NULL};
static const char *const back_headers[NHDR] = {"Upgrade", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol",
					       "X-Stream-Protocol-Version"};

static int send_all(CURL *h, const char *s, size_t n)
{
	while (n > 0) {
		size_t sent = 0;
		CURLcode rc = curl_easy_send(h, s, n, &sent);

		if (rc == CURLE_AGAIN) {
			curl_socket_t fd;
			struct pollfd pf;

			curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &fd);
			pf = (struct pollfd){.fd = fd, .events = POLLOUT};
			if (poll(&pf, 1, 10000) <= 0)
				return -1;
			continue;
		}
		if (rc != CURLE_OK)
			return -1;
		s += sent;
		n -= sent;
	}
	return 0;
}

/* Reads the agent's response head (and whatever follows it in the same
 * reads) into *out; returns the head's length, or -1. */
static ssize_t read_head(CURL *h, sk_strbuf *out)
{
	char tmp[4096];

	for (;;) {
		size_t n = 0;
		CURLcode rc = curl_easy_recv(h, tmp, sizeof(tmp), &n);
		char *end;

		if (rc == CURLE_AGAIN) {
			curl_socket_t fd;
			struct pollfd pf;

			curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &fd);
			pf = (struct pollfd){.fd = fd, .events = POLLIN};
			if (poll(&pf, 1, 30000) <= 0)
				return -1;
			continue;
		}
		if (rc != CURLE_OK || n == 0)
			return out->len ? (ssize_t)out->len : -1;
		sk_strbuf_add(out, tmp, n);
		if ((end = strstr(out->s, "\r\n\r\n")) != NULL)
			return end + 4 - out->s;
		if (out->len > HEAD_MAX)
			return -1;
	}
}

/* The value of header name in a response head (malloc'd) or NULL. */
static char *head_value(const char *head, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (const char *l = strstr(head, "\r\n"); l && (size_t)(l - head) < len; l = strstr(l + 2, "\r\n")) {
		const char *s = l + 2;

		if (!strncasecmp(s, name, nl) && s[nl] == ':') {
			s += nl + 1;
			s += strspn(s, " \t");
			return xstrndup(s, strcspn(s, "\r\n"));
		}
	}
	return NULL;
}

static void agent_failed(sk_api_response *resp, const sk_path *p, int code, const char *body)
{
	cleanup_free char *msg = NULL;
	const char *reason = code == 404 ? "NotFound" : code >= 500 ? "InternalError" : "BadRequest";

	msg = body && *body ? xstrdup(body) : xasprintf("the node's streaming endpoint answered %d", code);
	msg[strcspn(msg, "\n")] = '\0';
	sk__reply_status(resp, code >= 400 && code < 600 ? code : 500, reason, msg, p->res, p->name, NULL);
}

/* Whether frames of this WebSocket subprotocol go to the client one at a
 * time: those of the channel protocols before v5 (and none), which the
 * Python client speaks (it polls its socket before every frame and misses
 * a frame its TLS layer already holds). kubectl's v5.channel.k8s.io and
 * its tunnelled SPDY/3.1+portforward.k8s.io read the stream as a stream:
 * their frames go on as they come. */
static bool paced_protocol(const char *proto)
{
	return !proto || (strcmp(proto, "v5.channel.k8s.io") && strcmp(proto, "SPDY/3.1+portforward.k8s.io"));
}

static void connect_agent(const char *base, const char *path, const sk_api_request *req, const sk_path *p,
			  sk_api_response *resp)
{
	const char *proto = NULL;
	bool websocket = false;
	struct sk_api_upgrade *u = xzalloc(sizeof(*u));
	sk_strbuf rq = {0}, in = {0};
	const char *host = strstr(base, "://") + 3;
	ssize_t head;
	long code = 0;
	CURLcode rc;

	u->h = curl_easy_init();
	curl_easy_setopt(u->h, CURLOPT_URL, base);
	curl_easy_setopt(u->h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(u->h, CURLOPT_NOSIGNAL, 1L);
	sk__kubelet_tls(u->h);
	curl_easy_setopt(u->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(u->h, CURLOPT_NOPROXY, "*");
	rc = curl_easy_perform(u->h);
	if (rc != CURLE_OK) {
		cleanup_free char *msg = xasprintf("error dialing backend: %s", curl_easy_strerror(rc));

		sk_api_upgrade_free(u);
		sk__reply_status(resp, 500, "InternalError", msg, p->res, p->name, NULL);
		return;
	}
	/* the request line and headers of the upgrade (libcurl has no
	 * WebSocket client in Debian 12's build to do this for us) */
	sk_strbuf_str(&rq, "GET ");
	sk_strbuf_str(&rq, path);
	sk_strbuf_str(&rq, " HTTP/1.1\r\nHost: ");
	sk_strbuf_str(&rq, host);
	sk_strbuf_str(&rq, "\r\nConnection: Upgrade\r\n");
	for (int i = 0; fwd_headers[i]; i++) {
		const char *v = req->header ? req->header(req->header_ctx, fwd_headers[i]) : NULL;

		if (v && !strpbrk(v, "\r\n")) {
			sk_strbuf_str(&rq, fwd_headers[i]);
			sk_strbuf_str(&rq, ": ");
			sk_strbuf_str(&rq, v);
			sk_strbuf_str(&rq, "\r\n");
		}
	}
	sk_strbuf_str(&rq, "\r\n");
	if (send_all(u->h, rq.s, rq.len) < 0 || (head = read_head(u->h, &in)) < 0 ||
	    sscanf(in.s, "HTTP/1.%*d %ld", &code) != 1) {
		free(rq.s);
		free(in.s);
		sk_api_upgrade_free(u);
		sk__reply_status(resp, 500, "InternalError", "error dialing backend: no answer from the node's agent",
				 p->res, p->name, NULL);
		return;
	}
	free(rq.s);
	if (code != 101) {
		agent_failed(resp, p, (int)code, in.s + head);
		free(in.s);
		sk_api_upgrade_free(u);
		return;
	}
	for (int i = 0; i < NHDR; i++) {
		char *v = head_value(in.s, (size_t)head, back_headers[i]);

		if (v) {
			websocket |= !strcmp(back_headers[i], "Sec-WebSocket-Accept");
			if (!strcmp(back_headers[i], "Sec-WebSocket-Protocol"))
				proto = v;
			u->names[u->nhdr] = xstrdup(back_headers[i]);
			u->values[u->nhdr++] = v;
		}
	}
	if (in.len > (size_t)head) {
		u->nleft = in.len - (size_t)head;
		u->left = xmalloc(u->nleft);
		memcpy(u->left, in.s + head, u->nleft);
	}
	free(in.s);
	u->paced = websocket && paced_protocol(proto);
	memset(resp, 0, sizeof(*resp));
	resp->status = 101;
	resp->upgrade = u;
}

static int any_stream(const sk_api_request *req)
{
	return sk__arg_bool(req, "stdin") || sk__arg_bool(req, "stdout") || sk__arg_bool(req, "stderr");
}

void sk__handle_stream(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s", p->ns, p->name);
	cleanup_free char *base = NULL, *apath = NULL;
	cleanup_json json_t *pod = NULL;
	bool pf = !strcmp(p->sub, "portforward");
	const char *ctr = NULL;

	if (strcmp(req->method, "GET") && strcmp(req->method, "POST")) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", p->res, p->name,
				 NULL);
		return;
	}
	if (!strcmp(p->sub, "exec") && !sk__arg(req, "command")) {
		sk__reply_status(resp, 400, "BadRequest", "you must specify at least one command for the container",
				 p->res, p->name, NULL);
		return;
	}
	if (!pf && !any_stream(req)) {
		sk__reply_status(resp, 400, "BadRequest", "you must specify at least 1 of stdin, stdout, stderr",
				 p->res, p->name, NULL);
		return;
	}
	pod = sk__get_object(api, path, resp);
	if (!pod)
		return;
	if (!pf && !(ctr = sk__pod_pick_container(pod, sk__arg(req, "container"), p, resp)))
		return;
	if (!(base = sk__pod_node_address(api, pod, p, resp)))
		return;
	apath = agent_path(req, p, ctr);
	connect_agent(base, apath, req, p, resp);
}

/* ---- the relay ---- */

/* One direction: the bytes waiting are data[off, off + len); a send takes
 * from the front without moving the rest, reads append while there is room
 * at the end, and an empty buffer starts over at 0. */
struct pipe_buf {
	char data[RELAY_BUF];
	size_t off, len;
	bool eof;
	uint64_t taken; /* bytes sent on, ever */
};

static void consumed(struct pipe_buf *b, size_t n)
{
	b->len -= n;
	b->taken += n;
	b->off = b->len ? b->off + n : 0;
	if (b->off >= RELAY_BUF / 2) { /* at most half a buffer moves, once per half a buffer sent */
		memmove(b->data, b->data + b->off, b->len);
		b->off = 0;
	}
}

static size_t room(const struct pipe_buf *b) { return b->eof ? 0 : RELAY_BUF - b->off - b->len; }

/* Towards the client, a WebSocket stream goes to libmicrohttpd one frame
 * at a time, the next once it took the last (the socketpair's queue
 * empty), so each of its TLS records carries at most one frame: a client
 * that waits on its socket after each frame (the Python client's select())
 * would not see a second frame its TLS layer already decrypted. Only the
 * frame's length is read here (RFC 6455 5.2), the bytes go on unchanged. */
struct pacer {
	bool on;
	uint64_t left; /* of the frame being sent */
	bool wait;     /* a frame went out: the next waits for the queue to empty */
};

/* How many of the n bytes at p may go now: up to the current frame's end;
 * 0 while the previous frame is still queued or a header is incomplete. */
static size_t paced(struct pacer *pc, int cfd, const unsigned char *p, size_t n, bool eof)
{
	if (!pc->on)
		return n;
	if (pc->left == 0) {
		uint64_t len, hl = 2;

		if (pc->wait) {
			int q = 0;

			if (ioctl(cfd, SIOCOUTQ, &q) == 0 && q > 0)
				return 0;
			pc->wait = false;
		}
		if (n < 2)
			return eof ? n : 0;
		len = p[1] & 0x7f;
		hl += (len == 126 ? 2 : len == 127 ? 8 : 0) + (p[1] & 0x80 ? 4 : 0);
		if (n < hl)
			return eof ? n : 0;
		if (len == 126)
			len = (uint64_t)p[2] << 8 | p[3];
		else if (len == 127)
			for (int i = 0; i < 8; i++)
				len = (i ? len << 8 : 0) | p[2 + i];
		pc->left = hl + len < hl ? UINT64_MAX : hl + len;
	}
	return n < pc->left ? n : (size_t)pc->left;
}

static void paced_sent(struct pacer *pc, size_t n)
{
	if (!pc->on)
		return;
	pc->left -= n;
	pc->wait = pc->left == 0;
}

/* One pass over the four directions; returns whether anything moved, -1 on
 * a broken side. The client's socketpair is read only while *c_in (it was
 * not found empty since epoll last said it is readable): a download's
 * passes would otherwise find it empty every time. */
static int pump(CURL *h, int cfd, struct pipe_buf *a2c, struct pipe_buf *c2a, struct pacer *pc, bool *c_in)
{
	int moved = 0;
	size_t n;
	ssize_t w;
	CURLcode rc;

	if (room(a2c)) {
		n = 0;
		rc = curl_easy_recv(h, a2c->data + a2c->off + a2c->len, room(a2c), &n);
		if (rc == CURLE_OK && n > 0)
			a2c->len += n, moved = 1;
		else if (rc != CURLE_AGAIN)
			a2c->eof = true, moved = 1;
	}
	if (a2c->len && (n = paced(pc, cfd, (const unsigned char *)a2c->data + a2c->off, a2c->len, a2c->eof))) {
		w = send(cfd, a2c->data + a2c->off, n, MSG_NOSIGNAL);
		if (w > 0)
			consumed(a2c, (size_t)w), paced_sent(pc, (size_t)w), moved = 1;
		else if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
	}
	if (room(c2a) && *c_in) {
		w = recv(cfd, c2a->data + c2a->off + c2a->len, room(c2a), 0);
		if (w > 0)
			c2a->len += (size_t)w, moved = 1;
		else if (w == 0 || (errno != EAGAIN && errno != EINTR))
			c2a->eof = true, moved = 1;
		else if (errno == EAGAIN)
			*c_in = false;
	}
	if (c2a->len) {
		n = 0;
		rc = curl_easy_send(h, c2a->data + c2a->off, c2a->len, &n);
		if (rc == CURLE_OK && n > 0)
			consumed(c2a, n), moved = 1;
		else if (rc != CURLE_AGAIN && rc != CURLE_OK)
			return -1;
	}
	return moved;
}

/* ---- the relay thread ---- */

/* One upgraded connection. The relay thread alone touches it once added. */
struct relay {
	struct sk_api_upgrade *u;
	int cfd, raw;
	curl_socket_t afd;
	struct pipe_buf *a2c, *c2a;
	struct pacer pc;
	bool gone, flushing, timed, queued, raw_event, held;
	bool c_in;           /* cfd may have something to read (pump) */
	uint32_t ev_c, ev_a; /* what cfd and afd are registered for */
	int quiet;
	int64_t until, next_check;  /* the flush's deadline and next look */
	int64_t kick_at, kick_wait; /* the next kick of libmicrohttpd (0: none due), its interval */
	uint64_t kick_mark;         /* a2c->taken at the last look */
	sk_api_relay_done_fn done;
	void *arg;
	struct relay *prev, *next;   /* every relay */
	struct relay *tprev, *tnext; /* the timed ones: held frames and flushes */
};

struct sk_api_relays {
	int ep, wake; /* epoll; an eventfd for new relays and the stop */
	pthread_t thread;
	bool started;
	pthread_mutex_t mu; /* guards incoming and stop_req */
	struct relay *incoming;
	bool stop_req, stopping;   /* asked; seen by the thread (its own) */
	struct relay *all, *timed; /* the thread's own */
};

/* epoll's data: the relay, tagged for the client's own socket or its socketpair */
enum { RAW_TAG = 1, CFD_TAG = 2, HELD_NS = 1000 * 1000, FLUSH_STEP_NS = 20 * 1000 * 1000 };
/* the kicks' interval: from 1 ms after the last progress, doubled while none
 * comes (a client that does not read) up to 64 ms */
enum { KICK_MIN_NS = 1000 * 1000, KICK_MAX_NS = 64 * 1000 * 1000 };

static void epoll_set(struct sk_api_relays *rs, int fd, uint32_t *have, uint32_t want, struct relay *r)
{
	struct epoll_event ev = {.events = want, .data.u64 = (uint64_t)(uintptr_t)r | (fd == r->cfd ? CFD_TAG : 0)};

	if (fd < 0 || *have == want)
		return;
	epoll_ctl(rs->ep, !want ? EPOLL_CTL_DEL : !*have ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
	*have = want;
}

static void set_timed(struct sk_api_relays *rs, struct relay *r, bool on)
{
	if (r->timed == on)
		return;
	r->timed = on;
	if (on) {
		r->tprev = NULL;
		r->tnext = rs->timed;
		if (rs->timed)
			rs->timed->tprev = r;
		rs->timed = r;
		return;
	}
	if (r->tprev)
		r->tprev->tnext = r->tnext;
	else
		rs->timed = r->tnext;
	if (r->tnext)
		r->tnext->tprev = r->tprev;
}

/* The relay's end: its sockets leave the epoll set, and once libmicrohttpd
 * took what the relay wrote and the client acknowledged it, the client's TCP
 * connection is shut for writing (see http.c's done callback for why). */
static void start_flush(struct sk_api_relays *rs, struct relay *r)
{
	struct epoll_event ev = {0};

	epoll_set(rs, r->cfd, &r->ev_c, 0, r);
	epoll_set(rs, r->afd, &r->ev_a, 0, r);
	if (r->raw >= 0)
		epoll_ctl(rs->ep, EPOLL_CTL_DEL, r->raw, &ev);
	r->flushing = true;
	r->until = sk_mono_ns() + 5000000000LL;
	r->next_check = 0;
	set_timed(rs, r, true);
}

static void relay_end(struct sk_api_relays *rs, struct relay *r)
{
	set_timed(rs, r, false);
	if (r->prev)
		r->prev->next = r->next;
	else
		rs->all = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->done(r->arg);
	sk_api_upgrade_free(r->u);
	free(r->a2c);
	free(r->c2a);
	free(r);
}

/* Twice 20 ms apart both send queues empty (the socketpair's towards
 * libmicrohttpd, the client's TCP), or 5 s: then the shutdown and the end. */
static void flush_check(struct sk_api_relays *rs, struct relay *r, int64_t now)
{
	int a = 0, b = 0;

	if (now < r->next_check)
		return;
	if (r->raw >= 0 && now < r->until && ioctl(r->cfd, SIOCOUTQ, &a) == 0 && ioctl(r->raw, SIOCOUTQ, &b) == 0) {
		r->quiet = a == 0 && b == 0 ? r->quiet + 1 : 0;
		if (r->quiet < 2) {
			r->next_check = now + FLUSH_STEP_NS;
			return;
		}
	}
	if (r->raw >= 0)
		shutdown(r->raw, SHUT_WR);
	relay_end(rs, r);
}

/* Moves what can move; the relay's end once a side ended, broke, or the
 * client's socket closed (raw_event: it said something). */
static void step(struct sk_api_relays *rs, struct relay *r, bool raw_event)
{
	bool held, sendable;
	int m;

	while ((m = pump(r->u->h, r->cfd, r->a2c, r->c2a, &r->pc, &r->c_in)) > 0)
		;
	/* the client's own socket: its close ends the relay (and so the
	 * agent's session) though libmicrohttpd keeps the socketpair open; one
	 * more pass took what it sent before */
	if (m >= 0 && raw_event && !r->gone && sk_sock_peer_gone(r->raw)) {
		r->gone = true;
		r->c_in = true;
		while ((m = pump(r->u->h, r->cfd, r->a2c, r->c2a, &r->pc, &r->c_in)) > 0)
			;
	}
	if (m < 0 || (r->a2c->eof && !r->a2c->len) || (r->c2a->eof && !r->c2a->len) || r->gone || rs->stopping) {
		start_flush(rs, r);
		return;
	}
	/* what may go to the client now waits for room on its socketpair; a
	 * frame waiting for libmicrohttpd to take the last is looked at again
	 * within HELD_NS; a frame's incomplete header waits for the agent */
	sendable = r->a2c->len &&
		   paced(&r->pc, r->cfd, (const unsigned char *)r->a2c->data + r->a2c->off, r->a2c->len, r->a2c->eof);
	held = r->pc.on && r->pc.wait && r->a2c->len;
	/* what waits for the client has not moved for a while: libmicrohttpd
	 * may have lost its socket's writability (util/mhdup.h) */
	if (r->a2c->len && r->raw >= 0) {
		int64_t now = sk_mono_ns();

		if (!r->kick_at || r->a2c->taken != r->kick_mark) {
			r->kick_wait = KICK_MIN_NS;
			r->kick_at = now + r->kick_wait;
			r->kick_mark = r->a2c->taken;
		} else if (now >= r->kick_at) {
			sk_mhd_upgrade_kick(r->raw);
			r->kick_wait = r->kick_wait * 2 < KICK_MAX_NS ? r->kick_wait * 2 : KICK_MAX_NS;
			r->kick_at = now + r->kick_wait;
		}
	} else {
		r->kick_at = 0;
	}
	r->held = held;
	set_timed(rs, r, held || r->kick_at);
	epoll_set(rs, r->cfd, &r->ev_c, (room(r->c2a) ? EPOLLIN : 0) | (sendable ? EPOLLOUT : 0), r);
	epoll_set(rs, r->afd, &r->ev_a, (room(r->a2c) ? EPOLLIN : 0) | (r->c2a->len ? EPOLLOUT : 0), r);
}

static void take_incoming(struct sk_api_relays *rs)
{
	struct relay *in;
	uint64_t v;

	if (read(rs->wake, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&rs->mu);
	in = rs->incoming;
	rs->incoming = NULL;
	pthread_mutex_unlock(&rs->mu);
	while (in) {
		struct relay *r = in;
		struct epoll_event ev = {.events = EPOLLRDHUP, .data.u64 = (uint64_t)(uintptr_t)r | RAW_TAG};

		in = r->next;
		r->prev = NULL;
		r->next = rs->all;
		if (rs->all)
			rs->all->prev = r;
		rs->all = r;
		if (r->raw >= 0)
			epoll_ctl(rs->ep, EPOLL_CTL_ADD, r->raw, &ev);
		step(rs, r, false);
	}
}

static void *relay_main(void *arg)
{
	struct sk_api_relays *rs = arg;
	struct epoll_event evs[64];
	struct relay *ready[64];

	for (;;) {
		bool held = false;
		int64_t now = sk_mono_ns(), next = -1;
		struct timespec ts = {0};
		int n, nready = 0;

		pthread_mutex_lock(&rs->mu);
		if (rs->stop_req && !rs->stopping) {
			rs->stopping = true;
			for (struct relay *r = rs->all; r; r = r->next)
				if (!r->flushing)
					start_flush(rs, r);
		}
		if (rs->stopping && !rs->all && !rs->incoming) {
			pthread_mutex_unlock(&rs->mu);
			break;
		}
		pthread_mutex_unlock(&rs->mu);
		for (struct relay *r = rs->timed; r; r = r->tnext) {
			int64_t at = r->flushing ? r->next_check : r->kick_at;

			held |= !r->flushing && r->held;
			if ((r->flushing || !r->held) && (next < 0 || at < next))
				next = at;
		}
		if (!held && next > now)
			ts.tv_nsec = next - now < 999999999 ? next - now : 999999999;
		else if (held)
			ts.tv_nsec = HELD_NS;
		n = epoll_pwait2(rs->ep, evs, 64, held || next >= 0 ? &ts : NULL, NULL);
		for (int i = 0; i < n; i++) {
			struct relay *r = (struct relay *)(uintptr_t)(evs[i].data.u64 & ~(uint64_t)(RAW_TAG | CFD_TAG));

			if (!r) {
				take_incoming(rs);
				continue;
			}
			r->raw_event |= (evs[i].data.u64 & RAW_TAG) != 0;
			r->c_in |= (evs[i].data.u64 & CFD_TAG) && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR));
			if (!r->queued && !r->flushing) {
				r->queued = true;
				ready[nready++] = r;
			}
		}
		for (int i = 0; i < nready; i++) {
			struct relay *r = ready[i];
			bool raw_event = r->raw_event;

			r->queued = r->raw_event = false;
			if (!r->flushing)
				step(rs, r, raw_event);
		}
		now = sk_mono_ns();
		for (struct relay *r = rs->timed, *nx; r; r = nx) {
			nx = r->tnext;
			if (r->flushing)
				flush_check(rs, r, now);
			else if (r->held || now >= r->kick_at)
				step(rs, r, false);
		}
	}
	return NULL;
}

struct sk_api_relays *sk_api_relays_start(sk_error_t *err)
{
	struct sk_api_relays *rs = xzalloc(sizeof(*rs));
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	pthread_attr_t attr;

	rs->ep = epoll_create1(EPOLL_CLOEXEC);
	rs->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&rs->mu, NULL);
	if (rs->ep < 0 || rs->wake < 0 || epoll_ctl(rs->ep, EPOLL_CTL_ADD, rs->wake, &ev) < 0) {
		sk_error_errno(err, errno, "relay of upgraded connections");
		sk_api_relays_stop(rs);
		return NULL;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	rs->started = pthread_create(&rs->thread, &attr, relay_main, rs) == 0;
	pthread_attr_destroy(&attr);
	if (!rs->started) {
		sk_error_set(err, SK_EINTERNAL, "relay of upgraded connections: no thread");
		sk_api_relays_stop(rs);
		return NULL;
	}
	return rs;
}

int sk_api_relays_add(struct sk_api_relays *rs, struct sk_api_upgrade *u, int cfd, int raw, const char *extra,
		      size_t nextra, sk_api_relay_done_fn done, void *arg)
{
	struct relay *r;
	uint64_t one = 1;
	int fl = fcntl(cfd, F_GETFL);

	pthread_mutex_lock(&rs->mu);
	if (rs->stop_req) {
		pthread_mutex_unlock(&rs->mu);
		return -1;
	}
	r = xzalloc(sizeof(*r));
	r->u = u;
	r->cfd = cfd;
	r->raw = raw;
	r->afd = CURL_SOCKET_BAD;
	r->pc.on = u->paced;
	r->c_in = true;
	r->done = done;
	r->arg = arg;
	/* not zeroed: an idle session's buffers stay untouched pages */
	r->a2c = xmalloc(sizeof(*r->a2c));
	r->c2a = xmalloc(sizeof(*r->c2a));
	r->a2c->off = r->a2c->len = r->c2a->off = r->c2a->len = 0;
	r->a2c->eof = r->c2a->eof = false;
	fcntl(cfd, F_SETFL, fl | O_NONBLOCK);
	curl_easy_getinfo(u->h, CURLINFO_ACTIVESOCKET, &r->afd);
	if (nextra > RELAY_BUF)
		nextra = RELAY_BUF;
	if (nextra)
		memcpy(r->c2a->data, extra, nextra);
	r->c2a->len = nextra;
	if (u->nleft && u->nleft <= RELAY_BUF) {
		memcpy(r->a2c->data, u->left, u->nleft);
		r->a2c->len = u->nleft;
	}
	r->next = rs->incoming;
	rs->incoming = r;
	pthread_mutex_unlock(&rs->mu);
	if (write(rs->wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
		sk_warn("api", "relay: wake: %s", strerror(errno));
	return 0;
}

void sk_api_relays_stop(struct sk_api_relays *rs)
{
	uint64_t one = 1;

	if (!rs)
		return;
	if (rs->started) {
		pthread_mutex_lock(&rs->mu);
		rs->stop_req = true;
		pthread_mutex_unlock(&rs->mu);
		if (write(rs->wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
			sk_warn("api", "relay: wake: %s", strerror(errno));
		pthread_join(rs->thread, NULL);
	}
	if (rs->ep >= 0)
		close(rs->ep);
	if (rs->wake >= 0)
		close(rs->wake);
	pthread_mutex_destroy(&rs->mu);
	free(rs);
}
