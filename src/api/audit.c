/* The audit log's policy (upstream's k8s.io/apiserver/pkg/audit/policy:
 * checker.go) and its writer: a bounded queue, one thread, rotation by
 * size as kube-apiserver's lumberjack does it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/audit.h"
#include "util/util.h"
#include "util/yaml.h"

struct line {
	struct line *next;
	char *text;
};

struct sk_audit {
	char *path, *dir, *base, *ext; /* the log, and its rotated names' parts */
	json_t *policy;
	int fd;
	int64_t size, max_size;
	int max_backups;
	size_t n, max;
	struct line *head, *tail;
	int stopping;
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	pthread_t writer;
	int writer_started;
};

/* ---- the policy ---- */

static const char *const levels[] = {"None", "Metadata", "Request", "RequestResponse", NULL};
static const char *const stages[] = {"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic", NULL};

static int check_strings(json_t *v, const char *what, const char *const *allowed, sk_error_t *err)
{
	size_t i;
	json_t *s;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return sk_error_set(err, SK_EBADREQUEST, "%s: must be a list of strings", what);
	json_array_foreach(v, i, s) {
		int found = !allowed;

		if (!json_is_string(s))
			return sk_error_set(err, SK_EBADREQUEST, "%s[%zu]: must be a string", what, i);
		for (int j = 0; allowed && allowed[j]; j++)
			found |= !strcmp(allowed[j], json_string_value(s));
		if (!found)
			return sk_error_set(err, SK_EBADREQUEST, "%s[%zu]: Unsupported value: \"%s\"", what, i,
					    json_string_value(s));
	}
	return 0;
}

static int check_rule(json_t *r, size_t i, sk_error_t *err)
{
	char p[64];
	const char *lv = json_string_value(json_object_get(r, "level"));
	int found = 0;
	size_t j;
	json_t *gr;

	snprintf(p, sizeof(p), "rules[%zu]", i);
	if (!json_is_object(r))
		return sk_error_set(err, SK_EBADREQUEST, "%s: must be an object", p);
	for (int k = 0; lv && levels[k]; k++)
		found |= !strcmp(levels[k], lv);
	if (!found)
		return sk_error_set(err, SK_EBADREQUEST,
				    "%s.level: Unsupported value: \"%s\": supported values: "
				    "\"None\", \"Metadata\", \"Request\", \"RequestResponse\"",
				    p, lv ? lv : "");
	if (json_object_get(r, "nonResourceURLs") &&
	    (json_object_get(r, "resources") || json_object_get(r, "namespaces")))
		return sk_error_set(err, SK_EBADREQUEST,
				    "%s: rules cannot apply to both regular resources and non-resource URLs", p);
	if (check_strings(json_object_get(r, "users"), "users", NULL, err) < 0 ||
	    check_strings(json_object_get(r, "userGroups"), "userGroups", NULL, err) < 0 ||
	    check_strings(json_object_get(r, "verbs"), "verbs", NULL, err) < 0 ||
	    check_strings(json_object_get(r, "namespaces"), "namespaces", NULL, err) < 0 ||
	    check_strings(json_object_get(r, "nonResourceURLs"), "nonResourceURLs", NULL, err) < 0 ||
	    check_strings(json_object_get(r, "omitStages"), "omitStages", stages, err) < 0)
		return sk_error_wrap(err, "%s", p);
	if (json_object_get(r, "resources") && !json_is_array(json_object_get(r, "resources")))
		return sk_error_set(err, SK_EBADREQUEST, "%s.resources: must be a list", p);
	json_array_foreach(json_object_get(r, "resources"), j, gr) {
		if (!json_is_object(gr) ||
		    check_strings(json_object_get(gr, "resources"), "resources", NULL, err) < 0 ||
		    check_strings(json_object_get(gr, "resourceNames"), "resourceNames", NULL, err) < 0 ||
		    (json_object_get(gr, "group") && !json_is_string(json_object_get(gr, "group"))))
			return sk_error_set(err, SK_EBADREQUEST, "%s.resources[%zu]: not a GroupResources", p, j);
	}
	return 0;
}

json_t *sk_audit_policy_parse(const char *text, size_t len, sk_error_t *err)
{
	json_t *doc = sk_yaml_load(text, len, err), *rules, *r;
	const char *kind, *av;
	size_t i;

	if (!doc)
		return NULL;
	kind = json_string_value(json_object_get(doc, "kind"));
	av = json_string_value(json_object_get(doc, "apiVersion"));
	rules = json_object_get(doc, "rules");
	if (!json_is_object(doc) || !kind || strcmp(kind, "Policy") || !av ||
	    (strcmp(av, "audit.k8s.io/v1") && strcmp(av, "audit.k8s.io/v1beta1"))) {
		sk_error_set(err, SK_EBADREQUEST, "not an audit.k8s.io/v1 Policy");
		goto fail;
	}
	if (!json_is_array(rules) || !json_array_size(rules)) {
		sk_error_set(err, SK_EBADREQUEST, "rules: Required value: at least one rule");
		goto fail;
	}
	if (check_strings(json_object_get(doc, "omitStages"), "omitStages", stages, err) < 0)
		goto fail;
	json_array_foreach(rules, i, r)
		if (check_rule(r, i, err) < 0)
			goto fail;
	return doc;
fail:
	json_decref(doc);
	return NULL;
}

static int has(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (s && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* upstream's pathMatches: "*", exact, or a prefix ending in '*' */
static int path_matches(const char *path, const char *spec)
{
	size_t n = strlen(spec);

	if (!strcmp(spec, "*") || !strcmp(spec, path))
		return 1;
	return n && spec[n - 1] == '*' && !strncmp(path, spec, n - 1);
}

static int resource_matches(json_t *r, const sk_audit_attrs *a)
{
	json_t *grs = json_object_get(r, "resources"), *gr, *res;
	size_t i, j;

	if (!a->resource_request)
		return 0;
	if (json_array_size(json_object_get(r, "namespaces")) && !has(json_object_get(r, "namespaces"), a->ns))
		return 0;
	if (!json_array_size(grs))
		return 1;
	json_array_foreach(grs, i, gr) {
		const char *g = json_string_value(json_object_get(gr, "group"));
		json_t *names = json_object_get(gr, "resourceNames");

		if (strcmp(g ? g : "", a->group))
			continue;
		if (!json_array_size(json_object_get(gr, "resources")))
			return 1;
		if (json_array_size(names) && !has(names, a->name))
			continue;
		json_array_foreach(json_object_get(gr, "resources"), j, res) {
			const char *s = json_string_value(res);
			size_t n = strlen(s);

			if (!strcmp(s, "*") || (!*a->subresource && !strcmp(s, a->resource)))
				return 1;
			if (*a->subresource && !strncmp(s, a->resource, strlen(a->resource)) &&
			    s[strlen(a->resource)] == '/' && !strcmp(s + strlen(a->resource) + 1, a->subresource))
				return 1;
			if (*a->subresource && !strncmp(s, "*/", 2) && !strcmp(s + 2, a->subresource))
				return 1;
			if (n > 2 && !strcmp(s + n - 2, "/*") && strlen(a->resource) == n - 2 &&
			    !strncmp(s, a->resource, n - 2))
				return 1;
		}
	}
	return 0;
}

static int rule_matches(json_t *r, const sk_audit_attrs *a)
{
	json_t *v;
	size_t i;

	if (json_array_size(v = json_object_get(r, "users")) && (!a->user || !has(v, a->user->name)))
		return 0;
	if (json_array_size(v = json_object_get(r, "userGroups"))) {
		int any = 0;

		for (i = 0; a->user && i < a->user->ngroups && !any; i++)
			any = has(v, a->user->groups[i]);
		if (!any)
			return 0;
	}
	if (json_array_size(v = json_object_get(r, "verbs")) && !has(v, a->verb))
		return 0;
	if (json_array_size(json_object_get(r, "namespaces")) || json_array_size(json_object_get(r, "resources")))
		return resource_matches(r, a);
	if (json_array_size(v = json_object_get(r, "nonResourceURLs"))) {
		json_t *spec;

		if (a->resource_request)
			return 0;
		json_array_foreach(v, i, spec)
			if (path_matches(a->path, json_string_value(spec)))
				return 1;
		return 0;
	}
	return 1;
}

static unsigned stage_mask(json_t *list)
{
	unsigned m = 0;
	size_t i;
	json_t *s;

	json_array_foreach(list, i, s)
		for (int j = 0; stages[j]; j++)
			if (!strcmp(stages[j], json_string_value(s)))
				m |= 1u << j;
	return m;
}

enum sk_audit_level sk_audit_policy_level(json_t *policy, const sk_audit_attrs *a, unsigned *omit)
{
	size_t i;
	json_t *r;

	*omit = 0;
	if (!policy) {
		/* no policy file: every request at Metadata */
		return SK_AUDIT_METADATA;
	}
	json_array_foreach(json_object_get(policy, "rules"), i, r) {
		const char *lv = json_string_value(json_object_get(r, "level"));

		if (!rule_matches(r, a))
			continue;
		*omit = stage_mask(json_object_get(policy, "omitStages")) |
			stage_mask(json_object_get(r, "omitStages"));
		for (int k = 0; levels[k]; k++)
			if (!strcmp(levels[k], lv))
				return (enum sk_audit_level)k;
	}
	return SK_AUDIT_NONE;
}

/* ---- the writer ---- */

static void rotated_name(sk_audit *a, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char t[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H-%M-%S", &tm);
	/* lumberjack's backup names: name-2006-01-02T15-04-05.000.ext */
	snprintf(buf, len, "%s/%s-%s.%03ld%s", a->dir, a->base, t, ts.tv_nsec / 1000000, a->ext);
}

static int older_backup(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* Drops the oldest backups past max_backups. */
static void prune_backups(sk_audit *a)
{
	cleanup_free char *prefix = xasprintf("%s-", a->base);
	char **names = NULL;
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	if (a->max_backups <= 0 || !(d = opendir(a->dir)))
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), el = strlen(a->ext);

		if (!strncmp(e->d_name, prefix, strlen(prefix)) && l > el && !strcmp(e->d_name + l - el, a->ext)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), older_backup);
	for (size_t i = 0; i < n; i++) {
		if (i + (size_t)a->max_backups < n) {
			cleanup_free char *p = xasprintf("%s/%s", a->dir, names[i]);

			unlink(p);
		}
		free(names[i]);
	}
	free(names);
}

static int open_log(sk_audit *a, sk_error_t *err)
{
	struct stat st;

	if (!strcmp(a->path, "-")) {
		a->fd = STDOUT_FILENO;
		return 0;
	}
	a->fd = open(a->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (a->fd < 0)
		return sk_error_errno(err, errno, "audit log \"%s\"", a->path);
	a->size = fstat(a->fd, &st) == 0 ? st.st_size : 0;
	return 0;
}

static void rotate(sk_audit *a)
{
	char name[4096];
	sk_error_t err = {0};

	rotated_name(a, name, sizeof(name));
	close(a->fd);
	if (rename(a->path, name) < 0)
		sk_warn("audit", "rotating \"%s\": %s", a->path, strerror(errno));
	if (open_log(a, &err) < 0) {
		sk_warn("audit", "%s", err.msg);
		a->fd = -1;
	}
	prune_backups(a);
}

static void write_all(sk_audit *a, const char *s, size_t n)
{
	while (n && a->fd >= 0) {
		ssize_t w = write(a->fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sk_warn("audit", "writing \"%s\": %s", a->path, w < 0 ? strerror(errno) : "short write");
			return;
		}
		s += w;
		n -= (size_t)w;
		a->size += w;
	}
}

static void *writer_main(void *arg)
{
	sk_audit *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct line *batch;

		while (!a->head && !a->stopping)
			pthread_cond_wait(&a->more, &a->mu);
		if (!a->head)
			break;
		batch = a->head;
		a->head = a->tail = NULL;
		a->n = 0;
		pthread_cond_broadcast(&a->room);
		pthread_mutex_unlock(&a->mu);
		while (batch) {
			struct line *l = batch;

			batch = l->next;
			write_all(a, l->text, strlen(l->text));
			if (a->max_size && a->size >= a->max_size && a->fd != STDOUT_FILENO)
				rotate(a);
			free(l->text);
			free(l);
		}
		pthread_mutex_lock(&a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

void sk__audit_write(sk_audit *a, char *line)
{
	struct line *l = xzalloc(sizeof(*l));

	l->text = line;
	pthread_mutex_lock(&a->mu);
	while (a->n >= a->max && !a->stopping)
		pthread_cond_wait(&a->room, &a->mu);
	if (a->tail)
		a->tail->next = l;
	else
		a->head = l;
	a->tail = l;
	a->n++;
	pthread_cond_signal(&a->more);
	pthread_mutex_unlock(&a->mu);
}

json_t *sk__audit_policy(sk_audit *a) { return a->policy; }

static void split_path(sk_audit *a)
{
	const char *slash = strrchr(a->path, '/');
	const char *file = slash ? slash + 1 : a->path;
	const char *dot = strrchr(file, '.');

	a->dir = slash ? xstrndup(a->path, (size_t)(slash - a->path)) : xstrdup(".");
	if (!*a->dir) {
		free(a->dir);
		a->dir = xstrdup("/");
	}
	a->base = dot && dot != file ? xstrndup(file, (size_t)(dot - file)) : xstrdup(file);
	a->ext = xstrdup(dot && dot != file ? dot : "");
}

sk_audit *sk_audit_open(const sk_audit_options *o, sk_error_t *err)
{
	sk_audit *a = xzalloc(sizeof(*a));

	a->path = xstrdup(o->log_path);
	a->fd = -1;
	a->max = o->queue_max ? o->queue_max : 10000;
	a->max_size = (int64_t)o->max_size_mb * 1024 * 1024;
	a->max_backups = o->max_backups;
	split_path(a);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->more, NULL);
	pthread_cond_init(&a->room, NULL);
	if (o->policy_path) {
		size_t len;
		cleanup_free char *text = sk_read_file(o->policy_path, &len);

		if (!text) {
			sk_error_errno(err, errno, "audit policy \"%s\"", o->policy_path);
			goto fail;
		}
		a->policy = sk_audit_policy_parse(text, len, err);
		if (!a->policy) {
			sk_error_wrap(err, "audit policy \"%s\"", o->policy_path);
			goto fail;
		}
	}
	if (open_log(a, err) < 0)
		goto fail;
	if (pthread_create(&a->writer, NULL, writer_main, a) != 0) {
		sk_error_set(err, SK_EINTERNAL, "audit log: cannot start its writer");
		goto fail;
	}
	a->writer_started = 1;
	return a;
fail:
	sk_audit_close(a);
	return NULL;
}

void sk_audit_close(sk_audit *a)
{
	if (!a)
		return;
	if (a->writer_started) {
		pthread_mutex_lock(&a->mu);
		a->stopping = 1;
		pthread_cond_broadcast(&a->more);
		pthread_cond_broadcast(&a->room);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->writer, NULL);
	}
	if (a->fd > STDOUT_FILENO)
		close(a->fd);
	json_decref(a->policy);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->more);
	pthread_cond_destroy(&a->room);
	free(a->path);
	free(a->dir);
	free(a->base);
	free(a->ext);
	free(a);
}
