/* The etcd backend's wire (etcd-wire.c, etcd-grpc.c), used by etcd.c and the
 * fuzz target: etcd v3's gRPC API, its messages encoded by protobuf-c from
 * etcd's own .proto files (build/gen/etcd, Makefile), carried by gRPC's C
 * core. */
#ifndef SK_STORE_ETCD_INT_H
#define SK_STORE_ETCD_INT_H

#include <grpc/status.h>

#include "etcd/etcdserver/etcdserverpb/rpc.pb-c.h"
#include "store/store-int.h"

/* etcd's methods */
#define SK__ETCD_RANGE "/etcdserverpb.KV/Range"
#define SK__ETCD_TXN "/etcdserverpb.KV/Txn"
#define SK__ETCD_COMPACT "/etcdserverpb.KV/Compact"
#define SK__ETCD_WATCH "/etcdserverpb.Watch/Watch"
#define SK__ETCD_STATUS "/etcdserverpb.Maintenance/Status"
#define SK__ETCD_SNAPSHOT "/etcdserverpb.Maintenance/Snapshot"

/* Fills out from a KeyValue whose key starts with root; the key returned
 * lacks root. Returns 0, or -1 (nothing to release) when kv is missing or
 * outside root. */
int sk__etcd_kv(const Mvccpb__KeyValue *kv, const char *root, sk_store_kv *out);

/* One message of a watch stream. */
typedef struct sk__etcd_wmsg {
	int64_t header_rev, compact_rev;
	int created, canceled;
	sk__event *events; /* in stream order; keys lack root */
	size_t n;
	int distinct_revs; /* revisions among events */
} sk__etcd_wmsg;

/* Decodes one WatchResponse (its protobuf bytes). Returns 0, or -1 with err
 * set for a malformed message. Events outside root are dropped. The caller
 * releases m. */
int sk__etcd_wmsg_decode(const uint8_t *data, size_t len, const char *root, sk__etcd_wmsg *m, sk_error_t *err);
void sk__etcd_wmsg_release(sk__etcd_wmsg *m);

/* Fills err from a call's gRPC status and returns -1; returns 0 for
 * GRPC_STATUS_OK. etcd's own errors ("etcdserver: …", "mvcc: …") keep their
 * words as kube-apiserver passes them on; a call that got no answer (no
 * endpoint reachable, the call's deadline) is "etcdserver: request timed
 * out", a 503. */
int sk__etcd_status_error(grpc_status_code code, const char *msg, sk_error_t *err);

/* ---- the gRPC transport (etcd-grpc.c) ---- */

/* Channels to etcd's endpoints ("HOST:PORT"), over TLS when any of ca, cert,
 * key is set (files of PEM). */
typedef struct sk__etcd_conn sk__etcd_conn;
sk__etcd_conn *sk__etcd_conn_open(char *const *hosts, size_t n, const char *ca, const char *cert, const char *key,
				  sk_error_t *err);
void sk__etcd_conn_close(sk__etcd_conn *c);

/* After a unary call of method failed with code and msg (sent: it left on
 * a connection): SK__ETCD_STOP (its error stands), SK__ETCD_NEXT (made
 * again on the next endpoint) or SK__ETCD_AGAIN (on the same one after a
 * pause: a read that met an election). */
enum { SK__ETCD_STOP, SK__ETCD_NEXT, SK__ETCD_AGAIN };
int sk__etcd_retry(const char *method, grpc_status_code code, const char *msg, int sent);

/* One unary call of method with req on the first endpoint that answers
 * (from the one that answered last); *resp gets the reply, unpacked as
 * resp_desc (caller frees with protobuf_c_message_free_unpacked). */
int sk__etcd_unary(sk__etcd_conn *c, const char *method, const ProtobufCMessage *req,
		   const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp, int64_t timeout_ms,
		   sk_error_t *err);

/* A streaming call: req sent first (and the client's side closed when
 * half_close), then replies read one at a time. */
typedef struct sk__etcd_stream sk__etcd_stream;
/* Opens it on endpoint number ep (modulo their number). */
sk__etcd_stream *sk__etcd_stream_open(sk__etcd_conn *c, size_t ep, const char *method, const ProtobufCMessage *req,
				      int half_close);
/* Waits up to timeout_ms for the next reply: 1 with the reply's bytes in
 * *data and *len (caller frees), 0 when none came in time, -1 when the stream ended (err set: a code
 * 0 when it ended with status OK). */
int sk__etcd_stream_recv(sk__etcd_stream *st, int64_t timeout_ms, uint8_t **data, size_t *len, sk_error_t *err);
/* Cancels the call when it goes on and frees it. */
void sk__etcd_stream_close(sk__etcd_stream *st);
size_t sk__etcd_conn_endpoints(const sk__etcd_conn *c);
/* The endpoint that answered last, and marking one that did. */
size_t sk__etcd_conn_current(sk__etcd_conn *c);
void sk__etcd_conn_answered(sk__etcd_conn *c, size_t ep);

/* skiff etcd-snapshot restore (etcd-restore.c): etcdctl's argument vector
 * restoring o->snapshot into target (free with sk__etcd_argv_free), and the
 * message of a failed etcdctl's output (its "Error: " line, else a panic's,
 * else its last line that is not a JSON log) into msg. */
char **sk__etcd_restore_argv(const sk_etcd_restore_options *o, const char *target);
void sk__etcd_argv_free(char **argv);
void sk__etcd_ctl_error(const char *out, char *msg, size_t cap);

#endif
