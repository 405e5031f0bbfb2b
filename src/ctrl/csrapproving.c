/* The CSR approving controller (after pkg/controller/certificates/approver,
 * sarapprove.go): approves a kubelet's client certificate request
 * (signer kubernetes.io/kube-apiserver-client-kubelet, O=system:nodes,
 * CN=system:node:NAME, client usages, no SANs) when its requestor may ask
 * for one. Upstream asks a SubjectAccessReview for the subresource
 * "selfnodeclient" (a node renewing its own certificate: CN is the
 * requestor) or "nodeclient" (a new node); the bindings kubeadm makes grant
 * them to system:nodes and system:bootstrappers. skiff has no
 * SubjectAccessReview yet, so those grants are the rule here (and
 * system:masters may do anything).
 *
 * Unlike upstream, which leaves kubernetes.io/kubelet-serving requests to
 * a person or a third-party approver, a node's request for its own serving
 * certificate (CN = the requestor, in system:nodes, serving usages) is
 * approved, as k3s issues its agents' serving certificates: the API server
 * verifies agents with them (src/agent/access.c). The addresses it names
 * are the node's claim, as the addresses in its Node status are. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/csr.h"
#include "util/util.h"

static int in_groups(json_t *csr, const char *group)
{
	json_t *g;
	size_t i;

	json_array_foreach(sk_kube_jget(csr, "spec.groups"), i, g)
		if (json_is_string(g) && !strcmp(json_string_value(g), group))
			return 1;
	return 0;
}

/* The approval message when the requestor may have crq approved, else NULL. */
static const char *approval(json_t *csr, gnutls_x509_crq_t crq)
{
	cleanup_free char *cn = NULL;
	char buf[160];
	const char *user = sk_kube_jstr(csr, "spec.username") ?: "";

	if (!strcmp(sk_kube_jstr(csr, "spec.signerName") ?: "", SK_CSR_SIGNER_KUBELET_SERVING)) {
		/* a node's own serving certificate (see the top) */
		if (sk_kube_csr_kubelet_serving_problem(crq, sk_kube_jget(csr, "spec.usages"), buf, sizeof(buf)))
			return NULL;
		cn = sk_kube_csr_common_name(crq);
		if ((!strcmp(cn, user) && in_groups(csr, "system:nodes")) || in_groups(csr, "system:masters"))
			return "Auto approving self kubelet serving certificate.";
		return NULL;
	}
	if (strcmp(sk_kube_jstr(csr, "spec.signerName") ?: "", SK_CSR_SIGNER_KUBELET_CLIENT) ||
	    sk_kube_csr_kubelet_client_problem(crq, sk_kube_jget(csr, "spec.usages"), buf, sizeof(buf)))
		return NULL;
	cn = sk_kube_csr_common_name(crq);
	if (!strcmp(cn, user) && (in_groups(csr, "system:nodes") || in_groups(csr, "system:masters")))
		return "Auto approving self kubelet client certificate after SubjectAccessReview.";
	if (in_groups(csr, "system:bootstrappers") || in_groups(csr, "system:masters"))
		return "Auto approving kubelet client certificate after SubjectAccessReview.";
	return NULL;
}

static int sync_approving(sk_controller *k, const char *key)
{
	cleanup_json json_t *cur = sk_informer_get(k->ctl->csrs, NULL, key), *csr = NULL, *out = NULL;
	cleanup_free char *why = NULL, *path = NULL;
	gnutls_x509_crq_t crq = NULL;
	const char *msg;
	json_t *st;
	sk_error_t err = {0};

	if (!cur || *(sk_kube_jstr(cur, "status.certificate") ?: "") || sk_kube_csr_has_condition(cur, "Approved") ||
	    sk_kube_csr_has_condition(cur, "Denied"))
		return 0;
	if (sk_kube_csr_parse_b64(sk_kube_jstr(cur, "spec.request") ?: "", &crq, &why) < 0)
		return 0;
	msg = approval(cur, crq);
	gnutls_x509_crq_deinit(crq);
	if (!msg)
		return 0;
	csr = json_deep_copy(cur);
	st = json_object_get(csr, "status");
	if (!json_is_object(st)) {
		st = json_object();
		json_object_set_new(csr, "status", st);
	}
	if (!json_is_array(json_object_get(st, "conditions")))
		json_object_set_new(st, "conditions", json_array());
	json_array_append_new(json_object_get(st, "conditions"),
			      json_pack("{s:s, s:s, s:s, s:s}", "type", "Approved", "status", "True", "reason",
					"AutoApproved", "message", msg));
	path = sk__path("/apis/certificates.k8s.io/v1", "certificatesigningrequests", NULL, key, "approval");
	out = sk_client_update(k->ctl->c, path, csr, &err);
	if (!out) {
		if (err.code == SK_ENOTFOUND)
			return 0;
		sk_warn("ctrl", "csrapproving: %s: %s", key, err.msg);
		return -1;
	}
	sk_informer_write(k->ctl->csrs, out);
	sk_info("ctrl", "csrapproving: approved %s", key);
	return 0;
}

int sk__csrapproving_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "csrapproving", sync_approving, NULL);

	(void)err;
	sk_informer_on(ctl->csrs, sk__enqueue_self, k);
	return 0;
}
