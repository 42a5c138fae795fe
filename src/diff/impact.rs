//! Which change caused which InferenceService's objects to change (SEMANTICS.md#diff-impact).
//!
//! An OME resource (runtime, model, accelerator class) *changed* when it is on one side only
//! or its tree differs. An InferenceService whose rendered objects differ is attributed to
//! every changed resource it resolves to in the head, or in the base when it was removed (its
//! runtime and the runtimes that runtime inherits from, its model, each component's
//! accelerator class), to the settings
//! when they changed, to itself when it was edited, and to its runtime choice when that
//! changed. A resource *reaches* the InferenceServices attributed to it.

use super::normalise::FxBuild;
use super::{Cause, Change, Group, Side};
use crate::k8s::id::ObjectId;
use crate::select::resolve::ResolvedIsvc;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One changed OME resource and what it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResourceImpact {
    pub(crate) id: ObjectId,
    pub(crate) change: Change,
    /// The InferenceServices whose objects changed because of it, by namespace and name.
    pub(crate) reached: Vec<ObjectId>,
    /// How many InferenceServices resolve to it in the head (or, removed, in the base).
    pub(crate) users: usize,
}

/// An InferenceService whose runtime choice changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Choice {
    pub(crate) isvc: ObjectId,
    pub(crate) was: ObjectId,
    pub(crate) now: ObjectId,
    /// Whether auto-selection made the choice, on each side.
    pub(crate) was_auto: bool,
    pub(crate) now_auto: bool,
}

/// The impact section of a diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Impact {
    /// Each changed resource, those reaching the most InferenceServices first.
    pub(crate) resources: Vec<ResourceImpact>,
    /// When the settings changed: the InferenceServices that changed with them.
    pub(crate) settings: Option<Vec<ObjectId>>,
    pub(crate) choices: Vec<Choice>,
    /// InferenceServices edited themselves (on both sides, objects changed).
    pub(crate) edited: Vec<ObjectId>,
    /// InferenceServices whose objects changed for none of the reasons above.
    pub(crate) unattributed: Vec<ObjectId>,
}

/// What an InferenceService's objects depend on, besides itself and the settings: its
/// runtime, the runtimes that one inherits from, the revision a pin renders from, its model,
/// its classes.
fn dependencies(r: &ResolvedIsvc) -> impl Iterator<Item = &ObjectId> {
    std::iter::once(&r.runtime)
        .chain(&r.parents)
        .chain(&r.revision)
        .chain(&r.model)
        .chain(r.classes.iter().map(|(_, class)| class))
}

/// The OME resources (not InferenceServices) on one side only or with different trees: one
/// walk over both sorted maps.
fn changed_resources(base: &Side<'_>, head: &Side<'_>) -> BTreeMap<ObjectId, Change> {
    let is_isvc = |(id, _): &(&ObjectId, &u64)| id.kind == "InferenceService";
    let mut b = base.inputs.iter().filter(|e| !is_isvc(e)).peekable();
    let mut h = head.inputs.iter().filter(|e| !is_isvc(e)).peekable();
    let mut changed = BTreeMap::new();
    loop {
        match (b.peek(), h.peek()) {
            (None, None) => break,
            (Some((id, _)), None) => {
                changed.insert((*id).clone(), Change::Removed);
                b.next();
            }
            (None, Some((id, _))) => {
                changed.insert((*id).clone(), Change::Added);
                h.next();
            }
            (Some((bid, bp)), Some((hid, hp))) => match bid.cmp(hid) {
                std::cmp::Ordering::Less => {
                    changed.insert((*bid).clone(), Change::Removed);
                    b.next();
                }
                std::cmp::Ordering::Greater => {
                    changed.insert((*hid).clone(), Change::Added);
                    h.next();
                }
                std::cmp::Ordering::Equal => {
                    if bp != hp {
                        changed.insert((*bid).clone(), Change::Changed);
                    }
                    b.next();
                    h.next();
                }
            },
        }
    }
    changed
}

/// Fills each group's causes and returns the impact.
pub(crate) fn attribute<'a>(groups: &mut [Group], base: &Side<'a>, head: &Side<'a>) -> Impact {
    let changed = changed_resources(base, head);
    let settings_changed = base.settings != head.settings;
    let index = |side: &Side<'a>| -> HashMap<&'a ObjectId, &'a ResolvedIsvc, FxBuild> {
        side.resolved.iter().map(|r| (&r.isvc, r)).collect()
    };
    let (base_index, head_index) = (index(base), index(head));

    // Who uses each changed resource: in the head, or in the base when removed.
    let mut users: BTreeMap<&ObjectId, BTreeSet<&ObjectId>> = BTreeMap::new();
    let removed = base
        .resolved
        .iter()
        .filter(|r| !head_index.contains_key(&r.isvc));
    for r in head.resolved.iter().chain(removed) {
        for dep in dependencies(r) {
            if let Some((id, _)) = changed.get_key_value(dep) {
                users.entry(id).or_default().insert(&r.isvc);
            }
        }
    }

    let mut reached: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
    let mut impact = Impact::default();
    let mut settings_reached = Vec::new();
    for group in groups.iter_mut() {
        let Some(isvc) = group.isvc.clone() else {
            continue;
        };
        let was = base_index.get(&isvc).copied();
        let now = head_index.get(&isvc).copied();
        let mut causes = BTreeSet::new();
        if group.change == Change::Changed && base.inputs.get(&isvc) != head.inputs.get(&isvc) {
            causes.insert(Cause::Edited);
            impact.edited.push(isvc.clone());
        }
        if let (Some(w), Some(n)) = (was, now)
            && w.runtime != n.runtime
        {
            causes.insert(Cause::Runtime {
                was: w.runtime.clone(),
                now: n.runtime.clone(),
            });
            impact.choices.push(Choice {
                isvc: isvc.clone(),
                was: w.runtime.clone(),
                now: n.runtime.clone(),
                was_auto: w.auto_selected,
                now_auto: n.auto_selected,
            });
        }
        // What it uses in the head, or, when it was removed, what it used in the base: a
        // runtime it no longer uses does not reach it, even when both changed.
        for dep in now.or(was).into_iter().flat_map(dependencies) {
            if let Some(&change) = changed.get(dep)
                && causes.insert(Cause::Resource(dep.clone(), change))
            {
                reached.entry(dep.clone()).or_default().push(isvc.clone());
            }
        }
        if settings_changed {
            causes.insert(Cause::Settings);
            settings_reached.push(isvc.clone());
        }
        if causes.is_empty() && group.change == Change::Changed {
            impact.unattributed.push(isvc.clone());
        }
        group.causes = causes.into_iter().collect();
    }
    impact.resources = changed
        .iter()
        .map(|(id, &change)| ResourceImpact {
            id: id.clone(),
            change,
            reached: reached.remove(id).unwrap_or_default(),
            users: users.get(id).map_or(0, BTreeSet::len),
        })
        .collect();
    // The widest-reaching first: a runtime edit that reaches 40 InferenceServices leads.
    impact
        .resources
        .sort_by(|a, b| b.reached.len().cmp(&a.reached.len()).then(a.id.cmp(&b.id)));
    impact.settings = settings_changed.then_some(settings_reached);
    impact
}
