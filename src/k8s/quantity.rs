//! Kubernetes resource quantities (`500m`, `30Gi`, `1e3`, `-1`), as apimachinery's
//! `resource.Quantity` reads, compares, adds and writes them (SEMANTICS.md#quantities).
//!
//! [`Quantity::parse`] follows Go's `ParseQuantity` step by step: its scanner (a sign,
//! leading zeros dropped, digits, an optional fraction, a suffix of `eEinumkKMGTP` letters
//! and an optional signed exponent), its suffixes (`Ki` … `Ei`, `n` … `E`, `e<int>`), its
//! fast path that keeps the text as written when it is already canonical, and its slow path
//! that rounds a value finer than a nano unit up, away from zero, and caps binary values at
//! the largest `int64`. The value is held exactly as `mantissa × 10^scale` in 128 bits;
//! a quantity Go would hold in its arbitrary-precision form and that does not fit is
//! [`QuantityError::Range`] — a value ome-render does not reproduce, not a refusal of Go's.
//!
//! [`Quantity::canonical`] is Go's `String()`; [`pattern_matches`] is the CRD schema's
//! pattern, which is stricter than Go's parser (`.` and `-` parse as 0 in Go, and the
//! pattern refuses them; `1e2.5` matches the pattern, and Go refuses it).

use std::cmp::Ordering;
use std::fmt;

/// The pattern OpenAPI schemas give a `resource.Quantity`, as the API server prints it.
pub(crate) const PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// How a quantity is written, which decides how Go writes it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `Ki`, `Mi`, … `Ei`.
    BinarySi,
    /// `n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`.
    DecimalSi,
    /// `e3`, `E-6`.
    DecimalExponent,
}

/// Why a text is not a quantity: Go's errors (its `ErrNumeric` cannot follow its own scanner),
/// and the values beyond 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QuantityError {
    /// Go's `ErrFormatWrong`.
    Format,
    /// Go's `ErrSuffix`.
    Suffix,
    /// A value Go accepts but ome-render cannot hold exactly (more than 38 digits).
    Range,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::Format => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Suffix => "unable to parse quantity's suffix",
            QuantityError::Range => "the quantity has more digits than ome-render holds (38)",
        })
    }
}

/// The smallest unit Go keeps: a nano unit (10^-9).
const NANO: i32 = -9;

/// A parsed quantity.
#[derive(Clone, Debug)]
pub(crate) struct Quantity {
    /// The value is `mantissa × 10^scale`, with `scale >= -9`.
    mantissa: i128,
    scale: i32,
    format: Format,
    /// The text Go keeps as its canonical form (the fast path's "already canonical").
    kept: Option<Box<str>>,
}

/// Go's `parseQuantityString`: sign, the digits before and after the point (leading zeros
/// dropped, `"0"` when none are left), and the suffix.
struct Scanned<'a> {
    negative: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn scan(text: &str) -> Result<Scanned<'_>, QuantityError> {
    let b = text.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut negative = false;
    match b.first() {
        Some(b'-') => {
            negative = true;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Scanned {
            negative,
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = if pos == start { "0" } else { &text[start..pos] };
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &text[start..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::Format);
    }
    Ok(Scanned {
        negative,
        num,
        denom,
        suffix: &text[suffix_start..],
    })
}

/// Go's suffixer: the base (2 or 10), its exponent, and the format.
fn interpret(suffix: &str) -> Result<(u32, i32, Format), QuantityError> {
    let binary = |e| Ok((2, e, Format::BinarySi));
    let si = |e| Ok((10, e, Format::DecimalSi));
    match suffix {
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        "n" => si(-9),
        "u" => si(-6),
        "m" => si(-3),
        "" => si(0),
        "k" => si(3),
        "M" => si(6),
        "G" => si(9),
        "T" => si(12),
        "P" => si(15),
        "E" => si(18),
        _ => {
            let rest = suffix
                .strip_prefix(['e', 'E'])
                .filter(|r| !r.is_empty())
                .ok_or(QuantityError::Suffix)?;
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Suffix);
            }
            // Go parses an int64 and keeps an int32 of it; a larger exponent is out of reach.
            let e: i64 = rest.parse().map_err(|_| QuantityError::Suffix)?;
            let e = i32::try_from(e).map_err(|_| QuantityError::Range)?;
            Ok((10, e, Format::DecimalExponent))
        }
    }
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// The digits of `s` as a number.
fn digits_value(s: &str) -> Result<i128, QuantityError> {
    if s.len() > 38 {
        return Err(QuantityError::Range);
    }
    Ok(s.bytes().fold(0i128, |v, d| v * 10 + i128::from(d - b'0')))
}

/// Divides `value` by `base` while it divides evenly; returns the rest and the count.
fn remove_factors(mut value: i128, base: i128) -> (i128, i32) {
    let mut times = 0;
    while value != 0 && value % base == 0 {
        value /= base;
        times += 1;
    }
    (value, times)
}

fn digit_count(mut v: u128) -> i32 {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

impl Quantity {
    /// A whole number of units, in the decimal format (Go's `NewQuantity(v, DecimalSI)`).
    pub(crate) fn from_int(value: i64) -> Quantity {
        Quantity {
            mantissa: i128::from(value),
            scale: 0,
            format: Format::DecimalSi,
            kept: None,
        }
    }

    /// Go's `ParseQuantity`.
    pub(crate) fn parse(text: &str) -> Result<Quantity, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::Format);
        }
        if text == "0" {
            return Ok(Quantity {
                mantissa: 0,
                scale: 0,
                format: Format::DecimalSi,
                kept: Some(text.into()),
            });
        }
        let s = scan(text)?;
        let (base, exponent, format) = interpret(s.suffix)?;
        let sign = if s.negative { -1 } else { 1 };
        let digits = s.num.len() + s.denom.len();
        let denom_len = i32::try_from(s.denom.len()).map_err(|_| QuantityError::Range)?;
        // Go's fast path: an int64 times a power of ten, the text kept when canonical.
        let precision: i64 = match format {
            Format::BinarySi if s.denom.is_empty() => {
                15 - s.num.len() as i64 - (exponent as f32 * 3.0 / 10.0) as i64 - 1
            }
            Format::BinarySi => -1,
            _ => 18 - digits as i64,
        };
        let fast_scale = if format == Format::BinarySi {
            0
        } else {
            exponent - denom_len
        };
        if precision >= 0 && fast_scale >= NANO {
            let shifted = format!("{}{}", s.num, s.denom);
            let value = digits_value(&shifted)?;
            let multiplier = if format == Format::BinarySi {
                1i128 << exponent
            } else {
                1
            };
            let result = value * multiplier;
            if i64::try_from(result).is_ok() {
                let canonical = match format {
                    Format::BinarySi => exponent % 10 == 0 && value & 0x07 != 0,
                    _ => {
                        fast_scale % 3 == 0
                            && !shifted.ends_with("000")
                            && !shifted.starts_with('0')
                    }
                };
                return Ok(Quantity {
                    mantissa: sign * result,
                    scale: fast_scale,
                    format,
                    kept: canonical.then(|| text.into()),
                });
            }
        }
        // Go's arbitrary-precision path, exact within 128 bits.
        let mut mantissa = digits_value(&format!("{}{}", s.num, s.denom))?;
        let mut scale = -denom_len;
        if base == 10 {
            scale = scale.checked_add(exponent).ok_or(QuantityError::Range)?;
        } else {
            mantissa = mantissa
                .checked_mul(1i128 << exponent)
                .ok_or(QuantityError::Range)?;
        }
        if mantissa != 0 && scale < NANO {
            // Rounded up to a nano unit, away from zero.
            let drop = u32::try_from(NANO - scale).map_err(|_| QuantityError::Range)?;
            mantissa = match pow10(drop) {
                Some(unit) => mantissa.div_euclid(unit) + i128::from(mantissa % unit != 0),
                None => 1,
            };
            scale = NANO;
        }
        let mut q = Quantity {
            mantissa,
            scale,
            format,
            kept: None,
        };
        if format == Format::BinarySi && q.cmp_magnitude(i128::from(i64::MAX), 0).is_gt() {
            q.mantissa = i128::from(i64::MAX);
            q.scale = 0;
        }
        q.mantissa *= sign;
        Ok(q)
    }

    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "the arithmetic of resource.Quantity, for the checks to come"
        )
    )]
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    pub(crate) fn is_negative(&self) -> bool {
        self.mantissa < 0
    }

    /// Compares `|self|` with `m × 10^s` (`m >= 0`).
    fn cmp_magnitude(&self, m: i128, s: i32) -> Ordering {
        let a = self.mantissa.unsigned_abs();
        let b = m.unsigned_abs();
        match (a, b) {
            (0, 0) => return Ordering::Equal,
            (0, _) => return Ordering::Less,
            (_, 0) => return Ordering::Greater,
            _ => {}
        }
        let (order_a, order_b) = (
            i64::from(digit_count(a)) + i64::from(self.scale),
            i64::from(digit_count(b)) + i64::from(s),
        );
        if order_a != order_b {
            return order_a.cmp(&order_b);
        }
        // Same order of magnitude: bring the one with the larger scale down to the other's.
        let shift = |v: u128, by: i32| {
            u32::try_from(by)
                .ok()
                .and_then(|by| 10u128.checked_pow(by))
                .and_then(|p| v.checked_mul(p))
        };
        if self.scale >= s {
            shift(a, self.scale - s).map_or(Ordering::Greater, |a| a.cmp(&b))
        } else {
            shift(b, s - self.scale).map_or(Ordering::Less, |b| a.cmp(&b))
        }
    }

    /// Go's `Cmp`.
    pub(crate) fn compare(&self, other: &Quantity) -> Ordering {
        let sign = |q: &Quantity| q.mantissa.signum();
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal => {}
            o => return o,
        }
        let by_magnitude = self.cmp_magnitude(other.mantissa, other.scale);
        if self.is_negative() {
            by_magnitude.reverse()
        } else {
            by_magnitude
        }
    }

    /// Both mantissas at the smaller scale, when that fits.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "the arithmetic of resource.Quantity, for the checks to come"
        )
    )]
    fn aligned(&self, other: &Quantity) -> Option<(i128, i128, i32)> {
        let scale = self.scale.min(other.scale);
        let up = |q: &Quantity| {
            pow10(u32::try_from(q.scale - scale).ok()?).and_then(|p| q.mantissa.checked_mul(p))
        };
        Some((up(self)?, up(other)?, scale))
    }

    /// Go's `Add`, or `None` beyond 128 bits. A zero takes the other's format.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "the arithmetic of resource.Quantity, for the checks to come"
        )
    )]
    pub(crate) fn checked_add(&self, other: &Quantity) -> Option<Quantity> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Quantity {
            mantissa: a.checked_add(b)?,
            scale,
            format: if self.is_zero() {
                other.format
            } else {
                self.format
            },
            kept: None,
        })
    }

    /// Go's `Sub`, or `None` beyond 128 bits.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "the arithmetic of resource.Quantity, for the checks to come"
        )
    )]
    pub(crate) fn checked_sub(&self, other: &Quantity) -> Option<Quantity> {
        let negated = Quantity {
            mantissa: other.mantissa.checked_neg()?,
            ..other.clone()
        };
        self.checked_add(&negated)
    }

    /// The value rounded up to `10^scale` units, away from zero, and whether that was exact.
    fn at_scale(&self, scale: i32) -> Option<(i128, bool)> {
        if self.scale >= scale {
            let p = pow10(u32::try_from(self.scale - scale).ok()?)?;
            return Some((self.mantissa.checked_mul(p)?, true));
        }
        let Some(p) = pow10(u32::try_from(scale - self.scale).ok()?) else {
            return Some((self.mantissa.signum(), self.mantissa == 0));
        };
        let (q, r) = (self.mantissa / p, self.mantissa % p);
        Some((q + r.signum(), r == 0))
    }

    /// Go's `Value()`: the whole value rounded up, away from zero (saturated to an `i64`).
    pub(crate) fn value(&self) -> i64 {
        self.scaled(0)
    }

    /// Go's `MilliValue()`.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "the arithmetic of resource.Quantity, for the checks to come"
        )
    )]
    pub(crate) fn milli_value(&self) -> i64 {
        self.scaled(-3)
    }

    fn scaled(&self, scale: i32) -> i64 {
        match self.at_scale(scale) {
            Some((v, _)) => i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX }),
            None if self.is_negative() => i64::MIN,
            None => i64::MAX,
        }
    }

    /// Whether the value is a whole number (`MilliValue() % 1000 == 0`, as the API server asks of
    /// extended resources).
    pub(crate) fn is_whole(&self) -> bool {
        self.at_scale(0).is_some_and(|(_, exact)| exact)
    }

    /// The value as the nearest `f64` (rounded once).
    pub(crate) fn as_f64(&self) -> f64 {
        format!("{}e{}", self.mantissa, self.scale)
            .parse()
            .unwrap_or(f64::NAN)
    }

    /// Go's `String()`: the text as written when Go keeps it, else the canonical form
    /// (`1000m` → `1`, `0.5` → `500m`, `1024Mi` → `1Gi`); `None` for a decimal exponent
    /// no suffix names (beyond `E` or below `n`), which Go writes without it.
    pub(crate) fn canonical(&self) -> Option<String> {
        if let Some(text) = &self.kept {
            return Some(text.to_string());
        }
        if self.is_zero() {
            return Some("0".to_string());
        }
        let mut format = self.format;
        let mut whole = None;
        if format == Format::BinarySi {
            let one_k = Quantity::from_int(1024);
            if self.cmp_magnitude(one_k.mantissa, 0).is_lt() {
                format = Format::DecimalSi;
            } else {
                match self.at_scale(0) {
                    Some((v, true)) => whole = Some(v),
                    _ => format = Format::DecimalSi,
                }
            }
        }
        if let Some(v) = whole {
            let (amount, times) = remove_factors(v, 1024);
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(times as usize)?;
            return Some(format!("{amount}{suffix}"));
        }
        let (mut amount, times) = remove_factors(self.mantissa, 10);
        let mut exponent = self.scale.checked_add(times)?;
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
}

impl fmt::Display for Quantity {
    /// The canonical form; a decimal exponent no suffix names is written with `e`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.canonical() {
            Some(text) => f.write_str(&text),
            None => {
                let (amount, times) = remove_factors(self.mantissa, 10);
                write!(f, "{amount}e{}", i64::from(self.scale) + i64::from(times))
            }
        }
    }
}

/// Whether `text` matches [`PATTERN`]: an optional sign, a decimal number (`1`, `1.`, `1.5`,
/// `.5`), then nothing, a binary suffix, a decimal suffix or an exponent (`e3`, `E-2.5`).
pub(crate) fn pattern_matches(text: &str) -> bool {
    let b = text.as_bytes();
    let i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let Some(i) = decimal(b, i) else {
        return false;
    };
    match &b[i..] {
        [] => true,
        [b'K' | b'M' | b'G' | b'T' | b'P' | b'E', b'i'] => true,
        [b'n' | b'u' | b'm' | b'k' | b'M' | b'G' | b'T' | b'P' | b'E'] => true,
        [b'e' | b'E', rest @ ..] => {
            let skip = usize::from(matches!(rest.first(), Some(b'+' | b'-')));
            decimal(rest, skip) == Some(rest.len())
        }
        _ => false,
    }
}

/// `[0-9]+(\.[0-9]*)?` or `\.[0-9]+` from `i`: where it ends, if it is there.
fn decimal(b: &[u8], mut i: usize) -> Option<usize> {
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let whole = i > start;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let fraction_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if !whole && i == fraction_start {
            return None;
        }
        return Some(i);
    }
    whole.then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Quantity {
        Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn go_writes_these_back_so() {
        for (input, want) in [
            ("10", "10"),
            ("30Gi", "30Gi"),
            ("100m", "100m"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("1e3", "1e3"),
            ("1000e3", "1e6"),
            ("0", "0"),
            ("0Gi", "0"),
            ("-0", "0"),
            ("-1000m", "-1"),
            ("-30Gi", "-30Gi"),
            ("-1", "-1"),
            ("20000M", "20G"),
            (".5", "500m"),
            // Go drops leading zeros before it decides the text is canonical, and keeps it.
            ("007", "007"),
            ("1.G", "1.G"),
            // Finer than a nano unit: rounded up, away from zero.
            ("1.0000000001", "1000000001n"),
            ("1e-20", "1e-9"),
            ("-1e-20", "-1e-9"),
            ("1n", "1n"),
            // Go's scanner reads a lone sign, point or suffix as zero.
            ("-", "0"),
            ("Gi", "0"),
            (".", "0"),
            ("7Ei", "7Ei"),
            // Go caps binary values at the largest int64.
            ("8Ei", "9223372036854775807"),
        ] {
            assert_eq!(q(input).canonical().as_deref(), Some(want), "{input}");
        }
    }

    #[test]
    fn go_refuses_these_with_its_errors() {
        for (bad, err) in [
            ("", QuantityError::Format),
            ("abc", QuantityError::Format),
            ("1Zi", QuantityError::Format),
            ("1Kb", QuantityError::Format),
            ("1 Gi", QuantityError::Format),
            ("1.2.3", QuantityError::Format),
            ("1e2.5", QuantityError::Format),
            ("--1", QuantityError::Suffix),
            ("1e", QuantityError::Suffix),
            ("1e+", QuantityError::Suffix),
            ("1ki", QuantityError::Suffix),
            ("1K", QuantityError::Suffix),
            ("1e99999999999", QuantityError::Range),
        ] {
            assert_eq!(Quantity::parse(bad).err(), Some(err), "{bad}");
        }
        assert_eq!(
            QuantityError::Format.to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
    }

    #[test]
    fn compares_by_value_whatever_the_spelling() {
        assert_eq!(q("1").compare(&q("1000m")), Ordering::Equal);
        assert_eq!(q("1Gi").compare(&q("1024Mi")), Ordering::Equal);
        assert_eq!(q("1G").compare(&q("1Gi")), Ordering::Less);
        assert_eq!(q("512Gi").compare(&q("192Gi")), Ordering::Greater);
        assert_eq!(q("-1").compare(&q("0")), Ordering::Less);
        assert_eq!(q("-2").compare(&q("-1")), Ordering::Less);
        assert_eq!(q("1e30").compare(&q("1E")), Ordering::Greater);
        assert_eq!(q("1n").compare(&q("1e-20")), Ordering::Equal);
        assert_eq!(
            q("99999999999999999999999999999999999999").compare(&q("1e38")),
            Ordering::Less
        );
        assert!(q("-30Gi").is_negative());
        assert!(!q("0").is_negative() && q("-0").is_zero());
    }

    #[test]
    fn adds_and_subtracts_exactly() {
        let sum = q("500m").checked_add(&q("1.5")).unwrap();
        assert_eq!(sum.canonical().as_deref(), Some("2"));
        let diff = q("1Gi").checked_sub(&q("512Mi")).unwrap();
        assert_eq!(diff.compare(&q("512Mi")), Ordering::Equal);
        assert_eq!(
            q("0").checked_add(&q("2Gi")).unwrap().format(),
            Format::BinarySi
        );
        assert!(q("1").checked_sub(&q("3")).unwrap().is_negative());
    }

    #[test]
    fn values_round_up_away_from_zero() {
        assert_eq!(q("1.5").value(), 2);
        assert_eq!(q("-1.5").value(), -2);
        assert_eq!(q("80G").value(), 80_000_000_000);
        assert_eq!(q("500m").milli_value(), 500);
        assert_eq!(q("1e30").value(), i64::MAX);
        assert!(q("2").is_whole() && q("1000m").is_whole() && q("0.5Ki").is_whole());
        assert!(!q("500m").is_whole() && !q("1.5").is_whole());
        assert_eq!(q("0.3k").as_f64(), 300.0);
        assert_eq!(q("+.5Ki").as_f64(), 512.0);
    }

    #[test]
    fn the_crd_pattern() {
        for ok in [
            "1", "10", "500m", "30Gi", "1.5", "1.", ".5", "+1", "-1", "1e3", "1E-3", "1e2.5",
            "8Ei", "2k", "0",
        ] {
            assert!(pattern_matches(ok), "{ok}");
        }
        for bad in [
            "", "ten", "abc", "1Zi", "1Kb", ".", "-", "1..2", "1e", "e3", "1 Gi", "Gi", "--1",
            "1ki", "1mi",
        ] {
            assert!(!pattern_matches(bad), "{bad}");
        }
    }
}
