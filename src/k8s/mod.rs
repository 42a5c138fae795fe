//! The Kubernetes vocabulary every layer uses, pure and beneath them all (ARCHITECTURE.md):
//! `quantity` (resource quantities as apimachinery reads, compares and writes them) and
//! `meta` (the rules of names, label keys and values, port and environment variable names).

pub(crate) mod meta;
pub(crate) mod quantity;
