/* The etcd backend's wire format (etcd-wire.c), used by etcd.c and the fuzz
 * target: etcd v3's JSON gRPC gateway sends keys and values base64-encoded,
 * 64-bit integers as strings, and a watch as newline-delimited messages
 * {"result":{...}}. */
#ifndef SK_STORE_ETCD_INT_H
#define SK_STORE_ETCD_INT_H

#include <jansson.h>

#include "store/store-int.h"

/* Returns a malloc'd base64 string of data (caller frees). */
char *sk__etcd_b64(const char *data, size_t len);
/* Decodes base64 s into a malloc'd, NUL-terminated buffer (*out, *len).
 * Returns 0, or -1 when s is not base64. "" decodes to "". */
int sk__etcd_unb64(const char *s, char **out, size_t *len);
/* A 64-bit field of the gateway's JSON (a string or a number); 0 when absent
 * or malformed. */
int64_t sk__etcd_int(const json_t *obj, const char *name);

/* Fills out from a gateway KeyValue whose key starts with root; the key
 * returned lacks root. Returns 0, or -1 (nothing to release) when kv is
 * malformed or outside root. */
int sk__etcd_kv(const json_t *kv, const char *root, sk_store_kv *out);

/* Splits a byte stream into lines. */
typedef struct sk__etcd_lines {
	char *buf;
	size_t len, cap;
} sk__etcd_lines;

/* Called for each complete line (without its newline); non-zero stops. */
typedef int (*sk__etcd_line_fn)(const char *line, size_t len, void *ud);
/* Appends data and calls fn for each line it completes. Returns 0, fn's
 * non-zero result, or -1 when a line grows past SK__ETCD_MAX_LINE. */
#define SK__ETCD_MAX_LINE (256u << 20)
int sk__etcd_lines_feed(sk__etcd_lines *b, const char *data, size_t n, sk__etcd_line_fn fn, void *ud);
void sk__etcd_lines_release(sk__etcd_lines *b);

/* One message of a watch stream. */
typedef struct sk__etcd_wmsg {
	int64_t header_rev, compact_rev;
	int created, canceled;
	sk__event *events; /* in stream order; keys lack root */
	size_t n;
	int distinct_revs; /* revisions among events */
} sk__etcd_wmsg;

/* Parses one line of a watch stream. Returns 0, or -1 with err set: a gateway
 * error ({"error":...}) or a malformed message. Events outside root are
 * dropped. The caller releases m. */
int sk__etcd_wmsg_parse(const char *line, size_t len, const char *root, sk__etcd_wmsg *m, sk_error_t *err);
void sk__etcd_wmsg_release(sk__etcd_wmsg *m);

/* Fills err from a gateway error reply ({"error":"...","code":N}) and returns
 * -1; returns 0 when reply is not one. */
int sk__etcd_reply_error(const json_t *reply, sk_error_t *err);

/* skiff etcd-snapshot restore (etcd-restore.c): etcdctl's argument vector
 * restoring o->snapshot into target (free with sk__etcd_argv_free), and the
 * message of a failed etcdctl's output (its "Error: " line, else a panic's,
 * else its last line that is not a JSON log) into msg. */
char **sk__etcd_restore_argv(const sk_etcd_restore_options *o, const char *target);
void sk__etcd_argv_free(char **argv);
void sk__etcd_ctl_error(const char *out, char *msg, size_t cap);

#endif
