/* Pure Job logic; see jobutil.h. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/jobutil.h"
#include "util/util.h"

void sk_index_set_init(sk_index_set *s, int64_t n)
{
	s->n = n > 0 ? n : 0;
	s->bits = xzalloc((size_t)(s->n / 8 + 1));
}

void sk_index_set_release(sk_index_set *s)
{
	free(s->bits);
	s->bits = NULL;
	s->n = 0;
}

int sk_index_set_has(const sk_index_set *s, int64_t i) { return i >= 0 && i < s->n && (s->bits[i / 8] >> (i % 8)) & 1; }

void sk_index_set_add(sk_index_set *s, int64_t i)
{
	if (i >= 0 && i < s->n)
		s->bits[i / 8] |= (unsigned char)(1u << (i % 8));
}

int64_t sk_index_set_count(const sk_index_set *s)
{
	int64_t c = 0;

	for (int64_t i = 0; i < s->n; i++)
		c += sk_index_set_has(s, i);
	return c;
}

void sk_index_set_parse(sk_index_set *s, const char *str, int64_t n)
{
	sk_index_set_init(s, n);
	while (str && *str) {
		char *end;
		long long a = strtoll(str, &end, 10), b;

		if (end == str)
			break;
		b = a;
		if (*end == '-') {
			const char *p = end + 1;

			b = strtoll(p, &end, 10);
			if (end == p)
				break;
		}
		for (long long i = a; i <= b && i < n; i++)
			sk_index_set_add(s, i);
		str = end;
		if (*str == ',')
			str++;
		else
			break;
	}
}

char *sk_index_set_format(const sk_index_set *s)
{
	size_t cap = 64, len = 0;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (int64_t i = 0; i < s->n; i++) {
		int64_t j = i;
		char buf[48];
		int w;

		if (!sk_index_set_has(s, i))
			continue;
		while (j + 1 < s->n && sk_index_set_has(s, j + 1))
			j++;
		if (j == i)
			w = snprintf(buf, sizeof(buf), "%s%lld", len ? "," : "", (long long)i);
		else
			w = snprintf(buf, sizeof(buf), "%s%lld-%lld", len ? "," : "", (long long)i, (long long)j);
		while (len + (size_t)w + 1 > cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + len, buf, (size_t)w + 1);
		len += (size_t)w;
		i = j;
	}
	return out;
}

int64_t sk_job_backoff_secs(int64_t failures)
{
	int64_t d = 10;

	if (failures <= 0)
		return 0;
	for (int64_t i = 1; i < failures && d < 360; i++)
		d *= 2;
	return d > 360 ? 360 : d;
}

static int code_in(json_t *values, json_int_t code)
{
	json_t *v;
	size_t i;

	json_array_foreach(values, i, v)
		if (json_integer_value(v) == code)
			return 1;
	return 0;
}

/* First container (init containers first, as upstream) whose exit code
 * matches req; returns the status or NULL. */
static json_t *match_exit_codes(json_t *req, json_t *pod)
{
	const char *cname = json_string_value(json_object_get(req, "containerName"));
	const char *op = json_string_value(json_object_get(req, "operator"));
	json_t *values = json_object_get(req, "values");
	const char *lists[] = {"initContainerStatuses", "containerStatuses"};

	for (int l = 0; l < 2; l++) {
		json_t *arr = json_object_get(json_object_get(pod, "status"), lists[l]), *cs;
		size_t i;

		json_array_foreach(arr, i, cs) {
			json_t *t = json_object_get(json_object_get(cs, "state"), "terminated");
			json_int_t code;
			int in;

			if (!t)
				continue;
			if (cname && strcmp(cname, json_string_value(json_object_get(cs, "name")) ?: ""))
				continue;
			code = json_integer_value(json_object_get(t, "exitCode"));
			if (code == 0)
				continue;
			in = code_in(values, code);
			if ((op && !strcmp(op, "In") && in) || (op && !strcmp(op, "NotIn") && !in))
				return cs;
		}
	}
	return NULL;
}

static json_t *match_conditions(json_t *reqs, json_t *pod)
{
	json_t *r, *c;
	size_t i, j;

	json_array_foreach(reqs, i, r) {
		const char *type = json_string_value(json_object_get(r, "type"));
		const char *st = json_string_value(json_object_get(r, "status"));

		json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), j, c) {
			const char *ct = json_string_value(json_object_get(c, "type"));
			const char *cst = json_string_value(json_object_get(c, "status"));

			if (type && ct && !strcmp(type, ct) && cst && !strcmp(cst, st ? st : "True"))
				return r;
		}
	}
	return NULL;
}

static enum sk_pfp_action action_of(const char *a)
{
	if (!a)
		return SK_PFP_NONE;
	if (!strcmp(a, "FailJob"))
		return SK_PFP_FAIL_JOB;
	if (!strcmp(a, "FailIndex"))
		return SK_PFP_FAIL_INDEX;
	if (!strcmp(a, "Ignore"))
		return SK_PFP_IGNORE;
	if (!strcmp(a, "Count"))
		return SK_PFP_COUNT;
	return SK_PFP_NONE;
}

enum sk_pfp_action sk_job_pfp_match(json_t *pfp, json_t *pod, char **msg)
{
	json_t *rule;
	size_t i;
	const char *ns = json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace"));
	const char *name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));

	if (msg)
		*msg = NULL;
	json_array_foreach(json_object_get(pfp, "rules"), i, rule) {
		const char *action = json_string_value(json_object_get(rule, "action"));
		json_t *ec = json_object_get(rule, "onExitCodes");
		json_t *pc = json_object_get(rule, "onPodConditions");
		json_t *hit;

		if (ec && (hit = match_exit_codes(ec, pod))) {
			if (msg)
				*msg = xasprintf(
					"Container %s for pod %s/%s failed with exit code %lld matching %s rule at "
					"index %zu",
					json_string_value(json_object_get(hit, "name")), ns ? ns : "", name ? name : "",
					(long long)json_integer_value(json_object_get(
						json_object_get(json_object_get(hit, "state"), "terminated"),
						"exitCode")),
					action ? action : "", i);
			return action_of(action);
		}
		if (json_array_size(pc) && (hit = match_conditions(pc, pod))) {
			if (msg)
				*msg = xasprintf("Pod %s/%s has condition %s matching %s rule at index %zu",
						 ns ? ns : "", name ? name : "",
						 json_string_value(json_object_get(hit, "type")), action ? action : "",
						 i);
			return action_of(action);
		}
	}
	return SK_PFP_NONE;
}

int sk_job_success_policy_match(json_t *sp, const sk_index_set *succeeded)
{
	json_t *rule;
	size_t i;

	json_array_foreach(json_object_get(sp, "rules"), i, rule) {
		const char *idx = json_string_value(json_object_get(rule, "succeededIndexes"));
		json_t *cnt = json_object_get(rule, "succeededCount");
		int64_t have = 0, want;

		if (idx) {
			sk_index_set sel;

			sk_index_set_parse(&sel, idx, succeeded->n);
			for (int64_t j = 0; j < succeeded->n; j++)
				if (sk_index_set_has(&sel, j) && sk_index_set_has(succeeded, j))
					have++;
			want = json_is_integer(cnt) ? json_integer_value(cnt) : sk_index_set_count(&sel);
			sk_index_set_release(&sel);
		} else {
			if (!json_is_integer(cnt))
				continue;
			have = sk_index_set_count(succeeded);
			want = json_integer_value(cnt);
		}
		if (have >= want)
			return (int)i;
	}
	return -1;
}
