//! YAML in and out: the position-carrying document tree ([`Node`]), the parser that builds
//! it from text, and the emitter that writes it back as YAML 1.1-safe YAML or JSON.

pub mod emit;
mod node;
pub mod parse;

pub use node::{Map, Node, Pos, Value};
