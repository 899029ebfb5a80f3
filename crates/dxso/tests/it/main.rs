//! dxso's integration tests, one binary (each module was a binary of its own: one link
//! instead of 5).

mod conformance;
mod corpus;
mod ctab;
mod ctab_corpus;
mod formula_lint;
mod properties;
