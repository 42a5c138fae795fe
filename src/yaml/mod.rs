//! YAML in and out: the position-carrying document tree ([`Node`]), the parser that builds
//! it from text, and the emitter that writes it back as YAML 1.1-safe YAML or JSON.

mod document;
pub(crate) mod emit;
mod fast;
mod key;
mod node;
pub(crate) mod parse;
mod scalar;

pub(crate) use node::{Map, Node, Pos, Value};
