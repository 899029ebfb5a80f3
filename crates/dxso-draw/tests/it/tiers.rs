//! The example draw scenes (`examples/draw`) give the same surfaces, bit for bit, on every
//! tier and width the pixel and vertex shaders may run on, and on one thread or several.

use dxso_draw::scene::DrawScene;
use dxso_draw::{Surfaces, draw_frame};
use dxso_vm::{CodeGenerator, Isa, Options, Tier};
use std::path::{Path, PathBuf};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/draw");
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".scene.json"))
        .collect();
    scenes.sort();
    scenes
}

/// The scene drawn with `options` on `threads` threads, with the code generator of each
/// draw's pixel shader.
fn draw(path: &Path, options: &Options, threads: usize) -> (Surfaces, Vec<Option<CodeGenerator>>) {
    let mut scene = DrawScene::load(path).unwrap();
    scene.set_options(options);
    let generators = scene
        .draws
        .iter()
        .filter_map(|d| d.pixel.as_ref().map(|p| p.code_generator()))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let surfaces = pool.install(|| draw_frame(&scene.frame, &scene.draws).unwrap());
    (surfaces, generators)
}

#[test]
fn every_tier_width_and_thread_count_draws_the_same_surfaces() {
    let scenes = examples();
    assert!(scenes.len() >= 6, "{scenes:?}");
    let interpreted = Options {
        tier: Tier::Interpreted,
        ..Options::default()
    };
    let at = |isa| Options {
        isa,
        ..Options::default()
    };
    let best = Isa::detect();
    let mut widths = vec![(Isa::Base, CodeGenerator::Cranelift)];
    if best >= Isa::Avx2 {
        widths.push((Isa::Avx2, CodeGenerator::Avx2));
    }
    if best >= Isa::Avx512 {
        widths.push((Isa::Avx512, CodeGenerator::Avx512));
    }
    let (mut compiled, mut x86_compiled, mut pixel_draws) = (0, 0, 0);
    for path in &scenes {
        let (reference, none) = draw(path, &interpreted, 1);
        assert!(none.iter().all(Option::is_none), "{path:?}: {none:?}");
        // bump.scene.json's ps_1_1 `texbem` runs on the interpreter at every tier (the
        // compiled tiers do not cover the bump-matrix instructions yet).
        if !path.ends_with("bump.scene.json") {
            pixel_draws += none.len();
        }
        for &(isa, generator) in &widths {
            for threads in [1, 3] {
                let (surfaces, generators) = draw(path, &at(isa), threads);
                assert!(
                    surfaces == reference,
                    "{}: {isa:?} on {threads} threads differs from the interpreter",
                    path.display()
                );
                // A pixel shader that is compiled runs on the width asked for (the rest, a
                // program the generator does not cover, on the interpreter).
                for g in generators.iter().flatten() {
                    assert_eq!(*g, generator, "{}", path.display());
                    compiled += 1;
                    x86_compiled += usize::from(isa != Isa::Base);
                }
            }
        }
    }
    // Every other example's pixel shader is compiled at each x86 width (Cranelift compiles
    // those without dynamic flow).
    let x86_widths = widths.len() - 1;
    assert!(pixel_draws >= 5, "{pixel_draws} pixel-shaded draws");
    assert_eq!(x86_compiled, pixel_draws * x86_widths * 2);
    assert!(
        compiled > x86_compiled || x86_widths == 0,
        "{compiled} compiled draws"
    );
}
