//! The compiled tier's safety, tested: a panic under generated code or in a rayon worker is
//! an error of the draw, never an abort.

use crate::texture::PANIC_BITS;
use crate::{
    CodeGenerator, DeclType, Device, Format, Frequency, StreamSource, Texture, TextureKind, Tier,
    VertexElement, VmError,
};
use dxso::validate::{Caps, validate};
use std::sync::Arc;

/// A device running the vs_3_0 `src` over `rows` (one vertex each, FLOAT4 TEXCOORD0 in v0).
pub(crate) fn float4_device(src: &str, rows: &[[f32; 4]]) -> Device {
    let shader = dxso::text::parse(src).expect("assembles");
    let checked = validate(&shader, &Caps::max()).expect("validates");
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![VertexElement {
        stream: 0,
        offset: 0,
        ty: DeclType::Float4,
        method: 0,
        usage: dxso::ir::Usage::TexCoord,
        usage_index: 0,
    }])
    .unwrap();
    let data: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: data.into(),
            offset: 0,
            stride: 16,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    dev
}

/// A device running `texldl r0, v0, s0` over `coords` (one vertex each), on `tier`.
fn texldl_device(tier: Tier, coords: &[[f32; 4]]) -> Device {
    let src =
        "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n";
    let mut dev = float4_device(src, coords);
    dev.set_tier(tier);
    let texel: Vec<u8> = [0.5f32; 4].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tex = Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 1, 1, 1, &[texel]).unwrap();
    dev.set_texture(0, Some(Arc::new(tex))).unwrap();
    dev
}

fn coords(n: usize, bad: Option<usize>) -> Vec<[f32; 4]> {
    (0..n)
        .map(|i| match bad {
            Some(b) if b == i => [f32::from_bits(PANIC_BITS), 0.0, 0.0, 0.0],
            _ => [0.25, 0.25, 0.0, 0.0],
        })
        .collect()
}

#[test]
fn a_panic_inside_a_callback_from_compiled_code_is_an_error() {
    let n = 300;
    let mut dev = texldl_device(Tier::Compiled, &coords(n, Some(150)));
    if dev.code_generator().is_none() {
        eprintln!("skipped: the compiled tier does not cover the shader here");
        return;
    }
    // On every thread count, the fused and unfused AVX-512 code.
    for threads in [Some(1), None] {
        dev.set_threads(threads).unwrap();
        assert_eq!(
            dev.draw(n, 1).map(|_| ()),
            Err(VmError::Panicked("texldl".into()))
        );
    }
    // The AVX2 width's code (8 lanes a call) and Cranelift's (on the base path) alike.
    use crate::Isa;
    for (isa, generator) in [
        (Isa::Avx2, CodeGenerator::Avx2),
        (Isa::Base, CodeGenerator::Cranelift),
    ] {
        if Isa::detect() < isa {
            continue;
        }
        dev.set_isa(isa);
        assert_eq!(dev.code_generator(), Some(generator));
        assert_eq!(
            dev.draw(n, 1).map(|_| ()),
            Err(VmError::Panicked("texldl".into()))
        );
    }
    // The flag does not outlive the batch: a clean draw on the same threads succeeds.
    let good = texldl_device(Tier::Compiled, &coords(n, None));
    let out = good.draw(n, 1).unwrap();
    assert_eq!(out.vertex(n - 1), &[0.5; 4]);
}

#[test]
fn a_panic_in_a_rayon_worker_is_an_error() {
    let n = 5000;
    let dev = texldl_device(Tier::Interpreted, &coords(n, Some(4321)));
    match dev.draw(n, 1) {
        Err(VmError::Panicked(m)) => assert!(m.contains("inside the sampler"), "{m}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// Compiled code runs only on dxso's threads (stacks it sized): a draw called from a caller's
/// thread with a small stack, or from inside a caller's pool, runs on threads named
/// `dxso-vm-*` (the default pool and `set_threads` pools are named so).
#[test]
fn draws_run_on_dxsos_own_threads_whoever_calls() {
    let mut w = crate::workloads::builtin(256).unwrap();
    let names = || {
        let mut v = crate::compile::DRAW_THREADS
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *v)
    };
    let all_dxso = |v: &[Option<String>]| {
        !v.is_empty()
            && v.iter()
                .all(|n| n.as_deref().is_some_and(|n| n.starts_with("dxso-vm-")))
    };
    let dev = &w[0].device;
    names();
    let caller_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .stack_size(64 << 10)
        .build()
        .unwrap();
    caller_pool.install(|| dev.draw(256, 1)).unwrap();
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("caller".into())
            .stack_size(256 << 10)
            .spawn_scoped(s, || dev.draw(256, 1))
            .unwrap();
    });
    assert!(
        all_dxso(&names()),
        "a draw ran on a thread dxso did not make"
    );
    w[0].device.set_threads(Some(1)).unwrap();
    w[0].device.draw(256, 1).unwrap();
    assert!(all_dxso(&names()));
}
