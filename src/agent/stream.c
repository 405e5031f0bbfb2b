/* The agent's streaming server: kubelet's /exec/{ns}/{pod}/{container},
 * /attach/{ns}/{pod}/{container} (conmon's attach socket and control fifo,
 * as CRI-O attaches) and /portForward/{ns}/{pod}, reached only
 * through the API server (the endpoint's TLS and access checks, access.c). The
 * WebSocket handshake and framing are libwslay's over the socket
 * libmicrohttpd hands over after the 101; the channel protocols are
 * src/util/wschan.h.
 *
 * Every session of the process (at most MAX_SESSIONS) runs on one thread,
 * the sessions' event loop: each is a state machine (running, draining a
 * command's last output, finishing its WebSocket stream, waiting for
 * libmicrohttpd to take what it wrote) stepped when one of its descriptors
 * is ready or its timer is due, so an idle session costs its state and
 * buffers, no thread. Nothing is read from a source while what
 * it produced still waits: process output stops being read while more than
 * OUT_HIGH bytes are queued to the client, the client's socket stops being
 * read while more than IN_HIGH bytes wait for the process or the pod, so a
 * slow side slows the other and memory stays bounded. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <termios.h>
#include <wslay/wslay.h>

#include "agent/agent-int.h"
#include "util/mhdup.h"
#include "util/spdy.h"
#include "util/util.h"
#include "util/wschan.h"

/* the kicks' interval (see kick_check) */
enum { KICK_MIN_MS = 1, KICK_MAX_MS = 64 };
enum { MAX_SESSIONS = 256, OUT_HIGH = 1 << 20, IN_HIGH = 256 * 1024, MAX_PORTS = 32, READ_CHUNK = 64 * 1024 };
enum skind { S_EXEC, S_ATTACH, S_PF };

static int nsessions; /* atomic */

struct pfport {
	uint16_t port;
	int fd; /* the connection in the pod, -1 before/after */
	bool done;
	uint8_t *pend; /* from the client, not yet written to fd */
	size_t npend;
};

struct sess {
	struct sk_agent *a;
	enum skind kind;
	char *ns, *pod, *ctr;
	char **argv;
	size_t argc;
	bool in, out, err, tty;
	struct sk_ws_proto proto;
	int sock;
	int raw; /* the client's own socket (libmicrohttpd's TLS side), to notice it went away */
	struct MHD_UpgradeResponseHandle *urh;
	char *extra;
	size_t nextra, extra_off;
	wslay_event_context_ptr ws;
	uint8_t hdr[16]; /* a frame's header, sent with its payload */
	size_t nhdr;
	bool broken;        /* the client's connection failed or closed */
	uint64_t sent;      /* bytes written to sock, ever */
	int64_t kick_at;    /* the next kick of libmicrohttpd (0: none due) */
	int kick_wait;      /* ms to the next */
	uint64_t kick_mark; /* sent at the last look */
	/* exec */
	struct sk_container *c;
	struct sk_exec_proc proc;
	int in_fd, out_fd, err_fd; /* ours: the process's stdin write end, output read ends */
	uint8_t *inbuf;
	size_t inlen;
	bool close_stdin;
	/* attach: conmon's attach socket */
	int att_fd;
	/* portforward */
	struct pfport pf[MAX_PORTS];
	int nports;
	char *netns; /* NULL: host network */
	char *pod_uid;
	/* SPDY port-forward: connections by request id */
	struct sk_spdy *spdy;
	struct spconn *conns;
	size_t nconns;
	bool goaway;
	/* the event loop's */
	int state;
	bool started, ended, kick;
	bool begun;                 /* sess_begin ran (on its starter thread) */
	int code;                   /* exec: the command's exit, -2 while unknown */
	int64_t until, quiet_since; /* the current state's deadline; drain: last activity */
	int64_t next_tick;          /* stepped then at the latest */
	size_t pf_off, npf;         /* its pollfds in the loop's array */
	struct sess *next;
};

/* One forwarded connection of SPDY port-forward: kubectl opens an error
 * and a data stream per connection, paired by their requestid header. */
struct spconn {
	char reqid[32];
	uint32_t data_id, err_id;
	uint16_t port;
	int fd;
	bool done, client_fin;
	uint8_t *pend;
	size_t npend;
};

/* ---- WebSocket plumbing ---- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *ud)
{
	struct sess *s = ud;
	ssize_t n;

	(void)flags;
	if (s->inlen >= IN_HIGH) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (s->extra_off < s->nextra) {
		n = (ssize_t)(s->nextra - s->extra_off < len ? s->nextra - s->extra_off : len);
		memcpy(buf, s->extra + s->extra_off, (size_t)n);
		s->extra_off += (size_t)n;
		return n;
	}
	n = recv(s->sock, buf, len, 0);
	if (n > 0)
		return n;
	wslay_event_set_error(ctx, n < 0 && (errno == EAGAIN || errno == EINTR) ? WSLAY_ERR_WOULDBLOCK
										: WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

/* wslay sends a frame's header (flagged WSLAY_MSG_MORE) and then its
 * payload: the header is kept and goes out with the payload in one
 * sendmsg, one system call per frame instead of two. */
static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *ud)
{
	struct sess *s = ud;
	struct iovec iov[2] = {{s->hdr, s->nhdr}, {(void *)data, len}};
	struct msghdr mh = {.msg_iov = iov + !s->nhdr, .msg_iovlen = s->nhdr ? 2 : 1};
	ssize_t n;

	if ((flags & WSLAY_MSG_MORE) && !s->nhdr && len <= sizeof(s->hdr)) {
		memcpy(s->hdr, data, len);
		s->nhdr = len;
		return (ssize_t)len;
	}
	n = sendmsg(s->sock, &mh, MSG_NOSIGNAL);
	if (n < 0) {
		wslay_event_set_error(ctx, errno == EAGAIN || errno == EINTR ? WSLAY_ERR_WOULDBLOCK
									     : WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	s->sent += (uint64_t)n;
	if ((size_t)n < s->nhdr) {
		memmove(s->hdr, s->hdr + n, s->nhdr - (size_t)n);
		s->nhdr -= (size_t)n;
		n = 0;
	} else {
		n -= (ssize_t)s->nhdr;
		s->nhdr = 0;
	}
	if (n == 0 && len) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	return n;
}

static void on_exec_msg(struct sess *s, int ch, uint8_t *data, size_t len);
static void on_pf_msg(struct sess *s, int ch, uint8_t *data, size_t len);
static int on_spdy_frame(void *arg, const struct sk_spdy_frame *f);

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *m, void *ud)
{
	struct sess *s = ud;
	uint8_t *data = NULL;
	size_t len = 0;
	int ch;

	(void)ctx;
	if (m->opcode != WSLAY_TEXT_FRAME && m->opcode != WSLAY_BINARY_FRAME)
		return;
	if (s->spdy) {
		if (sk_spdy_feed(s->spdy, m->msg, m->msg_length, on_spdy_frame, s) < 0)
			s->goaway = true;
		return;
	}
	if (sk_ws_decode(s->proto.base64, m->msg, m->msg_length, &ch, &data, &len) < 0)
		return; /* as wsstream: an empty or undecodable message is skipped */
	if (s->kind == S_PF)
		on_pf_msg(s, ch, data, len);
	else
		on_exec_msg(s, ch, data, len);
	free(data);
}

static void queue(struct sess *s, int ch, const void *data, size_t len)
{
	size_t n;
	uint8_t *m = sk_ws_encode(s->proto.base64, ch, data, len, &n);
	struct wslay_event_msg msg = {s->proto.base64 ? WSLAY_TEXT_FRAME : WSLAY_BINARY_FRAME, m, n};

	wslay_event_queue_msg(s->ws, &msg);
	free(m);
}

/* A message of raw bytes (the tunnelled SPDY stream has no channels). */
static void queue_raw(struct sess *s, uint8_t *m, const size_t *n)
{
	struct wslay_event_msg msg = {WSLAY_BINARY_FRAME, m, *n};

	wslay_event_queue_msg(s->ws, &msg);
	free(m);
}

static bool out_room(struct sess *s) { return wslay_event_get_queued_msg_length(s->ws) < OUT_HIGH; }

static short ws_events(struct sess *s)
{
	short ev = 0;

	if (s->broken)
		return 0;
	if (wslay_event_want_read(s->ws) && s->inlen < IN_HIGH)
		ev |= POLLIN;
	if (wslay_event_want_write(s->ws))
		ev |= POLLOUT;
	return ev;
}

static void ws_io(struct sess *s, short revents)
{
	if (s->broken)
		return;
	if (sk_sock_peer_gone(s->raw)) { /* the client went away: the command is killed */
		s->broken = true;
		return;
	}
	if ((revents & (POLLIN | POLLHUP | POLLERR)) || s->extra_off < s->nextra)
		if (wslay_event_recv(s->ws) != 0)
			s->broken = true;
	if (!s->broken && wslay_event_want_write(s->ws) && wslay_event_send(s->ws) != 0)
		s->broken = true;
	if (wslay_event_get_close_received(s->ws) && !wslay_event_want_write(s->ws))
		s->broken = true;
}

/* What a session's state asks of the loop: its descriptors (at most
 * MAX_FDS, POLLRDHUP on the client's own socket for its close) and how long
 * it may wait. */
enum { ST_RUN, ST_DRAIN, ST_FINISH, ST_CLOSING, ST_TAKEN, ST_DONE };
enum { MAX_FDS = 2 + 4 * MAX_PORTS + 1 };

/* finish: what is queued, then a close frame (wslay sends control frames
 * first: the close goes once the data did), for at most five seconds */
static void enter_finish(struct sess *s)
{
	s->state = ST_FINISH;
	s->until = sk_mono_ns() + 5000000000LL;
}

static void finish_step(struct sess *s)
{
	while (!s->broken && s->state <= ST_CLOSING) {
		if (wslay_event_want_write(s->ws) && sk_mono_ns() < s->until) {
			if (wslay_event_send(s->ws) != 0)
				s->broken = true;
			if (wslay_event_want_write(s->ws))
				return; /* POLLOUT */
			continue;
		}
		if (s->state == ST_CLOSING || sk_mono_ns() >= s->until)
			break;
		wslay_event_queue_close(s->ws, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
		s->state = ST_CLOSING;
	}
	s->state = ST_TAKEN; /* the kind's cleanup follows */
}

/* ---- exec ---- */

static void on_exec_msg(struct sess *s, int ch, uint8_t *data, size_t len)
{
	uint16_t w, h;

	if (ch == SK_WS_STDIN && s->in && len && !s->close_stdin) {
		s->inbuf = xrealloc(s->inbuf, s->inlen + len);
		memcpy(s->inbuf + s->inlen, data, len);
		s->inlen += len;
	} else if (ch == SK_WS_RESIZE && s->tty && s->kind == S_ATTACH && sk_ws_parse_resize(data, len, &w, &h) == 0) {
		sk_error_t err = {0};

		if (sk_container_resize(&s->a->rt, s->c, w, h, &err) < 0)
			sk_debug("agent", "attach to %s/%s/%s: %s", s->ns, s->pod, s->ctr, err.msg);
	} else if (ch == SK_WS_RESIZE && s->tty && s->proc.master >= 0 && sk_ws_parse_resize(data, len, &w, &h) == 0) {
		struct winsize ws = {.ws_row = h, .ws_col = w};

		ioctl(s->proc.master, TIOCSWINSZ, &ws);
	} else if (ch == SK_WS_CLOSE && s->proto.version >= 5 && len >= 1 && data[0] == SK_WS_STDIN) {
		s->close_stdin = true;
	}
}

/* The running attempt of ns/pod's container name, loaded from disk. */
static struct sk_container *find_container(struct sk_agent *a, const char *ns, const char *pod, const char *name)
{
	cleanup_free char *uid = sk__agent_pod_uid(a, ns, pod);
	struct sk_container **cs = NULL, *best = NULL;
	size_t n = 0;
	sk_error_t err = {0};

	if (!uid || sk_container_list(&a->rt, &cs, &n, &err) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct sk_container *c = cs[i];

		if (!best && c->pod_uid && !strcmp(c->pod_uid, uid) && c->name && !strcmp(c->name, name) &&
		    sk_container_refresh(&a->rt, c, &err) == 0 && c->status == SK_CONTAINER_RUNNING) {
			best = c;
			continue;
		}
		sk_container_free(c);
	}
	free(cs);
	return best;
}

static void write_stdin(struct sess *s)
{
	while (s->inlen) {
		ssize_t n = write(s->in_fd, s->inbuf, s->inlen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) { /* the process closed its stdin */
			s->inlen = 0;
			break;
		}
		memmove(s->inbuf, s->inbuf + n, s->inlen - (size_t)n);
		s->inlen -= (size_t)n;
	}
	if (s->close_stdin && s->in_fd >= 0) {
		if (s->tty) {
			static const char eot = 4; /* ^D: end of input on a terminal */

			if (write(s->in_fd, &eot, 1) < 0)
				return;
			s->in = false;
			s->close_stdin = false;
			return;
		}
		close(s->in_fd);
		s->in_fd = -1;
	}
}

/* Reads what fd has into a message on channel ch; false at its end. */
static bool read_out(struct sess *s, int fd, int ch)
{
	char buf[READ_CHUNK];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0) /* EOF, or EIO from a pty master whose last slave closed */
		return false;
	queue(s, ch, buf, (size_t)n);
	return true;
}

/* After the command's end: what its outputs still hold, sent as the client
 * takes it; 100 ms without anything, 10 s, or the outputs' end end it (a
 * pipe a child of the command keeps open ends the wait). */
static int drain_fds(struct sess *s, struct pollfd *pf)
{
	pf[0] = (struct pollfd){.fd = s->out_fd, .events = out_room(s) ? POLLIN : 0};
	pf[1] = (struct pollfd){.fd = s->err_fd, .events = out_room(s) ? POLLIN : 0};
	return 2;
}

static bool drain_step(struct sess *s, const struct pollfd *pf, bool active)
{
	int64_t now = sk_mono_ns();

	for (int i = 0; i < 2; i++) {
		int *fd = i == 0 ? &s->out_fd : &s->err_fd;

		if (*fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
			active = true;
			if (!read_out(s, *fd, i == 0 ? SK_WS_STDOUT : SK_WS_STDERR)) {
				if (*fd != s->proc.master)
					close(*fd);
				*fd = -1;
			}
		}
	}
	if (active || !out_room(s))
		s->quiet_since = now;
	return (s->out_fd >= 0 || s->err_fd >= 0) && !s->broken && now < s->until && now - s->quiet_since < 100000000LL;
}

static int start_exec(struct sess *s, sk_error_t *err)
{
	int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1}, rc;
	cleanup_close int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (s->tty) {
		if (sk_container_exec_start(&s->a->rt, s->c, (const char *const *)s->argv, true, -1, -1, -1, &s->proc,
					    err) < 0)
			return -1;
		s->out_fd = s->proc.master;
		s->in_fd = s->in ? dup(s->proc.master) : -1;
		fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
		if (s->in_fd >= 0)
			fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
		return 0;
	}
	if ((s->in && pipe2(pin, O_CLOEXEC) < 0) || (s->out && pipe2(pout, O_CLOEXEC) < 0) ||
	    (s->err && pipe2(perr, O_CLOEXEC) < 0)) {
		rc = sk_error_errno(err, errno, "pipe");
		goto out;
	}
	rc = sk_container_exec_start(&s->a->rt, s->c, (const char *const *)s->argv, false, s->in ? pin[0] : nul,
				     s->out ? pout[1] : nul, s->err ? perr[1] : nul, &s->proc, err);
	if (rc == 0) {
		s->in_fd = pin[1], pin[1] = -1;
		s->out_fd = pout[0], pout[0] = -1;
		s->err_fd = perr[0], perr[0] = -1;
		for (int i = 0; i < 3; i++) {
			int fd = i == 0 ? s->in_fd : i == 1 ? s->out_fd : s->err_fd;

			if (fd >= 0)
				fcntl(fd, F_SETFL, O_NONBLOCK);
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (pin[i] >= 0)
			close(pin[i]);
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	return rc;
}

static void exec_begin(struct sess *s)
{
	sk_error_t err = {0};

	s->in_fd = s->out_fd = s->err_fd = -1;
	s->proc.master = -1;
	s->proc.pid = -1;
	s->code = -2;
	if (start_exec(s, &err) < 0) {
		cleanup_free char *st = sk_ws_error_status(s->proto.version, err.msg);

		queue(s, SK_WS_ERROR, st, strlen(st));
		enter_finish(s);
		return;
	}
	s->started = true;
}

static int exec_fds(struct sess *s, struct pollfd *pf, int *timeout)
{
	pf[0] = (struct pollfd){.fd = s->in_fd, .events = s->inlen ? POLLOUT : 0};
	pf[1] = (struct pollfd){.fd = s->out_fd, .events = out_room(s) ? POLLIN : 0};
	pf[2] = (struct pollfd){.fd = s->err_fd, .events = out_room(s) ? POLLIN : 0};
	*timeout = s->out_fd < 0 && s->err_fd < 0 ? 50 : 1000;
	return 3;
}

/* false once the command ended (or the client went, or the agent stops) */
static bool exec_step(struct sess *s, const struct pollfd *pf)
{
	if (s->in_fd >= 0 && (s->inlen || s->close_stdin))
		write_stdin(s);
	if (s->out_fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) && !read_out(s, s->out_fd, SK_WS_STDOUT)) {
		if (s->out_fd != s->proc.master)
			close(s->out_fd);
		s->out_fd = -1;
	}
	if (s->err_fd >= 0 && (pf[2].revents & (POLLIN | POLLHUP | POLLERR)) && !read_out(s, s->err_fd, SK_WS_STDERR)) {
		close(s->err_fd);
		s->err_fd = -1;
	}
	/* the command's end: its outputs closed, or the runtime exited (a
	 * child of the command may keep a pipe open) */
	if ((s->code = sk_exec_proc_wait(&s->proc, true)) != -2) {
		s->state = ST_DRAIN;
		s->kick = true; /* drained at once: the outputs may have ended already */
		s->until = sk_mono_ns() + 10000000000LL;
		s->quiet_since = sk_mono_ns();
		return true;
	}
	return !s->broken && !sk__ag_stopping(s->a);
}

static void exec_end(struct sess *s)
{
	if (s->code == -2 && !s->broken)
		s->code = sk_exec_proc_wait(&s->proc, false);
	sk_debug("agent", "exec in %s/%s/%s ended: %d (client %s)", s->ns, s->pod, s->ctr, s->code,
		 s->broken ? "gone" : "connected");
	if (!s->broken && s->code >= 0) {
		cleanup_free char *st = sk_ws_exit_status(s->proto.version, s->code, (const char *const *)s->argv);

		if (*st)
			queue(s, SK_WS_ERROR, st, strlen(st));
	}
}

static void exec_cleanup(struct sess *s)
{
	if (!s->started)
		return;
	if (s->in_fd >= 0)
		close(s->in_fd);
	if (s->out_fd >= 0 && s->out_fd != s->proc.master)
		close(s->out_fd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	s->in_fd = s->out_fd = s->err_fd = -1;
	sk_exec_proc_release(&s->proc);
}

/* ---- attach ---- */

enum { ATTACH_PKT = 8192 }; /* conmon reads at most 32 KiB - 1 per packet and writes 8 KiB ones */

/* Sends what the client typed, one packet at most ATTACH_PKT bytes each; the
 * client's end of stdin (v5) is a shutdown(SHUT_WR), on which conmon closes
 * the container's stdin when it is stdinOnce (CRI-O's CloseWrite). */
static void attach_write(struct sess *s)
{
	while (s->inlen) {
		size_t n = s->inlen < ATTACH_PKT ? s->inlen : ATTACH_PKT;
		ssize_t w = send(s->att_fd, s->inbuf, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w < 0) {
			s->inlen = 0;
			break;
		}
		memmove(s->inbuf, s->inbuf + w, s->inlen - (size_t)w);
		s->inlen -= (size_t)w;
	}
	if (s->close_stdin) {
		shutdown(s->att_fd, SHUT_WR);
		s->close_stdin = false;
		s->in = false;
	}
}

/* One packet from conmon to the client; false at the socket's end. */
static bool attach_read(struct sess *s)
{
	uint8_t buf[32 * 1024];
	const uint8_t *data;
	size_t len;
	ssize_t n = recv(s->att_fd, buf, sizeof(buf), MSG_DONTWAIT);
	int st;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	st = sk_attach_packet(buf, (size_t)n, &data, &len);
	/* with a terminal both streams are the terminal's: stdout */
	if (st == SK_ATTACH_STDERR && !s->tty && s->err && len)
		queue(s, SK_WS_STDERR, data, len);
	else if (st > 0 && (st == SK_ATTACH_STDOUT || s->tty) && s->out && len)
		queue(s, SK_WS_STDOUT, data, len);
	return true;
}

/* kubelet's attach through CRI-O: the container's output from now on, the
 * client's input to its stdin, resizes to conmon's terminal; the session
 * ends with the container's output (it exited) or the client. */
static void attach_begin(struct sess *s)
{
	sk_error_t err = {0};

	s->att_fd = sk_container_attach(&s->a->rt, s->c, &err);
	if (s->att_fd < 0) {
		cleanup_free char *st = sk_ws_error_status(s->proto.version, err.msg);

		queue(s, SK_WS_ERROR, st, strlen(st));
		enter_finish(s);
	}
}

static int attach_fds(struct sess *s, struct pollfd *pf)
{
	pf[0] = (struct pollfd){.fd = s->att_fd,
				.events = (short)((out_room(s) ? POLLIN : 0) | (s->inlen ? POLLOUT : 0))};
	return 1;
}

static bool attach_step(struct sess *s, const struct pollfd *pf)
{
	if (s->inlen || s->close_stdin)
		attach_write(s);
	if ((pf[0].revents & (POLLIN | POLLHUP | POLLERR)) && !attach_read(s)) {
		s->ended = true;
		return false;
	}
	return !s->broken && !sk__ag_stopping(s->a);
}

static void attach_end(struct sess *s)
{
	sk_debug("agent", "attach to %s/%s/%s ended (client %s)", s->ns, s->pod, s->ctr,
		 s->broken ? "gone" : "connected");
	if (s->ended && !s->broken) {
		cleanup_free char *st = sk_ws_exit_status(s->proto.version, 0, NULL);

		if (*st)
			queue(s, SK_WS_ERROR, st, strlen(st));
	}
}

static void attach_cleanup(struct sess *s)
{
	if (s->att_fd >= 0)
		close(s->att_fd);
	s->att_fd = -1;
}

/* ---- port-forward ---- */

struct nsdial {
	const char *netns;
	uint16_t port;
	int fd, err;
};

/* Connects to localhost:port inside the pod's network namespace; a thread
 * of its own enters the namespace (setns affects only the calling thread). */
static void *dial_thread(void *arg)
{
	struct nsdial *d = arg;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(d->port)};
	int ns;

	d->fd = -1;
	if (d->netns) {
		ns = open(d->netns, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET) < 0) {
			d->err = errno;
			if (ns >= 0)
				close(ns);
			return NULL;
		}
		close(ns);
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (d->fd >= 0 && connect(d->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		d->err = errno;
		close(d->fd);
		d->fd = -1;
	}
	return NULL;
}

static int dial(const char *netns, uint16_t port, int *err)
{
	struct nsdial d = {netns, port, -1, 0};
	pthread_t t;

	if (pthread_create(&t, NULL, dial_thread, &d) != 0) {
		*err = EAGAIN;
		return -1;
	}
	pthread_join(t, NULL);
	*err = d.err;
	return d.fd;
}

static void on_pf_msg(struct sess *s, int ch, uint8_t *data, size_t len)
{
	struct pfport *p;

	if (ch / 2 >= s->nports || ch % 2 || !len)
		return;
	p = &s->pf[ch / 2];
	if (p->done)
		return;
	p->pend = xrealloc(p->pend, p->npend + len);
	memcpy(p->pend + p->npend, data, len);
	p->npend += len;
	s->inlen += len;
}

static void pf_close(struct pfport *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->done = true;
	free(p->pend);
	p->pend = NULL;
	p->npend = 0;
}

static void pf_write(struct sess *s, struct pfport *p)
{
	while (p->npend) {
		ssize_t n = send(p->fd, p->pend, p->npend, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			s->inlen -= p->npend;
			pf_close(p);
			return;
		}
		memmove(p->pend, p->pend + n, p->npend - (size_t)n);
		p->npend -= (size_t)n;
		s->inlen -= (size_t)n;
	}
}

static void pf_begin(struct sess *s)
{
	uint8_t prefix[2];

	for (int i = 0; i < s->nports; i++) {
		struct pfport *p = &s->pf[i];
		int e = 0;

		prefix[0] = (uint8_t)(p->port & 0xff);
		prefix[1] = (uint8_t)(p->port >> 8);
		queue(s, 2 * i, prefix, 2);
		queue(s, 2 * i + 1, prefix, 2);
		p->fd = dial(s->netns, p->port, &e);
		if (p->fd < 0) {
			cleanup_free char *msg = xasprintf(
				"error forwarding port %u to pod %s, uid %s: failed to connect to localhost:%u "
				"inside namespace of pod %s/%s: %s",
				p->port, s->pod_uid ? s->pod_uid : "", s->pod_uid ? s->pod_uid : "", p->port, s->ns,
				s->pod, strerror(e));

			queue(s, 2 * i + 1, msg, strlen(msg));
			pf_close(p);
		} else {
			fcntl(p->fd, F_SETFL, O_NONBLOCK);
		}
	}
}

static int pf_fds(struct sess *s, struct pollfd *pf)
{
	for (int i = 0; i < s->nports; i++) {
		struct pfport *p = &s->pf[i];

		pf[i] = (struct pollfd){.fd = p->done ? -1 : p->fd,
					.events = (short)((out_room(s) ? POLLIN : 0) | (p->npend ? POLLOUT : 0))};
	}
	return s->nports;
}

/* kubelet closes the stream once every port's connection ended */
static bool pf_step(struct sess *s, const struct pollfd *pf)
{
	int live = 0;

	for (int i = 0; i < s->nports; i++) {
		struct pfport *p = &s->pf[i];

		if (p->done)
			continue;
		if (p->npend)
			pf_write(s, p);
		if (!p->done && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
			char buf[READ_CHUNK];
			ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n > 0)
				queue(s, 2 * i, buf, (size_t)n);
			else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				s->inlen -= p->npend;
				pf_close(p);
			}
		}
		live += !p->done;
	}
	return live && !s->broken && !sk__ag_stopping(s->a);
}

static void pf_cleanup(struct sess *s)
{
	for (int i = 0; i < s->nports; i++)
		if (!s->pf[i].done)
			pf_close(&s->pf[i]);
}

/* ---- port-forward over SPDY (kubectl) ---- */

static struct spconn *spconn_by_id(struct sess *s, uint32_t id)
{
	for (size_t i = 0; i < s->nconns; i++)
		if (s->conns[i].data_id == id || s->conns[i].err_id == id)
			return &s->conns[i];
	return NULL;
}

static struct spconn *spconn_by_req(struct sess *s, const char *req)
{
	for (size_t i = 0; i < s->nconns; i++)
		if (!strcmp(s->conns[i].reqid, req))
			return &s->conns[i];
	if (s->nconns >= 4 * MAX_PORTS) { /* reuse a finished slot */
		for (size_t i = 0; i < s->nconns; i++)
			if (s->conns[i].done && !s->conns[i].npend) {
				free(s->conns[i].pend);
				s->conns[i] = (struct spconn){.fd = -1};
				snprintf(s->conns[i].reqid, sizeof(s->conns[i].reqid), "%s", req);
				return &s->conns[i];
			}
		return NULL;
	}
	s->conns = xrealloc(s->conns, (s->nconns + 1) * sizeof(*s->conns));
	s->conns[s->nconns] = (struct spconn){.fd = -1};
	snprintf(s->conns[s->nconns].reqid, sizeof(s->conns[s->nconns].reqid), "%s", req);
	return &s->conns[s->nconns++];
}

static void sp_send_data(struct sess *s, uint32_t id, uint8_t flags, const void *data, size_t n)
{
	size_t len;

	if (id)
		queue_raw(s, sk_spdy_data(id, flags, data, n, &len), &len);
}

/* Ends a connection: FIN on both streams (kubelet closes them when the
 * copy ends), the pod's socket closed. */
static void sp_end(struct sess *s, struct spconn *c, const char *err)
{
	if (c->done)
		return;
	if (err && c->err_id)
		sp_send_data(s, c->err_id, 0, err, strlen(err));
	sp_send_data(s, c->data_id, SK_SPDY_FLAG_FIN, NULL, 0);
	sp_send_data(s, c->err_id, SK_SPDY_FLAG_FIN, NULL, 0);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->done = true;
	s->inlen -= c->npend;
	c->npend = 0;
}

static void sp_start(struct sess *s, struct spconn *c)
{
	int e = 0;

	c->fd = dial(s->netns, c->port, &e);
	if (c->fd < 0) {
		cleanup_free char *msg = xasprintf("error forwarding port %u to pod %s, uid %s: failed to connect to "
						   "localhost:%u inside namespace of pod %s/%s: %s",
						   c->port, s->pod_uid ? s->pod_uid : "", s->pod_uid ? s->pod_uid : "",
						   c->port, s->ns, s->pod, strerror(e));

		sp_end(s, c, msg);
		return;
	}
	fcntl(c->fd, F_SETFL, O_NONBLOCK);
}

static void sp_syn(struct sess *s, const struct sk_spdy_frame *f)
{
	const char *type = sk_spdy_header_get(f, "streamtype"), *port = sk_spdy_header_get(f, "port");
	const char *req = sk_spdy_header_get(f, "requestid");
	struct spconn *c;
	size_t len;
	long p;

	queue_raw(s, sk_spdy_syn(s->spdy, SK_SPDY_SYN_REPLY, f->stream_id, 0, NULL, 0, &len), &len);
	c = spconn_by_req(s, req ? req : "");
	if (!c || !type) {
		queue_raw(s, sk_spdy_rst(f->stream_id, 3 /* REFUSED_STREAM */, &len), &len);
		return;
	}
	if (!strcmp(type, "error")) {
		c->err_id = f->stream_id;
		return;
	}
	if (strcmp(type, "data") != 0)
		return;
	c->data_id = f->stream_id;
	p = port ? strtol(port, NULL, 10) : 0;
	if (p < 1 || p > 65535) {
		cleanup_free char *msg = xasprintf("invalid port %s", port ? port : "\"\"");

		sp_end(s, c, msg);
		return;
	}
	c->port = (uint16_t)p;
	sp_start(s, c);
}

static int on_spdy_frame(void *arg, const struct sk_spdy_frame *f)
{
	struct sess *s = arg;
	struct spconn *c;
	size_t len;

	switch (f->type) {
	case SK_SPDY_SYN_STREAM:
		sp_syn(s, f);
		break;
	case SK_SPDY_DATA:
		c = spconn_by_id(s, f->stream_id);
		if (!c || c->done || f->stream_id != c->data_id)
			break;
		if (f->len) {
			c->pend = xrealloc(c->pend, c->npend + f->len);
			memcpy(c->pend + c->npend, f->data, f->len);
			c->npend += f->len;
			s->inlen += f->len;
		}
		if (f->flags & SK_SPDY_FLAG_FIN)
			c->client_fin = true;
		break;
	case SK_SPDY_RST_STREAM:
		c = spconn_by_id(s, f->stream_id);
		if (c && c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
		}
		if (c) {
			s->inlen -= c->npend;
			c->npend = 0;
			c->done = true;
		}
		break;
	case SK_SPDY_PING:
		queue_raw(s, sk_spdy_ping(f->value, &len), &len);
		break;
	case SK_SPDY_GOAWAY:
		s->goaway = true;
		break;
	default:
		break;
	}
	return 0;
}

static void sp_io(struct sess *s, struct spconn *c, short revents)
{
	while (c->npend && !c->done) {
		ssize_t n = send(c->fd, c->pend, c->npend, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			sp_end(s, c, NULL);
			return;
		}
		memmove(c->pend, c->pend + n, c->npend - (size_t)n);
		c->npend -= (size_t)n;
		s->inlen -= (size_t)n;
	}
	if (c->client_fin && !c->npend && c->fd >= 0) {
		shutdown(c->fd, SHUT_WR);
		c->client_fin = false;
	}
	if (!c->done && (revents & (POLLIN | POLLHUP | POLLERR))) {
		char buf[READ_CHUNK];
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0)
			sp_send_data(s, c->data_id, 0, buf, (size_t)n);
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			sp_end(s, c, NULL);
	}
}

static int spdy_fds(struct sess *s, struct pollfd *pf)
{
	size_t n = s->nconns < 4 * MAX_PORTS ? s->nconns : 4 * MAX_PORTS;

	for (size_t i = 0; i < n; i++) {
		struct spconn *c = &s->conns[i];

		pf[i] = (struct pollfd){.fd = c->done ? -1 : c->fd,
					.events = (short)((out_room(s) ? POLLIN : 0) | (c->npend ? POLLOUT : 0))};
	}
	return (int)n;
}

static bool spdy_step(struct sess *s, const struct pollfd *pf, size_t n)
{
	for (size_t i = 0; i < n && i < s->nconns; i++)
		if (!s->conns[i].done && s->conns[i].fd >= 0)
			sp_io(s, &s->conns[i], pf[i].revents);
	return !s->broken && !s->goaway && !sk__ag_stopping(s->a);
}

static void spdy_cleanup(struct sess *s)
{
	for (size_t i = 0; i < s->nconns; i++) {
		if (s->conns[i].fd >= 0)
			close(s->conns[i].fd);
		free(s->conns[i].pend);
	}
	free(s->conns);
	s->conns = NULL;
	s->nconns = 0;
	sk_spdy_free(s->spdy);
	s->spdy = NULL;
}

/* ---- sessions ---- */

static void sess_free(struct sess *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->argv);
	free(s->ns);
	free(s->pod);
	free(s->ctr);
	free(s->extra);
	free(s->inbuf);
	free(s->netns);
	free(s->pod_uid);
	sk_container_free(s->c);
	free(s);
}

/* ---- the sessions' event loop ---- */

static struct {
	pthread_mutex_t mu; /* guards incoming and started */
	struct sess *incoming;
	bool started;
	int wake;         /* eventfd: new sessions */
	struct sess *all; /* the loop's own */
} loop = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = -1};

static void sess_begin(struct sess *s)
{
	struct wslay_event_callbacks cb = {
		.recv_callback = ws_recv, .send_callback = ws_send, .on_msg_recv_callback = on_msg};

	fcntl(s->sock, F_SETFL, fcntl(s->sock, F_GETFL) | O_NONBLOCK);
	s->kick = true;
	if (wslay_event_context_server_init(&s->ws, &cb, s) != 0) {
		s->ws = NULL;
		s->state = ST_TAKEN;
		return;
	}
	wslay_event_config_set_max_recv_msg_length(s->ws, 4 << 20);
	s->state = ST_RUN;
	/* upstream's "connection established": an empty message on the
	 * lowest writable channel */
	if (s->kind != S_PF) {
		int ch = s->out ? SK_WS_STDOUT : s->err ? SK_WS_STDERR : SK_WS_ERROR;

		queue(s, ch, NULL, 0);
	}
	if (s->kind == S_PF && s->proto.spdy)
		s->spdy = sk_spdy_new();
	else if (s->kind == S_PF)
		pf_begin(s);
	else if (s->kind == S_ATTACH)
		attach_begin(s);
	else
		exec_begin(s);
}

/* Fills the session's pollfds (the client's socket and its own socket
 * first) and returns how many; *timeout: how long it may wait, ms. */
static size_t sess_fds(struct sess *s, struct pollfd *pf, int *timeout)
{
	size_t n = 2;

	*timeout = 1000;
	pf[0] = (struct pollfd){.fd = s->broken ? -1 : s->sock, .events = 0};
	pf[1] = (struct pollfd){.fd = s->broken || s->state >= ST_TAKEN ? -1 : s->raw, .events = POLLRDHUP};
	switch (s->state) {
	case ST_RUN:
		pf[0].events = s->ws ? ws_events(s) : 0;
		if (s->kind == S_PF && s->spdy)
			n += (size_t)spdy_fds(s, pf + 2);
		else if (s->kind == S_PF)
			n += (size_t)pf_fds(s, pf + 2);
		else if (s->kind == S_ATTACH)
			n += (size_t)attach_fds(s, pf + 2);
		else
			n += (size_t)exec_fds(s, pf + 2, timeout);
		break;
	case ST_DRAIN:
		pf[0].events = ws_events(s);
		n += (size_t)drain_fds(s, pf + 2);
		*timeout = 100;
		break;
	case ST_FINISH:
	case ST_CLOSING:
		pf[0].events = wslay_event_want_write(s->ws) ? POLLOUT : 0;
		*timeout = 200;
		break;
	default:
		pf[0].fd = -1;
		*timeout = 5;
		break;
	}
	if (s->kick_at && *timeout > s->kick_wait)
		*timeout = s->kick_wait;
	return n;
}

static void sess_cleanup(struct sess *s)
{
	if (s->kind == S_PF && s->spdy)
		spdy_cleanup(s);
	else if (s->kind == S_PF)
		pf_cleanup(s);
	else if (s->kind == S_ATTACH)
		attach_cleanup(s);
	else
		exec_cleanup(s);
	s->until = sk_mono_ns() + 2000000000LL;
}

/* What the session wrote to its socketpair and libmicrohttpd should send
 * on has not moved for a while: libmicrohttpd may have lost its client
 * socket's writability (util/mhdup.h). The first kick 1 ms after the last
 * progress, then at doubling intervals up to 64 ms while none comes (a
 * client that does not read). */
static void kick_check(struct sess *s)
{
	int q = 0;
	bool waiting = !s->broken && s->state < ST_DONE &&
		       (s->state == ST_TAKEN ? ioctl(s->sock, SIOCOUTQ, &q) == 0 && q > 0
					     : s->ws && wslay_event_want_write(s->ws));
	int64_t now;

	if (!waiting) {
		s->kick_at = 0;
		return;
	}
	now = sk_mono_ns();
	if (!s->kick_at || s->sent != s->kick_mark) {
		s->kick_wait = KICK_MIN_MS;
		s->kick_mark = s->sent;
	} else if (now >= s->kick_at) {
		sk_mhd_upgrade_kick(s->raw);
		s->kick_wait = s->kick_wait * 2 < KICK_MAX_MS ? s->kick_wait * 2 : KICK_MAX_MS;
	} else {
		return;
	}
	s->kick_at = now + s->kick_wait * 1000000LL;
}

/* One step of s with its pollfds' results; false once it is done. */
static bool sess_step(struct sess *s, const struct pollfd *pf)
{
	bool active = false;

	for (size_t i = 0; i < s->npf; i++)
		active |= pf[i].revents != 0;
	/* the client's own socket said something: it may have gone */
	if (pf[1].revents && !s->broken && sk_sock_peer_gone(s->raw))
		s->broken = true;
	if (s->state == ST_RUN || s->state == ST_DRAIN) {
		bool go;

		ws_io(s, pf[0].revents);
		if (s->state == ST_RUN) {
			if (s->kind == S_PF && s->spdy)
				go = spdy_step(s, pf + 2, s->npf - 2);
			else if (s->kind == S_PF)
				go = pf_step(s, pf + 2);
			else if (s->kind == S_ATTACH)
				go = attach_step(s, pf + 2);
			else
				go = exec_step(s, pf + 2);
		} else {
			go = drain_step(s, pf + 2, active);
		}
		if (!go || (s->state == ST_DRAIN && s->broken)) {
			if (s->kind == S_EXEC)
				exec_end(s);
			else if (s->kind == S_ATTACH)
				attach_end(s);
			enter_finish(s);
		}
	}
	if (s->state == ST_FINISH || s->state == ST_CLOSING) {
		finish_step(s);
		if (s->state == ST_TAKEN)
			sess_cleanup(s);
	}
	if (s->state == ST_TAKEN) {
		int q = 0;

		/* libmicrohttpd's relay took what the session wrote: it sends it
		 * before it closes */
		if (ioctl(s->sock, SIOCOUTQ, &q) == 0 && q > 0 && sk_mono_ns() < s->until)
			return true;
		s->state = ST_DONE;
	}
	kick_check(s);
	return s->state != ST_DONE;
}

static void sess_done(struct sess *s)
{
	if (s->ws)
		wslay_event_context_free(s->ws);
	MHD_upgrade_action(s->urh, MHD_UPGRADE_ACTION_CLOSE);
	sess_free(s);
	__atomic_sub_fetch(&nsessions, 1, __ATOMIC_RELEASE);
}

static void take_incoming(void)
{
	struct sess *in;
	uint64_t v;

	if (read(loop.wake, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&loop.mu);
	in = loop.incoming;
	loop.incoming = NULL;
	pthread_mutex_unlock(&loop.mu);
	while (in) {
		struct sess *s = in;

		in = s->next;
		if (!s->begun)
			sess_begin(s);
		s->next = loop.all;
		loop.all = s;
	}
}

static void *loop_main(void *arg)
{
	struct pollfd *pf = NULL;
	size_t cap = 0;

	(void)arg;
	for (;;) {
		size_t n = 1;
		int64_t now = sk_mono_ns(), wait = 1000;

		for (struct sess *s = loop.all; s; s = s->next)
			n += MAX_FDS;
		if (n > cap)
			pf = xrealloc(pf, (cap = n) * sizeof(*pf));
		pf[0] = (struct pollfd){.fd = loop.wake, .events = POLLIN};
		n = 1;
		for (struct sess *s = loop.all; s; s = s->next) {
			int t;

			s->pf_off = n;
			s->npf = sess_fds(s, pf + n, &t);
			n += s->npf;
			if (s->kick || s->extra_off < s->nextra)
				wait = 0;
			else if (s->next_tick <= now)
				wait = 0;
			else if ((s->next_tick - now + 999999) / 1000000 < wait)
				wait = (s->next_tick - now + 999999) / 1000000;
		}
		poll(pf, (nfds_t)n, (int)wait);
		if (pf[0].revents & POLLIN)
			take_incoming();
		now = sk_mono_ns();
		for (struct sess **sp = &loop.all; *sp;) {
			struct sess *s = *sp;
			bool due = s->kick || now >= s->next_tick || s->extra_off < s->nextra;
			int t;

			for (size_t i = 0; !due && s->npf && i < s->npf; i++)
				due = pf[s->pf_off + i].revents != 0;
			if (!due) {
				sp = &s->next;
				continue;
			}
			s->kick = false;
			if (!s->npf) { /* new this turn: nothing polled yet */
				struct pollfd none[MAX_FDS];

				s->npf = sess_fds(s, none, &t);
				memset(none, 0, sizeof(none));
				if (!sess_step(s, none)) {
					*sp = s->next;
					sess_done(s);
					continue;
				}
			} else if (!sess_step(s, pf + s->pf_off)) {
				*sp = s->next;
				sess_done(s);
				continue;
			}
			{
				struct pollfd tmp[MAX_FDS];

				sess_fds(s, tmp, &t);
				s->next_tick = sk_mono_ns() + (int64_t)t * 1000000;
			}
			s->npf = 0;
			sp = &s->next;
		}
	}
	return NULL;
}

/* Hands s to the loop, starting it first; false if it cannot run. */
static void loop_queue(struct sess *s)
{
	uint64_t one = 1;

	pthread_mutex_lock(&loop.mu);
	s->next = loop.incoming;
	loop.incoming = s;
	pthread_mutex_unlock(&loop.mu);
	if (write(loop.wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
		sk_warn("agent", "streaming sessions: wake: %s", strerror(errno));
}

/* An exec's or attach's start (the runtime's exec, which waits ~100 ms for
 * a terminal's master; conmon's attach socket) on a thread of its own, so
 * it holds no other session of the loop; then the session joins the loop. */
static void *starter(void *arg)
{
	struct sess *s = arg;

	sess_begin(s);
	s->begun = true;
	loop_queue(s);
	return NULL;
}

static bool loop_add(struct sess *s)
{
	bool ok = true;

	pthread_mutex_lock(&loop.mu);
	if (!loop.started) {
		pthread_attr_t attr;
		pthread_t t;

		if (loop.wake < 0)
			loop.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 1024 * 1024);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		loop.started = loop.wake >= 0 && pthread_create(&t, &attr, loop_main, NULL) == 0;
		pthread_attr_destroy(&attr);
		ok = loop.started;
	}
	pthread_mutex_unlock(&loop.mu);
	if (!ok)
		return false;
	if (s->kind != S_PF) {
		pthread_attr_t attr;
		pthread_t t;
		int rc;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 512 * 1024);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&t, &attr, starter, s);
		pthread_attr_destroy(&attr);
		if (rc == 0)
			return true;
	}
	loop_queue(s); /* begun on the loop */
	return true;
}

static void upgraded(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra, size_t nextra,
		     MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct sess *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	(void)con_cls;
	sk__logserver_upgraded(conn, urh);
	s->sock = sock;
	s->raw = ci ? ci->connect_fd : -1;
	s->urh = urh;
	if (nextra) {
		s->extra = xmalloc(nextra);
		memcpy(s->extra, extra, nextra);
		s->nextra = nextra;
	}
	if (!loop_add(s)) {
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
		sess_free(s);
		__atomic_sub_fetch(&nsessions, 1, __ATOMIC_RELEASE);
	}
}

struct args {
	struct sess *s;
	bool bad_port;
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *g = cls;
	struct sess *s = g->s;
	bool on = value && (!strcmp(value, "1") || !strcasecmp(value, "true"));

	(void)kind;
	if (!strcmp(key, "command") && value) {
		s->argv = xrealloc(s->argv, (s->argc + 2) * sizeof(char *));
		s->argv[s->argc++] = xstrdup(value);
		s->argv[s->argc] = NULL;
	} else if (!strcmp(key, "input")) {
		s->in = on;
	} else if (!strcmp(key, "output")) {
		s->out = on;
	} else if (!strcmp(key, "error")) {
		s->err = on;
	} else if (!strcmp(key, "tty")) {
		s->tty = on;
	} else if (!strcmp(key, "port") || !strcmp(key, "ports")) {
		uint16_t ports[MAX_PORTS];
		int n = sk_ws_parse_ports(value, ports, MAX_PORTS);

		if (n < 0 || s->nports + n > MAX_PORTS)
			g->bad_port = true;
		for (int i = 0; i < n && s->nports < MAX_PORTS; i++)
			s->pf[s->nports++] = (struct pfport){.port = ports[i], .fd = -1};
	}
	return MHD_YES;
}

static enum MHD_Result text_reply(struct MHD_Connection *conn, unsigned code, const char *msg)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The pod's network namespace path ("" for the host's), or NULL. */
static char *pod_netns(struct sk_agent *a, const char *uid)
{
	struct sk_sandbox **sbs = NULL;
	size_t n = 0;
	sk_error_t err = {0};
	char *path = NULL;

	if (sk_sandbox_list(&a->rt, &sbs, &n, &err) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!path && sbs[i]->pod_uid && !strcmp(sbs[i]->pod_uid, uid))
			path = xstrdup(sbs[i]->netns_path ? sbs[i]->netns_path : "");
		sk_sandbox_free(sbs[i]);
	}
	free(sbs);
	return path;
}

/* Fills what the session needs before the 101; an HTTP error otherwise. */
static unsigned prepare(struct sess *s, struct MHD_Connection *conn, char **msg)
{
	struct args g = {s, false};

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect, &g);
	if (s->kind == S_EXEC && !s->argc)
		return *msg = xstrdup("you must specify at least one command for the container"), MHD_HTTP_BAD_REQUEST;
	if (s->kind == S_PF && (g.bad_port || (!s->nports && !s->proto.spdy)))
		return *msg = xstrdup("invalid port"), MHD_HTTP_BAD_REQUEST;
	s->pod_uid = sk__agent_pod_uid(s->a, s->ns, s->pod);
	if (!s->pod_uid)
		return *msg = xstrdup("pod does not exist"), MHD_HTTP_NOT_FOUND;
	if (s->kind == S_PF) {
		s->netns = pod_netns(s->a, s->pod_uid);
		if (!s->netns)
			return *msg = xasprintf("pod %s/%s has no sandbox", s->ns, s->pod), MHD_HTTP_NOT_FOUND;
		if (!*s->netns) {
			free(s->netns);
			s->netns = NULL;
		}
		return 0;
	}
	s->c = find_container(s->a, s->ns, s->pod, s->ctr);
	if (!s->c)
		return *msg = xasprintf("container not found (\"%s\")", s->ctr), MHD_HTTP_NOT_FOUND;
	if (s->kind == S_ATTACH) {
		/* kubelet's GetAttach: the terminal is the container's, whatever
		 * the request says (a process cannot gain or lose one) */
		cleanup_free char *path = xasprintf("%s/config.json", s->c->dir);
		cleanup_json json_t *spec = json_load_file(path, 0, NULL);

		s->tty = json_is_true(json_object_get(json_object_get(spec, "process"), "terminal"));
	}
	return 0;
}

int sk__stream_serve(struct sk_agent *a, struct MHD_Connection *conn, const char *url)
{
	const char *upgrade = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Upgrade");
	const char *key = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Key");
	const char *offered = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Protocol");
	struct sess *s = xzalloc(sizeof(*s));
	char ns[254], pod[254], ctr[254], accept[32];
	cleanup_free char *msg = NULL;
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned code;

	s->a = a;
	s->sock = -1;
	s->raw = -1;
	s->att_fd = -1;
	ctr[0] = '\0';
	if (sscanf(url, "/exec/%253[^/]/%253[^/]/%253[^/]", ns, pod, ctr) == 3)
		s->kind = S_EXEC;
	else if (sscanf(url, "/attach/%253[^/]/%253[^/]/%253[^/]", ns, pod, ctr) == 3)
		s->kind = S_ATTACH;
	else if (sscanf(url, "/portForward/%253[^/]/%253[^/]", ns, pod) == 2)
		s->kind = S_PF;
	else {
		sess_free(s);
		return text_reply(conn, MHD_HTTP_NOT_FOUND, "not found");
	}
	s->ns = xstrdup(ns);
	s->pod = xstrdup(pod);
	s->ctr = xstrdup(ctr);
	if (!upgrade || strcasecmp(upgrade, "websocket") || !key) {
		sess_free(s);
		return text_reply(conn, MHD_HTTP_BAD_REQUEST,
				  "unable to upgrade: this node serves the streaming protocols over WebSocket only "
				  "(v5.channel.k8s.io, v4.channel.k8s.io, SPDY/3.1+portforward.k8s.io tunnelled)");
	}
	if (sk_ws_pick_protocol(offered, s->kind == S_PF, &s->proto) < 0) {
		msg = xasprintf("requested protocol(s) are not supported: [%s]", offered);
		sess_free(s);
		return text_reply(conn, MHD_HTTP_BAD_REQUEST, msg);
	}
	if ((code = prepare(s, conn, &msg)) != 0) {
		sess_free(s);
		return text_reply(conn, code, msg);
	}
	if (sk_ws_accept_key(key, accept) < 0) {
		sess_free(s);
		return text_reply(conn, MHD_HTTP_BAD_REQUEST, "bad Sec-WebSocket-Key");
	}
	if (__atomic_add_fetch(&nsessions, 1, __ATOMIC_ACQUIRE) > MAX_SESSIONS) {
		__atomic_sub_fetch(&nsessions, 1, __ATOMIC_RELEASE);
		sess_free(s);
		return text_reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "too many streaming sessions on this node");
	}
	r = MHD_create_response_for_upgrade(upgraded, s);
	MHD_add_response_header(r, MHD_HTTP_HEADER_UPGRADE, "websocket");
	MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
	if (*s->proto.name)
		MHD_add_response_header(r, "Sec-WebSocket-Protocol", s->proto.name);
	ret = MHD_queue_response(conn, MHD_HTTP_SWITCHING_PROTOCOLS, r);
	MHD_destroy_response(r);
	return ret;
}

void sk__stream_wait_idle(int timeout_ms)
{
	int64_t until = sk_mono_ns() + (int64_t)timeout_ms * 1000000;

	while (__atomic_load_n(&nsessions, __ATOMIC_ACQUIRE) > 0 && sk_mono_ns() < until) {
		struct timespec ts = {0, 10 * 1000000};

		nanosleep(&ts, NULL);
	}
}
