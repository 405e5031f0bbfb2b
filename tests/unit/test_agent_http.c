/* The libcurl transport of sk_client against the real HTTPS API server on a
 * loopback port: kubeconfig loading with CA verification, CRUD with Status
 * errors mapped to SK_E* codes, patches, raw GETs and a streaming watch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "api/api.h"
#include "api/http.h"
#include "api/tls.h"
#include "client/client.h"
#include "store/store.h"
#include "util/util.h"

struct env {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_http *http;
	sk_tls_files tls;
	sk_client *c;
	int port;
};

static int free_port(void)
{
	struct sockaddr_in sa = {0};
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sa.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static int setup(void **state)
{
	struct env *e = xzalloc(sizeof(*e));
	cleanup_free char *uri = NULL, *kc = NULL;
	sk_http_options ho = {0};
	sk_error_t err = {0};
	int port = free_port();

	e->port = port;
	snprintf(e->dir, sizeof(e->dir), "/tmp/sk-http-test-XXXXXX");
	if (!mkdtemp(e->dir))
		return -1;
	uri = xasprintf("sqlite://%s", e->dir);
	e->store = sk_store_open(uri, NULL, &err);
	e->api = e->store ? sk_api_new(e->store, NULL, &err) : NULL;
	if (!e->api || sk_tls_setup(&e->tls, e->dir, "127.0.0.1", port, NULL, &err) < 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	ho.host = "127.0.0.1";
	ho.port = port;
	ho.cert_pem = e->tls.cert_pem;
	ho.key_pem = e->tls.key_pem;
	ho.admin_token = e->tls.admin_token;
	ho.node_token = e->tls.node_token;
	e->http = sk_http_start(e->api, &ho, &err);
	kc = xasprintf("%s/kubeconfig", e->dir);
	e->c = e->http ? sk_client_new_kubeconfig(kc, &err) : NULL;
	if (!e->c) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	cleanup_free char *cmd = xasprintf("rm -rf %s", e->dir);

	sk_client_free(e->c);
	sk_api_shutdown(e->api);
	sk_http_stop(e->http);
	sk_api_free(e->api);
	sk_store_close(e->store);
	sk_tls_files_release(&e->tls);
	free(e);
	return system(cmd) == 0 ? 0 : -1;
}

static json_t *parse(const char *s)
{
	json_t *j = json_loads(s, 0, NULL);

	assert_non_null(j);
	return j;
}

static void test_crud_and_errors(void **state)
{
	struct env *e = *state;
	cleanup_json json_t *cm = parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\"}}");
	cleanup_json json_t *patch = parse("{\"data\":{\"k\":\"w\"}}");
	cleanup_json json_t *r = NULL, *again = NULL, *got = NULL, *patched = NULL, *missing = NULL, *list = NULL;
	sk_error_t err = {0};

	r = sk_client_create(e->c, "/api/v1/namespaces/default/configmaps", cm, &err);
	assert_non_null(r);
	again = sk_client_create(e->c, "/api/v1/namespaces/default/configmaps", cm, &err);
	assert_null(again);
	assert_int_equal(err.code, SK_EEXISTS);
	assert_string_equal(err.msg, "configmaps \"a\" already exists");
	got = sk_client_get(e->c, "/api/v1/namespaces/default/configmaps/a", &err);
	assert_string_equal(json_string_value(json_object_get(json_object_get(got, "data"), "k")), "v");
	patched = sk_client_patch(e->c, "/api/v1/namespaces/default/configmaps/a", SK_PATCH_MERGE, patch, &err);
	assert_non_null(patched);
	assert_string_equal(json_string_value(json_object_get(json_object_get(patched, "data"), "k")), "w");
	list = sk_client_list(e->c, "/api/v1/namespaces/default/configmaps", "limit=10", &err);
	assert_true(json_array_size(json_object_get(list, "items")) >= 1);
	assert_int_equal(sk_client_delete(e->c, "/api/v1/namespaces/default/configmaps/a", NULL, &err), 0);
	sk_error_clear(&err);
	missing = sk_client_get(e->c, "/api/v1/namespaces/default/configmaps/a", &err);
	assert_null(missing);
	assert_int_equal(err.code, SK_ENOTFOUND);
}

static void test_raw_get(void **state)
{
	struct env *e = *state;
	sk_error_t err = {0};
	size_t len = 0;
	cleanup_free char *body = sk_client_get_raw(e->c, "/version", NULL, &len, &err);

	assert_non_null(body);
	assert_true(len > 0);
	assert_non_null(strstr(body, "gitVersion"));
}

struct seen {
	pthread_mutex_t mu;
	int added;
	char last_type[16];
};

static int on_event(const char *type, json_t *obj, void *ud)
{
	struct seen *s = ud;

	pthread_mutex_lock(&s->mu);
	snprintf(s->last_type, sizeof(s->last_type), "%s", type);
	if (!strcmp(type, "ADDED") && obj)
		s->added++;
	pthread_mutex_unlock(&s->mu);
	return 0;
}

static void test_watch(void **state)
{
	struct env *e = *state;
	struct seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
	sk_error_t err = {0};
	sk_client_watch *w = sk_client_watch_start(e->c, "/api/v1/namespaces/default/configmaps", "resourceVersion=0",
						   on_event, &s, &err);
	struct timespec ts = {0, 50 * 1000000};
	int added = 0;

	assert_non_null(w);
	for (int i = 0; i < 3; i++) {
		char doc[160];
		cleanup_json json_t *obj = NULL, *r = NULL;

		snprintf(doc, sizeof(doc), "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w%d\"}}", i);
		obj = parse(doc);
		r = sk_client_create(e->c, "/api/v1/namespaces/default/configmaps", obj, &err);
		assert_non_null(r);
	}
	for (int i = 0; i < 200 && added < 3; i++) {
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&s.mu);
		added = s.added;
		pthread_mutex_unlock(&s.mu);
	}
	sk_client_watch_stop(w);
	assert_int_equal(added, 3);
}

static void test_bad_token(void **state)
{
	struct env *e = *state;
	sk_error_t err = {0};
	sk_client *c = sk_client_new_http("https://127.0.0.1:1", "x", NULL, &err);
	cleanup_json json_t *r = NULL;

	assert_non_null(c);
	r = sk_client_get(c, "/api/v1/namespaces", &err);
	assert_null(r);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	sk_client_free(c);
	assert_null(sk_client_new_http("http://insecure", "x", NULL, &err));
	(void)e;
}

/* --server URL1,URL2: a server that refuses the connection is left for the
 * next, and the request (a GET, and a write that never left) is sent there. */
static void test_server_list(void **state)
{
	struct env *e = *state;
	sk_error_t err = {0};
	cleanup_free char *list = xasprintf("https://127.0.0.1:1/,https://127.0.0.1:%d", e->port);
	sk_client *c = sk_client_new_http(list, e->tls.admin_token, e->tls.ca_pem, &err);
	cleanup_json json_t *r = NULL, *cm = parse("{\"metadata\":{\"name\":\"failover\"}}"), *w = NULL;

	assert_non_null(c);
	r = sk_client_get(c, "/api/v1/namespaces/default", &err);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "metadata"), "name")), "default");
	w = sk_client_create(c, "/api/v1/namespaces/default/configmaps", cm, &err);
	assert_non_null(w);
	sk_client_free(c);
	/* the first refuses and the second answers: a write goes through too */
	c = sk_client_new_http(list, e->tls.admin_token, e->tls.ca_pem, &err);
	json_decref(w);
	json_object_set_new(json_object_get(cm, "metadata"), "name", json_string("failover2"));
	w = sk_client_create(c, "/api/v1/namespaces/default/configmaps", cm, &err);
	assert_non_null(w);
	sk_client_free(c);
	assert_null(sk_client_new_http("https://a:1,,https://b:2", "x", NULL, &err));
	assert_string_equal(err.msg,
			    "server \"https://a:1,,https://b:2\": want https://HOST:PORT[,https://HOST:PORT...]");
	assert_null(sk_client_new_http("https://a:1,http://b:2", "x", NULL, &err));
	assert_null(sk_client_new_http("https://a:1,", "x", NULL, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_crud_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_list, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
