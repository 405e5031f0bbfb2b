/* jansson values through yajl (see json.h). */
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "util/util.h"

/* jansson refuses values nested deeper (JSON_PARSER_MAX_DEPTH is 2048):
 * near that, jansson decides. */
#define BUILD_MAX_DEPTH 2000

/* ---- decoding: yajl's events build jansson values ---- */

typedef struct build {
	json_t **stack; /* open containers, innermost last */
	size_t n, cap;
	char *key; /* the pending object key (yajl's copy lives only during its callback) */
	size_t klen, kcap;
	json_t *root;
	yajl_handle h;
	size_t end; /* offset just past the root value */
	int unique; /* a duplicate key stops the parse */
	int ascii;  /* the text is ASCII: every string yajl hands over is valid UTF-8 */
} build;

/* Adds v (consumed) to the innermost open container. Returns 0 to stop
 * the parse when v could not be made or placed as jansson would. */
static int add(build *b, json_t *v)
{
	json_t *top;

	if (!v)
		return 0;
	if (b->n == 0 || b->n >= BUILD_MAX_DEPTH) {
		json_decref(v);
		return 0;
	}
	top = b->stack[b->n - 1];
	if (json_is_object(top)) {
		/* jansson refuses NUL in keys; setn_new checks the key's UTF-8 */
		if (memchr(b->key, '\0', b->klen) || (b->unique && json_object_getn(top, b->key, b->klen))) {
			json_decref(v);
			return 0;
		}
		if (b->ascii)
			return json_object_setn_new_nocheck(top, b->key, b->klen, v) == 0;
		return json_object_setn_new(top, b->key, b->klen, v) == 0;
	}
	return json_array_append_new(top, v) == 0;
}

/* c (consumed) becomes the innermost open container; its parent, if any,
 * holds the one reference (no reference count round trip: those are
 * atomic, and a pod has dozens of containers). */
static int open_container(build *b, json_t *c)
{
	if (b->n) {
		if (!add(b, c))
			return 0;
	} else if (b->root) {
		json_decref(c);
		return 0;
	} else {
		b->root = c;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->stack = xrealloc(b->stack, b->cap * sizeof(*b->stack));
	}
	b->stack[b->n++] = c;
	return 1;
}

static int close_container(void *ctx)
{
	build *b = ctx;

	if (!b->n)
		return 0;
	if (--b->n == 0)
		b->end = yajl_get_bytes_consumed(b->h);
	return 1;
}

static int on_null(void *ctx) { return add(ctx, json_null()); }

static int on_boolean(void *ctx, int v) { return add(ctx, json_boolean(v)); }

/* Numbers as jansson reads them: an integer unless there is a fraction or an
 * exponent, and out of range is an error. */
static int on_number(void *ctx, const char *s, size_t n)
{
	char small[64], *t = n < sizeof(small) ? small : xmalloc(n + 1);
	json_t *v = NULL;

	memcpy(t, s, n);
	t[n] = '\0';
	errno = 0;
	if (memchr(t, '.', n) || memchr(t, 'e', n) || memchr(t, 'E', n)) {
		double d = strtod(t, NULL);

		if (!((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE))
			v = json_real(d);
	} else {
		long long i = strtoll(t, NULL, 10);

		if (errno != ERANGE)
			v = json_integer(i);
	}
	if (t != small)
		free(t);
	return add(ctx, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	/* \u0000 is refused by jansson; json_stringn checks the UTF-8 as jansson does
	 * (not needed for an ASCII text) */
	if (memchr(s, '\0', n))
		return 0;
	if (((build *)ctx)->ascii)
		return add(ctx, json_stringn_nocheck((const char *)s, n));
	return add(ctx, json_stringn((const char *)s, n));
}

static int on_start_map(void *ctx) { return open_container(ctx, json_object()); }

static int on_map_key(void *ctx, const unsigned char *k, size_t n)
{
	build *b = ctx;

	if (n + 1 > b->kcap) {
		b->kcap = n + 64;
		b->key = xrealloc(b->key, b->kcap);
	}
	memcpy(b->key, k, n);
	b->key[n] = '\0';
	b->klen = n;
	return 1;
}

static int on_start_array(void *ctx) { return open_container(ctx, json_array()); }

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = close_container,
	.yajl_start_array = on_start_array,
	.yajl_end_array = close_container,
};

/* Text where yajl is more lenient than jansson: NUL, \v and \f bytes (yajl
 * takes the last two for white space), UTF-16 surrogate escapes (yajl turns
 * a lone one into '?'), or a top-level value that is no object or array. */
static int jansson_decides(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (memchr(buf, '\0', len) || memchr(buf, '\v', len) || memchr(buf, '\f', len))
		return 1;
	/* "\u" followed by d or D, found with memchr: memmem is slow on texts
	 * full of escaped quotes (managedFields' keys) */
	for (; (p = memchr(p, '\\', (size_t)(end - p))); p++)
		if (end - p >= 3 && p[1] == 'u' && (p[2] == 'd' || p[2] == 'D'))
			return 1;
	for (p = buf; p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'); p++)
		;
	return p == end || (*p != '{' && *p != '[');
}

/* No byte of the text has its high bit set. yajl turns the escapes of such
 * a text into valid UTF-8 (surrogates go to jansson, see above), so its
 * strings and keys need not be checked again. */
static int is_ascii(const char *buf, size_t len)
{
	uint64_t acc = 0, w;
	size_t i = 0;

	for (; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, buf + i, sizeof(w));
		acc |= w;
	}
	for (; i < len; i++)
		acc |= (unsigned char)buf[i];
	return !(acc & 0x8080808080808080ull);
}

/* yajl takes a partial token after the value for the end of the text:
 * what follows the value must be white space. */
static int only_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return 0;
	return 1;
}

static json_t *load(const char *buf, size_t len, size_t flags, json_error_t *jerr)
{
	build b = {.unique = (flags & JSON_REJECT_DUPLICATES) != 0};
	yajl_handle h;
	int ok;

	if (!buf)
		return json_loadb(buf, len, flags, jerr);
	if (jansson_decides(buf, len))
		return json_loadb(buf, len, flags, jerr);
	b.ascii = is_ascii(buf, len);
	h = yajl_alloc(&callbacks, NULL, &b);
	b.h = h;
	ok = yajl_parse(h, (const unsigned char *)buf, len) == yajl_status_ok &&
	     yajl_complete_parse(h) == yajl_status_ok && b.root && b.n == 0 && only_space(buf + b.end, len - b.end);
	yajl_free(h);
	free(b.stack);
	free(b.key);
	if (ok)
		return b.root;
	/* what yajl refused, jansson may still read (or refuse too, and say why) */
	json_decref(b.root);
	return json_loadb(buf, len, flags, jerr);
}

json_t *sk_json_loadb(const char *buf, size_t len) { return load(buf, len, 0, NULL); }

json_t *sk_json_loadb_ex(const char *buf, size_t len, size_t flags, json_error_t *jerr)
{
	return load(buf, len, flags & JSON_REJECT_DUPLICATES, jerr);
}

/* ---- encoding ---- */

/* jansson formats reals (%.17g, ".0" kept): yajl takes its text as is. */
static int gen_real(yajl_gen g, const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	int rc = s && yajl_gen_number(g, s, strlen(s)) == yajl_gen_status_ok ? 0 : -1;

	free(s);
	return rc;
}

int sk_json_gen(yajl_gen g, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		void *it = json_object_iter((json_t *)v);

		if (yajl_gen_map_open(g) != yajl_gen_status_ok)
			return -1;
		for (; it; it = json_object_iter_next((json_t *)v, it)) {
			if (yajl_gen_string(g, (const unsigned char *)json_object_iter_key(it),
					    json_object_iter_key_len(it)) != yajl_gen_status_ok ||
			    sk_json_gen(g, json_object_iter_value(it)) < 0)
				return -1;
		}
		return yajl_gen_map_close(g) == yajl_gen_status_ok ? 0 : -1;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);

		if (yajl_gen_array_open(g) != yajl_gen_status_ok)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (sk_json_gen(g, json_array_get(v, i)) < 0)
				return -1;
		return yajl_gen_array_close(g) == yajl_gen_status_ok ? 0 : -1;
	}
	case JSON_STRING:
		return yajl_gen_string(g, (const unsigned char *)json_string_value(v), json_string_length(v)) ==
				       yajl_gen_status_ok
			       ? 0
			       : -1;
	case JSON_INTEGER:
		return yajl_gen_integer(g, json_integer_value(v)) == yajl_gen_status_ok ? 0 : -1;
	case JSON_REAL:
		return gen_real(g, v);
	case JSON_TRUE:
	case JSON_FALSE:
		return yajl_gen_bool(g, json_is_true(v)) == yajl_gen_status_ok ? 0 : -1;
	case JSON_NULL:
		return yajl_gen_null(g) == yajl_gen_status_ok ? 0 : -1;
	}
	return -1;
}

char *sk_json_gen_text(int (*fill)(yajl_gen g, void *ud), void *ud, size_t *len)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t n = 0;
	char *out = NULL;

	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	if (fill(g, ud) == 0 && yajl_gen_get_buf(g, &buf, &n) == yajl_gen_status_ok) {
		out = xmalloc(n + 1);
		memcpy(out, buf, n);
		out[n] = '\0';
		*len = n;
	}
	yajl_gen_free(g);
	return out;
}

static int gen_value(yajl_gen g, void *v) { return sk_json_gen(g, v); }

char *sk_json_dumps(const json_t *v, size_t *len)
{
	size_t n = 0;
	char *out;

	if (!v)
		return NULL;
	out = sk_json_gen_text(gen_value, (void *)v, &n);
	if (!out) {
		out = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		n = out ? strlen(out) : 0;
	}
	if (out && len)
		*len = n;
	return out;
}

int sk_json_array_has_string(const json_t *arr, const char *s)
{
	for (size_t i = 0; i < json_array_size(arr); i++) {
		const json_t *v = json_array_get(arr, i);

		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	}
	return 0;
}
