//! Escaping input-derived text for each output format (SEMANTICS.md#output-escaping): a pull
//! request is untrusted input, and what it writes (an object's kind, a name, an error
//! message quoting a value, a Git ref) must not act as markup in the bot's pull-request
//! comment or as control sequences in a terminal. Every renderer that writes such a string
//! into Markdown or to a terminal goes through here.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a terminal could act on `c` rather than show it: C0 and C1 control characters
/// (ESC, BEL, CR, backspace, CSI, …), DEL, and the Unicode format characters that reorder
/// text (bidirectional overrides and isolates, which make a line read otherwise than it is).
pub(crate) fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// `s` for a terminal, as lines: every control character but the line break and the tab is
/// shown escaped (`\u{1b}`), so no input can move the cursor, colour, retitle or clear the
/// terminal. For text of many lines (a unified diff, a quoted source line).
pub(crate) fn terminal(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| acts_on_terminal(c) && c != '\n' && c != '\t')
}

/// `s` for a terminal, on one line: [`terminal`], and the line break and the tab escaped
/// too. For names, kinds, labels, messages.
pub(crate) fn terminal_line(s: &str) -> Cow<'_, str> {
    escape_where(s, acts_on_terminal)
}

fn escape_where(s: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` as Markdown text that reads as written and is no markup: HTML's special characters
/// as entities, every other ASCII punctuation character (what Markdown, GitHub's tables,
/// autolinks, @mentions and emoji codes are made of) as a numeric character reference,
/// control characters and line breaks shown escaped as for a terminal. Character references
/// are never markup, in text or inside an HTML element.
pub(crate) fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if acts_on_terminal(c) => {
                out.push_str("&#92;");
                let mut esc = String::new();
                push_escaped(&mut esc, c);
                out.push_str(&esc[1..].replace('{', "&#123;").replace('}', "&#125;"));
            }
            // Letters, digits, space, `-`, `.`, `/` and `,` are safe as they are, and keep
            // the common names (`team/llama-3.1`) readable in the comment's source.
            c if c.is_ascii_punctuation() && !matches!(c, '-' | '.' | '/' | ',') => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as inline code in Markdown: `<code>` around [`markdown_text`], so no backtick in `s`
/// can close it and nothing in it is markup.
pub(crate) fn markdown_code(s: &str) -> String {
    format!("<code>{}</code>", markdown_text(s))
}

/// A code fence for `body`: backticks, one more than its longest run of backticks (at least
/// three), so no line of it can close the block.
pub(crate) fn markdown_fence(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// `body` for a fenced code block: the text as lines, control characters (but the line
/// break and the tab) shown escaped, as for a terminal.
pub(crate) fn markdown_block(body: &str) -> Cow<'_, str> {
    terminal(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_shows_control_characters_escaped() {
        assert_eq!(
            terminal("a\u{1b}[31mb\u{7}\n\tc"),
            "a\\u{1b}[31mb\\u{7}\n\tc"
        );
        assert_eq!(terminal_line("a\nb\r\u{202e}c"), "a\\u{a}b\\u{d}\\u{202e}c");
        assert!(matches!(terminal("plain text"), Cow::Borrowed(_)));
        assert_eq!(terminal("√ ünïcode"), "√ ünïcode");
    }

    #[test]
    fn markdown_text_holds_no_markup() {
        let hostile =
            "Pod`![x](https://e.vil/a.png)` <img src=x> @admin **approved** | a \u{1b}[2J\n#";
        let text = markdown_text(hostile);
        for bad in [
            '`', '<', '>', '\u{1b}', '\n', '[', ']', '(', ')', '*', '@', '|', '!', ':',
        ] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        assert!(text.contains("&#96;") && text.ends_with("&#35;"), "{text}");
        assert!(text.contains("&#92;u&#123;1b&#125;"), "{text}");
        assert_eq!(
            markdown_code("team/llama-3.1"),
            "<code>team/llama-3.1</code>"
        );
    }

    #[test]
    fn a_fence_is_longer_than_any_backtick_run() {
        assert_eq!(markdown_fence("a"), "```");
        assert_eq!(markdown_fence("a ```` b ` c"), "`````");
        assert_eq!(markdown_block("+ a\u{1b}b\n"), "+ a\\u{1b}b\n");
    }
}
