//! The Go field order of every type in a runtime spec, for hashing it as OME does
//! (SEMANTICS.md#revision-hashes).
//!
//! OME names a revision after `sha256(json.Marshal(spec))`, and Go writes a struct's fields
//! in declaration order, an embedded (`json:",inline"`) struct's fields at its place, and
//! leaves out an `omitempty` field only when it is empty. This table records those facts for
//! OME v1.3's `ServingRuntimeSpec` and every type it reaches: OME's own types, and the
//! Kubernetes core/v1, apps/v1 and autoscaling/v2 types of k8s.io/api v0.35 (the version
//! OME v1.3 builds with). It was extracted from the type declarations; regenerate it, never
//! edit a row by hand, when OME moves to another Kubernetes version.
//!
//! A type is `(name, fields)`; a field is `(json name, type, flags)`. Types are spelt
//! `s` string, `i` integer, `b` boolean, `q` resource.Quantity, `ios` IntOrString, `?` a
//! type the table does not describe (a spec that uses it gets an opaque hash), `*T` a
//! pointer, `[]T` a slice, `{}T` a map with string keys, or the name of a struct here.

/// Go leaves the field out when it is empty (`omitempty`).
pub(super) const O: u8 = 1;
/// An embedded struct whose fields are written in its place (`json:",inline"`).
pub(super) const I: u8 = 2;
/// Always written, `null` or the zero value when unset.
pub(super) const N: u8 = 0;

pub(super) type Field = (&'static str, &'static str, u8);

/// Every struct, sorted by name (looked up by binary search).
#[rustfmt::skip]
pub(super) const TYPES: &[(&str, &[Field])] = &[
    ("AWSElasticBlockStoreVolumeSource", &[("volumeID", "s", N), ("fsType", "s", O), ("partition", "i", O), ("readOnly", "b", O)]),
    ("AcceleratorConstraints", &[("minMemory", "*i", O), ("maxMemory", "*i", O), ("minComputePerformanceTFLOPS", "*i", O), ("minArchitectureVersion", "*s", O), ("requiredFeatures", "[]s", O), ("excludedClasses", "[]s", O), ("architectureFamilies", "[]s", O), ("preferredPrecisions", "[]s", O)]),
    ("AcceleratorModelConfig", &[("minMemoryPerBillionParams", "*i", O), ("tensorParallelismOverride", "*TensorParallelismConfig", O), ("runtimeArgsOverride", "[]s", O), ("environmentOverride", "{}s", O)]),
    ("AcceleratorRequirements", &[("acceleratorClasses", "[]s", O), ("minMemory", "*i", O), ("minComputePerformanceTFLOPS", "*i", O), ("minArchitectureVersion", "*s", O), ("requiredFeatures", "[]s", O), ("preferredPrecisions", "[]s", O)]),
    ("AcceleratorSelector", &[("acceleratorClass", "*s", O), ("constraints", "*AcceleratorConstraints", O), ("policy", "s", O)]),
    ("Affinity", &[("nodeAffinity", "*NodeAffinity", O), ("podAffinity", "*PodAffinity", O), ("podAntiAffinity", "*PodAntiAffinity", O)]),
    ("AppArmorProfile", &[("type", "s", N), ("localhostProfile", "*s", O)]),
    ("AzureDiskVolumeSource", &[("diskName", "s", N), ("diskURI", "s", N), ("cachingMode", "*s", O), ("fsType", "*s", O), ("readOnly", "*b", O), ("kind", "*s", O)]),
    ("AzureFileVolumeSource", &[("secretName", "s", N), ("shareName", "s", N), ("readOnly", "b", O)]),
    ("CSIVolumeSource", &[("driver", "s", N), ("readOnly", "*b", O), ("fsType", "*s", O), ("volumeAttributes", "{}s", O), ("nodePublishSecretRef", "*LocalObjectReference", O)]),
    ("Capabilities", &[("add", "[]s", O), ("drop", "[]s", O)]),
    ("CephFSVolumeSource", &[("monitors", "[]s", N), ("path", "s", O), ("user", "s", O), ("secretFile", "s", O), ("secretRef", "*LocalObjectReference", O), ("readOnly", "b", O)]),
    ("CinderVolumeSource", &[("volumeID", "s", N), ("fsType", "s", O), ("readOnly", "b", O), ("secretRef", "*LocalObjectReference", O)]),
    ("ClusterTrustBundleProjection", &[("name", "*s", O), ("signerName", "*s", O), ("labelSelector", "*LabelSelector", O), ("optional", "*b", O), ("path", "s", N)]),
    ("ComponentAutoscaler", &[("class", "s", N), ("keda", "*?", O), ("hpa", "*HPAAutoscaler", O)]),
    ("ComponentExtensionSpec", &[("minReplicas", "*i", O), ("maxReplicas", "i", O), ("timeoutSeconds", "*i", O), ("labels", "{}s", O), ("annotations", "{}s", O), ("servicePortAppProtocols", "{}s", O), ("minAvailable", "*ios", O), ("maxUnavailable", "*ios", O), ("deploymentStrategy", "*apps.DeploymentStrategy", O), ("lifecycle", "*?", O), ("autoscaler", "*ComponentAutoscaler", O), ("autoscalerPolicyRef", "*?", O)]),
    ("ConfigMapEnvSource", &[("", "LocalObjectReference", I), ("optional", "*b", O)]),
    ("ConfigMapKeySelector", &[("", "LocalObjectReference", I), ("key", "s", N), ("optional", "*b", O)]),
    ("ConfigMapProjection", &[("", "LocalObjectReference", I), ("items", "[]KeyToPath", O), ("optional", "*b", O)]),
    ("ConfigMapVolumeSource", &[("", "LocalObjectReference", I), ("items", "[]KeyToPath", O), ("defaultMode", "*i", O), ("optional", "*b", O)]),
    ("Container", &[("name", "s", N), ("image", "s", O), ("command", "[]s", O), ("args", "[]s", O), ("workingDir", "s", O), ("ports", "[]ContainerPort", O), ("envFrom", "[]EnvFromSource", O), ("env", "[]EnvVar", O), ("resources", "ResourceRequirements", O), ("resizePolicy", "[]ContainerResizePolicy", O), ("restartPolicy", "*s", O), ("restartPolicyRules", "[]ContainerRestartRule", O), ("volumeMounts", "[]VolumeMount", O), ("volumeDevices", "[]VolumeDevice", O), ("livenessProbe", "*Probe", O), ("readinessProbe", "*Probe", O), ("startupProbe", "*Probe", O), ("lifecycle", "*Lifecycle", O), ("terminationMessagePath", "s", O), ("terminationMessagePolicy", "s", O), ("imagePullPolicy", "s", O), ("securityContext", "*SecurityContext", O), ("stdin", "b", O), ("stdinOnce", "b", O), ("tty", "b", O)]),
    ("ContainerPort", &[("name", "s", O), ("hostPort", "i", O), ("containerPort", "i", N), ("protocol", "s", O), ("hostIP", "s", O)]),
    ("ContainerResizePolicy", &[("resourceName", "s", N), ("restartPolicy", "s", N)]),
    ("ContainerRestartRule", &[("action", "s", O), ("exitCodes", "*ContainerRestartRuleOnExitCodes", O)]),
    ("ContainerRestartRuleOnExitCodes", &[("operator", "s", O), ("values", "[]i", O)]),
    ("DecoderSpec", &[("", "OmePodSpec", I), ("", "ComponentExtensionSpec", I), ("runner", "*RunnerSpec", O), ("leader", "*LeaderSpec", O), ("worker", "*WorkerSpec", O), ("topologyKey", "*s", O), ("topologySpread", "*s", O), ("topologySpreadKey", "*s", O), ("acceleratorOverride", "*AcceleratorSelector", O)]),
    ("DiffusionComponentSpec", &[("library", "s", O), ("type", "s", O)]),
    ("DiffusionPipelineSpec", &[("className", "*s", O), ("scheduler", "*DiffusionComponentSpec", O), ("textEncoder", "*DiffusionComponentSpec", O), ("tokenizer", "*DiffusionComponentSpec", O), ("transformer", "*DiffusionComponentSpec", O), ("vae", "*DiffusionComponentSpec", O), ("additionalComponents", "{}DiffusionComponentSpec", O)]),
    ("DownwardAPIProjection", &[("items", "[]DownwardAPIVolumeFile", O)]),
    ("DownwardAPIVolumeFile", &[("path", "s", N), ("fieldRef", "*ObjectFieldSelector", O), ("resourceFieldRef", "*ResourceFieldSelector", O), ("mode", "*i", O)]),
    ("DownwardAPIVolumeSource", &[("items", "[]DownwardAPIVolumeFile", O), ("defaultMode", "*i", O)]),
    ("EmptyDirVolumeSource", &[("medium", "s", O), ("sizeLimit", "*q", O)]),
    ("EngineSpec", &[("", "OmePodSpec", I), ("", "ComponentExtensionSpec", I), ("runner", "*RunnerSpec", O), ("leader", "*LeaderSpec", O), ("worker", "*WorkerSpec", O), ("topologyKey", "*s", O), ("topologySpread", "*s", O), ("topologySpreadKey", "*s", O), ("acceleratorOverride", "*AcceleratorSelector", O)]),
    ("EnvFromSource", &[("prefix", "s", O), ("configMapRef", "*ConfigMapEnvSource", O), ("secretRef", "*SecretEnvSource", O)]),
    ("EnvVar", &[("name", "s", N), ("value", "s", O), ("valueFrom", "*EnvVarSource", O)]),
    ("EnvVarSource", &[("fieldRef", "*ObjectFieldSelector", O), ("resourceFieldRef", "*ResourceFieldSelector", O), ("configMapKeyRef", "*ConfigMapKeySelector", O), ("secretKeyRef", "*SecretKeySelector", O), ("fileKeyRef", "*FileKeySelector", O)]),
    ("EphemeralContainer", &[("", "EphemeralContainerCommon", I), ("targetContainerName", "s", O)]),
    ("EphemeralContainerCommon", &[("name", "s", N), ("image", "s", O), ("command", "[]s", O), ("args", "[]s", O), ("workingDir", "s", O), ("ports", "[]ContainerPort", O), ("envFrom", "[]EnvFromSource", O), ("env", "[]EnvVar", O), ("resources", "ResourceRequirements", O), ("resizePolicy", "[]ContainerResizePolicy", O), ("restartPolicy", "*s", O), ("restartPolicyRules", "[]ContainerRestartRule", O), ("volumeMounts", "[]VolumeMount", O), ("volumeDevices", "[]VolumeDevice", O), ("livenessProbe", "*Probe", O), ("readinessProbe", "*Probe", O), ("startupProbe", "*Probe", O), ("lifecycle", "*Lifecycle", O), ("terminationMessagePath", "s", O), ("terminationMessagePolicy", "s", O), ("imagePullPolicy", "s", O), ("securityContext", "*SecurityContext", O), ("stdin", "b", O), ("stdinOnce", "b", O), ("tty", "b", O)]),
    ("EphemeralVolumeSource", &[("volumeClaimTemplate", "*PersistentVolumeClaimTemplate", O)]),
    ("ExecAction", &[("command", "[]s", O)]),
    ("FCVolumeSource", &[("targetWWNs", "[]s", O), ("lun", "*i", O), ("fsType", "s", O), ("readOnly", "b", O), ("wwids", "[]s", O)]),
    ("FileKeySelector", &[("volumeName", "s", N), ("path", "s", N), ("key", "s", N), ("optional", "*b", O)]),
    ("FlexVolumeSource", &[("driver", "s", N), ("fsType", "s", O), ("secretRef", "*LocalObjectReference", O), ("readOnly", "b", O), ("options", "{}s", O)]),
    ("FlockerVolumeSource", &[("datasetName", "s", O), ("datasetUUID", "s", O)]),
    ("GCEPersistentDiskVolumeSource", &[("pdName", "s", N), ("fsType", "s", O), ("partition", "i", O), ("readOnly", "b", O)]),
    ("GRPCAction", &[("port", "i", N), ("service", "*s", N)]),
    ("GitRepoVolumeSource", &[("repository", "s", N), ("revision", "s", O), ("directory", "s", O)]),
    ("GlusterfsVolumeSource", &[("endpoints", "s", N), ("path", "s", N), ("readOnly", "b", O)]),
    ("HPAAutoscaler", &[("metrics", "[]as.MetricSpec", O), ("behavior", "*as.HorizontalPodAutoscalerBehavior", O)]),
    ("HTTPGetAction", &[("path", "s", O), ("port", "ios", N), ("host", "s", O), ("scheme", "s", O), ("httpHeaders", "[]HTTPHeader", O)]),
    ("HTTPHeader", &[("name", "s", N), ("value", "s", N)]),
    ("HostAlias", &[("ip", "s", N), ("hostnames", "[]s", O)]),
    ("HostPathVolumeSource", &[("path", "s", N), ("type", "*s", O)]),
    ("ISCSIVolumeSource", &[("targetPortal", "s", N), ("iqn", "s", N), ("lun", "i", N), ("iscsiInterface", "s", O), ("fsType", "s", O), ("readOnly", "b", O), ("portals", "[]s", O), ("chapAuthDiscovery", "b", O), ("chapAuthSession", "b", O), ("secretRef", "*LocalObjectReference", O), ("initiatorName", "*s", O)]),
    ("ImageVolumeSource", &[("reference", "s", O), ("pullPolicy", "s", O)]),
    ("KeyToPath", &[("key", "s", N), ("path", "s", N), ("mode", "*i", O)]),
    ("LabelSelector", &[("matchLabels", "{}s", O), ("matchExpressions", "[]LabelSelectorRequirement", O)]),
    ("LabelSelectorRequirement", &[("key", "s", N), ("operator", "s", N), ("values", "[]s", O)]),
    ("LeaderSpec", &[("", "OmePodSpec", I), ("runner", "*RunnerSpec", O)]),
    ("Lifecycle", &[("postStart", "*LifecycleHandler", O), ("preStop", "*LifecycleHandler", O), ("stopSignal", "*s", O)]),
    ("LifecycleHandler", &[("exec", "*ExecAction", O), ("httpGet", "*HTTPGetAction", O), ("tcpSocket", "*TCPSocketAction", O), ("sleep", "*SleepAction", O)]),
    ("LocalObjectReference", &[("name", "s", O)]),
    ("ModelFormat", &[("name", "s", N), ("version", "*s", O), ("operator", "*s", O), ("weight", "i", O)]),
    ("ModelFrameworkSpec", &[("name", "s", N), ("version", "*s", O), ("operator", "*s", O), ("weight", "i", O)]),
    ("ModelSizeRangeSpec", &[("min", "*s", O), ("max", "*s", O)]),
    ("NFSVolumeSource", &[("server", "s", N), ("path", "s", N), ("readOnly", "b", O)]),
    ("NodeAffinity", &[("requiredDuringSchedulingIgnoredDuringExecution", "*NodeSelector", O), ("preferredDuringSchedulingIgnoredDuringExecution", "[]PreferredSchedulingTerm", O)]),
    ("NodeSelector", &[("nodeSelectorTerms", "[]NodeSelectorTerm", N)]),
    ("NodeSelectorRequirement", &[("key", "s", N), ("operator", "s", N), ("values", "[]s", O)]),
    ("NodeSelectorTerm", &[("matchExpressions", "[]NodeSelectorRequirement", O), ("matchFields", "[]NodeSelectorRequirement", O)]),
    ("ObjectFieldSelector", &[("apiVersion", "s", O), ("fieldPath", "s", N)]),
    ("OmePodSpec", &[("volumes", "[]Volume", O), ("initContainers", "[]Container", O), ("containers", "[]Container", O), ("ephemeralContainers", "[]EphemeralContainer", O), ("restartPolicy", "s", O), ("terminationGracePeriodSeconds", "*i", O), ("activeDeadlineSeconds", "*i", O), ("dnsPolicy", "s", O), ("nodeSelector", "{}s", O), ("serviceAccountName", "s", O), ("serviceAccount", "s", O), ("automountServiceAccountToken", "*b", O), ("nodeName", "s", O), ("hostNetwork", "b", O), ("hostPID", "b", O), ("hostIPC", "b", O), ("shareProcessNamespace", "*b", O), ("securityContext", "*PodSecurityContext", O), ("imagePullSecrets", "[]LocalObjectReference", O), ("hostname", "s", O), ("subdomain", "s", O), ("affinity", "*Affinity", O), ("schedulerName", "s", O), ("tolerations", "[]Toleration", O), ("hostAliases", "[]HostAlias", O), ("priorityClassName", "s", O), ("priority", "*i", O), ("dnsConfig", "*PodDNSConfig", O), ("readinessGates", "[]PodReadinessGate", O), ("runtimeClassName", "*s", O), ("enableServiceLinks", "*b", O), ("preemptionPolicy", "*s", O), ("overhead", "{}q", O), ("topologySpreadConstraints", "[]TopologySpreadConstraint", O), ("setHostnameAsFQDN", "*b", O), ("os", "*PodOS", O), ("hostUsers", "*b", O), ("schedulingGates", "[]PodSchedulingGate", O), ("resourceClaims", "[]PodResourceClaim", O)]),
    ("PersistentVolumeClaimSpec", &[("accessModes", "[]s", O), ("selector", "*LabelSelector", O), ("resources", "VolumeResourceRequirements", O), ("volumeName", "s", O), ("storageClassName", "*s", O), ("volumeMode", "*s", O), ("dataSource", "*TypedLocalObjectReference", O), ("dataSourceRef", "*TypedObjectReference", O), ("volumeAttributesClassName", "*s", O)]),
    ("PersistentVolumeClaimTemplate", &[("metadata", "?", O), ("spec", "PersistentVolumeClaimSpec", N)]),
    ("PersistentVolumeClaimVolumeSource", &[("claimName", "s", N), ("readOnly", "b", O)]),
    ("PhotonPersistentDiskVolumeSource", &[("pdID", "s", N), ("fsType", "s", O)]),
    ("PodAffinity", &[("requiredDuringSchedulingIgnoredDuringExecution", "[]PodAffinityTerm", O), ("preferredDuringSchedulingIgnoredDuringExecution", "[]WeightedPodAffinityTerm", O)]),
    ("PodAffinityTerm", &[("labelSelector", "*LabelSelector", O), ("namespaces", "[]s", O), ("topologyKey", "s", N), ("namespaceSelector", "*LabelSelector", O), ("matchLabelKeys", "[]s", O), ("mismatchLabelKeys", "[]s", O)]),
    ("PodAntiAffinity", &[("requiredDuringSchedulingIgnoredDuringExecution", "[]PodAffinityTerm", O), ("preferredDuringSchedulingIgnoredDuringExecution", "[]WeightedPodAffinityTerm", O)]),
    ("PodCertificateProjection", &[("signerName", "s", O), ("keyType", "s", O), ("maxExpirationSeconds", "*i", O), ("credentialBundlePath", "s", O), ("keyPath", "s", O), ("certificateChainPath", "s", O), ("userAnnotations", "{}s", O)]),
    ("PodDNSConfig", &[("nameservers", "[]s", O), ("searches", "[]s", O), ("options", "[]PodDNSConfigOption", O)]),
    ("PodDNSConfigOption", &[("name", "s", O), ("value", "*s", O)]),
    ("PodOS", &[("name", "s", N)]),
    ("PodReadinessGate", &[("conditionType", "s", N)]),
    ("PodResourceClaim", &[("name", "s", N), ("resourceClaimName", "*s", O), ("resourceClaimTemplateName", "*s", O)]),
    ("PodSchedulingGate", &[("name", "s", N)]),
    ("PodSecurityContext", &[("seLinuxOptions", "*SELinuxOptions", O), ("windowsOptions", "*WindowsSecurityContextOptions", O), ("runAsUser", "*i", O), ("runAsGroup", "*i", O), ("runAsNonRoot", "*b", O), ("supplementalGroups", "[]i", O), ("supplementalGroupsPolicy", "*s", O), ("fsGroup", "*i", O), ("sysctls", "[]Sysctl", O), ("fsGroupChangePolicy", "*s", O), ("seccompProfile", "*SeccompProfile", O), ("appArmorProfile", "*AppArmorProfile", O), ("seLinuxChangePolicy", "*s", O)]),
    ("PortworxVolumeSource", &[("volumeID", "s", N), ("fsType", "s", O), ("readOnly", "b", O)]),
    ("PreferredSchedulingTerm", &[("weight", "i", N), ("preference", "NodeSelectorTerm", N)]),
    ("Probe", &[("", "ProbeHandler", I), ("initialDelaySeconds", "i", O), ("timeoutSeconds", "i", O), ("periodSeconds", "i", O), ("successThreshold", "i", O), ("failureThreshold", "i", O), ("terminationGracePeriodSeconds", "*i", O)]),
    ("ProbeHandler", &[("exec", "*ExecAction", O), ("httpGet", "*HTTPGetAction", O), ("tcpSocket", "*TCPSocketAction", O), ("grpc", "*GRPCAction", O)]),
    ("ProjectedVolumeSource", &[("sources", "[]VolumeProjection", N), ("defaultMode", "*i", O)]),
    ("ProportionalPolicy", &[("anchor", "s", N), ("ratios", "{}q", O)]),
    ("QuobyteVolumeSource", &[("registry", "s", N), ("volume", "s", N), ("readOnly", "b", O), ("user", "s", O), ("group", "s", O), ("tenant", "s", O)]),
    ("RBDVolumeSource", &[("monitors", "[]s", N), ("image", "s", N), ("fsType", "s", O), ("pool", "s", O), ("user", "s", O), ("keyring", "s", O), ("secretRef", "*LocalObjectReference", O), ("readOnly", "b", O)]),
    ("ResourceClaim", &[("name", "s", N), ("request", "s", O)]),
    ("ResourceFieldSelector", &[("containerName", "s", O), ("resource", "s", N), ("divisor", "q", O)]),
    ("ResourceRequirements", &[("limits", "{}q", O), ("requests", "{}q", O), ("claims", "[]ResourceClaim", O)]),
    ("RouterSpec", &[("", "OmePodSpec", I), ("", "ComponentExtensionSpec", I), ("runner", "*RunnerSpec", O), ("config", "{}s", O)]),
    ("RunnerSpec", &[("", "Container", I)]),
    ("SELinuxOptions", &[("user", "s", O), ("role", "s", O), ("type", "s", O), ("level", "s", O)]),
    ("ScaleIOVolumeSource", &[("gateway", "s", N), ("system", "s", N), ("secretRef", "*LocalObjectReference", N), ("sslEnabled", "b", O), ("protectionDomain", "s", O), ("storagePool", "s", O), ("storageMode", "s", O), ("volumeName", "s", O), ("fsType", "s", O), ("readOnly", "b", O)]),
    ("ScalingPolicy", &[("mode", "s", N), ("proportional", "*ProportionalPolicy", O)]),
    ("SeccompProfile", &[("type", "s", N), ("localhostProfile", "*s", O)]),
    ("SecretEnvSource", &[("", "LocalObjectReference", I), ("optional", "*b", O)]),
    ("SecretKeySelector", &[("", "LocalObjectReference", I), ("key", "s", N), ("optional", "*b", O)]),
    ("SecretProjection", &[("", "LocalObjectReference", I), ("items", "[]KeyToPath", O), ("optional", "*b", O)]),
    ("SecretVolumeSource", &[("secretName", "s", O), ("items", "[]KeyToPath", O), ("defaultMode", "*i", O), ("optional", "*b", O)]),
    ("SecurityContext", &[("capabilities", "*Capabilities", O), ("privileged", "*b", O), ("seLinuxOptions", "*SELinuxOptions", O), ("windowsOptions", "*WindowsSecurityContextOptions", O), ("runAsUser", "*i", O), ("runAsGroup", "*i", O), ("runAsNonRoot", "*b", O), ("readOnlyRootFilesystem", "*b", O), ("allowPrivilegeEscalation", "*b", O), ("procMount", "*s", O), ("seccompProfile", "*SeccompProfile", O), ("appArmorProfile", "*AppArmorProfile", O)]),
    ("ServiceAccountTokenProjection", &[("audience", "s", O), ("expirationSeconds", "*i", O), ("path", "s", N)]),
    ("ServingRuntimePodSpec", &[("containers", "[]Container", N), ("volumes", "[]Volume", O), ("nodeSelector", "{}s", O), ("affinity", "*Affinity", O), ("tolerations", "[]Toleration", O), ("labels", "{}s", O), ("annotations", "{}s", O), ("imagePullSecrets", "[]LocalObjectReference", O), ("schedulerName", "s", O), ("hostIPC", "b", O), ("dnsPolicy", "s", O), ("hostNetwork", "b", O)]),
    ("ServingRuntimeSpec", &[("supportedModelFormats", "[]SupportedModelFormat", O), ("modelSizeRange", "*ModelSizeRangeSpec", O), ("disabled", "*b", O), ("routerConfig", "*RouterSpec", O), ("engineConfig", "*EngineSpec", O), ("decoderConfig", "*DecoderSpec", O), ("protocolVersions", "[]s", O), ("", "ServingRuntimePodSpec", I), ("scalingPolicy", "*ScalingPolicy", O), ("acceleratorRequirements", "*AcceleratorRequirements", O)]),
    ("SleepAction", &[("seconds", "i", N)]),
    ("StorageOSVolumeSource", &[("volumeName", "s", O), ("volumeNamespace", "s", O), ("fsType", "s", O), ("readOnly", "b", O), ("secretRef", "*LocalObjectReference", O)]),
    ("SupportedModelFormat", &[("name", "s", N), ("modelFormat", "*ModelFormat", N), ("modelType", "*s", O), ("version", "*s", O), ("modelFramework", "*ModelFrameworkSpec", O), ("modelArchitecture", "*s", O), ("quantization", "*s", O), ("diffusionPipeline", "*DiffusionPipelineSpec", O), ("modelCacheProviders", "[]s", O), ("autoSelect", "*b", O), ("priority", "*i", O), ("acceleratorConfig", "{}*AcceleratorModelConfig", O)]),
    ("Sysctl", &[("name", "s", N), ("value", "s", N)]),
    ("TCPSocketAction", &[("port", "ios", N), ("host", "s", O)]),
    ("TensorParallelismConfig", &[("tensorParallelSize", "*i", O), ("pipelineParallelSize", "*i", O), ("dataParallelSize", "*i", O)]),
    ("Toleration", &[("key", "s", O), ("operator", "s", O), ("value", "s", O), ("effect", "s", O), ("tolerationSeconds", "*i", O)]),
    ("TopologySpreadConstraint", &[("maxSkew", "i", N), ("topologyKey", "s", N), ("whenUnsatisfiable", "s", N), ("labelSelector", "*LabelSelector", O), ("minDomains", "*i", O), ("nodeAffinityPolicy", "*s", O), ("nodeTaintsPolicy", "*s", O), ("matchLabelKeys", "[]s", O)]),
    ("TypedLocalObjectReference", &[("apiGroup", "*s", N), ("kind", "s", N), ("name", "s", N)]),
    ("TypedObjectReference", &[("apiGroup", "*s", N), ("kind", "s", N), ("name", "s", N), ("namespace", "*s", O)]),
    ("Volume", &[("name", "s", N), ("", "VolumeSource", I)]),
    ("VolumeDevice", &[("name", "s", N), ("devicePath", "s", N)]),
    ("VolumeMount", &[("name", "s", N), ("readOnly", "b", O), ("recursiveReadOnly", "*s", O), ("mountPath", "s", N), ("subPath", "s", O), ("mountPropagation", "*s", O), ("subPathExpr", "s", O)]),
    ("VolumeProjection", &[("secret", "*SecretProjection", O), ("downwardAPI", "*DownwardAPIProjection", O), ("configMap", "*ConfigMapProjection", O), ("serviceAccountToken", "*ServiceAccountTokenProjection", O), ("clusterTrustBundle", "*ClusterTrustBundleProjection", O), ("podCertificate", "*PodCertificateProjection", O)]),
    ("VolumeResourceRequirements", &[("limits", "{}q", O), ("requests", "{}q", O)]),
    ("VolumeSource", &[("hostPath", "*HostPathVolumeSource", O), ("emptyDir", "*EmptyDirVolumeSource", O), ("gcePersistentDisk", "*GCEPersistentDiskVolumeSource", O), ("awsElasticBlockStore", "*AWSElasticBlockStoreVolumeSource", O), ("gitRepo", "*GitRepoVolumeSource", O), ("secret", "*SecretVolumeSource", O), ("nfs", "*NFSVolumeSource", O), ("iscsi", "*ISCSIVolumeSource", O), ("glusterfs", "*GlusterfsVolumeSource", O), ("persistentVolumeClaim", "*PersistentVolumeClaimVolumeSource", O), ("rbd", "*RBDVolumeSource", O), ("flexVolume", "*FlexVolumeSource", O), ("cinder", "*CinderVolumeSource", O), ("cephfs", "*CephFSVolumeSource", O), ("flocker", "*FlockerVolumeSource", O), ("downwardAPI", "*DownwardAPIVolumeSource", O), ("fc", "*FCVolumeSource", O), ("azureFile", "*AzureFileVolumeSource", O), ("configMap", "*ConfigMapVolumeSource", O), ("vsphereVolume", "*VsphereVirtualDiskVolumeSource", O), ("quobyte", "*QuobyteVolumeSource", O), ("azureDisk", "*AzureDiskVolumeSource", O), ("photonPersistentDisk", "*PhotonPersistentDiskVolumeSource", O), ("projected", "*ProjectedVolumeSource", O), ("portworxVolume", "*PortworxVolumeSource", O), ("scaleIO", "*ScaleIOVolumeSource", O), ("storageos", "*StorageOSVolumeSource", O), ("csi", "*CSIVolumeSource", O), ("ephemeral", "*EphemeralVolumeSource", O), ("image", "*ImageVolumeSource", O)]),
    ("VsphereVirtualDiskVolumeSource", &[("volumePath", "s", N), ("fsType", "s", O), ("storagePolicyName", "s", O), ("storagePolicyID", "s", O)]),
    ("WeightedPodAffinityTerm", &[("weight", "i", N), ("podAffinityTerm", "PodAffinityTerm", N)]),
    ("WindowsSecurityContextOptions", &[("gmsaCredentialSpecName", "*s", O), ("gmsaCredentialSpec", "*s", O), ("runAsUserName", "*s", O), ("hostProcess", "*b", O)]),
    ("WorkerSpec", &[("", "OmePodSpec", I), ("size", "*i", O), ("runner", "*RunnerSpec", O)]),
    ("apps.DeploymentStrategy", &[("type", "s", O), ("rollingUpdate", "*apps.RollingUpdateDeployment", O)]),
    ("apps.RollingUpdateDeployment", &[("maxUnavailable", "*ios", O), ("maxSurge", "*ios", O)]),
    ("as.ContainerResourceMetricSource", &[("name", "s", N), ("target", "as.MetricTarget", N), ("container", "s", N)]),
    ("as.CrossVersionObjectReference", &[("kind", "s", N), ("name", "s", N), ("apiVersion", "s", O)]),
    ("as.ExternalMetricSource", &[("metric", "as.MetricIdentifier", N), ("target", "as.MetricTarget", N)]),
    ("as.HPAScalingPolicy", &[("type", "s", N), ("value", "i", N), ("periodSeconds", "i", N)]),
    ("as.HPAScalingRules", &[("stabilizationWindowSeconds", "*i", O), ("selectPolicy", "*s", O), ("policies", "[]as.HPAScalingPolicy", O), ("tolerance", "*q", O)]),
    ("as.HorizontalPodAutoscalerBehavior", &[("scaleUp", "*as.HPAScalingRules", O), ("scaleDown", "*as.HPAScalingRules", O)]),
    ("as.MetricIdentifier", &[("name", "s", N), ("selector", "*LabelSelector", O)]),
    ("as.MetricSpec", &[("type", "s", N), ("object", "*as.ObjectMetricSource", O), ("pods", "*as.PodsMetricSource", O), ("resource", "*as.ResourceMetricSource", O), ("containerResource", "*as.ContainerResourceMetricSource", O), ("external", "*as.ExternalMetricSource", O)]),
    ("as.MetricTarget", &[("type", "s", N), ("value", "*q", O), ("averageValue", "*q", O), ("averageUtilization", "*i", O)]),
    ("as.ObjectMetricSource", &[("describedObject", "as.CrossVersionObjectReference", N), ("target", "as.MetricTarget", N), ("metric", "as.MetricIdentifier", N)]),
    ("as.PodsMetricSource", &[("metric", "as.MetricIdentifier", N), ("target", "as.MetricTarget", N)]),
    ("as.ResourceMetricSource", &[("name", "s", N), ("target", "as.MetricTarget", N)]),
];

/// A default the CRD's structural schema writes into a stored object where the field's
/// parent is present and the field is not (`+kubebuilder:default` on OME's types, `+default`
/// on the Kubernetes types controller-gen copies into OME's CRDs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Default {
    Str(&'static str),
    Int(i64),
    Bool(bool),
}

/// `(struct, field, default)`.
pub(super) const DEFAULTS: &[(&str, &str, Default)] = &[
    (
        "AzureDiskVolumeSource",
        "cachingMode",
        Default::Str("ReadWrite"),
    ),
    ("AzureDiskVolumeSource", "fsType", Default::Str("ext4")),
    ("AzureDiskVolumeSource", "kind", Default::Str("Shared")),
    ("AzureDiskVolumeSource", "readOnly", Default::Bool(false)),
    ("ContainerPort", "protocol", Default::Str("TCP")),
    ("FileKeySelector", "optional", Default::Bool(false)),
    ("GRPCAction", "service", Default::Str("")),
    (
        "ISCSIVolumeSource",
        "iscsiInterface",
        Default::Str("default"),
    ),
    ("ModelFormat", "operator", Default::Str("Equal")),
    ("ModelFormat", "weight", Default::Int(1)),
    ("ModelFrameworkSpec", "operator", Default::Str("Equal")),
    ("ModelFrameworkSpec", "weight", Default::Int(1)),
    ("ProportionalPolicy", "anchor", Default::Str("engine")),
    (
        "RBDVolumeSource",
        "keyring",
        Default::Str("/etc/ceph/keyring"),
    ),
    ("RBDVolumeSource", "pool", Default::Str("rbd")),
    ("RBDVolumeSource", "user", Default::Str("admin")),
    ("ScaleIOVolumeSource", "fsType", Default::Str("xfs")),
    (
        "ScaleIOVolumeSource",
        "storageMode",
        Default::Str("ThinProvisioned"),
    ),
    ("ScalingPolicy", "mode", Default::Str("Independent")),
];

/// The fields of struct `name`.
pub(super) fn fields(name: &str) -> Option<&'static [Field]> {
    TYPES
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| TYPES[i].1)
}

/// The default of `field` in struct `name`, if the CRD has one.
pub(super) fn default_of(name: &str, field: &str) -> Option<Default> {
    DEFAULTS
        .iter()
        .find(|(s, f, _)| *s == name && *f == field)
        .map(|(_, _, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_sorted_and_every_reference_resolves() {
        assert!(TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, fs) in TYPES {
            for (json, ty, flags) in *fs {
                let mut core = *ty;
                loop {
                    if let Some(rest) = core.strip_prefix('*') {
                        core = rest;
                    } else if let Some(rest) = core.strip_prefix("[]").or(core.strip_prefix("{}")) {
                        core = rest;
                    } else {
                        break;
                    }
                }
                let scalar = matches!(core, "s" | "i" | "b" | "q" | "ios" | "?");
                assert!(scalar || fields(core).is_some(), "{name}.{json}: {ty}");
                assert!(*flags != I || fields(ty).is_some(), "{name}: inline {ty}");
            }
        }
        for (s, f, _) in DEFAULTS {
            assert!(
                fields(s).is_some_and(|fs| fs.iter().any(|(j, _, _)| j == f)),
                "{s}.{f}"
            );
        }
    }

    #[test]
    fn runtime_spec_order_is_go_order() {
        let names: Vec<&str> = fields("ServingRuntimeSpec")
            .unwrap()
            .iter()
            .map(|f| f.0)
            .collect();
        assert_eq!(
            names,
            [
                "supportedModelFormats",
                "modelSizeRange",
                "disabled",
                "routerConfig",
                "engineConfig",
                "decoderConfig",
                "protocolVersions",
                "",
                "scalingPolicy",
                "acceleratorRequirements"
            ]
        );
    }
}
