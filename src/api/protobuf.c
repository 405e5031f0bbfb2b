/* Kubernetes protobuf request bodies into JSON.
 *
 * A small schema-driven reader instead of a protobuf library: Debian's
 * protobuf-c and libprotobuf decode only through descriptors that protoc
 * generates from the .proto files (every Kubernetes package vendored and
 * compiled at build time), and would still not know the JSON mapping (json
 * names, omitempty, inlined structs) that the Go types define. The reader
 * knows the four wire types the Kubernetes types use (varint, 64-bit,
 * length-delimited, 32-bit), rejects groups and malformed input, bounds
 * nesting depth and checks every length against the bytes left. What each
 * field means comes from the tables in protobuf-types.c, generated from
 * upstream's generated.proto files and the Go types' json tags by
 * scripts/gen-protobuf-types.py.
 *
 * JSON follows encoding/json on the upstream Go types, the shape the API
 * server already handles: go-to-protobuf writes non-pointer fields even when
 * they are zero, so a zero value is dropped unless the field is a pointer or
 * has no omitempty (SK__PB_KEEPZERO); nested messages are always emitted
 * ("emptyDir": {}); an empty metav1.Time is the zero time and is dropped, and
 * so is a zero non-pointer IntOrString (Go would write 0) so that defaulting
 * (targetPort = port) applies. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/protobuf-int.h"
#include "api/protobuf.h"
#include "util/util.h"

#define MAX_DEPTH 64

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

/* One decoded field of a message. */
typedef struct pb_field {
	uint32_t num;
	int wt;
	uint64_t v;          /* WT_VARINT */
	const uint8_t *data; /* WT_LEN */
	size_t len;
} pb_field;

typedef struct pb_reader {
	const uint8_t *p, *end;
	const char *msg; /* message name, for errors */
} pb_reader;

static int bad(sk_error_t *err, const char *msg, uint32_t num, const char *what)
{
	if (num)
		return sk_error_set(err, SK_EBADREQUEST, "protobuf: %s field %" PRIu32 ": %s", msg, num, what);
	return sk_error_set(err, SK_EBADREQUEST, "protobuf: %s: %s", msg, what);
}

static int read_varint(pb_reader *r, uint64_t *out)
{
	uint64_t v = 0;

	for (int i = 0; i < 10; i++) {
		uint8_t b;

		if (r->p >= r->end)
			return -1;
		b = *r->p++;
		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Reads the next field; returns 1 with f filled, 0 at the end, -1 on error. */
static int next_field(pb_reader *r, pb_field *f, sk_error_t *err)
{
	uint64_t tag;

	if (r->p == r->end)
		return 0;
	memset(f, 0, sizeof(*f));
	if (read_varint(r, &tag) < 0)
		return bad(err, r->msg, 0, "malformed field tag");
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return bad(err, r->msg, 0, "invalid field number");
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	switch (f->wt) {
	case WT_VARINT:
		if (read_varint(r, &f->v) < 0)
			return bad(err, r->msg, f->num, "malformed varint");
		return 1;
	case WT_I64:
	case WT_I32: {
		size_t n = f->wt == WT_I64 ? 8 : 4;

		if ((size_t)(r->end - r->p) < n)
			return bad(err, r->msg, f->num, "truncated fixed-width value");
		r->p += n;
		return 1;
	}
	case WT_LEN: {
		uint64_t n;

		if (read_varint(r, &n) < 0)
			return bad(err, r->msg, f->num, "malformed length");
		if (n > (uint64_t)(r->end - r->p))
			return bad(err, r->msg, f->num, "length runs past the end of the message");
		f->data = r->p;
		f->len = (size_t)n;
		r->p += n;
		return 1;
	}
	case WT_SGROUP:
	case WT_EGROUP:
		return bad(err, r->msg, f->num, "groups are not supported");
	default:
		return bad(err, r->msg, f->num, "invalid wire type");
	}
}

static const sk__pb_message *find_message(const char *name)
{
	size_t lo = 0, hi = sk__pb_nmessages;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sk__pb_messages[mid].name, name);

		if (!c)
			return &sk__pb_messages[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const sk__pb_field *find_field(const sk__pb_message *m, uint32_t num)
{
	size_t lo = 0, hi = m->nfields;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fields[mid].num == num)
			return &m->fields[mid];
		if (m->fields[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static json_t *base64(const uint8_t *p, size_t n)
{
	size_t len;
	cleanup_free char *s = sk_base64_encode(p, n, &len);

	return json_stringn(s, len);
}

static json_t *string_value(const pb_field *f, const char *msg, sk_error_t *err)
{
	json_t *s = json_stringn((const char *)f->data, f->len);

	if (!s)
		bad(err, msg, f->num, "string is not valid UTF-8");
	return s;
}

static int is_zero(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return json_string_length(v) == 0;
	case JSON_INTEGER:
		return json_integer_value(v) == 0;
	case JSON_FALSE:
		return 1;
	default:
		return 0;
	}
}

static int decode_message(const uint8_t *buf, size_t len, const sk__pb_message *m, int depth, json_t **out,
			  sk_error_t *err);
static json_t *decode_envelope(const uint8_t *buf, size_t len, int depth, sk_error_t *err);

/* Converts one occurrence of field f (wire data in pf) into *out; *out may be
 * left NULL for a value JSON leaves out (the zero metav1.Time). */
static int field_value(const sk__pb_message *m, const sk__pb_field *f, int kind, int msg, const pb_field *pf, int depth,
		       json_t **out, sk_error_t *err)
{
	*out = NULL;
	if (kind == SK__PB_STRING || kind == SK__PB_BYTES || kind == SK__PB_MSG) {
		if (pf->wt != WT_LEN)
			return bad(err, m->name, f->num, "wrong wire type for a length-delimited field");
	} else if (pf->wt != WT_VARINT) {
		return bad(err, m->name, f->num, "wrong wire type for a varint field");
	}
	switch (kind) {
	case SK__PB_STRING:
		*out = string_value(pf, m->name, err);
		return *out ? 0 : -1;
	case SK__PB_BYTES:
		*out = base64(pf->data, pf->len);
		return 0;
	case SK__PB_BOOL:
		*out = json_boolean(pf->v != 0);
		return 0;
	case SK__PB_INT32:
		*out = json_integer((int32_t)(uint32_t)pf->v);
		return 0;
	case SK__PB_INT64:
		*out = json_integer((json_int_t)(int64_t)pf->v);
		return 0;
	case SK__PB_MSG:
		if (msg < 0 || (size_t)msg >= sk__pb_nmessages)
			return bad(err, m->name, f->num, "schema has no message for this field");
		return decode_message(pf->data, pf->len, &sk__pb_messages[msg], depth + 1, out, err);
	default:
		return bad(err, m->name, f->num, "schema has an unknown wire kind");
	}
}

/* A map entry {1: key, 2: value} of field f, set into the object obj. */
static int map_entry(const sk__pb_message *m, const sk__pb_field *f, const pb_field *pf, json_t *obj, int depth,
		     sk_error_t *err)
{
	const uint8_t *key = (const uint8_t *)"";
	size_t klen = 0;
	pb_field e, val = {0};
	int have_val = 0, rc;
	json_t *v = NULL;
	pb_reader r;

	if (pf->wt != WT_LEN)
		return bad(err, m->name, f->num, "wrong wire type for a map entry");
	r = (pb_reader){pf->data, pf->data + pf->len, m->name};
	while ((rc = next_field(&r, &e, err)) > 0) {
		if (e.num == 1) {
			if (e.wt != WT_LEN)
				return bad(err, m->name, f->num, "map key is not a string");
			key = e.data;
			klen = e.len;
		} else if (e.num == 2) {
			val = e;
			have_val = 1;
		}
	}
	if (rc < 0)
		return -1;
	if (!have_val) {
		/* An absent value is the type's zero value. */
		val.num = 2;
		val.wt = f->kind == SK__PB_STRING || f->kind == SK__PB_BYTES || f->kind == SK__PB_MSG ? WT_LEN
												      : WT_VARINT;
		val.data = (const uint8_t *)"";
	}
	if (field_value(m, f, f->kind, f->msg, &val, depth, &v, err) < 0)
		return -1;
	if (!v)
		v = json_null();
	if (json_object_setn_new(obj, (const char *)key, klen, v) < 0)
		return bad(err, m->name, f->num, "map key is not valid UTF-8");
	return 0;
}

static int repeated_value(const sk__pb_message *m, const sk__pb_field *f, const pb_field *pf, json_t *arr, int depth,
			  sk_error_t *err)
{
	json_t *v = NULL;

	if (pf->wt == WT_LEN && (f->kind == SK__PB_BOOL || f->kind == SK__PB_INT32 || f->kind == SK__PB_INT64)) {
		/* Packed scalars. */
		pb_reader r = {pf->data, pf->data + pf->len, m->name};
		pb_field one = {.num = f->num, .wt = WT_VARINT};

		while (r.p < r.end) {
			if (read_varint(&r, &one.v) < 0)
				return bad(err, m->name, f->num, "malformed packed varint");
			if (field_value(m, f, f->kind, f->msg, &one, depth, &v, err) < 0)
				return -1;
			json_array_append_new(arr, v);
		}
		return 0;
	}
	if (field_value(m, f, f->kind, f->msg, pf, depth, &v, err) < 0)
		return -1;
	json_array_append_new(arr, v ? v : json_null());
	return 0;
}

/* Gets (creating it if needed) the object or array under key. */
static json_t *container(json_t *obj, const char *key, int array)
{
	json_t *c = json_object_get(obj, key);

	if (array ? !json_is_array(c) : !json_is_object(c)) {
		c = array ? json_array() : json_object();
		json_object_set_new(obj, key, c);
	}
	return c;
}

static int plain_field(const sk__pb_message *m, const sk__pb_field *f, const pb_field *pf, json_t *obj, int depth,
		       sk_error_t *err)
{
	json_t *v = NULL, *old;

	if (f->flags & SK__PB_MAP)
		return map_entry(m, f, pf, container(obj, f->json, 0), depth, err);
	if (f->flags & SK__PB_REPEATED)
		return repeated_value(m, f, pf, container(obj, f->json, 1), depth, err);
	if (field_value(m, f, f->kind, f->msg, pf, depth, &v, err) < 0)
		return -1;
	if (f->flags & SK__PB_INLINE) {
		if (json_is_object(v))
			json_object_update(obj, v);
		json_decref(v);
		return 0;
	}
	if (!v || (is_zero(v) && !(f->flags & SK__PB_KEEPZERO))) {
		/* The last occurrence wins, even when it is a dropped zero. */
		json_object_del(obj, f->json);
		json_decref(v);
		return 0;
	}
	old = json_object_get(obj, f->json);
	if (json_is_object(old) && json_is_object(v)) {
		/* A repeated occurrence of a message merges into the first. */
		json_object_update(old, v);
		json_decref(v);
		return 0;
	}
	json_object_set_new(obj, f->json, v);
	return 0;
}

static json_t *decode_plain(const uint8_t *buf, size_t len, const sk__pb_message *m, int depth, sk_error_t *err)
{
	pb_reader r = {buf, buf + len, m->name};
	json_t *obj = json_object();
	pb_field pf;
	int rc;

	while ((rc = next_field(&r, &pf, err)) > 0) {
		const sk__pb_field *f = find_field(m, pf.num);

		if (f && plain_field(m, f, &pf, obj, depth, err) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc < 0) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

/* The fields of a special message, by number (only varint and bytes ones). */
typedef struct special_fields {
	int have[4];
	uint64_t v[4];
	const uint8_t *data[4];
	size_t len[4];
} special_fields;

static int read_special(const uint8_t *buf, size_t len, const sk__pb_message *m, special_fields *s, sk_error_t *err)
{
	pb_reader r = {buf, buf + len, m->name};
	pb_field pf;
	int rc;

	memset(s, 0, sizeof(*s));
	while ((rc = next_field(&r, &pf, err)) > 0) {
		if (pf.num >= 4 || (pf.wt != WT_VARINT && pf.wt != WT_LEN))
			continue;
		s->have[pf.num] = pf.wt == WT_VARINT ? 1 : 2;
		s->v[pf.num] = pf.v;
		s->data[pf.num] = pf.data;
		s->len[pf.num] = pf.len;
	}
	return rc;
}

static int want(const special_fields *s, int num, int wt_kind, const sk__pb_message *m, sk_error_t *err)
{
	if (s->have[num] && s->have[num] != wt_kind)
		return bad(err, m->name, (uint32_t)num, "wrong wire type");
	return s->have[num] != 0;
}

static json_t *format_time(const special_fields *s, const sk__pb_message *m, sk_error_t *err)
{
	int64_t secs = (int64_t)s->v[1];
	int64_t nanos = (int32_t)(uint32_t)s->v[2];
	struct tm tm;
	time_t t;
	char buf[64];

	/* 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, as Timestamp allows. */
	if (secs < -62135596800LL || secs > 253402300799LL)
		return bad(err, m->name, 1, "seconds out of range"), NULL;
	if (nanos < 0 || nanos > 999999999)
		return bad(err, m->name, 2, "nanos out of range"), NULL;
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm))
		return bad(err, m->name, 1, "seconds out of range"), NULL;
	if (m->special == SK__PB_MICROTIME)
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(nanos / 1000));
	else
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return json_string(buf);
}

/* Appends ".frac" (digits of frac over 10^prec, trailing zeros trimmed). */
static size_t put_frac(char *buf, size_t o, size_t size, uint64_t frac, int prec)
{
	char digits[16];
	int n = prec;

	if (!frac || prec <= 0)
		return o;
	snprintf(digits, sizeof(digits), "%0*" PRIu64, prec, frac);
	while (n > 0 && digits[n - 1] == '0')
		n--;
	return o + (size_t)snprintf(buf + o, size - o, ".%.*s", n, digits);
}

/* time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
static json_t *format_duration(int64_t d)
{
	uint64_t u = d < 0 ? -(uint64_t)d : (uint64_t)d;
	char buf[64];
	size_t o = 0;

	if (d < 0)
		buf[o++] = '-';
	if (!u)
		return json_string("0s");
	if (u < 1000000000ULL) {
		int prec = u < 1000 ? 0 : u < 1000000 ? 3 : 6;
		const char *unit = prec == 0 ? "ns" : prec == 3 ? "\xc2\xb5s" : "ms";
		uint64_t pow = prec == 0 ? 1 : prec == 3 ? 1000 : 1000000;

		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%" PRIu64, u / pow);
		o = put_frac(buf, o, sizeof(buf), u % pow, prec);
		snprintf(buf + o, sizeof(buf) - o, "%s", unit);
		return json_string(buf);
	}
	uint64_t secs = u / 1000000000ULL, h = secs / 3600, mi = secs / 60 % 60;

	if (h)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%" PRIu64 "h", h);
	if (h || mi)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%" PRIu64 "m", mi);
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%" PRIu64, secs % 60);
	o = put_frac(buf, o, sizeof(buf), u % 1000000000ULL, 9);
	snprintf(buf + o, sizeof(buf) - o, "s");
	return json_string(buf);
}

/* Embedded JSON (RawExtension, FieldsV1) or, for RawExtension, an embedded
 * protobuf object. Empty bytes are JSON null: the field is left out. */
static int embedded(const special_fields *s, const sk__pb_message *m, int depth, json_t **out, sk_error_t *err)
{
	json_error_t jerr;
	int rc = want(s, 1, 2, m, err);

	if (rc <= 0 || !s->len[1])
		return rc < 0 ? -1 : 0;
	if (m->special == SK__PB_RAWEXT && sk_protobuf_is_magic(s->data[1], s->len[1])) {
		*out = decode_envelope(s->data[1], s->len[1], depth + 1, err);
		return *out ? 0 : -1;
	}
	*out = json_loadb((const char *)s->data[1], s->len[1], JSON_DECODE_ANY, &jerr);
	if (!*out)
		return sk_error_set(err, SK_EBADREQUEST, "protobuf: %s: embedded JSON: %s", m->name, jerr.text);
	return 0;
}

static int decode_special(const uint8_t *buf, size_t len, const sk__pb_message *m, int depth, json_t **out,
			  sk_error_t *err)
{
	special_fields s;

	if (read_special(buf, len, m, &s, err) < 0)
		return -1;
	switch (m->special) {
	case SK__PB_QUANTITY:
		if (want(&s, 1, 2, m, err) < 0)
			return -1;
		*out = json_stringn(s.have[1] ? (const char *)s.data[1] : "0", s.have[1] ? s.len[1] : 1);
		return *out ? 0 : bad(err, m->name, 1, "string is not valid UTF-8");
	case SK__PB_TIME:
	case SK__PB_MICROTIME:
		if (want(&s, 1, 1, m, err) < 0 || want(&s, 2, 1, m, err) < 0)
			return -1;
		if (!len)
			return 0; /* the zero time: null in JSON */
		*out = format_time(&s, m, err);
		return *out ? 0 : -1;
	case SK__PB_DURATION:
		if (want(&s, 1, 1, m, err) < 0)
			return -1;
		*out = format_duration((int64_t)s.v[1]);
		return 0;
	case SK__PB_INTORSTRING:
		if (want(&s, 1, 1, m, err) < 0 || want(&s, 2, 1, m, err) < 0 || want(&s, 3, 2, m, err) < 0)
			return -1;
		if (s.v[1] == 1)
			*out = json_stringn(s.have[3] ? (const char *)s.data[3] : "", s.len[3]);
		else
			*out = json_integer((int32_t)(uint32_t)s.v[2]);
		return *out ? 0 : bad(err, m->name, 3, "string is not valid UTF-8");
	case SK__PB_RAWEXT:
	case SK__PB_FIELDSV1:
		return embedded(&s, m, depth, out, err);
	default:
		return bad(err, m->name, 0, "schema has an unknown special message");
	}
}

/* Decodes one message into *out (NULL: leave the field out). */
static int decode_message(const uint8_t *buf, size_t len, const sk__pb_message *m, int depth, json_t **out,
			  sk_error_t *err)
{
	*out = NULL;
	if (depth > MAX_DEPTH)
		return bad(err, m->name, 0, "nesting too deep");
	if (m->special != SK__PB_PLAIN && m->special != SK__PB_ITEMS)
		return decode_special(buf, len, m, depth, out, err);
	*out = decode_plain(buf, len, m, depth, err);
	if (*out && m->special == SK__PB_ITEMS) {
		json_t *items = json_object_get(*out, "items");

		items = json_is_array(items) ? json_incref(items) : json_array();
		json_decref(*out);
		*out = items;
	}
	return *out ? 0 : -1;
}

/* "apps/v1" -> "k8s.io.api.apps.v1.", "rbac.authorization.k8s.io/v1" ->
 * "k8s.io.api.rbac.v1.", "v1" -> "k8s.io.api.core.v1.". */
static const sk__pb_message *message_for(const char *api_version, const char *kind)
{
	const char *slash = strchr(api_version, '/');
	const sk__pb_message *m;
	cleanup_free char *name = NULL;

	if (!*kind || strchr(kind, '.'))
		return NULL;
	if (!slash) {
		name = xasprintf("k8s.io.api.core.%s.%s", api_version, kind);
	} else {
		const char *version = slash + 1;
		size_t glen = strcspn(api_version, "./");

		if (strchr(version, '.') || !*version)
			return NULL;
		name = xasprintf("k8s.io.api.%.*s.%s.%s", (int)glen, api_version, version, kind);
	}
	m = find_message(name);
	if (!m && !strcmp(kind, "DeleteOptions"))
		m = find_message("k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions");
	return m;
}

int sk_protobuf_is_magic(const void *buf, size_t len) { return len >= 4 && !memcmp(buf, "k8s\0", 4); }

static json_t *decode_envelope(const uint8_t *buf, size_t len, int depth, sk_error_t *err)
{
	pb_reader r;
	cleanup_free char *api_version = NULL, *kind = NULL;
	const uint8_t *raw = NULL;
	size_t raw_len = 0;
	const sk__pb_message *m;
	json_t *obj, *body = NULL;
	pb_field pf, tf;
	int rc;

	if (depth > MAX_DEPTH)
		return bad(err, "runtime.Unknown", 0, "nesting too deep"), NULL;
	if (!sk_protobuf_is_magic(buf, len))
		return bad(err, "body", 0, "missing the \"k8s\\0\" prefix"), NULL;
	r = (pb_reader){buf + 4, buf + len, "runtime.Unknown"};
	while ((rc = next_field(&r, &pf, err)) > 0) {
		if (pf.num == 1 && pf.wt == WT_LEN) {
			pb_reader t = {pf.data, pf.data + pf.len, "runtime.TypeMeta"};

			while ((rc = next_field(&t, &tf, err)) > 0) {
				char **dst = tf.num == 1 ? &api_version : tf.num == 2 ? &kind : NULL;

				if (dst && tf.wt == WT_LEN) {
					free(*dst);
					*dst = xstrndup((const char *)tf.data, tf.len);
				}
			}
			if (rc < 0)
				return NULL;
		} else if (pf.num == 2 && pf.wt == WT_LEN) {
			raw = pf.data;
			raw_len = pf.len;
		} else if (pf.num == 3 && pf.wt == WT_LEN && pf.len) {
			return bad(err, "runtime.Unknown", 3, "content encodings are not supported"), NULL;
		} else if (pf.num == 4 && pf.wt == WT_LEN && pf.len &&
			   !(pf.len >= 8 && memmem(pf.data, pf.len, "protobuf", 8))) {
			return bad(err, "runtime.Unknown", 4, "raw content type is not protobuf"), NULL;
		}
	}
	if (rc < 0)
		return NULL;
	if (!api_version || !kind || !*api_version || !*kind)
		return bad(err, "runtime.Unknown", 0, "apiVersion and kind are required"), NULL;
	m = message_for(api_version, kind);
	if (!m) {
		sk_error_set(err, SK_EBADREQUEST, "protobuf: no schema for %s, Kind=%s", api_version, kind);
		return NULL;
	}
	if (decode_message(raw ? raw : (const uint8_t *)"", raw_len, m, depth, &body, err) < 0)
		return NULL;
	obj = json_object();
	json_object_set_new(obj, "apiVersion", json_string(api_version));
	json_object_set_new(obj, "kind", json_string(kind));
	if (json_is_object(body))
		json_object_update(obj, body);
	json_decref(body);
	if (!json_string_value(json_object_get(obj, "apiVersion")) ||
	    !json_string_value(json_object_get(obj, "kind"))) {
		json_decref(obj);
		return bad(err, "runtime.TypeMeta", 0, "apiVersion or kind is not valid UTF-8"), NULL;
	}
	return obj;
}

json_t *sk_protobuf_decode(const void *buf, size_t len, sk_error_t *err)
{
	if (!buf && len)
		return bad(err, "body", 0, "no data"), NULL;
	return decode_envelope(buf ? buf : "", len, 0, err);
}
