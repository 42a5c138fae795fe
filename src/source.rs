//! The loaded input files, for diagnostics to quote.
//!
//! A [`Pos`](crate::yaml::Pos) names its file by index into [`Sources`]. A render may
//! release the text of a file read from disk once it is parsed, and the loader reads it
//! again, unchanged or not at all, for the diagnostics that quote it
//! (SEMANTICS.md#source-texts).

use crate::yaml::Pos;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

#[derive(Debug)]
pub(crate) struct SourceFile {
    /// The path as the user wrote it (joined with the walked names), or `<stdin>`.
    pub(crate) path: String,
    text: Arc<str>,
    /// Set when the text was released: where to read it again.
    released: Option<Released>,
    /// Built the first time a diagnostic quotes the file.
    lines: OnceLock<LineIndex>,
    /// SHA-256 of its text, taken before the text is released when the loader is
    /// asked to ([`Sources::take_digests`]).
    digest: OnceLock<[u8; 32]>,
}

/// What a file was when it was read: it is read again only while it is still that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) len: u64,
    pub(crate) modified: Option<SystemTime>,
}

/// Where a released text is read again: its path, and the directory being rendered when it
/// was found there (it is then read again through the fence, as it was first read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReadFrom {
    pub(crate) path: PathBuf,
    pub(crate) beneath: Option<PathBuf>,
}

impl From<PathBuf> for ReadFrom {
    /// A file named on the command line: no fence.
    fn from(path: PathBuf) -> ReadFrom {
        ReadFrom {
            path,
            beneath: None,
        }
    }
}

#[derive(Debug)]
struct Released {
    from: ReadFrom,
    stamp: Stamp,
    /// The text read again (owned as read: no copy into an `Arc`), `None` inside when the
    /// file changed or could not be read.
    again: OnceLock<Option<String>>,
}

impl SourceFile {
    /// The file's text; `None` for a released text not read again, or read again and found
    /// changed.
    pub(crate) fn text(&self) -> Option<&str> {
        match &self.released {
            None => Some(&self.text),
            Some(r) => r.again.get()?.as_deref(),
        }
    }

    /// SHA-256 of its text as read; `None` for a text released before it was taken. `diff`
    /// reuses the base's objects of an InferenceService only where its files are these same
    /// bytes at the same place in the input (SEMANTICS.md#diff-reuse). The path is left out:
    /// the two sides of `diff BASE HEAD` are two directories, and nothing rendered names a
    /// file (a diagnostic names it by its place, which the head's sources show).
    pub(crate) fn digest(&self) -> Option<[u8; 32]> {
        use sha2::{Digest, Sha256};
        if let Some(d) = self.digest.get() {
            return Some(*d);
        }
        if self.released.is_some() {
            return None;
        }
        Some(
            *self
                .digest
                .get_or_init(|| Sha256::digest(self.text.as_bytes()).into()),
        )
    }

    /// Where the file's lines (and characters) start, when it has its text.
    pub(crate) fn lines(&self) -> Option<&LineIndex> {
        let text = self.text()?;
        Some(self.lines.get_or_init(|| LineIndex::new(text)))
    }
}

#[derive(Debug, Default)]
pub(crate) struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    pub(crate) fn new() -> Sources {
        Sources::default()
    }

    /// Adds a file and returns its index.
    pub(crate) fn add(&mut self, path: String, text: Arc<str>) -> u32 {
        self.files.push(SourceFile {
            path,
            text,
            released: None,
            lines: OnceLock::new(),
            digest: OnceLock::new(),
        });
        u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX)
    }

    pub(crate) fn len(&self) -> usize {
        self.files.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The bytes of every file, as read (a released text counts what it was).
    pub(crate) fn input_bytes(&self) -> u64 {
        self.files
            .iter()
            .map(|f| {
                f.released
                    .as_ref()
                    .map_or(f.text.len() as u64, |r| r.stamp.len)
            })
            .sum()
    }

    /// Replaces the text of a file added before it was read.
    pub(crate) fn set_text(&mut self, file: u32, text: Arc<str>) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.text = text;
            f.released = None;
            f.lines = OnceLock::new();
            f.digest = OnceLock::new();
        }
    }

    /// Takes the digest of every file whose text is at hand, in parallel, so that it
    /// outlives the text ([`SourceFile::digest`]).
    pub(crate) fn take_digests(&self) {
        use rayon::prelude::*;
        self.files.par_iter().for_each(|f| {
            f.digest();
        });
    }

    /// Frees the text of `file`, which was read from `from` as `stamp` describes: the
    /// loader reads it again for a diagnostic ([`Sources::to_read_again`]).
    pub(crate) fn release(&mut self, file: u32, from: ReadFrom, stamp: Stamp) {
        if let Some(f) = self.files.get_mut(file as usize) {
            f.text = Arc::from("");
            f.released = Some(Released {
                from,
                stamp,
                again: OnceLock::new(),
            });
            f.lines = OnceLock::new();
        }
    }

    /// Of `files`, the released ones not read again yet: each with where to read it and
    /// what it was.
    pub(crate) fn to_read_again(
        &self,
        files: impl IntoIterator<Item = u32>,
    ) -> Vec<(u32, &ReadFrom, Stamp)> {
        let mut wanted: Vec<(u32, &ReadFrom, Stamp)> = files
            .into_iter()
            .filter_map(|id| {
                let r = self.files.get(id as usize)?.released.as_ref()?;
                r.again.get().is_none().then_some((id, &r.from, r.stamp))
            })
            .collect();
        wanted.sort_by_key(|(id, _, _)| *id);
        wanted.dedup_by_key(|(id, _, _)| *id);
        wanted
    }

    /// The text of a released file, read again: `None` when it changed or could not be read.
    pub(crate) fn restore(&self, file: u32, text: Option<String>) {
        if let Some(r) = self
            .files
            .get(file as usize)
            .and_then(|f| f.released.as_ref())
        {
            let _ = r.again.set(text);
        }
    }

    pub(crate) fn get(&self, file: u32) -> Option<&SourceFile> {
        self.files.get(file as usize)
    }

    pub(crate) fn path(&self, pos: Pos) -> Option<&str> {
        self.get(pos.file).map(|f| f.path.as_str())
    }

    /// The file loaded from `path`, as it was displayed.
    pub(crate) fn by_path(&self, path: &str) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// Every this many characters, a file with non-ASCII text records the byte they start at.
const CHECKPOINT: usize = 1024;

/// Where each line of a file starts, so a diagnostic finds its line and column in constant
/// time however long the file or the line (SEMANTICS.md#limits). A file that is not all ASCII
/// also records the character index of each line and the byte offset of every
/// [`CHECKPOINT`]-th character, since columns count characters.
#[derive(Debug)]
pub(crate) struct LineIndex {
    /// Byte offset of each line's first byte; a text ending in a line break has an empty
    /// last line.
    starts: Vec<usize>,
    /// For non-ASCII text: the character index of each line's start, and checkpoints.
    chars: Option<(Vec<usize>, Vec<usize>)>,
    len: usize,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let chars = (!text.is_ascii()).then(|| {
            let mut line_chars = Vec::with_capacity(starts.len());
            let mut checkpoints = Vec::with_capacity(text.len() / CHECKPOINT + 1);
            let mut line = 0;
            for (n, (b, _)) in text.char_indices().enumerate() {
                if n % CHECKPOINT == 0 {
                    checkpoints.push(b);
                }
                while line < starts.len() && starts[line] <= b {
                    line_chars.push(n);
                    line += 1;
                }
            }
            let total = text.chars().count();
            while line_chars.len() < starts.len() {
                line_chars.push(total);
            }
            (line_chars, checkpoints)
        });
        LineIndex {
            starts,
            chars,
            len: text.len(),
        }
    }

    /// How many lines the text has.
    pub(crate) fn count(&self) -> usize {
        self.starts.len()
    }

    /// The byte range of 1-based `line`, without its line break (`\n` or `\r\n`).
    pub(crate) fn range(&self, text: &str, line: u32) -> Option<(usize, usize)> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        let mut end = self.starts.get(i + 1).map_or(self.len, |next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Some((start, end))
    }

    /// The byte offset in `text` of 0-based character `col` of 1-based `line`, clamped to
    /// the line's end; the end of the text for a line past it.
    pub(crate) fn offset(&self, text: &str, line: u32, col: u32) -> usize {
        let Some((start, end)) = self.range(text, line) else {
            return text.len();
        };
        let col = col as usize;
        let Some((line_chars, checkpoints)) = &self.chars else {
            return (start + col).min(end);
        };
        let i = line as usize - 1;
        let target = line_chars[i] + col;
        // Walk from the nearest checkpoint (or the line's start, if that is nearer).
        let k = target / CHECKPOINT;
        let (mut b, mut c) = match checkpoints.get(k) {
            // The checkpoint is past the line, so the column is too.
            Some(&cb) if cb > end => return end,
            Some(&cb) if k * CHECKPOINT >= line_chars[i] => (cb, k * CHECKPOINT),
            _ => (start, line_chars[i]),
        };
        for ch in text[b..end].chars() {
            if c == target {
                break;
            }
            b += ch.len_utf8();
            c += 1;
        }
        b.min(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offset the slow way: walk the lines and characters.
    fn walk(text: &str, line: u32, col: u32) -> usize {
        let mut offset = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                let body = l.trim_end_matches('\n').trim_end_matches('\r');
                return offset
                    + body
                        .char_indices()
                        .nth(col as usize)
                        .map_or(body.len(), |(b, _)| b);
            }
            offset += l.len();
        }
        if text.ends_with('\n') && line as usize == text.split_inclusive('\n').count() + 1 {
            return text.len();
        }
        text.len()
    }

    #[test]
    fn offsets_match_a_walk_over_ascii_and_wide_text() {
        let long: String = "é".repeat(3000) + "x: 1\n";
        let texts = [
            "a: 1\nbb: 2\n\nccc: 3".to_string(),
            "a: 1\r\nb: é\r\n".to_string(),
            format!("k: v\n{long}{long}tail"),
            "ü".repeat(5000),
        ];
        for text in &texts {
            let index = LineIndex::new(text);
            for line in 1..=index.count() as u32 + 1 {
                for col in [
                    0, 1, 2, 3, 1023, 1024, 1025, 2999, 3000, 3001, 4999, 5000, 9000,
                ] {
                    assert_eq!(
                        index.offset(text, line, col),
                        walk(text, line, col),
                        "line {line} col {col} of {:?}",
                        &text[..text.len().min(20)]
                    );
                }
            }
        }
    }
}
