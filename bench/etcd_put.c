/* etcd's own write rate over gRPC, through skiff's transport
 * (src/store/etcd-grpc.c): THREADS threads each send, for SECONDS seconds,
 * one unary KV/Txn after the other, each a create as skiff's (compare
 * create_revision == 0, put a VALUE-byte value under a key of its own), and
 * the total per second is printed. The gRPC counterpart of etcd_wrk.sh's
 * wrk run against etcd's JSON gateway.
 *   build: see bench/etcd_wrk.sh
 *   build/bench/etcd_put HOST:PORT [threads] [seconds] [value bytes] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/etcd-int.h"
#include "util/util.h"

static sk__etcd_conn *conn;
static int64_t until_ns;
static size_t value_len = 700;

struct worker {
	int id;
	long done, failed;
	double lat_ms;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	char *value = malloc(value_len);

	memset(value, 'x', value_len);
	for (long i = 0; sk_mono_ns() < until_ns; i++) {
		char key[64];
		Etcdserverpb__Compare cmp = ETCDSERVERPB__COMPARE__INIT, *cmps[] = {&cmp};
		Etcdserverpb__PutRequest put = ETCDSERVERPB__PUT_REQUEST__INIT;
		Etcdserverpb__RequestOp op = ETCDSERVERPB__REQUEST_OP__INIT, *ops[] = {&op};
		Etcdserverpb__TxnRequest req = ETCDSERVERPB__TXN_REQUEST__INIT;
		Etcdserverpb__TxnResponse *r = NULL;
		sk_error_t err = {0};
		int64_t t0 = sk_mono_ns();

		snprintf(key, sizeof(key), "/bench/put/%d/%ld", w->id, i);
		cmp.key = put.key = (ProtobufCBinaryData){strlen(key), (uint8_t *)key};
		cmp.target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__CREATE;
		cmp.target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_CREATE_REVISION;
		put.value = (ProtobufCBinaryData){value_len, (uint8_t *)value};
		op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
		op.request_put = &put;
		req.n_compare = 1;
		req.compare = cmps;
		req.n_success = 1;
		req.success = ops;
		if (sk__etcd_unary(conn, SK__ETCD_TXN, &req.base, &etcdserverpb__txn_response__descriptor,
				   (ProtobufCMessage **)&r, 10000, &err) < 0 ||
		    !r->succeeded) {
			w->failed++;
		} else {
			w->done++;
			w->lat_ms += (double)(sk_mono_ns() - t0) / 1e6;
		}
		if (r)
			etcdserverpb__txn_response__free_unpacked(r, NULL);
	}
	free(value);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 32, secs = argc > 3 ? atoi(argv[3]) : 10;
	char *hosts[1];
	struct worker *w;
	pthread_t *t;
	sk_error_t err = {0};
	long done = 0, failed = 0;
	double lat = 0;

	if (argc < 2 || threads < 1 || secs < 1) {
		fprintf(stderr, "usage: %s HOST:PORT [threads] [seconds] [value bytes]\n", argv[0]);
		return 2;
	}
	if (argc > 4)
		value_len = (size_t)atol(argv[4]);
	hosts[0] = argv[1];
	if (!(conn = sk__etcd_conn_open(hosts, 1, NULL, NULL, NULL, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	w = calloc((size_t)threads, sizeof(*w));
	t = calloc((size_t)threads, sizeof(*t));
	until_ns = sk_mono_ns() + secs * 1000000000LL;
	for (int i = 0; i < threads; i++) {
		w[i].id = i;
		pthread_create(&t[i], NULL, run, &w[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		done += w[i].done;
		failed += w[i].failed;
		lat += w[i].lat_ms;
	}
	printf("etcd over gRPC: %d threads x %d s, Txn create of a %zu-byte value: %.0f/s, mean latency %.2f ms, "
	       "%ld failed\n",
	       threads, secs, value_len, (double)done / secs, done ? lat / (double)done : 0.0, failed);
	sk__etcd_conn_close(conn);
	free(w);
	free(t);
	return failed ? 1 : 0;
}
