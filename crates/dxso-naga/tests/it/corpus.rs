//! Every corpus shader (`../shared/corpus/dx9-asm`, 3,800 files, vs/ps 2.0-3.0) and every
//! Wine conformance source that assembles and validates translates in both float modes, and
//! naga validates each module (translate fails otherwise).

use dxso_naga::{Error, FloatMode, Options};
use std::collections::BTreeMap;

/// Translate `source` in both modes; `Ok(None)` when it does not assemble or validate.
fn translate_both(source: &str) -> Result<Option<()>, Error> {
    let Ok(shader) = dxso::text::parse(source) else {
        return Ok(None);
    };
    let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
        return Ok(None);
    };
    for float in [FloatMode::Strict, FloatMode::Ieee] {
        dxso_naga::translate(&checked, &Options { float })?;
    }
    Ok(Some(()))
}

/// Translate an assembled source without validating it, in both modes.
fn translate_unchecked_both(source: &str) -> Result<Option<()>, Error> {
    let Ok(shader) = dxso::text::parse(source) else {
        return Ok(None);
    };
    for float in [FloatMode::Strict, FloatMode::Ieee] {
        dxso_naga::translate_unchecked(&shader, &Options { float })?;
    }
    Ok(Some(()))
}

/// A failure's class: the opcode for unsupported ones, the message otherwise.
fn class(e: &Error) -> String {
    match e {
        Error::Unsupported {
            opcode,
            control,
            version,
        } => format!(
            "unsupported {} ({version})",
            opcode.mnemonic(*control, *version)
        ),
        other => other.to_string().chars().take(160).collect(),
    }
}

#[test]
fn every_corpus_shader_translates_in_both_modes() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let files = dxso_testdata::asm_files(&dir);
    assert_eq!(files.len(), 3800, "the corpus has 3,800 files");
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut translated, mut invalid) = (0, 0);
    for path in &files {
        let source = dxso_testdata::read_text(path);
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        match translate_both(&source) {
            Ok(Some(())) => translated += 1,
            // A few hand-edited files fail validation (dxso's corpus suite allows 0.5%).
            Ok(None) => invalid += 1,
            Err(e) => failures.entry(class(&e)).or_default().push(name),
        }
    }
    for (class, names) in &failures {
        eprintln!("{:5} {class} (e.g. {})", names.len(), names[0]);
    }
    eprintln!(
        "translated {translated} of {} corpus shaders ({invalid} fail validation)",
        files.len()
    );
    assert!(invalid * 200 <= files.len(), "{invalid} invalid files");
    assert!(
        failures.is_empty(),
        "{} classes of failures",
        failures.len()
    );
}

#[test]
fn wine_conformance_sources_translate() {
    let Some(dir) = dxso_testdata::shared("conformance") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("wine-asm-cases.json")).expect("readable");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert_eq!(cases.len(), 194);
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut valid, mut unchecked, mut meaningless, mut ps1x) = (0, 0, 0, 0);
    for case in &cases {
        let source = case["source"].as_str().expect("source");
        // Most sources are assembler tests that do not validate (registers read before
        // written, missing declarations): those translate unchecked.
        let (checked, result) = match translate_both(source) {
            Ok(None) => (false, translate_unchecked_both(source)),
            r => (true, r),
        };
        match result {
            Ok(Some(())) if checked => valid += 1,
            Ok(Some(())) => unchecked += 1,
            Ok(None) => panic!("every conformance source assembles: {source}"),
            // The ps_1_x texture-addressing family is not translated yet.
            Err(Error::Unsupported { version, .. }) if version.is_pixel() && version.major == 1 => {
                ps1x += 1
            }
            // An unvalidated fragment may mean nothing (a call to a label it lacks).
            Err(Error::Invalid { what, .. }) if !checked => {
                eprintln!("meaningless: {what}: {source:?}");
                meaningless += 1
            }
            Err(e) => failures
                .entry(class(&e))
                .or_default()
                .push(source.lines().take(3).collect::<Vec<_>>().join(" / ")),
        }
    }
    for (class, names) in &failures {
        eprintln!("{:5} {class} (e.g. {})", names.len(), names[0]);
    }
    eprintln!(
        "translated {valid} validated and {unchecked} unvalidated sources; {meaningless} \
         unvalidated ones mean nothing; ps_1_x texture ops unsupported in {ps1x}"
    );
    assert!(
        failures.is_empty(),
        "{} classes of failures",
        failures.len()
    );
    // `call l2047` twice (no label) and `texldd` with a temporary for its sampler.
    assert!(meaningless <= 3, "{meaningless} meaningless sources");
}

/// What Strict costs: the SPIR-V of every 10th corpus shader in both modes, in words.
#[test]
fn strict_costs_instructions() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let mut words = [0usize; 2];
    for path in dxso_testdata::asm_files(&dir).iter().step_by(10) {
        let shader = dxso::text::parse(&dxso_testdata::read_text(path)).expect("assembles");
        let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) else {
            continue;
        };
        for (k, float) in [FloatMode::Strict, FloatMode::Ieee].into_iter().enumerate() {
            let t = dxso_naga::translate(&checked, &Options { float }).expect("translates");
            match dxso_naga::write(&t, dxso_naga::Target::SpirV).expect("writes") {
                dxso_naga::Output::SpirV(w) => words[k] += w.len(),
                dxso_naga::Output::Text(_) => unreachable!("SPIR-V is words"),
            }
        }
    }
    eprintln!(
        "SPIR-V words, every 10th corpus shader: strict {}, ieee {} ({:.2}x)",
        words[0],
        words[1],
        words[0] as f64 / words[1] as f64
    );
    assert!(words[0] > words[1], "Strict adds selects and polynomials");
}
