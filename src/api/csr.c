/* CertificateSigningRequests (certificates.k8s.io/v1) beyond generic
 * storage, as upstream's pkg/registry/certificates/certificates/strategy.go
 * and pkg/apis/certificates/validation: the requestor's identity goes into
 * spec on create, spec never changes after it, /status may set the
 * certificate and Failed conditions, /approval the Approved and Denied
 * conditions; validation parses the PEM request with GnuTLS and checks its
 * signature. */
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "api/api-int.h"
#include "api/table.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "kube/csr.h"
#include "util/util.h"

#define E struct sk__verr *e

static const char *const known_usages[] = {
	"any",
	"cert sign",
	"client auth",
	"code signing",
	"content commitment",
	"crl sign",
	"data encipherment",
	"decipher only",
	"digital signature",
	"email protection",
	"encipher only",
	"ipsec end system",
	"ipsec tunnel",
	"ipsec user",
	"key agreement",
	"key encipherment",
	"microsoft sgc",
	"netscape sgc",
	"ocsp signing",
	"s/mime",
	"server auth",
	"signing",
	"timestamping",
	NULL,
};

static json_t *spec_of(json_t *o) { return json_object_get(o, "spec"); }
static json_t *status_of(json_t *o) { return json_object_get(o, "status"); }
static json_t *conds_of(json_t *o) { return json_object_get(status_of(o), "conditions"); }

static const char *str_at(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int in_list(const char *s, const char *const *l)
{
	for (size_t i = 0; l[i]; i++)
		if (!strcmp(s, l[i]))
			return 1;
	return 0;
}

/* ---- the request and the certificate ---- */

static void validate_request(E, json_t *spec)
{
	const char *req = str_at(spec, "request");
	gnutls_x509_crq_t crq = NULL;
	cleanup_free char *why = NULL, *repr = NULL;

	if (sk_kube_csr_parse_b64(req, &crq, &why) == 0) {
		gnutls_x509_crq_deinit(crq);
		return;
	}
	/* a []byte value prints as JSON does: its base64 in quotes */
	repr = sk__vquote(req);
	sk__vinvalid_repr(e, "spec.request", repr, why);
}

/* upstream's validateCertificate: NULL, or why status.certificate is bad
 * (static or malloc'd into *buf). */
static const char *certificate_problem(const char *b64, char **buf)
{
	gnutls_datum_t in = {(unsigned char *)b64, (unsigned)strlen(b64)}, out = {NULL, 0};
	const char *p, *end, *why = NULL;
	int blocks = 0;

	if (!*b64)
		return NULL;
	if (gnutls_base64_decode2(&in, &out) < 0)
		return "must contain at least one CERTIFICATE PEM block";
	p = (const char *)out.data;
	end = p + out.size;
	while (p < end && !why) {
		const char *b = memmem(p, (size_t)(end - p), "-----BEGIN ", 11), *t, *stop;
		gnutls_x509_crt_t crt = NULL;
		gnutls_datum_t one;

		if (!b)
			break;
		t = b + 11;
		stop = memmem(t, (size_t)(end - t), "-----", 5);
		if (!stop)
			break;
		if ((size_t)(stop - t) != 11 || memcmp(t, "CERTIFICATE", 11)) {
			*buf = xasprintf("only CERTIFICATE PEM blocks are allowed, found \"%.*s\"", (int)(stop - t), t);
			why = *buf;
			break;
		}
		one.data = (unsigned char *)b;
		one.size = (unsigned)(end - b);
		gnutls_x509_crt_init(&crt);
		if (gnutls_x509_crt_import(crt, &one, GNUTLS_X509_FMT_PEM) < 0)
			why = "x509: malformed certificate";
		gnutls_x509_crt_deinit(crt);
		blocks++;
		p = memmem(stop + 5, (size_t)(end - stop - 5), "-----END CERTIFICATE-----", 25);
		p = p ? p + 25 : end;
	}
	gnutls_free(out.data);
	if (!why && !blocks)
		why = "must contain at least one CERTIFICATE PEM block";
	return why;
}

/* ---- signerName (core validation's ValidateSignerName) ---- */

/* The first label problem of the '.'-separated parts of s, as
 * "validating <what> \"part\": <message>" (malloc'd), or NULL. */
static char *labels_problem(const char *s, const char *what, const char *(*check)(const char *), int *nparts)
{
	const char *p = s;

	*nparts = 0;
	for (;;) {
		size_t n = strcspn(p, ".");
		cleanup_free char *part = xstrndup(p, n);
		const char *m = check(part);

		(*nparts)++;
		if (m)
			return xasprintf("validating %s \"%s\": %s", what, part, m);
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

static void validate_signer_name(E, const char *f, const char *name)
{
	const char *slash = strchr(name, '/');
	cleanup_free char *domain = NULL, *why = NULL, *pwhy = NULL;
	const char *path;
	int labels, parts;

	if (!*name) {
		sk__vrequired(e, f, "");
		return;
	}
	if (!slash || strchr(slash + 1, '/')) {
		sk__vinvalid_str(e, f, name,
				 "must be a fully qualified domain and path of the form 'example.com/signer-name'");
		return;
	}
	domain = xstrndup(name, (size_t)(slash - name));
	path = slash + 1;
	if (strlen(domain) > 253)
		sk__vtoo_long(e, f, 253);
	why = labels_problem(domain, "label", sk_validate_dns1123_label, &labels);
	if (why)
		sk__vinvalid_str(e, f, domain, why);
	if (labels < 2)
		sk__vinvalid_str(e, f, domain, "should be a domain with at least two segments separated by dots");
	if (strlen(path) > 253)
		sk__vtoo_long(e, f, 253);
	pwhy = labels_problem(path, "component", sk_validate_dns1123_subdomain, &parts);
	if (pwhy)
		sk__vinvalid_str(e, f, path, pwhy);
}

/* ---- the whole object ---- */

typedef struct opts {
	int setting_approval, setting_certificate; /* which subresource writes */
	int legacy_signer, unknown_usages, dup_usages, dup_types, empty_type, both, arbitrary_cert;
} opts;

static int has_unknown_usage(json_t *usages)
{
	json_t *u;
	size_t i;

	json_array_foreach(usages, i, u)
		if (!json_is_string(u) || !in_list(json_string_value(u), known_usages))
			return 1;
	return 0;
}

static int has_dup(json_t *arr, const char *key)
{
	cleanup_json json_t *seen = json_object();
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		const char *s = key ? str_at(v, key) : json_string_value(v);

		if (!s)
			continue;
		if (json_object_get(seen, s))
			return 1;
		json_object_set_new(seen, s, json_true());
	}
	return 0;
}

static size_t count_type(json_t *csr, const char *type)
{
	json_t *c;
	size_t i, n = 0;

	json_array_foreach(conds_of(csr), i, c)
		n += !strcmp(str_at(c, "type"), type);
	return n;
}

/* getValidationOptions: what an update tolerates because the stored object has it already. */
static opts options_for(json_t *obj, json_t *old)
{
	opts o = {0};
	const char *cert = str_at(status_of(obj), "certificate");
	char *buf = NULL;

	if (!old)
		return o;
	o.both = count_type(old, "Approved") && count_type(old, "Denied");
	o.legacy_signer = !strcmp(str_at(spec_of(old), "signerName"), SK_CSR_SIGNER_LEGACY_UNKNOWN);
	o.dup_types = has_dup(conds_of(old), "type");
	{
		json_t *c;
		size_t i;

		json_array_foreach(conds_of(old), i, c)
			o.empty_type |= !*str_at(c, "type");
	}
	o.arbitrary_cert = !strcmp(cert, str_at(status_of(old), "certificate")) ||
			   certificate_problem(str_at(status_of(old), "certificate"), &buf) != NULL;
	free(buf);
	o.dup_usages = has_dup(json_object_get(spec_of(old), "usages"), NULL);
	o.unknown_usages = has_unknown_usage(json_object_get(spec_of(old), "usages"));
	return o;
}

static void validate_usages(E, json_t *usages, const opts *o)
{
	cleanup_json json_t *seen = json_object();
	json_t *u;
	size_t i;

	if (!json_array_size(usages))
		sk__vrequired(e, "spec.usages", "");
	json_array_foreach(usages, i, u) {
		cleanup_free char *f = sk__vindex("spec.usages", i);
		const char *s = json_string_value(u);

		if (!o->unknown_usages && (!s || !in_list(s, known_usages)))
			sk__vnot_supported(e, f, u, known_usages);
		if (!o->dup_usages && s) {
			if (json_object_get(seen, s))
				sk__vduplicate(e, f, u);
			json_object_set_new(seen, s, json_true());
		}
	}
}

static void validate_conditions(E, json_t *csr, const opts *o)
{
	static const char *const true_only[] = {"True", NULL};
	static const char *const all[] = {"False", "True", "Unknown", NULL};
	cleanup_json json_t *seen = json_object();
	int approved = 0, denied = 0;
	json_t *c;
	size_t i;

	json_array_foreach(conds_of(csr), i, c) {
		cleanup_free char *base = sk__vindex("status.conditions", i);
		cleanup_free char *ft = sk__vchild(base, "type"), *fs = sk__vchild(base, "status");
		const char *type = str_at(c, "type"), *st = str_at(c, "status");
		int trueonly = !strcmp(type, "Approved") || !strcmp(type, "Denied") || !strcmp(type, "Failed");

		if (!o->empty_type && !*type)
			sk__vrequired(e, ft, "");
		if (!*st)
			sk__vrequired(e, fs, "");
		else if (!in_list(st, trueonly ? true_only : all))
			sk__vnot_supported(e, fs, json_object_get(c, "status"), trueonly ? true_only : all);
		if (!o->both && !strcmp(type, "Approved")) {
			approved = 1;
			if (denied)
				sk__vinvalid_str(e, ft, type, "Approved and Denied conditions are mutually exclusive");
		} else if (!o->both && !strcmp(type, "Denied")) {
			denied = 1;
			if (approved)
				sk__vinvalid_str(e, ft, type, "Approved and Denied conditions are mutually exclusive");
		}
		if (!o->dup_types) {
			if (json_object_get(seen, type))
				sk__vduplicate(e, ft, json_object_get(c, "type"));
			json_object_set_new(seen, type, json_true());
		}
	}
}

static void validate_object(E, json_t *csr, const opts *o)
{
	json_t *spec = spec_of(csr), *exp = json_object_get(spec, "expirationSeconds");
	const char *signer = str_at(spec, "signerName");

	sk__validate_object_meta(e, csr, false);
	validate_request(e, spec);
	validate_usages(e, json_object_get(spec, "usages"), o);
	if (!o->legacy_signer && !strcmp(signer, SK_CSR_SIGNER_LEGACY_UNKNOWN))
		sk__vinvalid_str(e, "spec.signerName", signer,
				 "the legacy signerName is not allowed via this API version");
	else
		validate_signer_name(e, "spec.signerName", signer);
	if (json_is_integer(exp) && json_integer_value(exp) < 600)
		sk__vinvalid_int(e, "spec.expirationSeconds", json_integer_value(exp),
				 "may not specify a duration less than 600 seconds (10 minutes)");
	validate_conditions(e, csr, o);
	if (!o->arbitrary_cert) {
		cleanup_free char *buf = NULL;
		const char *why = certificate_problem(str_at(status_of(csr), "certificate"), &buf);

		if (why)
			sk__vinvalid_repr(e, "status.certificate", "\"<certificate data>\"", why);
	}
}

/* The Approved, Denied and Failed conditions of csr of type (new array). */
static json_t *conditions_of_type(json_t *csr, const char *type)
{
	json_t *out = json_array(), *c;
	size_t i;

	json_array_foreach(conds_of(csr), i, c)
		if (!strcmp(str_at(c, "type"), type))
			json_array_append(out, c);
	return out;
}

static void validate_update(E, json_t *csr, json_t *old, const opts *o)
{
	static const char *const kept[] = {"Approved", "Denied", "Failed", NULL};
	const char *cert = str_at(status_of(csr), "certificate"), *ocert = str_at(status_of(old), "certificate");

	for (int i = 0; kept[i]; i++)
		if (count_type(csr, kept[i]) < count_type(old, kept[i])) {
			cleanup_free char *d = xasprintf("updates may not remove a condition of type \"%s\"", kept[i]);

			sk__vforbidden(e, "status.conditions", d);
		}
	for (int i = 0; !o->setting_approval && i < 2; i++) {
		cleanup_json json_t *a = conditions_of_type(old, kept[i]), *b = conditions_of_type(csr, kept[i]);
		cleanup_free char *d = NULL;

		if (json_array_size(b) < json_array_size(a))
			continue;
		if (json_array_size(b) > json_array_size(a))
			d = xasprintf("updates may not add a condition of type \"%s\"", kept[i]);
		else if (!json_equal(a, b))
			d = xasprintf("updates may not modify a condition of type \"%s\"", kept[i]);
		if (d)
			sk__vforbidden(e, "status.conditions", d);
	}
	if (strcmp(cert, ocert)) {
		if (!o->setting_certificate)
			sk__vforbidden(e, "status.certificate", "updates may not set certificate content");
		else if (*ocert)
			sk__vforbidden(e, "status.certificate", "updates may not modify existing certificate content");
	}
	sk__validate_object_meta_update(e, csr, old);
}

static json_t *csr_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	opts o = options_for(obj, old);

	(void)r;
	o.setting_certificate = status_sub == 1;
	o.setting_approval = status_sub == 2;
	validate_object(&e, obj, &o);
	if (old)
		validate_update(&e, obj, old, &o);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* ---- strategy ---- */

/* PrepareForCreate: the requestor's identity, no status. */
static void csr_set_requestor(const sk_api_resource *r, json_t *obj, const sk_user *u)
{
	json_t *spec = spec_of(obj);

	(void)r;
	if (!json_is_object(spec))
		return;
	json_object_del(spec, "username");
	json_object_del(spec, "uid");
	json_object_del(spec, "groups");
	json_object_del(spec, "extra");
	if (u) {
		json_t *groups = json_array();

		if (u->name && *u->name)
			json_object_set_new(spec, "username", json_string(u->name));
		if (u->uid && *u->uid)
			json_object_set_new(spec, "uid", json_string(u->uid));
		for (size_t i = 0; i < u->ngroups; i++)
			json_array_append_new(groups, json_string(u->groups[i]));
		if (json_array_size(groups))
			json_object_set_new(spec, "groups", groups);
		else
			json_decref(groups);
		if (json_object_size(u->extra))
			json_object_set_new(spec, "extra", json_deep_copy(u->extra));
	}
	json_object_set_new(obj, "status", json_object());
}

/* The main resource changes neither spec nor status. */
static void csr_prepare_update(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old)
{
	(void)api;
	(void)r;
	json_object_set_new(obj, "spec", json_deep_copy(spec_of(old) ? spec_of(old) : json_object()));
	if (status_of(old))
		json_object_set_new(obj, "status", json_deep_copy(status_of(old)));
	else
		json_object_del(obj, "status");
}

/* populateConditionTimestamps: lastUpdateTime now when unset;
 * lastTransitionTime kept from the old condition of the same type and
 * status, else now. */
static void populate_timestamps(json_t *obj, json_t *old)
{
	char now[32];
	json_t *c;
	size_t i;

	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	json_array_foreach(conds_of(obj), i, c) {
		if (!json_is_object(c))
			continue;
		if (!json_string_value(json_object_get(c, "lastUpdateTime")))
			json_object_set_new(c, "lastUpdateTime", json_string(now));
		if (!json_string_value(json_object_get(c, "lastTransitionTime"))) {
			const char *since = NULL;
			json_t *oc;
			size_t j;

			json_array_foreach(conds_of(old), j, oc)
				if (!strcmp(str_at(oc, "type"), str_at(c, "type")) &&
				    !strcmp(str_at(oc, "status"), str_at(c, "status")))
					since = json_string_value(json_object_get(oc, "lastTransitionTime"));
			json_object_set_new(c, "lastTransitionTime", json_string(since ? since : now));
		}
	}
}

/* /status takes the status (the carry-over kept the spec); /approval only
 * the conditions. */
static void csr_prepare_sub_update(const sk_api_resource *r, const char *sub, json_t *obj, json_t *old)
{
	(void)r;
	if (!strcmp(sub, "approval")) {
		json_t *st = json_deep_copy(status_of(old) ? status_of(old) : json_object());
		json_t *conds = conds_of(obj);

		if (conds)
			json_object_set(st, "conditions", conds);
		else
			json_object_del(st, "conditions");
		json_object_set_new(obj, "status", st);
	}
	populate_timestamps(obj, old);
}

const sk_kind_ops sk__csr_ops = {
	.printer = &sk_table_printer_certificatesigningrequest,
	.validate = csr_validate,
	.set_requestor = csr_set_requestor,
	.prepare_update = csr_prepare_update,
	.prepare_sub_update = csr_prepare_sub_update,
};
