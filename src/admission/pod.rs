//! The typed fields of the pods an InferenceService or a runtime declares, as the API server
//! sees them (SEMANTICS.md#typed-fields): first the CRD schema of the OME object (types,
//! `format: int32`, the quantity pattern), then what it refuses in the Deployment OME's
//! controller creates from them (ports 1–65535, the protocol enum, port names). Every
//! component's runner, its `containers` and `initContainers`, its leader and worker, and a
//! runtime's own pod spec are checked, each where it is written; a value of the wrong type
//! is reported once, by the schema.

use super::{Findings, present};
use crate::diagnostics::Code;
use crate::k8s::meta::port_name_problems;
use crate::k8s::quantity::{self, PATTERN as QUANTITY_PATTERN};
use crate::yaml::{Node, Value};

const CODE: Code = Code::InvalidField;

/// The JSON type kube-openapi names in its messages.
pub(crate) fn json_type(node: &Node) -> &'static str {
    match &node.value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) => "number",
        Value::Str(_) => "string",
        Value::Seq(_) => "array",
        Value::Map(_) => "object",
    }
}

impl Findings<'_> {
    /// The API server's type error of the CRD schema: `<path>: Invalid value: "string": <path>
    /// in body must be of type integer: "string"`.
    pub(crate) fn wrong_type(&mut self, node: &Node, path: &str, expected: &str, help: &str) {
        let t = json_type(node);
        let d = self
            .error(
                CODE,
                node.pos,
                path,
                format!("{path}: Invalid value: \"{t}\": {path} in body must be of type {expected}: \"{t}\""),
            )
            .help(help);
        self.push(d);
    }

    /// An integer field of the CRD schema: its value when it is one, else the type error.
    pub(crate) fn integer_field(&mut self, node: &Node, path: &str) -> Option<i64> {
        match &node.value {
            Value::Int(i) => Some(*i),
            Value::Null => None,
            _ => {
                let help = if node
                    .as_str()
                    .is_some_and(|t| t.trim().parse::<i64>().is_ok())
                {
                    "write the number without quotes"
                } else {
                    "write a whole number"
                };
                self.wrong_type(node, path, "integer", help);
                None
            }
        }
    }

    /// An integer of the CRD schema with `format: int32`: kube-openapi refuses a value that
    /// doesn't fit (its text, without the `<nil>: Invalid value: "": ` the API server puts
    /// before it).
    pub(crate) fn int32_field(&mut self, node: &Node, path: &str) -> Option<i64> {
        let v = self.integer_field(node, path)?;
        if i32::try_from(v).is_err() {
            let d = self
                .error(
                    CODE,
                    node.pos,
                    path,
                    format!("Checked value must be of type integer with format int32 in {path}"),
                )
                .help(format!(
                    "the field is an int32: use a number from {} to {}",
                    i32::MIN,
                    i32::MAX
                ));
            self.push(d);
            return None;
        }
        Some(v)
    }

    /// apimachinery's `InclusiveRangeError`, on a value already known to be an integer.
    fn in_range(&mut self, node: &Node, path: &str, v: i64, lo: i64, hi: i64, help: &str) {
        if v < lo || v > hi {
            let d = self
                .error(
                    CODE,
                    node.pos,
                    path,
                    format!("{path}: Invalid value: {v}: must be between {lo} and {hi}, inclusive"),
                )
                .help(help);
            self.push(d);
        }
    }

    /// A replica count OME's controller converts to an `int32` (an HPA's or ScaledObject's
    /// bounds, a Deployment's or LeaderWorkerSet's replicas, a LeaderWorkerSet's size): the
    /// schema's `integer`, then a value an int32 holds, since the conversion would wrap
    /// around. Negative values are left to the webhook rules that have their own text.
    pub(crate) fn replica_count(&mut self, parent: &Node, key: &str, path: &str) {
        let Some(n) = present(parent, key) else {
            return;
        };
        let p = format!("{path}.{key}");
        if let Some(v) = self.integer_field(n, &p)
            && v > i64::from(i32::MAX)
        {
            self.in_range(
                n,
                &p,
                v,
                0,
                i64::from(i32::MAX),
                "OME's controller converts replica counts to the int32 of a HorizontalPodAutoscaler, a ScaledObject, a Deployment or a LeaderWorkerSet, where this value would wrap around",
            );
        }
    }
}

/// The pod fields of a component as written (an InferenceService's `spec.<c>`, a runtime's
/// `spec.<c>Config`, or a runtime's `spec` itself, whose `containers` are its pod spec):
/// the runner, `containers`, `initContainers`, and the leader's and worker's.
pub(crate) fn check_component(f: &mut Findings<'_>, component: &Node, path: &str) {
    if component.as_map().is_none() {
        return;
    }
    check_pod(f, component, path);
    for part in ["leader", "worker"] {
        if let Some(p) = present(component, part).filter(|p| p.as_map().is_some()) {
            check_pod(f, p, &format!("{path}.{part}"));
        }
    }
}

/// A node holding a `runner` and the pod spec's container lists.
fn check_pod(f: &mut Findings<'_>, pod: &Node, path: &str) {
    if let Some(runner) = present(pod, "runner").filter(|r| r.as_map().is_some()) {
        check_container(f, runner, &format!("{path}.runner"));
    }
    for list in ["containers", "initContainers"] {
        let Some(items) = present(pod, list).and_then(Node::as_seq) else {
            continue;
        };
        for (i, c) in items.iter().enumerate() {
            if c.as_map().is_some() {
                check_container(f, c, &format!("{path}.{list}[{i}]"));
            }
        }
    }
}

fn check_container(f: &mut Findings<'_>, container: &Node, path: &str) {
    if let Some(ports) = present(container, "ports").and_then(Node::as_seq) {
        for (i, port) in ports.iter().enumerate() {
            if port.as_map().is_some() {
                check_port(f, port, &format!("{path}.ports[{i}]"));
            }
        }
    }
    if let Some(resources) = present(container, "resources").filter(|r| r.as_map().is_some()) {
        for key in ["requests", "limits"] {
            let Some(list) = present(resources, key).and_then(Node::as_map) else {
                continue;
            };
            // The path is made only for a value to report.
            for (name, value) in list.iter().filter(|(_, v)| !is_valid_quantity(v)) {
                quantity_field(f, value, &format!("{path}.resources.{key}.{name}"));
            }
        }
    }
}

/// One `ports[]` item: the CRD's types, then the pod validation of the Deployment.
fn check_port(f: &mut Findings<'_>, port: &Node, path: &str) {
    match present(port, "containerPort") {
        None => f.required(CODE, port.pos, &format!("{path}.containerPort")),
        Some(n) => {
            let p = format!("{path}.containerPort");
            if let Some(v) = f.int32_field(n, &p) {
                f.in_range(
                    n,
                    &p,
                    v,
                    1,
                    65535,
                    "a container port is a number from 1 to 65535",
                );
            }
        }
    }
    if let Some(n) = present(port, "hostPort") {
        let p = format!("{path}.hostPort");
        if let Some(v) = f.int32_field(n, &p)
            && v != 0
        {
            f.in_range(
                n,
                &p,
                v,
                1,
                65535,
                "a host port is a number from 1 to 65535, or 0 for none",
            );
        }
    }
    if let Some(n) = present(port, "protocol") {
        let p = format!("{path}.protocol");
        match n.as_str() {
            None => f.wrong_type(n, &p, "string", "write TCP, UDP or SCTP"),
            Some(s) if !["SCTP", "TCP", "UDP"].contains(&s) => {
                f.unsupported(CODE, n, &p, &["SCTP", "TCP", "UDP"]);
            }
            Some(_) => {}
        }
    }
    if let Some(n) = present(port, "name") {
        let p = format!("{path}.name");
        match n.as_str() {
            None => f.wrong_type(n, &p, "string", "quote the name"),
            Some(name) if !name.is_empty() => {
                for m in port_name_problems(name) {
                    let d = f
                        .error(
                            CODE,
                            n.pos,
                            &p,
                            format!("{p}: Invalid value: {}: {m}", crate::go::quote(name)),
                        )
                        .help("a port name is at most 15 lowercase letters, digits and '-', with a letter, and no '-' at either end or twice in a row (the Service's ports take it)");
                    f.push(d);
                }
            }
            Some(_) => {}
        }
    }
}

/// Whether [`quantity_field`] finds nothing to report in `node`.
fn is_valid_quantity(node: &Node) -> bool {
    match &node.value {
        Value::Int(_) | Value::Null => true,
        Value::Str(s) => quantity::pattern_matches(s),
        _ => false,
    }
}

/// A resource quantity of the CRD schema: an integer or a string matching
/// [`QUANTITY_PATTERN`] (`x-kubernetes-int-or-string`); a YAML float such as `0.5` is a JSON
/// number, which the schema refuses.
pub(crate) fn quantity_field(f: &mut Findings<'_>, node: &Node, path: &str) {
    if is_valid_quantity(node) {
        return;
    }
    match &node.value {
        Value::Str(s) => {
            let d = f
                .error(
                    CODE,
                    node.pos,
                    path,
                    format!(
                        "{path}: Invalid value: {}: {path} in body should match '{QUANTITY_PATTERN}'",
                        crate::go::quote(s)
                    ),
                )
                .help("write a quantity: a number with an optional suffix, such as 500m, 10, 30Gi or 1e3");
            f.push(d);
        }
        Value::Float(text) => {
            let help = format!(
                "quote it (\"{text}\"): the CRD takes a quantity as an integer or a string, not as a decimal number"
            );
            f.wrong_type(node, path, "integer,string", &help);
        }
        _ => f.wrong_type(
            node,
            path,
            "integer,string",
            "write a quantity, such as \"500m\", 10 or \"30Gi\"",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::id::ObjectId;
    use crate::yaml::Pos;

    fn messages(yaml: &str) -> Vec<String> {
        let root = crate::yaml::parse::parse_stream(yaml, 0)
            .unwrap()
            .remove(0)
            .root;
        let object = ObjectId {
            kind: "ServingRuntime".into(),
            namespace: String::new(),
            name: "rt".into(),
            group: String::new(),
        };
        let mut f = Findings::new(&object, Pos::NONE);
        check_component(&mut f, &root, "spec.engineConfig");
        f.diags.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn ports_and_resources_of_every_container() {
        assert!(messages(
            "runner: {ports: [{containerPort: 8080, name: http1, protocol: TCP}], resources: {requests: {cpu: '10', memory: 30Gi, nvidia.com/gpu: 1}}}"
        )
        .is_empty());
        assert_eq!(
            messages("runner: {ports: [{containerPort: 70000}]}"),
            [
                "spec.engineConfig.runner.ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"
            ]
        );
        assert_eq!(
            messages("runner: {ports: [{containerPort: http}]}"),
            [
                "spec.engineConfig.runner.ports[0].containerPort: Invalid value: \"string\": spec.engineConfig.runner.ports[0].containerPort in body must be of type integer: \"string\""
            ]
        );
        assert_eq!(
            messages("leader: {runner: {ports: [{containerPort: 2147483648}]}}"),
            [
                "Checked value must be of type integer with format int32 in spec.engineConfig.leader.runner.ports[0].containerPort"
            ]
        );
        assert_eq!(
            messages("containers: [{name: x, ports: [{containerPort: 80, protocol: tcp}]}]"),
            [
                "spec.engineConfig.containers[0].ports[0].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\""
            ]
        );
        assert_eq!(
            messages("runner: {ports: [{name: http}]}"),
            ["spec.engineConfig.runner.ports[0].containerPort: Required value"]
        );
        assert_eq!(
            messages("worker: {runner: {resources: {limits: {cpu: [ten], memory: ten, x: 0.5}}}}"),
            [
                "spec.engineConfig.worker.runner.resources.limits.cpu: Invalid value: \"array\": spec.engineConfig.worker.runner.resources.limits.cpu in body must be of type integer,string: \"array\"".to_string(),
                format!("spec.engineConfig.worker.runner.resources.limits.memory: Invalid value: \"ten\": spec.engineConfig.worker.runner.resources.limits.memory in body should match '{QUANTITY_PATTERN}'"),
                "spec.engineConfig.worker.runner.resources.limits.x: Invalid value: \"number\": spec.engineConfig.worker.runner.resources.limits.x in body must be of type integer,string: \"number\"".to_string(),
            ]
        );
    }

    #[test]
    fn replica_counts_fit_an_int32() {
        let object = ObjectId {
            kind: "InferenceService".into(),
            namespace: String::new(),
            name: "x".into(),
            group: String::new(),
        };
        let root =
            crate::yaml::parse::parse_stream("{a: 2147483647, b: 2147483648, c: '10', d: -1}", 0)
                .unwrap()
                .remove(0)
                .root;
        let mut f = Findings::new(&object, Pos::NONE);
        for key in ["a", "b", "c", "d"] {
            f.replica_count(&root, key, "spec.engine");
        }
        let m: Vec<String> = f.diags.into_iter().map(|d| d.message).collect();
        assert_eq!(
            m,
            [
                "spec.engine.b: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
                "spec.engine.c: Invalid value: \"string\": spec.engine.c in body must be of type integer: \"string\"",
            ]
        );
    }
}
