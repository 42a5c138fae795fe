//! Checks of the output as a whole, before anything is written: no two objects may share
//! an identity, in an output directory every object needs a file name of its own, and
//! rendered objects should hold nothing Flux's post-build substitution would rewrite.

use super::{Format, file_name};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::api_versions::ApiVersions;
use crate::model::settings::PodMonitorConfig;
use crate::render::objects::pod_monitor;
use crate::rendered::{Body, Rendered};
use crate::yaml::{Node, Pos, Value};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// The cluster APIs rendered objects need (SEMANTICS.md#api-versions): with a list, an error
/// for each rendered object whose API it lacks; without one, a note naming the APIs beyond
/// Kubernetes' own that the output needs, and OME's model agent when `model_agent` says
/// rendered pods need it (a node label they wait for, an overlay it fills) and the settings
/// do not say it runs (SEMANTICS.md#model-agent).
/// Passed-through objects are the user's to check.
pub(crate) fn apis(
    objects: &[Rendered],
    listed: Option<&ApiVersions>,
    model_agent: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let rendered = objects.iter().filter(|o| o.source.is_some());
    match listed {
        Some(listed) => {
            for o in rendered.filter(|o| !listed.serves(&o.api_version, &o.kind)) {
                diags.push(
                    Diagnostic::error(
                        Code::ApiUnserved,
                        format!(
                            "{} (rendered for {}) needs the API {}/{}, which the cluster's APIs do not list",
                            o.written_id(),
                            o.source.as_deref().map_or(String::new(), ToString::to_string),
                            o.api_version,
                            o.kind
                        ),
                    )
                    .at(o.pos)
                    .object(o.written_id())
                    .help(format!(
                        "install the API in the cluster and list it (`--api-versions {}` or `apiVersions:` in ome-render.yaml), or change the InferenceService so it needs no {}",
                        o.api_version, o.kind
                    )),
                );
            }
        }
        None => {
            let unlisted = ApiVersions::default();
            let needed: BTreeSet<String> = rendered
                .filter(|o| !unlisted.serves(&o.api_version, &o.kind))
                .map(|o| format!("{}/{}", o.api_version, o.kind))
                .collect();
            const AGENT: &str = "OME's model agent, which rendered pods need (the chart's modelAgent.enabled, off by default)";
            const API_HELP: &str = "list the APIs the cluster serves (`--api-versions` or `apiVersions:` in ome-render.yaml) to have each object checked against them";
            const AGENT_HELP: &str = "run the model agent and say so with `modelAgent: {enabled: true}` in ome-render.yaml";
            let list = needed.into_iter().collect::<Vec<_>>().join(", ");
            let (message, help) = match (list.is_empty(), model_agent) {
                (true, false) => return,
                (false, false) => (
                    format!("the output needs these APIs beyond Kubernetes' own: {list}"),
                    API_HELP.to_string(),
                ),
                (false, true) => (
                    format!(
                        "the output needs these APIs beyond Kubernetes' own: {list}; and {AGENT}"
                    ),
                    format!("{API_HELP}; {AGENT_HELP}"),
                ),
                (true, true) => (format!("the output needs {AGENT}"), AGENT_HELP.to_string()),
            };
            diags.push(Diagnostic::note(Code::ApisNeeded, message).help(help));
        }
    }
}

/// Without a list of the cluster's APIs, one note that the PodMonitors OME v1.3 creates for
/// RawDeployment and MultiNode components (one per rendered Deployment or LeaderWorkerSet)
/// are not rendered, and how to have them (SEMANTICS.md#monitoring).
/// With a list, when PodMonitors are rendered and the settings' `podMonitor` adds labels or
/// relabelings, one note that v1.3 adds them only to OMENative PodMonitors.
pub(crate) fn pod_monitors(
    objects: &[Rendered],
    listed: Option<&ApiVersions>,
    config: &PodMonitorConfig,
    diags: &mut Vec<Diagnostic>,
) {
    if listed.is_some() {
        if !config.is_empty()
            && objects
                .iter()
                .any(|o| o.source.is_some() && o.kind == pod_monitor::KIND)
        {
            diags.push(
                Diagnostic::note(
                    Code::Monitoring,
                    "the settings' podMonitor labels and relabelings are not on the rendered PodMonitors: OME v1.3 adds them only to the PodMonitors of OMENative components",
                )
                .help("to have a RawDeployment or MultiNode component's PodMonitor selected or relabelled, configure the Prometheus operator's podMonitorSelector or scrape config instead"),
            );
        }
        return;
    }
    let workloads = objects
        .iter()
        .filter(|o| {
            o.source.is_some()
                && matches!(
                    (o.api_version.as_str(), o.kind.as_str()),
                    ("apps/v1", "Deployment") | ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
                )
        })
        .count();
    if workloads > 0 {
        diags.push(
            Diagnostic::note(
                Code::Monitoring,
                format!(
                    "{workloads} PodMonitor(s) not rendered: OME v1.3 creates one per component when the cluster serves monitoring.coreos.com/v1 PodMonitor, and no list of the cluster's APIs says whether it does"
                ),
            )
            .help("list the cluster's APIs (`--api-versions monitoring.coreos.com/v1` or `apiVersions:` in ome-render.yaml) to have the PodMonitors rendered"),
        );
    }
}

/// The objects of OME's API group that pass through unrendered (TrafficMap, FineTunedWeight,
/// …): one note listing their kinds and counts (SEMANTICS.md#passthrough). In a cluster OME's
/// controllers act on them; ome-render writes them as they are.
pub(crate) fn ome_passthrough(objects: &[Rendered], diags: &mut Vec<Diagnostic>) {
    let mut kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for o in objects.iter().filter(|o| o.source.is_none()) {
        if o.group() == crate::catalog::OME_GROUP
            && !crate::catalog::CONSUMED_KINDS.contains(&o.kind.as_str())
        {
            *kinds.entry(o.kind.as_str()).or_default() += 1;
        }
    }
    if kinds.is_empty() {
        return;
    }
    let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ({n})")).collect();
    diags.push(
        Diagnostic::note(
            Code::OmePassthrough,
            format!(
                "objects of OME's API group pass through unrendered: {}",
                list.join(", ")
            ),
        )
        .help("ome-render renders InferenceServices only; OME's controllers act on these objects in the cluster, so the cluster must run OME for them"),
    );
}

/// Two rendered objects with the same identity (SEMANTICS.md, "Objects"): an error naming
/// both InferenceServices, for each object whose identity an earlier one has.
///
/// Each identity is hashed in parallel and the hashes sorted, so only objects whose hashes
/// are equal (the duplicates, and a rare unlucky pair) have their identities compared.
pub(crate) fn collisions(objects: &[Rendered], namespace: &str, diags: &mut Vec<Diagnostic>) {
    let mut hashes: Vec<(u64, usize)> = objects
        .par_iter()
        .enumerate()
        .map(|(i, o)| {
            let mut h = std::hash::DefaultHasher::new();
            o.id(namespace).hash(&mut h);
            (h.finish(), i)
        })
        .collect();
    hashes.par_sort_unstable();
    // (later object, the first with its identity), in the later objects' input order.
    let mut repeats: Vec<(usize, usize)> = Vec::new();
    for run in hashes
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        // The first object of each identity in the run (almost always one): a run of
        // thousands of objects of one identity costs one comparison per object.
        let mut firsts: Vec<usize> = Vec::new();
        for &(_, i) in run {
            let same = |&&f: &&usize| objects[f].id(namespace) == objects[i].id(namespace);
            match firsts.iter().find(same) {
                Some(&first) => repeats.push((i, first)),
                None => firsts.push(i),
            }
        }
    }
    repeats.sort_unstable();
    for (later, first) in repeats {
        let (first, o) = (&objects[first], &objects[later]);
        let who = |r: &Rendered| {
            r.source
                .as_ref()
                .map_or("the input".to_string(), ToString::to_string)
        };
        diags.push(
            Diagnostic::error(
                Code::RenderedCollision,
                format!("{} is rendered twice: from {} and from {}", o.written_id(), who(first), who(o)),
            )
            .at(o.pos)
            .related(first.pos, "rendered here too")
            .object(o.written_id())
            .help(if first.source.is_none() || o.source.is_none() {
                "in a cluster one would silently overwrite the other (an object written without a namespace goes to the namespace it is applied in: `-n`, else `default`); rename or remove the input's object, or the InferenceService"
            } else {
                "in a cluster one would silently overwrite the other; rename one of the InferenceServices (OME names the ConfigMap after the last 20 characters of the name)"
            }),
        );
    }
}

/// Whether `part` can be a piece of a file name: letters, digits, `.`, `-` and `_`, and not
/// `.` or `..`. Kubernetes' own name rules are narrower; this is what keeps a file inside
/// the output directory.
fn safe_in_file_name(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// The longest file name Linux, macOS and Windows file systems take, in bytes.
const MAX_FILE_NAME: usize = 255;

/// Every object can be written to a file of its own in an output directory: each part of
/// its name is safe in a file name (so no name reaches outside the directory), and no two
/// objects get the same name, even on a file system that ignores case.
pub(crate) fn file_names(objects: &[Rendered], format: Format, diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<String, &Rendered> = HashMap::with_capacity(objects.len());
    for o in objects {
        let parts = [
            o.namespace.as_deref(),
            Some(o.group()).filter(|g| !g.is_empty()),
            Some(o.api_version.rsplit('/').next().unwrap_or("")),
            Some(o.kind.as_str()),
            Some(o.name.as_str()),
        ];
        if let Some(bad) = parts.into_iter().flatten().find(|p| !safe_in_file_name(p)) {
            diags.push(
                Diagnostic::error(
                    Code::OutputFileName,
                    format!("{} can't be written to a file of its own: `{bad}` is not safe in a file name", o.written_id()),
                )
                .at(o.pos)
                .object(o.written_id())
                .help("Kubernetes names hold lower-case letters, digits, `-` and `.`; fix the name, or write a stream instead of a directory"),
            );
            continue;
        }
        let name = file_name(o, format);
        if name.len() > MAX_FILE_NAME {
            diags.push(
                Diagnostic::error(
                    Code::OutputFileName,
                    format!(
                        "{} can't be written to a file of its own: its file name would be {} bytes long, and file systems take at most {MAX_FILE_NAME}",
                        o.written_id(),
                        name.len()
                    ),
                )
                .at(o.pos)
                .object(o.written_id())
                .help("the file name is `[<namespace>_]<group>_<version>_<kind>_<name>.<extension>`: shorten the name (or the namespace), or write a stream instead of a directory"),
            );
            continue;
        }
        if let Some(first) = seen.get(&name) {
            diags.push(
                Diagnostic::error(
                    Code::OutputFileName,
                    format!("{} and {} would both be written to {name}", first.written_id(), o.written_id()),
                )
                .at(o.pos)
                .related(first.pos, "the other object")
                .object(o.written_id())
                .help("file names are lower-cased and joined with `_`; rename one of the objects, or write a stream instead of a directory"),
            );
        } else {
            seen.insert(name, o);
        }
    }
}

/// The label or annotation that turns Flux's post-build substitution off for an object.
const FLUX_SUBSTITUTE_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// The first line of `bytes` holding `${`, trimmed, if any.
fn substitution_line(bytes: &[u8]) -> Option<&str> {
    let at = memchr::memchr_iter(b'$', bytes).find(|&at| bytes.get(at + 1) == Some(&b'{'))?;
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    std::str::from_utf8(&bytes[start..end]).ok().map(str::trim)
}

/// The position of the first scalar (or key) of `node` holding `${`, in the order the
/// emitter writes them; `Pos::NONE` when the renderer made it.
fn substitution_pos(node: &Node) -> Option<Pos> {
    match &node.value {
        Value::Str(s) => s.contains("${").then_some(node.pos),
        Value::Seq(items) => items.iter().find_map(substitution_pos),
        Value::Map(map) => map.entries().find_map(|(key, value)| {
            if key.as_str().contains("${") {
                Some(value.pos)
            } else {
                substitution_pos(value)
            }
        }),
        _ => None,
    }
}

/// A rendered object whose serialised form holds `${`: Flux's post-build substitution
/// (`spec.postBuild`) would replace `${VAR}` with a variable's value, or with nothing, when
/// it applies the object (SEMANTICS.md#choice-flux-substitution). A warning per object,
/// unless the object opts out with `kustomize.toolkit.fluxcd.io/substitute: disabled`.
/// Objects passed through are the user's own, written for whatever substitution they
/// intend, and are not checked.
///
/// `tree` is the object's tree before it was serialised: the warning points at the input
/// line that holds `${` (a runtime's argument, say), with the InferenceService as a second
/// place; without a tree, or for text the renderer made, at the InferenceService.
pub(crate) fn flux_substitution(o: &Rendered, tree: Option<&Node>) -> Option<Diagnostic> {
    let source = o.source.as_ref()?;
    let Body::Bytes(bytes) = &o.body else {
        return None;
    };
    let line = substitution_line(bytes)?;
    let opted_out = std::str::from_utf8(bytes).is_ok_and(|text| {
        text.lines().any(|l| {
            let l = l.trim().trim_start_matches('"');
            l.starts_with(FLUX_SUBSTITUTE_KEY) && l.contains("disabled")
        })
    });
    if opted_out {
        return None;
    }
    let line: String = line.chars().take(120).collect();
    let at = tree
        .and_then(substitution_pos)
        .filter(|p| !p.is_none() && (p.file, p.line) != (o.pos.file, o.pos.line));
    let mut d = Diagnostic::warning(
        Code::FluxSubstitution,
        format!(
            "{} contains `${{` (`{line}`): Flux's post-build substitution would replace `${{…}}` when it applies the object",
            o.written_id()
        ),
    )
    .at(at.unwrap_or(o.pos))
    .object(o.written_id())
    .help(format!(
        "under Flux with `spec.postBuild`, write `$${{…}}` to keep the text, or annotate the InferenceService `{FLUX_SUBSTITUTE_KEY}: disabled`; Kubernetes itself expands only `$(VAR)`"
    ));
    if at.is_some() {
        d = d.related(o.pos, format!("{source}, which renders {}", o.written_id()));
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::id::ObjectId;
    use crate::yaml::Pos;

    fn object(text: &str, rendered: bool) -> Rendered {
        let mut o = Rendered::new(
            crate::yaml::Node::str("x"),
            rendered.then(|| {
                std::sync::Arc::new(ObjectId {
                    kind: "InferenceService".into(),
                    namespace: String::new(),
                    name: "isvc".into(),
                    group: String::new(),
                })
            }),
            Pos::NONE,
        );
        o.kind = "Deployment".into();
        o.name = "d".into();
        o.body = Body::Bytes(text.as_bytes().into());
        o
    }

    #[test]
    fn rendered_objects_with_dollar_brace_warn_unless_they_opt_out() {
        let cases = [
            (
                "args:\n- --tp-size=${TP}\n",
                true,
                Some("- --tp-size=${TP}"),
            ),
            ("args:\n- --model-path=$(MODEL_PATH)\n", true, None),
            ("data:\n  x: ${VAR}\n", false, None),
            (
                "metadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nargs:\n- ${TP}\n",
                true,
                None,
            ),
        ];
        for (text, rendered, line) in cases {
            let diags: Vec<Diagnostic> = flux_substitution(&object(text, rendered), None)
                .into_iter()
                .collect();
            match line {
                Some(line) => {
                    assert_eq!(diags.len(), 1, "{text}");
                    assert!(diags[0].message.contains(line), "{}", diags[0].message);
                    assert_eq!(diags[0].code, Code::FluxSubstitution);
                }
                None => assert!(diags.is_empty(), "{text}: {diags:?}"),
            }
        }
    }

    #[test]
    fn each_repeated_identity_names_the_first_object_that_has_it() {
        let at = |line| Pos {
            file: 0,
            line,
            col: 0,
        };
        let make = |api: &str, ns: Option<&str>, name: &str, line| {
            let mut o = object("", true);
            o.api_version = api.into();
            o.namespace = ns.map(Into::into);
            o.name = name.into();
            o.pos = at(line);
            o
        };
        let objects = [
            make("apps/v1", Some("a"), "d", 1),
            make("apps/v1", Some("b"), "d", 2),
            make("apps/v1", Some("a"), "e", 3),
            // Another version of the same group and kind is the same identity.
            make("apps/v1beta2", Some("a"), "d", 4),
            make("apps/v1", Some("a"), "d", 5),
            make("apps/v1", Some("b"), "d", 6),
        ];
        let mut diags = Vec::new();
        collisions(&objects, "default", &mut diags);
        let pairs: Vec<(u32, u32)> = diags
            .iter()
            .map(|d| (d.pos.map_or(0, |p| p.line), d.related[0].pos.line))
            .collect();
        assert_eq!(pairs, [(4, 1), (5, 1), (6, 2)]);
        assert!(diags.iter().all(|d| d.code == Code::RenderedCollision));
    }
}
