//! The real game shaders of `../shared/corpus/dx9-asm` (Microsoft disassembler listings, many
//! hand-edited): every file assembles, its disassembly assembles back to identical tokens, and
//! for most files the disassembly matches the file's own instruction lines.

use dxso::text::Style;
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
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let files = dxso_testdata::asm_files(&dir);
    assert_eq!(files.len(), 3800, "the corpus has 3,800 files");
    let mut failures = Vec::new();
    let mut same_text = 0usize;
    let mut differing = Vec::new();
    for path in &files {
        let source = dxso_testdata::read_text(path);
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
        for style in [Style::Unity, Style::Microsoft] {
            let listing = text::print_styled(&back, style);
            let again = text::parse(&listing)
                .map(|s| binary::write(&s).expect("encodes"))
                .unwrap_or_else(|e| {
                    panic!("{name}: {style:?} disassembly does not assemble: {e}\n{listing}")
                });
            assert_eq!(
                again, tokens,
                "{name}: {style:?} dis -> asm changed the tokens"
            );
        }
        let listing = text::print(&back);
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
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let files = dxso_testdata::asm_files(&dir);
    let mut rejected = Vec::new();
    for path in &files {
        let shader = text::parse(&dxso_testdata::read_text(path)).expect("corpus assembles");
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

/// Whether a listing is spelled as the Unity 4 era tools spell it: a `def` whose values are all
/// `%.8f` (or a plain `0`) with at least one that Microsoft's `%.9g` would print otherwise, or a
/// `dcl_<usage>0` (Microsoft's disassembler omits a usage index of 0).
fn unity_spelled(lines: &[String]) -> bool {
    let fixed8 = |v: &str| {
        let digits = v.trim_start_matches('-');
        digits.split_once('.').is_some_and(|(int, frac)| {
            !int.is_empty()
                && frac.len() == 8
                && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        })
    };
    lines.iter().any(|l| {
        if let Some(values) = l.strip_prefix("def c").and_then(|r| r.split_once(", ")) {
            let values: Vec<&str> = values.1.split(", ").collect();
            return values.iter().all(|v| *v == "0" || fixed8(v))
                && values
                    .iter()
                    .any(|v| fixed8(v) && v.parse::<f32>().is_ok_and(|f| text::float(f) != *v));
        }
        let mnemonic = l.split(' ').next().unwrap_or("");
        mnemonic.starts_with("dcl_") && mnemonic.ends_with('0') && !mnemonic.ends_with("10")
    })
}

/// The instruction lines of a listing that are indented. The stereo-fix tools insert their
/// lines unindented into the indented listings they edit (`def c220, ...`, `dcl_fog o9 //
/// Inserted by shadertool.py`, the outputs of a vs_2_0 made vs_3_0), or mark them (`dcl_fog
/// o9 // Inserted by shadertool.py`), so in a listing whose lines are partly indented these are
/// the original tool's lines. `None` when every line is indented or none is.
fn original_lines(listing: &str) -> Option<Vec<String>> {
    let listing = listing.split('\0').next().unwrap_or("");
    let indented: Vec<&str> = listing
        .lines()
        .filter(|l| l.starts_with([' ', '\t']) && !l.contains("Inserted by"))
        .collect();
    let kept = instruction_lines(&indented.join("\n"));
    let all = instruction_lines(listing);
    (!kept.is_empty() && kept.len() < all.len()).then_some(kept)
}

/// Whether `part` is `whole` with some lines left out.
fn is_subsequence(part: &[String], whole: &[String]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|p| rest.any(|w| w == p))
}

/// Unity-spelled listings edited in place (their changed lines indented like the rest), or
/// spelled unlike all the others; each prints differently from the file.
const UNITY_EXCEPTIONS: [(&str, &str); 8] = [
    (
        "ps_3_0/02cee60be6e8.asm",
        "a ps_2_0 made ps_3_0: dcl_texcoord v0.xy",
    ),
    (
        "ps_3_0/14abc815b6b6.asm",
        "a ps_2_0 made ps_3_0: dcl_texcoord v0.xy",
    ),
    (
        "ps_3_0/347e1d0e3a53.asm",
        "dcl_texcoord0 v0, not the usual v0.xyzw",
    ),
    (
        "ps_3_0/635af05caf90.asm",
        "a ps_2_0 made ps_3_0: dcl_texcoord v0.xy",
    ),
    (
        "ps_3_0/6edd0908a7b6.asm",
        "347e1d0e3a53's shader with fog inserted",
    ),
    (
        "ps_3_0/9be4272c7a1a.asm",
        "a ps_2_0 made ps_3_0: dcl_texcoord v0.xy",
    ),
    (
        "ps_3_0/da8c516f63e8.asm",
        "a ps_2_0 made ps_3_0: dcl_texcoord v0.xy",
    ),
    (
        "vs_3_0/e0e291645bcc.asm",
        "the stereo def c220, 0, 1, 0.0625, 1",
    ),
];

/// The Unity 4 era listings print exactly as they are, their hand-edited copies aside.
#[test]
fn unity_listings_print_as_they_are() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let files = dxso_testdata::asm_files(&dir);
    let (mut unity, mut exact, mut edited) = (0usize, 0usize, 0usize);
    let mut differing = Vec::new();
    for path in &files {
        let source = dxso_testdata::read_text(path);
        let theirs = instruction_lines(&source);
        if !unity_spelled(&theirs) {
            continue;
        }
        unity += 1;
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let shader = text::parse(&source).expect("the corpus assembles");
        let listing = text::print_styled(&shader, Style::Unity);
        let ours = instruction_lines(&listing);
        if ours == theirs {
            exact += 1;
            continue;
        }
        if original_lines(&source).is_some_and(|kept| is_subsequence(&kept, &ours)) {
            edited += 1;
            continue;
        }
        let first = ours
            .iter()
            .zip(&theirs)
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("ours {a:?} / file {b:?}"))
            .unwrap_or_else(|| format!("{} vs {} lines", ours.len(), theirs.len()));
        differing.push(format!("{name}: {first}"));
    }
    println!(
        "Unity-spelled listings: {unity}; printed exactly: {exact}; hand-edited, with every \
         original (indented) line printed exactly: {edited}; known exceptions: {}",
        differing.len()
    );
    for d in &differing {
        println!("  differs: {d}");
    }
    assert!(unity > 300, "only {unity} Unity-spelled listings found");
    let names: Vec<&str> = differing
        .iter()
        .map(|d| d.split(": ").next().unwrap_or(""))
        .collect();
    let expected: Vec<&str> = UNITY_EXCEPTIONS.iter().map(|e| e.0).collect();
    assert_eq!(names, expected, "Unity listings that print differently");
}

/// `binary::describe` on every corpus shader: one meaning a token, none unread, each
/// instruction's first token an instruction or comment token, the last the end token (so no
/// instruction is described with a token too many or too few).
#[test]
fn corpus_tokens_are_described() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let mut described = 0usize;
    for path in dxso_testdata::asm_files(&dir) {
        let Ok(shader) = text::parse(&dxso_testdata::read_text(&path)) else {
            continue;
        };
        let tokens = binary::write(&shader).expect("assembled shaders encode");
        let (_, offsets) = binary::read_with_offsets(&tokens).expect("own tokens decode");
        let m = binary::describe(&tokens);
        let name = path.display();
        assert_eq!(m.len(), tokens.len(), "{name}");
        assert!(
            m.iter().all(|m| m.role != binary::TokenRole::Unread),
            "{name}"
        );
        for (k, &o) in offsets.iter().enumerate() {
            assert!(
                matches!(
                    m[o].role,
                    binary::TokenRole::Instruction | binary::TokenRole::Comment
                ),
                "{name}: word {o}: {:?}",
                m[o]
            );
            assert_eq!(m[o].instruction, Some(k), "{name}: word {o}");
        }
        assert_eq!(
            m.last().map(|m| m.role),
            Some(binary::TokenRole::End),
            "{name}"
        );
        described += 1;
    }
    assert!(described > 3700, "{described} shaders described");
}
