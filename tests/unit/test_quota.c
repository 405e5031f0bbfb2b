/* Quota evaluators (src/kube/quota.c): usage of pods, Services, PVCs and
 * object counts, scopes and constraints, against upstream's
 * pkg/quota/v1/evaluator/core tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/quota.h"
#include "util/util.h"

/* JSON with single quotes for readability. */
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

static int64_t get(const sk_kube_usage *u, const char *name)
{
	sk_kube_usage_item *it = sk_kube_usage_find(u, name);

	return it ? it->milli : -1;
}

static void test_pod_usage(void **state)
{
	cleanup_json json_t *pod = J("{'spec':{'containers':[{'name':'a','resources':{'requests':{'cpu':'250m',"
				     "'memory':'64Mi','nvidia.com/gpu':'1'},'limits':{'cpu':'1','memory':'128Mi',"
				     "'nvidia.com/gpu':'1'}}},{'name':'b','resources':{'limits':{'cpu':'500m'}}}],"
				     "'initContainers':[{'name':'i','resources':{'requests':{'cpu':'2'}}}]}}");
	sk_kube_usage u = {0};

	assert_int_equal(sk_kube_quota_usage("", "pods", pod, 0, &u), 0);
	assert_int_equal(get(&u, "pods"), 1000);
	assert_int_equal(get(&u, "count/pods"), 1000);
	/* max(app 250m + 500m (request from limit), init 2) */
	assert_int_equal(get(&u, "requests.cpu"), 2000);
	assert_int_equal(get(&u, "cpu"), 2000);
	assert_int_equal(get(&u, "limits.cpu"), 1500);
	assert_int_equal(get(&u, "requests.memory"), 64LL * 1024 * 1024 * 1000);
	assert_int_equal(get(&u, "limits.memory"), 128LL * 1024 * 1024 * 1000);
	assert_int_equal(get(&u, "requests.nvidia.com/gpu"), 1000);
	assert_int_equal(get(&u, "nvidia.com/gpu"), -1);
	sk_kube_usage_release(&u);
}

static void test_terminal_and_deleted_pods(void **state)
{
	cleanup_json json_t *done = J("{'spec':{'containers':[{'name':'a','resources':{'requests':{'cpu':'1'}}}]},"
				      "'status':{'phase':'Succeeded'}}");
	cleanup_json json_t *gone = J("{'metadata':{'deletionTimestamp':'2026-01-01T00:00:00Z',"
				      "'deletionGracePeriodSeconds':30},"
				      "'spec':{'containers':[{'name':'a','resources':{'requests':{'cpu':'1'}}}]}}");
	sk_kube_usage u = {0};
	int64_t t0 = 1767225600; /* 2026-01-01T00:00:00Z */

	assert_int_equal(sk_kube_quota_usage("", "pods", done, 0, &u), 0);
	assert_int_equal(get(&u, "count/pods"), 1000);
	assert_int_equal(get(&u, "pods"), -1);
	assert_int_equal(get(&u, "requests.cpu"), -1);
	/* within its grace the pod still counts, past it not */
	assert_int_equal(sk_kube_quota_usage("", "pods", gone, t0 + 10, &u), 0);
	assert_int_equal(get(&u, "pods"), 1000);
	assert_int_equal(sk_kube_quota_usage("", "pods", gone, t0 + 31, &u), 0);
	assert_int_equal(get(&u, "pods"), -1);
	sk_kube_usage_release(&u);
}

static void test_service_and_pvc_usage(void **state)
{
	cleanup_json json_t *np = J("{'spec':{'type':'NodePort','ports':[{'port':80},{'port':443}]}}");
	cleanup_json json_t *lb = J("{'spec':{'type':'LoadBalancer','allocateLoadBalancerNodePorts':false,"
				    "'ports':[{'port':80,'nodePort':30001},{'port':443}]}}");
	cleanup_json json_t *pvc = J("{'spec':{'storageClassName':'fast','resources':{'requests':{'storage':'1Gi'}}},"
				     "'status':{'allocatedResources':{'storage':'2Gi'}}}");
	sk_kube_usage u = {0};

	assert_int_equal(sk_kube_quota_usage("", "services", np, 0, &u), 0);
	assert_int_equal(get(&u, "services"), 1000);
	assert_int_equal(get(&u, "services.nodeports"), 2000);
	assert_int_equal(get(&u, "services.loadbalancers"), 0);
	assert_int_equal(sk_kube_quota_usage("", "services", lb, 0, &u), 0);
	assert_int_equal(get(&u, "services.nodeports"), 1000);
	assert_int_equal(get(&u, "services.loadbalancers"), 1000);
	assert_int_equal(sk_kube_quota_usage("", "persistentvolumeclaims", pvc, 0, &u), 0);
	assert_int_equal(get(&u, "persistentvolumeclaims"), 1000);
	assert_int_equal(get(&u, "requests.storage"), 2LL * 1024 * 1024 * 1024 * 1000);
	assert_int_equal(get(&u, "fast.storageclass.storage.k8s.io/requests.storage"), 2LL * 1024 * 1024 * 1024 * 1000);
	assert_int_equal(get(&u, "fast.storageclass.storage.k8s.io/persistentvolumeclaims"), 1000);
	sk_kube_usage_release(&u);
}

static void test_object_counts(void **state)
{
	cleanup_json json_t *o = J("{}");
	sk_kube_usage u = {0};
	char g[64], r[64];

	assert_int_equal(sk_kube_quota_usage("apps", "deployments", o, 0, &u), 0);
	assert_int_equal(get(&u, "count/deployments.apps"), 1000);
	assert_int_equal(sk_kube_quota_usage("", "configmaps", o, 0, &u), 0);
	assert_int_equal(get(&u, "count/configmaps"), 1000);
	assert_int_equal(get(&u, "configmaps"), 1000);
	sk_kube_usage_release(&u);
	assert_true(sk_kube_quota_covers("example.com", "widgets", "count/widgets.example.com"));
	assert_false(sk_kube_quota_covers("example.com", "widgets", "count/widgets"));
	assert_true(sk_kube_quota_covers("", "pods", "requests.nvidia.com/gpu"));
	assert_false(sk_kube_quota_covers("", "pods", "requests.storage"));
	assert_true(sk_kube_quota_resource_of("count/widgets.example.com", g, sizeof(g), r, sizeof(r)));
	assert_string_equal(g, "example.com");
	assert_string_equal(r, "widgets");
	assert_true(sk_kube_quota_resource_of("limits.memory", g, sizeof(g), r, sizeof(r)));
	assert_string_equal(g, "");
	assert_string_equal(r, "pods");
	assert_true(sk_kube_quota_resource_of("gold.storageclass.storage.k8s.io/requests.storage", g, sizeof(g), r,
					      sizeof(r)));
	assert_string_equal(r, "persistentvolumeclaims");
	assert_false(sk_kube_quota_resource_of("bogus", g, sizeof(g), r, sizeof(r)));
}

static void test_scopes(void **state)
{
	cleanup_json json_t *be = J("{'spec':{'containers':[{'name':'a'}]}}");
	cleanup_json json_t *burst = J("{'spec':{'activeDeadlineSeconds':10,'priorityClassName':'high',"
				       "'containers':[{'name':'a','resources':{'requests':{'cpu':'1'}}}]}}");
	cleanup_json json_t *xns = J(
		"{'spec':{'containers':[{'name':'a'}],'affinity':{'podAntiAffinity':{"
		"'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':1,'podAffinityTerm':{"
		"'topologyKey':'k','namespaceSelector':{}}}]}}}}");
	cleanup_json json_t *q_be = J("{'spec':{'scopes':['BestEffort']}}");
	cleanup_json json_t *q_term = J("{'spec':{'scopes':['Terminating','NotBestEffort']}}");
	cleanup_json json_t *q_in = J("{'spec':{'scopeSelector':{'matchExpressions':[{'scopeName':'PriorityClass',"
				      "'operator':'In','values':['high']}]}}}");
	cleanup_json json_t *q_dne = J("{'spec':{'scopeSelector':{'matchExpressions':[{'scopeName':'PriorityClass',"
				       "'operator':'DoesNotExist'}]}}}");
	cleanup_json json_t *q_notin = J("{'spec':{'scopeSelector':{'matchExpressions':[{'scopeName':'PriorityClass',"
					 "'operator':'NotIn','values':['high']}]}}}");
	cleanup_json json_t *q_x = J("{'spec':{'scopes':['CrossNamespacePodAffinity']}}");

	assert_true(sk_kube_quota_scopes_match(q_be, "", "pods", be));
	assert_false(sk_kube_quota_scopes_match(q_be, "", "pods", burst));
	/* a scoped quota matches no other kind */
	assert_false(sk_kube_quota_scopes_match(q_be, "", "services", be));
	assert_true(sk_kube_quota_scopes_match(q_term, "", "pods", burst));
	assert_false(sk_kube_quota_scopes_match(q_term, "", "pods", be));
	assert_true(sk_kube_quota_scopes_match(q_in, "", "pods", burst));
	assert_false(sk_kube_quota_scopes_match(q_in, "", "pods", be));
	assert_true(sk_kube_quota_scopes_match(q_dne, "", "pods", be));
	assert_false(sk_kube_quota_scopes_match(q_dne, "", "pods", burst));
	assert_true(sk_kube_quota_scopes_match(q_notin, "", "pods", be));
	assert_false(sk_kube_quota_scopes_match(q_notin, "", "pods", burst));
	assert_true(sk_kube_quota_scopes_match(q_x, "", "pods", xns));
	assert_false(sk_kube_quota_scopes_match(q_x, "", "pods", be));
}

static void test_constraints(void **state)
{
	cleanup_json json_t *hard = J("{'requests.cpu':'1','limits.memory':'1Gi','pods':'3'}");
	cleanup_json json_t *pod = J("{'spec':{'containers':[{'name':'b'},{'name':'a','resources':{'requests':"
				     "{'cpu':'1'}}}],'initContainers':[{'name':'i','resources':{'limits':"
				     "{'memory':'1Mi'}}}]}}");
	cleanup_json json_t *ok = J("{'spec':{'containers':[{'name':'a','resources':{'requests':{'cpu':'1'},"
				    "'limits':{'memory':'1Mi'}}}]}}");
	cleanup_free char *msg = sk_kube_quota_constraints(hard, "", "pods", pod);

	assert_string_equal(msg, "must specify limits.memory for: a,b; requests.cpu for: b,i");
	assert_null(sk_kube_quota_constraints(hard, "", "pods", ok));
	assert_null(sk_kube_quota_constraints(hard, "", "services", pod));
}

static void test_format(void **state)
{
	char buf[32];

	sk_kube_quota_format(1500, "2", buf, sizeof(buf));
	assert_string_equal(buf, "1500m");
	sk_kube_quota_format(2000, "2", buf, sizeof(buf));
	assert_string_equal(buf, "2");
	sk_kube_quota_format(20000, "20", buf, sizeof(buf));
	assert_string_equal(buf, "20");
	sk_kube_quota_format(256LL * 1024 * 1024 * 1000, "1Gi", buf, sizeof(buf));
	assert_string_equal(buf, "256Mi");
	sk_kube_quota_format(1536LL * 1000, "1Gi", buf, sizeof(buf));
	assert_string_equal(buf, "1536");
	sk_kube_quota_format(2000000LL * 1000, "1G", buf, sizeof(buf));
	assert_string_equal(buf, "2M");
	sk_kube_quota_format(0, "1Gi", buf, sizeof(buf));
	assert_string_equal(buf, "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_usage),
		cmocka_unit_test(test_terminal_and_deleted_pods),
		cmocka_unit_test(test_service_and_pvc_usage),
		cmocka_unit_test(test_object_counts),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_constraints),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
