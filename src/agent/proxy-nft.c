/* Running the dataplane's transactions through libnftables: each script is
 * one nft_run_cmd_from_buffer, which the kernel commits as one batch (all
 * or nothing). No nft process, no netlink of our own. */
#include <nftables/libnftables.h>
#include <string.h>

#include "agent/proxy.h"
#include "util/util.h"

struct sk_proxy_dp {
	struct nft_ctx *nft;
	char *table;
	json_t *applied; /* the model the table holds, NULL: unknown */
};

static struct nft_ctx *ctx_new(sk_error_t *err)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);

	if (!nft) {
		sk_error_set(err, SK_EINTERNAL, "nftables: cannot create a libnftables context");
		return NULL;
	}
	nft_ctx_buffer_output(nft);
	nft_ctx_buffer_error(nft);
	return nft;
}

sk_proxy_dp *sk_proxy_dp_new(const char *table, sk_error_t *err)
{
	struct nft_ctx *nft = ctx_new(err);
	sk_proxy_dp *dp;

	if (!nft)
		return NULL;
	dp = xzalloc(sizeof(*dp));
	dp->nft = nft;
	dp->table = xstrdup(table);
	return dp;
}

void sk_proxy_dp_free(sk_proxy_dp *dp)
{
	if (!dp)
		return;
	nft_ctx_free(dp->nft);
	json_decref(dp->applied);
	free(dp->table);
	free(dp);
}

static int run(struct nft_ctx *nft, const char *table, const char *script, sk_error_t *err)
{
	int rc = nft_run_cmd_from_buffer(nft, script);
	const char *msg = nft_ctx_get_error_buffer(nft);

	if (rc == 0)
		return 0;
	msg = msg && *msg ? msg : "transaction failed";
	return sk_error_set(err, SK_EINTERNAL, "nftables table \"%s\": %.*s", table, (int)strcspn(msg, "\n"), msg);
}

int sk_proxy_dp_run(sk_proxy_dp *dp, const char *script, sk_error_t *err)
{
	return run(dp->nft, dp->table, script, err);
}

/* Adds the names of the table's objects of kind ("chain", "set", "map") to
 * out, from `list <kind>s ip` as JSON. */
static int list_names(sk_proxy_dp *dp, const char *kind, json_t *out, sk_error_t *err)
{
	cleanup_free char *cmd = xasprintf("list %ss ip", kind);
	cleanup_json json_t *j = NULL;
	json_t *item;
	size_t i;

	nft_ctx_output_set_flags(dp->nft, NFT_CTX_OUTPUT_JSON);
	if (run(dp->nft, dp->table, cmd, err) < 0) {
		nft_ctx_output_set_flags(dp->nft, 0);
		return -1;
	}
	nft_ctx_output_set_flags(dp->nft, 0);
	j = json_loads(nft_ctx_get_output_buffer(dp->nft), 0, NULL);
	json_array_foreach(json_object_get(j, "nftables"), i, item) {
		json_t *o = json_object_get(item, kind);
		const char *table = json_string_value(json_object_get(o, "table"));
		const char *name = json_string_value(json_object_get(o, "name"));

		if (table && name && !strcmp(table, dp->table))
			json_object_set_new(out, name, json_true());
	}
	return 0;
}

json_t *sk_proxy_dp_existing(sk_proxy_dp *dp, sk_error_t *err)
{
	json_t *chains = json_object(), *sets = json_object();

	if (list_names(dp, "chain", chains, err) < 0 || list_names(dp, "set", sets, err) < 0 ||
	    list_names(dp, "map", sets, err) < 0) {
		json_decref(chains);
		json_decref(sets);
		return NULL;
	}
	return json_pack("{s:o, s:o}", "chains", chains, "sets", sets);
}

int sk_proxy_dp_apply(sk_proxy_dp *dp, const sk_proxy_config *cfg, json_t *model, bool full, sk_error_t *err)
{
	cleanup_json json_t *existing = NULL;
	cleanup_free char *script = NULL;
	json_t *old = full ? NULL : dp->applied;

	if (!old) {
		existing = sk_proxy_dp_existing(dp, err);
		if (!existing)
			return -1;
	}
	script = sk_proxy_script(cfg, old, model, existing);
	if (!*script)
		return 0;
	if (sk_proxy_dp_run(dp, script, err) < 0) {
		/* the kernel may hold something else than we think: start over */
		json_decref(steal_ptr(&dp->applied));
		return -1;
	}
	json_decref(dp->applied);
	dp->applied = json_incref(model);
	return 0;
}

int sk_proxy_table_delete(const char *table, sk_error_t *err)
{
	struct nft_ctx *nft = ctx_new(err);
	cleanup_free char *script = xasprintf("add table ip %s\ndelete table ip %s\n", table, table);
	int rc;

	if (!nft)
		return -1;
	rc = run(nft, table, script, err);
	nft_ctx_free(nft);
	return rc;
}
