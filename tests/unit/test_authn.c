/* Authentication (src/api/authn.c): the static token file's CSV as
 * upstream's tokenfile reads it, constant-time token lookup, the chain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>

#include "api/authn.h"
#include "api/tls.h"
#include "util/util.h"

static int parse(sk_token_file *tf, const char *text, sk_error_t *err)
{
	return sk_token_file_parse(tf, "tokens.csv", text, strlen(text), err);
}

static void test_token_file_fields_and_groups(void **state)
{
	sk_token_file tf;
	sk_error_t err = {0};
	const sk_token_entry *e;

	(void)state;
	assert_int_equal(parse(&tf,
			       "t1,alice,1001,\"team-a,team-b\"\r\n"
			       "\n"
			       "\"t2\",bob,1002\n"
			       "t3,\"car\"\"ol\",,\"a\nb\",ignored\n"
			       ",nobody,0\n"
			       "t4,dave,4",
			       &err),
			 0);
	assert_int_equal(tf.n, 4);
	e = sk_token_file_find(&tf, "t1");
	assert_non_null(e);
	assert_string_equal(e->user, "alice");
	assert_string_equal(e->uid, "1001");
	assert_int_equal(e->ngroups, 2);
	assert_string_equal(e->groups[0], "team-a");
	assert_string_equal(e->groups[1], "team-b");
	e = sk_token_file_find(&tf, "t2");
	assert_string_equal(e->user, "bob");
	assert_int_equal(e->ngroups, 0);
	e = sk_token_file_find(&tf, "t3");
	assert_string_equal(e->user, "car\"ol");
	assert_string_equal(e->uid, "");
	assert_int_equal(e->ngroups, 1);
	assert_string_equal(e->groups[0], "a\nb");
	assert_string_equal(sk_token_file_find(&tf, "t4")->user, "dave");
	assert_null(sk_token_file_find(&tf, ""));
	assert_null(sk_token_file_find(&tf, "t"));
	assert_null(sk_token_file_find(&tf, "t11"));
	sk_token_file_release(&tf);
}

static void test_token_file_duplicates_last_wins(void **state)
{
	sk_token_file tf;
	sk_error_t err = {0};

	(void)state;
	assert_int_equal(parse(&tf, "t,first,1\nt,second,2\n", &err), 0);
	assert_string_equal(sk_token_file_find(&tf, "t")->user, "second");
	sk_token_file_release(&tf);
	assert_int_equal(parse(&tf, "", &err), 0);
	assert_int_equal(tf.n, 0);
	assert_null(sk_token_file_find(&tf, "x"));
	sk_token_file_release(&tf);
}

static void test_token_file_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"t,alice\n",
		 "token file \"tokens.csv\" must have at least 3 columns (token, user name, user uid), found 2"},
		{"t,alice,1\nx\n",
		 "token file \"tokens.csv\" must have at least 3 columns (token, user name, user uid), found 1"},
		{"t,al\"ice,1\n",
		 "token file \"tokens.csv\": parse error on line 1, column 3: bare \" in non-quoted-field"},
		{"t,\"alice\"x,1\n", "token file \"tokens.csv\": parse error on line 1, column 8: extraneous or "
				     "missing \" in quoted-field"},
		{"t,\"alice,1\n",
		 "token file \"tokens.csv\": parse error on line 1: extraneous or missing \" in quoted-field"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_token_file tf;
		sk_error_t err = {0};

		assert_int_equal(parse(&tf, cases[i].text, &err), -1);
		assert_int_equal(err.code, SK_EINVALID);
		assert_string_equal(err.msg, cases[i].msg);
		assert_int_equal(tf.n, 0);
		assert_null(tf.entries);
	}
}

static void test_secret_equal(void **state)
{
	(void)state;
	assert_true(sk_secret_equal("abc", "abc"));
	assert_false(sk_secret_equal("abc", "abd"));
	assert_false(sk_secret_equal("abc", "abcd"));
	assert_false(sk_secret_equal("", "a"));
	assert_true(sk_secret_equal("", ""));
}

static void test_chain_adds_authenticated(void **state)
{
	sk_authn_options o = {.admin_token = "adm", .node_token = "nod"};
	sk_error_t err = {0};
	sk_authn *a = sk_authn_new(NULL, &o, &err);
	sk_user *u;

	(void)state;
	assert_non_null(a);
	u = sk_authn_token(a, "adm");
	assert_string_equal(u->name, "system:admin");
	assert_int_equal(u->ngroups, 2);
	assert_string_equal(u->groups[0], "system:masters");
	assert_string_equal(u->groups[1], "system:authenticated");
	sk_user_free(u);
	/* the shared node token is a bootstrap credential, not an administrator */
	u = sk_authn_token(a, "nod");
	assert_string_equal(u->name, "system:bootstrap:node-token");
	assert_int_equal(u->ngroups, 2);
	assert_string_equal(u->groups[0], "system:bootstrappers");
	assert_string_equal(u->groups[1], "system:authenticated");
	sk_user_free(u);
	assert_null(sk_authn_token(a, "ad"));
	assert_null(sk_authn_token(a, ""));
	sk_authn_free(a);
}

/* A bootstrap token Secret as the API serves it (data base64-encoded). */
static json_t *bootstrap_secret(const char *id, const char *secret, const char *usage, const char *exp,
				const char *groups)
{
	json_t *data = json_object();
	const char *keys[] = {"token-id", "token-secret", "usage-bootstrap-authentication", "expiration",
			      "auth-extra-groups"};
	const char *vals[] = {id, secret, usage, exp, groups};

	for (int i = 0; i < 5; i++) {
		gnutls_datum_t in = {(unsigned char *)vals[i], vals[i] ? (unsigned)strlen(vals[i]) : 0}, out;

		if (!vals[i])
			continue;
		assert_int_equal(gnutls_base64_encode2(&in, &out), 0);
		json_object_set_new(data, keys[i], json_stringn((const char *)out.data, out.size));
		gnutls_free(out.data);
	}
	return json_pack("{s:s,s:{s:s,s:s},s:o}", "type", "bootstrap.kubernetes.io/token", "metadata", "name",
			 "bootstrap-token-x", "namespace", "kube-system", "data", data);
}

static void test_bootstrap_token_parse(void **state)
{
	char id[7], sec[17];

	(void)state;
	assert_int_equal(sk_bootstrap_token_parse("abcdef.0123456789abcdef", id, sec), 0);
	assert_string_equal(id, "abcdef");
	assert_string_equal(sec, "0123456789abcdef");
	assert_int_equal(sk_bootstrap_token_parse("ABCDEF.0123456789abcdef", id, sec), -1);
	assert_int_equal(sk_bootstrap_token_parse("abcdef.0123456789abcde", id, sec), -1);
	assert_int_equal(sk_bootstrap_token_parse("abcdef-0123456789abcdef", id, sec), -1);
	assert_int_equal(sk_bootstrap_token_parse("abcdef.0123456789abcdef0", id, sec), -1);
	assert_int_equal(sk_bootstrap_token_parse("", id, sec), -1);
}

static void test_bootstrap_token_check(void **state)
{
	const int64_t now = 1800000000; /* 2027-01-15 */
	const char *tok = "abcdef.0123456789abcdef", *why;
	json_t *s = bootstrap_secret("abcdef", "0123456789abcdef", "true", "2027-06-01T00:00:00Z",
				     "system:bootstrappers:z,system:bootstrappers:kubeadm:default-node-token");
	sk_user *u = sk_bootstrap_token_check(s, tok, now, &why);

	(void)state;
	assert_non_null(u);
	assert_string_equal(u->name, "system:bootstrap:abcdef");
	assert_string_equal(u->uid, "");
	assert_int_equal(u->ngroups, 3); /* sorted, as upstream's sets.List */
	assert_string_equal(u->groups[0], "system:bootstrappers");
	assert_string_equal(u->groups[1], "system:bootstrappers:kubeadm:default-node-token");
	assert_string_equal(u->groups[2], "system:bootstrappers:z");
	sk_user_free(u);
	assert_null(sk_bootstrap_token_check(s, "abcdef.0123456789abcdee", now, &why));
	assert_string_equal(why, "has invalid value for key token-secret.");
	assert_null(sk_bootstrap_token_check(s, tok, 1900000000, &why));
	assert_string_equal(why, "has expired.");
	json_decref(s);

	s = bootstrap_secret("abcdeg", "0123456789abcdef", "true", NULL, NULL);
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	assert_string_equal(why, "has invalid value for key token-id.");
	json_decref(s);
	s = bootstrap_secret("abcdef", "0123456789abcdef", "false", NULL, NULL);
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	assert_string_equal(why, "not marked usage-bootstrap-authentication=true.");
	json_decref(s);
	s = bootstrap_secret("abcdef", "0123456789abcdef", "true", "tomorrow", NULL);
	assert_null(sk_bootstrap_token_check(s, tok, now, &why)); /* unparseable: expired */
	json_decref(s);
	s = bootstrap_secret("abcdef", "0123456789abcdef", "true", NULL, "system:masters");
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	assert_string_equal(why, "has invalid value for key auth-extra-groups.");
	json_decref(s);
	s = bootstrap_secret("abcdef", "0123456789abcdef", "true", NULL, "system:bootstrappers:a-");
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	json_decref(s);
	s = bootstrap_secret("abcdef", "0123456789abcdef", "true", NULL, NULL);
	json_object_set_new(s, "type", json_string("Opaque"));
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	assert_string_equal(why, "has invalid type, expected bootstrap.kubernetes.io/token.");
	json_object_set_new(s, "type", json_string("bootstrap.kubernetes.io/token"));
	u = sk_bootstrap_token_check(s, tok, now, &why);
	assert_int_equal(u->ngroups, 1);
	sk_user_free(u);
	json_object_set_new(json_object_get(s, "metadata"), "deletionTimestamp", json_string("2027-01-01T00:00:00Z"));
	assert_null(sk_bootstrap_token_check(s, tok, now, &why));
	assert_string_equal(why, "is deleted and awaiting removal");
	json_decref(s);
}

static void pem_to_der(const char *pem, gnutls_datum_t *der)
{
	gnutls_x509_crt_t crt;
	gnutls_datum_t in = {(unsigned char *)pem, (unsigned)strlen(pem)};

	gnutls_x509_crt_init(&crt);
	assert_int_equal(gnutls_x509_crt_import(crt, &in, GNUTLS_X509_FMT_PEM), 0);
	assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, der), 0);
	gnutls_x509_crt_deinit(crt);
}

/* Certificates of a data directory's CA authenticate as CN in the O
 * groups; the serving certificate (not for clients), an expired one and one
 * of another CA do not. */
static void test_x509(void **state)
{
	char dir[] = "/tmp/skiff-authn-XXXXXX", other[] = "/tmp/skiff-authn-XXXXXX";
	static const char *const groups[] = {"team", "system:masters", NULL};
	cleanup_free char *cert = NULL, *key = NULL, *old = NULL, *okey = NULL, *fcert = NULL, *fkey = NULL;
	cleanup_free char *srv = NULL, *cmd = NULL;
	sk_tls_files t, t2;
	sk_error_t err = {0};
	gnutls_datum_t der;
	sk_authn *a;
	sk_user *u;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(other));
	assert_int_equal(sk_tls_setup(&t, dir, "127.0.0.1", 6443, NULL, &err), 0);
	assert_int_equal(sk_tls_setup(&t2, other, "127.0.0.1", 6443, NULL, &err), 0);
	a = sk_authn_new(NULL, &(sk_authn_options){.ca_pem = t.ca_pem}, &err);
	assert_non_null(a);
	assert_int_equal(sk_tls_issue_client(dir, "bob", groups, 3600, &cert, &key, &err), 0);
	pem_to_der(cert, &der);
	u = sk_authn_x509(a, &der, 1, &err);
	gnutls_free(der.data);
	assert_non_null(u);
	assert_string_equal(u->name, "bob");
	assert_int_equal(u->ngroups, 2);
	assert_string_equal(u->groups[0], "team");
	assert_string_equal(u->groups[1], "system:masters");
	assert_int_equal(strlen(json_string_value(json_array_get(
				 json_object_get(u->extra, "authentication.kubernetes.io/credential-id"), 0))),
			 11 + 64);
	sk_user_free(u);

	assert_int_equal(sk_tls_issue_client(dir, "old", NULL, -60, &old, &okey, &err), 0);
	pem_to_der(old, &der);
	assert_null(sk_authn_x509(a, &der, 1, &err));
	gnutls_free(der.data);
	assert_int_equal(err.code, SK_EUNAUTHORIZED);

	assert_int_equal(sk_tls_issue_client(other, "mallory", groups, 3600, &fcert, &fkey, &err), 0);
	pem_to_der(fcert, &der);
	assert_null(sk_authn_x509(a, &der, 1, &err));
	gnutls_free(der.data);

	pem_to_der(t.cert_pem, &der);
	assert_null(sk_authn_x509(a, &der, 1, &err));
	gnutls_free(der.data);

	der.data = (unsigned char *)"junk";
	der.size = 4;
	assert_null(sk_authn_x509(a, &der, 1, &err));
	assert_null(sk_authn_x509(a, &der, 0, &err));

	sk_authn_free(a);
	sk_tls_files_release(&t);
	sk_tls_files_release(&t2);
	cmd = xasprintf("rm -rf %s %s", dir, other);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_file_fields_and_groups),
		cmocka_unit_test(test_token_file_duplicates_last_wins),
		cmocka_unit_test(test_token_file_errors),
		cmocka_unit_test(test_secret_equal),
		cmocka_unit_test(test_chain_adds_authenticated),
		cmocka_unit_test(test_bootstrap_token_parse),
		cmocka_unit_test(test_bootstrap_token_check),
		cmocka_unit_test(test_x509),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
