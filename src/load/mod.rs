//! Loading: find the input files, read them, and parse every document into an [`Object`]
//! that remembers where it came from. The only module that reads files.
//!
//! Files are read and parsed in parallel; the result keeps the walk order (paths in the
//! order given, directory entries sorted by name), so everything after it is deterministic.

#![expect(
    clippy::disallowed_methods,
    reason = "the loader is the one module that reads files"
)]

mod discover;
pub(crate) mod limits;
mod objects;

pub(crate) use discover::{Input, LoadOptions};
pub(crate) use limits::{Limits, raise_help};
pub(crate) use objects::{Object, SETTINGS_FILE};

use crate::diagnostics::{Code, Diagnostic};
use crate::source::Sources;
use crate::yaml::parse::{AliasBudget, limit_names};
use crate::yaml::{Node, Pos};
use rayon::prelude::*;
use std::io::Read as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub(crate) sources: Sources,
    /// Every Kubernetes object, in input order.
    pub(crate) objects: Vec<Object>,
    /// The renderer settings file (`ome-render.yaml` at the root of a path), if any.
    pub(crate) settings: Option<Node>,
    pub(crate) diags: Vec<Diagnostic>,
}

/// A failure to read the inputs at all: a missing path, an unreadable file, a bad glob.
/// The run stops with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadError(pub(crate) String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The start of a file, where diagnostics about the file as a whole point.
fn file_start(file: u32) -> Pos {
    Pos {
        file,
        line: 1,
        col: 0,
    }
}

/// An input over a limit of bytes: the file is named, not read.
fn bytes_limit(file: u32, message: String, limit: &str) -> Diagnostic {
    Diagnostic::error(Code::Limit, format!("{message} (limit `{limit}`)"))
        .at(file_start(file))
        .help(raise_help(limit))
}

/// One input after the parallel read: its bytes, or why they were not read.
enum Read {
    /// Standard input, read before.
    Stdin,
    Bytes(Vec<u8>),
    /// The file's size passes `file-bytes`.
    TooLarge,
    /// Not read yet: the files read so far (in whatever order the threads took them) may have
    /// spent the `total-bytes` budget. Read afterwards if the files before it leave room.
    Deferred(std::fs::File, u64),
    Failed(String),
}

/// Opens a file named by the walk or the command line, refusing anything that is not a
/// regular file by the time it is opened, and returns it with its size.
fn open_regular(path: &std::path::Path) -> Result<(std::fs::File, u64), String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    Ok((file, meta.len()))
}

/// Reads at most `max + 1` bytes of `file`, `size` long when it was measured.
fn read_all(file: std::fs::File, size: u64, max: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(max)).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Reads and parses everything `options` names. `stdin(max)` supplies at most `max` bytes of
/// `-`.
///
/// The byte limits are checked in input order (SEMANTICS.md#limits): a file past
/// `file-bytes` is named and not read; the file that takes the inputs past `total-bytes` is
/// named, and neither it nor the files after it are read. Files are read in parallel; a
/// shared count of the bytes taken keeps the threads from reading past the budget, and a file
/// they set aside is read afterwards when the files before it leave room, so what is read
/// and reported never depends on the threads.
pub(crate) fn load(
    options: &LoadOptions,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Loaded, LoadError> {
    let limits = &options.limits;
    let (inputs, mut diags) = discover::discover(options)?;
    let mut stdin_bytes = if inputs.iter().any(|i| i.path.is_none()) {
        Some(
            stdin(limits.file_bytes.saturating_add(1))
                .map_err(|e| LoadError(format!("cannot read standard input: {e}")))?,
        )
    } else {
        None
    };

    let mut sources = Sources::new();
    let inputs: Vec<(u32, Input)> = inputs
        .into_iter()
        .map(|input| (sources.add(input.display.clone(), Arc::from("")), input))
        .collect();
    let taken = AtomicU64::new(stdin_bytes.as_ref().map_or(0, |b| b.len() as u64));
    let read: Vec<(u32, Input, Read)> = inputs
        .into_par_iter()
        .map(|(id, input)| {
            let read = match &input.path {
                None => Read::Stdin,
                Some(p) => match open_regular(p) {
                    Err(e) => Read::Failed(e),
                    Ok((_, size)) if size > limits.file_bytes => Read::TooLarge,
                    Ok((file, size)) => {
                        let before = taken.fetch_add(size, Ordering::Relaxed);
                        if before.saturating_add(size) > limits.total_bytes {
                            Read::Deferred(file, size)
                        } else {
                            match read_all(file, size, limits.file_bytes) {
                                Ok(bytes) => Read::Bytes(bytes),
                                Err(e) => Read::Failed(e),
                            }
                        }
                    }
                },
            };
            (id, input, read)
        })
        .collect();

    // In input order: the byte limits, as if the files were read one after the other.
    let too_large = |id| {
        bytes_limit(
            id,
            format!("the file holds more than {} bytes", limits.file_bytes),
            "file-bytes",
        )
    };
    let mut files = Vec::with_capacity(read.len());
    let mut total: u64 = 0;
    for (id, input, read) in read {
        // The size the input counts for, and its bytes if a thread read them.
        let (size, bytes) = match read {
            Read::Stdin => {
                let bytes = stdin_bytes.take().unwrap_or_default();
                (bytes.len() as u64, Ok(bytes))
            }
            Read::Bytes(bytes) => (bytes.len() as u64, Ok(bytes)),
            Read::Deferred(file, size) => (size, Err(file)),
            Read::TooLarge => {
                diags.push(too_large(id));
                continue;
            }
            Read::Failed(e) => {
                return Err(LoadError(format!("cannot read {}: {e}", input.display)));
            }
        };
        if size > limits.file_bytes {
            // Standard input, or a file that grew since it was measured.
            diags.push(too_large(id));
            continue;
        }
        if total.saturating_add(size) > limits.total_bytes {
            diags.push(bytes_limit(
                id,
                format!(
                    "the inputs hold more than {} bytes together; this file and the ones after it were not read",
                    limits.total_bytes
                ),
                "total-bytes",
            ));
            break;
        }
        total += size;
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(file) => read_all(file, size, limits.file_bytes)
                .map_err(|e| LoadError(format!("cannot read {}: {e}", input.display)))?,
        };
        if bytes.len() as u64 > limits.file_bytes {
            diags.push(too_large(id));
            continue;
        }
        match String::from_utf8(bytes) {
            Ok(text) => {
                let text: Arc<str> = Arc::from(text);
                sources.set_text(id, text.clone());
                files.push((id, input, text));
            }
            Err(_) => {
                diags.push(
                    Diagnostic::error(
                        Code::NotUtf8,
                        format!("{} is not UTF-8 text", input.display),
                    )
                    .at(file_start(id))
                    .help("save the file as UTF-8"),
                );
            }
        }
    }

    Ok(parse_files(sources, files, diags, limits))
}

/// Loads files given as text (path, text): the same parsing, without touching the file
/// system.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn from_texts(files: &[(&str, &str)], limits: &Limits) -> Loaded {
    let mut sources = Sources::new();
    let inputs = files
        .iter()
        .map(|(path, text)| {
            let text: Arc<str> = Arc::from(*text);
            let id = sources.add((*path).to_string(), text.clone());
            let input = Input {
                path: None,
                display: (*path).to_string(),
                is_settings: *path == SETTINGS_FILE,
            };
            (id, input, text)
        })
        .collect();
    parse_files(sources, inputs, Vec::new(), limits)
}

fn parse_files(
    sources: Sources,
    files: Vec<(u32, Input, Arc<str>)>,
    diags: Vec<Diagnostic>,
    limits: &Limits,
) -> Loaded {
    let parse_limits = limits.parse();
    let budget = limits.alias_budget();
    let read = |(id, input, text): &(u32, Input, Arc<str>), budget: &AliasBudget| {
        objects::read_file(*id, input, text, &parse_limits, budget)
    };
    let mut parsed: Vec<objects::FileObjects> =
        files.par_iter().map(|f| read(f, &budget)).collect();
    let total_limits = [
        limit_names::ALIAS_NODES_TOTAL,
        limit_names::ALIAS_BYTES_TOTAL,
    ];
    if parsed
        .iter()
        .any(|f| f.limit.is_some_and(|l| total_limits.contains(&l)))
    {
        // Which file ran out of the run's alias budget depends on thread timing: parse
        // again, one file after the other, so the same file is blamed every time.
        let budget = limits.alias_budget();
        parsed = files.iter().map(|f| read(f, &budget)).collect();
    }
    let mut loaded = Loaded {
        sources,
        diags,
        ..Loaded::default()
    };
    let mut documents: usize = 0;
    let mut documents_exceeded = false;
    for file in parsed {
        documents_exceeded |= file.limit == Some(limit_names::DOCUMENTS);
        if !documents_exceeded && documents.saturating_add(file.documents.len()) > limits.documents
        {
            documents_exceeded = true;
            let over = file.documents[limits.documents - documents];
            loaded.diags.push(
                Diagnostic::error(
                    Code::Limit,
                    format!(
                        "the inputs hold more than {} documents together (limit `{}`)",
                        limits.documents,
                        limit_names::DOCUMENTS
                    ),
                )
                .at(over)
                .help(raise_help(limit_names::DOCUMENTS)),
            );
        }
        documents = documents.saturating_add(file.documents.len());
        loaded.objects.extend(file.objects);
        loaded.diags.extend(file.diags);
        if let Some(settings) = file.settings {
            loaded.settings = Some(settings);
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::limit_names;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ome-render-load-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn limit_diags(loaded: &Loaded) -> Vec<(String, u32, String)> {
        loaded
            .diags
            .iter()
            .filter(|d| d.code == Code::Limit)
            .map(|d| {
                let pos = d.pos.unwrap();
                (
                    loaded
                        .sources
                        .path(pos)
                        .unwrap()
                        .rsplit('/')
                        .next()
                        .unwrap()
                        .to_string(),
                    pos.line,
                    d.message.clone(),
                )
            })
            .collect()
    }

    fn no_stdin(_: u64) -> std::io::Result<Vec<u8>> {
        Ok(Vec::new())
    }

    #[test]
    fn files_over_the_byte_limits_are_named_and_not_read() {
        let dir = scratch("bytes");
        std::fs::write(dir.join("a.yaml"), "a: 1\n".repeat(20)).unwrap();
        std::fs::write(dir.join("b.yaml"), "b: 1\n".repeat(50)).unwrap();
        std::fs::write(dir.join("c.yaml"), "c: 1\n".repeat(20)).unwrap();
        std::fs::write(dir.join("d.yaml"), "d: 1\n".repeat(8)).unwrap();
        let mut options = LoadOptions {
            paths: vec![dir.clone()],
            ..LoadOptions::default()
        };
        options.limits.file_bytes = 200;
        options.limits.total_bytes = 230;
        // Threads take the files in any order; the outcome is that of reading them in order.
        for _ in 0..20 {
            let loaded = load(&options, &mut no_stdin).unwrap();
            assert_eq!(
                limit_diags(&loaded),
                limit_diags(&load(&options, &mut no_stdin).unwrap())
            );
            let read: Vec<&str> = loaded.objects.iter().map(|o| o.name.as_str()).collect();
            assert!(read.is_empty(), "no objects in these files: {read:?}");
            let texts: Vec<bool> = (0..4)
                .map(|f| !loaded.sources.get(f).unwrap().text.is_empty())
                .collect();
            assert_eq!(
                texts,
                [true, false, true, false],
                "a and c are read, b and d not"
            );
        }
        let loaded = load(&options, &mut no_stdin).unwrap();
        let found = limit_diags(&loaded);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "b.yaml");
        assert!(
            found[0]
                .2
                .contains("more than 200 bytes (limit `file-bytes`)"),
            "{found:?}"
        );
        // a (100 bytes) and c (100) fit; d would pass 230 only with b, which was not read.
        assert_eq!(found[1].0, "d.yaml");
        assert!(found[1].2.contains("limit `total-bytes`"), "{found:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn standard_input_counts_like_a_file() {
        let options = LoadOptions {
            paths: vec!["-".into()],
            limits: Limits {
                file_bytes: 10,
                ..Limits::default()
            },
            ..LoadOptions::default()
        };
        let mut asked = 0;
        let mut stdin = |max: u64| {
            asked = max;
            Ok(b"a: 1\nb: 2\nc: 3\n".to_vec())
        };
        let loaded = load(&options, &mut stdin).unwrap();
        assert_eq!(
            asked, 11,
            "reads one byte past the limit to know it is passed"
        );
        assert_eq!(limit_diags(&loaded)[0].0, "<stdin>");
        let mut bad = |_: u64| Ok(b"a: \xff\n".to_vec());
        let options = LoadOptions {
            paths: vec!["-".into()],
            ..LoadOptions::default()
        };
        let loaded = load(&options, &mut bad).unwrap();
        assert_eq!(loaded.diags[0].code, Code::NotUtf8);
    }

    /// Files of small alias bombs: each document copies 1 + 10 + 100 nodes.
    fn bombs(files: usize, docs: usize) -> Vec<(String, String)> {
        let doc = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n---\n";
        (0..files)
            .map(|i| (format!("f{i:02}.yaml"), doc.repeat(docs)))
            .collect()
    }

    #[test]
    fn the_run_alias_budget_blames_the_same_file_every_time() {
        let files = bombs(16, 10);
        let texts: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let limits = Limits {
            alias_nodes_total: 7 * 10 * 121 + 50,
            ..Limits::default()
        };
        for _ in 0..20 {
            let loaded = from_texts(&texts, &limits);
            let found = limit_diags(&loaded);
            // Files 0 to 6 fit; file 7 passes the budget in its first document; every file
            // after it fails too (the budget is spent).
            assert_eq!(found[0].0, "f07.yaml", "{found:?}");
            assert_eq!(found[0].1, 2);
            assert!(
                found[0].2.contains(limit_names::ALIAS_NODES_TOTAL),
                "{found:?}"
            );
            assert_eq!(found.len(), 9, "{found:?}");
        }
    }

    #[test]
    fn documents_are_counted_across_files() {
        let files = [
            ("a.yaml", "a: 1\n---\nb: 2\n"),
            ("b.yaml", "c: 3\n---\n---\nd: 4\n"),
        ];
        let limits = Limits {
            documents: 3,
            ..Limits::default()
        };
        let loaded = from_texts(&files, &limits);
        let found = limit_diags(&loaded);
        assert_eq!(
            found,
            vec![(
                "b.yaml".to_string(),
                4,
                "the inputs hold more than 3 documents together (limit `documents`)".to_string()
            )]
        );
    }
}
