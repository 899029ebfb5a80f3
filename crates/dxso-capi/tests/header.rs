//! `include/dxso.h` is what cbindgen generates from the code: this test regenerates it and
//! fails when the committed header differs (so it never drifts). `DXSO_BLESS=1` rewrites it.

use std::path::PathBuf;

#[test]
fn header_matches_the_code() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = dir.join("include/dxso.h");
    if std::env::var_os("DXSO_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/dxso.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/dxso.h differs from what the code generates; run \
         `DXSO_BLESS=1 cargo test -p dxso-capi --test header` and commit it"
    );
}
