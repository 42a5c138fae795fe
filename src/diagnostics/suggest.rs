//! "Did you mean …?": the known name closest to a misspelt one, for help lines.

/// The known name closest to `name` (ignoring case), when close enough to be a likely typo:
/// a few edits away, or the start of it (`deployment` for `deploymentMode`).
pub(crate) fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let name = name.to_lowercase();
    let chars = name.chars().count();
    known
        .iter()
        .filter_map(|k| {
            let lower = k.to_lowercase();
            let within = 2.max(k.len() / 4);
            let apart = chars.abs_diff(lower.chars().count());
            // The distance is at least the difference in length, and exactly that for a
            // prefix: a name far longer or shorter than `k` costs no distance to compute,
            // however long it is.
            if name.len() >= 4 && lower.starts_with(&name) {
                return Some((apart, *k));
            }
            (apart <= within)
                .then(|| edit_distance(&name, &lower))
                .filter(|d| *d <= within)
                .map(|d| (d, *k))
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

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

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
