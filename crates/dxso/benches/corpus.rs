//! Assembling and disassembling the whole `../shared/corpus/dx9-asm` corpus (3,800 files).
//! Run with `cargo bench -p dxso --bench corpus`.

use std::path::PathBuf;
use std::sync::LazyLock;

fn main() {
    if CORPUS.is_empty() {
        eprintln!("notice: ../shared/corpus/dx9-asm not found; nothing to measure");
        return;
    }
    eprintln!(
        "corpus: {} files, {} bytes",
        CORPUS.len(),
        CORPUS.iter().map(String::len).sum::<usize>()
    );
    divan::main();
}

static CORPUS: LazyLock<Vec<String>> = LazyLock::new(|| {
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
                files.push(
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned(),
                );
            }
        }
    }
    files
});

static TOKENS: LazyLock<Vec<Vec<u32>>> = LazyLock::new(|| {
    CORPUS
        .iter()
        .filter_map(|s| dxso::text::parse(s).ok())
        .filter_map(|s| dxso::binary::write(&s).ok())
        .collect()
});

/// Text -> IR -> tokens for every file.
#[divan::bench(sample_count = 10)]
fn assemble_corpus() -> usize {
    CORPUS
        .iter()
        .map(|s| {
            dxso::binary::write(&dxso::text::parse(divan::black_box(s)).unwrap())
                .unwrap()
                .len()
        })
        .sum()
}

/// Tokens -> IR -> text for every file.
#[divan::bench(sample_count = 10)]
fn disassemble_corpus() -> usize {
    TOKENS
        .iter()
        .map(|t| dxso::text::print(&dxso::binary::read(divan::black_box(t)).unwrap()).len())
        .sum()
}

/// Tokens -> IR only.
#[divan::bench(sample_count = 10)]
fn read_corpus() -> usize {
    TOKENS
        .iter()
        .map(|t| {
            dxso::binary::read(divan::black_box(t))
                .unwrap()
                .instructions
                .len()
        })
        .sum()
}
