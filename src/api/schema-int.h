/* Private to the schema module: table-building macros and the sub-schemas
 * shared between the schema-*.c data files. */
#ifndef SK_API_SCHEMA_INT_H
#define SK_API_SCHEMA_INT_H

#include "api/schema.h"

#define F(n, s) \
	{ \
		n, &(s), 0, NULL \
	}
#define R(n, s) \
	{ \
		n, &(s), SK_FIELD_REQUIRED, NULL \
	}
#define FD(n, s, d) \
	{ \
		n, &(s), 0, d \
	}
#define RD(n, s, d) \
	{ \
		n, &(s), SK_FIELD_REQUIRED, d \
	}
#define END \
	{ \
		NULL, NULL, 0, NULL \
	}

#define CORE(n) "io.k8s.api.core.v1." n
#define META(n) "io.k8s.apimachinery.pkg.apis.meta.v1." n

/* An object type named nm whose fields are the array var##_f. */
#define OBJ(var, nm) static const sk_schema var = {.type = SK_SCHEMA_OBJECT, .name = nm, .fields = var##_f}
#define DOBJ(var, nm, d) \
	static const sk_schema var = {.type = SK_SCHEMA_OBJECT, .name = nm, .doc = d, .fields = var##_f}
/* A top-level kind. */
#define KIND(var, g, v, k, nm, d) \
	const sk_schema var = {.type = SK_SCHEMA_OBJECT, \
			       .name = nm, \
			       .doc = d, \
			       .fields = var##_f, \
			       .group = g, \
			       .version = v, \
			       .kind = k}
#define ARR(var, it) static const sk_schema var = {.type = SK_SCHEMA_ARRAY, .items = &(it), .list_type = "atomic"}
#define SET(var, it) static const sk_schema var = {.type = SK_SCHEMA_ARRAY, .items = &(it), .list_type = "set"}
/* A list merged by key mk (strategic merge) and keyed by keys (apply). */
#define LMAP(var, it, mk, keys) \
	static const sk_schema var = {.type = SK_SCHEMA_ARRAY, \
				      .items = &(it), \
				      .merge_key = mk, \
				      .patch_strategy = "merge", \
				      .list_type = "map", \
				      .list_map_keys = keys}
/* An atomic list that strategic merge still merges by mk. */
#define MERGED(var, it, mk) \
	static const sk_schema var = {.type = SK_SCHEMA_ARRAY, \
				      .items = &(it), \
				      .merge_key = mk, \
				      .patch_strategy = "merge", \
				      .list_type = "atomic"}
#define MAPOF(var, it) static const sk_schema var = {.type = SK_SCHEMA_MAP, .items = &(it)}

/* Primitives and shared sub-schemas (schema-meta.c, schema-core.c). */
extern const sk_schema sk__str, sk__byte, sk__i32, sk__i64, sk__bool, sk__num, sk__any;
extern const sk_schema sk__intstr, sk__quantity, sk__time, sk__microtime;
extern const sk_schema sk__strs, sk__strset, sk__str_map, sk__quantity_map;
extern const sk_schema sk__object_meta, sk__list_meta, sk__label_selector, sk__delete_options;
extern const sk_schema sk__meta_condition, sk__meta_conditions;
extern const sk_schema sk__object_reference, sk__local_object_reference;
extern const sk_schema sk__pod_template_spec, sk__tolerations, sk__node_selector_map;
extern const sk_schema sk__node_selector, sk__typed_local_object_reference;

extern const char *const sk__keys_name[], *const sk__keys_type[];

/* Kinds (one per data file group). */
extern const sk_schema sk__status, sk__table;
extern const sk_schema sk__hpa_v2, sk__hpa_v1;
extern const sk_schema sk__namespace, sk__pod, sk__binding, sk__eviction, sk__node, sk__event, sk__configmap,
	sk__secret, sk__service, sk__endpoints, sk__serviceaccount, sk__resourcequota, sk__limitrange, sk__pv, sk__pvc;
extern const sk_schema sk__storageclass, sk__deployment, sk__replicaset, sk__daemonset, sk__statefulset,
	sk__controllerrevision, sk__scale, sk__job, sk__cronjob, sk__lease, sk__runtimeclass, sk__priorityclass,
	sk__podgroup, sk__endpointslice, sk__networkpolicy, sk__csr;
extern const sk_schema sk__role, sk__clusterrole, sk__rolebinding, sk__clusterrolebinding, sk__sar, sk__lsar, sk__ssar,
	sk__ssrr;
extern const sk_schema sk__replicationcontroller, sk__pdb;
extern const sk_schema sk__mutatingwebhookconfiguration, sk__validatingwebhookconfiguration;
extern const sk_schema sk__validatingadmissionpolicy, sk__validatingadmissionpolicybinding;

#endif
