/* etcd's gRPC API through gRPC's C core: one channel per endpoint (a call
 * goes to the endpoint that answered last and on to the next one when it
 * cannot be reached, as etcd's own client fails over), unary calls on a
 * completion queue of their own (plucked by the calling thread), and
 * streaming calls (watch, snapshot) read one reply at a time by the thread
 * that owns them. Messages are etcd's, packed by protobuf-c. */
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "store/etcd-int.h"
#include "util/util.h"

/* a reconnect to an endpoint that went away waits at most this long, so a
 * restarted etcd is back in use within it (GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
 * despite its name the least time one connection attempt gets, keeps its
 * default of 20 s, ample for a busy etcd's handshake) */
#define RECONNECT_MIN_MS 100
#define RECONNECT_MAX_MS 1000
#define KEEPALIVE_MS 10000

/* how long the monitor waits on a channel's state before it looks again */
#define MONITOR_MS 200

struct sk__etcd_conn {
	grpc_channel **ch;
	size_t n;
	int cur; /* atomic: the endpoint that answered last */
	/* The monitor: gRPC's C core makes progress on a connection only while
	 * some thread polls for it. A call fails at once while its channel is
	 * in TRANSIENT_FAILURE, so after an outage no call would stay long
	 * enough for the reconnect to complete its handshake: this thread keeps
	 * each channel connecting and polled (a watch of its state). */
	pthread_t monitor;
	grpc_completion_queue *mcq;
	int stop; /* atomic */
};

static void cq_drain(grpc_completion_queue *cq, int pluck);

static void *monitor_main(void *arg)
{
	sk__etcd_conn *c = arg;
	size_t pending = 0;
	char *watching = xzalloc(c->n);

	for (;;) {
		int stop = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		grpc_event ev;

		for (size_t i = 0; i < c->n && !stop; i++) {
			if (watching[i])
				continue;
			grpc_channel_watch_connectivity_state(
				c->ch[i], grpc_channel_check_connectivity_state(c->ch[i], 1),
				gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
					     gpr_time_from_millis(MONITOR_MS, GPR_TIMESPAN)),
				c->mcq, (void *)(i + 1));
			watching[i] = 1;
			pending++;
		}
		if (stop && !pending)
			break;
		ev = grpc_completion_queue_next(c->mcq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		if (ev.type == GRPC_OP_COMPLETE) {
			watching[(size_t)ev.tag - 1] = 0;
			pending--;
		}
	}
	free(watching);
	return NULL;
}

static grpc_channel_credentials *credentials(const char *ca, const char *cert, const char *key, sk_error_t *err)
{
	cleanup_free char *ca_pem = NULL, *cert_pem = NULL, *key_pem = NULL;
	grpc_ssl_pem_key_cert_pair pair;

	if (!ca && !cert && !key)
		return grpc_insecure_credentials_create();
	if ((ca && !(ca_pem = sk_read_file(ca, NULL))) || (cert && !(cert_pem = sk_read_file(cert, NULL))) ||
	    (key && !(key_pem = sk_read_file(key, NULL)))) {
		sk_error_errno(err, errno, "reading the etcd TLS files");
		return NULL;
	}
	if ((cert_pem != NULL) != (key_pem != NULL)) {
		sk_error_set(err, SK_EINVALID,
			     "etcd TLS: a client certificate needs its key and a key its certificate");
		return NULL;
	}
	pair.private_key = key_pem;
	pair.cert_chain = cert_pem;
	return grpc_ssl_credentials_create(ca_pem, cert_pem ? &pair : NULL, NULL, NULL);
}

sk__etcd_conn *sk__etcd_conn_open(char *const *hosts, size_t n, const char *ca, const char *cert, const char *key,
				  sk_error_t *err)
{
	sk__etcd_conn *c;
	grpc_channel_credentials *creds;
	grpc_arg args[] = {
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, .value.integer = -1},
		{.type = GRPC_ARG_INTEGER,
		 .key = GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
		 .value.integer = RECONNECT_MIN_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, .value.integer = RECONNECT_MAX_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_TIME_MS, .value.integer = KEEPALIVE_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_TIMEOUT_MS, .value.integer = KEEPALIVE_MS},
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, .value.integer = 1},
		/* each endpoint a connection of its own, not shared with another channel */
		{.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, .value.integer = 1},
	};
	grpc_channel_args cargs = {.num_args = sizeof(args) / sizeof(args[0]), .args = args};

	grpc_init();
	if (!(creds = credentials(ca, cert, key, err))) {
		grpc_shutdown();
		return NULL;
	}
	c = xzalloc(sizeof(*c));
	c->ch = xzalloc(n * sizeof(c->ch[0]));
	for (c->n = 0; c->n < n; c->n++)
		c->ch[c->n] = grpc_channel_create(hosts[c->n], creds, &cargs);
	grpc_channel_credentials_release(creds);
	c->mcq = grpc_completion_queue_create_for_next(NULL);
	if (pthread_create(&c->monitor, NULL, monitor_main, c) != 0)
		abort();
	return c;
}

void sk__etcd_conn_close(sk__etcd_conn *c)
{
	if (!c)
		return;
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	pthread_join(c->monitor, NULL);
	cq_drain(c->mcq, 0);
	for (size_t i = 0; i < c->n; i++)
		grpc_channel_destroy(c->ch[i]);
	free(c->ch);
	free(c);
	grpc_shutdown();
}

size_t sk__etcd_conn_endpoints(const sk__etcd_conn *c) { return c->n; }
size_t sk__etcd_conn_current(sk__etcd_conn *c) { return (size_t)__atomic_load_n(&c->cur, __ATOMIC_RELAXED); }
void sk__etcd_conn_answered(sk__etcd_conn *c, size_t ep) { __atomic_store_n(&c->cur, (int)ep, __ATOMIC_RELAXED); }

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(n);
	grpc_byte_buffer *bb;

	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

/* The bytes of bb (malloc'd); bb is destroyed. */
static uint8_t *unpack_bytes(grpc_byte_buffer *bb, size_t *len)
{
	grpc_byte_buffer_reader r;
	grpc_slice s;
	uint8_t *data;

	if (!grpc_byte_buffer_reader_init(&r, bb)) {
		grpc_byte_buffer_destroy(bb);
		return NULL;
	}
	s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(bb);
	*len = GRPC_SLICE_LENGTH(s);
	data = xmalloc(*len + 1);
	if (*len)
		memcpy(data, GRPC_SLICE_START_PTR(s), *len);
	grpc_slice_unref(s);
	return data;
}

static void cq_drain(grpc_completion_queue *cq, int pluck)
{
	grpc_completion_queue_shutdown(cq);
	for (;;) {
		grpc_event ev = pluck ? grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
				      : grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);

		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
	}
	grpc_completion_queue_destroy(cq);
}

static gpr_timespec after_ms(int64_t ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* One call on channel ch; returns its status (details in *msg, malloc'd). */
static grpc_status_code call_once(grpc_channel *ch, const char *method, grpc_byte_buffer *req, grpc_byte_buffer **resp,
				  int64_t timeout_ms, char **msg)
{
	grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
	grpc_slice m = grpc_slice_from_static_string(method), details = grpc_empty_slice();
	grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, m, NULL, after_ms(timeout_ms),
						   NULL);
	grpc_metadata_array im, tm;
	grpc_status_code code = GRPC_STATUS_UNKNOWN;
	grpc_op ops[6];
	grpc_event ev;

	grpc_metadata_array_init(&im);
	grpc_metadata_array_init(&tm);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = req;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &im;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = resp;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &tm;
	ops[5].data.recv_status_on_client.status = &code;
	ops[5].data.recv_status_on_client.status_details = &details;
	*resp = NULL;
	if (grpc_call_start_batch(call, ops, 6, call, NULL) != GRPC_CALL_OK)
		abort(); /* only a misuse of the API */
	ev = grpc_completion_queue_pluck(cq, call, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	if (ev.type != GRPC_OP_COMPLETE)
		abort();
	*msg = grpc_slice_to_c_string(details);
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&im);
	grpc_metadata_array_destroy(&tm);
	grpc_call_unref(call);
	cq_drain(cq, 1);
	if (code == GRPC_STATUS_OK && !*resp)
		code = GRPC_STATUS_INTERNAL;
	return code;
}

int sk__etcd_unary(sk__etcd_conn *c, const char *method, const ProtobufCMessage *req,
		   const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, int64_t timeout_ms,
		   sk_error_t *err)
{
	grpc_byte_buffer *rb = NULL;
	size_t first = sk__etcd_conn_current(c), len = 0;
	grpc_status_code code = GRPC_STATUS_UNAVAILABLE;
	char *msg = NULL;
	uint8_t *data;

	*resp = NULL;
	for (size_t i = 0; i < c->n; i++) {
		size_t ep = (first + i) % c->n;

		/* a sent buffer's slices are the call's: one of its own each time */
		grpc_byte_buffer *bb = pack(req);

		free(msg);
		msg = NULL;
		code = call_once(c->ch[ep], method, bb, &rb, timeout_ms, &msg);
		grpc_byte_buffer_destroy(bb);
		if (code == GRPC_STATUS_OK)
			sk__etcd_conn_answered(c, ep);
		/* on to the next endpoint only when this one could not be reached */
		if (code != GRPC_STATUS_UNAVAILABLE || !strncmp(msg, "etcdserver: ", 12))
			break;
		sk_debug("store", "etcd endpoint %zu %s: %s", ep, method, msg);
	}
	if (code != GRPC_STATUS_OK) {
		if (rb)
			grpc_byte_buffer_destroy(rb);
		sk__etcd_status_error(code, msg, err);
		free(msg);
		return -1;
	}
	free(msg);
	data = unpack_bytes(rb, &len);
	*resp = data ? protobuf_c_message_unpack(resp_desc, NULL, len, data) : NULL;
	free(data);
	if (!*resp)
		return sk_error_set(err, SK_EUNKNOWN, "etcd %s: malformed reply", method);
	return 0;
}

/* ---- streams ---- */

enum { TAG_START = 1, TAG_STATUS, TAG_RECV };

struct sk__etcd_stream {
	grpc_call *call;
	grpc_completion_queue *cq;
	grpc_metadata_array im, tm;
	grpc_status_code code;
	grpc_slice details;
	grpc_byte_buffer *req, *msg;
	int pending; /* batches not completed yet */
	int recv_pending, status_done;
};

sk__etcd_stream *sk__etcd_stream_open(sk__etcd_conn *c, size_t ep, const char *method, const ProtobufCMessage *req,
				      int half_close)
{
	sk__etcd_stream *st = xzalloc(sizeof(*st));
	grpc_slice m = grpc_slice_from_static_string(method);
	grpc_op ops[4], status;

	st->cq = grpc_completion_queue_create_for_next(NULL);
	st->call = grpc_channel_create_call(c->ch[ep % c->n], NULL, GRPC_PROPAGATE_DEFAULTS, st->cq, m, NULL,
					    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	st->details = grpc_empty_slice();
	grpc_metadata_array_init(&st->im);
	grpc_metadata_array_init(&st->tm);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[1].data.recv_initial_metadata.recv_initial_metadata = &st->im;
	ops[2].op = GRPC_OP_SEND_MESSAGE;
	ops[2].data.send_message.send_message = st->req = pack(req);
	ops[3].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	if (grpc_call_start_batch(st->call, ops, half_close ? 4 : 3, (void *)(intptr_t)TAG_START, NULL) != GRPC_CALL_OK)
		abort();
	memset(&status, 0, sizeof(status));
	status.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	status.data.recv_status_on_client.trailing_metadata = &st->tm;
	status.data.recv_status_on_client.status = &st->code;
	status.data.recv_status_on_client.status_details = &st->details;
	if (grpc_call_start_batch(st->call, &status, 1, (void *)(intptr_t)TAG_STATUS, NULL) != GRPC_CALL_OK)
		abort();
	st->pending = 2;
	return st;
}

/* Waits for the next completion until deadline; returns its tag, or 0. */
static int next(sk__etcd_stream *st, gpr_timespec deadline)
{
	grpc_event ev = grpc_completion_queue_next(st->cq, deadline, NULL);
	int tag;

	if (ev.type != GRPC_OP_COMPLETE)
		return 0;
	tag = (int)(intptr_t)ev.tag;
	st->pending--;
	if (tag == TAG_STATUS)
		st->status_done = 1;
	else if (tag == TAG_RECV)
		st->recv_pending = 0;
	return tag;
}

int sk__etcd_stream_recv(sk__etcd_stream *st, int64_t timeout_ms, uint8_t **data, size_t *len, sk_error_t *err)
{
	gpr_timespec deadline = after_ms(timeout_ms);
	char *msg;

	if (!st->recv_pending && !st->status_done) {
		grpc_op op;

		memset(&op, 0, sizeof(op));
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &st->msg;
		st->msg = NULL;
		if (grpc_call_start_batch(st->call, &op, 1, (void *)(intptr_t)TAG_RECV, NULL) != GRPC_CALL_OK)
			abort();
		st->recv_pending = 1;
		st->pending++;
	}
	while (st->recv_pending) {
		int tag = next(st, deadline);

		if (!tag)
			return 0;
		if (tag == TAG_RECV && st->msg) {
			*data = unpack_bytes(st->msg, len);
			st->msg = NULL;
			if (!*data)
				return sk_error_set(err, SK_EUNKNOWN, "etcd stream: unreadable message");
			return 1;
		}
	}
	/* the stream ended: its status */
	while (!st->status_done)
		next(st, gpr_inf_future(GPR_CLOCK_REALTIME));
	if (st->code == GRPC_STATUS_OK) {
		if (err)
			memset(err, 0, sizeof(*err));
		return -1;
	}
	msg = grpc_slice_to_c_string(st->details);
	sk__etcd_status_error(st->code, msg, err);
	free(msg);
	return -1;
}

void sk__etcd_stream_close(sk__etcd_stream *st)
{
	if (!st)
		return;
	if (!st->status_done)
		grpc_call_cancel(st->call, NULL);
	while (st->pending > 0)
		next(st, gpr_inf_future(GPR_CLOCK_REALTIME));
	if (st->msg)
		grpc_byte_buffer_destroy(st->msg);
	grpc_byte_buffer_destroy(st->req);
	grpc_call_unref(st->call);
	cq_drain(st->cq, 0);
	grpc_slice_unref(st->details);
	grpc_metadata_array_destroy(&st->im);
	grpc_metadata_array_destroy(&st->tm);
	free(st);
}
