//! `explain`: why each runtime is or is not chosen by auto-selection for a model, as
//! `kubectl ome runtime explain` reports it (SEMANTICS.md#auto-selection), plus where each runtime is
//! defined. Building the rows is separate from rendering them; both renderers are pure and
//! return the text.
//!
//! Rows come in OME's order: the selectable runtimes in rank order (the first is the pick),
//! then the others, ServingRuntimes before ClusterServingRuntimes, each by name. A row's
//! reason is the first check the runtime failed, in the order OME checks.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::{BaseModel, Scope};
use crate::select::auto::{Evaluation, Ranked, RuntimeIndex, evaluate, rank, validate_model};
use crate::select::request::Request;
use crate::yaml::emit::to_json_string;
use crate::yaml::{Node, Pos, Value};

/// Printed instead of a table when the namespace sees no runtime at all (OME exits 0).
pub(crate) const NO_RUNTIMES_NOTE: &str =
    "No serving runtimes found in the selected namespace or at cluster scope.";

/// Printed before the table when the explained InferenceService names its runtime.
pub(crate) const EXPLICIT_RUNTIME_NOTE: &str =
    "Note: spec.runtime is explicit; automatic selection below is hypothetical.";

/// One runtime's line in the explanation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ExplainRow<'a> {
    pub(crate) runtime: &'a str,
    pub(crate) scope: Scope,
    /// Where the runtime is defined.
    pub(crate) pos: Pos,
    pub(crate) verdict: Verdict,
}

/// The COMPATIBLE, PRIORITY, WEIGHT and REASON columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Auto-selection would consider the runtime. Priority and weight are those of its first
    /// matching entry, as OME reports them (not the score that ranks it).
    Yes { priority: i64, weight: i64 },
    /// Auto-selection skips the runtime, for this reason.
    No { reason: String },
}

impl<'a> RuntimeIndex<'a> {
    /// Every runtime visible in the request's namespace, weighed for `model`. Call
    /// [`validate_model`](crate::select::auto::validate_model) first: without a format name every
    /// runtime reads as a format mismatch.
    pub(crate) fn explain(&self, model: &BaseModel, request: &Request) -> Vec<ExplainRow<'a>> {
        let mut selectable: Vec<Ranked<'a>> = Vec::new();
        let mut skipped = Vec::new();
        // `visible` yields ServingRuntimes then ClusterServingRuntimes, each by name: the
        // order of the `No` rows, and the input order `rank` expects.
        for candidate in self.visible(&request.namespace) {
            let reason = match evaluate(candidate, model, request) {
                Evaluation::Selectable(ranked) => {
                    selectable.push(ranked);
                    continue;
                }
                Evaluation::Skipped(reason) => reason,
                Evaluation::Incompatible(incompatible) => incompatible.reason,
            };
            skipped.push(ExplainRow {
                runtime: candidate.name,
                scope: candidate.scope,
                pos: candidate.pos,
                verdict: Verdict::No { reason },
            });
        }
        let mut rows: Vec<ExplainRow<'a>> = rank(selectable)
            .into_iter()
            .map(|ranked| ExplainRow {
                runtime: ranked.candidate.name,
                scope: ranked.candidate.scope,
                pos: ranked.candidate.pos,
                verdict: Verdict::Yes {
                    priority: ranked.matched.priority,
                    weight: ranked.matched.weight,
                },
            })
            .collect();
        rows.extend(skipped);
        rows
    }
}

/// What `explain` explains: the model, the request it is weighed for, and the notes printed
/// on stderr before the rows.
#[derive(Debug)]
pub(crate) struct Subject<'a> {
    pub(crate) model: &'a BaseModel,
    pub(crate) request: Request,
    pub(crate) notes: Vec<&'static str>,
}

/// The subject of `explain --isvc TARGET` (the InferenceService's model and request) or of
/// `explain --model NAME` (that model, for any InferenceService of `namespace`), or the error
/// saying why there is none: no such InferenceService, one without `spec.model`, no such
/// model (with a close name), or a model without a format name.
pub(crate) fn subject<'a>(
    catalog: &'a Catalog,
    isvc: Option<&str>,
    model: Option<&str>,
    namespace: &str,
) -> Result<Subject<'a>, Diagnostic> {
    let mut notes = Vec::new();
    let (found, request) = if let Some(target) = isvc {
        let isvc = catalog.inference_service_named(target, namespace)?;
        let Some(model_ref) = &isvc.model else {
            return Err(Diagnostic::error(
                Code::InvalidInferenceService,
                format!(
                    "InferenceService \"{}\" has no spec.model; pass --model instead",
                    isvc.name
                ),
            )
            .at(isvc.pos)
            .object(isvc.object.clone()));
        };
        if isvc.runtime.is_some() {
            notes.push(EXPLICIT_RUNTIME_NOTE);
        }
        let ns = isvc.lookup_namespace.as_str();
        (
            catalog
                .model(ns, &model_ref.name)
                .ok_or((model_ref.name.as_str(), ns)),
            Request::from_inference_service(isvc),
        )
    } else {
        let name = model.unwrap_or_default();
        (
            catalog.model(namespace, name).ok_or((name, namespace)),
            Request::for_namespace(namespace),
        )
    };
    let model = found.map_err(|(name, ns)| {
        Diagnostic::error(
            Code::ModelNotFound,
            format!("no BaseModel \"{name}\" in namespace \"{ns}\" and no ClusterBaseModel \"{name}\" among the inputs"),
        )
        .help(
            crate::diagnostics::suggest::did_you_mean(name, catalog.model_names(ns))
                .unwrap_or_else(|| "add the model's file to the paths, or fix the name".to_string()),
        )
    })?;
    validate_model(model).map_err(|e| {
        Diagnostic::error(Code::ModelMetadataMissing, e.to_string())
            .at(model.pos)
            .object(model.object.clone())
            .help(e.help())
    })?;
    Ok(Subject {
        model,
        request,
        notes,
    })
}

/// The rows explaining `subject`, or `None` when its namespace sees no runtime at all (then
/// `explain` prints [`NO_RUNTIMES_NOTE`] instead, and succeeds, as OME does).
pub(crate) fn rows<'a>(
    index: &RuntimeIndex<'a>,
    subject: &Subject<'_>,
) -> Option<Vec<ExplainRow<'a>>> {
    index.visible(&subject.request.namespace).next()?;
    Some(index.explain(subject.model, &subject.request))
}

/// `Namespaced` or `Cluster`, as the SCOPE column spells it.
pub(crate) fn scope_label(scope: Scope) -> &'static str {
    match scope {
        Scope::Namespaced => "Namespaced",
        Scope::Cluster => "Cluster",
    }
}

/// The narrowest the REASON column is wrapped to, however narrow the terminal.
const MIN_REASON_WIDTH: usize = 24;

/// The rows as a table: `RUNTIME SCOPE COMPATIBLE PRIORITY WEIGHT REASON SOURCE`, columns
/// padded and separated by at least two spaces as kubectl prints them, after a first column
/// that marks with `*` the runtime auto-selection picks. The REASON column wraps at spaces so
/// the table fits `width` columns (never narrower than [`MIN_REASON_WIDTH`]); continuation
/// lines hold only the rest of the reason. `source` turns a runtime's position into
/// `path:line`; a position the renderer made itself shows as `-`.
pub(crate) fn render_table(
    rows: &[ExplainRow<'_>],
    source: impl Fn(Pos) -> String,
    width: usize,
) -> String {
    const REASON: usize = 6;
    let header = [
        " ",
        "RUNTIME",
        "SCOPE",
        "COMPATIBLE",
        "PRIORITY",
        "WEIGHT",
        "REASON",
        "SOURCE",
    ]
    .map(str::to_string);
    let mut lines = vec![header];
    let mut marked = false;
    for row in rows {
        let (compatible, priority, weight, reason) = match &row.verdict {
            Verdict::Yes { priority, weight } => (
                "Yes",
                priority.to_string(),
                weight.to_string(),
                "-".to_string(),
            ),
            Verdict::No { reason } => ("No", "-".to_string(), "-".to_string(), reason.clone()),
        };
        // The first compatible row is the pick (rows come in rank order).
        let mark = if compatible == "Yes" && !marked {
            marked = true;
            "*"
        } else {
            " "
        };
        lines.push([
            mark.to_string(),
            row.runtime.to_string(),
            scope_label(row.scope).to_string(),
            compatible.to_string(),
            priority,
            weight,
            reason,
            source_of(row.pos, &source),
        ]);
    }
    let mut widths = [0usize; 8];
    for line in &lines {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != REASON)
        .map(|(_, w)| w + 2)
        .sum();
    widths[REASON] = widths[REASON].min(width.saturating_sub(others).max(MIN_REASON_WIDTH));
    let reason_column: usize = widths[..REASON].iter().map(|w| w + 2).sum();
    let mut out = String::new();
    for line in &lines {
        let reason = wrap(&line[REASON], widths[REASON]);
        let last = line.len() - 1;
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            let cell = if i == REASON { &reason[0] } else { cell };
            text.push_str(cell);
            if i < last {
                let padding = widths[i].saturating_sub(cell.chars().count()) + 2;
                text.extend(std::iter::repeat_n(' ', padding));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
        for rest in &reason[1..] {
            out.extend(std::iter::repeat_n(' ', reason_column));
            out.push_str(rest);
            out.push('\n');
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = lines.last_mut().expect("one line at least");
            let used = line.chars().count();
            let needed = if used == 0 {
                word.len()
            } else {
                used + 1 + word.len()
            };
            if needed <= width {
                if used > 0 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(String::new());
                continue;
            }
            // A word longer than the column: cut it.
            let rest = word.split_off(width.max(1).min(word.len()));
            line.extend(word.iter());
            word = rest;
            if word.is_empty() {
                break;
            }
            lines.push(String::new());
        }
    }
    lines
}

/// The rows as one JSON object: `{"selected": {"runtime", "scope"} or null, "runtimes": [{"runtime",
/// "scope", "compatible", "priority", "weight", "reason", "source"}]}`. Priority and weight
/// are null on `No` rows, the reason null on `Yes` rows.
pub(crate) fn render_json(rows: &[ExplainRow<'_>], source: impl Fn(Pos) -> String) -> String {
    let null = || Node::made(Value::Null);
    let selected = rows
        .iter()
        .find(|row| matches!(row.verdict, Verdict::Yes { .. }))
        .map_or_else(null, |row| {
            Node::map(crate::map! {
                "runtime" => Node::str(row.runtime),
                "scope" => Node::str(scope_label(row.scope)),
            })
        });
    let runtimes = rows
        .iter()
        .map(|row| {
            let (compatible, priority, weight, reason) = match &row.verdict {
                Verdict::Yes { priority, weight } => {
                    (true, Node::int(*priority), Node::int(*weight), null())
                }
                Verdict::No { reason } => (false, null(), null(), Node::str(reason.as_str())),
            };
            Node::map(crate::map! {
                "runtime" => Node::str(row.runtime),
                "scope" => Node::str(scope_label(row.scope)),
                "compatible" => Node::bool(compatible),
                "priority" => priority,
                "weight" => weight,
                "reason" => reason,
                "source" => Node::str(source_of(row.pos, &source)),
            })
        })
        .collect();
    to_json_string(&Node::map(crate::map! {
        "selected" => selected,
        "runtimes" => Node::seq(runtimes),
    }))
}

fn source_of(pos: Pos, source: &impl Fn(Pos) -> String) -> String {
    if pos.is_none() {
        "-".to_string()
    } else {
        source(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::auto::NO_AUTO_SELECT_ENTRY_REASON;
    use crate::select::testutil::{isvc, model, r10_entry, r10_model, r10_runtimes, runtimes};

    fn catalog(yaml: &str) -> Catalog {
        let loaded = crate::load::from_texts(&[("in.yaml", yaml)], &crate::load::Limits::default());
        crate::catalog::build(loaded.objects, "default", "ome", false).0
    }

    /// `explain --isvc` on an InferenceService that names only its runtime: the error says to
    /// pass `--model`, at the InferenceService, and there is no subject.
    #[test]
    fn subject_of_an_isvc_without_a_model_is_an_error() {
        let c = catalog(
            r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: chat, namespace: team-a}
spec:
  runtime: {name: vllm}
  engine: {}
",
        );
        let d = subject(&c, Some("team-a/chat"), None, "default").expect_err("no spec.model");
        assert_eq!(d.code, Code::InvalidInferenceService);
        assert_eq!(
            d.message,
            "InferenceService \"chat\" has no spec.model; pass --model instead"
        );
        assert!(d.pos.is_some() && d.object.is_some(), "{d:?}");
    }

    /// `explain --model` with a misspelt model: the error names the namespace and suggests
    /// the close name; spelt right, the model is the subject, with no notes.
    #[test]
    fn subject_of_a_model_name() {
        let c = catalog(
            r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-8b}
spec:
  modelFormat: {name: safetensors}
",
        );
        let d = subject(&c, None, Some("llama-3-8c"), "team-a").expect_err("no such model");
        assert_eq!(d.code, Code::ModelNotFound);
        assert_eq!(
            d.message,
            "no BaseModel \"llama-3-8c\" in namespace \"team-a\" and no ClusterBaseModel \"llama-3-8c\" among the inputs"
        );
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains("llama-3-8b")),
            "{d:?}"
        );
        let s = subject(&c, None, Some("llama-3-8b"), "team-a").expect("the model");
        assert_eq!(s.model.name, "llama-3-8b");
        assert_eq!(s.request.namespace, "team-a");
        assert!(s.notes.is_empty());
    }

    /// RUNTIME SCOPE COMPATIBLE PRIORITY WEIGHT REASON, space-separated, as the spec writes them.
    fn summary(rows: &[ExplainRow<'_>]) -> Vec<String> {
        rows.iter()
            .map(|row| {
                let verdict = match &row.verdict {
                    Verdict::Yes { priority, weight } => format!("Yes {priority} {weight} -"),
                    Verdict::No { reason } => format!("No - - {reason}"),
                };
                format!("{} {} {verdict}", row.runtime, scope_label(row.scope))
            })
            .collect()
    }

    fn explain_fixture() -> crate::select::testutil::Runtimes {
        let team = format!("{{supportedModelFormats: [{}]}}", r10_entry("", "true", 1));
        let vllm = format!(
            "{{supportedModelFormats: [{}]}}",
            r10_entry(", weight: 2", "true", 2)
        );
        let srt = format!(
            "{{supportedModelFormats: [{}], modelSizeRange: {{min: 500M, max: 2B}}}}",
            r10_entry("", "true", 1)
        );
        let base = format!(
            "{{supportedModelFormats: [{}, {}]}}",
            r10_entry("", "false", 1),
            r10_entry(", weight: 3", "false", 1)
        );
        let legacy = format!(
            "{{disabled: true, supportedModelFormats: [{}]}}",
            r10_entry("", "true", 1)
        );
        let list = [
            ("CL/vllm-legacy", legacy),
            ("CL/vllm-base", base),
            ("CL/srt-llama-1b", srt),
            ("CL/vllm-llama", vllm),
            ("NS/team-llama", team),
        ];
        let borrowed: Vec<(&str, &str)> = list.iter().map(|(a, b)| (*a, b.as_str())).collect();
        runtimes("team-a", &borrowed)
    }

    /// The docs' `explain --model` example.
    #[test]
    fn documented_explain_rows() {
        let fixture = explain_fixture();
        let rows = fixture
            .index()
            .explain(&r10_model(), &Request::for_namespace("team-a"));
        assert_eq!(summary(&rows), [
            "team-llama Namespaced Yes 1 2 -".to_string(),
            "vllm-llama Cluster Yes 2 6 -".to_string(),
            "srt-llama-1b Cluster No - - model size 3.21B is outside supported range [500M, 2B]".to_string(),
            format!("vllm-base Cluster No - - {NO_AUTO_SELECT_ENTRY_REASON}"),
            "vllm-legacy Cluster No - - runtime is disabled".to_string(),
        ]);
        assert!(summary(&rows)[3].starts_with(
            "vllm-base Cluster No - - supports the model but has no supportedModelFormats[].autoSelect=true entry, "
        ));
        // Positions travel with the rows: the fixture gave line i + 1 in input order.
        assert_eq!(
            rows.iter().map(|r| r.pos.line).collect::<Vec<_>>(),
            [5, 4, 3, 2, 1]
        );
        // The first Yes row is the pick.
        let selection = fixture
            .index()
            .select(&r10_model(), &Request::for_namespace("team-a"))
            .expect("selects");
        assert_eq!(selection.runtime.name, rows[0].runtime);
    }

    /// R10's explain rows.
    #[test]
    fn scoring_example_rows() {
        let fixture = r10_runtimes(3, true);
        let rows = fixture
            .index()
            .explain(&r10_model(), &Request::for_namespace("llama-demo"));
        assert_eq!(
            summary(&rows),
            [
                "team-llama Namespaced Yes 1 2 -",
                "vllm-llama Cluster Yes 2 6 -",
                "srt-llama-small Cluster Yes 3 6 -",
                "srt-llama-large Cluster Yes 3 6 -",
            ]
        );
    }

    fn reasons<'a>(rows: &[ExplainRow<'a>]) -> Vec<(&'a str, String)> {
        rows.iter()
            .map(|row| match &row.verdict {
                Verdict::No { reason } => (row.runtime, reason.clone()),
                Verdict::Yes { .. } => (row.runtime, "Yes".to_string()),
            })
            .collect()
    }

    /// Every `No` reason, in its place.
    #[test]
    fn every_no_reason() {
        let m = model(
            "{modelFormat: {name: safetensors}, modelArchitecture: Llama, modelParameterSize: 7B}",
        );
        let fixture = runtimes("default", &[
            ("CL/a-disabled", "{disabled: true, supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama}]}"),
            ("CL/c-format", "{supportedModelFormats: []}"),
            ("CL/d-size", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama}], modelSizeRange: {min: 70B}}"),
            ("CL/e-no-auto", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama}]}"),
            ("CL/f-other-entry", "{supportedModelFormats: [
                                     {modelFormat: {name: safetensors}, modelArchitecture: Llama, autoSelect: false},
                                     {modelFormat: {name: onnx}, autoSelect: true}]}"),
            ("CL/g-negative", "{supportedModelFormats: [{modelFormat: {name: safetensors, weight: -2}, modelArchitecture: Llama, autoSelect: true}]}"),
            ("CL/h-priority-zero", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama, autoSelect: true, priority: 0}]}"),
            ("CL/y-selected", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama, autoSelect: true}]}"),
            ("NS/z-namespaced", "{supportedModelFormats: [{modelFormat: {name: gguf}}]}"),
        ]);
        let rows = fixture
            .index()
            .explain(&m, &Request::for_namespace("default"));
        let expected = [
            ("y-selected", "Yes"),
            (
                "z-namespaced",
                "model format 'mt:safetensors:Llama' not in supported formats: model has architecture Llama but runtime has no architecture requirement, format name mismatch (model=safetensors, runtime=gguf)",
            ),
            ("a-disabled", "runtime is disabled"),
            (
                "c-format",
                "model format 'mt:safetensors:Llama' not in supported formats: no supported formats defined",
            ),
            (
                "d-size",
                "model size 7B is outside supported range [70B, inf)",
            ),
            ("e-no-auto", NO_AUTO_SELECT_ENTRY_REASON),
            (
                "f-other-entry",
                "matching format safetensors is not autoSelect-enabled (a different supportedModelFormats entry on this runtime has autoSelect=true, but not the one that matches this model)",
            ),
            ("g-negative", "auto-select score is 0"),
            (
                "h-priority-zero",
                "auto-select score is 0 (format priority 0)",
            ),
        ];
        assert_eq!(reasons(&rows), expected.map(|(n, r)| (n, r.to_string())));

        // Accelerator and mode reasons, for an InferenceService that asks for both.
        let fixture = runtimes("default", &[
            ("CL/b-accelerator", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama, autoSelect: true}],
                                   acceleratorRequirements: {acceleratorClasses: [y]}}"),
            ("CL/m-mode", "{supportedModelFormats: [{modelFormat: {name: safetensors}, modelArchitecture: Llama, autoSelect: true}],
                            acceleratorRequirements: {acceleratorClasses: [x]}, engineConfig: {annotations: {ome.io/deploymentMode: MultiNode}}}"),
        ]);
        let r = Request::from_inference_service(&isvc(
            "{spec: {acceleratorSelector: {acceleratorClass: x}, deploymentMode: OMENative}}",
        ));
        assert_eq!(reasons(&fixture.index().explain(&m, &r)), [
            ("b-accelerator", "runtime does not support the required accelerator class".to_string()),
            ("m-mode", "runtime engine deployment mode MultiNode does not match requested engine deployment mode OMENative".to_string()),
        ]);
        // Nothing visible, nothing to explain.
        assert!(runtimes("default", &[]).index().explain(&m, &r).is_empty());
    }

    #[test]
    fn wraps_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefghij k", 4), ["abcd", "efgh", "ij k"]);
    }

    #[test]
    fn renders_a_table_and_json() {
        let fixture = explain_fixture();
        let mut rows = fixture
            .index()
            .explain(&r10_model(), &Request::for_namespace("team-a"));
        rows.truncate(3);
        rows[1].pos = Pos::NONE;
        let source = |pos: Pos| format!("runtimes.yaml:{}", pos.line);
        assert_eq!(
            render_table(&rows, source, 200),
            "   RUNTIME       SCOPE       COMPATIBLE  PRIORITY  WEIGHT  REASON                                                  SOURCE\n\
             *  team-llama    Namespaced  Yes         1         2       -                                                       runtimes.yaml:5\n\
             \x20  vllm-llama    Cluster     Yes         2         6       -                                                       -\n\
             \x20  srt-llama-1b  Cluster     No          -         -       model size 3.21B is outside supported range [500M, 2B]  runtimes.yaml:3\n"
        );
        // At 80 columns the reason wraps at spaces; the other columns stay in place.
        let indent = " ".repeat(59);
        assert_eq!(
            render_table(&rows, source, 80),
            format!(
                "   RUNTIME       SCOPE       COMPATIBLE  PRIORITY  WEIGHT  REASON                    SOURCE\n\
                 *  team-llama    Namespaced  Yes         1         2       -                         runtimes.yaml:5\n\
                 \x20  vllm-llama    Cluster     Yes         2         6       -                         -\n\
                 \x20  srt-llama-1b  Cluster     No          -         -       model size 3.21B is       runtimes.yaml:3\n\
                 {indent}outside supported range\n\
                 {indent}[500M, 2B]\n"
            )
        );
        assert_eq!(
            render_json(&rows, source),
            r#"{"selected":{"runtime":"team-llama","scope":"Namespaced"},"runtimes":[{"runtime":"team-llama","scope":"Namespaced","compatible":true,"priority":1,"weight":2,"reason":null,"source":"runtimes.yaml:5"},{"runtime":"vllm-llama","scope":"Cluster","compatible":true,"priority":2,"weight":6,"reason":null,"source":"-"},{"runtime":"srt-llama-1b","scope":"Cluster","compatible":false,"priority":null,"weight":null,"reason":"model size 3.21B is outside supported range [500M, 2B]","source":"runtimes.yaml:3"}]}"#
        );
        assert_eq!(
            render_json(&[], source),
            r#"{"selected":null,"runtimes":[]}"#
        );
        assert_eq!(
            render_table(&[], source, 80),
            "   RUNTIME  SCOPE  COMPATIBLE  PRIORITY  WEIGHT  REASON  SOURCE\n"
        );
    }
}
