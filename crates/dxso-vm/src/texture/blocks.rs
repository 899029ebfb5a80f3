//! DXT1 .. DXT5 ("Compressed Texture Resources (Direct3D 9)"): 4x4 blocks, decoded to
//! (R, G, B, A) floats when a texture is made.
//!
//! - Colour block (8 bytes; all of DXT1, the second half of DXT2 .. DXT5): colour0, colour1
//!   (R5G6B5, little-endian) and 32 bits of 2-bit indices, texel (x, y) at bit `2(4y + x)`.
//!   Index 0 and 1 are the two colours; DXT1 with `colour0 > colour1` and every DXT2 .. DXT5
//!   block add `(2c0 + c1)/3` and `(c0 + 2c1)/3`; DXT1 with `colour0 <= colour1` adds
//!   `(c0 + c1)/2` and transparent black (0, 0, 0, 0). Other colours have alpha 1.
//! - DXT2/DXT3 alpha (8 bytes first): 4 bits a texel, texel `i = 4y + x` at bit `4i`; `a / 15`.
//! - DXT4/DXT5 alpha (8 bytes first): alpha0, alpha1, then 48 bits of 3-bit indices (texel
//!   `i` at bit `3i`). `alpha0 > alpha1`: indices 2..7 are `((8-k)a0 + (k-1)a1)/7`; else 2..5
//!   are `((6-k)a0 + (k-1)a1)/5`, 6 is 0 and 7 is 1.
//! - DXT2 and DXT4 hold premultiplied colour; they are sampled as stored (as DXT3 and DXT5).
//!
//! dxso's choice for the interpolation (D3D9 leaves its precision to the hardware): in
//! floating point from the exact integers, one rounding — a colour channel of `(2c0 + c1)/3`
//! is `(2·r0 + r1) as f32 / (3·31)` for a 5-bit channel, alpha `(6a0 + a1) as f32 / (7·255)`.

use super::Format;

/// The 16 texels of one block, row by row. `b` holds the block (8 bytes for DXT1, else 16);
/// a shorter slice reads as zero bytes (never a panic).
pub(super) fn decode_block(format: Format, b: &[u8]) -> [[f32; 4]; 16] {
    let mut block = [0u8; 16];
    let n = b.len().min(format.texel_bytes()).min(16);
    block[..n].copy_from_slice(&b[..n]);
    let b = &block;
    let mut out = match format {
        Format::DXT1 => colour_block(&b[..8], true),
        _ => colour_block(&b[8..16], false),
    };
    match format {
        Format::DXT2 | Format::DXT3 => {
            let a = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
            for (i, t) in out.iter_mut().enumerate() {
                t[3] = (a >> (4 * i) & 0xF) as f32 / 15.0;
            }
        }
        Format::DXT4 | Format::DXT5 => {
            let alphas = alpha_palette(b[0] as u32, b[1] as u32);
            let mut idx = [0u8; 8];
            idx[..6].copy_from_slice(&b[2..8]);
            let idx = u64::from_le_bytes(idx);
            for (i, t) in out.iter_mut().enumerate() {
                t[3] = alphas[(idx >> (3 * i) & 7) as usize];
            }
        }
        _ => {}
    }
    out
}

/// The eight alphas of a DXT4/DXT5 block.
fn alpha_palette(a0: u32, a1: u32) -> [f32; 8] {
    let mix = |w0: u32, w1: u32| (w0 * a0 + w1 * a1) as f32 / ((w0 + w1) * 255) as f32;
    let mut p = [
        a0 as f32 / 255.0,
        a1 as f32 / 255.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ];
    if a0 > a1 {
        for (k, x) in p.iter_mut().enumerate().skip(2) {
            *x = mix(8 - k as u32, k as u32 - 1);
        }
    } else {
        for (k, x) in p.iter_mut().enumerate().take(6).skip(2) {
            *x = mix(6 - k as u32, k as u32 - 1);
        }
        p[6] = 0.0;
    }
    p
}

/// A colour block's 16 texels; `dxt1` enables the 3-colour + transparent mode.
fn colour_block(b: &[u8], dxt1: bool) -> [[f32; 4]; 16] {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    // (channel value, its maximum) for R, G, B.
    let fields = |c: u32| [(c >> 11 & 31, 31), (c >> 5 & 63, 63), (c & 31, 31)];
    let (f0, f1) = (fields(c0), fields(c1));
    let mix = |w0: u32, w1: u32| -> [f32; 4] {
        let ch = |i: usize| {
            let ((x0, m), (x1, _)) = (f0[i], f1[i]);
            (w0 * x0 + w1 * x1) as f32 / ((w0 + w1) * m) as f32
        };
        [ch(0), ch(1), ch(2), 1.0]
    };
    let palette = if !dxt1 || c0 > c1 {
        [mix(1, 0), mix(0, 1), mix(2, 1), mix(1, 2)]
    } else {
        [mix(1, 0), mix(0, 1), mix(1, 1), [0.0; 4]]
    };
    std::array::from_fn(|i| palette[(idx >> (2 * i) & 3) as usize])
}

/// A surface of `slices` slices (volume slices or cube faces) of `width` x `height` texels
/// from its blocks (`ceil(w/4) x ceil(h/4)` a slice, row by row); texels of the padding are
/// dropped. `bytes` holds exactly the blocks ([`Format::surface_bytes`] per slice).
pub(super) fn decode_surface(
    format: Format,
    bytes: &[u8],
    width: usize,
    height: usize,
    slices: usize,
) -> Vec<[f32; 4]> {
    let bb = format.texel_bytes();
    let (bw, bh) = (width.div_ceil(4), height.div_ceil(4));
    let mut out = vec![[0.0; 4]; width * height * slices];
    for (k, block) in bytes.chunks_exact(bb).enumerate() {
        let (s, by, bx) = (k / (bw * bh), k / bw % bh, k % bw);
        let texels = decode_block(format, block);
        for (i, t) in texels.into_iter().enumerate() {
            let (x, y) = (bx * 4 + i % 4, by * 4 + i / 4);
            if x < width && y < height && s < slices {
                out[(s * height + y) * width + x] = t;
            }
        }
    }
    out
}
