//! Random ps_3_0 programs with texkill, dsx/dsy, sampling of every kind, dynamic and
//! uniform flow control and predication: on each x86 code generator width the processor
//! has, bit-identical to the interpreter (`pixel_compiled::compare`).

use crate::pixel_compiled::{Bound, Coverage, Rng, compare};
use dxso::validate::{Caps, validate};
use dxso_vm::{Isa, PixelState};

/// A register operand: r0..r5, or (`special`: the instruction's one input or constant
/// read, ps_3_0's read ports) v0, v1 or c1..c4; maybe negated or `_abs`, swizzled.
fn operand(rng: &mut Rng, special: bool) -> String {
    let reg = match rng.next() % if special { 10 } else { 6 } {
        n @ 0..6 => format!("r{n}"),
        6 => "v0".to_string(),
        7 => "v1".to_string(),
        n => format!("c{}", n - 7 + rng.next() % 2),
    };
    let swz: String = (0..4)
        .map(|_| ['x', 'y', 'z', 'w'][(rng.next() % 4) as usize])
        .collect();
    let reg = if rng.next().is_multiple_of(6) && reg.starts_with('r') {
        format!("{reg}_abs")
    } else {
        reg
    };
    let neg = if rng.next().is_multiple_of(5) {
        "-"
    } else {
        ""
    };
    format!("{neg}{reg}.{swz}")
}

fn dst(rng: &mut Rng) -> String {
    let masks = ["", ".x", ".xy", ".xyz", ".yw", ".z"];
    format!("r{}{}", rng.next() % 6, masks[(rng.next() % 6) as usize])
}

/// One arithmetic, derivative, kill or sampling line.
fn line(rng: &mut Rng) -> String {
    let r = |rng: &mut Rng| format!("r{}", rng.next() % 6);
    match rng.next() % 17 {
        0 => format!(
            "add {}, {}, {}",
            dst(rng),
            operand(rng, true),
            operand(rng, false)
        ),
        1 => format!(
            "mul {}, {}, {}",
            dst(rng),
            operand(rng, true),
            operand(rng, false)
        ),
        2 => format!(
            "mad_sat {}, {}, {}, {}",
            dst(rng),
            operand(rng, true),
            operand(rng, false),
            operand(rng, false)
        ),
        3 => format!(
            "cmp {}, {}, {}, {}",
            dst(rng),
            operand(rng, true),
            operand(rng, false),
            operand(rng, false)
        ),
        4 => format!(
            "dp2add r{}.x, {}, {}, {}.x",
            rng.next() % 6,
            operand(rng, true),
            operand(rng, false),
            r(rng)
        ),
        5 => format!("dsx {}, {}", dst(rng), operand(rng, true)),
        6 => format!("dsy {}, {}", dst(rng), operand(rng, true)),
        7 => format!("texkill {}", r(rng)),
        8 => format!("texld {}, {}, s0", r(rng), r(rng)),
        9 => format!("texldp {}, {}, s0", r(rng), r(rng)),
        10 => format!("texldb {}, {}, s1", r(rng), r(rng)),
        11 => format!("texldl {}, {}, s0", r(rng), r(rng)),
        12 => format!("texldd {}, {}, s1, {}, {}", r(rng), r(rng), r(rng), r(rng)),
        13 => format!(
            "max {}, {}, {}",
            dst(rng),
            operand(rng, true),
            operand(rng, false)
        ),
        14 => format!("rsq {}, {}", dst(rng), operand(rng, true)),
        15 => format!("(p0.x) mov {}, {}", dst(rng), operand(rng, true)),
        _ => format!("(!p0.z) texld {}, {}, s0", dst(rng), r(rng)),
    }
}

/// A block of lines, with nested flow control up to `depth` levels.
fn block(rng: &mut Rng, out: &mut Vec<String>, depth: u32, in_loop: bool) {
    for _ in 0..2 + rng.next() % 5 {
        match rng.next() % 10 {
            0 if depth > 0 => {
                let cmp = ["gt", "lt", "ge", "ne"][(rng.next() % 4) as usize];
                let (a, b) = (rng.next() % 6, rng.next() % 6);
                out.push(format!("if_{cmp} r{a}.x, r{b}.y"));
                block(rng, out, depth - 1, in_loop);
                if rng.next().is_multiple_of(2) {
                    out.push("else".into());
                    block(rng, out, depth - 1, in_loop);
                }
                out.push("endif".into());
            }
            1 if depth > 0 => {
                out.push(format!("rep i{}", rng.next() % 2));
                block(rng, out, depth - 1, true);
                out.push("endrep".into());
            }
            2 if in_loop => out.push(format!("break_gt r{}.x, c1.x", rng.next() % 6)),
            3 => out.push(format!(
                "setp_gt p0, {}, {}",
                operand(rng, true),
                operand(rng, false)
            )),
            4 => out.push(format!("if b{}", rng.next() % 2)),
            _ => out.push(line(rng)),
        }
        if out.last().is_some_and(|l| l.starts_with("if b")) {
            out.push(line(rng));
            out.push("endif".into());
        }
    }
}

fn program(rng: &mut Rng) -> String {
    let mut lines = vec![
        "ps_3_0".to_string(),
        "def c1, 0.25, -0.5, 1.5, 0".into(),
        "defi i0, 3, 0, 1, 0".into(),
        "defi i1, 2, 0, 1, 0".into(),
        "defb b1, true".into(),
        "dcl_texcoord0 v0".into(),
        "dcl_texcoord1 v1".into(),
        "dcl_2d s0".into(),
        "dcl_cube s1".into(),
        "mov r0, v0".into(),
        "mov r1, v1".into(),
        "mul r2, v0.yzwx, c2".into(),
        "add r3, v1, -c3".into(),
        "mov r4, c4".into(),
        "mov r5, v0.wzyx".into(),
        "setp_lt p0, v0, r1".into(),
    ];
    block(rng, &mut lines, 2, false);
    lines.push("mov oC0, r0".into());
    lines.push("add oC1, r1, r2".into());
    lines.push("mov oDepth, r3.x".into());
    lines.join("\n") + "\n"
}

/// Random pixel programs: compiled at each width, bit-identical to the interpreter.
#[test]
fn random_pixel_programs_compiled_match_the_interpreter() {
    let bound = Bound::new();
    let mut coverage: [Coverage; 3] = Default::default();
    let (mut total, mut invalid) = (0, 0);
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    for _ in 0..400 {
        let text = program(&mut rng);
        let shader = dxso::text::parse(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let checked = match validate(&shader, &Caps::max()) {
            Ok(c) => c,
            Err(e) => {
                if invalid < 3 {
                    println!("does not validate: {e:?}\n{text}");
                }
                invalid += 1;
                continue;
            }
        };
        let mut st = PixelState::new(&checked).unwrap_or_else(|e| panic!("{text}: {e}"));
        bound.bind(&mut st, 0, 0);
        bound.bind(&mut st, 1, 1);
        let consts: Vec<[f32; 4]> = (0..8).map(|_| [0; 4].map(|_| rng.f(-2.0, 2.0))).collect();
        st.set_constant_f(0, &consts).unwrap();
        compare(&text, &mut st, &mut coverage);
        total += 1;
    }
    println!("random pixel programs: {total} ran ({invalid} did not validate)");
    let c = &coverage[2];
    println!(
        "random pixel programs: Cranelift: {} of {total} compiled, on the interpreter: {:?}",
        c.compiled, c.fell_back
    );
    // Cranelift's code has uniform flow only: the programs with dynamic ifs or breaks run
    // on the interpreter there.
    assert!(
        c.fell_back
            .keys()
            .all(|why| why.starts_with("IfDyn") || why.starts_with("Break")),
        "{:?}",
        c.fell_back
    );
    for (w, isa) in [Isa::Avx512, Isa::Avx2].into_iter().enumerate() {
        if Isa::detect() >= isa {
            let c = &coverage[w];
            println!(
                "random pixel programs: {isa:?}: {} of {total} compiled, on the interpreter: {:?}",
                c.compiled, c.fell_back
            );
            // Both widths compile every one.
            assert_eq!(c.compiled, total, "{:?}", c.fell_back);
        }
    }
    assert!(total >= 200, "only {total} of 400 validated");
}
