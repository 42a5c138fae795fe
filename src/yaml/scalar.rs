//! Scalars: the type of an untagged plain scalar (the YAML 1.2 core schema, with YAML 1.1's
//! leading-zero octal, as kubectl reads manifests) and the key a scalar makes; shared by the
//! event parser (`parse.rs`) and its fast path (`fast.rs`).

use super::node::Value;
use std::borrow::Cow;

/// The key a scalar makes (`1:` is the key `1`, `~:` the empty key); `None` for a
/// collection, which cannot be one.
pub(super) fn key_text(value: &Value) -> Option<String> {
    match value {
        Value::Str(s) | Value::Float(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        Value::Seq(_) | Value::Map(_) => None,
    }
}

/// The type of an untagged plain scalar.
pub(crate) fn resolve_plain(text: Cow<'_, str>) -> Value {
    let s: &str = &text;
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Some(b) = parse_bool(s) {
        return Value::Bool(b);
    }
    let first = s.as_bytes()[0];
    if first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.') {
        if let Some(i) = parse_int(s) {
            return Value::Int(i);
        }
        let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
        if digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
        {
            // `08`, `09`: no number in YAML 1.1, so a string, as kubectl reads it.
            return Value::Str(text.into_owned());
        }
        if is_float(s) {
            // Includes integers too large for 64 bits.
            return Value::Float(text.into_owned());
        }
    }
    Value::Str(text.into_owned())
}

pub(super) fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Decimal, `0x` hex, `0o` octal, and legacy leading-zero octal (`0644`).
pub(super) fn parse_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let magnitude = if let Some(hex) = digits.strip_prefix("0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = digits.strip_prefix("0o") {
        if oct.is_empty() || !oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        i64::from_str_radix(oct, 8).ok()?
    } else if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    } else if digits.len() > 1 && digits.starts_with('0') {
        // YAML 1.1 octal, as kubectl reads it; `08` is no number at all there.
        if !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        i64::from_str_radix(digits, 8).ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The YAML 1.2 core schema float: `[-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`,
/// plus `.inf` and `.nan` spellings.
pub(crate) fn is_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            (!int.is_empty() || !frac.is_empty())
                && int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
                && !(int.is_empty() && frac.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}
