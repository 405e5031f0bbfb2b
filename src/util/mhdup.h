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

#endif
