/* What the agent renews while it runs: its HTTPS endpoint's certificate
 * (sk__logserver_set_cert, called by the serving certificate's rotation: a
 * connection made after the change is served with the new certificate) and
 * the projected ServiceAccount tokens (their refresh schedule). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent-int.h"
#include "util/util.h"

/* A self-signed certificate for cn and its key in one PEM string (malloc'd). */
static char *self_signed(const char *cn)
{
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_datum_t c = {0}, k = {0};
	unsigned char serial[4] = {1, 2, 3, (unsigned char)cn[0]};
	time_t now = time(NULL);
	char *pem;

	assert_int_equal(gnutls_x509_privkey_init(&key), 0);
	assert_int_equal(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
						      GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
			 0);
	assert_int_equal(gnutls_x509_crt_init(&crt), 0);
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	gnutls_x509_crt_set_activation_time(crt, now - 60);
	gnutls_x509_crt_set_expiration_time(crt, now + 3600);
	gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn));
	gnutls_x509_crt_set_key(crt, key);
	assert_int_equal(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), 0);
	assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &c), 0);
	assert_int_equal(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &k), 0);
	pem = xasprintf("%.*s%.*s", (int)c.size, (char *)c.data, (int)k.size, (char *)k.data);
	gnutls_free(c.data);
	gnutls_free(k.data);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return pem;
}

/* The common name of the certificate the endpoint on port presents (malloc'd). */
static char *served_cn(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	gnutls_certificate_credentials_t cred;
	gnutls_session_t s;
	const gnutls_datum_t *peer;
	unsigned npeer = 0;
	gnutls_x509_crt_t crt;
	char cn[128];
	size_t n = sizeof(cn);
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	gnutls_certificate_allocate_credentials(&cred);
	gnutls_init(&s, GNUTLS_CLIENT);
	gnutls_set_default_priority(s);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_transport_set_int(s, fd);
	do
		rc = gnutls_handshake(s);
	while (rc < 0 && !gnutls_error_is_fatal(rc));
	assert_int_equal(rc, 0);
	peer = gnutls_certificate_get_peers(s, &npeer);
	assert_true(npeer >= 1);
	gnutls_x509_crt_init(&crt);
	assert_int_equal(gnutls_x509_crt_import(crt, &peer[0], GNUTLS_X509_FMT_DER), 0);
	assert_int_equal(gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &n), 0);
	gnutls_x509_crt_deinit(crt);
	gnutls_bye(s, GNUTLS_SHUT_RDWR);
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(cred);
	close(fd);
	return xstrndup(cn, n);
}

static void test_new_connections_get_the_new_certificate(void **state)
{
	cleanup_free char *a = self_signed("system:node:first"), *b = self_signed("system:node:second");
	cleanup_free char *cn1 = NULL, *cn2 = NULL;
	char dir[] = "/tmp/skiff-rotation-XXXXXX";
	struct sk_agent ag = {0};
	struct sk_logserver *ls;
	sk_error_t err = {0};
	int port = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ag.o.cert_pem = ag.o.key_pem = a;
	ag.node_ip = "127.0.0.1";
	ag.node_name = "n";
	ag.data_dir = dir;
	ls = sk__logserver_start(&ag, &port, &err);
	assert_non_null(ls);
	assert_true(port > 0);
	cn1 = served_cn(port);
	assert_string_equal(cn1, "system:node:first");
	assert_int_equal(sk__logserver_set_cert(ls, b, b, &err), 0);
	cn2 = served_cn(port);
	assert_string_equal(cn2, "system:node:second");
	/* a bad certificate is refused and the current one stays */
	assert_int_equal(sk__logserver_set_cert(ls, "junk", "junk", &err), -1);
	sk_error_clear(&err);
	free(cn2);
	cn2 = served_cn(port);
	assert_string_equal(cn2, "system:node:second");
	sk__logserver_stop(ls);
	rmdir(dir);
}

/* kubelet's requiresRefresh: past 80 % of the life or 24 hours after issue */
static void test_token_refresh_schedule(void **state)
{
	int64_t t0 = 1700000000;

	(void)state;
	assert_int_equal(sk__token_refresh_at(t0, t0 + 600), t0 + 480);   /* the minimum TTL */
	assert_int_equal(sk__token_refresh_at(t0, t0 + 3607), t0 + 2886); /* kube-api-access */
	assert_int_equal(sk__token_refresh_at(t0, t0 + 48 * 3600), t0 + 24 * 3600);
	assert_int_equal(sk__token_refresh_at(t0, t0 + 30 * 3600), t0 + 24 * 3600); /* 80 %: 24 h */
	assert_int_equal(sk__token_refresh_at(t0, t0 + 29 * 3600), t0 + 23 * 3600 + 12 * 60);
	assert_true(sk__token_refresh_at(t0, t0 + 365LL * 24 * 3600) == t0 + 24 * 3600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_connections_get_the_new_certificate),
		cmocka_unit_test(test_token_refresh_schedule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
