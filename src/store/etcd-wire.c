/* The JSON of etcd v3's gRPC gateway: base64 keys and values, 64-bit
 * integers as strings, a watch as one JSON message per line. */
#include <gnutls/gnutls.h>
#include <stdlib.h>
#include <string.h>

#include "store/etcd-int.h"
#include "util/util.h"

char *sk__etcd_b64(const char *data, size_t len)
{
	gnutls_datum_t in = {.data = (unsigned char *)data, .size = (unsigned)len}, out = {0};
	char *s;

	if (len == 0)
		return xstrdup("");
	if (gnutls_base64_encode2(&in, &out) < 0)
		abort(); /* only fails for lack of memory */
	s = xstrndup((const char *)out.data, out.size);
	gnutls_free(out.data);
	return s;
}

int sk__etcd_unb64(const char *s, char **out, size_t *len)
{
	gnutls_datum_t in = {.data = (unsigned char *)s, .size = (unsigned)strlen(s)}, dec = {0};

	if (!*s) {
		*out = xstrdup("");
		*len = 0;
		return 0;
	}
	if (gnutls_base64_decode2(&in, &dec) < 0)
		return -1;
	*out = xmalloc(dec.size + 1);
	if (dec.size)
		memcpy(*out, dec.data, dec.size);
	(*out)[dec.size] = '\0';
	*len = dec.size;
	gnutls_free(dec.data);
	return 0;
}

int64_t sk__etcd_int(const json_t *obj, const char *name)
{
	const json_t *v = json_object_get(obj, name);
	const char *s;
	char *end;
	long long n;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (!json_is_string(v))
		return 0;
	s = json_string_value(v);
	n = strtoll(s, &end, 10);
	return end != s && !*end ? n : 0;
}

/* Decodes kv's field name ("" when absent) into a malloc'd buffer. */
static int field(const json_t *kv, const char *name, char **out, size_t *len)
{
	const json_t *v = json_object_get(kv, name);

	if (v && !json_is_string(v))
		return -1;
	return sk__etcd_unb64(v ? json_string_value(v) : "", out, len);
}

int sk__etcd_kv(const json_t *kv, const char *root, sk_store_kv *out)
{
	size_t rlen = strlen(root), klen;
	char *key = NULL;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(kv) || field(kv, "key", &key, &klen) < 0)
		return -1;
	if (klen <= rlen || memcmp(key, root, rlen) != 0 || strlen(key) != klen) {
		free(key);
		return -1;
	}
	if (field(kv, "value", &out->value, &out->len) < 0) {
		free(key);
		return -1;
	}
	out->key = xstrdup(key + rlen);
	free(key);
	out->create_rev = sk__etcd_int(kv, "create_revision");
	out->mod_rev = sk__etcd_int(kv, "mod_revision");
	return 0;
}

int sk__etcd_lines_feed(sk__etcd_lines *b, const char *data, size_t n, sk__etcd_line_fn fn, void *ud)
{
	size_t start = 0;

	if (b->len + n > SK__ETCD_MAX_LINE)
		return -1;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->buf = xrealloc(b->buf, b->cap);
	}
	if (n)
		memcpy(b->buf + b->len, data, n);
	b->len += n;
	for (size_t i = 0; i < b->len; i++) {
		int rc;

		if (b->buf[i] != '\n')
			continue;
		rc = i > start ? fn(b->buf + start, i - start, ud) : 0;
		start = i + 1;
		if (rc) {
			memmove(b->buf, b->buf + start, b->len - start);
			b->len -= start;
			return rc;
		}
	}
	memmove(b->buf, b->buf + start, b->len - start);
	b->len -= start;
	return 0;
}

void sk__etcd_lines_release(sk__etcd_lines *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

int sk__etcd_reply_error(const json_t *reply, sk_error_t *err)
{
	const json_t *e = json_object_get(reply, "error");
	const char *msg = json_string_value(json_object_get(reply, "message"));

	if (!e)
		return 0;
	if (json_is_object(e)) { /* a streaming call's error */
		msg = json_string_value(json_object_get(e, "message"));
	}
	if (!msg)
		msg = json_is_string(e) ? json_string_value(e) : "etcdserver: unknown error";
	if (strstr(msg, "required revision has been compacted"))
		return sk_error_set(err, SK_EGONE, "%s", msg);
	if (strstr(msg, "required revision is a future revision"))
		return sk_error_set(err, SK_ETIMEOUT, "%s", msg);
	/* Everything else, gRPC Unavailable (14) and DeadlineExceeded (4)
	 * included (etcd lost its quorum or leader: "etcdserver: request timed
	 * out", "etcdserver: no leader"): kube-apiserver passes etcd's error on
	 * as a 500 Status without a reason (ErrorToAPIStatus's default). */
	return sk_error_set(err, SK_EUNKNOWN, "%s", msg);
}

static void event_release(sk__event *ev)
{
	sk__blob_unref(ev->key);
	sk__blob_unref(ev->val);
	sk__blob_unref(ev->prev);
}

/* Builds ev from a gateway Event; -1 when malformed or outside root. */
static int parse_event(const json_t *j, const char *root, sk__event *ev)
{
	const char *type = json_string_value(json_object_get(j, "type"));
	sk_store_kv kv, prev = {0};
	int has_prev = json_object_get(j, "prev_kv") != NULL;

	memset(ev, 0, sizeof(*ev));
	if (sk__etcd_kv(json_object_get(j, "kv"), root, &kv) < 0)
		return -1;
	if (has_prev && sk__etcd_kv(json_object_get(j, "prev_kv"), root, &prev) < 0) {
		sk_store_kv_release(&kv);
		return -1;
	}
	ev->rev = kv.mod_rev;
	ev->key = sk__blob_new(kv.key, strlen(kv.key));
	if (type && !strcmp(type, "DELETE")) {
		ev->type = SK_STORE_DELETE;
		ev->val = has_prev ? sk__blob_new(prev.value, prev.len) : sk__blob_new("", 0);
		ev->create_rev = prev.create_rev;
	} else {
		ev->type = kv.create_rev == kv.mod_rev ? SK_STORE_CREATE : SK_STORE_UPDATE;
		ev->val = sk__blob_new(kv.value, kv.len);
		ev->create_rev = kv.create_rev;
	}
	if (has_prev && ev->type != SK_STORE_CREATE) {
		ev->prev = sk__blob_new(prev.value, prev.len);
		ev->prev_create_rev = prev.create_rev;
		ev->prev_mod_rev = prev.mod_rev;
	}
	sk_store_kv_release(&kv);
	sk_store_kv_release(&prev);
	return ev->rev > 0 ? 0 : (event_release(ev), -1);
}

int sk__etcd_wmsg_parse(const char *line, size_t len, const char *root, sk__etcd_wmsg *m, sk_error_t *err)
{
	cleanup_json json_t *msg = json_loadb(line, len, 0, NULL);
	const json_t *res = json_object_get(msg, "result"), *evs;
	int64_t last = 0;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(msg))
		return sk_error_set(err, SK_EUNKNOWN, "etcd watch: malformed message");
	if (sk__etcd_reply_error(msg, err) < 0)
		return -1;
	if (!json_is_object(res))
		return sk_error_set(err, SK_EUNKNOWN, "etcd watch: message without a result");
	m->header_rev = sk__etcd_int(json_object_get(res, "header"), "revision");
	m->compact_rev = sk__etcd_int(res, "compact_revision");
	m->created = json_is_true(json_object_get(res, "created"));
	m->canceled = json_is_true(json_object_get(res, "canceled"));
	evs = json_object_get(res, "events");
	if (!json_is_array(evs))
		return 0;
	m->events = xzalloc((json_array_size(evs) + 1) * sizeof(m->events[0]));
	json_array_foreach(evs, i, res) {
		if (parse_event(res, root, &m->events[m->n]) < 0)
			continue;
		if (m->events[m->n].rev != last)
			m->distinct_revs++;
		last = m->events[m->n].rev;
		m->n++;
	}
	return 0;
}

void sk__etcd_wmsg_release(sk__etcd_wmsg *m)
{
	for (size_t i = 0; i < m->n; i++)
		event_release(&m->events[i]);
	free(m->events);
	memset(m, 0, sizeof(*m));
}
