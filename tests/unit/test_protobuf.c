#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/protobuf.h"
#include "util/util.h"

/* A tiny protobuf writer for building test bodies by hand. */
typedef struct pbuf {
	uint8_t *p;
	size_t len, cap;
} pbuf;

static void put(pbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 16;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void varint(pbuf *b, uint64_t v)
{
	uint8_t c;

	do {
		c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		put(b, &c, 1);
	} while (v);
}

static void f_varint(pbuf *b, uint32_t num, uint64_t v)
{
	varint(b, (uint64_t)num << 3);
	varint(b, v);
}

static void f_bytes(pbuf *b, uint32_t num, const void *d, size_t n)
{
	varint(b, (uint64_t)num << 3 | 2);
	varint(b, n);
	put(b, d, n);
}

static void f_str(pbuf *b, uint32_t num, const char *s)
{
	f_bytes(b, num, s, strlen(s));
}

/* Appends sub as field num and frees it. */
static void f_msg(pbuf *b, uint32_t num, pbuf *sub)
{
	f_bytes(b, num, sub->p ? sub->p : (uint8_t *)"", sub->len);
	free(sub->p);
	memset(sub, 0, sizeof(*sub));
}

static void f_map(pbuf *b, uint32_t num, const char *k, const char *v)
{
	pbuf e = {0};

	f_str(&e, 1, k);
	f_str(&e, 2, v);
	f_msg(b, num, &e);
}

/* The "k8s\0" + runtime.Unknown envelope around raw (freed). */
static pbuf envelope(const char *api_version, const char *kind, pbuf *raw)
{
	pbuf out = {0}, u = {0}, tm = {0};

	put(&out, "k8s\0", 4);
	f_str(&tm, 1, api_version);
	f_str(&tm, 2, kind);
	f_msg(&u, 1, &tm);
	f_msg(&u, 2, raw);
	f_str(&u, 3, "");
	f_str(&u, 4, "");
	put(&out, u.p, u.len);
	free(u.p);
	return out;
}

static void assert_decodes(pbuf *body, const char *expect)
{
	sk_error_t err = {0};
	json_t *got = sk_protobuf_decode(body->p, body->len, &err);
	json_t *want = json_loads(expect, 0, NULL);

	assert_non_null(want);
	if (!got)
		fail_msg("decode failed: %s", err.msg);
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_COMPACT);

		fail_msg("got %s\nwant %s", g, expect);
	}
	json_decref(got);
	json_decref(want);
	free(body->p);
}

static void assert_fails(pbuf *body, const char *msg_part)
{
	sk_error_t err = {0};
	json_t *got = sk_protobuf_decode(body->p, body->len, &err);

	assert_null(got);
	assert_int_equal(err.code, SK_EBADREQUEST);
	if (!strstr(err.msg, msg_part))
		fail_msg("error %s does not mention %s", err.msg, msg_part);
	free(body->p);
}

/* ObjectMeta as go-to-protobuf writes it: every non-pointer field, zero or not. */
static void object_meta(pbuf *b, uint32_t num, const char *name, const char *ns)
{
	pbuf m = {0}, ts = {0};

	f_str(&m, 1, name);
	f_str(&m, 2, "");
	f_str(&m, 3, ns);
	f_str(&m, 4, "");
	f_str(&m, 5, "");
	f_str(&m, 6, "");
	f_varint(&m, 7, 0);
	f_msg(&m, 8, &ts); /* the zero creationTimestamp: an empty message */
	f_msg(b, num, &m);
}

static void test_namespace(void **state)
{
	pbuf ns = {0}, spec = {0}, status = {0}, meta = {0}, ts = {0}, body;

	f_str(&meta, 1, "team-a");
	f_str(&meta, 2, "");
	f_msg(&meta, 8, &ts);
	f_map(&meta, 11, "env", "prod");
	f_map(&meta, 11, "tier", "");
	f_map(&meta, 12, "note", "x");
	f_str(&meta, 14, "kubernetes");
	f_msg(&ns, 1, &meta);
	f_msg(&ns, 2, &spec);
	f_str(&status, 1, "");
	f_msg(&ns, 3, &status);
	body = envelope("v1", "Namespace", &ns);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-a\","
			      "\"labels\":{\"env\":\"prod\",\"tier\":\"\"},\"annotations\":{\"note\":\"x\"},"
			      "\"finalizers\":[\"kubernetes\"]},\"spec\":{},\"status\":{}}");
}

static void test_secret_bytes(void **state)
{
	pbuf s = {0}, e = {0}, body;

	object_meta(&s, 1, "creds", "default");
	f_str(&e, 1, "bin");
	f_bytes(&e, 2, "\x00\xffhi", 4);
	f_msg(&s, 2, &e);
	f_str(&e, 1, "pw");
	f_bytes(&e, 2, "hunter2", 7);
	f_msg(&s, 2, &e);
	f_str(&e, 1, "empty"); /* no value: the empty byte string */
	f_msg(&s, 2, &e);
	f_str(&s, 3, "Opaque");
	f_varint(&s, 5, 0); /* immutable is a pointer: a present false stays */
	body = envelope("v1", "Secret", &s);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"creds\","
			      "\"namespace\":\"default\"},\"data\":{\"bin\":\"AP9oaQ==\",\"pw\":\"aHVudGVyMg==\","
			      "\"empty\":\"\"},\"type\":\"Opaque\",\"immutable\":false}");
}

static void quantity(pbuf *b, uint32_t num, const char *k, const char *v)
{
	pbuf e = {0}, q = {0};

	f_str(&e, 1, k);
	f_str(&q, 1, v);
	f_msg(&e, 2, &q);
	f_msg(b, num, &e);
}

static void int_or_string(pbuf *b, uint32_t num, int is_str, int32_t i, const char *s)
{
	pbuf m = {0};

	f_varint(&m, 1, (uint64_t)is_str);
	f_varint(&m, 2, (uint64_t)(int64_t)i);
	f_str(&m, 3, s);
	f_msg(b, num, &m);
}

static void container(pbuf *spec)
{
	pbuf c = {0}, port = {0}, res = {0}, env = {0}, src = {0}, sel = {0}, probe = {0}, h = {0}, http = {0};

	f_str(&c, 1, "web");
	f_str(&c, 2, "nginx:1.27");
	f_str(&c, 3, "sh");
	f_str(&c, 3, "-c");
	f_str(&c, 5, "");
	f_str(&port, 1, "");
	f_varint(&port, 2, 0);
	f_varint(&port, 3, 8080);
	f_str(&port, 4, "TCP");
	f_str(&port, 5, "");
	f_msg(&c, 6, &port);
	quantity(&res, 1, "cpu", "500m");
	quantity(&res, 1, "memory", "128Mi");
	quantity(&res, 2, "cpu", "250m");
	f_msg(&c, 8, &res);
	f_str(&env, 1, "POD_NAME");
	f_str(&env, 2, "");
	f_str(&sel, 1, "v1");
	f_str(&sel, 2, "metadata.name");
	f_msg(&src, 1, &sel);
	f_msg(&env, 3, &src);
	f_msg(&c, 7, &env);
	f_str(&env, 1, "MODE");
	f_str(&env, 2, "fast");
	f_msg(&c, 7, &env);
	f_str(&http, 1, "/healthz");
	int_or_string(&http, 2, 1, 0, "http");
	f_str(&http, 3, "");
	f_str(&http, 4, "HTTP");
	f_msg(&h, 2, &http);
	f_msg(&probe, 1, &h); /* ProbeHandler is inlined into Probe */
	f_varint(&probe, 2, 0);
	f_varint(&probe, 3, 1);
	f_msg(&c, 10, &probe);
	f_str(&c, 14, "IfNotPresent");
	f_varint(&c, 16, 0); /* stdin false is dropped */
	f_msg(spec, 2, &c);
}

static void test_deployment(void **state)
{
	pbuf d = {0}, spec = {0}, sel = {0}, tmpl = {0}, tmeta = {0}, ps = {0}, vol = {0}, vs = {0}, ed = {0},
	     cm = {0}, lor = {0}, strat = {0}, sc = {0}, body;
	const char *want =
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},"
		"\"spec\":{\"replicas\":0,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
		"\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{"
		"\"volumes\":[{\"name\":\"scratch\",\"emptyDir\":{}},{\"name\":\"conf\",\"configMap\":{\"name\":\"web-conf\","
		"\"defaultMode\":420}}],"
		"\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.27\",\"command\":[\"sh\",\"-c\"],"
		"\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],"
		"\"env\":[{\"name\":\"POD_NAME\",\"valueFrom\":{\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.name\"}}},"
		"{\"name\":\"MODE\",\"value\":\"fast\"}],"
		"\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"},\"requests\":{\"cpu\":\"250m\"}},"
		"\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":\"http\",\"scheme\":\"HTTP\"},\"timeoutSeconds\":1},"
		"\"imagePullPolicy\":\"IfNotPresent\"}],"
		"\"restartPolicy\":\"Always\",\"securityContext\":{\"runAsUser\":0,\"supplementalGroups\":[1,2,3,-4]}}},"
		"\"strategy\":{}},\"status\":{}}";

	object_meta(&d, 1, "web", "ns");
	f_varint(&spec, 1, 0); /* replicas is a pointer: 0 stays */
	f_map(&sel, 1, "app", "web");
	f_msg(&spec, 2, &sel);
	f_map(&tmeta, 11, "app", "web");
	f_msg(&tmpl, 1, &tmeta);
	f_str(&vol, 1, "scratch");
	f_msg(&vs, 2, &ed);
	f_msg(&vol, 2, &vs);
	f_msg(&ps, 1, &vol);
	f_str(&vol, 1, "conf");
	f_str(&lor, 1, "web-conf");
	f_msg(&cm, 1, &lor);
	f_varint(&cm, 3, 420);
	f_msg(&vs, 19, &cm);
	f_msg(&vol, 2, &vs);
	f_msg(&ps, 1, &vol);
	container(&ps);
	f_str(&ps, 3, "Always");
	f_str(&ps, 6, ""); /* dnsPolicy "" is dropped: the server defaults it */
	f_varint(&ps, 11, 0); /* hostNetwork false is dropped */
	f_varint(&sc, 2, 0); /* runAsUser is a pointer: 0 stays */
	f_varint(&sc, 4, 1); /* supplementalGroups unpacked ... */
	{
		pbuf packed = {0};

		varint(&packed, 2);
		varint(&packed, 3);
		varint(&packed, (uint64_t)(int64_t)-4);
		f_msg(&sc, 4, &packed); /* ... and packed */
	}
	f_msg(&ps, 14, &sc);
	f_msg(&tmpl, 2, &ps);
	f_msg(&spec, 3, &tmpl);
	f_msg(&spec, 4, &strat);
	f_varint(&spec, 5, 0); /* minReadySeconds 0 is dropped */
	f_msg(&d, 2, &spec);
	f_msg(&d, 3, &sc); /* empty status */
	body = envelope("apps/v1", "Deployment", &d);
	assert_decodes(&body, want);
}

static void time_msg(pbuf *b, uint32_t num, int64_t secs, int32_t nanos)
{
	pbuf t = {0};

	f_varint(&t, 1, (uint64_t)secs);
	f_varint(&t, 2, (uint64_t)(int64_t)nanos);
	f_msg(b, num, &t);
}

static void test_times(void **state)
{
	pbuf ev = {0}, ref = {0}, src = {0}, body;

	object_meta(&ev, 1, "ev1", "default");
	f_str(&ref, 1, "Pod");
	f_str(&ref, 3, "p");
	f_msg(&ev, 2, &ref);
	f_str(&ev, 3, "Started");
	f_msg(&ev, 5, &src);
	time_msg(&ev, 6, 1700000000, 0);
	time_msg(&ev, 7, -62135596800LL, 0);
	f_varint(&ev, 8, 3);
	time_msg(&ev, 10, 1700000000, 123456789);
	body = envelope("v1", "Event", &ev);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"ev1\","
			      "\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\"},"
			      "\"reason\":\"Started\",\"source\":{},\"firstTimestamp\":\"2023-11-14T22:13:20Z\","
			      "\"lastTimestamp\":\"0001-01-01T00:00:00Z\",\"count\":3,"
			      "\"eventTime\":\"2023-11-14T22:13:20.123456Z\"}");

	ev = (pbuf){0};
	time_msg(&ev, 6, 253402300800LL, 0);
	body = envelope("v1", "Event", &ev);
	assert_fails(&body, "seconds out of range");
	ev = (pbuf){0};
	time_msg(&ev, 6, 0, 1000000000);
	body = envelope("v1", "Event", &ev);
	assert_fails(&body, "nanos out of range");
}

static void test_service_intorstring(void **state)
{
	pbuf svc = {0}, spec = {0}, port = {0}, body;

	object_meta(&svc, 1, "web", "default");
	f_str(&port, 1, "http");
	f_str(&port, 2, "TCP");
	f_varint(&port, 3, 80);
	int_or_string(&port, 4, 0, 8080, "");
	f_varint(&port, 5, 0);
	f_msg(&spec, 1, &port);
	f_str(&port, 1, "metrics");
	f_varint(&port, 3, 9090);
	int_or_string(&port, 4, 0, 0, ""); /* the zero IntOrString: left to defaulting */
	f_msg(&spec, 1, &port);
	f_map(&spec, 2, "app", "web");
	f_str(&spec, 3, "");
	f_str(&spec, 4, "ClusterIP");
	f_msg(&svc, 2, &spec);
	body = envelope("v1", "Service", &svc);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\","
			      "\"namespace\":\"default\"},\"spec\":{\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\","
			      "\"port\":80,\"targetPort\":8080},{\"name\":\"metrics\",\"port\":9090}],"
			      "\"selector\":{\"app\":\"web\"},\"type\":\"ClusterIP\"}}");
}

static void test_eviction_and_priorityclass(void **state)
{
	pbuf ev = {0}, opts = {0}, pre = {0}, pc = {0}, body;

	object_meta(&ev, 1, "p", "default");
	f_varint(&opts, 1, 30);
	f_str(&pre, 1, "uid-1");
	f_msg(&opts, 2, &pre);
	f_str(&opts, 4, "Background");
	f_str(&opts, 5, "All");
	f_msg(&ev, 2, &opts);
	body = envelope("policy/v1", "Eviction", &ev);
	assert_decodes(&body, "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"p\","
			      "\"namespace\":\"default\"},\"deleteOptions\":{\"gracePeriodSeconds\":30,"
			      "\"preconditions\":{\"uid\":\"uid-1\"},\"propagationPolicy\":\"Background\","
			      "\"dryRun\":[\"All\"]}}");

	object_meta(&pc, 1, "high", "");
	f_varint(&pc, 2, 0); /* value has no omitempty: 0 stays */
	f_varint(&pc, 3, 0);
	f_str(&pc, 4, "");
	body = envelope("scheduling.k8s.io/v1", "PriorityClass", &pc);
	assert_decodes(&body, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
			      "\"metadata\":{\"name\":\"high\"},\"value\":0}");

	f_varint(&opts, 1, (uint64_t)(int64_t)-1);
	body = envelope("meta.k8s.io/v1", "DeleteOptions", &opts);
	assert_decodes(&body, "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":-1}");
}

/* admissionregistration.k8s.io/v1: what a controller-runtime client sends
 * when it injects a caBundle (caBundle bytes become base64) */
static void test_webhook_configuration(void **state)
{
	pbuf c = {0}, hook = {0}, cc = {0}, svc = {0}, body;

	(void)state;
	object_meta(&c, 1, "kueue", "");
	f_str(&hook, 1, "vpod.kb.io");
	f_str(&svc, 1, "kueue-system");
	f_str(&svc, 2, "kueue-webhook-service");
	f_str(&svc, 3, "/validate");
	f_varint(&svc, 4, 443);
	f_msg(&cc, 1, &svc);
	f_bytes(&cc, 2, "PEM", 3);
	f_msg(&hook, 2, &cc);
	f_str(&hook, 4, "Fail");
	f_str(&hook, 6, "None");
	f_varint(&hook, 7, 10);
	f_str(&hook, 8, "v1");
	f_msg(&c, 2, &hook);
	body = envelope("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", &c);
	assert_decodes(&body, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
			      "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"kueue\"},\"webhooks\":[{"
			      "\"name\":\"vpod.kb.io\",\"clientConfig\":{\"service\":{\"namespace\":\"kueue-system\","
			      "\"name\":\"kueue-webhook-service\",\"path\":\"/validate\",\"port\":443},"
			      "\"caBundle\":\"UEVN\"},\"failurePolicy\":\"Fail\",\"sideEffects\":\"None\","
			      "\"timeoutSeconds\":10,\"admissionReviewVersions\":[\"v1\"]}]}");
}

static void test_raw_extension_and_fields(void **state)
{
	pbuf list = {0}, raw = {0}, inner = {0}, cm = {0}, meta = {0}, mf = {0}, fv = {0}, body;

	/* A List whose items are JSON and an embedded protobuf object. */
	f_str(&raw, 1, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\"}");
	f_msg(&list, 2, &raw);
	f_str(&cm, 1, "");
	f_map(&cm, 2, "k", "v");
	inner = envelope("v1", "ConfigMap", &cm);
	f_bytes(&raw, 1, inner.p, inner.len);
	free(inner.p);
	f_msg(&list, 2, &raw);
	body = envelope("v1", "List", &list);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"kind\":\"ConfigMap\","
			      "\"apiVersion\":\"v1\"},{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{},"
			      "\"data\":{\"k\":\"v\"}}]}");

	f_str(&meta, 1, "cm");
	f_str(&mf, 1, "kubectl");
	f_str(&mf, 2, "Update");
	time_msg(&mf, 4, 0, 0); /* epoch, present */
	f_str(&fv, 1, "{\"f:data\":{}}");
	f_msg(&mf, 7, &fv);
	f_msg(&meta, 17, &mf);
	f_msg(&cm, 1, &meta);
	body = envelope("v1", "ConfigMap", &cm);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\","
			      "\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Update\","
			      "\"time\":\"1970-01-01T00:00:00Z\",\"fieldsV1\":{\"f:data\":{}}}]}}");
}

static void test_job_policies_and_lease(void **state)
{
	pbuf job = {0}, spec = {0}, pfp = {0}, rule = {0}, codes = {0}, cond = {0}, sp = {0}, sr = {0}, lease = {0},
	     ls = {0}, body;

	object_meta(&job, 1, "train", "ml");
	f_varint(&spec, 7, 0); /* backoffLimit is a pointer: 0 stays */
	f_str(&spec, 9, "Indexed");
	f_varint(&spec, 2, 4);
	f_str(&rule, 1, "FailJob");
	f_str(&codes, 1, "main");
	f_str(&codes, 2, "In");
	f_varint(&codes, 3, 42);
	f_varint(&codes, 3, (uint64_t)(int64_t)-1);
	f_msg(&rule, 2, &codes);
	f_msg(&pfp, 1, &rule);
	f_str(&rule, 1, "Ignore");
	f_str(&cond, 1, "DisruptionTarget");
	f_str(&cond, 2, "True");
	f_msg(&rule, 3, &cond);
	f_msg(&pfp, 1, &rule);
	f_msg(&spec, 11, &pfp);
	f_str(&sr, 1, "0-2");
	f_varint(&sr, 2, 1);
	f_msg(&sp, 1, &sr);
	f_msg(&spec, 16, &sp);
	f_msg(&job, 2, &spec);
	body = envelope("batch/v1", "Job", &job);
	assert_decodes(&body, "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"train\","
			      "\"namespace\":\"ml\"},\"spec\":{\"backoffLimit\":0,\"completionMode\":\"Indexed\","
			      "\"completions\":4,\"podFailurePolicy\":{\"rules\":[{\"action\":\"FailJob\","
			      "\"onExitCodes\":{\"containerName\":\"main\",\"operator\":\"In\",\"values\":[42,-1]}},"
			      "{\"action\":\"Ignore\",\"onPodConditions\":[{\"type\":\"DisruptionTarget\","
			      "\"status\":\"True\"}]}]},\"successPolicy\":{\"rules\":[{\"succeededIndexes\":\"0-2\","
			      "\"succeededCount\":1}]}}}");

	object_meta(&lease, 1, "node-1", "kube-node-lease");
	f_str(&ls, 1, "node-1");
	f_varint(&ls, 2, 40);
	time_msg(&ls, 4, 1700000000, 5000);
	f_msg(&lease, 2, &ls);
	body = envelope("coordination.k8s.io/v1", "Lease", &lease);
	assert_decodes(&body, "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":"
			      "{\"name\":\"node-1\",\"namespace\":\"kube-node-lease\"},\"spec\":{\"holderIdentity\":"
			      "\"node-1\",\"leaseDurationSeconds\":40,\"renewTime\":\"2023-11-14T22:13:20.000005Z\"}}");
}

/* discovery.k8s.io/v1 and networking.k8s.io/v1 as kubectl's typed clients send them. */
static void test_endpointslice_and_networkpolicy(void **state)
{
	pbuf eps = {0}, ep = {0}, cond = {0}, port = {0}, ref = {0}, np = {0}, spec = {0}, sel = {0}, rule = {0},
	     npp = {0}, peer = {0}, ipb = {0}, body;

	(void)state;
	object_meta(&eps, 1, "web-abc", "default");
	f_str(&ep, 1, "10.0.0.1");
	f_varint(&cond, 1, 1);
	f_varint(&cond, 3, 0);
	f_msg(&ep, 2, &cond);
	f_str(&ref, 1, "Pod");
	f_str(&ref, 2, "default");
	f_str(&ref, 3, "web-0");
	f_msg(&ep, 4, &ref);
	f_str(&ep, 6, "n1");
	f_msg(&eps, 2, &ep);
	f_str(&port, 1, "http");
	f_str(&port, 2, "TCP");
	f_varint(&port, 3, 8080);
	f_msg(&eps, 3, &port);
	f_str(&eps, 4, "IPv4");
	body = envelope("discovery.k8s.io/v1", "EndpointSlice", &eps);
	assert_decodes(&body, "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":"
			      "{\"name\":\"web-abc\",\"namespace\":\"default\"},\"endpoints\":[{\"addresses\":"
			      "[\"10.0.0.1\"],\"conditions\":{\"ready\":true,\"terminating\":false},\"targetRef\":"
			      "{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"web-0\"},\"nodeName\":\"n1\"}],"
			      "\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":8080}],\"addressType\":\"IPv4\"}");

	object_meta(&np, 1, "deny", "default");
	f_map(&sel, 1, "app", "web");
	f_msg(&spec, 1, &sel);
	f_str(&npp, 1, "UDP");
	int_or_string(&npp, 2, 0, 53, "");
	f_msg(&rule, 1, &npp);
	f_str(&ipb, 1, "10.0.0.0/8");
	f_str(&ipb, 2, "10.1.0.0/16");
	f_msg(&peer, 3, &ipb);
	f_msg(&rule, 2, &peer);
	f_msg(&spec, 2, &rule);
	f_str(&spec, 4, "Ingress");
	f_msg(&np, 2, &spec);
	body = envelope("networking.k8s.io/v1", "NetworkPolicy", &np);
	assert_decodes(&body, "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"NetworkPolicy\",\"metadata\":"
			      "{\"name\":\"deny\",\"namespace\":\"default\"},\"spec\":{\"podSelector\":{\"matchLabels\":"
			      "{\"app\":\"web\"}},\"ingress\":[{\"ports\":[{\"protocol\":\"UDP\",\"port\":53}],\"from\":"
			      "[{\"ipBlock\":{\"cidr\":\"10.0.0.0/8\",\"except\":[\"10.1.0.0/16\"]}}]}],"
			      "\"policyTypes\":[\"Ingress\"]}}");
}

static void test_subject_access_review_extra(void **state)
{
	pbuf sar = {0}, spec = {0}, e = {0}, ev = {0}, body;

	f_msg(&sar, 1, &e);
	f_str(&spec, 3, "alice");
	f_str(&spec, 4, "dev");
	f_str(&e, 1, "scopes");
	f_str(&ev, 1, "read");
	f_str(&ev, 1, "write");
	f_msg(&e, 2, &ev);
	f_msg(&spec, 5, &e);
	f_str(&e, 1, "none"); /* an empty ExtraValue is an empty array */
	f_msg(&e, 2, &ev);
	f_msg(&spec, 5, &e);
	f_msg(&sar, 2, &spec);
	body = envelope("authorization.k8s.io/v1", "SubjectAccessReview", &sar);
	assert_decodes(&body, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\","
			      "\"metadata\":{},\"spec\":{\"user\":\"alice\",\"groups\":[\"dev\"],"
			      "\"extra\":{\"scopes\":[\"read\",\"write\"],\"none\":[]}}}");
}

static void test_unknown_fields_skipped(void **state)
{
	pbuf cm = {0}, body;
	uint8_t fixed[8] = {0};

	f_str(&cm, 2000, "future");
	f_varint(&cm, 99, 12345);
	varint(&cm, 98 << 3 | 1);
	put(&cm, fixed, 8);
	varint(&cm, 97 << 3 | 5);
	put(&cm, fixed, 4);
	f_varint(&cm, 4, 1); /* immutable */
	body = envelope("v1", "ConfigMap", &cm);
	assert_decodes(&body, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"immutable\":true}");
}

static void test_malformed(void **state)
{
	pbuf cm = {0}, body = {0}, deep = {0};
	sk_error_t err = {0};

	put(&body, "k8x\0", 4);
	assert_fails(&body, "prefix");
	assert_null(sk_protobuf_decode("k8", 2, &err));

	body = envelope("v1", "NoSuchKind", &cm);
	assert_fails(&body, "no schema for v1, Kind=NoSuchKind");
	body = envelope("", "", &cm);
	assert_fails(&body, "apiVersion and kind are required");

	put(&cm, "\x12\x05" "ab", 4); /* data entry longer than the message */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "length runs past the end");

	put(&cm, "\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11); /* 11-byte varint */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "malformed varint");

	f_varint(&cm, 1, 5); /* metadata as a varint */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "wrong wire type");

	f_varint(&cm, 2, 1); /* a map entry as a varint (found by fuzzing) */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "wrong wire type for a map entry");

	put(&cm, "k8s", 3); /* shorter than the magic */
	assert_fails(&cm, "prefix");
	cm = (pbuf){0};

	varint(&cm, 5 << 3 | 3); /* a group */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "groups are not supported");

	f_bytes(&cm, 4, "\xc3\x28", 2); /* immutable is a varint */
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "wrong wire type");

	f_map(&cm, 2, "k", "\xc3\x28");
	body = envelope("v1", "ConfigMap", &cm);
	assert_fails(&body, "UTF-8");

	/* RawExtension recursion is bounded. */
	for (int i = 0; i < 80; i++) {
		pbuf raw = {0}, list = {0};

		if (deep.len)
			f_bytes(&raw, 1, deep.p, deep.len);
		free(deep.p);
		f_msg(&list, 2, &raw);
		deep = envelope("v1", "List", &list);
	}
	assert_fails(&deep, "nesting too deep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_namespace),
		cmocka_unit_test(test_secret_bytes),
		cmocka_unit_test(test_deployment),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_service_intorstring),
		cmocka_unit_test(test_eviction_and_priorityclass),
		cmocka_unit_test(test_webhook_configuration),
		cmocka_unit_test(test_raw_extension_and_fields),
		cmocka_unit_test(test_job_policies_and_lease),
		cmocka_unit_test(test_endpointslice_and_networkpolicy),
		cmocka_unit_test(test_subject_access_review_extra),
		cmocka_unit_test(test_unknown_fields_skipped),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
