//! RDMA auto-injection (`rdma.ome.io/auto-inject: "true"`), with the profile tables of the
//! newest v1.3-line `rdma_injector.go` (SEMANTICS.md#pod-webhook names the commit).
//!
//! The profile (`rdma.ome.io/profile`, default `oci-roce`) applies to the container
//! `rdma.ome.io/container-name` names (default `ome-container`): its environment in name
//! order, each variable only when the container has none of that name (a container's own
//! value wins); the pod's volumes and the container's mounts not already there by name;
//! `IPC_LOCK` added to the container's capabilities; Multus network attachments merged into
//! `k8s.v1.cni.cncf.io/networks` by name and namespace.

use super::{Context, Pod, add_env, add_mount, dshm_mount, dshm_volume};
use crate::map;
use crate::yaml::{Map, Node};

const AUTO_INJECT: &str = "rdma.ome.io/auto-inject";
const PROFILE: &str = "rdma.ome.io/profile";
const CONTAINER_NAME: &str = "rdma.ome.io/container-name";
const DEFAULT_PROFILE: &str = "oci-roce";
const NETWORKS: &str = "k8s.v1.cni.cncf.io/networks";
const DEVINF_VOLUME: &str = "devinf";

/// What one profile injects.
struct Profile {
    name: &'static str,
    /// Environment, in any order: it is applied sorted by name, as OME sorts it.
    env: &'static [(&'static str, &'static str)],
    /// The `dshm` and `/dev/infiniband` volumes and mounts, and `IPC_LOCK`.
    devices: bool,
    /// Multus attachments `(name, namespace)`.
    networks: fn() -> Vec<(String, String)>,
}

fn no_networks() -> Vec<(String, String)> {
    Vec::new()
}

/// `cks-gb-rdma`: the 16 attachments of a GB200/GB300 node, 4 HCAs × 4 ports.
fn cks_gb_networks() -> Vec<(String, String)> {
    (0..4)
        .flat_map(|hca| (0..4).map(move |port| (hca, port)))
        .map(|(hca, port)| (format!("ibs{hca}p{port}-macvlan"), "cw-multus".to_string()))
        .collect()
}

const PROFILES: &[Profile] = &[
    Profile {
        name: "oci-roce",
        // No UCX_TLS / UCX_NET_DEVICES since ome-projects/ome#837.
        env: &[
            ("NCCL_NET_PLUGIN", "none"),
            ("NCCL_DEBUG", "INFO"),
            ("NCCL_CROSS_NIC", "2"),
            ("NCCL_SOCKET_NTHREADS", "16"),
            ("NCCL_CUMEM_ENABLE", "0"),
            ("NCCL_IB_SPLIT_DATA_ON_QPS", "0"),
            ("NCCL_IB_QPS_PER_CONNECTION", "16"),
            ("NCCL_IB_GID_INDEX", "3"),
            (
                "NCCL_IB_HCA",
                "=mlx5_0,mlx5_1,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_12,mlx5_13,mlx5_14,mlx5_15,mlx5_16,mlx5_17",
            ),
            ("NCCL_IB_TC", "41"),
            ("NCCL_IB_SL", "0"),
            ("NCCL_IB_TIMEOUT", "22"),
            ("HCOLL_ENABLE_MCAST_ALL", "0"),
            ("coll_hcoll_enable", "0"),
            ("RX_QUEUE_LEN", "8192"),
            ("IB_RX_QUEUE_LEN", "8192"),
            ("NCCL_SOCKET_IFNAME", "eth0"),
            ("NCCL_IGNORE_CPU_AFFINITY", "1"),
            ("GLOO_SOCKET_IFNAME", "eth0"),
        ],
        devices: true,
        networks: no_networks,
    },
    Profile {
        name: "cks-gb-sglang",
        env: &[
            ("MC_TE_METRIC", "true"),
            ("NCCL_MNNVL_ENABLE", "1"),
            ("NCCL_CUMEM_ENABLE", "1"),
            ("NCCL_IB_ADDR_FAMILY", "AF_INET6"),
            ("NCCL_SOCKET_IFNAME", "eth0"),
            ("NCCL_SOCKET_FAMILY", "AF_INET6"),
        ],
        devices: true,
        networks: no_networks,
    },
    Profile {
        name: "cks-gb-rdma",
        env: &[],
        devices: false,
        networks: cks_gb_networks,
    },
];

pub(super) fn inject(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    if pod.annotation(AUTO_INJECT) != Some("true") {
        return Ok(());
    }
    let name = pod.nonempty(PROFILE).unwrap_or(DEFAULT_PROFILE).to_string();
    let Some(profile) = PROFILES.iter().find(|p| p.name == name) else {
        let known: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        let key = if pod.nonempty(PROFILE).is_some() {
            PROFILE
        } else {
            AUTO_INJECT
        };
        cx.unknown_profile(key, "RDMA", &name, &known);
        return Err(());
    };
    let target = pod
        .nonempty(CONTAINER_NAME)
        .unwrap_or(super::DEFAULT_CONTAINER)
        .to_string();
    if pod.container(&target).is_none() {
        let key = if pod.nonempty(CONTAINER_NAME).is_some() {
            CONTAINER_NAME
        } else {
            AUTO_INJECT
        };
        cx.missing_container(key, "RDMA", &target);
        return Ok(());
    }
    if profile.devices {
        pod.add_volume(dshm_volume());
        pod.add_volume(Node::map(map! {
            "name" => Node::str(DEVINF_VOLUME),
            "hostPath" => Node::map(map! { "path" => Node::str("/dev/infiniband") }),
        }));
    }
    let networks = (profile.networks)();
    if !networks.is_empty() {
        let existing = pod.annotation(NETWORKS).unwrap_or("").to_string();
        match merge_networks(&existing, &networks) {
            Ok(value) => pod.set_annotation(NETWORKS, &value),
            Err(reason) => {
                cx.refuse(
                    NETWORKS,
                    format!("rdma-injector: {NETWORKS} annotation is not a valid JSON array: {reason}"),
                    format!("write {NETWORKS} as a JSON array of {{\"name\", \"namespace\"}} objects (the profile {name} merges its attachments into it)"),
                );
                return Err(());
            }
        }
    }
    let Some(container) = pod.container(&target) else {
        return Ok(());
    };
    let mut env: Vec<_> = profile.env.to_vec();
    env.sort_unstable();
    for (k, v) in env {
        add_env(container, k, v);
    }
    if profile.devices {
        add_mount(container, dshm_mount());
        add_mount(
            container,
            Node::map(map! {
                "name" => Node::str(DEVINF_VOLUME),
                "mountPath" => Node::str("/dev/infiniband"),
            }),
        );
        add_capability(container, "IPC_LOCK");
    }
    Ok(())
}

/// Adds `capability` to `securityContext.capabilities.add` unless it is there; what else the
/// container's security context says stays (`privileged` is never set).
fn add_capability(container: &mut Map, capability: &str) {
    let context = container.entry_or("securityContext", || Node::map(Map::new()));
    if context.as_map().is_none() {
        *context = Node::map(Map::new());
    }
    let Some(context) = context.as_map_mut() else {
        return;
    };
    let caps = context.entry_or("capabilities", || Node::map(Map::new()));
    if caps.as_map().is_none() {
        *caps = Node::map(Map::new());
    }
    let Some(caps) = caps.as_map_mut() else {
        return;
    };
    let add = caps.entry_or("add", || Node::seq(Vec::new()));
    if add.as_seq().is_none() {
        *add = Node::seq(Vec::new());
    }
    if let Some(list) = add.as_seq_mut()
        && !list.iter().any(|c| c.as_str() == Some(capability))
    {
        list.push(Node::str(capability));
    }
}

/// The Multus annotation with `networks` added after the attachments it already lists, as
/// OME re-serialises it: a JSON array of `{"name", "namespace"}` (namespace left out when
/// empty), other fields of an entry dropped, no entry twice by name and namespace.
fn merge_networks(existing: &str, networks: &[(String, String)]) -> Result<String, String> {
    let mut merged: Vec<(String, String)> = Vec::new();
    if !existing.is_empty() {
        merged = parse_networks(existing)?;
    }
    for n in networks {
        if !merged.contains(n) {
            merged.push(n.clone());
        }
    }
    let mut out = Vec::from(&b"["[..]);
    for (i, (name, namespace)) in merged.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        crate::yaml::emit::write_json_string(name, &mut out);
        if !namespace.is_empty() {
            out.extend_from_slice(b",\"namespace\":");
            crate::yaml::emit::write_json_string(namespace, &mut out);
        }
        out.push(b'}');
    }
    out.push(b']');
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// A JSON array of objects with string `name` and `namespace`; anything else is refused, as
/// Go's decoder refuses it (the comma-separated Multus form included).
fn parse_networks(text: &str) -> Result<Vec<(String, String)>, String> {
    if !text.trim_start().starts_with('[') {
        return Err("the value is not a JSON array".to_string());
    }
    let docs = crate::yaml::parse::parse_stream(text, 0).map_err(|e| e.message)?;
    let items = docs
        .first()
        .and_then(|d| d.root.as_seq())
        .ok_or_else(|| "the value is not a JSON array".to_string())?;
    let field = |item: &Node, key: &str| -> Result<String, String> {
        match item.get(key) {
            None => Ok(String::new()),
            Some(n) if n.is_null() => Ok(String::new()),
            Some(n) => n
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("`{key}` is not a string")),
        }
    };
    items
        .iter()
        .map(|item| {
            if item.as_map().is_none() {
                return Err("an entry is not an object".to_string());
            }
            Ok((field(item, "name")?, field(item, "namespace")?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_idempotent, run};
    use crate::yaml::Node;

    fn template(annotations: &str, container: &str) -> String {
        format!(
            "metadata:\n  labels: {{ome.io/inferenceservice: x}}\n  annotations: {annotations}\nspec:\n  containers: [{container}]\n"
        )
    }

    fn env_names(t: &Node) -> Vec<String> {
        t.at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0]
            .get("env")
            .and_then(Node::as_seq)
            .unwrap()
            .iter()
            .map(|e| e.str_at(&["name"]).unwrap().to_string())
            .collect()
    }

    #[test]
    fn oci_roce_by_default_in_name_order_without_ucx() {
        let t = assert_idempotent(&template(
            "{rdma.ome.io/auto-inject: 'true'}",
            "{name: ome-container, image: i}",
        ));
        let names = env_names(&t);
        assert_eq!(names.len(), 19);
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(!names.iter().any(|n| n.starts_with("UCX_")));
        let c = &t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        assert_eq!(
            c.at(&["securityContext", "capabilities", "add"])
                .and_then(Node::as_seq)
                .map(|l| l.len()),
            Some(1)
        );
        assert!(c.at(&["securityContext", "privileged"]).is_none());
        assert_eq!(
            c.at(&["volumeMounts"])
                .and_then(Node::as_seq)
                .map(|l| l.len()),
            Some(2)
        );
    }

    #[test]
    fn the_containers_own_values_win() {
        // OME's tests: an existing env value, mount, volume and capability are kept and not
        // duplicated; an existing capability list gets IPC_LOCK appended.
        let t = assert_idempotent(
            "metadata:\n  labels: {ome.io/inferenceservice: x}\n  annotations: {rdma.ome.io/auto-inject: 'true'}\nspec:\n  volumes: [{name: dshm, emptyDir: {}}]\n  containers:\n  - name: ome-container\n    image: i\n    env: [{name: NCCL_DEBUG, value: WARN}]\n    volumeMounts: [{name: dshm, mountPath: /custom}]\n    securityContext: {runAsUser: 1000, capabilities: {add: [NET_ADMIN]}}\n",
        );
        let c = &t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        let env = c.get("env").and_then(Node::as_seq).unwrap();
        assert_eq!(env[0].str_at(&["value"]), Some("WARN"));
        assert_eq!(
            env.iter()
                .filter(|e| e.str_at(&["name"]) == Some("NCCL_DEBUG"))
                .count(),
            1
        );
        let mounts = c.get("volumeMounts").and_then(Node::as_seq).unwrap();
        assert_eq!(mounts[0].str_at(&["mountPath"]), Some("/custom"));
        assert_eq!(mounts.len(), 2);
        let volumes = t.at(&["spec", "volumes"]).and_then(Node::as_seq).unwrap();
        assert_eq!(volumes.len(), 2);
        assert!(volumes[0].at(&["emptyDir", "medium"]).is_none());
        let caps: Vec<_> = c
            .at(&["securityContext", "capabilities", "add"])
            .and_then(Node::as_seq)
            .unwrap()
            .iter()
            .filter_map(Node::as_str)
            .collect();
        assert_eq!(caps, ["NET_ADMIN", "IPC_LOCK"]);
        assert_eq!(
            c.at(&["securityContext", "runAsUser"])
                .and_then(Node::as_i64),
            Some(1000)
        );
    }

    #[test]
    fn custom_container_and_missing_container() {
        let t = assert_idempotent(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/container-name: side}",
            "{name: ome-container, image: i}, {name: side, image: j}",
        ));
        let cs = t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap();
        assert!(cs[0].get("env").is_none());
        assert!(cs[1].get("env").is_some());
        // A container the pod lacks: nothing injected, a warning.
        let (t, diags) = run(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/container-name: nope}",
            "{name: ome-container, image: i}",
        ));
        assert!(t.at(&["spec", "volumes"]).is_none());
        assert_eq!(diags.len(), 1);
        assert!(!diags[0].is_error());
    }

    #[test]
    fn auto_inject_must_be_true() {
        let (t, diags) = run(&template(
            "{rdma.ome.io/auto-inject: 'True'}",
            "{name: ome-container, image: i}",
        ));
        assert!(diags.is_empty());
        assert!(t.at(&["spec", "volumes"]).is_none());
    }

    #[test]
    fn unknown_profile_is_omes_error() {
        let (_, diags) = run(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/profile: oci-rcoe}",
            "{name: ome-container, image: i}",
        ));
        assert_eq!(diags.len(), 1);
        assert!(diags[0].is_error());
        assert!(
            diags[0].message.ends_with("unknown RDMA profile: oci-rcoe"),
            "{}",
            diags[0].message
        );
        assert!(
            diags[0]
                .help
                .as_deref()
                .unwrap()
                .contains("did you mean `oci-roce`")
        );
    }

    #[test]
    fn cks_gb_sglang_env_and_devices() {
        let t = assert_idempotent(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/profile: cks-gb-sglang}",
            "{name: ome-container, image: i}",
        ));
        assert_eq!(
            env_names(&t),
            [
                "MC_TE_METRIC",
                "NCCL_CUMEM_ENABLE",
                "NCCL_IB_ADDR_FAMILY",
                "NCCL_MNNVL_ENABLE",
                "NCCL_SOCKET_FAMILY",
                "NCCL_SOCKET_IFNAME"
            ]
        );
        assert_eq!(
            t.at(&["spec", "volumes"])
                .and_then(Node::as_seq)
                .map(|v| v.len()),
            Some(2)
        );
    }

    #[test]
    fn cks_gb_rdma_merges_network_attachments() {
        let t = assert_idempotent(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/profile: cks-gb-rdma, k8s.v1.cni.cncf.io/networks: '[{\"name\":\"ibs0p0-macvlan\",\"namespace\":\"cw-multus\",\"interface\":\"x\"},{\"name\":\"mine\"}]'}",
            "{name: ome-container, image: i}",
        ));
        let value = t
            .str_at(&["metadata", "annotations", "k8s.v1.cni.cncf.io/networks"])
            .unwrap();
        assert!(value.starts_with(
            "[{\"name\":\"ibs0p0-macvlan\",\"namespace\":\"cw-multus\"},{\"name\":\"mine\"},{\"name\":\"ibs0p1-macvlan\",\"namespace\":\"cw-multus\"},"
        ), "{value}");
        assert_eq!(value.matches("macvlan").count(), 16);
        // No env, volumes or capabilities.
        assert!(t.at(&["spec", "volumes"]).is_none());
        let c = &t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        assert!(c.get("env").is_none() && c.get("securityContext").is_none());
    }

    #[test]
    fn a_malformed_networks_annotation_is_refused() {
        let (_, diags) = run(&template(
            "{rdma.ome.io/auto-inject: 'true', rdma.ome.io/profile: cks-gb-rdma, k8s.v1.cni.cncf.io/networks: 'net1,net2'}",
            "{name: ome-container, image: i}",
        ));
        assert_eq!(diags.len(), 1);
        assert!(diags[0].is_error());
        assert!(diags[0].message.contains("is not a valid JSON array"));
    }
}
