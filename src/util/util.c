#include "util/util.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

int sk_log_level = SK_LOG_INFO;

static void oom(void)
{
	fputs("skiff: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

int64_t sk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sk_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sk_ns_after(int64_t t_ns, int64_t secs)
{
	int64_t d, r;

	if (__builtin_mul_overflow(secs, (int64_t)1000000000, &d) || __builtin_add_overflow(t_ns, d, &r))
		return secs < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

void sk_deadline_after_ms(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Writes mostly stamp the current second, several times per object: each
 * thread keeps the last second it formatted. */
void sk_time_format(int64_t secs, char *buf, size_t len)
{
	static __thread int64_t last_secs = INT64_MIN;
	static __thread char last[32];
	size_t n;

	if (secs != last_secs) {
		time_t t = (time_t)secs;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(last, sizeof(last), "%Y-%m-%dT%H:%M:%SZ", &tm);
		last_secs = secs;
	}
	n = strlen(last);
	if (len > n)
		memcpy(buf, last, n + 1);
	else if (len)
		buf[0] = '\0';
}

void sk_time_format_micro(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char base[32];

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06dZ", base, (int)((ns % 1000000000) / 1000));
}

int sk_time_parse(const char *s, int64_t *secs)
{
	struct tm tm = {0};
	const char *p;
	int off = 0;

	if (!s)
		return -1;
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int hh, mm;

		if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2)
			return -1;
		off = (hh * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	*secs = (int64_t)timegm(&tm) - off;
	return 0;
}

int sk_time_parse_ns(const char *s, int64_t *ns)
{
	const char *dot;
	int64_t secs, frac = 0, scale = 100000000;

	if (sk_time_parse(s, &secs) < 0 || secs > INT64_MAX / 1000000000 - 1 || secs < INT64_MIN / 1000000000 + 1)
		return -1;
	dot = strchr(s, '.');
	if (dot && dot - s == 19)
		for (const char *p = dot + 1; *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10)
			frac += (*p - '0') * scale;
	*ns = secs * 1000000000 + frac;
	return 0;
}

bool sk_trace_on(void)
{
	static int on = -1;

	if (on < 0) {
		const char *e = getenv("SKIFF_TRACE");

		on = e && *e && strcmp(e, "0") != 0;
	}
	return on;
}

void sk_log(int level, const char *component, const char *fmt, ...)
{
	static const char lv[] = "EWID";
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct timespec ts;
	struct tm tm;
	va_list ap;

	if (level > sk_log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	pthread_mutex_lock(&mu);
	fprintf(stderr, "%c%02d%02d %02d:%02d:%02d.%06ld %s] ", lv[level], tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000, component);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&mu);
}

int sk_memfile(const char *name, const void *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), e;

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len) {
		e = errno ? errno : EIO;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

char *sk_read_file(const char *path, size_t *len)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int sk_write_file(const char *path, const void *data, size_t len, int mode)
{
	cleanup_free char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	const char *p = data;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0)
		return -1;
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0)
		goto fail;
	close(fd);
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
fail:
	close(fd);
	unlink(tmp);
	return -1;
}

int sk_mkdir_p(const char *path, int mode)
{
	cleanup_free char *p = xstrdup(path);
	char *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

bool sk_sock_peer_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

void sk_sock_wait_taken(int fd, int timeout_ms)
{
	int64_t until = sk_mono_ns() + (int64_t)timeout_ms * 1000000;
	int q = 0;

	while (fd >= 0 && ioctl(fd, SIOCOUTQ, &q) == 0 && q > 0 && sk_mono_ns() < until)
		poll(NULL, 0, 5);
}

void sk_strbuf_add(sk_strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sk_strbuf_str(sk_strbuf *b, const char *s) { sk_strbuf_add(b, s, strlen(s)); }

char *sk_base64_encode(const void *data, size_t len, size_t *out_len)
{
	gnutls_datum_t in = {(unsigned char *)data, (unsigned)len}, b64 = {0};
	char *s;

	if (len > UINT_MAX / 2 || gnutls_base64_encode2(&in, &b64) < 0)
		oom(); /* the encoder fails only to allocate */
	s = xstrndup((const char *)b64.data, b64.size);
	if (out_len)
		*out_len = b64.size;
	gnutls_free(b64.data);
	return s;
}
