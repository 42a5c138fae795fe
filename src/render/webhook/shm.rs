//! The shm profile (`runtime.ome.io/shm-profile`): `default` adds a memory-backed `/dev/shm`
//! emptyDir without a size limit and its mount, each unless one of that name exists, to the
//! container `runtime.ome.io/container-name` names (default `ome-container`).

use super::{Context, Pod, add_mount, dshm_mount, dshm_volume};

const PROFILE: &str = "runtime.ome.io/shm-profile";
pub(super) const CONTAINER_NAME: &str = "runtime.ome.io/container-name";
const PROFILES: &[&str] = &["default"];

/// The container the runtime profiles target.
pub(super) fn target(pod: &Pod<'_>) -> String {
    pod.nonempty(CONTAINER_NAME)
        .unwrap_or(super::DEFAULT_CONTAINER)
        .to_string()
}

pub(super) fn inject(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    let Some(name) = pod.nonempty(PROFILE).map(str::to_string) else {
        return Ok(());
    };
    if !PROFILES.contains(&name.as_str()) {
        cx.unknown_profile(PROFILE, "shm", &name, PROFILES);
        return Err(());
    }
    let target = target(pod);
    if pod.container(&target).is_none() {
        cx.missing_container(PROFILE, "shm", &target);
        return Ok(());
    }
    pod.add_volume(dshm_volume());
    if let Some(container) = pod.container(&target) {
        add_mount(container, dshm_mount());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_idempotent, run};
    use crate::yaml::Node;

    #[test]
    fn default_adds_the_volume_and_mount_once() {
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/shm-profile: default}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        let v = t.at(&["spec", "volumes"]).and_then(Node::as_seq).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].str_at(&["emptyDir", "medium"]), Some("Memory"));
        assert!(v[0].at(&["emptyDir", "sizeLimit"]).is_none());
        // An existing dshm volume (with a size limit) is kept.
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/shm-profile: default}}\nspec: {volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}], containers: [{name: ome-container, image: i}]}\n",
        );
        let v = t.at(&["spec", "volumes"]).and_then(Node::as_seq).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].str_at(&["emptyDir", "sizeLimit"]), Some("8Gi"));
    }

    #[test]
    fn unknown_profile_is_omes_error() {
        let (_, diags) = run(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/shm-profile: bogus}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert_eq!(diags.len(), 1);
        assert!(diags[0].is_error());
        assert!(diags[0].message.ends_with("unknown shm profile: bogus"));
    }
}
