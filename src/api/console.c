#include <string.h>

#include "api/console.h"

int sk_console_path(const char *url)
{
	size_t n = strlen(SK_CONSOLE_PREFIX);

	return !strncmp(url, SK_CONSOLE_PREFIX, n) && (url[n] == '\0' || url[n] == '/');
}

int sk_console_lookup(const char *url, const char *method, const sk_console_asset **asset, const char **location)
{
	const char *name = url + strlen(SK_CONSOLE_PREFIX);

	*asset = NULL;
	*location = NULL;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return 405;
	if (*name == '\0') {
		*location = SK_CONSOLE_PREFIX "/";
		return 301;
	}
	name++;
	if (*name == '\0')
		name = "index.html";
	for (const sk_console_asset *a = sk__console_assets; a->name; a++) {
		if (!strcmp(a->name, name)) {
			*asset = a;
			return 200;
		}
	}
	return 404;
}
