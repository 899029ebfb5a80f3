//! The checks behind dxso's fuzz targets, one public function per target. Each takes the
//! fuzzer's bytes, runs them through the library the way the `dxso` command line does, and
//! panics when a property fails (libFuzzer reports the panic as a finding). The same
//! functions replay the kept findings under the ordinary `cargo test`
//! (`crates/dxso-cli/tests/fuzz_regressions.rs` includes this file), so a regression input
//! goes through exactly the code the fuzzer ran.

mod differential;
mod format;
mod loaders;

pub use differential::differential;
pub use format::{assembler, law, linker, reader, validator};
pub use loaders::{dds, gltf, obj, png, scene};
