//! Compile-back proof: corpus shaders (`../shared/corpus/dx9-asm`) and the Wine conformance
//! sources that validate, decompiled with `Dialect::Glslang`, compile with glslang's HLSL
//! front end (`glslangValidator -D --hlsl-dx9-compatible -e main -S vert|frag -V`) and the
//! SPIR-V passes `spirv-val`.
//!
//! The default test takes every 8th corpus shader (a deterministic sample) and every Wine
//! source; `--ignored` runs the whole corpus. `DXSO_DECOMPILE_DUMP=DIR` keeps the HLSL of
//! each failure in DIR.

use dxso_decompile::{Dialect, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// A shader to decompile: its name, stage, and the validated shader with its table.
struct Case {
    name: String,
    source: String,
}

/// Why a case did not come back: a class (for the summary) and detail.
enum Outcome {
    Invalid,
    Back,
    Failed(String, String),
}

/// Decompile and compile one case in `dir`.
fn run(case: &Case, dir: &Path, k: usize) -> Outcome {
    let Ok(loaded) = dxso::source::Source::text(&case.source) else {
        return Outcome::Invalid;
    };
    let shader = loaded.shader;
    let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
        return Outcome::Invalid;
    };
    let table = match shader.constant_table() {
        Ok(Some(t)) => Some(t),
        _ => dxso_decompile::listing_table(&case.source, shader.version),
    };
    let options = Options {
        dialect: Dialect::Glslang,
        asm_comments: false,
    };
    let hlsl = match dxso_decompile::decompile_with_table(&checked, table.as_ref(), &options) {
        Ok(h) => h,
        Err(e) => return Outcome::Failed(format!("decompile: {e}"), String::new()),
    };
    let stage = if shader.version.is_vertex() {
        "vert"
    } else {
        "frag"
    };
    let src = dir.join(format!("{k}.hlsl"));
    let spv = dir.join(format!("{k}.spv"));
    std::fs::write(&src, &hlsl).expect("writable temp dir");
    let out = Command::new("glslangValidator")
        .args([
            "-D",
            "--hlsl-dx9-compatible",
            "-e",
            "main",
            "-S",
            stage,
            "-V",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("glslangValidator runs");
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let first = text
            .lines()
            .find(|l| l.starts_with("ERROR"))
            .unwrap_or("glslang failed")
            .to_string();
        return Outcome::Failed(class_of(&first), format!("{text}\n{hlsl}"));
    }
    let val = Command::new("spirv-val")
        .arg(&spv)
        .output()
        .expect("spirv-val runs");
    if !val.status.success() {
        let text = String::from_utf8_lossy(&val.stderr).to_string();
        let first = text.lines().next().unwrap_or("").to_string();
        return Outcome::Failed(
            format!("spirv-val: {}", class_of(&first)),
            format!("{text}\n{hlsl}"),
        );
    }
    Outcome::Back
}

/// A message without its file and line, for grouping.
fn class_of(msg: &str) -> String {
    let m = msg.split(".hlsl:").last().unwrap_or(msg);
    let m = m.trim_start_matches(|c: char| c.is_ascii_digit() || c == ':' || c == ' ');
    m.chars().take(100).collect()
}

/// Counts of one sweep.
#[derive(Default)]
struct Tally {
    back: usize,
    invalid: usize,
    failed: BTreeMap<String, Vec<String>>,
}

/// Run every case on all cores; the tally.
fn sweep(cases: &[Case]) -> Tally {
    static SWEEPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let serial = SWEEPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!("dxso-decompile-{}-{serial}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let dump = std::env::var_os("DXSO_DECOMPILE_DUMP").map(PathBuf::from);
    let tally = Mutex::new(Tally::default());
    let next = Mutex::new(0usize);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(case) = cases.get(k) else { break };
                    let outcome = run(case, &tmp, k);
                    let mut t = tally.lock().unwrap();
                    match outcome {
                        Outcome::Back => t.back += 1,
                        Outcome::Invalid => t.invalid += 1,
                        Outcome::Failed(class, detail) => {
                            if let Some(d) = &dump {
                                let _ = std::fs::create_dir_all(d);
                                let file = case.name.replace('/', "_");
                                let _ = std::fs::write(d.join(format!("{file}.txt")), &detail);
                            }
                            t.failed.entry(class).or_default().push(case.name.clone());
                        }
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    tally.into_inner().unwrap()
}

fn corpus(step: usize) -> Option<Vec<Case>> {
    let dir = dxso_testdata::shared("corpus/dx9-asm")?;
    let files = dxso_testdata::asm_files(&dir);
    assert_eq!(files.len(), 3800, "the corpus has 3,800 files");
    Some(
        files
            .iter()
            .step_by(step)
            .map(|p| Case {
                name: p.strip_prefix(&dir).unwrap_or(p).display().to_string(),
                source: dxso_testdata::read_text(p),
            })
            .collect(),
    )
}

fn wine() -> Option<Vec<Case>> {
    let dir = dxso_testdata::shared("conformance")?;
    let text = std::fs::read_to_string(dir.join("wine-asm-cases.json")).expect("readable");
    let mut out = Vec::new();
    // The JSON is an array of objects with a "source" string: read just those.
    for (k, chunk) in text.split("\"source\": ").skip(1).enumerate() {
        let Some(s) = json_string(chunk) else {
            continue;
        };
        out.push(Case {
            name: format!("wine#{k}"),
            source: s,
        });
    }
    assert_eq!(out.len(), 194, "194 Wine sources");
    Some(out)
}

/// The JSON string literal at the start of `s`, unescaped.
fn json_string(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
}

fn report(what: &str, t: &Tally) -> (usize, usize) {
    let failed: usize = t.failed.values().map(Vec::len).sum();
    for (class, names) in &t.failed {
        eprintln!("{:5} {class} (e.g. {})", names.len(), names[0]);
    }
    let total = t.back + failed;
    eprintln!(
        "{what}: {} of {total} validated shaders compile back with glslang + spirv-val \
         ({failed} fail; {} do not validate)",
        t.back, t.invalid
    );
    (t.back, total)
}

fn tools() -> bool {
    dxso_testdata::tool("glslangValidator", "glslang-tools")
        && dxso_testdata::tool("spirv-val", "spirv-tools")
}

fn check(what: &str, cases: &[Case]) {
    let t = sweep(cases);
    let (back, total) = report(what, &t);
    assert!(total > 0);
    assert!(
        back * 100 >= total * 99,
        "{back} of {total} compile back (< 99%)"
    );
}

#[test]
fn corpus_sample_compiles_back() {
    if !tools() {
        return;
    }
    let Some(cases) = corpus(8) else { return };
    check("corpus (every 8th)", &cases);
}

#[test]
#[ignore = "the whole corpus: several minutes on two cores"]
fn whole_corpus_compiles_back() {
    if !tools() {
        return;
    }
    let Some(cases) = corpus(1) else { return };
    check("corpus", &cases);
}

#[test]
fn wine_sources_compile_back() {
    if !tools() {
        return;
    }
    let Some(cases) = wine() else { return };
    check("Wine conformance", &cases);
}

/// Every corpus shader and Wine source that validates decompiles in the fxc dialect too,
/// with the instructions as comments (no compiler checks this dialect here: no error, and
/// every instruction's comment is in the output).
#[test]
fn every_shader_decompiles_for_fxc_with_comments() {
    let (Some(mut cases), Some(wine)) = (corpus(1), wine()) else {
        return;
    };
    cases.extend(wine);
    let options = Options {
        dialect: Dialect::Fxc,
        asm_comments: true,
    };
    let (mut done, mut failed) = (0, Vec::new());
    for case in &cases {
        let Ok(shader) = dxso::text::parse(&case.source) else {
            continue;
        };
        let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
            continue;
        };
        let table = dxso_decompile::listing_table(&case.source, shader.version);
        match dxso_decompile::decompile_with_table(&checked, table.as_ref(), &options) {
            Ok(hlsl) => {
                let comments = hlsl
                    .lines()
                    .filter(|l| l.trim_start().starts_with("// "))
                    .count();
                let instructions = shader
                    .instructions
                    .iter()
                    // `label` and the `ret` ending a function are the function's braces.
                    .filter(|i| {
                        !matches!(
                            i.opcode,
                            dxso::Opcode::Comment
                                | dxso::Opcode::Dcl
                                | dxso::Opcode::Label
                                | dxso::Opcode::Ret
                        )
                    })
                    .count();
                assert!(
                    comments >= instructions,
                    "{}: {comments} comments",
                    case.name
                );
                done += 1;
            }
            Err(e) => failed.push(format!("{}: {e}", case.name)),
        }
    }
    eprintln!("{done} shaders decompile for fxc; {} fail", failed.len());
    assert!(failed.is_empty(), "{failed:?}");
}
