//! The checks behind dxso's fuzz targets, one public function per target. Each takes the
//! fuzzer's bytes, runs them through the library the way the `dxso` command line does, and
//! panics when a property fails (libFuzzer reports the panic as a finding). The same
//! functions replay the kept findings under the ordinary `cargo test`
//! (`crates/dxso-cli/tests/it/fuzz_regressions.rs` includes this file), so a regression input
//! goes through exactly the code the fuzzer ran.

// The engine targets need `dxso-vm`, `dxso-naga` and the command line's loaders (feature `engine`, on by
// default; always on in the replay test, which is built with `test`).
#[cfg(any(feature = "engine", test))]
mod differential;
#[cfg(any(feature = "engine", test))]
mod differential_pixel;
mod format;
#[cfg(any(feature = "engine", test))]
mod loaders;
#[cfg(any(feature = "engine", test))]
mod translate;

#[cfg(any(feature = "engine", test))]
pub use differential::differential;
#[cfg(any(feature = "engine", test))]
pub use differential_pixel::differential_pixel;
pub use format::{assembler, ctab, law, linker, reader, validator};
#[cfg(any(feature = "engine", test))]
pub use loaders::{dds, draw_scene, gltf, obj, png, scene};
#[cfg(any(feature = "engine", test))]
pub use translate::translate;
