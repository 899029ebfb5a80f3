//! Test support for dxso's suites (a dev-dependency only; never published).
//!
//! The data-driven suites read `../shared` beside the repository (the conformance vectors,
//! the corpus, the draw examples); the GPU suites need a Vulkan adapter and the translation
//! suites the external validators. Where one of those is missing a test cannot check
//! anything, and passing it would be a lie: so a test calls [`skip`] (directly or through
//! [`shared`] and [`tool`]), which
//!
//! - under CI (`CI=true` or `CI=1`) fails the test: CI never passes on a skip;
//! - elsewhere records the test's name and returns, and when the test binary exits prints
//!   one summary line to stderr, outside libtest's output capture, naming every skipped test
//!   and why (`notice: 3 tests skipped: ...`).

pub mod shaders;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Whether this run is CI's, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/<sub>` beside the repository, or `None` after [`skip`] when it is absent.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let dir = repo_root().join("../shared").join(sub);
    if dir.exists() {
        return Some(dir);
    }
    skip(&format!("../shared/{sub} not found"));
    None
}

/// Whether the external program `name` runs (`name --version`); [`skip`] when it does not.
/// `package` names the Debian package that brings it.
pub fn tool(name: &str, package: &str) -> bool {
    let runs = std::process::Command::new(name)
        .arg("--version")
        .output()
        .is_ok();
    if !runs {
        skip(&format!("{name} not found (Debian: {package})"));
    }
    runs
}

/// Skipped tests by reason, in first-seen order.
static SKIPPED: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());

/// The calling test cannot run here because of `reason`: under CI that is a failure (this
/// panics); elsewhere the test is recorded for the summary printed at exit, and the caller
/// returns without checking anything.
pub fn skip(reason: &str) {
    if in_ci() {
        panic!("{reason}, and CI=true requires it");
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_string();
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if skipped.is_empty() {
        register_summary();
    }
    match skipped.iter_mut().find(|(r, _)| r == reason) {
        Some((_, tests)) => tests.push(test),
        None => skipped.push((reason.to_string(), vec![test])),
    }
}

/// The summary line: `notice: N test(s) skipped: REASON (a, b); REASON (c)`.
fn summary(skipped: &[(String, Vec<String>)]) -> String {
    let count: usize = skipped.iter().map(|(_, t)| t.len()).sum();
    let parts: Vec<String> = skipped
        .iter()
        .map(|(reason, tests)| format!("{reason} ({})", tests.join(", ")))
        .collect();
    let noun = if count == 1 { "test" } else { "tests" };
    format!(
        "notice: {count} {noun} skipped, checking nothing: {}",
        parts.join("; ")
    )
}

#[cfg(unix)]
fn register_summary() {
    extern "C" fn print_summary() {
        use std::io::Write;
        let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
        if !skipped.is_empty() {
            // Straight to the process's stderr: libtest captures only the print macros.
            let _ = writeln!(std::io::stderr(), "{}", summary(&skipped));
        }
    }
    // SAFETY: `atexit` takes a plain function pointer with no arguments; the handler only
    // locks a static and writes to stderr, both valid while the process exits normally.
    unsafe {
        libc::atexit(print_summary);
    }
}

#[cfg(not(unix))]
fn register_summary() {}

/// Every `.asm` file under `dir` (recursively), sorted.
pub fn asm_files(dir: &Path) -> Vec<PathBuf> {
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

/// A text file that may hold non-UTF-8 bytes (some corpus listings do), read lossily.
pub fn read_text(p: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).expect("readable file")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_reason_and_its_tests() {
        let skipped = vec![
            ("no adapter".to_string(), vec!["a".into(), "b".into()]),
            ("../shared/corpus not found".to_string(), vec!["c".into()]),
        ];
        assert_eq!(
            summary(&skipped),
            "notice: 3 tests skipped, checking nothing: no adapter (a, b); \
             ../shared/corpus not found (c)"
        );
    }

    #[test]
    fn the_repository_root_holds_the_workspace() {
        assert!(repo_root().join("Cargo.toml").exists());
        assert!(repo_root().join("crates/dxso").is_dir());
    }
}
