//! The component's KEDA ScaledObject (`keda.sh/v1alpha1`), for `class: KEDA`, as OME v1.3's
//! KEDA reconciler writes it (SEMANTICS.md#autoscaling): the block's `keda` fields copied as
//! they are, the dispatch's replica bounds, and the component's metadata.

use super::autoscaler::{deployment_target, scaler_metadata};
use super::{ComponentNames, object_meta_map, rendered};
use crate::model::InferenceService;
use crate::render::autoscaling::Autoscaling;
use crate::render::metadata::{Meta, string_map_node};
use crate::render::names;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

/// The label KEDA's generator leaves out (it keeps Lens from editing the object).
const DROPPED_LABEL: &str = "k8slens-edit-resource-version";

/// `scaledobject-<last 50 characters of <isvc>-<component>>`, in the field order of KEDA's
/// `ScaledObjectSpec`.
pub(crate) fn scaled_object(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    autoscaling: &Autoscaling<'_>,
    (min, max): (i64, i64),
) -> Rendered {
    // The keys are recorded before the Lens label is left out, as OME records them.
    let (mut labels, annotations) = scaler_metadata(meta, "keda");
    labels.remove(DROPPED_LABEL);
    let mut so = object_meta_map(
        "keda.sh/v1alpha1",
        "ScaledObject",
        &names::scaled_object_name(names.full),
        isvc,
        Some((string_map_node(&labels), string_map_node(&annotations))),
    );
    let keda = autoscaling.keda();
    let field = |key: &str| {
        keda.and_then(|k| k.get(key))
            .filter(|v| !v.is_null())
            .cloned()
    };
    let mut spec = Map::new();
    spec.insert("scaleTargetRef", deployment_target(names.full));
    for key in ["pollingInterval", "cooldownPeriod", "idleReplicaCount"] {
        if let Some(v) = field(key) {
            spec.insert(key, v);
        }
    }
    spec.insert("minReplicaCount", Node::int(min));
    spec.insert("maxReplicaCount", Node::int(max));
    if let Some(v) = field("advanced") {
        spec.insert("advanced", v);
    }
    spec.insert(
        "triggers",
        field("triggers").unwrap_or_else(|| Node::seq(Vec::new())),
    );
    if let Some(v) = field("fallback") {
        spec.insert("fallback", v);
    }
    so.insert("spec", Node::map(spec));
    rendered(isvc, so)
}
