/* The authenticator chain (authn.h), in kube-apiserver's order: the shared
 * tokens (skiff's), the static token file, bootstrap tokens, the pluggable
 * bearer-token authenticators; x509 client certificates come first in
 * http.c, which owns the TLS session. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <string.h>

#include "api/authn.h"
#include "util/util.h"

struct sk_authn {
	sk_api *api;
	char *admin_token, *node_token;
	sk_token_file tokens;
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
	size_t line;
	char *buf; /* the field being read */
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
	line0 = c->line;
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
			sk_warn("authn", "empty token has been found in token file \"%s\", line %zu", name, c.line - 1);
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
	return a;
}

void sk_authn_free(sk_authn *a)
{
	if (!a)
		return;
	free(a->admin_token);
	free(a->node_token);
	sk_token_file_release(&a->tokens);
	free(a);
}

static sk_user *authenticated(sk_user *u)
{
	if (u && strcmp(u->name, SK_USER_ANONYMOUS))
		sk_user_add_group(u, SK_GROUP_AUTHENTICATED);
	return u;
}

static sk_user *shared_token(sk_authn *a, const char *token)
{
	static const char *const masters[] = {SK_GROUP_MASTERS, NULL};
	/* both compared, whichever matches */
	int admin = a->admin_token && sk_secret_equal(token, a->admin_token);
	int node = a->node_token && sk_secret_equal(token, a->node_token);

	if (admin)
		return sk_user_new("system:admin", "", masters);
	/* still an administrator until nodes have identities of their own */
	if (node)
		return sk_user_new("system:node", "", masters);
	return NULL;
}

static sk_user *token_file(sk_authn *a, const char *token)
{
	const sk_token_entry *e = sk_token_file_find(&a->tokens, token);
	sk_user *u;

	if (!e)
		return NULL;
	u = sk_user_new(e->user, e->uid, NULL);
	for (size_t i = 0; i < e->ngroups; i++)
		sk_user_add_group(u, e->groups[i]);
	return u;
}

typedef sk_user *(*token_fn)(sk_authn *a, const char *token);

static const token_fn token_chain[] = {
	shared_token,
	token_file,
	NULL,
};

sk_user *sk_authn_token(sk_authn *a, const char *token)
{
	if (!a || !token || !*token)
		return NULL;
	for (int i = 0; token_chain[i]; i++) {
		sk_user *u = token_chain[i](a, token);

		if (u)
			return authenticated(u);
	}
	return NULL;
}
