/* Service environment variables (kube/envvars.h). */
#include "kube/envvars.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kube/object.h"
#include "util/util.h"

int sk_kube_service_ip_set(json_t *svc)
{
	const char *ip = sk_kube_jstr(svc, "spec.clusterIP");

	return ip && *ip && strcmp(ip, "None");
}

/* makeEnvVariableName: upper case, '-' as '_' */
static char *env_name(const char *s)
{
	char *out = xstrdup(s ? s : "");

	for (char *p = out; *p; p++)
		*p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	return out;
}

static char *lower(const char *s)
{
	char *out = xstrdup(s ? s : "");

	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static void set(json_t *env, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(json_t *env, const char *name, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_set_new(env, name, json_string(buf));
}

void sk_kube_service_env(json_t *svc, json_t *env)
{
	cleanup_free char *prefix = env_name(sk_kube_jstr(svc, "metadata.name"));
	const char *ip = sk_kube_jstr(svc, "spec.clusterIP");
	json_t *ports = sk_kube_jget(svc, "spec.ports"), *p;
	char name[400];
	size_t i;

	if (!sk_kube_service_ip_set(svc))
		return;
	snprintf(name, sizeof(name), "%s_SERVICE_HOST", prefix);
	set(env, name, "%s", ip);
	json_array_foreach(ports, i, p) {
		json_int_t port = json_integer_value(json_object_get(p, "port"));
		const char *pname = sk_kube_jstr(p, "name");
		const char *proto = sk_kube_jstr(p, "protocol") ? sk_kube_jstr(p, "protocol") : "TCP";
		cleanup_free char *lproto = lower(proto);
		cleanup_free char *uproto = env_name(proto);
		char pp[400];

		if (i == 0) {
			snprintf(name, sizeof(name), "%s_SERVICE_PORT", prefix);
			set(env, name, "%lld", (long long)port);
			snprintf(name, sizeof(name), "%s_PORT", prefix);
			set(env, name, "%s://%s:%lld", lproto, ip, (long long)port);
		}
		if (pname && *pname) {
			cleanup_free char *up = env_name(pname);

			snprintf(name, sizeof(name), "%s_SERVICE_PORT_%s", prefix, up);
			set(env, name, "%lld", (long long)port);
		}
		snprintf(pp, sizeof(pp), "%s_PORT_%lld_%s", prefix, (long long)port, uproto);
		set(env, pp, "%s://%s:%lld", lproto, ip, (long long)port);
		snprintf(name, sizeof(name), "%s_PROTO", pp);
		set(env, name, "%s", lproto);
		snprintf(name, sizeof(name), "%s_PORT", pp);
		set(env, name, "%lld", (long long)port);
		snprintf(name, sizeof(name), "%s_ADDR", pp);
		set(env, name, "%s", ip);
	}
}

json_t *sk_kube_pod_service_env(json_t *services, const char *ns, int enable_links)
{
	json_t *picked = json_object(), *env = json_object(), *s, *v;
	const char *k;
	size_t i;

	json_array_foreach(services, i, s) {
		const char *sns = sk_kube_jstr(s, "metadata.namespace"), *name = sk_kube_jstr(s, "metadata.name");

		if (!name || !sk_kube_service_ip_set(s))
			continue;
		if (sns && !strcmp(sns, "default") && !strcmp(name, "kubernetes")) {
			if (!json_object_get(picked, name))
				json_object_set(picked, name, s);
		} else if (enable_links && sns && ns && !strcmp(sns, ns)) {
			json_object_set(picked, name, s);
		}
	}
	json_object_foreach(picked, k, v)
		sk_kube_service_env(v, env);
	json_decref(picked);
	return env;
}
