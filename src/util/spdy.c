#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "util/spdy.h"
#include "util/util.h"

/* SPDY/3's header compression dictionary (draft-mbelshe-httpbis-spdy-00,
 * 2.6.10.1): length-prefixed words, then a run of plain text. */
static const char *const dict_words[] = {
	"options",
	"head",
	"post",
	"put",
	"delete",
	"trace",
	"accept",
	"accept-charset",
	"accept-encoding",
	"accept-language",
	"accept-ranges",
	"age",
	"allow",
	"authorization",
	"cache-control",
	"connection",
	"content-base",
	"content-encoding",
	"content-language",
	"content-length",
	"content-location",
	"content-md5",
	"content-range",
	"content-type",
	"date",
	"etag",
	"expect",
	"expires",
	"from",
	"host",
	"if-match",
	"if-modified-since",
	"if-none-match",
	"if-range",
	"if-unmodified-since",
	"last-modified",
	"location",
	"max-forwards",
	"pragma",
	"proxy-authenticate",
	"proxy-authorization",
	"range",
	"referer",
	"retry-after",
	"server",
	"te",
	"trailer",
	"transfer-encoding",
	"upgrade",
	"user-agent",
	"vary",
	"via",
	"warning",
	"www-authenticate",
	"method",
	"get",
	"status",
	"200 OK",
	"version",
	"HTTP/1.1",
	"url",
	"public",
	"set-cookie",
	"keep-alive",
	"origin",
};
static const char dict_tail[] =
	"100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
	"203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized"
	"403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable"
	"Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
	"chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
	"text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

static uint8_t dict[1500];
static size_t dict_len;
static pthread_once_t dict_once = PTHREAD_ONCE_INIT;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void build_dict(void)
{
	for (size_t i = 0; i < sizeof(dict_words) / sizeof(*dict_words); i++) {
		size_t n = strlen(dict_words[i]);

		put32(dict + dict_len, (uint32_t)n);
		memcpy(dict + dict_len + 4, dict_words[i], n);
		dict_len += 4 + n;
	}
	memcpy(dict + dict_len, dict_tail, sizeof(dict_tail) - 1);
	dict_len += sizeof(dict_tail) - 1;
}

struct sk_spdy {
	z_stream in, out;
	bool in_ok, out_ok;
	uint8_t *buf; /* unparsed input */
	size_t len, cap;
	bool failed;
};

struct sk_spdy *sk_spdy_new(void)
{
	struct sk_spdy *s = xzalloc(sizeof(*s));

	pthread_once(&dict_once, build_dict);
	if (inflateInit(&s->in) != Z_OK || deflateInit(&s->out, Z_DEFAULT_COMPRESSION) != Z_OK ||
	    deflateSetDictionary(&s->out, dict, (uInt)dict_len) != Z_OK)
		abort(); /* only out of memory */
	s->in_ok = s->out_ok = true;
	return s;
}

void sk_spdy_free(struct sk_spdy *s)
{
	if (!s)
		return;
	if (s->in_ok)
		inflateEnd(&s->in);
	if (s->out_ok)
		deflateEnd(&s->out);
	free(s->buf);
	free(s);
}

static void headers_release(struct sk_spdy_frame *f)
{
	for (size_t i = 0; i < f->nheaders; i++) {
		free(f->headers[i].name);
		free(f->headers[i].value);
	}
	f->nheaders = 0;
}

/* Inflates one header block (the session's stream) into *out. */
static int inflate_block(struct sk_spdy *s, const uint8_t *in, size_t n, uint8_t **out, size_t *olen)
{
	size_t cap = 1024, len = 0;
	uint8_t *o = xmalloc(cap);
	int rc;

	s->in.next_in = (Bytef *)in;
	s->in.avail_in = (uInt)n;
	for (;;) {
		if (len == cap) {
			if (cap >= 64 * 1024)
				goto fail;
			cap *= 2;
			o = xrealloc(o, cap);
		}
		s->in.next_out = o + len;
		s->in.avail_out = (uInt)(cap - len);
		rc = inflate(&s->in, Z_SYNC_FLUSH);
		len = cap - s->in.avail_out;
		if (rc == Z_NEED_DICT) {
			if (inflateSetDictionary(&s->in, dict, (uInt)dict_len) != Z_OK)
				goto fail;
			continue;
		}
		if (rc == Z_BUF_ERROR && s->in.avail_in == 0)
			break;
		if (rc != Z_OK)
			goto fail;
		if (s->in.avail_in == 0 && s->in.avail_out > 0)
			break;
	}
	*out = o;
	*olen = len;
	return 0;
fail:
	free(o);
	return -1;
}

/* The name/value block: count, then (length, name, length, value) pairs. */
static int parse_block(const uint8_t *p, size_t n, struct sk_spdy_frame *f)
{
	uint32_t count;
	size_t off = 4;

	if (n < 4)
		return -1;
	count = get32(p);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t kl, vl;
		const uint8_t *k, *v;

		if (n - off < 4 || (kl = get32(p + off)) > n - off - 4)
			return -1;
		k = p + off + 4;
		off += 4 + kl;
		if (n - off < 4 || (vl = get32(p + off)) > n - off - 4)
			return -1;
		v = p + off + 4;
		off += 4 + vl;
		if (f->nheaders < SK_SPDY_MAX_HEADERS) {
			f->headers[f->nheaders].name = xstrndup((const char *)k, kl);
			f->headers[f->nheaders].value = xstrndup((const char *)v, vl);
			f->nheaders++;
		}
	}
	return 0;
}

static int headers_frame(struct sk_spdy *s, const uint8_t *p, size_t n, size_t skip, struct sk_spdy_frame *f)
{
	uint8_t *plain = NULL;
	size_t plen = 0;
	int rc;

	if (n < skip)
		return -1;
	f->stream_id = get32(p) & 0x7fffffff;
	if (inflate_block(s, p + skip, n - skip, &plain, &plen) < 0)
		return -1;
	rc = parse_block(plain, plen, f);
	free(plain);
	return rc;
}

/* Fills f from one control frame's payload; -1 on a malformed one. */
static int control_frame(struct sk_spdy *s, uint16_t type, const uint8_t *p, size_t n, struct sk_spdy_frame *f)
{
	f->type = (enum sk_spdy_type)type;
	switch (type) {
	case SK_SPDY_SYN_STREAM:
		return headers_frame(s, p, n, 10, f);
	case SK_SPDY_SYN_REPLY:
	case SK_SPDY_HEADERS:
		return headers_frame(s, p, n, 4, f);
	case SK_SPDY_RST_STREAM:
	case SK_SPDY_GOAWAY:
	case SK_SPDY_WINDOW_UPDATE:
		if (n < 8)
			return -1;
		f->stream_id = get32(p) & 0x7fffffff;
		f->value = get32(p + 4);
		return 0;
	case SK_SPDY_PING:
		if (n < 4)
			return -1;
		f->value = get32(p);
		return 0;
	default: /* SETTINGS and unknown types are read and ignored */
		f->data = p;
		f->len = n;
		return 0;
	}
}

int sk_spdy_feed(struct sk_spdy *s, const uint8_t *data, size_t len, sk_spdy_frame_cb cb, void *arg)
{
	size_t off = 0;

	if (s->failed)
		return -1;
	if (s->len + len > s->cap) {
		s->cap = (s->len + len) * 2;
		s->buf = xrealloc(s->buf, s->cap);
	}
	if (len)
		memcpy(s->buf + s->len, data, len);
	s->len += len;
	while (s->len - off >= 8) {
		const uint8_t *h = s->buf + off;
		uint32_t flen = get32(h + 4) & 0xffffff;
		struct sk_spdy_frame f = {0};
		int rc = 0, stop;

		if (flen > SK_SPDY_MAX_FRAME)
			goto fail;
		if (s->len - off - 8 < flen)
			break;
		f.flags = h[4];
		if (h[0] & 0x80) {
			uint16_t version = (uint16_t)((h[0] & 0x7f) << 8 | h[1]);

			if (version != 3)
				goto fail;
			rc = control_frame(s, (uint16_t)(h[2] << 8 | h[3]), h + 8, flen, &f);
		} else {
			f.type = SK_SPDY_DATA;
			f.stream_id = get32(h) & 0x7fffffff;
			f.data = h + 8;
			f.len = flen;
		}
		off += 8 + flen;
		if (rc < 0) {
			headers_release(&f);
			goto fail;
		}
		stop = cb(arg, &f);
		headers_release(&f);
		if (stop)
			break;
	}
	if (off) {
		memmove(s->buf, s->buf + off, s->len - off);
		s->len -= off;
	}
	return 0;
fail:
	s->failed = true;
	return -1;
}

static uint8_t *control(uint16_t type, uint8_t flags, size_t plen, size_t *len)
{
	uint8_t *f = xzalloc(8 + plen);

	f[0] = 0x80;
	f[1] = 3;
	f[2] = (uint8_t)(type >> 8);
	f[3] = (uint8_t)type;
	put32(f + 4, (uint32_t)plen);
	f[4] = flags;
	*len = 8 + plen;
	return f;
}

uint8_t *sk_spdy_data(uint32_t stream_id, uint8_t flags, const void *data, size_t n, size_t *len)
{
	uint8_t *f = xmalloc(8 + n);

	put32(f, stream_id & 0x7fffffff);
	put32(f + 4, (uint32_t)n);
	f[4] = flags;
	if (n)
		memcpy(f + 8, data, n);
	*len = 8 + n;
	return f;
}

uint8_t *sk_spdy_syn(struct sk_spdy *s, enum sk_spdy_type type, uint32_t stream_id, uint8_t flags,
		     const struct sk_spdy_header *h, size_t nh, size_t *len)
{
	size_t plain_len = 4, off = 4, skip = type == SK_SPDY_SYN_STREAM ? 10 : 4, cap;
	uint8_t *plain, *f;

	for (size_t i = 0; i < nh; i++)
		plain_len += 8 + strlen(h[i].name) + strlen(h[i].value);
	plain = xmalloc(plain_len);
	put32(plain, (uint32_t)nh);
	for (size_t i = 0; i < nh; i++) {
		size_t kl = strlen(h[i].name), vl = strlen(h[i].value);

		put32(plain + off, (uint32_t)kl);
		memcpy(plain + off + 4, h[i].name, kl);
		off += 4 + kl;
		put32(plain + off, (uint32_t)vl);
		memcpy(plain + off + 4, h[i].value, vl);
		off += 4 + vl;
	}
	cap = deflateBound(&s->out, plain_len) + 64;
	f = xzalloc(8 + skip + cap);
	s->out.next_in = plain;
	s->out.avail_in = (uInt)plain_len;
	s->out.next_out = f + 8 + skip;
	s->out.avail_out = (uInt)cap;
	if (deflate(&s->out, Z_SYNC_FLUSH) != Z_OK || s->out.avail_in)
		abort(); /* the bound holds the whole block */
	free(plain);
	{
		size_t plen = skip + cap - s->out.avail_out;

		f[0] = 0x80;
		f[1] = 3;
		f[2] = 0;
		f[3] = (uint8_t)type;
		put32(f + 4, (uint32_t)plen);
		f[4] = flags;
		put32(f + 8, stream_id & 0x7fffffff);
		*len = 8 + plen;
	}
	return f;
}

uint8_t *sk_spdy_rst(uint32_t stream_id, uint32_t status, size_t *len)
{
	uint8_t *f = control(SK_SPDY_RST_STREAM, 0, 8, len);

	put32(f + 8, stream_id & 0x7fffffff);
	put32(f + 12, status);
	return f;
}

uint8_t *sk_spdy_ping(uint32_t id, size_t *len)
{
	uint8_t *f = control(SK_SPDY_PING, 0, 4, len);

	put32(f + 8, id);
	return f;
}

uint8_t *sk_spdy_goaway(uint32_t last_id, size_t *len)
{
	uint8_t *f = control(SK_SPDY_GOAWAY, 0, 8, len);

	put32(f + 8, last_id & 0x7fffffff);
	return f;
}

const char *sk_spdy_header_get(const struct sk_spdy_frame *f, const char *name)
{
	for (size_t i = 0; i < f->nheaders; i++)
		if (!strcasecmp(f->headers[i].name, name))
			return f->headers[i].value;
	return NULL;
}
