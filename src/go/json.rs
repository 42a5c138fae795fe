//! JSON text read as Go's `encoding/json` reads it (`json.Unmarshal`): strict RFC 8259 syntax
//! (no comments, no single quotes, no bare words, one value), and a syntax error worded as
//! Go's `SyntaxError` (`invalid character 'x' looking for beginning of value`, `unexpected
//! end of JSON input`) with its place. The value becomes a [`Node`] tree, every node at its
//! line and column (a map entry's value at its key, as elsewhere in the tree), so later
//! checks can point into the text. An object keeps every member in order, duplicate keys
//! included: which one counts is the decoder's business ([`super::decode::fold`]).
//!
//! Own code rather than `serde_json`: the messages must be Go's word for word (OME quotes
//! them), and the tree must keep positions and duplicate keys, which `serde_json::Value`
//! drops.

use crate::yaml::{Map, Node, Pos, Value};

/// Why a text is not one JSON value: Go's message and the place of the offending byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    /// Bytes read before the error (Go's `SyntaxError.Offset`).
    pub(crate) offset: usize,
    pub(crate) pos: Pos,
    /// The input ended inside a string, literal or number (rather than between tokens).
    pub(crate) inside_token: bool,
}

/// Go's message when the input ends early (`json.Unmarshal`'s wording).
const END_OF_INPUT: &str = "unexpected end of JSON input";

impl SyntaxError {
    /// The text Go's streaming reader (`json.NewDecoder(…)`, its `Token` and `Decode`) gives
    /// for this error, where `json.Unmarshal` gives [`SyntaxError::message`]: the input ending
    /// between tokens is `EOF`, inside one `unexpected EOF`; a second value after the first
    /// (which a stream reads as the next token) is ome-render's `unexpected trailing data`
    /// (SEMANTICS.md#choice-approximate-texts). Every other error reads the same.
    pub(crate) fn stream_message(&self) -> String {
        if self.message == END_OF_INPUT {
            if self.inside_token {
                "unexpected EOF"
            } else {
                "EOF"
            }
            .to_string()
        } else if self.message.ends_with(" after top-level value") {
            "unexpected trailing data".to_string()
        } else {
            self.message.clone()
        }
    }
}

/// Nesting deeper than this is refused with Go's message (Go's own limit is 10,000; this
/// one keeps the recursion well within a thread's stack, and no configuration nests so deep).
const MAX_DEPTH: usize = 500;

/// Parses `text` (of source file `file`) as exactly one JSON value.
pub(crate) fn parse(text: &str, file: u32) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        i: 0,
        file,
        line: 1,
        line_start: 0,
        col_at: 0,
        col: 0,
        depth: 0,
        in_token: false,
    };
    p.ws();
    let value = p.value()?;
    p.ws();
    if p.i < p.bytes.len() {
        return Err(p.invalid("after top-level value"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
    file: u32,
    line: u32,
    line_start: usize,
    /// The column (in characters) at byte `col_at` of the current line: positions are
    /// counted on from the last one, so a long one-line text (a safetensors header) is
    /// read in linear time.
    col_at: usize,
    col: usize,
    depth: usize,
    /// Inside a string, literal or number (for [`SyntaxError::inside_token`]).
    in_token: bool,
}

impl Parser<'_> {
    /// The position of the current byte, counted on from the last one asked for.
    fn pos(&mut self) -> Pos {
        if self.col_at < self.line_start || self.col_at > self.i {
            self.col_at = self.line_start;
            self.col = 0;
        }
        self.col += self
            .text
            .get(self.col_at..self.i)
            .map_or(0, |s| s.chars().count());
        self.col_at = self.i;
        self.at(self.col)
    }

    fn at(&self, col: usize) -> Pos {
        Pos {
            file: self.file,
            line: self.line,
            col: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }

    fn ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line = self.line.saturating_add(1);
                    self.line_start = self.i;
                }
                _ => break,
            }
        }
    }

    fn error(&self, message: String) -> SyntaxError {
        let col = self
            .text
            .get(self.line_start..self.i)
            .map_or(0, |s| s.chars().count());
        SyntaxError {
            message,
            offset: self.i,
            pos: self.at(col),
            inside_token: self.in_token,
        }
    }

    /// Go's error at the current byte: `invalid character … {context}`, or the end of input.
    fn invalid(&self, context: &str) -> SyntaxError {
        match self.bytes.get(self.i) {
            None => self.error(END_OF_INPUT.into()),
            Some(&b) => self.error(format!("invalid character {} {context}", quote_char(b))),
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.pos();
        match self.bytes.get(self.i) {
            Some(b'{') => self.object(pos),
            Some(b'[') => self.array(pos),
            Some(b'"') => Ok(Node::new(Value::Str(self.string()?), pos)),
            Some(b't') => self.literal("true", Value::Bool(true), pos),
            Some(b'f') => self.literal("false", Value::Bool(false), pos),
            Some(b'n') => self.literal("null", Value::Null, pos),
            Some(b'-' | b'0'..=b'9') => self.number(pos),
            _ => Err(self.invalid("looking for beginning of value")),
        }
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("exceeded max depth".into()));
        }
        Ok(())
    }

    fn object(&mut self, pos: Pos) -> Result<Node, SyntaxError> {
        self.enter()?;
        self.i += 1;
        let mut map = Map::new();
        self.ws();
        if self.bytes.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Node::new(Value::Map(map), pos));
        }
        loop {
            self.ws();
            if self.bytes.get(self.i) != Some(&b'"') {
                return Err(self.invalid("looking for beginning of object key string"));
            }
            let key_pos = self.pos();
            let key = self.string()?;
            self.ws();
            if self.bytes.get(self.i) != Some(&b':') {
                return Err(self.invalid("after object key"));
            }
            self.i += 1;
            self.ws();
            let mut value = self.value()?;
            value.pos = key_pos;
            // Duplicates are kept, in order; the decoder decides which counts.
            map.push_unique(key, value);
            self.ws();
            match self.bytes.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Node::new(Value::Map(map), pos));
                }
                _ => return Err(self.invalid("after object key:value pair")),
            }
        }
    }

    fn array(&mut self, pos: Pos) -> Result<Node, SyntaxError> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.bytes.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Node::new(Value::Seq(items), pos));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.bytes.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Node::new(Value::Seq(items), pos));
                }
                _ => return Err(self.invalid("after array element")),
            }
        }
    }

    fn literal(&mut self, word: &str, value: Value, pos: Pos) -> Result<Node, SyntaxError> {
        self.in_token = true;
        for want in word.bytes() {
            match self.bytes.get(self.i) {
                Some(&b) if b == want => self.i += 1,
                Some(_) => {
                    return Err(self.invalid(&format!(
                        "in literal {word} (expecting {})",
                        quote_char(want)
                    )));
                }
                None => return Err(self.invalid("")),
            }
        }
        self.in_token = false;
        Ok(Node::new(value, pos))
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.bytes.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    /// A number as Go's scanner accepts it; an integer that fits 64 bits is `Int`, anything
    /// else (a fraction, an exponent, a larger integer) `Float` with its text.
    fn number(&mut self, pos: Pos) -> Result<Node, SyntaxError> {
        let start = self.i;
        self.in_token = true;
        if self.bytes[self.i] == b'-' {
            self.i += 1;
            if !self.bytes.get(self.i).is_some_and(u8::is_ascii_digit) {
                return Err(self.invalid("in numeric literal"));
            }
        }
        if self.bytes[self.i] == b'0' {
            self.i += 1;
        } else {
            self.digits();
        }
        let mut integer = true;
        if self.bytes.get(self.i) == Some(&b'.') {
            integer = false;
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.invalid("after decimal point in numeric literal"));
            }
        }
        if matches!(self.bytes.get(self.i), Some(b'e' | b'E')) {
            integer = false;
            self.i += 1;
            if matches!(self.bytes.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.invalid("in exponent of numeric literal"));
            }
        }
        self.in_token = false;
        let text = &self.text[start..self.i];
        let value = match text.parse::<i64>() {
            Ok(n) if integer => Value::Int(n),
            _ => Value::Float(text.to_string()),
        };
        Ok(Node::new(value, pos))
    }

    /// A string at its opening quote; invalid UTF-8 and lone surrogates become U+FFFD, as
    /// in Go.
    fn string(&mut self) -> Result<String, SyntaxError> {
        self.i += 1;
        self.in_token = true;
        let mut out = String::new();
        loop {
            let run = self.i;
            while let Some(&b) = self.bytes.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run..self.i]);
            match self.bytes.get(self.i) {
                None => return Err(self.invalid("")),
                Some(b'"') => {
                    self.i += 1;
                    self.in_token = false;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(&e) = self.bytes.get(self.i) else {
                        return Err(self.invalid(""));
                    };
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            self.i += 1;
                            let first = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&first)
                                && self.bytes.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let second = self.hex4()?;
                                if (0xdc00..0xe000).contains(&second) {
                                    char::from_u32(
                                        0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00),
                                    )
                                } else {
                                    self.i = save;
                                    None
                                }
                            } else {
                                char::from_u32(first)
                            };
                            out.push(c.unwrap_or('\u{fffd}'));
                            continue;
                        }
                        _ => return Err(self.invalid("in string escape code")),
                    }
                    self.i += 1;
                }
                Some(_) => return Err(self.invalid("in string literal")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut v = 0;
        for _ in 0..4 {
            let Some(&b) = self.bytes.get(self.i) else {
                return Err(self.invalid(""));
            };
            let d = char::from(b)
                .to_digit(16)
                .ok_or_else(|| self.invalid("in \\u hexadecimal character escape"))?;
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }
}

/// A byte as Go's JSON errors quote it (`quoteChar`): `'x'`, `'\''`, `'"'`, `'\x01'`; a
/// byte above 0x7f is the Latin-1 character of that number, as Go's `string(rune(c))`.
fn quote_char(b: u8) -> String {
    match b {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        _ => {
            let quoted = super::quote(char::from(b).encode_utf8(&mut [0; 4]));
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, 0).unwrap_err().message
    }

    #[test]
    fn values_with_positions() {
        let root = parse(
            "{\n  \"a\": [1, -2.5e3, true, null],\n  \"b\": \"\\u00e9\\n\"\n}",
            3,
        )
        .unwrap();
        let a = root.get("a").unwrap();
        assert_eq!(
            a.pos,
            Pos {
                file: 3,
                line: 2,
                col: 2
            }
        );
        let items = a.as_seq().unwrap();
        assert_eq!(items[0].value, Value::Int(1));
        assert_eq!(items[1].value, Value::Float("-2.5e3".into()));
        assert_eq!(
            items[1].pos,
            Pos {
                file: 3,
                line: 2,
                col: 11
            }
        );
        assert_eq!(root.str_at(&["b"]), Some("é\n"));
        assert_eq!(
            parse("12345678901234567890", 0).unwrap().value,
            Value::Float("12345678901234567890".into())
        );
        assert_eq!(parse("\"\\ud83d\\ude00\"", 0).unwrap().as_str(), Some("😀"));
        assert_eq!(
            parse("\"\\ud800x\"", 0).unwrap().as_str(),
            Some("\u{fffd}x")
        );
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let root = parse(r#"{"a": 1, "A": 2, "a": 3}"#, 0).unwrap();
        let keys: Vec<&str> = root.as_map().unwrap().keys().collect();
        assert_eq!(keys, ["a", "A", "a"]);
    }

    #[test]
    fn syntax_errors_read_as_go_writes_them() {
        for (text, want) in [
            ("", "unexpected end of JSON input"),
            ("   ", "unexpected end of JSON input"),
            ("{\"a\": 1", "unexpected end of JSON input"),
            (
                "{invalid-json}",
                "invalid character 'i' looking for beginning of object key string",
            ),
            (
                "invalid-json",
                "invalid character 'i' looking for beginning of value",
            ),
            (
                "a: 1",
                "invalid character 'a' looking for beginning of value",
            ),
            (
                "{'a': 1}",
                "invalid character '\\'' looking for beginning of object key string",
            ),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\": 1 \"b\": 2}",
                "invalid character '\"' after object key:value pair",
            ),
            ("[1 2]", "invalid character '2' after array element"),
            ("{\"a\": 1}}", "invalid character '}' after top-level value"),
            ("{} {}", "invalid character '{' after top-level value"),
            ("tru", "unexpected end of JSON input"),
            (
                "trux",
                "invalid character 'x' in literal true (expecting 'e')",
            ),
            ("01", "invalid character '1' after top-level value"),
            ("1.", "unexpected end of JSON input"),
            (
                "1.x",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            (
                "1ex",
                "invalid character 'x' in exponent of numeric literal",
            ),
            ("-x", "invalid character 'x' in numeric literal"),
            ("\"a\tb\"", "invalid character '\\t' in string literal"),
            ("\"\\x\"", "invalid character 'x' in string escape code"),
            (
                "\"\\u12g4\"",
                "invalid character 'g' in \\u hexadecimal character escape",
            ),
            (
                "{\"a\": 1} # c",
                "invalid character '#' after top-level value",
            ),
            (
                "\u{e9}",
                "invalid character 'Ã' looking for beginning of value",
            ),
        ] {
            assert_eq!(err(text), want, "{text:?}");
        }
    }

    #[test]
    fn errors_say_where() {
        let e = parse("{\n  \"a\": 1,\n  b: 2\n}", 0).unwrap_err();
        assert_eq!(e.offset, 14);
        assert_eq!((e.pos.line, e.pos.col), (3, 2));
    }

    /// `json.NewDecoder` wording (the traffic-drain annotation) next to `json.Unmarshal`'s.
    #[test]
    fn stream_messages_read_as_gos_decoder_writes_them() {
        let stream = |text: &str| parse(text, 0).unwrap_err().stream_message();
        for (text, want) in [
            ("", "EOF"),
            ("  \n ", "EOF"),
            ("{", "EOF"),
            ("{\"a\":", "EOF"),
            ("{\"a\": {\"b\": \"c\"}", "EOF"),
            ("[1,", "EOF"),
            ("{\"a", "unexpected EOF"),
            ("{\"a\": \"b", "unexpected EOF"),
            ("{\"a\": tr", "unexpected EOF"),
            ("{\"a\": -", "unexpected EOF"),
            ("{\"a\": 1.", "unexpected EOF"),
            ("\"\\u12", "unexpected EOF"),
            ("{} x", "unexpected trailing data"),
            ("{}{}", "unexpected trailing data"),
            (
                "{x}",
                "invalid character 'x' looking for beginning of object key string",
            ),
            ("nul", "unexpected EOF"),
            (
                "nulL",
                "invalid character 'L' in literal null (expecting 'l')",
            ),
        ] {
            assert_eq!(stream(text), want, "{text:?}");
        }
        // `json.Unmarshal` says the same end of input either way.
        assert_eq!(err("{\"a"), "unexpected end of JSON input");
        assert_eq!(err("{"), "unexpected end of JSON input");
    }

    #[test]
    fn numbers_keep_their_text() {
        for (text, want) in [
            ("0", Value::Int(0)),
            ("-0", Value::Int(0)),
            ("-12", Value::Int(-12)),
            ("9223372036854775807", Value::Int(i64::MAX)),
            (
                "9223372036854775808",
                Value::Float("9223372036854775808".into()),
            ),
            ("1.50", Value::Float("1.50".into())),
            ("1E+2", Value::Float("1E+2".into())),
            ("3.0", Value::Float("3.0".into())),
        ] {
            assert_eq!(parse(text, 0).unwrap().value, want, "{text:?}");
        }
        assert_eq!(err("1.2.3"), "invalid character '.' after top-level value");
        assert_eq!(
            err("+1"),
            "invalid character '+' looking for beginning of value"
        );
    }

    #[test]
    fn strings_with_escapes_and_surrogates() {
        for (text, want) in [
            (r#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{c}\n\r\t"),
            (r#""\ud83d\ude00x""#, "😀x"),
            // A lone high or low surrogate is U+FFFD, as in Go.
            (r#""\ud83d""#, "\u{fffd}"),
            (r#""\ude00""#, "\u{fffd}"),
            (r#""\ud83d\u0041""#, "\u{fffd}A"),
            ("\"é😀\"", "é😀"),
        ] {
            assert_eq!(parse(text, 0).unwrap().as_str(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn positions_on_one_long_line_are_counted_on() {
        // A safetensors header: one line, many members; columns in characters.
        let mut text = String::from("{");
        for i in 0..2000 {
            text.push_str(&format!("\"é{i}\":[{i}],"));
        }
        text.push_str("\"last\":0}");
        let root = parse(&text, 0).unwrap();
        let map = root.as_map().unwrap();
        assert_eq!(map.len(), 2001);
        let last = root.get("last").unwrap();
        let want = text.find("\"last\"").unwrap() - 2000;
        assert_eq!((last.pos.line, last.pos.col as usize), (1, want));
        let e = parse(&text.replace("\"last\":0", "\"last\":x"), 0).unwrap_err();
        assert_eq!(e.pos.col as usize, want + 7);
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = "[".repeat(20_000);
        assert_eq!(err(&deep), "exceeded max depth");
        let deep = "{\"a\":".repeat(MAX_DEPTH + 1);
        assert_eq!(err(&deep), "exceeded max depth");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok, 0).is_ok());
    }
}
