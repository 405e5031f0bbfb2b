#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/cel/cel.h"
#include "api/crschema.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, JSON_DECODE_ANY, &e);

	if (!j)
		fail_msg("bad json: %s: %s", s, e.text);
	return j;
}

static const char schema_text[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"name\":{\"type\":\"string\"},"
	"\"replicas\":{\"type\":\"integer\"},"
	"\"ratio\":{\"type\":\"number\"},"
	"\"port\":{\"x-kubernetes-int-or-string\":true},"
	"\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"set\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}},"
	"\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
	"\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
	"\"timeout\":{\"type\":\"string\",\"format\":\"duration\"},"
	"\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
	"\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}}}},"
	"\"dash-name\":{\"type\":\"string\"},"
	"\"data\":{\"type\":\"string\",\"format\":\"byte\"},"
	"\"workers\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],"
	"\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"gpus\":{\"type\":\"integer\"}}}}"
	"}}";

static const char self_text[] =
	"{\"name\":\"web\",\"replicas\":3,\"ratio\":0.5,\"port\":\"http\",\"tags\":[\"a\",\"b\",\"c\"],"
	"\"set\":[\"x\",\"y\"],\"labels\":{\"app\":\"web\",\"tier\":\"fe\"},\"when\":\"2024-02-29T12:30:45.5Z\","
	"\"timeout\":\"1h30m\",\"free\":{\"n\":1,\"d\":1.5,\"l\":[1,2]},"
	"\"items\":[{\"a\":\"x\",\"b\":1},{\"a\":\"y\"}],\"dash-name\":\"d\",\"data\":\"aGVsbG8=\","
	"\"workers\":[{\"name\":\"a\",\"gpus\":1},{\"name\":\"b\",\"gpus\":2}]}";

/* What run() compiles and evaluates with besides self and oldSelf: more
 * variables and libraries, and the authorizer. */
static unsigned run_flags;
static sk_cel_authorize_fn run_authorize;
static const sk_cel_authz_check *run_request;

/* The result of expr against self_text as text: "true", a value in CEL
 * syntax, "error: ..." or "compile: ...". */
/* What p evaluates to with vars, as the tables write it; frees p. */
static char *result_text(sk_cel_program *p, const sk_cel_vars *vars)
{
	sk_cel_result r;
	char *out;

	switch (sk_cel_eval(p, vars, &r)) {
	case SK_CEL_BOOL:
		out = xstrdup(r.b ? "true" : "false");
		break;
	case SK_CEL_STRING:
		out = xasprintf("\"%s\"", r.text);
		break;
	case SK_CEL_ERROR:
		out = xasprintf("error: %s", r.text);
		break;
	case SK_CEL_COST:
		out = xstrdup("cost");
		break;
	default:
		out = xstrdup(r.text);
	}
	sk_cel_result_release(&r);
	sk_cel_program_free(p);
	return out;
}

static char *run(const char *expr, const char *old)
{
	json_t *schema = parse(schema_text), *self = parse(self_text), *o = old ? parse(old) : NULL;
	char *err = NULL, *out;
	sk_cel_program *p = sk_cel_compile(expr, SK_CEL_VAR_SELF | SK_CEL_VAR_OLDSELF | run_flags, schema, &err);
	sk_cel_vars vars = {.self = self,
			    .self_schema = schema,
			    .old_self = o,
			    .old_schema = schema,
			    .authorize = run_authorize,
			    .request = run_request};

	if (!p) {
		out = xasprintf("compile: %s", err);
		free(err);
		goto done;
	}
	out = result_text(p, &vars);
done:
	json_decref(schema);
	json_decref(self);
	json_decref(o);
	return out;
}

struct tcase {
	const char *expr, *want;
};

static void table(const struct tcase *t, size_t n, const char *old)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		char *got = run(t[i].expr, old);

		/* errors compare by their start */
		int prefix = !strncmp(t[i].want, "compile:", 8) || !strncmp(t[i].want, "error:", 6);

		if (prefix ? strncmp(got, t[i].want, strlen(t[i].want)) != 0 : strcmp(got, t[i].want) != 0) {
			print_message("%s\n  want %s\n  got  %s\n", t[i].expr, t[i].want, got);
			bad++;
		}
		free(got);
	}
	if (bad)
		fail_msg("%d of %zu cases failed", bad, n);
}

#define TABLE(t, old) table(t, sizeof(t) / sizeof(t[0]), old)

static void test_literals(void **state)
{
	static const struct tcase t[] = {
		{"1", "1"},
		{"-1", "-1"},
		{"0x1F", "31"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"9223372036854775808", "compile: ERROR: <input>:1:1: invalid int literal"},
		{"1u", "1u"},
		{"0xFFu", "255u"},
		{"1.5", "1.5"},
		{"1e3", "1000"},
		{".5", "0.5"},
		{"-2.5e-3", "-0.0025"},
		{"\"a\\nb\"", "\"a\nb\""},
		{"'single'", "\"single\""},
		{"r'a\\nb'", "\"a\\nb\""},
		{"'''tri\"ple'''", "\"tri\"ple\""},
		{"\"\\u00e9\" == '\\xc3\\xa9'", "false"},
		{"\"\\u00e9\" == \"é\"", "true"},
		{"b'abc'", "b\"abc\""},
		{"b'\\xff'", "b\"\\xff\""},
		{"\"\\141\"", "\"a\""},
		{"true", "true"},
		{"null", "null"},
		{"[1, 'a', [true]]", "[1, \"a\", [true]]"},
		{"{'k': 1, 2: 'v'}", "{\"k\": 1, 2: \"v\"}"},
		{"{'k': 1, 'k': 2}", "error: Failed with repeated key"},
		{"[]", "[]"},
		{"{}", "{}"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_arithmetic(void **state)
{
	static const struct tcase t[] = {
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"1 / 0", "error: division by zero"},
		{"1 % 0", "error: modulus by zero"},
		{"9223372036854775807 + 1", "error: integer overflow"},
		{"-9223372036854775808 - 1", "error: integer overflow"},
		{"-9223372036854775808 / -1", "error: integer overflow"},
		{"-(-9223372036854775807 - 1)", "error: integer overflow"},
		{"4611686018427387904 * 2", "error: integer overflow"},
		{"0u - 1u", "error: unsigned integer overflow"},
		{"18446744073709551615u + 1u", "error: unsigned integer overflow"},
		{"3u * 4u", "12u"},
		{"1.0 / 0.0", "+Inf"},
		{"0.1 + 0.2", "0.30000000000000004"},
		{"1 + 1u", "compile: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, uint)'"},
		{"dyn(1) + 1u", "error: no such overload"},
		{"1 + 1.0", "compile: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, double)'"},
		{"'ab' + 'cd'", "\"abcd\""},
		{"b'a' + b'b'", "b\"ab\""},
		{"[1] + [2, 3]", "[1, 2, 3]"},
		{"'a' + 1", "compile: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'"},
		{"'a' + dyn(1)", "error: no such overload"},
		{"--1", "1"},
		{"!true", "false"},
		{"!!true", "true"},
		{"!1", "compile: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'"},
		{"!dyn(1)", "error: no such overload"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_comparisons(void **state)
{
	static const struct tcase t[] = {
		{"1 == 1.0", "compile: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'"},
		{"dyn(1) == 1.0", "true"},
		{"dyn(1) == 1u", "true"},
		{"-1 < 1u", "true"},
		{"2u > 1.5", "true"},
		{"1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", "true"},
		{"'a' < 'b'", "true"},
		{"'abc' < 'ab'", "false"},
		{"b'a' < b'b'", "true"},
		{"false < true", "true"},
		{"dyn(1) == 'a'", "false"},
		{"dyn(1) != 'a'", "true"},
		{"1 < 1.5 && 2u > 1", "true"},
		{"null == null", "true"},
		{"[1, 2] == [1, 2]", "true"},
		{"[1, 2] == [2, 1]", "false"},
		{"[1, [2]] == [1.0, [2u]]", "true"},
		{"{'a': 1} == {'a': 1.0}", "true"},
		{"{'a': 1} == {'b': 1}", "false"},
		{"1 < 'a'", "compile: ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'"},
		{"dyn(1) < 'a'", "error: no such overload"},
		{"0.0/0.0 == 0.0/0.0", "false"},
		{"2 in [1, 2]", "true"},
		{"3 in [1, 2]", "false"},
		{"'a' in {'a': 1}", "true"},
		{"'b' in {'a': 1}", "false"},
		{"type(1) == int", "true"},
		{"type('a') == string", "true"},
		{"type(1u)", "uint"},
		{"type(null)", "null_type"},
		{"type([]) == list && type({}) == map", "true"},
		{"type(type(1))", "type"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_logic(void **state)
{
	static const struct tcase t[] = {
		{"true || (1 / 0 > 0)", "true"},
		{"(1 / 0 > 0) || true", "true"},
		{"false && (1 / 0 > 0)", "false"},
		{"(1 / 0 > 0) && false", "false"},
		{"(1 / 0 > 0) && true", "error: division by zero"},
		{"true && 1", "compile: ERROR: <input>:1:6: found no matching overload for '_&&_' applied to '(bool, int)'"},
		{"true && dyn(1)", "error: no such overload"},
		{"dyn(1) || true", "true"},
		{"true ? 1 : 2", "1"},
		{"false ? 1 : 1 / 0", "error: division by zero"},
		{"1 ? 1 : 2", "compile: ERROR: <input>:1:3: found no matching overload for '_?_:_' applied to '(int)'"},
		{"dyn(1) ? 1 : 2", "error: no such overload"},
		{"self.replicas == '3'", "compile: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'"},
		{"self.ratio == 0", "compile: ERROR: <input>:1:12: found no matching overload for '_==_' applied to '(double, int)'"},
		{"self.port == 80 || self.port == 'http'", "true"},
		{"self.when < timestamp('2030-01-01T00:00:00Z') && self.timeout > duration('1m')", "true"},
		{"self.tags.all(t, t == 1)", "compile: ERROR: <input>:1:20: found no matching overload for '_==_' applied to '(string, int)'"},
		{"self.labels.all(k, k == 1)", "compile: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'"},
		{"size(self.name) + 1 > 0 && self.name.size() == 3", "true"},
		{"true ? 'a' : false ? 'b' : 'c'", "\"a\""},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_self(void **state)
{
	static const struct tcase t[] = {
		{"self.name", "\"web\""},
		{"self.replicas + 1", "4"},
		{"self.ratio * 2.0", "1"},
		{"self.port == 'http'", "true"},
		{"self.tags[1]", "\"b\""},
		{"self.tags[3]", "error: index '3' out of range in list size '3'"},
		{"self.tags[-1]", "error: index '-1' out of range in list size '3'"},
		{"self.tags[1.0]", "\"b\""},
		{"self.tags[1.5]", "error: unsupported index value 1.5 in list"},
		{"self.tags['x']", "error: unsupported index type 'string' in list"},
		{"self.labels.app", "\"web\""},
		{"self.labels['tier']", "\"fe\""},
		{"self.labels.nope", "error: no such key: nope"},
		{"self.labels['nope']", "error: no such key: nope"},
		{"has(self.labels.app)", "true"},
		{"has(self.labels.nope)", "false"},
		{"has(self.items[1].b)", "false"},
		{"self.items[1].b", "error: no such key: b"},
		{"self.nope", "compile: ERROR: <input>:1:5: undefined field 'nope'"},
		{"has(self.nope)", "compile: ERROR: <input>:1:9: undefined field 'nope'"},
		{"self.free.anything", "error: no such key: anything"},
		{"self.free.n + 1", "2"},
		{"self.free.d", "1.5"},
		{"self.dash__dash__name", "\"d\""},
		{"self.when.getFullYear()", "2024"},
		{"self.when.getMonth()", "1"},
		{"self.when.getDate()", "29"},
		{"self.when.getDayOfMonth()", "28"},
		{"self.when.getHours('+02:00')", "14"},
		{"self.when.getMilliseconds()", "500"},
		{"self.when > timestamp('2024-01-01T00:00:00Z')", "true"},
		{"self.timeout == duration('90m')", "true"},
		{"self.timeout.getMinutes()", "90"},
		{"string(self.timeout)", "\"5400s\""},
		{"string(self.when)", "\"2024-02-29T12:30:45.5Z\""},
		{"self.when + duration('12h') > timestamp('2024-03-01T00:00:00Z')", "true"},
		{"timestamp('2024-03-01T00:00:00Z') - timestamp('2024-02-29T00:00:00Z')", "duration(\"86400s\")"},
		{"self.set == ['y', 'x']", "true"},
		{"self.set + ['z', 'x']", "[\"x\", \"y\", \"z\"]"},
		{"self.tags + ['a']", "[\"a\", \"b\", \"c\", \"a\"]"},
		{"self.workers + [{'name': 'b', 'gpus': 9}, {'name': 'c'}]",
		 "[{\"name\": \"a\", \"gpus\": 1}, {\"name\": \"b\", \"gpus\": 9}, {\"name\": \"c\"}]"},
		{"self.data == b'hello'", "true"},
		{"size(self.data)", "5"},
		{"self.data == 'hello'",
		 "compile: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(bytes, string)'"},
		{"self.tags == ['c', 'b', 'a']", "false"},
		{"self.?nope.orValue(1)", "compile: ERROR: <input>:1:5: undefined field 'nope'"},
		{"self.labels.?nope.orValue('none')", "\"none\""},
		{"self.labels.?app.orValue('none')", "\"web\""},
		{"self.labels[?'app'].hasValue()", "true"},
		{"self.tags[?5].hasValue()", "false"},
		{"self.?labels.app.value()", "\"web\""},
		{"optional.of(1).value()", "1"},
		{"optional.none().value()", "error: optional.none() dereference"},
		{"optional.none().or(optional.of(2)).value()", "2"},
		{"[?optional.none(), ?optional.of(1), 2]", "[1, 2]"},
		{"{?'a': optional.none(), 'b': 1}", "{\"b\": 1}"},
		{"optional.ofNonZeroValue('').hasValue()", "false"},
		{"optional.of(42).optMap(y, y + 1).value()", "43"},
		{"optional.none().optMap(y, y + 1).hasValue()", "false"},
		{"{'k': {'s': 'v'}}.?k.optFlatMap(k, k.?s).value()", "\"v\""},
		{"{'k': {}}.?k.optFlatMap(k, k.?s).hasValue()", "false"},
		{"optional.of({'c': {}}).c.missing.or(optional.of(1)).value()", "1"},
		{"type(optional.none()) == optional_type", "true"},
		{"{'key': 1, 1: 21}.exists(k, k != 2)", "true"},
		{"{6: 'six', 7: 'seven'}.exists_one(k, k % 5 == 2)", "true"},
		{"timestamp('2009-02-13T23:31:30Z').getHours('02:00')", "1"},
		{"unknown == 1", "compile: ERROR: <input>:1:1: undeclared reference to 'unknown' (in container '')"},
		{"self.name.frobnicate()",
		 "compile: ERROR: <input>:1:10: undeclared reference to 'frobnicate' (in container '')"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_macros(void **state)
{
	static const struct tcase t[] = {
		{"self.tags.all(t, size(t) == 1)", "true"},
		{"self.tags.exists(t, t == 'b')", "true"},
		{"self.tags.exists_one(t, t != 'b')", "false"},
		{"self.tags.exists_one(t, t == 'b')", "true"},
		{"self.tags.map(t, t + t)", "[\"aa\", \"bb\", \"cc\"]"},
		{"self.tags.map(t, t != 'a', t.upperAscii())", "[\"B\", \"C\"]"},
		{"self.tags.filter(t, t > 'a')", "[\"b\", \"c\"]"},
		{"self.labels.all(k, k.size() > 2)", "true"},
		{"self.labels.map(k, self.labels[k])", "[\"web\", \"fe\"]"},
		{"self.items.all(i, i.a != '')", "true"},
		{"self.items.all(i, i.b > 0)", "error: no such key: b"},
		{"self.items.exists(i, i.b > 0)", "true"},
		{"[1, 0].all(x, 1 / x > 0)", "error: division by zero"},
		{"[0, 1].exists(x, 1 / x > 0)", "true"},
		{"[1, 2, 3].all(x, [4, 5].all(y, x < y))", "true"},
		{"self.items.all(i, i.nope == 1)", "compile: ERROR: <input>:1:20: undefined field 'nope'"},
		{"self.tags.all(1, true)", "compile: ERROR: <input>:1:15: argument must be a simple name"},
		{"has(self)", "compile: ERROR: <input>:1:1: invalid argument to has() macro"},
		{"size(self.tags.filter(i, size(self.tags.filter(j, j == i)) > 1)) == 0", "true"},
		{"size(self.filter(k, k.startsWith('t'))) == 2", "true"},
		{"[has(self.name), has(self.ratio)].filter(x, x == true).size() == 2", "true"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_functions(void **state)
{
	static const struct tcase t[] = {
		{"size('héllo')", "5"},
		{"size(b'h\\xc3\\xa9')", "3"},
		{"'hello'.size()", "5"},
		{"size([1, 2])", "2"},
		{"size({'a': 1})", "1"},
		{"size(1)", "error: no such overload"},
		{"'hello'.contains('ell')", "true"},
		{"'hello'.startsWith('he') && 'hello'.endsWith('lo')", "true"},
		{"'hello'.matches('^h.*o$')", "true"},
		{"'abc123'.matches('\\\\d+')", "true"},
		{"'ABC'.matches('(?i)^abc$')", "true"},
		{"matches('x', '[')", "error: given regex is invalid: ["},
		{"int('42') + int(2.9) + int(-2.9)", "42"},
		{"int('x')", "error: cannot convert 'x' to int"},
		{"int(1e19)", "error: integer overflow"},
		{"uint(-1)", "error: unsigned integer overflow"},
		{"uint('7')", "7u"},
		{"double('1.5')", "1.5"},
		{"double(2)", "2"},
		{"string(1) + string(1u) + string(1.5) + string(true)", "\"111.5true\""},
		{"string(b'abc')", "\"abc\""},
		{"string(b'\\xff')", "error: invalid UTF-8 in bytes, cannot convert to string"},
		{"bytes('abc')", "b\"abc\""},
		{"bool('true') && !bool('0')", "true"},
		{"bool('yes')", "error: type conversion error from 'string' to 'bool'"},
		{"dyn(1) == 1.0", "true"},
		{"timestamp('bad')", "error: cannot parse timestamp 'bad'"},
		{"duration('1h2m3.5s')", "duration(\"3723.5s\")"},
		{"duration('-1.5h') < duration('0')", "true"},
		{"int(timestamp('1970-01-01T00:01:00Z'))", "60"},
		{"timestamp('2024-01-01T01:00:00+01:00') == timestamp('2024-01-01T00:00:00Z')", "true"},
		{"'hello'.charAt(1)", "\"e\""},
		{"'hello'.charAt(5)", "\"\""},
		{"'hello'.charAt(6)", "error: index out of range: 6"},
		{"'hello'.indexOf('l')", "2"},
		{"'hello'.lastIndexOf('l')", "3"},
		{"'hello'.indexOf('l', 3)", "3"},
		{"'hello'.indexOf('z')", "-1"},
		{"'héllo'.indexOf('l')", "2"},
		{"'MiXeD'.lowerAscii() + 'MiXeD'.upperAscii()", "\"mixedMIXED\""},
		{"'a.b.c'.replace('.', '/')", "\"a/b/c\""},
		{"'a.b.c'.replace('.', '/', 1)", "\"a/b.c\""},
		{"'a,b,,c'.split(',')", "[\"a\", \"b\", \"\", \"c\"]"},
		{"'a,b,c'.split(',', 2)", "[\"a\", \"b,c\"]"},
		{"'hello'.substring(1, 3)", "\"el\""},
		{"'hello'.substring(2)", "\"llo\""},
		{"'hello'.substring(3, 1)", "error: invalid substring range. start: 3, end: 1"},
		{"'  x \\t'.trim()", "\"x\""},
		{"'\\u00a0\\u2003x y\\u3000'.trim() == 'x y'", "true"},
		{"strings.quote('a\\b\\v\\\\')", "\"\"a\\b\\v\\\\\"\""},
		{"['a', 'b'].join('-')", "\"a-b\""},
		{"['a', 'b'].join()", "\"ab\""},
		{"'abc'.reverse()", "\"cba\""},
		{"[1, 2, 3].isSorted() && !['b', 'a'].isSorted()", "true"},
		{"[1, 2, 3].sum()", "6"},
		{"[1.5, 2.5].sum()", "4"},
		{"[].sum()", "0"},
		{"[3, 1, 2].min()", "1"},
		{"[3, 1, 2].max()", "3"},
		{"[].min()", "error: min called on empty list"},
		{"[1, 2, 1].indexOf(1)", "0"},
		{"[1, 2, 1].lastIndexOf(1)", "2"},
		{"'abc 123 def 456'.find('[0-9]+')", "\"123\""},
		{"'abc 123 def 456'.findAll('[0-9]+')", "[\"123\", \"456\"]"},
		{"'abc'.find('[0-9]+')", "\"\""},
		{"sets.contains([1, 2, 3], [2, 3])", "true"},
		{"sets.equivalent([1, 2], [2, 1, 1])", "true"},
		{"sets.intersects([1, 2], [3])", "false"},
		{"strings.quote('a\"b')", "\"\"a\\\"b\"\""},
		{"quantity('1Gi').isGreaterThan(quantity('1G'))", "true"},
		{"quantity('500m').asApproximateFloat()", "0.5"},
		{"quantity('2').asInteger()", "2"},
		{"quantity('1').add(quantity('500m')) == quantity('1500m')", "true"},
		{"quantity('1k').compareTo(quantity('1000'))", "0"},
		{"isQuantity('1x')", "false"},
		{"quantity('1x')", "error: quantities must match"},
		{"url('https://example.com:8443/a/b?x=1').getHost()", "\"example.com:8443\""},
		{"url('https://example.com:8443/a/b').getHostname()", "\"example.com\""},
		{"url('https://example.com:8443/a/b').getPort()", "\"8443\""},
		{"url('https://example.com/a/b').getScheme()", "\"https\""},
		{"url('https://example.com/a%20b').getEscapedPath()", "\"/a%20b\""},
		{"url('https://example.com/?a=1&a=2&b=3').getQuery()", "{\"a\": [\"1\", \"2\"], \"b\": [\"3\"]}"},
		{"url('/just/a/path').getEscapedPath()", "\"/just/a/path\""},
		{"isURL('not a url')", "false"},
		{"ip('10.0.0.1').family()", "4"},
		{"ip('::1').isLoopback()", "true"},
		{"ip('fe80::1').isLinkLocalUnicast()", "true"},
		{"ip('8.8.8.8').isGlobalUnicast()", "true"},
		{"isIP('1.2.3')", "false"},
		{"isIP('::ffff:1.2.3.4')", "false"},
		{"cidr('10.0.0.0/8').containsIP('10.1.2.3')", "true"},
		{"cidr('10.0.0.0/8').containsIP(ip('11.1.2.3'))", "false"},
		{"cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "true"},
		{"cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", "true"},
		{"cidr('10.1.2.3/8').ip() == ip('10.1.2.3')", "true"},
		{"cidr('2001:db8::/32').prefixLength()", "32"},
		{"string(cidr('2001:db8::/32'))", "\"2001:db8::/32\""},
		{"isCIDR('10.0.0.0/33')", "false"},
		{"'aa'.matches('(a)\\\\1')", "error: given regex is invalid"},
		{"'a'.matches('a{1001}')", "error: given regex is invalid"},
		{"'a'.matches('(a{100}){100}{100}')", "error: given regex is invalid"},
		{"'ab-c'.matches('^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$')", "true"},
	};

	(void)state;
	TABLE(t, NULL);
}

/* Kubernetes' format library (apiserver cel/library/format.go). */
static void test_format_library(void **state)
{
	static const struct tcase t[] = {
		{"format.dns1123Label().validate('my-name')", "optional.none()"},
		{"format.dns1123Label().validate('My_Name').value()",
		 "[\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
		 "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
		 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]"},
		{"format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()", "false"},
		{"format.dns1123Subdomain().validate('a..b').hasValue()", "true"},
		{"format.dns1035Label().validate('1abc').hasValue()", "true"},
		{"format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()", "false"},
		{"format.qualifiedName().validate('a/b/c').value().size()", "1"},
		{"format.dns1123LabelPrefix().validate('my-prefix-').hasValue()", "false"},
		{"format.dns1123Label().validate('my-prefix-').hasValue()", "true"},
		{"format.dns1123SubdomainPrefix().validate('sub.prefix.-').hasValue()", "false"},
		{"format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()", "false"},
		{"format.labelValue().validate('')", "optional.none()"},
		{"format.labelValue().validate('-x').hasValue()", "true"},
		{"format.uri().validate('http://example.com')", "optional.none()"},
		{"format.uri().validate('not a uri').value()",
		 "[\"parse \\\"not a uri\\\": invalid URI for request\"]"},
		{"format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", "optional.none()"},
		{"format.uuid().validate('123').value()", "[\"does not match the UUID format\"]"},
		{"format.byte().validate('aGVsbG8=')", "optional.none()"},
		{"format.byte().validate('!!').value()", "[\"invalid base64\"]"},
		{"format.date().validate('2021-01-01')", "optional.none()"},
		{"format.date().validate('2021-13-01').value()", "[\"invalid date\"]"},
		{"format.datetime().validate('2021-01-01T00:00:00Z')", "optional.none()"},
		{"format.datetime().validate('yesterday').value()", "[\"invalid datetime\"]"},
		{"format.named('dns1123Label').hasValue()", "true"},
		{"format.named('nope').hasValue()", "false"},
		{"format.named('labelValue').value().validate('ok')", "optional.none()"},
		{"format.named('dns1123Label').value() == format.dns1123Label()", "true"},
		{"type(format.uuid())", "kubernetes.NamedFormat"},
		{"format.uuid().validate(1)", "error: no such overload"},
		{"format.nope()", "compile: ERROR: <input>:1:7: undeclared reference to 'format.nope'"},
	};

	(void)state;
	TABLE(t, NULL);
}

static void test_old_self(void **state)
{
	static const struct tcase t[] = {
		{"self == oldSelf", "false"},
		{"self.name == oldSelf.name", "true"},
		{"self.replicas >= oldSelf.replicas", "true"},
		{"self.tags == oldSelf.tags", "false"},
	};

	(void)state;
	TABLE(t, "{\"name\":\"web\",\"replicas\":2,\"tags\":[\"a\"]}");
}

static void test_syntax_errors(void **state)
{
	static const struct tcase t[] = {
		{"self.name ==",
		 "compile: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', "
		 "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
		 " | self.name ==\n"
		 " | ............^"},
		{"(1 + 2", "compile: ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting ')'"},
		{"1 + 2)", "compile: ERROR: <input>:1:6: Syntax error: extraneous input ')' expecting <EOF>"},
		{"'unterminated", "compile: ERROR: <input>:1:1: Syntax error: token recognition error at: "},
		{"1 # 2", "compile: ERROR: <input>:1:3: Syntax error: token recognition error at: '#'"},
		{"if == 1", "compile: ERROR: <input>:1:1: reserved identifier: if"},
		{"'\\q'", "compile: ERROR: <input>:1:1: Syntax error: invalid escape sequence"},
		{"self.\n  name ==", "compile: ERROR: <input>:2:10: Syntax error: mismatched input '<EOF>'"},
		{"[1, 2", "compile: ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ']'"},
		/* the checker reports every issue, in source order */
		{"self.name == 2 || self.nope",
		 "compile: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(string, int)'\n"
		 " | self.name == 2 || self.nope\n"
		 " | ..........^\n"
		 "ERROR: <input>:1:23: undefined field 'nope'\n"
		 " | self.name == 2 || self.nope\n"
		 " | ......................^"},
	};

	(void)state;
	TABLE(t, NULL);
}

/* Deep expressions are refused when parsed, so that no walk over them
 * (check, evaluation, free) can exhaust a thread's stack. */
static void test_depth_limit(void **state)
{
	char *deep = xmalloc(100000), *err = NULL;
	const char *shapes[] = {"+1", ".a", "[0]", "&&true", NULL};

	(void)state;
	for (int k = 0; shapes[k]; k++) {
		size_t n = 0, l = strlen(shapes[k]);

		deep[n++] = 'x';
		while (n + l < 20000) {
			memcpy(deep + n, shapes[k], l);
			n += l;
		}
		deep[n] = 0;
		assert_null(sk_cel_compile(deep, SK_CEL_VAR_SELF, NULL, &err));
		assert_non_null(strstr(err, "expression recursion limit exceeded: 250"));
		free(err);
	}
	memset(deep, '(', 5000);
	deep[5000] = 0;
	assert_null(sk_cel_compile(deep, SK_CEL_VAR_SELF, NULL, &err));
	assert_non_null(strstr(err, "expression recursion limit exceeded"));
	free(err);
	memset(deep, '-', 5000);
	strcpy(deep + 5000, "1");
	assert_null(sk_cel_compile(deep, SK_CEL_VAR_SELF, NULL, &err));
	free(err);
	free(deep);
}

static void test_cost_estimate(void **state)
{
	json_t *schema = parse("{\"type\":\"object\",\"properties\":{"
			       "\"s\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
			       "\"n\":{\"type\":\"array\",\"maxItems\":10,\"items\":{\"type\":\"integer\"}},"
			       "\"o\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}}}");
	struct {
		const char *expr;
		double lb;
	} t[] = {
		{"self.n.all(x, x > 0)", 10},
		{"self.n.all(x, self.n.exists(y, y == x))", 100},
		{"self.s.all(x, x != '')", 1048575},
		{"self.s.all(x, self.n.all(y, true))", 10485750},
		{"self.o.all(x, true)", 1},
		{"[1, 2].all(x, true)", 1},
		{"size(self.s) > 0 && self.n.exists(x, x == 1)", 10},
	};
	char *err = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sk_cel_program *p = sk_cel_compile(t[i].expr, SK_CEL_VAR_SELF, schema, &err);

		assert_non_null(p);
		if (sk_cel_cost_lower_bound(p) != t[i].lb)
			fail_msg("%s: %g, want %g", t[i].expr, sk_cel_cost_lower_bound(p), t[i].lb);
		sk_cel_program_free(p);
	}
	json_decref(schema);
}

static void test_cost_limit(void **state)
{
	json_t *list = json_array();
	char *err = NULL;
	sk_cel_program *p;
	sk_cel_result r;
	int64_t budget = SK_CEL_RUNTIME_BUDGET;
	sk_cel_vars vars = {.budget = &budget};

	(void)state;
	for (int i = 0; i < 200; i++)
		json_array_append_new(list, json_integer(i));
	vars.self = list;
	p = sk_cel_compile("self.all(a, self.all(b, self.all(c, a + b + c >= 0)))", SK_CEL_VAR_SELF, NULL, &err);
	assert_non_null(p);
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_COST);
	sk_cel_result_release(&r);
	sk_cel_program_free(p);
	/* a small rule fits and takes its share of the budget */
	p = sk_cel_compile("self.all(a, a >= 0)", SK_CEL_VAR_SELF, NULL, &err);
	budget = 100;
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_COST);
	budget = 10000;
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_BOOL);
	assert_true(r.b);
	assert_true(budget < 10000 && budget > 0);
	sk_cel_program_free(p);
	json_decref(list);
}

/* The causes of a CRD schema's rules over obj (old on update), as
 * "field: message" lines. */
static char *rules(const char *schema_json, const char *obj_json, const char *old_json)
{
	json_t *schema = parse(schema_json), *obj = parse(obj_json), *old = old_json ? parse(old_json) : NULL;
	json_t *causes = json_array(), *c;
	char *out = xstrdup("");
	size_t i;

	/* objects as stored: with a name */
	if (!json_object_get(obj, "metadata"))
		json_object_set_new(obj, "metadata", json_pack("{s:s}", "name", "ok"));
	if (old && !json_object_get(old, "metadata"))
		json_object_set_new(old, "metadata", json_pack("{s:s}", "name", "ok"));
	sk_crschema_validate_rules(schema, obj, old, causes);
	json_array_foreach(causes, i, c) {
		char *next = xasprintf("%s%s%s%s: %s", out, i ? "\n" : "",
				       json_is_true(json_object_get(c, "warning")) ? "warning: " : "",
				       json_string_value(json_object_get(c, "field")),
				       json_string_value(json_object_get(c, "message")));

		free(out);
		out = next;
	}
	json_decref(causes);
	json_decref(schema);
	json_decref(obj);
	json_decref(old);
	return out;
}

static void expect_rules(const char *schema, const char *obj, const char *old, const char *want)
{
	char *got = rules(schema, obj, old);

	if (strcmp(got, want))
		fail_msg("want\n%s\ngot\n%s", want, got);
	free(got);
}

static const char crd_schema[] =
	"{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"self.metadata.name != 'bad'\"}],"
	"\"properties\":{\"spec\":{\"type\":\"object\",\"x-kubernetes-validations\":["
	"{\"rule\":\"self.min <= self.max\",\"message\":\" min above max \"},"
	"{\"rule\":\"self.min >= 0\",\"fieldPath\":\".min\",\"reason\":\"FieldValueForbidden\"},"
	"{\"rule\":\"self.max < 100\",\"messageExpression\":\"'max ' + string(self.max) + ' too big'\","
	"\"reason\":\"FieldValueRequired\"},"
	"{\"rule\":\"self.max != 50\",\"messageExpression\":\"''\",\"reason\":\"FieldValueDuplicate\"}],"
	"\"properties\":{\"min\":{\"type\":\"integer\"},\"max\":{\"type\":\"integer\"},"
	"\"name\":{\"type\":\"string\",\"nullable\":true,\"x-kubernetes-validations\":["
	"{\"rule\":\"self == oldSelf\",\"message\":\"immutable\"}]},"
	"\"opt\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"!oldSelf.hasValue() || "
	"oldSelf.value() == self\",\"optionalOldSelf\":true,\"message\":\"set once\"}]},"
	"\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\",\"x-kubernetes-validations\":["
	"{\"rule\":\"self >= oldSelf\",\"message\":\"may not shrink\"},{\"rule\":\"self < 10\"}]}},"
	"\"l\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"k\"],"
	"\"items\":{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":\"self.v >= oldSelf.v\"}],"
	"\"properties\":{\"k\":{\"type\":\"string\"},\"v\":{\"type\":\"integer\"}}}}}}}}";

static void test_crd_rules(void **state)
{
	(void)state;
	expect_rules(crd_schema, "{\"metadata\":{\"name\":\"ok\"},\"spec\":{\"min\":1,\"max\":2}}", NULL, "");
	expect_rules(crd_schema, "{\"metadata\":{\"name\":\"bad\"},\"spec\":{\"min\":3,\"max\":2}}", NULL,
		     "<nil>: Invalid value: \"object\": failed rule: self.metadata.name != 'bad'\n"
		     "spec: Invalid value: \"object\": min above max");
	expect_rules(crd_schema, "{\"spec\":{\"min\":-1,\"max\":200}}", NULL,
		     "spec.min: Forbidden: failed rule: self.min >= 0\n"
		     "spec: Required value: max 200 too big");
	/* an empty messageExpression result falls back to the rule; Duplicate shows the type */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":50}}", NULL, "spec: Duplicate value: \"object\"");
	/* a runtime error */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1}}", NULL,
		     "spec: Invalid value: \"object\": no such key: max evaluating rule: min above max\n"
		     "spec: Invalid value: \"object\": no such key: max evaluating rule: self.max < 100\n"
		     "spec: Invalid value: \"object\": no such key: max evaluating rule: self.max != 50");
	/* transition rules: only with a correlated old value; null values skip their rules */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"name\":\"b\"}}", NULL, "");
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"name\":\"b\"}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"name\":\"a\"}}", "spec.name: Invalid value: \"string\": immutable");
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"name\":null}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"name\":\"a\"}}", "");
	/* optionalOldSelf: the rule runs without an old value too */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"opt\":\"x\"}}", NULL, "");
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"opt\":\"x\"}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"opt\":\"y\"}}", "spec.opt: Invalid value: \"string\": set once");
	/* map values by key, list-map items by their keys */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":2,\"m\":{\"a\":1,\"b\":5}}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"m\":{\"a\":2}}}",
		     "spec.m[a]: Invalid value: \"integer\": may not shrink");
	expect_rules(crd_schema,
		     "{\"spec\":{\"min\":1,\"max\":2,\"l\":[{\"k\":\"y\",\"v\":1},{\"k\":\"x\",\"v\":1},{\"k\":\"z\",\"v\":0}]}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"l\":[{\"k\":\"x\",\"v\":2},{\"k\":\"y\",\"v\":1}]}}",
		     "spec.l[1]: Invalid value: \"object\": failed rule: self.v >= oldSelf.v");
	/* ratcheting: an unchanged failing value passes, a changed one does not */
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":3,\"m\":{\"a\":20}}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"m\":{\"a\":20}}}",
		     "warning: spec.m[a]: Invalid value: \"integer\": failed rule: self < 10");
	expect_rules(crd_schema, "{\"spec\":{\"min\":1,\"max\":3,\"m\":{\"a\":21}}}",
		     "{\"spec\":{\"min\":1,\"max\":2,\"m\":{\"a\":20}}}",
		     "spec.m[a]: Invalid value: \"integer\": failed rule: self < 10");
	/* type errors block the rules */
	{
		json_t *schema = parse(crd_schema), *obj = parse("{\"spec\":{\"min\":\"x\"}}"), *causes = json_array();

		json_array_append_new(causes, json_pack("{s:s}", "message", "spec.min in body must be of type integer"));
		sk_crschema_validate_rules(schema, obj, NULL, causes);
		assert_int_equal(json_array_size(causes), 2);
		assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 1), "message")),
				    "Invalid value: null: some validation rules were not checked because the object "
				    "was invalid; correct the existing errors to complete validation");
		json_decref(causes);
		json_decref(schema);
		json_decref(obj);
	}
}

/* The two-variable comprehensions (cel-go's ext/comprehensions.go
 * examples, over literals and typed self), their macro errors and their
 * absence from the environment without the library. */
static void test_two_var_comprehensions(void **state)
{
	static const struct tcase t[] = {
		{"[1, 2, 3].all(i, j, i < j)", "true"},
		{"{'hello': 'world', 'taco': 'taco'}.all(k, v, k != v)", "false"},
		{"{'h': ['hello', 'hi'], 'j': ['joke', 'jog']}.all(k, vals, vals.all(v, v.startsWith(k)))", "true"},
		{"[1, 2].all(i, v, v / i > 0)", "error: division by zero"},
		{"[1, 2].all(i, v, v / i > 0 && i > 5)", "false"},
		{"{'greeting': 'hello', 'farewell': 'goodbye'}.exists(k, v, k.startsWith('good') || v.endsWith('bye'))",
		 "true"},
		{"[1, 2, 4, 8, 16].exists(i, v, v == 1024 && i == 10)", "false"},
		{"[0, 1].exists(i, v, 1 / v == 1)", "true"},
		{"[1, 2, 1, 3, 1, 4].existsOne(i, v, i == 1 || v == 1)", "false"},
		{"[1, 1, 2, 2, 3, 3].existsOne(i, v, i == 2 && v == 2)", "true"},
		{"{'i': 0, 'j': 1, 'k': 2}.existsOne(i, v, i == 'l' || v == 1)", "true"},
		{"[1, 1, 2].exists_one(i, v, v == 2)", "true"},
		{"[0, 1].existsOne(i, v, 1 / v == 1)", "error: division by zero"},
		{"[1, 2, 3].transformList(i, v, (i * v) + v)", "[1, 4, 9]"},
		{"[1, 2, 3].transformList(i, v, i % 2 == 0, (i * v) + v)", "[1, 9]"},
		{"{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k)", "[\"greeting\", \"farewell\"]"},
		{"{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(_, v, v)", "[\"hello\", \"goodbye\"]"},
		{"[1, 2, 3].transformMap(i, v, (i * v) + v)", "{0: 1, 1: 4, 2: 9}"},
		{"[1, 2, 3].transformMap(i, v, i % 2 == 0, (i * v) + v)", "{0: 1, 2: 9}"},
		{"{'greeting': 'hello'}.transformMap(k, v, v + '!')", "{\"greeting\": \"hello!\"}"},
		{"{'greeting': 'hello'}.transformMapEntry(k, v, {v: k})", "{\"hello\": \"greeting\"}"},
		{"[1, 2, 3].transformMapEntry(i, v, {v: i})", "{1: 0, 2: 1, 3: 2}"},
		{"[1, 2, 3].transformMapEntry(i, v, v > 1, {v: i, -v: i})", "{2: 1, -2: 1, 3: 2, -3: 2}"},
		{"{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(k, v, {v: k})",
		 "error: insert failed: key aloha already exists"},
		{"[1, 2].transformMapEntry(i, v, v == 1 ? {1: 'a'} : {1u: 'b'})",
		 "error: insert failed: key 1 already exists"},
		{"[1, 2].transformMapEntry(i, v, v)", "error: no such overload"},
		/* the first failed insert stays the accumulator's value through later steps */
		{"[1, 2, 3, 4].transformMapEntry(i, v, v == 4 ? {'x': 1 / 0} : {v % 2: v})",
		 "error: insert failed: key 1 already exists"},
		{"[1, 2, 3, 4].transformMapEntry(i, v, v < 4, {v % 2 == 0: v})",
		 "error: insert failed: key false already exists"},
		{"['a', 'b', 'c', 'b', 'a'].transformMapEntry(i, v, {v: i})", "error: insert failed: key b already exists"},
		{"[1, 2, 3].transformMapEntry(i, v, {v: i, v + 10: i})", "{1: 0, 11: 0, 2: 1, 12: 1, 3: 2, 13: 2}"},
		{"[1, 2].transformList(i, v, v, v)", "error: no such overload"},
		{"[1, 0].transformList(i, v, 1 / v)", "error: division by zero"},
		{"[1, 0].transformMap(i, v, v > 0, 1 / v)", "{0: 1}"},
		{"[].transformMap(i, v, v)", "{}"},
		/* typed self: a list's index and items, a map's keys and values */
		{"self.tags.transformList(i, t, i > 0, t)", "[\"b\", \"c\"]"},
		{"self.workers.all(i, w, w.gpus > i)", "true"},
		{"self.workers.transformMapEntry(i, w, {w.name: w.gpus})", "{\"a\": 1, \"b\": 2}"},
		{"self.labels.all(k, v, size(k) > 2 && v != '')", "true"},
		{"self.labels.transformMap(k, v, v.upperAscii())", "{\"app\": \"WEB\", \"tier\": \"FE\"}"},
		{"self.labels.exists(k, v, k == 'tier' && v == 'fe')", "true"},
		{"self.items.existsOne(i, x, has(x.b))", "true"},
		/* the macro's own checks */
		{"[1].all(i, i, true)", "compile: ERROR: <input>:1:12: duplicate variable name: i"},
		{"[1].all(1, v, true)", "compile: ERROR: <input>:1:9: argument must be a simple name"},
		{"[1].transformList(i, 'v', true)", "compile: ERROR: <input>:1:22: argument must be a simple name"},
		{"[1].exists(__result__, v, true)",
		 "compile: ERROR: <input>:1:12: iteration variable overwrites accumulator variable"},
		{"[1].all(i, v, self.nope)", "compile: ERROR: <input>:1:19: undefined field 'nope'"},
		{"[1].all(i, v, w)", "compile: ERROR: <input>:1:15: undeclared reference to 'w' (in container '')"},
		{"[1].transformList(i, v)", "compile: ERROR: <input>:1:4: undeclared reference to 'transformList'"},
	};

	(void)state;
	run_flags = SK_CEL_LIB_TWO_VAR;
	TABLE(t, NULL);
	run_flags = 0;
	{
		/* not in the environment of new expressions (1.31's) */
		static const struct tcase off[] = {
			{"[1].all(i, v, true)", "compile: ERROR: <input>:1:4: undeclared reference to 'all'"},
			{"{'a': 1}.transformMap(k, v, v)", "compile: ERROR: <input>:1:9: undeclared reference to "
							   "'transformMap'"},
			{"[1].all(v, true)", "true"},
		};

		TABLE(off, NULL);
	}
}

static void test_two_var_cost_and_type(void **state)
{
	json_t *schema = parse("{\"type\":\"object\",\"properties\":{"
			       "\"n\":{\"type\":\"array\",\"maxItems\":10,\"items\":{\"type\":\"integer\"}},"
			       "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}}}");
	json_t *self = parse("{\"n\":[1,2,3],\"m\":{\"a\":1}}");
	char *err = NULL;
	sk_cel_program *p;
	sk_cel_result r;
	sk_cel_vars vars = {.self = self, .self_schema = schema};
	int64_t budget = 1000;

	(void)state;
	p = sk_cel_compile("self.n.all(i, x, self.n.exists(j, y, y == x))", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR,
			   schema, &err);
	assert_non_null(p);
	assert_true(sk_cel_cost_lower_bound(p) == 100);
	assert_string_equal(sk_cel_result_type(p), "bool");
	sk_cel_program_free(p);
	p = sk_cel_compile("self.n.transformList(i, x, x)", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR, schema, &err);
	assert_string_equal(sk_cel_result_type(p), "list");
	sk_cel_program_free(p);
	p = sk_cel_compile("self.m.transformMap(k, v, v)", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR, schema, &err);
	assert_string_equal(sk_cel_result_type(p), "map");
	sk_cel_program_free(p);
	/* the checker types the index as an int and the map key as a string */
	p = sk_cel_compile("self.n.all(i, x, i == 'a')", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR, schema, &err);
	assert_null(p);
	assert_non_null(strstr(err, "found no matching overload for '_==_' applied to '(int, string)'"));
	free(err);
	p = sk_cel_compile("self.m.all(k, v, k == 1 || v == 'x')", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR, schema, &err);
	assert_null(p);
	assert_non_null(strstr(err, "applied to '(string, int)'"));
	assert_non_null(strstr(err, "applied to '(int, string)'"));
	free(err);
	/* every step costs, as the one-variable comprehensions' */
	p = sk_cel_compile("self.n.transformList(i, x, x).all(i, x, x > 0)", SK_CEL_VAR_SELF | SK_CEL_LIB_TWO_VAR,
			   schema, &err);
	vars.budget = &budget;
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_BOOL);
	assert_true(r.b);
	assert_true(budget < 1000 - 20);
	budget = 10;
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_COST);
	sk_cel_program_free(p);
	json_decref(schema);
	json_decref(self);
}

/* A rule stored with two-variable comprehensions (upstream's
 * StoredExpressions environment) is evaluated on writes. */
static void test_two_var_stored_rules(void **state)
{
	static const char schema[] =
		"{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
		"\"ports\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"x-kubernetes-validations\":["
		"{\"rule\":\"self.all(i, p, i == 0 || p > self[i - 1])\",\"message\":\"must ascend\"}]},"
		"\"limits\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},"
		"\"x-kubernetes-validations\":[{\"rule\":\"self.transformList(k, v, v > 8, k).size() == 0\","
		"\"messageExpression\":\"'too big: ' + self.transformList(k, v, v > 8, k).join(', ')\"}]}}}}}";

	(void)state;
	expect_rules(schema, "{\"spec\":{\"ports\":[1,5,9],\"limits\":{\"a\":1}}}", NULL, "");
	expect_rules(schema, "{\"spec\":{\"ports\":[1,9,5],\"limits\":{\"a\":10,\"b\":2}}}", NULL,
		     "spec.ports: Invalid value: \"array\": must ascend\n"
		     "spec.limits: Invalid value: \"object\": too big: a");
}

/* A fake authorizer: pods may be listed, secrets are denied with a reason,
 * nodes fail with an error, paths under / may be read; it records the last
 * check it saw. */
static char last_check[512];

static enum sk_cel_authz_decision fake_authorize(void *ud, const sk_cel_authz_check *k, char **reason, char **error)
{
	(void)ud;
	if (k->resource_request)
		snprintf(last_check, sizeof(last_check), "%s%s%s%s%sverb=%s group=%s resource=%s sub=%s ns=%s name=%s "
			 "fields=%s labels=%s",
			 k->sa_name ? "sa=" : "", k->sa_namespace ? k->sa_namespace : "", k->sa_name ? "/" : "",
			 k->sa_name ? k->sa_name : "", k->sa_name ? " " : "", k->verb, k->group, k->resource, k->subresource, k->ns,
			 k->name, k->field_selector, k->label_selector);
	else
		snprintf(last_check, sizeof(last_check), "verb=%s path=%s", k->verb, k->path);
	if (!k->resource_request)
		return k->path[0] == '/' && !strcmp(k->verb, "get") ? SK_CEL_AUTHZ_ALLOW : SK_CEL_AUTHZ_NO_OPINION;
	if (!strcmp(k->resource, "nodes")) {
		*error = xstrdup("webhook unreachable");
		return SK_CEL_AUTHZ_NO_OPINION;
	}
	if (!strcmp(k->resource, "secrets")) {
		*reason = xstrdup("denied: secrets");
		return SK_CEL_AUTHZ_DENY;
	}
	if (k->sa_name && strcmp(k->sa_name, "builder"))
		return SK_CEL_AUTHZ_NO_OPINION;
	return !strcmp(k->resource, "pods") && !strcmp(k->verb, "list") ? SK_CEL_AUTHZ_ALLOW
									 : SK_CEL_AUTHZ_NO_OPINION;
}

static void expect_authz(const char *expr, const char *want, const char *check)
{
	char *got = run(expr, NULL);

	if (strcmp(got, want))
		fail_msg("%s: got %s, want %s", expr, got, want);
	if (check && strcmp(last_check, check))
		fail_msg("%s: checked %s, want %s", expr, last_check, check);
	free(got);
}

/* upstream's authz library over a fake authorizer (skiff serves no
 * ValidatingAdmissionPolicy yet: nothing else binds authorizer). */
static void test_authz_library(void **state)
{
	static const sk_cel_authz_check request = {
		.group = "apps", .resource = "deployments", .subresource = "scale", .ns = "prod", .name = "web"};
	static const struct tcase t[] = {
		{"authorizer.group('').resource('secrets').check('get').allowed()", "false"},
		{"authorizer.group('').resource('secrets').check('get').reason()", "\"denied: secrets\""},
		{"authorizer.group('').resource('secrets').check('get').errored()", "false"},
		{"authorizer.group('').resource('secrets').check('get').error()", "\"\""},
		{"authorizer.group('').resource('nodes').check('get').errored()", "true"},
		{"authorizer.group('').resource('nodes').check('get').error()", "\"webhook unreachable\""},
		{"authorizer.group('').resource('nodes').check('get').allowed()", "false"},
		{"authorizer.path('/healthz').check('get').allowed()", "true"},
		{"authorizer.path('/healthz').check('post').allowed()", "false"},
		{"authorizer.path('  ').check('get')", "error: path must not be empty"},
		{"authorizer.group('apps').resource(' ').check('get')", "error: resource must not be empty"},
		{"authorizer.serviceAccount('Bad_NS', 'builder')", "error: Invalid service account namespace"},
		{"authorizer.serviceAccount('bad ns', 'bad name')", "error: Invalid service account name"},
		{"authorizer.group('apps').check('get')", "error: no such overload"},
		{"authorizer.group('').resource('pods').check(1)", "error: no such overload"},
		{"authorizer.path('/a').resource('pods')", "error: no such overload"},
		{"type(authorizer.group('')) == type(authorizer)", "false"},
		/* three checks pass the per-expression limit: two fit */
		{"authorizer.path('/a').check('get').allowed() && authorizer.path('/b').check('get').allowed()", "true"},
		{"authorizer.path('/a').check('get').allowed() && authorizer.path('/b').check('get').allowed() && "
		 "authorizer.path('/c').check('get').allowed()",
		 "cost"},
	};

	(void)state;
	run_flags = SK_CEL_VAR_AUTHORIZER;
	run_authorize = fake_authorize;
	TABLE(t, NULL);
	expect_authz("authorizer.group('').resource('pods').namespace('default').check('list').allowed()", "true",
		     "verb=list group= resource=pods sub= ns=default name= fields= labels=");
	expect_authz("authorizer.group('').resource('pods').subresource('status').namespace('a').name('p')"
		     ".fieldSelector('spec.nodeName=n1').labelSelector('app=web').namespace('b').check('update')"
		     ".allowed()",
		     "false",
		     "verb=update group= resource=pods sub=status ns=b name=p fields=spec.nodeName=n1 labels=app=web");
	expect_authz("authorizer.serviceAccount('ci', 'builder').group('').resource('pods').check('list').allowed()",
		     "true", "sa=ci/builder verb=list group= resource=pods sub= ns= name= fields= labels=");
	expect_authz("authorizer.serviceAccount('ci', 'other').group('').resource('pods').check('list').allowed()",
		     "false", "sa=ci/other verb=list group= resource=pods sub= ns= name= fields= labels=");
	expect_authz("authorizer.serviceAccount('ci', 'x').path('/metrics').check('get').allowed()", "true",
		     "verb=get path=/metrics");
	/* each builder makes a new value: the first check is unchanged */
	expect_authz("[authorizer.group('').resource('pods')].all(r, r.name('x') != r && "
		     "r.check('list').allowed())",
		     "true", "verb=list group= resource=pods sub= ns= name= fields= labels=");
	expect_authz("authorizer.requestResource.check('create').allowed()", "error: no such attribute: "
									     "authorizer.requestResource",
		     NULL);
	run_request = &request;
	expect_authz("authorizer.requestResource.check('update').allowed()", "false",
		     "verb=update group=apps resource=deployments sub=scale ns=prod name=web fields= labels=");
	expect_authz("authorizer.requestResource.subresource('').namespace('dev').check('get').allowed()", "false",
		     "verb=get group=apps resource=deployments sub= ns=dev name=web fields= labels=");
	run_request = NULL;
	/* no authorizer bound: the variable is unknown at run time */
	run_authorize = NULL;
	expect_authz("authorizer.path('/x').check('get').allowed()", "error: no such attribute: authorizer", NULL);
	/* not declared (CRD rules): refused when compiled, its functions too */
	run_flags = 0;
	expect_authz("self.name.check('get')",
		     "compile: ERROR: <input>:1:10: undeclared reference to 'check' (in container '')\n"
		     " | self.name.check('get')\n"
		     " | .........^",
		     NULL);
	expect_authz("authorizer.path('/x').check('get').allowed()",
		     "compile: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n"
		     " | authorizer.path('/x').check('get').allowed()\n"
		     " | ^",
		     NULL);
}

/* ValidatingAdmissionPolicy's variables: params, namespaceObject and
 * variables.<name>, evaluated on first use (an error only when used). */
static char *eval_policy(const char *expr, const sk_cel_decls *d, const sk_cel_vars *v)
{
	char *err = NULL, *out;
	sk_cel_program *p = sk_cel_compile_decls(
		expr, SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER | SK_CEL_VAR_POLICY, d, &err);

	if (!p) {
		out = xasprintf("compile: %s", err);
		free(err);
		return out;
	}
	return result_text(p, v);
}

static void test_policy_variables(void **state)
{
	static const char *const names[] = {"replicas", "odd", "broken", NULL};
	sk_cel_decls d = {.variables = names, .nvariables = 3};
	json_t *obj = json_pack("{s:{s:i}, s:{s:s}}", "spec", "replicas", 3, "metadata", "name", "web");
	json_t *req = json_pack("{s:s}", "operation", "CREATE");
	json_t *params = json_pack("{s:{s:s}}", "data", "max", "4");
	json_t *ns = json_pack("{s:{s:s}}", "metadata", "name", "prod");
	sk_cel_program *progs[3];
	char *err = NULL, *r;
	sk_cel_decls before = d;
	sk_cel_vars v = {.adm_object = obj,
			 .adm_request = req,
			 .adm_params = params,
			 .adm_namespace = ns,
			 .var_progs = (const sk_cel_program *const *)progs,
			 .var_names = names,
			 .nvars = 3};
	struct {
		const char *expr, *want;
	} t[] = {
		{"variables.replicas > 1 && variables.odd", "true"},
		{"object.spec.replicas <= int(params.data.max)", "true"},
		{"namespaceObject.metadata.name == 'prod' && request.operation == 'CREATE'", "true"},
		/* a variable that fails is an error where it is used, not elsewhere */
		{"variables.broken", "error: no such key: nothing"},
		{"variables.replicas == 3 || variables.broken", "true"},
		{"[1, 2].exists(variables, variables == 2)", "true"},
	};

	(void)state;
	before.nvariables = 0;
	progs[0] = sk_cel_compile_decls("object.spec.replicas", SK_CEL_VAR_ADMISSION | SK_CEL_VAR_POLICY, &before, &err);
	before.nvariables = 1;
	progs[1] = sk_cel_compile_decls("variables.replicas % 2 == 1", SK_CEL_VAR_ADMISSION | SK_CEL_VAR_POLICY,
					&before, &err);
	before.nvariables = 2;
	progs[2] = sk_cel_compile_decls("object.spec.nothing", SK_CEL_VAR_ADMISSION | SK_CEL_VAR_POLICY, &before, &err);
	assert_non_null(progs[0]);
	assert_non_null(progs[1]);
	assert_non_null(progs[2]);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		r = eval_policy(t[i].expr, &d, &v);
		assert_string_equal(r, t[i].want);
		free(r);
	}
	/* an undeclared variable, and params outside a policy */
	r = eval_policy("variables.missing", &d, &v);
	assert_string_equal(r, "compile: ERROR: <input>:1:10: undefined field 'missing'\n | variables.missing\n"
			       " | .........^");
	free(r);
	assert_null(sk_cel_compile("params.x", SK_CEL_VAR_ADMISSION, NULL, &err));
	assert_non_null(strstr(err, "undeclared reference to 'params'"));
	free(err);
	/* object typed by a schema: the type check of a policy's status */
	{
		json_t *schema = json_pack("{s:s, s:{s:{s:s, s:{s:{s:s}}}}}", "type", "object", "properties", "spec",
					   "type", "object", "properties", "replicas", "type", "integer");
		sk_cel_decls typed = {.object_schema = schema};

		r = eval_policy("object.spec.replicas > '1'", &typed, &v);
		assert_non_null(strstr(r, "found no matching overload for '_>_' applied to '(int, string)'"));
		free(r);
		r = eval_policy("object.spec.maxRetries < 10", &typed, &v);
		assert_non_null(strstr(r, "undefined field 'maxRetries'"));
		free(r);
		/* a result's schema: the one selected from, or made of the checked type */
		{
			sk_cel_program *sel = sk_cel_compile_decls("object.spec.replicas", SK_CEL_VAR_ADMISSION,
								   &typed, &err);
			sk_cel_program *cmp = sk_cel_compile_decls("object.spec.replicas % 2 == 1",
								   SK_CEL_VAR_ADMISSION, &typed, &err);
			sk_cel_program *dyn = sk_cel_compile_decls("object.metadata", SK_CEL_VAR_ADMISSION, &d, &err);

			json_t *spec = json_object_get(json_object_get(schema, "properties"), "spec");

			assert_ptr_equal(sk_cel_result_schema(sel),
					 json_object_get(json_object_get(spec, "properties"), "replicas"));
			assert_string_equal(json_string_value(json_object_get(sk_cel_result_schema(cmp), "type")),
					    "boolean");
			assert_null(sk_cel_result_schema(dyn));
			sk_cel_program_free(sel);
			sk_cel_program_free(cmp);
			sk_cel_program_free(dyn);
		}
		json_decref(schema);
	}
	for (int i = 0; i < 3; i++)
		sk_cel_program_free(progs[i]);
	json_decref(obj);
	json_decref(req);
	json_decref(params);
	json_decref(ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals),   cmocka_unit_test(test_arithmetic), cmocka_unit_test(test_comparisons),
		cmocka_unit_test(test_logic),	   cmocka_unit_test(test_self),	      cmocka_unit_test(test_macros),
		cmocka_unit_test(test_functions),  cmocka_unit_test(test_old_self),   cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_cost_limit), cmocka_unit_test(test_depth_limit), cmocka_unit_test(test_crd_rules),
		cmocka_unit_test(test_cost_estimate), cmocka_unit_test(test_format_library),
		cmocka_unit_test(test_two_var_comprehensions), cmocka_unit_test(test_two_var_cost_and_type),
		cmocka_unit_test(test_authz_library), cmocka_unit_test(test_two_var_stored_rules),
		cmocka_unit_test(test_policy_variables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
