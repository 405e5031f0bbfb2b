/* CRI log format: parsing, reading (tail, since, limit, follow), rotation. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "runtime/crilog.h"
#include "util/util.h"

static int digits(const char *s, size_t n, int *out)
{
	int v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Fraction ".ddddddddd" (1-9 digits) at s; advances *i. */
static int fraction(const char *s, size_t len, size_t *i, int64_t *ns)
{
	int64_t f = 0, scale = 100000000;
	size_t n = 0;

	if (*i >= len || s[*i] != '.')
		return 0;
	for ((*i)++; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++, n++) {
		if (n < 9)
			f += (s[*i] - '0') * scale, scale /= 10;
	}
	if (n == 0)
		return -1;
	*ns = f;
	return 0;
}

/* Times before 1677 or after 2262 are no int64 of nanoseconds; they saturate, so
 * they still sort before or after every time that is (Go's time.Time, which
 * the kubelet compares, holds them exactly). */
static int64_t secs_to_ns(int64_t secs, int64_t frac)
{
	int64_t ns;

	if (secs < 0 && frac > 0) /* the fraction lifts a negative second toward zero */
		secs++, frac -= 1000000000;
	if (__builtin_mul_overflow(secs, (int64_t)1000000000, &ns) || __builtin_add_overflow(ns, frac, &ns))
		return secs < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

int sk_crilog_parse_time(const char *s, size_t len, int64_t *ns)
{
	int y, mo, d, h, mi, se, oh = 0, om = 0;
	int64_t frac = 0, secs;
	size_t i = 19;

	if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
		return -1;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) || digits(s + 11, 2, &h) ||
	    digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	if (fraction(s, len, &i, &frac) < 0 || i >= len)
		return -1;
	if (s[i] == 'Z' || s[i] == 'z') {
		i++;
	} else if ((s[i] == '+' || s[i] == '-') && len - i == 6 && s[i + 3] == ':' && !digits(s + i + 1, 2, &oh) &&
		   !digits(s + i + 4, 2, &om)) {
		if (s[i] == '-')
			oh = -oh, om = -om;
		i += 6;
	} else {
		return -1;
	}
	if (i != len)
		return -1;
	secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - oh * 3600 - om * 60;
	*ns = secs_to_ns(secs, frac);
	return 0;
}

int sk_crilog_parse(const char *line, size_t len, struct sk_crilog_record *r)
{
	const char *sp1, *sp2;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	sp1 = memchr(line, ' ', len);
	if (!sp1)
		return -1;
	r->ts = line;
	r->ts_len = (size_t)(sp1 - line);
	if (sk_crilog_parse_time(line, r->ts_len, &r->ts_ns) < 0)
		return -1;
	sp1++;
	sp2 = memchr(sp1, ' ', len - (size_t)(sp1 - line));
	if (!sp2)
		return -1;
	if (sp2 - sp1 == 6 && !memcmp(sp1, "stdout", 6))
		r->stream = SK_CRILOG_STDOUT;
	else if (sp2 - sp1 == 6 && !memcmp(sp1, "stderr", 6))
		r->stream = SK_CRILOG_STDERR;
	else
		return -1;
	sp2++;
	if ((size_t)(sp2 - line) >= len || (*sp2 != 'F' && *sp2 != 'P'))
		return -1;
	r->partial = *sp2 == 'P';
	/* "F message"; a tag with no message ("...stdout F") is an empty line */
	if ((size_t)(sp2 - line) + 1 == len) {
		r->msg = sp2 + 1;
		r->msg_len = 0;
		return 0;
	}
	if (sp2[1] != ' ')
		return -1;
	r->msg = sp2 + 2;
	r->msg_len = len - (size_t)(r->msg - line);
	return 0;
}

/* Decoder state carried across chunks while following. */
struct dec {
	const struct sk_crilog_opts *o;
	sk_crilog_cb cb;
	void *arg;
	int64_t written;
	bool in_partial;
	bool skipping;
	bool done;
};

static void out(struct dec *d, const char *data, size_t len)
{
	if (d->done || len == 0)
		return;
	if (d->o->limit_bytes > 0 && d->written + (int64_t)len >= d->o->limit_bytes) {
		len = (size_t)(d->o->limit_bytes - d->written);
		d->done = true;
	}
	d->written += (int64_t)len;
	if (len && d->cb(d->arg, data, len))
		d->done = true;
}

static bool wanted(const struct sk_crilog_opts *o, const struct sk_crilog_record *r)
{
	return !o->streams || (o->streams & (int)r->stream);
}

static void emit(struct dec *d, const struct sk_crilog_record *r)
{
	if (!wanted(d->o, r))
		return;
	if (!d->in_partial) {
		d->skipping = d->o->since_ns > 0 && r->ts_ns < d->o->since_ns;
		if (!d->skipping && d->o->timestamps) {
			out(d, r->ts, r->ts_len);
			out(d, " ", 1);
		}
	}
	if (!d->skipping) {
		out(d, r->msg, r->msg_len);
		if (!r->partial)
			out(d, "\n", 1);
	}
	d->in_partial = r->partial;
}

/* Decodes the complete lines of buf; returns the bytes consumed. */
static size_t decode_lines(struct dec *d, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len && !d->done) {
		const char *nl = memchr(buf + off, '\n', len - off);
		struct sk_crilog_record r;

		if (!nl)
			break;
		if (sk_crilog_parse(buf + off, (size_t)(nl - buf - off), &r) == 0)
			emit(d, &r);
		off = (size_t)(nl - buf) + 1;
	}
	return off;
}

/* Offset of the first of the last n logical lines in buf. */
static size_t tail_offset(const struct sk_crilog_opts *o, const char *buf, size_t len, int64_t n)
{
	size_t *ring, off = 0, count = 0, start;
	bool in_partial = false;

	if (n <= 0)
		return len;
	ring = xmalloc((size_t)n * sizeof(*ring));
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		struct sk_crilog_record r;
		size_t next = nl ? (size_t)(nl - buf) + 1 : len;

		if (sk_crilog_parse(buf + off, next - off, &r) == 0 && wanted(o, &r)) {
			if (!in_partial)
				ring[count++ % (size_t)n] = off;
			in_partial = r.partial;
		}
		off = next;
	}
	start = count == 0 ? len : count <= (size_t)n ? ring[0] : ring[count % (size_t)n];
	free(ring);
	return start;
}

int sk_crilog_decode(const char *buf, size_t len, const struct sk_crilog_opts *opts, sk_crilog_cb cb, void *arg)
{
	struct dec d = {opts, cb, arg, 0, false, false, false};
	size_t start = opts->tail_lines >= 0 ? tail_offset(opts, buf, len, opts->tail_lines) : 0;
	size_t used = decode_lines(&d, buf + start, len - start);

	/* a last line without its newline (a writer mid-line) still counts here */
	if (!d.done && start + used < len) {
		struct sk_crilog_record r;
		if (sk_crilog_parse(buf + start + used, len - start - used, &r) == 0)
			emit(&d, &r);
	}
	return 0;
}

static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0 || stat(path, &b) < 0)
		return true; /* gone for the moment: keep the old one until a new one appears */
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Reads what fd has (appending to *pending) and decodes complete lines. */
static int drain(struct dec *d, int fd, char **pending, size_t *plen)
{
	char buf[65536];
	ssize_t n;
	int got = 0;

	while (!d->done && (n = read(fd, buf, sizeof(buf))) > 0) {
		size_t used;

		*pending = xrealloc(*pending, *plen + (size_t)n);
		memcpy(*pending + *plen, buf, (size_t)n);
		*plen += (size_t)n;
		used = decode_lines(d, *pending, *plen);
		memmove(*pending, *pending + used, *plen - used);
		*plen -= used;
		got = 1;
	}
	return got;
}

static int follow(struct dec *d, const char *path, int fd, volatile int *stop)
{
	cleanup_free char *pending = NULL;
	size_t plen = 0;
	int poll_ms = d->o->poll_ms > 0 ? d->o->poll_ms : 100;

	while (!d->done && !(stop && *stop)) {
		if (drain(d, fd, &pending, &plen))
			continue;
		if (!same_file(fd, path)) {
			int nfd;

			drain(d, fd, &pending, &plen);
			nfd = open(path, O_RDONLY | O_CLOEXEC);
			if (nfd >= 0) {
				close(fd);
				fd = nfd;
				plen = 0;
				continue;
			}
		}
		sleep_ms(poll_ms);
	}
	close(fd);
	return 0;
}

int sk_crilog_read(const char *path, const struct sk_crilog_opts *opts, sk_crilog_cb cb, void *arg, volatile int *stop,
		   sk_error_t *err)
{
	struct dec d = {opts, cb, arg, 0, false, false, false};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = 0, start, used;
	ssize_t n;

	if (fd < 0)
		return sk_error_errno(err, errno, "log \"%s\"", path);
	for (;;) {
		if (len + 65536 > cap)
			buf = xrealloc(buf, cap = (cap ? cap * 2 : 131072));
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	start = opts->tail_lines >= 0 ? tail_offset(opts, buf, len, opts->tail_lines) : 0;
	used = decode_lines(&d, buf + start, len - start);
	if (!opts->follow) {
		close(fd);
		return 0;
	}
	/* continue right after the last complete line */
	lseek(fd, (off_t)(start + used), SEEK_SET);
	return follow(&d, path, fd, stop);
}

char *sk_crilog_path(const char *pod_log_dir, const char *container, uint32_t attempt)
{
	return xasprintf("%s/%s/%u.log", pod_log_dir, container, attempt);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Rotated siblings "<base>.<stamp>" of path, sorted oldest first. */
static char **rotated_files(const char *path, size_t *n)
{
	cleanup_free char *dcopy = xstrdup(path), *bcopy = xstrdup(path);
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	size_t blen = strlen(base);
	DIR *d = opendir(dir);
	struct dirent *de;
	char **list = NULL;

	*n = 0;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, base, blen) || de->d_name[blen] != '.' || !de->d_name[blen + 1])
			continue;
		list = xrealloc(list, (*n + 1) * sizeof(*list));
		list[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(list, *n, sizeof(*list), cmp_str);
	return list;
}

int sk_crilog_rotate(const char *path, int max_files, sk_error_t *err)
{
	int64_t now = sk_now_ns();
	time_t secs = (time_t)(now / 1000000000);
	struct tm tm;
	char stamp[64];
	cleanup_free char *dst = NULL;
	char **old;
	size_t n, i;

	if (max_files < 1)
		max_files = 1;
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	dst = xasprintf("%s.%s.%09lld", path, stamp, (long long)(now % 1000000000));
	if (rename(path, dst) < 0 && errno != ENOENT)
		return sk_error_errno(err, errno, "rotate log \"%s\"", path);
	old = rotated_files(path, &n);
	for (i = 0; i < n; i++) {
		if (i + (size_t)max_files - 1 < n && unlink(old[i]) < 0 && errno != ENOENT)
			sk_warn("runtime", "rotate log: remove \"%s\": %s", old[i], strerror(errno));
		free(old[i]);
	}
	free(old);
	return 0;
}
