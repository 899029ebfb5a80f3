//! Empty: Cargo resolves `[build-dependencies]` only for a package with a build script, and
//! this crate's build dependencies exist to pin their features (see Cargo.toml).
fn main() {}
