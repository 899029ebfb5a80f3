//! ps_1_x pixel shaders: texture registers and the texture-addressing family, the
//! modifiers and shifts, co-issue, phases, bump mapping.

use super::*;

#[test]
fn ps_1_x_constants_are_clamped_to_plus_minus_one() {
    let mut st = state(
        "ps_1_1\n\
         def c1, 2, -3, 0.5, 1\n\
         add r0, c0, c1\n",
    );
    st.set_constant_f(0, &[[4.0, 0.25, -5.0, 0.0]]).unwrap();
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [2.0, -0.75, -0.5, 1.0]);
}

#[test]
fn ps_1_1_tex_texcoord_and_modifiers() {
    let mut st = state(
        "ps_1_1\n\
         tex t0\n\
         texcoord t1\n\
         mul r0, t0, t1\n\
         add_x2 r1, t1_bx2, c0_bias\n\
         mov r0.a, r1.a\n",
    );
    let names: Vec<_> = st.inputs().iter().map(|i| i.register.clone()).collect();
    assert_eq!(names, ["t0", "t1"]);
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.5, 1.0, 0.25, 1.0]]])))
        .unwrap();
    st.set_constant_f(0, &[[0.0, 0.0, 0.0, 1.0]]).unwrap();
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.3, 0.3, 0.0, 1.0]);
        // texcoord clamps to [0, 1] and sets w = 1.
        set(&st, b, "t1", [2.0, 0.5, -1.0, 7.0]);
    });
    // t1 = (1, 0.5, 0, 1); r0 = (0.5, 0.5, 0, 1); r1.a = 2 * (2*(1-0.5) + (1-0.5)) = 3.
    assert_eq!(color(&b, 0, 0), [0.5, 0.5, 0.0, 3.0]);
}

#[test]
fn ps_1_x_shifts_complement_and_coissue() {
    let st = state(
        "ps_1_4\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         def c1, 1, 1, 1, 0.5\n\
         mov r0, c0\n\
         mul_x4 r1.rgb, r0, c1\n\
         +add_d2 r1.a, 1-r0.a, c1.a\n\
         mov_x2 r2.rgb, r0_x2\n\
         +mov r2.a, -r0_bx2\n\
         mul r0.rgb, r0, c1\n\
         +mov r0.a, r0.r\n\
         add_sat r0.rgb, r0, r1\n",
    );
    let b = run(&st, |_| {});
    // r1 = (1, 2, 3, (0 + 0.5)/2); the co-issued r0.a reads r0.r from before the pair
    // (0.25, unchanged by the rgb write either way); final r0.rgb = sat(r0 + r1).
    assert_eq!(color(&b, 0, 0), [1.0, 1.0, 1.0, 0.25]);
    // Co-issue: the second instruction reads the register as it was before the pair.
    let st = state(
        "ps_1_4\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         mov r0, c0\n\
         mov r0.rgb, c0.a\n\
         +mov r0.a, r0.b\n",
    );
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [1.0, 1.0, 1.0, 0.75]);
    let st = state(
        "ps_1_1\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         mov_x2 r1, c0\n\
         mov_d8 r0.rgb, r1\n\
         +mov_x4 r0.a, r1.b\n",
    );
    let b = run(&st, |_| {});
    // r1 = (0.5, 1, 1.5, 2); r0.rgb = r1 / 8; r0.a = 4 * 1.5.
    assert_eq!(color(&b, 0, 0), [0.0625, 0.125, 0.1875, 6.0]);
}

#[test]
fn ps_1_4_texld_texcrd_phase() {
    let mut st = state(
        "ps_1_4\n\
         texcrd r0.rgb, t1_dz\n\
         texld r2, t0\n\
         phase\n\
         texld r3, r0\n\
         mov r0.rgb, r2\n\
         +mov r0.a, r3.a\n",
    );
    st.set_texture(2, Some(tex2d(1, 1, &[vec![[0.5, 0.25, 1.0, 0.0]]])))
        .unwrap();
    // Stage 3: 2x1, left texel alpha 0.1, right 0.9.
    st.set_texture(
        3,
        Some(tex2d(
            2,
            1,
            &[vec![[0.0, 0.0, 0.0, 0.1], [0.0, 0.0, 0.0, 0.9]]],
        )),
    )
    .unwrap();
    let b = run(&st, |b| {
        // t1 / z = (0.8, 0.2): the right texel.
        set(&st, b, "t1", [1.6, 0.4, 2.0, 1.0]);
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
    });
    assert_eq!(color(&b, 0, 0), [0.5, 0.25, 1.0, 0.9]);
}

#[test]
fn ps_1_1_texbem_uses_the_stage_bump_matrix() {
    let mut st = state(
        "ps_1_1\n\
         tex t0\n\
         texbem t1, t0\n\
         texbeml t2, t0\n\
         mov r0, t1\n\
         mov r1, t2\n\
         add r0.a, r0.a, r1.a\n",
    );
    // Stage 0: the (du, dv, luminance) = (0.5, -0.25, 0.5) map.
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.5, -0.25, 0.5, 1.0]]])))
        .unwrap();
    // Stage 1 and 2: 4x1 textures whose texels tell where they were sampled.
    let strip = vec![
        [0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.25],
        [2.0, 0.0, 0.0, 0.5],
        [3.0, 0.0, 0.0, 0.75],
    ];
    st.set_texture(1, Some(tex2d(4, 1, std::slice::from_ref(&strip))))
        .unwrap();
    st.set_texture(2, Some(tex2d(4, 1, &[strip]))).unwrap();
    let clamp = SamplerState {
        address_u: crate::TextureAddress::Clamp,
        address_v: crate::TextureAddress::Clamp,
        ..SamplerState::default()
    };
    st.set_sampler_state(1, clamp).unwrap();
    st.set_sampler_state(2, clamp).unwrap();
    // u' = u + M00 du + M10 dv = 0.1 + 1*0.5 + 0.8*(-0.25) = 0.4 -> texel 1.
    st.set_stage(
        1,
        StageState {
            bump_env_mat: [1.0, 0.0, 0.8, 0.0],
            ..StageState::default()
        },
    )
    .unwrap();
    // u' = 0.1 + 2*0.5 = 1.1 (clamped -> texel 3); luminance 0.5 * 2 + 0.5 = 1.5.
    st.set_stage(
        2,
        StageState {
            bump_env_mat: [2.0, 0.0, 0.0, 0.0],
            bump_env_lscale: 2.0,
            bump_env_loffset: 0.5,
            ..StageState::default()
        },
    )
    .unwrap();
    assert!(st.set_stage(8, StageState::default()).is_err());
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        set(&st, b, "t1", [0.1, 0.5, 0.0, 1.0]);
        set(&st, b, "t2", [0.1, 0.5, 0.0, 1.0]);
    });
    // r0 = texel 1 = (1, 0, 0, 0.25); r1 = texel 3 * 1.5 = (4.5, 0, 0, 1.125).
    assert_eq!(color(&b, 0, 0), [1.0, 0.0, 0.0, 1.375]);
}

#[test]
fn ps_1_1_texm3x3tex_samples_a_cube_map() {
    let mut st = state(
        "ps_1_1\n\
         tex t0\n\
         texm3x3pad t1, t0\n\
         texm3x3pad t2, t0\n\
         texm3x3tex t3, t0\n\
         mov r0, t3\n",
    );
    // Stage 0: the normal (0, 0, 1).
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.0, 0.0, 1.0, 1.0]]])))
        .unwrap();
    // A 1x1 cube, one colour per face (+X, -X, +Y, -Y, +Z, -Z).
    let faces: Vec<[f32; 4]> = (0..6).map(|f| [f as f32, 0.0, 0.0, 1.0]).collect();
    let cube = Texture::new(
        TextureKind::Cube,
        Format::A32B32G32R32F,
        1,
        1,
        1,
        &[bytes(&faces)],
    )
    .unwrap();
    st.set_texture(3, Some(Arc::new(cube))).unwrap();
    // Rows of the matrix (t1, t2, t3 coordinates): N' = (N.z of each row) = (0, -1, 0.5):
    // the major axis is -Y -> face 3.
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        set(&st, b, "t1", [1.0, 0.0, 0.0, 0.0]);
        set(&st, b, "t2", [0.0, 0.0, -1.0, 0.0]);
        set(&st, b, "t3", [0.0, 1.0, 0.5, 0.0]);
    });
    assert_eq!(color(&b, 0, 0), [3.0, 0.0, 0.0, 1.0]);
}

#[test]
fn ps_1_4_texdepth_and_ps_2_0_odepth() {
    let st = state(
        "ps_1_4\n\
         def c0, 0.3, 0.6, 0, 1\n\
         def c1, 0.3, 0, 0, 1\n\
         mov r5, c0\n\
         texdepth r5\n\
         mov r0, c1\n",
    );
    assert!(st.writes_depth());
    let b = run(&st, |_| {});
    assert_eq!(b.depth[0], 0.5);
    let st = state(
        "ps_2_0\n\
         def c0, 0.75, 0, 0, 0\n\
         mov oDepth, c0.x\n\
         mov oC0, c0\n",
    );
    assert!(st.writes_depth());
    let b = run(&st, |b| b.depth = [0.1; LANES]);
    assert_eq!(b.depth[9], 0.75);
}

/// A 1x1 cube map, face f coloured (f, 0, 0, 1) (+X, -X, +Y, -Y, +Z, -Z).
fn face_cube() -> Arc<Texture> {
    let faces: Vec<[f32; 4]> = (0..6).map(|f| [f as f32, 0.0, 0.0, 1.0]).collect();
    Arc::new(
        Texture::new(
            TextureKind::Cube,
            Format::A32B32G32R32F,
            1,
            1,
            1,
            &[bytes(&faces)],
        )
        .unwrap(),
    )
}

/// 2x2 texture, texel k = (k, 0, 0, 1) (row by row).
fn numbered() -> Arc<Texture> {
    tex2d(2, 2, &[(0..4).map(|k| [k as f32, 0.0, 0.0, 1.0]).collect()])
}

#[test]
fn ps_1_x_texm3x3spec_and_vspec_reflect_the_eye_ray() {
    // N = (0, 0, 1) from stage 0 through an identity matrix; E = (1, 0, 0.5):
    // R = 2 N (N.E) / (N.N) - E = (-1, 0, 0.5): the -X face.
    for (src, eye_w) in [
        (
            "ps_1_1\n\
             def c0, 1, 0, 0.5, 0\n\
             tex t0\n\
             texm3x3pad t1, t0\n\
             texm3x3pad t2, t0\n\
             texm3x3spec t3, t0, c0\n\
             mov r0, t3\n",
            [0.0; 3],
        ),
        (
            "ps_1_1\n\
             tex t0\n\
             texm3x3pad t1, t0\n\
             texm3x3pad t2, t0\n\
             texm3x3vspec t3, t0\n\
             mov r0, t3\n",
            [1.0, 0.0, 0.5],
        ),
    ] {
        let mut st = state(src);
        st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.0, 0.0, 1.0, 1.0]]])))
            .unwrap();
        st.set_texture(3, Some(face_cube())).unwrap();
        let b = run(&st, |b| {
            set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
            set(&st, b, "t1", [1.0, 0.0, 0.0, eye_w[0]]);
            set(&st, b, "t2", [0.0, 1.0, 0.0, eye_w[1]]);
            set(&st, b, "t3", [0.0, 0.0, 1.0, eye_w[2]]);
        });
        assert_eq!(color(&b, 0, 0), [1.0, 0.0, 0.0, 1.0], "{src}");
    }
}

#[test]
fn ps_1_x_texm3x2tex_texm3x2depth_texm3x3() {
    let mut st = state(
        "ps_1_1\n\
         tex t0\n\
         texm3x2pad t1, t0\n\
         texm3x2tex t2, t0\n\
         mov r0, t2\n",
    );
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.25, 0.75, 0.5, 1.0]]])))
        .unwrap();
    st.set_texture(2, Some(numbered())).unwrap();
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        set(&st, b, "t1", [1.0, 0.0, 0.0, 0.0]);
        set(&st, b, "t2", [0.0, 1.0, 0.0, 0.0]);
    });
    // (u, v) = (0.25, 0.75): texel 2.
    assert_eq!(color(&b, 0, 0), [2.0, 0.0, 0.0, 1.0]);

    let mut st = state(
        "ps_1_3\n\
         tex t0\n\
         texm3x2pad t1, t0\n\
         texm3x2depth t2, t0\n\
         mov r0, t0\n",
    );
    assert!(st.writes_depth());
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.25, 0.75, 0.5, 1.0]]])))
        .unwrap();
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        set(&st, b, "t1", [1.0, 0.0, 0.0, 0.0]);
        set(&st, b, "t2", [0.0, 0.0, 1.0, 0.0]);
        set_lane(&st, b, "t2", 1, [0.0; 4]);
    });
    // z / w = 0.25 / 0.5; w = 0 gives 1.0.
    assert_eq!(&b.depth[..2], [0.5, 1.0]);

    let mut st = state(
        "ps_1_2\n\
         tex t0\n\
         texm3x3pad t1, t0\n\
         texm3x3pad t2, t0\n\
         texm3x3 t3, t0\n\
         mov r0, t3\n",
    );
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.25, 0.75, 0.5, 1.0]]])))
        .unwrap();
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        set(&st, b, "t1", [0.0, 0.0, 1.0, 0.0]);
        set(&st, b, "t2", [1.0, 1.0, 0.0, 0.0]);
        set(&st, b, "t3", [2.0, 0.0, 0.0, 0.0]);
    });
    assert_eq!(color(&b, 0, 0), [0.5, 1.0, 0.5, 1.0]);
}

#[test]
fn ps_1_x_texreg2_and_texdp3() {
    let cases = [
        // (a, r) = (0.25, 0.75): texel 2.
        (
            "ps_1_1\ntex t0\ntexreg2ar t1, t0\nmov r0, t1\n",
            [0.75, 0.0, 0.0, 0.25],
            2.0,
        ),
        // (g, b) = (0.75, 0.25): texel 1.
        (
            "ps_1_1\ntex t0\ntexreg2gb t1, t0\nmov r0, t1\n",
            [0.0, 0.75, 0.25, 0.0],
            1.0,
        ),
        // (r, g, b) = (0.75, 0.75, 0): texel 3.
        (
            "ps_1_2\ntex t0\ntexreg2rgb t1, t0\nmov r0, t1\n",
            [0.75, 0.75, 0.0, 0.0],
            3.0,
        ),
    ];
    for (src, texel, want) in cases {
        let mut st = state(src);
        st.set_texture(0, Some(tex2d(1, 1, &[vec![texel]])))
            .unwrap();
        st.set_texture(1, Some(numbered())).unwrap();
        let b = run(&st, |b| set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]));
        assert_eq!(color(&b, 0, 0), [want, 0.0, 0.0, 1.0], "{src}");
    }
    let mut st = state(
        "ps_1_2\n\
         tex t0\n\
         texdp3tex t1, t0\n\
         texdp3 t2, t0\n\
         mov r0, t1\n\
         mov r1, t2\n\
         add r0.a, r0.a, r1.b\n",
    );
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.5, 0.25, 1.0, 1.0]]])))
        .unwrap();
    let strip: Vec<[f32; 4]> = (0..4).map(|k| [k as f32, 0.0, 0.0, 0.0]).collect();
    st.set_texture(1, Some(tex2d(4, 1, &[strip]))).unwrap();
    let b = run(&st, |b| {
        set(&st, b, "t0", [0.5, 0.5, 0.0, 1.0]);
        // u = 0.5*0.5 + 1*0.25 + 0.125*1 = 0.625: texel 2.
        set(&st, b, "t1", [0.5, 1.0, 0.125, 0.0]);
        // t2 = 0.5 + 0 + 0.25 = 0.75 in every component.
        set(&st, b, "t2", [1.0, 0.0, 0.25, 0.0]);
    });
    assert_eq!(color(&b, 0, 0), [2.0, 0.0, 0.0, 0.75]);
}

#[test]
fn ps_1_4_bem_and_projected_stages() {
    let mut st = state(
        "ps_1_4\n\
         def c0, 0.5, 0.25, 0, 0\n\
         def c1, 0.5, -0.5, 0, 0\n\
         def c2, 0, 0, 0, 1\n\
         mov r0, c1\n\
         mov r1, c2\n\
         bem r1.rg, c0, r0\n\
         mov r0, r1\n",
    );
    st.set_stage(
        1,
        StageState {
            bump_env_mat: [1.0, 0.5, 0.0, 2.0],
            ..StageState::default()
        },
    )
    .unwrap();
    // r = 0.5 + 1*0.5 + 0*(-0.5) = 1; g = 0.25 + 0.5*0.5 + 2*(-0.5) = -0.5.
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [1.0, -0.5, 0.0, 1.0]);

    // ps_1_1 tex divides by w where the stage says D3DTTFF_PROJECTED.
    let mut st = state("ps_1_1\ntex t0\nmov r0, t0\n");
    st.set_texture(0, Some(numbered())).unwrap();
    let fill = |b: &mut PixelBatch| set(&st, b, "t0", [1.5, 0.5, 0.0, 2.0]);
    // Not projected: (1.5, 0.5) wraps to texel 3; projected: (0.75, 0.25) is texel 1.
    let b = run(&st, fill);
    assert_eq!(color(&b, 0, 0)[0], 3.0);
    st.set_stage(
        0,
        StageState {
            projected: true,
            ..StageState::default()
        },
    )
    .unwrap();
    let b = run(&st, |b| set(&st, b, "t0", [1.5, 0.5, 0.0, 2.0]));
    assert_eq!(color(&b, 0, 0)[0], 1.0);

    // ps_1_4 texld _dw divides by w.
    let mut st = state("ps_1_4\ntexld r0, t0_dw.xyw\n");
    st.set_texture(0, Some(numbered())).unwrap();
    let b = run(&st, |b| set(&st, b, "t0", [1.5, 0.5, 0.0, 2.0]));
    assert_eq!(color(&b, 0, 0)[0], 1.0);
}

#[test]
fn ps_1_4_phase_zeroes_the_alpha_of_temporaries() {
    let st = state(
        "ps_1_4\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         mov r1, c0\n\
         phase\n\
         mov r0, r1\n",
    );
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [0.25, 0.5, 0.75, 0.0]);
    // The same after phase 1 used source modifiers, whose scratch rows sit beside the zero
    // row the phase copies from (the alpha once read the second modified component: 0.6).
    let st = state(
        "ps_1_4\n\
         def c0, 0.25, 0.5, 0.75, 1\n\
         texcrd r2.xyz, t0\n\
         add r3, r2_bx2, r2_bx2\n\
         mov r1, c0\n\
         phase\n\
         mov r0, r1\n",
    );
    let b = run(&st, |b| set(&st, b, "t0", [0.9, 0.8, 0.7, 1.0]));
    assert_eq!(color(&b, 0, 0), [0.25, 0.5, 0.75, 0.0]);
}

#[test]
fn ps_1_1_texture_registers_start_as_their_coordinates() {
    let st = state("ps_1_1\nmov r0, t2\n");
    assert_eq!(st.inputs()[0].register, "t2");
    let b = run(&st, |b| set(&st, b, "t2", [2.0, -0.5, 0.25, 1.0]));
    // Unclamped (an unlimited PixelShader1xMaxValue).
    assert_eq!(color(&b, 0, 0), [2.0, -0.5, 0.25, 1.0]);
}

#[test]
fn shifts_on_texture_instructions() {
    // texdepth has no register result: the shift changes nothing.
    let st = state(
        "ps_1_4\n\
         def c0, 0.3, 0.6, 0, 1\n\
         mov r5, c0\n\
         texdepth_x2 r5\n\
         mov r0, c0\n",
    );
    let b = run(&st, |_| {});
    assert_eq!(b.depth[0], 0.5);
    // texbeml_x2 doubles the luminance-corrected texel.
    let mut st = state("ps_1_1\ntex t0\ntexbeml_x2 t1, t0\nmov r0, t1\n");
    st.set_texture(0, Some(tex2d(1, 1, &[vec![[0.0, 0.0, 1.0, 1.0]]])))
        .unwrap();
    st.set_texture(1, Some(tex2d(1, 1, &[vec![[0.25, 0.5, 0.125, 1.0]]])))
        .unwrap();
    st.set_stage(
        1,
        StageState {
            bump_env_lscale: 0.5,
            bump_env_loffset: 0.25,
            ..StageState::default()
        },
    )
    .unwrap();
    // Luminance 1 * 0.5 + 0.25 = 0.75, then x2: 1.5.
    let b = run(&st, |_| {});
    assert_eq!(color(&b, 0, 0), [0.375, 0.75, 0.1875, 1.5]);
}
