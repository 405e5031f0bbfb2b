/* Private to the CEL module: the AST, values and the evaluation context. */
#ifndef SK_API_CEL_INT_H
#define SK_API_CEL_INT_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "api/cel/cel.h"

/* ---- AST ---- */

enum cel_node_kind {
	N_NULL,
	N_BOOL,
	N_INT,
	N_UINT,
	N_DOUBLE,
	N_STRING,
	N_BYTES,
	N_IDENT,   /* name */
	N_SELECT,  /* a.name; opt: a.?name */
	N_INDEX,   /* a[b]; opt: a[?b] */
	N_CALL,    /* name(args), or target.name(args) when target */
	N_LIST,    /* [args]; optional elements flagged in opts */
	N_MAP,     /* {args[2i]: args[2i+1]}; opts per entry */
	N_UNARY,   /* op ('!', '-') args[0] */
	N_BINARY,  /* op args[0] args[1] */
	N_AND,     /* args[0] && args[1] */
	N_OR,      /* args[0] || args[1] */
	N_COND,    /* args[0] ? args[1] : args[2] */
	N_HAS,     /* has(args[0]) where args[0] is an N_SELECT */
	N_COMPREH, /* macro over target: var (and var2), args (see macro) */
};

enum cel_op {
	OP_NONE,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_IN,
	OP_NOT,
	OP_NEG,
};

enum cel_macro {
	M_ALL,
	M_EXISTS,
	M_EXISTS_ONE,
	M_MAP,
	M_MAP3,
	M_FILTER,
	M_OPTMAP,
	M_OPTFLATMAP,
	/* two variables (var, var2): index or key, and value; the transforms
	 * take [filter,] transform in args */
	M_ALL2,
	M_EXISTS2,
	M_EXISTS_ONE2,
	M_TRANSFORM_LIST,
	M_TRANSFORM_MAP,
	M_TRANSFORM_MAP_ENTRY,
};

/* What the checker knows of an expression's type; TY_DYN: nothing. */
enum cel_static_type {
	TY_DYN,
	TY_INT,
	TY_UINT,
	TY_DOUBLE,
	TY_STRING,
	TY_BOOL,
	TY_BYTES,
	TY_TIMESTAMP,
	TY_DURATION,
	TY_LIST,
	TY_MAP,
};

typedef struct cel_node cel_node;
struct cel_node {
	enum cel_node_kind kind;
	int op; /* enum cel_op, or enum cel_macro for N_COMPREH */
	int opt;
	size_t pos; /* offset in the source */
	int height; /* of the subtree: bounded so that walks over it cannot exhaust a stack */
	int ty;     /* the checker's static type (enum cel_static_type) */
	double lb;  /* the checker's lower bound of the evaluation cost */
	char *name;
	cel_node *target;
	cel_node **args;
	size_t nargs;
	unsigned char *opts; /* N_LIST/N_MAP: which entries are optional */
	int64_t i;
	uint64_t u;
	double d;
	char *s; /* N_STRING/N_BYTES: bytes, n long */
	size_t n;
	char *var, *var2; /* N_COMPREH */
};

struct sk_cel_program {
	cel_node *root;
	char *source;
	int uses_old_self;
	double cost_lb;
	json_t *result_schema; /* borrowed, or owned_schema */
	json_t *owned_schema;
};

void sk__cel_node_free(cel_node *n);

/* ---- values ---- */

enum cel_type {
	V_NULL,
	V_BOOL,
	V_INT,
	V_UINT,
	V_DOUBLE,
	V_STRING,
	V_BYTES,
	V_LIST,
	V_MAP,
	V_TIMESTAMP,
	V_DURATION,
	V_TYPE,
	V_OPTIONAL,
	V_ERROR,
	V_QUANTITY,
	V_URL,
	V_IP,
	V_CIDR,
	V_FORMAT, /* a named format of the format library: its name in s */
	V_AUTHZ,  /* the authz library's Authorizer, checks and Decision (az) */
};

enum cel_authz_kind { AZ_AUTHORIZER, AZ_PATH, AZ_GROUP, AZ_RESOURCE, AZ_DECISION };

/* An authz value: each builder call makes a new one (values are immutable). */
struct cel_authz {
	enum cel_authz_kind kind;
	sk_cel_authz_check chk; /* strings in the arena */
	enum sk_cel_authz_decision decision;
	const char *reason, *error; /* decision; error NULL: none */
};

typedef struct cval cval;
struct cval {
	enum cel_type t;
	union {
		int b;
		int64_t i; /* int; duration in ns */
		uint64_t u;
		double d;
		struct {
			const char *p; /* string, bytes, type name, error, url, quantity text */
			size_t n;
			int64_t milli; /* quantity in thousandths */
		} s;
		struct {
			cval **v; /* materialized, or NULL with j: a JSON array of items sch */
			size_t n;
			json_t *j, *sch;
		} l;
		struct {
			cval **k, **v; /* materialized, or NULL with j: a JSON object of schema sch */
			size_t n;
			json_t *j, *sch;
		} m;
		struct {
			int64_t sec;
			int32_t nsec;
		} ts;
		cval *opt; /* NULL: optional.none() */
		struct cel_authz *az;
		struct {
			unsigned char a[16];
			int fam;    /* 4 or 6 */
			int prefix; /* cidr */
		} ip;
	};
};

/* ---- evaluation ---- */

struct cel_arena;

typedef struct cel_env cel_env;
struct cel_env {
	const char *name;
	cval *v;
	cel_env *up;
};

typedef struct cel_ctx {
	struct cel_arena *arena;
	size_t used; /* bytes */
	int64_t cost, limit;
	jmp_buf out; /* cost or memory exhausted */
	int depth;
	sk_cel_authorize_fn authorize; /* the authz library's checks */
	void *authorize_ud;
} cel_ctx;

void *sk__cel_alloc(cel_ctx *c, size_t n);
void sk__cel_charge(cel_ctx *c, int64_t units);
cval *sk__cel_new(cel_ctx *c, enum cel_type t);
cval *sk__cel_err(cel_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cval *sk__cel_bool(cel_ctx *c, int b);
cval *sk__cel_int(cel_ctx *c, int64_t i);
cval *sk__cel_uint(cel_ctx *c, uint64_t u);
cval *sk__cel_double(cel_ctx *c, double d);
cval *sk__cel_str(cel_ctx *c, const char *p, size_t n); /* copies */
cval *sk__cel_bytes(cel_ctx *c, const char *p, size_t n);
cval *sk__cel_type(cel_ctx *c, const char *name);
cval *sk__cel_list(cel_ctx *c, size_t n);
cval *sk__cel_opt(cel_ctx *c, cval *v);
cval *sk__cel_from_json(cel_ctx *c, json_t *j, json_t *sch);
cval *sk__cel_no_overload(cel_ctx *c, const char *fn);

size_t sk__cel_len(const cval *v); /* list or map entries */
cval *sk__cel_list_at(cel_ctx *c, cval *l, size_t i);
cval *sk__cel_map_key(cel_ctx *c, cval *m, size_t i);
cval *sk__cel_map_val(cel_ctx *c, cval *m, size_t i);
/* The value of key in map m, or NULL. */
cval *sk__cel_map_get(cel_ctx *c, cval *m, cval *key);
/* CEL's heterogeneous equality; -1 when the operands cannot be compared. */
int sk__cel_equal(cel_ctx *c, cval *a, cval *b);
/* <0, 0, >0, or -2 when a and b do not order. */
int sk__cel_compare(cel_ctx *c, cval *a, cval *b);
const char *sk__cel_type_name(const cval *v);
/* v in CEL syntax (1, 2u, "s", [1, 2], {"k": 1}) into the arena. */
char *sk__cel_repr(cel_ctx *c, cval *v);

/* The functions (cel-lib.c): whether name is one (member: target.name()). */
int sk__cel_known_function(const char *name, int member);
cval *sk__cel_call(cel_ctx *c, const char *name, cval *target, cval **args, size_t n);
/* Whether name is one of the authz library's member functions (known
 * where the authorizer variable is: elsewhere no value has them, and the
 * checker refuses them as cel-go's refuses them on other receivers). */
int sk__cel_authz_function(const char *name);
/* The authz library (cel-authz.c): a member function of an authz value. */
cval *sk__cel_authz_call(cel_ctx *c, const char *fn, cval *t, cval **a, size_t n);
/* The authorizer variable (request NULL) or its requestResource. */
cval *sk__cel_authz_var(cel_ctx *c, const sk_cel_authz_check *request);
const char *sk__cel_authz_type_name(const cval *v);

/* a op b for the binary operators (enum cel_op). */
cval *sk__cel_binary(cel_ctx *c, int op, cval *a, cval *b);
/* The property a CEL identifier names (Kubernetes escapes property names
 * that are no CEL identifiers: __dash__, __dot__, __slash__,
 * __underscores__, and __{keyword}__). Caller frees. */
char *sk__cel_unescape_field(const char *name);
/* Go's FormatFloat(d, 'g', -1), cel-go's durations ("90s") and RFC 3339
 * timestamps in UTC, into buf. */
void sk__cel_fmt_double(double d, char *buf, size_t n);
void sk__cel_fmt_duration(int64_t ns, char *buf, size_t n);
void sk__cel_fmt_timestamp(int64_t sec, int32_t nsec, char *buf, size_t n);
/* Timestamps and durations in their string forms (RFC 3339, "1h2m3s"). */
int sk__cel_parse_timestamp(const char *s, int64_t *sec, int32_t *nsec);
int sk__cel_parse_duration(const char *s, int64_t *ns);

#endif
