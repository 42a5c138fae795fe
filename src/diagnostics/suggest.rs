//! "Did you mean …?": the known name closest to a misspelt one, for help lines.

/// The known name closest to `name` (ignoring case), when close enough to be a likely typo:
/// a few edits away, or the start of it (`deployment` for `deploymentMode`).
pub(crate) fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let name = name.to_lowercase();
    let chars: Vec<char> = name.chars().collect();
    known
        .iter()
        .filter_map(|k| {
            let lower = k.to_lowercase();
            let within = 2.max(k.len() / 4);
            // A prefix is as far as the difference in length: a name far longer or shorter
            // than `k` costs no distance to compute, however long it is.
            if name.len() >= 4 && lower.starts_with(&name) {
                return Some((lower.chars().count() - chars.len(), *k));
            }
            let other: Vec<char> = lower.chars().collect();
            distance_within(&chars, &other, within).map(|d| (d, *k))
        })
        .min()
        .map(|(_, k)| k)
}

/// At most this many known names are compared with a misspelt one (SEMANTICS.md#limits): an
/// input of a hundred thousand runtimes, each error comparing its name with all of them,
/// would take minutes for a help line.
pub(crate) const SUGGESTED_FROM: usize = 1000;

/// The help line `did you mean `NAME`?` for the known name closest to `name`, when there is
/// one (not `name` itself) among `known` and `known` holds at most [`SUGGESTED_FROM`] names.
pub(crate) fn did_you_mean<'k>(
    name: &str,
    known: impl IntoIterator<Item = &'k str>,
) -> Option<String> {
    let known: Vec<&str> = known.into_iter().take(SUGGESTED_FROM + 1).collect();
    if known.len() > SUGGESTED_FROM {
        return None;
    }
    closest(name, &known)
        .filter(|k| *k != name)
        .map(|k| format!("did you mean `{k}`?"))
}

/// The Levenshtein distance (insert, delete, substitute) of `a` and `b` when it is at most
/// `max`, else `None` — the one edit distance of the crate, over characters for suggestions
/// and over bytes where OME's own did-you-mean counts bytes. Cheap: sequences whose lengths
/// differ by more than `max` are not compared, only the cells within `max` of the diagonal
/// are computed (the others can't lead to a distance of `max` or less), and the table stops
/// at the first row whose every cell is above `max`.
pub(crate) fn distance_within<T: PartialEq>(a: &[T], b: &[T], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let over = max + 1;
    // Row i holds the distances of a[..i] to b[..j]; cells off the band stay `over`.
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(over)).collect();
    let mut curr = vec![over; b.len() + 1];
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = (i + max).min(b.len());
        curr.iter_mut().for_each(|c| *c = over);
        curr[0] = i.min(over);
        let mut row_min = curr[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let d = (prev[j] + 1).min(curr[j - 1] + 1).min(prev[j - 1] + cost);
            curr[j] = d.min(over);
            row_min = row_min.min(curr[j]);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut curr);
    }
    Some(prev[b.len()]).filter(|d| *d <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain Levenshtein distance over bytes, the reference the bounded one must agree with.
    fn levenshtein(a: &str, b: &str) -> usize {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        let mut curr = vec![0; b.len() + 1];
        for (i, ca) in a.iter().enumerate() {
            curr[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cost = usize::from(ca != cb);
                curr[j + 1] = (prev[j + 1] + 1).min(curr[j] + 1).min(prev[j] + cost);
            }
            std::mem::swap(&mut prev, &mut curr);
        }
        prev[b.len()]
    }

    fn within(a: &str, b: &str, max: usize) -> Option<usize> {
        distance_within(a.as_bytes(), b.as_bytes(), max)
    }

    #[test]
    fn the_bounded_distance_agrees_with_the_full_one() {
        let words = [
            "ome.io/retry-on",
            "ome.io/retry-one",
            "ome.io/retry-attempts",
            "ome.io/timeout-idle",
            "ome.io/timeout-idel",
            "",
            "ab",
            "ba",
        ];
        for a in words {
            for b in words {
                let full = levenshtein(a, b);
                assert_eq!(within(a, b, 2), (full <= 2).then_some(full), "{a} {b}");
            }
        }
        // Every pair of short strings over a small alphabet, for bounds 0 to 3.
        let mut all = vec![String::new()];
        for len in 1..=4 {
            let mut n = 1;
            for _ in 0..len {
                n *= 3;
            }
            for code in 0..n {
                let mut c = code;
                let w: String = (0..len)
                    .map(|_| {
                        let ch = b"abc"[c % 3] as char;
                        c /= 3;
                        ch
                    })
                    .collect();
                all.push(w);
            }
        }
        for a in &all {
            for b in &all {
                let full = levenshtein(a, b);
                for max in 0..=3 {
                    assert_eq!(
                        within(a, b, max),
                        (full <= max).then_some(full),
                        "{a} {b} {max}"
                    );
                }
            }
        }
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("ome.io/retry-on", "ome.io/retry-on"), 0);
        assert_eq!(levenshtein("ome.io/retyr-on", "ome.io/retry-on"), 2);
        assert_eq!(levenshtein("ome.io/retry-onn", "ome.io/retry-on"), 1);
        assert_eq!(levenshtein("", "abc"), 3);
    }

    #[test]
    fn suggestions() {
        let known = [
            "nodeSelector",
            "deploymentMode",
            "nvidia-l40s",
            "nvidia-h100",
        ];
        assert_eq!(closest("nodeSelectr", &known), Some("nodeSelector"));
        assert_eq!(closest("deployment", &known), Some("deploymentMode"));
        assert_eq!(closest("nvidia-l40", &known), Some("nvidia-l40s"));
        assert_eq!(closest("NVIDIA-H100", &known), Some("nvidia-h100"));
        assert_eq!(closest("tolerations", &known), None);
        assert_eq!(
            did_you_mean("nvidia-h10", known),
            Some("did you mean `nvidia-h100`?".to_string())
        );
        assert_eq!(did_you_mean("nvidia-h100", known), None);
        let many: Vec<String> = (0..=SUGGESTED_FROM).map(|i| format!("rt-{i}")).collect();
        assert_eq!(did_you_mean("rt-1x", many.iter().map(String::as_str)), None);
        assert!(did_you_mean("rt-1x", many[..SUGGESTED_FROM].iter().map(String::as_str)).is_some());
    }
}
