/* Storage fault injection for tests, as SQLite's own test suite does it
 * (test_vfs.c, faultsim): a shim VFS registered over the default one fails
 * the Nth xWrite, xSync or xTruncate of the files it opens, and SQLite's
 * allocator is wrapped (SQLITE_CONFIG_MALLOC) to fail the Nth allocation.
 *
 * Only builds with SK_FAULT_INJECTION have it (the ASan build and the unit
 * tests); elsewhere sk__fault_setup does nothing and sk_fault_command
 * answers an error.
 *
 * Commands, one a line (also read from the unix socket named by the
 * environment variable SKIFF_FAULT_CTL, one reply line per command):
 *   fail KIND [nth=N] [times=K] [every=M] [file=db|wal|journal|any] [rc=CODE]
 *       KIND is write (SQLITE_IOERR_WRITE), full (SQLITE_FULL from xWrite),
 *       sync (SQLITE_IOERR_FSYNC), truncate (SQLITE_IOERR_TRUNCATE), read
 *       (SQLITE_IOERR_READ) or malloc (an allocation returns NULL: SQLITE_NOMEM).
 *       The Nth call of that kind from now fails (default 1: the next), then
 *       every Mth call after it (default 1) until K calls have failed
 *       (default 1; 0: until cleared). file= limits a VFS fault to one kind
 *       of file; rc= makes a VFS fault return another result code (ioerr,
 *       full, corrupt, notadb, readonly, cantopen or a number), as SQLite's
 *       testvfs can.
 *   clear [KIND]   disarms KIND, or every kind
 *   count KIND     "ok calls=C fired=F armed=0|1": calls seen and failed since armed
 * A reply is "ok ..." once the command has taken effect, or "error MESSAGE". */
#ifndef SK_STORE_FAULT_H
#define SK_STORE_FAULT_H

#include <stddef.h>

/* Installs the shim VFS and allocator before SQLite is first used, and
 * starts the control socket when SKIFF_FAULT_CTL is set. Idempotent. */
void sk__fault_setup(void);

/* Runs one command line and writes the reply line (no newline) to reply.
 * Returns 0 for "ok", -1 for "error". */
int sk_fault_command(const char *line, char *reply, size_t len);

#endif
