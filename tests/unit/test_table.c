#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/table.h"
#include "util/util.h"

#define NOW 1700000000  /* 2023-11-14T22:13:20Z */

/* Parses test JSON written with single quotes; "@N" becomes the RFC 3339
 * time N seconds before NOW ("@-5" is 5 seconds after). */
static json_t *load(const char *text)
{
	size_t cap = strlen(text) * 4 + 64, n = 0;
	cleanup_free char *buf = xmalloc(cap);
	json_error_t jerr;
	json_t *j;

	for (const char *p = text; *p; p++) {
		if (*p == '@' && (isdigit((unsigned char)p[1]) || p[1] == '-')) {
			char *end;
			long long ago = strtoll(p + 1, &end, 10);

			sk_time_format(NOW - ago, buf + n, cap - n);
			n += strlen(buf + n);
			p = end - 1;
		} else {
			buf[n++] = *p == '\'' ? '"' : *p;
		}
	}
	buf[n] = '\0';
	j = json_loads(buf, 0, &jerr);
	if (!j)
		fail_msg("bad test json: %s: %s", jerr.text, buf);
	return j;
}

static json_t *cells_of(const char *kind, const char *text)
{
	cleanup_json json_t *obj = load(text);
	cleanup_json json_t *cols = sk_table_columns(kind);
	json_t *cells = sk_table_cells(kind, obj, NOW);

	assert_int_equal(json_array_size(cells), json_array_size(cols));
	return cells;
}

static const char *cell_s(json_t *cells, size_t i)
{
	json_t *c = json_array_get(cells, i);

	if (!json_is_string(c))
		fail_msg("cell %zu is not a string", i);
	return json_string_value(c);
}

static json_int_t cell_i(json_t *cells, size_t i)
{
	json_t *c = json_array_get(cells, i);

	if (!json_is_integer(c))
		fail_msg("cell %zu is not an integer", i);
	return json_integer_value(c);
}

static void assert_cells(json_t *cells, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (want[i])
			assert_string_equal(cell_s(cells, i), want[i]);
	}
}

#define ASSERT_CELLS(cells, ...) do { \
	const char *const w_[] = { __VA_ARGS__ }; \
	assert_cells(cells, w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

/* ---- durations ---- */

static void test_human_duration(void **state)
{
	static const struct { int64_t s; const char *want; } cases[] = {
		{ -3, "<invalid>" }, { -2, "<invalid>" }, { -1, "0s" }, { 0, "0s" },
		{ 1, "1s" }, { 59, "59s" }, { 119, "119s" }, { 120, "2m" }, { 121, "2m1s" },
		{ 599, "9m59s" }, { 600, "10m" }, { 601, "10m" }, { 10799, "179m" },
		{ 10800, "3h" }, { 10860, "3h1m" }, { 28799, "7h59m" }, { 28800, "8h" },
		{ 172799, "47h" }, { 172800, "2d" }, { 176400, "2d1h" }, { 691199, "7d23h" },
		{ 691200, "8d" }, { 2LL * 365 * 86400 - 1, "729d" }, { 2LL * 365 * 86400, "2y" },
		{ 2LL * 365 * 86400 + 86400, "2y1d" }, { 8LL * 365 * 86400 - 86400, "7y364d" },
		{ 8LL * 365 * 86400, "8y" }, { 20LL * 365 * 86400 + 5 * 86400, "20y" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_human_duration(cases[i].s, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

static void test_short_human_duration(void **state)
{
	static const struct { int64_t s; const char *want; } cases[] = {
		{ -2, "<invalid>" }, { -1, "0s" }, { 0, "0s" }, { 59, "59s" }, { 60, "1m" },
		{ 3599, "59m" }, { 3600, "1h" }, { 86399, "23h" }, { 86400, "1d" },
		{ 365LL * 86400 - 1, "364d" }, { 365LL * 86400, "1y" }, { 800LL * 86400, "2y" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_short_human_duration(cases[i].s, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

/* ---- pods ---- */

struct pod_case {
	const char *what, *json, *ready, *status, *restarts;
};

#define META(extra) "'metadata':{'name':'p','creationTimestamp':'@30'" extra "}"
#define ONE "'spec':{'containers':[{'name':'a'}]}"
#define TWO "'spec':{'containers':[{'name':'a'},{'name':'b'}]}"
#define INIT2 "'spec':{'initContainers':[{'name':'i1'},{'name':'i2'}],'containers':[{'name':'a'}]}"
#define SIDECAR "'spec':{'initContainers':[{'name':'sc','restartPolicy':'Always'},{'name':'i2'}],'containers':[{'name':'a'}]}"
#define WAIT(r) "'state':{'waiting':{'reason':'" r "'}}"
#define RUN "'state':{'running':{'startedAt':'@20'}}"
#define TERM(r, code) "'state':{'terminated':{'reason':'" r "','exitCode':" #code "}}"

static const struct pod_case pod_cases[] = {
	{ "pending", "{" META("") "," ONE ",'status':{'phase':'Pending'}}",
	  "0/1", "Pending", "0" },
	{ "no status", "{" META("") "," ONE "}", "0/1", "", "0" },
	{ "container creating", "{" META("") "," ONE ",'status':{'phase':'Pending','containerStatuses':["
	  "{'name':'a','ready':false,'restartCount':0," WAIT("ContainerCreating") "}]}}",
	  "0/1", "ContainerCreating", "0" },
	{ "running 1/2", "{" META("") "," TWO ",'status':{'phase':'Running',"
	  "'conditions':[{'type':'Ready','status':'False'}],'containerStatuses':["
	  "{'name':'a','ready':true,'restartCount':0," RUN "},"
	  "{'name':'b','ready':false,'restartCount':0," RUN "}]}}",
	  "1/2", "Running", "0" },
	{ "crashloop", "{" META("") "," ONE ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','ready':false,'restartCount':3," WAIT("CrashLoopBackOff") ","
	  "'lastState':{'terminated':{'reason':'Error','exitCode':1,'finishedAt':'@300'}}}]}}",
	  "0/1", "CrashLoopBackOff", "3 (5m ago)" },
	{ "completed", "{" META("") "," ONE ",'status':{'phase':'Succeeded','containerStatuses':["
	  "{'name':'a','ready':false,'restartCount':0," TERM("Completed", 0) "}]}}",
	  "0/1", "Completed", "0" },
	{ "error", "{" META("") "," ONE ",'status':{'phase':'Failed','containerStatuses':["
	  "{'name':'a','ready':false,'restartCount':0," TERM("Error", 1) "}]}}",
	  "0/1", "Error", "0" },
	{ "oomkilled", "{" META("") "," ONE ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','ready':false,'restartCount':1," TERM("OOMKilled", 137) ","
	  "'lastState':{'terminated':{'exitCode':137,'finishedAt':'@90'}}}]}}",
	  "0/1", "OOMKilled", "1 (90s ago)" },
	{ "exit code", "{" META("") "," ONE ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','restartCount':0,'state':{'terminated':{'exitCode':2}}}]}}",
	  "0/1", "ExitCode:2", "0" },
	{ "signal", "{" META("") "," ONE ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','restartCount':0,'state':{'terminated':{'exitCode':143,'signal':15}}}]}}",
	  "0/1", "Signal:15", "0" },
	{ "first container wins", "{" META("") "," TWO ",'status':{'phase':'Pending','containerStatuses':["
	  "{'name':'a','restartCount':0," WAIT("ImagePullBackOff") "},"
	  "{'name':'b','restartCount':0," WAIT("CrashLoopBackOff") "}]}}",
	  "0/2", "ImagePullBackOff", "0" },
	{ "restarts summed, latest finish", "{" META("") "," TWO ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','ready':true,'restartCount':2," RUN ",'lastState':{'terminated':{'exitCode':1,'finishedAt':'@7200'}}},"
	  "{'name':'b','ready':true,'restartCount':1," RUN ",'lastState':{'terminated':{'exitCode':1,'finishedAt':'@600'}}}]}}",
	  "2/2", "Running", "3 (10m ago)" },
	{ "init 0/2", "{" META("") "," INIT2 ",'status':{'phase':'Pending',"
	  "'conditions':[{'type':'Initialized','status':'False'}],'initContainerStatuses':["
	  "{'name':'i1','restartCount':0," RUN "},{'name':'i2','restartCount':0," WAIT("PodInitializing") "}],"
	  "'containerStatuses':[{'name':'a','restartCount':0," WAIT("PodInitializing") "}]}}",
	  "0/1", "Init:0/2", "0" },
	{ "init 1/2", "{" META("") "," INIT2 ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'i1','restartCount':0," TERM("Completed", 0) "},{'name':'i2','restartCount':0," RUN "}]}}",
	  "0/1", "Init:1/2", "0" },
	{ "init crashloop", "{" META("") "," INIT2 ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'i1','restartCount':4," WAIT("CrashLoopBackOff") ","
	  "'lastState':{'terminated':{'exitCode':1,'finishedAt':'@60'}}},"
	  "{'name':'i2','restartCount':0," WAIT("PodInitializing") "}],"
	  "'containerStatuses':[{'name':'a','restartCount':0," WAIT("PodInitializing") "}]}}",
	  "0/1", "Init:CrashLoopBackOff", "4 (60s ago)" },
	{ "init exit code", "{" META("") "," INIT2 ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'i1','restartCount':0,'state':{'terminated':{'exitCode':1}}}]}}",
	  "0/1", "Init:ExitCode:1", "0" },
	{ "init signal", "{" META("") "," INIT2 ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'i1','restartCount':0,'state':{'terminated':{'exitCode':137,'signal':9}}}]}}",
	  "0/1", "Init:Signal:9", "0" },
	{ "init error", "{" META("") "," INIT2 ",'status':{'phase':'Failed','initContainerStatuses':["
	  "{'name':'i1','restartCount':0," TERM("Error", 1) "}]}}",
	  "0/1", "Init:Error", "0" },
	{ "terminating", "{" META(",'deletionTimestamp':'@-30'") "," ONE ",'status':{'phase':'Running','containerStatuses':["
	  "{'name':'a','ready':true,'restartCount':0," RUN "}]}}",
	  "1/1", "Terminating", "0" },
	{ "node lost", "{" META(",'deletionTimestamp':'@5'") "," ONE ",'status':{'phase':'Running','reason':'NodeLost'}}",
	  "0/1", "Unknown", "0" },
	{ "completed while deleted", "{" META(",'deletionTimestamp':'@5'") "," ONE ",'status':{'phase':'Succeeded','containerStatuses':["
	  "{'name':'a','restartCount':0," TERM("Completed", 0) "}]}}",
	  "0/1", "Completed", "0" },
	{ "evicted", "{" META("") "," ONE ",'status':{'phase':'Failed','reason':'Evicted'}}",
	  "0/1", "Evicted", "0" },
	{ "scheduling gated", "{" META("") "," ONE ",'status':{'phase':'Pending','conditions':["
	  "{'type':'PodScheduled','status':'False','reason':'SchedulingGated'}]}}",
	  "0/1", "SchedulingGated", "0" },
	{ "completed with running, not ready", "{" META("") "," TWO ",'status':{'phase':'Running',"
	  "'conditions':[{'type':'Ready','status':'False'}],'containerStatuses':["
	  "{'name':'a','restartCount':0," TERM("Completed", 0) "},"
	  "{'name':'b','ready':true,'restartCount':0," RUN "}]}}",
	  "1/2", "NotReady", "0" },
	{ "completed with running, ready", "{" META("") "," TWO ",'status':{'phase':'Running',"
	  "'conditions':[{'type':'Ready','status':'True'}],'containerStatuses':["
	  "{'name':'a','restartCount':0," TERM("Completed", 0) "},"
	  "{'name':'b','ready':true,'restartCount':0," RUN "}]}}",
	  "1/2", "Running", "0" },
	{ "sidecar not started", "{" META("") "," SIDECAR ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'sc','started':false,'restartCount':0," RUN "},"
	  "{'name':'i2','restartCount':0," WAIT("PodInitializing") "}]}}",
	  "0/2", "Init:0/2", "0" },
	{ "sidecar started, init running", "{" META("") "," SIDECAR ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'sc','started':true,'ready':true,'restartCount':0," RUN "},"
	  "{'name':'i2','restartCount':0," RUN "}]}}",
	  "1/2", "Init:1/2", "0" },
	{ "sidecar crashloop", "{" META("") "," SIDECAR ",'status':{'phase':'Pending','initContainerStatuses':["
	  "{'name':'sc','started':false,'restartCount':2," WAIT("CrashLoopBackOff") ","
	  "'lastState':{'terminated':{'exitCode':1,'finishedAt':'@45'}}}]}}",
	  "0/2", "Init:CrashLoopBackOff", "2 (45s ago)" },
	{ "sidecar running with app", "{" META("") "," SIDECAR ",'status':{'phase':'Running','conditions':["
	  "{'type':'Initialized','status':'True'},{'type':'Ready','status':'True'}],'initContainerStatuses':["
	  "{'name':'sc','started':true,'ready':true,'restartCount':2," RUN ","
	  "'lastState':{'terminated':{'exitCode':1,'finishedAt':'@600'}}},"
	  "{'name':'i2','restartCount':5," TERM("Completed", 0) "}],'containerStatuses':["
	  "{'name':'a','ready':true,'restartCount':1," RUN ","
	  "'lastState':{'terminated':{'exitCode':1,'finishedAt':'@120'}}}]}}",
	  "2/2", "Running", "3 (2m ago)" },
	{ "initialized despite init status", "{" META("") "," INIT2 ",'status':{'phase':'Running','conditions':["
	  "{'type':'Initialized','status':'True'}],'initContainerStatuses':["
	  "{'name':'i1','restartCount':0," RUN "}],'containerStatuses':["
	  "{'name':'a','ready':true,'restartCount':0," RUN "}]}}",
	  "1/1", "Init:0/2", "0" },
};

/* Cases from upstream's TestPrintPodWithRestartableInitContainer. */
#define TWO_SIDECARS "'spec':{'initContainers':[{'name':'r1','restartPolicy':'Always'}," \
	"{'name':'r2','restartPolicy':'Always'}],'containers':[{}]}"
#define R1(state, started) "{'name':'r1','ready':false,'restartCount':3,'state':" state ",'started':" started "," \
	"'lastState':{'terminated':{'exitCode':0,'finishedAt':'@10'}}}"

static const struct pod_case upstream_sidecar_cases[] = {
	{ "first sidecar running, not started", "{" META("") "," TWO_SIDECARS ",'status':{'phase':'Pending',"
	  "'initContainerStatuses':[" R1("{'running':{}}", "false") ",{'name':'r2','ready':false,'state':{'waiting':{}},'started':false}],"
	  "'containerStatuses':[{'ready':false,'restartCount':0,'state':{'waiting':{}}}],"
	  "'conditions':[{'type':'Initialized','status':'False'}]}}",
	  "0/3", "Init:0/2", "3 (10s ago)" },
	{ "first started, second not", "{" META("") "," TWO_SIDECARS ",'status':{'phase':'Pending',"
	  "'initContainerStatuses':[" R1("{'running':{}}", "true") ",{'name':'r2','ready':false,'state':{'running':{}},'started':false}],"
	  "'containerStatuses':[{'ready':false,'restartCount':0,'state':{'waiting':{}}}],"
	  "'conditions':[{'type':'Initialized','status':'False'}]}}",
	  "0/3", "Init:1/2", "3 (10s ago)" },
	{ "both started, app running", "{" META("") "," TWO_SIDECARS ",'status':{'phase':'Running',"
	  "'initContainerStatuses':[" R1("{'running':{}}", "true") ",{'name':'r2','ready':false,'state':{'running':{}},'started':true}],"
	  "'containerStatuses':[{'ready':true,'restartCount':4,'state':{'running':{}},"
	  "'lastState':{'terminated':{'exitCode':0,'finishedAt':'@20'}}}],"
	  "'conditions':[{'type':'Initialized','status':'True'}]}}",
	  "1/3", "Running", "7 (10s ago)" },
	{ "sidecars failed, app completed", "{" META("") "," TWO_SIDECARS ",'status':{'phase':'Succeeded',"
	  "'initContainerStatuses':[" R1("{'terminated':{'reason':'Error','exitCode':137}}", "false") ","
	  "{'name':'r2','ready':false,'state':{'terminated':{'reason':'Error','exitCode':137}},'started':false}],"
	  "'containerStatuses':[{'ready':false,'restartCount':4,'state':{'terminated':{'reason':'Completed','exitCode':0}},"
	  "'lastState':{'terminated':{'exitCode':0,'finishedAt':'@20'}}}],"
	  "'conditions':[{'type':'Initialized','status':'True'}]}}",
	  "0/3", "Completed", "7 (10s ago)" },
	{ "statuses for unknown containers", "{" META("") ",'spec':{'initContainers':[{'name':'init1'},"
	  "{'name':'sidecar1','restartPolicy':'Always'}],'containers':[{'name':'container1'}]},"
	  "'status':{'phase':'Running','initContainerStatuses':[{'name':'initinvalid'},{'name':'init1'},{'name':'sidecar1'}],"
	  "'containerStatuses':[{'name':'containerinvalid'},{'name':'container1'}]}}",
	  "0/2", "Init:0/2", "0" },
};

/* Cases from upstream's TestPrintPod. */
#define C1 "'spec':{'containers':[{}]}"
#define C2 "'spec':{'containers':[{},{}]}"
#define I1C1 "'spec':{'initContainers':[{}],'containers':[{}]}"
#define I2C1 "'spec':{'initContainers':[{},{}],'containers':[{}]}"
#define RUNNING_3 "{'ready':true,'restartCount':3,'state':{'running':{}}}"
#define LAST(ago) "'lastState':{'terminated':{'finishedAt':'@" #ago "'}}"

static const struct pod_case upstream_pod_cases[] = {
	{ "test1", "{" META("") "," C2 ",'status':{'phase':'podPhase','containerStatuses':["
	  RUNNING_3 ",{'restartCount':3}]}}", "1/2", "podPhase", "6" },
	{ "test2", "{" META("") "," C2 ",'status':{'phase':'podPhase','containerStatuses':["
	  RUNNING_3 ",{'state':{'waiting':{'reason':'ContainerWaitingReason'}},'restartCount':3}]}}",
	  "1/2", "ContainerWaitingReason", "6" },
	{ "test3", "{" META("") "," C2 ",'status':{'phase':'podPhase','containerStatuses':["
	  "{'state':{'waiting':{'reason':'ContainerWaitingReason'}},'restartCount':3},"
	  "{'state':{'terminated':{'reason':'ContainerTerminatedReason'}},'restartCount':3}]}}",
	  "0/2", "ContainerWaitingReason", "6" },
	{ "test4", "{" META("") "," C2 ",'status':{'phase':'podPhase','containerStatuses':["
	  RUNNING_3 ",{'ready':true,'restartCount':3}]}}", "1/2", "podPhase", "6" },
	{ "test5", "{" META("") "," C2 ",'status':{'reason':'podReason','phase':'podPhase','containerStatuses':["
	  RUNNING_3 ",{'ready':true,'restartCount':3}]}}", "1/2", "podReason", "6" },
	{ "test6", "{" META("") "," C2 ",'status':{'phase':'Running','reason':'','containerStatuses':["
	  "{'ready':true,'restartCount':3,'state':{'terminated':{'reason':'Completed','exitCode':0}}},"
	  RUNNING_3 "]}}", "1/2", "NotReady", "6" },
	{ "test6 ready", "{" META("") "," C2 ",'status':{'phase':'Running','reason':'','containerStatuses':["
	  "{'ready':true,'restartCount':3,'state':{'terminated':{'reason':'Completed','exitCode':0}}},"
	  RUNNING_3 "],'conditions':[{'type':'Ready','status':'True'}]}}", "1/2", "Running", "6" },
	{ "test7", "{" META("") "," I1C1 ",'status':{'phase':'podPhase','initContainerStatuses':["
	  "{'ready':false,'restartCount':3,'state':{'running':{}}," LAST(10) "}],"
	  "'containerStatuses':[{'ready':false,'restartCount':0,'state':{'waiting':{}}}]}}",
	  "0/1", "Init:0/1", "3 (10s ago)" },
	{ "test8", "{" META("") "," I2C1 ",'status':{'phase':'podPhase','initContainerStatuses':["
	  "{'ready':false,'restartCount':3,'state':{'running':{}}," LAST(10) "},{'ready':false,'state':{'waiting':{}}}],"
	  "'containerStatuses':[{'ready':false,'state':{'waiting':{}}}]}}",
	  "0/1", "Init:0/2", "3 (10s ago)" },
	{ "test9", "{" META("") "," I2C1 ",'status':{'phase':'podPhase','initContainerStatuses':["
	  "{'ready':false,'state':{'terminated':{}}},{'ready':false,'restartCount':3,'state':{'running':{}}," LAST(10) "}],"
	  "'containerStatuses':[{'ready':false,'state':{'waiting':{}}}]}}",
	  "0/1", "Init:1/2", "3 (10s ago)" },
	{ "test10", "{" META("") "," I2C1 ",'status':{'phase':'podPhase','initContainerStatuses':["
	  "{'ready':false,'restartCount':2,'state':{'terminated':{}}," LAST(120) "},"
	  "{'ready':false,'restartCount':3,'state':{'running':{}}," LAST(10) "}],"
	  "'containerStatuses':[{'ready':false,'state':{'waiting':{}}}]}}",
	  "0/1", "Init:1/2", "5 (10s ago)" },
	{ "test11", "{" META("") "," I1C1 ",'status':{'phase':'Running','initContainerStatuses':["
	  "{'ready':false,'restartCount':2,'state':{'terminated':{}}," LAST(120) "}],"
	  "'containerStatuses':[{'ready':false,'restartCount':4,'state':{'running':{}}," LAST(20) "}]}}",
	  "0/1", "Running", "4 (20s ago)" },
	{ "test12", "{" META("") "," C1 ",'status':{'phase':'Running','containerStatuses':["
	  "{'ready':true,'restartCount':3,'state':{'running':{}}," LAST(432000) "}]}}",
	  "1/1", "Running", "3 (5d ago)" },
	{ "test13", "{" META("") "," C2 ",'status':{'phase':'Running','containerStatuses':["
	  "{'ready':true,'restartCount':0,'state':{'running':{}}},"
	  "{'ready':true,'restartCount':3,'state':{'running':{}}," LAST(864000) "}]}}",
	  "2/2", "Running", "3 (10d ago)" },
	{ "test14", "{" META("") "," C2 ",'status':{'phase':'Running','containerStatuses':["
	  "{'ready':true,'restartCount':6,'state':{'running':{}}," LAST(432000) "},"
	  "{'ready':true,'restartCount':3,'state':{'running':{}}," LAST(1728000) "}]}}",
	  "2/2", "Running", "9 (5d ago)" },
	{ "test15", "{" META("") "," C2 ",'status':{'phase':'podPhase','conditions':["
	  "{'type':'PodScheduled','status':'False','reason':'SchedulingGated'}]}}", "0/2", "SchedulingGated", "0" },
	{ "test18", "{" META(",'deletionTimestamp':'@10'") "," C1 ",'status':{'phase':'Succeeded','containerStatuses':["
	  "{'ready':false,'restartCount':0,'state':{'terminated':{'reason':'Completed','exitCode':0}}}]}}",
	  "0/1", "Completed", "0" },
};

static void test_pod_upstream_cases(void **state)
{
	for (size_t i = 0; i < sizeof(upstream_pod_cases) / sizeof(upstream_pod_cases[0]); i++) {
		const struct pod_case *c = &upstream_pod_cases[i];
		cleanup_json json_t *cells = cells_of("Pod", c->json);

		print_message("upstream pod case: %s\n", c->what);
		ASSERT_CELLS(cells, "p", c->ready, c->status, c->restarts, "30s");
	}
}

static void test_pod_upstream_sidecar_cases(void **state)
{
	for (size_t i = 0; i < sizeof(upstream_sidecar_cases) / sizeof(upstream_sidecar_cases[0]); i++) {
		const struct pod_case *c = &upstream_sidecar_cases[i];
		cleanup_json json_t *cells = cells_of("Pod", c->json);

		print_message("upstream sidecar case: %s\n", c->what);
		ASSERT_CELLS(cells, "p", c->ready, c->status, c->restarts, "30s");
	}
}

static void test_pod_status(void **state)
{
	for (size_t i = 0; i < sizeof(pod_cases) / sizeof(pod_cases[0]); i++) {
		const struct pod_case *c = &pod_cases[i];
		cleanup_json json_t *cells = cells_of("Pod", c->json);

		print_message("pod case: %s\n", c->what);
		ASSERT_CELLS(cells, "p", c->ready, c->status, c->restarts, "30s");
	}
}

static void test_pod_wide(void **state)
{
	cleanup_json json_t *a = cells_of("Pod", "{" META("") ",'spec':{'nodeName':'n1',"
		"'containers':[{'name':'a'}],'readinessGates':[{'conditionType':'x/one'},{'conditionType':'x/two'}]},"
		"'status':{'phase':'Running','podIP':'10.0.0.9','podIPs':[{'ip':'10.0.0.9'},{'ip':'fd00::9'}],"
		"'nominatedNodeName':'n2','conditions':[{'type':'x/one','status':'True'},{'type':'x/two','status':'False'}]}}");
	cleanup_json json_t *b = cells_of("Pod", "{" META("") "," ONE ",'status':{'phase':'Pending'}}");
	cleanup_json json_t *c = cells_of("Pod", "{" META("") "," ONE ",'status':{'phase':'Running','podIP':'10.1.1.1'}}");
	cleanup_json json_t *d = cells_of("Pod", "{" META("") "," ONE ",'status':{'podIPs':[{'ip':'fd00::1'}]}}");
	cleanup_json json_t *noage = cells_of("Pod", "{'metadata':{'name':'x'}}");
	cleanup_json json_t *future = cells_of("Pod", "{'metadata':{'name':'x','creationTimestamp':'@-10'}}");
	cleanup_json json_t *zero = cells_of("Pod", "{'metadata':{'name':'x','creationTimestamp':'0001-01-01T00:00:00Z'}}");

	ASSERT_CELLS(a, "p", "0/1", "Running", "0", "30s", "10.0.0.9", "n1", "n2", "1/2");
	ASSERT_CELLS(b, "p", "0/1", "Pending", "0", "30s", "<none>", "<none>", "<none>", "<none>");
	assert_string_equal(cell_s(c, 5), "10.1.1.1");
	assert_string_equal(cell_s(d, 5), "fd00::1");
	assert_string_equal(cell_s(noage, 4), "<unknown>");
	assert_string_equal(cell_s(future, 4), "<invalid>");
	assert_string_equal(cell_s(zero, 4), "<unknown>");
}

static void test_pod_columns(void **state)
{
	static const char *const names[] = {
		"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates",
	};
	cleanup_json json_t *cols = sk_table_columns("Pod");

	assert_int_equal(json_array_size(cols), 9);
	for (size_t i = 0; i < 9; i++) {
		json_t *c = json_array_get(cols, i);

		assert_string_equal(json_string_value(json_object_get(c, "name")), names[i]);
		assert_int_equal(json_integer_value(json_object_get(c, "priority")), i >= 5);
		assert_string_equal(json_string_value(json_object_get(c, "format")), i == 0 ? "name" : "");
		assert_string_equal(json_string_value(json_object_get(c, "type")), "string");
		assert_true(json_is_string(json_object_get(c, "description")));
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 1), "description")),
			    "The aggregate readiness state of this pod for accepting traffic.");
}

static void test_pod_row_conditions(void **state)
{
	cleanup_json json_t *ok = load("{'status':{'phase':'Succeeded'}}");
	cleanup_json json_t *failed = load("{'status':{'phase':'Failed'}}");
	cleanup_json json_t *running = load("{'status':{'phase':'Running'}}");
	cleanup_json json_t *a = sk_table_row_conditions("Pod", ok);
	cleanup_json json_t *b = sk_table_row_conditions("Pod", failed);
	json_t *c0;

	assert_int_equal(json_array_size(a), 1);
	c0 = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(c0, "type")), "Completed");
	assert_string_equal(json_string_value(json_object_get(c0, "status")), "True");
	assert_string_equal(json_string_value(json_object_get(c0, "reason")), "Succeeded");
	assert_string_equal(json_string_value(json_object_get(c0, "message")), "The pod has completed successfully.");
	assert_string_equal(json_string_value(json_object_get(json_array_get(b, 0), "message")), "The pod failed.");
	assert_null(sk_table_row_conditions("Pod", running));
	assert_null(sk_table_row_conditions("Node", ok));
}

/* ---- nodes ---- */

static void test_node(void **state)
{
	cleanup_json json_t *ready = cells_of("Node", "{'metadata':{'name':'n1','creationTimestamp':'@86400',"
		"'labels':{'node-role.kubernetes.io/control-plane':'','kubernetes.io/role':'worker',"
		"'node-role.kubernetes.io/worker':'','node-role.kubernetes.io/':'x','kubernetes.io/hostname':'n1'}},"
		"'status':{'conditions':[{'type':'MemoryPressure','status':'False'},{'type':'Ready','status':'True'}],"
		"'addresses':[{'type':'Hostname','address':'n1'},{'type':'InternalIP','address':'10.0.0.1'}],"
		"'nodeInfo':{'kubeletVersion':'v1.32.0','osImage':'Debian GNU/Linux 12 (bookworm)',"
		"'kernelVersion':'6.1.0','containerRuntimeVersion':'skiff://0.1'}}}");
	cleanup_json json_t *cordoned = cells_of("Node", "{'metadata':{'name':'n2','creationTimestamp':'@600'},"
		"'spec':{'unschedulable':true},'status':{'conditions':[{'type':'Ready','status':'False'}],"
		"'addresses':[{'type':'ExternalIP','address':'1.2.3.4'}]}}");
	cleanup_json json_t *unknown = cells_of("Node", "{'metadata':{'name':'n3'},'status':{}}");
	cleanup_json json_t *lost = cells_of("Node", "{'metadata':{'name':'n4','labels':{'kubernetes.io/role':'gpu'}},"
		"'status':{'conditions':[{'type':'Ready','status':'Unknown'}]}}");

	ASSERT_CELLS(ready, "n1", "Ready", "control-plane,worker", "24h", "v1.32.0", "10.0.0.1", "<none>",
		     "Debian GNU/Linux 12 (bookworm)", "6.1.0", "skiff://0.1");
	ASSERT_CELLS(cordoned, "n2", "NotReady,SchedulingDisabled", "<none>", "10m", "", "<none>", "1.2.3.4",
		     "<unknown>", "<unknown>", "<unknown>");
	ASSERT_CELLS(unknown, "n3", "Unknown", "<none>", "<unknown>");
	ASSERT_CELLS(lost, "n4", "NotReady", "gpu");
}

/* ---- workloads ---- */

#define JOBTPL "'template':{'spec':{'containers':[{'name':'a','image':'busybox'},{'name':'b','image':'nginx:1.27'}]}}"

static void test_job(void **state)
{
	cleanup_json json_t *done = cells_of("Job", "{'metadata':{'name':'j','creationTimestamp':'@700'},"
		"'spec':{'completions':1,'selector':{'matchLabels':{'batch.kubernetes.io/controller-uid':'abc'}}," JOBTPL "},"
		"'status':{'succeeded':1,'startTime':'@600','completionTime':'@540',"
		"'conditions':[{'type':'SuccessCriteriaMet','status':'True'},{'type':'Complete','status':'True'}]}}");
	cleanup_json json_t *running = cells_of("Job", "{'metadata':{'name':'j','creationTimestamp':'@130'},"
		"'spec':{'parallelism':3},'status':{'startTime':'@125','active':3}}");
	cleanup_json json_t *single = cells_of("Job", "{'metadata':{'name':'j'},'spec':{'parallelism':1}}");
	cleanup_json json_t *failed = cells_of("Job", "{'metadata':{'name':'j','deletionTimestamp':'@1'},"
		"'spec':{'completions':5},'status':{'succeeded':2,'conditions':[{'type':'Failed','status':'True'}]}}");
	cleanup_json json_t *terminating = cells_of("Job", "{'metadata':{'name':'j','deletionTimestamp':'@1'},"
		"'status':{'conditions':[{'type':'Suspended','status':'True'}]}}");
	cleanup_json json_t *suspended = cells_of("Job", "{'metadata':{'name':'j'},"
		"'status':{'conditions':[{'type':'Complete','status':'False'},{'type':'Suspended','status':'True'}]}}");
	cleanup_json json_t *target = cells_of("Job", "{'metadata':{'name':'j'},"
		"'status':{'conditions':[{'type':'FailureTarget','status':'True'}]}}");
	cleanup_json json_t *criteria = cells_of("Job", "{'metadata':{'name':'j'},"
		"'status':{'conditions':[{'type':'SuccessCriteriaMet','status':'True'}]}}");

	ASSERT_CELLS(done, "j", "Complete", "1/1", "60s", "11m", "a,b", "busybox,nginx:1.27",
		     "batch.kubernetes.io/controller-uid=abc");
	ASSERT_CELLS(running, "j", "Running", "0/1 of 3", "2m5s", "2m10s", "", "", "<none>");
	ASSERT_CELLS(single, "j", "Running", "0/1", "", "<unknown>");
	ASSERT_CELLS(failed, "j", "Failed", "2/5");
	ASSERT_CELLS(terminating, "j", "Terminating");
	ASSERT_CELLS(suspended, "j", "Suspended");
	ASSERT_CELLS(target, "j", "FailureTarget");
	ASSERT_CELLS(criteria, "j", "SuccessCriteriaMet");
}

static void test_deployment(void **state)
{
	cleanup_json json_t *d = cells_of("Deployment", "{'metadata':{'name':'web','creationTimestamp':'@3600'},"
		"'spec':{'replicas':3,'selector':{'matchLabels':{'app':'web'},'matchExpressions':["
		"{'key':'tier','operator':'In','values':['fe','be']},{'key':'canary','operator':'DoesNotExist'}]},"
		"'template':{'spec':{'containers':[{'name':'web','image':'nginx'}]}}},"
		"'status':{'replicas':3,'updatedReplicas':3,'readyReplicas':2,'availableReplicas':2}}");
	cleanup_json json_t *empty = cells_of("Deployment", "{'metadata':{'name':'x'}}");
	cleanup_json json_t *bad = cells_of("Deployment", "{'metadata':{'name':'x'},"
		"'spec':{'selector':{'matchExpressions':[{'key':'a','operator':'Near'}]}}}");
	cleanup_json json_t *cols = sk_table_columns("Deployment");

	ASSERT_CELLS(d, "web", "2/3");
	assert_int_equal(cell_i(d, 2), 3);
	assert_int_equal(cell_i(d, 3), 2);
	ASSERT_CELLS(d, "web", "2/3", NULL, NULL, "60m", "web", "nginx", "app=web,!canary,tier in (be,fe)");
	ASSERT_CELLS(empty, "x", "0/1", NULL, NULL, "<unknown>", "", "", "");
	assert_string_equal(cell_s(bad, 7), "<invalid>");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 2), "name")), "Up-to-date");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 2), "type")), "string");
}

static void test_replicaset(void **state)
{
	cleanup_json json_t *rs = cells_of("ReplicaSet", "{'metadata':{'name':'web-5d8','creationTimestamp':'@45'},"
		"'spec':{'replicas':2,'selector':{'matchLabels':{'app':'web','pod-template-hash':'5d8'}},"
		"'template':{'spec':{'containers':[{'name':'web','image':'nginx'}]}}},"
		"'status':{'replicas':2,'readyReplicas':1}}");
	cleanup_json json_t *cols = sk_table_columns("ReplicaSet");

	assert_string_equal(cell_s(rs, 0), "web-5d8");
	assert_int_equal(cell_i(rs, 1), 2);
	assert_int_equal(cell_i(rs, 2), 2);
	assert_int_equal(cell_i(rs, 3), 1);
	ASSERT_CELLS(rs, "web-5d8", NULL, NULL, NULL, "45s", "web", "nginx", "app=web,pod-template-hash=5d8");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 1), "type")), "integer");
}

static void test_daemonset(void **state)
{
	cleanup_json json_t *ds = cells_of("DaemonSet", "{'metadata':{'name':'plugin','creationTimestamp':'@45'},"
		"'spec':{'selector':{'matchLabels':{'app':'p'}},'template':{'spec':{"
		"'nodeSelector':{'nvidia.com/gpu.present':'true','a':'b'},"
		"'containers':[{'name':'c','image':'nvcr.io/plugin:1'}]}}},"
		"'status':{'desiredNumberScheduled':3,'currentNumberScheduled':2,'numberReady':1,"
		"'updatedNumberScheduled':2,'numberAvailable':1}}");
	cleanup_json json_t *empty = cells_of("DaemonSet", "{'metadata':{'name':'e'}}");
	cleanup_json json_t *cr = cells_of("ControllerRevision", "{'metadata':{'name':'plugin-7d','creationTimestamp':'@45',"
		"'ownerReferences':[{'apiVersion':'apps/v1','kind':'DaemonSet','name':'plugin','controller':true}]},"
		"'revision':4}");
	cleanup_json json_t *orphan = cells_of("ControllerRevision", "{'metadata':{'name':'o'},'revision':1}");
	cleanup_json json_t *cols = sk_table_columns("DaemonSet");

	static const int want[] = {0, 3, 2, 1, 2, 1};

	for (int i = 1; i <= 5; i++)
		assert_int_equal(cell_i(ds, (size_t)i), want[i]);
	ASSERT_CELLS(ds, "plugin", NULL, NULL, NULL, NULL, NULL, "a=b,nvidia.com/gpu.present=true", "45s", "c",
		     "nvcr.io/plugin:1", "app=p");
	ASSERT_CELLS(empty, "e", NULL, NULL, NULL, NULL, NULL, "<none>", "<unknown>", "", "", "<none>");
	assert_int_equal(cell_i(empty, 1), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 6), "name")), "Node Selector");
	ASSERT_CELLS(cr, "plugin-7d", "daemonset.apps/plugin");
	assert_int_equal(cell_i(cr, 2), 4);
	ASSERT_CELLS(orphan, "o", "<none>");
}

static void test_cronjob(void **state)
{
	cleanup_json json_t *cj = cells_of("CronJob", "{'metadata':{'name':'tick','creationTimestamp':'@172800'},"
		"'spec':{'schedule':'*/5 * * * *','suspend':false,'jobTemplate':{'spec':" "{" JOBTPL "}}},"
		"'status':{'active':[{'name':'tick-1'},{'name':'tick-2'}],'lastScheduleTime':'@300'}}");
	cleanup_json json_t *tz = cells_of("CronJob", "{'metadata':{'name':'tz'},"
		"'spec':{'schedule':'@daily','timeZone':'Etc/UTC','suspend':true}}");
	cleanup_json json_t *unset = cells_of("CronJob", "{'metadata':{'name':'u'},'spec':{'schedule':'0 * * * *'}}");

	ASSERT_CELLS(cj, "tick", "*/5 * * * *", "<none>", "False");
	assert_int_equal(cell_i(cj, 4), 2);
	ASSERT_CELLS(cj, "tick", NULL, NULL, NULL, NULL, "5m", "2d", "a,b", "busybox,nginx:1.27", "<none>");
	ASSERT_CELLS(tz, "tz", "@daily", "Etc/UTC", "True", NULL, "<none>");
	assert_string_equal(cell_s(unset, 3), "<unset>");
}

/* ---- events ---- */

static void test_event(void **state)
{
	cleanup_json json_t *ev = cells_of("Event", "{'metadata':{'name':'web-1.17a','creationTimestamp':'@3600'},"
		"'involvedObject':{'kind':'Pod','name':'web-1','fieldPath':'spec.containers{a}'},"
		"'reason':'BackOff','message':'  Back-off restarting failed container\\n','type':'Warning',"
		"'source':{'component':'kubelet','host':'node-1'},'firstTimestamp':'@3600','lastTimestamp':'@60','count':5}");
	cleanup_json json_t *series = cells_of("Event", "{'metadata':{'name':'e2'},"
		"'involvedObject':{'kind':'Node','name':''},'reason':'Scheduled','type':'Normal','message':'ok',"
		"'eventTime':'2023-11-14T22:12:20.123456Z','series':{'count':3,'lastObservedTime':'2023-11-14T22:13:10.000001Z'},"
		"'reportingComponent':'skiff-scheduler'}");
	cleanup_json json_t *single = cells_of("Event", "{'metadata':{'name':'e3'},"
		"'involvedObject':{'kind':'ReplicaSet','name':'web-5d8'},'type':'Normal','reason':'SuccessfulCreate',"
		"'message':'Created pod','eventTime':'@20','reportingComponent':'replicaset-controller',"
		"'reportingInstance':'skiff-1'}");

	ASSERT_CELLS(ev, "60s", "Warning", "BackOff", "pod/web-1", "spec.containers{a}", "kubelet, node-1",
		     "Back-off restarting failed container", "60m");
	assert_int_equal(cell_i(ev, 8), 5);
	assert_string_equal(cell_s(ev, 9), "web-1.17a");
	ASSERT_CELLS(series, "10s", "Normal", "Scheduled", "node", "", "skiff-scheduler", "ok", "60s");
	assert_int_equal(cell_i(series, 8), 3);
	ASSERT_CELLS(single, "20s", NULL, NULL, "replicaset/web-5d8", "", "replicaset-controller, skiff-1",
		     "Created pod", "20s");
	assert_int_equal(cell_i(single, 8), 1);
}

/* ---- services, storage, the rest ---- */

static void test_service(void **state)
{
	cleanup_json json_t *ci = cells_of("Service", "{'metadata':{'name':'web','creationTimestamp':'@7'},"
		"'spec':{'type':'ClusterIP','clusterIP':'10.96.0.10','clusterIPs':['10.96.0.10'],"
		"'ports':[{'port':80,'protocol':'TCP'},{'port':53,'protocol':'UDP'}],'selector':{'tier':'fe','app':'web'}}}");
	cleanup_json json_t *np = cells_of("Service", "{'metadata':{'name':'np'},'spec':{'type':'NodePort',"
		"'clusterIP':'10.96.0.11','externalIPs':['1.1.1.1','2.2.2.2'],'ports':[{'port':80,'nodePort':30080,'protocol':'TCP'}]}}");
	cleanup_json json_t *lb = cells_of("Service", "{'metadata':{'name':'lb'},'spec':{'type':'LoadBalancer',"
		"'clusterIPs':['10.96.0.12'],'ports':[{'port':443,'nodePort':31443,'protocol':'TCP'}]}}");
	cleanup_json json_t *lb2 = cells_of("Service", "{'metadata':{'name':'lb'},'spec':{'type':'LoadBalancer',"
		"'externalIPs':['9.9.9.9']},'status':{'loadBalancer':{'ingress':[{'ip':'5.5.5.5'},{'hostname':'a.example'},{'ip':'5.5.5.5'}]}}}");
	cleanup_json json_t *headless = cells_of("Service", "{'metadata':{'name':'h'},'spec':{'clusterIP':'None'}}");
	cleanup_json json_t *ext = cells_of("Service", "{'metadata':{'name':'x'},'spec':{'type':'ExternalName','externalName':'db.example.com'}}");

	ASSERT_CELLS(ci, "web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "7s", "app=web,tier=fe");
	ASSERT_CELLS(np, "np", "NodePort", "10.96.0.11", "1.1.1.1,2.2.2.2", "80:30080/TCP", "<unknown>", "<none>");
	ASSERT_CELLS(lb, "lb", "LoadBalancer", "10.96.0.12", "<pending>", "443:31443/TCP");
	ASSERT_CELLS(lb2, "lb", "LoadBalancer", "<none>", "5.5.5.5,a.example,9.9.9.9", "<none>");
	ASSERT_CELLS(headless, "h", "ClusterIP", "None", "<none>", "<none>");
	ASSERT_CELLS(ext, "x", "ExternalName", "<none>", "db.example.com");
}

static void test_endpoints(void **state)
{
	cleanup_json json_t *two = cells_of("Endpoints", "{'metadata':{'name':'web'},'subsets':[{"
		"'addresses':[{'ip':'10.0.0.1'},{'ip':'fd00::2'}],'ports':[{'port':8080}]}]}");
	cleanup_json json_t *many = cells_of("Endpoints", "{'metadata':{'name':'web'},'subsets':[{"
		"'addresses':[{'ip':'10.0.0.1'},{'ip':'10.0.0.2'},{'ip':'10.0.0.3'}],'ports':[{'port':80},{'port':443}]}]}");
	cleanup_json json_t *noports = cells_of("Endpoints", "{'metadata':{'name':'h'},'subsets':[{'addresses':[{'ip':'10.0.0.7'}]}]}");
	cleanup_json json_t *none = cells_of("Endpoints", "{'metadata':{'name':'e'}}");

	assert_string_equal(cell_s(two, 1), "10.0.0.1:8080,[fd00::2]:8080");
	assert_string_equal(cell_s(many, 1), "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 3 more...");
	assert_string_equal(cell_s(noports, 1), "10.0.0.7");
	assert_string_equal(cell_s(none, 1), "<none>");
}

static void test_storage(void **state)
{
	cleanup_json json_t *bound = cells_of("PersistentVolumeClaim", "{'metadata':{'name':'data','creationTimestamp':'@5'},"
		"'spec':{'volumeName':'pv-1','storageClassName':'standard','volumeMode':'Filesystem',"
		"'resources':{'requests':{'storage':'1Gi'}}},"
		"'status':{'phase':'Bound','capacity':{'storage':'2Gi'},'accessModes':['ReadWriteOnce']}}");
	cleanup_json json_t *pending = cells_of("PersistentVolumeClaim", "{'metadata':{'name':'d2',"
		"'annotations':{'volume.beta.kubernetes.io/storage-class':'old'}},"
		"'spec':{'storageClassName':'new','resources':{'requests':{'storage':'1Gi'}}},'status':{'phase':'Pending'}}");
	cleanup_json json_t *pv = cells_of("PersistentVolume", "{'metadata':{'name':'pv-1','creationTimestamp':'@5'},"
		"'spec':{'capacity':{'storage':'10Gi'},'accessModes':['ReadWriteMany','ReadWriteOnce','ReadWriteOnce'],"
		"'persistentVolumeReclaimPolicy':'Retain','claimRef':{'namespace':'default','name':'data'},"
		"'storageClassName':'standard'},'status':{'phase':'Bound'}}");
	cleanup_json json_t *sc = cells_of("StorageClass", "{'metadata':{'name':'standard','creationTimestamp':'@5',"
		"'annotations':{'storageclass.kubernetes.io/is-default-class':'true'}},"
		"'provisioner':'skiff.io/hostpath','volumeBindingMode':'WaitForFirstConsumer'}");

	ASSERT_CELLS(bound, "data", "Bound", "pv-1", "2Gi", "RWO", "standard", "<unset>", "5s", "Filesystem");
	ASSERT_CELLS(pending, "d2", "Pending", "", "", "", "old", "<unset>", "<unknown>", "<unset>");
	ASSERT_CELLS(pv, "pv-1", "10Gi", "RWO,RWX", "Retain", "Bound", "default/data", "standard", "<unset>", "",
		     "5s", "<unset>");
	ASSERT_CELLS(sc, "standard (default)", "skiff.io/hostpath", "Delete", "WaitForFirstConsumer");
	assert_true(json_is_false(json_array_get(sc, 4)));
	assert_string_equal(cell_s(sc, 5), "5s");
}

static void test_small_kinds(void **state)
{
	cleanup_json json_t *ns = cells_of("Namespace", "{'metadata':{'name':'default','creationTimestamp':'@100'},'status':{'phase':'Active'}}");
	cleanup_json json_t *sec = cells_of("Secret", "{'metadata':{'name':'s'},'type':'Opaque','data':{'a':'eA==','b':'eQ=='},"
		"'stringData':{'b':'y','c':'z'}}");
	cleanup_json json_t *cm = cells_of("ConfigMap", "{'metadata':{'name':'c'},'data':{'a':'x'},'binaryData':{'b':'eQ=='}}");
	cleanup_json json_t *sa = cells_of("ServiceAccount", "{'metadata':{'name':'default'}}");
	cleanup_json json_t *lease = cells_of("Lease", "{'metadata':{'name':'n1'},'spec':{'holderIdentity':'n1'}}");
	cleanup_json json_t *rc = cells_of("RuntimeClass", "{'metadata':{'name':'gvisor'},'handler':'runsc'}");
	cleanup_json json_t *pc = cells_of("PriorityClass", "{'metadata':{'name':'high'},'value':1000000,"
		"'globalDefault':true,'preemptionPolicy':'Never'}");
	cleanup_json json_t *rq = cells_of("ResourceQuota", "{'metadata':{'name':'q'},'status':{"
		"'hard':{'requests.cpu':'2','pods':'10','limits.memory':'4Gi','limits.cpu':'4'},"
		"'used':{'pods':'3','requests.cpu':'500m','limits.cpu':'1'}}}");
	cleanup_json json_t *pg = cells_of("PodGroup", "{'metadata':{'name':'g','creationTimestamp':'@30'},"
		"'spec':{'minMember':4},'status':{'phase':'Running','running':4,'succeeded':1}}");

	ASSERT_CELLS(ns, "default", "Active", "100s");
	assert_string_equal(cell_s(sec, 1), "Opaque");
	assert_int_equal(cell_i(sec, 2), 3);
	assert_int_equal(cell_i(cm, 1), 2);
	assert_int_equal(cell_i(sa, 1), 0);
	ASSERT_CELLS(lease, "n1", "n1", "<unknown>");
	ASSERT_CELLS(rc, "gvisor", "runsc");
	assert_int_equal(cell_i(pc, 1), 1000000);
	assert_true(json_is_true(json_array_get(pc, 2)));
	assert_string_equal(cell_s(pc, 4), "Never");
	ASSERT_CELLS(rq, "q", "pods: 3/10, requests.cpu: 500m/2", "limits.cpu: 1/4, limits.memory: 0/4Gi");
	assert_int_equal(cell_i(pg, 1), 4);
	assert_string_equal(cell_s(pg, 2), "Running");
	assert_int_equal(cell_i(pg, 3), 4);
	assert_string_equal(cell_s(pg, 4), "30s");
	assert_int_equal(cell_i(pg, 5), 1);
	assert_int_equal(cell_i(pg, 6), 0);
}

static void test_default_table(void **state)
{
	cleanup_json json_t *cols = sk_table_columns("Widget");
	cleanup_json json_t *null_cols = sk_table_columns(NULL);
	cleanup_json json_t *cells = cells_of("Widget", "{'metadata':{'name':'w','creationTimestamp':'@60'}}");
	cleanup_json json_t *zero = cells_of("Widget", "{'metadata':{'name':'w'}}");

	assert_int_equal(json_array_size(cols), 2);
	assert_int_equal(json_array_size(null_cols), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 1), "name")), "Created At");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 1), "type")), "date");
	ASSERT_CELLS(cells, "w", "2023-11-14T22:12:20Z");
	ASSERT_CELLS(zero, "w", "0001-01-01T00:00:00Z");
	assert_false(sk_table_has_printer("Widget"));
	assert_true(sk_table_has_printer("Pod"));
}

/* Every printer survives an empty object and a wrong-typed one, and gives as
 * many cells as it has columns. */
static void test_all_kinds_shape(void **state)
{
	static const char *const kinds[] = {
		"Namespace", "Pod", "Node", "Event", "ConfigMap", "Secret", "Service", "Endpoints",
		"ServiceAccount", "ResourceQuota", "PersistentVolume", "PersistentVolumeClaim",
		"StorageClass", "Deployment", "ReplicaSet", "DaemonSet", "ControllerRevision", "Job", "CronJob", "Lease", "RuntimeClass",
		"PriorityClass", "PodGroup", "Widget",
	};
	static const char *const objs[] = {
		"{}", "[]", "{'metadata':7,'spec':'x','status':[1,2],'subsets':{},'data':'x'}",
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		cleanup_json json_t *cols = sk_table_columns(kinds[i]);

		assert_true(sk_table_has_printer(kinds[i]) == (strcmp(kinds[i], "Widget") != 0));
		assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 0), "name")),
				    strcmp(kinds[i], "Event") == 0 ? "Last Seen" : "Name");
		for (size_t j = 0; j < sizeof(objs) / sizeof(objs[0]); j++) {
			cleanup_json json_t *cells = cells_of(kinds[i], objs[j]);

			assert_non_null(cells);
		}
	}
}

static void test_label_selector(void **state)
{
	static const struct { const char *sel, *want; } cases[] = {
		{ "{}", "" },
		{ "{'matchLabels':{}}", "" },
		{ "{'matchLabels':{'b':'2','a':'1'}}", "a=1,b=2" },
		{ "{'matchExpressions':[{'key':'env','operator':'NotIn','values':['prod']}]}", "env notin (prod)" },
		{ "{'matchExpressions':[{'key':'k','operator':'Exists'}]}", "k" },
		{ "{'matchLabels':{'app':'web'},'matchExpressions':[{'key':'app','operator':'In','values':['c','a','b']}]}",
		  "app=web,app in (a,b,c)" },
		{ "{'matchExpressions':[{'key':'k','operator':'In','values':[]}]}", NULL },
		{ "{'matchExpressions':[{'key':'k','operator':'Exists','values':['x']}]}", NULL },
		{ "{'matchExpressions':[{'key':'k','operator':'Equals','values':['x']}]}", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_json json_t *sel = load(cases[i].sel);
		cleanup_free char *s = sk_table_selector_string(sel);

		if (cases[i].want)
			assert_string_equal(s, cases[i].want);
		else
			assert_null(s);
	}
	{
		cleanup_free char *s = sk_table_selector_string(NULL);

		assert_string_equal(s, "");
	}
}

/* printEndpointSlice: ports by number, else name, else "*"; at most 3
 * addresses then " + N more..."; "<unset>" for none. */
static void test_endpointslice(void **state)
{
	json_t *c;

	(void)state;
	c = cells_of("EndpointSlice",
		     "{\"metadata\":{\"name\":\"web-x\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},"
		     "\"addressType\":\"IPv4\",\"ports\":[{\"port\":80},{\"name\":\"dns\"},{},{\"port\":9}],"
		     "\"endpoints\":[{\"addresses\":[\"10.0.0.1\",\"10.0.0.2\"]},{\"addresses\":[\"10.0.0.3\"]},"
		     "{\"addresses\":[\"10.0.0.4\"]},{\"addresses\":[\"10.0.0.5\"]}]}");
	ASSERT_CELLS(c, "web-x", "IPv4", "80,dns,* + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...");
	json_decref(c);
	c = cells_of("EndpointSlice", "{\"metadata\":{\"name\":\"e\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},"
				      "\"addressType\":\"IPv6\",\"endpoints\":[]}");
	ASSERT_CELLS(c, "e", "IPv6", "<unset>", "<unset>");
	json_decref(c);
	c = cells_of("EndpointSlice", "{\"metadata\":{\"name\":\"t\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},"
				      "\"addressType\":\"IPv4\",\"ports\":[{\"port\":1},{\"port\":2},{\"port\":3}],"
				      "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"]}]}");
	ASSERT_CELLS(c, "t", "IPv4", "1,2,3", "10.0.0.1");
	json_decref(c);
}

static void test_networkpolicy(void **state)
{
	json_t *c;

	(void)state;
	c = cells_of("NetworkPolicy", "{\"metadata\":{\"name\":\"np\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},"
				      "\"spec\":{\"podSelector\":{\"matchLabels\":{\"b\":\"2\",\"a\":\"1\"}}}}");
	ASSERT_CELLS(c, "np", "a=1,b=2");
	json_decref(c);
	c = cells_of("NetworkPolicy", "{\"metadata\":{\"name\":\"all\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},"
				      "\"spec\":{\"podSelector\":{}}}");
	ASSERT_CELLS(c, "all", "<none>");
	json_decref(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_human_duration),
		cmocka_unit_test(test_short_human_duration),
		cmocka_unit_test(test_pod_status),
		cmocka_unit_test(test_pod_upstream_cases),
		cmocka_unit_test(test_pod_upstream_sidecar_cases),
		cmocka_unit_test(test_pod_wide),
		cmocka_unit_test(test_pod_columns),
		cmocka_unit_test(test_pod_row_conditions),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_endpointslice),
		cmocka_unit_test(test_networkpolicy),
		cmocka_unit_test(test_deployment),
		cmocka_unit_test(test_replicaset), cmocka_unit_test(test_daemonset),
		cmocka_unit_test(test_cronjob),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_service),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_small_kinds),
		cmocka_unit_test(test_default_table),
		cmocka_unit_test(test_all_kinds_shape),
		cmocka_unit_test(test_label_selector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
