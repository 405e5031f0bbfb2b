/* CEL: arbitrary text compiled against a fixed schema and evaluated over a
 * fixed object (with an old one, as a transition rule is); input that is a
 * JSON object is also validated as a custom object against a schema with
 * rules (the write path's walk, with the fixed object as its old value).
 * The text is also compiled with the two-variable comprehensions and the
 * authz library (a fixed authorizer and request resource). Nothing may
 * crash, and the cost limit must stop every evaluation. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/cel/cel.h"
#include "api/crschema.h"

static const char schema_text[] =
	"{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"},"
	"\"r\":{\"type\":\"number\"},\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
	"\"d\":{\"type\":\"string\",\"format\":\"duration\"},\"p\":{\"x-kubernetes-int-or-string\":true},"
	"\"l\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
	"\"s\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}},"
	"\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
	"\"o\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}}},"
	"\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}";

static const char self_text[] =
	"{\"name\":\"web\",\"n\":3,\"r\":0.5,\"when\":\"2024-02-29T12:30:45Z\",\"d\":\"1h\",\"p\":\"80%\","
	"\"l\":[1,2,3,4,5,6,7,8,9,10],\"s\":[\"a\",\"b\"],\"m\":{\"k\":\"v\",\"x\":\"\"},\"o\":{\"a\":\"z\"},"
	"\"free\":{\"x\":[1,{\"y\":null}],\"z\":1.5}}";

static const char rules_text[] =
	"{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"!has(self.n) || self.n < 10\"},"
	"{\"rule\":\"self == oldSelf\",\"fieldPath\":\".name\",\"reason\":\"FieldValueForbidden\"}],"
	"\"properties\":{\"name\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"self.matches('^[a-z]+$"
	"')\","
	"\"messageExpression\":\"'bad name ' + self\"}]},\"n\":{\"type\":\"integer\"},"
	"\"l\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"k\"],"
	"\"items\":{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"self.v >= oldSelf.v\"}],"
	"\"properties\":{\"k\":{\"type\":\"string\"},\"v\":{\"type\":\"integer\"}}}},"
	"\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\",\"x-kubernetes-validations\":["
	"{\"rule\":\"self.size() < 5\"}]}},"
	"\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true,"
	"\"x-kubernetes-validations\":[{\"rule\":\"!has(self.x) || self.x == 1\"}]}}}";

static void validate_object(const uint8_t *data, size_t size, json_t *old)
{
	static json_t *rules;
	json_t *obj = json_loadb((const char *)data, size, 0, NULL), *causes;

	if (!rules)
		rules = json_loads(rules_text, 0, NULL);
	if (!json_is_object(obj)) {
		json_decref(obj);
		return;
	}
	causes = json_array();
	sk_crschema_validate_rules(rules, obj, NULL, causes);
	sk_crschema_validate_rules(rules, obj, old, causes);
	json_decref(causes);
	json_decref(obj);
}

static enum sk_cel_authz_decision authorize(void *ud, const sk_cel_authz_check *k, char **reason, char **error)
{
	(void)ud;
	if (k->resource_request && !strcmp(k->resource, "secrets")) {
		*reason = strdup("denied");
		return SK_CEL_AUTHZ_DENY;
	}
	if (k->resource_request && !strcmp(k->verb, "err")) {
		*error = strdup("failed");
		return SK_CEL_AUTHZ_NO_OPINION;
	}
	return k->sa_name ? SK_CEL_AUTHZ_NO_OPINION : SK_CEL_AUTHZ_ALLOW;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *schema, *self, *old;
	char *expr = malloc(size + 1), *err = NULL;
	sk_cel_program *p;

	if (!schema) {
		schema = json_loads(schema_text, 0, NULL);
		self = json_loads(self_text, 0, NULL);
		old = json_loads("{\"name\":\"old\",\"n\":1,\"l\":[],\"o\":{\"b\":2}}", 0, NULL);
	}
	memcpy(expr, data, size);
	expr[size] = '\0';
	if (size && data[0] == '{')
		validate_object(data, size, self);
	p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, schema, &err);
	free(err);
	if (!p)
		p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, NULL, &err), free(err);
	if (p) {
		int64_t budget = SK_CEL_RUNTIME_BUDGET;
		sk_cel_vars vars = {
			.self = self, .self_schema = schema, .old_self = old, .old_schema = schema, .budget = &budget};
		sk_cel_result r;

		sk_cel_eval(p, &vars, &r);
		sk_cel_result_release(&r);
		vars.optional_old_self = 1;
		sk_cel_eval(p, &vars, &r);
		sk_cel_result_release(&r);
		sk_cel_program_free(p);
	}
	p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_AUTHORIZER | SK_CEL_LIB_TWO_VAR, schema, &err);
	free(err);
	if (p) {
		static const sk_cel_authz_check request = {
			.group = "apps", .resource = "deployments", .subresource = "", .ns = "ns", .name = "d"};
		int64_t budget = SK_CEL_RUNTIME_BUDGET;
		sk_cel_vars vars = {.self = self,
				    .self_schema = schema,
				    .budget = &budget,
				    .authorize = authorize,
				    .request = &request};
		sk_cel_result r;

		sk_cel_eval(p, &vars, &r);
		sk_cel_result_release(&r);
		sk_cel_program_free(p);
	}
	free(expr);
	return 0;
}
