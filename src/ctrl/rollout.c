/* Pure rollout arithmetic; see rollout.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/rollout.h"
#include "util/util.h"

int sk_rollout_scaled(json_t *v, const char *def, int64_t total, int round_up, int64_t *out, sk_error_t *err)
{
	const char *s;
	char *end;
	long long pct;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	s = json_is_string(v) ? json_string_value(v) : def;
	if (!s)
		return sk_error_set(err, SK_EINVALID, "invalid value for IntOrString: invalid type");
	pct = strtoll(s, &end, 10);
	if (end == s || strcmp(end, "%"))
		return sk_error_set(err, SK_EINVALID, "invalid value for IntOrString: invalid value \"%s\"", s);
	if (round_up)
		*out = (int64_t)ceil((double)pct * (double)total / 100.0);
	else
		*out = (int64_t)floor((double)pct * (double)total / 100.0);
	return 0;
}

int sk_rollout_fenceposts(json_t *max_surge, json_t *max_unavailable, int64_t replicas, int64_t *surge,
			  int64_t *unavailable, sk_error_t *err)
{
	if (sk_rollout_scaled(max_surge, "25%", replicas, 1, surge, err) < 0 ||
	    sk_rollout_scaled(max_unavailable, "25%", replicas, 0, unavailable, err) < 0)
		return -1;
	if (*surge == 0 && *unavailable == 0)
		*unavailable = 1;
	return 0;
}

int64_t sk_rollout_new_rs_replicas(int64_t replicas, int64_t surge, int64_t all_pods, int64_t new_rs_replicas)
{
	int64_t max_total = replicas + surge, up;

	if (all_pods >= max_total)
		return new_rs_replicas;
	up = max_total - all_pods;
	if (up > replicas - new_rs_replicas)
		up = replicas - new_rs_replicas;
	return new_rs_replicas + up;
}

int64_t sk_rollout_max_scaled_down(int64_t replicas, int64_t unavailable, int64_t all_pods, int64_t new_rs_spec,
				   int64_t new_rs_available)
{
	int64_t min_available = replicas - unavailable;
	int64_t new_unavailable = new_rs_spec - new_rs_available;

	return all_pods - min_available - new_unavailable;
}

static uint32_t fnv32a(uint32_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

void sk_rollout_safe_encode(const char *in, char *out, size_t len)
{
	static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = alnum[(unsigned char)in[i] % (sizeof(alnum) - 1)];
	out[i] = '\0';
}

static json_t *without_hash(json_t *tmpl)
{
	json_t *c = json_deep_copy(tmpl), *meta = json_object_get(c, "metadata");
	json_t *labels = json_object_get(meta, "labels");

	/* kubectl rollout undo sends "creationTimestamp": null: Go's zero time */
	if (json_is_null(json_object_get(meta, "creationTimestamp")))
		json_object_del(meta, "creationTimestamp");

	json_object_del(labels, "pod-template-hash");
	if (labels && !json_object_size(labels))
		json_object_del(json_object_get(c, "metadata"), "labels");
	return c;
}

void sk_rollout_hash(json_t *tmpl, int64_t collision_count, char *buf, size_t len)
{
	cleanup_json json_t *c = without_hash(tmpl);
	cleanup_free char *enc = json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT);
	uint32_t h = fnv32a(2166136261u, enc, strlen(enc));
	char dec[16];

	if (collision_count >= 0) {
		unsigned char b[4];
		uint32_t cc = (uint32_t)collision_count;

		for (int i = 0; i < 4; i++)
			b[i] = (unsigned char)(cc >> (8 * i));
		h = fnv32a(h, b, 4);
	}
	snprintf(dec, sizeof(dec), "%u", h);
	sk_rollout_safe_encode(dec, buf, len);
}

int sk_rollout_template_equal(json_t *a, json_t *b)
{
	cleanup_json json_t *ca = without_hash(a), *cb = without_hash(b);

	return json_equal(ca, cb);
}

int64_t sk_rollout_proportion(int64_t rs_replicas, int64_t annotated, int64_t d_max, int64_t to_add, int64_t added)
{
	int64_t allowed, fraction;

	if (rs_replicas == 0 || to_add == 0 || to_add == added)
		return 0;
	allowed = to_add - added;
	if (d_max == 0)
		fraction = -rs_replicas;
	else if (annotated <= 0)
		fraction = 0;
	else
		fraction = (int64_t)llround((double)(rs_replicas * d_max) / (double)annotated) - rs_replicas;
	if (to_add > 0)
		return fraction < allowed ? fraction : allowed;
	return fraction > allowed ? fraction : allowed;
}
