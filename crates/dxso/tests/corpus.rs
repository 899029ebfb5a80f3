//! The real game shaders of `../shared/corpus/dx9-asm` (Microsoft disassembler listings, many
//! hand-edited): every file assembles, its disassembly assembles back to identical tokens, and
//! for most files the disassembly matches the file's own instruction lines.

mod common;

use dxso::{binary, text};

/// The instruction lines of a listing: comments and blank lines dropped, white space
/// collapsed.
fn instruction_lines(listing: &str) -> Vec<String> {
    let listing = listing.split('\0').next().unwrap_or("");
    listing
        .lines()
        .map(|l| {
            let cut = [l.find("//"), l.find(';')].into_iter().flatten().min();
            let code = cut.map_or(l, |i| &l[..i]);
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn corpus_assembles_and_round_trips() {
    let Some(dir) = common::shared("corpus/dx9-asm") else {
        return;
    };
    let files = common::asm_files(&dir);
    assert_eq!(files.len(), 3800, "the corpus has 3,800 files");
    let mut failures = Vec::new();
    let mut same_text = 0usize;
    let mut differing = Vec::new();
    for path in &files {
        let source = common::read_text(path);
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let shader = match text::parse(&source) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {}", e.0[0].message));
                continue;
            }
        };
        let tokens = binary::write(&shader).expect("assembled shaders encode");
        let back = binary::read(&tokens).expect("own tokens decode");
        assert_eq!(back, shader, "{name}: read(write(ir)) != ir");
        let listing = text::print(&back);
        let again = text::parse(&listing)
            .map(|s| binary::write(&s).expect("encodes"))
            .unwrap_or_else(|e| panic!("{name}: disassembly does not assemble: {e}\n{listing}"));
        assert_eq!(again, tokens, "{name}: dis -> asm changed the tokens");
        let ours = instruction_lines(&listing);
        let theirs = instruction_lines(&source);
        if ours == theirs {
            same_text += 1;
        } else {
            let first = ours
                .iter()
                .zip(&theirs)
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("ours {a:?} / file {b:?}"))
                .unwrap_or_else(|| format!("{} vs {} lines", ours.len(), theirs.len()));
            differing.push(format!("{name}: {first}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed to assemble:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let fraction = same_text as f64 / files.len() as f64;
    println!(
        "disassembly equals the file's instruction lines for {same_text} of {} files ({:.1}%)",
        files.len(),
        fraction * 100.0
    );
    for d in &differing {
        println!("  differs: {d}");
    }
    // Measured 86.4%: the rest are hand-edited lines and listings from other tools (see the
    // foundation issue's note). A drop below this is a printer regression.
    assert!(
        fraction > 0.86,
        "only {:.1}% of listings match",
        fraction * 100.0
    );
}

#[test]
fn corpus_validates_with_max_caps() {
    use dxso::validate::{Caps, Severity, diagnostics};
    let Some(dir) = common::shared("corpus/dx9-asm") else {
        return;
    };
    let files = common::asm_files(&dir);
    let mut rejected = Vec::new();
    for path in &files {
        let shader = text::parse(&common::read_text(path)).expect("corpus assembles");
        let errors: Vec<_> = diagnostics(&shader, &Caps::max())
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        if let Some(e) = errors.first() {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(path)
                .display()
                .to_string();
            let line = e
                .instruction
                .map(|i| text::print_instruction(&shader.instructions[i], shader.version))
                .unwrap_or_default();
            rejected.push(format!("{name}: {} {} [{line}]", e.rule.id(), e.message));
        }
    }
    let accepted = files.len() - rejected.len();
    println!(
        "validator accepts {accepted} of {} corpus files ({:.2}%) with --caps max",
        files.len(),
        accepted as f64 * 100.0 / files.len() as f64
    );
    for r in &rejected {
        println!("  rejected: {r}");
    }
    assert!(
        accepted as f64 >= 0.995 * files.len() as f64,
        "{} files rejected",
        rejected.len()
    );
}
