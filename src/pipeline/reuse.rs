//! `diff`'s second side without rendering again what cannot have changed: an
//! InferenceService whose file, resolution and every resolved input are the same bytes at
//! the same place on both sides, with equal settings, takes the base's objects and render
//! diagnostics instead of being rendered (SEMANTICS.md#diff-reuse). Rendering reads only the
//! InferenceService, its resolution and the settings, so the result is the one a render
//! would give, byte for byte.

use crate::diagnostics::Diagnostic;
use crate::diff::normalise::FxBuild;
use crate::k8s::id::ObjectId;
use crate::model::Settings;
use crate::rendered::Rendered;
use crate::select::resolve::{Resolution, ResolvedIsvc};
use crate::source::Sources;
use crate::yaml::Pos;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;

/// A file's bytes, hashed ([`crate::source::SourceFile::digest`]).
type FileDigest = Option<[u8; 32]>;

/// What one InferenceService's objects were rendered from: its resolution, where it is
/// written, and the fingerprint and file of each resolved input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    resolved: ResolvedIsvc,
    isvc: Pos,
    inputs: Vec<(u64, u32)>,
}

impl Key {
    /// The files the objects were rendered from.
    fn files(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.isvc.file).chain(self.inputs.iter().map(|&(_, f)| f))
    }
}

/// One side's inputs as reuse compares them: each consumed input's fingerprint and file,
/// the files that hold no object (settings, lock: they must not differ at all) and every
/// file's digest.
#[derive(Debug, Default)]
pub(crate) struct Inputs {
    /// Each consumed input's fingerprint and file, looked up for every input of every
    /// InferenceService (hashed: a B-tree's string comparisons measured 4% of a `diff`).
    pub(crate) consumed: HashMap<ObjectId, (u64, u32), FxBuild>,
    /// Files of the input holding no catalogued object, with their digests.
    pub(crate) other_files: Vec<(u32, FileDigest)>,
    pub(crate) digests: Vec<FileDigest>,
}

impl Inputs {
    /// `object_files`: the files holding an object of the catalog.
    pub(crate) fn new(
        sources: &Sources,
        consumed: HashMap<ObjectId, (u64, u32), FxBuild>,
        object_files: &BTreeSet<u32>,
    ) -> Inputs {
        let digests: Vec<FileDigest> = (0..sources.len())
            .into_par_iter()
            .map(|i| {
                sources
                    .get(u32::try_from(i).unwrap_or(u32::MAX))
                    .and_then(|f| f.digest())
            })
            .collect();
        let other_files = (0..digests.len())
            .filter_map(|i| {
                let i = u32::try_from(i).ok()?;
                (!object_files.contains(&i)).then(|| (i, digests[i as usize]))
            })
            .collect();
        Inputs {
            consumed,
            other_files,
            digests,
        }
    }

    /// The key of an InferenceService's objects, when they can be reused at all (no overlay,
    /// both accelerators resolved, every input catalogued).
    pub(crate) fn key(
        &self,
        resolution: &Resolution<'_>,
        summary: &ResolvedIsvc,
        isvc: Pos,
    ) -> Option<Key> {
        if !resolution.overlays.is_empty()
            || [crate::model::Role::Engine, crate::model::Role::Decoder]
                .into_iter()
                .any(|r| resolution.accelerator(r).is_err())
        {
            return None;
        }
        let ids = std::iter::once(&summary.runtime)
            .chain(&summary.parents)
            .chain(&summary.revision)
            .chain(&summary.model)
            .chain(summary.classes.iter().map(|(_, c)| c));
        let mut inputs = Vec::new();
        for id in ids {
            inputs.push(*self.consumed.get(id)?);
        }
        Some(Key {
            resolved: summary.clone(),
            isvc,
            inputs,
        })
    }
}

/// The base side's objects of each InferenceService, for the head to reuse.
#[derive(Debug, Default)]
pub(crate) struct Reuse {
    objects: Vec<Rendered>,
    records: HashMap<ObjectId, Record, FxBuild>,
    settings: Option<Settings>,
    inputs: Inputs,
}

/// One InferenceService's objects (a range of the base's list) and render diagnostics.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub(crate) key: Key,
    pub(crate) objects: Range<usize>,
    pub(crate) diags: Vec<Diagnostic>,
}

/// What the pipeline hands `diff` of the base side for [`Reuse`].
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    pub(crate) records: Vec<(ObjectId, Record)>,
    pub(crate) inputs: Inputs,
}

impl Reuse {
    /// The base's rendering, its objects moved in (given back by [`Reuse::into_objects`]).
    pub(crate) fn new(objects: Vec<Rendered>, settings: Settings, recorded: Recorded) -> Reuse {
        Reuse {
            objects,
            records: recorded.records.into_iter().collect(),
            settings: Some(settings),
            inputs: recorded.inputs,
        }
    }

    /// The base's objects back, once the head has rendered (copied if the head still holds
    /// the reuse, which a finished run does not).
    pub(crate) fn into_objects(reuse: Arc<Reuse>) -> Vec<Rendered> {
        match Arc::try_unwrap(reuse) {
            Ok(reuse) => reuse.objects,
            Err(shared) => shared.objects.clone(),
        }
    }

    /// Whether the head may reuse anything at all: equal settings, and the files holding no
    /// object equal on both sides.
    pub(crate) fn applies(&self, settings: &Settings, head: &Inputs) -> bool {
        self.settings.as_ref() == Some(settings) && self.inputs.other_files == head.other_files
    }

    /// The base's objects and render diagnostics of `isvc` when `key` (the head's) is the
    /// base's and every file it names is the same bytes on both sides.
    pub(crate) fn lookup(
        &self,
        isvc: &ObjectId,
        key: &Key,
        head: &Inputs,
    ) -> Option<(Vec<Rendered>, Vec<Diagnostic>)> {
        let record = self.records.get(isvc)?;
        if &record.key != key {
            return None;
        }
        let same = |f: u32| {
            let base = self.inputs.digests.get(f as usize).copied().flatten();
            let head = head.digests.get(f as usize).copied().flatten();
            base.is_some() && base == head
        };
        if !key.files().all(same) {
            return None;
        }
        let objects = self.objects.get(record.objects.clone())?.to_vec();
        Some((objects, record.diags.clone()))
    }
}
