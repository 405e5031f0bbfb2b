#include <errno.h>
#include <sys/stat.h>
#include <string.h>

#include "agent/agent.h"
#include "api/api.h"
#include "api/http.h"
#include "api/logs.h"
#include "api/audit.h"
#include "api/tls.h"
#include "client/leaderelection.h"
#include "ctrl/ctrl.h"
#include "kube/cidr.h"
#include "sched/sched.h"
#include "server/server.h"
#include "util/netif.h"
#include "util/util.h"

struct sk_server {
	sk_store *store;
	sk_api *api;
	sk_http *http;
	sk_tls_files tls;
	sk_client *ctrl_client;
	sk_ctrl *ctrl;
	sk_client *sched_client;
	sk_sched *sched;
	sk_client *agent_client;
	sk_agent *agent;
	sk_audit *audit;
	/* with --leader-elect: the scheduler and the controllers run only
	 * while their elector holds its Lease */
	sk_ctrl_options co;
	sk_le *sched_le, *ctrl_le;
	sk_client *le_client; /* the electors' own (the components' clients are fenced) */
};

static int sched_started(void *arg)
{
	sk_server *s = arg;
	sk_error_t err = {0};

	s->sched = sk_sched_start(s->sched_client, NULL, &err);
	if (!s->sched)
		sk_warn("server", "starting the scheduler: %s", err.msg);
	return s->sched ? 0 : -1;
}

static void sched_stopped(void *arg)
{
	sk_server *s = arg;

	sk_sched_stop(s->sched);
	s->sched = NULL;
}

static int ctrl_started(void *arg)
{
	sk_server *s = arg;
	sk_error_t err = {0};

	s->ctrl = sk_ctrl_start(s->ctrl_client, &s->co, &err);
	if (!s->ctrl)
		sk_warn("server", "starting the controllers: %s", err.msg);
	return s->ctrl ? 0 : -1;
}

static void ctrl_stopped(void *arg)
{
	sk_server *s = arg;

	sk_ctrl_stop(s->ctrl);
	s->ctrl = NULL;
}

/* kube-scheduler's and kube-controller-manager's --leader-elect: each takes
 * its upstream-named Lease in kube-system, the elector calling back on its
 * own thread; its Events come from the component's recorder (the
 * scheduler's is named after its profile, default-scheduler). */
static sk_le *elect(sk_server *s, const sk_server_options *o, const char *name, const char *component,
		    int (*started)(void *), void (*stopped)(void *), sk_client *fence, sk_error_t *err)
{
	sk_le_config cfg = {.ns = "kube-system",
			    .name = name,
			    .component = component,
			    .lease_duration_ms = o->leader_elect_lease_duration_ms,
			    .renew_deadline_ms = o->leader_elect_renew_deadline_ms,
			    .retry_period_ms = o->leader_elect_retry_period_ms,
			    .jitter = 1.2,
			    .started = started,
			    .stopped = stopped,
			    .arg = s,
			    .fence = fence};
	sk_le *le = sk_le_run(s->le_client, &cfg, err);

	if (!le)
		sk_error_wrap(err, "--leader-elect (%s)", name);
	return le;
}

static int split_listen(const char *listen, char *host, size_t hlen, int *port, sk_error_t *err)
{
	const char *colon = strrchr(listen, ':');
	size_t n;
	char *end;

	if (!colon)
		return sk_error_set(err, SK_EBADREQUEST, "--listen \"%s\": want HOST:PORT", listen);
	n = (size_t)(colon - listen);
	if (n && listen[0] == '[' && listen[n - 1] == ']') {
		listen++;
		n -= 2;
	}
	if (n >= hlen)
		return sk_error_set(err, SK_EBADREQUEST, "--listen \"%s\": host too long", listen);
	memcpy(host, listen, n);
	host[n] = '\0';
	*port = (int)strtol(colon + 1, &end, 10);
	if (*end || *port <= 0 || *port > 65535)
		return sk_error_set(err, SK_EBADREQUEST, "--listen \"%s\": bad port", listen);
	if (!n)
		snprintf(host, hlen, "0.0.0.0");
	return 0;
}

/* The address default/kubernetes names: --advertise-address, else the
 * --listen host, else (a wildcard or a name) the default route's address. */
static void advertise_address(const sk_server_options *o, const char *host, char *buf, size_t len)
{
	sk_error_t e = {0};
	uint32_t ip;

	if (o->advertise_address) {
		snprintf(buf, len, "%s", o->advertise_address);
		return;
	}
	if (!strcmp(host, "localhost")) {
		snprintf(buf, len, "127.0.0.1");
		return;
	}
	if (sk_kube_ip4_parse(host, &ip, NULL) == 0 && ip != 0) {
		snprintf(buf, len, "%s", host);
		return;
	}
	if (sk_netif_default_ip4(buf, len, &e) < 0) {
		sk_warn("server", "advertising 127.0.0.1: %s", e.msg);
		snprintf(buf, len, "127.0.0.1");
	}
}

/* The serving certificate's names beyond the loopback ones: the
 * kubernetes Service's address and names, the advertise address and those
 * of --tls-san (comma-separated). */
static char **serving_names(const sk_server_options *o, const char *adv)
{
	const char *domain = o->cluster_domain ? o->cluster_domain : SK_API_DEFAULT_CLUSTER_DOMAIN;
	size_t extra = 0;
	char **v;
	char ip[SK_KUBE_IP4_LEN];
	sk_kube_cidr c;
	uint32_t first;
	int n = 0;

	for (const char *p = o->tls_san; p && *p; p++)
		extra += *p == ',';
	v = xzalloc((8 + extra + 1) * sizeof(*v));
	if (sk_kube_cidr_parse(o->service_cidr ? o->service_cidr : SK_API_DEFAULT_SERVICE_CIDR, &c, NULL) == 0 &&
	    sk_kube_cidr_nth(&c, 1, &first) == 0)
		v[n++] = xstrdup(sk_kube_ip4_format(first, ip));
	v[n++] = xstrdup(adv);
	v[n++] = xstrdup("kubernetes");
	v[n++] = xstrdup("kubernetes.default");
	v[n++] = xstrdup("kubernetes.default.svc");
	v[n++] = xasprintf("kubernetes.default.svc.%s", domain);
	for (const char *p = o->tls_san; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len)
			v[n++] = xstrndup(p, len);
		p += len + (p[len] == ',');
	}
	return v;
}

static void names_free(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The embedded agent is its node, system:node:NAME in system:nodes, as a
 * separate agent is with its certificate. A node may not label itself a
 * control-plane node (NodeRestriction): the control plane does, on the
 * Node it makes for it unless it exists. */
static sk_client *embedded_node_client(sk_server *s, const char *node)
{
	static const char *const groups[] = {"system:nodes", SK_GROUP_AUTHENTICATED, NULL};
	cleanup_free char *name = xasprintf("system:node:%s", node), *path = xasprintf("/api/v1/nodes/%s", node);
	cleanup_json json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}}", "apiVersion", "v1", "kind", "Node",
					     "metadata", "name", node, "labels",
					     "node-role.kubernetes.io/control-plane", "");
	cleanup_json json_t *r = NULL;
	sk_user *u = sk_user_new(name, "", groups);
	sk_client *c = sk_client_new_inproc_as(s->api, u);
	sk_error_t err = {0};

	sk_user_free(u);
	r = sk_client_create(s->ctrl_client, "/api/v1/nodes", obj, &err);
	if (!r && err.code == SK_EEXISTS) {
		cleanup_json json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels",
						       "node-role.kubernetes.io/control-plane", "");

		sk_error_clear(&err);
		r = sk_client_patch(s->ctrl_client, path, SK_PATCH_MERGE, patch, &err);
	}
	if (!r)
		sk_warn("server", "node %s: control-plane label: %s", node, err.msg);
	return c;
}

/* The API server's client certificate towards node agents, issued by the
 * cluster CA at each start (kubeadm's apiserver-kubelet-client: CN
 * kube-apiserver-kubelet-client in system:masters, a year), with the CA
 * that verifies the agents' serving certificates. */
static int kubelet_client(const char *dir, sk_error_t *err)
{
	static const char *const orgs[] = {"system:masters", NULL};
	cleanup_free char *cert = NULL, *key = NULL, *both = NULL, *tls = xasprintf("%s/tls", dir);
	cleanup_free char *path = xasprintf("%s/apiserver-kubelet-client.pem", tls);
	cleanup_free char *ca = xasprintf("%s/ca.crt", tls);

	if (sk_tls_issue_client(dir, "kube-apiserver-kubelet-client", orgs, 365 * 86400, &cert, &key, err) < 0)
		return sk_error_wrap(err, "the kubelet client certificate");
	both = xasprintf("%s%s", cert, key);
	if (sk_write_file(path, both, strlen(both), 0600) < 0)
		return sk_error_errno(err, errno, "writing \"%s\"", path);
	sk_api_set_kubelet_client(path, ca);
	return 0;
}

/* --join-from: the PKI every API server of a cluster shares (kubeadm's
 * "certificates shared by control-plane nodes": the CA and the
 * service-account key, and here the admin and node tokens), copied into a
 * data directory that has none of its own yet. Each server issues its own
 * serving certificate from the shared CA. */
static int join_from(const char *from, const char *dir, sk_error_t *err)
{
	static const char *const files[] = {"tls/ca.crt", "tls/ca.key", "tls/service-account.key", "token",
					    "node-token"};
	cleanup_free char *tls = xasprintf("%s/tls", dir);

	if (sk_mkdir_p(tls, 0700) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", tls);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cleanup_free char *src = xasprintf("%s/%s", from, files[i]), *dst = xasprintf("%s/%s", dir, files[i]);
		cleanup_free char *data = NULL;
		struct stat st;
		size_t len;

		if (stat(dst, &st) == 0)
			continue;
		data = sk_read_file(src, &len);
		if (!data)
			return sk_error_errno(err, errno, "--join-from: reading \"%s\"", src);
		if (sk_write_file(dst, data, len, 0600) < 0)
			return sk_error_errno(err, errno, "--join-from: writing \"%s\"", dst);
	}
	return 0;
}

/* Leader election is on by default where the store can be shared (etcd). */
static int leader_elect(const sk_server_options *o)
{
	if (o->leader_elect >= 0)
		return o->leader_elect;
	return o->datastore_endpoint && !strncmp(o->datastore_endpoint, "etcd://", 7);
}

sk_server *sk_server_start(const sk_server_options *o, sk_error_t *err)
{
	sk_server *s = xzalloc(sizeof(*s));
	cleanup_free char *uri = o->datastore_endpoint ? xstrdup(o->datastore_endpoint)
						       : xasprintf("sqlite://%s", o->data_dir);
	sk_api_options ao = {0};
	sk_http_options ho = {0};
	int64_t t0 = sk_mono_ns();
	char host[256], adv[64];
	char **names;
	int port = 0, rc;

	if (split_listen(o->listen, host, sizeof(host), &port, err) < 0)
		goto fail;
	ao.service_cidr = o->service_cidr;
	ao.cluster_cidr = o->cluster_cidr;
	ao.node_port_range = o->node_port_range;
	ao.cluster_dns = o->cluster_dns;
	ao.cluster_domain = o->cluster_domain;
	ao.admission_config_file = o->admission_config_file;
	advertise_address(o, host, adv, sizeof(adv));
	ao.advertise_address = adv;
	ao.advertise_port = port;
	if (sk_api_check_network(&ao, err) < 0)
		goto fail;
	/* keys, tokens and the store's Secrets: the directory is the owner's
	 * alone, also one an older version made or someone loosened */
	if (sk_mkdir_p(o->data_dir, 0700) < 0 || chmod(o->data_dir, 0700) < 0) {
		sk_error_errno(err, errno, "creating data directory \"%s\"", o->data_dir);
		goto fail;
	}
	if (o->join_from && join_from(o->join_from, o->data_dir, err) < 0)
		goto fail;
	{
		sk_store_options so = {0};

		if (o->watch_history_secs > 0) {
			so.min_history_secs = o->watch_history_secs;
			so.max_history_events = -1;
		}
		so.tls_ca = o->datastore_ca;
		so.tls_cert = o->datastore_cert;
		so.tls_key = o->datastore_key;
		s->store = sk_store_open(uri, &so, err);
	}
	if (!s->store)
		goto fail;
	ao.server_address = o->listen;
	s->api = sk_api_new(s->store, &ao, err);
	if (!s->api)
		goto fail;
	if (o->audit_log_path) {
		sk_audit_options aud = {.log_path = o->audit_log_path,
					.policy_path = o->audit_policy_path,
					.max_size_mb = o->audit_max_size_mb,
					.max_backups = o->audit_max_backups};

		s->audit = sk_audit_open(&aud, err);
		if (!s->audit)
			goto fail;
		sk_api_set_audit(s->api, s->audit);
	}
	names = serving_names(o, adv);
	rc = sk_tls_setup(&s->tls, o->data_dir, host, port, (const char *const *)names, err);
	names_free(names);
	if (rc < 0)
		goto fail;
	ho.host = host;
	ho.port = port;
	ho.cert_pem = s->tls.cert_pem;
	ho.key_pem = s->tls.key_pem;
	ho.admin_token = s->tls.admin_token;
	ho.node_token = s->tls.node_token;
	ho.ca_pem = s->tls.ca_pem;
	ho.token_auth_file = o->token_auth_file;
	{
		cleanup_free char *sa_key = xasprintf("%s/tls/service-account.key", o->data_dir);

		if (sk_api_sa_setup(s->api, sa_key, err) < 0)
			goto fail;
	}
	ho.max_conns = o->max_conns;
	ho.max_conns_per_addr = o->max_conns_per_addr;
	ho.max_unauth_conns = o->max_unauth_conns;
	/* before serving: request threads read api->metrics */
	if (sk_api_metrics_start(s->api, o->metric_resolution_ms > 0 ? o->metric_resolution_ms : 15000, err) < 0)
		goto fail;
	s->http = sk_http_start(s->api, &ho, err);
	if (!s->http)
		goto fail;
	if (kubelet_client(o->data_dir, err) < 0)
		goto fail;
	if (sk_api_metrics_start(s->api, o->metric_resolution_ms > 0 ? o->metric_resolution_ms : 15000, err) < 0)
		goto fail;
	if (sk_api_aggregator_start(s->api, o->data_dir, s->tls.ca_pem, err) < 0)
		goto fail;
	/* the garbage collector honours foregroundDeletion and orphan */
	sk_api_set_gc_enabled(s->api, 1);
	s->ctrl_client = sk_client_new_inproc(s->api);
	s->co.cluster_cidr = o->cluster_cidr ? o->cluster_cidr : SK_API_DEFAULT_CLUSTER_CIDR;
	s->co.node_cidr_mask_size = o->node_cidr_mask_size;
	s->co.root_ca_pem = s->tls.ca_pem;
	s->co.ca_cert_pem = s->tls.ca_pem;
	s->co.ca_key_pem = s->tls.ca_key_pem;
	s->co.signing_duration_secs = o->signing_duration_secs;
	s->co.hpa_sync_period_secs = o->hpa_sync_period_secs;
	s->co.hpa_tolerance = o->hpa_tolerance;
	s->co.hpa_cpu_init_secs = o->hpa_cpu_init_secs;
	s->co.hpa_readiness_delay_secs = o->hpa_readiness_delay_secs;
	s->co.hpa_downscale_window_secs = o->hpa_downscale_window_secs;
	s->sched_client = sk_client_new_inproc(s->api);
	if (leader_elect(o)) {
		s->le_client = sk_client_new_inproc(s->api);
		s->ctrl_le = elect(s, o, "kube-controller-manager", "kube-controller-manager", ctrl_started,
				   ctrl_stopped, s->ctrl_client, err);
		if (!s->ctrl_le)
			goto fail;
		s->sched_le = elect(s, o, "kube-scheduler", "default-scheduler", sched_started, sched_stopped,
				    s->sched_client, err);
		if (!s->sched_le)
			goto fail;
	} else {
		s->ctrl = sk_ctrl_start(s->ctrl_client, &s->co, err);
		if (!s->ctrl)
			goto fail;
		s->sched = sk_sched_start(s->sched_client, NULL, err);
		if (!s->sched)
			goto fail;
	}
	if (o->agent) {
		cleanup_free char *agent_dir = xasprintf("%s/agent", o->data_dir);
		sk_agent_options ag = {0};
		char hostname[256] = "localhost";

		gethostname(hostname, sizeof(hostname) - 1);
		ag.node_name = o->node_name ? o->node_name : hostname;
		ag.data_dir = agent_dir;
		/* the control plane labels its node (embedded_node_client) */
		ag.control_plane = false;
		ag.simulate_gpus = o->simulate_gpus;
		ag.gpu_replicas = o->gpu_replicas;
		ag.gpu_quiet_period_s = o->gpu_quiet_period_s;
		ag.ca_pem = s->tls.ca_pem;
		ag.node_ip = o->node_ip;
		s->agent_client = embedded_node_client(s, ag.node_name);
		s->agent = sk_agent_start(s->agent_client, &ag, err);
		if (!s->agent) {
			/* the control plane serves on without a node of its own */
			sk_warn("server", "node agent not started: %s", err->msg);
			sk_error_clear(err);
		}
	}
	sk_info("server", "serving on https://%s (ready in %lld ms); kubeconfig: %s/kubeconfig", o->listen,
		(long long)((sk_mono_ns() - t0) / 1000000), o->data_dir);
	return s;
fail:
	sk_server_stop(s);
	return NULL;
}

void sk_server_stop(sk_server *s)
{
	if (!s)
		return;
	sk_agent_stop(s->agent);
	if (s->agent_client)
		sk_client_free(s->agent_client);
	/* a leader stops its components and releases its leases */
	sk_le_stop(s->sched_le);
	sk_le_stop(s->ctrl_le);
	if (s->le_client)
		sk_client_free(s->le_client);
	sk_sched_stop(s->sched);
	if (s->sched_client)
		sk_client_free(s->sched_client);
	sk_ctrl_stop(s->ctrl);
	if (s->ctrl_client)
		sk_client_free(s->ctrl_client);
	if (s->api)
		sk_api_shutdown(s->api);
	sk_http_stop(s->http);
	sk_api_free(s->api);
	sk_audit_close(s->audit);
	if (s->store)
		sk_store_close(s->store);
	sk_tls_files_release(&s->tls);
	free(s);
}
