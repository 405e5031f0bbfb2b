/* The cluster domain's records (src/agent/dns-zone.c) against the Kubernetes
 * DNS specification: each record kind, negative answers, case, TTLs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/dns-zone.h"
#include "util/util.h"

static const char *SERVICES = "["
	"{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},"
	" \"spec\":{\"type\":\"ClusterIP\",\"clusterIP\":\"10.43.0.5\",\"clusterIPs\":[\"10.43.0.5\"],"
	"  \"ports\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"TCP\"},{\"port\":81,\"protocol\":\"TCP\"},"
	"           {\"name\":\"dns\",\"port\":53,\"protocol\":\"UDP\"}]}},"
	"{\"metadata\":{\"name\":\"six\",\"namespace\":\"default\"},"
	" \"spec\":{\"clusterIP\":\"fd00::5\",\"clusterIPs\":[\"fd00::5\"],\"ports\":[{\"port\":80}]}},"
	"{\"metadata\":{\"name\":\"db\",\"namespace\":\"prod\"},"
	" \"spec\":{\"clusterIP\":\"None\",\"ports\":[{\"name\":\"pg\",\"port\":5432}]}},"
	"{\"metadata\":{\"name\":\"nr\",\"namespace\":\"prod\"},"
	" \"spec\":{\"clusterIP\":\"None\",\"publishNotReadyAddresses\":true}},"
	"{\"metadata\":{\"name\":\"empty\",\"namespace\":\"prod\"},\"spec\":{\"clusterIP\":\"None\"}},"
	"{\"metadata\":{\"name\":\"pending\",\"namespace\":\"prod\"},\"spec\":{\"clusterIP\":\"\"}},"
	"{\"metadata\":{\"name\":\"ext\",\"namespace\":\"default\"},"
	" \"spec\":{\"type\":\"ExternalName\",\"externalName\":\"www.example.com\"}},"
	"{\"metadata\":{\"name\":\"alias\",\"namespace\":\"default\"},"
	" \"spec\":{\"type\":\"ExternalName\",\"externalName\":\"web.default.svc.cluster.local\"}},"
	"{\"metadata\":{\"name\":\"bad\",\"namespace\":\"default\"},"
	" \"spec\":{\"type\":\"ExternalName\",\"externalName\":\"a b. 5 IN A 1.2.3.4\"}}"
	"]";

static const char *SLICES = "["
	"{\"metadata\":{\"name\":\"db-x\",\"namespace\":\"prod\",\"labels\":{\"kubernetes.io/service-name\":\"db\"}},"
	" \"addressType\":\"IPv4\",\"ports\":[{\"name\":\"pg\",\"port\":5432,\"protocol\":\"TCP\"}],"
	" \"endpoints\":[{\"addresses\":[\"10.42.0.7\"],\"hostname\":\"db-0\",\"conditions\":{\"ready\":true}},"
	"              {\"addresses\":[\"10.42.0.8\"],\"conditions\":{\"ready\":false}},"
	"              {\"addresses\":[\"10.42.0.9\"]}]},"
	"{\"metadata\":{\"name\":\"db-y\",\"namespace\":\"prod\",\"labels\":{\"kubernetes.io/service-name\":\"db\"}},"
	" \"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.42.0.7\"],\"hostname\":\"db-0\"}]},"
	"{\"metadata\":{\"name\":\"nr-x\",\"namespace\":\"prod\",\"labels\":{\"kubernetes.io/service-name\":\"nr\"}},"
	" \"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.42.0.20\"],\"conditions\":{\"ready\":false}}]},"
	"{\"metadata\":{\"name\":\"web-x\",\"namespace\":\"default\",\"labels\":{\"kubernetes.io/service-name\":\"web\"}},"
	" \"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.42.0.30\"]}]}"
	"]";

static sk_dns_zone *zone(void)
{
	json_t *svcs = json_loads(SERVICES, 0, NULL), *eps = json_loads(SLICES, 0, NULL);
	sk_dns_zone *z;

	assert_non_null(svcs);
	assert_non_null(eps);
	z = sk_dns_zone_build("cluster.local", "10.43.0.10", svcs, eps);
	json_decref(svcs);
	json_decref(eps);
	assert_non_null(z);
	return z;
}

static ldns_pkt *query(const char *name, ldns_rr_type t)
{
	ldns_pkt *q = ldns_pkt_query_new(ldns_dname_new_frm_str(name), t, LDNS_RR_CLASS_IN, LDNS_RD);

	ldns_pkt_set_id(q, 4242);
	return q;
}

/* Serves q (taken) from z; the action in *action, the parsed response (or NULL). */
static ldns_pkt *serve_pkt(sk_dns_zone *z, ldns_pkt *q, bool tcp, int *action)
{
	uint8_t *wire = NULL;
	size_t len;
	struct sk_dns_reply rep;
	ldns_pkt *r = NULL;

	assert_int_equal(ldns_pkt2wire(&wire, q, &len), LDNS_STATUS_OK);
	ldns_pkt_free(q);
	sk_dns_zone_serve(z, wire, len, tcp, &rep);
	free(wire);
	*action = rep.action;
	if (rep.action == SK_DNS_REPLY) {
		assert_int_equal(ldns_wire2pkt(&r, rep.wire, rep.len), LDNS_STATUS_OK);
		assert_int_equal(ldns_pkt_id(r), 4242);
		assert_true(ldns_pkt_qr(r));
	}
	sk_dns_reply_release(&rep);
	return r;
}

static ldns_pkt *ask(sk_dns_zone *z, const char *name, ldns_rr_type t)
{
	int action;
	ldns_pkt *r = serve_pkt(z, query(name, t), false, &action);

	assert_int_equal(action, SK_DNS_REPLY);
	return r;
}

/* One section as text, a record per line, fields separated by single spaces. */
static char *section(ldns_pkt *r, ldns_pkt_section s)
{
	ldns_rr_list *l = s == LDNS_SECTION_ANSWER	  ? ldns_pkt_answer(r)
			  : s == LDNS_SECTION_AUTHORITY ? ldns_pkt_authority(r)
							: ldns_pkt_additional(r);
	char *out = xstrdup("");

	for (size_t i = 0; i < ldns_rr_list_rr_count(l); i++) {
		char *t = ldns_rr2str(ldns_rr_list_rr(l, i)), *n;

		for (char *p = t; *p; p++)
			if (*p == '\t')
				*p = ' ';
		n = xasprintf("%s%s", out, t);
		free(out);
		free(t);
		out = n;
	}
	return out;
}

static void expect(ldns_pkt *r, ldns_pkt_rcode rcode, const char *answer)
{
	char *a = section(r, LDNS_SECTION_ANSWER);

	assert_int_equal(ldns_pkt_get_rcode(r), rcode);
	assert_true(ldns_pkt_aa(r));
	assert_string_equal(a, answer);
	free(a);
}

/* NXDOMAIN or NODATA: no answer, the zone's SOA (TTL 5) in the authority section. */
static void expect_negative(ldns_pkt *r, ldns_pkt_rcode rcode)
{
	char *auth = section(r, LDNS_SECTION_AUTHORITY);

	expect(r, rcode, "");
	assert_non_null(strstr(auth, "cluster.local. 5 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. "));
	assert_non_null(strstr(auth, " 7200 1800 86400 5\n"));
	free(auth);
	ldns_pkt_free(r);
}

static void test_cluster_ip(void **state)
{
	sk_dns_zone *z = zone();
	ldns_pkt *r = ask(z, "web.default.svc.cluster.local.", LDNS_RR_TYPE_A);

	expect(r, LDNS_RCODE_NOERROR, "web.default.svc.cluster.local. 5 IN A 10.43.0.5\n");
	ldns_pkt_free(r);
	/* the question's case is kept in the answer */
	r = ask(z, "WEB.Default.SVC.cluster.LOCAL.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR, "WEB.Default.SVC.cluster.LOCAL. 5 IN A 10.43.0.5\n");
	ldns_pkt_free(r);
	r = ask(z, "six.default.svc.cluster.local.", LDNS_RR_TYPE_AAAA);
	expect(r, LDNS_RCODE_NOERROR, "six.default.svc.cluster.local. 5 IN AAAA fd00::5\n");
	ldns_pkt_free(r);
	/* a ClusterIP Service's endpoints make no records of their own */
	expect_negative(ask(z, "10-42-0-30.web.default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	/* no ClusterIP yet: no name */
	expect_negative(ask(z, "pending.prod.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	sk_dns_zone_free(z);
}

static void test_negative(void **state)
{
	sk_dns_zone *z = zone();

	/* an IPv4 Service has no AAAA: NODATA */
	expect_negative(ask(z, "web.default.svc.cluster.local.", LDNS_RR_TYPE_AAAA), LDNS_RCODE_NOERROR);
	expect_negative(ask(z, "six.default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NOERROR);
	expect_negative(ask(z, "nope.default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	expect_negative(ask(z, "a.b.c.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	/* names above records exist (empty non-terminals) */
	expect_negative(ask(z, "default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NOERROR);
	expect_negative(ask(z, "svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NOERROR);
	expect_negative(ask(z, "_tcp.web.default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NOERROR);
	/* unnamed ports have no SRV record */
	expect_negative(ask(z, "_81._tcp.web.default.svc.cluster.local.", LDNS_RR_TYPE_SRV), LDNS_RCODE_NXDOMAIN);
	expect_negative(ask(z, "_http._udp.web.default.svc.cluster.local.", LDNS_RR_TYPE_SRV), LDNS_RCODE_NXDOMAIN);
	sk_dns_zone_free(z);
}

static void test_srv_and_ptr(void **state)
{
	sk_dns_zone *z = zone();
	ldns_pkt *r = ask(z, "_http._tcp.web.default.svc.cluster.local.", LDNS_RR_TYPE_SRV);
	char *add = section(r, LDNS_SECTION_ADDITIONAL);

	expect(r, LDNS_RCODE_NOERROR,
	       "_http._tcp.web.default.svc.cluster.local. 5 IN SRV 0 100 80 web.default.svc.cluster.local.\n");
	assert_string_equal(add, "web.default.svc.cluster.local. 5 IN A 10.43.0.5\n");
	free(add);
	ldns_pkt_free(r);
	r = ask(z, "_DNS._UDP.web.default.svc.cluster.local.", LDNS_RR_TYPE_SRV);
	expect(r, LDNS_RCODE_NOERROR,
	       "_DNS._UDP.web.default.svc.cluster.local. 5 IN SRV 0 100 53 web.default.svc.cluster.local.\n");
	ldns_pkt_free(r);
	r = ask(z, "5.0.43.10.in-addr.arpa.", LDNS_RR_TYPE_PTR);
	expect(r, LDNS_RCODE_NOERROR, "5.0.43.10.in-addr.arpa. 5 IN PTR web.default.svc.cluster.local.\n");
	ldns_pkt_free(r);
	r = ask(z, "5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.", LDNS_RR_TYPE_PTR);
	expect(r, LDNS_RCODE_NOERROR,
	       "5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa. 5 IN PTR "
	       "six.default.svc.cluster.local.\n");
	ldns_pkt_free(r);
	sk_dns_zone_free(z);
}

static void test_headless(void **state)
{
	sk_dns_zone *z = zone();
	ldns_pkt *r = ask(z, "db.prod.svc.cluster.local.", LDNS_RR_TYPE_A);
	char *add;

	/* ready endpoints only, each once (10.42.0.7 is in two slices) */
	expect(r, LDNS_RCODE_NOERROR,
	       "db.prod.svc.cluster.local. 5 IN A 10.42.0.7\ndb.prod.svc.cluster.local. 5 IN A 10.42.0.9\n");
	ldns_pkt_free(r);
	r = ask(z, "db-0.db.prod.svc.cluster.local.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR, "db-0.db.prod.svc.cluster.local. 5 IN A 10.42.0.7\n");
	ldns_pkt_free(r);
	r = ask(z, "10-42-0-9.db.prod.svc.cluster.local.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR, "10-42-0-9.db.prod.svc.cluster.local. 5 IN A 10.42.0.9\n");
	ldns_pkt_free(r);
	expect_negative(ask(z, "10-42-0-8.db.prod.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	r = ask(z, "_pg._tcp.db.prod.svc.cluster.local.", LDNS_RR_TYPE_SRV);
	expect(r, LDNS_RCODE_NOERROR,
	       "_pg._tcp.db.prod.svc.cluster.local. 5 IN SRV 0 50 5432 db-0.db.prod.svc.cluster.local.\n"
	       "_pg._tcp.db.prod.svc.cluster.local. 5 IN SRV 0 50 5432 10-42-0-9.db.prod.svc.cluster.local.\n");
	add = section(r, LDNS_SECTION_ADDITIONAL);
	assert_string_equal(add, "db-0.db.prod.svc.cluster.local. 5 IN A 10.42.0.7\n"
				 "10-42-0-9.db.prod.svc.cluster.local. 5 IN A 10.42.0.9\n");
	free(add);
	ldns_pkt_free(r);
	r = ask(z, "7.0.42.10.in-addr.arpa.", LDNS_RR_TYPE_PTR);
	expect(r, LDNS_RCODE_NOERROR, "7.0.42.10.in-addr.arpa. 5 IN PTR db-0.db.prod.svc.cluster.local.\n");
	ldns_pkt_free(r);
	/* publishNotReadyAddresses: not-ready endpoints too */
	r = ask(z, "nr.prod.svc.cluster.local.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR, "nr.prod.svc.cluster.local. 5 IN A 10.42.0.20\n");
	ldns_pkt_free(r);
	/* no ready endpoint: NXDOMAIN, as the specification asks */
	expect_negative(ask(z, "empty.prod.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	sk_dns_zone_free(z);
}

static void test_external_name(void **state)
{
	sk_dns_zone *z = zone();
	ldns_pkt *q = query("ext.default.svc.cluster.local.", LDNS_RR_TYPE_A), *r;
	uint8_t *wire = NULL;
	size_t len;
	struct sk_dns_reply rep;
	char *a;

	/* out of the zone: the CNAME so far, and its target to resolve */
	assert_int_equal(ldns_pkt2wire(&wire, q, &len), LDNS_STATUS_OK);
	ldns_pkt_free(q);
	sk_dns_zone_serve(z, wire, len, false, &rep);
	free(wire);
	assert_int_equal(rep.action, SK_DNS_FORWARD);
	assert_non_null(rep.partial);
	a = ldns_rdf2str(rep.chase);
	assert_string_equal(a, "www.example.com.");
	free(a);
	a = section(rep.partial, LDNS_SECTION_ANSWER);
	assert_string_equal(a, "ext.default.svc.cluster.local. 5 IN CNAME www.example.com.\n");
	free(a);
	sk_dns_reply_release(&rep);
	/* asked for the CNAME itself */
	r = ask(z, "ext.default.svc.cluster.local.", LDNS_RR_TYPE_CNAME);
	expect(r, LDNS_RCODE_NOERROR, "ext.default.svc.cluster.local. 5 IN CNAME www.example.com.\n");
	ldns_pkt_free(r);
	/* into the zone: followed */
	r = ask(z, "alias.default.svc.cluster.local.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR,
	       "alias.default.svc.cluster.local. 5 IN CNAME web.default.svc.cluster.local.\n"
	       "web.default.svc.cluster.local. 5 IN A 10.43.0.5\n");
	ldns_pkt_free(r);
	/* an ExternalName that is no host name makes no record */
	expect_negative(ask(z, "bad.default.svc.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	sk_dns_zone_free(z);
}

static void test_pod_and_apex(void **state)
{
	sk_dns_zone *z = zone();
	ldns_pkt *r = ask(z, "10-42-0-7.default.pod.cluster.local.", LDNS_RR_TYPE_A);

	expect(r, LDNS_RCODE_NOERROR, "10-42-0-7.default.pod.cluster.local. 5 IN A 10.42.0.7\n");
	ldns_pkt_free(r);
	expect_negative(ask(z, "10-42-0-7.default.pod.cluster.local.", LDNS_RR_TYPE_AAAA), LDNS_RCODE_NOERROR);
	r = ask(z, "fd00--7.default.pod.cluster.local.", LDNS_RR_TYPE_AAAA);
	expect(r, LDNS_RCODE_NOERROR, "fd00--7.default.pod.cluster.local. 5 IN AAAA fd00::7\n");
	ldns_pkt_free(r);
	expect_negative(ask(z, "10-42-0.default.pod.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	expect_negative(ask(z, "x.10-42-0-7.default.pod.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NXDOMAIN);
	expect_negative(ask(z, "pod.cluster.local.", LDNS_RR_TYPE_A), LDNS_RCODE_NOERROR);
	r = ask(z, "dns-version.cluster.local.", LDNS_RR_TYPE_TXT);
	expect(r, LDNS_RCODE_NOERROR, "dns-version.cluster.local. 28800 IN TXT \"1.1.0\"\n");
	ldns_pkt_free(r);
	r = ask(z, "cluster.local.", LDNS_RR_TYPE_NS);
	expect(r, LDNS_RCODE_NOERROR, "cluster.local. 5 IN NS ns.dns.cluster.local.\n");
	ldns_pkt_free(r);
	r = ask(z, "ns.dns.cluster.local.", LDNS_RR_TYPE_A);
	expect(r, LDNS_RCODE_NOERROR, "ns.dns.cluster.local. 5 IN A 10.43.0.10\n");
	ldns_pkt_free(r);
	r = ask(z, "Cluster.Local.", LDNS_RR_TYPE_SOA);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(r)), 1);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_answer(r), 0)), LDNS_RR_TYPE_SOA);
	ldns_pkt_free(r);
	sk_dns_zone_free(z);
}

static void test_forward_and_malformed(void **state)
{
	sk_dns_zone *z = zone();
	const uint8_t junk[] = {0x12, 0x34, 0x01, 0x00, 0x00, 0x05};
	struct sk_dns_reply rep;
	ldns_pkt *q, *r;
	int action;

	r = serve_pkt(z, query("example.org.", LDNS_RR_TYPE_A), false, &action);
	assert_int_equal(action, SK_DNS_FORWARD);
	assert_null(r);
	/* a reverse name the zone does not hold falls through */
	r = serve_pkt(z, query("1.1.168.192.in-addr.arpa.", LDNS_RR_TYPE_PTR), false, &action);
	assert_int_equal(action, SK_DNS_FORWARD);
	/* cluster.local.evil is not in the zone */
	r = serve_pkt(z, query("web.default.svc.cluster.local.evil.", LDNS_RR_TYPE_A), false, &action);
	assert_int_equal(action, SK_DNS_FORWARD);
	sk_dns_zone_serve(z, junk, sizeof(junk), false, &rep);
	assert_int_equal(rep.action, SK_DNS_DROP);
	sk_dns_reply_release(&rep);
	sk_dns_zone_serve(z, junk, 0, false, &rep);
	assert_int_equal(rep.action, SK_DNS_DROP);
	sk_dns_reply_release(&rep);
	/* a response is no query */
	q = query("web.default.svc.cluster.local.", LDNS_RR_TYPE_A);
	ldns_pkt_set_qr(q, true);
	assert_null(serve_pkt(z, q, false, &action));
	assert_int_equal(action, SK_DNS_DROP);
	/* two questions: FORMERR */
	q = query("web.default.svc.cluster.local.", LDNS_RR_TYPE_A);
	ldns_pkt_push_rr(q, LDNS_SECTION_QUESTION, ldns_rr_clone(ldns_rr_list_rr(ldns_pkt_question(q), 0)));
	r = serve_pkt(z, q, false, &action);
	assert_int_equal(ldns_pkt_get_rcode(r), LDNS_RCODE_FORMERR);
	ldns_pkt_free(r);
	q = query("web.default.svc.cluster.local.", LDNS_RR_TYPE_A);
	ldns_pkt_set_opcode(q, LDNS_PACKET_STATUS);
	r = serve_pkt(z, q, false, &action);
	assert_int_equal(ldns_pkt_get_rcode(r), LDNS_RCODE_NOTIMPL);
	ldns_pkt_free(r);
	r = ask(z, "cluster.local.", LDNS_RR_TYPE_AXFR);
	assert_int_equal(ldns_pkt_get_rcode(r), LDNS_RCODE_REFUSED);
	ldns_pkt_free(r);
	sk_dns_zone_free(z);
}

/* A headless Service with 100 endpoints: over UDP without EDNS (512 bytes)
 * the answer is truncated; with EDNS 1232 it still is; over TCP it is whole. */
static void test_truncation(void **state)
{
	json_t *svcs = json_pack("[{s:{s:s,s:s},s:{s:s}}]", "metadata", "name", "big", "namespace", "default", "spec",
				 "clusterIP", "None");
	json_t *eps = json_array(), *slice;
	sk_dns_zone *z;
	ldns_pkt *q, *r;
	int action;

	for (int i = 0; i < 100; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.42.1.%d", i + 1);
		json_array_append_new(eps, json_pack("{s:[s]}", "addresses", ip));
	}
	slice = json_pack("[{s:{s:s,s:s,s:{s:s}},s:s,s:o}]", "metadata", "name", "big-1", "namespace", "default",
			  "labels", "kubernetes.io/service-name", "big", "addressType", "IPv4", "endpoints", eps);
	z = sk_dns_zone_build("cluster.local", NULL, svcs, slice);
	r = serve_pkt(z, query("big.default.svc.cluster.local.", LDNS_RR_TYPE_A), false, &action);
	assert_true(ldns_pkt_tc(r));
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(r)), 0);
	ldns_pkt_free(r);
	q = query("big.default.svc.cluster.local.", LDNS_RR_TYPE_A);
	ldns_pkt_set_edns_udp_size(q, 4096);
	r = serve_pkt(z, q, false, &action);
	assert_true(ldns_pkt_tc(r));
	assert_true(ldns_pkt_edns(r));
	ldns_pkt_free(r);
	r = serve_pkt(z, query("big.default.svc.cluster.local.", LDNS_RR_TYPE_A), true, &action);
	assert_false(ldns_pkt_tc(r));
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(r)), 100);
	ldns_pkt_free(r);
	sk_dns_zone_free(z);
	json_decref(svcs);
	json_decref(slice);
}

static void test_bad_domain(void **state)
{
	assert_null(sk_dns_zone_build("", NULL, NULL, NULL));
	assert_null(sk_dns_zone_build("a..b", NULL, NULL, NULL));
	sk_dns_zone_free(sk_dns_zone_build("cluster.local.", NULL, NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_ip),     cmocka_unit_test(test_negative),
		cmocka_unit_test(test_srv_and_ptr),    cmocka_unit_test(test_headless),
		cmocka_unit_test(test_external_name),  cmocka_unit_test(test_pod_and_apex),
		cmocka_unit_test(test_forward_and_malformed), cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_bad_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
