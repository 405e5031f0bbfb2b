/* The Service dataplane's rules (src/agent/proxy-rules.c): golden snippets
 * of the nft script generated from Services and EndpointSlices, the
 * partial sync's script, and (as root, in a network namespace of its own)
 * the kernel accepting the full, partial and repairing full transactions. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/proxy.h"
#include "util/util.h"

static const sk_proxy_config cfg = {
	.table = "skiff-skunit",
	.bridge = "skunit",
	.node_name = "n1",
	.pod_cidr = "10.42.1.0/24",
	.gateway = "10.42.1.1",
	.cluster_cidr = "10.42.0.0/16",
	.service_cidr = "10.43.0.0/16",
	.cluster_dns = "10.43.0.10",
};

static json_t *J(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

static json_t *svc(const char *name, const char *spec)
{
	cleanup_free char *t = xasprintf("{\"metadata\":{\"namespace\":\"default\",\"name\":\"%s\"},\"spec\":%s}", name,
					 spec);

	return J(t);
}

/* A slice for service name with port (name "http" unless pname) and
 * endpoints eps (JSON array text). */
static json_t *slice(const char *svcname, const char *suffix, const char *ports, const char *eps)
{
	cleanup_free char *t = xasprintf("{\"metadata\":{\"namespace\":\"default\",\"name\":\"%s-%s\",\"labels\":"
					 "{\"kubernetes.io/service-name\":\"%s\"}},\"addressType\":\"IPv4\","
					 "\"ports\":%s,\"endpoints\":%s}",
					 svcname, suffix, svcname, ports, eps);

	return J(t);
}

static json_t *model(json_t *svcs, json_t *slices, json_t *nodes, json_t *prev)
{
	sk_proxy_input in = {.services = svcs, .slices = slices, .nodes = nodes};

	return sk_proxy_model(&cfg, &in, prev);
}

static char *script_of(json_t *svcs, json_t *slices, json_t *nodes)
{
	cleanup_json json_t *m = model(svcs, slices, nodes, NULL);

	return sk_proxy_script(&cfg, NULL, m, NULL);
}

#define assert_has(s, needle) \
	do { \
		if (!strstr((s), (needle))) { \
			fputs((s), stderr); \
			fail_msg("missing:\n%s", (needle)); \
		} \
	} while (0)
#define assert_lacks(s, needle) \
	do { \
		if (strstr((s), (needle))) { \
			fputs((s), stderr); \
			fail_msg("unexpected:\n%s", (needle)); \
		} \
	} while (0)

#define WEB_SPEC "{\"clusterIP\":\"10.43.0.20\",\"ports\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"TCP\"}]}"
#define HTTP_PORT "[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}]"
#define EP(ip, node, ready) \
	"{\"addresses\":[\"" ip "\"],\"nodeName\":\"" node "\",\"conditions\":{\"ready\":" ready "}}"

static void test_clusterip_balances_ready_endpoints(void **state)
{
	cleanup_json json_t *svcs = json_pack("[o]", svc("web", WEB_SPEC));
	cleanup_json json_t *slices = json_pack(
		"[o]", slice("web", "1", HTTP_PORT,
			     "[" EP("10.42.1.5", "n1", "true") "," EP("10.42.2.5", "n2",
								      "true") "," EP("10.42.2.6", "n2", "false") "]"));
	cleanup_free char *s = script_of(svcs, slices, NULL);

	assert_has(s, "add element ip skiff-skunit service-ips { 10.43.0.20 . tcp . 80 : goto "
		      "service-UARQTUAX-default/web/tcp/http }\n");
	assert_has(s, "add rule ip skiff-skunit service-UARQTUAX-default/web/tcp/http ip daddr 10.43.0.20 tcp dport "
		      "80 ip saddr != @pod-cidrs jump mark-for-masquerade\n");
	assert_has(s, "add rule ip skiff-skunit service-UARQTUAX-default/web/tcp/http numgen random mod 2 vmap { 0 : "
		      "goto endpoint-K74E7T4O-default/web/tcp/http__10.42.1.5/8080, 1 : goto "
		      "endpoint-RNAVNUUX-default/web/tcp/http__10.42.2.5/8080 }\n");
	/* hairpin: pod -> Service -> pod on the bridge is masqueraded in
	 * postrouting, not per endpoint */
	assert_lacks(s, "ip saddr 10.42.1.5 jump mark-for-masquerade");
	assert_has(s,
		   "add rule ip skiff-skunit nat-postrouting ip saddr 10.42.1.0/24 oifname \"skunit\" ct status dnat "
		   "masquerade\n");
	assert_has(s, "add rule ip skiff-skunit endpoint-K74E7T4O-default/web/tcp/http__10.42.1.5/8080 meta l4proto "
		      "tcp dnat to 10.42.1.5:8080\n");
	assert_lacks(s, "10.42.2.6");
	/* other ports of the ClusterIP are refused after DNAT */
	assert_has(s, "add element ip skiff-skunit cluster-ips { 10.43.0.20 : goto reject-chain }\n");
	assert_has(s, "add rule ip skiff-skunit filter-output-post-dnat ct state new jump cluster-ips-check\n");
	/* node-local DNS before the Services, masquerade of the pods' egress */
	assert_has(s, "add rule ip skiff-skunit nat-prerouting iifname \"skunit\" ip daddr 10.43.0.10 udp dport 53 "
		      "dnat to 10.42.1.1:53\n"
		      "add rule ip skiff-skunit nat-prerouting iifname \"skunit\" ip daddr 10.43.0.10 tcp dport 53 "
		      "dnat to 10.42.1.1:53\n"
		      "add rule ip skiff-skunit nat-prerouting jump services\n");
	assert_has(s, "add rule ip skiff-skunit nat-postrouting ip saddr 10.42.1.0/24 ip daddr != @pod-cidrs ip daddr "
		      "!= 10.43.0.0/16 masquerade\n");
}

static void test_no_endpoints_reject_and_fallback(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o,o]", svc("empty", "{\"clusterIP\":\"10.43.0.21\",\"ports\":[{\"port\":81,\"protocol\":\"UDP\"}]}"),
		svc("web", WEB_SPEC));
	/* no ready endpoint: the serving terminating one is used, not the other */
	cleanup_json json_t *slices = json_pack(
		"[o]", slice("web", "1", HTTP_PORT,
			     "[{\"addresses\":[\"10.42.1.7\"],\"conditions\":{\"ready\":false,\"serving\":true,"
			     "\"terminating\":true}},{\"addresses\":[\"10.42.1.8\"],\"conditions\":{\"ready\":false,"
			     "\"serving\":false,\"terminating\":true}}]"));
	cleanup_free char *s = script_of(svcs, slices, NULL);

	assert_has(s,
		   "add element ip skiff-skunit no-endpoint-services { 10.43.0.21 . udp . 81 : goto reject-chain }\n");
	assert_has(s, "add rule ip skiff-skunit reject-chain reject\n");
	assert_lacks(s, "default/empty/udp/ ");
	assert_has(s, "numgen random mod 1 vmap { 0 : goto endpoint-");
	assert_has(s, "dnat to 10.42.1.7:8080");
	assert_lacks(s, "10.42.1.8");
}

static void test_node_port_and_traffic_policies(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o,o]",
		svc("np",
		    "{\"type\":\"NodePort\",\"clusterIP\":\"10.43.0.30\",\"ports\":[{\"name\":\"http\",\"port\":80,"
		    "\"nodePort\":30080}]}"),
		svc("loc",
		    "{\"type\":\"NodePort\",\"externalTrafficPolicy\":\"Local\",\"internalTrafficPolicy\":"
		    "\"Local\",\"clusterIP\":\"10.43.0.31\",\"ports\":[{\"name\":\"http\",\"port\":80,\"nodePort\":"
		    "30081}]}"));
	cleanup_json json_t *slices = json_pack(
		"[o,o]", slice("np", "1", HTTP_PORT, "[" EP("10.42.2.5", "n2", "true") "]"),
		slice("loc", "1", HTTP_PORT, "[" EP("10.42.1.5", "n1", "true") "," EP("10.42.2.5", "n2", "true") "]"));
	cleanup_free char *s = script_of(svcs, slices, NULL);

	/* Cluster: external traffic is masqueraded and goes anywhere */
	assert_has(s, "tcp . 30080 : goto external-");
	assert_has(s, "external-GS2OYCIE-default/np/tcp/http jump mark-for-masquerade\n");
	assert_has(s, "external-GS2OYCIE-default/np/tcp/http goto service-GS2OYCIE-default/np/tcp/http\n");
	/* Local: the ClusterIP and the NodePort reach the local endpoint only,
	 * external clients keep their address */
	assert_has(s, "10.43.0.31 . tcp . 80 : goto local-");
	assert_has(s, "local-IKN6FHNO-default/loc/tcp/http numgen random mod 1 vmap { 0 : goto "
		      "endpoint-");
	assert_has(s, "__10.42.1.5/8080 }\n");
	assert_has(s, "external-IKN6FHNO-default/loc/tcp/http goto local-IKN6FHNO-default/loc/tcp/http\n");
	assert_lacks(s, "external-IKN6FHNO-default/loc/tcp/http jump mark-for-masquerade\n");
	assert_lacks(s, "service-IKN6FHNO-default/loc/tcp/http");
}

static void test_external_and_load_balancer_ips(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o]",
		svc("lb", "{\"type\":\"LoadBalancer\",\"clusterIP\":\"10.43.0.50\",\"externalIPs\":[\"192.0.2.50\"],"
			  "\"ports\":[{\"name\":\"http\",\"port\":80,\"nodePort\":30050}]}"));
	cleanup_json json_t *slices = json_pack("[o]",
						slice("lb", "1", HTTP_PORT, "[" EP("10.42.2.5", "n2", "true") "]"));
	cleanup_free char *s = NULL;

	json_object_set_new(json_array_get(svcs, 0), "status",
			    J("{\"loadBalancer\":{\"ingress\":[{\"ip\":\"198.51.100.7\"},{\"hostname\":\"x\"}]}}"));
	s = script_of(svcs, slices, NULL);
	assert_has(s, "192.0.2.50 . tcp . 80 : goto external-");
	assert_has(s, "198.51.100.7 . tcp . 80 : goto external-");
	assert_has(s, "tcp . 30050 : goto external-");
}

static void test_local_policy_without_local_endpoints_drops(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o]", svc("loc", "{\"type\":\"NodePort\",\"externalTrafficPolicy\":\"Local\",\"clusterIP\":"
				  "\"10.43.0.31\",\"ports\":[{\"name\":\"http\",\"port\":80,\"nodePort\":30081}]}"));
	cleanup_json json_t *slices = json_pack("[o]",
						slice("loc", "1", HTTP_PORT, "[" EP("10.42.2.5", "n2", "true") "]"));
	cleanup_free char *s = script_of(svcs, slices, NULL);

	/* the ClusterIP works (Cluster internal policy); outside clients of the
	 * NodePort are dropped, pods and the node short-circuit to any endpoint */
	assert_has(s, "10.43.0.31 . tcp . 80 : goto service-");
	assert_has(s, "add element ip skiff-skunit no-endpoint-nodeports { tcp . 30081 : drop }\n");
	assert_has(s, "external-IKN6FHNO-default/loc/tcp/http ip saddr @pod-cidrs goto "
		      "service-IKN6FHNO-default/loc/tcp/http\n");
	assert_has(s, "external-IKN6FHNO-default/loc/tcp/http fib saddr type local jump mark-for-masquerade\n");
}

static void test_session_affinity(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o]",
		svc("web", "{\"clusterIP\":\"10.43.0.20\",\"sessionAffinity\":\"ClientIP\",\"sessionAffinityConfig\":"
			   "{\"clientIP\":{\"timeoutSeconds\":60}},\"ports\":[{\"name\":\"http\",\"port\":80}]}"));
	cleanup_json json_t *slices = json_pack("[o]",
						slice("web", "1", HTTP_PORT, "[" EP("10.42.1.5", "n1", "true") "]"));
	cleanup_free char *s = script_of(svcs, slices, NULL);

	assert_has(s, "add set ip skiff-skunit affinity-");
	assert_has(s,
		   "-default/web/tcp/http__10.42.1.5/8080 { type ipv4_addr; flags dynamic,timeout; timeout 60s; }\n");
	assert_has(s, "update @affinity-");
	assert_has(s, "service-UARQTUAX-default/web/tcp/http ip saddr @affinity-");
}

static void test_pod_cidrs_without_overlaps(void **state)
{
	cleanup_json json_t *nodes = J("[{\"spec\":{\"podCIDR\":\"10.42.7.0/24\"}},{\"spec\":{\"podCIDRs\":"
				       "[\"10.99.3.0/24\"]}},{\"spec\":{\"podCIDR\":\"bogus\"}}]");
	cleanup_free char *s = script_of(NULL, NULL, nodes);

	assert_has(s, "add element ip skiff-skunit pod-cidrs { 10.42.0.0/16, 10.99.3.0/24 }\n");
}

static void test_bad_objects_are_skipped(void **state)
{
	cleanup_json json_t *svcs = J("[{}, {\"spec\":{\"clusterIP\":\"None\"}}, {\"spec\":{\"clusterIP\":\"x\"}},"
				      "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"clusterIP\":\"10.43.0.5\",\"ports\":"
				      "[{\"port\":-1},{\"port\":80,\"protocol\":\"ICMP\"},7,{\"port\":\"80\"}]}}]");
	cleanup_json json_t *slices = J("[{}, {\"metadata\":{\"labels\":{\"kubernetes.io/service-name\":\"a\"}},"
					"\"ports\":7,\"endpoints\":[{\"addresses\":[\"::1\"]}]}]");
	cleanup_json json_t *nodes = J("[1]");
	cleanup_free char *s = script_of(svcs, slices, nodes);

	assert_lacks(s, "10.43.0.5 .");
}

static void test_partial_sync_touches_what_changed(void **state)
{
	cleanup_json json_t *svcs = json_pack("[o,o]", svc("web", WEB_SPEC),
					      svc("other",
						  "{\"clusterIP\":\"10.43.0.40\",\"ports\":[{\"name\":\"http\","
						  "\"port\":80}]}"));
	cleanup_json json_t *s1 = json_pack("[o,o]",
					    slice("web", "1", HTTP_PORT, "[" EP("10.42.1.5", "n1", "true") "]"),
					    slice("other", "1", HTTP_PORT, "[" EP("10.42.1.9", "n1", "true") "]"));
	cleanup_json json_t *s2 = json_pack(
		"[o,o]",
		slice("web", "1", HTTP_PORT, "[" EP("10.42.1.5", "n1", "true") "," EP("10.42.1.6", "n1", "true") "]"),
		slice("other", "1", HTTP_PORT, "[" EP("10.42.1.9", "n1", "true") "]"));
	cleanup_json json_t *m1 = model(svcs, s1, NULL, NULL);
	cleanup_json json_t *m2 = model(svcs, s2, NULL, NULL);
	cleanup_free char *same = sk_proxy_script(&cfg, m1, m1, NULL);
	cleanup_free char *grow = sk_proxy_script(&cfg, m1, m2, NULL);
	cleanup_free char *shrink = sk_proxy_script(&cfg, m2, m1, NULL);

	assert_string_equal(same, "");
	/* a service whose objects are the same shares its fragment */
	{
		cleanup_json json_t *s3 = json_pack("[O,O]", json_array_get(s2, 0), json_array_get(s1, 1));
		cleanup_json json_t *m3 = model(svcs, s3, NULL, m1);
		json_t *f1 = json_object_get(json_object_get(m1, "services"), "default/other");

		assert_ptr_equal(json_object_get(json_object_get(m3, "services"), "default/other"), f1);
		assert_ptr_not_equal(json_object_get(json_object_get(m3, "services"), "default/web"),
				     json_object_get(json_object_get(m1, "services"), "default/web"));
	}
	assert_has(grow, "add chain ip skiff-skunit endpoint-");
	assert_has(grow, "flush chain ip skiff-skunit service-UARQTUAX-default/web/tcp/http\n");
	assert_has(grow, "numgen random mod 2");
	assert_lacks(grow, "other");
	assert_lacks(grow, "flush map");
	assert_lacks(grow, "element");
	assert_has(shrink, "flush chain ip skiff-skunit endpoint-");
	assert_has(shrink, "delete chain ip skiff-skunit endpoint-");
	assert_lacks(shrink, "other");
}

/* As root: the kernel takes the full script, a partial one, and a full one
 * over a table that holds chains the model no longer has. */
static void test_kernel_accepts_transactions(void **state)
{
	cleanup_json json_t *svcs = json_pack(
		"[o,o]",
		svc("web",
		    "{\"type\":\"NodePort\",\"clusterIP\":\"10.43.0.20\",\"sessionAffinity\":\"ClientIP\",\"ports\":"
		    "[{\"name\":\"http\",\"port\":80,\"nodePort\":30080},{\"name\":\"dns\",\"port\":53,"
		    "\"protocol\":\"UDP\"}]}"),
		svc("empty", "{\"clusterIP\":\"10.43.0.21\",\"ports\":[{\"port\":81,\"protocol\":\"SCTP\"}]}"));
	cleanup_json json_t *s1 = json_pack("[o]", slice("web", "1", HTTP_PORT, "[" EP("10.42.1.5", "n1", "true") "]"));
	cleanup_json json_t *s2 = json_pack(
		"[o]",
		slice("web", "1", HTTP_PORT, "[" EP("10.42.1.6", "n1", "true") "," EP("10.42.2.6", "n2", "true") "]"));
	cleanup_json json_t *m1 = model(svcs, s1, NULL, NULL);
	cleanup_json json_t *m2 = model(svcs, s2, NULL, NULL);
	cleanup_json json_t *m3 = model(NULL, NULL, NULL, NULL);
	cleanup_json json_t *existing = NULL;
	sk_error_t err = {0};
	sk_proxy_dp *dp;

	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0)
		skip();
	dp = sk_proxy_dp_new(cfg.table, &err);
	assert_non_null(dp);
	if (sk_proxy_dp_apply(dp, &cfg, m1, true, &err) < 0)
		fail_msg("full: %s", err.msg);
	if (sk_proxy_dp_apply(dp, &cfg, m2, false, &err) < 0)
		fail_msg("partial: %s", err.msg);
	existing = sk_proxy_dp_existing(dp, &err);
	assert_non_null(json_object_get(json_object_get(existing, "chains"),
					"endpoint-WVGMDITI-default/web/tcp/http__10.42.2.6/8080"));
	assert_null(json_object_get(json_object_get(existing, "chains"),
				    "endpoint-K74E7T4O-default/web/tcp/http__10.42.1.5/8080"));
	json_decref(existing);
	/* a new process: the model applied is unknown, the table is repaired */
	sk_proxy_dp_free(dp);
	dp = sk_proxy_dp_new(cfg.table, &err);
	if (sk_proxy_dp_apply(dp, &cfg, m3, false, &err) < 0)
		fail_msg("repairing full: %s", err.msg);
	existing = sk_proxy_dp_existing(dp, &err);
	assert_null(json_object_get(json_object_get(existing, "chains"), "service-UARQTUAX-default/web/tcp/http"));
	assert_non_null(json_object_get(json_object_get(existing, "chains"), "services"));
	assert_int_equal(json_object_size(json_object_get(existing, "sets")), 8);
	sk_proxy_dp_free(dp);
	assert_int_equal(sk_proxy_table_delete(cfg.table, &err), 0);
	assert_int_equal(sk_proxy_table_delete(cfg.table, &err), 0);
}

/* ---- NetworkPolicy ---------------------------------------------------------------- */

static json_t *pod(const char *ns, const char *name, const char *ip, const char *node, const char *labels,
		   const char *ports)
{
	cleanup_free char *t = xasprintf(
		"{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\",\"labels\":%s},"
		"\"spec\":{\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\",\"ports\":%s}]},"
		"\"status\":{\"phase\":\"Running\",\"podIP\":\"%s\"}}",
		ns, name, labels, node, ports, ip);

	return J(t);
}

static char *policy_script(json_t *policies, json_t *pods, json_t *nss)
{
	sk_proxy_input in = {.policies = policies, .pods = pods, .namespaces = nss};
	cleanup_json json_t *m = sk_proxy_model(&cfg, &in, NULL);

	return sk_proxy_script(&cfg, NULL, m, NULL);
}

#define NP(ns, spec) "{\"metadata\":{\"namespace\":\"" ns "\",\"name\":\"np\"},\"spec\":" spec "}"

static json_t *policy_pods(void)
{
	return json_pack("[o,o,o,o,o]",
			 pod("prod", "db", "10.42.1.10", "n1", "{\"app\":\"db\"}",
			     "[{\"name\":\"sql\",\"containerPort\":5432}]"),
			 pod("prod", "web", "10.42.1.11", "n1", "{\"app\":\"web\"}", "[]"),
			 pod("prod", "remote", "10.42.2.12", "n2", "{\"app\":\"web\"}", "[]"),
			 pod("dev", "tool", "10.42.2.13", "n2", "{\"app\":\"web\"}",
			     "[{\"name\":\"api\",\"containerPort\":9000}]"),
			 pod("prod", "other", "10.42.1.14", "n1", "{\"app\":\"other\"}", "[]"));
}

static void test_policy_ingress_from_pods_and_named_port(void **state)
{
	cleanup_json json_t *pods = policy_pods();
	cleanup_json json_t *nps = json_pack(
		"[o]",
		J(NP("prod",
		     "{\"podSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"policyTypes\":[\"Ingress\"],"
		     "\"ingress\":[{\"from\":[{\"podSelector\":{\"matchLabels\":{\"app\":\"web\"}}}],"
		     "\"ports\":[{\"port\":\"sql\"},{\"port\":8000,\"endPort\":8010,\"protocol\":\"UDP\"}]}]}")));
	cleanup_free char *s = policy_script(nps, pods, NULL);

	/* only the local db pod gets a chain; peers anywhere in its namespace */
	assert_has(s, "add element ip skiff-skunit policy-ingress { 10.42.1.10 : jump policy-ingress-10.42.1.10 }\n");
	assert_has(s, "add rule ip skiff-skunit policy-ingress-10.42.1.10 ip saddr { 10.42.1.11, 10.42.2.12 } meta "
		      "l4proto tcp th dport 5432 return\n");
	assert_has(s, "add rule ip skiff-skunit policy-ingress-10.42.1.10 ip saddr { 10.42.1.11, 10.42.2.12 } meta "
		      "l4proto udp th dport 8000-8010 return\n");
	assert_has(s, "add rule ip skiff-skunit policy-ingress-10.42.1.10 drop\n");
	assert_lacks(s, "10.42.2.13");
	assert_lacks(s, "policy-ingress-10.42.1.11");
	assert_lacks(s, "policy-egress-");
	assert_has(s, "add rule ip skiff-skunit filter-forward ct state new jump network-policy\n");
}

static void test_policy_namespace_selector_and_ip_block(void **state)
{
	cleanup_json json_t *pods = policy_pods();
	cleanup_json json_t *nss = J("[{\"metadata\":{\"name\":\"dev\",\"labels\":{\"team\":\"dev\"}}},"
				     "{\"metadata\":{\"name\":\"prod\"}}]");
	cleanup_json json_t *nps = json_pack(
		"[o]",
		J(NP("prod", "{\"podSelector\":{},\"ingress\":[{\"from\":[{\"namespaceSelector\":{\"matchLabels\":"
			     "{\"team\":\"dev\"}}},{\"namespaceSelector\":{\"matchLabels\":{\"kubernetes.io/metadata."
			     "name\":\"prod\"}},\"podSelector\":{\"matchLabels\":{\"app\":\"other\"}}},{\"ipBlock\":{"
			     "\"cidr\":\"192.168.0.0/16\",\"except\":[\"192.168.1.0/24\"]}}]}]}")));
	cleanup_free char *s = policy_script(nps, pods, nss);

	assert_has(s,
		   "add rule ip skiff-skunit policy-ingress-10.42.1.11 ip saddr { 10.42.2.13, 10.42.1.14 } return\n");
	assert_has(s, "add rule ip skiff-skunit policy-ingress-10.42.1.11 ip saddr 192.168.0.0/16 ip saddr != { "
		      "192.168.1.0/24 } return\n");
	/* every local pod of prod is selected (podSelector {}) */
	assert_has(s, "10.42.1.10 : jump policy-ingress-10.42.1.10");
	assert_has(s, "10.42.1.14 : jump policy-ingress-10.42.1.14");
}

static void test_policy_egress_deny_and_named_port(void **state)
{
	cleanup_json json_t *pods = policy_pods();
	cleanup_json json_t *nps = json_pack(
		"[o,o]",
		J(NP("prod", "{\"podSelector\":{\"matchLabels\":{\"app\":\"other\"}},\"policyTypes\":[\"Egress\"]}")),
		J("{\"metadata\":{\"namespace\":\"prod\",\"name\":\"np2\"},\"spec\":{\"podSelector\":{\"matchLabels\":"
		  "{\"app\":\"web\"}},\"policyTypes\":[\"Egress\"],\"egress\":[{\"ports\":[{\"port\":\"api\"}]}]}}"));
	cleanup_free char *s = policy_script(nps, pods, NULL);

	/* no egress rules: nothing allowed */
	assert_has(s, "10.42.1.14 : jump policy-egress-10.42.1.14");
	assert_has(s, "add rule ip skiff-skunit policy-egress-10.42.1.14 drop\n");
	/* a named port to anyone: each pod that has it, by its own number */
	assert_has(s, "add rule ip skiff-skunit policy-egress-10.42.1.11 ip daddr 10.42.2.13 meta l4proto tcp th dport "
		      "9000 return\n");
	assert_lacks(s, "policy-ingress-10.42.1.11 ");
}

/* As root: the kernel takes policy chains and their maps, and a partial
 * sync that drops them again. */
static void test_kernel_accepts_policies(void **state)
{
	cleanup_json json_t *pods = policy_pods();
	cleanup_json json_t *nps = json_pack(
		"[o]",
		J(NP("prod",
		     "{\"podSelector\":{},\"policyTypes\":[\"Ingress\",\"Egress\"],\"ingress\":[{\"from\":"
		     "[{\"podSelector\":{}},{\"ipBlock\":{\"cidr\":\"10.0.0.0/8\",\"except\":[\"10.9.0.0/16\"]}}],"
		     "\"ports\":[{\"port\":\"sql\"},{\"port\":80,\"endPort\":90}]}]}")));
	sk_proxy_input in = {.policies = nps, .pods = pods};
	sk_proxy_input none = {0};
	cleanup_json json_t *m1 = sk_proxy_model(&cfg, &in, NULL);
	cleanup_json json_t *m2 = sk_proxy_model(&cfg, &none, m1);
	sk_error_t err = {0};
	sk_proxy_dp *dp;

	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0)
		skip();
	dp = sk_proxy_dp_new(cfg.table, &err);
	if (sk_proxy_dp_apply(dp, &cfg, m1, true, &err) < 0)
		fail_msg("full: %s", err.msg);
	if (sk_proxy_dp_apply(dp, &cfg, m2, false, &err) < 0)
		fail_msg("partial: %s", err.msg);
	sk_proxy_dp_free(dp);
	assert_int_equal(sk_proxy_table_delete(cfg.table, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clusterip_balances_ready_endpoints),
		cmocka_unit_test(test_no_endpoints_reject_and_fallback),
		cmocka_unit_test(test_node_port_and_traffic_policies),
		cmocka_unit_test(test_local_policy_without_local_endpoints_drops),
		cmocka_unit_test(test_external_and_load_balancer_ips),
		cmocka_unit_test(test_session_affinity),
		cmocka_unit_test(test_pod_cidrs_without_overlaps),
		cmocka_unit_test(test_bad_objects_are_skipped),
		cmocka_unit_test(test_partial_sync_touches_what_changed),
		cmocka_unit_test(test_kernel_accepts_transactions),
		cmocka_unit_test(test_policy_ingress_from_pods_and_named_port),
		cmocka_unit_test(test_policy_namespace_selector_and_ip_block),
		cmocka_unit_test(test_policy_egress_deny_and_named_port),
		cmocka_unit_test(test_kernel_accepts_policies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
