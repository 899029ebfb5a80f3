//! Random straight-line vs_3_0 programs (every arithmetic instruction, swizzles, masks,
//! source and result modifiers, predication, relative constants) that validate also
//! translate in both float modes and naga validates them.

use dxso_naga::{FloatMode, Options};
use proptest::prelude::*;

const OPS: &[(&str, usize)] = &[
    ("mov", 1),
    ("add", 2),
    ("mul", 2),
    ("mad", 3),
    ("min", 2),
    ("max", 2),
    ("slt", 2),
    ("sge", 2),
    ("frc", 1),
    ("abs", 1),
    ("dp3", 2),
    ("dp4", 2),
    ("lrp", 3),
    ("crs", 2),
    ("nrm", 1),
    ("lit", 1),
    ("dst", 2),
    ("rcp", 1),
    ("rsq", 1),
    ("exp", 1),
    ("log", 1),
    ("pow", 2),
    ("sgn", 1),
];

fn src() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            (0u32..4).prop_map(|r| format!("r{r}")),
            Just("v0".to_string()),
            // One c# per instruction at most (vs_3_0's read ports): c5 or c[a0.x + 2].
            Just("c5".to_string()),
            Just("c[a0.x + 2]".to_string()),
        ],
        prop_oneof![Just(""), Just("-")],
        prop_oneof![
            Just(""),
            Just(".x"),
            Just(".yzwx"),
            Just(".wzyx"),
            Just(".y")
        ],
        any::<bool>(),
    )
        .prop_map(|(r, neg, sw, abs)| {
            let abs = if abs && !r.starts_with('c') {
                "_abs"
            } else {
                ""
            };
            format!("{neg}{r}{abs}{sw}")
        })
}

fn instruction() -> impl Strategy<Value = String> {
    (
        0..OPS.len(),
        0u32..4,
        prop_oneof![Just(""), Just(".x"), Just(".xy"), Just(".yzw"), Just(".w")],
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(src(), 3),
    )
        .prop_map(|(op, d, mask, sat, pred, srcs)| {
            let (name, n) = OPS[op];
            let sat = if sat && name != "frc" { "_sat" } else { "" };
            let pred = if pred { "(p0.x) " } else { "" };
            let mask = match name {
                "rcp" | "rsq" | "exp" | "log" | "pow" => ".x",
                "crs" | "nrm" => ".xyz",
                _ => mask,
            };
            // The operand without its swizzle (the dot after any `[a0.x + n]`).
            let strip = |s: &String| {
                let from = s.rfind(']').unwrap_or(0);
                match s[from..].find('.') {
                    Some(i) => s[..from + i].to_string(),
                    None => s.clone(),
                }
            };
            let srcs: Vec<String> = srcs[..n]
                .iter()
                .map(|s| match name {
                    "crs" => strip(s),
                    // Scalar instructions read one component.
                    "rcp" | "rsq" | "exp" | "log" | "pow" => format!("{}.y", strip(s)),
                    _ => s.clone(),
                })
                .collect();
            let srcs = srcs.join(", ");
            format!("{pred}{name}{sat} r{d}{mask}, {srcs}")
        })
}

fn program(body: &[String]) -> String {
    let mut s = String::from(
        "vs_3_0\ndcl_position v0\ndcl_position o0\n\
         mov r0, v0\nmov r1, v0.yzwx\nmov r2, c0\nmov r3, v0_abs\n\
         mova a0.x, v0.x\nsetp_gt p0, v0, c1\n",
    );
    for line in body {
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("add o0, r0, r1\n");
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn valid_programs_translate(body in prop::collection::vec(instruction(), 1..12)) {
        let text = program(&body);
        let shader = dxso::text::parse(&text).expect("the generator writes valid syntax");
        if let Ok(checked) = dxso::validate::validate(&shader, &dxso::validate::Caps::max()) {
            for float in [FloatMode::Strict, FloatMode::Ieee] {
                let r = dxso_naga::translate(&checked, &Options { float });
                prop_assert!(r.is_ok(), "{text}\n{:?}", r.err());
            }
        }
    }
}

/// The generator is worth running: a good share of its programs validate.
#[test]
fn most_generated_programs_validate() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop::collection::vec(instruction(), 1..12);
    let mut valid = 0;
    let mut errors = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..200 {
        let body = strategy.new_tree(&mut runner).expect("generates").current();
        let shader = dxso::text::parse(&program(&body)).expect("valid syntax");
        match dxso::validate::validate(&shader, &dxso::validate::Caps::max()) {
            Ok(_) => valid += 1,
            Err(d) => *errors.entry(d[0].message.clone()).or_default() += 1,
        }
    }
    assert!(valid >= 100, "only {valid} of 200 validate; {errors:#?}");
}
