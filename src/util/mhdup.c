/* See mhdup.h. The handle's layout is libmicrohttpd 0.9.75's
 * struct MHD_UpgradeResponseHandle (src/microhttpd/internal.h, built with
 * HTTPS_SUPPORT and EPOLL_SUPPORT as Debian's is); it is used only when the
 * library says it is 0.9.75 and the handle is self-consistent: both buffer
 * pointers at the handle's own emergency buffer, 4 bytes each, nothing in
 * them yet. */
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/mhdup.h"

enum { EBUF = 8 }; /* RESERVE_EBUF_SIZE */

struct epoll_handle_0975 {
	void *urh;
	MHD_socket socket;
	int celi; /* enum MHD_EpollState */
};

struct urh_0975 {
	void *connection;
	void *next, *prev;   /* HTTPS_SUPPORT */
	void *nextE, *prevE; /* EPOLL_SUPPORT */
	bool in_eready_list;
	char *in_buffer, *out_buffer;
	size_t in_buffer_size, out_buffer_size, in_buffer_used, out_buffer_used;
	struct epoll_handle_0975 app, mhd;
	char e_buf[EBUF];
};

void *sk_mhd_upgrade_buffers(struct MHD_UpgradeResponseHandle *urh, size_t size)
{
	struct urh_0975 *u = (struct urh_0975 *)urh;
	const char *v = MHD_get_version();
	char *buf;

	if (!u || !v || strcmp(v, "0.9.75") || size < EBUF)
		return NULL;
	if (u->in_buffer != u->e_buf || u->out_buffer != u->e_buf + EBUF / 2 || u->in_buffer_size != EBUF / 2 ||
	    u->out_buffer_size != EBUF / 2 || u->in_buffer_used || u->out_buffer_used || u->app.urh != urh ||
	    u->mhd.urh != urh)
		return NULL;
	if (!(buf = malloc(2 * size)))
		return NULL;
	u->in_buffer = buf;
	u->out_buffer = buf + size;
	u->in_buffer_size = size;
	u->out_buffer_size = size;
	return buf;
}

void sk_mhd_upgrade_kick(int fd)
{
	int v = 0;
	socklen_t n = sizeof(v);

	if (fd >= 0 && getsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, &n) == 0)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, sizeof(v));
}
