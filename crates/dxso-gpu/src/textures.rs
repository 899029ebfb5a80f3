//! Textures on the GPU (vertex `texldl` in [`crate::Gpu::draw`], every sampling
//! instruction in [`crate::Gpu::render`]): dxso-vm's decoded texels uploaded as
//! `Rgba32Float` textures, and wgpu samplers translated from D3D9 sampler states. A draw's
//! pixel textures (`compact`) whose every component is `k / 255` (an 8-bit format's) go as
//! `Rgba8Unorm` where the sampler filters with `POINT` only, and as `Rgba16Unorm`
//! (`k · 257 / 65535`) where it filters linearly and the adapter has it (lavapipe filters
//! 8-bit textures with 8-bit weights): a quarter or half of the bytes. lavapipe converts
//! those texels to floats within a unit in the last place of `k / 255` (0.4 reads
//! 0.40000004), which a draw's targets hide (measured, docs/gpu.md); the bit-exact paths
//! (`run --gpu`'s `texldl`, `Gpu::render`) keep `Rgba32Float`.
//!
//! | D3D9 | wgpu |
//! |---|---|
//! | `WRAP`, `MIRROR`, `CLAMP` | `Repeat`, `MirrorRepeat`, `ClampToEdge` |
//! | `BORDER` with colour 0x00000000, 0xff000000 or 0xffffffff | `ClampToBorder` (where the adapter has it) |
//! | `POINT`, `LINEAR` (`ANISOTROPIC`, `*QUAD`: `LINEAR`) | `Nearest`, `Linear` |
//! | `MIPFILTER NONE` | level 0 only |
//! | `MAXMIPLEVEL n` (with a mip filter) | `lod_min_clamp = n` |
//!
//! Refused with [`Error::Unsupported`]: `MIRRORONCE`, other border colours, a nonzero
//! `MIPMAPLODBIAS`, and linear filters on an adapter without filterable 32-bit float
//! textures, and a texture whose kind is not the sampler's. Filtering arithmetic is the
//! GPU's own, so filtered results are within filtering tolerance, not bit for bit (on
//! lavapipe at most 1.2e-7 from dxso-vm's, measured in `tests/gpu/texture_kinds.rs`). An
//! unbound sampler reads (0, 0, 0, 1) as in dxso-vm (a 1x1 texture holding it).

use crate::{Error, SamplerUnsupported};
use dxso_vm::{SamplerState, Texture, TextureAddress, TextureFilter, TextureKind};

/// A texture and sampler ready to bind.
pub struct Bound {
    /// The texture's view.
    pub view: wgpu::TextureView,
    /// The sampler made from the sampler state.
    pub sampler: wgpu::Sampler,
}

/// `"2d"`, `"cube"`, `"volume"` (the interface's sampler kinds) as dxso-vm's kinds.
pub fn kind(name: &str) -> TextureKind {
    match name {
        "cube" => TextureKind::Cube,
        "volume" => TextureKind::Volume,
        _ => TextureKind::TwoD,
    }
}

/// The view dimension of a texture kind.
pub fn view_dimension(kind: TextureKind) -> wgpu::TextureViewDimension {
    match kind {
        TextureKind::TwoD => wgpu::TextureViewDimension::D2,
        TextureKind::Cube => wgpu::TextureViewDimension::Cube,
        TextureKind::Volume => wgpu::TextureViewDimension::D3,
    }
}

fn address(register: u32, a: TextureAddress, border: bool) -> Result<wgpu::AddressMode, Error> {
    Ok(match a {
        TextureAddress::Wrap => wgpu::AddressMode::Repeat,
        TextureAddress::Mirror => wgpu::AddressMode::MirrorRepeat,
        TextureAddress::Clamp => wgpu::AddressMode::ClampToEdge,
        TextureAddress::Border if border => wgpu::AddressMode::ClampToBorder,
        TextureAddress::Border => {
            return Err(Error::Unsupported {
                sampler: register,
                what: SamplerUnsupported::BorderAddressing,
            });
        }
        TextureAddress::MirrorOnce => {
            return Err(Error::Unsupported {
                sampler: register,
                what: SamplerUnsupported::MirrorOnce,
            });
        }
    })
}

fn filter(f: TextureFilter) -> wgpu::FilterMode {
    match f {
        TextureFilter::None | TextureFilter::Point => wgpu::FilterMode::Nearest,
        _ => wgpu::FilterMode::Linear,
    }
}

/// The wgpu sampler for a D3D9 sampler state of a texture with `levels` mip levels.
pub fn sampler_descriptor(
    register: u32,
    st: &SamplerState,
    levels: usize,
    features: wgpu::Features,
) -> Result<wgpu::SamplerDescriptor<'static>, Error> {
    let border = features.contains(wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER);
    let linear = [st.mag_filter, st.min_filter, st.mip_filter]
        .iter()
        .any(|f| filter(*f) == wgpu::FilterMode::Linear);
    if linear && !features.contains(wgpu::Features::FLOAT32_FILTERABLE) {
        return Err(Error::Unsupported {
            sampler: register,
            what: SamplerUnsupported::FloatFiltering,
        });
    }
    if st.mip_lod_bias != 0.0 {
        return Err(Error::Unsupported {
            sampler: register,
            what: SamplerUnsupported::LodBias(st.mip_lod_bias),
        });
    }
    let uses_border = [st.address_u, st.address_v, st.address_w].contains(&TextureAddress::Border);
    let border_color = match st.border_color {
        _ if !uses_border => None,
        0x0000_0000 => Some(wgpu::SamplerBorderColor::TransparentBlack),
        0xff00_0000 => Some(wgpu::SamplerBorderColor::OpaqueBlack),
        0xffff_ffff => Some(wgpu::SamplerBorderColor::OpaqueWhite),
        c => {
            return Err(Error::Unsupported {
                sampler: register,
                what: SamplerUnsupported::BorderColour(c),
            });
        }
    };
    let last = levels.saturating_sub(1) as f32;
    let (lod_min_clamp, lod_max_clamp) = if st.mip_filter == TextureFilter::None {
        (0.0, 0.0)
    } else {
        ((st.max_mip_level as f32).min(last), last)
    };
    Ok(wgpu::SamplerDescriptor {
        label: Some("dxso-gpu sampler"),
        address_mode_u: address(register, st.address_u, border)?,
        address_mode_v: address(register, st.address_v, border)?,
        address_mode_w: address(register, st.address_w, border)?,
        mag_filter: filter(st.mag_filter),
        min_filter: filter(st.min_filter),
        mipmap_filter: match st.mip_filter {
            TextureFilter::Linear
            | TextureFilter::Anisotropic
            | TextureFilter::PyramidalQuad
            | TextureFilter::GaussianQuad => wgpu::MipmapFilterMode::Linear,
            _ => wgpu::MipmapFilterMode::Nearest,
        },
        lod_min_clamp,
        lod_max_clamp,
        compare: None,
        anisotropy_clamp: 1,
        border_color,
    })
}

/// The byte `k` of a texel component that is `k / 255` exactly (what dxso-vm decodes an 8-bit
/// unorm channel to), else `None`.
fn unorm8_exact(x: f32) -> Option<u8> {
    let k = (x * 255.0).round();
    let b = k as u8;
    ((0.0..=255.0).contains(&k) && (b as f32 / 255.0).to_bits() == x.to_bits()).then_some(b)
}

/// Upload `texture` (or, for an unbound sampler, a 1x1 texture of `kind` holding
/// (0, 0, 0, 1)) and make its sampler; `compact`: 8-bit texels in 8 or 16 bits a channel. A texture of another kind than the sampler's is
/// [`Error::Unsupported`].
pub fn bind(
    gpu: &crate::Gpu,
    register: u32,
    kind: TextureKind,
    texture: Option<&Texture>,
    state: &SamplerState,
    compact: bool,
) -> Result<Bound, Error> {
    let (device, queue, features) = (&gpu.device, &gpu.queue, gpu.features);
    if let Some(t) = texture
        && t.kind != kind
    {
        return Err(Error::Unsupported {
            sampler: register,
            what: SamplerUnsupported::TextureKind {
                texture: t.kind,
                sampler: kind,
            },
        });
    }
    let unbound = [[0.0f32, 0.0, 0.0, 1.0]; 6];
    let faces = if kind == TextureKind::Cube { 6 } else { 1 };
    let levels: Vec<(usize, usize, usize, &[[f32; 4]])> = match texture {
        Some(t) => (0..t.levels()).filter_map(|k| t.level(k)).collect(),
        None => vec![(1, 1, 1, &unbound[..faces])],
    };
    let (w, h, d, _) = levels[0];
    // 8-bit texels as `Rgba8Unorm` where the sampler only points (lavapipe filters 8-bit
    // textures in 8-bit fixed point: a linear filter would be a step off, see docs/gpu.md).
    let points = [state.mag_filter, state.min_filter, state.mip_filter]
        .iter()
        .all(|f| matches!(f, TextureFilter::None | TextureFilter::Point));
    let eight_bit = compact
        && texture.is_some()
        && levels
            .iter()
            .all(|l| l.3.iter().flatten().all(|&x| unorm8_exact(x).is_some()));
    let unorm8 = eight_bit && points;
    // Filtered, as `Rgba16Unorm` (k · 257 / 65535 is k / 255) where the adapter has it.
    let unorm16 =
        eight_bit && !points && features.contains(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM);
    let size = wgpu::Extent3d {
        width: w as u32,
        height: h as u32,
        depth_or_array_layers: if kind == TextureKind::Volume {
            d as u32
        } else {
            faces as u32
        },
    };
    let gpu_texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("dxso-gpu texture"),
        size,
        mip_level_count: levels.len() as u32,
        sample_count: 1,
        dimension: if kind == TextureKind::Volume {
            wgpu::TextureDimension::D3
        } else {
            wgpu::TextureDimension::D2
        },
        format: if unorm8 {
            wgpu::TextureFormat::Rgba8Unorm
        } else if unorm16 {
            wgpu::TextureFormat::Rgba16Unorm
        } else {
            wgpu::TextureFormat::Rgba32Float
        },
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (k, &(w, h, d, texels)) in levels.iter().enumerate() {
        let layers = if kind == TextureKind::Volume {
            d
        } else {
            faces
        };
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &gpu_texture,
                mip_level: k as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &if unorm8 {
                texels
                    .iter()
                    .flatten()
                    .map(|&x| unorm8_exact(x).unwrap_or(0))
                    .collect::<Vec<u8>>()
            } else if unorm16 {
                texels
                    .iter()
                    .flatten()
                    .flat_map(|&x| (unorm8_exact(x).unwrap_or(0) as u16 * 257).to_le_bytes())
                    .collect::<Vec<u8>>()
            } else {
                bytemuck::cast_slice(texels).to_vec()
            },
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(
                    w as u32
                        * if unorm8 {
                            4
                        } else if unorm16 {
                            8
                        } else {
                            16
                        },
                ),
                rows_per_image: Some(h as u32),
            },
            wgpu::Extent3d {
                width: w as u32,
                height: h as u32,
                depth_or_array_layers: layers as u32,
            },
        );
    }
    let view = gpu_texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(view_dimension(kind)),
        ..Default::default()
    });
    let desc = match texture {
        Some(_) => sampler_descriptor(register, state, levels.len(), features)?,
        None => sampler_descriptor(register, &SamplerState::default(), 1, features)?,
    };
    Ok(Bound {
        view,
        sampler: device.create_sampler(&desc),
    })
}

#[cfg(test)]
mod tests {
    use super::unorm8_exact;

    /// Every byte's `k / 255` is itself; values between, outside [0, 1], a bit off or -0 are not.
    #[test]
    fn only_exact_multiples_of_one_255th_are_bytes() {
        for k in 0..=255u8 {
            let x = k as f32 / 255.0;
            assert_eq!(unorm8_exact(x), Some(k));
            if k > 0 {
                assert_eq!(unorm8_exact(f32::from_bits(x.to_bits() + 1)), None, "{k}");
            }
        }
        for x in [
            0.5,
            -1.0 / 255.0,
            256.0 / 255.0,
            f32::NAN,
            f32::INFINITY,
            -0.0,
        ] {
            assert_eq!(unorm8_exact(x), None, "{x}");
        }
    }
}
