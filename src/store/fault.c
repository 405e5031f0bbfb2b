/* Storage fault injection (see fault.h). The shim VFS keeps the real unix
 * file right after its own header in the sqlite3_file SQLite allocates, and
 * forwards every method to it; xWrite, xSync and xTruncate first ask hit()
 * whether this call is the one to fail. */
#include "store/fault.h"

#include <stdio.h>

#ifndef SK_FAULT_INJECTION

void sk__fault_setup(void) {}

int sk_fault_command(const char *line, char *reply, size_t len)
{
	snprintf(reply, len, "error fault injection is not built in (SK_FAULT_INJECTION)");
	return -1;
}

#else

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/util.h"

enum { F_WRITE, F_FULL, F_SYNC, F_TRUNCATE, F_READ, F_MALLOC, NKINDS };
enum { FILE_ANY, FILE_DB, FILE_WAL, FILE_JOURNAL, FILE_OTHER };

static const char *const kind_names[NKINDS] = {"write", "full", "sync", "truncate", "read", "malloc"};
static const int kind_rcs[NKINDS] = {SQLITE_IOERR_WRITE,    SQLITE_FULL,       SQLITE_IOERR_FSYNC,
				     SQLITE_IOERR_TRUNCATE, SQLITE_IOERR_READ, SQLITE_NOMEM};
static const char *const file_names[] = {"any", "db", "wal", "journal"};
static const struct {
	const char *name;
	int rc;
} rc_names[] = {
	{"ioerr", SQLITE_IOERR},   {"full", SQLITE_FULL},         {"corrupt", SQLITE_CORRUPT},
	{"notadb", SQLITE_NOTADB}, {"readonly", SQLITE_READONLY}, {"cantopen", SQLITE_CANTOPEN},
};

struct fault {
	int armed; /* read without mu on the fast path */
	int file;
	int rc;            /* the result code a failing call returns */
	int64_t countdown; /* calls until the next failure; 1: the next call fails */
	int64_t left;      /* failures still to come; 0: until cleared */
	int64_t every;
	int64_t calls, fired; /* since armed */
};

static struct fault faults[NKINDS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Counts one call of kind on a file of kind file; returns the result code
 * it is to fail with, or 0. */
static int hit(int kind, int file)
{
	struct fault *f = &faults[kind];
	int fire = 0;

	if (!__atomic_load_n(&f->armed, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&mu);
	if (f->armed && (f->file == FILE_ANY || f->file == file)) {
		f->calls++;
		if (--f->countdown <= 0) {
			fire = f->rc;
			f->fired++;
			f->countdown = f->every;
			if (f->left > 0 && --f->left == 0)
				__atomic_store_n(&f->armed, 0, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&mu);
	return fire;
}

/* ---- the shim VFS ---- */

struct ffile {
	sqlite3_file base;
	sqlite3_file *real; /* follows this struct in the same allocation */
	int file;
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs shim_vfs;

#define REAL(f) (((struct ffile *)(f))->real)
#define KIND(f) (((struct ffile *)(f))->file)

static int f_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	int rc = hit(F_READ, KIND(f));

	if (rc)
		return rc;
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	int rc = hit(F_WRITE, KIND(f));

	if (!rc)
		rc = hit(F_FULL, KIND(f));
	if (rc)
		return rc;
	return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	int rc = hit(F_TRUNCATE, KIND(f));

	if (rc)
		return rc;
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	int rc = hit(F_SYNC, KIND(f));

	if (rc)
		return rc;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size) { return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int f_lock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xLock(REAL(f), lock); }
static int f_unlock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xUnlock(REAL(f), lock); }

static int f_check_reserved(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }

static int f_file_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int f_device_chars(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }

static int f_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, p);
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int f_shm_unmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **p)
{
	return REAL(f)->pMethods->xFetch(REAL(f), off, n, p);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods shim_methods = {
	.iVersion = 3,
	.xClose = f_close,
	.xRead = f_read,
	.xWrite = f_write,
	.xTruncate = f_truncate,
	.xSync = f_sync,
	.xFileSize = f_size,
	.xLock = f_lock,
	.xUnlock = f_unlock,
	.xCheckReservedLock = f_check_reserved,
	.xFileControl = f_file_control,
	.xSectorSize = f_sector_size,
	.xDeviceCharacteristics = f_device_chars,
	.xShmMap = f_shm_map,
	.xShmLock = f_shm_lock,
	.xShmBarrier = f_shm_barrier,
	.xShmUnmap = f_shm_unmap,
	.xFetch = f_fetch,
	.xUnfetch = f_unfetch,
};

static int file_kind(int flags)
{
	if (flags & SQLITE_OPEN_MAIN_DB)
		return FILE_DB;
	if (flags & SQLITE_OPEN_WAL)
		return FILE_WAL;
	if (flags & SQLITE_OPEN_MAIN_JOURNAL)
		return FILE_JOURNAL;
	return FILE_OTHER;
}

static int shim_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags)
{
	struct ffile *f = (struct ffile *)file;
	int rc;

	f->real = (sqlite3_file *)(f + 1);
	f->file = file_kind(flags);
	rc = real_vfs->xOpen(real_vfs, name, f->real, flags, out_flags);
	/* SQLite calls xClose only when pMethods is set, as the real file asks. */
	file->pMethods = f->real->pMethods ? &shim_methods : NULL;
	return rc;
}

/* ---- the allocator ---- */

static sqlite3_mem_methods real_mem;

static void *m_malloc(int n) { return hit(F_MALLOC, FILE_ANY) ? NULL : real_mem.xMalloc(n); }
static void *m_realloc(void *p, int n) { return hit(F_MALLOC, FILE_ANY) ? NULL : real_mem.xRealloc(p, n); }
static void m_free(void *p) { real_mem.xFree(p); }
static int m_size(void *p) { return real_mem.xSize(p); }
static int m_roundup(int n) { return real_mem.xRoundup(n); }
static int m_init(void *ud) { return real_mem.xInit(real_mem.pAppData); }
static void m_shutdown(void *ud) { real_mem.xShutdown(real_mem.pAppData); }

static void install(void)
{
	sqlite3_mem_methods m;

	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem) == SQLITE_OK) {
		m = real_mem;
		m.xMalloc = m_malloc;
		m.xRealloc = m_realloc;
		m.xFree = m_free;
		m.xSize = m_size;
		m.xRoundup = m_roundup;
		m.xInit = m_init;
		m.xShutdown = m_shutdown;
		if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
			sk_warn("fault", "sqlite is already initialised: allocation faults are off");
	}
	real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs)
		return;
	shim_vfs = *real_vfs;
	shim_vfs.szOsFile = (int)sizeof(struct ffile) + real_vfs->szOsFile;
	shim_vfs.zName = "skiff-fault";
	shim_vfs.pNext = NULL;
	shim_vfs.xOpen = shim_open;
	sqlite3_vfs_register(&shim_vfs, 1);
}

/* ---- commands ---- */

static int is_word(const char *word, size_t n, const char *name)
{
	return strlen(name) == n && strncmp(word, name, n) == 0;
}

static int lookup(const char *word, size_t n, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (is_word(word, n, names[i]))
			return i;
	return -1;
}

/* Splits line into at most max words (pointers into line, lengths in lens). */
static int split(const char *line, const char **words, size_t *lens, int max)
{
	int n = 0;

	for (;;) {
		line += strspn(line, " \t\r\n");
		if (!*line)
			return n;
		if (n == max)
			return -1;
		words[n] = line;
		lens[n] = strcspn(line, " \t\r\n");
		line += lens[n++];
	}
}

/* Reads "key=N" into *v when word starts with key=; 1 when it did, -1 when
 * the number is bad, 0 when the key differs. */
static int opt_int(const char *word, size_t n, const char *key, int64_t min, int64_t *v)
{
	size_t kl = strlen(key);
	char buf[32], *end;

	if (n <= kl + 1 || strncmp(word, key, kl) != 0 || word[kl] != '=')
		return 0;
	if (n - kl - 1 >= sizeof(buf))
		return -1;
	memcpy(buf, word + kl + 1, n - kl - 1);
	buf[n - kl - 1] = '\0';
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno || *end || *v < min ? -1 : 1;
}

/* Reads "rc=NAME" or "rc=N"; 1 when it did, -1 when bad, 0 for another word. */
static int opt_rc(const char *word, size_t n, int *rc)
{
	int64_t v;
	int r;

	if (n <= 3 || strncmp(word, "rc=", 3) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(rc_names) / sizeof(rc_names[0]); i++) {
		if (is_word(word + 3, n - 3, rc_names[i].name)) {
			*rc = rc_names[i].rc;
			return 1;
		}
	}
	r = opt_int(word, n, "rc", 1, &v);
	*rc = (int)v;
	return r < 0 || v > 0xffff ? -1 : r;
}

static int cmd_fail(const char **w, size_t *l, int n, char *reply, size_t len)
{
	int kind = lookup(w[1], l[1], kind_names, NKINDS), file = FILE_ANY, rc;
	int64_t nth = 1, times = 1, every = 1;

	if (kind < 0)
		return snprintf(reply, len, "error unknown fault \"%.*s\"", (int)l[1], w[1]), -1;
	rc = kind_rcs[kind];
	for (int i = 2; i < n; i++) {
		int r = opt_int(w[i], l[i], "nth", 1, &nth);

		if (!r)
			r = opt_int(w[i], l[i], "times", 0, &times);
		if (!r)
			r = opt_int(w[i], l[i], "every", 1, &every);
		if (!r && kind != F_MALLOC)
			r = opt_rc(w[i], l[i], &rc);
		if (!r && l[i] > 5 && strncmp(w[i], "file=", 5) == 0) {
			file = lookup(w[i] + 5, l[i] - 5, file_names, 4);
			r = file < 0 ? -1 : 1;
		}
		if (r <= 0)
			return snprintf(reply, len, "error bad option \"%.*s\"", (int)l[i], w[i]), -1;
	}
	pthread_mutex_lock(&mu);
	faults[kind] = (struct fault){.file = file, .rc = rc, .countdown = nth, .left = times, .every = every};
	__atomic_store_n(&faults[kind].armed, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mu);
	snprintf(reply, len, "ok");
	return 0;
}

static int cmd_clear(const char **w, size_t *l, int n, char *reply, size_t len)
{
	int kind = n > 1 ? lookup(w[1], l[1], kind_names, NKINDS) : -1;

	if (n > 1 && kind < 0)
		return snprintf(reply, len, "error unknown fault \"%.*s\"", (int)l[1], w[1]), -1;
	pthread_mutex_lock(&mu);
	for (int k = 0; k < NKINDS; k++)
		if (kind < 0 || k == kind)
			__atomic_store_n(&faults[k].armed, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mu);
	snprintf(reply, len, "ok");
	return 0;
}

static int cmd_count(const char **w, size_t *l, int n, char *reply, size_t len)
{
	int kind = n == 2 ? lookup(w[1], l[1], kind_names, NKINDS) : -1;

	if (kind < 0)
		return snprintf(reply, len, "error usage: count write|full|sync|truncate|read|malloc"), -1;
	pthread_mutex_lock(&mu);
	snprintf(reply, len, "ok calls=%lld fired=%lld armed=%d", (long long)faults[kind].calls,
		 (long long)faults[kind].fired, faults[kind].armed);
	pthread_mutex_unlock(&mu);
	return 0;
}

int sk_fault_command(const char *line, char *reply, size_t len)
{
	const char *w[8];
	size_t l[8];
	int n;

	sk__fault_setup();
	n = split(line, w, l, 8);
	if (n > 1 && is_word(w[0], l[0], "fail"))
		return cmd_fail(w, l, n, reply, len);
	if (n > 0 && is_word(w[0], l[0], "clear"))
		return cmd_clear(w, l, n, reply, len);
	if (n > 0 && is_word(w[0], l[0], "count"))
		return cmd_count(w, l, n, reply, len);
	snprintf(reply, len, "error usage: fail KIND [nth=N] [times=K] [every=M] [file=F] | clear [KIND] | count KIND");
	return -1;
}

/* ---- the control socket ---- */

static void serve(int c)
{
	FILE *in = fdopen(c, "r");
	char *line = NULL, reply[256];
	size_t cap = 0;

	if (!in) {
		close(c);
		return;
	}
	while (getline(&line, &cap, in) > 0) {
		sk_fault_command(line, reply, sizeof(reply));
		sk_info("fault", "%.*s: %s", (int)strcspn(line, "\r\n"), line, reply);
		if (dprintf(c, "%s\n", reply) < 0)
			break;
	}
	free(line);
	fclose(in);
}

static void *ctl_main(void *arg)
{
	int fd = (int)(intptr_t)arg;

	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0)
			serve(c);
		else if (errno != EINTR && errno != ECONNABORTED)
			return NULL;
	}
}

static void start_ctl(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	pthread_t t;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		sk_err("fault", "SKIFF_FAULT_CTL \"%s\": path too long", path);
		return;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0 ||
	    pthread_create(&t, NULL, ctl_main, (void *)(intptr_t)fd) != 0) {
		sk_err("fault", "SKIFF_FAULT_CTL \"%s\": %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	pthread_detach(t);
	sk_info("fault", "fault injection control on \"%s\"", path);
}

static void setup_once(void)
{
	const char *ctl = getenv("SKIFF_FAULT_CTL");

	install();
	if (ctl && *ctl)
		start_ctl(ctl);
}

void sk__fault_setup(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, setup_once);
}

#endif
