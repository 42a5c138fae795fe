//! Go's parsing and quoting, where OME's messages quote Go's own errors or values: `%q`,
//! `strconv.Atoi`, `time.ParseDuration`. Reproduced so ome-render's messages read exactly
//! as OME's webhook writes them.

/// Go's `%q` of a string (`strconv.Quote`): double quotes, with `"`, `\` and non-printable
/// characters escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => {
                if (c as u32) <= 0xffff {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.Atoi` on a 64-bit platform: an optional sign, then decimal digits. The
/// error is Go's text (`strconv.Atoi: parsing "x": invalid syntax`).
pub(crate) fn atoi(s: &str) -> Result<i64, String> {
    let syntax = || format!("strconv.Atoi: parsing {}: invalid syntax", quote(s));
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    s.strip_prefix('+')
        .unwrap_or(s)
        .parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", quote(s)))
}

/// Go's `time.ParseDuration`, in nanoseconds; the error is Go's text
/// (`time: missing unit in duration "30"`).
pub(crate) fn parse_duration(orig: &str) -> Result<i128, String> {
    let invalid = || format!("time: invalid duration {}", quote(orig));
    let mut s = orig;
    let mut neg = false;
    if let Some(rest) = s.strip_prefix('-') {
        neg = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !s.is_empty() {
        let b = s.as_bytes()[0];
        if !(b == b'.' || b.is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
        let (int_part, rest) = s.split_at(int_len);
        let mut v: u128 = 0;
        for d in int_part.bytes() {
            v = v * 10 + u128::from(d - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
        }
        s = rest;
        let mut frac: u128 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if let Some(rest) = s.strip_prefix('.') {
            let frac_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            post = frac_len > 0;
            let (digits, rest) = rest.split_at(frac_len);
            let mut overflow = false;
            for d in digits.bytes() {
                if overflow {
                    continue;
                }
                if frac > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                frac = frac * 10 + u128::from(d - b'0');
                scale *= 10.0;
            }
            s = rest;
        }
        if int_len == 0 && !post {
            return Err(invalid());
        }
        let unit_len = s
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map_or(s.len(), |(i, _)| i);
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(orig)));
        }
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let unit_ns: u128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    quote(unit),
                    quote(orig)
                ));
            }
        };
        if v > LIMIT / unit_ns {
            return Err(invalid());
        }
        v *= unit_ns;
        if frac > 0 {
            v += (frac as f64 * (unit_ns as f64 / scale)) as u128;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return Ok(-(total as i128));
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_as_go_does() {
        assert_eq!(quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quote("tab\there"), r#""tab\there""#);
        assert_eq!(quote("é"), "\"é\"");
        assert_eq!(quote("\u{1}"), r#""\x01""#);
    }

    #[test]
    fn atoi_takes_a_sign_and_digits_only() {
        assert_eq!(atoi("42"), Ok(42));
        assert_eq!(atoi("+5"), Ok(5));
        assert_eq!(atoi("-3"), Ok(-3));
        assert_eq!(
            atoi("4.5"),
            Err(r#"strconv.Atoi: parsing "4.5": invalid syntax"#.into())
        );
        assert_eq!(
            atoi(""),
            Err(r#"strconv.Atoi: parsing "": invalid syntax"#.into())
        );
        assert_eq!(
            atoi("99999999999999999999"),
            Err(r#"strconv.Atoi: parsing "99999999999999999999": value out of range"#.into())
        );
    }

    #[test]
    fn durations_parse_and_fail_as_in_go() {
        assert_eq!(parse_duration("30s"), Ok(30_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("-2ms"), Ok(-2_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(
            parse_duration("30"),
            Err(r#"time: missing unit in duration "30""#.into())
        );
        assert_eq!(
            parse_duration("5x"),
            Err(r#"time: unknown unit "x" in duration "5x""#.into())
        );
        assert_eq!(
            parse_duration(""),
            Err(r#"time: invalid duration """#.into())
        );
        assert_eq!(
            parse_duration("s"),
            Err(r#"time: invalid duration "s""#.into())
        );
    }
}
