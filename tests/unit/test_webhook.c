/* Dynamic admission (src/api/webhook.c, webhook-config.c): rule matching as
 * upstream's rules.Matcher, the AdmissionReview response checks
 * (VerifyAdmissionResponse), the refusal's Status (ToStatusErr) and the
 * configurations' defaults and validation through the kind descriptors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "api/cel/cel.h"
#include "api/webhook.h"
#include "util/util.h"

static json_t *J(const char *text)
{
	char *s = xstrdup(text);
	json_error_t je;
	json_t *j;

	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	j = json_loads(s, 0, &je);
	free(s);
	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

static int matches(const char *rule, const char *op, const char *group, const char *resource, const char *sub,
		   const char *ns)
{
	cleanup_json json_t *r = J(rule);
	sk_webhook_attrs a = {op, group, "v1", resource, sub, ns};

	return sk__webhook_rule_matches(r, &a);
}

#define POD_RULE(res) "{'operations':['CREATE'],'apiGroups':[''],'apiVersions':['v1'],'resources':[" res "]}"

static void test_rule_matching(void **state)
{
	(void)state;
	assert_true(matches(POD_RULE("'pods'"), "CREATE", "", "pods", "", "ns"));
	assert_false(matches(POD_RULE("'pods'"), "UPDATE", "", "pods", "", "ns"));
	assert_false(matches(POD_RULE("'pods'"), "CREATE", "apps", "pods", "", "ns"));
	/* a subresource only where the rule names it */
	assert_false(matches(POD_RULE("'pods'"), "CREATE", "", "pods", "status", "ns"));
	assert_true(matches(POD_RULE("'pods/status'"), "CREATE", "", "pods", "status", "ns"));
	assert_true(matches(POD_RULE("'pods/*'"), "CREATE", "", "pods", "eviction", "ns"));
	/* upstream: a subresource wildcard also names the resource itself */
	assert_true(matches(POD_RULE("'pods/*'"), "CREATE", "", "pods", "", "ns"));
	assert_true(matches(POD_RULE("'*/status'"), "CREATE", "", "deployments", "status", "ns"));
	assert_true(matches(POD_RULE("'*'"), "CREATE", "", "configmaps", "", "ns"));
	assert_false(matches(POD_RULE("'*'"), "CREATE", "", "pods", "status", "ns"));
	assert_true(matches(POD_RULE("'*/*'"), "CREATE", "", "pods", "status", "ns"));
	assert_false(matches(POD_RULE("'po'"), "CREATE", "", "pods", "", "ns"));
	assert_false(matches(POD_RULE("'podsx'"), "CREATE", "", "pods", "", "ns"));
	/* wildcards in operations, groups, versions */
	assert_true(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*']}", "DELETE",
			    "apps", "deployments", "", "ns"));
	/* scope: namespaces are cluster-scoped */
	assert_false(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],"
			     "'scope':'Namespaced'}",
			     "CREATE", "", "namespaces", "", ""));
	assert_true(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],"
			    "'scope':'Cluster'}",
			    "CREATE", "", "namespaces", "", ""));
	assert_false(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],"
			     "'scope':'Cluster'}",
			     "CREATE", "", "pods", "", "ns"));
	assert_true(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],"
			    "'scope':'Namespaced'}",
			    "CREATE", "", "pods", "", "ns"));
	assert_false(matches("{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*'],"
			     "'scope':'Namespaced'}",
			     "CREATE", "", "nodes", "", ""));
	/* malformed rules match nothing */
	assert_false(matches("{}", "CREATE", "", "pods", "", "ns"));
	assert_false(matches("{'operations':'CREATE','apiGroups':[1],'resources':[null]}", "CREATE", "", "pods", "", ""));
}

static char *parse(const char *body, int mutating, json_t **resp)
{
	cleanup_json json_t *b = J(body);
	cleanup_free char *s = json_dumps(b, 0);
	char *why = NULL;

	if (sk__webhook_parse_response(s, strlen(s), "u-1", mutating, resp, &why) == 0)
		assert_null(why);
	return why;
}

static void test_response_checks(void **state)
{
	json_t *r = NULL;
	char *why;

	(void)state;
	why = parse("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','response':{'uid':'u-1',"
		    "'allowed':true}}",
		    0, &r);
	assert_null(why);
	assert_true(json_is_true(json_object_get(r, "allowed")));
	json_decref(r);
	why = parse("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','response':{'uid':'x','allowed':true}}",
		    0, &r);
	assert_string_equal(why, "received invalid webhook response: expected response.uid=\"u-1\", got \"x\"");
	assert_null(r);
	free(why);
	why = parse("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'}", 0, &r);
	assert_string_equal(why, "received invalid webhook response: webhook response was absent");
	free(why);
	why = parse("{'apiVersion':'v1','kind':'Status','response':{'uid':'u-1'}}", 0, &r);
	assert_string_equal(why, "received invalid webhook response: expected webhook response of "
				 "admission.k8s.io/v1, Kind=AdmissionReview, got v1, Kind=Status");
	free(why);
	why = parse("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','response':{'uid':'u-1',"
		    "'allowed':true,'patch':'W10='}}",
		    1, &r);
	assert_string_equal(why,
			    "received invalid webhook response: webhook returned response.patch but not response.patchType");
	free(why);
	why = parse("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','response':{'uid':'u-1',"
		    "'allowed':true,'patch':'W10=','patchType':'JSONPatch'}}",
		    0, &r);
	assert_string_equal(why, "received invalid webhook response: validating webhook may not return response.patch");
	free(why);
	why = parse("{'apiVersion':'admission.k8s.io/v1beta1','kind':'AdmissionReview','response':{'uid':'u-1',"
		    "'allowed':true,'patch':'W10=','patchType':'JSONPatch'}}",
		    1, &r);
	assert_null(why);
	json_decref(r);
	assert_int_equal(sk__webhook_parse_response("{", 1, "u", 0, &r, &why), -1);
	assert_non_null(why);
	free(why);
}

static void test_denied_status(void **state)
{
	json_t *st;

	(void)state;
	st = sk__webhook_denied_status("a.b.c", NULL);
	assert_string_equal(json_string_value(json_object_get(st, "message")),
			    "admission webhook \"a.b.c\" denied the request without explanation");
	assert_int_equal(json_integer_value(json_object_get(st, "code")), 400);
	assert_string_equal(json_string_value(json_object_get(st, "status")), "Failure");
	json_decref(st);
	{
		cleanup_json json_t *res = J("{'code':403,'reason':'Forbidden','status':'Success'}");

		st = sk__webhook_denied_status("a.b.c", res);
	}
	assert_string_equal(json_string_value(json_object_get(st, "message")),
			    "admission webhook \"a.b.c\" denied the request: Forbidden");
	assert_int_equal(json_integer_value(json_object_get(st, "code")), 403);
	assert_string_equal(json_string_value(json_object_get(st, "status")), "Failure");
	assert_string_equal(json_string_value(json_object_get(st, "kind")), "Status");
	json_decref(st);
	{
		cleanup_json json_t *res = J("{'code':200,'message':'no'}");

		st = sk__webhook_denied_status("a.b.c", res);
	}
	assert_string_equal(json_string_value(json_object_get(st, "message")),
			    "admission webhook \"a.b.c\" denied the request: no");
	assert_int_equal(json_integer_value(json_object_get(st, "code")), 400);
	json_decref(st);
}

static const sk_api_resource *kind(const char *k)
{
	const sk_api_resource *r = sk__resource_by_kind("admissionregistration.k8s.io", k);

	assert_non_null(r);
	return r;
}

static void test_config_defaults_and_validation(void **state)
{
	const sk_api_resource *m = kind("MutatingWebhookConfiguration"), *v = kind("ValidatingWebhookConfiguration");
	cleanup_json json_t *obj = J("{'metadata':{'name':'c'},'webhooks':[{'name':'a.example.com',"
				     "'clientConfig':{'service':{'namespace':'ns','name':'s'}},'sideEffects':'None',"
				     "'admissionReviewVersions':['v1'],'rules':[{'operations':['CREATE'],"
				     "'apiGroups':[''],'apiVersions':['v1'],'resources':['pods']}]}]}");
	cleanup_json json_t *causes = NULL;
	json_t *h;

	(void)state;
	m->ops->defaults(m, obj);
	h = json_array_get(json_object_get(obj, "webhooks"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "failurePolicy")), "Fail");
	assert_string_equal(json_string_value(json_object_get(h, "reinvocationPolicy")), "Never");
	assert_int_equal(json_integer_value(json_object_get(h, "timeoutSeconds")), 10);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(h, "clientConfig"),
									       "service"),
							    "port")),
			 443);
	assert_null(m->ops->validate(m, obj, NULL, 0));
	/* a validating configuration gets no reinvocationPolicy and may not set one (not checked: pruned upstream) */
	json_object_del(h, "reinvocationPolicy");
	json_object_set_new(h, "timeoutSeconds", json_integer(0));
	json_object_set_new(h, "name", json_string("a"));
	causes = v->ops->validate(v, obj, NULL, 0);
	assert_int_equal(json_array_size(causes), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 0), "message")),
			    "Invalid value: \"a\": should be a domain with at least three segments separated by dots");
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 1), "field")),
			    "webhooks[0].timeoutSeconds");
}

/* matchConditions' variables: object, oldObject (null on a create), request */
static void test_cel_admission_vars(void **state)
{
	cleanup_json json_t *obj = J("{'metadata':{'name':'x','labels':{'a':'b'}}}");
	cleanup_json json_t *req = J("{'operation':'CREATE','userInfo':{'username':'u'}}");
	sk_cel_vars vars = {.adm_object = obj, .adm_request = req};
	char *err = NULL;
	sk_cel_program *p;
	sk_cel_result r;

	(void)state;
	assert_null(sk_cel_compile("self == 1", SK_CEL_VAR_ADMISSION, NULL, &err));
	assert_non_null(err);
	free(err);
	err = NULL;
	p = sk_cel_compile("object.metadata.labels.a == 'b' && oldObject == null && request.operation == 'CREATE' && "
			   "request.userInfo.username == 'u'",
			   SK_CEL_VAR_ADMISSION, NULL, &err);
	assert_non_null(p);
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_BOOL);
	assert_true(r.b);
	sk_cel_result_release(&r);
	sk_cel_program_free(p);
	p = sk_cel_compile("has(object.metadata.namespace)", SK_CEL_VAR_ADMISSION, NULL, &err);
	assert_non_null(p);
	assert_int_equal(sk_cel_eval(p, &vars, &r), SK_CEL_BOOL);
	assert_false(r.b);
	sk_cel_result_release(&r);
	sk_cel_program_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_matching),
		cmocka_unit_test(test_response_checks),
		cmocka_unit_test(test_denied_status),
		cmocka_unit_test(test_config_defaults_and_validation),
		cmocka_unit_test(test_cel_admission_vars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
