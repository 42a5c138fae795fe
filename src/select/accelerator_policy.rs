//! Which AcceleratorClass an engine or decoder runs on (SEMANTICS.md#accelerator-classes): a class the
//! InferenceService names, or the one its policy (`FirstAvailable`, `Cheapest`, `BestFit`,
//! `MostCapable`) picks from the runtime's list.
//!
//! The rules, in order:
//!
//! 1. A runtime without `acceleratorRequirements.acceleratorClasses` (or with an empty list)
//!    gives **no class**, whatever the InferenceService asks for.
//! 2. **A name wins**: the component's `acceleratorOverride.acceleratorClass`, else
//!    `spec.acceleratorSelector.acceleratorClass`. It is not checked against the runtime's
//!    list (runtime validation does that). A name that is not loaded is
//!    [`ClassError::NotLoaded`]. As in OME, an override written as `acceleratorClass: ""`
//!    still hides the selector's name, and the policy then decides.
//! 3. Otherwise **a policy**: the override's `policy`, else the selector's. No policy gives no
//!    class; there is no default policy.
//! 4. **Candidates**: the runtime's list in order, without duplicates; classes that are not
//!    loaded are skipped.
//! 5. **Filters** from `spec.acceleratorSelector.constraints` only (an override's
//!    constraints are ignored): `excludedClasses` by name; `architectureFamilies` matching
//!    `family` or `vendor-family` ignoring case; `minMemory`/`maxMemory` (whole GB) against
//!    `capabilities.memoryGB` in whole GiB rounded down, where a class without `memoryGB`
//!    fails; `requiredFeatures` all present, ignoring case; `minArchitectureVersion`
//!    compared as text with `computeCapability`, where a class without one fails.
//! 6. **A single survivor is chosen at once**, whatever the policy (so `Cheapest` can pick a
//!    class without cost data). With more:
//!    - `FirstAvailable`: the first survivor.
//!    - `Cheapest`: classes without `cost` are left out. The first non-empty group decides:
//!      hourly (`spotPerHour`, else `perHour`), then `perMillionTokens`, then `tier` (low 1,
//!      medium 2, high 3, anything else 2). No group → no class.
//!    - `BestFit`: 0.7 × memory fit + 0.3 × compute. Memory fit is `minMemory` / memory
//!      (memory in GiB, not rounded; 1 without `minMemory`, 0 without `memoryGB`). Compute is
//!      the TFLOPS of the first `preferredPrecisions` entry the class has, divided by
//!      `minComputePerformanceTFLOPS` and capped at 1 (1 without a minimum), times ½ for
//!      each precision passed over; when none of them is there, fp16 with the same factor;
//!      without preferences, the class's highest TFLOPS.
//!    - `MostCapable`: 0.5 × memory + 0.3 × bandwidth + 0.2 × TFLOPS, each divided by the
//!      survivors' highest value. TFLOPS is that of the first preferred precision (else
//!      fp16), falling back to the next preferred precisions when it is 0.
//!
//!    `fp8` and `int8` both read `int8Tops`.
//!
//! **Decisions where OME is undefined** (for `SEMANTICS.md`):
//!
//! - *BestFit without constraints.* OME v1.2 dereferences the missing constraints and
//!   panics when two or more classes survive, so the workload is never created. ome-render
//!   scores such candidates as if the constraints were empty: memory fit 1 for every class,
//!   compute 1 for a class with any TFLOPS figure and 0 without. That is the rule OME's
//!   later code adopts (`ome-projects/ome` `bestfit_constraints_test.go`), and it picks the
//!   first class in the runtime's list that has performance data.
//! - *Ties.* OME sorts scores with an unstable sort, so equal scores pick an arbitrary
//!   class. ome-render picks the first in the runtime's list, for every policy.
//! - *Policy spelling.* The CRD accepts only the four names (case-sensitive), so any other
//!   `policy` in the override or the selector is [`ClassError::UnknownPolicy`], even when a
//!   name or an empty runtime list means it would not be used; `""` counts as unset.
//! - *Bad values.* A constraint, quantity or performance figure the API server would reject
//!   (`minMemory: 80Gi`, `memoryGB: lots`) is a [`ClassError`] when a policy needs it.
//!
//! Quantities (`80Gi`, `141Gi`, `40G`, `3350`, `"9.00"`) are read by [`parse_quantity`], with the
//! one quantity type of `k8s::quantity`.

use crate::k8s::quantity::Quantity;
use crate::model::inference_service::{AcceleratorSelector, Constraints, InferenceService};
use crate::model::{AcceleratorClass, Role};
use std::collections::HashSet;
use std::fmt;

/// The policies the CRD accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    FirstAvailable,
    Cheapest,
    BestFit,
    MostCapable,
}

impl Policy {
    /// The policy named exactly `name`.
    pub(crate) fn parse(name: &str) -> Option<Policy> {
        match name {
            "FirstAvailable" => Some(Policy::FirstAvailable),
            "Cheapest" => Some(Policy::Cheapest),
            "BestFit" => Some(Policy::BestFit),
            "MostCapable" => Some(Policy::MostCapable),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Policy::FirstAvailable => "FirstAvailable",
            Policy::Cheapest => "Cheapest",
            Policy::BestFit => "BestFit",
            Policy::MostCapable => "MostCapable",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a class name or a policy was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `spec.<component>.acceleratorOverride`.
    ComponentOverride,
    /// `spec.acceleratorSelector`.
    Selector,
}

/// Which rule chose the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A class name (rule 2).
    Named(Source),
    /// A policy (rules 3–6).
    Policy { policy: Policy, source: Source },
}

/// The outcome of [`choose_class`].
#[derive(Clone, Debug)]
pub(crate) enum ClassChoice<'c> {
    /// The component runs on this class.
    Chosen {
        class: &'c AcceleratorClass,
        #[cfg_attr(
            not(test),
            expect(dead_code, reason = "the table tests check the rule")
        )]
        rule: Rule,
    },
    /// The component gets no class and keeps the runtime's settings.
    NoClass(
        #[cfg_attr(
            not(test),
            expect(dead_code, reason = "the table tests check the reason")
        )]
        NoClassReason,
    ),
}

/// Why a component gets no class.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NoClassReason {
    /// The runtime lists no accelerator classes.
    RuntimeListsNoClasses,
    /// Neither a class name nor a policy is set.
    NeitherNameNorPolicy,
    /// The policy had no candidate left: every class of the runtime's list is missing or
    /// fails a constraint.
    NoCandidateLeft {
        policy: Policy,
        rejected: Vec<Rejection>,
    },
    /// `Cheapest` among several candidates, none with usable cost data.
    NoCostData,
}

/// A class of the runtime's list that a policy could not use, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
    pub(crate) class: String,
    pub(crate) reason: String,
}

/// An input the choice cannot be made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ClassError {
    /// A named class is not among the loaded AcceleratorClasses.
    NotLoaded { name: String, source: Source },
    /// A `policy` that is not one of the four the CRD accepts.
    UnknownPolicy { policy: String, source: Source },
    /// A class's quantity or performance figure that does not parse.
    InvalidClassValue {
        class: String,
        field: String,
        value: String,
    },
}

impl fmt::Display for ClassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassError::NotLoaded { name, .. } => {
                write!(f, "accelerator class `{name}` is not among the inputs")
            }
            ClassError::UnknownPolicy { policy, .. } => {
                write!(f, "unknown accelerator policy `{policy}`")
            }
            ClassError::InvalidClassValue {
                class,
                field,
                value,
            } => write!(
                f,
                "accelerator class `{class}`: `{field}` is `{value}`, which is not a valid number"
            ),
        }
    }
}

impl ClassError {
    /// One line saying how to fix it.
    pub(crate) fn help(&self) -> String {
        match self {
            ClassError::NotLoaded { name, .. } => format!(
                "add the file that defines AcceleratorClass `{name}` to the paths ome-render \
                 reads (classes are cluster infrastructure and often live in another \
                 repository), or fix the name"
            ),
            ClassError::UnknownPolicy { .. } => {
                "use BestFit, Cheapest, MostCapable or FirstAvailable (case-sensitive)".to_string()
            }
            ClassError::InvalidClassValue { .. } => {
                "write a Kubernetes quantity such as `80Gi`, `3350` or `\"9.50\"` (performance \
                 figures are whole numbers)"
                    .to_string()
            }
        }
    }
}

impl std::error::Error for ClassError {}

/// What the choice reads from the InferenceService and the runtime.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClassRequest<'a> {
    /// The runtime's `acceleratorRequirements.acceleratorClasses` (`None` when absent).
    pub(crate) runtime_classes: Option<&'a [String]>,
    /// The component's `acceleratorOverride`.
    pub(crate) component_override: Option<&'a AcceleratorSelector>,
    /// `spec.acceleratorSelector`.
    pub(crate) selector: Option<&'a AcceleratorSelector>,
}

/// Chooses the class for the engine or decoder `role` of `isvc`. `lookup` finds a loaded
/// AcceleratorClass by name.
pub(crate) fn choose_for_component<'c>(
    isvc: &InferenceService,
    role: Role,
    runtime_classes: Option<&[String]>,
    lookup: impl Fn(&str) -> Option<&'c AcceleratorClass>,
) -> Result<ClassChoice<'c>, ClassError> {
    let request = ClassRequest {
        runtime_classes,
        component_override: isvc.accelerator_override(role),
        selector: isvc.accelerator_selector.as_ref(),
    };
    choose_class(&request, lookup)
}

/// Chooses a class by the rules in the module documentation.
pub(crate) fn choose_class<'c>(
    request: &ClassRequest<'_>,
    lookup: impl Fn(&str) -> Option<&'c AcceleratorClass>,
) -> Result<ClassChoice<'c>, ClassError> {
    let override_policy = policy_of(request.component_override, Source::ComponentOverride)?;
    let selector_policy = policy_of(request.selector, Source::Selector)?;

    let runtime_classes = request.runtime_classes.unwrap_or_default();
    if runtime_classes.is_empty() {
        return Ok(ClassChoice::NoClass(NoClassReason::RuntimeListsNoClasses));
    }

    let override_name = request
        .component_override
        .and_then(|o| o.accelerator_class.as_deref());
    let name = match override_name {
        Some(name) => Some((name, Source::ComponentOverride)),
        None => request
            .selector
            .and_then(|s| s.accelerator_class.as_deref())
            .map(|name| (name, Source::Selector)),
    };
    if let Some((name, source)) = name.filter(|(name, _)| !name.is_empty()) {
        return match lookup(name) {
            Some(class) => Ok(ClassChoice::Chosen {
                class,
                rule: Rule::Named(source),
            }),
            None => Err(ClassError::NotLoaded {
                name: name.to_string(),
                source,
            }),
        };
    }

    let Some((policy, source)) = override_policy.or(selector_policy) else {
        return Ok(ClassChoice::NoClass(NoClassReason::NeitherNameNorPolicy));
    };
    let no_constraints = Constraints::default();
    let constraints = request
        .selector
        .and_then(|s| s.constraints.as_ref())
        .unwrap_or(&no_constraints);

    let mut rejected = Vec::new();
    let mut survivors: Vec<&'c AcceleratorClass> = Vec::new();
    // Sets built once per choice: a runtime's or a request's long lists cost their length,
    // not its square.
    let mut seen: HashSet<&str> = HashSet::with_capacity(runtime_classes.len());
    let sets = ConstraintSets::of(constraints);
    for name in runtime_classes {
        if !seen.insert(name.as_str()) {
            continue;
        }
        let Some(class) = lookup(name) else {
            rejected.push(Rejection {
                class: name.clone(),
                reason: "not among the inputs".to_string(),
            });
            continue;
        };
        match rejects(constraints, &sets, class)? {
            Some(reason) => rejected.push(Rejection {
                class: name.clone(),
                reason,
            }),
            None => survivors.push(class),
        }
    }

    let chosen = match survivors.as_slice() {
        [] => {
            return Ok(ClassChoice::NoClass(NoClassReason::NoCandidateLeft {
                policy,
                rejected,
            }));
        }
        [only] => Some(*only),
        all => match policy {
            Policy::FirstAvailable => Some(all[0]),
            Policy::Cheapest => cheapest(all)?,
            Policy::BestFit => Some(best_scoring(all, |c| best_fit_score(c, constraints))?),
            Policy::MostCapable => most_capable(all, &constraints.preferred_precisions)?,
        },
    };
    Ok(match chosen {
        Some(class) => ClassChoice::Chosen {
            class,
            rule: Rule::Policy { policy, source },
        },
        None => ClassChoice::NoClass(NoClassReason::NoCostData),
    })
}

/// The policy of a selector, checked against the four names.
fn policy_of(
    selector: Option<&AcceleratorSelector>,
    source: Source,
) -> Result<Option<(Policy, Source)>, ClassError> {
    match selector.and_then(|s| s.policy.as_deref()) {
        None | Some("") => Ok(None),
        Some(name) => match Policy::parse(name) {
            Some(policy) => Ok(Some((policy, source))),
            None => Err(ClassError::UnknownPolicy {
                policy: name.to_string(),
                source,
            }),
        },
    }
}

/// The list constraints as sets.
struct ConstraintSets<'c> {
    excluded: HashSet<&'c str>,
    /// `architectureFamilies`, lower-cased: a hyphen means the `vendor-family` form.
    families: HashSet<String>,
}

impl<'c> ConstraintSets<'c> {
    fn of(c: &'c Constraints) -> ConstraintSets<'c> {
        ConstraintSets {
            excluded: c.excluded_classes.iter().map(String::as_str).collect(),
            families: c
                .architecture_families
                .iter()
                .map(|f| f.to_lowercase())
                .collect(),
        }
    }
}

/// Why `class` fails `constraints`, or `None` when it passes.
fn rejects(
    c: &Constraints,
    sets: &ConstraintSets<'_>,
    class: &AcceleratorClass,
) -> Result<Option<String>, ClassError> {
    if sets.excluded.contains(class.name.as_str()) {
        return Ok(Some("excluded by excludedClasses".to_string()));
    }
    if !c.architecture_families.is_empty() {
        let family = class.family.as_deref().unwrap_or("").to_lowercase();
        let vendor = class.vendor.as_deref().unwrap_or("").to_lowercase();
        let vendor_family = format!("{vendor}-{family}");
        // A wanted family without a hyphen is compared with the family alone, one with a
        // hyphen with `vendor-family`.
        let allowed = (!family.contains('-') && sets.families.contains(&family))
            || sets.families.contains(&vendor_family);
        if !allowed {
            return Ok(Some(format!(
                "family `{family}` is not in architectureFamilies"
            )));
        }
    }
    if c.min_memory_gb.is_some() || c.max_memory_gb.is_some() {
        let Some(bytes) = memory_bytes(class)? else {
            return Ok(Some("has no capabilities.memoryGB".to_string()));
        };
        let gib = bytes / GIB;
        if let Some(min) = c.min_memory_gb.filter(|min| gib < *min) {
            return Ok(Some(format!("memory {gib} GiB is below minMemory {min}")));
        }
        if let Some(max) = c.max_memory_gb.filter(|max| gib > *max) {
            return Ok(Some(format!("memory {gib} GiB is above maxMemory {max}")));
        }
    }
    if !c.required_features.is_empty() {
        let features: HashSet<String> = class
            .capabilities
            .features
            .iter()
            .map(|f| f.to_lowercase())
            .collect();
        if let Some(missing) = c
            .required_features
            .iter()
            .find(|f| !features.contains(&f.to_lowercase()))
        {
            return Ok(Some(format!("lacks required feature `{missing}`")));
        }
    }
    if let Some(min) = &c.min_architecture_version {
        match class.capabilities.compute_capability.as_deref() {
            None | Some("") => {
                return Ok(Some("has no capabilities.computeCapability".to_string()));
            }
            // Compared as text, as OME does: "10.0" sorts before "9.0".
            Some(version) if version < min.as_str() => {
                return Ok(Some(format!(
                    "compute capability {version} is below minArchitectureVersion {min}"
                )));
            }
            Some(_) => {}
        }
    }
    Ok(None)
}

const GIB: i64 = 1 << 30;

/// `capabilities.memoryGB` in bytes, rounded up to a whole byte as Go's `Quantity.Value`.
fn memory_bytes(class: &AcceleratorClass) -> Result<Option<i64>, ClassError> {
    class_quantity(
        class,
        "capabilities.memoryGB",
        class.capabilities.memory_gb.as_deref(),
    )
    .map(|q| q.map(|q| q.value()))
}

/// `capabilities.memoryGB` in GiB, not rounded (for scores).
fn memory_gib(class: &AcceleratorClass) -> Result<f64, ClassError> {
    Ok(memory_bytes(class)?.map_or(0.0, |bytes| bytes as f64 / GIB as f64))
}

fn class_quantity(
    class: &AcceleratorClass,
    field: &str,
    text: Option<&str>,
) -> Result<Option<Quantity>, ClassError> {
    match text {
        None => Ok(None),
        Some(text) => parse_quantity(text)
            .map(Some)
            .ok_or_else(|| ClassError::InvalidClassValue {
                class: class.name.clone(),
                field: field.to_string(),
                value: text.to_string(),
            }),
    }
}

/// The TFLOPS (or TOPS) a class lists for `precision` (case-insensitive), 0 when absent.
fn tflops(class: &AcceleratorClass, precision: &str) -> Result<i64, ClassError> {
    let key = match precision.to_lowercase().as_str() {
        "fp32" => "fp32Tflops",
        "fp16" => "fp16Tflops",
        "int8" | "fp8" => "int8Tops",
        "int4" => "int4Tops",
        _ => return Ok(0),
    };
    performance(class, key)
}

fn performance(class: &AcceleratorClass, key: &str) -> Result<i64, ClassError> {
    match class
        .capabilities
        .performance
        .iter()
        .find(|(k, _)| k == key)
    {
        None => Ok(0),
        Some((_, text)) => text.parse().map_err(|_| ClassError::InvalidClassValue {
            class: class.name.clone(),
            field: format!("capabilities.performance.{key}"),
            value: text.clone(),
        }),
    }
}

/// The highest of the class's four performance figures.
fn max_tflops(class: &AcceleratorClass) -> Result<i64, ClassError> {
    let mut max = 0;
    for key in ["fp32Tflops", "fp16Tflops", "int8Tops", "int4Tops"] {
        max = max.max(performance(class, key)?);
    }
    Ok(max)
}

/// The candidate with the highest score; the first one on ties.
fn best_scoring<'c>(
    candidates: &[&'c AcceleratorClass],
    score: impl Fn(&AcceleratorClass) -> Result<f64, ClassError>,
) -> Result<&'c AcceleratorClass, ClassError> {
    let mut best = candidates[0];
    let mut best_score = score(best)?;
    for &candidate in &candidates[1..] {
        let s = score(candidate)?;
        if s > best_score {
            best = candidate;
            best_score = s;
        }
    }
    Ok(best)
}

fn best_fit_score(class: &AcceleratorClass, constraints: &Constraints) -> Result<f64, ClassError> {
    let memory_fit = match constraints.min_memory_gb {
        None => 1.0,
        Some(min) => {
            let required = min as f64;
            match memory_bytes(class)? {
                None => 0.0,
                Some(bytes) => {
                    let memory = bytes as f64 / GIB as f64;
                    if memory < required {
                        0.0
                    } else if memory == required {
                        1.0
                    } else {
                        // Larger memory than needed scores lower: 2× the need gives 0.5.
                        required / memory
                    }
                }
            }
        }
    };
    Ok(0.7 * memory_fit + 0.3 * compute_score(class, constraints)?)
}

/// BestFit's compute score, from the preferred precisions with a halving factor for each one
/// passed over.
fn compute_score(class: &AcceleratorClass, constraints: &Constraints) -> Result<f64, ClassError> {
    let required = constraints.min_tflops.unwrap_or(0);
    let precisions = &constraints.preferred_precisions;
    if precisions.is_empty() {
        return Ok(tflops_score(max_tflops(class)?, required));
    }
    let mut factor = 1.0;
    for precision in precisions {
        let t = tflops(class, precision)?;
        if t > 0 {
            return Ok(tflops_score(t, required) * factor);
        }
        factor *= 0.5;
    }
    if !precisions.iter().any(|p| p.eq_ignore_ascii_case("fp16")) {
        let t = tflops(class, "fp16")?;
        if t > 0 {
            return Ok(tflops_score(t, required) * factor);
        }
    }
    Ok(0.0)
}

/// 0 without TFLOPS, 1 without a requirement, else the share of the requirement, at most 1.
fn tflops_score(tflops: i64, required: i64) -> f64 {
    if tflops == 0 {
        0.0
    } else if required == 0 {
        1.0
    } else {
        (tflops as f64 / required as f64).min(1.0)
    }
}

fn most_capable<'c>(
    candidates: &[&'c AcceleratorClass],
    preferred_precisions: &[String],
) -> Result<Option<&'c AcceleratorClass>, ClassError> {
    let mut raw = Vec::with_capacity(candidates.len());
    for &class in candidates {
        raw.push(capability(class, preferred_precisions)?);
    }
    let max = raw.iter().fold([0.0_f64; 3], |acc, v| {
        [acc[0].max(v[0]), acc[1].max(v[1]), acc[2].max(v[2])]
    });
    let share = |value: f64, max: f64| if max > 0.0 { value / max } else { 0.0 };
    let mut best = 0;
    let mut best_score = f64::NEG_INFINITY;
    for (i, [memory, bandwidth, compute]) in raw.iter().enumerate() {
        let score = 0.5 * share(*memory, max[0])
            + 0.3 * share(*bandwidth, max[1])
            + 0.2 * share(*compute, max[2]);
        if score > best_score {
            best = i;
            best_score = score;
        }
    }
    Ok(candidates.get(best).copied())
}

/// Memory (GiB), bandwidth (GB/s) and TFLOPS of a class, for MostCapable.
fn capability(
    class: &AcceleratorClass,
    preferred_precisions: &[String],
) -> Result<[f64; 3], ClassError> {
    let primary = preferred_precisions.first().map_or("fp16", String::as_str);
    let mut compute = tflops(class, primary)?;
    if compute == 0 {
        for precision in preferred_precisions.iter().skip(1) {
            compute = tflops(class, precision)?;
            if compute > 0 {
                break;
            }
        }
    }
    let bandwidth = class_quantity(
        class,
        "capabilities.memoryBandwidthGBps",
        class.capabilities.memory_bandwidth_gbps.as_deref(),
    )?
    .map_or(0.0, |q| q.value() as f64);
    Ok([memory_gib(class)?, bandwidth, compute as f64])
}

/// Cheapest: the lowest cost of the first cost group any candidate is in.
fn cheapest<'c>(
    candidates: &[&'c AcceleratorClass],
) -> Result<Option<&'c AcceleratorClass>, ClassError> {
    let costed: Vec<(&'c AcceleratorClass, &crate::model::accelerator_class::Cost)> = candidates
        .iter()
        .filter_map(|&c| c.cost.as_ref().map(|cost| (c, cost)))
        .collect();

    let mut hourly = Vec::new();
    let mut per_tokens = Vec::new();
    for &(class, cost) in &costed {
        if let Some(text) = cost.spot_per_hour.as_deref().or(cost.per_hour.as_deref()) {
            let field = if cost.spot_per_hour.is_some() {
                "cost.spotPerHour"
            } else {
                "cost.perHour"
            };
            hourly.push((class, quantity_of(class, field, text)?));
        }
        if let Some(text) = cost.per_million_tokens.as_deref() {
            per_tokens.push((class, quantity_of(class, "cost.perMillionTokens", text)?));
        }
    }
    let tiers: Vec<(&'c AcceleratorClass, f64)> = costed
        .iter()
        .filter_map(|&(class, cost)| {
            cost.tier
                .as_deref()
                .filter(|t| !t.is_empty())
                .map(|t| (class, tier_rank(t)))
        })
        .collect();

    Ok([hourly, per_tokens, tiers]
        .into_iter()
        .find(|group| !group.is_empty())
        .map(|group| lowest(&group)))
}

fn quantity_of(class: &AcceleratorClass, field: &str, text: &str) -> Result<f64, ClassError> {
    parse_quantity(text)
        .map(|q| q.as_f64())
        .ok_or_else(|| ClassError::InvalidClassValue {
            class: class.name.clone(),
            field: field.to_string(),
            value: text.to_string(),
        })
}

/// The class with the lowest value; the first one on ties.
fn lowest<'c>(group: &[(&'c AcceleratorClass, f64)]) -> &'c AcceleratorClass {
    let mut best = group[0];
    for &entry in &group[1..] {
        if entry.1 < best.1 {
            best = entry;
        }
    }
    best.0
}

fn tier_rank(tier: &str) -> f64 {
    match tier.to_lowercase().as_str() {
        "low" => 1.0,
        "high" => 3.0,
        // `medium` and anything unrecognised.
        _ => 2.0,
    }
}

/// A Kubernetes quantity (`80Gi`, `40G`, `3350`, `9.00`, `1.5e3`, `500m`), as the API server
/// reads it (surrounding spaces ignored), or `None` when it is not one.
pub(crate) fn parse_quantity(text: &str) -> Option<Quantity> {
    Quantity::parse(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::id::ObjectId;
    use crate::load::Object;
    use crate::model::fields::Reader;
    use crate::yaml::parse::parse_stream;

    fn class(name: &str, spec: &str) -> AcceleratorClass {
        let yaml = format!(
            r"apiVersion: ome.io/v1beta1
kind: AcceleratorClass
metadata: {{name: {name}}}
spec: {{{spec}}}
"
        );
        let root = parse_stream(&yaml, 0).expect("yaml").remove(0).root;
        let object = Object {
            api_version: "ome.io/v1beta1".to_string(),
            kind: "AcceleratorClass".to_string(),
            name: name.to_string(),
            namespace: None,
            root,
            doc_index: 0,
        };
        let mut diags = Vec::new();
        let class = AcceleratorClass::read(&object, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        class
    }

    /// `spec.acceleratorSelector` written as `yaml`, read as the InferenceService view does.
    fn selector(yaml: &str) -> AcceleratorSelector {
        let text = format!("acceleratorSelector:\n  {}\n", yaml.replace('\n', "\n  "));
        let node = parse_stream(&text, 0).expect("yaml").remove(0).root;
        let object = ObjectId {
            kind: "InferenceService".into(),
            namespace: String::new(),
            name: "s".into(),
            group: String::new(),
        };
        let mut diags = Vec::new();
        let mut r = Reader {
            object: &object,
            diags: &mut diags,
        };
        let selector =
            AcceleratorSelector::read(&mut r, &node, "acceleratorSelector", "spec", true)
                .expect("a selector");
        assert!(diags.is_empty(), "{diags:?}");
        selector
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The H100 and H200 of OME's accelerator docs (SEMANTICS.md#accelerator-classes).
    fn docs_classes() -> Vec<AcceleratorClass> {
        vec![
            class(
                "nvidia-h100",
                "vendor: nvidia, family: hopper, cost: {perHour: '10'}, \
                 capabilities: {memoryGB: 80Gi, computeCapability: '9.0', \
                 memoryBandwidthGBps: '3350', features: [fp8, nvlink], \
                 performance: {fp16Tflops: 989}}",
            ),
            class(
                "nvidia-h200",
                "vendor: nvidia, family: hopper, cost: {perHour: '12'}, \
                 capabilities: {memoryGB: 141Gi, computeCapability: '9.0', \
                 memoryBandwidthGBps: '4800', features: [fp8, nvlink], \
                 performance: {fp16Tflops: 989}}",
            ),
        ]
    }

    /// Chooses from `classes` with the runtime listing `runtime` and the selector `yaml`.
    fn choose<'c>(
        classes: &'c [AcceleratorClass],
        runtime: &[&str],
        selector_yaml: &str,
    ) -> Result<ClassChoice<'c>, ClassError> {
        let runtime = names(runtime);
        let sel = selector(selector_yaml);
        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: None,
            selector: Some(&sel),
        };
        choose_class(&request, |n| classes.iter().find(|c| c.name == n))
    }

    fn chosen_name(choice: Result<ClassChoice<'_>, ClassError>) -> Option<String> {
        match choice.expect("a choice") {
            ClassChoice::Chosen { class, .. } => Some(class.name.clone()),
            ClassChoice::NoClass(_) => None,
        }
    }

    #[test]
    fn vector_46_docs_policies() {
        let classes = docs_classes();
        let runtime = ["nvidia-h100", "nvidia-h200"];
        let pick = |sel: &str| chosen_name(choose(&classes, &runtime, sel));
        assert_eq!(
            pick("policy: BestFit\nconstraints: {minMemory: 80}"),
            Some("nvidia-h100".into())
        );
        assert_eq!(pick("policy: Cheapest"), Some("nvidia-h100".into()));
        assert_eq!(pick("policy: MostCapable"), Some("nvidia-h200".into()));
        assert_eq!(pick("policy: FirstAvailable"), Some("nvidia-h100".into()));
        // The runtime's order decides FirstAvailable.
        assert_eq!(
            chosen_name(choose(
                &classes,
                &["nvidia-h200", "nvidia-h100"],
                "policy: FirstAvailable"
            )),
            Some("nvidia-h200".into())
        );
    }

    #[test]
    fn vector_44_best_fit_prefers_the_closest_memory() {
        let classes = vec![
            class(
                "nvidia-h100-80gb",
                "vendor: nvidia, family: hopper, capabilities: {memoryGB: 80Gi, \
                 features: [fp16, fp8], performance: {fp16Tflops: 989, int8Tops: 1979}}",
            ),
            class(
                "nvidia-a100-40gb",
                "vendor: nvidia, family: ampere, capabilities: {memoryGB: 40Gi, \
                 features: [fp16], performance: {fp16Tflops: 312}}",
            ),
        ];
        let choice = choose(
            &classes,
            &["nvidia-h100-80gb", "nvidia-a100-40gb"],
            "policy: BestFit\nconstraints: {minMemory: 40, preferredPrecisions: [fp16]}",
        );
        assert_eq!(chosen_name(choice), Some("nvidia-a100-40gb".into()));
    }

    fn costed(name: &str, cost: &str) -> AcceleratorClass {
        class(name, &format!("cost: {cost}"))
    }

    #[test]
    fn vector_45_cheapest_groups() {
        let pick = |a: AcceleratorClass, b: AcceleratorClass| {
            let classes = vec![a, b];
            let runtime: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
            chosen_name(choose(&classes, &runtime, "policy: Cheapest"))
        };
        assert_eq!(
            pick(
                costed("spot", "{spotPerHour: 5}"),
                costed("hourly", "{perHour: 3}")
            ),
            Some("hourly".into())
        );
        assert_eq!(
            pick(
                costed("hourly", "{perHour: 10}"),
                costed("tokens", "{perMillionTokens: 1}")
            ),
            Some("hourly".into())
        );
        assert_eq!(
            pick(costed("high", "{tier: high}"), costed("low", "{tier: low}")),
            Some("low".into())
        );
        assert_eq!(pick(class("a", "vendor: x"), class("b", "vendor: y")), None);
    }

    #[test]
    fn cheapest_details() {
        let pick = |list: Vec<AcceleratorClass>| {
            let runtime: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
            let runtime: Vec<String> = names(&runtime);
            let sel = selector("policy: Cheapest");
            let request = ClassRequest {
                runtime_classes: Some(&runtime),
                component_override: None,
                selector: Some(&sel),
            };
            match choose_class(&request, |n| list.iter().find(|c| c.name == n)).expect("choice") {
                ClassChoice::Chosen { class, .. } => Some(class.name.clone()),
                ClassChoice::NoClass(reason) => {
                    assert_eq!(reason, NoClassReason::NoCostData);
                    None
                }
            }
        };
        // Spot beats the same class's perHour; "9.00" equals 9, so the first wins the tie.
        assert_eq!(
            pick(vec![
                costed("a", "{perHour: \"9.00\"}"),
                costed("b", "{perHour: 12, spotPerHour: 9}"),
            ]),
            Some("a".into())
        );
        // Unknown tiers count as medium.
        assert_eq!(
            pick(vec![
                costed("odd", "{tier: premium}"),
                costed("mid", "{tier: Medium}")
            ]),
            Some("odd".into())
        );
        // A lone class is chosen without looking at its cost.
        assert_eq!(pick(vec![class("only", "vendor: x")]), Some("only".into()));
    }

    #[test]
    fn vector_47_names_and_runtime_lists() {
        let classes = [
            class("nvidia-h100", "vendor: nvidia"),
            class("nvidia-a100", "vendor: nvidia"),
        ];
        let lookup = |n: &str| classes.iter().find(|c| c.name == n);
        let runtime = names(&["nvidia-a100", "nvidia-h100"]);
        let spec = selector("acceleratorClass: nvidia-a100");
        let decoder = selector("acceleratorClass: nvidia-h100");

        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: Some(&decoder),
            selector: Some(&spec),
        };
        match choose_class(&request, lookup).expect("choice") {
            ClassChoice::Chosen { class, rule } => {
                assert_eq!(class.name, "nvidia-h100");
                assert_eq!(rule, Rule::Named(Source::ComponentOverride));
            }
            other => panic!("{other:?}"),
        }

        // A runtime without requirements gives no class, even for a name.
        for runtime_classes in [None, Some(&[][..])] {
            let request = ClassRequest {
                runtime_classes,
                ..request
            };
            assert!(matches!(
                choose_class(&request, lookup),
                Ok(ClassChoice::NoClass(NoClassReason::RuntimeListsNoClasses))
            ));
        }

        // Neither a name nor a policy: no class (no "first runtime class" default).
        let empty = selector("constraints: {minMemory: 1}");
        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: None,
            selector: Some(&empty),
        };
        assert!(matches!(
            choose_class(&request, lookup),
            Ok(ClassChoice::NoClass(NoClassReason::NeitherNameNorPolicy))
        ));
    }

    #[test]
    fn vector_48_a_name_beats_any_policy() {
        let classes = docs_classes();
        let runtime = names(&["nvidia-h100", "nvidia-h200"]);
        let spec = selector("acceleratorClass: nvidia-h200");
        let engine = selector("policy: Cheapest");
        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: Some(&engine),
            selector: Some(&spec),
        };
        match choose_class(&request, |n| classes.iter().find(|c| c.name == n)).expect("choice") {
            ClassChoice::Chosen { class, rule } => {
                assert_eq!(class.name, "nvidia-h200");
                assert_eq!(rule, Rule::Named(Source::Selector));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn vector_48_best_fit_without_constraints_is_defined() {
        let classes = vec![
            class("no-performance", "vendor: x"),
            class("other", "capabilities: {performance: {fp16Tflops: 100}}"),
            class("third", "capabilities: {performance: {int4Tops: 400}}"),
        ];
        let runtime = ["no-performance", "other", "third"];
        assert_eq!(
            chosen_name(choose(&classes, &runtime, "policy: BestFit")),
            Some("other".into())
        );
        assert_eq!(
            chosen_name(choose(
                &classes,
                &runtime,
                "policy: BestFit\nconstraints: {}"
            )),
            Some("other".into())
        );
        assert_eq!(
            chosen_name(choose(
                &classes,
                &["no-performance", "absent"],
                "policy: BestFit"
            )),
            Some("no-performance".into())
        );
    }

    #[test]
    fn the_override_policy_comes_before_the_selector_policy() {
        let classes = docs_classes();
        let runtime = names(&["nvidia-h100", "nvidia-h200"]);
        let spec = selector("policy: Cheapest");
        let engine = selector("policy: MostCapable\nconstraints: {excludedClasses: [nvidia-h200]}");
        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: Some(&engine),
            selector: Some(&spec),
        };
        match choose_class(&request, |n| classes.iter().find(|c| c.name == n)).expect("choice") {
            ClassChoice::Chosen { class, rule } => {
                // The override's constraints are ignored, so h200 stays a candidate.
                assert_eq!(class.name, "nvidia-h200");
                assert_eq!(
                    rule,
                    Rule::Policy {
                        policy: Policy::MostCapable,
                        source: Source::ComponentOverride
                    }
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_override_name_hides_the_selector_name() {
        let classes = docs_classes();
        let runtime = names(&["nvidia-h100", "nvidia-h200"]);
        let spec = selector("acceleratorClass: nvidia-h200\npolicy: FirstAvailable");
        let engine = selector("acceleratorClass: \"\"");
        let request = ClassRequest {
            runtime_classes: Some(&runtime),
            component_override: Some(&engine),
            selector: Some(&spec),
        };
        match choose_class(&request, |n| classes.iter().find(|c| c.name == n)).expect("choice") {
            ClassChoice::Chosen { class, rule } => {
                assert_eq!(class.name, "nvidia-h100");
                assert_eq!(
                    rule,
                    Rule::Policy {
                        policy: Policy::FirstAvailable,
                        source: Source::Selector
                    }
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_for_missing_classes_and_unknown_policies() {
        let classes = docs_classes();
        assert_eq!(
            choose(&classes, &["nvidia-h100"], "acceleratorClass: nvidia-l40s").unwrap_err(),
            ClassError::NotLoaded {
                name: "nvidia-l40s".into(),
                source: Source::Selector
            }
        );
        assert_eq!(
            choose(&classes, &["nvidia-h100"], "policy: cheapest").unwrap_err(),
            ClassError::UnknownPolicy {
                policy: "cheapest".into(),
                source: Source::Selector
            }
        );
        let missing = choose(&classes, &["nvidia-h100"], "acceleratorClass: nvidia-l40s");
        assert!(missing.unwrap_err().help().contains("nvidia-l40s"));
        // Checked even when the runtime lists no class.
        assert!(matches!(
            choose(&classes, &[], "policy: Fastest"),
            Err(ClassError::UnknownPolicy { .. })
        ));
    }

    #[test]
    fn candidates_are_deduplicated_and_missing_ones_skipped() {
        let classes = docs_classes();
        let choice = choose(
            &classes,
            &["absent", "nvidia-h200", "nvidia-h200", "nvidia-h100"],
            "policy: FirstAvailable",
        );
        assert_eq!(chosen_name(choice), Some("nvidia-h200".into()));

        match choose(
            &classes,
            &["absent", "nvidia-h100"],
            "policy: Cheapest\nconstraints: {minMemory: 100}",
        )
        .expect("choice")
        {
            ClassChoice::NoClass(NoClassReason::NoCandidateLeft { policy, rejected }) => {
                assert_eq!(policy, Policy::Cheapest);
                let rejected: Vec<&str> = rejected.iter().map(|r| r.class.as_str()).collect();
                assert_eq!(rejected, ["absent", "nvidia-h100"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn constraint_filters() {
        let classes = vec![
            class(
                "h100",
                "vendor: NVIDIA, family: Hopper, capabilities: {memoryGB: 80Gi, \
                 computeCapability: '9.0', features: [FP8, nvlink]}",
            ),
            class(
                "a100",
                "vendor: nvidia, family: ampere, capabilities: {memoryGB: 40Gi, \
                 computeCapability: '8.0', features: [nvlink]}",
            ),
            class(
                "b200",
                "vendor: nvidia, family: blackwell, \
                 capabilities: {memoryGB: 80G, computeCapability: '10.0'}",
            ),
            class("bare", "vendor: amd"),
        ];
        let runtime = ["h100", "a100", "b200", "bare"];
        let survivors = |constraints: &str| -> Vec<String> {
            let mut out = Vec::new();
            let mut remaining: Vec<&str> = runtime.to_vec();
            let sel = format!("policy: FirstAvailable\nconstraints: {constraints}");
            while let Some(name) = chosen_name(choose(&classes, &remaining, &sel)) {
                remaining.retain(|n| *n != name);
                out.push(name);
            }
            out
        };
        assert_eq!(
            survivors("{excludedClasses: [a100, bare]}"),
            ["h100", "b200"]
        );
        assert_eq!(survivors("{architectureFamilies: [hopper]}"), ["h100"]);
        assert_eq!(
            survivors("{architectureFamilies: [nvidia-AMPERE, amd-]}"),
            ["a100", "bare"]
        );
        // 80G is 74.5 GiB, which rounds down to 74; a class without memoryGB fails.
        assert_eq!(survivors("{minMemory: 75}"), ["h100"]);
        assert_eq!(survivors("{minMemory: 74, maxMemory: 79}"), ["b200"]);
        assert_eq!(survivors("{maxMemory: 40}"), ["a100"]);
        assert_eq!(survivors("{requiredFeatures: [fp8, NVLINK]}"), ["h100"]);
        // Text comparison: "10.0" < "9.0".
        assert_eq!(survivors("{minArchitectureVersion: \"9.0\"}"), ["h100"]);
        assert_eq!(
            survivors("{minArchitectureVersion: \"10.0\"}"),
            ["h100", "a100", "b200"]
        );
    }

    #[test]
    fn best_fit_compute_factor_halves_per_precision_passed_over() {
        let classes = vec![
            class(
                "int8-only",
                "capabilities: {memoryGB: 80Gi, performance: {int8Tops: 50}}",
            ),
            class(
                "fp16-only",
                "capabilities: {memoryGB: 80Gi, performance: {fp16Tflops: 50}}",
            ),
        ];
        let runtime = ["int8-only", "fp16-only"];
        // fp8 reads int8Tops: the first class meets the first preference.
        assert_eq!(
            chosen_name(choose(
                &classes,
                &runtime,
                "policy: BestFit\nconstraints: {preferredPrecisions: [fp8, fp16]}"
            )),
            Some("int8-only".into())
        );
        assert_eq!(
            chosen_name(choose(
                &classes,
                &runtime,
                "policy: BestFit\nconstraints: {preferredPrecisions: [fp16, int8]}"
            )),
            Some("fp16-only".into())
        );
        // fp16 is the fallback, at the factor reached after the list.
        assert_eq!(
            chosen_name(choose(
                &classes,
                &runtime,
                "policy: BestFit\nconstraints: {preferredPrecisions: [int4, fp8]}"
            )),
            Some("int8-only".into())
        );
    }

    #[test]
    fn best_fit_scores() {
        let c = class(
            "c",
            "capabilities: {memoryGB: 80Gi, performance: {fp16Tflops: 50, int8Tops: 100}}",
        );
        let constraints = |yaml: &str| {
            selector(&format!("constraints: {yaml}"))
                .constraints
                .expect("constraints")
        };
        let score = |yaml: &str| best_fit_score(&c, &constraints(yaml)).unwrap();
        assert!((score("{minMemory: 40}") - (0.7 * 0.5 + 0.3)).abs() < 1e-12);
        assert!(
            (score("{minMemory: 80, minComputePerformanceTFLOPS: 200}") - (0.7 + 0.3 * 0.5)).abs()
                < 1e-12
        );
        assert!(
            (score("{minComputePerformanceTFLOPS: 100, preferredPrecisions: [fp32, fp16]}")
                - (0.7 + 0.3 * 0.25))
                .abs()
                < 1e-12
        );
        assert!((score("{minMemory: 100}") - 0.3).abs() < 1e-12);
    }

    #[test]
    fn most_capable_uses_the_preferred_precision() {
        let classes = vec![
            class(
                "big-memory",
                "capabilities: {memoryGB: 100Gi, memoryBandwidthGBps: '1000', \
                 performance: {fp16Tflops: 100}}",
            ),
            class(
                "fast-int8",
                "capabilities: {memoryGB: 80Gi, memoryBandwidthGBps: '1000', \
                 performance: {fp16Tflops: 100, int8Tops: 1000}}",
            ),
        ];
        let runtime = ["big-memory", "fast-int8"];
        assert_eq!(
            chosen_name(choose(&classes, &runtime, "policy: MostCapable")),
            Some("big-memory".into())
        );
        assert_eq!(
            chosen_name(choose(
                &classes,
                &runtime,
                "policy: MostCapable\nconstraints: {preferredPrecisions: [int8]}"
            )),
            Some("fast-int8".into())
        );
    }

    #[test]
    fn invalid_class_values_are_errors_when_needed() {
        let classes = vec![
            class("a", "capabilities: {memoryGB: lots}, cost: {perHour: 1}"),
            class("b", "cost: {perHour: cheap}"),
        ];
        let runtime = ["a", "b"];
        assert_eq!(
            chosen_name(choose(&classes, &runtime, "policy: FirstAvailable")),
            Some("a".into())
        );
        assert_eq!(
            choose(&classes, &runtime, "policy: Cheapest").unwrap_err(),
            ClassError::InvalidClassValue {
                class: "b".into(),
                field: "cost.perHour".into(),
                value: "cheap".into()
            }
        );
        assert!(matches!(
            choose(&classes, &runtime, "policy: MostCapable"),
            Err(ClassError::InvalidClassValue { field, .. }) if field == "capabilities.memoryGB"
        ));
    }

    #[test]
    fn choose_for_component_reads_the_override() {
        let yaml = r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: s, namespace: n}
spec:
  acceleratorSelector: {acceleratorClass: nvidia-h100}
  engine: {minReplicas: 1}
  decoder: {acceleratorOverride: {acceleratorClass: nvidia-h200}}
";
        let root = parse_stream(yaml, 0).unwrap().remove(0).root;
        let object = Object {
            api_version: "ome.io/v1beta1".into(),
            kind: "InferenceService".into(),
            name: "s".into(),
            namespace: Some("n".into()),
            root,
            doc_index: 0,
        };
        let isvc = InferenceService::read(&object, "default", &mut Vec::new());
        let classes = docs_classes();
        let runtime = names(&["nvidia-h100", "nvidia-h200"]);
        let lookup = |n: &str| classes.iter().find(|c| c.name == n);
        let name_for =
            |c| match choose_for_component(&isvc, c, Some(&runtime), lookup).expect("choice") {
                ClassChoice::Chosen { class, .. } => class.name.clone(),
                ClassChoice::NoClass(r) => panic!("{r:?}"),
            };
        assert_eq!(name_for(Role::Engine), "nvidia-h100");
        assert_eq!(name_for(Role::Decoder), "nvidia-h200");
    }

    #[test]
    fn quantities() {
        let gib = 1024.0 * 1024.0 * 1024.0;
        let f = |t: &str| parse_quantity(t).map(|q| q.as_f64());
        assert_eq!(f("80Gi"), Some(80.0 * gib));
        assert_eq!(f("141Gi"), Some(141.0 * gib));
        assert_eq!(f(" 192Gi "), Some(192.0 * gib));
        assert_eq!(f("80"), Some(80.0));
        assert_eq!(f("40G"), Some(40e9));
        assert_eq!(f("9.00"), Some(9.0));
        assert_eq!(f("0.3k"), Some(300.0));
        assert_eq!(f("500m"), Some(0.5));
        assert_eq!(f("1.5e3"), Some(1500.0));
        assert_eq!(f("2E-1"), Some(0.2));
        assert_eq!(f("+.5Ki"), Some(512.0));
        assert_eq!(f("-1"), Some(-1.0));
        for bad in ["", "1.2.3", "80GB", "1e", "1e+", "ten", "1 Gi"] {
            assert_eq!(f(bad), None, "{bad}");
        }
        // Go reads a lone suffix as 0 (the CRD pattern refuses it), and a huge exponent
        // saturates its whole value.
        assert_eq!(f("Gi"), Some(0.0));
        assert_eq!(
            parse_quantity("1e999999").map(|q| q.value()),
            Some(i64::MAX)
        );
        assert_eq!(parse_quantity("1.5").map(|q| q.value()), Some(2));
        assert_eq!(parse_quantity("80G").map(|q| q.value() / GIB), Some(74));
    }
}
