//! Inspection: the reports of `explain`, `explain --effective` and `tree`, built from the
//! catalog and the selection and rendered as text; pure (values in, data and strings out).
//! The commands read the arguments and print.
//!
//! - [`explain`]: the `explain` rows and their table and JSON renderings;
//! - [`effective`]: `explain --effective`, the runtime spec after inheritance, preset and
//!   accelerator settings, annotated with where each value comes from;
//! - [`tree`]: a runtime's inheritance tree and its users, for `ome-render tree`.

pub(crate) mod effective;
pub(crate) mod explain;
pub(crate) mod tree;
