/* iproute2 for the node's own network state (routes, VXLAN devices and
 * their forwarding entries for other nodes): the `ip` and `bridge` commands
 * run through the runtime's process helper. */
#ifndef SK_RUNTIME_IPROUTE_H
#define SK_RUNTIME_IPROUTE_H

#include "util/error.h"

/* Runs `ip args...` (args NULL-terminated, without "ip"). 0 on exit status
 * 0, with its stdout in *out when out is not NULL (malloc'd); else -1 with
 * err holding ip's message. */
int sk_ip_run(const char *const args[], char **out, sk_error_t *err);
/* The same with `bridge` (fdb entries). */
int sk_bridge_run(const char *const args[], char **out, sk_error_t *err);

#endif
