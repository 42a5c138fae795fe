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
    }
}
