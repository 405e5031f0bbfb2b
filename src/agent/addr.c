/* The node's InternalIP: --node-ip, else the IPv4 address of the interface
 * of the default route of the agent's network namespace (util/netif.c),
 * else its first non-loopback IPv4 address, else 127.0.0.1. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include "agent/agent-int.h"
#include "util/netif.h"
#include "util/util.h"

static char *first_ipv4(void)
{
	struct ifaddrs *ifs = NULL;
	char buf[INET_ADDRSTRLEN];
	char *ip = NULL;

	if (getifaddrs(&ifs) < 0)
		return NULL;
	for (struct ifaddrs *i = ifs; i && !ip; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, sizeof(buf)))
			ip = xstrdup(buf);
	}
	freeifaddrs(ifs);
	return ip;
}

char *sk__ag_detect_node_ip(void)
{
	char buf[INET_ADDRSTRLEN];
	char *ip;

	if (sk_netif_default_ip4(buf, sizeof(buf), NULL) == 0)
		return xstrdup(buf);
	ip = first_ipv4();
	return ip ? ip : xstrdup("127.0.0.1");
}
