//! The diagnostic renderers (miette reports, GitHub annotations, JSON lines) on any source
//! text, at any positions, with any message.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, Vec<(u32, u32)>, String)| {
    let (text, positions, message) = input;
    // Positions near the text are the interesting ones; keep some far ones too.
    let positions: Vec<(u32, u32)> = positions
        .into_iter()
        .take(64)
        .map(|(line, col)| {
            if line % 8 == 0 {
                (line, col)
            } else {
                (line % 64, col % 200_000)
            }
        })
        .collect();
    ome_render::fuzzing::diagnostics(&text, &positions, &message);
});
