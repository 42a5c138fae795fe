//! Resource quantities (`cpu: 500m`, `memory: 30Gi`) as Go's `resource.Quantity` writes them
//! to JSON, which is what OME hashes (SEMANTICS.md#revision-hashes).
//!
//! A quantity already in canonical form keeps the text it was written with (`30Gi`, `10`,
//! `100m`); any other is rewritten: `1000m` → `1`, `0.5` → `500m`, `1024Mi` → `1Gi`,
//! `1000` → `1k`. The rules are the apimachinery `resource` package's: the value is kept as
//! an integer times a power of ten (or of 1024 for `Ki`…`Ei`), trailing zeros are moved into
//! the exponent, and the exponent is lowered to a multiple of three that has a suffix.

/// How the quantity was written, which decides how it is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `Ki`, `Mi`, … `Ei`.
    Binary,
    /// `n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`.
    DecimalSi,
    /// `e3`, `E-6`.
    DecimalExponent,
}

/// The most fraction digits kept: Go rounds finer values up to nano units, which this module
/// does not reproduce.
const MAX_FRACTION: usize = 9;

/// The JSON text (without quotes) of the quantity written as `text`, or `None` when `text`
/// is not a quantity or needs Go's arbitrary-precision path (more than nine fraction digits,
/// more than eighteen digits).
pub(super) fn canonical(text: &str) -> Option<String> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_len);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty()
        || fraction.contains('.')
        || fraction.len() > MAX_FRACTION
        || whole.len() + fraction.len() > 18
    {
        return None;
    }
    let (format, exponent) = parse_suffix(suffix)?;
    let digits = format!("{whole}{fraction}");
    let value: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if value == 0 {
        return Some("0".to_string());
    }
    let sign = if negative { -1 } else { 1 };
    let shifted = digits.as_str();
    match format {
        Format::Binary => {
            // Go keeps the text when it has no fraction and the number isn't a multiple of 8.
            if fraction.is_empty() && value & 0x07 != 0 {
                return Some(text.to_string());
            }
            // The value in units of 10^-fraction: value × 2^exponent.
            let scaled = value.checked_mul(1i128.checked_shl(u32::try_from(exponent).ok()?)?)?;
            let scale = -i32::try_from(fraction.len()).ok()?;
            let limit = 1024i128.checked_mul(10i128.pow(fraction.len() as u32))?;
            if scaled < limit {
                return decimal(sign * scaled, scale, Format::DecimalSi);
            }
            let unit = 10i128.pow(fraction.len() as u32);
            if scaled % unit != 0 {
                return decimal(sign * scaled, scale, Format::DecimalSi);
            }
            let (amount, times) = remove_factors(scaled / unit, 1024);
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(times)?;
            Some(format!("{}{suffix}", sign * amount))
        }
        Format::DecimalSi | Format::DecimalExponent => {
            let scale = exponent - i32::try_from(fraction.len()).ok()?;
            if scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0') {
                return Some(text.to_string());
            }
            decimal(sign * value, scale, format)
        }
    }
}

/// `value × 10^scale` in canonical decimal form.
fn decimal(value: i128, scale: i32, format: Format) -> Option<String> {
    let (mut amount, times) = remove_factors(value, 10);
    let mut exponent = scale + i32::try_from(times).ok()?;
    match exponent.rem_euclid(3) {
        1 => {
            amount = amount.checked_mul(10)?;
            exponent -= 1;
        }
        2 => {
            amount = amount.checked_mul(100)?;
            exponent -= 2;
        }
        _ => {}
    }
    let suffix = match format {
        Format::DecimalExponent if exponent == 0 => String::new(),
        Format::DecimalExponent => format!("e{exponent}"),
        _ => match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => return None,
        }
        .to_string(),
    };
    Some(format!("{amount}{suffix}"))
}

/// Divides `value` by `base` while it divides evenly; returns the rest and the count.
fn remove_factors(mut value: i128, base: i128) -> (i128, usize) {
    let mut times = 0;
    while value != 0 && value % base == 0 {
        value /= base;
        times += 1;
    }
    (value, times)
}

/// The format and exponent (of 2 for binary, of 10 otherwise) a suffix stands for.
fn parse_suffix(suffix: &str) -> Option<(Format, i32)> {
    let binary = |e| Some((Format::Binary, e));
    let si = |e| Some((Format::DecimalSi, e));
    match suffix {
        "" => si(0),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        "n" => si(-9),
        "u" => si(-6),
        "m" => si(-3),
        "k" => si(3),
        "M" => si(6),
        "G" => si(9),
        "T" => si(12),
        "P" => si(15),
        "E" => si(18),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some((Format::DecimalExponent, rest.parse().ok()?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn canonical_forms() {
        for (input, want) in [
            ("10", "10"),
            ("30Gi", "30Gi"),
            ("1", "1"),
            ("100m", "100m"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("1024Mi", "1Gi"),
            ("8Gi", "8Gi"),
            ("1536Mi", "1536Mi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("1e3", "1e3"),
            ("1000e3", "1e6"),
            ("0", "0"),
            ("0Gi", "0"),
            ("-1000m", "-1"),
            ("250M", "250M"),
            ("2500M", "2500M"),
            ("20000M", "20G"),
            ("0.1", "100m"),
            (".5", "500m"),
        ] {
            assert_eq!(canonical(input).as_deref(), Some(want), "{input}");
        }
        for bad in ["", "Gi", "1.2.3", "abc", "1Zi", "1.0000000001", "1e"] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
    }
}
