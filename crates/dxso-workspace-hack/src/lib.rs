//! No code: this crate's dependencies pin one feature set for the crates that dxso's command,
//! C library and Python module share, so that building one after another reuses its artifacts
//! (see its Cargo.toml).
