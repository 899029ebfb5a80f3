//! Pixel shaders: hand-computed results for every version, from assembly text.

use super::*;
use crate::texture::{Format, TextureFilter, TextureKind};
use crate::{Device, LANES};
use dxso::validate::{Caps, validate};

fn checked(src: &str) -> Checked {
    let shader = dxso::text::parse(src).unwrap_or_else(|e| panic!("{src}\n{e:?}"));
    validate(&shader, &Caps::max()).unwrap_or_else(|e| panic!("{src}\n{e:?}"))
}

fn state(src: &str) -> PixelState {
    PixelState::new(&checked(src)).unwrap()
}

/// Set input `reg` of every lane to `v`.
fn set(st: &PixelState, b: &mut PixelBatch, reg: &str, v: [f32; 4]) {
    let k = st
        .inputs()
        .iter()
        .position(|i| i.register == reg)
        .unwrap_or_else(|| panic!("no input {reg} in {:?}", st.inputs()));
    for c in 0..4 {
        b.inputs[k][c] = [v[c]; LANES];
    }
}

/// Set input `reg` of lane `l`.
fn set_lane(st: &PixelState, b: &mut PixelBatch, reg: &str, l: usize, v: [f32; 4]) {
    let k = st.inputs().iter().position(|i| i.register == reg).unwrap();
    for c in 0..4 {
        b.inputs[k][c][l] = v[c];
    }
}

fn color(b: &PixelBatch, k: usize, l: usize) -> [f32; 4] {
    std::array::from_fn(|c| b.color[k][c][l])
}

fn run(st: &PixelState, fill: impl FnOnce(&mut PixelBatch)) -> PixelBatch {
    let mut b = PixelBatch::new(st);
    fill(&mut b);
    st.runner().run(&mut b).unwrap();
    b
}

fn bytes(texels: &[[f32; 4]]) -> Vec<u8> {
    texels
        .iter()
        .flat_map(|t| t.iter().flat_map(|f| f.to_le_bytes()))
        .collect()
}

/// A 2D texture; `levels[k]` row by row.
fn tex2d(w: usize, h: usize, levels: &[Vec<[f32; 4]>]) -> Arc<Texture> {
    let lv: Vec<Vec<u8>> = levels.iter().map(|l| bytes(l)).collect();
    Arc::new(Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, w, h, 1, &lv).unwrap())
}

/// An 8x8 texture with 4 levels, each one solid: level k = LEVEL[k].
const LEVEL: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0],
];

fn mip_chain() -> Arc<Texture> {
    let levels: Vec<Vec<[f32; 4]>> = (0..4)
        .map(|k| vec![LEVEL[k]; (8 >> k) * (8 >> k)])
        .collect();
    tex2d(8, 8, &levels)
}

fn mip_sampler() -> SamplerState {
    SamplerState {
        mip_filter: TextureFilter::Point,
        ..SamplerState::default()
    }
}

/// Coordinates for quad lanes `spacing` texels apart (at level 0 of an 8-texel texture) in
/// x and y: lane 4q+i gets (x0 + dx, y0 + dy, 0, w).
fn quad_coords(st: &PixelState, b: &mut PixelBatch, reg: &str, spacing: f32, w: f32) {
    for l in 0..LANES {
        let (dx, dy) = ((l & 1) as f32, (l >> 1 & 1) as f32);
        let t = spacing / 8.0;
        set_lane(st, b, reg, l, [0.25 + dx * t, 0.25 + dy * t, 0.0, w]);
    }
}

#[test]
fn ps_2_0_arithmetic_and_modifiers() {
    let st = state(
        "ps_2_0\n\
         dcl v0\n\
         dcl t0.xy\n\
         def c1, 0.5, -1, 2, 0\n\
         add r0, v0, c1\n\
         mul r1, r0, t0.x\n\
         mov r4, c1\n\
         mad r2, r1, c0, -r4\n\
         max r2.w, r2.w, c1.x\n\
         rcp r3.x, t0.y\n\
         mov r2.z, r3.x\n\
         mov_sat oC0, r2\n\
         mov oC1, -r1_abs\n",
    );
    assert_eq!(st.color_outputs(), 0b11);
    let inputs: Vec<_> = st
        .inputs()
        .iter()
        .map(|i| (i.register.as_str(), i.usage, i.usage_index, i.mask, i.color))
        .collect();
    assert_eq!(
        inputs,
        [
            ("v0", Usage::Color, 0, 0xF, true),
            ("t0", Usage::TexCoord, 0, 0x3, false)
        ]
    );
    let mut st = st;
    st.set_constant_f(0, &[[1.0, 0.5, 0.25, 2.0]]).unwrap();
    let b = run(&st, |b| {
        set(&st, b, "v0", [0.5, 1.0, 0.25, 0.0]);
        set(&st, b, "t0", [2.0, 4.0, 0.0, 0.0]);
    });
    // r0 = (1, 0, 2.25, 0); r1 = 2 r0 = (2, 0, 4.5, 0); r2 = r1 * c0 - c1 = (1.5, 1, -1.125, 0)
    // r2.w = max(0, 0.5) = 0.5; r2.z = 1/4; saturated: (1, 1, 0.25, 0.5).
    assert_eq!(color(&b, 0, 5), [1.0, 1.0, 0.25, 0.5]);
    assert_eq!(color(&b, 1, 0), [-2.0, 0.0, -4.5, 0.0]);
}

#[test]
fn cmp_cnd_dp2add() {
    let st = state(
        "ps_2_0\n\
         dcl t0\n\
         def c0, 1, 2, 3, 4\n\
         def c1, 5, 6, 7, 8\n\
         def c2, 10, 0.5, 0, 0\n\
         mov r2, c1\n\
         cmp r0, t0, c0, r2\n\
         mov r3, c2\n\
         dp2add r1, t0, c1, r3.x\n\
         mov oC0, r0\n\
         mov oC1, r1\n",
    );
    let b = run(&st, |b| set(&st, b, "t0", [0.0, -1.0, 2.0, -0.0]));
    // -0 >= 0 is true.
    assert_eq!(color(&b, 0, 0), [1.0, 6.0, 3.0, 4.0]);
    // 0*5 + -1*6 + 10 = 4.
    assert_eq!(color(&b, 1, 0), [4.0; 4]);
    // cnd in ps_1_4 compares each component of s0 with 0.5.
    let st = state(
        "ps_1_4\n\
         def c0, 0.6, 0.5, 0.4, 1\n\
         def c1, 1, 1, 1, 1\n\
         def c2, 0, 0, 0, 0\n\
         mov r1, c1\n\
         mov r2, c2\n\
         cnd r0, c0, r1, r2\n",
    );
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [1.0, 0.0, 0.0, 1.0]);
    // ps_1_1: the condition is r0.a, whatever the operand's swizzle says.
    let st = state(
        "ps_1_1\n\
         def c0, 0.2, 0.2, 0.2, 0.7\n\
         def c1, 1, 1, 1, 1\n\
         def c2, 0, 0.5, 0, 0\n\
         mov r0, c0\n\
         cnd r1, r0.a, c1, c2\n\
         mov r0, r1\n",
    );
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [1.0; 4]);
}

#[test]
fn texld_point_samples_a_2x2_texture() {
    let mut st = state(
        "ps_2_0\n\
         dcl t0.xy\n\
         dcl_2d s0\n\
         texld r0, t0, s0\n\
         mov oC0, r0\n",
    );
    let texels = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 0.5],
    ];
    st.set_texture(0, Some(tex2d(2, 2, &[texels.to_vec()])))
        .unwrap();
    let uv = [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    let b = run(&st, |b| {
        for l in 0..LANES {
            let [u, v] = uv[l % 4];
            set_lane(&st, b, "t0", l, [u, v, 0.0, 1.0]);
        }
    });
    for l in 0..8 {
        assert_eq!(color(&b, 0, l), texels[l % 4], "lane {l}");
    }
    // Unbound: (0, 0, 0, 1).
    st.set_texture(0, None).unwrap();
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 3), [0.0, 0.0, 0.0, 1.0]);
    assert!(st.set_texture(16, None).is_err());
}

#[test]
fn texld_swizzles_by_the_sampler_operand_in_ps_3_0() {
    let mut st = state(
        "ps_3_0\n\
         dcl_texcoord0 v0.xy\n\
         dcl_2d s2\n\
         texld r0, v0, s2.yzxw\n\
         mov oC0, r0\n",
    );
    st.set_texture(2, Some(tex2d(1, 1, &[vec![[0.1, 0.2, 0.3, 0.4]]])))
        .unwrap();
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [0.2, 0.3, 0.1, 0.4]);
}

/// Level of detail from the quad: coordinates 1, 2, 4, 8 texels apart pick levels 0..3.
#[test]
fn implicit_lod_picks_the_mip_level_from_the_quad() {
    let mut st = state(
        "ps_2_0\n\
         dcl t0\n\
         dcl_2d s0\n\
         texld r0, t0, s0\n\
         mov oC0, r0\n",
    );
    st.set_texture(0, Some(mip_chain())).unwrap();
    st.set_sampler_state(0, mip_sampler()).unwrap();
    for (k, spacing) in [1.0, 2.0, 4.0, 8.0].into_iter().enumerate() {
        let b = run(&st, |b| quad_coords(&st, b, "t0", spacing, 1.0));
        for l in [0, 1, 2, 3, 61] {
            assert_eq!(color(&b, 0, l), LEVEL[k], "spacing {spacing} lane {l}");
        }
    }
    // MIPMAPLODBIAS is added by the sampler: 1 texel apart + bias 2 -> level 2.
    st.set_sampler_state(
        0,
        SamplerState {
            mip_lod_bias: 2.0,
            ..mip_sampler()
        },
    )
    .unwrap();
    let b = run(&st, |b| quad_coords(&st, b, "t0", 1.0, 1.0));
    assert_eq!(color(&b, 0, 0), LEVEL[2]);
}

#[test]
fn texldp_texldb_texldl_texldd_pick_their_levels() {
    let mut st = state(
        "ps_3_0\n\
         dcl_texcoord0 v0\n\
         dcl_texcoord1 v1\n\
         dcl_2d s0\n\
         texldp r0, v0, s0\n\
         texldb r1, v0, s0\n\
         texldl r2, v1, s0\n\
         mov r4, c1\n\
         texldd r3, v0, s0, c0, r4\n\
         mov oC0, r0\n\
         mov oC1, r1\n\
         mov oC2, r2\n\
         mov oC3, r3\n",
    );
    st.set_texture(0, Some(mip_chain())).unwrap();
    st.set_sampler_state(0, mip_sampler()).unwrap();
    // texldd: gradients 4 texels in x, 1 in y -> level 2.
    st.set_constant_f(0, &[[0.5, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0]])
        .unwrap();
    let b = run(&st, |b| {
        // 2 texels apart with w = 0.5: after the division 4 texels apart -> level 2 for
        // texldp; texldb: 2 texels (LOD 1) + bias w = 0.5 -> LOD 1.5, which MIPFILTER POINT
        // rounds down to level 1 (the sampler's rule: halves go to the finer level).
        quad_coords(&st, b, "v0", 2.0, 0.5);
        set(&st, b, "v1", [0.5, 0.5, 0.0, 3.0]);
    });
    assert_eq!(color(&b, 0, 0), LEVEL[2], "texldp");
    assert_eq!(color(&b, 1, 0), LEVEL[1], "texldb");
    assert_eq!(color(&b, 2, 0), LEVEL[3], "texldl");
    assert_eq!(color(&b, 3, 0), LEVEL[2], "texldd");
    // texldb with a negative bias: 2 texels (LOD 1) - 1 -> level 0.
    let b = run(&st, |b| quad_coords(&st, b, "v0", 2.0, -1.0));
    assert_eq!(color(&b, 1, 0), LEVEL[0], "texldb -1");
}

#[test]
fn dsx_and_dsy_are_fine_quad_differences() {
    let st = state(
        "ps_2_x\n\
         dcl t0\n\
         dsx r0, t0\n\
         dsy r1, t0.yxzw\n\
         mov oC0, r0\n\
         mov oC1, r1\n",
    );
    // Lane 4q+i: x = i*i (0, 1, 4, 9), y = 10 * i.
    let b = run(&st, |b| {
        for l in 0..LANES {
            let i = (l % 4) as f32;
            set_lane(&st, b, "t0", l, [i * i, 10.0 * i, 0.0, 0.0]);
        }
    });
    // dsx of x: lanes 0,1: 1 - 0; lanes 2,3: 9 - 4. dsx of y: 10 and 10.
    let want_dx = [[1.0, 10.0], [1.0, 10.0], [5.0, 10.0], [5.0, 10.0]];
    // dsy of (y, x): lanes 0,2: (20 - 0, 4 - 0); lanes 1,3: (30 - 10, 9 - 1).
    let want_dy = [[20.0, 4.0], [20.0, 8.0], [20.0, 4.0], [20.0, 8.0]];
    for l in 0..8 {
        let (dx, dy) = (color(&b, 0, l), color(&b, 1, l));
        assert_eq!([dx[0], dx[1]], want_dx[l % 4], "dsx lane {l}");
        assert_eq!([dy[0], dy[1]], want_dy[l % 4], "dsy lane {l}");
    }
}

#[test]
fn texkill_discards_live_lanes_only() {
    let st = state(
        "ps_2_0\n\
         dcl t0\n\
         texkill t0\n\
         mov oC0, t0\n",
    );
    let b = run(&st, |b| {
        for l in 0..LANES {
            let v = match l % 4 {
                0 => [1.0, 1.0, 1.0, -1.0], // ps_2_0: w too (the write mask)
                1 => [1.0, -0.5, 1.0, 1.0],
                2 => [1.0, 1.0, -0.0, 1.0], // -0 is not below 0
                _ => [1.0, 1.0, -2.0, 1.0],
            };
            set_lane(&st, b, "t0", l, v);
        }
        b.live[7] = false; // a helper lane
    });
    assert_eq!(
        &b.discarded[..8],
        [true, true, false, true, true, true, false, false]
    );
    // A write mask limits the components tested; ps_1_x tests x, y, z.
    for src in [
        "ps_2_0\ndcl t0\ntexkill t0.xyz\nmov oC0, t0\n",
        "ps_1_4\ntexkill t0\ntexcrd r0.rgb, t0\n",
    ] {
        let st = state(src);
        let b = run(&st, |b| {
            set_lane(&st, b, "t0", 0, [1.0, 1.0, 1.0, -1.0]);
            set_lane(&st, b, "t0", 1, [1.0, 1.0, -1.0, 1.0]);
        });
        assert_eq!(&b.discarded[..3], [false, true, false], "{src}");
    }
    // ps_3_0: in a branch, only the lanes that take it.
    let st = state(
        "ps_3_0\n\
         dcl_texcoord0 v0\n\
         def c0, 0, 0, 0, 0\n\
         if_gt v0.w, c0.x\n\
         texkill v0\n\
         endif\n\
         mov oC0, v0\n",
    );
    let b = run(&st, |b| {
        set_lane(&st, b, "v0", 0, [-1.0, 0.0, 0.0, 1.0]);
        set_lane(&st, b, "v0", 1, [-1.0, 0.0, 0.0, -1.0]);
    });
    assert_eq!(&b.discarded[..3], [true, false, false]);
}

#[test]
fn odepth_mrt_vpos_vface() {
    let st = state(
        "ps_3_0\n\
         dcl vPos.xy\n\
         dcl vFace\n\
         def c0, 0.25, 1, 2, 3\n\
         def c1, 0, 0, 0, 0\n\
         mov r0.xy, vPos\n\
         mov r0.zw, c1\n\
         mov oC0, r0\n\
         mov oC1, c0.y\n\
         mov oC2, c0.z\n\
         if_lt vFace, c1.x\n\
         mov oC3, c0.w\n\
         mov oDepth, c0.x\n\
         endif\n",
    );
    assert!(st.reads_position() && st.reads_face() && st.writes_depth());
    assert_eq!(st.color_outputs(), 0b1111);
    assert!(st.inputs().is_empty());
    let b = run(&st, |b| {
        for l in 0..LANES {
            b.pos[0][l] = 10.0 + (l & 1) as f32;
            b.pos[1][l] = 20.0 + (l >> 1 & 1) as f32;
            b.face[l] = if l == 3 { -1.0 } else { 1.0 };
            b.depth[l] = 0.5;
        }
    });
    assert_eq!(color(&b, 0, 3), [11.0, 21.0, 0.0, 0.0]);
    assert_eq!(color(&b, 1, 0), [1.0; 4]);
    assert_eq!(color(&b, 2, 0), [2.0; 4]);
    assert_eq!(color(&b, 3, 3), [3.0; 4]);
    assert_eq!(color(&b, 3, 2), [0.0; 4]);
    // Lanes that do not write oDepth keep the interpolated depth.
    assert_eq!(&b.depth[..4], [0.5, 0.5, 0.5, 0.25]);
}

#[test]
fn ps_3_0_loops_if_and_relative_reads() {
    let mut st = state(
        "ps_3_0\n\
         dcl_texcoord0 v0\n\
         dcl_texcoord1 v1\n\
         dcl_texcoord2 v2\n\
         defi i0, 3, 0, 1, 0\n\
         def c0, 0, 0, 0, 0\n\
         mov r0, c0\n\
         loop aL, i0\n\
         add r0, r0, v[aL]\n\
         add r0, r0, c4\n\
         endloop\n\
         if_gt r0.x, c0.x\n\
         mov r1, r0\n\
         else\n\
         mov r1, -r0\n\
         endif\n\
         mov oC0, r1\n",
    );
    // (The validator refuses c[aL + n] in ps_3_0.)
    st.set_constant_f(4, &[[200.0; 4]]).unwrap();
    let b = run(&st, |b| {
        set(&st, b, "v0", [1.0, 0.0, 0.0, 0.0]);
        set(&st, b, "v1", [2.0, 0.0, 0.0, 0.0]);
        set(&st, b, "v2", [4.0, 0.0, 0.0, 0.0]);
        set_lane(&st, b, "v0", 1, [-1000.0, 0.0, 0.0, 0.0]);
    });
    assert_eq!(color(&b, 0, 0), [607.0, 600.0, 600.0, 600.0]);
    assert_eq!(color(&b, 0, 1), [394.0, -600.0, -600.0, -600.0]);
}

#[test]
fn a_looping_shader_ends_with_the_instruction_cap() {
    let mut st = state(
        "ps_3_0\n\
         defi i0, 255, 0, 1, 0\n\
         def c0, 1, 1, 1, 1\n\
         mov r0, c0\n\
         rep i0\n\
         rep i0\n\
         rep i0\n\
         add r0, r0, c0\n\
         endrep\n\
         endrep\n\
         endrep\n\
         mov oC0, r0\n",
    );
    st.set_max_instructions(100_000);
    let mut b = PixelBatch::new(&st);
    assert_eq!(
        st.runner().run(&mut b),
        Err(VmError::InstructionLimit(100_000))
    );
}

#[test]
fn shader_kinds_are_kept_apart() {
    let vs = checked("vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n");
    assert_eq!(PixelState::new(&vs).unwrap_err(), VmError::NotPixelShader);
    let ps = checked("ps_2_0\ndcl v0\nmov oC0, v0\n");
    assert_eq!(
        Device::new().set_vertex_shader(&ps),
        Err(VmError::Lower(crate::LowerError::PixelShader))
    );
    // Pixel programs run compiled: on the x86 code generator at the path's width, on
    // Cranelift's code on the base path; the interpreted tier runs them on the interpreter.
    let mut st = PixelState::new(&ps).unwrap();
    assert!(crate::compile::supported(&st.program).is_ok());
    let expect = match crate::Isa::detect() {
        crate::Isa::Avx512 => crate::CodeGenerator::Avx512,
        crate::Isa::Avx2 => crate::CodeGenerator::Avx2,
        crate::Isa::Base => crate::CodeGenerator::Cranelift,
    };
    assert_eq!(st.code_generator(), Some(expect));
    st.set_options(crate::Options {
        isa: crate::Isa::Base,
        ..Default::default()
    });
    assert_eq!(st.code_generator(), Some(crate::CodeGenerator::Cranelift));
    st.set_options(crate::Options {
        tier: crate::Tier::Interpreted,
        ..Default::default()
    });
    assert_eq!(st.code_generator(), None);
    assert!(st.why_interpreted().is_some());
}

#[test]
fn constant_ranges_per_version() {
    let mut s3 = state("ps_3_0\nmov oC0, c223\n");
    assert!(s3.set_constant_f(223, &[[1.0; 4]]).is_ok());
    assert!(s3.set_constant_f(224, &[[1.0; 4]]).is_err());
    assert!(s3.set_constant_i(15, &[[1; 4]]).is_ok());
    assert!(s3.set_constant_b(16, &[true]).is_err());
    let mut s2 = state("ps_2_0\nmov oC0, c31\n");
    assert!(s2.set_constant_f(31, &[[1.0; 4]]).is_ok());
    assert!(s2.set_constant_f(32, &[[1.0; 4]]).is_err());
    let mut s1 = state("ps_1_1\nmov r0, c7\n");
    assert!(s1.set_constant_f(7, &[[1.0; 4]]).is_ok());
    assert!(s1.set_constant_f(8, &[[1.0; 4]]).is_err());
}

#[test]
fn trace_follows_one_lane() {
    let st = state(
        "ps_2_0\n\
         dcl t0\n\
         add r0, t0, c0\n\
         mov oC0, r0\n",
    );
    let mut b = PixelBatch::new(&st);
    for l in 0..LANES {
        b.inputs[0][0][l] = l as f32;
    }
    let t = st.runner().trace(&mut b, 5).unwrap();
    assert_eq!(t.vertex, 5);
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].effect, "r0 = (5, 0, 0, 0)");
    assert_eq!(t.outputs, [5.0, 0.0, 0.0, 0.0]);
    assert!(st.runner().trace(&mut b, LANES).is_err());
}

#[test]
fn cube_and_volume_lod_from_the_quad() {
    // A 4x4 cube with 3 levels, each level solid LEVEL[k] on every face.
    let levels: Vec<Vec<u8>> = (0..3)
        .map(|k| bytes(&vec![LEVEL[k]; 6 * (4 >> k) * (4 >> k)]))
        .collect();
    let cube = Texture::new(TextureKind::Cube, Format::A32B32G32R32F, 4, 4, 1, &levels).unwrap();
    let mut st = state(
        "ps_2_0\n\
         dcl t0\n\
         dcl_cube s0\n\
         texld r0, t0, s0\n\
         mov oC0, r0\n",
    );
    st.set_texture(0, Some(Arc::new(cube))).unwrap();
    st.set_sampler_state(0, mip_sampler()).unwrap();
    // On the +Z face (z = 1) a step of 0.5 in x and y is 0.5 * 4 / 2 = 1 texel: level 0;
    // a step of 1 is 2 texels: level 1.
    for (step, want) in [(0.5, 0), (1.0, 1)] {
        let b = run(&st, |b| {
            for l in 0..LANES {
                let (dx, dy) = ((l & 1) as f32, (l >> 1 & 1) as f32);
                set_lane(
                    &st,
                    b,
                    "t0",
                    l,
                    [-0.5 + dx * step, -0.5 + dy * step, 1.0, 1.0],
                );
            }
        });
        assert_eq!(color(&b, 0, 0), LEVEL[want], "cube step {step}");
    }
    // A 4x4x4 volume with 3 levels: 2 texels apart in w only -> level 1.
    let levels: Vec<Vec<u8>> = (0..3)
        .map(|k| bytes(&vec![LEVEL[k]; (4usize >> k).pow(3)]))
        .collect();
    let vol = Texture::new(TextureKind::Volume, Format::A32B32G32R32F, 4, 4, 4, &levels).unwrap();
    let mut st = state(
        "ps_2_0\n\
         dcl t0\n\
         dcl_volume s0\n\
         texld r0, t0, s0\n\
         mov oC0, r0\n",
    );
    st.set_texture(0, Some(Arc::new(vol))).unwrap();
    st.set_sampler_state(0, mip_sampler()).unwrap();
    let b = run(&st, |b| {
        for l in 0..LANES {
            let dx = (l & 1) as f32;
            set_lane(&st, b, "t0", l, [0.5, 0.5, 0.25 + dx * 0.5, 1.0]);
        }
    });
    assert_eq!(color(&b, 0, 0), LEVEL[1]);
}

#[test]
fn constants_by_name_and_the_trace_names_them() {
    use dxso::ctab::{Class, Constant, ConstantTable, ParamType, RegisterSet, TypeInfo};
    let mut st = state("ps_2_0\nmov oC0, c2\n");
    assert!(st.set_constant_by_name("tint", &[1.0]).is_err());
    st.set_constant_table(Some(ConstantTable {
        creator: "dxso test".into(),
        version: 0xFFFF_0200,
        flags: 0,
        target: "ps_2_0".into(),
        constants: vec![Constant {
            name: "tint".into(),
            register_set: RegisterSet::Float4,
            register_index: 2,
            register_count: 1,
            ty: TypeInfo::new(Class::Vector, ParamType::Float, 1, 4),
            default_value: None,
        }],
    }));
    st.set_constant_by_name("tint", &[0.5, 0.25, 1.0, 2.0])
        .unwrap();
    assert_eq!(st.constant_f(2), Some([0.5, 0.25, 1.0, 2.0]));
    let mut b = PixelBatch::new(&st);
    let t = st.runner().trace(&mut b, 0).unwrap();
    assert_eq!(t.steps[0].text, "mov oC0, c2 // c2 = tint");
    assert_eq!(t.outputs, [0.5, 0.25, 1.0, 2.0]);
}

/// Every shader of these tests, run with no textures bound and hostile inputs (NaN,
/// infinities, huge values, too few input rows): no panic.
#[test]
fn hostile_inputs_and_unbound_samplers_do_not_panic() {
    let sources = [
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\ntexldb r1, t0, s0\nadd oC0, r0, r1\n",
        "ps_3_0\ndcl_texcoord0 v0\ndcl_cube s0\ntexldd r0, v0, s0, v0, v0\ntexldl r1, v0, s0\nadd oC0, r0, r1\n",
        "ps_2_x\ndcl t0\ndsx r0, t0\ndsy r1, t0\nrcp r2.x, t0.x\nadd r0, r0, r1\nadd oC0, r0, r2.x\n",
        "ps_1_1\ntex t0\ntexbeml t1, t0\ntexm3x3pad t2, t0\ntexm3x3pad t3, t0\nmov r0, t1\n",
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3vspec t3, t0\nmov r0, t3\n",
        "ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, t0\n",
        "ps_1_4\ntexcrd r0.rgb, t0_dz\ntexld r1, t1_dw.xyw\nphase\ntexld r2, r0\nadd r0, r1, r2\n",
    ];
    let values = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e30,
        -1e-30,
        0.0,
    ];
    for src in sources {
        let mut st = state(src);
        st.set_stage(
            0,
            StageState {
                bump_env_mat: [f32::NAN, 1e30, -1e30, 0.0],
                bump_env_lscale: f32::INFINITY,
                bump_env_loffset: f32::NAN,
                projected: true,
            },
        )
        .unwrap();
        let mut b = PixelBatch::new(&st);
        for input in &mut b.inputs {
            for (c, row) in input.iter_mut().enumerate() {
                for (l, x) in row.iter_mut().enumerate() {
                    *x = values[(l + c) % values.len()];
                }
            }
        }
        st.runner().run(&mut b).unwrap();
        // Too few input rows read as zeros; textures bound with NaN coordinates.
        for s in 0..4 {
            st.set_texture(s, Some(mip_chain())).unwrap();
            st.set_sampler_state(s, mip_sampler()).unwrap();
        }
        st.runner().run(&mut b).unwrap();
        b.inputs.clear();
        st.runner().run(&mut b).unwrap();
    }
}

#[test]
fn states_are_shared_across_threads_and_runners_move() {
    fn sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    sync::<PixelState>();
    send::<PixelRunner<'static>>();
    send::<PixelBatch>();
}

#[test]
fn coissued_stores_are_traced_under_their_own_instruction() {
    let st = state(
        "ps_1_4\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         mov r0, c0\n\
         mov r0.rgb, c0.a\n\
         +mov r0.a, r0.b\n",
    );
    let mut b = PixelBatch::new(&st);
    let t = st.runner().trace(&mut b, 0).unwrap();
    let last = t.steps.last().unwrap();
    assert_eq!(last.text, "mov r0.xyz, c0.w");
    assert_eq!(last.effect, "r0 = (1, 1, 1, 0.75)");
    assert_eq!(t.outputs, [1.0, 1.0, 1.0, 0.75]);
}

#[test]
fn samplers_are_listed_with_their_types() {
    use dxso::ir::TextureType as T;
    let st = state(
        "ps_2_0\ndcl t0\ndcl_cube s3\ndcl_2d s1\ntexld r0, t0, s3\ntexld r1, t0, s1\nadd oC0, r0, r1\n",
    );
    let mut got = st.samplers();
    got.sort_by_key(|s| s.0);
    assert_eq!(got, [(1, T::TwoD), (3, T::Cube)]);
    let st = state(
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
    );
    assert_eq!(st.samplers(), [(0, T::TwoD), (3, T::Cube)]);
    let st = state("ps_1_4\ntexld r2, t0\nmov r0, r2\n");
    assert_eq!(st.samplers(), [(2, T::TwoD)]);
}

#[test]
fn packed_ps_3_0_inputs_are_listed_per_semantic() {
    let st = state(
        "ps_3_0\n\
         dcl_texcoord0 v0.xy\n\
         dcl_texcoord1 v0.zw\n\
         dcl_color0 v1\n\
         mov r1, v1\n\
         add r0, v0, r1\n\
         mov oC0, r0\n",
    );
    let got: Vec<_> = st
        .inputs()
        .iter()
        .map(|i| (i.register.as_str(), i.usage, i.usage_index, i.mask, i.color))
        .collect();
    assert_eq!(
        got,
        [
            ("v0", Usage::TexCoord, 0, 0x3, false),
            ("v0", Usage::TexCoord, 1, 0xC, false),
            ("v1", Usage::Color, 0, 0xF, false),
        ]
    );
    let mut b = PixelBatch::new(&st);
    b.inputs[0] = [[1.0; LANES], [2.0; LANES], [99.0; LANES], [99.0; LANES]];
    b.inputs[1] = [[99.0; LANES], [99.0; LANES], [3.0; LANES], [4.0; LANES]];
    b.inputs[2] = [[10.0; LANES]; 4];
    st.runner().run(&mut b).unwrap();
    assert_eq!(color(&b, 0, 0), [11.0, 12.0, 13.0, 14.0]);
}

#[test]
fn predicated_texld_and_setp_in_ps_2_x() {
    let mut st = state(
        "ps_2_x\n\
         dcl t0\n\
         dcl_2d s0\n\
         def c0, 0, 0, 0, 0\n\
         mov r0, c0\n\
         setp_gt p0, t0, c0\n\
         (p0.x) texld r0, t0, s0\n\
         (!p0.y) mov r0.y, t0.y\n\
         mov oC0, r0\n",
    );
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.5, 0.25, 0.75, 1.0]]])))
        .unwrap();
    let b = run(&st, |b| {
        set_lane(&st, b, "t0", 0, [0.5, 0.5, 0.0, 0.0]);
        set_lane(&st, b, "t0", 1, [-0.5, -0.5, 0.0, 0.0]);
    });
    assert_eq!(color(&b, 0, 0), [0.5, 0.25, 0.75, 1.0]);
    assert_eq!(color(&b, 0, 1), [0.0, -0.5, 0.0, 0.0]);
}

/// ps_1_1 .. ps_1_4: texture registers and addressing, modifiers, co-issue, phases.
mod ps1x;
