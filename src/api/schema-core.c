/* Schema data: core/v1 types (Pod and its parts, Node, Namespace, Service,
 * ConfigMap, Secret, Event, Endpoints, ServiceAccount, ResourceQuota,
 * PersistentVolume(Claim)) and policy/v1 Eviction. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

static const char *const keys_port_proto[] = {"containerPort", "protocol", NULL};
static const char *const keys_svc_port[] = {"port", "protocol", NULL};
static const char *const keys_mount[] = {"mountPath", NULL};
static const char *const keys_device[] = {"devicePath", NULL};
static const char *const keys_ip[] = {"ip", NULL};
static const char *const keys_spread[] = {"topologyKey", "whenUnsatisfiable", NULL};
static const char *const keys_resource[] = {"resourceName", NULL};

static const sk_schema_field sk__local_object_reference_f[] = {F("name", sk__str), END};
const sk_schema sk__local_object_reference = {.type = SK_SCHEMA_OBJECT,
					      .name = CORE("LocalObjectReference"),
					      .fields = sk__local_object_reference_f,
					      .doc = "LocalObjectReference contains enough information to let you "
						     "locate the referenced object inside the same namespace."};
static const sk_schema_field sk__object_reference_f[] = {
	F("apiVersion", sk__str), F("fieldPath", sk__str),       F("kind", sk__str), F("name", sk__str),
	F("namespace", sk__str),  F("resourceVersion", sk__str), F("uid", sk__str),  END};
const sk_schema sk__object_reference = {
	.type = SK_SCHEMA_OBJECT,
	.name = CORE("ObjectReference"),
	.fields = sk__object_reference_f,
	.doc = "ObjectReference contains enough information to let you inspect or modify the referred object."};
static const sk_schema_field sk__typed_local_object_reference_f[] = {F("apiGroup", sk__str), R("kind", sk__str),
								     R("name", sk__str), END};
const sk_schema sk__typed_local_object_reference = {.type = SK_SCHEMA_OBJECT,
						    .name = CORE("TypedLocalObjectReference"),
						    .fields = sk__typed_local_object_reference_f};
const sk_schema sk__node_selector_map = {.type = SK_SCHEMA_MAP, .items = &sk__str};
static const sk_schema i64s = {.type = SK_SCHEMA_ARRAY, .items = &sk__i64, .list_type = "atomic"};

/* ---- env ---- */
static const sk_schema_field field_sel_f[] = {F("apiVersion", sk__str), R("fieldPath", sk__str), END};
DOBJ(field_sel, CORE("ObjectFieldSelector"), "ObjectFieldSelector selects an APIVersioned field of an object.");
static const sk_schema_field res_sel_f[] = {F("containerName", sk__str), F("divisor", sk__quantity),
					    R("resource", sk__str), END};
DOBJ(res_sel, CORE("ResourceFieldSelector"),
     "ResourceFieldSelector represents container resources (cpu, memory) and their output format");
static const sk_schema_field cm_key_f[] = {R("key", sk__str), F("name", sk__str), F("optional", sk__bool), END};
DOBJ(cm_key, CORE("ConfigMapKeySelector"), "Selects a key from a ConfigMap.");
static const sk_schema_field secret_key_f[] = {R("key", sk__str), F("name", sk__str), F("optional", sk__bool), END};
DOBJ(secret_key, CORE("SecretKeySelector"), "SecretKeySelector selects a key of a Secret.");
static const sk_schema_field env_src_f[] = {F("configMapKeyRef", cm_key), F("fieldRef", field_sel),
					    F("resourceFieldRef", res_sel), F("secretKeyRef", secret_key), END};
DOBJ(env_src, CORE("EnvVarSource"), "EnvVarSource represents a source for the value of an EnvVar.");
static const sk_schema_field env_f[] = {
	RD("name", sk__str, "Name of the environment variable. Must be a C_IDENTIFIER."), F("value", sk__str),
	F("valueFrom", env_src), END};
DOBJ(env, CORE("EnvVar"), "EnvVar represents an environment variable present in a Container.");
LMAP(envs, env, "name", sk__keys_name);
static const sk_schema_field cm_env_f[] = {F("name", sk__str), F("optional", sk__bool), END};
OBJ(cm_env, CORE("ConfigMapEnvSource"));
static const sk_schema_field secret_env_f[] = {F("name", sk__str), F("optional", sk__bool), END};
OBJ(secret_env, CORE("SecretEnvSource"));
static const sk_schema_field env_from_f[] = {F("configMapRef", cm_env), F("prefix", sk__str),
					     F("secretRef", secret_env), END};
DOBJ(env_from, CORE("EnvFromSource"), "EnvFromSource represents the source of a set of ConfigMaps or Secrets");
ARR(env_froms, env_from);

/* ---- ports, resources, mounts ---- */
static const sk_schema_field cport_f[] = {R("containerPort", sk__i32), F("hostIP", sk__str),   F("hostPort", sk__i32),
					  F("name", sk__str),          F("protocol", sk__str), END};
DOBJ(cport, CORE("ContainerPort"), "ContainerPort represents a network port in a single container.");
LMAP(cports, cport, "containerPort", keys_port_proto);
static const sk_schema_field claim_f[] = {R("name", sk__str), F("request", sk__str), END};
OBJ(claim, CORE("ResourceClaim"));
LMAP(claims, claim, NULL, sk__keys_name);
static const sk_schema_field resources_f[] = {F("claims", claims), F("limits", sk__quantity_map),
					      F("requests", sk__quantity_map), END};
DOBJ(resources, CORE("ResourceRequirements"), "ResourceRequirements describes the compute resource requirements.");
static const sk_schema_field resize_f[] = {R("resourceName", sk__str), R("restartPolicy", sk__str), END};
OBJ(resize, CORE("ContainerResizePolicy"));
static const sk_schema resizes = {
	.type = SK_SCHEMA_ARRAY, .items = &resize, .list_type = "atomic", .list_map_keys = keys_resource};
static const sk_schema_field mount_f[] = {R("mountPath", sk__str),
					  F("mountPropagation", sk__str),
					  R("name", sk__str),
					  F("readOnly", sk__bool),
					  F("recursiveReadOnly", sk__str),
					  F("subPath", sk__str),
					  F("subPathExpr", sk__str),
					  END};
DOBJ(mount, CORE("VolumeMount"), "VolumeMount describes a mounting of a Volume within a container.");
LMAP(mounts, mount, "mountPath", keys_mount);
static const sk_schema_field device_f[] = {R("devicePath", sk__str), R("name", sk__str), END};
OBJ(device, CORE("VolumeDevice"));
LMAP(devices, device, "devicePath", keys_device);

/* ---- probes and lifecycle ---- */
static const sk_schema_field exec_action_f[] = {F("command", sk__strs), END};
DOBJ(exec_action, CORE("ExecAction"), "ExecAction describes a \"run in container\" action.");
static const sk_schema_field header_f[] = {R("name", sk__str), R("value", sk__str), END};
OBJ(header, CORE("HTTPHeader"));
ARR(headers, header);
static const sk_schema_field http_get_f[] = {F("host", sk__str),    F("httpHeaders", headers), F("path", sk__str),
					     R("port", sk__intstr), F("scheme", sk__str),      END};
DOBJ(http_get, CORE("HTTPGetAction"), "HTTPGetAction describes an action based on HTTP Get requests.");
static const sk_schema_field tcp_f[] = {F("host", sk__str), R("port", sk__intstr), END};
DOBJ(tcp, CORE("TCPSocketAction"), "TCPSocketAction describes an action based on opening a socket");
static const sk_schema_field grpc_f[] = {R("port", sk__i32), F("service", sk__str), END};
OBJ(grpc, CORE("GRPCAction"));
static const sk_schema_field sleep_action_f[] = {R("seconds", sk__i64), END};
DOBJ(sleep_action, CORE("SleepAction"), "SleepAction describes a \"sleep\" action.");
static const sk_schema_field probe_f[] = {
	F("exec", exec_action),
	FD("failureThreshold", sk__i32,
	   "Minimum consecutive failures for the probe to be considered failed after having succeeded. Defaults to 3. "
	   "Minimum value is 1."),
	F("grpc", grpc),
	F("httpGet", http_get),
	F("initialDelaySeconds", sk__i32),
	FD("periodSeconds", sk__i32,
	   "How often (in seconds) to perform the probe. Default to 10 seconds. Minimum value is 1."),
	F("successThreshold", sk__i32),
	F("tcpSocket", tcp),
	F("terminationGracePeriodSeconds", sk__i64),
	FD("timeoutSeconds", sk__i32,
	   "Number of seconds after which the probe times out. Defaults to 1 second. Minimum value is 1."),
	END};
DOBJ(probe, CORE("Probe"),
     "Probe describes a health check to be performed against a container to determine whether it is alive or ready to "
     "receive traffic.");
static const sk_schema_field handler_f[] = {F("exec", exec_action), F("httpGet", http_get), F("sleep", sleep_action),
					    F("tcpSocket", tcp), END};
DOBJ(handler, CORE("LifecycleHandler"),
     "LifecycleHandler defines a specific action that should be taken in a lifecycle hook.");
static const sk_schema_field lifecycle_f[] = {F("postStart", handler), F("preStop", handler), END};
DOBJ(lifecycle, CORE("Lifecycle"),
     "Lifecycle describes actions that the management system should take in response to container lifecycle events.");

/* ---- security ---- */
static const sk_schema_field caps_f[] = {F("add", sk__strs), F("drop", sk__strs), END};
OBJ(caps, CORE("Capabilities"));
static const sk_schema_field selinux_f[] = {F("level", sk__str), F("role", sk__str), F("type", sk__str),
					    F("user", sk__str), END};
OBJ(selinux, CORE("SELinuxOptions"));
static const sk_schema_field seccomp_f[] = {F("localhostProfile", sk__str), R("type", sk__str), END};
OBJ(seccomp, CORE("SeccompProfile"));
static const sk_schema_field apparmor_f[] = {F("localhostProfile", sk__str), R("type", sk__str), END};
OBJ(apparmor, CORE("AppArmorProfile"));
static const sk_schema_field sc_f[] = {F("allowPrivilegeEscalation", sk__bool),
				       F("appArmorProfile", apparmor),
				       F("capabilities", caps),
				       F("privileged", sk__bool),
				       F("procMount", sk__str),
				       F("readOnlyRootFilesystem", sk__bool),
				       F("runAsGroup", sk__i64),
				       F("runAsNonRoot", sk__bool),
				       F("runAsUser", sk__i64),
				       F("seLinuxOptions", selinux),
				       F("seccompProfile", seccomp),
				       END};
DOBJ(sc, CORE("SecurityContext"), "SecurityContext holds security configuration that will be applied to a container.");
static const sk_schema_field sysctl_f[] = {R("name", sk__str), R("value", sk__str), END};
OBJ(sysctl, CORE("Sysctl"));
ARR(sysctls, sysctl);
static const sk_schema_field psc_f[] = {F("appArmorProfile", apparmor),
					F("fsGroup", sk__i64),
					F("fsGroupChangePolicy", sk__str),
					F("runAsGroup", sk__i64),
					F("runAsNonRoot", sk__bool),
					F("runAsUser", sk__i64),
					F("seLinuxChangePolicy", sk__str),
					F("seLinuxOptions", selinux),
					F("seccompProfile", seccomp),
					F("supplementalGroups", i64s),
					F("supplementalGroupsPolicy", sk__str),
					F("sysctls", sysctls),
					END};
DOBJ(psc, CORE("PodSecurityContext"),
     "PodSecurityContext holds pod-level security attributes and common container settings.");

/* ---- container ---- */
static const sk_schema_field container_f[] = {
	FD("args", sk__strs, "Arguments to the entrypoint."),
	FD("command", sk__strs, "Entrypoint array. Not executed within a shell."),
	F("env", envs),
	F("envFrom", env_froms),
	FD("image", sk__str, "Container image name."),
	FD("imagePullPolicy", sk__str,
	   "Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or "
	   "IfNotPresent otherwise."),
	F("lifecycle", lifecycle),
	F("livenessProbe", probe),
	RD("name", sk__str,
	   "Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name "
	   "(DNS_LABEL)."),
	F("ports", cports),
	F("readinessProbe", probe),
	F("resizePolicy", resizes),
	FD("resources", resources, "Compute Resources required by this container."),
	FD("restartPolicy", sk__str,
	   "RestartPolicy defines the restart behavior of individual containers in a pod. This field may only be set "
	   "for init containers, and the only allowed value is \"Always\"."),
	F("securityContext", sc),
	F("startupProbe", probe),
	F("stdin", sk__bool),
	F("stdinOnce", sk__bool),
	F("terminationMessagePath", sk__str),
	F("terminationMessagePolicy", sk__str),
	F("tty", sk__bool),
	F("volumeDevices", devices),
	F("volumeMounts", mounts),
	F("workingDir", sk__str),
	END};
DOBJ(container, CORE("Container"), "A single application container that you want to run within a pod.");
LMAP(containers, container, "name", sk__keys_name);
static const sk_schema_field ephemeral_f[] = {F("args", sk__strs),
					      F("command", sk__strs),
					      F("env", envs),
					      F("envFrom", env_froms),
					      F("image", sk__str),
					      F("imagePullPolicy", sk__str),
					      F("lifecycle", lifecycle),
					      F("livenessProbe", probe),
					      R("name", sk__str),
					      F("ports", cports),
					      F("readinessProbe", probe),
					      F("resizePolicy", resizes),
					      F("resources", resources),
					      F("restartPolicy", sk__str),
					      F("securityContext", sc),
					      F("startupProbe", probe),
					      F("stdin", sk__bool),
					      F("stdinOnce", sk__bool),
					      F("targetContainerName", sk__str),
					      F("terminationMessagePath", sk__str),
					      F("terminationMessagePolicy", sk__str),
					      F("tty", sk__bool),
					      F("volumeDevices", devices),
					      F("volumeMounts", mounts),
					      F("workingDir", sk__str),
					      END};
DOBJ(ephemeral, CORE("EphemeralContainer"),
     "An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities "
     "such as debugging.");
LMAP(ephemerals, ephemeral, "name", sk__keys_name);

/* ---- volumes ---- */
static const sk_schema_field key_path_f[] = {R("key", sk__str), F("mode", sk__i32), R("path", sk__str), END};
DOBJ(key_path, CORE("KeyToPath"), "Maps a string key to a path within a volume.");
ARR(key_paths, key_path);
static const sk_schema_field host_path_f[] = {R("path", sk__str), F("type", sk__str), END};
DOBJ(host_path, CORE("HostPathVolumeSource"), "Represents a host path mapped into a pod.");
static const sk_schema_field empty_dir_f[] = {F("medium", sk__str), F("sizeLimit", sk__quantity), END};
DOBJ(empty_dir, CORE("EmptyDirVolumeSource"), "Represents an empty directory for a pod.");
static const sk_schema_field secret_vol_f[] = {F("defaultMode", sk__i32), F("items", key_paths),
					       F("optional", sk__bool), F("secretName", sk__str), END};
DOBJ(secret_vol, CORE("SecretVolumeSource"), "Adapts a Secret into a volume.");
static const sk_schema_field cm_vol_f[] = {F("defaultMode", sk__i32), F("items", key_paths), F("name", sk__str),
					   F("optional", sk__bool), END};
DOBJ(cm_vol, CORE("ConfigMapVolumeSource"), "Adapts a ConfigMap into a volume.");
static const sk_schema_field pvc_vol_f[] = {R("claimName", sk__str), F("readOnly", sk__bool), END};
OBJ(pvc_vol, CORE("PersistentVolumeClaimVolumeSource"));
static const sk_schema_field dapi_file_f[] = {F("fieldRef", field_sel), F("mode", sk__i32), R("path", sk__str),
					      F("resourceFieldRef", res_sel), END};
OBJ(dapi_file, CORE("DownwardAPIVolumeFile"));
ARR(dapi_files, dapi_file);
static const sk_schema_field dapi_vol_f[] = {F("defaultMode", sk__i32), F("items", dapi_files), END};
DOBJ(dapi_vol, CORE("DownwardAPIVolumeSource"),
     "DownwardAPIVolumeSource represents a volume containing downward API info.");
static const sk_schema_field secret_proj_f[] = {F("items", key_paths), F("name", sk__str), F("optional", sk__bool),
						END};
OBJ(secret_proj, CORE("SecretProjection"));
static const sk_schema_field cm_proj_f[] = {F("items", key_paths), F("name", sk__str), F("optional", sk__bool), END};
OBJ(cm_proj, CORE("ConfigMapProjection"));
static const sk_schema_field dapi_proj_f[] = {F("items", dapi_files), END};
OBJ(dapi_proj, CORE("DownwardAPIProjection"));
static const sk_schema_field sa_token_f[] = {F("audience", sk__str), F("expirationSeconds", sk__i64),
					     R("path", sk__str), END};
OBJ(sa_token, CORE("ServiceAccountTokenProjection"));
static const sk_schema_field projection_f[] = {F("configMap", cm_proj), F("downwardAPI", dapi_proj),
					       F("secret", secret_proj), F("serviceAccountToken", sa_token), END};
OBJ(projection, CORE("VolumeProjection"));
ARR(projections, projection);
static const sk_schema_field projected_f[] = {F("defaultMode", sk__i32), F("sources", projections), END};
DOBJ(projected, CORE("ProjectedVolumeSource"), "Represents a projected volume source");
static const sk_schema_field nfs_f[] = {R("path", sk__str), F("readOnly", sk__bool), R("server", sk__str), END};
OBJ(nfs, CORE("NFSVolumeSource"));
static const sk_schema_field image_vol_f[] = {F("pullPolicy", sk__str), F("reference", sk__str), END};
OBJ(image_vol, CORE("ImageVolumeSource"));
static const sk_schema_field volume_f[] = {
	F("configMap", cm_vol),
	F("downwardAPI", dapi_vol),
	F("emptyDir", empty_dir),
	F("hostPath", host_path),
	F("image", image_vol),
	RD("name", sk__str, "name of the volume. Must be a DNS_LABEL and unique within the pod."),
	F("nfs", nfs),
	F("persistentVolumeClaim", pvc_vol),
	F("projected", projected),
	F("secret", secret_vol),
	END};
DOBJ(volume, CORE("Volume"),
     "Volume represents a named volume in a pod that may be accessed by any container in the pod.");
static const sk_schema volumes = {.type = SK_SCHEMA_ARRAY,
				  .items = &volume,
				  .merge_key = "name",
				  .patch_strategy = "merge,retainKeys",
				  .list_type = "map",
				  .list_map_keys = sk__keys_name};

/* ---- scheduling ---- */
static const sk_schema_field toleration_f[] = {F("effect", sk__str),   F("key", sk__str),
					       F("operator", sk__str), F("tolerationSeconds", sk__i64),
					       F("value", sk__str),    END};
DOBJ(toleration, CORE("Toleration"),
     "The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the "
     "matching operator <operator>.");
const sk_schema sk__tolerations = {.type = SK_SCHEMA_ARRAY, .items = &toleration, .list_type = "atomic"};
static const sk_schema_field ns_req_f[] = {R("key", sk__str), R("operator", sk__str), F("values", sk__strs), END};
DOBJ(ns_req, CORE("NodeSelectorRequirement"),
     "A node selector requirement is a selector that contains values, a key, and an operator that relates the key and "
     "values.");
ARR(ns_reqs, ns_req);
static const sk_schema_field ns_term_f[] = {F("matchExpressions", ns_reqs), F("matchFields", ns_reqs), END};
DOBJ(ns_term, CORE("NodeSelectorTerm"), "A null or empty node selector term matches no objects.");
ARR(ns_terms, ns_term);
static const sk_schema_field sk__node_selector_f[] = {R("nodeSelectorTerms", ns_terms), END};
const sk_schema sk__node_selector = {
	.type = SK_SCHEMA_OBJECT,
	.name = CORE("NodeSelector"),
	.fields = sk__node_selector_f,
	.doc = "A node selector represents the union of the results of one or more label queries over a set of nodes."};
static const sk_schema_field pref_term_f[] = {R("preference", ns_term), R("weight", sk__i32), END};
OBJ(pref_term, CORE("PreferredSchedulingTerm"));
ARR(pref_terms, pref_term);
static const sk_schema_field node_aff_f[] = {F("preferredDuringSchedulingIgnoredDuringExecution", pref_terms),
					     F("requiredDuringSchedulingIgnoredDuringExecution", sk__node_selector),
					     END};
DOBJ(node_aff, CORE("NodeAffinity"), "Node affinity is a group of node affinity scheduling rules.");
static const sk_schema_field pa_term_f[] = {F("labelSelector", sk__label_selector),
					    F("matchLabelKeys", sk__strs),
					    F("mismatchLabelKeys", sk__strs),
					    F("namespaceSelector", sk__label_selector),
					    F("namespaces", sk__strs),
					    R("topologyKey", sk__str),
					    END};
DOBJ(pa_term, CORE("PodAffinityTerm"),
     "Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod "
     "should be co-located (affinity) or not co-located (anti-affinity) with.");
ARR(pa_terms, pa_term);
static const sk_schema_field wpa_term_f[] = {R("podAffinityTerm", pa_term), R("weight", sk__i32), END};
OBJ(wpa_term, CORE("WeightedPodAffinityTerm"));
ARR(wpa_terms, wpa_term);
static const sk_schema_field pod_aff_f[] = {F("preferredDuringSchedulingIgnoredDuringExecution", wpa_terms),
					    F("requiredDuringSchedulingIgnoredDuringExecution", pa_terms), END};
OBJ(pod_aff, CORE("PodAffinity"));
static const sk_schema_field pod_anti_f[] = {F("preferredDuringSchedulingIgnoredDuringExecution", wpa_terms),
					     F("requiredDuringSchedulingIgnoredDuringExecution", pa_terms), END};
OBJ(pod_anti, CORE("PodAntiAffinity"));
static const sk_schema_field affinity_f[] = {F("nodeAffinity", node_aff), F("podAffinity", pod_aff),
					     F("podAntiAffinity", pod_anti), END};
DOBJ(affinity, CORE("Affinity"), "Affinity is a group of affinity scheduling rules.");
static const sk_schema_field spread_f[] = {F("labelSelector", sk__label_selector),
					   F("matchLabelKeys", sk__strs),
					   R("maxSkew", sk__i32),
					   F("minDomains", sk__i32),
					   F("nodeAffinityPolicy", sk__str),
					   F("nodeTaintsPolicy", sk__str),
					   R("topologyKey", sk__str),
					   R("whenUnsatisfiable", sk__str),
					   END};
DOBJ(spread, CORE("TopologySpreadConstraint"),
     "TopologySpreadConstraint specifies how to spread matching pods among the given topology.");
LMAP(spreads, spread, "topologyKey", keys_spread);
static const sk_schema_field host_alias_f[] = {F("hostnames", sk__strs), R("ip", sk__str), END};
OBJ(host_alias, CORE("HostAlias"));
LMAP(host_aliases, host_alias, "ip", keys_ip);
static const sk_schema_field dns_opt_f[] = {F("name", sk__str), F("value", sk__str), END};
OBJ(dns_opt, CORE("PodDNSConfigOption"));
ARR(dns_opts, dns_opt);
static const sk_schema_field dns_cfg_f[] = {F("nameservers", sk__strs), F("options", dns_opts), F("searches", sk__strs),
					    END};
OBJ(dns_cfg, CORE("PodDNSConfig"));
static const sk_schema_field gate_f[] = {R("conditionType", sk__str), END};
OBJ(gate, CORE("PodReadinessGate"));
ARR(gates, gate);
static const sk_schema_field sgate_f[] = {R("name", sk__str), END};
OBJ(sgate, CORE("PodSchedulingGate"));
LMAP(sgates, sgate, "name", sk__keys_name);
static const sk_schema_field pod_os_f[] = {R("name", sk__str), END};
OBJ(pod_os, CORE("PodOS"));
LMAP(pull_secrets, sk__local_object_reference, "name", sk__keys_name);

static const sk_schema_field pod_spec_f[] = {
	F("activeDeadlineSeconds", sk__i64),
	FD("affinity", affinity, "If specified, the pod's scheduling constraints"),
	F("automountServiceAccountToken", sk__bool),
	RD("containers", containers,
	   "List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at "
	   "least one container in a Pod. Cannot be updated."),
	F("dnsConfig", dns_cfg),
	F("dnsPolicy", sk__str),
	F("enableServiceLinks", sk__bool),
	F("ephemeralContainers", ephemerals),
	F("hostAliases", host_aliases),
	F("hostIPC", sk__bool),
	F("hostNetwork", sk__bool),
	F("hostPID", sk__bool),
	F("hostUsers", sk__bool),
	F("hostname", sk__str),
	F("imagePullSecrets", pull_secrets),
	FD("initContainers", containers, "List of initialization containers belonging to the pod."),
	F("nodeName", sk__str),
	F("nodeSelector", sk__node_selector_map),
	F("os", pod_os),
	F("overhead", sk__quantity_map),
	F("preemptionPolicy", sk__str),
	F("priority", sk__i32),
	F("priorityClassName", sk__str),
	F("readinessGates", gates),
	F("resources", resources),
	FD("restartPolicy", sk__str,
	   "Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always."),
	F("runtimeClassName", sk__str),
	F("schedulerName", sk__str),
	F("schedulingGates", sgates),
	F("securityContext", psc),
	F("serviceAccount", sk__str),
	F("serviceAccountName", sk__str),
	F("setHostnameAsFQDN", sk__bool),
	F("shareProcessNamespace", sk__bool),
	F("subdomain", sk__str),
	F("terminationGracePeriodSeconds", sk__i64),
	F("tolerations", sk__tolerations),
	F("topologySpreadConstraints", spreads),
	F("volumes", volumes),
	END};
DOBJ(pod_spec, CORE("PodSpec"), "PodSpec is a description of a pod.");

/* ---- pod status ---- */
static const sk_schema_field st_wait_f[] = {F("message", sk__str), F("reason", sk__str), END};
OBJ(st_wait, CORE("ContainerStateWaiting"));
static const sk_schema_field st_run_f[] = {F("startedAt", sk__time), END};
OBJ(st_run, CORE("ContainerStateRunning"));
static const sk_schema_field st_term_f[] = {
	F("containerID", sk__str), R("exitCode", sk__i32), F("finishedAt", sk__time), F("message", sk__str),
	F("reason", sk__str),      F("signal", sk__i32),   F("startedAt", sk__time),  END};
OBJ(st_term, CORE("ContainerStateTerminated"));
static const sk_schema_field cstate_f[] = {F("running", st_run), F("terminated", st_term), F("waiting", st_wait), END};
DOBJ(cstate, CORE("ContainerState"), "ContainerState holds a possible state of container.");
static const sk_schema_field vm_status_f[] = {R("mountPath", sk__str), R("name", sk__str), F("readOnly", sk__bool),
					      F("recursiveReadOnly", sk__str), END};
OBJ(vm_status, CORE("VolumeMountStatus"));
LMAP(vm_statuses, vm_status, "mountPath", keys_mount);
static const sk_schema_field cstatus_f[] = {F("allocatedResources", sk__quantity_map),
					    F("containerID", sk__str),
					    R("image", sk__str),
					    R("imageID", sk__str),
					    F("lastState", cstate),
					    R("name", sk__str),
					    R("ready", sk__bool),
					    F("resources", resources),
					    R("restartCount", sk__i32),
					    F("started", sk__bool),
					    F("state", cstate),
					    F("stopSignal", sk__str),
					    F("volumeMounts", vm_statuses),
					    END};
DOBJ(cstatus, CORE("ContainerStatus"), "ContainerStatus contains details for the current status of this container.");
ARR(cstatuses, cstatus);
static const sk_schema_field pod_cond_f[] = {F("lastProbeTime", sk__time), F("lastTransitionTime", sk__time),
					     F("message", sk__str),        F("observedGeneration", sk__i64),
					     F("reason", sk__str),         R("status", sk__str),
					     R("type", sk__str),           END};
DOBJ(pod_cond, CORE("PodCondition"), "PodCondition contains details for the current condition of this pod.");
LMAP(pod_conds, pod_cond, "type", sk__keys_type);
static const sk_schema_field host_ip_f[] = {R("ip", sk__str), END};
OBJ(host_ip, CORE("HostIP"));
static const sk_schema_field pod_ip_f[] = {R("ip", sk__str), END};
OBJ(pod_ip, CORE("PodIP"));
static const sk_schema host_ips = {.type = SK_SCHEMA_ARRAY,
				   .items = &host_ip,
				   .merge_key = "ip",
				   .patch_strategy = "merge",
				   .list_type = "atomic"};
static const sk_schema pod_ips = {.type = SK_SCHEMA_ARRAY,
				  .items = &pod_ip,
				  .merge_key = "ip",
				  .patch_strategy = "merge",
				  .list_type = "map",
				  .list_map_keys = keys_ip};
static const sk_schema_field pod_status_f[] = {
	F("conditions", pod_conds),
	F("containerStatuses", cstatuses),
	F("ephemeralContainerStatuses", cstatuses),
	F("hostIP", sk__str),
	F("hostIPs", host_ips),
	F("initContainerStatuses", cstatuses),
	F("message", sk__str),
	F("nominatedNodeName", sk__str),
	F("observedGeneration", sk__i64),
	FD("phase", sk__str,
	   "The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle."),
	F("podIP", sk__str),
	F("podIPs", pod_ips),
	F("qosClass", sk__str),
	F("reason", sk__str),
	F("resize", sk__str),
	F("startTime", sk__time),
	END};
DOBJ(pod_status, CORE("PodStatus"), "PodStatus represents information about the status of a pod.");

#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA FD("metadata", sk__object_meta, "Standard object's metadata.")

static const sk_schema_field sk__pod_f[] = {TYPEMETA, OBJMETA,
					    FD("spec", pod_spec, "Specification of the desired behavior of the pod."),
					    FD("status", pod_status, "Most recently observed status of the pod."), END};
KIND(sk__pod, "", "v1", "Pod", CORE("Pod"),
     "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto "
     "hosts.");

static const sk_schema_field sk__pod_template_spec_f[] = {
	OBJMETA, FD("spec", pod_spec, "Specification of the desired behavior of the pod."), END};
const sk_schema sk__pod_template_spec = {
	.type = SK_SCHEMA_OBJECT,
	.name = CORE("PodTemplateSpec"),
	.doc = "PodTemplateSpec describes the data a pod should have when created from a template",
	.fields = sk__pod_template_spec_f};

static const sk_schema_field sk__binding_f[] = {TYPEMETA, OBJMETA, R("target", sk__object_reference), END};
KIND(sk__binding, "", "v1", "Binding", CORE("Binding"),
     "Binding ties one object to another; for example, a pod is bound to a node by a scheduler.");
static const sk_schema_field sk__eviction_f[] = {TYPEMETA, OBJMETA, F("deleteOptions", sk__delete_options), END};
KIND(sk__eviction, "policy", "v1", "Eviction", "io.k8s.api.policy.v1.Eviction",
     "Eviction evicts a pod from its node subject to certain policies and safety constraints.");

/* ---- node ---- */
static const sk_schema_field taint_f[] = {R("effect", sk__str), R("key", sk__str), F("timeAdded", sk__time),
					  F("value", sk__str), END};
DOBJ(taint, CORE("Taint"),
     "The node this Taint is attached to has the \"effect\" on any pod that does not tolerate the Taint.");
ARR(taints, taint);
static const sk_schema podcidrs = {
	.type = SK_SCHEMA_ARRAY, .items = &sk__str, .patch_strategy = "merge", .list_type = "set"};
static const sk_schema_field node_spec_f[] = {F("externalID", sk__str),
					      F("podCIDR", sk__str),
					      F("podCIDRs", podcidrs),
					      F("providerID", sk__str),
					      F("taints", taints),
					      F("unschedulable", sk__bool),
					      END};
DOBJ(node_spec, CORE("NodeSpec"), "NodeSpec describes the attributes that a node is created with.");
static const sk_schema_field node_cond_f[] = {F("lastHeartbeatTime", sk__time),
					      F("lastTransitionTime", sk__time),
					      F("message", sk__str),
					      F("reason", sk__str),
					      R("status", sk__str),
					      R("type", sk__str),
					      END};
OBJ(node_cond, CORE("NodeCondition"));
LMAP(node_conds, node_cond, "type", sk__keys_type);
static const sk_schema_field node_addr_f[] = {R("address", sk__str), R("type", sk__str), END};
OBJ(node_addr, CORE("NodeAddress"));
LMAP(node_addrs, node_addr, "type", sk__keys_type);
static const sk_schema_field daemon_ep_f[] = {R("Port", sk__i32), END};
OBJ(daemon_ep, CORE("DaemonEndpoint"));
static const sk_schema_field dendpoints_f[] = {F("kubeletEndpoint", daemon_ep), END};
OBJ(dendpoints, CORE("NodeDaemonEndpoints"));
static const sk_schema_field node_info_f[] = {R("architecture", sk__str),
					      R("bootID", sk__str),
					      R("containerRuntimeVersion", sk__str),
					      R("kernelVersion", sk__str),
					      R("kubeProxyVersion", sk__str),
					      R("kubeletVersion", sk__str),
					      R("machineID", sk__str),
					      R("operatingSystem", sk__str),
					      R("osImage", sk__str),
					      R("systemUUID", sk__str),
					      END};
DOBJ(node_info, CORE("NodeSystemInfo"), "NodeSystemInfo is a set of ids/uuids to uniquely identify the node.");
static const sk_schema_field cimage_f[] = {F("names", sk__strs), F("sizeBytes", sk__i64), END};
OBJ(cimage, CORE("ContainerImage"));
ARR(cimages, cimage);
static const sk_schema_field attached_f[] = {R("devicePath", sk__str), R("name", sk__str), END};
OBJ(attached, CORE("AttachedVolume"));
ARR(attacheds, attached);
static const sk_schema_field rh_feat_f[] = {F("recursiveReadOnlyMounts", sk__bool), F("userNamespaces", sk__bool), END};
OBJ(rh_feat, CORE("NodeRuntimeHandlerFeatures"));
static const sk_schema_field rh_f[] = {F("features", rh_feat), F("name", sk__str), END};
OBJ(rh, CORE("NodeRuntimeHandler"));
ARR(rhs, rh);
static const sk_schema_field nfeat_f[] = {F("supplementalGroupsPolicy", sk__bool), END};
OBJ(nfeat, CORE("NodeFeatures"));
static const sk_schema_field node_status_f[] = {F("addresses", node_addrs),
						F("allocatable", sk__quantity_map),
						F("capacity", sk__quantity_map),
						F("conditions", node_conds),
						F("daemonEndpoints", dendpoints),
						F("features", nfeat),
						F("images", cimages),
						F("nodeInfo", node_info),
						F("phase", sk__str),
						F("runtimeHandlers", rhs),
						F("volumesAttached", attacheds),
						F("volumesInUse", sk__strs),
						END};
DOBJ(node_status, CORE("NodeStatus"), "NodeStatus is information about the current status of a node.");
static const sk_schema_field sk__node_f[] = {TYPEMETA, OBJMETA, F("spec", node_spec), F("status", node_status), END};
KIND(sk__node, "", "v1", "Node", CORE("Node"),
     "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).");

/* ---- namespace ---- */
static const sk_schema_field ns_spec_f[] = {F("finalizers", sk__strset), END};
OBJ(ns_spec, CORE("NamespaceSpec"));
static const sk_schema_field ns_cond_f[] = {F("lastTransitionTime", sk__time),
					    F("message", sk__str),
					    F("reason", sk__str),
					    R("status", sk__str),
					    R("type", sk__str),
					    END};
OBJ(ns_cond, CORE("NamespaceCondition"));
LMAP(ns_conds, ns_cond, "type", sk__keys_type);
static const sk_schema_field ns_status_f[] = {F("conditions", ns_conds), F("phase", sk__str), END};
OBJ(ns_status, CORE("NamespaceStatus"));
static const sk_schema_field sk__namespace_f[] = {TYPEMETA, OBJMETA, F("spec", ns_spec), F("status", ns_status), END};
KIND(sk__namespace, "", "v1", "Namespace", CORE("Namespace"),
     "Namespace provides a scope for Names. Use of multiple namespaces is optional.");

/* ---- event ---- */
static const sk_schema_field ev_src_f[] = {F("component", sk__str), F("host", sk__str), END};
OBJ(ev_src, CORE("EventSource"));
static const sk_schema_field ev_series_f[] = {F("count", sk__i32), F("lastObservedTime", sk__microtime), END};
OBJ(ev_series, CORE("EventSeries"));
static const sk_schema_field sk__event_f[] = {F("action", sk__str),
					      TYPEMETA,
					      F("count", sk__i32),
					      F("eventTime", sk__microtime),
					      F("firstTimestamp", sk__time),
					      R("involvedObject", sk__object_reference),
					      F("lastTimestamp", sk__time),
					      F("message", sk__str),
					      R("metadata", sk__object_meta),
					      F("reason", sk__str),
					      F("related", sk__object_reference),
					      F("reportingComponent", sk__str),
					      F("reportingInstance", sk__str),
					      F("series", ev_series),
					      F("source", ev_src),
					      F("type", sk__str),
					      END};
KIND(sk__event, "", "v1", "Event", CORE("Event"), "Event is a report of an event somewhere in the cluster.");

/* ---- config ---- */
static const sk_schema byte_map = {.type = SK_SCHEMA_MAP, .items = &sk__byte};
static const sk_schema_field sk__configmap_f[] = {
	TYPEMETA, F("binaryData", byte_map), F("data", sk__str_map), F("immutable", sk__bool), OBJMETA, END};
KIND(sk__configmap, "", "v1", "ConfigMap", CORE("ConfigMap"),
     "ConfigMap holds configuration data for pods to consume.");
static const sk_schema_field sk__secret_f[] = {TYPEMETA, F("data", byte_map),          F("immutable", sk__bool),
					       OBJMETA,  F("stringData", sk__str_map), F("type", sk__str),
					       END};
KIND(sk__secret, "", "v1", "Secret", CORE("Secret"),
     "Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than "
     "MaxSecretSize bytes.");
MERGED(sa_secrets, sk__object_reference, "name");
static const sk_schema_field sk__serviceaccount_f[] = {TYPEMETA,
						       F("automountServiceAccountToken", sk__bool),
						       F("imagePullSecrets", pull_secrets),
						       OBJMETA,
						       F("secrets", sa_secrets),
						       END};
KIND(sk__serviceaccount, "", "v1", "ServiceAccount", CORE("ServiceAccount"),
     "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity "
     "* a principal that can be authenticated and authorized * a set of secrets");

/* ---- service, endpoints ---- */
static const sk_schema_field svc_port_f[] = {F("appProtocol", sk__str),
					     F("name", sk__str),
					     F("nodePort", sk__i32),
					     R("port", sk__i32),
					     F("protocol", sk__str),
					     F("targetPort", sk__intstr),
					     END};
DOBJ(svc_port, CORE("ServicePort"), "ServicePort contains information on service's port.");
LMAP(svc_ports, svc_port, "port", keys_svc_port);
static const sk_schema_field client_ip_f[] = {F("timeoutSeconds", sk__i32), END};
OBJ(client_ip, CORE("ClientIPConfig"));
static const sk_schema_field sa_cfg_f[] = {F("clientIP", client_ip), END};
OBJ(sa_cfg, CORE("SessionAffinityConfig"));
static const sk_schema_field svc_spec_f[] = {F("allocateLoadBalancerNodePorts", sk__bool),
					     F("clusterIP", sk__str),
					     F("clusterIPs", sk__strs),
					     F("externalIPs", sk__strs),
					     F("externalName", sk__str),
					     F("externalTrafficPolicy", sk__str),
					     F("healthCheckNodePort", sk__i32),
					     F("internalTrafficPolicy", sk__str),
					     F("ipFamilies", sk__strs),
					     F("ipFamilyPolicy", sk__str),
					     F("loadBalancerClass", sk__str),
					     F("loadBalancerIP", sk__str),
					     F("loadBalancerSourceRanges", sk__strs),
					     F("ports", svc_ports),
					     F("publishNotReadyAddresses", sk__bool),
					     F("selector", sk__str_map),
					     F("sessionAffinity", sk__str),
					     F("sessionAffinityConfig", sa_cfg),
					     F("trafficDistribution", sk__str),
					     F("type", sk__str),
					     END};
DOBJ(svc_spec, CORE("ServiceSpec"), "ServiceSpec describes the attributes that a user creates on a service.");
static const sk_schema_field port_status_f[] = {F("error", sk__str), R("port", sk__i32), R("protocol", sk__str), END};
OBJ(port_status, CORE("PortStatus"));
ARR(port_statuses, port_status);
static const sk_schema_field lb_ing_f[] = {F("hostname", sk__str), F("ip", sk__str), F("ipMode", sk__str),
					   F("ports", port_statuses), END};
OBJ(lb_ing, CORE("LoadBalancerIngress"));
ARR(lb_ings, lb_ing);
static const sk_schema_field lb_status_f[] = {F("ingress", lb_ings), END};
OBJ(lb_status, CORE("LoadBalancerStatus"));
static const sk_schema_field svc_status_f[] = {F("conditions", sk__meta_conditions), F("loadBalancer", lb_status), END};
OBJ(svc_status, CORE("ServiceStatus"));
static const sk_schema_field sk__service_f[] = {TYPEMETA, OBJMETA, F("spec", svc_spec), F("status", svc_status), END};
KIND(sk__service, "", "v1", "Service", CORE("Service"),
     "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example "
     "3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through "
     "the proxy.");

static const sk_schema_field ep_addr_f[] = {F("hostname", sk__str), R("ip", sk__str), F("nodeName", sk__str),
					    F("targetRef", sk__object_reference), END};
OBJ(ep_addr, CORE("EndpointAddress"));
ARR(ep_addrs, ep_addr);
static const sk_schema_field ep_port_f[] = {F("appProtocol", sk__str), F("name", sk__str), R("port", sk__i32),
					    F("protocol", sk__str), END};
OBJ(ep_port, "io.k8s.api.core.v1.EndpointPort");
ARR(ep_ports, ep_port);
static const sk_schema_field subset_f[] = {F("addresses", ep_addrs), F("notReadyAddresses", ep_addrs),
					   F("ports", ep_ports), END};
OBJ(subset, CORE("EndpointSubset"));
ARR(subsets, subset);
static const sk_schema_field sk__endpoints_f[] = {TYPEMETA, OBJMETA, F("subsets", subsets), END};
KIND(sk__endpoints, "", "v1", "Endpoints", CORE("Endpoints"),
     "Endpoints is a collection of endpoints that implement the actual service.");

/* ---- quota ---- */
static const sk_schema_field scope_req_f[] = {R("operator", sk__str), R("scopeName", sk__str), F("values", sk__strs),
					      END};
OBJ(scope_req, CORE("ScopedResourceSelectorRequirement"));
ARR(scope_reqs, scope_req);
static const sk_schema_field scope_sel_f[] = {F("matchExpressions", scope_reqs), END};
OBJ(scope_sel, CORE("ScopeSelector"));
static const sk_schema_field rq_spec_f[] = {F("hard", sk__quantity_map), F("scopeSelector", scope_sel),
					    F("scopes", sk__strs), END};
OBJ(rq_spec, CORE("ResourceQuotaSpec"));
static const sk_schema_field rq_status_f[] = {F("hard", sk__quantity_map), F("used", sk__quantity_map), END};
OBJ(rq_status, CORE("ResourceQuotaStatus"));
static const sk_schema_field sk__resourcequota_f[] = {TYPEMETA, OBJMETA, F("spec", rq_spec), F("status", rq_status),
						      END};
KIND(sk__resourcequota, "", "v1", "ResourceQuota", CORE("ResourceQuota"),
     "ResourceQuota sets aggregate quota restrictions enforced per namespace");

/* ---- limit ranges ---- */
static const sk_schema_field lr_item_f[] = {F("default", sk__quantity_map),
					    F("defaultRequest", sk__quantity_map),
					    F("max", sk__quantity_map),
					    F("maxLimitRequestRatio", sk__quantity_map),
					    F("min", sk__quantity_map),
					    R("type", sk__str),
					    END};
OBJ(lr_item, CORE("LimitRangeItem"));
ARR(lr_items, lr_item);
static const sk_schema_field lr_spec_f[] = {R("limits", lr_items), END};
OBJ(lr_spec, CORE("LimitRangeSpec"));
static const sk_schema_field sk__limitrange_f[] = {TYPEMETA, OBJMETA, F("spec", lr_spec), END};
KIND(sk__limitrange, "", "v1", "LimitRange", CORE("LimitRange"),
     "LimitRange sets resource usage limits for each kind of resource in a Namespace.");

/* ---- volumes: PV, PVC ---- */
static const sk_schema_field local_vol_f[] = {F("fsType", sk__str), R("path", sk__str), END};
OBJ(local_vol, CORE("LocalVolumeSource"));
static const sk_schema_field vna_f[] = {F("required", sk__node_selector), END};
OBJ(vna, CORE("VolumeNodeAffinity"));
static const sk_schema_field pv_spec_f[] = {F("accessModes", sk__strs),
					    F("capacity", sk__quantity_map),
					    F("claimRef", sk__object_reference),
					    F("hostPath", host_path),
					    F("local", local_vol),
					    F("mountOptions", sk__strs),
					    F("nfs", nfs),
					    F("nodeAffinity", vna),
					    F("persistentVolumeReclaimPolicy", sk__str),
					    F("storageClassName", sk__str),
					    F("volumeAttributesClassName", sk__str),
					    F("volumeMode", sk__str),
					    END};
DOBJ(pv_spec, CORE("PersistentVolumeSpec"), "PersistentVolumeSpec is the specification of a persistent volume.");
static const sk_schema_field pv_status_f[] = {F("lastPhaseTransitionTime", sk__time), F("message", sk__str),
					      F("phase", sk__str), F("reason", sk__str), END};
OBJ(pv_status, CORE("PersistentVolumeStatus"));
static const sk_schema_field sk__pv_f[] = {TYPEMETA, OBJMETA, F("spec", pv_spec), F("status", pv_status), END};
KIND(sk__pv, "", "v1", "PersistentVolume", CORE("PersistentVolume"),
     "PersistentVolume (PV) is a storage resource provisioned by an administrator.");
static const sk_schema_field vrr_f[] = {F("limits", sk__quantity_map), F("requests", sk__quantity_map), END};
OBJ(vrr, CORE("VolumeResourceRequirements"));
static const sk_schema_field typed_ref_f[] = {F("apiGroup", sk__str), R("kind", sk__str), R("name", sk__str),
					      F("namespace", sk__str), END};
OBJ(typed_ref, CORE("TypedObjectReference"));
static const sk_schema_field pvc_spec_f[] = {F("accessModes", sk__strs),
					     F("dataSource", sk__typed_local_object_reference),
					     F("dataSourceRef", typed_ref),
					     F("resources", vrr),
					     F("selector", sk__label_selector),
					     F("storageClassName", sk__str),
					     F("volumeAttributesClassName", sk__str),
					     F("volumeMode", sk__str),
					     F("volumeName", sk__str),
					     END};
DOBJ(pvc_spec, CORE("PersistentVolumeClaimSpec"),
     "PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for "
     "provider-specific attributes");
static const sk_schema_field pvc_cond_f[] = {F("lastProbeTime", sk__time),
					     F("lastTransitionTime", sk__time),
					     F("message", sk__str),
					     F("reason", sk__str),
					     R("status", sk__str),
					     R("type", sk__str),
					     END};
OBJ(pvc_cond, CORE("PersistentVolumeClaimCondition"));
LMAP(pvc_conds, pvc_cond, "type", sk__keys_type);
static const sk_schema_field pvc_status_f[] = {F("accessModes", sk__strs),
					       F("allocatedResourceStatuses", sk__str_map),
					       F("allocatedResources", sk__quantity_map),
					       F("capacity", sk__quantity_map),
					       F("conditions", pvc_conds),
					       F("phase", sk__str),
					       END};
OBJ(pvc_status, CORE("PersistentVolumeClaimStatus"));
static const sk_schema_field sk__pvc_f[] = {TYPEMETA, OBJMETA, F("spec", pvc_spec), F("status", pvc_status), END};
KIND(sk__pvc, "", "v1", "PersistentVolumeClaim", CORE("PersistentVolumeClaim"),
     "PersistentVolumeClaim is a user's request for and claim to a persistent volume");
/* clang-format on */
