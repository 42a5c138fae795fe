//! What the API server checks of the pod templates in the objects OME's controller creates
//! (Kubernetes' `ValidatePodTemplateSpec` for a Deployment, the pods of a LeaderWorkerSet's
//! leader and worker templates), run on the rendered objects — after the runtime's and the
//! InferenceService's specs are merged, the overrides applied and the pod webhook's
//! mutations made — so that what `kubectl apply` or Argo CD would refuse fails the render
//! instead (SEMANTICS.md#pod-validation).
//!
//! The rules are Kubernetes' core validation, with its message texts: resource names
//! (standard, or qualified extended resources) and quantities (not negative; whole numbers
//! for extended resources, whose request must equal their limit; a request at most its
//! limit), probes (one handler, ports 1–65535 or IANA names, no negative counts), container,
//! init container and volume names (DNS-1123 labels, unique), port names unique within a
//! container, environment variable names, volume mounts (of a declared volume, at a path of
//! their own), tolerations (the operator and effect enums) and node selector labels. Each
//! problem is reported at the input line the value came from (the runtime's or the
//! InferenceService's file), naming the object and the field path in it; a value several
//! objects share is reported once.
//!
//! The checks read the tree without allocating; only a problem builds its path and text.

use crate::diagnostics::{Code, Diagnostic};
use crate::go::quote;
use crate::k8s::meta;
use crate::k8s::quantity::{Quantity, QuantityError};
use crate::model::InferenceService;
use crate::rendered::{Body, Rendered};
use crate::yaml::{Node, Pos, Value};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// Where the kinds ome-render renders keep a pod spec, and the field path the API server
/// names it by.
const POD_SPECS: &[(&[&str], &str)] = &[
    (&["spec", "template", "spec"], "spec.template.spec"),
    (
        &["spec", "leaderWorkerTemplate", "leaderTemplate", "spec"],
        "spec.leaderWorkerTemplate.leaderTemplate.spec",
    ),
    (
        &["spec", "leaderWorkerTemplate", "workerTemplate", "spec"],
        "spec.leaderWorkerTemplate.workerTemplate.spec",
    ),
];

/// The API server's text for a probe with a second handler.
const TWO_HANDLERS: &str = "may not specify more than 1 handler type";

/// One refusal: where the value is written, the field, the API server's text and advice.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Problem {
    pub(crate) pos: Pos,
    pub(crate) field: String,
    /// `<field>: <what the API server says>`.
    pub(crate) message: String,
    pub(crate) help: &'static str,
}

/// Collects problems with the API server's phrasing (apimachinery's `field` errors).
struct Problems {
    out: Vec<Problem>,
}

impl Problems {
    fn push(&mut self, pos: Pos, field: String, body: String, help: &'static str) {
        self.out.push(Problem {
            pos,
            message: format!("{field}: {body}"),
            field,
            help,
        });
    }

    fn invalid(&mut self, pos: Pos, field: String, value: &str, detail: &str, help: &'static str) {
        self.push(
            pos,
            field,
            format!("Invalid value: {}: {detail}", quote(value)),
            help,
        );
    }

    fn invalid_int(
        &mut self,
        pos: Pos,
        field: String,
        value: i64,
        detail: &str,
        help: &'static str,
    ) {
        self.push(
            pos,
            field,
            format!("Invalid value: {value}: {detail}"),
            help,
        );
    }

    fn required(&mut self, pos: Pos, field: String, detail: &str, help: &'static str) {
        let body = if detail.is_empty() {
            "Required value".to_string()
        } else {
            format!("Required value: {detail}")
        };
        self.push(pos, field, body, help);
    }

    fn duplicate(&mut self, pos: Pos, field: String, value: &str, help: &'static str) {
        self.push(
            pos,
            field,
            format!("Duplicate value: {}", quote(value)),
            help,
        );
    }

    fn not_supported(
        &mut self,
        pos: Pos,
        field: String,
        value: &str,
        allowed: &[&str],
        help: &'static str,
    ) {
        let supported: Vec<String> = allowed.iter().map(|a| quote(a)).collect();
        self.push(
            pos,
            field,
            format!(
                "Unsupported value: {}: supported values: {}",
                quote(value),
                supported.join(", ")
            ),
            help,
        );
    }
}

/// The names already seen in one list, without a hash set for the short lists pods have.
#[derive(Default)]
struct Seen<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> Seen<'a> {
    fn contains(&self, name: &str) -> bool {
        self.few.contains(&name) || self.many.contains(name)
    }

    fn insert(&mut self, name: &'a str) {
        if self.few.len() < 16 {
            self.few.push(name);
        } else {
            self.many.insert(name);
        }
    }
}

fn items<'a>(parent: &'a Node, key: &str) -> &'a [Node] {
    parent.get(key).and_then(Node::as_seq).unwrap_or(&[])
}

fn pos_or(node: Option<&Node>, parent: &Node) -> Pos {
    node.map_or(parent.pos, |n| n.pos)
}

/// The text of a string field, `""` when absent or null.
fn text<'a>(parent: &'a Node, key: &str) -> &'a str {
    parent.get(key).and_then(Node::as_str).unwrap_or("")
}

/// Checks the pod templates of `objects`, rendered from `isvc`; each problem is reported
/// once, naming the first object that has it, and not at all at a line where the render's
/// own errors (`diags[since..]`, a merge's) already are.
pub(crate) fn check(
    objects: &[Rendered],
    isvc: &InferenceService,
    since: usize,
    diags: &mut Vec<Diagnostic>,
) {
    let earlier = &diags[since.min(diags.len())..];
    let reported: HashSet<Pos> = earlier
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| d.pos)
        .collect();
    // The probes whose merge made a second handler: the merge has said so, with both sides.
    let merged_probes: HashSet<&str> = earlier
        .iter()
        .filter(|d| d.code == Code::InvalidMerge)
        .filter_map(|d| d.field.as_deref()?.rsplit('.').next())
        .collect();
    // (where, what) → (first object, problem, how many objects).
    let mut found: Vec<(String, Problem, usize)> = Vec::new();
    let mut seen: HashMap<(Pos, String), usize> = HashMap::new();
    for o in objects {
        let Body::Tree(root) = &o.body else {
            continue;
        };
        for (path, prefix) in POD_SPECS {
            let Some(spec) = root.at(path).filter(|s| s.as_map().is_some()) else {
                continue;
            };
            let mut problems = Problems { out: Vec::new() };
            pod_spec(spec, prefix, &mut problems);
            for p in problems.out {
                if !p.pos.is_none() && reported.contains(&p.pos) {
                    continue;
                }
                if p.message.ends_with(TWO_HANDLERS)
                    && p.field
                        .rsplit('.')
                        .nth(1)
                        .is_some_and(|probe| merged_probes.contains(probe))
                {
                    continue;
                }
                let what = p.message[p.field.len()..].to_string();
                let key = if p.pos.is_none() {
                    (p.pos, p.message.clone())
                } else {
                    (p.pos, what)
                };
                if let Some(&i) = seen.get(&key) {
                    if found[i].0 != format!("{} {}", o.kind, o.name) {
                        found[i].2 += 1;
                    }
                    continue;
                }
                seen.insert(key, found.len());
                found.push((format!("{} {}", o.kind, o.name), p, 1));
            }
        }
    }
    for (object, p, count) in found {
        let also = match count {
            1 => String::new(),
            2 => " (and 1 more object)".to_string(),
            n => format!(" (and {} more objects)", n - 1),
        };
        diags.push(
            Diagnostic::error(
                Code::Reconcile,
                format!(
                    "the API server refuses the {object}{also} OME's controller creates: {}",
                    p.message
                ),
            )
            .at(if p.pos.is_none() { isvc.pos } else { p.pos })
            .object(isvc.object.clone())
            .field(p.field)
            .help(p.help),
        );
    }
}

/// `ValidatePodSpec`, the parts this module checks; `prefix` is the spec's field path.
fn pod_spec(spec: &Node, prefix: &str, out: &mut Problems) {
    let volumes = volumes(spec, prefix, out);
    let containers = items(spec, "containers");
    let mut names = Seen::default();
    for (i, c) in containers.iter().enumerate() {
        let path = || format!("{prefix}.containers[{i}]");
        container(c, &volumes, &path, out);
        probes(c, &path, out);
        let name = text(c, "name");
        if containers.len() > 1 || !items(spec, "initContainers").is_empty() {
            if names.contains(name) {
                out.duplicate(
                    pos_or(c.get("name"), c),
                    format!("{}.name", path()),
                    name,
                    "give each container of the pod a name of its own",
                );
            } else {
                names.insert(name);
            }
        }
    }
    for (i, c) in items(spec, "initContainers").iter().enumerate() {
        let path = || format!("{prefix}.initContainers[{i}]");
        container(c, &volumes, &path, out);
        let name = text(c, "name");
        if names.contains(name) {
            out.duplicate(
                pos_or(c.get("name"), c),
                format!("{}.name", path()),
                name,
                "init containers and containers share one set of names: give this one a name of its own",
            );
        } else if !name.is_empty() {
            names.insert(name);
        }
        if text(c, "restartPolicy") != "Always" {
            for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
                if let Some(p) = c.get(probe).filter(|p| !p.is_null()) {
                    out.push(
                        p.pos,
                        format!("{}.{probe}", path()),
                        "Forbidden: may not be set for init containers without restartPolicy=Always".to_string(),
                        "remove the probe, or make the init container a sidecar with restartPolicy: Always",
                    );
                }
            }
        } else {
            probes(c, &path, out);
        }
    }
    tolerations(spec, prefix, out);
    node_selector(spec, prefix, out);
}

/// `ValidateVolumes`: each name a DNS-1123 label, once; returns the names that passed, which
/// are the ones a mount may name.
fn volumes<'a>(spec: &'a Node, prefix: &str, out: &mut Problems) -> Seen<'a> {
    let mut valid = Seen::default();
    let mut all = Seen::default();
    for (i, v) in items(spec, "volumes").iter().enumerate() {
        let name = text(v, "name");
        let pos = pos_or(v.get("name"), v);
        let field = || format!("{prefix}.volumes[{i}].name");
        let mut ok = true;
        if name.is_empty() {
            out.required(pos, field(), "", "give the volume a name");
            ok = false;
        } else if !meta::is_dns1123_label(name) {
            for m in meta::dns1123_label_problems(name) {
                out.invalid(pos, field(), name, &m, "a volume name is at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit");
            }
            ok = false;
        }
        if all.contains(name) {
            out.duplicate(
                pos,
                field(),
                name,
                "give each volume of the pod a name of its own",
            );
            ok = false;
        }
        if ok {
            valid.insert(name);
        }
        all.insert(name);
    }
    valid
}

/// What Kubernetes checks of every container, init containers included.
fn container(c: &Node, volumes: &Seen<'_>, path: &dyn Fn() -> String, out: &mut Problems) {
    let name = text(c, "name");
    let name_pos = pos_or(c.get("name"), c);
    if name.is_empty() {
        out.required(
            name_pos,
            format!("{}.name", path()),
            "",
            "give the container a name",
        );
    } else if !meta::is_dns1123_label(name) {
        for m in meta::dns1123_label_problems(name) {
            out.invalid(
                name_pos,
                format!("{}.name", path()),
                name,
                &m,
                "a container name is at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit",
            );
        }
    }
    let mut port_names = Seen::default();
    for (i, port) in items(c, "ports").iter().enumerate() {
        let Some(n) = port
            .get("name")
            .and_then(Node::as_str)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if !meta::port_name_problems(n).is_empty() {
            // The format is checked where the port is written (admission).
            continue;
        }
        if port_names.contains(n) {
            out.duplicate(
                pos_or(port.get("name"), port),
                format!("{}.ports[{i}].name", path()),
                n,
                "give each port of the container a name of its own",
            );
        } else {
            port_names.insert(n);
        }
    }
    for (i, e) in items(c, "env").iter().enumerate() {
        let name = text(e, "name");
        let pos = pos_or(e.get("name"), e);
        if name.is_empty() {
            out.required(
                pos,
                format!("{}.env[{i}].name", path()),
                "",
                "give the environment variable a name",
            );
        } else if let Some(m) = meta::env_var_name_problems(name) {
            out.invalid(pos, format!("{}.env[{i}].name", path()), name, m, "an environment variable name is printable ASCII without '='; write `NAME` and its `value` apart");
        }
    }
    let mut mount_paths = Seen::default();
    for (i, m) in items(c, "volumeMounts").iter().enumerate() {
        let name = text(m, "name");
        let name_pos = pos_or(m.get("name"), m);
        let field = |key: &str| format!("{}.volumeMounts[{i}].{key}", path());
        if name.is_empty() {
            out.required(name_pos, field("name"), "", "name the volume to mount");
        }
        if !volumes.contains(name) {
            out.push(
                name_pos,
                field("name"),
                format!("Not found: {}", quote(name)),
                "mount a volume the pod declares under `volumes` (the runtime's or the InferenceService's), or declare it",
            );
        }
        let mount_path = text(m, "mountPath");
        let path_pos = pos_or(m.get("mountPath"), m);
        if mount_path.is_empty() {
            out.required(
                path_pos,
                field("mountPath"),
                "",
                "say where to mount the volume",
            );
        }
        if mount_paths.contains(mount_path) {
            out.invalid(
                path_pos,
                field("mountPath"),
                mount_path,
                "must be unique",
                "two mounts of the container use one path: mount each at a path of its own",
            );
        }
        mount_paths.insert(mount_path);
    }
    if let Some(r) = c.get("resources").filter(|r| r.as_map().is_some()) {
        resources(r, path, out);
    }
}

/// A quantity as the API server decodes it; `None` for a value ome-render cannot hold
/// (the check is then left out).
fn quantity(node: &Node, field: &dyn Fn() -> String, out: &mut Problems) -> Option<Quantity> {
    let text = match &node.value {
        Value::Str(_) | Value::Int(_) | Value::Float(_) => node.scalar_text()?,
        _ => return None,
    };
    match Quantity::parse(text.trim()) {
        Ok(q) => Some(q),
        Err(QuantityError::Range) => None,
        Err(e) => {
            out.invalid(
                node.pos,
                field(),
                &text,
                &e.to_string(),
                "write a quantity: a number with an optional suffix, such as 500m, 10, 30Gi or 1e3",
            );
            None
        }
    }
}

/// `ValidateContainerResourceRequirements`: names, values, and each request against its limit.
fn resources(r: &Node, path: &dyn Fn() -> String, out: &mut Problems) {
    let list = |key: &str| {
        r.get(key)
            .and_then(Node::as_map)
            .into_iter()
            .flat_map(|m| m.iter())
    };
    let limits_path = || format!("{}.resources.limits", path());
    let requests_path = || format!("{}.resources.requests", path());
    let mut limits: Vec<(&str, Quantity)> = Vec::new();
    for (name, value) in list("limits") {
        let field = || format!("{}[{name}]", limits_path());
        resource_name(name, value.pos, &field, out);
        if let Some(q) = quantity(value, &field, out) {
            quantity_value(name, &q, value.pos, &field, out);
            limits.push((name, q));
        }
    }
    for (name, value) in list("requests") {
        let field = || format!("{}[{name}]", requests_path());
        resource_name(name, value.pos, &field, out);
        let Some(q) = quantity(value, &field, out) else {
            continue;
        };
        quantity_value(name, &q, value.pos, &field, out);
        let overcommit = overcommit_allowed(name);
        match limits.iter().find(|(n, _)| *n == name) {
            Some((_, limit)) => {
                let order = q.compare(limit);
                if order != Ordering::Equal && !overcommit {
                    out.invalid(
                        value.pos,
                        requests_path(),
                        &q.to_string(),
                        &format!("must be equal to {name} limit of {limit}"),
                        "an extended resource (a GPU) cannot be overcommitted: request exactly the limit, or leave the request out (it defaults to the limit)",
                    );
                } else if order == Ordering::Greater {
                    out.invalid(
                        value.pos,
                        requests_path(),
                        &q.to_string(),
                        &format!("must be less than or equal to {name} limit of {limit}"),
                        "raise the limit or lower the request (the InferenceService's resources are merged over the runtime's, key by key)",
                    );
                }
            }
            None if !overcommit => out.required(
                value.pos,
                limits_path(),
                "Limit must be set for non overcommitable resources",
                "an extended resource (a GPU) needs a limit: set it under `limits` (the request may then be left out)",
            ),
            None => {}
        }
    }
}

/// `validateContainerResourceName`.
fn resource_name(name: &str, pos: Pos, field: &dyn Fn() -> String, out: &mut Problems) {
    const HELP: &str = "use cpu, memory, ephemeral-storage, hugepages-<size>, or an extended resource with its domain, such as nvidia.com/gpu";
    let unprefixed = !name.contains('/');
    if !meta::is_qualified_name(name) {
        for m in meta::qualified_name_problems(name) {
            out.invalid(pos, field(), name, &m, HELP);
        }
    } else if unprefixed && !is_standard_resource(name) {
        out.invalid(
            pos,
            field(),
            name,
            "must be a standard resource type or fully qualified",
            HELP,
        );
    }
    if unprefixed {
        if !is_standard_container_resource(name) {
            out.invalid(
                pos,
                field(),
                name,
                "must be a standard resource for containers",
                HELP,
            );
        }
    } else if !is_native_resource(name) && !is_extended_resource(name) {
        out.invalid(
            pos,
            field(),
            name,
            "doesn't follow extended resource name standard",
            HELP,
        );
    }
}

/// `ValidateResourceQuantityValue`: not negative; a whole number for integer resources.
fn quantity_value(
    name: &str,
    q: &Quantity,
    pos: Pos,
    field: &dyn Fn() -> String,
    out: &mut Problems,
) {
    if q.is_negative() {
        out.invalid(
            pos,
            field(),
            &q.to_string(),
            "must be greater than or equal to 0",
            "a resource quantity is 0 or more",
        );
    }
    if is_extended_resource(name) && !q.is_whole() {
        // The API server prints the Go value of the quantity here; its text is clearer.
        out.invalid(pos, field(), &q.to_string(), "must be an integer", "an extended resource (a GPU) is counted in whole units: write 1, 2, …, not a fraction such as 500m");
    }
}

fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// Kubernetes' `IsNativeResource`: unprefixed, or in the `kubernetes.io` domain.
fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// Kubernetes' `IsStandardContainerResourceName`.
fn is_standard_container_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_hugepages(name)
}

/// Kubernetes' `IsStandardResourceName`: the container resources and those of quotas.
fn is_standard_resource(name: &str) -> bool {
    is_standard_container_resource(name)
        || name.starts_with("requests.hugepages-")
        || matches!(
            name,
            "requests.cpu"
                | "requests.memory"
                | "requests.ephemeral-storage"
                | "limits.cpu"
                | "limits.memory"
                | "limits.ephemeral-storage"
                | "pods"
                | "services"
                | "replicationcontrollers"
                | "resourcequotas"
                | "secrets"
                | "configmaps"
                | "persistentvolumeclaims"
                | "storage"
                | "requests.storage"
                | "services.nodeports"
                | "services.loadbalancers"
        )
}

/// Kubernetes' `IsExtendedResourceName`: outside the `kubernetes.io` domain, and a
/// qualified name once prefixed with `requests.` (as a quota names it).
fn is_extended_resource(name: &str) -> bool {
    !is_native_resource(name)
        && !name.starts_with("requests.")
        && meta::is_qualified_name(&format!("requests.{name}"))
}

/// Kubernetes' `IsOvercommitAllowed`: native resources other than huge pages.
fn overcommit_allowed(name: &str) -> bool {
    is_native_resource(name) && !is_hugepages(name)
}

/// The liveness, readiness and startup probes of a container.
fn probes(c: &Node, path: &dyn Fn() -> String, out: &mut Problems) {
    for key in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(p) = c.get(key).filter(|p| p.as_map().is_some()) else {
            continue;
        };
        let field = |sub: &str| {
            if sub.is_empty() {
                format!("{}.{key}", path())
            } else {
                format!("{}.{key}.{sub}", path())
            }
        };
        handler(p, &field, out);
        for count in [
            "initialDelaySeconds",
            "timeoutSeconds",
            "periodSeconds",
            "successThreshold",
            "failureThreshold",
        ] {
            if let Some(n) = p.get(count)
                && let Some(v) = n.as_i64().filter(|v| *v < 0)
            {
                out.invalid_int(
                    n.pos,
                    field(count),
                    v,
                    "must be greater than or equal to 0",
                    "probe counts and durations are 0 or more (0 takes Kubernetes' default)",
                );
            }
        }
        if let Some(n) = p
            .get("terminationGracePeriodSeconds")
            .filter(|n| !n.is_null())
        {
            if key == "readinessProbe" {
                out.push(
                    n.pos,
                    field("terminationGracePeriodSeconds"),
                    format!(
                        "Invalid value: {}: must not be set for readinessProbes",
                        n.scalar_text().unwrap_or_default()
                    ),
                    "remove terminationGracePeriodSeconds from the readiness probe",
                );
            } else if let Some(v) = n.as_i64().filter(|v| *v <= 0) {
                out.invalid_int(
                    n.pos,
                    field("terminationGracePeriodSeconds"),
                    v,
                    "must be greater than 0",
                    "a probe's terminationGracePeriodSeconds is 1 or more",
                );
            }
        }
        if key != "readinessProbe"
            && let Some(n) = p.get("successThreshold")
            && let Some(v) = n.as_i64().filter(|v| *v > 1)
        {
            out.invalid_int(
                n.pos,
                field("successThreshold"),
                v,
                "must be 1",
                "a liveness or startup probe's successThreshold is 1",
            );
        }
    }
}

/// `validateHandler` of a probe: exactly one of `exec`, `httpGet`, `tcpSocket`, `grpc`.
fn handler(p: &Node, field: &dyn Fn(&str) -> String, out: &mut Problems) {
    let mut handlers = 0;
    for kind in ["exec", "httpGet", "tcpSocket", "grpc"] {
        let Some(h) = p.get(kind).filter(|h| !h.is_null()) else {
            continue;
        };
        if handlers > 0 {
            out.push(
                h.pos,
                field(kind),
                format!("Forbidden: {TWO_HANDLERS}"),
                "a probe has one handler: keep one of exec, httpGet, tcpSocket and grpc (the InferenceService's probe replaces the runtime's only when it names the same handler)",
            );
            continue;
        }
        handlers += 1;
        match kind {
            "exec" => {
                if items(h, "command").is_empty() {
                    out.required(
                        pos_or(h.get("command"), h),
                        format!("{}.command", field(kind)),
                        "",
                        "give the exec probe a command",
                    );
                }
            }
            "httpGet" => {
                port(h, &|| format!("{}.port", field(kind)), out);
                let scheme = text(h, "scheme");
                if !scheme.is_empty() && !matches!(scheme, "HTTP" | "HTTPS") {
                    out.not_supported(
                        pos_or(h.get("scheme"), h),
                        format!("{}.scheme", field(kind)),
                        scheme,
                        &["HTTP", "HTTPS"],
                        "use HTTP or HTTPS",
                    );
                }
            }
            _ => port(h, &|| format!("{}.port", field(kind)), out),
        }
    }
    if handlers == 0 {
        out.required(
            p.pos,
            field(""),
            "must specify a handler type",
            "give the probe one of exec, httpGet, tcpSocket or grpc",
        );
    }
}

/// `ValidatePortNumOrName`: a number from 1 to 65535, or an IANA port name.
fn port(h: &Node, field: &dyn Fn() -> String, out: &mut Problems) {
    const HELP: &str =
        "a probe's port is a number from 1 to 65535, or the name of a container port";
    let Some(n) = h.get("port") else {
        out.invalid_int(h.pos, field(), 0, &meta::inclusive_range(1, 65535), HELP);
        return;
    };
    match &n.value {
        Value::Int(v) => {
            if let Some(m) = meta::port_number_problems(*v) {
                out.invalid_int(n.pos, field(), *v, &m, HELP);
            }
        }
        Value::Str(s) => {
            for m in meta::port_name_problems(s) {
                out.invalid(n.pos, field(), s, m, HELP);
            }
        }
        Value::Null => out.invalid_int(n.pos, field(), 0, &meta::inclusive_range(1, 65535), HELP),
        _ => {}
    }
}

/// `ValidateTolerations`.
fn tolerations(spec: &Node, prefix: &str, out: &mut Problems) {
    for (i, t) in items(spec, "tolerations").iter().enumerate() {
        let field = |key: &str| format!("{prefix}.tolerations[{i}].{key}");
        let key = text(t, "key");
        let operator = text(t, "operator");
        let value = text(t, "value");
        let effect = text(t, "effect");
        let at = |k: &str| pos_or(t.get(k), t);
        if !key.is_empty() && !meta::is_qualified_name(key) {
            for m in meta::qualified_name_problems(key) {
                out.invalid(
                    at("key"),
                    field("key"),
                    key,
                    &m,
                    "a toleration's key is a label key",
                );
            }
        }
        if key.is_empty() && operator != "Exists" {
            out.invalid(at("operator"), field("operator"), operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\"", "give the toleration a key, or use operator: Exists");
        }
        if t.get("tolerationSeconds").is_some_and(|s| !s.is_null()) && effect != "NoExecute" {
            out.invalid(
                at("effect"),
                field("effect"),
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
                "tolerationSeconds applies to NoExecute taints only",
            );
        }
        match operator {
            "Equal" | "" => {
                let problems = meta::label_value_problems(value);
                if !problems.is_empty() {
                    out.invalid(at("value"), field("operator"), value, &problems.join(";"), "a toleration's value is a label value: at most 63 letters, digits, '-', '_' and '.'");
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    out.invalid(
                        at("value"),
                        field("operator"),
                        value,
                        "value must be empty when `operator` is 'Exists'",
                        "remove the value, or use operator: Equal",
                    );
                }
            }
            _ => out.not_supported(
                at("operator"),
                field("operator"),
                operator,
                &["Equal", "Exists"],
                "a toleration's operator is Equal or Exists (case matters)",
            ),
        }
        if !effect.is_empty() && !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute")
        {
            out.not_supported(at("effect"), field("effect"), effect, &["NoSchedule", "PreferNoSchedule", "NoExecute"], "a toleration's effect is NoSchedule, PreferNoSchedule or NoExecute (case matters), or empty for all");
        }
    }
}

/// `ValidateLabels` of the node selector: keys qualified names, values label values.
fn node_selector(spec: &Node, prefix: &str, out: &mut Problems) {
    let Some(selector) = spec.get("nodeSelector").and_then(Node::as_map) else {
        return;
    };
    let field = || format!("{prefix}.nodeSelector");
    for (key, value) in selector.iter() {
        if !meta::is_qualified_name(key) {
            for m in meta::qualified_name_problems(key) {
                out.invalid(
                    value.pos,
                    field(),
                    key,
                    &m,
                    "a node selector's key is a label key",
                );
            }
        }
        let Some(v) = value.as_str() else {
            continue;
        };
        if !meta::is_label_value(v) {
            for m in meta::label_value_problems(v) {
                out.invalid(value.pos, field(), v, &m, "a node selector's value is a node label's value: at most 63 letters, digits, '-', '_' and '.'");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(yaml: &str) -> Vec<String> {
        let spec = crate::yaml::parse::parse_stream(yaml, 0)
            .unwrap()
            .remove(0)
            .root;
        let mut out = Problems { out: Vec::new() };
        pod_spec(&spec, "spec.template.spec", &mut out);
        out.out.into_iter().map(|p| p.message).collect()
    }

    const C: &str = "spec.template.spec.containers[0]";

    #[test]
    fn a_valid_pod_passes() {
        assert!(problems(
            "containers:\n- name: ome-container\n  ports: [{name: http, containerPort: 8080}]\n  env: [{name: HF_HOME, value: /x}]\n  resources:\n    requests: {cpu: '10', memory: 30Gi, nvidia.com/gpu: 8}\n    limits: {cpu: '20', memory: 60Gi, nvidia.com/gpu: '8'}\n  volumeMounts: [{name: model, mountPath: /mnt/models}]\n  readinessProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10}\nvolumes: [{name: model, hostPath: {path: /x}}]\ntolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\nnodeSelector: {node.kubernetes.io/instance-type: BM.GPU.H100.8}\n"
        )
        .is_empty());
    }

    #[test]
    fn negative_quantities() {
        assert_eq!(
            problems(
                "containers: [{name: c, resources: {limits: {nvidia.com/gpu: '-1', memory: -30Gi}}}]"
            ),
            [
                format!(
                    "{C}.resources.limits[nvidia.com/gpu]: Invalid value: \"-1\": must be greater than or equal to 0"
                ),
                format!(
                    "{C}.resources.limits[memory]: Invalid value: \"-30Gi\": must be greater than or equal to 0"
                ),
            ]
        );
    }

    #[test]
    fn extended_resources_are_whole_and_limited() {
        assert_eq!(
            problems("containers: [{name: c, resources: {limits: {nvidia.com/gpu: 500m}}}]"),
            [format!(
                "{C}.resources.limits[nvidia.com/gpu]: Invalid value: \"500m\": must be an integer"
            )]
        );
        assert_eq!(
            problems("containers: [{name: c, resources: {requests: {nvidia.com/gpu: 1}}}]"),
            [format!(
                "{C}.resources.limits: Required value: Limit must be set for non overcommitable resources"
            )]
        );
        assert_eq!(
            problems(
                "containers: [{name: c, resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}}]"
            ),
            [format!(
                "{C}.resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu limit of 2"
            )]
        );
    }

    #[test]
    fn a_request_over_its_limit() {
        assert_eq!(
            problems(
                "containers: [{name: c, resources: {requests: {cpu: '4', memory: 512Gi}, limits: {cpu: 2000m, memory: 192Gi}}}]"
            ),
            [
                format!(
                    "{C}.resources.requests: Invalid value: \"4\": must be less than or equal to cpu limit of 2"
                ),
                format!(
                    "{C}.resources.requests: Invalid value: \"512Gi\": must be less than or equal to memory limit of 192Gi"
                ),
            ]
        );
        assert!(
            problems(
                "containers: [{name: c, resources: {requests: {cpu: 1000m}, limits: {cpu: '1'}}}]"
            )
            .is_empty()
        );
    }

    #[test]
    fn unqualified_resource_names() {
        assert_eq!(
            problems("containers: [{name: c, resources: {limits: {gpus: 1}}}]"),
            [
                format!(
                    "{C}.resources.limits[gpus]: Invalid value: \"gpus\": must be a standard resource type or fully qualified"
                ),
                format!(
                    "{C}.resources.limits[gpus]: Invalid value: \"gpus\": must be a standard resource for containers"
                ),
            ]
        );
        assert!(problems("containers: [{name: c, resources: {limits: {hugepages-2Mi: 1Gi, example.com/foo: 1}}}]").is_empty());
    }

    #[test]
    fn probe_ports_and_handlers() {
        assert_eq!(
            problems(
                "containers: [{name: c, livenessProbe: {tcpSocket: {port: 0}}, readinessProbe: {httpGet: {port: 70000}}}]"
            ),
            [
                format!(
                    "{C}.livenessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive"
                ),
                format!(
                    "{C}.readinessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive"
                ),
            ]
        );
        assert_eq!(
            problems(
                "containers: [{name: c, startupProbe: {httpGet: {port: http}, tcpSocket: {port: 8080}}}]"
            ),
            [format!(
                "{C}.startupProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"
            )]
        );
        assert_eq!(
            problems("containers: [{name: c, livenessProbe: {periodSeconds: 10}}]"),
            [format!(
                "{C}.livenessProbe: Required value: must specify a handler type"
            )]
        );
    }

    #[test]
    fn negative_probe_fields() {
        assert_eq!(
            problems(
                "containers: [{name: c, readinessProbe: {exec: {command: [x]}, periodSeconds: -1, initialDelaySeconds: -5, failureThreshold: -3}}]"
            ),
            [
                format!(
                    "{C}.readinessProbe.initialDelaySeconds: Invalid value: -5: must be greater than or equal to 0"
                ),
                format!(
                    "{C}.readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0"
                ),
                format!(
                    "{C}.readinessProbe.failureThreshold: Invalid value: -3: must be greater than or equal to 0"
                ),
            ]
        );
    }

    #[test]
    fn duplicate_port_names() {
        assert_eq!(
            problems(
                "containers: [{name: c, ports: [{name: http, containerPort: 80}, {name: http, containerPort: 81}]}]"
            ),
            [format!("{C}.ports[1].name: Duplicate value: \"http\"")]
        );
    }

    #[test]
    fn container_names_are_unique_labels() {
        assert_eq!(
            problems("containers: [{name: c}, {name: c}]"),
            ["spec.template.spec.containers[1].name: Duplicate value: \"c\""]
        );
        assert_eq!(
            problems("containers: [{name: c}]\ninitContainers: [{name: c}]"),
            ["spec.template.spec.initContainers[0].name: Duplicate value: \"c\""]
        );
        let m = problems("containers: [{name: Engine}]");
        assert_eq!(m.len(), 1);
        assert!(
            m[0].starts_with(&format!(
                "{C}.name: Invalid value: \"Engine\": a lowercase RFC 1123 label must consist of"
            )),
            "{m:?}"
        );
    }

    #[test]
    fn volume_names_and_mounts() {
        let m = problems("containers: [{name: c}]\nvolumes: [{name: Models, emptyDir: {}}]");
        assert_eq!(m.len(), 1);
        assert!(m[0].starts_with("spec.template.spec.volumes[0].name: Invalid value: \"Models\": a lowercase RFC 1123 label"));
        assert_eq!(
            problems(
                "containers: [{name: c}]\nvolumes: [{name: m, emptyDir: {}}, {name: m, emptyDir: {}}]"
            ),
            ["spec.template.spec.volumes[1].name: Duplicate value: \"m\""]
        );
        assert_eq!(
            problems("containers: [{name: c, volumeMounts: [{name: missing, mountPath: /a}]}]"),
            [format!("{C}.volumeMounts[0].name: Not found: \"missing\"")]
        );
        assert_eq!(
            problems(
                "containers: [{name: c, volumeMounts: [{name: m, mountPath: /a}, {name: n, mountPath: /a}]}]\nvolumes: [{name: m, emptyDir: {}}, {name: n, emptyDir: {}}]"
            ),
            [format!(
                "{C}.volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique"
            )]
        );
    }

    #[test]
    fn environment_variable_names() {
        assert_eq!(
            problems("containers: [{name: c, env: [{name: '', value: x}, {name: A=B, value: y}]}]"),
            [
                format!("{C}.env[0].name: Required value"),
                format!(
                    "{C}.env[1].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='"
                ),
            ]
        );
    }

    #[test]
    fn toleration_enums() {
        assert_eq!(
            problems(
                "containers: [{name: c}]\ntolerations: [{key: gpu, operator: In, effect: NoSchedul}]"
            ),
            [
                "spec.template.spec.tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
                "spec.template.spec.tolerations[0].effect: Unsupported value: \"NoSchedul\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            ]
        );
    }

    #[test]
    fn node_selector_values() {
        let long = "a".repeat(64);
        assert_eq!(
            problems(&format!(
                "containers: [{{name: c}}]\nnodeSelector: {{pool: {long}}}"
            )),
            [format!(
                "spec.template.spec.nodeSelector: Invalid value: \"{long}\": must be no more than 63 characters"
            )]
        );
    }
}
