//! Go's behaviours that OME's code relies on and the renderer reproduces, so that messages,
//! hashes and decoded values are OME's own (SEMANTICS.md#go-behaviours).
//!
//! - `strconv`: `%q` quoting (`strconv.Quote`) and `strconv.Atoi`, with Go's error texts;
//! - `json`: the one JSON reader: `json.Unmarshal`'s syntax and error texts, into a
//!   position-carrying tree;
//! - `encode`: `json.Marshal` and `json.MarshalIndent`'s output, Go's escapes included;
//! - `decode`: `encoding/json`'s decoding into a struct: keys matched to fields without
//!   regard to case, the last of several winning, wrong types reported.

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod json;
mod strconv;

pub(crate) use strconv::{atoi, parse_duration, quote};
