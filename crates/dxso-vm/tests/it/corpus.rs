//! Every vertex shader of `../shared/corpus/dx9-asm` that validates runs, on inputs
//! synthesized from its declarations, without a panic or an error.

use crate::common::corpus_files;
use dxso::validate::{Caps, validate};
use dxso_vm::{CodeGenerator, Device, Isa, Tier};
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    dxso_testdata::shared("corpus/dx9-asm")
}

#[test]
fn every_corpus_vertex_shader_runs() {
    let Some(dir) = corpus() else { return };
    let mut ran = 0;
    let mut skipped = 0;
    let mut compiled = 0;
    let mut avx512 = 0;
    let mut avx2 = 0;
    for profile in ["vs_2_0", "vs_2_x", "vs_3_0"] {
        for path in corpus_files(&dir, profile) {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let shader = dxso::text::parse(&text).unwrap();
            let Ok(checked) = validate(&shader, &Caps::max()) else {
                skipped += 1;
                continue;
            };
            let mut dev = Device::new();
            dev.set_tier(dxso_vm::Tier::Compiled);
            dev.set_vertex_shader(&checked)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let n = 67;
            dxso_vm::workloads::synthesize(&mut dev, n, 300).unwrap();
            let out = dev
                .draw(n, 1)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(out.vertices, n);
            // FLOAT4 per-vertex inputs: AVX-512 code has fetch and store fused.
            assert_eq!(
                dev.last_draw_fused(),
                dev.code_generator() == Some(CodeGenerator::Avx512),
                "{}",
                path.display()
            );
            // The compiled tier (where it covers the shader), with its other code generator
            // too, and every instruction-set path of the interpreter give bit-identical
            // outputs.
            let mut ways = vec![];
            if let Some(generator) = dev.code_generator() {
                compiled += 1;
                avx512 += (generator == CodeGenerator::Avx512) as usize;
                ways.push((Tier::Compiled, Isa::Avx2));
            }
            ways.extend([Isa::Avx512, Isa::Base, Isa::Avx2].map(|isa| (Tier::Interpreted, isa)));
            for (tier, isa) in ways {
                dev.set_tier(tier);
                dev.set_isa(isa);
                avx2 += (dev.code_generator() == Some(CodeGenerator::Avx2)) as usize;
                let other = dev.draw(n, 1).unwrap();
                let same = out
                    .data
                    .iter()
                    .zip(&other.data)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(
                    same,
                    "{}: {tier:?} {isa:?} differs from the best path",
                    path.display()
                );
            }
            ran += 1;
        }
    }
    println!(
        "ran {ran} corpus vertex shaders ({skipped} skipped: they do not validate); \
         {compiled} ran compiled ({avx512} by the AVX-512 code generator; {avx2} at AVX2 \
         width on the AVX2 path)"
    );
    assert!(ran >= 1990, "only {ran} ran");
    assert!(compiled >= 1700, "only {compiled} compiled");
    // Where the processor has AVX-512 (AVX2), the x86 code generator at that width takes
    // every program the compiled tier covers: neither width has cases of its own to give
    // up on.
    if Isa::detect() == Isa::Avx512 {
        assert_eq!(avx512, compiled);
    }
    if Isa::detect() >= Isa::Avx2 {
        assert_eq!(avx2, compiled);
    }
}

/// A 4-level texture of `kind` whose texels vary, for the pixel corpus.
fn pixel_texture(kind: dxso_vm::TextureKind) -> std::sync::Arc<dxso_vm::Texture> {
    use dxso_vm::{Format, Texture, TextureKind};
    let (faces, depth) = match kind {
        TextureKind::Cube => (6, 1),
        TextureKind::Volume => (1, 8),
        TextureKind::TwoD => (1, 1),
    };
    let levels: Vec<Vec<u8>> = (0..4)
        .map(|k| {
            let n = (8usize >> k) * (8 >> k) * (depth >> k).max(1) * faces;
            (0..n)
                .flat_map(|t| {
                    [t as f32 / n as f32, k as f32 * 0.25, 0.5, 1.0]
                        .into_iter()
                        .flat_map(f32::to_le_bytes)
                })
                .collect()
        })
        .collect();
    std::sync::Arc::new(Texture::new(kind, Format::A32B32G32R32F, 8, 8, depth, &levels).unwrap())
}

/// Every pixel shader of the corpus that validates lowers and shades a batch of quads
/// (textures bound to its samplers, mip-mapped and filtered) without a panic or an error.
#[test]
fn every_corpus_pixel_shader_runs() {
    use dxso::Opcode;
    use dxso::ir::{RegisterKind, TextureType};
    use dxso_vm::{LANES, PixelBatch, PixelState, SamplerState, TextureFilter, TextureKind};
    let Some(dir) = corpus() else { return };
    let (mut ran, mut skipped, mut discarded, mut sampled) = (0, 0, 0, 0);
    let textures = [TextureKind::TwoD, TextureKind::Cube, TextureKind::Volume].map(pixel_texture);
    let sampler = SamplerState {
        min_filter: TextureFilter::Linear,
        mag_filter: TextureFilter::Linear,
        mip_filter: TextureFilter::Linear,
        ..SamplerState::default()
    };
    for profile in ["ps_2_0", "ps_2_x", "ps_3_0"] {
        for path in corpus_files(&dir, profile) {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let shader = dxso::text::parse(&text).unwrap();
            let Ok(checked) = validate(&shader, &Caps::max()) else {
                skipped += 1;
                continue;
            };
            let mut st =
                PixelState::new(&checked).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for inst in &shader.instructions {
                let (Opcode::Dcl, Some(d), Some(decl)) = (inst.opcode, inst.dst, inst.decl) else {
                    continue;
                };
                if d.reg.kind != RegisterKind::Sampler {
                    continue;
                }
                let tex = match TextureType::from_u32(decl.texture_type as u32) {
                    Some(TextureType::Cube) => &textures[1],
                    Some(TextureType::Volume) => &textures[2],
                    _ => &textures[0],
                };
                let n = d.reg.number as usize;
                st.set_texture(n, Some(tex.clone())).unwrap();
                st.set_sampler_state(n, sampler).unwrap();
                sampled += 1;
            }
            let consts: Vec<[f32; 4]> =
                (0..32).map(|k| [0.1 * k as f32, 0.5, -0.25, 1.0]).collect();
            st.set_constant_f(0, &consts).unwrap();
            let mut b = PixelBatch::new(&st);
            for (k, input) in b.inputs.iter_mut().enumerate() {
                for (c, row) in input.iter_mut().enumerate() {
                    for (l, x) in row.iter_mut().enumerate() {
                        *x = ((l % 4) as f32 * 0.03 + (l / 4) as f32 * 0.11 + (k + c) as f32 * 0.2)
                            .sin();
                    }
                }
            }
            for l in 0..LANES {
                b.pos[0][l] = (l % 2) as f32 + 2.0 * (l / 4) as f32;
                b.pos[1][l] = (l / 2 % 2) as f32;
                b.face[l] = if l % 8 < 4 { 1.0 } else { -1.0 };
                b.depth[l] = 0.5;
            }
            st.runner()
                .run(&mut b)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            discarded += b.discarded.iter().filter(|&&d| d).count();
            ran += 1;
        }
    }
    println!(
        "ran {ran} corpus pixel shaders ({skipped} skipped: they do not validate; \
         {sampled} samplers bound; {discarded} lanes discarded)"
    );
    assert!(ran >= 1500, "only {ran} ran");
}

/// Every ps_1_x source of Wine's assembler conformance cases that validates lowers and
/// shades a batch (with textures on every stage) without a panic or an error.
#[test]
fn every_wine_ps_1_x_source_runs() {
    use dxso_vm::{LANES, PixelBatch, PixelState, StageState, TextureKind};
    let Some(dir) = dxso_testdata::shared("conformance") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("wine-asm-cases.json")).unwrap();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let (mut ran, mut skipped) = (0, 0);
    let tex = pixel_texture(TextureKind::TwoD);
    for source in cases.iter().filter_map(|c| c["source"].as_str()) {
        let head = source.trim_start();
        if !(head.starts_with("ps_1_") || head.starts_with("ps.1.")) {
            continue;
        }
        let shader = dxso::text::parse(source).unwrap();
        let Ok(checked) = validate(&shader, &Caps::max()) else {
            skipped += 1;
            continue;
        };
        let mut st = PixelState::new(&checked).unwrap_or_else(|e| panic!("{source:?}: {e}"));
        for n in 0..6 {
            st.set_texture(n, Some(tex.clone())).unwrap();
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
        let mut b = PixelBatch::new(&st);
        for (k, input) in b.inputs.iter_mut().enumerate() {
            for (c, row) in input.iter_mut().enumerate() {
                for (l, x) in row.iter_mut().enumerate() {
                    *x = ((l + k + c) as f32 * 0.37).sin() * 0.5 + 0.5;
                }
            }
        }
        assert_eq!(b.live.len(), LANES);
        st.runner()
            .run(&mut b)
            .unwrap_or_else(|e| panic!("{source:?}: {e}"));
        ran += 1;
    }
    println!("ran {ran} Wine ps_1_x sources ({skipped} do not validate)");
    assert!(ran >= 20, "only {ran} ran");
}
