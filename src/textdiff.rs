//! The unified diff of two texts (Myers, by `similar`): hunks with `context` lines around
//! each change, and how many lines were added and removed. A rewrite too large for Myers to
//! be quick is shown as one block (BENCHMARKS.md, "diff").

use similar::{Algorithm, DiffTag, TextDiff};
use std::collections::HashMap;

/// Myers costs about (lines of both texts) × (lines that must change). Past this many (the
/// count of [`lines_to_change`] first, then [`within_distance`] for the distance itself), the
/// lines between the common start and end are shown removed and added as one block: what a
/// reader needs from a rewrite, in linear time, and deterministic (a deadline would not be).
/// A 20,000-line object with every tenth line changed stays under it (70 ms); the same
/// object rewritten whole would take Myers 3 s.
const MYERS_BUDGET: usize = 400_000_000;

/// The lines of both texts as numbers, equal lines the same number: what the two checks
/// below compare, hashed once.
fn numbered<'t>(old: &[&'t str], new: &[&'t str]) -> (Vec<u32>, Vec<u32>, usize) {
    let mut ids: HashMap<&'t str, u32> = HashMap::with_capacity(old.len());
    let mut number = |l: &&'t str| {
        let next = ids.len() as u32;
        *ids.entry(*l).or_insert(next)
    };
    let a: Vec<u32> = old.iter().map(&mut number).collect();
    let b: Vec<u32> = new.iter().map(&mut number).collect();
    (a, b, ids.len())
}

/// At least how many lines must be removed or added: those of one text the other lacks,
/// counted with their repeats.
fn lines_to_change(a: &[u32], b: &[u32], distinct: usize) -> usize {
    let mut count = vec![0isize; distinct];
    for &l in a {
        count[l as usize] += 1;
    }
    for &l in b {
        count[l as usize] -= 1;
    }
    count.iter().map(|n| n.unsigned_abs()).sum()
}

/// Whether `a` becomes `b` with at most `max` lines removed and added: Myers' greedy
/// search for the distance alone, stopped at `max`. It costs about (lines of both texts) ×
/// min(distance, `max`), and decides what the multiset count above cannot: a list only
/// reordered removes and adds nothing by count, yet needs a distance of twice its length.
fn within_distance(a: &[u32], b: &[u32], max: usize) -> bool {
    let (n, m) = (a.len(), b.len());
    let max = max.min(n + m);
    // v[k + max + 1]: the furthest x on diagonal k = x - y after d steps.
    let mut v = vec![0usize; 2 * max + 3];
    for d in 0..=max {
        for k in (0..=2 * d).map(|i| i as isize - d as isize).step_by(2) {
            let at = (k + max as isize + 1) as usize;
            let mut x = if k == -(d as isize) || (k != d as isize && v[at - 1] < v[at + 1]) {
                v[at + 1]
            } else {
                v[at - 1] + 1
            };
            let Ok(mut y) = usize::try_from(x as isize - k) else {
                continue;
            };
            while x < n && y < m && a[x] == b[y] {
                x += 1;
                y += 1;
            }
            v[at] = x;
            if x >= n && y >= m {
                return true;
            }
        }
    }
    false
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
    let (a, b, distinct) = numbered(&old_lines, &new_lines);
    let lines = (a.len() + b.len()).max(1);
    let cost = lines.saturating_mul(lines_to_change(&a, &b, distinct));
    if cost > MYERS_BUDGET || !within_distance(&a, &b, MYERS_BUDGET / lines) {
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
    fn a_reordered_list_too_far_apart_for_myers_is_one_block() {
        // Every line kept, in the other order: the count of lines to change is 0, the
        // distance is twice the lines.
        let old: String = (0..60_000).map(|i| format!("- item-{i}\n")).collect();
        let new: String = (0..60_000).rev().map(|i| format!("- item-{i}\n")).collect();
        let d = unified(&old, &new, 1);
        assert_eq!((d.added, d.removed), (60_000, 60_000));
        assert!(
            d.hunks
                .starts_with("@@ -1,60000 +1,60000 @@\n-- item-0\n-- item-1\n"),
            "{}",
            &d.hunks[..60]
        );
    }

    proptest::proptest! {
        /// The bounded search agrees with Myers' distance (lines removed plus added).
        #[test]
        fn within_distance_agrees_with_myers(
            a in proptest::collection::vec(0u8..4, 0..40),
            b in proptest::collection::vec(0u8..4, 0..40),
            max in 0usize..60,
        ) {
            let text = |v: &[u8]| v.iter().map(|c| format!("{c}\n")).collect::<String>();
            let (old, new) = (text(&a), text(&b));
            let (ol, nl): (Vec<&str>, Vec<&str>) =
                (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
            let (na, nb, _) = numbered(&ol, &nl);
            let diff = TextDiff::configure().algorithm(Algorithm::Myers).diff_lines(&old, &new);
            let distance: usize = diff
                .ops()
                .iter()
                .map(|op| {
                    let (tag, o, n) = op.as_tag_tuple();
                    match tag {
                        DiffTag::Equal => 0,
                        _ => o.len() + n.len(),
                    }
                })
                .sum();
            proptest::prop_assert_eq!(within_distance(&na, &nb, max), distance <= max);
        }
    }

    #[test]
    fn an_added_text_is_all_additions() {
        let d = unified("", "a\nb\n", 3);
        assert_eq!((d.added, d.removed), (2, 0));
        assert_eq!(d.hunks, "@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!(unified("x\n", "x\n", 3), LineDiff::default());
    }
}
