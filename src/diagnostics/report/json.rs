//! The JSON format: one object a line, for machines.

use super::*;

fn json_place(out: &mut Vec<u8>, p: &Place<'_>) {
    out.extend_from_slice(b"\"file\":");
    write_json_string(p.path, out);
    out.extend_from_slice(
        format!(
            ",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{}",
            p.line, p.col, p.line, p.end_col
        )
        .as_bytes(),
    );
}

/// One JSON object per diagnostic: `severity`, `code`, `message`, where it is (`file`,
/// `line`, `column`, `end_line`, `end_column`), `object`, `field`, `help`, and `related`
/// positions with their messages.
pub(super) fn json(d: &Diagnostic, sources: &Sources) -> String {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"severity\":");
    write_json_string(severity_word(d.severity), &mut out);
    out.extend_from_slice(b",\"code\":");
    write_json_string(d.code.as_str(), &mut out);
    out.extend_from_slice(b",\"message\":");
    write_json_string(&d.message, &mut out);
    if let Some(p) = d.pos.and_then(|p| place(p, sources)) {
        out.push(b',');
        json_place(&mut out, &p);
    }
    if let Some(o) = &d.object {
        out.extend_from_slice(b",\"object\":");
        write_json_string(&o.to_string(), &mut out);
    }
    if let Some(f) = &d.field {
        out.extend_from_slice(b",\"field\":");
        write_json_string(f, &mut out);
    }
    if let Some(h) = &d.help {
        out.extend_from_slice(b",\"help\":");
        write_json_string(h, &mut out);
    }
    let related: Vec<(Place<'_>, &str)> = d
        .related
        .iter()
        .filter_map(|r| Some((place(r.pos, sources)?, r.message.as_str())))
        .collect();
    if !related.is_empty() {
        out.extend_from_slice(b",\"related\":[");
        for (i, (p, message)) in related.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'{');
            json_place(&mut out, p);
            out.extend_from_slice(b",\"message\":");
            write_json_string(message, &mut out);
            out.push(b'}');
        }
        out.push(b']');
    }
    out.extend_from_slice(b"}\n");
    String::from_utf8(out).unwrap_or_default()
}
