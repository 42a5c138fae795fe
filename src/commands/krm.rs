//! `ome-render krm` (and `ome-render-krm` with no arguments): ome-render as a KRM function
//! for kustomize and kpt (SEMANTICS.md#krm-function). A ResourceList on standard input, a
//! ResourceList on standard output.
//!
//! - The OME resources among the items are consumed and what they render is added; every
//!   other item is returned as it came (transformer mode: kpt pipelines, kustomize
//!   `transformers:`).
//! - When the `functionConfig` (`kind: OmeRender`) names `spec.paths`, those are read and
//!   rendered too (generator mode: kustomize `generators:`).
//! - Problems become `results`, each naming the item's object and, from the orchestrator's
//!   `path`/`index` annotations, its file. Any error: exit 1 and a ResourceList with the
//!   results only.

use super::{ExitStatus, Outcome, fatal, read_stdin, report, stdout_written};
use crate::cli::GlobalArgs;
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::emit::{self, Format};
use crate::k8s::id::ObjectId;
use crate::load::krm::{ItemPlace, place_in_files, resource_list_bytes};
use crate::load::{self, LoadOptions, Loaded, Object};
use crate::map;
use crate::model::fields::Reader;
use crate::pipeline::{self, Options};
use crate::source::Sources;
use crate::yaml::{Node, Pos};
use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;

/// The functionConfig's API version and kind: the project's own.
pub(crate) const CONFIG_API_VERSION: &str = "render.ome-render.io/v1alpha1";
pub(crate) const CONFIG_KIND: &str = "OmeRender";

/// The fields of an OmeRender's `spec` (and of a ConfigMap's `data`), mirroring the flags.
const CONFIG_FIELDS: &[&str] = &[
    "paths",
    "namespace",
    "strict",
    "quiet",
    "kinds",
    "include",
    "exclude",
    "settings",
    "deployConfig",
    "keepOme",
    "allowEmpty",
    "loadRestrictor",
];

/// `loadRestrictor`'s value that lets `paths` reach outside the current directory, as
/// kustomize's `--load-restrictor LoadRestrictionsNone` does (SEMANTICS.md#krm-function).
const LOAD_RESTRICTIONS_NONE: &str = "LoadRestrictionsNone";
/// The default: `paths` stay inside the current directory (kustomize's default).
const LOAD_RESTRICTIONS_ROOT_ONLY: &str = "LoadRestrictionsRootOnly";

/// What the functionConfig asks for (SEMANTICS.md#krm-function).
#[derive(Debug, Default, PartialEq)]
struct FunctionConfig {
    /// Generator mode: paths to read, relative to the current directory (kustomize: the
    /// kustomization's directory).
    paths: Vec<PathBuf>,
    namespace: Option<String>,
    strict: bool,
    quiet: bool,
    kinds: Vec<String>,
    include: Vec<String>,
    exclude: Vec<String>,
    settings: Option<PathBuf>,
    /// OME's ConfigMap (`--deploy-config`), relative to the current directory.
    deploy_config: Option<PathBuf>,
    keep_ome: bool,
    allow_empty: bool,
    /// Whether `paths` may lead outside the current directory (`loadRestrictor:
    /// LoadRestrictionsNone`).
    paths_anywhere: bool,
}

/// The entries of `paths` that lead outside the current directory: an absolute path, one
/// whose `..` climb above it, or one that resolves (links followed) outside it. A pull
/// request's functionConfig is untrusted: kustomize's load restrictor refuses the same.
fn paths_outside(paths: &[PathBuf]) -> Vec<String> {
    #[expect(
        clippy::disallowed_methods,
        reason = "where a path leads is checked before the loader reads it"
    )]
    let resolve = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    let here = resolve(std::path::Path::new("."));
    paths
        .iter()
        .filter(|p| {
            let mut depth: usize = 0;
            for part in p.components() {
                match part {
                    std::path::Component::Normal(_) => depth += 1,
                    std::path::Component::CurDir => {}
                    std::path::Component::ParentDir if depth > 0 => depth -= 1,
                    _ => return true,
                }
            }
            match (resolve(p), &here) {
                (Some(real), Some(here)) => !real.starts_with(here),
                _ => false,
            }
        })
        .map(|p| p.display().to_string())
        .collect()
}

fn config_error(message: impl Into<String>, pos: Pos, object: &ObjectId) -> Diagnostic {
    Diagnostic::error(Code::KrmFunctionConfig, message)
        .at(pos)
        .object(object.clone())
        .help(format!(
            "the functionConfig is an `{CONFIG_KIND}` of `{CONFIG_API_VERSION}` whose `spec` holds {} (or a ConfigMap whose `data` holds them as strings)",
            CONFIG_FIELDS.join(", ")
        ))
}

impl FunctionConfig {
    /// Reads the functionConfig: an OmeRender, a ConfigMap (kpt's `-- key=value`), or none.
    fn read(node: Option<&Node>, diags: &mut Vec<Diagnostic>) -> FunctionConfig {
        let mut config = FunctionConfig::default();
        let Some(node) = node else {
            return config;
        };
        let kind = node.str_at(&["kind"]).unwrap_or("");
        let api_version = node.str_at(&["apiVersion"]).unwrap_or("");
        let object = ObjectId {
            kind: if kind.is_empty() {
                "functionConfig"
            } else {
                kind
            }
            .to_string(),
            namespace: String::new(),
            name: node.str_at(&["metadata", "name"]).unwrap_or("").to_string(),
            group: String::new(),
        };
        match (kind, api_version) {
            (CONFIG_KIND, CONFIG_API_VERSION) => {
                if let Some(spec) = node.get("spec").filter(|s| !s.is_null()) {
                    config.read_spec(spec, &object, diags);
                }
            }
            (CONFIG_KIND, other) => diags.push(config_error(
                format!("unsupported apiVersion `{other}` for {CONFIG_KIND}; it is `{CONFIG_API_VERSION}`"),
                node.get("apiVersion").map_or(node.pos, |n| n.pos),
                &object,
            )),
            ("ConfigMap", "v1") => {
                if let Some(data) = node.get("data").filter(|d| !d.is_null()) {
                    config.read_data(data, &object, diags);
                }
            }
            _ => diags.push(config_error(
                format!("a functionConfig of kind `{kind}` (`{api_version}`) is not one ome-render reads"),
                node.pos,
                &object,
            )),
        }
        config
    }

    fn unknown(key: &str, value: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) {
        let mut d = config_error(format!("unknown field `{key}`"), value.pos, object);
        if let Some(near) = closest(key, CONFIG_FIELDS) {
            d = d.help(format!("did you mean `{near}`?"));
        }
        diags.push(d);
    }

    fn read_spec(&mut self, spec: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) {
        let Some(map) = spec.as_map() else {
            diags.push(config_error("`spec` must be a map", spec.pos, object));
            return;
        };
        for (key, value) in map.iter() {
            if !CONFIG_FIELDS.contains(&key) {
                Self::unknown(key, value, object, diags);
            }
        }
        let mut r = Reader { object, diags };
        let paths = r.strings(spec, "paths", "spec").unwrap_or_default();
        self.paths = paths.into_iter().map(PathBuf::from).collect();
        self.namespace = r.str(spec, "namespace", "spec").filter(|s| !s.is_empty());
        self.strict = r.bool(spec, "strict", "spec").unwrap_or(false);
        self.quiet = r.bool(spec, "quiet", "spec").unwrap_or(false);
        self.kinds = r.strings(spec, "kinds", "spec").unwrap_or_default();
        self.include = r.strings(spec, "include", "spec").unwrap_or_default();
        self.exclude = r.strings(spec, "exclude", "spec").unwrap_or_default();
        self.settings = r
            .str(spec, "settings", "spec")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        self.deploy_config = r
            .str(spec, "deployConfig", "spec")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        self.keep_ome = r.bool(spec, "keepOme", "spec").unwrap_or(false);
        self.allow_empty = r.bool(spec, "allowEmpty", "spec").unwrap_or(false);
        if let Some(node) = spec.get("loadRestrictor") {
            self.load_restrictor(node, object, diags);
        }
    }

    /// `loadRestrictor`: kustomize's names of the two policies.
    fn load_restrictor(&mut self, node: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) {
        match node.as_str() {
            Some(LOAD_RESTRICTIONS_NONE) => self.paths_anywhere = true,
            Some(LOAD_RESTRICTIONS_ROOT_ONLY) => self.paths_anywhere = false,
            _ => diags.push(config_error(
                format!(
                    "`loadRestrictor` is `{LOAD_RESTRICTIONS_ROOT_ONLY}` (the default) or `{LOAD_RESTRICTIONS_NONE}`"
                ),
                node.pos,
                object,
            )),
        }
    }

    /// A ConfigMap's `data`: the same fields as strings, lists comma-separated.
    fn read_data(&mut self, data: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) {
        let Some(map) = data.as_map() else {
            diags.push(config_error("`data` must be a map", data.pos, object));
            return;
        };
        for (key, value) in map.iter() {
            let Some(text) = value.scalar_text() else {
                diags.push(config_error(
                    format!("`data.{key}` must be a string"),
                    value.pos,
                    object,
                ));
                continue;
            };
            let list = || -> Vec<String> {
                text.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            };
            let mut flag = |slot: &mut bool| match text.as_str() {
                "true" => *slot = true,
                "false" | "" => *slot = false,
                _ => diags.push(config_error(
                    format!("`data.{key}` is `{text}`; write `true` or `false`"),
                    value.pos,
                    object,
                )),
            };
            match key {
                "paths" => self.paths = list().into_iter().map(PathBuf::from).collect(),
                "namespace" => self.namespace = Some(text.clone()).filter(|s| !s.is_empty()),
                "strict" => flag(&mut self.strict),
                "quiet" => flag(&mut self.quiet),
                "kinds" => self.kinds = list(),
                "include" => self.include = list(),
                "exclude" => self.exclude = list(),
                "settings" => {
                    self.settings = Some(PathBuf::from(&text)).filter(|_| !text.is_empty())
                }
                "deployConfig" => {
                    self.deploy_config = Some(PathBuf::from(&text)).filter(|_| !text.is_empty())
                }
                "keepOme" => flag(&mut self.keep_ome),
                "allowEmpty" => flag(&mut self.allow_empty),
                "loadRestrictor" => self.load_restrictor(value, object, diags),
                _ => Self::unknown(key, value, object, diags),
            }
        }
    }

    /// The global flags of the run: the command line's, with the functionConfig's on top.
    fn global(&self, global: &GlobalArgs) -> GlobalArgs {
        let mut g = global.clone();
        if let Some(ns) = &self.namespace {
            g.namespace = Some(ns.clone());
        }
        g.strict |= self.strict;
        g.quiet |= self.quiet;
        if !self.include.is_empty() {
            g.include = self.include.clone();
        }
        if !self.exclude.is_empty() {
            g.exclude = self.exclude.clone();
        }
        if self.settings.is_some() {
            g.settings = self.settings.clone();
        }
        if self.deploy_config.is_some() {
            g.deploy_config = self.deploy_config.clone();
        }
        g
    }
}

/// Where an input object came from, for a result's `resourceRef` and `file`.
#[derive(Debug)]
struct Origin {
    api_version: String,
    object: ObjectId,
    /// The user's file: the orchestrator's `path` annotation, or the file a generator read.
    path: Option<String>,
    /// The document's index in that file.
    index: Option<i64>,
}

/// Every input object's origin, by where it starts and by its identity.
#[derive(Debug, Default)]
struct Origins {
    list: Vec<Origin>,
    /// (start, index into `list`), sorted by start.
    starts: Vec<(Pos, usize)>,
    /// By kind, namespace as written and name (a diagnostic's label may carry no group).
    by_object: HashMap<ObjectId, usize>,
    /// Sources below this number are the ResourceList and its items.
    list_sources: u32,
}

/// The first of `keys` among an object's annotations.
fn annotation<'a>(root: &'a Node, keys: &[&str]) -> Option<&'a str> {
    let annotations = root.at(&["metadata", "annotations"])?;
    keys.iter()
        .find_map(|k| annotations.get(k).and_then(Node::as_str))
}

impl Origins {
    /// The origins of `objects`; those in a source below `list_sources` are items of the
    /// ResourceList.
    fn of(
        objects: &[Object],
        function_config: Option<&Node>,
        sources: &Sources,
        list_sources: u32,
    ) -> Origins {
        let mut origins = Origins {
            list_sources,
            ..Origins::default()
        };
        let add = |origins: &mut Origins, root: &Node, origin: Origin| {
            let i = origins.list.len();
            origins.starts.push((root.pos, i));
            let key = ObjectId {
                group: String::new(),
                ..origin.object.clone()
            };
            origins.by_object.entry(key).or_insert(i);
            origins.list.push(origin);
        };
        for o in objects {
            let from_list = o.root.pos.file < list_sources;
            let (path, index) = if from_list {
                (
                    annotation(
                        &o.root,
                        &[
                            "internal.config.kubernetes.io/path",
                            "config.kubernetes.io/path",
                        ],
                    )
                    .map(str::to_string),
                    annotation(
                        &o.root,
                        &[
                            "internal.config.kubernetes.io/index",
                            "config.kubernetes.io/index",
                        ],
                    )
                    .and_then(|i| i.parse().ok()),
                )
            } else {
                (
                    sources.path(o.root.pos).map(str::to_string),
                    i64::try_from(o.doc_index).ok(),
                )
            };
            add(
                &mut origins,
                &o.root,
                Origin {
                    api_version: o.api_version.clone(),
                    object: o.written_id(),
                    path,
                    index,
                },
            );
        }
        if let Some(config) = function_config {
            add(
                &mut origins,
                config,
                Origin {
                    api_version: config.str_at(&["apiVersion"]).unwrap_or("").to_string(),
                    object: ObjectId {
                        kind: config.str_at(&["kind"]).unwrap_or("").to_string(),
                        namespace: String::new(),
                        name: config
                            .str_at(&["metadata", "name"])
                            .unwrap_or("")
                            .to_string(),
                        group: String::new(),
                    },
                    path: None,
                    index: None,
                },
            );
        }
        origins.starts.sort_by_key(|(p, _)| *p);
        origins
    }

    /// The object a diagnostic is about: the input object its position lies in, else the
    /// one it names.
    fn find(&self, d: &Diagnostic) -> Option<&Origin> {
        let by_pos = d.pos.and_then(|pos| {
            let i = self.starts.partition_point(|(p, _)| *p <= pos);
            let (start, at) = *self.starts.get(i.checked_sub(1)?)?;
            (start.file == pos.file).then_some(at)
        });
        let by_object = || {
            d.object.as_ref().and_then(|o| {
                let key = ObjectId {
                    group: String::new(),
                    ..o.clone()
                };
                self.by_object.get(&key).or_else(|| {
                    self.by_object.get(&ObjectId {
                        namespace: String::new(),
                        ..key
                    })
                })
            })
        };
        by_pos
            .or_else(|| by_object().copied())
            .map(|i| &self.list[i])
    }
}

/// A diagnostic as a KRM result (the KRM functions specification's `Result`).
fn result(d: &Diagnostic, origins: &Origins, sources: &Sources) -> Node {
    let origin = origins.find(d);
    let mut message = String::new();
    let about_other = d
        .object
        .as_ref()
        .filter(|o| origin.is_none_or(|origin| origin.object != **o));
    if let Some(object) = about_other {
        message.push_str(&format!("{object}: "));
    }
    if origin.is_none()
        && let Some(field) = &d.field
    {
        message.push_str(&format!("{field}: "));
    }
    message.push_str(&d.message);
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "info",
    };
    let mut r = map! {
        "message" => Node::str(message),
        "severity" => Node::str(severity),
    };
    if let Some(origin) = origin {
        let mut reference = map! {
            "apiVersion" => Node::str(&origin.api_version),
            "kind" => Node::str(&origin.object.kind),
            "name" => Node::str(&origin.object.name),
        };
        if !origin.object.namespace.is_empty() {
            reference.insert("namespace", Node::str(&origin.object.namespace));
        }
        r.insert("resourceRef", Node::map(reference));
        if let Some(field) = &d.field {
            r.insert("field", Node::map(map! { "path" => Node::str(field) }));
        }
    }
    let file = origin
        .and_then(|o| o.path.clone().map(|p| (p, o.index)))
        .or_else(|| {
            // A problem in a file a generator read, outside any object.
            d.pos
                .filter(|p| p.file >= origins.list_sources)
                .and_then(|p| sources.path(p))
                .map(|p| (p.to_string(), None))
        });
    if let Some((path, index)) = file {
        let mut f = map! { "path" => Node::str(path) };
        if let Some(index) = index {
            f.insert("index", Node::int(index));
        }
        r.insert("file", Node::map(f));
    }
    let mut tags = map! { "code" => Node::str(d.code.as_str()) };
    if let Some(help) = &d.help {
        tags.insert("help", Node::str(help));
    }
    r.insert("tags", Node::map(tags));
    Node::map(r)
}

/// Whether an object is marked `config.kubernetes.io/local-config: "true"`: configuration
/// of the run (a generator's own file), which kustomize and kpt leave out of their output.
fn is_local_config(root: &Node) -> bool {
    annotation(root, &["config.kubernetes.io/local-config"]).is_some_and(|v| v == "true")
}

/// The diagnostics as a reader sees them on standard error (SEMANTICS.md#krm-function): a
/// place in an item of the ResourceList is moved to the same field of the user's file when
/// that file (`config.kubernetes.io/path`) is there and holds the object, else it becomes
/// the file's path and the field path, without a line. The results keep the items' places.
fn for_readers(
    diags: &[Diagnostic],
    sources: &mut Sources,
    origins: &Origins,
    global: &GlobalArgs,
) -> Vec<Diagnostic> {
    let positions: Vec<Pos> = diags
        .iter()
        .flat_map(|d| d.pos.into_iter().chain(d.related.iter().map(|r| r.pos)))
        .collect();
    let places = place_in_files(sources, origins.list_sources, positions, &global.limits());
    let mut shown: Vec<Diagnostic> = diags
        .iter()
        .map(|d| {
            let mut d = d.clone();
            match d.pos.and_then(|p| places.get(&p)) {
                Some(ItemPlace::File(at)) => d.pos = Some(*at),
                Some(ItemPlace::Unplaced { path, field }) => {
                    let mut lead = format!("{path}: ");
                    if let Some(object) = d.object.take() {
                        lead.push_str(&format!("{object}: "));
                    }
                    if let Some(field) = d.field.take().or_else(|| field.clone()) {
                        lead.push_str(&format!("{field}: "));
                    }
                    d.message.insert_str(0, &lead);
                    d.pos = None;
                }
                None => {}
            }
            d.related.retain_mut(|r| match places.get(&r.pos) {
                Some(ItemPlace::File(at)) => {
                    r.pos = *at;
                    true
                }
                Some(ItemPlace::Unplaced { .. }) => false,
                None => true,
            });
            d
        })
        .collect();
    crate::diagnostics::sort(&mut shown);
    shown
}

/// Reports the diagnostics on standard error and, as results, in a ResourceList without
/// items on standard output: exit 1.
fn failed(
    mut diags: Vec<Diagnostic>,
    sources: &mut Sources,
    origins: &Origins,
    global: &GlobalArgs,
) -> ExitStatus {
    crate::diagnostics::sort(&mut diags);
    if global.strict {
        for d in &mut diags {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
            }
        }
    }
    let mut shown = for_readers(&diags, sources, origins, global);
    report(&mut shown, sources, global, Outcome::Writes, false);
    let sources: &Sources = sources;
    let results: Vec<Node> = diags
        .iter()
        .filter(|d| !(global.quiet && d.severity == Severity::Note))
        .map(|d| result(d, origins, sources))
        .collect();
    match stdout_written(emit::krm::write_stdout(&[], &[], &results)) {
        ExitStatus::Success => ExitStatus::InputErrors,
        other => other,
    }
}

pub(crate) fn krm(global: &GlobalArgs) -> ExitStatus {
    if std::io::stdin().is_terminal() {
        return fatal(
            "ome-render krm is a KRM function: it reads a ResourceList on standard input, as kustomize and kpt send it; to render files, run `ome-render render PATH`",
        );
    }
    let limits = global.limits();
    let bytes = match read_stdin(limits.file_bytes.saturating_add(1)) {
        Ok(bytes) => bytes,
        Err(e) => return fatal(&format!("cannot read standard input: {e}")),
    };
    let mut list = resource_list_bytes(bytes, &limits);
    let no_origins = Origins::default();
    if list.has_errors() {
        return failed(
            list.loaded.diags,
            &mut list.loaded.sources,
            &no_origins,
            global,
        );
    }
    let mut config_diags = Vec::new();
    let config = FunctionConfig::read(list.function_config.as_ref(), &mut config_diags);
    if !config.paths_anywhere {
        for path in paths_outside(config.deploy_config.as_slice()) {
            let mut d = Diagnostic::error(
                Code::KrmFunctionConfig,
                format!(
                    "`deployConfig` {path} leads outside the current directory (under kustomize: the kustomization's); it is not read"
                ),
            )
            .help(format!(
                "keep OME's ConfigMap under the kustomization's directory; `loadRestrictor: {LOAD_RESTRICTIONS_NONE}` allows it"
            ));
            if let Some(config) = list.function_config.as_ref() {
                d = d.at(config
                    .at(&["spec", "deployConfig"])
                    .map_or(config.pos, |n| n.pos));
            }
            config_diags.push(d);
        }
        for path in paths_outside(&config.paths) {
            let mut d = Diagnostic::error(
                Code::KrmFunctionConfig,
                format!(
                    "`paths` entry {path} leads outside the current directory (under kustomize: the kustomization's); it is not read"
                ),
            )
            .help(format!(
                "keep the manifests under the kustomization's directory, as kustomize's load restrictor does; `loadRestrictor: {LOAD_RESTRICTIONS_NONE}` allows it"
            ));
            if let Some(config) = list.function_config.as_ref() {
                d = d.at(config.at(&["spec", "paths"]).map_or(config.pos, |n| n.pos));
            }
            config_diags.push(d);
        }
    }
    let global = config.global(global);
    let opaque = list.opaque;
    let list_sources = list.sources;
    let mut loaded = list.loaded;
    let origins_now = Origins::of(
        &loaded.objects,
        list.function_config.as_ref(),
        &loaded.sources,
        list_sources,
    );
    if config_diags.iter().any(Diagnostic::is_error) {
        loaded.diags.extend(config_diags);
        return failed(loaded.diags, &mut loaded.sources, &origins_now, &global);
    }
    loaded.diags.extend(config_diags);

    // Generator mode reads the paths; either mode reads the settings file. The items' sources
    // come first.
    let item_sources = u32::try_from(loaded.sources.len()).unwrap_or(u32::MAX);
    let read = if config.paths.is_empty() {
        load::load_settings(
            std::mem::take(&mut loaded),
            global.settings.clone(),
            global.deploy_config.clone(),
            &limits,
        )
    } else {
        let options = LoadOptions {
            paths: config.paths.clone(),
            include: global.include.clone(),
            exclude: global.exclude.clone(),
            settings: global.settings.clone(),
            deploy_config: global.deploy_config.clone(),
            limits,
            ..LoadOptions::default()
        };
        load::load_more(std::mem::take(&mut loaded), &options, &mut |_| {
            Ok(Vec::new())
        })
    };
    let mut loaded: Loaded = match read {
        Ok(loaded) => loaded,
        Err(e) => {
            let d = Diagnostic::error(Code::KrmFunctionConfig, e.to_string())
                .help("paths and the settings file are read relative to the current directory (under kustomize: the kustomization's directory)");
            return failed(vec![d], &mut Sources::new(), &no_origins, &global);
        }
    };
    let origins = Origins::of(
        &loaded.objects,
        list.function_config.as_ref(),
        &loaded.sources,
        list_sources,
    );
    if let Some(settings) = &loaded.settings
        && settings.str_at(&["kind"]) == Some(CONFIG_KIND)
    {
        let d = Diagnostic::error(
            Code::KrmFunctionConfig,
            format!("the settings file is an {CONFIG_KIND}, the function's own configuration"),
        )
        .at(settings.pos)
        .help(format!(
            "without `spec.paths` the settings file is {} in the current directory (under kustomize: the kustomization's); name the function's file otherwise (e.g. render.yaml), or set `spec.settings`",
            load::SETTINGS_FILE
        ));
        return failed(vec![d], &mut loaded.sources, &origins, &global);
    }
    let local: HashSet<ObjectId> = loaded
        .objects
        .iter()
        .filter(|o| is_local_config(&o.root))
        .map(Object::written_id)
        .collect();

    let options = Options {
        namespace: global
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string()),
        keep_ome: config.keep_ome,
        kinds: config.kinds.clone(),
        serialise: Some(Format::ResourceListItem),
        allow_empty: true,
        keep_passthrough_of: item_sources,
        exit_after: true,
        ..Options::default()
    };
    let mut rendering = pipeline::run_on(loaded, &options);
    let mut diags = std::mem::take(&mut rendering.diags);
    if let Some((name, near)) = rendering.unknown_kinds.first() {
        let hint = near
            .as_ref()
            .map_or(String::new(), |k| format!("; did you mean `{k}`?"));
        diags.push(Diagnostic::error(
            Code::KrmFunctionConfig,
            format!("kinds: {name} is no Kubernetes or OME kind, and no input has it{hint}"),
        ));
    }
    let writes_something = !opaque.is_empty()
        || rendering
            .objects
            .iter()
            .any(|o| !local.contains(&o.written_id()));
    if !writes_something && !config.allow_empty && !diags.iter().any(Diagnostic::is_error) {
        diags.push(
            Diagnostic::error(
                Code::EmptyOutput,
                "nothing to write: the ResourceList on <stdin> holds no item to render or pass through, nor do the functionConfig's paths (its own item does not count: kustomize and kpt drop it)",
            )
            .help("an empty output makes Argo CD (or kubectl apply --prune) delete every object it manages; set `allowEmpty: true` if that is what you want"),
        );
    }
    if global.strict {
        for d in &mut diags {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
            }
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        return failed(diags, &mut rendering.sources, &origins, &global);
    }
    crate::diagnostics::sort(&mut diags);
    let mut shown = for_readers(&diags, &mut rendering.sources, &origins, &global);
    report(
        &mut shown,
        &rendering.sources,
        &global,
        Outcome::Writes,
        false,
    );
    let results: Vec<Node> = diags
        .iter()
        .filter(|d| !(global.quiet && d.severity == Severity::Note))
        .map(|d| result(d, &origins, &rendering.sources))
        .collect();
    let status = stdout_written(emit::krm::write_stdout(
        &rendering.objects,
        &opaque,
        &results,
    ));
    pipeline::leave_to_exit(rendering);
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;
    use crate::yaml::parse::parse_stream;

    fn config(text: &str) -> (FunctionConfig, Vec<Diagnostic>) {
        let node = parse_stream(text, 0).unwrap().remove(0).root;
        let mut diags = Vec::new();
        (FunctionConfig::read(Some(&node), &mut diags), diags)
    }

    #[test]
    fn an_om_render_spec_mirrors_the_flags() {
        let (c, diags) = config(
            r"apiVersion: render.ome-render.io/v1alpha1
kind: OmeRender
metadata: {name: r}
spec:
  paths: [./manifests]
  namespace: team-a
  strict: true
  kinds: [Deployment]
  include: ['*.yaml']
  exclude: [old/*]
  settings: cluster.yaml
  deployConfig: cluster/config-map.yaml
  keepOme: true
  allowEmpty: true
  quiet: true
",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            c,
            FunctionConfig {
                paths: vec![PathBuf::from("./manifests")],
                namespace: Some("team-a".into()),
                strict: true,
                quiet: true,
                kinds: vec!["Deployment".into()],
                include: vec!["*.yaml".into()],
                exclude: vec!["old/*".into()],
                settings: Some(PathBuf::from("cluster.yaml")),
                deploy_config: Some(PathBuf::from("cluster/config-map.yaml")),
                keep_ome: true,
                allow_empty: true,
                paths_anywhere: false,
            }
        );
    }

    #[test]
    fn a_config_map_gives_the_same_fields_as_strings() {
        let (c, diags) = config(
            r"apiVersion: v1
kind: ConfigMap
metadata: {name: function-input}
data:
  namespace: ns
  strict: 'true'
  kinds: Deployment, Service
",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(c.namespace.as_deref(), Some("ns"));
        assert!(c.strict);
        assert_eq!(c.kinds, ["Deployment", "Service"]);
        let (_, diags) = config(
            r"apiVersion: v1
kind: ConfigMap
metadata: {name: f}
data: {strict: maybe}
",
        );
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn misspelt_fields_and_other_kinds_are_errors() {
        let (_, diags) = config(
            r"apiVersion: render.ome-render.io/v1alpha1
kind: OmeRender
metadata: {name: r}
spec:
  path: ./x
",
        );
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("unknown field `path`"));
        assert_eq!(diags[0].help.as_deref(), Some("did you mean `paths`?"));
        let (_, diags) = config(
            r"apiVersion: ome.io/v1alpha1
kind: OmeRender
metadata: {name: r}
",
        );
        assert!(
            diags[0].message.contains("unsupported apiVersion"),
            "{diags:?}"
        );
        let (_, diags) = config(
            r"apiVersion: v1
kind: Secret
metadata: {name: r}
",
        );
        assert!(
            diags[0].message.contains("not one ome-render reads"),
            "{diags:?}"
        );
    }

    #[test]
    fn results_name_the_item_and_its_file() {
        let text = r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      config.kubernetes.io/path: cm.yaml
      config.kubernetes.io/index: '2'
- apiVersion: ome.io/v1beta1
  kind: InferenceService
  metadata:
    name: b
    namespace: ns
    annotations:
      kustomize.config.k8s.io/id: x
  spec: {}
";
        let list =
            crate::load::krm::resource_list(text.to_string(), &crate::load::Limits::default());
        let origins = Origins::of(
            &list.loaded.objects,
            None,
            &list.loaded.sources,
            list.sources,
        );
        // Each item is a source of its own: the ConfigMap 1, the InferenceService 2.
        let at = |file, line| Pos { file, line, col: 4 };
        let d = Diagnostic::error(Code::InvalidField, "bad")
            .at(at(1, 4))
            .field("metadata.name");
        let r = result(&d, &origins, &list.loaded.sources);
        assert_eq!(r.str_at(&["resourceRef", "kind"]), Some("ConfigMap"));
        assert_eq!(r.str_at(&["file", "path"]), Some("cm.yaml"));
        assert_eq!(r.at(&["file", "index"]).and_then(Node::as_i64), Some(2));
        assert_eq!(r.str_at(&["field", "path"]), Some("metadata.name"));
        assert_eq!(r.str_at(&["message"]), Some("bad"));
        // kustomize sends no path: the result names the object only.
        let d = Diagnostic::warning(Code::InvalidField, "w")
            .at(at(2, 7))
            .object(ObjectId {
                kind: "Deployment".into(),
                namespace: "ns".into(),
                name: "b-engine".into(),
                group: String::new(),
            });
        let r = result(&d, &origins, &list.loaded.sources);
        assert_eq!(
            r.str_at(&["resourceRef", "apiVersion"]),
            Some("ome.io/v1beta1")
        );
        assert_eq!(r.str_at(&["resourceRef", "namespace"]), Some("ns"));
        assert_eq!(r.str_at(&["severity"]), Some("warning"));
        assert!(
            r.get("file").is_none(),
            "{}",
            crate::yaml::emit::to_yaml_string(&r)
        );
        assert_eq!(r.str_at(&["message"]), Some("Deployment/ns/b-engine: w"));
        // Without a position, by the object it names.
        let d = Diagnostic::note(Code::InvalidField, "n").object(ObjectId {
            kind: "InferenceService".into(),
            namespace: "ns".into(),
            name: "b".into(),
            group: String::new(),
        });
        let r = result(&d, &origins, &list.loaded.sources);
        assert_eq!(r.str_at(&["resourceRef", "name"]), Some("b"));
        assert_eq!(r.str_at(&["severity"]), Some("info"));
        assert_eq!(
            r.str_at(&["tags", "code"]),
            Some("ome::input::invalid-field")
        );
        assert!(matches!(
            r.get("message").map(|m| &m.value),
            Some(Value::Str(_))
        ));
    }
}
