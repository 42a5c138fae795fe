//! Model versions as OME reads them (`modelFormat.version`, `modelFramework.version`): the
//! parser, the ordering, and the operator rule that decides whether a runtime entry's version
//! accepts a model's version (SEMANTICS.md#auto-selection).
//!
//! The rule reads backwards at first sight: the **entry's** version is the left operand, so
//! `GreaterThanOrEqual` with `4.46.0` accepts models up to 4.46.0. The entry's version is an
//! upper limit.

use std::cmp::Ordering;

/// A parsed version: `[v]MAJOR[.MINOR[.PATCH[.dev…][-pre…][+build…]]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Version {
    pub(crate) major: u64,
    pub(crate) minor: u64,
    pub(crate) patch: u64,
    /// After `-` in the third part, split on `.` (`1.8.0-beta` → `[beta]`).
    pub(crate) pre: Vec<String>,
    /// After `+` in the third part, split on `.` (`4.43.0+build` → `[build]`).
    pub(crate) build: Vec<String>,
    /// After the patch number's first `.` (`4.45.0.dev0` → `[dev0]`, `1.2.3.4` → `[4]`).
    pub(crate) dev: Vec<String>,
    /// How many dot-separated parts were written: 1, 2 or 3. Ordering operators only compare
    /// versions of the same precision.
    pub(crate) precision: u8,
    /// Whether the major part was written `v1` rather than `1`.
    pub(crate) v_prefix: bool,
}

impl Version {
    /// Parses a version, or `None` when OME's parser would fail: an empty string, a
    /// non-numeric or leading-zero part (`1.08.0`), an upper-case `V`, a suffix outside the
    /// third part (`1.2-beta`), or an empty suffix element (`1.0.0-`).
    pub(crate) fn parse(text: &str) -> Option<Version> {
        if text.is_empty() {
            return None;
        }
        // At most three parts: whatever follows the second dot belongs to the third part, which
        // is how `4.45.0.dev0` keeps its `.dev0`.
        let mut parts = text.splitn(3, '.');
        let first = parts.next()?;
        let second = parts.next();
        let third = parts.next();

        let (v_prefix, major_text) = match first.strip_prefix('v') {
            Some(rest) => (true, rest),
            None => (false, first),
        };
        let major = numeric(major_text)?;
        let minor = match second {
            Some(t) => numeric(t)?,
            None => 0,
        };
        let mut version = Version {
            major,
            minor,
            patch: 0,
            pre: Vec::new(),
            build: Vec::new(),
            dev: Vec::new(),
            precision: 1 + u8::from(second.is_some()) + u8::from(third.is_some()),
            v_prefix,
        };
        if let Some(third) = third {
            let (rest, build) = split_suffix(third, '+')?;
            let (rest, pre) = split_suffix(rest, '-')?;
            let (rest, dev) = split_suffix(rest, '.')?;
            version.patch = numeric(rest)?;
            version.pre = pre;
            version.build = build;
            version.dev = dev;
        }
        Some(version)
    }

    /// A version with any pre-release, build or dev element. OME compares those for equality
    /// only, whatever the operator.
    pub(crate) fn is_unofficial(&self) -> bool {
        !self.pre.is_empty() || !self.build.is_empty() || !self.dev.is_empty()
    }
}

/// OME's `CompareVersion`: major, minor and patch numerically, then the pre-release, build and
/// dev elements, each list element by element in byte order and then by length (shorter is
/// smaller). Precision and the `v` prefix take no part.
pub(crate) fn compare(a: &Version, b: &Version) -> Ordering {
    // `Vec<String>`'s ordering is exactly "element-wise, then shorter first".
    (a.major, a.minor, a.patch)
        .cmp(&(b.major, b.minor, b.patch))
        .then_with(|| a.pre.cmp(&b.pre))
        .then_with(|| a.build.cmp(&b.build))
        .then_with(|| a.dev.cmp(&b.dev))
}

/// Whether a runtime entry declaring `entry_version` with `operator` accepts a model whose
/// version is `model_version`.
///
/// - Either side unparseable: no.
/// - `Equal`, or either side unofficial: the versions compare equal (a missing part is 0).
/// - Otherwise precision and `v` prefix must agree, then `GreaterThan` is entry > model,
///   `GreaterThanOrEqual` is entry ≥ model, and any other operator string means equality.
#[cfg(test)]
pub(crate) fn accepts(entry_version: &str, operator: &str, model_version: &str) -> bool {
    match (Version::parse(entry_version), Version::parse(model_version)) {
        (Some(entry), Some(model)) => accepts_parsed(&entry, operator, &model),
        _ => false,
    }
}

/// [`accepts`] on versions parsed once, when their views were read.
pub(crate) fn accepts_parsed(entry: &Version, operator: &str, model: &Version) -> bool {
    let order = compare(entry, model);
    if operator == "Equal" || entry.is_unofficial() || model.is_unofficial() {
        return order == Ordering::Equal;
    }
    if entry.precision != model.precision || entry.v_prefix != model.v_prefix {
        return false;
    }
    match operator {
        "GreaterThan" => order == Ordering::Greater,
        "GreaterThanOrEqual" => order != Ordering::Less,
        _ => order == Ordering::Equal,
    }
}

/// A version number part: digits only, no leading zero (`0` itself is fine), fits in `u64`.
fn numeric(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if text.len() > 1 && text.starts_with('0') {
        return None;
    }
    text.parse().ok()
}

/// Cuts `text` at the first `separator`: the left side, and the right side split on `.`
/// (empty when there is no separator). An empty element is an error.
fn split_suffix(text: &str, separator: char) -> Option<(&str, Vec<String>)> {
    let Some((left, right)) = text.split_once(separator) else {
        return Some((text, Vec::new()));
    };
    let elements: Vec<String> = right.split('.').map(str::to_string).collect();
    if elements.iter().any(String::is_empty) {
        return None;
    }
    Some((left, elements))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Version {
        Version::parse(text).unwrap_or_else(|| panic!("{text:?} should parse"))
    }

    #[test]
    fn parses_the_documented_shapes() {
        let v = parsed("v1.12");
        assert_eq!(
            (v.major, v.minor, v.patch, v.precision, v.v_prefix),
            (1, 12, 0, 2, true)
        );
        let v = parsed("1");
        assert_eq!(
            (v.major, v.minor, v.patch, v.precision, v.v_prefix),
            (1, 0, 0, 1, false)
        );
        let v = parsed("0.6.0");
        assert_eq!((v.major, v.minor, v.patch, v.precision), (0, 6, 0, 3));
        let v = parsed("4.51.3-SAM-HQ-preview");
        assert_eq!(
            (v.patch, v.pre.clone()),
            (3, vec!["SAM-HQ-preview".to_string()])
        );
        let v = parsed("4.43.0+build");
        assert_eq!(v.build, vec!["build".to_string()]);
        let v = parsed("4.45.0.dev0");
        assert_eq!(
            (v.patch, v.dev.clone(), v.precision),
            (0, vec!["dev0".to_string()], 3)
        );
        let v = parsed("1.2.3.4");
        assert_eq!((v.patch, v.dev.clone()), (3, vec!["4".to_string()]));
        let v = parsed("1.0.0-rc.1+b.2");
        assert_eq!(v.pre, vec!["rc".to_string(), "1".to_string()]);
        assert_eq!(v.build, vec!["b".to_string(), "2".to_string()]);
        assert!(v.is_unofficial());
        assert!(!parsed("1.2.3").is_unofficial());
    }

    #[test]
    fn rejects_what_ome_rejects() {
        for text in [
            "",
            "1.08.0",
            "V1.0.0",
            "1.2-beta",
            "1.0.0-",
            "1.0.0+",
            "1.0.0.",
            "v",
            "1..0",
            "01",
            "1.0.x",
            "-1.0.0",
            "+1",
            "99999999999999999999",
        ] {
            assert_eq!(Version::parse(text), None, "{text:?} must not parse");
        }
    }

    /// V01–V06: the ordering itself (OME's `Equal` and `GreaterThan` on parsed versions).
    #[test]
    fn ordering_vectors() {
        let cases = [
            // (S, M, S == M, S > M)
            ("1.8.0", "1.8.0", true, false),                   // V01
            ("2.0.0", "1.9.0", false, true),                   // V02
            ("1.8.0-beta", "1.8.0-alpha", false, true),        // V03
            ("1.8.0+20240708", "1.8.0+20240707", false, true), // V04
            ("v1", "v1", true, false),                         // V05
            ("1.12", "1.12", true, false),                     // V05
            ("1", "1", true, false),                           // V05
            ("v0.9.0", "v0.8.0", false, true),                 // V06
            ("v1.9.0", "v2.9.0", false, false),                // V06
        ];
        for (s, m, equal, greater) in cases {
            let order = compare(&parsed(s), &parsed(m));
            assert_eq!(order == Ordering::Equal, equal, "{s} == {m}");
            assert_eq!(order == Ordering::Greater, greater, "{s} > {m}");
        }
    }

    #[test]
    fn a_longer_suffix_list_sorts_after_its_prefix() {
        assert_eq!(
            compare(&parsed("1.0.0-a.b"), &parsed("1.0.0-a")),
            Ordering::Greater
        );
        assert_eq!(
            compare(&parsed("1.0.0-a"), &parsed("1.0.0")),
            Ordering::Greater
        );
        // Precision and prefix are not part of the ordering.
        assert_eq!(compare(&parsed("v1"), &parsed("1.0.0")), Ordering::Equal);
    }

    /// V07–V23: the operator rule, entry version on the left.
    #[test]
    fn operator_vectors() {
        let cases = [
            ("V07", "1.0.0", "Equal", "1.0.0", true),
            ("V08", "1.0.0", "GreaterThan", "1.0.0", false),
            ("V09", "1.8.0", "GreaterThan", "1.7.0", true),
            ("V10", "1.7.0", "GreaterThan", "1.8.0", false),
            ("V11", "1.8.0", "GreaterThanOrEqual", "1.8.0", true),
            ("V11", "1.9.0", "GreaterThanOrEqual", "1.8.0", true),
            ("V11", "1.7.0", "GreaterThanOrEqual", "1.8.0", false),
            ("V12", "1.8.0-dev", "GreaterThan", "1.8.0-dev", true),
            ("V13", "1.8.0-dev", "GreaterThan", "1.8.0-alpha", false),
            ("V14", "1.0", "GreaterThan", "1.0.0", false),
            ("V15", "v1.0.0", "GreaterThan", "1.0.0", false),
            ("V16", "v2.0.0", "Equal", "v2.0.0", true),
            ("V17", "1.0.0", "Equal", "1.0", true),
            ("V18", "4.50.0", "GreaterThanOrEqual", "4.36.2", true),
            ("V18", "4.50.0", "GreaterThanOrEqual", "4.51.0", false),
            ("V19", "4.45.0.dev0", "GreaterThanOrEqual", "4.44.0", false),
            ("V20", "4.50.0", "GreaterThanOrEqual", "4.45.0.dev0", false),
            ("V21", "1.8", "GreaterThan", "1.7.0", false),
            ("V22", "4.46.0", "GreaterThanOrEqual", "4.45.0.dev0", false),
        ];
        for (id, entry, op, model, expected) in cases {
            assert_eq!(
                accepts(entry, op, model),
                expected,
                "{id}: {entry} {op} {model}"
            );
        }
    }

    #[test]
    fn unknown_operators_mean_equality_after_the_precision_check() {
        assert!(accepts("1.0.0", "LessThan", "1.0.0"));
        assert!(!accepts("2.0.0", "LessThan", "1.0.0"));
        // Lower-case `equal` is not `Equal`: precision must then agree.
        assert!(!accepts("1.0.0", "equal", "1.0"));
        assert!(accepts("1.0.0", "Equal", "1.0"));
    }

    /// V23: a model version that does not parse never matches, whatever the operator.
    #[test]
    fn unparseable_versions_never_match() {
        for model in ["1.08.0", "V1.0.0", "1.2-beta", "1.0.0-", ""] {
            for op in ["Equal", "GreaterThan", "GreaterThanOrEqual", "Other"] {
                assert!(!accepts("1.0.0", op, model), "{op} {model:?}");
                assert!(!accepts(model, op, "1.0.0"), "{model:?} {op} (entry side)");
            }
        }
    }
}
