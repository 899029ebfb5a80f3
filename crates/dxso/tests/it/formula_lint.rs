//! A source lint: the instruction formulas exist once, in `dxso::formula`. The engines'
//! arithmetic files may not spell a rule's constants again, each takes the formulas from
//! `dxso::formula` (an instance of `Lanes`, calls of its functions), and each routine of the
//! x86 generator that writes a formula in its own instructions names the formula it
//! implements.

use std::path::PathBuf;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The interpreter's, Cranelift's and naga's arithmetic files.
const ENGINES: &[&str] = &[
    "dxso-vm/src/exec.rs",
    "dxso-vm/src/math.rs",
    "dxso-vm/src/pixel/exec.rs",
    "dxso-vm/src/compile/cranelift/mod.rs",
    "dxso-vm/src/compile/cranelift/ops.rs",
    "dxso-vm/src/compile/cranelift/pixel.rs",
    "dxso-vm/src/compile/cranelift/lanes.rs",
    "dxso-naga/src/alu.rs",
    "dxso-naga/src/regs.rs",
    "dxso-naga/src/ps1x.rs",
    "dxso-naga/src/lanes.rs",
];

/// The x86 generator's arithmetic files.
const X86: &[&str] = &[
    "dxso-vm/src/compile/x86/mod.rs",
    "dxso-vm/src/compile/x86/ops.rs",
    "dxso-vm/src/compile/x86/pixel.rs",
    "dxso-vm/src/compile/x86/write.rs",
];

/// A rule's constants (C5/C6's FLT_MAX, lit's exponent clamp, the exp2/log2 polynomials and
/// range): nowhere but `dxso::formula`.
const RULE_CONSTANTS: &[&str] = &[
    "f32::MAX",
    "127.9961",
    "1.5252734e-5",
    "0.2402265",
    "0.14285715",
    "0.33333334",
    "12_582_912",
    "-151.0",
    "129.0",
];

/// exp2's and log2's inner steps: the x86 generator writes them in its own instructions
/// (and names the formula); nowhere else.
const EXP_LOG_STEPS: &[&str] = &[
    "LOG2_E",
    "SQRT_2",
    "0x3F80_0000",
    "0x007F_FFFF",
    "8_388_608",
    "MIN_POSITIVE",
];

/// Where one engine takes the formulas from `dxso::formula`.
const USES: &[(&str, &str)] = &[
    ("dxso-vm/src/math.rs", "dxso::formula::mul(&mut Scalar"),
    ("dxso-vm/src/exec.rs", "f::rcp(&mut Scalar"),
    ("dxso-vm/src/exec.rs", "f::lit(&mut Scalar"),
    (
        "dxso-vm/src/compile/cranelift/lanes.rs",
        "impl Lanes for Emitter",
    ),
    ("dxso-vm/src/compile/cranelift/ops.rs", "f::rcp(self"),
    ("dxso-vm/src/compile/cranelift/ops.rs", "f::lit(self"),
    ("dxso-naga/src/lanes.rs", "impl Lanes for Exprs"),
    ("dxso-naga/src/alu.rs", "f::rcp(l"),
    ("dxso-naga/src/alu.rs", "f::lit(l"),
];

/// The x86 generator's own instruction sequences for a formula: each names it in its
/// doc comment.
const X86_OVERRIDES: &[(&str, &str)] = &[
    ("ops.rs", "fn mul("),
    ("ops.rs", "fn mul_rule("),
    ("ops.rs", "fn clamp("),
    ("ops.rs", "fn horner("),
    ("ops.rs", "fn exp2("),
    ("ops.rs", "fn log2_split("),
    ("ops.rs", "fn log2("),
    ("ops.rs", "fn pow("),
    ("ops.rs", "fn at_most_max("),
    ("ops.rs", "fn fixup("),
    ("ops.rs", "fn dot("),
    ("ops.rs", "fn alu("),
    ("pixel.rs", "fn pixel_componentwise("),
    ("pixel.rs", "fn dp2add("),
    ("pixel.rs", "fn depth_ratio("),
    ("pixel.rs", "fn divide("),
];

fn read(rel: &str) -> String {
    let path = workspace().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The code of `text`: each line without its `//` comment.
fn code(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("")))
        .collect()
}

/// `file:line: token` for each forbidden token in the code of `files`.
fn spelled(files: &[&str], tokens: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        let text = read(f);
        for (n, line) in code(&text) {
            for t in tokens {
                if line.contains(t) {
                    found.push(format!("{f}:{n}: {t}"));
                }
            }
        }
    }
    found
}

#[test]
fn no_engine_spells_a_rule_again() {
    let all: Vec<&str> = ENGINES.iter().chain(X86).copied().collect();
    let found = spelled(&all, RULE_CONSTANTS);
    assert!(found.is_empty(), "use dxso::formula:\n{}", found.join("\n"));
    let found = spelled(ENGINES, EXP_LOG_STEPS);
    assert!(
        found.is_empty(),
        "exp2/log2 are dxso::formula's:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_engine_takes_the_formulas_from_dxso_formula() {
    for (file, call) in USES {
        assert!(read(file).contains(call), "{file} does not call `{call}`");
    }
}

#[test]
fn every_x86_override_names_its_formula() {
    for (file, f) in X86_OVERRIDES {
        let text = read(&format!("dxso-vm/src/compile/x86/{file}"));
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(f))
            .unwrap_or_else(|| panic!("x86/{file}: no `{f}`"));
        // The doc comment (and attributes) right above the function.
        let doc: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|l| {
                let t = l.trim_start();
                t.starts_with("///") || t.starts_with("#[")
            })
            .copied()
            .collect();
        assert!(
            doc.iter().any(|l| l.contains("dxso::formula::")),
            "x86/{file}: `{f}` does not name the dxso::formula function it implements"
        );
    }
}
