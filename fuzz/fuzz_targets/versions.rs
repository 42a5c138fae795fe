//! OME's version parser and comparison, on three versions and an operator.
#![no_main]
use libfuzzer_sys::fuzz_target;

const OPERATORS: [&str; 4] = ["Equal", "GreaterThan", "GreaterThanOrEqual", ""];

fuzz_target!(|input: (String, String, String, u8)| {
    let (a, b, c, op) = input;
    ome_render::fuzzing::versions(&a, &b, &c, OPERATORS[usize::from(op) % OPERATORS.len()]);
});
