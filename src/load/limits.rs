//! The limits of a run (SEMANTICS.md#limits): how much input, how deep, how many documents,
//! keys, alias copies and printed diagnostics ome-render accepts. Each is high enough for real
//! repositories and low enough that nothing a user commits can exhaust memory, the stack or
//! time; each error names its limit and how to raise it.

use crate::yaml::parse::{AliasBudget, ParseLimits, limit_names};

/// Every limit of a run. `Limits::default()` holds the documented values; the command line
/// raises them with `Limits::set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Bytes of one input file (or of standard input).
    pub(crate) file_bytes: u64,
    /// Bytes of all input files together.
    pub(crate) total_bytes: u64,
    /// Documents in all inputs together (the items of a `kind: List` count one each).
    pub(crate) documents: usize,
    /// Nesting levels of collections in a document, block and flow alike.
    pub(crate) depth: usize,
    /// Keys of one map.
    pub(crate) keys: usize,
    /// Nodes anchors and aliases copy in one document.
    pub(crate) alias_nodes: u64,
    /// Bytes of text anchors and aliases copy in one document.
    pub(crate) alias_bytes: u64,
    /// Nodes anchors and aliases copy in all inputs together.
    pub(crate) alias_nodes_total: u64,
    /// Bytes of text anchors and aliases copy in all inputs together.
    pub(crate) alias_bytes_total: u64,
    /// Diagnostics printed; the rest are counted in a closing note.
    pub(crate) diagnostics: usize,
    /// Nodes of the specs inheriting runtimes resolve to, all together: each child holds a
    /// merged copy of its parents, so a large profile with many children multiplies.
    pub(crate) inherited_nodes: u64,
    /// Bytes of rendered objects (serialised) per byte of input, the input counted as at
    /// least [`OUTPUT_INPUT_FLOOR`] bytes: one runtime copied into many InferenceServices
    /// multiplies.
    pub(crate) output_ratio: u64,
}

/// The input size the `output-ratio` limit counts at least: a small repository may render
/// `output-ratio` MiB.
pub(crate) const OUTPUT_INPUT_FLOOR: u64 = MIB;

const MIB: u64 = 1 << 20;

/// The highest nesting `depth` may be raised to. Every recursive stage (reading the views,
/// the merge, the placeholder walk, the emitter, cloning and dropping a tree) must hold this
/// depth on a 2 MiB thread stack, as `pipeline::tests::limits` checks unoptimised (where it
/// takes about a quarter of that; optimised code far less).
pub(crate) const MAX_DEPTH: usize = 512;

impl Default for Limits {
    fn default() -> Limits {
        let parse = ParseLimits::default();
        Limits {
            file_bytes: 64 * MIB,
            total_bytes: 256 * MIB,
            documents: parse.documents,
            depth: parse.depth,
            keys: parse.keys,
            alias_nodes: parse.alias_nodes,
            alias_bytes: parse.alias_bytes,
            alias_nodes_total: 5_000_000,
            alias_bytes_total: 256 * MIB,
            diagnostics: 1000,
            inherited_nodes: 2_000_000,
            output_ratio: 100,
        }
    }
}

/// The names `--limit NAME=N` takes, with what each counts, in the order SEMANTICS.md lists
/// them.
pub(crate) const NAMES: &[(&str, &str)] = &[
    ("file-bytes", "bytes of one input file"),
    ("total-bytes", "bytes of all inputs together"),
    (limit_names::DOCUMENTS, "documents in all inputs together"),
    (limit_names::DEPTH, "nesting levels of a document"),
    (limit_names::KEYS, "keys of one map"),
    (
        limit_names::ALIAS_NODES,
        "nodes anchors and aliases copy in one document",
    ),
    (
        limit_names::ALIAS_BYTES,
        "bytes anchors and aliases copy in one document",
    ),
    (
        limit_names::ALIAS_NODES_TOTAL,
        "nodes anchors and aliases copy in all inputs",
    ),
    (
        limit_names::ALIAS_BYTES_TOTAL,
        "bytes anchors and aliases copy in all inputs",
    ),
    ("diagnostics", "diagnostics printed"),
    (
        "inherited-nodes",
        "nodes of the specs inheriting runtimes resolve to, together",
    ),
    (
        "output-ratio",
        "bytes of rendered objects per byte of input (at least 1 MiB)",
    ),
];

impl Limits {
    /// Sets one limit from `NAME=N` (the argument of `--limit`). Values are whole numbers;
    /// `depth` can't go past [`MAX_DEPTH`], and no limit can be 0.
    pub(crate) fn set(&mut self, assignment: &str) -> Result<(), String> {
        let known = || NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(format!(
                "`--limit {assignment}`: expected NAME=N, where NAME is one of {}",
                known()
            ));
        };
        let n: u64 = value
            .trim()
            .replace('_', "")
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                format!("`--limit {assignment}`: {value} is not a positive whole number")
            })?;
        let as_usize = usize::try_from(n).unwrap_or(usize::MAX);
        match name.trim() {
            "file-bytes" => self.file_bytes = n,
            "total-bytes" => self.total_bytes = n,
            limit_names::DOCUMENTS => self.documents = as_usize,
            limit_names::DEPTH if as_usize > MAX_DEPTH => {
                return Err(format!(
                    "`--limit {assignment}`: depth can be raised to {MAX_DEPTH} at most"
                ));
            }
            limit_names::DEPTH => self.depth = as_usize,
            limit_names::KEYS => self.keys = as_usize,
            limit_names::ALIAS_NODES => self.alias_nodes = n,
            limit_names::ALIAS_BYTES => self.alias_bytes = n,
            limit_names::ALIAS_NODES_TOTAL => self.alias_nodes_total = n,
            limit_names::ALIAS_BYTES_TOTAL => self.alias_bytes_total = n,
            "diagnostics" => self.diagnostics = as_usize,
            "inherited-nodes" => self.inherited_nodes = n,
            "output-ratio" => self.output_ratio = n,
            other => {
                return Err(format!(
                    "`--limit {assignment}`: unknown limit `{other}` (known: {})",
                    known()
                ));
            }
        }
        Ok(())
    }

    /// The limits one parse enforces.
    pub(crate) fn parse(&self) -> ParseLimits {
        ParseLimits {
            depth: self.depth,
            keys: self.keys,
            documents: self.documents,
            alias_nodes: self.alias_nodes,
            alias_bytes: self.alias_bytes,
        }
    }

    /// The bytes of rendered objects a run whose inputs hold `input_bytes` may make.
    pub(crate) fn output_bytes(&self, input_bytes: u64) -> u64 {
        input_bytes
            .max(OUTPUT_INPUT_FLOOR)
            .saturating_mul(self.output_ratio)
    }

    /// A fresh budget for the alias copies of a whole run.
    pub(crate) fn alias_budget(&self) -> AliasBudget {
        AliasBudget::new(self.alias_nodes_total, self.alias_bytes_total)
    }
}

/// The help line of a limit's error: how to raise it.
pub(crate) fn raise_help(name: &str) -> String {
    let why = if name.starts_with("alias-") {
        "anchors and aliases that copy this much are most likely an alias bomb; "
    } else {
        ""
    };
    format!(
        "{why}if the input is genuine, raise the limit with `--limit {name}=<N>` (SEMANTICS.md#limits)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_raises_a_limit_by_name_and_refuses_the_rest() {
        let mut limits = Limits::default();
        limits.set("depth=200").unwrap();
        limits.set("alias-nodes=2_000_000").unwrap();
        limits.set("diagnostics=5").unwrap();
        assert_eq!(limits.depth, 200);
        assert_eq!(limits.alias_nodes, 2_000_000);
        assert_eq!(limits.diagnostics, 5);
        assert!(
            limits
                .set("depth=100000")
                .unwrap_err()
                .contains("512 at most")
        );
        assert!(limits.set("depth=0").unwrap_err().contains("positive"));
        assert!(
            limits
                .set("deepness=3")
                .unwrap_err()
                .contains("unknown limit")
        );
        assert!(limits.set("depth").unwrap_err().contains("NAME=N"));
    }

    #[test]
    fn every_name_can_be_set() {
        for (name, _) in NAMES {
            let mut limits = Limits::default();
            limits.set(&format!("{name}=7")).unwrap();
            assert_ne!(limits, Limits::default(), "{name}");
        }
    }
}
