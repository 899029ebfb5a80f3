//! dxso-naga's integration tests, one binary (each module was a binary of its own: one link
//! instead of 6).

mod corpus;
mod eval;
mod external;
mod interface;
mod limits;
mod properties;
mod ps1x;
mod validators;
mod wgsl;
