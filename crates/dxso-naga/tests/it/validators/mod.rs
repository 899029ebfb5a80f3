//! The independent validators, shared by the test files that run them: `spirv-val` (Debian
//! `spirv-tools`) on SPIR-V files and `glslangValidator` (Debian `glslang-tools`) on GLSL
//! files. Each returns one line per file it rejected.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `tool` runs; a skip (a failure under `CI=true`) when it does not.
pub fn have(tool: &str) -> bool {
    let package = match tool {
        "spirv-val" => "spirv-tools",
        _ => "glslang-tools",
    };
    dxso_testdata::tool(tool, package)
}

/// `tool FILES...`: `None` when it accepts them, else its first line naming an error.
fn rejects(tool: &str, files: &[PathBuf]) -> Option<String> {
    let out = Command::new(tool).args(files).output().expect("runs");
    if out.status.success() {
        return None;
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let first = text
        .lines()
        .find(|l| l.contains("ERROR") || l.contains("error"))
        .or_else(|| text.lines().next())
        .unwrap_or("")
        .to_owned();
    Some(first)
}

/// Run `tool` over `files` in batches of `batch`; a batch it rejects is run again one file
/// at a time, so each failure names its file.
fn run(tool: &str, files: &[PathBuf], batch: usize) -> Vec<String> {
    let mut failures = Vec::new();
    for chunk in files.chunks(batch.max(1)) {
        if rejects(tool, chunk).is_none() {
            continue;
        }
        for f in chunk {
            if let Some(e) = rejects(tool, std::slice::from_ref(f)) {
                failures.push(format!("{}: {e}", f.display()));
            }
        }
    }
    eprintln!(
        "{tool}: {} of {} files accepted",
        files.len() - failures.len(),
        files.len()
    );
    failures
}

/// `spirv-val` on each SPIR-V file (it takes one at a time).
pub fn spirv_val(files: &[PathBuf]) -> Vec<String> {
    run("spirv-val", files, 1)
}

/// `glslangValidator` on GLSL files (`.vert`/`.frag`), 200 at a time.
pub fn glslang(files: &[PathBuf]) -> Vec<String> {
    run("glslangValidator", files, 200)
}

/// A fresh directory for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dxso-naga-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// SPIR-V words as a `.spv` file at `path`.
pub fn write_spirv(path: &Path, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("write");
}
