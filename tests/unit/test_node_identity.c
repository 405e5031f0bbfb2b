/* A credential per node: the Node authorizer's graph and decisions
 * (src/api/authz-node.c), CertificateSigningRequest validation
 * (src/api/csr.c) and the kubelet client request checks (src/kube/csr.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "api/admission.h"
#include "api/api-int.h"
#include "api/authz-node.h"
#include "client/nodecert.h"
#include "kube/csr.h"
#include "util/util.h"

extern const sk_kind_ops sk__csr_ops;
extern const sk_adm_plugin sk__adm_node_restriction;

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *o = json_loads(text, 0, &e);

	if (!o)
		fail_msg("bad JSON: %s", e.text);
	return o;
}

/* ---- the graph ---- */

static const char pod_a[] =
	"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n1\","
	"\"serviceAccountName\":\"sa1\",\"imagePullSecrets\":[{\"name\":\"pull\"}],"
	"\"initContainers\":[{\"envFrom\":[{\"configMapRef\":{\"name\":\"cm-init\"}}]}],"
	"\"containers\":[{\"env\":[{\"name\":\"X\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"env-s\",\"key\":\"k\"}}}"
	","
	"{\"name\":\"Y\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"env-cm\",\"key\":\"k\"}}}],"
	"\"envFrom\":[{\"secretRef\":{\"name\":\"from-s\"}}]}],"
	"\"volumes\":[{\"name\":\"v1\",\"secret\":{\"secretName\":\"vol-s\"}},"
	"{\"name\":\"v2\",\"configMap\":{\"name\":\"vol-cm\"}},"
	"{\"name\":\"v3\",\"projected\":{\"sources\":[{\"secret\":{\"name\":\"proj-s\"}},{\"configMap\":{\"name\":"
	"\"proj-cm\"}}]}},"
	"{\"name\":\"v4\",\"persistentVolumeClaim\":{\"claimName\":\"claim\"}},"
	"{\"name\":\"eph\",\"ephemeral\":{\"volumeClaimTemplate\":{}}},"
	"{\"name\":\"v5\",\"csi\":{\"driver\":\"d\",\"nodePublishSecretRef\":{\"name\":\"csi-s\"}}}]}}";

static void test_graph_follows_every_reference(void **state)
{
	sk_node_graph *g = sk__node_graph_new();
	json_t *pod = load(pod_a), *pvc = load("{\"spec\":{\"volumeName\":\"pv-1\"}}");
	static const char *const secrets[] = {"pull", "env-s", "from-s", "vol-s", "proj-s", "csi-s", NULL};
	static const char *const cms[] = {"cm-init", "env-cm", "vol-cm", "proj-cm", NULL};

	(void)state;
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", pod);
	for (int i = 0; secrets[i]; i++) {
		assert_true(sk__node_graph_has(g, "n1", "secrets", "ns", secrets[i]));
		assert_false(sk__node_graph_has(g, "n2", "secrets", "ns", secrets[i]));
		assert_false(sk__node_graph_has(g, "n1", "secrets", "other", secrets[i]));
	}
	for (int i = 0; cms[i]; i++)
		assert_true(sk__node_graph_has(g, "n1", "configmaps", "ns", cms[i]));
	assert_false(sk__node_graph_has(g, "n1", "secrets", "ns", "vol-cm"));
	assert_true(sk__node_graph_has(g, "n1", "serviceaccounts", "ns", "sa1"));
	assert_true(sk__node_graph_has(g, "n1", "persistentvolumeclaims", "ns", "claim"));
	assert_true(sk__node_graph_has(g, "n1", "persistentvolumeclaims", "ns", "a-eph"));
	/* a volume through its bound claim */
	assert_false(sk__node_graph_has(g, "n1", "persistentvolumes", "", "pv-1"));
	sk__node_graph_set_pvc(g, "ns/claim", pvc);
	assert_true(sk__node_graph_has(g, "n1", "persistentvolumes", "", "pv-1"));
	assert_false(sk__node_graph_has(g, "n2", "persistentvolumes", "", "pv-1"));
	assert_true(sk__node_graph_refs_any(g, "n1", "secrets"));
	assert_false(sk__node_graph_refs_any(g, "n2", "secrets"));
	sk__node_graph_set_pvc(g, "ns/claim", NULL);
	assert_false(sk__node_graph_has(g, "n1", "persistentvolumes", "", "pv-1"));
	json_decref(pod);
	json_decref(pvc);
	sk__node_graph_free(g);
}

static void test_graph_moves_and_counts(void **state)
{
	sk_node_graph *g = sk__node_graph_new();
	json_t *a = load("{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n1\","
			 "\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"s\"}}]}}");
	json_t *b = json_deep_copy(a), *unbound = json_deep_copy(a);

	(void)state;
	json_object_set_new(json_object_get(b, "metadata"), "name", json_string("b"));
	json_object_del(json_object_get(unbound, "spec"), "nodeName");
	/* two pods on n1 share the secret: it stays while one is left */
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", a);
	sk__node_graph_set_pod(g, "/registry/pods/ns/b", b);
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", NULL);
	assert_true(sk__node_graph_has(g, "n1", "secrets", "ns", "s"));
	sk__node_graph_set_pod(g, "/registry/pods/ns/b", NULL);
	assert_false(sk__node_graph_has(g, "n1", "secrets", "ns", "s"));
	/* an unbound pod gives no node anything; binding moves the edges */
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", unbound);
	assert_false(sk__node_graph_has(g, "n1", "secrets", "ns", "s"));
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", a);
	assert_true(sk__node_graph_has(g, "n1", "secrets", "ns", "s"));
	json_object_set_new(json_object_get(a, "spec"), "nodeName", json_string("n2"));
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", a);
	assert_false(sk__node_graph_has(g, "n1", "secrets", "ns", "s"));
	assert_true(sk__node_graph_has(g, "n2", "secrets", "ns", "s"));
	json_decref(a);
	json_decref(b);
	json_decref(unbound);
	sk__node_graph_free(g);
}

/* ---- the authorizer ---- */

static sk_authz_decision decide(sk_node_graph *g, const sk_user *u, const char *verb, const char *group,
				const char *resource, const char *sub, const char *ns, const char *name, char **reason)
{
	sk_authz_attrs a = {.user = u,
			    .verb = verb,
			    .resource_request = 1,
			    .api_group = group,
			    .api_version = "v1",
			    .resource = resource,
			    .subresource = sub,
			    .ns = ns,
			    .name = name,
			    .path = "/"};

	*reason = NULL;
	return sk__authz_node_decide(g, &a, reason);
}

static void test_authorizer(void **state)
{
	static const char *const node_groups[] = {SK_GROUP_NODES, SK_GROUP_AUTHENTICATED, NULL};
	sk_user *n1 = sk_user_new("system:node:n1", "", node_groups);
	sk_user *odd = sk_user_new("somebody", "", node_groups);
	sk_user *alice = sk_user_new("alice", "", NULL);
	sk_node_graph *g = sk__node_graph_new();
	json_t *pod = load(pod_a);
	char *why = NULL;

	(void)state;
	sk__node_graph_set_pod(g, "/registry/pods/ns/a", pod);
	assert_int_equal(decide(g, n1, "get", "", "secrets", "", "ns", "vol-s", &why), SK_AUTHZ_ALLOW);
	free(why);
	assert_int_equal(decide(g, n1, "get", "", "secrets", "", "ns", "nope", &why), SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "no relationship found between node 'n1' and this object");
	free(why);
	assert_int_equal(decide(g, n1, "list", "", "secrets", "", "ns", "", &why), SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "No Object name found");
	free(why);
	assert_int_equal(decide(g, n1, "update", "", "secrets", "", "ns", "vol-s", &why), SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "can only read resources of this type");
	free(why);
	assert_int_equal(decide(g, n1, "get", "", "configmaps", "", "ns", "vol-cm", &why), SK_AUTHZ_ALLOW);
	free(why);
	assert_int_equal(decide(g, n1, "create", "", "serviceaccounts", "token", "ns", "sa1", &why), SK_AUTHZ_ALLOW);
	free(why);
	assert_int_equal(decide(g, n1, "get", "", "serviceaccounts", "", "ns", "sa1", &why), SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "can only create tokens for individual service accounts");
	free(why);
	/* its lease; another's only by create, which admission checks */
	assert_int_equal(decide(g, n1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n1", &why),
			 SK_AUTHZ_ALLOW);
	assert_int_equal(decide(g, n1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n2", &why),
			 SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "can only access node lease with the same name as the requesting node");
	free(why);
	assert_int_equal(decide(g, n1, "get", "coordination.k8s.io", "leases", "", "default", "n1", &why),
			 SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "can only access leases in the \"kube-node-lease\" system namespace");
	free(why);
	why = NULL;
	/* NodeRules */
	assert_int_equal(decide(g, n1, "patch", "", "nodes", "status", "", "n2", &why), SK_AUTHZ_ALLOW);
	assert_int_equal(decide(g, n1, "list", "", "pods", "", "", "", &why), SK_AUTHZ_ALLOW);
	assert_int_equal(decide(g, n1, "create", "certificates.k8s.io", "certificatesigningrequests", "", "", "", &why),
			 SK_AUTHZ_ALLOW);
	assert_int_equal(decide(g, n1, "create", "", "namespaces", "", "", "", &why), SK_AUTHZ_NO_OPINION);
	assert_int_equal(decide(g, n1, "delete", "", "nodes", "", "", "n1", &why), SK_AUTHZ_NO_OPINION);
	assert_int_equal(decide(g, n1, "create", "apps", "deployments", "", "ns", "", &why), SK_AUTHZ_NO_OPINION);
	assert_null(why);
	/* not a node, or a node without a name */
	assert_int_equal(decide(g, alice, "get", "", "secrets", "", "ns", "vol-s", &why), SK_AUTHZ_NO_OPINION);
	assert_null(why);
	assert_int_equal(decide(g, odd, "get", "", "nodes", "", "", "x", &why), SK_AUTHZ_NO_OPINION);
	assert_string_equal(why, "unknown node for user \"somebody\"");
	free(why);
	assert_string_equal(sk__node_identity(n1), "n1");
	assert_null(sk__node_identity(alice));
	json_decref(pod);
	sk__node_graph_free(g);
	sk_user_free(n1);
	sk_user_free(odd);
	sk_user_free(alice);
}

/* ---- certificate requests ---- */

/* A base64 PEM request (malloc'd) for the subject's O (may be NULL) and CN. */
static char *request(const char *org, const char *cn, const char *pem_type)
{
	gnutls_x509_privkey_t key;
	gnutls_x509_crq_t crq;
	gnutls_datum_t der = {NULL, 0}, pem = {NULL, 0}, b64 = {NULL, 0};
	char *out;

	assert_int_equal(gnutls_x509_privkey_init(&key), 0);
	assert_int_equal(
		gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
		0);
	assert_int_equal(gnutls_x509_crq_init(&crq), 0);
	if (org)
		gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, org, (unsigned)strlen(org));
	gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn));
	gnutls_x509_crq_set_key(crq, key);
	assert_int_equal(gnutls_x509_crq_sign2(crq, key, GNUTLS_DIG_SHA256, 0), 0);
	assert_int_equal(gnutls_x509_crq_export2(crq, GNUTLS_X509_FMT_DER, &der), 0);
	assert_int_equal(gnutls_pem_base64_encode2(pem_type, &der, &pem), 0);
	assert_int_equal(gnutls_base64_encode2(&pem, &b64), 0);
	out = xstrndup((char *)b64.data, b64.size);
	gnutls_free(der.data);
	gnutls_free(pem.data);
	gnutls_free(b64.data);
	gnutls_x509_crq_deinit(crq);
	gnutls_x509_privkey_deinit(key);
	return out;
}

static json_t *csr(const char *req, const char *signer)
{
	return json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:[s,s]}}", "apiVersion", "certificates.k8s.io/v1", "kind",
			 "CertificateSigningRequest", "metadata", "name", "c", "spec", "request", req, "signerName",
			 signer, "usages", "digital signature", "client auth");
}

/* The causes' "field: message" lines joined by "\n" (malloc'd; "" when valid). */
static char *causes_text(json_t *causes)
{
	char *out = xstrdup("");
	json_t *c;
	size_t i;

	json_array_foreach(causes, i, c) {
		char *n = xasprintf("%s%s: %s\n", out, json_string_value(json_object_get(c, "field")),
				    json_string_value(json_object_get(c, "message")));

		free(out);
		out = n;
	}
	json_decref(causes);
	return out;
}

static char *check(json_t *obj, json_t *old, int sub) { return causes_text(sk__csr_ops.validate(NULL, obj, old, sub)); }

static void test_csr_validation(void **state)
{
	char *req = request("system:nodes", "system:node:n1", "CERTIFICATE REQUEST");
	char *newer = request("system:nodes", "system:node:n1", "NEW CERTIFICATE REQUEST");
	json_t *o = csr(req, SK_CSR_SIGNER_KUBELET_CLIENT), *bad;
	char *t;

	(void)state;
	t = check(o, NULL, 0);
	assert_string_equal(t, "");
	free(t);
	/* Go's pem.Decode reads the first block's type */
	bad = csr(newer, SK_CSR_SIGNER_KUBELET_CLIENT);
	t = check(bad, NULL, 0);
	assert_non_null(strstr(t, "spec.request: Invalid value: \""));
	assert_non_null(strstr(t, "PEM block type must be CERTIFICATE REQUEST"));
	free(t);
	json_decref(bad);
	bad = csr(req, "example.com");
	json_object_set_new(json_object_get(bad, "spec"), "usages", json_pack("[s,s,s]", "client auth", "x", "x"));
	json_object_set_new(json_object_get(bad, "spec"), "expirationSeconds", json_integer(599));
	t = check(bad, NULL, 0);
	assert_non_null(strstr(t, "spec.usages[1]: Unsupported value: \"x\": supported values: \"any\", "));
	assert_non_null(strstr(t, "spec.usages[2]: Duplicate value: \"x\"\n"));
	assert_non_null(strstr(t, "spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain "
				  "and path of the form 'example.com/signer-name'\n"));
	assert_non_null(strstr(t, "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than "
				  "600 seconds (10 minutes)\n"));
	free(t);
	json_object_set_new(json_object_get(bad, "spec"), "signerName", json_string("example/x"));
	json_object_set_new(json_object_get(bad, "spec"), "usages", json_array());
	t = check(bad, NULL, 0);
	assert_non_null(strstr(t, "spec.usages: Required value\n"));
	assert_non_null(strstr(t, "spec.signerName: Invalid value: \"example\": should be a domain with at least two "
				  "segments separated by dots\n"));
	free(t);
	json_object_set_new(json_object_get(bad, "spec"), "signerName", json_string(SK_CSR_SIGNER_LEGACY_UNKNOWN));
	t = check(bad, NULL, 0);
	assert_non_null(strstr(t, "the legacy signerName is not allowed via this API version"));
	free(t);
	json_decref(bad);
	free(newer);
	/* conditions: Approved and Denied exclude each other, True only */
	bad = json_deep_copy(o);
	json_object_set_new(bad, "status",
			    json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "conditions", "type", "Approved", "status",
				      "True", "type", "Denied", "status", "False"));
	t = check(bad, NULL, 0);
	assert_non_null(strstr(t, "status.conditions[1].status: Unsupported value: \"False\": supported values: "
				  "\"True\"\n"));
	assert_non_null(strstr(t, "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied "
				  "conditions are mutually exclusive\n"));
	free(t);
	json_decref(bad);
	/* updates: /status may not approve, /approval may; nobody removes an approval */
	bad = json_deep_copy(o);
	json_object_set_new(bad, "status",
			    json_pack("{s:[{s:s, s:s}]}", "conditions", "type", "Approved", "status", "True"));
	t = check(bad, o, 1);
	assert_string_equal(t, "status.conditions: Forbidden: updates may not add a condition of type \"Approved\"\n");
	free(t);
	t = check(bad, o, 2);
	assert_string_equal(t, "");
	free(t);
	t = check(o, bad, 2);
	assert_string_equal(t,
			    "status.conditions: Forbidden: updates may not remove a condition of type \"Approved\"\n");
	free(t);
	/* the certificate only through /status */
	json_object_set_new(json_object_get(bad, "status"), "certificate", json_string("bm90IGEgY2VydA=="));
	t = check(bad, o, 2);
	assert_non_null(strstr(t, "status.certificate: Forbidden: updates may not set certificate content\n"));
	free(t);
	t = check(bad, o, 1);
	assert_non_null(strstr(t, "status.certificate: Invalid value: \"<certificate data>\": must contain at least "
				  "one CERTIFICATE PEM block\n"));
	free(t);
	json_decref(bad);
	json_decref(o);
	free(req);
}

static void test_kubelet_client_request(void **state)
{
	struct {
		const char *org, *cn, *u1, *u2, *want;
	} cases[] = {
		{"system:nodes", "system:node:n1", "digital signature", "client auth", NULL},
		{"system:masters", "system:node:n1", "digital signature", "client auth",
		 "subject organization is not system:nodes"},
		{NULL, "system:node:n1", "digital signature", "client auth",
		 "subject organization is not system:nodes"},
		{"system:nodes", "n1", "digital signature", "client auth",
		 "subject common name does not begin with system:node:"},
		{"system:nodes", "system:node:n1", "digital signature", "server auth",
		 "usages did not match [client auth digital signature key encipherment]"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *req = request(cases[i].org, cases[i].cn, "CERTIFICATE REQUEST"), *why = NULL;
		json_t *usages = json_pack("[s,s]", cases[i].u1, cases[i].u2);
		gnutls_x509_crq_t crq;
		char buf[128];
		const char *p;

		assert_int_equal(sk_kube_csr_parse_b64(req, &crq, &why), 0);
		p = sk_kube_csr_kubelet_client_problem(crq, usages, buf, sizeof(buf));
		if (cases[i].want)
			assert_string_equal(p, cases[i].want);
		else
			assert_null(p);
		gnutls_x509_crq_deinit(crq);
		json_decref(usages);
		free(req);
	}
}

/* ---- the agent's certificate ---- */

static gnutls_x509_privkey_t new_key(void)
{
	gnutls_x509_privkey_t k;

	assert_int_equal(gnutls_x509_privkey_init(&k), 0);
	assert_int_equal(
		gnutls_x509_privkey_generate(k, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
		0);
	return k;
}

static char *pem_of(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key)
{
	gnutls_datum_t d = {NULL, 0};
	char *s;

	if (crt)
		assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d), 0);
	else
		assert_int_equal(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d), 0);
	s = xstrndup((char *)d.data, d.size);
	gnutls_free(d.data);
	return s;
}

/* A certificate for cn valid [nb, na], signed by ca/cakey (self-signed when NULL). */
static gnutls_x509_crt_t make_crt(const char *cn, gnutls_x509_privkey_t key, int64_t nb, int64_t na,
				  gnutls_x509_crt_t ca, gnutls_x509_privkey_t cakey)
{
	gnutls_x509_crt_t c;
	unsigned char serial[] = {1};

	assert_int_equal(gnutls_x509_crt_init(&c), 0);
	gnutls_x509_crt_set_version(c, 3);
	gnutls_x509_crt_set_serial(c, serial, 1);
	gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn));
	gnutls_x509_crt_set_key(c, key);
	gnutls_x509_crt_set_activation_time(c, (time_t)nb);
	gnutls_x509_crt_set_expiration_time(c, (time_t)na);
	if (!ca)
		gnutls_x509_crt_set_basic_constraints(c, 1, -1);
	assert_int_equal(gnutls_x509_crt_sign2(c, ca ? ca : c, ca ? cakey : key, GNUTLS_DIG_SHA256, 0), 0);
	return c;
}

static void test_nodecert_valid(void **state)
{
	int64_t now = 2000000000, at = 0;
	gnutls_x509_privkey_t cakey = new_key(), other_key = new_key(), key = new_key();
	gnutls_x509_crt_t ca = make_crt("ca", cakey, now - 1000, now + 100000, NULL, NULL);
	gnutls_x509_crt_t other = make_crt("other", other_key, now - 1000, now + 100000, NULL, NULL);
	gnutls_x509_crt_t crt = make_crt("system:node:n1", key, now - 200, now + 800, ca, cakey);
	gnutls_x509_crt_t by_other = make_crt("system:node:n1", key, now - 200, now + 800, other, other_key);
	char *ca_pem = pem_of(ca, NULL), *k = pem_of(NULL, key), *c = pem_of(crt, NULL), *o = pem_of(by_other, NULL);
	char *both = xasprintf("%s%s", c, k), *both_other = xasprintf("%s%s", o, k);

	(void)state;
	assert_true(sk_nodecert_valid(both, ca_pem, "n1", now, &at));
	assert_int_equal(at, now - 200 + 1000 * 8 / 10);
	assert_false(sk_nodecert_valid(both, ca_pem, "n2", now, NULL));
	assert_false(sk_nodecert_valid(both, ca_pem, "n1", now + 801, NULL));
	assert_false(sk_nodecert_valid(both_other, ca_pem, "n1", now, NULL));
	assert_true(sk_nodecert_valid(both_other, NULL, "n1", now, NULL));
	assert_false(sk_nodecert_valid(c, ca_pem, "n1", now, NULL)); /* no key */
	free(ca_pem);
	free(k);
	free(c);
	free(o);
	free(both);
	free(both_other);
	gnutls_x509_crt_deinit(ca);
	gnutls_x509_crt_deinit(other);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_crt_deinit(by_other);
	gnutls_x509_privkey_deinit(cakey);
	gnutls_x509_privkey_deinit(other_key);
	gnutls_x509_privkey_deinit(key);
}

/* ---- NodeRestriction and the local-path provisioner's writes ---- */

#define LOCAL_PV(node, claim)                                                                                      \
	"{\"metadata\":{\"name\":\"pvc-1\",\"annotations\":{\"pv.kubernetes.io/provisioned-by\":\"rancher.io/"      \
	"local-path\"}},\"spec\":{\"claimRef\":{\"namespace\":\"ns\",\"name\":\"" claim "\"},\"nodeAffinity\":{"    \
	"\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\","          \
	"\"operator\":\"In\",\"values\":[\"" node "\"]}]}]}}}}"

static int nr(sk_api *api, const sk_user *u, sk_adm_op op, const char *plural, const char *name, json_t *obj,
	      json_t *old, char *msg, size_t len)
{
	sk_adm_request a = {.op = op,
			    .user = u,
			    .res = sk__resource_find("", "v1", plural),
			    .sub = "",
			    .ns = strcmp(plural, "persistentvolumes") ? "ns" : "",
			    .name = name,
			    .obj = obj,
			    .old = old};
	sk_error_t err = {0};
	int rc = sk__adm_node_restriction.validate(api, &a, &err);

	snprintf(msg, len, "%s", rc < 0 ? err.msg : "");
	return rc;
}

static void test_node_restriction_volumes(void **state)
{
	static const char *const node_groups[] = {SK_GROUP_NODES, SK_GROUP_AUTHENTICATED, NULL};
	sk_user *n1 = sk_user_new("system:node:n1", "", node_groups);
	sk_api api = {0};
	json_t *pod = load(pod_a), *mine = load(LOCAL_PV("n1", "claim")), *theirs = load(LOCAL_PV("n2", "claim"));
	json_t *stranger = load(LOCAL_PV("n1", "other")), *plain = load("{\"metadata\":{\"name\":\"pv-x\"}}");
	json_t *pvc = load("{\"metadata\":{\"name\":\"claim\",\"namespace\":\"ns\"},\"spec\":{}}"), *sel, *sel2;
	char msg[512];

	(void)state;
	api.node_graph = sk__node_graph_new();
	sk__node_graph_set_pod(api.node_graph, "/registry/pods/ns/a", pod);
	/* a volume for a claim of its pods, with node affinity to itself alone */
	assert_int_equal(nr(&api, n1, SK_ADM_CREATE, "persistentvolumes", "pvc-1", mine, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(nr(&api, n1, SK_ADM_CREATE, "persistentvolumes", "pvc-1", theirs, NULL, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "persistentvolumes \"pvc-1\" is forbidden: node \"n1\" may only create "
				 "rancher.io/local-path volumes with a node affinity to itself");
	assert_int_equal(nr(&api, n1, SK_ADM_CREATE, "persistentvolumes", "pvc-1", stranger, NULL, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "persistentvolumes \"pvc-1\" is forbidden: node \"n1\" may only create volumes for "
				 "the claims of its pods");
	assert_int_equal(nr(&api, n1, SK_ADM_CREATE, "persistentvolumes", "pv-x", plain, NULL, msg, sizeof(msg)), -1);
	/* deletes only its own; updates none */
	assert_int_equal(nr(&api, n1, SK_ADM_DELETE, "persistentvolumes", "pvc-1", NULL, mine, msg, sizeof(msg)), 0);
	assert_int_equal(nr(&api, n1, SK_ADM_DELETE, "persistentvolumes", "pvc-1", NULL, theirs, msg, sizeof(msg)), -1);
	assert_string_equal(msg,
			    "persistentvolumes \"pvc-1\" is forbidden: node \"n1\" may only delete the volumes it provisioned");
	assert_int_equal(nr(&api, n1, SK_ADM_UPDATE, "persistentvolumes", "pvc-1", mine, mine, msg, sizeof(msg)), -1);
	/* a claim: the selected node, itself, once, and nothing else */
	sel = load("{\"metadata\":{\"name\":\"claim\",\"namespace\":\"ns\",\"annotations\":{"
		   "\"volume.kubernetes.io/selected-node\":\"n1\"}},\"spec\":{}}");
	sel2 = load("{\"metadata\":{\"name\":\"claim\",\"namespace\":\"ns\",\"annotations\":{"
		    "\"volume.kubernetes.io/selected-node\":\"n2\"}},\"spec\":{}}");
	assert_int_equal(nr(&api, n1, SK_ADM_UPDATE, "persistentvolumeclaims", "claim", sel, pvc, msg, sizeof(msg)), 0);
	assert_int_equal(nr(&api, n1, SK_ADM_UPDATE, "persistentvolumeclaims", "claim", sel2, pvc, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "persistentvolumeclaims \"claim\" is forbidden: may only update PVC status");
	assert_int_equal(nr(&api, n1, SK_ADM_UPDATE, "persistentvolumeclaims", "claim", sel2, sel, msg, sizeof(msg)), -1);
	json_object_set_new(json_object_get(sel, "spec"), "volumeName", json_string("pv-x"));
	assert_int_equal(nr(&api, n1, SK_ADM_UPDATE, "persistentvolumeclaims", "claim", sel, pvc, msg, sizeof(msg)), -1);
	json_decref(sel);
	json_decref(sel2);
	json_decref(pvc);
	json_decref(plain);
	json_decref(stranger);
	json_decref(theirs);
	json_decref(mine);
	json_decref(pod);
	sk__node_graph_free(api.node_graph);
	sk_user_free(n1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_follows_every_reference),
		cmocka_unit_test(test_graph_moves_and_counts),
		cmocka_unit_test(test_authorizer),
		cmocka_unit_test(test_csr_validation),
		cmocka_unit_test(test_kubelet_client_request),
		cmocka_unit_test(test_nodecert_valid),
		cmocka_unit_test(test_node_restriction_volumes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
