//! The random programs the equivalence suite draws: instruction lines of every kind and
//! version, and whole programs around uniform flow, AVX2-width coverage, dynamic flow
//! control and the older versions' registers; the values and texture they run with.
#![allow(dead_code)]

use crate::common::*;
use proptest::prelude::*;

pub const OPS: &[(&str, usize)] = &[
    ("mov", 1),
    ("add", 2),
    ("sub", 2),
    ("mul", 2),
    ("mad", 3),
    ("min", 2),
    ("max", 2),
    ("slt", 2),
    ("sge", 2),
    ("abs", 1),
    ("frc", 1),
    ("lrp", 3),
    ("dp3", 2),
    ("dp4", 2),
    ("rcp", 1),
    ("rsq", 1),
    ("exp", 1),
    ("log", 1),
    ("expp", 1),
    ("logp", 1),
    ("lit", 1),
    ("dst", 2),
    ("nrm", 1),
    ("pow", 2),
    ("sgn", 1),
];

pub fn swz(bits: u8) -> String {
    let l = ['x', 'y', 'z', 'w'];
    (0..4).map(|c| l[(bits >> (2 * c) & 3) as usize]).collect()
}

/// The shader versions the random programs are written for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Version {
    Vs11,
    Vs20,
    Vs2x,
    Vs30,
}

impl Version {
    fn name(self) -> &'static str {
        match self {
            Version::Vs11 => "vs_1_1",
            Version::Vs20 => "vs_2_0",
            Version::Vs2x => "vs_2_x",
            Version::Vs30 => "vs_3_0",
        }
    }

    /// Whether `op` takes the operands [`arb_line_for`] gives it in this version (vs_1_1 has
    /// no abs/lrp/nrm/pow/sgn and writes frc only to .y/.xy; sgn before vs_3_0 needs two
    /// scratch registers).
    fn has(self, op: &str) -> bool {
        match self {
            Version::Vs30 => true,
            Version::Vs11 => !matches!(op, "abs" | "lrp" | "nrm" | "pow" | "sgn" | "frc"),
            Version::Vs20 | Version::Vs2x => op != "sgn",
        }
    }
}

/// One random instruction line over r0..r7 (all written in the prologue), v0, v1 and c0..c3.
pub fn arb_line() -> impl Strategy<Value = String> {
    arb_line_for(Version::Vs30)
}

/// [`arb_line`] for `version`: its instructions only; `_abs` and `_sat` only in vs_3_0; nrm
/// and pow write r8..r11 before vs_3_0 (12 temporaries), r8..r15 in it.
pub fn arb_line_for(version: Version) -> impl Strategy<Value = String> {
    let ops: Vec<(&str, usize)> = OPS.iter().copied().filter(|o| version.has(o.0)).collect();
    let vs3 = version == Version::Vs30;
    (
        0..ops.len(),
        0u8..8,
        1u8..16,
        prop::collection::vec((0u8..10, any::<u8>(), 0u8..4), 3),
        any::<bool>(),
    )
        .prop_map(move |(op, d, mask, srcs, sat)| {
            let (name, n) = ops[op];
            let scalar = matches!(
                name,
                "rcp" | "rsq" | "exp" | "log" | "expp" | "logp" | "pow"
            );
            let mut used_c = false;
            let mut used_v = false;
            let operands: Vec<String> = srcs[..n]
                .iter()
                .map(|&(reg, sw, m)| {
                    // One c# and one v# at most per instruction (read ports).
                    let r = match reg {
                        8 if !used_c => {
                            used_c = true;
                            "c1".to_string()
                        }
                        9 if !used_v => {
                            used_v = true;
                            "v1".to_string()
                        }
                        r => format!("r{}", r % 8),
                    };
                    let s = if scalar {
                        format!(".{}", ['x', 'y', 'z', 'w'][(sw & 3) as usize])
                    } else {
                        format!(".{}", swz(sw))
                    };
                    // _abs exists in vs_3_0 only.
                    let m = if vs3 { m } else { m & 1 };
                    match m {
                        1 => format!("-{r}{s}"),
                        2 => format!("{r}_abs{s}"),
                        3 => format!("-{r}_abs{s}"),
                        _ => format!("{r}{s}"),
                    }
                })
                .collect();
            let dst = match name {
                "nrm" | "pow" if vs3 => d % 8 + 8,
                "nrm" | "pow" => d % 4 + 8,
                _ => d % 8,
            };
            let m: String = (0..4)
                .filter(|c| mask >> c & 1 != 0)
                .map(|c| ['x', 'y', 'z', 'w'][c])
                .collect();
            let sat = if vs3 && sat && !matches!(name, "frc") {
                "_sat"
            } else {
                ""
            };
            format!("{name}{sat} r{dst}.{m}, {}", operands.join(", "))
        })
}

pub fn arb_shader() -> impl Strategy<Value = String> {
    (prop::collection::vec(arb_line(), 1..20), prop::collection::vec(arb_line(), 0..6)).prop_map(|(body, inner)| {
        let mut s = String::from("vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n");
        for r in 0..16 {
            s.push_str(&format!("mov r{r}, v{}\n", r % 2));
        }
        for line in &body {
            s.push_str(line);
            s.push('\n');
        }
        // A branch that lanes take differently.
        s.push_str("if_lt r0.x, r1.y\n");
        for line in &inner {
            s.push_str(line);
            s.push('\n');
        }
        s.push_str("endif\nmov o0, r0\nmov o1, r1\nadd o2, r2, r9\n");
        s
    })
}

/// The start of the random programs below: two inputs, four outputs, s0, and r0..r15
/// loaded from the inputs.
pub fn head() -> String {
    let mut s = String::from(
        "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
         dcl_texcoord2 o3\ndcl_2d s0\n",
    );
    for r in 0..16 {
        s.push_str(&format!("mov r{r}, v{}\n", r % 2));
    }
    s
}

/// `l`, a line each, after `s`.
pub fn lines(s: &mut String, l: &[String]) {
    for line in l {
        s.push_str(line);
        s.push('\n');
    }
}

/// Random lines (every instruction of [`OPS`], source modifiers, `_sat`, write masks)
/// around uniform flow only: a `rep` loop, a `loop aL` reading `v[aL + 1]` and `c[aL + n]`,
/// an `if b#`/`else`, `setp` and predicated writes, `v[a0.x + n]` and `c[a0.n + k]` reads in
/// and out of their files (one alone, a palette run), `sincos`, and `texldl` into part of an
/// output register (instructions.md §6).
pub fn arb_uniform_shader() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(arb_line(), 1..24),
        prop::collection::vec(arb_line(), 0..5),
        prop::collection::vec(arb_line(), 0..4),
        0u8..6,
        (1u8..16, any::<u8>(), 0u8..16),
    )
        .prop_map(|(body, looped, branch, cmp, (tmask, tswz, treg))| {
            let mut s = head();
            lines(&mut s, &body);
            s.push_str("sincos r15.xy, r14.x\nadd r12, r12, r15.xyxy\n");
            s.push_str("rep i0\n");
            lines(&mut s, &looped);
            s.push_str("add r3, r3, c1\nendrep\nloop aL, i0\nadd r13, r13, v[aL + 1]\n");
            s.push_str("mad r14, c[aL + 2], r13, r14\nmul r9, r9, c[aL + 1].yxwz\nendloop\nif b0\n");
            lines(&mut s, &branch);
            s.push_str("else\nmul r4, r4, c1.yzwx\nendif\n");
            let cmp = ["gt", "lt", "ge", "le", "eq", "ne"][cmp as usize];
            s.push_str(&format!("setp_{cmp} p0, r0, r1\n(p0) add r2, r2, r5\n(!p0.y) mov r7.xw, r6\n"));
            s.push_str("mova a0.x, r8.z\nadd r13, r13, v[a0.x + 1]\nmad r14, r13, v[a0.x], r14\n");
            s.push_str("mul r10, r6, c1.x\nmova a0, r10\nadd r11, r11, c[a0.x + 1]\nmad r12, r12, c[a0.w + 3].yxwz, r11\n");
            s.push_str("add r11, r11, c[a0.y]\nadd r12, r12, c[a0.y + 1]\nadd r7, r7, r12\n");
            let m: String = (0..4)
                .filter(|c| tmask >> c & 1 != 0)
                .map(|c| ['x', 'y', 'z', 'w'][c])
                .collect();
            s.push_str(&format!("texldl o3.{m}, r{treg}, s0.{}\n", swz(tswz)));
            s.push_str("mov o0, r0\nmad o1, r4, c2, r3\nadd o2, r2, r7\nadd o1.y, r13, r14\n");
            s
        })
}

/// Random lines around dynamic ifs the lanes take differently: if/else on a compare, a
/// nested `if p0.z` after a `setp` inside, `mova` and `sincos` inside (read after the
/// endif), and a dynamic if/else inside a `rep` loop with `texldl` on one side and a
/// `breakp` on the other, a `break_gt` in the loop's body, `o[aL]` writes (predicated,
/// inside the if, and not) with aL in and out of o0..o15, and subroutines called
/// always, on `b0` and per lane on `p0` (nested).
pub fn arb_dynamic_shader() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(arb_line(), 1..10),
        prop::collection::vec(arb_line(), 0..6),
        prop::collection::vec(arb_line(), 0..6),
        prop::collection::vec(arb_line(), 0..4),
        (0u8..6, 0u8..6, any::<bool>()),
        prop::collection::vec(arb_line(), 0..4),
    )
        .prop_map(|(body, then, other, inner, (c1, c2, not), sub)| {
            let cmp = |c: u8| ["gt", "lt", "ge", "le", "eq", "ne"][c as usize];
            let mut s = head();
            lines(&mut s, &body);
            s.push_str(&format!("if_{} r0.x, r1.y\n", cmp(c1)));
            lines(&mut s, &then);
            s.push_str(&format!("setp_{} p0, r2, r3\nif {}p0.z\n", cmp(c2), if not { "!" } else { "" }));
            lines(&mut s, &inner);
            s.push_str("mova a0.x, r4.x\nloop aL, i1\n(p0.x) mov o1[aL].y, r9\nendloop\nendif\nelse\n");
            lines(&mut s, &other);
            s.push_str("sincos r15.xy, r14.x\nendif\n");
            s.push_str(
                "rep i0\nif_ge r5.x, c1.x\nadd r6, r6, c1\ntexldl o3.xy, r7, s0\nelse\n\
                 mul r7, r7, c1.yzwx\nsetp_lt p0.w, r7, c3\nbreakp p0.w\nendif\nadd r5, r5, c2\n\
                 break_gt r5.y, c3.x\nadd r8, r8, r5\nendrep\n",
            );
            s.push_str("add r11, r11, c[a0.x + 1]\nmov o0, r0\nadd o1, r6, r15\nadd r7, r7, r8\nadd o2, r7, r11\n");
            s.push_str("loop aL, i1\nmov o2[aL].w, r10\nendloop\n");
            // Subroutines: called always, on b0, and per lane on p0.y (nested calls too).
            s.push_str("call l1\ncallnz l2, b0\ncallnz l3, !p0.y\nmov o3.zw, r12\nret\nlabel l1\n");
            lines(&mut s, &sub);
            s.push_str("callnz l2, p0.x\nret\nlabel l3\nmul r12, r12, r13\ncall l2\nret\nlabel l2\nadd r12, r12, c1\nret\n");
            s
        })
}

pub fn arb_value() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -4.0f32..4.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(1.0f32),
        1 => prop::num::f32::ANY,
    ]
}

/// A 4x4 texture with a 2x2 mip level at s0 (every texel different), filtered by points or
/// linearly, between its levels too.
pub fn bind_mipmapped_texture(dev: &mut dxso_vm::Device, linear: bool) {
    use dxso_vm::{Format, SamplerState, Texture, TextureFilter, TextureKind};
    let level = |n: usize, base: f32| -> Vec<u8> {
        (0..n * n * 4)
            .flat_map(|k| (base + k as f32 * 0.25).to_le_bytes())
            .collect()
    };
    let levels = [level(4, 0.0), level(2, -8.0)];
    let t = Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 4, 4, 1, &levels).unwrap();
    dev.set_texture(0, Some(std::sync::Arc::new(t))).unwrap();
    let f = if linear {
        TextureFilter::Linear
    } else {
        TextureFilter::Point
    };
    let state = SamplerState {
        mag_filter: f,
        min_filter: f,
        mip_filter: f,
        ..SamplerState::default()
    };
    dev.set_sampler_state(0, state).unwrap();
}

/// Random vs_1_1 .. vs_2_x programs with what those versions do differently (C2, C11):
/// `mov a0.x` from random values (floored in vs_1_1, rounded as `mova` later) indexing
/// constants in and out of the file; oD0 written in part or not at all, under `if b0`, and
/// (vs_2_x) predicated, next to oD1, oT#, oFog.
pub fn arb_old_shader() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(Version::Vs11),
        Just(Version::Vs20),
        Just(Version::Vs2x)
    ]
    .prop_flat_map(|version| {
        (
            Just(version),
            prop::collection::vec(arb_line_for(version), 1..14),
            (0u8..8, 0u8..4, any::<bool>()),
            prop::array::uniform4(0u8..16),
            prop::array::uniform4(0u8..8),
        )
    })
    .prop_map(|(version, body, (areg, acomp, mova), masks, regs)| {
        let mut s = format!("{}\ndcl_texcoord0 v0\ndcl_texcoord1 v1\n", version.name());
        for r in 0..12 {
            s.push_str(&format!("mov r{r}, v{}\n", r % 2));
        }
        for line in &body {
            s.push_str(line);
            s.push('\n');
        }
        let mask = |m: u8| -> String {
            (0..4)
                .filter(|c| m >> c & 1 != 0)
                .map(|c| ['x', 'y', 'z', 'w'][c])
                .collect()
        };
        let c = ['x', 'y', 'z', 'w'][acomp as usize];
        let load = if mova && version != Version::Vs11 {
            "mova"
        } else {
            "mov"
        };
        s.push_str(&format!(
            "{load} a0.x, r{areg}.{c}\nmov oT0, c[a0.x + 4]\nadd oT1.xy, r1, c[a0.x + 2]\nmov oPos, r0\n"
        ));
        s.push_str(&format!("mov oFog.x, r{}.y\n", regs[3]));
        // oD0 in part (a mask of 0: not here at all).
        if masks[0] != 0 {
            s.push_str(&format!("mov oD0.{}, r{}\n", mask(masks[0]), regs[0]));
        }
        if masks[1] != 0 {
            s.push_str(&format!("mov oD1.{}, r{}\n", mask(masks[1]), regs[1]));
        }
        if version != Version::Vs11 && masks[2] != 0 {
            s.push_str(&format!("if b0\nmov oD0.{}, -r{}\nendif\n", mask(masks[2]), regs[2]));
        }
        if version == Version::Vs2x && masks[3] != 0 {
            s.push_str(&format!(
                "setp_lt p0, r{}, r1\n(p0) mov oD0.{}, r2.wzyx\n",
                regs[3],
                mask(masks[3])
            ));
        }
        s
    })
}

/// `n` vertices drawn in each way of `WAYS` (the x86 code fused): each way's output bits,
/// in `WAYS`' order (the interpreter's last).
pub fn bits_in_every_way(dev: &mut dxso_vm::Device, n: usize) -> Vec<Vec<u32>> {
    WAYS.iter()
        .map(|&way| {
            draw_way(dev, way, n, true)
                .data
                .iter()
                .map(|x| x.to_bits())
                .collect()
        })
        .collect()
}

/// `src` over 70 vertices (`inputs`: v0's, then v1's) with these constants and the
/// mipmapped texture at s0, in every way of running (`WAYS`: each asserts its code
/// generator, so no program silently falls back): the same bits in all.
pub fn alike_in_every_way(
    src: &str,
    inputs: &[[f32; 4]],
    consts: &[[f32; 4]],
    ints: &[[i32; 4]],
    b0: bool,
    linear: bool,
) -> Result<(), TestCaseError> {
    let options = dxso_vm::Options::default();
    alike_in_every_way_with(&options, src, inputs, consts, ints, b0, linear)
}

/// [`alike_in_every_way`] on a device running as `options` says (each way then sets its
/// tier and instruction-set path).
pub fn alike_in_every_way_with(
    options: &dxso_vm::Options,
    src: &str,
    inputs: &[[f32; 4]],
    consts: &[[f32; 4]],
    ints: &[[i32; 4]],
    b0: bool,
    linear: bool,
) -> Result<(), TestCaseError> {
    let (v0, v1) = inputs.split_at(70);
    let mut dev = device(src, &[v0.to_vec(), v1.to_vec()]);
    dev.set_options(options.clone());
    bind_mipmapped_texture(&mut dev, linear);
    dev.set_constant_f(0, consts).unwrap();
    dev.set_constant_i(0, ints).unwrap();
    dev.set_constant_b(0, &[b0]).unwrap();
    let all = bits_in_every_way(&mut dev, 70);
    for (way, out) in WAYS.iter().zip(&all) {
        prop_assert_eq!(out, &all[0], "{:?}: {}", way, src);
    }
    Ok(())
}
