//! The Kubernetes vocabulary every layer uses, pure and beneath them all (ARCHITECTURE.md):
//! `kinds` (the one table of kinds: group, scope, origin), `id` (the one object identity),
//! `quantity` (resource quantities as apimachinery reads, compares and writes them),
//! `meta` (the rules of names, label keys and values, port and environment variable names) and
//! `api_versions` (the APIs a cluster serves, as the user lists them).

pub(crate) mod api_versions;
pub(crate) mod id;
pub(crate) mod kinds;
pub(crate) mod meta;
pub(crate) mod quantity;
