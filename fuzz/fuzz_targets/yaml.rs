//! The YAML reader on any text, and each document back through the YAML and JSON emitters.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The loader refuses text that is not UTF-8 before the reader sees it.
    if let Ok(text) = std::str::from_utf8(data) {
        ome_render::fuzzing::yaml(text);
    }
});
