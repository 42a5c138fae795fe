//! Kubernetes' rules for names and label-like strings, as apimachinery's
//! `util/validation` states them (SEMANTICS.md#names): DNS-1123 labels (63 characters) and
//! subdomains (253), DNS-1035 labels, qualified names (label and annotation keys, resource
//! names), label values (63), IANA port names, port numbers and environment variable names.
//! Each `*_problems` function returns apimachinery's messages, word for word, one per
//! problem (none when the value passes); each `is_*` says whether it passes without
//! allocating, since the checks run on every object of a run.

/// The DNS-1123 subdomain pattern, as apimachinery prints it.
pub(crate) const SUBDOMAIN: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/// The DNS-1123 label pattern.
pub(crate) const LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
/// The DNS-1035 label pattern.
pub(crate) const DNS1035: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
/// A qualified name's name part (a label key without its prefix).
pub(crate) const QUALIFIED_NAME: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
/// A label value.
pub(crate) const LABEL_VALUE: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// The longest DNS-1123 label (a namespace, a container or volume name, a label value).
pub(crate) const LABEL_MAX: usize = 63;
/// The longest DNS-1123 subdomain (most object names, a qualified name's prefix).
pub(crate) const SUBDOMAIN_MAX: usize = 253;

/// apimachinery's `MaxLenError`.
pub(crate) fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// apimachinery's message for a string that is not a DNS-1123 subdomain.
pub(crate) fn subdomain_message() -> String {
    format!(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '{SUBDOMAIN}')"
    )
}

/// One DNS-1123 label's characters (length aside): lowercase letters, digits and '-',
/// starting and ending with a letter or digit.
pub(crate) fn is_label_chars(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Whether `name` is a DNS-1123 label of at most 63 characters.
pub(crate) fn is_dns1123_label(name: &str) -> bool {
    name.len() <= LABEL_MAX && is_label_chars(name)
}

/// Whether `name` is made of DNS-1123 subdomain characters (length aside).
pub(crate) fn is_subdomain_chars(name: &str) -> bool {
    name.split('.').all(is_label_chars)
}

/// Whether `name` is a DNS-1123 subdomain of at most 253 characters.
pub(crate) fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= SUBDOMAIN_MAX && is_subdomain_chars(name)
}

/// A DNS-1035 label's characters (length aside): a DNS-1123 label that starts with a letter.
pub(crate) fn is_dns1035_chars(name: &str) -> bool {
    is_label_chars(name) && name.as_bytes()[0].is_ascii_lowercase()
}

/// apimachinery's `IsDNS1123Label`.
/// How to write a DNS-1123 label (a namespace, a label-named object).
pub(crate) const DNS1123_LABEL_HELP: &str =
    "use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit";

pub(crate) fn dns1123_label_problems(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.len() > LABEL_MAX {
        out.push(max_len(LABEL_MAX));
    }
    if !is_label_chars(name) {
        out.push(if is_subdomain_chars(name) {
            "must not contain dots".to_string()
        } else {
            format!(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{LABEL}')"
            )
        });
    }
    out
}

/// apimachinery's `IsDNS1123Subdomain`.
pub(crate) fn dns1123_subdomain_problems(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.len() > SUBDOMAIN_MAX {
        out.push(max_len(SUBDOMAIN_MAX));
    }
    if !is_subdomain_chars(name) {
        out.push(subdomain_message());
    }
    out
}

/// apimachinery's `IsDNS1035Label`.
pub(crate) fn dns1035_label_problems(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.len() > LABEL_MAX {
        out.push(max_len(LABEL_MAX));
    }
    if !is_dns1035_chars(name) {
        out.push(format!(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '{DNS1035}')"
        ));
    }
    out
}

/// `[A-Za-z0-9]`, then `[-A-Za-z0-9_.]`, ending with `[A-Za-z0-9]`: a qualified name's name
/// part and a non-empty label value.
fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && edge(b[0])
        && edge(b[b.len() - 1])
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Whether `key` is a qualified name: an optional DNS-1123 subdomain prefix and `/`, then a
/// name part of at most 63 characters.
pub(crate) fn is_qualified_name(key: &str) -> bool {
    match key.split_once('/') {
        None => key.len() <= LABEL_MAX && is_name_part(key),
        Some((prefix, name)) => {
            !prefix.is_empty()
                && is_dns1123_subdomain(prefix)
                && name.len() <= LABEL_MAX
                && is_name_part(name)
        }
    }
}

/// apimachinery's `IsQualifiedName` (label keys; annotation keys, lower-cased first;
/// resource names).
pub(crate) fn qualified_name_problems(key: &str) -> Vec<String> {
    let mut parts = key.split('/');
    let (prefix, name) = match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, _) => (None, name),
        (Some(prefix), Some(name), None) => (Some(prefix), name),
        _ => {
            return vec![format!(
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '{QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    let mut out = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            out.push("prefix part must be non-empty".to_string());
        } else {
            if prefix.len() > SUBDOMAIN_MAX {
                out.push(format!("prefix part {}", max_len(SUBDOMAIN_MAX)));
            }
            if !is_subdomain_chars(prefix) {
                out.push(format!("prefix part {}", subdomain_message()));
            }
        }
    }
    if name.is_empty() {
        out.push("name part must be non-empty".to_string());
    } else if name.len() > LABEL_MAX {
        out.push(format!("name part {}", max_len(LABEL_MAX)));
    }
    if !is_name_part(name) {
        out.push(format!(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '{QUALIFIED_NAME}')"
        ));
    }
    out
}

/// Whether `value` is a label value: empty, or at most 63 characters of the name part's.
pub(crate) fn is_label_value(value: &str) -> bool {
    value.is_empty() || value.len() <= LABEL_MAX && is_name_part(value)
}

/// apimachinery's `IsValidLabelValue`.
pub(crate) fn label_value_problems(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > LABEL_MAX {
        out.push(max_len(LABEL_MAX));
    }
    if !value.is_empty() && !is_name_part(value) {
        out.push(format!(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '{LABEL_VALUE}')"
        ));
    }
    out
}

/// apimachinery's `IsValidPortName` (an IANA service name).
pub(crate) fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

/// apimachinery's `InclusiveRangeError`.
pub(crate) fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// apimachinery's `IsValidPortNum`.
pub(crate) fn port_number_problems(port: i64) -> Option<String> {
    (!(1..=65535).contains(&port)).then(|| inclusive_range(1, 65535))
}

/// apimachinery's `IsRelaxedEnvVarName`, the rule of API servers since Kubernetes 1.32
/// (the `RelaxedEnvironmentVariableValidation` gate, on by default): printable ASCII
/// without `=`. The empty name is the caller's `Required value`.
pub(crate) fn env_var_name_problems(name: &str) -> Option<&'static str> {
    name.bytes()
        .any(|b| !(b' '..=b'~').contains(&b) || b == b'=')
        .then_some(
            "a valid environment variable name must consist only of printable ASCII characters other than '='",
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels_and_subdomains() {
        let long = "a".repeat(254);
        assert!(is_dns1123_label("engine") && is_dns1123_label(&long[..63]));
        assert!(!is_dns1123_label(&long[..64]) && !is_dns1123_label("Engine"));
        assert!(!is_dns1123_label("a.b") && !is_dns1123_label("-a") && !is_dns1123_label(""));
        assert_eq!(dns1123_label_problems("a.b"), ["must not contain dots"]);
        assert_eq!(dns1123_label_problems(&long[..64]), [max_len(63)]);
        assert!(dns1123_label_problems("Engine")[0].starts_with("a lowercase RFC 1123 label"));
        assert!(is_dns1123_subdomain("llama-3.2") && is_dns1123_subdomain(&long[..253]));
        assert!(!is_dns1123_subdomain(&long) && !is_dns1123_subdomain("a..b"));
        assert_eq!(dns1123_subdomain_problems(&long), [max_len(253)]);
        assert!(is_dns1035_chars("x1") && !is_dns1035_chars("1x"));
        assert_eq!(dns1035_label_problems("1x").len(), 1);
    }

    #[test]
    fn qualified_names_and_label_values() {
        for (key, ok) in [
            ("app", true),
            ("nvidia.com/gpu", true),
            ("app.kubernetes.io/name", true),
            ("a/b/c", false),
            ("/x", false),
            ("Example.com/x", false),
            ("x y", false),
            ("-x", false),
        ] {
            assert_eq!(is_qualified_name(key), ok, "{key}");
            assert_eq!(qualified_name_problems(key).is_empty(), ok, "{key}");
        }
        for (value, ok) in [
            ("", true),
            ("Serving", true),
            ("v1.2_3", true),
            ("Meta Platforms", false),
            ("-x", false),
            (&*"a".repeat(64), false),
        ] {
            assert_eq!(is_label_value(value), ok, "{value}");
            assert_eq!(label_value_problems(value).is_empty(), ok, "{value}");
        }
        assert_eq!(label_value_problems(&"a".repeat(64)), [max_len(63)]);
    }

    #[test]
    fn ports_and_environment_names() {
        assert!(port_name_problems("http").is_empty());
        assert_eq!(
            port_name_problems("8080"),
            ["must contain at least one letter (a-z)"]
        );
        assert_eq!(
            port_name_problems("a--b"),
            ["must not contain consecutive hyphens"]
        );
        assert_eq!(port_name_problems("Http_1").len(), 1);
        assert_eq!(port_number_problems(8080), None);
        assert_eq!(
            port_number_problems(0).as_deref(),
            Some("must be between 1 and 65535, inclusive")
        );
        assert!(port_number_problems(70000).is_some());
        assert_eq!(env_var_name_problems("MY_VAR.1-x"), None);
        assert_eq!(env_var_name_problems("1st var"), None);
        assert!(env_var_name_problems("A=B").is_some());
        assert!(env_var_name_problems("tab\there").is_some());
        assert!(env_var_name_problems("é").is_some());
    }
}
