//! Independent validators: the SPIR-V of translated shaders goes through `spirv-val`
//! (Debian `spirv-tools`) and the GLSL (450 core) through `glslangValidator` (Debian
//! `glslang-tools`). Without the tools the tests print a notice and pass, except under
//! `CI=true`, where they fail.

use crate::validators;

use crate::validators::{have, scratch};
use dxso_naga::{FloatMode, Options, Output, Target};
use std::path::{Path, PathBuf};

/// Shaders to check: (name, source) of every corpus file, or every `step`th.
fn corpus(step: usize) -> Vec<(String, String)> {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return Vec::new();
    };
    dxso_testdata::asm_files(&dir)
        .iter()
        .step_by(step)
        .map(|p| {
            let name = p.strip_prefix(&dir).unwrap_or(p).display().to_string();
            (name.replace(['/', '.'], "_"), dxso_testdata::read_text(p))
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
                    validators::write_spirv(&p, &words);
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

/// Translate `shaders` to `target` and run `check` on the files; every file must pass.
fn validate_all(
    shaders: &[(String, String)],
    tool: &str,
    target: Target,
    check: fn(&[PathBuf]) -> Vec<String>,
) {
    if shaders.is_empty() || !have(tool) {
        return;
    }
    let dir = scratch(target.name());
    let files = write_all(shaders, target, &dir);
    let failures = check(&files);
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{tool} rejected {} files",
        failures.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn spirv_val(shaders: &[(String, String)]) {
    validate_all(shaders, "spirv-val", Target::SpirV, validators::spirv_val);
}

fn glslang(shaders: &[(String, String)]) {
    validate_all(
        shaders,
        "glslangValidator",
        Target::Glsl,
        validators::glslang,
    );
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
