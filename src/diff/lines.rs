//! The unified diff of two texts (Myers, by `similar`): hunks with `context` lines around
//! each change, and how many lines were added and removed. A rewrite too large for Myers to
//! be quick is shown as one block (BENCHMARKS.md, "diff").

use similar::{Algorithm, DiffTag, TextDiff};
use std::collections::HashMap;

/// Myers costs about (lines of both texts) × (lines that must change). Past this many, the
/// lines between the common start and end are shown removed and added as one block: what a
/// reader needs from a rewrite, in linear time, and deterministic (a deadline would not be).
/// A 20,000-line object with every tenth line changed stays under it (70 ms); the same
/// object rewritten whole would take Myers 3 s.
const MYERS_BUDGET: usize = 400_000_000;

/// At least how many lines must be removed or added: those of one text the other lacks,
/// counted with their repeats.
fn lines_to_change(old: &[&str], new: &[&str]) -> usize {
    let mut count: HashMap<&str, isize> = HashMap::with_capacity(old.len());
    for l in old {
        *count.entry(l).or_default() += 1;
    }
    for l in new {
        *count.entry(l).or_default() -= 1;
    }
    count.values().map(|n| n.unsigned_abs()).sum()
}

/// `-a,b` / `+c,d` of a hunk header: 1-based start and length, `,1` left out, and the line
/// before for an empty range (as GNU diff writes them).
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// One hunk: the common lines at the start and end kept, everything between replaced.
fn as_one_block(old: &[&str], new: &[&str], context: usize) -> LineDiff {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    let before = prefix.saturating_sub(context);
    let after = (old_end + context).min(old.len());
    let (old_len, new_len) = (after - before, after - old_end + new_end - before);
    let mut hunks = format!(
        "@@ -{} +{} @@\n",
        range(before, old_len),
        range(before, new_len)
    );
    let mut line = |sign: char, text: &str| {
        hunks.push(sign);
        hunks.push_str(text);
        if !text.ends_with('\n') {
            hunks.push('\n');
        }
    };
    old[before..prefix].iter().for_each(|l| line(' ', l));
    old[prefix..old_end].iter().for_each(|l| line('-', l));
    new[prefix..new_end].iter().for_each(|l| line('+', l));
    old[old_end..after].iter().for_each(|l| line(' ', l));
    LineDiff {
        hunks,
        added: new_end - prefix,
        removed: old_end - prefix,
    }
}

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
    if old == new {
        return LineDiff::default();
    }
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) = (
        old.split_inclusive('\n').collect(),
        new.split_inclusive('\n').collect(),
    );
    let cost =
        (old_lines.len() + new_lines.len()).saturating_mul(lines_to_change(&old_lines, &new_lines));
    if cost > MYERS_BUDGET {
        return as_one_block(&old_lines, &new_lines, context);
    }
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
    fn a_rewrite_too_large_for_myers_is_one_block() {
        let old: String = (0..20_000).map(|i| format!("old-{i}\n")).collect();
        let new: String = (0..20_000).rev().map(|i| format!("new-{i}\n")).collect();
        let (old, new) = (format!("head\n{old}tail\n"), format!("head\n{new}tail\n"));
        let d = unified(&old, &new, 1);
        assert_eq!((d.added, d.removed), (20_000, 20_000));
        assert!(
            d.hunks
                .starts_with("@@ -1,20002 +1,20002 @@\n head\n-old-0\n"),
            "{}",
            &d.hunks[..60]
        );
        assert!(d.hunks.ends_with("+new-0\n tail\n"));
        // Below the budget the same shape goes through Myers, with the same answer.
        let small = unified("head\na\nb\ntail\n", "head\nc\nd\ntail\n", 1);
        let block = as_one_block(
            &["head\n", "a\n", "b\n", "tail\n"],
            &["head\n", "c\n", "d\n", "tail\n"],
            1,
        );
        assert_eq!(small, block);
    }

    #[test]
    fn an_added_text_is_all_additions() {
        let d = unified("", "a\nb\n", 3);
        assert_eq!((d.added, d.removed), (2, 0));
        assert_eq!(d.hunks, "@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!(unified("x\n", "x\n", 3), LineDiff::default());
    }
}
