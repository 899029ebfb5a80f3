//! Every vertex shader of `../shared/corpus/dx9-asm` that validates runs, on inputs
//! synthesized from its declarations, without a panic or an error.

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
        let mut files: Vec<_> = std::fs::read_dir(dir.join(profile))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for path in files {
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
