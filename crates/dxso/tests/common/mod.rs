//! Helpers for the suites that read `../shared` (the conformance vectors and the corpus).
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` beside the repository, or `None` (with a notice) when it is absent. Under CI
/// (`CI=true`) a missing directory is a failure, never a silent skip.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(sub);
    if dir.exists() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{} is missing, and CI=true requires it", dir.display());
    }
    eprintln!(
        "notice: {} not found; skipping this data-driven test",
        dir.display()
    );
    None
}

/// Every `.asm` file under `dir`, sorted.
pub fn asm_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable directory") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "asm") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Read a text file that may hold non-UTF-8 bytes.
pub fn read_text(p: &std::path::Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).expect("readable file")).into_owned()
}
