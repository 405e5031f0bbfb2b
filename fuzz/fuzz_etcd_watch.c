/* libFuzzer target for the etcd backend's watch stream (store/etcd-int.h):
 * the input is cut into chunks as the network might deliver it, split into
 * lines and each line parsed as a gateway watch message. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/etcd-int.h"

static int on_line(const char *line, size_t len, void *ud)
{
	size_t *events = ud;
	sk__etcd_wmsg m;
	sk_error_t err = {0};

	if (sk__etcd_wmsg_parse(line, len, "/registry", &m, &err) == 0) {
		for (size_t i = 0; i < m.n; i++) {
			/* keys keep no root; values are NUL-terminated */
			if (m.events[i].val->data[m.events[i].val->len] != '\0' || m.events[i].rev <= 0)
				__builtin_trap();
			*events += m.events[i].key->len;
		}
		sk__etcd_wmsg_release(&m);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sk__etcd_lines lines = {0};
	size_t events = 0, chunk = size ? (size_t)data[0] % 17 + 1 : 1;

	for (size_t i = 0; i < size; i += chunk)
		sk__etcd_lines_feed(&lines, (const char *)data + i, i + chunk < size ? chunk : size - i, on_line, &events);
	sk__etcd_lines_release(&lines);
	return 0;
}
