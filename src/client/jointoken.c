/* Join tokens and the CA-pinned join (see jointoken.h). */
#include <ctype.h>
#include <gnutls/crypto.h>
#include <string.h>

#include "client/jointoken.h"
#include "util/util.h"

static bool is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int sk_join_token_parse(const char *s, sk_join_token *t, sk_error_t *err)
{
	const char *sep, *creds, *colon;
	size_t plen = strlen(SK_JOIN_TOKEN_PREFIX);

	memset(t, 0, sizeof(*t));
	if (!s || !*s)
		return sk_error_set(err, SK_EINVALID, "the token is empty");
	if (strncmp(s, SK_JOIN_TOKEN_PREFIX, plen)) {
		t->secret = xstrdup(s);
		return 0;
	}
	sep = strstr(s + plen, "::");
	if (!sep || !is_hex64(s + plen, (size_t)(sep - s - plen)))
		return sk_error_set(
			err, SK_EINVALID,
			"invalid token format: want K10<sha256 of the CA, 64 hex digits>::<user>:<password>");
	creds = sep + 2;
	colon = strchr(creds, ':');
	if (!*creds || (colon && !colon[1]))
		return sk_error_set(err, SK_EINVALID, "invalid token format: no credentials after \"::\"");
	t->ca_hash = xstrndup(s + plen, 64);
	for (char *p = t->ca_hash; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (colon) {
		t->user = xstrndup(creds, (size_t)(colon - creds));
		t->secret = xstrdup(colon + 1);
	} else {
		t->secret = xstrdup(creds);
	}
	return 0;
}

void sk_join_token_release(sk_join_token *t)
{
	free(t->ca_hash);
	free(t->user);
	free(t->secret);
	memset(t, 0, sizeof(*t));
}

char *sk_join_ca_hash(const char *pem, size_t len)
{
	unsigned char d[32];
	char *hex = xmalloc(65);

	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, pem, len, d) < 0)
		abort();
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return hex;
}

char *sk_join_token_format(const char *ca_pem, const char *user, const char *secret)
{
	cleanup_free char *h = sk_join_ca_hash(ca_pem, strlen(ca_pem));

	return xasprintf(SK_JOIN_TOKEN_PREFIX "%s::%s:%s", h, user, secret);
}

int sk_join_check_ca(const sk_join_token *t, const char *pem, size_t len, sk_error_t *err)
{
	cleanup_free char *h = NULL;

	if (!t->ca_hash)
		return 0;
	h = sk_join_ca_hash(pem, len);
	if (strcmp(h, t->ca_hash))
		return sk_error_set(err, SK_EFORBIDDEN,
				    "the server's CA does not match the token's hash (token sha256 %.16s..., "
				    "server's CA sha256 %.16s...): not sending credentials",
				    t->ca_hash, h);
	return 0;
}

/* The server's CA bundle from /cacerts, fetched without verification. */
static char *fetch_cacerts(const char *server, size_t *len, sk_error_t *err)
{
	sk_client *anon = sk_client_new_http(server, NULL, NULL, err);
	char *pem;

	if (!anon)
		return NULL;
	pem = sk_client_get_raw(anon, "/cacerts", NULL, len, err);
	sk_client_free(anon);
	if (!pem) {
		sk_error_wrap(err, "fetching %s/cacerts", server);
		return NULL;
	}
	if (*len > SK_JOIN_CACERTS_MAX || memchr(pem, '\0', *len)) {
		free(pem);
		sk_error_set(err, SK_EINVALID, "%s/cacerts: not a CA bundle", server);
		return NULL;
	}
	return pem;
}

sk_client *sk_client_join(const char *server, const char *token, const char *ca_pem, char **ca_out, sk_error_t *err)
{
	sk_join_token t;
	cleanup_free char *fetched = NULL;
	const char *ca = ca_pem;
	size_t len = ca_pem ? strlen(ca_pem) : 0;
	sk_client *c = NULL;

	if (ca_out)
		*ca_out = NULL;
	if (sk_join_token_parse(token, &t, err) < 0)
		return NULL;
	if (t.ca_hash && !ca) {
		fetched = fetch_cacerts(server, &len, err);
		if (!fetched)
			goto out;
		ca = fetched;
	}
	if (sk_join_check_ca(&t, ca ? ca : "", len, err) < 0)
		goto out;
	c = sk_client_new_http(server, t.secret, ca, err);
	if (c && ca_out && ca)
		*ca_out = xstrdup(ca);
out:
	sk_join_token_release(&t);
	return c;
}
