//! dxso-cli's integration tests, one binary (each module was a binary of its own: one link
//! instead of 6).

mod cli;
mod decompile;
mod draw;
mod fuzz_regressions;
mod gpu;
mod hostile;
mod peak_memory;
mod readme;
mod serve;
mod translate;
mod translate_limits;
