//! Test helpers: run a shader over per-vertex FLOAT4 inputs.
#![allow(dead_code)]

use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_vm::{DeclType, Device, Frequency, Outputs, StreamSource, VertexElement};

pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A device with `src` bound (it must validate with max caps) and, for each `inputs[k]`, a
/// FLOAT4 stream `k` feeding TEXCOORDk (declare `dcl_texcoordK vK`).
pub fn device(src: &str, inputs: &[Vec<[f32; 4]>]) -> Device {
    let shader = dxso::text::parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    let checked =
        validate(&shader, &Caps::max()).unwrap_or_else(|d| panic!("{src}\ninvalid: {d:#?}"));
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    let mut decl = Vec::new();
    for (k, vals) in inputs.iter().enumerate() {
        decl.push(VertexElement {
            stream: k as u16,
            offset: 0,
            ty: DeclType::Float4,
            method: 0,
            usage: Usage::TexCoord,
            usage_index: k as u8,
        });
        let flat: Vec<f32> = vals.iter().flatten().copied().collect();
        dev.set_stream(
            k,
            Some(StreamSource {
                data: f32s(&flat).into(),
                offset: 0,
                stride: 16,
                frequency: Frequency::Vertex,
            }),
        )
        .unwrap();
    }
    dev.set_declaration(decl).unwrap();
    dev
}

/// Run `src` with constants over `n` vertices; returns each vertex's output registers.
pub fn run(src: &str, consts: &[(u32, [f32; 4])], inputs: &[Vec<[f32; 4]>]) -> Vec<Vec<[f32; 4]>> {
    let mut dev = device(src, inputs);
    for (c, v) in consts {
        dev.set_constant_f(*c, &[*v]).unwrap();
    }
    let n = inputs.first().map_or(1, |v| v.len());
    let out = dev.draw(n, 1).unwrap();
    split(&out)
}

pub fn split(out: &Outputs) -> Vec<Vec<[f32; 4]>> {
    (0..out.vertices)
        .map(|i| {
            out.vertex(i)
                .chunks(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        })
        .collect()
}

/// vs_3_0 prologue: v0 (TEXCOORD0) in, o0 POSITION0 and o1 TEXCOORD0 out.
pub const VS3: &str = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\n";

/// Run a vs_3_0 body (after VS3) on single input vectors; returns o1 of each vertex.
pub fn o1(body: &str, consts: &[(u32, [f32; 4])], v0: &[[f32; 4]]) -> Vec<[f32; 4]> {
    let src = format!("{VS3}mov o0, v0\n{body}");
    run(&src, consts, &[v0.to_vec()])
        .into_iter()
        .map(|v| v[1])
        .collect()
}

/// The ways a device can run a draw: each code generator of the compiled tier (the x86
/// one at both widths, Cranelift on the base path), then the interpreter. The first is what
/// a device does by default.
#[allow(dead_code)]
pub const WAYS: [(dxso_vm::Tier, dxso_vm::Isa); 4] = [
    (dxso_vm::Tier::Compiled, dxso_vm::Isa::Avx512),
    (dxso_vm::Tier::Compiled, dxso_vm::Isa::Avx2),
    (dxso_vm::Tier::Compiled, dxso_vm::Isa::Base),
    (dxso_vm::Tier::Interpreted, dxso_vm::Isa::Avx512),
];

/// Set `dev` to run `way`; for the compiled ways, check the code generator that compiled the
/// program is the one the processor calls for (AVX-512 code where it has AVX-512 and the
/// path allows it, the x86 generator at AVX2 width on the AVX2 path — no silent fallback
/// to Cranelift —, and Cranelift on the base path, where programs with dynamic ifs, which
/// Cranelift's generator does not compile, run on the interpreter).
#[allow(dead_code)]
pub fn set_way(dev: &mut Device, way: (dxso_vm::Tier, dxso_vm::Isa)) {
    use dxso_vm::CodeGenerator::{Avx2, Avx512, Cranelift};
    dev.set_tier(way.0);
    dev.set_isa(way.1);
    if way.0 == dxso_vm::Tier::Compiled {
        let got = dev.code_generator();
        let want: &[_] = match way.1.min(dxso_vm::Isa::detect()) {
            dxso_vm::Isa::Avx512 => &[Avx512],
            dxso_vm::Isa::Avx2 => &[Avx2],
            dxso_vm::Isa::Base => &[Cranelift],
        };
        let refused = way.1.min(dxso_vm::Isa::detect()) == dxso_vm::Isa::Base && got.is_none();
        assert!(
            refused || got.is_some_and(|g| want.contains(&g)),
            "{way:?}: {got:?}"
        );
    } else {
        assert_eq!(dev.code_generator(), None);
    }
}

/// Draw `n` vertices the way `way` says; where that is the x86 code generator's code (either
/// width) and the layout allows it (`fusable`), check the draw ran with fetch and store
/// fused (no silent fallback), and that nothing else ran fused.
#[allow(dead_code)]
pub fn draw_way(
    dev: &mut Device,
    way: (dxso_vm::Tier, dxso_vm::Isa),
    n: usize,
    fusable: bool,
) -> Outputs {
    set_way(dev, way);
    let out = dev.draw(n, 1).unwrap();
    let fused = dev.last_draw_fused();
    match dev.code_generator() {
        // The x86 code generator's code, either width.
        Some(dxso_vm::CodeGenerator::Avx512 | dxso_vm::CodeGenerator::Avx2) => {
            assert_eq!(fused, fusable, "{way:?}")
        }
        _ => assert!(!fused, "{way:?}"),
    }
    out
}

/// The corpus files of one profile (`dir/ps_3_0/...`), sorted.
pub fn corpus_files(dir: &std::path::Path, profile: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join(profile))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}
