//! The diff reports (Markdown for a pull-request comment, text for a terminal) with any
//! labels, names, kinds and diffs: nothing of the input acts as markup or as a control
//! sequence (FUZZING.md).
#![no_main]
use libfuzzer_sys::fuzz_target;
use ome_render::fuzzing::ReportObject;

fuzz_target!(|input: (String, String, Option<(String, String)>, Vec<ReportObject>, u16)| {
    let (base, head, isvc, mut objects, max_bytes) = input;
    objects.truncate(16);
    let isvc = isvc.as_ref().map(|(ns, name)| (ns.as_str(), name.as_str()));
    ome_render::fuzzing::reports((&base, &head), isvc, &objects, usize::from(max_bytes));
});
