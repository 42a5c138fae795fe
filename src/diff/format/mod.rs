//! Writing a diff report: `text` (for a terminal, coloured when asked), `markdown` (for a
//! pull-request comment or job summary, within a byte limit), `json` (for machines). The
//! phrases all three share are here (SEMANTICS.md#diff-output).

pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod text;

use super::impact::{Impact, ResourceImpact};
use super::{Cause, Counts, Report};
use crate::diagnostics::report::thousands;
use crate::k8s::id::ObjectId;

/// What each side is called in the report: a path, a Git revision, `working tree`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Labels {
    pub(crate) base: String,
    pub(crate) head: String,
}

/// How many names a list in the summary or impact shows before it counts the rest.
const FIRST_NAMES: usize = 10;
/// How many lines of changed resources (and of runtime choices) the impact shows.
const FIRST_LINES: usize = 25;

/// `1 InferenceService`, `40 InferenceServices`.
fn count(n: usize, word: &str) -> String {
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// `1 added, 0 removed, 3 changed`.
fn triple(n: [usize; 3]) -> String {
    format!(
        "{} added, {} removed, {} changed",
        thousands(n[0]),
        thousands(n[1]),
        thousands(n[2])
    )
}

/// The summary sentence after the title.
fn summary(report: &Report) -> String {
    let c: Counts = report.counts();
    if !report.has_differences() {
        return format!("no differences ({})", count(report.head_objects, "object"));
    }
    let isvcs: usize = c.isvcs.iter().sum();
    let passthrough: usize = c.passthrough.iter().sum();
    let objects: usize = c.objects.iter().sum();
    let mut parts = Vec::new();
    if isvcs > 0 {
        parts.push(format!(
            "{} ({})",
            count(isvcs, "InferenceService"),
            triple(c.isvcs)
        ));
    }
    if passthrough > 0 {
        parts.push(count(passthrough, "pass-through object"));
    }
    format!(
        "differences in {}; {}: {}",
        parts.join(" and "),
        count(objects, "object"),
        triple(c.objects)
    )
}

/// The sentence that says the base does not render, before its first errors.
const BASE_FAILED: &str =
    "the base does not render, so every object of the head is shown as added; its first errors:";

/// `team/a, team/b, … and 30 more`.
fn names(ids: &[ObjectId], wrap: impl Fn(&str) -> String) -> String {
    let mut shown: Vec<String> = ids
        .iter()
        .take(FIRST_NAMES)
        .map(|id| wrap(&id.path()))
        .collect();
    if ids.len() > FIRST_NAMES {
        shown.push(format!("… and {} more", thousands(ids.len() - FIRST_NAMES)));
    }
    shown.join(", ")
}

/// `reaches 40 InferenceServices`, `reaches 2 of the 5 InferenceServices that use it`.
fn reach(r: &ResourceImpact) -> String {
    let n = r.reached.len();
    if n == r.users || r.users == 0 {
        match n {
            0 => "reaches no InferenceService".to_string(),
            _ => format!("reaches {}", count(n, "InferenceService")),
        }
    } else {
        format!(
            "reaches {n} of the {} that use it",
            count(r.users, "InferenceService")
        )
    }
}

/// A cause in a group's heading.
fn cause(c: &Cause) -> String {
    match c {
        Cause::Edited => "edited".to_string(),
        Cause::Runtime { was, now } => format!("runtime was {was}, now {now}"),
        Cause::Resource(id, change) => format!("{id} {}", change.word()),
        Cause::Settings => "settings changed".to_string(),
    }
}

/// A group's heading after its name: `2 changed, 1 added; because: ClusterServingRuntime/a changed`.
fn group_line(g: &super::Group) -> String {
    let n = g.counts();
    let mut parts = Vec::new();
    for (i, word) in ["added", "removed", "changed"].iter().enumerate() {
        if n[i] > 0 {
            parts.push(format!("{} {word}", thousands(n[i])));
        }
    }
    let mut line = parts.join(", ");
    if g.isvc.is_some() && g.change != super::Change::Changed {
        line = format!("{}; {line}", g.change.word());
    }
    if !g.causes.is_empty() {
        let causes: Vec<String> = g.causes.iter().map(cause).collect();
        line.push_str(&format!("; because: {}", causes.join(", ")));
    }
    line
}

/// `(auto-selected)` after a runtime auto-selection chose.
fn auto(on: bool) -> &'static str {
    if on { " (auto-selected)" } else { "" }
}

/// One changed input in the impact: a resource, or the settings.
enum Changed<'a> {
    Resource(&'a ResourceImpact),
    Settings(&'a [ObjectId]),
}

/// The changed resources and the settings, those reaching the most InferenceServices first
/// (the settings before resources of equal reach), the first [`FIRST_LINES`] of them, and
/// how many more there are.
fn changes(i: &Impact) -> (Vec<Changed<'_>>, usize) {
    let mut all = all_changes(i);
    let more = all.len().saturating_sub(FIRST_LINES);
    all.truncate(FIRST_LINES);
    (all, more)
}

/// Every changed resource and the settings, in the order of [`changes`].
fn all_changes(i: &Impact) -> Vec<Changed<'_>> {
    let mut all: Vec<Changed<'_>> = i.resources.iter().map(Changed::Resource).collect();
    if let Some(reached) = &i.settings {
        let at = i
            .resources
            .iter()
            .position(|r| r.reached.len() <= reached.len())
            .unwrap_or(i.resources.len());
        all.insert(at, Changed::Settings(reached));
    }
    all
}
