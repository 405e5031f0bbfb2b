#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/defaults.h"
#include "api/validate.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad json: %s: %s", e.text, s);
	return j;
}

/* Defaults then validates kind from JSON text; returns the Status message
 * (caller frees) or NULL when valid. */
static char *check_update(const char *kind, const char *text, const char *old_text)
{
	cleanup_json json_t *o = parse(text);
	cleanup_json json_t *old = old_text ? parse(old_text) : NULL;
	cleanup_json json_t *causes = NULL;

	sk_defaults_apply(kind, o);
	if (old)
		sk_defaults_apply(kind, old);
	causes = sk_validate(kind, o, old);
	if (!causes)
		return NULL;
	assert_true(json_array_size(causes) > 0);
	return sk_validate_message(kind, json_string_value(json_object_get(json_object_get(o, "metadata"), "name")), causes);
}

static char *check(const char *kind, const char *text)
{
	return check_update(kind, text, NULL);
}

/* A subresource's body (binding, scale, eviction) checked by fn. */
#define EXPECT_BODY(fn, kind, text, want) do { \
	cleanup_json json_t *o_ = parse(text); \
	cleanup_json json_t *c_ = fn(o_); \
	char *m_; \
	if (!c_) fail_msg("expected an error: %s", want); \
	m_ = sk_validate_message(kind, json_string_value(json_object_get(json_object_get(o_, "metadata"), "name")), c_); \
	assert_string_equal(m_, want); \
	free(m_); \
} while (0)

#define EXPECT(kind, text, want) do { \
	char *m_ = check(kind, text); \
	if (!m_) fail_msg("expected an error: %s", want); \
	assert_string_equal(m_, want); \
	free(m_); \
} while (0)
#define VALID(kind, text) do { \
	char *m_ = check(kind, text); \
	if (m_) { print_error("%s\n", m_); free(m_); fail(); } \
} while (0)

#define META(name) "\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\"}"
#define CTR "{\"name\":\"c\",\"image\":\"nginx\"}"
#define POD(name, spec) "{" META(name) ",\"spec\":" spec "}"

static const char dns_subdomain_msg[] = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
	"characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
	"used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

static void test_pod_valid(void **state)
{
	VALID("Pod", POD("web", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80,\"name\":\"http\"}],"
		"\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"POD\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}],"
		"\"resources\":{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"1\"}},"
		"\"readinessProbe\":{\"httpGet\":{\"port\":\"http\"}},\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":\"/data\"}]}],"
		"\"initContainers\":[{\"name\":\"side\",\"image\":\"busybox\",\"restartPolicy\":\"Always\",\"startupProbe\":{\"exec\":{\"command\":[\"true\"]}}}],"
		"\"volumes\":[{\"name\":\"data\",\"emptyDir\":{}}],\"tolerations\":[{\"operator\":\"Exists\"}],"
		"\"nodeSelector\":{\"kubernetes.io/os\":\"linux\"}}"));
}

static void test_pod_name(void **state)
{
	char want[1024];

	snprintf(want, sizeof(want), "Pod \"Foo_bar\" is invalid: metadata.name: Invalid value: \"Foo_bar\": %s", dns_subdomain_msg);
	EXPECT("Pod", POD("Foo_bar", "{\"containers\":[" CTR "]}"), want);
	EXPECT("Pod", "{\"metadata\":{\"namespace\":\"default\"},\"spec\":{\"containers\":[" CTR "]}}",
	       "Pod \"\" is invalid: metadata.name: Required value: name or generateName is required");
	EXPECT("Pod", "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[" CTR "]}}",
	       "Pod \"x\" is invalid: metadata.namespace: Required value");
}

static void test_pod_image_required(void **state)
{
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\"}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].image: Required value");
	EXPECT("Pod", POD("x", "{\"containers\":[]}"), "Pod \"x\" is invalid: spec.containers: Required value");
}

static void test_pod_enums(void **state)
{
	EXPECT("Pod", POD("x", "{\"restartPolicy\":\"Sometimes\",\"containers\":[" CTR "]}"),
	       "Pod \"x\" is invalid: spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\", \"OnFailure\"");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"imagePullPolicy\":\"Maybe\"}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: \"Maybe\": supported values: \"Always\", \"IfNotPresent\", \"Never\"");
}

/* A toleration without key and operator is refused, as upstream: the empty
 * operator is Equal, and an empty key needs Exists (it would otherwise
 * tolerate every taint without a value). */
static void test_pod_toleration_empty_key(void **state)
{
	EXPECT("Pod", POD("x", "{\"tolerations\":[{\"effect\":\"NoSchedule\"}],\"containers\":[" CTR "]}"),
	       "Pod \"x\" is invalid: spec.tolerations[0].operator: Invalid value: \"\": operator must be Exists when "
	       "`key` is empty, which means \"match all values and all keys\"");
	VALID("Pod", POD("x", "{\"tolerations\":[{\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],\"containers\":[" CTR "]}"));
}

static void test_pod_several(void **state)
{
	EXPECT("Pod", POD("x", "{\"restartPolicy\":\"Sometimes\",\"containers\":[{\"name\":\"c\"},{\"name\":\"c\",\"image\":\"i\"}]}"),
	       "Pod \"x\" is invalid: [spec.containers[0].image: Required value, spec.containers[1].name: Duplicate value: \"c\", "
	       "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\", \"OnFailure\"]");
}

static void test_pod_containers(void **state)
{
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"C_1\",\"image\":\"i\"}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].name: Invalid value: \"C_1\": a lowercase RFC 1123 label must consist of lower "
	       "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
	       "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"ports\":[{\"containerPort\":70000}]}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2\"},\"limits\":{\"cpu\":\"1\"}}}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: \"2\": must be less than or equal to cpu limit of 1");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"livenessProbe\":{\"periodSeconds\":3}}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].livenessProbe: Required value: must specify a handler type");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"livenessProbe\":{\"exec\":{\"command\":[\"a\"]},\"tcpSocket\":{\"port\":1}}}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"restartPolicy\":\"Always\"}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers");
	EXPECT("Pod", POD("x", "{\"initContainers\":[{\"name\":\"i\",\"image\":\"i\",\"restartPolicy\":\"Never\"}],\"containers\":[" CTR "]}"),
	       "Pod \"x\" is invalid: spec.initContainers[0].restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"");
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"env\":[{\"name\":\"A=B\",\"value\":\"x\"}]}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must "
	       "consist only of printable ASCII characters other than '='");
}

static void test_pod_volumes(void **state)
{
	EXPECT("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"volumeMounts\":[{\"name\":\"nope\",\"mountPath\":\"/a\"}]}]}"),
	       "Pod \"x\" is invalid: spec.containers[0].volumeMounts[0].name: Not found: \"nope\"");
	EXPECT("Pod", POD("x", "{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}},{\"name\":\"v\",\"emptyDir\":{}}],\"containers\":[" CTR "]}"),
	       "Pod \"x\" is invalid: spec.volumes[1].name: Duplicate value: \"v\"");
	EXPECT("Pod", POD("x", "{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{},\"hostPath\":{\"path\":\"/x\"}}],\"containers\":[" CTR "]}"),
	       "Pod \"x\" is invalid: spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type");
}

static void test_labels(void **state)
{
	EXPECT("Pod", "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\",\"labels\":{\"bad key\":\"v\"}},\"spec\":{\"containers\":[" CTR "]}}",
	       "Pod \"x\" is invalid: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, "
	       "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
	       "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
	EXPECT("Pod", "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\",\"labels\":{\"k\":\"-v\"}},\"spec\":{\"containers\":[" CTR "]}}",
	       "Pod \"x\" is invalid: metadata.labels: Invalid value: \"-v\": a valid label must be an empty string or consist of "
	       "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
	       "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
	EXPECT("Pod", "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\",\"labels\":{\"Example.com/k\":\"v\"}},\"spec\":{\"containers\":[" CTR "]}}",
	       "Pod \"x\" is invalid: metadata.labels: Invalid value: \"Example.com/k\": prefix part a lowercase RFC 1123 subdomain must "
	       "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
	       "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

static void test_pod_update(void **state)
{
	const char *old = POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\"}]}");
	char *m;

	m = check_update("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:2\"}]}"), old);
	assert_null(m);
	m = check_update("Pod", POD("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\",\"args\":[\"x\"]}]}"), old);
	assert_non_null(m);
	assert_true(strncmp(m, "Pod \"x\" is invalid: spec: Forbidden: pod updates may not change fields other than "
		"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
		"(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
		"was previously negative)\n", strlen("Pod \"x\" is invalid: spec: Forbidden: pod updates may not change fields other than "
		"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
		"(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
		"was previously negative)\n")) == 0);
	free(m);
	m = check_update("Pod", "{\"metadata\":{\"name\":\"y\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\"}]}}", old);
	assert_string_equal(m, "Pod \"y\" is invalid: metadata.name: Invalid value: \"y\": field is immutable");
	free(m);
}

#define DEPLOY(sel, labels, extra) "{" META("d") ",\"spec\":{" extra "\"selector\":{\"matchLabels\":" sel "},\"template\":" \
	"{\"metadata\":{\"labels\":" labels "},\"spec\":{\"containers\":[" CTR "]}}}}"

/* An invalid selector is reported once, as upstream checks the template only
 * against a selector LabelSelectorAsSelector takes: validation's own matcher
 * also said the selector did not match the template. */
static void test_invalid_selector_no_template_mismatch(void **state)
{
	char *m = check("Deployment", "{" META("d") ",\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"},"
			"\"matchExpressions\":[{\"key\":\"tier\"}]},\"template\":{\"metadata\":{\"labels\":"
			"{\"app\":\"x\"}},\"spec\":{\"containers\":[" CTR "]}}}}");

	assert_non_null(m);
	assert_non_null(strstr(m, "spec.selector.matchExpressions[0].operator"));
	assert_null(strstr(m, "does not match template"));
	free(m);
}

static void test_deployment(void **state)
{
	VALID("Deployment", DEPLOY("{\"app\":\"x\"}", "{\"app\":\"x\",\"tier\":\"web\"}", ""));
	EXPECT("Deployment", DEPLOY("{\"app\":\"x\"}", "{\"app\":\"y\"}", ""),
	       "Deployment.apps \"d\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: "
	       "`selector` does not match template `labels`");
	EXPECT("Deployment", "{" META("d") ",\"spec\":{\"template\":{\"spec\":{\"containers\":[" CTR "]}}}}",
	       "Deployment.apps \"d\" is invalid: spec.selector: Required value");
	EXPECT("Deployment", DEPLOY("{\"app\":\"x\"}", "{\"app\":\"x\"}", "\"replicas\":-1,"),
	       "Deployment.apps \"d\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
	EXPECT("Deployment", DEPLOY("{\"app\":\"x\"}", "{\"app\":\"x\"}", "\"strategy\":{\"rollingUpdate\":{\"maxSurge\":0,\"maxUnavailable\":0}},"),
	       "Deployment.apps \"d\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0");
}

static void test_deployment_update(void **state)
{
	char *m = check_update("Deployment", DEPLOY("{\"app\":\"y\"}", "{\"app\":\"y\"}", ""),
			       DEPLOY("{\"app\":\"x\"}", "{\"app\":\"x\"}", ""));

	assert_string_equal(m, "Deployment.apps \"d\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
			    "map[string]string{\"app\":\"y\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
	free(m);
}

#define DS(extra, tspec) "{" META("ds") ",\"spec\":{" extra "\"selector\":{\"matchLabels\":{\"app\":\"x\"}}," \
	"\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{" tspec "\"containers\":[" CTR "]}}}}"

static void test_daemonset(void **state)
{
	VALID("DaemonSet", DS("", ""));
	VALID("DaemonSet", DS("\"updateStrategy\":{\"type\":\"OnDelete\"},", ""));
	VALID("DaemonSet", DS("\"updateStrategy\":{\"rollingUpdate\":{\"maxSurge\":\"10%\",\"maxUnavailable\":0}},", ""));
	EXPECT("DaemonSet", DS("", "\"restartPolicy\":\"OnFailure\","),
	       "DaemonSet.apps \"ds\" is invalid: spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": "
	       "supported values: \"Always\"");
	EXPECT("DaemonSet", DS("", "\"activeDeadlineSeconds\":5,"),
	       "DaemonSet.apps \"ds\" is invalid: spec.template.spec.activeDeadlineSeconds: Invalid value: 5: "
	       "activeDeadlineSeconds must be nil for daemonset");
	EXPECT("DaemonSet", DS("\"updateStrategy\":{\"rollingUpdate\":{\"maxUnavailable\":\"0%\"}},", ""),
	       "DaemonSet.apps \"ds\" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "
	       "\"0%\": may not be 0 when `maxSurge` is 0");
	EXPECT("DaemonSet", DS("\"updateStrategy\":{\"rollingUpdate\":{\"maxUnavailable\":\"120%\"}},", ""),
	       "DaemonSet.apps \"ds\" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "
	       "\"120%\": must not be greater than 100%");
	EXPECT("DaemonSet", DS("\"minReadySeconds\":-1,\"revisionHistoryLimit\":-2,", ""),
	       "DaemonSet.apps \"ds\" is invalid: [spec.minReadySeconds: Invalid value: -1: must be greater than or "
	       "equal to 0, spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0]");
}

#define JOB(restart, extra) "{" META("pi") ",\"spec\":{" extra "\"template\":{\"spec\":{\"restartPolicy\":\"" restart "\"," \
	"\"containers\":[" CTR "]}}}}"

static json_t *job(const char *text)
{
	json_t *j = parse(text);
	sk_error_t err = { 0 };

	json_object_set_new(json_object_get(j, "metadata"), "uid", json_string("1234"));
	sk_defaults_apply("Job", j);
	assert_int_equal(sk_defaults_job_selector(j, &err), 0);
	return j;
}

static void test_job(void **state)
{
	cleanup_json json_t *good = job(JOB("Never", ""));
	cleanup_json json_t *always = job(JOB("Always", ""));
	cleanup_json json_t *indexed = job(JOB("OnFailure", "\"completionMode\":\"Indexed\",\"completions\":null,\"parallelism\":2,"));
	cleanup_json json_t *c = NULL;
	char *m;

	assert_null(sk_validate("Job", good, NULL));
	c = sk_validate("Job", always, NULL);
	m = sk_validate_message("Job", "pi", c);
	assert_string_equal(m, "Job.batch \"pi\" is invalid: spec.template.spec.restartPolicy: Unsupported value: \"Always\": "
			    "supported values: \"OnFailure\", \"Never\"");
	free(m);
	json_decref(c);
	c = sk_validate("Job", indexed, NULL);
	m = sk_validate_message("Job", "pi", c);
	assert_string_equal(m, "Job.batch \"pi\" is invalid: spec.completions: Required value: when completion mode is Indexed");
	free(m);
}

static void test_job_selector(void **state)
{
	cleanup_json json_t *wrong = job(JOB("Never", "\"selector\":{\"matchLabels\":{\"app\":\"x\"}},"));
	cleanup_json json_t *manual = job("{" META("pi") ",\"spec\":{\"manualSelector\":true,\"selector\":{\"matchLabels\":"
		"{\"app\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{\"restartPolicy\":\"Never\","
		"\"containers\":[" CTR "]}}}}");
	cleanup_json json_t *c = sk_validate("Job", wrong, NULL);
	char *m = sk_validate_message("Job", "pi", c);

	assert_string_equal(m, "Job.batch \"pi\" is invalid: [spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
		"map[string]string{\"app\":\"x\", \"batch.kubernetes.io/controller-uid\":\"1234\"}, MatchExpressions:"
		"[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated, spec.template.metadata.labels: Invalid value: "
		"map[string]string{\"batch.kubernetes.io/controller-uid\":\"1234\", \"batch.kubernetes.io/job-name\":\"pi\", "
		"\"controller-uid\":\"1234\", \"job-name\":\"pi\"}: `selector` does not match template `labels`]");
	free(m);
	assert_null(sk_validate("Job", manual, NULL));
}

#define CRON(schedule, extra) "{" META("cj") ",\"spec\":{\"schedule\":\"" schedule "\"," extra "\"jobTemplate\":{\"spec\":" \
	"{\"template\":{\"spec\":{\"restartPolicy\":\"OnFailure\",\"containers\":[" CTR "]}}}}}}"

static void test_cronjob(void **state)
{
	VALID("CronJob", CRON("*/5 * * * *", ""));
	VALID("CronJob", CRON("0 9-17 * JAN-MAR mon,fri", ""));
	VALID("CronJob", CRON("@hourly", "\"timeZone\":\"Etc/UTC\","));
	EXPECT("CronJob", CRON("* * *", ""),
	       "CronJob.batch \"cj\" is invalid: spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]");
	EXPECT("CronJob", CRON("61 * * * *", ""),
	       "CronJob.batch \"cj\" is invalid: spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61");
	EXPECT("CronJob", CRON("@fortnightly", ""),
	       "CronJob.batch \"cj\" is invalid: spec.schedule: Invalid value: \"@fortnightly\": unrecognized descriptor: @fortnightly");
	EXPECT("CronJob", CRON("* * * * *", "\"timeZone\":\"Mars/Olympus\","),
	       "CronJob.batch \"cj\" is invalid: spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus");
	EXPECT("CronJob", CRON("* * * * *", "\"concurrencyPolicy\":\"Sometimes\","),
	       "CronJob.batch \"cj\" is invalid: spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: "
	       "\"Allow\", \"Forbid\", \"Replace\"");
}

static void test_namespace_service(void **state)
{
	VALID("Namespace", "{\"metadata\":{\"name\":\"team-a\"}}");
	EXPECT("Namespace", "{\"metadata\":{\"name\":\"team.a\"}}",
	       "Namespace \"team.a\" is invalid: metadata.name: Invalid value: \"team.a\": a lowercase RFC 1123 label must consist of "
	       "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
	       "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
	VALID("Service", "{" META("web") ",\"spec\":{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80,\"targetPort\":8080}]}}");
	EXPECT("Service", "{" META("1web") ",\"spec\":{\"ports\":[{\"port\":80}]}}",
	       "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case "
	       "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
	       "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
	EXPECT("Service", "{" META("web") ",\"spec\":{\"ports\":[{\"port\":80},{\"port\":81}]}}",
	       "Service \"web\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]");
}

static void test_config(void **state)
{
	char *m;

	VALID("ConfigMap", "{" META("cm") ",\"data\":{\"a.conf\":\"x\"}}");
	EXPECT("ConfigMap", "{" META("cm") ",\"data\":{\"a b\":\"x\"}}",
	       "ConfigMap \"cm\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric "
	       "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
	       "'[-._a-zA-Z0-9]+')");
	m = check_update("Secret", "{" META("s") ",\"immutable\":true,\"data\":{\"a\":\"Yg==\"}}",
			 "{" META("s") ",\"immutable\":true,\"data\":{\"a\":\"YQ==\"}}");
	assert_string_equal(m, "Secret \"s\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
	free(m);
	EXPECT("Secret", "{" META("s") ",\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"YQ==\"}}",
	       "Secret \"s\" is invalid: data[tls.key]: Required value");
}

static void test_cluster_objects(void **state)
{
	VALID("PriorityClass", "{\"metadata\":{\"name\":\"high\"},\"value\":1000}");
	EXPECT("PriorityClass", "{\"metadata\":{\"name\":\"high\"},\"value\":2000000000}",
	       "PriorityClass.scheduling.k8s.io \"high\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000");
	EXPECT("Lease", "{" META("l") ",\"spec\":{\"leaseDurationSeconds\":0}}",
	       "Lease.coordination.k8s.io \"l\" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0");
	EXPECT("Node", "{\"metadata\":{\"name\":\"n1\",\"namespace\":\"x\"}}",
	       "Node \"n1\" is invalid: metadata.namespace: Forbidden: not allowed on this type");
	EXPECT("StorageClass", "{\"metadata\":{\"name\":\"sc\"}}",
	       "StorageClass.storage.k8s.io \"sc\" is invalid: provisioner: Required value");
	EXPECT_BODY(sk_validate_binding, "Binding", "{" META("p") ",\"target\":{\"kind\":\"Node\"}}", "Binding \"p\" is invalid: target.name: Required value");
	EXPECT_BODY(sk_validate_scale, "Scale", "{" META("d") ",\"spec\":{\"replicas\":-1}}",
	       "Scale.autoscaling \"d\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
	EXPECT_BODY(sk_validate_eviction, "Eviction", "{" META("p") ",\"deleteOptions\":{\"gracePeriodSeconds\":-1}}",
	       "Eviction.policy \"p\" is invalid: deleteOptions.gracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0");
	VALID("PodGroup", "{" META("g") ",\"spec\":{\"minMember\":3,\"minResources\":{\"cpu\":\"2\"}}}");
	EXPECT("PodGroup", "{" META("g") ",\"spec\":{\"minMember\":-1}}",
	       "PodGroup.scheduling.x-k8s.io \"g\" is invalid: spec.minMember: Invalid value: -1: must be greater than or equal to 0");
}

static void test_pvc_update(void **state)
{
	const char *old = "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":"
		"{\"storage\":\"1Gi\"}}},\"status\":{\"phase\":\"Bound\"}}";
	char *m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
		"\"volumeName\":\"pv1\",\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}", old);

	assert_null(m);
	m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteMany\"],"
		"\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}", old);
	assert_non_null(m);
	{
		const char *want = "PersistentVolumeClaim \"c\" is invalid: spec: Forbidden: spec is immutable after creation "
			"except resources.requests and volumeAttributesClassName for bound claims\n";

		assert_true(strncmp(m, want, strlen(want)) == 0);
	}
	free(m);
	/* a class may be set once when none was (the retroactive default class), not changed */
	m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
		"\"storageClassName\":\"local-path\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}", old);
	assert_null(m);
	m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
		"\"storageClassName\":\"gold\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}",
		"{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":\"\","
		"\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}");
	assert_non_null(m);
	free(m);
	/* a smaller request (RecoverVolumeExpansionFailure): above status.capacity it is taken back,
	 * at or below it refused */
	{
		const char *grown = "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":"
			"{\"requests\":{\"storage\":\"4Gi\"}}},\"status\":{\"phase\":\"Bound\",\"capacity\":"
			"{\"storage\":\"1Gi\"}}}";

		m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
			"\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}},\"status\":{\"phase\":\"Bound\"}}", grown);
		assert_null(m);
		m = check_update("PersistentVolumeClaim", "{" META("c") ",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
			"\"resources\":{\"requests\":{\"storage\":\"1024Mi\"}}},\"status\":{\"phase\":\"Bound\"}}", grown);
		assert_string_equal(m, "PersistentVolumeClaim \"c\" is invalid: spec.resources.requests.storage: "
			"Forbidden: field can not be less than status.capacity");
		free(m);
	}
}

static void test_status_update(void **state)
{
	cleanup_json json_t *old = parse(POD("x", "{\"containers\":[" CTR "]}"));
	cleanup_json json_t *pod = parse(POD("x", "{\"nodeName\":\"n1\",\"containers\":[" CTR "]}"));
	cleanup_json json_t *renamed = parse(POD("y", "{\"containers\":[" CTR "]}"));
	cleanup_json json_t *c = NULL;

	assert_null(sk_validate_status("Pod", pod, old));
	c = sk_validate_status("Pod", renamed, old);
	assert_int_equal(json_array_size(c), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 0), "field")), "metadata.name");
}

static void test_message_dedup(void **state)
{
	cleanup_json json_t *c = parse("[{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"a\"},"
		"{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"a\"}]");
	char *m = sk_validate_message("Pod", "p", c);

	assert_string_equal(m, "Pod \"p\" is invalid: a: Required value");
	free(m);
	m = sk_validate_message("Scale", "d", c);
	assert_string_equal(m, "Scale.autoscaling \"d\" is invalid: a: Required value");
	free(m);
	m = sk_validate_message("Eviction", "p", c);
	assert_string_equal(m, "Eviction.policy \"p\" is invalid: a: Required value");
	free(m);
	assert_null(sk_validate("Unknown", c, NULL));
}

#define EPS(body) "{" META("s") ",\"addressType\":\"IPv4\"," body "}"

static void test_endpointslice(void **state)
{
	cleanup_json json_t *d = parse(EPS("\"ports\":[{\"port\":80}],\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],"
					   "\"deprecatedTopology\":{\"a\":\"b\"}}]"));

	(void)state;
	sk_defaults_apply("EndpointSlice", d);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "ports"), 0), "name")), "");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "ports"), 0), "protocol")),
			    "TCP");
	assert_null(json_object_get(json_array_get(json_object_get(d, "endpoints"), 0), "deprecatedTopology"));
	VALID("EndpointSlice", EPS("\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"hostname\":\"web-0\","
				   "\"nodeName\":\"n1\",\"hints\":{\"forZones\":[{\"name\":\"z\"}]}}],"
				   "\"ports\":[{\"name\":\"http\",\"port\":80,\"appProtocol\":\"kubernetes.io/h2c\"}]"));
	VALID("EndpointSlice", "{" META("s") ",\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"::ffff:10.0.0.1\"]}]}");
	EXPECT("EndpointSlice", "{" META("s") ",\"endpoints\":[]}",
	       "EndpointSlice.discovery.k8s.io \"s\" is invalid: addressType: Required value");
	EXPECT("EndpointSlice", EPS("\"endpoints\":[{\"addresses\":[\"169.254.1.1\"]}]"),
	       "EndpointSlice.discovery.k8s.io \"s\" is invalid: endpoints[0].addresses[0]: Invalid value: "
	       "\"169.254.1.1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)");
	EXPECT("EndpointSlice", EPS("\"endpoints\":[{\"addresses\":[\"0.0.0.0\",\"224.0.0.5\"]}]"),
	       "EndpointSlice.discovery.k8s.io \"s\" is invalid: [endpoints[0].addresses[0]: Invalid value: \"0.0.0.0\": "
	       "may not be unspecified (0.0.0.0), endpoints[0].addresses[1]: Invalid value: \"224.0.0.5\": may not be "
	       "in the link-local multicast range (224.0.0.0/24, ff02::/10)]");
	EXPECT("EndpointSlice", EPS("\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"hints\":{\"forZones\":"
				    "[{\"name\":\"a\"},{\"name\":\"a\"}]}}]"),
	       "EndpointSlice.discovery.k8s.io \"s\" is invalid: endpoints[0].hints.forZones[1].name: Duplicate value: "
	       "\"a\"");
	EXPECT("EndpointSlice", EPS("\"endpoints\":[],\"ports\":[{\"port\":1,\"appProtocol\":\"a/b/c\"}]"),
	       "EndpointSlice.discovery.k8s.io \"s\" is invalid: ports[0].appProtocol: Invalid value: \"a/b/c\": a "
	       "qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
	       "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
	       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
	       "'example.com/MyName')");
	{
		char *m = check_update("EndpointSlice", "{" META("s") ",\"addressType\":\"FQDN\",\"endpoints\":[]}",
				       EPS("\"endpoints\":[]"));

		assert_string_equal(m, "EndpointSlice.discovery.k8s.io \"s\" is invalid: addressType: Invalid value: "
				       "\"FQDN\": field is immutable");
		free(m);
	}
}

static void test_endpoints(void **state)
{
	(void)state;
	VALID("Endpoints", "{" META("e") ",\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\",\"hostname\":\"a\","
			   "\"nodeName\":\"n1\"}],\"ports\":[{\"name\":\"a\",\"port\":80},{\"name\":\"b\",\"port\":81}]}]}");
	VALID("Endpoints", "{" META("e") "}");
	EXPECT("Endpoints", "{" META("e") ",\"subsets\":[{\"ports\":[{\"port\":80}]}]}",
	       "Endpoints \"e\" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`");
	EXPECT("Endpoints", "{" META("e") ",\"subsets\":[{\"notReadyAddresses\":[{\"ip\":\"bad\"}]}]}",
	       "Endpoints \"e\" is invalid: [subsets[0].notReadyAddresses[0].ip: Invalid value: \"bad\": must be a valid "
	       "IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].notReadyAddresses[0].ip: Invalid value: "
	       "\"bad\": must be a valid IP address]");
	EXPECT("Endpoints", "{" META("e") ",\"subsets\":[{\"addresses\":[{\"ip\":\"127.0.0.1\"}],"
				      "\"ports\":[{\"port\":80},{\"name\":\"b\",\"port\":0,\"protocol\":\"X\"}]}]}",
	       "Endpoints \"e\" is invalid: [subsets[0].ports[0].name: Required value, "
	       "subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive, "
	       "subsets[0].ports[1].protocol: Unsupported value: \"X\": supported values: \"SCTP\", \"TCP\", \"UDP\"]");
}

#define NP(spec) "{" META("np") ",\"spec\":" spec "}"

static void test_networkpolicy(void **state)
{
	cleanup_json json_t *d = parse(NP("{\"egress\":[{\"ports\":[{\"port\":53}]}]}"));
	json_t *spec;

	(void)state;
	sk_defaults_apply("NetworkPolicy", d);
	spec = json_object_get(d, "spec");
	{
		cleanup_json json_t *want = parse("[\"Ingress\",\"Egress\"]");

		assert_true(json_equal(json_object_get(spec, "policyTypes"), want));
	}
	assert_true(json_is_object(json_object_get(spec, "podSelector")));
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(json_array_get(json_object_get(spec, "egress"), 0), "ports"), 0),
				    "protocol")),
			    "TCP");
	VALID("NetworkPolicy", NP("{\"podSelector\":{},\"ingress\":[{\"from\":[{\"ipBlock\":{\"cidr\":\"fd00::/8\","
				  "\"except\":[\"fd00:1::/32\"]}},{\"podSelector\":{},\"namespaceSelector\":{}}]}]}"));
	EXPECT("NetworkPolicy", NP("{\"podSelector\":{},\"ingress\":[{\"from\":[{\"ipBlock\":{\"cidr\":\"10.0.0.0/8\","
				   "\"except\":[\"fd00::/16\",\"10.0.0.0/33\"]}}]}]}"),
	       "NetworkPolicy.networking.k8s.io \"np\" is invalid: [spec.ingress[0].from[0].ipBlock.except[0]: Invalid "
	       "value: \"fd00::/16\": must be a strict subset of `cidr`, spec.ingress[0].from[0].ipBlock.except[1]: "
	       "Invalid value: \"10.0.0.0/33\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)]");
	EXPECT("NetworkPolicy", NP("{\"podSelector\":{},\"policyTypes\":[\"Ingress\",\"Egress\",\"Ingress\"]}"),
	       "NetworkPolicy.networking.k8s.io \"np\" is invalid: spec.policyTypes: Invalid value: "
	       "[]networking.PolicyType{\"Ingress\", \"Egress\", \"Ingress\"}: may not specify more than two policyTypes");
	EXPECT("NetworkPolicy", NP("{\"podSelector\":{},\"egress\":[{\"ports\":[{\"port\":\"-bad\"}]}]}"),
	       "NetworkPolicy.networking.k8s.io \"np\" is invalid: spec.egress[0].ports[0].port: Invalid value: "
	       "\"-bad\": must not begin or end with a hyphen");
}

/* pods/ephemeralcontainers: upstream's ValidatePodEphemeralContainersUpdate. */
static char *check_ephemeral(const char *text, const char *old_text)
{
	cleanup_json json_t *o = parse(text), *old = parse(old_text);
	cleanup_json json_t *causes = NULL;

	sk_defaults_apply("Pod", o);
	sk_defaults_apply("Pod", old);
	causes = sk_validate_pod_ephemeral(o, old);
	if (!causes)
		return NULL;
	return sk_validate_message("Pod", "p", causes);
}

#define POD_EPH(eph)                                                                                     \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},"              \
	"\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"b\"}],\"initContainers\":[{\"name\":\"init\","  \
	"\"image\":\"b\"}]" eph "}}"

static void test_pod_ephemeral(void **state)
{
	const char *none = POD_EPH("");
	const char *one = POD_EPH(",\"ephemeralContainers\":[{\"name\":\"dbg\",\"image\":\"b\",\"targetContainerName\":\"main\","
				  "\"stdin\":true,\"tty\":true,\"resources\":{}}]");
	char *m;

	(void)state;
	if ((m = check_ephemeral(one, none)) != NULL)
		fail_msg("%s", m);
	assert_null(check_ephemeral(one, one));
	/* forbidden fields, a target that is not a (non-ephemeral) container, names unique across lists */
	m = check_ephemeral(POD_EPH(",\"ephemeralContainers\":[{\"name\":\"main\",\"image\":\"b\",\"ports\":[{"
				    "\"containerPort\":80}],\"livenessProbe\":{\"exec\":{\"command\":[\"true\"]}},"
				    "\"resources\":{\"limits\":{\"cpu\":\"1\"}},\"targetContainerName\":\"dbg2\"},"
				    "{\"name\":\"dbg2\",\"image\":\"\",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/x\","
				    "\"subPath\":\"s\"}]}]"),
			    none);
	assert_non_null(m);
	assert_non_null(strstr(m, "spec.ephemeralContainers[0].name: Duplicate value: \"main\""));
	assert_non_null(strstr(m, "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"));
	assert_non_null(strstr(m, "spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container"));
	assert_non_null(strstr(m, "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container"));
	assert_non_null(strstr(m, "spec.ephemeralContainers[0].targetContainerName: Not found: \"dbg2\""));
	assert_non_null(strstr(m, "spec.ephemeralContainers[1].image: Required value"));
	assert_non_null(strstr(m, "spec.ephemeralContainers[1].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container"));
	free(m);
	/* append-only: neither removed nor changed */
	m = check_ephemeral(none, one);
	assert_non_null(m);
	assert_non_null(strstr(m, "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed"));
	free(m);
	m = check_ephemeral(POD_EPH(",\"ephemeralContainers\":[{\"name\":\"dbg\",\"image\":\"c\",\"targetContainerName\":\"main\","
				    "\"stdin\":true,\"tty\":true,\"resources\":{}}]"),
			    one);
	assert_non_null(m);
	assert_non_null(strstr(m, "existing ephemeral containers \"dbg\" may not be changed"));
	free(m);
	/* a pod is created without them */
	m = check("Pod", one);
	assert_non_null(m);
	assert_non_null(strstr(m, "spec.ephemeralContainers: Forbidden: cannot be set on create"));
	free(m);
	/* the init container is a valid target too */
	assert_null(check_ephemeral(POD_EPH(",\"ephemeralContainers\":[{\"name\":\"d\",\"image\":\"b\","
					    "\"targetContainerName\":\"init\"}]"),
				    none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_valid),
		cmocka_unit_test(test_pod_name),
		cmocka_unit_test(test_pod_image_required),
		cmocka_unit_test(test_pod_enums),
		cmocka_unit_test(test_pod_toleration_empty_key),
		cmocka_unit_test(test_pod_several),
		cmocka_unit_test(test_pod_containers),
		cmocka_unit_test(test_pod_volumes),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_pod_update),
		cmocka_unit_test(test_deployment),
		cmocka_unit_test(test_invalid_selector_no_template_mismatch),
		cmocka_unit_test(test_deployment_update),
		cmocka_unit_test(test_daemonset),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_job_selector),
		cmocka_unit_test(test_cronjob),
		cmocka_unit_test(test_namespace_service),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_cluster_objects),
		cmocka_unit_test(test_pvc_update),
		cmocka_unit_test(test_status_update),
		cmocka_unit_test(test_message_dedup),
		cmocka_unit_test(test_endpointslice),
		cmocka_unit_test(test_networkpolicy),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_pod_ephemeral),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
