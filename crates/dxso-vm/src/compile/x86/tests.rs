//! The AVX2 width's code runs on processors without AVX-512: it has no EVEX-encoded
//! instruction (no zmm or k register, no xmm/ymm register above 15). This machine has
//! AVX-512, so running the code here would not show it; the instructions are checked as
//! emitted.

use super::*;
use dxso::validate::{Caps, validate};

fn program(src: &str) -> Program {
    let shader = dxso::text::parse(src).expect("assembles");
    let checked = validate(&shader, &Caps::max()).expect("validates");
    Program::lower(&checked).expect("lowers")
}

/// The EVEX-encoded instructions `p` compiles to at width `w`.
fn evex(p: &Program, w: Width) -> Vec<String> {
    let mut g = Gen::new(p, None, w, finite::checks(p)).expect("a generator");
    g.program().expect("compiles");
    g.a.instructions()
        .iter()
        .map(|i| format!("{:?}", i.code()))
        .filter(|c| c.starts_with("EVEX_"))
        .collect()
}

#[test]
fn the_avx2_width_emits_no_avx512_instruction() {
    use crate::workloads::{W1, W2, W3};
    // Every instruction kind, p0, a0, both relative constant reads and both relative input
    // reads.
    let every = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\n\
        dcl_texcoord0 o1\ndcl_texcoord1 o2\ndefi i0, 3, 0, 1, 0\n\
        mul r0, v0, c0\nmad r1, -r0_abs, v1, c1\nmin r2, r0, r1\nmax r3, r0, r1\n\
        slt r4, r0, r1\nsge r5, r0, r1\nabs r6, r5\nfrc r7, r6\nlrp r8, r0, r1, r2\n\
        dp3 r9.x, r0, r1\ndp4 r9.y, r0, r1\nrcp r9.z, r0.x\nrsq r9.w, r0.y\n\
        exp r10.x, r0.z\nlog r10.y, r0.w\nexpp r10.z, r1.x\nlogp r10.w, r1.y\n\
        lit r11, r0\ndst r12, r0, r1\nnrm r13, r1\npow r16.x, r0.x, r1.y\nsgn r15, r0\n\
        crs r14.xyz, r0, r1\nsetp_lt p0, r0, r1\n(p0) add r8, r8, r9\n(!p0.y) mov r7, r10\n\
        mova a0, r3\nadd r8, r8, c[a0.x + 1]\nadd r8, r8, c[a0.x + 2]\nadd r7, r7, c[a0.y]\n\
        loop aL, i0\nadd r8, r8, c[aL + 4]\nadd r7, r7, v[aL]\nendloop\nadd r6, r6, v[a0.w + 1]\n\
        add r15, r15, r14\nadd r15, r15, r13\nadd r15, r15, r12\nadd r15, r15, r11\n\
        add r15, r15, r16.x\nmov_sat o0, r8\nmov o1, r7\nadd o2, r15, r6\n";
    for src in [W1, W2, W3, every] {
        let p = program(src);
        assert_eq!(evex(&p, Width::Ymm), Vec::<String>::new(), "{src}");
        // The check sees EVEX instructions where there are some.
        assert!(!evex(&p, Width::Zmm).is_empty());
    }
}

/// The instructions (opcode, destination register number) whose results the fast code
/// checks in `src`.
fn checked(src: &str) -> Vec<String> {
    let p = program(src);
    let checks = finite::checks(&p).expect("products");
    let shader = dxso::text::parse(src).expect("assembles");
    (0..p.ops.len())
        .filter(|&pc| checks[pc])
        .map(|pc| {
            let i = &shader.instructions[p.op_source[pc] as usize];
            let dst = i.dst.as_ref().map_or(0, |d| d.reg.number);
            format!("{:?} {dst}", i.opcode)
        })
        .collect()
}

#[test]
fn fast_code_checks_w3_where_a_value_stops_carrying() {
    // 1 + k * d2 (read by rcp; it carries d2 too), N.L and N.H (read by max): the rest
    // carry an inf or NaN on to these or to the outputs (nrm's inputs and results, the
    // colours through the loop).
    assert_eq!(checked(crate::workloads::W3), ["Mad 7", "Dp3 7", "Dp3 7"]);
}

#[test]
fn fast_code_checks_what_stops_carrying_and_nothing_else() {
    let vs = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
              def c0, 0, 1, 2, 3\ndefi i0, 4, 0, 1, 0\nmov r1, v1\n";
    let cases: [(&str, &[&str]); 8] = [
        // Carried to an output (checked at the end): nothing.
        ("mul r0, v0, r1\nadd r2, r0, c0\nmov o0, r2\n", &[]),
        // Read by max, which turns NaN into a number.
        ("mul r0, v0, r1\nmax o0, r0, c0\n", &["Mul 0"]),
        // Overwritten before anything reads it.
        ("mul r0, v0, r1\nmov r0, c0\nmax o0, r0, c0\n", &[]),
        // _sat clamps what it writes; a predicate may leave it out.
        ("mul_sat o0, v0, r1\n", &["Mul 0"]),
        (
            "setp_gt p0, v0, c0\n(p0) mul r0, v0, r1\nmax o0, r0, c0\n",
            &["Mul 0"],
        ),
        // Summed through a loop, then read by min: only products are checked, so the
        // product in the loop is.
        (
            "mov r0, c0\nloop aL, i0\nmul r2, v0, r1\nadd r0, r0, r2\nendloop\nmin o0, r0, c0\n",
            &["Mul 2"],
        ),
        // dp3 carries into the dp4 whose result a compare reads: only the last is checked.
        (
            "dp3 r0, v0, r1\ndp4 r2.x, r0, r1\nslt o0, r2.x, c0\n",
            &["Dp4 2"],
        ),
        // Read by rcp and carried to the output by mad: seen there.
        (
            "mul r0, v0, r1\nrcp r2.x, r0.x\nmad o0, r0, r2.x, c0\n",
            &[],
        ),
    ];
    for (body, want) in cases {
        let src = format!("{vs}{body}mov o1, v0\n");
        assert_eq!(checked(&src), want, "{body}");
    }
}
