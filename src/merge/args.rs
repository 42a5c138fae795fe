//! Argument merging for per-accelerator overrides (`runtimeArgsOverride`,
//! `tensorParallelismOverride`).
