#include <errno.h>
#include <string.h>

#include "agent/agent.h"
#include "api/api.h"
#include "api/http.h"
#include "api/logs.h"
#include "api/tls.h"
#include "ctrl/ctrl.h"
#include "sched/sched.h"
#include "server/server.h"
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
};

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

sk_server *sk_server_start(const sk_server_options *o, sk_error_t *err)
{
	sk_server *s = xzalloc(sizeof(*s));
	cleanup_free char *uri = xasprintf("sqlite://%s", o->data_dir);
	sk_api_options ao = {0};
	sk_http_options ho = {0};
	sk_ctrl_options co = {0};
	int64_t t0 = sk_mono_ns();
	char host[256];
	int port = 0;

	if (split_listen(o->listen, host, sizeof(host), &port, err) < 0)
		goto fail;
	if (sk_mkdir_p(o->data_dir, 0700) < 0) {
		sk_error_errno(err, errno, "creating data directory \"%s\"", o->data_dir);
		goto fail;
	}
	{
		sk_store_options so = {0};

		if (o->watch_history_secs > 0) {
			so.min_history_secs = o->watch_history_secs;
			so.max_history_events = -1;
		}
		s->store = sk_store_open(uri, &so, err);
	}
	if (!s->store)
		goto fail;
	ao.server_address = o->listen;
	s->api = sk_api_new(s->store, &ao, err);
	if (!s->api)
		goto fail;
	if (sk_tls_setup(&s->tls, o->data_dir, host, port, o->tls_san, err) < 0)
		goto fail;
	ho.host = host;
	ho.port = port;
	ho.cert_pem = s->tls.cert_pem;
	ho.key_pem = s->tls.key_pem;
	ho.admin_token = s->tls.admin_token;
	ho.node_token = s->tls.node_token;
	ho.ca_pem = s->tls.ca_pem;
	s->http = sk_http_start(s->api, &ho, err);
	if (!s->http)
		goto fail;
	sk_api_set_node_token(s->tls.node_token);
	/* the garbage collector honours foregroundDeletion and orphan */
	sk_api_set_gc_enabled(s->api, 1);
	s->ctrl_client = sk_client_new_inproc(s->api);
	co.cluster_cidr = o->cluster_cidr;
	co.node_cidr_mask_size = o->node_cidr_mask_size;
	s->ctrl = sk_ctrl_start(s->ctrl_client, &co, err);
	if (!s->ctrl)
		goto fail;
	s->sched_client = sk_client_new_inproc(s->api);
	s->sched = sk_sched_start(s->sched_client, NULL, err);
	if (!s->sched)
		goto fail;
	if (o->agent) {
		cleanup_free char *agent_dir = xasprintf("%s/agent", o->data_dir);
		sk_agent_options ag = {0};
		char hostname[256] = "localhost";

		gethostname(hostname, sizeof(hostname) - 1);
		ag.node_name = o->node_name ? o->node_name : hostname;
		ag.data_dir = agent_dir;
		ag.control_plane = true;
		ag.simulate_gpus = o->simulate_gpus;
		ag.gpu_replicas = o->gpu_replicas;
		ag.gpu_quiet_period_s = o->gpu_quiet_period_s;
		ag.node_token = s->tls.node_token;
		ag.node_ip = o->node_ip;
		s->agent_client = sk_client_new_inproc(s->api);
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
	if (s->store)
		sk_store_close(s->store);
	sk_tls_files_release(&s->tls);
	free(s);
}
