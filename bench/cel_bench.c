/* The CPU cost of CEL on a custom object's write path, without HTTP or the
 * store: the six rules of bench/crd_wrk.sh's Gauge evaluated over its
 * object (sk_crschema_validate_rules, as every create runs them), and the
 * cost of compiling a rule (done once per rule text: programs are cached).
 *   build/bench/cel_bench [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api/cel/cel.h"
#include "api/crschema.h"
#include "util/util.h"

static const char schema_text[] =
	"{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"size(self.metadata.name) <= 63\"}],"
	"\"properties\":{\"spec\":{\"type\":\"object\",\"x-kubernetes-validations\":["
	"{\"rule\":\"self.replicas >= 0 && self.replicas <= 1000\"},{\"rule\":\"!has(self.note) || size(self.note) < 100\"},"
	"{\"rule\":\"self.size.matches('^[a-z]+$')\"}],"
	"\"properties\":{\"size\":{\"type\":\"string\",\"x-kubernetes-validations\":["
	"{\"rule\":\"self in ['small', 'medium', 'large']\"},{\"rule\":\"self == oldSelf\"}]},"
	"\"replicas\":{\"type\":\"integer\"},\"note\":{\"type\":\"string\"}}}}}";

static const char obj_text[] =
	"{\"apiVersion\":\"bench.skiff.dev/v1\",\"kind\":\"Gauge\",\"metadata\":{\"name\":\"r1-1-1\","
	"\"namespace\":\"default\",\"uid\":\"0b5e7f52-1a4e-4a43-9d59-3a1f3c1b8a11\"},"
	"\"spec\":{\"size\":\"large\",\"replicas\":3,\"note\":\"a note of some forty characters, padded\"}}";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	json_t *schema = json_loads(schema_text, 0, NULL), *obj = json_loads(obj_text, 0, NULL);
	double t0, t1;
	char *err = NULL;

	if (!schema || !obj)
		return 1;
	t0 = now();
	for (long i = 0; i < n; i++) {
		json_t *causes = json_array();

		sk_crschema_validate_rules(schema, obj, NULL, causes);
		if (json_array_size(causes))
			return 2;
		json_decref(causes);
	}
	t1 = now();
	printf("6 rules over one object (create): %.2f us per object (%ld objects, %.0f objects/s on one core)\n",
	       (t1 - t0) / (double)n * 1e6, n, (double)n / (t1 - t0));
	t0 = now();
	for (long i = 0; i < n / 10; i++)
		sk_cel_program_free(
			sk_cel_compile("!has(self.note) || size(self.note) < 100", SK_CEL_VAR_SELF, schema, &err));
	t1 = now();
	printf("compiling a rule: %.2f us\n", (t1 - t0) / (double)(n / 10) * 1e6);
	json_decref(schema);
	json_decref(obj);
	return 0;
}
