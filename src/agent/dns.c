/* The node-local cluster DNS server (dns.h): sockets, worker threads, the
 * zone rebuilt from informers, forwarding to the host's resolvers. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "agent/dns.h"
#include "client/informer.h"
#include "util/util.h"

#define MAX_UPSTREAMS 3 /* as glibc's MAXNS */
#define MAX_WORKERS 32
#define TCP_IDLE_MS 2000
#define TCP_MAX_QUERIES 64 /* per connection */
#define TCP_CONN_MS 10000  /* a connection's whole life, however slowly its client writes */
#define REBUILD_DELAY_MS 50
#define RETRY_INFORMER_MS 2000

struct fwd {
	bool used;
	uint16_t up_id;
	struct sockaddr_storage client;
	socklen_t clen;
	struct sk_dns_reply rep; /* query, and partial + chase after a CNAME */
	int server;
	int64_t deadline_ns;
};

/* The connection a TCP thread serves, shut down by the forwarder's tick
 * once past its deadline. */
struct tcp_slot {
	struct sk_dns *d;
	pthread_mutex_t mu;
	int fd; /* -1: none */
	int64_t deadline_ns;
};

struct sk_dns {
	sk_client *c;
	char *listen, *domain, *dns_ip, *resolv_conf;
	int port, nworkers, ntcp, max_fwd, fwd_timeout_ms;
	atomic_bool stop;
	int udp_fd, tcp_fd;
	int up_fd[2]; /* upstream UDP sockets: IPv4, IPv6 */

	pthread_rwlock_t zlock;
	sk_dns_zone *zone;

	pthread_t workers[MAX_WORKERS], tcp_threads[MAX_WORKERS], fwd_thread, sync_thread;
	struct tcp_slot tcp_slots[MAX_WORKERS];
	int nstarted, ntcp_started;
	bool fwd_started, sync_started;

	struct sockaddr_storage ups[MAX_UPSTREAMS];
	socklen_t uplen[MAX_UPSTREAMS];
	int nups;

	pthread_mutex_t fwd_mu;
	struct fwd *fwds;
	int32_t *by_id; /* upstream id -> index in fwds + 1 */
	int nfwd;
	uint64_t rng;

	sk_informer *svc_inf, *eps_inf;
	bool svc_on, eps_on;
	pthread_mutex_t sync_mu;
	pthread_cond_t sync_cond;
	bool dirty;
};

/* ---- sockets ------------------------------------------------------------------ */

static int parse_addr(const char *ip, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	{
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
}

static int bind_socket(struct sk_dns *d, int type, sk_error_t *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, fd;
	struct timeval tv = {.tv_usec = 250000};

	if (parse_addr(d->listen, d->port, &ss, &len) < 0)
		return sk_error_set(err, SK_EINVALID, "dns: \"%s\" is no IP address", d->listen);
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sk_error_errno(err, errno, "dns: socket");
	if (ss.ss_family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one));
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* the threads look at the stop flag between timeouts */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || (type == SOCK_STREAM && listen(fd, 128) < 0)) {
		int e = errno;

		close(fd);
		return sk_error_errno(err, e, "dns: binding %s port %d/%s", d->listen, d->port,
				      type == SOCK_STREAM ? "tcp" : "udp");
	}
	return fd;
}

/* The nameserver lines of the resolv.conf, without this server's own address. */
static void load_upstreams(struct sk_dns *d)
{
	cleanup_free char *text = sk_read_file(d->resolv_conf, NULL);
	struct sockaddr_storage self;
	socklen_t slen;
	char *line, *save = NULL;

	parse_addr(d->listen, d->port, &self, &slen);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && d->nups < MAX_UPSTREAMS;
	     line = strtok_r(NULL, "\n", &save)) {
		char ip[INET6_ADDRSTRLEN + 1];
		int i = d->nups;

		if (sscanf(line, " nameserver %46s", ip) != 1 || parse_addr(ip, 53, &d->ups[i], &d->uplen[i]) < 0 ||
		    same_addr(&d->ups[i], &self) || (d->dns_ip && !strcmp(ip, d->dns_ip)))
			continue;
		d->nups++;
	}
	if (!d->nups)
		sk_warn("dns", "no nameserver in \"%s\": names outside %s answer SERVFAIL", d->resolv_conf, d->domain);
}

/* ---- the zone ----------------------------------------------------------------- */

static void swap_zone(struct sk_dns *d, sk_dns_zone *z)
{
	sk_dns_zone *old;

	pthread_rwlock_wrlock(&d->zlock);
	old = d->zone;
	d->zone = z;
	pthread_rwlock_unlock(&d->zlock);
	sk_dns_zone_free(old);
}

void sk_dns_set_zone(sk_dns *d, sk_dns_zone *z)
{
	if (z)
		swap_zone(d, z);
}

static void serve(struct sk_dns *d, const uint8_t *in, size_t len, bool tcp, struct sk_dns_reply *rep)
{
	pthread_rwlock_rdlock(&d->zlock);
	sk_dns_zone_serve(d->zone, in, len, tcp, rep);
	pthread_rwlock_unlock(&d->zlock);
}

static void on_change(void *ud, int ev, json_t *old, json_t *obj)
{
	struct sk_dns *d = ud;

	pthread_mutex_lock(&d->sync_mu);
	d->dirty = true;
	pthread_cond_signal(&d->sync_cond);
	pthread_mutex_unlock(&d->sync_mu);
}

static void try_informers(struct sk_dns *d)
{
	sk_error_t err = {0};

	if (!d->svc_on && !(d->svc_on = sk_informer_start(d->svc_inf, &err) == 0))
		sk_warn("dns", "services: %s", err.msg);
	if (!d->eps_on && !(d->eps_on = sk_informer_start(d->eps_inf, &err) == 0))
		sk_debug("dns", "endpointslices: %s", err.msg);
}

static void rebuild(struct sk_dns *d)
{
	cleanup_json json_t *svcs = d->svc_on ? sk_informer_list(d->svc_inf, NULL) : json_array();
	cleanup_json json_t *eps = d->eps_on ? sk_informer_list(d->eps_inf, NULL) : json_array();
	int64_t t0 = sk_mono_ns();
	sk_dns_zone *z = sk_dns_zone_build(d->domain, d->dns_ip, svcs, eps);

	if (!z)
		return;
	sk_debug("dns", "zone %s: %zu names from %zu services, %zu endpoint slices in %.1f ms", d->domain,
		 sk_dns_zone_names(z), json_array_size(svcs), json_array_size(eps), (double)(sk_mono_ns() - t0) / 1e6);
	swap_zone(d, z);
}

/* Rebuilds the zone after changes (coalesced over REBUILD_DELAY_MS), and
 * starts the informers whose collection could not be listed yet. */
static void *sync_main(void *arg)
{
	struct sk_dns *d = arg;

	try_informers(d);
	rebuild(d);
	pthread_mutex_lock(&d->sync_mu);
	while (!atomic_load(&d->stop)) {
		struct timespec ts;
		bool retry = !d->svc_on || !d->eps_on;

		if (!d->dirty) {
			sk_deadline_after_ms(&ts, RETRY_INFORMER_MS);
			pthread_cond_timedwait(&d->sync_cond, &d->sync_mu, &ts);
		}
		if (atomic_load(&d->stop))
			break;
		if (!d->dirty && !retry)
			continue;
		pthread_mutex_unlock(&d->sync_mu);
		if (retry)
			try_informers(d);
		sk_deadline_after_ms(&ts, REBUILD_DELAY_MS);
		pthread_mutex_lock(&d->sync_mu);
		while (!atomic_load(&d->stop) && pthread_cond_timedwait(&d->sync_cond, &d->sync_mu, &ts) == 0)
			;
		d->dirty = false;
		pthread_mutex_unlock(&d->sync_mu);
		rebuild(d);
		pthread_mutex_lock(&d->sync_mu);
	}
	pthread_mutex_unlock(&d->sync_mu);
	return NULL;
}

/* ---- forwarding --------------------------------------------------------------- */

static uint16_t next_id(struct sk_dns *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return (uint16_t)(d->rng >> 24);
}

/* The query to send upstream: the client's, or a CNAME target's. New. */
static ldns_pkt *upstream_query(const struct sk_dns_reply *rep)
{
	ldns_pkt *q;

	if (!rep->chase)
		return ldns_pkt_clone(rep->query);
	q = ldns_pkt_query_new(ldns_rdf_clone(rep->chase),
			       ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_question(rep->query), 0)), LDNS_RR_CLASS_IN,
			       LDNS_RD);
	ldns_pkt_set_edns_udp_size(q, 1232);
	return q;
}

/* The client's response from the upstream's (NULL: none came: SERVFAIL).
 * Takes nothing; new. */
static ldns_pkt *compose(const struct sk_dns_reply *rep, const ldns_pkt *up)
{
	ldns_pkt *r;

	if (!up)
		return sk_dns_response(rep->query, LDNS_RCODE_SERVFAIL);
	if (rep->partial) {
		ldns_rr_list *ans = ldns_pkt_answer(up);

		r = ldns_pkt_clone(rep->partial);
		for (size_t i = 0; i < ldns_rr_list_rr_count(ans); i++)
			ldns_pkt_push_rr(r, LDNS_SECTION_ANSWER, ldns_rr_clone(ldns_rr_list_rr(ans, i)));
		ldns_pkt_set_rcode(r, ldns_pkt_get_rcode(up));
		return r;
	}
	r = ldns_pkt_clone(up);
	ldns_pkt_set_id(r, ldns_pkt_id(rep->query));
	return r;
}

/* 1 when up answers the question of sent. */
static bool answers(const ldns_pkt *sent, const ldns_pkt *up)
{
	const ldns_rr *a, *b;

	if (!ldns_pkt_qr(up) || ldns_pkt_qdcount(up) != 1 || ldns_rr_list_rr_count(ldns_pkt_question(up)) != 1)
		return false;
	a = ldns_rr_list_rr(ldns_pkt_question(sent), 0);
	b = ldns_rr_list_rr(ldns_pkt_question(up), 0);
	return ldns_rr_get_type(a) == ldns_rr_get_type(b) && ldns_rr_get_class(a) == ldns_rr_get_class(b) &&
	       !ldns_dname_compare(ldns_rr_owner(a), ldns_rr_owner(b));
}

static void send_client(struct sk_dns *d, const ldns_pkt *q, ldns_pkt *r, const struct sockaddr_storage *to,
			socklen_t tolen)
{
	uint8_t *wire = NULL;
	size_t len;

	if (sk_dns_encode(q, r, false, &wire, &len) == 0 &&
	    sendto(d->udp_fd, wire, len, MSG_DONTWAIT, (const struct sockaddr *)to, tolen) < 0)
		sk_debug("dns", "reply: %s", strerror(errno));
	free(wire);
}

static int up_fd(struct sk_dns *d, int server) { return d->up_fd[d->ups[server].ss_family == AF_INET6]; }

/* Sends f's query to its current nameserver. Under fwd_mu. */
static void send_upstream(struct sk_dns *d, struct fwd *f)
{
	ldns_pkt *q = upstream_query(&f->rep);
	uint8_t *wire = NULL;
	size_t len;

	ldns_pkt_set_id(q, f->up_id);
	if (ldns_pkt2wire(&wire, q, &len) == LDNS_STATUS_OK)
		sendto(up_fd(d, f->server), wire, len, MSG_DONTWAIT, (struct sockaddr *)&d->ups[f->server],
		       d->uplen[f->server]);
	free(wire);
	ldns_pkt_free(q);
	f->deadline_ns = sk_mono_ns() + (int64_t)d->fwd_timeout_ms * 1000000;
}

/* Answers f's client from up (NULL: SERVFAIL) and frees the slot. Under fwd_mu. */
static void finish(struct sk_dns *d, struct fwd *f, const ldns_pkt *up)
{
	send_client(d, f->rep.query, compose(&f->rep, up), &f->client, f->clen);
	sk_dns_reply_release(&f->rep);
	d->by_id[f->up_id] = 0;
	f->used = false;
	d->nfwd--;
}

/* Hands a query to the forwarder (rep taken); SERVFAIL at once when nothing
 * can answer it or the table is full. */
static void forward_udp(struct sk_dns *d, struct sk_dns_reply *rep, const struct sockaddr_storage *from, socklen_t flen)
{
	struct fwd *f = NULL;

	pthread_mutex_lock(&d->fwd_mu);
	if (d->nups && d->nfwd < d->max_fwd) {
		for (int i = 0; i < d->max_fwd && !f; i++)
			if (!d->fwds[i].used)
				f = &d->fwds[i];
	}
	if (!f) {
		pthread_mutex_unlock(&d->fwd_mu);
		send_client(d, rep->query, compose(rep, NULL), from, flen);
		sk_dns_reply_release(rep);
		return;
	}
	do
		f->up_id = next_id(d);
	while (d->by_id[f->up_id]);
	d->by_id[f->up_id] = (int32_t)(f - d->fwds) + 1;
	f->used = true;
	f->client = *from;
	f->clen = flen;
	f->rep = *rep;
	memset(rep, 0, sizeof(*rep));
	f->server = 0;
	d->nfwd++;
	send_upstream(d, f);
	pthread_mutex_unlock(&d->fwd_mu);
}

static void upstream_reply(struct sk_dns *d, const uint8_t *buf, size_t len, const struct sockaddr_storage *from)
{
	ldns_pkt *up = NULL;
	struct fwd *f;
	int32_t idx;

	if (ldns_wire2pkt(&up, buf, len) != LDNS_STATUS_OK || !up)
		return;
	pthread_mutex_lock(&d->fwd_mu);
	idx = d->by_id[ldns_pkt_id(up)];
	f = idx ? &d->fwds[idx - 1] : NULL;
	if (f && same_addr(from, &d->ups[f->server])) {
		ldns_pkt *sent = upstream_query(&f->rep);

		if (answers(sent, up))
			finish(d, f, up);
		ldns_pkt_free(sent);
	}
	pthread_mutex_unlock(&d->fwd_mu);
	ldns_pkt_free(up);
}

/* Queries past their nameserver's timeout go to the next one, or SERVFAIL. */
static void expire(struct sk_dns *d, bool all)
{
	int64_t now = sk_mono_ns();

	pthread_mutex_lock(&d->fwd_mu);
	for (int i = 0; i < d->max_fwd && d->nfwd; i++) {
		struct fwd *f = &d->fwds[i];

		if (!f->used || (!all && now < f->deadline_ns))
			continue;
		if (!all && f->server + 1 < d->nups) {
			f->server++;
			send_upstream(d, f);
		} else {
			finish(d, f, NULL);
		}
	}
	pthread_mutex_unlock(&d->fwd_mu);
}

/* Shuts down the TCP connections past their deadline: their thread's read
 * returns and it closes them. */
static void reap_tcp(struct sk_dns *d)
{
	int64_t now = sk_mono_ns();

	for (int i = 0; i < d->ntcp_started; i++) {
		struct tcp_slot *t = &d->tcp_slots[i];

		pthread_mutex_lock(&t->mu);
		if (t->fd >= 0 && now > t->deadline_ns)
			shutdown(t->fd, SHUT_RDWR);
		pthread_mutex_unlock(&t->mu);
	}
}

static void *fwd_main(void *arg)
{
	struct sk_dns *d = arg;
	cleanup_free uint8_t *buf = xmalloc(65536);
	struct pollfd p[2] = {{.fd = d->up_fd[0], .events = POLLIN}, {.fd = d->up_fd[1], .events = POLLIN}};

	while (!atomic_load(&d->stop)) {
		int n = poll(p, 2, 50);

		for (int i = 0; n > 0 && i < 2; i++) {
			struct sockaddr_storage from;
			socklen_t flen = sizeof(from);
			ssize_t r;

			if (!(p[i].revents & POLLIN))
				continue;
			while ((r = recvfrom(p[i].fd, buf, 65536, MSG_DONTWAIT, (struct sockaddr *)&from, &flen)) > 0) {
				upstream_reply(d, buf, (size_t)r, &from);
				flen = sizeof(from);
			}
		}
		expire(d, false);
		reap_tcp(d);
	}
	expire(d, true);
	return NULL;
}

/* A TCP query's forward, over TCP, waiting (a TCP thread serves one connection). */
static ldns_pkt *forward_tcp(struct sk_dns *d, const struct sk_dns_reply *rep)
{
	ldns_pkt *q = upstream_query(rep), *up = NULL;
	ldns_buffer *qbin = ldns_buffer_new(512);
	struct timeval tv = {.tv_sec = d->fwd_timeout_ms / 1000, .tv_usec = (d->fwd_timeout_ms % 1000) * 1000};

	if (ldns_pkt2buffer_wire(qbin, q) == LDNS_STATUS_OK) {
		for (int i = 0; i < d->nups && !up && !atomic_load(&d->stop); i++) {
			uint8_t *res = NULL;
			size_t len = 0;

			if (ldns_tcp_send(&res, qbin, &d->ups[i], d->uplen[i], tv, &len) == LDNS_STATUS_OK &&
			    (ldns_wire2pkt(&up, res, len) != LDNS_STATUS_OK || !answers(q, up))) {
				ldns_pkt_free(up);
				up = NULL;
			}
			free(res);
		}
	}
	ldns_buffer_free(qbin);
	ldns_pkt_free(q);
	return up;
}

/* ---- serving ------------------------------------------------------------------ */

static void *udp_main(void *arg)
{
	struct sk_dns *d = arg;
	uint8_t buf[4096];

	while (!atomic_load(&d->stop)) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		struct sk_dns_reply rep;
		ssize_t n = recvfrom(d->udp_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);

		if (n <= 0)
			continue;
		serve(d, buf, (size_t)n, false, &rep);
		if (rep.action == SK_DNS_REPLY)
			sendto(d->udp_fd, rep.wire, rep.len, MSG_DONTWAIT, (struct sockaddr *)&from, flen);
		else if (rep.action == SK_DNS_FORWARD)
			forward_udp(d, &rep, &from, flen);
		sk_dns_reply_release(&rep);
	}
	return NULL;
}

static void tcp_send(int fd, const uint8_t *wire, size_t len, const struct sockaddr_storage *peer, socklen_t plen)
{
	ldns_buffer *b = ldns_buffer_new(len);

	ldns_buffer_write(b, wire, len);
	if (ldns_tcp_send_query(b, fd, peer, plen) <= 0)
		sk_debug("dns", "tcp reply: %s", strerror(errno));
	ldns_buffer_free(b);
}

static void tcp_conn(struct sk_dns *d, int fd, const struct sockaddr_storage *peer, socklen_t plen)
{
	struct timeval tv = {.tv_sec = TCP_IDLE_MS / 1000, .tv_usec = (TCP_IDLE_MS % 1000) * 1000};

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (int i = 0; i < TCP_MAX_QUERIES && !atomic_load(&d->stop); i++) {
		size_t len = 0;
		uint8_t *q = ldns_tcp_read_wire_timeout(fd, &len, tv);
		struct sk_dns_reply rep;

		if (!q)
			return;
		serve(d, q, len, true, &rep);
		free(q);
		if (rep.action == SK_DNS_FORWARD) {
			ldns_pkt *up = forward_tcp(d, &rep);
			uint8_t *wire = NULL;
			size_t wlen;

			if (sk_dns_encode(rep.query, compose(&rep, up), true, &wire, &wlen) == 0)
				tcp_send(fd, wire, wlen, peer, plen);
			free(wire);
			ldns_pkt_free(up);
		} else if (rep.action == SK_DNS_REPLY) {
			tcp_send(fd, rep.wire, rep.len, peer, plen);
		} else {
			sk_dns_reply_release(&rep);
			return;
		}
		sk_dns_reply_release(&rep);
	}
}

static void *tcp_main(void *arg)
{
	struct tcp_slot *t = arg;
	struct sk_dns *d = t->d;

	while (!atomic_load(&d->stop)) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(d->tcp_fd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);

		if (fd < 0)
			continue;
		pthread_mutex_lock(&t->mu);
		t->fd = fd;
		t->deadline_ns = sk_mono_ns() + (int64_t)TCP_CONN_MS * 1000000;
		pthread_mutex_unlock(&t->mu);
		tcp_conn(d, fd, &peer, plen);
		pthread_mutex_lock(&t->mu);
		t->fd = -1;
		close(fd);
		pthread_mutex_unlock(&t->mu);
	}
	return NULL;
}

/* ---- start and stop ----------------------------------------------------------- */

static int start_threads(struct sk_dns *d, sk_error_t *err)
{
	for (; d->nstarted < d->nworkers; d->nstarted++)
		if (pthread_create(&d->workers[d->nstarted], NULL, udp_main, d) != 0)
			return sk_error_set(err, SK_EINTERNAL, "dns: cannot start a thread");
	for (; d->ntcp_started < d->ntcp; d->ntcp_started++)
		if (pthread_create(&d->tcp_threads[d->ntcp_started], NULL, tcp_main, &d->tcp_slots[d->ntcp_started]) !=
		    0)
			return sk_error_set(err, SK_EINTERNAL, "dns: cannot start a thread");
	/* after the TCP threads: it reads ntcp_started */
	if (pthread_create(&d->fwd_thread, NULL, fwd_main, d) != 0)
		return sk_error_set(err, SK_EINTERNAL, "dns: cannot start a thread");
	d->fwd_started = true;
	if (d->c) {
		if (pthread_create(&d->sync_thread, NULL, sync_main, d) != 0)
			return sk_error_set(err, SK_EINTERNAL, "dns: cannot start a thread");
		d->sync_started = true;
	}
	return 0;
}

static int clamp(int v, int def, int max) { return v <= 0 ? def : (v > max ? max : v); }

sk_dns *sk_dns_start(sk_client *c, const sk_dns_options *o, sk_error_t *err)
{
	struct sk_dns *d = xzalloc(sizeof(*d));
	pthread_rwlockattr_t ra;
	cleanup_free char *seed = NULL;

	d->c = c;
	d->udp_fd = d->tcp_fd = d->up_fd[0] = d->up_fd[1] = -1;
	d->listen = xstrdup(o->listen ?: "");
	d->domain = xstrdup(o->domain ?: "cluster.local");
	d->dns_ip = o->dns_ip ? xstrdup(o->dns_ip) : NULL;
	d->resolv_conf = xstrdup(o->resolv_conf ?: "/etc/resolv.conf");
	d->port = o->port > 0 ? o->port : 53;
	d->nworkers = clamp(o->workers, 4, MAX_WORKERS);
	d->ntcp = clamp(o->tcp_workers, 2, MAX_WORKERS);
	d->max_fwd = clamp(o->max_forwards, 1024, 32768);
	d->fwd_timeout_ms = clamp(o->forward_timeout_ms, 2000, 30000);
	d->fwds = xzalloc((size_t)d->max_fwd * sizeof(*d->fwds));
	d->by_id = xzalloc(65536 * sizeof(*d->by_id));
	d->rng = (uint64_t)sk_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)d;
	if (!d->rng)
		d->rng = 1;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&d->zlock, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&d->fwd_mu, NULL);
	pthread_mutex_init(&d->sync_mu, NULL);
	for (int i = 0; i < MAX_WORKERS; i++) {
		d->tcp_slots[i].d = d;
		d->tcp_slots[i].fd = -1;
		pthread_mutex_init(&d->tcp_slots[i].mu, NULL);
	}
	pthread_cond_init(&d->sync_cond, NULL);
	d->zone = sk_dns_zone_build(d->domain, d->dns_ip, NULL, NULL);
	if (!d->zone) {
		sk_error_set(err, SK_EINVALID, "dns: cluster domain \"%s\" is no DNS name", d->domain);
		goto fail;
	}
	if ((d->udp_fd = bind_socket(d, SOCK_DGRAM, err)) < 0 || (d->tcp_fd = bind_socket(d, SOCK_STREAM, err)) < 0)
		goto fail;
	d->up_fd[0] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	d->up_fd[1] = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	load_upstreams(d);
	if (c) {
		d->svc_inf = sk_informer_new(c, "/api/v1/services", "v1", "Service");
		d->eps_inf = sk_informer_new(c, "/apis/discovery.k8s.io/v1/endpointslices", "discovery.k8s.io/v1",
					     "EndpointSlice");
		sk_informer_on(d->svc_inf, on_change, d);
		sk_informer_on(d->eps_inf, on_change, d);
	}
	if (start_threads(d, err) < 0)
		goto fail;
	sk_info("dns", "serving %s on %s port %d (udp, tcp), forwarding to %d nameserver(s) of %s", d->domain,
		d->listen, d->port, d->nups, d->resolv_conf);
	return d;
fail:
	sk_dns_stop(d);
	return NULL;
}

void sk_dns_stop(sk_dns *d)
{
	if (!d)
		return;
	atomic_store(&d->stop, true);
	pthread_mutex_lock(&d->sync_mu);
	pthread_cond_broadcast(&d->sync_cond);
	pthread_mutex_unlock(&d->sync_mu);
	if (d->udp_fd >= 0)
		shutdown(d->udp_fd, SHUT_RDWR);
	if (d->tcp_fd >= 0)
		shutdown(d->tcp_fd, SHUT_RDWR);
	for (int i = 0; i < d->nstarted; i++)
		pthread_join(d->workers[i], NULL);
	for (int i = 0; i < d->ntcp_started; i++)
		pthread_join(d->tcp_threads[i], NULL);
	if (d->sync_started)
		pthread_join(d->sync_thread, NULL);
	if (d->fwd_started)
		pthread_join(d->fwd_thread, NULL);
	sk_informer_stop(d->svc_inf);
	sk_informer_stop(d->eps_inf);
	sk_informer_free(d->svc_inf);
	sk_informer_free(d->eps_inf);
	for (int i = 0; i < 2; i++)
		if (d->up_fd[i] >= 0)
			close(d->up_fd[i]);
	if (d->udp_fd >= 0)
		close(d->udp_fd);
	if (d->tcp_fd >= 0)
		close(d->tcp_fd);
	sk_dns_zone_free(d->zone);
	pthread_rwlock_destroy(&d->zlock);
	pthread_mutex_destroy(&d->fwd_mu);
	pthread_mutex_destroy(&d->sync_mu);
	for (int i = 0; i < MAX_WORKERS; i++)
		pthread_mutex_destroy(&d->tcp_slots[i].mu);
	pthread_cond_destroy(&d->sync_cond);
	free(d->fwds);
	free(d->by_id);
	free(d->listen);
	free(d->domain);
	free(d->dns_ip);
	free(d->resolv_conf);
	free(d);
}
