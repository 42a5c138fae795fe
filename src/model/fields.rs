//! Typed reads from a [`Node`], each reporting a wrong type as an `InvalidField` diagnostic
//! that names the object, the field path and the position.

use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::yaml::{Map, Node, Value};

/// Reads fields of one object, collecting type errors.
pub(crate) struct Reader<'a> {
    pub(crate) object: &'a ObjectId,
    pub(crate) diags: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    pub(crate) fn invalid(&mut self, node: &Node, path: &str, expected: &str) {
        self.diags.push(
            Diagnostic::error(
                Code::InvalidField,
                format!("expected {expected}, found {}", node.type_name()),
            )
            .at(node.pos)
            .object(self.object.clone())
            .field(path)
            .help(
                if expected == "a string"
                    && matches!(node.value, Value::Int(_) | Value::Float(_) | Value::Bool(_))
                {
                    "quote the value, as the API server accepts only a string here".to_string()
                } else {
                    format!("write {expected} here")
                },
            ),
        );
    }

    /// `parent.key` as a string; absent or null is `None`.
    pub(crate) fn str(&mut self, parent: &Node, key: &str, path: &str) -> Option<String> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Str(s) => Some(s.clone()),
            _ => {
                self.invalid(node, &join(path, key), "a string");
                None
            }
        }
    }

    pub(crate) fn bool(&mut self, parent: &Node, key: &str, path: &str) -> Option<bool> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            _ => {
                self.invalid(node, &join(path, key), "true or false");
                None
            }
        }
    }

    pub(crate) fn int(&mut self, parent: &Node, key: &str, path: &str) -> Option<i64> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Int(i) => Some(*i),
            _ => {
                self.invalid(node, &join(path, key), "an integer");
                None
            }
        }
    }

    /// `parent.key` when it is a map (a null is absent).
    pub(crate) fn map<'n>(&mut self, parent: &'n Node, key: &str, path: &str) -> Option<&'n Node> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Map(_) => Some(node),
            _ => {
                self.invalid(node, &join(path, key), "a map");
                None
            }
        }
    }

    pub(crate) fn seq<'n>(
        &mut self,
        parent: &'n Node,
        key: &str,
        path: &str,
    ) -> Option<&'n [Node]> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Seq(items) => Some(items),
            _ => {
                self.invalid(node, &join(path, key), "a list");
                None
            }
        }
    }

    /// A list of strings.
    pub(crate) fn strings(&mut self, parent: &Node, key: &str, path: &str) -> Option<Vec<String>> {
        let items = self.seq(parent, key, path)?;
        let field = join(path, key);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match &item.value {
                Value::Str(s) => out.push(s.clone()),
                _ => self.invalid(item, &format!("{field}[{i}]"), "a string"),
            }
        }
        Some(out)
    }

    /// A map of strings to strings, in key order.
    pub(crate) fn string_map(
        &mut self,
        parent: &Node,
        key: &str,
        path: &str,
    ) -> Option<Vec<(String, String)>> {
        let node = self.map(parent, key, path)?;
        let field = join(path, key);
        let mut out = Vec::new();
        for (k, v) in node.as_map().map(Map::iter).into_iter().flatten() {
            match &v.value {
                Value::Str(s) => out.push((k.to_string(), s.clone())),
                _ => self.invalid(v, &join(&field, k), "a string"),
            }
        }
        out.sort();
        Some(out)
    }

    /// A Kubernetes quantity (`"8"`, `8`, `80Gi`) as text.
    pub(crate) fn quantity(&mut self, parent: &Node, key: &str, path: &str) -> Option<String> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Null => None,
            Value::Str(_) | Value::Int(_) | Value::Float(_) => node.scalar_text(),
            _ => {
                self.invalid(node, &join(path, key), "a quantity");
                None
            }
        }
    }
}

/// `path.key`, or `key` at the top.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
