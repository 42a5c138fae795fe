//! Admission: the rules OME v1.3's API server (the CRD schemas) and admission webhooks apply
//! to one object as it is written (SEMANTICS.md#admission). OME stops at the first rule that
//! fails; ome-render reports every failing rule, each with OME's message, at the field that
//! fails. Rules that need other objects (model lookups, priorities across runtimes) live in
//! `catalog::checks` and `select::resolve`.

pub(crate) mod accelerator_class;
pub(crate) mod autoscaler;
pub(crate) mod base_model;
pub(crate) mod inference_service;
pub(crate) mod migration;
pub(crate) mod names;
pub(crate) mod pod;
pub(crate) mod rollout;
pub(crate) mod rules;
pub(crate) mod runtime;
pub(crate) mod traffic;

use crate::diagnostics::{Code, Diagnostic};
use crate::go;
use crate::k8s::id::ObjectId;
pub(crate) use crate::model::int_or_str::IntOrStr;
use crate::yaml::{Node, Pos, Value};

/// The problems found in one object.
pub(crate) struct Findings<'a> {
    pub(crate) object: &'a ObjectId,
    /// Where a problem without a node of its own is reported: the object's name.
    pub(crate) fallback: Pos,
    pub(crate) diags: Vec<Diagnostic>,
}

impl<'a> Findings<'a> {
    pub(crate) fn new(object: &'a ObjectId, fallback: Pos) -> Findings<'a> {
        Findings {
            object,
            fallback,
            diags: Vec::new(),
        }
    }

    fn at(&self, pos: Pos) -> Pos {
        if pos.is_none() { self.fallback } else { pos }
    }

    /// An error at `pos` (the object's name when `pos` is not an input position).
    pub(crate) fn error(
        &self,
        code: Code,
        pos: Pos,
        field: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.about(Diagnostic::error(code, message), pos, field)
    }

    pub(crate) fn warning(
        &self,
        code: Code,
        pos: Pos,
        field: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.about(Diagnostic::warning(code, message), pos, field)
    }

    /// `d` at `pos` (the fallback when `pos` is not an input position), naming the object
    /// and `field`.
    fn about(&self, d: Diagnostic, pos: Pos, field: &str) -> Diagnostic {
        d.at(self.at(pos)).object(self.object.clone()).field(field)
    }

    pub(crate) fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The API server's `Unsupported value` for an enum field.
    pub(crate) fn unsupported(&mut self, code: Code, node: &Node, path: &str, allowed: &[&str]) {
        let value = match &node.value {
            Value::Str(s) => go::quote(s),
            other => Node::made(other.clone()).scalar_text().unwrap_or_default(),
        };
        let supported: Vec<String> = allowed.iter().map(|a| go::quote(a)).collect();
        let d = self
            .error(
                code,
                node.pos,
                path,
                format!(
                    "{path}: Unsupported value: {value}: supported values: {}",
                    supported.join(", ")
                ),
            )
            .help(format!("use one of {}", allowed.join(", ")));
        self.push(d);
    }

    /// The API server's `Required value`.
    pub(crate) fn required(&mut self, code: Code, pos: Pos, path: &str) {
        let d = self
            .error(code, pos, path, format!("{path}: Required value"))
            .help("the CRD schema requires this field");
        self.push(d);
    }

    /// The API server's check of an integer's `minimum`.
    pub(crate) fn minimum(&mut self, code: Code, node: &Node, path: &str, min: i64) {
        if let Some(v) = node.as_i64().filter(|v| *v < min) {
            let d = self
                .error(
                    code,
                    node.pos,
                    path,
                    format!(
                        "{path}: Invalid value: {v}: {path} in body should be greater than or equal to {min}"
                    ),
                )
                .help(format!("use {min} or more"));
            self.push(d);
        }
    }

    /// The API server's check of a string's `minLength`.
    pub(crate) fn min_length(&mut self, code: Code, node: &Node, path: &str, min: usize) {
        if let Some(v) = node.as_str().filter(|v| v.chars().count() < min) {
            let d = self
                .error(
                    code,
                    node.pos,
                    path,
                    format!(
                        "{path}: Invalid value: {}: {path} in body should be at least {min} chars long",
                        go::quote(v)
                    ),
                )
                .help(if min == 1 { "write a non-empty value".to_string() } else { format!("write at least {min} characters") });
            self.push(d);
        }
    }

    /// Checks an enum field when it is a string; other types are left to the typed views.
    pub(crate) fn enum_field(
        &mut self,
        code: Code,
        parent: &Node,
        key: &str,
        path: &str,
        allowed: &[&str],
    ) {
        if let Some(n) = parent.get(key)
            && let Some(s) = n.as_str()
            && !allowed.contains(&s)
        {
            self.unsupported(code, n, &format!("{path}.{key}"), allowed);
        }
    }
}

/// A map entry that is present and not null: what Go decodes into a non-nil pointer.
pub(crate) fn present<'n>(parent: &'n Node, key: &str) -> Option<&'n Node> {
    parent.get(key).filter(|n| !n.is_null())
}

/// The mode a component declares as OME's admission resolves it: the component's own
/// `ome.io/deploymentMode` annotation when not empty, else `spec.deploymentMode`, else `""`
/// (the raw text; the leader/worker shape is not considered).
pub(crate) fn admission_mode<'n>(component: &'n Node, spec_mode: Option<&'n str>) -> &'n str {
    component
        .str_at(&[
            "annotations",
            crate::model::component::DEPLOYMENT_MODE_ANNOTATION,
        ])
        .filter(|m| !m.is_empty())
        .or(spec_mode)
        .unwrap_or("")
}
