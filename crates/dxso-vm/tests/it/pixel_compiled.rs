//! Pixel shaders on the compiled tier: every pixel shader of `../shared/corpus/dx9-asm`
//! that validates (and every ps_1_x source of Wine's assembler cases) shades synthesized
//! quads at each x86 code generator width the processor has and on Cranelift's code (the
//! base path), bit-identical to the interpreter: colours, depth, discards and the run's
//! result. Colours and depth carry one NaN for every NaN (the runner's `one_nan`: which NaN
//! an operation on NaN operands gives depends on an operand order the compiler may change
//! in the interpreter), so NaN-ness is compared, not payloads.

use crate::common::corpus_files;
use dxso::Opcode;
use dxso::ir::{RegisterKind, TextureType};
use dxso::validate::{Caps, validate};
use dxso_vm::{
    CodeGenerator, Format, Isa, LANES, Options, PixelBatch, PixelState, SamplerState, StageState,
    Texture, TextureAddress, TextureFilter, TextureKind, Tier,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A float in [lo, hi).
    pub fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A 4-level texture of `kind` in `format` (A32B32G32R32F or A8R8G8B8) whose texels vary.
fn texture(kind: TextureKind, format: Format) -> Arc<Texture> {
    let (faces, depth) = match kind {
        TextureKind::Cube => (6, 1),
        TextureKind::Volume => (1, 8),
        TextureKind::TwoD => (1, 1),
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ kind as u64);
    let levels: Vec<Vec<u8>> = (0..4)
        .map(|k| {
            let n = (8usize >> k) * (8 >> k) * (depth >> k).max(1) * faces;
            (0..n)
                .flat_map(|_| match format {
                    Format::A32B32G32R32F => [0; 4]
                        .map(|_| rng.f(-0.5, 1.5))
                        .into_iter()
                        .flat_map(f32::to_le_bytes)
                        .collect::<Vec<u8>>(),
                    _ => (rng.next() as u32).to_le_bytes().to_vec(),
                })
                .collect()
        })
        .collect();
    Arc::new(Texture::new(kind, format, 8, 8, depth, &levels).unwrap())
}

/// The textures and sampler states a test binds: per texture kind, a float texture filtered
/// linearly (mip-mapped, wrapping) and an 8-bit one sampled by its nearest texel (clamped,
/// a bias on the level of detail).
pub struct Bound {
    float: [Arc<Texture>; 3],
    unorm: [Arc<Texture>; 3],
    linear: SamplerState,
    point: SamplerState,
}

impl Bound {
    pub fn new() -> Bound {
        let kinds = [TextureKind::TwoD, TextureKind::Cube, TextureKind::Volume];
        Bound {
            float: kinds.map(|k| texture(k, Format::A32B32G32R32F)),
            unorm: kinds.map(|k| texture(k, Format::A8R8G8B8)),
            linear: SamplerState {
                min_filter: TextureFilter::Linear,
                mag_filter: TextureFilter::Linear,
                mip_filter: TextureFilter::Linear,
                ..SamplerState::default()
            },
            point: SamplerState {
                min_filter: TextureFilter::Point,
                mag_filter: TextureFilter::Point,
                mip_filter: TextureFilter::Point,
                address_u: TextureAddress::Clamp,
                address_v: TextureAddress::Mirror,
                mip_lod_bias: 0.5,
                ..SamplerState::default()
            },
        }
    }

    /// Sampler `n` with a texture of `kind` (index into the kinds).
    pub fn bind(&self, st: &mut PixelState, n: usize, kind: usize) {
        let (tex, state) = if n.is_multiple_of(2) {
            (&self.float[kind], self.linear)
        } else {
            (&self.unorm[kind], self.point)
        };
        st.set_texture(n, Some(tex.clone())).unwrap();
        st.set_sampler_state(n, state).unwrap();
    }
}

/// A batch of quads with pseudo-random inputs that vary smoothly inside each quad (so the
/// derivatives mean something), some helper lanes, both faces, and a NaN and an infinity
/// in a few lanes.
fn batch(st: &PixelState, seed: u64) -> PixelBatch {
    let mut rng = Rng(seed | 1);
    let mut b = PixelBatch::new(st);
    for input in b.inputs.iter_mut() {
        for row in input.iter_mut() {
            for q in 0..LANES / 4 {
                let (base, dx, dy) = (rng.f(-1.5, 1.5), rng.f(-0.2, 0.2), rng.f(-0.2, 0.2));
                for k in 0..4 {
                    row[4 * q + k] = base + dx * (k % 2) as f32 + dy * (k / 2) as f32;
                }
            }
        }
    }
    if let Some(first) = b.inputs.first_mut() {
        first[0][13] = f32::NAN;
        first[1][22] = f32::INFINITY;
        first[2][41] = f32::from_bits(0xFFC0_1234);
    }
    for l in 0..LANES {
        b.pos[0][l] = (l % 2) as f32 + 2.0 * (l / 4) as f32;
        b.pos[1][l] = (l / 2 % 2) as f32 + 2.0 * (seed % 7) as f32;
        b.face[l] = if (l / 4 + seed as usize).is_multiple_of(3) {
            -1.0
        } else {
            1.0
        };
        b.depth[l] = rng.f(0.0, 1.0);
        b.live[l] = !rng.next().is_multiple_of(5);
    }
    b
}

/// The outputs of a batch, as bits.
fn bits(b: &PixelBatch) -> (Vec<u32>, Vec<u32>, [bool; LANES]) {
    let color = b
        .color
        .as_flattened()
        .as_flattened()
        .iter()
        .map(|x| x.to_bits());
    let depth = b.depth.iter().map(|x| x.to_bits());
    (color.collect(), depth.collect(), b.discarded)
}

type Outcome = (Result<(), String>, (Vec<u32>, Vec<u32>, [bool; LANES]));

/// Where two outcomes differ first (for the failure's message).
fn difference(want: &Outcome, got: &Outcome) -> String {
    if want.0 != got.0 {
        return format!("result {:?} != {:?}", got.0, want.0);
    }
    let (w, g) = (&want.1, &got.1);
    if let Some(i) = (0..w.0.len()).find(|&i| w.0[i] != g.0[i]) {
        let (k, c, l) = (i / (4 * LANES), i / LANES % 4, i % LANES);
        return format!(
            "oC{k}[{c}] lane {l}: {} ({:#x}), the interpreter {} ({:#x})",
            f32::from_bits(g.0[i]),
            g.0[i],
            f32::from_bits(w.0[i]),
            w.0[i]
        );
    }
    if let Some(l) = (0..LANES).find(|&l| w.1[l] != g.1[l]) {
        return format!(
            "depth lane {l}: {} != {}",
            f32::from_bits(g.1[l]),
            f32::from_bits(w.1[l])
        );
    }
    let l = (0..LANES).find(|&l| w.2[l] != g.2[l]);
    format!("discard lane {l:?}")
}

/// Per width: shaders compiled, and shaders that fell back by reason.
#[derive(Default)]
pub struct Coverage {
    pub compiled: usize,
    pub fell_back: BTreeMap<String, usize>,
}

/// Shade two batches (one runner, so the second finds the first's arena) on the
/// interpreter, on each x86 width the processor has and on Cranelift's code; every code's
/// bits must be the interpreter's.
pub fn compare(name: &str, st: &mut PixelState, coverage: &mut [Coverage; 3]) {
    let seeds = [0x1234_5678_u64, 0xDEAD_BEEF];
    st.set_options(Options {
        tier: Tier::Interpreted,
        ..Options::default()
    });
    let mut want = vec![];
    {
        let mut r = st.runner();
        for seed in seeds {
            let mut b = batch(st, seed);
            let res = r.run(&mut b).map_err(|e| e.to_string());
            want.push((res, bits(&b)));
        }
    }
    for (w, (isa, generator)) in [
        (Isa::Avx512, CodeGenerator::Avx512),
        (Isa::Avx2, CodeGenerator::Avx2),
        (Isa::Base, CodeGenerator::Cranelift),
    ]
    .into_iter()
    .enumerate()
    {
        if Isa::detect() < isa {
            continue;
        }
        st.set_options(Options {
            isa,
            ..Options::default()
        });
        match st.code_generator() {
            Some(g) => {
                assert_eq!(g, generator, "{name}");
                coverage[w].compiled += 1;
            }
            None => {
                let why = st.why_interpreted().unwrap_or_default();
                if !why.starts_with("pixel shader") {
                    println!("{name}\n: on the interpreter: {why}");
                }
                // The reason without its op's details.
                let why = why.split([' ', '(']).take(6).collect::<Vec<_>>().join(" ");
                *coverage[w].fell_back.entry(why).or_default() += 1;
            }
        }
        let mut r = st.runner();
        for (k, seed) in seeds.into_iter().enumerate() {
            let mut b = batch(st, seed);
            let res = r.run(&mut b).map_err(|e| e.to_string());
            let got = (res, bits(&b));
            assert!(
                got == want[k],
                "{name}: {generator:?} batch {k} differs from the interpreter: {}",
                difference(&want[k], &got)
            );
        }
    }
}

fn report(what: &str, total: usize, coverage: &[Coverage; 3]) {
    for (w, name) in ["AVX-512", "AVX2", "Cranelift (the base path)"]
        .into_iter()
        .enumerate()
    {
        let c = &coverage[w];
        let isa = [Isa::Avx512, Isa::Avx2, Isa::Base][w];
        if Isa::detect() < isa {
            println!("{what}: no {name} on this processor: that width was not run");
            continue;
        }
        println!(
            "{what}: {name}: {} of {total} compiled, {} on the interpreter: {:?}",
            c.compiled,
            total - c.compiled,
            c.fell_back
        );
    }
}

/// Every corpus pixel shader that validates: compiled where the x86 code generator covers
/// it, bit-identical to the interpreter at both widths.
#[test]
fn corpus_pixel_shaders_compiled_match_the_interpreter() {
    let Some(dir) = dxso_testdata::shared("corpus/dx9-asm") else {
        return;
    };
    let bound = Bound::new();
    let mut coverage: [Coverage; 3] = Default::default();
    let mut total = 0;
    for profile in ["ps_2_0", "ps_2_x", "ps_3_0"] {
        for path in corpus_files(&dir, profile) {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let shader = dxso::text::parse(&text).unwrap();
            let Ok(checked) = validate(&shader, &Caps::max()) else {
                continue;
            };
            let name = path.display().to_string();
            let mut st = PixelState::new(&checked).unwrap_or_else(|e| panic!("{name}: {e}"));
            for inst in &shader.instructions {
                let (Opcode::Dcl, Some(d), Some(decl)) = (inst.opcode, inst.dst, inst.decl) else {
                    continue;
                };
                if d.reg.kind != RegisterKind::Sampler {
                    continue;
                }
                let kind = match TextureType::from_u32(decl.texture_type as u32) {
                    Some(TextureType::Cube) => 1,
                    Some(TextureType::Volume) => 2,
                    _ => 0,
                };
                bound.bind(&mut st, d.reg.number as usize, kind);
            }
            let mut rng = Rng(total as u64 * 7919 + 17);
            let consts: Vec<[f32; 4]> =
                (0..224).map(|_| [0; 4].map(|_| rng.f(-2.0, 2.0))).collect();
            let limit = if profile == "ps_3_0" { 224 } else { 32 };
            st.set_constant_f(0, &consts[..limit]).unwrap();
            let ints: Vec<[i32; 4]> = (0..16).map(|k| [k % 5, k % 3, 1, 0]).collect();
            st.set_constant_i(0, &ints).unwrap();
            let bools: Vec<bool> = (0..16).map(|k| k % 3 == 1).collect();
            st.set_constant_b(0, &bools).unwrap();
            compare(&name, &mut st, &mut coverage);
            total += 1;
        }
    }
    report("corpus pixel shaders", total, &coverage);
    // Cranelift's code has uniform flow only: the rest have dynamic ifs or breaks.
    assert!(
        coverage[2].compiled * 100 >= total * 80,
        "Cranelift: only {} of {total} compiled",
        coverage[2].compiled
    );
    assert!(
        coverage[2]
            .fell_back
            .keys()
            .all(|why| why.starts_with("IfDyn") || why.starts_with("Break")),
        "{:?}",
        coverage[2].fell_back
    );
    assert!(total >= 1500, "only {total} ran");
    for (w, isa) in [Isa::Avx512, Isa::Avx2].into_iter().enumerate() {
        if Isa::detect() >= isa {
            // Every corpus pixel shader (ps_2_0 .. ps_3_0) compiles.
            assert!(
                coverage[w].compiled * 100 >= total * 99,
                "{isa:?}: only {} of {total} compiled",
                coverage[w].compiled
            );
        }
    }
}

/// Every ps_1_x source of Wine's assembler cases that validates, with textures and stage
/// states on every stage: compiled where covered (the texture-addressing steps other than
/// sampling are not yet), bit-identical to the interpreter.
#[test]
fn wine_ps_1_x_sources_compiled_match_the_interpreter() {
    let Some(dir) = dxso_testdata::shared("conformance") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("wine-asm-cases.json")).unwrap();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let bound = Bound::new();
    let mut coverage: [Coverage; 3] = Default::default();
    let mut total = 0;
    for source in cases.iter().filter_map(|c| c["source"].as_str()) {
        let head = source.trim_start();
        if !(head.starts_with("ps_1_") || head.starts_with("ps.1.")) {
            continue;
        }
        let shader = dxso::text::parse(source).unwrap();
        let Ok(checked) = validate(&shader, &Caps::max()) else {
            continue;
        };
        let mut st = PixelState::new(&checked).unwrap_or_else(|e| panic!("{source:?}: {e}"));
        for n in 0..8 {
            bound.bind(&mut st, n, 0);
            st.set_stage(
                n,
                StageState {
                    bump_env_mat: [0.5, -0.25, 0.25, 0.5],
                    bump_env_lscale: 0.5,
                    bump_env_loffset: 0.25,
                    projected: n % 2 == 1,
                },
            )
            .unwrap();
        }
        let consts: Vec<[f32; 4]> = (0..8)
            .map(|k| [0.3 * k as f32 - 1.0, 0.5, -0.25, 0.75])
            .collect();
        st.set_constant_f(0, &consts).unwrap();
        compare(source, &mut st, &mut coverage);
        total += 1;
    }
    report("Wine ps_1_x sources", total, &coverage);
    assert!(total >= 20, "only {total} ran");
}

/// ps_1_4's `texcrd _dz/_dw` division and `texdepth`'s ratio (zero divisors included: the
/// batches' coordinates have zeros where `texcrd` reads them here, and `texdepth`'s divisor
/// is 0 in some lanes): compiled, bit-identical to the interpreter.
#[test]
fn ps_1_4_division_and_depth_ratio_compiled_match_the_interpreter() {
    let sources = [
        "ps_1_4\ntexcrd r0.rgb, t1_dz\ntexcrd r1.rgb, t2_dw\nphase\nmul r0, r0, r1\n",
        "ps_1_4\ndef c0, 0.3, 0.6, 0, 1\ntexcrd r5.rgb, t0\ntexdepth r5\nmov r0, c0\n",
        "ps_1_4\ntexcrd r4.rgb, t3_dw\ntexcrd r5.rgb, t0\ntexdepth r5\nmov r0, r4\n",
    ];
    let mut coverage: [Coverage; 3] = Default::default();
    for source in sources {
        let shader = dxso::text::parse(source).unwrap();
        let checked = validate(&shader, &Caps::max()).unwrap_or_else(|e| panic!("{e:?}"));
        let mut st = PixelState::new(&checked).unwrap();
        compare(source, &mut st, &mut coverage);
        // Zero divisors: the batch's coordinates with zeros in every other quad.
        st.set_options(Options {
            tier: Tier::Interpreted,
            ..Options::default()
        });
        let zeroed = |st: &PixelState| {
            let mut b = batch(st, 99);
            for input in &mut b.inputs {
                for row in input.iter_mut() {
                    for (l, x) in row.iter_mut().enumerate() {
                        if l / 4 % 2 == 0 && l % 3 == 0 {
                            *x = if l % 2 == 0 { 0.0 } else { -0.0 };
                        }
                    }
                }
            }
            b
        };
        let mut want = zeroed(&st);
        st.runner().run(&mut want).unwrap();
        for isa in [Isa::Avx512, Isa::Avx2, Isa::Base] {
            if Isa::detect() < isa {
                continue;
            }
            st.set_options(Options {
                isa,
                ..Options::default()
            });
            assert!(st.code_generator().is_some(), "{source}: {isa:?}");
            let mut got = zeroed(&st);
            st.runner().run(&mut got).unwrap();
            assert!(bits(&got) == bits(&want), "{source}: {isa:?} differs");
        }
    }
    for (w, c) in coverage.iter().enumerate() {
        if Isa::detect() >= [Isa::Avx512, Isa::Avx2, Isa::Base][w] {
            assert_eq!(c.compiled, sources.len(), "{:?}", c.fell_back);
        }
    }
}

/// A temporary a lane writes only under a branch (ps_3_0 `if`), a predicate (ps_2_x) or in
/// one component reads 0 in the lanes that skip the write, batch after batch: the runner
/// clears the registers the program writes, so nothing of the previous batch (every lane
/// wrote 5.0 there) leaks into the next, on the interpreter and every compiled code. An
/// input the batch leaves out reads 0 too.
#[test]
fn pixel_temporaries_written_under_a_branch_start_each_batch_at_zero() {
    let sources = [
        "ps_3_0\ndcl_texcoord0 v0\ndef c0, 0, 0, 0, 0\nif_gt v0.x, c0.x\nmov r0, v0\n\
         mov r1.y, v0.y\nendif\nmov oC0, r0\nmov oC1, r1\n",
        "ps_2_x\ndcl t0\ndef c0, 0, 0, 0, 0\nsetp_gt p0, t0, c0\n(p0.x) mov r0, t0\n\
         (p0.x) mov r1.y, t0.y\nmov oC0, r0\nmov oC1, r1\n",
    ];
    let options = [
        Options {
            tier: Tier::Interpreted,
            isa: Isa::Base,
            ..Options::default()
        },
        Options {
            isa: Isa::Avx512,
            ..Options::default()
        },
        Options {
            isa: Isa::Avx2,
            ..Options::default()
        },
        Options {
            isa: Isa::Base,
            ..Options::default()
        },
    ];
    for source in sources {
        let shader = dxso::text::parse(source).unwrap();
        let checked = validate(&shader, &Caps::max()).unwrap_or_else(|e| panic!("{e:?}"));
        let mut st = PixelState::new(&checked).unwrap();
        for o in options.iter().filter(|o| Isa::detect() >= o.isa) {
            st.set_options(o.clone());
            let what = format!("{source}on {:?}", st.code_generator());
            let mut r = st.runner();
            // Every lane takes the write: 5.0 everywhere.
            let mut b = PixelBatch::new(&st);
            b.inputs[0] = [[5.0; LANES]; 4];
            r.run(&mut b).unwrap();
            assert_eq!(b.color[0], [[5.0; LANES]; 4], "{what}");
            assert_eq!(b.color[1][1], [5.0; LANES], "{what}");
            // Odd lanes write (x > 0), even lanes skip the write and read zeros.
            let mut b = PixelBatch::new(&st);
            for l in 0..LANES {
                let x = if l % 2 == 1 { 3.0 } else { -1.0 };
                for c in 0..4 {
                    b.inputs[0][c][l] = x + c as f32;
                }
            }
            r.run(&mut b).unwrap();
            for l in 0..LANES {
                let want = if l % 2 == 1 {
                    [3.0, 4.0, 5.0, 6.0]
                } else {
                    [0.0; 4]
                };
                let got = [0, 1, 2, 3].map(|c| b.color[0][c][l]);
                assert_eq!(got, want, "{what}: r0 of lane {l}");
                let got = [0, 1, 2, 3].map(|c| b.color[1][c][l]);
                let want = [0.0, want[1], 0.0, 0.0];
                assert_eq!(got, want, "{what}: r1 of lane {l}");
            }
            // A batch without its input: the input reads 0, so no lane writes.
            let mut b = PixelBatch::new(&st);
            b.inputs[0] = [[5.0; LANES]; 4];
            r.run(&mut b).unwrap();
            b.inputs.clear();
            r.run(&mut b).unwrap();
            assert_eq!(b.color[0], [[0.0; LANES]; 4], "{what}: no input");
        }
    }
}
