/* Label and field selectors (after apimachinery's labels/selector.go and
 * fields/selector.go): the lexer, parser, validation messages and matching
 * rules follow upstream so clients see the same errors. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "kube/object.h"
#include "kube/selector.h"
#include "util/util.h"

enum op { OP_IN, OP_NOTIN, OP_EQ, OP_DEQ, OP_NEQ, OP_EXISTS, OP_NOTEXISTS, OP_GT, OP_LT };

struct requirement {
	char *key;
	enum op op;
	char **values; /* sorted, unique */
	size_t nvalues;
};

struct sk_kube_label_selector {
	struct requirement *reqs;
	size_t n;
	bool nothing; /* from a nil metav1.LabelSelector */
};

/* ---- validation (k8s.io/apimachinery/pkg/util/validation) ---- */

#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_MSG \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " \
	"character"
#define QNAME_EX "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" QNAME_FMT "')"
#define DNS_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
#define DNS_MSG \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " \
	"start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" DNS_FMT \
	"')"
#define VALUE_MSG \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must " \
	"start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for " \
	"validation is '(" QNAME_FMT ")?')"

/* Appends "; " between items of an upstream error list. */
static void buf_item(sk_strbuf *b, const char *s)
{
	if (b->len)
		sk_strbuf_str(b, "; ");
	sk_strbuf_str(b, s);
}

static bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] on s[0..n). */
static bool qname_ok(const char *s, size_t n)
{
	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

static bool dns_label_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool lower = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9');
		if (!lower && (s[i] != '-' || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

static bool dns_subdomain_ok(const char *s, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (!dns_label_ok(s + start, i - start))
				return false;
			start = i + 1;
		}
	}
	return true;
}

/* IsQualifiedName: returns a malloc'd "; "-joined message, or NULL if valid. */
static char *qualified_name_errors(const char *k)
{
	sk_strbuf b = {0};
	const char *slash = strchr(k, '/');
	const char *name = k;

	if (slash && strchr(slash + 1, '/'))
		return xstrdup("a qualified name " QNAME_MSG " " QNAME_EX
			       " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
	if (slash) {
		size_t plen = (size_t)(slash - k);
		name = slash + 1;
		if (plen == 0)
			buf_item(&b, "prefix part must be non-empty");
		else {
			if (plen > 253)
				buf_item(&b, "prefix part must be no more than 253 characters");
			if (!dns_subdomain_ok(k, plen))
				buf_item(&b, "prefix part " DNS_MSG);
		}
	}
	if (!*name)
		buf_item(&b, "name part must be non-empty");
	else if (strlen(name) > 63)
		buf_item(&b, "name part must be no more than 63 characters");
	if (!qname_ok(name, strlen(name)))
		buf_item(&b, "name part " QNAME_MSG " " QNAME_EX);
	return b.s;
}

static char *label_value_errors(const char *v)
{
	sk_strbuf b = {0};
	size_t n = strlen(v);

	if (n > 63)
		buf_item(&b, "must be no more than 63 characters");
	if (n && !qname_ok(v, n))
		buf_item(&b, VALUE_MSG);
	return b.s;
}

/* Appends Go's %q of s (ASCII subset; other bytes as \xNN). */
static void buf_quote(sk_strbuf *b, const char *s)
{
	sk_strbuf_str(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[8];
		if (c == '"' || c == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			tmp[2] = '\0';
		} else if (c == '\n') {
			memcpy(tmp, "\\n", 3);
		} else if (c == '\t') {
			memcpy(tmp, "\\t", 3);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		} else {
			tmp[0] = (char)c;
			tmp[1] = '\0';
		}
		sk_strbuf_str(b, tmp);
	}
	sk_strbuf_str(b, "\"");
}

/* field.Invalid(path, value, detail).Error(). */
static void buf_invalid(sk_strbuf *b, const char *path, const char *value, const char *detail)
{
	sk_strbuf_str(b, path);
	sk_strbuf_str(b, ": Invalid value: ");
	buf_quote(b, value);
	sk_strbuf_str(b, ": ");
	sk_strbuf_str(b, detail);
}

/* ---- requirements ---- */

static void requirement_release(struct requirement *r)
{
	free(r->key);
	for (size_t i = 0; i < r->nvalues; i++)
		free(r->values[i]);
	free(r->values);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds v to the sorted set r->values (takes ownership). */
static void requirement_add_value(struct requirement *r, char *v)
{
	for (size_t i = 0; i < r->nvalues; i++) {
		if (strcmp(r->values[i], v) == 0) {
			free(v);
			return;
		}
	}
	r->values = xrealloc(r->values, (r->nvalues + 1) * sizeof(char *));
	r->values[r->nvalues++] = v;
	qsort(r->values, r->nvalues, sizeof(char *), cmp_str);
}

static bool parse_int64(const char *s, long long *out)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* NewRequirement's value checks: returns 0, or -1 with err set. */
static int requirement_validate(const struct requirement *r, sk_error_t *err, const char *prefix)
{
	sk_strbuf b = {0};
	int nerr = 0;
	cleanup_free char *joined = NULL;

	if ((r->op == OP_IN || r->op == OP_NOTIN) && r->nvalues == 0) {
		sk_strbuf_str(
			&b,
			"values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
		nerr++;
	}
	if ((r->op == OP_GT || r->op == OP_LT) && r->nvalues == 1) {
		long long v;
		if (!parse_int64(r->values[0], &v)) {
			buf_invalid(&b, "values[0]", r->values[0],
				    "for 'Gt', 'Lt' operators, the value must be an integer");
			nerr++;
		}
	}
	for (size_t i = 0; i < r->nvalues; i++) {
		cleanup_free char *msg = label_value_errors(r->values[i]);
		cleanup_free char *path = NULL;
		if (!msg)
			continue;
		if (nerr++)
			sk_strbuf_str(&b, ", ");
		path = xasprintf("values[%zu][%s]", i, r->key);
		buf_invalid(&b, path, r->values[i], msg);
	}
	if (!nerr)
		return 0;
	joined = b.s;
	if (nerr > 1)
		return sk_error_set(err, SK_EBADREQUEST, "%s[%s]", prefix, joined);
	return sk_error_set(err, SK_EBADREQUEST, "%s%s", prefix, joined);
}

static struct requirement *selector_push(sk_kube_label_selector *sel)
{
	sel->reqs = xrealloc(sel->reqs, (sel->n + 1) * sizeof(*sel->reqs));
	memset(&sel->reqs[sel->n], 0, sizeof(*sel->reqs));
	return &sel->reqs[sel->n++];
}

void sk_kube_label_selector_free(sk_kube_label_selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->n; i++)
		requirement_release(&sel->reqs[i]);
	free(sel->reqs);
	free(sel);
}

/* ---- lexer (labels/selector.go Lexer) ---- */

enum tok {
	T_EOS,
	T_ID,
	T_NOT,
	T_NEQ,
	T_EQ,
	T_DEQ,
	T_GT,
	T_LT,
	T_IN,
	T_NOTIN,
	T_OPEN,
	T_CLOSE,
	T_COMMA,
};

struct item {
	enum tok tok;
	char *lit;
};

struct parser {
	struct item *items;
	size_t n, pos;
};

static bool is_special(char c)
{
	return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int symbol_token(const char *s, size_t n)
{
	static const struct {
		const char *s;
		enum tok t;
	} syms[] = {
		{"!", T_NOT}, {"!=", T_NEQ}, {"(", T_OPEN}, {")", T_CLOSE}, {",", T_COMMA},
		{"=", T_EQ},  {"==", T_DEQ}, {">", T_GT},   {"<", T_LT},
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (strlen(syms[i].s) == n && memcmp(syms[i].s, s, n) == 0)
			return (int)syms[i].t;
	return -1;
}

/* Longest run of special symbols that is still a token. */
static const char *lex_symbol(const char *p, struct item *it)
{
	size_t n = 0, best = 0;
	int tok = -1;

	while (is_special(p[n])) {
		int t = symbol_token(p, n + 1);
		n++;
		if (t >= 0) {
			tok = t;
			best = n;
		} else if (tok >= 0) {
			break;
		}
	}
	/* every single special character is a token, so tok >= 0 here */
	it->tok = (enum tok)tok;
	it->lit = xstrndup(p, best);
	return p + best;
}

static const char *lex_word(const char *p, struct item *it)
{
	size_t n = 0;

	while (p[n] && !is_ws(p[n]) && !is_special(p[n]))
		n++;
	it->lit = xstrndup(p, n);
	if (strcmp(it->lit, "in") == 0)
		it->tok = T_IN;
	else if (strcmp(it->lit, "notin") == 0)
		it->tok = T_NOTIN;
	else
		it->tok = T_ID;
	return p + n;
}

static void lex_all(struct parser *p, const char *s)
{
	for (;;) {
		struct item it = {0};
		while (is_ws(*s))
			s++;
		if (!*s) {
			it.tok = T_EOS;
			it.lit = xstrdup("");
		} else if (is_special(*s)) {
			s = lex_symbol(s, &it);
		} else {
			s = lex_word(s, &it);
		}
		p->items = xrealloc(p->items, (p->n + 1) * sizeof(*p->items));
		p->items[p->n++] = it;
		if (it.tok == T_EOS)
			return;
	}
}

static void parser_release(struct parser *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i].lit);
	free(p->items);
}

/* In the Values context, "in" and "notin" are plain identifiers. */
static enum tok peek(struct parser *p, bool values, const char **lit)
{
	struct item *it = &p->items[p->pos];
	if (lit)
		*lit = it->lit;
	if (values && (it->tok == T_IN || it->tok == T_NOTIN))
		return T_ID;
	return it->tok;
}

static enum tok next(struct parser *p, bool values, const char **lit)
{
	enum tok t = peek(p, values, lit);
	if (p->pos + 1 < p->n)
		p->pos++;
	return t;
}

/* ---- parser (labels/selector.go Parser) ---- */

#define REQ_ERR "unable to parse requirement: "

static int parse_key(struct parser *p, struct requirement *r, sk_error_t *err)
{
	const char *lit;
	enum tok t = next(p, true, &lit);
	cleanup_free char *msg = NULL;
	sk_strbuf b = {0};

	r->op = (enum op) - 1;
	if (t == T_NOT) {
		r->op = OP_NOTEXISTS;
		t = next(p, true, &lit);
	}
	if (t != T_ID)
		return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: identifier", lit);
	msg = qualified_name_errors(lit);
	if (msg) {
		buf_invalid(&b, "<nil>", lit, msg);
		sk_error_set(err, SK_EBADREQUEST, REQ_ERR "%s", b.s);
		free(b.s);
		return -1;
	}
	r->key = xstrdup(lit);
	t = peek(p, true, NULL);
	if ((t == T_EOS || t == T_COMMA) && r->op != OP_NOTEXISTS)
		r->op = OP_EXISTS;
	return 0;
}

static int parse_operator(struct parser *p, struct requirement *r, sk_error_t *err)
{
	const char *lit;

	switch (next(p, false, &lit)) {
	case T_IN:
		r->op = OP_IN;
		return 0;
	case T_NOTIN:
		r->op = OP_NOTIN;
		return 0;
	case T_EQ:
		r->op = OP_EQ;
		return 0;
	case T_DEQ:
		r->op = OP_DEQ;
		return 0;
	case T_NEQ:
		r->op = OP_NEQ;
		return 0;
	case T_GT:
		r->op = OP_GT;
		return 0;
	case T_LT:
		r->op = OP_LT;
		return 0;
	default:
		return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: in, notin, =, ==, !=, gt, lt",
				    lit);
	}
}

static int parse_identifiers(struct parser *p, struct requirement *r, sk_error_t *err)
{
	for (;;) {
		const char *lit, *lit2;
		enum tok t = next(p, true, &lit), t2;

		if (t == T_ID) {
			requirement_add_value(r, xstrdup(lit));
			t2 = peek(p, true, &lit2);
			if (t2 == T_COMMA)
				continue;
			if (t2 == T_CLOSE)
				return 0;
			return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: ',' or ')'", lit2);
		}
		if (t != T_COMMA)
			return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: ',', or identifier",
					    lit);
		if (r->nvalues == 0)
			requirement_add_value(r, xstrdup(""));
		t2 = peek(p, true, NULL);
		if (t2 == T_CLOSE) {
			requirement_add_value(r, xstrdup(""));
			return 0;
		}
		if (t2 == T_COMMA) {
			next(p, true, NULL);
			requirement_add_value(r, xstrdup(""));
		}
	}
}

static int parse_values(struct parser *p, struct requirement *r, sk_error_t *err)
{
	const char *lit;
	enum tok t = next(p, true, &lit);

	if (t != T_OPEN)
		return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s' expected: '('", lit);
	t = peek(p, true, &lit);
	if (t == T_ID || t == T_COMMA) {
		if (parse_identifiers(p, r, err) < 0)
			return -1;
		if (next(p, true, NULL) != T_CLOSE)
			return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: ')'", lit);
		return 0;
	}
	if (t == T_CLOSE) {
		next(p, true, NULL);
		requirement_add_value(r, xstrdup(""));
		return 0;
	}
	return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: ',', ')' or identifier", lit);
}

static int parse_exact_value(struct parser *p, struct requirement *r, sk_error_t *err)
{
	const char *lit;
	enum tok t = peek(p, true, NULL);

	if (t == T_EOS || t == T_COMMA) {
		requirement_add_value(r, xstrdup(""));
		return 0;
	}
	t = next(p, true, &lit);
	if (t != T_ID)
		return sk_error_set(err, SK_EBADREQUEST, REQ_ERR "found '%s', expected: identifier", lit);
	requirement_add_value(r, xstrdup(lit));
	return 0;
}

static int parse_requirement(struct parser *p, struct requirement *r, sk_error_t *err)
{
	if (parse_key(p, r, err) < 0)
		return -1;
	if (r->op == OP_EXISTS || r->op == OP_NOTEXISTS)
		return 0;
	if (parse_operator(p, r, err) < 0)
		return -1;
	if (r->op == OP_IN || r->op == OP_NOTIN) {
		if (parse_values(p, r, err) < 0)
			return -1;
	} else if (parse_exact_value(p, r, err) < 0) {
		return -1;
	}
	return requirement_validate(r, err, REQ_ERR);
}

static int parse_all(struct parser *p, sk_kube_label_selector *sel, sk_error_t *err)
{
	for (;;) {
		const char *lit;
		enum tok t = peek(p, true, &lit);

		if (t == T_EOS)
			return 0;
		if (t != T_ID && t != T_NOT)
			return sk_error_set(err, SK_EBADREQUEST,
					    "found '%s', expected: !, identifier, or 'end of string'", lit);
		if (parse_requirement(p, selector_push(sel), err) < 0)
			return -1;
		t = next(p, true, &lit);
		if (t == T_EOS)
			return 0;
		if (t != T_COMMA)
			return sk_error_set(err, SK_EBADREQUEST, "found '%s', expected: ',' or 'end of string'", lit);
		t = peek(p, true, &lit);
		if (t != T_ID && t != T_NOT)
			return sk_error_set(err, SK_EBADREQUEST, "found '%s', expected: identifier after ','", lit);
	}
}

/* Upstream keeps requirements sorted by key (stable): String() and the
 * order errors are found in depend on it. */
static void sort_by_key(sk_kube_label_selector *sel)
{
	for (size_t i = 1; i < sel->n; i++) {
		for (size_t j = i; j > 0 && strcmp(sel->reqs[j - 1].key, sel->reqs[j].key) > 0; j--) {
			struct requirement t = sel->reqs[j - 1];
			sel->reqs[j - 1] = sel->reqs[j];
			sel->reqs[j] = t;
		}
	}
}

sk_kube_label_selector *sk_kube_label_selector_parse(const char *s, sk_error_t *err)
{
	sk_kube_label_selector *sel = xzalloc(sizeof(*sel));
	struct parser p = {0};
	int rc;

	if (!s || !*s)
		return sel;
	lex_all(&p, s);
	rc = parse_all(&p, sel, err);
	parser_release(&p);
	if (rc < 0) {
		sk_kube_label_selector_free(sel);
		return NULL;
	}
	sort_by_key(sel);
	return sel;
}

/* ---- metav1.LabelSelector ---- */

/* The operator of a LabelSelectorRequirement; -1 for any other name. */
static int expr_op(const char *name, enum op *op)
{
	static const struct {
		const char *name;
		enum op op;
	} ops[] = {{"In", OP_IN}, {"NotIn", OP_NOTIN}, {"Exists", OP_EXISTS}, {"DoesNotExist", OP_NOTEXISTS}};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(name, ops[i].name) == 0) {
			*op = ops[i].op;
			return 0;
		}
	return -1;
}

static int expr_from_json(json_t *e, struct requirement *r, sk_error_t *err)
{
	const char *key = json_string_value(json_object_get(e, "key"));
	const char *op = json_string_value(json_object_get(e, "operator"));
	json_t *vals = json_object_get(e, "values"), *v;
	size_t i;
	cleanup_free char *msg = NULL;

	if (!json_is_object(e))
		return sk_error_set(err, SK_EBADREQUEST, "matchExpressions: expected an object");
	r->key = xstrdup(key ? key : "");
	if (!op)
		op = "";
	if (expr_op(op, &r->op) < 0)
		return sk_error_set(err, SK_EBADREQUEST, "\"%s\" is not a valid label selector operator", op);
	json_array_foreach(vals, i, v)
		requirement_add_value(r, xstrdup(json_is_string(v) ? json_string_value(v) : ""));
	if ((r->op == OP_EXISTS || r->op == OP_NOTEXISTS) && r->nvalues)
		return sk_error_set(
			err, SK_EBADREQUEST,
			"values: Invalid value: []string{...}: values set must be empty for exists and does not exist");
	msg = qualified_name_errors(r->key);
	if (msg) {
		sk_strbuf b = {0};
		buf_invalid(&b, "key", r->key, msg);
		sk_error_set(err, SK_EBADREQUEST, "%s", b.s);
		free(b.s);
		return -1;
	}
	return requirement_validate(r, err, "");
}

static int labels_from_json(json_t *ml, sk_kube_label_selector *sel, sk_error_t *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(ml, k, v) {
		struct requirement *r = selector_push(sel);
		cleanup_free char *msg = qualified_name_errors(k);
		r->key = xstrdup(k);
		r->op = OP_EQ;
		requirement_add_value(r, xstrdup(json_is_string(v) ? json_string_value(v) : ""));
		if (msg) {
			sk_strbuf b = {0};
			buf_invalid(&b, "key", k, msg);
			sk_error_set(err, SK_EBADREQUEST, "%s", b.s);
			free(b.s);
			return -1;
		}
		if (requirement_validate(r, err, "") < 0)
			return -1;
	}
	return 0;
}

sk_kube_label_selector *sk_kube_label_selector_from_json(json_t *js, sk_error_t *err)
{
	sk_kube_label_selector *sel = xzalloc(sizeof(*sel));
	json_t *e;
	size_t i;

	if (!js || json_is_null(js)) {
		sel->nothing = true;
		return sel;
	}
	if (labels_from_json(json_object_get(js, "matchLabels"), sel, err) < 0)
		goto fail;
	json_array_foreach(json_object_get(js, "matchExpressions"), i, e)
		if (expr_from_json(e, selector_push(sel), err) < 0)
			goto fail;
	sort_by_key(sel);
	return sel;
fail:
	sk_kube_label_selector_free(sel);
	return NULL;
}

sk_kube_label_selector *sk_kube_label_selector_from_set(json_t *set)
{
	sk_kube_label_selector *sel = xzalloc(sizeof(*sel));
	const char *k;
	json_t *v;

	json_object_foreach(set, k, v) {
		struct requirement *r = selector_push(sel);
		r->key = xstrdup(k);
		r->op = OP_EQ;
		requirement_add_value(r, xstrdup(json_is_string(v) ? json_string_value(v) : ""));
	}
	sort_by_key(sel);
	return sel;
}

static void requirement_string(sk_strbuf *b, const struct requirement *r)
{
	static const char *const ops[] = {
		[OP_IN] = " in ", [OP_NOTIN] = " notin ", [OP_EQ] = "=", [OP_DEQ] = "==", [OP_NEQ] = "!=",
		[OP_EXISTS] = "", [OP_NOTEXISTS] = "",    [OP_GT] = ">", [OP_LT] = "<",
	};

	if (r->op == OP_NOTEXISTS)
		sk_strbuf_str(b, "!");
	sk_strbuf_str(b, r->key);
	if (r->op == OP_EXISTS || r->op == OP_NOTEXISTS)
		return;
	sk_strbuf_str(b, ops[r->op]);
	if (r->op == OP_IN || r->op == OP_NOTIN)
		sk_strbuf_str(b, "(");
	for (size_t i = 0; i < r->nvalues; i++) {
		if (i)
			sk_strbuf_str(b, ",");
		sk_strbuf_str(b, r->values[i]);
	}
	if (r->op == OP_IN || r->op == OP_NOTIN)
		sk_strbuf_str(b, ")");
}

char *sk_kube_label_selector_string(const sk_kube_label_selector *sel)
{
	sk_strbuf b = {0};

	sk_strbuf_str(&b, "");
	for (size_t i = 0; !sel->nothing && i < sel->n; i++) {
		if (i)
			sk_strbuf_str(&b, ",");
		requirement_string(&b, &sel->reqs[i]);
	}
	return b.s;
}

/* ---- matching ---- */

static bool has_value(const struct requirement *r, const char *v)
{
	for (size_t i = 0; i < r->nvalues; i++)
		if (strcmp(r->values[i], v) == 0)
			return true;
	return false;
}

/* Whether a set-based op holds for the label jv (NULL when absent) whose
 * value is (in) or is not among the requirement's values. */
static bool op_holds(enum op op, json_t *jv, bool in)
{
	switch (op) {
	case OP_IN:
	case OP_EQ:
	case OP_DEQ:
		return json_is_string(jv) && in;
	case OP_NOTIN:
	case OP_NEQ:
		return !json_is_string(jv) || !in;
	case OP_EXISTS:
		return jv != NULL;
	case OP_NOTEXISTS:
		return jv == NULL;
	default:
		return false;
	}
}

static bool requirement_match(const struct requirement *r, json_t *labels)
{
	json_t *jv = json_object_get(labels, r->key);
	const char *v = json_string_value(jv);
	long long a, b;

	if (r->op == OP_GT || r->op == OP_LT) {
		if (!v || r->nvalues != 1 || !parse_int64(v, &a) || !parse_int64(r->values[0], &b))
			return false;
		return r->op == OP_GT ? a > b : a < b;
	}
	return op_holds(r->op, jv, v && has_value(r, v));
}

/* Whether the label jv has the value of the JSON string want (non-strings
 * count as "", as sk_kube_label_selector_from_json reads them). */
static bool json_value_is(json_t *jv, json_t *want)
{
	const char *v = json_string_value(jv), *w = json_string_value(want);

	return v && strcmp(v, w ? w : "") == 0;
}

int sk_kube_label_selector_json_match(json_t *js, json_t *labels)
{
	const char *k;
	json_t *v, *e;
	size_t i;

	if (!json_is_object(js))
		return 0;
	if (labels && !json_is_object(labels))
		labels = NULL;
	json_object_foreach(json_object_get(js, "matchLabels"), k, v)
		if (!json_value_is(json_object_get(labels, k), v))
			return 0;
	json_array_foreach(json_object_get(js, "matchExpressions"), i, e) {
		const char *key = json_string_value(json_object_get(e, "key"));
		const char *name = json_string_value(json_object_get(e, "operator"));
		json_t *jv = json_object_get(labels, key ? key : ""), *x;
		bool in = false;
		enum op op;
		size_t j;

		if (!name || expr_op(name, &op) < 0)
			return 0;
		json_array_foreach(json_object_get(e, "values"), j, x)
			in = in || json_value_is(jv, x);
		if (!op_holds(op, jv, in))
			return 0;
	}
	return 1;
}

int sk_kube_label_selector_match(const sk_kube_label_selector *sel, json_t *labels)
{
	if (sel->nothing)
		return 0;
	if (labels && !json_is_object(labels))
		labels = NULL;
	for (size_t i = 0; i < sel->n; i++)
		if (!requirement_match(&sel->reqs[i], labels))
			return 0;
	return 1;
}

int sk_kube_label_selector_empty(const sk_kube_label_selector *sel) { return !sel->nothing && sel->n == 0; }

/* ---- field selectors (fields/selector.go) ---- */

struct term {
	char *field;
	char *value;
	bool neq;
};

struct sk_kube_field_selector {
	struct term *terms;
	size_t n;
};

void sk_kube_field_selector_free(sk_kube_field_selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->n; i++) {
		free(sel->terms[i].field);
		free(sel->terms[i].value);
	}
	free(sel->terms);
	free(sel);
}

/* UnescapeValue: returns malloc'd value or NULL with err set. */
static char *unescape_value(const char *s, size_t n, sk_error_t *err)
{
	char *out = xmalloc(n + 1);
	size_t o = 0;
	bool slash = false;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (slash) {
			if (c != '\\' && c != ',' && c != '=') {
				free(out);
				sk_error_set(err, SK_EBADREQUEST,
					     "invalid field selector: invalid escape sequence: \\%c", c);
				return NULL;
			}
			out[o++] = c;
			slash = false;
		} else if (c == '\\') {
			slash = true;
		} else if (c == ',' || c == '=') {
			free(out);
			sk_error_set(err, SK_EBADREQUEST, "invalid field selector: unescaped character in value: %c",
				     c);
			return NULL;
		} else {
			out[o++] = c;
		}
	}
	if (slash) {
		free(out);
		sk_error_set(err, SK_EBADREQUEST, "invalid field selector: invalid escape sequence: \\");
		return NULL;
	}
	out[o] = '\0';
	return out;
}

/* splitTerm: the first position where "!=", "==" or "=" starts. */
static int parse_term(const char *sel, const char *t, size_t n, struct term *out, sk_error_t *err)
{
	for (size_t i = 0; i < n; i++) {
		size_t oplen = 0;
		if (i + 1 < n && t[i] == '!' && t[i + 1] == '=')
			oplen = 2, out->neq = true;
		else if (i + 1 < n && t[i] == '=' && t[i + 1] == '=')
			oplen = 2;
		else if (t[i] == '=')
			oplen = 1;
		if (!oplen)
			continue;
		out->value = unescape_value(t + i + oplen, n - i - oplen, err);
		if (!out->value)
			return -1;
		out->field = xstrndup(t, i);
		return 0;
	}
	return sk_error_set(err, SK_EBADREQUEST, "invalid selector: '%s'; can't understand '%.*s'", sel, (int)n, t);
}

static int cmp_term(const void *a, const void *b)
{
	const struct term *x = a, *y = b;
	int c = strcmp(x->field, y->field);
	return c ? c : strcmp(x->value, y->value);
}

sk_kube_field_selector *sk_kube_field_selector_parse(const char *s, sk_error_t *err)
{
	sk_kube_field_selector *sel = xzalloc(sizeof(*sel));
	size_t start = 0, len;
	bool slash = false;

	if (!s)
		return sel;
	len = strlen(s);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && slash) {
			slash = false;
			continue;
		}
		if (i < len && s[i] == '\\') {
			slash = true;
			continue;
		}
		if (i < len && s[i] != ',')
			continue;
		if (i > start) {
			struct term t = {0};
			if (parse_term(s, s + start, i - start, &t, err) < 0) {
				sk_kube_field_selector_free(sel);
				return NULL;
			}
			sel->terms = xrealloc(sel->terms, (sel->n + 1) * sizeof(t));
			sel->terms[sel->n++] = t;
		}
		start = i + 1;
	}
	if (sel->n > 1)
		qsort(sel->terms, sel->n, sizeof(struct term), cmp_term);
	return sel;
}

static int check_field(struct term *t, const sk_kube_field_labels *fl, sk_error_t *err)
{
	if (!fl) {
		if (strcmp(t->field, "metadata.name") == 0 || strcmp(t->field, "metadata.namespace") == 0)
			return 0;
		return sk_error_set(
			err, SK_EBADREQUEST,
			"\"%s\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
			t->field);
	}
	for (size_t j = 0; fl->fields[j]; j++)
		if (strcmp(fl->fields[j], t->field) == 0)
			return 0;
	if (fl->alias && strcmp(t->field, fl->alias) == 0) {
		free(t->field);
		t->field = xstrdup(fl->alias_of);
		return 0;
	}
	return sk_error_set(err, SK_EBADREQUEST, fl->unsupported ? fl->unsupported : "field label not supported: %s",
			    t->field);
}

int sk_kube_field_selector_check(sk_kube_field_selector *sel, const sk_kube_field_labels *labels, sk_error_t *err)
{
	for (size_t i = 0; i < sel->n; i++)
		if (check_field(&sel->terms[i], labels, err) < 0)
			return -1;
	return 0;
}

int sk_kube_field_selector_check_fields(const sk_kube_field_selector *sel, const char *const *extra, sk_error_t *err)
{
	for (size_t i = 0; i < sel->n; i++) {
		const char *f = sel->terms[i].field;
		bool ok = strcmp(f, "metadata.name") == 0 || strcmp(f, "metadata.namespace") == 0;

		for (size_t j = 0; !ok && extra && extra[j]; j++)
			ok = strcmp(extra[j], f) == 0;
		if (!ok)
			return sk_error_set(err, SK_EBADREQUEST, "field label not supported: %s", f);
	}
	return 0;
}

/* The value upstream's *ToSelectableFields gives field; malloc'd. */
static char *field_value(json_t *obj, const char *field)
{
	json_t *v;

	if (strcmp(field, "source") == 0) {
		const char *c = json_string_value(sk_kube_jget(obj, "source.component"));
		if (!c || !*c)
			c = json_string_value(json_object_get(obj, "reportingComponent"));
		return xstrdup(c ? c : "");
	}
	if (strcmp(field, "status.podIP") == 0) {
		const char *ip = json_string_value(
			json_object_get(json_array_get(sk_kube_jget(obj, "status.podIPs"), 0), "ip"));
		if (!ip)
			ip = json_string_value(sk_kube_jget(obj, "status.podIP"));
		return xstrdup(ip ? ip : "");
	}
	/* accepted by upstream's conversion but absent from the pod's field set */
	if (strcmp(field, "status.podIPs") == 0)
		return xstrdup("");
	/* the Job field set names status.succeeded so */
	if (strcmp(field, "status.successful") == 0)
		field = "status.succeeded";
	v = sk_kube_jget(obj, field);
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_boolean(v))
		return xstrdup(json_is_true(v) ? "true" : "false");
	if (json_is_integer(v))
		return xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_real(v))
		return xasprintf("%g", json_real_value(v));
	if (strcmp(field, "spec.hostNetwork") == 0 || strcmp(field, "spec.unschedulable") == 0)
		return xstrdup("false");
	if (strcmp(field, "status.replicas") == 0 || strcmp(field, "status.succeeded") == 0)
		return xstrdup("0");
	return xstrdup("");
}

char *sk_kube_field_value(json_t *obj, const char *field) { return field_value(obj, field); }

int sk_kube_field_selector_match_fn(const sk_kube_field_selector *sel, const char *(*get)(void *ctx, const char *field),
				    void *ctx)
{
	for (size_t i = 0; i < sel->n; i++) {
		const char *v = get(ctx, sel->terms[i].field);

		if (!v)
			return -1;
		if ((strcmp(v, sel->terms[i].value) == 0) == sel->terms[i].neq)
			return 0;
	}
	return 1;
}

size_t sk_kube_field_selector_len(const sk_kube_field_selector *sel) { return sel->n; }

const char *sk_kube_field_selector_field(const sk_kube_field_selector *sel, size_t i) { return sel->terms[i].field; }

int sk_kube_field_selector_match(const sk_kube_field_selector *sel, json_t *obj)
{
	for (size_t i = 0; i < sel->n; i++) {
		cleanup_free char *v = field_value(obj, sel->terms[i].field);
		bool eq = strcmp(v, sel->terms[i].value) == 0;
		if (eq == sel->terms[i].neq)
			return 0;
	}
	return 1;
}

int sk_kube_field_selector_single_eq(const sk_kube_field_selector *sel, const char *field, const char **value)
{
	if (sel->n != 1 || sel->terms[0].neq || strcmp(sel->terms[0].field, field) != 0)
		return 0;
	*value = sel->terms[0].value;
	return 1;
}

int sk_kube_field_selector_empty(const sk_kube_field_selector *sel) { return sel->n == 0; }
