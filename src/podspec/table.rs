//! The API's schema of the parts of a pod spec the core holds as JSON (`checked.rs`) and of
//! every type they reach (Kubernetes 1.36), made from k8s-openapi's JSON Schemas by
//! `podspec::generate::the_table_is_k8s_openapis_schema`
//! (`UPDATE_GOLDEN=1 cargo test --features schema --lib podspec`). Do not edit.

use super::schema::{Kind, Type, opt, req};

pub(crate) const AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Type = Type {
    name: "AWSElasticBlockStoreVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("partition", Kind::I32), opt("readOnly", Kind::Bool), req("volumeID", Kind::Str),
    ],
};

pub(crate) const AFFINITY: Type = Type {
    name: "Affinity",
    fields: &[
        opt("nodeAffinity", Kind::Object(&NODE_AFFINITY)), opt("podAffinity", Kind::Object(&POD_AFFINITY)),
        opt("podAntiAffinity", Kind::Object(&POD_ANTI_AFFINITY)),
    ],
};

pub(crate) const APP_ARMOR_PROFILE: Type = Type {
    name: "AppArmorProfile",
    fields: &[
        opt("localhostProfile", Kind::Str), req("type", Kind::Str),
    ],
};

pub(crate) const AZURE_DISK_VOLUME_SOURCE: Type = Type {
    name: "AzureDiskVolumeSource",
    fields: &[
        opt("cachingMode", Kind::Str), req("diskName", Kind::Str), req("diskURI", Kind::Str), opt("fsType", Kind::Str),
        opt("kind", Kind::Str), opt("readOnly", Kind::Bool),
    ],
};

pub(crate) const AZURE_FILE_VOLUME_SOURCE: Type = Type {
    name: "AzureFileVolumeSource",
    fields: &[
        opt("readOnly", Kind::Bool), req("secretName", Kind::Str), req("shareName", Kind::Str),
    ],
};

pub(crate) const CSI_VOLUME_SOURCE: Type = Type {
    name: "CSIVolumeSource",
    fields: &[
        req("driver", Kind::Str), opt("fsType", Kind::Str),
        opt("nodePublishSecretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)), opt("readOnly", Kind::Bool),
        opt("volumeAttributes", Kind::Map(&Kind::Str)),
    ],
};

pub(crate) const CAPABILITIES: Type = Type {
    name: "Capabilities",
    fields: &[
        opt("add", Kind::Array(&Kind::Str)), opt("drop", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const CEPH_FS_VOLUME_SOURCE: Type = Type {
    name: "CephFSVolumeSource",
    fields: &[
        req("monitors", Kind::Array(&Kind::Str)), opt("path", Kind::Str), opt("readOnly", Kind::Bool),
        opt("secretFile", Kind::Str), opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)), opt("user", Kind::Str),
    ],
};

pub(crate) const CINDER_VOLUME_SOURCE: Type = Type {
    name: "CinderVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("readOnly", Kind::Bool), opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)),
        req("volumeID", Kind::Str),
    ],
};

pub(crate) const CLUSTER_TRUST_BUNDLE_PROJECTION: Type = Type {
    name: "ClusterTrustBundleProjection",
    fields: &[
        opt("labelSelector", Kind::Object(&LABEL_SELECTOR)), opt("name", Kind::Str), opt("optional", Kind::Bool),
        req("path", Kind::Str), opt("signerName", Kind::Str),
    ],
};

pub(crate) const CONDITION: Type = Type {
    name: "Condition",
    fields: &[
        req("lastTransitionTime", Kind::Time), req("message", Kind::Str), opt("observedGeneration", Kind::I64),
        req("reason", Kind::Str), req("status", Kind::Str), req("type", Kind::Str),
    ],
};

pub(crate) const CONFIG_MAP_ENV_SOURCE: Type = Type {
    name: "ConfigMapEnvSource",
    fields: &[
        req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const CONFIG_MAP_KEY_SELECTOR: Type = Type {
    name: "ConfigMapKeySelector",
    fields: &[
        req("key", Kind::Str), req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const CONFIG_MAP_PROJECTION: Type = Type {
    name: "ConfigMapProjection",
    fields: &[
        opt("items", Kind::Array(&Kind::Object(&KEY_TO_PATH))), req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const CONFIG_MAP_VOLUME_SOURCE: Type = Type {
    name: "ConfigMapVolumeSource",
    fields: &[
        opt("defaultMode", Kind::I32), opt("items", Kind::Array(&Kind::Object(&KEY_TO_PATH))), req("name", Kind::Str),
        opt("optional", Kind::Bool),
    ],
};

pub(crate) const CONTAINER_EXTENDED_RESOURCE_REQUEST: Type = Type {
    name: "ContainerExtendedResourceRequest",
    fields: &[
        req("containerName", Kind::Str), req("requestName", Kind::Str), req("resourceName", Kind::Str),
    ],
};

pub(crate) const CONTAINER_PORT: Type = Type {
    name: "ContainerPort",
    fields: &[
        req("containerPort", Kind::I32), opt("hostIP", Kind::Str), opt("hostPort", Kind::I32), opt("name", Kind::Str),
        opt("protocol", Kind::Str),
    ],
};

pub(crate) const CONTAINER_RESIZE_POLICY: Type = Type {
    name: "ContainerResizePolicy",
    fields: &[
        req("resourceName", Kind::Str), req("restartPolicy", Kind::Str),
    ],
};

pub(crate) const CONTAINER_RESTART_RULE: Type = Type {
    name: "ContainerRestartRule",
    fields: &[
        req("action", Kind::Str), opt("exitCodes", Kind::Object(&CONTAINER_RESTART_RULE_ON_EXIT_CODES)),
    ],
};

pub(crate) const CONTAINER_RESTART_RULE_ON_EXIT_CODES: Type = Type {
    name: "ContainerRestartRuleOnExitCodes",
    fields: &[
        req("operator", Kind::Str), opt("values", Kind::Array(&Kind::I32)),
    ],
};

pub(crate) const CONTAINER_STATE: Type = Type {
    name: "ContainerState",
    fields: &[
        opt("running", Kind::Object(&CONTAINER_STATE_RUNNING)),
        opt("terminated", Kind::Object(&CONTAINER_STATE_TERMINATED)),
        opt("waiting", Kind::Object(&CONTAINER_STATE_WAITING)),
    ],
};

pub(crate) const CONTAINER_STATE_RUNNING: Type = Type {
    name: "ContainerStateRunning",
    fields: &[
        opt("startedAt", Kind::Time),
    ],
};

pub(crate) const CONTAINER_STATE_TERMINATED: Type = Type {
    name: "ContainerStateTerminated",
    fields: &[
        opt("containerID", Kind::Str), req("exitCode", Kind::I32), opt("finishedAt", Kind::Time),
        opt("message", Kind::Str), opt("reason", Kind::Str), opt("signal", Kind::I32), opt("startedAt", Kind::Time),
    ],
};

pub(crate) const CONTAINER_STATE_WAITING: Type = Type {
    name: "ContainerStateWaiting",
    fields: &[
        opt("message", Kind::Str), opt("reason", Kind::Str),
    ],
};

pub(crate) const CONTAINER_STATUS: Type = Type {
    name: "ContainerStatus",
    fields: &[
        opt("allocatedResources", Kind::Map(&Kind::Quantity)),
        opt("allocatedResourcesStatus", Kind::Array(&Kind::Object(&RESOURCE_STATUS))), opt("containerID", Kind::Str),
        req("image", Kind::Str), req("imageID", Kind::Str), opt("lastState", Kind::Object(&CONTAINER_STATE)),
        req("name", Kind::Str), req("ready", Kind::Bool), opt("resources", Kind::Object(&RESOURCE_REQUIREMENTS)),
        req("restartCount", Kind::I32), opt("started", Kind::Bool), opt("state", Kind::Object(&CONTAINER_STATE)),
        opt("stopSignal", Kind::Str), opt("user", Kind::Object(&CONTAINER_USER)),
        opt("volumeMounts", Kind::Array(&Kind::Object(&VOLUME_MOUNT_STATUS))),
    ],
};

pub(crate) const CONTAINER_USER: Type = Type {
    name: "ContainerUser",
    fields: &[
        opt("linux", Kind::Object(&LINUX_CONTAINER_USER)),
    ],
};

pub(crate) const DOWNWARD_API_PROJECTION: Type = Type {
    name: "DownwardAPIProjection",
    fields: &[
        opt("items", Kind::Array(&Kind::Object(&DOWNWARD_API_VOLUME_FILE))),
    ],
};

pub(crate) const DOWNWARD_API_VOLUME_FILE: Type = Type {
    name: "DownwardAPIVolumeFile",
    fields: &[
        opt("fieldRef", Kind::Object(&OBJECT_FIELD_SELECTOR)), opt("mode", Kind::I32), req("path", Kind::Str),
        opt("resourceFieldRef", Kind::Object(&RESOURCE_FIELD_SELECTOR)),
    ],
};

pub(crate) const DOWNWARD_API_VOLUME_SOURCE: Type = Type {
    name: "DownwardAPIVolumeSource",
    fields: &[
        opt("defaultMode", Kind::I32), opt("items", Kind::Array(&Kind::Object(&DOWNWARD_API_VOLUME_FILE))),
    ],
};

pub(crate) const EMPTY_DIR_VOLUME_SOURCE: Type = Type {
    name: "EmptyDirVolumeSource",
    fields: &[
        opt("medium", Kind::Str), opt("sizeLimit", Kind::Quantity),
    ],
};

pub(crate) const ENV_FROM_SOURCE: Type = Type {
    name: "EnvFromSource",
    fields: &[
        opt("configMapRef", Kind::Object(&CONFIG_MAP_ENV_SOURCE)), opt("prefix", Kind::Str),
        opt("secretRef", Kind::Object(&SECRET_ENV_SOURCE)),
    ],
};

pub(crate) const ENV_VAR_SOURCE: Type = Type {
    name: "EnvVarSource",
    fields: &[
        opt("configMapKeyRef", Kind::Object(&CONFIG_MAP_KEY_SELECTOR)),
        opt("fieldRef", Kind::Object(&OBJECT_FIELD_SELECTOR)), opt("fileKeyRef", Kind::Object(&FILE_KEY_SELECTOR)),
        opt("resourceFieldRef", Kind::Object(&RESOURCE_FIELD_SELECTOR)),
        opt("secretKeyRef", Kind::Object(&SECRET_KEY_SELECTOR)),
    ],
};

pub(crate) const EPHEMERAL_VOLUME_SOURCE: Type = Type {
    name: "EphemeralVolumeSource",
    fields: &[
        opt("volumeClaimTemplate", Kind::Object(&PERSISTENT_VOLUME_CLAIM_TEMPLATE)),
    ],
};

pub(crate) const EXEC_ACTION: Type = Type {
    name: "ExecAction",
    fields: &[
        opt("command", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const FC_VOLUME_SOURCE: Type = Type {
    name: "FCVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("lun", Kind::I32), opt("readOnly", Kind::Bool),
        opt("targetWWNs", Kind::Array(&Kind::Str)), opt("wwids", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const FILE_KEY_SELECTOR: Type = Type {
    name: "FileKeySelector",
    fields: &[
        req("key", Kind::Str), opt("optional", Kind::Bool), req("path", Kind::Str), req("volumeName", Kind::Str),
    ],
};

pub(crate) const FLEX_VOLUME_SOURCE: Type = Type {
    name: "FlexVolumeSource",
    fields: &[
        req("driver", Kind::Str), opt("fsType", Kind::Str), opt("options", Kind::Map(&Kind::Str)),
        opt("readOnly", Kind::Bool), opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)),
    ],
};

pub(crate) const FLOCKER_VOLUME_SOURCE: Type = Type {
    name: "FlockerVolumeSource",
    fields: &[
        opt("datasetName", Kind::Str), opt("datasetUUID", Kind::Str),
    ],
};

pub(crate) const GCE_PERSISTENT_DISK_VOLUME_SOURCE: Type = Type {
    name: "GCEPersistentDiskVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("partition", Kind::I32), req("pdName", Kind::Str), opt("readOnly", Kind::Bool),
    ],
};

pub(crate) const GRPC_ACTION: Type = Type {
    name: "GRPCAction",
    fields: &[
        req("port", Kind::I32), opt("service", Kind::Str),
    ],
};

pub(crate) const GIT_REPO_VOLUME_SOURCE: Type = Type {
    name: "GitRepoVolumeSource",
    fields: &[
        opt("directory", Kind::Str), req("repository", Kind::Str), opt("revision", Kind::Str),
    ],
};

pub(crate) const GLUSTERFS_VOLUME_SOURCE: Type = Type {
    name: "GlusterfsVolumeSource",
    fields: &[
        req("endpoints", Kind::Str), req("path", Kind::Str), opt("readOnly", Kind::Bool),
    ],
};

pub(crate) const HTTP_GET_ACTION: Type = Type {
    name: "HTTPGetAction",
    fields: &[
        opt("host", Kind::Str), opt("httpHeaders", Kind::Array(&Kind::Object(&HTTP_HEADER))), opt("path", Kind::Str),
        req("port", Kind::IntOrString), opt("scheme", Kind::Str),
    ],
};

pub(crate) const HTTP_HEADER: Type = Type {
    name: "HTTPHeader",
    fields: &[
        req("name", Kind::Str), req("value", Kind::Str),
    ],
};

pub(crate) const HOST_ALIAS: Type = Type {
    name: "HostAlias",
    fields: &[
        opt("hostnames", Kind::Array(&Kind::Str)), req("ip", Kind::Str),
    ],
};

pub(crate) const HOST_IP: Type = Type {
    name: "HostIP",
    fields: &[
        req("ip", Kind::Str),
    ],
};

pub(crate) const HOST_PATH_VOLUME_SOURCE: Type = Type {
    name: "HostPathVolumeSource",
    fields: &[
        req("path", Kind::Str), opt("type", Kind::Str),
    ],
};

pub(crate) const ISCSI_VOLUME_SOURCE: Type = Type {
    name: "ISCSIVolumeSource",
    fields: &[
        opt("chapAuthDiscovery", Kind::Bool), opt("chapAuthSession", Kind::Bool), opt("fsType", Kind::Str),
        opt("initiatorName", Kind::Str), req("iqn", Kind::Str), opt("iscsiInterface", Kind::Str), req("lun", Kind::I32),
        opt("portals", Kind::Array(&Kind::Str)), opt("readOnly", Kind::Bool),
        opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)), req("targetPortal", Kind::Str),
    ],
};

pub(crate) const IMAGE_VOLUME_SOURCE: Type = Type {
    name: "ImageVolumeSource",
    fields: &[
        opt("pullPolicy", Kind::Str), opt("reference", Kind::Str),
    ],
};

pub(crate) const IMAGE_VOLUME_STATUS: Type = Type {
    name: "ImageVolumeStatus",
    fields: &[
        req("imageRef", Kind::Str),
    ],
};

pub(crate) const KEY_TO_PATH: Type = Type {
    name: "KeyToPath",
    fields: &[
        req("key", Kind::Str), opt("mode", Kind::I32), req("path", Kind::Str),
    ],
};

pub(crate) const LABEL_SELECTOR: Type = Type {
    name: "LabelSelector",
    fields: &[
        opt("matchExpressions", Kind::Array(&Kind::Object(&LABEL_SELECTOR_REQUIREMENT))),
        opt("matchLabels", Kind::Map(&Kind::Str)),
    ],
};

pub(crate) const LABEL_SELECTOR_REQUIREMENT: Type = Type {
    name: "LabelSelectorRequirement",
    fields: &[
        req("key", Kind::Str), req("operator", Kind::Str), opt("values", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const LIFECYCLE: Type = Type {
    name: "Lifecycle",
    fields: &[
        opt("postStart", Kind::Object(&LIFECYCLE_HANDLER)), opt("preStop", Kind::Object(&LIFECYCLE_HANDLER)),
        opt("stopSignal", Kind::Str),
    ],
};

pub(crate) const LIFECYCLE_HANDLER: Type = Type {
    name: "LifecycleHandler",
    fields: &[
        opt("exec", Kind::Object(&EXEC_ACTION)), opt("httpGet", Kind::Object(&HTTP_GET_ACTION)),
        opt("sleep", Kind::Object(&SLEEP_ACTION)), opt("tcpSocket", Kind::Object(&TCP_SOCKET_ACTION)),
    ],
};

pub(crate) const LINUX_CONTAINER_USER: Type = Type {
    name: "LinuxContainerUser",
    fields: &[
        req("gid", Kind::I64), opt("supplementalGroups", Kind::Array(&Kind::I64)), req("uid", Kind::I64),
    ],
};

pub(crate) const LOAD_BALANCER_INGRESS: Type = Type {
    name: "LoadBalancerIngress",
    fields: &[
        opt("hostname", Kind::Str), opt("ip", Kind::Str), opt("ipMode", Kind::Str),
        opt("ports", Kind::Array(&Kind::Object(&PORT_STATUS))),
    ],
};

pub(crate) const LOAD_BALANCER_STATUS: Type = Type {
    name: "LoadBalancerStatus",
    fields: &[
        opt("ingress", Kind::Array(&Kind::Object(&LOAD_BALANCER_INGRESS))),
    ],
};

pub(crate) const LOCAL_OBJECT_REFERENCE: Type = Type {
    name: "LocalObjectReference",
    fields: &[
        req("name", Kind::Str),
    ],
};

pub(crate) const MANAGED_FIELDS_ENTRY: Type = Type {
    name: "ManagedFieldsEntry",
    fields: &[
        opt("apiVersion", Kind::Str), opt("fieldsType", Kind::Str), opt("fieldsV1", Kind::FieldsV1),
        opt("manager", Kind::Str), opt("operation", Kind::Str), opt("subresource", Kind::Str), opt("time", Kind::Time),
    ],
};

pub(crate) const NFS_VOLUME_SOURCE: Type = Type {
    name: "NFSVolumeSource",
    fields: &[
        req("path", Kind::Str), opt("readOnly", Kind::Bool), req("server", Kind::Str),
    ],
};

pub(crate) const NODE_AFFINITY: Type = Type {
    name: "NodeAffinity",
    fields: &[
        opt("preferredDuringSchedulingIgnoredDuringExecution", Kind::Array(&Kind::Object(&PREFERRED_SCHEDULING_TERM))),
        opt("requiredDuringSchedulingIgnoredDuringExecution", Kind::Object(&NODE_SELECTOR)),
    ],
};

pub(crate) const NODE_ALLOCATABLE_RESOURCE_CLAIM_STATUS: Type = Type {
    name: "NodeAllocatableResourceClaimStatus",
    fields: &[
        opt("containers", Kind::Array(&Kind::Str)), req("resourceClaimName", Kind::Str),
        req("resources", Kind::Map(&Kind::Quantity)),
    ],
};

pub(crate) const NODE_SELECTOR: Type = Type {
    name: "NodeSelector",
    fields: &[
        req("nodeSelectorTerms", Kind::Array(&Kind::Object(&NODE_SELECTOR_TERM))),
    ],
};

pub(crate) const NODE_SELECTOR_REQUIREMENT: Type = Type {
    name: "NodeSelectorRequirement",
    fields: &[
        req("key", Kind::Str), req("operator", Kind::Str), opt("values", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const NODE_SELECTOR_TERM: Type = Type {
    name: "NodeSelectorTerm",
    fields: &[
        opt("matchExpressions", Kind::Array(&Kind::Object(&NODE_SELECTOR_REQUIREMENT))),
        opt("matchFields", Kind::Array(&Kind::Object(&NODE_SELECTOR_REQUIREMENT))),
    ],
};

pub(crate) const OBJECT_FIELD_SELECTOR: Type = Type {
    name: "ObjectFieldSelector",
    fields: &[
        opt("apiVersion", Kind::Str), req("fieldPath", Kind::Str),
    ],
};

pub(crate) const OBJECT_META: Type = Type {
    name: "ObjectMeta",
    fields: &[
        opt("annotations", Kind::Map(&Kind::Str)), opt("creationTimestamp", Kind::Time),
        opt("deletionGracePeriodSeconds", Kind::I64), opt("deletionTimestamp", Kind::Time),
        opt("finalizers", Kind::Array(&Kind::Str)), opt("generateName", Kind::Str), opt("generation", Kind::I64),
        opt("labels", Kind::Map(&Kind::Str)), opt("managedFields", Kind::Array(&Kind::Object(&MANAGED_FIELDS_ENTRY))),
        opt("name", Kind::Str), opt("namespace", Kind::Str),
        opt("ownerReferences", Kind::Array(&Kind::Object(&OWNER_REFERENCE))), opt("resourceVersion", Kind::Str),
        opt("selfLink", Kind::Str), opt("uid", Kind::Str),
    ],
};

pub(crate) const OWNER_REFERENCE: Type = Type {
    name: "OwnerReference",
    fields: &[
        req("apiVersion", Kind::Str), opt("blockOwnerDeletion", Kind::Bool), opt("controller", Kind::Bool),
        req("kind", Kind::Str), req("name", Kind::Str), req("uid", Kind::Str),
    ],
};

pub(crate) const PERSISTENT_VOLUME_CLAIM_SPEC: Type = Type {
    name: "PersistentVolumeClaimSpec",
    fields: &[
        opt("accessModes", Kind::Array(&Kind::Str)), opt("dataSource", Kind::Object(&TYPED_LOCAL_OBJECT_REFERENCE)),
        opt("dataSourceRef", Kind::Object(&TYPED_OBJECT_REFERENCE)),
        opt("resources", Kind::Object(&VOLUME_RESOURCE_REQUIREMENTS)), opt("selector", Kind::Object(&LABEL_SELECTOR)),
        opt("storageClassName", Kind::Str), opt("volumeAttributesClassName", Kind::Str), opt("volumeMode", Kind::Str),
        opt("volumeName", Kind::Str),
    ],
};

pub(crate) const PERSISTENT_VOLUME_CLAIM_TEMPLATE: Type = Type {
    name: "PersistentVolumeClaimTemplate",
    fields: &[
        opt("metadata", Kind::Object(&OBJECT_META)), req("spec", Kind::Object(&PERSISTENT_VOLUME_CLAIM_SPEC)),
    ],
};

pub(crate) const PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Type = Type {
    name: "PersistentVolumeClaimVolumeSource",
    fields: &[
        req("claimName", Kind::Str), opt("readOnly", Kind::Bool),
    ],
};

pub(crate) const PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Type = Type {
    name: "PhotonPersistentDiskVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), req("pdID", Kind::Str),
    ],
};

pub(crate) const POD_AFFINITY: Type = Type {
    name: "PodAffinity",
    fields: &[
        opt("preferredDuringSchedulingIgnoredDuringExecution", Kind::Array(&Kind::Object(&WEIGHTED_POD_AFFINITY_TERM))),
        opt("requiredDuringSchedulingIgnoredDuringExecution", Kind::Array(&Kind::Object(&POD_AFFINITY_TERM))),
    ],
};

pub(crate) const POD_AFFINITY_TERM: Type = Type {
    name: "PodAffinityTerm",
    fields: &[
        opt("labelSelector", Kind::Object(&LABEL_SELECTOR)), opt("matchLabelKeys", Kind::Array(&Kind::Str)),
        opt("mismatchLabelKeys", Kind::Array(&Kind::Str)), opt("namespaceSelector", Kind::Object(&LABEL_SELECTOR)),
        opt("namespaces", Kind::Array(&Kind::Str)), req("topologyKey", Kind::Str),
    ],
};

pub(crate) const POD_ANTI_AFFINITY: Type = Type {
    name: "PodAntiAffinity",
    fields: &[
        opt("preferredDuringSchedulingIgnoredDuringExecution", Kind::Array(&Kind::Object(&WEIGHTED_POD_AFFINITY_TERM))),
        opt("requiredDuringSchedulingIgnoredDuringExecution", Kind::Array(&Kind::Object(&POD_AFFINITY_TERM))),
    ],
};

pub(crate) const POD_CERTIFICATE_PROJECTION: Type = Type {
    name: "PodCertificateProjection",
    fields: &[
        opt("certificateChainPath", Kind::Str), opt("credentialBundlePath", Kind::Str), opt("keyPath", Kind::Str),
        req("keyType", Kind::Str), opt("maxExpirationSeconds", Kind::I32), req("signerName", Kind::Str),
        opt("userAnnotations", Kind::Map(&Kind::Str)),
    ],
};

pub(crate) const POD_CONDITION: Type = Type {
    name: "PodCondition",
    fields: &[
        opt("lastProbeTime", Kind::Time), opt("lastTransitionTime", Kind::Time), opt("message", Kind::Str),
        opt("observedGeneration", Kind::I64), opt("reason", Kind::Str), req("status", Kind::Str),
        req("type", Kind::Str),
    ],
};

pub(crate) const POD_DNS_CONFIG: Type = Type {
    name: "PodDNSConfig",
    fields: &[
        opt("nameservers", Kind::Array(&Kind::Str)), opt("options", Kind::Array(&Kind::Object(&POD_DNS_CONFIG_OPTION))),
        opt("searches", Kind::Array(&Kind::Str)),
    ],
};

pub(crate) const POD_DNS_CONFIG_OPTION: Type = Type {
    name: "PodDNSConfigOption",
    fields: &[
        opt("name", Kind::Str), opt("value", Kind::Str),
    ],
};

pub(crate) const POD_EXTENDED_RESOURCE_CLAIM_STATUS: Type = Type {
    name: "PodExtendedResourceClaimStatus",
    fields: &[
        req("requestMappings", Kind::Array(&Kind::Object(&CONTAINER_EXTENDED_RESOURCE_REQUEST))),
        req("resourceClaimName", Kind::Str),
    ],
};

pub(crate) const POD_IP: Type = Type {
    name: "PodIP",
    fields: &[
        req("ip", Kind::Str),
    ],
};

pub(crate) const POD_OS: Type = Type {
    name: "PodOS",
    fields: &[
        req("name", Kind::Str),
    ],
};

pub(crate) const POD_READINESS_GATE: Type = Type {
    name: "PodReadinessGate",
    fields: &[
        req("conditionType", Kind::Str),
    ],
};

pub(crate) const POD_RESOURCE_CLAIM: Type = Type {
    name: "PodResourceClaim",
    fields: &[
        req("name", Kind::Str), opt("resourceClaimName", Kind::Str), opt("resourceClaimTemplateName", Kind::Str),
    ],
};

pub(crate) const POD_RESOURCE_CLAIM_STATUS: Type = Type {
    name: "PodResourceClaimStatus",
    fields: &[
        req("name", Kind::Str), opt("resourceClaimName", Kind::Str),
    ],
};

pub(crate) const POD_SCHEDULING_GATE: Type = Type {
    name: "PodSchedulingGate",
    fields: &[
        req("name", Kind::Str),
    ],
};

pub(crate) const POD_SCHEDULING_GROUP: Type = Type {
    name: "PodSchedulingGroup",
    fields: &[
        opt("podGroupName", Kind::Str),
    ],
};

pub(crate) const POD_SECURITY_CONTEXT: Type = Type {
    name: "PodSecurityContext",
    fields: &[
        opt("appArmorProfile", Kind::Object(&APP_ARMOR_PROFILE)), opt("fsGroup", Kind::I64),
        opt("fsGroupChangePolicy", Kind::Str), opt("runAsGroup", Kind::I64), opt("runAsNonRoot", Kind::Bool),
        opt("runAsUser", Kind::I64), opt("seLinuxChangePolicy", Kind::Str),
        opt("seLinuxOptions", Kind::Object(&SE_LINUX_OPTIONS)), opt("seccompProfile", Kind::Object(&SECCOMP_PROFILE)),
        opt("supplementalGroups", Kind::Array(&Kind::I64)), opt("supplementalGroupsPolicy", Kind::Str),
        opt("sysctls", Kind::Array(&Kind::Object(&SYSCTL))),
        opt("windowsOptions", Kind::Object(&WINDOWS_SECURITY_CONTEXT_OPTIONS)),
    ],
};

pub(crate) const POD_STATUS: Type = Type {
    name: "PodStatus",
    fields: &[
        opt("allocatedResources", Kind::Map(&Kind::Quantity)),
        opt("conditions", Kind::Array(&Kind::Object(&POD_CONDITION))),
        opt("containerStatuses", Kind::Array(&Kind::Object(&CONTAINER_STATUS))),
        opt("ephemeralContainerStatuses", Kind::Array(&Kind::Object(&CONTAINER_STATUS))),
        opt("extendedResourceClaimStatus", Kind::Object(&POD_EXTENDED_RESOURCE_CLAIM_STATUS)), opt("hostIP", Kind::Str),
        opt("hostIPs", Kind::Array(&Kind::Object(&HOST_IP))),
        opt("initContainerStatuses", Kind::Array(&Kind::Object(&CONTAINER_STATUS))), opt("message", Kind::Str),
        opt("nodeAllocatableResourceClaimStatuses", Kind::Array(&Kind::Object(&NODE_ALLOCATABLE_RESOURCE_CLAIM_STATUS))),
        opt("nominatedNodeName", Kind::Str), opt("observedGeneration", Kind::I64), opt("phase", Kind::Str),
        opt("podIP", Kind::Str), opt("podIPs", Kind::Array(&Kind::Object(&POD_IP))), opt("qosClass", Kind::Str),
        opt("reason", Kind::Str), opt("resize", Kind::Str),
        opt("resourceClaimStatuses", Kind::Array(&Kind::Object(&POD_RESOURCE_CLAIM_STATUS))),
        opt("resources", Kind::Object(&RESOURCE_REQUIREMENTS)), opt("startTime", Kind::Time),
    ],
};

pub(crate) const PORT_STATUS: Type = Type {
    name: "PortStatus",
    fields: &[
        opt("error", Kind::Str), req("port", Kind::I32), req("protocol", Kind::Str),
    ],
};

pub(crate) const PORTWORX_VOLUME_SOURCE: Type = Type {
    name: "PortworxVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("readOnly", Kind::Bool), req("volumeID", Kind::Str),
    ],
};

pub(crate) const PREFERRED_SCHEDULING_TERM: Type = Type {
    name: "PreferredSchedulingTerm",
    fields: &[
        req("preference", Kind::Object(&NODE_SELECTOR_TERM)), req("weight", Kind::I32),
    ],
};

pub(crate) const PROBE: Type = Type {
    name: "Probe",
    fields: &[
        opt("exec", Kind::Object(&EXEC_ACTION)), opt("failureThreshold", Kind::I32),
        opt("grpc", Kind::Object(&GRPC_ACTION)), opt("httpGet", Kind::Object(&HTTP_GET_ACTION)),
        opt("initialDelaySeconds", Kind::I32), opt("periodSeconds", Kind::I32), opt("successThreshold", Kind::I32),
        opt("tcpSocket", Kind::Object(&TCP_SOCKET_ACTION)), opt("terminationGracePeriodSeconds", Kind::I64),
        opt("timeoutSeconds", Kind::I32),
    ],
};

pub(crate) const PROJECTED_VOLUME_SOURCE: Type = Type {
    name: "ProjectedVolumeSource",
    fields: &[
        opt("defaultMode", Kind::I32), opt("sources", Kind::Array(&Kind::Object(&VOLUME_PROJECTION))),
    ],
};

pub(crate) const QUOBYTE_VOLUME_SOURCE: Type = Type {
    name: "QuobyteVolumeSource",
    fields: &[
        opt("group", Kind::Str), opt("readOnly", Kind::Bool), req("registry", Kind::Str), opt("tenant", Kind::Str),
        opt("user", Kind::Str), req("volume", Kind::Str),
    ],
};

pub(crate) const RBD_VOLUME_SOURCE: Type = Type {
    name: "RBDVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), req("image", Kind::Str), opt("keyring", Kind::Str),
        req("monitors", Kind::Array(&Kind::Str)), opt("pool", Kind::Str), opt("readOnly", Kind::Bool),
        opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)), opt("user", Kind::Str),
    ],
};

pub(crate) const RESOURCE_CLAIM: Type = Type {
    name: "ResourceClaim",
    fields: &[
        req("name", Kind::Str), opt("request", Kind::Str),
    ],
};

pub(crate) const RESOURCE_FIELD_SELECTOR: Type = Type {
    name: "ResourceFieldSelector",
    fields: &[
        opt("containerName", Kind::Str), opt("divisor", Kind::Quantity), req("resource", Kind::Str),
    ],
};

pub(crate) const RESOURCE_HEALTH: Type = Type {
    name: "ResourceHealth",
    fields: &[
        opt("health", Kind::Str), opt("message", Kind::Str), req("resourceID", Kind::Str),
    ],
};

pub(crate) const RESOURCE_REQUIREMENTS: Type = Type {
    name: "ResourceRequirements",
    fields: &[
        opt("claims", Kind::Array(&Kind::Object(&RESOURCE_CLAIM))), opt("limits", Kind::Map(&Kind::Quantity)),
        opt("requests", Kind::Map(&Kind::Quantity)),
    ],
};

pub(crate) const RESOURCE_STATUS: Type = Type {
    name: "ResourceStatus",
    fields: &[
        req("name", Kind::Str), opt("resources", Kind::Array(&Kind::Object(&RESOURCE_HEALTH))),
    ],
};

pub(crate) const SE_LINUX_OPTIONS: Type = Type {
    name: "SELinuxOptions",
    fields: &[
        opt("level", Kind::Str), opt("role", Kind::Str), opt("type", Kind::Str), opt("user", Kind::Str),
    ],
};

pub(crate) const SCALE_IO_VOLUME_SOURCE: Type = Type {
    name: "ScaleIOVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), req("gateway", Kind::Str), opt("protectionDomain", Kind::Str),
        opt("readOnly", Kind::Bool), req("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)),
        opt("sslEnabled", Kind::Bool), opt("storageMode", Kind::Str), opt("storagePool", Kind::Str),
        req("system", Kind::Str), opt("volumeName", Kind::Str),
    ],
};

pub(crate) const SECCOMP_PROFILE: Type = Type {
    name: "SeccompProfile",
    fields: &[
        opt("localhostProfile", Kind::Str), req("type", Kind::Str),
    ],
};

pub(crate) const SECRET_ENV_SOURCE: Type = Type {
    name: "SecretEnvSource",
    fields: &[
        req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const SECRET_KEY_SELECTOR: Type = Type {
    name: "SecretKeySelector",
    fields: &[
        req("key", Kind::Str), req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const SECRET_PROJECTION: Type = Type {
    name: "SecretProjection",
    fields: &[
        opt("items", Kind::Array(&Kind::Object(&KEY_TO_PATH))), req("name", Kind::Str), opt("optional", Kind::Bool),
    ],
};

pub(crate) const SECRET_VOLUME_SOURCE: Type = Type {
    name: "SecretVolumeSource",
    fields: &[
        opt("defaultMode", Kind::I32), opt("items", Kind::Array(&Kind::Object(&KEY_TO_PATH))),
        opt("optional", Kind::Bool), opt("secretName", Kind::Str),
    ],
};

pub(crate) const SECURITY_CONTEXT: Type = Type {
    name: "SecurityContext",
    fields: &[
        opt("allowPrivilegeEscalation", Kind::Bool), opt("appArmorProfile", Kind::Object(&APP_ARMOR_PROFILE)),
        opt("capabilities", Kind::Object(&CAPABILITIES)), opt("privileged", Kind::Bool), opt("procMount", Kind::Str),
        opt("readOnlyRootFilesystem", Kind::Bool), opt("runAsGroup", Kind::I64), opt("runAsNonRoot", Kind::Bool),
        opt("runAsUser", Kind::I64), opt("seLinuxOptions", Kind::Object(&SE_LINUX_OPTIONS)),
        opt("seccompProfile", Kind::Object(&SECCOMP_PROFILE)),
        opt("windowsOptions", Kind::Object(&WINDOWS_SECURITY_CONTEXT_OPTIONS)),
    ],
};

pub(crate) const SERVICE_ACCOUNT_TOKEN_PROJECTION: Type = Type {
    name: "ServiceAccountTokenProjection",
    fields: &[
        opt("audience", Kind::Str), opt("expirationSeconds", Kind::I64), req("path", Kind::Str),
    ],
};

pub(crate) const SERVICE_STATUS: Type = Type {
    name: "ServiceStatus",
    fields: &[
        opt("conditions", Kind::Array(&Kind::Object(&CONDITION))),
        opt("loadBalancer", Kind::Object(&LOAD_BALANCER_STATUS)),
    ],
};

pub(crate) const SLEEP_ACTION: Type = Type {
    name: "SleepAction",
    fields: &[
        req("seconds", Kind::I64),
    ],
};

pub(crate) const STORAGE_OS_VOLUME_SOURCE: Type = Type {
    name: "StorageOSVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("readOnly", Kind::Bool), opt("secretRef", Kind::Object(&LOCAL_OBJECT_REFERENCE)),
        opt("volumeName", Kind::Str), opt("volumeNamespace", Kind::Str),
    ],
};

pub(crate) const SYSCTL: Type = Type {
    name: "Sysctl",
    fields: &[
        req("name", Kind::Str), req("value", Kind::Str),
    ],
};

pub(crate) const TCP_SOCKET_ACTION: Type = Type {
    name: "TCPSocketAction",
    fields: &[
        opt("host", Kind::Str), req("port", Kind::IntOrString),
    ],
};

pub(crate) const TOLERATION: Type = Type {
    name: "Toleration",
    fields: &[
        opt("effect", Kind::Str), opt("key", Kind::Str), opt("operator", Kind::Str),
        opt("tolerationSeconds", Kind::I64), opt("value", Kind::Str),
    ],
};

pub(crate) const TOPOLOGY_SPREAD_CONSTRAINT: Type = Type {
    name: "TopologySpreadConstraint",
    fields: &[
        opt("labelSelector", Kind::Object(&LABEL_SELECTOR)), opt("matchLabelKeys", Kind::Array(&Kind::Str)),
        req("maxSkew", Kind::I32), opt("minDomains", Kind::I32), opt("nodeAffinityPolicy", Kind::Str),
        opt("nodeTaintsPolicy", Kind::Str), req("topologyKey", Kind::Str), req("whenUnsatisfiable", Kind::Str),
    ],
};

pub(crate) const TYPED_LOCAL_OBJECT_REFERENCE: Type = Type {
    name: "TypedLocalObjectReference",
    fields: &[
        opt("apiGroup", Kind::Str), req("kind", Kind::Str), req("name", Kind::Str),
    ],
};

pub(crate) const TYPED_OBJECT_REFERENCE: Type = Type {
    name: "TypedObjectReference",
    fields: &[
        opt("apiGroup", Kind::Str), req("kind", Kind::Str), req("name", Kind::Str), opt("namespace", Kind::Str),
    ],
};

pub(crate) const VOLUME: Type = Type {
    name: "Volume",
    fields: &[
        opt("awsElasticBlockStore", Kind::Object(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE)),
        opt("azureDisk", Kind::Object(&AZURE_DISK_VOLUME_SOURCE)),
        opt("azureFile", Kind::Object(&AZURE_FILE_VOLUME_SOURCE)), opt("cephfs", Kind::Object(&CEPH_FS_VOLUME_SOURCE)),
        opt("cinder", Kind::Object(&CINDER_VOLUME_SOURCE)), opt("configMap", Kind::Object(&CONFIG_MAP_VOLUME_SOURCE)),
        opt("csi", Kind::Object(&CSI_VOLUME_SOURCE)), opt("downwardAPI", Kind::Object(&DOWNWARD_API_VOLUME_SOURCE)),
        opt("emptyDir", Kind::Object(&EMPTY_DIR_VOLUME_SOURCE)),
        opt("ephemeral", Kind::Object(&EPHEMERAL_VOLUME_SOURCE)), opt("fc", Kind::Object(&FC_VOLUME_SOURCE)),
        opt("flexVolume", Kind::Object(&FLEX_VOLUME_SOURCE)), opt("flocker", Kind::Object(&FLOCKER_VOLUME_SOURCE)),
        opt("gcePersistentDisk", Kind::Object(&GCE_PERSISTENT_DISK_VOLUME_SOURCE)),
        opt("gitRepo", Kind::Object(&GIT_REPO_VOLUME_SOURCE)), opt("glusterfs", Kind::Object(&GLUSTERFS_VOLUME_SOURCE)),
        opt("hostPath", Kind::Object(&HOST_PATH_VOLUME_SOURCE)), opt("image", Kind::Object(&IMAGE_VOLUME_SOURCE)),
        opt("iscsi", Kind::Object(&ISCSI_VOLUME_SOURCE)), req("name", Kind::Str),
        opt("nfs", Kind::Object(&NFS_VOLUME_SOURCE)),
        opt("persistentVolumeClaim", Kind::Object(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE)),
        opt("photonPersistentDisk", Kind::Object(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE)),
        opt("portworxVolume", Kind::Object(&PORTWORX_VOLUME_SOURCE)),
        opt("projected", Kind::Object(&PROJECTED_VOLUME_SOURCE)), opt("quobyte", Kind::Object(&QUOBYTE_VOLUME_SOURCE)),
        opt("rbd", Kind::Object(&RBD_VOLUME_SOURCE)), opt("scaleIO", Kind::Object(&SCALE_IO_VOLUME_SOURCE)),
        opt("secret", Kind::Object(&SECRET_VOLUME_SOURCE)), opt("storageos", Kind::Object(&STORAGE_OS_VOLUME_SOURCE)),
        opt("vsphereVolume", Kind::Object(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE)),
    ],
};

pub(crate) const VOLUME_DEVICE: Type = Type {
    name: "VolumeDevice",
    fields: &[
        req("devicePath", Kind::Str), req("name", Kind::Str),
    ],
};

pub(crate) const VOLUME_MOUNT: Type = Type {
    name: "VolumeMount",
    fields: &[
        req("mountPath", Kind::Str), opt("mountPropagation", Kind::Str), req("name", Kind::Str),
        opt("readOnly", Kind::Bool), opt("recursiveReadOnly", Kind::Str), opt("subPath", Kind::Str),
        opt("subPathExpr", Kind::Str),
    ],
};

pub(crate) const VOLUME_MOUNT_STATUS: Type = Type {
    name: "VolumeMountStatus",
    fields: &[
        req("mountPath", Kind::Str), req("name", Kind::Str), opt("readOnly", Kind::Bool),
        opt("recursiveReadOnly", Kind::Str), opt("volumeStatus", Kind::Object(&VOLUME_STATUS)),
    ],
};

pub(crate) const VOLUME_PROJECTION: Type = Type {
    name: "VolumeProjection",
    fields: &[
        opt("clusterTrustBundle", Kind::Object(&CLUSTER_TRUST_BUNDLE_PROJECTION)),
        opt("configMap", Kind::Object(&CONFIG_MAP_PROJECTION)),
        opt("downwardAPI", Kind::Object(&DOWNWARD_API_PROJECTION)),
        opt("podCertificate", Kind::Object(&POD_CERTIFICATE_PROJECTION)),
        opt("secret", Kind::Object(&SECRET_PROJECTION)),
        opt("serviceAccountToken", Kind::Object(&SERVICE_ACCOUNT_TOKEN_PROJECTION)),
    ],
};

pub(crate) const VOLUME_RESOURCE_REQUIREMENTS: Type = Type {
    name: "VolumeResourceRequirements",
    fields: &[
        opt("limits", Kind::Map(&Kind::Quantity)), opt("requests", Kind::Map(&Kind::Quantity)),
    ],
};

pub(crate) const VOLUME_STATUS: Type = Type {
    name: "VolumeStatus",
    fields: &[
        opt("image", Kind::Object(&IMAGE_VOLUME_STATUS)),
    ],
};

pub(crate) const VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Type = Type {
    name: "VsphereVirtualDiskVolumeSource",
    fields: &[
        opt("fsType", Kind::Str), opt("storagePolicyID", Kind::Str), opt("storagePolicyName", Kind::Str),
        req("volumePath", Kind::Str),
    ],
};

pub(crate) const WEIGHTED_POD_AFFINITY_TERM: Type = Type {
    name: "WeightedPodAffinityTerm",
    fields: &[
        req("podAffinityTerm", Kind::Object(&POD_AFFINITY_TERM)), req("weight", Kind::I32),
    ],
};

pub(crate) const WINDOWS_SECURITY_CONTEXT_OPTIONS: Type = Type {
    name: "WindowsSecurityContextOptions",
    fields: &[
        opt("gmsaCredentialSpec", Kind::Str), opt("gmsaCredentialSpecName", Kind::Str), opt("hostProcess", Kind::Bool),
        opt("runAsUserName", Kind::Str),
    ],
};
