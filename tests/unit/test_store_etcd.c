/* The etcd backend against a real etcd (Debian's etcd-server, started here
 * on free loopback ports with its data in a temporary directory, killed at
 * the end): the store conformance cases the SQLite backend passes, then
 * what is etcd's own (key layout, outages, its messages and gRPC statuses). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/etcd-int.h"
#include "store/store.h"
#include "util/error.h"
#include "util/util.h"

struct fx {
	char uri[96];
	sk_store *s;
};

#include "store_cases.h"

static struct {
	char dir[64];
	int client_port, peer_port;
	pid_t pid;
	int cases;
} etcd;

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

/* Starts etcd (again, on the same ports and data) and waits until it serves. */
static int etcd_start(void)
{
	char uri[64];

	etcd.pid = fork();
	if (etcd.pid < 0)
		return -1;
	if (etcd.pid == 0) {
		char data[96], client[64], peer[64], log[96], cluster[80];

		snprintf(data, sizeof(data), "%s/data", etcd.dir);
		snprintf(log, sizeof(log), "%s/etcd.log", etcd.dir);
		snprintf(client, sizeof(client), "http://127.0.0.1:%d", etcd.client_port);
		snprintf(peer, sizeof(peer), "http://127.0.0.1:%d", etcd.peer_port);
		snprintf(cluster, sizeof(cluster), "default=%s", peer);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* no etcd outlives a crashed test */
		if (!freopen(log, "a", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		execlp("etcd", "etcd", "--data-dir", data, "--listen-client-urls", client, "--advertise-client-urls",
		       client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster",
		       cluster, "--experimental-watch-progress-notify-interval", "200ms", (char *)NULL);
		_exit(127);
	}
	snprintf(uri, sizeof(uri), "etcd://127.0.0.1:%d", etcd.client_port);
	for (int i = 0; i < 300; i++) {
		sk_error_t err = {0};
		sk_store *s = sk_store_open(uri, NULL, &err);

		if (s) {
			sk_store_close(s);
			return 0;
		}
		usleep(50000);
	}
	return -1;
}

static void etcd_kill(void)
{
	if (etcd.pid > 0) {
		kill(etcd.pid, SIGKILL);
		waitpid(etcd.pid, NULL, 0);
	}
	etcd.pid = 0;
}

static int group_setup(void **state)
{
	snprintf(etcd.dir, sizeof(etcd.dir), "/tmp/skiff-etcd-XXXXXX");
	if (!mkdtemp(etcd.dir))
		return -1;
	etcd.client_port = free_port();
	etcd.peer_port = free_port();
	if (etcd.client_port < 0 || etcd.peer_port < 0 || etcd_start() < 0) {
		print_error("etcd did not start (is etcd-server installed? see %s/etcd.log)\n", etcd.dir);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	etcd_kill();
	nftw(etcd.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Each case gets a root of its own in the one etcd. */
static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));

	snprintf(f->uri, sizeof(f->uri), "etcd://127.0.0.1:%d/case%d", etcd.client_port, ++etcd.cases);
	f->s = open_store(f, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_store_close(f->s);
	free(f);
	return 0;
}

/* Keys keep upstream's layout under the root: ROOT + "/registry/pods/NS/NAME". */
static void test_key_layout(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_kv kv = {0};
	sk_store_list l = {0};
	char uri[96];
	sk_store *raw;
	int64_t rev = put(f->s, "/registry/pods/default/web", "{}");

	snprintf(uri, sizeof(uri), "etcd://127.0.0.1:%d", etcd.client_port);
	raw = sk_store_open(uri, NULL, &err);
	assert_non_null(raw);
	snprintf(uri, sizeof(uri), "/case%d/registry/pods/default/web", etcd.cases);
	assert_int_equal(sk_store_get(raw, uri, &kv, &err), 0);
	assert_string_equal(kv.value, "{}");
	assert_int_equal(kv.mod_rev, rev);
	sk_store_kv_release(&kv);
	/* a root is a whole path segment: /case1 does not list /case10 */
	snprintf(uri, sizeof(uri), "/case%d/", etcd.cases);
	assert_int_equal(sk_store_range(raw, uri, NULL, 0, 0, &l, &err), 0);
	assert_int_equal(l.n, 1);
	sk_store_list_release(&l);
	sk_store_close(raw);
}

/* etcd down: writes fail as upstream's "etcdserver: request timed out" (503);
 * back up: writes go on and a watcher registered before gets them, its
 * stream resumed from the last revision. */
static void test_outage(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_kv kv = {0};
	struct rec r;
	sk_store_watch *w;
	int64_t r1, r2;

	rec_init(&r);
	w = sk_store_watch_start(f->s, "/o/", 0, rec_cb, &r, &err);
	assert_non_null(w);
	r1 = put(f->s, "/o/a", "1");
	etcd_kill();
	assert_int_equal(sk_store_create(f->s, "/o/b", "2", 1, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_string_equal(err.msg, "etcdserver: request timed out");
	assert_int_equal(sk_store_update(f->s, "/o/a", "x", 1, r1, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	/* a consistent read cannot be had: sync fails; reads come from memory,
	 * as from upstream's watch cache */
	assert_int_equal(sk_store_sync(f->s, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_int_equal(sk_store_get(f->s, "/o/a", &kv, &err), 0);
	assert_int_equal(kv.mod_rev, r1);
	sk_store_kv_release(&kv);
	assert_int_equal(etcd_start(), 0);
	r2 = put(f->s, "/o/b", "2");
	assert_int_equal(sk_store_sync(f->s, &err), 0);
	assert_true(r2 > r1);
	sk_store_unwatch(f->s, w);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.evs[0].rev, r1);
	assert_int_equal(r.evs[1].rev, r2);
	assert_string_equal(r.evs[1].key, "/o/b");
	rec_release(&r);
}

static void test_unreachable(void **state)
{
	sk_error_t err = {0};
	char uri[64];

	snprintf(uri, sizeof(uri), "etcd://127.0.0.1:%d", free_port());
	assert_null(sk_store_open(uri, NULL, &err));
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "etcdserver: request timed out"));
	assert_null(sk_store_open("etcd://nohostport", NULL, &err));
	assert_int_equal(err.code, SK_EINVALID);
}

/* Two servers on one root, and a third store on another root: a list at
 * the current revision on one server right after a write on the other
 * holds the write (upstream's consistent list from the watch cache); a
 * write outside the root reaches a server only as etcd's progress
 * notifications, which advance the revision its watchers have seen (what
 * bookmarks carry) and that a list reports. A create, update or delete
 * that fails on a write made through the other server returns once that
 * write is in this server's memory. */
static void test_two_servers(void **state)
{
	struct fx *f = *state;
	sk_store *b = open_store(f, NULL), *other;
	sk_store_list l = {0};
	sk_error_t err = {0};
	char uri[112];
	int64_t r1, r2, deadline;

	for (int i = 0; i < 20; i++) {
		char key[64];

		snprintf(key, sizeof(key), "/registry/configmaps/default/cm%d", i);
		r1 = put(b, key, "{}");
		assert_int_equal(sk_store_range(f->s, "/registry/configmaps/", NULL, 0, SK_STORE_REV_FRESH, &l, &err), 0);
		assert_int_equal(l.n, (size_t)i + 1);
		assert_true(l.rev >= r1);
		sk_store_list_release(&l);
	}
	/* a write that fails on the other server's write returns once that
	 * write is in memory: what the API's retry of a write reads */
	for (int i = 0; i < 20; i++) {
		char key[64];
		sk_store_kv kv;

		snprintf(key, sizeof(key), "/registry/secrets/default/s%d", i);
		r1 = put(b, key, "{\"v\":1}");
		assert_int_equal(sk_store_create(f->s, key, "{}", 2, &err), -1);
		assert_int_equal(err.code, SK_EEXISTS);
		assert_int_equal(sk_store_get(f->s, key, &kv, &err), 0);
		assert_int_equal(kv.mod_rev, r1);
		sk_store_kv_release(&kv);
		r2 = sk_store_update(b, key, "{\"v\":2}", 7, r1, &err);
		assert_true(r2 > r1);
		assert_int_equal(sk_store_update(f->s, key, "{}", 2, r1, &err), -1);
		assert_int_equal(err.code, SK_ECONFLICT);
		assert_int_equal(sk_store_get(f->s, key, &kv, &err), 0);
		assert_int_equal(kv.mod_rev, r2);
		assert_string_equal(kv.value, "{\"v\":2}");
		sk_store_kv_release(&kv);
		r1 = sk_store_delete(b, key, r2, NULL, &err);
		assert_true(r1 > r2);
		assert_int_equal(sk_store_delete(f->s, key, r2, NULL, &err), -1);
		assert_int_equal(err.code, SK_ENOTFOUND);
		/* a key gone is reported without waiting for this server's watch
		 * (nothing retries it): the get reads memory once the watch has
		 * delivered the delete, which a loaded etcd may delay */
		deadline = sk_mono_ns() + 20 * 1000000000LL;
		while (sk_store_delivered_rev(f->s) < r1 && sk_mono_ns() < deadline)
			usleep(20000);
		assert_int_equal(sk_store_get(f->s, key, &kv, &err), -1);
	}
	snprintf(uri, sizeof(uri), "%s-other", f->uri);
	other = sk_store_open(uri, NULL, &err);
	assert_non_null(other);
	r2 = put(other, "/elsewhere", "1");
	deadline = sk_mono_ns() + 20 * 1000000000LL;
	while (sk_store_delivered_rev(f->s) < r2 && sk_mono_ns() < deadline)
		usleep(20000);
	assert_true(sk_store_delivered_rev(f->s) >= r2);
	assert_int_equal(sk_store_range(f->s, "/registry/configmaps/", NULL, 0, SK_STORE_REV_FRESH, &l, &err), 0);
	assert_int_equal(l.n, 20);
	assert_true(l.rev >= r2);
	sk_store_list_release(&l);
	sk_store_close(other);
	sk_store_close(b);
}

static uint8_t *pack_watch(const Etcdserverpb__WatchResponse *r, size_t *len)
{
	uint8_t *buf = malloc(protobuf_c_message_get_packed_size(&r->base) + 1);

	*len = protobuf_c_message_pack(&r->base, buf);
	return buf;
}

static ProtobufCBinaryData bytes(const char *s) { return (ProtobufCBinaryData){strlen(s), (uint8_t *)s}; }

/* etcd's WatchResponse as the watch decodes it (events, a key outside the
 * root, garbage), and gRPC statuses as the store's errors. */
static void test_wire(void **state)
{
	Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
	Etcdserverpb__WatchResponse r = ETCDSERVERPB__WATCH_RESPONSE__INIT;
	Mvccpb__KeyValue put = MVCCPB__KEY_VALUE__INIT, del = MVCCPB__KEY_VALUE__INIT, prev = MVCCPB__KEY_VALUE__INIT,
			 out = MVCCPB__KEY_VALUE__INIT;
	Mvccpb__Event e1 = MVCCPB__EVENT__INIT, e2 = MVCCPB__EVENT__INIT, e3 = MVCCPB__EVENT__INIT;
	Mvccpb__Event *evs[] = {&e1, &e2, &e3};
	static const uint8_t junk[] = {0x42, 0xff, 0xff, 0xff, 0x0f, 0x01};
	sk__etcd_wmsg m;
	sk_error_t err = {0};
	uint8_t *buf;
	size_t len;

	h.revision = 7;
	r.header = &h;
	r.created = 1;
	buf = pack_watch(&r, &len);
	assert_int_equal(sk__etcd_wmsg_decode(buf, len, "/r", &m, &err), 0);
	assert_true(m.created);
	assert_int_equal(m.header_rev, 7);
	assert_int_equal(m.n, 0);
	sk__etcd_wmsg_release(&m);
	free(buf);

	h.revision = 9;
	r.created = 0;
	put.key = del.key = prev.key = bytes("/r/a");
	put.value = prev.value = bytes("1");
	put.create_revision = put.mod_revision = prev.create_revision = prev.mod_revision = 8;
	del.mod_revision = 9;
	out.key = bytes("/x/a");
	out.mod_revision = 9;
	e1.kv = &put;
	e2.type = MVCCPB__EVENT__EVENT_TYPE__DELETE;
	e2.kv = &del;
	e2.prev_kv = &prev;
	e3.kv = &out;
	r.n_events = 3;
	r.events = evs;
	buf = pack_watch(&r, &len);
	assert_int_equal(sk__etcd_wmsg_decode(buf, len, "/r", &m, &err), 0);
	assert_int_equal(m.n, 2); /* /x/a lies outside the root */
	assert_int_equal(m.distinct_revs, 2);
	assert_int_equal(m.events[0].type, SK_STORE_CREATE);
	assert_string_equal(m.events[0].key->data, "/a");
	assert_string_equal(m.events[0].val->data, "1");
	assert_int_equal(m.events[1].type, SK_STORE_DELETE);
	assert_int_equal(m.events[1].rev, 9);
	assert_int_equal(m.events[1].create_rev, 8);
	assert_string_equal(m.events[1].prev->data, "1");
	assert_int_equal(m.events[1].prev_mod_rev, 8);
	sk__etcd_wmsg_release(&m);
	free(buf);

	assert_int_equal(sk__etcd_wmsg_decode(junk, sizeof(junk), "", &m, &err), -1);
	assert_string_equal(err.msg, "etcd watch: malformed message");

	assert_int_equal(sk__etcd_status_error(GRPC_STATUS_OK, "", &err), 0);
	assert_int_equal(sk__etcd_status_error(GRPC_STATUS_UNAVAILABLE, "etcdserver: no leader", &err), -1);
	assert_int_equal(err.code, SK_EUNKNOWN);
	assert_string_equal(err.msg, "etcdserver: no leader");
	sk__etcd_status_error(GRPC_STATUS_OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
			      &err);
	assert_int_equal(err.code, SK_EGONE);
	sk__etcd_status_error(GRPC_STATUS_OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
			      &err);
	assert_int_equal(err.code, SK_ETIMEOUT);
	sk__etcd_status_error(GRPC_STATUS_UNAVAILABLE, "failed to connect to all addresses", &err);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_string_equal(err.msg, "etcdserver: request timed out");
	/* our own TLS connection: an outage is plain, a refused certificate says why */
	sk__etcd_status_error(GRPC_STATUS_UNAVAILABLE, "etcd at 127.0.0.1:2379: connecting: Connection refused", &err);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_string_equal(err.msg, "etcdserver: request timed out");
	sk__etcd_status_error(GRPC_STATUS_UNAVAILABLE,
			      "etcd at 127.0.0.1:2379: TLS: etcd's certificate is refused: The certificate is NOT trusted.",
			      &err);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_string_equal(err.msg, "etcdserver: request timed out (etcd at 127.0.0.1:2379: TLS: etcd's certificate "
				     "is refused: The certificate is NOT trusted.)");
	sk__etcd_status_error(GRPC_STATUS_DEADLINE_EXCEEDED, "Deadline Exceeded", &err);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	sk__etcd_status_error(GRPC_STATUS_PERMISSION_DENIED, "etcdserver: permission denied", &err);
	assert_int_equal(err.code, SK_EUNKNOWN);

	/* after a failed call: a read goes on to the next endpoint when this
	 * one was not reached, a write only when it surely did not leave */
	assert_int_equal(sk__etcd_retry(SK__ETCD_RANGE, GRPC_STATUS_UNAVAILABLE, "Socket closed", 1), SK__ETCD_NEXT);
	assert_int_equal(sk__etcd_retry(SK__ETCD_TXN, GRPC_STATUS_UNAVAILABLE, "Socket closed", 1), SK__ETCD_STOP);
	assert_int_equal(sk__etcd_retry(SK__ETCD_COMPACT, GRPC_STATUS_UNAVAILABLE, "Socket closed", 1), SK__ETCD_STOP);
	assert_int_equal(sk__etcd_retry(SK__ETCD_TXN, GRPC_STATUS_UNAVAILABLE,
					"etcd at 127.0.0.1:2379: connecting: Connection refused", 0),
			 SK__ETCD_NEXT);
	assert_int_equal(sk__etcd_retry(SK__ETCD_TXN, GRPC_STATUS_UNAVAILABLE,
					"failed to connect to all addresses; last error: UNKNOWN: Connection refused", 1),
			 SK__ETCD_NEXT);
	/* etcd's own answer stands, but a read that met an election is made again */
	assert_int_equal(sk__etcd_retry(SK__ETCD_TXN, GRPC_STATUS_UNAVAILABLE, "etcdserver: leader changed", 1),
			 SK__ETCD_STOP);
	assert_int_equal(sk__etcd_retry(SK__ETCD_RANGE, GRPC_STATUS_UNAVAILABLE, "etcdserver: leader changed", 1),
			 SK__ETCD_AGAIN);
	assert_int_equal(sk__etcd_retry(SK__ETCD_STATUS, GRPC_STATUS_UNAVAILABLE, "etcdserver: leader changed", 1),
			 SK__ETCD_AGAIN);
	assert_int_equal(sk__etcd_retry(SK__ETCD_RANGE, GRPC_STATUS_UNAVAILABLE, "etcdserver: no leader", 1),
			 SK__ETCD_STOP);
	assert_int_equal(sk__etcd_retry(SK__ETCD_RANGE, GRPC_STATUS_DEADLINE_EXCEEDED, "Deadline Exceeded", 1),
			 SK__ETCD_STOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		STORE_CASES(setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_servers, setup, teardown),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_wire),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
