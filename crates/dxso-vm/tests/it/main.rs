//! dxso-vm's integration tests, one binary (each module was a binary of its own: one link
//! instead of 11).

mod by_name;
mod common;
mod corpus;
mod equivalence;
mod exact_code;
mod flow;
mod guard;
mod hostile;
mod instructions;
mod pixel_compiled;
mod pixel_random;
mod random;
mod stream_data;
mod texture;
mod what_windows_does;
