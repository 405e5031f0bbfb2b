#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/patch.h"
#include "util/util.h"

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, JSON_DECODE_ANY, &e);
	if (!j)
		fail_msg("bad test json %s: %s", s, e.text);
	return j;
}

static void assert_json(json_t *got, const char *want, const char *what)
{
	json_t *w = J(want);
	if (!got || !json_equal(got, w)) {
		char *g = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
		fail_msg("%s: got %s want %s", what, g ? g : "NULL", want);
	}
	json_decref(w);
}

/* Asserts that order matters too (json_equal ignores object key order only). */
static void check_merge(const char *target, const char *patch, const char *want)
{
	json_t *t = J(target), *p = J(patch), *t0 = json_deep_copy(t);
	json_t *r = sk_merge_patch(t, p);

	assert_json(r, want, patch);
	assert_true(json_equal(t, t0));
	json_decref(r);
	json_decref(t);
	json_decref(t0);
	json_decref(p);
}

/* RFC 7386 appendix A. */
static void test_merge_patch(void **state)
{
	check_merge("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
	check_merge("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
	check_merge("{\"a\":\"b\"}", "{\"a\":null}", "{}");
	check_merge("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
	check_merge("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
	check_merge("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
	check_merge("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}");
	check_merge("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
	check_merge("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
	check_merge("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
	check_merge("{\"a\":\"foo\"}", "null", "null");
	check_merge("{\"a\":\"foo\"}", "\"bar\"", "\"bar\"");
	check_merge("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
	check_merge("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
	check_merge("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
	check_merge("{\"metadata\":{\"labels\":{\"a\":\"1\"}}}", "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}",
		    "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}");
}

static void check_jp(const char *doc, const char *ops, const char *want)
{
	sk_error_t err = {0};
	json_t *d = J(doc), *o = J(ops), *d0 = json_deep_copy(d);
	json_t *r = sk_json_patch(d, o, &err);

	if (!r)
		fail_msg("%s: %s", ops, err.msg);
	assert_json(r, want, ops);
	assert_true(json_equal(d, d0));
	json_decref(r);
	json_decref(d);
	json_decref(d0);
	json_decref(o);
}

static const char *jp_err(const char *doc, const char *ops, int code)
{
	static sk_error_t err;
	json_t *d = J(doc), *o = J(ops);
	json_t *r;

	memset(&err, 0, sizeof(err));
	r = sk_json_patch(d, o, &err);
	if (r)
		fail_msg("%s applied", ops);
	assert_int_equal(err.code, code);
	json_decref(d);
	json_decref(o);
	return err.msg;
}

/* RFC 6902 appendix A, plus upstream (evanphx/json-patch) specifics. */
static void test_json_patch(void **state)
{
	check_jp("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
		 "{\"baz\":\"qux\",\"foo\":\"bar\"}");
	check_jp("{\"foo\":[\"bar\",\"baz\"]}", "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
		 "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
	check_jp("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}");
	check_jp("{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
		 "{\"foo\":[\"bar\",\"baz\"]}");
	check_jp("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
		 "{\"baz\":\"boo\",\"foo\":\"bar\"}");
	check_jp("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
		 "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
		 "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
	check_jp("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
		 "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
		 "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
	check_jp("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
		 "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
		 "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
	check_jp("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
		 "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
	check_jp("{\"foo\":[\"bar\"]}", "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
		 "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
	check_jp("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10},"
		 "{\"op\":\"replace\",\"path\":\"/~1\",\"value\":1}]", "{\"/\":1,\"~1\":10}");
	check_jp("{\"foo\":1}", "[{\"op\":\"copy\",\"from\":\"/foo\",\"path\":\"/bar\"}]", "{\"foo\":1,\"bar\":1}");
	check_jp("{\"foo\":[1,2,3]}", "[{\"op\":\"remove\",\"path\":\"/foo/-1\"}]", "{\"foo\":[1,2]}");
	check_jp("{\"foo\":1}", "[{\"op\":\"test\",\"path\":\"/missing\",\"value\":null}]", "{\"foo\":1}");
	check_jp("{\"foo\":1}", "[]", "{\"foo\":1}");
	/* rollout undo sends this shape */
	check_jp("{\"metadata\":{\"annotations\":{\"a\":\"1\"}},\"spec\":{\"template\":{\"x\":1}}}",
		 "[{\"op\":\"replace\",\"path\":\"/spec/template\",\"value\":{\"y\":2}},"
		 "{\"op\":\"replace\",\"path\":\"/metadata/annotations\",\"value\":{\"b\":\"2\"}}]",
		 "{\"metadata\":{\"annotations\":{\"b\":\"2\"}},\"spec\":{\"template\":{\"y\":2}}}");

	assert_string_equal(jp_err("{\"baz\":\"qux\"}", "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
				   SK_EINVALID), "testing value /baz failed: test failed");
	assert_string_equal(jp_err("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
				   SK_EINVALID),
			    "add operation does not apply: doc is missing path: \"/baz/bat\": missing value");
	jp_err("{\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/nope\"}]", SK_EINVALID);
	jp_err("{\"foo\":\"bar\"}", "[{\"op\":\"replace\",\"path\":\"/nope\",\"value\":1}]", SK_EINVALID);
	jp_err("{\"foo\":[1]}", "[{\"op\":\"add\",\"path\":\"/foo/5\",\"value\":1}]", SK_EINVALID);
	jp_err("{\"foo\":[1]}", "[{\"op\":\"add\",\"path\":\"/foo/x\",\"value\":1}]", SK_EINVALID);
	jp_err("{\"foo\":1}", "[{\"op\":\"move\",\"from\":\"/nope\",\"path\":\"/bar\"}]", SK_EINVALID);
	jp_err("{\"foo\":{}}", "[{\"op\":\"move\",\"from\":\"/foo\",\"path\":\"/foo/x\"}]", SK_EINVALID);
	assert_string_equal(jp_err("{}", "[{\"op\":\"frob\",\"path\":\"/a\"}]", SK_EINVALID),
			    "Unexpected kind: frob");
	/* like upstream's v4 json-patch, no operation applies to the whole document */
	assert_string_equal(jp_err("{\"foo\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":{}}]", SK_EINVALID),
			    "replace operation does not apply: doc is missing path: : missing value");
	assert_string_equal(jp_err("{\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/nope\"}]", SK_EINVALID),
			    "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value");
	assert_string_equal(jp_err("{\"foo\":\"bar\"}", "[{\"op\":\"replace\",\"path\":\"/nope\",\"value\":1}]", SK_EINVALID),
			    "replace operation does not apply: doc is missing key: /nope: missing value");
	assert_string_equal(jp_err("{\"foo\":{}}", "[{\"op\":\"move\",\"from\":\"/foo\",\"path\":\"/foo/x\"}]", SK_EINVALID),
			    "move operation does not apply: doc is missing destination path: /foo/x: missing value");
	jp_err("{}", "[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]", SK_EINVALID);
	jp_err("{}", "{\"op\":\"add\"}", SK_EBADREQUEST);
	jp_err("{}", "[1]", SK_EBADREQUEST);
}

static void check_smp(const char *kind, const char *orig, const char *patch, const char *want)
{
	sk_error_t err = {0};
	json_t *o = J(orig), *p = J(patch), *o0 = json_deep_copy(o), *p0 = json_deep_copy(p);
	json_t *r = sk_strategic_merge_patch(o, p, kind, &err);
	json_t *w = J(want);

	if (!r)
		fail_msg("%s: %s", patch, err.msg);
	/* json_equal ignores array order nowhere, so list order is checked */
	assert_json(r, want, patch);
	assert_true(json_equal(o, o0));
	assert_true(json_equal(p, p0));
	json_decref(w);
	json_decref(r);
	json_decref(o);
	json_decref(o0);
	json_decref(p);
	json_decref(p0);
}

static const char *smp_err(const char *kind, const char *orig, const char *patch)
{
	static sk_error_t err;
	json_t *o = J(orig), *p = J(patch);
	json_t *r;

	memset(&err, 0, sizeof(err));
	r = sk_strategic_merge_patch(o, p, kind, &err);
	if (r)
		fail_msg("%s applied", patch);
	assert_int_equal(err.code, SK_EBADREQUEST);
	json_decref(o);
	json_decref(p);
	return err.msg;
}

#define POD(containers) "{\"kind\":\"Pod\",\"spec\":{\"containers\":" containers "}}"

static void test_smp_lists(void **state)
{
	/* merge by name, unmentioned items stay */
	check_smp("Pod", POD("[{\"name\":\"a\",\"image\":\"x\"},{\"name\":\"b\",\"image\":\"y\"}]"),
		  POD("[{\"name\":\"b\",\"image\":\"z\"}]"),
		  POD("[{\"name\":\"a\",\"image\":\"x\"},{\"name\":\"b\",\"image\":\"z\"}]"));
	/* new items without $setElementOrder go first (mergeSortedSlice) */
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"), POD("[{\"name\":\"c\"}]"),
		  POD("[{\"name\":\"c\"},{\"name\":\"a\"},{\"name\":\"b\"}]"));
	/* $setElementOrder decides the order */
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"),
		  "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}],"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
		  POD("[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\",\"image\":\"i\"}]"));
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"),
		  "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}}",
		  POD("[{\"name\":\"b\"},{\"name\":\"a\"}]"));
	/* deletions in the patch list are not part of the order */
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]"),
		  "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"c\"},{\"name\":\"a\"}],"
		  "\"containers\":[{\"name\":\"b\",\"$patch\":\"delete\"},{\"name\":\"a\",\"image\":\"i\"}]}}",
		  POD("[{\"name\":\"c\"},{\"name\":\"a\",\"image\":\"i\"}]"));
	/* $patch: delete removes by merge key */
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"),
		  POD("[{\"name\":\"a\",\"$patch\":\"delete\"}]"), POD("[{\"name\":\"b\"}]"));
	/* $patch: replace replaces the list */
	check_smp("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"),
		  POD("[{\"name\":\"z\"},{\"$patch\":\"replace\"}]"), POD("[{\"name\":\"z\"}]"));
	/* nested lists: env by name, ports by containerPort, volumeMounts by mountPath */
	check_smp("Pod",
		  POD("[{\"name\":\"a\",\"env\":[{\"name\":\"X\",\"value\":\"1\"},{\"name\":\"Y\",\"value\":\"2\"}],"
		      "\"ports\":[{\"containerPort\":80,\"name\":\"http\"}],\"args\":[\"a\",\"b\"]}]"),
		  POD("[{\"name\":\"a\",\"env\":[{\"name\":\"Y\",\"value\":\"3\"},{\"name\":\"X\",\"$patch\":\"delete\"}],"
		      "\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],\"args\":[\"c\"]}]"),
		  POD("[{\"name\":\"a\",\"env\":[{\"name\":\"Y\",\"value\":\"3\"}],"
		      "\"ports\":[{\"containerPort\":80,\"name\":\"http\",\"protocol\":\"TCP\"}],\"args\":[\"c\"]}]"));
	/* atomic list (tolerations) replaced */
	check_smp("Pod", "{\"spec\":{\"tolerations\":[{\"key\":\"a\"},{\"key\":\"b\"}]}}",
		  "{\"spec\":{\"tolerations\":[{\"key\":\"c\"}]}}", "{\"spec\":{\"tolerations\":[{\"key\":\"c\"}]}}");
	/* primitive merge list: finalizers, podCIDRs */
	check_smp("Pod", "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}", "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}",
		  "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}");
	check_smp("ConfigMap", "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
		  "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
		  "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}");
	check_smp("ConfigMap", "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
		  "{\"metadata\":{\"$setElementOrder/finalizers\":[\"c\",\"a\"],"
		  "\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
		  "{\"metadata\":{\"finalizers\":[\"c\",\"a\"]}}");
	check_smp("Node", "{\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\"]}}", "{\"spec\":{\"podCIDRs\":[\"10.0.1.0/24\"]}}",
		  "{\"spec\":{\"podCIDRs\":[\"10.0.1.0/24\",\"10.0.0.0/24\"]}}");
	/* ownerReferences by uid; status conditions by type; node addresses by type */
	check_smp("ReplicaSet", "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"a\"}]}}",
		  "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"controller\":true}]}}",
		  "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"a\",\"controller\":true}]}}");
	check_smp("Pod", "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"},{\"type\":\"A\",\"status\":\"True\"}]}}",
		  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"},{\"type\":\"A\"}],"
		  "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		  "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"A\",\"status\":\"True\"}]}}");
	check_smp("Node", "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"1\"}]}}",
		  "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"2\"}]}}",
		  "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"2\"}]}}");
	check_smp("Service", "{\"spec\":{\"ports\":[{\"port\":80,\"name\":\"a\"},{\"port\":443}]}}",
		  "{\"spec\":{\"ports\":[{\"port\":80,\"targetPort\":8080}]}}",
		  "{\"spec\":{\"ports\":[{\"port\":80,\"name\":\"a\",\"targetPort\":8080},{\"port\":443}]}}");
	/* a list absent from the original: directives resolved, nulls dropped */
	check_smp("Pod", "{\"spec\":{}}", "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{},\"x\":null}]}}",
		  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}}");
}

static void test_smp_kinds(void **state)
{
	/* every PodSpec embedding merges containers by name */
	const char *dep = "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"1\"},{\"name\":\"b\"}]}}}}";
	const char *patch = "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"2\"}]}}}}";
	const char *want = "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"2\"},{\"name\":\"b\"}]}}}}";
	const char *kinds[] = {"Deployment", "ReplicaSet", "Job", "StatefulSet", "DaemonSet", NULL};

	for (int i = 0; kinds[i]; i++)
		check_smp(kinds[i], dep, patch, want);
	check_smp("CronJob",
		  "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"initContainers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}}}}}",
		  "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"initContainers\":[{\"name\":\"b\",\"image\":\"x\"}]}}}}}}",
		  "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"initContainers\":[{\"name\":\"a\"},{\"name\":\"b\",\"image\":\"x\"}]}}}}}}");
	/* unknown kind: lists replace, maps merge */
	check_smp("Widget", dep, patch,
		  "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"2\"}]}}}}");
	check_smp(NULL, "{\"a\":{\"b\":1,\"c\":2}}", "{\"a\":{\"b\":null,\"d\":3}}", "{\"a\":{\"c\":2,\"d\":3}}");
	/* ServiceAccount secrets by name */
	check_smp("ServiceAccount", "{\"secrets\":[{\"name\":\"a\"}]}", "{\"secrets\":[{\"name\":\"b\"}]}",
		  "{\"secrets\":[{\"name\":\"b\"},{\"name\":\"a\"}]}");
}

static void test_smp_maps(void **state)
{
	/* null deletes, maps merge */
	check_smp("ConfigMap", "{\"data\":{\"a\":\"1\",\"b\":\"2\"}}", "{\"data\":{\"a\":null,\"c\":\"3\"}}",
		  "{\"data\":{\"b\":\"2\",\"c\":\"3\"}}");
	/* null for an absent key is ignored */
	check_smp("ConfigMap", "{\"data\":{}}", "{\"x\":null,\"data\":{\"y\":null}}", "{\"data\":{}}");
	/* $patch: replace and delete in maps */
	check_smp("Pod", "{\"spec\":{\"nodeSelector\":{\"a\":\"1\",\"b\":\"2\"}}}",
		  "{\"spec\":{\"nodeSelector\":{\"$patch\":\"replace\",\"c\":\"3\"}}}",
		  "{\"spec\":{\"nodeSelector\":{\"c\":\"3\"}}}");
	check_smp("Pod", "{\"spec\":{\"nodeSelector\":{\"a\":\"1\"}}}", "{\"spec\":{\"nodeSelector\":{\"$patch\":\"delete\"}}}",
		  "{\"spec\":{\"nodeSelector\":{}}}");
	check_smp("Pod", "{\"a\":1,\"b\":2}", "{\"$patch\":\"replace\",\"c\":3}", "{\"c\":3}");
	/* $retainKeys: volume source switch, deployment strategy */
	check_smp("Pod", "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}}",
		  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"$retainKeys\":[\"hostPath\",\"name\"],\"hostPath\":{\"path\":\"/x\"}}]}}",
		  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"hostPath\":{\"path\":\"/x\"}}]}}");
	check_smp("Deployment",
		  "{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":1}}}}",
		  "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\",\"rollingUpdate\":null}}}",
		  "{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}");
	/* type change replaces */
	check_smp("Pod", "{\"a\":{\"b\":1}}", "{\"a\":[1]}", "{\"a\":[1]}");
	/* kubectl client-side apply patch shape */
	check_smp("Deployment",
		  "{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\"},\"labels\":{\"app\":\"a\",\"old\":\"x\"}},"
		  "\"spec\":{\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\",\"ports\":[{\"containerPort\":80}]}]}}}}",
		  "{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"new\"},\"labels\":{\"old\":null}},"
		  "\"spec\":{\"replicas\":3,\"template\":{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"c\"}],"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"nginx:2\",\"$setElementOrder/ports\":[{\"containerPort\":80}]}]}}}}",
		  "{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"new\"},\"labels\":{\"app\":\"a\"}},"
		  "\"spec\":{\"replicas\":3,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:2\",\"ports\":[{\"containerPort\":80}]}]}}}}");
}

static void test_smp_errors(void **state)
{
	assert_string_equal(smp_err("Pod", POD("[]"), POD("[{\"image\":\"x\"}]")),
			    "map: {\"image\":\"x\"} does not contain declared merge key: name");
	assert_string_equal(smp_err("Pod", POD("[{\"name\":\"a\"}]"), POD("[{\"$patch\":\"delete\"}]")),
			    "map: {\"$patch\":\"delete\"} does not contain declared merge key: name");
	assert_string_equal(smp_err("Pod", POD("[{\"name\":\"a\"}]"), POD("[{\"name\":\"a\",\"$patch\":\"merge\"}]")),
			    "merging lists cannot yet be specified in the patch");
	assert_string_equal(smp_err("Pod", "{\"a\":{}}", "{\"a\":{\"$patch\":\"merge\"}}"),
			    "unknown patch type: merge in map: {\"$patch\":\"merge\"}");
	assert_string_equal(smp_err("Pod", "{\"a\":{\"b\":1}}", "{\"a\":{\"$retainKeys\":[\"b\"],\"c\":1}}"),
			    "invalid patch format of retainKeys");
	smp_err("Pod", "{\"a\":{\"b\":1}}", "{\"a\":{\"$retainKeys\":\"b\"}}");
	smp_err("Pod", "{\"metadata\":{\"finalizers\":[\"a\"]}}", "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":\"a\"}}");
	smp_err("Pod", "{\"spec\":{}}", "{\"spec\":{\"$setElementOrder/containers\":{}}}");
	smp_err("Pod", "{}", "[]");
	/* patch list items must follow the $setElementOrder list */
	smp_err("Pod", POD("[{\"name\":\"a\"},{\"name\":\"b\"}]"),
		"{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
		"\"containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}}");
	smp_err("Pod", POD("[{\"name\":\"a\"}]"),
		"{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"}],\"containers\":[{\"name\":\"z\"}]}}");
	smp_err("Node", "{\"spec\":{\"podCIDRs\":[[1]]}}", "{\"spec\":{\"podCIDRs\":[[2]]}}");
	assert_string_equal(smp_err("Pod", "{\"metadata\":{\"finalizers\":[{\"a\":1}]}}",
				    "{\"metadata\":{\"finalizers\":[{\"a\":2}]}}"),
			    "cannot merge lists without merge key for ObjectMeta");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_patch),
		cmocka_unit_test(test_json_patch),
		cmocka_unit_test(test_smp_lists),
		cmocka_unit_test(test_smp_kinds),
		cmocka_unit_test(test_smp_maps),
		cmocka_unit_test(test_smp_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
