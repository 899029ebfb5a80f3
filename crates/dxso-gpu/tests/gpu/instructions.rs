//! Hand-computed results of instruction families on the GPU, in both float modes, and the
//! same as dxso-vm's where the mode is `Strict`.

use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_gpu::Gpu;
use dxso_naga::FloatMode;
use dxso_vm::{DeclType, Device, Frequency, StreamSource, VertexElement};

const MAX: f32 = f32::MAX;

/// A device running `src` over one FLOAT4 TEXCOORD0 input per vertex (`v0`).
pub fn device(src: &str, consts: &[(u32, [f32; 4])], v0: &[[f32; 4]]) -> Device {
    let shader = dxso::text::parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    let checked = validate(&shader, &Caps::max()).unwrap_or_else(|d| panic!("{src}\n{d:?}"));
    let mut dev = Device::new();
    dev.set_vertex_shader(&checked).unwrap();
    dev.set_declaration(vec![VertexElement {
        stream: 0,
        offset: 0,
        ty: DeclType::Float4,
        method: 0,
        usage: Usage::TexCoord,
        usage_index: 0,
    }])
    .unwrap();
    let data: Vec<u8> = v0.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
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
    for (c, v) in consts {
        dev.set_constant_f(*c, &[*v]).unwrap();
    }
    dev
}

/// Register `reg` of each vertex.
pub fn register(out: &dxso_vm::Outputs, reg: usize) -> Vec<[f32; 4]> {
    (0..out.vertices)
        .map(|i| out.vertex(i)[reg * 4..reg * 4 + 4].try_into().unwrap())
        .collect()
}

/// `o1` of a vs_3_0 body on the GPU in `mode`; in `Strict` mode also checked equal, bit
/// for bit, to dxso-vm's.
fn o1(
    gpu: &mut Gpu,
    mode: FloatMode,
    body: &str,
    consts: &[(u32, [f32; 4])],
    v0: &[[f32; 4]],
) -> Vec<[f32; 4]> {
    let src =
        format!("vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, v0\n{body}");
    let dev = device(&src, consts, v0);
    gpu.set_float_mode(mode);
    let out = gpu
        .draw(&dev, v0.len(), 1)
        .unwrap_or_else(|e| panic!("{body}: {e}"));
    let got = register(&out, 1);
    if mode == FloatMode::Strict {
        let cpu = register(&dev.draw(v0.len(), 1).unwrap(), 1);
        let bits = |v: &Vec<[f32; 4]>| -> Vec<[u32; 4]> {
            v.iter().map(|r| r.map(f32::to_bits)).collect()
        };
        assert_eq!(bits(&got), bits(&cpu), "{body}: gpu {got:?} cpu {cpu:?}");
    }
    got
}

#[test]
fn arithmetic_in_both_modes() {
    let Some(mut gpu) = crate::gpu() else { return };
    for mode in [FloatMode::Strict, FloatMode::Ieee] {
        let got = o1(
            &mut gpu,
            mode,
            "mov r0, c1\nmad o1, v0, c0, r0\n",
            &[(0, [2.0; 4]), (1, [0.5, -0.5, 0.25, 0.0])],
            &[[1.0, 2.0, 3.0, 4.0]],
        );
        assert_eq!(got, vec![[2.5, 3.5, 6.25, 8.0]], "{mode:?}");
        // dp4 = 1*4 + 2*3 + 3*2 + 4*1 = 20; dp3 = 16; min/max per component.
        let got = o1(
            &mut gpu,
            mode,
            "dp4 o1.x, v0, c0\ndp3 o1.y, v0, c0\nmin o1.z, v0.x, c0.x\nmax o1.w, v0.w, c0.w\n",
            &[(0, [4.0, 3.0, 2.0, 1.0])],
            &[[1.0, 2.0, 3.0, 4.0]],
        );
        assert_eq!(got, vec![[20.0, 16.0, 1.0, 4.0]], "{mode:?}");
        // sge/slt and frc.
        let got = o1(
            &mut gpu,
            mode,
            "sge o1.xy, v0, c0\nslt o1.z, v0.z, c0.z\nfrc o1.w, v0.w\n",
            &[(0, [1.0, 3.0, 4.0, 0.0])],
            &[[1.0, 2.0, 3.0, -1.25]],
        );
        assert_eq!(got, vec![[1.0, 0.0, 1.0, 0.75]], "{mode:?}");
    }
}

/// C1, C3, C4: a zero factor gives +0; rcp/rsq of 0 give FLT_MAX, log of 0 -FLT_MAX in
/// `Strict`; IEEE's NaN and infinities in `Ieee`.
#[test]
fn the_d3d9_rules_in_strict_and_ieee_in_ieee() {
    let Some(mut gpu) = crate::gpu() else { return };
    let v0 = [[0.0, f32::INFINITY, 0.0, 2.0]];
    let c0 = (0, [f32::INFINITY, 0.0, f32::NAN, 1.5]);
    let strict = o1(&mut gpu, FloatMode::Strict, "mul o1, v0, c0\n", &[c0], &v0);
    assert_eq!(
        strict[0].map(f32::to_bits),
        [0.0f32, 0.0, 0.0, 3.0].map(f32::to_bits)
    );
    let ieee = o1(&mut gpu, FloatMode::Ieee, "mul o1, v0, c0\n", &[c0], &v0);
    assert!(ieee[0][..3].iter().all(|x| x.is_nan()), "{ieee:?}");
    assert_eq!(ieee[0][3], 3.0);

    let body = "rcp r0.x, v0.x\nrsq r0.y, v0.x\nlog r0.z, v0.x\nmov r0.w, c0.x\nmov o1, r0\n";
    let strict = o1(
        &mut gpu,
        FloatMode::Strict,
        body,
        &[(0, [7.0; 4])],
        &[[0.0; 4]],
    );
    assert_eq!(strict, vec![[MAX, MAX, -MAX, 7.0]]);
    let ieee = o1(
        &mut gpu,
        FloatMode::Ieee,
        body,
        &[(0, [7.0; 4])],
        &[[0.0; 4]],
    );
    assert_eq!(
        ieee,
        vec![[f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, 7.0]]
    );
}

#[test]
fn loops_and_relative_addressing() {
    let Some(mut gpu) = crate::gpu() else { return };
    for mode in [FloatMode::Strict, FloatMode::Ieee] {
        // loop aL, i0 with i0 = (3, 0, 1, 0): c3 + c4 + c5 = 1 + 10 + 100.
        let body = "defi i0, 3, 0, 1, 0\ndef c2, 0, 0, 0, 0\nmov r0, c2\nloop aL, i0\nadd r0, r0, c3[aL]\nendloop\nmov o1, r0\n";
        let got = o1(
            &mut gpu,
            mode,
            body,
            &[(3, [1.0; 4]), (4, [10.0; 4]), (5, [100.0; 4])],
            &[[0.0; 4]],
        );
        assert_eq!(got, vec![[111.0; 4]], "{mode:?}");
        // mova rounds to nearest (v0.x = 1.6 -> 2); a read before the file gives 0.
        let body = "mova a0.x, v0.x\nmov o1, c[a0.x + 3]\n";
        let got = o1(
            &mut gpu,
            mode,
            body,
            &[(5, [5.0; 4])],
            &[[1.6, 0.0, 0.0, 0.0], [-4.0, 0.0, 0.0, 0.0]],
        );
        assert_eq!(got, vec![[5.0; 4], [0.0; 4]], "{mode:?}");
    }
}

/// vs_1_1: oD0's unwritten components are 1.0 (C11); the outputs are dxso-vm's registers.
#[test]
fn legacy_outputs_keep_dxso_vms_names_and_defaults() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "vs_1_1\ndcl_texcoord0 v0\nmov oPos, v0\nmov oD0.xy, v0.yx\nmov oT1, c0\n";
    let dev = device(src, &[(0, [3.0, 2.0, 1.0, 0.0])], &[[1.0, 2.0, 3.0, 4.0]]);
    let out = gpu.draw(&dev, 1, 1).unwrap();
    let names: Vec<&str> = out.registers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["oPos", "oD0", "oT1"]);
    assert_eq!(
        out.vertex(0),
        &[1.0, 2.0, 3.0, 4.0, 2.0, 1.0, 1.0, 1.0, 3.0, 2.0, 1.0, 0.0]
    );
    assert_eq!(out, dev.draw(1, 1).unwrap());
}

/// texldl with point sampling (D3D9's default sampler state: POINT, WRAP) reads texels
/// exactly; an unbound sampler reads (0, 0, 0, 1) as in dxso-vm.
#[test]
fn texldl_point_sampling_reads_the_texels() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ndcl_2d s1\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               mov o0, v0\ntexldl o1, v0, s0\ntexldl o2, v0, s1\n";
    let v0 = [
        [0.25, 0.25, 0.0, 0.0],
        [0.75, 0.25, 0.0, 0.0],
        // WRAP (the default address mode): u 1.25 reads column 0, v -0.25 row 1.
        [1.25, 0.75, 0.0, 0.0],
        [0.75, -0.25, 0.0, 0.0],
    ];
    let mut dev = device(src, &[], &v0);
    let texels: [f32; 16] = [
        1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.25, 0.5, 0.5, 0.5, 0.0,
    ];
    let bytes: Vec<u8> = texels.iter().flat_map(|x| x.to_le_bytes()).collect();
    let t = dxso_vm::Texture::new(
        dxso_vm::TextureKind::TwoD,
        dxso_vm::Format::A32B32G32R32F,
        2,
        2,
        1,
        &[bytes],
    )
    .unwrap();
    dev.set_texture(0, Some(t.into())).unwrap();
    let out = gpu.draw(&dev, 4, 1).unwrap();
    assert_eq!(
        register(&out, 1),
        vec![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 0.5],
            [0.0, 0.0, 1.0, 0.25],
            [0.5, 0.5, 0.5, 0.0]
        ]
    );
    assert_eq!(register(&out, 2), vec![[0.0, 0.0, 0.0, 1.0]; 4]);
    assert_eq!(out, dev.draw(4, 1).unwrap());
}
