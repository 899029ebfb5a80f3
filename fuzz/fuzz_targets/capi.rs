//! `capi`: the C library driven as C drives it, by the random-call program in
//! crates/dxso-capi/src/calls.rs (the same program the crate's unit test runs on seeded random
//! bytes): each call is chosen by a byte and its arguments come from the bytes after it.
//! DXSO_STATUS_INTERNAL (a panic inside, or a poisoned device) is a finding, as is a crash.
//!
//! dxso-capi is a cdylib and staticlib only (its library name, `dxso`, is the format crate's
//! too, so it has no rlib), and cannot be a dependency: its sources are compiled into this
//! binary as the module `capi` (they name their root `super::` for this; cargo-fuzz's
//! `--cfg fuzzing` compiles the `calls` module in).
#![no_main]

// The name the C library's sources give the format crate.
extern crate dxso as dxso_format;

// The enums' variants are for C's header; the program passes their values as C does.
#[allow(dead_code)]
#[path = "../../crates/dxso-capi/src/lib.rs"]
mod capi;

libfuzzer_sys::fuzz_target!(|data: &[u8]| capi::calls::run(data));
