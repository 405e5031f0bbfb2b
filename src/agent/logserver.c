/* The agent's HTTPS endpoint (kubelet's port): container logs
 * (/containerLogs/{namespace}/{pod}/{container}), exec, attach,
 * port-forward, the Summary API (/stats/summary, stats.c) and metrics
 * (/metrics, /metrics/cadvisor), served with libmicrohttpd. Callers are authenticated and
 * authorized as kubelet does it (access.c): the API server with its
 * kubelet client certificate. The serving certificate is the caller's (the
 * embedded agent gets the API server's, a joined agent one the cluster CA
 * signed through a kubelet-serving CertificateSigningRequest) or, without
 * either, a self-signed one made with GnuTLS on first start
 * (<data>/tls/agent.{crt,key}), which the API server does not trust.
 *
 * Each container attempt logs to <data>/logs/<ns>_<pod>_<uid>/<ctr>/<N>.log
 * and <N>.id holds the runtime container id, so a follower can tell when
 * the attempt has exited (conmon's exit file) and end the stream. */
#include <dirent.h>
#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <ifaddrs.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/agent-int.h"
#include "runtime/crilog.h"
#include "util/mhdup.h"
#include "util/tlscache.h"
#include "util/util.h"

/* A certificate chain and key in GnuTLS's form. Sets replaced by a
 * rotation stay until the endpoint stops: a handshake may hold one. */
typedef struct creds {
	struct creds *older;
	gnutls_pcert_st pcert[8];
	unsigned n;
	gnutls_privkey_t key;
} creds;

struct sk_logserver {
	struct MHD_Daemon *d;
	struct sk_agent *a;
	char *cert, *key;
	int port;
	creds *cur; /* under registry_mu */
	struct sk_logserver *next;
	int stopping;               /* atomic: followed logs end, none parks */
	pthread_mutex_t follows_mu; /* guards follows */
	struct follow *follows;
	gnutls_datum_t ticket_key;  /* the session tickets' key, or none */
	struct sk_tls_cache *cache; /* resumption by session id (the API server's libcurl) */
};

/* The running endpoints by port, for the certificate callback, which
 * libmicrohttpd calls with the TLS session only. */
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sk_logserver *registry;

/* ---- certificate ------------------------------------------------------------- */

static int gen_cert(char **cert_pem, char **key_pem, sk_error_t *err)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t kd = {0}, cd = {0};
	unsigned char serial[8];
	struct in_addr lo;
	time_t now = time(NULL);
	int rc;

	inet_pton(AF_INET, "127.0.0.1", &lo);
	for (size_t i = 0; i < sizeof(serial); i++)
		serial[i] = (unsigned char)((uint64_t)sk_now_ns() >> (i * 5));
	serial[0] &= 0x7f;
	if ((rc = gnutls_x509_privkey_init(&key)) < 0 ||
	    (rc = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1),
					       0)) < 0 ||
	    (rc = gnutls_x509_crt_init(&crt)) < 0 || (rc = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
	    (rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(crt, now + 10 * 365 * 86400)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "skiff-agent", 11)) < 0 ||
	    (rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, &lo, 4, GNUTLS_FSAN_APPEND)) < 0 ||
	    (rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost", 9, GNUTLS_FSAN_APPEND)) <
		    0 ||
	    (rc = gnutls_x509_crt_set_key(crt, key)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cd)) < 0 ||
	    (rc = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &kd)) < 0) {
		sk_error_set(err, SK_EINTERNAL, "log endpoint certificate: %s", gnutls_strerror(rc));
	} else {
		*cert_pem = xstrndup((char *)cd.data, cd.size);
		*key_pem = xstrndup((char *)kd.data, kd.size);
	}
	gnutls_free(cd.data);
	gnutls_free(kd.data);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return rc < 0 ? -1 : 0;
}

static int load_or_make_cert(struct sk_agent *a, char **cert, char **key, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf("%s/tls", a->data_dir);
	cleanup_free char *cp = xasprintf("%s/agent.crt", dir), *kp = xasprintf("%s/agent.key", dir);

	*cert = sk_read_file(cp, NULL);
	*key = sk_read_file(kp, NULL);
	if (*cert && *key)
		return 0;
	free(*cert);
	free(*key);
	*cert = *key = NULL;
	if (gen_cert(cert, key, err) < 0)
		return -1;
	sk_mkdir_p(dir, 0700);
	if (sk_write_file(kp, *key, strlen(*key), 0600) < 0 || sk_write_file(cp, *cert, strlen(*cert), 0644) < 0)
		sk_warn("agent", "saving the log endpoint certificate: %s", strerror(errno));
	return 0;
}

static void creds_free(creds *c)
{
	while (c) {
		creds *older = c->older;

		for (unsigned i = 0; i < c->n; i++)
			gnutls_pcert_deinit(&c->pcert[i]);
		if (c->key)
			gnutls_privkey_deinit(c->key);
		free(c);
		c = older;
	}
}

static creds *creds_load(const char *cert_pem, const char *key_pem, sk_error_t *err)
{
	creds *c = xzalloc(sizeof(*c));
	gnutls_datum_t cd = {(unsigned char *)cert_pem, (unsigned)strlen(cert_pem)};
	gnutls_datum_t kd = {(unsigned char *)key_pem, (unsigned)strlen(key_pem)};
	int rc;

	c->n = sizeof(c->pcert) / sizeof(c->pcert[0]);
	if ((rc = gnutls_pcert_list_import_x509_raw(c->pcert, &c->n, &cd, GNUTLS_X509_FMT_PEM, 0)) < 0) {
		c->n = 0;
		goto fail;
	}
	if ((rc = gnutls_privkey_init(&c->key)) < 0 ||
	    (rc = gnutls_privkey_import_x509_raw(c->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0)
		goto fail;
	return c;
fail:
	sk_error_set(err, SK_EINVALID, "the HTTPS endpoint's certificate: %s", gnutls_strerror(rc));
	creds_free(c);
	return NULL;
}

/* gnutls_certificate_retrieve_function2: the current certificate of the
 * endpoint whose socket the session's is (libmicrohttpd's transport is the
 * connection's socket). */
static int retrieve_cert(gnutls_session_t s, const gnutls_datum_t *req_ca_dn, int nreqs,
			 const gnutls_pk_algorithm_t *algos, int nalgos, gnutls_pcert_st **pcert, unsigned *npcert,
			 gnutls_privkey_t *pkey)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int port = -1, rc = -1;

	(void)req_ca_dn, (void)nreqs, (void)algos, (void)nalgos;
	if (getsockname(gnutls_transport_get_int(s), (struct sockaddr *)&sa, &len) < 0)
		return -1;
	if (sa.ss_family == AF_INET)
		port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
	else if (sa.ss_family == AF_INET6)
		port = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
	pthread_mutex_lock(&registry_mu);
	for (struct sk_logserver *ls = registry; ls; ls = ls->next)
		if (ls->port == port && ls->cur) {
			*pcert = ls->cur->pcert;
			*npcert = ls->cur->n;
			*pkey = ls->cur->key;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&registry_mu);
	return rc;
}

int sk__logserver_set_cert(struct sk_logserver *ls, const char *cert_pem, const char *key_pem, sk_error_t *err)
{
	creds *c = creds_load(cert_pem, key_pem, err);

	if (!c)
		return -1;
	pthread_mutex_lock(&registry_mu);
	c->older = ls->cur;
	ls->cur = c;
	pthread_mutex_unlock(&registry_mu);
	return 0;
}

/* ---- finding logs ---------------------------------------------------------------- */

/* Attempt numbers of the container's logs, highest first; returns how many. */
static int attempts(const char *dir, long *out, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (end == e->d_name || strcmp(end, ".log") != 0)
			continue;
		if (n < max)
			out[n++] = v;
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (out[j] > out[i]) {
				long t = out[i];
				out[i] = out[j];
				out[j] = t;
			}
	return n;
}

/* <data>/logs/<ns>_<pod>_<uid> of a known pod, or the newest such directory. */
static char *pod_log_dir(struct sk_agent *a, const char *ns, const char *pod)
{
	cleanup_free char *uid = sk__agent_pod_uid(a, ns, pod);
	cleanup_free char *base = xasprintf("%s/logs", a->data_dir);
	cleanup_free char *prefix = xasprintf("%s_%s_", ns, pod);
	char *best = NULL;
	time_t best_t = 0;
	DIR *d;
	struct dirent *e;

	if (uid)
		return xasprintf("%s/%s%s", base, prefix, uid);
	d = opendir(base);
	while (d && (e = readdir(d)) != NULL) {
		struct stat st;
		cleanup_free char *path = NULL;

		if (strncmp(e->d_name, prefix, strlen(prefix)) || strchr(e->d_name + strlen(prefix), '_'))
			continue;
		path = xasprintf("%s/%s", base, e->d_name);
		if (stat(path, &st) == 0 && (!best || st.st_mtime > best_t)) {
			free(best);
			best = steal_ptr(&path);
			best_t = st.st_mtime;
		}
	}
	if (d)
		closedir(d);
	return best;
}

/* True while the attempt whose log is path still runs. */
static bool attempt_running(struct sk_agent *a, const char *log_path)
{
	cleanup_free char *idp = xasprintf("%.*s.id", (int)(strlen(log_path) - 4), log_path);
	cleanup_free char *id = sk_read_file(idp, NULL);
	cleanup_free char *efile = NULL, *cdir = NULL;

	if (!id)
		return false;
	id[strcspn(id, "\n")] = '\0';
	efile = xasprintf("%s/exits/%s", a->run_dir, id);
	cdir = xasprintf("%s/containers/%s", a->run_dir, id);
	return access(efile, F_OK) != 0 && access(cdir, F_OK) == 0;
}

/* ---- serving ------------------------------------------------------------------------ */

/* A followed log: a reader thread decodes the log into data (at most
 * FOLLOW_MAX ahead of the client) and the endpoint's event loop hands it
 * to libmicrohttpd from the response's content reader, which parks the
 * connection (MHD_suspend_connection) while nothing waits; the reader, the
 * monitor (the attempt's end, the client gone) and the endpoint's stop
 * wake it, exactly once per park, under mu. */
enum { FOLLOW_MAX = 256 * 1024 };

struct follow {
	struct sk_logserver *ls;
	struct MHD_Connection *conn;
	int sock; /* the client's socket, watched for its close */
	char *path;
	struct sk_crilog_opts o;
	volatile int stop;
	pthread_mutex_t mu;
	pthread_cond_t room;
	char *data;
	size_t dlen;
	bool eof, parked, gone;
	pthread_t reader, monitor;
	bool monitor_started;
	struct follow *prev, *next; /* the endpoint's, under follows_mu */
};

/* Under f->mu: resumes a parked connection (never one that is not). */
static void follow_wake(struct follow *f)
{
	if (f->parked) {
		f->parked = false;
		MHD_resume_connection(f->conn);
	}
}

static int send_cb(void *arg, const char *data, size_t len)
{
	struct follow *f = arg;

	pthread_mutex_lock(&f->mu);
	while (f->dlen >= FOLLOW_MAX && !f->stop)
		pthread_cond_wait(&f->room, &f->mu);
	if (!f->stop) {
		f->data = xrealloc(f->data, f->dlen + len);
		memcpy(f->data + f->dlen, data, len);
		f->dlen += len;
		follow_wake(f);
	}
	pthread_mutex_unlock(&f->mu);
	return f->stop ? 1 : 0;
}

static void *monitor_thread(void *arg)
{
	struct follow *f = arg;
	int exited_polls = 0;

	while (!f->stop) {
		struct timespec ts = {0, 200 * 1000000};

		if (f->sock >= 0 && sk_sock_peer_gone(f->sock)) {
			pthread_mutex_lock(&f->mu);
			f->gone = true;
			f->stop = 1;
			pthread_cond_signal(&f->room);
			follow_wake(f);
			pthread_mutex_unlock(&f->mu);
			break;
		}
		/* the attempt exited: give the reader time to drain, then end */
		if ((!attempt_running(f->ls->a, f->path) && ++exited_polls > 3) || sk__ag_stopping(f->ls->a)) {
			f->stop = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *reader_thread(void *arg)
{
	struct follow *f = arg;
	sk_error_t err = {0};

	f->monitor_started = pthread_create(&f->monitor, NULL, monitor_thread, f) == 0;
	sk_crilog_read(f->path, &f->o, send_cb, f, &f->stop, &err);
	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	f->eof = true;
	follow_wake(f);
	pthread_mutex_unlock(&f->mu);
	if (f->monitor_started)
		pthread_join(f->monitor, NULL);
	return NULL;
}

static ssize_t follow_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct follow *f = cls;
	ssize_t r;

	(void)pos;
	pthread_mutex_lock(&f->mu);
	if (f->gone) {
		r = MHD_CONTENT_READER_END_WITH_ERROR;
	} else if (f->dlen) {
		if (max > f->dlen)
			max = f->dlen;
		memcpy(buf, f->data, max);
		memmove(f->data, f->data + max, f->dlen - max);
		f->dlen -= max;
		pthread_cond_signal(&f->room);
		r = (ssize_t)max;
	} else if (f->eof || __atomic_load_n(&f->ls->stopping, __ATOMIC_ACQUIRE)) {
		r = MHD_CONTENT_READER_END_OF_STREAM;
	} else {
		f->parked = true;
		MHD_suspend_connection(f->conn);
		r = 0;
	}
	pthread_mutex_unlock(&f->mu);
	return r;
}

/* The response is destroyed (the connection ended or moves on). */
static void follow_free(void *cls)
{
	struct follow *f = cls;
	struct sk_logserver *ls = f->ls;

	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	pthread_cond_signal(&f->room);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->reader, NULL);
	pthread_mutex_lock(&ls->follows_mu);
	if (f->prev)
		f->prev->next = f->next;
	else
		ls->follows = f->next;
	if (f->next)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&ls->follows_mu);
	pthread_cond_destroy(&f->room);
	pthread_mutex_destroy(&f->mu);
	free(f->data);
	free(f->path);
	free(f);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *msg)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

struct collect {
	char *data;
	size_t len, cap;
};

static int collect_cb(void *arg, const char *data, size_t len)
{
	struct collect *c = arg;

	if (c->len + len + 1 > c->cap) {
		c->cap = (c->len + len + 1) * 2;
		c->data = xrealloc(c->data, c->cap);
	}
	memcpy(c->data + c->len, data, len);
	c->len += len;
	return 0;
}

static bool arg_true(struct MHD_Connection *conn, const char *key)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);

	return v && (!strcmp(v, "true") || !strcmp(v, "1"));
}

static int64_t arg_int(struct MHD_Connection *conn, const char *key, int64_t def)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);

	return v && *v ? strtoll(v, NULL, 10) : def;
}

static void read_opts(struct MHD_Connection *conn, struct sk_crilog_opts *o)
{
	const char *since = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "sinceTime");
	int64_t ss = arg_int(conn, "sinceSeconds", 0);

	o->tail_lines = arg_int(conn, "tailLines", -1);
	o->limit_bytes = arg_int(conn, "limitBytes", 0);
	o->timestamps = arg_true(conn, "timestamps");
	o->follow = arg_true(conn, "follow");
	if (ss > 0)
		o->since_ns = sk_ns_after(sk_now_ns(), -ss);
	if (since && *since)
		sk_crilog_parse_time(since, strlen(since), &o->since_ns);
}

static enum MHD_Result serve_logs(struct sk_logserver *ls, struct MHD_Connection *conn, const char *ns, const char *pod,
				  const char *ctr)
{
	cleanup_free char *pdir = pod_log_dir(ls->a, ns, pod);
	cleanup_free char *cdir = pdir ? xasprintf("%s/%s", pdir, ctr) : NULL;
	cleanup_free char *path = NULL, *msg = NULL;
	struct sk_crilog_opts o = {0};
	bool previous = arg_true(conn, "previous");
	long att[64];
	int n = cdir ? attempts(cdir, att, 64) : 0;

	read_opts(conn, &o);
	if (previous && n < 2) {
		msg = xasprintf("previous terminated container \"%s\" in pod \"%s\" not found", ctr, pod);
		return reply(conn, MHD_HTTP_BAD_REQUEST, msg);
	}
	if (n < 1) {
		msg = xasprintf("container \"%s\" in pod \"%s\" is waiting to start: ContainerCreating", ctr, pod);
		return reply(conn, MHD_HTTP_BAD_REQUEST, msg);
	}
	path = sk_crilog_path(pdir, ctr, (uint32_t)att[previous ? 1 : 0]);
	if (previous || !o.follow || !attempt_running(ls->a, path)) {
		struct collect c = {0};
		struct MHD_Response *r;
		enum MHD_Result ret;
		sk_error_t err = {0};

		o.follow = false;
		sk_crilog_read(path, &o, collect_cb, &c, NULL, &err);
		r = MHD_create_response_from_buffer(c.len, c.data ? c.data : (char *)"",
						    c.data ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
		ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
		MHD_destroy_response(r);
		return ret;
	}
	{
		struct follow *f = xzalloc(sizeof(*f));
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct MHD_Response *r;
		enum MHD_Result ret;

		f->ls = ls;
		f->conn = conn;
		f->sock = ci ? ci->connect_fd : -1;
		f->path = steal_ptr(&path);
		f->o = o;
		pthread_mutex_init(&f->mu, NULL);
		pthread_cond_init(&f->room, NULL);
		if (pthread_create(&f->reader, NULL, reader_thread, f) != 0) {
			pthread_cond_destroy(&f->room);
			pthread_mutex_destroy(&f->mu);
			free(f->path);
			free(f);
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "thread failed");
		}
		pthread_mutex_lock(&ls->follows_mu);
		f->next = ls->follows;
		if (ls->follows)
			ls->follows->prev = f;
		ls->follows = f;
		pthread_mutex_unlock(&ls->follows_mu);
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, follow_read, f, follow_free);
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
		ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
		MHD_destroy_response(r);
		return ret;
	}
}

/* GET /metrics (the agent's registry), /metrics/cadvisor (the
 * containers' cgroups) or /metrics/resource (kubelet's resource metrics),
 * text 0.0.4 or OpenMetrics. */
static enum MHD_Result serve_metrics(struct sk_logserver *ls, struct MHD_Connection *conn, const char *url)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	const char *ctype;
	size_t len;
	char *text = !strcmp(url, "/metrics/cadvisor")   ? sk__ag_metrics_cadvisor(ls->a, accept, &len, &ctype)
		     : !strcmp(url, "/metrics/resource") ? sk__ag_metrics_resource(ls->a, accept, &len, &ctype)
							 : sk__ag_metrics_expose(ls->a, accept, &len, &ctype);
	struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve_summary(struct sk_logserver *ls, struct MHD_Connection *conn)
{
	cleanup_json json_t *sum = sk__ag_stats_summary(ls->a);
	char *text = json_dumps(sum, JSON_COMPACT);
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct sk_logserver *ls = cls;
	char ns[254], pod[254], ctr[254];

	(void)version;
	(void)upload;
	(void)upload_size;
	if (!*con_cls) {
		*con_cls = (void *)1;
		return MHD_YES;
	}
	if (!strcmp(url, "/healthz"))
		return reply(conn, MHD_HTTP_OK, "ok");
	{
		char why[512];
		int code = sk__access_check(ls->a, conn, method, url, why, sizeof(why));

		if (code)
			return reply(conn, (unsigned)code, why);
	}
	if ((!strcmp(method, "GET") || !strcmp(method, "POST")) &&
	    (!strncmp(url, "/exec/", 6) || !strncmp(url, "/attach/", 8) || !strncmp(url, "/portForward/", 13)))
		return sk__stream_serve(ls->a, conn, url);
	if (strcmp(method, "GET") != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
	if (!strcmp(url, "/metrics") || !strcmp(url, "/metrics/cadvisor") || !strcmp(url, "/metrics/resource"))
		return serve_metrics(ls, conn, url);
	if (!strcmp(url, "/stats/summary") || !strcmp(url, "/stats/summary/"))
		return serve_summary(ls, conn);
	if (sscanf(url, "/containerLogs/%253[^/]/%253[^/]/%253[^/]", ns, pod, ctr) == 3)
		return serve_logs(ls, conn, ns, pod, ctr);
	return reply(conn, MHD_HTTP_NOT_FOUND, "not found");
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	sk_debug("agent", "log endpoint: %s", buf);
}

/* Each connection's socket context is a slot for its upgrade relay's
 * buffers (util/mhdup.h), freed once libmicrohttpd has closed it. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct sk_logserver *ls = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ti = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

		/* session tickets (libmicrohttpd leaves them off): the API
		 * server's next connection resumes this one's session */
		if (ti && ti->tls_session) {
			gnutls_session_t ts = (gnutls_session_t)ti->tls_session;

			if (ls->ticket_key.data)
				gnutls_session_ticket_enable_server(ts, &ls->ticket_key);
			/* the API server's libcurl asks for no tickets (its GnuTLS
			 * backend sets GNUTLS_NO_TICKETS) and resumes by session id;
			 * a resumed session keeps its first handshake's client
			 * certificate: not for long */
			sk_tls_cache_attach(ls->cache, ts, 300);
		}
		*socket_ctx = xzalloc(sizeof(void *));
		return;
	}
	if (*socket_ctx)
		free(*(void **)*socket_ctx);
	free(*socket_ctx);
	*socket_ctx = NULL;
}

void sk__logserver_upgraded(struct MHD_Connection *conn, struct MHD_UpgradeResponseHandle *urh)
{
	const union MHD_ConnectionInfo *sc = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	void **slot = sc ? sc->socket_context : NULL;

	if (slot && !*slot)
		*slot = sk_mhd_upgrade_buffers(urh, SK_MHD_UPGRADE_BUF);
}

static bool local_address(struct in_addr want)
{
	struct ifaddrs *ifs = NULL;
	bool found = false;

	if (getifaddrs(&ifs) < 0)
		return false;
	for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next)
		found = i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == want.s_addr;
	freeifaddrs(ifs);
	return found;
}

struct sk_logserver *sk__logserver_start(struct sk_agent *a, int *port, sk_error_t *err)
{
	struct sk_logserver *ls = xzalloc(sizeof(*ls));
	struct sockaddr_in sa = {0};
	const union MHD_DaemonInfo *di;

	ls->a = a;
	pthread_mutex_init(&ls->follows_mu, NULL);
	ls->cache = sk_tls_cache_new(64);
	if (gnutls_session_ticket_key_generate(&ls->ticket_key) < 0)
		ls->ticket_key = (gnutls_datum_t){0};
	if (a->o.cert_pem && a->o.key_pem) {
		ls->cert = xstrdup(a->o.cert_pem);
		ls->key = xstrdup(a->o.key_pem);
	} else if (load_or_make_cert(a, &ls->cert, &ls->key, err) < 0) {
		free(ls);
		return NULL;
	}
	ls->cur = creds_load(ls->cert, ls->key, err);
	if (!ls->cur) {
		sk__logserver_stop(ls);
		return NULL;
	}
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)*port);
	/* the API server reaches it at the node's InternalIP; one that is not
	 * an address here (behind NAT) is served on every address */
	if (inet_pton(AF_INET, a->node_ip, &sa.sin_addr) != 1 || !local_address(sa.sin_addr))
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	/* one event loop (epoll) for every connection: libmicrohttpd relays
	 * the upgraded TLS connections of streaming sessions from it, and a
	 * followed log parks its connection while it has nothing to send */
	ls->d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TLS | MHD_USE_ERROR_LOG | MHD_ALLOW_UPGRADE |
			MHD_ALLOW_SUSPEND_RESUME,
		(uint16_t)*port, NULL, NULL, handler, ls, MHD_OPTION_SOCK_ADDR, &sa,
		/* the certificate is looked up per handshake: it rotates */
		MHD_OPTION_HTTPS_CERT_CALLBACK, retrieve_cert, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, ls,
		/* two loops: a slow request (a large log, the cgroups' metrics) does not hold up the other */
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, ls,
		/* asks callers for a certificate of the cluster CA (access.c checks it) */
		a->o.ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, a->o.ca_pem, MHD_OPTION_END);
	if (!ls->d) {
		sk_error_set(err, SK_EINTERNAL, "log endpoint: cannot listen on %s:%d", a->node_ip, *port);
		sk__logserver_stop(ls);
		return NULL;
	}
	di = MHD_get_daemon_info(ls->d, MHD_DAEMON_INFO_BIND_PORT);
	if (di)
		*port = di->port;
	ls->port = *port;
	pthread_mutex_lock(&registry_mu);
	ls->next = registry;
	registry = ls;
	pthread_mutex_unlock(&registry_mu);
	return ls;
}

void sk__logserver_stop(struct sk_logserver *ls)
{
	if (!ls)
		return;
	/* libmicrohttpd must not stop with a suspended connection: every
	 * parked follower is woken and ends, none parks again */
	__atomic_store_n(&ls->stopping, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ls->follows_mu);
	for (struct follow *f = ls->follows; f; f = f->next) {
		pthread_mutex_lock(&f->mu);
		f->stop = 1;
		pthread_cond_signal(&f->room);
		follow_wake(f);
		pthread_mutex_unlock(&f->mu);
	}
	pthread_mutex_unlock(&ls->follows_mu);
	/* the streaming sessions (they end on the agent's stop) hand their
	 * upgraded connections back first */
	sk__stream_wait_idle(6000);
	if (ls->d)
		MHD_stop_daemon(ls->d);
	pthread_mutex_lock(&registry_mu);
	for (struct sk_logserver **p = &registry; *p; p = &(*p)->next)
		if (*p == ls) {
			*p = ls->next;
			break;
		}
	pthread_mutex_unlock(&registry_mu);
	creds_free(ls->cur);
	pthread_mutex_destroy(&ls->follows_mu);
	sk_tls_cache_free(ls->cache);
	if (ls->ticket_key.data) {
		gnutls_memset(ls->ticket_key.data, 0, ls->ticket_key.size);
		gnutls_free(ls->ticket_key.data);
	}
	free(ls->cert);
	free(ls->key);
	free(ls);
}
