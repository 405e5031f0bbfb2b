/* The authenticator chain (authn.h), in kube-apiserver's order: x509
 * client certificates first (sk_authn_session, which http.c calls with the
 * connection's TLS session), then bearer tokens: the shared tokens
 * (skiff's), the static token file, the pluggable authenticators (service
 * account tokens), bootstrap tokens. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <string.h>

#include "api/api-int.h"
#include "api/authn.h"
#include "util/util.h"

struct sk_authn {
	sk_api *api;
	char *admin_token, *node_token;
	sk_token_file tokens;
	gnutls_x509_trust_list_t ca; /* NULL: no client certificates */
};

/* Bearer-token authenticators beyond the built-in ones, in upstream's
 * order: they run after the token file and before bootstrap tokens (the
 * service account token authenticator, sk__sa_token_authenticate, is one
 * line here). */
static const sk_token_authenticator_fn token_plugins[] = {
	NULL,
};

/* ---- constant-time comparison ---- */

static void sha256(const char *s, unsigned char out[32]) { gnutls_hash_fast(GNUTLS_DIG_SHA256, s, strlen(s), out); }

static int digest_equal(const unsigned char *a, const unsigned char *b)
{
	unsigned char d = 0;

	for (int i = 0; i < 32; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

int sk_secret_equal(const char *a, const char *b)
{
	unsigned char ha[32], hb[32];

	sha256(a, ha);
	sha256(b, hb);
	return digest_equal(ha, hb);
}

/* ---- the static token file (upstream's tokenfile.NewCSV) ---- */

typedef struct csv_record {
	char **f;
	size_t n;
} csv_record;

static void record_release(csv_record *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof(*r));
}

static void record_add(csv_record *r, const char *s, size_t n)
{
	r->f = xrealloc(r->f, (r->n + 1) * sizeof(*r->f));
	r->f[r->n++] = xstrndup(s, n);
}

typedef struct csv_reader {
	const char *p, *end;
	size_t line, record_line; /* the line being read; where the last record began */
	char *buf;                /* the field being read */
	size_t blen, bcap;
} csv_reader;

static void buf_put(csv_reader *c, char ch)
{
	if (c->blen + 1 >= c->bcap) {
		c->bcap = c->bcap ? c->bcap * 2 : 64;
		c->buf = xrealloc(c->buf, c->bcap);
	}
	c->buf[c->blen++] = ch;
}

/* The character at p, with "\r\n" read as "\n". */
static int peek(const csv_reader *c)
{
	if (c->p >= c->end)
		return -1;
	if (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n')
		return '\n';
	return (unsigned char)*c->p;
}

static void advance(csv_reader *c)
{
	if (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n')
		c->p++;
	if (*c->p == '\n')
		c->line++;
	c->p++;
}

/* One record as Go's encoding/csv reads it (no comment character, no
 * trimming, lazy quotes off). Returns 1 with a record, 0 at the end, -1 on
 * a syntax error (err filled). */
static int csv_read(csv_reader *c, csv_record *r, const char *name, sk_error_t *err)
{
	size_t line0, col;

	while (peek(c) == '\n') /* blank lines */
		advance(c);
	if (peek(c) < 0)
		return 0;
	line0 = c->record_line = c->line;
	for (;;) {
		const char *fstart = c->p;

		c->blen = 0;
		if (peek(c) == '"') {
			advance(c);
			for (;;) {
				int ch = peek(c);

				if (ch < 0)
					return sk_error_set(err, SK_EINVALID,
							    "token file \"%s\": parse error on line %zu: extraneous or "
							    "missing \" in quoted-field",
							    name, line0);
				advance(c);
				if (ch != '"') {
					buf_put(c, (char)ch);
					continue;
				}
				ch = peek(c);
				if (ch == '"') {
					buf_put(c, '"');
					advance(c);
					continue;
				}
				if (ch == ',' || ch == '\n' || ch < 0)
					break;
				col = (size_t)(c->p - fstart) + 1;
				return sk_error_set(
					err, SK_EINVALID,
					"token file \"%s\": parse error on line %zu, column %zu: extraneous or "
					"missing \" in quoted-field",
					name, c->line, col);
			}
		} else {
			for (int ch = peek(c); ch >= 0 && ch != ',' && ch != '\n'; ch = peek(c)) {
				if (ch == '"')
					return sk_error_set(
						err, SK_EINVALID,
						"token file \"%s\": parse error on line %zu, column %zu: bare \" "
						"in non-quoted-field",
						name, c->line, (size_t)(c->p - fstart) + 1);
				buf_put(c, (char)ch);
				advance(c);
			}
		}
		record_add(r, c->buf ? c->buf : "", c->blen);
		if (peek(c) == ',') {
			advance(c);
			continue;
		}
		if (peek(c) == '\n')
			advance(c);
		return 1;
	}
}

static void entry_release(sk_token_entry *e)
{
	free(e->user);
	free(e->uid);
	for (size_t i = 0; i < e->ngroups; i++)
		free(e->groups[i]);
	free(e->groups);
}

static void entry_from_record(sk_token_entry *e, const csv_record *r)
{
	memset(e, 0, sizeof(*e));
	sha256(r->f[0], e->hash);
	e->user = xstrdup(r->f[1]);
	e->uid = xstrdup(r->f[2]);
	if (r->n < 4)
		return;
	for (const char *g = r->f[3];;) {
		size_t n = strcspn(g, ",");

		if (n) {
			e->groups = xrealloc(e->groups, (e->ngroups + 1) * sizeof(*e->groups));
			e->groups[e->ngroups++] = xstrndup(g, n);
		}
		if (!g[n])
			break;
		g += n + 1;
	}
}

int sk_token_file_parse(sk_token_file *tf, const char *name, const char *text, size_t len, sk_error_t *err)
{
	csv_reader c = {.p = text, .end = text + len, .line = 1};
	csv_record r = {0};
	int rc;

	memset(tf, 0, sizeof(*tf));
	while ((rc = csv_read(&c, &r, name, err)) > 0) {
		if (r.n < 3) {
			rc = sk_error_set(
				err, SK_EINVALID,
				"token file \"%s\" must have at least 3 columns (token, user name, user uid), "
				"found %zu",
				name, r.n);
			break;
		}
		if (!r.f[0][0]) {
			sk_warn("authn", "empty token has been found in token file \"%s\", line %zu", name,
				c.record_line);
		} else {
			tf->entries = xrealloc(tf->entries, (tf->n + 1) * sizeof(*tf->entries));
			entry_from_record(&tf->entries[tf->n++], &r);
		}
		record_release(&r);
	}
	record_release(&r);
	free(c.buf);
	if (rc < 0) {
		sk_token_file_release(tf);
		return -1;
	}
	return 0;
}

void sk_token_file_release(sk_token_file *tf)
{
	for (size_t i = 0; i < tf->n; i++)
		entry_release(&tf->entries[i]);
	free(tf->entries);
	memset(tf, 0, sizeof(*tf));
}

/* Every entry is compared; a later duplicate wins, as upstream's map. */
const sk_token_entry *sk_token_file_find(const sk_token_file *tf, const char *token)
{
	const sk_token_entry *found = NULL;
	unsigned char h[32];

	sha256(token, h);
	for (size_t i = 0; i < tf->n; i++)
		if (digest_equal(tf->entries[i].hash, h))
			found = &tf->entries[i];
	return found;
}

/* ---- bootstrap tokens (upstream's bootstrap.TokenAuthenticator) ---- */

#define BOOTSTRAP_GROUP "system:bootstrappers"

static int all_lower_alnum(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int sk_bootstrap_token_parse(const char *token, char id[7], char secret[17])
{
	if (strlen(token) != 23 || token[6] != '.' || !all_lower_alnum(token, 6) || !all_lower_alnum(token + 7, 16))
		return -1;
	memcpy(id, token, 6);
	id[6] = '\0';
	memcpy(secret, token + 7, 16);
	secret[16] = '\0';
	return 0;
}

/* secret.data[key] decoded (malloc'd), or NULL when absent or not base64. */
static char *secret_data(const json_t *secret, const char *key)
{
	const char *v = json_string_value(json_object_get(json_object_get(secret, "data"), key));
	gnutls_datum_t in, out = {NULL, 0};
	char *r;

	if (!v)
		return NULL;
	if (!*v)
		return xstrdup("");
	in.data = (unsigned char *)v;
	in.size = (unsigned)strlen(v);
	if (gnutls_base64_decode2(&in, &out) < 0)
		return NULL;
	r = xstrndup((const char *)out.data, out.size);
	gnutls_free(out.data);
	return r;
}

/* upstream's ValidateBootstrapGroupName: \Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z */
static int bootstrap_group_valid(const char *g, size_t n)
{
	static const char prefix[] = BOOTSTRAP_GROUP ":";
	size_t p = sizeof(prefix) - 1;

	if (n <= p || n > p + 256 || strncmp(g, prefix, p))
		return 0;
	for (size_t i = p; i < n; i++)
		if (!((g[i] >= 'a' && g[i] <= 'z') || (g[i] >= '0' && g[i] <= '9') ||
		      (i < n - 1 && (g[i] == ':' || g[i] == '-'))))
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* system:bootstrappers and auth-extra-groups, a sorted set as upstream's GetGroups. */
static int bootstrap_groups(sk_user *u, const char *extra)
{
	sk_user_add_group(u, BOOTSTRAP_GROUP);
	for (const char *g = extra; g && *g;) {
		size_t n = strcspn(g, ",");
		cleanup_free char *one = xstrndup(g, n);

		if (!bootstrap_group_valid(g, n))
			return -1;
		sk_user_add_group(u, one);
		g += n;
		if (*g)
			g++;
	}
	qsort(u->groups, u->ngroups, sizeof(*u->groups), cmp_str);
	return 0;
}

static int bootstrap_expired(const char *exp, int64_t now)
{
	int64_t t;

	if (!exp || !*exp)
		return 0;
	return sk_time_parse(exp, &t) < 0 || t <= now;
}

sk_user *sk_bootstrap_token_check(const json_t *secret, const char *token, int64_t now, const char **why)
{
	char id[7], sec[17];
	cleanup_free char *ts = NULL, *tid = NULL, *exp = NULL, *usage = NULL, *groups = NULL, *name = NULL;
	const char *type = json_string_value(json_object_get(secret, "type"));
	sk_user *u;

	*why = NULL;
	if (sk_bootstrap_token_parse(token, id, sec) < 0)
		return *why = "is not a bootstrap token", NULL;
	if (json_object_get(json_object_get(secret, "metadata"), "deletionTimestamp"))
		return *why = "is deleted and awaiting removal", NULL;
	if (!type || strcmp(type, "bootstrap.kubernetes.io/token") || !json_is_object(json_object_get(secret, "data")))
		return *why = "has invalid type, expected bootstrap.kubernetes.io/token.", NULL;
	ts = secret_data(secret, "token-secret");
	if (!ts || !sk_secret_equal(ts, sec))
		return *why = "has invalid value for key token-secret.", NULL;
	tid = secret_data(secret, "token-id");
	if (!tid || strcmp(tid, id))
		return *why = "has invalid value for key token-id.", NULL;
	exp = secret_data(secret, "expiration");
	if (bootstrap_expired(exp, now))
		return *why = "has expired.", NULL;
	usage = secret_data(secret, "usage-bootstrap-authentication");
	if (!usage || strcmp(usage, "true"))
		return *why = "not marked usage-bootstrap-authentication=true.", NULL;
	groups = secret_data(secret, "auth-extra-groups");
	name = xasprintf("system:bootstrap:%s", id);
	u = sk_user_new(name, "", NULL);
	if (bootstrap_groups(u, groups) < 0) {
		sk_user_free(u);
		return *why = "has invalid value for key auth-extra-groups.", NULL;
	}
	return u;
}

static sk_user *bootstrap_token(sk_authn *a, const char *token, int *refused)
{
	char id[7], sec[17];
	cleanup_free char *key = NULL;
	cleanup_json json_t *secret = NULL;
	sk_store_kv kv;
	sk_error_t err = {0};
	const char *why;
	sk_user *u;

	(void)refused;
	if (!a->api || sk_bootstrap_token_parse(token, id, sec) < 0)
		return NULL;
	key = xasprintf("/registry/secrets/kube-system/bootstrap-token-%s", id);
	if (sk_store_get(a->api->store, key, &kv, &err) < 0)
		return NULL;
	secret = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	sk_store_kv_release(&kv);
	if (!secret)
		return NULL;
	u = sk_bootstrap_token_check(secret, token, sk_now_ns() / 1000000000, &why);
	if (!u)
		sk_debug("authn", "bootstrap token: secret \"kube-system/bootstrap-token-%s\" %s", id, why);
	return u;
}

/* ---- x509 client certificates (upstream's x509.Authenticator) ---- */

static int load_ca(sk_authn *a, const char *ca_pem, sk_error_t *err)
{
	gnutls_datum_t d = {(unsigned char *)ca_pem, (unsigned)strlen(ca_pem)};
	int rc;

	if ((rc = gnutls_x509_trust_list_init(&a->ca, 0)) < 0 ||
	    (rc = gnutls_x509_trust_list_add_trust_mem(a->ca, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0)) <= 0)
		return sk_error_set(err, SK_EINVALID, "the cluster CA: %s",
				    rc < 0 ? gnutls_strerror(rc) : "no certificate");
	return 0;
}

/* The i-th value of the subject's attribute oid (malloc'd), or NULL. */
static char *subject_attr(gnutls_x509_crt_t crt, const char *oid, unsigned i)
{
	size_t n = 0;
	char *buf;

	if (gnutls_x509_crt_get_dn_by_oid(crt, oid, i, 0, NULL, &n) != GNUTLS_E_SHORT_MEMORY_BUFFER)
		return NULL;
	buf = xzalloc(n + 1);
	if (gnutls_x509_crt_get_dn_by_oid(crt, oid, i, 0, buf, &n) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static sk_user *cert_user(gnutls_x509_crt_t leaf, sk_error_t *err)
{
	cleanup_free char *cn = subject_attr(leaf, GNUTLS_OID_X520_COMMON_NAME, 0);
	unsigned char fp[32];
	size_t fplen = sizeof(fp);
	char hex[65], *id;
	sk_user *u;

	if (!cn || !*cn) {
		sk_error_set(err, SK_EUNAUTHORIZED, "x509: the client certificate has no common name");
		return NULL;
	}
	u = sk_user_new(cn, "", NULL);
	for (unsigned i = 0;; i++) {
		cleanup_free char *o = subject_attr(leaf, GNUTLS_OID_X520_ORGANIZATION_NAME, i);

		if (!o)
			break;
		sk_user_add_group(u, o);
	}
	if (gnutls_x509_crt_get_fingerprint(leaf, GNUTLS_DIG_SHA256, fp, &fplen) == 0 && fplen == 32) {
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", fp[i]);
		id = xasprintf("X509SHA256=%s", hex);
		u->extra = json_pack("{s:[s]}", "authentication.kubernetes.io/credential-id", id);
		free(id);
	}
	return u;
}

sk_user *sk_authn_x509(sk_authn *a, const gnutls_datum_t *chain, unsigned n, sk_error_t *err)
{
	gnutls_x509_crt_t crts[8];
	gnutls_typed_vdata_st purpose = {.type = GNUTLS_DT_KEY_PURPOSE_OID,
					 .data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT};
	unsigned m = 0, status = 0;
	sk_user *u = NULL;
	int rc;

	if (!a->ca) {
		sk_error_set(err, SK_EUNAUTHORIZED, "x509: no certificate authority for clients");
		return NULL;
	}
	if (!n || n > 8) {
		sk_error_set(err, SK_EUNAUTHORIZED, "x509: a chain of %u certificates", n);
		return NULL;
	}
	for (; m < n; m++) {
		gnutls_x509_crt_init(&crts[m]);
		if ((rc = gnutls_x509_crt_import(crts[m], &chain[m], GNUTLS_X509_FMT_DER)) < 0) {
			sk_error_set(err, SK_EUNAUTHORIZED, "x509: certificate %u: %s", m, gnutls_strerror(rc));
			m++;
			goto out;
		}
	}
	rc = gnutls_x509_trust_list_verify_crt2(a->ca, crts, n, &purpose, 1, 0, &status, NULL);
	if (rc < 0 || status) {
		gnutls_datum_t why = {NULL, 0};

		if (rc >= 0)
			gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0);
		sk_error_set(err, SK_EUNAUTHORIZED, "x509: %s", rc < 0 ? gnutls_strerror(rc) : (char *)why.data);
		gnutls_free(why.data);
		goto out;
	}
	u = cert_user(crts[0], err);
out:
	for (unsigned i = 0; i < m; i++)
		gnutls_x509_crt_deinit(crts[i]);
	return u;
}

int sk_authn_session(sk_authn *a, gnutls_session_t s, sk_user **user)
{
	unsigned n = 0;
	const gnutls_datum_t *chain = s ? gnutls_certificate_get_peers(s, &n) : NULL;
	sk_error_t err = {0};

	*user = NULL;
	if (!chain || !n)
		return 0;
	*user = sk_authn_x509(a, chain, n, &err);
	if (!*user) {
		sk_info("authn", "client certificate refused: %s", err.msg);
		return -1;
	}
	sk_user_add_group(*user, SK_GROUP_AUTHENTICATED);
	return 1;
}

/* ---- the chain ---- */

sk_authn *sk_authn_new(sk_api *api, const sk_authn_options *o, sk_error_t *err)
{
	sk_authn *a = xzalloc(sizeof(*a));

	a->api = api;
	a->admin_token = o->admin_token && *o->admin_token ? xstrdup(o->admin_token) : NULL;
	a->node_token = o->node_token && *o->node_token ? xstrdup(o->node_token) : NULL;
	if (o->token_auth_file) {
		size_t len;
		cleanup_free char *text = sk_read_file(o->token_auth_file, &len);

		if (!text) {
			sk_error_errno(err, errno, "--token-auth-file: reading \"%s\"", o->token_auth_file);
			sk_authn_free(a);
			return NULL;
		}
		if (sk_token_file_parse(&a->tokens, o->token_auth_file, text, len, err) < 0) {
			sk_authn_free(a);
			return NULL;
		}
		sk_info("authn", "token file \"%s\": %zu tokens", o->token_auth_file, a->tokens.n);
	}
	if (o->ca_pem && load_ca(a, o->ca_pem, err) < 0) {
		sk_authn_free(a);
		return NULL;
	}
	return a;
}

void sk_authn_free(sk_authn *a)
{
	if (!a)
		return;
	free(a->admin_token);
	free(a->node_token);
	sk_token_file_release(&a->tokens);
	if (a->ca)
		gnutls_x509_trust_list_deinit(a->ca, 1);
	free(a);
}

static sk_user *authenticated(sk_user *u)
{
	if (u && strcmp(u->name, SK_USER_ANONYMOUS))
		sk_user_add_group(u, SK_GROUP_AUTHENTICATED);
	return u;
}

static sk_user *shared_token(sk_authn *a, const char *token, int *refused)
{
	static const char *const masters[] = {SK_GROUP_MASTERS, NULL};
	/* both compared, whichever matches */
	int admin = a->admin_token && sk_secret_equal(token, a->admin_token);
	int node = a->node_token && sk_secret_equal(token, a->node_token);

	static const char *const bootstrappers[] = {"system:bootstrappers", NULL};

	(void)refused;
	if (admin)
		return sk_user_new("system:admin", "", masters);
	/* a bootstrap credential: it may ask for a node's client certificate
	 * (docs/ARCHITECTURE.md, "Identity: nodes") and nothing else */
	if (node)
		return sk_user_new("system:bootstrap:node-token", "", bootstrappers);
	return NULL;
}

static sk_user *token_file(sk_authn *a, const char *token, int *refused)
{
	const sk_token_entry *e = sk_token_file_find(&a->tokens, token);
	sk_user *u;

	(void)refused;
	if (!e)
		return NULL;
	u = sk_user_new(e->user, e->uid, NULL);
	for (size_t i = 0; i < e->ngroups; i++)
		sk_user_add_group(u, e->groups[i]);
	return u;
}

/* NULL with *refused set: a plugin's own token that is not valid */
static sk_user *plugins(sk_authn *a, const char *token, int *refused)
{
	for (int i = 0; a->api && token_plugins[i]; i++) {
		sk_user *u = NULL;
		int rc = token_plugins[i](a->api, token, &u);

		if (rc > 0 && u)
			return u;
		sk_user_free(u);
		if (rc < 0) {
			*refused = 1;
			return NULL;
		}
	}
	return NULL;
}

typedef sk_user *(*token_fn)(sk_authn *a, const char *token, int *refused);

/* kube-apiserver's order: token file, service account tokens, bootstrap tokens. */
static const token_fn token_chain[] = {
	shared_token, token_file, plugins, bootstrap_token, NULL,
};

sk_user *sk_authn_token(sk_authn *a, const char *token)
{
	if (!a || !token || !*token)
		return NULL;
	for (int i = 0; token_chain[i]; i++) {
		int refused = 0;
		sk_user *u = token_chain[i](a, token, &refused);

		if (u)
			return authenticated(u);
		if (refused)
			return NULL;
	}
	return NULL;
}
