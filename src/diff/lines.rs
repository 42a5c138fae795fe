//! The unified diff of two texts (Myers, by `similar`): hunks with `context` lines around
//! each change, and how many lines were added and removed.

use similar::{Algorithm, DiffTag, TextDiff};

/// The hunks of one object's diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineDiff {
    /// `@@ -a,b +c,d @@` headers and their lines (` `, `+`, `-`), each ending with `\n`.
    pub(crate) hunks: String,
    pub(crate) added: usize,
    pub(crate) removed: usize,
}

/// The unified diff from `old` to `new`. No deadline: the same inputs always give the same
/// hunks.
pub(crate) fn unified(old: &str, new: &str, context: usize) -> LineDiff {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete => removed += old_range.len(),
            DiffTag::Insert => added += new_range.len(),
            DiffTag::Replace => {
                removed += old_range.len();
                added += new_range.len();
            }
        }
    }
    let mut hunks = String::new();
    for hunk in diff.unified_diff().context_radius(context).iter_hunks() {
        hunks.push_str(&hunk.to_string());
    }
    LineDiff {
        hunks,
        added,
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_carry_context_and_counts() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        let d = unified(old, new, 1);
        assert_eq!(d.added, 2);
        assert_eq!(d.removed, 1);
        assert_eq!(
            d.hunks,
            "@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n@@ -7 +7,2 @@\n g\n+h\n"
        );
    }

    #[test]
    fn an_added_text_is_all_additions() {
        let d = unified("", "a\nb\n", 3);
        assert_eq!((d.added, d.removed), (2, 0));
        assert_eq!(d.hunks, "@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!(unified("x\n", "x\n", 3), LineDiff::default());
    }
}
