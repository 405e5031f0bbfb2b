/* libFuzzer target for etcd's replies as the etcd backend reads them
 * (store/etcd-int.h): the first byte picks the message, the rest is its
 * protobuf, decoded by protobuf-c and turned into skiff's events and
 * key-values (a WatchResponse of the watch stream, a RangeResponse of a
 * list, a TxnResponse of a write). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/etcd-int.h"

static void kvs(Mvccpb__KeyValue **kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sk_store_kv out;

		if (sk__etcd_kv(kv[i], "/registry", &out) < 0)
			continue;
		/* keys keep no root; values are NUL-terminated */
		if (out.value[out.len] != '\0')
			__builtin_trap();
		sk_store_kv_release(&out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0: {
		sk__etcd_wmsg m;
		sk_error_t err = {0};

		if (sk__etcd_wmsg_decode(data + 1, size - 1, "/registry", &m, &err) == 0) {
			for (size_t i = 0; i < m.n; i++)
				if (m.events[i].val->data[m.events[i].val->len] != '\0' || m.events[i].rev <= 0)
					__builtin_trap();
			sk__etcd_wmsg_release(&m);
		}
		break;
	}
	case 1: {
		Etcdserverpb__RangeResponse *r = etcdserverpb__range_response__unpack(NULL, size - 1, data + 1);

		if (r) {
			kvs(r->kvs, r->n_kvs);
			etcdserverpb__range_response__free_unpacked(r, NULL);
		}
		break;
	}
	default: {
		Etcdserverpb__TxnResponse *r = etcdserverpb__txn_response__unpack(NULL, size - 1, data + 1);

		if (!r)
			break;
		for (size_t i = 0; i < r->n_responses; i++) {
			const Etcdserverpb__ResponseOp *op = r->responses[i];

			if (op->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE)
				kvs(op->response_range->kvs, op->response_range->n_kvs);
			else if (op->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_DELETE_RANGE)
				kvs(op->response_delete_range->prev_kvs, op->response_delete_range->n_prev_kvs);
		}
		etcdserverpb__txn_response__free_unpacked(r, NULL);
		break;
	}
	}
	return 0;
}
