/* CEL: arbitrary text compiled against a fixed schema and evaluated over a
 * fixed object (with an old one, as a transition rule is). Neither may
 * crash, and the cost limit must stop every evaluation. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/cel/cel.h"

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
	p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, schema, &err);
	free(err);
	if (!p)
		p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF, NULL, &err), free(err);
	if (p) {
		int64_t budget = SK_CEL_RUNTIME_BUDGET;
		sk_cel_vars vars = {.self = self, .self_schema = schema, .old_self = old, .old_schema = schema,
				    .budget = &budget};
		sk_cel_result r;

		sk_cel_eval(p, &vars, &r);
		sk_cel_result_release(&r);
		vars.optional_old_self = 1;
		sk_cel_eval(p, &vars, &r);
		sk_cel_result_release(&r);
		sk_cel_program_free(p);
	}
	free(expr);
	return 0;
}
