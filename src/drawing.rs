//! Graphs drawn as text (SEMANTICS.md#drawn-graphs): Mermaid, which GitHub renders in
//! Markdown (the diff report's impact), and Graphviz DOT (`tree --format dot`).
//!
//! A graph holds at most a given number of nodes; the ones past it are counted and drawn as
//! one node, "… and N more". Labels quote input (names a pull request can set to anything):
//! every character but ASCII letters, digits, space and `/._:-()` is written as a numeric
//! character reference, so no label can end its string, its statement or the code block
//! around it.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    Solid,
    /// A choice that moved, say.
    Dashed,
}

/// What a node stands for, which sets its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A cause: a runtime, a model, an accelerator class, the settings (a box).
    Box,
    /// An InferenceService (rounded).
    Round,
}

#[derive(Debug)]
struct Drawn {
    label: String,
    shape: Shape,
}

/// A directed graph of at most `cap` nodes, drawn left to right.
#[derive(Debug)]
pub(crate) struct Graph {
    cap: usize,
    nodes: Vec<Drawn>,
    by_key: HashMap<String, usize>,
    edges: Vec<(usize, usize, Line)>,
    left_out: HashSet<String>,
}

impl Graph {
    pub(crate) fn new(cap: usize) -> Graph {
        Graph {
            cap,
            nodes: Vec::new(),
            by_key: HashMap::new(),
            edges: Vec::new(),
            left_out: HashSet::new(),
        }
    }

    /// The node `key` (added with `label` the first time), or `None` once the graph is full
    /// (the key is then counted among those left out).
    pub(crate) fn node(&mut self, key: &str, label: &str, shape: Shape) -> Option<usize> {
        if let Some(&i) = self.by_key.get(key) {
            return Some(i);
        }
        if self.nodes.len() >= self.cap {
            self.left_out.insert(key.to_string());
            return None;
        }
        self.nodes.push(Drawn {
            label: label.to_string(),
            shape,
        });
        self.by_key.insert(key.to_string(), self.nodes.len() - 1);
        Some(self.nodes.len() - 1)
    }

    /// An edge between two nodes; nothing when either was left out. Drawn once.
    pub(crate) fn edge(&mut self, from: Option<usize>, to: Option<usize>, line: Line) {
        if let (Some(from), Some(to)) = (from, to)
            && !self.edges.contains(&(from, to, line))
        {
            self.edges.push((from, to, line));
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// How many nodes were left out.
    pub(crate) fn left_out(&self) -> usize {
        self.left_out.len()
    }

    fn more(&self) -> Option<String> {
        (self.left_out() > 0).then(|| format!("… and {} more", self.left_out()))
    }

    /// The graph in Mermaid's flowchart syntax, without a code fence.
    pub(crate) fn mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let label = escape(&n.label, "#", ";");
            let _ = match n.shape {
                Shape::Box => writeln!(out, "  n{i}[\"{label}\"]"),
                Shape::Round => writeln!(out, "  n{i}([\"{label}\"])"),
            };
        }
        if let Some(more) = self.more() {
            let _ = writeln!(out, "  more[\"{}\"]", escape(&more, "#", ";"));
        }
        for &(from, to, line) in &self.edges {
            let arrow = match line {
                Line::Solid => "-->",
                Line::Dashed => "-.->",
            };
            let _ = writeln!(out, "  n{from} {arrow} n{to}");
        }
        out
    }

    /// The graph in Graphviz's DOT language.
    pub(crate) fn dot(&self) -> String {
        let mut out = String::from("digraph {\n  rankdir=LR;\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let shape = match n.shape {
                Shape::Box => "box",
                Shape::Round => "ellipse",
            };
            let _ = writeln!(
                out,
                "  n{i} [label=\"{}\", shape={shape}];",
                escape(&n.label, "&#", ";")
            );
        }
        if let Some(more) = self.more() {
            let _ = writeln!(
                out,
                "  more [label=\"{}\", shape=plaintext];",
                escape(&more, "&#", ";")
            );
        }
        for &(from, to, line) in &self.edges {
            match line {
                Line::Solid => {
                    let _ = writeln!(out, "  n{from} -> n{to};");
                }
                Line::Dashed => {
                    let _ = writeln!(out, "  n{from} -> n{to} [style=dashed];");
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// `s` with every character but ASCII letters, digits, space and `/._:-()` written as
/// `{open}<decimal code point>{close}`.
fn escape(s: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, ' ' | '/' | '.' | '_' | ':' | '-' | '(' | ')') {
            out.push(c);
        } else {
            let _ = write!(out, "{open}{}{close}", u32::from(c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_labels_are_character_references_and_the_cap_counts_the_rest() {
        let mut g = Graph::new(2);
        let a = g.node("a", "ServingRuntime/ns/x\"]\n```\n<b>", Shape::Box);
        let b = g.node("b", "InferenceService/ns/y", Shape::Round);
        let c = g.node("c", "ignored", Shape::Round);
        g.edge(a, b, Line::Solid);
        g.edge(a, b, Line::Solid);
        g.edge(a, c, Line::Dashed);
        assert_eq!(c, None);
        assert_eq!(g.left_out(), 1);
        assert_eq!(
            g.mermaid(),
            "flowchart LR\n  n0[\"ServingRuntime/ns/x#34;#93;#10;#96;#96;#96;#10;#60;b#62;\"]\n  n1([\"InferenceService/ns/y\"])\n  more[\"#8230; and 1 more\"]\n  n0 --> n1\n"
        );
        assert_eq!(
            g.dot(),
            "digraph {\n  rankdir=LR;\n  n0 [label=\"ServingRuntime/ns/x&#34;&#93;&#10;&#96;&#96;&#96;&#10;&#60;b&#62;\", shape=box];\n  n1 [label=\"InferenceService/ns/y\", shape=ellipse];\n  more [label=\"&#8230; and 1 more\", shape=plaintext];\n  n0 -> n1;\n}\n"
        );
    }
}
