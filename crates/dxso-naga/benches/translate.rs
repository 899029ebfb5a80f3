//! Translating the whole `../shared/corpus/dx9-asm` corpus (3,800 files, parsed and
//! validated beforehand) to SPIR-V, in each float mode; and to naga IR only.
//! Run with `cargo bench -p dxso-naga --bench translate`.

use dxso_naga::{FloatMode, Options, Target};
use std::path::PathBuf;
use std::sync::LazyLock;

fn main() {
    if CHECKED.is_empty() {
        eprintln!("notice: ../shared/corpus/dx9-asm not found; nothing to measure");
        return;
    }
    eprintln!("corpus: {} valid shaders", CHECKED.len());
    divan::main();
}

static CHECKED: LazyLock<Vec<dxso::validate::Checked>> = LazyLock::new(|| {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dx9-asm");
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "asm") {
                files.push(p);
            }
        }
    }
    files.sort();
    let caps = dxso::validate::Caps::max();
    files
        .iter()
        .filter_map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(p).ok()?).into_owned();
            let shader = dxso::text::parse(&text).ok()?;
            dxso::validate::validate(&shader, &caps).ok()
        })
        .collect()
});

const MODES: [&str; 2] = ["strict", "ieee"];

fn options(mode: &str) -> Options {
    Options {
        float: if mode == "ieee" {
            FloatMode::Ieee
        } else {
            FloatMode::Strict
        },
    }
}

/// Checked shader -> naga module (validated) -> SPIR-V words, for every corpus shader.
#[divan::bench(sample_count = 5, args = MODES)]
fn corpus_to_spirv(mode: &str) -> usize {
    let options = options(mode);
    CHECKED
        .iter()
        .map(|c| {
            let t = dxso_naga::translate(divan::black_box(c), &options).expect("translates");
            match dxso_naga::write(&t, Target::SpirV).expect("writes") {
                dxso_naga::Output::SpirV(w) => w.len(),
                dxso_naga::Output::Text(s) => s.len(),
            }
        })
        .sum()
}

/// Checked shader -> naga module (validated), for every corpus shader.
#[divan::bench(sample_count = 5, args = MODES)]
fn corpus_to_naga(mode: &str) -> usize {
    let options = options(mode);
    CHECKED
        .iter()
        .map(|c| {
            let t = dxso_naga::translate(divan::black_box(c), &options).expect("translates");
            t.module.functions.len()
        })
        .sum()
}
