/* etcd's gRPC API through gRPC's C core: one channel per endpoint (a call
 * goes to the endpoint that answered last and on to the next one when it
 * cannot be reached, as etcd's own client fails over), unary calls on a
 * completion queue of their own (plucked by the calling thread), and
 * streaming calls (watch, snapshot) read one reply at a time by the thread
 * that owns them. Messages are etcd's, packed by protobuf-c. */
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_posix.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "store/etcd-int.h"
#include "util/util.h"

/* a reconnect to an endpoint that went away waits at most this long, so a
 * restarted etcd is back in use within it (GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
 * despite its name the least time one connection attempt gets, keeps its
 * default of 20 s, ample for a busy etcd's handshake) */
#define RECONNECT_MIN_MS 100
#define RECONNECT_MAX_MS 1000
#define KEEPALIVE_MS 10000

/* a read that etcd answers "leader changed" is made again every
 * LEADER_RETRY_MS, for at most LEADER_WAIT_MS (an election on a busy
 * machine) */
#define LEADER_RETRY_MS 50
#define LEADER_WAIT_MS 3000

/* how long the monitor waits on a channel's state before it looks again */
#define MONITOR_MS 200

/* TLS: the most one TCP connect and one handshake may take */
#define CONNECT_MS 5000
#define HANDSHAKE_MS 10000
/* the relay's buffer, each way */
#define RELAY_BUF 16384

/* One endpoint. Over plain TCP, gRPC's own channel (it reconnects by
 * itself). Over TLS, the TLS session is GnuTLS's (skiff never asks gRPC for
 * TLS): a keeper thread connects, hands gRPC the plaintext end of a
 * socketpair as a channel of its own (grpc_channel_create_from_fd) and
 * relays between the socketpair and the session; when either side ends it
 * drops the channel (calls in flight on it fail as unavailable) and makes a
 * new connection, as a channel made from an fd does not reconnect. */
struct endpoint {
	struct sk__etcd_conn *c;
	char *host;         /* "HOST:PORT" */
	pthread_mutex_t mu; /* guards ch, tcp, why */
	grpc_channel *ch;   /* NULL while a TLS endpoint has no connection */
	int tcp;            /* TLS: the connection's socket, -1 when none */
	char *why;          /* TLS: why there is no connection */
	pthread_t keeper;
	int keeper_started;
};

struct sk__etcd_conn {
	struct endpoint *ep;
	size_t n;
	int cur; /* atomic: the endpoint that answered last */
	/* The monitor: gRPC's C core makes progress on a connection only while
	 * some thread polls for it. A call fails at once while its channel is
	 * in TRANSIENT_FAILURE, so after an outage no call would stay long
	 * enough for the reconnect to complete its handshake: this thread keeps
	 * each channel connecting and polled (a watch of its state; TLS
	 * endpoints' channels, made from an fd, have no state to watch: the
	 * thread polls for them all the same). */
	pthread_t monitor;
	grpc_completion_queue *mcq;
	int stop; /* atomic */
	/* TLS */
	int tls;
	gnutls_certificate_credentials_t cred;
	int wake; /* eventfd, readable once closing */
	grpc_channel_args *cargs;
};

static void cq_drain(grpc_completion_queue *cq, int pluck);

static gpr_timespec after_ms(int64_t ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

static void *monitor_main(void *arg)
{
	sk__etcd_conn *c = arg;
	size_t pending = 0;
	char *watching = xzalloc(c->n);

	for (;;) {
		int stop = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		grpc_event ev;

		for (size_t i = 0; i < c->n && !stop && !c->tls; i++) {
			if (watching[i])
				continue;
			grpc_channel_watch_connectivity_state(c->ep[i].ch,
							      grpc_channel_check_connectivity_state(c->ep[i].ch, 1),
							      after_ms(MONITOR_MS), c->mcq, (void *)(i + 1));
			watching[i] = 1;
			pending++;
		}
		if (stop && !pending)
			break;
		ev = grpc_completion_queue_next(c->mcq, after_ms(MONITOR_MS), NULL);
		if (ev.type == GRPC_OP_COMPLETE) {
			watching[(size_t)ev.tag - 1] = 0;
			pending--;
		}
	}
	free(watching);
	return NULL;
}

/* ---- TLS through GnuTLS ---- */

static int stopping(sk__etcd_conn *c) { return __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE); }

/* Waits ms, or less when the connection closes. */
static void nap(sk__etcd_conn *c, int ms)
{
	struct pollfd p = {.fd = c->wake, .events = POLLIN};

	while (poll(&p, 1, ms) < 0 && errno == EINTR)
		;
}

static void set_why(struct endpoint *e, char *why)
{
	pthread_mutex_lock(&e->mu);
	if (!e->why || strcmp(e->why, why))
		sk_warn("store", "etcd at %s: %s", e->host, why);
	free(e->why);
	e->why = why;
	pthread_mutex_unlock(&e->mu);
}

/* A TCP connection to host ("HOST:PORT", HOST maybe "[v6]"), blocking once
 * made; -1 with *why set. */
static int tcp_connect(struct endpoint *e, char **why)
{
	cleanup_free char *h = xstrdup(e->host);
	char *colon = strrchr(h, ':'), *name = h;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL, *a;
	int fd = -1, rc, last = ECONNREFUSED;

	*colon = '\0';
	if (name[0] == '[' && colon > name && colon[-1] == ']') {
		name++;
		colon[-1] = '\0';
	}
	if ((rc = getaddrinfo(name, colon + 1, &hints, &ai)) != 0) {
		*why = xasprintf("resolving %s: %s", name, gai_strerror(rc));
		return -1;
	}
	for (a = ai; a && fd < 0 && !stopping(e->c); a = a->ai_next) {
		struct pollfd p[2];
		socklen_t len = sizeof(last);

		if ((fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
			last = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			last = errno;
			close(fd);
			fd = -1;
			continue;
		}
		p[0] = (struct pollfd){.fd = fd, .events = POLLOUT};
		p[1] = (struct pollfd){.fd = e->c->wake, .events = POLLIN};
		while ((rc = poll(p, 2, CONNECT_MS)) < 0 && errno == EINTR)
			;
		if (rc <= 0 || !(p[0].revents & (POLLOUT | POLLERR | POLLHUP)))
			last = rc == 0 ? ETIMEDOUT : ECANCELED;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &last, &len) < 0)
			last = errno;
		if (last || rc <= 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		*why = xasprintf("connecting: %s", strerror(last ? last : ECONNREFUSED));
		return -1;
	}
	rc = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &rc, sizeof(rc));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The TLS session over tcp: etcd's certificate checked against the CA (its
 * name or address in it), the client certificate presented, HTTP/2 agreed
 * by ALPN. NULL with *why set. */
static gnutls_session_t tls_handshake(struct endpoint *e, int tcp, char **why)
{
	cleanup_free char *name = xstrdup(e->host);
	char *colon = strrchr(name, ':'), *n = name;
	gnutls_datum_t h2 = {.data = (unsigned char *)"h2", .size = 2}, alpn;
	struct in6_addr addr;
	gnutls_session_t s;
	int rc;

	*colon = '\0';
	if (n[0] == '[' && colon > n && colon[-1] == ']') {
		n++;
		colon[-1] = '\0';
	}
	if (gnutls_init(&s, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL) < 0) {
		*why = xstrdup("TLS: gnutls_init failed");
		return NULL;
	}
	if (gnutls_set_default_priority(s) < 0 || gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, e->c->cred) < 0 ||
	    gnutls_alpn_set_protocols(s, &h2, 1, 0) < 0) {
		*why = xstrdup("TLS: setting up the session failed");
		gnutls_deinit(s);
		return NULL;
	}
	/* SNI only for a name, not an address (RFC 6066) */
	if (inet_pton(AF_INET, n, &addr) != 1 && inet_pton(AF_INET6, n, &addr) != 1)
		gnutls_server_name_set(s, GNUTLS_NAME_DNS, n, strlen(n));
	gnutls_session_set_verify_cert(s, n, 0);
	gnutls_transport_set_int(s, tcp);
	gnutls_handshake_set_timeout(s, HANDSHAKE_MS);
	do
		rc = gnutls_handshake(s);
	while (rc < 0 && !gnutls_error_is_fatal(rc) && !stopping(e->c));
	if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
		gnutls_datum_t out = {0};

		gnutls_certificate_verification_status_print(gnutls_session_get_verify_cert_status(s), GNUTLS_CRT_X509,
							     &out, 0);
		*why = xasprintf("TLS: etcd's certificate is refused: %s", out.data ? (char *)out.data : "");
		gnutls_free(out.data);
		for (size_t l = strlen(*why); l && (*why)[l - 1] == ' '; l--)
			(*why)[l - 1] = '\0';
	} else if (rc < 0) {
		*why = xasprintf("TLS handshake: %s", gnutls_strerror(rc));
	} else if (gnutls_alpn_get_selected_protocol(s, &alpn) < 0 || alpn.size != 2 || memcmp(alpn.data, "h2", 2)) {
		*why = xstrdup("TLS: etcd did not agree to HTTP/2 (ALPN h2)");
		rc = -1;
	}
	if (rc < 0) {
		gnutls_deinit(s);
		return NULL;
	}
	return s;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies between gRPC's end (sp) and the TLS session until either ends or
 * the connection closes; one bounded buffer each way. */
static char *relay(struct endpoint *e, gnutls_session_t s, int sp, int tcp)
{
	char *buf = xmalloc(RELAY_BUF), *why = NULL;

	for (;;) {
		struct pollfd p[3] = {{.fd = sp, .events = POLLIN},
				      {.fd = tcp, .events = POLLIN},
				      {.fd = e->c->wake, .events = POLLIN}};
		ssize_t n;

		if (!gnutls_record_check_pending(s)) {
			if (poll(p, 3, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
		} else {
			p[1].revents = POLLIN;
		}
		if (p[2].revents || stopping(e->c))
			break;
		if (p[0].revents) {
			n = read(sp, buf, RELAY_BUF);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break; /* gRPC closed the transport */
			for (ssize_t off = 0; off < n;) {
				ssize_t w = gnutls_record_send(s, buf + off, (size_t)(n - off));

				if (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)
					continue;
				if (w < 0) {
					why = xasprintf("TLS: %s", gnutls_strerror((int)w));
					goto out;
				}
				off += w;
			}
		}
		if (p[1].revents) {
			n = gnutls_record_recv(s, buf, RELAY_BUF);
			if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED ||
			    (n < 0 && !gnutls_error_is_fatal((int)n)))
				continue;
			if (n == GNUTLS_E_FATAL_ALERT_RECEIVED) {
				why = xasprintf("TLS: etcd ended the connection: %s",
						gnutls_alert_get_name(gnutls_alert_get(s)));
				break;
			}
			if (n < 0) {
				why = xasprintf("TLS: %s", gnutls_strerror((int)n));
				break;
			}
			if (n == 0)
				break; /* etcd closed the connection */
			if (write_all(sp, buf, (size_t)n) < 0)
				break;
		}
	}
out:
	free(buf);
	return why;
}

/* One connection: TCP, TLS, a channel over a socketpair, the relay until it
 * ends. Returns 0 when it was up (the channel in use) for a while, -1 when
 * not made or ended at once (etcd refusing our certificate after the
 * handshake, say: the next try waits as after a failed one). */
static int tls_connection(struct endpoint *e)
{
	char *why = NULL;
	gnutls_session_t s = NULL;
	grpc_channel_credentials *insecure;
	grpc_channel *ch;
	struct timespec t0, t1;
	int tcp, sp[2];

	if ((tcp = tcp_connect(e, &why)) < 0) {
		set_why(e, why);
		return -1;
	}
	pthread_mutex_lock(&e->mu);
	e->tcp = tcp;
	pthread_mutex_unlock(&e->mu);
	if (stopping(e->c)) /* closing before the socket was known to it */
		shutdown(tcp, SHUT_RDWR);
	if (!(s = tls_handshake(e, tcp, &why)) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		set_why(e, why ? why : xasprintf("socketpair: %s", strerror(errno)));
		if (s)
			gnutls_deinit(s);
		pthread_mutex_lock(&e->mu);
		e->tcp = -1;
		pthread_mutex_unlock(&e->mu);
		close(tcp);
		return -1;
	}
	insecure = grpc_insecure_credentials_create();
	ch = grpc_channel_create_from_fd(e->host, sp[1], insecure, e->c->cargs); /* sp[1] is gRPC's */
	grpc_channel_credentials_release(insecure);
	pthread_mutex_lock(&e->mu);
	e->ch = ch;
	if (e->why)
		sk_info("store", "etcd at %s: connected", e->host);
	free(e->why);
	e->why = NULL;
	pthread_mutex_unlock(&e->mu);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	why = relay(e, s, sp[0], tcp);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	pthread_mutex_lock(&e->mu);
	e->ch = NULL;
	e->tcp = -1;
	pthread_mutex_unlock(&e->mu);
	set_why(e, why ? why : xstrdup("the connection was closed"));
	shutdown(sp[0], SHUT_RDWR);
	grpc_channel_destroy(ch); /* calls in flight keep it until they fail */
	gnutls_bye(s, GNUTLS_SHUT_WR);
	gnutls_deinit(s);
	close(tcp);
	close(sp[0]);
	return (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= RECONNECT_MAX_MS ? 0 : -1;
}

static void *keeper_main(void *arg)
{
	struct endpoint *e = arg;
	int backoff = RECONNECT_MIN_MS;

	while (!stopping(e->c)) {
		if (tls_connection(e) == 0) {
			backoff = RECONNECT_MIN_MS;
			continue;
		}
		nap(e->c, backoff);
		backoff = backoff * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : backoff * 2;
	}
	return NULL;
}

static int tls_credentials(sk__etcd_conn *c, const char *ca, const char *cert, const char *key, sk_error_t *err)
{
	cleanup_free char *ca_pem = NULL, *cert_pem = NULL, *key_pem = NULL;
	size_t ca_len = 0, cert_len = 0, key_len = 0;
	int rc;

	if ((ca && !(ca_pem = sk_read_file(ca, &ca_len))) || (cert && !(cert_pem = sk_read_file(cert, &cert_len))) ||
	    (key && !(key_pem = sk_read_file(key, &key_len))))
		return sk_error_errno(err, errno, "reading the etcd TLS files");
	if ((cert_pem != NULL) != (key_pem != NULL))
		return sk_error_set(err, SK_EINVALID,
				    "etcd TLS: a client certificate needs its key and a key its certificate");
	if (gnutls_certificate_allocate_credentials(&c->cred) < 0)
		return sk_error_set(err, SK_EINTERNAL, "etcd TLS: allocating credentials");
	if (ca_pem) {
		gnutls_datum_t d = {.data = (unsigned char *)ca_pem, .size = (unsigned)ca_len};

		if ((rc = gnutls_certificate_set_x509_trust_mem(c->cred, &d, GNUTLS_X509_FMT_PEM)) <= 0)
			return sk_error_set(err, SK_EINVALID, "etcd TLS: no CA certificate in %s%s%s", ca,
					    rc < 0 ? ": " : "", rc < 0 ? gnutls_strerror(rc) : "");
	} else if ((rc = gnutls_certificate_set_x509_system_trust(c->cred)) < 0) {
		return sk_error_set(err, SK_EINTERNAL, "etcd TLS: the system's CA certificates: %s",
				    gnutls_strerror(rc));
	}
	if (cert_pem) {
		gnutls_datum_t cd = {.data = (unsigned char *)cert_pem, .size = (unsigned)cert_len};
		gnutls_datum_t kd = {.data = (unsigned char *)key_pem, .size = (unsigned)key_len};

		if ((rc = gnutls_certificate_set_x509_key_mem(c->cred, &cd, &kd, GNUTLS_X509_FMT_PEM)) < 0)
			return sk_error_set(err, SK_EINVALID, "etcd TLS: the client certificate %s and key %s: %s",
					    cert, key, gnutls_strerror(rc));
	}
	return 0;
}

sk__etcd_conn *sk__etcd_conn_open(char *const *hosts, size_t n, const char *ca, const char *cert, const char *key,
				  sk_error_t *err)
{
	sk__etcd_conn *c;
	static grpc_arg args[] = {
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, .value.integer = -1},
		{.type = GRPC_ARG_INTEGER,
		 .key = GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
		 .value.integer = RECONNECT_MIN_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, .value.integer = RECONNECT_MAX_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_TIME_MS, .value.integer = KEEPALIVE_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_TIMEOUT_MS, .value.integer = KEEPALIVE_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, .value.integer = 1},
		/* each endpoint a connection of its own, not shared with another channel */
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, .value.integer = 1},
	};
	static grpc_channel_args cargs = {.num_args = sizeof(args) / sizeof(args[0]), .args = args};

	grpc_init();
	c = xzalloc(sizeof(*c));
	c->wake = -1;
	c->cargs = &cargs;
	c->tls = ca || cert || key;
	if (c->tls) {
		if (tls_credentials(c, ca, cert, key, err) < 0 ||
		    (c->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
			if (c->wake < 0 && !err->code)
				sk_error_errno(err, errno, "eventfd");
			if (c->cred)
				gnutls_certificate_free_credentials(c->cred);
			if (c->wake >= 0)
				close(c->wake);
			free(c);
			grpc_shutdown();
			return NULL;
		}
	}
	c->ep = xzalloc(n * sizeof(c->ep[0]));
	for (c->n = 0; c->n < n; c->n++) {
		struct endpoint *e = &c->ep[c->n];

		e->c = c;
		e->host = xstrdup(hosts[c->n]);
		e->tcp = -1;
		pthread_mutex_init(&e->mu, NULL);
		if (!c->tls) {
			grpc_channel_credentials *insecure = grpc_insecure_credentials_create();

			e->ch = grpc_channel_create(hosts[c->n], insecure, &cargs);
			grpc_channel_credentials_release(insecure);
		}
	}
	c->mcq = grpc_completion_queue_create_for_next(NULL);
	if (pthread_create(&c->monitor, NULL, monitor_main, c) != 0)
		abort();
	/* TLS: each endpoint's first connection waited for, so the first
	 * calls find it */
	for (size_t i = 0; c->tls && i < c->n; i++) {
		struct endpoint *e = &c->ep[i];
		struct timespec t0, t;

		if (pthread_create(&e->keeper, NULL, keeper_main, e) != 0)
			abort();
		e->keeper_started = 1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			int done;

			pthread_mutex_lock(&e->mu);
			done = e->ch || e->why;
			pthread_mutex_unlock(&e->mu);
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (done || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
					    CONNECT_MS + HANDSHAKE_MS)
				break;
			nap(c, 10);
		}
	}
	return c;
}

void sk__etcd_conn_close(sk__etcd_conn *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	if (c->tls && write(c->wake, &one, sizeof(one)) < 0)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		struct endpoint *e = &c->ep[i];

		/* a blocked send or handshake ends with its socket */
		pthread_mutex_lock(&e->mu);
		if (e->tcp >= 0)
			shutdown(e->tcp, SHUT_RDWR);
		pthread_mutex_unlock(&e->mu);
		if (e->keeper_started)
			pthread_join(e->keeper, NULL);
	}
	pthread_join(c->monitor, NULL);
	cq_drain(c->mcq, 0);
	for (size_t i = 0; i < c->n; i++) {
		if (c->ep[i].ch)
			grpc_channel_destroy(c->ep[i].ch);
		pthread_mutex_destroy(&c->ep[i].mu);
		free(c->ep[i].host);
		free(c->ep[i].why);
	}
	if (c->tls) {
		gnutls_certificate_free_credentials(c->cred);
		close(c->wake);
	}
	free(c->ep);
	free(c);
	grpc_shutdown();
}

/* A call on endpoint i's channel; NULL (with *why, malloc'd) while it has
 * none. */
static grpc_call *create_call(sk__etcd_conn *c, size_t i, grpc_completion_queue *cq, const char *method,
			      gpr_timespec deadline, char **why)
{
	struct endpoint *e = &c->ep[i];
	grpc_call *call = NULL;

	pthread_mutex_lock(&e->mu);
	if (e->ch)
		call = grpc_channel_create_call(e->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
						grpc_slice_from_static_string(method), NULL, deadline, NULL);
	else
		*why = xasprintf("etcd at %s: %s", e->host, e->why ? e->why : "not connected");
	pthread_mutex_unlock(&e->mu);
	return call;
}

size_t sk__etcd_conn_endpoints(const sk__etcd_conn *c) { return c->n; }
size_t sk__etcd_conn_current(sk__etcd_conn *c) { return (size_t)__atomic_load_n(&c->cur, __ATOMIC_RELAXED); }
void sk__etcd_conn_answered(sk__etcd_conn *c, size_t ep) { __atomic_store_n(&c->cur, (int)ep, __ATOMIC_RELAXED); }

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(n);
	grpc_byte_buffer *bb;

	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

/* The bytes of bb (malloc'd); bb is destroyed. */
static uint8_t *unpack_bytes(grpc_byte_buffer *bb, size_t *len)
{
	grpc_byte_buffer_reader r;
	grpc_slice s;
	uint8_t *data;

	if (!grpc_byte_buffer_reader_init(&r, bb)) {
		grpc_byte_buffer_destroy(bb);
		return NULL;
	}
	s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(bb);
	*len = GRPC_SLICE_LENGTH(s);
	data = xmalloc(*len + 1);
	if (*len)
		memcpy(data, GRPC_SLICE_START_PTR(s), *len);
	grpc_slice_unref(s);
	return data;
}

static void cq_drain(grpc_completion_queue *cq, int pluck)
{
	grpc_completion_queue_shutdown(cq);
	for (;;) {
		grpc_event ev = pluck ? grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
				      : grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);

		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
	}
	grpc_completion_queue_destroy(cq);
}

/* One call on endpoint ep's channel; returns its status (details in *msg,
 * malloc'd); *sent is 0 when the request surely did not leave (no
 * connection). */
static grpc_status_code call_once(sk__etcd_conn *c, size_t ep, const char *method, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, int64_t timeout_ms, char **msg, int *sent)
{
	grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
	grpc_slice details = grpc_empty_slice();
	grpc_call *call = create_call(c, ep, cq, method, after_ms(timeout_ms), msg);
	grpc_metadata_array im, tm;
	grpc_status_code code = GRPC_STATUS_UNKNOWN;
	grpc_op ops[6];
	grpc_event ev;

	*resp = NULL;
	*sent = call != NULL;
	if (!call) {
		cq_drain(cq, 1);
		return GRPC_STATUS_UNAVAILABLE;
	}
	grpc_metadata_array_init(&im);
	grpc_metadata_array_init(&tm);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = req;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &im;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = resp;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &tm;
	ops[5].data.recv_status_on_client.status = &code;
	ops[5].data.recv_status_on_client.status_details = &details;
	*resp = NULL;
	if (grpc_call_start_batch(call, ops, 6, call, NULL) != GRPC_CALL_OK)
		abort(); /* only a misuse of the API */
	ev = grpc_completion_queue_pluck(cq, call, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	if (ev.type != GRPC_OP_COMPLETE)
		abort();
	*msg = grpc_slice_to_c_string(details);
	/* gRPC's C core ends a call whose connection closed under it UNKNOWN
	 * "Stream removed" (or UNAVAILABLE "Socket closed"): no answer, as
	 * Go's gRPC says Unavailable */
	if (code == GRPC_STATUS_UNKNOWN && !strcmp(*msg, "Stream removed"))
		code = GRPC_STATUS_UNAVAILABLE;
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&im);
	grpc_metadata_array_destroy(&tm);
	grpc_call_unref(call);
	cq_drain(cq, 1);
	if (code == GRPC_STATUS_OK && !*resp)
		code = GRPC_STATUS_INTERNAL;
	return code;
}

int sk__etcd_unary(sk__etcd_conn *c, const char *method, const ProtobufCMessage *req,
		   const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, int64_t timeout_ms,
		   sk_error_t *err)
{
	grpc_byte_buffer *rb = NULL;
	size_t first = sk__etcd_conn_current(c), len = 0;
	int64_t waited = 0;
	grpc_status_code code = GRPC_STATUS_UNAVAILABLE;
	char *msg = NULL;
	uint8_t *data;

	*resp = NULL;
	for (size_t i = 0; i < c->n; i++) {
		size_t ep = (first + i) % c->n;

		/* a sent buffer's slices are the call's: one of its own each time */
		grpc_byte_buffer *bb = pack(req);
		int sent;

		free(msg);
		msg = NULL;
		if (rb)
			grpc_byte_buffer_destroy(rb);
		rb = NULL;
		code = call_once(c, ep, method, bb, &rb, timeout_ms, &msg, &sent);
		grpc_byte_buffer_destroy(bb);
		if (code == GRPC_STATUS_OK)
			sk__etcd_conn_answered(c, ep);
		else
			sk_debug("store", "etcd endpoint %zu %s: %s (%d)", ep, method, msg, (int)code);
		switch (code == GRPC_STATUS_OK ? SK__ETCD_STOP : sk__etcd_retry(method, code, msg, sent)) {
		case SK__ETCD_AGAIN:
			if (waited + LEADER_RETRY_MS <= (timeout_ms < LEADER_WAIT_MS ? timeout_ms : LEADER_WAIT_MS)) {
				nap(c, LEADER_RETRY_MS);
				waited += LEADER_RETRY_MS;
				i--; /* (wraps for i == 0; the loop's i++ brings it back) */
				continue;
			}
			break;
		case SK__ETCD_NEXT:
			continue;
		}
		break;
	}
	if (code != GRPC_STATUS_OK) {
		if (rb)
			grpc_byte_buffer_destroy(rb);
		sk__etcd_status_error(code, msg, err);
		free(msg);
		return -1;
	}
	free(msg);
	data = unpack_bytes(rb, &len);
	*resp = data ? protobuf_c_message_unpack(resp_desc, NULL, len, data) : NULL;
	free(data);
	if (!*resp)
		return sk_error_set(err, SK_EUNKNOWN, "etcd %s: malformed reply", method);
	return 0;
}

/* ---- streams ---- */

enum { TAG_START = 1, TAG_STATUS, TAG_RECV };

struct sk__etcd_stream {
	grpc_call *call;
	grpc_completion_queue *cq;
	grpc_metadata_array im, tm;
	grpc_status_code code;
	grpc_slice details;
	grpc_byte_buffer *req, *msg;
	int pending; /* batches not completed yet */
	int recv_pending, status_done;
};

sk__etcd_stream *sk__etcd_stream_open(sk__etcd_conn *c, size_t ep, const char *method, const ProtobufCMessage *req,
				      int half_close)
{
	sk__etcd_stream *st = xzalloc(sizeof(*st));
	grpc_op ops[4], status;
	char *why = NULL;

	st->cq = grpc_completion_queue_create_for_next(NULL);
	st->details = grpc_empty_slice();
	grpc_metadata_array_init(&st->im);
	grpc_metadata_array_init(&st->tm);
	st->call = create_call(c, ep % c->n, st->cq, method, gpr_inf_future(GPR_CLOCK_REALTIME), &why);
	if (!st->call) {
		/* no connection: the stream ends at once, unavailable */
		st->code = GRPC_STATUS_UNAVAILABLE;
		grpc_slice_unref(st->details);
		st->details = grpc_slice_from_copied_string(why);
		free(why);
		st->status_done = 1;
		return st;
	}
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[1].data.recv_initial_metadata.recv_initial_metadata = &st->im;
	ops[2].op = GRPC_OP_SEND_MESSAGE;
	ops[2].data.send_message.send_message = st->req = pack(req);
	ops[3].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	if (grpc_call_start_batch(st->call, ops, half_close ? 4 : 3, (void *)(intptr_t)TAG_START, NULL) != GRPC_CALL_OK)
		abort();
	memset(&status, 0, sizeof(status));
	status.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	status.data.recv_status_on_client.trailing_metadata = &st->tm;
	status.data.recv_status_on_client.status = &st->code;
	status.data.recv_status_on_client.status_details = &st->details;
	if (grpc_call_start_batch(st->call, &status, 1, (void *)(intptr_t)TAG_STATUS, NULL) != GRPC_CALL_OK)
		abort();
	st->pending = 2;
	return st;
}

/* Waits for the next completion until deadline; returns its tag, or 0. */
static int next(sk__etcd_stream *st, gpr_timespec deadline)
{
	grpc_event ev = grpc_completion_queue_next(st->cq, deadline, NULL);
	int tag;

	if (ev.type != GRPC_OP_COMPLETE)
		return 0;
	tag = (int)(intptr_t)ev.tag;
	st->pending--;
	if (tag == TAG_STATUS)
		st->status_done = 1;
	else if (tag == TAG_RECV)
		st->recv_pending = 0;
	return tag;
}

int sk__etcd_stream_recv(sk__etcd_stream *st, int64_t timeout_ms, uint8_t **data, size_t *len, sk_error_t *err)
{
	gpr_timespec deadline = after_ms(timeout_ms);
	char *msg;

	if (!st->recv_pending && !st->status_done) {
		grpc_op op;

		memset(&op, 0, sizeof(op));
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &st->msg;
		st->msg = NULL;
		if (grpc_call_start_batch(st->call, &op, 1, (void *)(intptr_t)TAG_RECV, NULL) != GRPC_CALL_OK)
			abort();
		st->recv_pending = 1;
		st->pending++;
	}
	while (st->recv_pending) {
		int tag = next(st, deadline);

		if (!tag)
			return 0;
		if (tag == TAG_RECV && st->msg) {
			*data = unpack_bytes(st->msg, len);
			st->msg = NULL;
			if (!*data)
				return sk_error_set(err, SK_EUNKNOWN, "etcd stream: unreadable message");
			return 1;
		}
	}
	/* the stream ended: its status */
	while (!st->status_done)
		next(st, gpr_inf_future(GPR_CLOCK_REALTIME));
	if (st->code == GRPC_STATUS_OK) {
		if (err)
			memset(err, 0, sizeof(*err));
		return -1;
	}
	msg = grpc_slice_to_c_string(st->details);
	sk__etcd_status_error(st->code, msg, err);
	free(msg);
	return -1;
}

void sk__etcd_stream_close(sk__etcd_stream *st)
{
	if (!st)
		return;
	if (!st->status_done)
		grpc_call_cancel(st->call, NULL);
	while (st->pending > 0)
		next(st, gpr_inf_future(GPR_CLOCK_REALTIME));
	if (st->msg)
		grpc_byte_buffer_destroy(st->msg);
	if (st->req)
		grpc_byte_buffer_destroy(st->req);
	if (st->call)
		grpc_call_unref(st->call);
	cq_drain(st->cq, 0);
	grpc_slice_unref(st->details);
	grpc_metadata_array_destroy(&st->im);
	grpc_metadata_array_destroy(&st->tm);
	free(st);
}
