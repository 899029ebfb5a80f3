//! The Wine assembler vectors of `../shared/conformance`: 194 sources with the exact tokens
//! they assemble to, and 49 sources that must be rejected.

use dxso::{binary, text};
use serde_json::Value;

fn cases(name: &str) -> Option<Vec<Value>> {
    let dir = dxso_testdata::shared("conformance")?;
    let data = std::fs::read_to_string(dir.join(name)).expect("readable vectors");
    Some(serde_json::from_str::<Vec<Value>>(&data).expect("valid JSON"))
}

fn hex(v: &Value) -> u32 {
    let s = v.as_str().expect("token string");
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex token")
}

#[test]
fn every_case_assembles_to_its_exact_tokens() {
    let Some(cases) = cases("wine-asm-cases.json") else {
        return;
    };
    assert_eq!(cases.len(), 194);
    let mut failures = Vec::new();
    for case in &cases {
        let source = case["source"].as_str().expect("source");
        let want: Vec<u32> = case["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(hex)
            .collect();
        let got = text::parse(source)
            .map_err(|e| e.to_string())
            .and_then(|s| binary::write(&s).map_err(|e| e.to_string()));
        match got {
            Ok(t) if t == want => {
                // And the disassembly assembles back to the same tokens.
                let shader = binary::read(&t).expect("own tokens read back");
                let listing = text::print(&shader);
                let again = binary::write(&text::parse(&listing).expect("listing parses"))
                    .expect("listing writes");
                if again != want {
                    failures.push(format!("{source:?}: dis -> asm differs:\n{listing}"));
                }
            }
            Ok(t) => failures.push(format!("{source:?}\n  want {:08x?}\n  got  {t:08x?}", want)),
            Err(e) => failures.push(format!("{source:?}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 194 failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_failure_case_is_rejected_with_a_message() {
    let Some(cases) = cases("wine-asm-failures.json") else {
        return;
    };
    assert_eq!(cases.len(), 49);
    let mut accepted = Vec::new();
    for case in &cases {
        let source = case["source"].as_str().expect("source");
        match text::parse(source) {
            Ok(s) => accepted.push(format!("{source:?} ({}) -> {s:?}", case["comment"])),
            Err(e) => {
                assert!(!e.0.is_empty());
                assert!(e.0.iter().all(|x| !x.message.is_empty() && x.line >= 1));
            }
        }
    }
    assert!(accepted.is_empty(), "accepted:\n{}", accepted.join("\n"));
}
