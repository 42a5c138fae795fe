//! Selection: which runtime serves an InferenceService (named or auto-selected), and which
//! accelerator class each component runs on.

pub mod accelerator_policy;
