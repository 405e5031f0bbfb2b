/* The node's InternalIP: --node-ip, else the IPv4 address of the interface
 * of the default route of the agent's network namespace (/proc/net/route),
 * else its first non-loopback IPv4 address, else 127.0.0.1. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent-int.h"
#include "util/util.h"

int sk__ag_default_route_iface(const char *route, char *ifname, size_t len)
{
	const char *line = route ? strchr(route, '\n') : NULL; /* the header */
	int best = -1;

	while (line && *++line) {
		char name[IF_NAMESIZE + 1];
		unsigned dest, gw, flags, mask;
		int refcnt, use, metric;

		if (sscanf(line, "%16s %x %x %x %d %d %d %x", name, &dest, &gw, &flags, &refcnt, &use, &metric,
			   &mask) == 8 &&
		    dest == 0 && mask == 0 && (flags & 1) && (best < 0 || metric < best)) {
			best = metric;
			snprintf(ifname, len, "%s", name);
		}
		line = strchr(line, '\n');
	}
	return best < 0 ? -1 : 0;
}

/* The first IPv4 address of ifname (NULL: of any interface but loopback). */
static char *iface_ipv4(struct ifaddrs *ifs, const char *ifname)
{
	char buf[INET_ADDRSTRLEN];

	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		if (ifname ? strcmp(i->ifa_name, ifname) != 0 : (i->ifa_flags & IFF_LOOPBACK) != 0)
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, sizeof(buf)))
			return xstrdup(buf);
	}
	return NULL;
}

char *sk__ag_detect_node_ip(void)
{
	cleanup_free char *route = sk_read_file("/proc/net/route", NULL);
	struct ifaddrs *ifs = NULL;
	char ifname[IF_NAMESIZE + 1];
	char *ip = NULL;

	if (getifaddrs(&ifs) < 0)
		return xstrdup("127.0.0.1");
	if (sk__ag_default_route_iface(route, ifname, sizeof(ifname)) == 0)
		ip = iface_ipv4(ifs, ifname);
	if (!ip)
		ip = iface_ipv4(ifs, NULL);
	freeifaddrs(ifs);
	return ip ? ip : xstrdup("127.0.0.1");
}
