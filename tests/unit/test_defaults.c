#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/defaults.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad json: %s", e.text);
	return j;
}

/* Value at a dotted path with [i] indices, or NULL. */
static json_t *at(json_t *j, const char *path)
{
	const char *p = path;

	while (*p && j) {
		size_t n = strcspn(p, ".[");
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		j = json_object_get(j, key);
		p += n;
		while (*p == '[' && j) {
			j = json_array_get(j, strtoul(p + 1, NULL, 10));
			p = strchr(p, ']') + 1;
		}
		if (*p == '.')
			p++;
	}
	return j;
}

#define ASSERT_STR(j, p, want) assert_string_equal(json_string_value(at(j, p)) ?: "(null)", want)
#define ASSERT_INT(j, p, want) assert_int_equal(json_integer_value(at(j, p)), want)

static void test_pod(void **state)
{
	cleanup_json json_t *pod = parse("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
		"{\"name\":\"a\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
		"\"livenessProbe\":{\"httpGet\":{\"port\":80}},\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}},"
		"\"env\":[{\"name\":\"N\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]},"
		"{\"name\":\"b\",\"image\":\"nginx:1.25\"},{\"name\":\"c\",\"image\":\"nginx@sha256:abc\"},"
		"{\"name\":\"d\",\"image\":\"reg:5000/x:latest\"},{\"name\":\"e\",\"image\":\"reg:5000/x\"}],"
		"\"volumes\":[{\"name\":\"v1\"},{\"name\":\"v2\",\"configMap\":{\"name\":\"cm\"}},{\"name\":\"v3\",\"secret\":{\"secretName\":\"s\"}}]}}");

	sk_defaults_apply("Pod", pod);
	ASSERT_STR(pod, "spec.restartPolicy", "Always");
	ASSERT_STR(pod, "spec.dnsPolicy", "ClusterFirst");
	ASSERT_STR(pod, "spec.schedulerName", "default-scheduler");
	ASSERT_INT(pod, "spec.terminationGracePeriodSeconds", 30);
	assert_true(json_is_true(at(pod, "spec.enableServiceLinks")));
	assert_true(json_is_object(at(pod, "spec.securityContext")));
	ASSERT_STR(pod, "spec.containers[0].imagePullPolicy", "Always");
	ASSERT_STR(pod, "spec.containers[1].imagePullPolicy", "IfNotPresent");
	ASSERT_STR(pod, "spec.containers[2].imagePullPolicy", "IfNotPresent");
	ASSERT_STR(pod, "spec.containers[3].imagePullPolicy", "Always");
	ASSERT_STR(pod, "spec.containers[4].imagePullPolicy", "Always");
	ASSERT_STR(pod, "spec.containers[0].terminationMessagePath", "/dev/termination-log");
	assert_true(json_is_object(at(pod, "spec.containers[1].resources")));
	ASSERT_STR(pod, "spec.containers[0].terminationMessagePolicy", "File");
	ASSERT_STR(pod, "spec.containers[0].ports[0].protocol", "TCP");
	ASSERT_INT(pod, "spec.containers[0].livenessProbe.timeoutSeconds", 1);
	ASSERT_INT(pod, "spec.containers[0].livenessProbe.periodSeconds", 10);
	ASSERT_INT(pod, "spec.containers[0].livenessProbe.successThreshold", 1);
	ASSERT_INT(pod, "spec.containers[0].livenessProbe.failureThreshold", 3);
	ASSERT_STR(pod, "spec.containers[0].livenessProbe.httpGet.scheme", "HTTP");
	ASSERT_STR(pod, "spec.containers[0].livenessProbe.httpGet.path", "/");
	ASSERT_STR(pod, "spec.containers[0].resources.requests.cpu", "1");
	ASSERT_STR(pod, "spec.containers[0].resources.requests.memory", "1Gi");
	ASSERT_STR(pod, "spec.containers[0].env[0].valueFrom.fieldRef.apiVersion", "v1");
	assert_true(json_is_object(at(pod, "spec.volumes[0].emptyDir")));
	ASSERT_INT(pod, "spec.volumes[1].configMap.defaultMode", 420);
	ASSERT_INT(pod, "spec.volumes[2].secret.defaultMode", 420);
}

static void test_pod_idempotent(void **state)
{
	cleanup_json json_t *pod = parse("{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"a\",\"image\":\"x\","
		"\"imagePullPolicy\":\"Never\"}]}}");
	cleanup_json json_t *copy = NULL;

	sk_defaults_apply("Pod", pod);
	copy = json_deep_copy(pod);
	sk_defaults_apply("Pod", pod);
	assert_true(json_equal(pod, copy));
	ASSERT_STR(pod, "spec.restartPolicy", "Never");
	ASSERT_STR(pod, "spec.containers[0].imagePullPolicy", "Never");
}

static void test_tolerations_priority(void **state)
{
	cleanup_json json_t *pod = parse("{\"spec\":{\"tolerations\":[{\"key\":\"node.kubernetes.io/unreachable\","
		"\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":5}],\"containers\":[]}}");
	cleanup_json json_t *pc = parse("{\"value\":1000,\"preemptionPolicy\":\"Never\"}");
	cleanup_json json_t *pod2 = parse("{\"spec\":{}}");

	sk_defaults_pod_tolerations(pod);
	assert_int_equal(json_array_size(at(pod, "spec.tolerations")), 2);
	ASSERT_STR(pod, "spec.tolerations[1].key", "node.kubernetes.io/not-ready");
	ASSERT_INT(pod, "spec.tolerations[1].tolerationSeconds", 300);
	ASSERT_INT(pod, "spec.tolerations[0].tolerationSeconds", 5);
	sk_defaults_pod_priority(pod, pc);
	ASSERT_INT(pod, "spec.priority", 1000);
	ASSERT_STR(pod, "spec.preemptionPolicy", "Never");
	sk_defaults_pod_priority(pod2, NULL);
	ASSERT_INT(pod2, "spec.priority", 0);
	ASSERT_STR(pod2, "spec.preemptionPolicy", "PreemptLowerPriority");
}

static void test_deployment(void **state)
{
	cleanup_json json_t *d = parse("{\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":"
		"{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
		"\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}}}");

	sk_defaults_apply("Deployment", d);
	ASSERT_INT(d, "spec.replicas", 1);
	ASSERT_STR(d, "spec.strategy.type", "RollingUpdate");
	ASSERT_STR(d, "spec.strategy.rollingUpdate.maxUnavailable", "25%");
	ASSERT_STR(d, "spec.strategy.rollingUpdate.maxSurge", "25%");
	ASSERT_INT(d, "spec.revisionHistoryLimit", 10);
	ASSERT_INT(d, "spec.progressDeadlineSeconds", 600);
	ASSERT_STR(d, "spec.template.spec.restartPolicy", "Always");
	ASSERT_STR(d, "spec.template.spec.containers[0].imagePullPolicy", "Always");
	/* Pod-only defaults do not apply to templates. */
	assert_null(at(d, "spec.template.spec.enableServiceLinks"));
	assert_null(at(d, "spec.template.spec.containers[0].resources.requests"));
}

static void test_recreate(void **state)
{
	cleanup_json json_t *d = parse("{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}");

	sk_defaults_apply("Deployment", d);
	assert_null(at(d, "spec.strategy.rollingUpdate"));
}

static void test_job(void **state)
{
	cleanup_json json_t *j = parse("{\"metadata\":{\"name\":\"pi\",\"uid\":\"u-1\"},\"spec\":{\"template\":"
		"{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"perl:5\"}]}}}}");
	cleanup_json json_t *j2 = parse("{\"spec\":{\"parallelism\":3,\"backoffLimitPerIndex\":1,"
		"\"podFailurePolicy\":{\"rules\":[{\"action\":\"Ignore\",\"onPodConditions\":[{\"type\":\"DisruptionTarget\"}]}]}}}");
	cleanup_json json_t *j3 = parse("{\"metadata\":{\"name\":\"x\"},\"spec\":{}}");
	sk_error_t err = { 0 };

	sk_defaults_apply("Job", j);
	ASSERT_INT(j, "spec.completions", 1);
	ASSERT_INT(j, "spec.parallelism", 1);
	ASSERT_INT(j, "spec.backoffLimit", 6);
	ASSERT_STR(j, "spec.completionMode", "NonIndexed");
	assert_true(json_is_false(at(j, "spec.suspend")));
	ASSERT_STR(j, "spec.podReplacementPolicy", "TerminatingOrFailed");
	assert_int_equal(sk_defaults_job_selector(j, &err), 0);
	assert_string_equal(json_string_value(json_object_get(at(j, "spec.selector.matchLabels"),
		"batch.kubernetes.io/controller-uid")), "u-1");
	assert_string_equal(json_string_value(json_object_get(at(j, "spec.template.metadata.labels"), "job-name")), "pi");
	assert_string_equal(json_string_value(json_object_get(at(j, "spec.template.metadata.labels"), "controller-uid")), "u-1");
	assert_string_equal(json_string_value(json_object_get(at(j, "spec.template.metadata.labels"),
		"batch.kubernetes.io/job-name")), "pi");
	assert_string_equal(json_string_value(json_object_get(at(j, "metadata.labels"), "job-name")), "pi");

	sk_defaults_apply("Job", j2);
	assert_null(at(j2, "spec.completions"));
	ASSERT_INT(j2, "spec.parallelism", 3);
	ASSERT_INT(j2, "spec.backoffLimit", 2147483647);
	ASSERT_STR(j2, "spec.podReplacementPolicy", "Failed");
	ASSERT_STR(j2, "spec.podFailurePolicy.rules[0].onPodConditions[0].status", "True");

	assert_int_equal(sk_defaults_job_selector(j3, &err), -1);
	assert_int_equal(err.code, SK_EINVALID);
}

static void test_cronjob(void **state)
{
	cleanup_json json_t *cj = parse("{\"spec\":{\"schedule\":\"* * * * *\",\"jobTemplate\":{\"spec\":{\"template\":"
		"{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],\"restartPolicy\":\"OnFailure\"}}}}}}");

	sk_defaults_apply("CronJob", cj);
	ASSERT_STR(cj, "spec.concurrencyPolicy", "Allow");
	assert_true(json_is_false(at(cj, "spec.suspend")));
	ASSERT_INT(cj, "spec.successfulJobsHistoryLimit", 3);
	ASSERT_INT(cj, "spec.failedJobsHistoryLimit", 1);
	ASSERT_STR(cj, "spec.jobTemplate.spec.template.spec.dnsPolicy", "ClusterFirst");
	assert_null(at(cj, "spec.jobTemplate.spec.backoffLimit"));
}

static void test_service(void **state)
{
	cleanup_json json_t *s = parse("{\"spec\":{\"selector\":{\"a\":\"b\"},\"ports\":[{\"port\":80},{\"port\":81,\"targetPort\":\"http\"}]}}");
	cleanup_json json_t *np = parse("{\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"port\":80}]}}");

	sk_defaults_apply("Service", s);
	ASSERT_STR(s, "spec.type", "ClusterIP");
	ASSERT_STR(s, "spec.sessionAffinity", "None");
	ASSERT_STR(s, "spec.ports[0].protocol", "TCP");
	ASSERT_INT(s, "spec.ports[0].targetPort", 80);
	ASSERT_STR(s, "spec.ports[1].targetPort", "http");
	ASSERT_STR(s, "spec.internalTrafficPolicy", "Cluster");
	/* not v1 defaults: the Service storage sets them (service.c) */
	assert_null(at(s, "spec.ipFamilyPolicy"));
	assert_null(at(s, "spec.ipFamilies"));
	assert_null(at(s, "spec.externalTrafficPolicy"));
	assert_true(json_is_object(at(s, "status.loadBalancer")));
	sk_defaults_apply("Service", np);
	ASSERT_STR(np, "spec.externalTrafficPolicy", "Cluster");
}

static void test_misc(void **state)
{
	cleanup_json json_t *ns = parse("{\"metadata\":{\"name\":\"n\"}}");
	cleanup_json json_t *sec = parse("{\"data\":{}}");
	cleanup_json json_t *pvc = parse("{\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]}}");
	cleanup_json json_t *pv = parse("{\"spec\":{}}");
	cleanup_json json_t *sc = parse("{\"provisioner\":\"x\"}");
	cleanup_json json_t *pc = parse("{\"value\":1}");
	cleanup_json json_t *rs = parse("{\"spec\":{}}");

	sk_defaults_apply("Namespace", ns);
	ASSERT_STR(ns, "spec.finalizers[0]", "kubernetes");
	ASSERT_STR(ns, "status.phase", "Active");
	sk_defaults_apply("Secret", sec);
	ASSERT_STR(sec, "type", "Opaque");
	{
		cleanup_json json_t *s2 = parse("{\"data\":{\"a\":\"eA==\",\"b\":\"eA==\"},\"stringData\":{\"b\":\"hello\",\"c\":\"ab\",\"d\":\"\"}}");

		sk_defaults_apply("Secret", s2);
		ASSERT_STR(s2, "data.a", "eA==");
		ASSERT_STR(s2, "data.b", "aGVsbG8=");
		ASSERT_STR(s2, "data.c", "YWI=");
		ASSERT_STR(s2, "data.d", "");
		assert_null(at(s2, "stringData"));
	}
	sk_defaults_apply("PersistentVolumeClaim", pvc);
	ASSERT_STR(pvc, "spec.volumeMode", "Filesystem");
	sk_defaults_apply("PersistentVolume", pv);
	ASSERT_STR(pv, "spec.persistentVolumeReclaimPolicy", "Retain");
	ASSERT_STR(pv, "spec.volumeMode", "Filesystem");
	sk_defaults_apply("StorageClass", sc);
	ASSERT_STR(sc, "reclaimPolicy", "Delete");
	ASSERT_STR(sc, "volumeBindingMode", "Immediate");
	sk_defaults_apply("PriorityClass", pc);
	ASSERT_STR(pc, "preemptionPolicy", "PreemptLowerPriority");
	sk_defaults_apply("ReplicaSet", rs);
	ASSERT_INT(rs, "spec.replicas", 1);
	sk_defaults_apply(NULL, rs);
	sk_defaults_apply("Unknown", rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod),
		cmocka_unit_test(test_pod_idempotent),
		cmocka_unit_test(test_tolerations_priority),
		cmocka_unit_test(test_deployment),
		cmocka_unit_test(test_recreate),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_cronjob),
		cmocka_unit_test(test_service),
		cmocka_unit_test(test_misc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
