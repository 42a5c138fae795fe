//! `--include` and `--exclude` patterns, read as `.gitignore` lines are (SEMANTICS.md#inputs):
//! a pattern without a `/` but at its end matches a file or directory of that name at any
//! depth; a trailing `/` matches directories only; a pattern with a `/` at its start or in
//! its middle is anchored at the directory given (a leading `/` is dropped) and matches a
//! path from there, or, as before, the file's full path as shown; `*` and `?` stay within
//! one path segment and `**` crosses them. A file inside a matched directory is matched.
//!
//! The walk stays the loader's own (sorted, links never followed, bounded): the patterns
//! only choose among the files it found, and remember which of them matched anything.

use super::LoadError;
use globset::{GlobBuilder, GlobMatcher};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// One pattern, compiled.
#[derive(Debug)]
struct Pattern {
    /// As written, for the warning that names it.
    text: String,
    /// Written with a trailing `/`: matches directories only.
    dir_only: bool,
    /// Written with a `/` before its end: matched against paths from the directory given.
    anchored: bool,
    /// Written with a leading `/` (dropped from `glob`): an absolute full path, as shown,
    /// matches it too.
    rooted: bool,
    glob: GlobMatcher,
    /// Whether it matched a walked file of any path.
    matched: AtomicBool,
}

/// The patterns of one flag.
#[derive(Debug, Default)]
pub(super) struct Patterns {
    patterns: Vec<Pattern>,
}

impl Patterns {
    /// Compiles `texts` (`flag` names them in errors).
    pub(super) fn new(texts: &[String], flag: &str) -> Result<Patterns, LoadError> {
        let patterns = texts
            .iter()
            .map(|text| {
                let trimmed = text.strip_suffix('/').unwrap_or(text);
                let dir_only = trimmed.len() != text.len();
                let anchored = trimmed.contains('/');
                let body = trimmed.strip_prefix('/').unwrap_or(trimmed);
                if body.is_empty() {
                    return Err(LoadError(format!(
                        "invalid {flag} pattern `{text}`: it names no file or directory"
                    )));
                }
                let glob = GlobBuilder::new(body)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| LoadError(format!("invalid {flag} pattern `{text}`: {e}")))?
                    .compile_matcher();
                Ok(Pattern {
                    text: text.clone(),
                    dir_only,
                    anchored,
                    rooted: trimmed.starts_with('/'),
                    glob,
                    matched: AtomicBool::new(false),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Patterns { patterns })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether any pattern matches the walked file `rel` (relative to the directory given;
    /// `full` as shown). Every pattern is tried, so each learns whether it matched.
    pub(super) fn matches(&self, rel: &Path, full: &Path) -> bool {
        let mut any = false;
        for p in &self.patterns {
            if p.matches(rel, full) {
                p.matched.store(true, Ordering::Relaxed);
                any = true;
            }
        }
        any
    }

    /// The patterns that matched no walked file so far, as written.
    pub(super) fn unmatched(&self) -> impl Iterator<Item = &str> {
        self.patterns
            .iter()
            .filter(|p| !p.matched.load(Ordering::Relaxed))
            .map(|p| p.text.as_str())
    }
}

impl Pattern {
    fn matches(&self, rel: &Path, full: &Path) -> bool {
        let segments: Vec<&std::ffi::OsStr> = rel.iter().collect();
        let Some(last) = segments.len().checked_sub(1) else {
            return false;
        };
        // The directories above the file, then the file itself (unless directories only).
        let upto = if self.dir_only { last } else { last + 1 };
        if self.anchored {
            let mut prefix = std::path::PathBuf::new();
            for segment in &segments[..upto] {
                prefix.push(segment);
                if self.glob.is_match(&prefix) {
                    return true;
                }
            }
            // The glob has no leading `/`: an absolute full path is matched without its own.
            let full = if self.rooted {
                full.strip_prefix("/").unwrap_or(full)
            } else {
                full
            };
            !self.dir_only && self.glob.is_match(full)
        } else {
            segments[..upto]
                .iter()
                .any(|segment| self.glob.is_match(Path::new(segment)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(pattern: &str, rel: &str) -> bool {
        let p = Patterns::new(&[pattern.to_string()], "--exclude").unwrap();
        p.matches(Path::new(rel), &Path::new("root").join(rel))
    }

    #[test]
    fn gitignore_rules() {
        // A bare name: a directory or a file at any depth.
        assert!(hit("drafts", "drafts/a.yaml"));
        assert!(hit("drafts", "team/drafts/old/a.yaml"));
        assert!(hit("drafts", "team/drafts"));
        assert!(!hit("drafts", "team/drafts-2/a.yaml"));
        // `dir/`: directories only.
        assert!(hit("drafts/", "team/drafts/a.yaml"));
        assert!(!hit("drafts/", "team/drafts"));
        // Globs stay within a segment, at any depth when unanchored.
        assert!(hit("*.json", "a/b/c.json"));
        assert!(!hit("*.json", "a/b/c.yaml"));
        // Anchored: from the directory given.
        assert!(hit("team/drafts", "team/drafts/a.yaml"));
        assert!(!hit("team/drafts", "x/team/drafts/a.yaml"));
        assert!(hit("/isvc.yaml", "isvc.yaml"));
        assert!(!hit("/isvc.yaml", "sub/isvc.yaml"));
        assert!(hit("drafts/*", "drafts/a.yaml"));
        assert!(hit("drafts/*", "drafts/deep/a.yaml"));
        assert!(!hit("a/*.yaml", "a/b/c.yaml"));
        assert!(hit("a/**/c.yaml", "a/b/d/c.yaml"));
        assert!(hit("**/c.yaml", "c.yaml"));
        // The full path as shown still matches an anchored pattern.
        assert!(hit("root/sub/*.yaml", "sub/x.yaml"));
    }

    /// A diagnostic shows a file of an absolute path as `/abs/dir/sub/x.yaml`; that text,
    /// given to `--exclude`, excludes the file (`..` in it kept as shown).
    #[test]
    fn an_absolute_full_path_as_shown_matches() {
        let p = Patterns::new(&["/abs/../dir/sub/x.yaml".to_string()], "--exclude").unwrap();
        assert!(p.matches(Path::new("sub/x.yaml"), Path::new("/abs/../dir/sub/x.yaml")));
        assert!(!p.matches(Path::new("sub/y.yaml"), Path::new("/abs/../dir/sub/y.yaml")));
        // A rooted pattern is still anchored at the directory given, not at `/`.
        let p = Patterns::new(&["/x.yaml".to_string()], "--exclude").unwrap();
        assert!(!p.matches(Path::new("sub/x.yaml"), Path::new("/x.yaml/sub/x.yaml")));
    }

    #[test]
    fn unmatched_patterns_are_named() {
        let p = Patterns::new(&["drafts".to_string(), "*.yaml".to_string()], "--exclude").unwrap();
        assert!(p.matches(Path::new("a.yaml"), Path::new("d/a.yaml")));
        assert_eq!(p.unmatched().collect::<Vec<_>>(), ["drafts"]);
        assert!(Patterns::new(&["/".to_string()], "--exclude").is_err());
    }
}
