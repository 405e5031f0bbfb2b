/* Upstream's impersonation filter (k8s.io/apiserver/pkg/endpoints/filters/
 * impersonation.go): Impersonate-User (a user, or a service account as
 * system:serviceaccount:NS:NAME), Impersonate-Group (repeated),
 * Impersonate-Uid and Impersonate-Extra-KEY headers. Each thing asked for
 * is authorized as the verb impersonate on users, groups, serviceaccounts
 * (core group), uids or userextras/KEY (authentication.k8s.io); the
 * request then runs as the user they describe. */
#include <microhttpd.h>
#include <string.h>
#include <strings.h>

#include "api/api-int.h"
#include "api/validate.h"
#include "util/util.h"

#define EXTRA_PREFIX "Impersonate-Extra-"
#define AUTHN_GROUP "authentication.k8s.io"

/* One thing the headers ask to act as (upstream's ObjectReference). */
typedef struct imp {
	const char *kind; /* User, ServiceAccount, Group, UserExtra, UID */
	char *ns, *name, *field_path;
} imp;

typedef struct imp_list {
	imp *v;
	size_t n;
} imp_list;

static void imp_add(imp_list *l, const char *kind, const char *ns, const char *name, const char *field_path)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (imp){kind, xstrdup(ns), xstrdup(name), xstrdup(field_path)};
}

static void imp_release(imp_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].ns);
		free(l->v[i].name);
		free(l->v[i].field_path);
	}
	free(l->v);
}

/* upstream's serviceaccount.SplitUsername */
static int split_sa(const char *user, char **ns, char **name)
{
	static const char prefix[] = "system:serviceaccount:";
	const char *rest = user, *colon;

	if (strncmp(user, prefix, sizeof(prefix) - 1))
		return -1;
	rest += sizeof(prefix) - 1;
	colon = strchr(rest, ':');
	if (!colon || strchr(colon + 1, ':'))
		return -1;
	*ns = xstrndup(rest, (size_t)(colon - rest));
	*name = xstrdup(colon + 1);
	if (sk_validate_dns1123_label(*ns) || sk_validate_dns1123_subdomain(*name)) {
		free(*ns);
		free(*name);
		return -1;
	}
	return 0;
}

static const char *header(const sk_api_request *req, const char *name)
{
	for (size_t i = 0; i < req->nimpersonate; i++)
		if (!strcasecmp(req->impersonate[i].key, name))
			return req->impersonate[i].value;
	return NULL;
}

/* Go's ObjectReference printed with %v: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath} */
static char *imp_format(const imp_list *l)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < l->n; i++) {
		const imp *m = &l->v[i];
		int authn = !strcmp(m->kind, "UserExtra") || !strcmp(m->kind, "UID");
		char *t = xasprintf("%s%s{%s %s %s  %s  %s}", s, i ? " " : "", m->kind, m->ns, m->name,
				    authn ? AUTHN_GROUP "/v1" : "", m->field_path);

		free(s);
		s = t;
	}
	return s;
}

/* upstream's buildImpersonationRequests: user, groups, extras, uid. */
static int build(const sk_api_request *req, imp_list *l, char **err)
{
	const char *user = header(req, "Impersonate-User"), *uid = header(req, "Impersonate-Uid");
	int has_user = user && *user, more = 0;
	char *ns, *name;

	if (has_user) {
		if (split_sa(user, &ns, &name) == 0) {
			imp_add(l, "ServiceAccount", ns, name, "");
			free(ns);
			free(name);
		} else {
			imp_add(l, "User", "", user, "");
		}
	}
	for (size_t i = 0; i < req->nimpersonate; i++)
		if (!strcasecmp(req->impersonate[i].key, "Impersonate-Group")) {
			imp_add(l, "Group", "", req->impersonate[i].value, "");
			more = 1;
		}
	for (size_t i = 0; i < req->nimpersonate; i++) {
		const char *k = req->impersonate[i].key;
		cleanup_free char *key = NULL;

		if (strncasecmp(k, EXTRA_PREFIX, strlen(EXTRA_PREFIX)))
			continue;
		key = xstrdup(k + strlen(EXTRA_PREFIX));
		for (char *c = key; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		MHD_http_unescape(key);
		imp_add(l, "UserExtra", "", req->impersonate[i].value, key);
		more = 1;
	}
	if (uid && *uid) {
		imp_add(l, "UID", "", uid, "");
		more = 1;
	}
	if (more && !has_user) {
		cleanup_free char *what = imp_format(l);

		*err = xasprintf("requested [%s] without impersonating a user", what);
		return -1;
	}
	return 0;
}

/* upstream's responsewriters.InternalError: plain text, HTML-escaped. */
static void internal_error(sk_api_response *resp, const char *path, const char *msg)
{
	cleanup_free char *raw = xasprintf("Internal Server Error: \"%s\": %s\n", path, msg);
	size_t n = 0, cap = strlen(raw) * 5 + 1;
	char *out = xmalloc(cap);

	for (const char *c = raw; *c; c++) {
		const char *rep = *c == '&'    ? "&amp;"
				  : *c == '<'  ? "&lt;"
				  : *c == '>'  ? "&gt;"
				  : *c == '"'  ? "&#34;"
				  : *c == '\'' ? "&#39;"
					       : NULL;

		if (rep) {
			memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			out[n++] = *c;
		}
	}
	sk__reply_raw(resp, 500, out, n);
	resp->content_type = "text/plain; charset=utf-8";
}

static void add_extra(json_t **extra, const char *key, const char *value)
{
	json_t *a;

	if (!*extra)
		*extra = json_object();
	a = json_object_get(*extra, key);
	if (!a) {
		a = json_array();
		json_object_set_new(*extra, key, a);
	}
	json_array_append_new(a, json_string(value));
}

/* Authorizes m for the requestor; 0, or -1 after replying 403. */
static int allowed(sk_api *api, const sk_api_request *req, const imp *m, sk_api_response *resp)
{
	sk_authz_attrs a = {.user = req->user, .verb = "impersonate", .resource_request = 1, .path = req->path};
	cleanup_free char *reason = NULL, *msg = NULL;

	a.api_group = "";
	a.api_version = "";
	a.subresource = "";
	a.ns = "";
	a.name = m->name;
	if (!strcmp(m->kind, "ServiceAccount")) {
		a.resource = "serviceaccounts";
		a.ns = m->ns;
	} else if (!strcmp(m->kind, "User")) {
		a.resource = "users";
	} else if (!strcmp(m->kind, "Group")) {
		a.resource = "groups";
	} else if (!strcmp(m->kind, "UserExtra")) {
		a.api_group = AUTHN_GROUP;
		a.api_version = "v1";
		a.resource = "userextras";
		a.subresource = m->field_path;
	} else {
		a.api_group = AUTHN_GROUP;
		a.api_version = "v1";
		a.resource = "uids";
	}
	if (sk__authorize(api, &a, &reason))
		return 0;
	msg = sk__authz_forbidden_message(&a, reason);
	sk__reply_status_for(resp, 403, "Forbidden", msg, a.api_group, a.resource, a.name, NULL);
	return -1;
}

/* system:authenticated unless a group asked for says authenticated or
 * unauthenticated; system:unauthenticated for system:anonymous. Appended
 * as upstream does (a group asked for twice stays twice). */
static void finish_groups(sk_user *u)
{
	const char *g = NULL;

	if (strcmp(u->name, SK_USER_ANONYMOUS)) {
		if (!sk_user_in_group(u, SK_GROUP_AUTHENTICATED) && !sk_user_in_group(u, SK_GROUP_UNAUTHENTICATED))
			g = SK_GROUP_AUTHENTICATED;
	} else if (!sk_user_in_group(u, SK_GROUP_UNAUTHENTICATED)) {
		g = SK_GROUP_UNAUTHENTICATED;
	}
	if (g) {
		u->groups = xrealloc(u->groups, (u->ngroups + 1) * sizeof(*u->groups));
		u->groups[u->ngroups++] = xstrdup(g);
	}
}

int sk__impersonate(sk_api *api, const sk_api_request *req, sk_user **as, sk_api_response *resp)
{
	imp_list l = {0};
	cleanup_free char *err = NULL, *username = NULL, *uid = NULL;
	int groups_given = header(req, "Impersonate-Group") != NULL, rc = -1;
	json_t *extra = NULL;
	char **groups = NULL;
	size_t ng = 0;

	*as = NULL;
	if (build(req, &l, &err) < 0) {
		internal_error(resp, req->path, err);
		goto out;
	}
	if (!l.n) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		const imp *m = &l.v[i];

		if (allowed(api, req, m, resp) < 0)
			goto out;
		if (!strcmp(m->kind, "ServiceAccount")) {
			free(username);
			username = xasprintf("system:serviceaccount:%s:%s", m->ns, m->name);
			if (!groups_given) {
				groups = xrealloc(groups, (ng + 2) * sizeof(*groups));
				groups[ng++] = xstrdup("system:serviceaccounts");
				groups[ng++] = xasprintf("system:serviceaccounts:%s", m->ns);
			}
		} else if (!strcmp(m->kind, "User")) {
			free(username);
			username = xstrdup(m->name);
		} else if (!strcmp(m->kind, "Group")) {
			groups = xrealloc(groups, (ng + 1) * sizeof(*groups));
			groups[ng++] = xstrdup(m->name);
		} else if (!strcmp(m->kind, "UserExtra")) {
			add_extra(&extra, m->field_path, m->name);
		} else {
			free(uid);
			uid = xstrdup(m->name);
		}
	}
	*as = xzalloc(sizeof(**as));
	(*as)->name = steal_ptr(&username);
	(*as)->uid = uid ? steal_ptr(&uid) : xstrdup("");
	(*as)->groups = steal_ptr(&groups);
	(*as)->ngroups = ng;
	(*as)->extra = extra;
	extra = NULL;
	finish_groups(*as);
	rc = 1;
out:
	for (size_t i = 0; groups && i < ng; i++)
		free(groups[i]);
	free(groups);
	json_decref(extra);
	imp_release(&l);
	return rc;
}
