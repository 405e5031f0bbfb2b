#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "api/podsecurity.h"
#include "kube/podsecurity.h"
#include "util/util.h"

/* A restricted-compliant container: the fragment every restricted case starts from. */
#define OKSC \
	"\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}," \
	"\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}"

typedef struct psa_case {
	const char *level, *version;
	const char *pod;    /* {"metadata":…, "spec":…} */
	const char *detail; /* upstream's ForbiddenDetail; "" when allowed */
} psa_case;

/* Spec fragments and the texts upstream's check_*_test.go and admission
 * give for them (v1.32). */
static const psa_case cases[] = {
	/* privileged */
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"privileged\":true}}]}}",
	 "privileged (container \"c\" must not set securityContext.privileged=true)"},
	{"baseline", "latest",
	 "{\"spec\":{\"initContainers\":[{\"name\":\"i\",\"securityContext\":{\"privileged\":true}}],"
	 "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"privileged\":true}},{\"name\":\"b\","
	 "\"securityContext\":{\"privileged\":false}}]}}",
	 "privileged (containers \"i\", \"a\" must not set securityContext.privileged=true)"},
	{"privileged", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"privileged\":true}}],\"hostPID\":true}}",
	 ""},
	/* capabilities_baseline */
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"capabilities\":{\"add\":[\"SYS_ADMIN\","
	 "\"CHOWN\",\"NET_RAW\",\"SYS_ADMIN\"]}}}]}}",
	 "non-default capabilities (container \"c\" must not include \"NET_RAW\", \"SYS_ADMIN\" in "
	 "securityContext.capabilities.add)"},
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"capabilities\":{\"add\":[\"CHOWN\","
	 "\"NET_BIND_SERVICE\",\"KILL\"]}}}]}}",
	 ""},
	/* hostNamespaces */
	{"baseline", "latest", "{\"spec\":{\"hostIPC\":true,\"hostNetwork\":true,\"hostPID\":false,\"containers\":[]}}",
	 "host namespaces (hostNetwork=true, hostIPC=true)"},
	/* hostPathVolumes (baseline), restrictedVolumes (restricted, in its place) */
	{"baseline", "latest",
	 "{\"spec\":{\"volumes\":[{\"name\":\"h\",\"hostPath\":{\"path\":\"/\"}},{\"name\":\"e\",\"emptyDir\":{}}]}}",
	 "hostPath volumes (volume \"h\")"},
	{"restricted", "latest",
	 "{\"spec\":{\"volumes\":[{\"name\":\"h\",\"hostPath\":{\"path\":\"/\"}},{\"name\":\"n\",\"nfs\":{}},"
	 "{\"name\":\"x\",\"image\":{}},{\"name\":\"s\",\"secret\":{}},{\"name\":\"p\",\"persistentVolumeClaim\":{}}]}"
	 "}",
	 "restricted volume types (volumes \"h\", \"n\", \"x\" use restricted volume types \"hostPath\", \"nfs\", "
	 "\"unknown\")"},
	/* hostPorts: sorted as strings */
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80,\"hostPort\":90},"
	 "{\"containerPort\":81,\"hostPort\":8080}]},{\"name\":\"b\",\"ports\":[{\"containerPort\":82}]}]}}",
	 "hostPort (container \"a\" uses hostPorts 8080, 90)"},
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"hostPort\":90}]},{\"name\":\"b\",\"ports\":[{"
	 "\"hostPort\":90}]}]}}",
	 "hostPort (containers \"a\", \"b\" use hostPort 90)"},
	/* procMount */
	{"baseline", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"procMount\":\"Unmasked\"}},{\"name\":\"d\","
	 "\"securityContext\":{\"procMount\":\"Default\"}}]}}",
	 "procMount (container \"c\" must not set securityContext.procMount to \"Unmasked\")"},
	/* seLinuxOptions, container_engine_t from v1.31 */
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"seLinuxOptions\":{\"type\":\"spc_t\",\"user\":\"u\"}},\"containers\":[{"
	 "\"name\":\"c\",\"securityContext\":{\"seLinuxOptions\":{\"role\":\"r\"}}}]}}",
	 "seLinuxOptions (pod and container \"c\" set forbidden securityContext.seLinuxOptions: type \"spc_t\"; user "
	 "may not be set; role may not be set)"},
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"seLinuxOptions\":{\"type\":\"container_engine_t\"}}}}", ""},
	{"baseline", "v1.30", "{\"spec\":{\"securityContext\":{\"seLinuxOptions\":{\"type\":\"container_engine_t\"}}}}",
	 "seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type \"container_engine_t\")"},
	/* seccompProfile_baseline: fields from v1.19, annotations before */
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"seccompProfile\":{\"type\":\"Unconfined\"}},\"containers\":[{\"name\":"
	 "\"c\"}]}}",
	 "seccompProfile (pod must not set securityContext.seccompProfile.type to \"Unconfined\")"},
	{"baseline", "v1.18",
	 "{\"metadata\":{\"annotations\":{\"seccomp.security.alpha.kubernetes.io/pod\":\"unconfined\","
	 "\"container.seccomp.security.alpha.kubernetes.io/c\":\"runtime/default\"}},\"spec\":{\"containers\":[{"
	 "\"name\":\"c\"}]}}",
	 "seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod=\"unconfined\")"},
	/* sysctls by version */
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"sysctls\":[{\"name\":\"kernel.msgmax\",\"value\":\"1\"},{\"name\":"
	 "\"net.ipv4.tcp_rmem\",\"value\":\"1\"},{\"name\":\"a.b\",\"value\":\"1\"}]}}}",
	 "forbidden sysctls (kernel.msgmax, a.b)"},
	{"baseline", "v1.31",
	 "{\"spec\":{\"securityContext\":{\"sysctls\":[{\"name\":\"net.ipv4.tcp_rmem\",\"value\":\"1\"},{\"name\":"
	 "\"net.ipv4.tcp_keepalive_time\",\"value\":\"1\"}]}}}",
	 "forbidden sysctls (net.ipv4.tcp_rmem)"},
	{"baseline", "v1.26",
	 "{\"spec\":{\"securityContext\":{\"sysctls\":[{\"name\":\"net.ipv4.ip_local_reserved_ports\",\"value\":\"1\"}]"
	 "}}}",
	 "forbidden sysctls (net.ipv4.ip_local_reserved_ports)"},
	/* windowsHostProcess */
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"windowsOptions\":{\"hostProcess\":true}},\"containers\":[{\"name\":\"c\","
	 "\"securityContext\":{\"windowsOptions\":{\"hostProcess\":true}}}]}}",
	 "hostProcess (pod and container \"c\" must not set securityContext.windowsOptions.hostProcess=true)"},
	/* appArmorProfile: fields and the beta annotations */
	{"baseline", "latest",
	 "{\"spec\":{\"securityContext\":{\"appArmorProfile\":{\"type\":\"Unconfined\"}},\"containers\":[{\"name\":"
	 "\"c\",\"securityContext\":{\"appArmorProfile\":{\"type\":\"Localhost\"}}}]}}",
	 "forbidden AppArmor profile (pod must not set AppArmor profile type to \"Unconfined\")"},
	{"baseline", "latest",
	 "{\"metadata\":{\"annotations\":{\"container.apparmor.security.beta.kubernetes.io/c\":\"unconfined\","
	 "\"container.apparmor.security.beta.kubernetes.io/d\":\"localhost/x\"}},\"spec\":{\"containers\":[{\"name\":"
	 "\"c\"}]}}",
	 "forbidden AppArmor profile (annotation must not set AppArmor profile type to "
	 "\"container.apparmor.security.beta.kubernetes.io/c=\"unconfined\"\")"},
	/* restricted: everything missing, in upstream's order */
	{"restricted", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"securityContext\":{\"privileged\":true}}]}"
	 "}",
	 "privileged (container \"c\" must not set securityContext.privileged=true), allowPrivilegeEscalation != false "
	 "(container \"c\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities "
	 "(container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or "
	 "container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set "
	 "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"},
	/* a compliant restricted pod; pod-level settings cover the containers */
	{"restricted", "latest", "{\"spec\":{\"containers\":[{\"name\":\"c\"," OKSC "}]}}", ""},
	{"restricted", "latest",
	 "{\"spec\":{\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"Localhost\"}},"
	 "\"containers\":[{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":{"
	 "\"drop\":[\"ALL\"],\"add\":[\"NET_BIND_SERVICE\"]}}}]}}",
	 ""},
	/* capabilities_restricted */
	{"restricted", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":false,"
	 "\"capabilities\":{\"drop\":[\"NET_RAW\"],\"add\":[\"CHOWN\",\"NET_BIND_SERVICE\"]},\"runAsNonRoot\":true,"
	 "\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}}]}}",
	 "unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]; container "
	 "\"c\" must not include \"CHOWN\" in securityContext.capabilities.add)"},
	/* before v1.22 restricted limits capabilities as baseline does */
	{"restricted", "v1.21",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":false,"
	 "\"capabilities\":{\"add\":[\"SYS_TIME\"]},\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":"
	 "\"RuntimeDefault\"}}}]}}",
	 "non-default capabilities (container \"c\" must not include \"SYS_TIME\" in "
	 "securityContext.capabilities.add)"},
	/* runAsNonRoot */
	{"restricted", "latest",
	 "{\"spec\":{\"securityContext\":{\"runAsNonRoot\":false},\"containers\":[{\"name\":\"c\",\"securityContext\":{"
	 "\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]},\"runAsNonRoot\":false,"
	 "\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}}]}}",
	 "runAsNonRoot != true (pod and container \"c\" must not set securityContext.runAsNonRoot=false)"},
	/* runAsUser=0 from v1.23 */
	{"restricted", "latest",
	 "{\"spec\":{\"securityContext\":{\"runAsUser\":0},\"containers\":[{\"name\":\"c\"," OKSC "}]}}",
	 "runAsUser=0 (pod must not set runAsUser=0)"},
	{"restricted", "v1.22",
	 "{\"spec\":{\"securityContext\":{\"runAsUser\":0},\"containers\":[{\"name\":\"c\"," OKSC "}]}}", ""},
	{"restricted", "v1.99",
	 "{\"spec\":{\"securityContext\":{\"runAsUser\":0},\"containers\":[{\"name\":\"c\"," OKSC "}]}}",
	 "runAsUser=0 (pod must not set runAsUser=0)"},
	/* seccompProfile_restricted: explicit bad values first */
	{"restricted", "latest",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":false,"
	 "\"capabilities\":{\"drop\":[\"ALL\"]},\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"Unconfined\"}}},"
	 "{\"name\":\"d\",\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}"
	 ","
	 "\"runAsNonRoot\":true}}]}}",
	 "seccompProfile (container \"c\" must not set securityContext.seccompProfile.type to \"Unconfined\")"},
	/* before v1.8 nothing asks for allowPrivilegeEscalation; before v1.19 no seccomp field is required */
	{"restricted", "v1.7",
	 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsNonRoot\":true}}]}}", ""},
	/* from v1.25 Windows pods skip the Linux-only restricted checks */
	{"restricted", "latest",
	 "{\"spec\":{\"os\":{\"name\":\"windows\"},\"containers\":[{\"name\":\"c\",\"securityContext\":{"
	 "\"runAsNonRoot\":true}}]}}",
	 ""},
	{"restricted", "v1.24",
	 "{\"spec\":{\"os\":{\"name\":\"windows\"},\"containers\":[{\"name\":\"c\",\"securityContext\":{"
	 "\"runAsNonRoot\":true}}]}}",
	 "allowPrivilegeEscalation != false (container \"c\" must set securityContext.allowPrivilegeEscalation=false), "
	 "unrestricted capabilities (container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]), "
	 "seccompProfile (pod or container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
	 "\"Localhost\")"},
	/* ephemeral containers are checked too */
	{"baseline", "latest",
	 "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"dbg\",\"securityContext\":{\"privileged\":true}}]}}",
	 "privileged (container \"dbg\" must not set securityContext.privileged=true)"},
	/* shapes the API would refuse do not crash the checks */
	{"restricted", "latest", "{\"spec\":{\"containers\":[1,null,{\"securityContext\":[]}],\"volumes\":{}}}",
	 "allowPrivilegeEscalation != false (container \"\" must set securityContext.allowPrivilegeEscalation=false), "
	 "unrestricted capabilities (container \"\" must set securityContext.capabilities.drop=[\"ALL\"]), "
	 "runAsNonRoot "
	 "!= true (pod or container \"\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "
	 "\"\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"},
	{"restricted", "latest", "{\"spec\":\"x\"}", ""},
};

static char *evaluate(const psa_case *c, char **reason)
{
	sk_psa_lv lv;
	json_error_t jerr;
	json_t *pod = json_loads(c->pod, 0, &jerr), *res;
	char *d;

	if (!pod)
		fail_msg("%s: %s", c->pod, jerr.text);
	assert_int_equal(sk_psa_parse_level(c->level, &lv.level), 0);
	assert_int_equal(sk_psa_parse_version(c->version, &lv.minor), 0);
	res = sk_psa_evaluate(&lv, json_object_get(pod, "metadata"), json_object_get(pod, "spec"));
	d = sk_psa_forbidden_detail(res);
	if (reason)
		*reason = sk_psa_forbidden_reason(res);
	json_decref(res);
	json_decref(pod);
	return d;
}

static void test_checks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_free char *d = evaluate(&cases[i], NULL);

		if (strcmp(d, cases[i].detail))
			fail_msg("case %zu (%s:%s %s):\n got  %s\n want %s", i, cases[i].level, cases[i].version,
				 cases[i].pod, d, cases[i].detail);
	}
}

static void test_reasons(void **state)
{
	cleanup_free char *reason = NULL;
	cleanup_free char *d = NULL;
	psa_case c = {"restricted", "latest",
		      "{\"spec\":{\"hostPID\":true,\"containers\":[{\"name\":\"c\",\"securityContext\":{\"privileged\":"
		      "true}}]}}",
		      NULL};

	(void)state;
	d = evaluate(&c, &reason);
	assert_string_equal(reason, "host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted "
				    "capabilities, runAsNonRoot != true, seccompProfile");
}

static void test_versions(void **state)
{
	const char *good[] = {"latest", "v1.0", "v1.9", "v1.22", "v1.100", NULL};
	const char *bad[] = {"",  "1.22", "v1.", "v1.01", "v2.0", "v1.2x", "Latest", "v1.-1", "v1.99999999999999999999",
			     NULL};
	sk_psa_lv lv = {SK_PSA_BASELINE, 22};
	char buf[64];
	int64_t m;

	(void)state;
	for (int i = 0; good[i]; i++)
		if (sk_psa_parse_version(good[i], &m) < 0)
			fail_msg("%s refused", good[i]);
	for (int i = 0; bad[i]; i++)
		if (sk_psa_parse_version(bad[i], &m) == 0)
			fail_msg("%s accepted", bad[i]);
	sk_psa_lv_format(&lv, buf, sizeof(buf));
	assert_string_equal(buf, "baseline:v1.22");
	lv = (sk_psa_lv){SK_PSA_RESTRICTED, SK_PSA_LATEST};
	sk_psa_lv_format(&lv, buf, sizeof(buf));
	assert_string_equal(buf, "restricted:latest");
}

static json_t *policy(const char *labels, sk_psa_policy *p)
{
	sk_psa_policy d;
	json_t *l = json_loads(labels, 0, NULL), *causes;

	sk_psa_policy_default(&d);
	causes = sk_psa_policy_from_labels(l, &d, p);
	json_decref(l);
	return causes;
}

static void test_labels(void **state)
{
	sk_psa_policy p;
	json_t *causes;

	(void)state;
	/* warn follows a stricter enforce, with its version */
	assert_null(policy("{\"pod-security.kubernetes.io/enforce\":\"baseline\","
			   "\"pod-security.kubernetes.io/enforce-version\":\"v1.24\"}",
			   &p));
	assert_int_equal(p.enforce.level, SK_PSA_BASELINE);
	assert_int_equal(p.enforce.minor, 24);
	assert_int_equal(p.warn.level, SK_PSA_BASELINE);
	assert_int_equal(p.warn.minor, 24);
	assert_int_equal(p.audit.level, SK_PSA_PRIVILEGED);
	/* not when warn has a label of its own */
	assert_null(policy("{\"pod-security.kubernetes.io/enforce\":\"restricted\","
			   "\"pod-security.kubernetes.io/warn\":\"privileged\"}",
			   &p));
	assert_int_equal(p.warn.level, SK_PSA_PRIVILEGED);
	/* a bad enforce level fails closed, bad audit and warn levels open */
	causes = policy("{\"pod-security.kubernetes.io/enforce\":\"strict\",\"pod-security.kubernetes.io/warn\":\"x\","
			"\"pod-security.kubernetes.io/audit-version\":\"v2\"}",
			&p);
	assert_int_equal(json_array_size(causes), 3);
	assert_int_equal(p.enforce.level, SK_PSA_RESTRICTED);
	assert_int_equal(p.warn.level, SK_PSA_PRIVILEGED);
	assert_int_equal(p.audit.minor, SK_PSA_LATEST);
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 0), "field")),
			    "metadata.labels[pod-security.kubernetes.io/enforce]");
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 0), "message")),
			    "Invalid value: \"strict\": must be one of privileged, baseline, restricted");
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 1), "field")),
			    "metadata.labels[pod-security.kubernetes.io/audit-version]");
	assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 1), "message")),
			    "Invalid value: \"v2\": must be \"latest\" or \"v1.x\"");
	json_decref(causes);
	/* other labels change nothing */
	assert_null(policy("{\"app\":\"x\"}", &p));
	assert_int_equal(p.enforce.level, SK_PSA_PRIVILEGED);
}

static sk__psa_config *config(const char *text, sk_error_t *err)
{
	json_t *j = json_loads(text, 0, NULL);
	sk__psa_config *c;

	assert_non_null(j);
	c = sk__psa_config_from_json(j, err);
	json_decref(j);
	return c;
}

static void test_config(void **state)
{
	char dir[] = "/tmp/skiff-psa-XXXXXX", path[64], inner[64];
	sk_error_t err = {0};
	sk__psa_config *c;
	FILE *f;

	(void)state;
	c = config("{\"apiVersion\":\"pod-security.admission.config.k8s.io/v1\",\"kind\":\"PodSecurityConfiguration\","
		   "\"defaults\":{\"enforce\":\"baseline\",\"audit-version\":\"v1.25\"},"
		   "\"exemptions\":{\"usernames\":[\"ci\"],\"namespaces\":[\"free\"]}}",
		   &err);
	assert_non_null(c);
	assert_int_equal(c->defaults.enforce.level, SK_PSA_BASELINE);
	assert_int_equal(c->defaults.audit.minor, 25);
	assert_int_equal(c->defaults.warn.level, SK_PSA_PRIVILEGED);
	assert_string_equal(json_string_value(json_array_get(c->usernames, 0)), "ci");
	assert_int_equal(json_array_size(c->runtime_classes), 0);
	sk__psa_config_free(c);
	assert_null(config("{\"defaults\":{\"warn-version\":\"1.2\"}}", &err));
	assert_string_equal(err.msg, "defaults.warn-version: Invalid value: \"1.2\": must be \"latest\" or \"v1.x\"");
	assert_null(config("{\"exemptions\":{\"namespaces\":[\"\"]}}", &err));
	assert_null(config("{\"kind\":\"Other\"}", &err));
	/* no file: privileged, kube-system exempt */
	c = sk__psa_config_load(NULL, &err);
	assert_int_equal(c->defaults.enforce.level, SK_PSA_PRIVILEGED);
	assert_string_equal(json_string_value(json_array_get(c->namespaces, 0)), "kube-system");
	sk__psa_config_free(c);
	/* an AdmissionConfiguration whose plugin names a file beside it */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/admission.json", dir);
	snprintf(inner, sizeof(inner), "%s/psa.json", dir);
	f = fopen(inner, "w");
	fputs("{\"defaults\":{\"enforce\":\"restricted\"},\"exemptions\":{\"runtimeClasses\":[\"kata\"]}}", f);
	fclose(f);
	f = fopen(path, "w");
	fputs("{\"kind\":\"AdmissionConfiguration\",\"plugins\":[{\"name\":\"Other\"},{\"name\":\"PodSecurity\","
	      "\"path\":\"psa.json\"}]}",
	      f);
	fclose(f);
	c = sk__psa_config_load(path, &err);
	assert_non_null(c);
	assert_int_equal(c->defaults.enforce.level, SK_PSA_RESTRICTED);
	assert_string_equal(json_string_value(json_array_get(c->runtime_classes, 0)), "kata");
	assert_int_equal(json_array_size(c->namespaces), 0);
	sk__psa_config_free(c);
	f = fopen(path, "w");
	fputs("{\"kind\":\"AdmissionConfiguration\",\"plugins\":[{\"name\":\"PodSecurity\",\"path\":\"none.json\"}]}",
	      f);
	fclose(f);
	assert_null(sk__psa_config_load(path, &err));
	assert_non_null(strstr(err.msg, "none.json"));
	unlink(inner);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks), cmocka_unit_test(test_reasons), cmocka_unit_test(test_versions),
		cmocka_unit_test(test_labels), cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
