//! Property tests: the reader and the assembler never panic, and valid IR survives
//! write -> read and print -> parse.

use dxso::ir::*;
use dxso::opcodes::Opcode;
use dxso::{binary, text};
use proptest::prelude::*;

/// Real shaders to mutate (assembled by dxso from text in this file).
const SEEDS: &[&str] = &[
    "vs_3_0\ndef c9, 0, 1, 0.5, -2\ndcl_position v0\ndcl_normal v1\ndcl_position o0\ndcl_texcoord1 o1.xy\ndcl_2d s0\nm4x4 o0, v0, c0\nmov r0, c10[a0.x]\nloop aL, i0\nadd r1, r1, c20[aL]\nendloop\nif_gt r0.x, c9.y\ntexldl r2, v1, s0\nelse\nsetp_lt p0, r0, c9\n(p0.x) mov o1.xy, r2\nendif\nsincos r3.xy, r0.x\n",
    "vs_2_0\ndcl_position v0\ndcl_texcoord3 v2\ndefi i0, 3, 0, 1, 0\ndefb b0, true\nrep i0\nmad r0, v0, c4, r0\nendrep\nif b0\ncall l1\nendif\nmov oPos, r0\nmov oFog, r0.x\nmov oT0.xy, v2\nret\nlabel l1\nmova a0.x, c3.y\nmov oD0, c[a0.x + 40]\nret\n",
    "ps_2_0\ndcl t0.xy\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul_pp r0, r0, v0\ncmp_sat r0, -r0, c0, c1\nmov oC0, r0\n",
    "ps_1_4\ntexld r0, t0\ntexcrd r1.rgb, t1\nphase\nadd_x2 r0, r1_bx2, -r0\n+mov r0.a, 1 - r1\n",
];

fn seed_tokens() -> Vec<Vec<u32>> {
    SEEDS
        .iter()
        .map(|s| binary::write(&text::parse(s).unwrap_or_else(|e| panic!("{s}\n{e}"))).unwrap())
        .collect()
}

/// If a stream reads, it writes back to itself (up to the end token).
fn check_loss_free(tokens: &[u32]) {
    if let Ok(shader) = binary::read(tokens) {
        let out = binary::write(&shader).expect("a shader that was read can be written");
        assert_eq!(
            out[..],
            tokens[..out.len()],
            "read -> write is not the identity"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn reader_never_panics_on_random_tokens(
        version in prop::sample::select(vec![0xFFFE0101u32, 0xFFFE0200, 0xFFFE0201, 0xFFFE0300, 0xFFFF0104, 0xFFFF0300, 0x12345678]),
        body in prop::collection::vec(any::<u32>(), 0..40),
        end in any::<bool>(),
    ) {
        let mut t = vec![version];
        t.extend(body);
        if end { t.push(binary::END_TOKEN); }
        check_loss_free(&t);
    }

    #[test]
    fn reader_never_panics_on_mutated_shaders(
        which in 0..SEEDS.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u32>(), 0u8..4), 1..6),
    ) {
        let mut t = seed_tokens()[which].clone();
        for (at, value, how) in edits {
            let i = at.index(t.len());
            match how {
                0 => t[i] ^= 1 << (value % 32),
                1 => t[i] = value,
                2 => t.insert(i, value),
                _ => { t.remove(i); if t.is_empty() { t.push(value); } }
            }
        }
        check_loss_free(&t);
    }

    #[test]
    fn assembler_never_panics_on_mutated_text(
        which in 0..SEEDS.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<char>(), any::<bool>()), 1..8),
    ) {
        let mut chars: Vec<char> = SEEDS[which].chars().collect();
        for (at, c, insert) in edits {
            let i = at.index(chars.len());
            if insert { chars.insert(i, c) } else { chars[i] = c }
        }
        let source: String = chars.into_iter().collect();
        if let Ok(shader) = text::parse(&source) {
            // Whatever assembles also encodes, decodes and prints.
            if let Ok(tokens) = binary::write(&shader) {
                let back = binary::read(&tokens).expect("assembled tokens decode");
                prop_assert_eq!(&back, &shader);
                let _ = text::print(&back);
            }
        }
    }

    #[test]
    fn assembler_never_panics_on_random_text_with_block_comments(s in "([ -~\t\n]|/\\*|\\*/){0,100}") {
        let _ = text::parse(&format!("vs_3_0\n{s}"));
    }

    #[test]
    fn assembler_never_panics_on_random_text(s in "[ -~\t\n]{0,200}") {
        let _ = text::parse(&s);
        let _ = text::parse(&format!("vs_3_0\n{s}"));
    }

    #[test]
    fn valid_ir_round_trips(shader in arb_shader()) {
        let tokens = binary::write(&shader).expect("valid IR encodes");
        prop_assert_eq!(&binary::read(&tokens).expect("decodes"), &shader);
        for style in [text::Style::Microsoft, text::Style::Unity] {
            let listing = text::print_styled(&shader, style);
            let parsed = text::parse(&listing).map_err(|e| TestCaseError::fail(format!("{e}\n{listing}")))?;
            prop_assert_eq!(&parsed, &shader, "{:?}\n{}", style, listing);
        }
    }
}

fn arb_swizzle() -> impl Strategy<Value = Swizzle> {
    any::<u8>().prop_map(Swizzle)
}

fn arb_mask() -> impl Strategy<Value = WriteMask> {
    (1u8..16).prop_map(WriteMask)
}

/// A source of a vs_3_0 arithmetic instruction: r#, v#, or c# (optionally indexed).
fn arb_src(sm3: bool) -> impl Strategy<Value = Src> {
    let reg = prop_oneof![
        (0u32..32).prop_map(|n| Register::new(RegisterKind::Temp, n)),
        (0u32..16).prop_map(|n| Register::new(RegisterKind::Input, n)),
        (0u32..8192).prop_map(|n| Register::new(RegisterKind::Const, n)),
    ];
    let modifier = if sm3 {
        prop::sample::select(vec![
            SrcModifier::None,
            SrcModifier::Neg,
            SrcModifier::Abs,
            SrcModifier::AbsNeg,
        ])
    } else {
        prop::sample::select(vec![SrcModifier::None, SrcModifier::Neg])
    };
    (
        reg,
        arb_swizzle(),
        modifier,
        0u8..4,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(move |(reg, swizzle, modifier, comp, indexed, by_loop)| {
            let relative = (indexed && reg.kind == RegisterKind::Const).then(|| {
                if by_loop && sm3 {
                    Relative::al()
                } else {
                    Relative::a0(comp)
                }
            });
            Src {
                reg,
                swizzle,
                modifier,
                relative,
            }
        })
}

fn arb_instruction(sm3: bool) -> impl Strategy<Value = Instruction> {
    let arith = (
        prop::sample::select(vec![
            Opcode::Mov,
            Opcode::Add,
            Opcode::Mad,
            Opcode::Mul,
            Opcode::Dp4,
            Opcode::Rcp,
            Opcode::Max,
            Opcode::Lrp,
            Opcode::Frc,
        ]),
        0u32..32,
        arb_mask(),
        any::<bool>(),
        prop::collection::vec(arb_src(sm3), 3),
        prop::option::of((0u8..4, any::<bool>())),
    )
        .prop_map(move |(op, r, mask, sat, srcs, pred)| {
            let mut i = Instruction::new(op);
            let mut d = Dst::new(Register::new(RegisterKind::Temp, r));
            d.mask = mask;
            if sat && sm3 {
                d.modifiers = RESULT_SATURATE;
            }
            i.dst = Some(d);
            let n = match op.info().layout {
                dxso::opcodes::Layout::Ops { src, .. } => src as usize,
                _ => 1,
            };
            i.srcs = srcs[..n].to_vec();
            if let Some((c, not)) = pred.filter(|_| sm3) {
                let mut p = Src::new(Register::new(RegisterKind::Predicate, 0));
                p.swizzle = Swizzle::replicate(c);
                if not {
                    p.modifier = SrcModifier::Not;
                }
                i.predicate = Some(p);
            }
            i
        });
    let def = (0u32..256, prop::array::uniform4(any::<u32>())).prop_map(|(c, v)| {
        let mut i = Instruction::new(Opcode::Def);
        i.dst = Some(Dst::new(Register::new(RegisterKind::Const, c)));
        i.imm = v.to_vec();
        i
    });
    let defi = (0u32..16, prop::array::uniform4(any::<i32>())).prop_map(|(n, v)| {
        let mut i = Instruction::new(Opcode::DefI);
        i.dst = Some(Dst::new(Register::new(RegisterKind::ConstInt, n)));
        i.imm = v.iter().map(|&x| x as u32).collect();
        i
    });
    let dcl = (0u32..16, 0usize..14, 0u8..16, arb_mask()).prop_map(|(n, u, index, mask)| {
        let mut i = Instruction::new(Opcode::Dcl);
        let mut d = Dst::new(Register::new(RegisterKind::Input, n));
        d.mask = mask;
        i.dst = Some(d);
        i.decl = Some(Decl::semantic(Usage::ALL[u], index));
        i
    });
    let setp = (
        prop::sample::select(Comparison::ALL.to_vec()),
        arb_mask(),
        prop::collection::vec(arb_src(true), 2),
    )
        .prop_map(|(c, mask, srcs)| {
            let mut i = Instruction::new(Opcode::Setp);
            i.control = c as u8;
            let mut d = Dst::new(Register::new(RegisterKind::Predicate, 0));
            d.mask = mask;
            i.dst = Some(d);
            i.srcs = srcs;
            i
        });
    let comment = prop::collection::vec(any::<u32>(), 0..6).prop_map(|imm| {
        let mut i = Instruction::new(Opcode::Comment);
        i.imm = imm;
        i
    });
    if sm3 {
        prop_oneof![4 => arith, 1 => def, 1 => defi, 1 => dcl, 1 => setp, 1 => comment].boxed()
    } else {
        prop_oneof![4 => arith, 1 => def, 1 => defi, 1 => dcl, 1 => comment].boxed()
    }
}

fn arb_shader() -> impl Strategy<Value = Shader> {
    prop_oneof![
        Just(Version::vs(3, 0)),
        Just(Version::vs(2, 0)),
        Just(Version::vs(2, 1))
    ]
    .prop_flat_map(|version| {
        let sm3 = version.major >= 3;
        prop::collection::vec(arb_instruction(sm3), 0..24).prop_map(move |instructions| {
            // vs_2_0 has 12 temporaries and no predicate; keep the generated IR valid for it.
            let instructions = instructions
                .into_iter()
                .filter(|i| {
                    version.number() != 0x200
                        || i.dst
                            .is_none_or(|d| d.reg.kind != RegisterKind::Temp || d.reg.number < 12)
                            && i.srcs
                                .iter()
                                .all(|s| s.reg.kind != RegisterKind::Temp || s.reg.number < 12)
                })
                .collect();
            Shader {
                version,
                instructions,
            }
        })
    })
}
