/* The audit policy (src/api/audit.c): YAML and JSON documents, the checks
 * upstream's policy validation makes, and rule matching as upstream's
 * policy/checker.go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/audit.h"
#include "util/util.h"

static const char policy_yaml[] = "apiVersion: audit.k8s.io/v1\n"
				  "kind: Policy\n"
				  "omitStages: [RequestReceived]\n"
				  "rules:\n"
				  "  - level: None\n"
				  "    users: [\"system:kube-proxy\"]\n"
				  "    verbs: [watch]\n"
				  "  - level: None\n"
				  "    userGroups: [\"system:nodes\"]\n"
				  "  - level: Metadata\n"
				  "    resources:\n"
				  "      - group: \"\"\n"
				  "        resources: [\"secrets\", \"configmaps\"]\n"
				  "  - level: RequestResponse\n"
				  "    resources:\n"
				  "      - group: \"\"\n"
				  "        resources: [\"pods/log\", \"*/status\"]\n"
				  "      - group: apps\n"
				  "        resources: [\"deployments/*\"]\n"
				  "  - level: Request\n"
				  "    namespaces: [\"kube-system\"]\n"
				  "  - level: Metadata\n"
				  "    nonResourceURLs: [\"/healthz*\", \"/version\"]\n"
				  "    omitStages: [ResponseStarted]\n"
				  "  - level: Request\n"
				  "    resources:\n"
				  "      - group: \"\"\n"
				  "        resources: [\"namespaces\"]\n"
				  "        resourceNames: [\"default\"]\n";

static char *groups_nodes[] = {"system:nodes", "system:authenticated"};
static char *groups_admin[] = {"system:masters", "system:authenticated"};
static const sk_user node = {.name = "system:node:a", .uid = "", .groups = groups_nodes, .ngroups = 2};
static const sk_user admin = {.name = "system:admin", .uid = "", .groups = groups_admin, .ngroups = 2};
static const sk_user proxy = {.name = "system:kube-proxy", .uid = "", .groups = groups_admin, .ngroups = 2};

static enum sk_audit_level level(json_t *p, const sk_user *u, const char *verb, const char *group, const char *res,
				 const char *sub, const char *ns, const char *name, unsigned *omit)
{
	sk_audit_attrs a = {.user = u,
			    .verb = verb,
			    .resource_request = 1,
			    .group = group,
			    .resource = res,
			    .subresource = sub,
			    .ns = ns,
			    .name = name};
	unsigned o;

	return sk_audit_policy_level(p, &a, omit ? omit : &o);
}

static void test_policy_rules(void **state)
{
	sk_error_t err = {0};
	json_t *p = sk_audit_policy_parse(policy_yaml, strlen(policy_yaml), &err);
	unsigned omit;

	(void)state;
	assert_non_null(p);
	assert_int_equal(level(p, &proxy, "watch", "", "pods", "", "default", "", NULL), SK_AUDIT_NONE);
	assert_int_equal(level(p, &node, "get", "", "pods", "", "default", "x", NULL), SK_AUDIT_NONE);
	assert_int_equal(level(p, &admin, "get", "", "secrets", "", "default", "s", &omit), SK_AUDIT_METADATA);
	assert_int_equal(omit, SK_AUDIT_STAGE_RECEIVED);
	assert_int_equal(level(p, &admin, "get", "", "pods", "log", "default", "p", NULL), SK_AUDIT_REQUEST_RESPONSE);
	assert_int_equal(level(p, &admin, "update", "", "nodes", "status", "", "n", NULL), SK_AUDIT_REQUEST_RESPONSE);
	assert_int_equal(level(p, &admin, "patch", "apps", "deployments", "scale", "d", "x", NULL),
			 SK_AUDIT_REQUEST_RESPONSE);
	/* "resource/ *" (no space) is the resource and its subresources, as upstream */
	assert_int_equal(level(p, &admin, "get", "apps", "deployments", "", "default", "x", NULL),
			 SK_AUDIT_REQUEST_RESPONSE);
	assert_int_equal(level(p, &admin, "get", "apps", "replicasets", "", "default", "x", NULL), SK_AUDIT_NONE);
	assert_int_equal(level(p, &admin, "get", "apps", "replicasets", "", "kube-system", "x", NULL),
			 SK_AUDIT_REQUEST);
	assert_int_equal(level(p, &admin, "get", "", "namespaces", "", "", "default", NULL), SK_AUDIT_REQUEST);
	assert_int_equal(level(p, &admin, "get", "", "namespaces", "", "", "other", NULL), SK_AUDIT_NONE);
	{
		sk_audit_attrs a = {.user = &admin, .verb = "get", .path = "/healthz/ping"};

		assert_int_equal(sk_audit_policy_level(p, &a, &omit), SK_AUDIT_METADATA);
		assert_int_equal(omit, SK_AUDIT_STAGE_RECEIVED | SK_AUDIT_STAGE_STARTED);
		a.path = "/readyz";
		assert_int_equal(sk_audit_policy_level(p, &a, &omit), SK_AUDIT_NONE);
		/* an unauthenticated request matches no users rule */
		a.user = NULL;
		a.path = "/version";
		assert_int_equal(sk_audit_policy_level(p, &a, &omit), SK_AUDIT_METADATA);
	}
	/* no policy: everything at Metadata */
	assert_int_equal(level(NULL, &admin, "get", "", "pods", "", "default", "", NULL), SK_AUDIT_METADATA);
	json_decref(p);
}

static void expect_bad(const char *doc, const char *msg)
{
	sk_error_t err = {0};
	json_t *p = sk_audit_policy_parse(doc, strlen(doc), &err);

	assert_null(p);
	if (!strstr(err.msg, msg))
		fail_msg("%s: got \"%s\", want \"%s\"", doc, err.msg, msg);
}

static void test_policy_errors(void **state)
{
	(void)state;
	expect_bad("kind: Policy\napiVersion: audit.k8s.io/v1\nrules:\n- level: Verbose\n",
		   "rules[0].level: Unsupported value: \"Verbose\"");
	expect_bad("kind: Policy\napiVersion: audit.k8s.io/v1\nrules: []\n", "at least one rule");
	expect_bad("kind: Pod\napiVersion: v1\n", "not an audit.k8s.io/v1 Policy");
	expect_bad("kind: Policy\napiVersion: audit.k8s.io/v1\nrules:\n- level: None\n  omitStages: [Later]\n",
		   "Unsupported value: \"Later\"");
	expect_bad("kind: Policy\napiVersion: audit.k8s.io/v1\nrules:\n- level: None\n  nonResourceURLs: [\"/x\"]\n"
		   "  resources: [{group: \"\"}]\n",
		   "both regular resources and non-resource URLs");
	expect_bad("a: &x [1]\nb: *x\n", "aliases are not supported");
	expect_bad("kind: [unclosed\n", "line");
	expect_bad("", "empty");
}

static void test_policy_json(void **state)
{
	static const char doc[] = "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":"
				  "[{\"level\":\"Request\",\"verbs\":[\"create\"]},{\"level\":\"None\"}]}";
	sk_error_t err = {0};
	json_t *p = sk_audit_policy_parse(doc, strlen(doc), &err);

	(void)state;
	assert_non_null(p);
	assert_int_equal(level(p, &admin, "create", "", "pods", "", "default", "", NULL), SK_AUDIT_REQUEST);
	assert_int_equal(level(p, &admin, "delete", "", "pods", "", "default", "x", NULL), SK_AUDIT_NONE);
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_rules),
		cmocka_unit_test(test_policy_errors),
		cmocka_unit_test(test_policy_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
