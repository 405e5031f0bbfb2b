/* An HTTP watch's stream (sk_api_watch_read): events come out as
 * newline-terminated lines straight from the line every watcher of the
 * event shares, in pieces as small as the caller's buffer, byte for byte
 * the same for every watcher; an empty queue parks the consumer and the
 * next event wakes it once; a watch that ends returns -1 once drained. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "store/store.h"
#include "util/util.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int parks, wakes;

static void on_park(void *arg)
{
	(void)arg;
	parks++;
}

static void on_wake(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&wakes, 1, __ATOMIC_SEQ_CST);
}

static sk_api_watch *start_watch(sk_api *api, const char *rv)
{
	sk_api_arg args[] = {{"watch", "true"}, {"resourceVersion", rv}};
	sk_api_request req = {.method = "GET",
			      .path = "/api/v1/namespaces/default/configmaps",
			      .args = args,
			      .nargs = 2,
			      .user = sk_user_apiserver()};
	sk_api_response resp = {0};
	sk_api_watch *w;

	sk_api_handle(api, &req, &resp);
	assert_int_equal(resp.status, 200);
	assert_non_null(resp.watch);
	w = resp.watch;
	resp.watch = NULL;
	sk_api_response_release(&resp);
	sk_api_watch_set_waker(w, on_wake, NULL);
	return w;
}

static json_t *create_cm(sk_client *c, const char *name)
{
	sk_error_t err = {0};
	cleanup_json json_t *body = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
					      "metadata", "name", name, "data", "k", "a value long enough to split");
	json_t *r = sk_client_create(c, "/api/v1/namespaces/default/configmaps", body, &err);

	if (!r)
		fail_msg("create %s: %s", name, err.msg);
	return r;
}

/* Reads what is queued in pieces of at most step bytes. */
static char *drain(sk_api_watch *w, size_t step, size_t *len)
{
	char *out = NULL, buf[64];
	size_t n = 0;
	ssize_t k;

	assert_true(step <= sizeof(buf));
	while ((k = sk_api_watch_read(w, buf, step, on_park, NULL)) > 0) {
		assert_true((size_t)k <= step);
		out = xrealloc(out, n + (size_t)k + 1);
		memcpy(out + n, buf, (size_t)k);
		n += (size_t)k;
	}
	assert_int_equal(k, 0); /* parked: nothing more queued */
	if (out)
		out[n] = '\0';
	*len = n;
	return out;
}

static void check_line(const char *line, const char *type, const char *name)
{
	cleanup_json json_t *ev = json_loads(line, 0, NULL);

	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "type")), type);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(json_object_get(ev, "object"), "metadata"), "name")),
		name);
}

static void test_read_in_pieces(void **state)
{
	char dir[] = "/tmp/sk-wread-XXXXXX", uri[64], rv[32];
	sk_error_t err = {0};
	sk_store *store;
	sk_api *api;
	sk_client *c;
	sk_api_watch *w1, *w7, *w64;
	cleanup_json json_t *first = NULL;
	cleanup_free char *s1 = NULL, *s7 = NULL, *s64 = NULL;
	size_t n1, n7, n64;
	char buf[8];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", dir);
	store = sk_store_open(uri, NULL, &err);
	assert_non_null(store);
	api = sk_api_new(store, NULL, &err);
	assert_non_null(api);
	c = sk_client_new_inproc(api);
	first = create_cm(c, "zero");
	snprintf(rv, sizeof(rv), "%s",
		 json_string_value(json_object_get(json_object_get(first, "metadata"), "resourceVersion")));
	w1 = start_watch(api, rv);
	w7 = start_watch(api, rv);
	w64 = start_watch(api, rv);

	/* nothing yet: each parks once, and nothing wakes them */
	parks = 0;
	assert_int_equal(sk_api_watch_read(w1, buf, sizeof(buf), on_park, NULL), 0);
	assert_int_equal(sk_api_watch_read(w7, buf, sizeof(buf), on_park, NULL), 0);
	assert_int_equal(sk_api_watch_read(w64, buf, sizeof(buf), on_park, NULL), 0);
	assert_int_equal(parks, 3);
	assert_int_equal(__atomic_load_n(&wakes, __ATOMIC_SEQ_CST), 0);

	json_decref(create_cm(c, "one"));
	json_decref(create_cm(c, "two"));
	assert_int_equal(sk_client_delete(c, "/api/v1/namespaces/default/configmaps/one", NULL, &err), 0);
	/* the store delivers before the write returns: each parked watcher
	 * was woken exactly once for the burst */
	assert_int_equal(__atomic_load_n(&wakes, __ATOMIC_SEQ_CST), 3);

	s1 = drain(w1, 1, &n1);
	s7 = drain(w7, 7, &n7);
	s64 = drain(w64, 64, &n64);
	assert_non_null(s1);
	assert_int_equal(n1, n7);
	assert_int_equal(n1, n64);
	assert_memory_equal(s1, s7, n1);
	assert_memory_equal(s1, s64, n1);
	assert_int_equal(s1[n1 - 1], '\n');
	{
		char *l2 = strchr(s1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;

		assert_int_equal(strchr(l3, '\n') - s1, (ptrdiff_t)n1 - 1); /* three lines */
		l2[-1] = l3[-1] = s1[n1 - 1] = '\0';
		check_line(s1, "ADDED", "one");
		check_line(l2, "ADDED", "two");
		check_line(l3, "DELETED", "one");
	}

	/* the end of the watch: -1 once what is queued went out */
	json_decref(create_cm(c, "three"));
	sk_api_shutdown(api);
	{
		size_t n;
		cleanup_free char *rest = NULL;
		char b[64];
		ssize_t k;

		n = 0;
		while ((k = sk_api_watch_read(w1, b, sizeof(b), on_park, NULL)) > 0) {
			rest = xrealloc(rest, n + (size_t)k + 1);
			memcpy(rest + n, b, (size_t)k);
			n += (size_t)k;
		}
		assert_int_equal(k, -1);
		assert_non_null(rest);
		rest[n - 1] = '\0';
		check_line(rest, "ADDED", "three");
	}
	sk_api_watch_free(w1);
	sk_api_watch_free(w7);
	sk_api_watch_free(w64);
	sk_client_free(c);
	sk_api_free(api);
	sk_store_close(store);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_in_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
