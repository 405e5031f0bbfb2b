/* RBAC: rule matching, subjects, Covers and its messages (rbac.c), the
 * policy's rule notation (rbac-policy.c), the authorizer, escalation
 * checks and reviews through sk_api_handle() as non-admin users, and the
 * authorizer's remembered decisions (authz-rbac.c). */
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api/api.h"
#include "api/celauthz.h"
#include "api/rbac.h"
#include "util/util.h"

static json_t *J(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	if (!v)
		fail_msg("bad json %s: %s", text, e.text);
	return v;
}

static int allows(const char *rule, const char *verb, const char *group, const char *res, const char *sub,
		  const char *name)
{
	cleanup_json json_t *r = J(rule);
	sk_authz_attrs a = {.verb = verb,
			    .resource_request = 1,
			    .api_group = group,
			    .api_version = "v1",
			    .resource = res,
			    .subresource = sub,
			    .ns = "default",
			    .name = name,
			    .path = ""};

	return sk_rbac_rule_allows(r, &a);
}

static int allows_url(const char *rule, const char *verb, const char *path)
{
	cleanup_json json_t *r = J(rule);
	sk_authz_attrs a = {
		.verb = verb, .api_group = "", .resource = "", .subresource = "", .ns = "", .name = "", .path = path};

	return sk_rbac_rule_allows(r, &a);
}

static void test_rule_verbs_groups(void **state)
{
	(void)state;
	assert_true(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}", "get", "", "pods", "",
			   ""));
	assert_false(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}", "list", "", "pods",
			    "", ""));
	assert_true(allows("{\"verbs\":[\"*\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}", "delete", "", "pods",
			   "", ""));
	assert_false(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"deployments\"]}", "get", "apps",
			    "deployments", "", ""));
	assert_true(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],\"resources\":[\"deployments\"]}", "get", "apps",
			   "deployments", "", ""));
	assert_true(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"*\"]}", "get", "apps",
			   "deployments", "scale", ""));
	/* no verbs, no match; a rule without resources matches nothing */
	assert_false(allows("{\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}", "get", "", "pods", "", ""));
	assert_false(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"]}", "get", "", "pods", "", ""));
}

static void test_rule_subresources_names(void **state)
{
	const char *logs = "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/log\"]}";
	const char *scale = "{\"verbs\":[\"update\"],\"apiGroups\":[\"apps\"],\"resources\":[\"*/scale\"]}";
	const char *named = "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
			    "\"resourceNames\":[\"a\",\"b\"]}";

	(void)state;
	assert_true(allows(logs, "get", "", "pods", "log", "p"));
	assert_false(allows(logs, "get", "", "pods", "", "p"));
	assert_false(allows(logs, "get", "", "pods", "exec", "p"));
	/* pods does not give pods/log */
	assert_false(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}", "get", "", "pods",
			    "log", "p"));
	assert_true(allows(scale, "update", "apps", "deployments", "scale", "d"));
	assert_true(allows(scale, "update", "apps", "replicasets", "scale", "d"));
	assert_false(allows(scale, "update", "apps", "deployments", "", "d"));
	assert_false(allows(scale, "update", "apps", "deployments", "status", "d"));
	/* as upstream, "deployments/" + "*" is a resource name, not a pattern */
	assert_false(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments/*\"]}", "get",
			    "apps", "deployments", "status", "d"));
	assert_true(allows(named, "get", "", "configmaps", "", "a"));
	assert_false(allows(named, "get", "", "configmaps", "", "c"));
	assert_false(allows(named, "get", "", "configmaps", "", ""));
}

static void test_rule_urls(void **state)
{
	const char *r = "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\",\"/apis/*\"]}";

	(void)state;
	assert_true(allows_url(r, "get", "/healthz"));
	assert_false(allows_url(r, "get", "/healthz/etcd"));
	assert_false(allows_url(r, "post", "/healthz"));
	assert_true(allows_url(r, "get", "/apis/apps/v1"));
	assert_true(allows_url(r, "get", "/apis/"));
	assert_false(allows_url(r, "get", "/apis"));
	assert_true(allows_url("{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}", "put", "/metrics"));
	/* a resource rule never gives a path */
	assert_false(allows_url("{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}", "get", "/metrics"));
}

static void test_subjects(void **state)
{
	const char *groups[] = {"team-a", "system:serviceaccounts", "system:serviceaccounts:ns1", NULL};
	sk_user *u = sk_user_new("alice", "", groups),
		*sa = sk_user_new("system:serviceaccount:ns1:builder", "", groups);
	cleanup_json json_t *user = J("{\"kind\":\"User\",\"name\":\"alice\"}");
	cleanup_json json_t *group = J("{\"kind\":\"Group\",\"name\":\"team-a\"}");
	cleanup_json json_t *sa_local = J("{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}");
	cleanup_json json_t *sa_ns = J("{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"ns1\"}");
	cleanup_json json_t *sa_group = J("{\"kind\":\"Group\",\"name\":\"system:serviceaccounts:ns1\"}");
	cleanup_free char *name = sk_rbac_sa_username("ns1", "builder");

	(void)state;
	assert_string_equal(name, "system:serviceaccount:ns1:builder");
	assert_true(sk_rbac_subject_applies(user, u, "x"));
	assert_false(sk_rbac_subject_applies(user, sa, "x"));
	assert_true(sk_rbac_subject_applies(group, u, ""));
	assert_true(sk_rbac_subject_applies(sa_local, sa, "ns1"));
	assert_false(sk_rbac_subject_applies(sa_local, sa, "ns2"));
	assert_false(sk_rbac_subject_applies(sa_local, sa, ""));
	assert_true(sk_rbac_subject_applies(sa_ns, sa, ""));
	assert_true(sk_rbac_subject_applies(sa_group, sa, ""));
	sk_user_free(u);
	sk_user_free(sa);
}

static void test_covers(void **state)
{
	cleanup_json json_t *owner = J(
		"[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\",\"*/status\"]},"
		"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs/*\"]}]");
	cleanup_json json_t *ok = J(
		"[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\",\"pods/status\"]},"
		"{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs/a\"]}]");
	cleanup_json json_t *bad = J(
		"[{\"verbs\":[\"get\",\"create\",\"delete\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
		"{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"],"
		"\"resourceNames\":[\"web\"]}]");
	json_t *missing = NULL;
	cleanup_free char *s0 = NULL, *s1 = NULL;

	(void)state;
	assert_true(sk_rbac_covers(owner, ok, &missing));
	assert_null(missing);
	assert_false(sk_rbac_covers(owner, bad, &missing));
	assert_int_equal(json_array_size(missing), 2);
	s0 = sk_rbac_rule_string(json_array_get(missing, 0));
	s1 = sk_rbac_rule_string(json_array_get(missing, 1));
	assert_string_equal(s0, "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"create\" \"delete\"]}");
	assert_string_equal(s1, "{APIGroups:[\"apps\"], Resources:[\"deployments\"], ResourceNames:[\"web\"], "
				"Verbs:[\"get\"]}");
	json_decref(missing);
}

static void test_policy_notation(void **state)
{
	cleanup_json json_t *r = sk__rbac_policy_rule("\\,apps|pods,deployments|get,list|one");
	cleanup_json json_t *u = sk__rbac_policy_rule("url:/healthz,/livez|get");
	cleanup_free char *rs = sk_rbac_rule_string(r), *us = sk_rbac_rule_string(u);

	(void)state;
	assert_string_equal(
		rs, "{APIGroups:[\"\" \"apps\"], Resources:[\"pods\" \"deployments\"], ResourceNames:[\"one\"], "
		    "Verbs:[\"get\" \"list\"]}");
	assert_string_equal(us, "{NonResourceURLs:[\"/healthz\" \"/livez\"], Verbs:[\"get\"]}");
}

/* ---- through the API as a user ---- */

struct fx {
	char dir[64];
	sk_store *store;
	sk_api *api;
	sk_client *c;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));
	char uri[128];
	sk_error_t err = {0};

	snprintf(f->dir, sizeof(f->dir), "/tmp/sk-rbac-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(uri, sizeof(uri), "sqlite://%s", f->dir);
	f->store = sk_store_open(uri, NULL, &err);
	if (!f->store)
		fail_msg("store: %s", err.msg);
	f->api = sk_api_new(f->store, NULL, &err);
	if (!f->api)
		fail_msg("api: %s", err.msg);
	f->c = sk_client_new_inproc(f->api);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_client_free(f->c);
	sk_api_shutdown(f->api);
	sk_api_free(f->api);
	sk_store_close(f->store);
	nftw(f->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* One request as u; the reply's status, and its body in *out (caller frees). */
static int req(struct fx *f, const sk_user *u, const char *method, const char *path, const char *body, json_t **out)
{
	sk_api_request rq = {
		.method = method, .path = path, .body = body, .body_len = body ? strlen(body) : 0, .user = u};
	sk_api_response rs;
	int status;

	sk_api_handle(f->api, &rq, &rs);
	status = rs.status;
	if (out)
		*out = rs.body ? json_loadb(rs.body, rs.len, 0, NULL) : NULL;
	sk_api_response_release(&rs);
	return status;
}

static void admin(struct fx *f, const char *method, const char *path, const char *body)
{
	cleanup_json json_t *out = NULL;
	int st = req(f, sk_user_apiserver(), method, path, body, &out);

	if (st >= 300)
		fail_msg("%s %s: %d %s", method, path, st, json_string_value(json_object_get(out, "message")));
}

static const char *msg(json_t *o) { return json_string_value(json_object_get(o, "message")); }

static void test_authorizer_namespace_edit(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	sk_user *bob = sk_user_new("bob", "", groups);
	cleanup_json json_t *out = NULL, *out2 = NULL;

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-a\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
	      "{\"metadata\":{\"name\":\"bob-edit\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]}");
	/* edit is aggregated by the controller, which does not run here: give it rules by hand */
	admin(f, "PUT", "/apis/rbac.authorization.k8s.io/v1/clusterroles/edit",
	      "{\"metadata\":{\"name\":\"edit\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
	      "\"verbs\":[\"get\",\"list\",\"create\"]}]}");
	assert_int_equal(req(f, bob, "POST", "/api/v1/namespaces/team-a/configmaps",
			     "{\"metadata\":{\"name\":\"c1\"},\"data\":{\"a\":\"b\"}}", NULL),
			 201);
	assert_int_equal(req(f, bob, "GET", "/api/v1/namespaces/team-a/configmaps/c1", NULL, NULL), 200);
	assert_int_equal(req(f, bob, "GET", "/api/v1/namespaces/default/configmaps", NULL, &out), 403);
	assert_string_equal(msg(out),
			    "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API "
			    "group \"\" in the namespace \"default\"");
	assert_int_equal(req(f, bob, "DELETE", "/api/v1/namespaces/team-a/configmaps/c1", NULL, &out2), 403);
	/* discovery and the health endpoints from the bootstrap policy */
	assert_int_equal(req(f, bob, "GET", "/api", NULL, NULL), 200);
	assert_int_equal(req(f, sk_user_anonymous(), "GET", "/healthz", NULL, NULL), 200);
	assert_int_equal(req(f, sk_user_anonymous(), "GET", "/api", NULL, NULL), 403);
	sk_user_free(bob);
}

static void test_escalation(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	sk_user *carol = sk_user_new("carol", "", groups);
	cleanup_json json_t *out = NULL, *out2 = NULL;
	const char *role = "{\"metadata\":{\"name\":\"secrets\"},\"rules\":[{\"apiGroups\":[\"\"],"
			   "\"resources\":[\"secrets\"],\"verbs\":[\"get\"]}]}";

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-b\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/roles",
	      "{\"metadata\":{\"name\":\"rbac-writer\"},\"rules\":[{\"apiGroups\":[\"rbac.authorization.k8s.io\"],"
	      "\"resources\":[\"roles\",\"rolebindings\"],\"verbs\":[\"create\",\"update\",\"get\"]}]}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/rolebindings",
	      "{\"metadata\":{\"name\":\"carol\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"rbac-writer\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}");
	assert_int_equal(
		req(f, carol, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/roles", role, &out), 403);
	assert_string_equal(msg(out), "roles.rbac.authorization.k8s.io \"secrets\" is forbidden: user \"carol\" "
				      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not "
				      "currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");
	/* escalate on roles lets it through */
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/roles",
	      "{\"metadata\":{\"name\":\"escalator\"},\"rules\":[{\"apiGroups\":[\"rbac.authorization.k8s.io\"],"
	      "\"resources\":[\"roles\"],\"verbs\":[\"escalate\"]}]}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/rolebindings",
	      "{\"metadata\":{\"name\":\"carol-esc\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"escalator\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}");
	assert_int_equal(
		req(f, carol, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/roles", role, NULL), 201);
	/* binding it to herself needs bind (she does not hold secrets/get) */
	assert_int_equal(
		req(f, carol, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/rolebindings",
		    "{\"metadata\":{\"name\":\"self\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
		    "\"kind\":\"Role\",\"name\":\"secrets\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}",
		    &out2),
		403);
	assert_non_null(
		strstr(msg(out2), "rolebindings.rbac.authorization.k8s.io \"self\" is forbidden: user \"carol\""));
	sk_user_free(carol);
}

static void test_reviews(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	sk_user *dave = sk_user_new("dave", "", groups);
	cleanup_json json_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	cleanup_free char *rules = NULL;

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-c\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-c/roles",
	      "{\"metadata\":{\"name\":\"pods\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],"
	      "\"verbs\":[\"get\"]}]}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-c/rolebindings",
	      "{\"metadata\":{\"name\":\"dave\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"pods\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"dave\"}]}");
	assert_int_equal(req(f, dave, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			     "{\"spec\":{\"resourceAttributes\":{\"namespace\":\"team-c\",\"verb\":\"get\","
			     "\"resource\":\"pods\"}}}",
			     &a),
			 201);
	assert_true(json_is_true(json_object_get(json_object_get(a, "status"), "allowed")));
	assert_int_equal(req(f, sk_user_apiserver(), "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			     "{\"spec\":{\"user\":\"dave\",\"resourceAttributes\":{\"namespace\":\"default\","
			     "\"verb\":\"get\",\"resource\":\"pods\"}}}",
			     &b),
			 201);
	assert_true(json_is_false(json_object_get(json_object_get(b, "status"), "allowed")));
	/* dave may not ask about others */
	assert_int_equal(req(f, dave, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			     "{\"spec\":{\"user\":\"x\",\"nonResourceAttributes\":{\"path\":\"/x\",\"verb\":\"get\"}}}",
			     NULL),
			 403);
	assert_int_equal(req(f, dave, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
			     "{\"spec\":{\"namespace\":\"team-c\"}}", &c),
			 201);
	rules = json_dumps(json_object_get(c, "status"), JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(rules, "\"resources\":[\"pods\"]"));
	assert_int_equal(
		req(f, dave, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "{\"spec\":{}}", &d),
		422);
	/* an aggregationRule's selectors are label selectors */
	assert_int_equal(req(f, sk_user_apiserver(), "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
			     "{\"metadata\":{\"name\":\"agg\"},\"aggregationRule\":{\"clusterRoleSelectors\":"
			     "[{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Bad\"}]}]}}",
			     NULL),
			 422);
	sk_user_free(dave);
}

/* sk__authorize as u: 1 allowed, 0 not; the reason in *why (caller frees). */
static int can(struct fx *f, const sk_user *u, const char *verb, const char *res, const char *ns, const char *name,
	       char **why)
{
	sk_authz_attrs a = {.user = u,
			    .verb = verb,
			    .resource_request = 1,
			    .api_group = "",
			    .api_version = "v1",
			    .resource = res,
			    .subresource = "",
			    .ns = ns,
			    .name = name,
			    .path = ""};
	char *reason = NULL;
	int ok = sk__authorize(f->api, &a, &reason);

	if (why)
		*why = reason;
	else
		free(reason);
	return ok;
}

/* The same question twice: the remembered answer is the decided one. */
static int can2(struct fx *f, const sk_user *u, const char *verb, const char *res, const char *ns, const char *name)
{
	char *r1 = NULL, *r2 = NULL;
	int a = can(f, u, verb, res, ns, name, &r1), b = can(f, u, verb, res, ns, name, &r2);

	assert_int_equal(a, b);
	if (r1 || r2)
		assert_string_equal(r1 ? r1 : "(null)", r2 ? r2 : "(null)");
	free(r1);
	free(r2);
	return a;
}

/* Decisions are remembered per user and revision of the policy: asked
 * again, after a change of a role or a binding, by another user or group,
 * in another namespace, for another name where a rule names some, and past
 * the tables' sizes, they stay what the rules say. */
static void test_decision_cache(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	const char *ops_groups[] = {"ops", SK_GROUP_AUTHENTICATED, NULL};
	sk_user *erin = sk_user_new("erin", "", groups), *erin_ops = sk_user_new("erin", "", ops_groups);
	char *why = NULL, name[32];

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-d\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-d/roles",
	      "{\"metadata\":{\"name\":\"cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
	      "\"verbs\":[\"get\"]}]}");
	assert_false(can2(f, erin, "get", "configmaps", "team-d", "a"));
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-d/rolebindings",
	      "{\"metadata\":{\"name\":\"erin\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"cm\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"erin\"}]}");
	assert_true(can2(f, erin, "get", "configmaps", "team-d", "a"));
	assert_true(can(f, erin, "get", "configmaps", "team-d", "b", &why));
	assert_string_equal(why, "RBAC: allowed by RoleBinding \"erin/team-d\" of Role \"cm\" to User \"erin\"");
	free(why);
	assert_false(can2(f, erin, "list", "configmaps", "team-d", ""));
	assert_false(can2(f, erin, "get", "configmaps", "default", "a"));
	assert_false(can2(f, erin, "get", "secrets", "team-d", "a"));
	/* a changed role, then a name-limited one */
	admin(f, "PUT", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-d/roles/cm",
	      "{\"metadata\":{\"name\":\"cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
	      "\"verbs\":[\"get\",\"list\"]}]}");
	assert_true(can2(f, erin, "list", "configmaps", "team-d", ""));
	admin(f, "PUT", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-d/roles/cm",
	      "{\"metadata\":{\"name\":\"cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
	      "\"verbs\":[\"get\"],\"resourceNames\":[\"a\"]}]}");
	assert_true(can2(f, erin, "get", "configmaps", "team-d", "a"));
	assert_false(can2(f, erin, "get", "configmaps", "team-d", "b"));
	assert_false(can2(f, erin, "list", "configmaps", "team-d", ""));
	/* the same name in another group: another user to RBAC */
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
	      "{\"metadata\":{\"name\":\"ops-view\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"ClusterRole\",\"name\":\"view-cm\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"ops\"}]}");
	assert_false(can(f, erin_ops, "get", "configmaps", "default", "b", &why));
	assert_string_equal(why, "RBAC: clusterrole.rbac.authorization.k8s.io \"view-cm\" not found");
	free(why);
	assert_false(can2(f, erin_ops, "get", "configmaps", "default", "b"));
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
	      "{\"metadata\":{\"name\":\"view-cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
	      "\"verbs\":[\"get\"]}]}");
	assert_true(can2(f, erin_ops, "get", "configmaps", "default", "b"));
	assert_false(can2(f, erin, "get", "configmaps", "default", "b"));
	/* more names than a user's table holds, then more users than the cache holds */
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_false(can(f, erin, "get", "configmaps", "team-d", name, NULL));
	}
	assert_true(can2(f, erin, "get", "configmaps", "team-d", "a"));
	for (int i = 0; i < 4200; i++) {
		sk_user *u;

		snprintf(name, sizeof(name), "u%d", i);
		u = sk_user_new(name, "", ops_groups);
		assert_true(can(f, u, "get", "configmaps", "default", "x", NULL));
		sk_user_free(u);
	}
	assert_true(can2(f, erin_ops, "get", "configmaps", "team-d", "b"));
	assert_true(can2(f, erin, "get", "configmaps", "team-d", "a"));
	assert_false(can2(f, erin, "get", "configmaps", "team-d", "b"));
	sk_user_free(erin);
	sk_user_free(erin_ops);
}

struct asker {
	struct fx *f;
	const sk_user *u;
	int wrong; /* allowed a name the role never names */
};

static void *ask(void *arg)
{
	struct asker *k = arg;
	char name[32];

	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "n%d", i % 300);
		if (can(k->f, k->u, "get", "configmaps", "team-e", name, NULL) && i % 300 >= 100)
			k->wrong++;
		can(k->f, k->u, i % 2 ? "list" : "watch", "configmaps", i % 3 ? "team-e" : "default", "", NULL);
	}
	return NULL;
}

/* Threads deciding at once, filling, growing and clearing the tables while
 * the policy changes under them (for the sanitizers). */
static void test_decision_cache_threads(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	sk_user *u = sk_user_new("frank", "", groups);
	struct asker k[4];
	pthread_t t[4];
	char role[256];

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-e\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-e/rolebindings",
	      "{\"metadata\":{\"name\":\"frank\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"cm\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"frank\"}]}");
	for (int i = 0; i < 4; i++) {
		k[i] = (struct asker){.f = f, .u = u};
		pthread_create(&t[i], NULL, ask, &k[i]);
	}
	for (int i = 0; i < 6; i++) {
		snprintf(role, sizeof(role),
			 "{\"metadata\":{\"name\":\"cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":["
			 "\"configmaps\"],"
			 "\"verbs\":[\"get\"],\"resourceNames\":[\"n%d\",\"n%d\"]}]}",
			 i, 99 - i);
		admin(f, i ? "PUT" : "POST",
		      i ? "/apis/rbac.authorization.k8s.io/v1/namespaces/team-e/roles/cm"
			: "/apis/rbac.authorization.k8s.io/v1/namespaces/team-e/roles",
		      role);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(k[i].wrong, 0);
	}
	assert_true(can2(f, u, "get", "configmaps", "team-e", "n5"));
	assert_true(can2(f, u, "get", "configmaps", "team-e", "n94"));
	assert_false(can2(f, u, "get", "configmaps", "team-e", "n4"));
	sk_user_free(u);
}

/* CEL's authz library over the server's chain (celauthz.h): RBAC decides
 * for the request's user and for a service account serviceAccount() names. */
static int cel_check(struct fx *f, const sk_user *u, const char *expr)
{
	sk_cel_authz_ctx ctx = {f->api, u};
	sk_cel_vars vars = {.authorize = sk__cel_authorize, .authorize_ud = &ctx};
	char *err = NULL;
	sk_cel_program *p = sk_cel_compile(expr, SK_CEL_VAR_AUTHORIZER, NULL, &err);
	sk_cel_result r;
	int b;

	if (!p)
		fail_msg("%s: %s", expr, err);
	if (sk_cel_eval(p, &vars, &r) != SK_CEL_BOOL)
		fail_msg("%s: %s", expr, r.text ? r.text : "not a bool");
	b = r.b;
	sk_cel_result_release(&r);
	sk_cel_program_free(p);
	return b;
}

static void test_cel_authorizer(void **state)
{
	struct fx *f = *state;
	const char *groups[] = {SK_GROUP_AUTHENTICATED, NULL};
	sk_user *erin = sk_user_new("erin", "", groups);

	admin(f, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-c\"}}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-c/roles",
	      "{\"metadata\":{\"name\":\"pods\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\","
	      "\"pods/status\"],\"verbs\":[\"list\",\"get\"]}]}");
	admin(f, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-c/rolebindings",
	      "{\"metadata\":{\"name\":\"pods\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
	      "\"kind\":\"Role\",\"name\":\"pods\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"erin\"},"
	      "{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"team-c\"}]}");
	assert_true(cel_check(f, erin, "authorizer.group('').resource('pods').namespace('team-c').check('list').allowed()"));
	assert_true(cel_check(f, erin,
			      "authorizer.group('').resource('pods').subresource('status').namespace('team-c')"
			      ".name('p').labelSelector('app=web').check('get').allowed()"));
	assert_false(cel_check(f, erin, "authorizer.group('').resource('pods').namespace('team-c').check('delete')"
					".allowed()"));
	assert_false(cel_check(f, erin, "authorizer.group('').resource('pods').namespace('default').check('list')"
					".allowed()"));
	assert_false(cel_check(f, erin, "authorizer.group('').resource('pods').namespace('team-c').check('list')"
					".errored()"));
	/* the service account's own bindings, not erin's */
	assert_true(cel_check(f, erin,
			      "authorizer.serviceAccount('team-c', 'builder').group('').resource('pods')"
			      ".namespace('team-c').check('get').allowed()"));
	assert_false(cel_check(f, erin,
			       "authorizer.serviceAccount('team-c', 'other').group('').resource('pods')"
			       ".namespace('team-c').check('get').allowed()"));
	/* non-resource paths from the bootstrap policy; system:masters may do anything */
	assert_true(cel_check(f, erin, "authorizer.path('/healthz').check('get').allowed()"));
	assert_false(cel_check(f, sk_user_anonymous(), "authorizer.path('/api').check('get').allowed()"));
	assert_true(cel_check(f, sk_user_apiserver(),
			      "authorizer.group('apps').resource('deployments').check('delete').allowed()"));
	sk_user_free(erin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_verbs_groups),
		cmocka_unit_test(test_rule_subresources_names),
		cmocka_unit_test(test_rule_urls),
		cmocka_unit_test(test_subjects),
		cmocka_unit_test(test_covers),
		cmocka_unit_test(test_policy_notation),
		cmocka_unit_test_setup_teardown(test_authorizer_namespace_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reviews, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decision_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decision_cache_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cel_authorizer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
