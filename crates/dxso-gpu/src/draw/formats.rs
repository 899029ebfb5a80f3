//! Surface formats: each D3D9 render-target and depth-stencil format as the wgpu format it is
//! drawn into, and the read-back of a wgpu texel into the value dxso-draw's surfaces hold
//! (`TargetFormat::store`: unorm steps, f16 rounding, absent channels 1.0).

use crate::{Error, Refusal};
use dxso_draw::{DepthFormat, TargetFormat};

/// The wgpu format a render target is drawn into, or why there is none.
pub(super) fn color(f: TargetFormat, rgba16_unorm: bool) -> Result<wgpu::TextureFormat, Error> {
    use wgpu::TextureFormat as T;
    Ok(match f {
        TargetFormat::A8R8G8B8 | TargetFormat::X8R8G8B8 => T::Rgba8Unorm,
        TargetFormat::A2R10G10B10 => T::Rgb10a2Unorm,
        TargetFormat::A16B16G16R16 if rgba16_unorm => T::Rgba16Unorm,
        TargetFormat::A16B16G16R16F => T::Rgba16Float,
        TargetFormat::A32B32G32R32F => T::Rgba32Float,
        TargetFormat::R16F => T::R16Float,
        TargetFormat::R32F => T::R32Float,
        TargetFormat::G16R16F => T::Rg16Float,
        TargetFormat::G32R32F => T::Rg32Float,
        TargetFormat::R5G6B5 => {
            return Err(Error::Refused(Refusal::R5G6B5Target));
        }
        TargetFormat::A16B16G16R16 => {
            return Err(Error::Refused(Refusal::Unorm16Target));
        }
    })
}

/// Whether blending into `f` needs `FLOAT32_BLENDABLE`.
pub(super) fn float32(f: wgpu::TextureFormat) -> bool {
    matches!(
        f,
        wgpu::TextureFormat::Rgba32Float
            | wgpu::TextureFormat::R32Float
            | wgpu::TextureFormat::Rg32Float
    )
}

/// Bytes of one texel of a colour format this module uses.
pub(super) fn texel_bytes(f: wgpu::TextureFormat) -> u32 {
    use wgpu::TextureFormat as T;
    match f {
        T::R16Float => 2,
        T::Rgba16Unorm | T::Rgba16Float | T::Rg32Float => 8,
        T::Rgba32Float => 16,
        _ => 4,
    }
}

/// One texel read back as dxso-draw holds it.
pub(super) fn decode(target: TargetFormat, f: wgpu::TextureFormat, b: &[u8]) -> [f32; 4] {
    use wgpu::TextureFormat as T;
    let u16_at = |i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
    let f32_at =
        |i: usize| f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let half = |i: usize| half::f16::from_bits(u16_at(i)).to_f32();
    let mut v = [0.0f32; 4];
    match f {
        T::Rgba8Unorm => v = std::array::from_fn(|c| b[c] as f32 / 255.0),
        T::Rgb10a2Unorm => {
            let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            v = std::array::from_fn(|c| match c {
                3 => (w >> 30) as f32 / 3.0,
                _ => ((w >> (10 * c)) & 0x3ff) as f32 / 1023.0,
            });
        }
        T::Rgba16Unorm => v = std::array::from_fn(|c| u16_at(c) as f32 / 65535.0),
        T::Rgba16Float => v = std::array::from_fn(half),
        T::Rg16Float => (v[0], v[1]) = (half(0), half(1)),
        T::R16Float => v[0] = half(0),
        T::Rgba32Float => v = std::array::from_fn(f32_at),
        T::Rg32Float => (v[0], v[1]) = (f32_at(0), f32_at(1)),
        T::R32Float => v[0] = f32_at(0),
        _ => {}
    }
    target.store(v)
}

/// The wgpu format a depth-stencil surface is drawn into. Depth is compared as the wgpu
/// format holds it (a float for D24X8/D24S8, where dxso-draw compares 24-bit steps) and
/// read back rounded as the D3D9 format stores it.
pub(super) fn depth(
    f: DepthFormat,
    features: wgpu::Features,
) -> Result<wgpu::TextureFormat, Error> {
    Ok(match f {
        DepthFormat::D16 => wgpu::TextureFormat::Depth16Unorm,
        DepthFormat::D24X8 | DepthFormat::D32FLockable => wgpu::TextureFormat::Depth32Float,
        DepthFormat::D24S8 if features.contains(wgpu::Features::DEPTH32FLOAT_STENCIL8) => {
            wgpu::TextureFormat::Depth32FloatStencil8
        }
        DepthFormat::D24S8 => {
            return Err(Error::Refused(Refusal::D24S8));
        }
    })
}
