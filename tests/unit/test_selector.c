#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/selector.h"
#include "util/util.h"

/* Parses sel and matches it against labels given as JSON text. */
static int lmatch(const char *sel, const char *labels)
{
	sk_error_t err = {0};
	sk_kube_label_selector *s = sk_kube_label_selector_parse(sel, &err);
	json_t *l = labels ? json_loads(labels, 0, NULL) : NULL;
	int r;

	if (!s)
		fail_msg("parse %s: %s", sel, err.msg);
	r = sk_kube_label_selector_match(s, l);
	json_decref(l);
	sk_kube_label_selector_free(s);
	return r;
}

static const char *lerr(const char *sel)
{
	static sk_error_t err;
	sk_kube_label_selector *s;

	memset(&err, 0, sizeof(err));
	s = sk_kube_label_selector_parse(sel, &err);
	if (s) {
		sk_kube_label_selector_free(s);
		return NULL;
	}
	assert_int_equal(err.code, SK_EBADREQUEST);
	return err.msg;
}

/* Restates labels/selector_test.go TestSelectorParse good and bad inputs. */
static void test_label_parse(void **state)
{
	const char *good[] = {"", "x=a,y=b,z=c", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ",
			      "!x", "x>1", "x>1,z<5", "x in (a)", "x in (a,b)", "x notin (a)",
			      "x in (,a)", "x in ()", "x in (a,)", "x in(a)", "x=a,y", "a.b/c-d_e=f",
			      "  x  =  a  ", "x == a", "in in (in)", NULL};
	const char *bad[] = {"x=a||y=b", "x==a==b", "!x=a", "x<a", "x in a", "x in (a b)", "x=(a)",
			     "x=a,", ",x=a", "x notin", "x y", "x=a b", "x>", "=a", "x!", "-x=a",
			     "a/b/c", "x in (", NULL};

	for (int i = 0; good[i]; i++)
		if (lerr(good[i]))
			fail_msg("%s: %s", good[i], lerr(good[i]));
	for (int i = 0; bad[i]; i++)
		if (!lerr(bad[i]))
			fail_msg("%s parsed", bad[i]);
}

static void test_label_messages(void **state)
{
	assert_string_equal(lerr("x=a||y=b"),
			    "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
	assert_string_equal(lerr("-x"),
			    "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
	assert_string_equal(lerr("x y"), "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt");
	assert_string_equal(lerr("x=a b"), "found 'b', expected: ',' or 'end of string'");
	assert_string_equal(lerr("x=a,"), "found '', expected: identifier after ','");
	assert_string_equal(lerr(",x"), "found ',', expected: !, identifier, or 'end of string'");
	assert_string_equal(lerr("x in a"), "unable to parse requirement: found 'a' expected: '('");
	assert_string_equal(lerr("x>a"), "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer");
	assert_string_equal(lerr("x!"), "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
}

/* TestSelectorMatches / TestSetMatches. */
static void test_label_match(void **state)
{
	assert_true(lmatch("", "{\"x\":\"y\"}"));
	assert_true(lmatch("", NULL));
	assert_true(lmatch("x=y", "{\"x\":\"y\"}"));
	assert_true(lmatch("x==y", "{\"x\":\"y\"}"));
	assert_true(lmatch("x=y,z=w", "{\"x\":\"y\",\"z\":\"w\"}"));
	assert_true(lmatch("x!=y,z!=w", "{\"x\":\"z\",\"z\":\"a\"}"));
	assert_true(lmatch("notin=in", "{\"notin\":\"in\"}"));
	assert_true(lmatch("x", "{\"x\":\"z\"}"));
	assert_true(lmatch("!x", "{\"y\":\"z\"}"));
	assert_true(lmatch("x>1", "{\"x\":\"2\"}"));
	assert_true(lmatch("x<1", "{\"x\":\"0\"}"));
	assert_true(lmatch("x!=y", NULL));
	assert_true(lmatch("x notin (a,b)", "{\"x\":\"c\"}"));
	assert_true(lmatch("x notin (a,b)", "{}"));
	assert_true(lmatch("x in (a,b)", "{\"x\":\"b\"}"));
	assert_true(lmatch("x=", "{\"x\":\"\"}"));
	assert_false(lmatch("x=", "{}"));
	assert_false(lmatch("x=z", "{}"));
	assert_false(lmatch("x=y", "{\"x\":\"z\"}"));
	assert_false(lmatch("x=y,z=w", "{\"x\":\"w\",\"z\":\"w\"}"));
	assert_false(lmatch("x!=y,z!=w", "{\"x\":\"z\",\"z\":\"w\"}"));
	assert_false(lmatch("x", "{\"y\":\"z\"}"));
	assert_false(lmatch("!x", "{\"x\":\"z\"}"));
	assert_false(lmatch("x>1", "{\"x\":\"0\"}"));
	assert_false(lmatch("x>1", "{\"x\":\"a\"}"));
	assert_false(lmatch("x<1", "{\"x\":\"2\"}"));
	assert_false(lmatch("x in (a,b)", "{\"x\":\"c\"}"));
	assert_false(lmatch("x in (a,b)", NULL));
	assert_false(lmatch("x notin (a,b)", "{\"x\":\"a\"}"));
}

static sk_kube_label_selector *from_json(const char *s, sk_error_t *err)
{
	json_t *j = s ? json_loads(s, 0, NULL) : NULL;
	sk_kube_label_selector *sel = sk_kube_label_selector_from_json(j, err);
	json_decref(j);
	return sel;
}

static void test_label_from_json(void **state)
{
	sk_error_t err = {0};
	sk_kube_label_selector *s;
	json_t *l = json_pack("{s:s,s:s}", "app", "web", "tier", "fe");

	s = from_json(NULL, &err);
	assert_false(sk_kube_label_selector_match(s, l));
	sk_kube_label_selector_free(s);
	s = from_json("{}", &err);
	assert_true(sk_kube_label_selector_match(s, l));
	assert_true(sk_kube_label_selector_empty(s));
	sk_kube_label_selector_free(s);
	s = from_json("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":["
		      "{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"fe\",\"be\"]},"
		      "{\"key\":\"gone\",\"operator\":\"DoesNotExist\"},"
		      "{\"key\":\"app\",\"operator\":\"Exists\"},"
		      "{\"key\":\"tier\",\"operator\":\"NotIn\",\"values\":[\"db\"]}]}", &err);
	assert_non_null(s);
	assert_true(sk_kube_label_selector_match(s, l));
	sk_kube_label_selector_free(s);
	s = from_json("{\"matchLabels\":{\"app\":\"db\"}}", &err);
	assert_false(sk_kube_label_selector_match(s, l));
	sk_kube_label_selector_free(s);
	assert_null(from_json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Foo\"}]}", &err));
	assert_string_equal(err.msg, "\"Foo\" is not a valid label selector operator");
	assert_null(from_json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}", &err));
	assert_null(from_json("{\"matchLabels\":{\"a\":\"b c\"}}", &err));
	json_decref(l);
}

static void check_string(const char *in, const char *want)
{
	sk_error_t err = {0};
	sk_kube_label_selector *s = sk_kube_label_selector_parse(in, &err);
	char *got;

	assert_non_null(s);
	got = sk_kube_label_selector_string(s);
	assert_string_equal(got, want);
	free(got);
	sk_kube_label_selector_free(s);
}

static void test_label_string(void **state)
{
	sk_error_t err = {0};
	json_t *j = json_loads("{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"},\"matchExpressions\":["
			       "{\"key\":\"c\",\"operator\":\"NotIn\",\"values\":[\"z\",\"y\"]},"
			       "{\"key\":\"d\",\"operator\":\"DoesNotExist\"}]}", 0, NULL);
	sk_kube_label_selector *s = sk_kube_label_selector_from_json(j, &err);
	char *str = sk_kube_label_selector_string(s);
	json_t *set = json_pack("{s:s,s:s}", "x", "1", "app", "web"), *l;

	assert_string_equal(str, "a=1,b=2,c notin (y,z),!d");
	free(str);
	sk_kube_label_selector_free(s);
	json_decref(j);
	check_string("", "");
	check_string("z=1, y in (b,a), x, !w, v!=2, u==3, t>4", "t>4,u==3,v!=2,!w,x,y in (a,b),z=1");

	s = sk_kube_label_selector_from_set(set);
	str = sk_kube_label_selector_string(s);
	assert_string_equal(str, "app=web,x=1");
	free(str);
	l = json_pack("{s:s,s:s,s:s}", "x", "1", "app", "web", "other", "y");
	assert_true(sk_kube_label_selector_match(s, l));
	json_object_set_new(l, "x", json_string("2"));
	assert_false(sk_kube_label_selector_match(s, l));
	sk_kube_label_selector_free(s);
	s = sk_kube_label_selector_from_set(NULL);
	assert_true(sk_kube_label_selector_match(s, l));
	sk_kube_label_selector_free(s);
	json_decref(l);
	json_decref(set);
}

static sk_kube_field_selector *fparse(const char *s)
{
	sk_error_t err = {0};
	sk_kube_field_selector *sel = sk_kube_field_selector_parse(s, &err);
	if (!sel)
		fail_msg("parse %s: %s", s, err.msg);
	return sel;
}

static void test_field_parse(void **state)
{
	sk_error_t err = {0};
	const char *v;
	sk_kube_field_selector *s;
	const char *bad[] = {"x", "x=a\\b", "x=a=b", "x=a\\", "a,b=c", NULL};

	for (int i = 0; bad[i]; i++) {
		s = sk_kube_field_selector_parse(bad[i], &err);
		if (s)
			fail_msg("%s parsed", bad[i]);
		assert_int_equal(err.code, SK_EBADREQUEST);
	}
	s = sk_kube_field_selector_parse("x", &err);
	assert_string_equal(err.msg, "invalid selector: 'x'; can't understand 'x'");
	sk_kube_field_selector_parse("x=a\\b", &err);
	assert_string_equal(err.msg, "invalid field selector: invalid escape sequence: \\b");
	sk_kube_field_selector_parse("x=a=b", &err);
	assert_string_equal(err.msg, "invalid field selector: unescaped character in value: =");

	s = fparse("spec.nodeName=n1");
	assert_true(sk_kube_field_selector_single_eq(s, "spec.nodeName", &v));
	assert_string_equal(v, "n1");
	assert_false(sk_kube_field_selector_single_eq(s, "metadata.name", &v));
	sk_kube_field_selector_free(s);
	s = fparse("spec.nodeName==a\\,b\\=c\\\\");
	assert_true(sk_kube_field_selector_single_eq(s, "spec.nodeName", &v));
	assert_string_equal(v, "a,b=c\\");
	sk_kube_field_selector_free(s);
	s = fparse("spec.nodeName!=n1");
	assert_false(sk_kube_field_selector_single_eq(s, "spec.nodeName", &v));
	sk_kube_field_selector_free(s);
	s = fparse("");
	assert_true(sk_kube_field_selector_empty(s));
	sk_kube_field_selector_free(s);
	s = fparse("a=b,,c=d,");
	assert_false(sk_kube_field_selector_empty(s));
	sk_kube_field_selector_free(s);
}

/* A kind's field labels as a descriptor gives them (the kinds' own lists
 * are checked in test_kinds.c). */
static const sk_kube_field_labels pod_like = {
	.fields = (const char *const[]){"metadata.name", "metadata.namespace", "spec.nodeName", "spec.hostNetwork",
					"spec.schedulerName", "spec.unschedulable", "status.phase", "status.podIP",
					"status.successful", "source", "involvedObject.name", NULL},
	.alias = "spec.host",
	.alias_of = "spec.nodeName",
};

static const sk_kube_field_labels job_like = {
	.fields = (const char *const[]){"metadata.name", "status.successful", NULL},
	.unsupported = "field label \"%s\" not supported for batchv1.Job",
};

static int fcheck(const char *sel, const sk_kube_field_labels *labels, sk_error_t *err)
{
	sk_kube_field_selector *s = fparse(sel);
	int r = sk_kube_field_selector_check(s, labels, err);
	sk_kube_field_selector_free(s);
	return r;
}

static void test_field_check(void **state)
{
	sk_error_t err = {0};

	(void)state;
	assert_int_equal(fcheck("metadata.name=a,spec.nodeName=n,status.phase!=Running", &pod_like, &err), 0);
	assert_int_equal(fcheck("metadata.namespace=a", NULL, &err), 0);
	assert_int_equal(fcheck("metadata.name=a", NULL, &err), 0);
	assert_int_equal(fcheck("status.successful=1", &job_like, &err), 0);
	assert_int_equal(fcheck("foo=bar", &pod_like, &err), -1);
	assert_int_equal(err.code, SK_EBADREQUEST);
	assert_string_equal(err.msg, "field label not supported: foo");
	assert_int_equal(fcheck("metadata.namespace=x", &job_like, &err), -1);
	assert_int_equal(fcheck("status.active=1", &job_like, &err), -1);
	assert_string_equal(err.msg, "field label \"status.active\" not supported for batchv1.Job");
	assert_int_equal(fcheck("spec.replicas=1", NULL, &err), -1);
	assert_string_equal(err.msg, "\"spec.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
}

static int fmatch(const char *sel, const char *obj)
{
	sk_error_t err = {0};
	sk_kube_field_selector *s = fparse(sel);
	json_t *o = json_loads(obj, 0, NULL);
	int r;

	assert_int_equal(sk_kube_field_selector_check(s, &pod_like, &err), 0);
	r = sk_kube_field_selector_match(s, o);
	json_decref(o);
	sk_kube_field_selector_free(s);
	return r;
}

static void test_field_check_fields(void **state)
{
	static const char *const extra[] = {"spec.color", "spec.size", NULL};
	sk_error_t err = {0};
	sk_kube_field_selector *s = fparse("metadata.name=a,metadata.namespace=b,spec.color!=red,spec.size=2");

	(void)state;
	assert_int_equal(sk_kube_field_selector_check_fields(s, extra, &err), 0);
	assert_int_equal(sk_kube_field_selector_check_fields(s, NULL, &err), -1);
	assert_int_equal(err.code, SK_EBADREQUEST);
	assert_string_equal(err.msg, "field label not supported: spec.color");
	sk_kube_field_selector_free(s);
}

static void test_field_match(void **state)
{
	const char *pod = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"
			  "\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}";

	assert_true(fmatch("metadata.name=p,metadata.namespace=ns", pod));
	assert_true(fmatch("spec.nodeName=n1", pod));
	assert_true(fmatch("spec.host=n1", pod));
	assert_true(fmatch("status.phase!=Pending", pod));
	assert_false(fmatch("status.phase!=Running", pod));
	assert_true(fmatch("spec.hostNetwork=false", pod));
	assert_true(fmatch("spec.schedulerName=", pod));
	assert_false(fmatch("spec.nodeName=", pod));
	assert_true(fmatch("spec.unschedulable=true", "{\"spec\":{\"unschedulable\":true}}"));
	assert_true(fmatch("status.successful=3", "{\"status\":{\"succeeded\":3}}"));
	assert_true(fmatch("status.successful=0", "{\"status\":{}}"));
	assert_true(fmatch("status.podIP=10.0.0.1", "{\"status\":{\"podIPs\":[{\"ip\":\"10.0.0.1\"}]}}"));
	assert_true(fmatch("source=kubelet", "{\"source\":{\"component\":\"kubelet\"}}"));
	assert_true(fmatch("source=ctl", "{\"reportingComponent\":\"ctl\"}"));
	assert_true(fmatch("involvedObject.name=p", "{\"involvedObject\":{\"name\":\"p\"}}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_parse),
		cmocka_unit_test(test_label_messages),
		cmocka_unit_test(test_label_match),
		cmocka_unit_test(test_label_from_json),
		cmocka_unit_test(test_label_string),
		cmocka_unit_test(test_field_parse),
		cmocka_unit_test(test_field_check),
		cmocka_unit_test(test_field_check_fields),
		cmocka_unit_test(test_field_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
