/* CRI container logs, as conmon's k8s-file driver writes them and kubelet
 * reads them: one record per line,
 *     2016-10-06T00:17:09.669794202Z stdout F message
 * with stream stdout/stderr and tag F (full) or P (partial: the message
 * continues in the next record; P records are joined into one line).
 *
 * Files: one per container attempt, <pod log dir>/<container>/<attempt>.log
 * (kubelet's layout), so the previous attempt's log stays readable. Size
 * rotation is ours: sk_crilog_rotate renames the live file to
 * <file>.<UTC timestamp> and keeps at most max_files files in all; the caller
 * then asks conmon to reopen (sk_container_reopen_log). A reader that follows
 * notices the rename (inode change), drains the old file and continues with
 * the new one. */
#ifndef SK_RUNTIME_CRILOG_H
#define SK_RUNTIME_CRILOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum sk_crilog_stream {
	SK_CRILOG_STDOUT = 1,
	SK_CRILOG_STDERR = 2,
};

/* One parsed record; pointers point into the parsed buffer. */
struct sk_crilog_record {
	int64_t ts_ns;  /* timestamp, ns since the epoch */
	const char *ts; /* its text */
	size_t ts_len;
	enum sk_crilog_stream stream;
	bool partial;    /* tag P */
	const char *msg; /* message without the line's newline */
	size_t msg_len;
};

/* Parses one line (no trailing '\n' expected; a trailing '\r' or '\n' is
 * dropped). Returns 0, or -1 for a malformed line. */
int sk_crilog_parse(const char *line, size_t len, struct sk_crilog_record *out);

/* Parses an RFC 3339 timestamp with up to 9 fractional digits, "Z" or a
 * numeric offset, into ns since the epoch. Returns -1 on bad input. */
int sk_crilog_parse_time(const char *s, size_t len, int64_t *ns);

/* Receives output; returns non-zero to stop reading. */
typedef int (*sk_crilog_cb)(void *arg, const char *data, size_t len);

struct sk_crilog_opts {
	int64_t tail_lines;  /* < 0: all; else the last N lines */
	int64_t since_ns;    /* > 0: only lines at or after this time */
	int64_t limit_bytes; /* > 0: stop after this many bytes of output */
	bool timestamps;     /* prefix each line with its timestamp and a space */
	int streams;         /* SK_CRILOG_STDOUT|SK_CRILOG_STDERR; 0: both */
	bool follow;         /* keep reading new data until *stop */
	int poll_ms;         /* follow poll interval; 0: 100 */
};

/* Reads the log file at `path` as `kubectl logs` shows it and hands the
 * output to cb line by line. With follow, returns only when *stop becomes
 * non-zero (set it from another thread or from cb), cb asks to stop, or the
 * byte limit is reached; the file may be rotated meanwhile. Returns 0, or -1
 * with err when the file cannot be read. Malformed lines are skipped. */
int sk_crilog_read(const char *path, const struct sk_crilog_opts *opts, sk_crilog_cb cb, void *arg, volatile int *stop,
		   sk_error_t *err);

/* The same over a buffer of log lines (no follow): what the reader does with
 * file contents; used by the fuzzer. Returns 0. */
int sk_crilog_decode(const char *buf, size_t len, const struct sk_crilog_opts *opts, sk_crilog_cb cb, void *arg);

/* "<pod_log_dir>/<container>/<attempt>.log"; caller frees. */
char *sk_crilog_path(const char *pod_log_dir, const char *container, uint32_t attempt);

/* Renames `path` to "<path>.<YYYYMMDD-HHMMSS.nnnnnnnnn>" and deletes the
 * oldest rotated files so at most max_files (>= 1, counting the live file)
 * remain. A missing path is not an error. */
int sk_crilog_rotate(const char *path, int max_files, sk_error_t *err);

#endif
