/* CNI plugin execution (spec 1.0.0): environment, stdin config, result. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "runtime/cni.h"
#include "runtime/runtime-int.h"
#include "util/util.h"

#define CNI_VERSION "1.0.0"
#define CNI_NETWORK "skiff"
#define CNI_TIMEOUT_MS 30000

json_t *sk_cni_conflist(const struct sk_runtime *rt)
{
	cleanup_free char *ipam_dir = xasprintf("%s/cni/networks", rt->data_dir);
	json_t *ipam = json_pack("{s:s, s:s, s:[[{s:s}]], s:[{s:s}]}", "type", "host-local", "dataDir", ipam_dir,
				 "ranges", "subnet", rt->pod_cidr ? rt->pod_cidr : "", "routes", "dst", "0.0.0.0/0");
	json_t *bridge = json_pack("{s:s, s:s, s:b, s:b, s:b, s:o}", "type", "bridge", "bridge", rt->bridge,
				   "isGateway", 1, "ipMasq", 0, "hairpinMode", 1, "ipam", ipam);

	return json_pack("{s:s, s:s, s:[{s:s}, o]}", "cniVersion", CNI_VERSION, "name", CNI_NETWORK, "plugins", "type",
			 "loopback", bridge);
}

char *sk_cni_result_ip(json_t *result)
{
	const char *addr = json_string_value(
		json_object_get(json_array_get(json_object_get(result, "ips"), 0), "address"));
	const char *slash;

	if (!addr)
		return NULL;
	slash = strchr(addr, '/');
	return slash ? xstrndup(addr, (size_t)(slash - addr)) : xstrdup(addr);
}

/* Plugin config: the plugin's entry plus name, cniVersion and prevResult. */
static char *plugin_config(json_t *plugin, json_t *prev)
{
	cleanup_json json_t *conf = json_deep_copy(plugin);

	json_object_set_new(conf, "cniVersion", json_string(CNI_VERSION));
	json_object_set_new(conf, "name", json_string(CNI_NETWORK));
	if (prev)
		json_object_set(conf, "prevResult", prev);
	return json_dumps(conf, JSON_COMPACT);
}

static const char *plugin_error(const struct sk__proc_result *res)
{
	cleanup_json json_t *j = json_loads(res->out, 0, NULL);
	static __thread char buf[300];
	const char *msg = json_string_value(json_object_get(j, "msg"));

	snprintf(buf, sizeof(buf), "%s", msg ? msg : (res->err[0] ? res->err : res->out));
	return buf;
}

/* Runs one plugin; on success *result (may be NULL) gets its parsed stdout. */
static int run_plugin(const struct sk_runtime *rt, const char *cmd, const char *id, const char *netns, json_t *plugin,
		      json_t *prev, json_t **result, sk_error_t *err)
{
	const char *type = json_string_value(json_object_get(plugin, "type"));
	cleanup_free char *bin = xasprintf("%s/%s", rt->cni_bin_dir, type);
	cleanup_free char *e_cmd = xasprintf("CNI_COMMAND=%s", cmd);
	cleanup_free char *e_id = xasprintf("CNI_CONTAINERID=%s", id);
	cleanup_free char *e_ns = xasprintf("CNI_NETNS=%s", netns ? netns : "");
	cleanup_free char *e_path = xasprintf("CNI_PATH=%s", rt->cni_bin_dir);
	char *envp[] = {e_cmd, e_id, e_ns, "CNI_IFNAME=eth0", e_path, "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	char *argv[] = {bin, NULL};
	cleanup_free char *conf = plugin_config(plugin, prev);
	struct sk__proc_result res;
	int rc = 0;

	if (sk__proc_run(argv, envp, conf, CNI_TIMEOUT_MS, &res, err) < 0)
		return sk_error_wrap(err, "cni %s \"%s\"", cmd, id);
	if (res.timed_out || !WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
		rc = sk_error_set(err, SK_EINTERNAL, "cni %s \"%s\": plugin %s: %s", cmd, id, type,
				  res.timed_out ? "timed out" : plugin_error(&res));
	} else if (result) {
		*result = json_loads(res.out, 0, NULL);
		if (!*result)
			rc = sk_error_set(err, SK_EINTERNAL, "cni %s \"%s\": plugin %s: bad result", cmd, id, type);
	}
	sk__proc_result_release(&res);
	return rc;
}

int sk_cni_add(const struct sk_runtime *rt, const char *id, const char *netns_path, json_t **result, sk_error_t *err)
{
	cleanup_json json_t *list = sk_cni_conflist(rt);
	json_t *plugins = json_object_get(list, "plugins");
	cleanup_json json_t *prev = NULL;
	size_t i;

	if (!rt->pod_cidr)
		return sk_error_set(err, SK_EINVALID, "cni add \"%s\": the node has no pod CIDR", id);
	for (i = 0; i < json_array_size(plugins); i++) {
		json_t *res = NULL;

		if (run_plugin(rt, "ADD", id, netns_path, json_array_get(plugins, i), prev, &res, err) < 0)
			return -1;
		json_decref(prev);
		prev = res;
	}
	*result = steal_ptr(&prev);
	return 0;
}

int sk_cni_del(const struct sk_runtime *rt, const char *id, const char *netns_path, sk_error_t *err)
{
	cleanup_json json_t *list = sk_cni_conflist(rt);
	json_t *plugins = json_object_get(list, "plugins");
	size_t i = json_array_size(plugins);
	int rc = 0;

	if (netns_path && !sk__exists(netns_path))
		netns_path = NULL;
	while (i-- > 0) {
		sk_error_t e = {0};
		if (run_plugin(rt, "DEL", id, netns_path, json_array_get(plugins, i), NULL, NULL, &e) < 0 && rc == 0) {
			*err = e;
			rc = -1;
		}
	}
	return rc;
}

int sk_cni_check(const struct sk_runtime *rt, const char *id, const char *netns_path, json_t *add_result,
		 sk_error_t *err)
{
	cleanup_json json_t *list = sk_cni_conflist(rt);
	json_t *plugins = json_object_get(list, "plugins");
	size_t i;

	for (i = 0; i < json_array_size(plugins); i++)
		if (run_plugin(rt, "CHECK", id, netns_path, json_array_get(plugins, i), add_result, NULL, err) < 0)
			return -1;
	return 0;
}
