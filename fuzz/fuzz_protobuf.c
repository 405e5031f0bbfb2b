/* Kubernetes protobuf bodies: any input must decode or fail cleanly. The
 * first input byte picks a kind, so mutations explore the type tables even
 * when the envelope stays fixed: input 'k' means "use the rest as a whole
 * body", other bytes wrap the rest as the raw object of a known kind. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/protobuf.h"

static const char *const kinds[][2] = {
	{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"batch/v1", "Job"}, {"batch/v1", "CronJob"},
	{"v1", "Secret"}, {"v1", "ConfigMap"}, {"v1", "Service"}, {"v1", "Node"},
	{"v1", "PersistentVolume"}, {"v1", "PersistentVolumeClaim"}, {"v1", "Event"}, {"v1", "List"},
	{"coordination.k8s.io/v1", "Lease"}, {"policy/v1", "Eviction"}, {"storage.k8s.io/v1", "StorageClass"},
	{"v1", "ResourceQuota"},
};

static size_t put_len(uint8_t *p, size_t n)
{
	size_t i = 0;

	do {
		p[i] = (uint8_t)(n & 0x7f);
		n >>= 7;
		if (n)
			p[i] |= 0x80;
		i++;
	} while (n);
	return i;
}

static void decode(const uint8_t *buf, size_t len)
{
	sk_error_t err = {0};
	json_t *j = sk_protobuf_decode(buf, len, &err);

	if (j) {
		char *s = json_dumps(j, JSON_COMPACT);

		free(s);
		json_decref(j);
	} else if (err.code != SK_EBADREQUEST) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *k;
	size_t avl, kl, tml, n = 0;
	uint8_t *buf;

	if (!size)
		return 0;
	if (data[0] == 'k') {
		decode(data + 1, size - 1);
		return 0;
	}
	k = kinds[data[0] % (sizeof(kinds) / sizeof(kinds[0]))];
	avl = strlen(k[0]);
	kl = strlen(k[1]);
	tml = 2 + avl + 2 + kl;
	buf = malloc(4 + 2 + tml + 1 + 10 + size);
	memcpy(buf, "k8s\0", 4);
	n = 4;
	buf[n++] = 0x0a;
	buf[n++] = (uint8_t)tml;
	buf[n++] = 0x0a;
	buf[n++] = (uint8_t)avl;
	memcpy(buf + n, k[0], avl);
	n += avl;
	buf[n++] = 0x12;
	buf[n++] = (uint8_t)kl;
	memcpy(buf + n, k[1], kl);
	n += kl;
	buf[n++] = 0x12;
	n += put_len(buf + n, size - 1);
	memcpy(buf + n, data + 1, size - 1);
	n += size - 1;
	decode(buf, n);
	free(buf);
	return 0;
}
