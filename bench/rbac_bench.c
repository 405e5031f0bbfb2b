/* RBAC authorization cost: starts `skiff server` with a token file whose
 * user "dev" is bound by a RoleBinding to the edit ClusterRole in namespace
 * "bench", then measures over HTTPS with keep-alive connections (libcurl),
 * in the same run and interleaved (masters, dev, masters, dev, …):
 *   - single-object GETs/s of one ConfigMap from THREADS clients;
 *   - ConfigMap creates/s from THREADS clients;
 * as "root" (a token-file user in system:masters, allowed by the first
 * authorizer of the chain) and as "dev" (a token-file user allowed by RBAC). Prints each round
 * and the medians, and dev's cost relative to masters in percent.
 * Usage: rbac_bench SKIFF_BINARY [threads] [seconds per round] [rounds] */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[128], cafile[512], admin_auth[256];
static const char *dev_auth = "Authorization: Bearer dev-token";
/* a token-file user in system:masters: the same authentication as dev's, so
 * the two differ only in their authorization */
static const char *root_auth = "Authorization: Bearer root-token";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
	(void)p;
	(void)ud;
	return s * n;
}

static CURL *handle(const char *auth)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, auth);

	h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h); /* kept for the handle's life */
	curl_easy_setopt(c, CURLOPT_CAINFO, cafile);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	return c;
}

static long do_req(CURL *c, const char *method, const char *path, const char *body)
{
	char url[512];
	long code = 0;

	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	if (curl_easy_perform(c) != CURLE_OK)
		return -1;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

struct job {
	const char *auth;
	int create;
	double until;
	long n, errors;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	CURL *c = handle(j->auth);

	while (now_s() < j->until) {
		long code = j->create ? do_req(c, "POST", "/api/v1/namespaces/bench/configmaps",
					       "{\"metadata\":{\"generateName\":\"b-\"},\"data\":{\"k\":\"v\"}}")
				      : do_req(c, "GET", "/api/v1/namespaces/bench/configmaps/target", NULL);

		if (code == (j->create ? 201 : 200))
			j->n++;
		else
			j->errors++;
	}
	curl_easy_cleanup(c);
	return NULL;
}

static pid_t server;

/* The server's CPU time (user + system, all threads) in seconds. */
static double server_cpu(void)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)server);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static double last_cpu_us; /* the server's CPU per request of the last round */

static double round_rate(const char *auth, int create, int threads, double secs)
{
	pthread_t t[64];
	struct job j[64];
	long n = 0, errors = 0;
	double start = now_s(), cpu0 = server_cpu();

	for (int i = 0; i < threads; i++) {
		j[i] = (struct job){.auth = auth, .create = create, .until = start + secs};
		pthread_create(&t[i], NULL, worker, &j[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		n += j[i].n;
		errors += j[i].errors;
	}
	if (errors)
		fprintf(stderr, "  %ld errors\n", errors);
	last_cpu_us = n ? (server_cpu() - cpu0) / n * 1e6 : 0;
	return n / (now_s() - start);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "build/skiff";
	int threads = argc > 2 ? atoi(argv[2]) : 8, rounds = argc > 4 ? atoi(argv[4]) : 4;
	double secs = argc > 3 ? atof(argv[3]) : 3;
	char dir[] = "/tmp/skiff-rbac-bench-XXXXXX", path[600], listen[64], tok[200] = "";
	double g[2][32], cr[2][32], gu[2][32], cu[2][32];
	FILE *f;
	pid_t pid;
	CURL *adm;

	if (threads < 1 || threads > 64 || rounds < 1 || rounds > 32 || !mkdtemp(dir))
		return 2;
	int port = 20000 + getpid() % 20000;
	snprintf(path, sizeof(path), "%s/tokens.csv", dir);
	f = fopen(path, "w");
	fprintf(f, "dev-token,dev,2001,\"developers\"\nroot-token,root,2002,\"system:masters\"\n");
	fclose(f);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	server = pid = fork();
	if (pid == 0) {
		char data[600];

		snprintf(data, sizeof(data), "%s/data", dir);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "server", "--data-dir", data, "--listen", listen, "--no-agent", "--token-auth-file",
		      path, (char *)NULL);
		_exit(127);
	}
	snprintf(base, sizeof(base), "https://%s", listen);
	snprintf(cafile, sizeof(cafile), "%s/data/tls/ca.crt", dir);
	snprintf(path, sizeof(path), "%s/data/token", dir);
	curl_global_init(CURL_GLOBAL_ALL);
	for (int i = 0; i < 400 && !tok[0]; i++) {
		usleep(50000);
		if ((f = fopen(path, "r"))) {
			if (!fgets(tok, sizeof(tok), f))
				tok[0] = 0;
			fclose(f);
			tok[strcspn(tok, "\n")] = 0;
		}
	}
	snprintf(admin_auth, sizeof(admin_auth), "Authorization: Bearer %s", tok);
	adm = handle(admin_auth);
	for (int i = 0; i < 400 && do_req(adm, "GET", "/readyz", NULL) != 200; i++)
		usleep(50000);
	do_req(adm, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"bench\"}}");
	do_req(adm, "POST", "/api/v1/namespaces/bench/configmaps", "{\"metadata\":{\"name\":\"target\"},\"data\":{\"a\":\"b\"}}");
	if (do_req(adm, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings",
		   "{\"metadata\":{\"name\":\"dev-edit\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
		   "\"kind\":\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"dev\"}]}") !=
	    201) {
		fprintf(stderr, "setup failed\n");
		kill(pid, SIGTERM);
		return 1;
	}
	sleep(1); /* the aggregation controller fills edit */
	/* a discarded warm-up round of each (connections, the first decisions) */
	round_rate(root_auth, 0, threads, 1);
	round_rate(dev_auth, 0, threads, 1);
	printf("threads %d, %.1f s per round, %d rounds\n", threads, secs, rounds);
	for (int r = 0; r < rounds; r++) {
		/* who goes first alternates, so a drift of the machine's load favours neither */
		for (int k = 0; k < 2; k++) {
			int w = (k + r) % 2;

			g[w][r] = round_rate(w ? dev_auth : root_auth, 0, threads, secs);
			gu[w][r] = last_cpu_us;
		}
		for (int k = 0; k < 2; k++) {
			int w = (k + r) % 2;

			cr[w][r] = round_rate(w ? dev_auth : root_auth, 1, threads, secs);
			cu[w][r] = last_cpu_us;
		}
		printf("round %d: GET/s masters %.0f dev %.0f (server CPU/req %.1f, %.1f us); create/s masters %.0f dev "
		       "%.0f (%.1f, %.1f us)\n",
		       r + 1, g[0][r], g[1][r], gu[0][r], gu[1][r], cr[0][r], cr[1][r], cu[0][r], cu[1][r]);
		fflush(stdout);
	}
	double gm = median(g[0], rounds), gd = median(g[1], rounds), cm = median(cr[0], rounds),
	       cd = median(cr[1], rounds);
	printf("median GET/s: masters %.0f, dev (RBAC) %.0f: %+.1f %%\n", gm, gd, (gd - gm) / gm * 100);
	printf("median create/s: masters %.0f, dev (RBAC) %.0f: %+.1f %%\n", cm, cd, (cd - cm) / cm * 100);
	gm = median(gu[0], rounds), gd = median(gu[1], rounds), cm = median(cu[0], rounds), cd = median(cu[1], rounds);
	printf("median server CPU per GET: masters %.1f us, dev (RBAC) %.1f us: %+.1f %%\n", gm, gd, (gd - gm) / gm * 100);
	printf("median server CPU per create: masters %.1f us, dev (RBAC) %.1f us: %+.1f %%\n", cm, cd,
	       (cd - cm) / cm * 100);
	curl_easy_cleanup(adm);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path) != 0)
		return 1;
	return 0;
}
