/* The CSR approving controller (upstream's pkg/controller/certificates/
 * approver/sarapprove.go): a kubelet client certificate request (signer
 * kubernetes.io/kube-apiserver-client-kubelet, O=system:nodes,
 * CN=system:node:NAME, client usages, no SANs) is approved when a
 * SubjectAccessReview of its requestor allows "create" on
 * certificatesigningrequests/selfnodeclient (a node renewing its own
 * certificate: CN is the requestor) or certificatesigningrequests/nodeclient
 * (a new node). The ClusterRoles granting them are bootstrap policy; the
 * bindings kubeadm makes (to system:bootstrappers and system:nodes) are
 * made at start too (src/api/rbac-policy.c). A recognized request whose
 * review is refused is retried with backoff, as upstream's IgnorableError.
 *
 * Unlike upstream, which leaves kubernetes.io/kubelet-serving requests to
 * a person or a third-party approver, a node's request for its own serving
 * certificate (CN = the requestor, in system:nodes, serving usages) is
 * approved, as k3s issues its agents' serving certificates: the API server
 * verifies agents with them (src/agent/access.c), so a node must get one
 * without a person. The addresses it names are the node's claim, as the
 * addresses in its Node status are. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/csr.h"
#include "util/util.h"

typedef struct recognizer {
	int self; /* the CN must be the requestor */
	const char *subresource;
	const char *message;
} recognizer;

/* upstream's recognizers(), in its order */
static const recognizer recognizers[] = {
	{1, "selfnodeclient", "Auto approving self kubelet client certificate after SubjectAccessReview."},
	{0, "nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview."},
};

static int in_groups(json_t *csr, const char *group)
{
	json_t *g;
	size_t i;

	json_array_foreach(sk_kube_jget(csr, "spec.groups"), i, g)
		if (json_is_string(g) && !strcmp(json_string_value(g), group))
			return 1;
	return 0;
}

/* upstream's authorize(): 1 when a SubjectAccessReview of the requestor
 * allows create on certificatesigningrequests/subresource, 0 when not, -1
 * when the review could not be made. */
static int review(sk_controller *k, json_t *csr, const char *subresource)
{
	cleanup_json json_t *sar = NULL, *out = NULL;
	json_t *spec;
	sk_error_t err = {0};

	sar = json_pack("{s:s, s:s, s:{s:s, s:{s:s, s:s, s:s, s:s, s:s}}}", "apiVersion", "authorization.k8s.io/v1",
			"kind", "SubjectAccessReview", "spec", "user", sk_kube_jstr(csr, "spec.username") ?: "",
			"resourceAttributes", "group", "certificates.k8s.io", "resource", "certificatesigningrequests",
			"verb", "create", "subresource", subresource, "version", "*");
	spec = json_object_get(sar, "spec");
	if (json_is_string(sk_kube_jget(csr, "spec.uid")))
		json_object_set(spec, "uid", sk_kube_jget(csr, "spec.uid"));
	if (json_is_array(sk_kube_jget(csr, "spec.groups")))
		json_object_set(spec, "groups", sk_kube_jget(csr, "spec.groups"));
	if (json_is_object(sk_kube_jget(csr, "spec.extra")))
		json_object_set(spec, "extra", sk_kube_jget(csr, "spec.extra"));
	out = sk_client_create(k->ctl->c, "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, &err);
	if (!out) {
		sk_warn("ctrl", "csrapproving: reviewing %s: %s", sk_kube_jstr(csr, "metadata.name") ?: "", err.msg);
		return -1;
	}
	return json_is_true(sk_kube_jget(out, "status.allowed"));
}

/* A node's request for its own serving certificate (see the top). */
static const char *serving_approval(json_t *csr, gnutls_x509_crq_t crq)
{
	cleanup_free char *cn = NULL;
	char buf[160];
	const char *user = sk_kube_jstr(csr, "spec.username") ?: "";

	if (sk_kube_csr_kubelet_serving_problem(crq, sk_kube_jget(csr, "spec.usages"), buf, sizeof(buf)))
		return NULL;
	cn = sk_kube_csr_common_name(crq);
	if ((!strcmp(cn, user) && in_groups(csr, "system:nodes")) || in_groups(csr, "system:masters"))
		return "Auto approving self kubelet serving certificate.";
	return NULL;
}

/* upstream's handle(): the approval message, or NULL with 0 when csr is no
 * kubelet client request, -1 when recognized but no review allowed it
 * (retried) or a review failed. */
static int approval(sk_controller *k, json_t *csr, gnutls_x509_crq_t crq, const char **msg)
{
	cleanup_free char *cn = NULL;
	char buf[160];
	const char *signer = sk_kube_jstr(csr, "spec.signerName") ?: "";
	int tried = 0;

	*msg = NULL;
	if (!strcmp(signer, SK_CSR_SIGNER_KUBELET_SERVING)) {
		*msg = serving_approval(csr, crq);
		return 0;
	}
	if (strcmp(signer, SK_CSR_SIGNER_KUBELET_CLIENT) ||
	    sk_kube_csr_kubelet_client_problem(crq, sk_kube_jget(csr, "spec.usages"), buf, sizeof(buf)))
		return 0;
	cn = sk_kube_csr_common_name(crq);
	for (size_t i = 0; i < sizeof(recognizers) / sizeof(recognizers[0]); i++) {
		const recognizer *r = &recognizers[i];
		int ok;

		if (r->self && strcmp(cn, sk_kube_jstr(csr, "spec.username") ?: ""))
			continue;
		tried = 1;
		ok = review(k, csr, r->subresource);
		if (ok < 0)
			return -1;
		if (ok) {
			*msg = r->message;
			return 0;
		}
	}
	if (tried)
		sk_debug("ctrl", "csrapproving: recognized csr \"%s\" but subject access review was not approved",
			 sk_kube_jstr(csr, "metadata.name") ?: "");
	return tried ? -1 : 0;
}

static int sync_approving(sk_controller *k, const char *key)
{
	cleanup_json json_t *cur = sk_informer_get(k->ctl->csrs, NULL, key), *csr = NULL, *out = NULL;
	cleanup_free char *why = NULL, *path = NULL;
	gnutls_x509_crq_t crq = NULL;
	const char *msg = NULL;
	json_t *st;
	sk_error_t err = {0};
	int rc;

	if (!cur || *(sk_kube_jstr(cur, "status.certificate") ?: "") || sk_kube_csr_has_condition(cur, "Approved") ||
	    sk_kube_csr_has_condition(cur, "Denied"))
		return 0;
	if (sk_kube_csr_parse_b64(sk_kube_jstr(cur, "spec.request") ?: "", &crq, &why) < 0)
		return 0;
	rc = approval(k, cur, crq, &msg);
	gnutls_x509_crq_deinit(crq);
	if (rc < 0 || !msg)
		return rc;
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
