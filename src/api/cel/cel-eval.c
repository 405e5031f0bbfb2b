/* The CEL evaluator: a walk over the AST with values in a per-evaluation
 * arena. JSON values are wrapped lazily with their schema (a list or an
 * object is converted element by element as it is read). Every node and
 * every comprehension step costs one unit, string and list work costs by
 * size; past the limit (or past the arena's memory cap) the evaluation
 * stops with a cost error, as cel-go's actual-cost limit does. */
#include <gnutls/gnutls.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cel/cel-int.h"
#include "util/util.h"

#define ARENA_BLOCK 65536
#define ARENA_MAX (64u << 20)

struct cel_arena {
	struct cel_arena *next;
	size_t used, size;
	char data[];
};

void *sk__cel_alloc(cel_ctx *c, size_t n)
{
	struct cel_arena *a = c->arena;

	n = (n + 15) & ~(size_t)15;
	if (c->used + n > ARENA_MAX) {
		c->cost = -1;
		longjmp(c->out, 1);
	}
	if (!a || a->used + n > a->size) {
		/* blocks double from 2 KiB: most rules need one small block */
		size_t want = a ? (a->size * 2 > ARENA_BLOCK ? ARENA_BLOCK : a->size * 2) : 2048;
		size_t sz = n > want ? n : want;

		a = xmalloc(sizeof(*a) + sz);
		a->next = c->arena;
		a->used = 0;
		a->size = sz;
		c->arena = a;
	}
	c->used += n;
	a->used += n;
	memset(a->data + a->used - n, 0, n);
	return a->data + a->used - n;
}

void sk__cel_charge(cel_ctx *c, int64_t units)
{
	c->cost += units;
	if (c->limit >= 0 && c->cost > c->limit)
		longjmp(c->out, 1);
}

cval *sk__cel_new(cel_ctx *c, enum cel_type t)
{
	cval *v = sk__cel_alloc(c, sizeof(*v));

	v->t = t;
	return v;
}

cval *sk__cel_err(cel_ctx *c, const char *fmt, ...)
{
	cval *v = sk__cel_new(c, V_ERROR);
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	v->s.p = sk__cel_alloc(c, (size_t)n + 1);
	memcpy((char *)v->s.p, buf, (size_t)n);
	v->s.n = (size_t)n;
	return v;
}

cval *sk__cel_no_overload(cel_ctx *c, const char *fn)
{
	(void)fn;
	return sk__cel_err(c, "no such overload");
}

cval *sk__cel_bool(cel_ctx *c, int b)
{
	cval *v = sk__cel_new(c, V_BOOL);

	v->b = !!b;
	return v;
}

cval *sk__cel_int(cel_ctx *c, int64_t i)
{
	cval *v = sk__cel_new(c, V_INT);

	v->i = i;
	return v;
}

cval *sk__cel_uint(cel_ctx *c, uint64_t u)
{
	cval *v = sk__cel_new(c, V_UINT);

	v->u = u;
	return v;
}

cval *sk__cel_double(cel_ctx *c, double d)
{
	cval *v = sk__cel_new(c, V_DOUBLE);

	v->d = d;
	return v;
}

static cval *blob(cel_ctx *c, enum cel_type t, const char *p, size_t n)
{
	cval *v = sk__cel_new(c, t);
	char *s = sk__cel_alloc(c, n + 1);

	if (n)
		memcpy(s, p, n);
	v->s.p = s;
	v->s.n = n;
	return v;
}

cval *sk__cel_str(cel_ctx *c, const char *p, size_t n) { return blob(c, V_STRING, p, n); }
cval *sk__cel_bytes(cel_ctx *c, const char *p, size_t n) { return blob(c, V_BYTES, p, n); }

cval *sk__cel_type(cel_ctx *c, const char *name)
{
	cval *v = sk__cel_new(c, V_TYPE);

	v->s.p = name;
	v->s.n = strlen(name);
	return v;
}

cval *sk__cel_list(cel_ctx *c, size_t n)
{
	cval *v = sk__cel_new(c, V_LIST);

	v->l.v = sk__cel_alloc(c, (n ? n : 1) * sizeof(cval *));
	v->l.n = n;
	return v;
}

cval *sk__cel_opt(cel_ctx *c, cval *x)
{
	cval *v = sk__cel_new(c, V_OPTIONAL);

	v->opt = x;
	return v;
}

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* A JSON value typed by its schema node sch (NULL: free-form). */
cval *sk__cel_from_json(cel_ctx *c, json_t *j, json_t *sch)
{
	const char *type = jstr(sch, "type"), *format = jstr(sch, "format");
	cval *v;

	switch (json_typeof(j)) {
	case JSON_NULL:
		return sk__cel_new(c, V_NULL);
	case JSON_TRUE:
	case JSON_FALSE:
		return sk__cel_bool(c, json_is_true(j));
	case JSON_INTEGER:
		if (type && !strcmp(type, "number"))
			return sk__cel_double(c, (double)json_integer_value(j));
		return sk__cel_int(c, json_integer_value(j));
	case JSON_REAL: {
		double d = json_real_value(j);

		if (type && !strcmp(type, "integer") && d == floor(d) && fabs(d) < 9.2e18)
			return sk__cel_int(c, (int64_t)d);
		return sk__cel_double(c, d);
	}
	case JSON_STRING: {
		const char *s = json_string_value(j);

		if (format && (!strcmp(format, "date-time") || !strcmp(format, "date"))) {
			int64_t sec;
			int32_t ns;
			cleanup_free char *t = !strcmp(format, "date") ? xasprintf("%sT00:00:00Z", s) : xstrdup(s);

			if (sk__cel_parse_timestamp(t, &sec, &ns) == 0) {
				v = sk__cel_new(c, V_TIMESTAMP);
				v->ts.sec = sec;
				v->ts.nsec = ns;
				return v;
			}
		} else if (format && !strcmp(format, "byte")) {
			/* base64 in JSON, bytes in CEL */
			gnutls_datum_t in = {(unsigned char *)s, (unsigned)json_string_length(j)}, out = {NULL, 0};

			if (json_string_length(j) < (1u << 30) && gnutls_base64_decode2(&in, &out) >= 0) {
				v = sk__cel_bytes(c, (const char *)out.data, out.size);
				gnutls_free(out.data);
				return v;
			}
		} else if (format && !strcmp(format, "duration")) {
			int64_t ns;

			if (sk__cel_parse_duration(s, &ns) == 0) {
				v = sk__cel_new(c, V_DURATION);
				v->i = ns;
				return v;
			}
		}
		return sk__cel_str(c, s, json_string_length(j));
	}
	case JSON_ARRAY:
		v = sk__cel_new(c, V_LIST);
		v->l.j = j;
		v->l.sch = sch;
		v->l.n = json_array_size(j);
		return v;
	case JSON_OBJECT:
		v = sk__cel_new(c, V_MAP);
		v->m.j = j;
		v->m.sch = sch;
		v->m.n = json_object_size(j);
		return v;
	}
	return sk__cel_new(c, V_NULL);
}

size_t sk__cel_len(const cval *v) { return v->t == V_LIST ? v->l.n : v->t == V_MAP ? v->m.n : 0; }

cval *sk__cel_list_at(cel_ctx *c, cval *l, size_t i)
{
	if (l->l.j)
		return sk__cel_from_json(c, json_array_get(l->l.j, i), json_object_get(l->l.sch, "items"));
	return l->l.v[i];
}

/* The schema of a JSON-backed map's member k. */
static json_t *member_schema(json_t *sch, const char *k)
{
	json_t *p = json_object_get(json_object_get(sch, "properties"), k);

	return p ? p : json_object_get(sch, "additionalProperties");
}

/* JSON-backed maps keep their key order in an iteration array. */
static void materialize(cel_ctx *c, cval *m)
{
	const char *k;
	json_t *x;
	size_t i = 0;

	if (!m->m.j || m->m.k)
		return;
	m->m.k = sk__cel_alloc(c, (m->m.n ? m->m.n : 1) * sizeof(cval *));
	m->m.v = sk__cel_alloc(c, (m->m.n ? m->m.n : 1) * sizeof(cval *));
	json_object_foreach(m->m.j, k, x) {
		if (i >= m->m.n)
			break;
		m->m.k[i] = sk__cel_str(c, k, strlen(k));
		m->m.v[i] = NULL;
		i++;
	}
}

cval *sk__cel_map_key(cel_ctx *c, cval *m, size_t i)
{
	materialize(c, m);
	return m->m.k[i];
}

cval *sk__cel_map_val(cel_ctx *c, cval *m, size_t i)
{
	materialize(c, m);
	if (!m->m.v[i])
		m->m.v[i] = sk__cel_from_json(c, json_object_get(m->m.j, m->m.k[i]->s.p),
					      member_schema(m->m.sch, m->m.k[i]->s.p));
	return m->m.v[i];
}

cval *sk__cel_map_get(cel_ctx *c, cval *m, cval *key)
{
	if (m->m.j) {
		json_t *x;

		if (key->t != V_STRING || memchr(key->s.p, 0, key->s.n))
			return NULL;
		x = json_object_get(m->m.j, key->s.p);
		return x ? sk__cel_from_json(c, x, member_schema(m->m.sch, key->s.p)) : NULL;
	}
	for (size_t i = 0; i < m->m.n; i++)
		if (sk__cel_equal(c, m->m.k[i], key) == 1)
			return m->m.v[i];
	return NULL;
}

static int is_num(const cval *v) { return v->t == V_INT || v->t == V_UINT || v->t == V_DOUBLE; }

/* Numbers of different types compare by value (cel-go's cross-type
 * numeric comparisons): -1, 0, 1, or 2 for NaN. */
static int num_cmp(const cval *a, const cval *b)
{
	if (a->t == V_DOUBLE || b->t == V_DOUBLE) {
		double x = a->t == V_DOUBLE ? a->d : a->t == V_INT ? (double)a->i : (double)a->u;
		double y = b->t == V_DOUBLE ? b->d : b->t == V_INT ? (double)b->i : (double)b->u;

		if (isnan(x) || isnan(y))
			return 2;
		/* exact for integers beyond 2^53 compared with doubles */
		if (x == y && a->t != V_DOUBLE) {
			if (a->t == V_INT && (y >= 9.3e18 || y < -9.3e18))
				return y > 0 ? -1 : 1;
			return 0;
		}
		return x < y ? -1 : x > y;
	}
	if (a->t == V_INT && b->t == V_INT)
		return a->i < b->i ? -1 : a->i > b->i;
	if (a->t == V_UINT && b->t == V_UINT)
		return a->u < b->u ? -1 : a->u > b->u;
	if (a->t == V_INT)
		return a->i < 0 ? -1 : (uint64_t)a->i < b->u ? -1 : (uint64_t)a->i > b->u;
	return b->i < 0 ? 1 : a->u < (uint64_t)b->i ? -1 : a->u > (uint64_t)b->i;
}

static int blob_cmp(const cval *a, const cval *b)
{
	size_t n = a->s.n < b->s.n ? a->s.n : b->s.n;
	int r = memcmp(a->s.p, b->s.p, n);

	if (r)
		return r < 0 ? -1 : 1;
	return a->s.n < b->s.n ? -1 : a->s.n > b->s.n;
}

/* Lists of x-kubernetes-list-type set or map compare regardless of order. */
static int unordered(const cval *l)
{
	const char *lt = l->l.j ? jstr(l->l.sch, "x-kubernetes-list-type") : NULL;

	return lt && (!strcmp(lt, "set") || !strcmp(lt, "map"));
}

int sk__cel_equal(cel_ctx *c, cval *a, cval *b)
{
	sk__cel_charge(c, 1);
	if (is_num(a) && is_num(b))
		return num_cmp(a, b) == 0;
	if (a->t != b->t)
		return 0;
	switch (a->t) {
	case V_NULL:
		return 1;
	case V_BOOL:
		return a->b == b->b;
	case V_STRING:
	case V_BYTES:
	case V_TYPE:
	case V_URL:
	case V_FORMAT:
		return a->s.n == b->s.n && !memcmp(a->s.p, b->s.p, a->s.n);
	case V_QUANTITY:
		return a->s.milli == b->s.milli;
	case V_TIMESTAMP:
		return a->ts.sec == b->ts.sec && a->ts.nsec == b->ts.nsec;
	case V_DURATION:
		return a->i == b->i;
	case V_IP:
	case V_CIDR:
		return a->ip.fam == b->ip.fam && a->ip.prefix == b->ip.prefix &&
		       !memcmp(a->ip.a, b->ip.a, a->ip.fam == 4 ? 4 : 16);
	case V_OPTIONAL:
		if (!a->opt || !b->opt)
			return !a->opt && !b->opt;
		return sk__cel_equal(c, a->opt, b->opt);
	case V_LIST: {
		size_t n = a->l.n;

		if (n != b->l.n)
			return 0;
		if (a->l.j && b->l.j && json_equal(a->l.j, b->l.j))
			return 1;
		if (unordered(a) || unordered(b)) {
			for (size_t i = 0; i < n; i++) {
				cval *x = sk__cel_list_at(c, a, i);
				int found = 0;

				for (size_t k = 0; k < n && !found; k++)
					found = sk__cel_equal(c, x, sk__cel_list_at(c, b, k)) == 1;
				if (!found)
					return 0;
			}
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			if (sk__cel_equal(c, sk__cel_list_at(c, a, i), sk__cel_list_at(c, b, i)) != 1)
				return 0;
		return 1;
	}
	case V_MAP:
		if (a->m.n != b->m.n)
			return 0;
		if (a->m.j && b->m.j && json_equal(a->m.j, b->m.j))
			return 1;
		for (size_t i = 0; i < a->m.n; i++) {
			cval *bv = sk__cel_map_get(c, b, sk__cel_map_key(c, a, i));

			if (!bv || sk__cel_equal(c, sk__cel_map_val(c, a, i), bv) != 1)
				return 0;
		}
		return 1;
	default:
		return 0;
	}
}

int sk__cel_compare(cel_ctx *c, cval *a, cval *b)
{
	(void)c;
	if (is_num(a) && is_num(b)) {
		int r = num_cmp(a, b);

		return r == 2 ? -3 : r;
	}
	if (a->t != b->t)
		return -2;
	switch (a->t) {
	case V_BOOL:
		return a->b < b->b ? -1 : a->b > b->b;
	case V_STRING:
	case V_BYTES:
		return blob_cmp(a, b);
	case V_TIMESTAMP:
		if (a->ts.sec != b->ts.sec)
			return a->ts.sec < b->ts.sec ? -1 : 1;
		return a->ts.nsec < b->ts.nsec ? -1 : a->ts.nsec > b->ts.nsec;
	case V_DURATION:
		return a->i < b->i ? -1 : a->i > b->i;
	case V_QUANTITY:
		return a->s.milli < b->s.milli ? -1 : a->s.milli > b->s.milli;
	default:
		return -2;
	}
}

const char *sk__cel_type_name(const cval *v)
{
	if (v->t == V_AUTHZ)
		return sk__cel_authz_type_name(v);
	static const char *const names[] = {
		[V_NULL] = "null_type",
		[V_BOOL] = "bool",
		[V_INT] = "int",
		[V_UINT] = "uint",
		[V_DOUBLE] = "double",
		[V_STRING] = "string",
		[V_BYTES] = "bytes",
		[V_LIST] = "list",
		[V_MAP] = "map",
		[V_TIMESTAMP] = "google.protobuf.Timestamp",
		[V_DURATION] = "google.protobuf.Duration",
		[V_TYPE] = "type",
		[V_OPTIONAL] = "optional_type",
		[V_ERROR] = "error",
		[V_QUANTITY] = "kubernetes.Quantity",
		[V_URL] = "kubernetes.URL",
		[V_IP] = "net.IP",
		[V_CIDR] = "net.CIDR",
		[V_FORMAT] = "kubernetes.NamedFormat",
		[V_AUTHZ] = "kubernetes.authorization.Authorizer",
	};

	return names[v->t];
}

/* ---- printing ---- */

static void repr_to(cel_ctx *c, FILE *f, cval *v, int depth)
{
	char buf[64];

	if (depth > 64) {
		fputs("...", f);
		return;
	}
	switch (v->t) {
	case V_NULL:
		fputs("null", f);
		break;
	case V_BOOL:
		fputs(v->b ? "true" : "false", f);
		break;
	case V_INT:
		fprintf(f, "%lld", (long long)v->i);
		break;
	case V_UINT:
		fprintf(f, "%lluu", (unsigned long long)v->u);
		break;
	case V_DOUBLE:
		sk__cel_fmt_double(v->d, buf, sizeof(buf));
		fputs(buf, f);
		break;
	case V_STRING:
	case V_BYTES:
		if (v->t == V_BYTES)
			fputc('b', f);
		fputc('"', f);
		for (size_t i = 0; i < v->s.n; i++) {
			unsigned char ch = (unsigned char)v->s.p[i];

			if (ch == '"' || ch == '\\')
				fprintf(f, "\\%c", ch);
			else if (ch == '\n')
				fputs("\\n", f);
			else if (ch < 0x20 || (v->t == V_BYTES && ch >= 0x7f))
				fprintf(f, "\\x%02x", ch);
			else
				fputc(ch, f);
		}
		fputc('"', f);
		break;
	case V_LIST:
		fputc('[', f);
		for (size_t i = 0; i < v->l.n; i++) {
			if (i)
				fputs(", ", f);
			repr_to(c, f, sk__cel_list_at(c, v, i), depth + 1);
		}
		fputc(']', f);
		break;
	case V_MAP:
		fputc('{', f);
		for (size_t i = 0; i < v->m.n; i++) {
			if (i)
				fputs(", ", f);
			repr_to(c, f, sk__cel_map_key(c, v, i), depth + 1);
			fputs(": ", f);
			repr_to(c, f, sk__cel_map_val(c, v, i), depth + 1);
		}
		fputc('}', f);
		break;
	case V_TIMESTAMP:
		sk__cel_fmt_timestamp(v->ts.sec, v->ts.nsec, buf, sizeof(buf));
		fprintf(f, "timestamp(\"%s\")", buf);
		break;
	case V_DURATION:
		sk__cel_fmt_duration(v->i, buf, sizeof(buf));
		fprintf(f, "duration(\"%s\")", buf);
		break;
	case V_TYPE:
		fwrite(v->s.p, 1, v->s.n, f);
		break;
	case V_OPTIONAL:
		if (v->opt) {
			fputs("optional.of(", f);
			repr_to(c, f, v->opt, depth + 1);
			fputc(')', f);
		} else {
			fputs("optional.none()", f);
		}
		break;
	case V_ERROR:
		fprintf(f, "error: %.*s", (int)v->s.n, v->s.p);
		break;
	case V_QUANTITY:
		fprintf(f, "quantity(\"%.*s\")", (int)v->s.n, v->s.p);
		break;
	case V_URL:
		fprintf(f, "url(\"%.*s\")", (int)v->s.n, v->s.p);
		break;
	case V_FORMAT:
		fprintf(f, "format.%.*s()", (int)v->s.n, v->s.p);
		break;
	case V_AUTHZ:
		fputs(sk__cel_authz_type_name(v), f);
		break;
	case V_IP:
	case V_CIDR: {
		cval *s = sk__cel_call(c, "string", NULL, &v, 1);

		fprintf(f, "%s(\"%.*s\")", v->t == V_IP ? "ip" : "cidr", (int)s->s.n, s->s.p);
		break;
	}
	}
}

char *sk__cel_repr(cel_ctx *c, cval *v)
{
	char *buf = NULL, *out;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		abort();
	repr_to(c, f, v, 0);
	fclose(f);
	sk__cel_charge(c, (int64_t)(n / 16));
	out = sk__cel_alloc(c, n + 1);
	memcpy(out, buf, n + 1);
	free(buf);
	return out;
}

/* ---- evaluation ---- */

typedef struct eval_vars {
	cval *self, *old_self;
	cval *authorizer; /* NULL: unbound */
	const sk_cel_authz_check *request;
	cval *object, *old_object, *adm_request; /* NULL: unbound (SK_CEL_VAR_ADMISSION) */
	cval *params, *ns_object;                /* NULL: unbound (SK_CEL_VAR_POLICY) */
	const sk_cel_vars *policy;               /* its variables, or NULL */
	cval **var_values;                       /* per variable: its value once evaluated */
	int *var_busy;                           /* per variable: being evaluated */
} eval_vars;

static cval *eval(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars);

static int is_err(const cval *v) { return v->t == V_ERROR; }

static cval *lookup_ident(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	static const char *const types[] = {"int",  "uint", "double", "bool",          "string", "bytes",
					    "list", "map",  "type",   "optional_type", NULL};

	for (; env; env = env->up)
		if (!strcmp(env->name, n->name))
			return env->v;
	if (!strcmp(n->name, "self") && vars->self)
		return vars->self;
	if (!strcmp(n->name, "oldSelf") && vars->old_self)
		return vars->old_self;
	if (!strcmp(n->name, "authorizer") && vars->authorizer)
		return vars->authorizer;
	if (!strcmp(n->name, "object") && vars->object)
		return vars->object;
	if (!strcmp(n->name, "oldObject") && vars->old_object)
		return vars->old_object;
	if (!strcmp(n->name, "request") && vars->adm_request)
		return vars->adm_request;
	if (!strcmp(n->name, "params") && vars->params)
		return vars->params;
	if (!strcmp(n->name, "namespaceObject") && vars->ns_object)
		return vars->ns_object;
	if (!strcmp(n->name, "null_type"))
		return sk__cel_type(c, "null_type");
	for (int k = 0; types[k]; k++)
		if (!strcmp(n->name, types[k]))
			return sk__cel_type(c, types[k]);
	return sk__cel_err(c, "no such attribute: %s", n->name);
}

/* Field name of v (a map or object); NULL when absent, an error value
 * when v cannot have fields. */
static cval *field(cel_ctx *c, cval *v, const char *name, int *absent)
{
	*absent = 0;
	if (v->t != V_MAP)
		return sk__cel_err(c, "no such overload");
	if (v->m.j) {
		/* escaped names (Kubernetes' __dash__ and the others) all hold "__" */
		cleanup_free char *esc = strstr(name, "__") ? sk__cel_unescape_field(name) : NULL;
		const char *prop = esc ? esc : name;
		json_t *x = json_object_get(v->m.j, prop);

		if (!x) {
			*absent = 1;
			return NULL;
		}
		return sk__cel_from_json(c, x, member_schema(v->m.sch, prop));
	}
	{
		cval key = {.t = V_STRING};
		cval *r;

		key.s.p = name;
		key.s.n = strlen(name);
		r = sk__cel_map_get(c, v, &key);
		*absent = !r;
		return r;
	}
}

static int env_has(cel_env *env, const char *name)
{
	for (; env; env = env->up)
		if (!strcmp(env->name, name))
			return 1;
	return 0;
}

/* variables.<name>: the variable's expression, evaluated on first use. */
static cval *policy_variable(cel_ctx *c, const char *name, const eval_vars *vars)
{
	const sk_cel_vars *pv = vars->policy;

	for (size_t i = 0; i < pv->nvars; i++) {
		if (strcmp(pv->var_names[i], name))
			continue;
		if (!vars->var_values[i]) {
			if (vars->var_busy[i] || !pv->var_progs[i])
				return sk__cel_err(c, "no such key: %s", name);
			vars->var_busy[i] = 1;
			vars->var_values[i] = eval(c, pv->var_progs[i]->root, NULL, vars);
			vars->var_busy[i] = 0;
		}
		return vars->var_values[i];
	}
	return sk__cel_err(c, "no such key: %s", name);
}

static cval *eval_select(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *t, *r;
	int absent, wrap = n->opt;

	if (vars->policy && n->args[0]->kind == N_IDENT && !strcmp(n->args[0]->name, "variables") &&
	    !env_has(env, "variables"))
		return policy_variable(c, n->name, vars);
	t = eval(c, n->args[0], env, vars);

	if (is_err(t))
		return t;
	if (t->t == V_OPTIONAL) {
		if (!t->opt)
			return t;
		t = t->opt;
		wrap = 1;
	}
	if (t->t == V_AUTHZ && t->az->kind == AZ_AUTHORIZER && !strcmp(n->name, "requestResource")) {
		/* the variable authorizer.requestResource */
		if (!vars->request || t != vars->authorizer)
			return sk__cel_err(c, "no such attribute: authorizer.requestResource");
		return sk__cel_authz_var(c, vars->request);
	}
	r = field(c, t, n->name, &absent);
	if (absent) {
		cleanup_free char *prop = sk__cel_unescape_field(n->name);

		/* optional chaining: a field absent under an optional is none */
		return wrap ? sk__cel_opt(c, NULL) : sk__cel_err(c, "no such key: %s", prop);
	}
	return wrap && !is_err(r) ? sk__cel_opt(c, r) : r;
}

static cval *eval_has(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cel_node *sel = n->args[0];
	cval *t = eval(c, sel->args[0], env, vars), *r;
	int absent;

	if (is_err(t))
		return t;
	if (t->t == V_OPTIONAL) {
		if (!t->opt)
			return sk__cel_bool(c, 0);
		t = t->opt;
	}
	r = field(c, t, sel->name, &absent);
	if (absent)
		return sk__cel_bool(c, 0);
	if (is_err(r))
		return r;
	return sk__cel_bool(c, 1);
}

/* A list index: an int, a uint or an integral double. */
static int to_index(cval *x, int64_t *i)
{
	if (x->t == V_INT)
		*i = x->i;
	else if (x->t == V_UINT)
		*i = x->u > INT64_MAX ? INT64_MAX : (int64_t)x->u;
	else if (x->t == V_DOUBLE && x->d == floor(x->d) && fabs(x->d) < 9e18)
		*i = (int64_t)x->d;
	else
		return -1;
	return 0;
}

static cval *index_value(cel_ctx *c, cval *t, cval *k, int opt)
{
	if (t->t == V_LIST) {
		int64_t i;

		if (to_index(k, &i) < 0) {
			if (k->t == V_DOUBLE)
				return sk__cel_err(c, "unsupported index value %s in list", sk__cel_repr(c, k));
			return sk__cel_err(c, "unsupported index type '%s' in list", sk__cel_type_name(k));
		}
		if (i < 0 || (uint64_t)i >= t->l.n)
			return opt ? sk__cel_opt(c, NULL)
				   : sk__cel_err(c, "index '%lld' out of range in list size '%zu'", (long long)i,
						 t->l.n);
		return opt ? sk__cel_opt(c, sk__cel_list_at(c, t, (size_t)i)) : sk__cel_list_at(c, t, (size_t)i);
	}
	if (t->t == V_MAP) {
		cval *r;

		if (k->t != V_STRING && k->t != V_INT && k->t != V_UINT && k->t != V_BOOL && k->t != V_DOUBLE)
			return sk__cel_err(c, "unsupported key type");
		r = sk__cel_map_get(c, t, k);
		if (!r) {
			if (opt)
				return sk__cel_opt(c, NULL);
			if (k->t == V_STRING)
				return sk__cel_err(c, "no such key: %.*s", (int)k->s.n, k->s.p);
			return sk__cel_err(c, "no such key: %s", sk__cel_repr(c, k));
		}
		return opt ? sk__cel_opt(c, r) : r;
	}
	return sk__cel_err(c, "no such overload");
}

static cval *eval_index(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *t = eval(c, n->args[0], env, vars), *k;
	int opt = n->opt;

	if (is_err(t))
		return t;
	k = eval(c, n->args[1], env, vars);
	if (is_err(k))
		return k;
	if (t->t == V_OPTIONAL) {
		if (!t->opt)
			return t;
		t = t->opt;
		opt = 1;
	}
	return index_value(c, t, k, opt);
}

static cval *eval_list(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *l = sk__cel_list(c, n->nargs);
	size_t k = 0;

	for (size_t i = 0; i < n->nargs; i++) {
		cval *x = eval(c, n->args[i], env, vars);

		if (is_err(x))
			return x;
		if (n->opts[i]) {
			if (x->t != V_OPTIONAL)
				return sk__cel_err(c, "no such overload");
			if (!x->opt)
				continue;
			x = x->opt;
		}
		l->l.v[k++] = x;
	}
	l->l.n = k;
	return l;
}

static cval *eval_map(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	size_t entries = n->nargs / 2, k = 0;
	cval *m = sk__cel_new(c, V_MAP);

	m->m.k = sk__cel_alloc(c, (entries ? entries : 1) * sizeof(cval *));
	m->m.v = sk__cel_alloc(c, (entries ? entries : 1) * sizeof(cval *));
	for (size_t i = 0; i < entries; i++) {
		cval *key = eval(c, n->args[2 * i], env, vars), *val;

		if (is_err(key))
			return key;
		if (key->t != V_STRING && key->t != V_INT && key->t != V_UINT && key->t != V_BOOL)
			return sk__cel_err(c, "unsupported key type");
		val = eval(c, n->args[2 * i + 1], env, vars);
		if (is_err(val))
			return val;
		if (n->opts[2 * i]) {
			if (val->t != V_OPTIONAL)
				return sk__cel_err(c, "no such overload");
			if (!val->opt)
				continue;
			val = val->opt;
		}
		m->m.n = k;
		if (sk__cel_map_get(c, m, key))
			return sk__cel_err(c, "Failed with repeated key");
		m->m.k[k] = key;
		m->m.v[k++] = val;
	}
	m->m.n = k;
	return m;
}

static cval *eval_logic(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	int is_and = n->kind == N_AND;
	cval *a = eval(c, n->args[0], env, vars), *b;

	if (a->t == V_BOOL && a->b != is_and)
		return a;
	b = eval(c, n->args[1], env, vars);
	if (b->t == V_BOOL && b->b != is_and)
		return b;
	if (a->t == V_BOOL && b->t == V_BOOL)
		return a;
	if (is_err(a))
		return a;
	if (is_err(b))
		return b;
	return sk__cel_err(c, "no such overload");
}

static cval *eval_cond(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *x = eval(c, n->args[0], env, vars);

	if (is_err(x))
		return x;
	if (x->t != V_BOOL)
		return sk__cel_err(c, "no such overload");
	return eval(c, n->args[x->b ? 1 : 2], env, vars);
}

/* The key of an output map entry as cel-go's %v prints it (insert failed:
 * key %v already exists): strings bare, numbers without a suffix. */
static const char *key_text(cel_ctx *c, cval *k)
{
	char buf[64];

	switch (k->t) {
	case V_STRING: {
		char *s = sk__cel_alloc(c, k->s.n + 1);

		memcpy(s, k->s.p, k->s.n);
		return s;
	}
	case V_UINT:
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)k->u);
		break;
	default:
		return sk__cel_repr(c, k);
	}
	{
		char *s = sk__cel_alloc(c, strlen(buf) + 1);

		memcpy(s, buf, strlen(buf));
		return s;
	}
}

/* Appends key: val to the output map m (cel.@mapInsert); keys that
 * repeat are found afterwards (first_duplicate). */
static cval *map_insert(cel_ctx *c, cval *m, size_t *cap, cval *key, cval *val)
{
	if (key->t != V_STRING && key->t != V_INT && key->t != V_UINT && key->t != V_BOOL)
		return sk__cel_err(c, "unsupported key type");
	if (m->m.n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		cval **k = sk__cel_alloc(c, ncap * sizeof(*k)), **v = sk__cel_alloc(c, ncap * sizeof(*v));

		if (m->m.n) {
			memcpy(k, m->m.k, m->m.n * sizeof(*k));
			memcpy(v, m->m.v, m->m.n * sizeof(*v));
		}
		m->m.k = k;
		m->m.v = v;
		*cap = ncap;
	}
	m->m.k[m->m.n] = key;
	m->m.v[m->m.n++] = val;
	return NULL;
}

struct keyref {
	cval *k;
	size_t i;
};

static int key_class(const cval *k) { return k->t == V_BOOL ? 0 : k->t == V_STRING ? 2 : 1; }

/* Map keys in CEL's equality classes (bools, numbers by value: 1 == 1u,
 * strings), then by insertion. */
static int key_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	int cx = key_class(x->k), cy = key_class(y->k), r;

	if (cx != cy)
		return cx < cy ? -1 : 1;
	r = cx == 0 ? (x->k->b > y->k->b) - (x->k->b < y->k->b) : cx == 2 ? blob_cmp(x->k, y->k) : num_cmp(x->k, y->k);
	if (r)
		return r;
	return (x->i > y->i) - (x->i < y->i);
}

/* The first key of map m, in insertion order, equal to an earlier one (the
 * insert cel-go's transformMapEntry fails on), or NULL: a sort, so that a
 * large map costs no more than upstream's hashed one. */
static cval *first_duplicate(cel_ctx *c, cval *m)
{
	size_t n = m->m.n, best = SIZE_MAX;
	struct keyref *r;

	if (n < 2)
		return NULL;
	r = sk__cel_alloc(c, n * sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = (struct keyref){m->m.k[i], i};
	qsort(r, n, sizeof(*r), key_cmp);
	for (size_t i = 1; i < n; i++) {
		struct keyref a = r[i - 1], b = r[i];

		a.i = b.i = 0;
		if (!key_cmp(&a, &b) && r[i].i < best)
			best = r[i].i;
	}
	return best == SIZE_MAX ? NULL : m->m.k[best];
}

/* transformMapEntry's result, or its first failed insert: cel-go's
 * accumulator keeps that error through the later steps. */
static cval *entries_or_dup(cel_ctx *c, cval *out, cval *r)
{
	cval *d = first_duplicate(c, out);

	return d ? sk__cel_err(c, "insert failed: key %s already exists", key_text(c, d)) : r;
}

/* One element's result p for all/exists (all: which) and existsOne (one), as
 * cel-go folds them: all and exists end at the first deciding bool and keep
 * the first error for the end (a later deciding bool wins over it); existsOne
 * ends at any error and counts trues. Returns the value to end with, or NULL
 * to go on. */
static cval *quantify(cel_ctx *c, int all, int one, cval *p, cval **err, size_t *count)
{
	if (one) {
		if (is_err(p))
			return p;
		if (p->t != V_BOOL)
			return sk__cel_err(c, "no such overload");
		*count += p->b;
		return NULL;
	}
	if (p->t == V_BOOL)
		return p->b != all ? p : NULL;
	if (!*err)
		*err = is_err(p) ? p : sk__cel_err(c, "no such overload");
	return NULL;
}

/* The two-variable comprehensions (cel-go's ext.TwoVarComprehensions): the
 * index and the element of a list, or the key and the value of a map. all
 * and exists absorb errors as their one-variable forms (an error counts
 * unless a later step decides), the others stop at the first. */
static cval *eval_two_var(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars, cval *t)
{
	cel_env first = {n->var, NULL, env}, second = {n->var2, NULL, &first};
	size_t len, count = 0, cap = 0;
	cval *out = NULL, *err = NULL;
	int transform = n->op == M_TRANSFORM_LIST || n->op == M_TRANSFORM_MAP || n->op == M_TRANSFORM_MAP_ENTRY;
	cel_node *filter = transform && n->nargs == 2 ? n->args[0] : NULL;
	cel_node *body = n->args[n->nargs - 1];
	int entries = n->op == M_TRANSFORM_MAP_ENTRY;

	if (t->t != V_LIST && t->t != V_MAP)
		return sk__cel_err(c, "no such overload");
	len = sk__cel_len(t);
	if (n->op == M_TRANSFORM_LIST) {
		out = sk__cel_list(c, len);
		out->l.n = 0;
	} else if (transform) {
		out = sk__cel_new(c, V_MAP);
	}
	for (size_t i = 0; i < len; i++) {
		cval *p;

		sk__cel_charge(c, 1);
		if (t->t == V_LIST) {
			first.v = sk__cel_int(c, (int64_t)i);
			second.v = sk__cel_list_at(c, t, i);
		} else {
			first.v = sk__cel_map_key(c, t, i);
			second.v = sk__cel_map_val(c, t, i);
		}
		if (filter) {
			p = eval(c, filter, &second, vars);
			/* cel-go's ?: makes a failed filter the accumulator */
			if (is_err(p))
				return p;
			if (p->t != V_BOOL)
				return sk__cel_err(c, "no such overload");
			if (!p->b)
				continue;
		}
		p = eval(c, body, &second, vars);
		switch (n->op) {
		case M_ALL2:
		case M_EXISTS2:
		case M_EXISTS_ONE2:
			if ((p = quantify(c, n->op == M_ALL2, n->op == M_EXISTS_ONE2, p, &err, &count)))
				return p;
			break;
		case M_TRANSFORM_LIST:
			if (is_err(p))
				return p;
			out->l.v[out->l.n++] = p;
			break;
		case M_TRANSFORM_MAP:
			if (is_err(p))
				return p;
			if ((err = map_insert(c, out, &cap, first.v, p)))
				return err;
			break;
		case M_TRANSFORM_MAP_ENTRY:
			if (is_err(p))
				return entries_or_dup(c, out, p);
			if (p->t != V_MAP)
				return entries_or_dup(c, out, sk__cel_err(c, "no such overload"));
			for (size_t k = 0; k < sk__cel_len(p); k++)
				if ((err = map_insert(c, out, &cap, sk__cel_map_key(c, p, k),
						      sk__cel_map_val(c, p, k))))
					return entries_or_dup(c, out, err);
			break;
		}
	}
	if (entries)
		return entries_or_dup(c, out, out);
	if (out)
		return out;
	if (err)
		return err;
	if (n->op == M_EXISTS_ONE2)
		return sk__cel_bool(c, count == 1);
	return sk__cel_bool(c, n->op == M_ALL2);
}

static cval *eval_comprehension(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *t = eval(c, n->target, env, vars), *out = NULL, *err = NULL;
	size_t len, count = 0, k = 0;
	int result = n->op == M_ALL;
	cel_env inner = {n->var, NULL, env};

	if (is_err(t))
		return t;
	if (n->op >= M_ALL2)
		return eval_two_var(c, n, env, vars, t);
	if (n->op == M_OPTMAP || n->op == M_OPTFLATMAP) {
		cval *r;

		if (t->t != V_OPTIONAL)
			return sk__cel_err(c, "no such overload");
		if (!t->opt)
			return t;
		inner.v = t->opt;
		r = eval(c, n->args[0], &inner, vars);
		if (is_err(r) || n->op == M_OPTMAP)
			return is_err(r) ? r : sk__cel_opt(c, r);
		return r->t == V_OPTIONAL ? r : sk__cel_err(c, "no such overload");
	}
	if (t->t != V_LIST && t->t != V_MAP)
		return sk__cel_err(c, "no such overload");
	len = sk__cel_len(t);
	if (n->op == M_MAP || n->op == M_MAP3 || n->op == M_FILTER)
		out = sk__cel_list(c, len);
	for (size_t i = 0; i < len; i++) {
		cval *p;

		sk__cel_charge(c, 1);
		inner.v = t->t == V_LIST ? sk__cel_list_at(c, t, i) : sk__cel_map_key(c, t, i);
		p = eval(c, n->args[0], &inner, vars);
		switch (n->op) {
		case M_ALL:
		case M_EXISTS:
		case M_EXISTS_ONE:
			if ((p = quantify(c, n->op == M_ALL, n->op == M_EXISTS_ONE, p, &err, &count)))
				return p;
			break;
		case M_MAP:
			if (is_err(p))
				return p;
			out->l.v[k++] = p;
			break;
		case M_MAP3:
		case M_FILTER:
			if (is_err(p))
				return p;
			if (p->t != V_BOOL)
				return sk__cel_err(c, "no such overload");
			if (!p->b)
				break;
			if (n->op == M_FILTER) {
				out->l.v[k++] = inner.v;
			} else {
				cval *x = eval(c, n->args[1], &inner, vars);

				if (is_err(x))
					return x;
				out->l.v[k++] = x;
			}
			break;
		}
	}
	if (out) {
		out->l.n = k;
		return out;
	}
	if (err)
		return err;
	if (n->op == M_EXISTS_ONE)
		return sk__cel_bool(c, count == 1);
	return sk__cel_bool(c, result);
}

static cval *eval_call(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *target = NULL, *argv[8], **args = argv;

	if (n->nargs > 8)
		args = sk__cel_alloc(c, n->nargs * sizeof(*args));
	if (n->target) {
		target = eval(c, n->target, env, vars);
		if (is_err(target))
			return target;
	}
	for (size_t i = 0; i < n->nargs; i++) {
		args[i] = eval(c, n->args[i], env, vars);
		if (is_err(args[i]))
			return args[i];
	}
	return sk__cel_call(c, n->name, target, args, n->nargs);
}

static cval *eval(cel_ctx *c, cel_node *n, cel_env *env, const eval_vars *vars)
{
	cval *r;

	sk__cel_charge(c, 1);
	if (++c->depth > 1000) {
		c->depth--;
		return sk__cel_err(c, "max recursion depth exceeded");
	}
	switch (n->kind) {
	case N_NULL:
		r = sk__cel_new(c, V_NULL);
		break;
	case N_BOOL:
		r = sk__cel_bool(c, (int)n->i);
		break;
	case N_INT:
		r = sk__cel_int(c, n->i);
		break;
	case N_UINT:
		r = sk__cel_uint(c, n->u);
		break;
	case N_DOUBLE:
		r = sk__cel_double(c, n->d);
		break;
	case N_STRING:
		r = sk__cel_new(c, V_STRING);
		r->s.p = n->s;
		r->s.n = n->n;
		break;
	case N_BYTES:
		r = sk__cel_new(c, V_BYTES);
		r->s.p = n->s;
		r->s.n = n->n;
		break;
	case N_IDENT:
		r = lookup_ident(c, n, env, vars);
		break;
	case N_SELECT:
		r = eval_select(c, n, env, vars);
		break;
	case N_INDEX:
		r = eval_index(c, n, env, vars);
		break;
	case N_CALL:
		r = eval_call(c, n, env, vars);
		break;
	case N_LIST:
		r = eval_list(c, n, env, vars);
		break;
	case N_MAP:
		r = eval_map(c, n, env, vars);
		break;
	case N_UNARY: {
		cval *a = eval(c, n->args[0], env, vars);

		if (is_err(a))
			r = a;
		else if (n->op == OP_NOT)
			r = a->t == V_BOOL ? sk__cel_bool(c, !a->b) : sk__cel_err(c, "no such overload");
		else if (a->t == V_INT)
			r = a->i == INT64_MIN ? sk__cel_err(c, "integer overflow") : sk__cel_int(c, -a->i);
		else if (a->t == V_DOUBLE)
			r = sk__cel_double(c, -a->d);
		else if (a->t == V_DURATION && a->i != INT64_MIN) {
			r = sk__cel_new(c, V_DURATION);
			r->i = -a->i;
		} else
			r = sk__cel_err(c, "no such overload");
		break;
	}
	case N_BINARY: {
		cval *a = eval(c, n->args[0], env, vars), *b;

		if (is_err(a)) {
			r = a;
			break;
		}
		b = eval(c, n->args[1], env, vars);
		r = is_err(b) ? b : sk__cel_binary(c, n->op, a, b);
		break;
	}
	case N_AND:
	case N_OR:
		r = eval_logic(c, n, env, vars);
		break;
	case N_COND:
		r = eval_cond(c, n, env, vars);
		break;
	case N_HAS:
		r = eval_has(c, n, env, vars);
		break;
	case N_COMPREH:
		r = eval_comprehension(c, n, env, vars);
		break;
	default:
		r = sk__cel_err(c, "unsupported expression");
	}
	c->depth--;
	return r;
}

static void arena_free(struct cel_arena *a)
{
	while (a) {
		struct cel_arena *next = a->next;

		free(a);
		a = next;
	}
}

enum sk_cel_kind sk_cel_eval(const sk_cel_program *p, const sk_cel_vars *vars, sk_cel_result *out)
{
	/* on the heap: the context outlives a longjmp unchanged */
	cel_ctx *c = xzalloc(sizeof(*c));
	eval_vars ev = {0};
	cval *r;

	memset(out, 0, sizeof(*out));
	c->limit = SK_CEL_PER_CALL_LIMIT;
	if (vars && vars->budget && *vars->budget < c->limit)
		c->limit = *vars->budget > 0 ? *vars->budget : 0;
	if (setjmp(c->out)) {
		if (vars && vars->budget)
			*vars->budget = c->cost < 0 ? 0 : *vars->budget - c->cost;
		arena_free(c->arena);
		free(c);
		out->kind = SK_CEL_COST;
		return out->kind;
	}
	if (vars) {
		ev.self = vars->self ? sk__cel_from_json(c, vars->self, vars->self_schema) : NULL;
		if (vars->old_self)
			ev.old_self = sk__cel_from_json(c, vars->old_self, vars->old_schema);
		if (vars->optional_old_self)
			ev.old_self = sk__cel_opt(c, ev.old_self);
		if (vars->authorize) {
			c->authorize = vars->authorize;
			c->authorize_ud = vars->authorize_ud;
			ev.authorizer = sk__cel_authz_var(c, NULL);
			ev.request = vars->request;
		}
		if (vars->adm_request) {
			ev.object = vars->adm_object ? sk__cel_from_json(c, vars->adm_object, NULL)
						     : sk__cel_from_json(c, json_null(), NULL);
			ev.old_object = vars->adm_old_object ? sk__cel_from_json(c, vars->adm_old_object, NULL)
							     : sk__cel_from_json(c, json_null(), NULL);
			ev.adm_request = sk__cel_from_json(c, vars->adm_request, NULL);
			ev.params = sk__cel_from_json(c, vars->adm_params ? vars->adm_params : json_null(), NULL);
			ev.ns_object = sk__cel_from_json(c, vars->adm_namespace ? vars->adm_namespace : json_null(),
							 NULL);
			if (vars->nvars) {
				ev.policy = vars;
				ev.var_values = sk__cel_alloc(c, vars->nvars * sizeof(*ev.var_values));
				ev.var_busy = sk__cel_alloc(c, vars->nvars * sizeof(*ev.var_busy));
				memset(ev.var_values, 0, vars->nvars * sizeof(*ev.var_values));
				memset(ev.var_busy, 0, vars->nvars * sizeof(*ev.var_busy));
			}
		}
	}
	r = eval(c, p->root, NULL, &ev);
	switch (r->t) {
	case V_BOOL:
		out->kind = SK_CEL_BOOL;
		out->b = r->b;
		break;
	case V_STRING:
		out->kind = SK_CEL_STRING;
		out->text = xstrndup(r->s.p, r->s.n);
		break;
	case V_ERROR:
		out->kind = SK_CEL_ERROR;
		out->text = xstrndup(r->s.p, r->s.n);
		break;
	default:
		out->kind = SK_CEL_OTHER;
		out->text = xstrdup(sk__cel_repr(c, r));
	}
	if (vars && vars->budget)
		*vars->budget -= c->cost;
	arena_free(c->arena);
	free(c);
	return out->kind;
}

void sk_cel_result_release(sk_cel_result *r)
{
	free(r->text);
	r->text = NULL;
}
