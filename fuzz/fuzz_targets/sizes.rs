//! OME's parameter-size parser, with a range of optional bounds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, Option<String>, Option<String>)| {
    let (size, min, max) = input;
    ome_render::fuzzing::sizes(&size, min.as_deref(), max.as_deref());
});
