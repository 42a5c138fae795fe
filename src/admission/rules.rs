//! The one table of admission rules (SEMANTICS.md#admission-rules): each row names the rules
//! of SEMANTICS.md's admission table it implements, the codes it reports, the kind of object
//! it applies to and its check. The runner walks the table in order, so a row's place is the
//! order of its findings (OME's order, within an InferenceService).
//!
//! Adding a rule is one row here (and its check in the kind's file); SEMANTICS.md's list of
//! the rows is compared with this table by a test.

use super::{Findings, accelerator_class, base_model, inference_service as isvc, names, runtime};
use super::{migration, rollout, traffic};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::model::InferenceService;
use crate::yaml::{Map, Node, Pos};

/// The objects a rule applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applies {
    /// Every object of every kind (the API server's metadata rules).
    Every,
    /// Objects of these kinds.
    Kinds(&'static [&'static str]),
}

#[cfg(test)]
impl Applies {
    /// How SEMANTICS.md writes it.
    pub(crate) fn text(self) -> String {
        match self {
            Applies::Every => "every object".to_string(),
            Applies::Kinds(kinds) => kinds.join(", "),
        }
    }
}

/// What a rule reads: the object as written (and an InferenceService's view).
pub(crate) struct Subject<'a> {
    pub(crate) root: &'a Node,
    /// `spec` when it is a map, else an empty map.
    pub(crate) spec: &'a Node,
    pub(crate) group: &'a str,
    pub(crate) kind: &'a str,
    /// False for cluster-scoped kinds.
    pub(crate) namespaced: bool,
    /// The view of an InferenceService (`None` for other kinds).
    pub(crate) isvc: Option<&'a InferenceService>,
}

/// One row of the table.
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "what SEMANTICS.md lists; a test compares the two")
)]
pub(crate) struct Rule {
    /// The row's own name (SEMANTICS.md lists the rows by it).
    pub(crate) id: &'static str,
    /// The IDs of SEMANTICS.md's admission table the check implements.
    pub(crate) implements: &'static [&'static str],
    /// The diagnostic codes it reports.
    pub(crate) codes: &'static [Code],
    pub(crate) applies: Applies,
    pub(crate) check: fn(&mut Findings<'_>, &Subject<'_>),
}

const ISVC: Applies = Applies::Kinds(&["InferenceService"]);
const IS: Code = Code::InvalidInferenceService;

/// The InferenceService's annotations and name (only InferenceService rows call these).
fn annotations<'a>(s: &Subject<'a>) -> &'a Map {
    &s.isvc.expect("an InferenceService rule").annotations
}

fn isvc_name<'a>(s: &Subject<'a>) -> &'a str {
    &s.isvc.expect("an InferenceService rule").name
}

/// Every admission rule, in the order they run.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        id: "metadata",
        implements: &["CRD-19"],
        codes: &[Code::InvalidField],
        applies: Applies::Every,
        check: |f, s| {
            let d = names::check_object(s.root, s.group, s.kind, f.object, s.namespaced);
            f.diags.extend(d);
        },
    },
    Rule {
        id: "isvc-schema",
        implements: &[
            "CRD-01", "CRD-02", "CRD-03", "CRD-04", "CRD-05", "CRD-06", "CRD-07", "CRD-08",
            "CRD-09", "CRD-10", "CRD-14", "CRD-21",
        ],
        codes: &[Code::InvalidField, Code::TtlDelete],
        applies: ISVC,
        check: |f, s| isvc::schema(f, s.spec),
    },
    Rule {
        id: "isvc-legacy-fields",
        implements: &["ISVC-01"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::legacy_fields(f, s.spec),
    },
    Rule {
        id: "isvc-scaling-policy",
        implements: &["ISVC-02"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::scaling_policy(f, IS, s.spec, "spec.scalingPolicy"),
    },
    Rule {
        id: "isvc-migration-requests",
        implements: &["ISVC-03"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::migration_requests(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-ready-policy",
        implements: &["ISVC-04"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::ready_policy_none(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-replica-refs",
        implements: &["ISVC-06"],
        codes: &[IS, Code::UnsupportedMode],
        applies: ISVC,
        check: |f, s| rollout::check_replica_refs(f, s.spec),
    },
    Rule {
        id: "isvc-name",
        implements: &["ISVC-07"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::name(f, s.root, isvc_name(s)),
    },
    Rule {
        id: "isvc-autoscaler-annotations",
        implements: &["ISVC-08"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::legacy_annotations(f, annotations(s)),
    },
    Rule {
        id: "isvc-autoscaler-blocks",
        implements: &["ISVC-09"],
        codes: &[IS, Code::InvalidField],
        applies: ISVC,
        check: |f, s| isvc::autoscaler_blocks(f, s.spec),
    },
    Rule {
        id: "isvc-annotation-conflict",
        implements: &["ISVC-10"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::annotation_conflict(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-policy-refs",
        implements: &["ISVC-11"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::policy_refs(f, s.spec),
    },
    Rule {
        id: "isvc-target-utilization",
        implements: &["ISVC-13"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::target_utilization(f, annotations(s)),
    },
    Rule {
        id: "isvc-decoder-without-engine",
        implements: &["ISVC-14"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::decoder_without_engine(f, s.spec),
    },
    Rule {
        id: "isvc-leader-worker",
        implements: &["ISVC-15"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::leader_worker_pairing(f, s.spec),
    },
    Rule {
        id: "isvc-lean-multi-pod",
        implements: &["ISVC-17"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::lean_multi_pod(f, s.spec),
    },
    Rule {
        id: "isvc-mode-combination",
        implements: &["ISVC-18"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::mode_combination(f, s.spec),
    },
    Rule {
        id: "isvc-scale-to-zero",
        implements: &["ISVC-19"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::scale_to_zero(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-replica-bounds",
        implements: &["ISVC-20"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::replica_bounds(f, s.spec),
    },
    Rule {
        id: "isvc-disruption-budgets",
        implements: &["ISVC-21"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::disruption_budgets(f, s.spec),
    },
    Rule {
        id: "isvc-multi-cluster",
        implements: &["CRD-13", "ISVC-22", "ISVC-23"],
        codes: &[Code::UnsupportedMode],
        applies: ISVC,
        check: |f, s| rollout::check_multi_cluster(f, s.spec),
    },
    Rule {
        id: "isvc-traffic",
        implements: &["CRD-12", "ISVC-24", "ISVC-25"],
        codes: &[Code::InvalidField, IS],
        applies: ISVC,
        check: |f, s| traffic::check_spec(f, s.spec),
    },
    Rule {
        id: "isvc-traffic-annotations",
        implements: &["ISVC-26"],
        codes: &[IS, Code::AdmissionWarning],
        applies: ISVC,
        check: |f, s| traffic::check_annotations(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-rollout",
        implements: &["CRD-11", "ISVC-27", "ISVC-29", "ISVC-30", "ISVC-38"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| rollout::check_rollout(f, s.spec),
    },
    Rule {
        id: "isvc-lifecycle",
        implements: &["ISVC-31"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::lifecycle(f, s.spec),
    },
    Rule {
        id: "isvc-deployment-strategy",
        implements: &["ISVC-32"],
        codes: &[Code::AdmissionWarning],
        applies: ISVC,
        check: |f, s| isvc::deployment_strategy(f, annotations(s), s.spec),
    },
    Rule {
        id: "isvc-model-or-runtime",
        implements: &["ISVC-33"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::model_or_runtime(f, s.spec),
    },
    Rule {
        id: "isvc-overlays",
        implements: &["ISVC-36"],
        codes: &[IS],
        applies: ISVC,
        check: |f, s| isvc::overlays(f, s.spec),
    },
    Rule {
        id: "isvc-not-rendered",
        implements: &[],
        codes: &[Code::UnsupportedMode],
        applies: ISVC,
        check: |f, s| isvc::model_not_rendered(f, s.spec),
    },
    Rule {
        id: "isvc-migration",
        implements: &["CRD-20"],
        codes: &[Code::Migration],
        applies: ISVC,
        check: |f, s| {
            migration::check_inference_service(f, annotations(s), s.spec, isvc_name(s));
        },
    },
    Rule {
        id: "runtime",
        implements: &[
            "CRD-04", "CRD-05", "CRD-06", "CRD-07", "CRD-08", "CRD-15", "CRD-16", "CRD-20",
            "CRD-21", "RT-03", "RT-04", "RT-05",
        ],
        codes: &[Code::InvalidField, Code::RuntimeInvalid, Code::Migration],
        applies: Applies::Kinds(&["ServingRuntime", "ClusterServingRuntime"]),
        check: |f, s| {
            let d = runtime::check(s.root, f.object, f.fallback);
            f.diags.extend(d);
        },
    },
    Rule {
        id: "model",
        implements: &["CRD-17", "BM-01", "BM-02", "BM-03", "BM-04"],
        codes: &[Code::InvalidField, Code::ModelInvalid],
        applies: Applies::Kinds(&["BaseModel", "ClusterBaseModel"]),
        check: |f, s| {
            let cluster = s.kind == "ClusterBaseModel";
            let d = base_model::check(s.root, f.object, f.fallback, cluster);
            f.diags.extend(d);
        },
    },
    Rule {
        id: "accelerator-class",
        implements: &["CRD-18"],
        codes: &[Code::InvalidField],
        applies: Applies::Kinds(&["AcceleratorClass"]),
        check: |f, s| {
            let d = accelerator_class::check(s.root, f.object, f.fallback);
            f.diags.extend(d);
        },
    },
];

/// Runs the rows that apply to `subject`: the ones of every object when `every`, else the
/// ones of its kind. `fallback` is where a problem without a node of its own is reported.
fn run(subject: &Subject<'_>, object: &ObjectId, fallback: Pos, every: bool) -> Vec<Diagnostic> {
    let mut f = Findings::new(object, fallback);
    for rule in RULES {
        let applies = match rule.applies {
            Applies::Every => every,
            Applies::Kinds(kinds) => !every && kinds.contains(&subject.kind),
        };
        if applies {
            (rule.check)(&mut f, subject);
        }
    }
    f.diags
}

/// What the API server checks of every object's metadata (SEMANTICS.md#names).
pub(crate) fn metadata(
    root: &Node,
    group: &str,
    kind: &str,
    object: &ObjectId,
    namespaced: bool,
) -> Vec<Diagnostic> {
    let empty = Node::map(Map::new());
    let subject = Subject {
        root,
        spec: &empty,
        group,
        kind,
        namespaced,
        isvc: None,
    };
    run(&subject, object, root.pos, true)
}

/// The rules of the object's kind: an InferenceService's with its view `isvc`, reported at
/// its name when a problem has no node of its own (`fallback`).
pub(crate) fn admit(
    root: &Node,
    kind: &str,
    object: &ObjectId,
    fallback: Pos,
    isvc: Option<&InferenceService>,
) -> Vec<Diagnostic> {
    let empty = Node::map(Map::new());
    let spec = root
        .get("spec")
        .filter(|s| s.as_map().is_some())
        .unwrap_or(&empty);
    let subject = Subject {
        root,
        spec,
        group: "",
        kind,
        namespaced: true,
        isvc,
    };
    run(&subject, object, fallback, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEMANTICS: &str = include_str!("../../SEMANTICS.md");
    const LIST_START: &str = "<a id=\"admission-rules\"></a>";

    /// SEMANTICS.md's list of the rows, as the table makes it.
    fn listing() -> String {
        let mut out =
            String::from("| Row | Applies to | Codes | Implements |\n| --- | --- | --- | --- |\n");
        for r in RULES {
            let codes: Vec<String> = r
                .codes
                .iter()
                .map(|c| format!("`{}`", c.as_str()))
                .collect();
            let implements = if r.implements.is_empty() {
                "— (ome-render's own)".to_string()
            } else {
                r.implements.join(", ")
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                r.id,
                r.applies.text(),
                codes.join(", "),
                implements
            ));
        }
        out
    }

    /// The Admission section of SEMANTICS.md.
    fn section() -> &'static str {
        let start = SEMANTICS
            .find("\n## Admission\n")
            .expect("an Admission section");
        let rest = &SEMANTICS[start + 1..];
        let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
        &rest[..end]
    }

    #[test]
    fn semantics_lists_every_row_of_the_table() {
        let at = SEMANTICS
            .find(LIST_START)
            .expect("SEMANTICS.md lists the admission rules");
        let table = &SEMANTICS[at..];
        let table = &table[table.find("\n|").expect("a table") + 1..];
        let table = &table[..table.find("\n\n").unwrap_or(table.len()) + 1];
        assert_eq!(
            table,
            listing(),
            "SEMANTICS.md's list of admission rules differs from src/admission/rules.rs; write:\n{}",
            listing()
        );
    }

    #[test]
    fn rows_have_one_name_each_and_name_rules_of_semantics() {
        let mut seen = std::collections::BTreeSet::new();
        let section = section();
        for r in RULES {
            assert!(seen.insert(r.id), "row {} twice", r.id);
            assert!(!r.codes.is_empty(), "row {} reports no code", r.id);
            for id in r.implements {
                assert!(
                    section.contains(&format!("\n| {id} |"))
                        || section.contains(&format!("\n| {id}, "))
                        || section.contains(&format!(", {id} |")),
                    "row {}: {id} is no rule of SEMANTICS.md's admission table",
                    r.id
                );
            }
        }
    }

    #[test]
    fn every_admission_code_semantics_names_is_some_rows() {
        let codes: std::collections::BTreeSet<&str> = RULES
            .iter()
            .flat_map(|r| r.codes.iter().map(|c| c.as_str()))
            .collect();
        let section = section();
        let paragraph = section
            .split("\n\n")
            .find(|p| p.starts_with("Codes:"))
            .expect("a Codes paragraph");
        let mut named = 0;
        for piece in paragraph.split('`').skip(1).step_by(2) {
            if piece.starts_with("ome::") {
                named += 1;
                assert!(
                    codes.contains(piece),
                    "{piece} is in SEMANTICS.md, in no row"
                );
            }
        }
        assert!(named >= 5, "the Codes paragraph names the admission codes");
    }
}
