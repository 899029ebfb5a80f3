//! Scene textures (`"textures"`) and sampler states (`"samplers"`), keyed by `s0`..`s3`.
//!
//! A texture is `{"type": "2d"|"cube"|"volume", "format": "A8R8G8B8", "width": W,
//! "height": H, "depth": D, "levels": [[...], ...]}` or `{"file": "x.dds"|"x.png"}`.
//! Each level lists the format's stored elements in memory order: floats for the float
//! formats (R first), unsigned integers per 8- or 16-bit channel for the others (A8R8G8B8:
//! B, G, R, A), one integer per texel for the packed 16/32-bit formats (R5G6B5, A2R10G10B10,
//! ...). Cube levels hold the six faces (+X, −X, +Y, −Y, +Z, −Z) one after another; volume
//! levels their slices.

use anyhow::{Context, anyhow, bail};
use dxso_vm::{
    Device, Format, MAX_TEXTURE_TEXELS, SamplerState, Texture, TextureAddress, TextureFilter,
    TextureKind, encode_level,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn sampler_index(key: &str) -> anyhow::Result<usize> {
    match key {
        "s0" => Ok(0),
        "s1" => Ok(1),
        "s2" => Ok(2),
        "s3" => Ok(3),
        _ => bail!("{key:?}: vertex samplers are s0..s3"),
    }
}

pub fn apply(
    device: &mut Device,
    textures: &BTreeMap<String, Value>,
    samplers: &BTreeMap<String, Value>,
    dir: &Path,
) -> anyhow::Result<()> {
    for (key, v) in textures {
        let n = sampler_index(key).with_context(|| "textures".to_string())?;
        let tex = texture(v, dir).with_context(|| format!("textures.{key}"))?;
        device.set_texture(n, Some(Arc::new(tex)))?;
    }
    for (key, v) in samplers {
        let n = sampler_index(key).with_context(|| "samplers".to_string())?;
        let st = sampler(v).with_context(|| format!("samplers.{key}"))?;
        device.set_sampler_state(n, st)?;
    }
    Ok(())
}

fn uint(v: &Value, what: &str) -> anyhow::Result<u64> {
    v.as_u64()
        .ok_or_else(|| anyhow!("{what}: expected an unsigned integer, found {v}"))
}

fn texture(v: &Value, dir: &Path) -> anyhow::Result<Texture> {
    let obj = v.as_object().ok_or_else(|| anyhow!("expected an object"))?;
    for k in obj.keys() {
        if ![
            "type", "format", "width", "height", "depth", "levels", "file",
        ]
        .contains(&k.as_str())
        {
            bail!("unknown field {k:?}");
        }
    }
    if let Some(file) = obj.get("file") {
        let file = file
            .as_str()
            .ok_or_else(|| anyhow!("file: expected a path"))?;
        let path = dir.join(file);
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let lower = file.to_ascii_lowercase();
        return if lower.ends_with(".png") {
            load_png(&bytes)
        } else if lower.ends_with(".dds") {
            load_dds(&bytes)
        } else {
            bail!("{file}: textures load from .dds or .png files")
        };
    }
    let kind = match obj
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("2d")
        .to_ascii_lowercase()
        .as_str()
    {
        "2d" => TextureKind::TwoD,
        "cube" => TextureKind::Cube,
        "volume" | "3d" => TextureKind::Volume,
        other => bail!("type {other:?}: expected \"2d\", \"cube\" or \"volume\""),
    };
    let fname = obj
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("format: missing"))?;
    let format = Format::from_name(fname)
        .filter(|f| !f.pixel_only())
        .ok_or_else(|| anyhow!("format {fname:?} is not a vertex texture format"))?;
    let dim = |k: &str| -> anyhow::Result<usize> {
        match obj.get(k) {
            None => Ok(1),
            Some(v) => Ok(uint(v, k)? as usize),
        }
    };
    let (w, h, d) = (dim("width")?, dim("height")?, dim("depth")?);
    let levels = obj
        .get("levels")
        .and_then(Value::as_array)
        .ok_or_else(|| anyhow!("levels: expected an array of levels (or \"file\")"))?;
    let mut bytes = Vec::new();
    for (k, level) in levels.iter().enumerate() {
        let items = level
            .as_array()
            .ok_or_else(|| anyhow!("levels[{k}]: expected an array"))?;
        let numbers = items
            .iter()
            .map(|x| {
                x.as_f64()
                    .ok_or_else(|| anyhow!("levels[{k}]: expected a number, found {x}"))
            })
            .collect::<anyhow::Result<Vec<f64>>>()?;
        let size = |n: usize| n.checked_shr(k as u32).unwrap_or(0).max(1);
        let level = encode_level(kind, format, size(w), size(h), size(d), &numbers)
            .with_context(|| format!("levels[{k}]"))?;
        bytes.push(level);
    }
    Ok(Texture::new(kind, format, w, h, d, &bytes)?)
}

/// The most bytes the PNG decoder may allocate (`png::Limits`): a largest texture
/// ([`MAX_TEXTURE_TEXELS`]) at 16 bits for each of four channels.
pub const PNG_DECODER_BYTES: usize = MAX_TEXTURE_TEXELS * 8;

/// A PNG as one A8B8G8R8 (8-bit) or A16B16G16R16 (16-bit) level; grey images are expanded.
/// The declared size is checked against the texture limits before anything is allocated.
fn load_png(bytes: &[u8]) -> anyhow::Result<Texture> {
    let limits = png::Limits {
        bytes: PNG_DECODER_BYTES,
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .with_context(|| format!("PNG (decoder limit {PNG_DECODER_BYTES} bytes)"))?;
    let (w, h) = reader.info().size();
    Texture::check_size(TextureKind::TwoD, w as usize, h as usize, 1, 1).context("PNG")?;
    let size = reader
        .output_buffer_size()
        .filter(|&n| n <= PNG_DECODER_BYTES)
        .ok_or_else(|| anyhow!("PNG: decoded image exceeds {PNG_DECODER_BYTES} bytes"))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).context("PNG")?;
    let (w, h) = (info.width as usize, info.height as usize);
    let data = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    let wide = info.bit_depth == png::BitDepth::Sixteen;
    let mut out = Vec::with_capacity(w * h * if wide { 8 } else { 4 });
    let sample = |t: &[u8], c: usize| -> u16 {
        if wide {
            u16::from_be_bytes([t[2 * c], t[2 * c + 1]])
        } else {
            t[c] as u16
        }
    };
    let stride = channels * if wide { 2 } else { 1 };
    for t in data.chunks_exact(stride) {
        let (r, g, b, a) = match channels {
            1 => (sample(t, 0), sample(t, 0), sample(t, 0), None),
            2 => (sample(t, 0), sample(t, 0), sample(t, 0), Some(sample(t, 1))),
            3 => (sample(t, 0), sample(t, 1), sample(t, 2), None),
            _ => (sample(t, 0), sample(t, 1), sample(t, 2), Some(sample(t, 3))),
        };
        let max = if wide { 0xFFFF } else { 0xFF };
        for c in [r, g, b, a.unwrap_or(max)] {
            if wide {
                out.extend(c.to_le_bytes());
            } else {
                out.push(c as u8);
            }
        }
    }
    let format = if wide {
        Format::A16B16G16R16
    } else {
        Format::A8B8G8R8
    };
    Ok(Texture::new(TextureKind::TwoD, format, w, h, 1, &[out])?)
}

/// A DDS with its mip chain (2D, cube or volume) in one of the vertex texture formats.
fn load_dds(bytes: &[u8]) -> anyhow::Result<Texture> {
    use ddsfile::D3DFormat as D;
    let dds = ddsfile::Dds::read(std::io::Cursor::new(bytes)).map_err(|e| anyhow!("DDS: {e}"))?;
    let d3d = dds
        .get_d3d_format()
        .ok_or_else(|| anyhow!("DDS: only D3D9 formats (no DX10 header) are read"))?;
    let format = match d3d {
        D::A32B32G32R32F => Format::A32B32G32R32F,
        D::G32R32F => Format::G32R32F,
        D::R32F => Format::R32F,
        D::A16B16G16R16F => Format::A16B16G16R16F,
        D::G16R16F => Format::G16R16F,
        D::R16F => Format::R16F,
        D::A8R8G8B8 => Format::A8R8G8B8,
        D::X8R8G8B8 => Format::X8R8G8B8,
        D::A8B8G8R8 => Format::A8B8G8R8,
        D::A2R10G10B10 => Format::A2R10G10B10,
        D::A2B10G10R10 => Format::A2B10G10R10,
        D::G16R16 => Format::G16R16,
        D::A16B16G16R16 => Format::A16B16G16R16,
        D::R5G6B5 => Format::R5G6B5,
        D::A1R5G5B5 => Format::A1R5G5B5,
        D::A4R4G4B4 => Format::A4R4G4B4,
        D::L8 => Format::L8,
        D::A8L8 => Format::A8L8,
        D::A8 => Format::A8,
        D::L16 => Format::L16,
        other => bail!("DDS format {other:?} is not a vertex texture format"),
    };
    let (w, h, d) = (
        dds.get_width() as usize,
        dds.get_height() as usize,
        dds.get_depth() as usize,
    );
    let layers = dds.get_num_array_layers();
    let kind = match (layers, d) {
        (6, _) => TextureKind::Cube,
        (_, 2..) => TextureKind::Volume,
        _ => TextureKind::TwoD,
    };
    let mips = dds.get_num_mipmap_levels().max(1) as usize;
    // The header's numbers are the file's claim: check them against the limits before
    // computing with them (then no product below can overflow) or allocating.
    Texture::check_size(kind, w, h, d, mips).context("DDS")?;
    let tb = format.texel_bytes();
    let level_bytes = |k: usize| (w >> k).max(1) * (h >> k).max(1) * (d >> k).max(1) * tb;
    let mut levels: Vec<Vec<u8>> = vec![Vec::new(); mips];
    let mut at = 0;
    for _layer in 0..layers {
        for (k, level) in levels.iter_mut().enumerate() {
            let n = level_bytes(k);
            let chunk = dds
                .data
                .get(at..at + n)
                .ok_or_else(|| anyhow!("DDS: level {k} is cut short"))?;
            level.extend_from_slice(chunk);
            at += n;
        }
    }
    Ok(Texture::new(kind, format, w, h, d, &levels)?)
}

fn sampler(v: &Value) -> anyhow::Result<SamplerState> {
    let obj = v.as_object().ok_or_else(|| anyhow!("expected an object"))?;
    let mut st = SamplerState::default();
    let address = |x: &Value| -> anyhow::Result<TextureAddress> {
        let s = x
            .as_str()
            .ok_or_else(|| anyhow!("expected an address mode name"))?;
        TextureAddress::from_name(s).ok_or_else(|| anyhow!("unknown address mode {s:?}"))
    };
    let filter = |x: &Value| -> anyhow::Result<TextureFilter> {
        let s = x
            .as_str()
            .ok_or_else(|| anyhow!("expected a filter name"))?;
        TextureFilter::from_name(s).ok_or_else(|| anyhow!("unknown filter {s:?}"))
    };
    for (k, x) in obj {
        match k.as_str() {
            "address_u" => st.address_u = address(x)?,
            "address_v" => st.address_v = address(x)?,
            "address_w" => st.address_w = address(x)?,
            "mag_filter" => st.mag_filter = filter(x)?,
            "min_filter" => st.min_filter = filter(x)?,
            "mip_filter" => st.mip_filter = filter(x)?,
            "max_mip_level" => st.max_mip_level = uint(x, k)? as u32,
            "max_anisotropy" => st.max_anisotropy = uint(x, k)? as u32,
            "element_index" => st.element_index = uint(x, k)? as u32,
            "dmap_offset" => st.dmap_offset = uint(x, k)? as u32,
            "mip_lod_bias" => {
                st.mip_lod_bias = x
                    .as_f64()
                    .ok_or_else(|| anyhow!("mip_lod_bias: expected a number"))?
                    as f32
            }
            "border_color" => {
                st.border_color = match x {
                    Value::String(s) => {
                        u32::from_str_radix(s.trim_start_matches("0x").trim_start_matches("0X"), 16)
                            .map_err(|_| anyhow!("border_color: bad hex {s:?}"))?
                    }
                    other => u32::try_from(uint(other, k)?)
                        .map_err(|_| anyhow!("border_color: too large"))?,
                }
            }
            other => bail!("unknown sampler state {other:?}"),
        }
    }
    Ok(st)
}
