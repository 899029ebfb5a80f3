//! The pixel formats, DXTn blocks, `encode_level`, and the pixel sampler states, against
//! hand-computed values.

use super::*;
use std::sync::Arc;

/// The one texel of a 1x1 texture of `format` stored as `bytes`.
fn one(format: Format, bytes: &[u8]) -> [f32; 4] {
    let t = Texture::new(TextureKind::TwoD, format, 1, 1, 1, &[bytes.to_vec()]).unwrap();
    t.level(0).unwrap().3[0]
}

fn word(w: u16) -> Vec<u8> {
    w.to_le_bytes().to_vec()
}

fn dword(d: u32) -> Vec<u8> {
    d.to_le_bytes().to_vec()
}

#[test]
fn names_lists_and_the_vertex_restriction() {
    for f in Format::ALL {
        assert_eq!(Format::from_name(f.name()), Some(f));
        assert_eq!(
            Format::from_name(&format!("D3DFMT_{}", f.name().to_lowercase())),
            Some(f)
        );
    }
    assert_eq!(Format::VERTEX[..], Format::ALL[..20]);
    let pixel: Vec<Format> = Format::ALL.into_iter().filter(|f| f.pixel_only()).collect();
    assert_eq!(pixel.len(), 17);
    assert!(!Format::A8R8G8B8.pixel_only() && Format::V8U8.pixel_only());
    // The vertex format query still refuses the pixel-only formats.
    assert!(check_vertex_texture_format("A8R8G8B8"));
    assert!(!check_vertex_texture_format("V8U8"));
    assert!(!check_vertex_texture_format("D3DFMT_DXT5"));
    assert!(!check_vertex_texture_format("A4L4"));
    assert!(!check_vertex_texture_format("YUY2"));
    // So does the vertex device.
    let mut dev = crate::Device::new();
    let v8u8 = Texture::new(TextureKind::TwoD, Format::V8U8, 1, 1, 1, &[vec![0, 0]]).unwrap();
    let err = dev.set_texture(0, Some(Arc::new(v8u8))).unwrap_err();
    assert!(
        err.to_string()
            .contains("V8U8 is not a vertex texture format")
    );
    let l8 = Texture::new(TextureKind::TwoD, Format::L8, 1, 1, 1, &[vec![0]]).unwrap();
    assert!(dev.set_texture(0, Some(Arc::new(l8))).is_ok());
}

#[test]
fn signed_formats_clamp_the_most_negative_value_to_minus_one() {
    // V8U8: (U, V, 1, 1); -128 and -127 both -1.0, 127 is 1.0.
    assert_eq!(one(Format::V8U8, &[0x80, 0x81]), [-1.0, -1.0, 1.0, 1.0]);
    assert_eq!(one(Format::V8U8, &[0x7F, 0x00]), [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(
        one(Format::V8U8, &[0xFF, 0x40]),
        [-1.0 / 127.0, 64.0 / 127.0, 1.0, 1.0]
    );
    // L6V5U5: U bits 0-4, V bits 5-9 (signed 5-bit: -16 and -15 are -1, 15 is 1), L bits
    // 10-15 (unsigned 6-bit) -> (U, V, L, 1).
    let w = 0b10000 | 0b01111 << 5 | 63 << 10;
    assert_eq!(one(Format::L6V5U5, &word(w)), [-1.0, 1.0, 1.0, 1.0]);
    let w = 0b10001 | 0b11111 << 5 | 32 << 10;
    assert_eq!(
        one(Format::L6V5U5, &word(w)),
        [-1.0, -1.0 / 15.0, 32.0 / 63.0, 1.0]
    );
    // X8L8V8U8: stored U, V, L, X -> (U, V, L, 1).
    assert_eq!(
        one(Format::X8L8V8U8, &[0x81, 0x7F, 0x80, 0x12]),
        [-1.0, 1.0, 128.0 / 255.0, 1.0]
    );
    // Q8W8V8U8: (U, V, W, Q).
    assert_eq!(
        one(Format::Q8W8V8U8, &[0x80, 0x81, 0x7F, 0xC0]),
        [-1.0, -1.0, 1.0, -64.0 / 127.0]
    );
    // V16U16: -32768 and -32767 are -1.0, 32767 is 1.0.
    assert_eq!(
        one(Format::V16U16, &[0x00, 0x80, 0xFF, 0x7F]),
        [-1.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(
        one(Format::V16U16, &[0x01, 0x80, 0xFF, 0xFF]),
        [-1.0, -1.0 / 32767.0, 1.0, 1.0]
    );
    // A2W10V10U10: U -512 -> -1, V 511 -> 1, W -511 -> -1, A 2 -> 2/3.
    let d = 0x200 | 511 << 10 | 0x201 << 20 | 2 << 30;
    assert_eq!(
        one(Format::A2W10V10U10, &dword(d)),
        [-1.0, 1.0, -1.0, 2.0 / 3.0]
    );
    let d = 0x3FF | 1 << 10 | 256 << 20;
    assert_eq!(
        one(Format::A2W10V10U10, &dword(d)),
        [-1.0 / 511.0, 1.0 / 511.0, 256.0 / 511.0, 0.0]
    );
    // Q16W16V16U16.
    let b: Vec<u8> = [-32768i16, 32767, -32767, 16384]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(
        one(Format::Q16W16V16U16, &b),
        [-1.0, 1.0, -1.0, 16384.0 / 32767.0]
    );
}

#[test]
fn small_packed_formats() {
    // X1R5G5B5: the top bit is ignored, alpha reads 1.
    let w = 1 << 15 | 31 << 10 | 16;
    assert_eq!(
        one(Format::X1R5G5B5, &word(w)),
        [1.0, 0.0, 16.0 / 31.0, 1.0]
    );
    assert_eq!(
        one(Format::X1R5G5B5, &word(w & 0x7FFF)),
        [1.0, 0.0, 16.0 / 31.0, 1.0]
    );
    // X4R4G4B4.
    assert_eq!(
        one(Format::X4R4G4B4, &word(0xAF84)),
        [1.0, 8.0 / 15.0, 4.0 / 15.0, 1.0]
    );
    // R3G3B2: 111 010 01.
    assert_eq!(
        one(Format::R3G3B2, &[0b111 << 5 | 0b010 << 2 | 0b01]),
        [1.0, 2.0 / 7.0, 1.0 / 3.0, 1.0]
    );
    // A8R3G3B2: A 0x80, R 0, G 7, B 2.
    assert_eq!(
        one(Format::A8R3G3B2, &word(0x80 << 8 | 0b111 << 2 | 0b10)),
        [0.0, 1.0, 2.0 / 3.0, 128.0 / 255.0]
    );
    // A4L4: A high nibble, L low nibble -> (L, L, L, A).
    let l = 12.0 / 15.0;
    assert_eq!(one(Format::A4L4, &[0x3C]), [l, l, l, 3.0 / 15.0]);
}

/// A DXT1 colour block.
fn colour(c0: u16, c1: u16, indices: u32) -> Vec<u8> {
    let mut b = c0.to_le_bytes().to_vec();
    b.extend(c1.to_le_bytes());
    b.extend(indices.to_le_bytes());
    b
}

/// All 16 texels of one 4x4 block texture.
fn block(format: Format, bytes: Vec<u8>) -> Vec<[f32; 4]> {
    let t = Texture::new(TextureKind::TwoD, format, 4, 4, 1, &[bytes]).unwrap();
    t.level(0).unwrap().3.to_vec()
}

const RED: u16 = 0xF800;
const BLUE: u16 = 0x001F;

#[test]
fn dxt1_four_colours_and_three_colours_with_transparent_black() {
    let (third, two_thirds) = (1.0 / 3.0, 2.0 / 3.0);
    // colour0 > colour1: texels 0..3 take indices 0, 1, 2, 3; the rest index 0.
    let t = block(Format::DXT1, colour(RED, BLUE, 0b11_10_01_00));
    assert_eq!(t[0], [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[1], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(t[2], [two_thirds, 0.0, third, 1.0]);
    assert_eq!(t[3], [third, 0.0, two_thirds, 1.0]);
    assert_eq!(t[15], [1.0, 0.0, 0.0, 1.0]);
    // colour0 <= colour1: index 2 is the mean, index 3 transparent black.
    let t = block(Format::DXT1, colour(BLUE, RED, 0b01_00_11_10));
    assert_eq!(t[0], [0.5, 0.0, 0.5, 1.0]);
    assert_eq!(t[1], [0.0, 0.0, 0.0, 0.0]);
    assert_eq!(t[2], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(t[3], [1.0, 0.0, 0.0, 1.0]);
    // Equal colours are the 3-colour mode too.
    assert_eq!(block(Format::DXT1, colour(RED, RED, 3))[0], [0.0; 4]);
    // A 6-bit green: (2·63 + 1) / (3·63); texel 5 (row 1, column 1) at bits 10-11.
    let t = block(Format::DXT1, colour(0x07E0, 0x0020, 2 << 10));
    assert_eq!(t[5], [0.0, 127.0 / 189.0, 0.0, 1.0]);
    assert_eq!(t[4], [0.0, 1.0, 0.0, 1.0]);
}

#[test]
fn dxt3_alpha_nibbles_and_four_colour_mode_always() {
    // Alpha: texel 0 = 0, texel 1 = 1, texel 2 = 0, texel 3 = 15, texel 15 = 7.
    let mut b = vec![0x10, 0xF0, 0, 0, 0, 0, 0, 0x70];
    // colour0 <= colour1 still interpolates (no transparent black): texel 4 index 3.
    b.extend(colour(0x0000, 0xFFFF, 3 << 8));
    for format in [Format::DXT2, Format::DXT3] {
        let t = block(format, b.clone());
        assert_eq!(t[0], [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(t[1], [0.0, 0.0, 0.0, 1.0 / 15.0]);
        assert_eq!(t[3], [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(t[15], [0.0, 0.0, 0.0, 7.0 / 15.0]);
        let c = 2.0 / 3.0;
        assert_eq!(t[4], [c, c, c, 0.0]);
    }
}

#[test]
fn dxt5_eight_and_six_alpha_modes() {
    let white = colour(0xFFFF, 0xFFFF, 0);
    // alpha0 = 200 > alpha1 = 100: texels 0..3 take indices 0, 1, 2, 7.
    let idx: u64 = 1 << 3 | 2 << 6 | 7 << 9;
    let mut b = vec![200, 100];
    b.extend(&idx.to_le_bytes()[..6]);
    b.extend(&white);
    for format in [Format::DXT4, Format::DXT5] {
        let t = block(format, b.clone());
        let a: Vec<f32> = t[..4].iter().map(|t| t[3]).collect();
        assert_eq!(
            a,
            [
                200.0 / 255.0,
                100.0 / 255.0,
                (6 * 200 + 100) as f32 / 1785.0,
                (200 + 6 * 100) as f32 / 1785.0
            ]
        );
        assert_eq!(t[0][..3], [1.0, 1.0, 1.0]);
    }
    // alpha0 = 100 <= alpha1 = 200: indices 2, 5, 6, 7; texel 15 index 1 (bits 45-47).
    let idx: u64 = 2 | 5 << 3 | 6 << 6 | 7 << 9 | 1 << 45;
    let mut b = vec![100, 200];
    b.extend(&idx.to_le_bytes()[..6]);
    b.extend(&white);
    let t = block(Format::DXT5, b);
    let a: Vec<f32> = t.iter().map(|t| t[3]).collect();
    assert_eq!(
        a[..4],
        [
            (4 * 100 + 200) as f32 / 1275.0,
            (100 + 4 * 200) as f32 / 1275.0,
            0.0,
            1.0
        ]
    );
    assert_eq!(a[15], 200.0 / 255.0);
    assert_eq!(a[14], 100.0 / 255.0);
}

#[test]
fn dxt_levels_need_not_be_multiples_of_four() {
    // 6x5: 2x2 blocks, then 3x2 and 1x1 (one block each).
    assert_eq!(Format::DXT1.surface_bytes(6, 5, 1), 32);
    assert_eq!(Format::DXT5.surface_bytes(6, 5, 1), 64);
    assert_eq!(Format::DXT1.surface_bytes(3, 2, 1), 8);
    assert_eq!(Format::DXT3.surface_bytes(1, 1, 1), 16);
    // Block k of level 0 is one colour: red, blue, green, white.
    let colours = [RED, BLUE, 0x07E0, 0xFFFF];
    let level0: Vec<u8> = colours.iter().flat_map(|&c| colour(c, c, 0)).collect();
    let levels = vec![level0, colour(BLUE, BLUE, 0), colour(RED, RED, 0)];
    let t = Texture::new(TextureKind::TwoD, Format::DXT1, 6, 5, 1, &levels).unwrap();
    let sizes: Vec<_> = (0..t.levels())
        .map(|k| {
            let (w, h, d, texels) = t.level(k).unwrap();
            (w, h, d, texels.len())
        })
        .collect();
    assert_eq!(sizes, [(6, 5, 1, 30), (3, 2, 1, 6), (1, 1, 1, 1)]);
    let texels = t.level(0).unwrap().3;
    assert_eq!(texels[0], [1.0, 0.0, 0.0, 1.0]); // (0, 0): block 0
    assert_eq!(texels[5], [0.0, 0.0, 1.0, 1.0]); // (5, 0): block 1
    assert_eq!(texels[4 * 6], [0.0, 1.0, 0.0, 1.0]); // (0, 4): block 2
    assert_eq!(texels[4 * 6 + 5], [1.0; 4]); // (5, 4): block 3
    // A level of the wrong size says how many bytes it needs.
    let mut short = levels.clone();
    short[0].truncate(24);
    assert_eq!(
        Texture::new(TextureKind::TwoD, Format::DXT1, 6, 5, 1, &short),
        Err(TextureError::LevelSize {
            level: 0,
            got: 24,
            want: 32,
            width: 6,
            height: 5,
            depth: 1,
            faces: ""
        })
    );
    // Cube faces and volume slices are blocks one after another.
    let cube: Vec<u8> = (0..6).flat_map(|_| colour(RED, RED, 0)).collect();
    assert!(Texture::new(TextureKind::Cube, Format::DXT1, 2, 2, 1, &[cube]).is_ok());
    let slices: Vec<u8> = [RED, BLUE].iter().flat_map(|&c| colour(c, c, 0)).collect();
    let v = Texture::new(TextureKind::Volume, Format::DXT1, 2, 2, 2, &[slices]).unwrap();
    assert_eq!(v.level(0).unwrap().3[4], [0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn encode_level_reads_numbers_as_memory_holds_them() {
    let two_d = TextureKind::TwoD;
    // V8U8: -1 is 255, -128 is 128.
    let b = encode_level(two_d, Format::V8U8, 2, 1, 1, &[255.0, 128.0, 127.0, 0.0]).unwrap();
    assert_eq!(b, [255, 128, 127, 0]);
    let t = Texture::new(two_d, Format::V8U8, 2, 1, 1, &[b]).unwrap();
    assert_eq!(
        t.level(0).unwrap().3,
        [[-1.0 / 127.0, -1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]]
    );
    // 16-bit channels, packed texels of 1, 2 and 4 bytes, floats.
    assert_eq!(
        encode_level(two_d, Format::V16U16, 1, 1, 1, &[65535.0, 1.0]).unwrap(),
        [0xFF, 0xFF, 1, 0]
    );
    assert_eq!(
        encode_level(two_d, Format::R3G3B2, 1, 1, 1, &[255.0]).unwrap(),
        [255]
    );
    assert_eq!(
        encode_level(two_d, Format::L6V5U5, 1, 1, 1, &[0xFDF0 as f64]).unwrap(),
        [0xF0, 0xFD]
    );
    assert_eq!(
        encode_level(two_d, Format::A2W10V10U10, 1, 1, 1, &[4294967295.0]).unwrap(),
        [0xFF; 4]
    );
    assert_eq!(
        encode_level(two_d, Format::R16F, 1, 1, 1, &[1.0]).unwrap(),
        [0x00, 0x3C]
    );
    assert_eq!(
        encode_level(two_d, Format::R32F, 1, 1, 1, &[-2.5]).unwrap(),
        (-2.5f32).to_le_bytes()
    );
    // DXTn: the blocks' bytes; a 6x5 DXT1 level is four blocks of 8.
    let bytes: Vec<f64> = (0..32).map(|i| i as f64).collect();
    assert_eq!(
        encode_level(two_d, Format::DXT1, 6, 5, 1, &bytes).unwrap(),
        (0..32).collect::<Vec<u8>>()
    );
    // A cube level holds six faces.
    assert_eq!(
        encode_level(TextureKind::Cube, Format::A8L8, 1, 1, 1, &[0.0; 12])
            .unwrap()
            .len(),
        12
    );
}

#[test]
fn encode_level_errors_say_what_was_expected() {
    let two_d = TextureKind::TwoD;
    let e = encode_level(two_d, Format::V8U8, 2, 2, 1, &[0.0; 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "3 numbers, 8 expected for a 2x2x1 V8U8 level (2 for a texel)"
    );
    let e = encode_level(two_d, Format::DXT1, 6, 5, 1, &[0.0; 31]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "31 numbers, 32 expected for a 6x5x1 DXT1 level (8 for a 4x4 block)"
    );
    let e = encode_level(TextureKind::Cube, Format::L8, 1, 1, 1, &[0.0]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("1 numbers, 6 expected for a 1x1x1 x 6 faces L8")
    );
    let e = encode_level(two_d, Format::V8U8, 1, 1, 1, &[0.0, -1.0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "number 1 (-1): V8U8 stores an integer 0..=255 (one 8-bit channel, a signed one in two's complement: -1 is 255)"
    );
    for (format, bad) in [
        (Format::V8U8, 256.0),
        (Format::V8U8, 1.5),
        (Format::V8U8, f64::NAN),
        (Format::Q16W16V16U16, 65536.0),
        (Format::A4L4, 256.0),
        (Format::X1R5G5B5, 65536.0),
        (Format::A2W10V10U10, 4294967296.0),
        (Format::DXT5, 256.0),
        (Format::A8R8G8B8, -0.5),
    ] {
        let n = format.storage();
        let per = match n {
            Storage::Unorm { n, .. } | Storage::Signed { n, .. } => n as usize,
            Storage::Blocks { bytes } => bytes as usize,
            _ => 1,
        };
        let mut numbers = vec![0.0; per];
        numbers[per - 1] = bad;
        assert!(
            matches!(
                encode_level(two_d, format, 1, 1, 1, &numbers),
                Err(TextureError::LevelNumber { index, .. }) if index == per - 1
            ),
            "{format:?} {bad}"
        );
    }
    assert_eq!(
        encode_level(two_d, Format::L8, 0, 1, 1, &[]),
        Err(TextureError::Size(0, 1, 1))
    );
}

/// A 4x1 L8 texture: 0, 1/3, 2/3, 1.
fn ramp() -> Texture {
    Texture::new(
        TextureKind::TwoD,
        Format::L8,
        4,
        1,
        1,
        &[vec![0, 85, 170, 255]],
    )
    .unwrap()
}

fn lum(t: [f32; 4]) -> f32 {
    t[0]
}

#[test]
fn border_and_mirror_once() {
    let t = ramp();
    // BORDER + LINEAR at u = 1: halfway between texel 3 (1, 1, 1, 1) and the border
    // (0xFF00FF00: green).
    let st = SamplerState {
        address_u: TextureAddress::Border,
        address_v: TextureAddress::Clamp,
        border_color: 0xFF00_FF00,
        mag_filter: TextureFilter::Linear,
        ..SamplerState::default()
    };
    assert_eq!(sample(&t, &st, [1.0, 0.5, 0.0, 0.0]), [0.5, 1.0, 0.5, 1.0]);
    // POINT at u = -0.01: the border itself.
    let point = SamplerState {
        mag_filter: TextureFilter::Point,
        ..st
    };
    assert_eq!(
        sample(&t, &point, [-0.01, 0.5, 0.0, 0.0]),
        [0.0, 1.0, 0.0, 1.0]
    );
    // MIRRORONCE = |u| then clamp. POINT: -0.3 -> 0.3 (texel 1), -3 -> 3 (texel 3), 1.7
    // clamps (texel 3; MIRROR would give texel 1).
    let mo = SamplerState {
        address_u: TextureAddress::MirrorOnce,
        address_v: TextureAddress::Clamp,
        ..SamplerState::default()
    };
    let at = |s: &SamplerState, u: f32| lum(sample(&t, s, [u, 0.5, 0.0, 0.0]));
    assert_eq!(
        [-0.3, -3.0, 1.7].map(|u| at(&mo, u)),
        [85.0 / 255.0, 1.0, 1.0]
    );
    // LINEAR at u = -0.25 is LINEAR at 0.25: texel 0 and 1 half and half.
    let mo_lin = SamplerState {
        mag_filter: TextureFilter::Linear,
        ..mo
    };
    assert_eq!(at(&mo_lin, -0.25), 0.5 * (85.0f32 / 255.0));
    assert_eq!(at(&mo_lin, -0.25), at(&mo_lin, 0.25));
    assert_eq!(at(&mo_lin, -0.3), at(&mo_lin, 0.3));
}

#[test]
fn address_w_addresses_volume_slices() {
    // A 1x1x2 R32F volume: slice 0 = 1, slice 1 = 2.
    let b: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let t = Texture::new(TextureKind::Volume, Format::R32F, 1, 1, 2, &[b]).unwrap();
    let st = |w: TextureAddress| SamplerState {
        address_u: TextureAddress::Border,
        address_v: TextureAddress::Border,
        address_w: w,
        border_color: 0xFF00_00FF,
        ..SamplerState::default()
    };
    let z = |s: SamplerState, z: f32| sample(&t, &s, [0.5, 0.5, z, 0.0]);
    assert_eq!(z(st(TextureAddress::Border), 1.5), [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(z(st(TextureAddress::Border), 0.75), [2.0, 1.0, 1.0, 1.0]);
    assert_eq!(z(st(TextureAddress::Clamp), 1.5), [2.0, 1.0, 1.0, 1.0]);
    assert_eq!(z(st(TextureAddress::Wrap), 1.25), [1.0, 1.0, 1.0, 1.0]);
    assert_eq!(
        z(st(TextureAddress::MirrorOnce), -0.75),
        [2.0, 1.0, 1.0, 1.0]
    );
}

#[test]
fn srgb_reads_convert_colour_before_filtering_never_alpha() {
    // The curve: 0x80 -> 0.2158605 (f32 of ((128/255 + 0.055) / 1.055)^2.4).
    let c = 128.0f32 / 255.0;
    assert_eq!(srgb_to_linear(c), ((c + 0.055) / 1.055).powf(2.4));
    assert!((srgb_to_linear(c) - 0.215_860_5).abs() < 1e-7);
    assert_eq!(srgb_to_linear(0.04045), 0.04045 / 12.92);
    assert_eq!(srgb_to_linear(0.0), 0.0);
    assert_eq!(srgb_to_linear(1.0), 1.0);
    let srgb = SamplerState {
        srgb_texture: true,
        ..SamplerState::default()
    };
    // A8R8G8B8 stored B, G, R, A = 0x80, 0, 0xFF, 0x80: alpha stays 128/255.
    let t = Texture::new(
        TextureKind::TwoD,
        Format::A8R8G8B8,
        1,
        1,
        1,
        &[vec![0x80, 0, 0xFF, 0x80]],
    )
    .unwrap();
    assert_eq!(
        sample(&t, &srgb, [0.5, 0.5, 0.0, 0.0]),
        [1.0, 0.0, srgb_to_linear(c), c]
    );
    // Before filtering: halfway between L8 0 and 255 is 0.5 (after would be 0.214).
    let t = Texture::new(TextureKind::TwoD, Format::L8, 2, 1, 1, &[vec![0, 255]]).unwrap();
    let lin = SamplerState {
        mag_filter: TextureFilter::Linear,
        address_u: TextureAddress::Clamp,
        ..srgb
    };
    assert_eq!(sample(&t, &lin, [0.5, 0.5, 0.0, 0.0]), [0.5, 0.5, 0.5, 1.0]);
    // Formats without sRGB reads ignore the state; the border colour is not converted.
    for (format, bytes) in [
        (Format::V8U8, vec![0x40, 0x40]),
        (Format::R32F, 0.5f32.to_le_bytes().to_vec()),
        (Format::A16B16G16R16, vec![0x80; 8]),
    ] {
        let t = Texture::new(
            TextureKind::TwoD,
            format,
            1,
            1,
            1,
            std::slice::from_ref(&bytes),
        )
        .unwrap();
        assert_eq!(
            sample(&t, &srgb, [0.5, 0.5, 0.0, 0.0]),
            sample(&t, &SamplerState::default(), [0.5, 0.5, 0.0, 0.0]),
            "{format:?}"
        );
    }
    let border = SamplerState {
        address_u: TextureAddress::Border,
        border_color: 0x8080_8080,
        ..srgb
    };
    assert_eq!(sample(&t, &border, [1.5, 0.5, 0.0, 0.0]), [c; 4]);
    // DXT1 is sRGB-read: a red/blue block's 2/3 red.
    let t = Texture::new(
        TextureKind::TwoD,
        Format::DXT1,
        4,
        4,
        1,
        &[colour(RED, BLUE, 2)],
    )
    .unwrap();
    assert_eq!(
        sample(&t, &srgb, [0.1, 0.1, 0.0, 0.0]),
        [
            srgb_to_linear(2.0 / 3.0),
            0.0,
            srgb_to_linear(1.0 / 3.0),
            1.0
        ]
    );
}

#[test]
fn anisotropic_samples_as_linear() {
    let t = ramp();
    for u in [0.1, 0.3, 0.55, 0.9] {
        let lin = SamplerState {
            mag_filter: TextureFilter::Linear,
            min_filter: TextureFilter::Linear,
            ..SamplerState::default()
        };
        let aniso = SamplerState {
            mag_filter: TextureFilter::Anisotropic,
            min_filter: TextureFilter::Anisotropic,
            max_anisotropy: 16,
            ..SamplerState::default()
        };
        for lod in [-1.0, 1.0] {
            assert_eq!(
                sample(&t, &aniso, [u, 0.5, 0.0, lod]),
                sample(&t, &lin, [u, 0.5, 0.0, lod])
            );
        }
    }
    // u = 0.3125: 0.75 of the way from texel 0 to texel 1.
    let aniso = SamplerState {
        mag_filter: TextureFilter::Anisotropic,
        address_u: TextureAddress::Clamp,
        ..SamplerState::default()
    };
    assert_eq!(
        lum(sample(&t, &aniso, [0.3125, 0.5, 0.0, 0.0])),
        0.75 * (85.0f32 / 255.0)
    );
}

#[test]
fn vertex_and_pixel_sampler_checks() {
    use TextureFilter as F;
    let with = |mag, min, mip, srgb| SamplerState {
        mag_filter: mag,
        min_filter: min,
        mip_filter: mip,
        srgb_texture: srgb,
        ..SamplerState::default()
    };
    // Vertex samplers: unchanged, and no sRGB.
    assert!(with(F::Linear, F::Point, F::Linear, false).check().is_ok());
    assert!(
        with(F::Anisotropic, F::Point, F::None, false)
            .check()
            .is_err()
    );
    assert!(with(F::Point, F::Point, F::None, true).check().is_err());
    // Pixel samplers: anisotropic, any MAXANISOTROPY, sRGB.
    assert!(
        with(F::Anisotropic, F::Anisotropic, F::Linear, true)
            .check_pixel()
            .is_ok()
    );
    for n in [0, 1, 16, 99] {
        let s = SamplerState {
            max_anisotropy: n,
            ..SamplerState::default()
        };
        assert!(s.check_pixel().is_ok());
    }
    assert!(
        with(F::PyramidalQuad, F::Point, F::None, false)
            .check_pixel()
            .is_err()
    );
    assert!(
        with(F::Point, F::None, F::None, false)
            .check_pixel()
            .is_err()
    );
    assert!(
        with(F::Point, F::Point, F::Anisotropic, false)
            .check_pixel()
            .is_err()
    );
    assert_eq!(PIXEL_TEXTURE_FILTER_CAPS, 0x0703_0700);
    assert_eq!(VERTEX_TEXTURE_FILTER_CAPS, 0x0303_0300);
    assert!(!SamplerState::default().srgb_texture);
    assert_eq!(SamplerState::default().max_anisotropy, 1);
}

#[test]
fn short_blocks_and_odd_inputs_never_panic() {
    // decode on a short slice of a block format reads zeros for the missing bytes.
    assert_eq!(Format::DXT5.decode(&[255, 0]), [0.0, 0.0, 0.0, 1.0]);
    for format in Format::ALL {
        for (w, h) in [(1, 1), (3, 7), (5, 5)] {
            let n = format.surface_bytes(w, h, 1);
            let t = Texture::new(TextureKind::TwoD, format, w, h, 1, &[vec![0xA5; n]]).unwrap();
            let s = SamplerState {
                mag_filter: TextureFilter::Linear,
                srgb_texture: true,
                ..SamplerState::default()
            };
            let v = sample(&t, &s, [0.3, 0.7, 0.0, 0.0]);
            assert!(v.iter().all(|x| x.is_finite()), "{format:?}");
            assert!(Texture::new(TextureKind::TwoD, format, w, h, 1, &[vec![0; n + 1]]).is_err());
        }
    }
}

mod batch_path {
    //! The batch path ([`sample_2d`](crate::texture::sample_2d)) against the lane-by-lane
    //! [`sample`], bit for bit, on random textures, states, coordinates and LODs.
    use super::*;
    use crate::texture::sample_2d;
    use proptest::prelude::*;

    const N: usize = 16;

    /// Coordinates: ordinary ones, texel-centred ones, huge ones, and any bits at all
    /// (NaN, infinities, denormals).
    fn coord() -> impl Strategy<Value = f32> {
        prop_oneof![
            4 => -3.0f32..3.0,
            2 => (-40i32..40).prop_map(|k| k as f32 / 8.0),
            1 => -1.0e9f32..1.0e9,
            1 => any::<f32>(),
        ]
    }

    fn lod() -> impl Strategy<Value = f32> {
        prop_oneof![
            4 => -2.0f32..5.0,
            1 => (-4i32..12).prop_map(|k| k as f32 * 0.5),
            1 => any::<f32>(),
        ]
    }

    fn address() -> impl Strategy<Value = TextureAddress> {
        prop::sample::select(vec![
            TextureAddress::Wrap,
            TextureAddress::Mirror,
            TextureAddress::Clamp,
            TextureAddress::Border,
            TextureAddress::MirrorOnce,
        ])
    }

    fn filter() -> impl Strategy<Value = TextureFilter> {
        prop::sample::select(vec![
            TextureFilter::Point,
            TextureFilter::Linear,
            TextureFilter::Anisotropic,
        ])
    }

    fn mip() -> impl Strategy<Value = TextureFilter> {
        prop::sample::select(vec![
            TextureFilter::None,
            TextureFilter::Point,
            TextureFilter::Linear,
        ])
    }

    /// Sampler states; the address modes are the same on both axes half of the time (the
    /// batch path's WRAP and CLAMP addressers).
    fn states() -> impl Strategy<Value = SamplerState> {
        (
            (address(), address(), any::<bool>()),
            (filter(), filter(), mip()),
            (-2.0f32..2.0, 0u32..5, any::<u32>()),
        )
            .prop_map(|((u, v, same), (mag, min, mip), (bias, max, border))| {
                SamplerState {
                    address_u: u,
                    address_v: if same { u } else { v },
                    mag_filter: mag,
                    min_filter: min,
                    mip_filter: mip,
                    mip_lod_bias: bias,
                    max_mip_level: max,
                    border_color: border,
                    ..SamplerState::default()
                }
            })
    }

    /// A float texture of 1..=9 by 1..=9 texels (powers of two and others) with every
    /// level its size allows or fewer, its texels random (signed zeros and huge values
    /// among them).
    fn texture() -> impl Strategy<Value = Texture> {
        (1usize..=9, 1usize..=9, 1usize..=4, any::<u64>()).prop_map(|(w, h, levels, seed)| {
            let levels = levels.min(1 + w.max(h).ilog2() as usize);
            let mut x = seed | 1;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 8 {
                    0 => -0.0f32,
                    1 => 1.0e30 * (x >> 40) as f32,
                    _ => ((x >> 32) as u32 as f32 / u32::MAX as f32) * 2.0 - 0.5,
                }
            };
            let data: Vec<Vec<u8>> = (0..levels)
                .map(|k| {
                    let n = (w >> k).max(1) * (h >> k).max(1) * 4;
                    (0..n).flat_map(|_| next().to_le_bytes()).collect()
                })
                .collect();
            Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, w, h, 1, &data).unwrap()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn the_batch_path_has_the_lane_by_lane_bits(
            tex in texture(),
            st in states(),
            u in prop::array::uniform16(coord()),
            v in prop::array::uniform16(coord()),
            lod in prop::array::uniform16(lod()),
        ) {
            let mut out = [[0.0f32; N]; 4];
            prop_assert!(sample_2d(&tex, &st, [&u, &v], &lod, &mut out));
            for l in 0..N {
                let want = sample(&tex, &st, [u[l], v[l], 0.0, lod[l]]);
                let got: [f32; 4] = std::array::from_fn(|c| out[c][l]);
                prop_assert_eq!(
                    got.map(f32::to_bits),
                    want.map(f32::to_bits),
                    "lane {} at ({}, {}) LOD {}: {:?} != {:?}",
                    l, u[l], v[l], lod[l], got, want
                );
            }
        }
    }

    #[test]
    fn cube_volume_and_srgb_lookups_keep_the_lane_by_lane_path() {
        let st = SamplerState::default();
        let (uv, lod, mut out) = ([0.5f32; N], [0.0f32; N], [[7.0f32; N]; 4]);
        let cube = Texture::new(TextureKind::Cube, Format::L8, 1, 1, 1, &[vec![9; 6]]).unwrap();
        let volume = Texture::new(TextureKind::Volume, Format::L8, 1, 1, 2, &[vec![9; 2]]).unwrap();
        assert!(!sample_2d(&cube, &st, [&uv, &uv], &lod, &mut out));
        assert!(!sample_2d(&volume, &st, [&uv, &uv], &lod, &mut out));
        let rgba =
            Texture::new(TextureKind::TwoD, Format::A8R8G8B8, 1, 1, 1, &[vec![9; 4]]).unwrap();
        let srgb = SamplerState {
            srgb_texture: true,
            ..st
        };
        assert!(!sample_2d(&rgba, &srgb, [&uv, &uv], &lod, &mut out));
        assert_eq!(out, [[7.0f32; N]; 4]);
        // Float texels are not sRGB-read: the state changes nothing, and the batch path
        // takes them.
        let one: Vec<u8> = [1.0f32; 4].iter().flat_map(|x| x.to_le_bytes()).collect();
        let float =
            Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 1, 1, 1, &[one]).unwrap();
        assert!(sample_2d(&float, &srgb, [&uv, &uv], &lod, &mut out));
        assert_eq!(out[0], [1.0; N]);
    }
}
