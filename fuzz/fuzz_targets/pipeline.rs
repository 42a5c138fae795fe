//! The whole pipeline from bytes: up to eight files, split at NUL bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ome_render::fuzzing::pipeline(data));
