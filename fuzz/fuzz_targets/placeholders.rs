//! The placeholder expander on any string, with any labels and annotations.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, Vec<(String, String)>)| {
    let (text, pairs) = input;
    ome_render::fuzzing::placeholders(&text, &pairs);
});
