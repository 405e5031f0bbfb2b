/* This host's network interfaces, as the API server's advertise address
 * and a node's InternalIP need them. */
#ifndef SK_UTIL_NETIF_H
#define SK_UTIL_NETIF_H

#include <stddef.h>

#include "util/error.h"

/* The IPv4 address of the interface of the default route (the first
 * default route of /proc/net/route, its interface's first address by
 * getifaddrs) as text into buf. 0, or -1 + err when there is none. */
int sk_netif_default_ip4(char *buf, size_t len, sk_error_t *err);

/* Whether the peer of TCP socket fd has sent any byte (the kernel's
 * tcpi_bytes_received); 1 when that cannot be told. */
int sk_socket_received_any(int fd);

#endif
