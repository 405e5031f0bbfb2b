/* Buffers for libmicrohttpd's relay of an upgraded TLS connection.
 *
 * libmicrohttpd 0.9.75 (Debian 12) forwards the bytes of an upgraded TLS
 * connection between the TLS session and the socketpair it hands to the
 * application through buffers taken from what is left of the connection's
 * memory pool. In 0.9.75 the response's write buffer still holds all of it
 * at that point (0.9.76 releases it first), so every upgraded connection
 * falls back to the 8-byte emergency buffer: 4 bytes per direction, one
 * recv, one send and one TLS record per 4 bytes. Called from the upgrade
 * callback (on libmicrohttpd's thread of that connection, before it forwards
 * anything), sk_mhd_upgrade_buffers() gives such a handle real buffers of
 * size bytes per direction; it returns them (to be freed once libmicrohttpd
 * has closed the connection: MHD_CONNECTION_NOTIFY_CLOSED) or NULL where it
 * changed nothing (another libmicrohttpd version, or one that found room in
 * the pool). */
#ifndef SK_UTIL_MHDUP_H
#define SK_UTIL_MHDUP_H

#include <stddef.h>

struct MHD_UpgradeResponseHandle;

enum { SK_MHD_UPGRADE_BUF = 16 * 1024 }; /* one TLS record's plaintext */

void *sk_mhd_upgrade_buffers(struct MHD_UpgradeResponseHandle *urh, size_t size);

/* libmicrohttpd 0.9.75 forwards an upgraded TLS connection on edges of
 * its own epoll set (EPOLLET), and loses the client socket's writability
 * (daemon.c, process_urh): when gnutls_record_send() returned
 * GNUTLS_E_AGAIN it waits for EPOLLOUT, meanwhile reads more from the
 * socketpair into its out buffer, and on the edge calls
 * gnutls_record_send() with the larger amount; GnuTLS then flushes the
 * record it kept and returns the earlier call's size, which libmicrohttpd
 * takes for a short write to a full socket and clears its "write ready"
 * (0.9.77 dropped that line). The socket is writable, no edge comes, and
 * the full socketpair waits for the next event on the connection
 * (kubectl's ping, ~10 s). Kick makes the kernel signal the client's TCP
 * socket writable again if it is (setting TCP_NOTSENT_LOWAT to the value it
 * has calls the socket's write-space callback: no change of behaviour, one
 * system call); a relay calls it while libmicrohttpd leaves what it wrote
 * unread. Nothing where fd is not a TCP socket. */
void sk_mhd_upgrade_kick(int fd);

#endif
