/* API server benchmark: starts `skiff server` on a fresh data directory and
 * measures, over HTTPS with keep-alive connections (libcurl):
 *   - time from exec to a successful /readyz, idle RSS;
 *   - durable pod creates/s from many concurrent clients;
 *   - single-object GETs/s;
 *   - LISTs of 1,000 pods;
 *   - watch delivery latency (create → event received) to 1,000 watchers.
 * Usage: api_bench SKIFF_BINARY [threads] [creates]
 * Environment: WATCH_PODS, WATCH_GAP_MS; WATCH_ONLY=1 runs only the watch part;
 * SKIFF_SERVER_ARGS: more server flags (e.g. --datastore-endpoint etcd://…);
 * WATCH_RETRY=0: an ended watch is not re-opened (by default it is, with the
 * reflector's backoff); SKIFF_SERVER_LOG: the server's stderr goes there. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[128], auth[256], cafile[512];
static int port;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
	(void)p;
	(void)ud;
	return s * n;
}

static CURL *handle(void)
{
	CURL *c = curl_easy_init();
	static struct curl_slist *h;

	if (!h) {
		h = curl_slist_append(NULL, auth);
		h = curl_slist_append(h, "Content-Type: application/json");
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_CAINFO, cafile);
	/* only our CA: libcurl-gnutls otherwise also parses every certificate in
	 * /etc/ssl/certs on each connect, which made 1,000 watch connects take a minute */
	curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	return c;
}

static long do_req(CURL *c, const char *method, const char *url, const char *body)
{
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
	if (curl_easy_perform(c) != CURLE_OK)
		return -1;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

static const char *POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
			 "\"labels\":{\"app\":\"bench\"},\"annotations\":{\"sent\":\"%.6f\"}},\"spec\":{\"schedulerName\":\"api-bench\",\"containers\":"
			 "[{\"name\":\"c\",\"image\":\"busybox:1.36\"}]}}";

static int failures_shown;

typedef struct job {
	int id, n, ok;
	const char *ns, *prefix;
	double until;
	long count;
} job;

/* Creates pod name in ns over c (the "sent" annotation stamped just before); 1 if created. */
static int create_pod(CURL *c, const char *ns, const char *name)
{
	char url[256], body[1024];
	long code;

	snprintf(url, sizeof(url), "%s/api/v1/namespaces/%s/pods", base, ns);
	snprintf(body, sizeof(body), POD, name, ns, wall_s());
	code = do_req(c, "POST", url, body);
	if (code != 201 && __atomic_fetch_add(&failures_shown, 1, __ATOMIC_RELAXED) < 5)
		fprintf(stderr, "create %s: HTTP %ld\n", name, code);
	return code == 201;
}

static void *create_worker(void *arg)
{
	job *j = arg;
	CURL *c = handle();
	char name[64];

	for (int i = 0; i < j->n; i++) {
		snprintf(name, sizeof(name), "%s-%d-%d", j->prefix, j->id, i);
		j->ok += create_pod(c, j->ns, name);
	}
	curl_easy_cleanup(c);
	return NULL;
}

static double run_creates(int threads, int total, const char *ns, const char *prefix, int *ok)
{
	pthread_t t[256];
	job j[256];
	double t0 = now_s();

	*ok = 0;
	for (int i = 0; i < threads; i++) {
		j[i] = (job){.id = i, .n = total / threads, .ns = ns, .prefix = prefix};
		pthread_create(&t[i], NULL, create_worker, &j[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		*ok += j[i].ok;
	}
	return now_s() - t0;
}

static void *get_worker(void *arg)
{
	job *j = arg;
	CURL *c = handle();
	char url[256];
	unsigned seed = (unsigned)j->id * 7919u;

	while (now_s() < j->until) {
		snprintf(url, sizeof(url), "%s/api/v1/namespaces/%s/pods/%s-%d-%d", base, j->ns, j->prefix,
			 (int)(rand_r(&seed) % 8), (int)(rand_r(&seed) % (unsigned)(j->n)));
		if (do_req(c, "GET", url, NULL) == 200)
			j->count++;
	}
	curl_easy_cleanup(c);
	return NULL;
}

/* Watchers: one curl multi with W streaming GETs; each received line is
 * timed against the "sent" annotation of the pod. */
typedef struct wstate {
	char buf[1 << 16];
	size_t len;
	int ready;            /* saw the "ready" pod: connected and streaming */
	int got_byte;         /* this attempt received a byte of body */
	int attempts;         /* watch requests opened (1 + re-opens) */
	CURL *e;
	double retry_at;      /* re-open due (monotonic s); 0: open */
	double backoff;       /* the reflector's: 0.8 s doubling to 30 s */
	char err[CURL_ERROR_SIZE];
} wstate;

/* Why watch requests ended before the bench stopped them: libcurl's result
 * (connection refused/reset, TLS error, timeout…) or the HTTP status. */
enum { MAX_CODES = 128 };
static int end_curl[MAX_CODES], end_http[600], nreopen, nshown;
static pthread_mutex_t end_mu = PTHREAD_MUTEX_INITIALIZER;

static void print_ends(const char *when)
{
	pthread_mutex_lock(&end_mu);
	printf("watch_ends %s: re-opened %d", when, nreopen);
	for (int i = 0; i < MAX_CODES; i++)
		if (end_curl[i])
			printf(", curl \"%s\" %d", curl_easy_strerror((CURLcode)i), end_curl[i]);
	for (int i = 0; i < 600; i++)
		if (end_http[i])
			printf(", HTTP %d %d", i, end_http[i]);
	printf("\n");
	pthread_mutex_unlock(&end_mu);
}

#define READY_NAME "\"name\":\"ready-0-0\""
static int nready;

static double *lat;
/* fan-out: per watch pod wN, when its first watcher got it; each delivery's
 * lag behind that first one (the write path excluded) */
enum { MAX_WPODS = 4096 };
static double first_rx[MAX_WPODS], *rx, *spread;
static int *rx_pod;
static size_t nlat, caplat;
static pthread_mutex_t lat_mu = PTHREAD_MUTEX_INITIALIZER;

/* Records one ADDED line of a watch pod: its latency and receive time. */
static void record_line(const char *line, size_t n)
{
	const char *sent = memmem(line, n, "\"sent\":\"", 8), *nm;
	double now;
	int pod;

	if (!sent || !memmem(line, n, "\"ADDED\"", 7))
		return;
	now = wall_s();
	nm = memmem(line, n, "\"name\":\"w", 9);
	pod = nm ? atoi(nm + 9) : -1;
	pthread_mutex_lock(&lat_mu);
	if (nlat == caplat) {
		caplat = caplat ? caplat * 2 : 4096;
		lat = realloc(lat, caplat * sizeof(*lat));
		rx = realloc(rx, caplat * sizeof(*rx));
		rx_pod = realloc(rx_pod, caplat * sizeof(*rx_pod));
	}
	rx[nlat] = now;
	rx_pod[nlat] = pod >= 0 && pod < MAX_WPODS ? pod : -1;
	if (rx_pod[nlat] >= 0 && (first_rx[pod] == 0 || now < first_rx[pod]))
		first_rx[pod] = now;
	lat[nlat++] = now - atof(sent + 8);
	pthread_mutex_unlock(&lat_mu);
}

/* Lines are handled in place; only a partial line at the end of a chunk is
 * copied, to be completed by the next one. */
static size_t on_watch(char *p, size_t s, size_t n, void *ud)
{
	wstate *w = ud;
	size_t len = s * n;
	char *nl;

	w->got_byte = 1;
	while (len) {
		const char *line = p;
		size_t ll;

		nl = memchr(p, '\n', len);
		if (!nl) {
			if (w->len + len > sizeof(w->buf))
				w->len = 0;
			memcpy(w->buf + w->len, p, len);
			w->len += len;
			break;
		}
		ll = (size_t)(nl - p);
		if (w->len) {
			if (w->len + ll > sizeof(w->buf))
				w->len = 0;
			memcpy(w->buf + w->len, p, ll);
			line = w->buf;
			ll += w->len;
			w->len = 0;
		}
		if (!w->ready && memmem(line, ll, READY_NAME, sizeof(READY_NAME) - 1)) {
			w->ready = 1;
			__atomic_add_fetch(&nready, 1, __ATOMIC_RELAXED);
		}
		record_line(line, ll);
		len -= (size_t)(nl - p) + 1;
		p = nl + 1;
	}
	return s * n;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static volatile int watch_stop;

/* One pump: a curl multi driven through curl_multi_socket_action and epoll,
 * so a wake-up touches only the streams that have data (curl_multi_perform
 * would poll every stream of the pump each time). */
typedef struct pump {
	CURLM *m;
	int ep;
	double due;           /* when curl wants its timeout action; -1: none */
	wstate **waiting;     /* ended watches waiting for their re-open */
	size_t nwaiting;
} pump;

static int watch_retry = 1; /* WATCH_RETRY=0: an ended watch stays ended */

/* A watch that ended: counted by cause and, as client-go's reflector does,
 * re-opened after a backoff (0.8 s doubling to 30 s, reset by a watch that
 * streamed). */
static void watch_ended(pump *p, CURLMsg *msg)
{
	wstate *w = NULL;
	long code = 0;

	curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&w);
	curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
	curl_multi_remove_handle(p->m, msg->easy_handle);
	pthread_mutex_lock(&end_mu);
	if (msg->data.result != CURLE_OK && w && nshown++ < 3)
		fprintf(stderr, "watch ended: %s (HTTP %ld)\n", w->err, code);
	if (msg->data.result != CURLE_OK || code == 200)
		end_curl[(int)msg->data.result < MAX_CODES ? (int)msg->data.result : 0]++;
	if (code != 200 && code > 0 && code < 600)
		end_http[code]++;
	pthread_mutex_unlock(&end_mu);
	if (!watch_retry || !w)
		return;
	w->backoff = w->got_byte ? 0.8 : w->backoff ? (w->backoff * 2 > 30 ? 30 : w->backoff * 2) : 0.8;
	w->retry_at = now_s() + w->backoff * (1 + (double)rand() / RAND_MAX);
	w->got_byte = 0;
	p->waiting = realloc(p->waiting, (p->nwaiting + 1) * sizeof(*p->waiting));
	p->waiting[p->nwaiting++] = w;
}

/* Re-opens the ended watches whose backoff is over. */
static void watch_reopen(pump *p)
{
	double t = now_s();

	for (size_t i = 0; i < p->nwaiting;) {
		wstate *w = p->waiting[i];

		if (w->retry_at > t) {
			i++;
			continue;
		}
		w->retry_at = 0;
		w->len = 0;
		w->attempts++;
		__atomic_add_fetch(&nreopen, 1, __ATOMIC_RELAXED);
		curl_multi_add_handle(p->m, w->e);
		p->waiting[i] = p->waiting[--p->nwaiting];
	}
}

static int pump_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp)
{
	pump *p = ud;
	struct epoll_event ev = {.data.fd = fd};

	(void)e;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(p->ep, EPOLL_CTL_DEL, fd, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(p->ep, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT)
		epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev);
	return 0;
}

static int pump_timer(CURLM *m, long timeout_ms, void *ud)
{
	pump *p = ud;

	(void)m;
	p->due = timeout_ms < 0 ? -1 : now_s() + timeout_ms / 1000.0;
	return 0;
}

static void pump_init(pump *p)
{
	p->m = curl_multi_init();
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->due = -1;
	p->waiting = NULL;
	p->nwaiting = 0;
	curl_multi_setopt(p->m, CURLMOPT_SOCKETFUNCTION, pump_socket);
	curl_multi_setopt(p->m, CURLMOPT_SOCKETDATA, p);
	curl_multi_setopt(p->m, CURLMOPT_TIMERFUNCTION, pump_timer);
	curl_multi_setopt(p->m, CURLMOPT_TIMERDATA, p);
}

static void *watch_pump(void *arg)
{
	pump *p = arg;
	struct epoll_event evs[256];
	int running;

	curl_multi_socket_action(p->m, CURL_SOCKET_TIMEOUT, 0, &running);
	while (!watch_stop) {
		int t = p->due < 0 ? 50 : (int)((p->due - now_s()) * 1000) + 1;
		int n = epoll_wait(p->ep, evs, 256, t < 0 ? 0 : t > 50 ? 50 : t);

		for (int i = 0; i < n; i++) {
			int flags = (evs[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
				    (evs[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
				    (evs[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

			curl_multi_socket_action(p->m, evs[i].data.fd, flags, &running);
		}
		if (p->due >= 0 && now_s() >= p->due) {
			p->due = -1;
			curl_multi_socket_action(p->m, CURL_SOCKET_TIMEOUT, 0, &running);
		}
		for (CURLMsg *msg; (msg = curl_multi_info_read(p->m, &(int){0}));)
			if (msg->msg == CURLMSG_DONE)
				watch_ended(p, msg);
		if (p->nwaiting)
			watch_reopen(p);
	}
	return NULL;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + tv->tv_usec / 1e6;
}

/* utime + stime of pid, in clock ticks */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (long)(ut + st);
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 32, total = argc > 3 ? atoi(argv[3]) : 8000, ok;
	int watchers = 1000, wpods = getenv("WATCH_PODS") ? atoi(getenv("WATCH_PODS")) : 200;
	int gap_us = getenv("WATCH_GAP_MS") ? atoi(getenv("WATCH_GAP_MS")) * 1000 : 20000;
	char dir[] = "/tmp/skiff-bench-XXXXXX", listen[64], tok[256] = {0}, path[600];
	double t0, t, ready = -1;
	pid_t pid;
	FILE *f;
	CURL *c;

	if (argc < 2) {
		fprintf(stderr, "usage: api_bench SKIFF_BINARY [threads] [creates]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("WATCH_RETRY"))
		watch_retry = atoi(getenv("WATCH_RETRY"));
	curl_global_init(CURL_GLOBAL_ALL);
	mkdtemp(dir);
	port = 20000 + getpid() % 20000;
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		freopen(getenv("SKIFF_SERVER_LOG") ? getenv("SKIFF_SERVER_LOG") : "/dev/null", "w", stderr);
		/* SKIFF_SERVER_ARGS: more flags, split at spaces (--datastore-endpoint etcd://…) */
		char *sargv[32] = {argv[1], "server", "--data-dir", dir, "--listen", listen, "--no-agent"};
		int sargc = 7;
		char *extra = getenv("SKIFF_SERVER_ARGS") ? strdup(getenv("SKIFF_SERVER_ARGS")) : NULL;

		for (char *t = extra ? strtok(extra, " ") : NULL; t && sargc < 31; t = strtok(NULL, " "))
			sargv[sargc++] = t;
		sargv[sargc] = NULL;
		execv(argv[1], sargv);
		_exit(127);
	}
	snprintf(base, sizeof(base), "https://127.0.0.1:%d", port);
	snprintf(cafile, sizeof(cafile), "%s/tls/ca.crt", dir);
	snprintf(path, sizeof(path), "%s/token", dir);
	for (int i = 0; i < 2000; i++) {
		if ((f = fopen(path, "r"))) {
			if (fgets(tok, sizeof(tok), f) && tok[0]) {
				fclose(f);
				snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tok);
				c = handle();
				snprintf(path, sizeof(path), "%s/readyz", base);
				if (do_req(c, "GET", path, NULL) == 200) {
					ready = now_s() - t0;
					curl_easy_cleanup(c);
					break;
				}
				curl_easy_cleanup(c);
				snprintf(path, sizeof(path), "%s/token", dir);
			} else {
				fclose(f);
			}
		}
		usleep(2000);
	}
	printf("readyz_after_start_ms %.1f\n", ready * 1000);
	sleep(2);
	printf("idle_rss_mb %.1f\n", rss_kb(pid) / 1024.0);

	if (getenv("WATCH_ONLY"))
		goto watch;
	t = run_creates(threads, total, "default", "p", &ok);
	printf("creates %d ok %d threads %d seconds %.2f creates_per_s %.0f\n", total, ok, threads, t, ok / t);
	t = run_creates(1, 500, "default", "q", &ok);
	printf("creates_one_client %d seconds %.2f creates_per_s %.0f\n", ok, t, ok / t);

	{
		pthread_t th[64];
		job j[64];
		long gets = 0;
		int gt = 16;
		double until = now_s() + 5;

		for (int i = 0; i < gt; i++) {
			j[i] = (job){.id = i, .n = total / threads, .ns = "default", .prefix = "p", .until = until};
			pthread_create(&th[i], NULL, get_worker, &j[i]);
		}
		for (int i = 0; i < gt; i++) {
			pthread_join(th[i], NULL);
			gets += j[i].count;
		}
		printf("gets_per_s %.0f (threads %d)\n", gets / 5.0, gt);
	}
	{
		/* 1,000 pods in their own namespace, listed whole */
		const char *ns = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"list\"}}";
		double t1, lists = 0;

		c = handle();
		snprintf(path, sizeof(path), "%s/api/v1/namespaces", base);
		do_req(c, "POST", path, ns);
		run_creates(10, 1000, "list", "l", &ok);
		snprintf(path, sizeof(path), "%s/api/v1/namespaces/list/pods", base);
		t1 = now_s();
		while (now_s() - t1 < 5) {
			do_req(c, "GET", path, NULL);
			lists++;
		}
		printf("list_1000_pods_per_s %.1f (ms each %.1f)\n", lists / 5.0, 5000.0 / lists);
		curl_easy_cleanup(c);
	}
watch:
	{
		enum { PUMPS = 2 };
		CURL *wc;
		pump m[PUMPS];
		wstate *ws = calloc((size_t)watchers, sizeof(*ws));
		char url[256], ns[200];
		pthread_t pth[PUMPS];
		double *cl = calloc((size_t)wpods, sizeof(*cl));
		long cpu0;
		struct rusage ru0, ru1;

		c = handle();
		snprintf(path, sizeof(path), "%s/api/v1/namespaces", base);
		snprintf(ns, sizeof(ns), "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"watch\"}}");
		do_req(c, "POST", path, ns);
		curl_easy_cleanup(c);
		snprintf(url, sizeof(url), "%s/api/v1/namespaces/watch/pods?watch=true&timeoutSeconds=600", base);
		for (int p = 0; p < PUMPS; p++)
			pump_init(&m[p]);
		for (int i = 0; i < watchers; i++) {
			CURL *e = handle();

			curl_easy_setopt(e, CURLOPT_URL, url);
			curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_watch);
			curl_easy_setopt(e, CURLOPT_WRITEDATA, &ws[i]);
			curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)&ws[i]);
			curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ws[i].err);
			ws[i].e = e;
			ws[i].attempts = 1;
			curl_multi_add_handle(m[i % PUMPS].m, e);
		}
		for (int p = 0; p < PUMPS; p++)
			pthread_create(&pth[p], NULL, watch_pump, &m[p]);
		/* time only once every watcher streams: each must see the "ready" pod */
		sleep(2);
		/* the pods are created over one kept connection, as a controller
		 * does: a TLS handshake per create is not part of delivery */
		wc = handle();
		{
			double t_wait = now_s();

			create_pod(wc, "watch", "ready-0-0");
			while (__atomic_load_n(&nready, __ATOMIC_RELAXED) < watchers && now_s() - t_wait < 120)
				usleep(100000);
			printf("watchers_streaming %d after %.1f s\n", nready, now_s() - t_wait);
			{
				int bytes = 0;

				for (int i = 0; i < watchers; i++)
					bytes += ws[i].got_byte;
				printf("watchers_with_bytes %d (retry %s)\n", bytes, watch_retry ? "on" : "off");
			}
			print_ends("before the events");
		}
		pthread_mutex_lock(&lat_mu);
		nlat = 0;
		pthread_mutex_unlock(&lat_mu);
		cpu0 = cpu_ticks(pid);
		getrusage(RUSAGE_SELF, &ru0);
		for (int i = 0; i < wpods; i++) {
			char name[32];
			double t0 = now_s();

			snprintf(name, sizeof(name), "w%d", i);
			create_pod(wc, "watch", name);
			cl[i] = now_s() - t0;
			usleep((useconds_t)gap_us);
		}
		sleep(3);
		getrusage(RUSAGE_SELF, &ru1);
		qsort(cl, (size_t)wpods, sizeof(*cl), cmpd);
		printf("watch_creates p50_ms %.2f max_ms %.2f server_cpu_ms_per_event %.1f client_cpu_ms_per_event %.1f\n",
		       cl[wpods / 2] * 1000, cl[wpods - 1] * 1000,
		       (double)(cpu_ticks(pid) - cpu0) * 1000.0 / (double)sysconf(_SC_CLK_TCK) / wpods,
		       (tv_s(&ru1.ru_utime) + tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_utime) - tv_s(&ru0.ru_stime)) * 1000 / wpods);
		free(cl);
		curl_easy_cleanup(wc);
		print_ends("after the events");
		watch_stop = 1;
		for (int p = 0; p < PUMPS; p++)
			pthread_join(pth[p], NULL);
		qsort(lat, nlat, sizeof(*lat), cmpd);
		if (nlat)
			printf("watch_watchers %d events_per_s %.0f events_expected %d received %zu p50_ms %.2f p99_ms %.2f "
			       "max_ms %.2f\n", watchers, 1e6 / gap_us, watchers * wpods, nlat, lat[nlat / 2] * 1000,
			       lat[nlat * 99 / 100] * 1000, lat[nlat - 1] * 1000);
		if (nlat) {
			size_t ns = 0;

			spread = calloc(nlat, sizeof(*spread));
			for (size_t i = 0; i < nlat; i++)
				if (rx_pod[i] >= 0)
					spread[ns++] = rx[i] - first_rx[rx_pod[i]];
			qsort(spread, ns, sizeof(*spread), cmpd);
			if (ns)
				printf("watch_fanout (after the first watcher got the event) p50_ms %.2f p99_ms %.2f max_ms %.2f\n",
				       spread[ns / 2] * 1000, spread[ns * 99 / 100] * 1000, spread[ns - 1] * 1000);
		}
		printf("rss_after_mb %.1f\n", rss_kb(pid) / 1024.0);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path) != 0)
		return 1;
	return 0;
}
