/* CEL, the Common Expression Language (github.com/google/cel-spec), as
 * Kubernetes uses it in the x-kubernetes-validations rules of
 * CustomResourceDefinitions: a parser to an AST and an evaluator over
 * jansson values typed by their OpenAPI schema, with the standard functions
 * and Kubernetes' libraries (docs/ARCHITECTURE.md says which). */
#ifndef SK_API_CEL_H
#define SK_API_CEL_H

#include <stdint.h>

#include <jansson.h>

typedef struct sk_cel_program sk_cel_program;

/* Variables a program may name besides its comprehension variables. */
#define SK_CEL_VAR_SELF 1u
#define SK_CEL_VAR_OLDSELF 2u
/* authorizer and authorizer.requestResource (upstream's authz library:
 * ValidatingAdmissionPolicy and matchConditions; never CRD rules). */
#define SK_CEL_VAR_AUTHORIZER 4u
/* object, oldObject and request (dynamically typed): the variables of
 * admission webhooks' matchConditions. */
#define SK_CEL_VAR_ADMISSION 8u
/* params, namespaceObject and variables.<name> (ValidatingAdmissionPolicy's
 * expressions, with SK_CEL_VAR_ADMISSION), all dynamically typed. */
#define SK_CEL_VAR_POLICY 16u
/* Libraries past Kubernetes 1.31's environment: the two-variable
 * comprehensions (cel-go's ext.TwoVarComprehensions, introduced in 1.32's
 * environment: kube-apiserver 1.32 compiles new expressions at its
 * compatibility version 1.31 without it, stored ones with it). */
#define SK_CEL_LIB_TWO_VAR 0x100u

/* Parses and checks expr (names declared in vars; when self_schema is
 * given, field selections on self and oldSelf are checked against it as
 * cel-go's type checker does). NULL on error with *err set to cel-go's
 * issue text ("ERROR: <input>:1:7: ...\n | expr\n | ......^"); caller
 * frees *err, and the program with sk_cel_program_free. */
sk_cel_program *sk_cel_compile(const char *expr, unsigned vars, json_t *self_schema, char **err);

/* What sk_cel_compile_decls declares besides vars' names. */
typedef struct sk_cel_decls {
	json_t *self_schema;
	/* object and oldObject: field selections checked against this
	 * structural schema (a policy's type check); NULL: dynamic */
	json_t *object_schema;
	/* SK_CEL_VAR_POLICY: the names variables.<name> may select, and
	 * optionally the schema of each (sk_cel_result_schema of its
	 * expression; NULL entries or array: dynamic) */
	const char *const *variables;
	size_t nvariables;
	json_t *const *variable_schemas;
} sk_cel_decls;

sk_cel_program *sk_cel_compile_decls(const char *expr, unsigned vars, const sk_cel_decls *decls, char **err);
void sk_cel_program_free(sk_cel_program *p);
/* Whether p names oldSelf (a transition rule). */
int sk_cel_uses_old_self(const sk_cel_program *p);
/* A lower bound of the cost of one evaluation of p, from the sizes of the
 * lists its comprehensions run over (sk_cel_max_items). */
double sk_cel_cost_lower_bound(const sk_cel_program *p);
/* The most items a list of schema s may hold for the cost estimate: its
 * maxItems, else as many of its smallest scalar items as a 3 MiB request
 * holds; 1 when the items' size cannot be bounded below (objects). */
double sk_cel_max_items(json_t *s);

/* The structural schema of p's result: the one its value is selected from
 * (borrowed from the schemas p was compiled with: valid while they are),
 * else one made of its checked type ({"type": "integer"}…, owned by p);
 * NULL when dynamic. */
json_t *sk_cel_result_schema(const sk_cel_program *p);

/* The checker's type of p's result ("bool", "string", "int", …; "dyn" when
 * it cannot tell). */
const char *sk_cel_result_type(const sk_cel_program *p);

enum sk_cel_kind {
	SK_CEL_BOOL,   /* b */
	SK_CEL_STRING, /* text */
	SK_CEL_OTHER,  /* text: the value in CEL syntax */
	SK_CEL_ERROR,  /* text: the evaluation error ("no such key: x") */
	SK_CEL_COST,   /* the cost budget ran out */
};

typedef struct sk_cel_result {
	enum sk_cel_kind kind;
	int b;
	char *text; /* caller frees (sk_cel_result_release) */
} sk_cel_result;

/* One authorization check of the authz library: a resource check
 * (group, resource, subresource, namespace, name and the selectors' text,
 * "" when unset) or a non-resource one (path), for the request's user or,
 * after serviceAccount(ns, name), that service account. */
typedef struct sk_cel_authz_check {
	const char *sa_namespace, *sa_name; /* NULL: the request's user */
	int resource_request;
	const char *path;
	const char *group, *resource, *subresource, *ns, *name;
	const char *field_selector, *label_selector;
	const char *verb;
} sk_cel_authz_check;

enum sk_cel_authz_decision { SK_CEL_AUTHZ_NO_OPINION, SK_CEL_AUTHZ_ALLOW, SK_CEL_AUTHZ_DENY };

/* The authorizer behind the authorizer variable: the decision, and
 * optionally a reason and an error (malloc'd; the evaluator frees them). */
typedef enum sk_cel_authz_decision (*sk_cel_authorize_fn)(void *ud, const sk_cel_authz_check *chk, char **reason,
							  char **error);

typedef struct sk_cel_vars {
	json_t *self, *self_schema;
	json_t *old_self, *old_schema; /* old_self NULL: none */
	int optional_old_self;         /* oldSelf is an optional (optionalOldSelf) */
	int64_t *budget;               /* remaining cost units, decremented; NULL: no limit */
	/* SK_CEL_VAR_AUTHORIZER: authorize NULL leaves authorizer unbound; the
	 * request's resource (authorizer.requestResource) when request is set */
	sk_cel_authorize_fn authorize;
	void *authorize_ud;
	const sk_cel_authz_check *request;
	/* SK_CEL_VAR_ADMISSION: object, oldObject, request (NULL: null) */
	json_t *adm_object, *adm_old_object, *adm_request;
	/* SK_CEL_VAR_POLICY: params and namespaceObject (NULL: null), and the
	 * variables: variables.<names[i]> is progs[i]'s value, evaluated when
	 * first selected (once per sk_cel_eval), its error only then */
	json_t *adm_params, *adm_namespace;
	const sk_cel_program *const *var_progs;
	const char *const *var_names;
	size_t nvars;
} sk_cel_vars;

/* Upstream's limits: the cost of one expression and of one request's rules. */
#define SK_CEL_PER_CALL_LIMIT 1000000
/* An authorization check's fixed cost: two per expression. */
#define SK_CEL_AUTHZ_CHECK_COST 350000
#define SK_CEL_RUNTIME_BUDGET 10000000

/* Evaluates p; returns out->kind. */
enum sk_cel_kind sk_cel_eval(const sk_cel_program *p, const sk_cel_vars *vars, sk_cel_result *out);
void sk_cel_result_release(sk_cel_result *r);

#endif
