#include <arpa/inet.h>
#include <linux/tcp.h> /* tcpi_bytes_received, which glibc's netinet/tcp.h lacks */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "util/netif.h"

/* The interface of the first default route with the lowest metric. */
static int default_iface(char *name, size_t len)
{
	FILE *f = fopen("/proc/net/route", "re");
	char line[512];
	unsigned long best = (unsigned long)-1;
	int found = 0;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char iface[IF_NAMESIZE + 1];
		unsigned long dst, gw, flags, refcnt, use, metric, mask;

		if (sscanf(line, "%16s %lx %lx %lx %lu %lu %lu %lx", iface, &dst, &gw, &flags, &refcnt, &use, &metric,
			   &mask) != 8)
			continue;
		if (dst || mask || !(flags & 1) || metric >= best) /* RTF_UP */
			continue;
		best = metric;
		snprintf(name, len, "%s", iface);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

int sk_netif_default_ip4(char *buf, size_t len, sk_error_t *err)
{
	char iface[IF_NAMESIZE + 1];
	struct ifaddrs *ifs, *i;
	int rc = -1;

	if (default_iface(iface, sizeof(iface)) < 0)
		return sk_error_set(err, SK_EINVALID, "no default route in /proc/net/route");
	if (getifaddrs(&ifs) < 0)
		return sk_error_errno(err, errno, "getifaddrs");
	for (i = ifs; i && rc < 0; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, iface))
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, (socklen_t)len))
			rc = 0;
	}
	freeifaddrs(ifs);
	if (rc < 0)
		return sk_error_set(err, SK_EINVALID, "the default route's interface %s has no IPv4 address", iface);
	return 0;
}

int sk_socket_received_any(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return 1;
	/* a kernel without the field leaves it 0: read as "spoke", never shed early */
	return len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received) ||
	       ti.tcpi_bytes_received > 0;
}
