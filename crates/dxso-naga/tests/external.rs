//! Independent validators: the SPIR-V of translated shaders goes through `spirv-val`
//! (Debian `spirv-tools`) and the GLSL (450 core) through `glslangValidator` (Debian
//! `glslang-tools`). Without the tools the tests print a notice and pass, except under
//! `CI=true`, where they fail.

#[path = "../../dxso/tests/common/mod.rs"]
mod common;

use dxso_naga::{FloatMode, Options, Output, Target};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `tool` runs; a notice (or, under CI, a failure) when it does not.
fn have(tool: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_ok() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{tool} is missing, and CI=true requires it");
    }
    eprintln!("notice: {tool} not found; skipping this test");
    false
}

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dxso-naga-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Shaders to check: (name, source) of every corpus file, or every `step`th.
fn corpus(step: usize) -> Vec<(String, String)> {
    let Some(dir) = common::shared("corpus/dx9-asm") else {
        return Vec::new();
    };
    common::asm_files(&dir)
        .iter()
        .step_by(step)
        .map(|p| {
            let name = p.strip_prefix(&dir).unwrap_or(p).display().to_string();
            (name.replace(['/', '.'], "_"), common::read_text(p))
        })
        .collect()
}

/// Translate each source that validates, in both modes, and write it as `target` into
/// `dir`; returns the files written.
fn write_all(shaders: &[(String, String)], target: Target, dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (name, source) in shaders {
        let shader = dxso::text::parse(source).expect("corpus assembles");
        let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
            continue;
        };
        for float in [FloatMode::Strict, FloatMode::Ieee] {
            let t = dxso_naga::translate(&checked, &Options { float })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let mode = if float == FloatMode::Strict {
                "strict"
            } else {
                "ieee"
            };
            let out = dxso_naga::write(&t, target).unwrap_or_else(|e| panic!("{name}: {e}"));
            let path = match (out, target) {
                (Output::SpirV(words), _) => {
                    let p = dir.join(format!("{name}_{mode}.spv"));
                    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(&p, bytes).expect("write");
                    p
                }
                (Output::Text(text), _) => {
                    let ext = if shader.version.is_vertex() {
                        "vert"
                    } else {
                        "frag"
                    };
                    let p = dir.join(format!("{name}_{mode}.{ext}"));
                    std::fs::write(&p, text).expect("write");
                    p
                }
            };
            files.push(path);
        }
    }
    files
}

fn spirv_val(shaders: &[(String, String)]) {
    if shaders.is_empty() || !have("spirv-val") {
        return;
    }
    let dir = scratch("spirv");
    let files = write_all(shaders, Target::SpirV, &dir);
    let mut failures = Vec::new();
    for f in &files {
        let out = Command::new("spirv-val")
            .arg(f)
            .output()
            .expect("spirv-val runs");
        if !out.status.success() {
            failures.push(format!(
                "{}: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
    }
    eprintln!(
        "spirv-val: {} of {} modules accepted",
        files.len() - failures.len(),
        files.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "spirv-val rejected {} modules",
        failures.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn glslang(shaders: &[(String, String)]) {
    if shaders.is_empty() || !have("glslangValidator") {
        return;
    }
    let dir = scratch("glsl");
    let files = write_all(shaders, Target::Glsl, &dir);
    let mut failures = Vec::new();
    // glslangValidator takes many files at once; on failure, each file of the batch alone.
    for batch in files.chunks(200) {
        let out = Command::new("glslangValidator")
            .args(batch)
            .output()
            .expect("runs");
        if out.status.success() {
            continue;
        }
        for f in batch {
            let out = Command::new("glslangValidator")
                .arg(f)
                .output()
                .expect("runs");
            if !out.status.success() {
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                let first = text
                    .lines()
                    .find(|l| l.contains("ERROR"))
                    .unwrap_or("")
                    .to_owned();
                failures.push(format!("{}: {first}", f.display()));
            }
        }
    }
    eprintln!(
        "glslangValidator: {} of {} shaders accepted",
        files.len() - failures.len(),
        files.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "glslangValidator rejected {} shaders",
        failures.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every 10th corpus file (380 shaders, both modes).
#[test]
fn spirv_val_accepts_a_corpus_sample() {
    spirv_val(&corpus(10));
}

#[test]
fn glslang_accepts_a_corpus_sample() {
    glslang(&corpus(10));
}

/// The whole corpus: `cargo test -p dxso-naga --test external -- --ignored`.
#[test]
#[ignore = "the whole corpus: a minute or more"]
fn spirv_val_accepts_the_corpus() {
    spirv_val(&corpus(1));
}

#[test]
#[ignore = "the whole corpus: a minute or more"]
fn glslang_accepts_the_corpus() {
    glslang(&corpus(1));
}
