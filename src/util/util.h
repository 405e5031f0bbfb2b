/* Small helpers every layer uses: allocation that aborts on OOM, cleanup
 * attributes (after crun's utils.h), ownership transfer, time, logging. */
#ifndef SK_UTIL_UTIL_H
#define SK_UTIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

/* Reference counts of values shared between threads (informer caches, watch
 * events). jansson's inline json_incref/json_decref read the count with a
 * plain load and drop it with release order only, so the thread whose
 * decrement frees a value is not ordered after what the other holders read
 * before letting go (ThreadSanitizer reports each such free as a race). These
 * load atomically and drop with acquire-release order, as a shared pointer's
 * count must; the macros below route every skiff call (jansson's own inline
 * setters included) through them. The increment is a release too (the same
 * lock xadd on x86): a reference is often let go inside libjansson (an array
 * of cached objects freed), where TSan cannot see it, and the last holder's
 * acquire then still orders the free after the increment. (size_t)-1 marks
 * jansson's immortal singletons (true, false, null). */
static inline json_t *sk_json_incref(json_t *j)
{
	if (j && __atomic_load_n(&j->refcount, __ATOMIC_RELAXED) != (size_t)-1)
		__atomic_add_fetch(&j->refcount, 1, __ATOMIC_RELEASE);
	return j;
}

static inline void sk_json_decref(json_t *j)
{
	if (j && __atomic_load_n(&j->refcount, __ATOMIC_RELAXED) != (size_t)-1 &&
	    __atomic_sub_fetch(&j->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		json_delete(j);
}

#define json_incref(j) sk_json_incref(j)
#define json_decref(j) sk_json_decref(j)
#define json_object_set(o, k, v) json_object_set_new((o), (k), sk_json_incref(v))
#define json_array_set(a, i, v) json_array_set_new((a), (i), sk_json_incref(v))
#define json_array_append(a, v) json_array_append_new((a), sk_json_incref(v))

void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A growable NUL-terminated string (git's strbuf): a zeroed one is empty,
 * s stays NULL until the first add, and the owner frees s. */
typedef struct sk_strbuf {
	char *s;
	size_t len, cap;
} sk_strbuf;
void sk_strbuf_add(sk_strbuf *b, const char *s, size_t n);
void sk_strbuf_str(sk_strbuf *b, const char *s);

/* Returns a malloc'd formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Standard base64 (with padding) of len bytes, GnuTLS's encoder; *out_len
 * (may be NULL) gets its length. Never NULL. */
char *sk_base64_encode(const void *data, size_t len, size_t *out_len);

static inline void sk__freep(void *p) { free(*(void **)p); }
static inline void sk__closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void sk__fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void sk__json_decrefp(json_t **j) { json_decref(*j); }

#define cleanup_free __attribute__((cleanup(sk__freep)))
#define cleanup_close __attribute__((cleanup(sk__closep)))
#define cleanup_fclose __attribute__((cleanup(sk__fclosep)))
#define cleanup_json __attribute__((cleanup(sk__json_decrefp)))

static inline void *sk__steal(void **p)
{
	void *r = *p;
	*p = NULL;
	return r;
}
#define steal_ptr(pp) sk__steal((void **)(pp))
static inline int steal_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}

/* Clocks. */
int64_t sk_now_ns(void);  /* CLOCK_REALTIME in ns */
int64_t sk_mono_ns(void); /* CLOCK_MONOTONIC in ns */
/* t_ns plus secs seconds, saturating at the ends of int64: a grace period or
 * timeout of 2^62 seconds (a valid int64 in an API object) means "never". */
int64_t sk_ns_after(int64_t t_ns, int64_t secs);
/* Absolute CLOCK_REALTIME deadline ms from now, for pthread_cond_timedwait. */
struct timespec;
void sk_deadline_after_ms(struct timespec *ts, int64_t ms);
/* Formats seconds since the epoch as RFC 3339 UTC "2006-01-02T15:04:05Z" into buf (>= 21 bytes). */
void sk_time_format(int64_t secs, char *buf, size_t len);
/* RFC 3339 with microseconds, "2006-01-02T15:04:05.000000Z" (>= 28 bytes). */
void sk_time_format_micro(int64_t ns, char *buf, size_t len);
/* Parses RFC 3339 (with Z or offset, optional fraction). Returns -1 on bad input. */
int sk_time_parse(const char *s, int64_t *secs);
/* The same in nanoseconds since the epoch, keeping the fraction. */
int sk_time_parse_ns(const char *s, int64_t *ns);

/* Logging to stderr: "I1130 00:33:44.123456 component] message". */
enum { SK_LOG_ERROR, SK_LOG_WARN, SK_LOG_INFO, SK_LOG_DEBUG };
extern int sk_log_level;
void sk_log(int level, const char *component, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define sk_info(comp, ...) sk_log(SK_LOG_INFO, comp, __VA_ARGS__)
#define sk_warn(comp, ...) sk_log(SK_LOG_WARN, comp, __VA_ARGS__)
#define sk_err(comp, ...) sk_log(SK_LOG_ERROR, comp, __VA_ARGS__)
#define sk_debug(comp, ...) \
	do { \
		if (sk_log_level >= SK_LOG_DEBUG) \
			sk_log(SK_LOG_DEBUG, comp, __VA_ARGS__); \
	} while (0)
/* Step timings for latency work: on when the environment has SKIFF_TRACE=1,
 * logged at info level under component "trace". */
bool sk_trace_on(void);
#define sk_trace(...) \
	do { \
		if (sk_trace_on()) \
			sk_log(SK_LOG_INFO, "trace", __VA_ARGS__); \
	} while (0)

/* Files. Read a whole file (NUL-terminated, length in *len if not NULL); NULL + errno on failure. */
char *sk_read_file(const char *path, size_t *len);
/* An anonymous in-memory file (memfd, close-on-exec) holding data, for a
 * library that takes only a path (libcurl's CA with GnuTLS): name it
 * /proc/self/fd/<fd>; closing fd removes it, and nothing is left on disk when
 * the process is killed. Returns the descriptor, or -1 + errno. */
int sk_memfile(const char *name, const void *data, size_t len);
/* Writes atomically (tmp + fsync + rename) with the given mode. -1 + errno on failure. */
int sk_write_file(const char *path, const void *data, size_t len, int mode);
/* mkdir -p. */
int sk_mkdir_p(const char *path, int mode);

/* Waits until the peer has taken all that was written to a local stream
 * socket (its send queue, SIOCOUTQ, is empty) or timeout_ms passed, so that
 * what was written is taken before the caller closes (libmicrohttpd's
 * upgraded connections drop what is still in their socketpair on close). */
void sk_sock_wait_taken(int fd, int timeout_ms);
/* Whether the peer of stream socket fd closed its side (or the connection
 * failed), without reading: libmicrohttpd does not pass a TLS client's
 * close on to an upgraded connection's socketpair, its own socket tells. */
bool sk_sock_peer_gone(int fd);

#endif
