//! A component's autoscaling as OME v1.3's controller resolves it (SEMANTICS.md#autoscaling):
//! the replica bounds, field by field from the InferenceService, the runtime and the replica
//! defaults; the `autoscaler` block, whole from the first layer that has one (the
//! InferenceService, the runtime, the legacy annotations, the default); and the bounds the
//! RawDeployment dispatch accepts. What OME's controller would fail on is returned as its
//! error text.

use crate::admission::autoscaler::{AUTOSCALER_CLASS_ANNOTATION, TARGET_UTILIZATION_ANNOTATION};
use crate::model::Role;
use crate::model::settings::ReplicaDefaults;
use crate::yaml::{Node, Pos};
use std::collections::BTreeMap;

/// The autoscaler class in effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Hpa,
    Keda,
    External,
    None,
}

/// Where the block came from (`status.components.<c>.autoscaler.specSource` in OME).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Isvc,
    Runtime,
    Legacy,
    Default,
}

/// The resolved autoscaling of one component.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Autoscaling<'a> {
    pub(crate) class: Class,
    pub(crate) source: Source,
    /// The whole `autoscaler` block, when it came from the InferenceService or the runtime.
    pub(crate) block: Option<&'a Node>,
    /// The CPU target of the legacy `ome.io/targetUtilizationPercentage` annotation.
    pub(crate) legacy_target: Option<i64>,
    /// Where the choice was written, for diagnostics.
    pub(crate) pos: Pos,
}

impl Autoscaling<'_> {
    /// The block's `keda` part.
    pub(crate) fn keda(&self) -> Option<&Node> {
        self.block
            .and_then(|b| b.get("keda"))
            .filter(|k| !k.is_null())
    }

    /// Whether this is a KEDA block with at least one trigger (what the RawDeployment
    /// dispatch requires of KEDA, and of `minReplicas: 0`).
    pub(crate) fn keda_with_triggers(&self) -> bool {
        self.class == Class::Keda
            && self
                .keda()
                .and_then(|k| k.get("triggers"))
                .and_then(Node::as_seq)
                .is_some_and(|t| !t.is_empty())
    }
}

fn class_of(block: &Node) -> Option<Class> {
    match block.get("class").and_then(Node::as_str) {
        Some("HPA") => Some(Class::Hpa),
        Some("KEDA") => Some(Class::Keda),
        Some("External") => Some(Class::External),
        Some("None") => Some(Class::None),
        _ => None,
    }
}

/// The autoscaling of a RawDeployment component: the InferenceService's own block (`raw`),
/// else the runtime's `<role>Config.autoscaler`, else the legacy annotations of the
/// component (`annotations`: the InferenceService's with the component's over them), else
/// OME's default, HPA at the default CPU target. `legacy_pos` finds where an annotation was
/// written. An error is OME's controller's text.
pub(crate) fn resolve<'a>(
    raw: &'a Node,
    runtime_config: Option<&'a Node>,
    annotations: &BTreeMap<String, String>,
    legacy_pos: impl Fn(&str) -> Pos,
) -> Result<Autoscaling<'a>, String> {
    let typed = [
        (raw.get("autoscaler"), Source::Isvc),
        (
            runtime_config.and_then(|c| c.get("autoscaler")),
            Source::Runtime,
        ),
    ];
    for (block, source) in typed {
        let Some(block) = block.filter(|b| !b.is_null()) else {
            continue;
        };
        let Some(class) = class_of(block) else {
            return Err(format!(
                "autoscaler.class {} is not one of HPA|KEDA|External|None",
                crate::go::quote(block.str_at(&["class"]).unwrap_or(""))
            ));
        };
        return Ok(Autoscaling {
            class,
            source,
            block: Some(block),
            legacy_target: None,
            pos: block.pos,
        });
    }
    let class = annotations.get(AUTOSCALER_CLASS_ANNOTATION);
    let target = annotations.get(TARGET_UTILIZATION_ANNOTATION);
    if class.is_none() && target.is_none() {
        return Ok(Autoscaling {
            class: Class::Hpa,
            source: Source::Default,
            block: None,
            legacy_target: None,
            pos: raw.pos,
        });
    }
    let pos = legacy_pos(if class.is_some() {
        AUTOSCALER_CLASS_ANNOTATION
    } else {
        TARGET_UTILIZATION_ANNOTATION
    });
    let class = match class.map(String::as_str) {
        None | Some("hpa") => Class::Hpa,
        Some("keda") => Class::Keda,
        Some("external") => Class::External,
        Some(other) => {
            return Err(format!(
                "unknown legacy autoscaler class {} in {AUTOSCALER_CLASS_ANNOTATION} annotation",
                crate::go::quote(other)
            ));
        }
    };
    // Go's strconv.ParseInt(v, 10, 32): a sign and digits, within int32; anything else keeps
    // the default target.
    let legacy_target = match class {
        Class::Hpa => target.and_then(|t| t.parse::<i32>().ok()).map(i64::from),
        _ => None,
    };
    Ok(Autoscaling {
        class,
        source: Source::Legacy,
        block: None,
        legacy_target,
        pos,
    })
}

/// A component's replica bounds after the controller's defaults (`specdefaults`): each bound
/// from the merged component (the InferenceService's value over the runtime's; `maxReplicas:
/// 0` is unset), else the replica default; a default maximum below the minimum is raised to
/// it (an authored one never is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) min: Option<i64>,
    /// 0 when neither a value nor a default sets it.
    pub(crate) max: i64,
}

pub(crate) fn bounds(merged: &Node, role: Role, defaults: &ReplicaDefaults) -> Bounds {
    let min = merged
        .get("minReplicas")
        .and_then(Node::as_i64)
        .or(defaults.min);
    let mut max = merged
        .get("maxReplicas")
        .and_then(Node::as_i64)
        .unwrap_or(0);
    if max == 0
        && let Some(default) = defaults.max(role)
    {
        max = match min {
            Some(m) if default < m => m,
            _ => default,
        };
    }
    Bounds { min, max }
}

/// The bounds OME's RawDeployment dispatch stamps on the HPA or ScaledObject
/// (`rawMinMaxReplicas`), or its error.
pub(crate) fn raw_min_max(b: Bounds, autoscaling: &Autoscaling<'_>) -> Result<(i64, i64), String> {
    let min = b.min.unwrap_or(1);
    if min < 0 {
        return Err(format!("minReplicas must be non-negative, got {min}"));
    }
    if b.max < 0 {
        return Err(format!("maxReplicas must be non-negative, got {}", b.max));
    }
    if min == 0 && !autoscaling.keda_with_triggers() {
        return Err("minReplicas=0 requires typed KEDA with at least one trigger".into());
    }
    let max = if b.max == 0 { min.max(1) } else { b.max };
    if min > max {
        return Err(format!(
            "minReplicas must not exceed maxReplicas: {min} > {max}"
        ));
    }
    Ok((min, max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(yaml: &str) -> Node {
        parse_stream(yaml, 0).expect("yaml").remove(0).root
    }

    fn chart() -> ReplicaDefaults {
        ReplicaDefaults {
            min: Some(1),
            max_engine: Some(3),
            max_decoder: Some(3),
            max_router: Some(2),
        }
    }

    fn manifest_install() -> ReplicaDefaults {
        ReplicaDefaults {
            min: None,
            max_engine: None,
            max_decoder: None,
            max_router: None,
        }
    }

    fn annotations(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// OME's "which setting wins" table (component-autoscaling, v1.3), row by row.
    #[test]
    fn the_block_comes_whole_from_the_first_layer_that_has_one() {
        let isvc = node("autoscaler: {class: HPA}");
        let runtime = node(
            "autoscaler: {class: HPA, hpa: {metrics: [{type: Resource, resource: {name: memory}}]}}",
        );
        let keda_runtime =
            node("autoscaler: {class: KEDA, keda: {triggers: [{type: cron, metadata: {}}]}}");
        let bare = node("minReplicas: 1");
        let legacy = annotations(&[("ome.io/autoscalerClass", "external")]);
        let none = annotations(&[]);
        let at = |_: &str| Pos::NONE;

        // 1. The InferenceService's block, whole: no hpa, so the default CPU target, even
        //    though the runtime lists metrics.
        let a = resolve(&isvc, Some(&runtime), &legacy, at).unwrap();
        assert_eq!((a.class, a.source), (Class::Hpa, Source::Isvc));
        assert!(a.block.unwrap().get("hpa").is_none());
        // 2. (AutoscalerPolicy: rejected at admission while the feature is off.)
        // 3. The runtime's block, over the legacy annotations.
        let a = resolve(&bare, Some(&keda_runtime), &legacy, at).unwrap();
        assert_eq!((a.class, a.source), (Class::Keda, Source::Runtime));
        assert!(a.keda_with_triggers());
        // 4. The legacy annotations.
        let a = resolve(&bare, None, &legacy, at).unwrap();
        assert_eq!((a.class, a.source), (Class::External, Source::Legacy));
        // 5. The default: HPA.
        let a = resolve(&bare, None, &none, at).unwrap();
        assert_eq!(
            (a.class, a.source, a.block),
            (Class::Hpa, Source::Default, None)
        );
    }

    #[test]
    fn legacy_annotations_resolve_as_the_controller_reads_them() {
        let bare = node("{}");
        let at = |_: &str| Pos::NONE;
        let r = |pairs: &[(&str, &str)]| resolve(&bare, None, &annotations(pairs), at);
        let hpa = r(&[
            ("ome.io/autoscalerClass", "hpa"),
            ("ome.io/targetUtilizationPercentage", "60"),
        ])
        .unwrap();
        assert_eq!((hpa.class, hpa.legacy_target), (Class::Hpa, Some(60)));
        // The target alone selects hpa; a component-level value out of range is used as is.
        let target = r(&[("ome.io/targetUtilizationPercentage", "200")]).unwrap();
        assert_eq!(
            (target.class, target.legacy_target),
            (Class::Hpa, Some(200))
        );
        // An unparsable target keeps the default.
        let junk = r(&[("ome.io/targetUtilizationPercentage", "high")]).unwrap();
        assert_eq!(junk.legacy_target, None);
        // ome.io/metrics is never applied: it does not even select the legacy layer.
        assert_eq!(
            r(&[("ome.io/metrics", "memory")]).unwrap().source,
            Source::Default
        );
        // keda gives KEDA without triggers, which the dispatch refuses.
        let keda = r(&[("ome.io/autoscalerClass", "keda")]).unwrap();
        assert_eq!(keda.class, Class::Keda);
        assert!(!keda.keda_with_triggers());
        assert_eq!(
            r(&[("ome.io/autoscalerClass", "")]).unwrap_err(),
            r#"unknown legacy autoscaler class "" in ome.io/autoscalerClass annotation"#
        );
    }

    /// OME's "where a component's replicas come from" table (set-replica-defaults, v1.3).
    #[test]
    fn each_bound_comes_from_the_component_the_runtime_or_the_defaults() {
        let b = |yaml: &str, role, d: &ReplicaDefaults| bounds(&node(yaml), role, d);
        // Row 1: the InferenceService's (merged) value.
        assert_eq!(
            b("maxReplicas: 2", Role::Engine, &chart()),
            Bounds {
                min: Some(1),
                max: 2
            }
        );
        // Row 2: the runtime's value reaches the merged component the same way.
        assert_eq!(
            b("minReplicas: 2\nmaxReplicas: 5", Role::Decoder, &chart()),
            Bounds {
                min: Some(2),
                max: 5
            }
        );
        // Row 3: the defaults, per component.
        assert_eq!(
            b("{}", Role::Engine, &chart()),
            Bounds {
                min: Some(1),
                max: 3
            }
        );
        assert_eq!(
            b("{}", Role::Router, &chart()),
            Bounds {
                min: Some(1),
                max: 2
            }
        );
        // minReplicas: 0 is set; maxReplicas: 0 is unset.
        assert_eq!(
            b("minReplicas: 0\nmaxReplicas: 0", Role::Engine, &chart()),
            Bounds {
                min: Some(0),
                max: 3
            }
        );
        // A default max below min is raised; an authored one is not.
        assert_eq!(
            b("minReplicas: 5", Role::Engine, &chart()),
            Bounds {
                min: Some(5),
                max: 5
            }
        );
        assert_eq!(
            b("minReplicas: 5\nmaxReplicas: 2", Role::Engine, &chart()),
            Bounds {
                min: Some(5),
                max: 2
            }
        );
        // A manifest install has no defaults.
        assert_eq!(
            b("{}", Role::Engine, &manifest_install()),
            Bounds { min: None, max: 0 }
        );
    }

    #[test]
    fn the_raw_dispatch_fills_and_checks_the_bounds() {
        let hpa = Autoscaling {
            class: Class::Hpa,
            source: Source::Default,
            block: None,
            legacy_target: None,
            pos: Pos::NONE,
        };
        let keda_block = node("class: KEDA\nkeda: {triggers: [{type: cron, metadata: {}}]}");
        let keda = Autoscaling {
            class: Class::Keda,
            source: Source::Isvc,
            block: Some(&keda_block),
            legacy_target: None,
            pos: Pos::NONE,
        };
        let mm = |min, max, a: &Autoscaling<'_>| raw_min_max(Bounds { min, max }, a);
        // A manifest install: 1..1.
        assert_eq!(mm(None, 0, &hpa), Ok((1, 1)));
        assert_eq!(mm(Some(3), 0, &hpa), Ok((3, 3)));
        assert_eq!(mm(Some(0), 2, &keda), Ok((0, 2)));
        assert_eq!(mm(Some(0), 0, &keda), Ok((0, 1)));
        assert_eq!(
            mm(Some(0), 2, &hpa).unwrap_err(),
            "minReplicas=0 requires typed KEDA with at least one trigger"
        );
        assert_eq!(
            mm(Some(3), 2, &hpa).unwrap_err(),
            "minReplicas must not exceed maxReplicas: 3 > 2"
        );
        assert_eq!(
            mm(Some(-1), 2, &hpa).unwrap_err(),
            "minReplicas must be non-negative, got -1"
        );
        assert_eq!(
            mm(Some(1), -2, &hpa).unwrap_err(),
            "maxReplicas must be non-negative, got -2"
        );
    }
}
