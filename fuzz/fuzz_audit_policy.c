/* The audit policy reader (YAML through libyaml, or JSON): any input is a
 * policy or an error, never a crash; a policy it accepts is evaluated for a
 * few requests. */
#include <stddef.h>
#include <stdint.h>

#include "api/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *groups[] = {"system:masters", "system:authenticated"};
	static const sk_user u = {.name = "system:admin", .uid = "", .groups = groups, .ngroups = 2};
	sk_error_t err = {0};
	json_t *p = sk_audit_policy_parse((const char *)data, size, &err);
	sk_audit_attrs res = {.user = &u,
			      .verb = "get",
			      .resource_request = 1,
			      .group = "apps",
			      .resource = "deployments",
			      .subresource = "scale",
			      .ns = "default",
			      .name = "d"};
	sk_audit_attrs path = {.user = NULL, .verb = "get", .path = "/healthz/ping"};
	unsigned omit;

	if (!p)
		return 0;
	sk_audit_policy_level(p, &res, &omit);
	sk_audit_policy_level(p, &path, &omit);
	json_decref(p);
	return 0;
}
