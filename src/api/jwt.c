/* Service-account JWTs (jwt.h). */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "api/jwt.h"
#include "util/util.h"

/* Longer tokens are refused before any decoding (upstream's are ~1 KiB). */
#define MAX_TOKEN 16384
/* go-jose's jwt.DefaultLeeway */
#define LEEWAY 60

struct sk_sa_keys {
	gnutls_privkey_t priv;
	gnutls_pubkey_t pub;
	char *kid;
	pthread_mutex_t mu; /* signing (the random blinding of one key) */
};

static int gnutls_fail(sk_error_t *err, int rc, const char *what)
{
	return sk_error_set(err, SK_EINTERNAL, "service account key: %s: %s", what, gnutls_strerror(rc));
}

char *sk_b64url_encode(const void *data, size_t len)
{
	gnutls_datum_t in = {.data = (unsigned char *)data, .size = (unsigned)len}, out = {0};
	char *s;
	size_t n = 0;

	if (len == 0)
		return xstrdup("");
	if (gnutls_base64_encode2(&in, &out) < 0)
		abort(); /* only allocation fails */
	s = xmalloc(out.size + 1);
	for (unsigned i = 0; i < out.size; i++) {
		char c = (char)out.data[i];

		if (c == '=' || c == '\n' || c == '\r')
			continue;
		s[n++] = c == '+' ? '-' : c == '/' ? '_' : c;
	}
	s[n] = '\0';
	gnutls_free(out.data);
	return s;
}

unsigned char *sk_b64url_decode(const char *s, size_t slen, size_t *len)
{
	cleanup_free char *std = NULL;
	gnutls_datum_t in, out = {0};
	unsigned char *r;
	size_t n = 0;

	if (slen % 4 == 1 || slen > MAX_TOKEN)
		return NULL;
	std = xmalloc(slen + 4);
	for (size_t i = 0; i < slen; i++) {
		char c = s[i];

		if (c == '-')
			c = '+';
		else if (c == '_')
			c = '/';
		else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return NULL;
		std[n++] = c;
	}
	while (n % 4)
		std[n++] = '=';
	std[n] = '\0';
	if (n == 0) {
		*len = 0;
		return (unsigned char *)xstrdup("");
	}
	in.data = (unsigned char *)std;
	in.size = (unsigned)n;
	if (gnutls_base64_decode2(&in, &out) < 0)
		return NULL;
	r = xmalloc(out.size + 1);
	memcpy(r, out.data, out.size);
	r[out.size] = '\0';
	*len = out.size;
	gnutls_free(out.data);
	return r;
}

static int make_kid(sk_sa_keys *k, sk_error_t *err)
{
	gnutls_datum_t der = {0};
	unsigned char sum[32];
	int rc = gnutls_pubkey_export2(k->pub, GNUTLS_X509_FMT_DER, &der);

	if (rc < 0)
		return gnutls_fail(err, rc, "exporting the public key");
	rc = gnutls_hash_fast(GNUTLS_DIG_SHA256, der.data, der.size, sum);
	gnutls_free(der.data);
	if (rc < 0)
		return gnutls_fail(err, rc, "hashing the public key");
	k->kid = sk_b64url_encode(sum, sizeof(sum));
	return 0;
}

/* Takes x509 (freed here on every path). */
static sk_sa_keys *keys_from_x509(gnutls_x509_privkey_t x509, sk_error_t *err)
{
	sk_sa_keys *k = xzalloc(sizeof(*k));
	int rc;

	pthread_mutex_init(&k->mu, NULL);
	if (gnutls_x509_privkey_get_pk_algorithm(x509) != GNUTLS_PK_RSA) {
		gnutls_x509_privkey_deinit(x509);
		sk_error_set(err, SK_EINVALID, "service account key: not an RSA key");
		goto fail;
	}
	rc = gnutls_privkey_init(&k->priv);
	if (rc >= 0)
		rc = gnutls_privkey_import_x509(k->priv, x509, GNUTLS_PRIVKEY_IMPORT_AUTO_RELEASE);
	if (rc < 0) {
		gnutls_x509_privkey_deinit(x509);
		gnutls_fail(err, rc, "importing the key");
		goto fail;
	}
	rc = gnutls_pubkey_init(&k->pub);
	if (rc >= 0)
		rc = gnutls_pubkey_import_privkey(k->pub, k->priv, 0, 0);
	if (rc < 0) {
		gnutls_fail(err, rc, "deriving the public key");
		goto fail;
	}
	if (make_kid(k, err) < 0)
		goto fail;
	return k;
fail:
	sk_sa_keys_free(k);
	return NULL;
}

sk_sa_keys *sk_sa_keys_from_pem(const char *pem, size_t len, sk_error_t *err)
{
	gnutls_datum_t d = {.data = (unsigned char *)pem, .size = (unsigned)len};
	gnutls_x509_privkey_t x509;
	int rc = gnutls_x509_privkey_init(&x509);

	if (rc < 0) {
		gnutls_fail(err, rc, "init");
		return NULL;
	}
	rc = gnutls_x509_privkey_import(x509, &d, GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		gnutls_x509_privkey_deinit(x509);
		gnutls_fail(err, rc, "reading the PEM key");
		return NULL;
	}
	return keys_from_x509(x509, err);
}

sk_sa_keys *sk_sa_keys_load(const char *path, sk_error_t *err)
{
	size_t len = 0;
	cleanup_free char *pem = sk_read_file(path, &len);
	gnutls_x509_privkey_t x509;
	gnutls_datum_t out = {0};
	int rc;

	if (pem)
		return sk_sa_keys_from_pem(pem, len, err);
	if (errno != ENOENT) {
		sk_error_errno(err, errno, "reading service account key \"%s\"", path);
		return NULL;
	}
	rc = gnutls_x509_privkey_init(&x509);
	if (rc >= 0)
		rc = gnutls_x509_privkey_generate(x509, GNUTLS_PK_RSA, 2048, 0);
	if (rc >= 0)
		rc = gnutls_x509_privkey_export2(x509, GNUTLS_X509_FMT_PEM, &out);
	if (rc < 0) {
		gnutls_x509_privkey_deinit(x509);
		gnutls_fail(err, rc, "generating the key");
		return NULL;
	}
	rc = sk_write_file(path, out.data, out.size, 0600);
	gnutls_free(out.data);
	if (rc < 0) {
		gnutls_x509_privkey_deinit(x509);
		sk_error_errno(err, errno, "writing service account key \"%s\"", path);
		return NULL;
	}
	return keys_from_x509(x509, err);
}

void sk_sa_keys_free(sk_sa_keys *k)
{
	if (!k)
		return;
	if (k->pub)
		gnutls_pubkey_deinit(k->pub);
	if (k->priv)
		gnutls_privkey_deinit(k->priv);
	pthread_mutex_destroy(&k->mu);
	free(k->kid);
	free(k);
}

const char *sk_sa_keys_kid(const sk_sa_keys *k) { return k->kid; }

json_t *sk_sa_keys_jwks(const sk_sa_keys *k)
{
	gnutls_datum_t m = {0}, e = {0};
	cleanup_free char *n64 = NULL, *e64 = NULL;

	if (gnutls_pubkey_export_rsa_raw2(k->pub, &m, &e, GNUTLS_EXPORT_FLAG_NO_LZ) < 0)
		return json_pack("{s:[]}", "keys");
	n64 = sk_b64url_encode(m.data, m.size);
	e64 = sk_b64url_encode(e.data, e.size);
	gnutls_free(m.data);
	gnutls_free(e.data);
	return json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:s}]}", "keys", "use", "sig", "kty", "RSA", "kid", k->kid,
			 "alg", "RS256", "n", n64, "e", e64);
}

static char *b64_json(json_t *o)
{
	cleanup_free char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);

	return sk_b64url_encode(s, strlen(s));
}

char *sk_jwt_sign(const sk_sa_keys *k, json_t *claims, sk_error_t *err)
{
	cleanup_json json_t *hdr = json_pack("{s:s, s:s}", "alg", "RS256", "kid", k->kid);
	cleanup_free char *h64 = NULL, *p64 = NULL, *input = NULL, *s64 = NULL;
	gnutls_datum_t data, sig = {0};
	int rc;

	/* the header keeps go-jose's order (alg, kid); the claims are sorted */
	{
		cleanup_free char *h = json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER);

		h64 = sk_b64url_encode(h, strlen(h));
	}
	p64 = b64_json(claims);
	input = xasprintf("%s.%s", h64, p64);
	data.data = (unsigned char *)input;
	data.size = (unsigned)strlen(input);
	pthread_mutex_lock((pthread_mutex_t *)&k->mu);
	rc = gnutls_privkey_sign_data2(k->priv, GNUTLS_SIGN_RSA_SHA256, 0, &data, &sig);
	pthread_mutex_unlock((pthread_mutex_t *)&k->mu);
	if (rc < 0) {
		gnutls_fail(err, rc, "signing");
		return NULL;
	}
	s64 = sk_b64url_encode(sig.data, sig.size);
	gnutls_free(sig.data);
	return xasprintf("%s.%s", input, s64);
}

static json_t *decode_part(const char *s, size_t n)
{
	size_t len;
	cleanup_free unsigned char *raw = sk_b64url_decode(s, n, &len);
	json_t *o;

	if (!raw)
		return NULL;
	o = json_loadb((const char *)raw, len, JSON_REJECT_DUPLICATES, NULL);
	if (o && !json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *sk_jwt_verify(const sk_sa_keys *k, const char *token, sk_error_t *err)
{
	size_t tlen = strnlen(token, MAX_TOKEN + 1);
	const char *d1, *d2;
	cleanup_json json_t *hdr = NULL, *claims = NULL;
	cleanup_free unsigned char *sig = NULL;
	gnutls_datum_t data, sd;
	const char *alg;
	size_t slen;

	if (tlen > MAX_TOKEN)
		goto bad;
	d1 = memchr(token, '.', tlen);
	d2 = d1 ? memchr(d1 + 1, '.', tlen - (size_t)(d1 + 1 - token)) : NULL;
	if (!d1 || !d2 || memchr(d2 + 1, '.', tlen - (size_t)(d2 + 1 - token)))
		goto bad;
	hdr = decode_part(token, (size_t)(d1 - token));
	alg = json_string_value(json_object_get(hdr, "alg"));
	if (!alg || strcmp(alg, "RS256") || json_object_get(hdr, "crit"))
		goto bad;
	claims = decode_part(d1 + 1, (size_t)(d2 - d1 - 1));
	if (!claims)
		goto bad;
	sig = sk_b64url_decode(d2 + 1, tlen - (size_t)(d2 + 1 - token), &slen);
	if (!sig || !slen)
		goto bad;
	data.data = (unsigned char *)token;
	data.size = (unsigned)(d2 - token);
	sd.data = sig;
	sd.size = (unsigned)slen;
	if (gnutls_pubkey_verify_data2(k->pub, GNUTLS_SIGN_RSA_SHA256, 0, &data, &sd) < 0) {
		sk_error_set(err, SK_EUNAUTHORIZED, "invalid bearer token");
		return NULL;
	}
	return steal_ptr(&claims);
bad:
	sk_error_set(err, SK_EUNAUTHORIZED, "invalid bearer token");
	return NULL;
}

static json_t *ref(const char *name, const char *uid)
{
	return json_pack("{s:s, s:s}", "name", name, "uid", uid ? uid : "");
}

json_t *sk_sa_claims_new(const sk_sa_claims_in *in)
{
	cleanup_free char *sub = xasprintf("system:serviceaccount:%s:%s", in->ns, in->sa_name);
	json_t *k8s = json_pack("{s:s, s:o}", "namespace", in->ns, "serviceaccount", ref(in->sa_name, in->sa_uid));
	json_t *c;

	if (in->pod_name)
		json_object_set_new(k8s, "pod", ref(in->pod_name, in->pod_uid));
	else if (in->secret_name)
		json_object_set_new(k8s, "secret", ref(in->secret_name, in->secret_uid));
	if (in->node_name)
		json_object_set_new(k8s, "node", ref(in->node_name, in->node_uid));
	if (in->warnafter_secs)
		json_object_set_new(k8s, "warnafter", json_integer(in->now + in->warnafter_secs));
	c = json_pack("{s:s, s:s, s:O, s:I, s:I, s:I, s:o}", "iss", in->issuer, "sub", sub, "aud", in->audiences, "exp",
		      (json_int_t)(in->now + in->expiration_secs), "iat", (json_int_t)in->now, "nbf",
		      (json_int_t)in->now, "kubernetes.io", k8s);
	if (in->jti)
		json_object_set_new(c, "jti", json_string(in->jti));
	return c;
}

/* A NumericDate claim: 1 and *v, 0 when absent, -1 when not a number. */
static int numeric_date(json_t *c, const char *key, int64_t *v)
{
	json_t *x = json_object_get(c, key);

	if (!x)
		return 0;
	if (json_is_integer(x)) {
		*v = json_integer_value(x);
		return 1;
	}
	if (json_is_real(x) && json_real_value(x) > -9e18 && json_real_value(x) < 9e18) {
		*v = (int64_t)json_real_value(x);
		return 1;
	}
	return -1;
}

static const char *ref_str(json_t *r, const char *key)
{
	const char *s = json_string_value(json_object_get(r, key));

	return s && *s ? s : NULL;
}

int sk_sa_claims_check(json_t *claims, const char *issuer, int64_t now, sk_sa_claims_out *out, sk_error_t *err)
{
	json_t *k8s = json_object_get(claims, "kubernetes.io"), *sa, *r;
	const char *iss = json_string_value(json_object_get(claims, "iss"));
	int64_t exp = 0, nbf = 0;
	int he, hn;

	memset(out, 0, sizeof(*out));
	if (!iss || strcmp(iss, issuer))
		return sk_error_set(err, SK_EUNAUTHORIZED, "invalid bearer token");
	he = numeric_date(claims, "exp", &exp);
	hn = numeric_date(claims, "nbf", &nbf);
	if (he < 0 || hn < 0)
		return sk_error_set(err, SK_EUNAUTHORIZED,
				    "service account token claims could not be validated due to unexpected "
				    "validation error");
	if (he > 0 && now > exp + LEEWAY)
		return sk_error_set(err, SK_EUNAUTHORIZED, "service account token has expired");
	if (hn > 0 && now + LEEWAY < nbf)
		return sk_error_set(err, SK_EUNAUTHORIZED, "service account token is not valid yet");
	sa = json_object_get(k8s, "serviceaccount");
	out->ns = json_string_value(json_object_get(k8s, "namespace"));
	out->sa_name = ref_str(sa, "name");
	out->sa_uid = ref_str(sa, "uid");
	if (!out->ns || !*out->ns || !out->sa_name || !out->sa_uid)
		return sk_error_set(err, SK_EUNAUTHORIZED,
				    "service account token claims could not be validated due to unexpected private "
				    "claim");
	if ((r = json_object_get(k8s, "pod"))) {
		out->pod_name = ref_str(r, "name");
		out->pod_uid = ref_str(r, "uid");
	}
	if ((r = json_object_get(k8s, "secret"))) {
		out->secret_name = ref_str(r, "name");
		out->secret_uid = ref_str(r, "uid");
	}
	if ((r = json_object_get(k8s, "node"))) {
		out->node_name = ref_str(r, "name");
		out->node_uid = ref_str(r, "uid");
	}
	out->jti = json_string_value(json_object_get(claims, "jti"));
	return 0;
}

json_t *sk_sa_claims_audiences(json_t *claims, json_t *want)
{
	json_t *aud = json_object_get(claims, "aud"), *have = json_array(), *out = json_array(), *v, *w;
	size_t i, j;

	if (json_is_string(aud))
		json_array_append(have, aud);
	else if (json_is_array(aud))
		json_array_foreach(aud, i, v)
			if (json_is_string(v))
				json_array_append(have, v);
	json_array_foreach(want, i, w) {
		json_array_foreach(have, j, v) {
			if (json_is_string(w) && json_equal(v, w)) {
				json_array_append(out, w);
				break;
			}
		}
	}
	json_decref(have);
	return out;
}
