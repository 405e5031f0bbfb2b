/* OCI spec generation: key fields against containerd/kubelet behaviour. No root needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "runtime/cgroup.h"
#include "runtime/cni.h"
#include "runtime/oci.h"
#include "util/error.h"
#include "util/util.h"

static struct sk_sandbox sandbox = {
	.id = "sb1", .pod_name = "web", .pod_namespace = "prod", .pod_uid = "1234-abcd", .hostname = "web",
	.qos = SK_QOS_BURSTABLE, .ip = "10.42.0.7", .netns_path = "/run/skiff/n1/netns/sb1",
	.ipc_path = "/run/skiff/n1/ipc/sb1", .uts_path = "/run/skiff/n1/uts/sb1",
	.dir = "/run/skiff/n1/sandboxes/sb1", .hosts_path = "/run/skiff/n1/sandboxes/sb1/hosts",
	.resolv_path = "/run/skiff/n1/sandboxes/sb1/resolv.conf",
	.hostname_path = "/run/skiff/n1/sandboxes/sb1/hostname", .shm_path = "/run/skiff/n1/sandboxes/sb1/shm",
};

static const char *const args[] = {"/bin/app", "--flag", NULL};
static const char *const env[] = {"A=1", NULL};
static const char *const extra_env[] = {"NVIDIA_VISIBLE_DEVICES=0", NULL};

static void base(struct sk_container_config *c)
{
	memset(c, 0, sizeof(*c));
	c->id = "ctr1";
	c->name = "app";
	c->sandbox = &sandbox;
	c->rootfs = "/var/lib/skiff/rootfs/ctr1";
	c->args = args;
	c->env = env;
}

static bool str_in(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static json_t *find_mount(json_t *spec, const char *dst)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(spec, "mounts"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "destination")), dst))
			return m;
	return NULL;
}

static const char *ns_path(json_t *spec, const char *type)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(json_object_get(spec, "linux"), "namespaces"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "type")), type))
			return json_string_value(json_object_get(n, "path")) ?: "";
	return NULL;
}

#define GET(j, ...) json_get(j, (const char *[]){__VA_ARGS__, NULL})
static json_t *json_get(json_t *j, const char **keys)
{
	for (; *keys; keys++)
		j = json_object_get(j, *keys);
	return j;
}

static void test_defaults(void **state)
{
	struct sk_container_config c;
	sk_error_t err = {0};
	cleanup_json json_t *spec = NULL;
	json_t *caps, *m;

	base(&c);
	c.extra_env = extra_env;
	c.cpu_request_milli = 250;
	c.cpu_limit_milli = 500;
	c.memory_limit = 128 << 20;
	c.pids_limit = 100;
	c.uid = 1000;
	c.gid = 2000;
	spec = sk_oci_spec(&c, &err);
	assert_non_null(spec);
	assert_string_equal(json_string_value(GET(spec, "root", "path")), c.rootfs);
	assert_true(str_in(GET(spec, "process", "args"), "--flag"));
	assert_true(str_in(GET(spec, "process", "env"), "A=1"));
	assert_true(str_in(GET(spec, "process", "env"), "NVIDIA_VISIBLE_DEVICES=0"));
	assert_true(str_in(GET(spec, "process", "env"), "HOSTNAME=web"));
	assert_string_equal(json_string_value(GET(spec, "process", "cwd")), "/");
	assert_int_equal(json_integer_value(GET(spec, "process", "user", "uid")), 1000);
	assert_int_equal(json_integer_value(GET(spec, "process", "user", "gid")), 2000);
	caps = GET(spec, "process", "capabilities", "effective");
	assert_int_equal(json_array_size(caps), 14);
	assert_true(str_in(caps, "CAP_NET_BIND_SERVICE"));
	assert_false(str_in(caps, "CAP_SYS_ADMIN"));
	assert_string_equal(json_string_value(GET(spec, "linux", "cgroupsPath")), "/kubepods/burstable/pod1234-abcd/ctr1");
	assert_int_equal(json_integer_value(GET(spec, "linux", "resources", "cpu", "shares")), 256);
	assert_int_equal(json_integer_value(GET(spec, "linux", "resources", "cpu", "quota")), 50000);
	assert_int_equal(json_integer_value(GET(spec, "linux", "resources", "cpu", "period")), 100000);
	assert_int_equal(json_integer_value(GET(spec, "linux", "resources", "memory", "limit")), 128 << 20);
	assert_int_equal(json_integer_value(GET(spec, "linux", "resources", "pids", "limit")), 100);
	assert_string_equal(ns_path(spec, "network"), sandbox.netns_path);
	assert_string_equal(ns_path(spec, "ipc"), sandbox.ipc_path);
	assert_string_equal(ns_path(spec, "uts"), sandbox.uts_path);
	assert_string_equal(ns_path(spec, "pid"), "");
	assert_string_equal(ns_path(spec, "mount"), "");
	assert_true(str_in(GET(spec, "linux", "maskedPaths"), "/proc/kcore"));
	assert_true(str_in(GET(spec, "linux", "readonlyPaths"), "/proc/sys"));
	assert_string_equal(json_string_value(GET(spec, "linux", "seccomp", "defaultAction")), "SCMP_ACT_ERRNO");
	m = find_mount(spec, "/etc/resolv.conf");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "source")), sandbox.resolv_path);
	m = find_mount(spec, "/dev/shm");
	assert_string_equal(json_string_value(json_object_get(m, "source")), sandbox.shm_path);
	m = find_mount(spec, "/sys");
	assert_true(str_in(json_object_get(m, "options"), "ro"));
	assert_non_null(find_mount(spec, "/etc/hosts"));
	assert_non_null(find_mount(spec, "/etc/hostname"));
	assert_non_null(find_mount(spec, "/dev/mqueue"));
	assert_non_null(find_mount(spec, "/sys/fs/cgroup"));
	assert_string_equal(json_string_value(GET(spec, "annotations", "io.kubernetes.pod.name")), "web");
	assert_string_equal(json_string_value(GET(spec, "annotations", "io.kubernetes.pod.namespace")), "prod");
	assert_string_equal(json_string_value(GET(spec, "annotations", "io.kubernetes.pod.uid")), "1234-abcd");
	assert_string_equal(json_string_value(GET(spec, "annotations", "io.kubernetes.container.name")), "app");
	assert_false(json_is_true(GET(spec, "process", "noNewPrivileges")));
}

static void test_security_and_volumes(void **state)
{
	static const char *const add[] = {"net_admin", "CAP_SYS_ADMIN", NULL};
	static const char *const drop[] = {"ALL", NULL};
	struct sk_mount mounts[] = {
		{.container_path = "/data", .host_path = "/var/lib/vol/data", .readonly = true,
		 .propagation = SK_PROPAGATION_HOST_TO_CONTAINER},
		{.container_path = "/cache", .tmpfs = true, .tmpfs_size = 1 << 20},
	};
	struct sk_device devs[] = {{.path = "/dev/nvidia0", .type = 'c', .major = 195, .minor = 0}};
	struct sk_container_config c;
	sk_error_t err = {0};
	cleanup_json json_t *spec = NULL;
	json_t *caps, *m, *rules, *last;
	bool has_mount = false;
	size_t i;
	json_t *s;

	base(&c);
	c.cap_add = add;
	c.cap_drop = drop;
	c.readonly_rootfs = true;
	c.no_new_privileges = true;
	c.mounts = mounts;
	c.n_mounts = 2;
	c.devices = devs;
	c.n_devices = 1;
	c.termination_log_path = "/var/lib/skiff/pods/x/termination-log";
	spec = sk_oci_spec(&c, &err);
	assert_non_null(spec);
	caps = GET(spec, "process", "capabilities", "bounding");
	assert_int_equal(json_array_size(caps), 2);
	assert_true(str_in(caps, "CAP_NET_ADMIN"));
	assert_true(json_is_true(GET(spec, "root", "readonly")));
	assert_true(json_is_true(GET(spec, "process", "noNewPrivileges")));
	m = find_mount(spec, "/data");
	assert_true(str_in(json_object_get(m, "options"), "ro"));
	assert_true(str_in(json_object_get(m, "options"), "rslave"));
	assert_string_equal(json_string_value(GET(spec, "linux", "rootfsPropagation")), "rslave");
	m = find_mount(spec, "/cache");
	assert_string_equal(json_string_value(json_object_get(m, "type")), "tmpfs");
	assert_true(str_in(json_object_get(m, "options"), "size=1048576"));
	m = find_mount(spec, "/dev/termination-log");
	assert_string_equal(json_string_value(json_object_get(m, "source")), c.termination_log_path);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(GET(spec, "linux", "devices"), 0), "major")), 195);
	rules = GET(spec, "linux", "resources", "devices");
	assert_false(json_is_true(json_object_get(json_array_get(rules, 0), "allow")));
	last = json_array_get(rules, json_array_size(rules) - 1);
	assert_int_equal(json_integer_value(json_object_get(last, "major")), 195);
	/* SYS_ADMIN unlocks mount in the seccomp profile */
	json_array_foreach(GET(spec, "linux", "seccomp", "syscalls"), i, s)
		if (str_in(json_object_get(s, "names"), "mount"))
			has_mount = true;
	assert_true(has_mount);
}

static void test_privileged(void **state)
{
	struct sk_container_config c;
	sk_error_t err = {0};
	cleanup_json json_t *spec = NULL;

	base(&c);
	c.privileged = true;
	spec = sk_oci_spec(&c, &err);
	assert_non_null(spec);
	assert_true(json_array_size(GET(spec, "process", "capabilities", "effective")) >= 40);
	assert_null(GET(spec, "linux", "seccomp"));
	assert_null(GET(spec, "linux", "maskedPaths"));
	assert_true(json_is_true(json_object_get(json_array_get(GET(spec, "linux", "resources", "devices"), 0), "allow")));
}

/* hostIPC (and hostPID): no namespace entry, so the runtime's own (the
 * host's) stays; /dev/shm is the host's. */
static void test_host_namespaces(void **state)
{
	struct sk_container_config c;
	sk_error_t err = {0};
	cleanup_json json_t *spec = NULL;
	json_t *m;

	(void)state;
	base(&c);
	c.host_ipc = true;
	c.host_pid = true;
	spec = sk_oci_spec(&c, &err);
	assert_non_null(spec);
	assert_null(ns_path(spec, "ipc"));
	assert_null(ns_path(spec, "pid"));
	assert_string_equal(ns_path(spec, "network"), sandbox.netns_path);
	assert_string_equal(ns_path(spec, "mount"), "");
	m = find_mount(spec, "/dev/shm");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "source")), "/dev/shm");
}

static void test_invalid(void **state)
{
	struct sk_container_config c;
	sk_error_t err = {0};

	base(&c);
	c.id = "../evil";
	assert_null(sk_oci_spec(&c, &err));
	assert_int_equal(err.code, SK_EINVALID);
}

static void test_numbers_and_paths(void **state)
{
	cleanup_free char *g = sk_cgroup_pod_path(SK_QOS_GUARANTEED, "u1");
	cleanup_free char *b = sk_cgroup_pod_path(SK_QOS_BESTEFFORT, "u1");

	assert_int_equal(sk_oci_cpu_shares(0), 2);
	assert_int_equal(sk_oci_cpu_shares(1), 2);
	assert_int_equal(sk_oci_cpu_shares(1000), 1024);
	assert_int_equal(sk_oci_cpu_quota(0), 0);
	assert_int_equal(sk_oci_cpu_quota(5), 1000);
	assert_int_equal(sk_oci_cpu_quota(1500), 150000);
	assert_string_equal(g, "/kubepods/podu1");
	assert_string_equal(b, "/kubepods/besteffort/podu1");
}

static void test_cni_conflist(void **state)
{
	struct sk_runtime rt = {.data_dir = "/var/lib/skiff/n1", .pod_cidr = "10.42.0.0/24", .bridge = "skiff0"};
	cleanup_json json_t *list = sk_cni_conflist(&rt);
	json_t *bridge = json_array_get(json_object_get(list, "plugins"), 1);
	cleanup_json json_t *result = json_loads("{\"ips\":[{\"address\":\"10.42.0.9/24\"}]}", 0, NULL);
	cleanup_free char *ip = sk_cni_result_ip(result);

	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(list, "plugins"), 0), "type")),
			    "loopback");
	assert_string_equal(json_string_value(json_object_get(bridge, "bridge")), "skiff0");
	assert_true(json_is_true(json_object_get(bridge, "isGateway")));
	assert_true(json_is_false(json_object_get(bridge, "ipMasq")));
	assert_true(json_is_true(json_object_get(bridge, "hairpinMode")));
	assert_string_equal(json_string_value(GET(bridge, "ipam", "dataDir")), "/var/lib/skiff/n1/cni/networks");
	assert_string_equal(ip, "10.42.0.9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_security_and_volumes),
		cmocka_unit_test(test_privileged),
		cmocka_unit_test(test_host_namespaces),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_numbers_and_paths),
		cmocka_unit_test(test_cni_conflist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
