/* Image references, normalised the way Docker's distribution/reference does
 * (ParseNormalizedNamed): a first component is a domain when it holds '.' or
 * ':', is "localhost", or has upper case; docker.io names get "library/". */
#include "image/image.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

int sk_image_digest_check(const char *s, sk_error_t *err)
{
	if (strncmp(s, "sha256:", 7) != 0) {
		if (strchr(s, ':') &&
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+._-") == (size_t)(strchr(s, ':') - s))
			return sk_error_set(err, SK_EUNSUPPORTED, "digest \"%.80s\": unsupported algorithm", s);
		return sk_error_set(err, SK_EINVALID, "digest \"%.80s\": invalid format", s);
	}
	if (strlen(s + 7) != 64 || strspn(s + 7, "0123456789abcdef") != 64)
		return sk_error_set(err, SK_EINVALID, "digest \"%.80s\": invalid format", s);
	return 0;
}

/* One path component: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)* */
static int path_component_ok(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return 0;
	while (i < n) {
		if (is_lower_alnum(s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && !is_lower_alnum(s[j]))
			j++;
		size_t run = j - i;
		if (s[i] == '.' || s[i] == '_') {
			if (!(run == 1 || (run == 2 && s[i] == '_' && s[i + 1] == '_')))
				return 0;
		} else if (s[i] == '-') {
			if (strspn(s + i, "-") < run)
				return 0;
		} else {
			return 0;
		}
		i = j;
	}
	return 1;
}

static int path_ok(const char *s)
{
	const char *p = s;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!path_component_ok(p, n))
			return 0;
		if (!slash)
			return 1;
		p = slash + 1;
	}
}

/* host[:port], host being dot-separated labels [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?
 * or a bracketed IPv6 address. */
static int domain_ok(const char *s)
{
	const char *port = NULL;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close == s + 1 || strspn(s + 1, "0123456789abcdefABCDEF:.") != (size_t)(close - s - 1))
			return 0;
		port = close[1] == ':' ? close + 2 : NULL;
		if (close[1] && close[1] != ':')
			return 0;
	} else {
		const char *colon = strchr(s, ':');
		size_t hn = colon ? (size_t)(colon - s) : strlen(s);
		size_t i = 0;

		port = colon ? colon + 1 : NULL;
		while (i < hn) {
			size_t j = i;
			while (j < hn && s[j] != '.')
				j++;
			if (j == i || !isalnum((unsigned char)s[i]) || !isalnum((unsigned char)s[j - 1]))
				return 0;
			for (size_t k = i; k < j; k++)
				if (!isalnum((unsigned char)s[k]) && s[k] != '-')
					return 0;
			if (j == hn)
				break;
			i = j + 1;
			if (i == hn)
				return 0;
		}
		if (hn == 0)
			return 0;
	}
	if (port && (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5))
		return 0;
	return 1;
}

static int tag_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 128 || !(isalnum((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
			return 0;
	return 1;
}

static int split_domain(const char *name, sk_image_ref *out)
{
	const char *slash = strchr(name, '/');
	size_t dn = slash ? (size_t)(slash - name) : 0;
	int is_domain = 0;

	if (slash) {
		is_domain = memchr(name, '.', dn) || memchr(name, ':', dn) ||
			    (dn == 9 && !strncmp(name, "localhost", 9));
		for (size_t i = 0; i < dn && !is_domain; i++)
			if (isupper((unsigned char)name[i]))
				is_domain = 1;
	}
	if (!is_domain) {
		snprintf(out->domain, sizeof(out->domain), "docker.io");
		if (snprintf(out->path, sizeof(out->path), "%s%s", slash ? "" : "library/", name) >=
		    (int)sizeof(out->path))
			return -1;
		return 0;
	}
	if (dn >= sizeof(out->domain) || strlen(slash + 1) >= sizeof(out->path))
		return -1;
	memcpy(out->domain, name, dn);
	out->domain[dn] = '\0';
	if (!strcmp(out->domain, "index.docker.io"))
		snprintf(out->domain, sizeof(out->domain), "docker.io");
	snprintf(out->path, sizeof(out->path), "%s", slash + 1);
	if (!strcmp(out->domain, "docker.io") && !strchr(out->path, '/')) {
		char tmp[sizeof(out->path)];
		if (snprintf(tmp, sizeof(tmp), "library/%s", out->path) >= (int)sizeof(tmp))
			return -1;
		memcpy(out->path, tmp, sizeof(tmp));
	}
	return 0;
}

int sk_image_ref_parse(const char *s, sk_image_ref *out, sk_error_t *err)
{
	char name[512];
	const char *at, *colon, *slash;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return sk_error_set(err, SK_EINVALID, "image reference \"\": empty");
	if (strlen(s) >= sizeof(name))
		return sk_error_set(err, SK_EINVALID, "image reference \"%.64s...\": too long", s);
	at = strchr(s, '@');
	n = at ? (size_t)(at - s) : strlen(s);
	if (at) {
		if (sk_image_digest_check(at + 1, err) < 0)
			return sk_error_wrap(err, "image reference \"%.300s\"", s);
		snprintf(out->digest, sizeof(out->digest), "%s", at + 1);
	}
	memcpy(name, s, n);
	name[n] = '\0';
	slash = strrchr(name, '/');
	colon = strrchr(name, ':');
	if (colon && (!slash || colon > slash)) {
		if (!tag_ok(colon + 1))
			return sk_error_set(err, SK_EINVALID, "image reference \"%.300s\": invalid tag", s);
		snprintf(out->tag, sizeof(out->tag), "%s", colon + 1);
		name[colon - name] = '\0';
	}
	if (!*name)
		return sk_error_set(err, SK_EINVALID, "image reference \"%.300s\": invalid reference format", s);
	if (strlen(name) == 64 && strspn(name, "0123456789abcdef") == 64)
		return sk_error_set(err, SK_EINVALID,
				    "image reference \"%.300s\": cannot specify 64-byte hexadecimal strings", s);
	if (split_domain(name, out) < 0 || !domain_ok(out->domain))
		return sk_error_set(err, SK_EINVALID, "image reference \"%.300s\": invalid reference format", s);
	if (!path_ok(out->path)) {
		char lower[sizeof(out->path)];
		size_t i;

		for (i = 0; out->path[i]; i++)
			lower[i] = (char)tolower((unsigned char)out->path[i]);
		lower[i] = '\0';
		if (strcmp(lower, out->path) && path_ok(lower))
			return sk_error_set(err, SK_EINVALID,
					    "image reference \"%.300s\": repository name must be lowercase", s);
		return sk_error_set(err, SK_EINVALID, "image reference \"%.300s\": invalid reference format", s);
	}
	if (strlen(out->domain) + 1 + strlen(out->path) > 255)
		return sk_error_set(err, SK_EINVALID,
				    "image reference \"%.300s\": repository name must not be more than 255 characters",
				    s);
	if (!out->tag[0] && !out->digest[0])
		snprintf(out->tag, sizeof(out->tag), "latest");
	return 0;
}

void sk_image_ref_repo(const sk_image_ref *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->domain, r->path);
}

void sk_image_ref_string(const sk_image_ref *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s%s%s%s", r->domain, r->path, r->tag[0] ? ":" : "", r->tag, r->digest[0] ? "@" : "",
		 r->digest);
}
