/* Fuzzes the API server's request entry point: any method, path, query,
 * content type and body must give a Status or an object, never a crash,
 * leak or hang. Input: "METHOD\nPATH\nQUERY\nCONTENT-TYPE\nBODY". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "util/util.h"

static sk_api *api;
static sk_store *store;

static void setup(void)
{
	char dir[] = "/tmp/skiff-fuzz-api-XXXXXX";
	sk_store_options o = {.min_history_secs = -1, .max_history_events = 1000};
	sk_error_t err = {0};
	char *uri;

	if (!mkdtemp(dir))
		abort();
	uri = xasprintf("sqlite://%s", dir);
	store = sk_store_open(uri, &o, &err);
	free(uri);
	if (!store)
		abort();
	api = sk_api_new(store, NULL, &err);
	if (!api)
		abort();
}

static char *next_line(const char **p, const char *end)
{
	const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
	size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

	*p = nl ? nl + 1 : end;
	return xstrndup(s, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char *method, *path, *query, *ctype;
	sk_api_request req = {0};
	sk_api_response resp;
	sk_api_arg args[8];
	size_t nargs = 0;

	if (!api)
		setup();
	method = next_line(&p, end);
	path = next_line(&p, end);
	query = next_line(&p, end);
	ctype = next_line(&p, end);
	/* one key=value argument per '&' (at most 8), as HTTP would decode them */
	for (char *q = query; *q && nargs < 8;) {
		char *amp = strchr(q, '&'), *eq;

		if (amp)
			*amp = '\0';
		eq = strchr(q, '=');
		if (eq)
			*eq = '\0';
		args[nargs].key = q;
		args[nargs++].value = eq ? eq + 1 : "";
		if (!amp)
			break;
		q = amp + 1;
	}
	/* watches would block; the watch path has its own tests */
	for (size_t i = 0; i < nargs; i++)
		if (!strcmp(args[i].key, "watch"))
			args[i].key = "nowatch";
	req.method = method;
	req.path = path;
	req.args = args;
	req.nargs = nargs;
	req.content_type = *ctype ? ctype : NULL;
	req.body = p;
	req.body_len = (size_t)(end - p);
	req.user = sk_user_apiserver();
	req.accept = (size & 1) ? "application/json;as=Table;v=v1;g=meta.k8s.io" : NULL;
	sk_api_handle(api, &req, &resp);
	if (resp.watch)
		sk_api_watch_free(resp.watch);
	sk_api_response_release(&resp);
	free(method);
	free(path);
	free(query);
	free(ctype);
	return 0;
}
