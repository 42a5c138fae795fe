//! The loaded input files, kept whole so diagnostics can quote them.
//!
//! A [`Pos`](crate::yaml::Pos) names its file by index into [`Sources`].

use crate::yaml::Pos;
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct SourceFile {
    /// The path as the user wrote it (joined with the walked names), or `<stdin>`.
    pub(crate) path: String,
    pub(crate) text: Arc<str>,
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
        self.files.push(SourceFile { path, text });
        u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX)
    }

    pub(crate) fn len(&self) -> usize {
        self.files.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
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

/// The byte offset of a 1-based line and 0-based character column in `text`.
pub(crate) fn byte_offset(text: &str, line: u32, col: u32) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let within = l
                .char_indices()
                .nth(col as usize)
                .map_or(l.trim_end_matches(['\n', '\r']).len(), |(b, _)| b);
            return offset + within;
        }
        offset += l.len();
    }
    text.len()
}
