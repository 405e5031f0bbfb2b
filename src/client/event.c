#include "client/event.h"

#include <gnutls/crypto.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "util/util.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* Event names are "<object>.<16 hex digits>" like client-go's. The suffix is
 * a hash of reason, message and source, so repeats land on the same Event. */
static void event_name(char *buf, size_t len, const char *obj, const char *reason, const char *msg,
		       const char *component)
{
	unsigned char d[32];
	cleanup_free char *key = xasprintf("%s\x1f%s\x1f%s\x1f%s", obj, reason, msg, component);

	gnutls_hash_fast(GNUTLS_DIG_SHA256, key, strlen(key), d);
	snprintf(buf, len, "%.200s.%02x%02x%02x%02x%02x%02x%02x%02x", obj, d[0], d[1], d[2], d[3], d[4], d[5], d[6],
		 d[7]);
}

static json_t *new_event(json_t *obj, const char *name, const char *ns, const char *type, const char *reason,
			 const char *component, const char *host, const char *msg, const char *ts, const char *mts)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *ev = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, s:i, "
			       "s:s, s:s, s:s, s:s, s:s}",
			       "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace", ns,
			       "involvedObject", "kind", str(obj, "kind"), "apiVersion", str(obj, "apiVersion"), "name",
			       str(meta, "name"), "namespace", str(meta, "namespace"), "uid", str(meta, "uid"),
			       "reason", reason, "message", msg, "type", type, "count", 1, "firstTimestamp", ts,
			       "lastTimestamp", ts, "eventTime", mts, "reportingComponent", component,
			       "reportingInstance", host ? host : component);
	json_t *src = json_pack("{s:s}", "component", component);

	if (!*str(meta, "namespace"))
		json_object_del(json_object_get(ev, "involvedObject"), "namespace");
	if (*str(obj, "fieldPath"))
		json_object_set_new(json_object_get(ev, "involvedObject"), "fieldPath",
				    json_string(str(obj, "fieldPath")));
	if (host)
		json_object_set_new(src, "host", json_string(host));
	json_object_set_new(ev, "source", src);
	json_object_set_new(ev, "eventTime", json_null());
	(void)mts;
	return ev;
}

/* ---- client-go's EventSourceObjectSpamFilter ----
 * A token bucket per (source, object, type, reason) as getSpamKey builds
 * it: 25 events at once, then one each 5 minutes; the rest are dropped
 * (an object that makes thousands of pods gets 25 SuccessfulCreate events,
 * not thousands). The buckets are an LRU of 4096 keys, as upstream's cache. */

#define SPAM_BURST 25.0
#define SPAM_REFILL_NS (300 * 1000000000LL) /* one token per 5 minutes */
#define SPAM_SLOTS 4096

static struct spam_slot {
	uint64_t key; /* 0: free */
	double tokens;
	int64_t last_ns;
} spam[SPAM_SLOTS];
static pthread_mutex_t spam_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t spam_key(json_t *obj, const char *type, const char *reason, const char *component, const char *host)
{
	json_t *meta = json_object_get(obj, "metadata");
	cleanup_free char *k = xasprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", component,
					 host ? host : "", str(obj, "kind"), str(meta, "namespace"), str(meta, "name"),
					 str(meta, "uid"), str(obj, "apiVersion"), type, reason);
	unsigned char d[32];
	uint64_t v = 0;

	gnutls_hash_fast(GNUTLS_DIG_SHA256, k, strlen(k), d);
	for (int i = 0; i < 8; i++)
		v = v << 8 | d[i];
	return v ? v : 1;
}

/* Whether an event of this key may be written now (takes a token). */
static int spam_allow(uint64_t key)
{
	int64_t now = sk_mono_ns();
	size_t h = (size_t)(key % SPAM_SLOTS), victim = h;
	struct spam_slot *e = NULL;
	int ok;

	pthread_mutex_lock(&spam_mu);
	for (size_t i = 0; i < 8 && !e; i++) {
		struct spam_slot *c = &spam[(h + i) % SPAM_SLOTS];

		if (c->key == key)
			e = c;
		else if (!c->key || c->last_ns < spam[victim].last_ns)
			victim = (h + i) % SPAM_SLOTS;
	}
	if (!e) {
		/* a new key (or one the LRU dropped): a full bucket */
		e = &spam[victim];
		e->key = key;
		e->tokens = SPAM_BURST;
		e->last_ns = now;
	}
	e->tokens += (double)(now - e->last_ns) / SPAM_REFILL_NS;
	if (e->tokens > SPAM_BURST)
		e->tokens = SPAM_BURST;
	e->last_ns = now;
	ok = e->tokens >= 1.0;
	if (ok)
		e->tokens -= 1.0;
	pthread_mutex_unlock(&spam_mu);
	return ok;
}

void sk_event_record(sk_client *c, json_t *obj, const char *type, const char *reason, const char *component,
		     const char *host, const char *fmt, ...)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = *str(meta, "namespace") ? str(meta, "namespace") : "default";
	char name[256], ts[32], mts[40];
	cleanup_free char *msg = NULL, *path = NULL, *ipath = NULL;
	cleanup_json json_t *ev = NULL, *out = NULL;
	sk_error_t err = {0};
	va_list ap;
	int r;

	if (!spam_allow(spam_key(obj, type, reason, component, host))) {
		sk_debug("event", "dropping a %s event for %s: the source's rate for the object is spent", reason,
			 str(meta, "name"));
		return;
	}
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		abort();
	sk_time_format(sk_now_ns() / 1000000000, ts, sizeof(ts));
	sk_time_format_micro(sk_now_ns(), mts, sizeof(mts));
	{
		/* repeats aggregate per object part: the hash covers the field path */
		cleanup_free char *hashed = xasprintf("%s\x1f%s", msg, str(obj, "fieldPath"));

		event_name(name, sizeof(name), str(meta, "name"), reason, hashed, component);
	}
	path = xasprintf("/api/v1/namespaces/%s/events/%s", ns, name);
	ev = sk_client_get(c, path, &err);
	if (ev) {
		cleanup_json json_t *patch = json_pack("{s:I, s:s}", "count",
						       (json_int_t)json_integer_value(json_object_get(ev, "count")) + 1,
						       "lastTimestamp", ts);

		out = sk_client_patch(c, path, SK_PATCH_MERGE, patch, &err);
	} else {
		ev = new_event(obj, name, ns, type, reason, component, host, msg, ts, mts);
		ipath = xasprintf("/api/v1/namespaces/%s/events", ns);
		out = sk_client_create_take(c, ipath, steal_ptr(&ev), &err);
	}
	if (!out)
		sk_debug("event", "recording %s event for %s: %s", reason, str(meta, "name"), err.msg);
}
