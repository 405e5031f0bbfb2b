/* Pod sandboxes: persistent namespaces, pod files, CNI, metadata. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "runtime/cni.h"
#include "runtime/runtime-int.h"
#include "runtime/sandbox.h"
#include "util/util.h"

static const char *const ns_kinds[] = {"netns", "ipc", "uts"};

static char *ns_path(const struct sk_runtime *rt, int kind, const char *id)
{
	return xasprintf("%s/%s/%s", rt->run_dir, ns_kinds[kind], id);
}

void sk_sandbox_free(struct sk_sandbox *sb)
{
	sk_error_t e = {0};

	if (!sb)
		return;
	sk_sandbox_network_wait(sb, &e);
	free(sb->id), free(sb->pod_name), free(sb->pod_namespace), free(sb->pod_uid), free(sb->hostname);
	free(sb->host_domain);
	free(sb->ip), free(sb->netns_path), free(sb->ipc_path), free(sb->uts_path), free(sb->dir);
	free(sb->hosts_path), free(sb->resolv_path), free(sb->hostname_path), free(sb->shm_path);
	free(sb->cgroup_parent);
	json_decref(sb->cni_result);
	free(sb);
}

static void fill_paths(const struct sk_runtime *rt, struct sk_sandbox *sb)
{
	sb->dir = xasprintf("%s/sandboxes/%s", rt->run_dir, sb->id);
	sb->hosts_path = xasprintf("%s/hosts", sb->dir);
	sb->resolv_path = xasprintf("%s/resolv.conf", sb->dir);
	sb->hostname_path = xasprintf("%s/hostname", sb->dir);
	sb->shm_path = xasprintf("%s/shm", sb->dir);
	sb->ipc_path = ns_path(rt, 1, sb->id);
	if (!sb->host_network) {
		sb->netns_path = ns_path(rt, 0, sb->id);
		sb->uts_path = ns_path(rt, 2, sb->id);
	}
	sb->cgroup_parent = sk_cgroup_pod_path(sb->qos, sb->pod_uid);
}

struct ns_job {
	const struct sk_sandbox *sb;
	const char *const *targets;
	int flags, failed_errno;
	const char *failed;
};

/* Namespaces belong to threads: this short-lived thread unshares, names the
 * new UTS namespace and bind-mounts its own namespace files onto the
 * targets (the mount namespace is shared with the process), which keeps
 * the namespaces alive after it ends. No fork of the agent. */
static void *ns_thread(void *arg)
{
	static const char *const self[] = {"/proc/thread-self/ns/net", "/proc/thread-self/ns/ipc",
					   "/proc/thread-self/ns/uts"};
	struct ns_job *j = arg;

	if (unshare(j->flags) < 0) {
		j->failed = "unshare";
	} else if (!j->sb->host_network && sethostname(j->sb->hostname, strlen(j->sb->hostname)) < 0) {
		j->failed = "sethostname";
	} else {
		for (int i = 0; i < 3 && !j->failed; i++)
			if (j->targets[i] && mount(self[i], j->targets[i], NULL, MS_BIND, NULL) < 0)
				j->failed = j->targets[i];
	}
	if (j->failed)
		j->failed_errno = errno;
	return NULL;
}

static int create_namespaces(const struct sk_sandbox *sb, sk_error_t *err)
{
	const char *targets[3] = {sb->netns_path, sb->ipc_path, sb->uts_path};
	struct ns_job j = {sb, targets, CLONE_NEWIPC | (sb->host_network ? 0 : CLONE_NEWNET | CLONE_NEWUTS), 0, NULL};
	pthread_t t;
	int i, rc;

	for (i = 0; i < 3; i++) {
		int fd;
		if (!targets[i])
			continue;
		fd = open(targets[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
		if (fd < 0)
			return sk_error_errno(err, errno, "sandbox \"%s\": create \"%s\"", sb->id, targets[i]);
		close(fd);
	}
	rc = pthread_create(&t, NULL, ns_thread, &j);
	if (rc != 0)
		return sk_error_errno(err, rc, "sandbox \"%s\": namespace thread", sb->id);
	pthread_join(t, NULL);
	if (j.failed)
		return sk_error_errno(err, j.failed_errno, "sandbox \"%s\": namespace setup: %s", sb->id, j.failed);
	return 0;
}

static int write_text(const char *path, const char *text, sk_error_t *err)
{
	if (sk_write_file(path, text, strlen(text), 0644) < 0)
		return sk_error_errno(err, errno, "write \"%s\"", path);
	return 0;
}

static void append(char **s, const char *fmt, const char *a, const char *b)
{
	char *n = xasprintf(fmt, *s, a, b ? b : "");

	free(*s);
	*s = n;
}

/* In place, not by rename: containers created before the pod IP was known
 * bind-mount this inode. */
static int rewrite_text(const char *path, const char *text, sk_error_t *err)
{
	cleanup_close int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return sk_error_errno(err, errno, "write \"%s\"", path);
	return 0;
}

/* kubelet's managed hosts file (kubelet_pods.go managedHostsFileContent):
 * the pod's IP with its hostname (FQDN first when the pod has a subdomain),
 * then the pod's hostAliases; a hostNetwork pod gets the host's file and the
 * aliases. */
static int write_hosts(const struct sk_sandbox *sb, const char *const *host_aliases, bool in_place, sk_error_t *err)
{
	cleanup_free char *s = NULL;
	size_t i;

	if (sb->host_network) {
		cleanup_free char *host = sk_read_file("/etc/hosts", NULL);
		s = xstrdup(host ? host : "127.0.0.1\tlocalhost\n");
	} else {
		s = xstrdup("# Kubernetes-managed hosts file.\n"
			    "127.0.0.1\tlocalhost\n"
			    "::1\tlocalhost ip6-localhost ip6-loopback\n"
			    "fe00::0\tip6-localnet\n"
			    "fe00::0\tip6-mcastprefix\n"
			    "fe00::1\tip6-allnodes\n"
			    "fe00::2\tip6-allrouters\n");
		if (sb->ip && sb->host_domain && *sb->host_domain) {
			cleanup_free char *fqdn = xasprintf("%s.%s", sb->hostname, sb->host_domain);
			append(&s, "%s%s\t%s", sb->ip, fqdn);
			append(&s, "%s\t%s\n%s", sb->hostname, NULL);
		} else if (sb->ip) {
			append(&s, "%s%s\t%s\n", sb->ip, sb->hostname);
		}
	}
	if (host_aliases && host_aliases[0])
		append(&s, "%s\n# Entries added by HostAliases.\n%s%s", "", NULL);
	for (i = 0; host_aliases && host_aliases[i]; i++)
		append(&s, "%s%s\n%s", host_aliases[i], NULL);
	return in_place ? rewrite_text(sb->hosts_path, s, err) : write_text(sb->hosts_path, s, err);
}

static bool loopback_nameserver(const char *line)
{
	const char *p = line + strlen("nameserver");

	while (*p == ' ' || *p == '\t')
		p++;
	return !strncmp(p, "127.", 4) || !strncmp(p, "::1", 3);
}

/* The host's resolv.conf without loopback resolvers, which are unreachable from a pod. */
static char *host_resolv(void)
{
	cleanup_free char *host = sk_read_file("/etc/resolv.conf", NULL);
	char *out = xstrdup("");
	char *line, *save = NULL;

	for (line = host ? strtok_r(host, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "nameserver", 10) && loopback_nameserver(line))
			continue;
		append(&out, "%s%s\n%s", line, NULL);
	}
	return out;
}

static void append_list(char **s, const char *key, const char *const *items)
{
	size_t i;

	if (!items || !items[0])
		return;
	append(s, "%s%s%s", key, NULL);
	for (i = 0; items[i]; i++)
		append(s, "%s %s%s", items[i], NULL);
	append(s, "%s\n%s%s", "", NULL);
}

/* As containerd writes a CRI DNSConfig: search, nameserver lines, options. */
static int write_resolv(const struct sk_sandbox *sb, const struct sk_sandbox_config *cfg, sk_error_t *err)
{
	cleanup_free char *s = NULL;
	size_t i;

	if (!cfg->dns_given && !cfg->dns_servers && !cfg->dns_searches && !cfg->dns_options) {
		s = host_resolv();
		return write_text(sb->resolv_path, s, err);
	}
	s = xstrdup("");
	append_list(&s, "search", cfg->dns_searches);
	for (i = 0; cfg->dns_servers && cfg->dns_servers[i]; i++)
		append(&s, "%snameserver %s\n%s", cfg->dns_servers[i], NULL);
	append_list(&s, "options", cfg->dns_options);
	return write_text(sb->resolv_path, s, err);
}

static int mount_shm(const struct sk_sandbox *sb, sk_error_t *err)
{
	if (mkdir(sb->shm_path, 0755) < 0 && errno != EEXIST)
		return sk_error_errno(err, errno, "sandbox \"%s\": mkdir shm", sb->id);
	if (mount("shm", sb->shm_path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=65536k") < 0)
		return sk_error_errno(err, errno, "sandbox \"%s\": mount shm", sb->id);
	return 0;
}

static json_t *sandbox_json(const struct sk_sandbox *sb)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:I}", "id", sb->id, "podName", sb->pod_name,
			      "podNamespace", sb->pod_namespace, "podUID", sb->pod_uid, "hostname", sb->hostname, "qos",
			      (int)sb->qos, "hostNetwork", sb->host_network, "createdNs", (json_int_t)sb->created_ns);

	if (sb->ip)
		json_object_set_new(j, "ip", json_string(sb->ip));
	if (sb->host_domain)
		json_object_set_new(j, "hostDomain", json_string(sb->host_domain));
	if (sb->cni_result)
		json_object_set(j, "cniResult", sb->cni_result);
	return j;
}

static int save(const struct sk_sandbox *sb, sk_error_t *err)
{
	cleanup_json json_t *j = sandbox_json(sb);
	cleanup_free char *path = xasprintf("%s/sandbox.json", sb->dir);

	return sk__json_save(path, j, err);
}

struct sk__sandbox_net {
	pthread_t thread;
	const struct sk_runtime *rt;
	struct sk_sandbox *sb;
	char **aliases;
	int rc;
	sk_error_t err;
};

static void net_free(struct sk__sandbox_net *n)
{
	for (size_t i = 0; n->aliases && n->aliases[i]; i++)
		free(n->aliases[i]);
	free(n->aliases);
	free(n);
}

/* CNI ADD, then the pod IP into hosts and sandbox.json. */
static int attach_network(const struct sk_runtime *rt, struct sk_sandbox *sb, const char *const *aliases,
			  sk_error_t *err)
{
	int64_t t0 = sk_mono_ns();

	if (sk_cni_add(rt, sb->id, sb->netns_path, &sb->cni_result, err) < 0)
		return -1;
	sk_trace("sandbox %s: cni add %.1f ms", sb->id, (double)(sk_mono_ns() - t0) / 1e6);
	sb->ip = sk_cni_result_ip(sb->cni_result);
	if (!sb->ip)
		return sk_error_set(err, SK_EINTERNAL, "sandbox \"%s\": cni result has no IP", sb->id);
	if (write_hosts(sb, aliases, true, err) < 0)
		return -1;
	return save(sb, err);
}

static void *net_thread(void *arg)
{
	struct sk__sandbox_net *n = arg;

	n->rc = attach_network(n->rt, n->sb, (const char *const *)n->aliases, &n->err);
	return NULL;
}

static int start_network(const struct sk_runtime *rt, struct sk_sandbox *sb, const char *const *aliases,
			 sk_error_t *err)
{
	struct sk__sandbox_net *n = xzalloc(sizeof(*n));
	size_t cnt = 0;
	int rc;

	while (aliases && aliases[cnt])
		cnt++;
	n->aliases = xzalloc((cnt + 1) * sizeof(char *));
	for (size_t i = 0; i < cnt; i++)
		n->aliases[i] = xstrdup(aliases[i]);
	n->rt = rt;
	n->sb = sb;
	rc = pthread_create(&n->thread, NULL, net_thread, n);
	if (rc != 0) {
		net_free(n);
		return sk_error_errno(err, rc, "sandbox \"%s\": network thread", sb->id);
	}
	sb->net = n;
	return 0;
}

int sk_sandbox_network_wait(struct sk_sandbox *sb, sk_error_t *err)
{
	struct sk__sandbox_net *n = sb->net;
	int rc;

	if (!n)
		return 0;
	pthread_join(n->thread, NULL);
	sb->net = NULL;
	rc = n->rc;
	if (rc < 0)
		*err = n->err;
	net_free(n);
	return rc < 0 ? sk_error_wrap(err, "create sandbox") : 0;
}

static int setup(struct sk_runtime *rt, struct sk_sandbox *sb, const struct sk_sandbox_config *cfg, sk_error_t *err)
{
	int64_t t0 = sk_mono_ns();

	if (sk_mkdir_p(sb->dir, 0755) < 0)
		return sk_error_errno(err, errno, "sandbox \"%s\": mkdir", sb->id);
	/* Record first so that a crash half-way leaves something sk_sandbox_remove can find. */
	if (save(sb, err) < 0 || create_namespaces(sb, err) < 0 || mount_shm(sb, err) < 0)
		return -1;
	sk_trace("sandbox %s: namespaces and shm %.1f ms", sb->id, (double)(sk_mono_ns() - t0) / 1e6);
	/* hosts gets the pod IP once the network is attached */
	if (write_hosts(sb, cfg->host_aliases, false, err) < 0 || write_resolv(sb, cfg, err) < 0)
		return -1;
	{
		cleanup_free char *hn = xasprintf("%s\n", sb->hostname);
		if (write_text(sb->hostname_path, hn, err) < 0)
			return -1;
	}
	if (sb->host_network)
		return save(sb, err);
	if (cfg->network_async)
		return start_network(rt, sb, cfg->host_aliases, err);
	return attach_network(rt, sb, cfg->host_aliases, err);
}

int sk_sandbox_create(struct sk_runtime *rt, const struct sk_sandbox_config *cfg, struct sk_sandbox **out,
		      sk_error_t *err)
{
	struct sk_sandbox *sb;
	cleanup_free char *json_path = NULL;

	if (!sk__valid_id(cfg->id) || !cfg->pod_name || !cfg->pod_namespace || !sk__valid_id(cfg->pod_uid))
		return sk_error_set(err, SK_EINVALID, "sandbox \"%s\": invalid id, pod name, namespace or uid",
				    cfg->id ? cfg->id : "");
	json_path = xasprintf("%s/sandboxes/%s/sandbox.json", rt->run_dir, cfg->id);
	if (sk__exists(json_path))
		return sk_error_set(err, SK_EEXISTS, "sandbox \"%s\": already exists", cfg->id);
	sb = xzalloc(sizeof(*sb));
	sb->id = xstrdup(cfg->id);
	sb->pod_name = xstrdup(cfg->pod_name);
	sb->pod_namespace = xstrdup(cfg->pod_namespace);
	sb->pod_uid = xstrdup(cfg->pod_uid);
	sb->hostname = xstrndup(cfg->hostname ? cfg->hostname : cfg->pod_name, 63);
	sb->host_domain = cfg->host_domain ? xstrdup(cfg->host_domain) : NULL;
	sb->qos = cfg->qos;
	sb->host_network = cfg->host_network;
	sb->created_ns = sk_now_ns();
	fill_paths(rt, sb);
	if (setup(rt, sb, cfg, err) < 0) {
		sk_error_t e2 = {0};
		sk_sandbox_remove(rt, sb->id, &e2);
		sk_sandbox_free(sb);
		return sk_error_wrap(err, "create sandbox");
	}
	*out = sb;
	return 0;
}

static struct sk_sandbox *from_json(const struct sk_runtime *rt, json_t *j)
{
	struct sk_sandbox *sb = xzalloc(sizeof(*sb));

	sb->id = sk__json_strdup(j, "id");
	sb->pod_name = sk__json_strdup(j, "podName");
	sb->pod_namespace = sk__json_strdup(j, "podNamespace");
	sb->pod_uid = sk__json_strdup(j, "podUID");
	sb->hostname = sk__json_strdup(j, "hostname");
	sb->host_domain = sk__json_strdup(j, "hostDomain");
	sb->ip = sk__json_strdup(j, "ip");
	sb->qos = (enum sk_qos)json_integer_value(json_object_get(j, "qos"));
	sb->host_network = json_is_true(json_object_get(j, "hostNetwork"));
	sb->created_ns = json_integer_value(json_object_get(j, "createdNs"));
	sb->cni_result = json_incref(json_object_get(j, "cniResult"));
	if (!sb->id || !sb->pod_name || !sb->pod_namespace || !sb->pod_uid || !sb->hostname) {
		sk_sandbox_free(sb);
		return NULL;
	}
	fill_paths(rt, sb);
	return sb;
}

int sk_sandbox_load(struct sk_runtime *rt, const char *id, struct sk_sandbox **out, sk_error_t *err)
{
	cleanup_free char *path = NULL;
	cleanup_json json_t *j = NULL;
	json_error_t jerr;

	if (!sk__valid_id(id))
		return sk_error_set(err, SK_EINVALID, "sandbox \"%s\": invalid id", id ? id : "");
	path = xasprintf("%s/sandboxes/%s/sandbox.json", rt->run_dir, id);
	if (!sk__exists(path))
		return sk_error_set(err, SK_ENOTFOUND, "sandbox \"%s\": not found", id);
	j = json_load_file(path, 0, &jerr);
	*out = j ? from_json(rt, j) : NULL;
	if (!*out)
		return sk_error_set(err, SK_EINTERNAL, "sandbox \"%s\": bad sandbox.json", id);
	return 0;
}

int sk_sandbox_list(struct sk_runtime *rt, struct sk_sandbox ***out, size_t *n, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf("%s/sandboxes", rt->run_dir);
	DIR *d = opendir(dir);
	struct dirent *de;

	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : sk_error_errno(err, errno, "list sandboxes \"%s\"", dir);
	while ((de = readdir(d))) {
		struct sk_sandbox *sb = NULL;
		sk_error_t e = {0};

		if (de->d_name[0] == '.')
			continue;
		if (sk_sandbox_load(rt, de->d_name, &sb, &e) < 0) {
			sk_warn("runtime", "%s", e.msg);
			continue;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = sb;
	}
	closedir(d);
	return 0;
}

int sk_sandbox_check(struct sk_runtime *rt, const struct sk_sandbox *sb, sk_error_t *err)
{
	if (sb->host_network)
		return 0;
	if (!sk__exists(sb->netns_path))
		return sk_error_set(err, SK_ENOTFOUND, "sandbox \"%s\": network namespace is gone", sb->id);
	return sk_cni_check(rt, sb->id, sb->netns_path, sb->cni_result, err);
}

static int unmount_and_unlink(const char *path, sk_error_t *err)
{
	if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		return sk_error_errno(err, errno, "unmount \"%s\"", path);
	if (unlink(path) < 0 && errno != ENOENT && errno != EISDIR)
		return sk_error_errno(err, errno, "remove \"%s\"", path);
	return 0;
}

int sk_sandbox_remove(struct sk_runtime *rt, const char *id, sk_error_t *err)
{
	struct sk_sandbox *sb = NULL;
	sk_error_t e = {0};
	int rc = 0, i;

	if (!sk__valid_id(id))
		return sk_error_set(err, SK_EINVALID, "sandbox \"%s\": invalid id", id ? id : "");
	sk_sandbox_load(rt, id, &sb, &e);
	if (!sb || !sb->host_network) {
		cleanup_free char *netns = ns_path(rt, 0, id);
		if (sk_cni_del(rt, id, netns, &e) < 0) {
			sk_warn("runtime", "sandbox \"%s\": %s", id, e.msg);
			if (sb)
				rc = sk_error_set(err, e.code, "remove sandbox \"%s\": %s", id, e.msg);
		}
	}
	for (i = 0; i < 3; i++) {
		cleanup_free char *p = ns_path(rt, i, id);
		if (unmount_and_unlink(p, &e) < 0 && rc == 0)
			rc = sk_error_set(err, e.code, "remove sandbox \"%s\": %s", id, e.msg);
	}
	{
		cleanup_free char *dir = xasprintf("%s/sandboxes/%s", rt->run_dir, id);
		cleanup_free char *shm = xasprintf("%s/shm", dir);
		if (umount2(shm, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT && rc == 0)
			rc = sk_error_errno(err, errno, "remove sandbox \"%s\": unmount shm", id);
		if (rc == 0 && sb && sk_cgroup_remove(sb->cgroup_parent, &e) < 0)
			rc = sk_error_set(err, e.code, "remove sandbox \"%s\": %s", id, e.msg);
		if (rc == 0 && sk__rm_rf(dir) < 0)
			rc = sk_error_errno(err, errno, "remove sandbox \"%s\": remove \"%s\"", id, dir);
	}
	sk_sandbox_free(sb);
	return rc;
}
