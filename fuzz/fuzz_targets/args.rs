//! `runtimeArgsOverride` merged into `args`, then the tensor/pipeline-parallel rewrite.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    |input: (Vec<String>, Vec<String>, Option<i64>, Option<i64>)| {
        let (args, overrides, tensor, pipeline) = input;
        ome_render::fuzzing::args(&args, &overrides, tensor, pipeline);
    }
);
