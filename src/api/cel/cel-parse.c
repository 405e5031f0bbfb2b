/* CEL's lexer and recursive-descent parser (cel-spec doc/langdef.md), with
 * the macros expanded to comprehension nodes and the checks cel-go's
 * compiler makes that do not need full type inference: declared names and
 * functions, the macros' arguments, and field selections on self and
 * oldSelf against the schema. Messages follow cel-go's issues. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cel/cel-int.h"
#include "util/util.h"

#define MAX_DEPTH 250
#define MAX_SOURCE 100000

enum tok { T_EOF, T_IDENT, T_INT, T_UINT, T_DOUBLE, T_STRING, T_BYTES, T_PUNCT, T_ERR };

struct parser {
	const char *src;
	size_t len, pos;
	/* the current token */
	enum tok t;
	size_t tpos, tend;
	char punct[4];
	int depth;
	char *err; /* first issue: message and where */
	size_t err_pos;
};

static void fail(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (p->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	p->err = m;
	p->err_pos = pos;
}

/* ---- lexer ---- */

static int is_ident_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident(int c) { return is_ident_start(c) || is_digit(c); }
static int is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static void skip_space(struct parser *p)
{
	for (;;) {
		while (p->pos < p->len && strchr(" \t\r\n\f", p->src[p->pos]) && p->src[p->pos])
			p->pos++;
		if (p->pos + 1 < p->len && p->src[p->pos] == '/' && p->src[p->pos + 1] == '/') {
			while (p->pos < p->len && p->src[p->pos] != '\n')
				p->pos++;
			continue;
		}
		return;
	}
}

static const char *const puncts[] = {"==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/", "%",
				     "!",  "?",  ":",  ".",  ",",  "(",  ")", "[", "]", "{", "}", NULL};

/* Scans a quoted literal from p->pos (after any r/b prefixes) to its end. */
static int scan_quoted(struct parser *p, int raw)
{
	char q = p->src[p->pos];
	int triple = p->pos + 2 < p->len && p->src[p->pos + 1] == q && p->src[p->pos + 2] == q;

	p->pos += triple ? 3 : 1;
	while (p->pos < p->len) {
		char ch = p->src[p->pos];

		if (triple && ch == q && p->pos + 2 < p->len && p->src[p->pos + 1] == q && p->src[p->pos + 2] == q) {
			p->pos += 3;
			return 0;
		}
		if (!triple && ch == q) {
			p->pos++;
			return 0;
		}
		if (!triple && (ch == '\n' || ch == '\r'))
			return -1;
		if (ch == '\\' && !raw)
			p->pos++;
		p->pos++;
	}
	return -1;
}

static void next(struct parser *p)
{
	skip_space(p);
	p->tpos = p->pos;
	if (p->pos >= p->len) {
		p->t = T_EOF;
		p->tend = p->pos;
		return;
	}
	char c = p->src[p->pos];
	size_t i = p->pos;

	/* string and bytes literals with their prefixes */
	{
		int raw = 0, bytes = 0;
		size_t j = i;

		while (j < p->len && j < i + 2 && strchr("rRbB", p->src[j]) && p->src[j]) {
			if (p->src[j] == 'r' || p->src[j] == 'R')
				raw++;
			else
				bytes++;
			j++;
		}
		if (raw <= 1 && bytes <= 1 && j < p->len && (p->src[j] == '"' || p->src[j] == '\'')) {
			p->pos = j;
			if (scan_quoted(p, raw) < 0) {
				p->t = T_ERR;
				p->tend = p->pos;
				return;
			}
			p->t = bytes ? T_BYTES : T_STRING;
			p->tend = p->pos;
			return;
		}
	}
	if (is_ident_start(c)) {
		while (p->pos < p->len && is_ident(p->src[p->pos]))
			p->pos++;
		p->t = T_IDENT;
		p->tend = p->pos;
		return;
	}
	if (is_digit(c) || (c == '.' && i + 1 < p->len && is_digit(p->src[i + 1]))) {
		int dbl = 0;

		if (c == '0' && i + 1 < p->len && (p->src[i + 1] == 'x' || p->src[i + 1] == 'X') && i + 2 < p->len &&
		    is_hex(p->src[i + 2])) {
			p->pos += 2;
			while (p->pos < p->len && is_hex(p->src[p->pos]))
				p->pos++;
		} else {
			while (p->pos < p->len && is_digit(p->src[p->pos]))
				p->pos++;
			if (p->pos + 1 < p->len && p->src[p->pos] == '.' && is_digit(p->src[p->pos + 1])) {
				dbl = 1;
				p->pos++;
				while (p->pos < p->len && is_digit(p->src[p->pos]))
					p->pos++;
			}
			if (p->pos < p->len && (p->src[p->pos] == 'e' || p->src[p->pos] == 'E')) {
				size_t k = p->pos + 1;

				if (k < p->len && (p->src[k] == '+' || p->src[k] == '-'))
					k++;
				if (k < p->len && is_digit(p->src[k])) {
					dbl = 1;
					p->pos = k;
					while (p->pos < p->len && is_digit(p->src[p->pos]))
						p->pos++;
				}
			}
		}
		if (!dbl && p->pos < p->len && (p->src[p->pos] == 'u' || p->src[p->pos] == 'U')) {
			p->pos++;
			p->t = T_UINT;
		} else {
			p->t = dbl ? T_DOUBLE : T_INT;
		}
		p->tend = p->pos;
		return;
	}
	for (int k = 0; puncts[k]; k++) {
		size_t n = strlen(puncts[k]);

		if (p->pos + n <= p->len && !memcmp(p->src + p->pos, puncts[k], n)) {
			memcpy(p->punct, puncts[k], n + 1);
			p->pos += n;
			p->t = T_PUNCT;
			p->tend = p->pos;
			return;
		}
	}
	p->t = T_ERR;
	p->pos++;
	p->tend = p->pos;
}

static int is_punct(struct parser *p, const char *s) { return p->t == T_PUNCT && !strcmp(p->punct, s); }

static int is_word(struct parser *p, const char *w)
{
	return p->t == T_IDENT && p->tend - p->tpos == strlen(w) && !memcmp(p->src + p->tpos, w, strlen(w));
}

/* The token as ANTLR names it in messages. */
static char *tok_text(struct parser *p)
{
	if (p->t == T_EOF)
		return xstrdup("'<EOF>'");
	return xasprintf("'%.*s'", (int)(p->tend - p->tpos), p->src + p->tpos);
}

static const char expecting_primary[] = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
					"NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

static void syntax(struct parser *p, const char *expecting)
{
	cleanup_free char *t = tok_text(p);

	if (p->t == T_ERR)
		fail(p, p->tpos, "Syntax error: token recognition error at: '%.*s'", (int)(p->tend - p->tpos),
		     p->src + p->tpos);
	else if (p->t == T_EOF || !strcmp(expecting, expecting_primary))
		fail(p, p->tpos, "Syntax error: mismatched input %s expecting %s", t, expecting);
	else
		fail(p, p->tpos, "Syntax error: extraneous input %s expecting %s", t, expecting);
}

static int expect(struct parser *p, const char *s)
{
	if (!is_punct(p, s)) {
		char want[8];

		snprintf(want, sizeof(want), "'%s'", s);
		syntax(p, want);
		return -1;
	}
	next(p);
	return 0;
}

/* ---- literals ---- */

static void put_utf8(char **out, size_t *n, uint32_t cp)
{
	char *o = *out + *n;

	if (cp < 0x80) {
		o[0] = (char)cp;
		*n += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		*n += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		*n += 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		*n += 4;
	}
}

/* Decodes the current string/bytes token into n->s. */
static int decode_string(struct parser *p, cel_node *nd, int bytes)
{
	const char *s = p->src + p->tpos, *end = p->src + p->tend;
	int raw = 0;
	size_t qn, n = 0;
	char *out;

	while (*s != '"' && *s != '\'') {
		raw |= *s == 'r' || *s == 'R';
		s++;
	}
	qn = (end - s >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
	s += qn;
	end -= qn;
	out = xmalloc((size_t)(end - s) * 4 + 1);
	while (s < end) {
		if (*s != '\\' || raw) {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (s >= end)
			goto bad;
		switch (*s) {
		case 'a':
			out[n++] = '\a';
			s++;
			break;
		case 'b':
			out[n++] = '\b';
			s++;
			break;
		case 'f':
			out[n++] = '\f';
			s++;
			break;
		case 'n':
			out[n++] = '\n';
			s++;
			break;
		case 'r':
			out[n++] = '\r';
			s++;
			break;
		case 't':
			out[n++] = '\t';
			s++;
			break;
		case 'v':
			out[n++] = '\v';
			s++;
			break;
		case '\\':
		case '\'':
		case '"':
		case '`':
		case '?':
			out[n++] = *s++;
			break;
		case 'x':
		case 'X':
		case 'u':
		case 'U': {
			int digits = (*s == 'x' || *s == 'X') ? 2 : *s == 'u' ? 4 : 8;
			uint32_t cp = 0;

			if ((*s == 'u' || *s == 'U') && bytes)
				goto bad;
			s++;
			for (int k = 0; k < digits; k++, s++) {
				if (s >= end || !is_hex(*s))
					goto bad;
				cp = cp * 16 + (uint32_t)(is_digit(*s) ? *s - '0' : (*s | 0x20) - 'a' + 10);
			}
			if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
				goto bad;
			if (bytes)
				out[n++] = (char)cp;
			else
				put_utf8(&out, &n, cp);
			break;
		}
		default:
			if (*s >= '0' && *s <= '3' && end - s >= 3 && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
			    s[2] <= '7') {
				uint32_t cp = (uint32_t)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));

				if (bytes)
					out[n++] = (char)cp;
				else
					put_utf8(&out, &n, cp);
				s += 3;
				break;
			}
			goto bad;
		}
	}
	out[n] = 0;
	nd->s = out;
	nd->n = n;
	return 0;
bad:
	free(out);
	fail(p, p->tpos, "Syntax error: invalid escape sequence");
	return -1;
}

/* ---- AST ---- */

static cel_node *node(enum cel_node_kind k, size_t pos)
{
	cel_node *n = xzalloc(sizeof(*n));

	n->kind = k;
	n->pos = pos;
	return n;
}

static void push(cel_node *n, cel_node *a)
{
	n->args = xrealloc(n->args, (n->nargs + 1) * sizeof(*n->args));
	n->opts = xrealloc(n->opts, n->nargs + 1);
	n->opts[n->nargs] = 0;
	n->args[n->nargs++] = a;
	if (a->height + 1 > n->height)
		n->height = a->height + 1;
}

/* Whether n is taller than an expression may be (then p fails). */
static int too_tall(struct parser *p, cel_node *n)
{
	if (n->height <= MAX_DEPTH)
		return 0;
	fail(p, n->pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
	return 1;
}

void sk__cel_node_free(cel_node *n)
{
	if (!n)
		return;
	sk__cel_node_free(n->target);
	for (size_t i = 0; i < n->nargs; i++)
		sk__cel_node_free(n->args[i]);
	free(n->args);
	free(n->opts);
	free(n->name);
	free(n->s);
	free(n->var);
	free(n->var2);
	free(n);
}

static const char *const reserved[] = {"as",        "break",  "const",  "continue", "else",  "for",
				       "function",  "if",     "import", "let",      "loop",  "package",
				       "namespace", "return", "var",    "void",     "while", NULL};

static char *ident_text(struct parser *p) { return xstrndup(p->src + p->tpos, p->tend - p->tpos); }

static cel_node *expr(struct parser *p);

/* Comma-separated expressions up to close; list and map entries may be
 * optional ("?e"), map entries are key: value pairs. */
static cel_node *entries(struct parser *p, cel_node *n, const char *close, int pairs, int allow_opt)
{
	while (!p->err && !is_punct(p, close)) {
		int opt = 0;

		if (allow_opt && is_punct(p, "?")) {
			opt = 1;
			next(p);
		}
		push(n, expr(p));
		n->opts[n->nargs - 1] = (unsigned char)opt;
		if (pairs && !p->err) {
			if (expect(p, ":") < 0)
				break;
			push(n, expr(p));
		}
		if (p->err || !is_punct(p, ","))
			break;
		next(p);
	}
	if (!p->err)
		expect(p, close);
	return n;
}

static cel_node *primary(struct parser *p)
{
	size_t pos = p->tpos;
	cel_node *n;

	switch (p->t) {
	case T_INT: {
		char *e;
		const char *s = p->src + p->tpos;
		unsigned long long v;

		errno = 0;
		v = strtoull(s, &e, 0);
		n = node(N_INT, pos);
		if (errno || v > (unsigned long long)INT64_MAX + 1)
			fail(p, pos, "invalid int literal");
		n->u = v; /* the sign is applied by unary (INT64_MIN) */
		n->i = (int64_t)v;
		if (v == (unsigned long long)INT64_MAX + 1)
			n->opt = 1; /* valid only when negated */
		next(p);
		return n;
	}
	case T_UINT: {
		char *e;
		unsigned long long v;

		errno = 0;
		v = strtoull(p->src + p->tpos, &e, 0);
		n = node(N_UINT, pos);
		if (errno)
			fail(p, pos, "invalid uint literal");
		n->u = v;
		next(p);
		return n;
	}
	case T_DOUBLE: {
		cleanup_free char *t = ident_text(p);

		n = node(N_DOUBLE, pos);
		n->d = strtod(t, NULL);
		next(p);
		return n;
	}
	case T_STRING:
	case T_BYTES:
		n = node(p->t == T_STRING ? N_STRING : N_BYTES, pos);
		decode_string(p, n, p->t == T_BYTES);
		next(p);
		return n;
	case T_IDENT: {
		char *name = ident_text(p);

		if (!strcmp(name, "true") || !strcmp(name, "false") || !strcmp(name, "null")) {
			n = node(*name == 'n' ? N_NULL : N_BOOL, pos);
			n->i = *name == 't';
			free(name);
			next(p);
			return n;
		}
		for (int k = 0; reserved[k]; k++)
			if (!strcmp(name, reserved[k]))
				fail(p, pos, "reserved identifier: %s", name);
		if (!strcmp(name, "in"))
			syntax(p, expecting_primary);
		next(p);
		if (is_punct(p, "(")) {
			n = node(N_CALL, pos);
			n->name = name;
			next(p);
			return entries(p, n, ")", 0, 0);
		}
		n = node(N_IDENT, pos);
		n->name = name;
		return n;
	}
	case T_PUNCT:
		if (is_punct(p, "(")) {
			next(p);
			n = expr(p);
			if (!p->err)
				expect(p, ")");
			return n;
		}
		if (is_punct(p, "[")) {
			next(p);
			return entries(p, node(N_LIST, pos), "]", 0, 1);
		}
		if (is_punct(p, "{")) {
			next(p);
			return entries(p, node(N_MAP, pos), "}", 1, 1);
		}
		if (is_punct(p, ".")) {
			/* a leading dot: the root namespace */
			next(p);
			if (p->t != T_IDENT) {
				syntax(p, "IDENTIFIER");
				return node(N_NULL, pos);
			}
			return primary(p);
		}
		/* fall through */
	default:
		syntax(p, expecting_primary);
		next(p);
		return node(N_NULL, pos);
	}
}

static cel_node *member(struct parser *p)
{
	cel_node *n = primary(p);

	while (!p->err) {
		size_t pos = p->tpos;

		if (is_punct(p, ".")) {
			int opt = 0;
			char *name;

			next(p);
			if (is_punct(p, "?")) {
				opt = 1;
				next(p);
			}
			if (p->t != T_IDENT) {
				syntax(p, "IDENTIFIER");
				break;
			}
			name = ident_text(p);
			next(p);
			if (!opt && is_punct(p, "(")) {
				cel_node *c = node(N_CALL, pos);

				c->name = name;
				c->target = n;
				c->height = n->height + 1;
				next(p);
				n = entries(p, c, ")", 0, 0);
				if (too_tall(p, n))
					break;
				continue;
			}
			cel_node *s = node(N_SELECT, pos);

			s->name = name;
			s->opt = opt;
			push(s, n);
			n = s;
			if (too_tall(p, n))
				break;
		} else if (is_punct(p, "[")) {
			cel_node *x = node(N_INDEX, pos);

			next(p);
			if (is_punct(p, "?")) {
				x->opt = 1;
				next(p);
			}
			push(x, n);
			push(x, expr(p));
			n = x;
			if (!p->err && !too_tall(p, n))
				expect(p, "]");
		} else {
			break;
		}
	}
	return n;
}

static cel_node *unary(struct parser *p)
{
	size_t pos = p->tpos;

	if (is_punct(p, "!") || is_punct(p, "-")) {
		int neg = is_punct(p, "-");
		cel_node *n, *a;

		next(p);
		if (++p->depth > MAX_DEPTH) {
			fail(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
			return node(N_NULL, pos);
		}
		a = unary(p);
		p->depth--;
		if (neg && (a->kind == N_INT || a->kind == N_DOUBLE) && !a->target && a->nargs == 0 && a->op == 0) {
			/* a negative literal */
			if (a->kind == N_INT)
				a->i = (int64_t)(0 - a->u);
			else
				a->d = -a->d;
			a->opt = 0;
			a->op = 1; /* already negated */
			a->pos = pos;
			return a;
		}
		n = node(N_UNARY, pos);
		n->op = neg ? OP_NEG : OP_NOT;
		push(n, a);
		too_tall(p, n);
		return n;
	}
	return member(p);
}

struct binop {
	const char *tok;
	int op;
};

static const struct binop mul_ops[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}, {NULL, 0}};
static const struct binop add_ops[] = {{"+", OP_ADD}, {"-", OP_SUB}, {NULL, 0}};
static const struct binop rel_ops[] = {{"==", OP_EQ}, {"!=", OP_NE}, {"<", OP_LT},  {"<=", OP_LE},
				       {">", OP_GT},  {">=", OP_GE}, {"in", OP_IN}, {NULL, 0}};

static int match_op(struct parser *p, const struct binop *ops)
{
	for (int k = 0; ops[k].tok; k++)
		if (!strcmp(ops[k].tok, "in") ? is_word(p, "in") : is_punct(p, ops[k].tok))
			return ops[k].op;
	return 0;
}

static cel_node *binary(struct parser *p, int level);

static cel_node *binary_level(struct parser *p, int level, const struct binop *ops)
{
	cel_node *n = binary(p, level + 1);
	int op;

	while (!p->err && (op = match_op(p, ops))) {
		cel_node *b = node(N_BINARY, p->tpos);

		next(p);
		b->op = op;
		push(b, n);
		push(b, binary(p, level + 1));
		n = b;
		if (too_tall(p, n))
			break;
	}
	return n;
}

/* 0: ||, 1: &&, 2: relations, 3: + -, 4: * / %, 5: unary */
static cel_node *binary(struct parser *p, int level)
{
	if (level == 0 || level == 1) {
		const char *tok = level ? "&&" : "||";
		cel_node *n = binary(p, level + 1);

		while (!p->err && is_punct(p, tok)) {
			cel_node *b = node(level ? N_AND : N_OR, p->tpos);

			next(p);
			push(b, n);
			push(b, binary(p, level + 1));
			n = b;
			if (too_tall(p, n))
				break;
		}
		return n;
	}
	if (level == 2)
		return binary_level(p, level, rel_ops);
	if (level == 3)
		return binary_level(p, level, add_ops);
	if (level == 4)
		return binary_level(p, level, mul_ops);
	return unary(p);
}

static cel_node *expr(struct parser *p)
{
	size_t pos = p->tpos;
	cel_node *n;

	if (++p->depth > MAX_DEPTH) {
		fail(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
		return node(N_NULL, pos);
	}
	n = binary(p, 0);
	if (!p->err && is_punct(p, "?")) {
		cel_node *c = node(N_COND, p->tpos);

		next(p);
		push(c, n);
		push(c, binary(p, 0));
		if (!p->err && expect(p, ":") == 0)
			push(c, expr(p));
		else
			push(c, node(N_NULL, p->tpos));
		n = c;
		too_tall(p, n);
	}
	p->depth--;
	return n;
}

/* ---- macros and checks ---- */

struct scope {
	const char *name;
	json_t *sch;
	struct scope *up;
	int ty; /* when sch is NULL */
};

struct issue {
	size_t pos, seq;
	char *msg;
};

/* The checker goes on after an error: cel-go reports every issue. */
struct checker {
	struct parser *p;
	unsigned vars;
	json_t *self_schema;
	const sk_cel_decls *decls;
	int uses_old_self;
	struct issue *issues;
	size_t nissues;
};

static void cfail(struct checker *ck, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cfail(struct checker *ck, size_t pos, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	ck->issues = xrealloc(ck->issues, (ck->nissues + 1) * sizeof(*ck->issues));
	ck->issues[ck->nissues] = (struct issue){pos, ck->nissues, m};
	ck->nissues++;
}

static const char *const type_names[] = {"int",  "uint", "double",    "bool", "string",        "bytes",
					 "list", "map",  "null_type", "type", "optional_type", NULL};

static int in_scope(struct scope *s, const char *name, json_t **sch)
{
	for (; s; s = s->up)
		if (!strcmp(s->name, name)) {
			*sch = s->sch;
			return 1;
		}
	return 0;
}

static struct scope *scope_of(struct scope *s, const char *name)
{
	for (; s; s = s->up)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

char *sk__cel_unescape_field(const char *name)
{
	static const char *const kw[] = {"true",   "false",    "null",  "in",      "as",        "break",
					 "const",  "continue", "else",  "for",     "function",  "if",
					 "import", "let",      "loop",  "package", "namespace", "return",
					 "var",    "void",     "while", NULL};
	size_t n = strlen(name);
	char *out, *o;

	if (n > 4 && !strncmp(name, "__", 2) && !strcmp(name + n - 2, "__"))
		for (int k = 0; kw[k]; k++)
			if (n - 4 == strlen(kw[k]) && !strncmp(name + 2, kw[k], n - 4))
				return xstrdup(kw[k]);
	out = o = xmalloc(n + 1);
	while (*name) {
		static const struct {
			const char *esc, *ch;
		} esc[] = {{"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}};
		int hit = 0;

		for (size_t k = 0; k < sizeof(esc) / sizeof(esc[0]); k++) {
			size_t l = strlen(esc[k].esc);

			if (!strncmp(name, esc[k].esc, l)) {
				size_t cl = strlen(esc[k].ch);

				memcpy(o, esc[k].ch, cl);
				o += cl;
				name += l;
				hit = 1;
				break;
			}
		}
		if (!hit)
			*o++ = *name++;
	}
	*o = 0;
	return out;
}

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }

/* The schema of field name under s for the checker; NULL when unknown or
 * free-form. *undefined set when s declares properties that lack it. */
static json_t *field_schema(json_t *s, const char *name, int *undefined)
{
	cleanup_free char *prop = sk__cel_unescape_field(name);
	json_t *props = jget(s, "properties"), *ap = jget(s, "additionalProperties");

	*undefined = 0;
	if (!json_is_object(s))
		return NULL;
	if (json_is_object(props)) {
		json_t *f = jget(props, prop);

		if (f)
			return f;
		if (json_is_true(jget(s, "x-kubernetes-embedded-resource")) &&
		    (!strcmp(prop, "apiVersion") || !strcmp(prop, "kind") || !strcmp(prop, "metadata")))
			return NULL;
		if (!json_is_true(jget(s, "x-kubernetes-preserve-unknown-fields")))
			*undefined = 1;
		return NULL;
	}
	if (json_is_object(ap))
		return ap;
	return NULL;
}

static json_t *check(struct checker *ck, cel_node *n, struct scope *sc);

static const char *macro_name(const char *name, size_t nargs, int *macro, unsigned vars)
{
	int two = (vars & SK_CEL_LIB_TWO_VAR) != 0;

	if (!strcmp(name, "all") && nargs == 2)
		*macro = M_ALL;
	else if (!strcmp(name, "exists") && nargs == 2)
		*macro = M_EXISTS;
	else if ((!strcmp(name, "exists_one") || !strcmp(name, "existsOne")) && nargs == 2)
		*macro = M_EXISTS_ONE;
	else if (!strcmp(name, "map") && nargs == 2)
		*macro = M_MAP;
	else if (!strcmp(name, "map") && nargs == 3)
		*macro = M_MAP3;
	else if (!strcmp(name, "filter") && nargs == 2)
		*macro = M_FILTER;
	else if (!strcmp(name, "optMap") && nargs == 2)
		*macro = M_OPTMAP;
	else if (!strcmp(name, "optFlatMap") && nargs == 2)
		*macro = M_OPTFLATMAP;
	else if (two && !strcmp(name, "all") && nargs == 3)
		*macro = M_ALL2;
	else if (two && !strcmp(name, "exists") && nargs == 3)
		*macro = M_EXISTS2;
	else if (two && (!strcmp(name, "exists_one") || !strcmp(name, "existsOne")) && nargs == 3)
		*macro = M_EXISTS_ONE2;
	else if (two && !strcmp(name, "transformList") && (nargs == 3 || nargs == 4))
		*macro = M_TRANSFORM_LIST;
	else if (two && !strcmp(name, "transformMap") && (nargs == 3 || nargs == 4))
		*macro = M_TRANSFORM_MAP;
	else if (two && !strcmp(name, "transformMapEntry") && (nargs == 3 || nargs == 4))
		*macro = M_TRANSFORM_MAP_ENTRY;
	else
		return NULL;
	return name;
}

static int two_var(int macro) { return macro >= M_ALL2; }

/* cel-go's extractIterVars: two simple names, distinct, neither the
 * accumulator's. */
static int two_var_names(struct checker *ck, cel_node *n)
{
	cel_node *a = n->args[0], *b = n->args[1];

	if (a->kind != N_IDENT) {
		cfail(ck, a->pos, "argument must be a simple name");
		return -1;
	}
	if (b->kind != N_IDENT) {
		cfail(ck, b->pos, "argument must be a simple name");
		return -1;
	}
	if (!strcmp(a->name, b->name)) {
		cfail(ck, b->pos, "duplicate variable name: %s", a->name);
		return -1;
	}
	if (!strcmp(a->name, "__result__") || !strcmp(b->name, "__result__")) {
		cfail(ck, (!strcmp(a->name, "__result__") ? a : b)->pos,
		      "iteration variable overwrites accumulator variable");
		return -1;
	}
	return 0;
}

/* target.all(i, v, p) and the other two-variable macros: var the index
 * (an int) or key, var2 the value, args the predicate or [filter,]
 * transform; each step runs them once, as the one-variable ones. */
static json_t *check_two_var(struct checker *ck, cel_node *n, struct scope *sc, int macro, json_t *ts)
{
	struct scope first, second;
	json_t *vs = NULL;
	int kty = TY_DYN;

	if (two_var_names(ck, n) < 0)
		return NULL;
	if (json_is_object(ts)) {
		const char *type = json_string_value(jget(ts, "type"));

		if (type && !strcmp(type, "array")) {
			vs = jget(ts, "items");
			kty = TY_INT;
		} else if (type && !strcmp(type, "object")) {
			json_t *ap = jget(ts, "additionalProperties");

			vs = json_is_object(ap) ? ap : NULL;
			kty = TY_STRING;
		}
	}
	n->kind = N_COMPREH;
	n->op = macro;
	n->var = n->args[0]->name;
	n->args[0]->name = NULL;
	n->var2 = n->args[1]->name;
	n->args[1]->name = NULL;
	sk__cel_node_free(n->args[0]);
	sk__cel_node_free(n->args[1]);
	memmove(n->args, n->args + 2, (n->nargs - 2) * sizeof(*n->args));
	n->nargs -= 2;
	first = (struct scope){n->var, NULL, sc, kty};
	second = (struct scope){n->var2, vs, &first, TY_DYN};
	for (size_t i = 0; i < n->nargs; i++)
		check(ck, n->args[i], &second);
	{
		double body = 1;

		for (size_t i = 0; i < n->nargs; i++)
			if (n->args[i]->lb > body)
				body = n->args[i]->lb;
		n->lb = (json_is_object(ts) && kty == TY_INT ? sk_cel_max_items(ts) : 1) * body;
	}
	return NULL;
}

/* target.all(x, p) and the others become N_COMPREH: var x, args the
 * predicate/transform. */
static json_t *check_comprehension(struct checker *ck, cel_node *n, struct scope *sc, int macro)
{
	cel_node *v = n->args[0];
	json_t *ts = check(ck, n->target, sc), *es = NULL;
	struct scope inner;

	if (two_var(macro))
		return check_two_var(ck, n, sc, macro, ts);
	if (v->kind != N_IDENT) {
		cfail(ck, v->pos, "argument must be a simple name");
		return NULL;
	}
	if (json_is_object(ts)) {
		const char *type = json_string_value(jget(ts, "type"));

		if (type && !strcmp(type, "array"))
			es = jget(ts, "items");
	}
	n->kind = N_COMPREH;
	/* a schema object's comprehension runs over its keys, which are strings */
	inner.ty = json_is_object(ts) && n->target->ty == TY_MAP ? TY_STRING : TY_DYN;
	n->op = macro;
	n->var = v->name;
	v->name = NULL;
	sk__cel_node_free(v);
	memmove(n->args, n->args + 1, (n->nargs - 1) * sizeof(*n->args));
	n->nargs--;
	inner = (struct scope){n->var, es, sc, inner.ty};
	for (size_t i = 0; i < n->nargs; i++)
		check(ck, n->args[i], &inner);
	/* every step runs the body once: size times the body's cost */
	{
		double body = 1;

		for (size_t i = 0; i < n->nargs; i++)
			if (n->args[i]->lb > body)
				body = n->args[i]->lb;
		n->lb = (json_is_object(ts) && es ? sk_cel_max_items(ts) : 1) * body;
	}
	return NULL;
}

#define MAX_REQUEST_BYTES 3145728.0

double sk_cel_max_items(json_t *s)
{
	json_t *items = jget(s, "items"), *max = jget(s, "maxItems"), *minl = jget(items, "minLength");
	const char *type = json_string_value(jget(items, "type"));
	double min_size;

	if (json_is_integer(max))
		return (double)json_integer_value(max);
	if (!type || json_is_true(jget(items, "x-kubernetes-int-or-string")))
		return 1;
	if (!strcmp(type, "string"))
		min_size = 2 + (json_is_integer(minl) ? (double)json_integer_value(minl) : 0);
	else if (!strcmp(type, "integer") || !strcmp(type, "number"))
		min_size = 1;
	else if (!strcmp(type, "boolean"))
		min_size = 4;
	else
		return 1;
	/* each item and its comma, within the request's brackets (upstream's estimate) */
	return floor((MAX_REQUEST_BYTES - 2) / (min_size + 1));
}

static json_t *check_call(struct checker *ck, cel_node *n, struct scope *sc)
{
	int macro;

	if (!n->target && !strcmp(n->name, "has")) {
		if (n->nargs != 1 || n->args[0]->kind != N_SELECT || n->args[0]->opt) {
			cfail(ck, n->pos, "invalid argument to has() macro");
			return NULL;
		}
		n->kind = N_HAS;
		check(ck, n->args[0], sc);
		return NULL;
	}
	if (n->target && macro_name(n->name, n->nargs, &macro, ck->vars))
		return check_comprehension(ck, n, sc, macro);
	if (n->target && n->target->kind == N_IDENT) {
		json_t *dummy;
		static const char *const ns[] = {"optional", "sets", "strings", "math", "format", NULL};

		for (int k = 0; ns[k]; k++)
			if (!strcmp(n->target->name, ns[k]) && !in_scope(sc, ns[k], &dummy)) {
				char *q = xasprintf("%s.%s", ns[k], n->name);

				sk__cel_node_free(n->target);
				n->target = NULL;
				free(n->name);
				n->name = q;
				break;
			}
	}
	if (n->target && !sk__cel_known_function(n->name, 1) && sk__cel_authz_function(n->name)) {
		/* declared in every environment (upstream's base one): on another
		 * receiver than authorizer's values no overload matches; an
		 * undeclared authorizer is the one issue cel-go reports */
		size_t before = ck->nissues;

		check(ck, n->target, sc);
		for (size_t i = 0; i < n->nargs; i++)
			check(ck, n->args[i], sc);
		if (!(ck->vars & SK_CEL_VAR_AUTHORIZER) && ck->nissues == before)
			cfail(ck, n->pos, "undeclared reference to '%s' (in container '')", n->name);
		return NULL;
	}
	if (!sk__cel_known_function(n->name, n->target != NULL)) {
		cfail(ck, n->pos, "undeclared reference to '%s' (in container '')", n->name);
		return NULL;
	}
	if (n->target)
		check(ck, n->target, sc);
	for (size_t i = 0; i < n->nargs; i++)
		check(ck, n->args[i], sc);
	return NULL;
}

/* Whether n names the policy's variables (no comprehension variable hides it). */
static int is_variables(struct checker *ck, cel_node *n, struct scope *sc)
{
	json_t *s;

	(void)ck;
	return n->kind == N_IDENT && !strcmp(n->name, "variables") && !in_scope(sc, n->name, &s);
}

static json_t *check_node(struct checker *ck, cel_node *n, struct scope *sc)
{
	json_t *s = NULL;
	int undefined;

	if (!n)
		return NULL;
	switch (n->kind) {
	case N_INT:
		if (n->opt)
			cfail(ck, n->pos, "invalid int literal");
		return NULL;
	case N_IDENT:
		if (in_scope(sc, n->name, &s))
			return s;
		if (!strcmp(n->name, "self") && (ck->vars & SK_CEL_VAR_SELF))
			return ck->self_schema;
		if (!strcmp(n->name, "authorizer") && (ck->vars & SK_CEL_VAR_AUTHORIZER))
			return NULL;
		if ((!strcmp(n->name, "object") || !strcmp(n->name, "oldObject")) && (ck->vars & SK_CEL_VAR_ADMISSION))
			return ck->decls->object_schema;
		if (!strcmp(n->name, "request") && (ck->vars & SK_CEL_VAR_ADMISSION))
			return NULL;
		if ((!strcmp(n->name, "params") || !strcmp(n->name, "namespaceObject") ||
		     !strcmp(n->name, "variables")) &&
		    (ck->vars & SK_CEL_VAR_POLICY))
			return NULL;
		if (!strcmp(n->name, "oldSelf") && (ck->vars & SK_CEL_VAR_OLDSELF)) {
			ck->uses_old_self = 1;
			return ck->self_schema;
		}
		for (int k = 0; type_names[k]; k++)
			if (!strcmp(n->name, type_names[k]))
				return NULL;
		cfail(ck, n->pos, "undeclared reference to '%s' (in container '')", n->name);
		return NULL;
	case N_SELECT:
		if ((ck->vars & SK_CEL_VAR_POLICY) && is_variables(ck, n->args[0], sc)) {
			size_t i;

			check(ck, n->args[0], sc);
			for (i = 0; i < ck->decls->nvariables; i++)
				if (!strcmp(ck->decls->variables[i], n->name))
					break;
			if (i == ck->decls->nvariables) {
				cfail(ck, n->pos, "undefined field '%s'", n->name);
				return NULL;
			}
			return ck->decls->variable_schemas ? ck->decls->variable_schemas[i] : NULL;
		}
		s = check(ck, n->args[0], sc);
		if (!s)
			return NULL;
		s = field_schema(s, n->name, &undefined);
		if (undefined)
			cfail(ck, n->pos, "undefined field '%s'", n->name);
		return s;
	case N_INDEX:
		s = check(ck, n->args[0], sc);
		check(ck, n->args[1], sc);
		if (json_is_object(jget(s, "items")))
			return jget(s, "items");
		if (json_is_object(jget(s, "additionalProperties")))
			return jget(s, "additionalProperties");
		return NULL;
	case N_CALL:
		return check_call(ck, n, sc);
	default:
		for (size_t i = 0; i < n->nargs; i++)
			check(ck, n->args[i], sc);
		return NULL;
	}
}

/* ---- static types ---- */

static int schema_type(json_t *s)
{
	const char *type = json_string_value(jget(s, "type")), *format = json_string_value(jget(s, "format"));

	if (!json_is_object(s) || !type || json_is_true(jget(s, "x-kubernetes-int-or-string")))
		return TY_DYN;
	if (!strcmp(type, "integer"))
		return TY_INT;
	if (!strcmp(type, "number"))
		return TY_DOUBLE;
	if (!strcmp(type, "boolean"))
		return TY_BOOL;
	if (!strcmp(type, "array"))
		return TY_LIST;
	if (!strcmp(type, "object"))
		return TY_MAP;
	if (!strcmp(type, "string")) {
		if (format && (!strcmp(format, "date-time") || !strcmp(format, "date")))
			return TY_TIMESTAMP;
		if (format && !strcmp(format, "duration"))
			return TY_DURATION;
		if (format && !strcmp(format, "byte"))
			return TY_BYTES;
		return TY_STRING;
	}
	return TY_DYN;
}

static const char *ty_name(int t)
{
	static const char *const names[] = {"dyn",
					    "int",
					    "uint",
					    "double",
					    "string",
					    "bool",
					    "bytes",
					    "google.protobuf.Timestamp",
					    "google.protobuf.Duration",
					    "list",
					    "map"};

	return names[t];
}

static int is_scalar(int t) { return t != TY_DYN && t != TY_LIST && t != TY_MAP; }
static int is_numeric(int t) { return t == TY_INT || t == TY_UINT || t == TY_DOUBLE; }

static int no_overload(struct checker *ck, cel_node *n, const char *op, int a, int b)
{
	if (b < 0)
		cfail(ck, n->pos, "found no matching overload for '%s' applied to '(%s)'", op, ty_name(a));
	else
		cfail(ck, n->pos, "found no matching overload for '%s' applied to '(%s, %s)'", op, ty_name(a),
		      ty_name(b));
	return TY_DYN;
}

/* The type of a binary operation on a and b, or an error when cel-go's
 * checker finds no overload (only raised for two known scalar types). */
static int binary_type(struct checker *ck, cel_node *n, int a, int b)
{
	static const char *const ops[] = {[OP_ADD] = "_+_", [OP_SUB] = "_-_", [OP_MUL] = "_*_", [OP_DIV] = "_/_",
					  [OP_MOD] = "_%_", [OP_EQ] = "_==_", [OP_NE] = "_!=_", [OP_LT] = "_<_",
					  [OP_LE] = "_<=_", [OP_GT] = "_>_",  [OP_GE] = "_>=_", [OP_IN] = "@in"};
	int known = is_scalar(a) && is_scalar(b);

	switch (n->op) {
	case OP_EQ:
	case OP_NE:
		return known && a != b ? no_overload(ck, n, ops[n->op], a, b) : TY_BOOL;
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
		if (known && a != b && !(is_numeric(a) && is_numeric(b)))
			return no_overload(ck, n, ops[n->op], a, b);
		return TY_BOOL;
	case OP_IN:
		return is_scalar(b) ? no_overload(ck, n, ops[n->op], a, b) : TY_BOOL;
	default:
		break;
	}
	if (a == TY_DYN || b == TY_DYN)
		return TY_DYN;
	if (n->op == OP_ADD && a == TY_TIMESTAMP && b == TY_DURATION)
		return TY_TIMESTAMP;
	if (n->op == OP_ADD && a == TY_DURATION && b == TY_TIMESTAMP)
		return TY_TIMESTAMP;
	if (n->op == OP_SUB && a == TY_TIMESTAMP && (b == TY_TIMESTAMP || b == TY_DURATION))
		return b == TY_TIMESTAMP ? TY_DURATION : TY_TIMESTAMP;
	if (a == b) {
		if (is_numeric(a) && (n->op != OP_MOD || a != TY_DOUBLE))
			return a;
		if (n->op == OP_ADD && (a == TY_STRING || a == TY_BYTES || a == TY_LIST || a == TY_DURATION))
			return a;
		if (n->op == OP_SUB && a == TY_DURATION)
			return a;
	}
	return known ? no_overload(ck, n, ops[n->op], a, b) : TY_DYN;
}

static int call_type(cel_node *n)
{
	static const char *const bools[] = {"contains",
					    "startsWith",
					    "endsWith",
					    "matches",
					    "isSorted",
					    "hasValue",
					    "isQuantity",
					    "isURL",
					    "isIP",
					    "isCIDR",
					    "isInteger",
					    "isLessThan",
					    "isGreaterThan",
					    "containsIP",
					    "containsCIDR",
					    "isUnspecified",
					    "isLoopback",
					    "isLinkLocalMulticast",
					    "isLinkLocalUnicast",
					    "isGlobalUnicast",
					    "sets.contains",
					    "sets.equivalent",
					    "sets.intersects",
					    "bool",
					    "allowed",
					    "errored",
					    NULL};
	static const char *const strs[] = {"charAt",  "lowerAscii",  "upperAscii", "replace",        "substring",
					   "trim",    "join",        "find",       "strings.quote",  "getScheme",
					   "getHost", "getHostname", "getPort",    "getEscapedPath", "string",
					   "reason",  "error",       NULL};
	static const char *const ints[] = {
		"size",         "indexOf",       "lastIndexOf",     "getFullYear",  "getMonth",
		"getDayOfYear", "getDayOfMonth", "getDate",         "getDayOfWeek", "getHours",
		"getMinutes",   "getSeconds",    "getMilliseconds", "compareTo",    "sign",
		"asInteger",    "prefixLength",  "family",          "int",          NULL};
	static const struct {
		const char *const *names;
		int ty;
	} groups[] = {{bools, TY_BOOL}, {strs, TY_STRING}, {ints, TY_INT}};

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (int k = 0; groups[g].names[k]; k++)
			if (!strcmp(n->name, groups[g].names[k]))
				/* reverse, min, max and the like keep their receiver's type: dyn here */
				return groups[g].ty;
	if (!strcmp(n->name, "split") || !strcmp(n->name, "findAll"))
		return TY_LIST;
	if (!strcmp(n->name, "uint"))
		return TY_UINT;
	if (!strcmp(n->name, "double") || !strcmp(n->name, "asApproximateFloat"))
		return TY_DOUBLE;
	if (!strcmp(n->name, "timestamp"))
		return TY_TIMESTAMP;
	if (!strcmp(n->name, "duration"))
		return TY_DURATION;
	if (!strcmp(n->name, "bytes"))
		return TY_BYTES;
	return TY_DYN;
}

static int arg_ty(cel_node *n, size_t i) { return n->args[i]->ty; }

static int want_bool(struct checker *ck, cel_node *n, const char *op)
{
	for (size_t i = 0; i < n->nargs; i++)
		if (is_scalar(arg_ty(n, i)) && arg_ty(n, i) != TY_BOOL)
			return n->nargs == 1 ? no_overload(ck, n, op, arg_ty(n, 0), -1)
					     : no_overload(ck, n, op, arg_ty(n, 0), arg_ty(n, 1));
	return TY_BOOL;
}

/* The static type of n (its children are typed), s its schema if known. */
static int node_type(struct checker *ck, cel_node *n, json_t *s, struct scope *sc)
{
	switch (n->kind) {
	case N_BOOL:
		return TY_BOOL;
	case N_INT:
		return TY_INT;
	case N_UINT:
		return TY_UINT;
	case N_DOUBLE:
		return TY_DOUBLE;
	case N_STRING:
		return TY_STRING;
	case N_BYTES:
		return TY_BYTES;
	case N_LIST:
		return TY_LIST;
	case N_MAP:
		return TY_MAP;
	case N_IDENT: {
		struct scope *v = scope_of(sc, n->name);

		if (v)
			return v->sch ? schema_type(v->sch) : v->ty;
		/* oldSelf may be an optional (optionalOldSelf): not typed */
		if (!strcmp(n->name, "object") || !strcmp(n->name, "oldObject"))
			return ck->decls->object_schema && (ck->vars & SK_CEL_VAR_ADMISSION) ? TY_MAP : TY_DYN;
		return !strcmp(n->name, "self") ? schema_type(s) : TY_DYN;
	}
	case N_SELECT:
		if ((ck->vars & SK_CEL_VAR_POLICY) && is_variables(ck, n->args[0], sc))
			return n->opt ? TY_DYN : schema_type(s);
		return n->opt || n->args[0]->ty == TY_DYN ? TY_DYN : schema_type(s);
	case N_INDEX:
		return n->opt || n->args[0]->ty == TY_DYN ? TY_DYN : schema_type(s);
	case N_UNARY:
		if (n->op == OP_NOT)
			return want_bool(ck, n, "!_");
		if (arg_ty(n, 0) == TY_INT || arg_ty(n, 0) == TY_DOUBLE || arg_ty(n, 0) == TY_DURATION ||
		    arg_ty(n, 0) == TY_DYN)
			return arg_ty(n, 0);
		return no_overload(ck, n, "-_", arg_ty(n, 0), -1);
	case N_BINARY:
		return binary_type(ck, n, arg_ty(n, 0), arg_ty(n, 1));
	case N_AND:
		return want_bool(ck, n, "_&&_");
	case N_OR:
		return want_bool(ck, n, "_||_");
	case N_COND:
		if (is_scalar(arg_ty(n, 0)) && arg_ty(n, 0) != TY_BOOL)
			return no_overload(ck, n, "_?_:_", arg_ty(n, 0), -1);
		return arg_ty(n, 1) == arg_ty(n, 2) ? arg_ty(n, 1) : TY_DYN;
	case N_HAS:
		return TY_BOOL;
	case N_COMPREH:
		if (n->op == M_OPTMAP || n->op == M_OPTFLATMAP)
			return TY_DYN;
		if (n->op == M_TRANSFORM_LIST)
			return TY_LIST;
		if (n->op == M_TRANSFORM_MAP || n->op == M_TRANSFORM_MAP_ENTRY)
			return TY_MAP;
		return n->op == M_MAP || n->op == M_MAP3 || n->op == M_FILTER ? TY_LIST : TY_BOOL;
	case N_CALL:
		return call_type(n);
	default:
		return TY_DYN;
	}
}

static json_t *check(struct checker *ck, cel_node *n, struct scope *sc)
{
	json_t *s = check_node(ck, n, sc);

	/* a node costs at least what its costliest part does */
	if (n && n->kind != N_COMPREH) {
		if (n->target && n->target->lb > n->lb)
			n->lb = n->target->lb;
		for (size_t i = 0; i < n->nargs; i++)
			if (n->args[i]->lb > n->lb)
				n->lb = n->args[i]->lb;
	}

	if (n)
		n->ty = node_type(ck, n, n->kind == N_IDENT && !strcmp(n->name, "self") ? ck->self_schema : s, sc);
	return s;
}

/* cel-go's issue text: the message, then the line with a caret under the column. */
static char *issue(const char *src, size_t pos, const char *msg)
{
	size_t line = 1, col = 0, start = 0, i, end;
	char *out, *caret;

	for (i = 0; i < pos && src[i]; i++) {
		if (src[i] == '\n') {
			line++;
			col = 0;
			start = i + 1;
		} else if (((unsigned char)src[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	end = start + strcspn(src + start, "\n");
	caret = xmalloc(col + 2);
	memset(caret, '.', col);
	caret[col] = '^';
	caret[col + 1] = 0;
	out = xasprintf("ERROR: <input>:%zu:%zu: %s\n | %.*s\n | %s", line, col + 1, msg, (int)(end - start),
			src + start, caret);
	free(caret);
	return out;
}

static int by_pos(const void *a, const void *b)
{
	const struct issue *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The checker's issues in source order, one after another as cel-go's. */
static char *issues_text(const char *src, struct checker *ck)
{
	char *out = xstrdup("");

	qsort(ck->issues, ck->nissues, sizeof(*ck->issues), by_pos);
	for (size_t i = 0; i < ck->nissues; i++) {
		cleanup_free char *one = issue(src, ck->issues[i].pos, ck->issues[i].msg);
		char *next = xasprintf("%s%s%s", out, i ? "\n" : "", one);

		free(out);
		out = next;
	}
	return out;
}

sk_cel_program *sk_cel_compile(const char *expr_text, unsigned vars, json_t *self_schema, char **err)
{
	sk_cel_decls d = {.self_schema = self_schema};

	return sk_cel_compile_decls(expr_text, vars, &d, err);
}

sk_cel_program *sk_cel_compile_decls(const char *expr_text, unsigned vars, const sk_cel_decls *decls, char **err)
{
	struct parser p = {.src = expr_text, .len = strlen(expr_text)};
	struct checker ck = {.p = &p, .vars = vars, .self_schema = decls->self_schema, .decls = decls};
	json_t *root_schema = NULL;
	sk_cel_program *prog;
	cel_node *root;

	*err = NULL;
	if (p.len > MAX_SOURCE) {
		*err = xasprintf("ERROR: <input>:1:1: expression size %zu exceeds the limit of %d", p.len, MAX_SOURCE);
		return NULL;
	}
	next(&p);
	root = expr(&p);
	if (!p.err && p.t != T_EOF)
		syntax(&p, "<EOF>");
	if (!p.err)
		root_schema = check(&ck, root, NULL);
	if (p.err || ck.nissues) {
		*err = p.err ? issue(expr_text, p.err_pos, p.err) : issues_text(expr_text, &ck);
		free(p.err);
		for (size_t i = 0; i < ck.nissues; i++)
			free(ck.issues[i].msg);
		free(ck.issues);
		sk__cel_node_free(root);
		return NULL;
	}
	prog = xzalloc(sizeof(*prog));
	prog->root = root;
	prog->source = xstrdup(expr_text);
	prog->uses_old_self = ck.uses_old_self;
	prog->cost_lb = root->lb > 1 ? root->lb : 1;
	prog->result_schema = root_schema;
	if (!root_schema) {
		static const char *const json_types[] = {
			[TY_INT] = "integer",      [TY_UINT] = "integer",    [TY_DOUBLE] = "number",
			[TY_STRING] = "string",    [TY_BOOL] = "boolean",    [TY_BYTES] = "string",
			[TY_TIMESTAMP] = "string", [TY_DURATION] = "string", [TY_LIST] = "array",
			[TY_MAP] = "object"};

		if (root->ty > TY_DYN && root->ty <= TY_MAP && json_types[root->ty]) {
			prog->owned_schema = json_pack("{s:s}", "type", json_types[root->ty]);
			if (root->ty == TY_TIMESTAMP || root->ty == TY_DURATION || root->ty == TY_BYTES)
				json_object_set_new(prog->owned_schema, "format",
						    json_string(root->ty == TY_TIMESTAMP  ? "date-time"
								: root->ty == TY_DURATION ? "duration"
											  : "byte"));
			prog->result_schema = prog->owned_schema;
		}
	}
	return prog;
}

json_t *sk_cel_result_schema(const sk_cel_program *p) { return p->result_schema; }

void sk_cel_program_free(sk_cel_program *p)
{
	if (!p)
		return;
	sk__cel_node_free(p->root);
	json_decref(p->owned_schema);
	free(p->source);
	free(p);
}

int sk_cel_uses_old_self(const sk_cel_program *p) { return p->uses_old_self; }

double sk_cel_cost_lower_bound(const sk_cel_program *p) { return p->cost_lb; }

const char *sk_cel_result_type(const sk_cel_program *p) { return ty_name(p->root->ty); }
