//! Argument merging for per-accelerator overrides: `runtimeArgsOverride` merged into the
//! runner's `args` ([`merge_args`]), and `tensorParallelismOverride` rewriting the value of a
//! parallelism flag that is already there ([`apply_parallelism`]); SEMANTICS.md#pods.
//!
//! Both follow OME's argument functions rule for rule, quirks included, because a GitOps
//! renderer must produce the same container OME would:
//!
//! - **Two forms.** `args` are *multi-line* when `args[0]` holds a newline or a backslash (one
//!   shell-style string with `\` continuations); otherwise they are a *list*, one token per
//!   element.
//! - **Grouping.** A token's key is the text before its first `=` (`--k=v`), its first word
//!   (`--k v` written as one element), or, for a token not starting with `-`, the whole token.
//!   A token without `=` followed by a token not starting with `-` takes that token as its
//!   value; this holds for non-flag tokens too (OME's code pairs `python3 server.py`), and it
//!   makes `--x -1` two groups.
//! - **Merging.** Groups keep the position where their key first appeared; a later group with
//!   the same key (a duplicate in the runtime's args, or an override) replaces it there; new
//!   override keys are appended. Keys are case-sensitive.
//! - **Nil versus empty.** `None` is Go's nil slice, `Some(vec![])` an empty one. Kubernetes
//!   writes neither (`args` is `omitempty`), so the difference never reaches an object; it is
//!   kept only to mirror OME's return values.
//! - **Parallelism.** A size is applied only when it is > 0, only to a flag that is already
//!   written, to the first alias found (all aliases in `args`, then all in `command`). A flag
//!   is never added; [`ParallelismRewrite::NotFound`] lets the caller warn about that.

use std::collections::HashMap;

/// Flags that set the tensor-parallel size, in the order OME tries them (SGLang, then vLLM).
pub(crate) const TENSOR_PARALLEL_FLAGS: [&str; 3] = ["--tp-size", "--tp", "--tensor-parallel-size"];
/// Flags that set the pipeline-parallel size, in the order OME tries them.
pub(crate) const PIPELINE_PARALLEL_FLAGS: [&str; 3] =
    ["--pp-size", "--pp", "--pipeline-parallel-size"];

/// Merges `overrides` into `args` by flag key (OME's `MergeArgs`).
///
/// An empty override returns `args` unchanged (`None` stays `None`); empty `args` return the
/// overrides as written. Otherwise both are normalised, merged by key, and returned in the
/// form of `args`: a multi-line input comes back as one string joined with `" \\\n"`.
pub(crate) fn merge_args(args: Option<&[String]>, overrides: &[String]) -> Option<Vec<String>> {
    if overrides.is_empty() {
        return args.map(<[String]>::to_vec);
    }
    let args = match args {
        Some(args) if !args.is_empty() => args,
        _ => return Some(overrides.to_vec()),
    };
    let base = normalise(args);
    let extra = normalise(overrides);
    let merged = merge_groups(&group(&base), &group(&extra));
    if merged.is_empty() {
        // Go builds the result by appending to a nil slice, so nothing merged is nil.
        return None;
    }
    if is_multi_line(args) {
        Some(vec![merged.join(" \\\n")])
    } else {
        Some(merged.into_iter().map(str::to_string).collect())
    }
}

/// Sets the value of `key` in `args` to `value` (OME's `OverrideArgParam`); true when the key
/// was found.
///
/// - Multi-line form: every `<key>=<digits>` or `<key><whitespace><digits>` in `args[0]`
///   becomes `<key>=<value>` (only numeric values match).
/// - List form: as [`override_command_param`].
pub(crate) fn override_arg_param(args: &mut [String], key: &str, value: i64) -> bool {
    let Some(first) = args.first_mut() else {
        return false;
    };
    if first.contains('\n') || first.contains('\\') {
        match replace_numeric_flag(first, key, value) {
            Some(rewritten) => {
                *first = rewritten;
                true
            }
            None => false,
        }
    } else {
        override_in_list(args, key, value)
    }
}

/// Sets the value of `key` in a list of tokens (OME's `OverrideCommandParam`; `command` is
/// always read as a list); true when the key was found.
///
/// Only the first occurrence changes: an element equal to `key` has its next element replaced
/// (a `key` with no element after it does not count), an element starting with `key=` becomes
/// `key=<value>`.
pub(crate) fn override_command_param(command: &mut [String], key: &str, value: i64) -> bool {
    override_in_list(command, key, value)
}

/// Where a parallelism size was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParallelismRewrite {
    /// The size was absent or not > 0, so nothing was looked for.
    NotRequested,
    /// The value of `flag` was set.
    Rewritten {
        flag: &'static str,
        in_command: bool,
    },
    /// No alias of the flag is written in `args` or `command`; OME adds none.
    NotFound,
}

/// What [`apply_parallelism`] did for each size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParallelismOutcome {
    pub(crate) tensor: ParallelismRewrite,
    pub(crate) pipeline: ParallelismRewrite,
}

/// Applies `tensorParallelismOverride`'s `tensorParallelSize` and `pipelineParallelSize`
/// (each only when > 0) to the runner's `args` and `command`.
pub(crate) fn apply_parallelism(
    args: &mut [String],
    command: &mut [String],
    tensor_parallel_size: Option<i64>,
    pipeline_parallel_size: Option<i64>,
) -> ParallelismOutcome {
    ParallelismOutcome {
        tensor: rewrite_first_alias(args, command, &TENSOR_PARALLEL_FLAGS, tensor_parallel_size),
        pipeline: rewrite_first_alias(
            args,
            command,
            &PIPELINE_PARALLEL_FLAGS,
            pipeline_parallel_size,
        ),
    }
}

fn rewrite_first_alias(
    args: &mut [String],
    command: &mut [String],
    aliases: &[&'static str],
    size: Option<i64>,
) -> ParallelismRewrite {
    let Some(size) = size.filter(|s| *s > 0) else {
        return ParallelismRewrite::NotRequested;
    };
    for &flag in aliases {
        if override_arg_param(args, flag, size) {
            return ParallelismRewrite::Rewritten {
                flag,
                in_command: false,
            };
        }
    }
    for &flag in aliases {
        if override_command_param(command, flag, size) {
            return ParallelismRewrite::Rewritten {
                flag,
                in_command: true,
            };
        }
    }
    ParallelismRewrite::NotFound
}

fn is_multi_line(args: &[String]) -> bool {
    args.first()
        .is_some_and(|a| a.contains('\n') || a.contains('\\'))
}

/// One token per element: a multi-line element is split into its lines, each trimmed and
/// stripped of its trailing backslashes; empty entries are dropped.
fn normalise(args: &[String]) -> Vec<&str> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        if arg.contains('\n') || arg.contains('\\') {
            for line in arg.split('\n') {
                let token = line.trim().trim_end_matches('\\').trim();
                if !token.is_empty() {
                    out.push(token);
                }
            }
        } else {
            let token = arg.trim();
            if !token.is_empty() {
                out.push(token);
            }
        }
    }
    out
}

/// A flag or command word with the tokens that make it up (one, or two for `--k v`).
struct Group<'a> {
    key: &'a str,
    tokens: &'a [&'a str],
}

/// The key a token is merged by.
fn token_key(token: &str) -> &str {
    if !token.starts_with('-') {
        return token;
    }
    if let Some((key, _)) = token.split_once('=') {
        return key;
    }
    token.split_whitespace().next().unwrap_or(token)
}

fn group<'a>(tokens: &'a [&'a str]) -> Vec<Group<'a>> {
    let mut groups = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let takes_value =
            !token.contains('=') && tokens.get(i + 1).is_some_and(|next| !next.starts_with('-'));
        let len = if takes_value { 2 } else { 1 };
        groups.push(Group {
            key: token_key(token),
            tokens: &tokens[i..i + len],
        });
        i += len;
    }
    groups
}

/// Groups in first-seen key order; the last group of each key wins.
fn merge_groups<'a>(base: &[Group<'a>], overrides: &[Group<'a>]) -> Vec<&'a str> {
    let mut order: Vec<&'a [&'a str]> = Vec::with_capacity(base.len() + overrides.len());
    let mut slot_of_key: HashMap<&str, usize> = HashMap::new();
    for g in base.iter().chain(overrides) {
        match slot_of_key.get(g.key) {
            Some(&slot) => order[slot] = g.tokens,
            None => {
                slot_of_key.insert(g.key, order.len());
                order.push(g.tokens);
            }
        }
    }
    order.into_iter().flatten().copied().collect()
}

fn override_in_list(tokens: &mut [String], key: &str, value: i64) -> bool {
    let with_equals = format!("{key}=");
    for i in 0..tokens.len() {
        if tokens[i] == key && i + 1 < tokens.len() {
            tokens[i + 1] = value.to_string();
            return true;
        }
        if tokens[i].starts_with(&with_equals) {
            tokens[i] = format!("{with_equals}{value}");
            return true;
        }
    }
    false
}

/// Every `<key>(=|\s+)\d+` in `text` replaced by `<key>=<value>`, scanning left to right
/// without overlaps as Go's `regexp.ReplaceAllString` does; `None` when nothing matches.
/// `\s` is Go's ASCII class (space, tab, newline, carriage return, form feed) and `\d` is
/// ASCII digits.
fn replace_numeric_flag(text: &str, key: &str, value: i64) -> Option<String> {
    let replacement = format!("{key}={value}");
    let mut out = String::with_capacity(text.len());
    let mut copied_up_to = 0;
    let mut pos = 0;
    let mut found = false;
    while pos <= text.len() {
        if let Some(end) = numeric_flag_end(text, pos, key) {
            out.push_str(&text[copied_up_to..pos]);
            out.push_str(&replacement);
            copied_up_to = end;
            found = true;
            // An empty key could match an empty span; step past it so the scan ends.
            pos = if end > pos {
                end
            } else {
                next_char_boundary(text, pos)
            };
        } else {
            pos = next_char_boundary(text, pos);
        }
    }
    if !found {
        return None;
    }
    out.push_str(&text[copied_up_to..]);
    Some(out)
}

/// The end of a `<key>(=|\s+)\d+` match starting at byte `start`, if there is one.
fn numeric_flag_end(text: &str, start: usize, key: &str) -> Option<usize> {
    let rest = text.get(start..)?.strip_prefix(key)?;
    let bytes = rest.as_bytes();
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    let separator = match bytes.first() {
        Some(b'=') => 1,
        Some(b) if is_space(b) => bytes.iter().take_while(|b| is_space(b)).count(),
        _ => return None,
    };
    let digits = bytes[separator..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    (digits > 0).then_some(start + key.len() + separator + digits)
}

/// The byte index after the character at `pos` (one past the end at the end).
fn next_char_boundary(text: &str, pos: usize) -> usize {
    text.get(pos..)
        .and_then(|rest| rest.chars().next())
        .map_or(pos + 1, |c| pos + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn merged(args: &[&str], overrides: &[&str]) -> Vec<String> {
        merge_args(Some(&strings(args)), &strings(overrides)).expect("merged args")
    }

    #[test]
    fn vector_01_multi_line_gets_the_override_appended() {
        assert_eq!(
            merged(
                &["python3 -m sglang.launch_server \\\n--host=0.0.0.0 \\\n--mem-frac=0.9"],
                &["--tp-size=8"]
            ),
            [
                "python3 -m sglang.launch_server \\\n--host=0.0.0.0 \\\n--mem-frac=0.9 \\\n--tp-size=8"
            ]
        );
    }

    #[test]
    fn vector_02_newline_only_input_gets_backslashes() {
        assert_eq!(
            merged(
                &["python3 -m sglang.launch_server\n--host=0.0.0.0\n--port=8080"],
                &["--tp-size=4"]
            ),
            ["python3 -m sglang.launch_server \\\n--host=0.0.0.0 \\\n--port=8080 \\\n--tp-size=4"]
        );
    }

    #[test]
    fn vector_03_list_form_appends() {
        assert_eq!(
            merged(&["python3 -m server"], &["--debug"]),
            ["python3 -m server", "--debug"]
        );
    }

    #[test]
    fn vector_04_list_form_replaces_in_place_and_appends_new_keys() {
        assert_eq!(
            merged(
                &["--tp-size=4", "--pp-size=2", "--port=8080"],
                &["--tp-size=8", "--pp-size=4", "--debug"]
            ),
            ["--tp-size=8", "--pp-size=4", "--port=8080", "--debug"]
        );
    }

    #[test]
    fn vector_05_pairs_replace_pairs() {
        assert_eq!(
            merged(&["--tp-size", "4", "--port", "8080"], &["--tp-size", "8"]),
            ["--tp-size", "8", "--port", "8080"]
        );
    }

    #[test]
    fn vector_06_mixed_forms() {
        assert_eq!(
            merged(
                &["--tp-size=4", "--port", "8080"],
                &["--tp-size=8", "--host=0.0.0.0"]
            ),
            ["--tp-size=8", "--port", "8080", "--host=0.0.0.0"]
        );
    }

    #[test]
    fn vector_07_keys_are_case_sensitive() {
        assert_eq!(
            merged(
                &["python3 -m server \\\n--Enable-Metrics"],
                &["--enable-metrics"]
            ),
            ["python3 -m server \\\n--Enable-Metrics \\\n--enable-metrics"]
        );
    }

    #[test]
    fn vector_08_space_separated_values_inside_multi_line() {
        assert_eq!(
            merged(
                &["python3 -m server \\\n--tp-size 4 \\\n--port 8080"],
                &["--tp-size 8", "--host 0.0.0.0"]
            ),
            ["python3 -m server \\\n--tp-size 8 \\\n--port 8080 \\\n--host 0.0.0.0"]
        );
    }

    #[test]
    fn vector_09_nil_empty_and_trimmed_overrides() {
        assert_eq!(merge_args(None, &[]), None);
        assert_eq!(merge_args(Some(&[]), &[]), Some(vec![]));
        assert_eq!(
            merged(&["python3 -m server \\\n--port=8080"], &["  --tp-size=4  "]),
            ["python3 -m server \\\n--port=8080 \\\n--tp-size=4"]
        );
    }

    #[test]
    fn empty_args_take_the_overrides_as_written() {
        assert_eq!(
            merge_args(None, &strings(&[" --x "])),
            Some(strings(&[" --x "]))
        );
        assert_eq!(
            merge_args(Some(&[]), &strings(&["--x"])),
            Some(strings(&["--x"]))
        );
    }

    #[test]
    fn an_empty_override_leaves_args_untouched() {
        let args = strings(&["  --a  ", "--a"]);
        assert_eq!(merge_args(Some(&args), &[]), Some(args));
    }

    #[test]
    fn nothing_left_after_normalising_is_nil() {
        assert_eq!(merge_args(Some(&strings(&["  "])), &strings(&[" "])), None);
    }

    #[test]
    fn a_negative_number_after_a_flag_is_its_own_group() {
        assert_eq!(merged(&["--x", "-1"], &["--x=2"]), ["--x=2", "-1"]);
    }

    #[test]
    fn a_command_word_takes_the_next_word_as_its_value() {
        // OME pairs any token without `=` with a following token that is not a flag.
        assert_eq!(
            merged(&["serve", "model-a", "--port", "1"], &["serve", "model-b"]),
            ["serve", "model-b", "--port", "1"]
        );
    }

    #[test]
    fn list_elements_with_a_backslash_are_split_too() {
        assert_eq!(
            merged(&["--a=1", "--b=2 \\\n--c=3"], &["--c=4"]),
            ["--a=1", "--b=2", "--c=4"]
        );
    }

    #[test]
    fn vector_10_multi_line_space_form_becomes_equals_form() {
        let mut args = strings(&["python3 -m server \\\n--tp-size 4 \\\n--port 8080"]);
        assert!(override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(args, ["python3 -m server \\\n--tp-size=8 \\\n--port 8080"]);
    }

    #[test]
    fn vector_11_list_form_value_is_replaced() {
        let mut args = strings(&["--tp-size", "4", "--port", "8080"]);
        assert!(override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(args, ["--tp-size", "8", "--port", "8080"]);

        let mut args = strings(&["--port=8080", "--host=0.0.0.0"]);
        assert!(!override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(args, ["--port=8080", "--host=0.0.0.0"]);
    }

    #[test]
    fn vector_12_command_is_rewritten_as_a_list() {
        let mut command = strings(&["python3", "-m", "server", "--tp-size=4"]);
        assert!(override_command_param(&mut command, "--tp-size", 8));
        assert_eq!(command, ["python3", "-m", "server", "--tp-size=8"]);

        let mut command = strings(&["python3", "-m", "server"]);
        assert!(!override_command_param(&mut command, "--tp-size", 8));
        assert_eq!(command, ["python3", "-m", "server"]);
    }

    #[test]
    fn vector_13_key_last_without_value_is_not_found() {
        let mut args = strings(&["--port=8080", "--tp-size"]);
        assert!(!override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(args, ["--port=8080", "--tp-size"]);
    }

    #[test]
    fn vector_14_multi_line_keys_do_not_match_longer_flags() {
        let text = "python3 -m sglang.launch_server \\\n--tp=4 \\\n--tp-size=2";
        let mut args = strings(&[text]);
        assert!(override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(
            args,
            ["python3 -m sglang.launch_server \\\n--tp=4 \\\n--tp-size=8"]
        );

        let mut args = strings(&[text]);
        assert!(override_arg_param(&mut args, "--tp", 8));
        assert_eq!(
            args,
            ["python3 -m sglang.launch_server \\\n--tp=8 \\\n--tp-size=2"]
        );
    }

    #[test]
    fn multi_line_rewrites_every_numeric_occurrence_only() {
        let mut args = strings(&["run \\\n--tp-size=2 \\\n--tp-size auto \\\n--tp-size\t16x"]);
        assert!(override_arg_param(&mut args, "--tp-size", 4));
        assert_eq!(
            args,
            ["run \\\n--tp-size=4 \\\n--tp-size auto \\\n--tp-size=4x"]
        );

        let mut args = strings(&["run \\\n--tp-size=auto"]);
        assert!(!override_arg_param(&mut args, "--tp-size", 4));
        assert_eq!(args, ["run \\\n--tp-size=auto"]);
    }

    #[test]
    fn vector_15_only_the_first_list_occurrence_changes() {
        let mut args = strings(&["--tp-size=2", "--tp-size=3"]);
        assert!(override_arg_param(&mut args, "--tp-size", 8));
        assert_eq!(args, ["--tp-size=8", "--tp-size=3"]);
    }

    #[test]
    fn vector_16_a_pair_becomes_the_equals_form() {
        assert_eq!(
            merged(
                &["--model-path", "$(MODEL_PATH)", "--tp-size", "1"],
                &["--tp-size=4"]
            ),
            ["--model-path", "$(MODEL_PATH)", "--tp-size=4"]
        );
    }

    #[test]
    fn vector_17_duplicate_keys_collapse_to_the_last_group() {
        let args = ["--lora", "a", "--lora", "b", "--port=8080"];
        assert_eq!(
            merged(&args, &["--x"]),
            ["--lora", "b", "--port=8080", "--x"]
        );
        assert_eq!(merge_args(Some(&strings(&args)), &[]), Some(strings(&args)));
    }

    #[test]
    fn vector_18_docs_l40s_example_rewrites_in_place() {
        let mut args = merge_args(
            Some(&strings(&[
                "--host=0.0.0.0",
                "--port=8080",
                "--model-path=$(MODEL_PATH)",
                "--tp-size=8",
                "--pp-size=1",
                "--mem-frac=0.9",
            ])),
            &strings(&["--mem-frac=0.85"]),
        )
        .expect("merged args");
        let outcome = apply_parallelism(&mut args, &mut [], Some(4), Some(2));
        assert_eq!(
            args,
            [
                "--host=0.0.0.0",
                "--port=8080",
                "--model-path=$(MODEL_PATH)",
                "--tp-size=4",
                "--pp-size=2",
                "--mem-frac=0.85"
            ]
        );
        assert_eq!(
            outcome.tensor,
            ParallelismRewrite::Rewritten {
                flag: "--tp-size",
                in_command: false
            }
        );
        assert_eq!(
            outcome.pipeline,
            ParallelismRewrite::Rewritten {
                flag: "--pp-size",
                in_command: false
            }
        );
    }

    #[test]
    fn parallelism_searches_all_of_args_before_command() {
        let mut args = strings(&["--tensor-parallel-size", "2"]);
        let mut command = strings(&["python3", "-m", "sglang.launch_server", "--tp-size=1"]);
        let outcome = apply_parallelism(&mut args, &mut command, Some(8), None);
        assert_eq!(args, ["--tensor-parallel-size", "8"]);
        assert_eq!(command[3], "--tp-size=1");
        assert_eq!(
            outcome.tensor,
            ParallelismRewrite::Rewritten {
                flag: "--tensor-parallel-size",
                in_command: false
            }
        );
        assert_eq!(outcome.pipeline, ParallelismRewrite::NotRequested);
    }

    #[test]
    fn parallelism_falls_back_to_command_and_never_adds_a_flag() {
        let mut args = strings(&["--port=8080"]);
        let mut command = strings(&["python3", "--pp", "1"]);
        let outcome = apply_parallelism(&mut args, &mut command, Some(4), Some(2));
        assert_eq!(outcome.tensor, ParallelismRewrite::NotFound);
        assert_eq!(
            outcome.pipeline,
            ParallelismRewrite::Rewritten {
                flag: "--pp",
                in_command: true
            }
        );
        assert_eq!(args, ["--port=8080"]);
        assert_eq!(command, ["python3", "--pp", "2"]);
    }

    #[test]
    fn sizes_that_are_not_positive_change_nothing() {
        let mut args = strings(&["--tp-size=2", "--pp-size=2"]);
        let outcome = apply_parallelism(&mut args, &mut [], Some(0), Some(-1));
        assert_eq!(outcome.tensor, ParallelismRewrite::NotRequested);
        assert_eq!(outcome.pipeline, ParallelismRewrite::NotRequested);
        assert_eq!(args, ["--tp-size=2", "--pp-size=2"]);
    }

    #[test]
    fn odd_keys_and_text_never_panic() {
        let mut args = strings(&["é \\\n=1 ü\u{a0}2"]);
        assert!(override_arg_param(&mut args, "", 3));
        assert_eq!(args, ["é \\\n=3 ü\u{a0}2"]);
        let mut empty: Vec<String> = Vec::new();
        assert!(!override_arg_param(&mut empty, "--tp", 1));
    }
}
