//! Vertex textures: formats, address modes, filters, mip selection, cube faces, and texldl in
//! the batched executor — against hand-computed texel values.

use crate::common::*;
use dxso_vm::{
    Format, SamplerState, Texture, TextureAddress as A, TextureFilter as F, TextureKind, sample,
};
use std::sync::Arc;

fn rgba(texels: &[[f32; 4]]) -> Vec<u8> {
    texels
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// A 4x1 2D texture whose texel i is (i, 10i, 0, 1).
fn row4() -> Texture {
    let t: Vec<[f32; 4]> = (0..4)
        .map(|i| [i as f32, 10.0 * i as f32, 0.0, 1.0])
        .collect();
    Texture::new(
        TextureKind::TwoD,
        Format::A32B32G32R32F,
        4,
        1,
        1,
        &[rgba(&t)],
    )
    .unwrap()
}

fn st(u: A) -> SamplerState {
    SamplerState {
        address_u: u,
        address_v: A::Clamp,
        ..SamplerState::default()
    }
}

fn red(tex: &Texture, s: &SamplerState, u: f32) -> f32 {
    sample(tex, s, [u, 0.5, 0.0, 0.0])[0]
}

#[test]
fn point_sampling_and_address_modes() {
    let t = row4();
    // Texel i covers [i/4, (i+1)/4).
    let s = st(A::Wrap);
    assert_eq!(
        [0.0, 0.24, 0.25, 0.99].map(|u| red(&t, &s, u)),
        [0.0, 0.0, 1.0, 3.0]
    );
    // WRAP: 1.1 -> texel 0, -0.1 -> texel 3.
    assert_eq!([1.1, -0.1, 2.6].map(|u| red(&t, &s, u)), [0.0, 3.0, 2.0]);
    // MIRROR: 1.1 -> 0.9 -> texel 3; -0.1 -> 0.1 -> texel 0; 1.6 -> 0.4 -> texel 1.
    let s = st(A::Mirror);
    assert_eq!([1.1, -0.1, 1.6].map(|u| red(&t, &s, u)), [3.0, 0.0, 1.0]);
    // CLAMP: edges.
    let s = st(A::Clamp);
    assert_eq!([1.5, -3.0].map(|u| red(&t, &s, u)), [3.0, 0.0]);
    // BORDER: the border colour (A8R8G8B8 0x80ff0000 -> (1, 0, 0, 0.50196)).
    let s = SamplerState {
        border_color: 0x80FF_0000,
        ..st(A::Border)
    };
    assert_eq!(
        sample(&t, &s, [1.2, 0.5, 0.0, 0.0]),
        [1.0, 0.0, 0.0, 128.0 / 255.0]
    );
    assert_eq!(red(&t, &s, 0.6), 2.0);
    // MIRRORONCE: |u| then clamp: -0.3 -> 0.3 -> texel 1; -2 -> 2 -> texel 3.
    let s = st(A::MirrorOnce);
    assert_eq!([-0.3, -2.0, 0.3].map(|u| red(&t, &s, u)), [1.0, 3.0, 1.0]);
}

#[test]
fn linear_filtering_blends_neighbours() {
    let t = row4();
    let s = SamplerState {
        mag_filter: F::Linear,
        ..st(A::Clamp)
    };
    // u = 0.25: u*4 - 0.5 = 0.5 -> halfway between texels 0 and 1.
    assert_eq!(sample(&t, &s, [0.25, 0.5, 0.0, 0.0]), [0.5, 5.0, 0.0, 1.0]);
    // u = 0.3125: 0.75 between 0 and 1.
    assert_eq!(red(&t, &s, 0.3125), 0.75);
    // At the clamped edge the neighbour is the edge texel itself.
    assert_eq!(red(&t, &s, 0.0), 0.0);
    // WRAP blends the last and the first texel: u = 0: -0.5 -> half of texel 3, half of 0.
    let s = SamplerState {
        mag_filter: F::Linear,
        ..st(A::Wrap)
    };
    assert_eq!(red(&t, &s, 0.0), 1.5);
    // A 2x2 bilinear lookup in the middle gives the average of all four.
    let tex = Texture::new(
        TextureKind::TwoD,
        Format::R32F,
        2,
        2,
        1,
        &[rgba(&[[0.0; 4]])[..0]
            .iter()
            .copied()
            .chain([0.0f32, 1.0, 2.0, 3.0].iter().flat_map(|x| x.to_le_bytes()))
            .collect()],
    )
    .unwrap();
    let s = SamplerState {
        mag_filter: F::Linear,
        address_u: A::Clamp,
        address_v: A::Clamp,
        ..SamplerState::default()
    };
    assert_eq!(sample(&tex, &s, [0.5, 0.5, 0.0, 0.0]), [1.5, 1.0, 1.0, 1.0]);
}

/// A 8x8 texture with 4 levels, level k filled with the value k.
fn mips() -> Texture {
    let levels: Vec<Vec<u8>> = (0..4)
        .map(|k| {
            let n = (8usize >> k) * (8usize >> k);
            (0..n).flat_map(|_| (k as f32).to_le_bytes()).collect()
        })
        .collect();
    Texture::new(TextureKind::TwoD, Format::R32F, 8, 8, 1, &levels).unwrap()
}

#[test]
fn mip_selection_lod_bias_and_max_mip_level() {
    let t = mips();
    let lod = |s: &SamplerState, w: f32| sample(&t, s, [0.5, 0.5, 0.0, w])[0];
    // MIPFILTER NONE: level 0 whatever the LOD and MAXMIPLEVEL.
    let none = SamplerState {
        max_mip_level: 2,
        ..SamplerState::default()
    };
    assert_eq!([-1.0, 0.0, 2.7, 10.0].map(|w| lod(&none, w)), [0.0; 4]);
    // POINT: nearest level, ties to the lower one: 0.5 -> 0, 0.6 -> 1, 1.4 -> 1, 2.5 -> 2.
    let point = SamplerState {
        mip_filter: F::Point,
        ..SamplerState::default()
    };
    assert_eq!(
        [0.5, 0.6, 1.4, 2.5, 9.0].map(|w| lod(&point, w)),
        [0.0, 1.0, 1.0, 2.0, 3.0]
    );
    // Negative LOD: the top level allowed (MAXMIPLEVEL).
    assert_eq!(lod(&point, -3.0), 0.0);
    // LINEAR: blends floor and ceil by frac: 1.25 -> 1.25, 2.5 -> 2.5, beyond the last -> 3.
    let linear = SamplerState {
        mip_filter: F::Linear,
        ..SamplerState::default()
    };
    assert_eq!([1.25, 2.5, 7.0].map(|w| lod(&linear, w)), [1.25, 2.5, 3.0]);
    // MIPMAPLODBIAS adds to src.w.
    let biased = SamplerState {
        mip_lod_bias: 1.5,
        ..linear
    };
    assert_eq!(lod(&biased, 0.25), 1.75);
    // MAXMIPLEVEL raises the LOD to at least that level: the spec's example with 2.
    let max2 = SamplerState {
        max_mip_level: 2,
        ..linear
    };
    assert_eq!([-1.0, 0.5, 2.25].map(|w| lod(&max2, w)), [2.0, 2.0, 2.25]);
    // MAXMIPLEVEL past the last level clamps to it.
    let max9 = SamplerState {
        max_mip_level: 9,
        ..point
    };
    assert_eq!(lod(&max9, -1.0), 3.0);
}

#[test]
fn magnification_and_minification_filters_follow_the_lod_sign() {
    let t = row4();
    let s = SamplerState {
        mag_filter: F::Linear,
        min_filter: F::Point,
        ..st(A::Clamp)
    };
    assert_eq!(sample(&t, &s, [0.25, 0.5, 0.0, -1.0])[0], 0.5); // LOD <= 0: MAG (linear)
    assert_eq!(sample(&t, &s, [0.25, 0.5, 0.0, 1.0])[0], 1.0); // LOD > 0: MIN (point)
}

#[test]
fn cube_faces() {
    // Face f filled with the value f (1x1 faces).
    let bytes: Vec<u8> = (0..6).flat_map(|f| (f as f32).to_le_bytes()).collect();
    let t = Texture::new(TextureKind::Cube, Format::R32F, 1, 1, 1, &[bytes]).unwrap();
    let s = SamplerState::default();
    let face = |x, y, z| sample(&t, &s, [x, y, z, 0.0])[0];
    assert_eq!(
        [
            face(1.0, 0.2, 0.3),
            face(-1.0, 0.2, 0.3),
            face(0.1, 2.0, 0.3),
            face(0.1, -2.0, 0.3),
            face(0.1, 0.2, 3.0),
            face(0.1, 0.2, -3.0)
        ],
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
    // Within +X (2x2 faces): u from -z, v from -y: (1, -0.5, -0.5) -> texel (1, 1) = 3.
    let bytes: Vec<u8> = (0..6 * 4)
        .flat_map(|i| ((i % 4) as f32).to_le_bytes())
        .collect();
    let t = Texture::new(TextureKind::Cube, Format::R32F, 2, 2, 1, &[bytes]).unwrap();
    assert_eq!(sample(&t, &s, [1.0, -0.5, -0.5, 0.0])[0], 3.0);
    assert_eq!(sample(&t, &s, [1.0, 0.5, 0.5, 0.0])[0], 0.0);
}

#[test]
fn volume_textures() {
    // 2x2x2, texel (x, y, z) = x + 2y + 4z.
    let bytes: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let t = Texture::new(TextureKind::Volume, Format::R32F, 2, 2, 2, &[bytes]).unwrap();
    let s = SamplerState::default();
    assert_eq!(sample(&t, &s, [0.75, 0.25, 0.75, 0.0])[0], 5.0);
    let s = SamplerState {
        mag_filter: F::Linear,
        address_u: A::Clamp,
        address_v: A::Clamp,
        address_w: A::Clamp,
        ..s
    };
    assert_eq!(sample(&t, &s, [0.5, 0.5, 0.5, 0.0])[0], 3.5);
}

#[test]
fn every_format_converts() {
    let one = |f: Format, b: &[u8]| {
        let t = Texture::new(TextureKind::TwoD, f, 1, 1, 1, &[b.to_vec()]).unwrap();
        sample(&t, &SamplerState::default(), [0.5, 0.5, 0.0, 0.0])
    };
    let fb = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    assert_eq!(
        one(Format::A32B32G32R32F, &fb(&[0.5, -2.0, 3.0, 4.0])),
        [0.5, -2.0, 3.0, 4.0]
    );
    assert_eq!(
        one(Format::G32R32F, &fb(&[0.5, -2.0])),
        [0.5, -2.0, 1.0, 1.0]
    );
    assert_eq!(one(Format::R32F, &fb(&[7.0])), [7.0, 1.0, 1.0, 1.0]);
    // Halves: 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800, 65504 = 0x7BFF.
    assert_eq!(
        one(
            Format::A16B16G16R16F,
            &[0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0xFF, 0x7B]
        ),
        [1.0, -2.0, 0.5, 65504.0]
    );
    assert_eq!(
        one(Format::G16R16F, &[0x00, 0x3C, 0x00, 0xC0]),
        [1.0, -2.0, 1.0, 1.0]
    );
    assert_eq!(one(Format::R16F, &[0x00, 0x38]), [0.5, 1.0, 1.0, 1.0]);
    let n8 = |x: u8| x as f32 / 255.0;
    // A8R8G8B8 bytes B, G, R, A.
    assert_eq!(
        one(Format::A8R8G8B8, &[0x10, 0x20, 0x30, 0x40]),
        [n8(0x30), n8(0x20), n8(0x10), n8(0x40)]
    );
    assert_eq!(
        one(Format::X8R8G8B8, &[0x10, 0x20, 0x30, 0x40]),
        [n8(0x30), n8(0x20), n8(0x10), 1.0]
    );
    assert_eq!(
        one(Format::A8B8G8R8, &[0x10, 0x20, 0x30, 0x40]),
        [n8(0x10), n8(0x20), n8(0x30), n8(0x40)]
    );
    // A2R10G10B10: B = bits 0-9 (1023), G = 10-19 (0), R = 20-29 (512), A = 30-31 (1).
    let d: u32 = 1023 | 512 << 20 | 1 << 30;
    assert_eq!(
        one(Format::A2R10G10B10, &d.to_le_bytes()),
        [512.0 / 1023.0, 0.0, 1.0, 1.0 / 3.0]
    );
    assert_eq!(
        one(Format::A2B10G10R10, &d.to_le_bytes()),
        [1.0, 0.0, 512.0 / 1023.0, 1.0 / 3.0]
    );
    assert_eq!(
        one(Format::G16R16, &[0xFF, 0xFF, 0x00, 0x80]),
        [1.0, 32768.0 / 65535.0, 1.0, 1.0]
    );
    assert_eq!(
        one(
            Format::A16B16G16R16,
            &[0xFF, 0xFF, 0, 0, 0x00, 0x80, 0xFF, 0xFF]
        ),
        [1.0, 0.0, 32768.0 / 65535.0, 1.0]
    );
    // R5G6B5: R = 31 (bits 11-15), G = 32 (bits 5-10), B = 0.
    let w: u16 = 31 << 11 | 32 << 5;
    assert_eq!(
        one(Format::R5G6B5, &w.to_le_bytes()),
        [1.0, 32.0 / 63.0, 0.0, 1.0]
    );
    let w: u16 = 1 << 15 | 16 << 10 | 31;
    assert_eq!(
        one(Format::A1R5G5B5, &w.to_le_bytes()),
        [16.0 / 31.0, 0.0, 1.0, 1.0]
    );
    let w: u16 = 0xF << 12 | 0x8 << 8 | 0x4 << 4;
    assert_eq!(
        one(Format::A4R4G4B4, &w.to_le_bytes()),
        [8.0 / 15.0, 4.0 / 15.0, 0.0, 1.0]
    );
    assert_eq!(
        one(Format::L8, &[0x80]),
        [n8(0x80), n8(0x80), n8(0x80), 1.0]
    );
    assert_eq!(
        one(Format::A8L8, &[0x80, 0x40]),
        [n8(0x80), n8(0x80), n8(0x80), n8(0x40)]
    );
    assert_eq!(one(Format::A8, &[0x80]), [0.0, 0.0, 0.0, n8(0x80)]);
    assert_eq!(one(Format::L16, &[0xFF, 0xFF]), [1.0, 1.0, 1.0, 1.0]);
    for f in Format::ALL {
        assert_eq!(
            dxso_vm::check_vertex_texture_format(f.name()),
            Format::VERTEX.contains(&f)
        );
    }
    assert!(!dxso_vm::check_vertex_texture_format("DXT1"));
}

#[test]
fn bad_textures_and_sampler_states_are_errors() {
    assert!(Texture::new(TextureKind::TwoD, Format::R32F, 2, 2, 1, &[vec![0; 12]]).is_err());
    assert!(Texture::new(TextureKind::TwoD, Format::R32F, 0, 2, 1, &[vec![]]).is_err());
    assert!(Texture::new(TextureKind::Cube, Format::R32F, 2, 1, 1, &[vec![0; 48]]).is_err());
    assert!(
        Texture::new(
            TextureKind::TwoD,
            Format::R32F,
            1,
            1,
            1,
            &[vec![0; 4], vec![0; 4]]
        )
        .is_err()
    );
    let mut dev = dxso_vm::Device::new();
    let aniso = SamplerState {
        min_filter: F::Anisotropic,
        ..SamplerState::default()
    };
    // Typed errors a caller can act on, with the messages they had as strings.
    use dxso_vm::{SamplerError as E, UnsupportedFilter as U, VmError};
    let e = dev.set_sampler_state(0, aniso).unwrap_err();
    assert_eq!(
        e,
        VmError::Sampler(E::Unsupported {
            sampler: 0,
            filter: U::Vertex {
                state: "MINFILTER",
                filter: F::Anisotropic
            }
        })
    );
    assert_eq!(
        e.to_string(),
        "sampler s0: MINFILTER Anisotropic is not supported by vertex samplers \
         (VertexTextureFilterCaps has point and linear)"
    );
    let e = dev
        .set_sampler_state(4, SamplerState::default())
        .unwrap_err();
    assert_eq!(e, VmError::Sampler(E::NotVertexSampler(4)));
    assert_eq!(e.to_string(), "sampler s4: vertex samplers are s0..s3");
    assert_eq!(dxso_vm::VERTEX_TEXTURE_FILTER_CAPS, 0x0303_0300);
}

#[test]
fn texldl_in_the_batched_executor_each_lane_its_own_lod() {
    let src = format!("{VS3}dcl_2d s0\nmov o0, v0\ntexldl r0, v0, s0\nmov o1, r0\n");
    // Lane i samples u = (i % 8 + 0.5) / 8 at LOD (i % 4) - 0.5 with linear mips.
    let v: Vec<[f32; 4]> = (0..64)
        .map(|i| [((i % 8) as f32 + 0.5) / 8.0, 0.5, 0.0, (i % 4) as f32 - 0.5])
        .collect();
    let mut dev = device(&src, std::slice::from_ref(&v));
    let mut levels = Vec::new();
    for k in 0..4 {
        let n = 8usize >> k;
        levels.push(
            (0..n * n)
                .flat_map(|t| ((k * 100 + t % n) as f32).to_le_bytes())
                .collect::<Vec<u8>>(),
        );
    }
    let tex = Texture::new(TextureKind::TwoD, Format::R32F, 8, 8, 1, &levels).unwrap();
    dev.set_texture(0, Some(Arc::new(tex.clone()))).unwrap();
    let state = SamplerState {
        mip_filter: F::Linear,
        ..SamplerState::default()
    };
    dev.set_sampler_state(0, state).unwrap();
    // Both code generators of the compiled tier and the interpreter.
    for way in WAYS {
        let out = split(&draw_way(&mut dev, way, 64, true));
        for (i, o) in out.iter().enumerate() {
            assert_eq!(o[1], sample(&tex, &state, v[i]), "{way:?} vertex {i}");
        }
        // Hand-computed: lane 1 (u = 1.5/8, LOD 0.5): level 0 texel 1 (1) and level 1
        // texel 0 (100).
        assert_eq!(out[1][1][0], 0.5 * 1.0 + 0.5 * 100.0);
    }
    set_way(&mut dev, WAYS[0]);
    // No texture: (0, 0, 0, 1).
    dev.set_texture(0, None).unwrap();
    assert_eq!(split(&dev.draw(1, 1).unwrap())[0][1], [0.0, 0.0, 0.0, 1.0]);
    // A texture of the wrong kind is an error.
    let cube = Texture::new(TextureKind::Cube, Format::R32F, 1, 1, 1, &[vec![0; 24]]).unwrap();
    dev.set_texture(0, Some(Arc::new(cube))).unwrap();
    assert!(dev.draw(1, 1).is_err());
}
