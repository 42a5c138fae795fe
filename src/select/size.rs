//! Parameter sizes (`modelParameterSize`, `modelSizeRange`): the parser, the v1.3 range check
//! with open bounds and its reason text, and the size distance that breaks ranking ties
//! (SEMANTICS.md#auto-selection).

use crate::model::runtime::SizeRange;

/// A parameter count as OME reads it: an optional upper-case suffix (`T` = 10¹², `B` = 10⁹,
/// `M` = 10⁶, checked in that order, exactly one stripped) after a number in Go's float
/// syntax. Anything unparseable is 0, silently, as in OME (`4b`, `7 B`, `""`).
pub(crate) fn parse_size(text: &str) -> f64 {
    let (number, multiplier) = if let Some(n) = text.strip_suffix('T') {
        (n, 1e12)
    } else if let Some(n) = text.strip_suffix('B') {
        (n, 1e9)
    } else if let Some(n) = text.strip_suffix('M') {
        (n, 1e6)
    } else {
        (text, 1.0)
    };
    parse_go_float(number).unwrap_or(0.0) * multiplier
}

/// Whether `size` lies within the bounds the range sets (inclusive). A missing bound is open
/// (v1.3), so `{}` accepts every size.
pub(crate) fn in_range(size: &str, range: &SizeRange) -> bool {
    let size = parse_size(size);
    // Written as OME writes it so that NaN compares the same way (it passes both tests).
    let below = range
        .min
        .as_deref()
        .is_some_and(|min| size < parse_size(min));
    let above = range
        .max
        .as_deref()
        .is_some_and(|max| size > parse_size(max));
    !below && !above
}

/// The range as OME prints it, bounds as written: `[1B, 13B]`, `[70B, inf)`, `(-inf, 13B]`.
pub(crate) fn range_label(range: &SizeRange) -> String {
    let lower = range
        .min
        .as_deref()
        .map_or_else(|| "(-inf".to_string(), |min| format!("[{min}"));
    let upper = range
        .max
        .as_deref()
        .map_or_else(|| "inf)".to_string(), |max| format!("{max}]"));
    format!("{lower}, {upper}")
}

/// `model size <size> is outside supported range <range>`.
pub(crate) fn out_of_range_reason(size: &str, range: &SizeRange) -> String {
    format!(
        "model size {size} is outside supported range {}",
        range_label(range)
    )
}

/// The help line of a named runtime's size mismatch, whose text is OME's and names the model
/// by its format (`does not support model safetensors: model size 70B is outside …`): the
/// model by name, its size and the runtime's range. `None` when `error` (OME's compatibility
/// error) is not the size check's.
pub(crate) fn mismatch_help(
    error: &str,
    model: &crate::model::BaseModel,
    runtime: &str,
    spec: &crate::model::RuntimeSpec,
) -> Option<String> {
    let (Some(size), Some(range)) = (model.parameter_size.as_deref(), spec.size_range.as_ref())
    else {
        return None;
    };
    error.ends_with(&out_of_range_reason(size, range)).then(|| {
        format!(
            "model {} has {size} parameters (spec.modelParameterSize), outside runtime \
             {runtime}'s range {} (spec.modelSizeRange); OME's message names the model by its format",
            model.name,
            range_label(range)
        )
    })
}

/// How far the model's size is from the runtime's range: the sum over the bounds the range
/// sets of `|bound − size|`. No size or no range is 0, the best. With both bounds and the size
/// inside, this is the width of the range, so the narrowest range wins.
pub(crate) fn distance(size: Option<&str>, range: Option<&SizeRange>) -> f64 {
    let (Some(size), Some(range)) = (size, range) else {
        return 0.0;
    };
    let size = parse_size(size);
    [range.min.as_deref(), range.max.as_deref()]
        .into_iter()
        .flatten()
        .map(|bound| (parse_size(bound) - size).abs())
        .sum()
}

/// Go's `strconv.ParseFloat(s, 64)` for what a size can reasonably hold: decimal numbers with
/// an optional sign, fraction, exponent and `_` digit separators, plus `inf`, `infinity` and
/// `nan` (any case). `None` where Go returns an error, including a finite number too large
/// for `f64`. Hexadecimal floats (`0x1p4`) are not supported and read as `None`.
fn parse_go_float(text: &str) -> Option<f64> {
    if let Some(special) = go_special_float(text) {
        return Some(special);
    }
    if !is_go_decimal(text) {
        return None;
    }
    let value: f64 = if text.contains('_') {
        text.chars()
            .filter(|&c| c != '_')
            .collect::<String>()
            .parse()
            .ok()?
    } else {
        // Selection parses every candidate's bounds: no copy for the usual text.
        text.parse().ok()?
    };
    // Go reports overflow as an error; OME then uses 0.
    value.is_finite().then_some(value)
}

/// `inf`, `infinity` (optionally signed) and `nan` (unsigned), case-insensitive.
fn go_special_float(text: &str) -> Option<f64> {
    let (sign, body) = match text.as_bytes().first() {
        Some(b'+') => (1.0, &text[1..]),
        Some(b'-') => (-1.0, &text[1..]),
        _ => (1.0, text),
    };
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return Some(sign * f64::INFINITY);
    }
    // Go accepts no sign before `nan`.
    (body.len() == text.len() && body.eq_ignore_ascii_case("nan")).then_some(f64::NAN)
}

/// Go's decimal float literal: `[+-] digits [. digits] [(e|E) [+-] digits]`, with at least one
/// mantissa digit and, when there is an exponent, at least one exponent digit. An underscore
/// must sit between two digits.
fn is_go_decimal(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let body = &bytes[i..];
    let mut mantissa_digits = 0;
    let mut seen_dot = false;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => mantissa_digits += 1,
            b'_' => {}
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        i += 1;
        if i < bytes.len() && matches!(bytes[i], b'+' | b'-') {
            i += 1;
        }
        let mut exponent_digits = 0;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
            exponent_digits += usize::from(bytes[i].is_ascii_digit());
            i += 1;
        }
        if exponent_digits == 0 {
            return false;
        }
    }
    i == bytes.len() && underscores_between_digits(body)
}

/// Go's `underscoreOK` for a number without a base prefix: every `_` follows a digit and is
/// followed by a digit.
fn underscores_between_digits(body: &[u8]) -> bool {
    body.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && body[i - 1].is_ascii_digit()
                && body.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: Option<&str>, max: Option<&str>) -> SizeRange {
        SizeRange {
            min: min.map(str::to_string),
            max: max.map(str::to_string),
        }
    }

    /// Z01, plus the decimal and unparseable forms.
    #[test]
    fn parses_sizes() {
        let cases = [
            ("1T", 1e12),
            ("7B", 7e9),
            ("350M", 3.5e8),
            ("1.5B", 1.5e9),
            ("1000", 1000.0),
            ("999", 999.0),
            ("3.21B", 3.21e9),
            ("0.5B", 0.5e9),
            ("1.5T", 1.5e12),
            ("4b", 0.0),
            ("7 B", 0.0),
            ("", 0.0),
            ("B", 0.0),
            ("7BB", 0.0),
            ("1e3", 1000.0),
            ("+5B", 5e9),
            ("1_000M", 1e9),
            ("1__0", 0.0),
            ("_1", 0.0),
            ("1_", 0.0),
            ("1e", 0.0),
            (".5B", 0.5e9),
            ("5.B", 5e9),
            (".", 0.0),
            ("1e400B", 0.0),
            ("0x1p4", 0.0),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_size(text), expected, "{text:?}");
        }
        assert!(parse_size("Inf").is_infinite());
        assert!(parse_size("-infinityB").is_infinite());
        assert!(parse_size("NaN").is_nan());
        assert_eq!(parse_size("+nan"), 0.0);
        // Same arithmetic as Go: 0.5B is 500M, and 1500M clears a 1B minimum.
        assert_eq!(parse_size("0.5B"), parse_size("500M"));
    }

    /// Z02–Z06, Z08, Z09: the range check and its reason text.
    #[test]
    fn range_vectors() {
        let cases = [
            ("Z02", range(Some("2B"), Some("4B")), "3.21B", true),
            ("Z02", range(Some("2B"), Some("4B")), "4B", true),
            ("Z03", range(Some("500M"), Some("2B")), "3.21B", false),
            ("Z04", range(Some("1B"), Some("4B")), "1500M", true),
            ("Z05", range(Some("70B"), None), "405B", true),
            ("Z05", range(None, Some("13B")), "3.21B", true),
            ("Z06", range(Some("10B"), None), "7B", false),
            ("Z06", range(None, Some("3B")), "7B", false),
            ("Z06", range(Some("7B"), None), "7B", true),
            ("Z06", range(None, None), "7B", true),
            ("Z08", range(Some("2B"), Some("4b")), "3B", false),
            ("Z09", range(Some("1B"), Some("13B")), "70B", false),
            ("min > max", range(Some("13B"), Some("1B")), "7B", false),
        ];
        for (id, r, size, expected) in cases {
            assert_eq!(in_range(size, &r), expected, "{id}: {size} in {r:?}");
        }
        assert_eq!(
            out_of_range_reason("3.21B", &range(Some("500M"), Some("2B"))),
            "model size 3.21B is outside supported range [500M, 2B]"
        );
        assert_eq!(
            out_of_range_reason("3B", &range(Some("2B"), Some("4b"))),
            "model size 3B is outside supported range [2B, 4b]"
        );
        assert_eq!(
            out_of_range_reason("70B", &range(Some("1B"), Some("13B"))),
            "model size 70B is outside supported range [1B, 13B]"
        );
        assert_eq!(range_label(&range(Some("70B"), None)), "[70B, inf)");
        assert_eq!(range_label(&range(None, Some("13B"))), "(-inf, 13B]");
    }

    /// Z07 and the ranking distances of R06.
    #[test]
    fn distance_vectors() {
        let seven = Some("7B");
        assert_eq!(distance(seven, Some(&range(Some("1B"), None))), 6e9);
        assert_eq!(distance(seven, Some(&range(None, Some("13B")))), 6e9);
        assert_eq!(distance(seven, Some(&range(Some("1B"), Some("13B")))), 12e9);
        assert_eq!(distance(seven, Some(&range(None, None))), 0.0);
        assert_eq!(distance(seven, None), 0.0);
        assert_eq!(distance(None, Some(&range(Some("1B"), Some("13B")))), 0.0);
        assert_eq!(distance(seven, Some(&range(Some("5B"), Some("10B")))), 5e9);
        assert_eq!(
            distance(seven, Some(&range(Some("20B"), Some("30B")))),
            36e9
        );
    }
}
