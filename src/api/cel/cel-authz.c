/* The authz library of CEL (k8s.io/apiserver pkg/cel/library/authz.go,
 * with its selectors, AuthzSelectors): authorizer.group(g).resource(r)
 * .subresource(s).namespace(ns).name(n).fieldSelector(f).labelSelector(l)
 * .check(verb), authorizer.path(p).check(verb), serviceAccount(ns, name),
 * and a Decision's allowed(), reason(), errored() and error(). A check asks
 * the sk_cel_authorize_fn the evaluation was given (the API server's
 * authorizer chain) and costs upstream's fixed 350,000 units. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/cel/cel-int.h"
#include "api/validate.h"
#include "util/util.h"

static const char *const type_names[] = {
	[AZ_AUTHORIZER] = "kubernetes.authorization.Authorizer",
	[AZ_PATH] = "kubernetes.authorization.PathCheck",
	[AZ_GROUP] = "kubernetes.authorization.GroupCheck",
	[AZ_RESOURCE] = "kubernetes.authorization.ResourceCheck",
	[AZ_DECISION] = "kubernetes.authorization.Decision",
};

const char *sk__cel_authz_type_name(const cval *v) { return type_names[v->az->kind]; }

static char *dup_str(cel_ctx *c, const char *p, size_t n)
{
	char *s = sk__cel_alloc(c, n + 1);

	memcpy(s, p, n);
	return s;
}

/* A copy of t of kind (the builders return new values). */
static cval *derive(cel_ctx *c, const cval *t, enum cel_authz_kind kind)
{
	cval *v = sk__cel_new(c, V_AUTHZ);

	v->az = sk__cel_alloc(c, sizeof(*v->az));
	if (t)
		*v->az = *t->az;
	else
		v->az->chk = (sk_cel_authz_check){.path = "",
						  .group = "",
						  .resource = "",
						  .subresource = "",
						  .ns = "",
						  .name = "",
						  .field_selector = "",
						  .label_selector = ""};
	v->az->kind = kind;
	return v;
}

cval *sk__cel_authz_var(cel_ctx *c, const sk_cel_authz_check *rq)
{
	cval *v = derive(c, NULL, rq ? AZ_RESOURCE : AZ_AUTHORIZER);

	if (rq) {
		sk_cel_authz_check *k = &v->az->chk;

		k->resource_request = 1;
		k->group = dup_str(c, rq->group ? rq->group : "", strlen(rq->group ? rq->group : ""));
		k->resource = dup_str(c, rq->resource ? rq->resource : "", strlen(rq->resource ? rq->resource : ""));
		k->subresource = dup_str(c, rq->subresource ? rq->subresource : "",
					 strlen(rq->subresource ? rq->subresource : ""));
		k->ns = dup_str(c, rq->ns ? rq->ns : "", strlen(rq->ns ? rq->ns : ""));
		k->name = dup_str(c, rq->name ? rq->name : "", strlen(rq->name ? rq->name : ""));
	}
	return v;
}

/* Whether s is blank (upstream's strings.TrimSpace(s) == ""). */
static int blank(const cval *s)
{
	for (size_t i = 0; i < s->s.n; i++)
		if (!strchr(" \t\n\v\f\r", s->s.p[i]))
			return 0;
	return 1;
}

static cval *check(cel_ctx *c, cval *t, cval *verb)
{
	cval *d = derive(c, t, AZ_DECISION);
	sk_cel_authz_check *k = &d->az->chk;
	char *reason = NULL, *error = NULL;

	sk__cel_charge(c, SK_CEL_AUTHZ_CHECK_COST);
	k->verb = dup_str(c, verb->s.p, verb->s.n);
	k->resource_request = t->az->kind == AZ_RESOURCE;
	if (!c->authorize) {
		d->az->decision = SK_CEL_AUTHZ_NO_OPINION;
		d->az->reason = "";
		d->az->error = "no authorizer";
		return d;
	}
	d->az->decision = c->authorize(c->authorize_ud, k, &reason, &error);
	d->az->reason = reason ? dup_str(c, reason, strlen(reason)) : "";
	d->az->error = error ? dup_str(c, error, strlen(error)) : NULL;
	free(reason);
	free(error);
	return d;
}

cval *sk__cel_authz_call(cel_ctx *c, const char *fn, cval *t, cval **a, size_t n)
{
	enum cel_authz_kind kind = t->az->kind;
	cval *v;

	for (size_t i = 0; i < n; i++)
		if (a[i]->t != V_STRING || memchr(a[i]->s.p, 0, a[i]->s.n))
			return sk__cel_no_overload(c, fn);
	if (kind == AZ_DECISION && !n) {
		if (!strcmp(fn, "allowed"))
			return sk__cel_bool(c, t->az->decision == SK_CEL_AUTHZ_ALLOW);
		if (!strcmp(fn, "reason"))
			return sk__cel_str(c, t->az->reason, strlen(t->az->reason));
		if (!strcmp(fn, "errored"))
			return sk__cel_bool(c, t->az->error != NULL);
		if (!strcmp(fn, "error"))
			return t->az->error ? sk__cel_str(c, t->az->error, strlen(t->az->error))
					    : sk__cel_str(c, "", 0);
		return sk__cel_no_overload(c, fn);
	}
	if (kind == AZ_AUTHORIZER && n == 2 && !strcmp(fn, "serviceAccount")) {
		cleanup_free char *ns = xstrndup(a[0]->s.p, a[0]->s.n), *name = xstrndup(a[1]->s.p, a[1]->s.n);

		/* the name first, as upstream */
		if (sk_validate_dns1123_subdomain(name))
			return sk__cel_err(c, "Invalid service account name");
		if (sk_validate_dns1123_label(ns))
			return sk__cel_err(c, "Invalid service account namespace");
		v = derive(c, t, AZ_AUTHORIZER);
		v->az->chk.sa_namespace = dup_str(c, a[0]->s.p, a[0]->s.n);
		v->az->chk.sa_name = dup_str(c, a[1]->s.p, a[1]->s.n);
		return v;
	}
	if (n != 1)
		return sk__cel_no_overload(c, fn);
	if (kind == AZ_AUTHORIZER && !strcmp(fn, "path")) {
		if (blank(a[0]))
			return sk__cel_err(c, "path must not be empty");
		v = derive(c, t, AZ_PATH);
		v->az->chk.path = dup_str(c, a[0]->s.p, a[0]->s.n);
		return v;
	}
	if (kind == AZ_AUTHORIZER && !strcmp(fn, "group")) {
		v = derive(c, t, AZ_GROUP);
		v->az->chk.group = dup_str(c, a[0]->s.p, a[0]->s.n);
		return v;
	}
	if (kind == AZ_GROUP && !strcmp(fn, "resource")) {
		if (blank(a[0]))
			return sk__cel_err(c, "resource must not be empty");
		v = derive(c, t, AZ_RESOURCE);
		v->az->chk.resource = dup_str(c, a[0]->s.p, a[0]->s.n);
		return v;
	}
	if (kind == AZ_RESOURCE) {
		static const struct {
			const char *fn;
			size_t off;
		} setters[] = {
			{"subresource", offsetof(sk_cel_authz_check, subresource)},
			{"namespace", offsetof(sk_cel_authz_check, ns)},
			{"name", offsetof(sk_cel_authz_check, name)},
			{"fieldSelector", offsetof(sk_cel_authz_check, field_selector)},
			{"labelSelector", offsetof(sk_cel_authz_check, label_selector)},
		};

		for (size_t i = 0; i < sizeof(setters) / sizeof(setters[0]); i++)
			if (!strcmp(fn, setters[i].fn)) {
				/* parsing a selector is a pass over its text */
				if (i >= 3)
					sk__cel_charge(c, (int64_t)(a[0]->s.n / 10));
				v = derive(c, t, AZ_RESOURCE);
				*(const char **)((char *)&v->az->chk + setters[i].off) = dup_str(c, a[0]->s.p,
												 a[0]->s.n);
				return v;
			}
	}
	if ((kind == AZ_RESOURCE || kind == AZ_PATH) && !strcmp(fn, "check"))
		return check(c, t, a[0]);
	return sk__cel_no_overload(c, fn);
}
