//! The guard-page test mode (`Device::set_guard_pages`) on the draws the other suites check:
//! the built-in workloads W1–W3, relative constant reads at the file's edges, packed layouts
//! with the last element ending its stream, indexed and instanced draws, `texldl`, and
//! per-vertex flow control with relative input and output registers. In
//! every way of running (AVX-512 code — fused for full batches, unfused for the rest —
//! Cranelift, the interpreter) a guarded draw gives the bits a normal one gives, and runs
//! fused where the normal one does. An access past any guarded buffer would kill the test
//! with SIGSEGV instead.

use crate::common::{WAYS, device, set_way};
use dxso::ir::Usage;
use dxso_vm::{
    DeclType, Device, Format, Frequency, StreamSource, Texture, TextureKind, VertexElement,
};
use std::sync::Arc;

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Draw `n` × `instances` in every way, unguarded then guarded: the same bits, fused alike.
fn same_guarded(dev: &mut Device, n: usize, instances: usize, what: &str) {
    for way in WAYS {
        set_way(dev, way);
        dev.set_guard_pages(false);
        let plain = dev.draw(n, instances).unwrap();
        let fused = dev.last_draw_fused();
        dev.set_guard_pages(true);
        assert!(dev.guard_pages());
        let guarded = dev.draw(n, instances).unwrap();
        assert_eq!(bits(&guarded.data), bits(&plain.data), "{what} {way:?}");
        assert_eq!(guarded.vertices, plain.vertices, "{what} {way:?}");
        assert_eq!(dev.last_draw_fused(), fused, "{what} {way:?}");
        // Every layout here fuses: the x86 code generator's code (either width) runs fused
        // for the full batches.
        let want = matches!(
            dev.code_generator(),
            Some(dxso_vm::CodeGenerator::Avx512 | dxso_vm::CodeGenerator::Avx2)
        );
        assert_eq!(fused, want, "{what} {way:?}");
    }
}

/// Pseudo-random bytes (xorshift).
fn noise(len: usize, mut seed: u32) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed >> 24) as u8
        })
        .collect()
}

#[test]
fn the_workloads_give_the_same_bits_guarded() {
    for w in dxso_vm::workloads::builtin(300).unwrap().iter_mut() {
        assert!(w.device.jit_active(), "{}", w.name);
        same_guarded(&mut w.device, w.vertices, 1, w.name);
    }
}

/// Per-vertex flow control — if/else, break, `callnz p0`, `o[aL]` and `v[a0]`/`v[aL]`
/// with indices in and far out of their files — guarded, with the bits of a normal draw.
#[test]
fn dynamic_flow_and_relative_registers_give_the_same_bits_guarded() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
               dcl_texcoord1 o2\nmov o0, v0\nmova a0.x, v0.x\nmov r0, v[a0.x + 1]\n\
               setp_gt p0.x, v0.y, c0.x\nif_lt v0.z, c0.y\nloop aL, i0\nadd r0, r0, v[aL]\n\
               break_ge r0.w, c0.z\n(p0.x) mov o1[aL], r0\nendloop\nelse\nmov o2, -r0\nendif\n\
               callnz l1, p0.x\nret\nlabel l1\nadd o2.xy, r0, c1\nret\n";
    let n = 70;
    let picks = [
        -100_000.0f32,
        -2.0,
        -1.0,
        0.0,
        1.0,
        14.0,
        15.0,
        16.0,
        100_000.0,
    ];
    let v0: Vec<[f32; 4]> = (0..n)
        .map(|i| [picks[i % picks.len()], (i % 3) as f32, (i % 5) as f32, 1.0])
        .collect();
    let v1: Vec<[f32; 4]> = (0..n).map(|i| [i as f32, 1.0, -2.0, 0.5]).collect();
    let mut dev = device(src, &[v0, v1]);
    dev.set_constant_f(0, &[[0.5, 2.5, 3.0, 0.0], [7.0; 4]])
        .unwrap();
    for (count, start, step) in [(4, -2, 1), (3, 14, 1), (2, -100_000, 100_000)] {
        dev.set_constant_i(0, &[[count, start, step, 0]]).unwrap();
        same_guarded(&mut dev, n, 1, "dynamic flow");
    }
}

#[test]
fn relative_constant_reads_at_the_files_edges_give_the_same_bits_guarded() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               mova a0.x, v0.x\nmov o0, c[a0.x]\nmov o1, c[a0.x + 1]\n\
               mov o2, c[a0.x + 2]\n";
    // The file's size first (the caps the shader was checked with set it).
    let mut probe = device(src, &[vec![[0.0; 4]]]);
    let file = (1..=8192)
        .rev()
        .find(|&n| probe.set_constant_f(n - 1, &[[0.0; 4]]).is_ok())
        .expect("a constant file") as i32;
    let edges = [
        -100_000,
        -3,
        -2,
        -1,
        0,
        1,
        file - 3,
        file - 2,
        file - 1,
        file,
        file + 1,
        1 << 30,
    ];
    let n = 133;
    let a0: Vec<[f32; 4]> = (0..n)
        .map(|i| [edges[i % edges.len()] as f32, 0.0, 0.0, 1.0])
        .collect();
    let mut dev = device(src, &[a0]);
    let all: Vec<[f32; 4]> = (0..file)
        .map(|i| [i as f32, 0.5, -(i as f32), 1.0])
        .collect();
    dev.set_constant_f(0, &all).unwrap();
    same_guarded(&mut dev, n, 1, "c[a0.x + k]");
}

#[test]
fn packed_layouts_in_order_and_indexed_give_the_same_bits_guarded() {
    let types: Vec<DeclType> = DeclType::ALL
        .into_iter()
        .filter(|t| t.size() > 0 && !t.name().starts_with("FLOAT") || t.name() == "FLOAT16_4")
        .take(11)
        .collect();
    let mut src = String::from("vs_3_0\ndcl_position o0\n");
    for k in 0..types.len() {
        src += &format!("dcl_texcoord{k} v{k}\n");
        if k > 0 {
            src += &format!("dcl_texcoord{} o{k}\n", k - 1);
        }
    }
    for k in 0..types.len() {
        src += &format!("mov o{k}, v{k}\n");
    }
    let mut dev = device(&src, &[]);
    let mut offset = 0u16;
    let mut decl = Vec::new();
    for (k, &ty) in types.iter().enumerate() {
        decl.push(VertexElement {
            stream: 0,
            offset,
            ty,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: k as u8,
        });
        offset += ty.size() as u16;
    }
    dev.set_declaration(decl).unwrap();
    // An odd stride; the last element ends the buffer.
    let (n, stride) = (133, offset as usize + 3);
    let len = (n - 1) * stride + offset as usize;
    dev.set_stream(
        0,
        Some(StreamSource {
            data: noise(len, 0x2545_f491).into(),
            offset: 0,
            stride,
            frequency: Frequency::Vertex,
        }),
    )
    .unwrap();
    same_guarded(&mut dev, n, 1, "packed in order");
    // Through indices that jump around, repeat and reach the last element.
    let ix: Vec<u32> = (0..n as u32).map(|i| (i * 37 + 5) % n as u32).collect();
    assert!(ix.contains(&(n as u32 - 1)));
    dev.set_indices(Some(ix));
    same_guarded(&mut dev, n, 1, "packed indexed");
}

#[test]
fn indexed_instanced_draws_give_the_same_bits_guarded() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_color v1\ndcl_texcoord1 v2\n\
               dcl_position o0\ndcl_color o1\ndcl_texcoord0 o2\n\
               mov o0, v0\nmov o1, v1\nmov r0, v0\nadd o2, v2, r0\n";
    let mut dev = device(src, &[]);
    let element = |stream, offset, ty, usage, usage_index| VertexElement {
        stream,
        offset,
        ty,
        method: 0,
        usage,
        usage_index,
    };
    dev.set_declaration(vec![
        element(0, 0, DeclType::Float4, Usage::TexCoord, 0),
        element(1, 0, DeclType::D3dColor, Usage::Color, 0),
        element(1, 4, DeclType::Float2, Usage::TexCoord, 1),
    ])
    .unwrap();
    let (n, instances) = (133, 5);
    let geometry: Vec<u8> = (0..n)
        .flat_map(|v| [v as f32, 1.0, 2.0, 3.0])
        .flat_map(|x| x.to_le_bytes())
        .collect();
    dev.set_stream(
        0,
        Some(StreamSource {
            data: geometry.into(),
            offset: 0,
            stride: 16,
            frequency: Frequency::IndexedData(instances as u32),
        }),
    )
    .unwrap();
    dev.set_stream(
        1,
        Some(StreamSource {
            data: noise(12 * instances, 7).into(),
            offset: 0,
            stride: 12,
            frequency: Frequency::InstanceData(1),
        }),
    )
    .unwrap();
    same_guarded(&mut dev, n, instances, "instanced");
    let ix: Vec<u32> = (0..n as u32).rev().collect();
    dev.set_indices(Some(ix));
    same_guarded(&mut dev, n, instances, "indexed instanced");
}

#[test]
fn texldl_gives_the_same_bits_guarded() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_2d s0\n\
               texldl r0, v0, s0\nmov o0, r0\n";
    let n = 133;
    let coords: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let t = i as f32 / 37.0 - 1.0;
            [t, 1.5 - t, 0.0, (i % 3) as f32]
        })
        .collect();
    let mut dev = device(src, &[coords]);
    let levels: Vec<Vec<u8>> = [4usize, 2, 1]
        .iter()
        .enumerate()
        .map(|(l, &s)| {
            (0..s * s * 4)
                .flat_map(|t| ((t + 10 * l) as f32 * 0.125).to_le_bytes())
                .collect()
        })
        .collect();
    let tex = Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 4, 4, 1, &levels).unwrap();
    dev.set_texture(0, Some(Arc::new(tex))).unwrap();
    same_guarded(&mut dev, n, 1, "texldl");
}
