//! The Markdown report, for a pull-request comment or a job summary: the summary table and
//! the impact first, then one `<details>` per InferenceService with a `diff` block per
//! object. It fits `max_bytes` (GitHub's comment limit is 65,536 characters): the summary
//! and impact always stay; per-object diffs are cut first (the object keeps a one-line
//! entry), then whole InferenceServices, and a closing note says what was left out
//! (SEMANTICS.md#diff-output).

use super::{
    BASE_FAILED, Changed, FIRST_LINES, Labels, all_changes, auto, changes, count, group_line,
    names, reach, summary,
};
use crate::diagnostics::escape::{markdown_block, markdown_code, markdown_fence, markdown_text};
use crate::diagnostics::report::thousands;
use crate::diff::{Group, ObjectDiff, Report};
use crate::drawing::{Graph, Line, Shape};
use crate::k8s::id::ObjectId;
use std::fmt::Write;

/// Room kept for the closing note when something is left out.
const NOTE_ROOM: usize = 400;

/// The most nodes the impact graph draws; the rest are one "… and N more" node.
pub(crate) const GRAPH_NODES: usize = 30;

/// An input-derived name as inline code, escaped (SEMANTICS.md#output-escaping).
fn code(s: &str) -> String {
    markdown_code(s)
}

/// The report within `max_bytes`, or `Err` with the fewest bytes any report of these renders
/// takes (the summary, the impact and the closing note, every InferenceService left out) when
/// `max_bytes` is below that.
pub(crate) fn fitted(report: &Report, labels: &Labels, max_bytes: usize) -> Result<String, usize> {
    let out = render(report, labels, max_bytes);
    if out.len() <= max_bytes {
        return Ok(out);
    }
    // The closing note names the limit, so the smallest report's length depends on the
    // number of digits it has: settle it (it grows by a few bytes at most, so this ends).
    let mut least = render(report, labels, 0).len();
    loop {
        let len = render(report, labels, least).len();
        if len <= least {
            return Err(least);
        }
        least = len;
    }
}

pub(crate) fn render(report: &Report, labels: &Labels, max_bytes: usize) -> String {
    let mut out = head(report, labels);
    if !report.has_differences() {
        return out;
    }
    let groups: Vec<Piece> = report.groups.iter().map(piece).collect();
    let skeleton: usize = groups.iter().map(Piece::skeleton_len).sum();
    // The graph is the first thing left out: it goes in only when everything else fits whole.
    let graph = impact_graph(report).unwrap_or_default();
    let whole: usize = skeleton
        + groups
            .iter()
            .flat_map(|p| &p.objects)
            .map(|e| e.full.len().saturating_sub(e.stub.len()))
            .sum::<usize>();
    let graph_left_out = !graph.is_empty() && out.len() + graph.len() + whole > max_bytes;
    if !graph_left_out {
        out.push_str(&graph);
    }
    // Room for the closing note only when something is left out.
    let budget = if !graph_left_out && out.len() + whole <= max_bytes {
        max_bytes - out.len()
    } else {
        max_bytes.saturating_sub(out.len() + NOTE_ROOM)
    };
    let mut full: Vec<Vec<bool>> = groups
        .iter()
        .map(|g| vec![false; g.objects.len()])
        .collect();
    let mut shown_groups = groups.len();
    if skeleton <= budget {
        // Every InferenceService is listed; give diffs, in order, the room that is left.
        let mut room = budget - skeleton;
        for (g, piece) in groups.iter().enumerate() {
            for (o, entry) in piece.objects.iter().enumerate() {
                let extra = entry.full.len().saturating_sub(entry.stub.len());
                if extra <= room {
                    room -= extra;
                    full[g][o] = true;
                }
            }
        }
    } else {
        let mut used = 0;
        shown_groups = groups
            .iter()
            .take_while(|p| {
                used += p.skeleton_len();
                used <= budget
            })
            .count();
    }
    let mut diffs_left_out = 0;
    for (g, piece) in groups.iter().take(shown_groups).enumerate() {
        out.push_str(&piece.open);
        for (o, entry) in piece.objects.iter().enumerate() {
            if full[g][o] {
                out.push_str(&entry.full);
            } else {
                out.push_str(&entry.stub);
                diffs_left_out += 1;
            }
        }
        out.push_str(CLOSE);
    }
    let groups_left_out = groups.len() - shown_groups;
    if diffs_left_out > 0 || groups_left_out > 0 || graph_left_out {
        let mut what = Vec::new();
        if graph_left_out {
            what.push("the impact graph".to_string());
        }
        if diffs_left_out > 0 {
            what.push(format!(
                "the diffs of {} (each still listed on one line)",
                count(diffs_left_out, "object")
            ));
        }
        if groups_left_out > 0 {
            let objects: usize = report.groups[shown_groups..]
                .iter()
                .map(|g| g.objects.len())
                .sum();
            what.push(format!(
                "{} with {} (not listed)",
                count(groups_left_out, "group"),
                count(objects, "object")
            ));
        }
        let _ = writeln!(
            out,
            "> **Shortened to fit {} bytes:** left out {}. Run `ome-render diff` locally to see everything.",
            thousands(max_bytes),
            what.join(" and ")
        );
    }
    out
}

/// The title, the summary table and the impact: always written whole.
fn head(report: &Report, labels: &Labels) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### ome-render diff {} → {}\n",
        code(&labels.base),
        code(&labels.head)
    );
    let _ = writeln!(out, "{}\n", summary(report));
    if let Some(errors) = &report.base_errors {
        let _ = writeln!(out, "> [!WARNING]\n> {BASE_FAILED}");
        for e in errors {
            let _ = writeln!(out, "> - {}", code(e));
        }
        out.push('\n');
    }
    if report.has_differences() {
        let c = report.counts();
        let isvc_objects = [
            c.objects[0] - c.passthrough[0],
            c.objects[1] - c.passthrough[1],
            c.objects[2] - c.passthrough[2],
        ];
        out.push_str("| | added | removed | changed |\n| --- | ---: | ---: | ---: |\n");
        let row = |out: &mut String, what: &str, n: [usize; 3]| {
            let _ = writeln!(
                out,
                "| {what} | {} | {} | {} |",
                thousands(n[0]),
                thousands(n[1]),
                thousands(n[2])
            );
        };
        row(&mut out, "InferenceServices", c.isvcs);
        row(&mut out, "their objects", isvc_objects);
        row(&mut out, "pass-through objects", c.passthrough);
        out.push('\n');
    }
    impact(report, &mut out);
    out
}

fn impact(report: &Report, out: &mut String) {
    let i = &report.impact;
    let mut lines = Vec::new();
    let (changed, more) = changes(i);
    for c in changed {
        let (mut line, reached) = match c {
            Changed::Resource(r) => (
                format!(
                    "- {} {}: **{}**",
                    code(&r.id.to_string()),
                    r.change.word(),
                    reach(r)
                ),
                &r.reached[..],
            ),
            Changed::Settings(reached) => (
                format!(
                    "- settings changed: **reaches {}**",
                    count(reached.len(), "InferenceService")
                ),
                reached,
            ),
        };
        if !reached.is_empty() {
            line.push_str(&format!(": {}", names(reached, code)));
        }
        lines.push(line);
    }
    if more > 0 {
        lines.push(format!("- … and {more} more changed resources"));
    }
    if !i.choices.is_empty() {
        lines.push(format!(
            "- runtime choice changed for **{}**:",
            count(i.choices.len(), "InferenceService")
        ));
        for c in i.choices.iter().take(FIRST_LINES) {
            lines.push(format!(
                "  - {}: was {}{}, now {}{}",
                code(&c.isvc.path()),
                code(&c.was.to_string()),
                auto(c.was_auto),
                code(&c.now.to_string()),
                auto(c.now_auto)
            ));
        }
        if i.choices.len() > FIRST_LINES {
            lines.push(format!("  - … and {} more", i.choices.len() - FIRST_LINES));
        }
    }
    if !i.edited.is_empty() {
        lines.push(format!(
            "- {} edited: {}",
            count(i.edited.len(), "InferenceService"),
            names(&i.edited, code)
        ));
    }
    if !i.unattributed.is_empty() {
        lines.push(format!(
            "- {} changed for no reason found in the inputs: {}",
            count(i.unattributed.len(), "InferenceService"),
            names(&i.unattributed, code)
        ));
    }
    if lines.is_empty() {
        return;
    }
    out.push_str("**Impact**\n\n");
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
}

/// The impact drawn as a Mermaid graph (SEMANTICS.md#diff-output): each changed resource
/// and the settings on one side, the InferenceServices they reach on the other, and a dashed
/// edge from the runtime an InferenceService now uses when its choice moved. At most
/// [`GRAPH_NODES`] nodes. `None` when there is nothing to draw.
pub(crate) fn impact_graph(report: &Report) -> Option<String> {
    let i = &report.impact;
    let mut g = Graph::new(GRAPH_NODES);
    let isvc = |g: &mut Graph, id: &ObjectId| {
        g.node(
            &format!("isvc {}", id.path()),
            &format!("InferenceService {}", id.path()),
            Shape::Round,
        )
    };
    // Every change, not only the first lines the list shows: the graph has its own cap.
    for c in all_changes(i) {
        let (from, reached) = match c {
            Changed::Resource(r) => (
                g.node(
                    &r.id.to_string(),
                    &format!("{} ({})", r.id, r.change.word()),
                    Shape::Box,
                ),
                &r.reached[..],
            ),
            Changed::Settings(reached) => (
                g.node("settings", "settings (changed)", Shape::Box),
                reached,
            ),
        };
        for id in reached {
            let to = isvc(&mut g, id);
            g.edge(from, to, Line::Solid);
        }
    }
    for c in &i.choices {
        let now = g.node(&c.now.to_string(), &c.now.to_string(), Shape::Box);
        let to = isvc(&mut g, &c.isvc);
        g.edge(now, to, Line::Dashed);
    }
    (!g.is_empty()).then(|| format!("```mermaid\n{}```\n\n", g.mermaid()))
}

const CLOSE: &str = "</details>\n\n";

/// One object's entry: with its diff, and the one line that stands for it when cut.
struct Entry {
    full: String,
    stub: String,
}

/// One InferenceService's `<details>`.
struct Piece {
    open: String,
    objects: Vec<Entry>,
}

impl Piece {
    /// Its size with every diff cut.
    fn skeleton_len(&self) -> usize {
        self.open.len() + CLOSE.len() + self.objects.iter().map(|e| e.stub.len()).sum::<usize>()
    }
}

fn piece(g: &Group) -> Piece {
    let name = match &g.isvc {
        Some(id) => format!("InferenceService {}", markdown_code(&id.path())),
        None => "pass-through objects".to_string(),
    };
    let open = format!(
        "<details><summary>{name}: {}</summary>\n\n",
        markdown_text(&group_line(g))
    );
    Piece {
        open,
        objects: g.objects.iter().map(entry).collect(),
    }
}

fn entry(o: &ObjectDiff) -> Entry {
    let title = format!(
        "**{} {}** (+{} -{})",
        o.change.sign(),
        code(&o.title()),
        o.lines.added,
        o.lines.removed
    );
    // A fence longer than any run of backticks in the diff, so none can close it.
    let hunks = markdown_block(&o.lines.hunks);
    let fence = markdown_fence(&hunks);
    Entry {
        full: format!("{title}\n\n{fence}diff\n{hunks}{fence}\n\n"),
        stub: format!("{title}, diff left out\n\n"),
    }
}
