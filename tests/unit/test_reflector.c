/* The reflector (client/reflector.h) against a scripted transport: the
 * initial list then events, a watch started again from the last
 * resourceVersion when one closes, bookmarks advancing it, a relist after
 * 410 Expired and after a watch that closed at once, a collection not
 * served, paged lists (and a full list when the continue token expired), a
 * stop while a watch or a backoff is waiting; then against the real API
 * server in process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "client/client-int.h"
#include "client/reflector.h"
#include "store/store.h"
#include "util/util.h"

/* ---- the scripted transport ---- */

struct fevent {
	struct fevent *next;
	char *type;
	json_t *obj; /* NULL with ERROR: the stream closed */
};

struct fwatch {
	const struct sk_client_ops *ops; /* first, see sk_client_watch_stop */
	sk_client_watch_cb cb;
	void *ud;
	pthread_t th;
	struct fevent *head, *tail;
	int stop, done;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	json_t *items; /* the collection */
	char rv[32];   /* its resourceVersion */
	int expire_continue;
	int fail_lists; /* this many lists fail with 500 */
	int fail_code;  /* … or with this code */
	json_t *list_queries, *watch_queries;
	struct fwatch *cur; /* the latest watch */
	int active;         /* watches not yet stopped */
} F;

static const struct sk_client_ops fake_ops;

static const char *qarg(const char *query, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = query; p && *p;) {
		size_t n = strcspn(p, "&");

		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return buf;
		}
		p += n + (p[n] == '&');
	}
	return NULL;
}

/* Lists honour limit; the continue token is "o+/=N" (N: the next offset),
 * so it only arrives intact when the reflector escapes it. */
static json_t *fake_request(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
			    const char *ctype, sk_error_t *err)
{
	char lim[16], cont[64];
	size_t off = 0, n;
	json_t *list, *items;

	pthread_mutex_lock(&F.mu);
	json_array_append_new(F.list_queries, json_string(query ? query : ""));
	if (F.fail_lists > 0) {
		F.fail_lists--;
		pthread_mutex_unlock(&F.mu);
		sk_error_set(err, F.fail_code ? F.fail_code : SK_EINTERNAL, "scripted failure");
		return NULL;
	}
	if (qarg(query, "continue", cont, sizeof(cont))) {
		if (F.expire_continue) {
			F.expire_continue = 0;
			pthread_mutex_unlock(&F.mu);
			sk_error_set(err, SK_EGONE, "The provided continue parameter is too old");
			return NULL;
		}
		/* an unescaped token lists nothing more */
		off = strncmp(cont, "o%2B%2F%3D", 10) ? json_array_size(F.items) : strtoul(cont + 10, NULL, 10);
	}
	n = json_array_size(F.items) - off;
	if (qarg(query, "limit", lim, sizeof(lim)) && (size_t)atoi(lim) < n)
		n = (size_t)atoi(lim);
	items = json_array();
	for (size_t i = off; i < off + n; i++)
		json_array_append(items, json_array_get(F.items, i));
	list = json_pack("{s:{s:s}, s:o}", "metadata", "resourceVersion", F.rv, "items", items);
	if (off + n < json_array_size(F.items))
		json_object_set_new(json_object_get(list, "metadata"), "continue", json_sprintf("o+/=%zu", off + n));
	pthread_mutex_unlock(&F.mu);
	return list;
}

static void *fwatch_main(void *arg)
{
	struct fwatch *w = arg;

	pthread_mutex_lock(&F.mu);
	for (;;) {
		struct fevent *e;
		int end;

		while (!w->head && !w->stop)
			pthread_cond_wait(&F.cv, &F.mu);
		if (w->stop)
			break;
		e = w->head;
		w->head = e->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&F.mu);
		end = w->cb(e->type, e->obj, w->ud) != 0 || !strcmp(e->type, "ERROR");
		free(e->type);
		json_decref(e->obj);
		free(e);
		pthread_mutex_lock(&F.mu);
		if (end)
			break;
	}
	w->done = 1;
	pthread_mutex_unlock(&F.mu);
	return NULL;
}

static sk_client_watch *fake_watch(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb, void *ud,
				   sk_error_t *err)
{
	struct fwatch *w = xzalloc(sizeof(*w));

	w->ops = &fake_ops;
	w->cb = cb;
	w->ud = ud;
	pthread_mutex_lock(&F.mu);
	json_array_append_new(F.watch_queries, json_string(query));
	F.cur = w;
	F.active++;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
	pthread_create(&w->th, NULL, fwatch_main, w);
	return (sk_client_watch *)w;
}

static void fake_watch_stop(sk_client_watch *cw)
{
	struct fwatch *w = (struct fwatch *)cw;

	pthread_mutex_lock(&F.mu);
	w->stop = 1;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
	pthread_join(w->th, NULL);
	pthread_mutex_lock(&F.mu);
	while (w->head) {
		struct fevent *e = w->head;

		w->head = e->next;
		free(e->type);
		json_decref(e->obj);
		free(e);
	}
	if (F.cur == w)
		F.cur = NULL;
	F.active--;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
	free(w);
}

static void fake_free(sk_client *c) { free(c); }

static const struct sk_client_ops fake_ops = {
	.request = fake_request,
	.watch = fake_watch,
	.watch_stop = fake_watch_stop,
	.free = fake_free,
};

static json_t *obj(const char *name, const char *rv)
{
	return json_pack("{s:s, s:{s:s, s:s, s:s}}", "kind", "ConfigMap", "metadata", "name", name, "namespace",
			 "default", "resourceVersion", rv);
}

/* Queues an event on the latest watch (obj is stolen; type ERROR with
 * NULL: the stream closes). */
static void send_event(const char *type, json_t *o)
{
	struct fevent *e = xzalloc(sizeof(*e));

	e->type = xstrdup(type);
	e->obj = o;
	pthread_mutex_lock(&F.mu);
	assert_non_null(F.cur);
	if (F.cur->tail)
		F.cur->tail->next = e;
	else
		F.cur->head = e;
	F.cur->tail = e;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
}

/* Waits (10 s at most, as a guard) until *counter reaches n under F.mu. */
static void wait_count(const int *counter, int n)
{
	struct timespec ts;

	sk_deadline_after_ms(&ts, 10000);
	pthread_mutex_lock(&F.mu);
	while (*counter < n)
		if (pthread_cond_timedwait(&F.cv, &F.mu, &ts) != 0)
			break;
	pthread_mutex_unlock(&F.mu);
	assert_true(*counter >= n);
}

static int nwatches, nlists; /* under F.mu: counts of watch and list calls */

static void refresh_counts(void)
{
	nwatches = (int)json_array_size(F.watch_queries);
	nlists = (int)json_array_size(F.list_queries);
}

static void wait_watches(int n)
{
	struct timespec ts;

	sk_deadline_after_ms(&ts, 10000);
	pthread_mutex_lock(&F.mu);
	refresh_counts();
	while (nwatches < n && pthread_cond_timedwait(&F.cv, &F.mu, &ts) == 0)
		refresh_counts();
	pthread_mutex_unlock(&F.mu);
	assert_int_equal(nwatches >= n ? n : nwatches, n);
}

static const char *watch_query(int i) { return json_string_value(json_array_get(F.watch_queries, i)); }
static const char *list_query(int i) { return json_string_value(json_array_get(F.list_queries, i)); }

/* ---- what the handlers saw ---- */

static struct {
	int replaces, events;
	char rv[32];        /* of the last replace */
	json_t *last_items; /* of the last replace */
	json_t *log;        /* "TYPE name" per event */
	int list_failures;
} H;

static void on_replace(void *ud, json_t *items, const char *rv)
{
	pthread_mutex_lock(&F.mu);
	json_decref(H.last_items);
	H.last_items = json_incref(items);
	snprintf(H.rv, sizeof(H.rv), "%s", rv);
	H.replaces++;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
}

static void on_event(void *ud, const char *type, json_t *o)
{
	const char *name = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));

	pthread_mutex_lock(&F.mu);
	json_array_append_new(H.log, json_sprintf("%s %s", type, name));
	H.events++;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
}

static void on_list_failed(void *ud, const sk_error_t *err)
{
	pthread_mutex_lock(&F.mu);
	H.list_failures++;
	pthread_cond_broadcast(&F.cv);
	pthread_mutex_unlock(&F.mu);
}

static sk_client *client;
static sk_reflector *R; /* the test's reflector: teardown stops it after a failed assert */

static void free_reflector(void)
{
	sk_reflector_free(R);
	R = NULL;
}

static int setup(void **state)
{
	pthread_mutex_init(&F.mu, NULL);
	pthread_cond_init(&F.cv, NULL);
	F.items = json_pack("[o, o]", obj("a", "4"), obj("b", "7"));
	snprintf(F.rv, sizeof(F.rv), "10");
	F.expire_continue = F.fail_lists = F.fail_code = 0;
	F.list_queries = json_array();
	F.watch_queries = json_array();
	F.cur = NULL;
	F.active = 0;
	memset(&H, 0, sizeof(H));
	H.log = json_array();
	client = xzalloc(sizeof(*client));
	client->ops = &fake_ops;
	return 0;
}

static int teardown(void **state)
{
	free_reflector();
	sk_client_free(client);
	json_decref(F.items);
	json_decref(F.list_queries);
	json_decref(F.watch_queries);
	json_decref(H.last_items);
	json_decref(H.log);
	pthread_mutex_destroy(&F.mu);
	pthread_cond_destroy(&F.cv);
	return 0;
}

static void start(int page_size)
{
	sk_reflector_options o = {
		.path = "/api/v1/configmaps",
		.selectors = "labelSelector=app%3Dweb",
		.page_size = page_size,
		.component = "test",
		.replace = on_replace,
		.event = on_event,
		.list_failed = on_list_failed,
		.backoff_initial_ms = 5,
		.backoff_max_ms = 20,
	};
	sk_error_t err = {0};

	R = sk_reflector_new(client, &o);
	assert_int_equal(sk_reflector_start(R, &err), 0);
}

static const char *log_at(int i) { return json_string_value(json_array_get(H.log, i)); }

static void assert_last_rv(sk_reflector *r, const char *want)
{
	char rv[32];

	sk_reflector_last_rv(r, rv, sizeof(rv));
	assert_string_equal(rv, want);
}

/* ---- tests ---- */

static void test_list_then_events(void **state)
{
	start(0);
	wait_watches(1);
	assert_int_equal(H.replaces, 1);
	assert_int_equal(json_array_size(H.last_items), 2);
	assert_string_equal(H.rv, "10");
	assert_string_equal(list_query(0), "labelSelector=app%3Dweb");
	assert_non_null(strstr(watch_query(0), "labelSelector=app%3Dweb&resourceVersion=10&allowWatchBookmarks=true"));
	assert_non_null(strstr(watch_query(0), "&timeoutSeconds="));
	send_event("ADDED", obj("c", "11"));
	send_event("MODIFIED", obj("a", "12"));
	send_event("DELETED", obj("b", "13"));
	wait_count(&H.events, 3);
	assert_string_equal(log_at(0), "ADDED c");
	assert_string_equal(log_at(1), "MODIFIED a");
	assert_string_equal(log_at(2), "DELETED b");
	assert_last_rv(R, "13");
	free_reflector();
	assert_int_equal(F.active, 0);
}

static void test_rewatch_from_last_rv(void **state)
{
	start(0);
	wait_watches(1);
	send_event("MODIFIED", obj("a", "12"));
	wait_count(&H.events, 1);
	send_event("ERROR", NULL); /* the stream closed (timeoutSeconds) */
	wait_watches(2);
	assert_non_null(strstr(watch_query(1), "&resourceVersion=12&"));
	assert_int_equal(H.replaces, 1); /* no relist */
	assert_int_equal(json_array_size(F.list_queries), 1);
	free_reflector();
	assert_int_equal(F.active, 0);
}

static void test_bookmark_advances_rv(void **state)
{
	start(0);
	wait_watches(1);
	send_event("BOOKMARK", json_pack("{s:s, s:{s:s}}", "kind", "ConfigMap", "metadata", "resourceVersion", "20"));
	send_event("ADDED", obj("c", "21"));
	wait_count(&H.events, 1);
	assert_string_equal(log_at(0), "ADDED c"); /* the bookmark is not an event */
	send_event("BOOKMARK", json_pack("{s:s, s:{s:s}}", "kind", "ConfigMap", "metadata", "resourceVersion", "25"));
	send_event("ERROR", NULL);
	wait_watches(2);
	assert_non_null(strstr(watch_query(1), "&resourceVersion=25&"));
	assert_int_equal(H.events, 1);
	assert_int_equal(H.replaces, 1);
	free_reflector();
}

/* A server out of reach (the HTTPS transport's 503 for a refused or
 * broken connection), even at once and before any event, and a 429: back
 * off and watch again from the last resourceVersion (at another server),
 * never relist, as client-go's reflector. */
static void test_unreachable_server_rewatches_without_relist(void **state)
{
	start(0);
	wait_watches(1);
	send_event("ERROR", json_pack("{s:s, s:s, s:s, s:i}", "kind", "Status", "reason", "ServiceUnavailable",
				      "message", "Couldn't connect to server", "code", 503));
	wait_watches(2);
	assert_non_null(strstr(watch_query(1), "&resourceVersion=10&"));
	send_event("MODIFIED", obj("a", "13"));
	wait_count(&H.events, 1);
	send_event("ERROR", json_pack("{s:s, s:s, s:i}", "kind", "Status", "reason", "TooManyRequests", "code", 429));
	wait_watches(3);
	assert_non_null(strstr(watch_query(2), "&resourceVersion=13&"));
	assert_int_equal(H.replaces, 1);
	assert_int_equal(json_array_size(F.list_queries), 1);
	free_reflector();
	assert_int_equal(F.active, 0);
}

static void test_relist_after_410(void **state)
{
	start(0);
	wait_watches(1);
	send_event("MODIFIED", obj("a", "12"));
	wait_count(&H.events, 1);
	pthread_mutex_lock(&F.mu);
	json_array_append_new(F.items, obj("d", "29"));
	snprintf(F.rv, sizeof(F.rv), "30");
	pthread_mutex_unlock(&F.mu);
	send_event("ERROR", json_pack("{s:s, s:s, s:s, s:s, s:i}", "kind", "Status", "status", "Failure", "message",
				      "too old resource version: 12 (20)", "reason", "Expired", "code", 410));
	wait_count(&H.replaces, 2);
	assert_int_equal(json_array_size(H.last_items), 3);
	assert_string_equal(H.rv, "30");
	wait_watches(2);
	assert_non_null(strstr(watch_query(1), "&resourceVersion=30&"));
	free_reflector();
	assert_int_equal(F.active, 0);
}

/* A watch that closes at once without an event (a server going away) is a
 * failure: back off and list again, as client-go's "very short watch". */
static void test_short_watch_relists(void **state)
{
	start(0);
	wait_watches(1);
	send_event("ERROR", NULL);
	wait_count(&H.replaces, 2);
	wait_watches(2);
	free_reflector();
}

static void test_failed_list_backs_off_and_retries(void **state)
{
	F.fail_lists = 3;
	start(0);
	wait_watches(1);
	assert_int_equal(H.list_failures, 3);
	assert_int_equal(H.replaces, 1);
	assert_int_equal(json_array_size(F.list_queries), 4);
	free_reflector();
}

/* A collection the server does not serve is an empty one until it is. */
static void test_not_found_replaces_with_nothing(void **state)
{
	F.fail_lists = 1;
	F.fail_code = SK_ENOTFOUND;
	start(0);
	wait_watches(1);
	assert_int_equal(H.list_failures, 1);
	assert_int_equal(H.replaces, 2); /* the empty set, then the list */
	assert_int_equal(json_array_size(H.last_items), 2);
	free_reflector();
}

static void test_paged_list(void **state)
{
	for (int i = 0; i < 3; i++)
		json_array_append_new(F.items, obj((const char *[]){"c", "d", "e"}[i], "8"));
	start(2);
	wait_watches(1);
	assert_int_equal(json_array_size(H.last_items), 5);
	assert_int_equal(json_array_size(F.list_queries), 3);
	assert_string_equal(list_query(0), "labelSelector=app%3Dweb&limit=2");
	assert_string_equal(list_query(1), "labelSelector=app%3Dweb&limit=2&continue=o%2B%2F%3D2");
	assert_string_equal(list_query(2), "labelSelector=app%3Dweb&limit=2&continue=o%2B%2F%3D4");
	free_reflector();
}

static void test_expired_continue_lists_in_full(void **state)
{
	for (int i = 0; i < 3; i++)
		json_array_append_new(F.items, obj((const char *[]){"c", "d", "e"}[i], "8"));
	F.expire_continue = 1;
	start(2);
	wait_watches(1);
	assert_int_equal(H.replaces, 1);
	assert_int_equal(json_array_size(H.last_items), 5);
	assert_int_equal(json_array_size(F.list_queries), 3);
	assert_string_equal(list_query(2), "labelSelector=app%3Dweb");
	assert_int_equal(H.list_failures, 0);
	free_reflector();
}

static void test_stop_while_watching(void **state)
{
	start(0);
	wait_watches(1);
	sk_reflector_stop(R); /* the watch sends nothing: the stop must not wait for it */
	assert_int_equal(F.active, 0);
	sk_reflector_stop(R);
	free_reflector();
}

static void test_stop_while_backing_off(void **state)
{
	sk_reflector_options o = {
		.path = "/api/v1/configmaps",
		.component = "test",
		.replace = on_replace,
		.event = on_event,
		.list_failed = on_list_failed,
		.backoff_initial_ms = 600000,
	};
	sk_reflector *r = R = sk_reflector_new(client, &o);
	sk_error_t err = {0};

	F.fail_lists = 1;
	assert_int_equal(sk_reflector_start(r, &err), 0);
	wait_count(&H.list_failures, 1);
	free_reflector(); /* ten minutes of backoff left */
	assert_int_equal(H.replaces, 0);
	assert_int_equal(F.active, 0);
}

static void test_list_on_callers_thread(void **state)
{
	sk_reflector_options o = {
		.path = "/api/v1/configmaps",
		.component = "test",
		.replace = on_replace,
		.event = on_event,
	};
	sk_reflector *r = R = sk_reflector_new(client, &o);
	sk_error_t err = {0};

	assert_int_equal(sk_reflector_list(r, &err), 0);
	assert_int_equal(H.replaces, 1);
	assert_last_rv(r, "10");
	assert_int_equal(sk_reflector_start(r, &err), 0);
	wait_watches(1);
	assert_int_equal(H.replaces, 1); /* the thread watched from that list */
	assert_int_equal(json_array_size(F.list_queries), 1);
	free_reflector();

	F.fail_lists = 1;
	r = R = sk_reflector_new(client, &o);
	assert_int_equal(sk_reflector_list(r, &err), -1);
	assert_non_null(strstr(err.msg, "listing /api/v1/configmaps: scripted failure"));
	free_reflector();
}

/* ---- the real API server, in process ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

static json_t *create_cm(sk_client *c, const char *name)
{
	sk_error_t err = {0};
	cleanup_json json_t *body = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}}", "apiVersion", "v1", "kind", "ConfigMap",
					      "metadata", "name", name, "labels", "app", "web");
	json_t *r = sk_client_create(c, "/api/v1/namespaces/default/configmaps", body, &err);

	if (!r)
		fail_msg("create %s: %s", name, err.msg);
	return r;
}

static void test_inproc(void **state)
{
	char dir[] = "/tmp/sk-refl-XXXXXX", uri[64];
	sk_error_t err = {0};
	sk_store *store;
	sk_api *api;
	sk_client *c;
	sk_reflector *r;
	sk_reflector_options o = {
		.path = "/api/v1/namespaces/default/configmaps",
		.selectors = "labelSelector=app%3Dweb",
		.page_size = 1,
		.component = "test",
		.replace = on_replace,
		.event = on_event,
	};
	cleanup_json json_t *a = NULL, *b = NULL;
	const char *rv;

	assert_non_null(mkdtemp(dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", dir);
	store = sk_store_open(uri, NULL, &err);
	assert_non_null(store);
	api = sk_api_new(store, NULL, &err);
	assert_non_null(api);
	c = sk_client_new_inproc(api);
	json_decref(create_cm(c, "one"));
	json_decref(create_cm(c, "two"));
	r = R = sk_reflector_new(c, &o);
	assert_int_equal(sk_reflector_list(r, &err), 0);
	assert_int_equal(json_array_size(H.last_items), 2); /* two pages */
	assert_int_equal(sk_reflector_start(r, &err), 0);
	a = create_cm(c, "three");
	wait_count(&H.events, 1);
	assert_string_equal(log_at(0), "ADDED three");
	rv = json_string_value(json_object_get(json_object_get(a, "metadata"), "resourceVersion"));
	assert_last_rv(r, rv);
	assert_int_equal(sk_client_delete(c, "/api/v1/namespaces/default/configmaps/one", NULL, &err), 0);
	wait_count(&H.events, 2);
	assert_string_equal(log_at(1), "DELETED one");
	free_reflector();
	sk_client_free(c);
	sk_api_shutdown(api);
	sk_api_free(api);
	sk_store_close(store);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_then_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewatch_from_last_rv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bookmark_advances_rv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreachable_server_rewatches_without_relist, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relist_after_410, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_watch_relists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_list_backs_off_and_retries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found_replaces_with_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paged_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expired_continue_lists_in_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_while_watching, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_while_backing_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_on_callers_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inproc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
